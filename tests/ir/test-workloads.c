/* test-workloads.c — the built-in workloads and their fused reference graphs
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "prism-error.h"
#include "prism-interp.h"
#include "prism-workload.h"

static const char * const expected_names[] = {
  "rms_norm", "rmsnorm_mlp", "swiglu", "attention", "qk_norm_attention",
  "gated_mlp", "lora", "gqa", "norm_transformer", "softmax_safe", "attention_safe",
  "layer_norm_linear",
};

/* Small shapes for the numeric checks (and some that make the tile chooser
 * fall back to odd divisors). */
static const struct
{
  const char *name;
  const char *params;
} small_shapes[] = {
  { "rms_norm", "n=4,d=256" },
  { "rms_norm", "n=3,d=96" },
  { "rmsnorm_mlp", "n=4,d=256" },
  { "swiglu", "n=8,d=256" },
  { "attention", "b=2,h=2,q=2,kv=128,dh=32" },
  { "attention", "b=1,h=3,q=1,kv=50,dh=12" },
  { "qk_norm_attention", "b=2,h=2,q=2,kv=128,dh=32" },
  { "gated_mlp", "n=4,d=512" },
  { "lora", "n=8,d=128,r=8,o=512" },
  { "lora", "n=5,d=90,r=3,o=150" },
  { "gqa", "b=2,q=64,kv=1024,dh=32" },
  { "gqa", "b=1,q=20,kv=300,dh=8" },
  { "norm_transformer", "n=4,d=512" },
  { "softmax_safe", "n=4,d=128,v=256" },
  { "softmax_safe", "n=3,d=90,v=150" },
  { "attention_safe", "b=2,h=2,q=2,kv=128,dh=32" },
  { "attention_safe", "b=1,h=3,q=1,kv=50,dh=12" },
  { "layer_norm_linear", "n=4,d=256,o=128" },
  { "layer_norm_linear", "n=3,d=96,o=50" },
};

static void
input_shape (const PrismGraph *g, guint k, gint64 *shape, guint *ndims)
{
  g_autoptr(GArray) ids = prism_graph_get_inputs (g);
  const PrismTensor *t = prism_graph_tensor (g, g_array_index (ids, guint, k));

  g_assert_true (prism_tensor_get_shape (t, shape));
  *ndims = t->ndims;
}

static void
assert_input (const PrismGraph *g, guint k, guint ndims, gint64 d0, gint64 d1, gint64 d2)
{
  gint64 shape[PRISM_MAX_DIMS];
  gint64 want[3] = { d0, d1, d2 };
  guint nd;

  input_shape (g, k, shape, &nd);
  g_assert_cmpuint (nd, ==, ndims);
  for (guint i = 0; i < ndims; i++)
    g_assert_cmpint (shape[i], ==, want[i]);
}

static void
test_list (void)
{
  guint n = 0;
  const PrismWorkloadInfo *list = prism_workload_list (&n);

  g_assert_cmpuint (n, ==, G_N_ELEMENTS (expected_names));
  for (guint i = 0; i < n; i++)
    {
      g_assert_cmpstr (list[i].name, ==, expected_names[i]);
      g_assert_true (prism_workload_lookup (list[i].name) == &list[i]);
      g_assert_true (g_str_has_suffix (list[i].description, "."));
      g_assert_nonnull (strchr (list[i].shape_params, '='));
      g_assert_true (list[i].has_reference);
    }
  g_assert_null (prism_workload_lookup ("nope"));
  g_assert_null (prism_workload_lookup (NULL));
}

static void
check_program (const PrismGraph *g, const char *name)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) ins = prism_graph_get_inputs (g);
  g_autoptr(GArray) outs = prism_graph_get_outputs (g);

  g_assert_true (prism_graph_validate (g, &error));
  g_assert_no_error (error);
  g_assert_true (prism_graph_is_concrete (g));
  g_assert_cmpstr (g->name, ==, name);
  g_assert_cmpuint (outs->len, ==, 1);
  for (guint k = 0; k < ins->len; k++)
    g_assert_cmpint (prism_graph_tensor (g, g_array_index (ins, guint, k))->dtype, ==,
                     PRISM_DTYPE_F16);
}

static void
test_build_defaults (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (expected_names); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(PrismGraph) g = prism_workload_build (expected_names[i], NULL, &error);
      g_autoptr(PrismGraph) e = prism_workload_build (expected_names[i], "", &error);

      g_assert_no_error (error);
      check_program (g, expected_names[i]);
      check_program (e, expected_names[i]);
      g_assert_cmpuint (prism_graph_count_kernels (g), ==, prism_graph_count_kernels (e));
      /* The unfused programs use predefined ops only. */
      for (guint o = 0; o < g->ops->len; o++)
        g_assert_cmpint (prism_graph_op (g, o)->kind, !=, PRISM_OP_KERNEL);
    }
}

static PrismGraph *
build_ok (const char *name, const char *params)
{
  g_autoptr(GError) error = NULL;
  PrismGraph *g = prism_workload_build (name, params, &error);

  g_assert_no_error (error);
  g_assert_nonnull (g);
  check_program (g, name);
  return g;
}

static void
test_build_shapes (void)
{
  g_autoptr(PrismGraph) rms = build_ok ("rms_norm", NULL);
  g_autoptr(PrismGraph) rms16 = build_ok ("rms_norm", "n=16,d=1024");
  g_autoptr(PrismGraph) mlp = build_ok ("rmsnorm_mlp", " n = 16 , d=2048 ");
  g_autoptr(PrismGraph) swiglu = build_ok ("swiglu", NULL);
  g_autoptr(PrismGraph) attn = build_ok ("attention", NULL);
  g_autoptr(PrismGraph) attn4 = build_ok ("attention", "b=4,h=32");
  g_autoptr(PrismGraph) qk = build_ok ("qk_norm_attention", "q=128");
  g_autoptr(PrismGraph) gated = build_ok ("gated_mlp", "d=1024");
  g_autoptr(PrismGraph) lora = build_ok ("lora", NULL);
  g_autoptr(PrismGraph) lora2 = build_ok ("lora", "r=32,o=1024");
  g_autoptr(PrismGraph) gqa = build_ok ("gqa", NULL);
  g_autoptr(PrismGraph) gqa8 = build_ok ("gqa", "b=16");
  g_autoptr(PrismGraph) nt = build_ok ("norm_transformer", NULL);
  g_autoptr(PrismGraph) nt64 = build_ok ("norm_transformer", "n=64");
  g_autoptr(PrismGraph) sm = build_ok ("softmax_safe", NULL);
  g_autoptr(PrismGraph) as = build_ok ("attention_safe", "dh=64");
  g_autoptr(PrismGraph) ln = build_ok ("layer_norm_linear", "o=1024");

  assert_input (rms, 0, 2, 8, 4096, 0);
  assert_input (rms, 1, 2, 4096, 4096, 0);
  assert_input (rms16, 0, 2, 16, 1024, 0);
  assert_input (rms16, 1, 2, 1024, 1024, 0);
  assert_input (mlp, 2, 2, 2048, 2048, 0);
  assert_input (swiglu, 0, 2, 16, 1024, 0);
  assert_input (swiglu, 2, 2, 1024, 1024, 0);
  /* Heads folded into the rows: Q [b, h·q, dh], K [b, dh, h·kv], V [b, h·kv, dh]. */
  assert_input (attn, 0, 3, 2, 8, 128);
  assert_input (attn, 1, 3, 2, 128, 8192);
  assert_input (attn, 2, 3, 2, 8192, 128);
  assert_input (attn4, 0, 3, 4, 32, 128);
  assert_input (attn4, 1, 3, 4, 128, 32768);
  assert_input (qk, 0, 3, 2, 1024, 128);
  assert_input (gated, 1, 2, 1024, 1024, 0);
  assert_input (lora, 0, 2, 16, 256, 0);
  assert_input (lora, 1, 2, 256, 4096, 0);
  assert_input (lora, 2, 2, 256, 16, 0);
  assert_input (lora, 3, 2, 16, 4096, 0);
  assert_input (lora2, 3, 2, 32, 1024, 0);
  assert_input (gqa, 0, 3, 2, 256, 64);
  assert_input (gqa, 1, 3, 2, 64, 4096);
  assert_input (gqa, 2, 3, 2, 4096, 64);
  assert_input (gqa8, 0, 3, 16, 256, 64);
  assert_input (nt, 2, 2, 8, 4096, 0);
  assert_input (nt64, 0, 2, 64, 4096, 0);
  assert_input (sm, 0, 2, 8, 1024, 0);
  assert_input (sm, 1, 2, 1024, 4096, 0);
  assert_input (as, 0, 3, 2, 8, 64);
  assert_input (as, 2, 3, 2, 8192, 64);
  assert_input (ln, 1, 2, 4096, 1024, 0);
  /* The scale of attention_safe is 1/√dh, its constant. */
  for (guint i = 0; i < as->ops->len; i++)
    if (prism_graph_op (as, i)->kind == PRISM_OP_CONSTANT)
      g_assert_cmpfloat_with_epsilon (prism_graph_op (as, i)->attrs.value, 0.125, 1e-15);
}

/* Mirage's shared-memory estimate for f16 tiles: the outputs of every op
 * except unary ops and plain accumulators (computed in place). */
static gint64
smem_bytes (const PrismGraph *body)
{
  gint64 total = 0;

  for (guint i = 0; i < body->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (body, i);

      if (op->kind == PRISM_OP_OUTPUT || op->kind == PRISM_OP_ACCUM ||
          prism_op_kind_is_unary (op->kind))
        continue;
      total += 2 * prism_tensor_numel (prism_graph_tensor (body, op->outputs[0]));
    }
  return total;
}

static void
check_reference_structure (const PrismGraph *ref, gboolean limits)
{
  guint kernels = 0;

  g_assert_true (prism_graph_is_concrete (ref));
  for (guint i = 0; i < ref->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (ref, i);
      const PrismGraph *body = op->body;
      gint64 blocks = 1;
      guint accums = 0;

      if (op->kind != PRISM_OP_KERNEL)
        {
          g_assert_true (op->kind == PRISM_OP_INPUT || op->kind == PRISM_OP_OUTPUT);
          continue;
        }
      kernels++;
      g_assert_cmpuint (body->block_threads, ==, 128);
      for (guint p = 0; p < body->grid_ndims; p++)
        blocks *= prism_dim_get_const (body->grid[p]);
      for (guint k = 0; k < body->ops->len; k++)
        accums += prism_op_kind_is_accum (prism_graph_op (body, k)->kind);
      g_assert_cmpuint (accums, <=, 3);
      if (limits)
        {
          g_assert_cmpint (blocks, <=, 4096);
          if (smem_bytes (body) > 96 * 1024)
            g_error ("%s: kernel %u needs %" G_GINT64_FORMAT " bytes of shared memory", ref->name, i,
                     smem_bytes (body));
        }
    }
  g_assert_cmpuint (kernels, >=, 1);
}

static void
test_reference_structure (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (expected_names); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(PrismGraph) ref = prism_workload_build_reference (expected_names[i], NULL, &error);
      g_autoptr(PrismGraph) prog = prism_workload_build (expected_names[i], NULL, &error);
      g_autoptr(GArray) ref_in = NULL;
      g_autoptr(GArray) prog_in = NULL;

      g_assert_no_error (error);
      check_program (ref, expected_names[i]);
      check_reference_structure (ref, TRUE);
      /* Same inputs in the same order as the unfused program. */
      ref_in = prism_graph_get_inputs (ref);
      prog_in = prism_graph_get_inputs (prog);
      g_assert_cmpuint (ref_in->len, ==, prog_in->len);
      for (guint k = 0; k < ref_in->len; k++)
        {
          gint64 a[PRISM_MAX_DIMS], b[PRISM_MAX_DIMS];
          guint na, nb;
          input_shape (ref, k, a, &na);
          input_shape (prog, k, b, &nb);
          g_assert_cmpuint (na, ==, nb);
          g_assert_cmpmem (a, na * sizeof (gint64), b, nb * sizeof (gint64));
        }
    }
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(PrismGraph) a = prism_workload_build_reference ("attention", NULL, &error);
    g_autoptr(PrismGraph) r = prism_workload_build_reference ("rms_norm", NULL, &error);
    g_assert_no_error (error);
    /* Flash decoding: a split kernel and a combining kernel. */
    g_assert_cmpuint (prism_graph_count_kernels (a), ==, 2);
    g_assert_cmpuint (prism_graph_count_kernels (r), ==, 1);
  }
}

static void
check_reference_numerics (const char *name, const char *params)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismGraph) prog = prism_workload_build (name, params, &error);
  g_autoptr(PrismGraph) ref = prism_workload_build_reference (name, params, &error);
  g_autoptr(GPtrArray) ins = NULL;
  g_autoptr(GPtrArray) want = NULL;
  g_autoptr(GPtrArray) got = NULL;
  PrismInterpOptions opts = { PRISM_PRECISION_F32, 0 };
  double err;

  g_assert_no_error (error);
  check_reference_structure (ref, FALSE);
  ins = prism_interp_make_inputs (prog, 1234);
  want = prism_interp_run (prog, (PrismBuffer **) ins->pdata, ins->len, &opts, &error);
  g_assert_no_error (error);
  got = prism_interp_run (ref, (PrismBuffer **) ins->pdata, ins->len, &opts, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (want->len, ==, 1);
  g_assert_cmpuint (got->len, ==, 1);
  g_assert_true (prism_buffer_same_shape (g_ptr_array_index (got, 0), g_ptr_array_index (want, 0)));
  /* The output is not trivially zero. */
  g_assert_cmpfloat (prism_buffer_norm (g_ptr_array_index (want, 0)), >, 1e-3);
  err = prism_buffer_max_rel_error (g_ptr_array_index (got, 0), g_ptr_array_index (want, 0));
  g_test_message ("%s (%s): max relative error %.3g", name, params ? params : "defaults", err);
  if (!(err <= 1e-4))
    g_error ("%s (%s): fused reference differs from the program: %.3g", name,
             params ? params : "defaults", err);
}

static void
test_reference_small (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (small_shapes); i++)
    check_reference_numerics (small_shapes[i].name, small_shapes[i].params);
}

static void
test_reference_defaults (void)
{
  check_reference_numerics ("rms_norm", NULL);
  check_reference_numerics ("swiglu", NULL);
  check_reference_numerics ("attention", NULL);
  check_reference_numerics ("attention_safe", NULL);
}

/* A wrong reference must be caught by the same comparison: perturb one
 * input of the fused graph's run. */
static void
test_reference_detects_difference (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismGraph) prog = prism_workload_build ("swiglu", "n=4,d=128", &error);
  g_autoptr(PrismGraph) ref = prism_workload_build_reference ("swiglu", "n=4,d=128", &error);
  g_autoptr(GPtrArray) ins = prism_interp_make_inputs (prog, 3);
  g_autoptr(GPtrArray) want = NULL;
  g_autoptr(GPtrArray) got = NULL;
  PrismBuffer *x;

  g_assert_no_error (error);
  want = prism_interp_run (prog, (PrismBuffer **) ins->pdata, ins->len, NULL, &error);
  g_assert_no_error (error);
  x = g_ptr_array_index (ins, 0);
  x->data[5] += 0.01;
  got = prism_interp_run (ref, (PrismBuffer **) ins->pdata, ins->len, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (prism_buffer_max_rel_error (g_ptr_array_index (got, 0),
                                                 g_ptr_array_index (want, 0)), >, 1e-4);
}

static void
test_bad_params (void)
{
  static const struct
  {
    const char *name;
    const char *params;
    const char *fragment;
  } bad[] = {
    { "rms_norm", "n=0", "“n”" },
    { "rms_norm", "n=-3", "“n”" },
    { "rms_norm", "n=abc", "abc" },
    { "rms_norm", "n=8x", "8x" },
    { "rms_norm", "x=3", "“x”" },
    { "rms_norm", "n", "key=value" },
    { "rms_norm", "n=8,,d=16", "key=value" },
    { "rms_norm", "n=8,n=16", "twice" },
    { "rms_norm", "d=99999999999", "d" },
    { "attention", "heads=8", "b, h, q, kv, dh" },
    { "lora", "n=", "“n”" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GError) error2 = NULL;
      g_autoptr(PrismGraph) g = prism_workload_build (bad[i].name, bad[i].params, &error);
      g_autoptr(PrismGraph) r = prism_workload_build_reference (bad[i].name, bad[i].params, &error2);

      g_assert_null (g);
      g_assert_null (r);
      g_assert_error (error, PRISM_ERROR, PRISM_ERROR_PARSE);
      g_assert_error (error2, PRISM_ERROR, PRISM_ERROR_PARSE);
      if (strstr (error->message, bad[i].fragment) == NULL)
        g_error ("“%s”: message “%s” lacks “%s”", bad[i].params, error->message, bad[i].fragment);
    }
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(PrismGraph) g = prism_workload_build ("nope", NULL, &error);
    g_assert_null (g);
    g_assert_error (error, PRISM_ERROR, PRISM_ERROR_PARSE);
    g_clear_error (&error);
    g_assert_null (prism_workload_build_reference ("nope", "n=1", &error));
    g_assert_error (error, PRISM_ERROR, PRISM_ERROR_PARSE);
  }
  {
    /* Values that parse but make a dim too large are graph errors. */
    g_autoptr(GError) error = NULL;
    g_autoptr(PrismGraph) g = prism_workload_build ("attention", "h=65536,kv=65536", &error);
    g_assert_null (g);
    g_assert_error (error, PRISM_ERROR, PRISM_ERROR_INVALID_GRAPH);
    g_assert_nonnull (strstr (error->message, "attention"));
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/workloads/list", test_list);
  g_test_add_func ("/workloads/build/defaults", test_build_defaults);
  g_test_add_func ("/workloads/build/shapes", test_build_shapes);
  g_test_add_func ("/workloads/build/bad-params", test_bad_params);
  g_test_add_func ("/workloads/reference/structure", test_reference_structure);
  g_test_add_func ("/workloads/reference/small", test_reference_small);
  g_test_add_func ("/workloads/reference/defaults", test_reference_defaults);
  g_test_add_func ("/workloads/reference/detects-difference", test_reference_detects_difference);

  return g_test_run ();
}
