/* test-json.c — the prism-graph JSON format: round trips, atomic saves, and a
 * corpus of malformed files that must each be rejected with a given message.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>
#include <glib/gstdio.h>

#include "prism-error.h"
#include "prism-graph-json.h"
#include "prism-workload.h"

/* ------------------------------------------------------------------------ */
/* Building sample graphs */

static int
check_id (int id, GError *error)
{
  g_assert_no_error (error);
  g_assert_cmpint (id, >=, 0);
  return id;
}

static guint
add1 (PrismGraph *g, PrismOpKind kind, guint a, const PrismOpAttrs *attrs)
{
  GError *error = NULL;
  guint in[1] = { a };
  int id = prism_graph_add (g, kind, in, 1, attrs, &error);
  return (guint) check_id (id, error);
}

static guint
add2 (PrismGraph *g, PrismOpKind kind, guint a, guint b, const PrismOpAttrs *attrs)
{
  GError *error = NULL;
  guint in[2] = { a, b };
  int id = prism_graph_add (g, kind, in, 2, attrs, &error);
  return (guint) check_id (id, error);
}

static guint
block_input (PrismGraph *b, const PrismGraph *kg, const guint *kernel_inputs, guint index,
             int i0, int i1, int i2, int fmap)
{
  const PrismTensor *src = prism_graph_tensor (kg, kernel_inputs[index]);
  int imap[3] = { i0, i1, i2 };
  GError *error = NULL;
  int id = prism_block_graph_add_input (b, index, src->ndims, src->dims, src->dtype, imap, fmap,
                                        &error);
  return (guint) check_id (id, error);
}

static void
block_output (PrismGraph *b, guint t, int o0, int o1, int o2)
{
  int omap[3] = { o0, o1, o2 };
  GError *error = NULL;

  check_id (prism_block_graph_add_output (b, t, omap, &error), error);
}

static guint
add_kernel (PrismGraph *g, const guint *inputs, guint n, PrismGraph *body, guint *outputs)
{
  GError *error = NULL;
  int op = check_id (prism_graph_add_kernel (g, inputs, n, body, &error), error);
  const PrismOp *k = prism_graph_op (g, (guint) op);

  for (guint o = 0; o < k->n_outputs; o++)
    outputs[o] = k->outputs[o];
  prism_graph_unref (body);
  return k->n_outputs;
}

static guint
graph_input (PrismGraph *g, const char *name, gint64 d0, gint64 d1, PrismDtype dtype)
{
  gint64 dims[2] = { d0, d1 };
  GError *error = NULL;

  return (guint) check_id (prism_graph_add_input (g, name, 2, dims, dtype, &error), error);
}

static void
graph_output (PrismGraph *g, guint t, const char *name)
{
  GError *error = NULL;

  check_id (prism_graph_add_output (g, t, name, &error), error);
}

/* A kernel graph with every op kind, every attribute, every kind of map
 * entry, symbolic grids and loops, and a block with symbolic maps. */
static PrismGraph *
build_sample (void)
{
  PrismGraph *g = prism_graph_new ();
  guint gx = prism_graph_add_var (g, "gx");
  guint gy = prism_graph_add_var (g, "gy");
  guint vf = prism_graph_add_var (g, "F");
  g_autoptr(PrismDim) dgx = prism_dim_var (gx);
  g_autoptr(PrismDim) dgy = prism_dim_var (gy);
  g_autoptr(PrismDim) df = prism_dim_var (vf);
  PrismOpAttrs attrs;
  guint x, w, bias, k1[8], k2[8], k3[8], t, s, r, n;
  PrismGraph *b;

  prism_graph_set_name (g, "sample", "Every op, map kind and symbolic size \"quoted\"\n");
  x = graph_input (g, "X", 8, 4096, PRISM_DTYPE_F16);
  w = graph_input (g, "W", 4096, 1024, PRISM_DTYPE_F16);
  bias = graph_input (g, NULL, 8, 1024, PRISM_DTYPE_F16);

  /* K1: symbolic grid (gx, gy) and loop F; split-K matmul whose partial
   * sums along gy are added by the omap -1 entry. */
  {
    PrismDim *grid[2] = { dgx, dgy };
    guint in[2] = { x, w };
    guint a, bb, sq;
    b = prism_block_graph_new (2, grid, 256, df);
    a = block_input (b, g, in, 0, -1, 1, -1, 1);
    bb = block_input (b, g, in, 1, 1, 0, -1, 0);
    t = add2 (b, PRISM_OP_MATMUL, a, bb, NULL);
    t = add1 (b, PRISM_OP_ACCUM, t, NULL);
    block_output (b, t, 1, -1, -1);
    sq = add1 (b, PRISM_OP_SQUARE, a, NULL);
    t = add1 (b, PRISM_OP_ACCUM_SUM, sq, NULL);
    block_output (b, t, -1, -1, -1);
    n = add_kernel (g, in, 2, b, k1);
    g_assert_cmpuint (n, ==, 2);
  }

  t = add2 (g, PRISM_OP_ADD, k1[0], bias, NULL);
  t = add2 (g, PRISM_OP_SUB, t, bias, NULL);
  prism_op_attrs_init (&attrs);
  attrs.dim = 1;
  s = add1 (g, PRISM_OP_SUM, t, &attrs);
  prism_op_attrs_init (&attrs);
  attrs.norm_dims = 2;
  r = add1 (g, PRISM_OP_RMS_NORM, t, &attrs);
  r = add2 (g, PRISM_OP_DIV, r, s, NULL);
  r = add2 (g, PRISM_OP_MUL, r, k1[1], NULL);
  r = add1 (g, PRISM_OP_SILU, r, NULL);
  r = add1 (g, PRISM_OP_GELU, r, NULL);
  r = add1 (g, PRISM_OP_NEG, r, NULL);
  r = add1 (g, PRISM_OP_SQRT, r, NULL);
  r = add1 (g, PRISM_OP_EXP, r, NULL);
  r = add2 (g, PRISM_OP_POW, r, r, NULL);

  /* K2: a concrete three-axis grid with every accumulator. */
  {
    const gint64 grid[3] = { 4, 2, 1 };
    guint in[1] = { r };
    guint whole, part, e, dx, mx, cat, mean, rms, ms, res, sres;
    b = prism_block_graph_new_const (3, grid, 128, 8);
    whole = block_input (b, g, in, 0, 0, 1, -1, -1);
    part = block_input (b, g, in, 0, 0, -1, -1, 1);
    e = add1 (b, PRISM_OP_EXP, part, NULL);
    prism_op_attrs_init (&attrs);
    attrs.dimx = 64;
    dx = add1 (b, PRISM_OP_ACCUM_SUM_TODIMX, e, &attrs);
    mx = add1 (b, PRISM_OP_ACCUM_MAX, whole, NULL);
    prism_op_attrs_init (&attrs);
    attrs.dim = 1;
    cat = add2 (b, PRISM_OP_CONCAT, dx, dx, &attrs);
    block_output (b, cat, 0, -1, -1);
    block_output (b, mx, 0, 1, -1);
    mean = add1 (b, PRISM_OP_ACCUM_MEAN, e, NULL);
    rms = add1 (b, PRISM_OP_ACCUM_RMS, e, NULL);
    ms = add2 (b, PRISM_OP_ADD, mean, rms, NULL);
    block_output (b, ms, 0, -1, -1);
    res = add2 (b, PRISM_OP_ACCUM_RESCALE, e, e, NULL);
    block_output (b, res, 0, -1, 1);
    sres = add2 (b, PRISM_OP_ACCUM_SUM_RESCALE, e, e, NULL);
    block_output (b, sres, 0, -1, -1);
    n = add_kernel (g, in, 1, b, k2);
    g_assert_cmpuint (n, ==, 5);
  }

  /* K3: an sGraph block whose maps are still symbols. */
  {
    PrismDim *grid[1] = { dgx };
    guint in[1] = { x };
    guint a;
    b = prism_block_graph_new (1, grid, 128, df);
    b->symbolic_maps = TRUE;
    a = block_input (b, g, in, 0, PRISM_MAP_UNKNOWN, -1, -1, PRISM_MAP_UNKNOWN);
    t = add1 (b, PRISM_OP_RELU, a, NULL);
    t = add1 (b, PRISM_OP_ACCUM, t, NULL);
    block_output (b, t, PRISM_MAP_UNKNOWN, -1, -1);
    n = add_kernel (g, in, 1, b, k3);
    g_assert_cmpuint (n, ==, 1);
  }

  t = add2 (g, PRISM_OP_MATMUL, k3[0], w, NULL);
  graph_output (g, t, "Y");
  for (guint o = 0; o < 5; o++)
    graph_output (g, k2[o], NULL);
  graph_output (g, s, "row sums");
  return g;
}

static JsonNode *
build_provenance (void)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  GError *error = NULL;

  json_parser_load_from_data (parser,
      "{\"workload\": \"rms_norm\", \"search\": {\"threads\": 4, \"budget_s\": 1.5, "
      "\"symbolic\": true, \"seed\": 9007199254740993, \"none\": null}, "
      "\"verification\": [{\"method\": \"egraph\", \"ok\": true, \"note\": \"tab\\t quote\\\" "
      "back\\\\slash \\u00e9\\u2013\\u0001\"}, {\"method\": \"random\", \"max_error\": 1e-07, "
      "\"tiny\": 5e-324, \"third\": 0.1}], \"timings\": {\"search_s\": 12.25, \"t\": 3.0}}",
      -1, &error);
  g_assert_no_error (error);
  return json_node_copy (json_parser_get_root (parser));
}

/* ------------------------------------------------------------------------ */
/* Structural equality */

static void
assert_dims_equal (guint na, PrismDim * const *a, guint nb, PrismDim * const *b)
{
  g_assert_cmpuint (na, ==, nb);
  for (guint d = 0; d < na; d++)
    g_assert_true (prism_dim_equal (a[d], b[d]));
}

static void
assert_graphs_equal (const PrismGraph *a, const PrismGraph *b)
{
  g_assert_cmpint (a->level, ==, b->level);
  g_assert_cmpuint (a->tensors->len, ==, b->tensors->len);
  g_assert_cmpuint (a->ops->len, ==, b->ops->len);
  g_assert_cmpstr (a->name, ==, b->name);
  g_assert_cmpstr (a->description, ==, b->description);
  g_assert_cmpuint (a->var_names->len, ==, b->var_names->len);
  for (guint i = 0; i + 1 < a->var_names->len; i++)
    g_assert_cmpstr (g_ptr_array_index (a->var_names, i), ==, g_ptr_array_index (b->var_names, i));
  if (a->level == PRISM_LEVEL_BLOCK)
    {
      g_assert_cmpuint (a->grid_ndims, ==, b->grid_ndims);
      assert_dims_equal (PRISM_MAX_GRID_DIMS, a->grid, PRISM_MAX_GRID_DIMS, b->grid);
      g_assert_true (prism_dim_equal (a->forloop, b->forloop));
      g_assert_cmpuint (a->block_threads, ==, b->block_threads);
      g_assert_cmpint (a->symbolic_maps, ==, b->symbolic_maps);
    }
  for (guint i = 0; i < a->tensors->len; i++)
    {
      const PrismTensor *ta = prism_graph_tensor (a, i);
      const PrismTensor *tb = prism_graph_tensor (b, i);
      assert_dims_equal (ta->ndims, ta->dims, tb->ndims, tb->dims);
      g_assert_cmpint (ta->dtype, ==, tb->dtype);
      g_assert_cmpint (ta->producer, ==, tb->producer);
      g_assert_cmpuint (ta->producer_slot, ==, tb->producer_slot);
      g_assert_cmpint (ta->after_accum, ==, tb->after_accum);
    }
  for (guint i = 0; i < a->ops->len; i++)
    {
      const PrismOp *oa = prism_graph_op (a, i);
      const PrismOp *ob = prism_graph_op (b, i);
      g_assert_cmpint (oa->kind, ==, ob->kind);
      g_assert_cmpuint (oa->n_inputs, ==, ob->n_inputs);
      g_assert_cmpmem (oa->inputs, oa->n_inputs * sizeof (guint), ob->inputs,
                       ob->n_inputs * sizeof (guint));
      g_assert_cmpuint (oa->n_outputs, ==, ob->n_outputs);
      g_assert_cmpmem (oa->outputs, oa->n_outputs * sizeof (guint), ob->outputs,
                       ob->n_outputs * sizeof (guint));
      g_assert_cmpmem (&oa->attrs, sizeof oa->attrs, &ob->attrs, sizeof ob->attrs);
      g_assert_cmpstr (oa->name, ==, ob->name);
      assert_dims_equal (oa->data_ndims, oa->data_dims, ob->data_ndims, ob->data_dims);
      g_assert_cmpint (oa->data_dtype, ==, ob->data_dtype);
      g_assert_cmpint (oa->body != NULL, ==, ob->body != NULL);
      if (oa->body != NULL)
        assert_graphs_equal (oa->body, ob->body);
    }
}

/* ------------------------------------------------------------------------ */

static void
test_round_trip (void)
{
  g_autoptr(PrismGraph) g = build_sample ();
  g_autoptr(JsonNode) prov = build_provenance ();
  g_autoptr(JsonNode) prov2 = NULL;
  g_autoptr(PrismGraph) g2 = NULL;
  g_autofree char *text = prism_graph_to_data (g, prov);
  g_autofree char *text2 = NULL;
  g_autofree char *printed = NULL;
  g_autofree char *printed2 = NULL;
  GError *error = NULL;

  g_assert_true (g_str_has_suffix (text, "}\n"));
  g_assert_nonnull (strstr (text, "\"format\": \"prism-graph\""));
  g_assert_nonnull (strstr (text, "\"variables\": [\"gx\", \"gy\", \"F\"]"));
  g_assert_nonnull (strstr (text, "\"grid\": [\"gx\", \"gy\"]"));
  g_assert_nonnull (strstr (text, "\"shape\": [8, \"4096/(gy*F)\"]"));
  g_assert_nonnull (strstr (text, "\"imap\": [\"?\"]"));
  g_assert_nonnull (strstr (text, "\"fmap\": \"?\""));
  g_assert_nonnull (strstr (text, "\"omap\": [1, -1]"));
  g_assert_nonnull (strstr (text, "\"symbolic_maps\": true"));
  g_assert_nonnull (strstr (text, "\"dimx\": 64"));
  g_assert_nonnull (strstr (text, "\"norm_dims\": 2"));
  g_assert_nonnull (strstr (text, "\"dtype\": \"f16\""));

  g2 = prism_graph_load_from_data (text, -1, &prov2, &error);
  g_assert_no_error (error);
  g_assert_nonnull (g2);
  assert_graphs_equal (g, g2);
  g_assert_nonnull (prov2);
  g_assert_true (json_node_equal (prov, prov2));

  text2 = prism_graph_to_data (g2, prov2);
  g_assert_cmpstr (text, ==, text2);

  printed = prism_graph_to_string (g);
  printed2 = prism_graph_to_string (g2);
  g_assert_cmpstr (printed, ==, printed2);
}

static void
test_round_trip_json_node (void)
{
  g_autoptr(PrismGraph) g = build_sample ();
  g_autoptr(JsonNode) root = prism_graph_to_json (g, NULL);
  g_autoptr(JsonNode) prov = NULL;
  g_autoptr(PrismGraph) g2 = NULL;
  GError *error = NULL;

  g_assert_true (JSON_NODE_HOLDS_OBJECT (root));
  g_assert_false (json_object_has_member (json_node_get_object (root), "provenance"));
  g2 = prism_graph_from_json (root, &prov, &error);
  g_assert_no_error (error);
  g_assert_null (prov);
  assert_graphs_equal (g, g2);
}

/* Ids may be strings or integers, ops in any order; the reader sorts them
 * and the writer gives the canonical form. */
static void
test_any_order (void)
{
  const char *doc =
    "{\"format\": \"prism-graph\", \"version\": 1, \"name\": \"mm\", \"ops\": [\n"
    " {\"op\": \"output\", \"name\": \"Z\", \"inputs\": [\"z\"]},\n"
    " {\"op\": \"matmul\", \"inputs\": [1, \"1\"], \"outputs\": [{\"id\": \"z\", \"shape\": [8, 16]}]},\n"
    " {\"op\": \"input\", \"name\": \"B\", \"outputs\": [{\"id\": \"1\", \"shape\": [32, 16], \"dtype\": \"bf16\"}]},\n"
    " {\"op\": \"input\", \"name\": \"A\", \"outputs\": [{\"id\": 1, \"shape\": [\"8\", 32], \"dtype\": \"bf16\"}]}\n"
    "]}";
  g_autoptr(PrismGraph) g = NULL;
  g_autoptr(PrismGraph) g2 = NULL;
  g_autofree char *text = NULL;
  g_autofree char *text2 = NULL;
  GError *error = NULL;
  const PrismOp *op;

  g = prism_graph_load_from_data (doc, -1, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g->ops->len, ==, 4);
  /* Depth-first from op 0: its producer (matmul) needs A (id 1) then B. */
  g_assert_cmpstr (prism_graph_op (g, 0)->name, ==, "A");
  g_assert_cmpstr (prism_graph_op (g, 1)->name, ==, "B");
  op = prism_graph_op (g, 2);
  g_assert_cmpint (op->kind, ==, PRISM_OP_MATMUL);
  g_assert_cmpuint (op->inputs[0], ==, 0);
  g_assert_cmpuint (op->inputs[1], ==, 1);
  g_assert_cmpint (prism_graph_tensor (g, op->outputs[0])->dtype, ==, PRISM_DTYPE_BF16);
  g_assert_cmpint (prism_graph_op (g, 3)->kind, ==, PRISM_OP_OUTPUT);

  text = prism_graph_to_data (g, NULL);
  g2 = prism_graph_load_from_data (text, -1, NULL, &error);
  g_assert_no_error (error);
  assert_graphs_equal (g, g2);
  text2 = prism_graph_to_data (g2, NULL);
  g_assert_cmpstr (text, ==, text2);
  /* Defaults: no "variables" in the input, an empty list in the output. */
  g_assert_nonnull (strstr (text, "\"variables\": []"));
}

/* The spec's defaults: block_threads 128, forloop 1, symbolic_maps false,
 * norm_dims 1, bare ids in "outputs". */
static void
test_defaults (void)
{
  const char *doc =
    "{\"format\": \"prism-graph\", \"version\": 1, \"ops\": [\n"
    " {\"op\": \"input\", \"outputs\": [{\"id\": \"x\", \"shape\": [8, 64], \"dtype\": \"f32\"}]},\n"
    " {\"op\": \"rms_norm\", \"inputs\": [\"x\"], \"outputs\": [\"n\"]},\n"
    " {\"op\": \"kernel\", \"inputs\": [\"n\"], \"outputs\": [\"y\"], \"block\": {\"grid\": [2], \"ops\": [\n"
    "   {\"op\": \"input\", \"input\": 0, \"imap\": [0], \"fmap\": -1, \"outputs\": [\"t\"]},\n"
    "   {\"op\": \"accum\", \"inputs\": [\"t\"], \"outputs\": [\"a\"]},\n"
    "   {\"op\": \"output\", \"inputs\": [\"a\"], \"omap\": [0]}]}},\n"
    " {\"op\": \"output\", \"inputs\": [\"y\"]}]}";
  g_autoptr(PrismGraph) g = NULL;
  GError *error = NULL;
  const PrismOp *k;
  gint64 shape[PRISM_MAX_DIMS];

  g = prism_graph_load_from_data (doc, -1, NULL, &error);
  g_assert_no_error (error);
  g_assert_null (g->name);
  g_assert_cmpuint (prism_graph_op (g, 1)->attrs.norm_dims, ==, 1);
  k = prism_graph_op (g, 2);
  g_assert_cmpint (k->kind, ==, PRISM_OP_KERNEL);
  g_assert_cmpuint (k->body->block_threads, ==, 128);
  g_assert_cmpint (prism_dim_get_const (k->body->forloop), ==, 1);
  g_assert_false (k->body->symbolic_maps);
  g_assert_cmpuint (k->body->grid_ndims, ==, 1);
  g_assert_true (prism_tensor_get_shape (prism_graph_tensor (k->body, 0), shape));
  g_assert_cmpint (shape[0], ==, 4);
  g_assert_cmpint (shape[1], ==, 64);
  g_assert_true (prism_tensor_get_shape (prism_graph_tensor (g, k->outputs[0]), shape));
  g_assert_cmpint (shape[0], ==, 8);
}

static void
test_load_from_data_length (void)
{
  g_autoptr(PrismGraph) g = build_sample ();
  g_autofree char *text = prism_graph_to_data (g, NULL);
  gsize len = strlen (text);
  g_autofree char *padded = g_malloc (len + 16);
  g_autoptr(PrismGraph) g2 = NULL;
  g_autoptr(PrismGraph) g3 = NULL;
  GError *error = NULL;

  /* Not NUL-terminated: only @length bytes count. */
  memcpy (padded, text, len);
  memset (padded + len, '}', 16);
  g2 = prism_graph_load_from_data (padded, (gssize) len, NULL, &error);
  g_assert_no_error (error);
  assert_graphs_equal (g, g2);

  /* One byte short is malformed, not a crash. */
  g3 = prism_graph_load_from_data (padded, (gssize) len - 3, NULL, &error);
  g_assert_null (g3);
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_PARSE);
  g_assert_nonnull (strstr (error->message, "malformed JSON"));
  g_clear_error (&error);
}

static void
test_error_codes (void)
{
  static const struct
  {
    const char *doc;
    int code;
  } cases[] = {
    { "{\"format\": \"prism-graph\", \"version\": 7, \"ops\": []}", PRISM_ERROR_VERSION },
    { "{\"format\": \"mugraph\", \"version\": 1, \"ops\": []}", PRISM_ERROR_VERSION },
    { "{\"version\": 1, \"ops\": []}", PRISM_ERROR_VERSION },
    { "{\"format\": \"prism-graph\", \"ops\": []}", PRISM_ERROR_VERSION },
    { "{\"format\": \"prism-graph\", \"version\": 1, \"ops\": [", PRISM_ERROR_PARSE },
    { "{\"format\": \"prism-graph\", \"version\": 1, \"ops\": [{\"op\": \"nope\"}]}", PRISM_ERROR_PARSE },
    { "{\"format\": \"prism-graph\", \"version\": 1, \"ops\": [{\"op\": \"exp\", "
      "\"inputs\": [\"a\"], \"outputs\": [\"a\"]}]}", PRISM_ERROR_INVALID_GRAPH },
    { "{\"format\": \"prism-graph\", \"version\": 1, \"ops\": []}", PRISM_ERROR_INVALID_GRAPH },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      GError *error = NULL;
      g_autoptr(PrismGraph) g = prism_graph_load_from_data (cases[i].doc, -1, NULL, &error);
      g_assert_null (g);
      g_assert_error (error, PRISM_ERROR, cases[i].code);
      g_clear_error (&error);
    }
}

/* ------------------------------------------------------------------------ */
/* Saving */

static guint
count_entries (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  guint n = 0;

  g_assert_nonnull (d);
  while (g_dir_read_name (d) != NULL)
    n++;
  return n;
}

static void
test_save_atomic (void)
{
  g_autoptr(PrismGraph) g = build_sample ();
  g_autoptr(JsonNode) prov = build_provenance ();
  g_autoptr(JsonNode) prov2 = NULL;
  g_autoptr(PrismGraph) g2 = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("prism-json-XXXXXX", &error);
  g_autofree char *path = NULL;
  g_autofree char *missing = NULL;
  g_autofree char *sub = NULL;
  g_autofree char *expected = prism_graph_to_data (g, prov);
  g_autofree char *contents = NULL;
  GStatBuf st;

  g_assert_no_error (error);
  path = g_build_filename (dir, "graph.json", NULL);

  /* An existing file is replaced as a whole. */
  g_assert_true (g_file_set_contents (path, "old contents", -1, NULL));
  g_assert_true (prism_graph_save (g, prov, path, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, expected);
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0644);
  /* No temporary file is left behind. */
  g_assert_cmpuint (count_entries (dir), ==, 1);

  g2 = prism_graph_load (path, &prov2, &error);
  g_assert_no_error (error);
  assert_graphs_equal (g, g2);
  g_assert_true (json_node_equal (prov, prov2));

  /* A folder that does not exist: an error, nothing created. */
  missing = g_build_filename (dir, "no-such-folder", "graph.json", NULL);
  g_assert_false (prism_graph_save (g, NULL, missing, &error));
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_FAILED);
  g_clear_error (&error);
  g_assert_cmpuint (count_entries (dir), ==, 1);

  /* A folder in the way: an error, the folder untouched. */
  sub = g_build_filename (dir, "sub", NULL);
  g_assert_cmpint (g_mkdir (sub, 0755), ==, 0);
  g_assert_false (prism_graph_save (g, NULL, sub, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);
  g_assert_true (g_file_test (sub, G_FILE_TEST_IS_DIR));
  g_assert_cmpuint (count_entries (dir), ==, 2);

  /* Loading a folder or a missing file is an error, not a hang. */
  g_assert_null (prism_graph_load (sub, NULL, &error));
  g_assert_nonnull (strstr (error->message, "not a regular file"));
  g_clear_error (&error);
  g_assert_null (prism_graph_load (missing, NULL, &error));
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_FAILED);
  g_clear_error (&error);

  g_assert_cmpint (g_rmdir (sub), ==, 0);
  g_assert_cmpint (g_unlink (path), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

/* ------------------------------------------------------------------------ */
/* The corpus of malformed files */

static void
test_bad_corpus (void)
{
  g_autofree char *index_path = g_test_build_filename (G_TEST_DIST, "ir", "bad", "index.txt", NULL);
  g_autofree char *index = NULL;
  g_auto(GStrv) lines = NULL;
  GError *error = NULL;
  guint n = 0;

  g_assert_true (g_file_get_contents (index_path, &index, NULL, &error));
  g_assert_no_error (error);
  lines = g_strsplit (index, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) fields = NULL;
      g_autofree char *path = NULL;
      g_autoptr(PrismGraph) g = NULL;

      if (lines[i][0] == '\0' || lines[i][0] == '#')
        continue;
      fields = g_strsplit (lines[i], "\t", 2);
      g_assert_cmpuint (g_strv_length (fields), ==, 2);
      path = g_test_build_filename (G_TEST_DIST, "ir", "bad", fields[0], NULL);
      g_test_message ("%s: expecting “%s”", fields[0], fields[1]);
      g = prism_graph_load (path, NULL, &error);
      if (g != NULL)
        g_error ("%s was accepted", fields[0]);
      g_assert_nonnull (error);
      g_assert_true (error->domain == PRISM_ERROR);
      if (strstr (error->message, fields[1]) == NULL)
        g_error ("%s: message “%s” lacks “%s”", fields[0], error->message, fields[1]);
      g_clear_error (&error);
      n++;
    }
  g_assert_cmpuint (n, >=, 35);
}

/* ------------------------------------------------------------------------ */
/* Limits: nothing can exhaust the stack, memory or time */

static void
expect_rejected (const char *data, gssize len, int code, const char *substring)
{
  GError *error = NULL;
  g_autoptr(PrismGraph) g = prism_graph_load_from_data (data, len, NULL, &error);

  g_assert_null (g);
  g_assert_error (error, PRISM_ERROR, code);
  if (strstr (error->message, substring) == NULL)
    g_error ("message “%s” lacks “%s”", error->message, substring);
  g_clear_error (&error);
}

static void
test_limits (void)
{
  const gsize deep = 1000000;
  g_autofree char *nested = g_malloc (2 * deep + 1);
  g_autofree char *big = NULL;
  g_autoptr(GString) many = g_string_new ("{\"format\": \"prism-graph\", \"version\": 1, \"ops\": [");
  g_autoptr(GString) dim = g_string_new (NULL);
  g_autoptr(GString) doc = NULL;

  /* A million nested arrays would overflow json-glib's stack. */
  memset (nested, '[', deep);
  memset (nested + deep, ']', deep);
  nested[2 * deep] = '\0';
  expect_rejected (nested, -1, PRISM_ERROR_LIMIT, "nested deeper than 64 levels");
  /* Brackets inside strings do not count. */
  {
    g_autoptr(GString) s = g_string_new ("{\"format\": \"prism-graph\", \"version\": 1, \"description\": \"");
    for (guint i = 0; i < 500; i++)
      g_string_append (s, "[{");
    g_string_append (s, "\", \"ops\": []}");
    expect_rejected (s->str, -1, PRISM_ERROR_INVALID_GRAPH, "the graph has no input");
  }

  /* Too large: refused before parsing. */
  big = g_malloc (PRISM_GRAPH_JSON_MAX_SIZE + 2);
  memset (big, ' ', PRISM_GRAPH_JSON_MAX_SIZE + 1);
  big[PRISM_GRAPH_JSON_MAX_SIZE + 1] = '\0';
  expect_rejected (big, PRISM_GRAPH_JSON_MAX_SIZE + 1, PRISM_ERROR_LIMIT, "at most");

  /* Many small values (64 MiB of them took 2.7 GB): refused before json-glib
   * builds its tree. */
  {
    g_autoptr(GString) values = g_string_new ("{\"format\": \"prism-graph\", \"version\": 1, \"provenance\": {\"a\": [");
    for (guint i = 0; i < PRISM_JSON_MAX_VALUES; i++)
      g_string_append (values, i ? ",0" : "0");
    g_string_append (values, "]}, \"ops\": []}");
    expect_rejected (values->str, (gssize) values->len, PRISM_ERROR_LIMIT, "more than 2097152 values in the document");
  }
  /* Too many ops. */
  for (guint i = 0; i <= PRISM_GRAPH_JSON_MAX_OPS; i++)
    g_string_append_printf (many, "%s1", i ? "," : "");
  g_string_append (many, "]}");
  expect_rejected (many->str, -1, PRISM_ERROR_LIMIT, "field “ops”: 65537 ops");

  /* A long dimension expression. */
  for (guint i = 0; i < 80; i++)
    g_string_append (dim, "gx*");
  g_string_append (dim, "1");
  doc = g_string_new (NULL);
  g_string_printf (doc,
                   "{\"format\": \"prism-graph\", \"version\": 1, \"variables\": [\"gx\"], \"ops\": ["
                   "{\"op\": \"input\", \"outputs\": [{\"id\": 0, \"shape\": [8], \"dtype\": \"f16\"}]},"
                   "{\"op\": \"kernel\", \"inputs\": [0], \"outputs\": [1], \"block\": {\"grid\": [\"%s\"], \"ops\": []}}]}",
                   dim->str);
  expect_rejected (doc->str, -1, PRISM_ERROR_LIMIT, "field “block.grid[0]”: dimension expression “gx*gx*gx");
  expect_rejected (doc->str, -1, PRISM_ERROR_LIMIT, "has more than 64 terms");
  /* 64 terms are allowed (docs/format.md), 65 are not, even when they fold. */
  {
    g_autoptr(GString) vars = g_string_new (NULL);
    g_autoptr(GString) sum = g_string_new (NULL);
    g_autoptr(GString) ones = g_string_new (NULL);

    for (guint i = 0; i < 64; i++)
      {
        g_string_append_printf (vars, "%s\"a%u\"", i ? ", " : "", i);
        g_string_append_printf (sum, "%sa%u", i ? "+" : "", i);
        g_string_append (ones, "1+");
      }
    g_string_append (ones, "1");
    g_string_printf (doc,
                     "{\"format\": \"prism-graph\", \"version\": 1, \"variables\": [%s], \"ops\": ["
                     "{\"op\": \"input\", \"outputs\": [{\"id\": 0, \"shape\": [8], \"dtype\": \"f16\"}]},"
                     "{\"op\": \"kernel\", \"inputs\": [0], \"outputs\": [1], \"block\": {\"grid\": [\"%s\"], \"ops\": []}}]}",
                     vars->str, sum->str);
    expect_rejected (doc->str, -1, PRISM_ERROR_INVALID_GRAPH, "op 1 (kernel): the block graph has no output");
    g_string_printf (doc,
                     "{\"format\": \"prism-graph\", \"version\": 1, \"ops\": ["
                     "{\"op\": \"input\", \"outputs\": [{\"id\": 0, \"shape\": [8], \"dtype\": \"f16\"}]},"
                     "{\"op\": \"kernel\", \"inputs\": [0], \"outputs\": [1], \"block\": {\"grid\": [\"%s\"], \"ops\": []}}]}",
                     ones->str);
    expect_rejected (doc->str, -1, PRISM_ERROR_LIMIT, "field “block.grid[0]”: dimension expression “1+1");
    expect_rejected (doc->str, -1, PRISM_ERROR_LIMIT, "has more than 64 terms");
  }
  /* Deeply parenthesised, but short: parsed without trouble. */
  g_string_printf (doc,
                   "{\"format\": \"prism-graph\", \"version\": 1, \"variables\": [\"gx\"], \"ops\": ["
                   "{\"op\": \"input\", \"outputs\": [{\"id\": 0, \"shape\": [8], \"dtype\": \"f16\"}]},"
                   "{\"op\": \"kernel\", \"inputs\": [0], \"outputs\": [1], \"block\": {\"grid\": [\"%s\"], \"ops\": []}}]}",
                   "((((((((((((((((((((((((((((((((((((((((gx))))))))))))))))))))))))))))))))))))))))");
  expect_rejected (doc->str, -1, PRISM_ERROR_INVALID_GRAPH, "op 1 (kernel): the block graph has no output");
}

/* A concat chain doubles a symbolic dim's expression at every step; the
 * reader stops it before printing or comparing it gets expensive. */
static void
test_expression_growth (void)
{
  g_autoptr(GString) doc = g_string_new (
    "{\"format\": \"prism-graph\", \"version\": 1, \"variables\": [\"gx\"], \"ops\": ["
    "{\"op\": \"input\", \"outputs\": [{\"id\": \"x\", \"shape\": [8, 4096], \"dtype\": \"f16\"}]},"
    "{\"op\": \"kernel\", \"inputs\": [\"x\"], \"outputs\": [\"y\"], \"block\": {\"grid\": [\"gx\"], \"ops\": ["
    "{\"op\": \"input\", \"input\": 0, \"imap\": [1], \"fmap\": -1, \"outputs\": [\"c0\"]}");

  for (guint i = 1; i <= 40; i++)
    g_string_append_printf (doc, ",{\"op\": \"concat\", \"dim\": 1, \"inputs\": [\"c%u\", \"c%u\"], "
                            "\"outputs\": [\"c%u\"]}", i - 1, i - 1, i);
  g_string_append (doc, ",{\"op\": \"accum\", \"inputs\": [\"c40\"], \"outputs\": [\"a\"]},"
                   "{\"op\": \"output\", \"inputs\": [\"a\"], \"omap\": [-1]}]}},"
                   "{\"op\": \"output\", \"inputs\": [\"y\"]}]}");
  expect_rejected (doc->str, -1, PRISM_ERROR_LIMIT, "block op 6 (concat): output 0 dim 1: dimension expression has more than 64 terms");
}

/* Random damage to a good document: every result is a graph or an error,
 * never a crash; what is accepted writes back canonically. */
static void
test_mutations (void)
{
  g_autoptr(PrismGraph) g = build_sample ();
  g_autofree char *text = prism_graph_to_data (g, NULL);
  gsize len = strlen (text);
  g_autoptr(GRand) rand = g_rand_new_with_seed (20260427);
  static const char * const tokens[] = {
    "-1", "0", "\"?\"", "null", "[]", "{}", "\"gx\"", "2147483648", "1e9", "\"\"", ",", "]", "}",
    "\"4096/gx\"", "true", "\"kernel\"", "\"accum\"", "7",
  };
  guint accepted = 0, rejected = 0;

  for (guint i = 0; i < 3000; i++)
    {
      g_autoptr(GString) s = g_string_new_len (text, (gssize) len);
      g_autoptr(PrismGraph) m = NULL;
      GError *error = NULL;
      guint edits = g_rand_int_range (rand, 1, 4);

      for (guint e = 0; e < edits; e++)
        {
          guint pos;

          if (s->len == 0)
            break;
          pos = g_rand_int_range (rand, 0, (gint32) s->len);
          switch (g_rand_int_range (rand, 0, 4))
            {
            case 0:
              s->str[pos] = (char) g_rand_int_range (rand, 1, 128);
              break;
            case 1:
              {
                gsize n = (gsize) g_rand_int_range (rand, 1, 12);
                g_string_erase (s, pos, (gssize) MIN (s->len - pos, n));
              }
              break;
            case 2:
              g_string_insert (s, pos, tokens[g_rand_int_range (rand, 0, G_N_ELEMENTS (tokens))]);
              break;
            default:
              /* Replace a number or short token at a random place. */
              if (g_ascii_isdigit (s->str[pos]))
                {
                  gsize end = pos;
                  while (end < s->len && g_ascii_isdigit (s->str[end]))
                    end++;
                  g_string_erase (s, pos, end - pos);
                  g_string_insert (s, pos, tokens[g_rand_int_range (rand, 0, G_N_ELEMENTS (tokens))]);
                }
              break;
            }
        }
      m = prism_graph_load_from_data (s->str, (gssize) s->len, NULL, &error);
      if (m == NULL)
        {
          g_assert_nonnull (error);
          g_assert_true (error->domain == PRISM_ERROR);
          g_assert_cmpuint (strlen (error->message), >, 0);
          g_clear_error (&error);
          rejected++;
        }
      else
        {
          g_autofree char *out = prism_graph_to_data (m, NULL);
          g_autoptr(PrismGraph) m2 = prism_graph_load_from_data (out, -1, NULL, &error);
          g_autofree char *out2 = NULL;
          g_assert_no_error (error);
          out2 = prism_graph_to_data (m2, NULL);
          g_assert_cmpstr (out, ==, out2);
          accepted++;
        }
    }
  g_test_message ("%u mutations accepted, %u rejected", accepted, rejected);
  g_assert_cmpuint (rejected, >, 0);
}

/* Every built-in workload and its hand-written fused graph survive a round
 * trip, and so does every file in data/workloads/. */
static void
assert_round_trip (const PrismGraph *g)
{
  g_autofree char *text = prism_graph_to_data (g, NULL);
  g_autoptr(PrismGraph) g2 = NULL;
  g_autofree char *text2 = NULL;
  GError *error = NULL;

  g2 = prism_graph_load_from_data (text, -1, NULL, &error);
  g_assert_no_error (error);
  assert_graphs_equal (g, g2);
  text2 = prism_graph_to_data (g2, NULL);
  g_assert_cmpstr (text, ==, text2);
}

/* Each new operator (max, mean, maximum, transpose, constant) with its
 * attributes survives a round trip. */
static void
test_round_trip_new_operators (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "ir", "good", "new-operators.json", NULL);
  g_autoptr(PrismGraph) g = NULL;
  g_autofree char *text = NULL;
  GError *error = NULL;
  static const PrismOpKind kinds[] = { PRISM_OP_CONSTANT, PRISM_OP_MAX, PRISM_OP_MEAN,
                                       PRISM_OP_MAXIMUM, PRISM_OP_TRANSPOSE };

  g = prism_graph_load (path, NULL, &error);
  g_assert_no_error (error);
  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    g_assert_cmpint (prism_graph_op (g, k + 1)->kind, ==, kinds[k]);
  g_assert_cmpfloat (prism_graph_op (g, 1)->attrs.value, ==, 0.125);
  g_assert_cmpint (prism_graph_op (g, 2)->attrs.dim, ==, 1);
  g_assert_cmpint (prism_graph_op (g, 5)->attrs.perm[0], ==, 1);
  g_assert_cmpint (prism_graph_op (g, 5)->attrs.perm[1], ==, 0);
  assert_round_trip (g);
  text = prism_graph_to_data (g, NULL);
  g_assert_nonnull (strstr (text, "\"value\": 0.125"));
  g_assert_nonnull (strstr (text, "\"perm\": [1, 0]"));
  g_assert_nonnull (strstr (text, "\"op\": \"maximum\""));
  g_assert_nonnull (strstr (text, "\"op\": \"mean\", \"inputs\": [0], \"dim\": 0"));
}

/* rms_norm's eps survives a round trip, at both levels; an rms_norm
 * without one is written without one, as before eps existed. */
static void
test_round_trip_rms_norm_eps (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "codegen", "graphs", "rms-norm-eps.json", NULL);
  g_autoptr(PrismGraph) g = NULL;
  g_autoptr(PrismGraph) plain = prism_workload_build ("rms_norm", "n=4,d=128", NULL);
  g_autofree char *text = NULL;
  g_autofree char *plain_text = NULL;
  const PrismOp *kernel;
  GError *error = NULL;

  g = prism_graph_load (path, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (prism_graph_op (g, 2)->kind, ==, PRISM_OP_RMS_NORM);
  g_assert_cmpfloat (prism_graph_op (g, 2)->attrs.eps, ==, 0.25);
  kernel = prism_graph_op (g, 3);
  g_assert_cmpfloat (prism_graph_op (kernel->body, 2)->attrs.eps, ==, 0.25);
  assert_round_trip (g);
  text = prism_graph_to_data (g, NULL);
  g_assert_nonnull (strstr (text, "\"eps\": 0.25"));
  plain_text = prism_graph_to_data (plain, NULL);
  g_assert_null (strstr (plain_text, "eps"));
}

static void
test_workloads (void)
{
  const char *srcdir = g_getenv ("PRISM_SOURCE_DIR");
  const PrismWorkloadInfo *list;
  guint n;

  list = prism_workload_list (&n);
  g_assert_cmpuint (n, >, 0);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(PrismGraph) program = NULL;
      GError *error = NULL;

      g_test_message ("workload %s", list[i].name);
      program = prism_workload_build (list[i].name, NULL, &error);
      g_assert_no_error (error);
      assert_round_trip (program);
      if (list[i].has_reference)
        {
          g_autoptr(PrismGraph) fused = prism_workload_build_reference (list[i].name, NULL, &error);
          g_assert_no_error (error);
          assert_round_trip (fused);
        }
    }

  if (srcdir != NULL)
    {
      g_autofree char *dir = g_build_filename (srcdir, "data", "workloads", NULL);
      g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
      const char *name;

      while (d != NULL && (name = g_dir_read_name (d)) != NULL)
        {
          g_autofree char *path = g_build_filename (dir, name, NULL);
          g_autoptr(PrismGraph) g = NULL;
          GError *error = NULL;

          if (!g_str_has_suffix (name, ".json"))
            continue;
          g_test_message ("file %s", path);
          g = prism_graph_load (path, NULL, &error);
          g_assert_no_error (error);
          assert_round_trip (g);
        }
    }
}

/* ------------------------------------------------------------------------ */
/* docs/format.md: its complete example is a canonical document */

static void
test_docs_example (void)
{
  const char *srcdir = g_getenv ("PRISM_SOURCE_DIR");
  g_autofree char *path = NULL;
  g_autofree char *md = NULL;
  g_autofree char *example = NULL;
  g_autofree char *text = NULL;
  g_autoptr(PrismGraph) g = NULL;
  g_autoptr(JsonNode) prov = NULL;
  GError *error = NULL;
  const char *start, *end;

  if (srcdir == NULL)
    {
      g_test_skip ("PRISM_SOURCE_DIR is not set");
      return;
    }
  path = g_build_filename (srcdir, "docs", "format.md", NULL);
  g_assert_true (g_file_get_contents (path, &md, NULL, &error));
  g_assert_no_error (error);
  start = strstr (md, "<!-- example: canonical -->\n```json\n");
  g_assert_nonnull (start);
  start = strchr (strchr (start, '\n') + 1, '\n') + 1;
  end = strstr (start, "```");
  g_assert_nonnull (end);
  example = g_strndup (start, end - start);

  g = prism_graph_load_from_data (example, -1, &prov, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (prism_graph_count_kernels (g), >=, 1);
  g_assert_nonnull (prov);
  text = prism_graph_to_data (g, prov);
  g_assert_cmpstr (text, ==, example);
}

/* Undoing builder steps in place leaves the graph as it was, and it can
 * grow again (the search's undo). */
static void
test_truncate (void)
{
  g_autoptr(PrismGraph) g = prism_workload_build ("swiglu", "n=4,d=64", NULL);
  g_autofree char *before = NULL, *after = NULL, *regrown = NULL, *grown = NULL;
  g_autoptr(GError) error = NULL;
  guint n_ops, n_tensors, in;
  int t;

  g_assert_nonnull (g);
  before = prism_graph_to_string (g);
  n_ops = g->ops->len;
  n_tensors = g->tensors->len;
  in = prism_graph_op (g, 0)->outputs[0];

  t = prism_graph_add (g, PRISM_OP_EXP, &in, 1, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (prism_graph_add_output (g, (guint) t, "extra", &error), >=, 0);
  g_assert_no_error (error);
  grown = prism_graph_to_string (g);
  g_assert_cmpuint (g->ops->len, ==, n_ops + 2);

  prism_graph_truncate (g, n_ops, n_tensors);
  after = prism_graph_to_string (g);
  g_assert_cmpstr (after, ==, before);
  g_assert_true (prism_graph_validate (g, &error));
  g_assert_no_error (error);

  t = prism_graph_add (g, PRISM_OP_EXP, &in, 1, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (prism_graph_add_output (g, (guint) t, "extra", &error), >=, 0);
  regrown = prism_graph_to_string (g);
  g_assert_cmpstr (regrown, ==, grown);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/json/round-trip", test_round_trip);
  g_test_add_func ("/json/round-trip-node", test_round_trip_json_node);
  g_test_add_func ("/json/round-trip-new-operators", test_round_trip_new_operators);
  g_test_add_func ("/json/round-trip/rms-norm-eps", test_round_trip_rms_norm_eps);
  g_test_add_func ("/json/any-order", test_any_order);
  g_test_add_func ("/json/defaults", test_defaults);
  g_test_add_func ("/json/load-from-data-length", test_load_from_data_length);
  g_test_add_func ("/json/error-codes", test_error_codes);
  g_test_add_func ("/json/save-atomic", test_save_atomic);
  g_test_add_func ("/json/bad-corpus", test_bad_corpus);
  g_test_add_func ("/json/limits", test_limits);
  g_test_add_func ("/json/expression-growth", test_expression_growth);
  g_test_add_func ("/json/mutations", test_mutations);
  g_test_add_func ("/json/workloads", test_workloads);
  g_test_add_func ("/json/docs-example", test_docs_example);
  g_test_add_func ("/graph/truncate", test_truncate);
  return g_test_run ();
}
