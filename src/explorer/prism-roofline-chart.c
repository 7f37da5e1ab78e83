/* prism-roofline-chart.c — every launch of a candidate and of the baseline against the target's ceilings
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "prism-roofline-chart"

#include "config.h"

#include <math.h>
#include <glib/gi18n.h>

#include "prism-chart-text.h"
#include "prism-chart-zoom.h"
#include "prism-format.h"
#include "prism-roofline-chart.h"

/* A log–log roofline: arithmetic intensity (FLOPs per DRAM byte) to the
 * right, attained GFLOP/s up.  The target's ceilings are the DRAM slope
 * (bandwidth × intensity) up to the tensor-core peak, the L2 slope dashed,
 * and the tensor-core and CUDA-core peaks flat from where the L2 slope
 * meets them.  Each launch is a point at its intensity and at its FLOPs
 * over its predicted time: filled for the candidate, hollow for the
 * baseline.  The GPU times whole programs, so a measured time is one
 * diamond per program at the program's intensity.  Axes span whole
 * decades, chosen when the data changes, never while drawing. */

#define PAD          12.0
#define AXIS_LEFT    52.0
#define AXIS_BOTTOM  40.0
#define DOT_RADIUS    4.0
#define HOVER_RADIUS 10.0
#define ZOOM_STEP    PRISM_CHART_ZOOM_STEP

#define COLOR_CANDIDATE "#e66100"
#define COLOR_BASELINE  "#5e5c64"
#define COLOR_DRAM      "#3584e4"
#define COLOR_TENSOR    "#9141ac"
#define COLOR_FP32      "#2ec27e"

struct _PrismRooflineChart
{
  GtkWidget parent_instance;

  /* Owned References */
  PrismKernelReport *candidate;
  PrismKernelReport *baseline;
  GArray *points;            /* PrismRooflinePoint */
  const PrismGpuTarget *target;

  double candidate_measured_us;
  double baseline_measured_us;
  guint n_not_drawn;
  /* Decades of the axes, as log10 */
  double x_lo, x_hi, y_lo, y_hi;
  /* What is shown of them (log10), and the last drawing's ticks (tests) */
  PrismChartZoom zoom;
  gboolean notified_zoomed;
  double vx0, vx1, vy0, vy1;
  GPtrArray *x_ticks;
  GArray *x_tick_rects;      /* graphene_rect_t of each label drawn */

  double pointer_x, pointer_y;
  guint pointer_inside : 1;
  int selected;              /* a point, or -1 */
};

G_DEFINE_FINAL_TYPE (PrismRooflineChart, prism_roofline_chart, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_ZOOMED,
  N_PROPS
};

static GParamSpec *properties [N_PROPS];

enum {
  POINT_CLICKED,
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

static void
point_clear (gpointer data)
{
  PrismRooflinePoint *point = data;

  g_clear_pointer (&point->label, g_free);
}

static double
tensor_peak_gflops (const PrismGpuTarget *t)
{
  return t->tensor_tflops * 1e3;
}

static double
fp32_peak_gflops (const PrismGpuTarget *t)
{
  return t->fp32_tflops * 1e3;
}

static void
add_launch_points (PrismRooflineChart *self,
                   PrismKernelReport  *report,
                   gboolean            baseline)
{
  for (guint i = 0; report != NULL && i < prism_kernel_report_get_n_launches (report); i++)
    {
      const PrismKernelReportLaunch *launch = prism_kernel_report_get_launch (report, i);
      double flops = prism_kernel_report_launch_flops (launch);
      PrismRooflinePoint point = { 0, };

      if (flops <= 0 || launch->cost.launch.dram_bytes <= 0 || launch->cost.us <= 0)
        {
          self->n_not_drawn++;
          continue;
        }
      point.label = g_strdup (launch->name);
      point.intensity = flops / launch->cost.launch.dram_bytes;
      /* FLOPs per µs are MFLOP/s. */
      point.gflops = flops / launch->cost.us / 1e3;
      point.baseline = baseline;
      point.index = (int) i;
      g_array_append_val (self->points, point);
    }
}

static void
add_measured_point (PrismRooflineChart *self,
                    PrismKernelReport  *report,
                    gboolean            baseline,
                    double              measured_us)
{
  double flops, bytes;
  PrismRooflinePoint point = { 0, };

  if (report == NULL || !(measured_us > 0))
    return;
  flops = prism_kernel_report_get_flops (report);
  bytes = prism_kernel_report_get_dram_bytes (report);
  if (flops <= 0 || bytes <= 0)
    return;
  point.label = g_strdup (baseline ? _("Baseline, whole program") : _("Candidate, whole program"));
  point.intensity = flops / bytes;
  point.gflops = flops / measured_us / 1e3;
  point.baseline = baseline;
  point.measured = TRUE;
  point.index = -1;
  g_array_append_val (self->points, point);
}

/* Whole decades around the points and the ceilings' corners, so that the
 * ridge points are always in view. */
static void
update_ranges (PrismRooflineChart *self)
{
  const PrismGpuTarget *t = self->target;
  double x_lo = G_MAXDOUBLE, x_hi = 0, y_lo = G_MAXDOUBLE, y_hi = 0;

  if (t == NULL)
    return;
  x_lo = MIN (x_lo, fp32_peak_gflops (t) / t->l2_gbs / 10);
  x_hi = MAX (x_hi, tensor_peak_gflops (t) / t->dram_gbs * 10);
  y_hi = MAX (y_hi, tensor_peak_gflops (t) * 1.5);
  for (guint i = 0; i < self->points->len; i++)
    {
      const PrismRooflinePoint *p = &g_array_index (self->points, PrismRooflinePoint, i);

      x_lo = MIN (x_lo, p->intensity / 2);
      x_hi = MAX (x_hi, p->intensity * 2);
      y_lo = MIN (y_lo, p->gflops / 2);
      y_hi = MAX (y_hi, p->gflops * 2);
    }
  y_lo = MIN (y_lo, t->dram_gbs * x_lo);
  self->x_lo = floor (log10 (x_lo));
  self->x_hi = ceil (log10 (x_hi));
  self->y_lo = floor (log10 (y_lo));
  self->y_hi = ceil (log10 (y_hi));
  /* Never a flat axis. */
  if (self->x_hi - self->x_lo < 2)
    self->x_hi = self->x_lo + 2;
  if (self->y_hi - self->y_lo < 2)
    self->y_lo = self->y_hi - 2;
}

/* "0.01", "1", "100", "10 k", "1 M" */
static char *
format_decade (double value)
{
  if (value < 1000)
    return g_strdup_printf ("%g", value);
  if (value < 1e6)
    /* Translators: an axis tick in thousands, as in “10 k” */
    return g_strdup_printf (_("%g k"), value / 1e3);
  if (value < 1e9)
    /* Translators: an axis tick in millions, as in “1 M” */
    return g_strdup_printf (_("%g M"), value / 1e6);
  /* Translators: an axis tick in billions */
  return g_strdup_printf (_("%g G"), value / 1e9);
}

typedef enum
{
  MARK_LINE,
  MARK_DASHED,
  MARK_DOT,
  MARK_HOLLOW,
  MARK_DIAMOND,
} Mark;

static void
draw_mark (cairo_t       *cr,
           Mark           mark,
           const GdkRGBA *color,
           double         x,
           double         y,
           double         width)
{
  cairo_set_line_width (cr, mark == MARK_LINE || mark == MARK_DASHED ? 2 : 1.5);
  gdk_cairo_set_source_rgba (cr, color);
  switch (mark)
    {
    case MARK_DASHED:
      cairo_set_dash (cr, (double[]) { 4, 3 }, 2, 0);
      G_GNUC_FALLTHROUGH;
    case MARK_LINE:
      cairo_move_to (cr, x, y);
      cairo_line_to (cr, x + width, y);
      cairo_stroke (cr);
      cairo_set_dash (cr, NULL, 0, 0);
      break;
    case MARK_DOT:
    case MARK_HOLLOW:
      cairo_arc (cr, x + width / 2, y, DOT_RADIUS, 0, 2 * G_PI);
      if (mark == MARK_DOT)
        cairo_fill_preserve (cr);
      cairo_stroke (cr);
      break;
    case MARK_DIAMOND:
    default:
      cairo_move_to (cr, x + width / 2, y - DOT_RADIUS - 1.5);
      cairo_line_to (cr, x + width / 2 + DOT_RADIUS + 1.5, y);
      cairo_line_to (cr, x + width / 2, y + DOT_RADIUS + 1.5);
      cairo_line_to (cr, x + width / 2 - DOT_RADIUS - 1.5, y);
      cairo_close_path (cr);
      cairo_stroke (cr);
      break;
    }
}

static void
draw_legend (PrismRooflineChart *self,
             GtkSnapshot        *snapshot,
             const GdkRGBA      *fg,
             const GdkRGBA      *dim,
             double              width,
             double             *y)
{
  const PrismGpuTarget *t = self->target;
  GtkWidget *widget = GTK_WIDGET (self);
  g_autofree char *dram_bw = prism_format_bandwidth (t->dram_gbs);
  g_autofree char *l2_bw = prism_format_bandwidth (t->l2_gbs);
  g_autofree char *tensor = prism_format_flops_rate (tensor_peak_gflops (t));
  g_autofree char *fp32 = prism_format_flops_rate (fp32_peak_gflops (t));
  g_autofree char *dram_text = NULL, *l2_text = NULL, *tensor_text = NULL, *fp32_text = NULL;
  g_autofree char *not_drawn = NULL;
  gboolean any_measured = FALSE;
  GdkRGBA candidate = parse_color (COLOR_CANDIDATE);
  GdkRGBA baseline = parse_color (COLOR_BASELINE);
  GdkRGBA dram = parse_color (COLOR_DRAM);
  GdkRGBA tensor_color = parse_color (COLOR_TENSOR);
  GdkRGBA fp32_color = parse_color (COLOR_FP32);
  struct { Mark mark; const GdkRGBA *color; const char *text; gboolean shown; } items[8];
  double x = PAD + AXIS_LEFT, line_height = 0;
  guint n = 0;

  for (guint i = 0; i < self->points->len; i++)
    any_measured |= g_array_index (self->points, PrismRooflinePoint, i).measured;

  /* Translators: a roofline ceiling: DRAM bandwidth, as in “DRAM 3.35 TB/s” */
  dram_text = g_strdup_printf (_("DRAM %s"), dram_bw);
  /* Translators: a roofline ceiling: L2 bandwidth */
  l2_text = g_strdup_printf (_("L2 %s"), l2_bw);
  /* Translators: a roofline ceiling: the tensor cores' peak */
  tensor_text = g_strdup_printf (_("Tensor cores %s"), tensor);
  /* Translators: a roofline ceiling: the CUDA cores' peak */
  fp32_text = g_strdup_printf (_("CUDA cores %s"), fp32);
  items[n++] = (typeof (items[0])) { MARK_DOT, &candidate, _("Candidate launch (predicted)"), self->candidate != NULL };
  items[n++] = (typeof (items[0])) { MARK_HOLLOW, &baseline, _("Baseline launch (predicted)"), self->baseline != NULL };
  items[n++] = (typeof (items[0])) { MARK_DIAMOND, fg, _("Whole program, measured on GPU"), any_measured };
  items[n++] = (typeof (items[0])) { MARK_LINE, &dram, dram_text, TRUE };
  items[n++] = (typeof (items[0])) { MARK_DASHED, &dram, l2_text, TRUE };
  items[n++] = (typeof (items[0])) { MARK_LINE, &tensor_color, tensor_text, TRUE };
  items[n++] = (typeof (items[0])) { MARK_LINE, &fp32_color, fp32_text, TRUE };

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(PangoLayout) layout = NULL;
      double tw, th, item_width;
      cairo_t *cr;

      if (!items[i].shown)
        continue;
      layout = gtk_widget_create_pango_layout (widget, items[i].text);
      prism_chart_text_size (layout, &tw, &th);
      item_width = 22 + 5 + tw + 16;
      if (x + item_width > width - PAD && x > PAD + AXIS_LEFT)
        {
          x = PAD + AXIS_LEFT;
          *y += line_height + 4;
        }
      line_height = MAX (line_height, th);
      cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (x - 2, *y, 26, th));
      draw_mark (cr, items[i].mark, items[i].color, x, *y + th / 2, 22);
      cairo_destroy (cr);
      prism_chart_append_text (snapshot, layout, fg, x + 27, *y);
      x += item_width;
    }

  /* A log scale has no place for zero: the launches it leaves out are said. */
  if (self->n_not_drawn > 0)
    {
      g_autoptr(PangoLayout) layout = NULL;
      double tw, th;

      not_drawn = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                "%u launch without arithmetic (a copy) not drawn",
                                                "%u launches without arithmetic (copies) not drawn",
                                                self->n_not_drawn), self->n_not_drawn);
      layout = gtk_widget_create_pango_layout (widget, not_drawn);
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

/* The ticks of a log axis between 10^@lo and 10^@hi: its decades, and the
 * 2s and 5s between them when fewer than three decades are in view. */
static void
visible_ticks (double  lo,
               double  hi,
               GArray *ticks)
{
  static const double fine[] = { 1, 2, 5 };
  guint n_steps = hi - lo < 3 ? G_N_ELEMENTS (fine) : 1;

  g_array_set_size (ticks, 0);
  for (double e = floor (lo); e <= ceil (hi); e++)
    for (guint i = 0; i < n_steps; i++)
      {
        double v = fine[i] * pow (10, e);

        if (log10 (v) >= lo - 1e-9 && log10 (v) <= hi + 1e-9)
          g_array_append_val (ticks, v);
      }
}

static void
draw_ceilings (PrismRooflineChart *self,
               cairo_t            *cr,
               double              left,
               double              top,
               double              plot_w,
               double              plot_h)
{
  const PrismGpuTarget *t = self->target;
  double tensor = tensor_peak_gflops (t), fp32 = fp32_peak_gflops (t);
  double x_lo = pow (10, self->x_lo), x_hi = pow (10, self->x_hi);
  GdkRGBA dram = parse_color (COLOR_DRAM);
  GdkRGBA tensor_color = parse_color (COLOR_TENSOR);
  GdkRGBA fp32_color = parse_color (COLOR_FP32);

#define PX(v) (left + (log10 (v) - self->vx0) / (self->vx1 - self->vx0) * plot_w)
#define PY(v) (top + plot_h - (log10 (v) - self->vy0) / (self->vy1 - self->vy0) * plot_h)

  cairo_set_line_width (cr, 2);
  /* Bandwidth slopes, up to the tensor-core peak. */
  gdk_cairo_set_source_rgba (cr, &dram);
  cairo_move_to (cr, PX (x_lo), PY (t->dram_gbs * x_lo));
  cairo_line_to (cr, PX (tensor / t->dram_gbs), PY (tensor));
  cairo_stroke (cr);
  cairo_set_dash (cr, (double[]) { 4, 3 }, 2, 0);
  cairo_set_line_width (cr, 1.5);
  cairo_move_to (cr, PX (x_lo), PY (t->l2_gbs * x_lo));
  cairo_line_to (cr, PX (tensor / t->l2_gbs), PY (tensor));
  cairo_stroke (cr);
  cairo_set_dash (cr, NULL, 0, 0);

  /* Compute peaks, flat from where the L2 slope reaches them. */
  cairo_set_line_width (cr, 2);
  gdk_cairo_set_source_rgba (cr, &tensor_color);
  cairo_move_to (cr, PX (tensor / t->l2_gbs), floor (PY (tensor)) + .5);
  cairo_line_to (cr, PX (x_hi), floor (PY (tensor)) + .5);
  cairo_stroke (cr);
  gdk_cairo_set_source_rgba (cr, &fp32_color);
  cairo_move_to (cr, PX (fp32 / t->l2_gbs), floor (PY (fp32)) + .5);
  cairo_line_to (cr, PX (x_hi), floor (PY (fp32)) + .5);
  cairo_stroke (cr);

#undef PX
#undef PY
}

/*
 * GtkWidget overrides
 */

static void
prism_roofline_chart_snapshot (GtkWidget   *widget,
                               GtkSnapshot *snapshot)
{
  PrismRooflineChart *self = PRISM_ROOFLINE_CHART (widget);
  double width = gtk_widget_get_width (widget);
  double height = gtk_widget_get_height (widget);
  double top = PAD, left = PAD + AXIS_LEFT, right = width - PAD, bottom;
  double plot_w, plot_h;
  GdkRGBA fg, dim, grid, candidate_color, baseline_color;
  int hover = -1;
  cairo_t *cr;

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  gtk_style_context_get_color (gtk_widget_get_style_context (widget), &fg);
  G_GNUC_END_IGNORE_DEPRECATIONS
  dim = fg;
  dim.alpha *= 0.6;
  grid = fg;
  grid.alpha *= 0.1;
  candidate_color = parse_color (COLOR_CANDIDATE);
  baseline_color = parse_color (COLOR_BASELINE);

  if (self->target == NULL)
    return;

  draw_legend (self, snapshot, &fg, &dim, width, &top);
  bottom = height - PAD - AXIS_BOTTOM;
  plot_w = right - left;
  plot_h = bottom - top;
  if (plot_w < 60 || plot_h < 40)
    return;

  self->zoom.plot = GRAPHENE_RECT_INIT (left, top, plot_w, plot_h);
  prism_chart_zoom_set_full (&self->zoom, self->x_lo, self->x_hi, self->y_lo, self->y_hi);
  prism_chart_zoom_get_view (&self->zoom, &self->vx0, &self->vx1, &self->vy0, &self->vy1);
  g_ptr_array_set_size (self->x_ticks, 0);
  g_array_set_size (self->x_tick_rects, 0);

#define PX(v) (left + (log10 (v) - self->vx0) / (self->vx1 - self->vx0) * plot_w)
#define PY(v) (bottom - (log10 (v) - self->vy0) / (self->vy1 - self->vy0) * plot_h)

  /* Decade grid and its labels; zoomed into less than a few decades, the
   * 2s and 5s too. */
  {
    g_autoptr(GArray) ticks = g_array_new (FALSE, FALSE, sizeof (double));

    visible_ticks (self->vy0, self->vy1, ticks);
    for (guint i = 0; i < ticks->len; i++)
      {
        double v = g_array_index (ticks, double, i);
        g_autofree char *label = format_decade (v);
        g_autoptr(PangoLayout) layout = gtk_widget_create_pango_layout (widget, label);
        double tw, th, y = floor (PY (v));

        gtk_snapshot_append_color (snapshot, &grid, &GRAPHENE_RECT_INIT (left, y, plot_w, 1));
        prism_chart_text_size (layout, &tw, &th);
        prism_chart_append_text (snapshot, layout, &dim, left - 6 - tw, y - th / 2);
      }
    visible_ticks (self->vx0, self->vx1, ticks);
    for (guint i = 0; i < ticks->len; i++)
      {
        double v = g_array_index (ticks, double, i);
        g_autofree char *label = format_decade (v);
        g_autoptr(PangoLayout) layout = gtk_widget_create_pango_layout (widget, label);
        double tw, th, x = floor (PX (v)), lx;
        graphene_rect_t rect;

        gtk_snapshot_append_color (snapshot, &grid, &GRAPHENE_RECT_INIT (x, top, 1, plot_h));
        prism_chart_text_size (layout, &tw, &th);
        lx = CLAMP (x - tw / 2, left - tw / 2, width - PAD - tw);
        /* A label that would run into the one before it is left out (its
         * grid line stays): "1 тыс." and "10 тыс." are wider than a decade
         * of a narrow chart, and the last is pushed left by the edge. */
        if (self->x_tick_rects->len > 0)
          {
            const graphene_rect_t *previous = &g_array_index (self->x_tick_rects, graphene_rect_t,
                                                              self->x_tick_rects->len - 1);

            if (lx < previous->origin.x + previous->size.width + 6)
              continue;
          }
        prism_chart_append_text (snapshot, layout, &dim, lx, bottom + 4);
        rect = GRAPHENE_RECT_INIT (lx, bottom + 4, tw, th);
        g_array_append_val (self->x_tick_rects, rect);
        g_ptr_array_add (self->x_ticks, g_steal_pointer (&label));
      }
  }
  {
    g_autoptr(PangoLayout) x_title =
      gtk_widget_create_pango_layout (widget, _("Arithmetic intensity (FLOP per DRAM byte)"));
    g_autoptr(PangoLayout) y_title = gtk_widget_create_pango_layout (widget, _("Attained GFLOP/s"));
    double tw, th;

    prism_chart_text_size (x_title, &tw, &th);
    prism_chart_append_text (snapshot, x_title, &dim, left + (plot_w - tw) / 2, height - PAD - th);
    prism_chart_text_size (y_title, &tw, &th);
    prism_chart_append_text (snapshot, y_title, &dim, left + 4, top + 2);
  }

  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
  cairo_rectangle (cr, left, top, plot_w, plot_h);
  cairo_clip (cr);
  draw_ceilings (self, cr, left, top, plot_w, plot_h);

  /* Baseline first, so that the candidate's points are on top. */
  for (guint pass = 0; pass < 2; pass++)
    for (guint i = 0; i < self->points->len; i++)
      {
        PrismRooflinePoint *p = &g_array_index (self->points, PrismRooflinePoint, i);
        const GdkRGBA *color = p->baseline ? &baseline_color : &candidate_color;

        if (p->baseline != (pass == 0))
          continue;
        p->x = PX (p->intensity);
        p->y = PY (p->gflops);
        /* Zoomed, a point out of view is neither drawn nor hovered. */
        if (self->zoom.zoomed && !prism_chart_zoom_contains (&self->zoom, p->x, p->y))
          {
            p->x = p->y = -G_MAXDOUBLE;
            continue;
          }
        if (self->pointer_inside &&
            hypot (p->x - self->pointer_x, p->y - self->pointer_y) <= HOVER_RADIUS &&
            (hover < 0 || hypot (p->x - self->pointer_x, p->y - self->pointer_y) <
                          hypot (g_array_index (self->points, PrismRooflinePoint, hover).x - self->pointer_x,
                                 g_array_index (self->points, PrismRooflinePoint, hover).y - self->pointer_y)))
          hover = (int) i;
        cairo_new_path (cr);
        if (p->measured)
          {
            /* A diamond: filled for the candidate, hollow for the baseline. */
            cairo_move_to (cr, p->x, p->y - DOT_RADIUS - 1.5);
            cairo_line_to (cr, p->x + DOT_RADIUS + 1.5, p->y);
            cairo_line_to (cr, p->x, p->y + DOT_RADIUS + 1.5);
            cairo_line_to (cr, p->x - DOT_RADIUS - 1.5, p->y);
            cairo_close_path (cr);
            gdk_cairo_set_source_rgba (cr, color);
            cairo_set_line_width (cr, 1.5);
            if (!p->baseline)
              cairo_fill_preserve (cr);
            cairo_stroke (cr);
          }
        else if (p->baseline)
          {
            /* Hollow: the background shows through, whatever the theme. */
            cairo_arc (cr, p->x, p->y, DOT_RADIUS, 0, 2 * G_PI);
            cairo_set_source_rgba (cr, color->red, color->green, color->blue, 0.12);
            cairo_fill_preserve (cr);
            gdk_cairo_set_source_rgba (cr, color);
            cairo_set_line_width (cr, 1.5);
            cairo_stroke (cr);
          }
        else
          draw_mark (cr, MARK_DOT, color, p->x - DOT_RADIUS, p->y, 2 * DOT_RADIUS);
      }
  if (self->selected >= 0 && g_array_index (self->points, PrismRooflinePoint, self->selected).x > -G_MAXDOUBLE)
    {
      const PrismRooflinePoint *p = &g_array_index (self->points, PrismRooflinePoint, self->selected);

      /* The launch selected in the list (Nsight's linked selection): a
       * thick ring in the text colour around the point, twice its size. */
      cairo_new_path (cr);
      cairo_arc (cr, p->x, p->y, 2 * DOT_RADIUS + 1, 0, 2 * G_PI);
      gdk_cairo_set_source_rgba (cr, &fg);
      cairo_set_line_width (cr, 2.5);
      cairo_stroke (cr);
    }
  if (hover >= 0)
    {
      const PrismRooflinePoint *p = &g_array_index (self->points, PrismRooflinePoint, hover);

      cairo_new_path (cr);
      cairo_arc (cr, p->x, p->y, DOT_RADIUS + 3, 0, 2 * G_PI);
      gdk_cairo_set_source_rgba (cr, &fg);
      cairo_set_line_width (cr, 1.5);
      cairo_stroke (cr);
    }
  cairo_destroy (cr);

  /* The selected launch's name beside its ring (left of it near the right
   * edge), as Nsight labels the kernel it links to. */
  if (self->selected >= 0 && g_array_index (self->points, PrismRooflinePoint, self->selected).x > -G_MAXDOUBLE)
    {
      const PrismRooflinePoint *p = &g_array_index (self->points, PrismRooflinePoint, self->selected);
      g_autoptr(PangoLayout) layout = gtk_widget_create_pango_layout (widget, p->label);
      double tw, th, x;

      prism_chart_text_size (layout, &tw, &th);
      x = p->x + 2 * DOT_RADIUS + 6;
      if (x + tw > left + plot_w)
        x = p->x - 2 * DOT_RADIUS - 6 - tw;
      prism_chart_append_text (snapshot, layout, &fg, MAX (x, left),
                               CLAMP (p->y - th / 2, top, top + plot_h - th));
    }

  if (self->points->len == 0)
    {
      g_autoptr(PangoLayout) layout = gtk_widget_create_pango_layout (widget, _("No launch to draw"));
      double tw, th;

      prism_chart_text_size (layout, &tw, &th);
      prism_chart_append_text (snapshot, layout, &dim, left + (plot_w - tw) / 2, top + (plot_h - th) / 2);
    }

#undef PX
#undef PY
}

static void
prism_roofline_chart_measure (GtkWidget      *widget,
                              GtkOrientation  orientation,
                              int             for_size,
                              int            *minimum,
                              int            *natural,
                              int            *minimum_baseline,
                              int            *natural_baseline)
{
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      *minimum = 260;
      *natural = 480;
    }
  else
    {
      *minimum = 200;
      *natural = 320;
    }
}

static gboolean
prism_roofline_chart_query_tooltip (GtkWidget  *widget,
                                    int         x,
                                    int         y,
                                    gboolean    keyboard_mode,
                                    GtkTooltip *tooltip)
{
  g_autofree char *markup = prism_roofline_chart_describe_at (PRISM_ROOFLINE_CHART (widget), x, y);

  if (markup == NULL)
    return FALSE;
  gtk_tooltip_set_markup (tooltip, markup);
  return TRUE;
}

static void
motion_cb (PrismRooflineChart       *self,
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
leave_cb (PrismRooflineChart       *self,
          GtkEventControllerMotion *motion)
{
  self->pointer_inside = FALSE;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
zoom_changed (PrismRooflineChart *self)
{
  if (self->notified_zoomed != self->zoom.zoomed)
    {
      self->notified_zoomed = self->zoom.zoomed;
      g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_ZOOMED]);
    }
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "roofline.reset-zoom", self->zoom.zoomed);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "roofline.zoom-out", self->zoom.zoomed);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* The wheel zooms both log axes around the pointer (Shift: intensity only). */
static gboolean
scroll_cb (PrismRooflineChart       *self,
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
  prism_roofline_chart_zoom_at (self, x, y, factor, x_only);
  return TRUE;
}

static void
drag_begin_cb (PrismRooflineChart *self,
               double              x,
               double              y,
               GtkGestureDrag     *gesture)
{
  if (!self->zoom.zoomed)
    {
      gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_DENIED);
      return;
    }
  prism_chart_zoom_drag_begin (&self->zoom);
}

static void
drag_update_cb (PrismRooflineChart *self,
                double              dx,
                double              dy,
                GtkGestureDrag     *gesture)
{
  gtk_widget_set_cursor_from_name (GTK_WIDGET (self), "grabbing");
  if (prism_chart_zoom_drag_to (&self->zoom, dx, dy))
    zoom_changed (self);
}

static void
drag_end_cb (PrismRooflineChart *self,
             double              dx,
             double              dy,
             GtkGestureDrag     *gesture)
{
  gtk_widget_set_cursor (GTK_WIDGET (self), NULL);
}

/* A double click shows every decade again. */
static void
pressed_cb (PrismRooflineChart *self,
            int                 n_press,
            double              x,
            double              y,
            GtkGestureClick    *gesture)
{
  gtk_widget_grab_focus (GTK_WIDGET (self));
  if (n_press == 1)
    prism_roofline_chart_click_at (self, x, y);
  if (n_press == 2 && self->zoom.zoomed)
    {
      gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
      prism_roofline_chart_reset_zoom (self);
    }
}

static void
zoom_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  PrismRooflineChart *self = PRISM_ROOFLINE_CHART (widget);

  prism_roofline_chart_zoom_at (self, self->zoom.plot.origin.x + self->zoom.plot.size.width / 2,
                                self->zoom.plot.origin.y + self->zoom.plot.size.height / 2,
                                g_str_equal (action_name, "roofline.zoom-in") ? ZOOM_STEP : 1 / ZOOM_STEP,
                                FALSE);
}

static void
reset_zoom_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  prism_roofline_chart_reset_zoom (PRISM_ROOFLINE_CHART (widget));
}

/*
 * GObject overrides
 */

static void
prism_roofline_chart_finalize (GObject *object)
{
  PrismRooflineChart *self = (PrismRooflineChart *)object;

  g_clear_pointer (&self->candidate, prism_kernel_report_unref);
  g_clear_pointer (&self->baseline, prism_kernel_report_unref);
  g_clear_pointer (&self->points, g_array_unref);
  g_clear_pointer (&self->x_ticks, g_ptr_array_unref);
  g_clear_pointer (&self->x_tick_rects, g_array_unref);

  G_OBJECT_CLASS (prism_roofline_chart_parent_class)->finalize (object);
}

static void
prism_roofline_chart_get_property (GObject    *object,
                                   guint       prop_id,
                                   GValue     *value,
                                   GParamSpec *pspec)
{
  PrismRooflineChart *self = PRISM_ROOFLINE_CHART (object);

  switch (prop_id)
    {
    case PROP_ZOOMED:
      g_value_set_boolean (value, self->zoom.zoomed);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
prism_roofline_chart_class_init (PrismRooflineChartClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->finalize = prism_roofline_chart_finalize;
  object_class->get_property = prism_roofline_chart_get_property;

  /* Whether a part of the decades is shown (the Kernel page shows Reset
   * Zoom then). */
  properties [PROP_ZOOMED] =
    g_param_spec_boolean ("zoomed", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * PrismRooflineChart::point-clicked:
   * @point: the index of the point clicked
   *
   * A click on a point: the Kernel page selects its launch, which selects
   * the point (the chart does not select on its own).
   */
  signals [POINT_CLICKED] =
    g_signal_new ("point-clicked", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_INT);

  widget_class->snapshot = prism_roofline_chart_snapshot;
  widget_class->measure = prism_roofline_chart_measure;
  widget_class->query_tooltip = prism_roofline_chart_query_tooltip;

  gtk_widget_class_install_action (widget_class, "roofline.zoom-in", NULL, zoom_action);
  gtk_widget_class_install_action (widget_class, "roofline.zoom-out", NULL, zoom_action);
  gtk_widget_class_install_action (widget_class, "roofline.reset-zoom", NULL, reset_zoom_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_plus, 0, "roofline.zoom-in", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_equal, 0, "roofline.zoom-in", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_Add, 0, "roofline.zoom-in", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_minus, 0, "roofline.zoom-out", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_Subtract, 0, "roofline.zoom-out", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_0, 0, "roofline.reset-zoom", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_0, GDK_CONTROL_MASK, "roofline.reset-zoom", NULL);

  gtk_widget_class_set_css_name (widget_class, "rooflinechart");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
prism_roofline_chart_init (PrismRooflineChart *self)
{
  GtkEventController *motion = gtk_event_controller_motion_new ();
  GtkEventController *scroll = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_VERTICAL);
  GtkGesture *drag = gtk_gesture_drag_new ();
  GtkGesture *click = gtk_gesture_click_new ();

  self->x_ticks = g_ptr_array_new_with_free_func (g_free);
  self->x_tick_rects = g_array_new (FALSE, FALSE, sizeof (graphene_rect_t));
  self->selected = -1;
  gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);
  g_signal_connect_object (scroll, "scroll", G_CALLBACK (scroll_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self), scroll);
  g_signal_connect_object (drag, "drag-begin", G_CALLBACK (drag_begin_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (drag, "drag-update", G_CALLBACK (drag_update_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (drag, "drag-end", G_CALLBACK (drag_end_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drag));
  g_signal_connect_object (click, "pressed", G_CALLBACK (pressed_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (click));
  zoom_changed (self);
  self->points = g_array_new (FALSE, TRUE, sizeof (PrismRooflinePoint));
  g_array_set_clear_func (self->points, point_clear);
  g_signal_connect_object (motion, "motion", G_CALLBACK (motion_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (motion, "leave", G_CALLBACK (leave_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self), motion);
  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Roofline"),
                                  -1);
}

/*
 * Public API
 */

GtkWidget *
prism_roofline_chart_new (void)
{
  return g_object_new (PRISM_TYPE_ROOFLINE_CHART, NULL);
}

void
prism_roofline_chart_set_reports (PrismRooflineChart *self,
                                  PrismKernelReport  *candidate,
                                  PrismKernelReport  *baseline,
                                  double              candidate_measured_us,
                                  double              baseline_measured_us)
{
  g_return_if_fail (PRISM_IS_ROOFLINE_CHART (self));

  /* Another candidate's launches are on other decades; a measurement of the
   * same one keeps the view. */
  if (candidate != self->candidate || baseline != self->baseline)
    {
      self->zoom.zoomed = FALSE;
      zoom_changed (self);
    }
  if (candidate != NULL)
    prism_kernel_report_ref (candidate);
  if (baseline != NULL)
    prism_kernel_report_ref (baseline);
  g_clear_pointer (&self->candidate, prism_kernel_report_unref);
  g_clear_pointer (&self->baseline, prism_kernel_report_unref);
  self->candidate = candidate;
  self->baseline = baseline;
  self->candidate_measured_us = candidate_measured_us;
  self->baseline_measured_us = baseline_measured_us;
  self->target = candidate ? candidate->target : baseline ? baseline->target : NULL;

  g_array_set_size (self->points, 0);
  self->selected = -1;
  self->n_not_drawn = 0;
  add_launch_points (self, baseline, TRUE);
  add_launch_points (self, candidate, FALSE);
  add_measured_point (self, baseline, TRUE, baseline_measured_us);
  add_measured_point (self, candidate, FALSE, candidate_measured_us);
  update_ranges (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

guint
prism_roofline_chart_get_n_points (PrismRooflineChart *self)
{
  g_return_val_if_fail (PRISM_IS_ROOFLINE_CHART (self), 0);
  return self->points->len;
}

const PrismRooflinePoint *
prism_roofline_chart_get_point (PrismRooflineChart *self,
                                guint               index)
{
  g_return_val_if_fail (PRISM_IS_ROOFLINE_CHART (self), NULL);
  g_return_val_if_fail (index < self->points->len, NULL);
  return &g_array_index (self->points, PrismRooflinePoint, index);
}

guint
prism_roofline_chart_get_n_not_drawn (PrismRooflineChart *self)
{
  g_return_val_if_fail (PRISM_IS_ROOFLINE_CHART (self), 0);
  return self->n_not_drawn;
}

int
prism_roofline_chart_point_at (PrismRooflineChart *self,
                               double              x,
                               double              y)
{
  int nearest = -1;
  double best = HOVER_RADIUS;

  g_return_val_if_fail (PRISM_IS_ROOFLINE_CHART (self), -1);

  for (guint i = 0; i < self->points->len; i++)
    {
      const PrismRooflinePoint *p = &g_array_index (self->points, PrismRooflinePoint, i);
      double d = hypot (p->x - x, p->y - y);

      if (d <= best)
        {
          best = d;
          nearest = (int) i;
        }
    }
  return nearest;
}

char *
prism_roofline_chart_describe_at (PrismRooflineChart *self,
                                  double              x,
                                  double              y)
{
  const PrismRooflinePoint *p;
  PrismKernelReport *report;
  g_autofree char *intensity = NULL;
  g_autofree char *rate = NULL;
  int index;

  g_return_val_if_fail (PRISM_IS_ROOFLINE_CHART (self), NULL);

  if ((index = prism_roofline_chart_point_at (self, x, y)) < 0)
    return NULL;
  p = &g_array_index (self->points, PrismRooflinePoint, index);
  report = p->baseline ? self->baseline : self->candidate;
  intensity = prism_format_intensity (p->intensity);
  rate = prism_format_flops_rate (p->gflops);
  if (p->measured)
    {
      g_autofree char *time = prism_format_time_us (p->baseline ? self->baseline_measured_us
                                                                : self->candidate_measured_us);
      /* Translators: a roofline point's tooltip: what it is, intensity, rate, time */
      return g_markup_printf_escaped (_("<b>%s</b>\n%s · %s\n%s measured on the GPU"),
                                      p->label, intensity, rate, time);
    }
  else
    {
      const PrismKernelReportLaunch *launch = prism_kernel_report_get_launch (report, (guint) p->index);
      g_autofree char *time = prism_format_time_us (launch->cost.us);

      /* Translators: a roofline point's tooltip: the kernel, whose launch it
       * is (candidate or baseline), its role and operators, its arithmetic
       * intensity and rate, its predicted time and the cost term that sets it */
      return g_markup_printf_escaped (_("<b>%s</b> (%s, launch %u)\n%s: %s\n%s · %s\n%s predicted, bound by %s"),
                                      p->label, p->baseline ? _("baseline") : _("candidate"),
                                      (guint) p->index + 1,
                                      prism_kernel_role_to_label (launch->role), launch->ops,
                                      intensity, rate, time, prism_kernel_report_launch_limiter (launch));
    }
}

/**
 * prism_roofline_chart_zoom_at:
 * @x: (in): the point that stays put, in widget coordinates
 * @factor: more than 1 zooms in, less than 1 out
 * @intensity_only: zoom the intensity axis only
 *
 * Zooms around (@x, @y) in log space, within the chart's decades.
 */
void
prism_roofline_chart_zoom_at (PrismRooflineChart *self,
                              double              x,
                              double              y,
                              double              factor,
                              gboolean            intensity_only)
{
  g_return_if_fail (PRISM_IS_ROOFLINE_CHART (self));
  g_return_if_fail (factor > 0);

  prism_chart_zoom_set_full (&self->zoom, self->x_lo, self->x_hi, self->y_lo, self->y_hi);
  if (prism_chart_zoom_at (&self->zoom, x, y, factor, intensity_only))
    zoom_changed (self);
}

/* Moves a zoomed view by (@dx, @dy) pixels, the content following. */
void
prism_roofline_chart_pan (PrismRooflineChart *self,
                          double              dx,
                          double              dy)
{
  g_return_if_fail (PRISM_IS_ROOFLINE_CHART (self));
  if (prism_chart_zoom_pan (&self->zoom, dx, dy))
    zoom_changed (self);
}

void
prism_roofline_chart_reset_zoom (PrismRooflineChart *self)
{
  g_return_if_fail (PRISM_IS_ROOFLINE_CHART (self));
  self->zoom.zoomed = FALSE;
  zoom_changed (self);
}

gboolean
prism_roofline_chart_get_zoomed (PrismRooflineChart *self)
{
  g_return_val_if_fail (PRISM_IS_ROOFLINE_CHART (self), FALSE);
  return self->zoom.zoomed;
}

/**
 * prism_roofline_chart_get_view:
 * @x0: (out): log10 of the lowest intensity shown in the last drawing; and so on
 */
void
prism_roofline_chart_get_view (PrismRooflineChart *self,
                               double             *x0,
                               double             *x1,
                               double             *y0,
                               double             *y1)
{
  g_return_if_fail (PRISM_IS_ROOFLINE_CHART (self));
  *x0 = self->vx0;
  *x1 = self->vx1;
  *y0 = self->vy0;
  *y1 = self->vy1;
}

/* Returns: (transfer none) (element-type utf8): the intensity axis' tick
 * labels of the last drawing (tests) */
GPtrArray *
prism_roofline_chart_get_ticks (PrismRooflineChart *self)
{
  g_return_val_if_fail (PRISM_IS_ROOFLINE_CHART (self), NULL);
  return self->x_ticks;
}

void
prism_roofline_chart_set_selected (PrismRooflineChart *self,
                                   int                 point)
{
  g_return_if_fail (PRISM_IS_ROOFLINE_CHART (self));
  g_return_if_fail (point < (int) self->points->len);

  point = MAX (point, -1);
  if (self->selected == point)
    return;
  self->selected = point;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

int
prism_roofline_chart_get_selected (PrismRooflineChart *self)
{
  g_return_val_if_fail (PRISM_IS_ROOFLINE_CHART (self), -1);
  return self->selected;
}

int
prism_roofline_chart_find_launch (PrismRooflineChart *self,
                                  guint               launch,
                                  gboolean            baseline)
{
  g_return_val_if_fail (PRISM_IS_ROOFLINE_CHART (self), -1);

  for (guint i = 0; i < self->points->len; i++)
    {
      const PrismRooflinePoint *p = &g_array_index (self->points, PrismRooflinePoint, i);

      if (!p->measured && p->index == (int) launch && !p->baseline == !baseline)
        return (int) i;
    }
  return -1;
}

gboolean
prism_roofline_chart_click_at (PrismRooflineChart *self,
                               double              x,
                               double              y)
{
  int point;

  g_return_val_if_fail (PRISM_IS_ROOFLINE_CHART (self), FALSE);

  point = prism_roofline_chart_point_at (self, x, y);
  if (point < 0)
    return FALSE;
  g_signal_emit (self, signals [POINT_CLICKED], 0, point);
  return TRUE;
}

GArray *
prism_roofline_chart_get_tick_rects (PrismRooflineChart *self)
{
  g_return_val_if_fail (PRISM_IS_ROOFLINE_CHART (self), NULL);
  return self->x_tick_rects;
}
