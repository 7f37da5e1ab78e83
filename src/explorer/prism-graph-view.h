/* prism-graph-view.h — a candidate's graph: kernels, block graphs, zoom and pan
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "prism-graph-layout.h"
#include "prism-node-properties.h"

G_BEGIN_DECLS

#define PRISM_TYPE_GRAPH_VIEW (prism_graph_view_get_type ())

G_DECLARE_FINAL_TYPE (PrismGraphView, prism_graph_view, PRISM, GRAPH_VIEW, GtkWidget)

GtkWidget           *prism_graph_view_new            (void);
void                 prism_graph_view_set_graph      (PrismGraphView      *self,
                                                      PrismGraph          *graph);
PrismGraph          *prism_graph_view_get_graph      (PrismGraphView      *self);
PrismGraphLayout    *prism_graph_view_get_layout     (PrismGraphView      *self);
gboolean             prism_graph_view_get_loading    (PrismGraphView      *self);
void                 prism_graph_view_set_direction  (PrismGraphView      *self,
                                                      PrismGraphDirection  direction);
PrismGraphDirection  prism_graph_view_get_direction  (PrismGraphView      *self);
void                 prism_graph_view_set_highlight  (PrismGraphView      *self,
                                                      const guint         *op_ids,
                                                      guint                n_op_ids);
gboolean             prism_graph_view_is_highlighted (PrismGraphView      *self,
                                                      guint                op_id);
void                 prism_graph_view_set_show_legend (PrismGraphView     *self,
                                                      gboolean             show_legend);
double               prism_graph_view_get_zoom       (PrismGraphView      *self);
void                 prism_graph_view_set_zoom       (PrismGraphView      *self,
                                                      double               zoom);
void                 prism_graph_view_zoom_in        (PrismGraphView      *self);
void                 prism_graph_view_zoom_out       (PrismGraphView      *self);
void                 prism_graph_view_zoom_fit       (PrismGraphView      *self);
void                 prism_graph_view_pan            (PrismGraphView      *self,
                                                      double               dx,
                                                      double               dy);
gboolean             prism_graph_view_center_on      (PrismGraphView      *self,
                                                      guint                op_id);
void                 prism_graph_view_get_transform  (PrismGraphView      *self,
                                                      double              *zoom,
                                                      double              *offset_x,
                                                      double              *offset_y);
gboolean             prism_graph_view_zoom_to        (PrismGraphView      *self,
                                                      guint                op_id);
gboolean             prism_graph_view_select         (PrismGraphView      *self,
                                                      guint                op_id);
gboolean             prism_graph_view_select_at      (PrismGraphView      *self,
                                                      double               x,
                                                      double               y);
guint                prism_graph_view_get_selected   (PrismGraphView      *self);
PrismNodeProperties *prism_graph_view_get_properties (PrismGraphView      *self);
void                 prism_graph_view_set_kernel_collapsed (PrismGraphView *self,
                                                      guint                kernel,
                                                      gboolean             collapsed);
gboolean             prism_graph_view_get_kernel_collapsed (PrismGraphView *self,
                                                      guint                kernel);
void                 prism_graph_view_collapse_all   (PrismGraphView      *self);
void                 prism_graph_view_expand_all     (PrismGraphView      *self);
void                 prism_graph_view_start_search   (PrismGraphView      *self);
GtkSearchEntry      *prism_graph_view_get_search_entry (PrismGraphView    *self);
const char          *prism_graph_view_get_search_status (PrismGraphView   *self);
void                 prism_graph_view_find_next      (PrismGraphView      *self,
                                                      gboolean             forward);
gboolean             prism_graph_view_get_legend_visible (PrismGraphView  *self);

G_END_DECLS
