/* test-graph-view.c — graph layout, drawing, export, comparison
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gstdio.h>
#include <gtk/gtk.h>

#include "prism-candidate-info.h"
#include "prism-compare-view.h"
#include "prism-graph-diff.h"
#include "prism-mirage-reader.h"
#include "prism-kernel-report.h"
#include "prism-line-diff.h"
#include "prism-graph-export.h"
#include "prism-graph-find.h"
#include "prism-graph-layout.h"
#include "prism-graph-view.h"
#include "prism-window.h"
#include "prism-workload.h"

/* Bounded wait: spins the main loop until @cond holds, failing the test
 * (rather than hanging) if it has not after a generous deadline. */
#define WAIT_UNTIL(cond)                                                       \
  G_STMT_START {                                                               \
    gint64 wait_end_ = g_get_monotonic_time () + 15 * G_USEC_PER_SEC;          \
    while (!(cond))                                                            \
      {                                                                        \
        if (g_get_monotonic_time () > wait_end_)                               \
          g_error ("gave up waiting for: %s", #cond);                          \
        if (!g_main_context_iteration (NULL, FALSE))                           \
          g_usleep (1000);                                                     \
      }                                                                        \
  } G_STMT_END

static const PrismGraph *first_body (const PrismGraph *graph,
                                     guint            *kernel_index);

static const PrismGraphDirection directions[] = {
  PRISM_GRAPH_DIRECTION_TOP_TO_BOTTOM,
  PRISM_GRAPH_DIRECTION_LEFT_TO_RIGHT,
};

/*****************************************************************************/

static PrismGraph *
build_workload (const char *name,
                gboolean    reference)
{
  g_autoptr(GError) error = NULL;
  PrismGraph *graph = reference ? prism_workload_build_reference (name, NULL, &error)
                                : prism_workload_build (name, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (graph);
  return graph;
}

static char *
build_path (const char *name)
{
  return g_build_filename (g_test_get_dir (G_TEST_BUILT), name, NULL);
}

static gboolean
boxes_overlap (double ax, double ay, double aw, double ah,
               double bx, double by, double bw, double bh)
{
  return ax < bx + bw && bx < ax + aw && ay < by + bh && by < ay + ah;
}

static gboolean
box_inside (double ix, double iy, double iw, double ih,
            double ox, double oy, double ow, double oh)
{
  return ix >= ox - 0.5 && iy >= oy - 0.5 && ix + iw <= ox + ow + 0.5 && iy + ih <= oy + oh + 0.5;
}

/* The number of edges the layout must have: one per use of a tensor made by
 * an op, where uses of a kernel input count once per block INPUT op tiling it. */
static guint
count_uses (const PrismGraph *graph)
{
  guint n = 0;

  for (guint i = 0; i < graph->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (graph, i);

      for (guint s = 0; s < op->n_inputs; s++)
        {
          if (op->kind != PRISM_OP_KERNEL)
            {
              n++;
              continue;
            }
          for (guint j = 0; j < op->body->ops->len; j++)
            {
              const PrismOp *bop = prism_graph_op (op->body, j);

              if (bop->kind == PRISM_OP_INPUT && bop->attrs.input_index == s)
                n++;
            }
        }
      if (op->kind == PRISM_OP_KERNEL)
        for (guint j = 0; j < op->body->ops->len; j++)
          n += prism_graph_op (op->body, j)->n_inputs;
    }
  return n;
}

/* Every op is a node (custom kernels are clusters holding their block ops),
 * in the right cluster, with finite coordinates inside the layout, without
 * overlaps, and every edge runs in the layout's direction. */
static void
check_layout (const PrismGraphLayout *layout,
              const PrismGraph       *graph)
{
  guint n_nodes = 0, n_kernels = 0;
  g_autoptr(GHashTable) seen = g_hash_table_new (NULL, NULL);

  for (guint i = 0; i < graph->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (graph, i);

      if (op->kind == PRISM_OP_KERNEL)
        {
          n_kernels++;
          n_nodes += op->body->ops->len;
        }
      else
        n_nodes++;
    }
  g_assert_cmpuint (layout->nodes->len, ==, n_nodes);
  g_assert_cmpuint (layout->clusters->len, ==, n_kernels);
  g_assert_cmpuint (layout->edges->len, ==, count_uses (graph));
  g_assert_true (isfinite (layout->width) && layout->width > 0);
  g_assert_true (isfinite (layout->height) && layout->height > 0);

  for (guint i = 0; i < layout->nodes->len; i++)
    {
      const PrismLayoutNode *node = prism_graph_layout_node (layout, i);
      int kernel = prism_op_id_get_kernel (node->op_id);
      const PrismGraph *owner = graph;
      const PrismOp *op;

      g_assert_false (g_hash_table_contains (seen, GUINT_TO_POINTER (node->op_id)));
      g_hash_table_add (seen, GUINT_TO_POINTER (node->op_id));
      if (kernel >= 0)
        {
          g_assert_cmpint (kernel, <, graph->ops->len);
          owner = prism_graph_op (graph, kernel)->body;
          g_assert_nonnull (owner);
        }
      g_assert_cmpuint (prism_op_id_get_op (node->op_id), <, owner->ops->len);
      op = prism_graph_op (owner, prism_op_id_get_op (node->op_id));
      g_assert_cmpint (op->kind, !=, PRISM_OP_KERNEL);
      /* The label names the op's kind (or a program input's own name). */
      if (op->name != NULL)
        g_assert_cmpstr (node->title, ==, op->name);
      else
        g_assert_cmpstr (node->title, ==, prism_op_kind_to_string (op->kind));
      g_assert_nonnull (node->subtitle);
      g_assert_nonnull (strchr (node->subtitle, '['));
      g_assert_nonnull (node->tooltip);
      g_assert_true (pango_parse_markup (node->tooltip, -1, 0, NULL, NULL, NULL, NULL));

      g_assert_true (isfinite (node->x) && isfinite (node->y));
      g_assert_cmpfloat (node->width, >, 0);
      g_assert_cmpfloat (node->height, >, 0);
      g_assert_true (box_inside (node->x, node->y, node->width, node->height,
                                 0, 0, layout->width, layout->height));

      /* Block ops sit in their kernel's box, below its header. */
      for (guint c = 0; c < layout->clusters->len; c++)
        {
          const PrismLayoutCluster *cluster = prism_graph_layout_cluster (layout, c);
          gboolean mine = prism_op_id_get_op (cluster->op_id) == (guint) kernel;

          if (mine)
            g_assert_true (box_inside (node->x, node->y, node->width, node->height,
                                       cluster->x, cluster->y + cluster->header_height,
                                       cluster->width, cluster->height - cluster->header_height));
          else
            g_assert_false (boxes_overlap (node->x, node->y, node->width, node->height,
                                           cluster->x, cluster->y, cluster->width, cluster->height));
        }

      for (guint j = 0; j < i; j++)
        {
          const PrismLayoutNode *other = prism_graph_layout_node (layout, j);

          g_assert_false (boxes_overlap (node->x, node->y, node->width, node->height,
                                         other->x, other->y, other->width, other->height));
        }
    }

  for (guint c = 0; c < layout->clusters->len; c++)
    {
      const PrismLayoutCluster *cluster = prism_graph_layout_cluster (layout, c);
      const PrismOp *op = prism_graph_op (graph, prism_op_id_get_op (cluster->op_id));

      g_assert_cmpint (prism_op_id_get_kernel (cluster->op_id), ==, -1);
      g_assert_cmpint (op->kind, ==, PRISM_OP_KERNEL);
      g_assert_true (box_inside (cluster->x, cluster->y, cluster->width, cluster->height,
                                 0, 0, layout->width, layout->height));
      g_assert_cmpfloat (cluster->header_height, >, 0);
      g_assert_nonnull (strstr (cluster->subtitle, "×") ? cluster->subtitle : cluster->subtitle);
      for (guint d = 0; d < c; d++)
        {
          const PrismLayoutCluster *other = prism_graph_layout_cluster (layout, d);

          g_assert_false (boxes_overlap (cluster->x, cluster->y, cluster->width, cluster->height,
                                         other->x, other->y, other->width, other->height));
        }
    }

  for (guint e = 0; e < layout->edges->len; e++)
    {
      const PrismLayoutEdge *edge = prism_graph_layout_edge (layout, e);
      const PrismLayoutNode *tail = prism_graph_layout_node (layout, edge->tail);
      const PrismLayoutNode *head = prism_graph_layout_node (layout, edge->head);

      g_assert_cmpuint (edge->n_points, >=, 4);
      g_assert_cmpuint ((edge->n_points - 1) % 3, ==, 0);
      for (guint p = 0; p < edge->n_points; p++)
        {
          g_assert_true (isfinite (edge->points[2 * p]) && isfinite (edge->points[2 * p + 1]));
          g_assert_true (edge->points[2 * p] >= 0 && edge->points[2 * p] <= layout->width);
          g_assert_true (edge->points[2 * p + 1] >= 0 && edge->points[2 * p + 1] <= layout->height);
        }
      g_assert_true (edge->has_arrow);
      /* Data flows down (or right): the graph is acyclic, so dot ranks every
       * head after its tail. */
      if (layout->direction == PRISM_GRAPH_DIRECTION_TOP_TO_BOTTOM)
        g_assert_cmpfloat (head->y + head->height / 2, >, tail->y + tail->height / 2);
      else
        g_assert_cmpfloat (head->x + head->width / 2, >, tail->x + tail->width / 2);
    }
}

static void
test_layout_workloads (void)
{
  const PrismWorkloadInfo *infos;
  guint n_infos = 0;

  infos = prism_workload_list (&n_infos);
  g_assert_cmpuint (n_infos, >, 0);
  for (guint i = 0; i < n_infos; i++)
    for (guint fused = 0; fused < 2; fused++)
      {
        g_autoptr(PrismGraph) graph = NULL;

        if (fused && !infos[i].has_reference)
          continue;
        graph = build_workload (infos[i].name, fused);
        for (guint d = 0; d < G_N_ELEMENTS (directions); d++)
          {
            g_autoptr(GError) error = NULL;
            g_autoptr(PrismGraphLayout) layout = prism_graph_layout_compute (graph, directions[d], &error);

            g_test_message ("%s %s %s", infos[i].name, fused ? "fused" : "unfused",
                            d ? "LR" : "TB");
            g_assert_no_error (error);
            g_assert_nonnull (layout);
            g_assert_true (layout->graph == graph);
            g_assert_cmpint (layout->direction, ==, directions[d]);
            check_layout (layout, graph);
          }
      }
}

static void
layout_done_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  GAsyncResult **out = user_data;

  *out = g_object_ref (result);
}

/* Layouts off the main thread: a finished one equals the synchronous one;
 * a cancelled one reports so. */
static void
test_layout_async (void)
{
  g_autoptr(PrismGraph) graph = build_workload ("attention", TRUE);
  g_autoptr(PrismGraphLayout) sync = prism_graph_layout_compute (graph, PRISM_GRAPH_DIRECTION_TOP_TO_BOTTOM, NULL);
  g_autoptr(PrismGraphLayout) async = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GAsyncResult) cancelled_result = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;

  prism_graph_layout_compute_async (graph, PRISM_GRAPH_DIRECTION_TOP_TO_BOTTOM, NULL, 0, NULL,
                                    layout_done_cb, &result);
  g_cancellable_cancel (cancellable);
  prism_graph_layout_compute_async (graph, PRISM_GRAPH_DIRECTION_TOP_TO_BOTTOM, NULL, 0, cancellable,
                                    layout_done_cb, &cancelled_result);
  WAIT_UNTIL (result != NULL && cancelled_result != NULL);

  async = prism_graph_layout_compute_finish (result, &error);
  g_assert_no_error (error);
  g_assert_nonnull (async);
  g_assert_cmpuint (async->nodes->len, ==, sync->nodes->len);
  for (guint i = 0; i < sync->nodes->len; i++)
    {
      g_assert_cmpfloat_with_epsilon (prism_graph_layout_node (async, i)->x,
                                      prism_graph_layout_node (sync, i)->x, 1e-6);
      g_assert_cmpfloat_with_epsilon (prism_graph_layout_node (async, i)->y,
                                      prism_graph_layout_node (sync, i)->y, 1e-6);
    }

  g_assert_null (prism_graph_layout_compute_finish (cancelled_result, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}


/* A collapsed kernel is one node, with the kernel's op id, where its block
 * graph was; every use of its inputs and outputs is still an edge. */
static void
test_layout_collapsed (void)
{
  g_autoptr(PrismGraph) graph = build_workload ("rmsnorm_mlp", TRUE);
  g_autoptr(PrismGraphLayout) expanded = prism_graph_layout_compute (graph, PRISM_GRAPH_DIRECTION_TOP_TO_BOTTOM, NULL);
  g_autoptr(PrismGraphLayout) collapsed = NULL;
  g_autoptr(GError) error = NULL;
  guint kernel = 0, n_uses = 0;
  const PrismGraph *body = first_body (graph, &kernel);
  const PrismLayoutNode *node;
  int index;

  collapsed = prism_graph_layout_compute_collapsed (graph, PRISM_GRAPH_DIRECTION_TOP_TO_BOTTOM,
                                                    &kernel, 1, &error);
  g_assert_no_error (error);
  g_assert_nonnull (collapsed);
  g_assert_cmpuint (collapsed->nodes->len, ==, expanded->nodes->len - body->ops->len + 1);
  g_assert_cmpuint (collapsed->clusters->len, ==, expanded->clusters->len - 1);
  g_assert_true (prism_graph_layout_is_collapsed (collapsed, kernel));
  g_assert_false (prism_graph_layout_is_collapsed (expanded, kernel));

  index = prism_graph_layout_find_node (collapsed, prism_op_id_make (-1, kernel));
  g_assert_cmpint (index, >=, 0);
  node = prism_graph_layout_node (collapsed, index);
  g_assert_cmpint (node->role, ==, PRISM_LAYOUT_ROLE_KERNEL);
  g_assert_cmpstr (node->title, ==, "kernel 1");
  g_assert_nonnull (strstr (node->subtitle, "grid"));
  g_assert_true (pango_parse_markup (node->tooltip, -1, 0, NULL, NULL, NULL, NULL));
  /* Its block ops are drawn as the kernel. */
  g_assert_cmpint (prism_graph_layout_find_node (collapsed, prism_op_id_make (kernel, 0)), ==, -1);
  g_assert_cmpuint (prism_graph_layout_shown_op (collapsed, prism_op_id_make (kernel, 0)), ==,
                    prism_op_id_make (-1, kernel));
  g_assert_cmpuint (prism_graph_layout_shown_op (expanded, prism_op_id_make (kernel, 0)), ==,
                    prism_op_id_make (kernel, 0));
  g_assert_cmpuint (prism_graph_layout_shown_op (collapsed, prism_op_id_make (kernel, 999)), ==,
                    PRISM_OP_ID_NONE);

  /* One edge per use of a tensor made by an op, at the kernel level only. */
  for (guint i = 0; i < graph->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (graph, i);

      for (guint s = 0; s < op->n_inputs; s++)
        if (prism_graph_tensor (graph, op->inputs[s])->producer >= 0)
          n_uses++;
    }
  g_assert_cmpuint (collapsed->edges->len, ==, n_uses);
  for (guint e = 0; e < collapsed->edges->len; e++)
    {
      const PrismLayoutEdge *edge = prism_graph_layout_edge (collapsed, e);

      g_assert_cmpuint (edge->tail, <, collapsed->nodes->len);
      g_assert_cmpuint (edge->head, <, collapsed->nodes->len);
    }
  for (guint i = 0; i < collapsed->nodes->len; i++)
    for (guint j = 0; j < i; j++)
      {
        const PrismLayoutNode *a = prism_graph_layout_node (collapsed, i);
        const PrismLayoutNode *b = prism_graph_layout_node (collapsed, j);

        g_assert_false (boxes_overlap (a->x, a->y, a->width, a->height, b->x, b->y, b->width, b->height));
      }
}

static gboolean
array_has (GArray *ids,
           guint   id)
{
  for (guint i = 0; i < ids->len; i++)
    if (g_array_index (ids, guint, i) == id)
      return TRUE;
  return FALSE;
}

static int
find_input (const PrismGraph *graph,
            const char       *name)
{
  for (guint i = 0; i < graph->ops->len; i++)
    if (prism_graph_op (graph, i)->kind == PRISM_OP_INPUT &&
        g_strcmp0 (prism_graph_op (graph, i)->name, name) == 0)
      return i;
  g_assert_not_reached ();
  return -1;
}

/* What a search text finds: kinds, input names (and the tiles of those
 * inputs), kernel titles and exact tensor ids. */
static void
test_find (void)
{
  g_autoptr(PrismGraph) graph = build_workload ("rmsnorm_mlp", TRUE);
  guint kernel = 0;
  const PrismGraph *body = first_body (graph, &kernel);
  int w_up = find_input (graph, "W_up");
  guint tensor = prism_graph_op (graph, w_up)->outputs[0];
  g_autofree char *tensor_id = g_strdup_printf ("t%u", tensor);
  g_autofree char *no_tensor = g_strdup_printf ("t%u9", tensor);
  g_autoptr(GArray) by_name = prism_graph_find_ops (graph, " w_UP ");
  g_autoptr(GArray) by_kind = prism_graph_find_ops (graph, "matmul");
  g_autoptr(GArray) by_kernel = prism_graph_find_ops (graph, "Kernel 1");
  g_autoptr(GArray) by_id = prism_graph_find_ops (graph, tensor_id);
  g_autoptr(GArray) by_bad_id = prism_graph_find_ops (graph, no_tensor);
  g_autoptr(GArray) blank = prism_graph_find_ops (graph, "  ");
  g_autoptr(GArray) nothing = prism_graph_find_ops (graph, "no such op");
  guint n_matmuls = 0, n_tiles = 0;

  for (guint j = 0; j < body->ops->len; j++)
    {
      const PrismOp *op = prism_graph_op (body, j);

      if (op->kind == PRISM_OP_MATMUL)
        {
          n_matmuls++;
          g_assert_true (array_has (by_kind, prism_op_id_make (kernel, j)));
        }
      if (op->kind == PRISM_OP_INPUT &&
          prism_graph_op (graph, kernel)->inputs[op->attrs.input_index] == tensor)
        {
          n_tiles++;
          g_assert_true (array_has (by_name, prism_op_id_make (kernel, j)));
        }
    }
  g_assert_cmpuint (n_matmuls, >, 0);
  g_assert_cmpuint (by_kind->len, ==, n_matmuls);
  /* The input first (graph order), then its tiles in the kernel. */
  g_assert_cmpuint (n_tiles, >, 0);
  g_assert_cmpuint (by_name->len, ==, 1 + n_tiles);
  g_assert_cmpuint (g_array_index (by_name, guint, 0), ==, prism_op_id_make (-1, w_up));
  g_assert_cmpuint (by_kernel->len, ==, 1);
  g_assert_cmpuint (g_array_index (by_kernel, guint, 0), ==, prism_op_id_make (-1, kernel));
  g_assert_cmpuint (by_id->len, ==, 1);
  g_assert_cmpuint (g_array_index (by_id, guint, 0), ==, prism_op_id_make (-1, w_up));
  g_assert_cmpuint (by_bad_id->len, ==, 0);
  g_assert_cmpuint (blank->len, ==, 0);
  g_assert_cmpuint (nothing->len, ==, 0);
}

/* Shared memory of the rms_norm reference, by hand, as the search counts
 * it: tiles X [8, 64], W [64, 64], matmul [8, 64], accum_rms [8, 1] and
 * div [8, 64], two bytes each; the plain accumulator [8, 64] lives in
 * registers. */
static void
test_layout_smem (void)
{
  g_autoptr(PrismGraph) graph = build_workload ("rms_norm", TRUE);
  const PrismGraph *body = NULL;
  g_autoptr(PrismGraph) symbolic = prism_graph_new ();
  g_autoptr(PrismGraph) sbody = NULL;
  PrismDim *grid[1];
  g_autoptr(GError) error = NULL;
  guint64 bytes = 0;
  PrismDim *dims[2];
  guint var;
  int t;
  const int imap[3] = { 1, -1, -1 };

  for (guint i = 0; i < graph->ops->len; i++)
    if (prism_graph_op (graph, i)->kind == PRISM_OP_KERNEL)
      body = prism_graph_op (graph, i)->body;
  g_assert_nonnull (body);
  g_assert_true (prism_graph_layout_estimate_smem (body, &bytes));
  g_assert_cmpuint (bytes, ==, 2 * (8 * 64 + 64 * 64 + 8 * 64 + 8 * 1 + 8 * 64));

  /* A tile split by a symbolic grid has no size yet. */
  var = prism_graph_add_var (symbolic, "gx");
  grid[0] = prism_dim_var (var);
  dims[0] = prism_dim_const (8);
  dims[1] = prism_dim_const (4096);
  sbody = prism_block_graph_new (1, grid, 128, dims[0]);
  t = prism_block_graph_add_input (sbody, 0, 2, dims, PRISM_DTYPE_F16, imap, -1, &error);
  g_assert_no_error (error);
  g_assert_cmpint (t, >=, 0);
  g_assert_false (prism_graph_layout_estimate_smem (sbody, &bytes));
  prism_dim_unref (grid[0]);
  prism_dim_unref (dims[0]);
  prism_dim_unref (dims[1]);
}

/*****************************************************************************/

typedef struct
{
  GPtrArray *titles;     /* text of every <title> element */
  GString *current;      /* inside a <title>, or NULL */
  guint n_elements;
} SvgScan;

static void
svg_start (GMarkupParseContext  *context,
           const char           *element,
           const char          **names,
           const char          **values,
           gpointer              user_data,
           GError              **error)
{
  SvgScan *scan = user_data;

  scan->n_elements++;
  if (g_str_equal (element, "title"))
    scan->current = g_string_new (NULL);
}

static void
svg_end (GMarkupParseContext  *context,
         const char           *element,
         gpointer              user_data,
         GError              **error)
{
  SvgScan *scan = user_data;

  if (g_str_equal (element, "title") && scan->current != NULL)
    g_ptr_array_add (scan->titles, g_string_free (g_steal_pointer (&scan->current), FALSE));
}

static void
svg_text (GMarkupParseContext  *context,
          const char           *text,
          gsize                 length,
          gpointer              user_data,
          GError              **error)
{
  SvgScan *scan = user_data;

  if (scan->current != NULL)
    g_string_append_len (scan->current, text, length);
}

static void
test_export (void)
{
  static const GMarkupParser parser = { svg_start, svg_end, svg_text, NULL, NULL };
  g_autoptr(PrismGraph) graph = build_workload ("rmsnorm_mlp", TRUE);
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("prism-export-XXXXXX", &error);
  g_autofree char *svg = g_build_filename (dir, "graph.svg", NULL);
  g_autofree char *png = g_build_filename (dir, "graph.PNG", NULL);
  g_autofree char *bad = g_build_filename (dir, "no-such-folder", "graph.svg", NULL);
  g_autoptr(PrismGraphLayout) layout = prism_graph_layout_compute (graph, PRISM_GRAPH_DIRECTION_TOP_TO_BOTTOM, NULL);
  g_autoptr(GMarkupParseContext) context = NULL;
  g_autoptr(GPtrArray) titles = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GdkTexture) texture = NULL;
  g_autofree char *contents = NULL;
  gsize length = 0;
  PrismGraphExportFormat format;
  SvgScan scan = { titles, NULL, 0 };

  g_assert_no_error (error);

  g_assert_true (prism_graph_export_format_from_path (svg, &format));
  g_assert_cmpint (format, ==, PRISM_GRAPH_EXPORT_SVG);
  g_assert_true (prism_graph_export_format_from_path (png, &format));
  g_assert_cmpint (format, ==, PRISM_GRAPH_EXPORT_PNG);
  g_assert_false (prism_graph_export_format_from_path ("graph.pdf", &format));
  g_assert_false (prism_graph_export_format_from_path ("graph.svg/x", &format));

  g_assert_true (prism_graph_export (graph, PRISM_GRAPH_DIRECTION_TOP_TO_BOTTOM, svg,
                                     PRISM_GRAPH_EXPORT_SVG, &error));
  g_assert_no_error (error);
  g_assert_true (prism_graph_export_layout (layout, png, PRISM_GRAPH_EXPORT_PNG, 2.0, &error));
  g_assert_no_error (error);

  /* The SVG is well-formed XML whose titles name every op. */
  g_assert_true (g_file_get_contents (svg, &contents, &length, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (length, >, 1000);
  context = g_markup_parse_context_new (&parser, 0, &scan, NULL);
  g_assert_true (g_markup_parse_context_parse (context, contents, length, &error));
  g_assert_no_error (error);
  g_assert_true (g_markup_parse_context_end_parse (context, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (titles->len, ==, layout->nodes->len);
  for (guint i = 0; i < graph->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (graph, i);
      const PrismGraph *body = op->body;

      for (guint j = 0; j < (body ? body->ops->len : 1); j++)
        {
          const PrismOp *named = body ? prism_graph_op (body, j) : op;
          const char *kind = prism_op_kind_to_string (named->kind);
          gboolean found = FALSE;

          for (guint k = 0; k < titles->len && !found; k++)
            found = g_str_has_prefix (g_ptr_array_index (titles, k), kind) &&
                    (named->name == NULL || strstr (g_ptr_array_index (titles, k), named->name));
          if (!found)
            g_error ("no <title> names op %u.%u (%s)", i, j, kind);
        }
    }

  /* The PNG is the layout at twice its size. */
  texture = gdk_texture_new_from_filename (png, &error);
  g_assert_no_error (error);
  g_assert_cmpint (gdk_texture_get_width (texture), ==, (int) ceil (layout->width * 2));
  g_assert_cmpint (gdk_texture_get_height (texture), ==, (int) ceil (layout->height * 2));

  /* A folder that does not exist is an error, not a crash. */
  g_assert_false (prism_graph_export_layout (layout, bad, PRISM_GRAPH_EXPORT_PNG, 1.0, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);

  g_unlink (svg);
  g_unlink (png);
  g_rmdir (dir);
}

/*****************************************************************************/

static GtkWindow *
window_with (GtkWidget *child,
             int        width,
             int        height)
{
  GtkWindow *window = GTK_WINDOW (gtk_window_new ());

  gtk_window_set_default_size (window, width, height);
  gtk_window_set_child (window, child);
  gtk_window_present (window);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  return window;
}

static void
window_destroy (GtkWindow *window)
{
  gtk_window_destroy (window);
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

static GdkTexture *
render_widget (GtkWidget *widget)
{
  g_autoptr(GdkPaintable) paintable = gtk_widget_paintable_new (widget);
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  g_autoptr(GskRenderNode) node = NULL;
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);

  gdk_paintable_snapshot (paintable, snapshot, width, height);
  node = gtk_snapshot_free_to_node (snapshot);
  g_assert_nonnull (node);
  return gsk_renderer_render_texture (gtk_native_get_renderer (gtk_widget_get_native (widget)), node,
                                      &GRAPHENE_RECT_INIT (0, 0, width, height));
}

static void
save_screenshot (GtkWidget  *widget,
                 const char *name)
{
  g_autoptr(GdkTexture) texture = render_widget (widget);
  g_autofree char *path = build_path (name);

  g_assert_true (gdk_texture_save_to_png (texture, path));
  g_test_message ("screenshot: %s (%dx%d)", path,
                  gdk_texture_get_width (texture), gdk_texture_get_height (texture));
}

/* Pixels of @texture within @rect whose colour is not @bg. */
static guint
count_drawn (GdkTexture *texture,
             int         x0,
             int         y0,
             int         w,
             int         h,
             guint32     bg)
{
  int width = gdk_texture_get_width (texture);
  int height = gdk_texture_get_height (texture);
  g_autofree guint32 *pixels = g_new (guint32, (gsize) width * height);
  guint n = 0;

  gdk_texture_download (texture, (guchar *) pixels, width * 4);
  for (int y = MAX (0, y0); y < MIN (height, y0 + h); y++)
    for (int x = MAX (0, x0); x < MIN (width, x0 + w); x++)
      if ((pixels[(gsize) y * width + x] & 0xffffff) != (bg & 0xffffff))
        n++;
  return n;
}

static void
wait_for_layout (PrismGraphView *view)
{
  WAIT_UNTIL (!prism_graph_view_get_loading (view) && prism_graph_view_get_layout (view) != NULL);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (view));
}

/* The real widget draws the laid-out graph: the screenshot has the graph's
 * colours where its nodes are, and is saved for people to look at. */
static void
test_view_draws (void)
{
  g_autoptr(PrismGraph) graph = build_workload ("rmsnorm_mlp", TRUE);
  PrismGraphView *view = PRISM_GRAPH_VIEW (prism_graph_view_new ());
  GtkWindow *window = window_with (GTK_WIDGET (view), 900, 760);
  g_autoptr(GdkTexture) texture = NULL;
  PrismGraphLayout *layout;
  double zoom, ox, oy;
  guint drawn_inside = 0, nodes_hit = 0;

  g_assert_null (prism_graph_view_get_layout (view));
  prism_graph_view_set_graph (view, graph);
  g_assert_true (prism_graph_view_get_loading (view));
  wait_for_layout (view);
  layout = prism_graph_view_get_layout (view);
  g_assert_true (layout->graph == graph);

  texture = render_widget (GTK_WIDGET (view));
  prism_graph_view_get_transform (view, &zoom, &ox, &oy);
  for (guint i = 0; i < layout->nodes->len; i++)
    {
      const PrismLayoutNode *node = prism_graph_layout_node (layout, i);
      guint n = count_drawn (texture, (int) (ox + node->x * zoom) + 2, (int) (oy + node->y * zoom) + 2,
                             (int) (node->width * zoom) - 4, (int) (node->height * zoom) - 4, 0xffffff);

      drawn_inside += n;
      if (n > 0)
        nodes_hit++;
    }
  g_assert_cmpuint (nodes_hit, ==, layout->nodes->len);
  g_assert_cmpuint (drawn_inside, >, 0);
  save_screenshot (GTK_WIDGET (view), "graph-view.png");

  /* What hovering finds: the node under a point (with its kernel's launch
   * parameters in the tooltip), and the kernel's box around it. */
  for (guint i = 0; i < layout->nodes->len; i++)
    {
      const PrismLayoutNode *node = prism_graph_layout_node (layout, i);
      double cx = node->x + node->width / 2, cy = node->y + node->height / 2;

      g_assert_cmpint (prism_graph_layout_node_at (layout, cx, cy), ==, i);
      if (prism_op_id_get_kernel (node->op_id) >= 0)
        {
          int c = prism_graph_layout_cluster_at (layout, cx, cy);

          g_assert_cmpint (c, >=, 0);
          g_assert_cmpuint (prism_graph_layout_cluster (layout, c)->op_id, ==,
                            (guint) prism_op_id_get_kernel (node->op_id));
          g_assert_nonnull (strstr (node->tooltip, "64"));      /* grid and loop */
          g_assert_nonnull (strstr (node->tooltip, "128"));     /* threads */
          g_assert_nonnull (strstr (node->tooltip, "KiB"));     /* shared memory */
        }
      if (node->role == PRISM_LAYOUT_ROLE_TILE_INPUT)
        g_assert_nonnull (strstr (node->tooltip, "imap"));
      if (node->role == PRISM_LAYOUT_ROLE_TILE_OUTPUT)
        g_assert_nonnull (strstr (node->tooltip, "omap"));
    }
  g_assert_cmpint (prism_graph_layout_node_at (layout, -10, -10), ==, -1);

  window_destroy (window);
}

/* Set A, then B before A is laid out: B is what ends up shown, and A's
 * result, which may arrive later, is dropped. */
static void
test_view_stale (void)
{
  g_autoptr(PrismGraph) a = build_workload ("attention", TRUE);
  g_autoptr(PrismGraph) b = build_workload ("rms_norm", FALSE);
  PrismGraphView *view = PRISM_GRAPH_VIEW (prism_graph_view_new ());
  GtkWindow *window = window_with (GTK_WIDGET (view), 600, 500);

  for (guint round = 0; round < 5; round++)
    {
      prism_graph_view_set_graph (view, a);
      prism_graph_view_set_graph (view, b);
      g_assert_true (prism_graph_view_get_graph (view) == b);
      wait_for_layout (view);
      /* Give A's result every chance to arrive late. */
      for (guint i = 0; i < 50; i++)
        {
          g_main_context_iteration (NULL, FALSE);
          g_usleep (1000);
        }
      g_assert_true (prism_graph_view_get_layout (view)->graph == b);
      g_assert_cmpuint (prism_graph_view_get_layout (view)->clusters->len, ==, 0);
    }

  /* A direction change lays out again; clearing the graph clears the layout. */
  prism_graph_view_set_direction (view, PRISM_GRAPH_DIRECTION_LEFT_TO_RIGHT);
  g_assert_true (prism_graph_view_get_loading (view));
  wait_for_layout (view);
  g_assert_cmpint (prism_graph_view_get_layout (view)->direction, ==, PRISM_GRAPH_DIRECTION_LEFT_TO_RIGHT);
  prism_graph_view_set_graph (view, NULL);
  g_assert_null (prism_graph_view_get_layout (view));
  g_assert_false (prism_graph_view_get_loading (view));

  window_destroy (window);
}

static void
notify_count_cb (GObject    *object,
                 GParamSpec *pspec,
                 guint      *count)
{
  (*count)++;
}

/* Zoom, pan and fit change the transform; fit shows the whole graph. */
static void
test_view_zoom (void)
{
  g_autoptr(PrismGraph) graph = build_workload ("attention", TRUE);
  PrismGraphView *view = PRISM_GRAPH_VIEW (prism_graph_view_new ());
  GtkWindow *window = window_with (GTK_WIDGET (view), 700, 500);
  PrismGraphLayout *layout;
  double z0, x0, y0, z, x, y;
  int width, height;
  guint zoom_notifies = 0;

  prism_graph_view_set_graph (view, graph);
  wait_for_layout (view);
  layout = prism_graph_view_get_layout (view);
  width = gtk_widget_get_width (GTK_WIDGET (view));
  height = gtk_widget_get_height (GTK_WIDGET (view));
  g_signal_connect (view, "notify::zoom", G_CALLBACK (notify_count_cb), &zoom_notifies);

  /* Fitted on first layout: all of it in view, centred. */
  prism_graph_view_get_transform (view, &z0, &x0, &y0);
  g_assert_cmpfloat (layout->width * z0, <=, width + 0.5);
  g_assert_cmpfloat (layout->height * z0, <=, height + 0.5);
  g_assert_cmpfloat (x0, >=, -0.5);
  g_assert_cmpfloat (y0, >=, -0.5);
  g_assert_cmpfloat (x0 + layout->width * z0, <=, width + 0.5);
  g_assert_cmpfloat (y0 + layout->height * z0, <=, height + 0.5);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (view), "graph.zoom-in", NULL));
  prism_graph_view_get_transform (view, &z, &x, &y);
  g_assert_cmpfloat_with_epsilon (z, z0 * 1.25, 1e-9);
  /* The centre of the view stays on the same graph point. */
  g_assert_cmpfloat_with_epsilon ((width / 2.0 - x) / z, (width / 2.0 - x0) / z0, 1e-6);
  g_assert_cmpfloat_with_epsilon ((height / 2.0 - y) / z, (height / 2.0 - y0) / z0, 1e-6);
  g_assert_cmpuint (zoom_notifies, ==, 1);

  prism_graph_view_zoom_out (view);
  prism_graph_view_zoom_out (view);
  prism_graph_view_get_transform (view, &z, NULL, NULL);
  g_assert_cmpfloat_with_epsilon (z, z0 / 1.25, 1e-9);
  g_assert_cmpuint (zoom_notifies, ==, 3);

  prism_graph_view_pan (view, 30, -20);
  prism_graph_view_get_transform (view, NULL, &x0, &y0);
  prism_graph_view_pan (view, -10, 5);
  prism_graph_view_get_transform (view, NULL, &x, &y);
  g_assert_cmpfloat_with_epsilon (x, x0 - 10, 1e-9);
  g_assert_cmpfloat_with_epsilon (y, y0 + 5, 1e-9);

  /* Zoom is bounded. */
  for (guint i = 0; i < 40; i++)
    prism_graph_view_zoom_in (view);
  prism_graph_view_get_transform (view, &z, NULL, NULL);
  g_assert_cmpfloat (z, <=, 8.0);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (view), "graph.zoom-fit", NULL));
  prism_graph_view_get_transform (view, &z, &x, &y);
  g_assert_cmpfloat (layout->width * z, <=, width + 0.5);
  g_assert_cmpfloat (layout->height * z, <=, height + 0.5);
  g_assert_cmpfloat (x, >=, -0.5);
  g_assert_cmpfloat (y, >=, -0.5);
  g_assert_cmpfloat (x + layout->width * z, <=, width + 0.5);
  g_assert_cmpfloat (y + layout->height * z, <=, height + 0.5);
  /* Fitting uses most of the view: at least half of one of its sides
   * (unless capped for tiny graphs). */
  g_assert_true (layout->width * z > width / 2.0 || layout->height * z > height / 2.0 ||
                 z >= 1.25 - 1e-9);

  /* Centring on an op puts it in the middle. */
  g_assert_true (prism_graph_view_center_on (view, prism_op_id_make (3, 3)));
  {
    int index = prism_graph_layout_find_node (layout, prism_op_id_make (3, 3));
    const PrismLayoutNode *node = prism_graph_layout_node (layout, index);

    prism_graph_view_get_transform (view, &z, &x, &y);
    g_assert_cmpfloat_with_epsilon (x + (node->x + node->width / 2) * z, width / 2.0, 1e-6);
    g_assert_cmpfloat_with_epsilon (y + (node->y + node->height / 2) * z, height / 2.0, 1e-6);
  }
  g_assert_false (prism_graph_view_center_on (view, prism_op_id_make (3, 999)));

  window_destroy (window);
}

/* Where a node is on screen: its centre in widget coordinates. */
static void
node_point (PrismGraphView        *view,
            const PrismLayoutNode *node,
            double                *x,
            double                *y)
{
  double zoom, ox, oy;

  prism_graph_view_get_transform (view, &zoom, &ox, &oy);
  *x = ox + (node->x + node->width / 2) * zoom;
  *y = oy + (node->y + node->height / 2) * zoom;
}

static const PrismLayoutNode *
node_of (PrismGraphView *view,
         guint           op_id)
{
  PrismGraphLayout *layout = prism_graph_view_get_layout (view);
  int index = prism_graph_layout_find_node (layout, op_id);

  g_assert_cmpint (index, >=, 0);
  return prism_graph_layout_node (layout, index);
}

static gboolean
panel_shown (PrismGraphView *view)
{
  gtk_test_widget_wait_for_draw (GTK_WIDGET (view));
  return gtk_widget_get_mapped (GTK_WIDGET (prism_graph_view_get_properties (view)));
}

/* Pixels of @texture within @rect of exactly @color. */
static guint
count_color (GdkTexture *texture,
             int         x0,
             int         y0,
             int         w,
             int         h,
             guint32     color)
{
  int width = gdk_texture_get_width (texture);
  int height = gdk_texture_get_height (texture);
  g_autofree guint32 *pixels = g_new (guint32, (gsize) width * height);
  guint n = 0;

  gdk_texture_download (texture, (guchar *) pixels, width * 4);
  for (int y = MAX (0, y0); y < MIN (height, y0 + h); y++)
    for (int x = MAX (0, x0); x < MIN (width, x0 + w); x++)
      if ((pixels[(gsize) y * width + x] & 0xffffff) == (color & 0xffffff))
        n++;
  return n;
}

/* A click on a node selects it: drawn in the selection colour, its
 * properties in the panel; a click on a kernel's box selects the kernel;
 * a click on empty space, or Escape, clears it. */
static void
test_view_select (void)
{
  g_autoptr(PrismGraph) graph = build_workload ("rmsnorm_mlp", TRUE);
  PrismGraphView *view = PRISM_GRAPH_VIEW (prism_graph_view_new ());
  GtkWindow *window = window_with (GTK_WIDGET (view), 1000, 760);
  PrismNodeProperties *properties;
  PrismGraphLayout *layout;
  const PrismGraph *body;
  const PrismLayoutNode *node;
  const PrismLayoutCluster *cluster;
  g_autoptr(GdkTexture) before = NULL;
  g_autoptr(GdkTexture) after = NULL;
  g_autofree char *text = NULL;
  g_autofree char *ops = NULL;
  guint kernel = 0, tile = G_MAXUINT;
  double x, y, zoom, ox, oy;

  prism_graph_view_set_graph (view, graph);
  wait_for_layout (view);
  layout = prism_graph_view_get_layout (view);
  properties = prism_graph_view_get_properties (view);
  body = first_body (graph, &kernel);
  for (guint j = 0; j < body->ops->len && tile == G_MAXUINT; j++)
    if (prism_graph_op (body, j)->kind == PRISM_OP_INPUT)
      tile = j;
  g_assert_false (panel_shown (view));
  g_assert_cmpuint (prism_graph_view_get_selected (view), ==, PRISM_OP_ID_NONE);

  /* A tile the kernel reads: kind, maps, shapes, dtypes and the launch. */
  node = node_of (view, prism_op_id_make (kernel, tile));
  node_point (view, node, &x, &y);
  before = render_widget (GTK_WIDGET (view));
  g_assert_true (prism_graph_view_select_at (view, x, y));
  g_assert_cmpuint (prism_graph_view_get_selected (view), ==, prism_op_id_make (kernel, tile));
  g_assert_true (panel_shown (view));
  text = prism_node_properties_get_text (properties);
  g_test_message ("%s", text);
  g_assert_cmpstr (prism_node_properties_get_title (properties), ==, "input");
  g_assert_nonnull (strstr (text, "Kind: input"));
  g_assert_nonnull (strstr (text, "imap (x→"));
  g_assert_nonnull (strstr (text, "fmap "));
  g_assert_nonnull (strstr (text, "f16"));
  g_assert_nonnull (strstr (text, "[8, 4096]"));      /* the data it tiles */
  g_assert_nonnull (strstr (text, "“X”"));            /* … which is the program's X */
  g_assert_nonnull (strstr (text, "Grid: 64"));
  g_assert_nonnull (strstr (text, "Loop range: 64"));
  g_assert_nonnull (strstr (text, "Threads per block: 128"));
  /* Drawn selected: the selection colour around the node, where it was not. */
  after = render_widget (GTK_WIDGET (view));
  prism_graph_view_get_transform (view, &zoom, &ox, &oy);
  g_assert_cmpuint (count_color (before, (int) (ox + node->x * zoom) - 6, (int) (oy + node->y * zoom) - 6,
                                 (int) (node->width * zoom) + 12, (int) (node->height * zoom) + 12, 0x1c71d8),
                    ==, 0);
  g_assert_cmpuint (count_color (after, (int) (ox + node->x * zoom) - 6, (int) (oy + node->y * zoom) - 6,
                                 (int) (node->width * zoom) + 12, (int) (node->height * zoom) + 12, 0x1c71d8),
                    >, 20);
  /* Whole in view beside the panel. */
  g_assert_cmpfloat (ox + (node->x + node->width) * zoom, <=,
                     gtk_widget_get_width (GTK_WIDGET (view)) - gtk_widget_get_width (GTK_WIDGET (properties)));
  g_clear_pointer (&text, g_free);

  /* The kernel, by a click on its header. */
  cluster = prism_graph_layout_cluster (layout, 0);
  g_assert_true (prism_graph_view_select_at (view, ox + (cluster->x + 4) * zoom, oy + (cluster->y + 4) * zoom));
  g_assert_cmpuint (prism_graph_view_get_selected (view), ==, prism_op_id_make (-1, kernel));
  text = prism_node_properties_get_text (properties);
  ops = g_strdup_printf ("Block graph: %u ops", body->ops->len);
  g_assert_cmpstr (prism_node_properties_get_title (properties), ==, "Custom kernel 1");
  g_assert_nonnull (strstr (text, ops));
  g_assert_nonnull (strstr (text, "Shared memory: ≈"));
  g_assert_nonnull (strstr (text, "“W_up” [4096, 4096] f16"));
  g_clear_pointer (&text, g_free);

  /* A kernel-level op: the program input X. */
  node = node_of (view, prism_op_id_make (-1, find_input (graph, "X")));
  node_point (view, node, &x, &y);
  g_assert_true (prism_graph_view_select_at (view, x, y));
  text = prism_node_properties_get_text (properties);
  g_assert_cmpstr (prism_node_properties_get_title (properties), ==, "X");
  g_assert_nonnull (strstr (text, "Program input"));
  g_assert_nonnull (strstr (text, "[8, 4096] f16"));

  /* Empty space clears the selection; so does Escape. */
  prism_graph_view_get_transform (view, &zoom, &ox, &oy);
  g_assert_false (prism_graph_view_select_at (view, ox - 5, oy - 5));
  g_assert_cmpuint (prism_graph_view_get_selected (view), ==, PRISM_OP_ID_NONE);
  g_assert_false (panel_shown (view));
  g_assert_true (prism_graph_view_select (view, prism_op_id_make (kernel, tile)));
  g_assert_true (panel_shown (view));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (view), "graph.clear-selection", NULL));
  g_assert_cmpuint (prism_graph_view_get_selected (view), ==, PRISM_OP_ID_NONE);
  g_assert_false (panel_shown (view));
  g_assert_false (prism_graph_view_select (view, prism_op_id_make (kernel, 999)));

  window_destroy (window);
}

/* Ctrl+F opens the search; typing a tensor's name selects it and zooms to
 * it; Enter goes to the next match; no match says so. */
static void
test_view_find (void)
{
  g_autoptr(PrismGraph) graph = build_workload ("rmsnorm_mlp", TRUE);
  PrismGraphView *view = PRISM_GRAPH_VIEW (prism_graph_view_new ());
  GtkWindow *window = window_with (GTK_WIDGET (view), 1000, 760);
  g_autoptr(GArray) expected = prism_graph_find_ops (graph, "W_up");
  GtkSearchEntry *entry;
  GtkWidget *bar;
  g_autofree char *status = NULL;
  double fit_zoom, zoom, x, y;
  guint first;

  prism_graph_view_set_graph (view, graph);
  wait_for_layout (view);
  fit_zoom = prism_graph_view_get_zoom (view);
  entry = prism_graph_view_get_search_entry (view);
  bar = gtk_widget_get_ancestor (GTK_WIDGET (entry), GTK_TYPE_SEARCH_BAR);
  g_assert_false (gtk_search_bar_get_search_mode (GTK_SEARCH_BAR (bar)));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (view), "graph.find", NULL));
  g_assert_true (gtk_search_bar_get_search_mode (GTK_SEARCH_BAR (bar)));

  gtk_editable_set_text (GTK_EDITABLE (entry), "W_up");
  WAIT_UNTIL (prism_graph_view_get_selected (view) != PRISM_OP_ID_NONE);
  first = prism_graph_view_get_selected (view);
  g_assert_cmpuint (first, ==, prism_op_id_make (-1, find_input (graph, "W_up")));
  status = g_strdup_printf ("1 of %u", expected->len);
  g_assert_cmpstr (prism_graph_view_get_search_status (view), ==, status);
  g_assert_cmpstr (prism_node_properties_get_title (prism_graph_view_get_properties (view)), ==, "W_up");
  /* Zoomed to, and in the middle of what the panel leaves. */
  gtk_test_widget_wait_for_draw (GTK_WIDGET (view));
  zoom = prism_graph_view_get_zoom (view);
  g_assert_cmpfloat (zoom, >, fit_zoom);
  node_point (view, node_of (view, first), &x, &y);
  g_assert_cmpfloat (x, <, gtk_widget_get_width (GTK_WIDGET (view)) -
                           gtk_widget_get_width (GTK_WIDGET (prism_graph_view_get_properties (view))));
  g_assert_cmpfloat (y, >=, 0);
  g_assert_cmpfloat (y, <=, gtk_widget_get_height (GTK_WIDGET (view)));

  /* Enter: the next match, a tile of W_up in the kernel; then round again. */
  g_signal_emit_by_name (entry, "activate");
  g_assert_cmpuint (prism_graph_view_get_selected (view), ==, g_array_index (expected, guint, 1));
  g_assert_cmpint (prism_op_id_get_kernel (prism_graph_view_get_selected (view)), >=, 0);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (view));
  save_screenshot (GTK_WIDGET (view), "graph-find.png");
  for (guint i = 1; i < expected->len; i++)
    prism_graph_view_find_next (view, TRUE);
  g_assert_cmpuint (prism_graph_view_get_selected (view), ==, first);
  prism_graph_view_find_next (view, FALSE);
  g_assert_cmpuint (prism_graph_view_get_selected (view), ==, g_array_index (expected, guint, expected->len - 1));

  /* A collapsed kernel is found as itself. */
  prism_graph_view_collapse_all (view);
  wait_for_layout (view);
  gtk_editable_set_text (GTK_EDITABLE (entry), "matmul");
  WAIT_UNTIL (g_strcmp0 (prism_graph_view_get_search_status (view), "1 of 1") == 0);
  g_assert_cmpint (prism_graph_layout_node (prism_graph_view_get_layout (view),
                                            prism_graph_layout_find_node (prism_graph_view_get_layout (view),
                                                                          prism_graph_view_get_selected (view)))->role,
                   ==, PRISM_LAYOUT_ROLE_KERNEL);

  gtk_editable_set_text (GTK_EDITABLE (entry), "no such op");
  WAIT_UNTIL (g_strcmp0 (prism_graph_view_get_search_status (view), "No match") == 0);
  g_assert_true (gtk_widget_has_css_class (GTK_WIDGET (entry), "error"));

  g_signal_emit_by_name (entry, "stop-search");
  g_assert_false (gtk_search_bar_get_search_mode (GTK_SEARCH_BAR (bar)));

  window_destroy (window);
}

/* Collapsing kernels draws fewer nodes; expanding brings them back; a
 * selected block op becomes its kernel when that is collapsed. */
static void
test_view_collapse (void)
{
  g_autoptr(PrismGraph) graph = build_workload ("attention", TRUE);
  PrismGraphView *view = PRISM_GRAPH_VIEW (prism_graph_view_new ());
  GtkWindow *window = window_with (GTK_WIDGET (view), 900, 700);
  guint n_nodes, n_block_ops = 0, n_kernels = 0, first_kernel = G_MAXUINT;

  for (guint i = 0; i < graph->ops->len; i++)
    if (prism_graph_op (graph, i)->kind == PRISM_OP_KERNEL)
      {
        n_kernels++;
        n_block_ops += prism_graph_op (graph, i)->body->ops->len;
        if (first_kernel == G_MAXUINT)
          first_kernel = i;
      }
  g_assert_cmpuint (n_kernels, >, 0);

  prism_graph_view_set_graph (view, graph);
  wait_for_layout (view);
  n_nodes = prism_graph_view_get_layout (view)->nodes->len;
  g_assert_true (prism_graph_view_select (view, prism_op_id_make (first_kernel, 1)));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (view), "graph.collapse-all", NULL));
  g_assert_true (prism_graph_view_get_loading (view));
  wait_for_layout (view);
  g_assert_cmpuint (prism_graph_view_get_layout (view)->nodes->len, ==, n_nodes - n_block_ops + n_kernels);
  g_assert_cmpuint (prism_graph_view_get_layout (view)->clusters->len, ==, 0);
  g_assert_true (prism_graph_view_get_kernel_collapsed (view, first_kernel));
  g_assert_cmpuint (prism_graph_view_get_selected (view), ==, prism_op_id_make (-1, first_kernel));
  g_assert_true (panel_shown (view));
  save_screenshot (GTK_WIDGET (view), "graph-collapsed.png");

  /* The panel's button unfolds the selected kernel: a double click does too. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (view), "graph.toggle-kernel", NULL));
  wait_for_layout (view);
  g_assert_false (prism_graph_view_get_kernel_collapsed (view, first_kernel));
  g_assert_cmpuint (prism_graph_view_get_layout (view)->nodes->len, ==,
                    n_nodes - n_block_ops + n_kernels + prism_graph_op (graph, first_kernel)->body->ops->len - 1);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (view), "graph.expand-all", NULL));
  wait_for_layout (view);
  g_assert_cmpuint (prism_graph_view_get_layout (view)->nodes->len, ==, n_nodes);
  g_assert_cmpuint (prism_graph_view_get_layout (view)->clusters->len, ==, n_kernels);

  /* Another graph starts expanded, with nothing selected. */
  prism_graph_view_collapse_all (view);
  wait_for_layout (view);
  {
    g_autoptr(PrismGraph) other = build_workload ("rmsnorm_mlp", TRUE);

    prism_graph_view_set_graph (view, other);
    wait_for_layout (view);
    g_assert_cmpuint (prism_graph_view_get_layout (view)->clusters->len, ==, 1);
    g_assert_cmpuint (prism_graph_view_get_selected (view), ==, PRISM_OP_ID_NONE);
  }

  window_destroy (window);
}

/* The view's controller of @type (the first one). */
static GtkEventController *
find_controller (GtkWidget *widget,
                 GType      type)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (widget);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GtkEventController) controller = g_list_model_get_item (controllers, i);

      if (G_TYPE_CHECK_INSTANCE_TYPE (controller, type))
        return controller;  /* the widget keeps it */
    }
  g_assert_not_reached ();
  return NULL;
}

/* What the click gesture and the Ctrl+F shortcut do, as the events would
 * reach them: a click selects, a click on the panel is the panel's, a
 * double click on a kernel's header folds it and on the folded box opens it. */
static void
test_view_gestures (void)
{
  g_autoptr(PrismGraph) graph = build_workload ("rmsnorm_mlp", TRUE);
  PrismGraphView *view = PRISM_GRAPH_VIEW (prism_graph_view_new ());
  GtkWindow *window = window_with (GTK_WIDGET (view), 1000, 760);
  GtkEventController *click = find_controller (GTK_WIDGET (view), GTK_TYPE_GESTURE_CLICK);
  GtkShortcutController *shortcuts = GTK_SHORTCUT_CONTROLLER (find_controller (GTK_WIDGET (view),
                                                                               GTK_TYPE_SHORTCUT_CONTROLLER));
  g_autoptr(GtkShortcut) find = g_list_model_get_item (G_LIST_MODEL (shortcuts), 0);
  const PrismLayoutCluster *cluster;
  const PrismLayoutNode *node;
  GtkWidget *bar;
  guint kernel = 0;
  double x, y, zoom, ox, oy;
  int index;

  first_body (graph, &kernel);
  prism_graph_view_set_graph (view, graph);
  wait_for_layout (view);

  node = node_of (view, prism_op_id_make (-1, find_input (graph, "W_gate")));
  node_point (view, node, &x, &y);
  g_signal_emit_by_name (click, "released", 1, x, y);
  g_assert_cmpuint (prism_graph_view_get_selected (view), ==, node->op_id);
  g_assert_true (panel_shown (view));

  /* On the panel: not a click on the graph under it. */
  {
    graphene_point_t p;

    g_assert_true (gtk_widget_compute_point (GTK_WIDGET (prism_graph_view_get_properties (view)),
                                             GTK_WIDGET (view), &GRAPHENE_POINT_INIT (4, 4), &p));
    g_signal_emit_by_name (click, "released", 1, (double) p.x, (double) p.y);
    g_assert_cmpuint (prism_graph_view_get_selected (view), ==, node->op_id);
  }

  /* Double click on the kernel's header folds it. */
  prism_graph_view_get_transform (view, &zoom, &ox, &oy);
  cluster = prism_graph_layout_cluster (prism_graph_view_get_layout (view), 0);
  g_signal_emit_by_name (click, "released", 2, ox + (cluster->x + 6) * zoom, oy + (cluster->y + 6) * zoom);
  g_assert_true (prism_graph_view_get_kernel_collapsed (view, kernel));
  wait_for_layout (view);
  index = prism_graph_layout_find_node (prism_graph_view_get_layout (view), prism_op_id_make (-1, kernel));
  g_assert_cmpint (index, >=, 0);
  node_point (view, prism_graph_layout_node (prism_graph_view_get_layout (view), index), &x, &y);
  g_signal_emit_by_name (click, "released", 2, x, y);
  g_assert_false (prism_graph_view_get_kernel_collapsed (view, kernel));
  wait_for_layout (view);
  g_assert_cmpuint (prism_graph_view_get_layout (view)->clusters->len, ==, 1);

  /* Ctrl+F opens the search bar while the view is on screen. */
  bar = gtk_widget_get_ancestor (GTK_WIDGET (prism_graph_view_get_search_entry (view)), GTK_TYPE_SEARCH_BAR);
  {
    g_autofree char *trigger = gtk_shortcut_trigger_to_string (gtk_shortcut_get_trigger (find));

    g_assert_cmpstr (trigger, ==, "<Control>f");
  }
  g_assert_true (gtk_shortcut_action_activate (gtk_shortcut_get_action (find), 0, GTK_WIDGET (view), NULL));
  g_assert_true (gtk_search_bar_get_search_mode (GTK_SEARCH_BAR (bar)));
  gtk_widget_set_visible (GTK_WIDGET (view), FALSE);
  g_assert_false (gtk_shortcut_action_activate (gtk_shortcut_get_action (find), 0, GTK_WIDGET (view), NULL));

  window_destroy (window);
}

/* The legend shows in a big view unless hidden, and never in a small one,
 * where it would cover the graph. */
static void
test_view_legend (void)
{
  g_autoptr(PrismGraph) graph = build_workload ("rmsnorm_mlp", TRUE);
  PrismGraphView *view = PRISM_GRAPH_VIEW (prism_graph_view_new ());
  GtkWindow *window = window_with (GTK_WIDGET (view), 1000, 760);
  g_autoptr(GdkTexture) shown = NULL;
  g_autoptr(GdkTexture) hidden = NULL;
  int height;
  gboolean show_legend;

  prism_graph_view_set_graph (view, graph);
  wait_for_layout (view);
  height = gtk_widget_get_height (GTK_WIDGET (view));
  g_assert_true (prism_graph_view_get_legend_visible (view));
  shown = render_widget (GTK_WIDGET (view));

  /* The toolbar's toggle is the show-legend property. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (view), "graph.show-legend", NULL));
  g_object_get (view, "show-legend", &show_legend, NULL);
  g_assert_false (show_legend);
  g_assert_false (prism_graph_view_get_legend_visible (view));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (view));
  hidden = render_widget (GTK_WIDGET (view));
  /* The legend's corner: its swatches and words, then nothing (or the graph,
   * refitted into the room it left). */
  g_assert_cmpuint (count_drawn (shown, 8, height - 150, 200, 142, 0xffffff), >,
                    count_drawn (hidden, 8, height - 150, 200, 142, 0xffffff) + 500);
  prism_graph_view_set_show_legend (view, TRUE);
  g_assert_true (prism_graph_view_get_legend_visible (view));

  /* Small: no legend, even when asked for. */
  gtk_window_set_default_size (window, 420, 320);
  WAIT_UNTIL (gtk_widget_get_width (GTK_WIDGET (view)) <= 420);
  g_assert_false (prism_graph_view_get_legend_visible (view));

  window_destroy (window);
}

/*****************************************************************************/

static const PrismGraph *
first_body (const PrismGraph *graph,
            guint            *kernel_index)
{
  for (guint i = 0; i < graph->ops->len; i++)
    if (prism_graph_op (graph, i)->kind == PRISM_OP_KERNEL)
      {
        *kernel_index = i;
        return prism_graph_op (graph, i)->body;
      }
  g_assert_not_reached ();
  return NULL;
}

/* A copy with one map entry changed differs in exactly that entry, in both
 * the diff and the highlights. */
static void
test_diff_one_map_entry (void)
{
  g_autoptr(PrismGraph) a = build_workload ("rmsnorm_mlp", TRUE);
  g_autoptr(PrismGraph) b = prism_graph_copy (a);
  g_autoptr(PrismGraphDiff) same = prism_graph_diff_new (a, b);
  g_autoptr(PrismGraphDiff) diff = NULL;
  g_autoptr(GArray) ops_a = NULL;
  g_autoptr(GArray) ops_b = NULL;
  const PrismGraphDifference *difference;
  const PrismGraph *body;
  guint kernel = 0, input = G_MAXUINT;

  g_assert_cmpuint (prism_graph_diff_get_n (same), ==, 0);

  body = first_body (b, &kernel);
  for (guint j = 0; j < body->ops->len; j++)
    if (prism_graph_op (body, j)->kind == PRISM_OP_INPUT && prism_graph_op (body, j)->attrs.imap[0] == 1)
      {
        input = j;
        break;
      }
  g_assert_cmpuint (input, !=, G_MAXUINT);
  prism_graph_op (body, input)->attrs.imap[0] = 0;

  diff = prism_graph_diff_new (a, b);
  g_assert_cmpuint (prism_graph_diff_get_n (diff), ==, 1);
  difference = prism_graph_diff_get (diff, 0);
  g_assert_cmpint (difference->kind, ==, PRISM_DIFFERENCE_CHANGED);
  g_assert_cmpstr (difference->field, ==, "imap");
  g_assert_cmpuint (difference->op_a, ==, prism_op_id_make (kernel, input));
  g_assert_cmpuint (difference->op_b, ==, prism_op_id_make (kernel, input));
  g_assert_nonnull (strstr (difference->description, "x→1"));
  g_assert_nonnull (strstr (difference->description, "x→0"));

  ops_a = prism_graph_diff_get_ops (diff, FALSE);
  ops_b = prism_graph_diff_get_ops (diff, TRUE);
  g_assert_cmpuint (ops_a->len, ==, 1);
  g_assert_cmpuint (ops_b->len, ==, 1);
  g_assert_cmpuint (g_array_index (ops_a, guint, 0), ==, prism_op_id_make (kernel, input));
}

/* matmul(X [8, 64], W [64, 32]) → Y, its inputs declared in @order
 * ("XW" or "WX") under @names (the first for X). */
static PrismGraph *
matmul_program (const char        *order,
                const char * const names[2],
                const char        *output)
{
  g_autoptr(GError) error = NULL;
  PrismGraph *g = prism_graph_new ();
  const gint64 x_dims[] = { 8, 64 };
  const gint64 w_dims[] = { 64, 32 };
  PrismOpAttrs attrs;
  int x, w, y;

  if (order[0] == 'X')
    {
      x = prism_graph_add_input (g, names[0], 2, x_dims, PRISM_DTYPE_F16, &error);
      w = prism_graph_add_input (g, names[1], 2, w_dims, PRISM_DTYPE_F16, &error);
    }
  else
    {
      w = prism_graph_add_input (g, names[1], 2, w_dims, PRISM_DTYPE_F16, &error);
      x = prism_graph_add_input (g, names[0], 2, x_dims, PRISM_DTYPE_F16, &error);
    }
  g_assert_no_error (error);
  prism_op_attrs_init (&attrs);
  y = prism_graph_add (g, PRISM_OP_MATMUL, (guint[]) { (guint) x, (guint) w }, 2, &attrs, &error);
  g_assert_no_error (error);
  prism_graph_add_output (g, (guint) y, output, &error);
  g_assert_no_error (error);
  return g;
}

static char *
describe_diff (const PrismGraphDiff *diff)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < prism_graph_diff_get_n (diff); i++)
    g_string_append_printf (s, "\n  %s [%s]", prism_graph_diff_get (diff, i)->description,
                            prism_graph_diff_get (diff, i)->field);
  return g_string_free (s, FALSE);
}

/* A Mirage graph names its inputs in0, in1 and its output out0 where ours
 * say X, W, Y, and may declare them in another order: the inputs pair by
 * shape and dtype, so the same program has no difference.  Before, the
 * inputs paired by order and name: every op was marked (X and in0 have
 * different shapes, the matmul then read different operands). */
static void
test_diff_renamed_inputs (void)
{
  g_autoptr(PrismGraph) ours = matmul_program ("XW", (const char *[]) { "X", "W" }, "Y");
  g_autoptr(PrismGraph) mirage = matmul_program ("WX", (const char *[]) { "in1", "in0" }, "out0");
  g_autoptr(PrismGraph) renamed = matmul_program ("XW", (const char *[]) { "in0", "in1" }, "out0");
  g_autoptr(PrismGraphDiff) reordered = prism_graph_diff_new (ours, mirage);
  g_autoptr(PrismGraphDiff) same_order = prism_graph_diff_new (ours, renamed);
  g_autoptr(PrismGraphDiff) swapped = NULL;
  g_autoptr(PrismGraph) other = NULL;
  g_autofree char *text = describe_diff (reordered);
  g_autofree char *text2 = describe_diff (same_order);

  g_test_message ("reordered:%s", text);
  g_test_message ("renamed:%s", text2);
  g_assert_cmpuint (prism_graph_diff_get_n (reordered), ==, 0);
  g_assert_cmpuint (prism_graph_diff_get_n (same_order), ==, 0);

  /* A real difference is still one: the weight of another shape. */
  {
    g_autoptr(GError) error = NULL;
    const gint64 x_dims[] = { 8, 64 };
    const gint64 w_dims[] = { 64, 16 };
    PrismOpAttrs attrs;
    int x, w, y;

    other = prism_graph_new ();
    x = prism_graph_add_input (other, "in0", 2, x_dims, PRISM_DTYPE_F16, &error);
    w = prism_graph_add_input (other, "in1", 2, w_dims, PRISM_DTYPE_F16, &error);
    prism_op_attrs_init (&attrs);
    y = prism_graph_add (other, PRISM_OP_MATMUL, (guint[]) { (guint) x, (guint) w }, 2, &attrs, &error);
    prism_graph_add_output (other, (guint) y, "out0", &error);
    g_assert_no_error (error);
  }
  swapped = prism_graph_diff_new (ours, other);
  {
    g_autoptr(GHashTable) fields = g_hash_table_new (g_str_hash, g_str_equal);

    for (guint i = 0; i < prism_graph_diff_get_n (swapped); i++)
      g_hash_table_add (fields, (gpointer) prism_graph_diff_get (swapped, i)->field);
    g_assert_true (g_hash_table_contains (fields, "shape"));
    g_assert_false (g_hash_table_contains (fields, "name"));
  }

  /* The Mirage file's graph 2 is the unfused rms_norm at n=8, d=128. */
  {
    g_autoptr(GError) error = NULL;
    g_autofree char *path = g_build_filename (g_getenv ("PRISM_SOURCE_DIR"), "tests", "ir", "mirage",
                                              "rmsnorm.json", NULL);
    g_autoptr(GPtrArray) graphs = prism_mirage_load (path, &error);
    g_autoptr(PrismGraph) program = prism_workload_build ("rms_norm", "n=8,d=128", &error);
    g_autoptr(PrismGraphDiff) diff = NULL;
    g_autofree char *mirage_text = NULL;
    PrismMirageGraph *m;

    g_assert_no_error (error);
    g_assert_cmpuint (graphs->len, >, 2);
    m = g_ptr_array_index (graphs, 2);
    g_assert_no_error (m->error);
    diff = prism_graph_diff_new (program, m->graph);
    mirage_text = describe_diff (diff);
    g_test_message ("Mirage graph 2:%s", mirage_text);
    g_assert_cmpuint (prism_graph_diff_get_n (diff), ==, 0);

    /* Graph 0 is fused as our reference is, tiled otherwise: what differs
     * is in its kernel (grid, loop, tile shapes), never a program input
     * or output (before: each of the three was marked for its name). */
    {
      g_autoptr(PrismGraph) reference = prism_workload_build_reference ("rms_norm", "n=8,d=128", &error);
      g_autoptr(PrismGraphDiff) fused = NULL;
      guint kernel = 0;

      g_assert_no_error (error);
      first_body (reference, &kernel);
      fused = prism_graph_diff_new (reference, ((PrismMirageGraph *) g_ptr_array_index (graphs, 0))->graph);
      g_assert_cmpuint (prism_graph_diff_get_n (fused), >, 0);
      for (guint i = 0; i < prism_graph_diff_get_n (fused); i++)
        {
          const PrismGraphDifference *difference = prism_graph_diff_get (fused, i);

          g_assert_true (difference->op_a == kernel || prism_op_id_get_kernel (difference->op_a) == (int) kernel);
          g_assert_cmpstr (difference->field, !=, "name");
        }
    }
  }
}

/* The operators added for real programs say what their attributes are, as
 * sum does ("along dim 1"): a transpose its permutation, a constant its
 * value, max and mean their dim. */
static void
test_layout_new_op_attrs (void)
{
  g_autoptr(PrismGraph) g = prism_graph_new ();
  g_autoptr(GError) error = NULL;
  const gint64 dims[] = { 8, 64 };
  PrismOpAttrs attrs;
  int x, c, t, m, mean;
  g_autofree char *t_text = NULL;
  g_autofree char *c_text = NULL;
  g_autofree char *m_text = NULL;
  g_autofree char *mean_text = NULL;

  x = prism_graph_add_input (g, "X", 2, dims, PRISM_DTYPE_F16, &error);
  g_assert_no_error (error);
  c = prism_graph_add_constant (g, 0.125, 2, PRISM_DTYPE_F16, &error);
  g_assert_no_error (error);
  prism_op_attrs_init (&attrs);
  attrs.perm[0] = 1;
  attrs.perm[1] = 0;
  t = prism_graph_add (g, PRISM_OP_TRANSPOSE, (guint[]) { (guint) x }, 1, &attrs, &error);
  g_assert_no_error (error);
  prism_op_attrs_init (&attrs);
  attrs.dim = 1;
  m = prism_graph_add (g, PRISM_OP_MAX, (guint[]) { (guint) x }, 1, &attrs, &error);
  g_assert_no_error (error);
  attrs.dim = 0;
  mean = prism_graph_add (g, PRISM_OP_MEAN, (guint[]) { (guint) x }, 1, &attrs, &error);
  g_assert_no_error (error);

  t_text = prism_graph_layout_format_attrs (g, prism_graph_op (g, prism_graph_tensor (g, t)->producer));
  c_text = prism_graph_layout_format_attrs (g, prism_graph_op (g, prism_graph_tensor (g, c)->producer));
  m_text = prism_graph_layout_format_attrs (g, prism_graph_op (g, prism_graph_tensor (g, m)->producer));
  mean_text = prism_graph_layout_format_attrs (g, prism_graph_op (g, prism_graph_tensor (g, mean)->producer));
  g_assert_cmpstr (t_text, ==, "perm (1, 0)");
  g_assert_cmpstr (c_text, ==, "value 0.125");
  g_assert_cmpstr (m_text, ==, "along dim 1");
  g_assert_cmpstr (mean_text, ==, "along dim 0");
}

static void
test_diff_kinds (void)
{
  g_autoptr(PrismGraph) fused = build_workload ("rms_norm", TRUE);
  g_autoptr(PrismGraph) unfused = build_workload ("rms_norm", FALSE);
  g_autoptr(PrismGraph) b = prism_graph_copy (fused);
  g_autoptr(PrismGraphDiff) diff = NULL;
  g_autoptr(PrismGraphDiff) structural = NULL;
  g_autoptr(GHashTable) fields = g_hash_table_new (g_str_hash, g_str_equal);
  PrismGraph *body;
  guint kernel = 0, n_only_a = 0, n_only_b = 0;

  body = (PrismGraph *) first_body (b, &kernel);
  prism_dim_unref (body->forloop);
  body->forloop = prism_dim_const (32);
  body->block_threads = 256;

  diff = prism_graph_diff_new (fused, b);
  for (guint i = 0; i < prism_graph_diff_get_n (diff); i++)
    {
      const PrismGraphDifference *difference = prism_graph_diff_get (diff, i);

      g_hash_table_add (fields, (gpointer) difference->field);
      g_assert_cmpuint (difference->op_a, ==, kernel);
      g_assert_cmpuint (difference->op_b, ==, kernel);
    }
  g_assert_cmpuint (prism_graph_diff_get_n (diff), ==, 2);
  g_assert_true (g_hash_table_contains (fields, "loop"));
  g_assert_true (g_hash_table_contains (fields, "threads"));

  /* The unfused program and the fused one share inputs and outputs only. */
  structural = prism_graph_diff_new (unfused, fused);
  for (guint i = 0; i < prism_graph_diff_get_n (structural); i++)
    {
      const PrismGraphDifference *difference = prism_graph_diff_get (structural, i);

      if (difference->kind == PRISM_DIFFERENCE_ONLY_A)
        {
          n_only_a++;
          g_assert_cmpuint (difference->op_b, ==, PRISM_OP_ID_NONE);
        }
      else if (difference->kind == PRISM_DIFFERENCE_ONLY_B)
        {
          n_only_b++;
          g_assert_cmpuint (difference->op_a, ==, PRISM_OP_ID_NONE);
          g_assert_cmpstr (difference->field, ==, "kernel");
        }
    }
  /* Every op of the unfused program but its inputs and output is missing
   * from the fused one, which has a kernel instead. */
  {
    guint expected = 0;

    for (guint i = 0; i < unfused->ops->len; i++)
      {
        PrismOpKind kind = prism_graph_op (unfused, i)->kind;

        if (kind != PRISM_OP_INPUT && kind != PRISM_OP_OUTPUT)
          expected++;
      }
    g_assert_cmpuint (n_only_a, ==, expected);
    g_assert_cmpuint (n_only_b, ==, 1);
  }
}

/* rms_norm fused as the reference does it, with other tile sizes: a second
 * candidate of the same structure; @swapped, its kernel reads (W, X) and
 * its block declares W's tiles first, as a Mirage graph may. */
static PrismGraph *
build_rms_norm_kernel (gint64   grid,
                       gint64   loop,
                       guint    threads,
                       gboolean swapped)
{
  g_autoptr(PrismGraph) g = prism_graph_new ();
  g_autoptr(PrismGraph) b = prism_block_graph_new_const (1, &grid, threads, loop);
  g_autoptr(GError) error = NULL;
  const gint64 xshape[2] = { 8, 4096 }, wshape[2] = { 4096, 4096 };
  const int no_map[3] = { -1, -1, -1 }, split[3] = { 1, -1, -1 };
  PrismDim *xdims[2], *wdims[2];
  guint ins[2], in[2];
  int xt, wt, mm, acc, rms, quot, k;

  prism_graph_set_name (g, "rms_norm", NULL);
  ins[0] = prism_graph_add_input (g, "X", 2, xshape, PRISM_DTYPE_F16, &error);
  ins[1] = prism_graph_add_input (g, "W", 2, wshape, PRISM_DTYPE_F16, &error);
  g_assert_no_error (error);
  for (guint d = 0; d < 2; d++)
    {
      xdims[d] = prism_dim_const (xshape[d]);
      wdims[d] = prism_dim_const (wshape[d]);
    }
  if (swapped)
    {
      guint x = ins[0];

      ins[0] = ins[1];
      ins[1] = x;
      wt = prism_block_graph_add_input (b, 0, 2, wdims, PRISM_DTYPE_F16, split, 0, &error);
      xt = prism_block_graph_add_input (b, 1, 2, xdims, PRISM_DTYPE_F16, no_map, 1, &error);
    }
  else
    {
      xt = prism_block_graph_add_input (b, 0, 2, xdims, PRISM_DTYPE_F16, no_map, 1, &error);
      wt = prism_block_graph_add_input (b, 1, 2, wdims, PRISM_DTYPE_F16, split, 0, &error);
    }
  g_assert_no_error (error);
  in[0] = xt;
  in[1] = wt;
  mm = prism_graph_add (b, PRISM_OP_MATMUL, in, 2, NULL, &error);
  in[0] = mm;
  acc = prism_graph_add (b, PRISM_OP_ACCUM, in, 1, NULL, &error);
  in[0] = xt;
  rms = prism_graph_add (b, PRISM_OP_ACCUM_RMS, in, 1, NULL, &error);
  in[0] = acc;
  in[1] = rms;
  quot = prism_graph_add (b, PRISM_OP_DIV, in, 2, NULL, &error);
  g_assert_no_error (error);
  prism_block_graph_add_output (b, quot, split, &error);
  g_assert_no_error (error);
  k = prism_graph_add_kernel (g, ins, 2, b, &error);
  g_assert_no_error (error);
  prism_graph_add_output (g, prism_graph_op (g, k)->outputs[0], "O", &error);
  g_assert_no_error (error);
  for (guint d = 0; d < 2; d++)
    {
      prism_dim_unref (xdims[d]);
      prism_dim_unref (wdims[d]);
    }
  g_assert_true (prism_graph_validate (g, &error));
  return g_steal_pointer (&g);
}

static PrismGraph *
build_rms_norm_variant (gint64 grid,
                        gint64 loop,
                        guint  threads)
{
  return build_rms_norm_kernel (grid, loop, threads, FALSE);
}

/* A kernel that reads the same tensors in another order, its block's
 * tiles declared in that order, is the same kernel: nothing differs.
 * Before, the kernel read "different operands" and each tile paired with
 * the other's (shapes, maps and the input index differed). */
static void
test_diff_kernel_operand_order (void)
{
  g_autoptr(PrismGraph) ours = build_rms_norm_kernel (64, 64, 128, FALSE);
  g_autoptr(PrismGraph) swapped = build_rms_norm_kernel (64, 64, 128, TRUE);
  g_autoptr(PrismGraph) retiled = build_rms_norm_kernel (32, 64, 128, TRUE);
  g_autoptr(PrismGraphDiff) same = prism_graph_diff_new (ours, swapped);
  g_autoptr(PrismGraphDiff) grid = prism_graph_diff_new (ours, retiled);
  g_autofree char *text = describe_diff (same);
  g_autofree char *grid_text = describe_diff (grid);

  g_test_message ("swapped:%s", text);
  g_test_message ("swapped and retiled:%s", grid_text);
  g_assert_cmpuint (prism_graph_diff_get_n (same), ==, 0);
  /* A real difference is still one: another grid, and the tiles of W it
   * makes (W's tile, not X's, in both: they paired by what they tile). */
  {
    g_autoptr(GHashTable) fields = g_hash_table_new (g_str_hash, g_str_equal);
    gboolean w_tile = FALSE;

    for (guint i = 0; i < prism_graph_diff_get_n (grid); i++)
      {
        const PrismGraphDifference *difference = prism_graph_diff_get (grid, i);

        g_hash_table_add (fields, (gpointer) difference->field);
        /* W's tiles are op 1 of ours and op 0 of the swapped kernel. */
        if (prism_op_id_get_op (difference->op_a) == 1 && prism_op_id_get_kernel (difference->op_a) >= 0)
          {
            g_assert_cmpuint (prism_op_id_get_op (difference->op_b), ==, 0);
            w_tile = TRUE;
          }
      }
    g_assert_true (g_hash_table_contains (fields, "grid"));
    g_assert_true (w_tile);
    g_assert_false (g_hash_table_contains (fields, "inputs"));
    g_assert_false (g_hash_table_contains (fields, "input"));
    g_assert_false (g_hash_table_contains (fields, "imap"));
  }
}

/* The comparison shows both graphs with the diff's ops highlighted on each
 * side and one row per difference. */
static void
test_compare_view (void)
{
  g_autoptr(PrismGraph) unfused = build_workload ("rmsnorm_mlp", FALSE);
  g_autoptr(PrismGraph) fused = build_workload ("rmsnorm_mlp", TRUE);
  g_autoptr(PrismCandidateInfo) a = prism_candidate_info_new ("unfused program", unfused);
  g_autoptr(PrismCandidateInfo) b = prism_candidate_info_new ("#1 fused", fused);
  PrismCompareView *compare = PRISM_COMPARE_VIEW (prism_compare_view_new ());
  GtkWindow *window = window_with (GTK_WIDGET (compare), 1280, 820);
  const PrismGraphDiff *diff;
  guint n_rows = 0;

  a->predicted_us = 41.8;
  a->speedup = 1.0;
  prism_candidate_info_set_verification (a, "reference");
  b->predicted_us = 22.6;
  b->speedup = 41.8 / 22.6;
  prism_candidate_info_set_verification (b, "proved (e-graph)");

  prism_compare_view_set_candidates (compare, a, b);
  diff = prism_compare_view_get_diff (compare);
  g_assert_nonnull (diff);
  g_assert_cmpuint (prism_graph_diff_get_n (diff), >, 0);
  for (guint side = 0; side < 2; side++)
    {
      PrismGraphView *view = prism_compare_view_get_graph_view (compare, side);
      g_autoptr(GArray) ops = prism_graph_diff_get_ops (diff, side);

      g_assert_true (prism_graph_view_get_graph (view) == (side ? fused : unfused));
      g_assert_cmpuint (ops->len, >, 0);
      for (guint i = 0; i < ops->len; i++)
        g_assert_true (prism_graph_view_is_highlighted (view, g_array_index (ops, guint, i)));
      wait_for_layout (view);
    }
  for (GtkWidget *row = gtk_widget_get_first_child (GTK_WIDGET (prism_compare_view_get_differences_list (compare)));
       row != NULL; row = gtk_widget_get_next_sibling (row))
    if (GTK_IS_LIST_BOX_ROW (row))
      n_rows++;
  g_assert_cmpuint (n_rows, ==, prism_graph_diff_get_n (diff));

  /* Both sides follow one direction. */
  prism_graph_view_set_direction (prism_compare_view_get_graph_view (compare, FALSE),
                                  PRISM_GRAPH_DIRECTION_LEFT_TO_RIGHT);
  g_assert_cmpint (prism_graph_view_get_direction (prism_compare_view_get_graph_view (compare, TRUE)),
                   ==, PRISM_GRAPH_DIRECTION_LEFT_TO_RIGHT);
  prism_compare_view_set_direction (compare, PRISM_GRAPH_DIRECTION_TOP_TO_BOTTOM);
  for (guint side = 0; side < 2; side++)
    wait_for_layout (prism_compare_view_get_graph_view (compare, side));

  /* Two fused candidates of the same structure: what differs is the tiling,
   * op by op. */
  {
    g_autoptr(PrismGraph) reference = build_workload ("rms_norm", TRUE);
    g_autoptr(PrismGraph) variant = build_rms_norm_variant (128, 128, 256);
    g_autoptr(PrismCandidateInfo) c = prism_candidate_info_new ("#1 · 64 × 64 tiles", reference);
    g_autoptr(PrismCandidateInfo) d = prism_candidate_info_new ("#4 · 32 × 32 tiles", variant);
    g_autoptr(GHashTable) fields = g_hash_table_new (g_str_hash, g_str_equal);

    c->predicted_us = 20.9;
    c->speedup = 2.1;
    prism_candidate_info_set_verification (c, "proved (e-graph) · random test passed");
    d->predicted_us = 24.3;
    d->speedup = 1.8;
    prism_candidate_info_set_verification (d, "proved (e-graph) · random test passed");
    prism_compare_view_set_candidates (compare, c, d);
    diff = prism_compare_view_get_diff (compare);
    for (guint i = 0; i < prism_graph_diff_get_n (diff); i++)
      {
        const PrismGraphDifference *difference = prism_graph_diff_get (diff, i);

        g_assert_cmpint (difference->kind, ==, PRISM_DIFFERENCE_CHANGED);
        g_hash_table_add (fields, (gpointer) difference->field);
      }
    g_assert_true (g_hash_table_contains (fields, "grid"));
    g_assert_true (g_hash_table_contains (fields, "loop"));
    g_assert_true (g_hash_table_contains (fields, "threads"));
    g_assert_true (g_hash_table_contains (fields, "shape"));
    g_assert_false (g_hash_table_contains (fields, "imap"));
    /* accum_rms keeps its [8, 1] tile: it is not highlighted. */
    g_assert_false (prism_graph_view_is_highlighted (prism_compare_view_get_graph_view (compare, TRUE),
                                                     prism_op_id_make (2, 4)));
    g_assert_true (prism_graph_view_is_highlighted (prism_compare_view_get_graph_view (compare, TRUE),
                                                    prism_op_id_make (2, 2)));
    for (guint side = 0; side < 2; side++)
      wait_for_layout (prism_compare_view_get_graph_view (compare, side));
    save_screenshot (GTK_WIDGET (compare), "compare-view.png");
  }

  prism_compare_view_set_candidates (compare, NULL, NULL);
  g_assert_null (prism_compare_view_get_diff (compare));
  window_destroy (window);
}

/* The unified diff keeps every line of both texts, in order: with all the
 * context, the first text is its same and removed lines, the second its
 * same and added ones; with 3 lines of context, each hunk's header counts
 * its lines. */
static void
test_diff_lines (void)
{
  const char *a = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\n";
  const char *b = "a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\n";
  g_autoptr(GArray) same = prism_line_diff_new (a, a, 3, NULL, NULL);
  g_autoptr(GArray) all = NULL;
  g_autoptr(GArray) hunks = NULL;
  g_autoptr(GString) first = g_string_new (NULL);
  g_autoptr(GString) second = g_string_new (NULL);
  guint removed = 0, added = 0, n_hunks = 0;

  g_assert_cmpuint (same->len, ==, 0);

  all = prism_line_diff_new (a, b, G_MAXUINT, &removed, &added);
  g_assert_cmpuint (removed, ==, 1);
  g_assert_cmpuint (added, ==, 2);
  g_assert_cmpint (g_array_index (all, PrismDiffLine, 0).kind, ==, PRISM_DIFF_LINE_HUNK);
  g_assert_cmpstr (g_array_index (all, PrismDiffLine, 0).text, ==, "@@ -1,12 +1,13 @@");
  for (guint i = 1; i < all->len; i++)
    {
      const PrismDiffLine *line = &g_array_index (all, PrismDiffLine, i);

      g_assert_cmpint (line->kind, !=, PRISM_DIFF_LINE_HUNK);
      if (line->kind != PRISM_DIFF_LINE_ADDED)
        g_string_append_printf (first, "%s\n", line->text);
      if (line->kind != PRISM_DIFF_LINE_REMOVED)
        g_string_append_printf (second, "%s\n", line->text);
    }
  g_assert_cmpstr (first->str, ==, a);
  g_assert_cmpstr (second->str, ==, b);

  /* Two changes 10 lines apart: two hunks of 3 lines of context. */
  hunks = prism_line_diff_new (a, b, 3, &removed, &added);
  for (guint i = 0; i < hunks->len; i++)
    if (g_array_index (hunks, PrismDiffLine, i).kind == PRISM_DIFF_LINE_HUNK)
      {
        g_test_message ("%s", g_array_index (hunks, PrismDiffLine, i).text);
        n_hunks++;
      }
  g_assert_cmpuint (n_hunks, ==, 2);
  g_assert_cmpstr (g_array_index (hunks, PrismDiffLine, 0).text, ==, "@@ -1,5 +1,5 @@");
  g_assert_cmpstr (g_array_index (hunks, PrismDiffLine, 7).text, ==, "@@ -10,3 +10,4 @@");
  g_assert_cmpuint (removed, ==, 1);
  g_assert_cmpuint (added, ==, 2);
}

static char *
generated_source (PrismGraph *graph)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismKernelReport) report = prism_kernel_report_new (graph, prism_gpu_target_default (), FALSE,
                                                                 FALSE, NULL, &error);

  g_assert_no_error (error);
  return g_strdup (report->source);
}

/* Compare's CUDA Source page (issue 25 item 8a): a unified diff of the code
 * the Kernel page shows for each candidate, removed lines tagged removed
 * and in the first's code, added lines tagged added and in the second's;
 * the same candidate twice has no difference. */
static void
test_compare_source (void)
{
  g_autoptr(PrismGraph) unfused = build_workload ("rms_norm", FALSE);
  g_autoptr(PrismGraph) fused = build_workload ("rms_norm", TRUE);
  g_autoptr(PrismCandidateInfo) a = prism_candidate_info_new ("unfused program", unfused);
  g_autoptr(PrismCandidateInfo) b = prism_candidate_info_new ("#1 fused", fused);
  g_autofree char *source_a = generated_source (unfused);
  g_autofree char *source_b = generated_source (fused);
  g_autofree char *text = NULL;
  PrismCompareView *compare = PRISM_COMPARE_VIEW (prism_compare_view_new ());
  GtkWindow *window = window_with (GTK_WIDGET (compare), 1280, 820);
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (prism_compare_view_get_source_view (compare));
  GtkTextTagTable *tags = gtk_text_buffer_get_tag_table (buffer);
  g_auto(GStrv) lines = NULL;
  guint n_removed = 0, n_added = 0, n_hunks = 0;

  prism_compare_view_set_candidates (compare, a, b);
  g_assert_cmpstr (prism_compare_view_get_page (compare), ==, "graphs");
  prism_compare_view_set_page (compare, "source");
  g_test_message ("%s", prism_compare_view_get_source_summary (compare));
  g_assert_nonnull (strstr (prism_compare_view_get_source_summary (compare), "lines removed"));
  {
    GtkTextIter start, end;

    gtk_text_buffer_get_bounds (buffer, &start, &end);
    text = gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
  }
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL && lines[i][0] != '\0'; i++)
    {
      GtkTextIter iter;
      const char *tag = lines[i][0] == '+' ? "added" : lines[i][0] == '-' ? "removed"
                      : lines[i][0] == '@' ? "hunk" : NULL;
      g_autofree char *needle = g_strdup_printf ("%s\n", lines[i] + 1);

      gtk_text_buffer_get_iter_at_line (buffer, &iter, (int) i);
      if (tag != NULL)
        g_assert_true (gtk_text_iter_has_tag (&iter, gtk_text_tag_table_lookup (tags, tag)));
      if (lines[i][0] == '+')
        {
          g_assert_nonnull (strstr (source_b, needle));
          n_added++;
        }
      else if (lines[i][0] == '-')
        {
          g_assert_nonnull (strstr (source_a, needle));
          n_removed++;
        }
      else if (lines[i][0] == '@')
        n_hunks++;
      else
        {
          g_assert_cmpint (lines[i][0], ==, ' ');
          g_assert_nonnull (strstr (source_a, needle));
          g_assert_nonnull (strstr (source_b, needle));
        }
    }
  g_assert_cmpuint (n_hunks, >, 0);
  g_assert_cmpuint (n_added, >, 0);
  g_assert_cmpuint (n_removed, >, 0);
  /* The line above says what the text shows. */
  {
    g_autofree char *counts = g_strdup_printf ("%u lines removed, %u lines added", n_removed, n_added);

    g_assert_true (g_str_has_prefix (prism_compare_view_get_source_summary (compare), counts));
  }
  gtk_test_widget_wait_for_draw (GTK_WIDGET (compare));
  save_screenshot (GTK_WIDGET (compare), "compare-source.png");

  /* Planned for another GPU, as the Kernel page's target makes it. */
  prism_compare_view_set_target (compare, "a100");
  g_test_message ("%s", prism_compare_view_get_source_summary (compare));
  g_assert_nonnull (strstr (prism_compare_view_get_source_summary (compare),
                            prism_gpu_target_lookup ("a100")->display_name));
  g_assert_null (strstr (prism_compare_view_get_source_summary (compare),
                         prism_gpu_target_default ()->display_name));

  /* The same code on both sides. */
  prism_compare_view_set_candidates (compare, b, b);
  g_assert_cmpstr (prism_compare_view_get_source_summary (compare), ==,
                   "The two candidates generate the same CUDA code.");
  g_assert_cmpint (gtk_text_buffer_get_char_count (buffer), ==, 0);
  window_destroy (window);
}

/* The list row of the @index-th difference. */
static GtkListBoxRow *
difference_row (PrismCompareView *compare,
                guint             index)
{
  GtkListBoxRow *row = gtk_list_box_get_row_at_index (prism_compare_view_get_differences_list (compare),
                                                      index);

  g_assert_nonnull (row);
  return row;
}

/* Clicking a difference zooms each side in past its fit, to a size text
 * can be read at, with the op in the middle of the view. */
static void
test_compare_zoom (void)
{
  g_autoptr(PrismGraph) reference = build_workload ("rms_norm", TRUE);
  g_autoptr(PrismGraph) variant = build_rms_norm_variant (128, 128, 256);
  g_autoptr(PrismCandidateInfo) a = prism_candidate_info_new ("#1", reference);
  g_autoptr(PrismCandidateInfo) b = prism_candidate_info_new ("#4", variant);
  PrismCompareView *compare = PRISM_COMPARE_VIEW (prism_compare_view_new ());
  GtkWindow *window = window_with (GTK_WIDGET (compare), 1280, 820);
  const PrismGraphDiff *diff;
  double fit_zoom[2];
  guint index = G_MAXUINT;

  prism_compare_view_set_candidates (compare, a, b);
  diff = prism_compare_view_get_diff (compare);
  for (guint side = 0; side < 2; side++)
    {
      wait_for_layout (prism_compare_view_get_graph_view (compare, side));
      fit_zoom[side] = prism_graph_view_get_zoom (prism_compare_view_get_graph_view (compare, side));
    }
  /* A difference in one block op (a node, not a whole kernel). */
  for (guint i = 0; i < prism_graph_diff_get_n (diff) && index == G_MAXUINT; i++)
    if (prism_op_id_get_kernel (prism_graph_diff_get (diff, i)->op_b) >= 0)
      index = i;
  g_assert_cmpuint (index, !=, G_MAXUINT);

  gtk_widget_activate (GTK_WIDGET (difference_row (compare, index)));
  for (guint side = 0; side < 2; side++)
    {
      PrismGraphView *view = prism_compare_view_get_graph_view (compare, side);
      PrismGraphLayout *layout = prism_graph_view_get_layout (view);
      const PrismGraphDifference *difference = prism_graph_diff_get (diff, index);
      guint op_id = side ? difference->op_b : difference->op_a;
      const PrismLayoutNode *node = prism_graph_layout_node (layout, prism_graph_layout_find_node (layout, op_id));
      double z, x, y;

      prism_graph_view_get_transform (view, &z, &x, &y);
      g_assert_cmpfloat (z, >, fit_zoom[side] * 1.2);
      g_assert_cmpfloat (z, >=, 1.0);
      /* The whole node is in view, its centre in the middle. */
      g_assert_cmpfloat_with_epsilon (x + (node->x + node->width / 2) * z,
                                      gtk_widget_get_width (GTK_WIDGET (view)) / 2.0, 1e-6);
      g_assert_cmpfloat_with_epsilon (y + (node->y + node->height / 2) * z,
                                      gtk_widget_get_height (GTK_WIDGET (view)) / 2.0, 1e-6);
      g_assert_cmpfloat (node->width * z, <=, gtk_widget_get_width (GTK_WIDGET (view)));
    }
  gtk_test_widget_wait_for_draw (GTK_WIDGET (compare));
  save_screenshot (GTK_WIDGET (compare), "compare-zoom.png");

  window_destroy (window);
}

/* The main window's Graph page shows the open program's graph, follows the
 * layout-direction setting and exports what it shows. */
static void
test_window_graph_page (void)
{
  g_autoptr(PrismApplication) app = prism_application_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("prism-window-export-XXXXXX", &error);
  g_autofree char *svg = g_build_filename (dir, "rmsnorm_mlp.svg", NULL);
  g_autofree char *png = g_build_filename (dir, "rmsnorm_mlp.png", NULL);
  g_autoptr(GFile) svg_file = g_file_new_for_path (svg);
  g_autoptr(GFile) png_file = g_file_new_for_path (png);
  g_autoptr(GFile) txt_file = NULL;
  PrismWindow *window;
  PrismGraphView *view;
  GtkWidget *stack;
  GSettings *settings;
  GStatBuf st;

  g_application_set_flags (G_APPLICATION (app),
                           g_application_get_flags (G_APPLICATION (app)) | G_APPLICATION_NON_UNIQUE);
  g_application_register (G_APPLICATION (app), NULL, &error);
  g_assert_no_error (error);

  window = prism_window_new (app);
  /* Only the graph matters here: no search in the background. */
  if (g_object_class_find_property (G_OBJECT_GET_CLASS (window), "search-on-open") != NULL)
    g_object_set (window, "search-on-open", FALSE, NULL);
  gtk_window_set_default_size (GTK_WINDOW (window), 1180, 760);
  gtk_window_present (GTK_WINDOW (window));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));

  view = prism_window_get_graph_view (window);
  g_assert_nonnull (view);
  g_assert_null (prism_graph_view_get_graph (view));
  g_assert_false (prism_window_export_graph (window, svg_file, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);
  g_clear_error (&error);

  g_assert_true (prism_window_load_workload (window, "rmsnorm_mlp", NULL, &error));
  g_assert_no_error (error);
  g_assert_true (prism_graph_view_get_graph (view) == prism_window_get_graph (window));

  stack = gtk_widget_get_ancestor (GTK_WIDGET (view), GTK_TYPE_STACK);
  g_assert_nonnull (stack);
  gtk_stack_set_visible_child_name (GTK_STACK (stack), "graph");
  wait_for_layout (view);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  save_screenshot (GTK_WIDGET (window), "window-graph.png");

  /* Inspecting: an op selected, its properties beside the graph. */
  {
    const PrismGraph *program = prism_window_get_graph (window);
    guint matmul = G_MAXUINT;

    for (guint i = 0; i < program->ops->len && matmul == G_MAXUINT; i++)
      if (prism_graph_op (program, i)->kind == PRISM_OP_MATMUL)
        matmul = i;
    g_assert_cmpuint (matmul, !=, G_MAXUINT);
    g_assert_true (prism_graph_view_select (view, prism_op_id_make (-1, matmul)));
    gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
    g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (prism_graph_view_get_properties (view))));
    save_screenshot (GTK_WIDGET (window), "graph-inspect.png");
    prism_graph_view_select (view, PRISM_OP_ID_NONE);
  }

  /* Export goes by the extension. */
  g_assert_true (prism_window_export_graph (window, svg_file, &error));
  g_assert_no_error (error);
  g_assert_true (prism_window_export_graph (window, png_file, &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_stat (svg, &st), ==, 0);
  g_assert_cmpint (st.st_size, >, 0);
  g_assert_cmpint (g_stat (png, &st), ==, 0);
  g_assert_cmpint (st.st_size, >, 0);
  txt_file = g_file_new_for_path ("graph.txt");
  g_assert_false (prism_window_export_graph (window, txt_file, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_FILENAME);
  g_clear_error (&error);

  /* The preference lays the graph out again. */
  settings = prism_application_get_settings (app);
  if (settings != NULL)
    {
      /* GSettings tells its bindings from the main loop. */
      g_settings_set_enum (settings, "layout-direction", PRISM_GRAPH_DIRECTION_LEFT_TO_RIGHT);
      WAIT_UNTIL (prism_graph_view_get_direction (view) == PRISM_GRAPH_DIRECTION_LEFT_TO_RIGHT);
      wait_for_layout (view);
      g_assert_cmpint (prism_graph_view_get_layout (view)->direction, ==, PRISM_GRAPH_DIRECTION_LEFT_TO_RIGHT);
      g_settings_reset (settings, "layout-direction");
      WAIT_UNTIL (prism_graph_view_get_direction (view) == PRISM_GRAPH_DIRECTION_TOP_TO_BOTTOM);

      /* The legend's toggle is remembered. */
      prism_graph_view_set_show_legend (view, FALSE);
      g_assert_false (g_settings_get_boolean (settings, "show-legend"));
      g_settings_reset (settings, "show-legend");
      WAIT_UNTIL (prism_graph_view_get_legend_visible (view));
    }
  else
    g_test_message ("no GSettings schema: the layout-direction binding is not checked");

  window_destroy (GTK_WINDOW (window));
  g_unlink (svg);
  g_unlink (png);
  g_rmdir (dir);
}

/* Activates what Escape does in @widget's own shortcuts (the class's
 * bindings): TRUE if it was handled there, FALSE if it goes on to the
 * widgets that hold it. */
static gboolean
press_escape (GtkWidget *widget)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (widget);
  g_autoptr(GtkShortcutTrigger) escape = gtk_keyval_trigger_new (GDK_KEY_Escape, 0);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GObject) controller = g_list_model_get_item (controllers, i);

      if (!GTK_IS_SHORTCUT_CONTROLLER (controller))
        continue;
      for (guint j = 0; j < g_list_model_get_n_items (G_LIST_MODEL (controller)); j++)
        {
          g_autoptr(GtkShortcut) shortcut = g_list_model_get_item (G_LIST_MODEL (controller), j);

          if (gtk_shortcut_trigger_equal (gtk_shortcut_get_trigger (shortcut), escape))
            return gtk_shortcut_action_activate (gtk_shortcut_get_action (shortcut), 0, widget,
                                                 gtk_shortcut_get_arguments (shortcut));
        }
    }
  g_error ("no Escape shortcut on %s", G_OBJECT_TYPE_NAME (widget));
  return FALSE;
}

/* Issue 25, item 6: Escape did not close the pruning samples' popover when
 * its graph had the focus — the view took Escape with nothing selected.
 * It clears a selection; with none, it is left to the popover. */
static void
test_view_escape (void)
{
  g_autoptr(PrismGraph) graph = build_workload ("rms_norm", TRUE);
  PrismGraphView *view = PRISM_GRAPH_VIEW (prism_graph_view_new ());
  GtkWindow *window = window_with (GTK_WIDGET (view), 800, 600);

  prism_graph_view_set_graph (view, graph);
  wait_for_layout (view);
  g_assert_false (press_escape (GTK_WIDGET (view)));
  g_assert_true (prism_graph_view_select (view, prism_op_id_make (-1, 0)));
  g_assert_cmpuint (prism_graph_view_get_selected (view), !=, PRISM_OP_ID_NONE);
  g_assert_true (press_escape (GTK_WIDGET (view)));
  g_assert_cmpuint (prism_graph_view_get_selected (view), ==, PRISM_OP_ID_NONE);
  g_assert_false (press_escape (GTK_WIDGET (view)));
  gtk_window_destroy (window);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  /* Layout, export and diff need no display. */
  g_test_add_func ("/graph/layout/workloads", test_layout_workloads);
  g_test_add_func ("/graph/layout/async", test_layout_async);
  g_test_add_func ("/graph/layout/smem", test_layout_smem);
  g_test_add_func ("/graph/layout/collapsed", test_layout_collapsed);
  g_test_add_func ("/graph/layout/new-op-attrs", test_layout_new_op_attrs);
  g_test_add_func ("/graph/find", test_find);
  g_test_add_func ("/graph/export", test_export);
  g_test_add_func ("/graph/diff/one-map-entry", test_diff_one_map_entry);
  g_test_add_func ("/graph/diff/kinds", test_diff_kinds);
  g_test_add_func ("/graph/diff/renamed-inputs", test_diff_renamed_inputs);
  g_test_add_func ("/graph/diff/lines", test_diff_lines);
  g_test_add_func ("/graph/diff/kernel-operand-order", test_diff_kernel_operand_order);

  if (gtk_init_check ())
    {
      /* Pages appear at once, so what is checked is what is seen. */
      g_object_set (gtk_settings_get_default (), "gtk-enable-animations", FALSE, NULL);
      g_test_add_func ("/graph/view/draws", test_view_draws);
      g_test_add_func ("/graph/view/stale", test_view_stale);
      g_test_add_func ("/graph/view/zoom", test_view_zoom);
      g_test_add_func ("/graph/view/select", test_view_select);
      g_test_add_func ("/graph/view/escape", test_view_escape);
      g_test_add_func ("/graph/view/find", test_view_find);
      g_test_add_func ("/graph/view/collapse", test_view_collapse);
      g_test_add_func ("/graph/view/legend", test_view_legend);
      g_test_add_func ("/graph/view/gestures", test_view_gestures);
      g_test_add_func ("/graph/compare", test_compare_view);
      g_test_add_func ("/graph/compare/zoom", test_compare_zoom);
      g_test_add_func ("/graph/compare/source", test_compare_source);
      g_test_add_func ("/graph/window", test_window_graph_page);
    }
  else
    g_test_message ("no display: skipping the widget tests");

  return g_test_run ();
}
