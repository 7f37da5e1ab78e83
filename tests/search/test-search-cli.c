/* test-search-cli.c — `prism search`: bad options, kill and resume, signals, JSON
 *
 * The path of the prism executable is the first argument (meson passes it).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <glib.h>
#include <json-glib/json-glib.h>

#define PROGRAM "swiglu:n=4,d=64"

static const char *prism_path;
static char *tmpdir;

static int
run_search (const char * const *args, char **out, char **err)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  int status = -1;

  g_ptr_array_add (argv, (gpointer) prism_path);
  g_ptr_array_add (argv, (gpointer) "search");
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL,
                               (out ? 0 : G_SPAWN_STDOUT_TO_DEV_NULL) |
                               (err ? 0 : G_SPAWN_STDERR_TO_DEV_NULL),
                               NULL, NULL, out, err, &status, &error));
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (status));
  return WEXITSTATUS (status);
}

static void
test_bad_options (void)
{
  static const char * const cases[][6] = {
    { NULL },
    { "no_such_workload", NULL },
    { PROGRAM, "--mode", "sideways", NULL },
    { PROGRAM, "--threads", "-1", NULL },
    { PROGRAM, "--target", "z80", NULL },
    { PROGRAM, "--time-limit", "-5", NULL },
    { PROGRAM, "--resume", NULL },
    { PROGRAM, "extra", NULL },
    { PROGRAM, "--max-block-ops", "99", NULL },
    { PROGRAM, "--seed", "-3", NULL },
    { PROGRAM, "--no-such-option", NULL },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *out = NULL, *err = NULL;
      int code = run_search (cases[i], &out, &err);

      if (code != 2 || strstr (err, "prism search") == NULL)
        g_error ("case %u: exit %d, stderr “%s”", i, code, err);
    }
}

/* A resume folder from another program is refused with exit code 2. */
static void
test_resume_other_program (void)
{
  g_autofree char *dir = g_build_filename (tmpdir, "other", NULL);
  g_autofree char *out = NULL, *err = NULL;
  const char *first[] = { "rms_norm:n=4,d=64", "--max-kernels", "1", "--max-kernel-ops", "1",
                          "--out", dir, NULL };
  const char *again[] = { "rms_norm:n=4,d=128", "--max-kernels", "1", "--max-kernel-ops", "1",
                          "--out", dir, "--resume", NULL };

  g_assert_cmpint (run_search (first, NULL, NULL), ==, 0);
  g_assert_cmpint (run_search (again, &out, &err), ==, 2);
  g_assert_nonnull (strstr (err, "different program"));
}

static JsonObject *
load (JsonParser *parser, const char *path)
{
  g_autoptr(GError) error = NULL;

  if (!json_parser_load_from_file (parser, path, &error))
    return NULL;
  return json_node_get_object (json_parser_get_root (parser));
}

static GPtrArray *
digests (JsonObject *root)
{
  JsonArray *cands = json_object_get_array_member (root, "candidates");
  GPtrArray *d = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < json_array_get_length (cands); i++)
    g_ptr_array_add (d, g_strdup (json_object_get_string_member (json_array_get_object_element (cands, i),
                                                                 "digest")));
  return d;
}

/* Starts a search into @dir and waits until results.json holds a
 * candidate; returns the child's pid (or 0 if it finished before that). */
static GPid
start_and_wait (const char *dir)
{
  g_autofree char *path = g_build_filename (dir, "results.json", NULL);
  const char *argv[] = { prism_path, "search", PROGRAM, "--threads", "1", "--out", dir, NULL };
  g_autoptr(GError) error = NULL;
  GPid pid;

  g_assert_true (g_spawn_async (NULL, (char **) argv, NULL,
                                G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL |
                                G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &pid, &error));
  g_assert_no_error (error);
  for (guint i = 0; i < 3000; i++)
    {
      g_autoptr(JsonParser) parser = json_parser_new ();
      JsonObject *root = load (parser, path);
      int status;

      if (root != NULL && json_array_get_length (json_object_get_array_member (root, "candidates")) > 0)
        return pid;
      if (waitpid (pid, &status, WNOHANG) == pid)
        return 0;
      g_usleep (5000);
    }
  g_assert_not_reached ();
  return 0;
}

/* Killed mid-run, the folder keeps every candidate already written, and
 * --resume finishes with the candidates of an uninterrupted run. */
static void
test_kill_and_resume (void)
{
  g_autofree char *dir = g_build_filename (tmpdir, "killed", NULL);
  g_autofree char *ref_dir = g_build_filename (tmpdir, "whole", NULL);
  g_autofree char *path = g_build_filename (dir, "results.json", NULL);
  g_autofree char *ref_path = g_build_filename (ref_dir, "results.json", NULL);
  g_autoptr(JsonParser) p1 = json_parser_new ();
  g_autoptr(JsonParser) p2 = json_parser_new ();
  g_autoptr(JsonParser) p3 = json_parser_new ();
  g_autoptr(GPtrArray) before = NULL, after = NULL, whole = NULL;
  const char *resume[] = { PROGRAM, "--threads", "2", "--out", dir, "--resume", NULL };
  const char *uninterrupted[] = { PROGRAM, "--threads", "2", "--out", ref_dir, NULL };
  JsonObject *root;
  GPid pid;
  int status;

  pid = start_and_wait (dir);
  if (pid != 0)
    {
      g_test_message ("killing the search after its first candidates");
      kill (pid, SIGKILL);
      waitpid (pid, &status, 0);
      g_assert_true (WIFSIGNALED (status));
    }
  root = load (p1, path);
  g_assert_nonnull (root);
  before = digests (root);
  g_assert_cmpuint (before->len, >, 0);
  g_test_message ("%u candidates before the kill", before->len);
  if (pid != 0)
    g_assert_false (json_object_get_boolean_member (root, "complete"));

  g_assert_cmpint (run_search (resume, NULL, NULL), ==, 0);
  root = load (p2, path);
  g_assert_true (json_object_get_boolean_member (root, "complete"));
  after = digests (root);
  g_assert_cmpint (run_search (uninterrupted, NULL, NULL), ==, 0);
  whole = digests (load (p3, ref_path));
  g_assert_cmpuint (after->len, ==, whole->len);
  for (guint i = 0; i < after->len; i++)
    g_assert_cmpstr (g_ptr_array_index (after, i), ==, g_ptr_array_index (whole, i));
  /* Nothing found before the kill is lost. */
  for (guint i = 0; i < before->len; i++)
    {
      gboolean kept = FALSE;
      for (guint j = 0; j < after->len && !kept; j++)
        kept = g_str_equal (g_ptr_array_index (before, i), g_ptr_array_index (after, j));
      g_assert_true (kept);
    }
}

/* Ctrl-C stops the search; the results are written, marked as stopped. */
static void
test_sigint (void)
{
  g_autofree char *dir = g_build_filename (tmpdir, "interrupted", NULL);
  g_autofree char *path = g_build_filename (dir, "results.json", NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *root;
  GPid pid = start_and_wait (dir);
  int status;

  if (pid == 0)
    {
      g_test_skip ("the search finished before it could be interrupted");
      return;
    }
  kill (pid, SIGINT);
  waitpid (pid, &status, 0);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);
  root = load (parser, path);
  g_assert_nonnull (root);
  g_assert_cmpstr (json_object_get_string_member (root, "stop_reason"), ==, "stopped");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (root, "candidates")), >, 0);
}

static void
test_json_lines (void)
{
  g_autofree char *dir = g_build_filename (tmpdir, "json", NULL);
  g_autofree char *out = NULL, *err = NULL;
  const char *args[] = { "rms_norm:n=4,d=64", "--json", "--max-kernels", "1", "--max-kernel-ops",
                         "1", "--out", dir, NULL };
  g_auto(GStrv) lines = NULL;
  guint n = 0, verified = 0;
  g_autofree char *last = NULL;

  g_assert_cmpint (run_search (args, &out, &err), ==, 0);
  lines = g_strsplit (out, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autoptr(JsonParser) parser = json_parser_new ();
      g_autoptr(GError) error = NULL;
      JsonObject *o;

      if (*lines[i] == '\0')
        continue;
      g_assert_true (json_parser_load_from_data (parser, lines[i], -1, &error));
      g_assert_no_error (error);
      o = json_node_get_object (json_parser_get_root (parser));
      g_assert_true (json_object_has_member (o, "event"));
      g_assert_true (json_object_has_member (o, "time_s"));
      verified += g_str_equal (json_object_get_string_member (o, "event"), "verified");
      g_free (last);
      last = g_strdup (json_object_get_string_member (o, "event"));
      n++;
    }
  g_assert_cmpuint (n, >, 1);
  g_assert_cmpuint (verified, >, 0);
  g_assert_cmpstr (last, ==, "finished");
}

/* --full-random: every candidate also passed the randomized test at the
 * program's real shapes, recorded beside the small-shape screen. */
static void
test_full_random (void)
{
  g_autofree char *dir = g_build_filename (tmpdir, "full-random", NULL);
  g_autofree char *path = g_build_filename (dir, "results.json", NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  const char *args[] = { "rms_norm:n=4,d=64", "--max-kernels", "1", "--max-kernel-ops", "1",
                         "--full-random", "--out", dir, NULL };
  JsonObject *root;
  JsonArray *cands;

  g_assert_cmpint (run_search (args, NULL, NULL), ==, 0);
  root = load (parser, path);
  g_assert_nonnull (root);
  g_assert_true (json_object_get_boolean_member (json_object_get_object_member (root, "options"),
                                                 "full_random"));
  cands = json_object_get_array_member (root, "candidates");
  g_assert_cmpuint (json_array_get_length (cands), >, 0);
  for (guint i = 0; i < json_array_get_length (cands); i++)
    {
      JsonObject *v = json_object_get_object_member (json_array_get_object_element (cands, i),
                                                     "verification");
      JsonObject *random = json_object_get_object_member (v, "random");

      g_assert_true (json_object_get_boolean_member (random, "ran"));
      g_assert_true (json_object_get_boolean_member (random, "ok"));
      g_assert_cmpuint (json_array_get_length (json_object_get_array_member (random, "seeds")), >, 0);
      g_assert_true (json_object_has_member (v, "screen"));
    }
}

int
main (int argc, char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  if (argc < 2)
    {
      g_printerr ("usage: %s PATH-TO-PRISM\n", argv[0]);
      return 1;
    }
  prism_path = argv[1];
  tmpdir = g_dir_make_tmp ("test-search-cli-XXXXXX", NULL);
  g_test_add_func ("/search-cli/bad-options", test_bad_options);
  g_test_add_func ("/search-cli/resume-other-program", test_resume_other_program);
  g_test_add_func ("/search-cli/kill-and-resume", test_kill_and_resume);
  g_test_add_func ("/search-cli/sigint", test_sigint);
  g_test_add_func ("/search-cli/json-lines", test_json_lines);
  g_test_add_func ("/search-cli/full-random", test_full_random);
  ret = g_test_run ();
  {
    g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", tmpdir);
    if (system (cmd) != 0)
      g_warning ("could not remove %s", tmpdir);
  }
  g_free (tmpdir);
  return ret;
}
