/* test-onnx-reader.c — ONNX models read as programs (src/libprism/import/)
 *
 * Models of Debian's onnx test data (libonnx-testdata) and the models of
 * tests/import/models (make-models.py): each supported one is imported,
 * written and read back as a prism-graph document (what `prism check`
 * does), run by the interpreter on the model's own test inputs and compared
 * with the outputs ONNX's reference wrote.  The unsupported ones are refused
 * naming the node, the input or the initializer; damaged bytes are refused
 * without a crash.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "onnx.pb-c.h"
#include "prism-error.h"
#include "prism-graph-json.h"
#include "prism-interp.h"
#include "prism-onnx-reader.h"

#define DEBIAN_DATA "/usr/share/libonnx-testdata/data/node"

static char *
model_dir (const char *name)
{
  if (g_str_has_prefix (name, "test_"))
    return g_build_filename (DEBIAN_DATA, name, NULL);
  return g_test_build_filename (G_TEST_DIST, "import", "models", name, NULL);
}

/* A float tensor as a buffer of its shape (rank 0 as [1]). */
static PrismBuffer *
tensor_buffer (const Onnx__TensorProto *t)
{
  gint64 dims[PRISM_MAX_DIMS] = { 1 };
  PrismBuffer *b;

  g_assert_cmpint (t->data_type, ==, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT);
  g_assert_cmpuint (t->n_dims, <=, PRISM_MAX_DIMS);
  for (gsize i = 0; i < t->n_dims; i++)
    dims[i] = t->dims[i];
  b = prism_buffer_new (MAX (t->n_dims, 1), dims);
  for (gint64 i = 0; i < b->numel; i++)
    {
      float f;
      if (t->has_raw_data)
        memcpy (&f, t->raw_data.data + 4 * i, 4);
      else
        f = t->float_data[i];
      b->data[i] = f;
    }
  return b;
}

/* The tensor of a test_data_set_0 file. */
static PrismBuffer *
read_tensor (const char *path, char **name)
{
  g_autofree char *data = NULL;
  gsize length = 0;
  Onnx__TensorProto *t;
  PrismBuffer *b;

  g_assert_true (g_file_get_contents (path, &data, &length, NULL));
  t = onnx__tensor_proto__unpack (NULL, length, (const guint8 *) data);
  g_assert_nonnull (t);
  b = tensor_buffer (t);
  *name = g_strdup (t->name);
  onnx__tensor_proto__free_unpacked (t, NULL);
  return b;
}

/* The initializer @name of @dir/model.onnx (weights are program inputs). */
static PrismBuffer *
read_initializer (const char *dir, const char *name)
{
  g_autofree char *path = g_build_filename (dir, "model.onnx", NULL);
  g_autofree char *data = NULL;
  gsize length = 0;
  Onnx__ModelProto *m;
  PrismBuffer *b = NULL;

  g_assert_true (g_file_get_contents (path, &data, &length, NULL));
  m = onnx__model_proto__unpack (NULL, length, (const guint8 *) data);
  g_assert_nonnull (m);
  for (gsize i = 0; i < m->graph->n_initializer; i++)
    if (g_strcmp0 (m->graph->initializer[i]->name, name) == 0)
      b = tensor_buffer (m->graph->initializer[i]);
  onnx__model_proto__free_unpacked (m, NULL);
  g_assert_nonnull (b);
  return b;
}

/* The program tensor's data are laid out as the model's: an input of the
 * program may have 1s padded on the left of the ONNX shape. */
static void
reshape_to (PrismBuffer *b, const PrismTensor *t)
{
  gint64 shape[PRISM_MAX_DIMS];

  g_assert_true (prism_tensor_get_shape (t, shape));
  g_assert_cmpint (prism_tensor_numel (t), ==, b->numel);
  b->ndims = t->ndims;
  memcpy (b->dims, shape, sizeof shape);
}

/* Runs @graph on the inputs of @dir/test_data_set_0 (matched by name) and
 * compares its first output with output_0.pb. */
static void
check_against_test_data (const PrismGraph *graph, const char *dir)
{
  g_autoptr(GArray) inputs = prism_graph_get_inputs (graph);
  g_autoptr(GPtrArray) buffers = g_ptr_array_new_with_free_func ((GDestroyNotify) prism_buffer_free);
  g_autoptr(GPtrArray) outputs = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *out_path = g_build_filename (dir, "test_data_set_0", "output_0.pb", NULL);
  g_autofree char *out_name = NULL;
  g_autoptr(PrismBuffer) expected = NULL;
  g_autoptr(GArray) outs = prism_graph_get_outputs (graph);
  const PrismBuffer *got;

  for (guint i = 0; i < inputs->len; i++)
    g_ptr_array_add (buffers, NULL);
  for (guint k = 0;; k++)
    {
      g_autofree char *file = g_strdup_printf ("input_%u.pb", k);
      g_autofree char *path = g_build_filename (dir, "test_data_set_0", file, NULL);
      g_autofree char *name = NULL;
      PrismBuffer *b;
      gboolean used = FALSE;

      if (!g_file_test (path, G_FILE_TEST_EXISTS))
        break;
      b = read_tensor (path, &name);
      for (guint i = 0; i < inputs->len; i++)
        {
          guint id = g_array_index (inputs, guint, i);
          const PrismOp *op = prism_graph_op (graph, prism_graph_tensor (graph, id)->producer);

          if (g_strcmp0 (op->name, name) == 0)
            {
              reshape_to (b, prism_graph_tensor (graph, id));
              g_ptr_array_index (buffers, i) = b;
              used = TRUE;
            }
        }
      if (!used)
        prism_buffer_free (b);
    }
  for (guint i = 0; i < inputs->len; i++)
    if (g_ptr_array_index (buffers, i) == NULL)
      {
        guint id = g_array_index (inputs, guint, i);
        const PrismOp *op = prism_graph_op (graph, prism_graph_tensor (graph, id)->producer);
        PrismBuffer *b = read_initializer (dir, op->name);

        reshape_to (b, prism_graph_tensor (graph, id));
        g_ptr_array_index (buffers, i) = b;
      }
  outputs = prism_interp_run (graph, (PrismBuffer *const *) buffers->pdata, buffers->len, NULL, &error);
  g_assert_no_error (error);
  expected = read_tensor (out_path, &out_name);
  got = g_ptr_array_index (outputs, 0);
  reshape_to (expected, prism_graph_tensor (graph, g_array_index (outs, guint, 0)));
  g_assert_true (prism_buffer_same_shape (got, expected));
  for (gint64 i = 0; i < got->numel; i++)
    {
      double want = expected->data[i], have = got->data[i];

      if (isnan (want) && isnan (have))
        continue;
      if (fabs (want - have) > 1e-4 * MAX (1.0, fabs (want)))
        g_error ("%s: element %" G_GINT64_FORMAT " is %.8g, ONNX's reference says %.8g", dir, i, have, want);
    }
}

/* Imports @name; the program reads back as a prism-graph document. */
static PrismGraph *
import (const char *name, const PrismOnnxDim *dims, guint n_dims, GError **error)
{
  g_autofree char *dir = model_dir (name);
  g_autofree char *path = g_build_filename (dir, "model.onnx", NULL);

  return prism_onnx_load (path, dims, n_dims, error);
}

static void
test_supported (gconstpointer data)
{
  const char *name = data;
  g_autofree char *dir = model_dir (name);
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismGraph) graph = NULL;
  g_autoptr(PrismGraph) again = NULL;
  g_autofree char *text = NULL;
  g_autofree char *text2 = NULL;

  if (!g_file_test (dir, G_FILE_TEST_IS_DIR))
    {
      g_test_skip ("libonnx-testdata is not installed");
      return;
    }
  graph = import (name, NULL, 0, &error);
  g_assert_no_error (error);
  g_assert_true (prism_graph_validate (graph, &error));
  text = prism_graph_to_data (graph, NULL);
  again = prism_graph_load_from_data (text, -1, NULL, &error);
  g_assert_no_error (error);
  text2 = prism_graph_to_data (again, NULL);
  g_assert_cmpstr (text, ==, text2);
  check_against_test_data (graph, dir);
}

typedef struct
{
  const char *model;
  const char *message;  /* a part of the error's message */
} Refused;

static const Refused refused[] = {
  { "test_erf", "node 0 (Erf): Erf is read only as part of GELU" },
  { "test_add_uint8", "node 0 (Add): reads “x”, which holds uint8" },
  { "test_max_float64", "reads “data_0”, which holds double" },
  { "test_layer_normalization_2d_axis0", "node 0 (LayerNormalization): not supported" },
  { "test_reduce_sum_keepdims_example", "node 0 (ReduceSum): its axes “axes” are not constant (a graph input)" },
  { "test_constant", "“values”, a constant of 25 elements" },
  { "test_matmulinteger", "node 0 (MatMulInteger): not supported" },
  { "unsupported_tanh", "node 1 “/act/Tanh” (Tanh): not supported" },
  { "external_data", "initializer “w_ext”: its data is stored outside the model (external data in “weights.bin”)" },
  { "dim_param", "graph input “x”: dim 0 is “batch”, which has no size: give it one with --dim batch=N" },
};

static void
test_refused (gconstpointer data)
{
  const Refused *r = data;
  g_autofree char *dir = model_dir (r->model);
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismGraph) graph = NULL;

  if (!g_file_test (dir, G_FILE_TEST_IS_DIR))
    {
      g_test_skip ("libonnx-testdata is not installed");
      return;
    }
  graph = import (r->model, NULL, 0, &error);
  g_assert_null (graph);
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED);
  if (strstr (error->message, r->message) == NULL)
    g_error ("“%s” does not say “%s”", error->message, r->message);
}

/* --dim sizes a dim_param; a binding that names no dim is refused. */
static void
test_dims (void)
{
  PrismOnnxDim batch = { (char *) "batch", 8 };
  PrismOnnxDim both[2] = { { (char *) "batch", 8 }, { (char *) "seq", 3 } };
  PrismOnnxDim parsed = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismGraph) graph = import ("dim_param", &batch, 1, &error);
  g_autoptr(PrismGraph) none = NULL;
  gint64 shape[PRISM_MAX_DIMS];

  g_assert_no_error (error);
  g_assert_true (prism_tensor_get_shape (prism_graph_tensor (graph, 0), shape));
  g_assert_cmpint (shape[0], ==, 8);
  g_assert_cmpint (shape[1], ==, 16);
  none = import ("dim_param", both, 2, &error);
  g_assert_null (none);
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "--dim seq: no graph input has a dim named “seq”"));
  g_clear_error (&error);
  {
    g_autofree char *path = g_test_build_filename (G_TEST_DIST, "import", "models", "dim_param", "model.onnx", NULL);
    g_autofree char *plain = g_test_build_filename (G_TEST_DIST, "import", "models", "swiglu_mlp", "model.onnx", NULL);
    g_auto(GStrv) names = prism_onnx_list_dim_params (path, &error);
    g_auto(GStrv) no_names = prism_onnx_list_dim_params (plain, &error);

    g_assert_no_error (error);
    g_assert_cmpuint (g_strv_length (names), ==, 1);
    g_assert_cmpstr (names[0], ==, "batch");
    g_assert_cmpuint (g_strv_length (no_names), ==, 0);
  }
  g_assert_true (prism_onnx_dim_parse ("batch=16", &parsed, &error));
  g_assert_cmpstr (parsed.name, ==, "batch");
  g_assert_cmpint (parsed.value, ==, 16);
  g_free (parsed.name);
  g_assert_false (prism_onnx_dim_parse ("batch=0", &parsed, &error));
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_PARSE);
  g_clear_error (&error);
  g_assert_false (prism_onnx_dim_parse ("=3", &parsed, &error));
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_PARSE);
}

/* Damaged bytes: every prefix of a model, flipped bytes and messages
 * nested past the limit are refused with a message, never a crash. */
static void
test_garbage (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "import", "models", "swiglu_mlp", "model.onnx", NULL);
  g_autofree char *data = NULL;
  gsize length = 0;
  g_autoptr(GByteArray) deep = g_byte_array_new ();
  g_autoptr(GError) error = NULL;
  PrismGraph *graph;

  g_assert_true (g_file_get_contents (path, &data, &length, NULL));
  for (gsize n = 0; n < length; n += 1 + n / 16)
    {
      graph = prism_onnx_load_from_data ((const guint8 *) data, n, NULL, 0, "x", &error);
      if (graph == NULL)
        {
          g_assert_nonnull (error);
          g_assert_cmpstr (error->message, !=, "");
          g_clear_error (&error);
        }
      g_clear_pointer (&graph, prism_graph_unref);
    }
  for (gsize i = 0; i < MIN (length, 4096); i += 7)
    {
      data[i] ^= 0x5a;
      graph = prism_onnx_load_from_data ((const guint8 *) data, length, NULL, 0, "x", &error);
      g_clear_error (&error);
      g_clear_pointer (&graph, prism_graph_unref);
      data[i] ^= 0x5a;
    }
  /* ModelProto.graph (field 7) → GraphProto.node (1) → NodeProto.attribute (5)
   * → AttributeProto.g (6) → GraphProto.node … 100 000 levels deep, the
   * innermost first. */
  for (guint level = 0; level < 100000; level++)
    {
      static const guint8 tags[] = { 0x0a, 0x2a, 0x32 };  /* node, attribute, g */
      guint8 header[12];
      guint len = deep->len, h = 0;

      header[h++] = tags[(99999 - level) % 3];
      do
        {
          header[h++] = (len & 0x7f) | (len > 0x7f ? 0x80 : 0);
          len >>= 7;
        }
      while (len > 0);
      g_byte_array_prepend (deep, header, h);
    }
  {
    guint8 header[12];
    guint len = deep->len, h = 0;

    header[h++] = 0x3a;  /* ModelProto.graph */
    do
      {
        header[h++] = (len & 0x7f) | (len > 0x7f ? 0x80 : 0);
        len >>= 7;
      }
    while (len > 0);
    g_byte_array_prepend (deep, header, h);
  }
  graph = prism_onnx_load_from_data (deep->data, deep->len, NULL, 0, "x", &error);
  g_assert_null (graph);
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_LIMIT);
  g_assert_nonnull (strstr (error->message, "nest deeper than 32 levels"));
}

int
main (int argc, char **argv)
{
  static const char *const supported[] = {
    "test_matmul_2d", "test_matmul_3d", "test_matmul_4d", "test_add", "test_add_bcast", "test_sub",
    "test_sub_bcast", "test_mul", "test_mul_bcast", "test_div", "test_div_bcast", "test_pow_bcast_scalar",
    "test_exp", "test_sqrt", "test_relu", "test_sigmoid", "test_reciprocal", "test_max_example",
    "test_max_one_input", "test_max_two_inputs", "test_reduce_mean_keepdims_example",
    "test_reduce_mean_do_not_keepdims_example", "test_reduce_max_keepdims_random",
    "test_reduce_mean_default_axes_keepdims_example", "test_softmax_axis_0", "test_softmax_axis_1",
    "test_softmax_axis_2", "test_softmax_default_axis", "test_softmax_example", "test_softmax_large_number",
    "test_softmax_negative_axis", "test_softmax_axis_1_expanded", "test_softmax_default_axis_expanded",
    "test_transpose_default", "test_transpose_all_permutations_3", "test_gemm_all_attributes",
    "test_gemm_alpha", "test_gemm_beta", "test_gemm_default_matrix_bias", "test_gemm_default_no_bias",
    "test_gemm_default_scalar_bias", "test_gemm_default_vector_bias", "test_gemm_transposeA",
    "test_gemm_transposeB",
    "gelu_erf", "swiglu_mlp", "rmsnorm_linear", "reduce_axes_input",
  };

  g_test_init (&argc, &argv, NULL);
  for (gsize i = 0; i < G_N_ELEMENTS (supported); i++)
    {
      g_autofree char *path = g_strdup_printf ("/onnx/supported/%s", supported[i]);
      g_test_add_data_func (path, supported[i], test_supported);
    }
  for (gsize i = 0; i < G_N_ELEMENTS (refused); i++)
    {
      g_autofree char *path = g_strdup_printf ("/onnx/refused/%s", refused[i].model);
      g_test_add_data_func (path, &refused[i], test_refused);
    }
  g_test_add_func ("/onnx/dims", test_dims);
  g_test_add_func ("/onnx/garbage", test_garbage);
  return g_test_run ();
}
