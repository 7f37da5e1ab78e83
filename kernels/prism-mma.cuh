/* prism-mma.cuh — tile matmul: tensor cores (WMMA) for f16/bf16, f32 accumulation
 *
 * C[B, M, N] = A[B, M, K] · B[B, K, N] on dense row-major shared-memory tiles.
 * KIND selects the path (the emitter picks it from the tile sizes and the
 * dtype): MMA_SCALAR works for every size and type; MMA_16x16x16 and
 * MMA_8x32x16 use nvcuda::wmma with that fragment shape (f16/bf16 operands,
 * f32 accumulators).  The work is items: output fragment t over slice s of
 * K, item u = s · tiles + t going to warp u mod W.  With KS = 1 each warp owns
 * whole fragments; when a tile has fewer fragments than the block has warps
 * the emitter picks KS > 1 so that every warp works, and the slices' partial
 * fragments are added once, slice by slice, when the result is stored.
 * MatmulAccum keeps the fragments of a matmul whose only use is a for-loop
 * accumulator in registers across the loop iterations.
 *
 * On the CPU the fragments are emulated by small dense matrices with the
 * same tiling, so the CPU build walks the same fragment schedule.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "prism-platform.cuh"

namespace prism {

enum
{
  MMA_SCALAR = 0,
  MMA_16x16x16 = 1,
  MMA_8x32x16 = 2,
};

template <int KIND> struct MmaShape;
template <> struct MmaShape<MMA_16x16x16> { static constexpr int m = 16, n = 16, k = 16; };
template <> struct MmaShape<MMA_8x32x16>  { static constexpr int m = 8, n = 32, k = 16; };

#if PRISM_CUDA

template <int KIND, typename T>
struct Frags
{
  typedef MmaShape<KIND> S;
  typedef nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, S::m, S::n, S::k, T, nvcuda::wmma::row_major> A;
  typedef nvcuda::wmma::fragment<nvcuda::wmma::matrix_b, S::m, S::n, S::k, T, nvcuda::wmma::row_major> B;
  typedef nvcuda::wmma::fragment<nvcuda::wmma::accumulator, S::m, S::n, S::k, float> C;

  static PRISM_DEVICE void zero (C &c) { nvcuda::wmma::fill_fragment (c, 0.0f); }
  static PRISM_DEVICE void load_c (C &c, const float *p, int ldm)
  {
    nvcuda::wmma::load_matrix_sync (c, p, ldm, nvcuda::wmma::mem_row_major);
  }
  static PRISM_DEVICE void load_a (A &a, const T *p, int ldm) { nvcuda::wmma::load_matrix_sync (a, p, ldm); }
  static PRISM_DEVICE void load_b (B &b, const T *p, int ldm) { nvcuda::wmma::load_matrix_sync (b, p, ldm); }
  static PRISM_DEVICE void mma (C &c, const A &a, const B &b) { nvcuda::wmma::mma_sync (c, a, b, c); }
  static PRISM_DEVICE void store (float *p, const C &c, int ldm)
  {
    nvcuda::wmma::store_matrix_sync (p, c, ldm, nvcuda::wmma::mem_row_major);
  }
  /* Two accumulator fragments of one shape map elements to lanes alike. */
  static PRISM_DEVICE void add (C &c, const C &d)
  {
PRISM_UNROLL
    for (int i = 0; i < c.num_elements; i++)
      c.x[i] += d.x[i];
  }
};

#else /* CPU: dense emulation of the fragments */

template <int KIND, typename T>
struct Frags
{
  typedef MmaShape<KIND> S;
  struct A { float x[S::m * S::k]; };
  struct B { float x[S::k * S::n]; };
  struct C { float x[S::m * S::n]; };

  static void zero (C &c)
  {
    for (int i = 0; i < S::m * S::n; i++)
      c.x[i] = 0.0f;
  }
  static void load_c (C &c, const float *p, int ldm)
  {
    for (int i = 0; i < S::m; i++)
      for (int j = 0; j < S::n; j++)
        c.x[i * S::n + j] = p[i * ldm + j];
  }
  static void load_a (A &a, const T *p, int ldm)
  {
    for (int i = 0; i < S::m; i++)
      for (int k = 0; k < S::k; k++)
        a.x[i * S::k + k] = to_float (p[i * ldm + k]);
  }
  static void load_b (B &b, const T *p, int ldm)
  {
    for (int k = 0; k < S::k; k++)
      for (int j = 0; j < S::n; j++)
        b.x[k * S::n + j] = to_float (p[k * ldm + j]);
  }
  static void mma (C &c, const A &a, const B &b)
  {
    for (int i = 0; i < S::m; i++)
      for (int j = 0; j < S::n; j++)
        {
          float s = c.x[i * S::n + j];
          for (int k = 0; k < S::k; k++)
            s += a.x[i * S::k + k] * b.x[k * S::n + j];
          c.x[i * S::n + j] = s;
        }
  }
  static void store (float *p, const C &c, int ldm)
  {
    for (int i = 0; i < S::m; i++)
      for (int j = 0; j < S::n; j++)
        p[i * ldm + j] = c.x[i * S::n + j];
  }
  static void add (C &c, const C &d)
  {
    for (int i = 0; i < S::m * S::n; i++)
      c.x[i] += d.x[i];
  }
};

#endif

/* Where output fragment t of a [BATCH, M, N] product starts. */
template <int KIND, int M, int N>
struct FragTiling
{
  typedef MmaShape<KIND> S;
  static constexpr int tm = M / S::m, tn = N / S::n, per_batch = tm * tn;
  static_assert (M % S::m == 0 && N % S::n == 0, "the fragment shape divides the tile");

  static PRISM_DEVICE void
  locate (int t, int &bi, int &row, int &col)
  {
    bi = t / per_batch;
    int r = t % per_batch;
    row = (r / tn) * S::m;
    col = (r % tn) * S::n;
  }
};

/* c += A · B over the K slice [k0, k0 + KLEN) for the fragment at (bi, row,
 * col) (fragment-level inner loop).  LDA and LDB are the operands' row
 * pitches in shared memory (K and N, more when padded). */
template <int KIND, int M, int N, int K, int KLEN, typename T, int LDA, int LDB>
PRISM_DEVICE void
mma_fragment (typename Frags<KIND, T>::C &c, const T *a, const T *b, int bi, int row, int col, int k0)
{
  typedef Frags<KIND, T> F;
  typedef MmaShape<KIND> S;
  static_assert (KLEN % S::k == 0, "the fragment depth divides the K slice");
  const T *ap = a + (long long) bi * M * LDA + (long long) row * LDA + k0;
  const T *bp = b + (long long) bi * K * LDB + (long long) k0 * LDB + col;

PRISM_UNROLL_4
  for (int k = 0; k < KLEN; k += S::k)
    {
      typename F::A fa;
      typename F::B fb;
      F::load_a (fa, ap + k, LDA);
      F::load_b (fb, bp + (long long) k * LDB, LDB);
      F::mma (c, fa, fb);
    }
}

/* The work items of a [BATCH, M, N] product whose K splits in KS slices. */
template <int KIND, int BATCH, int M, int N, int KS>
struct MmaWork
{
  typedef FragTiling<KIND, M, N> Tl;
  static constexpr int tiles = BATCH * Tl::per_batch;
  static constexpr int items = tiles * KS;

  static PRISM_DEVICE int slice (int u) { return u / tiles; }
  static PRISM_DEVICE void
  locate (int u, int &bi, int &row, int &col)
  {
    Tl::locate (u % tiles, bi, row, col);
  }
};

/**
 * MatmulAccum: Σ over the loop iterations of a[BATCH, M, K] · b[BATCH, K, N]
 * kept in registers.  zero() before the loop, step() in every iteration,
 * store() after the loop writes the f32 sum to shared memory (add_to() adds
 * it to what is there).  With KS > 1 each warp sums one slice of K and the
 * slices' partials are added when stored: one barrier per slice, once.
 */
template <int NT, int BATCH, int M, int N, int K, int KIND, typename T, int KS = 1, int LDA = K,
          int LDB = N>
struct MatmulAccum
{
  typedef MmaWork<KIND, BATCH, M, N, KS> W;
  typedef Frags<KIND, T> F;
  static_assert (K % KS == 0, "the slices divide K");
  static constexpr int klen = K / KS;
  static constexpr int per_warp = (W::items + Team<NT>::warps - 1) / Team<NT>::warps;

  typename F::C c[per_warp];

  PRISM_DEVICE void
  zero ()
  {
PRISM_UNROLL
    for (int j = 0; j < per_warp; j++)
      F::zero (c[j]);
  }

  PRISM_DEVICE void
  step (const T *__restrict__ a, const T *__restrict__ b)
  {
PRISM_UNROLL
    for (int j = 0; j < per_warp; j++)
      {
        int u = warp_id () + j * Team<NT>::warps;
        if (u < W::items)
          {
            int bi, row, col;
            W::locate (u, bi, row, col);
            mma_fragment<KIND, M, N, K, klen, T, LDA, LDB> (c[j], a, b, bi, row, col, W::slice (u) * klen);
          }
      }
  }

  template <bool ADD>
  PRISM_DEVICE void
  write (float *__restrict__ out)
  {
PRISM_UNROLL
    for (int s = 0; s < KS; s++)
      {
PRISM_UNROLL
        for (int j = 0; j < per_warp; j++)
          {
            int u = warp_id () + j * Team<NT>::warps;
            if (u < W::items && W::slice (u) == s)
              {
                int bi, row, col;
                W::locate (u, bi, row, col);
                float *p = out + (long long) bi * M * N + (long long) row * N + col;
                if (s == 0 && !ADD)
                  F::store (p, c[j], N);
                else
                  {
                    typename F::C t;
                    F::load_c (t, p, N);
                    F::add (t, c[j]);
                    F::store (p, t, N);
                  }
              }
          }
        /* The next slice adds to what this one stored. */
        if (KS > 1 && s + 1 < KS)
          sync ();
      }
  }

  PRISM_DEVICE void store (float *__restrict__ out) { write<false> (out); }
  PRISM_DEVICE void add_to (float *__restrict__ out) { write<true> (out); }
};

/* Threads that share one output of a CUDA-core matmul: when the outputs
 * are fewer than the block's threads, a power of two up to a warp, so that
 * every warp works; each sums every G-th product and a shuffle adds them. */
template <int OUT, int NT>
struct ScalarGroup
{
  static constexpr int fit = PRISM_CUDA && OUT < NT ? NT / OUT : 1;
  static constexpr int size = fit >= 32 ? 32 : fit >= 16 ? 16 : fit >= 8 ? 8 : fit >= 4 ? 4 : fit >= 2 ? 2 : 1;
};

/* Sum over the G lanes of a group (G a power of two, groups aligned in
 * the warp); every lane of the block must call it. */
template <int G>
PRISM_DEVICE float
group_sum (float v)
{
#if PRISM_CUDA
PRISM_UNROLL
  for (int o = G / 2; o > 0; o >>= 1)
    v += __shfl_xor_sync (0xffffffffu, v, o);
#endif
  return v;
}

/* Elements of B a CUDA-core matmul reads with one shared-memory load: 16
 * bytes when the rows allow it, fewer otherwise. */
template <typename TB, int N>
struct ScalarVec
{
  static constexpr int full = 16 / (int) sizeof (TB);
  static constexpr int size = N % full == 0 ? full : N % (full / 2) == 0 ? full / 2 : 1;
};

/* V consecutive elements of a shared-memory row as floats, with one 16-,
 * 8- or 4-byte load. */
template <typename T, int V>
PRISM_DEVICE void
load_row_floats (const T *__restrict__ p, float *v)
{
#if PRISM_CUDA
  constexpr int bytes = V * (int) sizeof (T);
  if constexpr (bytes == 16)
    {
      uint4 q = *reinterpret_cast<const uint4 *> (p);
      const T *e = reinterpret_cast<const T *> (&q);
PRISM_UNROLL
      for (int i = 0; i < V; i++)
        v[i] = to_float (e[i]);
    }
  else if constexpr (bytes == 8)
    {
      uint2 q = *reinterpret_cast<const uint2 *> (p);
      const T *e = reinterpret_cast<const T *> (&q);
PRISM_UNROLL
      for (int i = 0; i < V; i++)
        v[i] = to_float (e[i]);
    }
  else
#endif
    {
      for (int i = 0; i < V; i++)
        v[i] = to_float (p[i]);
    }
}

/* c (=|+=) a · b on CUDA cores, f32 accumulation.  A work item is V
 * consecutive outputs of one row (V = ScalarVec: 16 bytes of B's row k
 * with one load, each A element used V times); items go to threads with
 * the item fastest, so the lanes of a warp read consecutive 16-byte pieces
 * of one B row and one A element (a broadcast).  When the items are fewer
 * than the threads, G of them share an item (ScalarGroup), lanes 32 / G
 * apart, each every G-th k, and a shuffle adds their sums. */
template <int NT, int BATCH, int M, int N, int K, bool ADD, typename TA, typename TB>
PRISM_DEVICE void
scalar_matmul (float *__restrict__ c, const TA *__restrict__ a, const TB *__restrict__ b)
{
  constexpr int V = ScalarVec<TB, N>::size;
  constexpr int cols = N / V;
  constexpr int items = BATCH * M * cols;
  constexpr int G = ScalarGroup<items, NT>::size;

  /* The item of thread t and its part of K: within a warp, lanes
   * (part · 32 / G + j) share item j. */
  for (int t = thread_id (); t < (G == 1 ? items : NT); t += Team<NT>::size)
    {
      int lane = t % kWarp, per_warp = kWarp / G;
      int item = G == 1 ? t : (t / kWarp) * per_warp + lane % per_warp;
      int part = G == 1 ? 0 : lane / per_warp;
      float acc[V];

      for (int e = 0; e < V; e++)
        acc[e] = 0.0f;
      if (item < items)
        {
          int bi = item / (M * cols), r = item % (M * cols), row = r / cols, col = (r % cols) * V;
          const TA *ap = a + (long long) bi * M * K + (long long) row * K;
          const TB *bp = b + (long long) bi * K * N + col;
          for (int k = part; k < K; k += G)
            {
              float av = to_float (ap[k]), bv[V];
              load_row_floats<TB, V> (bp + (long long) k * N, bv);
              for (int e = 0; e < V; e++)
                acc[e] += av * bv[e];
            }
        }
#if PRISM_CUDA
      if constexpr (G > 1)
        {
PRISM_UNROLL
          for (int o = kWarp / 2; o >= per_warp; o >>= 1)
            for (int e = 0; e < V; e++)
              acc[e] += __shfl_xor_sync (0xffffffffu, acc[e], o);
        }
#endif
      if (item < items && part == 0)
        {
          int bi = item / (M * cols), r = item % (M * cols), row = r / cols, col = (r % cols) * V;
          float *cp = c + (long long) bi * M * N + (long long) row * N + col;
          for (int e = 0; e < V; e++)
            cp[e] = ADD ? cp[e] + acc[e] : acc[e];
        }
    }
}

/**
 * matmul: c[BATCH, M, N] (f32, shared) = a[BATCH, M, K] · b[BATCH, K, N];
 * KS > 1 splits K over the warps (tensor-core paths only).
 */
template <int NT, int BATCH, int M, int N, int K, int KIND, int KS = 1, int LDA = K, int LDB = N,
          typename TA, typename TB>
PRISM_DEVICE void
matmul (float *__restrict__ c, const TA *__restrict__ a, const TB *__restrict__ b)
{
  if constexpr (KIND == MMA_SCALAR)
    {
      static_assert (LDA == K && LDB == N, "CUDA-core matmuls read dense tiles");
      scalar_matmul<NT, BATCH, M, N, K, false> (c, a, b);
    }
  else if constexpr (KS > 1)
    {
      static_assert (sizeof (TA) == sizeof (TB), "tensor-core operands share a type");
      MatmulAccum<NT, BATCH, M, N, K, KIND, TA, KS, LDA, LDB> acc;
      acc.zero ();
      acc.step (a, (const TA *) b);
      acc.store (c);
    }
  else
    {
      static_assert (sizeof (TA) == sizeof (TB), "tensor-core operands share a type");
      typedef FragTiling<KIND, M, N> Tl;
      typedef Frags<KIND, TA> F;
      for (int t = warp_id (); t < BATCH * Tl::per_batch; t += Team<NT>::warps)
        {
          int bi, row, col;
          typename F::C fc;
          Tl::locate (t, bi, row, col);
          F::zero (fc);
          mma_fragment<KIND, M, N, K, K, TA, LDA, LDB> (fc, a, (const TA *) b, bi, row, col, 0);
          F::store (c + (long long) bi * M * N + (long long) row * N + col, fc, N);
        }
    }
}

/**
 * matmul_acc: c[BATCH, M, N] (f32, shared) += a[BATCH, M, K] · b[BATCH, K, N],
 * for a matmul whose only use is a for-loop accumulator too large to stay
 * in registers: the product goes straight into the accumulator's tile.
 */
template <int NT, int BATCH, int M, int N, int K, int KIND, int LDA = K, int LDB = N, typename TA,
          typename TB>
PRISM_DEVICE void
matmul_acc (float *__restrict__ c, const TA *__restrict__ a, const TB *__restrict__ b)
{
  if constexpr (KIND == MMA_SCALAR)
    {
      static_assert (LDA == K && LDB == N, "CUDA-core matmuls read dense tiles");
      scalar_matmul<NT, BATCH, M, N, K, true> (c, a, b);
    }
  else
    {
      static_assert (sizeof (TA) == sizeof (TB), "tensor-core operands share a type");
      typedef FragTiling<KIND, M, N> Tl;
      typedef Frags<KIND, TA> F;
      for (int t = warp_id (); t < BATCH * Tl::per_batch; t += Team<NT>::warps)
        {
          int bi, row, col;
          typename F::C fc;
          Tl::locate (t, bi, row, col);
          float *cp = c + (long long) bi * M * N + (long long) row * N + col;
          F::load_c (fc, cp, N);
          mma_fragment<KIND, M, N, K, K, TA, LDA, LDB> (fc, a, (const TA *) b, bi, row, col, 0);
          F::store (cp, fc, N);
        }
    }
}

} /* namespace prism */
