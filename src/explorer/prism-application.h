/* prism-application.h — the explorer application: actions, options, windows
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define PRISM_TYPE_APPLICATION (prism_application_get_type ())

G_DECLARE_FINAL_TYPE (PrismApplication, prism_application, PRISM, APPLICATION, GtkApplication)

PrismApplication *prism_application_new          (void);
GSettings        *prism_application_get_settings (PrismApplication *self);

G_END_DECLS
