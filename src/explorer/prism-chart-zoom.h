/* prism-chart-zoom.h — the visible range of a zoomable chart
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* One wheel notch or key press. */
#define PRISM_CHART_ZOOM_STEP 1.25

/* One chart's view: the part of its axes' full range it shows, in the
 * axes' own units (log10 of the value on a log axis), and where it drew
 * its plot last.  Plain data, inside the chart's instance. */
typedef struct
{
  double x0, x1, y0, y1;    /* the full range, set by the chart before each use */
  double vx0, vx1, vy0, vy1; /* the view, when zoomed */
  gboolean zoomed;
  graphene_rect_t plot;     /* the plot area of the last drawing, in widget coordinates */
  double drag_x0, drag_y0;  /* the view's corner when a drag began */
} PrismChartZoom;

void     prism_chart_zoom_set_full  (PrismChartZoom *zoom,
                                     double          x0,
                                     double          x1,
                                     double          y0,
                                     double          y1);
void     prism_chart_zoom_get_view  (const PrismChartZoom *zoom,
                                     double         *x0,
                                     double         *x1,
                                     double         *y0,
                                     double         *y1);
gboolean prism_chart_zoom_at        (PrismChartZoom *zoom,
                                     double          x,
                                     double          y,
                                     double          factor,
                                     gboolean        x_only);
void     prism_chart_zoom_drag_begin (PrismChartZoom *zoom);
gboolean prism_chart_zoom_drag_to   (PrismChartZoom *zoom,
                                     double          dx,
                                     double          dy);
gboolean prism_chart_zoom_pan       (PrismChartZoom *zoom,
                                     double          dx,
                                     double          dy);
gboolean prism_chart_zoom_contains  (const PrismChartZoom *zoom,
                                     double          x,
                                     double          y);

/* The zoom one wheel event asks for: where (the pointer when it is over
 * the chart, else the plot's centre), by how much (touchpads report
 * pixels, a notch is about ten) and whether Shift limits it to x.
 * Returns FALSE for an event without vertical motion. */
gboolean prism_chart_zoom_wheel     (const PrismChartZoom     *zoom,
                                     GtkEventControllerScroll *controller,
                                     double                    dy,
                                     const graphene_point_t   *pointer,
                                     double                   *x,
                                     double                   *y,
                                     double                   *factor,
                                     gboolean                 *x_only);

G_END_DECLS
