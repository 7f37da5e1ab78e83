/* test-graph-region.c — parts of a program as programs (prism-graph-region.c)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "prism-graph-json.h"
#include "prism-graph-region.h"
#include "prism-interp.h"
#include "prism-onnx-reader.h"

static PrismGraph *
import (const char *name)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "import", "models", name, "model.onnx", NULL);
  g_autoptr(GError) error = NULL;
  PrismGraph *graph = prism_onnx_load (path, NULL, 0, &error);

  g_assert_no_error (error);
  return graph;
}

static const char *
input_name (const PrismGraph *g, guint i)
{
  g_autoptr(GArray) inputs = prism_graph_get_inputs (g);

  return prism_graph_op (g, prism_graph_tensor (g, g_array_index (inputs, guint, i))->producer)->name;
}

/* The norm of rmsnorm_linear (square … div): one input, x, and one output,
 * the division, read by the next op; the eps constant is copied in. */
static void
test_region_norm (void)
{
  g_autoptr(PrismGraph) graph = import ("rmsnorm_linear");
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) ops = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr(PrismGraphRegion) region = NULL;
  g_autoptr(PrismGraph) part = NULL;
  g_autofree char *text = NULL;
  g_autoptr(PrismGraph) again = NULL;
  guint n_constants = 0;

  for (guint i = 0; i < graph->ops->len; i++)
    {
      PrismOpKind kind = prism_graph_op (graph, i)->kind;
      if (kind == PRISM_OP_SQUARE || kind == PRISM_OP_MEAN || kind == PRISM_OP_ADD || kind == PRISM_OP_SQRT
          || kind == PRISM_OP_DIV)
        g_array_append_val (ops, i);
    }
  /* add appears twice (eps and the bias): keep the first one only. */
  region = prism_graph_region_new (graph, (guint *) (void *) ops->data, ops->len - 1);
  g_assert_cmpuint (region->ops->len, ==, 5);
  g_assert_cmpuint (region->inputs->len, ==, 1);
  g_assert_cmpuint (region->outputs->len, ==, 1);
  part = prism_graph_region_extract (region, graph, "norm", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (input_name (part, 0), ==, "x");
  for (guint i = 0; i < part->ops->len; i++)
    n_constants += prism_graph_op (part, i)->kind == PRISM_OP_CONSTANT;
  g_assert_cmpuint (n_constants, ==, 1);
  text = prism_graph_to_data (part, NULL);
  again = prism_graph_load_from_data (text, -1, NULL, &error);
  g_assert_no_error (error);
}

/* The region of every op is the program: the same outputs on the same inputs. */
static void
test_region_whole (void)
{
  g_autoptr(PrismGraph) graph = import ("swiglu_mlp");
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) all = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr(PrismGraphRegion) region = NULL;
  g_autoptr(PrismGraph) part = NULL;
  g_autoptr(GPtrArray) inputs = prism_interp_make_inputs (graph, 7);
  g_autoptr(GPtrArray) want = NULL;
  g_autoptr(GPtrArray) got = NULL;

  for (guint i = 0; i < graph->ops->len; i++)
    g_array_append_val (all, i);
  region = prism_graph_region_new (graph, (guint *) (void *) all->data, all->len);
  part = prism_graph_region_extract (region, graph, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (part->ops->len, ==, graph->ops->len);
  for (guint i = 0; i < 4; i++)
    g_assert_cmpstr (input_name (part, i), ==, input_name (graph, i));
  want = prism_interp_run (graph, (PrismBuffer *const *) inputs->pdata, inputs->len, NULL, &error);
  g_assert_no_error (error);
  got = prism_interp_run (part, (PrismBuffer *const *) inputs->pdata, inputs->len, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (prism_buffer_max_rel_error (g_ptr_array_index (got, 0), g_ptr_array_index (want, 0)), ==, 0.0);
}

/* Find Blocks: the three matmuls of a SwiGLU MLP and what lies between
 * them are one block; the norm and the projection of rmsnorm_linear are one. */
static void
test_find_blocks (void)
{
  g_autoptr(PrismGraph) swiglu = import ("swiglu_mlp");
  g_autoptr(PrismGraph) norm = import ("rmsnorm_linear");
  g_autoptr(PrismGraph) gelu = import ("gelu_erf");
  g_autoptr(GPtrArray) blocks = prism_graph_region_find_blocks (swiglu);
  g_autoptr(GPtrArray) norm_blocks = prism_graph_region_find_blocks (norm);
  g_autoptr(GPtrArray) none = prism_graph_region_find_blocks (gelu);
  const PrismGraphRegion *b;

  g_assert_cmpuint (blocks->len, ==, 1);
  b = g_ptr_array_index (blocks, 0);
  g_assert_cmpuint (b->ops->len, ==, 5);  /* 3 matmuls, silu, mul */
  g_assert_cmpuint (b->inputs->len, ==, 4);
  g_assert_cmpuint (b->outputs->len, ==, 1);
  g_assert_cmpuint (norm_blocks->len, ==, 1);
  b = g_ptr_array_index (norm_blocks, 0);
  /* square, mean, add, sqrt, div, mul, transpose, matmul, add (and the eps constant stays out) */
  g_assert_cmpuint (b->ops->len, ==, 9);
  g_assert_cmpuint (none->len, ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/region/norm", test_region_norm);
  g_test_add_func ("/region/whole", test_region_whole);
  g_test_add_func ("/region/find-blocks", test_find_blocks);
  return g_test_run ();
}
