/* prism-cmd-import.c — `prism import`: a model (ONNX, torch.export) as a program
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "prism-cli.h"
#include "prism-error.h"
#include "prism-graph-json.h"
#include "prism-onnx-reader.h"

/* The provenance of an imported program: what it came from. */
static JsonNode *
import_provenance (const char *path, const char *format, char **dims)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autofree char *base = g_path_get_basename (path);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "imported_from");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "format");
  json_builder_add_string_value (b, format);
  json_builder_set_member_name (b, "file");
  json_builder_add_string_value (b, base);
  json_builder_set_member_name (b, "dims");
  json_builder_begin_array (b);
  for (guint i = 0; dims != NULL && dims[i] != NULL; i++)
    json_builder_add_string_value (b, dims[i]);
  json_builder_end_array (b);
  json_builder_end_object (b);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

static int
write_program (PrismGraph *graph, JsonNode *provenance, const char *out)
{
  g_autoptr(GError) error = NULL;

  if (out == NULL)
    {
      g_autofree char *text = prism_graph_to_data (graph, provenance);
      fputs (text, stdout);
      return PRISM_EXIT_OK;
    }
  if (!prism_graph_save (graph, provenance, out, &error))
    return prism_cli_fail_with ("import", error);
  /* TRANSLATORS: `prism import`: the file written and the number of its ops */
  printf (g_dngettext (GETTEXT_PACKAGE, "%s: %u op\n", "%s: %u ops\n", graph->ops->len), out, graph->ops->len);
  return PRISM_EXIT_OK;
}

static int
import_onnx (const char *path, char **dim_args, const char *out)
{
#ifdef PRISM_HAVE_ONNX
  g_autoptr(GArray) dims = g_array_new (FALSE, TRUE, sizeof (PrismOnnxDim));
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismGraph) graph = NULL;
  g_autoptr(JsonNode) provenance = NULL;
  int status;

  for (guint i = 0; dim_args != NULL && dim_args[i] != NULL; i++)
    {
      PrismOnnxDim d;

      if (!prism_onnx_dim_parse (dim_args[i], &d, &error))
        break;
      g_array_append_val (dims, d);
    }
  if (error == NULL)
    graph = prism_onnx_load (path, (const PrismOnnxDim *) (void *) dims->data, dims->len, &error);
  for (guint i = 0; i < dims->len; i++)
    g_free (g_array_index (dims, PrismOnnxDim, i).name);
  if (graph == NULL)
    return prism_cli_fail_with ("import", error);
  provenance = import_provenance (path, "onnx", dim_args);
  status = write_program (graph, provenance, out);
  return status;
#else
  g_autofree char *msg = g_strdup_printf (_("%s: this prism was built without ONNX support (meson option "
                                            "“onnx”: it needs protobuf-c and libonnx-dev)"), path);
  return prism_cli_fail ("import", msg);
#endif
}

/* The Python that runs prism_torch: $PRISM_PYTHON, else the project's
 * .venv (build-aux/setup makes it). (transfer full) (nullable) */
static char *
find_python (void)
{
  const char *env = g_getenv ("PRISM_PYTHON");
  g_autofree char *venv = g_build_filename (PRISM_SOURCE_DIR, ".venv", "bin", "python", NULL);

  if (env != NULL && env[0] != '\0')
    return g_strdup (env);
  if (g_file_test (venv, G_FILE_TEST_IS_EXECUTABLE))
    return g_steal_pointer (&venv);
  return NULL;
}

/* A torch.export program: the prism_torch package (python/prism_torch)
 * reads it; its output is checked as any program file. */
static int
import_pt2 (const char *path, char **dim_args, const char *out)
{
  g_autofree char *python = find_python ();
  g_autofree char *package = g_build_filename (PRISM_SOURCE_DIR, "python", "prism_torch", "__init__.py", NULL);
  g_autofree char *pythonpath = g_build_filename (PRISM_SOURCE_DIR, "python", NULL);
  g_autofree char *tmp_dir = NULL;
  g_autofree char *target = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismGraph) graph = NULL;
  g_autoptr(JsonNode) provenance = NULL;
  g_auto(GStrv) env = g_get_environ ();
  const char *old_path = g_environ_getenv (env, "PYTHONPATH");
  g_autofree char *new_path = old_path != NULL ? g_strjoin (":", pythonpath, old_path, NULL) : g_strdup (pythonpath);
  int wait_status = 0;

  if (dim_args != NULL && dim_args[0] != NULL)
    return prism_cli_fail ("import", _("--dim applies to ONNX models; a torch.export program has its sizes"));
  if (python == NULL)
    return prism_cli_fail ("import", _("reading a .pt2 file needs Python with torch: set PRISM_PYTHON, or run "
                                       "build-aux/setup, which makes .venv/ in the source folder"));
  if (!g_file_test (package, G_FILE_TEST_EXISTS))
    return prism_cli_fail ("import", _("reading a .pt2 file needs the prism_torch package (python/prism_torch in "
                                       "the source folder), which this source folder does not have"));
  /* Written to a file of our own first, so that what reaches --out has been checked. */
  tmp_dir = g_dir_make_tmp ("prism-import-XXXXXX", &error);
  if (tmp_dir == NULL)
    return prism_cli_fail_with ("import", error);
  target = g_build_filename (tmp_dir, "program.json", NULL);
  env = g_environ_setenv (env, "PYTHONPATH", new_path, TRUE);
  {
    const char *argv[] = { python, "-m", "prism_torch", path, "--out", target, NULL };

    if (!g_spawn_sync (NULL, (char **) argv, env, G_SPAWN_CHILD_INHERITS_STDIN, NULL, NULL, NULL, NULL,
                       &wait_status, &error))
      {
        g_prefix_error (&error, _("cannot run %s: "), python);
        g_rmdir (tmp_dir);
        return prism_cli_fail_with ("import", error);
      }
  }
  if (!g_spawn_check_wait_status (wait_status, &error))
    {
      g_autofree char *msg = g_strdup_printf (_("%s: %s -m prism_torch failed (%s)"), path, python, error->message);
      g_unlink (target);
      g_rmdir (tmp_dir);
      return prism_cli_fail ("import", msg);
    }
  graph = prism_graph_load (target, NULL, &error);
  g_unlink (target);
  g_rmdir (tmp_dir);
  if (graph == NULL)
    {
      g_prefix_error (&error, _("%s: the program prism_torch wrote is not valid: "), path);
      return prism_cli_fail_with ("import", error);
    }
  provenance = import_provenance (path, "torch.export", NULL);
  return write_program (graph, provenance, out);
}

int
prism_cmd_import (int argc, char **argv)
{
  g_autofree char *out = NULL;
  g_auto(GStrv) dims = NULL;
  GOptionEntry entries[] = {
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &out, N_("Write the program to FILE (default: standard output)"),
      N_("FILE") },
    { "dim", 'd', 0, G_OPTION_ARG_STRING_ARRAY, &dims,
      N_("The size of a symbolic dim (dim_param) of the model’s inputs; repeat for each"), N_("NAME=VALUE") },
    G_OPTION_ENTRY_NULL
  };

  if (!prism_cli_parse ("import", _("FILE"),
                        _("Reads a model — an ONNX file (.onnx) or a torch.export program (.pt2, through the "
                          "prism_torch package) — and writes it as a prism-graph program (docs/format.md, "
                          "“ONNX models”). Initializers become named inputs; an op the program format cannot "
                          "express is refused, naming the node. Exits with 0 when the program was written and "
                          "2 when the model cannot be read."),
                        entries, &argc, &argv))
    return PRISM_EXIT_BAD_INPUT;
  if (argc != 2)
    return prism_cli_fail ("import", _("expected one FILE (see “prism import --help”)"));
  if (g_str_has_suffix (argv[1], ".pt2"))
    return import_pt2 (argv[1], dims, out);
  if (g_str_has_suffix (argv[1], ".onnx"))
    return import_onnx (argv[1], dims, out);
  {
    g_autofree char *msg = g_strdup_printf (_("%s: not an ONNX model (.onnx) or a torch.export program (.pt2)"),
                                            argv[1]);
    return prism_cli_fail ("import", msg);
  }
}
