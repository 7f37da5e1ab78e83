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
 * The workspace's counters must be zero (or hold another epoch) before the
 * first launch — the launcher's caller zero-fills them once; no zero-fill
 * or convert kernel and no floating-point atomics are needed.
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

/**
 * reduce_partials: dst[box] (global, type TG, strides G0..G2) = Σ_s
 * part[s][S] for s = 0 … SPLITS − 1 in this order, converted; VEC elements
 * per store.
 */
template <int NT, int VEC, typename S, long long G0, long long G1, long long G2, int SPLITS,
          typename TG>
PRISM_DEVICE void
reduce_partials (TG *__restrict__ dst, const float *__restrict__ part)
{
  static_assert (S::d3 % VEC == 0, "VEC divides the tile's last dim");
  constexpr int nvec = S::size / VEC;
  PRISM_DENSE (S);

  for (int v = thread_id (); v < nvec; v += Team<NT>::size)
    {
      int si;
      long long gi = tile_global_offset<S, VEC, G0, G1, G2> (v, si);
      float acc[VEC];

      for (int e = 0; e < VEC; e++)
        acc[e] = 0.0f;
      for (int s = 0; s < SPLITS; s++)
        for (int e = 0; e < VEC; e++)
          acc[e] += load_l2 (part + (long long) s * S::size + si + e);
      store_converted<TG, VEC> (dst + gi, acc);
    }
}

} /* namespace prism */
