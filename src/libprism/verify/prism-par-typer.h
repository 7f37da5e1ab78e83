/* prism-par-typer.h — shapes and parallel axes of e-classes, and the rule conditions that need them
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "prism-egraph.h"
#include "prism-par-expr.h"
#include "prism-rewrite.h"

G_BEGIN_DECLS

/**
 * PrismParType:
 *
 * The type of a parallel tensor: its data dims (dims[0] is the *first* dim,
 * as in the IR; terms number dims from the last) and its set of parallel
 * axes (bit i = axis i of the #PrismParEnv).
 */
typedef struct
{
  guint ndims;
  PrismDim *dims[PRISM_MAX_DIMS];  /* owned */
  guint64 axes;
} PrismParType;

/**
 * PrismParTyper:
 *
 * Computes the type of an e-class from any of its e-nodes whose children
 * have types (classes hold equal values, so every well-typed e-node of a
 * class has the same type), memoized by class.  Rule conditions use it to
 * check the side conditions that make a rule an identity (a dim of size 1
 * for broadcasting, equal sizes of two operands along a partitioned dim,
 * equal axis sizes …).  Not thread-safe: one typer per e-graph, used on the
 * thread that runs the e-graph.
 */
typedef struct _PrismParTyper PrismParTyper;

/* @env and @egraph are borrowed and must outlive the typer. */
PrismParTyper *prism_par_typer_new     (const PrismParEnv  *env,
                                        const PrismEgraph  *egraph);
void           prism_par_typer_free    (PrismParTyper      *typer);

/**
 * prism_par_typer_get:
 * @typer: a typer
 * @class_id: an e-class (any id of it) of a clean e-graph
 *
 * Returns: (transfer none) (nullable): the class's type, or %NULL when it is
 *   not a well-typed tensor (an integer, an axis, a size, or ill-typed)
 */
const PrismParType *prism_par_typer_get (PrismParTyper     *typer,
                                        guint               class_id);

/**
 * prism_par_typer_register_conditions:
 * @typer: a typer; must outlive @rules
 * @rules: a rule set, before its rules are parsed
 *
 * Registers the conditions of the verifier's rules:
 *   same_dim(?a, ?b, ?d)  both are tensors with equal sizes along dim ?d (from the last)
 *   dim_one(?a, ?d)       ?a is a tensor whose dim ?d has the constant size 1
 *   same_size(?p, ?q)     the axes ?p and ?q have equal sizes
 *   size_product(?p, ?q, ?r)  size(?p) = size(?q) · size(?r) for axes ?p, ?q, ?r
 *   mm_ok(?a, ?b)         (matmul ?a ?b) is well typed
 *   fits(?s, ?a)          ?s broadcasts into ?a's shape without changing it
 *   count_of(?t, ?n)      the size ?n equals the last dim of ?t
 *   ge(?d, k)             the integer ?d is at least k
 *   perm_inverse(?p, ?q)  the transpose codes ?p and ?q undo each other
 *   perm_moves(?c, ?d, ?e)  the transpose code ?c takes operand dim ?d to result dim ?e
 */
void           prism_par_typer_register_conditions (PrismParTyper *typer,
                                        PrismRuleSet       *rules);

/**
 * prism_par_typer_audit:
 * @typer: a typer
 * @error: return location for a #GError naming the first bad class
 *
 * Checks every class of the (clean) e-graph: the e-nodes of a tensor class
 * must all be well typed with the same type.  An ill-typed e-node means a
 * rule was applied outside the conditions that make it an identity (a
 * soundness check for tests).
 *
 * Returns: %TRUE if every class is consistent
 */
gboolean       prism_par_typer_audit   (PrismParTyper      *typer,
                                        GError            **error);

/* Returns: (transfer full): "[8, 4096/gx] {c0.x}" for messages */
char          *prism_par_type_to_string (const PrismParType *type,
                                        const PrismParEnv  *env);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrismParTyper, prism_par_typer_free)

G_END_DECLS
