/* test-verify-cli.c — `prism verify`: verdicts, evidence, exit codes
 *
 * The path of the prism executable is the first argument (meson passes it).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>
#include <sys/wait.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "mutate.h"
#include "prism-graph-json.h"
#include "prism-workload.h"
#include "verify-common.h"

#define RMS "rms_norm:n=4,d=128"

static const char *prism_path;
static char *tmpdir;

static int
run_verify (const char * const *args, char **out, char **err)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  int status = -1;

  g_ptr_array_add (argv, (gpointer) prism_path);
  g_ptr_array_add (argv, (gpointer) "verify");
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                               out, err, &status, &error));
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (status));
  return WEXITSTATUS (status);
}

/* Saves @graph (taken) as @name in the temporary folder; returns the path. */
static char *
save (PrismGraph *graph, const char *name)
{
  g_autoptr(PrismGraph) g = graph;
  g_autoptr(GError) error = NULL;
  char *path = g_build_filename (tmpdir, name, NULL);

  g_assert_nonnull (g);
  g_assert_true (prism_graph_save (g, NULL, path, &error));
  g_assert_no_error (error);
  return path;
}

static PrismGraph *
first_mutant (const char *name, const char *params, MutKind kind, PrismOpKind at)
{
  g_autoptr(PrismGraph) ref = prism_workload_build_reference (name, params, NULL);
  g_autoptr(GArray) sites = mut_enumerate (ref);
  const PrismGraph *body = NULL;
  int op = first_block_op (ref, at, &body);

  for (guint i = 0; i < sites->len; i++)
    {
      const Mutation *m = &g_array_index (sites, Mutation, i);
      PrismGraph *g;
      if (m->kind == kind && m->op == op && (g = mut_apply (ref, m)) != NULL)
        return g;
    }
  g_assert_not_reached ();
  return NULL;
}

static void
test_equivalent (void)
{
  const char *args[] = { RMS, RMS "@reference", NULL };
  g_autofree char *out = NULL, *err = NULL;

  g_assert_cmpint (run_verify (args, &out, &err), ==, 0);
  g_assert_cmpstr (err, ==, "");
  g_assert_true (g_str_has_prefix (out, "verdict: equivalent\n"));
  g_assert_nonnull (strstr (out, "\nformal: proved in "));
  g_assert_nonnull (strstr (out, "  rules: matmul-pp-inner"));
  g_assert_nonnull (strstr (out, "\nrandom: agrees on seeds 1, 1001, 2001;"));
}

static void
test_json (void)
{
  const char *args[] = { "--json", "--seeds", "2", "--seed", "5", RMS, RMS "@reference", NULL };
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonObject *o, *r;
  JsonArray *seeds;

  g_assert_cmpint (run_verify (args, &out, &err), ==, 0);
  g_assert_true (json_parser_load_from_data (parser, out, -1, &error));
  g_assert_no_error (error);
  o = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpstr (json_object_get_string_member (o, "verdict"), ==, "equivalent");
  g_assert_true (json_object_get_boolean_member (json_object_get_object_member (o, "formal"), "proved"));
  r = json_object_get_object_member (o, "random");
  seeds = json_object_get_array_member (r, "seeds");
  g_assert_cmpuint (json_array_get_length (seeds), ==, 2);
  g_assert_cmpint (json_array_get_int_element (seeds, 0), ==, 5);
  g_assert_cmpint (json_array_get_int_element (seeds, 1), ==, 1005);
}

static void
test_files (void)
{
  g_autofree char *wrong = save (first_mutant ("rms_norm", "n=4,d=128", MUT_ACCUM_KIND, PRISM_OP_ACCUM_RMS),
                                 "wrong.json");
  g_autofree char *twice = save (first_mutant ("norm_transformer", "n=4,d=16", MUT_DUPLICATE,
                                               PRISM_OP_RMS_NORM), "twice.json");
  g_autofree char *symbolic = save (symbolic_rms_norm (4, 128), "symbolic.json");
  g_autofree char *program = save (prism_workload_build ("rms_norm", "n=4,d=128", NULL), "program.json");
  const char *a_wrong[] = { RMS, wrong, NULL };
  const char *a_twice[] = { "norm_transformer:n=4,d=16", twice, NULL };
  const char *a_symbolic[] = { program, symbolic, NULL };
  const char *a_other[] = { RMS, "swiglu:n=4,d=256", NULL };
  g_autofree char *out = NULL, *err = NULL;

  g_assert_cmpint (run_verify (a_wrong, &out, &err), ==, 1);
  g_assert_true (g_str_has_prefix (out, "verdict: not-equivalent\n"));
  g_assert_nonnull (strstr (out, "\nformal: not proved, saturated"));
  g_assert_nonnull (strstr (out, "\nrandom: differs on seeds 1;"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  /* True (rms_norm is idempotent) but not provable with the rules. */
  g_assert_cmpint (run_verify (a_twice, &out, &err), ==, 1);
  g_assert_true (g_str_has_prefix (out, "verdict: unknown\n"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  /* Symbolic sizes: proved as they are, tested with sizes it picks. */
  g_assert_cmpint (run_verify (a_symbolic, &out, &err), ==, 0);
  g_assert_true (g_str_has_prefix (out, "verdict: equivalent\n"));
  g_assert_nonnull (strstr (out, "\n  sizes: gx=2, F=4\n"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (run_verify (a_other, &out, &err), ==, 1);
  g_assert_nonnull (strstr (out, "Not equivalent: the candidate has 3 inputs, the reference 2."));
}

/* The one-kernel flash attention of the online softmax against the
 * built-in program's file, as a user would run it: proved with the rules of
 * group 13; with the numerator's rescale left out it is refused. */
static void
test_online_softmax (void)
{
  g_autofree char *prog = g_test_build_filename (G_TEST_DIST, "..", "data", "workloads",
                                                 "attention_safe.json", NULL);
  g_autofree char *flash = g_test_build_filename (G_TEST_DIST, "verify", "graphs",
                                                  "attention_safe-online.json", NULL);
  g_autofree char *wrong = g_test_build_filename (G_TEST_DIST, "verify", "graphs",
                                                  "attention_safe-online-no-rescale-wrong.json", NULL);
  const char *a_right[] = { prog, flash, NULL };
  const char *a_wrong[] = { prog, wrong, NULL };
  g_autofree char *out = NULL, *err = NULL;

  g_assert_cmpint (run_verify (a_right, &out, &err), ==, 0);
  g_assert_true (g_str_has_prefix (out, "verdict: equivalent\n"));
  g_assert_nonnull (strstr (out, "online-matmul"));
  g_assert_nonnull (strstr (out, "online-exp"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (run_verify (a_wrong, &out, &err), ==, 1);
  g_assert_true (g_str_has_prefix (out, "verdict: not-equivalent\n"));
  g_assert_nonnull (strstr (out, "\nformal: not proved, saturated"));
  g_assert_nonnull (strstr (out, "\nrandom: differs on seeds 1;"));
}

/* A dtype that differs is a different interface, also without the
 * randomized test (which would see the difference in the values). */
static void
test_dtypes (void)
{
  g_autofree char *w = g_test_build_filename (G_TEST_DIST, "verify", "graphs", "rms_norm-w-bf16.json", NULL);
  const char *args[] = { "--no-random", RMS, w, NULL };
  g_autofree char *out = NULL, *err = NULL;

  g_assert_cmpint (run_verify (args, &out, &err), ==, 1);
  g_assert_true (g_str_has_prefix (out, "verdict: not-equivalent\n"));
  g_assert_nonnull (strstr (out, "input 1 (W) of the candidate is bf16, the reference's is f16"));
}

/* A proof alone is not "equivalent" unless --no-random asked for it. */
static void
test_random_cannot_run (void)
{
  g_autofree char *huge = g_test_build_filename (G_TEST_DIST, "verify", "graphs",
                                                 "rms_norm-unused-huge-kernel.json", NULL);
  const char *both[] = { RMS, huge, NULL };
  const char *formal[] = { "--no-random", RMS, huge, NULL };
  g_autofree char *out = NULL, *err = NULL, *out2 = NULL, *err2 = NULL;

  g_assert_cmpint (run_verify (both, &out, &err), ==, 1);
  g_assert_true (g_str_has_prefix (out, "verdict: unknown\nProved, but the randomized test could not run: "));
  g_assert_nonnull (strstr (out, "\nrandom: did not run: the candidate does not run: "));
  g_assert_cmpint (run_verify (formal, &out2, &err2), ==, 0);
  g_assert_true (g_str_has_prefix (out2, "verdict: equivalent\n"));
}

static void
test_options (void)
{
  const char *a_formal[] = { "--no-random", "--proof", "lora:n=4,d=128,r=8,o=128",
                             "lora:n=4,d=128,r=8,o=128@reference", NULL };
  const char *a_limit[] = { "--no-random", "--max-nodes", "20", "gqa:b=2,q=128,kv=1152,dh=4",
                            "gqa:b=2,q=128,kv=1152,dh=4@reference", NULL };
  g_autofree char *out = NULL, *err = NULL;

  g_assert_cmpint (run_verify (a_formal, &out, &err), ==, 0);
  g_assert_null (strstr (out, "\nrandom:"));
  g_assert_nonnull (strstr (out, "the randomized test did not run (skipped)"));
  g_assert_nonnull (strstr (out, "\nproof:\noutput 0:\n(combine "));
  g_assert_nonnull (strstr (out, "[combine-partition]\n"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  /* Not proved within the limit, nothing else ran: 1, not 0. */
  g_assert_cmpint (run_verify (a_limit, &out, &err), ==, 1);
  g_assert_true (g_str_has_prefix (out, "verdict: unknown\n"));
  g_assert_nonnull (strstr (out, "not proved, node limit"));
}

static void
test_bad_input (void)
{
  g_autofree char *symbolic = save (symbolic_rms_norm (4, 128), "symbolic-ref.json");
  g_autofree char *broken = g_build_filename (tmpdir, "broken.json", NULL);
  static const char * const usage[][4] = {
    { RMS, NULL },
    { RMS, RMS, RMS, NULL },
    { "--seeds", "0", RMS, NULL },
    { "--time-limit", "-3", RMS, NULL },
    { "no_such_workload", RMS, NULL },
    { RMS, "/nonexistent/file.json", NULL },
    { "rms_norm:n=x", RMS, NULL },
    { "no_such_workload@reference", RMS, NULL },
  };

  for (guint i = 0; i < G_N_ELEMENTS (usage); i++)
    {
      g_autofree char *out = NULL, *err = NULL;
      g_assert_cmpint (run_verify (usage[i], &out, &err), ==, 2);
      g_assert_cmpstr (out, ==, "");
      g_assert_true (g_str_has_prefix (err, "prism verify: "));
    }

  g_assert_true (g_file_set_contents (broken, "{ \"format\": \"prism-graph\", ", -1, NULL));
  {
    const char *a_broken[] = { RMS, broken, NULL };
    const char *a_symref[] = { symbolic, RMS "@reference", NULL };
    g_autofree char *out = NULL, *err = NULL, *out2 = NULL, *err2 = NULL;

    g_assert_cmpint (run_verify (a_broken, &out, &err), ==, 2);
    g_assert_nonnull (strstr (err, "broken.json"));
    /* The reference must be concrete. */
    g_assert_cmpint (run_verify (a_symref, &out2, &err2), ==, 2);
    g_assert_nonnull (strstr (err2, "concrete"));
  }
}

static int
run_prism (const char * const *args, char **err)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;
  int status = -1;

  g_ptr_array_add (argv, (gpointer) prism_path);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                               &out, err, &status, &error));
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (status));
  return WEXITSTATUS (status);
}

/* Every constant op of value +0 under @node becomes −0. */
static guint
negate_zeros (JsonNode *node)
{
  guint n = 0;

  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *o = json_node_get_object (node);
      g_autoptr(GList) values = json_object_get_values (o);

      for (GList *l = values; l != NULL; l = l->next)
        n += negate_zeros (l->data);
      if (g_strcmp0 (json_object_get_string_member_with_default (o, "op", ""), "constant") == 0 &&
          json_object_get_double_member_with_default (o, "value", 1.0) == 0.0)
        {
          json_object_set_double_member (o, "value", -0.0);
          n++;
        }
    }
  else if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *a = json_node_get_array (node);
      for (guint i = 0; i < json_array_get_length (a); i++)
        n += negate_zeros (json_array_get_element (a, i));
    }
  return n;
}

/* Issue 24, item 2: a results file whose best candidate carries the −0 form
 * of the program's +0 (relu(X)·1e12 + 1 / (1 + exp(X / z)), 1 against 0
 * wherever X < 0) is refused by export's re-proof; the file as searched
 * exports. */
static void
test_export_signed_zero (void)
{
  static const char program[] =
    "{\"format\": \"prism-graph\", \"version\": 1, \"name\": \"signed-zero\", \"ops\": ["
    "{\"op\": \"input\", \"name\": \"X\", \"outputs\": [{\"id\": \"x\", \"shape\": [4, 8], \"dtype\": \"f32\"}]},"
    "{\"op\": \"constant\", \"value\": 0.0, \"outputs\": [{\"id\": \"z\", \"shape\": [1, 1], \"dtype\": \"f32\"}]},"
    "{\"op\": \"constant\", \"value\": 1.0, \"outputs\": [{\"id\": \"one\", \"shape\": [1, 1], \"dtype\": \"f32\"}]},"
    "{\"op\": \"constant\", \"value\": 1e12, \"outputs\": [{\"id\": \"big\", \"shape\": [1, 1], \"dtype\": \"f32\"}]},"
    "{\"op\": \"relu\", \"inputs\": [\"x\"], \"outputs\": [{\"id\": \"r\"}]},"
    "{\"op\": \"mul\", \"inputs\": [\"r\", \"big\"], \"outputs\": [{\"id\": \"rb\"}]},"
    "{\"op\": \"div\", \"inputs\": [\"x\", \"z\"], \"outputs\": [{\"id\": \"q\"}]},"
    "{\"op\": \"exp\", \"inputs\": [\"q\"], \"outputs\": [{\"id\": \"e\"}]},"
    "{\"op\": \"add\", \"inputs\": [\"one\", \"e\"], \"outputs\": [{\"id\": \"d\"}]},"
    "{\"op\": \"div\", \"inputs\": [\"one\", \"d\"], \"outputs\": [{\"id\": \"s\"}]},"
    "{\"op\": \"add\", \"inputs\": [\"rb\", \"s\"], \"outputs\": [{\"id\": \"o\"}]},"
    "{\"op\": \"output\", \"name\": \"O\", \"inputs\": [\"o\"]}]}";
  g_autofree char *prog = g_build_filename (tmpdir, "signed-zero.json", NULL);
  g_autofree char *dir = g_build_filename (tmpdir, "signed-zero", NULL);
  g_autofree char *results = g_build_filename (dir, "results.json", NULL);
  g_autofree char *tampered_dir = g_build_filename (tmpdir, "signed-zero-tampered", NULL);
  g_autofree char *tampered = g_build_filename (tampered_dir, "results.json", NULL);
  g_autofree char *out_good = g_build_filename (tmpdir, "signed-zero-export", NULL);
  g_autofree char *out_bad = g_build_filename (tmpdir, "signed-zero-export-bad", NULL);
  const char *search[] = { "search", prog, "--threads", "2", "--out", dir, NULL };
  const char *export_good[] = { "export", results, "--out", out_good, "--no-resource-usage", NULL };
  const char *export_bad[] = { "export", tampered, "--out", out_bad, "--no-resource-usage", NULL };
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *err = NULL;
  JsonObject *root;
  JsonArray *cands;
  gint64 best;
  guint flipped = 0;

  g_assert_true (g_file_set_contents (prog, program, -1, NULL));
  g_assert_cmpint (run_prism (search, NULL), ==, 0);
  g_assert_true (json_parser_load_from_file (parser, results, &error));
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));
  best = json_object_get_int_member (json_object_get_object_member (root, "best"), "id");
  cands = json_object_get_array_member (root, "candidates");
  for (guint i = 0; i < json_array_get_length (cands); i++)
    {
      JsonObject *c = json_array_get_object_element (cands, i);
      if (json_object_get_int_member (c, "id") != best)
        continue;
      flipped += negate_zeros (json_object_get_member (c, "graph"));
      flipped += negate_zeros (json_object_get_member (c, "symbolic_graph"));
    }
  g_assert_cmpuint (flipped, >, 0);
  g_assert_cmpint (g_mkdir_with_parents (tampered_dir, 0755), ==, 0);
  json_generator_set_root (gen, json_parser_get_root (parser));
  g_assert_true (json_generator_to_file (gen, tampered, &error));
  g_assert_no_error (error);

  g_assert_cmpint (run_prism (export_good, NULL), ==, 0);
  g_assert_cmpint (run_prism (export_bad, &err), ==, 1);
  g_test_message ("%s", err);
  g_assert_nonnull (strstr (err, "is not equivalent to its program"));
  g_assert_false (g_file_test (out_bad, G_FILE_TEST_EXISTS));
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  int ret;

  g_test_init (&argc, &argv, NULL);
  g_assert_cmpint (argc, ==, 2);
  prism_path = argv[1];
  tmpdir = g_dir_make_tmp ("prism-verify-XXXXXX", &error);
  g_assert_no_error (error);

  g_test_add_func ("/verify-cli/equivalent", test_equivalent);
  g_test_add_func ("/verify-cli/json", test_json);
  g_test_add_func ("/verify-cli/files", test_files);
  g_test_add_func ("/verify-cli/options", test_options);
  g_test_add_func ("/verify-cli/dtypes", test_dtypes);
  g_test_add_func ("/verify-cli/online-softmax", test_online_softmax);
  g_test_add_func ("/verify-cli/random-cannot-run", test_random_cannot_run);
  g_test_add_func ("/verify-cli/bad-input", test_bad_input);
  g_test_add_func ("/verify-cli/export-signed-zero", test_export_signed_zero);

  ret = g_test_run ();
  {
    g_autoptr(GDir) dir = g_dir_open (tmpdir, 0, NULL);
    const char *name;
    while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
      {
        g_autofree char *path = g_build_filename (tmpdir, name, NULL);
        g_unlink (path);
      }
    g_rmdir (tmpdir);
    g_free (tmpdir);
  }
  return ret;
}
