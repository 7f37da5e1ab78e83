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
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <sys/stat.h>

#include "prism-run-info.h"

void
prism_run_info_free (PrismRunInfo *info)
{
  if (info == NULL)
    return;
  g_free (info->path);
  g_free (info->name);
  g_free (info->results);
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
