/* prism-oracle.h — expression-guided pruning: "can this tensor be part of the target?"
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "prism-abstract-expr.h"
#include "prism-graph.h"
#include "prism-runner.h"
#include "prism-term.h"

G_BEGIN_DECLS

/**
 * PrismOracle:
 *
 * The reference's output expressions (prism-abstract-expr.h) saturated once
 * in one e-graph under the pruning rules (rules/oracle.rules plus factor
 * rules generated for the reference's reduction sizes).  A candidate tensor
 * passes when its abstract expression is already represented in that
 * e-graph, i.e. when it is a subexpression of some form of the target the
 * rules can reach.  The rules over-approximate on purpose (sums move across
 * products regardless of indices): passing is no proof, only "could be".
 *
 * Immutable after prism_oracle_new(): every function taking a const oracle,
 * and prism_oracle_check(), may run from any number of threads at once.
 */
typedef struct _PrismOracle PrismOracle;

typedef struct
{
  /* How candidate (and reference) sizes are evaluated; default UNTILED (the
   * symbolic search's view: maps at zero, loop range 1). */
  PrismAbstractMode mode;
  guint max_nodes;        /* default 100000 */
  guint max_iterations;   /* default 100 */
  double time_limit_s;    /* default 10 */
  /* The runner's backoff scheduler (prism-runner.h); 0 = every match applied. */
  guint match_limit;
  guint ban_length;
} PrismOracleOptions;

void         prism_oracle_options_init (PrismOracleOptions *options);

typedef struct
{
  guint n_outputs;        /* reference outputs in the e-graph */
  guint n_target_nodes;   /* nodes of their expressions (hash-consed) */
  guint n_rules;          /* rules in the set, factor rules included */
  guint n_factor_rules;
  guint n_nodes;          /* the saturated e-graph */
  guint n_classes;
  guint iterations;
  PrismStopReason stop_reason;
  double seconds;         /* saturation time */
} PrismOracleStats;

/**
 * prism_oracle_new:
 * @reference: the input program (a kernel graph with outputs; borrowed)
 *
 * Computes the abstract expression of every reference output and saturates
 * one e-graph of them (with the reduction-splitting rules), once, with the
 * default options.
 *
 * Returns: (transfer full) (nullable): the oracle
 */
PrismOracle *prism_oracle_new     (const PrismGraph *reference,
                                   GError          **error);

/**
 * prism_oracle_new_full:
 * @reference: the input program (borrowed)
 * @options: (nullable): limits and evaluation mode; %NULL for the defaults
 *
 * Hitting a limit is not an error (the e-graph is then a partial
 * saturation, which prunes more): see prism_oracle_get_stats().
 *
 * Returns: (transfer full) (nullable): the oracle, or %NULL with @error set
 *   when the reference has no output or an expression cannot be evaluated
 */
PrismOracle *prism_oracle_new_full (const PrismGraph        *reference,
                                    const PrismOracleOptions *options,
                                    GError                 **error);
void         prism_oracle_free    (PrismOracle      *oracle);

/**
 * prism_oracle_check:
 * @oracle: an oracle
 * @kernel_graph: the partial candidate (kernel level; its inputs are the
 *   reference's, in the same order)
 * @block: (nullable): a block graph under construction, not yet a kernel op of @kernel_graph
 * @block_inputs: (array) (nullable): with @block, the kernel tensor ids its INPUT ops' input_index refers to
 * @tensor: a tensor of @block if given, else of @kernel_graph
 *
 * Answers whether the abstract expression of @tensor (sizes evaluated as in
 * the untiled program, or as the options said) is a subexpression of some
 * equivalent form of the target: every e-node of it exists in the
 * saturated e-graph up to congruence (lookups only, nothing is inserted).
 * An input variable always passes.  A concat passes when both its operands
 * do (it only groups them for a matmul, see prism-abstract-expr.h).  A
 * tensor whose expression cannot be evaluated fails.
 *
 * Safe to call from several threads at once; allocates nothing for graphs
 * of up to 192 tensors (all levels together).
 */
gboolean     prism_oracle_check   (PrismOracle      *oracle,
                                   const PrismGraph *kernel_graph,
                                   const PrismGraph *block,
                                   const guint      *block_inputs,
                                   guint             tensor);

/**
 * prism_oracle_check_mode:
 * @mode: how the candidate's sizes are evaluated
 *
 * prism_oracle_check() with another evaluation than the oracle's own (e.g.
 * CONCRETE for the enumerative search's concrete graphs).  The reference's
 * expressions do not depend on the mode unless it has custom kernels, so one
 * oracle serves both.  Thread-safe.
 */
gboolean     prism_oracle_check_mode (PrismOracle     *oracle,
                                   PrismAbstractMode mode,
                                   const PrismGraph *kernel_graph,
                                   const PrismGraph *block,
                                   const guint      *block_inputs,
                                   guint             tensor);

/* Whether the subterm of @term at @node (over the operators of
 * prism-abstract-expr.h, inputs v0, v1 …) is represented.  Thread-safe. */
gboolean     prism_oracle_check_term (const PrismOracle *oracle,
                                   const PrismTerm  *term,
                                   guint             node);

void         prism_oracle_get_stats (const PrismOracle *oracle,
                                   PrismOracleStats *stats);
/* Returns: (transfer none): the reference's output expressions */
const PrismTerm *prism_oracle_get_target (const PrismOracle *oracle);
/* Returns: (transfer none): every rule used, in rule-file syntax */
const char  *prism_oracle_get_rules_text (const PrismOracle *oracle);
PrismAbstractMode prism_oracle_get_mode (const PrismOracle *oracle);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrismOracle, prism_oracle_free)

G_END_DECLS
