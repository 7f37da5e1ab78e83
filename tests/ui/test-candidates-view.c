/* test-candidates-view.c — the candidates table while another page is shown
 *
 * GTK 4.8's column view makes and binds the widgets of rows added in its
 * visible range even while it is not on screen; during a search that was
 * most of the main loop's work with the Kernel or Search page in front.
 * Hidden, the table has no row widgets; its selection, sorting and count
 * go on, and shown again it has its rows, scrolled where it was.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>
#include <gtk/gtk.h>

#include "prism-candidates-view.h"
#include "prism-search-model.h"
#include "prism-workload.h"

#define WAIT_UNTIL(seconds, cond)                                              \
  G_STMT_START {                                                               \
    gint64 wait_end_ = g_get_monotonic_time () + (seconds) * G_USEC_PER_SEC;   \
    while (!(cond))                                                            \
      {                                                                        \
        if (g_get_monotonic_time () > wait_end_)                               \
          g_error ("gave up waiting for: %s", #cond);                          \
        if (!g_main_context_iteration (NULL, FALSE))                           \
          g_usleep (1000);                                                     \
      }                                                                        \
  } G_STMT_END

static PrismGraph *reference;

static void
apply_verified (PrismSearchModel *model, guint id)
{
  g_autoptr(PrismCandidate) c = prism_candidate_new ();
  g_autoptr(PrismEvent) e = prism_event_new (PRISM_EVENT_VERIFIED);

  c->id = id;
  c->digest = g_strdup_printf ("%032x", id);
  c->graph = prism_graph_ref (reference);
  c->n_kernels = prism_graph_count_kernels (c->graph);
  c->verdict = g_strdup ("equivalent");
  /* Later ones faster: each sorts in at the top, where a shown table's
   * rows are. */
  c->speedup = 1 + 0.01 * id;
  c->predicted_us = 10.0 / c->speedup;
  c->found_at_s = id;
  c->task = id;
  e->time_s = id;
  e->candidate = prism_candidate_ref (c);
  e->id = id;
  prism_search_model_apply_event (model, e);
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

/* The table's row widgets (the list view's children). */
static guint
count_rows (PrismCandidatesView *view)
{
  GtkWidget *list = find_list_view (GTK_WIDGET (prism_candidates_view_get_column_view (view)));
  guint n = 0;

  for (GtkWidget *child = gtk_widget_get_first_child (list); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    n++;
  return n;
}

static void
spin (guint ms)
{
  gint64 end = g_get_monotonic_time () + ms * 1000;

  while (g_get_monotonic_time () < end)
    if (!g_main_context_iteration (NULL, FALSE))
      g_usleep (1000);
}

static void
test_hidden (void)
{
  g_autoptr(PrismSearchModel) model = prism_search_model_new ();
  g_autoptr(GError) error = NULL;
  GtkWidget *window = gtk_window_new ();
  GtkStack *stack = GTK_STACK (gtk_stack_new ());
  PrismCandidatesView *view = PRISM_CANDIDATES_VIEW (prism_candidates_view_new ());
  GtkSelectionModel *selection = prism_candidates_view_get_selection (view);
  GtkAdjustment *vadjustment =
    gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (prism_candidates_view_get_column_view (view)));
  double scrolled;

  reference = prism_workload_build_reference ("rms_norm", NULL, &error);
  g_assert_no_error (error);
  gtk_stack_add_named (stack, GTK_WIDGET (view), "candidates");
  gtk_stack_add_named (stack, gtk_label_new ("another page"), "other");
  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (stack));
  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 700);
  prism_candidates_view_set_model (view, model);
  gtk_window_present (GTK_WINDOW (window));

  /* Shown: rows, scrolled down a little, the fastest selected. */
  for (guint id = 1; id <= 60; id++)
    apply_verified (model, id);
  prism_search_model_flush (model);
  WAIT_UNTIL (10, gtk_widget_get_mapped (GTK_WIDGET (view)) && count_rows (view) > 0 &&
                  gtk_adjustment_get_upper (vadjustment) > gtk_adjustment_get_page_size (vadjustment) + 200);
  g_assert_true (gtk_selection_model_select_item (selection, 0, TRUE));
  g_assert_cmpuint (prism_candidate_row_get_id (prism_candidates_view_get_selected (view)), ==, 60);
  gtk_adjustment_set_value (vadjustment, 150);
  spin (100);
  scrolled = gtk_adjustment_get_value (vadjustment);
  g_assert_cmpfloat (scrolled, >, 100);

  /* Hidden: candidates keep coming, no row is made for them. */
  gtk_stack_set_visible_child_name (stack, "other");
  WAIT_UNTIL (10, !gtk_widget_get_mapped (GTK_WIDGET (view)));
  for (guint id = 61; id <= 80; id++)
    apply_verified (model, id);
  prism_search_model_flush (model);
  spin (100);
  g_assert_cmpuint (count_rows (view), ==, 0);
  /* … but they are in the table, sorted, and the selection holds. */
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (selection)), ==, 80);
  {
    g_autoptr(PrismCandidateRow) top = g_list_model_get_item (G_LIST_MODEL (selection), 0);

    g_assert_cmpuint (prism_candidate_row_get_id (top), ==, 80);
  }
  g_assert_cmpuint (prism_candidates_view_get_n_selected (view), ==, 1);
  g_assert_cmpuint (prism_candidate_row_get_id (prism_candidates_view_get_selected (view)), ==, 60);

  /* Shown again: rows, where the table was scrolled to. */
  gtk_stack_set_visible_child_name (stack, "candidates");
  WAIT_UNTIL (10, count_rows (view) > 0 && gtk_adjustment_get_value (vadjustment) > 0);
  g_assert_cmpfloat (fabs (gtk_adjustment_get_value (vadjustment) - scrolled), <, 1);
  g_assert_cmpuint (prism_candidate_row_get_id (prism_candidates_view_get_selected (view)), ==, 60);

  gtk_window_destroy (GTK_WINDOW (window));
  g_clear_pointer (&reference, prism_graph_unref);
}

/* Issue 25, item 9: the table at 1 000+ rows had no filter, and a row
 * selected from the chart while the table was hidden was not scrolled to:
 * shown, the table went back to where it had been. */
static void
test_filter (void)
{
  g_autoptr(PrismSearchModel) model = prism_search_model_new ();
  g_autoptr(GError) error = NULL;
  GtkWidget *window = gtk_window_new ();
  GtkStack *stack = GTK_STACK (gtk_stack_new ());
  PrismCandidatesView *view = PRISM_CANDIDATES_VIEW (prism_candidates_view_new ());
  GtkSelectionModel *selection = prism_candidates_view_get_selection (view);
  GtkAdjustment *vadjustment =
    gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (prism_candidates_view_get_column_view (view)));

  reference = prism_workload_build_reference ("rms_norm", NULL, &error);
  g_assert_no_error (error);
  gtk_stack_add_named (stack, GTK_WIDGET (view), "candidates");
  gtk_stack_add_named (stack, gtk_label_new ("another page"), "other");
  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (stack));
  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 700);
  prism_candidates_view_set_model (view, model);
  gtk_window_present (GTK_WINDOW (window));

  /* Issue 25, item 6: the table's "Shared" (tiles, one copy each) and the
   * Kernel page's "Shared" (each launch, stages included) were two figures
   * under one name. */
  {
    GListModel *columns = gtk_column_view_get_columns (prism_candidates_view_get_column_view (view));
    gboolean tiles = FALSE;

    for (guint i = 0; i < g_list_model_get_n_items (columns); i++)
      {
        g_autoptr(GtkColumnViewColumn) column = g_list_model_get_item (columns, i);
        const char *title = gtk_column_view_column_get_title (column);

        g_assert_cmpstr (title, !=, "Shared");
        tiles = tiles || g_strcmp0 (title, "Tiles") == 0;
      }
    g_assert_true (tiles);
  }

  /* 1 200 rows, speedups 1.01× … 13×. */
  for (guint id = 1; id <= 1200; id++)
    apply_verified (model, id);
  prism_search_model_flush (model);
  g_assert_cmpuint (prism_candidates_view_get_n_shown (view), ==, 1200);

  /* By a figure, by two, by text (the # column), and none. */
  prism_candidates_view_set_filter (view, "speedup>=12");
  g_assert_cmpuint (prism_candidates_view_get_n_shown (view), ==, 101);   /* ids 1100 … 1200 */
  prism_candidates_view_set_filter (view, "speedup>=12 speedup<12.5");
  g_assert_cmpuint (prism_candidates_view_get_n_shown (view), ==, 50);    /* ids 1100 … 1149 */
  prism_candidates_view_set_filter (view, "launches=2");
  g_assert_cmpuint (prism_candidates_view_get_n_shown (view), ==,
                    prism_graph_count_kernels (reference) == 2 ? 1200 : 0);
  prism_candidates_view_set_filter (view, "1199");
  g_assert_cmpuint (prism_candidates_view_get_n_shown (view), ==, 1);
  {
    g_autofree char *id = prism_candidates_view_dup_cell_text (view, 0, "id");

    g_assert_cmpstr (id, ==, "1199");
  }
  prism_candidates_view_set_filter (view, "no-such-thing");
  g_assert_cmpuint (prism_candidates_view_get_n_shown (view), ==, 0);
  prism_candidates_view_set_filter (view, NULL);
  g_assert_cmpuint (prism_candidates_view_get_n_shown (view), ==, 1200);

  /* Selected while hidden, far down: shown, the table scrolls to it. */
  WAIT_UNTIL (10, count_rows (view) > 0);
  gtk_stack_set_visible_child_name (stack, "other");
  WAIT_UNTIL (10, !gtk_widget_get_mapped (GTK_WIDGET (view)));
  g_assert_true (prism_candidates_view_select_id (view, 100));   /* row 1100 of the fastest first */
  gtk_stack_set_visible_child_name (stack, "candidates");
  WAIT_UNTIL (10, count_rows (view) > 0 && gtk_adjustment_get_value (vadjustment) > 0);
  spin (200);
  g_test_message ("scrolled to %.0f of %.0f", gtk_adjustment_get_value (vadjustment),
                  gtk_adjustment_get_upper (vadjustment));
  /* Row 1100 of 1200: the view is near the bottom, not at the top. */
  g_assert_cmpfloat (gtk_adjustment_get_value (vadjustment), >,
                     0.8 * (gtk_adjustment_get_upper (vadjustment) - gtk_adjustment_get_page_size (vadjustment)));
  g_assert_cmpuint (prism_candidate_row_get_id (prism_candidates_view_get_selected (view)), ==, 100);
  (void) selection;

  gtk_window_destroy (GTK_WINDOW (window));
  g_clear_pointer (&reference, prism_graph_unref);
}

/* Issue 25, item 6: the detail pane said "found after 263 ms" for a point
 * the chart plotted at 2.0 s (announced once the search's earlier tasks
 * were done); it says both. */
static void
test_found_at (void)
{
  g_autoptr(PrismSearchModel) model = prism_search_model_new ();
  g_autoptr(PrismCandidate) c = prism_candidate_new ();
  g_autoptr(PrismEvent) e = prism_event_new (PRISM_EVENT_VERIFIED);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  GtkWidget *window = gtk_window_new ();
  PrismCandidatesView *view = PRISM_CANDIDATES_VIEW (prism_candidates_view_new ());

  reference = prism_workload_build_reference ("rms_norm", NULL, &error);
  g_assert_no_error (error);
  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (view));
  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 700);
  prism_candidates_view_set_model (view, model);
  gtk_window_present (GTK_WINDOW (window));

  c->id = 7;
  c->digest = g_strdup_printf ("%032x", 7);
  c->graph = prism_graph_ref (reference);
  c->n_kernels = prism_graph_count_kernels (c->graph);
  c->verdict = g_strdup ("equivalent");
  c->speedup = 1.5;
  c->predicted_us = 10.0 / c->speedup;
  c->found_at_s = 0.263;
  e->time_s = 2.0;
  e->candidate = prism_candidate_ref (c);
  e->id = 7;
  prism_search_model_apply_event (model, e);
  prism_search_model_flush (model);
  g_assert_true (prism_candidates_view_select_id (view, 7));
  text = prism_candidates_view_get_verification_text (view);
  g_test_message ("%s", text);
  g_assert_nonnull (strstr (text, "263 ms; announced at 2"));

  gtk_window_destroy (GTK_WINDOW (window));
  g_clear_pointer (&reference, prism_graph_unref);
}

int
main (int argc, char *argv[])
{
  if (g_getenv ("DISPLAY") == NULL && g_getenv ("WAYLAND_DISPLAY") == NULL)
    {
      g_printerr ("no display: run the ui suite under xvfb-run\n");
      return 77;
    }
  gtk_test_init (&argc, &argv, NULL);
  g_object_set (gtk_settings_get_default (), "gtk-enable-animations", FALSE, NULL);

  g_test_add_func ("/explorer/candidates-view/hidden", test_hidden);
  g_test_add_func ("/explorer/candidates-view/filter", test_filter);
  g_test_add_func ("/explorer/candidates-view/found-at", test_found_at);
  return g_test_run ();
}
