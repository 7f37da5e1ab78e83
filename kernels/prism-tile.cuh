/* prism-tile.cuh — tile loads (global → shared) and stores (shared → global)
 *
 * A tile of shape S lives densely in shared memory, row-major.  In global
 * memory it is a box of a row-major tensor: the last dim is contiguous and
 * dims 0..2 have the element strides G0..G2.  Loads move VEC elements at a
 * time (the emitter picks VEC so that VEC · sizeof (T) bytes stay aligned);
 * with 4-, 8- or 16-byte chunks on sm_80 and newer, load_tile_async() issues
 * cp.async so that later loop iterations' tiles arrive while this one computes.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "prism-platform.cuh"

namespace prism {

/* Copies VEC elements with one load and one store when the size allows it. */
template <typename T, int VEC>
PRISM_DEVICE void
copy_vec (T *__restrict__ dst, const T *__restrict__ src)
{
#if PRISM_CUDA
  constexpr int bytes = VEC * (int) sizeof (T);
  if constexpr (bytes == 16)
    *reinterpret_cast<uint4 *> (dst) = *reinterpret_cast<const uint4 *> (src);
  else if constexpr (bytes == 8)
    *reinterpret_cast<uint2 *> (dst) = *reinterpret_cast<const uint2 *> (src);
  else if constexpr (bytes == 4)
    *reinterpret_cast<unsigned int *> (dst) = *reinterpret_cast<const unsigned int *> (src);
  else
#endif
    {
      for (int e = 0; e < VEC; e++)
        dst[e] = src[e];
    }
}

/* One asynchronous copy of BYTES (4, 8 or 16) bytes into shared memory
 * (sm_80+; a plain copy elsewhere).  16-byte copies bypass L1 (.cg), the
 * smaller ones go through it (.ca is the only form that takes them). */
template <int BYTES>
PRISM_DEVICE void
cp_async (void *smem_dst, const void *gmem_src)
{
  static_assert (BYTES == 4 || BYTES == 8 || BYTES == 16, "cp.async moves 4, 8 or 16 bytes");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  unsigned int s = (unsigned int) __cvta_generic_to_shared (smem_dst);
  if constexpr (BYTES == 16)
    asm volatile ("cp.async.cg.shared.global [%0], [%1], 16;\n" :: "r" (s), "l" (gmem_src));
  else
    asm volatile ("cp.async.ca.shared.global [%0], [%1], %2;\n" :: "r" (s), "l" (gmem_src), "n" (BYTES));
#else
  memcpy (smem_dst, gmem_src, BYTES);
#endif
}

/* Closes the group of cp.async copies issued so far by this thread. */
PRISM_DEVICE void
cp_async_commit ()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile ("cp.async.commit_group;\n" ::);
#endif
}

/* Waits until at most N groups of this thread are still in flight; the caller
 * then syncs so that every thread sees every thread's copies. */
template <int N>
PRISM_DEVICE void
cp_async_wait ()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile ("cp.async.wait_group %0;\n" :: "n" (N));
#endif
}

/* Element offset in global memory of vector v of a tile of shape S; its
 * place in shared memory (rows S::pitch apart) in @smem_index. */
template <typename S, int VEC, long long G0, long long G1, long long G2>
PRISM_DEVICE long long
tile_global_offset (int v, int &smem_index)
{
  constexpr int d3v = S::d3 / VEC;
  int i3 = v % d3v;
  int row = v / d3v, r = row;
  int i2 = r % S::d2;
  r /= S::d2;
  int i1 = r % S::d1;
  int i0 = r / S::d1;

  smem_index = row * S::pitch + i3 * VEC;
  return (long long) i0 * G0 + (long long) i1 * G1 + (long long) i2 * G2 + (long long) i3 * VEC;
}

/* VEC elements held in registers between their load and their store: one
 * 4-, 8- or 16-byte word when the size allows it. */
template <int BYTES, typename T, int VEC>
struct Chunk
{
  T e[VEC];
  PRISM_DEVICE void load (const T *p) { for (int i = 0; i < VEC; i++) e[i] = p[i]; }
  PRISM_DEVICE void store (T *p) const { for (int i = 0; i < VEC; i++) p[i] = e[i]; }
};

#if PRISM_CUDA
template <typename T, int VEC>
struct Chunk<16, T, VEC>
{
  uint4 w;
  PRISM_DEVICE void load (const T *p) { w = *reinterpret_cast<const uint4 *> (p); }
  PRISM_DEVICE void store (T *p) const { *reinterpret_cast<uint4 *> (p) = w; }
};

template <typename T, int VEC>
struct Chunk<8, T, VEC>
{
  uint2 w;
  PRISM_DEVICE void load (const T *p) { w = *reinterpret_cast<const uint2 *> (p); }
  PRISM_DEVICE void store (T *p) const { *reinterpret_cast<uint2 *> (p) = w; }
};

template <typename T, int VEC>
struct Chunk<4, T, VEC>
{
  unsigned int w;
  PRISM_DEVICE void load (const T *p) { w = *reinterpret_cast<const unsigned int *> (p); }
  PRISM_DEVICE void store (T *p) const { *reinterpret_cast<unsigned int *> (p) = w; }
};
#endif

/* Vectors a thread of load_tile() loads before it stores the first: a plain
 * copy loop lets each store wait for its load, so that only the few loads
 * its unrolling hoists (about 4 × 16 bytes per thread) are in flight.  8 ×
 * 16 bytes cost 32 registers; the launch plan counts this many
 * (SYNC_LOAD_BATCH in prism-kernel-plan.c). */
constexpr int kLoadBatch = 8;

/**
 * load_tile: dst[S] (shared, dense) = src[box] (global, strides G0..G2, 1).
 * Each thread issues the loads of up to kLoadBatch vectors (all of its
 * share of a small tile) before it stores any.  Block-collective; the
 * caller syncs before reading dst.
 */
template <int NT, int VEC, typename S, long long G0, long long G1, long long G2, typename T>
PRISM_DEVICE void
load_tile (T *__restrict__ dst, const T *__restrict__ src)
{
  static_assert (S::d3 % VEC == 0, "VEC divides the tile's last dim");
  constexpr int nvec = S::size / VEC;
  constexpr int per_thread = (nvec + Team<NT>::size - 1) / Team<NT>::size;
  constexpr int batch = per_thread < kLoadBatch ? per_thread : kLoadBatch;
  using C = Chunk<VEC * (int) sizeof (T), T, VEC>;

  for (int b0 = 0; b0 < per_thread; b0 += batch)
    {
      C r[batch];
      int si[batch];

PRISM_UNROLL
      for (int j = 0; j < batch; j++)
        {
          int v = thread_id () + (b0 + j) * Team<NT>::size;
          if (v < nvec)
            r[j].load (src + tile_global_offset<S, VEC, G0, G1, G2> (v, si[j]));
        }
PRISM_UNROLL
      for (int j = 0; j < batch; j++)
        if (thread_id () + (b0 + j) * Team<NT>::size < nvec)
          r[j].store (dst + si[j]);
    }
}

/**
 * load_tile_async: as load_tile(), with cp.async when chunks are 4, 8 or 16
 * bytes.  The caller commits, waits and syncs before reading dst.
 */
template <int NT, int VEC, typename S, long long G0, long long G1, long long G2, typename T>
PRISM_DEVICE void
load_tile_async (T *__restrict__ dst, const T *__restrict__ src)
{
  constexpr int bytes = VEC * (int) sizeof (T);

  if constexpr (bytes == 4 || bytes == 8 || bytes == 16)
    {
      constexpr int nvec = S::size / VEC;
      for (int v = thread_id (); v < nvec; v += Team<NT>::size)
        {
          int si;
          long long gi = tile_global_offset<S, VEC, G0, G1, G2> (v, si);
          cp_async<bytes> (dst + si, src + gi);
        }
    }
  else
    load_tile<NT, VEC, S, G0, G1, G2> (dst, src);
}

/* VEC elements of a shared-memory tile as floats: 16-byte loads when they
 * are f32 and VEC allows it. */
template <typename TS, int VEC>
PRISM_DEVICE void
load_floats (const TS *__restrict__ src, float *v)
{
#if PRISM_CUDA
  if constexpr (sizeof (TS) == 4 && VEC % 4 == 0)
    {
PRISM_UNROLL
      for (int e = 0; e < VEC; e += 4)
        {
          float4 q = *reinterpret_cast<const float4 *> (src + e);
          v[e] = q.x;
          v[e + 1] = q.y;
          v[e + 2] = q.z;
          v[e + 3] = q.w;
        }
    }
  else
#endif
    {
      for (int e = 0; e < VEC; e++)
        v[e] = to_float (src[e]);
    }
}

#if PRISM_CUDA
/* The bits of one element in its storage type. */
PRISM_DEVICE unsigned int storage_bits (__half x) { return __half_as_ushort (x); }
PRISM_DEVICE unsigned int storage_bits (__nv_bfloat16 x) { return __bfloat16_as_ushort (x); }
#endif

/* Stores VEC floats converted to TG into global memory with one 4-, 8- or
 * 16-byte store (the halves packed into 32-bit words first). */
template <typename TG, int VEC>
PRISM_DEVICE void
store_converted (TG *__restrict__ dst, const float *v)
{
#if PRISM_CUDA
  constexpr int bytes = VEC * (int) sizeof (TG);
  if constexpr (bytes == 4 || bytes == 8 || bytes == 16)
    {
      constexpr int words = bytes / 4;
      unsigned int w[words];

PRISM_UNROLL
      for (int e = 0; e < words; e++)
        if constexpr (sizeof (TG) == 2)
          w[e] = storage_bits (from_float<TG> (v[2 * e])) | (storage_bits (from_float<TG> (v[2 * e + 1])) << 16);
        else
          w[e] = __float_as_uint (v[e]);
      /* The vector store is written out: assigning a uint4 through a cast
       * pointer lets NVVM split it into four 32-bit stores when the words
       * come from separate conversions (seen with nvcc 13.0). */
      if constexpr (words == 4)
        asm volatile ("st.global.v4.u32 [%0], {%1, %2, %3, %4};\n"
                      :: "l" (dst), "r" (w[0]), "r" (w[1]), "r" (w[2]), "r" (w[3]) : "memory");
      else if constexpr (words == 2)
        asm volatile ("st.global.v2.u32 [%0], {%1, %2};\n" :: "l" (dst), "r" (w[0]), "r" (w[1]) : "memory");
      else
        *reinterpret_cast<unsigned int *> (dst) = w[0];
    }
  else
#endif
    {
      for (int e = 0; e < VEC; e++)
        dst[e] = from_float<TG> (v[e]);
    }
}

/**
 * store_tile: dst[box] (global, type TG) = src[S] (shared, any type),
 * converting each element; VEC elements per (up to 16-byte) store.
 */
template <int NT, int VEC, typename S, long long G0, long long G1, long long G2,
          typename TG, typename TS>
PRISM_DEVICE void
store_tile (TG *__restrict__ dst, const TS *__restrict__ src)
{
  static_assert (S::d3 % VEC == 0, "VEC divides the tile's last dim");
  constexpr int nvec = S::size / VEC;

  for (int v = thread_id (); v < nvec; v += Team<NT>::size)
    {
      int si;
      long long gi = tile_global_offset<S, VEC, G0, G1, G2> (v, si);
      float vals[VEC];

      load_floats<TS, VEC> (src + si, vals);
      store_converted<TG, VEC> (dst + gi, vals);
    }
}

} /* namespace prism */
