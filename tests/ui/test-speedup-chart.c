/* test-speedup-chart.c — the speedup chart zooms and pans
 *
 * Candidates go into a search model as a session would deliver them; the
 * chart's own controllers get the wheel, the drag and the double click
 * (their signals emitted as GTK would), and its actions the keys.  Zoomed,
 * the point under the pointer stays put, the ticks are those of the
 * visible range, the points outside it cannot be clicked and those inside
 * still select their candidate; a new search shows everything again.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>
#include <gtk/gtk.h>

#include "prism-search-model.h"
#include "prism-search-view.h"
#include "prism-speedup-chart.h"
#include "prism-workload.h"

#define N_CANDIDATES 20

static PrismCandidate *
candidate_new (guint id, double speedup, double found_at_s)
{
  g_autoptr(GError) error = NULL;
  PrismCandidate *c = prism_candidate_new ();

  c->id = id;
  c->digest = g_strdup_printf ("%032x", id);
  c->graph = prism_workload_build_reference ("rms_norm", NULL, &error);
  g_assert_no_error (error);
  c->n_kernels = prism_graph_count_kernels (c->graph);
  c->verdict = g_strdup ("equivalent");
  c->predicted_us = 10.0 / speedup;
  c->speedup = speedup;
  c->found_at_s = found_at_s;
  c->task = id;
  return c;
}

static void
apply_verified (PrismSearchModel *model, guint id, double speedup, double time_s)
{
  g_autoptr(PrismCandidate) c = candidate_new (id, speedup, time_s);
  g_autoptr(PrismEvent) e = prism_event_new (PRISM_EVENT_VERIFIED);

  e->time_s = time_s;
  e->candidate = prism_candidate_ref (c);
  e->id = id;
  prism_search_model_apply_event (model, e);
}

/* Candidates 1 … 20 verified at 1 … 20 s, speedups between 1.1× and 3×. */
static void
fill_model (PrismSearchModel *model)
{
  for (guint i = 1; i <= N_CANDIDATES; i++)
    apply_verified (model, i, 1.1 + 0.1 * ((i * 7) % N_CANDIDATES), i);
  prism_search_model_flush (model);
}

static GtkEventController *
find_controller (GtkWidget *widget, GType type)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (widget);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GtkEventController) controller = g_list_model_get_item (controllers, i);

      if (G_TYPE_CHECK_INSTANCE_TYPE (controller, type))
        return controller;   /* the widget keeps it */
    }
  g_error ("no %s on the chart", g_type_name (type));
  return NULL;
}

static void
redraw (PrismSpeedupChart *chart)
{
  gtk_widget_queue_draw (GTK_WIDGET (chart));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (chart));
}

static void
save_screenshot (GtkWidget *widget, const char *name)
{
  g_autoptr(GdkPaintable) paintable = gtk_widget_paintable_new (widget);
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  g_autoptr(GskRenderNode) node = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  g_autofree char *path = g_build_filename (g_test_get_dir (G_TEST_BUILT), name, NULL);
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);

  gdk_paintable_snapshot (paintable, snapshot, width, height);
  node = gtk_snapshot_free_to_node (snapshot);
  g_assert_nonnull (node);
  texture = gsk_renderer_render_texture (gtk_native_get_renderer (GTK_NATIVE (widget)), node,
                                         &GRAPHENE_RECT_INIT (0, 0, width, height));
  g_assert_true (gdk_texture_save_to_png (texture, path));
  g_test_message ("screenshot: %s (%dx%d)", path, width, height);
}

static gboolean
ticks_contain (PrismSpeedupChart *chart, GtkOrientation orientation, const char *label)
{
  GPtrArray *ticks = prism_speedup_chart_get_ticks (chart, orientation);

  for (guint i = 0; i < ticks->len; i++)
    if (g_str_equal (g_ptr_array_index (ticks, i), label))
      return TRUE;
  return FALSE;
}

static void
activated_cb (PrismSpeedupChart *chart, guint id, guint *activated)
{
  *activated = id;
}

static void
test_zoom (void)
{
  g_autoptr(PrismSearchModel) model = prism_search_model_new ();
  GtkWidget *window = gtk_window_new ();
  PrismSearchView *view = PRISM_SEARCH_VIEW (prism_search_view_new ());
  PrismSpeedupChart *chart = prism_search_view_get_speedup_chart (view);
  GtkEventController *motion, *scroll, *click, *drag;
  double full_t, full_s, t0, t1, s0, s1, x, y, x2, y2, zt0, zs0;
  guint activated = 0, visible;
  gboolean handled = FALSE;

  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 640);
  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (view));
  prism_search_view_set_model (view, model);
  gtk_window_present (GTK_WINDOW (window));
  fill_model (model);
  g_signal_connect (chart, "candidate-activated", G_CALLBACK (activated_cb), &activated);
  motion = find_controller (GTK_WIDGET (chart), GTK_TYPE_EVENT_CONTROLLER_MOTION);
  scroll = find_controller (GTK_WIDGET (chart), GTK_TYPE_EVENT_CONTROLLER_SCROLL);
  click = find_controller (GTK_WIDGET (chart), GTK_TYPE_GESTURE_CLICK);
  drag = find_controller (GTK_WIDGET (chart), GTK_TYPE_GESTURE_DRAG);

  /* Everything, on the axes the search grew. */
  redraw (chart);
  save_screenshot (window, "speedup-full.png");
  g_assert_cmpuint (prism_speedup_chart_count_dots (chart, FALSE), ==, N_CANDIDATES);
  g_assert_false (prism_speedup_chart_get_zoomed (chart));
  prism_speedup_chart_get_ranges (chart, &full_t, &full_s);
  prism_speedup_chart_get_view (chart, &t0, &t1, &s0, &s1);
  g_assert_cmpfloat (t0, ==, 0);
  g_assert_cmpfloat (t1, ==, full_t);
  g_assert_cmpfloat (s1, ==, full_s);
  g_assert_cmpfloat (full_t, >=, 20);
  g_assert_true (ticks_contain (chart, GTK_ORIENTATION_HORIZONTAL, "0 s"));
  g_assert_false (ticks_contain (chart, GTK_ORIENTATION_HORIZONTAL, "10.5 s"));
  g_assert_false (gtk_widget_activate_action (GTK_WIDGET (chart), "chart.reset-zoom", NULL) &&
                  prism_speedup_chart_get_zoomed (chart));
  g_assert_false (gtk_widget_get_sensitive (prism_search_view_get_reset_zoom_button (view)));

  /* Three wheel notches up over candidate 10's point: zoomed around it. */
  g_assert_true (prism_speedup_chart_find_point (chart, 10, &x, &y));
  g_signal_emit_by_name (motion, "enter", x, y);
  g_signal_emit_by_name (motion, "motion", x, y);
  g_signal_emit_by_name (scroll, "scroll", 0.0, -3.0, &handled);
  g_assert_true (handled);
  g_assert_true (prism_speedup_chart_get_zoomed (chart));
  g_assert_true (gtk_widget_get_sensitive (prism_search_view_get_reset_zoom_button (view)));
  redraw (chart);
  prism_speedup_chart_get_view (chart, &t0, &t1, &s0, &s1);
  g_test_message ("zoomed to %.3g–%.3g s, %.3g–%.3g×", t0, t1, s0, s1);
  g_assert_cmpfloat (fabs ((t1 - t0) - full_t / pow (1.25, 3)), <, 1e-6);
  g_assert_cmpfloat (t0, >, 0);
  g_assert_cmpfloat (t0, <, 10);
  g_assert_cmpfloat (t1, >, 10);
  g_assert_true (prism_speedup_chart_find_point (chart, 10, &x2, &y2));
  g_assert_cmpfloat (fabs (x2 - x), <, 1);
  g_assert_cmpfloat (fabs (y2 - y), <, 1);
  /* The ticks are the visible range's, finer than the full range's. */
  g_assert_false (ticks_contain (chart, GTK_ORIENTATION_HORIZONTAL, "0 s"));
  {
    GPtrArray *ticks = prism_speedup_chart_get_ticks (chart, GTK_ORIENTATION_HORIZONTAL);

    g_assert_cmpuint (ticks->len, >=, 3);
    for (guint i = 0; i < ticks->len; i++)
      {
        double t = g_ascii_strtod (g_ptr_array_index (ticks, i), NULL);

        g_assert_cmpfloat (t, >=, t0 - 1e-9);
        g_assert_cmpfloat (t, <=, t1 + 1e-9);
      }
  }
  /* Points out of view are not drawn and cannot be clicked. */
  visible = prism_speedup_chart_count_dots (chart, FALSE);
  g_assert_cmpuint (visible, <, N_CANDIDATES);
  g_assert_cmpuint (visible, >, 0);
  g_assert_false (prism_speedup_chart_find_point (chart, 1, &x2, &y2));
  save_screenshot (window, "speedup-zoomed.png");
  /* A point in view still selects its candidate. */
  g_signal_emit_by_name (click, "pressed", 1, x, y);
  g_assert_cmpuint (activated, ==, 10);

  /* A drag 100 px to the left shows later seconds; a drag on a point does
   * not pan (the press selected it). */
  zt0 = t0;
  zs0 = s0;
  g_signal_emit_by_name (drag, "drag-begin", 400.0, 60.0);
  g_signal_emit_by_name (drag, "drag-update", -100.0, 0.0);
  g_signal_emit_by_name (drag, "drag-end", -100.0, 0.0);
  prism_speedup_chart_get_view (chart, &t0, &t1, &s0, &s1);
  g_assert_cmpfloat (t0, >, zt0);
  g_assert_cmpfloat (fabs ((t1 - t0) - full_t / pow (1.25, 3)), <, 1e-6);
  g_assert_cmpfloat (fabs (s0 - zs0), <, 1e-9);
  /* Panned against the end, the view stops there. */
  prism_speedup_chart_pan (chart, -1e6, 0);
  prism_speedup_chart_get_view (chart, &t0, &t1, NULL, NULL);
  g_assert_cmpfloat (fabs (t1 - full_t), <, 1e-9);
  redraw (chart);
  g_assert_false (ticks_contain (chart, GTK_ORIENTATION_HORIZONTAL, "0 s"));

  /* A double click off the points shows everything again. */
  g_signal_emit_by_name (click, "pressed", 2, 1.0, 1.0);
  g_assert_false (prism_speedup_chart_get_zoomed (chart));
  redraw (chart);
  g_assert_cmpuint (prism_speedup_chart_count_dots (chart, FALSE), ==, N_CANDIDATES);
  g_assert_true (ticks_contain (chart, GTK_ORIENTATION_HORIZONTAL, "0 s"));

  /* The actions (+, −, 0): zoom in, out to everything, reset. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (chart), "chart.zoom-in", NULL));
  g_assert_true (prism_speedup_chart_get_zoomed (chart));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (chart), "chart.zoom-out", NULL));
  g_assert_false (prism_speedup_chart_get_zoomed (chart));
  prism_speedup_chart_zoom_at (chart, x, y, 4, TRUE);
  prism_speedup_chart_get_view (chart, &t0, &t1, &s0, &s1);
  g_assert_cmpfloat (s0, ==, 0);   /* the time axis only */
  g_assert_cmpfloat (s1, ==, full_s);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (chart), "chart.reset-zoom", NULL));
  g_assert_false (prism_speedup_chart_get_zoomed (chart));
  /* And the page's Reset Zoom button. */
  prism_speedup_chart_zoom_at (chart, x, y, 2, FALSE);
  g_assert_true (prism_speedup_chart_get_zoomed (chart));
  g_signal_emit_by_name (prism_search_view_get_reset_zoom_button (view), "clicked");
  g_assert_false (prism_speedup_chart_get_zoomed (chart));

  /* The next search starts unzoomed. */
  prism_speedup_chart_zoom_at (chart, x, y, 4, FALSE);
  g_assert_true (prism_speedup_chart_get_zoomed (chart));
  prism_search_model_reset (model);
  apply_verified (model, 1, 1.5, 1);
  prism_search_model_flush (model);
  g_assert_false (prism_speedup_chart_get_zoomed (chart));

  gtk_window_destroy (GTK_WINDOW (window));
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

  g_test_add_func ("/explorer/speedup-chart/zoom", test_zoom);
  return g_test_run ();
}
