/* prism-search-tree-chart.h — the search tree by depth, drawn as an icicle
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "prism-search-model.h"

G_BEGIN_DECLS

#define PRISM_TYPE_SEARCH_TREE_CHART (prism_search_tree_chart_get_type ())

G_DECLARE_FINAL_TYPE (PrismSearchTreeChart, prism_search_tree_chart, PRISM, SEARCH_TREE_CHART, GtkWidget)

GtkWidget        *prism_search_tree_chart_new               (void);
PrismSearchModel *prism_search_tree_chart_get_model         (PrismSearchTreeChart *self);
void              prism_search_tree_chart_set_model         (PrismSearchTreeChart *self,
                                                             PrismSearchModel     *model);
/* What the last drawing left out: segments merged for being too small and
 * depths merged for lack of room (tests and the footer read these). */
guint64           prism_search_tree_chart_get_not_shown     (PrismSearchTreeChart *self);
guint             prism_search_tree_chart_get_merged_depths (PrismSearchTreeChart *self);
gboolean          prism_search_tree_chart_get_pruned_segment (PrismSearchTreeChart *self,
                                                              guint                 depth,
                                                              PrismPruneReason      reason,
                                                              graphene_rect_t      *rect,
                                                              guint64              *count);
/* The tooltip text at a point of the last drawing (transfer full, nullable). */
char             *prism_search_tree_chart_describe_at       (PrismSearchTreeChart *self,
                                                             double                x,
                                                             double                y);

gboolean          prism_search_tree_chart_open_samples_at   (PrismSearchTreeChart *self,
                                                             double                x,
                                                             double                y);
GtkWidget        *prism_search_tree_chart_get_samples_popover (PrismSearchTreeChart *self);
/* The colour of each prune reason, shared with the legend. */
void              prism_search_tree_chart_reason_color      (PrismPruneReason      reason,
                                                             GdkRGBA              *color);

guint prism_search_tree_chart_count_cut_rows (PrismSearchTreeChart *self);

G_END_DECLS
