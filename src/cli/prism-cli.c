/* prism-cli.c — shared helpers of the command line
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>
#include <glib/gi18n.h>

#include "prism-cli.h"
#include "prism-error.h"
#include "prism-gpu-target.h"
#include "prism-graph-json.h"
#include "prism-workload.h"

/* Commands that take one program take a Mirage file of one graph. */
static PrismGraph *
open_single_mirage_graph (const char *path, GError **error)
{
  g_autoptr(GPtrArray) graphs = prism_cli_open_mirage (path, error);
  PrismMirageGraph *m;

  if (graphs == NULL)
    return NULL;
  if (graphs->len != 1)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED,
                   _("“%s” holds %u Mirage muGraphs, and this command takes one program; "
                     "“prism check”, “prism verify” and “prism bench” read every graph of the file"),
                   path, graphs->len);
      return NULL;
    }
  m = g_ptr_array_index (graphs, 0);
  if (m->graph == NULL)
    {
      g_propagate_error (error, g_steal_pointer (&m->error));
      prism_cli_name_file (error, path);
      return NULL;
    }
  return g_steal_pointer (&m->graph);
}

gboolean
prism_cli_is_mirage_file (const char *arg)
{
  g_auto(GStrv) parts = g_strsplit (arg, ":", 2);

  return prism_workload_lookup (parts[0]) == NULL && prism_mirage_file_is_mugraphs (arg);
}

GPtrArray *
prism_cli_open_mirage (const char *path, GError **error)
{
  GPtrArray *graphs = prism_mirage_load (path, error);

  if (graphs == NULL)
    prism_cli_name_file (error, path);
  return graphs;
}

const char *
prism_cli_mirage_error (const PrismMirageGraph *m)
{
  g_autofree char *prefix = g_strdup_printf ("graph %u: ", m->index);
  const char *msg = m->error != NULL ? m->error->message : "";

  return g_str_has_prefix (msg, prefix) ? msg + strlen (prefix) : msg;
}

char *
prism_cli_mirage_label (const PrismMirageGraph *m)
{
  /* TRANSLATORS: a graph of a Mirage muGraph file, numbered from 0 */
  return g_strdup_printf (_("Mirage graph %u"), m->index);
}

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
  if (prism_mirage_file_is_mugraphs (arg))
    return open_single_mirage_graph (arg, error);
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

G_DEFINE_QUARK (prism-cli-error-quark, prism_cli_error)

char *
prism_cli_escape (const char *text)
{
  GString *s = g_string_sized_new (strlen (text));
  const char *p = text;

  while (*p != '\0')
    {
      gunichar u = g_utf8_get_char_validated (p, -1);

      if (u == (gunichar) -1 || u == (gunichar) -2)
        {
          g_string_append_printf (s, "\\x%02X", (guchar) *p);
          p++;
          continue;
        }
      /* Line breaks and tabs are harmless: messages may hold them. */
      if ((u < 0x20 && u != '\n' && u != '\t') || u == 0x7F)
        g_string_append_printf (s, "\\x%02X", u);
      else if (u >= 0x80 && u <= 0x9F)
        g_string_append_printf (s, "\\u{%04X}", u);
      else
        g_string_append_len (s, p, g_utf8_next_char (p) - p);
      p = g_utf8_next_char (p);
    }
  return g_string_free (s, FALSE);
}

void
prism_cli_name_file (GError **error, const char *path)
{
  g_autofree char *quoted = g_strdup_printf ("“%s”", path);

  if (error == NULL || *error == NULL || g_str_has_prefix ((*error)->message, path) ||
      strstr ((*error)->message, quoted) != NULL)
    return;
  g_prefix_error (error, "%s: ", path);
}

int
prism_cli_fail (const char *command, const char *message)
{
  g_autofree char *safe = prism_cli_escape (message);

  g_printerr ("prism %s: %s\n", command, safe);
  return PRISM_EXIT_BAD_INPUT;
}

int
prism_cli_fail_with (const char *command, const GError *error)
{
  prism_cli_fail (command, error->message);
  return g_error_matches (error, PRISM_CLI_ERROR, PRISM_CLI_ERROR_NOT_EQUIVALENT) ? PRISM_EXIT_FAILED
                                                                                  : PRISM_EXIT_BAD_INPUT;
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
