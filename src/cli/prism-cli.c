/* prism-cli.c — shared helpers of the command line
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n.h>

#include "prism-cli.h"
#include "prism-error.h"
#include "prism-gpu-target.h"
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

const char *
prism_cli_baseline_label (const char *kind, gboolean short_form)
{
  if (g_strcmp0 (kind, "vendor") == 0)
    return short_form ? _("the vendor baseline")
                      : _("the vendor baseline (the unfused program, its matmuls through cuBLASLt)");
  if (g_strcmp0 (kind, "prism-lowered") == 0)
    return short_form ? _("the prism-lowered baseline")
                      : _("the prism-lowered baseline (the unfused program, every op as Prism lowers it)");
  return _("the unfused program");
}

char *
prism_cli_target_names (void)
{
  guint n = 0;
  const PrismGpuTarget * const *list = prism_gpu_target_list (&n);
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < n; i++)
    g_string_append_printf (s, "%s%s", i ? ", " : "", list[i]->name);
  return g_string_free (s, FALSE);
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
