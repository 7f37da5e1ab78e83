/* test-mirage-reader.c — Mirage's saved muGraphs converted into PrismGraphs
 *
 * The files in mirage/ are written by hand from the schema of Mirage's
 * saved muGraphs (docs/format.md, "Mirage muGraph files").
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>
#include <json-glib/json-glib.h>

#include "prism-error.h"
#include "prism-mirage-reader.h"

static GPtrArray *
load (const char *name)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "ir", "mirage", name, NULL);
  g_autoptr(GError) error = NULL;
  GPtrArray *graphs = prism_mirage_load (path, &error);

  g_assert_no_error (error);
  g_assert_nonnull (graphs);
  return graphs;
}

static const PrismMirageGraph *
graph_at (GPtrArray *graphs, guint i)
{
  const PrismMirageGraph *m = g_ptr_array_index (graphs, i);

  g_assert_cmpuint (m->index, ==, i);
  return m;
}

static void
assert_shape (const PrismGraph *g, guint tensor, guint ndims, gint64 d0, gint64 d1)
{
  const PrismTensor *t = prism_graph_tensor (g, tensor);
  gint64 shape[PRISM_MAX_DIMS];

  g_assert_cmpuint (t->ndims, ==, ndims);
  g_assert_true (prism_tensor_get_shape (t, shape));
  g_assert_cmpint (shape[0], ==, d0);
  g_assert_cmpint (shape[1], ==, d1);
}

static void
assert_kinds (const PrismGraph *g, const PrismOpKind *kinds, guint n)
{
  g_assert_cmpuint (g->ops->len, ==, n);
  for (guint i = 0; i < n; i++)
    g_assert_cmpstr (prism_op_kind_to_string (prism_graph_op (g, i)->kind), ==, prism_op_kind_to_string (kinds[i]));
}

/* The one-kernel RMSNorm + linear graph: Mirage's names mapped onto ours. */
static void
assert_rms_kernel (const PrismMirageGraph *m, gint64 grid, gint64 forloop, PrismOpKind epilogue, PrismDtype dtype)
{
  static const PrismOpKind top[] = { PRISM_OP_INPUT, PRISM_OP_INPUT, PRISM_OP_KERNEL, PRISM_OP_OUTPUT };
  const PrismOpKind body_kinds[] = { PRISM_OP_INPUT, PRISM_OP_INPUT, PRISM_OP_ACCUM_RMS, PRISM_OP_MATMUL,
                                     PRISM_OP_ACCUM, epilogue, PRISM_OP_OUTPUT };
  const PrismGraph *g = m->graph, *b;
  const PrismOp *x, *w, *out;
  g_assert_no_error (m->error);
  g_assert_nonnull (g);
  g_assert_cmpuint (m->n_ops, ==, 4);
  assert_kinds (g, top, G_N_ELEMENTS (top));
  assert_shape (g, 0, 2, 8, 128);
  assert_shape (g, 1, 2, 128, 128);
  assert_shape (g, 2, 2, 8, 128);
  g_assert_cmpint (prism_graph_tensor (g, 0)->dtype, ==, dtype);
  g_assert_cmpuint (prism_graph_count_kernels (g), ==, 1);

  b = prism_graph_op (g, 2)->body;
  g_assert_cmpuint (b->grid_ndims, ==, 1);
  g_assert_cmpint (prism_dim_get_const (b->grid[0]), ==, grid);
  g_assert_cmpint (prism_dim_get_const (b->forloop), ==, forloop);
  g_assert_cmpuint (b->block_threads, ==, 128);
  assert_kinds (b, body_kinds, G_N_ELEMENTS (body_kinds));
  x = prism_graph_op (b, 0);
  w = prism_graph_op (b, 1);
  out = prism_graph_op (b, 6);
  g_assert_cmpint (x->attrs.input_index, ==, 0);
  g_assert_cmpint (x->attrs.imap[0], ==, -1);
  g_assert_cmpint (x->attrs.fmap, ==, 1);
  g_assert_cmpint (w->attrs.input_index, ==, 1);
  g_assert_cmpint (w->attrs.imap[0], ==, 1);
  g_assert_cmpint (w->attrs.fmap, ==, 0);
  g_assert_cmpint (out->attrs.omap[0], ==, 1);
  assert_shape (b, x->outputs[0], 2, 8, 128 / forloop);
  assert_shape (b, w->outputs[0], 2, 128 / forloop, 128 / grid);
  assert_shape (b, prism_graph_op (b, 2)->outputs[0], 2, 8, 1);
  g_assert_true (prism_graph_tensor (b, prism_graph_op (b, 5)->outputs[0])->after_accum);
  g_assert_false (prism_graph_tensor (b, prism_graph_op (b, 3)->outputs[0])->after_accum);
}

static void
test_rmsnorm (void)
{
  g_autoptr(GPtrArray) graphs = load ("rmsnorm.json");
  static const PrismOpKind unfused[] = { PRISM_OP_INPUT, PRISM_OP_INPUT, PRISM_OP_RMS_NORM, PRISM_OP_MATMUL,
                                         PRISM_OP_OUTPUT };
  const PrismMirageGraph *m;

  g_assert_cmpuint (graphs->len, ==, 4);
  /* Today's names and FP16 = 941 … */
  assert_rms_kernel (graph_at (graphs, 0), 16, 4, PRISM_OP_DIV, PRISM_DTYPE_F16);
  /* … and December 2024's: tb_accum_*_op, FP16 = 921. */
  assert_rms_kernel (graph_at (graphs, 1), 8, 2, PRISM_OP_DIV, PRISM_DTYPE_F16);
  m = graph_at (graphs, 2);
  g_assert_no_error (m->error);
  assert_kinds (m->graph, unfused, G_N_ELEMENTS (unfused));
  g_assert_cmpuint (prism_graph_count_kernels (m->graph), ==, 2);
  g_assert_cmpuint (prism_graph_op (m->graph, 2)->attrs.norm_dims, ==, 1);
  /* A wrong graph reads as well: the verifier, not the reader, rejects it. */
  assert_rms_kernel (graph_at (graphs, 3), 16, 4, PRISM_OP_MUL, PRISM_DTYPE_F16);
}

static void
test_lora (void)
{
  g_autoptr(GPtrArray) graphs = load ("lora.json");
  const PrismMirageGraph *m = graph_at (graphs, 0);
  const PrismGraph *b;

  g_assert_cmpuint (graphs->len, ==, 1);
  g_assert_no_error (m->error);
  g_assert_cmpuint (m->n_ops, ==, 6);
  g_assert_cmpuint (prism_graph_op (m->graph, 4)->kind, ==, PRISM_OP_KERNEL);
  g_assert_cmpuint (prism_graph_op (m->graph, 4)->n_inputs, ==, 4);
  b = prism_graph_op (m->graph, 4)->body;
  g_assert_cmpuint (b->ops->len, ==, 10);
  /* B is read whole along the loop (forloop_dim -1) and split by the grid. */
  g_assert_cmpint (prism_graph_op (b, 3)->attrs.input_index, ==, 3);
  g_assert_cmpint (prism_graph_op (b, 3)->attrs.fmap, ==, -1);
  g_assert_cmpint (prism_graph_op (b, 3)->attrs.imap[0], ==, 1);
  assert_shape (b, prism_graph_op (b, 3)->outputs[0], 2, 16, 32);
  assert_shape (b, prism_graph_op (b, 6)->outputs[0], 2, 16, 32);
  g_assert_cmpuint (prism_graph_op (b, 8)->kind, ==, PRISM_OP_ACCUM);
  assert_shape (m->graph, prism_graph_op (m->graph, 4)->outputs[0], 2, 16, 128);
}

static void
test_malformed (void)
{
  static const struct
  {
    guint index;
    PrismErrorCode code;
    const char *message;
  } cases[] = {
    { 1, PRISM_ERROR_UNSUPPORTED,
      "graph 1: op 2 (kn_frobnicate_op): field “op_type”: unknown kernel op type “kn_frobnicate_op”" },
    { 2, PRISM_ERROR_UNSUPPORTED,
      "graph 2: op 2 (kn_customized_op): bgraph op 5 (tb_clamp_op): field “op_type”: “tb_clamp_op” has no "
      "counterpart in Prism's IR and is not supported" },
    { 3, PRISM_ERROR_INVALID_GRAPH,
      "graph 3: op 2 (kn_customized_op): bgraph op 1 (tb_input_op): field “input_map.x”: data dim 2 is out of "
      "range for a rank-2 tensor" },
    { 4, PRISM_ERROR_INVALID_GRAPH,
      "graph 4: op 2 (kn_matmul_op): field “input_tensors[1].guid”: tensor 10009999 is not produced by an "
      "earlier op" },
    { 5, PRISM_ERROR_INVALID_GRAPH,
      "graph 5: op 2 (kn_matmul_op): field “output_tensors[0].dim”: the file says [16, 33], the op computes "
      "[16, 32]" },
    { 6, PRISM_ERROR_UNSUPPORTED,
      "graph 6: op 0 (kn_input_op): field “output_tensors[0].data_type”: data type 999 is not one we read" },
    { 7, PRISM_ERROR_UNSUPPORTED,
      "graph 7: op 1 (kn_input_op): field “input_strides[1]”: 64 is not the contiguous row-major stride 1" },
    { 8, PRISM_ERROR_INVALID_GRAPH,
      "graph 8: op 2 (kn_customized_op): bgraph op 0 (tb_input_op): field “output_tensors[0].dim”: the file "
      "says [16, 16], the op computes [4, 64]" },
    { 9, PRISM_ERROR_PARSE, "graph 9: is an object, not a list of operators" },
  };
  g_autoptr(GPtrArray) graphs = load ("malformed.json");

  g_assert_cmpuint (graphs->len, ==, 10);
  /* One bad graph does not spoil the others. */
  g_assert_no_error (graph_at (graphs, 0)->error);
  g_assert_nonnull (graph_at (graphs, 0)->graph);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const PrismMirageGraph *m = graph_at (graphs, cases[i].index);

      g_assert_null (m->graph);
      g_assert_error (m->error, PRISM_ERROR, cases[i].code);
      if (!g_str_has_prefix (m->error->message, cases[i].message))
        g_error ("graph %u: “%s” does not start with “%s”", cases[i].index, m->error->message, cases[i].message);
    }
}

/* matmul.json's graph 1 (one kernel) with @edit applied to its kernel op. */
typedef void (*EditFunc) (JsonObject *kernel_op);

static PrismMirageGraph *
load_edited (EditFunc edit, GPtrArray **keep)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "ir", "mirage", "matmul.json", NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  JsonArray *graph;

  g_assert_true (json_parser_load_from_file (parser, path, &error));
  graph = json_array_get_array_element (json_node_get_array (json_parser_get_root (parser)), 1);
  edit (json_array_get_object_element (graph, 2));
  json_generator_set_root (gen, json_parser_get_root (parser));
  text = json_generator_to_data (gen, NULL);
  *keep = prism_mirage_load_from_data (text, -1, &error);
  g_assert_no_error (error);
  return g_ptr_array_index (*keep, 1);
}

static JsonObject *
bop (JsonObject *kernel_op, guint i)
{
  return json_array_get_object_element (
    json_object_get_array_member (json_object_get_object_member (kernel_op, "bgraph"), "operators"), i);
}

static void
edit_none (JsonObject *k)
{
  (void) k;
}

static void
edit_output_forloop (JsonObject *k)
{
  json_object_set_int_member (bop (k, 4), "forloop_dim", 1);
}

static void
edit_after_accum (JsonObject *k)
{
  JsonObject *t = json_array_get_object_element (json_object_get_array_member (bop (k, 3), "output_tensors"), 0);
  json_object_set_boolean_member (t, "after_accum", FALSE);
}

static void
edit_column_major (JsonObject *k)
{
  JsonObject *t = json_object_get_object_member (bop (k, 0), "dtensor");
  json_object_set_string_member (t, "layout", "DmemColumnMajor");
}

static void
edit_wrong_dtensor (JsonObject *k)
{
  JsonObject *t = json_object_get_object_member (bop (k, 0), "dtensor");
  json_object_set_int_member (t, "guid", 10000011);
}

/* Sets dim[1] of tensor @slot of "input_tensors" or "output_tensors". */
static void
set_dim1 (JsonObject *op, const char *member, guint slot, gint64 v)
{
  JsonObject *t = json_array_get_object_element (json_object_get_array_member (op, member), slot);
  json_node_set_int (json_array_get_element (json_object_get_array_member (t, "dim"), 1), v);
}

static void
edit_grid_y (JsonObject *k)
{
  /* Four blocks along y instead of two along x: the grid keeps axis y. */
  JsonObject *grid = json_object_get_object_member (json_object_get_object_member (k, "bgraph"), "grid_dim");
  JsonObject *wmap = json_object_get_object_member (bop (k, 1), "input_map");
  JsonObject *omap = json_object_get_object_member (bop (k, 4), "output_map");

  json_object_set_int_member (grid, "x", 1);
  json_object_set_int_member (grid, "y", 4);
  json_object_set_int_member (wmap, "x", -1);
  json_object_set_int_member (wmap, "y", 1);
  json_object_set_int_member (omap, "x", -1);
  json_object_set_int_member (omap, "y", 1);
  /* 32 / 4 = 8 columns per block */
  set_dim1 (bop (k, 1), "output_tensors", 0, 8);
  set_dim1 (bop (k, 2), "input_tensors", 1, 8);
  set_dim1 (bop (k, 2), "output_tensors", 0, 8);
  set_dim1 (bop (k, 3), "input_tensors", 0, 8);
  set_dim1 (bop (k, 3), "output_tensors", 0, 8);
  set_dim1 (bop (k, 4), "input_tensors", 0, 8);
}

static void
test_edits (void)
{
  static const struct
  {
    EditFunc edit;
    const char *message;
  } cases[] = {
    { edit_output_forloop,
      "graph 1: op 2 (kn_customized_op): bgraph op 4 (tb_output_op): field “forloop_dim”: 1: outputs written at "
      "every iteration are not supported" },
    { edit_after_accum,
      "graph 1: op 2 (kn_customized_op): bgraph op 3 (tb_forloop_accum_no_red_op): field "
      "“output_tensors[0].after_accum”: the file says false, but the tensor is after an accumulator" },
    { edit_column_major,
      "graph 1: op 2 (kn_customized_op): bgraph op 0 (tb_input_op): field “dtensor.layout”: column-major" },
    { edit_wrong_dtensor,
      "graph 1: op 2 (kn_customized_op): bgraph op 0 (tb_input_op): field “dtensor.guid”: tensor 10000011 is "
      "not input 0 of the kernel (tensor 10000010)" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GPtrArray) keep = NULL;
      PrismMirageGraph *m = load_edited (cases[i].edit, &keep);

      g_assert_null (m->graph);
      g_assert_nonnull (m->error);
      if (!g_str_has_prefix (m->error->message, cases[i].message))
        g_error ("case %u: “%s” does not start with “%s”", i, m->error->message, cases[i].message);
    }

  {
    g_autoptr(GPtrArray) keep = NULL;
    PrismMirageGraph *m = load_edited (edit_none, &keep);
    const PrismGraph *b;

    g_assert_no_error (m->error);
    b = prism_graph_op (m->graph, 2)->body;
    /* grid (2, 1, 1): the axes of one block are left out */
    g_assert_cmpuint (b->grid_ndims, ==, 1);
  }
  {
    g_autoptr(GPtrArray) keep = NULL;
    PrismMirageGraph *m = load_edited (edit_grid_y, &keep);
    const PrismGraph *b;

    g_assert_no_error (m->error);
    b = prism_graph_op (m->graph, 2)->body;
    g_assert_cmpuint (b->grid_ndims, ==, 2);
    g_assert_cmpint (prism_dim_get_const (b->grid[1]), ==, 4);
    g_assert_cmpint (prism_graph_op (b, 1)->attrs.imap[1], ==, 1);
    g_assert_cmpint (prism_graph_op (b, 4)->attrs.omap[1], ==, 1);
  }
}

static JsonObject *
output_tensor (JsonObject *op)
{
  return json_array_get_object_element (json_object_get_array_member (op, "output_tensors"), 0);
}

static void
edit_data_type (JsonObject *k)
{
  /* f32 stated for a tensor the op computes in f16 */
  json_object_set_int_member (output_tensor (bop (k, 2)), "data_type", 950);
}

static void
edit_dim_padding (JsonObject *k)
{
  JsonArray *dim = json_object_get_array_member (output_tensor (bop (k, 2)), "dim");

  g_assert_cmpuint (json_array_get_length (dim), >, 2);
  json_node_set_string (json_array_get_element (dim, json_array_get_length (dim) - 1), "junk");
}

static void
edit_grid_z_huge (JsonObject *k)
{
  JsonObject *grid = json_object_get_object_member (json_object_get_object_member (k, "bgraph"), "grid_dim");

  json_object_set_int_member (grid, "z", 70000);
}

/* What the file states is checked, not ignored (before: a stated data type
 * other than the inferred one, "junk" past num_dims and a grid of 70 000
 * blocks along z were all accepted). */
static void
test_stated (void)
{
  static const struct
  {
    EditFunc edit;
    const char *message;
  } cases[] = {
    { edit_data_type, ".data_type”: the file says f32, the op computes f16" },
    { edit_dim_padding, "is a string, not an integer" },
    { edit_grid_z_huge, "CUDA grids have at most 65535 blocks along y and z" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GPtrArray) keep = NULL;
      PrismMirageGraph *m = load_edited (cases[i].edit, &keep);

      g_assert_null (m->graph);
      g_assert_nonnull (m->error);
      if (strstr (m->error->message, cases[i].message) == NULL)
        g_error ("case %u: “%s” lacks “%s”", i, m->error->message, cases[i].message);
    }
}

static void
test_file_errors (void)
{
  static const struct
  {
    const char *text;
    PrismErrorCode code;
    const char *message;
  } cases[] = {
    { "[[{\"op_type\": \"kn_input_op\"", PRISM_ERROR_PARSE, "malformed JSON" },
    { "[]", PRISM_ERROR_INVALID_GRAPH, "the list holds no muGraph" },
    { "{\"format\": \"prism-graph\"}", PRISM_ERROR_PARSE, "not a Mirage muGraph file: the document is an object" },
    { "[[1,]]", PRISM_ERROR_PARSE, "malformed JSON" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GPtrArray) graphs = prism_mirage_load_from_data (cases[i].text, -1, &error);

      g_assert_null (graphs);
      g_assert_error (error, PRISM_ERROR, cases[i].code);
      if (strstr (error->message, cases[i].message) == NULL)
        g_error ("“%s”: “%s” lacks “%s”", cases[i].text, error->message, cases[i].message);
    }
  {
    /* A graph with no output is refused by name. */
    g_autoptr(GError) error = NULL;
    g_autoptr(GPtrArray) graphs = prism_mirage_load_from_data (
      "[[{\"op_type\":\"kn_input_op\",\"output_tensors\":[{\"data_type\":941,\"dim\":[4,4,0,0],\"guid\":1,"
      "\"num_dims\":2}]}]]", -1, &error);
    const PrismMirageGraph *m;

    g_assert_no_error (error);
    m = g_ptr_array_index (graphs, 0);
    g_assert_null (m->graph);
    g_assert_cmpstr (m->error->message, ==, "graph 0: has no kn_output_op");
  }
}

static void
test_detection (void)
{
  g_autofree char *mirage = g_test_build_filename (G_TEST_DIST, "ir", "mirage", "lora.json", NULL);
  g_autofree char *program = g_test_build_filename (G_TEST_DIST, "ir", "mirage", "matmul-program.json", NULL);

  g_assert_true (prism_mirage_data_is_mugraphs (" \n\t[[", 5));
  g_assert_false (prism_mirage_data_is_mugraphs ("{\"format\"", 9));
  g_assert_false (prism_mirage_data_is_mugraphs ("   ", 3));
  g_assert_true (prism_mirage_file_is_mugraphs (mirage));
  g_assert_false (prism_mirage_file_is_mugraphs (program));
  g_assert_false (prism_mirage_file_is_mugraphs ("/nonexistent/mirage.json"));
  /* Never opened: a FIFO would block. */
  g_assert_false (prism_mirage_file_is_mugraphs ("/dev/null"));
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/mirage-reader/rmsnorm", test_rmsnorm);
  g_test_add_func ("/mirage-reader/lora", test_lora);
  g_test_add_func ("/mirage-reader/malformed", test_malformed);
  g_test_add_func ("/mirage-reader/edits", test_edits);
  g_test_add_func ("/mirage-reader/stated", test_stated);
  g_test_add_func ("/mirage-reader/file-errors", test_file_errors);
  g_test_add_func ("/mirage-reader/detection", test_detection);
  return g_test_run ();
}
