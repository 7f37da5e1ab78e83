/* test-formal.c — translation to parallel terms, typing, single rules, and
 * formal proofs of every hand-written fused graph
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "prism-error.h"
#include "prism-formal-verifier.h"
#include "prism-par-expr.h"
#include "prism-par-typer.h"
#include "prism-runner.h"
#include "prism-workload.h"
#include "verify-common.h"

/* Translation --------------------------------------------------------------- */

static char *
translate_first_output (const PrismGraph *g, PrismParEnv *env, const char *prefix)
{
  g_autoptr(PrismTerm) term = prism_term_new ();
  g_autoptr(GError) error = NULL;
  guint roots[4];

  g_assert_true (prism_par_translate (env, g, prefix, term, roots, &error));
  g_assert_no_error (error);
  return prism_term_node_to_string (term, roots[0]);
}

static void
test_translate_rms_norm (void)
{
  g_autoptr(PrismGraph) prog = prism_workload_build ("rms_norm", "n=4,d=128", NULL);
  g_autoptr(PrismGraph) ref = prism_workload_build_reference ("rms_norm", "n=4,d=128", NULL);
  g_autoptr(PrismParEnv) env = prism_par_env_new ();
  g_autofree char *p = translate_first_output (prog, env, "r");
  g_autofree char *c = translate_first_output (ref, env, "c");

  /* The program: rms_norm carries the size of the normalised dim. */
  g_assert_cmpstr (p, ==, "(matmul (rms_norm in0 128) in1)");
  /* The fused graph, grid (2) and loop 2: X replicated on the grid and
   * split along its last dim by the loop; W split along its columns (last
   * dim) by the grid, then along its rows by the loop; accum = reduce over
   * the loop; accum_rms = sqrt (Σ reduce (x²) / (F · 64)); omap (1) =
   * combine along the last dim. */
  g_assert_cmpstr (c, ==,
                   "(combine (map2 div (reduce (matmul (partition (replicate in0 c0.x) 0 c0.f) "
                   "(partition (partition in1 0 c0.x) 1 c0.f)) c0.f) (map sqrt (divn (sum (reduce "
                   "(map square (partition (replicate in0 c0.x) 0 c0.f)) c0.f) 0) 128))) 0 c0.x)");
  g_assert_cmpuint (prism_par_env_get_n_inputs (env), ==, 2);
  g_assert_cmpuint (prism_par_env_get_n_axes (env), ==, 2);
  g_assert_cmpstr (prism_par_env_get_axis_name (env, 0), ==, "c0.x");
  g_assert_cmpint (prism_dim_get_const (prism_par_env_get_axis_size (env, 0)), ==, 2);
  g_assert_cmpstr (prism_par_env_get_axis_name (env, 1), ==, "c0.f");
}

static void
test_translate_axes (void)
{
  g_autoptr(PrismGraph) nt = prism_workload_build_reference ("norm_transformer", "n=4,d=16", NULL);
  g_autoptr(PrismGraph) gqa = prism_workload_build_reference ("gqa", "b=2,q=128,kv=2048,dh=8", NULL);
  g_autoptr(PrismParEnv) env1 = prism_par_env_new ();
  g_autoptr(PrismParEnv) env2 = prism_par_env_new ();
  g_autofree char *a = translate_first_output (nt, env1, "c");
  g_autofree char *b = translate_first_output (gqa, env2, "c");

  /* A loop of range 1 is no axis; omap (0) on a rank-2 tile combines dim 1
   * counted from the last. */
  g_assert_null (strstr (a, "c0.f"));
  g_assert_true (g_str_has_prefix (a, "(combine (rms_norm (map2 add (partition in1 1 c0.x)"));
  g_assert_cmpuint (prism_par_env_get_n_axes (env1), ==, 1);
  /* accum_sum_todimx: a fresh axis splits the last dim into dimx-wide
   * chunks that are summed. */
  g_assert_nonnull (strstr (b, "(reduce (partition "));
  g_assert_nonnull (strstr (b, " 0 c1.r1) c1.r1)"));
  for (guint i = 0; i < prism_par_env_get_n_axes (env2); i++)
    if (g_str_equal (prism_par_env_get_axis_name (env2, i), "c1.r1"))
      g_assert_cmpint (prism_dim_get_const (prism_par_env_get_axis_size (env2, i)), ==, 16);
}

static void
test_translate_symbolic (void)
{
  g_autoptr(PrismGraph) g = symbolic_rms_norm (4, 128);
  g_autoptr(PrismParEnv) env = prism_par_env_new ();
  g_autoptr(PrismGraph) prog = prism_workload_build ("rms_norm", "n=4,d=128", NULL);
  g_autofree char *p = translate_first_output (prog, env, "r");
  g_autofree char *c = translate_first_output (g, env, "c");

  /* Symbolic sizes stay symbols; accum_rms counts F · 128/F = 128. */
  g_assert_nonnull (strstr (c, "(divn (sum (reduce (map square (partition (replicate in0 c0.x) 0 c0.f)) c0.f) 0) 128)"));
  g_assert_cmpuint (prism_par_env_get_n_axes (env), ==, 2);
  g_assert_false (prism_dim_is_const (prism_par_env_get_axis_size (env, 0)));
}

static void
test_translate_errors (void)
{
  g_autoptr(PrismGraph) prog = prism_workload_build ("rms_norm", "n=4,d=128", NULL);
  g_autoptr(PrismGraph) other = prism_workload_build ("rms_norm", "n=8,d=128", NULL);
  g_autoptr(PrismParEnv) env = prism_par_env_new ();
  g_autoptr(PrismTerm) term = prism_term_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismGraph) g = prism_graph_new ();
  g_autoptr(PrismGraph) b = prism_block_graph_new_const (1, (gint64[]) { 2 }, 128, 2);
  g_autoptr(PrismParEnv) env2 = prism_par_env_new ();
  gint64 shape[2] = { 4, 8 };
  int imap[3] = { 0, -1, -1 }, omap[3] = { 0, -1, -1 };
  guint in[2], roots[2];
  int t, s, acc, kop;

  g_assert_true (prism_par_translate (env, prog, "r", term, roots, &error));
  /* Inputs must match the first graph's, dtypes included (the terms are
   * exact arithmetic on the rounded inputs). */
  g_assert_false (prism_par_translate (env, other, "c", term, roots, &error));
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_INVALID_GRAPH);
  g_clear_error (&error);
  {
    g_autoptr(PrismGraph) bf16 = load_test_graph ("rms_norm-w-bf16.json");
    g_assert_false (prism_par_translate (env, bf16, "b", term, roots, &error));
    g_assert_error (error, PRISM_ERROR, PRISM_ERROR_INVALID_GRAPH);
    g_assert_cmpstr (error->message, ==, "input 1 is bf16, the reference's is f16");
    g_clear_error (&error);
  }

  /* Rescaling accumulators have no operator. */
  in[0] = (guint) prism_graph_add_input (g, "X", 2, shape, PRISM_DTYPE_F32, NULL);
  t = prism_block_graph_add_input (b, 0, 2, prism_graph_tensor (g, in[0])->dims, PRISM_DTYPE_F32,
                                   imap, 1, NULL);
  in[1] = (guint) t;
  s = prism_graph_add (b, PRISM_OP_EXP, in + 1, 1, NULL, NULL);
  acc = prism_graph_add (b, PRISM_OP_ACCUM_RESCALE, (guint[]) { (guint) t, (guint) s }, 2, NULL, NULL);
  g_assert_cmpint (acc, >=, 0);
  g_assert_cmpint (prism_block_graph_add_output (b, (guint) acc, omap, NULL), >=, 0);
  kop = prism_graph_add_kernel (g, in, 1, b, NULL);
  g_assert_cmpint (prism_graph_add_output (g, prism_graph_op (g, (guint) kop)->outputs[0], NULL, NULL), >=, 0);
  g_assert_false (prism_par_translate (env2, g, "c", term, roots, &error));
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "accum_rescale"));
}

/* Single rules -------------------------------------------------------------- */

/* An environment with inputs in0 [8,16], in1 [8,8], in2 [8,1], in3 [1,16],
 * in4 [16,8] and axes c0.x (2), c0.y (4), c0.f (2), c1.x (4), c1.y (2). */
typedef struct
{
  PrismParEnv *env;
  PrismTerm *term;
} RuleFixture;

static void
add_kernel (PrismGraph *g, guint input, gint64 gx, gint64 gy, gint64 f)
{
  g_autoptr(PrismGraph) b = prism_block_graph_new_const (2, (gint64[]) { gx, gy }, 128, f);
  int imap[3] = { -1, -1, -1 }, omap[3] = { -1, -1, -1 };
  int t = prism_block_graph_add_input (b, 0, 2, prism_graph_tensor (g, input)->dims, PRISM_DTYPE_F32,
                                       imap, -1, NULL);
  int acc = prism_graph_add (b, PRISM_OP_ACCUM, (guint[]) { (guint) t }, 1, NULL, NULL);
  int kop;

  g_assert_cmpint (prism_block_graph_add_output (b, (guint) acc, omap, NULL), >=, 0);
  kop = prism_graph_add_kernel (g, &input, 1, b, NULL);
  g_assert_cmpint (prism_graph_add_output (g, prism_graph_op (g, (guint) kop)->outputs[0], NULL, NULL), >=, 0);
}

static void
rule_fixture_setup (RuleFixture *fx, gconstpointer data)
{
  g_autoptr(PrismGraph) g = prism_graph_new ();
  static const gint64 shapes[5][2] = { { 8, 16 }, { 8, 8 }, { 8, 1 }, { 1, 16 }, { 16, 8 } };
  g_autoptr(GError) error = NULL;
  guint ids[5], roots[4];

  for (guint i = 0; i < 5; i++)
    ids[i] = (guint) prism_graph_add_input (g, NULL, 2, shapes[i], PRISM_DTYPE_F32, NULL);
  add_kernel (g, ids[0], 2, 4, 2);
  add_kernel (g, ids[0], 4, 2, 1);
  fx->env = prism_par_env_new ();
  fx->term = prism_term_new ();
  g_assert_true (prism_par_translate (fx->env, g, "c", fx->term, roots, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (prism_par_env_get_n_axes (fx->env), ==, 5);
}

static void
rule_fixture_teardown (RuleFixture *fx, gconstpointer data)
{
  prism_par_env_free (fx->env);
  prism_term_free (fx->term);
}

/* Saturates an e-graph of @a and @b with the verifier's rules (auditing
 * every class's type) and says whether they end up equal.  @absent, when
 * given, is a term that no rule may have built. */
static gboolean
saturate_equal (RuleFixture *fx, const char *a, const char *b, const char *absent)
{
  g_autoptr(PrismEgraph) eg = prism_egraph_new (PRISM_EGRAPH_FLAGS_NONE);
  g_autoptr(PrismParTyper) typer = prism_par_typer_new (fx->env, eg);
  g_autoptr(PrismRuleSet) rules = prism_rule_set_new ();
  g_autoptr(GError) error = NULL;
  PrismRunnerOptions options;
  guint na, nb, ia, ib;

  g_assert_true (prism_term_parse_into (fx->term, a, &na, &error));
  g_assert_true (prism_term_parse_into (fx->term, b, &nb, &error));
  ia = prism_egraph_add_term_node (eg, fx->term, na);
  ib = prism_egraph_add_term_node (eg, fx->term, nb);
  prism_egraph_rebuild (eg);
  /* Both sides are well typed, or the question means nothing. */
  g_assert_nonnull (prism_par_typer_get (typer, ia));
  g_assert_nonnull (prism_par_typer_get (typer, ib));

  prism_par_typer_register_conditions (typer, rules);
  g_assert_true (prism_rule_set_add_builtin (rules, "verify", &error));
  g_assert_no_error (error);
  prism_runner_options_init (&options);
  options.max_nodes = 20000;
  g_assert_cmpint (prism_runner_run (eg, rules, &options, NULL), ==, PRISM_STOP_SATURATED);
  g_assert_true (prism_par_typer_audit (typer, &error));
  g_assert_no_error (error);
  if (absent != NULL)
    {
      guint n;
      g_assert_true (prism_term_parse_into (fx->term, absent, &n, &error));
      g_assert_cmpint (prism_egraph_lookup_term_node (eg, fx->term, n), ==, PRISM_EGRAPH_NONE);
    }
  return prism_egraph_equiv (eg, ia, ib);
}

static void
test_rule_cancel (RuleFixture *fx, gconstpointer data)
{
  g_assert_true (saturate_equal (fx, "(combine (partition in0 0 c0.x) 0 c0.x)", "in0", NULL));
  g_assert_true (saturate_equal (fx, "(combine (map exp (partition in0 1 c0.y)) 1 c0.y)", "(map exp in0)", NULL));
  /* Concatenating the chunks along another dim is another tensor. */
  g_assert_false (saturate_equal (fx, "(combine (partition in1 0 c0.x) 1 c0.x)",
                                  "(combine (partition in1 1 c0.x) 0 c0.x)", NULL));
}

static void
test_rule_broadcast (RuleFixture *fx, gconstpointer data)
{
  /* in2 [8, 1] is broadcast along dim 0: the sum of a chunk and the copy is
   * the chunk of the sum. */
  g_assert_true (saturate_equal (fx, "(map2 add (partition in0 0 c0.x) (replicate in2 c0.x))",
                                 "(partition (map2 add in0 in2) 0 c0.x)", NULL));
  /* in1 [8, 8] matches the chunk [8, 8] but not the whole [8, 16]: the rule
   * must not fire (it would build the ill-typed (add in0 in1)). */
  g_assert_true (saturate_equal (fx, "(map2 add (partition in0 0 c0.x) (replicate in1 c0.x))",
                                 "(map2 add (partition in0 0 c0.x) (replicate in1 c0.x))",
                                 "(map2 add in0 in1)"));
}

static void
test_rule_partitions (RuleFixture *fx, gconstpointer data)
{
  /* Chunks of different dims commute … */
  g_assert_true (saturate_equal (fx, "(partition (partition in0 0 c0.x) 1 c0.y)",
                                 "(partition (partition in0 1 c0.y) 0 c0.x)", NULL));
  /* … chunks of one dim do not (the nesting picks the outer chunk). */
  g_assert_false (saturate_equal (fx, "(partition (partition in0 0 c0.x) 0 c1.y)",
                                  "(partition (partition in0 0 c1.y) 0 c0.x)", NULL));
  /* Sums over an axis do not commute with non-linear ops. */
  g_assert_false (saturate_equal (fx, "(map exp (reduce (partition in0 0 c0.x) c0.x))",
                                  "(reduce (map exp (partition in0 0 c0.x)) c0.x)", NULL));
  g_assert_true (saturate_equal (fx, "(map neg (reduce (partition in0 0 c0.x) c0.x))",
                                 "(reduce (map neg (partition in0 0 c0.x)) c0.x)", NULL));
}

static void
test_rule_rename (RuleFixture *fx, gconstpointer data)
{
  /* Pieces concatenated along c0.y (4) and chunked again by c1.x (4): the
   * sum over c1.x is the sum over c0.y … */
  g_assert_true (saturate_equal (fx,
                                 "(reduce (partition (combine (map exp (partition in0 0 c0.y)) 0 c0.y) 0 c1.x) c1.x)",
                                 "(reduce (map exp (partition in0 0 c0.y)) c0.y)", NULL));
  /* … but not with c1.y (2 chunks of two pieces each): the rule must not
   * build the sum over c0.y. */
  g_assert_true (saturate_equal (fx,
                                 "(reduce (partition (combine (map exp (partition in0 0 c0.y)) 0 c0.y) 0 c1.y) c1.y)",
                                 "(reduce (partition (combine (map exp (partition in0 0 c0.y)) 0 c0.y) 0 c1.y) c1.y)",
                                 "(reduce (map exp (partition in0 0 c0.y)) c0.y)"));
}

static void
test_rule_matmul (RuleFixture *fx, gconstpointer data)
{
  /* Row scales move out of a product, column scales do not. */
  g_assert_true (saturate_equal (fx, "(matmul (map2 div in0 in2) in4)", "(map2 div (matmul in0 in4) in2)", NULL));
  g_assert_false (saturate_equal (fx, "(matmul (map2 div in0 in3) in4)", "(matmul in0 in4)",
                                  "(map2 div (matmul in0 in4) in3)"));
  /* Chunks of the inner dim sum to the product. */
  g_assert_true (saturate_equal (fx, "(reduce (matmul (partition in0 0 c0.y) (partition in4 1 c0.y)) c0.y)",
                                 "(matmul in0 in4)", NULL));
  /* Unsummed, they are only partial products. */
  g_assert_false (saturate_equal (fx, "(matmul (partition in0 0 c0.y) (partition in4 1 c0.y))",
                                  "(replicate (matmul in0 in4) c0.y)", NULL));
  /* Rows chunked on the left, right side copied. */
  g_assert_true (saturate_equal (fx, "(matmul (partition in0 1 c0.x) (replicate in4 c0.x))",
                                 "(partition (matmul in0 in4) 1 c0.x)", NULL));
}

static void
test_rule_sums (RuleFixture *fx, gconstpointer data)
{
  g_assert_true (saturate_equal (fx, "(reduce (sum (partition in0 0 c0.y) 0) c0.y)", "(sum in0 0)", NULL));
  g_assert_true (saturate_equal (fx, "(sum (combine (partition in0 0 c0.y) 0 c0.y) 0)", "(sum in0 0)", NULL));
  g_assert_true (saturate_equal (fx, "(sum (sum in0 0) 0)", "(sum in0 0)", NULL));
  /* rms over the last dim: by definition, and it commutes with chunking rows. */
  g_assert_true (saturate_equal (fx, "(rms_norm (partition in0 1 c0.x) 16)",
                                 "(partition (map2 div in0 (map sqrt (divn (sum (map square in0) 0) 16))) 1 c0.x)", NULL));
  /* Chunking the normalised dim changes the norm. */
  g_assert_false (saturate_equal (fx, "(combine (rms_norm (partition in0 0 c0.x) 8) 0 c0.x)",
                                  "(rms_norm in0 16)", NULL));
}

static void
test_rule_neg (RuleFixture *fx, gconstpointer data)
{
  g_assert_true (saturate_equal (fx, "(map neg (map neg (partition in0 0 c0.x)))", "(partition in0 0 c0.x)", NULL));
  g_assert_false (saturate_equal (fx, "(map neg in0)", "in0", NULL));
}

static void
test_rule_copies (RuleFixture *fx, gconstpointer data)
{
  /* A sum of copies is not the copy … */
  g_assert_false (saturate_equal (fx, "(reduce (replicate in0 c0.x) c0.x)", "in0", NULL));
  /* … but the factor cancels in a quotient when both sides have it with
   * equal sizes (c0.x and c1.y are 2, c0.y is 4) … */
  g_assert_true (saturate_equal (fx, "(map2 div (reduce (replicate in0 c0.x) c0.x) (reduce (replicate in2 c1.y) c1.y))",
                                 "(map2 div in0 in2)", NULL));
  g_assert_false (saturate_equal (fx, "(map2 div (reduce (replicate in0 c0.x) c0.x) (reduce (replicate in2 c0.y) c0.y))",
                                  "(map2 div in0 in2)", NULL));
  g_assert_false (saturate_equal (fx, "(map2 div (reduce (replicate in0 c0.x) c0.x) in2)", "(map2 div in0 in2)", NULL));
  /* … after moving out of chunks and sums, and under rms_norm. */
  g_assert_true (saturate_equal (fx, "(map2 div (reduce (partition (reduce (replicate in0 c0.x) c0.x) 0 c0.y) c0.y) "
                                 "(sum (reduce (replicate in2 c1.y) c1.y) 0))",
                                 "(map2 div (reduce (partition in0 0 c0.y) c0.y) (sum in2 0))", NULL));
  g_assert_true (saturate_equal (fx, "(rms_norm (reduce (replicate in0 c0.y) c0.y) 16)", "(rms_norm in0 16)", NULL));
  /* The maximum of copies is the copy (accum_max of a loop-replicated tile). */
  g_assert_true (saturate_equal (fx, "(reduce_max (replicate in0 c0.y) c0.y)", "in0", NULL));
  g_assert_false (saturate_equal (fx, "(reduce_max (partition in0 0 c0.x) c0.x)", "(reduce (partition in0 0 c0.x) c0.x)", NULL));
  /* exp is not linear: exp (2x) / exp (2y) is not exp x / exp y. */
  g_assert_false (saturate_equal (fx, "(map2 div (map exp (reduce (replicate in0 c0.x) c0.x)) "
                                  "(map exp (reduce (replicate in0 c1.y) c1.y)))",
                                  "(map2 div (map exp in0) (map exp in0))", NULL));
}

static void
test_rule_rename_nested (RuleFixture *fx, gconstpointer data)
{
  /* Four pieces (c0.y) concatenated, chunked by c0.x (2) and each chunk by
   * c1.y (2): every inner chunk is a piece, and the sum over both is the
   * sum of the pieces … */
  g_assert_true (saturate_equal (fx,
                                 "(reduce (reduce (partition (partition (combine (map exp (partition in0 0 c0.y)) 0 c0.y) 0 c0.x) 0 c1.y) c0.x) c1.y)",
                                 "(reduce (map exp (partition in0 0 c0.y)) c0.y)", NULL));
  /* … but two pieces of 8 (c0.x) chunked twice in two (c1.y, c0.f) give
   * quarters that are half pieces: size(c0.x) is not 2 · 2, and the sum
   * of the quarters (a [8, 4] tensor) is not the sum of the pieces. */
  g_assert_false (saturate_equal (fx,
                                  "(reduce (reduce (partition (partition (combine (map exp (partition in0 0 c0.x)) 0 c0.x) 0 c1.y) 0 c0.f) c1.y) c0.f)",
                                  "(reduce (map exp (partition in0 0 c0.x)) c0.x)", NULL));
}

/* Whole graphs -------------------------------------------------------------- */

static void
check_proved (const PrismGraph *prog, const PrismGraph *cand, const char *what)
{
  g_autoptr(PrismFormalVerifier) fv = NULL;
  g_autoptr(GError) error = NULL;
  PrismFormalOptions options;
  PrismFormalResult r;

  fv = prism_formal_verifier_new (prog, &error);
  g_assert_no_error (error);
  prism_formal_options_init (&options);
  options.audit = TRUE;
  options.keep_explanation = TRUE;
  g_assert_true (prism_formal_verifier_check (fv, cand, &options, &r, &error));
  g_assert_no_error (error);
  g_test_message ("%s: %s in %u steps, %u iterations, %u e-nodes, %.3f s", what, r.stop_reason,
                  r.proof_length, r.iterations, r.n_nodes, r.seconds);
  if (!r.proved)
    g_error ("%s: not proved (%s) %s", what, r.stop_reason, r.message ? r.message : "");
  g_assert_cmpstr (r.stop_reason, ==, "proved");
  g_assert_cmpuint (r.proof_length, >, 0);
  g_assert_cmpuint (r.rules_used->len, ==, r.proof_length);
  g_assert_nonnull (r.explanation);
  g_assert_true (g_str_has_prefix (r.explanation, "output 0:\n"));
  prism_formal_result_clear (&r);
}

static void
test_references_default (void)
{
  guint n;
  const PrismWorkloadInfo *list = prism_workload_list (&n);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(PrismGraph) prog = prism_workload_build (list[i].name, NULL, NULL);
      g_autoptr(PrismGraph) ref = NULL;

      if (!list[i].has_reference)
        continue;
      ref = prism_workload_build_reference (list[i].name, NULL, NULL);
      g_assert_nonnull (ref);
      check_proved (prog, ref, list[i].name);
    }
}

static void
test_references_small (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (small_workloads); i++)
    {
      g_autoptr(PrismGraph) prog = prism_workload_build (small_workloads[i].name, small_workloads[i].params, NULL);
      g_autoptr(PrismGraph) ref = prism_workload_build_reference (small_workloads[i].name,
                                                                  small_workloads[i].params, NULL);
      check_proved (prog, ref, small_workloads[i].name);
    }
}

static void
test_references_other_shapes (void)
{
  /* Shapes where the two attention kernels split the rows differently (the
   * second kernel re-chunks the first one's output). */
  static const char * const cases[][2] = {
    { "attention", "b=2,h=8,q=128,kv=1024,dh=128" },
    { "qk_norm_attention", "b=4,h=8,q=128,kv=1024,dh=128" },
    { "gqa", "b=2,q=256,kv=4096,dh=64" },
    { "lora", "n=16,d=256,r=16,o=256" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(PrismGraph) prog = prism_workload_build (cases[i][0], cases[i][1], NULL);
      g_autoptr(PrismGraph) ref = prism_workload_build_reference (cases[i][0], cases[i][1], NULL);
      check_proved (prog, ref, cases[i][0]);
    }
}

static void
test_symbolic_sizes (void)
{
  g_autoptr(PrismGraph) prog = prism_workload_build ("rms_norm", "n=4,d=128", NULL);
  g_autoptr(PrismGraph) cand = symbolic_rms_norm (4, 128);

  check_proved (prog, cand, "rms_norm with symbolic gx, F");
}

static void
test_not_proved (void)
{
  g_autoptr(PrismGraph) prog = prism_workload_build ("swiglu", "n=4,d=256", NULL);
  g_autoptr(PrismGraph) other = prism_workload_build ("gated_mlp", "n=4,d=256", NULL);
  g_autoptr(PrismGraph) mlp = prism_workload_build ("rmsnorm_mlp", "n=4,d=256", NULL);
  g_autoptr(PrismGraph) rms = prism_workload_build ("rms_norm", "n=4,d=128", NULL);
  g_autoptr(PrismFormalVerifier) fv = prism_formal_verifier_new (prog, NULL);
  PrismFormalResult r;

  /* The same program with its inputs named otherwise is another interface:
   * inputs are bound by name (issue 24) … */
  g_assert_true (prism_formal_verifier_check (fv, other, NULL, &r, NULL));
  g_assert_false (r.proved);
  g_assert_cmpstr (r.stop_reason, ==, "different interface");
  g_assert_nonnull (strstr (r.message, "input W1 of the candidate is not one of the reference's inputs "
                                       "(X, W_gate, W_up)"));
  prism_formal_result_clear (&r);
  /* … a different one with the same inputs saturates without a proof … */
  g_assert_true (prism_formal_verifier_check (fv, mlp, NULL, &r, NULL));
  g_assert_false (r.proved);
  g_assert_cmpstr (r.stop_reason, ==, "saturated");
  g_assert_null (r.rules_used);
  prism_formal_result_clear (&r);
  /* … and one with other inputs is not even translated. */
  g_assert_true (prism_formal_verifier_check (fv, rms, NULL, &r, NULL));
  g_assert_false (r.proved);
  g_assert_cmpstr (r.stop_reason, ==, "different interface");
  g_assert_nonnull (r.message);
  g_assert_null (r.rules_used);
  prism_formal_result_clear (&r);
}

/* rms_norm's eps: x / sqrt (mean (x²) + eps).  A kernel normalising whole
 * rows with the same eps is proved; another eps, or none, is not. */
static char *
rms_eps_program (const char *eps, gboolean fused)
{
  const char *tail = "], \"outputs\": [{\"id\": 2, \"shape\": [8, 64], \"dtype\": \"f32\"}]},"
                     "{\"op\": \"matmul\", \"inputs\": [2, 1], \"outputs\": [3]},"
                     "{\"op\": \"output\", \"inputs\": [3]}]}";
  const char *head = "{\"format\": \"prism-graph\", \"version\": 1, \"ops\": ["
                     "{\"op\": \"input\", \"outputs\": [{\"id\": 0, \"shape\": [8, 64], \"dtype\": \"f32\"}]},"
                     "{\"op\": \"input\", \"outputs\": [{\"id\": 1, \"shape\": [64, 32], \"dtype\": \"f32\"}]},";

  if (!fused)
    return g_strdup_printf ("%s{\"op\": \"rms_norm\", %s \"inputs\": [0%s", head, eps, tail);
  return g_strdup_printf (
    "%s{\"op\": \"kernel\", \"inputs\": [0, 1], \"outputs\": [2], \"block\": {\"grid\": [2], \"ops\": ["
    "{\"op\": \"input\", \"input\": 0, \"imap\": [0], \"fmap\": -1, \"outputs\": [0]},"
    "{\"op\": \"input\", \"input\": 1, \"imap\": [-1], \"fmap\": -1, \"outputs\": [1]},"
    "{\"op\": \"rms_norm\", %s \"inputs\": [0], \"outputs\": [2]},"
    "{\"op\": \"matmul\", \"inputs\": [2, 1], \"outputs\": [3]},"
    "{\"op\": \"accum\", \"inputs\": [3], \"outputs\": [4]},"
    "{\"op\": \"output\", \"inputs\": [4], \"omap\": [0]}]}},"
    "{\"op\": \"output\", \"inputs\": [2]}]}", head, eps);
}

static PrismGraph *
rms_eps_graph (const char *eps, gboolean fused)
{
  g_autofree char *text = rms_eps_program (eps, fused);
  g_autoptr(GError) error = NULL;
  PrismGraph *g = prism_graph_load_from_data (text, -1, NULL, &error);

  g_assert_no_error (error);
  return g;
}

static void
test_rms_norm_eps (void)
{
  g_autoptr(PrismGraph) prog = rms_eps_graph ("\"eps\": 1e-5,", FALSE);
  g_autoptr(PrismFormalVerifier) fv = prism_formal_verifier_new (prog, NULL);
  static const struct { const char *eps; gboolean proved; } cases[] = {
    { "\"eps\": 1e-5,", TRUE }, { "\"eps\": 1e-6,", FALSE }, { "", FALSE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(PrismGraph) cand = rms_eps_graph (cases[i].eps, TRUE);
      PrismFormalResult r;

      g_test_message ("fused rms_norm with %s", cases[i].eps[0] ? cases[i].eps : "no eps");
      g_assert_true (prism_formal_verifier_check (fv, cand, NULL, &r, NULL));
      g_assert_cmpint (r.proved, ==, cases[i].proved);
      prism_formal_result_clear (&r);
    }
}

/* The axioms of group 12 (max, maximum, transpose, constants): right
 * rewrites proved, each next to a wrong one that saturates unproved. */
static void
test_new_operators (void)
{
  static const struct
  {
    const char *program, *right, *wrong;
  } cases[] = {
    { "ops-max-add.json", "ops-max-then-add.json", "ops-max-then-mul-wrong.json" },
    { "ops-exp.json", "ops-transpose-exp-back.json", NULL },
    { "ops-square-exp.json", NULL, "ops-square-transpose-exp-wrong.json" },
    { "ops-row-max.json", "ops-row-max-kernel.json", "ops-row-max-kernel-summed-wrong.json" },
    /* A constant is its value as its dtype stores it: 0.1 in f16 is not 0.1 in f32. */
    { "ops-scale-f16.json", NULL, "ops-scale-f32-wrong.json" },
    /* A partition moves through a transpose with its dim renamed: the
     * transposed weight's tiles transposed in the block (rows by the grid,
     * columns by the loop); not the tiles untransposed, nor split the other
     * way, nor transposed where the program does not transpose. */
    { "ops-linear-transposed.json", "ops-linear-transposed-fused.json",
      "ops-linear-transposed-untransposed-wrong.json" },
    { "ops-linear-transposed.json", NULL, "ops-linear-transposed-swapped-wrong.json" },
    { "ops-linear.json", NULL, "ops-linear-transposed-fused.json" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(PrismGraph) prog = load_test_graph (cases[i].program);

      if (cases[i].right != NULL)
        {
          g_autoptr(PrismGraph) right = load_test_graph (cases[i].right);
          check_proved (prog, right, cases[i].right);
        }
      if (cases[i].wrong != NULL)
        {
          g_autoptr(PrismGraph) wrong = load_test_graph (cases[i].wrong);
          g_autoptr(PrismFormalVerifier) fv = prism_formal_verifier_new (prog, NULL);
          PrismFormalOptions options;
          PrismFormalResult r;

          prism_formal_options_init (&options);
          options.audit = TRUE;
          g_assert_true (prism_formal_verifier_check (fv, wrong, &options, &r, NULL));
          if (r.proved)
            g_error ("%s: proved equivalent to %s", cases[i].wrong, cases[i].program);
          g_assert_cmpstr (r.stop_reason, ==, "saturated");
          prism_formal_result_clear (&r);
        }
    }
}

/* Issue 13's done-when program with a row-major weight and its hand
 * fusion (RMSNorm into the GEMM, each weight tile transposed in the
 * block): a formal proof, not only the randomized test. */
static void
test_transposed_operand (void)
{
  g_autofree char *prog_path = g_test_build_filename (G_TEST_DIST, "search", "done-when",
                                                      "rmsnorm_linear_row_major.json", NULL);
  g_autofree char *hand_path = g_test_build_filename (G_TEST_DIST, "search", "done-when",
                                                      "rmsnorm_linear_row_major-hand.json", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismGraph) prog = prism_graph_load (prog_path, NULL, &error);
  g_autoptr(PrismGraph) hand = NULL;

  g_assert_no_error (error);
  hand = prism_graph_load (hand_path, NULL, &error);
  g_assert_no_error (error);
  check_proved (prog, hand, "rmsnorm_linear_row_major-hand.json");
}

static void
test_variants (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (variants); i++)
    {
      g_autoptr(PrismGraph) prog = prism_workload_build (variants[i].workload, variants[i].params, NULL);
      g_autoptr(PrismGraph) cand = load_test_graph (variants[i].file);
      g_autoptr(PrismFormalVerifier) fv = prism_formal_verifier_new (prog, NULL);
      g_autoptr(GError) error = NULL;
      PrismFormalOptions options;
      PrismFormalResult r;
      gboolean used = FALSE;

      prism_formal_options_init (&options);
      options.audit = TRUE;
      g_assert_true (prism_formal_verifier_check (fv, cand, &options, &r, &error));
      g_assert_no_error (error);
      g_test_message ("%s: %s in %u steps, %u iterations, %u e-nodes, %.3f s", variants[i].file,
                      r.stop_reason, r.proof_length, r.iterations, r.n_nodes, r.seconds);
      if (!variants[i].right)
        {
          if (r.proved)
            g_error ("%s: a wrong variant is proved", variants[i].file);
          g_assert_cmpstr (r.stop_reason, ==, "saturated");
          prism_formal_result_clear (&r);
          continue;
        }
      if (!r.proved)
        g_error ("%s: not proved (%s)", variants[i].file, r.stop_reason);
      for (guint k = 0; k < r.rules_used->len; k++)
        used |= g_str_equal (g_ptr_array_index (r.rules_used, k), variants[i].rule);
      if (!used)
        g_error ("%s: proved without %s", variants[i].file, variants[i].rule);
      prism_formal_result_clear (&r);
    }
}

static void
test_limits (void)
{
  g_autoptr(PrismGraph) prog = prism_workload_build ("qk_norm_attention", "b=2,h=2,q=64,kv=1024,dh=8", NULL);
  g_autoptr(PrismGraph) ref = prism_workload_build_reference ("qk_norm_attention", "b=2,h=2,q=64,kv=1024,dh=8", NULL);
  g_autoptr(PrismFormalVerifier) fv = prism_formal_verifier_new (prog, NULL);
  PrismFormalOptions options;
  PrismFormalResult r;

  prism_formal_options_init (&options);
  options.max_iterations = 2;
  g_assert_true (prism_formal_verifier_check (fv, ref, &options, &r, NULL));
  g_assert_false (r.proved);
  g_assert_cmpstr (r.stop_reason, ==, "iteration limit");
  g_assert_cmpuint (r.iterations, ==, 2);
  prism_formal_result_clear (&r);

  prism_formal_options_init (&options);
  options.max_nodes = 50;
  g_assert_true (prism_formal_verifier_check (fv, ref, &options, &r, NULL));
  g_assert_false (r.proved);
  g_assert_cmpstr (r.stop_reason, ==, "node limit");
  prism_formal_result_clear (&r);
}

/* Group 14 of verify.rules (issue 24's completeness patterns): each rule
 * proves a right graph (and is used by the proof), and a wrong graph beside
 * it saturates unproved. */
#define XY "{\"op\": \"input\", \"name\": \"X\", \"outputs\": [{\"id\": \"x\", \"shape\": [8, 8], \"dtype\": \"f32\"}]}," \
           "{\"op\": \"input\", \"name\": \"Y\", \"outputs\": [{\"id\": \"y\", \"shape\": [8, 8], \"dtype\": \"f32\"}]},"
#define T3 "{\"op\": \"input\", \"name\": \"T\", \"outputs\": [{\"id\": \"t\", \"shape\": [4, 4, 4], \"dtype\": \"f32\"}]},"
#define C(id, v) "{\"op\": \"constant\", \"value\": " v ", \"outputs\": [{\"id\": \"" id "\", \"shape\": [1, 1], \"dtype\": \"f32\"}]},"
#define U(kind, a, id) "{\"op\": \"" kind "\", \"inputs\": [\"" a "\"], \"outputs\": [{\"id\": \"" id "\"}]},"
#define B(kind, a, b, id) "{\"op\": \"" kind "\", \"inputs\": [\"" a "\", \"" b "\"], \"outputs\": [{\"id\": \"" id "\"}]},"
#define R(kind, dim, a, id) "{\"op\": \"" kind "\", \"dim\": " dim ", \"inputs\": [\"" a "\"], \"outputs\": [{\"id\": \"" id "\"}]},"
#define TR(perm, a, id) "{\"op\": \"transpose\", \"perm\": " perm ", \"inputs\": [\"" a "\"], \"outputs\": [{\"id\": \"" id "\"}]},"
#define O(id) "{\"op\": \"output\", \"name\": \"O\", \"inputs\": [\"" id "\"]}"

static PrismGraph *
graph_from_ops (const char *ops)
{
  g_autofree char *text = g_strdup_printf ("{\"format\": \"prism-graph\", \"version\": 1, \"ops\": [%s]}", ops);
  g_autoptr(GError) error = NULL;
  PrismGraph *g = prism_graph_load_from_data (text, -1, NULL, &error);

  g_assert_no_error (error);
  return g;
}

static gboolean
prove_audited (const PrismGraph *prog, const PrismGraph *cand, PrismFormalResult *r)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismFormalVerifier) fv = prism_formal_verifier_new (prog, &error);
  PrismFormalOptions options;

  g_assert_no_error (error);
  prism_formal_options_init (&options);
  options.audit = TRUE;
  g_assert_true (prism_formal_verifier_check (fv, cand, &options, r, &error));
  g_assert_no_error (error);
  return r->proved;
}

static void
test_completeness_rules (void)
{
  static const struct
  {
    const char *rule, *program, *right, *wrong;
  } cases[] = {
    { "maximum-idem", XY U ("exp", "x", "o") O ("o"),
      XY B ("maximum", "x", "x", "m") U ("exp", "m", "o") O ("o"),
      XY B ("maximum", "x", "y", "m") U ("exp", "m", "o") O ("o") },
    { "maximum-zero-relu", XY U ("relu", "x", "o") O ("o"),
      XY C ("z", "0.0") B ("maximum", "x", "z", "o") O ("o"),
      XY C ("z", "1.0") B ("maximum", "x", "z", "o") O ("o") },
    { "transpose-identity", XY U ("exp", "x", "o") O ("o"),
      XY U ("exp", "x", "e") TR ("[0, 1]", "e", "o") O ("o"),
      XY U ("exp", "x", "e") TR ("[1, 0]", "e", "o") O ("o") },
    { "transpose-compose", T3 TR ("[1, 2, 0]", "t", "o") O ("o"),
      T3 TR ("[2, 0, 1]", "t", "a") TR ("[2, 0, 1]", "a", "o") O ("o"),
      T3 TR ("[2, 0, 1]", "t", "a") TR ("[1, 0, 2]", "a", "o") O ("o") },
    { "map2-transpose", XY B ("add", "x", "y", "s") TR ("[1, 0]", "s", "o") O ("o"),
      XY TR ("[1, 0]", "x", "a") TR ("[1, 0]", "y", "b") B ("add", "a", "b", "o") O ("o"),
      XY TR ("[1, 0]", "x", "a") B ("add", "a", "y", "o") O ("o") },
    { "mul-const-fold", XY C ("c", "6.0") B ("mul", "x", "c", "o") O ("o"),
      XY C ("a", "2.0") C ("b", "3.0") B ("mul", "x", "a", "p") B ("mul", "p", "b", "o") O ("o"),
      XY C ("a", "2.0") C ("b", "4.0") B ("mul", "x", "a", "p") B ("mul", "p", "b", "o") O ("o") },
    { "div-const-count", XY R ("mean", "1", "x", "o") O ("o"),
      XY C ("n", "8.0") R ("sum", "1", "x", "s") B ("div", "s", "n", "o") O ("o"),
      XY C ("n", "4.0") R ("sum", "1", "x", "s") B ("div", "s", "n", "o") O ("o") },
    { "divn-mul", XY C ("c", "3.0") R ("mean", "1", "x", "m") B ("mul", "m", "c", "o") O ("o"),
      XY C ("c", "3.0") B ("mul", "x", "c", "p") R ("mean", "1", "p", "o") O ("o"),
      XY C ("c", "3.0") B ("mul", "x", "y", "p") R ("mean", "1", "p", "o") O ("o") },
    { "sum-mul-const", XY R ("sum", "1", "y", "c") R ("sum", "1", "x", "s") B ("mul", "s", "c", "o") O ("o"),
      XY R ("sum", "1", "y", "c") B ("mul", "x", "c", "p") R ("sum", "1", "p", "o") O ("o"),
      XY B ("mul", "x", "y", "p") R ("sum", "1", "p", "o") O ("o") },
    { "add-neg-sub", XY B ("sub", "x", "y", "o") O ("o"),
      XY U ("neg", "y", "n") B ("add", "x", "n", "o") O ("o"),
      XY U ("neg", "x", "n") B ("add", "y", "n", "s") U ("neg", "s", "o") O ("o") },
    { "exp-div", XY B ("sub", "x", "y", "d") U ("exp", "d", "o") O ("o"),
      XY U ("exp", "x", "a") U ("exp", "y", "b") B ("div", "a", "b", "o") O ("o"),
      XY U ("exp", "x", "a") U ("exp", "y", "b") B ("div", "b", "a", "o") O ("o") },
    { "sum-sum-comm", T3 R ("sum", "0", "t", "a") R ("sum", "1", "a", "o") O ("o"),
      T3 R ("sum", "1", "t", "a") R ("sum", "0", "a", "o") O ("o"),
      T3 R ("max", "1", "t", "a") R ("sum", "0", "a", "o") O ("o") },
    { "max-max-comm", T3 R ("max", "0", "t", "a") R ("max", "1", "a", "o") O ("o"),
      T3 R ("max", "1", "t", "a") R ("max", "0", "a", "o") O ("o"),
      T3 R ("max", "1", "t", "a") R ("sum", "0", "a", "o") O ("o") },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(PrismGraph) prog = graph_from_ops (cases[i].program);
      g_autoptr(PrismGraph) right = graph_from_ops (cases[i].right);
      g_autoptr(PrismGraph) wrong = graph_from_ops (cases[i].wrong);
      PrismFormalResult r;
      gboolean used = FALSE;

      if (!prove_audited (prog, right, &r))
        g_error ("%s: the right graph is not proved (%s)", cases[i].rule, r.stop_reason);
      for (guint k = 0; k < r.rules_used->len; k++)
        used |= g_strcmp0 (g_ptr_array_index (r.rules_used, k), cases[i].rule) == 0;
      if (!used)
        g_error ("%s: the proof does not use the rule", cases[i].rule);
      prism_formal_result_clear (&r);
      if (prove_audited (prog, wrong, &r))
        g_error ("%s: a wrong graph is proved", cases[i].rule);
      g_assert_cmpstr (r.stop_reason, ==, "saturated");
      prism_formal_result_clear (&r);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/formal/completeness-rules", test_completeness_rules);
  g_test_add_func ("/formal/translate/rms-norm", test_translate_rms_norm);
  g_test_add_func ("/formal/translate/axes", test_translate_axes);
  g_test_add_func ("/formal/translate/symbolic", test_translate_symbolic);
  g_test_add_func ("/formal/translate/errors", test_translate_errors);
  g_test_add ("/formal/rules/cancel", RuleFixture, NULL, rule_fixture_setup, test_rule_cancel,
              rule_fixture_teardown);
  g_test_add ("/formal/rules/broadcast", RuleFixture, NULL, rule_fixture_setup, test_rule_broadcast,
              rule_fixture_teardown);
  g_test_add ("/formal/rules/partitions", RuleFixture, NULL, rule_fixture_setup, test_rule_partitions,
              rule_fixture_teardown);
  g_test_add ("/formal/rules/rename", RuleFixture, NULL, rule_fixture_setup, test_rule_rename,
              rule_fixture_teardown);
  g_test_add ("/formal/rules/matmul", RuleFixture, NULL, rule_fixture_setup, test_rule_matmul,
              rule_fixture_teardown);
  g_test_add ("/formal/rules/sums", RuleFixture, NULL, rule_fixture_setup, test_rule_sums,
              rule_fixture_teardown);
  g_test_add ("/formal/rules/neg", RuleFixture, NULL, rule_fixture_setup, test_rule_neg,
              rule_fixture_teardown);
  g_test_add ("/formal/rules/copies", RuleFixture, NULL, rule_fixture_setup, test_rule_copies,
              rule_fixture_teardown);
  g_test_add ("/formal/rules/rename-nested", RuleFixture, NULL, rule_fixture_setup, test_rule_rename_nested,
              rule_fixture_teardown);
  g_test_add_func ("/formal/variants", test_variants);
  g_test_add_func ("/formal/new-operators", test_new_operators);
  g_test_add_func ("/formal/transposed-operand", test_transposed_operand);
  g_test_add_func ("/formal/references/default-shapes", test_references_default);
  g_test_add_func ("/formal/references/small-shapes", test_references_small);
  g_test_add_func ("/formal/references/other-shapes", test_references_other_shapes);
  g_test_add_func ("/formal/references/symbolic-sizes", test_symbolic_sizes);
  g_test_add_func ("/formal/not-proved", test_not_proved);
  g_test_add_func ("/formal/rms-norm-eps", test_rms_norm_eps);
  g_test_add_func ("/formal/limits", test_limits);

  return g_test_run ();
}
