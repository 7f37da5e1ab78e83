/* fuzz-replay.c — runs a fuzz target over files, without libFuzzer
 *
 * The fuzz targets are built two ways: with clang's libFuzzer for the
 * time-bounded fuzzing run (build-aux/fuzz), and with this driver for the
 * core suite, which replays every seed and every input a fuzzing run has
 * found worth keeping (tests/fuzz/corpus) under gcc and the sanitizers.  A
 * crash, an assertion or a sanitizer report fails the test; so does a target
 * that returns non-zero (libFuzzer's convention for "do not keep").
 *
 * Arguments: files or folders (their regular files, not recursively).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <stdio.h>
#include <glib.h>

#include "fuzz-target.h"

static gboolean
replay_file (const char *path, guint *count)
{
  g_autofree char *data = NULL;
  g_autoptr(GError) error = NULL;
  gsize length;

  if (!g_file_get_contents (path, &data, &length, &error))
    {
      g_printerr ("fuzz-replay: %s\n", error->message);
      return FALSE;
    }
  if (LLVMFuzzerTestOneInput ((const guint8 *) data, length) != 0)
    {
      g_printerr ("fuzz-replay: the target rejected %s\n", path);
      return FALSE;
    }
  (*count)++;
  return TRUE;
}

static gboolean
replay_folder (const char *path, guint *count)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GDir) dir = g_dir_open (path, 0, &error);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;
  gboolean ok = TRUE;

  if (dir == NULL)
    {
      g_printerr ("fuzz-replay: %s\n", error->message);
      return FALSE;
    }
  while ((name = g_dir_read_name (dir)) != NULL)
    g_ptr_array_add (names, g_build_filename (path, name, NULL));
  /* Sorted, so that a failure names the same file on every machine. */
  g_ptr_array_sort (names, (GCompareFunc) g_strcmp0);
  for (guint i = 0; i < names->len; i++)
    {
      const char *file = g_ptr_array_index (names, i);
      if (g_file_test (file, G_FILE_TEST_IS_REGULAR))
        ok = replay_file (file, count) && ok;
    }
  return ok;
}

int
main (int argc, char **argv)
{
  gboolean ok = TRUE;
  guint count = 0;

  if (argc < 2)
    {
      g_printerr ("usage: %s FILE-OR-FOLDER...\n", argv[0]);
      return 2;
    }
  LLVMFuzzerInitialize (&argc, &argv);
  for (int i = 1; i < argc; i++)
    ok = (g_file_test (argv[i], G_FILE_TEST_IS_DIR) ? replay_folder (argv[i], &count)
                                                     : replay_file (argv[i], &count)) && ok;
  printf ("%u inputs replayed\n", count);
  if (count == 0)
    {
      g_printerr ("fuzz-replay: no input found\n");
      return 1;
    }
  return ok ? 0 : 1;
}
