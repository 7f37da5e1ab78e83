/* prism-out-dir.c — checking and locking the folder of a search's results
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "prism-error.h"
#include "prism-graph-json.h"
#include "prism-out-dir.h"
#include "prism-results.h"

struct _PrismOutDir
{
  char *dir;
  char *results_path;
  char *lock_path;
};

/* Takes @message (formatted with the path and the system's reason). */
static gboolean
fail_with (GError **error, char *message)
{
  g_set_error_literal (error, PRISM_ERROR, PRISM_ERROR_FAILED, message);
  g_free (message);
  return FALSE;
}

/* The folder exists (made unless @resume) and is a folder, symlinks
 * followed: a loop or a dangling link fails here, not at the first save. */
static gboolean
check_folder (const char *dir, gboolean resume, GError **error)
{
  GStatBuf st;

  if (*dir == '\0')
    {
      g_set_error_literal (error, PRISM_ERROR, PRISM_ERROR_FAILED,
                           _("the results folder is an empty name"));
      return FALSE;
    }
  if (g_stat (dir, &st) != 0)
    {
      int saved = errno;

      if (saved != ENOENT)
        return fail_with (error, g_strdup_printf (_("the results folder “%s” cannot be used: %s"), dir, g_strerror (saved)));
      if (resume)
        {
          g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED,
                       _("cannot resume from “%s”: there is no such folder"), dir);
          return FALSE;
        }
      if (g_mkdir_with_parents (dir, 0755) != 0)
        return fail_with (error, g_strdup_printf (_("cannot create the results folder “%s”: %s"), dir, g_strerror (errno)));
      if (g_stat (dir, &st) != 0)
        return fail_with (error, g_strdup_printf (_("the results folder “%s” cannot be used: %s"), dir, g_strerror (errno)));
    }
  if (!S_ISDIR (st.st_mode))
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED,
                   _("the results folder “%s” is not a folder"), dir);
      return FALSE;
    }
  return TRUE;
}

/* results.json, if there is one, is a regular file (the atomic save renames
 * over it: a folder, a FIFO or a symlink there would fail or be lost) and,
 * unless it is continued or may be overwritten, holds this program's
 * results. */
static gboolean
check_results_file (const char *path, const PrismGraph *program, gboolean resume, gboolean overwrite,
                    GError **error)
{
  g_autoptr(PrismResults) previous = NULL;
  g_autoptr(GError) local = NULL;
  g_autofree char *ours = NULL;
  g_autofree char *theirs = NULL;
  GStatBuf st;

  /* Continued, it is read by the strict reader, which says what it is. */
  if (resume)
    return TRUE;
  if (g_lstat (path, &st) != 0)
    {
      if (errno == ENOENT)
        return TRUE;
      return fail_with (error, g_strdup_printf (_("“%s” cannot be used: %s"), path, g_strerror (errno)));
    }
  if (!S_ISREG (st.st_mode))
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED,
                   _("“%s” is not a regular file; the results cannot be saved there"), path);
      return FALSE;
    }
  if (overwrite)
    return TRUE;
  previous = prism_results_load (path, &local);
  if (previous == NULL)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED,
                   _("“%s” is not a results file of prism (%s); --force overwrites it"), path,
                   local->message);
      return FALSE;
    }
  ours = prism_graph_to_data (program, NULL);
  theirs = prism_graph_to_data (prism_results_get_program (previous), NULL);
  if (!g_str_equal (ours, theirs))
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED,
                   _("“%s” holds the results of another program; --force overwrites it"), path);
      return FALSE;
    }
  return TRUE;
}

/* The pid in a lock file, 0 if it holds none. */
static long
lock_holder (const char *lock_path)
{
  g_autofree char *text = NULL;
  char *end = NULL;
  long pid;

  if (!g_file_get_contents (lock_path, &text, NULL, NULL))
    return 0;
  pid = strtol (text, &end, 10);
  if (end == text || pid <= 0)
    return 0;
  return pid;
}

static gboolean
process_exists (long pid)
{
  return kill ((pid_t) pid, 0) == 0 || errno == EPERM;
}

/* Creates the lock file with our pid.  One held by a process that is gone
 * (killed with SIGKILL) is removed and made again, once. */
static gboolean
take_lock (const char *dir, const char *lock_path, GError **error)
{
  for (int attempt = 0; attempt < 2; attempt++)
    {
      g_autofree char *pid = g_strdup_printf ("%ld\n", (long) getpid ());
      int fd = g_open (lock_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
      long holder;

      if (fd >= 0)
        {
          gboolean ok = write (fd, pid, strlen (pid)) == (ssize_t) strlen (pid);
          int saved = errno;

          if (close (fd) != 0 && ok)
            {
              ok = FALSE;
              saved = errno;
            }
          if (!ok)
            {
              g_unlink (lock_path);
              return fail_with (error, g_strdup_printf (_("cannot write in the results folder “%s”: %s"), dir, g_strerror (saved)));
            }
          return TRUE;
        }
      if (errno != EEXIST)
        return fail_with (error, g_strdup_printf (_("cannot write in the results folder “%s”: %s"), dir, g_strerror (errno)));
      holder = lock_holder (lock_path);
      if (holder > 0 && process_exists (holder))
        {
          g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED,
                       _("the results folder “%s” is in use by another search (process %ld); "
                         "choose another --out"), dir, holder);
          return FALSE;
        }
      /* Stale: its writer is gone.  A lock being written this instant
       * (no pid yet) is taken for stale too, at worst once. */
      if (g_unlink (lock_path) != 0 && errno != ENOENT)
        return fail_with (error, g_strdup_printf (_("cannot write in the results folder “%s”: %s"), dir, g_strerror (errno)));
    }
  g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED,
               _("the results folder “%s” is in use by another search"), dir);
  return FALSE;
}

PrismOutDir *
prism_out_dir_open (const char *dir, const PrismGraph *program, gboolean resume, gboolean overwrite,
                    GError **error)
{
  g_autoptr(PrismOutDir) out = NULL;
  g_autofree char *results_path = NULL;
  g_autofree char *lock_path = NULL;

  g_return_val_if_fail (dir != NULL && program != NULL, NULL);
  if (!check_folder (dir, resume, error))
    return NULL;
  results_path = g_build_filename (dir, "results.json", NULL);
  lock_path = g_build_filename (dir, PRISM_OUT_DIR_LOCK_NAME, NULL);
  /* The lock first: another search may be writing results.json now. */
  if (!take_lock (dir, lock_path, error))
    return NULL;
  out = g_new0 (PrismOutDir, 1);
  out->dir = g_strdup (dir);
  out->results_path = g_steal_pointer (&results_path);
  out->lock_path = g_steal_pointer (&lock_path);
  if (!check_results_file (out->results_path, program, resume, overwrite, error))
    return NULL;
  return g_steal_pointer (&out);
}

void
prism_out_dir_close (PrismOutDir *out)
{
  if (out == NULL)
    return;
  /* Only our own lock: never one another process took over. */
  if (lock_holder (out->lock_path) == (long) getpid ())
    g_unlink (out->lock_path);
  g_free (out->dir);
  g_free (out->results_path);
  g_free (out->lock_path);
  g_free (out);
}

const char *
prism_out_dir_get_results_path (PrismOutDir *out)
{
  return out->results_path;
}
