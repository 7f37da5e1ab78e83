/* prism-cmd-export.c — `prism export`: the CUDA bundle of a program or candidate
 *
 * Also holds the reader of prism-results files shared with `prism bench`.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <stdio.h>
#include <glib/gi18n.h>
#include <json-glib/json-glib.h>

#include "prism-cli.h"
#include "prism-error.h"
#include "prism-export.h"
#include "prism-graph-json.h"
#include "prism-workload.h"

/* ------------------------------------------------------------------------ */
/* prism-results files */

static JsonNode *
load_json (const char *path, GError **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();

  if (!json_parser_load_from_file (parser, path, error))
    return NULL;
  return json_node_copy (json_parser_get_root (parser));
}

gboolean
prism_cli_is_results_file (const char *path)
{
  g_autoptr(JsonNode) root = NULL;
  JsonObject *o;

  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR) || (root = load_json (path, NULL)) == NULL ||
      !JSON_NODE_HOLDS_OBJECT (root))
    return FALSE;
  o = json_node_get_object (root);
  return g_strcmp0 (json_object_get_string_member_with_default (o, "format", ""), "prism-results") == 0;
}

/* A candidate counts as verified when its "verification" says so (the
 * string "verified", or an object with "verified": true or a "status" of
 * "verified" or "proved"); a candidate without the member is accepted. */
static gboolean
candidate_verified (JsonObject *cand)
{
  JsonNode *v = json_object_get_member (cand, "verification");

  if (v == NULL)
    return TRUE;
  if (JSON_NODE_HOLDS_VALUE (v))
    return g_strcmp0 (json_node_get_string (v), "verified") == 0;
  if (JSON_NODE_HOLDS_OBJECT (v))
    {
      JsonObject *o = json_node_get_object (v);
      const char *status = json_object_get_string_member_with_default (o, "status", "");
      return json_object_get_boolean_member_with_default (o, "verified", FALSE) ||
             g_str_equal (status, "verified") || g_str_equal (status, "proved");
    }
  return FALSE;
}

static char *
candidate_id (JsonObject *cand, guint index)
{
  JsonNode *id = json_object_get_member (cand, "id");

  if (id != NULL && json_node_get_value_type (id) == G_TYPE_STRING)
    return g_strdup (json_node_get_string (id));
  if (id != NULL && json_node_get_value_type (id) == G_TYPE_INT64)
    return g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (id));
  return g_strdup_printf ("%u", index);
}

GPtrArray *
prism_cli_open_candidates (const char *path, const char *want_id, guint max, GPtrArray **ids,
                           PrismGraph **program, GError **error)
{
  g_autoptr(JsonNode) root = load_json (path, error);
  g_autoptr(GPtrArray) graphs = g_ptr_array_new_with_free_func ((GDestroyNotify) prism_graph_unref);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  JsonObject *o;
  JsonArray *cands;

  if (root == NULL)
    return NULL;
  o = JSON_NODE_HOLDS_OBJECT (root) ? json_node_get_object (root) : NULL;
  cands = o != NULL && json_object_has_member (o, "candidates") ? json_object_get_array_member (o, "candidates") : NULL;
  if (cands == NULL)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_PARSE, _("%s: no “candidates” array"), path);
      return NULL;
    }
  for (guint i = 0; i < json_array_get_length (cands) && (max == 0 || graphs->len < max); i++)
    {
      JsonObject *cand = json_array_get_object_element (cands, i);
      g_autofree char *id = NULL;
      PrismGraph *g;

      if (cand == NULL || !json_object_has_member (cand, "graph"))
        continue;
      id = candidate_id (cand, i);
      if (want_id != NULL ? !g_str_equal (id, want_id) : !candidate_verified (cand))
        continue;
      g = prism_graph_from_json (json_object_get_member (cand, "graph"), NULL, error);
      if (g == NULL)
        {
          g_prefix_error (error, _("%s, candidate %s: "), path, id);
          return NULL;
        }
      g_ptr_array_add (graphs, g);
      g_ptr_array_add (names, g_steal_pointer (&id));
    }
  if (want_id != NULL && graphs->len == 0)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_PARSE, _("%s has no candidate “%s”"), path, want_id);
      return NULL;
    }

  /* The input program: a prism-graph under "program", else the workload. */
  if (program != NULL)
    {
      *program = NULL;
      if (json_object_has_member (o, "program") &&
          JSON_NODE_HOLDS_OBJECT (json_object_get_member (o, "program")))
        *program = prism_graph_from_json (json_object_get_member (o, "program"), NULL, NULL);
      else if (json_object_has_member (o, "workload"))
        {
          const char *w = json_object_get_string_member_with_default (o, "workload", "");
          const char *params = json_object_get_string_member_with_default (o, "params", NULL);
          if (prism_workload_lookup (w) != NULL)
            *program = prism_workload_build (w, params, NULL);
        }
    }
  if (ids != NULL)
    *ids = g_steal_pointer (&names);
  return g_steal_pointer (&graphs);
}

/* ------------------------------------------------------------------------ */

int
prism_cmd_export (int argc, char **argv)
{
  g_autofree char *out = NULL;
  g_autofree char *candidate = NULL;
  g_autofree char *arch = NULL;
  g_autofree char *prefix = NULL;
  gboolean reference = FALSE;
  gboolean no_pipeline = FALSE;
  GOptionEntry entries[] = {
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &out,
      N_("Folder to write the bundle to (created if missing)"), N_("DIR") },
    { "candidate", 'c', 0, G_OPTION_ARG_STRING, &candidate,
      N_("With a prism-results file: the id of the candidate to export (default: the first verified one)"),
      N_("ID") },
    { "reference", 'r', 0, G_OPTION_ARG_NONE, &reference,
      N_("With a workload: export its hand-written fused graph instead of its program"), NULL },
    { "arch", 'a', 0, G_OPTION_ARG_STRING, &arch,
      N_("Target architecture: sm_90 (default) or sm_80; decides the shared-memory limit"), N_("ARCH") },
    { "prefix", 'p', 0, G_OPTION_ARG_STRING, &prefix,
      N_("C identifier that starts every generated symbol (default: prism_ and the program name)"),
      N_("NAME") },
    { "no-pipeline", 0, 0, G_OPTION_ARG_NONE, &no_pipeline,
      N_("Do not double-buffer loop tiles with cp.async"), NULL },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismGraph) graph = NULL;
  g_autoptr(JsonNode) provenance = NULL;
  g_auto(GStrv) files = NULL;
  PrismCudaOptions options = { 0, };

  if (!prism_cli_parse ("export", _("RESULTS.json|FILE|WORKLOAD"),
                        _("Writes the CUDA bundle of a program: PREFIX.cu (kernels and an extern \"C\" "
                          "launcher), PREFIX.h, manifest.json (kernels, grid, block, shared memory, "
                          "argument order, target arch), graph.json, a Makefile and the runtime "
                          "headers. The input is a prism-results file (pick a candidate with "
                          "--candidate), a prism-graph file or a built-in workload."),
                        entries, &argc, &argv))
    return PRISM_EXIT_BAD_INPUT;
  if (argc != 2)
    return prism_cli_fail ("export", _("expected one RESULTS.json, FILE or WORKLOAD (see “prism export --help”)"));
  if (out == NULL)
    return prism_cli_fail ("export", _("missing --out DIR"));
  if (arch == NULL || g_str_equal (arch, "sm_90"))
    options.sm = 90;
  else if (g_str_equal (arch, "sm_80"))
    options.sm = 80;
  else
    return prism_cli_fail ("export", _("--arch must be sm_80 or sm_90"));
  options.prefix = prefix;
  options.no_pipeline = no_pipeline;

  if (prism_cli_is_results_file (argv[1]))
    {
      g_autoptr(GPtrArray) ids = NULL;
      g_autoptr(GPtrArray) graphs = prism_cli_open_candidates (argv[1], candidate, 1, &ids, NULL, &error);

      if (graphs == NULL)
        return prism_cli_fail ("export", error->message);
      if (graphs->len == 0)
        return prism_cli_fail ("export", _("the results file has no verified candidate"));
      graph = prism_graph_ref (g_ptr_array_index (graphs, 0));
      printf (_("candidate %s\n"), (const char *) g_ptr_array_index (ids, 0));
    }
  else
    {
      g_auto(GStrv) parts = g_strsplit (argv[1], ":", 2);

      if (candidate != NULL)
        return prism_cli_fail ("export", _("--candidate needs a prism-results file"));
      if (reference)
        graph = prism_cli_open_reference (argv[1], &error);
      else if (prism_workload_lookup (parts[0]) == NULL && g_file_test (argv[1], G_FILE_TEST_EXISTS))
        graph = prism_graph_load (argv[1], &provenance, &error);
      else
        graph = prism_cli_open_program (argv[1], &error);
      if (graph == NULL)
        return prism_cli_fail ("export", error->message);
    }

  if (!prism_export_bundle (graph, provenance, &options, out, &files, &error))
    {
      g_printerr ("prism export: %s\n", error->message);
      return g_error_matches (error, PRISM_ERROR, PRISM_ERROR_LIMIT) ||
             g_error_matches (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED) ? PRISM_EXIT_FAILED
                                                                           : PRISM_EXIT_BAD_INPUT;
    }
  for (guint i = 0; files[i] != NULL; i++)
    printf ("%s\n", files[i]);
  return PRISM_EXIT_OK;
}
