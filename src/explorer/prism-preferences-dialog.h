/* prism-preferences-dialog.h — the search preferences, kept in GSettings
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "prism-pipeline.h"
#include "prism-search.h"

G_BEGIN_DECLS

#define PRISM_TYPE_PREFERENCES_DIALOG (prism_preferences_dialog_get_type ())

G_DECLARE_FINAL_TYPE (PrismPreferencesDialog, prism_preferences_dialog, PRISM, PREFERENCES_DIALOG,
                      GtkWindow)

GtkWidget *prism_preferences_dialog_new (GSettings *settings);

void       prism_preferences_apply_search_limits (GSettings          *settings,
                                                  PrismSearchOptions *options);
void       prism_preferences_apply_run_options   (GSettings            *settings,
                                                  PrismPipelineOptions *options);

G_END_DECLS
