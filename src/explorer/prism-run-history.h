/* prism-run-history.h — the runs the explorer cached, to open or delete
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "prism-run-info.h"

G_BEGIN_DECLS

#define PRISM_TYPE_RUN_HISTORY (prism_run_history_get_type ())

G_DECLARE_FINAL_TYPE (PrismRunHistory, prism_run_history, PRISM, RUN_HISTORY, GtkWindow)

/* A window listing the runs of @folder (%NULL: the default one); its
 * "open-run" signal carries the results.json of the run to open. */
PrismRunHistory *prism_run_history_new        (GtkWindow        *parent,
                                               const char       *folder);
/* The runs listed (tests); (element-type PrismRunInfo) (transfer none) */
GPtrArray       *prism_run_history_get_runs   (PrismRunHistory  *self);
gboolean         prism_run_history_get_loading (PrismRunHistory *self);
/* The summary line: how many runs, and the disk they use (tests) */
const char      *prism_run_history_get_summary (PrismRunHistory *self);
/* What the Open and Delete buttons of row @index do (tests; Delete asks first) */
void             prism_run_history_open_run   (PrismRunHistory  *self,
                                               guint             index);
GPtrArray       *prism_run_history_compare    (PrismRunHistory  *self,
                                               guint             a,
                                               guint             b);
void             prism_run_history_ask_delete (PrismRunHistory  *self,
                                               guint             index);

G_END_DECLS
