/* prism-candidates-view.c — the verified candidates: a sortable table, the
 * selected one's graph and evidence, or two side by side
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "prism-candidates-view"

#include "config.h"

#include <math.h>
#include <glib/gi18n.h>

#include "prism-candidate-column.h"
#include "prism-candidate-info.h"
#include "prism-candidates-view.h"
#include "prism-column-title.h"
#include "prism-format.h"


struct _PrismCandidatesView
{
  GtkWidget parent_instance;

  /* Owned References */
  PrismSearchModel *model;
  GtkFilterListModel *filtered;       /* the store, less the rows the filter hides */
  GtkCustomFilter *filter;
  char **filter_terms;                /* the filter's text, split at spaces (NULL: none) */
  gboolean setting_filter;            /* set_filter() is writing the entry */
  GtkSortListModel *sorted;
  GtkMultiSelection *selection;
  PrismCandidateRow *selected;        /* the first selected row, or NULL */
  gulong changed_handler;

  /* Template Widgets */
  GtkPaned *paned;
  GtkLabel *count_label;
  GtkLabel *hint_label;
  GtkSearchEntry *filter_entry;
  GtkColumnView *column_view;
  GtkStack *detail_stack;
  PrismGraphView *graph_view;
  GtkBox *verification_box;
  PrismCompareView *compare_view;

  GtkColumnViewColumn *columns[PRISM_CANDIDATE_N_COLUMNS];
  GtkColumnViewColumn *compare_column;
  GtkButton *clear_compare_button;
  guint n_selected;
  GPtrArray *pinned;                  /* PrismCandidateRow, at most 2, oldest first */
  double scroll_to;                   /* the table's scroll position to restore, or -1 */
  guint scroll_to_row;                /* a row selected while hidden, to show when shown (or G_MAXUINT) */
  gulong rows_changed_handler;
};

G_DEFINE_FINAL_TYPE (PrismCandidatesView, prism_candidates_view, GTK_TYPE_WIDGET)

static void update_count       (PrismCandidatesView *self);
static void scroll_to_position (GtkWidget           *widget,
                                guint                position);

enum {
  PROP_0,
  PROP_MODEL,
  PROP_SELECTED,
  PROP_N_SELECTED,
  N_PROPS
};

static GParamSpec *properties [N_PROPS];

/*
 * Auxiliary methods
 */

/* The # column's order: the run's candidates by id, then graphs from
 * elsewhere by their number in their file. */
static int
compare_ids (gconstpointer a,
             gconstpointer b,
             gpointer      user_data)
{
  PrismCandidateRow *x = (PrismCandidateRow *) a;
  PrismCandidateRow *y = (PrismCandidateRow *) b;
  gboolean ex = prism_candidate_row_is_external (x);
  gboolean ey = prism_candidate_row_is_external (y);
  guint ix = prism_candidate_row_get_id (x);
  guint iy = prism_candidate_row_get_id (y);

  if (ex != ey)
    return ex ? GTK_ORDERING_LARGER : GTK_ORDERING_SMALLER;
  return ix < iy ? GTK_ORDERING_SMALLER : ix > iy ? GTK_ORDERING_LARGER : GTK_ORDERING_EQUAL;
}

static void
update_cell (GtkListItem *item)
{
  PrismCandidateColumn column = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (item), "column"));
  PrismCandidateRow *row = gtk_list_item_get_item (item);
  GtkWidget *box = gtk_list_item_get_child (item);
  GtkWidget *label = gtk_widget_get_first_child (box);
  GtkWidget *caption = gtk_widget_get_next_sibling (label);
  g_autofree char *text = NULL;

  if (row == NULL)
    return;
  text = prism_candidate_column_text (row, column);
  gtk_label_set_label (GTK_LABEL (label), text);

  /* Say whether a speedup is the cost model's or the GPU's. */
  if (caption != NULL)
    gtk_label_set_label (GTK_LABEL (caption),
                         prism_candidate_row_get_measured (row) ? _("measured") : _("predicted"));
}

/* Tooltips are asked for rather than set at every bind: setting one makes
 * GTK look up the pointer, a round trip to the display server per cell. */
static gboolean
cell_query_tooltip_cb (GtkWidget   *box,
                       int          x,
                       int          y,
                       gboolean     keyboard_mode,
                       GtkTooltip  *tooltip,
                       GtkListItem *item)
{
  PrismCandidateColumn column = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (item), "column"));
  PrismCandidateRow *row = gtk_list_item_get_item (item);

  if (row == NULL)
    return FALSE;
  if (column == PRISM_CANDIDATE_COLUMN_SPEEDUP)
    gtk_tooltip_set_text (tooltip, prism_candidate_row_get_measured (row)
                                   ? _("Measured on the GPU")
                                   : _("Predicted by the cost model (no GPU measurement)"));
  else if (column == PRISM_CANDIDATE_COLUMN_MEASURED && prism_candidate_row_get_measured (row))
    gtk_tooltip_set_text (tooltip, _("Measured on the GPU; in brackets, how far that is from the cost "
                                     "model's prediction (+: slower than predicted)"));
  else if (column == PRISM_CANDIDATE_COLUMN_SMEM)
    gtk_tooltip_set_text (tooltip, _("Shared memory of the tiles of every custom kernel together, one "
                                     "copy of each, at the candidate's sizes; the Kernel page gives each "
                                     "launch's shared memory with its pipeline stages and padding"));
  else if (column == PRISM_CANDIDATE_COLUMN_VERIFICATION && prism_candidate_row_get_message (row) != NULL)
    gtk_tooltip_set_text (tooltip, prism_candidate_row_get_message (row));
  else
    return FALSE;
  return TRUE;
}

static void
row_notify_cb (GtkListItem *item)
{
  update_cell (item);
}

static void
cell_setup_cb (GtkSignalListItemFactory *factory,
               GtkListItem              *item,
               gpointer                  user_data)
{
  PrismCandidateColumn column = GPOINTER_TO_UINT (user_data);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *label = gtk_label_new (NULL);

  g_object_set_data (G_OBJECT (item), "column", user_data);
  gtk_box_append (GTK_BOX (box), label);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  switch (column)
    {
    case PRISM_CANDIDATE_COLUMN_ID:
    case PRISM_CANDIDATE_COLUMN_KERNELS:
    case PRISM_CANDIDATE_COLUMN_SMEM:
    case PRISM_CANDIDATE_COLUMN_FOUND:
      gtk_label_set_xalign (GTK_LABEL (label), 1);
      gtk_widget_set_hexpand (label, TRUE);
      gtk_widget_add_css_class (label, "numeric");
      break;
    case PRISM_CANDIDATE_COLUMN_SPEEDUP:
      {
        /* Says whether the speedup (and so the time) is predicted or measured. */
        GtkWidget *caption = gtk_label_new (NULL);

        gtk_label_set_xalign (GTK_LABEL (label), 1);
        gtk_widget_set_hexpand (label, TRUE);
        gtk_widget_add_css_class (label, "numeric");
        gtk_widget_add_css_class (label, "speedup");
        gtk_widget_add_css_class (caption, "dim-label");
        gtk_widget_add_css_class (caption, "caption");
        gtk_label_set_width_chars (GTK_LABEL (caption), 9);
        gtk_label_set_xalign (GTK_LABEL (caption), 0);
        gtk_box_append (GTK_BOX (box), caption);
      }
      break;
    case PRISM_CANDIDATE_COLUMN_TIME:
    case PRISM_CANDIDATE_COLUMN_MEASURED:
      gtk_label_set_xalign (GTK_LABEL (label), 1);
      gtk_widget_set_hexpand (label, TRUE);
      gtk_widget_add_css_class (label, "numeric");
      break;
    case PRISM_CANDIDATE_COLUMN_PARAMS:
      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_widget_add_css_class (label, "monospace");
      gtk_widget_add_css_class (label, "caption");
      break;
    case PRISM_CANDIDATE_COLUMN_VERIFICATION:
    default:
      gtk_label_set_xalign (GTK_LABEL (label), 0);
      break;
    }
  if (column == PRISM_CANDIDATE_COLUMN_SPEEDUP || column == PRISM_CANDIDATE_COLUMN_VERIFICATION || column == PRISM_CANDIDATE_COLUMN_SMEM)
    {
      gtk_widget_set_has_tooltip (box, TRUE);
      g_signal_connect (box, "query-tooltip", G_CALLBACK (cell_query_tooltip_cb), item);
    }
  gtk_list_item_set_child (item, box);
}

static void
cell_bind_cb (GtkSignalListItemFactory *factory,
              GtkListItem              *item,
              gpointer                  user_data)
{
  PrismCandidateColumn column = GPOINTER_TO_UINT (user_data);
  PrismCandidateRow *row = gtk_list_item_get_item (item);

  update_cell (item);
  /* Only a GPU measurement changes a row after it is shown. */
  if (column == PRISM_CANDIDATE_COLUMN_SPEEDUP || column == PRISM_CANDIDATE_COLUMN_TIME || column == PRISM_CANDIDATE_COLUMN_MEASURED)
    {
      gulong id = g_signal_connect_swapped (row, "notify::measured-us",
                                            G_CALLBACK (row_notify_cb), item);
      g_object_set_data (G_OBJECT (item), "notify-id", GSIZE_TO_POINTER (id));
    }
}

static void
cell_unbind_cb (GtkSignalListItemFactory *factory,
                GtkListItem              *item,
                gpointer                  user_data)
{
  gulong id = GPOINTER_TO_SIZE (g_object_get_data (G_OBJECT (item), "notify-id"));
  PrismCandidateRow *row = gtk_list_item_get_item (item);

  if (id != 0 && row != NULL)
    g_signal_handler_disconnect (row, id);
  g_object_set_data (G_OBJECT (item), "notify-id", NULL);
}

/* The Compare column: a check box per row.  Two ticked rows are compared
 * side by side; ticking a third unticks the oldest.  (GTK 4.8's column
 * view does not extend a selection with Ctrl+click, so comparing cannot
 * rely on selecting two rows.) */

static void update_detail (PrismCandidatesView *self);

static void
pin_changed (PrismCandidatesView *self,
             PrismCandidateRow   *row,
             gboolean             pinned)
{
  gboolean known;
  guint index;

  if (row == NULL)
    return;
  known = g_ptr_array_find (self->pinned, row, &index);
  if (pinned == known)
    return;
  if (pinned)
    {
      g_ptr_array_add (self->pinned, g_object_ref (row));
      if (self->pinned->len > 2)
        {
          g_autoptr(PrismCandidateRow) oldest = g_object_ref (g_ptr_array_index (self->pinned, 0));

          g_ptr_array_remove_index (self->pinned, 0);
          prism_candidate_row_set_pinned (oldest, FALSE);
        }
    }
  else
    g_ptr_array_remove_index (self->pinned, index);
  prism_candidate_row_set_pinned (row, pinned);
  update_detail (self);
}

static void
compare_toggled_cb (GtkCheckButton *check,
                    GtkListItem    *item)
{
  PrismCandidatesView *self = g_object_get_data (G_OBJECT (item), "view");

  pin_changed (self, gtk_list_item_get_item (item), gtk_check_button_get_active (check));
}

static void
compare_setup_cb (GtkSignalListItemFactory *factory,
                  GtkListItem              *item,
                  PrismCandidatesView      *self)
{
  GtkWidget *check = gtk_check_button_new ();

  gtk_widget_set_halign (check, GTK_ALIGN_CENTER);
  gtk_widget_set_tooltip_text (check, _("Compare this candidate with another one"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (check), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Compare"), -1);
  g_object_set_data (G_OBJECT (item), "view", self);
  g_signal_connect (check, "toggled", G_CALLBACK (compare_toggled_cb), item);
  gtk_list_item_set_child (item, check);
}

static void
compare_bind_cb (GtkSignalListItemFactory *factory,
                 GtkListItem              *item,
                 PrismCandidatesView      *self)
{
  GBinding *binding = g_object_bind_property (gtk_list_item_get_item (item), "pinned",
                                              gtk_list_item_get_child (item), "active",
                                              G_BINDING_SYNC_CREATE);

  g_object_set_data (G_OBJECT (item), "binding", binding);
}

static void
compare_unbind_cb (GtkSignalListItemFactory *factory,
                   GtkListItem              *item,
                   PrismCandidatesView      *self)
{
  GBinding *binding = g_object_steal_data (G_OBJECT (item), "binding");

  if (binding != NULL)
    g_binding_unbind (binding);
}

static void
add_compare_column (PrismCandidatesView *self)
{
  g_autoptr(GtkListItemFactory) factory = gtk_signal_list_item_factory_new ();
  g_autoptr(GtkColumnViewColumn) column = NULL;

  g_signal_connect (factory, "setup", G_CALLBACK (compare_setup_cb), self);
  g_signal_connect (factory, "bind", G_CALLBACK (compare_bind_cb), self);
  g_signal_connect (factory, "unbind", G_CALLBACK (compare_unbind_cb), self);
  column = gtk_column_view_column_new (C_("candidates column", "Compare"), g_object_ref (factory));
  prism_column_title_fit (self->column_view, column, 76);
  gtk_column_view_append_column (self->column_view, column);
  self->compare_column = column;
}

static void
clear_compare_cb (PrismCandidatesView *self)
{
  prism_candidates_view_clear_compare (self);
}

static void
add_columns (PrismCandidatesView *self)
{
  static const int widths[PRISM_CANDIDATE_N_COLUMNS] = { 44, 136, 84, 88, 76, 84, 150, 130, 102 };

  for (PrismCandidateColumn c = 0; c < PRISM_CANDIDATE_N_COLUMNS; c++)
    {
      g_autoptr(GtkListItemFactory) factory = gtk_signal_list_item_factory_new ();
      g_autoptr(GtkColumnViewColumn) column = NULL;
      GtkExpression *expression;
      GtkSorter *sorter;

      g_signal_connect (factory, "setup", G_CALLBACK (cell_setup_cb), GUINT_TO_POINTER (c));
      g_signal_connect (factory, "bind", G_CALLBACK (cell_bind_cb), GUINT_TO_POINTER (c));
      g_signal_connect (factory, "unbind", G_CALLBACK (cell_unbind_cb), GUINT_TO_POINTER (c));

      column = gtk_column_view_column_new (prism_candidate_column_title (c), g_object_ref (factory));
      expression = gtk_property_expression_new (PRISM_TYPE_CANDIDATE_ROW, NULL, prism_candidate_column_property (c));
      if (c == PRISM_CANDIDATE_COLUMN_PARAMS)
        sorter = GTK_SORTER (gtk_string_sorter_new (expression));
      else if (c == PRISM_CANDIDATE_COLUMN_ID)
        {
          gtk_expression_unref (expression);
          sorter = GTK_SORTER (gtk_custom_sorter_new (compare_ids, NULL, NULL));
        }
      else
        sorter = GTK_SORTER (gtk_numeric_sorter_new (expression));
      gtk_column_view_column_set_sorter (column, sorter);
      g_object_unref (sorter);
      gtk_column_view_column_set_resizable (column, TRUE);
      prism_column_title_fit (self->column_view, column, widths[c]);
      if (c == PRISM_CANDIDATE_COLUMN_PARAMS)
        gtk_column_view_column_set_expand (column, TRUE);
      gtk_column_view_append_column (self->column_view, column);
      self->columns[c] = column;
    }
}

static GtkWidget *
pane_label (GtkBox     *box,
            const char *text,
            const char *css_class)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  if (css_class != NULL)
    gtk_widget_add_css_class (label, css_class);
  gtk_box_append (box, label);
  return label;
}

static void
pane_heading (GtkBox     *box,
              const char *text)
{
  GtkWidget *label = pane_label (box, text, "heading");

  gtk_widget_add_css_class (label, "verification-heading");
}

static void
pane_field (GtkBox     *box,
            const char *key,
            const char *value)
{
  GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  GtkWidget *k = gtk_label_new (key);
  GtkWidget *v = gtk_label_new (value);

  gtk_label_set_xalign (GTK_LABEL (k), 0);
  gtk_label_set_width_chars (GTK_LABEL (k), 12);
  gtk_label_set_max_width_chars (GTK_LABEL (k), 16);
  gtk_widget_add_css_class (k, "dim-label");
  gtk_label_set_xalign (GTK_LABEL (v), 0);
  gtk_label_set_wrap (GTK_LABEL (v), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (v), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_selectable (GTK_LABEL (v), TRUE);
  gtk_widget_set_hexpand (v, TRUE);
  gtk_box_append (GTK_BOX (row), k);
  gtk_box_append (GTK_BOX (row), v);
  gtk_box_append (box, row);
}

static char *
seeds_text (GArray *seeds)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < seeds->len; i++)
    g_string_append_printf (s, "%s%" G_GUINT64_FORMAT, i ? ", " : "", g_array_index (seeds, guint64, i));
  return g_string_free (s, FALSE);
}

/* The steps the search took to build the candidate, in an expander: the
 * path from the root of the search tree to its sGraph. */
static void
append_path (GtkBox           *box,
             const PrismGraph *graph)
{
  g_autoptr(GPtrArray) steps = prism_search_path_of_graph (graph);
  GString *text = g_string_new (NULL);
  GtkWidget *expander;
  GtkWidget *label;
  g_autofree char *title = NULL;

  for (guint i = 0; i < steps->len; i++)
    g_string_append_printf (text, "%s%u. %s", i ? "\n" : "", i + 1,
                            (const char *) g_ptr_array_index (steps, i));
  title = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Path (%u step)", "Path (%u steps)",
                                        steps->len),
                           steps->len);
  expander = gtk_expander_new (title);
  label = gtk_label_new (text->str);
  g_string_free (text, TRUE);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_widget_add_css_class (label, "monospace");
  gtk_widget_set_tooltip_text (expander, _("The steps the search took from the program to this candidate's sGraph, in order"));
  gtk_expander_set_child (GTK_EXPANDER (expander), label);
  gtk_box_append (box, expander);
}

/* When the search found it, and, when that is far from it, when it was
 * announced — where the speedup chart plots it (the detail pane said
 * "found after 263 ms" for a point plotted at 2.0 s). */
static char *
describe_found_at (PrismCandidateRow *row)
{
  double found = prism_candidate_row_get_found_at (row);
  double announced = prism_candidate_row_get_announced_at (row);
  g_autofree char *when = prism_format_seconds (found);
  g_autofree char *shown = NULL;

  if (announced < 0 || fabs (announced - found) <= MAX (0.1, 0.1 * found))
    return g_steal_pointer (&when);
  shown = prism_format_seconds (announced);
  /* Translators: when the search found a candidate, then when the run
   * announced it (“263 ms; announced at 2.00 s, once the search's earlier
   * tasks were done”) */
  return g_strdup_printf (_("%s; announced at %s, once the search's earlier tasks were done"), when, shown);
}

static void
show_verification (PrismCandidatesView *self,
                   PrismCandidateRow   *row)
{
  GtkBox *box = self->verification_box;
  GtkWidget *child;
  g_autofree char *title = NULL;
  g_autofree char *speedup = NULL;
  g_autofree char *factor = NULL;
  g_autofree char *time = NULL;
  g_autofree char *found = NULL;
  g_autofree char *kernels = NULL;
  const char * const *rules;
  gboolean measured;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (box))))
    gtk_box_remove (box, child);
  if (row == NULL)
    return;

  measured = prism_candidate_row_get_measured (row);
  title = prism_candidate_row_dup_title (row);
  pane_label (box, title, "title-4");

  factor = prism_format_speedup (prism_candidate_row_get_speedup (row));
  /* Translators: “1.42× (predicted by the cost model) over the unfused
   * program, its matmuls through cuBLASLt” */
  speedup = g_strdup_printf (_("%s (%s) over %s"), factor,
                             measured ? _("measured on the GPU") : _("predicted by the cost model"),
                             self->model != NULL ? prism_search_model_get_baseline_label (self->model)
                                                 : _("the unfused program"));
  time = prism_format_time_us (prism_candidate_row_get_time_us (row));
  found = describe_found_at (row);
  kernels = g_strdup_printf ("%u", prism_candidate_row_get_kernels (row));
  pane_field (box, _("Speedup"), speedup);
  pane_field (box, measured ? _("Measured time") : _("Predicted time"), time);
  if (measured)
    {
      g_autofree char *predicted = prism_format_time_us (prism_candidate_row_get_predicted_us (row));
      g_autofree char *off = prism_format_prediction_error (prism_candidate_row_get_predicted_us (row),
                                                            prism_candidate_row_get_measured_us (row));

      pane_field (box, _("Predicted time"), predicted);
      /* How far the cost model was: measured against predicted. */
      pane_field (box, _("Prediction error"), off);
    }
  pane_field (box, _("Kernel launches"), kernels);
  if (*prism_candidate_row_get_params (row) != '\0')
    pane_field (box, _("Sizes"), prism_candidate_row_get_params (row));
  if (prism_candidate_row_is_external (row))
    pane_field (box, _("From"), prism_candidate_row_get_source (row) ? prism_candidate_row_get_source (row) : "—");
  else
    {
      pane_field (box, _("Found after"), found);
      if (prism_candidate_row_get_candidate (row) != NULL)
        append_path (box, prism_candidate_row_get_candidate (row)->graph);
    }

  pane_heading (box, _("Verification"));
  pane_field (box, _("Method"), prism_candidate_row_get_verification (row));
  if (prism_candidate_row_get_verdict (row) != NULL)
    pane_field (box, _("Verdict"), prism_format_verdict (prism_candidate_row_get_verdict (row)));
  if (prism_candidate_row_get_message (row) != NULL)
    pane_label (box, prism_candidate_row_get_message (row), "dim-label");

  /* The proof: the rewrite rules it applied, in order. */
  if (prism_candidate_row_get_method (row) == PRISM_VERIFICATION_FORMAL ||
      prism_candidate_row_get_method (row) == PRISM_VERIFICATION_FORMAL_RANDOM)
    {
      g_autofree char *summary = NULL;
      double seconds = prism_candidate_row_get_proof_seconds (row);

      pane_heading (box, _("E-graph proof"));
      summary = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s in %u rewrite", "%s in %u rewrites",
                                              prism_candidate_row_get_proof_length (row)),
                                 prism_candidate_row_get_proved (row) ? _("Proved") : _("Not proved"),
                                 prism_candidate_row_get_proof_length (row));
      pane_field (box, _("Result"), summary);
      if (prism_candidate_row_get_proof_stop (row) != NULL)
        pane_field (box, _("Saturation"), prism_candidate_row_get_proof_stop (row));
      if (!isnan (seconds))
        {
          g_autofree char *s = prism_format_seconds (seconds);
          pane_field (box, _("Time"), s);
        }
      rules = prism_candidate_row_get_proof_rules (row);
      if (rules != NULL && rules[0] != NULL)
        {
          GString *chain = g_string_new (NULL);
          g_autofree char *text = NULL;

          /* Each rule by name and as the equation it is. */
          for (guint i = 0; rules[i] != NULL; i++)
            {
              g_autofree char *equation = prism_format_rule (rules[i]);

              g_string_append_printf (chain, "%s%u. %s", i ? "\n" : "", i + 1, rules[i]);
              if (equation != NULL)
                g_string_append_printf (chain, ": %s", equation);
            }
          text = g_string_free (chain, FALSE);
          pane_label (box, _("Rule chain"), "dim-label");
          pane_label (box, text, "monospace");
        }
      else
        pane_label (box, _("No rewrite rules were recorded."), "dim-label");
      if (prism_candidate_row_get_explanation (row) != NULL)
        {
          GtkWidget *expander = gtk_expander_new (_("Proof steps"));
          GtkWidget *steps = gtk_label_new (prism_candidate_row_get_explanation (row));

          gtk_label_set_xalign (GTK_LABEL (steps), 0);
          gtk_label_set_wrap (GTK_LABEL (steps), TRUE);
          gtk_label_set_wrap_mode (GTK_LABEL (steps), PANGO_WRAP_WORD_CHAR);
          gtk_label_set_selectable (GTK_LABEL (steps), TRUE);
          gtk_widget_add_css_class (steps, "monospace");
          gtk_expander_set_child (GTK_EXPANDER (expander), steps);
          gtk_box_append (box, expander);
        }
    }

  /* The randomized test: the seeds it ran and the error it saw. */
  if (prism_candidate_row_get_random_ran (row))
    {
      GArray *seeds = prism_candidate_row_get_seeds (row);
      g_autofree char *seeds_list = seeds_text (seeds);
      g_autofree char *error = prism_format_error (prism_candidate_row_get_max_error (row));
      double tolerance = prism_candidate_row_get_tolerance (row);
      double seconds = prism_candidate_row_get_random_seconds (row);

      pane_heading (box, _("Randomized test"));
      pane_field (box, _("Result"), prism_candidate_row_get_random_ok (row) ? _("Agrees with the program")
                                                                           : _("Differs from the program"));
      pane_field (box, g_dngettext (GETTEXT_PACKAGE, "Seed", "Seeds", seeds->len),
                  seeds->len > 0 ? seeds_list : _("not recorded"));
      if (!isnan (tolerance))
        {
          g_autofree char *tol = prism_format_error (tolerance);
          g_autofree char *both = g_strdup_printf (_("%s (tolerance %s)"), error, tol);
          pane_field (box, _("Max error"), both);
        }
      else
        pane_field (box, _("Max error"), error);
      if (prism_candidate_row_get_random_sizes (row) != NULL && *prism_candidate_row_get_random_sizes (row))
        pane_field (box, _("Sizes tested"), prism_candidate_row_get_random_sizes (row));
      if (!isnan (seconds))
        {
          g_autofree char *s = prism_format_seconds (seconds);
          pane_field (box, _("Time"), s);
        }
    }
}

static PrismCandidateInfo *
info_from_row (PrismCandidateRow *row)
{
  g_autoptr(PrismGraph) graph = prism_candidate_row_dup_concrete_graph (row);
  g_autofree char *id = prism_candidate_row_dup_name (row);
  PrismCandidateInfo *info;

  if (graph == NULL)
    return NULL;
  info = prism_candidate_info_new (id, graph);
  info->predicted_us = prism_candidate_row_get_time_us (row);
  info->measured = prism_candidate_row_get_measured (row);
  info->speedup = prism_candidate_row_get_speedup (row);
  prism_candidate_info_set_verification (info, prism_candidate_row_get_verification (row));
  return info;
}

static void
update_hint (PrismCandidatesView *self,
             guint                n_selected)
{
  g_autofree char *text = NULL;

  if (self->pinned->len == 2)
    {
      g_autofree char *a = prism_candidate_row_dup_name (g_ptr_array_index (self->pinned, 0));
      g_autofree char *b = prism_candidate_row_dup_name (g_ptr_array_index (self->pinned, 1));

      /* Translators: the two candidates compared, e.g. "Comparing #5 and #17"
       * or "Comparing #5 and Mirage graph 2" */
      text = g_strdup_printf (_("Comparing %s and %s"), a, b);
    }
  else if (self->pinned->len == 1)
    {
      g_autofree char *a = prism_candidate_row_dup_name (g_ptr_array_index (self->pinned, 0));

      /* Translators: %s is "#5" or "Mirage graph 2" */
      text = g_strdup_printf (_("Tick Compare on another candidate to compare it with %s"), a);
    }
  else if (n_selected == 2)
    text = g_strdup (_("Comparing the two selected candidates"));
  else
    text = g_strdup (_("Tick Compare on two candidates to compare them"));
  gtk_label_set_label (self->hint_label, text);
  /* Beside the filter, a long language ellipsizes it: the tooltip has it whole. */
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->hint_label), text);
  gtk_widget_set_visible (GTK_WIDGET (self->clear_compare_button), self->pinned->len > 0);
}

static void
update_detail (PrismCandidatesView *self)
{
  guint n_pinned = self->pinned->len;
  g_autoptr(GtkBitset) bitset = gtk_selection_model_get_selection (GTK_SELECTION_MODEL (self->selection));
  g_autoptr(PrismCandidateRow) first = NULL;
  g_autoptr(PrismCandidateRow) second = NULL;
  GtkBitsetIter iter;
  guint position;
  guint n = (guint) gtk_bitset_get_size (bitset);

  if (gtk_bitset_iter_init_first (&iter, bitset, &position))
    {
      first = g_list_model_get_item (G_LIST_MODEL (self->selection), position);
      if (gtk_bitset_iter_next (&iter, &position))
        second = g_list_model_get_item (G_LIST_MODEL (self->selection), position);
    }

  if (n_pinned == 2)
    {
      g_autoptr(PrismCandidateInfo) a = info_from_row (g_ptr_array_index (self->pinned, 0));
      g_autoptr(PrismCandidateInfo) b = info_from_row (g_ptr_array_index (self->pinned, 1));

      if (a != NULL && b != NULL)
        prism_compare_view_set_candidates (self->compare_view, a, b);
      gtk_stack_set_visible_child_name (self->detail_stack, "compare");
    }
  else if (first == NULL)
    {
      gtk_stack_set_visible_child_name (self->detail_stack, "none");
      prism_graph_view_set_graph (self->graph_view, NULL);
      show_verification (self, NULL);
    }
  else if (second == NULL)
    {
      g_autoptr(PrismGraph) graph = prism_candidate_row_dup_concrete_graph (first);

      /* Unchanged selection (a row re-sorted): keep the layout and zoom. */
      if (first != self->selected || prism_graph_view_get_graph (self->graph_view) == NULL)
        prism_graph_view_set_graph (self->graph_view, graph);
      show_verification (self, first);
      gtk_stack_set_visible_child_name (self->detail_stack, "single");
    }
  else if (n == 2)
    {
      /* Two rows selected (Shift+click on neighbours) compare too. */
      g_autoptr(PrismCandidateInfo) a = info_from_row (first);
      g_autoptr(PrismCandidateInfo) b = info_from_row (second);

      if (a != NULL && b != NULL)
        prism_compare_view_set_candidates (self->compare_view, a, b);
      gtk_stack_set_visible_child_name (self->detail_stack, "compare");
    }
  else
    {
      g_autoptr(PrismGraph) graph = prism_candidate_row_dup_concrete_graph (first);

      if (first != self->selected || prism_graph_view_get_graph (self->graph_view) == NULL)
        prism_graph_view_set_graph (self->graph_view, graph);
      show_verification (self, first);
      gtk_stack_set_visible_child_name (self->detail_stack, "single");
    }
  update_hint (self, n);

  if (self->n_selected != n)
    {
      self->n_selected = n;
      g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_N_SELECTED]);
    }
  if (g_set_object (&self->selected, first))
    g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_SELECTED]);
}

static gboolean
row_matches (gpointer item,
             gpointer user_data)
{
  PrismCandidatesView *self = user_data;

  if (self->filter_terms == NULL)
    return TRUE;
  for (guint i = 0; self->filter_terms[i] != NULL; i++)
    if (*self->filter_terms[i] != '\0' && !prism_candidate_filter_term_matches (item, self->filter_terms[i]))
      return FALSE;
  return TRUE;
}

static void
filtered_changed_cb (PrismCandidatesView *self,
                     guint                position,
                     guint                removed,
                     guint                added,
                     GListModel          *model)
{
  if (self->filter_terms != NULL && self->count_label != NULL)
    update_count (self);
}

static void
filter_changed_cb (PrismCandidatesView *self,
                   GtkSearchEntry      *entry)
{
  if (self->setting_filter)
    return;
  prism_candidates_view_set_filter (self, gtk_editable_get_text (GTK_EDITABLE (entry)));
}

static void
update_count (PrismCandidatesView *self)
{
  guint external = self->model ? prism_search_model_get_n_external (self->model) : 0;
  guint n = self->model ? g_list_model_get_n_items (prism_search_model_get_candidates (self->model)) - external : 0;
  guint hidden = self->model ? prism_search_model_get_hidden_candidates (self->model) : 0;
  guint verified = self->model ? prism_search_model_get_verified (self->model) : 0;
  g_autofree char *text = NULL;

  if (hidden > 0)
    text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                         "%u verified candidates (the fastest %u shown; %u not shown)",
                                         "%u verified candidates (the fastest %u shown; %u not shown)",
                                         n + hidden),
                            n + hidden, n, hidden);
  else if (verified > n)
    /* Translators: candidates that are different programs, of all verified
     * (the others are equivalent forms of these, listed with them) */
    text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u distinct candidate of %u verified",
                                         "%u distinct candidates of %u verified", n), n, verified);
  else
    text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u verified candidate",
                                         "%u verified candidates", n), n);
  if (external > 0)
    {
      g_autofree char *ours = g_steal_pointer (&text);

      /* Translators: the count of the run's candidates, then of the graphs
       * added from Mirage files ("3 verified candidates, and 2 Mirage graphs") */
      text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s, and %u Mirage graph", "%s, and %u Mirage graphs",
                                           external), ours, external);
    }
  if (self->filter_terms != NULL && self->filtered != NULL)
    {
      g_autofree char *all = g_steal_pointer (&text);
      guint shown = g_list_model_get_n_items (G_LIST_MODEL (self->filtered));

      /* Translators: the count of candidates, then how many the filter shows */
      text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s — %u matches the filter",
                                           "%s — %u match the filter", shown), all, shown);
    }
  gtk_label_set_label (self->count_label, text);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->count_label), text);
}

static GtkWidget *
find_list_view (GtkWidget *widget)
{
  if (GTK_IS_LIST_VIEW (widget))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_list_view (child);
      if (found != NULL)
        return found;
    }
  return NULL;
}

/* GtkListView keeps the row at the top of the view in place when rows are
 * inserted above it, so a faster candidate sorted in first would push the
 * view down. Whoever is looking at the top wants to stay there. */
static void
rows_changed_cb (PrismCandidatesView *self,
                 guint                position,
                 guint                removed,
                 guint                added,
                 GListModel          *model)
{
  GtkAdjustment *vadjustment = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (self->column_view));
  GtkWidget *list_view;

  if (added == 0 || g_list_model_get_n_items (model) == 0 ||
      gtk_column_view_get_model (self->column_view) == NULL)
    return;
  if (vadjustment != NULL &&
      gtk_adjustment_get_value (vadjustment) > gtk_adjustment_get_lower (vadjustment) + 1)
    return;
  if ((list_view = find_list_view (GTK_WIDGET (self->column_view))) != NULL)
    gtk_widget_activate_action (list_view, "list.scroll-to-item", "u", 0);
}

static void
selection_changed_cb (PrismCandidatesView *self,
                      guint                position,
                      guint                n_items,
                      GtkSelectionModel   *selection)
{
  update_detail (self);
}

static void
items_changed_cb (PrismCandidatesView *self,
                  guint                position,
                  guint                removed,
                  guint                added,
                  GListModel          *model)
{
  update_count (self);
  /* Room for "Mirage graph 12" while the table has such rows. */
  prism_column_title_fit (self->column_view, self->columns[PRISM_CANDIDATE_COLUMN_ID],
                          self->model && prism_search_model_get_n_external (self->model) > 0 ? 128 : 44);
  /* A new search empties the store: what was ticked is gone. */
  if (g_list_model_get_n_items (model) == 0 && self->pinned->len > 0)
    prism_candidates_view_clear_compare (self);
  /* Removing rows changes the selection without "selection-changed": a
   * selected row that left the store (a new program, a new search) must not
   * stay on the detail pane, the Kernel page or behind Export Kernel. */
  if (removed > 0 && self->count_label != NULL)
    update_detail (self);
}

static void
model_changed_cb (PrismCandidatesView *self,
                  PrismSearchModel    *model)
{
  update_count (self);
}

/*
 * GObject overrides
 */

/* The table's rows come back when it is shown: once it has grown tall
 * enough, it is scrolled to where it was. */
static void
restore_scroll_cb (PrismCandidatesView *self,
                   GtkAdjustment       *vadjustment)
{
  if (self->scroll_to < 0)
    return;
  if (gtk_adjustment_get_upper (vadjustment) - gtk_adjustment_get_page_size (vadjustment) < self->scroll_to &&
      gtk_adjustment_get_upper (vadjustment) < g_list_model_get_n_items (G_LIST_MODEL (self->sorted)) * 4.0)
    return;   /* not laid out yet */
  gtk_adjustment_set_value (vadjustment, self->scroll_to);
  self->scroll_to = -1;
}

/* GTK 4.8's column view makes and binds the widgets of the rows added in
 * its visible range even while it is not shown: during a search, about
 * 0.7 ms of the main loop per candidate, 15 ms for a batch of 20, with the
 * Kernel or Search page in front (docs/benchmarks.md).  Hidden, the table
 * has no rows; the selection, sorting and counts go on without it. */
static gboolean
scroll_to_pending_row (gpointer user_data)
{
  PrismCandidatesView *self = user_data;

  if (self->scroll_to_row != G_MAXUINT && gtk_column_view_get_model (self->column_view) != NULL)
    scroll_to_position (GTK_WIDGET (self->column_view), self->scroll_to_row);
  self->scroll_to_row = G_MAXUINT;
  return G_SOURCE_REMOVE;
}

static void
prism_candidates_view_map (GtkWidget *widget)
{
  PrismCandidatesView *self = PRISM_CANDIDATES_VIEW (widget);
  GtkAdjustment *vadjustment = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (self->column_view));

  GTK_WIDGET_CLASS (prism_candidates_view_parent_class)->map (widget);
  if (gtk_column_view_get_model (self->column_view) == NULL)
    {
      gtk_column_view_set_model (self->column_view, GTK_SELECTION_MODEL (self->selection));
      g_clear_signal_handler (&self->rows_changed_handler, self->selection);
      self->rows_changed_handler = g_signal_connect_object (self->selection, "items-changed",
                                                            G_CALLBACK (rows_changed_cb), self,
                                                            G_CONNECT_SWAPPED);
      if (self->scroll_to_row != G_MAXUINT)
        {
          /* Selected from the chart or Compare while hidden: show that row. */
          self->scroll_to = -1;
          g_idle_add_full (G_PRIORITY_DEFAULT_IDLE, scroll_to_pending_row, g_object_ref (self), g_object_unref);
        }
      else if (vadjustment != NULL)
        restore_scroll_cb (self, vadjustment);
    }
}

static void
prism_candidates_view_unmap (GtkWidget *widget)
{
  PrismCandidatesView *self = PRISM_CANDIDATES_VIEW (widget);
  GtkAdjustment *vadjustment = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (self->column_view));

  if (gtk_column_view_get_model (self->column_view) != NULL)
    {
      self->scroll_to = vadjustment != NULL ? gtk_adjustment_get_value (vadjustment) : -1;
      if (self->scroll_to <= 0)
        self->scroll_to = -1;
      gtk_column_view_set_model (self->column_view, NULL);
    }
  GTK_WIDGET_CLASS (prism_candidates_view_parent_class)->unmap (widget);
}

static void
prism_candidates_view_dispose (GObject *object)
{
  PrismCandidatesView *self = (PrismCandidatesView *)object;
  GtkWidget *child;

  prism_candidates_view_set_model (self, NULL);
  gtk_widget_dispose_template (GTK_WIDGET (self), PRISM_TYPE_CANDIDATES_VIEW);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))))
    gtk_widget_unparent (child);
  g_clear_object (&self->selection);
  g_clear_object (&self->sorted);
  g_clear_object (&self->filtered);
  g_clear_object (&self->filter);
  g_clear_pointer (&self->filter_terms, g_strfreev);
  g_clear_object (&self->selected);
  g_clear_pointer (&self->pinned, g_ptr_array_unref);

  G_OBJECT_CLASS (prism_candidates_view_parent_class)->dispose (object);
}

static void
prism_candidates_view_get_property (GObject    *object,
                                    guint       prop_id,
                                    GValue     *value,
                                    GParamSpec *pspec)
{
  PrismCandidatesView *self = PRISM_CANDIDATES_VIEW (object);

  switch (prop_id)
    {
    case PROP_MODEL:
      g_value_set_object (value, self->model);
      break;

    case PROP_SELECTED:
      g_value_set_object (value, self->selected);
      break;

    case PROP_N_SELECTED:
      g_value_set_uint (value, self->n_selected);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
prism_candidates_view_set_property (GObject      *object,
                                    guint         prop_id,
                                    const GValue *value,
                                    GParamSpec   *pspec)
{
  PrismCandidatesView *self = PRISM_CANDIDATES_VIEW (object);

  switch (prop_id)
    {
    case PROP_MODEL:
      prism_candidates_view_set_model (self, g_value_get_object (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
prism_candidates_view_class_init (PrismCandidatesViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = prism_candidates_view_dispose;
  object_class->get_property = prism_candidates_view_get_property;
  object_class->set_property = prism_candidates_view_set_property;
  widget_class->map = prism_candidates_view_map;
  widget_class->unmap = prism_candidates_view_unmap;

  properties [PROP_MODEL] =
    g_param_spec_object ("model", NULL, NULL, PRISM_TYPE_SEARCH_MODEL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties [PROP_SELECTED] =
    g_param_spec_object ("selected", NULL, NULL, PRISM_TYPE_CANDIDATE_ROW,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties [PROP_N_SELECTED] =
    g_param_spec_uint ("n-selected", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_type_ensure (PRISM_TYPE_GRAPH_VIEW);
  g_type_ensure (PRISM_TYPE_COMPARE_VIEW);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/prism/Explorer/prism-candidates-view.ui");
  gtk_widget_class_bind_template_child (widget_class, PrismCandidatesView, paned);
  gtk_widget_class_bind_template_child (widget_class, PrismCandidatesView, count_label);
  gtk_widget_class_bind_template_child (widget_class, PrismCandidatesView, hint_label);
  gtk_widget_class_bind_template_child (widget_class, PrismCandidatesView, column_view);
  gtk_widget_class_bind_template_child (widget_class, PrismCandidatesView, detail_stack);
  gtk_widget_class_bind_template_child (widget_class, PrismCandidatesView, graph_view);
  gtk_widget_class_bind_template_child (widget_class, PrismCandidatesView, verification_box);
  gtk_widget_class_bind_template_child (widget_class, PrismCandidatesView, compare_view);
  gtk_widget_class_bind_template_child (widget_class, PrismCandidatesView, clear_compare_button);
  gtk_widget_class_bind_template_child (widget_class, PrismCandidatesView, filter_entry);
  gtk_widget_class_bind_template_callback (widget_class, clear_compare_cb);
  gtk_widget_class_bind_template_callback (widget_class, filter_changed_cb);
  gtk_widget_class_set_css_name (widget_class, "candidatesview");
}

static void
prism_candidates_view_init (PrismCandidatesView *self)
{
  GtkMultiSorter *sorter;

  self->pinned = g_ptr_array_new_with_free_func (g_object_unref);
  gtk_widget_init_template (GTK_WIDGET (self));

  add_compare_column (self);
  add_columns (self);
  /* The store is swapped in by set_model(). The table's sorter decides,
   * and candidates it finds equal keep the order they were found in. */
  sorter = gtk_multi_sorter_new ();
  gtk_multi_sorter_append (sorter, g_object_ref (gtk_column_view_get_sorter (self->column_view)));
  gtk_multi_sorter_append (sorter, GTK_SORTER (gtk_custom_sorter_new (compare_ids, NULL, NULL)));
  self->filter = gtk_custom_filter_new (row_matches, self, NULL);
  self->filtered = gtk_filter_list_model_new (NULL, GTK_FILTER (g_object_ref (self->filter)));
  self->sorted = gtk_sort_list_model_new (G_LIST_MODEL (g_object_ref (self->filtered)), GTK_SORTER (sorter));
  self->selection = gtk_multi_selection_new (g_object_ref (G_LIST_MODEL (self->sorted)));
  /* The table gets its rows when shown (map()). */
  self->scroll_to = -1;
  self->scroll_to_row = G_MAXUINT;
  g_signal_connect_object (self->filtered, "items-changed", G_CALLBACK (filtered_changed_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (self->column_view)), "changed",
                           G_CALLBACK (restore_scroll_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->selection, "selection-changed",
                           G_CALLBACK (selection_changed_cb), self, G_CONNECT_SWAPPED);
  /* After the view's own handler, which moves its anchor row: connected
   * again each time the table gets its rows (map()). */
  self->rows_changed_handler = g_signal_connect_object (self->selection, "items-changed",
                                                        G_CALLBACK (rows_changed_cb), self,
                                                        G_CONNECT_SWAPPED);
  /* Fastest first. */
  gtk_column_view_sort_by_column (self->column_view, self->columns[PRISM_CANDIDATE_COLUMN_SPEEDUP], GTK_SORT_DESCENDING);
  update_count (self);
}

/*
 * Public API
 */

GtkWidget *
prism_candidates_view_new (void)
{
  return g_object_new (PRISM_TYPE_CANDIDATES_VIEW, NULL);
}

/**
 * prism_candidates_view_get_model:
 *
 * Returns: (transfer none) (nullable): the search shown
 */
PrismSearchModel *
prism_candidates_view_get_model (PrismCandidatesView *self)
{
  g_return_val_if_fail (PRISM_IS_CANDIDATES_VIEW (self), NULL);
  return self->model;
}

void
prism_candidates_view_set_model (PrismCandidatesView *self,
                                 PrismSearchModel    *model)
{
  GListModel *candidates;

  g_return_if_fail (PRISM_IS_CANDIDATES_VIEW (self));
  g_return_if_fail (model == NULL || PRISM_IS_SEARCH_MODEL (model));

  if (self->model == model)
    return;
  if (self->model != NULL)
    {
      candidates = prism_search_model_get_candidates (self->model);
      g_signal_handlers_disconnect_by_func (candidates, items_changed_cb, self);
      g_clear_signal_handler (&self->changed_handler, self->model);
    }
  g_set_object (&self->model, model);
  if (self->filtered != NULL)
    gtk_filter_list_model_set_model (self->filtered, model ? prism_search_model_get_candidates (model) : NULL);
  if (model != NULL)
    {
      candidates = prism_search_model_get_candidates (model);
      g_signal_connect_object (candidates, "items-changed", G_CALLBACK (items_changed_cb), self,
                               G_CONNECT_SWAPPED);
      self->changed_handler = g_signal_connect_object (model, "changed", G_CALLBACK (model_changed_cb),
                                                       self, G_CONNECT_SWAPPED);
    }
  if (self->count_label != NULL)
    {
      update_count (self);
      update_detail (self);
    }
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_MODEL]);
}

/**
 * prism_candidates_view_get_column_view:
 *
 * Returns: (transfer none): the table
 */
GtkColumnView *
prism_candidates_view_get_column_view (PrismCandidatesView *self)
{
  g_return_val_if_fail (PRISM_IS_CANDIDATES_VIEW (self), NULL);
  return self->column_view;
}

/**
 * prism_candidates_view_get_selection:
 *
 * Returns: (transfer none): the rows in the order shown, with the selection
 */
GtkSelectionModel *
prism_candidates_view_get_selection (PrismCandidatesView *self)
{
  g_return_val_if_fail (PRISM_IS_CANDIDATES_VIEW (self), NULL);
  return GTK_SELECTION_MODEL (self->selection);
}

/**
 * prism_candidates_view_get_selected:
 *
 * Returns: (transfer none) (nullable): the first selected candidate
 */
PrismCandidateRow *
prism_candidates_view_get_selected (PrismCandidatesView *self)
{
  g_return_val_if_fail (PRISM_IS_CANDIDATES_VIEW (self), NULL);
  return self->selected;
}

guint
prism_candidates_view_get_n_selected (PrismCandidatesView *self)
{
  g_return_val_if_fail (PRISM_IS_CANDIDATES_VIEW (self), 0);
  return self->n_selected;
}

/* GTK 4.8's GtkColumnView has no scroll_to(): its inner list view has the
 * "list.scroll-to-item" action. */
static void
scroll_to_position (GtkWidget *widget,
                    guint      position)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      if (GTK_IS_LIST_VIEW (child))
        {
          gtk_widget_activate_action (child, "list.scroll-to-item", "u", position);
          return;
        }
      scroll_to_position (child, position);
    }
}

/**
 * prism_candidates_view_select_id:
 * @id: a candidate's id
 *
 * Selects candidate @id alone and scrolls the table to it.
 *
 * Returns: %FALSE if the table has no candidate @id (it may have been left
 *   out of a very large table)
 */
gboolean
prism_candidates_view_select_id (PrismCandidatesView *self,
                                 guint                id)
{
  GListModel *rows;
  guint n;

  g_return_val_if_fail (PRISM_IS_CANDIDATES_VIEW (self), FALSE);
  rows = G_LIST_MODEL (self->selection);
  n = g_list_model_get_n_items (rows);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(PrismCandidateRow) row = g_list_model_get_item (rows, i);

      /* An external row's number is its index in its file, not an id. */
      if (prism_candidate_row_get_id (row) == id && !prism_candidate_row_is_external (row))
        {
          gtk_selection_model_select_item (GTK_SELECTION_MODEL (self->selection), i, TRUE);
          /* Hidden, the table has no rows to scroll: it scrolls to the row
           * when it is shown (map()), instead of to where it was. */
          if (gtk_column_view_get_model (self->column_view) == NULL)
            self->scroll_to_row = i;
          else
            scroll_to_position (GTK_WIDGET (self->column_view), i);
          return TRUE;
        }
    }
  return FALSE;
}

/**
 * prism_candidates_view_clear_compare:
 *
 * Unticks every row of the Compare column.
 */
void
prism_candidates_view_clear_compare (PrismCandidatesView *self)
{
  g_return_if_fail (PRISM_IS_CANDIDATES_VIEW (self));

  while (self->pinned->len > 0)
    {
      g_autoptr(PrismCandidateRow) row = g_object_ref (g_ptr_array_index (self->pinned, 0));

      g_ptr_array_remove_index (self->pinned, 0);
      prism_candidate_row_set_pinned (row, FALSE);
    }
  update_detail (self);
}

/**
 * prism_candidates_view_get_compare_column:
 *
 * Returns: (transfer none): the column of Compare check boxes
 */
GtkColumnViewColumn *
prism_candidates_view_get_compare_column (PrismCandidatesView *self)
{
  g_return_val_if_fail (PRISM_IS_CANDIDATES_VIEW (self), NULL);
  return self->compare_column;
}

const char *
prism_candidates_view_get_mode (PrismCandidatesView *self)
{
  g_return_val_if_fail (PRISM_IS_CANDIDATES_VIEW (self), NULL);
  return gtk_stack_get_visible_child_name (self->detail_stack);
}

/**
 * prism_candidates_view_get_graph_view:
 *
 * Returns: (transfer none): the graph of the selected candidate
 */
PrismGraphView *
prism_candidates_view_get_graph_view (PrismCandidatesView *self)
{
  g_return_val_if_fail (PRISM_IS_CANDIDATES_VIEW (self), NULL);
  return self->graph_view;
}

/**
 * prism_candidates_view_get_compare_view:
 *
 * Returns: (transfer none): two selected candidates side by side
 */
PrismCompareView *
prism_candidates_view_get_compare_view (PrismCandidatesView *self)
{
  g_return_val_if_fail (PRISM_IS_CANDIDATES_VIEW (self), NULL);
  return self->compare_view;
}

char *
prism_candidates_view_get_verification_text (PrismCandidatesView *self)
{
  GString *text = g_string_new (NULL);
  GtkWidget *child;

  g_return_val_if_fail (PRISM_IS_CANDIDATES_VIEW (self), NULL);

  for (child = gtk_widget_get_first_child (GTK_WIDGET (self->verification_box)); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      if (GTK_IS_LABEL (child))
        g_string_append_printf (text, "%s\n", gtk_label_get_label (GTK_LABEL (child)));
      else if (GTK_IS_EXPANDER (child))
        {
          GtkWidget *inner = gtk_expander_get_child (GTK_EXPANDER (child));

          g_string_append_printf (text, "%s\n", gtk_expander_get_label (GTK_EXPANDER (child)));
          if (GTK_IS_LABEL (inner))
            g_string_append_printf (text, "%s\n", gtk_label_get_label (GTK_LABEL (inner)));
        }
      else if (GTK_IS_BOX (child))
        {
          for (GtkWidget *part = gtk_widget_get_first_child (child); part != NULL;
               part = gtk_widget_get_next_sibling (part))
            if (GTK_IS_LABEL (part))
              g_string_append_printf (text, "%s%s", gtk_label_get_label (GTK_LABEL (part)),
                                      gtk_widget_get_next_sibling (part) ? ": " : "\n");
        }
    }
  return g_string_free (text, FALSE);
}

void
prism_candidates_view_set_direction (PrismCandidatesView *self,
                                     PrismGraphDirection  direction)
{
  g_return_if_fail (PRISM_IS_CANDIDATES_VIEW (self));

  prism_graph_view_set_direction (self->graph_view, direction);
  prism_compare_view_set_direction (self->compare_view, direction);
}

/**
 * prism_candidates_view_dup_cell_text:
 * @position: the row, as shown (sorted)
 * @property: the column, by the row property it sorts by ("id", "speedup",
 *   "time-us", "measured-us", …)
 *
 * For tests.
 *
 * Returns: (transfer full) (nullable): the cell's text
 */
char *
prism_candidates_view_dup_cell_text (PrismCandidatesView *self,
                                     guint                position,
                                     const char          *property)
{
  g_autoptr(PrismCandidateRow) row = NULL;

  g_return_val_if_fail (PRISM_IS_CANDIDATES_VIEW (self), NULL);

  if (self->sorted == NULL)
    return NULL;
  row = g_list_model_get_item (G_LIST_MODEL (self->sorted), position);
  if (row == NULL)
    return NULL;
  for (PrismCandidateColumn c = 0; c < PRISM_CANDIDATE_N_COLUMNS; c++)
    if (g_strcmp0 (prism_candidate_column_property (c), property) == 0)
      return prism_candidate_column_text (row, c);
  return NULL;
}

/**
 * prism_candidates_view_set_filter:
 * @text: (nullable): terms separated by spaces, all of which a row must
 *   match: "launches=1", "speedup>=2", "time<5" (µs) compare a figure
 *   (=, <, <=, >, >=); any other word is looked for in the row's cells and
 *   in the steps that built it (its ops and kernels); %NULL or "" shows
 *   every row
 *
 * Filters the table (the Filter entry above it does the same).
 */
void
prism_candidates_view_set_filter (PrismCandidatesView *self,
                                  const char          *text)
{
  g_autofree char *folded = NULL;

  g_return_if_fail (PRISM_IS_CANDIDATES_VIEW (self));

  g_clear_pointer (&self->filter_terms, g_strfreev);
  if (text != NULL && *g_strstrip (folded = g_utf8_casefold (text, -1)) != '\0')
    self->filter_terms = g_strsplit (folded, " ", -1);
  /* Setting the entry's text emits search-changed on the way (for the
   * empty text in between): that is not the user's filter. */
  if (self->filter_entry != NULL && g_strcmp0 (gtk_editable_get_text (GTK_EDITABLE (self->filter_entry)),
                                               text ? text : "") != 0)
    {
      self->setting_filter = TRUE;
      gtk_editable_set_text (GTK_EDITABLE (self->filter_entry), text ? text : "");
      self->setting_filter = FALSE;
    }
  gtk_filter_changed (GTK_FILTER (self->filter), GTK_FILTER_CHANGE_DIFFERENT);
  update_count (self);
}

/**
 * prism_candidates_view_get_n_shown:
 *
 * Returns: the rows the table shows (all of the store's that the filter lets through)
 */
guint
prism_candidates_view_get_n_shown (PrismCandidatesView *self)
{
  g_return_val_if_fail (PRISM_IS_CANDIDATES_VIEW (self), 0);
  return g_list_model_get_n_items (G_LIST_MODEL (self->sorted));
}
