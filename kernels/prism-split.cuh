/* prism-split.cuh — outputs whose blocks add into one tile (omap −1)
 *
 * The blocks that share an output tile (split-K, partial sums over a grid
 * axis) each write their f32 partial to the workspace.  A per-tile counter in
 * the workspace, incremented after a memory fence, tells the last block to
 * arrive; that block adds the partials in a fixed order — so the result does
 * not depend on the arrival order —, converts and stores the tile, and
 * resets the counter, so the next launch finds it at zero again.  The
 * workspace's counters must be zero before the first launch (the launcher's
 * caller zero-fills the workspace once); no zero-fill or convert kernel and
 * no floating-point atomics are needed.
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

/**
 * arrive_last: counts this block's arrival at @counter; TRUE (in every
 * thread of the block) for the last of @n blocks, which also resets the
 * counter to zero.  Call it after the block's partial is stored; it fences
 * so that the last block sees every partial.
 */
template <int NT>
PRISM_DEVICE bool
arrive_last (unsigned int *counter, unsigned int n)
{
#if PRISM_CUDA
  __shared__ unsigned int prism_last_block;

  __threadfence ();
  __syncthreads ();
  if (threadIdx.x == 0)
    {
      unsigned int old = atomicAdd (counter, 1u);
      prism_last_block = old == n - 1;
      if (prism_last_block)
        atomicExch (counter, 0u);
    }
  __syncthreads ();
  bool last = prism_last_block != 0;
  if (last)
    __threadfence ();
  return last;
#else
  unsigned int old = (*counter)++;
  if (old + 1 == n)
    {
      *counter = 0;
      return true;
    }
  return false;
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
