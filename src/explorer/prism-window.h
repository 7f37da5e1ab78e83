/* prism-window.h — the explorer's main window
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "prism-run-history.h"

#include "prism-application.h"
#include "prism-candidates-view.h"
#include "prism-graph.h"
#include "prism-graph-view.h"
#include "prism-kernel-view.h"
#include "prism-model-view.h"
#include "prism-program-view.h"
#include "prism-search-view.h"
#include "prism-session.h"

G_BEGIN_DECLS

#define PRISM_TYPE_WINDOW (prism_window_get_type ())

G_DECLARE_FINAL_TYPE (PrismWindow, prism_window, PRISM, WINDOW, GtkApplicationWindow)

PrismWindow      *prism_window_new              (PrismApplication *application);
gboolean          prism_window_load_workload    (PrismWindow      *self,
                                                 const char       *name,
                                                 const char       *params,
                                                 GError          **error);
void              prism_window_open_workload    (PrismWindow      *self,
                                                 const char       *name,
                                                 const char       *params);
void              prism_window_open_file        (PrismWindow      *self,
                                                 GFile            *file);
void              prism_window_ask_open_file    (PrismWindow      *self,
                                                 GFile            *file);
gboolean          prism_window_get_loading      (PrismWindow      *self);
const PrismGraph *prism_window_get_graph        (PrismWindow      *self);
PrismProgramView *prism_window_get_program_view (PrismWindow      *self);
PrismGraphView   *prism_window_get_graph_view   (PrismWindow      *self);
gboolean          prism_window_export_graph     (PrismWindow      *self,
                                                 GFile            *file,
                                                 GError          **error);

/* The search */
void                 prism_window_start_search         (PrismWindow  *self);
PrismSession        *prism_window_get_session          (PrismWindow  *self);
PrismSearchModel    *prism_window_get_search_model     (PrismWindow  *self);
PrismSearchView     *prism_window_get_search_view      (PrismWindow  *self);
PrismCandidatesView *prism_window_get_candidates_view  (PrismWindow  *self);
PrismKernelView     *prism_window_get_kernel_view      (PrismWindow  *self);
const char          *prism_window_get_status           (PrismWindow  *self);
const char          *prism_window_get_gpu_status       (PrismWindow  *self);
const char          *prism_window_get_last_export      (PrismWindow  *self);
PrismRunHistory     *prism_window_get_run_history      (PrismWindow  *self);
PrismModelView      *prism_window_get_model_view       (PrismWindow  *self);
GtkMenuButton       *prism_window_get_sizes_button     (PrismWindow  *self);
gboolean             prism_window_export_chart         (PrismWindow  *self,
                                                        const char   *which,
                                                        const char   *path,
                                                        GError      **error);
gboolean             prism_window_export_kernel        (PrismWindow  *self,
                                                        const char   *dir,
                                                        GError      **error);
gboolean             prism_window_export_results       (PrismWindow  *self,
                                                        const char   *path,
                                                        GError      **error);

G_END_DECLS
