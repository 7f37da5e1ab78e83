/* test-pipeline.c — a whole run: results.json, determinism, resume, session
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "prism-error.h"
#include "prism-graph-json.h"
#include "prism-pipeline.h"
#include "prism-recheck.h"
#include "prism-results.h"
#include "prism-session.h"
#include "prism-sgraph.h"
#include "prism-workload.h"

#define RMS "n=4,d=64"

static char *tmpdir;

static PrismGraph *
program (const char *name, const char *params)
{
  g_autoptr(GError) error = NULL;
  PrismGraph *g = prism_workload_build (name, params, &error);

  g_assert_no_error (error);
  return g;
}

typedef struct
{
  PrismPipeline *pipeline;
  guint stop_after;       /* stop once this many candidates were verified (0: never) */
  gint verified;
  gint finished;
  gint errors;
} Run;

static void
on_event (PrismEvent *e, gpointer data)
{
  Run *run = data;

  if (e->kind == PRISM_EVENT_VERIFIED &&
      (guint) g_atomic_int_add (&run->verified, 1) + 1 == run->stop_after)
    prism_pipeline_stop (run->pipeline);
  if (e->kind == PRISM_EVENT_FINISHED)
    g_atomic_int_inc (&run->finished);
  if (e->kind == PRISM_EVENT_ERROR)
    g_atomic_int_inc (&run->errors);
}

/* Runs a pipeline; returns the digests of its candidates in order. */
static GPtrArray *
run_pipeline (PrismGraph *prog, PrismPipelineOptions *o, guint stop_after, char **stop_reason)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismPipeline) p = prism_pipeline_new (prog, o, &error);
  g_autoptr(GPtrArray) cands = NULL;
  GPtrArray *digests = g_ptr_array_new_with_free_func (g_free);
  Run run = { 0, };

  g_assert_no_error (error);
  run.pipeline = p;
  run.stop_after = stop_after;
  prism_pipeline_set_handlers (p, on_event, NULL, &run);
  g_assert_true (prism_pipeline_run (p, &error));
  g_assert_no_error (error);
  g_assert_cmpint (run.finished, ==, 1);
  g_assert_cmpint (run.errors, ==, 0);
  cands = prism_pipeline_get_candidates (p);
  for (guint i = 0; i < cands->len; i++)
    g_ptr_array_add (digests, g_strdup (((PrismCandidate *) g_ptr_array_index (cands, i))->digest));
  if (stop_reason != NULL)
    *stop_reason = g_strdup (prism_pipeline_get_stop_reason (p));
  return digests;
}

static void
small_options (PrismPipelineOptions *o, guint threads)
{
  prism_pipeline_options_init (o);
  o->search.n_threads = threads;
  o->search.time_limit_s = 0;
  o->source = "rms_norm";
  /* These tests are about the search; test-search-tune times candidates. */
  o->tune_top = 0;
}

static void
assert_same (GPtrArray *a, GPtrArray *b)
{
  g_assert_cmpuint (a->len, ==, b->len);
  for (guint i = 0; i < a->len; i++)
    g_assert_cmpstr (g_ptr_array_index (a, i), ==, g_ptr_array_index (b, i));
}

static JsonObject *
load_object (const char *path, JsonParser *parser)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (json_parser_load_from_file (parser, path, &error));
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)));
  return json_node_get_object (json_parser_get_root (parser));
}

/* ------------------------------------------------------------------------ */

static void
test_results_file (void)
{
  g_autoptr(PrismGraph) prog = program ("rms_norm", RMS);
  g_autofree char *dir = g_build_filename (tmpdir, "results", NULL);
  g_autofree char *path = g_build_filename (dir, "results.json", NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GPtrArray) digests = NULL;
  g_autoptr(PrismResults) loaded = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GDir) listing = NULL;
  PrismPipelineOptions o;
  JsonObject *root, *stats, *pruned, *best;
  JsonArray *cands;
  gint64 best_id = -1;
  double baseline;

  small_options (&o, 2);
  o.out_dir = dir;
  digests = run_pipeline (prog, &o, 0, NULL);
  g_assert_cmpuint (digests->len, >=, 9);

  root = load_object (path, parser);
  g_assert_cmpstr (json_object_get_string_member (root, "format"), ==, "prism-results");
  g_assert_cmpint (json_object_get_int_member (root, "version"), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (root, "mode"), ==, "symbolic");
  g_assert_cmpstr (json_object_get_string_member (root, "target"), ==, "h100");
  g_assert_true (json_object_get_boolean_member (root, "complete"));
  g_assert_cmpstr (json_object_get_string_member (root, "stop_reason"), ==, "exhausted");
  g_assert_true (JSON_NODE_HOLDS_OBJECT (json_object_get_member (root, "program")));
  stats = json_object_get_object_member (root, "stats");
  g_assert_cmpint (json_object_get_int_member (stats, "states"), >, 0);
  g_assert_cmpint (json_object_get_int_member (stats, "sgraphs"), >, 0);
  /* Verified candidates with the canonical form of an earlier one are its
   * equivalents, not candidates. */
  g_assert_cmpint (json_object_get_int_member (stats, "verified"), ==,
                   (gint64) digests->len + json_object_get_int_member (stats, "equivalent"));
  g_assert_cmpint (json_object_get_int_member (stats, "distinct"), ==, (gint64) digests->len);
  g_assert_cmpfloat (json_object_get_double_member (stats, "elapsed_s"), >, 0);
  pruned = json_object_get_object_member (stats, "pruned");
  for (guint r = 0; r < PRISM_N_PRUNE_REASONS; r++)
    g_assert_true (json_object_has_member (pruned, prism_prune_reason_to_string (r)));
  baseline = json_object_get_double_member (json_object_get_object_member (root, "baseline"),
                                            "predicted_us");
  g_assert_cmpfloat (baseline, >, 0);

  cands = json_object_get_array_member (root, "candidates");
  best = json_object_get_object_member (root, "best");
  g_assert_cmpuint (json_array_get_length (cands), ==, digests->len);
  for (guint i = 0; i < json_array_get_length (cands); i++)
    {
      JsonObject *c = json_array_get_object_element (cands, i);
      JsonObject *v = json_object_get_object_member (c, "verification");
      JsonArray *methods = json_object_get_array_member (v, "methods");
      g_autoptr(PrismGraph) concrete = NULL;
      double predicted = json_object_get_double_member (c, "predicted_us");

      g_assert_cmpstr (json_object_get_string_member (c, "digest"), ==, g_ptr_array_index (digests, i));
      /* Ids follow the final order, also where a thread found a candidate
       * first and its cached text had another number. */
      g_assert_cmpint (json_object_get_int_member (c, "id"), ==, i + 1);
      g_assert_cmpint (json_object_get_int_member (c, "kernels"), >=, 1);
      g_assert_true (json_object_get_boolean_member (c, "verified"));
      g_assert_cmpstr (json_object_get_string_member (v, "verdict"), ==, "equivalent");
      g_assert_cmpuint (json_array_get_length (methods), ==, 2);
      g_assert_cmpstr (json_array_get_string_element (methods, 0), ==, "formal");
      g_assert_cmpstr (json_array_get_string_element (methods, 1), ==, "random");
      g_assert_true (json_object_get_boolean_member (json_object_get_object_member (v, "formal"), "proved"));
      g_assert_true (json_object_get_boolean_member (json_object_get_object_member (v, "random"), "ok"));
      g_assert_cmpfloat (predicted, >, 0);
      g_assert_cmpfloat_with_epsilon (json_object_get_double_member (c, "speedup"), baseline / predicted, 1e-9);
      /* "graph" runs as it is; "symbolic_graph" is the proved form. */
      concrete = prism_graph_from_json (json_object_get_member (c, "graph"), NULL, &error);
      g_assert_no_error (error);
      g_assert_true (prism_graph_is_concrete (concrete));
      g_assert_true (JSON_NODE_HOLDS_OBJECT (json_object_get_member (c, "symbolic_graph")));
      if (g_strcmp0 (json_object_get_string_member (c, "digest"),
                     json_object_get_string_member (best, "digest")) == 0)
        best_id = json_object_get_int_member (c, "id");
    }
  g_assert_cmpint (best_id, ==, json_object_get_int_member (best, "id"));

  /* The reader gives back the same candidates. */
  loaded = prism_results_load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (prism_results_get_candidates (loaded)->len, ==, digests->len);
  g_assert_cmpstr (prism_results_get_stop_reason (loaded), ==, "exhausted");
  g_assert_cmpfloat (prism_results_get_baseline_us (loaded), ==, baseline);

  /* Written atomically: no temporary file is left beside it. */
  listing = g_dir_open (dir, 0, NULL);
  g_assert_cmpstr (g_dir_read_name (listing), ==, "results.json");
  g_assert_null (g_dir_read_name (listing));
}

/* Whether a custom kernel of @g has a block op of @kind. */
static gboolean
has_block_op (const PrismGraph *g, PrismOpKind kind)
{
  for (guint i = 0; i < g->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (g, i);
      if (op->body != NULL)
        for (guint j = 0; j < op->body->ops->len; j++)
          if (prism_graph_op (op->body, j)->kind == kind)
            return TRUE;
    }
  return FALSE;
}

/* The workloads in the safe form (max, mean, constants): the search finds
 * verified candidates, some with the max or mean fused into a kernel. */
static void
test_safe_workloads (void)
{
  static const struct
  {
    const char *name, *params;
    PrismOpKind fused;
    guint stop_after;
  } cases[] = {
    { "softmax_safe", "n=4,d=64,v=128", PRISM_OP_MAX, 8 },
    { "attention_safe", "b=1,h=2,q=1,kv=64,dh=32", PRISM_OP_MAX, 0 },
    { "layer_norm_linear", "n=4,d=64,o=64", PRISM_OP_MEAN, 0 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(PrismGraph) prog = program (cases[i].name, cases[i].params);
      g_autoptr(GError) error = NULL;
      g_autoptr(PrismPipeline) p = NULL;
      g_autoptr(GPtrArray) cands = NULL;
      PrismPipelineOptions o;
      gboolean fused = FALSE;
      Run run = { 0, };

      small_options (&o, 2);
      o.source = cases[i].name;
      p = prism_pipeline_new (prog, &o, &error);
      g_assert_no_error (error);
      run.pipeline = p;
      run.stop_after = cases[i].stop_after;
      prism_pipeline_set_handlers (p, on_event, NULL, &run);
      g_assert_true (prism_pipeline_run (p, &error));
      g_assert_no_error (error);
      g_assert_cmpint (run.errors, ==, 0);
      cands = prism_pipeline_get_candidates (p);
      g_test_message ("%s: %u candidates", cases[i].name, cands->len);
      g_assert_cmpuint (cands->len, >, 0);
      for (guint c = 0; c < cands->len; c++)
        {
          const PrismCandidate *cand = g_ptr_array_index (cands, c);
          g_assert_cmpuint (prism_graph_count_kernels (cand->graph), >, 0);
          fused = fused || has_block_op (cand->graph, cases[i].fused);
        }
      if (!fused)
        g_error ("%s: no candidate has %s inside a kernel", cases[i].name,
                 prism_op_kind_to_string (cases[i].fused));
    }
}

/* The online softmax in the search: on safe attention, with room for 13
 * block ops (Q, K, V and 1/√d; both matmuls, the scale, the running max
 * step, sub, exp, the two online accumulators and the divide), a verified
 * candidate is one kernel with a loop over the keys (at this size with the
 * divide after it; the full-size search puts it inside too). */
static void
test_online_softmax (void)
{
  g_autoptr(PrismGraph) prog = program ("attention_safe", "b=1,h=2,q=1,kv=64,dh=32");
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismPipeline) p = NULL;
  g_autoptr(GPtrArray) cands = NULL;
  PrismPipelineOptions o;
  gboolean flash = FALSE;
  Run run = { 0, };

  small_options (&o, 2);
  o.source = "attention_safe";
  o.search.max_block_ops = 13;
  p = prism_pipeline_new (prog, &o, &error);
  g_assert_no_error (error);
  run.pipeline = p;
  prism_pipeline_set_handlers (p, on_event, NULL, &run);
  g_assert_true (prism_pipeline_run (p, &error));
  g_assert_no_error (error);
  g_assert_cmpint (run.errors, ==, 0);
  cands = prism_pipeline_get_candidates (p);
  for (guint c = 0; c < cands->len && !flash; c++)
    {
      const PrismCandidate *cand = g_ptr_array_index (cands, c);
      const PrismGraph *g = cand->graph;
      guint n_matmuls = 0, n_kernels = 0, n_other = 0;
      const PrismGraph *body = NULL;

      for (guint i = 0; i < g->ops->len; i++)
        {
          const PrismOp *op = prism_graph_op (g, i);
          if (op->kind == PRISM_OP_KERNEL)
            {
              n_kernels++;
              body = op->body;
            }
          else if (op->kind != PRISM_OP_INPUT && op->kind != PRISM_OP_OUTPUT &&
                   op->kind != PRISM_OP_CONSTANT && op->kind != PRISM_OP_DIV)
            n_other++;
        }
      /* Sizes are symbolic here: a loop that may split the keys. */
      if (n_kernels != 1 || n_other != 0 || prism_dim_is_const (body->forloop))
        continue;
      for (guint j = 0; j < body->ops->len; j++)
        n_matmuls += prism_graph_op (body, j)->kind == PRISM_OP_MATMUL;
      flash = n_matmuls == 2 && has_block_op (g, PRISM_OP_RUNNING_MAX) &&
              has_block_op (g, PRISM_OP_ACCUM_ONLINE) && has_block_op (g, PRISM_OP_ACCUM_SUM_ONLINE);
    }
  g_test_message ("%u candidates", cands->len);
  if (!flash)
    g_error ("no candidate is the one-kernel flash attention");
}

/* A linear layer whose weight is stored row-major (transposed before the
 * matmul): every candidate is verified and transposes once, as a
 * predefined op or inside a kernel; one candidate is a single launch that
 * transposes each weight tile it reads (a block transpose of a block
 * INPUT), which is faster than transposing the whole weight first. */
static void
test_transpose_program (void)
{
  g_autoptr(PrismGraph) prog = prism_graph_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismPipeline) p = NULL;
  g_autoptr(GPtrArray) cands = NULL;
  PrismPipelineOptions o;
  PrismOpAttrs attrs;
  Run run = { 0, };
  gint64 xd[2] = { 8, 64 }, wd[2] = { 128, 64 };
  const PrismCandidate *one_kernel = NULL, *best = NULL;
  guint x, w, in[2];
  int t;

  prism_graph_set_name (prog, "linear_row_major_w", NULL);
  x = (guint) prism_graph_add_input (prog, "X", 2, xd, PRISM_DTYPE_F16, &error);
  w = (guint) prism_graph_add_input (prog, "Wt", 2, wd, PRISM_DTYPE_F16, &error);
  g_assert_no_error (error);
  prism_op_attrs_init (&attrs);
  attrs.perm[0] = 1;
  attrs.perm[1] = 0;
  in[0] = x;
  in[1] = (guint) prism_graph_add (prog, PRISM_OP_TRANSPOSE, &w, 1, &attrs, &error);
  t = prism_graph_add (prog, PRISM_OP_MATMUL, in, 2, NULL, &error);
  in[0] = (guint) t;
  t = prism_graph_add (prog, PRISM_OP_EXP, in, 1, NULL, &error);
  g_assert_cmpint (prism_graph_add_output (prog, (guint) t, "O", &error), >=, 0);
  g_assert_no_error (error);

  small_options (&o, 2);
  o.source = "linear_row_major_w";
  p = prism_pipeline_new (prog, &o, &error);
  g_assert_no_error (error);
  run.pipeline = p;
  prism_pipeline_set_handlers (p, on_event, NULL, &run);
  g_assert_true (prism_pipeline_run (p, &error));
  g_assert_no_error (error);
  g_assert_cmpint (run.errors, ==, 0);
  cands = prism_pipeline_get_candidates (p);
  g_assert_cmpuint (cands->len, >, 0);
  for (guint c = 0; c < cands->len; c++)
    {
      const PrismCandidate *cand = g_ptr_array_index (cands, c);
      const PrismGraph *g = cand->graph;
      guint n_transpose = 0, n_block_transpose = 0;
      for (guint i = 0; i < g->ops->len; i++)
        {
          const PrismOp *op = prism_graph_op (g, i);
          if (op->kind == PRISM_OP_TRANSPOSE)
            {
              n_transpose++;
              g_assert_cmpint (op->attrs.perm[0], ==, 1);
            }
          for (guint j = 0; op->body != NULL && j < op->body->ops->len; j++)
            {
              const PrismOp *bop = prism_graph_op (op->body, j);
              if (bop->kind != PRISM_OP_TRANSPOSE)
                continue;
              n_block_transpose++;
              g_assert_cmpint (bop->attrs.perm[0], ==, 1);
              /* Only a tile as it was read is transposed. */
              g_assert_cmpint (prism_graph_op (op->body, prism_graph_tensor (op->body, bop->inputs[0])->producer)->kind,
                               ==, PRISM_OP_INPUT);
            }
        }
      g_assert_cmpuint (n_transpose + n_block_transpose, ==, 1);
      g_assert_cmpuint (prism_graph_count_kernels (g), >, 0);
      if (n_block_transpose == 1 && cand->n_kernels == 1)
        one_kernel = cand;
      if (best == NULL || cand->predicted_us < best->predicted_us)
        best = cand;
    }
  if (one_kernel == NULL)
    g_error ("no candidate is one kernel transposing the weight's tiles");
  g_test_message ("one kernel: %.2f us; best: %.2f us (%u launches)", one_kernel->predicted_us,
                  best->predicted_us, best->n_kernels);
  g_assert_cmpuint (best->n_kernels, ==, 1);
}

/* Runs a whole search of @prog; returns its candidates. */
static GPtrArray *
search_candidates (PrismGraph *prog, const char *source)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismPipeline) p = NULL;
  PrismPipelineOptions o;
  Run run = { 0, };

  small_options (&o, 2);
  o.source = source;
  p = prism_pipeline_new (prog, &o, &error);
  g_assert_no_error (error);
  run.pipeline = p;
  prism_pipeline_set_handlers (p, on_event, NULL, &run);
  g_assert_true (prism_pipeline_run (p, &error));
  g_assert_no_error (error);
  g_assert_cmpint (run.errors, ==, 0);
  return prism_pipeline_get_candidates (p);
}

/* Issue 22, item 5: LM head + softmax listed candidates that differ from
 * another only by computing exp(logits) twice in one kernel (14 of 150
 * before); none is listed now, and the two-launch fusion is still found. */
static void
test_no_recomputed_candidates (void)
{
  g_autofree char *file = g_test_build_filename (G_TEST_DIST, "search", "done-when", "lm_head_softmax.json", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismGraph) prog = prism_graph_load (file, NULL, &error);
  g_autoptr(GPtrArray) cands = NULL;
  guint twice = 0, two_launches = 0;

  g_assert_no_error (error);
  cands = search_candidates (prog, "lm_head_softmax.json");
  for (guint i = 0; i < cands->len; i++)
    {
      const PrismCandidate *c = g_ptr_array_index (cands, i);
      twice += prism_graph_find_recomputed (c->graph, NULL, NULL);
      two_launches += c->n_kernels == 2;
    }
  g_test_message ("lm_head_softmax: %u candidates, %u recompute a value, %u of 2 launches",
                  cands->len, twice, two_launches);
  g_assert_cmpuint (twice, ==, 0);
  g_assert_cmpuint (two_launches, >, 0);
}

/* Thread blocks of a one-kernel candidate at its best sizes (0: not one custom kernel). */
static gint64
one_kernel_blocks (const PrismCandidate *c)
{
  const PrismGraph *g = c->graph;
  gint64 blocks = 0;

  if (c->n_kernels != 1)
    return 0;
  for (guint i = 0; i < g->ops->len; i++)
    {
      const PrismGraph *b = prism_graph_op (g, i)->body;
      if (b == NULL)
        continue;
      blocks = 1;
      for (guint a = 0; a < b->grid_ndims; a++)
        {
          gint64 v;
          g_assert_true (prism_dim_eval (b->grid[a], c->values, c->n_values, &v));
          blocks *= v;
        }
    }
  return blocks;
}

/* Sizes that are not powers of two: RMSNorm into a linear layer at X 7×3000
 * gets the one-kernel fusion it gets at 8×4096 (tiles of 3000 among its
 * divisors: 375 blocks of 8 columns, 125 of 24 …), faster than the program;
 * on Mirage's rmsnorm benchmark (X 2×4096, W 4096×6144) a grid of 192
 * (blocks of 32 columns, Mirage's best saved graph) is tried, and is as fast
 * as the best candidate. */
static void
test_sizes_not_powers_of_two (void)
{
  g_autoptr(PrismGraph) odd = program ("rms_norm", "n=7,d=3000");
  g_autofree char *file = g_test_build_filename (G_TEST_DIST, "search", "rmsnorm-linear-6144.json", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismGraph) mirage = prism_graph_load (file, NULL, &error);
  g_autoptr(GPtrArray) cands = NULL;
  const PrismCandidate *fused = NULL, *grid192 = NULL;
  double best_us = G_MAXDOUBLE;

  g_assert_no_error (error);
  cands = search_candidates (odd, "rms_norm");
  for (guint i = 0; i < cands->len; i++)
    {
      const PrismCandidate *c = g_ptr_array_index (cands, i);
      if (c->n_kernels == 1 && one_kernel_blocks (c) > 0 && c->speedup > 1.0 &&
          (fused == NULL || c->predicted_us < fused->predicted_us))
        fused = c;
    }
  if (fused == NULL)
    g_error ("rms_norm n=7,d=3000: no one-kernel candidate is faster than the program");
  g_test_message ("rms_norm n=7,d=3000: one kernel of %" G_GINT64_FORMAT " blocks, %.2f us, %.2fx",
                  one_kernel_blocks (fused), fused->predicted_us, fused->speedup);
  g_clear_pointer (&cands, g_ptr_array_unref);

  cands = search_candidates (mirage, "rmsnorm-linear-6144.json");
  for (guint i = 0; i < cands->len; i++)
    {
      const PrismCandidate *c = g_ptr_array_index (cands, i);
      best_us = MIN (best_us, c->predicted_us);
      if (one_kernel_blocks (c) == 192 && (grid192 == NULL || c->predicted_us < grid192->predicted_us))
        grid192 = c;
    }
  if (grid192 == NULL)
    g_error ("rmsnorm-linear-6144: no candidate runs on a grid of 192");
  g_test_message ("rmsnorm-linear-6144: grid 192 %.2f us (%.2fx), best %.2f us",
                  grid192->predicted_us, grid192->speedup, best_us);
  g_assert_cmpfloat (grid192->speedup, >, 1.0);
  g_assert_cmpfloat (grid192->predicted_us, <=, best_us * (1 + 1e-9));
}

static void
test_results_load_errors (void)
{
  static const struct { const char *text; int code; } cases[] = {
    { "[]", PRISM_ERROR_PARSE },
    { "{\"format\": \"prism-graph\", \"version\": 1}", PRISM_ERROR_PARSE },
    { "{\"format\": \"prism-results\", \"version\": 99}", PRISM_ERROR_VERSION },
    { "{\"format\": \"prism-results\", \"version\": 1}", PRISM_ERROR_PARSE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_build_filename (tmpdir, "bad.json", NULL);
      g_autoptr(GError) error = NULL;
      PrismResults *r;

      g_assert_true (g_file_set_contents (path, cases[i].text, -1, NULL));
      r = prism_results_load (path, &error);
      g_assert_null (r);
      g_assert_error (error, PRISM_ERROR, cases[i].code);
    }
}

/* Same program and options: the same candidates in the same order, for one
 * thread twice and for two threads. */
static void
test_determinism (void)
{
  g_autoptr(PrismGraph) prog = program ("rms_norm", RMS);
  g_autoptr(GPtrArray) a = NULL, b = NULL, c = NULL;
  PrismPipelineOptions o;

  small_options (&o, 1);
  a = run_pipeline (prog, &o, 0, NULL);
  b = run_pipeline (prog, &o, 0, NULL);
  small_options (&o, 2);
  c = run_pipeline (prog, &o, 0, NULL);
  g_assert_cmpuint (a->len, >, 0);
  assert_same (a, b);
  assert_same (a, c);
}

/* Runs the attention workload at small sizes; returns its results as the
 * file has them. */
static PrismResults *
run_attention (guint threads, const char *name)
{
  g_autoptr(PrismGraph) prog = program ("attention", "b=1,h=2,q=1,kv=64,dh=16");
  g_autofree char *dir = g_build_filename (tmpdir, name, NULL);
  g_autofree char *path = g_build_filename (dir, "results.json", NULL);
  g_autoptr(GPtrArray) digests = NULL;
  g_autoptr(GError) error = NULL;
  PrismResults *r;
  PrismPipelineOptions o;

  small_options (&o, threads);
  o.source = "attention";
  o.out_dir = dir;
  digests = run_pipeline (prog, &o, 0, NULL);
  r = prism_results_load (path, &error);
  g_assert_no_error (error);
  return r;
}

/* Candidates with one canonical form are one candidate: the first in the
 * search's order, the later ones its equivalents, with any number of
 * threads; the file's stats say verified > distinct. */
static void
test_equivalent_forms (void)
{
  g_autoptr(PrismResults) one = run_attention (1, "forms-1");
  g_autoptr(PrismResults) two = run_attention (2, "forms-2");
  GPtrArray *a = prism_results_get_candidates (one), *b = prism_results_get_candidates (two);
  const PrismRunStats *stats = prism_results_get_stats (one);
  g_autoptr(GHashTable) forms = g_hash_table_new (g_str_hash, g_str_equal);
  guint64 n_equivalent = 0;

  g_assert_cmpuint (a->len, >, 1);
  g_assert_cmpuint (stats->distinct, ==, a->len);
  g_assert_cmpuint (stats->distinct, <, stats->verified);
  g_assert_cmpuint (stats->verified, ==, stats->distinct + stats->equivalent);
  g_assert_cmpuint (a->len, ==, b->len);
  for (guint i = 0; i < a->len; i++)
    {
      PrismCandidate *x = g_ptr_array_index (a, i), *y = g_ptr_array_index (b, i);

      g_assert_cmpstr (x->digest, ==, y->digest);
      g_assert_cmpuint (x->id, ==, y->id);
      /* Every candidate is another program. */
      g_assert_true (g_hash_table_add (forms, (gpointer) prism_candidate_get_executed_digest (x)));
      g_assert_cmpuint (x->equivalents->len, ==, y->equivalents->len);
      for (guint j = 0; j < x->equivalents->len; j++)
        {
          const PrismEquivalentForm *ex = g_ptr_array_index (x->equivalents, j);
          const PrismEquivalentForm *ey = g_ptr_array_index (y->equivalents, j);

          g_assert_cmpstr (ex->digest, ==, ey->digest);
          g_assert_cmpstr (ex->digest, !=, x->digest);
          /* Met after the one kept. */
          g_assert_true (ex->task > x->task || (ex->task == x->task && ex->seq > x->seq));
        }
      n_equivalent += x->equivalents->len;
    }
  g_assert_cmpuint (n_equivalent, ==, stats->equivalent);
}

typedef struct
{
  GMutex lock;
  GHashTable *published;  /* digest → id of its VERIFIED event */
  guint last_id;          /* of the last VERIFIED event */
  gboolean in_order;      /* VERIFIED events came with ids 1, 2, 3, … */
  gint calls;             /* of slow_verify() */
} IdRun;

static void
on_event_ids (PrismEvent *e, gpointer data)
{
  IdRun *run = data;

  g_mutex_lock (&run->lock);
  if (e->kind == PRISM_EVENT_VERIFIED)
    {
      g_hash_table_insert (run->published, g_strdup (e->candidate->digest), GUINT_TO_POINTER (e->id));
      run->in_order &= e->id == run->last_id + 1 && e->candidate->id == e->id;
      run->last_id = e->id;
    }
  g_mutex_unlock (&run->lock);
}

/* Accepts what the screen let through (it is right on rms_norm), taking
 * its time over the first candidate, so that with two threads the other
 * one decides candidates later in the search's order first. */
static PrismVerdictKind
slow_verify (const PrismGraph *candidate, JsonNode **evidence, char **message, gpointer data)
{
  IdRun *run = data;

  if (g_atomic_int_add (&run->calls, 1) == 0)
    g_usleep (300 * 1000);
  *evidence = NULL;
  *message = NULL;
  return PRISM_VERDICT_EQUIVALENT;
}

/* Runs rms_norm with @threads; returns digest → id as results.json has it,
 * after checking it against the events. */
static GHashTable *
run_ids (guint threads, const char *name)
{
  g_autoptr(PrismGraph) prog = program ("rms_norm", RMS);
  g_autofree char *dir = g_build_filename (tmpdir, name, NULL);
  g_autofree char *path = g_build_filename (dir, "results.json", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismPipeline) p = NULL;
  g_autoptr(PrismResults) loaded = NULL;
  GHashTable *final = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  PrismPipelineOptions o;
  IdRun run = { 0, };
  GPtrArray *cands;

  small_options (&o, threads);
  o.out_dir = dir;
  o.verify_func = slow_verify;
  o.verify_data = &run;
  g_mutex_init (&run.lock);
  run.in_order = TRUE;
  run.published = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  p = prism_pipeline_new (prog, &o, &error);
  g_assert_no_error (error);
  prism_pipeline_set_handlers (p, on_event_ids, NULL, &run);
  g_assert_true (prism_pipeline_run (p, &error));
  g_assert_no_error (error);
  g_assert_true (run.in_order);

  /* The file lists them in the search's order, which is the id order, and
   * with the ids their events gave. */
  loaded = prism_results_load (path, &error);
  g_assert_no_error (error);
  cands = prism_results_get_candidates (loaded);
  g_assert_cmpuint (cands->len, >, 1);
  g_assert_cmpuint (g_hash_table_size (run.published), ==, cands->len);
  for (guint i = 0; i < cands->len; i++)
    {
      PrismCandidate *c = g_ptr_array_index (cands, i);

      g_assert_cmpuint (c->id, ==, i + 1);
      g_assert_cmpuint (GPOINTER_TO_UINT (g_hash_table_lookup (run.published, c->digest)), ==, c->id);
      g_hash_table_insert (final, g_strdup (c->digest), GUINT_TO_POINTER (c->id));
    }
  g_hash_table_unref (run.published);
  g_mutex_clear (&run.lock);
  return final;
}

/* A candidate's id is given once, when it is published, and never changes:
 * the VERIFIED events, results.json and a run with another number of
 * threads all give each candidate the same id, although the second thread
 * verifies candidates out of order. */
static void
test_stable_ids (void)
{
  g_autoptr(GHashTable) one = run_ids (1, "ids-1");
  g_autoptr(GHashTable) two = run_ids (2, "ids-2");
  GHashTableIter it;
  gpointer digest, id;

  g_assert_cmpuint (g_hash_table_size (one), ==, g_hash_table_size (two));
  g_hash_table_iter_init (&it, one);
  while (g_hash_table_iter_next (&it, &digest, &id))
    g_assert_cmpuint (GPOINTER_TO_UINT (g_hash_table_lookup (two, digest)), ==, GPOINTER_TO_UINT (id));
}

typedef struct
{
  GMutex lock;
  GCond cond;
  gboolean held;          /* the first decision waits while this is set */
  guint progress_deciding;/* PROGRESS events saying one candidate is being decided */
  guint64 states_then;    /* states of the first of them, and of the last */
  guint64 states_last;
  guint64 final_deciding; /* of the FINISHED event */
  gint calls;
} DecidingRun;

static void
on_event_deciding (PrismEvent *e, gpointer data)
{
  DecidingRun *run = data;

  g_mutex_lock (&run->lock);
  if (e->kind == PRISM_EVENT_PROGRESS && run->held && e->stats.deciding == 1 &&
      e->stats.instantiating == 1)
    {
      if (run->progress_deciding++ == 0)
        run->states_then = e->stats.search.states;
      run->states_last = e->stats.search.states;
      /* Two ticks while the decision is held: the search stood still. */
      if (run->progress_deciding == 2)
        {
          run->held = FALSE;
          g_cond_broadcast (&run->cond);
        }
    }
  if (e->kind == PRISM_EVENT_FINISHED)
    run->final_deciding = e->stats.deciding + e->stats.instantiating;
  g_mutex_unlock (&run->lock);
}

/* The first decision is held until the progress events said it is under way
 * (bounded: a missing event fails the test, it does not hang it). */
static PrismVerdictKind
held_verify (const PrismGraph *candidate, JsonNode **evidence, char **message, gpointer data)
{
  DecidingRun *run = data;

  if (g_atomic_int_add (&run->calls, 1) == 0)
    {
      gint64 end = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

      g_mutex_lock (&run->lock);
      while (run->held && g_cond_wait_until (&run->cond, &run->lock, end))
        ;
      run->held = FALSE;
      g_mutex_unlock (&run->lock);
    }
  *evidence = NULL;
  *message = NULL;
  return PRISM_VERDICT_EQUIVALENT;
}

/* While the one worker decides a candidate no state is explored; the
 * progress events say that one candidate is being decided (the CLI and the
 * explorer say so instead of "0 states/s"), and none is at the end. */
static void
test_deciding (void)
{
  g_autoptr(PrismGraph) prog = program ("rms_norm", RMS);
  g_autoptr(PrismPipeline) p = NULL;
  g_autoptr(GError) error = NULL;
  PrismPipelineOptions o;
  DecidingRun run = { 0, };

  small_options (&o, 1);
  o.verify_func = held_verify;
  o.verify_data = &run;
  g_mutex_init (&run.lock);
  g_cond_init (&run.cond);
  run.held = TRUE;
  run.final_deciding = G_MAXUINT64;
  p = prism_pipeline_new (prog, &o, &error);
  g_assert_no_error (error);
  prism_pipeline_set_handlers (p, on_event_deciding, NULL, &run);
  g_assert_true (prism_pipeline_run (p, &error));
  g_assert_no_error (error);

  g_assert_cmpuint (run.progress_deciding, >=, 2);
  g_assert_cmpuint (run.states_last, ==, run.states_then);
  g_assert_cmpuint (run.final_deciding, ==, 0);
  g_cond_clear (&run.cond);
  g_mutex_clear (&run.lock);
}

/* Pruned branches by depth go to results.json (summing to the totals by
 * reason) and back; a file written before they were counted loads with
 * none. */
static void
test_stats_pruned_by_depth (void)
{
  g_autoptr(PrismGraph) prog = program ("rms_norm", RMS);
  g_autofree char *dir = g_build_filename (tmpdir, "by-depth", NULL);
  g_autofree char *path = g_build_filename (dir, "results.json", NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GPtrArray) digests = NULL;
  g_autoptr(PrismResults) loaded = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) written = NULL;
  const PrismRunStats *stats;
  PrismRunStats old_stats;
  PrismPipelineOptions o;
  JsonObject *root, *json_stats, *pruned;
  JsonArray *by_depth;
  guint64 sums[PRISM_N_PRUNE_REASONS] = { 0, };

  small_options (&o, 2);
  o.out_dir = dir;
  digests = run_pipeline (prog, &o, 0, NULL);

  root = load_object (path, parser);
  json_stats = json_object_get_object_member (root, "stats");
  pruned = json_object_get_object_member (json_stats, "pruned");
  by_depth = json_object_get_array_member (json_stats, "pruned_by_depth");
  g_assert_cmpuint (json_array_get_length (by_depth), >=, 3);
  for (guint d = 0; d < json_array_get_length (by_depth); d++)
    {
      JsonObject *at = json_array_get_object_element (by_depth, d);

      for (guint r = 0; r < PRISM_N_PRUNE_REASONS; r++)
        if (json_object_has_member (at, prism_prune_reason_to_string (r)))
          {
            gint64 v = json_object_get_int_member (at, prism_prune_reason_to_string (r));
            g_assert_cmpint (v, >, 0);  /* reasons with none are left out */
            sums[r] += (guint64) v;
          }
    }
  for (guint r = 0; r < PRISM_N_PRUNE_REASONS; r++)
    g_assert_cmpint ((gint64) sums[r], ==,
                     json_object_get_int_member (pruned, prism_prune_reason_to_string (r)));

  loaded = prism_results_load (path, &error);
  g_assert_no_error (error);
  stats = prism_results_get_stats (loaded);
  for (guint d = 0; d < PRISM_SEARCH_MAX_DEPTH; d++)
    for (guint r = 0; r < PRISM_N_PRUNE_REASONS; r++)
      {
        JsonObject *at = d < json_array_get_length (by_depth) ? json_array_get_object_element (by_depth, d) : NULL;
        gint64 v = at && json_object_has_member (at, prism_prune_reason_to_string (r))
                   ? json_object_get_int_member (at, prism_prune_reason_to_string (r)) : 0;

        g_assert_cmpint ((gint64) stats->search.pruned_by_depth[d][r], ==, v);
      }

  /* An older file: the member is optional. */
  written = prism_run_stats_to_json (stats);
  json_object_remove_member (json_node_get_object (written), "pruned_by_depth");
  prism_run_stats_from_json (json_node_get_object (written), &old_stats);
  g_assert_cmpuint (old_stats.search.pruned[PRISM_PRUNE_SHAPE], ==, stats->search.pruned[PRISM_PRUNE_SHAPE]);
  for (guint d = 0; d < PRISM_SEARCH_MAX_DEPTH; d++)
    for (guint r = 0; r < PRISM_N_PRUNE_REASONS; r++)
      g_assert_cmpuint (old_stats.search.pruned_by_depth[d][r], ==, 0);
}

/* A run stopped after its first candidates, resumed from its folder, ends
 * with the candidates of an uninterrupted run, in the same order. */
static void
test_resume (void)
{
  g_autoptr(PrismGraph) prog = program ("rms_norm", RMS);
  g_autofree char *dir = g_build_filename (tmpdir, "resume", NULL);
  g_autofree char *path = g_build_filename (dir, "results.json", NULL);
  g_autofree char *stop1 = NULL, *stop2 = NULL;
  g_autoptr(GPtrArray) full = NULL, part = NULL, rest = NULL;
  g_autoptr(PrismResults) saved = NULL;
  g_autoptr(GError) error = NULL;
  PrismPipelineOptions o;

  small_options (&o, 1);
  full = run_pipeline (prog, &o, 0, NULL);

  small_options (&o, 1);
  o.out_dir = dir;
  part = run_pipeline (prog, &o, 3, &stop1);
  g_assert_cmpstr (stop1, ==, "stopped");
  g_assert_cmpuint (part->len, <, full->len);
  saved = prism_results_load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (prism_results_get_candidates (saved)->len, ==, part->len);
  g_assert_cmpstr (prism_results_get_stop_reason (saved), ==, "stopped");

  small_options (&o, 2);
  o.out_dir = dir;
  o.resume = TRUE;
  rest = run_pipeline (prog, &o, 0, &stop2);
  g_assert_cmpstr (stop2, ==, "exhausted");
  assert_same (full, rest);
}

/* id → digest of every candidate of a results file. */
static GHashTable *
ids_of (const char *path)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismResults) r = prism_results_load (path, &error);
  GHashTable *ids = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  GPtrArray *cands;

  g_assert_no_error (error);
  cands = prism_results_get_candidates (r);
  for (guint i = 0; i < cands->len; i++)
    {
      PrismCandidate *c = g_ptr_array_index (cands, i);
      g_hash_table_insert (ids, GUINT_TO_POINTER (c->id), g_strdup (c->digest));
    }
  return ids;
}

/* A stop while a resumed file's candidates are proved again (the worker's
 * cancellable, as SIGTERM cancels it): the candidates not proved yet are
 * "not checked", never "not equivalent" (before: "no proof found
 * (stopped)" on the calling thread, so --resume dropped them — SIGTERM at
 * 0.15–0.5 s left 70–298 of 310 in the file and the next resume numbered
 * them anew). */
static void
test_resume_stopped_recheck (void)
{
  g_autoptr(PrismGraph) prog = program ("rms_norm", RMS);
  g_autofree char *dir = g_build_filename (tmpdir, "stopped-recheck", NULL);
  g_autofree char *path = g_build_filename (dir, "results.json", NULL);
  g_autoptr(GPtrArray) full = NULL;
  g_autoptr(GHashTable) before = NULL, after = NULL;
  g_autoptr(PrismResults) r = NULL;
  g_autoptr(PrismRecheck) recheck = NULL;
  g_autoptr(GPtrArray) errors = NULL;
  g_autoptr(GCancellable) cancel = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  GHashTableIter it;
  gpointer id, digest;
  PrismPipelineOptions o;

  small_options (&o, 2);
  o.out_dir = dir;
  full = run_pipeline (prog, &o, 0, NULL);
  g_assert_cmpuint (full->len, >, 2);
  before = ids_of (path);

  r = prism_results_load (path, &error);
  g_assert_no_error (error);
  recheck = prism_recheck_new (prism_results_get_program (r), &error);
  g_assert_no_error (error);
  g_cancellable_cancel (cancel);
  g_cancellable_push_current (cancel);
  errors = prism_recheck_all (recheck, prism_results_get_candidates (r), 2);
  g_cancellable_pop_current (cancel);
  for (guint i = 0; i < errors->len; i++)
    {
      const GError *why = g_ptr_array_index (errors, i);

      if (why != NULL && !g_error_matches (why, PRISM_ERROR, PRISM_ERROR_CANCELLED))
        g_error ("candidate %u: %s", i, why->message);
    }

  /* The resume itself, stopped from the start: whatever it gets to, the
   * file keeps every candidate under its id. */
  small_options (&o, 2);
  o.out_dir = dir;
  o.resume = TRUE;
  g_cancellable_push_current (cancel);
  {
    g_autoptr(PrismPipeline) p = prism_pipeline_new (prog, &o, &error);

    g_assert_no_error (error);
    prism_pipeline_run (p, NULL);
  }
  g_cancellable_pop_current (cancel);
  after = ids_of (path);
  g_assert_cmpuint (g_hash_table_size (after), ==, g_hash_table_size (before));
  g_hash_table_iter_init (&it, before);
  while (g_hash_table_iter_next (&it, &id, &digest))
    g_assert_cmpstr (g_hash_table_lookup (after, id), ==, digest);
}

/* A folder from another program cannot be resumed. */
static void
test_resume_mismatch (void)
{
  g_autoptr(PrismGraph) prog = program ("rms_norm", RMS);
  g_autoptr(PrismGraph) other = program ("rms_norm", "n=4,d=128");
  g_autofree char *dir = g_build_filename (tmpdir, "mismatch", NULL);
  g_autoptr(GPtrArray) first = NULL;
  g_autoptr(GError) error = NULL;
  PrismPipeline *p;
  PrismPipelineOptions o;

  small_options (&o, 2);
  o.out_dir = dir;
  first = run_pipeline (prog, &o, 1, NULL);
  small_options (&o, 1);
  o.out_dir = dir;
  o.resume = TRUE;
  p = prism_pipeline_new (other, &o, &error);
  g_assert_null (p);
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_PARSE);
  g_assert_nonnull (strstr (error->message, "different program"));

  /* Bad options fail up front. */
  g_clear_error (&error);
  small_options (&o, 1);
  o.target = "z80";
  p = prism_pipeline_new (prog, &o, &error);
  g_assert_null (p);
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_FAILED);
}

/* ------------------------------------------------------------------------ */

typedef struct
{
  GMainLoop *loop;
  PrismSession *session;
  guint batches;
  guint largest_batch;  /* search events (shown or hidden) in the fullest batch */
  guint sgraph_events;
  guint hidden_sgraphs;
  guint rejected_events;
  guint hidden_rejected;
  guint verified_events;
  guint finished_events;
  gboolean finished_last;
  guint state_notifies;
  double last_progress_states;
  gboolean progress_monotonic;
  gboolean budget_set;
} Watch;

/* The events of @batch that the search made (progress ticks aside). */
static guint
count_search_events (PrismEventBatch *batch)
{
  guint n = batch->hidden_sgraphs + batch->hidden_rejected;

  for (guint i = 0; i < batch->events->len; i++)
    {
      PrismEvent *e = g_ptr_array_index (batch->events, i);

      n += e->kind == PRISM_EVENT_SGRAPH || e->kind == PRISM_EVENT_REJECTED ||
           e->kind == PRISM_EVENT_VERIFIED;
    }
  return n;
}

static void
on_events (PrismSession *session, PrismEventBatch *batch, gpointer data)
{
  Watch *w = data;

  g_assert_true (g_main_context_is_owner (g_main_context_default ()));
  w->batches++;
  w->hidden_sgraphs += batch->hidden_sgraphs;
  w->hidden_rejected += batch->hidden_rejected;
  w->largest_batch = MAX (w->largest_batch, count_search_events (batch));
  for (guint i = 0; i < batch->events->len; i++)
    {
      PrismEvent *e = g_ptr_array_index (batch->events, i);

      w->finished_last = e->kind == PRISM_EVENT_FINISHED;
      switch (e->kind)
        {
        case PRISM_EVENT_SGRAPH:
          w->sgraph_events++;
          break;
        case PRISM_EVENT_REJECTED:
          w->rejected_events++;
          break;
        case PRISM_EVENT_VERIFIED:
          w->verified_events++;
          break;
        case PRISM_EVENT_FINISHED:
          w->finished_events++;
          break;
        case PRISM_EVENT_PROGRESS:
          if (e->stats.search.states < w->last_progress_states)
            w->progress_monotonic = FALSE;
          w->last_progress_states = e->stats.search.states;
          if (!w->budget_set && w->session != NULL && e->stats.search.states > 0)
            {
              /* The budget command: a long search ends at the new limit. */
              w->budget_set = TRUE;
              prism_session_set_time_limit (w->session, 0.2);
            }
          break;
        default:
          break;
        }
    }
}

static void
on_finished (PrismSession *session, gpointer data)
{
  g_main_loop_quit (((Watch *) data)->loop);
}

static void
on_notify_state (GObject *object, GParamSpec *pspec, gpointer data)
{
  ((Watch *) data)->state_notifies++;
}

static PrismSession *
watch_session (Watch *w, PrismGraph *prog, PrismPipelineOptions *o)
{
  g_autoptr(GError) error = NULL;
  PrismSession *s = prism_session_new (prog, o, &error);

  g_assert_no_error (error);
  memset (w, 0, sizeof *w);
  w->loop = g_main_loop_new (NULL, FALSE);
  w->progress_monotonic = TRUE;
  g_signal_connect (s, "events", G_CALLBACK (on_events), w);
  g_signal_connect (s, "finished", G_CALLBACK (on_finished), w);
  g_signal_connect (s, "notify::state", G_CALLBACK (on_notify_state), w);
  return s;
}

static void
test_session_events (void)
{
  g_autoptr(PrismGraph) prog = program ("swiglu", "n=4,d=64");
  g_autoptr(PrismSession) s = NULL;
  g_autoptr(GPtrArray) cands = NULL;
  PrismPipelineOptions o;
  PrismRunStats stats;
  Watch w;

  small_options (&o, 2);
  s = watch_session (&w, prog, &o);
  g_assert_cmpint (prism_session_get_state (s), ==, PRISM_SESSION_IDLE);
  prism_session_start (s);
  g_assert_cmpint (prism_session_get_state (s), ==, PRISM_SESSION_RUNNING);
  g_main_loop_run (w.loop);
  g_main_loop_unref (w.loop);

  g_assert_cmpint (prism_session_get_state (s), ==, PRISM_SESSION_FINISHED);
  g_assert_cmpstr (prism_session_get_stop_reason (s), ==, "exhausted");
  g_assert_cmpuint (w.state_notifies, ==, 2);
  g_assert_cmpuint (w.finished_events, ==, 1);
  g_assert_true (w.finished_last);
  g_assert_true (w.progress_monotonic);
  prism_session_get_stats (s, &stats);
  cands = prism_session_get_candidates (s);
  /* One candidate (and event) per canonical form; the other verified forms
   * are equivalents. */
  g_assert_cmpuint (cands->len, ==, stats.distinct);
  g_assert_cmpuint (w.verified_events, ==, stats.distinct);
  g_assert_cmpuint (stats.verified, ==, stats.distinct + stats.equivalent);
  /* Nothing is dropped silently: shown plus hidden is every one. */
  g_assert_cmpuint (w.sgraph_events + w.hidden_sgraphs, ==, stats.search.sgraphs);
  g_assert_cmpuint (w.rejected_events + w.hidden_rejected, ==,
                    stats.screened_out + stats.rejected + stats.unknown + stats.verifier_bugs);
  /* Batches are coalesced: events that come together are delivered together.
   * (Not "fewer batches than events": progress ticks are batches too, about
   * 30 a second, so a slow run — under ASan, on a loaded machine — has more.) */
  g_assert_cmpuint (w.largest_batch, >=, 2);
  g_assert_cmpfloat (prism_session_get_baseline_us (s), >, 0);
  g_assert_null (prism_session_get_results_path (s));
}

static void
test_session_commands (void)
{
  g_autoptr(PrismGraph) prog = program ("qk_norm_attention", NULL);
  PrismPipelineOptions o;
  Watch w;

  /* Stop while paused: the run ends promptly, stopped. */
  {
    g_autoptr(PrismSession) s = NULL;

    small_options (&o, 2);
    s = watch_session (&w, prog, &o);
    prism_session_start (s);
    prism_session_pause (s);
    g_assert_cmpint (prism_session_get_state (s), ==, PRISM_SESSION_PAUSED);
    prism_session_resume (s);
    g_assert_cmpint (prism_session_get_state (s), ==, PRISM_SESSION_RUNNING);
    prism_session_pause (s);
    prism_session_stop (s);
    g_main_loop_run (w.loop);
    g_main_loop_unref (w.loop);
    g_assert_cmpint (prism_session_get_state (s), ==, PRISM_SESSION_FINISHED);
    g_assert_cmpstr (prism_session_get_stop_reason (s), ==, "stopped");
  }
  /* The budget command, sent once the search runs. */
  {
    g_autoptr(PrismSession) s = NULL;

    small_options (&o, 2);
    s = watch_session (&w, prog, &o);
    w.session = s;
    prism_session_start (s);
    g_main_loop_run (w.loop);
    g_main_loop_unref (w.loop);
    g_assert_true (w.budget_set);
    g_assert_cmpstr (prism_session_get_stop_reason (s), ==, "time limit");
  }
  /* Dropping a running session stops and joins its worker. */
  {
    PrismSession *s;

    small_options (&o, 2);
    s = watch_session (&w, prog, &o);
    prism_session_start (s);
    g_object_unref (s);
    g_main_loop_unref (w.loop);
    while (g_main_context_iteration (NULL, FALSE))
      ;
  }
}

int
main (int argc, char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  tmpdir = g_dir_make_tmp ("test-pipeline-XXXXXX", NULL);
  g_test_add_func ("/pipeline/results-file", test_results_file);
  g_test_add_func ("/pipeline/results-load-errors", test_results_load_errors);
  g_test_add_func ("/pipeline/safe-workloads", test_safe_workloads);
  g_test_add_func ("/pipeline/online-softmax", test_online_softmax);
  g_test_add_func ("/pipeline/transpose-program", test_transpose_program);
  g_test_add_func ("/pipeline/sizes-not-powers-of-two", test_sizes_not_powers_of_two);
  g_test_add_func ("/pipeline/determinism", test_determinism);
  g_test_add_func ("/pipeline/stable-ids", test_stable_ids);
  g_test_add_func ("/pipeline/deciding", test_deciding);
  g_test_add_func ("/pipeline/equivalent-forms", test_equivalent_forms);
  g_test_add_func ("/pipeline/stats-pruned-by-depth", test_stats_pruned_by_depth);
  g_test_add_func ("/pipeline/resume", test_resume);
  g_test_add_func ("/pipeline/resume-mismatch", test_resume_mismatch);
  g_test_add_func ("/pipeline/resume-stopped-recheck", test_resume_stopped_recheck);
  g_test_add_func ("/pipeline/session/events", test_session_events);
  g_test_add_func ("/pipeline/session/commands", test_session_commands);
  g_test_add_func ("/pipeline/no-recomputed-candidates", test_no_recomputed_candidates);
  ret = g_test_run ();
  {
    g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", tmpdir);
    if (system (cmd) != 0)
      g_warning ("could not remove %s", tmpdir);
  }
  g_free (tmpdir);
  return ret;
}
