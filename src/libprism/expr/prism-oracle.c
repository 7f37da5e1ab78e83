/* prism-oracle.c — expression-guided pruning: "can this tensor be part of the target?"
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The reference is saturated once; the search then asks millions of
 * questions, each answered by hash-consed lookups in the saturated e-graph
 * (prism_egraph_lookup_node()), one per operator of the candidate's
 * expression, without building the expression: the walk of
 * prism-abstract-expr.c runs with a backend whose "node" is a lookup.
 */
#include "config.h"

#include <string.h>

#include "prism-abstract-expr-private.h"
#include "prism-egraph.h"
#include "prism-error.h"
#include "prism-oracle.h"
#include "prism-rewrite.h"

struct _PrismOracle
{
  PrismEgraph *egraph;       /* saturated and clean: read-only from here on */
  PrismTerm *target;
  PrismAbstractMode mode;
  guint n_inputs;
  guint *input_class;        /* per reference input: its class */
  PrismOracleStats stats;
  char *rules_text;
};

void
prism_oracle_options_init (PrismOracleOptions *options)
{
  g_return_if_fail (options != NULL);

  memset (options, 0, sizeof *options);
  options->mode = PRISM_ABSTRACT_UNTILED;
  options->max_nodes = 100000;
  options->max_iterations = 100;
  options->time_limit_s = 10.0;
  options->match_limit = 0;
  options->ban_length = 5;
}

/* ------------------------------------------------------------------------ */
/* Factor rules */

static gboolean
is_prime (gint64 n)
{
  if (n < 2)
    return FALSE;
  for (gint64 p = 2; p * p <= n; p++)
    if (n % p == 0)
      return FALSE;
  return TRUE;
}

static gint64
smallest_prime_factor (gint64 n)
{
  for (gint64 p = 2; p * p <= n; p++)
    if (n % p == 0)
      return p;
  return n;
}

static gint
compare_int64 (gconstpointer a, gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return x < y ? -1 : x > y;
}

static gboolean
contains (GArray *sizes, gint64 d)
{
  for (guint i = 0; i < sizes->len; i++)
    if (g_array_index (sizes, gint64, i) == d)
      return TRUE;
  return FALSE;
}

static void
add_size (GArray *sizes, gint64 d)
{
  if (!contains (sizes, d))
    g_array_append_val (sizes, d);
}

static void
append_factor_rule (GString *text, const char *op, gint64 n, gint64 d, gboolean named_by_divisor)
{
  if (named_by_divisor)
    g_string_append_printf (text, "factor-%s-%" G_GINT64_FORMAT "-%" G_GINT64_FORMAT ": ", op, n, d);
  else
    g_string_append_printf (text, "factor-%s-%" G_GINT64_FORMAT ": ", op, n);
  g_string_append_printf (text, "(%s %" G_GINT64_FORMAT " ?a) <=> (%s %" G_GINT64_FORMAT
                          " (%s %" G_GINT64_FORMAT " ?a))\n", op, n, op, d, op, n / d);
}

/* The factor rules of a target whose reductions have the sizes found in it.
 *
 * - For each such size n and each divisor 1 < d < n:
 *   `factor-sum-n-d: (sum n ?a) <=> (sum d (sum n/d ?a))`, so that the
 *   split a tiled program makes (a loop of 64 over tiles of 64 for 4096) is
 *   in the class of (sum n x) after one iteration.
 * - For every other composite divisor m of such an n:
 *   `factor-sum-m: (sum m ?a) <=> (sum p (sum m/p ?a))`, p the smallest prime
 *   factor of m (Mirage's chain 4096 → 2·2048 → …), so that deeper nestings
 *   and partial sums, (sum 16 (sum 4 (sum 64 x))) or (sum 64 x), are reached
 *   through comm-sum and congruence.
 *
 * Every divisor gets a rule (not only Mirage's chain n, n/p, n/(pq) …)
 * because sizes that are not prime powers need them: (sum 3 (sum 8 x)) for
 * n = 24 needs a rule for 8.  The direct splits of n cost a few more rules
 * but let the reference saturate in fewer iterations.
 *
 * Maxima, (max n x), get the same rules for their own sizes (a maximum of
 * maxima of the parts is the maximum): a tiled max is a block max and a
 * loop accum_max. */
static void
factor_rules_of (const PrismTerm *target, PrismSymbol sum, const char *op, GString *text,
                 guint *n_rules)
{
  g_autoptr(GArray) degrees = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GArray) divisors = g_array_new (FALSE, FALSE, sizeof (gint64));

  for (guint i = 0; i < prism_term_get_n_nodes (target); i++)
    {
      guint child;
      if (prism_term_node_get_op (target, i) != sum ||
          prism_term_node_get_n_children (target, i) != 2)
        continue;
      child = prism_term_node_get_child (target, i, 0);
      if (prism_term_node_is_int (target, child))
        add_size (degrees, prism_term_node_get_int (target, child));
    }
  g_array_sort (degrees, compare_int64);

  for (guint i = 0; i < degrees->len; i++)
    {
      gint64 n = g_array_index (degrees, gint64, i);
      for (gint64 d = 1; d * d <= n; d++)
        if (n % d == 0)
          {
            if (d >= 4 && !is_prime (d))
              add_size (divisors, d);
            if (n / d >= 4 && !is_prime (n / d))
              add_size (divisors, n / d);
          }
    }
  g_array_sort (divisors, compare_int64);

  for (guint i = 0; i < divisors->len; i++)
    {
      gint64 m = g_array_index (divisors, gint64, i);

      if (contains (degrees, m))
        {
          for (gint64 d = 2; d * d <= m; d++)
            if (m % d == 0)
              {
                append_factor_rule (text, op, m, d, TRUE);
                (*n_rules)++;
                if (d * d != m)
                  {
                    append_factor_rule (text, op, m, m / d, TRUE);
                    (*n_rules)++;
                  }
              }
        }
      else
        {
          append_factor_rule (text, op, m, smallest_prime_factor (m), FALSE);
          (*n_rules)++;
        }
    }
}

static char *
factor_rules (const PrismTerm *target, guint *n_rules)
{
  GString *text = g_string_new (NULL);

  *n_rules = 0;
  factor_rules_of (target, prism_abstract_symbols ()->sum, "sum", text, n_rules);
  factor_rules_of (target, prism_abstract_symbols ()->max, "max", text, n_rules);
  return g_string_free (text, FALSE);
}

/* ------------------------------------------------------------------------ */

PrismOracle *
prism_oracle_new (const PrismGraph *reference, GError **error)
{
  return prism_oracle_new_full (reference, NULL, error);
}

PrismOracle *
prism_oracle_new_full (const PrismGraph *reference, const PrismOracleOptions *options,
                       GError **error)
{
  g_autoptr(PrismOracle) oracle = NULL;
  g_autoptr(PrismRuleSet) rules = NULL;
  g_autoptr(GArray) roots = NULL;
  g_autoptr(GArray) inputs = NULL;
  g_autofree char *factors = NULL;
  PrismOracleOptions opts;
  PrismRunnerOptions run;
  PrismRunReport report;

  g_return_val_if_fail (reference != NULL, NULL);

  if (options != NULL)
    opts = *options;
  else
    prism_oracle_options_init (&opts);

  if (reference->level != PRISM_LEVEL_KERNEL)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_INVALID_GRAPH,
                   "the oracle's reference must be a kernel graph, not a block graph");
      return NULL;
    }

  oracle = g_new0 (PrismOracle, 1);
  oracle->mode = opts.mode;
  oracle->target = prism_abstract_expr_of_outputs (reference,
                                                   prism_abstract_resolve_mode (reference, NULL,
                                                                                opts.mode),
                                                   &roots, error);
  if (oracle->target == NULL)
    {
      g_prefix_error (error, "reference expression: ");
      return NULL;
    }

  /* Integer leaves are reduction degrees, not values: no constant folding. */
  oracle->egraph = prism_egraph_new (PRISM_EGRAPH_FLAGS_NONE);
  prism_egraph_set_fold_func (oracle->egraph, NULL, NULL);

  /* Every input is in the e-graph, used or not, so a bare input always
   * passes (a candidate may read an input the target ignores). */
  inputs = prism_graph_get_inputs (reference);
  oracle->n_inputs = inputs->len;
  oracle->input_class = g_new (guint, MAX (inputs->len, 1));
  for (guint i = 0; i < inputs->len; i++)
    {
      char name[24];
      g_snprintf (name, sizeof name, "v%u", i);
      prism_egraph_add_symbol (oracle->egraph, name);
    }
  for (guint i = 0; i < roots->len; i++)
    prism_egraph_add_term_node (oracle->egraph, oracle->target, g_array_index (roots, guint, i));
  prism_egraph_rebuild (oracle->egraph);

  rules = prism_rule_set_new ();
  if (!prism_rule_set_add_builtin (rules, "oracle", error))
    return NULL;
  factors = factor_rules (oracle->target, &oracle->stats.n_factor_rules);
  if (!prism_rule_set_add_from_string (rules, factors, "factor rules", error))
    return NULL;
  oracle->rules_text = g_strconcat (prism_builtin_rules_get ("oracle"),
                                    "\n# Factor rules of this target\n", factors, NULL);

  prism_runner_options_init (&run);
  run.max_nodes = opts.max_nodes;
  run.max_iterations = opts.max_iterations;
  run.time_limit_s = opts.time_limit_s;
  run.match_limit = opts.match_limit;
  run.ban_length = opts.ban_length;
  prism_runner_run (oracle->egraph, rules, &run, &report);
  g_assert (prism_egraph_is_clean (oracle->egraph));

  for (guint i = 0; i < inputs->len; i++)
    {
      char name[24];
      gint c;
      g_snprintf (name, sizeof name, "v%u", i);
      c = prism_egraph_lookup_symbol (oracle->egraph, name);
      g_assert (c >= 0);
      oracle->input_class[i] = (guint) c;
    }

  oracle->stats.n_outputs = roots->len;
  oracle->stats.n_target_nodes = prism_term_get_n_nodes (oracle->target);
  oracle->stats.n_rules = prism_rule_set_get_n_rules (rules);
  oracle->stats.n_nodes = report.n_nodes;
  oracle->stats.n_classes = report.n_classes;
  oracle->stats.iterations = report.iterations;
  oracle->stats.stop_reason = report.stop_reason;
  oracle->stats.seconds = report.seconds;
  return g_steal_pointer (&oracle);
}

void
prism_oracle_free (PrismOracle *oracle)
{
  if (oracle == NULL)
    return;
  g_clear_pointer (&oracle->egraph, prism_egraph_free);
  g_clear_pointer (&oracle->target, prism_term_free);
  g_free (oracle->input_class);
  g_free (oracle->rules_text);
  g_free (oracle);
}

/* ------------------------------------------------------------------------ */
/* The lookup backend: only reads the (clean) e-graph, so it is thread-safe. */

static guint
lookup_node (gpointer data, PrismSymbol op, guint n_children, const guint *children)
{
  const PrismOracle *oracle = data;
  gint c = prism_egraph_lookup_node (oracle->egraph, op, n_children, children);

  return c < 0 ? PRISM_ABSTRACT_ABSENT : (guint) c;
}

static guint
lookup_int (gpointer data, gint64 value)
{
  const PrismOracle *oracle = data;
  gint c = prism_egraph_lookup_int (oracle->egraph, value);

  return c < 0 ? PRISM_ABSTRACT_ABSENT : (guint) c;
}

static guint
lookup_input (gpointer data, guint index)
{
  const PrismOracle *oracle = data;

  return index < oracle->n_inputs ? oracle->input_class[index] : PRISM_ABSTRACT_ABSENT;
}

static const PrismAbstractBackend lookup_backend = { lookup_node, lookup_int, lookup_input };

gboolean
prism_oracle_check (PrismOracle *oracle, const PrismGraph *kernel_graph, const PrismGraph *block,
                    const guint *block_inputs, guint tensor)
{
  g_return_val_if_fail (oracle != NULL, FALSE);

  return prism_oracle_check_mode (oracle, oracle->mode, kernel_graph, block, block_inputs, tensor);
}

gboolean
prism_oracle_check_mode (PrismOracle *oracle, PrismAbstractMode mode,
                         const PrismGraph *kernel_graph, const PrismGraph *block,
                         const guint *block_inputs, guint tensor)
{
  PrismAbstractWalkStorage storage;
  PrismAbstractWalk walk;
  const PrismGraph *graph = block != NULL ? block : kernel_graph;
  const PrismTensor *t;
  const PrismOp *op;
  gboolean pass;

  g_return_val_if_fail (oracle != NULL, FALSE);
  g_return_val_if_fail (kernel_graph != NULL, FALSE);
  g_return_val_if_fail (tensor < graph->tensors->len, FALSE);

  prism_abstract_walk_init (&walk, &lookup_backend, oracle, kernel_graph, block, block_inputs,
                            prism_abstract_resolve_mode (kernel_graph, block, mode),
                            &storage);
  t = prism_graph_tensor (graph, tensor);
  op = t->producer >= 0 ? prism_graph_op (graph, (guint) t->producer) : NULL;
  if (op != NULL && op->kind == PRISM_OP_CONCAT && op->n_inputs == 2)
    pass = prism_abstract_walk_eval (&walk, block != NULL, op->inputs[0]) != PRISM_ABSTRACT_ABSENT &&
           prism_abstract_walk_eval (&walk, block != NULL, op->inputs[1]) != PRISM_ABSTRACT_ABSENT;
  else
    pass = prism_abstract_walk_eval (&walk, block != NULL, tensor) != PRISM_ABSTRACT_ABSENT;
  prism_abstract_walk_clear (&walk);
  return pass;
}

gboolean
prism_oracle_check_term (const PrismOracle *oracle, const PrismTerm *term, guint node)
{
  g_return_val_if_fail (oracle != NULL, FALSE);
  g_return_val_if_fail (term != NULL && node < prism_term_get_n_nodes (term), FALSE);

  return prism_egraph_lookup_term_node (oracle->egraph, term, node) >= 0;
}

void
prism_oracle_get_stats (const PrismOracle *oracle, PrismOracleStats *stats)
{
  g_return_if_fail (oracle != NULL && stats != NULL);

  *stats = oracle->stats;
}

const PrismTerm *
prism_oracle_get_target (const PrismOracle *oracle)
{
  return oracle->target;
}

const char *
prism_oracle_get_rules_text (const PrismOracle *oracle)
{
  return oracle->rules_text;
}

PrismAbstractMode
prism_oracle_get_mode (const PrismOracle *oracle)
{
  return oracle->mode;
}
