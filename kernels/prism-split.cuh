/* prism-split.cuh — outputs whose blocks add into one tile (omap −1)
 *
 * The blocks that share an output tile (split-K, partial sums over a grid
 * axis) each write their f32 partial to the workspace.  A per-tile counter in
 * the workspace, incremented after a memory fence, tells the last block to
 * arrive; that block adds the partials in a fixed order — so the result does
 * not depend on the arrival order —, converts and stores the tile.  Each
 * counter word carries the epoch of the launch that last counted in it (its
 * upper 16 bits) beside the count: the first block of a launch with another
 * epoch starts the count afresh, so a launch that died half-way (some
 * blocks counted, the last never came) does not make the next launch reduce
 * early; the last block also sets the count back to zero, so that launches
 * repeating one epoch (a CUDA graph replayed as captured) count right too.
 * When the partials are too many for one block to add quickly, the plan
 * leaves them to a combine kernel launched next (combine_partials(), many
 * blocks, each a slice of the tile over every split) and the producing
 * blocks only store: those outputs have no counter.  The workspace's
 * counters must be zero (or hold another epoch) before the first launch —
 * the launcher's caller zero-fills them once; no zero-fill or convert
 * kernel and no floating-point atomics are needed.
 *
 * On the CPU the blocks run one after the other: the last block of a tile is
 * simply its last, and the very same counters and sums are exercised.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "prism-tile.cuh"

namespace prism {

/* A load that bypasses L1 (which is not coherent across SMs): the partials
 * were written by other blocks. */
PRISM_DEVICE float
load_l2 (const float *p)
{
#if PRISM_CUDA
  return __ldcg (p);
#else
  return *p;
#endif
}

/**
 * store_partial: dst[S] (global, f32, dense) = src[S] (shared), 16-byte
 * stores when the tile's size allows them.
 */
template <int NT, typename S, typename TS>
PRISM_DEVICE void
store_partial (float *__restrict__ dst, const TS *__restrict__ src)
{
  constexpr int vec = S::size % 4 == 0 ? 4 : 1;
  PRISM_DENSE (S);

  for (int v = thread_id (); v < S::size / vec; v += Team<NT>::size)
    {
      float tmp[vec];
      load_floats<TS, vec> (src + v * vec, tmp);
      store_converted<float, vec> (dst + (long long) v * vec, tmp);
    }
}

/* The counter word: the launch's epoch tag above, the count below. */
constexpr unsigned int kCountBits = 16;
constexpr unsigned int kCountMask = (1u << kCountBits) - 1;

/* The word after one more arrival at @old of a launch with epoch @tag: a
 * word of another epoch counts as zero; the @n-th arrival leaves the count
 * at zero again.  *@last tells whether this arrival was the @n-th. */
PRISM_DEVICE unsigned int
count_arrival (unsigned int old, unsigned int tag, unsigned int n, bool *last)
{
  unsigned int count = (old >> kCountBits) == tag ? (old & kCountMask) + 1 : 1;

  *last = count == n;
  return (tag << kCountBits) | (*last ? 0u : count);
}

/**
 * arrive_last: counts this block's arrival at @counter for the launch of
 * epoch @epoch (only its low 16 bits are kept; @n < 65536); TRUE (in every
 * thread of the block) for the last of @n blocks.  Call it after the block's
 * partial is stored; it fences so that the last block sees every partial.
 */
template <int NT>
PRISM_DEVICE bool
arrive_last (unsigned int *counter, unsigned int n, unsigned int epoch)
{
  const unsigned int tag = epoch & kCountMask;
#if PRISM_CUDA
  __shared__ unsigned int prism_last_block;

  __threadfence ();
  __syncthreads ();
  if (threadIdx.x == 0)
    {
      unsigned int old = *(volatile unsigned int *) counter, seen;
      bool last = false;

      /* A compare-and-swap loop: the epoch test and the increment are one
       * atomic step (at most @n blocks of a tile contend, once each). */
      for (;;)
        {
          seen = atomicCAS (counter, old, count_arrival (old, tag, n, &last));
          if (seen == old)
            break;
          old = seen;
        }
      prism_last_block = last;
    }
  __syncthreads ();
  bool last = prism_last_block != 0;
  if (last)
    __threadfence ();
  return last;
#else
  bool last = false;

  *counter = count_arrival (*counter, tag, n, &last);
  return last;
#endif
}

/* Floats per partial load: 16 bytes when the output's vectors allow it.
 * Consecutive lanes read consecutive vectors, so one warp instruction uses
 * every byte of the 32-byte sectors it touches. */
template <int VEC>
constexpr int partial_vec = VEC % 4 == 0 ? 4 : VEC % 2 == 0 ? 2 : 1;

/* LV floats of a partial with one load that bypasses L1. */
template <int LV>
PRISM_DEVICE void
load_l2_vec (const float *p, float *v)
{
#if PRISM_CUDA
  if constexpr (LV == 4)
    {
      float4 q = __ldcg (reinterpret_cast<const float4 *> (p));
      v[0] = q.x;
      v[1] = q.y;
      v[2] = q.z;
      v[3] = q.w;
    }
  else if constexpr (LV == 2)
    {
      float2 q = __ldcg (reinterpret_cast<const float2 *> (p));
      v[0] = q.x;
      v[1] = q.y;
    }
  else
#endif
    {
      for (int e = 0; e < LV; e++)
        v[e] = load_l2 (p + e);
    }
}

/* Vector @v (LV elements) of the tile: the sum of its SPLITS partials in
 * split order, converted and stored.  The loads do not depend on each other
 * (unrolled by four, they are in flight together); the adds form the
 * thread's chain of SPLITS steps. */
template <int LV, typename S, long long G0, long long G1, long long G2, int SPLITS, typename TG>
PRISM_DEVICE void
sum_partials_at (TG *__restrict__ dst, const float *__restrict__ part, int v)
{
  int si;
  long long gi = tile_global_offset<S, LV, G0, G1, G2> (v, si);
  float acc[LV];

  for (int e = 0; e < LV; e++)
    acc[e] = 0.0f;
PRISM_UNROLL_4
  for (int s = 0; s < SPLITS; s++)
    {
      float x[LV];
      load_l2_vec<LV> (part + (long long) s * S::size + si, x);
      for (int e = 0; e < LV; e++)
        acc[e] += x[e];
    }
  store_converted<TG, LV> (dst + gi, acc);
}

/**
 * reduce_partials: dst[box] (global, type TG, strides G0..G2) = Σ_s
 * part[s][S] for s = 0 … SPLITS − 1 in this order, converted — by the whole
 * (last-arriving) block, lane t reading the 16-byte vectors t, t + NT, ….
 * The plan keeps this form only while SPLITS × the tile is short work for
 * one SM; otherwise combine_partials() runs in a kernel of its own.
 */
template <int NT, int VEC, typename S, long long G0, long long G1, long long G2, int SPLITS,
          typename TG>
PRISM_DEVICE void
reduce_partials (TG *__restrict__ dst, const float *__restrict__ part)
{
  constexpr int LV = partial_vec<VEC>;
  static_assert (S::d3 % LV == 0, "the partial vector divides the tile's last dim");
  PRISM_DENSE (S);

  for (int v = thread_id (); v < S::size / LV; v += Team<NT>::size)
    sum_partials_at<LV, S, G0, G1, G2, SPLITS> (dst, part, v);
}

/**
 * combine_partials: slice @slice of the tile — its W partial vectors
 * slice·W … slice·W + W − 1, LV floats each — summed over the SPLITS
 * partials.  One block of a combine kernel launched after the kernel that
 * stored the partials, so that a tile's combine is spread over
 * S::size / (LV · W) blocks instead of one.  The block's CT threads are W
 * columns × R = CT / W rows: thread (w, r) adds splits r·P … r·P + P − 1
 * (P = ⌈SPLITS / R⌉) of vector w — for each split, W consecutive 16-byte
 * vectors, whole sectors —, then thread w adds the R sums in row order.
 * The result depends on nothing but the plan (the same on the CPU, where
 * one thread plays every part).
 */
template <int CT, int W, int VEC, typename S, long long G0, long long G1, long long G2, int SPLITS,
          typename TG>
PRISM_DEVICE void
combine_partials (TG *__restrict__ dst, const float *__restrict__ part, int slice)
{
  constexpr int LV = partial_vec<VEC>;
  constexpr int nvec = S::size / LV;
  constexpr int R = CT / W;
  constexpr int P = (SPLITS + R - 1) / R;
  static_assert (CT % W == 0, "the block is W columns × R rows");
  static_assert (S::d3 % LV == 0, "the partial vector divides the tile's last dim");
  PRISM_DENSE (S);
#if PRISM_CUDA
  __shared__ float sums[CT * LV];
#else
  static float sums[CT * LV];
#endif

  for (int item = thread_id (); item < CT; item += Team<CT>::size)
    {
      int w = item % W, r = item / W, v = slice * W + w;
      int s0 = r * P, s1 = s0 + P < SPLITS ? s0 + P : SPLITS;
      float acc[LV];

      for (int e = 0; e < LV; e++)
        acc[e] = 0.0f;
      if (v < nvec)
        {
          int si;
          tile_global_offset<S, LV, G0, G1, G2> (v, si);
PRISM_UNROLL_4
          for (int s = s0; s < s1; s++)
            {
              float x[LV];
              load_l2_vec<LV> (part + (long long) s * S::size + si, x);
              for (int e = 0; e < LV; e++)
                acc[e] += x[e];
            }
        }
      for (int e = 0; e < LV; e++)
        sums[item * LV + e] = acc[e];
    }
  sync ();
  for (int w = thread_id (); w < W; w += Team<CT>::size)
    {
      int v = slice * W + w, si;
      long long gi;
      float acc[LV];

      if (v >= nvec)
        continue;
      gi = tile_global_offset<S, LV, G0, G1, G2> (v, si);
      for (int e = 0; e < LV; e++)
        acc[e] = 0.0f;
      for (int r = 0; r < R; r++)
        for (int e = 0; e < LV; e++)
          acc[e] += sums[(r * W + w) * LV + e];
      store_converted<TG, LV> (dst + gi, acc);
    }
}

} /* namespace prism */
