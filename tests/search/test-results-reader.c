/* test-results-reader.c — prism_results_load*(): every member checked, the
 * limits that keep memory bounded, the select function; atomic writes
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <glib/gstdio.h>

#include "prism-atomic-file.h"
#include "prism-error.h"
#include "prism-pipeline.h"
#include "prism-results.h"
#include "prism-workload.h"

static char *tmpdir;
static char *good;          /* the text of a finished search's results.json */
static gsize good_len;

static void
make_good (void)
{
  g_autoptr(PrismGraph) prog = prism_workload_build ("rms_norm", "n=4,d=64", NULL);
  g_autofree char *dir = g_build_filename (tmpdir, "good", NULL);
  g_autofree char *path = g_build_filename (dir, "results.json", NULL);
  g_autoptr(PrismPipeline) p = NULL;
  g_autoptr(GError) error = NULL;
  PrismPipelineOptions o;

  prism_pipeline_options_init (&o);
  o.search.n_threads = 2;
  o.search.time_limit_s = 0;
  o.tune_top = 0;
  o.out_dir = dir;
  p = prism_pipeline_new (prog, &o, &error);
  g_assert_no_error (error);
  g_assert_true (prism_pipeline_run (p, &error));
  g_assert_true (g_file_get_contents (path, &good, &good_len, NULL));
}

/* @good with the first occurrence of @from replaced by @to. */
static char *
edit (const char *from, const char *to)
{
  const char *at = strstr (good, from);

  if (at == NULL)
    g_error ("results.json has no “%s”", from);
  return g_strdup_printf ("%.*s%s%s", (int) (at - good), good, to, at + strlen (from));
}

static void
expect_refused (const char *text, gssize len, int code, const char *message)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismResults) r = prism_results_load_from_data (text, len < 0 ? strlen (text) : (gsize) len, &error);

  g_assert_null (r);
  g_assert_error (error, PRISM_ERROR, code);
  if (strstr (error->message, message) == NULL)
    g_error ("message “%s” lacks “%s”", error->message, message);
}

static void
test_good (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismResults) r = prism_results_load_from_data (good, good_len, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (prism_results_get_candidates (r)->len, >, 1);
  g_assert_cmpuint (prism_results_get_n_candidates_in_file (r), ==, prism_results_get_candidates (r)->len);
  g_assert_cmpstr (prism_results_get_mode (r), ==, "symbolic");
  g_assert_cmpuint (prism_results_get_done_tasks (r)->len, >, 0);
}

/* Each member that export, bench and --resume act on is checked. */
static void
test_members (void)
{
  static const struct
  {
    const char *from, *to;
    int code;
    const char *message;
  } cases[] = {
    { "\"mode\" : \"symbolic\"", "\"mode\" : \"sideways\"", PRISM_ERROR_PARSE, "“mode” is “sideways”" },
    { "\"mode\" : \"symbolic\"", "\"mode\" : 1", PRISM_ERROR_PARSE, "“mode” is not a string" },
    { "\"target\" : \"h100\"", "\"target\" : \"h100;rm\"", PRISM_ERROR_PARSE, "“target” is not the name" },
    { "\"fingerprint\" : \"", "\"fingerprint\" : \"a;", PRISM_ERROR_PARSE, "“fingerprint” is not a word" },
    { "\"version\" : 1", "\"version\" : 2", PRISM_ERROR_VERSION, "version 2 is not supported" },
    { "\"format\" : \"prism-results\"", "\"format\" : \"prism-graph\"", PRISM_ERROR_PARSE, "not a prism-results file" },
    { "\"progress\" : {\n    \"tasks\" : ", "\"progress\" : {\"tasks\" : 2000000, \"x\" : ", PRISM_ERROR_LIMIT,
      "“progress.tasks” is not a number from 0 to 1048576" },
    { "\"done\" : [", "\"done\" : [[0, 2147483647], ", PRISM_ERROR_PARSE, "“progress.done[0]” is not a range of the" },
    { "\"done\" : [", "\"done\" : [[0, 0], [0, 0], ", PRISM_ERROR_PARSE, "lists task 0 twice" },
    { "\"done\" : [", "\"done\" : [[{}, 1], ", PRISM_ERROR_PARSE, "is not a range" },
    { "\"done\" : [", "\"done\" : [7, ", PRISM_ERROR_PARSE, "not a [first, last] pair" },
    { "{\"id\":1,", "{\"id\":0,", PRISM_ERROR_PARSE, "candidates[0]: “id” is not a number from 1 to" },
    { "{\"id\":1,", "{\"id\":\"1\",", PRISM_ERROR_PARSE, "“id” is not a number" },
    { "\"digest\":\"", "\"digest\":\"g", PRISM_ERROR_PARSE, "“digest” is not 32 hex digits" },
    { "\"verdict\":\"equivalent\"", "\"verdict\":\"unknown\"", PRISM_ERROR_PARSE, "“verdict” is “unknown”, not “equivalent”" },
    { "\"speedup\":", "\"speedup\":-1,\"x\":", PRISM_ERROR_PARSE, "“speedup” is not a number from 0 up" },
    { "\"predicted_us\":", "\"predicted_us\":\"fast\",\"x\":", PRISM_ERROR_PARSE, "“predicted_us” is not a number from 0 up" },
    { "\"order\":[", "\"order\":[-1,", PRISM_ERROR_PARSE, "“order” is not two numbers" },
    { "\"equivalent\":[", "\"equivalent\":{},\"e\":[", PRISM_ERROR_PARSE, "“equivalent” is not an array" },
    { "\"equivalent\":[", "\"equivalent\":[{\"digest\":\"x\",\"kernels\":1,\"order\":[0,0]}],\"e\":[",
      PRISM_ERROR_PARSE, "candidate 1: equivalent[0] is not an object with a 32-hex-digit “digest”" },
    { "\"equivalent\":[", "\"equivalent\":[{\"digest\":\"0123456789abcdef0123456789abcdef\",\"kernels\":1,"
      "\"order\":[0,0],\"predicted_us\":-2}],\"e\":[", PRISM_ERROR_PARSE,
      "equivalent[0]: “predicted_us” is not a number from 0 up" },
    { "\"verification\":{", "\"verification\":[],\"v\":{", PRISM_ERROR_PARSE, "“verification” is not an object" },
    { "\"symbolic_graph\":{\"format\":\"prism-graph\",\"version\":1,\"name\":\"rms_norm\"",
      "\"symbolic_graph\":{\"format\":\"prism-graph\",\"version\":1,\"name\":\"\\u001b[31m\"",
      PRISM_ERROR_PARSE, "candidate 1: symbolic_graph: field “name”: holds the control character U+001B" },
    { "\"program\" : {", "\"program\" : {\"x\": \"\\u0000\", \"y\": ", PRISM_ERROR_PARSE, "“\\u0000” (NUL) in a string is not accepted" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = edit (cases[i].from, cases[i].to);

      g_test_message ("case %u: %s", i, cases[i].message);
      expect_refused (text, -1, cases[i].code, cases[i].message);
    }

  /* Counters of the wrong type read as nothing, never as a critical. */
  {
    g_autofree char *text = edit ("\"states_by_depth\" : [", "\"states_by_depth\" : [{}, \"x\", ");
    g_autoptr(PrismResults) r = prism_results_load_from_data (text, strlen (text), NULL);
    g_assert_nonnull (r);
  }
}

/* The limits that keep a large file's memory that of one candidate. */
static void
test_limits (void)
{
  g_autoptr(GString) many = g_string_new ("{\"format\": \"prism-results\", \"version\": 1, \"candidates\": [");
  g_autoptr(GString) head = g_string_new (NULL);
  g_autoptr(GString) cand = g_string_new (NULL);
  g_autofree char *name = NULL;
  g_autofree char *text = NULL;

  /* More candidates than allowed: refused before any is parsed. */
  for (guint i = 0; i <= PRISM_RESULTS_MAX_CANDIDATES; i++)
    g_string_append (many, i ? ",{}" : "{}");
  g_string_append (many, "]}");
  expect_refused (many->str, many->len, PRISM_ERROR_LIMIT, "more than 65536 candidates");

  /* Everything but the candidates: 8 MiB at most. */
  g_string_append (head, "\"options\" : {\"pad\": \"");
  for (guint i = 0; i < PRISM_RESULTS_MAX_HEAD_SIZE / 8 + 1; i++)
    g_string_append (head, "padding!");
  g_string_append (head, "\"}, \"x\" : ");
  text = edit ("\"options\" : ", head->str);
  expect_refused (text, -1, PRISM_ERROR_LIMIT, "everything but the candidates has");
  g_clear_pointer (&text, g_free);

  /* One candidate: 1 MiB at most. */
  g_string_append (cand, "{\"pad\":\"");
  for (guint i = 0; i < PRISM_RESULTS_MAX_CANDIDATE_SIZE / 8 + 1; i++)
    g_string_append (cand, "padding!");
  g_string_append (cand, "\",\"id\":1,");
  text = edit ("{\"id\":1,", cand->str);
  expect_refused (text, -1, PRISM_ERROR_LIMIT, "candidates[0] has");
  g_clear_pointer (&text, g_free);

  /* A 10 MB program name made a 94 MB results file: names are short (and
   * the document around the candidates is bounded anyway). */
  name = g_strnfill (10 * 1024 * 1024, 'n');
  for (guint i = 0; i < 2; i++)
    {
      g_autofree char *named = g_strdup_printf ("\"name\" : \"%s\"", i == 0 ? name : name + strlen (name) - 129);
      text = edit ("\"name\" : \"rms_norm\"", named);
      expect_refused (text, -1, PRISM_ERROR_LIMIT,
                      i == 0 ? "everything but the candidates has" : "program: field “name”: longer than 128 characters");
      g_clear_pointer (&text, g_free);
    }
  {
    g_autofree char *long_source = g_strnfill (4097, 's');
    g_autofree char *src = g_strdup_printf ("\"source\" : \"%s\", \"x\" : ", long_source);
    text = edit ("\"source\" : ", src);
    expect_refused (text, -1, PRISM_ERROR_LIMIT, "“source” is longer than 4096 characters");
  }
}

typedef struct
{
  guint n;
  guint keep_id;
} Seen;

static void
keep_one (const PrismCandidateSummary *all, guint n, gboolean *keep, gpointer user_data)
{
  Seen *seen = user_data;

  seen->n = n;
  for (guint i = 0; i < n; i++)
    {
      g_assert_cmpuint (all[i].index, ==, i);
      g_assert_cmpuint (strlen (all[i].digest), ==, 32);
      g_assert_cmpfloat (all[i].speedup, >, 0);
      keep[i] = all[i].id == seen->keep_id;
    }
}

/* Only the candidates picked are built and kept. */
static void
test_selected (void)
{
  g_autofree char *path = g_build_filename (tmpdir, "selected.json", NULL);
  g_autoptr(PrismResults) all = prism_results_load_from_data (good, good_len, NULL);
  g_autoptr(PrismResults) one = NULL;
  g_autoptr(GError) error = NULL;
  Seen seen = { 0, 2 };

  g_assert_true (g_file_set_contents (path, good, (gssize) good_len, NULL));
  one = prism_results_load_selected (path, keep_one, &seen, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (seen.n, ==, prism_results_get_candidates (all)->len);
  g_assert_cmpuint (prism_results_get_candidates (one)->len, ==, 1);
  g_assert_cmpuint (((PrismCandidate *) g_ptr_array_index (prism_results_get_candidates (one), 0))->id, ==, 2);
  g_assert_cmpuint (prism_results_get_n_candidates_in_file (one), ==, seen.n);
  /* Errors name the file. */
  g_assert_true (g_file_set_contents (path, "{} {}", -1, NULL));
  g_clear_pointer (&one, prism_results_free);
  one = prism_results_load (path, &error);
  g_assert_null (one);
  g_assert_true (g_str_has_prefix (error->message, path));
  g_unlink (path);
}

/* Temporary files carry the writer's pid; those of dead writers go. */
/* @good with the 32 digits after the @n-th "digest":" of a candidate
 * (a line starting with {"id":N,) replaced by @digest. */
static char *
with_digest (guint n, const char *digest)
{
  g_autofree char *start = g_strdup_printf ("{\"id\":%u,\"digest\":\"", n);
  char *text = g_strdup (good);
  char *at = strstr (text, start);

  g_assert_nonnull (at);
  memcpy (at + strlen (start), digest, 32);
  return text;
}

static double
first_speedup (PrismResults *r)
{
  return ((PrismCandidate *) g_ptr_array_index (prism_results_get_candidates (r), 0))->speedup;
}

/* Predicted times and speedups are the cost model's, never the file's
 * (before: a speedup of 1e300 was read and written back, and export took
 * that candidate for the best); a candidate without its sizes, two of one
 * id or one digest, and an all-zero digest are refused (before: accepted). */
static void
test_identities_and_figures (void)
{
  g_autoptr(PrismResults) honest = prism_results_load_from_data (good, good_len, NULL);
  g_autofree char *digest1 = NULL;
  double speedup;

  g_assert_nonnull (honest);
  speedup = first_speedup (honest);
  g_assert_cmpfloat (speedup, >, 0);
  {
    g_autofree char *text = edit ("\"speedup\":", "\"speedup\":1e300,\"was\":");
    g_autoptr(GError) error = NULL;
    g_autoptr(PrismResults) r = prism_results_load_from_data (text, strlen (text), &error);

    g_assert_no_error (error);
    g_assert_cmpfloat (first_speedup (r), ==, speedup);
  }
  {
    g_autofree char *text = edit ("\"predicted_us\":", "\"predicted_us\":1e-300,\"was\":");
    g_autoptr(PrismResults) r = prism_results_load_from_data (text, strlen (text), NULL);
    PrismCandidate *c;

    g_assert_nonnull (r);
    c = g_ptr_array_index (prism_results_get_candidates (r), 0);
    g_assert_cmpfloat (c->predicted_us, ==,
                       ((PrismCandidate *) g_ptr_array_index (prism_results_get_candidates (honest), 0))->predicted_us);
    g_assert_cmpfloat (first_speedup (r), ==, speedup);
  }
  {
    g_autofree char *text = edit ("\"params\":{", "\"params_were\":{");
    expect_refused (text, -1, PRISM_ERROR_PARSE, "candidate 1: its sizes (“params”) do not fit it");
  }
  {
    g_autofree char *text = edit ("{\"id\":2,\"digest\"", "{\"id\":1,\"digest\"");
    expect_refused (text, -1, PRISM_ERROR_PARSE, "two candidates have the id 1");
  }
  {
    g_autofree char *text = with_digest (1, "00000000000000000000000000000000");
    expect_refused (text, -1, PRISM_ERROR_PARSE, "“digest” is all zeros");
  }
  {
    const char *at = strstr (good, "{\"id\":1,\"digest\":\"");
    g_autofree char *text = NULL;
    g_autofree char *path = g_build_filename (tmpdir, "same-digest.json", NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(PrismResults) r = NULL;
    Seen seen = { 0, 1 };

    digest1 = g_strndup (at + strlen ("{\"id\":1,\"digest\":\""), 32);
    text = with_digest (2, digest1);
    expect_refused (text, -1, PRISM_ERROR_PARSE, "has the digest of an earlier candidate");
    /* The same through the select path export takes. */
    g_assert_true (g_file_set_contents (path, text, -1, NULL));
    r = prism_results_load_selected (path, keep_one, &seen, &error);
    g_assert_null (r);
    g_assert_error (error, PRISM_ERROR, PRISM_ERROR_PARSE);
  }
  {
    g_autofree char *text = edit ("\"target\" : \"h100\"", "\"target\" : \"z80\"");
    expect_refused (text, -1, PRISM_ERROR_PARSE, "“target” “z80” is not a GPU");
  }
}

static void
test_atomic_file (void)
{
  g_autofree char *dir = g_build_filename (tmpdir, "atomic", NULL);
  g_autofree char *path = g_build_filename (dir, "results.json", NULL);
  g_autofree char *blocker = g_build_filename (dir, "folder.json", NULL);
  g_autofree char *inside = g_build_filename (blocker, "x", NULL);
  g_autofree char *dead = NULL, *mine = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_autoptr(GDir) listing = NULL;
  GPid child;
  int status;

  g_assert_cmpint (g_mkdir_with_parents (blocker, 0755), ==, 0);
  g_assert_true (g_file_set_contents (inside, "", 0, NULL));
  g_assert_true (prism_atomic_file_write (path, "[1]", 3, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_assert_cmpstr (text, ==, "[1]");
  /* A failed rename (over a folder that is not empty) leaves no temporary. */
  g_assert_false (prism_atomic_file_write (blocker, "[2]", 3, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);
  listing = g_dir_open (dir, 0, NULL);
  for (const char *e; (e = g_dir_read_name (listing)) != NULL;)
    g_assert_null (strstr (e, ".tmp-"));

  {
    const char *argv[] = { "/bin/true", NULL };
    g_assert_true (g_spawn_async (NULL, (char **) argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &child, NULL));
    g_assert_cmpint (waitpid (child, &status, 0), ==, child);
  }
  dead = g_strdup_printf ("%s.tmp-%d-QwErTy", path, (int) child);
  mine = g_strdup_printf ("%s.tmp-%d-AsDfGh", path, (int) getpid ());
  g_assert_true (g_file_set_contents (dead, "{", -1, NULL));
  g_assert_true (g_file_set_contents (mine, "{", -1, NULL));
  g_assert_cmpuint (prism_atomic_file_remove_stale (path), ==, 1);
  g_assert_false (g_file_test (dead, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (mine, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (path, G_FILE_TEST_EXISTS));
  g_unlink (mine);
  g_unlink (path);
  g_unlink (inside);
  g_rmdir (blocker);
  g_rmdir (dir);
}

int
main (int argc, char *argv[])
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  tmpdir = g_dir_make_tmp ("test-results-reader-XXXXXX", NULL);
  make_good ();
  g_test_add_func ("/results-reader/good", test_good);
  g_test_add_func ("/results-reader/members", test_members);
  g_test_add_func ("/results-reader/limits", test_limits);
  g_test_add_func ("/results-reader/selected", test_selected);
  g_test_add_func ("/results-reader/atomic-file", test_atomic_file);
  g_test_add_func ("/results-reader/identities-and-figures", test_identities_and_figures);
  ret = g_test_run ();
  {
    g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", tmpdir);
    if (system (cmd) != 0)
      g_warning ("could not remove %s", tmpdir);
  }
  g_free (tmpdir);
  g_free (good);
  return ret;
}
