/* test-limits-cli.c — `prism check`, `run`, `verify` and `search` on inputs
 * past the engine's limits: a 60 000-op chain, shapes beyond memory, a grid
 * of 10^9 blocks, a loop of 2^31 - 1 iterations, and a search stopped by a
 * signal.  Each must end with exit code 0, 1 or 2 and one clear message —
 * never a signal, never running on.
 *
 * The time bounds are generous (a loaded 2-core CI machine): they tell
 * "ends" from "does not end", they do not measure speed.
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
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

/* Longer than anything here takes when it works, far shorter than what it
 * took when it did not (hours). */
#define BOUND_S 120

static const char *prism_path;
static char *tmpdir;

typedef struct
{
  int status;      /* as waitpid() gives it */
  char *out;
  char *err;
} Result;

static void
result_clear (Result *r)
{
  g_clear_pointer (&r->out, g_free);
  g_clear_pointer (&r->err, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Result, result_clear)

static char *
slurp (const char *path)
{
  char *text = NULL;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    text = g_strdup ("");
  return text;
}

/* Starts `prism ARGS…` with its output in files; returns the pid. */
static GPid
start (const char * const *args, const char *out_path, const char *err_path)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *cmd = NULL;
  const char *sh[] = { "/bin/sh", "-c", NULL, NULL };
  GPid pid;
  GString *line = g_string_new ("exec");

  g_ptr_array_add (argv, (gpointer) prism_path);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  for (guint i = 0; i < argv->len; i++)
    {
      g_autofree char *quoted = g_shell_quote (g_ptr_array_index (argv, i));
      g_string_append_printf (line, " %s", quoted);
    }
  {
    g_autofree char *o = g_shell_quote (out_path), *e = g_shell_quote (err_path);
    g_string_append_printf (line, " >%s 2>%s", o, e);
  }
  cmd = g_string_free (line, FALSE);
  sh[2] = cmd;
  g_assert_true (g_spawn_async (NULL, (char **) sh, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL,
                                &pid, &error));
  g_assert_no_error (error);
  return pid;
}

/* Waits at most @bound_s for @pid; kills it and fails the test if it runs on. */
static int
wait_bounded (GPid pid, guint bound_s, const char *what)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) bound_s * G_USEC_PER_SEC;
  int status;

  for (;;)
    {
      if (waitpid (pid, &status, WNOHANG) == pid)
        return status;
      if (g_get_monotonic_time () > deadline)
        {
          kill (pid, SIGKILL);
          waitpid (pid, &status, 0);
          g_error ("%s: still running after %u s", what, bound_s);
        }
      g_usleep (20 * 1000);
    }
}

static Result
run_prism (const char * const *args)
{
  static guint serial;
  g_autofree char *name = g_strdup_printf ("run-%u", serial++);
  g_autofree char *out_path = g_build_filename (tmpdir, name, NULL);
  g_autofree char *err_path = g_strconcat (out_path, ".err", NULL);
  g_autofree char *what = g_strjoinv (" ", (char **) args);
  Result r = { 0, NULL, NULL };

  r.status = wait_bounded (start (args, out_path, err_path), BOUND_S, what);
  r.out = slurp (out_path);
  r.err = slurp (err_path);
  return r;
}

/* Exited normally with one of @codes (-1 terminated). */
static void
assert_exit (const Result *r, const char *what, const int *codes)
{
  if (WIFSIGNALED (r->status))
    g_error ("%s: killed by signal %d; stderr: %.2000s", what, WTERMSIG (r->status), r->err);
  g_assert_true (WIFEXITED (r->status));
  for (guint i = 0; codes[i] >= 0; i++)
    if (WEXITSTATUS (r->status) == codes[i])
      return;
  g_error ("%s: exit %d; stdout: %.2000s; stderr: %.2000s", what, WEXITSTATUS (r->status), r->out,
           r->err);
}

static guint
count_lines (const char *text)
{
  guint n = 0;

  for (const char *p = text; *p; p++)
    n += *p == '\n';
  return n;
}

static const int exit_ok[] = { 0, -1 };
static const int exit_verdict[] = { 0, 1, -1 };
static const int exit_bad[] = { 2, -1 };

/* A program of @n ops, as the prism-graph reader takes it: X → neg → neg …
 * (@alternate: exp, add x, exp, add x …; @swapped: the adds read x second). */
static char *
write_chain (const char *name, guint n, gboolean alternate, gboolean swapped)
{
  g_autofree char *file = g_strdup_printf ("%s.json", name);
  char *path = g_build_filename (tmpdir, file, NULL);
  GString *s = g_string_new ("{\"format\": \"prism-graph\", \"version\": 1, \"name\": \"chain\", \"ops\": [\n"
                             "{\"op\": \"input\", \"name\": \"X\", \"outputs\": [{\"id\": 0, \"shape\": [4, 8], \"dtype\": \"f32\"}]}");
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < n; i++)
    {
      const char *op = !alternate ? "neg" : i % 2 == 0 ? "exp" : "add";

      if (!alternate || i % 2 == 0)
        g_string_append_printf (s, ",\n{\"op\": \"%s\", \"inputs\": [%u]", op, i);
      else if (swapped)
        g_string_append_printf (s, ",\n{\"op\": \"%s\", \"inputs\": [0, %u]", op, i);
      else
        g_string_append_printf (s, ",\n{\"op\": \"%s\", \"inputs\": [%u, 0]", op, i);
      g_string_append_printf (s, ", \"outputs\": [{\"id\": %u, \"shape\": [4, 8], \"dtype\": \"f32\"}]}", i + 1);
    }
  g_string_append_printf (s, ",\n{\"op\": \"output\", \"name\": \"Y\", \"inputs\": [%u]}\n]}\n", n);
  g_assert_true (g_file_set_contents (path, s->str, -1, &error));
  g_assert_no_error (error);
  g_string_free (s, TRUE);
  return path;
}

/* A custom kernel summing exp(X) over a grid of @blocks × @iters loop
 * iterations, every block reading all of X[@d0, @d1]. */
static char *
write_grid (const char *name, gint64 blocks, gint64 iters, gint64 d0, gint64 d1)
{
  g_autofree char *file = g_strdup_printf ("%s.json", name);
  char *path = g_build_filename (tmpdir, file, NULL);
  g_autofree char *shape = g_strdup_printf ("[%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "]", d0, d1);
  g_autofree char *text = g_strdup_printf (
    "{\"format\": \"prism-graph\", \"version\": 1, \"name\": \"%s\", \"ops\": [\n"
    "{\"op\": \"input\", \"name\": \"X\", \"outputs\": [{\"id\": 0, \"shape\": %s, \"dtype\": \"f32\"}]},\n"
    "{\"op\": \"kernel\", \"inputs\": [0], \"outputs\": [{\"id\": 1, \"shape\": %s, \"dtype\": \"f32\"}],\n"
    " \"block\": {\"grid\": [%" G_GINT64_FORMAT "], \"block_threads\": 128, \"forloop\": %" G_GINT64_FORMAT ", \"ops\": [\n"
    "  {\"op\": \"input\", \"input\": 0, \"imap\": [-1], \"fmap\": -1, \"outputs\": [{\"id\": 0, \"shape\": %s, \"dtype\": \"f32\"}]},\n"
    "  {\"op\": \"exp\", \"inputs\": [0], \"outputs\": [{\"id\": 1, \"shape\": %s, \"dtype\": \"f32\"}]},\n"
    "  {\"op\": \"accum\", \"inputs\": [1], \"outputs\": [{\"id\": 2, \"shape\": %s, \"dtype\": \"f32\"}]},\n"
    "  {\"op\": \"output\", \"inputs\": [2], \"omap\": [-1]}]}},\n"
    "{\"op\": \"output\", \"name\": \"Y\", \"inputs\": [1]}\n]}\n",
    name, shape, shape, blocks, iters, shape, shape, shape);
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_set_contents (path, text, -1, &error));
  g_assert_no_error (error);
  return path;
}

/* X[shape] → neg → Y. */
static char *
write_big (const char *name, const char *shape)
{
  g_autofree char *file = g_strdup_printf ("%s.json", name);
  char *path = g_build_filename (tmpdir, file, NULL);
  g_autofree char *text = g_strdup_printf (
    "{\"format\": \"prism-graph\", \"version\": 1, \"name\": \"%s\", \"ops\": [\n"
    "{\"op\": \"input\", \"name\": \"X\", \"outputs\": [{\"id\": 0, \"shape\": %s, \"dtype\": \"f32\"}]},\n"
    "{\"op\": \"neg\", \"inputs\": [0], \"outputs\": [{\"id\": 1, \"shape\": %s, \"dtype\": \"f32\"}]},\n"
    "{\"op\": \"output\", \"name\": \"Y\", \"inputs\": [1]}\n]}\n", name, shape, shape);
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_set_contents (path, text, -1, &error));
  g_assert_no_error (error);
  return path;
}

/* The 60 000-op chains through every command: the reader takes them, so
 * the engine must too, or refuse them with a limit error.  The search and
 * a verify with room for a proof crashed (stack overflow). */
static void
test_chain (void)
{
  g_autofree char *neg = write_chain ("neg", 60000, FALSE, FALSE);
  g_autofree char *alt = write_chain ("alt", 60000, TRUE, FALSE);
  g_autofree char *swapped = write_chain ("swapped", 60000, TRUE, TRUE);
  g_autofree char *out_dir = g_build_filename (tmpdir, "chain-search", NULL);
  const char *programs[] = { neg, alt };

  for (guint i = 0; i < G_N_ELEMENTS (programs); i++)
    {
      const char *check[] = { "check", programs[i], NULL };
      const char *run[] = { "run", programs[i], NULL };
      const char *verify[] = { "verify", programs[i], programs[i], NULL };
      const char *search[] = { "search", programs[i], "--time-limit", "5", "--threads", "2",
                               "--tune-top", "0", "--out", out_dir, NULL };
      g_auto(Result) c = run_prism (check);
      g_auto(Result) r = run_prism (run);
      g_auto(Result) v = run_prism (verify);
      g_auto(Result) s = run_prism (search);

      assert_exit (&c, "check", exit_ok);
      assert_exit (&r, "run", exit_ok);
      g_assert_nonnull (strstr (r.out, "Y: shape [4, 8]"));
      assert_exit (&v, "verify", exit_verdict);
      assert_exit (&s, "search", exit_bad);
      /* One message: the limit, naming the program's size and the limit. */
      g_assert_true (g_str_has_prefix (s.err, "prism search: "));
      g_assert_nonnull (strstr (s.err, "60002 ops"));
      g_assert_cmpuint (count_lines (s.err), ==, 1);
    }
  /* Proving the swapped chain equal needs a proof 60 000 congruences deep. */
  {
    const char *verify[] = { "verify", alt, swapped, "--max-nodes", "5000000", "--no-random", NULL };
    g_auto(Result) v = run_prism (verify);

    assert_exit (&v, "verify --max-nodes", exit_verdict);
    g_assert_nonnull (strstr (v.out, "verdict: "));
  }
}

/* Shapes that pass `check` but no memory holds: refused before anything is
 * allocated (GLib aborted with exit 133 on the allocation, or a wrapped
 * element count gave a zero checksum). */
static void
test_huge_shapes (void)
{
  g_autofree char *tib = write_big ("tib", "[1048576, 1048576]");
  g_autofree char *wrap = write_big ("wrap", "[1048576, 1048576, 1048576, 1048576]");
  g_autofree char *gib = write_big ("gib", "[16384, 16384]");
  const char *files[] = { tib, wrap };

  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      const char *check[] = { "check", files[i], NULL };
      const char *run[] = { "run", files[i], NULL };
      const char *verify[] = { "verify", files[i], files[i], NULL };
      g_auto(Result) c = run_prism (check);
      g_auto(Result) r = run_prism (run);
      g_auto(Result) v = run_prism (verify);

      assert_exit (&c, "check", exit_ok);
      assert_exit (&r, "run", exit_bad);
      g_assert_nonnull (strstr (r.err, "prism run: "));
      g_assert_nonnull (strstr (r.err, "“X”"));
      g_assert_nonnull (strstr (r.err, "bytes"));
      assert_exit (&v, "verify", exit_verdict);
      g_assert_nonnull (strstr (v.out, "memory budget"));
      /* The search's cost model multiplies sizes: refused up front (the
       * lowering overflowed a signed product, UBSan said). */
      {
        g_autofree char *dir = g_build_filename (tmpdir, "huge-search", NULL);
        const char *search[] = { "search", files[i], "--time-limit", "5", "--tune-top", "0",
                                 "--out", dir, NULL };
        g_auto(Result) s = run_prism (search);

        assert_exit (&s, "search", exit_bad);
        g_assert_true (g_str_has_prefix (s.err, "prism search: tensor 0 "));
        g_assert_nonnull (strstr (s.err, "more elements than the search takes"));
        g_assert_cmpuint (count_lines (s.err), ==, 1);
      }
    }
  /* 2 GiB of doubles, within any default budget but not within 1 GiB. */
  {
    const char *run[] = { "run", gib, "--max-memory", "1G", NULL };
    const char *verify[] = { "verify", gib, gib, "--max-memory", "1G", NULL };
    g_auto(Result) r = run_prism (run);
    g_auto(Result) v = run_prism (verify);

    assert_exit (&r, "run --max-memory", exit_bad);
    g_assert_nonnull (strstr (r.err, "memory budget of 1073741824 bytes"));
    assert_exit (&v, "verify --max-memory", exit_verdict);
    g_assert_nonnull (strstr (v.out, "memory budget of 1073741824 bytes"));
  }
}

/* --max-memory and --max-work: bad values are usage errors; too small ones
 * refuse a workload, big enough ones let it run. */
static void
test_budget_options (void)
{
  static const char * const bad[][4] = {
    { "--max-memory", "0" }, { "--max-memory", "-5M" }, { "--max-memory", "12Q" },
    { "--max-work", "lots" }, { "--max-work", "0" }, { "--max-work", "1e30" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      const char *run[] = { "run", "rms_norm:n=4,d=64", bad[i][0], bad[i][1], NULL };
      const char *verify[] = { "verify", "rms_norm:n=4,d=64", "rms_norm:n=4,d=64@reference",
                               bad[i][0], bad[i][1], NULL };
      g_auto(Result) r = run_prism (run);
      g_auto(Result) v = run_prism (verify);

      assert_exit (&r, "run with a bad budget", exit_bad);
      g_assert_nonnull (strstr (r.err, bad[i][0]));
      assert_exit (&v, "verify with a bad budget", exit_bad);
      g_assert_nonnull (strstr (v.err, bad[i][0]));
    }
  {
    const char *small[] = { "run", "rms_norm:n=4,d=64", "--max-memory", "1K", NULL };
    const char *little[] = { "run", "rms_norm:n=4,d=64", "--max-work", "1k", NULL };
    const char *enough[] = { "run", "rms_norm:n=4,d=64", "--max-memory", "64MiB", "--max-work",
                             "1G", NULL };
    const char *verify[] = { "verify", "rms_norm:n=4,d=64", "rms_norm:n=4,d=64@reference",
                             "--max-work", "1k", NULL };
    g_auto(Result) a = run_prism (small);
    g_auto(Result) b = run_prism (little);
    g_auto(Result) c = run_prism (enough);
    g_auto(Result) v = run_prism (verify);

    assert_exit (&a, "run --max-memory 1K", exit_bad);
    g_assert_nonnull (strstr (a.err, "memory budget of 1024 bytes"));
    assert_exit (&b, "run --max-work 1k", exit_bad);
    g_assert_nonnull (strstr (b.err, "work budget of 1000"));
    assert_exit (&c, "run with enough budget", exit_ok);
    assert_exit (&v, "verify --max-work 1k", exit_verdict);
    g_assert_nonnull (strstr (v.out, "work budget of 1000"));
  }
}

/* A grid of 10^9 blocks and a loop of 2^31 - 1 iterations ran for hours:
 * the work budget refuses them at once. */
static void
test_huge_grid (void)
{
  g_autofree char *grid = write_grid ("grid", 1000000000, 1, 4, 8);
  g_autofree char *tiny = write_grid ("tiny-tiles", 1000000000, 1, 1, 1);
  g_autofree char *loop = write_grid ("loop", 1, G_MAXINT32, 4, 8);
  const char *files[] = { grid, tiny, loop };

  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      const char *check[] = { "check", files[i], NULL };
      const char *run[] = { "run", files[i], NULL };
      const char *verify[] = { "verify", files[i], files[i], NULL };
      g_auto(Result) c = run_prism (check);
      g_auto(Result) r = run_prism (run);
      g_auto(Result) v = run_prism (verify);

      assert_exit (&c, "check", exit_ok);
      assert_exit (&r, "run", exit_bad);
      g_assert_nonnull (strstr (r.err, "work budget"));
      g_assert_nonnull (strstr (r.err, "op 1 (kernel)"));
      assert_exit (&v, "verify", exit_verdict);
      g_assert_nonnull (strstr (v.out, "work budget"));
    }
}

static JsonObject *
load (JsonParser *parser, const char *path)
{
  g_autoptr(GError) error = NULL;

  if (!json_parser_load_from_file (parser, path, &error))
    g_error ("%s: %s", path, error->message);
  return json_node_get_object (json_parser_get_root (parser));
}

/* A search whose candidates take seconds each to check (the randomized
 * test at real shapes of 16 × 8192 × 8192 matmuls): it kept verifying the
 * sGraph at hand for minutes after a SIGTERM or SIGINT.  The signal goes
 * 1.5 s in and once the search has a candidate to decide (plus a second to
 * get into its checks), so that a worker is busy with one; the search must
 * stop soon and keep what it found, marked as stopped. */
static void
stop_with (int signal_number, const char *name)
{
  g_autofree char *dir = g_build_filename (tmpdir, name, NULL);
  g_autofree char *results = g_build_filename (dir, "results.json", NULL);
  g_autofree char *out_path = g_build_filename (tmpdir, "stop.out", NULL);
  g_autofree char *err_path = g_build_filename (tmpdir, "stop.err", NULL);
  const char *args[] = { "search", "rmsnorm_mlp:n=16,d=8192", "--full-random", "--time-limit", "300",
                         "--threads", "2", "--tune-top", "0", "--json", "--out", dir, NULL };
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GRegex) deciding = g_regex_new ("\"map_candidates\":[1-9]", 0, 0, NULL);
  g_autofree char *err = NULL;
  JsonObject *root;
  GPid pid = start (args, out_path, err_path);
  gint64 give_up = g_get_monotonic_time () + 200 * G_USEC_PER_SEC;
  int status;

  g_usleep (500 * 1000);
  for (;;)
    {
      g_autofree char *out = slurp (out_path);

      if (g_regex_match (deciding, out, 0, NULL))
        break;
      if (waitpid (pid, &status, WNOHANG) == pid)
        g_error ("%s: the search ended before it had a candidate", name);
      if (g_get_monotonic_time () > give_up)
        {
          kill (pid, SIGKILL);
          waitpid (pid, &status, 0);
          g_error ("%s: no candidate in 200 s", name);
        }
      g_usleep (50 * 1000);
    }
  g_usleep (1000 * 1000);
  kill (pid, signal_number);
  status = wait_bounded (pid, 20, name);
  err = slurp (err_path);
  if (!WIFEXITED (status))
    g_error ("%s: killed by signal %d; stderr: %s", name, WTERMSIG (status), err);
  g_assert_cmpint (WEXITSTATUS (status), <=, 1);
  g_assert_nonnull (strstr (err, "stopping"));
  root = load (parser, results);
  g_assert_false (json_object_get_boolean_member (root, "complete"));
  g_assert_cmpstr (json_object_get_string_member (root, "stop_reason"), ==, "stopped");
}

static void
test_search_sigterm (void)
{
  stop_with (SIGTERM, "sigterm");
}

static void
test_search_sigint (void)
{
  stop_with (SIGINT, "sigint");
}

/* The same search with a short time limit ends soon after it, however
 * long its current candidate would take. */
static void
test_search_time_limit (void)
{
  g_autofree char *dir = g_build_filename (tmpdir, "time-limit", NULL);
  g_autofree char *results = g_build_filename (dir, "results.json", NULL);
  g_autofree char *out_path = g_build_filename (tmpdir, "limit.out", NULL);
  g_autofree char *err_path = g_build_filename (tmpdir, "limit.err", NULL);
  const char *args[] = { "search", "rmsnorm_mlp:n=16,d=8192", "--full-random", "--time-limit", "3",
                         "--threads", "2", "--tune-top", "0", "--out", dir, NULL };
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *root;
  int status = wait_bounded (start (args, out_path, err_path), 30, "search --time-limit 3");

  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), <=, 1);
  root = load (parser, results);
  g_assert_false (json_object_get_boolean_member (root, "complete"));
  g_assert_cmpstr (json_object_get_string_member (root, "stop_reason"), ==, "time limit");
  /* The summary says the best candidate is only the best so far (issue 22). */
  {
    g_autofree char *err = slurp (err_path);
    if (strstr (err, "the time budget of 3 s ran out") == NULL)
      g_error ("search --time-limit 3 does not say its budget ran out:\n%s", err);
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
  tmpdir = g_dir_make_tmp ("test-limits-cli-XXXXXX", NULL);
  g_test_add_func ("/limits-cli/chain", test_chain);
  g_test_add_func ("/limits-cli/huge-shapes", test_huge_shapes);
  g_test_add_func ("/limits-cli/budget-options", test_budget_options);
  g_test_add_func ("/limits-cli/huge-grid", test_huge_grid);
  g_test_add_func ("/limits-cli/search-sigterm", test_search_sigterm);
  g_test_add_func ("/limits-cli/search-sigint", test_search_sigint);
  g_test_add_func ("/limits-cli/search-time-limit", test_search_time_limit);
  ret = g_test_run ();
  {
    g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", tmpdir);
    if (system (cmd) != 0)
      g_warning ("could not remove %s", tmpdir);
  }
  g_free (tmpdir);
  return ret;
}
