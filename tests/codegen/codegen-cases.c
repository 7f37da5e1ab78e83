/* codegen-cases.c — the graphs every code generation test runs on
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "codegen-cases.h"
#include "prism-graph-json.h"
#include "prism-results.h"
#include "prism-workload.h"

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(char * const *) a, *(char * const *) b);
}

static void
codegen_case_free (gpointer data)
{
  CodegenCase *c = data;

  g_free (c->label);
  if (c->graph != NULL)
    prism_graph_unref (c->graph);
  g_free (c);
}

static void
add_case (GPtrArray *cases, char *label, PrismGraph *graph)
{
  CodegenCase *c = g_new0 (CodegenCase, 1);
  const char *only = g_getenv ("PRISM_CODEGEN_ONLY");

  c->label = label;
  c->graph = graph;
  if (only != NULL && strstr (label, only) == NULL)
    codegen_case_free (c);
  else
    g_ptr_array_add (cases, c);
}

static void
add_file (GPtrArray *cases, const char *path, const char *label)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonObject *root;

  if (!json_parser_load_from_file (parser, path, &error))
    g_error ("%s: %s", path, error->message);
  root = json_node_get_object (json_parser_get_root (parser));
  if (root != NULL && g_strcmp0 (json_object_get_string_member_with_default (root, "format", ""),
                                 PRISM_RESULTS_FORMAT) == 0)
    {
      /* Every candidate of a results file is verified; each runs with the
       * best sizes the search found. */
      g_autoptr(PrismResults) results = prism_results_load (path, &error);
      GPtrArray *cands;

      if (results == NULL)
        g_error ("%s: %s", path, error->message);
      cands = prism_results_get_candidates (results);
      for (guint i = 0; i < cands->len; i++)
        {
          const PrismCandidate *c = g_ptr_array_index (cands, i);
          PrismGraph *g = prism_candidate_instantiate (c, &error);

          if (g == NULL)
            g_error ("%s, candidate %u: %s", path, c->id, error->message);
          add_case (cases, g_strdup_printf ("%s#%u", label, c->id), g);
        }
      return;
    }
  {
    PrismGraph *g = prism_graph_from_json (json_parser_get_root (parser), NULL, &error);
    if (g == NULL)
      g_error ("%s: %s", path, error->message);
    add_case (cases, g_strdup (label), g);
  }
}

const char *
codegen_test_params (const char *workload)
{
  static const char * const table[][2] = {
    { "rms_norm", "d=1024" },
    { "rmsnorm_mlp", "d=1024" },
    { "gated_mlp", "d=1024" },
    { "gqa", "q=64,kv=1024" },
    { "layer_norm_linear", "d=1024,o=1024" },
  };

  if (g_getenv ("PRISM_CODEGEN_FULL") != NULL)
    return NULL;
  for (guint i = 0; i < G_N_ELEMENTS (table); i++)
    if (g_str_equal (table[i][0], workload))
      return table[i][1];
  return NULL;
}

GPtrArray *
codegen_cases_load (void)
{
  GPtrArray *cases = g_ptr_array_new_with_free_func (codegen_case_free);
  const char *source_dir = g_getenv ("PRISM_SOURCE_DIR") ? g_getenv ("PRISM_SOURCE_DIR") : PRISM_SOURCE_DIR;
  g_autofree char *graphs_dir = g_build_filename (source_dir, "tests", "codegen", "graphs", NULL);
  g_autoptr(GDir) dir = NULL;
  const PrismWorkloadInfo *list;
  const char *extra = g_getenv ("PRISM_CODEGEN_GRAPHS");
  guint n;

  list = prism_workload_list (&n);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GError) error = NULL;
      const char *params = codegen_test_params (list[i].name);
      PrismGraph *g = prism_workload_build (list[i].name, params, &error);

      g_assert_no_error (error);
      add_case (cases, g_strdup (list[i].name), g);
      if (list[i].has_reference)
        {
          g = prism_workload_build_reference (list[i].name, params, &error);
          g_assert_no_error (error);
          add_case (cases, g_strdup_printf ("%s (reference)", list[i].name), g);
        }
    }

  dir = g_dir_open (graphs_dir, 0, NULL);
  if (dir != NULL)
    {
      g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
      const char *name;

      while ((name = g_dir_read_name (dir)) != NULL)
        if (g_str_has_suffix (name, ".json"))
          g_ptr_array_add (names, g_strdup (name));
      g_ptr_array_sort (names, compare_names);
      for (guint i = 0; i < names->len; i++)
        {
          const char *nm = g_ptr_array_index (names, i);
          g_autofree char *path = g_build_filename (graphs_dir, nm, NULL);
          g_autofree char *label = g_strdup_printf ("graphs/%s", nm);
          add_file (cases, path, label);
        }
    }

  if (extra != NULL && *extra)
    {
      g_auto(GStrv) paths = g_strsplit (extra, ":", -1);
      for (guint i = 0; paths[i] != NULL; i++)
        if (*paths[i])
          add_file (cases, paths[i], paths[i]);
    }
  return cases;
}

char *
codegen_find_nvcc (void)
{
  const char *env = g_getenv ("NVCC");
  const char *home = g_getenv ("CUDA_HOME");
  g_autofree char *in_home = home != NULL ? g_build_filename (home, "bin", "nvcc", NULL) : NULL;

  if (env != NULL && g_file_test (env, G_FILE_TEST_IS_EXECUTABLE))
    return g_strdup (env);
  if (in_home != NULL && g_file_test (in_home, G_FILE_TEST_IS_EXECUTABLE))
    return g_steal_pointer (&in_home);
  if (g_file_test ("/usr/local/cuda/bin/nvcc", G_FILE_TEST_IS_EXECUTABLE))
    return g_strdup ("/usr/local/cuda/bin/nvcc");
  return g_find_program_in_path ("nvcc");
}

void
codegen_write_f32_file (const char *path, const PrismBuffer *buffer)
{
  g_autofree float *f = g_new (float, buffer->numel);
  g_autoptr(GError) error = NULL;

  for (gint64 i = 0; i < buffer->numel; i++)
    f[i] = (float) buffer->data[i];
  g_file_set_contents (path, (const char *) f, (gssize) (buffer->numel * sizeof (float)), &error);
  g_assert_no_error (error);
}

double
codegen_compare_f32_file (const char *path, const PrismBuffer *expected)
{
  g_autofree char *data = NULL;
  g_autoptr(PrismBuffer) got = NULL;
  gsize len = 0;

  if (!g_file_get_contents (path, &data, &len, NULL) ||
      len != (gsize) expected->numel * sizeof (float))
    return INFINITY;
  got = prism_buffer_new (expected->ndims, expected->dims);
  for (gint64 i = 0; i < expected->numel; i++)
    {
      float f;
      memcpy (&f, data + i * sizeof (float), sizeof f);
      got->data[i] = f;
    }
  return prism_buffer_max_rel_error (got, expected);
}

gboolean
codegen_run (const char * const *argv, const char *cwd, char **log)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;
  int status = 0;

  if (!g_spawn_sync (cwd, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, NULL,
                     &status, &error) && error != NULL)
    {
      if (log != NULL)
        *log = g_strdup (error->message);
      return FALSE;
    }
  (void) out;
  if (!g_spawn_check_wait_status (status, &error))
    {
      if (log != NULL)
        *log = g_strdup_printf ("%s: %s", argv[0], error->message);
      return FALSE;
    }
  return TRUE;
}

GPtrArray *
codegen_run_parallel (GPtrArray *commands, guint jobs)
{
  GPtrArray *results = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) running = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GArray) which = g_array_new (FALSE, FALSE, sizeof (guint));
  guint next = 0, done = 0;

  g_ptr_array_set_size (results, commands->len);
  while (done < commands->len)
    {
      while (next < commands->len && running->len < jobs)
        {
          const char * const *argv = g_ptr_array_index (commands, next);
          g_autoptr(GError) error = NULL;
          GSubprocess *p = g_subprocess_newv (argv, G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                              G_SUBPROCESS_FLAGS_STDERR_MERGE, &error);
          if (p == NULL)
            {
              g_ptr_array_index (results, next) = g_strdup (error->message);
              next++;
              done++;
              continue;
            }
          g_ptr_array_add (running, p);
          g_array_append_val (which, next);
          next++;
        }
      if (running->len > 0)
        {
          GSubprocess *p = g_ptr_array_index (running, 0);
          guint index = g_array_index (which, guint, 0);
          g_autofree char *out = NULL;
          g_autoptr(GError) error = NULL;

          g_subprocess_communicate_utf8 (p, NULL, NULL, &out, NULL, &error);
          if (error != NULL || !g_subprocess_get_successful (p))
            {
              const char * const *argv = g_ptr_array_index (commands, index);
              g_autofree char *cmd = g_strjoinv (" ", (char **) argv);
              g_ptr_array_index (results, index) =
                g_strdup_printf ("$ %s\n%s", cmd, error != NULL ? error->message : (out ? out : ""));
            }
          g_ptr_array_remove_index (running, 0);
          g_array_remove_index (which, 0);
          done++;
        }
    }
  return results;
}

void
codegen_remove_tree (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      if (g_file_test (child, G_FILE_TEST_IS_DIR))
        codegen_remove_tree (child);
      else
        g_remove (child);
    }
  g_rmdir (path);
}
