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
#include <glib/gi18n-lib.h>
#include <glob.h>
#include <stdlib.h>
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
  DRV (DeviceGetPCIBusId, "cuDeviceGetPCIBusId"),
  DRV (DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"),
  DRV (DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"),
  DRV (CtxSetCurrent, "cuCtxSetCurrent"),
  DRV (CtxSynchronize, "cuCtxSynchronize"),
  DRV (ModuleLoadData, "cuModuleLoadData"),
  DRV (ModuleUnload, "cuModuleUnload"),
  DRV (ModuleGetFunction, "cuModuleGetFunction"),
  DRV (FuncSetAttribute, "cuFuncSetAttribute"),
  DRV (FuncGetAttribute, "cuFuncGetAttribute"),
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

/* Resolved when present; the bench does without them. */
static const Symbol optional_driver_symbols[] = {
  DRV (LaunchKernelEx, "cuLaunchKernelEx"),
  DRV (StreamBeginCapture, "cuStreamBeginCapture_v2", "cuStreamBeginCapture"),
  DRV (StreamEndCapture, "cuStreamEndCapture"),
  DRV (GraphInstantiate, "cuGraphInstantiateWithFlags"),
  DRV (GraphLaunch, "cuGraphLaunch"),
  DRV (GraphExecDestroy, "cuGraphExecDestroy"),
  DRV (GraphDestroy, "cuGraphDestroy"),
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

/* Fills what @handle has of @symbols into @table; the rest stay NULL. */
static void
resolve_optional (void *handle, const Symbol *symbols, guint n, gpointer table)
{
  for (guint i = 0; i < n; i++)
    {
      void *p = NULL;

      for (guint k = 0; k < G_N_ELEMENTS (symbols[i].names) && symbols[i].names[k] && !p; k++)
        p = dlsym (handle, symbols[i].names[k]);
      memcpy ((char *) table + symbols[i].offset, &p, sizeof p);
    }
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

/* dlopen()s the driver (once) and initializes it. */
static gboolean
open_driver (PrismCudaRuntime *self, GError **error)
{
  const char *env = g_getenv ("PRISM_CUDA_LIBRARY");
  const char *missing = NULL;
  PrismCUresult r;

  if (self->driver_handle == NULL)
    {
      const char *name = env != NULL && *env ? env : "libcuda.so.1";

      /* The driver comes with the kernel module, so only the dynamic
       * loader's path is searched: a copy elsewhere would not match it. */
      self->driver_handle = dlopen (name, RTLD_NOW | RTLD_LOCAL);
      if (self->driver_handle == NULL)
        {
          g_set_error (error, PRISM_ERROR, PRISM_ERROR_NO_GPU,
                       _("no GPU: the CUDA driver library %s could not be loaded (%s)"), name, dlerror ());
          return FALSE;
        }
      self->driver_path = g_strdup (name);
      if (!resolve (self->driver_handle, driver_symbols, G_N_ELEMENTS (driver_symbols), &self->cu, &missing))
        {
          g_set_error (error, PRISM_ERROR, PRISM_ERROR_NO_GPU,
                       _("no GPU: the CUDA driver library %s has no function %s (too old?)"),
                       self->driver_path, missing);
          memset (&self->cu, 0, sizeof self->cu);
          return FALSE;
        }
      resolve_optional (self->driver_handle, optional_driver_symbols, G_N_ELEMENTS (optional_driver_symbols),
                        &self->cu);
    }

  r = self->cu.Init (0);
  if (r != 0)
    {
      g_autoptr(GError) local = NULL;
      prism_cuda_runtime_check (self, r, "cuInit", &local);
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_NO_GPU, _("no GPU: %s"), local->message);
      return FALSE;
    }
  return TRUE;
}

gboolean
prism_cuda_runtime_count_devices (PrismCudaRuntime *self, int *count, GError **error)
{
  *count = 0;
  if (!open_driver (self, error))
    return FALSE;
  if (self->cu.DeviceGetCount (count) != 0 || *count == 0)
    {
      *count = 0;
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_NO_GPU, _("no GPU: the CUDA driver sees no device"));
      return FALSE;
    }
  return TRUE;
}

gboolean
prism_cuda_runtime_load_driver (PrismCudaRuntime *self, int ordinal, GError **error)
{
  int count = 0, v = 0;

  if (self->context != NULL)
    return TRUE;
  if (!open_driver (self, error))
    return FALSE;
  if (self->cu.DeviceGetCount (&count) != 0 || count == 0)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_NO_GPU, _("no GPU: the CUDA driver sees no device"));
      return FALSE;
    }
  if (ordinal < 0 || ordinal >= count)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_NO_GPU, _("no GPU: there is no device %d (%d found)"),
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
  ATTR (smem_per_sm, PRISM_CU_ATTR_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
  ATTR (max_threads_per_block, PRISM_CU_ATTR_MAX_THREADS_PER_BLOCK);
  ATTR (max_threads_per_sm, PRISM_CU_ATTR_MAX_THREADS_PER_MULTIPROCESSOR);
  ATTR (max_blocks_per_sm, PRISM_CU_ATTR_MAX_BLOCKS_PER_MULTIPROCESSOR);
  ATTR (registers_per_sm, PRISM_CU_ATTR_MAX_REGISTERS_PER_MULTIPROCESSOR);
#undef ATTR
  {
    int major = 0, minor = 0;
    self->cu.DeviceGetAttribute (&major, PRISM_CU_ATTR_COMPUTE_CAPABILITY_MAJOR, self->device);
    self->cu.DeviceGetAttribute (&minor, PRISM_CU_ATTR_COMPUTE_CAPABILITY_MINOR, self->device);
    self->info.compute_capability = major * 10 + minor;
  }
  self->cu.DeviceTotalMem (&self->info.total_memory, self->device);
  self->cu.DriverGetVersion (&self->info.driver_version);
  if (self->cu.DeviceGetPCIBusId (self->info.pci_bus_id, sizeof self->info.pci_bus_id - 1, self->device) != 0)
    self->info.pci_bus_id[0] = '\0';
  return TRUE;
}

gboolean
prism_cuda_runtime_load_nvrtc (PrismCudaRuntime *self, GError **error)
{
  static const char * const sonames[] = { "libnvrtc.so.13", "libnvrtc.so.12", NULL };
  static const char * const wheels[] = { "nvidia/cuda_nvrtc/lib", "nvidia/cu13/lib", "nvidia/cu12/lib", NULL };
  g_autoptr(GError) local = NULL;
  const char *missing = NULL;

  if (self->nvrtc_handle != NULL)
    return TRUE;
  self->nvrtc_handle = prism_cuda_open_library ("NVRTC", "PRISM_NVRTC_LIBRARY", sonames, wheels, PRISM_ERROR_NO_GPU,
                                                &self->nvrtc_path, &local);
  if (self->nvrtc_handle == NULL)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_NO_GPU,
                   "NVRTC could not be loaded, so kernels cannot be compiled for the GPU: %s", local->message);
      return FALSE;
    }
  if (!resolve (self->nvrtc_handle, nvrtc_symbols, G_N_ELEMENTS (nvrtc_symbols), &self->nvrtc, &missing))
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_NO_GPU, "NVRTC library %s has no function %s",
                   self->nvrtc_path, missing);
      dlclose (self->nvrtc_handle);
      self->nvrtc_handle = NULL;
      g_clear_pointer (&self->nvrtc_path, g_free);
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

/* ------------------------------------------------------------------------ */
/* Where the CUDA libraries and headers are
 *
 * A machine may have the toolkit in /usr/local/cuda, only NVIDIA's Python
 * wheels (PyTorch installs them: site-packages/nvidia/cu13/lib …), or both;
 * the binaries run from a bundle folder, so nothing here depends on where
 * Prism was built. */

/* @path under $PRISM_CUDA_SEARCH_ROOT when that is set. */
static char *
rooted (const char *path)
{
  const char *root = g_getenv ("PRISM_CUDA_SEARCH_ROOT");

  return root != NULL && *root ? g_build_filename (root, path, NULL) : g_strdup (path);
}

/* Appends @dir (taken) to @dirs if it is a folder not there yet; the real
 * paths are compared, as /usr/local/cuda/lib64 is often a link. */
static void
add_dir (GPtrArray *dirs, GPtrArray *real, char *dir)
{
  char *canon;

  if (dir == NULL || !g_file_test (dir, G_FILE_TEST_IS_DIR) || (canon = realpath (dir, NULL)) == NULL)
    {
      g_free (dir);
      return;
    }
  for (guint i = 0; i < real->len; i++)
    if (g_str_equal (g_ptr_array_index (real, i), canon))
      {
        free (canon);
        g_free (dir);
        return;
      }
  g_ptr_array_add (real, g_strdup (canon));
  free (canon);
  g_ptr_array_add (dirs, dir);
}

static void
add_env_list (GPtrArray *dirs, GPtrArray *real, const char *var)
{
  const char *value = g_getenv (var);
  g_auto(GStrv) parts = value != NULL && *value ? g_strsplit (value, G_SEARCHPATH_SEPARATOR_S, -1) : NULL;

  for (guint i = 0; parts != NULL && parts[i] != NULL; i++)
    if (*parts[i])
      add_dir (dirs, real, g_strdup (parts[i]));
}

static void
add_glob (GPtrArray *dirs, GPtrArray *real, const char *pattern)
{
  glob_t g;

  if (glob (pattern, 0, NULL, &g) == 0)
    for (gsize i = 0; i < g.gl_pathc; i++)
      add_dir (dirs, real, g_strdup (g.gl_pathv[i]));
  globfree (&g);
}

GPtrArray *
prism_cuda_python_site_dirs (void)
{
  static const char * const fixed[] = { "/usr/lib/python3*", "/usr/local/lib/python3*", "/opt/*/.venv/lib/python3*" };
  static const char * const kinds[] = { "site-packages", "dist-packages" };
  GPtrArray *dirs = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) real = g_ptr_array_new_with_free_func (g_free);
  const char *venv = g_getenv ("VIRTUAL_ENV");

  add_env_list (dirs, real, "PRISM_PYTHON_SITE");
  for (guint i = 0; i < G_N_ELEMENTS (fixed) + 1; i++)
    {
      g_autofree char *base = i < G_N_ELEMENTS (fixed) ? rooted (fixed[i])
                            : venv != NULL && *venv ? g_build_filename (venv, "lib", "python3*", NULL) : NULL;

      for (guint k = 0; base != NULL && k < G_N_ELEMENTS (kinds); k++)
        {
          g_autofree char *pattern = g_build_filename (base, kinds[k], NULL);
          add_glob (dirs, real, pattern);
        }
    }
  return dirs;
}

/* $CUDA_HOME, $CUDA_PATH and /usr/local/cuda (rooted), each + @sub1 and @sub2. */
static void
add_toolkit_dirs (GPtrArray *dirs, GPtrArray *real, const char *sub1, const char *sub2)
{
  const char *vars[] = { "CUDA_HOME", "CUDA_PATH" };
  g_autofree char *local = rooted ("/usr/local/cuda");

  for (guint i = 0; i < G_N_ELEMENTS (vars) + 1; i++)
    {
      const char *home = i < G_N_ELEMENTS (vars) ? g_getenv (vars[i]) : local;

      if (home == NULL || !*home)
        continue;
      add_dir (dirs, real, g_build_filename (home, sub1, NULL));
      add_dir (dirs, real, g_build_filename (home, sub2, NULL));
    }
}

/* Every folder of @sites with each of @subdirs appended. */
static void
add_wheel_dirs (GPtrArray *dirs, GPtrArray *real, GPtrArray *sites, const char * const *subdirs)
{
  for (guint i = 0; i < sites->len; i++)
    for (guint k = 0; subdirs != NULL && subdirs[k] != NULL; k++)
      add_dir (dirs, real, g_build_filename (g_ptr_array_index (sites, i), subdirs[k], NULL));
}

GPtrArray *
prism_cuda_library_dirs (const char * const *wheel_subdirs)
{
  GPtrArray *dirs = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) real = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) sites = prism_cuda_python_site_dirs ();

  add_toolkit_dirs (dirs, real, "lib64", "targets/x86_64-linux/lib");
  add_wheel_dirs (dirs, real, sites, wheel_subdirs);
  return dirs;
}

static char *
join_array (GPtrArray *items, const char *sep)
{
  g_autoptr(GString) s = g_string_new (NULL);

  for (guint i = 0; i < items->len; i++)
    g_string_append_printf (s, "%s%s", i ? sep : "", (const char *) g_ptr_array_index (items, i));
  return g_string_free (g_steal_pointer (&s), FALSE);
}

void *
prism_cuda_open_library (const char *what, const char *env, const char * const *sonames,
                         const char * const *wheel_subdirs, int code, char **path, GError **error)
{
  const char *chosen = env != NULL ? g_getenv (env) : NULL;
  g_autoptr(GPtrArray) dirs = NULL;
  g_autoptr(GString) failures = g_string_new (NULL);
  g_autofree char *names = NULL;
  g_autofree char *where = NULL;
  void *h;

  if (chosen != NULL && *chosen)
    {
      h = dlopen (chosen, RTLD_NOW | RTLD_LOCAL);
      if (h == NULL)
        {
          g_set_error (error, PRISM_ERROR, code, "the %s library %s (from $%s) could not be loaded: %s", what,
                       chosen, env, dlerror ());
          return NULL;
        }
      if (path != NULL)
        *path = g_strdup (chosen);
      return h;
    }

  dirs = prism_cuda_library_dirs (wheel_subdirs);
  for (guint i = 0; sonames[i] != NULL; i++)
    {
      const char *why;

      h = dlopen (sonames[i], RTLD_NOW | RTLD_LOCAL);
      if (h != NULL)
        {
          if (path != NULL)
            *path = g_strdup (sonames[i]);
          return h;
        }
      /* "not found" is expected; anything else (a broken copy) is news. */
      why = dlerror ();
      if (why != NULL && strstr (why, "No such file") == NULL)
        g_string_append_printf (failures, "; %s", why);
      for (guint k = 0; k < dirs->len; k++)
        {
          g_autofree char *file = g_build_filename (g_ptr_array_index (dirs, k), sonames[i], NULL);

          if (!g_file_test (file, G_FILE_TEST_EXISTS))
            continue;
          h = dlopen (file, RTLD_NOW | RTLD_LOCAL);
          if (h != NULL)
            {
              if (path != NULL)
                *path = g_steal_pointer (&file);
              return h;
            }
          g_string_append_printf (failures, "; %s", dlerror ());
        }
    }

  {
    g_autoptr(GPtrArray) list = g_ptr_array_new ();
    for (guint i = 0; sonames[i] != NULL; i++)
      g_ptr_array_add (list, (gpointer) sonames[i]);
    names = join_array (list, " or ");
  }
  where = dirs->len > 0 ? join_array (dirs, ", ")
                        : g_strdup ("no CUDA toolkit or Python wheel folder (none of $CUDA_HOME/lib64, "
                                    "/usr/local/cuda/lib64, site-packages/nvidia/…/lib exists)");
  g_set_error (error, PRISM_ERROR, code,
               "the %s library (%s) was found neither by the dynamic loader nor in %s%s%s%s",
               what, names, where, failures->str, env != NULL ? "; set $" : "", env != NULL ? env : "");
  return NULL;
}

/* The headers NVRTC reads from disk for our kernels (the rest, such as
 * vector_types.h and <nv/target>, are built into NVRTC). */
static const char * const nvrtc_headers[] = {
  "cuda_fp16.h", "cuda_fp16.hpp", "cuda_bf16.h", "cuda_bf16.hpp", "mma.h", "crt/mma.h", "crt/mma.hpp", NULL,
};

static gboolean
has_header (const char *dir, const char *name)
{
  g_autofree char *probe = g_build_filename (dir, name, NULL);

  return g_file_test (probe, G_FILE_TEST_IS_REGULAR);
}

char **
prism_cuda_find_include_dirs (char **looked)
{
  static const char * const wheels[] = {
    "nvidia/cu13/include", "nvidia/cuda_runtime/include", "nvidia/cu12/include", "nvidia/cuda_nvcc/include", NULL,
  };
  g_autoptr(GPtrArray) dirs = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) real = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) sites = prism_cuda_python_site_dirs ();
  g_autoptr(GStrvBuilder) chosen = g_strv_builder_new ();
  gboolean *used;
  guint n_used = 0;

  add_env_list (dirs, real, "PRISM_CUDA_INCLUDE");
  add_toolkit_dirs (dirs, real, "include", "targets/x86_64-linux/include");
  add_wheel_dirs (dirs, real, sites, wheels);
  if (looked != NULL)
    *looked = dirs->len > 0 ? join_array (dirs, ", ") : g_strdup ("no folder (none of them exists)");

  /* One folder with everything: the usual toolkit. */
  for (guint i = 0; i < dirs->len; i++)
    {
      gboolean all = TRUE;

      for (guint h = 0; all && nvrtc_headers[h] != NULL; h++)
        all = has_header (g_ptr_array_index (dirs, i), nvrtc_headers[h]);
      if (all)
        {
          g_strv_builder_add (chosen, g_ptr_array_index (dirs, i));
          return g_strv_builder_end (chosen);
        }
    }
  /* Else the wheels' split: fp16/bf16 from one, mma.h from another. */
  used = g_new0 (gboolean, dirs->len + 1);
  for (guint h = 0; nvrtc_headers[h] != NULL; h++)
    {
      guint i;

      for (i = 0; i < dirs->len && !has_header (g_ptr_array_index (dirs, i), nvrtc_headers[h]); i++)
        ;
      if (i == dirs->len)
        {
          g_free (used);
          return NULL;
        }
      n_used += !used[i];
      used[i] = TRUE;
    }
  for (guint i = 0; i < dirs->len; i++)
    if (used[i])
      g_strv_builder_add (chosen, g_ptr_array_index (dirs, i));
  g_free (used);
  return n_used > 0 ? g_strv_builder_end (chosen) : NULL;
}

char *
prism_cuda_find_include_dir (void)
{
  g_auto(GStrv) dirs = prism_cuda_find_include_dirs (NULL);

  return dirs != NULL ? g_strdup (dirs[0]) : NULL;
}

GBytes *
prism_cuda_runtime_compile (PrismCudaRuntime *self, const char *source, const char *arch, char **log,
                            GError **error)
{
  const char * const *names = prism_kernel_headers_list ();
  g_autoptr(GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) options = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *looked = NULL;
  g_auto(GStrv) include = prism_cuda_find_include_dirs (&looked);
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
                   "the CUDA toolkit headers NVRTC needs (cuda_fp16.h, cuda_bf16.h, mma.h, crt/mma.h) "
                   "were not found; looked in %s (set $PRISM_CUDA_INCLUDE or $CUDA_HOME)", looked);
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
  for (guint i = 0; include[i] != NULL; i++)
    g_ptr_array_add (options, g_strdup_printf ("-I%s", include[i]));
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
