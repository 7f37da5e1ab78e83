/* prism-cuda-runtime.h — the CUDA driver and NVRTC, loaded at run time
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The few driver API types we use, ABI-compatible with <cuda.h>, so that
 * nothing here needs the CUDA headers or links against the driver. */
typedef int PrismCUresult;
typedef int PrismCUdevice;
typedef struct CUctx_st *PrismCUcontext;
typedef struct CUmod_st *PrismCUmodule;
typedef struct CUfunc_st *PrismCUfunction;
typedef struct CUstream_st *PrismCUstream;
typedef struct CUevent_st *PrismCUevent;
typedef unsigned long long PrismCUdeviceptr;
typedef struct _nvrtcProgram *PrismNvrtcProgram;
typedef struct CUgraph_st *PrismCUgraph;
typedef struct CUgraphExec_st *PrismCUgraphExec;

/* CUlaunchAttribute and CUlaunchConfig of <cuda.h> (cuLaunchKernelEx). */
typedef struct
{
  int id;
  char pad[4];
  union
  {
    char pad[64];
    int programmatic_stream_serialization_allowed;
  } value;
} PrismCUlaunchAttribute;

typedef struct
{
  unsigned int grid_x, grid_y, grid_z;
  unsigned int block_x, block_y, block_z;
  unsigned int smem_bytes;
  PrismCUstream stream;
  PrismCUlaunchAttribute *attrs;
  unsigned int n_attrs;
} PrismCUlaunchConfig;

#define PRISM_CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION 6
#define PRISM_CU_STREAM_CAPTURE_MODE_THREAD_LOCAL 1

/* Attribute numbers of <cuda.h>. */
enum
{
  PRISM_CU_ATTR_MAX_THREADS_PER_BLOCK = 1,
  PRISM_CU_ATTR_CLOCK_RATE = 13,
  PRISM_CU_ATTR_MULTIPROCESSOR_COUNT = 16,
  PRISM_CU_ATTR_MEMORY_CLOCK_RATE = 36,
  PRISM_CU_ATTR_GLOBAL_MEMORY_BUS_WIDTH = 37,
  PRISM_CU_ATTR_L2_CACHE_SIZE = 38,
  PRISM_CU_ATTR_MAX_THREADS_PER_MULTIPROCESSOR = 39,
  PRISM_CU_ATTR_COMPUTE_CAPABILITY_MAJOR = 75,
  PRISM_CU_ATTR_COMPUTE_CAPABILITY_MINOR = 76,
  PRISM_CU_ATTR_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR = 81,
  PRISM_CU_ATTR_MAX_REGISTERS_PER_MULTIPROCESSOR = 82,
  PRISM_CU_ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
  PRISM_CU_ATTR_MAX_BLOCKS_PER_MULTIPROCESSOR = 106,
  PRISM_CU_FUNC_ATTR_LOCAL_SIZE_BYTES = 3,
  PRISM_CU_FUNC_ATTR_NUM_REGS = 4,
  PRISM_CU_FUNC_ATTR_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
};

/**
 * PrismCudaDriver:
 *
 * The driver functions, resolved with dlsym (the versioned names of
 * <cuda.h>, e.g. cuMemAlloc_v2).  Valid while the runtime is open.
 */
typedef struct
{
  PrismCUresult (*Init) (unsigned int flags);
  PrismCUresult (*DriverGetVersion) (int *version);
  PrismCUresult (*GetErrorName) (PrismCUresult err, const char **str);
  PrismCUresult (*GetErrorString) (PrismCUresult err, const char **str);
  PrismCUresult (*DeviceGetCount) (int *count);
  PrismCUresult (*DeviceGet) (PrismCUdevice *dev, int ordinal);
  PrismCUresult (*DeviceGetName) (char *name, int len, PrismCUdevice dev);
  PrismCUresult (*DeviceGetAttribute) (int *value, int attrib, PrismCUdevice dev);
  PrismCUresult (*DeviceTotalMem) (size_t *bytes, PrismCUdevice dev);
  PrismCUresult (*DeviceGetPCIBusId) (char *id, int len, PrismCUdevice dev);
  PrismCUresult (*DevicePrimaryCtxRetain) (PrismCUcontext *ctx, PrismCUdevice dev);
  PrismCUresult (*DevicePrimaryCtxRelease) (PrismCUdevice dev);
  PrismCUresult (*CtxSetCurrent) (PrismCUcontext ctx);
  PrismCUresult (*CtxSynchronize) (void);
  PrismCUresult (*ModuleLoadData) (PrismCUmodule *module, const void *image);
  PrismCUresult (*ModuleUnload) (PrismCUmodule module);
  PrismCUresult (*ModuleGetFunction) (PrismCUfunction *fn, PrismCUmodule module, const char *name);
  PrismCUresult (*FuncSetAttribute) (PrismCUfunction fn, int attrib, int value);
  PrismCUresult (*FuncGetAttribute) (int *value, int attrib, PrismCUfunction fn);
  PrismCUresult (*LaunchKernel) (PrismCUfunction fn, unsigned int gx, unsigned int gy, unsigned int gz,
                                 unsigned int bx, unsigned int by, unsigned int bz,
                                 unsigned int smem, PrismCUstream stream, void **params, void **extra);
  PrismCUresult (*MemAlloc) (PrismCUdeviceptr *ptr, size_t bytes);
  PrismCUresult (*MemFree) (PrismCUdeviceptr ptr);
  PrismCUresult (*MemcpyHtoD) (PrismCUdeviceptr dst, const void *src, size_t bytes);
  PrismCUresult (*MemcpyDtoH) (void *dst, PrismCUdeviceptr src, size_t bytes);
  PrismCUresult (*MemsetD8Async) (PrismCUdeviceptr dst, unsigned char value, size_t n, PrismCUstream stream);
  PrismCUresult (*StreamCreate) (PrismCUstream *stream, unsigned int flags);
  PrismCUresult (*StreamDestroy) (PrismCUstream stream);
  PrismCUresult (*StreamSynchronize) (PrismCUstream stream);
  PrismCUresult (*EventCreate) (PrismCUevent *event, unsigned int flags);
  PrismCUresult (*EventDestroy) (PrismCUevent event);
  PrismCUresult (*EventRecord) (PrismCUevent event, PrismCUstream stream);
  PrismCUresult (*EventSynchronize) (PrismCUevent event);
  PrismCUresult (*EventElapsedTime) (float *ms, PrismCUevent start, PrismCUevent end);
  /* Optional (NULL when the driver lacks them): launches that overlap the
   * one before (sm_90) and CUDA graphs, which the bench uses when present. */
  PrismCUresult (*LaunchKernelEx) (const PrismCUlaunchConfig *config, PrismCUfunction fn, void **params,
                                   void **extra);
  PrismCUresult (*StreamBeginCapture) (PrismCUstream stream, int mode);
  PrismCUresult (*StreamEndCapture) (PrismCUstream stream, PrismCUgraph *graph);
  PrismCUresult (*GraphInstantiate) (PrismCUgraphExec *exec, PrismCUgraph graph, unsigned long long flags);
  PrismCUresult (*GraphLaunch) (PrismCUgraphExec exec, PrismCUstream stream);
  PrismCUresult (*GraphExecDestroy) (PrismCUgraphExec exec);
  PrismCUresult (*GraphDestroy) (PrismCUgraph graph);
} PrismCudaDriver;

/* The NVRTC functions used to compile generated kernels to a CUBIN. */
typedef struct
{
  int (*Version) (int *major, int *minor);
  const char *(*GetErrorString) (int result);
  int (*CreateProgram) (PrismNvrtcProgram *prog, const char *src, const char *name, int n_headers,
                        const char * const *headers, const char * const *include_names);
  int (*DestroyProgram) (PrismNvrtcProgram *prog);
  int (*CompileProgram) (PrismNvrtcProgram prog, int n_options, const char * const *options);
  int (*GetProgramLogSize) (PrismNvrtcProgram prog, size_t *size);
  int (*GetProgramLog) (PrismNvrtcProgram prog, char *log);
  int (*GetCUBINSize) (PrismNvrtcProgram prog, size_t *size);
  int (*GetCUBIN) (PrismNvrtcProgram prog, char *cubin);
} PrismNvrtc;

/**
 * PrismGpuInfo:
 *
 * What the device says about itself; kept with every measurement.
 */
typedef struct
{
  char name[256];
  int ordinal;
  int compute_capability;   /* 90 */
  int sm_count;
  int clock_khz;
  int memory_clock_khz;
  int memory_bus_bits;
  int l2_bytes;
  int smem_per_block_optin;
  int smem_per_sm;
  int max_threads_per_block;
  int max_threads_per_sm;
  int max_blocks_per_sm;
  int registers_per_sm;
  gsize total_memory;
  int driver_version;       /* 13000 */
  char pci_bus_id[32];      /* "0000:19:00.0", how NVML finds the same device */
} PrismGpuInfo;

typedef struct _PrismCudaRuntime PrismCudaRuntime;

/**
 * prism_cuda_runtime_new:
 *
 * Returns: (transfer full): a runtime with nothing loaded yet
 */
PrismCudaRuntime *prism_cuda_runtime_new          (void);
void              prism_cuda_runtime_free         (PrismCudaRuntime *self);

/* How many devices the driver sees: %FALSE with PRISM_ERROR_NO_GPU when
 * there is no driver or no device. */
gboolean          prism_cuda_runtime_count_devices (PrismCudaRuntime *self,
                                                    int              *count,
                                                    GError          **error);
/**
 * prism_cuda_runtime_load_driver:
 *
 * dlopens the driver ($PRISM_CUDA_LIBRARY, else libcuda.so.1), resolves the
 * functions, runs cuInit and makes the primary context of device @ordinal
 * current.  Never links against the driver, so a machine without one gets
 * %PRISM_ERROR_NO_GPU with a message saying what is missing.
 */
gboolean          prism_cuda_runtime_load_driver  (PrismCudaRuntime *self,
                                                   int               ordinal,
                                                   GError          **error);

/**
 * prism_cuda_runtime_load_nvrtc:
 *
 * dlopens NVRTC ($PRISM_NVRTC_LIBRARY, else libnvrtc.so.13, then
 * libnvrtc.so.12, each through the dynamic loader and then in the folders of
 * prism_cuda_library_dirs() with the wheel folders nvidia/cuda_nvrtc/lib,
 * nvidia/cu13/lib and nvidia/cu12/lib).  Works without a GPU.  Fails with
 * %PRISM_ERROR_NO_GPU when NVRTC is not there.
 */
gboolean          prism_cuda_runtime_load_nvrtc   (PrismCudaRuntime *self,
                                                   GError          **error);

const PrismCudaDriver *prism_cuda_runtime_get_driver (const PrismCudaRuntime *self);
const PrismNvrtc      *prism_cuda_runtime_get_nvrtc  (const PrismCudaRuntime *self);
/* Valid after prism_cuda_runtime_load_driver(). */
const PrismGpuInfo    *prism_cuda_runtime_get_info   (const PrismCudaRuntime *self);

/**
 * prism_cuda_runtime_check:
 * @what: the call, for the message ("cuMemAlloc")
 *
 * Returns: %TRUE for CUDA_SUCCESS, else %FALSE with @error naming @what and
 *   the driver's error name and text
 */
gboolean          prism_cuda_runtime_check        (const PrismCudaRuntime *self,
                                                   PrismCUresult     result,
                                                   const char       *what,
                                                   GError          **error);

/**
 * prism_cuda_runtime_compile:
 * @source: CUDA source including "prism-runtime.cuh" (the embedded runtime
 *   headers are given to NVRTC in memory)
 * @arch: "sm_90"
 * @log: (out) (optional) (transfer full): NVRTC's log
 *
 * Compiles @source with NVRTC (loaded on demand) to a CUBIN for @arch.
 * The CUDA toolkit headers are looked up by prism_cuda_find_include_dirs().
 *
 * Returns: (transfer full) (nullable): the CUBIN
 */
GBytes           *prism_cuda_runtime_compile      (PrismCudaRuntime *self,
                                                   const char       *source,
                                                   const char       *arch,
                                                   char            **log,
                                                   GError          **error);

/**
 * prism_cuda_find_include_dirs:
 * @looked: (out) (optional) (transfer full): where it looked, for messages
 *
 * The folders holding the CUDA headers that NVRTC reads from disk for our
 * kernels (cuda_fp16.h, cuda_bf16.h, mma.h, crt/mma.h and their .hpp
 * parts; NVRTC has the rest built in).  The first candidate that has them
 * all, else the fewest candidates that together have them, in lookup order:
 * $PRISM_CUDA_INCLUDE (':'-separated), $CUDA_HOME and $CUDA_PATH (include/
 * and targets/x86_64-linux/include/), /usr/local/cuda (the same two), then
 * the Python wheels of prism_cuda_python_site_dirs() (nvidia/cu13/include,
 * nvidia/cuda_runtime/include, nvidia/cu12/include, nvidia/cuda_nvcc/include).
 *
 * Returns: (transfer full) (nullable): a %NULL-terminated list of folders,
 *   or %NULL when some header is nowhere
 */
char            **prism_cuda_find_include_dirs    (char            **looked);

/* The first folder of prism_cuda_find_include_dirs(), or NULL. (transfer full) */
char             *prism_cuda_find_include_dir     (void);

/**
 * prism_cuda_python_site_dirs:
 *
 * The site-packages and dist-packages folders where NVIDIA's CUDA wheels
 * may be installed: $PRISM_PYTHON_SITE (':'-separated, taken as is), then
 * those under /usr/lib/python3*, /usr/local/lib/python3*,
 * /opt/x/.venv/lib/python3* (any x) and $VIRTUAL_ENV/lib/python3*.  The fixed
 * folders are taken under $PRISM_CUDA_SEARCH_ROOT when it is set (tests
 * build a fake tree there).
 *
 * Returns: (transfer full) (element-type filename): existing folders, each once
 */
GPtrArray        *prism_cuda_python_site_dirs     (void);

/**
 * prism_cuda_library_dirs:
 * @wheel_subdirs: %NULL-terminated folders relative to a site-packages
 *   folder ("nvidia/cublas/lib")
 *
 * The folders searched for a CUDA library after the dynamic loader's own
 * path, in order: $CUDA_HOME/lib64, $CUDA_HOME/targets/x86_64-linux/lib,
 * /usr/local/cuda/lib64, /usr/local/cuda/targets/x86_64-linux/lib (under
 * $PRISM_CUDA_SEARCH_ROOT when set), then each of @wheel_subdirs in each
 * folder of prism_cuda_python_site_dirs().
 *
 * Returns: (transfer full) (element-type filename): the existing ones, each once
 */
GPtrArray        *prism_cuda_library_dirs         (const char * const *wheel_subdirs);

/**
 * prism_cuda_open_library:
 * @what: the library for messages ("cuBLASLt")
 * @env: (nullable): a variable that names the one file to load
 *   ("PRISM_CUBLASLT_LIBRARY"); when set, nothing else is tried
 * @sonames: %NULL-terminated, tried in order, each first through the
 *   dynamic loader and then in every folder of prism_cuda_library_dirs()
 * @wheel_subdirs: see prism_cuda_library_dirs()
 * @code: the #PrismErrorCode of a failure
 * @path: (out) (optional) (transfer full): what was loaded
 *
 * Returns: (nullable): the dlopen() handle, or %NULL with @error naming the
 *   library and where it looked
 */
void             *prism_cuda_open_library         (const char         *what,
                                                   const char         *env,
                                                   const char * const *sonames,
                                                   const char * const *wheel_subdirs,
                                                   int                 code,
                                                   char              **path,
                                                   GError            **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrismCudaRuntime, prism_cuda_runtime_free)

G_END_DECLS
