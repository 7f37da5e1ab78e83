/* prism-calibrate.h — measuring the constants of the cost model on a GPU
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/**
 * PrismCalibrateOptions:
 * @device: CUDA device ordinal
 * @quick: fewer points and repetitions (well under 30 s on an H200)
 * @timeout_s: the microbenchmarks run in prism-gpu-worker, killed after this
 * @datasheet: (nullable): a prism-gpu file whose datasheet (the peak rates,
 *   which cannot be measured reliably this way), name and match list are
 *   copied; %NULL leaves the peak rates at 0, marked unknown
 * @gemm_shapes: (nullable): the cuBLASLt GEMMs to time, "MxNxK,…" (f16);
 *   %NULL for 8×4096×4096, 256×4096×4096 and 4096×4096×4096; "" for none
 * @worker: (nullable): path of prism-gpu-worker (see PrismGpuBenchOptions)
 * @keep_dir: keep the job folder and log its path
 */
typedef struct
{
  int device;
  gboolean quick;
  guint timeout_s;
  const char *datasheet;
  const char *gemm_shapes;
  const char *worker;
  gboolean keep_dir;
} PrismCalibrateOptions;

void        prism_calibrate_options_init (PrismCalibrateOptions       *options);

/**
 * prism_calibrate_run:
 *
 * Runs the microbenchmarks (docs/codegen.md, "Calibration") on the GPU in a
 * child process and builds a prism-gpu document (format "prism-gpu",
 * version 1): the device's datasheet (limits from the driver, peak rates
 * from @options->datasheet) and the measured calibration (launch gap, DRAM
 * latency, L2 bandwidth, DRAM bandwidth by bytes in flight per SM, cuBLASLt
 * efficiency, SM clock under load).
 *
 * Returns: (transfer full) (nullable): the document, or %NULL with
 *   %PRISM_ERROR_NO_GPU (no driver, device or NVRTC), %PRISM_ERROR_LIMIT
 *   (timed out: a hung kernel, naming the step), %PRISM_ERROR_PARSE or
 *   %PRISM_ERROR_VERSION (a bad datasheet file or --gemm-shapes) or
 *   %PRISM_ERROR_FAILED (a CUDA error, naming the call)
 */
JsonNode   *prism_calibrate_run          (const PrismCalibrateOptions *options,
                                          GError                     **error);

/* Writes @doc to @path atomically (a temporary file renamed over it). */
gboolean    prism_calibrate_save         (JsonNode                    *doc,
                                          const char                  *path,
                                          GError                     **error);

/* The CUDA source of the microbenchmarks (prism-calibrate.cu, embedded),
 * which includes "prism-platform.cuh" and "prism-tile.cuh".
 * (transfer full) */
GBytes     *prism_calibrate_get_source   (void);

/* "h200" from "NVIDIA H200": lower case, "NVIDIA " dropped, anything not a
 * letter or digit made a single '-'. (transfer full) */
char       *prism_calibrate_name_for     (const char                  *device_name);

G_END_DECLS
