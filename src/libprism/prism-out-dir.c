/* prism-out-dir.c — checking and locking the folder of a search's results
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>
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
  int lock_fd;         /* holds the flock() while the folder is ours */
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
        return fail_with (error, g_strdup_printf (_("the results folder “%s” cannot be used: %s"),
                                                  dir, g_strerror (saved)));
      if (resume)
        {
          g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED,
                       _("cannot resume from “%s”: there is no such folder"), dir);
          return FALSE;
        }
      if (g_mkdir_with_parents (dir, 0755) != 0)
        return fail_with (error, g_strdup_printf (_("cannot create the results folder “%s”: %s"),
                                                  dir, g_strerror (errno)));
      if (g_stat (dir, &st) != 0)
        return fail_with (error, g_strdup_printf (_("the results folder “%s” cannot be used: %s"),
                                                  dir, g_strerror (errno)));
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

/* The pid a lock file names, 0 if it names none. */
static long
lock_holder (int fd)
{
  char text[32];
  char *end = NULL;
  ssize_t n = pread (fd, text, sizeof text - 1, 0);
  long pid;

  if (n <= 0)
    return 0;
  text[n] = '\0';
  pid = strtol (text, &end, 10);
  return end == text || pid <= 0 ? 0 : pid;
}

/* Whether @fd is the file @path names now. */
static gboolean
is_current (int fd, const char *path)
{
  GStatBuf a, b;

  return fstat (fd, &a) == 0 && g_lstat (path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* Locks @lock_path with flock(), which the kernel lets go of when its
 * process ends however it ends (a SIGKILL, a zombie never reaped), so a
 * stale lock file is simply taken over; it then holds our pid, for the
 * message a second search gets.  Returns the open file, or -1. */
static int
take_lock (const char *dir, const char *lock_path, int attempts, GError **error)
{
  g_autofree char *pid = g_strdup_printf ("%ld\n", (long) getpid ());
  int fd = g_open (lock_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  int saved;

  if (fd < 0)
    {
      fail_with (error, g_strdup_printf (_("cannot write in the results folder “%s”: %s"), dir,
                                         g_strerror (errno)));
      return -1;
    }
  if (flock (fd, LOCK_EX | LOCK_NB) != 0)
    {
      long holder = errno == EWOULDBLOCK ? lock_holder (fd) : 0;

      saved = errno;
      close (fd);
      if (holder > 0)
        g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED,
                     _("the results folder “%s” is in use by another search (process %ld); "
                       "choose another --out"), dir, holder);
      else if (saved == EWOULDBLOCK)
        g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED,
                     _("the results folder “%s” is in use by another search"), dir);
      else
        fail_with (error, g_strdup_printf (_("cannot lock the results folder “%s”: %s"), dir,
                                           g_strerror (saved)));
      return -1;
    }
  if (!is_current (fd, lock_path))
    {
      /* Locked a file its holder removed as it ended: take the new one. */
      close (fd);
      if (attempts > 0)
        return take_lock (dir, lock_path, attempts - 1, error);
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED,
                   _("the results folder “%s” is in use by another search"), dir);
      return -1;
    }
  if (ftruncate (fd, 0) != 0 || pwrite (fd, pid, strlen (pid), 0) != (ssize_t) strlen (pid))
    {
      saved = errno;
      close (fd);
      fail_with (error, g_strdup_printf (_("cannot write in the results folder “%s”: %s"), dir,
                                         g_strerror (saved)));
      return -1;
    }
  return fd;
}

PrismOutDir *
prism_out_dir_open (const char *dir, const PrismGraph *program, gboolean resume, gboolean overwrite,
                    GError **error)
{
  g_autoptr(PrismOutDir) out = NULL;
  g_autofree char *results_path = NULL;
  g_autofree char *lock_path = NULL;
  int fd;

  g_return_val_if_fail (dir != NULL && program != NULL, NULL);
  if (!check_folder (dir, resume, error))
    return NULL;
  results_path = g_build_filename (dir, "results.json", NULL);
  lock_path = g_build_filename (dir, PRISM_OUT_DIR_LOCK_NAME, NULL);
  /* The lock first: another search may be writing results.json now. */
  if ((fd = take_lock (dir, lock_path, 3, error)) < 0)
    return NULL;
  out = g_new0 (PrismOutDir, 1);
  out->lock_fd = fd;
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
  /* Removed while still locked: nobody else can hold it now. */
  g_unlink (out->lock_path);
  close (out->lock_fd);
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
