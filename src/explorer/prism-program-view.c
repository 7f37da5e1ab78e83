/* prism-program-view.c — a program's name, description and operator list
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "prism-program-view"

#include "config.h"

#include <glib/gi18n.h>

#include "prism-op-row.h"
#include "prism-program-view.h"

struct _PrismProgramView
{
  GtkWidget parent_instance;

  /* Owned References */
  GListModel *ops;               /* PrismOpRow, the kernel-level ops */
  GtkTreeListModel *tree;        /* ops with each custom kernel's block ops below it */

  /* Template Widgets */
  GtkLabel *name_label;
  GtkLabel *description_label;
  GtkLabel *summary_label;
  GtkColumnView *column_view;
};

G_DEFINE_FINAL_TYPE (PrismProgramView, prism_program_view, GTK_TYPE_WIDGET)

/*
 * Auxiliary methods
 */

static GListModel *
create_child_model (gpointer item, gpointer user_data)
{
  GListModel *children = prism_op_row_get_children (PRISM_OP_ROW (item));

  return children ? g_object_ref (children) : NULL;
}

static char *
summarize (const PrismGraph *graph)
{
  guint n_inputs = 0, n_outputs = 0, n_ops = 0, n_block_ops = 0, n_kernels = 0;
  g_autoptr(GPtrArray) parts = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < graph->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (graph, i);

      if (op->kind == PRISM_OP_INPUT)
        n_inputs++;
      else if (op->kind == PRISM_OP_OUTPUT)
        n_outputs++;
      else if (op->kind == PRISM_OP_KERNEL)
        n_kernels++;
      else
        n_ops++;
      if (op->body != NULL)
        n_block_ops += op->body->ops->len;
    }

  g_ptr_array_add (parts, g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u input", "%u inputs",
                                                        n_inputs), n_inputs));
  if (n_ops > 0 || n_kernels == 0)
    g_ptr_array_add (parts, g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u operator",
                                                          "%u operators", n_ops), n_ops));
  if (n_kernels > 0)
    {
      g_ptr_array_add (parts, g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u custom kernel",
                                                            "%u custom kernels", n_kernels),
                                               n_kernels));
      g_ptr_array_add (parts, g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                            "%u operator inside kernels",
                                                            "%u operators inside kernels",
                                                            n_block_ops), n_block_ops));
    }
  g_ptr_array_add (parts, g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u output",
                                                        "%u outputs", n_outputs), n_outputs));
  g_ptr_array_add (parts, NULL);
  return g_strjoinv (" · ", (char **) parts->pdata);
}

/*
 * GObject overrides
 */

static void
prism_program_view_dispose (GObject *object)
{
  PrismProgramView *self = (PrismProgramView *)object;
  GtkWidget *child;

  gtk_widget_dispose_template (GTK_WIDGET (self), PRISM_TYPE_PROGRAM_VIEW);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))))
    gtk_widget_unparent (child);
  g_clear_object (&self->tree);
  g_clear_object (&self->ops);

  G_OBJECT_CLASS (prism_program_view_parent_class)->dispose (object);
}

static void
prism_program_view_class_init (PrismProgramViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = prism_program_view_dispose;

  /* The cell templates look PrismOpRow up by name. */
  g_type_ensure (PRISM_TYPE_OP_ROW);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/prism/Explorer/prism-program-view.ui");
  gtk_widget_class_bind_template_child (widget_class, PrismProgramView, name_label);
  gtk_widget_class_bind_template_child (widget_class, PrismProgramView, description_label);
  gtk_widget_class_bind_template_child (widget_class, PrismProgramView, summary_label);
  gtk_widget_class_bind_template_child (widget_class, PrismProgramView, column_view);
  gtk_widget_class_set_css_name (widget_class, "programview");
}

static void
prism_program_view_init (PrismProgramView *self)
{
  g_autoptr(GtkSingleSelection) selection = NULL;

  gtk_widget_init_template (GTK_WIDGET (self));

  self->ops = G_LIST_MODEL (g_list_store_new (PRISM_TYPE_OP_ROW));
  /* autoexpand: block ops are shown under their kernel from the start. */
  self->tree = gtk_tree_list_model_new (g_object_ref (self->ops), FALSE, TRUE,
                                        create_child_model, NULL, NULL);
  selection = gtk_single_selection_new (g_object_ref (G_LIST_MODEL (self->tree)));
  gtk_single_selection_set_autoselect (selection, FALSE);
  gtk_single_selection_set_can_unselect (selection, TRUE);
  gtk_column_view_set_model (self->column_view, GTK_SELECTION_MODEL (selection));
}

/*
 * Public API
 */

GtkWidget *
prism_program_view_new (void)
{
  return g_object_new (PRISM_TYPE_PROGRAM_VIEW, NULL);
}

/**
 * prism_program_view_set_program:
 * @graph: (nullable): a kernel graph; %NULL clears the view
 * @title: (nullable): the name to show, by default the graph's
 * @description: (nullable): the description to show, by default the graph's
 *
 * Shows @graph; nothing of it is kept.
 */
void
prism_program_view_set_program (PrismProgramView *self,
                                const PrismGraph *graph,
                                const char       *title,
                                const char       *description)
{
  g_autoptr(GListModel) rows = NULL;
  g_autofree char *summary = NULL;
  guint n_old;

  g_return_if_fail (PRISM_IS_PROGRAM_VIEW (self));

  if (graph != NULL)
    {
      rows = prism_op_row_list_new (graph);
      summary = summarize (graph);
      if (title == NULL)
        title = graph->name ? graph->name : _("Unnamed program");
      if (description == NULL)
        description = graph->description;
    }
  else
    {
      title = NULL;
      description = NULL;
    }

  gtk_label_set_label (self->name_label, title);
  gtk_label_set_label (self->description_label, description);
  gtk_widget_set_visible (GTK_WIDGET (self->description_label),
                          description != NULL && *description != '\0');
  gtk_label_set_label (self->summary_label, summary);

  /* Replace the rows in one splice so the view sees a single change. */
  n_old = g_list_model_get_n_items (self->ops);
  if (rows != NULL)
    {
      guint n_new = g_list_model_get_n_items (rows);
      g_autofree gpointer *items = g_new0 (gpointer, n_new + 1);

      for (guint i = 0; i < n_new; i++)
        items[i] = g_list_model_get_item (rows, i);
      g_list_store_splice (G_LIST_STORE (self->ops), 0, n_old, items, n_new);
      for (guint i = 0; i < n_new; i++)
        g_object_unref (items[i]);
    }
  else
    g_list_store_remove_all (G_LIST_STORE (self->ops));
}

/**
 * prism_program_view_get_ops:
 *
 * Returns: (transfer none): the #PrismOpRow of each kernel-level op shown
 */
GListModel *
prism_program_view_get_ops (PrismProgramView *self)
{
  g_return_val_if_fail (PRISM_IS_PROGRAM_VIEW (self), NULL);
  return self->ops;
}
