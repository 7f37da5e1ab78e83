/* prism-reduce.cuh — reductions, rms_norm and the for-loop accumulators
 *
 * Reductions along the last dim — sums, maxima, means, rms_norm — give each
 * row to one warp, or to several when the rows are fewer than the warps
 * (lanes stride over the row into four independent accumulators, then a
 * shuffle reduction); reductions along another dim give each output to one
 * thread, or to a group of lanes when the outputs are fewer than the
 * threads.  No lane's dependent chain is longer than a quarter of its
 * share of the reduced dim plus a few joins.  Accumulators are f32 tiles in shared memory that
 * live across the loop iterations; they are initialised before the loop and
 * finalised (mean, rms) after it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "prism-platform.cuh"

namespace prism {

/* Shape S with dim D replaced by N. */
template <typename S, int D, int N>
struct WithDim
{
  typedef Shape<D == 0 ? N : S::d0, D == 1 ? N : S::d1, D == 2 ? N : S::d2, D == 3 ? N : S::d3> type;
};

struct FIdent  { static PRISM_DEVICE float apply (float x) { return x; } };
struct FSquare { static PRISM_DEVICE float apply (float x) { return x * x; } };

/* Warps that share one row of a row reduction: when a tile has fewer rows
 * than the block has warps, each row is split over warps / rows of them
 * (up to 32), so that every warp works. */
template <int NT, int ROWS>
struct RowSplit
{
  static constexpr int warps = Team<NT>::warps;
  static constexpr int per_row = ROWS >= warps ? 1 : (warps / ROWS > 32 ? 32 : warps / ROWS);
};

/* How a row reduction joins two values: sums, maxima. */
struct RowSum
{
  static PRISM_DEVICE float init () { return 0.0f; }
  static PRISM_DEVICE float join (float a, float b) { return a + b; }
  static PRISM_DEVICE float warp (float v) { return warp_sum (v); }
};

struct RowMax
{
  static PRISM_DEVICE float init () { return neg_inf (); }
  static PRISM_DEVICE float join (float a, float b) { return fmaxf (a, b); }
  static PRISM_DEVICE float warp (float v) { return warp_max (v); }
};

/* The join of a max (true) or a sum (false). */
template <bool MAX> struct RowOp { typedef RowSum type; };
template <> struct RowOp<true> { typedef RowMax type; };

/* R-join of Fn (xr[j]) for j = first, first + STRIDE, … < L, into four
 * independent accumulators, so that a lane's dependent chain is a quarter of
 * its elements (plus its remainder and two joins), not all of them. */
template <typename R, typename Fn, int L, int STRIDE, typename T>
PRISM_DEVICE float
lane_reduce (const T *__restrict__ xr, int first)
{
  float a0 = R::init (), a1 = R::init (), a2 = R::init (), a3 = R::init ();
  int j = first;

  for (; j + 3 * STRIDE < L; j += 4 * STRIDE)
    {
      a0 = R::join (a0, Fn::apply (to_float (xr[j])));
      a1 = R::join (a1, Fn::apply (to_float (xr[j + STRIDE])));
      a2 = R::join (a2, Fn::apply (to_float (xr[j + 2 * STRIDE])));
      a3 = R::join (a3, Fn::apply (to_float (xr[j + 3 * STRIDE])));
    }
  for (; j < L; j += STRIDE)
    a0 = R::join (a0, Fn::apply (to_float (xr[j])));
  return R::join (R::join (a0, a1), R::join (a2, a3));
}

/* R over j of Fn (x[row, j]) for the rows of a tile whose rows have length
 * L; calls done (row, value) on lane 0 of one warp of the row; rows are LD
 * elements apart (the tile's pitch).  Lanes stride over the row (then a
 * shuffle reduction), and rows are split over warps when fewer than the
 * warps.  Block-collective (every thread calls it) when the rows are split. */
template <int NT, int ROWS, int L, typename Fn, typename R, int LD = L, typename T, typename Done>
PRISM_DEVICE void
for_each_row_reduce (const T *__restrict__ x, Done done)
{
  constexpr int WPR = RowSplit<NT, ROWS>::per_row;

  if constexpr (WPR == 1)
    {
      for (int row = warp_id (); row < ROWS; row += Team<NT>::warps)
        {
          float s = R::warp (lane_reduce<R, Fn, L, kWarp> (x + (long long) row * LD, lane_id ()));
          if (lane_id () == 0)
            done (row, s);
        }
    }
  else
    {
#if PRISM_CUDA
      __shared__ float prism_row_partial[32];
#else
      static float prism_row_partial[32];
#endif
      int w = warp_id (), row = w / WPR, seg = w % WPR;
      float s = R::init ();

      if (row < ROWS)
        s = lane_reduce<R, Fn, L, WPR * kWarp> (x + (long long) row * LD, seg * kWarp + lane_id ());
      s = R::warp (s);
      if (lane_id () == 0 && row < ROWS)
        prism_row_partial[w] = s;
      sync ();
      if (row < ROWS && seg == 0 && lane_id () == 0)
        {
          float t = R::init ();
          for (int q = 0; q < WPR; q++)
            t = R::join (t, prism_row_partial[row * WPR + q]);
          done (row, t);
        }
      /* The partials are reused by the next reduction. */
      sync ();
    }
}

/* Σ_j Fn (x[row, j]): for_each_row_reduce() with sums. */
template <int NT, int ROWS, int L, typename Fn, int LD = L, typename T, typename Done>
PRISM_DEVICE void
for_each_row_sum (const T *__restrict__ x, Done done)
{
  for_each_row_reduce<NT, ROWS, L, Fn, RowSum, LD> (x, done);
}

/* Lanes that share one output of a reduction along a dim other than the
 * last, when the outputs are fewer than the threads (a power of two, at
 * most a warp): each adds every G-th element, then a shuffle. */
template <int OUT, int NT>
struct ReduceGroup
{
  static constexpr int fit = PRISM_CUDA && OUT < NT ? NT / OUT : 1;
  static constexpr int size = fit >= 32 ? 32 : fit >= 16 ? 16 : fit >= 8 ? 8 : fit >= 4 ? 4 : fit >= 2 ? 2 : 1;
};

/* out[i] = R over k of in[i with dim DIM = k] (rows SI::pitch apart), the
 * dim kept with size 1, for DIM < 3: one output per thread, or per group
 * of ReduceGroup lanes.  @finish maps the result (a mean divides). */
template <int NT, typename SI, int DIM, typename R, typename TO, typename TI, typename Finish>
PRISM_DEVICE void
reduce_across (TO *__restrict__ out, const TI *__restrict__ in, Finish finish)
{
  typedef typename WithDim<SI, DIM, 1>::type SO;
  constexpr int n = DIM == 0 ? SI::d0 : DIM == 1 ? SI::d1 : SI::d2;
  constexpr int G = ReduceGroup<SO::size, NT>::size;
  static_assert (DIM < 3, "along the last dim rows go to warps");

  if constexpr (G == 1)
    {
      for (int i = thread_id (); i < SO::size; i += Team<NT>::size)
        {
          int c[4];
          float acc = R::init ();
          unflatten<SO> (i, c[0], c[1], c[2], c[3]);
          for (int k = 0; k < n; k++)
            {
              c[DIM] = k;
              acc = R::join (acc, to_float (in[((c[0] * SI::d1 + c[1]) * SI::d2 + c[2]) * SI::pitch + c[3]]));
            }
          out[i] = from_float<TO> (finish (acc));
        }
    }
  else
    {
      /* One pass (SO::size · G ≤ NT); idle lanes join the identity into
       * the shuffle, which every lane of the block takes. */
      int i = thread_id () / G, part = thread_id () % G;
      float acc = R::init ();

      if (i < SO::size)
        {
          int c[4];
          unflatten<SO> (i, c[0], c[1], c[2], c[3]);
          for (int k = part; k < n; k += G)
            {
              c[DIM] = k;
              acc = R::join (acc, to_float (in[((c[0] * SI::d1 + c[1]) * SI::d2 + c[2]) * SI::pitch + c[3]]));
            }
        }
#if PRISM_CUDA
PRISM_UNROLL
      for (int o = G / 2; o > 0; o >>= 1)
        acc = R::join (acc, __shfl_xor_sync (0xffffffffu, acc, o));
#endif
      if (i < SO::size && part == 0)
        out[i] = from_float<TO> (finish (acc));
    }
}

/* out = sum (in, dim DIM), the dim kept with size 1. */
template <int NT, typename SI, int DIM, typename TO, typename TI>
PRISM_DEVICE void
reduce_sum (TO *__restrict__ out, const TI *__restrict__ in)
{
  if constexpr (DIM == 3)
    {
      /* Along the last dim the input may have padded rows. */
      for_each_row_sum<NT, SI::rows, SI::d3, FIdent, SI::pitch> (in, [&] (int row, float s) {
        out[row] = from_float<TO> (s);
      });
    }
  else
    {
      PRISM_DENSE (SI);
      reduce_across<NT, SI, DIM, RowSum> (out, in, [] (float s) { return s; });
    }
}

/* out = max or mean (MAX false) of in along dim DIM, the dim kept with size
 * 1 (the input may be pitched): along the last dim each row to a warp (or
 * several), as reduce_sum; along another dim an output to a thread or to a
 * group of lanes. */
template <int NT, typename SI, int DIM, bool MAX, typename TO, typename TI>
PRISM_DEVICE void
reduce_each (TO *__restrict__ out, const TI *__restrict__ in)
{
  constexpr int n = DIM == 0 ? SI::d0 : DIM == 1 ? SI::d1 : DIM == 2 ? SI::d2 : SI::d3;
  typedef typename RowOp<MAX>::type R;
  auto finish = [] (float v) { return MAX ? v : v / (float) n; };

  if constexpr (DIM == 3)
    for_each_row_reduce<NT, SI::rows, SI::d3, FIdent, R, SI::pitch> (in, [&] (int row, float v) {
      out[row] = from_float<TO> (finish (v));
    });
  else
    reduce_across<NT, SI, DIM, R> (out, in, finish);
}

template <int NT, typename SI, int DIM, typename TO, typename TI>
PRISM_DEVICE void
reduce_max (TO *__restrict__ out, const TI *__restrict__ in)
{
  reduce_each<NT, SI, DIM, true> (out, in);
}

template <int NT, typename SI, int DIM, typename TO, typename TI>
PRISM_DEVICE void
reduce_mean (TO *__restrict__ out, const TI *__restrict__ in)
{
  reduce_each<NT, SI, DIM, false> (out, in);
}

/* out = x / sqrt (mean (x²) + eps) over rows of length L (the trailing norm
 * dims); rows are split over warps as in for_each_row_sum(). */
template <int NT, typename S, int L, typename TO, typename TI>
PRISM_DEVICE void
rms_norm (TO *out, const TI *in, float eps)
{
  PRISM_DENSE (S);
  constexpr int rows = S::size / L;
  constexpr int WPR = RowSplit<NT, rows>::per_row;

  if constexpr (WPR == 1)
    {
      for (int row = warp_id (); row < rows; row += Team<NT>::warps)
        {
          const TI *xr = in + (long long) row * L;
          TO *yr = out + (long long) row * L;
          float s = lane_reduce<RowSum, FSquare, L, kWarp> (xr, lane_id ());
          /* Every lane holds the row's sum after the xor-shuffle reduction. */
          float d = sqrtf (warp_sum (s) / (float) L + eps);
          for (int j = lane_id (); j < L; j += kWarp)
            yr[j] = from_float<TO> (to_float (xr[j]) / d);
        }
    }
  else
    {
#if PRISM_CUDA
      __shared__ float prism_norm_partial[32];
#else
      static float prism_norm_partial[32];
#endif
      int w = warp_id (), row = w / WPR, seg = w % WPR;
      float s = 0.0f;

      if (row < rows)
        s = lane_reduce<RowSum, FSquare, L, WPR * kWarp> (in + (long long) row * L, seg * kWarp + lane_id ());
      s = warp_sum (s);
      if (lane_id () == 0 && row < rows)
        prism_norm_partial[w] = s;
      sync ();
      if (row < rows)
        {
          float t = 0.0f, d;
          for (int q = 0; q < WPR; q++)
            t += prism_norm_partial[row * WPR + q];
          d = sqrtf (t / (float) L + eps);
          /* Each warp normalises the elements it summed (out may be in). */
          for (int j = seg * kWarp + lane_id (); j < L; j += WPR * kWarp)
            out[(long long) row * L + j] = from_float<TO> (to_float (in[(long long) row * L + j]) / d);
        }
      sync ();
    }
}

/* accum: acc[S] += x[S]. */
template <int NT, typename S, typename TX>
PRISM_DEVICE void
accum_add (float *__restrict__ acc, const TX *__restrict__ x)
{
  PRISM_DENSE (S);
  for (int i = thread_id (); i < S::size; i += Team<NT>::size)
    acc[i] += to_float (x[i]);
}

/* accum_sum / accum_mean (Fn = FIdent), accum_rms (Fn = FSquare):
 * acc[row] += Σ_last Fn (x[row, :]). */
template <int NT, typename SX, typename Fn, typename TX>
PRISM_DEVICE void
accum_rows (float *__restrict__ acc, const TX *__restrict__ x)
{
  for_each_row_sum<NT, SX::rows, SX::d3, Fn, SX::pitch> (x, [&] (int row, float s) {
    acc[row] += s;
  });
}

/* accum_sum_todimx: acc[row, j] += Σ_t x[row, j + t·DIMX]. */
template <int NT, typename SX, int DIMX, typename TX>
PRISM_DEVICE void
accum_todimx (float *__restrict__ acc, const TX *__restrict__ x)
{
  PRISM_DENSE (SX);
  static_assert (SX::d3 % DIMX == 0, "dimx divides the last dim");
  for (int i = thread_id (); i < SX::rows * DIMX; i += Team<NT>::size)
    {
      int row = i / DIMX, j = i % DIMX;
      const TX *xr = x + (long long) row * SX::d3;
      float s = 0.0f;
      for (int k = j; k < SX::d3; k += DIMX)
        s += to_float (xr[k]);
      acc[i] += s;
    }
}

/* accum_max: acc[S] = max (acc[S], x[S]). */
template <int NT, typename S, typename TX>
PRISM_DEVICE void
accum_max (float *__restrict__ acc, const TX *__restrict__ x)
{
  PRISM_DENSE (S);
  for (int i = thread_id (); i < S::size; i += Team<NT>::size)
    acc[i] = fmaxf (acc[i], to_float (x[i]));
}

/* accum_rescale: acc[S] = acc[S] · s[SS] + x[S], s broadcast. */
template <int NT, typename S, typename SS, typename TX, typename TS>
PRISM_DEVICE void
accum_rescale (float *__restrict__ acc, const TX *__restrict__ x, const TS *__restrict__ s)
{
  PRISM_DENSE (S);
  PRISM_DENSE (SS);
  for (int i = thread_id (); i < S::size; i += Team<NT>::size)
    {
      int i0, i1, i2, i3;
      unflatten<S> (i, i0, i1, i2, i3);
      acc[i] = acc[i] * to_float (s[bcast_index<SS> (i0, i1, i2, i3)]) + to_float (x[i]);
    }
}

/* accum_sum_rescale: acc[row] = acc[row] · s + Σ_last x[row, :], s broadcast
 * over the accumulator's shape (SX with the last dim 1). */
template <int NT, typename SX, typename SS, typename TX, typename TS>
PRISM_DEVICE void
accum_sum_rescale (float *__restrict__ acc, const TX *__restrict__ x, const TS *__restrict__ s)
{
  PRISM_DENSE (SX);
  PRISM_DENSE (SS);
  typedef typename WithDim<SX, 3, 1>::type SA;
  for_each_row_sum<NT, SX::rows, SX::d3, FIdent> (x, [&] (int row, float sum) {
    int i0, i1, i2, i3;
    unflatten<SA> (row, i0, i1, i2, i3);
    acc[row] = acc[row] * to_float (s[bcast_index<SS> (i0, i1, i2, i3)]) + sum;
  });
}

/* The online softmax's rescale exp(prev − m): 1 where the max did not
 * change (also −∞ to −∞, before any finite value), as prism-interp.c. */
PRISM_DEVICE float
online_factor (float prev, float m)
{
  return prev == m ? 1.0f : expf (prev - m);
}

/* accum_online: acc[S] = acc[S] · exp(prev − m) + x[S], m and prev (the max
 * this accumulator last rescaled to) broadcast from SM.  online_keep()
 * then sets prev = m, after a sync. */
template <int NT, typename S, typename SM, typename TX, typename TM>
PRISM_DEVICE void
accum_online (float *__restrict__ acc, const TX *__restrict__ x, const TM *__restrict__ m,
              const float *__restrict__ prev)
{
  PRISM_DENSE (S);
  PRISM_DENSE (SM);
  for (int i = thread_id (); i < S::size; i += Team<NT>::size)
    {
      int i0, i1, i2, i3, j;
      unflatten<S> (i, i0, i1, i2, i3);
      j = bcast_index<SM> (i0, i1, i2, i3);
      acc[i] = acc[i] * online_factor (prev[j], to_float (m[j])) + to_float (x[i]);
    }
}

/* accum_sum_online: acc[row] = acc[row] · exp(prev − m) + Σ_last x[row, :]. */
template <int NT, typename SX, typename SM, typename TX, typename TM>
PRISM_DEVICE void
accum_sum_online (float *__restrict__ acc, const TX *__restrict__ x, const TM *__restrict__ m,
                  const float *__restrict__ prev)
{
  PRISM_DENSE (SX);
  PRISM_DENSE (SM);
  typedef typename WithDim<SX, 3, 1>::type SA;
  for_each_row_sum<NT, SX::rows, SX::d3, FIdent> (x, [&] (int row, float sum) {
    int i0, i1, i2, i3, j;
    unflatten<SA> (row, i0, i1, i2, i3);
    j = bcast_index<SM> (i0, i1, i2, i3);
    acc[row] = acc[row] * online_factor (prev[j], to_float (m[j])) + sum;
  });
}

/* prev[SM] = m[SM]: the max an online accumulator now holds its sum at. */
template <int NT, typename SM, typename TM>
PRISM_DEVICE void
online_keep (float *__restrict__ prev, const TM *__restrict__ m)
{
  PRISM_DENSE (SM);
  for (int i = thread_id (); i < SM::size; i += Team<NT>::size)
    prev[i] = to_float (m[i]);
}

/* After the loop: acc = acc · factor (accum_mean). */
template <int NT, typename S>
PRISM_DEVICE void
accum_scale (float *acc, float factor)
{
  PRISM_DENSE (S);
  for (int i = thread_id (); i < S::size; i += Team<NT>::size)
    acc[i] *= factor;
}

/* After the loop: acc = sqrt (acc · factor) (accum_rms). */
template <int NT, typename S>
PRISM_DEVICE void
accum_rms_finish (float *acc, float factor)
{
  PRISM_DENSE (S);
  for (int i = thread_id (); i < S::size; i += Team<NT>::size)
    acc[i] = sqrtf (acc[i] * factor);
}

} /* namespace prism */
