/* prism-explain.h — explanations: why two terms of an e-graph are equal
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "prism-egraph.h"
#include "prism-rewrite.h"
#include "prism-term.h"

G_BEGIN_DECLS

/**
 * PrismExplanation:
 *
 * A proof that two terms are equal, as a chain of whole terms t0 … tn where
 * each ti+1 is ti with one subterm rewritten by one named step: a rule of
 * the rule set read forward (lhs → rhs) or backward (rhs → lhs),
 * "constant-fold" (an integer operation replaced by its value), or a reason
 * given to prism_egraph_union().  Congruence is expanded: rewriting inside a
 * context shows the whole term.  The chain is a path in egg's proof forest,
 * not necessarily the shortest proof.
 *
 * Owns its terms; independent of the e-graph once built.
 */
typedef struct _PrismExplanation PrismExplanation;

/**
 * prism_egraph_explain:
 * @egraph: an e-graph created with %PRISM_EGRAPH_EXPLAIN
 * @a: an id returned by an add function (the exact term added)
 * @b: another such id, in the same class
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the explanation from the term of @a
 *   to the term of @b, or %NULL with PRISM_ERROR_UNSUPPORTED (no
 *   explanations recorded), PRISM_ERROR_FAILED (not equal) or
 *   PRISM_ERROR_LIMIT (more than 2^20 steps, or more than 2^21 nodes in
 *   its terms: every step is a whole term, so a long proof deep inside a
 *   big term would otherwise take steps × depth nodes)
 */
PrismExplanation *prism_egraph_explain           (PrismEgraph            *egraph,
                                                  guint                   a,
                                                  guint                   b,
                                                  GError                **error);
void              prism_explanation_free         (PrismExplanation       *explanation);

/* The number of rewrite steps (the proof length). */
guint             prism_explanation_get_length   (const PrismExplanation *explanation);
/* Returns: (transfer none): the term all steps' terms are nodes of */
const PrismTerm  *prism_explanation_get_terms    (const PrismExplanation *explanation);
/* The node of the term before step @i (0 ≤ @i ≤ length; @i = length: the last term). */
guint             prism_explanation_get_term     (const PrismExplanation *explanation,
                                                  guint                   i);
/* Returns: (transfer none): the name of the rule of step @i (0 ≤ @i < length) */
const char       *prism_explanation_get_rule     (const PrismExplanation *explanation,
                                                  guint                   i);
/* Whether step @i reads its rule right to left. */
gboolean          prism_explanation_get_backward (const PrismExplanation *explanation,
                                                  guint                   i);
/* Returns: (transfer full): step @i's substitution, e.g. "?a = x, ?b = (* y z)"
 * (empty for constant folding and given reasons) */
char             *prism_explanation_get_subst    (const PrismExplanation *explanation,
                                                  guint                   i);
/* Returns: (transfer container): the rule names of the steps, in order
 * (const char *, interned: valid for the whole process) */
GPtrArray        *prism_explanation_get_rules_used (const PrismExplanation *explanation);
/* Returns: (transfer full): one term per line, each after the first with the
 * step that produced it, e.g. "  = (* c (* a b))    [comm-mul]" */
char             *prism_explanation_to_string    (const PrismExplanation *explanation);

/**
 * prism_explanation_check:
 * @explanation: an explanation
 * @rules: the rules the e-graph was saturated with
 * @fold: (nullable): the e-graph's fold function, for "constant-fold" steps
 * @fold_data: its data
 * @error: return location for a #GError naming the first bad step
 *
 * Replays the explanation independently of the e-graph: every step must be
 * one application of its rule (prism_rule_check_step()) or one constant fold.
 *
 * Returns: %TRUE if every step is valid
 */
gboolean          prism_explanation_check        (const PrismExplanation *explanation,
                                                  const PrismRuleSet     *rules,
                                                  PrismFoldFunc           fold,
                                                  gpointer                fold_data,
                                                  GError                **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrismExplanation, prism_explanation_free)

G_END_DECLS
