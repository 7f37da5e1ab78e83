/* prism-elementwise.cuh — elementwise ops on shared-memory tiles
 *
 * Every op reads and writes whole tiles; threads take elements in a strided
 * loop.  Binary ops broadcast dims of size 1 exactly as the IR does.  Values
 * are computed in f32 whatever the storage types.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "prism-platform.cuh"

namespace prism {

/* Unary operators: the IR's exp, square, sqrt, silu, gelu (erf form), relu, neg. */
struct OpExp    { static PRISM_DEVICE float apply (float x) { return expf (x); } };
struct OpSquare { static PRISM_DEVICE float apply (float x) { return x * x; } };
struct OpSqrt   { static PRISM_DEVICE float apply (float x) { return sqrtf (x); } };
struct OpSilu   { static PRISM_DEVICE float apply (float x) { return x / (1.0f + expf (-x)); } };
struct OpGelu
{
  static PRISM_DEVICE float apply (float x) { return 0.5f * x * (1.0f + erff (x * 0.70710678118654752f)); }
};
struct OpRelu   { static PRISM_DEVICE float apply (float x) { return x > 0.0f ? x : 0.0f; } };
struct OpNeg    { static PRISM_DEVICE float apply (float x) { return -x; } };
struct OpCopy   { static PRISM_DEVICE float apply (float x) { return x; } };

/* Binary operators. */
struct OpAdd { static PRISM_DEVICE float apply (float a, float b) { return a + b; } };
struct OpSub { static PRISM_DEVICE float apply (float a, float b) { return a - b; } };
struct OpMul { static PRISM_DEVICE float apply (float a, float b) { return a * b; } };
struct OpDiv { static PRISM_DEVICE float apply (float a, float b) { return a / b; } };
struct OpPow { static PRISM_DEVICE float apply (float a, float b) { return powf (a, b); } };
/* fmaxf: a NaN operand gives the other one, as the interpreter's fmax. */
struct OpMaximum { static PRISM_DEVICE float apply (float a, float b) { return fmaxf (a, b); } };

/* out[S] = Op (in[S]); out may be in (in place). */
template <int NT, typename Op, typename S, typename TO, typename TI>
PRISM_DEVICE void
unary (TO *out, const TI *in)
{
  PRISM_DENSE (S);
  for (int i = thread_id (); i < S::size; i += Team<NT>::size)
    out[i] = from_float<TO> (Op::apply (to_float (in[i])));
}

/* out[SO] = Op (a[SA], b[SB]) with broadcasting; out may alias a same-shape operand. */
template <int NT, typename Op, typename SO, typename SA, typename SB,
          typename TO, typename TA, typename TB>
PRISM_DEVICE void
binary (TO *out, const TA *a, const TB *b)
{
  PRISM_DENSE (SO);
  PRISM_DENSE (SA);
  PRISM_DENSE (SB);
  for (int i = thread_id (); i < SO::size; i += Team<NT>::size)
    {
      int i0, i1, i2, i3;
      unflatten<SO> (i, i0, i1, i2, i3);
      float x = to_float (a[bcast_index<SA> (i0, i1, i2, i3)]);
      float y = to_float (b[bcast_index<SB> (i0, i1, i2, i3)]);
      out[i] = from_float<TO> (Op::apply (x, y));
    }
}

/* out[SO] = in[SI] transposed: output dim d is input dim P<d> (padded
 * dims, 0..3); the input may be pitched. */
template <int NT, typename SO, typename SI, int P0, int P1, int P2, int P3,
          typename TO, typename TI>
PRISM_DEVICE void
transpose (TO *__restrict__ out, const TI *__restrict__ in)
{
  PRISM_DENSE (SO);
  for (int i = thread_id (); i < SO::size; i += Team<NT>::size)
    {
      int c[4], s[4];
      unflatten<SO> (i, c[0], c[1], c[2], c[3]);
      s[P0] = c[0];
      s[P1] = c[1];
      s[P2] = c[2];
      s[P3] = c[3];
      out[i] = from_float<TO> (to_float (in[((s[0] * SI::d1 + s[1]) * SI::d2 + s[2]) * SI::pitch + s[3]]));
    }
}

/* out = value in every element (a constant; its tile is all ones). */
template <int NT, typename S, typename TO>
PRISM_DEVICE void
constant (TO *out, float value)
{
  for (int i = thread_id (); i < S::size; i += Team<NT>::size)
    out[i] = from_float<TO> (value);
}

/* out = concat (a, b) along dim DIM (0..3 of the padded shapes). */
template <int NT, int DIM, typename SO, typename SA, typename SB,
          typename TO, typename TA, typename TB>
PRISM_DEVICE void
concat (TO *__restrict__ out, const TA *__restrict__ a, const TB *__restrict__ b)
{
  PRISM_DENSE (SO);
  PRISM_DENSE (SA);
  PRISM_DENSE (SB);
  for (int i = thread_id (); i < SO::size; i += Team<NT>::size)
    {
      int c[4];
      unflatten<SO> (i, c[0], c[1], c[2], c[3]);
      constexpr int split = DIM == 0 ? SA::d0 : DIM == 1 ? SA::d1 : DIM == 2 ? SA::d2 : SA::d3;
      float v;
      if (c[DIM] < split)
        v = to_float (a[((c[0] * SA::d1 + c[1]) * SA::d2 + c[2]) * SA::d3 + c[3]]);
      else
        {
          c[DIM] -= split;
          v = to_float (b[((c[0] * SB::d1 + c[1]) * SB::d2 + c[2]) * SB::d3 + c[3]]);
        }
      out[i] = from_float<TO> (v);
    }
}

/* dst[S] = value. */
template <int NT, typename S, typename T>
PRISM_DEVICE void
fill (T *dst, float value)
{
  PRISM_DENSE (S);
  for (int i = thread_id (); i < S::size; i += Team<NT>::size)
    dst[i] = from_float<T> (value);
}

/* dst[S] = src[S], converting the storage type. */
template <int NT, typename S, typename TD, typename TS>
PRISM_DEVICE void
convert (TD *__restrict__ dst, const TS *__restrict__ src)
{
  unary<NT, OpCopy, S> (dst, src);
}

} /* namespace prism */
