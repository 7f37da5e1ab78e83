/* prism-prune-samples-popover.c — the sampled pruning decisions of one tree chart segment
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Lists the decisions the search sampled for one (depth, reason) segment of
 * the search tree chart, each as the step tried and the evidence against
 * it; selecting one draws the partial graph the step would have extended,
 * with the op the step added (or the custom kernel it was tried in)
 * highlighted.
 */
#define G_LOG_DOMAIN "prism-prune-samples-popover"

#include "config.h"

#include <glib/gi18n.h>

#include "prism-format.h"
#include "prism-prune-samples-popover.h"

/* What the popover shows of one sample: copied, so that a reset of the
 * search model while it is open frees nothing it draws. */
typedef struct
{
  char *step;
  char *evidence;
  PrismGraph *graph;
  int marked_op;
} Item;

struct _PrismPruneSamplesPopover
{
  GtkPopover parent_instance;

  GtkLabel *title;
  GtkLabel *summary;
  GtkListBox *list;
  GtkLabel *caption;
  PrismGraphView *graph_view;
  GArray *items;               /* Item */
  int selected;
};

G_DEFINE_FINAL_TYPE (PrismPruneSamplesPopover, prism_prune_samples_popover, GTK_TYPE_POPOVER)

static void
item_clear (gpointer data)
{
  Item *item = data;

  g_free (item->step);
  g_free (item->evidence);
  g_clear_pointer (&item->graph, prism_graph_unref);
}

static GtkWidget *
label_new (const char *text,
           const char *css_class)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_max_width_chars (GTK_LABEL (label), 70);
  if (css_class != NULL)
    gtk_widget_add_css_class (label, css_class);
  return label;
}

static GtkWidget *
row_new (const Item *item)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);

  gtk_widget_set_margin_top (box, 4);
  gtk_widget_set_margin_bottom (box, 4);
  gtk_widget_set_margin_start (box, 6);
  gtk_widget_set_margin_end (box, 6);
  gtk_box_append (GTK_BOX (box), label_new (item->step, "monospace"));
  gtk_box_append (GTK_BOX (box), label_new (item->evidence, "dim-label"));
  return box;
}

static void
show_item (PrismPruneSamplesPopover *self,
           int                       index)
{
  const Item *item;

  self->selected = index;
  if (index < 0 || (guint) index >= self->items->len)
    {
      gtk_widget_set_visible (GTK_WIDGET (self->graph_view), FALSE);
      gtk_widget_set_visible (GTK_WIDGET (self->caption), FALSE);
      return;
    }
  item = &g_array_index (self->items, Item, index);
  prism_graph_view_set_graph (self->graph_view, item->graph);
  if (item->marked_op >= 0)
    {
      guint op = (guint) item->marked_op;
      prism_graph_view_set_highlight (self->graph_view, &op, 1);
      gtk_label_set_text (self->caption, _("The highlighted op is the step that was cut (or the custom kernel it was tried in)."));
    }
  else
    {
      prism_graph_view_set_highlight (self->graph_view, NULL, 0);
      gtk_label_set_text (self->caption, _("The step could not be built: the graph is the state it would have extended."));
    }
  gtk_widget_set_visible (GTK_WIDGET (self->graph_view), TRUE);
  gtk_widget_set_visible (GTK_WIDGET (self->caption), TRUE);
}

static void
row_selected_cb (PrismPruneSamplesPopover *self,
                 GtkListBoxRow            *row)
{
  show_item (self, row != NULL ? gtk_list_box_row_get_index (row) : -1);
}

static void
prism_prune_samples_popover_finalize (GObject *object)
{
  PrismPruneSamplesPopover *self = (PrismPruneSamplesPopover *)object;

  g_clear_pointer (&self->items, g_array_unref);

  G_OBJECT_CLASS (prism_prune_samples_popover_parent_class)->finalize (object);
}

static void
prism_prune_samples_popover_class_init (PrismPruneSamplesPopoverClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = prism_prune_samples_popover_finalize;
}

static void
prism_prune_samples_popover_init (PrismPruneSamplesPopover *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *scrolled = gtk_scrolled_window_new ();

  self->items = g_array_new (FALSE, TRUE, sizeof (Item));
  g_array_set_clear_func (self->items, item_clear);
  self->selected = -1;

  self->title = GTK_LABEL (label_new (NULL, "heading"));
  self->summary = GTK_LABEL (label_new (NULL, "dim-label"));
  self->list = GTK_LIST_BOX (gtk_list_box_new ());
  gtk_list_box_set_selection_mode (self->list, GTK_SELECTION_SINGLE);
  gtk_widget_add_css_class (GTK_WIDGET (self->list), "boxed-list");
  g_signal_connect_object (self->list, "row-selected", G_CALLBACK (row_selected_cb), self,
                           G_CONNECT_SWAPPED);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), GTK_WIDGET (self->list));
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled), GTK_POLICY_NEVER,
                                  GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_max_content_height (GTK_SCROLLED_WINDOW (scrolled), 220);
  gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (scrolled), TRUE);

  self->graph_view = PRISM_GRAPH_VIEW (prism_graph_view_new ());
  gtk_widget_set_size_request (GTK_WIDGET (self->graph_view), 520, 320);
  prism_graph_view_set_show_legend (self->graph_view, FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->graph_view), FALSE);
  self->caption = GTK_LABEL (label_new (NULL, "dim-label"));
  gtk_widget_set_visible (GTK_WIDGET (self->caption), FALSE);

  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->title));
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->summary));
  gtk_box_append (GTK_BOX (box), scrolled);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->graph_view));
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->caption));
  gtk_popover_set_child (GTK_POPOVER (self), box);
}

/*
 * Public API
 */

GtkWidget *
prism_prune_samples_popover_new (void)
{
  return g_object_new (PRISM_TYPE_PRUNE_SAMPLES_POPOVER, NULL);
}

/**
 * prism_prune_samples_popover_set_samples:
 * @title: what the segment is ("Depth 3: Shape mismatch")
 * @samples: (element-type PrismPruneSample): the segment's samples (copied)
 * @pruned: the branches the segment counts
 *
 * Lists @samples and draws the first one's graph.
 */
void
prism_prune_samples_popover_set_samples (PrismPruneSamplesPopover *self,
                                         const char               *title,
                                         GPtrArray                *samples,
                                         guint64                   pruned)
{
  GtkWidget *child;
  g_autofree char *count = NULL;
  g_autofree char *summary = NULL;

  g_return_if_fail (PRISM_IS_PRUNE_SAMPLES_POPOVER (self));
  g_return_if_fail (samples != NULL);

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->list))) != NULL)
    gtk_list_box_remove (self->list, child);
  g_array_set_size (self->items, 0);
  show_item (self, -1);

  for (guint i = 0; i < samples->len; i++)
    {
      const PrismPruneSample *ps = g_ptr_array_index (samples, i);
      Item item = { g_strdup (ps->step), g_strdup (ps->evidence), prism_graph_ref (ps->graph),
                    ps->marked_op };

      g_array_append_val (self->items, item);
      gtk_list_box_append (self->list, row_new (&item));
    }

  gtk_label_set_text (self->title, title);
  count = prism_format_exact (pruned);
  if (samples->len == 0)
    summary = g_strdup_printf (_("%s branches pruned; none was sampled (the search samples the first %u of each depth and reason, %u in all)."),
                               count, PRISM_SEARCH_SAMPLES_PER_BUCKET, PRISM_SEARCH_MAX_SAMPLES);
  else
    summary = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                            "%u sampled decision of %s branches pruned. Select one to see its graph.",
                                            "%u sampled decisions of %s branches pruned. Select one to see its graph.",
                                            samples->len),
                               samples->len, count);
  gtk_label_set_text (self->summary, summary);
  /* The first one drawn at once: the list box would select it on focus anyway. */
  if (self->items->len > 0)
    gtk_list_box_select_row (self->list, gtk_list_box_get_row_at_index (self->list, 0));
}

guint
prism_prune_samples_popover_get_n_samples (PrismPruneSamplesPopover *self)
{
  g_return_val_if_fail (PRISM_IS_PRUNE_SAMPLES_POPOVER (self), 0);
  return self->items->len;
}

/* The step of sample @index as listed (tests). */
const char *
prism_prune_samples_popover_get_step (PrismPruneSamplesPopover *self,
                                      guint                     index)
{
  g_return_val_if_fail (PRISM_IS_PRUNE_SAMPLES_POPOVER (self), NULL);
  g_return_val_if_fail (index < self->items->len, NULL);
  return g_array_index (self->items, Item, index).step;
}

/* Selects the row of sample @index, as a click on it does. */
void
prism_prune_samples_popover_select (PrismPruneSamplesPopover *self,
                                    guint                     index)
{
  g_return_if_fail (PRISM_IS_PRUNE_SAMPLES_POPOVER (self));
  g_return_if_fail (index < self->items->len);

  gtk_list_box_select_row (self->list, gtk_list_box_get_row_at_index (self->list, (int) index));
}

int
prism_prune_samples_popover_get_selected (PrismPruneSamplesPopover *self)
{
  g_return_val_if_fail (PRISM_IS_PRUNE_SAMPLES_POPOVER (self), -1);
  return self->selected;
}

/* Returns: (transfer none): the view that draws the selected sample's graph */
PrismGraphView *
prism_prune_samples_popover_get_graph_view (PrismPruneSamplesPopover *self)
{
  g_return_val_if_fail (PRISM_IS_PRUNE_SAMPLES_POPOVER (self), NULL);
  return self->graph_view;
}
