/* test-deep.c — terms, e-graphs, explanations, abstract expressions and the
 * oracle on inputs far deeper than the C stack allows recursion for
 *
 * Every function here used to recurse once per level of its input; these
 * chains (DEPTH levels, a few MiB of stack frames) crashed them.  Now each
 * walks with an explicit stack, so depth costs only memory.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "prism-abstract-expr-private.h"
#include "prism-egraph.h"
#include "prism-error.h"
#include "prism-explain.h"
#include "prism-expr-private.h"
#include "prism-oracle.h"
#include "prism-rewrite.h"
#include "prism-runner.h"
#include "prism-term.h"
#include "prism-workload.h"

/* Deep enough that one 64-byte frame per level overflows an 8 MiB stack. */
#define DEPTH 200000

/* (op (op … (op leaf))) with @depth ops above @leaf; returns the root. */
static guint
chain (PrismTerm *term, const char *op, guint leaf, guint depth)
{
  PrismSymbol sym = prism_symbol_intern (op);
  guint node = leaf;

  for (guint i = 0; i < depth; i++)
    node = prism_term_add_node (term, sym, 1, &node);
  return node;
}

/* x, (+ x x), (+ (+ x x) (+ x x)) …: @levels nodes, 2^levels leaves as a tree. */
static guint
doubling (PrismTerm *term, guint levels)
{
  PrismSymbol plus = prism_symbol_intern ("+");
  guint node = prism_term_add_symbol (term, "x");

  for (guint i = 0; i < levels; i++)
    {
      guint kids[2] = { node, node };
      node = prism_term_add_node (term, plus, 2, kids);
    }
  return node;
}

static void
test_term_chain (void)
{
  g_autoptr(PrismTerm) a = prism_term_new ();
  g_autoptr(PrismTerm) b = prism_term_new ();
  g_autoptr(PrismTerm) c = prism_term_new ();
  guint ra = chain (a, "neg", prism_term_add_symbol (a, "x"), DEPTH);
  guint rb, rc, copy;
  g_autofree char *text = NULL;

  /* Built in another order (and another term), the same subterm. */
  prism_term_add_int (b, 7);
  rb = chain (b, "neg", prism_term_add_symbol (b, "x"), DEPTH);
  rc = chain (c, "neg", prism_term_add_symbol (c, "y"), DEPTH);
  g_assert_true (prism_term_node_equal (a, ra, b, rb));
  g_assert_false (prism_term_node_equal (a, ra, c, rc));

  copy = prism_term_add_subterm (c, a, ra);
  g_assert_cmpuint (prism_term_get_n_nodes (c), ==, 2 * (DEPTH + 1));
  g_assert_true (prism_term_node_equal (c, copy, a, ra));
  g_assert_cmpuint (prism_term_node_tree_size (c, copy), ==, DEPTH + 1);

  /* Half the chain prints whole (600 001 bytes), the whole chain is cut. */
  text = prism_term_node_to_string (a, DEPTH / 2);
  g_assert_true (g_str_has_prefix (text, "(neg (neg (neg "));
  g_assert_cmpuint (strlen (text), ==, (gsize) DEPTH / 2 * strlen ("(neg ") + 1 + DEPTH / 2);
  g_assert_nonnull (strstr (text, " (neg x))))"));
  g_assert_true (g_str_has_suffix (text, ")))"));
  g_free (text);
  text = prism_term_node_to_string (a, ra);
  g_assert_cmpuint (strlen (text), <=, PRISM_TERM_TEXT_MAX);
  g_assert_true (g_str_has_prefix (text, "(neg (neg "));
  g_assert_true (g_str_has_suffix (text, "…"));
}

/* Shared subterms are compared and printed without walking the tree they
 * stand for (2^64 leaves here). */
static void
test_term_shared (void)
{
  g_autoptr(PrismTerm) a = prism_term_new ();
  g_autoptr(PrismTerm) b = prism_term_new ();
  guint ra = doubling (a, 64), rb = doubling (b, 64);
  g_autofree char *text = NULL;

  g_assert_true (prism_term_node_equal (a, ra, b, rb));
  g_assert_cmpuint (prism_term_node_tree_size (a, ra), ==, G_MAXUINT64);
  text = prism_term_node_to_string (a, ra);
  g_assert_cmpuint (strlen (text), <=, PRISM_TERM_TEXT_MAX);
  g_assert_true (g_str_has_prefix (text, "(+ (+ (+ "));
  g_assert_true (g_str_has_suffix (text, "…"));
}

static void
test_egraph_chain (void)
{
  g_autoptr(PrismTerm) t = prism_term_new ();
  g_autoptr(PrismTerm) other = prism_term_new ();
  g_autoptr(PrismEgraph) eg = prism_egraph_new (PRISM_EGRAPH_FLAGS_NONE);
  g_autoptr(PrismTerm) extracted = NULL;
  guint root = chain (t, "exp", prism_term_add_symbol (t, "x"), DEPTH);
  guint oroot = chain (other, "exp", prism_term_add_symbol (other, "y"), DEPTH);
  guint id;

  id = prism_egraph_add_term (eg, t);
  prism_egraph_rebuild (eg);
  g_assert_cmpuint (prism_egraph_get_n_nodes (eg), ==, DEPTH + 1);
  g_assert_cmpint (prism_egraph_lookup_term_node (eg, t, root), ==, (gint) prism_egraph_find (eg, id));
  /* "y" is missing, so the lookup fails at the bottom of the chain. */
  g_assert_cmpint (prism_egraph_lookup_term_node (eg, other, oroot), ==, PRISM_EGRAPH_NONE);

  extracted = prism_egraph_extract (eg, id);
  g_assert_nonnull (extracted);
  g_assert_true (prism_term_node_equal (extracted, prism_term_get_root (extracted), t, root));
}

static PrismRuleSet *
rules (const char *text)
{
  g_autoptr(GError) error = NULL;
  PrismRuleSet *set = prism_rule_set_new ();

  g_assert_true (prism_rule_set_add_from_string (set, text, "test", &error));
  g_assert_no_error (error);
  return set;
}

/* One rewrite at the bottom of a deep chain: the explanation lifts it
 * through DEPTH congruences, and replaying it walks the chain again. */
static void
test_explain_deep_congruence (void)
{
  g_autoptr(PrismEgraph) eg = prism_egraph_new (PRISM_EGRAPH_EXPLAIN);
  g_autoptr(PrismRuleSet) set = rules ("swap: (g ?x ?y) => (g ?y ?x)\n");
  g_autoptr(PrismTerm) t = prism_term_new ();
  g_autoptr(PrismExplanation) ex = NULL;
  g_autoptr(GError) error = NULL;
  PrismRunnerOptions options;
  guint p, q, kids[2], lhs, rhs, a, b;

  p = prism_term_add_symbol (t, "p");
  q = prism_term_add_symbol (t, "q");
  kids[0] = p;
  kids[1] = q;
  lhs = chain (t, "f", prism_term_add_op (t, "g", 2, kids), DEPTH);
  kids[0] = q;
  kids[1] = p;
  rhs = chain (t, "f", prism_term_add_op (t, "g", 2, kids), DEPTH);
  a = prism_egraph_add_term_node (eg, t, lhs);
  b = prism_egraph_add_term_node (eg, t, rhs);

  prism_runner_options_init (&options);
  options.max_iterations = 2;
  options.max_nodes = 0;
  options.time_limit_s = 0;
  prism_runner_run (eg, set, &options, NULL);
  g_assert_true (prism_egraph_equiv (eg, a, b));

  ex = prism_egraph_explain (eg, a, b, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (prism_explanation_get_length (ex), ==, 1);
  g_assert_cmpstr (prism_explanation_get_rule (ex, 0), ==, "swap");
  g_assert_true (prism_explanation_check (ex, set, NULL, NULL, &error));
  g_assert_no_error (error);
}

/* A constant fold under a deep chain, replayed with the fold function. */
static void
test_explain_deep_fold (void)
{
  g_autoptr(PrismEgraph) eg = prism_egraph_new (PRISM_EGRAPH_EXPLAIN);
  g_autoptr(PrismRuleSet) set = rules ("id: (h ?x) => ?x\n");
  g_autoptr(PrismTerm) t = prism_term_new ();
  g_autoptr(PrismExplanation) ex = NULL;
  g_autoptr(GError) error = NULL;
  guint kids[2], folded, lhs, rhs, a, b;

  kids[0] = prism_term_add_int (t, 2);
  kids[1] = prism_term_add_int (t, 3);
  folded = prism_term_add_op (t, "+", 2, kids);
  lhs = chain (t, "f", folded, DEPTH);
  rhs = chain (t, "f", prism_term_add_int (t, 5), DEPTH);
  a = prism_egraph_add_term_node (eg, t, lhs);
  b = prism_egraph_add_term_node (eg, t, rhs);
  prism_egraph_rebuild (eg);
  g_assert_true (prism_egraph_equiv (eg, a, b));

  ex = prism_egraph_explain (eg, a, b, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (prism_explanation_get_length (ex), ==, 1);
  g_assert_cmpstr (prism_explanation_get_rule (ex, 0), ==, "constant-fold");
  g_assert_true (prism_explanation_check (ex, set, prism_fold_arith, NULL, &error));
  g_assert_no_error (error);
}

/* A proof whose every step is a whole term of a deep chain needs a number
 * of term nodes quadratic in the depth: refused with a limit error instead
 * of exhausting memory. */
static void
test_explain_too_big (void)
{
  g_autoptr(PrismEgraph) eg = prism_egraph_new (PRISM_EGRAPH_EXPLAIN);
  g_autoptr(PrismRuleSet) set = rules ("swap: (g ?x ?y) => (g ?y ?x)\n");
  g_autoptr(PrismTerm) t = prism_term_new ();
  g_autoptr(PrismExplanation) ex = NULL;
  g_autoptr(GError) error = NULL;
  PrismSymbol g = prism_symbol_intern ("g");
  PrismRunnerOptions options;
  guint c = prism_term_add_symbol (t, "c");
  guint lhs = prism_term_add_symbol (t, "p"), rhs = lhs, a, b;
  const guint depth = 2500;

  /* (g (g … c) c) against (g c (g c …)): one swap per level. */
  for (guint i = 0; i < depth; i++)
    {
      guint l[2] = { lhs, c }, r[2] = { c, rhs };
      lhs = prism_term_add_node (t, g, 2, l);
      rhs = prism_term_add_node (t, g, 2, r);
    }
  a = prism_egraph_add_term_node (eg, t, lhs);
  b = prism_egraph_add_term_node (eg, t, rhs);
  prism_runner_options_init (&options);
  options.max_iterations = 2;
  options.max_nodes = 0;
  options.time_limit_s = 0;
  prism_runner_run (eg, set, &options, NULL);
  g_assert_true (prism_egraph_equiv (eg, a, b));

  ex = prism_egraph_explain (eg, a, b, &error);
  g_assert_null (ex);
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_LIMIT);
  g_test_message ("%s", error->message);
}

/* input → neg → neg → … → output, @n negations. */
static PrismGraph *
neg_chain (guint n)
{
  g_autoptr(GError) error = NULL;
  PrismGraph *g = prism_graph_new ();
  gint64 dims[2] = { 4, 8 };
  int t = prism_graph_add_input (g, "X", 2, dims, PRISM_DTYPE_F32, &error);

  g_assert_no_error (error);
  for (guint i = 0; i < n; i++)
    {
      guint in = (guint) t;
      t = prism_graph_add (g, PRISM_OP_NEG, &in, 1, NULL, &error);
      g_assert_no_error (error);
    }
  prism_graph_add_output (g, (guint) t, "Y", &error);
  g_assert_no_error (error);
  return g;
}

static void
test_abstract_chain (void)
{
  g_autoptr(PrismGraph) g = neg_chain (DEPTH);
  g_autoptr(PrismTerm) term = NULL;
  g_autoptr(GArray) roots = NULL;
  g_autoptr(GError) error = NULL;
  guint root;

  term = prism_abstract_expr_of_outputs (g, PRISM_ABSTRACT_UNTILED, &roots, &error);
  g_assert_no_error (error);
  g_assert_nonnull (term);
  root = g_array_index (roots, guint, 0);
  /* v0 and one node per negation, added leaf first. */
  g_assert_cmpuint (prism_term_get_n_nodes (term), ==, DEPTH + 1);
  g_assert_cmpuint (root, ==, DEPTH);
  g_assert_cmpstr (prism_symbol_name (prism_term_node_get_op (term, root)), ==, "neg");
  g_assert_cmpuint (prism_term_node_tree_size (term, root), ==, DEPTH + 1);
}

/* The same depth inside a custom kernel's block graph, reached through the
 * kernel's output and read from a kernel input. */
static void
test_abstract_block_chain (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismGraph) g = prism_graph_new ();
  g_autoptr(PrismGraph) b = NULL;
  g_autoptr(PrismTerm) term = NULL;
  g_autoptr(GArray) roots = NULL;
  gint64 dims[2] = { 4, 8 }, grid[1] = { 1 };
  int rep[3] = { -1, -1, -1 };
  const PrismTensor *x;
  int in, t, k, out;
  guint kin;

  in = prism_graph_add_input (g, "X", 2, dims, PRISM_DTYPE_F32, &error);
  g_assert_no_error (error);
  x = prism_graph_tensor (g, (guint) in);
  b = prism_block_graph_new_const (1, grid, 128, 1);
  t = prism_block_graph_add_input (b, 0, 2, x->dims, x->dtype, rep, -1, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < DEPTH; i++)
    {
      guint u = (guint) t;
      t = prism_graph_add (b, PRISM_OP_NEG, &u, 1, NULL, &error);
      g_assert_no_error (error);
    }
  {
    guint u = (guint) t;
    t = prism_graph_add (b, PRISM_OP_ACCUM, &u, 1, NULL, &error);
    g_assert_no_error (error);
  }
  prism_block_graph_add_output (b, (guint) t, rep, &error);
  g_assert_no_error (error);
  kin = (guint) in;
  k = prism_graph_add_kernel (g, &kin, 1, b, &error);
  g_assert_no_error (error);
  out = (int) prism_graph_op (g, (guint) k)->outputs[0];
  prism_graph_add_output (g, (guint) out, "Y", &error);
  g_assert_no_error (error);

  term = prism_abstract_expr_of_outputs (g, PRISM_ABSTRACT_CONCRETE, &roots, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (prism_term_node_tree_size (term, g_array_index (roots, guint, 0)), ==, DEPTH + 1);
}

/* Every binary op with the chain as its second operand, and custom kernels
 * whose bodies read the chain: the walk follows dependencies across scopes
 * and operand positions. */
static void
test_abstract_mixed_chain (void)
{
  static const PrismOpKind kinds[] = { PRISM_OP_ADD, PRISM_OP_MUL, PRISM_OP_SUB, PRISM_OP_DIV,
                                       PRISM_OP_POW };
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismGraph) g = prism_graph_new ();
  g_autoptr(PrismTerm) term = NULL;
  g_autoptr(GArray) roots = NULL;
  gint64 dims[2] = { 4, 8 }, grid[1] = { 1 };
  int rep[3] = { -1, -1, -1 };
  int x, t;
  guint expected = 1;   /* v0 */

  x = prism_graph_add_input (g, "X", 2, dims, PRISM_DTYPE_F32, &error);
  g_assert_no_error (error);
  t = x;
  for (guint i = 0; i < DEPTH / 10; i++)
    {
      guint in[2] = { (guint) x, (guint) t };

      if (i % 20 == 19)
        {
          /* kernel (x, t): accum (x * t) */
          g_autoptr(PrismGraph) b = prism_block_graph_new_const (1, grid, 128, 1);
          const PrismTensor *xt = prism_graph_tensor (g, (guint) x);
          int bx = prism_block_graph_add_input (b, 0, 2, xt->dims, xt->dtype, rep, -1, &error);
          int bt = prism_block_graph_add_input (b, 1, 2, xt->dims, xt->dtype, rep, -1, &error);
          guint m[2] = { (guint) bx, (guint) bt };
          int k;

          g_assert_no_error (error);
          m[0] = (guint) prism_graph_add (b, PRISM_OP_MUL, m, 2, NULL, &error);
          m[0] = (guint) prism_graph_add (b, PRISM_OP_ACCUM, m, 1, NULL, &error);
          prism_block_graph_add_output (b, m[0], rep, &error);
          g_assert_no_error (error);
          k = prism_graph_add_kernel (g, in, 2, b, &error);
          g_assert_no_error (error);
          t = (int) prism_graph_op (g, (guint) k)->outputs[0];
          /* (* v0 t); the accumulation over a loop of 1 adds nothing. */
          expected++;
          continue;
        }
      t = prism_graph_add (g, kinds[i % G_N_ELEMENTS (kinds)], in, 2, NULL, &error);
      g_assert_no_error (error);
      /* sub is (+ x (neg t)) */
      expected += kinds[i % G_N_ELEMENTS (kinds)] == PRISM_OP_SUB ? 2 : 1;
    }
  prism_graph_add_output (g, (guint) t, "Y", &error);
  g_assert_no_error (error);

  term = prism_abstract_expr_of_outputs (g, PRISM_ABSTRACT_CONCRETE, &roots, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (prism_term_get_n_nodes (term), ==, expected);
  g_assert_cmpstr (prism_symbol_name (prism_term_node_get_op (term, g_array_index (roots, guint, 0))), ==, "*");
}

/* The oracle saturates a deep reference (within its limits) and finds the
 * reference's own output in it. */
static void
test_oracle_chain (void)
{
  g_autoptr(PrismGraph) g = neg_chain (DEPTH);
  g_autoptr(PrismOracle) oracle = NULL;
  g_autoptr(GError) error = NULL;
  PrismOracleOptions options;
  g_autoptr(GArray) outputs = prism_graph_get_outputs (g);

  prism_oracle_options_init (&options);
  options.max_iterations = 1;
  options.max_nodes = 4 * DEPTH;
  oracle = prism_oracle_new_full (g, &options, &error);
  g_assert_no_error (error);
  g_assert_true (prism_oracle_check (oracle, g, NULL, NULL, g_array_index (outputs, guint, 0)));
}

/* Every output expression, as a string and node by node (the order nodes
 * were added in), or the error. */
static char *
expressions (const PrismGraph *g, PrismAbstractMode mode)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) roots = NULL;
  g_autoptr(PrismTerm) term = prism_abstract_expr_of_outputs (g, mode, &roots, &error);
  GString *out = g_string_new (NULL);

  if (term == NULL)
    {
      g_string_append_printf (out, "error: %s", error->message);
      return g_string_free (out, FALSE);
    }
  for (guint i = 0; i < prism_term_get_n_nodes (term); i++)
    {
      g_autofree char *node = prism_term_node_to_string (term, i);
      g_string_append_printf (out, "%u: %s\n", i, node);
    }
  for (guint i = 0; i < roots->len; i++)
    g_string_append_printf (out, "root %u\n", g_array_index (roots, guint, i));
  return g_string_free (out, FALSE);
}

/* The oracle's answer for every tensor of @g, both levels. */
static char *
answers (PrismOracle *oracle, const PrismGraph *g)
{
  GString *out = g_string_new (NULL);

  for (guint t = 0; t < g->tensors->len; t++)
    g_string_append_c (out, prism_oracle_check (oracle, g, NULL, NULL, t) ? '1' : '0');
  for (guint i = 0; i < g->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (g, i);

      if (op->body == NULL)
        continue;
      g_string_append_c (out, '/');
      for (guint t = 0; t < op->body->tensors->len; t++)
        g_string_append_c (out, prism_oracle_check (oracle, g, op->body, op->inputs, t) ? '1' : '0');
    }
  return g_string_free (out, FALSE);
}

/* The explicit stack (used past the recursion limit) and the recursion
 * build the same terms, node for node, and give the oracle the same
 * answers, on every workload's program and fused graph. */
static void
test_walk_equals_recursion (void)
{
  static const PrismAbstractMode modes[] = { PRISM_ABSTRACT_UNTILED, PRISM_ABSTRACT_CONCRETE };
  guint n;
  const PrismWorkloadInfo *list = prism_workload_list (&n);

  for (guint i = 0; i < n; i++)
    for (guint fused = 0; fused < 2; fused++)
      {
        g_autoptr(GError) error = NULL;
        g_autoptr(PrismGraph) g = fused ? prism_workload_build_reference (list[i].name, NULL, &error)
                                        : prism_workload_build (list[i].name, NULL, &error);
        g_autoptr(PrismGraph) program = prism_workload_build (list[i].name, NULL, &error);
        g_autoptr(PrismOracle) oracle = NULL;
        g_autofree char *rec_answers = NULL, *walk_answers = NULL;

        g_assert_no_error (error);
        for (guint m = 0; m < G_N_ELEMENTS (modes); m++)
          {
            g_autofree char *rec = NULL, *walked = NULL;

            prism_abstract_set_max_recursion (PRISM_ABSTRACT_WALK_STACK_SLOTS);
            rec = expressions (g, modes[m]);
            prism_abstract_set_max_recursion (0);
            walked = expressions (g, modes[m]);
            prism_abstract_set_max_recursion (PRISM_ABSTRACT_WALK_STACK_SLOTS);
            g_assert_cmpstr (walked, ==, rec);
          }
        oracle = prism_oracle_new (program, &error);
        g_assert_no_error (error);
        rec_answers = answers (oracle, g);
        prism_abstract_set_max_recursion (0);
        walk_answers = answers (oracle, g);
        prism_abstract_set_max_recursion (PRISM_ABSTRACT_WALK_STACK_SLOTS);
        g_assert_cmpstr (walk_answers, ==, rec_answers);
        g_assert_nonnull (strchr (rec_answers, '1'));
      }
}

/* The e-matcher recurses once per pattern node: patterns are bounded. */
static void
test_pattern_too_big (void)
{
  g_autoptr(GString) text = g_string_new ("(f");
  g_autoptr(PrismPattern) pattern = NULL;
  g_autoptr(PrismPattern) small = NULL;
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < 2 * PRISM_PATTERN_MAX_NODES; i++)
    g_string_append (text, " ?a");
  g_string_append_c (text, ')');
  pattern = prism_pattern_parse (text->str, &error);
  g_assert_null (pattern);
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_PARSE);
  g_assert_nonnull (strstr (error->message, "more than"));
  g_clear_error (&error);
  small = prism_pattern_parse ("(f ?a (g ?b 2))", &error);
  g_assert_no_error (error);
  g_assert_nonnull (small);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/deep/term-chain", test_term_chain);
  g_test_add_func ("/deep/term-shared", test_term_shared);
  g_test_add_func ("/deep/egraph-chain", test_egraph_chain);
  g_test_add_func ("/deep/explain-congruence", test_explain_deep_congruence);
  g_test_add_func ("/deep/explain-fold", test_explain_deep_fold);
  g_test_add_func ("/deep/explain-too-big", test_explain_too_big);
  g_test_add_func ("/deep/abstract-chain", test_abstract_chain);
  g_test_add_func ("/deep/abstract-block-chain", test_abstract_block_chain);
  g_test_add_func ("/deep/abstract-mixed-chain", test_abstract_mixed_chain);
  g_test_add_func ("/deep/oracle-chain", test_oracle_chain);
  g_test_add_func ("/deep/walk-equals-recursion", test_walk_equals_recursion);
  g_test_add_func ("/deep/pattern-too-big", test_pattern_too_big);
  return g_test_run ();
}
