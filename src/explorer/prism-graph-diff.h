/* prism-graph-diff.h — the structural differences of two programs
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "prism-graph-layout.h"

G_BEGIN_DECLS

typedef enum
{
  PRISM_DIFFERENCE_CHANGED,   /* the op is in both graphs, a parameter differs */
  PRISM_DIFFERENCE_ONLY_A,    /* the op (or custom kernel) is only in the first graph */
  PRISM_DIFFERENCE_ONLY_B,    /* … only in the second */
} PrismDifferenceKind;

typedef struct
{
  PrismDifferenceKind kind;
  guint op_a;            /* op id in the first graph, or PRISM_OP_ID_NONE */
  guint op_b;            /* op id in the second graph, or PRISM_OP_ID_NONE */
  const char *field;     /* what differs: "op", "kernel", "grid", "loop", "threads",
                          * "imap", "fmap", "omap", "input", "inputs", "shape",
                          * "attrs", "name" (static strings) */
  char *description;     /* a translated sentence naming the op and both values */
} PrismGraphDifference;

typedef struct _PrismGraphDiff PrismGraphDiff;

/**
 * prism_graph_diff_new:
 * @a: a kernel graph
 * @b: another kernel graph
 *
 * Matches the ops of @a and @b — custom kernels by their order, other ops by
 * kind and their order among ops of that kind, at both levels — and lists
 * what differs between matched ops (grid, loop range, threads, maps, shapes,
 * attributes, which ops feed them) and the ops that have no match.
 *
 * Returns: (transfer full): the differences
 */
PrismGraphDiff             *prism_graph_diff_new      (const PrismGraph     *a,
                                                       const PrismGraph     *b);
void                        prism_graph_diff_free     (PrismGraphDiff       *diff);
guint                       prism_graph_diff_get_n    (const PrismGraphDiff *diff);
const PrismGraphDifference *prism_graph_diff_get      (const PrismGraphDiff *diff,
                                                       guint                 index);
/* The op ids of one side (FALSE: @a, TRUE: @b) that take part in a
 * difference, each once, for prism_graph_view_set_highlight(). (transfer full) */
GArray                     *prism_graph_diff_get_ops  (const PrismGraphDiff *diff,
                                                       gboolean              side_b);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrismGraphDiff, prism_graph_diff_free)

G_END_DECLS
