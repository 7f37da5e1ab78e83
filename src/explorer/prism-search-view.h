/* prism-search-view.h — the Search page: counters, the search tree, the speedup chart
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "prism-search-model.h"
#include "prism-search-tree-chart.h"
#include "prism-speedup-chart.h"

G_BEGIN_DECLS

#define PRISM_TYPE_SEARCH_VIEW (prism_search_view_get_type ())

G_DECLARE_FINAL_TYPE (PrismSearchView, prism_search_view, PRISM, SEARCH_VIEW, GtkWidget)

GtkWidget            *prism_search_view_new               (void);
PrismSearchModel     *prism_search_view_get_model         (PrismSearchView  *self);
void                  prism_search_view_set_model         (PrismSearchView  *self,
                                                           PrismSearchModel *model);
PrismSearchTreeChart *prism_search_view_get_tree_chart    (PrismSearchView  *self);
PrismSpeedupChart    *prism_search_view_get_speedup_chart (PrismSearchView  *self);
GtkWidget            *prism_search_view_get_reset_zoom_button (PrismSearchView *self);
/* The value shown by the counter named "states", "rate", "pruned",
 * "sgraphs", "verified", "best" or "elapsed" (tests). */
const char           *prism_search_view_get_counter       (PrismSearchView  *self,
                                                           const char       *name);
const char           *prism_search_view_get_gpu_status    (PrismSearchView  *self);

G_END_DECLS
