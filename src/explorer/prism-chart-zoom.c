/* prism-chart-zoom.c — the visible range of a zoomable chart
 *
 * The speedup chart and the roofline zoom and pan the same way: the wheel
 * zooms around the pointer, a drag moves the view, within the axes' full
 * range and no deeper than MAX_ZOOM; zoomed out to all of it, the chart
 * is no longer zoomed (it follows its data again).  The functions that
 * change the view return whether it changed, for the chart to redraw.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "prism-chart-zoom.h"

#include <math.h>

/* The smallest view is this share of the full range. */
#define MAX_ZOOM 1000.0

/* Sets the axes' full range (which the view stays within). */
void
prism_chart_zoom_set_full (PrismChartZoom *zoom,
                           double          x0,
                           double          x1,
                           double          y0,
                           double          y1)
{
  zoom->x0 = x0;
  zoom->x1 = x1;
  zoom->y0 = y0;
  zoom->y1 = y1;
}

/* The range shown: the view when zoomed, else the full range. */
void
prism_chart_zoom_get_view (const PrismChartZoom *zoom,
                           double               *x0,
                           double               *x1,
                           double               *y0,
                           double               *y1)
{
  *x0 = zoom->zoomed ? zoom->vx0 : zoom->x0;
  *x1 = zoom->zoomed ? zoom->vx1 : zoom->x1;
  *y0 = zoom->zoomed ? zoom->vy0 : zoom->y0;
  *y1 = zoom->zoomed ? zoom->vy1 : zoom->y1;
}

/* [*lo, *lo + *width] within [full_lo, full_hi], no narrower than the
 * deepest zoom allows; a width clamped keeps the range's centre. */
static void
clamp_range (double *lo,
             double *width,
             double  full_lo,
             double  full_hi)
{
  double full = full_hi - full_lo;
  double clamped = CLAMP (*width, full / MAX_ZOOM, full);

  *lo += (*width - clamped) / 2;
  *lo = CLAMP (*lo, full_lo, full_hi - clamped);
  *width = clamped;
}

/* Shows [x0, x1] × [y0, y1], kept within the full range. */
static gboolean
set_view (PrismChartZoom *zoom,
          double          x0,
          double          x1,
          double          y0,
          double          y1)
{
  double wx = x1 - x0, wy = y1 - y0;
  gboolean was_zoomed = zoom->zoomed;

  /* Nothing drawn yet: no range to zoom into. */
  if (!(zoom->x1 > zoom->x0) || !(zoom->y1 > zoom->y0))
    return FALSE;
  clamp_range (&x0, &wx, zoom->x0, zoom->x1);
  clamp_range (&y0, &wy, zoom->y0, zoom->y1);
  zoom->vx0 = x0;
  zoom->vx1 = x0 + wx;
  zoom->vy0 = y0;
  zoom->vy1 = y0 + wy;
  zoom->zoomed = wx < (zoom->x1 - zoom->x0) * (1 - 1e-9) || wy < (zoom->y1 - zoom->y0) * (1 - 1e-9);
  return zoom->zoomed || was_zoomed;
}

/**
 * prism_chart_zoom_at:
 * @x: (in): the point that stays put, in widget coordinates
 * @factor: more than 1 zooms in, less than 1 out
 * @x_only: zoom the horizontal axis only
 *
 * Returns: whether the view changed
 */
gboolean
prism_chart_zoom_at (PrismChartZoom *zoom,
                     double          x,
                     double          y,
                     double          factor,
                     gboolean        x_only)
{
  double vx0, vx1, vy0, vy1, fx, fy, px, py, wx, wy;

  g_return_val_if_fail (factor > 0, FALSE);

  if (zoom->plot.size.width <= 0 || zoom->plot.size.height <= 0)
    return FALSE;
  prism_chart_zoom_get_view (zoom, &vx0, &vx1, &vy0, &vy1);
  fx = CLAMP ((x - zoom->plot.origin.x) / zoom->plot.size.width, 0, 1);
  fy = CLAMP ((zoom->plot.origin.y + zoom->plot.size.height - y) / zoom->plot.size.height, 0, 1);
  px = vx0 + fx * (vx1 - vx0);
  py = vy0 + fy * (vy1 - vy0);
  wx = (vx1 - vx0) / factor;
  wy = x_only ? vy1 - vy0 : (vy1 - vy0) / factor;
  return set_view (zoom, px - fx * wx, px - fx * wx + wx, py - fy * wy, py - fy * wy + wy);
}

/* Moves the view started at (@x0, @y0) by (@dx, @dy) pixels, the content
 * following the pointer. */
static gboolean
pan_from (PrismChartZoom *zoom,
          double          x0,
          double          y0,
          double          dx,
          double          dy)
{
  double vx0, vx1, vy0, vy1;

  if (!zoom->zoomed || zoom->plot.size.width <= 0 || zoom->plot.size.height <= 0)
    return FALSE;
  prism_chart_zoom_get_view (zoom, &vx0, &vx1, &vy0, &vy1);
  x0 -= dx / zoom->plot.size.width * (vx1 - vx0);
  y0 += dy / zoom->plot.size.height * (vy1 - vy0);
  return set_view (zoom, x0, x0 + (vx1 - vx0), y0, y0 + (vy1 - vy0));
}

/* A drag starts from the view as it is now. */
void
prism_chart_zoom_drag_begin (PrismChartZoom *zoom)
{
  zoom->drag_x0 = zoom->vx0;
  zoom->drag_y0 = zoom->vy0;
}

/* Returns: whether the view changed, @dx, @dy pixels from where the drag began */
gboolean
prism_chart_zoom_drag_to (PrismChartZoom *zoom,
                          double          dx,
                          double          dy)
{
  return pan_from (zoom, zoom->drag_x0, zoom->drag_y0, dx, dy);
}

/* Returns: whether the view changed, moved by @dx, @dy pixels */
gboolean
prism_chart_zoom_pan (PrismChartZoom *zoom,
                      double          dx,
                      double          dy)
{
  return pan_from (zoom, zoom->vx0, zoom->vy0, dx, dy);
}

/* Whether a point drawn at (@x, @y) is in the plot area (half a pixel of
 * slack): zoomed, the others are neither drawn nor hit. */
gboolean
prism_chart_zoom_contains (const PrismChartZoom *zoom,
                           double                x,
                           double                y)
{
  return x >= zoom->plot.origin.x - 0.5 && x <= zoom->plot.origin.x + zoom->plot.size.width + 0.5 &&
         y >= zoom->plot.origin.y - 0.5 && y <= zoom->plot.origin.y + zoom->plot.size.height + 0.5;
}

gboolean
prism_chart_zoom_wheel (const PrismChartZoom     *zoom,
                        GtkEventControllerScroll *controller,
                        double                    dy,
                        const graphene_point_t   *pointer,
                        double                   *x,
                        double                   *y,
                        double                   *factor,
                        gboolean                 *x_only)
{
  GtkEventController *ec = GTK_EVENT_CONTROLLER (controller);
  GdkEvent *event = gtk_event_controller_get_current_event (ec);

  if (dy == 0)
    return FALSE;
  if (event != NULL && gdk_scroll_event_get_direction (event) == GDK_SCROLL_SMOOTH &&
      gdk_event_get_device (event) != NULL &&
      gdk_device_get_source (gdk_event_get_device (event)) == GDK_SOURCE_TOUCHPAD)
    dy /= 10;
  *x = pointer != NULL ? pointer->x : zoom->plot.origin.x + zoom->plot.size.width / 2;
  *y = pointer != NULL ? pointer->y : zoom->plot.origin.y + zoom->plot.size.height / 2;
  *factor = pow (PRISM_CHART_ZOOM_STEP, -dy);
  *x_only = (gtk_event_controller_get_current_event_state (ec) & GDK_SHIFT_MASK) != 0;
  return TRUE;
}
