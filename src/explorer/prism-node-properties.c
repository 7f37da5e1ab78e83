/* prism-node-properties.c — what one op of a graph is: kind, tensors, maps, launch
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "prism-node-properties"

#include "config.h"

#include <glib/gi18n.h>

#include "prism-node-properties.h"

struct _PrismNodeProperties
{
  GtkBox parent_instance;

  GtkLabel *title;
  GtkLabel *subtitle;
  GtkGrid *grid;
  GString *text;        /* what the grid shows, as plain lines */
  guint n_rows;
};

G_DEFINE_FINAL_TYPE (PrismNodeProperties, prism_node_properties, GTK_TYPE_BOX)

/*
 * Auxiliary methods
 */

static void
add_heading (PrismNodeProperties *self,
             const char          *heading)
{
  GtkWidget *label = gtk_label_new (heading);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_widget_add_css_class (label, "heading");
  if (self->n_rows > 0)
    gtk_widget_set_margin_top (label, 10);
  gtk_grid_attach (self->grid, label, 0, self->n_rows++, 2, 1);
  g_string_append_printf (self->text, "%s\n", heading);
}

static void
add_row (PrismNodeProperties *self,
         const char          *key,
         const char          *value)
{
  GtkWidget *k = gtk_label_new (key);
  GtkWidget *v = gtk_label_new (value);

  gtk_label_set_xalign (GTK_LABEL (k), 0);
  gtk_label_set_yalign (GTK_LABEL (k), 0);
  gtk_widget_add_css_class (k, "dim-label");
  gtk_label_set_xalign (GTK_LABEL (v), 0);
  gtk_label_set_wrap (GTK_LABEL (v), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (v), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_selectable (GTK_LABEL (v), TRUE);
  gtk_widget_set_hexpand (v, TRUE);
  gtk_grid_attach (self->grid, k, 0, self->n_rows, 1, 1);
  gtk_grid_attach (self->grid, v, 1, self->n_rows++, 1, 1);
  g_string_append_printf (self->text, "%s %s\n", key, value);
}

static char *
dims_string (const PrismGraph  *graph,
             PrismDim * const  *dims,
             guint              ndims,
             const char        *separator)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < ndims; i++)
    {
      g_autofree char *d = prism_dim_to_string (dims[i], prism_graph_var_names (graph));

      g_string_append_printf (s, "%s%s", i ? separator : "", d);
    }
  return g_string_free (s, FALSE);
}

/* The name a kernel-level tensor has in the program: the input that makes
 * it or the output that reads it. */
static const char *
tensor_name (const PrismGraph *graph,
             guint             id)
{
  const PrismTensor *tensor = prism_graph_tensor (graph, id);

  if (tensor->producer >= 0 && prism_graph_op (graph, tensor->producer)->kind == PRISM_OP_INPUT)
    return prism_graph_op (graph, tensor->producer)->name;
  for (guint i = 0; i < graph->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (graph, i);

      if (op->kind == PRISM_OP_OUTPUT && op->inputs[0] == id && op->name != NULL)
        return op->name;
    }
  return NULL;
}

/* One row per tensor: "t3" (or "s3" in a block graph), its name, shape and dtype. */
static void
add_tensors (PrismNodeProperties *self,
             const PrismGraph    *graph,
             const PrismGraph    *owner,
             const guint         *ids,
             guint                n_ids)
{
  for (guint i = 0; i < n_ids; i++)
    {
      g_autofree char *key = g_strdup_printf (owner->level == PRISM_LEVEL_KERNEL ? "t%u" : "s%u", ids[i]);
      g_autofree char *label = prism_graph_layout_format_tensor (graph, prism_graph_tensor (owner, ids[i]));
      const char *name = owner->level == PRISM_LEVEL_KERNEL ? tensor_name (owner, ids[i]) : NULL;
      g_autofree char *value = name != NULL ? g_strdup_printf ("“%s” %s", name, label) : NULL;

      add_row (self, key, value != NULL ? value : label);
    }
}

static void
add_launch (PrismNodeProperties *self,
            const PrismGraph    *graph,
            const PrismGraph    *body)
{
  g_autofree char *grid = dims_string (graph, body->grid, body->grid_ndims, " × ");
  g_autofree char *loop = prism_dim_to_string (body->forloop, prism_graph_var_names (graph));
  g_autofree char *threads = g_strdup_printf ("%u", body->block_threads);
  g_autofree char *smem = prism_graph_layout_format_smem (body);

  add_row (self, _("Grid:"), grid);
  add_row (self, _("Loop range:"), loop);
  add_row (self, _("Threads per block:"), threads);
  add_row (self, _("Shared memory:"), smem);
}

static guint
kernel_number (const PrismGraph *graph,
               guint             kernel)
{
  guint n = 0;

  for (guint i = 0; i <= kernel && i < graph->ops->len; i++)
    if (prism_graph_op (graph, i)->kind == PRISM_OP_KERNEL)
      n++;
  return n;
}

static void
show_kernel (PrismNodeProperties *self,
             const PrismGraph    *graph,
             guint                index)
{
  const PrismOp *op = prism_graph_op (graph, index);
  g_autofree char *title = g_strdup_printf (_("Custom kernel %u"), kernel_number (graph, index));
  guint n_ops = op->body->ops->len;
  g_autofree char *count = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u op", "%u ops", n_ops), n_ops);

  gtk_label_set_label (self->title, title);
  gtk_label_set_label (self->subtitle, _("Kernel-level operator that runs a block graph"));
  add_heading (self, _("Launch"));
  add_launch (self, graph, op->body);
  add_row (self, _("Block graph:"), count);
  add_heading (self, _("Inputs"));
  add_tensors (self, graph, graph, op->inputs, op->n_inputs);
  add_heading (self, _("Outputs"));
  add_tensors (self, graph, graph, op->outputs, op->n_outputs);
}

static void
show_kernel_op (PrismNodeProperties *self,
                const PrismGraph    *graph,
                guint                index)
{
  const PrismOp *op = prism_graph_op (graph, index);
  g_autofree char *attrs = prism_graph_layout_format_attrs (graph, op);
  const char *kind = prism_op_kind_to_string (op->kind);

  gtk_label_set_label (self->title, op->name != NULL ? op->name : kind);
  gtk_label_set_label (self->subtitle, op->kind == PRISM_OP_INPUT ? _("Program input")
                                       : op->kind == PRISM_OP_OUTPUT ? _("Program output")
                                       : _("Kernel-level operator"));
  add_row (self, _("Kind:"), kind);
  if (op->name != NULL)
    add_row (self, _("Name:"), op->name);
  if (attrs != NULL)
    add_row (self, _("Attributes:"), attrs);
  if (op->n_inputs > 0)
    {
      add_heading (self, _("Inputs"));
      add_tensors (self, graph, graph, op->inputs, op->n_inputs);
    }
  if (op->n_outputs > 0)
    {
      add_heading (self, _("Outputs"));
      add_tensors (self, graph, graph, op->outputs, op->n_outputs);
    }
}

static void
show_block_op (PrismNodeProperties *self,
               const PrismGraph    *graph,
               guint                kernel,
               guint                index)
{
  const PrismOp *kernel_op = prism_graph_op (graph, kernel);
  const PrismGraph *body = kernel_op->body;
  const PrismOp *op = prism_graph_op (body, index);
  const char *kind = prism_op_kind_to_string (op->kind);
  g_autofree char *attrs = prism_graph_layout_format_attrs (body, op);
  g_autofree char *where = g_strdup_printf (_("Block operator of custom kernel %u"),
                                            kernel_number (graph, kernel));

  gtk_label_set_label (self->title, kind);
  gtk_label_set_label (self->subtitle, where);
  add_row (self, _("Kind:"), kind);
  if (attrs != NULL)
    add_row (self, _("Attributes:"), attrs);

  if (op->kind == PRISM_OP_INPUT || op->kind == PRISM_OP_OUTPUT)
    {
      gboolean is_input = op->kind == PRISM_OP_INPUT;
      g_autofree char *data = dims_string (graph, op->data_dims, op->data_ndims, ", ");
      g_autofree char *data_label = g_strdup_printf ("[%s] %s", data, prism_dtype_to_string (op->data_dtype));
      g_autofree char *map = prism_graph_layout_format_map (is_input ? op->attrs.imap : op->attrs.omap,
                                                            body->grid_ndims, !is_input);

      add_heading (self, _("Maps"));
      add_row (self, is_input ? "imap" : "omap", map);
      if (is_input)
        {
          g_autofree char *fmap = prism_graph_layout_format_fmap (op->attrs.fmap);

          add_row (self, "fmap", fmap);
        }
      add_row (self, _("Data:"), data_label);
      if (is_input && op->attrs.input_index < kernel_op->n_inputs)
        {
          add_heading (self, _("Tile of"));
          add_tensors (self, graph, graph, &kernel_op->inputs[op->attrs.input_index], 1);
        }
      else if (!is_input)
        {
          guint slot = 0;

          /* The kernel's outputs are its body's OUTPUT ops, in order. */
          for (guint i = 0; i < index; i++)
            if (prism_graph_op (body, i)->kind == PRISM_OP_OUTPUT)
              slot++;
          if (slot < kernel_op->n_outputs)
            {
              add_heading (self, _("Writes"));
              add_tensors (self, graph, graph, &kernel_op->outputs[slot], 1);
            }
        }
    }
  else if (prism_op_kind_is_accum (op->kind))
    add_row (self, _("Loop:"), _("Accumulates over the loop"));
  else if (op->n_outputs > 0 && prism_graph_tensor (body, op->outputs[0])->after_accum)
    add_row (self, _("Loop:"), _("Runs once after the loop"));

  if (op->n_inputs > 0)
    {
      add_heading (self, _("Inputs"));
      add_tensors (self, graph, body, op->inputs, op->n_inputs);
    }
  if (op->n_outputs > 0)
    {
      add_heading (self, _("Outputs"));
      add_tensors (self, graph, body, op->outputs, op->n_outputs);
    }
  add_heading (self, _("Kernel"));
  add_launch (self, graph, body);
}

/*
 * GObject overrides
 */

static void
prism_node_properties_finalize (GObject *object)
{
  PrismNodeProperties *self = (PrismNodeProperties *)object;

  g_string_free (self->text, TRUE);

  G_OBJECT_CLASS (prism_node_properties_parent_class)->finalize (object);
}

static void
prism_node_properties_class_init (PrismNodePropertiesClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = prism_node_properties_finalize;
  gtk_widget_class_set_css_name (GTK_WIDGET_CLASS (klass), "nodeproperties");
}

static void
prism_node_properties_init (PrismNodeProperties *self)
{
  GtkWidget *label;

  self->text = g_string_new (NULL);
  gtk_orientable_set_orientation (GTK_ORIENTABLE (self), GTK_ORIENTATION_VERTICAL);
  gtk_box_set_spacing (GTK_BOX (self), 4);

  label = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_widget_add_css_class (label, "title-4");
  self->title = GTK_LABEL (label);
  gtk_box_append (GTK_BOX (self), label);

  label = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_widget_add_css_class (label, "dim-label");
  self->subtitle = GTK_LABEL (label);
  gtk_box_append (GTK_BOX (self), label);

  self->grid = GTK_GRID (gtk_grid_new ());
  gtk_grid_set_row_spacing (self->grid, 4);
  gtk_grid_set_column_spacing (self->grid, 12);
  gtk_widget_set_margin_top (GTK_WIDGET (self->grid), 8);
  gtk_box_append (GTK_BOX (self), GTK_WIDGET (self->grid));
}

/*
 * Public API
 */

GtkWidget *
prism_node_properties_new (void)
{
  return g_object_new (PRISM_TYPE_NODE_PROPERTIES, NULL);
}

/* Empties the panel. */
void
prism_node_properties_clear (PrismNodeProperties *self)
{
  GtkWidget *child;

  g_return_if_fail (PRISM_IS_NODE_PROPERTIES (self));

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->grid))) != NULL)
    gtk_grid_remove (self->grid, child);
  self->n_rows = 0;
  g_string_truncate (self->text, 0);
  gtk_label_set_label (self->title, "");
  gtk_label_set_label (self->subtitle, "");
}

/**
 * prism_node_properties_set_op:
 * @graph: (transfer none): a kernel graph; not kept
 * @op_id: an op of @graph or of a block graph (see prism_op_id_make()), or a
 *   custom kernel by its kernel-level op id
 *
 * Shows what the op is: its kind, the shapes and dtypes of what it reads and
 * writes, its attributes and maps, and for a custom kernel its launch and
 * the size of its block graph.
 *
 * Returns: %FALSE (and the panel empty) if @graph has no such op
 */
gboolean
prism_node_properties_set_op (PrismNodeProperties *self,
                              PrismGraph          *graph,
                              guint                op_id)
{
  int kernel = prism_op_id_get_kernel (op_id);
  guint index = prism_op_id_get_op (op_id);

  g_return_val_if_fail (PRISM_IS_NODE_PROPERTIES (self), FALSE);
  g_return_val_if_fail (graph != NULL, FALSE);

  prism_node_properties_clear (self);
  if (op_id == PRISM_OP_ID_NONE)
    return FALSE;
  if (kernel >= 0)
    {
      const PrismOp *kernel_op;

      if ((guint) kernel >= graph->ops->len)
        return FALSE;
      kernel_op = prism_graph_op (graph, kernel);
      if (kernel_op->kind != PRISM_OP_KERNEL || kernel_op->body == NULL || index >= kernel_op->body->ops->len)
        return FALSE;
      show_block_op (self, graph, kernel, index);
      return TRUE;
    }
  if (index >= graph->ops->len)
    return FALSE;
  if (prism_graph_op (graph, index)->kind == PRISM_OP_KERNEL && prism_graph_op (graph, index)->body != NULL)
    show_kernel (self, graph, index);
  else
    show_kernel_op (self, graph, index);
  return TRUE;
}

/* Returns: the heading of what is shown ("" when empty) */
const char *
prism_node_properties_get_title (PrismNodeProperties *self)
{
  g_return_val_if_fail (PRISM_IS_NODE_PROPERTIES (self), NULL);
  return gtk_label_get_label (self->title);
}

/**
 * prism_node_properties_get_text:
 *
 * Returns: (transfer full): everything the panel shows, as plain text lines
 *   ("Kind: matmul"), for the clipboard
 */
char *
prism_node_properties_get_text (PrismNodeProperties *self)
{
  g_return_val_if_fail (PRISM_IS_NODE_PROPERTIES (self), NULL);
  return g_strdup_printf ("%s\n%s\n%s", gtk_label_get_label (self->title),
                          gtk_label_get_label (self->subtitle), self->text->str);
}
