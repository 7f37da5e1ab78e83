/* prism-cmd-check.c — `prism check`: validate a program and print it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <stdio.h>
#include <glib/gi18n.h>

#include "prism-cli.h"
#include "prism-graph-json.h"
#include "prism-workload.h"

/* Like prism_cli_open_program(), but a file keeps its provenance for --json. */
static PrismGraph *
open_program (const char *arg, JsonNode **provenance, GError **error)
{
  g_auto(GStrv) parts = g_strsplit (arg, ":", 2);

  if (prism_workload_lookup (parts[0]) == NULL && g_file_test (arg, G_FILE_TEST_EXISTS))
    return prism_graph_load (arg, provenance, error);
  return prism_cli_open_program (arg, error);
}

int
prism_cmd_check (int argc, char **argv)
{
  gboolean json = FALSE;
  gboolean reference = FALSE;
  GOptionEntry entries[] = {
    { "reference", 'r', 0, G_OPTION_ARG_NONE, &reference,
      N_("Check the workload’s hand-written fused graph instead of its program"), NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json,
      N_("Print the program as canonical prism-graph JSON (provenance kept) instead of a listing"),
      NULL },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr(PrismGraph) graph = NULL;
  g_autoptr(JsonNode) provenance = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  if (!prism_cli_parse ("check", _("FILE|WORKLOAD"),
                        _("Reads a prism-graph JSON file (docs/format.md) or builds a built-in "
                          "workload (“name” or “name:key=value,…”), checks every rule of the "
                          "format and the IR, and prints the program with its shapes. Exits with "
                          "0 when the program is valid and 2 when it is not."),
                        entries, &argc, &argv))
    return PRISM_EXIT_BAD_INPUT;
  if (argc != 2)
    return prism_cli_fail ("check", _("expected one FILE or WORKLOAD (see “prism check --help”)"));

  if (reference)
    graph = prism_cli_open_reference (argv[1], &error);
  else
    graph = open_program (argv[1], &provenance, &error);
  if (graph != NULL && !prism_graph_validate (graph, &error))
    g_clear_pointer (&graph, prism_graph_unref);
  if (graph == NULL)
    {
      g_autofree char *message = g_strdup_printf ("%s: %s", argv[1], error->message);
      return prism_cli_fail ("check", message);
    }

  text = json ? prism_graph_to_data (graph, provenance) : prism_graph_to_string (graph);
  fputs (text, stdout);
  return PRISM_EXIT_OK;
}
