/* prism-egraph.h — e-graphs: congruence closure over s-expression terms
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "prism-pattern.h"
#include "prism-term.h"

G_BEGIN_DECLS

/**
 * PrismEgraph:
 *
 * An e-graph in the style of egg: a union-find over ids, a hash-cons of
 * canonical e-nodes, deferred congruence closure (prism_egraph_rebuild()), and
 * a constant analysis that folds integer arithmetic.
 *
 * **Ids.** Every e-node gets an id when it is created; an e-class is named by
 * the id of its union-find root, so a class id is also a node id.
 * prism_egraph_find() maps any id to its class.  Ids are small consecutive
 * integers assigned deterministically: the same sequence of calls (same terms,
 * same rules) gives the same ids, classes and explanations, whatever the
 * addresses, the process, or the order in which symbols were interned.
 *
 * **Explanations.** With %PRISM_EGRAPH_EXPLAIN, every union records why it
 * happened (a named rule with its substitution, congruence, constant folding
 * or a caller's reason) and the add functions return the id of the *exact*
 * term added (its own e-node, possibly a duplicate of an existing one), which
 * prism_egraph_explain() (prism-explain.h) takes.  This costs memory (about
 * one extra e-node per rule application); leave it off for the pruning oracle.
 *
 * **Thread safety.** Functions taking a non-const #PrismEgraph must not run
 * concurrently with anything else on the same e-graph.  Once
 * prism_egraph_rebuild() has returned (prism_runner_run() ends with one), and
 * as long as nobody modifies the e-graph, every function taking a
 * `const PrismEgraph *` may be called from any number of threads at once: they
 * only read (the union-find is fully compressed by the rebuild, so finds do not
 * write).  This is the contract the pruning oracle relies on: saturate once,
 * then answer prism_egraph_lookup_term() from all search threads.
 *
 * **Ownership.** Arguments (terms, patterns) are borrowed and never kept;
 * what a function returns is owned by the caller where marked (transfer full).
 */
typedef struct _PrismEgraph PrismEgraph;

typedef enum
{
  PRISM_EGRAPH_FLAGS_NONE = 0,
  PRISM_EGRAPH_EXPLAIN = 1 << 0,
} PrismEgraphFlags;

/* Returned by the lookup functions when the term or node is not represented. */
#define PRISM_EGRAPH_NONE (-1)

/**
 * PrismFoldFunc:
 * @op: the operator of an e-node whose children all have constant values
 * @args: (array length=n_args): the children's values, in order
 * @n_args: the number of children
 * @result: (out): the node's value
 * @user_data: data given to prism_egraph_set_fold_func()
 *
 * The pluggable part of the constant analysis.  When a node's children are
 * all classes with a known integer value and this returns %TRUE, the class of
 * the node gets @result and the integer leaf @result is added to it (so a
 * pattern with the literal `6` matches `(* 2 3)`).  Must be pure.
 *
 * Returns: %TRUE if @op applied to @args has a value
 */
typedef gboolean (*PrismFoldFunc) (PrismSymbol   op,
                                   const gint64 *args,
                                   guint         n_args,
                                   gint64       *result,
                                   gpointer      user_data);

/* The default fold function: `+ - * /` (binary), `neg` (unary), `dim_mul`,
 * `dim_div` and `dim_add` (binary, like `* / +`).  Divisions fold only when
 * exact and the divisor is non-zero; overflowing results do not fold.  For
 * the verifier's terms: `fmul` multiplies two f64 values given by their
 * bits (only when the product is exact), `perm_compose` composes two
 * transpose codes of one rank (prism_par_perm_code()), `bits_count` is the
 * positive integer below 2^31 that f64 bits stand for. */
gboolean      prism_fold_arith          (PrismSymbol          op,
                                         const gint64        *args,
                                         guint                n_args,
                                         gint64              *result,
                                         gpointer             user_data);

/* Returns: (transfer full): an empty e-graph folding with prism_fold_arith() */
PrismEgraph  *prism_egraph_new          (PrismEgraphFlags     flags);
void          prism_egraph_free         (PrismEgraph         *egraph);
PrismEgraphFlags prism_egraph_get_flags (const PrismEgraph   *egraph);
/* Replaces the fold function (%NULL: no constant folding).  Call it before
 * adding anything; @user_data must outlive the e-graph. */
void          prism_egraph_set_fold_func (PrismEgraph        *egraph,
                                         PrismFoldFunc        func,
                                         gpointer             user_data);

/* ------------------------------------------------------------------------ */
/* Adding.  Each returns an id (see "Ids" and "Explanations" above): if the
 * e-node already exists up to congruence, no class is created.  Children are
 * ids returned earlier.  The e-graph may need a prism_egraph_rebuild()
 * afterwards. */

guint         prism_egraph_add_int      (PrismEgraph         *egraph,
                                         gint64               value);
guint         prism_egraph_add_symbol   (PrismEgraph         *egraph,
                                         const char          *name);
guint         prism_egraph_add_node     (PrismEgraph         *egraph,
                                         PrismSymbol          op,
                                         guint                n_children,
                                         const guint         *children);
/* Adds the root of @term (every node below it). */
guint         prism_egraph_add_term     (PrismEgraph         *egraph,
                                         const PrismTerm     *term);
guint         prism_egraph_add_term_node (PrismEgraph        *egraph,
                                         const PrismTerm     *term,
                                         guint                node);

/**
 * prism_egraph_union:
 * @egraph: an e-graph
 * @a: an id
 * @b: an id
 * @reason: the justification shown in explanations (e.g. "given"); copied (interned)
 *
 * Asserts that @a and @b are equal.  Congruences that follow are found by the
 * next prism_egraph_rebuild().
 *
 * Returns: %TRUE if two different classes were merged
 */
gboolean      prism_egraph_union        (PrismEgraph         *egraph,
                                         guint                a,
                                         guint                b,
                                         const char          *reason);

/* Restores the invariants after adds and unions: congruence closure, the
 * constant analysis, a fully compressed union-find and the per-class node
 * index.  Cheap when nothing changed. */
void          prism_egraph_rebuild      (PrismEgraph         *egraph);
/* Whether no rebuild is needed (the const functions are then thread-safe). */
gboolean      prism_egraph_is_clean     (const PrismEgraph   *egraph);

/* ------------------------------------------------------------------------ */
/* Read-only queries (see "Thread safety"). */

/* The class of @id.  Valid at any time; never writes. */
guint         prism_egraph_find         (const PrismEgraph   *egraph,
                                         guint                id);
gboolean      prism_egraph_equiv        (const PrismEgraph   *egraph,
                                         guint                a,
                                         guint                b);
/* Distinct canonical e-nodes (what the node limit counts). */
guint         prism_egraph_get_n_nodes  (const PrismEgraph   *egraph);
guint         prism_egraph_get_n_classes (const PrismEgraph  *egraph);
/* Every id ever assigned, duplicates included (ids are < this). */
guint         prism_egraph_get_n_ids    (const PrismEgraph   *egraph);
/* How often the analysis merged two classes with different constants (a
 * sign of an unsound rule); the class keeps the value of its root. */
guint         prism_egraph_get_n_const_conflicts (const PrismEgraph *egraph);

/* Lookup without insertion (the pruning oracle's question): the class of
 * the e-node / term if every e-node of it exists up to congruence, else
 * PRISM_EGRAPH_NONE.  Children are class (or any) ids.  Requires a clean
 * e-graph; thread-safe. */
gint          prism_egraph_lookup_node  (const PrismEgraph   *egraph,
                                         PrismSymbol          op,
                                         guint                n_children,
                                         const guint         *children);
gint          prism_egraph_lookup_int   (const PrismEgraph   *egraph,
                                         gint64               value);
gint          prism_egraph_lookup_symbol (const PrismEgraph  *egraph,
                                         const char          *name);
gint          prism_egraph_lookup_term  (const PrismEgraph   *egraph,
                                         const PrismTerm     *term);
gint          prism_egraph_lookup_term_node (const PrismEgraph *egraph,
                                         const PrismTerm     *term,
                                         guint                node);

/* The constant value of a class, from the analysis. */
gboolean      prism_egraph_get_const    (const PrismEgraph   *egraph,
                                         guint                class_id,
                                         gint64              *value);

/* The distinct e-nodes of a class, sorted by operator (in no meaningful
 * order between operators) then by id.  Requires a clean e-graph. */
guint         prism_egraph_class_get_n_nodes (const PrismEgraph *egraph,
                                         guint                class_id);
guint         prism_egraph_class_get_node (const PrismEgraph *egraph,
                                         guint                class_id,
                                         guint                i);

/* An e-node: its operator (PRISM_SYMBOL_NONE for an integer leaf), value,
 * and children as class ids. */
PrismSymbol   prism_egraph_node_get_op  (const PrismEgraph   *egraph,
                                         guint                node);
gboolean      prism_egraph_node_is_int  (const PrismEgraph   *egraph,
                                         guint                node);
gint64        prism_egraph_node_get_int (const PrismEgraph   *egraph,
                                         guint                node);
guint         prism_egraph_node_get_n_children (const PrismEgraph *egraph,
                                         guint                node);
guint         prism_egraph_node_get_child (const PrismEgraph *egraph,
                                         guint                node,
                                         guint                i);

/* Returns: (transfer full): a smallest term (fewest nodes, ties to the
 * smaller node id) of the class; requires a clean e-graph. */
PrismTerm    *prism_egraph_extract      (const PrismEgraph   *egraph,
                                         guint                class_id);

/* Returns: (transfer full): every class in id order with its constant and
 * nodes, one class per line; deterministic (for tests and debugging). */
char         *prism_egraph_dump         (const PrismEgraph   *egraph);

/* ------------------------------------------------------------------------ */
/* E-matching */

/**
 * PrismMatches:
 * @n_matches: number of matches
 * @n_vars: variables per substitution (prism_pattern_get_n_vars())
 * @classes: (array length=n_matches): the class each match is rooted at
 * @substs: (array): @n_matches × @n_vars class ids; a variable that does not
 *   occur in the pattern is G_MAXUINT
 *
 * Matches in a deterministic order (by e-node id of the root, then
 * depth-first over the pattern).
 */
typedef struct
{
  guint n_matches;
  guint n_vars;
  guint *classes;
  guint *substs;
} PrismMatches;

/* Returns: (transfer full): every match of @pattern in @egraph (rebuilt first if needed) */
PrismMatches *prism_egraph_search       (PrismEgraph         *egraph,
                                         const PrismPattern  *pattern);
void          prism_matches_free        (PrismMatches        *matches);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrismEgraph, prism_egraph_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrismMatches, prism_matches_free)

G_END_DECLS
