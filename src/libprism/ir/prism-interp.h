/* prism-interp.h — the CPU interpreter: ground truth for every other stage
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "prism-buffer.h"
#include "prism-graph.h"

G_BEGIN_DECLS

/*
 * Numerical conventions (the generated CUDA code follows the same ones):
 *
 * - gelu is the exact form 0.5 · x · (1 + erf(x / √2)), not the tanh
 *   approximation.
 * - rms_norm is x / sqrt(mean(x²)) with no epsilon (an all-zero row gives NaN).
 * - silu is x / (1 + exp(-x)); relu(NaN) is 0.
 * - In PRISM_PRECISION_F32 values are stored as doubles but rounded to float
 *   after every elementwise op, after every reduction (matmul, sum, rms_norm
 *   and the per-iteration reduction of accum_sum/…) and after every
 *   accumulator step, so results behave like f32 arithmetic with exact
 *   accumulation inside one op.  Graph inputs are rounded to float on entry.
 *   PRISM_PRECISION_F64 rounds nothing.
 * - Every sum runs in a fixed order (reduced index ascending; blocks summed
 *   through omap -1 in grid order, x fastest), so results do not depend on
 *   the number of threads.
 */

typedef enum
{
  PRISM_PRECISION_F32,
  PRISM_PRECISION_F64,
} PrismPrecision;

typedef struct
{
  PrismPrecision precision;
  guint n_threads;     /* 0 = number of processors */
} PrismInterpOptions;

/* One random buffer per graph input, input k seeded with seed + k, values
 * uniform in [-1, 1) rounded to the input's dtype (so they are exactly what
 * a GPU run of the same graph is given). (transfer full) */
GPtrArray   *prism_interp_make_inputs    (const PrismGraph  *graph,
                                          guint64            seed);

/**
 * prism_interp_run:
 * @graph: a concrete kernel graph (prism_graph_is_concrete())
 * @inputs: (array length=n_inputs): one buffer per graph input, in input order
 * @options: (nullable): %NULL = f64, all processors
 *
 * Executes predefined ops directly and custom kernels block by block,
 * iteration by iteration, with the accumulator and epilogue semantics of the
 * IR.  @inputs are not modified.  Fails with %PRISM_ERROR_UNSUPPORTED for a
 * graph that is not concrete and %PRISM_ERROR_INVALID_GRAPH when the inputs
 * do not match the graph's input shapes.
 *
 * Returns: (transfer full) (element-type PrismBuffer): one buffer per graph
 *   output in output order, or %NULL with @error set
 */
GPtrArray   *prism_interp_run            (const PrismGraph  *graph,
                                          PrismBuffer * const *inputs,
                                          guint              n_inputs,
                                          const PrismInterpOptions *options,
                                          GError           **error);

G_END_DECLS
