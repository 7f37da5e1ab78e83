/* prism-kernel-view.h — the Kernel page: the selected candidate's CUDA, launches and roofline
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "prism-candidate-row.h"
#include "prism-kernel-report.h"
#include "prism-roofline-chart.h"
#include "prism-search-model.h"

G_BEGIN_DECLS

#define PRISM_TYPE_KERNEL_VIEW (prism_kernel_view_get_type ())

G_DECLARE_FINAL_TYPE (PrismKernelView, prism_kernel_view, PRISM, KERNEL_VIEW, GtkWidget)

GtkWidget          *prism_kernel_view_new             (void);
/* What the baseline is and its measured time come from the search model. */
void                prism_kernel_view_set_model       (PrismKernelView   *self,
                                                       PrismSearchModel  *model);
/* The unfused program: the baseline, shown when no candidate is selected. */
void                prism_kernel_view_set_program     (PrismKernelView   *self,
                                                       PrismGraph        *program);
void                prism_kernel_view_set_candidate   (PrismKernelView   *self,
                                                       PrismCandidateRow *row);
PrismCandidateRow  *prism_kernel_view_get_candidate   (PrismKernelView   *self);
/* A built-in GPU target's name ("h100"); unknown names mean the default. */
void                prism_kernel_view_set_target      (PrismKernelView   *self,
                                                       const char        *target);
const char         *prism_kernel_view_get_target      (PrismKernelView   *self);
/* Whether a report is being made on a worker thread. */
gboolean            prism_kernel_view_get_loading     (PrismKernelView   *self);

/* What is shown: the candidate's report, or the baseline's when no
 * candidate is selected (transfer none, nullable). */
PrismKernelReport  *prism_kernel_view_get_report          (PrismKernelView *self);
PrismKernelReport  *prism_kernel_view_get_baseline_report (PrismKernelView *self);
/* (element-type PrismLaunchRow) (transfer none): the launch list's rows */
GListModel         *prism_kernel_view_get_launches    (PrismKernelView   *self);
GtkColumnView      *prism_kernel_view_get_column_view (PrismKernelView   *self);
PrismRooflineChart *prism_kernel_view_get_roofline    (PrismKernelView   *self);
/* The roofline's Reset Zoom button (tests). */
GtkWidget          *prism_kernel_view_get_reset_zoom_button (PrismKernelView *self);
/* The source view's text (transfer full). */
char               *prism_kernel_view_dup_source      (PrismKernelView   *self);
/* The page's title and the line under it (transfer none). */
const char         *prism_kernel_view_get_title       (PrismKernelView   *self);
const char         *prism_kernel_view_get_subtitle    (PrismKernelView   *self);
/* Why nothing can be shown, or %NULL (transfer none). */
const char         *prism_kernel_view_get_message     (PrismKernelView   *self);
/* A launch list cell's text: @column as in the column's id ("grid", "smem",
 * …, see prism-kernel-view.c) (transfer full, nullable). */
char               *prism_kernel_view_dup_cell_text   (PrismKernelView   *self,
                                                       guint              position,
                                                       const char        *column);
/* Linking: the launch selected in the list (GTK_INVALID_LIST_POSITION for
 * none), which selects its lines in the source and its roofline point. */
void                prism_kernel_view_select_launch   (PrismKernelView   *self,
                                                       guint              position);
guint               prism_kernel_view_get_selected_launch (PrismKernelView *self);
/* The lines (from 0) the source view has selected; %FALSE if none. */
gboolean            prism_kernel_view_get_source_selection (PrismKernelView *self,
                                                       int               *first_line,
                                                       int               *last_line);
GtkWidget          *prism_kernel_view_get_source_view (PrismKernelView   *self);

G_END_DECLS
