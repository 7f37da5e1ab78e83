/* prism-nvml.c — the SM clock from NVML, loaded at run time
 *
 * NVML (libnvidia-ml.so.1) is part of the driver, not of the toolkit, and a
 * container may lack it even where the GPU works.  Timings are recorded
 * with the SM clock when it can be read, and with a note saying why not
 * when it cannot; its absence never fails a measurement.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <dlfcn.h>
#include <string.h>

#include "prism-nvml.h"

/* The few NVML types and values we use, ABI-compatible with <nvml.h>. */
typedef int PrismNvmlReturn;
typedef struct nvmlDevice_st *PrismNvmlDevice;

#define NVML_SUCCESS 0
#define NVML_CLOCK_SM 1

typedef struct
{
  PrismNvmlReturn (*Init) (void);
  PrismNvmlReturn (*Shutdown) (void);
  const char *(*ErrorString) (PrismNvmlReturn result);
  PrismNvmlReturn (*GetHandleByPciBusId) (const char *id, PrismNvmlDevice *device);
  PrismNvmlReturn (*GetHandleByIndex) (unsigned int index, PrismNvmlDevice *device);
  PrismNvmlReturn (*GetClockInfo) (PrismNvmlDevice device, int type, unsigned int *mhz);
  PrismNvmlReturn (*GetMaxClockInfo) (PrismNvmlDevice device, int type, unsigned int *mhz);
} Nvml;

typedef struct
{
  gsize offset;
  const char *names[2];   /* newest versioned name first */
} Symbol;

#define SYM(field, ...) { G_STRUCT_OFFSET (Nvml, field), { __VA_ARGS__ } }

static const Symbol symbols[] = {
  SYM (Init, "nvmlInit_v2", "nvmlInit"),
  SYM (Shutdown, "nvmlShutdown"),
  SYM (ErrorString, "nvmlErrorString"),
  SYM (GetHandleByPciBusId, "nvmlDeviceGetHandleByPciBusId_v2", "nvmlDeviceGetHandleByPciBusId"),
  SYM (GetHandleByIndex, "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex"),
  SYM (GetClockInfo, "nvmlDeviceGetClockInfo"),
  SYM (GetMaxClockInfo, "nvmlDeviceGetMaxClockInfo"),
};

void
prism_gpu_clocks_clear (PrismGpuClocks *clocks)
{
  g_free (clocks->note);
  memset (clocks, 0, sizeof *clocks);
}

static const char *
nvml_error (const Nvml *nvml, PrismNvmlReturn r)
{
  const char *s = nvml->ErrorString != NULL ? nvml->ErrorString (r) : NULL;

  return s != NULL ? s : "unknown NVML error";
}

void
prism_nvml_read_clocks (const char *pci_bus_id, int ordinal, int attribute_khz, PrismGpuClocks *clocks)
{
  const char *env = g_getenv ("PRISM_NVML_LIBRARY");
  const char *name = env != NULL && *env ? env : "libnvidia-ml.so.1";
  PrismNvmlDevice device = NULL;
  PrismNvmlReturn r;
  Nvml nvml = { 0, };
  unsigned int mhz = 0;
  void *handle;

  memset (clocks, 0, sizeof *clocks);
  clocks->attribute_mhz = attribute_khz > 0 ? (guint) (attribute_khz / 1000) : 0;

  /* NVML stays mapped, as the driver does: it may keep threads of its own. */
  handle = dlopen (name, RTLD_NOW | RTLD_LOCAL);
  if (handle == NULL)
    {
      clocks->note = g_strdup_printf ("NVML (%s) could not be loaded: %s", name, dlerror ());
      return;
    }
  for (guint i = 0; i < G_N_ELEMENTS (symbols); i++)
    {
      void *p = NULL;

      for (guint k = 0; k < G_N_ELEMENTS (symbols[i].names) && symbols[i].names[k] && !p; k++)
        p = dlsym (handle, symbols[i].names[k]);
      if (p == NULL)
        {
          clocks->note = g_strdup_printf ("NVML (%s) has no function %s", name, symbols[i].names[0]);
          return;
        }
      memcpy ((char *) &nvml + symbols[i].offset, &p, sizeof p);
    }

  r = nvml.Init ();
  if (r != NVML_SUCCESS)
    {
      clocks->note = g_strdup_printf ("nvmlInit failed: %s (%d)", nvml_error (&nvml, r), r);
      return;
    }
  /* CUDA and NVML may number devices differently (CUDA_VISIBLE_DEVICES,
   * CUDA_DEVICE_ORDER); the PCI bus id is the same for both. */
  r = pci_bus_id != NULL && *pci_bus_id ? nvml.GetHandleByPciBusId (pci_bus_id, &device) : -1;
  if (r != NVML_SUCCESS)
    r = nvml.GetHandleByIndex ((unsigned int) MAX (ordinal, 0), &device);
  if (r != NVML_SUCCESS)
    clocks->note = g_strdup_printf ("NVML does not know the device %s: %s (%d)",
                                    pci_bus_id != NULL && *pci_bus_id ? pci_bus_id : "0", nvml_error (&nvml, r), r);
  else
    {
      r = nvml.GetClockInfo (device, NVML_CLOCK_SM, &mhz);
      if (r == NVML_SUCCESS)
        clocks->sm_mhz = mhz;
      else
        clocks->note = g_strdup_printf ("nvmlDeviceGetClockInfo failed: %s (%d)", nvml_error (&nvml, r), r);
      r = nvml.GetMaxClockInfo (device, NVML_CLOCK_SM, &mhz);
      if (r == NVML_SUCCESS)
        clocks->sm_max_mhz = mhz;
      else if (clocks->note == NULL)
        clocks->note = g_strdup_printf ("nvmlDeviceGetMaxClockInfo failed: %s (%d)", nvml_error (&nvml, r), r);
    }
  nvml.Shutdown ();
}
