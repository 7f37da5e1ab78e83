/* prism-cli.c — shared helpers of the command line
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n.h>

#include "prism-cli.h"
#include "prism-error.h"
#include "prism-graph-json.h"
#include "prism-workload.h"

PrismGraph *
prism_cli_open_program (const char *arg, GError **error)
{
  g_auto(GStrv) parts = g_strsplit (arg, ":", 2);

  if (prism_workload_lookup (parts[0]) != NULL)
    return prism_workload_build (parts[0], parts[1], error);
  if (!g_file_test (arg, G_FILE_TEST_EXISTS))
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_PARSE,
                   _("“%s” is neither a built-in workload nor an existing file"), arg);
      return NULL;
    }
  return prism_graph_load (arg, NULL, error);
}

PrismGraph *
prism_cli_open_reference (const char *arg, GError **error)
{
  g_auto(GStrv) parts = g_strsplit (arg, ":", 2);

  if (prism_workload_lookup (parts[0]) == NULL)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_PARSE,
                   _("--reference needs a built-in workload name, not “%s”"), arg);
      return NULL;
    }
  return prism_workload_build_reference (parts[0], parts[1], error);
}

int
prism_cli_fail (const char *command, const char *message)
{
  g_printerr ("prism %s: %s\n", command, message);
  return PRISM_EXIT_BAD_INPUT;
}

gboolean
prism_cli_parse (const char *command, const char *parameter_string, const char *summary,
                 GOptionEntry *entries, int *argc, char ***argv)
{
  g_autoptr(GOptionContext) ctx = g_option_context_new (parameter_string);
  g_autoptr(GError) error = NULL;
  g_autofree char *prgname = g_strdup_printf ("prism %s", command);

  g_set_prgname (prgname);
  g_option_context_set_summary (ctx, summary);
  g_option_context_add_main_entries (ctx, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (ctx, argc, argv, &error))
    {
      prism_cli_fail (command, error->message);
      return FALSE;
    }
  return TRUE;
}
