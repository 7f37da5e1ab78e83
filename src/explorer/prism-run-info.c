/* prism-run-info.c — one run the explorer cached: where, when, how big
 *
 * Every search the explorer starts writes its results.json into a folder of
 * its own under ~/.cache/prism-explorer/runs (prism-window.c); these are
 * what the Run History window lists.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <sys/stat.h>

#include "prism-format.h"
#include "prism-results.h"
#include "prism-run-info.h"

void
prism_run_info_free (PrismRunInfo *info)
{
  if (info == NULL)
    return;
  g_free (info->path);
  g_free (info->name);
  g_free (info->results);
  g_free (info->summary);
  g_free (info->limits);
  g_free (info);
}

char *
prism_run_info_default_folder (void)
{
  return g_build_filename (g_get_user_cache_dir (), "prism-explorer", "runs", NULL);
}

/* A run folder holds the files a search writes; nothing nested. */
static guint64
folder_bytes (const char *path,
              gint64     *newest)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;
  guint64 bytes = 0;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *file = g_build_filename (path, name, NULL);
      GStatBuf st;

      if (g_lstat (file, &st) != 0 || !S_ISREG (st.st_mode))
        continue;
      /* What it takes on disk, not its length. */
      bytes += (guint64) st.st_blocks * 512;
      *newest = MAX (*newest, (gint64) st.st_mtime);
    }
  return bytes;
}

static gint
compare_newest_first (gconstpointer a,
                      gconstpointer b)
{
  const PrismRunInfo *x = *(PrismRunInfo * const *) a;
  const PrismRunInfo *y = *(PrismRunInfo * const *) b;

  if (x->modified != y->modified)
    return x->modified > y->modified ? -1 : 1;
  return g_strcmp0 (x->name, y->name);
}

/* The search options of a results file, as "name=value" words. */
static char *
options_text (PrismResults *results)
{
  g_autoptr(JsonNode) root = prism_results_to_json (results);
  JsonObject *obj = JSON_NODE_HOLDS_OBJECT (root) ? json_node_get_object (root) : NULL;
  JsonNode *options = obj ? json_object_get_member (obj, "options") : NULL;
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(GList) names = NULL;

  if (options == NULL || !JSON_NODE_HOLDS_OBJECT (options))
    return NULL;
  names = json_object_get_members (json_node_get_object (options));
  for (GList *l = names; l != NULL; l = l->next)
    {
      JsonNode *value = json_object_get_member (json_node_get_object (options), l->data);
      g_autofree char *shown = JSON_NODE_HOLDS_VALUE (value) ? json_to_string (value, FALSE) : NULL;

      if (shown != NULL)
        g_string_append_printf (text, "%s%s=%s", text->len ? " " : "", (char *) l->data, shown);
    }
  return g_string_free (g_steal_pointer (&text), FALSE);
}

/* What a run was, from its results: the program, mode and target, the
 * counts, the best and how it ended.  The strict reader: a results file
 * it refuses has no summary. */
static void
read_summary (PrismRunInfo *info)
{
  g_autoptr(PrismResults) results = NULL;
  const PrismRunStats *stats;
  PrismCandidate *best;
  g_autofree char *states = NULL;
  g_autofree char *verified = NULL;
  g_autofree char *speedup = NULL;
  g_autofree char *counts = NULL;
  const char *program;

  if (info->results == NULL || (results = prism_results_load (info->results, NULL)) == NULL)
    return;
  stats = prism_results_get_stats (results);
  best = prism_results_get_best (results);
  program = prism_results_get_source (results);
  if (program == NULL && prism_results_get_program (results) != NULL)
    program = prism_results_get_program (results)->name;
  states = prism_format_count (stats->search.states);
  /* Translators: a run's counts: states explored, verified and distinct candidates */
  verified = prism_format_count (stats->verified);
  counts = g_strdup_printf (_("%s states, %s verified (%u distinct)"), states, verified,
                            prism_results_get_candidates (results)->len);
  speedup = best ? prism_format_speedup (best->speedup) : g_strdup (_("none faster"));
  /* Translators: what a run of the history was: program, search mode, GPU,
   * its counts, its best speedup, how it ended ("rms_norm · symbolic · h100
   * · 1.2 k states, 74 verified (39 distinct) · best 2.12× · exhausted") */
  info->summary = g_strdup_printf (_("%s · %s · %s · %s · best %s · %s"),
                                   program ? program : "?",
                                   prism_results_get_mode (results) ? prism_results_get_mode (results) : "?",
                                   prism_results_get_target (results) ? prism_results_get_target (results) : "?",
                                   counts, speedup,
                                   prism_results_get_stop_reason (results) ? prism_results_get_stop_reason (results)
                                                                           : _("not finished"));
  info->limits = options_text (results);
}

/* "name=value" words into a table. */
static GHashTable *
parse_limits (const char *limits)
{
  GHashTable *table = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_auto(GStrv) words = limits ? g_strsplit (limits, " ", -1) : NULL;

  for (guint i = 0; words != NULL && words[i] != NULL; i++)
    {
      const char *eq = strchr (words[i], '=');

      if (eq != NULL)
        g_hash_table_insert (table, g_strndup (words[i], eq - words[i]), g_strdup (eq + 1));
    }
  return table;
}

GPtrArray *
prism_run_info_compare (const PrismRunInfo *a,
                        const PrismRunInfo *b)
{
  GPtrArray *lines = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GHashTable) la = NULL;
  g_autoptr(GHashTable) lb = NULL;
  g_auto(GStrv) words = NULL;

  g_return_val_if_fail (a != NULL && b != NULL, lines);

  if (g_strcmp0 (a->summary, b->summary) != 0)
    {
      g_ptr_array_add (lines, g_strdup_printf ("%s: %s", a->name, a->summary ? a->summary : _("no results")));
      g_ptr_array_add (lines, g_strdup_printf ("%s: %s", b->name, b->summary ? b->summary : _("no results")));
    }
  la = parse_limits (a->limits);
  lb = parse_limits (b->limits);
  /* In the first run's order, then what only the second has. */
  words = g_strsplit (a->limits ? a->limits : "", " ", -1);
  for (guint i = 0; words[i] != NULL; i++)
    {
      g_autofree char *key = strchr (words[i], '=') ? g_strndup (words[i], strchr (words[i], '=') - words[i]) : NULL;
      const char *va = key ? g_hash_table_lookup (la, key) : NULL;
      const char *vb = key ? g_hash_table_lookup (lb, key) : NULL;

      if (key != NULL && g_strcmp0 (va, vb) != 0)
        g_ptr_array_add (lines, g_strdup_printf ("%s: %s → %s", key, va, vb ? vb : "—"));
    }
  {
    GHashTableIter iter;
    gpointer key, value;

    g_hash_table_iter_init (&iter, lb);
    while (g_hash_table_iter_next (&iter, &key, &value))
      if (!g_hash_table_contains (la, key))
        g_ptr_array_add (lines, g_strdup_printf ("%s: — → %s", (char *) key, (char *) value));
  }
  return lines;
}

GPtrArray *
prism_run_info_scan (const char *folder)
{
  GPtrArray *runs = g_ptr_array_new_with_free_func ((GDestroyNotify) prism_run_info_free);
  g_autoptr(GDir) dir = NULL;
  const char *name;

  g_return_val_if_fail (folder != NULL, runs);
  dir = g_dir_open (folder, 0, NULL);
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (folder, name, NULL);
      g_autofree char *results = g_build_filename (path, "results.json", NULL);
      PrismRunInfo *info;
      GStatBuf st;

      if (g_lstat (path, &st) != 0 || !S_ISDIR (st.st_mode))
        continue;
      info = g_new0 (PrismRunInfo, 1);
      info->path = g_steal_pointer (&path);
      info->name = g_strdup (name);
      info->modified = (gint64) st.st_mtime;
      info->bytes = folder_bytes (info->path, &info->modified);
      if (g_file_test (results, G_FILE_TEST_IS_REGULAR))
        info->results = g_steal_pointer (&results);
      read_summary (info);
      g_ptr_array_add (runs, info);
    }
  g_ptr_array_sort (runs, compare_newest_first);
  return runs;
}

gboolean
prism_run_info_delete (const PrismRunInfo *info,
                       GError            **error)
{
  g_autoptr(GDir) dir = NULL;
  g_autoptr(GError) local = NULL;
  const char *name;

  g_return_val_if_fail (info != NULL, FALSE);
  dir = g_dir_open (info->path, 0, &local);
  if (dir == NULL)
    {
      g_set_error (error, G_FILE_ERROR, local->code, _("Cannot delete the run “%s”: %s"), info->name,
                   local->message);
      return FALSE;
    }
  /* Files only: a run folder never holds anything else, and a folder that
   * does is not one of ours to empty. */
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *file = g_build_filename (info->path, name, NULL);
      GStatBuf st;

      if (g_lstat (file, &st) != 0 || S_ISDIR (st.st_mode))
        {
          g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_ISDIR,
                       _("Cannot delete the run “%s”: it holds “%s”, which is not a file a search writes"),
                       info->name, name);
          return FALSE;
        }
    }
  g_dir_rewind (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *file = g_build_filename (info->path, name, NULL);

      if (g_unlink (file) != 0)
        {
          int saved = errno;
          g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved),
                       _("Cannot delete “%s”: %s"), file, g_strerror (saved));
          return FALSE;
        }
    }
  if (g_rmdir (info->path) != 0)
    {
      int saved = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved),
                   _("Cannot delete the folder “%s”: %s"), info->path, g_strerror (saved));
      return FALSE;
    }
  return TRUE;
}
