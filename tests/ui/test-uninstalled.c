/* test-uninstalled.c — the explorer started from the build tree as it is
 *
 * Issue 25, item 3: started as build/src/explorer/prism-explorer, without
 * GSETTINGS_SCHEMA_DIR and without GSK_RENDERER (which build-aux/run sets
 * and a desktop file does not), Preferences were greyed out (no schema) and
 * GTK chose its GL renderer, software OpenGL on a machine without a GPU,
 * which stopped the window for minutes under a search.  Here both variables
 * are removed before the application is made, as for a user's shell.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <gtk/gtk.h>

#include "prism-application.h"
#include "prism-window.h"

static PrismApplication *app;

static void
test_uninstalled_settings (void)
{
  GAction *preferences = g_action_map_lookup_action (G_ACTION_MAP (app), "preferences");

  /* Before: NULL, and the action disabled. */
  g_assert_nonnull (prism_application_get_settings (app));
  g_assert_nonnull (preferences);
  g_assert_true (g_action_get_enabled (preferences));
}

static void
test_uninstalled_renderer (void)
{
  PrismWindow *window = prism_window_new (app);
  GskRenderer *renderer;

  gtk_window_present (GTK_WINDOW (window));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  renderer = gtk_native_get_renderer (GTK_NATIVE (window));
  g_test_message ("renderer: %s", G_OBJECT_TYPE_NAME (renderer));
  /* Before: GskGLRenderer (or NGL), software OpenGL under Xvfb. */
  g_assert_true (GSK_IS_CAIRO_RENDERER (renderer));
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int argc, char *argv[])
{
  g_autoptr(GError) error = NULL;
  int ret;

  if (g_getenv ("DISPLAY") == NULL && g_getenv ("WAYLAND_DISPLAY") == NULL)
    {
      g_printerr ("no display: run the ui suite under xvfb-run\n");
      return 77;
    }
  /* As a user's shell has them; GSETTINGS_BACKEND stays "memory" so that
   * the test never writes the user's settings. */
  g_unsetenv ("GSETTINGS_SCHEMA_DIR");
  g_unsetenv ("GSK_RENDERER");

  gtk_test_init (&argc, &argv, NULL);
  app = prism_application_new ();
  g_application_set_flags (G_APPLICATION (app),
                           g_application_get_flags (G_APPLICATION (app)) | G_APPLICATION_NON_UNIQUE);
  g_application_register (G_APPLICATION (app), NULL, &error);
  g_assert_no_error (error);

  g_test_add_func ("/explorer/uninstalled/settings", test_uninstalled_settings);
  g_test_add_func ("/explorer/uninstalled/renderer", test_uninstalled_renderer);

  ret = g_test_run ();
  g_clear_object (&app);
  return ret;
}
