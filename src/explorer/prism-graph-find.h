/* prism-graph-find.h — the ops of a graph that a search text names
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "prism-graph-layout.h"

G_BEGIN_DECLS

/**
 * prism_graph_find_ops:
 * @graph: a kernel graph
 * @query: what was typed: part of an op kind ("matmul"), of a tensor's or
 *   input's name ("X"), of a kernel's title ("kernel 2"), or a tensor id
 *   ("t3" at the kernel level, "s3" in block graphs), case-insensitive
 *
 * Returns: (transfer full) (element-type guint): the op ids that match, in
 *   graph order, kernel-level ops before the block ops of a kernel; empty
 *   for a blank @query
 */
GArray *prism_graph_find_ops (const PrismGraph *graph,
                              const char       *query);

G_END_DECLS
