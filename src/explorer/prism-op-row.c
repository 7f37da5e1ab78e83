/* prism-op-row.c — one operator of a program, as a row of the explorer's op list
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "prism-op-row"

#include "config.h"

#include <glib/gi18n.h>

#include "prism-graph-layout.h"
#include "prism-op-row.h"

/* A row keeps display strings only, never a pointer into the graph, so the
 * list model stays valid whatever happens to the graph it was made from. */
struct _PrismOpRow
{
  GObject parent_instance;

  PrismOpKind kind;
  guint depth;
  char *index;
  char *operator;
  char *inputs;
  char *outputs;
  char *shape;
  char *dtype;
  char *details;
  GStrv style_classes;
  GListStore *children;
};

G_DEFINE_FINAL_TYPE (PrismOpRow, prism_op_row, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_KIND,
  PROP_DEPTH,
  PROP_INDEX,
  PROP_OPERATOR,
  PROP_INPUTS,
  PROP_OUTPUTS,
  PROP_SHAPE,
  PROP_DTYPE,
  PROP_DETAILS,
  PROP_STYLE_CLASSES,
  PROP_CHILDREN,
  N_PROPS
};

static GParamSpec *properties [N_PROPS];

/*
 * Auxiliary methods
 */

/* Kernel-level tensors are t0, t1 …; the tiles inside a custom kernel are
 * s0, s1 … (shared-memory tiles), numbered per kernel. */
static char *
tensor_list (const PrismGraph *graph, const guint *ids, guint n_ids)
{
  GString *s = g_string_new (NULL);
  const char *prefix = graph->level == PRISM_LEVEL_BLOCK ? "s" : "t";

  for (guint i = 0; i < n_ids; i++)
    g_string_append_printf (s, "%s%s%u", i ? ", " : "", prefix, ids[i]);
  return g_string_free (s, FALSE);
}

static char *
dims_product (const PrismGraph *top, PrismDim * const *dims, guint n_dims)
{
  const char * const *names = prism_graph_var_names (top);
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < n_dims; i++)
    {
      g_autofree char *d = prism_dim_to_string (dims[i], names);
      g_string_append_printf (s, "%s%s", i ? "×" : "", d);
    }
  return g_string_free (s, FALSE);
}

static char *
block_input_details (const PrismGraph *body, const PrismOp *kernel_op, const PrismOp *op)
{
  GString *s = g_string_new (NULL);
  g_autofree char *imap = NULL;
  g_autofree char *fmap = NULL;

  if (kernel_op != NULL && op->attrs.input_index < kernel_op->n_inputs)
    g_string_append_printf (s, _("tile of t%u"), kernel_op->inputs[op->attrs.input_index]);
  else
    g_string_append_printf (s, _("tile of input %u"), op->attrs.input_index);
  imap = prism_graph_layout_format_map (op->attrs.imap, body->grid_ndims, FALSE);
  fmap = prism_graph_layout_format_fmap (op->attrs.fmap);
  g_string_append_printf (s, " · imap %s · fmap %s", imap, fmap);
  return g_string_free (s, FALSE);
}

static char *
block_output_details (const PrismGraph *body, const PrismOp *kernel_op, guint op_index)
{
  const PrismOp *op = prism_graph_op (body, op_index);
  GString *s = g_string_new (NULL);
  g_autofree char *omap = NULL;
  guint slot = 0;

  /* The kernel op's outputs are its body's OUTPUT ops, in order. */
  for (guint i = 0; i < op_index; i++)
    if (prism_graph_op (body, i)->kind == PRISM_OP_OUTPUT)
      slot++;
  if (kernel_op != NULL && slot < kernel_op->n_outputs)
    g_string_append_printf (s, _("writes t%u"), kernel_op->outputs[slot]);
  else
    g_string_append_printf (s, _("writes output %u"), slot);
  omap = prism_graph_layout_format_map (op->attrs.omap, body->grid_ndims, TRUE);
  g_string_append_printf (s, " · omap %s", omap);
  return g_string_free (s, FALSE);
}

static char *
op_details (const PrismGraph *graph, const PrismGraph *top, const PrismOp *kernel_op,
            guint op_index)
{
  const PrismOp *op = prism_graph_op (graph, op_index);
  g_autoptr(GPtrArray) parts = g_ptr_array_new_with_free_func (g_free);
  gboolean block = graph->level == PRISM_LEVEL_BLOCK;

  if (op->name != NULL)
    /* Translators: the name of a program input or output, quoted. */
    g_ptr_array_add (parts, g_strdup_printf (_("“%s”"), op->name));

  switch (op->kind)
    {
    case PRISM_OP_INPUT:
      if (block)
        g_ptr_array_add (parts, block_input_details (graph, kernel_op, op));
      break;

    case PRISM_OP_OUTPUT:
      if (block)
        g_ptr_array_add (parts, block_output_details (graph, kernel_op, op_index));
      break;

    case PRISM_OP_SUM:
    case PRISM_OP_MAX:
    case PRISM_OP_MEAN:
    case PRISM_OP_TRANSPOSE:
    case PRISM_OP_CONSTANT:
    case PRISM_OP_CONCAT:
    case PRISM_OP_RMS_NORM:
    case PRISM_OP_ACCUM_SUM_TODIMX:
      g_ptr_array_add (parts, prism_graph_layout_format_attrs (graph, op));
      break;

    case PRISM_OP_KERNEL:
      if (op->body != NULL)
        {
          const PrismGraph *b = op->body;
          const char * const *names = prism_graph_var_names (top);
          g_autofree char *grid = dims_product (top, b->grid, b->grid_ndims);
          g_autofree char *loop = prism_dim_to_string (b->forloop, names);

          /* Translators: a custom kernel's launch: grid sizes such as 8×4,
           * threads per block, and the for-loop range. */
          g_ptr_array_add (parts, g_strdup_printf (_("grid %s · %u threads · loop %s"),
                                                   grid, b->block_threads, loop));
        }
      break;

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
    case PRISM_OP_ACCUM:
    case PRISM_OP_ACCUM_SUM:
    case PRISM_OP_ACCUM_MEAN:
    case PRISM_OP_ACCUM_RMS:
    case PRISM_OP_ACCUM_MAX:
    case PRISM_OP_ACCUM_RESCALE:
    case PRISM_OP_ACCUM_SUM_RESCALE:
    case PRISM_N_OPS:
    default:
      break;
    }

  if (block && op->kind != PRISM_OP_OUTPUT && op->n_outputs > 0 &&
      prism_graph_tensor (graph, op->outputs[0])->after_accum &&
      !prism_op_kind_is_accum (op->kind))
    g_ptr_array_add (parts, g_strdup (_("after the loop")));

  if (parts->len == 0)
    return NULL;
  g_ptr_array_add (parts, NULL);
  return g_strjoinv (" · ", (char **) parts->pdata);
}

static GStrv
op_style_classes (const PrismGraph *graph, PrismOpKind kind)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  g_strv_builder_add (builder, graph->level == PRISM_LEVEL_BLOCK ? "op-block" : "op-device");
  if (kind == PRISM_OP_KERNEL)
    g_strv_builder_add (builder, "op-kernel");
  else if (kind == PRISM_OP_INPUT || kind == PRISM_OP_OUTPUT)
    g_strv_builder_add (builder, "op-io");
  else if (prism_op_kind_is_accum (kind))
    g_strv_builder_add (builder, "op-accum");
  return g_strv_builder_end (builder);
}

static PrismOpRow *
op_row_new (const PrismGraph *graph,
            const PrismGraph *top,
            const PrismOp    *kernel_op,
            const char       *parent_index,
            guint             depth,
            guint             op_index)
{
  const PrismOp *op = prism_graph_op (graph, op_index);
  PrismOpRow *self = g_object_new (PRISM_TYPE_OP_ROW, NULL);
  g_autoptr(GPtrArray) shapes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) dtypes = g_ptr_array_new ();
  const guint *shown = op->outputs;
  guint n_shown = op->n_outputs;

  self->kind = op->kind;
  self->depth = depth;
  self->index = parent_index ? g_strdup_printf ("%s.%u", parent_index, op_index)
                             : g_strdup_printf ("%u", op_index);
  self->operator = g_strdup (prism_op_kind_to_string (op->kind));
  self->inputs = tensor_list (graph, op->inputs, op->n_inputs);
  self->outputs = tensor_list (graph, op->outputs, op->n_outputs);

  /* OUTPUT ops produce no tensor: show what they write, their input. */
  if (n_shown == 0)
    {
      shown = op->inputs;
      n_shown = op->n_inputs;
    }
  for (guint i = 0; i < n_shown; i++)
    {
      const PrismTensor *t = prism_graph_tensor (graph, shown[i]);

      g_ptr_array_add (shapes, prism_tensor_shape_to_string (top, t));
      g_ptr_array_add (dtypes, (gpointer) prism_dtype_to_string (t->dtype));
    }
  g_ptr_array_add (shapes, NULL);
  g_ptr_array_add (dtypes, NULL);
  self->shape = g_strjoinv ("\n", (char **) shapes->pdata);
  self->dtype = g_strjoinv ("\n", (char **) dtypes->pdata);
  self->details = op_details (graph, top, kernel_op, op_index);
  self->style_classes = op_style_classes (graph, op->kind);

  if (op->body != NULL)
    {
      self->children = g_list_store_new (PRISM_TYPE_OP_ROW);
      for (guint i = 0; i < op->body->ops->len; i++)
        {
          g_autoptr(PrismOpRow) child = op_row_new (op->body, top, op, self->index, depth + 1, i);
          g_list_store_append (self->children, child);
        }
    }

  return self;
}

/*
 * GObject overrides
 */

static void
prism_op_row_finalize (GObject *object)
{
  PrismOpRow *self = (PrismOpRow *)object;

  g_clear_pointer (&self->index, g_free);
  g_clear_pointer (&self->operator, g_free);
  g_clear_pointer (&self->inputs, g_free);
  g_clear_pointer (&self->outputs, g_free);
  g_clear_pointer (&self->shape, g_free);
  g_clear_pointer (&self->dtype, g_free);
  g_clear_pointer (&self->details, g_free);
  g_clear_pointer (&self->style_classes, g_strfreev);
  g_clear_object (&self->children);

  G_OBJECT_CLASS (prism_op_row_parent_class)->finalize (object);
}

static void
prism_op_row_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  PrismOpRow *self = PRISM_OP_ROW (object);

  switch (prop_id)
    {
    case PROP_KIND:
      g_value_set_uint (value, self->kind);
      break;

    case PROP_DEPTH:
      g_value_set_uint (value, self->depth);
      break;

    case PROP_INDEX:
      g_value_set_string (value, self->index);
      break;

    case PROP_OPERATOR:
      g_value_set_string (value, self->operator);
      break;

    case PROP_INPUTS:
      g_value_set_string (value, self->inputs);
      break;

    case PROP_OUTPUTS:
      g_value_set_string (value, self->outputs);
      break;

    case PROP_SHAPE:
      g_value_set_string (value, self->shape);
      break;

    case PROP_DTYPE:
      g_value_set_string (value, self->dtype);
      break;

    case PROP_DETAILS:
      g_value_set_string (value, self->details);
      break;

    case PROP_STYLE_CLASSES:
      g_value_set_boxed (value, self->style_classes);
      break;

    case PROP_CHILDREN:
      g_value_set_object (value, self->children);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
prism_op_row_class_init (PrismOpRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags flags = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->finalize = prism_op_row_finalize;
  object_class->get_property = prism_op_row_get_property;

  properties [PROP_KIND] =
    g_param_spec_uint ("kind", NULL, NULL, 0, PRISM_N_OPS - 1, 0, flags);
  properties [PROP_DEPTH] =
    g_param_spec_uint ("depth", NULL, NULL, 0, G_MAXUINT, 0, flags);
  properties [PROP_INDEX] =
    g_param_spec_string ("index", NULL, NULL, NULL, flags);
  properties [PROP_OPERATOR] =
    g_param_spec_string ("operator", NULL, NULL, NULL, flags);
  properties [PROP_INPUTS] =
    g_param_spec_string ("inputs", NULL, NULL, NULL, flags);
  properties [PROP_OUTPUTS] =
    g_param_spec_string ("outputs", NULL, NULL, NULL, flags);
  properties [PROP_SHAPE] =
    g_param_spec_string ("shape", NULL, NULL, NULL, flags);
  properties [PROP_DTYPE] =
    g_param_spec_string ("dtype", NULL, NULL, NULL, flags);
  properties [PROP_DETAILS] =
    g_param_spec_string ("details", NULL, NULL, NULL, flags);
  /* Bound to the cells' css-classes, so the stylesheet can tell kernels,
   * block ops, accumulators and inputs/outputs apart. */
  properties [PROP_STYLE_CLASSES] =
    g_param_spec_boxed ("style-classes", NULL, NULL, G_TYPE_STRV, flags);
  properties [PROP_CHILDREN] =
    g_param_spec_object ("children", NULL, NULL, G_TYPE_LIST_MODEL, flags);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
prism_op_row_init (PrismOpRow *self)
{
}

/*
 * Public API
 */

/**
 * prism_op_row_list_new:
 * @graph: a kernel graph
 *
 * Returns: (transfer full): a list of #PrismOpRow, one per op of @graph in
 *   order; a custom kernel's row has its block ops as children
 */
GListModel *
prism_op_row_list_new (const PrismGraph *graph)
{
  GListStore *store = g_list_store_new (PRISM_TYPE_OP_ROW);

  g_return_val_if_fail (graph != NULL, G_LIST_MODEL (store));

  for (guint i = 0; i < graph->ops->len; i++)
    {
      g_autoptr(PrismOpRow) row = op_row_new (graph, graph, NULL, NULL, 0, i);
      g_list_store_append (store, row);
    }
  return G_LIST_MODEL (store);
}

PrismOpKind
prism_op_row_get_kind (PrismOpRow *self)
{
  g_return_val_if_fail (PRISM_IS_OP_ROW (self), PRISM_OP_INPUT);
  return self->kind;
}

guint
prism_op_row_get_depth (PrismOpRow *self)
{
  g_return_val_if_fail (PRISM_IS_OP_ROW (self), 0);
  return self->depth;
}

const char *
prism_op_row_get_index (PrismOpRow *self)
{
  g_return_val_if_fail (PRISM_IS_OP_ROW (self), NULL);
  return self->index;
}

const char *
prism_op_row_get_operator (PrismOpRow *self)
{
  g_return_val_if_fail (PRISM_IS_OP_ROW (self), NULL);
  return self->operator;
}

const char *
prism_op_row_get_inputs (PrismOpRow *self)
{
  g_return_val_if_fail (PRISM_IS_OP_ROW (self), NULL);
  return self->inputs;
}

const char *
prism_op_row_get_outputs (PrismOpRow *self)
{
  g_return_val_if_fail (PRISM_IS_OP_ROW (self), NULL);
  return self->outputs;
}

const char *
prism_op_row_get_shape (PrismOpRow *self)
{
  g_return_val_if_fail (PRISM_IS_OP_ROW (self), NULL);
  return self->shape;
}

const char *
prism_op_row_get_dtype (PrismOpRow *self)
{
  g_return_val_if_fail (PRISM_IS_OP_ROW (self), NULL);
  return self->dtype;
}

const char *
prism_op_row_get_details (PrismOpRow *self)
{
  g_return_val_if_fail (PRISM_IS_OP_ROW (self), NULL);
  return self->details;
}

/**
 * prism_op_row_get_children:
 *
 * Returns: (transfer none) (nullable): the block ops of a custom kernel
 */
GListModel *
prism_op_row_get_children (PrismOpRow *self)
{
  g_return_val_if_fail (PRISM_IS_OP_ROW (self), NULL);
  return self->children ? G_LIST_MODEL (self->children) : NULL;
}
