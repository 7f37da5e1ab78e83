/* prism-nvml.h — the SM clock from NVML, loaded at run time
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/**
 * PrismGpuClocks:
 * @sm_mhz: the SM clock NVML reports now, 0 when unknown
 * @sm_max_mhz: the highest SM clock NVML reports, 0 when unknown
 * @attribute_mhz: the driver's clock-rate attribute (the boost clock), 0 when unknown
 * @note: (nullable): why NVML gave nothing, %NULL when it did; owned
 *
 * The clocks of one device at one moment; timings are meaningless without
 * them (a GPU throttled by heat or power runs everything slower).
 */
typedef struct
{
  guint sm_mhz;
  guint sm_max_mhz;
  guint attribute_mhz;
  char *note;
} PrismGpuClocks;

/**
 * prism_nvml_read_clocks:
 * @pci_bus_id: (nullable): the device as the CUDA driver names it
 *   ("0000:19:00.0"); NVML numbers devices its own way, so this finds the
 *   same one (else NVML's device @ordinal is taken)
 * @ordinal: the CUDA device ordinal
 * @attribute_khz: the driver's clock-rate attribute, copied into the result
 * @clocks: (out caller-allocates): the clocks; free with prism_gpu_clocks_clear()
 *
 * dlopens NVML ($PRISM_NVML_LIBRARY, else libnvidia-ml.so.1, which comes
 * with the driver), reads the current and the highest SM clock and shuts
 * NVML down again.  Never fails: without NVML, @clocks says why in its note.
 */
void prism_nvml_read_clocks  (const char     *pci_bus_id,
                              int             ordinal,
                              int             attribute_khz,
                              PrismGpuClocks *clocks);

void prism_gpu_clocks_clear  (PrismGpuClocks *clocks);

G_END_DECLS
