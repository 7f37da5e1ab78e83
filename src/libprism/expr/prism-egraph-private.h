/* prism-egraph-private.h — PrismEgraph internals shared with the matcher,
 * the runner and the explanation code
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "prism-egraph.h"
#include "prism-expr-private.h"

G_BEGIN_DECLS

#define PRISM_NONE32 0xffffffffu

/* An e-node is a leader when it is the hash-cons entry for its canonical
 * content.  Every id starts as an e-node; one whose canonical content turns
 * out to duplicate another's (congruence, or an exact duplicate added for an
 * explanation) stops being a leader and is ignored by matching and counting. */
#define PRISM_ENODE_LEADER 1u

typedef struct
{
  PrismSymbol op;       /* PRISM_SYMBOL_NONE: integer leaf */
  guint32 n_children;
  guint32 children;     /* offset in egraph->children (and egraph->orig) */
  guint32 flags;
  gint64 value;
} PrismENode;

#define PRISM_ECLASS_HAS_CONST 1u

/* Per id; meaningful for union-find roots only. */
typedef struct
{
  guint32 parents_head; /* offsets in parent_pool, PRISM_NONE32 if none */
  guint32 parents_tail;
  guint32 n_parents;
  guint32 flags;
  gint64 const_value;
} PrismEClass;

typedef struct
{
  guint32 node;
  guint32 next;
} PrismParentEntry;

/* Justification of a union in the proof forest: JUST_CONGRUENCE, or an index
 * into egraph->justs. */
#define PRISM_JUST_NONE       0xffffffffu
#define PRISM_JUST_CONGRUENCE 0xfffffffeu

typedef struct
{
  PrismSymbol name;     /* rule name, "constant-fold", or a caller's reason */
  guint32 lhs_node;     /* the node on the rule's left-hand side */
  guint32 subst_start;  /* offset in subst_pool: n_subst pairs (var symbol, node id) */
  guint32 n_subst;
} PrismJustification;

struct _PrismEgraph
{
  PrismEgraphFlags flags;
  PrismFoldFunc fold;
  gpointer fold_data;

  GArray *nodes;        /* PrismENode, by id */
  GArray *children;     /* guint32: canonical children, repaired in place */
  GArray *orig;         /* guint32: children as added (explanations only) */
  GArray *uf;           /* guint32: union-find parent, by id */
  GArray *classes;      /* PrismEClass, by id */
  GArray *parent_pool;  /* PrismParentEntry */
  PrismIdTable memo;    /* leaders by canonical content */
  PrismIdTable exact;   /* every id by content as added (explanations only) */
  GHashTable *op_index; /* op + 1 → GArray of guint32 ids created as leaders */

  GArray *pending;      /* guint32 nodes whose children were merged away */
  guint pending_pos;
  GArray *analysis;     /* guint32 nodes whose children gained a constant */
  guint analysis_pos;

  guint n_leaders;
  guint n_classes;
  guint n_const_conflicts;
  guint64 n_unions;          /* merges of two classes, ever */
  guint64 n_leaders_created; /* ever */
  gboolean clean;

  /* Per-class index of leaders, built by the rebuild: the leaders of class c
   * are class_nodes[class_start[c] .. + class_len[c]], sorted by (op, value, id). */
  GArray *class_start;  /* guint32 by id */
  GArray *class_len;    /* guint32 by id */
  GArray *class_nodes;  /* guint32 */

  /* Proof forest (explanations only). */
  GArray *expl_parent;  /* guint32 by id */
  GArray *expl_just;    /* guint32 by id */
  GArray *justs;        /* PrismJustification */
  GArray *subst_pool;   /* guint32 */
  PrismSymbol sym_fold;
};

static inline PrismENode *
prism_egraph_node (const PrismEgraph *eg, guint32 id)
{
  return &g_array_index (eg->nodes, PrismENode, id);
}

static inline guint32 *
prism_egraph_node_children (const PrismEgraph *eg, const PrismENode *node)
{
  return &g_array_index (eg->children, guint32, node->children);
}

static inline guint32 *
prism_egraph_node_orig (const PrismEgraph *eg, const PrismENode *node)
{
  return &g_array_index (eg->orig, guint32, node->children);
}

static inline guint32
prism_egraph_find_const (const PrismEgraph *eg, guint32 id)
{
  const guint32 *uf = (const guint32 *) eg->uf->data;

  while (uf[id] != id)
    id = uf[id];
  return id;
}

static inline gboolean
prism_egraph_explaining (const PrismEgraph *eg)
{
  return (eg->flags & PRISM_EGRAPH_EXPLAIN) != 0;
}

/* Find with path halving (writes). */
guint32  prism_egraph_find_mut          (PrismEgraph        *eg,
                                         guint32             id);
/* Adds an e-node: exactly as given when explaining (children are ids of
 * specific e-nodes), else canonically.  Returns an id as the public add
 * functions do. */
guint32  prism_egraph_add_internal      (PrismEgraph        *eg,
                                         PrismSymbol         op,
                                         gint64              value,
                                         guint               n_children,
                                         const guint32      *children);
/* @just: PRISM_JUST_NONE (not explaining), PRISM_JUST_CONGRUENCE, or from
 * prism_egraph_add_justification().  @a and @b are specific e-nodes. */
gboolean prism_egraph_union_internal    (PrismEgraph        *eg,
                                         guint32             a,
                                         guint32             b,
                                         guint32             just);
guint32  prism_egraph_add_justification (PrismEgraph        *eg,
                                         PrismSymbol         name,
                                         guint32             lhs_node,
                                         guint               n_subst,
                                         const PrismSymbol  *var_symbols,
                                         const guint32      *subst);

/* The class of the leader with this content (children are any ids), or
 * PRISM_NONE32.  Read-only; valid at any time (stale between rebuilds). */
guint32  prism_egraph_lookup_raw        (const PrismEgraph  *eg,
                                         PrismSymbol         op,
                                         gint64              value,
                                         guint               n_children,
                                         const guint32      *children);

/* E-matching (prism-egraph-match.c).  The e-graph must be clean. */

/* Called per match with the class the match is rooted at and the
 * substitution (class ids, PRISM_NONE32 for variables not in the pattern).
 * Return %FALSE to stop the search. */
typedef gboolean (*PrismMatchFunc) (gpointer       user_data,
                                    guint32        root_class,
                                    const guint32 *subst);

/* Returns: %FALSE if the search stopped early: @func returned %FALSE, or the
 * monotonic clock passed @deadline (0: none) or the thread's current
 * cancellable was cancelled (prism_cancelled()); then *@timed_out is set. */
gboolean prism_egraph_search_internal   (const PrismEgraph  *eg,
                                         const PrismPattern *pattern,
                                         PrismMatchFunc      func,
                                         gpointer            user_data,
                                         gint64              deadline,
                                         gboolean           *timed_out);
/* The class of @pattern instantiated with @subst if it exists (read-only, any
 * time), else PRISM_NONE32. */
guint32  prism_egraph_lookup_instance   (const PrismEgraph  *eg,
                                         const PrismPattern *pattern,
                                         const guint32      *subst);
/* Adds @pattern instantiated with @subst (prism_egraph_add_internal()). */
guint32  prism_egraph_add_instance      (PrismEgraph        *eg,
                                         const PrismPattern *pattern,
                                         const guint32      *subst);

G_END_DECLS
