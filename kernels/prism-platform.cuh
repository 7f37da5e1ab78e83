/* prism-platform.cuh — what differs between the CUDA build and the CPU build
 *
 * Generated kernels call only the block-collective primitives of these
 * headers.  Compiled by nvcc or NVRTC they run on the GPU.  Compiled as plain
 * C++ (g++ -x c++ -std=c++17) the very same text runs on the CPU: the blocks
 * of a launch run one after the other, each by a single "thread" (thread 0 of
 * a one-thread block, a warp of one lane), __syncthreads() does nothing, and
 * every storage type (f16, bf16, f32) is a float.  That is what lets the
 * schedule and the index math of every generated kernel be checked against
 * the interpreter on a machine without a GPU.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define PRISM_CUDA 1
#else
#define PRISM_CUDA 0
#endif

#if PRISM_CUDA

#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <mma.h>

#define PRISM_DEVICE __device__ __forceinline__
#define PRISM_UNROLL _Pragma ("unroll")
#define PRISM_UNROLL_4 _Pragma ("unroll 4")
/* The kernel's dynamic shared memory, 128-byte aligned (WMMA wants 32). */
#define PRISM_DYNAMIC_SMEM(name) extern __shared__ __align__ (128) unsigned char name[]

#else /* the CPU build */

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define PRISM_DEVICE inline
#define PRISM_UNROLL
#define PRISM_UNROLL_4

struct dim3
{
  unsigned int x, y, z;
  constexpr dim3 (unsigned int x_ = 1, unsigned int y_ = 1, unsigned int z_ = 1)
    : x (x_), y (y_), z (z_) {}
};

/* The CUDA built-in variables; prism::cpu::launch() sets them. */
inline dim3 blockIdx (0, 0, 0);
inline dim3 threadIdx (0, 0, 0);
inline dim3 gridDim (1, 1, 1);
inline dim3 blockDim (1, 1, 1);

namespace prism { namespace cpu {
/* The shared memory of the block being run. */
inline unsigned char *smem = nullptr;
} }

#define PRISM_DYNAMIC_SMEM(name) unsigned char *const name = prism::cpu::smem

#endif

/* Byte sizes and offsets differ between the two builds (f16 is 2 bytes on
 * the GPU, a 4-byte float on the CPU); the generator writes both. */
#if PRISM_CUDA
#define PRISM_PICK(device, cpu) (device)
#else
#define PRISM_PICK(device, cpu) (cpu)
#endif

namespace prism {

/* Storage types.  On the CPU every dtype is stored as a float: the CPU build
 * checks index math and schedules, not rounding. */
#if PRISM_CUDA
typedef __half f16;
typedef __nv_bfloat16 bf16;
#else
typedef float f16;
typedef float bf16;
#endif
typedef float f32;

PRISM_DEVICE float to_float (float x) { return x; }
#if PRISM_CUDA
PRISM_DEVICE float to_float (__half x) { return __half2float (x); }
PRISM_DEVICE float to_float (__nv_bfloat16 x) { return __bfloat162float (x); }
#endif

template <typename T> struct Convert
{
  static PRISM_DEVICE T from (float x) { return (T) x; }
};
#if PRISM_CUDA
template <> struct Convert<__half>
{
  static PRISM_DEVICE __half from (float x) { return __float2half_rn (x); }
};
template <> struct Convert<__nv_bfloat16>
{
  static PRISM_DEVICE __nv_bfloat16 from (float x) { return __float2bfloat16_rn (x); }
};
#endif

template <typename T>
PRISM_DEVICE T
from_float (float x)
{
  return Convert<T>::from (x);
}

/* -inf, the start of a running max. */
PRISM_DEVICE float
neg_inf ()
{
#if PRISM_CUDA
  return __int_as_float (0xff800000);
#else
  return -INFINITY;
#endif
}

/* The threads of a block of NT threads as the primitives see them: NT threads
 * in warps of 32 on the GPU, one thread in one warp of one lane on the CPU. */
#if PRISM_CUDA
constexpr int kWarp = 32;
#else
constexpr int kWarp = 1;
#endif

template <int NT>
struct Team
{
  static_assert (NT % 32 == 0, "blocks have a multiple of 32 threads");
  static constexpr int size = PRISM_CUDA ? NT : 1;
  static constexpr int warps = PRISM_CUDA ? NT / 32 : 1;
};

PRISM_DEVICE int
thread_id ()
{
#if PRISM_CUDA
  return (int) threadIdx.x;
#else
  return 0;
#endif
}

PRISM_DEVICE int warp_id () { return thread_id () / kWarp; }
PRISM_DEVICE int lane_id () { return thread_id () % kWarp; }

/* Programmatic dependent launch (sm_90 and newer).  A kernel launched to
 * overlap the one before it (PRISM_LAUNCH_AFTER) may start while that one
 * still runs: wait_prior_grids() blocks until it has finished and its
 * writes are visible, and returns at once after an ordinary launch.
 * allow_dependent_grids() lets the next kernel's blocks be scheduled once
 * every block of this one has started (they then wait in their own
 * wait_prior_grids()).  Nothing on sm_80 and on the CPU. */
PRISM_DEVICE void
wait_prior_grids ()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile ("griddepcontrol.wait;\n" ::: "memory");
#endif
}

PRISM_DEVICE void
allow_dependent_grids ()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile ("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}

/* Every primitive ends with sync(): the next op may read what it wrote. */
PRISM_DEVICE void
sync ()
{
#if PRISM_CUDA
  __syncthreads ();
#endif
}

/* Sum / max over the lanes of a warp; every lane gets the result. */
PRISM_DEVICE float
warp_sum (float v)
{
#if PRISM_CUDA
#pragma unroll
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_xor_sync (0xffffffffu, v, o);
#endif
  return v;
}

PRISM_DEVICE float
warp_max (float v)
{
#if PRISM_CUDA
#pragma unroll
  for (int o = 16; o > 0; o >>= 1)
    v = fmaxf (v, __shfl_xor_sync (0xffffffffu, v, o));
#endif
  return v;
}

/* A tile shape, left-padded to four dims (rank-2 [M, N] is Shape<1, 1, M, N>).
 * P is the row pitch in shared memory, in elements: D3 for a dense tile,
 * more for a tile read only by tensor-core matmuls, whose rows are padded
 * so that ldmatrix's eight rows fall in different banks. */
template <int D0, int D1, int D2, int D3, int P = D3>
struct Shape
{
  static_assert (P >= D3, "the pitch holds a row");
  static constexpr int d0 = D0, d1 = D1, d2 = D2, d3 = D3;
  static constexpr int size = D0 * D1 * D2 * D3;
  static constexpr int rows = D0 * D1 * D2;   /* rows of the last dim */
  static constexpr int pitch = P;
  static constexpr int storage = rows * P;    /* elements in shared memory */
  static constexpr bool dense = P == D3;
};

/* Primitives that index tiles densely refuse padded ones at compile time. */
#define PRISM_DENSE(S) static_assert (S::dense, "this primitive needs a dense tile")

/* Index into a tile of shape S read with broadcasting (dims of size 1 repeat). */
template <typename S>
PRISM_DEVICE int
bcast_index (int i0, int i1, int i2, int i3)
{
  return (((S::d0 == 1 ? 0 : i0) * S::d1 + (S::d1 == 1 ? 0 : i1)) * S::d2 +
          (S::d2 == 1 ? 0 : i2)) * S::d3 + (S::d3 == 1 ? 0 : i3);
}

/* Splits a flat index of shape S into its four coordinates. */
template <typename S>
PRISM_DEVICE void
unflatten (int i, int &i0, int &i1, int &i2, int &i3)
{
  i3 = i % S::d3;
  i /= S::d3;
  i2 = i % S::d2;
  i /= S::d2;
  i1 = i % S::d1;
  i0 = i / S::d1;
}

} /* namespace prism */
