/* prism-calibrate.cu — the microbenchmarks of `prism calibrate`
 *
 * Compiled by NVRTC in prism-gpu-worker (src/libprism/tune/prism-calibrate.c
 * launches them), and, like generated kernels, also as plain C++ (the fake
 * driver of the tests runs each block by one thread, blocks in order): so
 * every kernel uses only blockIdx/blockDim/gridDim arithmetic that is right
 * for one thread per block too, and every parameter is a pointer or a
 * 64-bit integer.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "prism-platform.cuh"
#include "prism-tile.cuh"

#if !PRISM_CUDA
struct uint4
{
  unsigned int x, y, z, w;
};
#endif

namespace prism { namespace calibrate {

PRISM_DEVICE long long
global_thread ()
{
  return (long long) blockIdx.x * blockDim.x + threadIdx.x;
}

PRISM_DEVICE long long
global_threads ()
{
  return (long long) gridDim.x * blockDim.x;
}

PRISM_DEVICE unsigned int
hash (unsigned long long i)
{
  i ^= i >> 33;
  i *= 0xff51afd7ed558ccdull;
  i ^= i >> 33;
  return (unsigned int) i;
}

/* Each thread issues U independent 16-byte copies before it waits for
 * any, so the bytes in flight per SM are its resident threads × U × 16.
 * They are cp.async copies into the thread's own U slots of shared memory
 * (blockDim × U × 16 bytes): a load into registers would let ptxas consume
 * the first before issuing the last and reuse its registers, which keeps
 * fewer in flight than asked for.  cp.async.cg bypasses L1, which would
 * otherwise serve a small working set.  Consecutive threads read
 * consecutive vectors (coalesced).  @n is a multiple of U × the threads of
 * the launch. */
template <int U>
PRISM_DEVICE void
stream_read (const uint4 *p, long long n, long long passes, unsigned long long *sink)
{
  PRISM_DYNAMIC_SMEM (smem);
  uint4 *const mine = reinterpret_cast<uint4 *> (smem) + (long long) threadIdx.x * U;
  const long long t = global_thread (), nt = global_threads ();

  for (long long pass = 0; pass < passes; pass++)
    for (long long base = t; base < n; base += U * nt)
      {
        PRISM_UNROLL
        for (int u = 0; u < U; u++)
          prism::cp_async<16> (mine + u, p + base + u * nt);
        prism::cp_async_commit ();
        prism::cp_async_wait<0> ();
      }
  /* Reads what arrived, so that nothing above can be dropped. */
  if (mine[0].x == 0x9e3779b9u)
    *sink = mine[U - 1].y;
}

} }

/* Nothing: back-to-back launches of it measure the launch gap. */
extern "C" __global__ void
prism_cal_empty ()
{
}

/* Fills @n vectors with values that are finite and normal whether they are
 * read as f16, bf16 or f32 (every 16-bit half is 0x2c00 | 10 random bits),
 * so that GEMM operands behave like data. */
extern "C" __global__ void __launch_bounds__ (256)
prism_cal_fill (uint4 *p, long long n, long long seed)
{
  for (long long i = prism::calibrate::global_thread (); i < n; i += prism::calibrate::global_threads ())
    {
      unsigned int h[4];
      uint4 v;

      for (int k = 0; k < 4; k++)
        {
          unsigned int r = prism::calibrate::hash ((unsigned long long) (i * 4 + k) ^ (unsigned long long) seed);
          h[k] = (0x2c00u | (r & 0x3ffu)) | ((0x2c00u | ((r >> 10) & 0x3ffu)) << 16);
        }
      v.x = h[0];
      v.y = h[1];
      v.z = h[2];
      v.w = h[3];
      p[i] = v;
    }
}

extern "C" __global__ void __launch_bounds__ (1024)
prism_cal_read_u1 (const uint4 *p, long long n, long long passes, unsigned long long *sink)
{
  prism::calibrate::stream_read<1> (p, n, passes, sink);
}

extern "C" __global__ void __launch_bounds__ (1024)
prism_cal_read_u2 (const uint4 *p, long long n, long long passes, unsigned long long *sink)
{
  prism::calibrate::stream_read<2> (p, n, passes, sink);
}

extern "C" __global__ void __launch_bounds__ (1024)
prism_cal_read_u4 (const uint4 *p, long long n, long long passes, unsigned long long *sink)
{
  prism::calibrate::stream_read<4> (p, n, passes, sink);
}

extern "C" __global__ void __launch_bounds__ (1024)
prism_cal_read_u8 (const uint4 *p, long long n, long long passes, unsigned long long *sink)
{
  prism::calibrate::stream_read<8> (p, n, passes, sink);
}

/* next[i] = (i + stride) mod n: with n a power of two and stride an odd
 * multiple of 16 elements, the cycle from 0 visits one element of every
 * 128-byte line of the buffer, each @stride × 8 bytes after the last. */
extern "C" __global__ void __launch_bounds__ (256)
prism_cal_chase_init (unsigned long long *next, long long n, long long stride)
{
  for (long long i = prism::calibrate::global_thread (); i < n; i += prism::calibrate::global_threads ())
    next[i] = (unsigned long long) ((i + stride) % n);
}

/* One thread follows the chain: every load waits for the one before, so
 * the time per step is the latency of a load that misses L2. */
extern "C" __global__ void
prism_cal_chase (const unsigned long long *next, long long steps, unsigned long long *sink)
{
  unsigned long long j = 0;

  if (prism::calibrate::global_thread () != 0)
    return;
  for (long long s = 0; s < steps; s++)
    j = next[j];
  *sink = j;
}
