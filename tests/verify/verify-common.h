/* verify-common.h — workload shapes and helpers shared by the verifier tests
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "prism-graph.h"
#include "prism-graph-json.h"

/* Small shapes for which every fused reference still splits its work: each
 * grid axis that can be bigger than 1 is, and so is each loop. */
static const struct
{
  const char *name;
  const char *params;
} small_workloads[] = {
  { "rms_norm", "n=4,d=128" },
  { "rmsnorm_mlp", "n=4,d=128" },
  { "swiglu", "n=4,d=256" },
  { "gated_mlp", "n=4,d=256" },
  { "lora", "n=4,d=128,r=8,o=128" },
  { "norm_transformer", "n=4,d=16" },
  { "attention", "b=2,h=2,q=64,kv=576,dh=4" },
  { "qk_norm_attention", "b=2,h=2,q=64,kv=576,dh=4" },
  { "gqa", "b=2,q=128,kv=1152,dh=4" },
  { "softmax_safe", "n=4,d=32,v=48" },
  { "attention_safe", "b=2,h=2,q=4,kv=96,dh=4" },
  { "layer_norm_linear", "n=4,d=32,o=16" },
};

/* Graphs of tests/verify/graphs/: right variants of the fused references
 * that the rules of groups 1, 7 and 11 of verify.rules prove (each with the
 * rule that does it), and wrong variants beside them that nothing may
 * prove. */
G_GNUC_UNUSED static const struct
{
  const char *file;
  const char *workload;
  const char *params;
  gboolean right;
  const char *rule;      /* the rule a proof of a right one must use */
} variants[] = {
  { "rms_norm-neg-neg.json", "rms_norm", "n=4,d=128", TRUE, "neg-neg" },
  { "rms_norm-neg.json", "rms_norm", "n=4,d=128", FALSE, NULL },
  { "gqa-loop-replicated.json", "gqa", "b=2,q=128,kv=1152,dh=4", TRUE, "scale-cancel" },
  { "norm_transformer-loop-replicated.json", "norm_transformer", "n=4,d=16", TRUE, "rms-norm-scale" },
  { "gqa-loop-replicated-numerator.json", "gqa", "b=2,q=128,kv=1152,dh=4", FALSE, NULL },
  { "attention-grid-replicated.json", "attention", "b=2,h=2,q=64,kv=576,dh=4", TRUE, "scale-cancel" },
  { "rms_norm-grid-replicated.json", "rms_norm", "n=4,d=128", FALSE, NULL },
  { "gqa-flash-decoding.json", "gqa", "b=2,q=128,kv=1152,dh=4", TRUE, "reduce-rename-nested" },
  { "gqa-flash-decoding-grid-split.json", "gqa", "b=2,q=128,kv=1152,dh=4", FALSE, NULL },
  /* The online softmax (group 13): one kernel, the keys split by the loop. */
  { "attention_safe-online-small.json", "attention_safe", "b=2,h=2,q=4,kv=96,dh=4", TRUE, "online-matmul" },
  { "attention_safe-online-small-no-rescale-wrong.json", "attention_safe", "b=2,h=2,q=4,kv=96,dh=4", FALSE, NULL },
};

/* The first op of @kind in the body of the first custom kernel of @graph, or -1. */
static inline int
first_block_op (const PrismGraph *graph, PrismOpKind kind, const PrismGraph **body)
{
  for (guint i = 0; i < graph->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (graph, i);
      if (op->kind != PRISM_OP_KERNEL)
        continue;
      *body = op->body;
      for (guint j = 0; j < op->body->ops->len; j++)
        if (prism_graph_op (op->body, j)->kind == kind)
          return (int) j;
      return -1;
    }
  return -1;
}

/* rms_norm's fused graph with a symbolic grid (gx) and loop (F). */
G_GNUC_UNUSED static PrismGraph *
symbolic_rms_norm (gint64 n, gint64 d)
{
  PrismGraph *g = prism_graph_new ();
  guint gx = prism_graph_add_var (g, "gx");
  guint f = prism_graph_add_var (g, "F");
  g_autoptr(PrismDim) gd = prism_dim_var (gx);
  g_autoptr(PrismDim) fd = prism_dim_var (f);
  g_autoptr(PrismGraph) b = prism_block_graph_new (1, &gd, 128, fd);
  gint64 xs[2] = { n, d }, ws[2] = { d, d };
  int imap_x[3] = { -1, -1, -1 }, imap_w[3] = { 1, -1, -1 }, omap[3] = { 1, -1, -1 };
  guint ins[2], mm[2], dv[2], one[1];
  int xt, wt, acc, rms, out, kop;

  ins[0] = (guint) prism_graph_add_input (g, "X", 2, xs, PRISM_DTYPE_F16, NULL);
  ins[1] = (guint) prism_graph_add_input (g, "W", 2, ws, PRISM_DTYPE_F16, NULL);
  xt = prism_block_graph_add_input (b, 0, 2, prism_graph_tensor (g, ins[0])->dims, PRISM_DTYPE_F16,
                                    imap_x, 1, NULL);
  wt = prism_block_graph_add_input (b, 1, 2, prism_graph_tensor (g, ins[1])->dims, PRISM_DTYPE_F16,
                                    imap_w, 0, NULL);
  g_assert_cmpint (xt, >=, 0);
  g_assert_cmpint (wt, >=, 0);
  mm[0] = (guint) xt;
  mm[1] = (guint) wt;
  one[0] = (guint) prism_graph_add (b, PRISM_OP_MATMUL, mm, 2, NULL, NULL);
  acc = prism_graph_add (b, PRISM_OP_ACCUM, one, 1, NULL, NULL);
  one[0] = (guint) xt;
  rms = prism_graph_add (b, PRISM_OP_ACCUM_RMS, one, 1, NULL, NULL);
  dv[0] = (guint) acc;
  dv[1] = (guint) rms;
  out = prism_graph_add (b, PRISM_OP_DIV, dv, 2, NULL, NULL);
  g_assert_cmpint (prism_block_graph_add_output (b, (guint) out, omap, NULL), >=, 0);
  kop = prism_graph_add_kernel (g, ins, 2, b, NULL);
  g_assert_cmpint (kop, >=, 0);
  g_assert_cmpint (prism_graph_add_output (g, prism_graph_op (g, (guint) kop)->outputs[0], "O", NULL), >=, 0);
  return g;
}

/* A graph of tests/verify/graphs/ (see the README there). */
G_GNUC_UNUSED static PrismGraph *
load_test_graph (const char *name)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "verify", "graphs", name, NULL);
  g_autoptr(GError) error = NULL;
  PrismGraph *g = prism_graph_load (path, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (g);
  return g;
}
