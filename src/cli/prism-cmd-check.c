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

/* A Mirage file: one line per graph (index, ops, kernels, ok or why not),
 * then each graph's listing; --json: the graphs as prism-graph documents.
 * Exits with 2 when any graph could not be read. */
static int
check_mirage (const char *path, gboolean json)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) graphs = prism_cli_open_mirage (path, &error);
  g_autoptr(JsonBuilder) b = json_builder_new ();
  guint n_bad = 0;

  if (graphs == NULL)
    return prism_cli_fail ("check", error->message);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "format");
  json_builder_add_string_value (b, "mirage-mugraphs");
  json_builder_set_member_name (b, "graphs");
  json_builder_begin_array (b);
  if (!json)
    /* TRANSLATORS: the first line of `prism check` on a Mirage file */
    printf (g_dngettext (GETTEXT_PACKAGE, "%s: %u Mirage muGraph\n", "%s: %u Mirage muGraphs\n", graphs->len),
            path, graphs->len);
  for (guint i = 0; i < graphs->len; i++)
    {
      const PrismMirageGraph *m = g_ptr_array_index (graphs, i);
      guint kernels = m->graph != NULL ? prism_graph_count_kernels (m->graph) : 0;

      n_bad += m->graph == NULL;
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "index");
      json_builder_add_int_value (b, m->index);
      json_builder_set_member_name (b, "ops");
      json_builder_add_int_value (b, m->n_ops);
      json_builder_set_member_name (b, "ok");
      json_builder_add_boolean_value (b, m->graph != NULL);
      if (m->graph != NULL)
        {
          json_builder_set_member_name (b, "kernels");
          json_builder_add_int_value (b, kernels);
          json_builder_set_member_name (b, "graph");
          json_builder_add_value (b, prism_graph_to_json (m->graph, NULL));
        }
      else
        {
          json_builder_set_member_name (b, "error");
          json_builder_add_string_value (b, prism_cli_mirage_error (m));
        }
      json_builder_end_object (b);
      if (json)
        continue;
      if (m->graph != NULL)
        {
          g_autofree char *listing = prism_graph_to_string (m->graph);
          /* TRANSLATORS: `prism check` on a Mirage file: "graph 0: 4 ops, " then the kernels */
          g_autofree char *ops = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "graph %u: %u op, ",
                                                               "graph %u: %u ops, ", m->n_ops),
                                                  m->index, m->n_ops);
          printf (g_dngettext (GETTEXT_PACKAGE, "%s%u kernel: ok\n", "%s%u kernels: ok\n", kernels), ops,
                  kernels);
          fputs (listing, stdout);
        }
      else
        {
          g_autofree char *safe = prism_cli_escape (prism_cli_mirage_error (m));
          /* TRANSLATORS: `prism check` on a Mirage file: graph index, op count, why it was refused */
          printf (g_dngettext (GETTEXT_PACKAGE, "graph %u: %u op: error: %s\n", "graph %u: %u ops: error: %s\n",
                               m->n_ops),
                  m->index, m->n_ops, safe);
        }
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  if (json)
    {
      g_autoptr(JsonNode) root = json_builder_get_root (b);
      g_autoptr(JsonGenerator) gen = json_generator_new ();
      g_autofree char *text = NULL;

      json_generator_set_root (gen, root);
      json_generator_set_pretty (gen, TRUE);
      text = json_generator_to_data (gen, NULL);
      printf ("%s\n", text);
    }
  if (n_bad > 0)
    {
      g_autofree char *msg = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s: %u of %u graphs could not be read",
                                                           "%s: %u of %u graphs could not be read", n_bad),
                                              path, n_bad, graphs->len);
      return prism_cli_fail ("check", msg);
    }
  return PRISM_EXIT_OK;
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
                          "format and the IR, and prints the program with its shapes. A Mirage "
                          "muGraph file (a JSON list of the graphs Mirage saved) is listed graph by "
                          "graph. Exits with "
                          "0 when the program is valid and 2 when it is not."),
                        entries, &argc, &argv))
    return PRISM_EXIT_BAD_INPUT;
  if (argc != 2)
    return prism_cli_fail ("check", _("expected one FILE or WORKLOAD (see “prism check --help”)"));

  if (!reference && prism_cli_is_mirage_file (argv[1]))
    return check_mirage (argv[1], json);
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
