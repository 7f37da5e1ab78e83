/* test-oracle.c — expression-guided pruning on the built-in workloads
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "prism-error.h"
#include "prism-graph-json.h"
#include "prism-oracle.h"
#include "prism-workload.h"

static PrismOracle *
oracle_for (const PrismGraph *program, PrismAbstractMode mode)
{
  g_autoptr(GError) error = NULL;
  PrismOracleOptions options;
  PrismOracle *oracle;

  prism_oracle_options_init (&options);
  options.mode = mode;
  /* Bounded by nodes and iterations only: a wall-clock limit would make
   * "saturated" depend on the machine's load (a sanitizer build on a busy
   * machine ran out of its 10 s). */
  options.time_limit_s = 0;
  oracle = prism_oracle_new_full (program, &options, &error);
  g_assert_no_error (error);
  g_assert_nonnull (oracle);
  return oracle;
}

static char *
describe (const PrismGraph *g, const PrismGraph *block, const guint *ins, guint t,
          PrismAbstractMode mode)
{
  g_autoptr(PrismTerm) term = prism_abstract_expr_of_tensor (g, block, ins, block != NULL, t,
                                                             mode, NULL);

  return term != NULL ? prism_term_to_string (term) : g_strdup ("(no expression)");
}

/* Asserts that every tensor of @g (kernel level and every custom kernel's
 * body) passes. */
static void
assert_all_pass_mode (PrismOracle *oracle, PrismAbstractMode mode, const PrismGraph *g,
                      const char *what)
{
  guint n_failed = 0;

  for (guint t = 0; t < g->tensors->len; t++)
    if (!prism_oracle_check_mode (oracle, mode, g, NULL, NULL, t))
      {
        g_autofree char *e = describe (g, NULL, NULL, t, mode);
        g_test_message ("%s: kernel tensor %u %s is pruned", what, t, e);
        n_failed++;
      }
  for (guint i = 0; i < g->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (g, i);
      if (op->body == NULL)
        continue;
      for (guint t = 0; t < op->body->tensors->len; t++)
        if (!prism_oracle_check_mode (oracle, mode, g, op->body, op->inputs, t))
          {
            g_autofree char *e = describe (g, op->body, op->inputs, t, mode);
            g_test_message ("%s: tensor %u of kernel op %u %s is pruned", what, t, i, e);
            n_failed++;
          }
    }
  g_assert_cmpuint (n_failed, ==, 0);
}

static void
assert_all_pass (PrismOracle *oracle, const PrismGraph *g, const char *what)
{
  assert_all_pass_mode (oracle, prism_oracle_get_mode (oracle), g, what);
}

static void
test_workloads_untiled (void)
{
  guint n;
  const PrismWorkloadInfo *list = prism_workload_list (&n);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(PrismGraph) program = prism_workload_build (list[i].name, NULL, &error);
      g_autoptr(PrismGraph) fused = NULL;
      g_autoptr(PrismOracle) oracle = NULL;
      PrismOracleStats st;

      g_assert_no_error (error);
      oracle = oracle_for (program, PRISM_ABSTRACT_UNTILED);
      prism_oracle_get_stats (oracle, &st);
      g_test_message ("%s: %u e-nodes, %u classes, %u iterations, %s, %.3f s", list[i].name,
                      st.n_nodes, st.n_classes, st.iterations,
                      prism_stop_reason_to_string (st.stop_reason), st.seconds);
      g_assert_cmpuint (st.n_outputs, ==, 1);
      g_assert_cmpuint (st.n_nodes, >=, st.n_target_nodes);
      g_assert_cmpuint (st.n_classes, <=, st.n_nodes);
      g_assert_cmpuint (st.iterations, >=, 1);
      /* Every limit the oracle may stop at is one it was given. */
      g_assert_true (st.stop_reason == PRISM_STOP_SATURATED ||
                     st.stop_reason == PRISM_STOP_NODE_LIMIT);

      assert_all_pass (oracle, program, list[i].name);

      /* The hand-written fused graph must be reachable by the search. */
      g_assert_true (list[i].has_reference);
      fused = prism_workload_build_reference (list[i].name, NULL, &error);
      g_assert_no_error (error);
      assert_all_pass (oracle, fused, list[i].name);

      /* The same e-graph with the fused graph's own tile sizes: the factor
       * rules bridge the loop and tile splits, (sum 64 (sum 64 …)) for
       * (sum 4096 …), even where saturation stopped at the node limit. */
      assert_all_pass_mode (oracle, PRISM_ABSTRACT_CONCRETE, fused, list[i].name);
    }
}

/* The one-kernel flash attention (running max, online accumulators) is
 * reachable: its running max reads as the final max, its accumulators as
 * the sums they equal, so no tensor of it is pruned, untiled or with its
 * own tile sizes. */
static void
test_online_softmax (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "verify", "graphs",
                                                 "attention_safe-online.json", NULL);
  g_autoptr(PrismGraph) flash = prism_graph_load (path, NULL, &error);
  g_autoptr(PrismGraph) program = NULL;
  g_autoptr(PrismOracle) oracle = NULL;

  g_assert_no_error (error);
  program = prism_workload_build ("attention_safe", NULL, &error);
  g_assert_no_error (error);
  oracle = oracle_for (program, PRISM_ABSTRACT_UNTILED);
  assert_all_pass (oracle, flash, "attention_safe-online");
  assert_all_pass_mode (oracle, PRISM_ABSTRACT_CONCRETE, flash, "attention_safe-online");
}

/* Issue 13's done-when program with a row-major weight: its hand fusion,
 * each weight tile transposed in the block, is reachable (a transpose is
 * its operand's value with the dims reordered, at both levels). */
static void
test_transposed_operand (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *prog_path = g_test_build_filename (G_TEST_DIST, "search", "done-when",
                                                      "rmsnorm_linear_row_major.json", NULL);
  g_autofree char *hand_path = g_test_build_filename (G_TEST_DIST, "search", "done-when",
                                                      "rmsnorm_linear_row_major-hand.json", NULL);
  g_autoptr(PrismGraph) program = prism_graph_load (prog_path, NULL, &error);
  g_autoptr(PrismGraph) hand = NULL;
  g_autoptr(PrismOracle) oracle = NULL;

  g_assert_no_error (error);
  hand = prism_graph_load (hand_path, NULL, &error);
  g_assert_no_error (error);
  oracle = oracle_for (program, PRISM_ABSTRACT_UNTILED);
  assert_all_pass (oracle, hand, "rmsnorm_linear_row_major-hand");
  assert_all_pass_mode (oracle, PRISM_ABSTRACT_CONCRETE, hand, "rmsnorm_linear_row_major-hand");
}

/* Oracles in CONCRETE mode, at small shapes (with tile sizes that are not
 * powers of two) where every reference saturates. */
static void
test_workloads_concrete (void)
{
  static const struct
  {
    const char *name;
    const char *params;
  } cases[] = {
    { "rms_norm", "n=4,d=256" },
    { "rms_norm", "n=3,d=96" },
    { "rmsnorm_mlp", "n=4,d=64" },
    { "swiglu", "n=8,d=256" },
    { "attention", "b=2,h=2,q=2,kv=128,dh=32" },
    { "attention", "b=1,h=3,q=1,kv=50,dh=12" },
    { "qk_norm_attention", "b=2,h=2,q=2,kv=128,dh=32" },
    { "gated_mlp", "n=4,d=512" },
    { "lora", "n=5,d=90,r=3,o=150" },
    { "gqa", "b=2,q=64,kv=1024,dh=32" },
    { "norm_transformer", "n=4,d=512" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(PrismGraph) program = prism_workload_build (cases[i].name, cases[i].params,
                                                            &error);
      g_autoptr(PrismGraph) fused = NULL;
      g_autoptr(PrismOracle) oracle = NULL;
      g_autofree char *what = g_strdup_printf ("%s %s", cases[i].name, cases[i].params);
      PrismOracleStats st;

      g_assert_no_error (error);
      oracle = oracle_for (program, PRISM_ABSTRACT_CONCRETE);
      prism_oracle_get_stats (oracle, &st);
      g_test_message ("%s: %u e-nodes, %s", what, st.n_nodes,
                      prism_stop_reason_to_string (st.stop_reason));
      g_assert_cmpint (st.stop_reason, ==, PRISM_STOP_SATURATED);
      assert_all_pass (oracle, program, what);
      fused = prism_workload_build_reference (cases[i].name, cases[i].params, &error);
      g_assert_no_error (error);
      assert_all_pass (oracle, fused, what);
    }
}

/* ------------------------------------------------------------------------ */
/* Wrong tensors */

static int
op1 (PrismGraph *g, PrismOpKind kind, int a)
{
  g_autoptr(GError) error = NULL;
  guint in[1] = { (guint) a };
  int t = prism_graph_add (g, kind, in, 1, NULL, &error);

  g_assert_no_error (error);
  return t;
}

static int
op2 (PrismGraph *g, PrismOpKind kind, int a, int b)
{
  g_autoptr(GError) error = NULL;
  guint in[2] = { (guint) a, (guint) b };
  int t = prism_graph_add (g, kind, in, 2, NULL, &error);

  g_assert_no_error (error);
  return t;
}

static int
op_attr (PrismGraph *g, PrismOpKind kind, int a, int dim, guint norm_dims)
{
  g_autoptr(GError) error = NULL;
  guint in[1] = { (guint) a };
  PrismOpAttrs attrs;
  int t;

  prism_op_attrs_init (&attrs);
  attrs.dim = dim;
  attrs.norm_dims = norm_dims;
  t = prism_graph_add (g, kind, in, 1, &attrs, &error);
  g_assert_no_error (error);
  return t;
}

static int
input (const PrismGraph *g, guint k)
{
  g_autoptr(GArray) ids = prism_graph_get_inputs (g);

  return (int) g_array_index (ids, guint, k);
}

static void
assert_pruned (PrismOracle *oracle, const PrismGraph *g, int t, const char *why)
{
  g_autofree char *e = describe (g, NULL, NULL, (guint) t, prism_oracle_get_mode (oracle));

  g_test_message ("%s: %s", why, e);
  g_assert_false (prism_oracle_check (oracle, g, NULL, NULL, (guint) t));
}

static void
assert_kept (PrismOracle *oracle, const PrismGraph *g, int t, const char *why)
{
  g_autofree char *e = describe (g, NULL, NULL, (guint) t, prism_oracle_get_mode (oracle));

  g_test_message ("%s: %s", why, e);
  g_assert_true (prism_oracle_check (oracle, g, NULL, NULL, (guint) t));
}

static PrismGraph *
build (const char *name, const char *params)
{
  g_autoptr(GError) error = NULL;
  PrismGraph *g = prism_workload_build (name, params, &error);

  g_assert_no_error (error);
  return g;
}

static void
test_rejects (void)
{
  /* rms_norm: O = rms_norm(X) @ W, X [8, 4096], W [4096, 4096]. */
  {
    g_autoptr(PrismGraph) g = build ("rms_norm", NULL);
    g_autoptr(PrismOracle) oracle = oracle_for (g, PRISM_ABSTRACT_UNTILED);
    int x = input (g, 0), w = input (g, 1);
    int y = op_attr (g, PRISM_OP_RMS_NORM, x, 0, 1);

    assert_pruned (oracle, g, op1 (g, PRISM_OP_EXP, x), "exp(X) in rms_norm");
    assert_pruned (oracle, g, op1 (g, PRISM_OP_SILU, op2 (g, PRISM_OP_MATMUL, y, w)),
                   "silu where the target has none");
    assert_pruned (oracle, g, op2 (g, PRISM_OP_MATMUL, w, w), "W @ W");
    assert_pruned (oracle, g, op_attr (g, PRISM_OP_RMS_NORM, x, 0, 2),
                   "rms_norm over both dims (rms 32768)");
    assert_pruned (oracle, g, op2 (g, PRISM_OP_ADD, x, x), "X + X");
    /* … while a matmul without the normalisation is a legal part: the
     * division can move out of the sum. */
    assert_kept (oracle, g, op2 (g, PRISM_OP_MATMUL, x, w), "X @ W");
    assert_kept (oracle, g, op_attr (g, PRISM_OP_RMS_NORM, x, 0, 1), "rms_norm(X) again");
  }

  /* A sum over a size that is no part of any reduction of the target. */
  {
    g_autoptr(PrismGraph) g = build ("rms_norm", "n=6,d=4096");
    g_autoptr(PrismOracle) oracle = oracle_for (g, PRISM_ABSTRACT_UNTILED);

    assert_pruned (oracle, g, op_attr (g, PRISM_OP_SUM, input (g, 0), 0, 1), "sum over the rows");
  }

  /* swiglu: O = silu(X @ W_gate) ⊙ (X @ W_up). */
  {
    g_autoptr(PrismGraph) g = build ("swiglu", NULL);
    g_autoptr(PrismOracle) oracle = oracle_for (g, PRISM_ABSTRACT_UNTILED);
    int x = input (g, 0), wg = input (g, 1), wu = input (g, 2);
    int xg = op2 (g, PRISM_OP_MATMUL, x, wg), xu = op2 (g, PRISM_OP_MATMUL, x, wu);

    assert_pruned (oracle, g, op2 (g, PRISM_OP_MATMUL, wg, wu), "W_gate @ W_up");
    assert_pruned (oracle, g, op1 (g, PRISM_OP_SILU, xu), "silu on the wrong branch");
    assert_pruned (oracle, g, op2 (g, PRISM_OP_MUL, xg, xu), "the product without silu");
    assert_pruned (oracle, g, op1 (g, PRISM_OP_GELU, xg), "gelu for silu");
    assert_kept (oracle, g, op2 (g, PRISM_OP_MUL, xu, op1 (g, PRISM_OP_SILU, xg)),
                 "the output with the operands swapped");
  }

  /* attention: O = (exp(Q K) / Σ exp(Q K)) V. */
  {
    g_autoptr(PrismGraph) g = build ("attention", NULL);
    g_autoptr(PrismOracle) oracle = oracle_for (g, PRISM_ABSTRACT_UNTILED);
    int q = input (g, 0), k = input (g, 1), v = input (g, 2);
    int qk = op2 (g, PRISM_OP_MATMUL, q, k);
    int e = op1 (g, PRISM_OP_EXP, qk);

    assert_pruned (oracle, g, op2 (g, PRISM_OP_MATMUL, k, v), "K @ V");
    assert_pruned (oracle, g, op1 (g, PRISM_OP_EXP, q), "exp(Q)");
    assert_pruned (oracle, g, op_attr (g, PRISM_OP_SUM, qk, 2, 1), "Σ QK without exp");
    assert_pruned (oracle, g, op1 (g, PRISM_OP_SILU, qk), "silu(QK)");
    assert_kept (oracle, g, op2 (g, PRISM_OP_MATMUL, e, v), "the numerator exp(QK) V");
  }

  /* qk_norm_attention: only Q is normalised. */
  {
    g_autoptr(PrismGraph) g = build ("qk_norm_attention", NULL);
    g_autoptr(PrismOracle) oracle = oracle_for (g, PRISM_ABSTRACT_UNTILED);

    assert_pruned (oracle, g, op_attr (g, PRISM_OP_RMS_NORM, input (g, 1), 0, 1),
                   "rms_norm(K)");
  }

  /* norm_transformer: rms_norm(H), never rms_norm(X). */
  {
    g_autoptr(PrismGraph) g = build ("norm_transformer", NULL);
    g_autoptr(PrismOracle) oracle = oracle_for (g, PRISM_ABSTRACT_UNTILED);

    assert_pruned (oracle, g, op_attr (g, PRISM_OP_RMS_NORM, input (g, 1), 0, 1),
                   "rms_norm(X)");
    assert_pruned (oracle, g, op2 (g, PRISM_OP_SUB, input (g, 1), input (g, 2)), "X - alpha");
  }
}

/* Fused graphs with one mistake are pruned at the mistake. */
static void
test_wrong_fused (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismGraph) g = build ("rms_norm", NULL);
  g_autoptr(PrismOracle) oracle = oracle_for (g, PRISM_ABSTRACT_UNTILED);
  g_autoptr(PrismGraph) body = NULL;
  gint64 grid[1] = { 64 };
  int rep[3] = { -1, -1, -1 }, col[3] = { 1, -1, -1 };
  guint ins[2] = { (guint) input (g, 0), (guint) input (g, 1) };
  const PrismTensor *tx = prism_graph_tensor (g, ins[0]);
  const PrismTensor *tw = prism_graph_tensor (g, ins[1]);
  int xt, wt, acc, bad_rms, good_rms;

  /* The reference's kernel, as an open block: accum(X W) / accum_rms(X) is
   * right; accum(X W) / accum_sum(X) is not. */
  body = prism_block_graph_new_const (1, grid, 128, 64);
  xt = prism_block_graph_add_input (body, 0, 2, tx->dims, tx->dtype, rep, 1, &error);
  g_assert_no_error (error);
  wt = prism_block_graph_add_input (body, 1, 2, tw->dims, tw->dtype, col, 0, &error);
  g_assert_no_error (error);
  acc = op1 (body, PRISM_OP_ACCUM, op2 (body, PRISM_OP_MATMUL, xt, wt));
  good_rms = op1 (body, PRISM_OP_ACCUM_RMS, xt);
  bad_rms = op1 (body, PRISM_OP_ACCUM_SUM, xt);

  g_assert_true (prism_oracle_check (oracle, g, body, ins, (guint) acc));
  g_assert_true (prism_oracle_check (oracle, g, body, ins,
                                     (guint) op2 (body, PRISM_OP_DIV, acc, good_rms)));
  g_assert_false (prism_oracle_check (oracle, g, body, ins,
                                      (guint) op2 (body, PRISM_OP_DIV, acc, bad_rms)));
  g_assert_false (prism_oracle_check (oracle, g, body, ins,
                                      (guint) op2 (body, PRISM_OP_MUL, acc, good_rms)));
  /* exp of W is no part of the target (matmul(W, X) does not fit these shapes). */
  g_assert_false (prism_oracle_check (oracle, g, body, ins,
                                      (guint) op1 (body, PRISM_OP_EXP, wt)));
  /* A bare input always passes. */
  g_assert_true (prism_oracle_check (oracle, g, body, ins, (guint) wt));
}

/* The factor rules: a loop of 64 over tiles of 64 sums what one sum of 4096
 * does; sizes that are no product of divisors do not pass. */
static void
test_factor_rules (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismGraph) g = prism_graph_new ();
  g_autoptr(PrismOracle) oracle = NULL;
  gint64 dims[2] = { 4, 4096 };
  int x = prism_graph_add_input (g, "X", 2, dims, PRISM_DTYPE_F32, &error);
  int s = op_attr (g, PRISM_OP_SUM, x, 1, 1);
  static const struct
  {
    const char *term;
    gboolean pass;
  } cases[] = {
    { "(sum 4096 v0)", TRUE },
    { "(sum 64 (sum 64 v0))", TRUE },
    { "(sum 2 (sum 2048 v0))", TRUE },
    { "(sum 16 (sum 4 (sum 64 v0)))", TRUE },
    { "(sum 32 (sum 64 v0))", TRUE },     /* a partial sum is part of the whole */
    { "(sum 64 v0)", TRUE },
    { "v0", TRUE },
    { "(sum 3 (sum 64 v0))", FALSE },
    { "(sum 2 (sum 4096 v0))", FALSE },
    { "(sum 8192 v0)", FALSE },
    { "(sum 64 (exp v0))", FALSE },
    { "(rms 4096 v0)", FALSE },
    { "v1", FALSE },
  };
  PrismOracleStats st;

  g_assert_no_error (error);
  g_assert_no_error (error);
  g_assert_cmpint (prism_graph_add_output (g, (guint) s, "O", &error), >=, 0);
  g_assert_no_error (error);
  oracle = oracle_for (g, PRISM_ABSTRACT_CONCRETE);
  prism_oracle_get_stats (oracle, &st);
  /* 4096 = 2 · 2048 = 4 · 1024 … = 2048 · 2, then 2048 = 2 · 1024 … 4 = 2 · 2 */
  g_assert_cmpuint (st.n_factor_rules, ==, 21);
  g_assert_cmpint (st.stop_reason, ==, PRISM_STOP_SATURATED);
  g_assert_nonnull (strstr (prism_oracle_get_rules_text (oracle),
                            "factor-sum-4096-64: (sum 4096 ?a) <=> (sum 64 (sum 64 ?a))"));
  g_assert_nonnull (strstr (prism_oracle_get_rules_text (oracle),
                            "factor-sum-2048: (sum 2048 ?a) <=> (sum 2 (sum 1024 ?a))"));
  g_assert_nonnull (strstr (prism_oracle_get_rules_text (oracle), "comm-add:"));
  {
    g_autofree char *target = prism_term_to_string (prism_oracle_get_target (oracle));
    g_assert_cmpstr (target, ==, "(sum 4096 v0)");
  }

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(PrismTerm) t = prism_term_parse (cases[i].term, &error);
      g_assert_no_error (error);
      g_test_message ("%s", cases[i].term);
      g_assert_cmpint (prism_oracle_check_term (oracle, t, prism_term_get_root (t)), ==,
                       cases[i].pass);
    }

  /* The same as a block: a loop of 64 accumulating sums over tiles of 64. */
  {
    g_autoptr(PrismGraph) body = NULL;
    gint64 grid[1] = { 4 };
    int map[3] = { 0, -1, -1 };
    guint ins[1] = { (guint) x };
    const PrismTensor *tx = prism_graph_tensor (g, (guint) x);
    int xt, part, acc, acc_sum;

    body = prism_block_graph_new_const (1, grid, 128, 64);
    xt = prism_block_graph_add_input (body, 0, 2, tx->dims, tx->dtype, map, 1, &error);
    g_assert_no_error (error);
    part = op_attr (body, PRISM_OP_SUM, xt, 1, 1);
    acc = op1 (body, PRISM_OP_ACCUM, part);
    acc_sum = op1 (body, PRISM_OP_ACCUM_SUM, xt);
    g_assert_true (prism_oracle_check (oracle, g, body, ins, (guint) part));
    g_assert_true (prism_oracle_check (oracle, g, body, ins, (guint) acc));
    g_assert_true (prism_oracle_check (oracle, g, body, ins, (guint) acc_sum));
    /* exp of a partial sum is no part of the target. */
    g_assert_false (prism_oracle_check (oracle, g, body, ins,
                                        (guint) op1 (body, PRISM_OP_EXP, acc)));
  }
}

/* Sizes that are not prime powers: every divisor gets a factor rule. */
static void
test_factor_rules_composite (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismGraph) g = prism_graph_new ();
  g_autoptr(PrismOracle) oracle = NULL;
  gint64 dims[2] = { 5, 24 };
  int x = prism_graph_add_input (g, "X", 2, dims, PRISM_DTYPE_F32, &error);
  static const struct
  {
    const char *term;
    gboolean pass;
  } cases[] = {
    { "(sum 3 (sum 8 v0))", TRUE },
    { "(sum 8 (sum 3 v0))", TRUE },
    { "(sum 2 (sum 3 (sum 4 v0)))", TRUE },
    { "(sum 6 (sum 4 v0))", TRUE },
    { "(sum 12 v0)", TRUE },
    { "(sum 5 (sum 24 v0))", FALSE },
    { "(sum 5 v0)", FALSE },
    { "(sum 9 v0)", FALSE },
  };
  PrismOracleStats st;

  g_assert_no_error (error);
  g_assert_cmpint (prism_graph_add_output (g, (guint) op_attr (g, PRISM_OP_SUM, x, 1, 1), NULL,
                                           &error), >=, 0);
  g_assert_no_error (error);
  oracle = oracle_for (g, PRISM_ABSTRACT_UNTILED);
  prism_oracle_get_stats (oracle, &st);
  /* 24 = 2 · 12 = 3 · 8 = 4 · 6 (both ways), then 4, 6, 8 and 12 */
  g_assert_cmpuint (st.n_factor_rules, ==, 10);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(PrismTerm) t = prism_term_parse (cases[i].term, &error);
      g_assert_no_error (error);
      g_test_message ("%s", cases[i].term);
      g_assert_cmpint (prism_oracle_check_term (oracle, t, prism_term_get_root (t)), ==,
                       cases[i].pass);
    }
}

/* lora as concat-then-matmul: [X, XA] @ [W; B] = XW + (XA)B. */
static void
test_concat (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismGraph) g = build ("lora", "n=16,d=256,r=16,o=512");
  g_autoptr(PrismOracle) oracle = oracle_for (g, PRISM_ABSTRACT_UNTILED);
  g_autoptr(PrismGraph) body = NULL;
  gint64 grid[1] = { 1 };
  int rep[3] = { -1, -1, -1 };
  guint ins[4];
  int tiles[4], xa, left, right, bad, mm;
  PrismOpAttrs attrs;
  guint in[2];

  body = prism_block_graph_new_const (1, grid, 128, 1);
  for (guint k = 0; k < 4; k++)
    {
      const PrismTensor *t;
      ins[k] = (guint) input (g, k);
      t = prism_graph_tensor (g, ins[k]);
      tiles[k] = prism_block_graph_add_input (body, k, 2, t->dims, t->dtype, rep, -1, &error);
      g_assert_no_error (error);
    }
  xa = op2 (body, PRISM_OP_MATMUL, tiles[0], tiles[2]);
  prism_op_attrs_init (&attrs);
  attrs.dim = 1;
  in[0] = (guint) tiles[0];
  in[1] = (guint) xa;
  left = prism_graph_add (body, PRISM_OP_CONCAT, in, 2, &attrs, &error);
  g_assert_no_error (error);
  attrs.dim = 0;
  in[0] = (guint) tiles[1];
  in[1] = (guint) tiles[3];
  right = prism_graph_add (body, PRISM_OP_CONCAT, in, 2, &attrs, &error);
  g_assert_no_error (error);
  mm = op2 (body, PRISM_OP_MATMUL, left, right);

  g_assert_true (prism_oracle_check (oracle, g, body, ins, (guint) left));
  g_assert_true (prism_oracle_check (oracle, g, body, ins, (guint) right));
  g_assert_true (prism_oracle_check (oracle, g, body, ins, (guint) mm));
  /* A concat with a wrong operand, and anything but a matmul over a concat. */
  attrs.dim = 1;
  in[0] = (guint) tiles[0];
  in[1] = (guint) op1 (body, PRISM_OP_EXP, xa);
  bad = prism_graph_add (body, PRISM_OP_CONCAT, in, 2, &attrs, &error);
  g_assert_no_error (error);
  g_assert_false (prism_oracle_check (oracle, g, body, ins, (guint) bad));
  g_assert_false (prism_oracle_check (oracle, g, body, ins,
                                      (guint) op1 (body, PRISM_OP_SILU, left)));
}

/* ------------------------------------------------------------------------ */
/* Threads */

typedef struct
{
  PrismOracle *oracle;
  const PrismGraph *program;
  const PrismGraph *fused;
  const gboolean *expected;
  guint n_expected;
  guint rounds;
  guint mismatches;
} ThreadData;

/* Every tensor of @program, then every tensor of @fused (kernel level and
 * bodies), in a fixed order; @out (if not NULL) gets the answers. */
static guint
check_all (PrismOracle *oracle, const PrismGraph *program, const PrismGraph *fused,
           gboolean *out, const gboolean *expected)
{
  const PrismGraph *graphs[2] = { program, fused };
  guint k = 0, mismatches = 0;

  for (guint gi = 0; gi < 2; gi++)
    {
      const PrismGraph *g = graphs[gi];
      for (guint t = 0; t < g->tensors->len; t++, k++)
        {
          gboolean r = prism_oracle_check (oracle, g, NULL, NULL, t);
          if (out != NULL)
            out[k] = r;
          if (expected != NULL && expected[k] != r)
            mismatches++;
        }
      for (guint i = 0; i < g->ops->len; i++)
        {
          const PrismOp *op = prism_graph_op (g, i);
          if (op->body == NULL)
            continue;
          for (guint t = 0; t < op->body->tensors->len; t++, k++)
            {
              gboolean r = prism_oracle_check (oracle, g, op->body, op->inputs, t);
              if (out != NULL)
                out[k] = r;
              if (expected != NULL && expected[k] != r)
                mismatches++;
            }
        }
    }
  return out != NULL ? k : mismatches;
}

static gpointer
thread_func (gpointer user_data)
{
  ThreadData *d = user_data;

  for (guint r = 0; r < d->rounds; r++)
    d->mismatches += check_all (d->oracle, d->program, d->fused, NULL, d->expected);
  return NULL;
}

static void
test_threads (void)
{
  g_autoptr(PrismGraph) program = build ("qk_norm_attention", NULL);
  g_autoptr(PrismGraph) fused = NULL;
  g_autoptr(PrismOracle) oracle = oracle_for (program, PRISM_ABSTRACT_UNTILED);
  gboolean expected[512];
  ThreadData data[4];
  GThread *threads[4];
  guint n, n_pass = 0;

  fused = prism_workload_build_reference ("qk_norm_attention", NULL, NULL);
  g_assert_nonnull (fused);
  /* Some wrong tensors too, so that both answers are exercised. */
  op1 (program, PRISM_OP_EXP, input (program, 0));
  op2 (program, PRISM_OP_MATMUL, input (program, 1), input (program, 2));
  n = check_all (oracle, program, fused, expected, NULL);
  g_assert_cmpuint (n, <=, G_N_ELEMENTS (expected));
  for (guint i = 0; i < n; i++)
    n_pass += expected[i];
  g_assert_cmpuint (n_pass, >, 0);
  g_assert_cmpuint (n_pass, <, n);

  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    {
      data[i] = (ThreadData) { oracle, program, fused, expected, n, 2000, 0 };
      threads[i] = g_thread_new ("oracle-check", thread_func, &data[i]);
    }
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    {
      g_thread_join (threads[i]);
      g_assert_cmpuint (data[i].mismatches, ==, 0);
    }
}

static void
test_errors (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismGraph) g = prism_graph_new ();
  g_autoptr(PrismGraph) block = prism_block_graph_new_const (1, (gint64[]) { 1 }, 128, 1);
  g_autoptr(PrismOracle) oracle = NULL;
  gint64 dims[2] = { 2, 2 };

  g_assert_cmpint (prism_graph_add_input (g, "X", 2, dims, PRISM_DTYPE_F32, &error), ==, 0);
  oracle = prism_oracle_new (g, &error);
  g_assert_null (oracle);
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_INVALID_GRAPH);
  g_assert_nonnull (strstr (error->message, "no output"));
  g_clear_error (&error);

  oracle = prism_oracle_new (block, &error);
  g_assert_null (oracle);
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_INVALID_GRAPH);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/oracle/workloads-untiled", test_workloads_untiled);
  g_test_add_func ("/oracle/workloads-concrete", test_workloads_concrete);
  g_test_add_func ("/oracle/online-softmax", test_online_softmax);
  g_test_add_func ("/oracle/transposed-operand", test_transposed_operand);
  g_test_add_func ("/oracle/rejects", test_rejects);
  g_test_add_func ("/oracle/wrong-fused", test_wrong_fused);
  g_test_add_func ("/oracle/factor-rules", test_factor_rules);
  g_test_add_func ("/oracle/factor-rules-composite", test_factor_rules_composite);
  g_test_add_func ("/oracle/concat", test_concat);
  g_test_add_func ("/oracle/threads", test_threads);
  g_test_add_func ("/oracle/errors", test_errors);

  return g_test_run ();
}
