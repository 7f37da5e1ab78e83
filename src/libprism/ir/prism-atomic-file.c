/* prism-atomic-file.c — files written whole or not at all
 *
 * A temporary file carries the writer's process id, so that a later run can
 * tell a writer killed with SIGKILL (its file is garbage) from one still
 * writing (its file is about to be renamed).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <glib/gstdio.h>

#include "prism-atomic-file.h"

#define TMP_INFIX ".tmp-"
/* Old temporary files (no process id) are stale after this long: writing
 * one takes well under a second. */
#define OLD_STALE_AFTER_S (60 * 60)

static gboolean
fail (GError **error, const char *what, const char *path, int saved)
{
  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved), "cannot %s “%s”: %s", what, path,
               g_strerror (saved));
  return FALSE;
}

static gboolean
write_all (int fd, const char *data, gsize length)
{
  while (length > 0)
    {
      gssize n = write (fd, data, length);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      data += n;
      length -= (gsize) n;
    }
  return TRUE;
}

gboolean
prism_atomic_file_write (const char *path, const char *data, gsize length, GError **error)
{
  g_autofree char *tmp = g_strdup_printf ("%s" TMP_INFIX "%ld-XXXXXX", path, (long) getpid ());
  gboolean existed = g_file_test (path, G_FILE_TEST_EXISTS);
  int fd, saved;

  g_return_val_if_fail (path != NULL && (data != NULL || length == 0), FALSE);
  fd = g_mkstemp_full (tmp, O_WRONLY | O_CLOEXEC, 0644);
  if (fd < 0)
    return fail (error, "create a temporary file for", path, errno);
  /* Like g_file_set_contents(): the data reaches the disk before the name
   * does when an old file is replaced. */
  if (!write_all (fd, data, length) || (existed && fsync (fd) != 0))
    {
      saved = errno ? errno : EIO;
      close (fd);
      g_unlink (tmp);
      return fail (error, "write", tmp, saved);
    }
  if (close (fd) != 0)
    {
      saved = errno;
      g_unlink (tmp);
      return fail (error, "write", tmp, saved);
    }
  if (g_rename (tmp, path) != 0)
    {
      saved = errno;
      g_unlink (tmp);
      return fail (error, "rename a temporary file to", path, saved);
    }
  return TRUE;
}

static gboolean
process_is_gone (long pid)
{
  if (pid <= 0 || pid == (long) getpid ())
    return FALSE;
  /* EPERM: it runs, as someone else. */
  return kill ((pid_t) pid, 0) != 0 && errno == ESRCH;
}

/* "NAME.tmp-PID-XXXXXX": the process id; 0 if @entry is not one of ours. */
static long
writer_of (const char *entry, const char *base)
{
  gsize n = strlen (base);
  const char *p;
  char *end = NULL;
  long pid;

  if (strncmp (entry, base, n) != 0 || !g_str_has_prefix (entry + n, TMP_INFIX))
    return 0;
  p = entry + n + strlen (TMP_INFIX);
  if (!g_ascii_isdigit (*p))
    return 0;
  pid = strtol (p, &end, 10);
  if (end == NULL || *end != '-' || strlen (end + 1) != 6)
    return 0;
  return pid;
}

/* "NAME.XXXXXX", g_file_set_contents()'s name for its temporary file. */
static gboolean
is_old_temporary (const char *entry, const char *base)
{
  gsize n = strlen (base);

  if (strncmp (entry, base, n) != 0 || entry[n] != '.' || strlen (entry + n + 1) != 6)
    return FALSE;
  for (const char *p = entry + n + 1; *p; p++)
    if (!g_ascii_isalnum (*p))
      return FALSE;
  return TRUE;
}

guint
prism_atomic_file_remove_stale (const char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *base = g_path_get_basename (path);
  g_autoptr(GDir) listing = g_dir_open (dir, 0, NULL);
  const char *entry;
  guint removed = 0;

  if (listing == NULL)
    return 0;
  while ((entry = g_dir_read_name (listing)) != NULL)
    {
      g_autofree char *full = g_build_filename (dir, entry, NULL);
      long pid = writer_of (entry, base);
      GStatBuf st;

      if (pid > 0)
        {
          if (process_is_gone (pid) && g_unlink (full) == 0)
            removed++;
          continue;
        }
      if (is_old_temporary (entry, base) && g_lstat (full, &st) == 0 && S_ISREG (st.st_mode) &&
          (gint64) st.st_mtime + OLD_STALE_AFTER_S < g_get_real_time () / G_USEC_PER_SEC &&
          g_unlink (full) == 0)
        removed++;
    }
  return removed;
}
