/* prism-speedup-chart.h — best speedup over time and every candidate's
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "prism-search-model.h"

G_BEGIN_DECLS

#define PRISM_TYPE_SPEEDUP_CHART (prism_speedup_chart_get_type ())

G_DECLARE_FINAL_TYPE (PrismSpeedupChart, prism_speedup_chart, PRISM, SPEEDUP_CHART, GtkWidget)

GtkWidget        *prism_speedup_chart_new         (void);
PrismSearchModel *prism_speedup_chart_get_model   (PrismSpeedupChart *self);
void              prism_speedup_chart_set_model   (PrismSpeedupChart *self,
                                                   PrismSearchModel  *model);
/* The axis ranges of the last drawing (tests). */
void              prism_speedup_chart_get_ranges  (PrismSpeedupChart *self,
                                                   double            *max_time_s,
                                                   double            *max_speedup);
/* The candidate whose point is nearest (x, y) within a few pixels, or 0. */
guint             prism_speedup_chart_candidate_at (PrismSpeedupChart *self,
                                                    double             x,
                                                    double             y);
gboolean          prism_speedup_chart_find_point  (PrismSpeedupChart *self,
                                                   guint              id,
                                                   double            *x,
                                                   double            *y);
/* Points of the last drawing, measured (filled) or predicted (tests). */
guint             prism_speedup_chart_count_dots  (PrismSpeedupChart *self,
                                                   gboolean           measured);

/* Zoom and pan (the wheel, a drag, the chart.zoom-in, chart.zoom-out and
 * chart.reset-zoom actions; a double click resets). */
void              prism_speedup_chart_zoom_at     (PrismSpeedupChart *self,
                                                   double             x,
                                                   double             y,
                                                   double             factor,
                                                   gboolean           time_only);
void              prism_speedup_chart_pan         (PrismSpeedupChart *self,
                                                   double             dx,
                                                   double             dy);
void              prism_speedup_chart_reset_zoom  (PrismSpeedupChart *self);
gboolean          prism_speedup_chart_get_zoomed  (PrismSpeedupChart *self);
void              prism_speedup_chart_get_view    (PrismSpeedupChart *self,
                                                   double            *t0,
                                                   double            *t1,
                                                   double            *s0,
                                                   double            *s1);
GPtrArray        *prism_speedup_chart_get_ticks   (PrismSpeedupChart *self,
                                                   GtkOrientation     orientation);

/* Whether the last drawing's legend had the "measured on GPU" entry (tests). */
gboolean          prism_speedup_chart_get_measured_legend (PrismSpeedupChart *self);
const char       *prism_speedup_chart_get_message (PrismSpeedupChart *self);

G_END_DECLS
