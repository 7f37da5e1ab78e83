/* prism-candidates-view.h — the verified candidates: a sortable table, the
 * selected one's graph and evidence, or two side by side
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "prism-candidate-row.h"
#include "prism-compare-view.h"
#include "prism-graph-view.h"
#include "prism-search-model.h"

G_BEGIN_DECLS

#define PRISM_TYPE_CANDIDATES_VIEW (prism_candidates_view_get_type ())

G_DECLARE_FINAL_TYPE (PrismCandidatesView, prism_candidates_view, PRISM, CANDIDATES_VIEW, GtkWidget)

GtkWidget          *prism_candidates_view_new               (void);
PrismSearchModel   *prism_candidates_view_get_model         (PrismCandidatesView *self);
void                prism_candidates_view_set_model         (PrismCandidatesView *self,
                                                             PrismSearchModel    *model);
GtkColumnView      *prism_candidates_view_get_column_view   (PrismCandidatesView *self);
/* The table's rows as shown (sorted), and which are selected. */
GtkSelectionModel  *prism_candidates_view_get_selection     (PrismCandidatesView *self);
PrismCandidateRow  *prism_candidates_view_get_selected      (PrismCandidatesView *self);
guint               prism_candidates_view_get_n_selected    (PrismCandidatesView *self);
/* "none", "single" or "compare" */
const char         *prism_candidates_view_get_mode          (PrismCandidatesView *self);
void                prism_candidates_view_clear_compare     (PrismCandidatesView *self);
gboolean             prism_candidates_view_select_id     (PrismCandidatesView *self,
                                                          guint                id);
GtkColumnViewColumn *prism_candidates_view_get_compare_column (PrismCandidatesView *self);
PrismGraphView     *prism_candidates_view_get_graph_view    (PrismCandidatesView *self);
PrismCompareView   *prism_candidates_view_get_compare_view  (PrismCandidatesView *self);
/* What the verification pane says, as plain text (transfer full). */
char               *prism_candidates_view_get_verification_text (PrismCandidatesView *self);
void                prism_candidates_view_set_direction     (PrismCandidatesView *self,
                                                             PrismGraphDirection  direction);
/* A cell's text: row as shown, column by the property it sorts by (tests). */
char               *prism_candidates_view_dup_cell_text     (PrismCandidatesView *self,
                                                             guint                position,
                                                             const char          *property);

void                 prism_candidates_view_set_filter    (PrismCandidatesView *self,
                                                          const char          *text);
guint                prism_candidates_view_get_n_shown   (PrismCandidatesView *self);

G_END_DECLS
