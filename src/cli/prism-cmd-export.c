/* prism-cmd-export.c — `prism export`: the CUDA bundle of a program or candidate
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <glib/gi18n.h>
#include <json-glib/json-glib.h>

#include "prism-cli.h"
#include "prism-error.h"
#include "prism-export.h"
#include "prism-gpu-target.h"
#include "prism-graph-json.h"
#include "prism-results.h"
#include "prism-workload.h"

int
prism_cmd_export (int argc, char **argv)
{
  g_autofree char *out = NULL;
  g_autofree char *candidate = NULL;
  g_autofree char *arch = NULL;
  g_autofree char *prefix = NULL;
  gboolean reference = FALSE;
  gboolean no_pipeline = FALSE;
  gboolean no_usage = FALSE;
  g_autofree char *target = NULL;
  GOptionEntry entries[] = {
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &out,
      N_("Folder to write the bundle to (created if missing)"), N_("DIR") },
    { "candidate", 'c', 0, G_OPTION_ARG_STRING, &candidate,
      N_("With a prism-results file: the candidate to export, by number or digest prefix (default: the best)"),
      N_("ID") },
    { "reference", 'r', 0, G_OPTION_ARG_NONE, &reference,
      N_("With a workload: export its hand-written fused graph instead of its program"), NULL },
    { "arch", 'a', 0, G_OPTION_ARG_STRING, &arch,
      N_("Target architecture: sm_90 (default) or sm_80; decides the shared-memory limit"), N_("ARCH") },
    { "prefix", 'p', 0, G_OPTION_ARG_STRING, &prefix,
      N_("C identifier that starts every generated symbol (default: prism_ and the program name)"),
      N_("NAME") },
    { "no-pipeline", 0, 0, G_OPTION_ARG_NONE, &no_pipeline,
      N_("Do not stream loop tiles through a cp.async ring"), NULL },
    { "target", 'g', 0, G_OPTION_ARG_STRING, &target,
      N_("GPU the ring depths and split-K are planned for (default: the results file's, else h100 "
         "for sm_90 and a100 for sm_80)"), N_("GPU") },
    { "no-resource-usage", 0, 0, G_OPTION_ARG_NONE, &no_usage,
      N_("Do not compile the bundle with nvcc to report each kernel's registers and spills"), NULL },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismGraph) graph = NULL;
  g_autoptr(JsonNode) provenance = NULL;
  g_auto(GStrv) files = NULL;
  g_autofree char *usage_message = NULL;
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
  if (target != NULL && (options.target = prism_gpu_target_lookup (target)) == NULL)
    {
      g_autofree char *names = prism_cli_target_names ();
      g_autofree char *msg = g_strdup_printf (_("--target must be one of %s"), names);
      return prism_cli_fail ("export", msg);
    }
  if (options.target != NULL && options.target->compute_capability != options.sm && arch != NULL)
    return prism_cli_fail ("export", _("--target and --arch name GPUs of different architectures"));
  if (options.target != NULL)
    options.sm = options.target->compute_capability;

  if (prism_cli_is_results_file (argv[1]))
    {
      g_autoptr(GPtrArray) ids = NULL;
      g_autofree char *results_target = NULL;
      g_autoptr(GPtrArray) graphs = prism_cli_open_candidates (argv[1], candidate, 1, &ids, NULL,
                                                               &results_target, &error);

      if (graphs == NULL)
        return prism_cli_fail_with ("export", error);
      if (graphs->len == 0)
        return prism_cli_fail ("export", _("the results file has no candidate"));
      graph = prism_graph_ref (g_ptr_array_index (graphs, 0));
      printf (_("candidate %s\n"), (const char *) g_ptr_array_index (ids, 0));
      /* Planned for the GPU the search ranked it for. */
      if (options.target == NULL && arch == NULL)
        {
          options.target = prism_gpu_target_lookup (results_target);
          if (options.target != NULL)
            options.sm = options.target->compute_capability;
        }
    }
  else
    {
      g_auto(GStrv) parts = g_strsplit (argv[1], ":", 2);

      if (candidate != NULL)
        return prism_cli_fail ("export", _("--candidate needs a prism-results file"));
      if (reference)
        graph = prism_cli_open_reference (argv[1], &error);
      /* A Mirage file of one graph is a program too (prism_cli_open_program()). */
      else if (prism_workload_lookup (parts[0]) == NULL && g_file_test (argv[1], G_FILE_TEST_EXISTS) &&
               !prism_cli_is_mirage_file (argv[1]))
        {
          graph = prism_graph_load (argv[1], &provenance, &error);
          if (graph == NULL)
            prism_cli_name_file (&error, argv[1]);
        }
      else
        graph = prism_cli_open_program (argv[1], &error);
      if (graph == NULL)
        return prism_cli_fail ("export", error->message);
    }

  if (!prism_export_bundle (graph, provenance, &options,
                            no_usage ? PRISM_EXPORT_DEFAULT : PRISM_EXPORT_RESOURCE_USAGE, out, &files,
                            &usage_message, &error))
    {
      prism_cli_fail ("export", error->message);
      return g_error_matches (error, PRISM_ERROR, PRISM_ERROR_LIMIT) ||
             g_error_matches (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED) ? PRISM_EXIT_FAILED
                                                                           : PRISM_EXIT_BAD_INPUT;
    }
  for (guint i = 0; files[i] != NULL; i++)
    printf ("%s\n", files[i]);
  if (usage_message != NULL)
    /* TRANSLATORS: %s is the compiler command, or why there is none */
    g_printerr (_("registers and spills in manifest.json: %s\n"), usage_message);
  return PRISM_EXIT_OK;
}
