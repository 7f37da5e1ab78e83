/* prism-canonical.h — one canonical form per program
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "prism-graph.h"

G_BEGIN_DECLS

/**
 * prism_graph_canonical_form:
 * @graph: a kernel graph with concrete maps (its sizes are taken as they
 *   are: substitute them first to name the program as it runs)
 *
 * A text that names what @graph computes and how it is tiled, equal for
 * programs that differ only in ways that cannot change their result in
 * exact arithmetic (docs/format.md, "Canonical form"):
 *
 * - the order of the ops and of independent kernels (every tensor is named
 *   by its operator and its operands' names, and the ops of a graph are
 *   listed sorted by name: a topological order whose ties are broken by the
 *   structure);
 * - the grouping and order of chains of add/sub and of mul/div (the
 *   operands of a chain are flattened into a sorted list of signed terms:
 *   ((u/r)·g)/r and (u/r)·(g/r) are both u·g·r⁻¹·r⁻¹);
 * - accumulators over a loop of one iteration, which are identities (an
 *   op before one and the same op after it compare equal; a summing one is
 *   the plain reduction over the last dim);
 * - grid axes of size 1, the order of the other grid axes, and the loop map
 *   of a loop of one iteration;
 * - a custom kernel whose body is only a valid tiling of one predefined op
 *   (matmul, an elementwise op): it is named as that op.
 *
 * Anything else — other maps, other grid or loop sizes, other threads per
 * block, other ops — makes another form.
 *
 * Returns: (transfer full): the form
 */
char *prism_graph_canonical_form   (const PrismGraph *graph);

/* 32 hex digits naming prism_graph_canonical_form() (a truncated SHA-256).
 * (transfer full) */
char *prism_graph_canonical_digest (const PrismGraph *graph);

G_END_DECLS
