/* prism-graph-region.h — a part of a program as a program of its own
 *
 * The explorer shows a whole model and lets the user pick the ops to
 * superoptimize; a region is such a set of kernel-level ops, with the
 * tensors that flow into it (its inputs) and out of it (its outputs).
 * Constants read by the region are copied into it, not made inputs.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "prism-graph.h"

G_BEGIN_DECLS

/* Ops a region proposed by prism_graph_region_find_blocks() grows to at most. */
#define PRISM_GRAPH_REGION_BLOCK_MAX_OPS 24

/**
 * PrismGraphRegion:
 * @ops: (element-type guint): op indices of the program, ascending; never
 *   an `input` or `output` op
 * @inputs: (element-type guint): tensor ids the region reads and does not
 *   compute (constants excepted), in the order they are first read
 * @outputs: (element-type guint): tensor ids the region computes that are
 *   read outside it, or by an `output` op, or by nothing
 */
typedef struct
{
  GArray *ops;
  GArray *inputs;
  GArray *outputs;
} PrismGraphRegion;

/**
 * prism_graph_region_new:
 * @graph: a kernel graph
 * @ops: (array length=n_ops): op indices (duplicates, `input` and `output`
 *   ops are left out)
 *
 * Returns: (transfer full): the region and its boundary
 */
PrismGraphRegion *prism_graph_region_new        (const PrismGraph       *graph,
                                                 const guint            *ops,
                                                 guint                   n_ops);
void              prism_graph_region_free       (PrismGraphRegion       *region);
/* Whether op @op is in @region. */
gboolean          prism_graph_region_contains   (const PrismGraphRegion *region,
                                                 guint                   op);

/**
 * prism_graph_region_extract:
 * @region: a region of @graph
 * @graph: a concrete kernel graph
 * @name: (nullable): the new program's name
 *
 * The region as a program: an `input` per region input (named after the
 * program input it is, else `t<ID>`), the region's ops, an `output` per
 * region output (named after the program output it is, else `t<ID>`).
 *
 * Returns: (transfer full) (nullable): a valid program, or %NULL with
 *   @error (%PRISM_ERROR_INVALID_GRAPH) for an empty region or one whose
 *   inputs have symbolic sizes
 */
PrismGraph       *prism_graph_region_extract    (const PrismGraphRegion *region,
                                                 const PrismGraph       *graph,
                                                 const char             *name,
                                                 GError                **error);

/**
 * prism_graph_region_find_blocks:
 * @graph: a kernel graph
 *
 * Proposes the regions worth superoptimizing: each matmul with the ops
 * around it (up to 6 steps away, not through another matmul, at most
 * %PRISM_GRAPH_REGION_BLOCK_MAX_OPS ops); proposals that share an op are
 * merged while the union stays within that size.
 *
 * Returns: (transfer full) (element-type PrismGraphRegion): the regions in
 *   the order of their first op
 */
GPtrArray        *prism_graph_region_find_blocks (const PrismGraph      *graph);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrismGraphRegion, prism_graph_region_free)

G_END_DECLS
