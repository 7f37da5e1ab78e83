/* prism-compare-view.h — two candidates side by side, their differences highlighted
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "prism-candidate-info.h"
#include "prism-graph-diff.h"
#include "prism-graph-view.h"

G_BEGIN_DECLS

#define PRISM_TYPE_COMPARE_VIEW (prism_compare_view_get_type ())

G_DECLARE_FINAL_TYPE (PrismCompareView, prism_compare_view, PRISM, COMPARE_VIEW, GtkWidget)

GtkWidget            *prism_compare_view_new            (void);
void                  prism_compare_view_set_candidates (PrismCompareView    *self,
                                                         PrismCandidateInfo  *a,
                                                         PrismCandidateInfo  *b);
PrismCandidateInfo   *prism_compare_view_get_candidate  (PrismCompareView    *self,
                                                         gboolean             second);
const char           *prism_compare_view_get_delta      (PrismCompareView    *self,
                                                         const char          *title);
const PrismGraphDiff *prism_compare_view_get_diff       (PrismCompareView    *self);
PrismGraphView       *prism_compare_view_get_graph_view (PrismCompareView    *self,
                                                         gboolean             second);
GtkListBox           *prism_compare_view_get_differences_list (PrismCompareView *self);
void                  prism_compare_view_set_direction  (PrismCompareView    *self,
                                                         PrismGraphDirection  direction);
/* The upper part: "graphs" (both graphs) or "source" (a unified diff of
 * the CUDA each generates, made when first shown). */
void                  prism_compare_view_set_page       (PrismCompareView    *self,
                                                         const char          *page);
const char           *prism_compare_view_get_page       (PrismCompareView    *self);
GtkTextView          *prism_compare_view_get_source_view (PrismCompareView   *self);
const char           *prism_compare_view_get_source_summary (PrismCompareView *self);
/* The "target" property: a built-in GPU's name ("a100"), NULL for the default. */
void                  prism_compare_view_set_target     (PrismCompareView    *self,
                                                         const char          *target);

G_END_DECLS
