/* prism-host.cuh — launching the generated kernels, on the GPU or the CPU
 *
 * The generated launcher uses PRISM_LAUNCH / PRISM_SET_MAX_SMEM so that the
 * same text launches with <<<…>>> under nvcc and runs the blocks one after
 * the other under a C++ compiler.  NVRTC never sees this part.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "prism-platform.cuh"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace prism {

/* The epoch of the next launch: one counter for every program of the
 * process, so that consecutive launches on one workspace differ in the
 * epoch tag their arrival counters test (prism-split.cuh). */
inline unsigned int
next_launch_epoch ()
{
  static std::atomic<unsigned int> epoch (0);
  return ++epoch;
}

/* A pointer argument the generated code may read 16 bytes at a time from. */
inline bool
aligned16 (const void *p)
{
  return p != nullptr && ((uintptr_t) p & 15) == 0;
}

}

#if PRISM_CUDA

#include <cuda_runtime.h>

#define PRISM_LAUNCH(kernel, grid, block, smem, stream, ...) \
  kernel<<<(grid), (block), (smem), (stream)>>> (__VA_ARGS__)
/* A launch that may overlap the one before it on @stream (programmatic
 * dependent launch, sm_90): the kernel waits for that grid itself
 * (prism::wait_prior_grids()).  @pdl caches, per kernel, whether its code as
 * loaded does (-1: not asked yet). */
#define PRISM_LAUNCH_AFTER(pdl, kernel, grid, block, smem, stream, ...) \
  prism::launch_after ((pdl), (kernel), (grid), (block), (smem), (stream), __VA_ARGS__)

namespace prism {

/* Whether the code of @kernel loaded for the current device waits for the
 * grids it depends on: compiled from PTX and SASS for sm_90 or newer (code
 * for sm_80 JIT-compiled on an H100 has no griddepcontrol.wait). */
inline bool
waits_for_prior_grids (const void *kernel)
{
  cudaFuncAttributes a;

  return cudaFuncGetAttributes (&a, kernel) == cudaSuccess && a.ptxVersion >= 90 && a.binaryVersion >= 90;
}

template <typename... P, typename... A>
inline int
launch_after (std::atomic<int> &pdl, void (*kernel) (P...), dim3 grid, dim3 block, size_t smem,
              cudaStream_t stream, A... args)
{
  cudaLaunchConfig_t config = {};
  cudaLaunchAttribute attr[1];

  if (pdl.load (std::memory_order_relaxed) < 0)
    pdl.store (waits_for_prior_grids ((const void *) kernel) ? 1 : 0, std::memory_order_relaxed);
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = smem;
  config.stream = stream;
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  config.attrs = attr;
  config.numAttrs = pdl.load (std::memory_order_relaxed) > 0 ? 1 : 0;
  return (int) cudaLaunchKernelEx (&config, kernel, args...);
}

}
#define PRISM_SET_MAX_SMEM(kernel, bytes) \
  cudaFuncSetAttribute ((kernel), cudaFuncAttributeMaxDynamicSharedMemorySize, (int) (bytes))
#define PRISM_LAST_ERROR() ((int) cudaGetLastError ())
/* The vendor baseline's matmuls run through cuBLASLt in prism-gpu-worker,
 * which reads the manifest; a generated launcher cannot run them. */
#define PRISM_VENDOR_GEMM(batch, m, n, k, T, stream, a, b, c) ((int) cudaErrorNotSupported)

#else /* the CPU build */

struct CUstream_st;
typedef struct CUstream_st *cudaStream_t;

namespace prism { namespace cpu {

/* When ≥ 0, the blocks that launches may still run; the launch that runs
 * out stops there, as a launch that died half-way (tests set it). */
inline long long blocks_left = -1;

/* Runs every block of @grid in order (x fastest) with @smem_bytes of shared
 * memory.  Shared memory starts as all-ones bytes (NaN as f32) in every block,
 * so reading what no op wrote shows up in the comparison. */
template <typename Kernel, typename... Args>
inline void
launch (Kernel kernel, dim3 grid, dim3 block, size_t smem_bytes, Args... args)
{
  size_t bytes = ((smem_bytes + 127) / 128 + 1) * 128;
  unsigned char *mem = (unsigned char *) aligned_alloc (128, bytes);

  if (mem == nullptr)
    {
      fprintf (stderr, "prism: out of memory for %zu bytes of shared memory\n", bytes);
      abort ();
    }
  (void) block;
  gridDim = grid;
  blockDim = dim3 (1, 1, 1);
  threadIdx = dim3 (0, 0, 0);
  smem = mem;
  for (unsigned int z = 0; z < grid.z; z++)
    for (unsigned int y = 0; y < grid.y; y++)
      for (unsigned int x = 0; x < grid.x; x++)
        {
          if (blocks_left == 0)
            goto done;
          if (blocks_left > 0)
            blocks_left--;
          memset (mem, 0xff, bytes);
          blockIdx = dim3 (x, y, z);
          kernel (args...);
        }
done:
  smem = nullptr;
  free (mem);
}

/* The vendor baseline's matmul on the CPU: c[b] = a[b] · b[b], row-major,
 * in f32 (the reference the manifest's description is checked against). */
template <typename T>
inline int
gemm (long long batch, long long m, long long n, long long k, const T *a, const T *b, T *c)
{
  for (long long bi = 0; bi < batch; bi++)
    for (long long i = 0; i < m; i++)
      for (long long j = 0; j < n; j++)
        {
          float s = 0.0f;
          for (long long q = 0; q < k; q++)
            s += a[(bi * m + i) * k + q] * b[(bi * k + q) * n + j];
          c[(bi * m + i) * n + j] = s;
        }
  return 0;
}

} }

#define PRISM_LAUNCH(kernel, grid, block, smem, stream, ...) \
  prism::cpu::launch ((kernel), (grid), (block), (smem), __VA_ARGS__)
#define PRISM_LAUNCH_AFTER(pdl, kernel, grid, block, smem, stream, ...) \
  ((void) (pdl), prism::cpu::launch ((kernel), (grid), (block), (smem), __VA_ARGS__), 0)
#define PRISM_SET_MAX_SMEM(kernel, bytes) 0
#define PRISM_LAST_ERROR() 0
#define PRISM_VENDOR_GEMM(batch, m, n, k, T, stream, a, b, c) \
  prism::cpu::gemm<T> ((batch), (m), (n), (k), (a), (b), (c))

#endif
