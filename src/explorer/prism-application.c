/* prism-application.c — the explorer application: actions, options, windows
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "prism-application"

#include "config.h"

#include <string.h>
#include <glib/gi18n.h>

#include "prism-application.h"
#include "prism-preferences-dialog.h"
#include "prism-window.h"
#include "prism-workload.h"

struct _PrismApplication
{
  GtkApplication parent_instance;

  GSettings *settings;   /* NULL when the schema is not installed */
};

G_DEFINE_FINAL_TYPE (PrismApplication, prism_application, GTK_TYPE_APPLICATION)

static const GOptionEntry option_entries[] = {
  { "workload", 'w', 0, G_OPTION_ARG_STRING, NULL,
    N_("Open the built-in workload NAME, optionally with sizes (NAME:n=8,d=4096)"), N_("NAME") },
  { "list-workloads", 0, 0, G_OPTION_ARG_NONE, NULL, N_("List the built-in workloads and exit"), NULL },
  { "version", 0, 0, G_OPTION_ARG_NONE, NULL, N_("Show the version and exit"), NULL },
  { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, NULL, NULL, N_("[FILE…]") },
  { NULL }
};

/*
 * Auxiliary methods
 */

static PrismWindow *
get_active_window (PrismApplication *self)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (self));

  return PRISM_IS_WINDOW (window) ? PRISM_WINDOW (window) : NULL;
}

/* Reuses the active window while it shows nothing, so that `prism-explorer
 * FILE` on a fresh start does not leave an empty window behind. */
static PrismWindow *
get_window_for_program (PrismApplication *self)
{
  PrismWindow *window = get_active_window (self);

  if (window == NULL || prism_window_get_graph (window) != NULL || prism_window_get_loading (window))
    window = prism_window_new (self);
  return window;
}

/*
 * Actions
 */

static void
quit_action (GSimpleAction *action,
             GVariant      *param,
             gpointer       user_data)
{
  PrismApplication *self = user_data;
  g_autoptr(GList) windows = g_list_copy (gtk_application_get_windows (GTK_APPLICATION (self)));

  /* Closing (rather than destroying) lets each window save its state. */
  for (const GList *l = windows; l != NULL; l = l->next)
    gtk_window_close (l->data);
}

static void
about_action (GSimpleAction *action,
              GVariant      *param,
              gpointer       user_data)
{
  PrismApplication *self = user_data;
  static const char *developers[] = { "The Prism Explorer developers", NULL };

  gtk_show_about_dialog (gtk_application_get_active_window (GTK_APPLICATION (self)),
                         "program-name", _("Prism Explorer"),
                         "logo-icon-name", APP_ID,
                         "version", PACKAGE_VERSION,
                         "comments", _("Find faster GPU programs for tensor computations.\n\n"
                                       "An implementation of “Prism: Symbolic Superoptimization "
                                       "of Tensor Programs” (Wu, Jiang, Padon, Jia)."),
                         "authors", developers,
                         "copyright", "© 2026 The Prism Explorer developers",
                         "license-type", GTK_LICENSE_GPL_3_0,
                         "translator-credits", _("translator-credits"),
                         NULL);
}

static void
preferences_action (GSimpleAction *action,
                    GVariant      *param,
                    gpointer       user_data)
{
  PrismApplication *self = user_data;
  GtkWindow *parent = gtk_application_get_active_window (GTK_APPLICATION (self));
  GtkWindow *dialog;

  g_return_if_fail (self->settings != NULL);

  dialog = GTK_WINDOW (prism_preferences_dialog_new (self->settings));
  gtk_window_set_transient_for (dialog, parent);
  gtk_window_present (dialog);
}

static void
shortcuts_action (GSimpleAction *action,
                  GVariant      *param,
                  gpointer       user_data)
{
  PrismApplication *self = user_data;
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (self));

  /* GtkApplicationWindow shows gtk/help-overlay.ui from our resources. */
  if (window != NULL)
    gtk_widget_activate_action (GTK_WIDGET (window), "win.show-help-overlay", NULL);
}

static const GActionEntry app_actions[] = {
  { "quit", quit_action },
  { "about", about_action },
  { "preferences", preferences_action },
  { "shortcuts", shortcuts_action },
};

/*
 * GApplication overrides
 */

/* Started from the build tree (build/src/explorer/prism-explorer) with no
 * schema installed and no GSETTINGS_SCHEMA_DIR: the schema compiled into
 * the build folder, so that Preferences work however the explorer starts. */
static GSettingsSchema *
lookup_build_tree_schema (void)
{
#ifdef PRISM_BUILD_SCHEMA_DIR
  g_autoptr(GSettingsSchemaSource) source = NULL;
  g_autofree char *compiled = g_build_filename (PRISM_BUILD_SCHEMA_DIR, "gschemas.compiled", NULL);

  if (!g_file_test (compiled, G_FILE_TEST_IS_REGULAR))
    return NULL;
  source = g_settings_schema_source_new_from_directory (PRISM_BUILD_SCHEMA_DIR,
                                                        g_settings_schema_source_get_default (),
                                                        FALSE, NULL);
  return source ? g_settings_schema_source_lookup (source, APP_ID, FALSE) : NULL;
#else
  return NULL;
#endif
}

/* The Cairo renderer unless the user chose one with GSK_RENDERER: the
 * explorer draws 2D charts and graphs only, and on a machine without a GPU
 * GTK's default GL renderer is software OpenGL, which held the main thread
 * for minutes under a search's load.  Called by prism_application_new(),
 * before the application starts any thread (it sets the environment). */
static void
choose_renderer (void)
{
  const char *chosen = g_getenv ("GSK_RENDERER");

  if (chosen == NULL || *chosen == '\0')
    g_setenv ("GSK_RENDERER", "cairo", TRUE);
}

static void
prism_application_startup (GApplication *application)
{
  PrismApplication *self = PRISM_APPLICATION (application);
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr(GSettingsSchema) schema = NULL;
  g_autoptr(GtkCssProvider) provider = NULL;

  G_APPLICATION_CLASS (prism_application_parent_class)->startup (application);

  gtk_window_set_default_icon_name (APP_ID);

  /* GTK 4.8's GtkApplication loads menus, the help overlay and icons from
   * the resource base path, but not a stylesheet. */
  provider = gtk_css_provider_new ();
  gtk_css_provider_load_from_resource (provider, "/org/prism/Explorer/style.css");
  gtk_style_context_add_provider_for_display (gdk_display_get_default (),
                                              GTK_STYLE_PROVIDER (provider),
                                              GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);

  if (source != NULL)
    schema = g_settings_schema_source_lookup (source, APP_ID, TRUE);
  if (schema == NULL)
    schema = lookup_build_tree_schema ();
  if (schema != NULL)
    self->settings = g_settings_new_full (schema, NULL, NULL);
  else
    g_warning ("The GSettings schema %s is not installed; preferences will not be kept", APP_ID);

  g_action_map_add_action_entries (G_ACTION_MAP (self), app_actions, G_N_ELEMENTS (app_actions),
                                   self);
  if (self->settings == NULL)
    g_simple_action_set_enabled (G_SIMPLE_ACTION (g_action_map_lookup_action (G_ACTION_MAP (self),
                                                                              "preferences")),
                                 FALSE);

  gtk_application_set_accels_for_action (GTK_APPLICATION (self), "app.quit",
                                         (const char *[]) { "<Control>q", NULL });
  gtk_application_set_accels_for_action (GTK_APPLICATION (self), "app.preferences",
                                         (const char *[]) { "<Control>comma", NULL });
  gtk_application_set_accels_for_action (GTK_APPLICATION (self), "win.open",
                                         (const char *[]) { "<Control>o", NULL });
  gtk_application_set_accels_for_action (GTK_APPLICATION (self), "win.toggle-sidebar",
                                         (const char *[]) { "F9", NULL });
  gtk_application_set_accels_for_action (GTK_APPLICATION (self), "window.close",
                                         (const char *[]) { "<Control>w", NULL });
  /* The search, as debuggers do: F5 runs (or resumes), Shift+F5 stops. */
  /* The pages in the sidebar's order, the exports and the run history. */
  {
    static const char * const pages[] = { "program", "search", "candidates", "graph", "kernel" };

    for (guint i = 0; i < G_N_ELEMENTS (pages); i++)
      {
        g_autofree char *action = g_strdup_printf ("win.show-page('%s')", pages[i]);
        g_autofree char *accel = g_strdup_printf ("<Alt>%u", i + 1);

        gtk_application_set_accels_for_action (GTK_APPLICATION (self), action,
                                               (const char *[]) { accel, NULL });
      }
  }
  gtk_application_set_accels_for_action (GTK_APPLICATION (self), "win.export-kernel",
                                         (const char *[]) { "<Control>e", NULL });
  gtk_application_set_accels_for_action (GTK_APPLICATION (self), "win.export-results",
                                         (const char *[]) { "<Shift><Control>e", NULL });
  gtk_application_set_accels_for_action (GTK_APPLICATION (self), "win.run-history",
                                         (const char *[]) { "<Control>h", NULL });
  gtk_application_set_accels_for_action (GTK_APPLICATION (self), "win.search-start",
                                         (const char *[]) { "F5", NULL });
  gtk_application_set_accels_for_action (GTK_APPLICATION (self), "win.search-pause",
                                         (const char *[]) { "F6", NULL });
  gtk_application_set_accels_for_action (GTK_APPLICATION (self), "win.search-stop",
                                         (const char *[]) { "<Shift>F5", NULL });
}

static void
prism_application_activate (GApplication *application)
{
  PrismApplication *self = PRISM_APPLICATION (application);
  PrismWindow *window = get_active_window (self);

  if (window == NULL)
    window = prism_window_new (self);
  gtk_window_present (GTK_WINDOW (window));
}

static void
prism_application_open (GApplication  *application,
                        GFile        **files,
                        int            n_files,
                        const char    *hint)
{
  PrismApplication *self = PRISM_APPLICATION (application);

  for (int i = 0; i < n_files; i++)
    {
      PrismWindow *window = get_window_for_program (self);

      prism_window_open_file (window, files[i]);
      gtk_window_present (GTK_WINDOW (window));
    }
}

static int
prism_application_handle_local_options (GApplication *application,
                                        GVariantDict *options)
{
  if (g_variant_dict_contains (options, "version"))
    {
      g_print ("prism-explorer %s\n", PACKAGE_VERSION);
      return 0;
    }
  if (g_variant_dict_contains (options, "list-workloads"))
    {
      guint n = 0;
      const PrismWorkloadInfo *infos = prism_workload_list (&n);
      int width = 0;

      for (guint i = 0; i < n; i++)
        width = MAX (width, (int) strlen (infos[i].name));
      for (guint i = 0; i < n; i++)
        g_print ("%-*s  %s\n", width, infos[i].name,
                 infos[i].description ? _(infos[i].description) : "");
      return 0;
    }
  return -1;
}

/* Runs in the primary instance, so that `prism-explorer --workload NAME`
 * started a second time opens a window in the one already running. */
static int
prism_application_command_line (GApplication            *application,
                                GApplicationCommandLine *command_line)
{
  PrismApplication *self = PRISM_APPLICATION (application);
  GVariantDict *options = g_application_command_line_get_options_dict (command_line);
  g_autofree const char **args = NULL;
  const char *workload = NULL;
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_object_unref);

  g_variant_dict_lookup (options, "workload", "&s", &workload);
  g_variant_dict_lookup (options, G_OPTION_REMAINING, "^a&ay", &args);

  if (workload != NULL)
    {
      g_auto(GStrv) parts = g_strsplit (workload, ":", 2);
      PrismWindow *window;

      if (prism_workload_lookup (parts[0]) == NULL)
        {
          g_application_command_line_printerr (command_line,
                                               _("prism-explorer: there is no built-in workload "
                                                 "called “%s”; try --list-workloads\n"),
                                               parts[0]);
          return 2;
        }
      window = get_window_for_program (self);
      prism_window_open_workload (window, parts[0], parts[1]);
      gtk_window_present (GTK_WINDOW (window));
    }

  for (guint i = 0; args != NULL && args[i] != NULL; i++)
    g_ptr_array_add (files, g_application_command_line_create_file_for_arg (command_line, args[i]));
  if (files->len > 0)
    g_application_open (application, (GFile **) files->pdata, files->len, "");

  if (workload == NULL && files->len == 0)
    g_application_activate (application);

  return 0;
}

/*
 * GObject overrides
 */

static void
prism_application_finalize (GObject *object)
{
  PrismApplication *self = (PrismApplication *)object;

  g_clear_object (&self->settings);

  G_OBJECT_CLASS (prism_application_parent_class)->finalize (object);
}

static void
prism_application_class_init (PrismApplicationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  object_class->finalize = prism_application_finalize;

  app_class->startup = prism_application_startup;
  app_class->activate = prism_application_activate;
  app_class->open = prism_application_open;
  app_class->handle_local_options = prism_application_handle_local_options;
  app_class->command_line = prism_application_command_line;
}

static void
prism_application_init (PrismApplication *self)
{
  g_application_add_main_option_entries (G_APPLICATION (self), option_entries);
  g_application_set_option_context_summary (G_APPLICATION (self),
                                            _("Explore faster GPU programs for a tensor program: "
                                              "a built-in workload or a prism-graph JSON file."));
}

/*
 * Public API
 */

/**
 * prism_application_new:
 *
 * Also makes the Cairo renderer the default (see choose_renderer()): call
 * it before starting any thread.
 *
 * Returns: (transfer full): the explorer application
 */
PrismApplication *
prism_application_new (void)
{
  choose_renderer ();
  return g_object_new (PRISM_TYPE_APPLICATION,
                       "application-id", APP_ID,
                       "flags", G_APPLICATION_HANDLES_OPEN | G_APPLICATION_HANDLES_COMMAND_LINE,
                       "resource-base-path", "/org/prism/Explorer",
                       NULL);
}

/**
 * prism_application_get_settings:
 *
 * Returns: (transfer none) (nullable): the explorer's settings, or %NULL when
 *   the schema is not installed
 */
GSettings *
prism_application_get_settings (PrismApplication *self)
{
  g_return_val_if_fail (PRISM_IS_APPLICATION (self), NULL);
  return self->settings;
}
