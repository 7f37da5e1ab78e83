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

/* Attribute numbers of <cuda.h>. */
enum
{
  PRISM_CU_ATTR_CLOCK_RATE = 13,
  PRISM_CU_ATTR_MULTIPROCESSOR_COUNT = 16,
  PRISM_CU_ATTR_MEMORY_CLOCK_RATE = 36,
  PRISM_CU_ATTR_GLOBAL_MEMORY_BUS_WIDTH = 37,
  PRISM_CU_ATTR_L2_CACHE_SIZE = 38,
  PRISM_CU_ATTR_COMPUTE_CAPABILITY_MAJOR = 75,
  PRISM_CU_ATTR_COMPUTE_CAPABILITY_MINOR = 76,
  PRISM_CU_ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
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
  PrismCUresult (*DevicePrimaryCtxRetain) (PrismCUcontext *ctx, PrismCUdevice dev);
  PrismCUresult (*DevicePrimaryCtxRelease) (PrismCUdevice dev);
  PrismCUresult (*CtxSetCurrent) (PrismCUcontext ctx);
  PrismCUresult (*CtxSynchronize) (void);
  PrismCUresult (*ModuleLoadData) (PrismCUmodule *module, const void *image);
  PrismCUresult (*ModuleUnload) (PrismCUmodule module);
  PrismCUresult (*ModuleGetFunction) (PrismCUfunction *fn, PrismCUmodule module, const char *name);
  PrismCUresult (*FuncSetAttribute) (PrismCUfunction fn, int attrib, int value);
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
  gsize total_memory;
  int driver_version;       /* 13000 */
} PrismGpuInfo;

typedef struct _PrismCudaRuntime PrismCudaRuntime;

/**
 * prism_cuda_runtime_new:
 *
 * Returns: (transfer full): a runtime with nothing loaded yet
 */
PrismCudaRuntime *prism_cuda_runtime_new          (void);
void              prism_cuda_runtime_free         (PrismCudaRuntime *self);

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
 * dlopens NVRTC ($PRISM_NVRTC_LIBRARY, else libnvrtc.so.13, libnvrtc.so.12,
 * also under $CUDA_HOME/lib64 and /usr/local/cuda/lib64).  Works without a
 * GPU.  Fails with %PRISM_ERROR_NO_GPU when NVRTC is not there.
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
 * The CUDA toolkit headers are looked up in $CUDA_HOME/include, then
 * /usr/local/cuda/include.
 *
 * Returns: (transfer full) (nullable): the CUBIN
 */
GBytes           *prism_cuda_runtime_compile      (PrismCudaRuntime *self,
                                                   const char       *source,
                                                   const char       *arch,
                                                   char            **log,
                                                   GError          **error);

/* The CUDA toolkit include folder NVRTC needs, or NULL. (transfer full) */
char             *prism_cuda_find_include_dir     (void);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrismCudaRuntime, prism_cuda_runtime_free)

G_END_DECLS
