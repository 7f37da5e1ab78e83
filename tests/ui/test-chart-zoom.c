/* test-chart-zoom.c — the speedup chart and the roofline zoom and pan
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

#include "prism-gpu-target.h"
#include "prism-kernel-report.h"
#include "prism-roofline-chart.h"
#include "prism-search-model.h"
#include "prism-search-view.h"
#include "prism-speedup-chart.h"
#include "prism-workload.h"
#include "ui-test-util.h"

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
  ui_test_save_screenshot (window, "speedup-full.png");
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
  ui_test_save_screenshot (window, "speedup-zoomed.png");
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

/* The roofline zooms in log space: the wheel over a launch's point keeps it
 * under the pointer, the ticks become 1, 2, 5 of the visible decades,
 * points out of view are not hovered, a double click or 0 shows every
 * decade again, and another report starts unzoomed. */
static void
test_roofline_zoom (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismGraph) program = prism_workload_build ("rms_norm", "n=8,d=256", &error);
  g_autoptr(PrismKernelReport) report = NULL;
  g_autoptr(PrismKernelReport) other = NULL;
  GtkWidget *window = gtk_window_new ();
  PrismRooflineChart *chart = PRISM_ROOFLINE_CHART (prism_roofline_chart_new ());
  GtkEventController *motion, *scroll, *click;
  const PrismRooflinePoint *point;
  double full[4], view[4], x, y;
  gboolean handled = FALSE, any_fine = FALSE;
  int index = -1;

  g_assert_no_error (error);
  report = prism_kernel_report_new (program, prism_gpu_target_default (), FALSE, FALSE, NULL, &error);
  g_assert_no_error (error);
  other = prism_kernel_report_new (program, prism_gpu_target_default (), TRUE, FALSE, NULL, &error);
  g_assert_no_error (error);
  gtk_window_set_default_size (GTK_WINDOW (window), 700, 520);
  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (chart));
  prism_roofline_chart_set_reports (chart, report, NULL, 0, 0);
  gtk_window_present (GTK_WINDOW (window));
  motion = find_controller (GTK_WIDGET (chart), GTK_TYPE_EVENT_CONTROLLER_MOTION);
  scroll = find_controller (GTK_WIDGET (chart), GTK_TYPE_EVENT_CONTROLLER_SCROLL);
  click = find_controller (GTK_WIDGET (chart), GTK_TYPE_GESTURE_CLICK);

  gtk_widget_queue_draw (GTK_WIDGET (chart));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (chart));
  g_assert_false (prism_roofline_chart_get_zoomed (chart));
  prism_roofline_chart_get_view (chart, &full[0], &full[1], &full[2], &full[3]);
  g_assert_cmpuint (prism_roofline_chart_get_n_points (chart), >, 0);
  point = prism_roofline_chart_get_point (chart, 0);
  x = point->x;
  y = point->y;
  g_assert_cmpint (prism_roofline_chart_point_at (chart, x, y), ==, 0);

  /* Six notches up over the first point. */
  g_signal_emit_by_name (motion, "enter", x, y);
  g_signal_emit_by_name (motion, "motion", x, y);
  g_signal_emit_by_name (scroll, "scroll", 0.0, -6.0, &handled);
  g_assert_true (handled);
  g_assert_true (prism_roofline_chart_get_zoomed (chart));
  gtk_widget_queue_draw (GTK_WIDGET (chart));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (chart));
  ui_test_save_screenshot (window, "roofline-zoomed.png");
  prism_roofline_chart_get_view (chart, &view[0], &view[1], &view[2], &view[3]);
  g_test_message ("roofline zoomed from 10^%g–10^%g to 10^%.2f–10^%.2f FLOP/B", full[0], full[1], view[0], view[1]);
  g_assert_cmpfloat (fabs ((view[1] - view[0]) - (full[1] - full[0]) / pow (1.25, 6)), <, 1e-6);
  point = prism_roofline_chart_get_point (chart, 0);
  g_assert_cmpfloat (fabs (point->x - x), <, 1);
  g_assert_cmpfloat (fabs (point->y - y), <, 1);
  g_assert_cmpint (prism_roofline_chart_point_at (chart, x, y), ==, 0);
  /* Fewer than three decades in view: 2s and 5s between them. */
  {
    GPtrArray *ticks = prism_roofline_chart_get_ticks (chart);

    g_assert_cmpfloat (view[1] - view[0], <, 3);
    for (guint i = 0; i < ticks->len; i++)
      any_fine |= ((const char *) g_ptr_array_index (ticks, i))[0] == '2' ||
                  ((const char *) g_ptr_array_index (ticks, i))[0] == '5';
    g_assert_true (any_fine);
  }
  /* Panned far away, the point is out of view and not hovered. */
  prism_roofline_chart_pan (chart, -1e6, -1e6);
  gtk_widget_queue_draw (GTK_WIDGET (chart));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (chart));
  prism_roofline_chart_get_view (chart, &view[0], &view[1], &view[2], &view[3]);
  g_assert_cmpfloat (fabs (view[1] - full[1]), <, 1e-9);
  for (guint i = 0; i < prism_roofline_chart_get_n_points (chart); i++)
    if (prism_roofline_chart_get_point (chart, i)->intensity < pow (10, view[0]))
      index = (int) i;
  if (index >= 0)
    g_assert_cmpint (prism_roofline_chart_point_at (chart, x, y), !=, index);

  /* A double click shows every decade again. */
  g_signal_emit_by_name (click, "pressed", 2, 5.0, 5.0);
  g_assert_false (prism_roofline_chart_get_zoomed (chart));
  /* The keys' actions, and another report starts unzoomed. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (chart), "roofline.zoom-in", NULL));
  g_assert_true (prism_roofline_chart_get_zoomed (chart));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (chart), "roofline.reset-zoom", NULL));
  g_assert_false (prism_roofline_chart_get_zoomed (chart));
  prism_roofline_chart_zoom_at (chart, x, y, 3, FALSE);
  g_assert_true (prism_roofline_chart_get_zoomed (chart));
  prism_roofline_chart_set_reports (chart, report, NULL, 5.0, 0);   /* a measurement: kept */
  g_assert_true (prism_roofline_chart_get_zoomed (chart));
  prism_roofline_chart_set_reports (chart, other, NULL, 0, 0);
  g_assert_false (prism_roofline_chart_get_zoomed (chart));

  gtk_window_destroy (GTK_WINDOW (window));
}

/* Issue 25, item 6: a 0.14 s run filled 5 % of an axis that never started
 * below 2.5 s, and the chart said "No verified candidates yet" over the
 * points of candidates slower than the program. */
static void
test_short_run (void)
{
  g_autoptr(PrismSearchModel) model = prism_search_model_new ();
  GtkWidget *window = gtk_window_new ();
  PrismSearchView *view = PRISM_SEARCH_VIEW (prism_search_view_new ());
  PrismSpeedupChart *chart = prism_search_view_get_speedup_chart (view);
  double full_t, full_s;

  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 640);
  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (view));
  prism_search_view_set_model (view, model);
  gtk_window_present (GTK_WINDOW (window));
  redraw (chart);
  g_assert_cmpstr (prism_speedup_chart_get_message (chart), ==, "No verified candidates yet");

  /* Three candidates, all slower than the program, in 0.14 s. */
  for (guint i = 1; i <= 3; i++)
    apply_verified (model, i, 0.5 + 0.1 * i, 0.04 * i + 0.02);
  prism_search_model_flush (model);
  redraw (chart);
  prism_speedup_chart_get_ranges (chart, &full_t, &full_s);
  g_test_message ("axis to %g s for a 0.14 s run; message: %s", full_t, prism_speedup_chart_get_message (chart));
  g_assert_cmpuint (prism_speedup_chart_count_dots (chart, FALSE), ==, 3);
  g_assert_cmpfloat (full_t, >=, 0.14);
  g_assert_cmpfloat (full_t, <=, 0.5);
  g_assert_cmpstr (prism_speedup_chart_get_message (chart), ==, "No candidate is faster than the program yet");

  /* One faster: the best line, and no sentence. */
  apply_verified (model, 4, 1.5, 0.2);
  prism_search_model_flush (model);
  redraw (chart);
  g_assert_null (prism_speedup_chart_get_message (chart));
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Issue 25, item 6: + zoomed about the plot's centre, and a few presses
 * pushed every point out of view when the points sat in a corner. */
static void
test_keyboard_zoom (void)
{
  g_autoptr(PrismSearchModel) model = prism_search_model_new ();
  g_autoptr(PrismEvent) progress = prism_event_new (PRISM_EVENT_PROGRESS);
  GtkWidget *window = gtk_window_new ();
  PrismSearchView *view = PRISM_SEARCH_VIEW (prism_search_view_new ());
  PrismSpeedupChart *chart = prism_search_view_get_speedup_chart (view);

  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 640);
  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (view));
  prism_search_view_set_model (view, model);
  gtk_window_present (GTK_WINDOW (window));
  /* Five candidates in the first 1.5 s of a 20 s run, speedups 1.1–1.3×
   * under a best of 4× found at 1 s: the bottom-left corner. */
  for (guint i = 1; i <= 5; i++)
    apply_verified (model, i, 1.05 + 0.05 * i, 0.3 * i);
  apply_verified (model, 6, 4.0, 1.0);
  progress->time_s = 20;
  progress->stats.search.elapsed_s = 20;
  progress->stats.search.states = 1000;
  prism_search_model_apply_event (model, progress);
  prism_search_model_flush (model);
  redraw (chart);
  g_assert_cmpuint (prism_speedup_chart_count_dots (chart, FALSE), ==, 6);

  for (guint i = 0; i < 8; i++)
    {
      g_assert_true (gtk_widget_activate_action (GTK_WIDGET (chart), "chart.zoom-in", NULL));
      redraw (chart);
      g_test_message ("+ %u: %u points in view", i + 1, prism_speedup_chart_count_dots (chart, FALSE));
      /* Before: none from the first press on. */
      g_assert_cmpuint (prism_speedup_chart_count_dots (chart, FALSE), >, 0);
    }
  g_assert_true (prism_speedup_chart_get_zoomed (chart));
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
  g_test_add_func ("/explorer/roofline/zoom", test_roofline_zoom);
  g_test_add_func ("/explorer/speedup-chart/short-run", test_short_run);
  g_test_add_func ("/explorer/speedup-chart/keyboard-zoom", test_keyboard_zoom);
  return g_test_run ();
}
