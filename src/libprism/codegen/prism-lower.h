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

G_END_DECLS
