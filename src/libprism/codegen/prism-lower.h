/* prism-lower.h — predefined kernel-level ops rewritten as custom kernels
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "prism-graph.h"

G_BEGIN_DECLS

/**
 * prism_lower_predefined_ops:
 * @graph: a concrete kernel graph
 * @error: return location for a #GError
 *
 * Rewrites every predefined kernel-level op (matmul, elementwise, sum,
 * rms_norm) as a custom kernel with a block graph of the same meaning, so
 * that the code generator only ever emits block graphs and the unfused
 * program (the benchmark baseline) runs through the same primitives as the
 * fused candidates.  A graph output that is a graph input, or a tensor that
 * is output twice, gets a copy kernel so that every output is written by a
 * kernel of its own.  Custom kernels are kept as they are.
 *
 * Returns: (transfer full) (nullable): a graph with only INPUT, KERNEL and
 *   OUTPUT ops, computing the same outputs; %NULL with @error set when
 *   @graph is not concrete or not valid
 */
PrismGraph *prism_lower_predefined_ops (const PrismGraph *graph,
                                        GError          **error);

/**
 * PrismLowerOptions:
 * @sm_count: SMs of the target: a matmul whose output has fewer tiles than
 *   twice this many splits K over a grid axis whose blocks add into one tile
 *   (0 means 132, an H100/H200)
 * @keep_matmul: leave predefined matmuls as they are (the vendor baseline
 *   runs them through cuBLASLt)
 */
typedef struct
{
  guint sm_count;
  gboolean keep_matmul;
} PrismLowerOptions;

/* prism_lower_predefined_ops() with options (%NULL: the defaults). */
PrismGraph *prism_lower_predefined_ops_full (const PrismGraph        *graph,
                                             const PrismLowerOptions *options,
                                             GError                 **error);

/**
 * prism_lower_op:
 * @graph: a kernel graph
 * @op_index: one of its predefined ops (matmul, elementwise, sum, rms_norm)
 *   whose tensors have concrete shapes (the rest of @graph may be symbolic)
 *
 * The block graph the op is lowered to, exactly as
 * prism_lower_predefined_ops() would lower it: what the cost model plans
 * to price a predefined op as it will run.
 *
 * Returns: (transfer full) (nullable): the body of the op's kernel
 */
PrismGraph *prism_lower_op             (const PrismGraph        *graph,
                                        guint                    op_index,
                                        const PrismLowerOptions *options,
                                        GError                 **error);

G_END_DECLS
