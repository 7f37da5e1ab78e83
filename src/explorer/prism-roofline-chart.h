/* prism-roofline-chart.h — every launch of a candidate and of the baseline against the target's ceilings
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "prism-kernel-report.h"

G_BEGIN_DECLS

#define PRISM_TYPE_ROOFLINE_CHART (prism_roofline_chart_get_type ())

G_DECLARE_FINAL_TYPE (PrismRooflineChart, prism_roofline_chart, PRISM, ROOFLINE_CHART, GtkWidget)

/**
 * PrismRooflinePoint:
 * @label: what the point is (a kernel's name, or the whole program)
 * @intensity: FLOPs per byte that crosses DRAM
 * @gflops: attained GFLOP/s: FLOPs over the predicted time, or over the
 *   measured time for @measured points
 * @baseline: a launch of the baseline (drawn hollow) rather than of the
 *   candidate (filled)
 * @measured: the whole program timed on a GPU (a diamond): the GPU times
 *   programs, not launches
 * @index: the launch's position in its report; -1 for a whole program
 * @x: @y: where the last drawing put it, in widget coordinates
 */
typedef struct
{
  char *label;
  double intensity;
  double gflops;
  gboolean baseline;
  gboolean measured;
  int index;
  double x, y;
} PrismRooflinePoint;

GtkWidget                *prism_roofline_chart_new            (void);
/**
 * prism_roofline_chart_set_reports:
 * @candidate: (nullable): the launches drawn filled
 * @baseline: (nullable): the launches drawn hollow
 * @candidate_measured_us: the whole candidate timed on a GPU, or ≤ 0
 * @baseline_measured_us: the whole baseline timed on a GPU, or ≤ 0
 *
 * The ceilings are those of the reports' target.  References are taken.
 */
void                      prism_roofline_chart_set_reports    (PrismRooflineChart *self,
                                                               PrismKernelReport  *candidate,
                                                               PrismKernelReport  *baseline,
                                                               double              candidate_measured_us,
                                                               double              baseline_measured_us);
guint                     prism_roofline_chart_get_n_points   (PrismRooflineChart *self);
/* (transfer none) */
const PrismRooflinePoint *prism_roofline_chart_get_point      (PrismRooflineChart *self,
                                                               guint               index);
/* Launches without FLOPs (copies), which a log scale cannot place. */
guint                     prism_roofline_chart_get_n_not_drawn (PrismRooflineChart *self);
/* The point nearest (x, y) within a few pixels in the last drawing, or -1. */
int                       prism_roofline_chart_point_at       (PrismRooflineChart *self,
                                                               double              x,
                                                               double              y);
/* The tooltip of the point at (x, y), Pango markup, or %NULL (transfer full). */
char                     *prism_roofline_chart_describe_at    (PrismRooflineChart *self,
                                                               double              x,
                                                               double              y);
/* Zoom and pan (the wheel, a drag, the roofline.zoom-in, roofline.zoom-out
 * and roofline.reset-zoom actions; a double click resets). */
void                      prism_roofline_chart_zoom_at        (PrismRooflineChart *self,
                                                               double              x,
                                                               double              y,
                                                               double              factor,
                                                               gboolean            intensity_only);
void                      prism_roofline_chart_pan            (PrismRooflineChart *self,
                                                               double              dx,
                                                               double              dy);
void                      prism_roofline_chart_reset_zoom     (PrismRooflineChart *self);
gboolean                  prism_roofline_chart_get_zoomed     (PrismRooflineChart *self);
void                      prism_roofline_chart_get_view       (PrismRooflineChart *self,
                                                               double             *x0,
                                                               double             *x1,
                                                               double             *y0,
                                                               double             *y1);
GPtrArray                *prism_roofline_chart_get_ticks      (PrismRooflineChart *self);
/* (element-type graphene_rect_t) (transfer none): where the last drawing
 * put each x label of prism_roofline_chart_get_ticks(); none overlaps the
 * next (a label that would is left out). */
GArray                   *prism_roofline_chart_get_tick_rects (PrismRooflineChart *self);
/* The point drawn ringed as selected (a launch selected in the Kernel
 * page's list), or -1; new reports select none. */
void                      prism_roofline_chart_set_selected   (PrismRooflineChart *self,
                                                               int                 point);
int                       prism_roofline_chart_get_selected   (PrismRooflineChart *self);
/* The point of the @launch-th launch of the candidate (or, with @baseline,
 * of the baseline), or -1 if it is not drawn. */
int                       prism_roofline_chart_find_launch    (PrismRooflineChart *self,
                                                               guint               launch,
                                                               gboolean            baseline);
/* What a click at (x, y) does: emits ::point-clicked for the point there.
 * Returns: whether there was one. */
gboolean                  prism_roofline_chart_click_at       (PrismRooflineChart *self,
                                                               double              x,
                                                               double              y);

G_END_DECLS
