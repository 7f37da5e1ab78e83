/* test-rewrite.c — rules, the saturation runner and explanations
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "prism-egraph.h"
#include "prism-error.h"
#include "prism-explain.h"
#include "prism-rewrite.h"
#include "prism-runner.h"

static guint
add (PrismEgraph *eg, const char *text)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismTerm) t = prism_term_parse (text, &error);

  g_assert_no_error (error);
  return prism_egraph_add_term (eg, t);
}

static PrismRuleSet *
rules_from (const char *text)
{
  g_autoptr(GError) error = NULL;
  PrismRuleSet *set = prism_rule_set_new ();

  prism_rule_set_add_from_string (set, text, "test", &error);
  g_assert_no_error (error);
  return set;
}

static PrismRuleSet *
arith_rules (void)
{
  g_autoptr(GError) error = NULL;
  PrismRuleSet *set = prism_rule_set_new ();

  g_assert_true (prism_rule_set_add_builtin (set, "arith", &error));
  g_assert_no_error (error);
  return set;
}

/* (+ v0 (+ v1 (+ … v{n-1}))) */
static char *
sum_chain (const char *op, const char *prefix, guint n)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i + 1 < n; i++)
    g_string_append_printf (s, "(%s %s%u ", op, prefix, i);
  g_string_append_printf (s, "%s%u", prefix, n - 1);
  for (guint i = 0; i + 1 < n; i++)
    g_string_append_c (s, ')');
  return g_string_free (s, FALSE);
}

/* ------------------------------------------------------------------------ */
/* Parsing */

static void
test_parse_rules (void)
{
  g_autoptr(PrismRuleSet) set = rules_from (
    "# a comment line\n"
    "\n"
    "comm-add: (+ ?a ?b) => (+ ?b ?a)   # trailing comment\n"
    "  assoc_add.1 : (+ ?a (+ ?b ?c)) <=> (+ (+ ?a ?b) ?c)\n"
    "mul-one: (* ?x 1) => ?x\n"
    "cond: (f ?x ?y) => (g ?y) if is_distinct(?x, ?y) and !is_const(?x) && is_equal(?y, data_dim0)\n");
  const PrismRule *r;
  g_autofree char *s = NULL;

  g_assert_cmpuint (prism_rule_set_get_n_rules (set), ==, 4);
  r = prism_rule_set_get_rule (set, 1);
  g_assert_cmpstr (prism_rule_get_name (r), ==, "assoc_add.1");
  g_assert_true (prism_rule_is_bidirectional (r));
  g_assert_cmpuint (prism_rule_get_n_vars (r), ==, 3);
  g_assert_true (prism_rule_set_lookup (set, "mul-one") == prism_rule_set_get_rule (set, 2));
  g_assert_null (prism_rule_set_lookup (set, "nope"));
  g_assert_cmpstr (prism_symbol_name (prism_rule_get_var_symbol (r, 2)), ==, "?c");

  r = prism_rule_set_lookup (set, "cond");
  g_assert_cmpuint (prism_rule_get_n_conditions (r), ==, 3);
  s = prism_rule_to_string (r);
  g_assert_cmpstr (s, ==, "cond: (f ?x ?y) => (g ?y) if is_distinct(?x, ?y) and !is_const(?x) and is_equal(?y, data_dim0)");

  /* The printed form parses back to the same rule. */
  {
    g_autoptr(PrismRuleSet) again = prism_rule_set_new ();
    g_autoptr(GError) error = NULL;
    g_autofree char *s2 = NULL;

    g_assert_true (prism_rule_set_add_from_string (again, s, NULL, &error));
    s2 = prism_rule_to_string (prism_rule_set_get_rule (again, 0));
    g_assert_cmpstr (s2, ==, s);
  }
}

static void
check_rule_error (const char *text, const char *expected)
{
  g_autoptr(PrismRuleSet) set = prism_rule_set_new ();
  g_autoptr(GError) error = NULL;

  prism_rule_set_add_from_string (set, "ok: (f ?x) => (g ?x)\n", "file.rules", &error);
  g_assert_no_error (error);
  g_assert_false (prism_rule_set_add_from_string (set, text, "file.rules", &error));
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_PARSE);
  if (strstr (error->message, expected) == NULL)
    g_error ("rules '%s': message '%s' lacks '%s'", text, error->message, expected);
  /* Nothing of a failed text is added. */
  g_assert_cmpuint (prism_rule_set_get_n_rules (set), ==, 1);
}

static void
test_rule_errors (void)
{
  check_rule_error ("good: (h ?x) => ?x\n(f ?x) => ?x\n",
                    "file.rules:2:1: expected 'name: lhs => rhs'");
  check_rule_error ("bad name: (f ?x) => ?x", "file.rules:1:1: 'bad name' is not a valid rule name");
  check_rule_error ("ok: (f ?x) => (h ?x)", "file.rules:1:1: rule 'ok': a rule with this name already exists");
  check_rule_error ("a: (f ?x) => ?x\na: (g ?x) => ?x", "file.rules:2:1: rule 'a': a rule with this name already exists");
  check_rule_error ("r: (f ?x) -> ?x", "file.rules:1:11: rule 'r': expected '=>' or '<=>' after the left-hand side, found '->'");
  check_rule_error ("r: (f ?x) => (g ?y)", "rule 'r': variable ?y of the right-hand side is not bound by the left-hand side");
  check_rule_error ("r: (f ?x ?y) <=> (g ?x)", "variable ?y of the left-hand side is not bound by the right-hand side");
  check_rule_error ("r: ?x => (g ?x)", "file.rules:1:4: rule 'r': the left-hand side must not be a bare variable");
  check_rule_error ("r: (f ?x) <=> ?x", "with '<=>' the right-hand side must not be a bare variable");
  check_rule_error ("r: (f ?x) => ?x if frobnicate(?x)",
                    "file.rules:1:20: rule 'r': unknown condition 'frobnicate' (known: is_distinct, is_equal, is_const, is_symbol)");
  check_rule_error ("r: (f ?x) => ?x if is_const(?x, ?x)", "condition 'is_const' takes 1 argument, not 2");
  check_rule_error ("r: (f ?x) => ?x if is_const(?z)", "variable ?z of condition 'is_const' is not bound");
  check_rule_error ("r: (f ?x) => ?x if is_const(?x", "condition 'is_const' is missing its ')'");
  check_rule_error ("r: (f ?x) => ?x extra", "unexpected 'extra' at the end of the rule");
  check_rule_error ("r: (f ?x => ?x", "file.rules:1:4: rule 'r': '(' is never closed");
  check_rule_error ("r:", "the rule is empty after ':'");
  check_rule_error ("constant-fold: (f ?x) => ?x", "reserved");
}

static void
test_builtin_rules (void)
{
  g_autoptr(PrismRuleSet) set = arith_rules ();
  g_autoptr(GError) error = NULL;
  const char * const *names = prism_builtin_rules_list ();

  g_assert_cmpuint (prism_rule_set_get_n_rules (set), ==, 4);
  g_assert_nonnull (prism_rule_set_lookup (set, "assoc-mul"));
  g_assert_true (g_strv_contains (names, "arith"));
  g_assert_null (prism_builtin_rules_get ("no-such-file"));
  g_assert_false (prism_rule_set_add_builtin (set, "no-such-file", &error));
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_FAILED);
}

/* ------------------------------------------------------------------------ */
/* Runner: each stop reason */

static void
test_stop_saturated (void)
{
  g_autoptr(PrismRuleSet) set = arith_rules ();

  /* Sums of n distinct leaves under comm/assoc saturate to one class per
   * non-empty subset (2^n - 1) and, per subset S with |S| ≥ 2, one e-node per
   * ordered split into two non-empty parts (2^|S| - 2): 3^n - 2^(n+1) + 1
   * operator nodes plus n leaves. */
  for (guint n = 2; n <= 6; n++)
    {
      g_autoptr(PrismEgraph) eg = prism_egraph_new (PRISM_EGRAPH_FLAGS_NONE);
      g_autofree char *text = sum_chain ("+", "v", n);
      PrismRunReport report;
      guint expect_nodes = 1 + n, pow3 = 1;

      for (guint i = 0; i < n; i++)
        pow3 *= 3;
      expect_nodes += pow3 - (2u << n);
      add (eg, text);
      g_assert_cmpint (prism_runner_run (eg, set, NULL, &report), ==, PRISM_STOP_SATURATED);
      g_assert_cmpint (report.stop_reason, ==, PRISM_STOP_SATURATED);
      g_assert_cmpuint (prism_egraph_get_n_classes (eg), ==, (1u << n) - 1);
      g_assert_cmpuint (prism_egraph_get_n_nodes (eg), ==, expect_nodes);
      g_assert_cmpuint (report.n_nodes, ==, expect_nodes);
      g_assert_cmpuint (report.n_classes, ==, (1u << n) - 1);
      g_assert_true (prism_egraph_is_clean (eg));
      g_assert_cmpstr (prism_stop_reason_to_string (report.stop_reason), ==, "saturated");
    }
}

static void
test_stop_saturated_at_iteration_limit (void)
{
  g_autoptr(PrismRuleSet) set = rules_from ("comm: (+ ?a ?b) => (+ ?b ?a)");
  g_autoptr(PrismEgraph) eg = prism_egraph_new (PRISM_EGRAPH_FLAGS_NONE);
  PrismRunnerOptions options;
  PrismRunReport report;

  prism_runner_options_init (&options);
  /* Iteration 1 adds (+ b a); iteration 2 changes nothing: saturated, even
   * though it is also the last iteration allowed. */
  options.max_iterations = 2;
  add (eg, "(+ a b)");
  g_assert_cmpint (prism_runner_run (eg, set, &options, &report), ==, PRISM_STOP_SATURATED);
  g_assert_cmpuint (report.iterations, ==, 2);
  g_assert_cmpuint (report.n_applied, ==, 1);

  options.max_iterations = 1;
  {
    g_autoptr(PrismEgraph) eg1 = prism_egraph_new (PRISM_EGRAPH_FLAGS_NONE);
    add (eg1, "(+ a b)");
    g_assert_cmpint (prism_runner_run (eg1, set, &options, &report), ==, PRISM_STOP_ITERATION_LIMIT);
    g_assert_cmpuint (report.iterations, ==, 1);
  }
}

/* Never saturates: every iteration adds one (f (g … x)) level. */
#define GROW_RULES "grow: (f ?x) => (f (g ?x))"

static void
test_stop_node_limit (void)
{
  g_autoptr(PrismRuleSet) set = rules_from (GROW_RULES);
  g_autoptr(PrismRuleSet) explode = arith_rules ();
  PrismRunnerOptions options;
  PrismRunReport report;

  prism_runner_options_init (&options);
  options.max_iterations = 0;
  options.time_limit_s = 0;
  options.max_nodes = 50;
  {
    g_autoptr(PrismEgraph) eg = prism_egraph_new (PRISM_EGRAPH_FLAGS_NONE);
    add (eg, "(f x)");
    g_assert_cmpint (prism_runner_run (eg, set, &options, &report), ==, PRISM_STOP_NODE_LIMIT);
    g_assert_cmpuint (report.n_nodes, >, 50);
    /* Checked after every application (one application adds ≤ 2 nodes). */
    g_assert_cmpuint (report.n_nodes, <=, 52);
    g_assert_cmpstr (prism_stop_reason_to_string (report.stop_reason), ==, "node limit");
  }
  /* Comm/assoc over 12 leaves would need 3^12 nodes. */
  options.max_nodes = 5000;
  {
    g_autoptr(PrismEgraph) eg = prism_egraph_new (PRISM_EGRAPH_FLAGS_NONE);
    g_autofree char *text = sum_chain ("*", "w", 12);
    add (eg, text);
    g_assert_cmpint (prism_runner_run (eg, explode, &options, &report), ==, PRISM_STOP_NODE_LIMIT);
    /* The final rebuild may merge congruent e-nodes of the interrupted
     * iteration, so the count can end just below the limit. */
    g_assert_cmpuint (report.n_nodes, <=, 5002);
    g_assert_true (prism_egraph_is_clean (eg));
  }
}

static void
test_stop_iteration_limit (void)
{
  g_autoptr(PrismRuleSet) set = rules_from (GROW_RULES);
  g_autoptr(PrismEgraph) eg = prism_egraph_new (PRISM_EGRAPH_FLAGS_NONE);
  PrismRunnerOptions options;
  PrismRunReport report;

  prism_runner_options_init (&options);
  options.max_iterations = 7;
  options.max_nodes = 0;
  options.time_limit_s = 0;
  add (eg, "(f x)");
  g_assert_cmpint (prism_runner_run (eg, set, &options, &report), ==, PRISM_STOP_ITERATION_LIMIT);
  g_assert_cmpuint (report.iterations, ==, 7);
  /* x, (f x), and per iteration one new g and one new f. */
  g_assert_cmpuint (report.n_nodes, ==, 2 + 2 * 7);
  g_assert_cmpstr (prism_stop_reason_to_string (report.stop_reason), ==, "iteration limit");
}

static void
test_stop_time_limit (void)
{
  g_autoptr(PrismRuleSet) set = arith_rules ();
  g_autoptr(PrismEgraph) eg = prism_egraph_new (PRISM_EGRAPH_FLAGS_NONE);
  g_autofree char *text = sum_chain ("+", "t", 14);
  PrismRunnerOptions options;
  PrismRunReport report;

  prism_runner_options_init (&options);
  options.max_iterations = 0;
  options.max_nodes = 0;
  options.time_limit_s = 0.02;
  add (eg, text);
  g_assert_cmpint (prism_runner_run (eg, set, &options, &report), ==, PRISM_STOP_TIME_LIMIT);
  g_assert_cmpstr (prism_stop_reason_to_string (report.stop_reason), ==, "time limit");
  g_assert_true (prism_egraph_is_clean (eg));

  /* A limit that has passed before the first iteration. */
  {
    g_autoptr(PrismEgraph) eg2 = prism_egraph_new (PRISM_EGRAPH_FLAGS_NONE);
    options.time_limit_s = 1e-9;
    add (eg2, "(+ a b)");
    g_assert_cmpint (prism_runner_run (eg2, set, &options, &report), ==, PRISM_STOP_TIME_LIMIT);
  }
}

static void
test_backoff_scheduler (void)
{
  g_autoptr(PrismRuleSet) set = arith_rules ();
  g_autoptr(PrismEgraph) plain = prism_egraph_new (PRISM_EGRAPH_FLAGS_NONE);
  g_autoptr(PrismEgraph) backoff = prism_egraph_new (PRISM_EGRAPH_FLAGS_NONE);
  g_autofree char *text = sum_chain ("+", "v", 6);
  PrismRunnerOptions options;
  PrismRunReport r1, r2;

  prism_runner_options_init (&options);
  options.max_iterations = 1000;
  add (plain, text);
  add (backoff, text);
  g_assert_cmpint (prism_runner_run (plain, set, &options, &r1), ==, PRISM_STOP_SATURATED);
  options.match_limit = 8;
  options.ban_length = 1;
  /* Bans delay rules but saturation is only claimed once nothing is banned,
   * so the result is the same e-graph size, in more iterations. */
  g_assert_cmpint (prism_runner_run (backoff, set, &options, &r2), ==, PRISM_STOP_SATURATED);
  g_assert_cmpuint (r2.n_nodes, ==, r1.n_nodes);
  g_assert_cmpuint (r2.n_classes, ==, r1.n_classes);
  g_assert_cmpuint (r2.iterations, >, r1.iterations);
}

/* ------------------------------------------------------------------------ */
/* Conditions and analysis in rules */

static gboolean
cond_is_small (const PrismEgraph *eg, const PrismCondArg *args, guint n_args, gpointer user_data)
{
  gint64 limit = *(const gint64 *) user_data;
  gint64 v;

  return args[0].kind == PRISM_COND_ARG_CLASS
         && prism_egraph_get_const (eg, args[0].class_id, &v) && v < limit;
}

static void
test_conditional_rules (void)
{
  static const gint64 limit = 10;
  g_autoptr(PrismRuleSet) set = prism_rule_set_new ();
  g_autoptr(PrismEgraph) eg = prism_egraph_new (PRISM_EGRAPH_FLAGS_NONE);
  g_autoptr(GError) error = NULL;
  guint faa, fab, h3, h30, hx, dd0, dd1;

  prism_rule_set_register_condition (set, "is_small", 1, cond_is_small, (gpointer) &limit, NULL);
  prism_rule_set_add_from_string (set,
    "distinct: (f ?x ?y) => (g ?x ?y) if is_distinct(?x, ?y)\n"
    "small: (h ?x) => (k ?x) if is_small(?x)\n"
    "not-const: (h ?x) => (m ?x) if !is_const(?x)\n"
    "datadim: (part ?t ?d) => (other ?t) if is_equal(?d, data_dim0)\n",
    NULL, &error);
  g_assert_no_error (error);
  faa = add (eg, "(f a a)");
  fab = add (eg, "(f a b)");
  h3 = add (eg, "(h (+ 1 2))");
  h30 = add (eg, "(h 30)");
  hx = add (eg, "(h x)");
  dd0 = add (eg, "(part t data_dim0)");
  dd1 = add (eg, "(part t data_dim1)");
  g_assert_cmpint (prism_runner_run (eg, set, NULL, NULL), ==, PRISM_STOP_SATURATED);

  g_assert_true (prism_egraph_equiv (eg, fab, add (eg, "(g a b)")));
  prism_egraph_rebuild (eg);
  {
    g_autoptr(PrismTerm) gaa = prism_term_parse ("(g a a)", NULL);
    g_assert_cmpint (prism_egraph_lookup_term (eg, gaa), ==, PRISM_EGRAPH_NONE);
  }
  g_assert_false (prism_egraph_equiv (eg, faa, fab));
  /* (+ 1 2) folds to 3, which is small; 30 is not. */
  g_assert_true (prism_egraph_equiv (eg, h3, add (eg, "(k 3)")));
  prism_egraph_rebuild (eg);
  {
    g_autoptr(PrismTerm) k30 = prism_term_parse ("(k 30)", NULL);
    g_autoptr(PrismTerm) m30 = prism_term_parse ("(m 30)", NULL);
    g_autoptr(PrismTerm) mx = prism_term_parse ("(m x)", NULL);
    g_autoptr(PrismTerm) o = prism_term_parse ("(other t)", NULL);

    g_assert_cmpint (prism_egraph_lookup_term (eg, k30), ==, PRISM_EGRAPH_NONE);
    g_assert_cmpint (prism_egraph_lookup_term (eg, m30), ==, PRISM_EGRAPH_NONE);
    g_assert_cmpint (prism_egraph_lookup_term (eg, mx), ==, (gint) prism_egraph_find (eg, hx));
    g_assert_cmpint (prism_egraph_lookup_term (eg, o), ==, (gint) prism_egraph_find (eg, dd0));
    g_assert_false (prism_egraph_equiv (eg, dd0, dd1));
  }
  g_assert_false (prism_egraph_equiv (eg, h30, h3));
}

static void
test_rules_see_constants (void)
{
  g_autoptr(PrismRuleSet) set = rules_from ("six: (f 6) => yes\n"
                                            "split: (sum ?n ?x) => (sum 2 (sum (dim_div ?n 2) ?x)) if is_const(?n)\n");
  g_autoptr(PrismEgraph) eg = prism_egraph_new (PRISM_EGRAPH_FLAGS_NONE);
  PrismRunnerOptions options;
  guint f, s;

  prism_runner_options_init (&options);
  options.max_iterations = 4;
  f = add (eg, "(f (* 2 3))");
  s = add (eg, "(sum 8 x)");
  prism_runner_run (eg, set, &options, NULL);
  g_assert_true (prism_egraph_equiv (eg, f, add (eg, "yes")));
  /* (dim_div 8 2) folds to 4, so (sum 8 x) = (sum 2 (sum 2 (sum 2 x))). */
  g_assert_true (prism_egraph_equiv (eg, s, add (eg, "(sum 2 (sum 2 (sum 2 x)))")));
}

/* ------------------------------------------------------------------------ */
/* Determinism */

static char *
run_and_describe (const char *prefix, gboolean reverse_interning)
{
  g_autoptr(PrismRuleSet) set = arith_rules ();
  g_autoptr(PrismEgraph) eg = prism_egraph_new (PRISM_EGRAPH_EXPLAIN);
  g_autoptr(PrismExplanation) expl = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_autofree char *dump = NULL;
  g_autofree char *proof = NULL;
  g_autofree char *target = NULL;
  char *out;
  guint a, b;

  /* Intern the leaf names first, in one order or the other, so that the
   * symbols' numeric values differ between the two runs. */
  for (guint k = 0; k < 5; k++)
    {
      guint i = reverse_interning ? 4 - k : k;
      g_autofree char *name = g_strdup_printf ("%s%u", prefix, i);
      prism_symbol_intern (name);
    }
  text = g_strdup_printf ("(+ %s0 (* %s1 (+ %s2 (* %s3 %s4))))", prefix, prefix, prefix, prefix, prefix);
  a = add (eg, text);
  prism_runner_run (eg, set, NULL, NULL);
  target = g_strdup_printf ("(+ (* (+ (* %s4 %s3) %s2) %s1) %s0)", prefix, prefix, prefix, prefix, prefix);
  b = add (eg, target);
  prism_egraph_rebuild (eg);
  g_assert_true (prism_egraph_equiv (eg, a, b));
  expl = prism_egraph_explain (eg, a, b, &error);
  g_assert_no_error (error);
  dump = prism_egraph_dump (eg);
  proof = prism_explanation_to_string (expl);
  out = g_strdup_printf ("ids %u %u class %u\n%s\n%s", a, b, prism_egraph_find (eg, a), dump, proof);
  /* Compare runs with different names by writing the prefix as "V". */
  {
    g_auto(GStrv) parts = g_strsplit (out, prefix, -1);
    g_free (out);
    out = g_strjoinv ("V", parts);
  }
  return out;
}

static void
test_determinism (void)
{
  g_autofree char *r1 = run_and_describe ("detA", FALSE);
  g_autofree char *r2 = run_and_describe ("detA", FALSE);
  g_autofree char *r3 = run_and_describe ("detB", TRUE);

  g_assert_cmpstr (r1, ==, r2);
  /* Symbol values play no part in ids, matches or explanations. */
  g_assert_cmpstr (r1, ==, r3);
}

/* ------------------------------------------------------------------------ */
/* Explanations */

/* An independent replay: @after must be @before with one subterm that
 * matches one side of @rule replaced by the other side's instance. */
static gboolean
replay_rec (const PrismRule *rule, gboolean backward, const PrismTerm *t, guint b, guint a)
{
  const PrismPattern *from = backward ? prism_rule_get_rhs (rule) : prism_rule_get_lhs (rule);
  const PrismPattern *to = backward ? prism_rule_get_lhs (rule) : prism_rule_get_rhs (rule);
  guint subst[16];
  g_autoptr(PrismTerm) scratch = prism_term_copy (t);
  guint n;

  g_assert_cmpuint (prism_rule_get_n_vars (rule), <=, G_N_ELEMENTS (subst));
  if (prism_pattern_match_term (from, t, b, subst))
    {
      guint inst = prism_pattern_instantiate (to, scratch, t, subst);

      if (inst != G_MAXUINT && prism_term_node_equal (scratch, inst, t, a))
        return TRUE;
    }
  if (prism_term_node_get_op (t, b) != prism_term_node_get_op (t, a))
    return FALSE;
  n = prism_term_node_get_n_children (t, b);
  if (n != prism_term_node_get_n_children (t, a))
    return FALSE;
  for (guint i = 0; i < n; i++)
    {
      guint cb = prism_term_node_get_child (t, b, i);
      guint ca = prism_term_node_get_child (t, a, i);
      gboolean others_equal = TRUE;

      for (guint j = 0; j < n; j++)
        if (j != i && prism_term_node_get_child (t, b, j) != prism_term_node_get_child (t, a, j))
          others_equal = FALSE;
      if (others_equal && cb != ca && replay_rec (rule, backward, t, cb, ca))
        return TRUE;
    }
  return FALSE;
}

static void
assert_explanation_valid (const PrismExplanation *expl, const PrismRuleSet *set)
{
  g_autoptr(GError) error = NULL;
  const PrismTerm *t = prism_explanation_get_terms (expl);

  for (guint i = 0; i < prism_explanation_get_length (expl); i++)
    {
      const char *name = prism_explanation_get_rule (expl, i);
      const PrismRule *rule = prism_rule_set_lookup (set, name);

      g_assert_nonnull (rule);
      if (!replay_rec (rule, prism_explanation_get_backward (expl, i), t,
                       prism_explanation_get_term (expl, i), prism_explanation_get_term (expl, i + 1)))
        {
          g_autofree char *s = prism_explanation_to_string (expl);
          g_error ("step %u (%s) does not replay:\n%s", i + 1, name, s);
        }
    }
  g_assert_true (prism_explanation_check (expl, set, prism_fold_arith, NULL, &error));
  g_assert_no_error (error);
}

static void
test_explain_assoc_comm (void)
{
  g_autoptr(PrismRuleSet) set = arith_rules ();
  g_autoptr(PrismEgraph) eg = prism_egraph_new (PRISM_EGRAPH_EXPLAIN);
  g_autoptr(PrismExplanation) expl = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) used = NULL;
  g_autofree char *first = NULL;
  g_autofree char *last = NULL;
  g_autofree char *printed = NULL;
  guint a, b;

  a = add (eg, "(* (* a b) c)");
  g_assert_cmpint (prism_runner_run (eg, set, NULL, NULL), ==, PRISM_STOP_SATURATED);
  b = add (eg, "(* (* c b) a)");
  prism_egraph_rebuild (eg);
  g_assert_true (prism_egraph_equiv (eg, a, b));

  expl = prism_egraph_explain (eg, a, b, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (prism_explanation_get_length (expl), >=, 2);
  first = prism_term_node_to_string (prism_explanation_get_terms (expl), prism_explanation_get_term (expl, 0));
  last = prism_term_node_to_string (prism_explanation_get_terms (expl),
                                    prism_explanation_get_term (expl, prism_explanation_get_length (expl)));
  g_assert_cmpstr (first, ==, "(* (* a b) c)");
  g_assert_cmpstr (last, ==, "(* (* c b) a)");
  used = prism_explanation_get_rules_used (expl);
  g_assert_cmpuint (used->len, ==, prism_explanation_get_length (expl));
  for (guint i = 0; i < used->len; i++)
    g_assert_true (g_str_equal (g_ptr_array_index (used, i), "comm-mul")
                   || g_str_equal (g_ptr_array_index (used, i), "assoc-mul"));
  assert_explanation_valid (expl, set);

  printed = prism_explanation_to_string (expl);
  g_assert_true (g_str_has_prefix (printed, "(* (* a b) c)\n  = "));
  g_assert_nonnull (strstr (printed, "(* (* c b) a)    ["));
  g_test_message ("%s", printed);

  /* Every step carries its substitution. */
  for (guint i = 0; i < prism_explanation_get_length (expl); i++)
    {
      g_autofree char *subst = prism_explanation_get_subst (expl, i);
      g_assert_true (g_str_has_prefix (subst, "?a = "));
    }

  /* The reverse direction is a valid proof too. */
  {
    g_autoptr(PrismExplanation) back = prism_egraph_explain (eg, b, a, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (prism_explanation_get_length (back), ==, prism_explanation_get_length (expl));
    assert_explanation_valid (back, set);
  }
}

static void
test_explain_larger (void)
{
  g_autoptr(PrismRuleSet) set = arith_rules ();
  g_autoptr(PrismEgraph) eg = prism_egraph_new (PRISM_EGRAPH_EXPLAIN);
  g_autofree char *text = sum_chain ("+", "e", 6);
  guint a, b;

  a = add (eg, text);
  g_assert_cmpint (prism_runner_run (eg, set, NULL, NULL), ==, PRISM_STOP_SATURATED);
  b = add (eg, "(+ (+ (+ e5 e3) (+ e1 e4)) (+ e0 e2))");
  prism_egraph_rebuild (eg);
  g_assert_true (prism_egraph_equiv (eg, a, b));
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(PrismExplanation) expl = prism_egraph_explain (eg, a, b, &error);

    g_assert_no_error (error);
    assert_explanation_valid (expl, set);
  }
  /* The explaining e-graph has the same classes as a plain one. */
  {
    g_autoptr(PrismEgraph) plain = prism_egraph_new (PRISM_EGRAPH_FLAGS_NONE);
    add (plain, text);
    prism_runner_run (plain, set, NULL, NULL);
    g_assert_cmpuint (prism_egraph_get_n_classes (plain), ==, prism_egraph_get_n_classes (eg));
    g_assert_cmpuint (prism_egraph_get_n_nodes (plain), ==, prism_egraph_get_n_nodes (eg));
  }
}

static void
test_explain_congruence_and_given (void)
{
  g_autoptr(PrismRuleSet) set = rules_from ("comm: (+ ?a ?b) => (+ ?b ?a)");
  g_autoptr(PrismEgraph) eg = prism_egraph_new (PRISM_EGRAPH_EXPLAIN);
  g_autoptr(PrismExplanation) expl = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *s = NULL;
  guint a, b, x, y;

  a = add (eg, "(g (f (+ p q)) r)");
  x = add (eg, "r");
  y = add (eg, "s");
  prism_runner_run (eg, set, NULL, NULL);
  prism_egraph_union (eg, x, y, "r-is-s");
  b = add (eg, "(g (f (+ q p)) s)");
  prism_egraph_rebuild (eg);
  g_assert_true (prism_egraph_equiv (eg, a, b));
  expl = prism_egraph_explain (eg, a, b, &error);
  g_assert_no_error (error);
  s = prism_explanation_to_string (expl);
  /* Each rewrite happens in context; the given reason is a step. */
  g_assert_cmpstr (s, ==,
                   "(g (f (+ p q)) r)\n"
                   "  = (g (f (+ q p)) r)    [comm]\n"
                   "  = (g (f (+ q p)) s)    [r-is-s]\n");
  /* A reason that is not a rule cannot be replayed. */
  g_assert_false (prism_explanation_check (expl, set, NULL, NULL, &error));
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_FAILED);
  g_assert_nonnull (strstr (error->message, "'r-is-s', which is not a rule"));
}

static void
test_explain_constant_fold (void)
{
  g_autoptr(PrismRuleSet) set = rules_from ("comm: (* ?a ?b) => (* ?b ?a)");
  g_autoptr(PrismEgraph) eg = prism_egraph_new (PRISM_EGRAPH_EXPLAIN);
  g_autoptr(PrismExplanation) expl = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *s = NULL;
  guint a, b;

  a = add (eg, "(* (+ 1 2) y)");
  prism_runner_run (eg, set, NULL, NULL);
  b = add (eg, "(* y 3)");
  prism_egraph_rebuild (eg);
  g_assert_true (prism_egraph_equiv (eg, a, b));
  expl = prism_egraph_explain (eg, a, b, &error);
  g_assert_no_error (error);
  s = prism_explanation_to_string (expl);
  g_test_message ("%s", s);
  g_assert_nonnull (strstr (s, "[constant-fold"));
  g_assert_true (prism_explanation_check (expl, set, prism_fold_arith, NULL, &error));
  g_assert_no_error (error);
  /* Without a fold function the fold step cannot be checked. */
  g_assert_false (prism_explanation_check (expl, set, NULL, NULL, NULL));
}

static void
test_check_step_rejects (void)
{
  g_autoptr(PrismRuleSet) set = arith_rules ();
  const PrismRule *comm = prism_rule_set_lookup (set, "comm-mul");
  const PrismRule *assoc = prism_rule_set_lookup (set, "assoc-mul");
  g_autoptr(PrismTerm) t = prism_term_new ();
  guint ab, ba, ac, nested, nested2, two;

  prism_term_parse_into (t, "(* a b)", &ab, NULL);
  prism_term_parse_into (t, "(* b a)", &ba, NULL);
  prism_term_parse_into (t, "(* a c)", &ac, NULL);
  prism_term_parse_into (t, "(f (* a b) (* a b))", &nested, NULL);
  prism_term_parse_into (t, "(f (* b a) (* a b))", &nested2, NULL);
  prism_term_parse_into (t, "(f (* b a) (* b a))", &two, NULL);
  g_assert_true (prism_rule_check_step (comm, FALSE, t, ab, t, ba));
  g_assert_false (prism_rule_check_step (comm, FALSE, t, ab, t, ac));
  g_assert_false (prism_rule_check_step (assoc, FALSE, t, ab, t, ba));
  g_assert_true (prism_rule_check_step (comm, FALSE, t, nested, t, nested2));
  /* Two rewrites are two steps. */
  g_assert_false (prism_rule_check_step (comm, FALSE, t, nested, t, two));
  g_assert_false (prism_rule_check_step (comm, FALSE, t, ab, t, ab));
}

static void
test_explain_errors (void)
{
  g_autoptr(PrismEgraph) plain = prism_egraph_new (PRISM_EGRAPH_FLAGS_NONE);
  g_autoptr(PrismEgraph) eg = prism_egraph_new (PRISM_EGRAPH_EXPLAIN);
  g_autoptr(GError) error = NULL;
  guint a = add (plain, "a");
  guint b = add (plain, "b");

  prism_egraph_union (plain, a, b, NULL);
  g_assert_null (prism_egraph_explain (plain, a, b, &error));
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED);
  g_clear_error (&error);
  a = add (eg, "a");
  b = add (eg, "b");
  g_assert_null (prism_egraph_explain (eg, a, b, &error));
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_FAILED);
  g_clear_error (&error);
  {
    g_autoptr(PrismExplanation) same = prism_egraph_explain (eg, a, a, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (prism_explanation_get_length (same), ==, 0);
  }
}

/* The oracle's use: saturate the target once, then ask whether candidate
 * subterms are represented. */
static void
test_oracle_pattern (void)
{
  g_autoptr(PrismRuleSet) set = arith_rules ();
  g_autoptr(PrismEgraph) eg = prism_egraph_new (PRISM_EGRAPH_FLAGS_NONE);
  const char *yes[] = { "(* x z)", "(+ (* x z) (* y z))", "(* z y)", "(+ (* z y) (* x z))" };
  const char *no[] = { "(* x y)", "(+ x y)", "(* z z)", "(+ (* x z) y)" };
  guint n_ids;

  add (eg, "(+ (* x z) (* y z))");
  g_assert_cmpint (prism_runner_run (eg, set, NULL, NULL), ==, PRISM_STOP_SATURATED);
  n_ids = prism_egraph_get_n_ids (eg);
  for (guint i = 0; i < G_N_ELEMENTS (yes); i++)
    {
      g_autoptr(PrismTerm) t = prism_term_parse (yes[i], NULL);
      g_assert_cmpint (prism_egraph_lookup_term (eg, t), >=, 0);
    }
  for (guint i = 0; i < G_N_ELEMENTS (no); i++)
    {
      g_autoptr(PrismTerm) t = prism_term_parse (no[i], NULL);
      g_assert_cmpint (prism_egraph_lookup_term (eg, t), ==, PRISM_EGRAPH_NONE);
    }
  g_assert_cmpuint (prism_egraph_get_n_ids (eg), ==, n_ids);
}

/* ------------------------------------------------------------------------ */
/* Randomized: invariants, plain vs explaining e-graphs, every explanation */

/* Writes a random term to @a and an equal one (by comm-add, comm-mul and
 * add-zero) to @b. */
static void
random_pair (GRand *rand, GString *a, GString *b, guint depth)
{
  static const char *leaves[] = { "a", "b", "c", "0", "1", "2" };
  static const char *ops[] = { "+", "*", "f" };
  gboolean wrap = g_rand_int_range (rand, 0, 6) == 0;
  guint op;

  if (wrap)
    g_string_append (b, "(+ ");
  if (depth == 0 || g_rand_int_range (rand, 0, 3) == 0)
    {
      const char *leaf = leaves[g_rand_int_range (rand, 0, G_N_ELEMENTS (leaves))];

      g_string_append (a, leaf);
      g_string_append (b, leaf);
    }
  else
    {
      op = g_rand_int_range (rand, 0, G_N_ELEMENTS (ops));
      g_string_append_printf (a, "(%s ", ops[op]);
      g_string_append_printf (b, "(%s ", ops[op]);
      if (op < 2)
        {
          g_autoptr(GString) a1 = g_string_new (NULL);
          g_autoptr(GString) b1 = g_string_new (NULL);
          g_autoptr(GString) a2 = g_string_new (NULL);
          g_autoptr(GString) b2 = g_string_new (NULL);
          gboolean swap = g_rand_boolean (rand);

          random_pair (rand, a1, b1, depth - 1);
          random_pair (rand, a2, b2, depth - 1);
          g_string_append_printf (a, "%s %s", a1->str, a2->str);
          g_string_append_printf (b, "%s %s", swap ? b2->str : b1->str, swap ? b1->str : b2->str);
        }
      else
        random_pair (rand, a, b, depth - 1);
      g_string_append_c (a, ')');
      g_string_append_c (b, ')');
    }
  if (wrap)
    g_string_append (b, " 0)");
}

/* Congruence closure holds: no two distinct e-nodes have the same operator,
 * value and child classes, and every child is a class with e-nodes. */
static void
assert_congruence_closed (const PrismEgraph *eg)
{
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  guint n_classes = 0, n_nodes = 0;

  g_assert_true (prism_egraph_is_clean (eg));
  for (guint c = 0; c < prism_egraph_get_n_ids (eg); c++)
    {
      guint n;

      if (prism_egraph_find (eg, c) != c)
        continue;
      n = prism_egraph_class_get_n_nodes (eg, c);
      if (n == 0)
        continue;
      n_classes++;
      for (guint i = 0; i < n; i++)
        {
          guint node = prism_egraph_class_get_node (eg, c, i);
          GString *key = g_string_new (NULL);

          g_assert_cmpuint (prism_egraph_find (eg, node), ==, c);
          g_string_append_printf (key, "%s %" G_GINT64_FORMAT,
                                  prism_symbol_name (prism_egraph_node_get_op (eg, node)),
                                  prism_egraph_node_get_int (eg, node));
          for (guint k = 0; k < prism_egraph_node_get_n_children (eg, node); k++)
            {
              guint child = prism_egraph_node_get_child (eg, node, k);
              g_assert_cmpuint (prism_egraph_find (eg, child), ==, child);
              g_assert_cmpuint (prism_egraph_class_get_n_nodes (eg, child), >, 0);
              g_string_append_printf (key, " %u", child);
            }
          g_assert_false (g_hash_table_contains (seen, key->str));
          g_hash_table_add (seen, g_string_free (key, FALSE));
          n_nodes++;
        }
    }
  g_assert_cmpuint (n_classes, ==, prism_egraph_get_n_classes (eg));
  g_assert_cmpuint (n_nodes, ==, prism_egraph_get_n_nodes (eg));
}

static void
test_randomized (void)
{
  g_autoptr(PrismRuleSet) set = rules_from (
    "comm-add: (+ ?a ?b) => (+ ?b ?a)\n"
    "comm-mul: (* ?a ?b) => (* ?b ?a)\n"
    "assoc-add: (+ ?a (+ ?b ?c)) <=> (+ (+ ?a ?b) ?c)\n"
    "distribute: (* ?a (+ ?b ?c)) <=> (+ (* ?a ?b) (* ?a ?c))\n"
    "add-zero: (+ ?a 0) => ?a\n"
    "mul-one: (* ?a 1) <=> (f (* 1 ?a))\n"
    "f-twice: (f (f ?x)) => ?x if !is_const(?x)\n");
  g_autoptr(GRand) rand = g_rand_new_with_seed (20261130);
  PrismRunnerOptions options;
  guint n_checked = 0, n_saturated = 0, n_steps = 0, n_pairs_checked = 0;

  prism_runner_options_init (&options);
  options.max_iterations = 6;
  options.max_nodes = 3000;
  options.time_limit_s = 0;
  for (guint round = 0; round < 30; round++)
    {
      g_autoptr(PrismEgraph) plain = prism_egraph_new (PRISM_EGRAPH_FLAGS_NONE);
      g_autoptr(PrismEgraph) expl = prism_egraph_new (PRISM_EGRAPH_EXPLAIN);
      g_autoptr(GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);
      guint ids_plain[8], ids_expl[8];
      PrismRunReport rp, re;

      for (guint i = 0; i < G_N_ELEMENTS (ids_plain); i += 2)
        {
          GString *a = g_string_new (NULL);
          GString *b = g_string_new (NULL);

          random_pair (rand, a, b, 4);
          g_ptr_array_add (texts, g_string_free (a, FALSE));
          g_ptr_array_add (texts, g_string_free (b, FALSE));
          for (guint k = i; k < i + 2; k++)
            {
              ids_plain[k] = add (plain, g_ptr_array_index (texts, k));
              ids_expl[k] = add (expl, g_ptr_array_index (texts, k));
            }
        }
      prism_runner_run (plain, set, &options, &rp);
      prism_runner_run (expl, set, &options, &re);
      assert_congruence_closed (plain);
      assert_congruence_closed (expl);
      g_assert_cmpint (rp.stop_reason, ==, re.stop_reason);
      n_saturated += rp.stop_reason == PRISM_STOP_SATURATED;
      /* One complete iteration applies every comm and add-zero step the
       * pairs need (all on e-nodes of the added terms). */
      for (guint i = 0; i < G_N_ELEMENTS (ids_plain); i += 2)
        {
          if (rp.iterations >= 2)
            g_assert_true (prism_egraph_equiv (plain, ids_plain[i], ids_plain[i + 1]));
          if (re.iterations >= 2)
            g_assert_true (prism_egraph_equiv (expl, ids_expl[i], ids_expl[i + 1]));
          n_pairs_checked += rp.iterations >= 2;
        }
      for (guint i = 0; i < G_N_ELEMENTS (ids_plain); i++)
        for (guint j = 0; j < G_N_ELEMENTS (ids_plain); j++)
          {
            gboolean eq_plain = prism_egraph_equiv (plain, ids_plain[i], ids_plain[j]);
            gboolean eq_expl = prism_egraph_equiv (expl, ids_expl[i], ids_expl[j]);

            /* Until saturation the two can differ in what they reached;
             * once saturated they must agree. */
            if (rp.stop_reason == PRISM_STOP_SATURATED)
              g_assert_cmpint (eq_plain, ==, eq_expl);
            if (eq_expl && i < j)
              {
                g_autoptr(GError) error = NULL;
                g_autoptr(PrismExplanation) e = prism_egraph_explain (expl, ids_expl[i], ids_expl[j], &error);
                g_autofree char *first = NULL;
                g_autofree char *last = NULL;

                g_assert_no_error (error);
                first = prism_term_node_to_string (prism_explanation_get_terms (e), prism_explanation_get_term (e, 0));
                last = prism_term_node_to_string (prism_explanation_get_terms (e),
                                                  prism_explanation_get_term (e, prism_explanation_get_length (e)));
                g_assert_cmpstr (first, ==, g_ptr_array_index (texts, i));
                g_assert_cmpstr (last, ==, g_ptr_array_index (texts, j));
                if (!prism_explanation_check (e, set, prism_fold_arith, NULL, &error))
                  {
                    g_autofree char *s = prism_explanation_to_string (e);
                    g_error ("%s\n%s", error->message, s);
                  }
                n_checked++;
                n_steps += prism_explanation_get_length (e);
              }
          }
    }
  g_test_message ("%u explanations (%u steps) checked, %u of 30 rounds saturated",
                  n_checked, n_steps, n_saturated);
  /* The seed gives both kinds of rounds and real proofs. */
  g_assert_cmpuint (n_checked, >, 30);
  g_assert_cmpuint (n_pairs_checked, >, 60);
  g_assert_cmpuint (n_saturated, >, 0);
  g_assert_cmpuint (n_saturated, <, 30);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/expr/rules/parse", test_parse_rules);
  g_test_add_func ("/expr/rules/errors", test_rule_errors);
  g_test_add_func ("/expr/rules/builtin", test_builtin_rules);
  g_test_add_func ("/expr/runner/saturated", test_stop_saturated);
  g_test_add_func ("/expr/runner/saturated-vs-iteration-limit", test_stop_saturated_at_iteration_limit);
  g_test_add_func ("/expr/runner/node-limit", test_stop_node_limit);
  g_test_add_func ("/expr/runner/iteration-limit", test_stop_iteration_limit);
  g_test_add_func ("/expr/runner/time-limit", test_stop_time_limit);
  g_test_add_func ("/expr/runner/backoff", test_backoff_scheduler);
  g_test_add_func ("/expr/runner/conditions", test_conditional_rules);
  g_test_add_func ("/expr/runner/constants", test_rules_see_constants);
  g_test_add_func ("/expr/runner/determinism", test_determinism);
  g_test_add_func ("/expr/runner/oracle-pattern", test_oracle_pattern);
  g_test_add_func ("/expr/explain/assoc-comm", test_explain_assoc_comm);
  g_test_add_func ("/expr/explain/larger", test_explain_larger);
  g_test_add_func ("/expr/explain/congruence-given", test_explain_congruence_and_given);
  g_test_add_func ("/expr/explain/constant-fold", test_explain_constant_fold);
  g_test_add_func ("/expr/explain/check-step", test_check_step_rejects);
  g_test_add_func ("/expr/explain/errors", test_explain_errors);
  g_test_add_func ("/expr/explain/randomized", test_randomized);
  return g_test_run ();
}
