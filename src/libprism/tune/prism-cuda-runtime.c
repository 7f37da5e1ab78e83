/* prism-cuda-runtime.c — the CUDA driver and NVRTC, loaded at run time
 *
 * Nothing in Prism links against libcuda: a binary linked to the driver
 * does not even start on a machine without one.  The driver and NVRTC are
 * dlopened when a GPU is wanted, and their absence is an ordinary
 * PRISM_ERROR_NO_GPU that callers report and work around (predicted times
 * instead of measured ones).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <dlfcn.h>
#include <string.h>

#include "prism-cuda-runtime.h"
#include "prism-error.h"
#include "prism-kernel-headers.h"

#define NVRTC_SUCCESS 0

struct _PrismCudaRuntime
{
  void *driver_handle;
  void *nvrtc_handle;
  char *driver_path;
  char *nvrtc_path;
  PrismCudaDriver cu;
  PrismNvrtc nvrtc;
  PrismGpuInfo info;
  PrismCUdevice device;
  PrismCUcontext context;
};

typedef struct
{
  gsize offset;
  const char *names[3];   /* tried in order: newest versioned name first */
} Symbol;

#define DRV(field, ...) { G_STRUCT_OFFSET (PrismCudaDriver, field), { __VA_ARGS__ } }
#define RTC(field, ...) { G_STRUCT_OFFSET (PrismNvrtc, field), { __VA_ARGS__ } }

static const Symbol driver_symbols[] = {
  DRV (Init, "cuInit"),
  DRV (DriverGetVersion, "cuDriverGetVersion"),
  DRV (GetErrorName, "cuGetErrorName"),
  DRV (GetErrorString, "cuGetErrorString"),
  DRV (DeviceGetCount, "cuDeviceGetCount"),
  DRV (DeviceGet, "cuDeviceGet"),
  DRV (DeviceGetName, "cuDeviceGetName"),
  DRV (DeviceGetAttribute, "cuDeviceGetAttribute"),
  DRV (DeviceTotalMem, "cuDeviceTotalMem_v2"),
  DRV (DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"),
  DRV (DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"),
  DRV (CtxSetCurrent, "cuCtxSetCurrent"),
  DRV (CtxSynchronize, "cuCtxSynchronize"),
  DRV (ModuleLoadData, "cuModuleLoadData"),
  DRV (ModuleUnload, "cuModuleUnload"),
  DRV (ModuleGetFunction, "cuModuleGetFunction"),
  DRV (FuncSetAttribute, "cuFuncSetAttribute"),
  DRV (LaunchKernel, "cuLaunchKernel"),
  DRV (MemAlloc, "cuMemAlloc_v2"),
  DRV (MemFree, "cuMemFree_v2"),
  DRV (MemcpyHtoD, "cuMemcpyHtoD_v2"),
  DRV (MemcpyDtoH, "cuMemcpyDtoH_v2"),
  DRV (MemsetD8Async, "cuMemsetD8Async"),
  DRV (StreamCreate, "cuStreamCreate"),
  DRV (StreamDestroy, "cuStreamDestroy_v2"),
  DRV (StreamSynchronize, "cuStreamSynchronize"),
  DRV (EventCreate, "cuEventCreate"),
  DRV (EventDestroy, "cuEventDestroy_v2"),
  DRV (EventRecord, "cuEventRecord"),
  DRV (EventSynchronize, "cuEventSynchronize"),
  DRV (EventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime"),
};

static const Symbol nvrtc_symbols[] = {
  RTC (Version, "nvrtcVersion"),
  RTC (GetErrorString, "nvrtcGetErrorString"),
  RTC (CreateProgram, "nvrtcCreateProgram"),
  RTC (DestroyProgram, "nvrtcDestroyProgram"),
  RTC (CompileProgram, "nvrtcCompileProgram"),
  RTC (GetProgramLogSize, "nvrtcGetProgramLogSize"),
  RTC (GetProgramLog, "nvrtcGetProgramLog"),
  RTC (GetCUBINSize, "nvrtcGetCUBINSize"),
  RTC (GetCUBIN, "nvrtcGetCUBIN"),
};

PrismCudaRuntime *
prism_cuda_runtime_new (void)
{
  return g_new0 (PrismCudaRuntime, 1);
}

void
prism_cuda_runtime_free (PrismCudaRuntime *self)
{
  if (self == NULL)
    return;
  if (self->context != NULL && self->cu.DevicePrimaryCtxRelease != NULL)
    self->cu.DevicePrimaryCtxRelease (self->device);
  /* The driver and NVRTC stay mapped: unloading a library under threads it
   * started is unsafe, and both keep process-wide state of their own. */
  g_free (self->driver_path);
  g_free (self->nvrtc_path);
  g_free (self);
}

/* Fills @table from @handle; names the first missing function. */
static gboolean
resolve (void *handle, const Symbol *symbols, guint n, gpointer table, const char **missing)
{
  for (guint i = 0; i < n; i++)
    {
      void *p = NULL;

      for (guint k = 0; k < G_N_ELEMENTS (symbols[i].names) && symbols[i].names[k] && !p; k++)
        p = dlsym (handle, symbols[i].names[k]);
      if (p == NULL)
        {
          *missing = symbols[i].names[0];
          return FALSE;
        }
      memcpy ((char *) table + symbols[i].offset, &p, sizeof p);
    }
  return TRUE;
}

/* dlopens the first of @candidates that loads; collects the failures. */
static void *
open_first (GPtrArray *candidates, char **path, GString *failures)
{
  for (guint i = 0; i < candidates->len; i++)
    {
      const char *c = g_ptr_array_index (candidates, i);
      void *h = dlopen (c, RTLD_NOW | RTLD_LOCAL);

      if (h != NULL)
        {
          *path = g_strdup (c);
          return h;
        }
      g_string_append_printf (failures, "%s%s", failures->len ? "; " : "", dlerror ());
    }
  return NULL;
}

gboolean
prism_cuda_runtime_check (const PrismCudaRuntime *self, PrismCUresult result, const char *what,
                          GError **error)
{
  const char *name = NULL, *text = NULL;

  if (result == 0)
    return TRUE;
  if (self->cu.GetErrorName != NULL)
    self->cu.GetErrorName (result, &name);
  if (self->cu.GetErrorString != NULL)
    self->cu.GetErrorString (result, &text);
  g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED, "%s failed: %s (%d): %s", what,
               name ? name : "CUDA error", result, text ? text : "no description");
  return FALSE;
}

gboolean
prism_cuda_runtime_load_driver (PrismCudaRuntime *self, int ordinal, GError **error)
{
  g_autoptr(GPtrArray) candidates = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GString) failures = g_string_new (NULL);
  const char *env = g_getenv ("PRISM_CUDA_LIBRARY");
  const char *missing = NULL;
  PrismCUresult r;
  int count = 0, v = 0;

  if (self->context != NULL)
    return TRUE;
  if (self->driver_handle == NULL)
    {
      g_ptr_array_add (candidates, g_strdup (env != NULL && *env ? env : "libcuda.so.1"));
      self->driver_handle = open_first (candidates, &self->driver_path, failures);
      if (self->driver_handle == NULL)
        {
          g_set_error (error, PRISM_ERROR, PRISM_ERROR_NO_GPU,
                       "no GPU: the CUDA driver library %s could not be loaded (%s)",
                       (const char *) g_ptr_array_index (candidates, 0), failures->str);
          return FALSE;
        }
      if (!resolve (self->driver_handle, driver_symbols, G_N_ELEMENTS (driver_symbols), &self->cu, &missing))
        {
          g_set_error (error, PRISM_ERROR, PRISM_ERROR_NO_GPU,
                       "no GPU: the CUDA driver library %s has no function %s (too old?)",
                       self->driver_path, missing);
          memset (&self->cu, 0, sizeof self->cu);
          return FALSE;
        }
    }

  r = self->cu.Init (0);
  if (r != 0)
    {
      g_autoptr(GError) local = NULL;
      prism_cuda_runtime_check (self, r, "cuInit", &local);
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_NO_GPU, "no GPU: %s", local->message);
      return FALSE;
    }
  if (self->cu.DeviceGetCount (&count) != 0 || count == 0)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_NO_GPU, "no GPU: the CUDA driver sees no device");
      return FALSE;
    }
  if (ordinal < 0 || ordinal >= count)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_NO_GPU, "no GPU: there is no device %d (%d found)",
                   ordinal, count);
      return FALSE;
    }
  if (!prism_cuda_runtime_check (self, self->cu.DeviceGet (&self->device, ordinal), "cuDeviceGet", error) ||
      !prism_cuda_runtime_check (self, self->cu.DevicePrimaryCtxRetain (&self->context, self->device),
                                 "cuDevicePrimaryCtxRetain", error))
    return FALSE;
  if (!prism_cuda_runtime_check (self, self->cu.CtxSetCurrent (self->context), "cuCtxSetCurrent", error))
    return FALSE;

  memset (&self->info, 0, sizeof self->info);
  self->info.ordinal = ordinal;
  self->cu.DeviceGetName (self->info.name, sizeof self->info.name - 1, self->device);
#define ATTR(field, attr) \
  if (self->cu.DeviceGetAttribute (&v, attr, self->device) == 0) self->info.field = v
  ATTR (sm_count, PRISM_CU_ATTR_MULTIPROCESSOR_COUNT);
  ATTR (clock_khz, PRISM_CU_ATTR_CLOCK_RATE);
  ATTR (memory_clock_khz, PRISM_CU_ATTR_MEMORY_CLOCK_RATE);
  ATTR (memory_bus_bits, PRISM_CU_ATTR_GLOBAL_MEMORY_BUS_WIDTH);
  ATTR (l2_bytes, PRISM_CU_ATTR_L2_CACHE_SIZE);
  ATTR (smem_per_block_optin, PRISM_CU_ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
#undef ATTR
  {
    int major = 0, minor = 0;
    self->cu.DeviceGetAttribute (&major, PRISM_CU_ATTR_COMPUTE_CAPABILITY_MAJOR, self->device);
    self->cu.DeviceGetAttribute (&minor, PRISM_CU_ATTR_COMPUTE_CAPABILITY_MINOR, self->device);
    self->info.compute_capability = major * 10 + minor;
  }
  self->cu.DeviceTotalMem (&self->info.total_memory, self->device);
  self->cu.DriverGetVersion (&self->info.driver_version);
  return TRUE;
}

gboolean
prism_cuda_runtime_load_nvrtc (PrismCudaRuntime *self, GError **error)
{
  g_autoptr(GPtrArray) candidates = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GString) failures = g_string_new (NULL);
  const char *env = g_getenv ("PRISM_NVRTC_LIBRARY");
  const char *missing = NULL;

  if (self->nvrtc_handle != NULL)
    return TRUE;
  if (env != NULL && *env)
    g_ptr_array_add (candidates, g_strdup (env));
  else
    {
      const char *home = g_getenv ("CUDA_HOME");
      const char *sonames[] = { "libnvrtc.so.13", "libnvrtc.so.12" };

      for (guint i = 0; i < G_N_ELEMENTS (sonames); i++)
        {
          g_ptr_array_add (candidates, g_strdup (sonames[i]));
          if (home != NULL && *home)
            g_ptr_array_add (candidates, g_build_filename (home, "lib64", sonames[i], NULL));
          g_ptr_array_add (candidates, g_build_filename ("/usr/local/cuda/lib64", sonames[i], NULL));
        }
    }
  self->nvrtc_handle = open_first (candidates, &self->nvrtc_path, failures);
  if (self->nvrtc_handle == NULL)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_NO_GPU,
                   "NVRTC could not be loaded, so kernels cannot be compiled for the GPU (%s)",
                   failures->str);
      return FALSE;
    }
  if (!resolve (self->nvrtc_handle, nvrtc_symbols, G_N_ELEMENTS (nvrtc_symbols), &self->nvrtc, &missing))
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_NO_GPU, "NVRTC library %s has no function %s",
                   self->nvrtc_path, missing);
      dlclose (self->nvrtc_handle);
      self->nvrtc_handle = NULL;
      memset (&self->nvrtc, 0, sizeof self->nvrtc);
      return FALSE;
    }
  return TRUE;
}

const PrismCudaDriver *
prism_cuda_runtime_get_driver (const PrismCudaRuntime *self)
{
  return self->context != NULL ? &self->cu : NULL;
}

const PrismNvrtc *
prism_cuda_runtime_get_nvrtc (const PrismCudaRuntime *self)
{
  return self->nvrtc_handle != NULL ? &self->nvrtc : NULL;
}

const PrismGpuInfo *
prism_cuda_runtime_get_info (const PrismCudaRuntime *self)
{
  return self->context != NULL ? &self->info : NULL;
}

char *
prism_cuda_find_include_dir (void)
{
  const char *vars[] = { "CUDA_HOME", "CUDA_PATH" };

  for (guint i = 0; i < G_N_ELEMENTS (vars); i++)
    {
      const char *home = g_getenv (vars[i]);
      g_autofree char *dir = home != NULL && *home ? g_build_filename (home, "include", NULL) : NULL;
      g_autofree char *probe = dir != NULL ? g_build_filename (dir, "cuda_fp16.h", NULL) : NULL;

      if (probe != NULL && g_file_test (probe, G_FILE_TEST_EXISTS))
        return g_steal_pointer (&dir);
    }
  if (g_file_test ("/usr/local/cuda/include/cuda_fp16.h", G_FILE_TEST_EXISTS))
    return g_strdup ("/usr/local/cuda/include");
  return NULL;
}

GBytes *
prism_cuda_runtime_compile (PrismCudaRuntime *self, const char *source, const char *arch, char **log,
                            GError **error)
{
  const char * const *names = prism_kernel_headers_list ();
  g_autoptr(GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) options = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *include = prism_cuda_find_include_dir ();
  g_autofree char *program_log = NULL;
  PrismNvrtcProgram prog = NULL;
  GBytes *cubin = NULL;
  size_t size = 0;
  int r;

  if (!prism_cuda_runtime_load_nvrtc (self, error))
    return NULL;
  if (include == NULL)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_NO_GPU,
                   "the CUDA toolkit headers (cuda_fp16.h) were not found in $CUDA_HOME/include "
                   "or /usr/local/cuda/include; NVRTC needs them");
      return NULL;
    }
  for (guint i = 0; names[i] != NULL; i++)
    {
      g_autoptr(GBytes) b = prism_kernel_headers_get (names[i]);
      gsize len;
      const char *data = g_bytes_get_data (b, &len);
      g_ptr_array_add (texts, g_strndup (data, len));
    }

  r = self->nvrtc.CreateProgram (&prog, source, "prism.cu", (int) texts->len,
                                 (const char * const *) texts->pdata, names);
  if (r != NVRTC_SUCCESS)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED, "nvrtcCreateProgram failed: %s",
                   self->nvrtc.GetErrorString (r));
      return NULL;
    }
  g_ptr_array_add (options, g_strdup_printf ("--gpu-architecture=%s", arch));
  g_ptr_array_add (options, g_strdup ("-std=c++17"));
  g_ptr_array_add (options, g_strdup_printf ("-I%s", include));
  r = self->nvrtc.CompileProgram (prog, (int) options->len, (const char * const *) options->pdata);
  if (self->nvrtc.GetProgramLogSize (prog, &size) == NVRTC_SUCCESS && size > 1)
    {
      program_log = g_malloc0 (size + 1);
      self->nvrtc.GetProgramLog (prog, program_log);
    }
  if (r != NVRTC_SUCCESS)
    g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED, "NVRTC could not compile the kernels for %s: %s\n%s",
                 arch, self->nvrtc.GetErrorString (r), program_log ? program_log : "");
  else if (self->nvrtc.GetCUBINSize (prog, &size) != NVRTC_SUCCESS || size == 0)
    g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED,
                 "NVRTC produced no CUBIN for %s (is it a real architecture such as sm_90?)", arch);
  else
    {
      char *data = g_malloc (size);
      self->nvrtc.GetCUBIN (prog, data);
      cubin = g_bytes_new_take (data, size);
    }
  self->nvrtc.DestroyProgram (&prog);
  if (log != NULL)
    *log = g_steal_pointer (&program_log);
  return cubin;
}
