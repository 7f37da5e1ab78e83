/* prism-speedup-chart.c — best speedup over time and every candidate's
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "prism-speedup-chart"

#include "config.h"

#include <math.h>
#include <glib/gi18n.h>

#include "prism-chart-text.h"
#include "prism-chart-zoom.h"
#include "prism-format.h"
#include "prism-speedup-chart.h"

/* Time runs left to right from the start of the search; speedup over the
 * unfused program runs up from 0, with the program itself (1×) as a dashed
 * line. The best speedup so far is a step line, as it only changes when a
 * faster candidate is verified; each candidate is a dot at the time it was
 * verified, hollow when its speedup is the cost model's prediction and
 * filled when it was measured on a GPU. Within a search the axes only grow,
 * in nice steps, so the chart does not jitter while it runs; the next search
 * starts them again.
 *
 * The wheel zooms around the pointer (both axes; with Shift the time axis
 * only), a drag pans, a double click or 0 shows everything again.  Zoomed,
 * the view stays where the user put it while the search goes on, within
 * the axes' full range; the ticks are those of the visible range. */

#define PAD          12.0
#define AXIS_LEFT    46.0
#define AXIS_BOTTOM  24.0
#define DOT_RADIUS    3.5
#define HOVER_RADIUS 10.0

#define ZOOM_STEP    PRISM_CHART_ZOOM_STEP

#define COLOR_BEST   "#3584e4"
#define COLOR_POINTS "#e66100"

typedef struct
{
  double x, y;
  PrismSpeedupPoint point;
} Dot;

struct _PrismSpeedupChart
{
  GtkWidget parent_instance;

  PrismSearchModel *model;
  gulong changed_handler;

  double max_time_s;
  double max_speedup;
  guint run;              /* the model's run the axes belong to */
  gboolean measured_legend;
  GArray *dots;          /* Dot, where the last snapshot drew the points (visible ones) */
  double pointer_x, pointer_y;
  gboolean pointer_inside;

  /* Seconds across, speedup up, from 0 to the axes' ends. */
  PrismChartZoom zoom;
  GPtrArray *time_ticks;    /* the last drawing's tick labels (char *), for tests */
  GPtrArray *speedup_ticks;
  const char *message;      /* the last drawing's sentence in the plot, or NULL */
};

G_DEFINE_FINAL_TYPE (PrismSpeedupChart, prism_speedup_chart, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_MODEL,
  PROP_ZOOMED,
  N_PROPS
};

static GParamSpec *properties [N_PROPS];

enum {
  CANDIDATE_ACTIVATED,
  N_SIGNALS
};

static guint signals [N_SIGNALS];

/*
 * Auxiliary methods
 */

static GdkRGBA
parse_color (const char *spec)
{
  GdkRGBA rgba;

  gdk_rgba_parse (&rgba, spec);
  return rgba;
}

/* A step of 1, 2 or 5 × 10ⁿ giving at most @max_ticks ticks over @range. */
static double
nice_step (double range,
           guint  max_ticks)
{
  double base, step;

  if (range <= 0)
    return 1;
  base = pow (10, floor (log10 (range / max_ticks)));
  step = base;
  while (range / step > max_ticks)
    step = step == base ? 2 * base : step == 2 * base ? 5 * base : (base *= 10);
  return step;
}

/* Seconds step in 1, 2, 5, 10, 15, 30 s, 1, 2, 5, 10, 15, 30 min … */
static double
time_step (double range,
           guint  max_ticks)
{
  static const double steps[] = { 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600,
                                  7200, 14400, 43200, 86400 };

  /* Zoomed into less than a few seconds: tenths, hundredths… */
  if (range <= max_ticks * steps[0])
    return nice_step (range, max_ticks);
  for (guint i = 0; i < G_N_ELEMENTS (steps); i++)
    if (range / steps[i] <= max_ticks)
      return steps[i];
  return nice_step (range, max_ticks);
}

static char *
format_tick_time (double seconds)
{
  if (seconds < 60 || fmod (seconds, 60) != 0)
    /* Translators: an axis tick in seconds */
    return g_strdup_printf (_("%g s"), seconds);
  if (seconds < 3600 || fmod (seconds, 3600) != 0)
    /* Translators: an axis tick in minutes */
    return g_strdup_printf (_("%g min"), seconds / 60);
  /* Translators: an axis tick in hours */
  return g_strdup_printf (_("%g h"), seconds / 3600);
}

static void
update_ranges (PrismSpeedupChart *self)
{
  const PrismSpeedupPoint *points;
  guint n_points = 0;
  double elapsed = prism_search_model_get_elapsed (self->model);
  double top = 1.25;
  double step;

  points = prism_search_model_get_points (self->model, &n_points);
  for (guint i = 0; i < n_points; i++)
    {
      top = MAX (top, points[i].speedup * 1.1);
      elapsed = MAX (elapsed, points[i].time_s);
    }
  points = prism_search_model_get_best_series (self->model, &n_points);
  for (guint i = 0; i < n_points; i++)
    top = MAX (top, points[i].speedup * 1.1);

  /* Grow only, and to the next tick, so that the axes stay still.  The
   * floor is small: a 0.14 s run filled 5 % of an axis that started at
   * 2.5 s. */
  elapsed = MAX (elapsed, 0.1);
  if (elapsed > self->max_time_s)
    {
      step = time_step (elapsed * 1.15, 6);
      self->max_time_s = ceil (elapsed * 1.15 / step) * step;
    }
  if (top > self->max_speedup)
    {
      step = nice_step (top, 5);
      self->max_speedup = ceil (top / step) * step;
    }
}

/* The axes' full range follows the points found so far. */
static void
update_full_range (PrismSpeedupChart *self)
{
  prism_chart_zoom_set_full (&self->zoom, 0, self->max_time_s, 0, self->max_speedup);
}

/* The range drawn: the user's when zoomed, else the axes' full range. */
static void
get_view (PrismSpeedupChart *self,
          double            *t0,
          double            *t1,
          double            *s0,
          double            *s1)
{
  update_full_range (self);
  prism_chart_zoom_get_view (&self->zoom, t0, t1, s0, s1);
}

/* The actions, Reset Zoom and the drawing follow the zoom. */
static void
zoom_changed (PrismSpeedupChart *self,
              gboolean           was_zoomed)
{
  gboolean zoomed = self->zoom.zoomed;

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "chart.reset-zoom", zoomed);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "chart.zoom-out", zoomed);
  gtk_widget_queue_draw (GTK_WIDGET (self));
  if (zoomed != was_zoomed)
    g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_ZOOMED]);
}

static void
set_zoomed (PrismSpeedupChart *self,
            gboolean           zoomed)
{
  gboolean was_zoomed = self->zoom.zoomed;

  self->zoom.zoomed = zoomed;
  zoom_changed (self, was_zoomed);
}

static void
draw_legend (PrismSpeedupChart *self,
             GtkSnapshot       *snapshot,
             const GdkRGBA     *fg,
             const GdkRGBA     *dim,
             double             width,
             double            *y)
{
  GtkWidget *widget = GTK_WIDGET (self);
  /* Translators: the speedup chart's legend; %s is what the baseline is */
  g_autofree char *baseline = g_strdup_printf (_("Baseline: %s (1×)"),
                                               prism_search_model_get_baseline_label (self->model));
  enum { BEST, PREDICTED, MEASURED, BASELINE };
  const char *labels[4] = {
    _("Best so far"),
    _("Candidate, predicted (cost model)"),
    _("Candidate, measured on GPU"),
    baseline,
  };
  /* Filled dots are explained only when some are drawn: without a GPU the
   * legend does not promise measurements. */
  gboolean any_measured = FALSE;
  double x = PAD + AXIS_LEFT, line_height = 0;
  GdkRGBA best = parse_color (COLOR_BEST);
  GdkRGBA dots = parse_color (COLOR_POINTS);
  guint hidden = prism_search_model_get_hidden_points (self->model);
  g_autofree char *hidden_text = NULL;
  const PrismSpeedupPoint *points;
  guint n_points;

  points = prism_search_model_get_points (self->model, &n_points);
  for (guint i = 0; i < n_points && !any_measured; i++)
    any_measured = points[i].measured;
  self->measured_legend = any_measured;

  for (guint i = 0; i < G_N_ELEMENTS (labels); i++)
    {
      g_autoptr(PangoLayout) layout = NULL;
      double tw, th, item_width;
      cairo_t *cr;

      if (i == MEASURED && !any_measured)
        continue;
      layout = gtk_widget_create_pango_layout (widget, labels[i]);

      prism_chart_text_size (layout, &tw, &th);
      item_width = 22 + 5 + tw + 16;
      if (x + item_width > width - PAD && x > PAD + AXIS_LEFT)
        {
          x = PAD + AXIS_LEFT;
          *y += line_height + 4;
        }
      line_height = MAX (line_height, th);

      cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (x, *y, 22, th));
      cairo_set_line_width (cr, i == BEST ? 2 : 1.5);
      switch (i)
        {
        case BEST:
          gdk_cairo_set_source_rgba (cr, &best);
          cairo_move_to (cr, x, *y + th / 2 + 3);
          cairo_line_to (cr, x + 11, *y + th / 2 + 3);
          cairo_line_to (cr, x + 11, *y + th / 2 - 3);
          cairo_line_to (cr, x + 22, *y + th / 2 - 3);
          cairo_stroke (cr);
          break;
        case PREDICTED:
        case MEASURED:
          cairo_arc (cr, x + 11, *y + th / 2, DOT_RADIUS, 0, 2 * G_PI);
          gdk_cairo_set_source_rgba (cr, &dots);
          if (i == MEASURED)
            cairo_fill_preserve (cr);
          cairo_stroke (cr);
          break;
        default:
          cairo_set_dash (cr, (double[]) { 4, 3 }, 2, 0);
          gdk_cairo_set_source_rgba (cr, dim);
          cairo_move_to (cr, x, *y + th / 2);
          cairo_line_to (cr, x + 22, *y + th / 2);
          cairo_stroke (cr);
          break;
        }
      cairo_destroy (cr);
      prism_chart_append_text (snapshot, layout, fg, x + 27, *y);
      x += item_width;
    }

  /* The thinning of a long series is said, never silent. */
  if (hidden > 0)
    {
      g_autoptr(PangoLayout) layout = NULL;
      double tw, th;

      hidden_text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                  "%u earlier candidate not shown (series thinned)",
                                                  "%u earlier candidates not shown (series thinned)",
                                                  hidden), hidden);
      layout = gtk_widget_create_pango_layout (widget, hidden_text);
      prism_chart_text_size (layout, &tw, &th);
      if (x + tw > width - PAD)
        {
          x = PAD + AXIS_LEFT;
          *y += line_height + 4;
        }
      prism_chart_append_text (snapshot, layout, dim, x, *y);
    }
  *y += line_height + 10;
}

/*
 * GtkWidget overrides
 */

static void
prism_speedup_chart_snapshot (GtkWidget   *widget,
                              GtkSnapshot *snapshot)
{
  PrismSpeedupChart *self = PRISM_SPEEDUP_CHART (widget);
  double width = gtk_widget_get_width (widget);
  double height = gtk_widget_get_height (widget);
  double top = PAD, left = PAD + AXIS_LEFT, right = width - PAD - 8, bottom;
  double plot_w, plot_h, step, elapsed;
  double vt0, vt1, vs0, vs1;
  const PrismSpeedupPoint *points, *best;
  guint n_points = 0, n_best = 0;
  GdkRGBA fg, dim, grid, best_color, dot_color;
  cairo_t *cr;
  int hover = -1;

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  gtk_style_context_get_color (gtk_widget_get_style_context (widget), &fg);
  G_GNUC_END_IGNORE_DEPRECATIONS
  dim = fg;
  dim.alpha *= 0.6;
  grid = fg;
  grid.alpha *= 0.1;
  best_color = parse_color (COLOR_BEST);
  dot_color = parse_color (COLOR_POINTS);

  g_array_set_size (self->dots, 0);
  self->message = NULL;
  g_ptr_array_set_size (self->time_ticks, 0);
  g_ptr_array_set_size (self->speedup_ticks, 0);
  if (self->model == NULL)
    return;

  draw_legend (self, snapshot, &fg, &dim, width, &top);
  bottom = height - PAD - AXIS_BOTTOM;
  plot_w = right - left;
  plot_h = bottom - top;
  if (plot_w < 40 || plot_h < 30)
    return;

  self->zoom.plot = GRAPHENE_RECT_INIT (left, top, plot_w, plot_h);
  update_ranges (self);
  get_view (self, &vt0, &vt1, &vs0, &vs1);
  points = prism_search_model_get_points (self->model, &n_points);
  best = prism_search_model_get_best_series (self->model, &n_best);
  elapsed = prism_search_model_get_elapsed (self->model);

#define X(t) (left + ((t) - vt0) / (vt1 - vt0) * plot_w)
#define Y(s) (bottom - ((s) - vs0) / (vs1 - vs0) * plot_h)

  /* Grid and tick labels, of the visible range. */
  step = nice_step (vs1 - vs0, 5);
  /* Whole multiples of the step (and never −0). */
  for (double i = MAX (ceil (vs0 / step - 1e-6), 0); i * step <= vs1 + step / 1000; i++)
    {
      g_autofree char *label = g_strdup_printf ("%g×", i * step);
      g_autoptr(PangoLayout) layout = gtk_widget_create_pango_layout (widget, label);
      double tw, th, y = floor (Y (i * step));

      gtk_snapshot_append_color (snapshot, &grid, &GRAPHENE_RECT_INIT (left, y, plot_w, 1));
      prism_chart_text_size (layout, &tw, &th);
      prism_chart_append_text (snapshot, layout, &dim, left - 6 - tw, y - th / 2);
      g_ptr_array_add (self->speedup_ticks, g_steal_pointer (&label));
    }
  step = time_step (vt1 - vt0, 6);
  for (double i = MAX (ceil (vt0 / step - 1e-6), 0); i * step <= vt1 + step / 1000; i++)
    {
      g_autofree char *label = format_tick_time (i * step);
      g_autoptr(PangoLayout) layout = gtk_widget_create_pango_layout (widget, label);
      double tw, th, x = floor (X (i * step));

      gtk_snapshot_append_color (snapshot, &grid, &GRAPHENE_RECT_INIT (x, top, 1, plot_h));
      prism_chart_text_size (layout, &tw, &th);
      prism_chart_append_text (snapshot, layout, &dim, CLAMP (x - tw / 2, left - tw / 2, width - PAD - tw),
                   bottom + 5);
      g_ptr_array_add (self->time_ticks, g_steal_pointer (&label));
    }
  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
  /* Unzoomed, the points at the axes' ends are drawn whole; zoomed, the
   * lines stop at the plot's edges. */
  if (self->zoom.zoomed)
    cairo_rectangle (cr, left, top, plot_w, plot_h);
  else
    cairo_rectangle (cr, left, top - DOT_RADIUS - 2, plot_w + DOT_RADIUS + 2, plot_h + DOT_RADIUS + 2);
  cairo_clip (cr);

  /* Baseline. */
  cairo_set_line_width (cr, 1.5);
  cairo_set_dash (cr, (double[]) { 4, 3 }, 2, 0);
  gdk_cairo_set_source_rgba (cr, &dim);
  cairo_move_to (cr, left, floor (Y (1)) + .5);
  cairo_line_to (cr, right, floor (Y (1)) + .5);
  cairo_stroke (cr);
  cairo_set_dash (cr, NULL, 0, 0);

  /* Best so far: a step line up to now, lightly filled below. */
  if (n_best > 0)
    {
      double now = MAX (elapsed, best[n_best - 1].time_s);

      cairo_move_to (cr, X (best[0].time_s), Y (best[0].speedup));
      for (guint i = 1; i < n_best; i++)
        {
          cairo_line_to (cr, X (best[i].time_s), Y (best[i - 1].speedup));
          cairo_line_to (cr, X (best[i].time_s), Y (best[i].speedup));
        }
      cairo_line_to (cr, X (now), Y (best[n_best - 1].speedup));
      cairo_set_line_width (cr, 2);
      cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);
      gdk_cairo_set_source_rgba (cr, &best_color);
      cairo_stroke_preserve (cr);
      cairo_line_to (cr, X (now), bottom);
      cairo_line_to (cr, X (best[0].time_s), bottom);
      cairo_close_path (cr);
      cairo_set_source_rgba (cr, best_color.red, best_color.green, best_color.blue, 0.15);
      cairo_fill (cr);
    }

  /* Candidates. */
  for (guint i = 0; i < n_points; i++)
    {
      Dot dot = { X (points[i].time_s), Y (points[i].speedup), points[i] };

      /* Zoomed, the points outside the view are neither drawn nor hit. */
      if (dot.x < left - 0.5 || dot.x > right + 0.5 || dot.y < top - 0.5 || dot.y > bottom + 0.5)
        continue;
      g_array_append_val (self->dots, dot);
      if (self->pointer_inside &&
          hypot (dot.x - self->pointer_x, dot.y - self->pointer_y) <= HOVER_RADIUS &&
          (hover < 0 || hypot (dot.x - self->pointer_x, dot.y - self->pointer_y) <
                        hypot (g_array_index (self->dots, Dot, hover).x - self->pointer_x,
                               g_array_index (self->dots, Dot, hover).y - self->pointer_y)))
        hover = self->dots->len - 1;

      cairo_new_path (cr);
      cairo_arc (cr, dot.x, dot.y, DOT_RADIUS, 0, 2 * G_PI);
      cairo_set_line_width (cr, 1.5);
      if (points[i].measured)
        {
          gdk_cairo_set_source_rgba (cr, &dot_color);
          cairo_fill_preserve (cr);
        }
      else
        {
          /* Hollow: the background shows through, whatever the theme. */
          cairo_set_source_rgba (cr, dot_color.red, dot_color.green, dot_color.blue, 0.12);
          cairo_fill_preserve (cr);
          gdk_cairo_set_source_rgba (cr, &dot_color);
        }
      cairo_stroke (cr);
    }
  if (hover >= 0)
    {
      const Dot *dot = &g_array_index (self->dots, Dot, hover);

      cairo_arc (cr, dot->x, dot->y, DOT_RADIUS + 3, 0, 2 * G_PI);
      gdk_cairo_set_source_rgba (cr, &fg);
      cairo_set_line_width (cr, 1.5);
      cairo_stroke (cr);
    }
  cairo_destroy (cr);

  /* Labels on the lines, where they are in view: the baseline's, and the
   * best speedup at its end. */
  if (vs0 <= 1 && 1 <= vs1)
    {
      g_autoptr(PangoLayout) layout = gtk_widget_create_pango_layout (widget, _("baseline"));
      double tw, th;

      prism_chart_text_size (layout, &tw, &th);
      prism_chart_append_text (snapshot, layout, &dim, right - tw - 2, Y (1) + 2);
    }
  if (n_best > 0)
    {
      g_autofree char *text = prism_format_speedup (best[n_best - 1].speedup);
      g_autofree char *markup = g_markup_printf_escaped ("<b>%s</b>", text);
      g_autoptr(PangoLayout) layout = gtk_widget_create_pango_layout (widget, NULL);
      double tw, th;
      double x = X (MAX (elapsed, best[n_best - 1].time_s));
      double y = Y (best[n_best - 1].speedup);

      pango_layout_set_markup (layout, markup, -1);
      prism_chart_text_size (layout, &tw, &th);
      if (x >= left - 0.5 && (!self->zoom.zoomed || x <= right + 0.5) && y >= top && y <= bottom + 0.5)
        prism_chart_append_text (snapshot, layout, &best_color, MIN (x + 4, right - tw), y - th - 2);
    }
  else
    {
      g_autoptr(PangoLayout) layout = NULL;
      double tw, th;

      /* Points without a best line are candidates slower than the program. */
      self->message = n_points > 0 ? _("No candidate is faster than the program yet")
                                   : _("No verified candidates yet");
      layout = gtk_widget_create_pango_layout (widget, self->message);

      prism_chart_text_size (layout, &tw, &th);
      prism_chart_append_text (snapshot, layout, &dim, left + (plot_w - tw) / 2, top + (plot_h / 2 - th) / 2);
    }

#undef X
#undef Y
}

static void
prism_speedup_chart_measure (GtkWidget      *widget,
                             GtkOrientation  orientation,
                             int             for_size,
                             int            *minimum,
                             int            *natural,
                             int            *minimum_baseline,
                             int            *natural_baseline)
{
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      *minimum = 240;
      *natural = 640;
    }
  else
    {
      *minimum = 150;
      *natural = 280;
    }
}

/* The dot drawn nearest to (@x, @y), within the hover radius. */
static const Dot *
find_dot_at (PrismSpeedupChart *self,
             double             x,
             double             y)
{
  const Dot *nearest = NULL;

  for (guint i = 0; i < self->dots->len; i++)
    {
      const Dot *dot = &g_array_index (self->dots, Dot, i);

      if (hypot (dot->x - x, dot->y - y) <= HOVER_RADIUS &&
          (nearest == NULL || hypot (dot->x - x, dot->y - y) < hypot (nearest->x - x, nearest->y - y)))
        nearest = dot;
    }
  return nearest;
}

/**
 * prism_speedup_chart_find_point:
 * @id: a candidate's id
 * @x: (out): where its dot is drawn
 *
 * Returns: whether a dot of candidate @id was drawn (in the last frame)
 */
gboolean
prism_speedup_chart_find_point (PrismSpeedupChart *self,
                                guint              id,
                                double            *x,
                                double            *y)
{
  g_return_val_if_fail (PRISM_IS_SPEEDUP_CHART (self), FALSE);
  for (guint i = 0; id != 0 && i < self->dots->len; i++)
    {
      const Dot *dot = &g_array_index (self->dots, Dot, i);

      if (dot->point.id == id)
        {
          *x = dot->x;
          *y = dot->y;
          return TRUE;
        }
    }
  return FALSE;
}

/* A click on a dot asks for its candidate (the window selects it). */
static void
pressed_cb (PrismSpeedupChart *self,
            int                n_press,
            double             x,
            double             y,
            GtkGestureClick   *gesture)
{
  guint id = prism_speedup_chart_candidate_at (self, x, y);

  gtk_widget_grab_focus (GTK_WIDGET (self));
  if (id == 0)
    {
      /* A double click off the points shows everything again. */
      if (n_press == 2 && self->zoom.zoomed)
        {
          gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
          prism_speedup_chart_reset_zoom (self);
        }
      return;
    }
  gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
  g_signal_emit (self, signals[CANDIDATE_ACTIVATED], 0, id);
}

/* The wheel zooms around the pointer; Shift zooms the time axis only.
 * Plain and Ctrl+wheel alike: the chart does not scroll. */
static gboolean
scroll_cb (PrismSpeedupChart        *self,
           double                    dx,
           double                    dy,
           GtkEventControllerScroll *controller)
{
  graphene_point_t pointer = GRAPHENE_POINT_INIT (self->pointer_x, self->pointer_y);
  double x, y, factor;
  gboolean x_only;

  if (!prism_chart_zoom_wheel (&self->zoom, controller, dy, self->pointer_inside ? &pointer : NULL,
                               &x, &y, &factor, &x_only))
    return FALSE;
  prism_speedup_chart_zoom_at (self, x, y, factor, x_only);
  return TRUE;
}

static void
drag_begin_cb (PrismSpeedupChart *self,
               double             x,
               double             y,
               GtkGestureDrag    *gesture)
{
  /* Unzoomed there is nothing to pan; a press on a point selects it. */
  if (!self->zoom.zoomed || prism_speedup_chart_candidate_at (self, x, y) != 0)
    {
      gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_DENIED);
      return;
    }
  prism_chart_zoom_drag_begin (&self->zoom);
}

static void
drag_update_cb (PrismSpeedupChart *self,
                double             dx,
                double             dy,
                GtkGestureDrag    *gesture)
{
  gboolean was_zoomed = self->zoom.zoomed;

  gtk_widget_set_cursor_from_name (GTK_WIDGET (self), "grabbing");
  update_full_range (self);
  if (prism_chart_zoom_drag_to (&self->zoom, dx, dy))
    zoom_changed (self, was_zoomed);
}

static void
drag_end_cb (PrismSpeedupChart *self,
             double             dx,
             double             dy,
             GtkGestureDrag    *gesture)
{
  gtk_widget_set_cursor (GTK_WIDGET (self), NULL);
}

/* Where + and − zoom: about the pointer when it is over the plot, as the
 * wheel does; else about the middle of the points in view.  About the
 * plot's centre, a few presses pushed every point out of view when they
 * sat in a corner (the first seconds of a long run). */
static void
keyboard_zoom_centre (PrismSpeedupChart *self,
                      double            *x,
                      double            *y)
{
  const graphene_rect_t *plot = &self->zoom.plot;
  double min_x = G_MAXDOUBLE, max_x = -G_MAXDOUBLE, min_y = G_MAXDOUBLE, max_y = -G_MAXDOUBLE;

  *x = plot->origin.x + plot->size.width / 2;
  *y = plot->origin.y + plot->size.height / 2;
  if (self->pointer_inside && graphene_rect_contains_point (plot, &GRAPHENE_POINT_INIT (self->pointer_x,
                                                                                         self->pointer_y)))
    {
      *x = self->pointer_x;
      *y = self->pointer_y;
      return;
    }
  for (guint i = 0; i < self->dots->len; i++)
    {
      const Dot *dot = &g_array_index (self->dots, Dot, i);

      min_x = MIN (min_x, dot->x);
      max_x = MAX (max_x, dot->x);
      min_y = MIN (min_y, dot->y);
      max_y = MAX (max_y, dot->y);
    }
  if (self->dots->len > 0)
    {
      *x = (min_x + max_x) / 2;
      *y = (min_y + max_y) / 2;
    }
}

static void
zoom_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  PrismSpeedupChart *self = PRISM_SPEEDUP_CHART (widget);
  double factor = g_str_equal (action_name, "chart.zoom-in") ? ZOOM_STEP : 1 / ZOOM_STEP;
  double x, y;

  keyboard_zoom_centre (self, &x, &y);
  prism_speedup_chart_zoom_at (self, x, y, factor, FALSE);
}

static void
reset_zoom_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  prism_speedup_chart_reset_zoom (PRISM_SPEEDUP_CHART (widget));
}

static gboolean
prism_speedup_chart_query_tooltip (GtkWidget  *widget,
                                   int         x,
                                   int         y,
                                   gboolean    keyboard_mode,
                                   GtkTooltip *tooltip)
{
  PrismSpeedupChart *self = PRISM_SPEEDUP_CHART (widget);
  g_autofree char *speedup = NULL;
  g_autofree char *when = NULL;
  g_autofree char *markup = NULL;
  const Dot *nearest = find_dot_at (self, x, y);

  if (nearest == NULL)
    return FALSE;

  speedup = prism_format_speedup (nearest->point.speedup);
  when = prism_format_seconds (nearest->point.time_s);
  markup = g_markup_printf_escaped (_("<b>Candidate %u</b>\n%s, %s\nverified after %s\n<small>Click to show it</small>"),
                                    nearest->point.id, speedup,
                                    nearest->point.measured ? _("measured on GPU")
                                                            : _("predicted by the cost model"),
                                    when);
  gtk_tooltip_set_markup (tooltip, markup);
  return TRUE;
}

static void
motion_cb (PrismSpeedupChart        *self,
           double                    x,
           double                    y,
           GtkEventControllerMotion *motion)
{
  self->pointer_x = x;
  self->pointer_y = y;
  self->pointer_inside = TRUE;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
leave_cb (PrismSpeedupChart        *self,
          GtkEventControllerMotion *motion)
{
  self->pointer_inside = FALSE;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/*
 * GObject overrides
 */

/* The axes grow within a search and start again with the next one: a
 * short search is not drawn on the axes a long one left behind. */
static void
model_changed_cb (PrismSpeedupChart *self,
                  PrismSearchModel  *model)
{
  if (prism_search_model_get_run (model) != self->run)
    {
      self->run = prism_search_model_get_run (model);
      self->max_time_s = 0;
      self->max_speedup = 0;
      set_zoomed (self, FALSE);
    }
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
prism_speedup_chart_dispose (GObject *object)
{
  PrismSpeedupChart *self = (PrismSpeedupChart *)object;

  prism_speedup_chart_set_model (self, NULL);

  G_OBJECT_CLASS (prism_speedup_chart_parent_class)->dispose (object);
}

static void
prism_speedup_chart_finalize (GObject *object)
{
  PrismSpeedupChart *self = (PrismSpeedupChart *)object;

  g_clear_pointer (&self->dots, g_array_unref);
  g_clear_pointer (&self->time_ticks, g_ptr_array_unref);
  g_clear_pointer (&self->speedup_ticks, g_ptr_array_unref);

  G_OBJECT_CLASS (prism_speedup_chart_parent_class)->finalize (object);
}

static void
prism_speedup_chart_get_property (GObject    *object,
                                  guint       prop_id,
                                  GValue     *value,
                                  GParamSpec *pspec)
{
  PrismSpeedupChart *self = PRISM_SPEEDUP_CHART (object);

  switch (prop_id)
    {
    case PROP_MODEL:
      g_value_set_object (value, self->model);
      break;

    case PROP_ZOOMED:
      g_value_set_boolean (value, self->zoom.zoomed);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
prism_speedup_chart_set_property (GObject      *object,
                                  guint         prop_id,
                                  const GValue *value,
                                  GParamSpec   *pspec)
{
  PrismSpeedupChart *self = PRISM_SPEEDUP_CHART (object);

  switch (prop_id)
    {
    case PROP_MODEL:
      prism_speedup_chart_set_model (self, g_value_get_object (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
prism_speedup_chart_class_init (PrismSpeedupChartClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = prism_speedup_chart_dispose;
  object_class->finalize = prism_speedup_chart_finalize;
  object_class->get_property = prism_speedup_chart_get_property;
  object_class->set_property = prism_speedup_chart_set_property;

  widget_class->snapshot = prism_speedup_chart_snapshot;
  widget_class->measure = prism_speedup_chart_measure;
  widget_class->query_tooltip = prism_speedup_chart_query_tooltip;

  properties [PROP_MODEL] =
    g_param_spec_object ("model", NULL, NULL, PRISM_TYPE_SEARCH_MODEL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* Whether a part of the axes' range is shown (the Search page shows
   * Reset Zoom then). */
  properties [PROP_ZOOMED] =
    g_param_spec_boolean ("zoomed", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * PrismSpeedupChart::candidate-activated:
   * @id: the id of the candidate whose dot was clicked
   */
  signals [CANDIDATE_ACTIVATED] =
    g_signal_new ("candidate-activated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_UINT);

  gtk_widget_class_install_action (widget_class, "chart.zoom-in", NULL, zoom_action);
  gtk_widget_class_install_action (widget_class, "chart.zoom-out", NULL, zoom_action);
  gtk_widget_class_install_action (widget_class, "chart.reset-zoom", NULL, reset_zoom_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_plus, 0, "chart.zoom-in", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_equal, 0, "chart.zoom-in", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_Add, 0, "chart.zoom-in", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_minus, 0, "chart.zoom-out", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_Subtract, 0, "chart.zoom-out", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_0, 0, "chart.reset-zoom", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_0, GDK_CONTROL_MASK, "chart.reset-zoom", NULL);

  gtk_widget_class_set_css_name (widget_class, "speedupchart");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
prism_speedup_chart_init (PrismSpeedupChart *self)
{
  GtkEventController *motion = gtk_event_controller_motion_new ();
  GtkEventController *scroll = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_VERTICAL);
  GtkGesture *click = gtk_gesture_click_new ();
  GtkGesture *drag = gtk_gesture_drag_new ();

  self->dots = g_array_new (FALSE, FALSE, sizeof (Dot));
  self->time_ticks = g_ptr_array_new_with_free_func (g_free);
  self->speedup_ticks = g_ptr_array_new_with_free_func (g_free);
  gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);
  g_signal_connect_object (scroll, "scroll", G_CALLBACK (scroll_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self), scroll);
  g_signal_connect_object (drag, "drag-begin", G_CALLBACK (drag_begin_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (drag, "drag-update", G_CALLBACK (drag_update_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (drag, "drag-end", G_CALLBACK (drag_end_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drag));
  set_zoomed (self, FALSE);
  g_signal_connect_object (motion, "motion", G_CALLBACK (motion_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (motion, "leave", G_CALLBACK (leave_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self), motion);
  g_signal_connect_object (click, "pressed", G_CALLBACK (pressed_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (click));
  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Speedup over time"),
                                  -1);
}

/*
 * Public API
 */

GtkWidget *
prism_speedup_chart_new (void)
{
  return g_object_new (PRISM_TYPE_SPEEDUP_CHART, NULL);
}

/**
 * prism_speedup_chart_get_model:
 *
 * Returns: (transfer none) (nullable): the model drawn
 */
PrismSearchModel *
prism_speedup_chart_get_model (PrismSpeedupChart *self)
{
  g_return_val_if_fail (PRISM_IS_SPEEDUP_CHART (self), NULL);
  return self->model;
}

/* A new model (a new search) starts with fresh axes. */
void
prism_speedup_chart_set_model (PrismSpeedupChart *self,
                               PrismSearchModel  *model)
{
  g_return_if_fail (PRISM_IS_SPEEDUP_CHART (self));
  g_return_if_fail (model == NULL || PRISM_IS_SEARCH_MODEL (model));

  if (self->model == model)
    return;
  if (self->model != NULL)
    g_clear_signal_handler (&self->changed_handler, self->model);
  g_set_object (&self->model, model);
  if (model != NULL)
    {
      self->changed_handler = g_signal_connect_object (model, "changed", G_CALLBACK (model_changed_cb),
                                                       self, G_CONNECT_SWAPPED);
      self->run = prism_search_model_get_run (model);
    }
  self->max_time_s = 0;
  self->max_speedup = 0;
  set_zoomed (self, FALSE);
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_MODEL]);
}

/**
 * prism_speedup_chart_get_ranges:
 * @max_time_s: (out) (optional): the time axis' end
 * @max_speedup: (out) (optional): the speedup axis' top
 */
void
prism_speedup_chart_get_ranges (PrismSpeedupChart *self,
                                double            *max_time_s,
                                double            *max_speedup)
{
  g_return_if_fail (PRISM_IS_SPEEDUP_CHART (self));
  if (max_time_s)
    *max_time_s = self->max_time_s;
  if (max_speedup)
    *max_speedup = self->max_speedup;
}

guint
prism_speedup_chart_candidate_at (PrismSpeedupChart *self,
                                  double             x,
                                  double             y)
{
  const Dot *dot;

  g_return_val_if_fail (PRISM_IS_SPEEDUP_CHART (self), 0);
  dot = find_dot_at (self, x, y);
  return dot != NULL ? dot->point.id : 0;
}

/**
 * prism_speedup_chart_count_dots:
 * @measured: count the points timed on a GPU (filled) or the predicted ones
 *
 * Returns: how many such candidate points the last drawing had (tests)
 */
/* Returns: whether the last drawing's legend explained measured points */
gboolean
prism_speedup_chart_get_measured_legend (PrismSpeedupChart *self)
{
  g_return_val_if_fail (PRISM_IS_SPEEDUP_CHART (self), FALSE);
  return self->measured_legend;
}

guint
prism_speedup_chart_count_dots (PrismSpeedupChart *self,
                                gboolean           measured)
{
  guint n = 0;

  g_return_val_if_fail (PRISM_IS_SPEEDUP_CHART (self), 0);

  for (guint i = 0; i < self->dots->len; i++)
    if (!g_array_index (self->dots, Dot, i).point.measured == !measured)
      n++;
  return n;
}

/**
 * prism_speedup_chart_zoom_at:
 * @x: (in): the point that stays put, in widget coordinates
 * @factor: more than 1 zooms in, less than 1 out
 * @time_only: zoom the time axis only
 *
 * Zooms the view around (@x, @y), within the axes' full range; zoomed out
 * to all of it, the chart follows the search again.
 */
void
prism_speedup_chart_zoom_at (PrismSpeedupChart *self,
                             double             x,
                             double             y,
                             double             factor,
                             gboolean           time_only)
{
  gboolean was_zoomed;
  double t0, t1, s0, s1;

  g_return_if_fail (PRISM_IS_SPEEDUP_CHART (self));
  g_return_if_fail (factor > 0);

  was_zoomed = self->zoom.zoomed;
  get_view (self, &t0, &t1, &s0, &s1);
  if (prism_chart_zoom_at (&self->zoom, x, y, factor, time_only))
    zoom_changed (self, was_zoomed);
}

/**
 * prism_speedup_chart_pan:
 * @dx: pixels to the right the content moves
 * @dy: pixels down
 *
 * Moves a zoomed view, within the axes' full range (unzoomed, nothing).
 */
void
prism_speedup_chart_pan (PrismSpeedupChart *self,
                         double             dx,
                         double             dy)
{
  gboolean was_zoomed;
  double t0, t1, s0, s1;

  g_return_if_fail (PRISM_IS_SPEEDUP_CHART (self));
  was_zoomed = self->zoom.zoomed;
  get_view (self, &t0, &t1, &s0, &s1);
  if (prism_chart_zoom_pan (&self->zoom, dx, dy))
    zoom_changed (self, was_zoomed);
}

/* Shows the axes' full range again, following the search. */
void
prism_speedup_chart_reset_zoom (PrismSpeedupChart *self)
{
  g_return_if_fail (PRISM_IS_SPEEDUP_CHART (self));
  set_zoomed (self, FALSE);
}

gboolean
prism_speedup_chart_get_zoomed (PrismSpeedupChart *self)
{
  g_return_val_if_fail (PRISM_IS_SPEEDUP_CHART (self), FALSE);
  return self->zoom.zoomed;
}

/**
 * prism_speedup_chart_get_view:
 * @t0: (out) (optional): the first second shown
 * @t1: (out) (optional): the last
 * @s0: (out) (optional): the lowest speedup shown
 * @s1: (out) (optional): the highest
 *
 * The range shown (as of the last drawing when not zoomed).
 */
void
prism_speedup_chart_get_view (PrismSpeedupChart *self,
                              double            *t0,
                              double            *t1,
                              double            *s0,
                              double            *s1)
{
  double a, b, c, d;

  g_return_if_fail (PRISM_IS_SPEEDUP_CHART (self));
  get_view (self, &a, &b, &c, &d);
  if (t0)
    *t0 = a;
  if (t1)
    *t1 = b;
  if (s0)
    *s0 = c;
  if (s1)
    *s1 = d;
}

/**
 * prism_speedup_chart_get_ticks:
 * @orientation: horizontal for the time axis, vertical for the speedup's
 *
 * Returns: (transfer none) (element-type utf8): the tick labels of the last
 *   drawing, in order (tests)
 */
GPtrArray *
prism_speedup_chart_get_ticks (PrismSpeedupChart *self,
                               GtkOrientation     orientation)
{
  g_return_val_if_fail (PRISM_IS_SPEEDUP_CHART (self), NULL);
  return orientation == GTK_ORIENTATION_HORIZONTAL ? self->time_ticks : self->speedup_ticks;
}

/**
 * prism_speedup_chart_get_message:
 *
 * Returns: (nullable): the sentence the last drawing wrote in the plot
 *   (no candidates yet, none faster than the program), or %NULL
 */
const char *
prism_speedup_chart_get_message (PrismSpeedupChart *self)
{
  g_return_val_if_fail (PRISM_IS_SPEEDUP_CHART (self), NULL);
  return self->message;
}
