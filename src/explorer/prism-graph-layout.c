/* prism-graph-layout.c — where the ops of a program go when it is drawn
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "prism-graph-layout"

#include "config.h"

#include <math.h>
#include <glib/gi18n.h>
#include <gvc.h>

#include "prism-graph-layout.h"
#include "prism-sgraph.h"
#include "prism-graph-paint.h"

/* libgvc and libcgraph keep global state (the plugin context, the string
 * dictionaries, error handlers) and are not thread-safe: every Graphviz call
 * of every thread happens under this lock. Text is measured under it too,
 * with one font map for the process rather than one per worker thread. */
G_LOCK_DEFINE_STATIC (graphviz);
static GVC_t *graphviz_context;  /* created once under the lock, kept for the process */

static const char * const axis_names[PRISM_MAX_GRID_DIMS] = { "x", "y", "z" };

#define MIN_NODE_WIDTH 64.0

typedef struct
{
  PrismGraph *graph;            /* owned reference */
  PrismGraphDirection direction;
  GArray *collapsed;            /* guint kernel-level indices */
} ComputeData;

/* Built without the lock, laid out with it. */
typedef struct
{
  const PrismGraph *graph;
  const char * const *names;
  GHashTable *collapsed;        /* (nullable) kernel-level indices drawn as one box */
  PangoContext *pango;
  PrismGraphLayout *layout;
  int *cluster_of_node;         /* per node: cluster index or -1 */
} Builder;

/*
 * Auxiliary methods
 */

GType
prism_graph_direction_get_type (void)
{
  static gsize type_id = 0;

  if (g_once_init_enter (&type_id))
    {
      /* The nicks are those of the layout-direction GSettings key, so that
       * the setting binds to a "direction" property as it is. */
      static const GEnumValue values[] = {
        { PRISM_GRAPH_DIRECTION_TOP_TO_BOTTOM, "PRISM_GRAPH_DIRECTION_TOP_TO_BOTTOM", "top-to-bottom" },
        { PRISM_GRAPH_DIRECTION_LEFT_TO_RIGHT, "PRISM_GRAPH_DIRECTION_LEFT_TO_RIGHT", "left-to-right" },
        { 0, NULL, NULL }
      };
      GType type = g_enum_register_static (g_intern_static_string ("PrismGraphDirection"), values);

      g_once_init_leave (&type_id, type);
    }
  return type_id;
}

static void
compute_data_free (ComputeData *data)
{
  g_clear_pointer (&data->graph, prism_graph_unref);
  g_clear_pointer (&data->collapsed, g_array_unref);
  g_free (data);
}

static void
node_clear (gpointer data)
{
  PrismLayoutNode *node = data;

  g_free (node->title);
  g_free (node->subtitle);
  g_free (node->detail);
  g_free (node->tooltip);
}

static void
edge_clear (gpointer data)
{
  PrismLayoutEdge *edge = data;

  g_free (edge->points);
}

static void
cluster_clear (gpointer data)
{
  PrismLayoutCluster *cluster = data;

  g_free (cluster->title);
  g_free (cluster->subtitle);
  g_free (cluster->tooltip);
}

static char *
dims_to_string (const char * const *names,
                PrismDim * const   *dims,
                guint               ndims,
                const char         *separator,
                gboolean            brackets)
{
  GString *s = g_string_new (brackets ? "[" : NULL);

  for (guint i = 0; i < ndims; i++)
    {
      g_autofree char *d = prism_dim_to_string (dims[i], names);

      g_string_append_printf (s, "%s%s", i ? separator : "", d);
    }
  if (brackets)
    g_string_append_c (s, ']');
  return g_string_free (s, FALSE);
}

static char *
tensor_shape (const Builder     *b,
              const PrismTensor *tensor)
{
  return dims_to_string (b->names, tensor->dims, tensor->ndims, ", ", TRUE);
}

static char *
tensor_label (const Builder     *b,
              const PrismTensor *tensor)
{
  g_autofree char *shape = tensor_shape (b, tensor);

  return g_strdup_printf ("%s %s", shape, prism_dtype_to_string (tensor->dtype));
}

/* "imap (x→rep) · fmap 1" or "omap (x→1)"; plain text. */
static char *
map_string (const PrismGraph *body,
            const PrismOp    *op)
{
  g_autofree char *map = NULL;
  g_autofree char *fmap = NULL;

  if (op->kind == PRISM_OP_OUTPUT)
    {
      map = prism_graph_layout_format_map (op->attrs.omap, body->grid_ndims, TRUE);
      return g_strdup_printf ("omap %s", map);
    }
  map = prism_graph_layout_format_map (op->attrs.imap, body->grid_ndims, FALSE);
  fmap = prism_graph_layout_format_fmap (op->attrs.fmap);
  return g_strdup_printf ("imap %s · fmap %s", map, fmap);
}

/* "perm (1, 0)": the permutation has one entry per dim of the output. */
static char *
format_perm (const PrismGraph *graph,
             const PrismOp    *op)
{
  guint ndims = prism_graph_tensor (graph, op->outputs[0])->ndims;
  g_autoptr(GString) list = g_string_new (NULL);

  for (guint d = 0; d < ndims; d++)
    g_string_append_printf (list, "%s%d", d ? ", " : "", op->attrs.perm[d]);
  return g_strdup_printf (_("perm (%s)"), list->str);
}

/* Returns: (transfer full) (nullable): what an op's attributes add to its kind */
char *
prism_graph_layout_format_attrs (const PrismGraph *graph,
                                 const PrismOp    *op)
{
  switch (op->kind)
    {
    case PRISM_OP_SUM:
    case PRISM_OP_MAX:
    case PRISM_OP_MEAN:
    case PRISM_OP_CONCAT:
      return g_strdup_printf (_("along dim %d"), op->attrs.dim);

    case PRISM_OP_TRANSPOSE:
      return format_perm (graph, op);

    case PRISM_OP_CONSTANT:
      {
        char number[G_ASCII_DTOSTR_BUF_SIZE];

        /* %g-style, in the C locale: the value as the program file writes it. */
        g_ascii_formatd (number, sizeof number, "%.6g", op->attrs.value);
        return g_strdup_printf (_("value %s"), number);
      }

    case PRISM_OP_RMS_NORM:
      if (op->attrs.norm_dims == 1)
        return g_strdup (_("over the last dim"));
      return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "over the last %u dim",
                                           "over the last %u dims", op->attrs.norm_dims),
                              op->attrs.norm_dims);

    case PRISM_OP_ACCUM_SUM_TODIMX:
      return g_strdup_printf (_("last dim reduced to %u"), op->attrs.dimx);

    case PRISM_OP_INPUT:
    case PRISM_OP_OUTPUT:
    case PRISM_OP_MATMUL:
    case PRISM_OP_EXP:
    case PRISM_OP_SQUARE:
    case PRISM_OP_SQRT:
    case PRISM_OP_SILU:
    case PRISM_OP_GELU:
    case PRISM_OP_RELU:
    case PRISM_OP_NEG:
    case PRISM_OP_ADD:
    case PRISM_OP_SUB:
    case PRISM_OP_MUL:
    case PRISM_OP_DIV:
    case PRISM_OP_POW:
    case PRISM_OP_MAXIMUM:
    case PRISM_OP_KERNEL:
    case PRISM_OP_ACCUM:
    case PRISM_OP_ACCUM_SUM:
    case PRISM_OP_ACCUM_MEAN:
    case PRISM_OP_ACCUM_RMS:
    case PRISM_OP_ACCUM_MAX:
    case PRISM_OP_ACCUM_RESCALE:
    case PRISM_OP_ACCUM_SUM_RESCALE:
    case PRISM_N_OPS:
    default:
      return NULL;
    }
}

/* "t3 “X” [8, 4096]" for the tooltip's list of operands. */
static char *
kernel_tensor_ref (const Builder *b,
                   guint          id)
{
  const PrismTensor *tensor = prism_graph_tensor (b->graph, id);
  g_autofree char *shape = tensor_shape (b, tensor);
  const PrismOp *producer = tensor->producer >= 0 ? prism_graph_op (b->graph, tensor->producer) : NULL;

  if (producer != NULL && producer->kind == PRISM_OP_INPUT && producer->name != NULL)
    return g_strdup_printf ("t%u “%s” %s", id, producer->name, shape);
  return g_strdup_printf ("t%u %s", id, shape);
}

static char *
kernel_launch_string (const Builder    *b,
                      const PrismGraph *body)
{
  g_autofree char *grid = dims_to_string (b->names, body->grid, body->grid_ndims, "×", FALSE);
  g_autofree char *loop = prism_dim_to_string (body->forloop, b->names);

  /* Translators: a custom kernel's launch: grid sizes such as 8×4,
   * threads per block, and the for-loop range. */
  return g_strdup_printf (_("grid %s · %u threads · loop %s"), grid, body->block_threads, loop);
}

/* Returns: (transfer full) */
char *
prism_graph_layout_format_launch (const PrismGraph *graph,
                                  const PrismGraph *body)
{
  Builder b = { 0 };

  g_return_val_if_fail (graph != NULL && body != NULL, NULL);
  b.graph = graph;
  b.names = prism_graph_var_names (graph);
  return kernel_launch_string (&b, body);
}

/* Returns: (transfer full) */
char *
prism_graph_layout_format_tensor (const PrismGraph  *graph,
                                  const PrismTensor *tensor)
{
  Builder b = { 0 };

  g_return_val_if_fail (graph != NULL && tensor != NULL, NULL);
  b.graph = graph;
  b.names = prism_graph_var_names (graph);
  return tensor_label (&b, tensor);
}

static char *
smem_string (const PrismGraph *body)
{
  guint64 bytes = 0;
  g_autofree char *size = NULL;

  if (!prism_graph_layout_estimate_smem (body, &bytes))
    return g_strdup (_("depends on the sizes"));
  size = g_format_size_full (bytes, G_FORMAT_SIZE_IEC_UNITS);
  return g_strdup_printf (_("≈ %s (the search’s estimate)"), size);
}

/* Returns: (transfer full) */
char *
prism_graph_layout_format_smem (const PrismGraph *body)
{
  g_return_val_if_fail (body != NULL, NULL);
  return smem_string (body);
}

/* The markup lines every op of a custom kernel and the kernel itself show. */
static void
append_kernel_markup (const Builder    *b,
                      GString          *s,
                      guint             kernel_number,
                      const PrismGraph *body)
{
  g_autofree char *grid = dims_to_string (b->names, body->grid, body->grid_ndims, " × ", FALSE);
  g_autofree char *loop = prism_dim_to_string (body->forloop, b->names);
  g_autofree char *smem = smem_string (body);
  g_autofree char *threads = g_strdup_printf ("%u", body->block_threads);
  g_autofree char *title = g_strdup_printf (_("Custom kernel %u"), kernel_number);
  g_autofree char *text = NULL;

  text = g_markup_printf_escaped ("<b>%s</b>\n%s %s\n%s %s\n%s %s\n%s %s",
                                  title,
                                  _("Grid:"), grid,
                                  _("Loop range:"), loop,
                                  _("Threads per block:"), threads,
                                  _("Shared memory:"), smem);
  g_string_append (s, text);
}

static guint
add_node (Builder         *b,
          guint            op_id,
          PrismLayoutRole  role,
          char            *title,
          char            *subtitle,
          char            *detail,
          char            *tooltip)
{
  PrismLayoutNode node = { 0 };
  double w, h, width = 0, height = 0;

  node.op_id = op_id;
  node.role = role;
  node.title = title;
  node.subtitle = subtitle;
  node.detail = detail;
  node.tooltip = tooltip;

  prism_graph_paint_measure (b->pango, PRISM_GRAPH_FONT_TITLE, title, &w, &h);
  width = MAX (width, w);
  height += h;
  if (subtitle != NULL)
    {
      prism_graph_paint_measure (b->pango, PRISM_GRAPH_FONT_SUBTITLE, subtitle, &w, &h);
      width = MAX (width, w);
      height += h + PRISM_GRAPH_LAYOUT_LINE_GAP;
    }
  if (detail != NULL)
    {
      prism_graph_paint_measure (b->pango, PRISM_GRAPH_FONT_DETAIL, detail, &w, &h);
      width = MAX (width, w);
      height += h + PRISM_GRAPH_LAYOUT_LINE_GAP;
    }
  node.width = ceil (MAX (MIN_NODE_WIDTH, width + 2 * PRISM_GRAPH_LAYOUT_NODE_PAD_X));
  node.height = ceil (height + 2 * PRISM_GRAPH_LAYOUT_NODE_PAD_Y);

  g_array_append_val (b->layout->nodes, node);
  return b->layout->nodes->len - 1;
}

static void
add_edge (Builder *b,
          guint    tail,
          guint    head)
{
  PrismLayoutEdge edge = { 0 };

  edge.tail = tail;
  edge.head = head;
  g_array_append_val (b->layout->edges, edge);
}

/* Adds the node of one block-graph op; returns its index. */
static guint
add_block_node (Builder       *b,
                guint          kernel_index,
                guint          kernel_number,
                const PrismOp *kernel_op,
                guint          op_index)
{
  const PrismGraph *body = kernel_op->body;
  const PrismOp *op = prism_graph_op (body, op_index);
  const char *kind = prism_op_kind_to_string (op->kind);
  g_autoptr(GString) tip = g_string_new (NULL);
  g_autofree char *kind_markup = g_markup_printf_escaped ("<b>%s</b>", kind);
  PrismLayoutRole role;
  char *subtitle = NULL;
  char *detail = NULL;
  g_autofree char *line = NULL;

  g_string_append (tip, kind_markup);
  if (op->kind == PRISM_OP_INPUT)
    {
      const PrismTensor *tile = prism_graph_tensor (body, op->outputs[0]);
      g_autofree char *data = dims_to_string (b->names, op->data_dims, op->data_ndims, ", ", TRUE);
      g_autofree char *source = op->attrs.input_index < kernel_op->n_inputs
                                ? kernel_tensor_ref (b, kernel_op->inputs[op->attrs.input_index])
                                : g_strdup_printf (_("input %u"), op->attrs.input_index);

      role = PRISM_LAYOUT_ROLE_TILE_INPUT;
      subtitle = tensor_label (b, tile);
      detail = map_string (body, op);
      line = g_markup_printf_escaped ("\n%s %s\n%s %s\n%s %s\n%s",
                                      _("Tile of:"), source,
                                      _("Tile:"), subtitle,
                                      _("Data:"), data,
                                      detail);
    }
  else if (op->kind == PRISM_OP_OUTPUT)
    {
      const PrismTensor *tile = prism_graph_tensor (body, op->inputs[0]);
      g_autofree char *data = dims_to_string (b->names, op->data_dims, op->data_ndims, ", ", TRUE);
      g_autofree char *target = NULL;
      guint slot = 0;

      /* The kernel op's outputs are its body's OUTPUT ops, in order. */
      for (guint i = 0; i < op_index; i++)
        if (prism_graph_op (body, i)->kind == PRISM_OP_OUTPUT)
          slot++;
      target = slot < kernel_op->n_outputs ? kernel_tensor_ref (b, kernel_op->outputs[slot])
                                           : g_strdup_printf (_("output %u"), slot);
      role = PRISM_LAYOUT_ROLE_TILE_OUTPUT;
      subtitle = tensor_label (b, tile);
      detail = map_string (body, op);
      line = g_markup_printf_escaped ("\n%s %s\n%s %s\n%s %s\n%s",
                                      _("Writes:"), target,
                                      _("Tile:"), subtitle,
                                      _("Data:"), data,
                                      detail);
    }
  else
    {
      const PrismTensor *out = prism_graph_tensor (body, op->outputs[0]);
      GString *operands = g_string_new (NULL);
      g_autofree char *operand_list = NULL;
      const char *note;

      if (prism_op_kind_is_accum (op->kind))
        role = PRISM_LAYOUT_ROLE_ACCUM;
      else if (out->after_accum)
        role = PRISM_LAYOUT_ROLE_EPILOGUE;
      else
        role = PRISM_LAYOUT_ROLE_BLOCK_OP;
      for (guint i = 0; i < op->n_inputs; i++)
        {
          g_autofree char *shape = tensor_shape (b, prism_graph_tensor (body, op->inputs[i]));

          g_string_append_printf (operands, "%ss%u %s", i ? ", " : "", op->inputs[i], shape);
        }
      operand_list = g_string_free (operands, FALSE);
      subtitle = tensor_label (b, out);
      detail = prism_graph_layout_format_attrs (body, op);
      note = role == PRISM_LAYOUT_ROLE_ACCUM ? _("Accumulates over the loop")
             : role == PRISM_LAYOUT_ROLE_EPILOGUE ? _("Runs once after the loop") : NULL;
      line = g_markup_printf_escaped ("\n%s %s\n%s %s%s%s%s%s",
                                      _("Tile:"), subtitle,
                                      _("Operands:"), operand_list,
                                      detail ? "\n" : "", detail ? detail : "",
                                      note ? "\n" : "", note ? note : "");
    }
  g_string_append (tip, line);
  g_string_append (tip, "\n\n");
  append_kernel_markup (b, tip, kernel_number, body);

  return add_node (b, prism_op_id_make (kernel_index, op_index), role, g_strdup (kind),
                   subtitle, detail, g_string_free (g_steal_pointer (&tip), FALSE));
}

static guint
add_kernel_node (Builder *b,
                 guint    op_index)
{
  const PrismOp *op = prism_graph_op (b->graph, op_index);
  const char *kind = prism_op_kind_to_string (op->kind);
  g_autoptr(GString) tip = g_string_new (NULL);
  PrismLayoutRole role;
  char *title;
  char *subtitle = NULL;
  char *detail = NULL;

  if (op->kind == PRISM_OP_INPUT || op->kind == PRISM_OP_OUTPUT)
    {
      guint id = op->kind == PRISM_OP_INPUT ? op->outputs[0] : op->inputs[0];
      g_autofree char *name = NULL;
      g_autofree char *text = NULL;

      role = op->kind == PRISM_OP_INPUT ? PRISM_LAYOUT_ROLE_INPUT : PRISM_LAYOUT_ROLE_OUTPUT;
      title = g_strdup (op->name != NULL ? op->name : kind);
      subtitle = tensor_label (b, prism_graph_tensor (b->graph, id));
      name = op->name != NULL ? g_strdup_printf (" “%s”", op->name) : g_strdup ("");
      text = g_markup_printf_escaped ("<b>%s</b>%s\n%s t%u %s",
                                      kind, name,
                                      op->kind == PRISM_OP_INPUT ? _("Tensor:") : _("Reads:"),
                                      id, subtitle);
      g_string_append (tip, text);
    }
  else
    {
      GString *operands = g_string_new (NULL);
      g_autofree char *operand_list = NULL;
      g_autofree char *text = NULL;

      role = PRISM_LAYOUT_ROLE_OP;
      title = g_strdup (kind);
      subtitle = tensor_label (b, prism_graph_tensor (b->graph, op->outputs[0]));
      detail = prism_graph_layout_format_attrs (b->graph, op);
      for (guint i = 0; i < op->n_inputs; i++)
        {
          g_autofree char *ref = kernel_tensor_ref (b, op->inputs[i]);

          g_string_append_printf (operands, "%s%s", i ? ", " : "", ref);
        }
      operand_list = g_string_free (operands, FALSE);
      text = g_markup_printf_escaped ("<b>%s</b>\n%s t%u %s\n%s %s%s%s",
                                      kind,
                                      _("Output:"), op->outputs[0], subtitle,
                                      _("Operands:"), operand_list,
                                      detail ? "\n" : "", detail ? detail : "");
      g_string_append (tip, text);
    }

  return add_node (b, prism_op_id_make (-1, op_index), role, title, subtitle, detail,
                   g_string_free (g_steal_pointer (&tip), FALSE));
}

/* A custom kernel drawn as one box: its launch, and how much it hides. */
static void
add_collapsed_kernel_node (Builder *b,
                           guint    op_index,
                           guint    kernel_number)
{
  const PrismOp *op = prism_graph_op (b->graph, op_index);
  g_autoptr(GString) tip = g_string_new (NULL);
  guint n_ops = op->body->ops->len;
  g_autofree char *count = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u block op", "%u block ops",
                                                         n_ops), n_ops);
  g_autofree char *hint = g_markup_printf_escaped ("\n%s\n<i>%s</i>", count,
                                                   _("Double-click to expand"));

  append_kernel_markup (b, tip, kernel_number, op->body);
  g_string_append (tip, hint);
  add_node (b, prism_op_id_make (-1, op_index), PRISM_LAYOUT_ROLE_KERNEL,
            /* Translators: the title of a custom kernel in the graph, numbered from 1. */
            g_strdup_printf (_("kernel %u"), kernel_number),
            kernel_launch_string (b, op->body), g_steal_pointer (&count),
            g_string_free (g_steal_pointer (&tip), FALSE));
}

static gboolean
is_expanded_kernel (const Builder *b,
                    guint          op_index)
{
  const PrismOp *op = prism_graph_op (b->graph, op_index);

  return op->kind == PRISM_OP_KERNEL && op->body != NULL &&
         (b->collapsed == NULL || !g_hash_table_contains (b->collapsed, GUINT_TO_POINTER (op_index)));
}

static void
add_cluster (Builder *b,
             guint    op_index,
             guint    kernel_number)
{
  const PrismOp *op = prism_graph_op (b->graph, op_index);
  PrismLayoutCluster cluster = { 0 };
  g_autoptr(GString) tip = g_string_new (NULL);
  double w1, h1, w2, h2;

  cluster.op_id = prism_op_id_make (-1, op_index);
  /* Translators: the title of a custom kernel in the graph, numbered from 1. */
  cluster.title = g_strdup_printf (_("kernel %u"), kernel_number);
  cluster.subtitle = kernel_launch_string (b, op->body);
  append_kernel_markup (b, tip, kernel_number, op->body);
  cluster.tooltip = g_string_free (g_steal_pointer (&tip), FALSE);

  prism_graph_paint_measure (b->pango, PRISM_GRAPH_FONT_CLUSTER_TITLE, cluster.title, &w1, &h1);
  prism_graph_paint_measure (b->pango, PRISM_GRAPH_FONT_CLUSTER_SUBTITLE, cluster.subtitle, &w2, &h2);
  /* The header's width goes to Graphviz as the cluster label's, so that the
   * cluster is at least as wide as its titles. */
  cluster.width = ceil (MAX (w1, w2) + 2 * PRISM_GRAPH_LAYOUT_CLUSTER_PAD_X);
  cluster.header_height = ceil (h1 + h2 + PRISM_GRAPH_LAYOUT_LINE_GAP + 2 * PRISM_GRAPH_LAYOUT_CLUSTER_PAD_Y);
  g_array_append_val (b->layout->clusters, cluster);
}

/* Creates the nodes, edges and clusters, with sizes but no positions. */
static void
build (Builder *b)
{
  const PrismGraph *graph = b->graph;
  g_autofree int *first_node = g_new0 (int, graph->ops->len);  /* per kernel-level op */
  g_autofree int *last_node = g_new0 (int, graph->ops->len);
  GArray *cluster_of = g_array_new (FALSE, TRUE, sizeof (int));
  guint kernel_number = 0;

  for (guint i = 0; i < graph->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (graph, i);
      int none = -1;

      first_node[i] = b->layout->nodes->len;
      if (op->kind == PRISM_OP_KERNEL && op->body != NULL && !is_expanded_kernel (b, i))
        {
          add_collapsed_kernel_node (b, i, ++kernel_number);
          g_array_append_val (cluster_of, none);
        }
      else if (op->kind == PRISM_OP_KERNEL && op->body != NULL)
        {
          int cluster = b->layout->clusters->len;

          add_cluster (b, i, ++kernel_number);
          for (guint j = 0; j < op->body->ops->len; j++)
            {
              add_block_node (b, i, kernel_number, op, j);
              g_array_append_val (cluster_of, cluster);
            }
          if (op->body->ops->len == 0)
            {
              /* Graphviz drops empty clusters: keep the kernel visible. */
              add_node (b, PRISM_OP_ID_NONE, PRISM_LAYOUT_ROLE_EMPTY, g_strdup (_("empty")),
                        NULL, NULL, g_strdup (_("This custom kernel has no operators.")));
              g_array_append_val (cluster_of, cluster);
            }
        }
      else
        {
          add_kernel_node (b, i);
          g_array_append_val (cluster_of, none);
        }
      last_node[i] = b->layout->nodes->len;
    }
  b->cluster_of_node = (int *) (void *) g_array_free (cluster_of, FALSE);

  /* Edges: one per use of a tensor, from the node that makes it to the node
   * that reads it; custom kernels are entered and left through the block
   * INPUT and OUTPUT ops of their bodies. */
  for (guint i = 0; i < graph->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (graph, i);

      for (guint s = 0; s < op->n_inputs; s++)
        {
          const PrismTensor *tensor = prism_graph_tensor (graph, op->inputs[s]);
          const PrismOp *producer;
          int tail = -1;

          if (tensor->producer < 0)
            continue;
          producer = prism_graph_op (graph, tensor->producer);
          if (is_expanded_kernel (b, tensor->producer))
            {
              guint slot = 0;

              for (guint j = 0; j < producer->body->ops->len; j++)
                if (prism_graph_op (producer->body, j)->kind == PRISM_OP_OUTPUT)
                  {
                    if (slot == tensor->producer_slot)
                      tail = first_node[tensor->producer] + j;
                    slot++;
                  }
            }
          else if (first_node[tensor->producer] < last_node[tensor->producer])
            tail = first_node[tensor->producer];
          if (tail < 0)
            continue;

          if (is_expanded_kernel (b, i))
            {
              for (guint j = 0; j < op->body->ops->len; j++)
                {
                  const PrismOp *bop = prism_graph_op (op->body, j);

                  if (bop->kind == PRISM_OP_INPUT && bop->attrs.input_index == s)
                    add_edge (b, tail, first_node[i] + j);
                }
            }
          else
            add_edge (b, tail, first_node[i]);
        }

      if (is_expanded_kernel (b, i))
        {
          const PrismGraph *body = op->body;

          for (guint j = 0; j < body->ops->len; j++)
            {
              const PrismOp *bop = prism_graph_op (body, j);

              for (guint s = 0; s < bop->n_inputs; s++)
                {
                  const PrismTensor *tensor = prism_graph_tensor (body, bop->inputs[s]);

                  if (tensor->producer >= 0)
                    add_edge (b, first_node[i] + tensor->producer, first_node[i] + j);
                }
            }
        }
    }
}

/* A fixed-size HTML label: Graphviz reserves exactly the header's space at
 * the top of the cluster, whatever it thinks the fonts measure. */
static char *
header_label (const PrismLayoutCluster *cluster)
{
  return g_strdup_printf ("<TABLE BORDER=\"0\" CELLPADDING=\"0\" CELLSPACING=\"0\"><TR>"
                          "<TD FIXEDSIZE=\"TRUE\" WIDTH=\"%d\" HEIGHT=\"%d\"></TD>"
                          "</TR></TABLE>",
                          (int) cluster->width, (int) cluster->header_height);
}

static void
format_inches (char *buf, double points)
{
  g_ascii_formatd (buf, G_ASCII_DTOSTR_BUF_SIZE, "%.4f", points / 72.0);
}

/* Runs dot and copies the positions back into the layout (Graphviz units:
 * points, y up). Call with the lock held. */
static gboolean
run_graphviz (Builder  *b,
              GError  **error)
{
  PrismGraphLayout *layout = b->layout;
  g_autofree Agnode_t **agnodes = g_new0 (Agnode_t *, MAX (1, layout->nodes->len));
  g_autofree Agedge_t **agedges = g_new0 (Agedge_t *, MAX (1, layout->edges->len));
  g_autofree Agraph_t **agclusters = g_new0 (Agraph_t *, MAX (1, layout->clusters->len));
  Agraph_t *g;
  gboolean ok = TRUE;

  if (graphviz_context == NULL)
    graphviz_context = gvContext ();

  g = agopen ((char *) "prism", Agdirected, NULL);
  agattr (g, AGRAPH, (char *) "rankdir",
          (char *) (layout->direction == PRISM_GRAPH_DIRECTION_LEFT_TO_RIGHT ? "LR" : "TB"));
  agattr (g, AGRAPH, (char *) "nodesep", (char *) "0.3");
  agattr (g, AGRAPH, (char *) "ranksep", (char *) "0.35");
  agattr (g, AGRAPH, (char *) "label", (char *) "");
  agattr (g, AGRAPH, (char *) "labelloc", (char *) "t");
  agattr (g, AGRAPH, (char *) "labeljust", (char *) "l");
  agattr (g, AGRAPH, (char *) "margin", (char *) "12");
  agattr (g, AGNODE, (char *) "shape", (char *) "box");
  agattr (g, AGNODE, (char *) "fixedsize", (char *) "true");
  agattr (g, AGNODE, (char *) "label", (char *) "");
  agattr (g, AGNODE, (char *) "width", (char *) "1");
  agattr (g, AGNODE, (char *) "height", (char *) "0.5");
  agattr (g, AGEDGE, (char *) "arrowsize", (char *) "0.8");

  for (guint c = 0; c < layout->clusters->len; c++)
    {
      const PrismLayoutCluster *cluster = prism_graph_layout_cluster (layout, c);
      g_autofree char *name = g_strdup_printf ("cluster_%u", c);
      g_autofree char *label = header_label (cluster);
      char *html;

      agclusters[c] = agsubg (g, name, TRUE);
      html = agstrdup_html (g, label);
      agset (agclusters[c], (char *) "label", html);
      agstrfree (g, html);
    }

  for (guint i = 0; i < layout->nodes->len; i++)
    {
      const PrismLayoutNode *node = prism_graph_layout_node (layout, i);
      Agraph_t *parent = b->cluster_of_node[i] >= 0 ? agclusters[b->cluster_of_node[i]] : g;
      g_autofree char *name = g_strdup_printf ("n%u", i);
      char width[G_ASCII_DTOSTR_BUF_SIZE];
      char height[G_ASCII_DTOSTR_BUF_SIZE];

      agnodes[i] = agnode (parent, name, TRUE);
      format_inches (width, node->width);
      format_inches (height, node->height);
      agset (agnodes[i], (char *) "width", width);
      agset (agnodes[i], (char *) "height", height);
    }

  for (guint e = 0; e < layout->edges->len; e++)
    {
      const PrismLayoutEdge *edge = prism_graph_layout_edge (layout, e);

      agedges[e] = agedge (g, agnodes[edge->tail], agnodes[edge->head], NULL, TRUE);
    }

  if (gvLayout (graphviz_context, g, "dot") != 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   _("Graphviz could not lay the graph out"));
      ok = FALSE;
    }
  else
    {
      for (guint i = 0; i < layout->nodes->len; i++)
        {
          PrismLayoutNode *node = &g_array_index (layout->nodes, PrismLayoutNode, i);

          node->x = ND_coord (agnodes[i]).x - node->width / 2;
          node->y = ND_coord (agnodes[i]).y + node->height / 2;  /* the top, y up */
        }
      for (guint c = 0; c < layout->clusters->len; c++)
        {
          PrismLayoutCluster *cluster = &g_array_index (layout->clusters, PrismLayoutCluster, c);
          boxf bb = GD_bb (agclusters[c]);

          cluster->x = bb.LL.x;
          cluster->y = bb.UR.y;
          cluster->width = bb.UR.x - bb.LL.x;
          cluster->height = bb.UR.y - bb.LL.y;
        }
      for (guint e = 0; e < layout->edges->len; e++)
        {
          PrismLayoutEdge *edge = &g_array_index (layout->edges, PrismLayoutEdge, e);
          splines *spl = ED_spl (agedges[e]);

          /* Without a route the painter draws a straight line. */
          if (spl == NULL || spl->size < 1 || spl->list[0].size < 1)
            continue;
          edge->n_points = spl->list[0].size;
          edge->points = g_new (double, 2 * edge->n_points);
          for (guint p = 0; p < edge->n_points; p++)
            {
              edge->points[2 * p] = spl->list[0].list[p].x;
              edge->points[2 * p + 1] = spl->list[0].list[p].y;
            }
          if (spl->list[0].eflag)
            {
              edge->has_arrow = TRUE;
              edge->tip_x = spl->list[0].ep.x;
              edge->tip_y = spl->list[0].ep.y;
            }
        }
      gvFreeLayout (graphviz_context, g);
    }

  agclose (g);
  return ok;
}

/* Moves everything from Graphviz's frame (y up, origin anywhere) to ours
 * (y down, origin at the top-left of everything drawn, plus a margin). */
static void
normalize (PrismGraphLayout *layout)
{
  double min_x = G_MAXDOUBLE, max_x = -G_MAXDOUBLE, min_y = G_MAXDOUBLE, max_y = -G_MAXDOUBLE;
  double dx, top;

#define GROW(px, py) G_STMT_START { \
    min_x = MIN (min_x, (px)); max_x = MAX (max_x, (px)); \
    min_y = MIN (min_y, (py)); max_y = MAX (max_y, (py)); } G_STMT_END

  for (guint i = 0; i < layout->nodes->len; i++)
    {
      const PrismLayoutNode *node = prism_graph_layout_node (layout, i);

      GROW (node->x, node->y);
      GROW (node->x + node->width, node->y - node->height);
    }
  for (guint c = 0; c < layout->clusters->len; c++)
    {
      const PrismLayoutCluster *cluster = prism_graph_layout_cluster (layout, c);

      GROW (cluster->x, cluster->y);
      GROW (cluster->x + cluster->width, cluster->y - cluster->height);
    }
  for (guint e = 0; e < layout->edges->len; e++)
    {
      const PrismLayoutEdge *edge = prism_graph_layout_edge (layout, e);

      for (guint p = 0; p < edge->n_points; p++)
        GROW (edge->points[2 * p], edge->points[2 * p + 1]);
      if (edge->has_arrow)
        GROW (edge->tip_x, edge->tip_y);
    }
#undef GROW

  if (min_x > max_x)
    min_x = max_x = min_y = max_y = 0;

  dx = PRISM_GRAPH_LAYOUT_MARGIN - min_x;
  top = max_y + PRISM_GRAPH_LAYOUT_MARGIN;
  for (guint i = 0; i < layout->nodes->len; i++)
    {
      PrismLayoutNode *node = &g_array_index (layout->nodes, PrismLayoutNode, i);

      node->x += dx;
      node->y = top - node->y;
    }
  for (guint c = 0; c < layout->clusters->len; c++)
    {
      PrismLayoutCluster *cluster = &g_array_index (layout->clusters, PrismLayoutCluster, c);

      cluster->x += dx;
      cluster->y = top - cluster->y;
    }
  for (guint e = 0; e < layout->edges->len; e++)
    {
      PrismLayoutEdge *edge = &g_array_index (layout->edges, PrismLayoutEdge, e);

      for (guint p = 0; p < edge->n_points; p++)
        {
          edge->points[2 * p] += dx;
          edge->points[2 * p + 1] = top - edge->points[2 * p + 1];
        }
      edge->tip_x += dx;
      edge->tip_y = top - edge->tip_y;
    }
  layout->width = ceil (max_x - min_x + 2 * PRISM_GRAPH_LAYOUT_MARGIN);
  layout->height = ceil (max_y - min_y + 2 * PRISM_GRAPH_LAYOUT_MARGIN);
}

/* Stale requests waiting for the lock give up as soon as they get it, so a
 * burst of selections costs one layout, not one each. */
static PrismGraphLayout *
compute (PrismGraph           *graph,
         PrismGraphDirection   direction,
         const guint          *collapsed,
         guint                 n_collapsed,
         GCancellable         *cancellable,
         GError              **error)
{
  g_autoptr(PrismGraphLayout) layout = NULL;
  g_autoptr(GHashTable) collapsed_set = NULL;
  Builder b = { 0 };
  gboolean ok;

  if (n_collapsed > 0)
    {
      collapsed_set = g_hash_table_new (NULL, NULL);
      for (guint i = 0; i < n_collapsed; i++)
        g_hash_table_add (collapsed_set, GUINT_TO_POINTER (collapsed[i]));
    }

  layout = g_new0 (PrismGraphLayout, 1);
  layout->ref_count = 1;
  layout->graph = prism_graph_ref (graph);
  layout->direction = direction;
  layout->nodes = g_array_new (FALSE, TRUE, sizeof (PrismLayoutNode));
  layout->edges = g_array_new (FALSE, TRUE, sizeof (PrismLayoutEdge));
  layout->clusters = g_array_new (FALSE, TRUE, sizeof (PrismLayoutCluster));
  g_array_set_clear_func (layout->nodes, node_clear);
  g_array_set_clear_func (layout->edges, edge_clear);
  g_array_set_clear_func (layout->clusters, cluster_clear);

  b.graph = graph;
  b.names = prism_graph_var_names (graph);
  b.collapsed = collapsed_set;
  b.layout = layout;

  G_LOCK (graphviz);
  ok = !g_cancellable_set_error_if_cancelled (cancellable, error);
  if (ok)
    {
      b.pango = prism_graph_paint_create_context ();
      build (&b);
      g_clear_object (&b.pango);
      if (layout->nodes->len > 0)
        ok = run_graphviz (&b, error);
    }
  G_UNLOCK (graphviz);
  g_free (b.cluster_of_node);
  if (!ok)
    return NULL;

  normalize (layout);
  return g_steal_pointer (&layout);
}

static void
compute_thread (GTask        *task,
                gpointer      source_object,
                gpointer      task_data,
                GCancellable *cancellable)
{
  ComputeData *data = task_data;
  PrismGraphLayout *layout;
  GError *error = NULL;

  /* A newer request replaced this one before it started. */
  if (g_task_return_error_if_cancelled (task))
    return;

  layout = compute (data->graph, data->direction, (const guint *) (void *) data->collapsed->data,
                    data->collapsed->len, cancellable, &error);
  if (layout == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, layout, (GDestroyNotify) prism_graph_layout_unref);
}

/*
 * Public API
 */

PrismGraphLayout *
prism_graph_layout_compute (PrismGraph           *graph,
                            PrismGraphDirection   direction,
                            GError              **error)
{
  g_return_val_if_fail (graph != NULL, NULL);
  g_return_val_if_fail (graph->level == PRISM_LEVEL_KERNEL, NULL);

  return compute (graph, direction, NULL, 0, NULL, error);
}

PrismGraphLayout *
prism_graph_layout_compute_collapsed (PrismGraph           *graph,
                                      PrismGraphDirection   direction,
                                      const guint          *collapsed,
                                      guint                 n_collapsed,
                                      GError              **error)
{
  g_return_val_if_fail (graph != NULL, NULL);
  g_return_val_if_fail (graph->level == PRISM_LEVEL_KERNEL, NULL);
  g_return_val_if_fail (collapsed != NULL || n_collapsed == 0, NULL);

  return compute (graph, direction, collapsed, n_collapsed, NULL, error);
}

void
prism_graph_layout_compute_async (PrismGraph           *graph,
                                  PrismGraphDirection   direction,
                                  const guint          *collapsed,
                                  guint                 n_collapsed,
                                  GCancellable         *cancellable,
                                  GAsyncReadyCallback   callback,
                                  gpointer              user_data)
{
  g_autoptr(GTask) task = NULL;
  ComputeData *data;

  g_return_if_fail (graph != NULL);
  g_return_if_fail (collapsed != NULL || n_collapsed == 0);

  data = g_new0 (ComputeData, 1);
  data->graph = prism_graph_ref (graph);
  data->direction = direction;
  data->collapsed = g_array_sized_new (FALSE, FALSE, sizeof (guint), n_collapsed);
  if (n_collapsed > 0)
    g_array_append_vals (data->collapsed, collapsed, n_collapsed);

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, prism_graph_layout_compute_async);
  g_task_set_task_data (task, data, (GDestroyNotify) compute_data_free);
  g_task_run_in_thread (task, compute_thread);
}

PrismGraphLayout *
prism_graph_layout_compute_finish (GAsyncResult  *result,
                                   GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

PrismGraphLayout *
prism_graph_layout_ref (PrismGraphLayout *layout)
{
  g_return_val_if_fail (layout != NULL, NULL);
  g_atomic_int_inc (&layout->ref_count);
  return layout;
}

void
prism_graph_layout_unref (PrismGraphLayout *layout)
{
  if (layout == NULL || !g_atomic_int_dec_and_test (&layout->ref_count))
    return;
  g_array_unref (layout->nodes);
  g_array_unref (layout->edges);
  g_array_unref (layout->clusters);
  prism_graph_unref (layout->graph);
  g_free (layout);
}

int
prism_graph_layout_node_at (const PrismGraphLayout *layout,
                            double                  x,
                            double                  y)
{
  g_return_val_if_fail (layout != NULL, -1);

  for (guint i = layout->nodes->len; i > 0; i--)
    {
      const PrismLayoutNode *node = prism_graph_layout_node (layout, i - 1);

      if (x >= node->x && x <= node->x + node->width &&
          y >= node->y && y <= node->y + node->height)
        return i - 1;
    }
  return -1;
}

int
prism_graph_layout_cluster_at (const PrismGraphLayout *layout,
                               double                  x,
                               double                  y)
{
  g_return_val_if_fail (layout != NULL, -1);

  for (guint c = layout->clusters->len; c > 0; c--)
    {
      const PrismLayoutCluster *cluster = prism_graph_layout_cluster (layout, c - 1);

      if (x >= cluster->x && x <= cluster->x + cluster->width &&
          y >= cluster->y && y <= cluster->y + cluster->height)
        return c - 1;
    }
  return -1;
}

int
prism_graph_layout_find_node (const PrismGraphLayout *layout,
                              guint                   op_id)
{
  g_return_val_if_fail (layout != NULL, -1);

  for (guint i = 0; i < layout->nodes->len; i++)
    if (prism_graph_layout_node (layout, i)->op_id == op_id)
      return i;
  return -1;
}

int
prism_graph_layout_find_cluster (const PrismGraphLayout *layout,
                                 guint                   op_id)
{
  g_return_val_if_fail (layout != NULL, -1);

  for (guint c = 0; c < layout->clusters->len; c++)
    if (prism_graph_layout_cluster (layout, c)->op_id == op_id)
      return c;
  return -1;
}

gboolean
prism_graph_layout_is_collapsed (const PrismGraphLayout *layout,
                                 guint                   kernel)
{
  int index;

  g_return_val_if_fail (layout != NULL, FALSE);

  index = prism_graph_layout_find_node (layout, prism_op_id_make (-1, kernel));
  return index >= 0 && prism_graph_layout_node (layout, index)->role == PRISM_LAYOUT_ROLE_KERNEL;
}

guint
prism_graph_layout_shown_op (const PrismGraphLayout *layout,
                             guint                   op_id)
{
  int kernel;

  g_return_val_if_fail (layout != NULL, PRISM_OP_ID_NONE);

  if (op_id == PRISM_OP_ID_NONE)
    return PRISM_OP_ID_NONE;
  if (prism_graph_layout_find_node (layout, op_id) >= 0 ||
      prism_graph_layout_find_cluster (layout, op_id) >= 0)
    return op_id;
  kernel = prism_op_id_get_kernel (op_id);
  if (kernel >= 0 && prism_graph_layout_is_collapsed (layout, kernel) &&
      prism_op_id_get_op (op_id) < prism_graph_op (layout->graph, kernel)->body->ops->len)
    return prism_op_id_make (-1, kernel);
  return PRISM_OP_ID_NONE;
}

/**
 * prism_graph_layout_format_map:
 * @map: (array length=n_axes): per grid axis, a data dim or -1
 * @is_omap: -1 reads "sum" (an omap) rather than "rep" (an imap)
 *
 * Returns: (transfer full): "(x→rep, y→1)"
 */
char *
prism_graph_layout_format_map (const int *map,
                               guint      n_axes,
                               gboolean   is_omap)
{
  GString *s = g_string_new ("(");

  for (guint axis = 0; axis < n_axes && axis < PRISM_MAX_GRID_DIMS; axis++)
    {
      g_string_append_printf (s, "%s%s→", axis ? ", " : "", axis_names[axis]);
      if (map[axis] == PRISM_MAP_UNKNOWN)
        g_string_append_c (s, '?');
      else if (map[axis] == PRISM_MAP_REPLICATE)
        /* Translators: map notation; an omap axis whose blocks are summed, or an
         * imap axis along which the input is replicated. Keep it short. */
        g_string_append (s, is_omap ? C_("map", "sum") : C_("map", "rep"));
      else
        g_string_append_printf (s, "%d", map[axis]);
    }
  g_string_append_c (s, ')');
  return g_string_free (s, FALSE);
}

/* Returns: (transfer full): "1", "rep" or "?" */
char *
prism_graph_layout_format_fmap (int fmap)
{
  if (fmap == PRISM_MAP_UNKNOWN)
    return g_strdup ("?");
  if (fmap == PRISM_MAP_REPLICATE)
    return g_strdup (C_("map", "rep"));
  return g_strdup_printf ("%d", fmap);
}

gboolean
prism_graph_layout_estimate_smem (const PrismGraph *body,
                                  guint64          *out_bytes)
{
  g_return_val_if_fail (body != NULL, FALSE);
  g_return_val_if_fail (out_bytes != NULL, FALSE);

  /* The search's estimate (what its shared-memory limit is checked
   * against), so that the drawing, the table and Compare agree with it. */
  *out_bytes = 0;
  return prism_block_graph_smem_bytes (body, NULL, 0, out_bytes);
}
