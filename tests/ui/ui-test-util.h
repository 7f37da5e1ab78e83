/* ui-test-util.h — what the explorer's UI tests share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Removes @path and everything below it (symbolic links are not followed). */
void ui_test_rm_rf           (const char *path);
/* Runs the default main context for @ms milliseconds. */
void ui_test_spin_for_ms     (guint       ms);
/* Renders @widget as it is now to NAME.png in the test's build folder. */
void ui_test_save_screenshot (GtkWidget  *widget,
                              const char *name);

G_END_DECLS
