/* test-search-cli.c — `prism search`: bad options, kill and resume, signals, JSON,
 * limits as options, the table and summary, slower candidates never best
 *
 * The path of the prism executable is the first argument (meson passes it).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "prism-out-dir.h"
#include "prism-search.h"

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
  guint n = 0, verified = 0, samples = 0;
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
      if (g_str_equal (json_object_get_string_member (o, "event"), "pruned_sample"))
        {
          JsonObject *g = json_object_get_object_member (o, "graph");

          samples++;
          g_assert_cmpint (json_object_get_int_member (o, "depth"), >=, 0);
          g_assert_cmpstr (json_object_get_string_member (o, "reason"), !=, "time");
          g_assert_cmpstr (json_object_get_string_member (o, "step"), !=, "");
          g_assert_cmpstr (json_object_get_string_member (o, "evidence"), !=, "");
          g_assert_true (json_object_has_member (o, "marked_op"));
          g_assert_nonnull (g);
          g_assert_cmpstr (json_object_get_string_member (g, "format"), ==, "prism-graph");
        }
      g_free (last);
      last = g_strdup (json_object_get_string_member (o, "event"));
      n++;
    }
  g_assert_cmpuint (n, >, 1);
  g_assert_cmpuint (verified, >, 0);
  g_assert_cmpuint (samples, >, 0);
  g_assert_cmpuint (samples, <=, PRISM_SEARCH_MAX_SAMPLES);
  g_assert_cmpstr (last, ==, "finished");
}

/* While the one worker decides a candidate that takes seconds (the
 * randomized test at the real shapes of 16 × 8192 × 8192 matmuls), no
 * state is explored: the progress line says what the search is doing
 * instead of "0/s". */
static void
test_progress_deciding (void)
{
  g_autofree char *dir = g_build_filename (tmpdir, "deciding", NULL);
  g_autofree char *err = NULL;
  const char *args[] = { "rms_norm:n=16,d=8192", "--full-random", "--threads", "1",
                         "--time-limit", "2", "--tune-top", "0", "--out", dir, NULL };

  g_assert_cmpint (run_search (args, NULL, &err), <=, 1);
  g_test_message ("%s", err);
  g_assert_nonnull (strstr (err, " states (deciding 1 candidate), "));
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

/* Every search limit is an option, checked against its range (exit 2, a
 * message naming the option). */
static void
test_limit_options (void)
{
  static const char * const cases[][4] = {
    { "--max-kernel-inputs", "0" }, { "--max-kernel-inputs", "9" },
    { "--max-block-outputs", "0" }, { "--max-block-outputs", "9" },
    { "--max-accums", "-2" }, { "--max-accums", "17" },
    { "--max-total-ops", "0" }, { "--max-total-ops", "73" },
    { "--max-grid-dims", "0" }, { "--max-grid-dims", "4" },
    { "--block-threads", "16" }, { "--block-threads", "100" }, { "--block-threads", "2048" },
    { "--max-kernels", "0" }, { "--max-kernels", "5" },
    { "--max-kernel-ops", "9" }, { "--max-block-ops", "1" }, { "--max-variants", "0" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const char *args[] = { PROGRAM, cases[i][0], cases[i][1], NULL };
      g_autofree char *err = NULL;
      int code = run_search (args, NULL, &err);

      if (code != 2 || strstr (err, "prism search") == NULL || strstr (err, cases[i][0]) == NULL)
        g_error ("%s %s: exit %d, stderr “%s”", cases[i][0], cases[i][1], code, err);
    }
}

/* Runs a search of rms_norm (one kernel, one op: a second or so) with
 * @extra options into @name, expecting exit code @expect; returns the
 * results' root (owned by @parser). */
static JsonObject *
search_small (JsonParser *parser, const char *name, const char * const *extra, int expect, char **err)
{
  g_autofree char *dir = g_build_filename (tmpdir, name, NULL);
  g_autofree char *path = g_build_filename (dir, "results.json", NULL);
  g_autoptr(GPtrArray) args = g_ptr_array_new ();
  JsonObject *root;

  g_ptr_array_add (args, (gpointer) "rms_norm:n=4,d=64");
  g_ptr_array_add (args, (gpointer) "--max-kernels");
  g_ptr_array_add (args, (gpointer) "1");
  g_ptr_array_add (args, (gpointer) "--max-kernel-ops");
  g_ptr_array_add (args, (gpointer) "1");
  g_ptr_array_add (args, (gpointer) "--out");
  g_ptr_array_add (args, dir);
  for (guint i = 0; extra != NULL && extra[i] != NULL; i++)
    g_ptr_array_add (args, (gpointer) extra[i]);
  g_ptr_array_add (args, NULL);
  g_assert_cmpint (run_search ((const char * const *) args->pdata, NULL, err), ==, expect);
  root = load (parser, path);
  g_assert_nonnull (root);
  return root;
}

/* The limits given reach the search: recorded in results.json, and a
 * tighter one searches less (rms_norm needs a kernel of two inputs, so
 * with one nothing is verified: exit 1). */
static void
test_limits_reach_search (void)
{
  g_autoptr(JsonParser) p1 = json_parser_new ();
  g_autoptr(JsonParser) p2 = json_parser_new ();
  const char *tight[] = { "--max-kernel-inputs", "1", "--max-block-outputs", "1", "--max-accums", "1",
                          "--max-total-ops", "7", "--max-grid-dims", "2", "--block-threads", "256", NULL };
  JsonObject *dflt = search_small (p1, "limits-default", NULL, 0, NULL);
  JsonObject *lim = search_small (p2, "limits-tight", tight, 1, NULL);
  JsonObject *o = json_object_get_object_member (lim, "options");

  g_assert_cmpint (json_object_get_int_member (o, "max_kernel_inputs"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (o, "max_block_outputs"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (o, "max_accums"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (o, "max_grid_dims"), ==, 2);
  g_assert_cmpint (json_object_get_int_member (o, "block_threads"), ==, 256);
  g_assert_cmpstr (json_object_get_string_member (lim, "fingerprint"), !=,
                   json_object_get_string_member (dflt, "fingerprint"));
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (lim, "stats"), "states"), <,
                   json_object_get_int_member (json_object_get_object_member (dflt, "stats"), "states"));
}

static guint
count_lines (const char *text, const char *start)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  guint n = 0;

  for (guint i = 0; lines[i] != NULL; i++)
    n += g_str_has_prefix (lines[i], start);
  return n;
}

/* One matmul: every candidate is slower than the vendor GEMM.  They stay in
 * results.json, marked, none is best, and the user is told to keep the
 * program (exit 0: candidates were verified). */
static void
test_nothing_faster (void)
{
  g_autofree char *file = g_test_build_filename (G_TEST_DIST, "search", "single-matmul.json", NULL);
  g_autofree char *dir = g_build_filename (tmpdir, "matmul", NULL);
  g_autofree char *path = g_build_filename (dir, "results.json", NULL);
  g_autofree char *err = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  const char *args[] = { file, "--out", dir, NULL };
  JsonObject *root, *stats;
  JsonArray *cands;

  g_assert_cmpint (run_search (args, NULL, &err), ==, 0);
  root = load (parser, path);
  g_assert_nonnull (root);
  cands = json_object_get_array_member (root, "candidates");
  g_assert_cmpuint (json_array_get_length (cands), >, 0);
  for (guint i = 0; i < json_array_get_length (cands); i++)
    {
      JsonObject *c = json_array_get_object_element (cands, i);

      g_assert_cmpfloat (json_object_get_double_member (c, "speedup"), <=, 1.0);
      g_assert_true (json_object_has_member (c, "faster"));
      g_assert_false (json_object_get_boolean_member (c, "faster"));
    }
  g_assert_true (json_object_get_null_member (root, "best"));
  stats = json_object_get_object_member (root, "stats");
  g_assert_cmpint (json_object_get_int_member (stats, "faster"), ==, 0);
  g_assert_nonnull (strstr (err, "No candidate is faster than the program; keep the program."));
  g_assert_null (strstr (err, "best: candidate"));
}

/* The end of a run: a table of the best distinct candidates and a summary
 * with the counts; the per-candidate lines only with --verbose. */
static void
test_table_and_verbose (void)
{
  g_autoptr(JsonParser) p1 = json_parser_new ();
  g_autoptr(JsonParser) p2 = json_parser_new ();
  const char *verbose[] = { "--verbose", NULL };
  g_autofree char *quiet_err = NULL, *verbose_err = NULL;
  JsonObject *quiet = search_small (p1, "table-quiet", NULL, 0, &quiet_err);
  JsonObject *loud = search_small (p2, "table-verbose", verbose, 0, &verbose_err);
  JsonObject *stats = json_object_get_object_member (quiet, "stats");
  gint64 verified = json_object_get_int_member (stats, "verified");
  gint64 distinct = json_object_get_int_member (stats, "distinct");
  g_autofree char *counts = NULL;
  const char *table;
  guint rows = 0;

  g_assert_cmpint (verified, >, 0);
  g_assert_cmpuint (count_lines (quiet_err, "verified candidate "), ==, 0);
  g_assert_cmpuint (count_lines (verbose_err, "verified candidate "), ==,
                    json_object_get_int_member (json_object_get_object_member (loud, "stats"), "verified"));
  table = strstr (quiet_err, "best distinct candidates by predicted time");
  g_assert_nonnull (table);
  g_assert_nonnull (strstr (table, "   id  launches  predicted µs   speedup  verdict     sizes\n"));
  {
    g_auto(GStrv) lines = g_strsplit (strchr (strchr (table, '\n') + 1, '\n') + 1, "\n", -1);

    for (guint i = 0; lines[i] != NULL && g_regex_match_simple ("^ +[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+× +equivalent ",
                                                                lines[i], 0, 0); i++)
      rows++;
  }
  g_assert_cmpuint (rows, ==, MIN (10, distinct));
  counts = g_strdup_printf ("%" G_GINT64_FORMAT " verified, %" G_GINT64_FORMAT " distinct, %"
                            G_GINT64_FORMAT " faster than the program", verified, distinct,
                            json_object_get_int_member (stats, "faster"));
  g_assert_nonnull (strstr (quiet_err, counts));
  g_assert_nonnull (strstr (quiet_err, "  not verified: "));
  g_assert_nonnull (strstr (quiet_err, "  pruned: "));
}

/* stats counts what the candidates say: faster ones, different programs as
 * executed; and the reasons of unknown verdicts. */
static void
test_stats_members (void)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *root = search_small (parser, "stats", NULL, 0, NULL);
  JsonObject *stats = json_object_get_object_member (root, "stats");
  JsonArray *cands = json_object_get_array_member (root, "candidates");
  g_autoptr(GHashTable) executed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  gint64 faster = 0;

  for (guint i = 0; i < json_array_get_length (cands); i++)
    {
      JsonObject *c = json_array_get_object_element (cands, i);
      g_autoptr(JsonGenerator) gen = json_generator_new ();

      g_assert_cmpint (json_object_get_boolean_member (c, "faster"), ==,
                       json_object_get_double_member (c, "speedup") > 1.0);
      faster += json_object_get_boolean_member (c, "faster");
      /* The program as executed, written out canonically. */
      json_generator_set_root (gen, json_object_get_member (c, "graph"));
      g_hash_table_add (executed, json_generator_to_data (gen, NULL));
    }
  g_assert_cmpint (json_object_get_int_member (stats, "faster"), ==, faster);
  g_assert_cmpint (json_object_get_int_member (stats, "distinct"), >=, 1);
  g_assert_cmpint (json_object_get_int_member (stats, "distinct"), <=, g_hash_table_size (executed));
  g_assert_cmpint (json_object_get_int_member (stats, "distinct"), <=,
                   json_object_get_int_member (stats, "verified"));
  g_assert_true (json_object_has_member (stats, "unknown_unproved"));
  g_assert_true (json_object_has_member (stats, "unknown_untested"));
  g_assert_cmpint (json_object_get_int_member (stats, "unknown_unproved") +
                   json_object_get_int_member (stats, "unknown_untested"), <=,
                   json_object_get_int_member (stats, "unknown"));
  if (faster > 0)
    g_assert_cmpfloat (json_object_get_double_member (json_object_get_object_member (root, "best"), "speedup"), >, 1.0);
}

#define SMALL "--max-kernels", "1", "--max-kernel-ops", "1"

/* `--out X` checked before the search: exit 2 naming X, nothing searched
 * (before: exit 0, "results: X/results.json", a warning per save and
 * nothing written). */
static void
test_out_checked (void)
{
  g_autofree char *base = g_build_filename (tmpdir, "outs", NULL);
  g_autofree char *file = g_build_filename (base, "file", NULL);
  g_autofree char *fifo = g_build_filename (base, "fifo", NULL);
  g_autofree char *loop = g_build_filename (base, "loop", NULL);
  g_autofree char *ro = g_build_filename (base, "ro", NULL);
  g_autofree char *holder = g_build_filename (base, "dir-results", NULL);
  g_autofree char *json_dir = g_build_filename (holder, "results.json", NULL);
  g_autofree char *missing = g_build_filename (base, "missing", NULL);
  const char *bad[] = { file, fifo, loop, ro, holder };

  g_assert_cmpint (g_mkdir_with_parents (json_dir, 0755), ==, 0);
  g_assert_true (g_file_set_contents (file, "x", -1, NULL));
  g_assert_cmpint (mkfifo (fifo, 0644), ==, 0);
  g_assert_cmpint (symlink ("loop", loop), ==, 0);
  g_assert_cmpint (g_mkdir (ro, 0555), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      const char *args[] = { PROGRAM, SMALL, "--out", bad[i], NULL };
      g_autofree char *err = NULL;
      int code;

      if (bad[i] == ro && geteuid () == 0)
        {
          g_test_message ("root writes in a read-only folder: that case is not tested");
          continue;
        }
      code = run_search (args, NULL, &err);
      if (code != 2 || strstr (err, bad[i]) == NULL || strstr (err, "results:") != NULL)
        g_error ("--out %s: exit %d, stderr “%s”", bad[i], code, err);
    }
  {
    const char *empty[] = { PROGRAM, SMALL, "--out", "", NULL };
    const char *resume[] = { PROGRAM, SMALL, "--out", missing, "--resume", NULL };
    g_autofree char *err1 = NULL, *err2 = NULL;

    g_assert_cmpint (run_search (empty, NULL, &err1), ==, 2);
    g_assert_nonnull (strstr (err1, "--out"));
    /* Before: a fresh search, silently. */
    g_assert_cmpint (run_search (resume, NULL, &err2), ==, 2);
    g_assert_nonnull (strstr (err2, missing));
    g_assert_false (g_file_test (missing, G_FILE_TEST_EXISTS));
  }
}

/* The results of another program, or a file that is not prism's, are not
 * overwritten without --force (before: replaced by the new search's). */
static void
test_out_other_program (void)
{
  g_autofree char *dir = g_build_filename (tmpdir, "other-out", NULL);
  g_autofree char *path = g_build_filename (dir, "results.json", NULL);
  g_autofree char *theirs = NULL, *after = NULL, *err = NULL, *err2 = NULL;
  const char *first[] = { "rms_norm:n=4,d=64", SMALL, "--out", dir, NULL };
  const char *other[] = { PROGRAM, SMALL, "--out", dir, NULL };
  const char *forced[] = { PROGRAM, SMALL, "--out", dir, "--force", NULL };

  g_assert_cmpint (run_search (first, NULL, NULL), ==, 0);
  g_assert_true (g_file_get_contents (path, &theirs, NULL, NULL));
  g_assert_cmpint (run_search (other, NULL, &err), ==, 2);
  g_assert_nonnull (strstr (err, path));
  g_assert_nonnull (strstr (err, "--force"));
  g_assert_true (g_file_get_contents (path, &after, NULL, NULL));
  g_assert_cmpstr (after, ==, theirs);
  /* The same program again is a new search of it: no --force needed. */
  g_assert_cmpint (run_search (first, NULL, NULL), ==, 0);
  g_assert_true (g_file_set_contents (path, "{\"mine\": 1}\n", -1, NULL));
  g_assert_cmpint (run_search (other, NULL, &err2), ==, 2);
  g_assert_nonnull (strstr (err2, "not a results file"));
  g_assert_cmpint (run_search (forced, NULL, NULL), ==, 0);
}

/* A disk that fills up (RLIMIT_FSIZE: every save fails with EFBIG): exit
 * 1 naming results.json, and the previous results stay as they were
 * (before: exit 0, "results: …", the file whatever the last save left). */
static void
test_out_full_disk (void)
{
  g_autofree char *dir = g_build_filename (tmpdir, "full", NULL);
  g_autofree char *path = g_build_filename (dir, "results.json", NULL);
  g_autofree char *before = NULL, *after = NULL, *cmd = NULL, *err = NULL;
  const char *first[] = { PROGRAM, SMALL, "--out", dir, NULL };
  const char *argv[] = { "/bin/sh", "-c", NULL, NULL };
  g_autoptr(GError) error = NULL;
  int status;

  g_assert_cmpint (run_search (first, NULL, NULL), ==, 0);
  g_assert_true (g_file_get_contents (path, &before, NULL, NULL));
  /* SIGXFSZ ignored: a write past the limit fails with EFBIG, as on a
   * full disk.  stderr is a pipe, which the limit does not cover. */
  cmd = g_strdup_printf ("trap '' XFSZ; ulimit -f 4 && exec '%s' search %s --max-kernels 1 "
                         "--max-kernel-ops 1 --max-variants 8 --out '%s'", prism_path, PROGRAM, dir);
  argv[2] = cmd;
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL,
                               NULL, &err, &status, &error));
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (status));
  if (WEXITSTATUS (status) != 1 || strstr (err, "could not be saved") == NULL || strstr (err, path) == NULL)
    g_error ("exit %d, stderr “%s”", WEXITSTATUS (status), err);
  g_assert_null (strstr (err, "results: "));
  g_assert_true (g_file_get_contents (path, &after, NULL, NULL));
  g_assert_cmpstr (after, ==, before);
}

static GPid
dead_pid (void)
{
  const char *argv[] = { "/bin/true", NULL };
  g_autoptr(GError) error = NULL;
  GPid pid;
  int status;

  g_assert_true (g_spawn_async (NULL, (char **) argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL,
                                &pid, &error));
  g_assert_no_error (error);
  waitpid (pid, &status, 0);
  return pid;
}

/* A folder another search holds (it has the lock's flock()) is refused,
 * naming that process; a lock file of a process that is gone (killed with
 * SIGKILL, or a zombie) is taken over (before: both searches wrote the
 * file). */
static void
test_out_locked (void)
{
  g_autofree char *dir = g_build_filename (tmpdir, "locked", NULL);
  g_autofree char *lock = g_build_filename (dir, PRISM_OUT_DIR_LOCK_NAME, NULL);
  g_autofree char *path = g_build_filename (dir, "results.json", NULL);
  g_autofree char *live = g_strdup_printf ("%ld\n", (long) getpid ());
  g_autofree char *dead = g_strdup_printf ("%ld\n", (long) dead_pid ());
  g_autofree char *err = NULL, *held = NULL;
  const char *args[] = { PROGRAM, SMALL, "--out", dir, NULL };
  int fd;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  /* Held as a search holds it: flock() and its pid. */
  fd = g_open (lock, O_RDWR | O_CREAT, 0644);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (flock (fd, LOCK_EX | LOCK_NB), ==, 0);
  g_assert_cmpint (write (fd, live, strlen (live)), ==, (gssize) strlen (live));
  g_assert_cmpint (run_search (args, NULL, &err), ==, 2);
  g_assert_nonnull (strstr (err, dir));
  g_strchomp (live);
  g_assert_nonnull (strstr (err, live));
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_get_contents (lock, &held, NULL, NULL));
  g_assert_cmpstr (g_strchomp (held), ==, live);

  close (fd);
  /* Left by a search killed with SIGKILL: a pid, no flock(). */
  g_assert_true (g_file_set_contents (lock, dead, -1, NULL));
  g_assert_cmpint (run_search (args, NULL, NULL), ==, 0);
  g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
  /* Released at the end. */
  g_assert_false (g_file_test (lock, G_FILE_TEST_EXISTS));
}

/* A symlink loop in a folder of $PRISM_GPU_DATA_PATH ("ln -s . d/a.json")
 * costs one warning; the other files of the folder are read (before: every
 * command walked about 2^40 paths, a million warnings a minute). */
static void
test_gpu_data_path_loop (void)
{
  g_autofree char *dir = g_build_filename (tmpdir, "gpus", NULL);
  g_autofree char *a = g_build_filename (dir, "a.json", NULL);
  g_autofree char *b = g_build_filename (dir, "b.json", NULL);
  g_autofree char *mine = g_build_filename (dir, "mine.json", NULL);
  g_autofree char *out = g_build_filename (tmpdir, "gpus-out", NULL);
  g_autofree char *h100 = g_test_build_filename (G_TEST_DIST, "..", "data", "gpus", "h100.json", NULL);
  g_autofree char *text = NULL, *renamed = NULL, *err = NULL, *env = NULL, *cmd = NULL;
  const char *argv[] = { "/bin/sh", "-c", NULL, NULL };
  g_autoptr(GError) error = NULL;
  int status;
  char *at;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_assert_cmpint (symlink (".", a), ==, 0);
  g_assert_cmpint (symlink (".", b), ==, 0);
  g_assert_true (g_file_get_contents (h100, &text, NULL, NULL));
  at = strstr (text, "\"name\": \"h100\"");
  g_assert_nonnull (at);
  renamed = g_strdup_printf ("%.*s\"name\": \"mine\"%s", (int) (at - text), text, at + strlen ("\"name\": \"h100\""));
  g_assert_true (g_file_set_contents (mine, renamed, -1, NULL));
  /* timeout(1) turns the hang of before into exit 124. */
  cmd = g_strdup_printf ("PRISM_GPU_DATA_PATH='%s' exec timeout 60 '%s' search %s --max-kernels 1 "
                         "--max-kernel-ops 1 --target mine --tune-top 0 --out '%s'", dir, prism_path, PROGRAM, out);
  argv[2] = cmd;
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL,
                               &err, &status, &error));
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (status));
  if (WEXITSTATUS (status) != 0 || strstr (err, "a.json is a folder") == NULL)
    g_error ("exit %d, stderr “%.2000s”", WEXITSTATUS (status), err);
  g_assert_cmpuint (count_lines (err, "(prism search"), <=, 4);
}

/* -1 is not "the default" (before: accepted as it for every option below);
 * verify --time-limit 1e13 is refused, not an overflow into a deadline in
 * the past; bench --device -1 names --device (before: it blamed
 * --candidates, --timeout and --min-time). */
static void
test_minus_one (void)
{
  static const char * const options[] = { "--max-kernel-inputs", "--max-accums", "--max-block-ops",
                                          "--max-total-ops", "--tune-top", "--tune-min-time", "--time-limit" };
  static const char * const others[][8] = {
    { "verify", "swiglu:n=4,d=64", "swiglu:n=4,d=64", "--max-nodes", "-1", NULL },
    { "verify", "swiglu:n=4,d=64", "swiglu:n=4,d=64", "--time-limit", "1e13", NULL },
    { "bench", "swiglu:n=4,d=64", "--device", "-1", NULL },
  };
  static const char * const named[] = { "--max-nodes", "--time-limit", "--device" };

  for (guint i = 0; i < G_N_ELEMENTS (options); i++)
    {
      const char *args[] = { PROGRAM, options[i], "-1", NULL };
      g_autofree char *err = NULL;
      int code = run_search (args, NULL, &err);

      if (code != 2 || strstr (err, options[i]) == NULL)
        g_error ("%s -1: exit %d, stderr “%s”", options[i], code, err);
    }
  for (guint i = 0; i < G_N_ELEMENTS (others); i++)
    {
      g_autoptr(GPtrArray) argv = g_ptr_array_new ();
      g_autofree char *err = NULL;
      g_autoptr(GError) error = NULL;
      int status;

      g_ptr_array_add (argv, (gpointer) prism_path);
      for (guint j = 0; others[i][j] != NULL; j++)
        g_ptr_array_add (argv, (gpointer) others[i][j]);
      g_ptr_array_add (argv, NULL);
      g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL,
                                   NULL, &err, &status, &error));
      g_assert_no_error (error);
      if (!WIFEXITED (status) || WEXITSTATUS (status) != 2 || strstr (err, named[i]) == NULL)
        g_error ("%s %s: status %d, stderr “%s”", others[i][0], named[i], status, err);
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
  g_test_add_func ("/search-cli/progress-deciding", test_progress_deciding);
  g_test_add_func ("/search-cli/limit-options", test_limit_options);
  g_test_add_func ("/search-cli/limits-reach-search", test_limits_reach_search);
  g_test_add_func ("/search-cli/nothing-faster", test_nothing_faster);
  g_test_add_func ("/search-cli/table-and-verbose", test_table_and_verbose);
  g_test_add_func ("/search-cli/stats-members", test_stats_members);
  g_test_add_func ("/search-cli/out-checked", test_out_checked);
  g_test_add_func ("/search-cli/out-other-program", test_out_other_program);
  g_test_add_func ("/search-cli/out-full-disk", test_out_full_disk);
  g_test_add_func ("/search-cli/out-locked", test_out_locked);
  g_test_add_func ("/search-cli/gpu-data-path-loop", test_gpu_data_path_loop);
  g_test_add_func ("/search-cli/minus-one", test_minus_one);
  ret = g_test_run ();
  {
    g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", tmpdir);
    if (system (cmd) != 0)
      g_warning ("could not remove %s", tmpdir);
  }
  g_free (tmpdir);
  return ret;
}
