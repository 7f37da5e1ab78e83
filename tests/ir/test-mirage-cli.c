/* test-mirage-cli.c — `prism check`, `verify` and `bench` on Mirage muGraph files
 *
 * The path of the prism executable is the first argument (meson passes it).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>
#include <sys/wait.h>
#include <json-glib/json-glib.h>

static const char *prism_path;

static int
run_prism (const char * const *args, char **out, char **err)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  GError *error = NULL;
  int status = -1;

  g_ptr_array_add (argv, (gpointer) prism_path);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, out, err, &status,
                               &error));
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (status));
  return WEXITSTATUS (status);
}

static char *
mirage_file (const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "ir", "mirage", name, NULL);
}

static void
assert_contains (const char *text, const char *part)
{
  if (strstr (text, part) == NULL)
    g_error ("“%s” lacks “%s”", text, part);
}

static JsonObject *
parse_object (JsonParser *parser, const char *text)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (json_parser_load_from_data (parser, text, -1, &error));
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)));
  return json_node_get_object (json_parser_get_root (parser));
}

static void
test_check (void)
{
  g_autofree char *path = mirage_file ("rmsnorm.json");
  const char *args[] = { "check", path, NULL };
  g_autofree char *out = NULL, *err = NULL;
  g_autofree char *head = g_strdup_printf ("%s: 4 Mirage muGraphs\n", path);

  g_assert_cmpint (run_prism (args, &out, &err), ==, 0);
  g_assert_cmpstr (err, ==, "");
  g_assert_true (g_str_has_prefix (out, head));
  assert_contains (out, "graph 0: 4 ops, 1 kernel: ok\nmirage_graph_0\n");
  assert_contains (out, "grid=(16) block=128 forloop=4");
  assert_contains (out, "2: accum_rms (t0) -> t2 [8, 1] f16 (after loop)");
  assert_contains (out, "graph 2: 5 ops, 2 kernels: ok\n");
  assert_contains (out, "graph 3: 4 ops, 1 kernel: ok\n");
}

static void
test_check_malformed (void)
{
  g_autofree char *path = mirage_file ("malformed.json");
  const char *args[] = { "check", path, NULL };
  const char *json_args[] = { "check", "--json", path, NULL };
  g_autofree char *out = NULL, *err = NULL, *jout = NULL, *jerr = NULL;
  g_autofree char *tail = g_strdup_printf ("prism check: %s: 9 of 10 graphs could not be read\n", path);
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonArray *graphs;
  JsonObject *g0, *g1;

  /* Every graph is listed, the bad ones with why; the exit code says bad input. */
  g_assert_cmpint (run_prism (args, &out, &err), ==, 2);
  g_assert_cmpstr (err, ==, tail);
  assert_contains (out, "graph 0: 4 ops, 1 kernel: ok\n");
  assert_contains (out, "graph 1: 4 ops: error: op 2 (kn_frobnicate_op): field “op_type”: unknown kernel op type "
                        "“kn_frobnicate_op”\n");
  assert_contains (out, "graph 9: 0 ops: error: is an object, not a list of operators\n");

  g_assert_cmpint (run_prism (json_args, &jout, &jerr), ==, 2);
  graphs = json_object_get_array_member (parse_object (parser, jout), "graphs");
  g_assert_cmpuint (json_array_get_length (graphs), ==, 10);
  g0 = json_array_get_object_element (graphs, 0);
  g1 = json_array_get_object_element (graphs, 1);
  g_assert_true (json_object_get_boolean_member (g0, "ok"));
  g_assert_cmpint (json_object_get_int_member (g0, "kernels"), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (g0, "graph"), "format"), ==,
                   "prism-graph");
  g_assert_false (json_object_get_boolean_member (g1, "ok"));
  g_assert_cmpint (json_object_get_int_member (g1, "index"), ==, 1);
  g_assert_true (g_str_has_prefix (json_object_get_string_member (g1, "error"), "op 2 (kn_frobnicate_op)"));
}

static void
test_verify (void)
{
  g_autofree char *path = mirage_file ("rmsnorm.json");
  const char *args[] = { "verify", "rms_norm:n=8,d=128", path, NULL };
  g_autofree char *out = NULL, *err = NULL;
  g_auto(GStrv) lines = NULL;

  /* Graph 3 divides where it should multiply: not all equivalent, exit 1. */
  g_assert_cmpint (run_prism (args, &out, &err), ==, 1);
  g_assert_cmpstr (err, ==, "");
  lines = g_strsplit (out, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 6);
  g_assert_true (g_str_has_prefix (lines[0], "graph 0: equivalent: Proved equivalent"));
  g_assert_true (g_str_has_prefix (lines[1], "graph 1: equivalent: Proved equivalent"));
  g_assert_true (g_str_has_prefix (lines[2], "graph 2: equivalent: Proved equivalent"));
  g_assert_true (g_str_has_prefix (lines[3], "graph 3: not-equivalent: Not equivalent: the outputs differ"));
  g_assert_cmpstr (lines[4], ==, "3 of 4 graphs equivalent to rms_norm:n=8,d=128");
}

static void
test_verify_all_equivalent (void)
{
  g_autofree char *lora = mirage_file ("lora.json");
  g_autofree char *matmul = mirage_file ("matmul.json");
  g_autofree char *program = mirage_file ("matmul-program.json");
  const char *lora_args[] = { "verify", "lora:n=16,d=64,r=16,o=128", lora, NULL };
  const char *matmul_args[] = { "verify", program, matmul, NULL };
  /* A file of one graph is a program wherever one is read. */
  const char *as_reference[] = { "verify", lora, "lora:n=16,d=64,r=16,o=128@reference", NULL };
  g_autofree char *out = NULL, *err = NULL, *out2 = NULL, *err2 = NULL, *out3 = NULL, *err3 = NULL;

  g_assert_cmpint (run_prism (lora_args, &out, &err), ==, 0);
  assert_contains (out, "graph 0: equivalent: ");
  assert_contains (out, "1 of 1 graph equivalent to lora:n=16,d=64,r=16,o=128\n");
  g_assert_cmpint (run_prism (matmul_args, &out2, &err2), ==, 0);
  assert_contains (out2, "graph 1: equivalent: ");
  assert_contains (out2, "2 of 2 graphs equivalent to ");
  g_assert_cmpint (run_prism (as_reference, &out3, &err3), ==, 0);
  assert_contains (out3, "verdict: equivalent\n");
}

static void
test_verify_json (void)
{
  g_autofree char *path = mirage_file ("rmsnorm.json");
  g_autofree char *bad = mirage_file ("malformed.json");
  g_autofree char *program = mirage_file ("matmul-program.json");
  const char *args[] = { "verify", "--json", "rms_norm:n=8,d=128", path, NULL };
  const char *bad_args[] = { "verify", "--json", program, bad, NULL };
  g_autofree char *out = NULL, *err = NULL, *bout = NULL, *berr = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(JsonParser) bparser = json_parser_new ();
  JsonObject *root, *g;
  JsonArray *graphs;

  g_assert_cmpint (run_prism (args, &out, &err), ==, 1);
  root = parse_object (parser, out);
  g_assert_cmpint (json_object_get_int_member (root, "total"), ==, 4);
  g_assert_cmpint (json_object_get_int_member (root, "equivalent"), ==, 3);
  graphs = json_object_get_array_member (root, "graphs");
  g_assert_cmpuint (json_array_get_length (graphs), ==, 4);
  for (guint i = 0; i < 4; i++)
    {
      g = json_array_get_object_element (graphs, i);
      g_assert_cmpint (json_object_get_int_member (g, "index"), ==, i);
      g_assert_cmpstr (json_object_get_string_member (g, "verdict"), ==, i < 3 ? "equivalent" : "not-equivalent");
      /* the evidence, as for one candidate */
      g_assert_true (json_object_has_member (g, "formal"));
      g_assert_true (json_object_has_member (g, "random"));
    }
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (graphs, 2), "label"), ==,
                   "Mirage graph 2");

  /* Graphs that cannot be read have a verdict object too, with why. */
  g_assert_cmpint (run_prism (bad_args, &bout, &berr), ==, 1);
  root = parse_object (bparser, bout);
  graphs = json_object_get_array_member (root, "graphs");
  g_assert_cmpuint (json_array_get_length (graphs), ==, 10);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (graphs, 0), "verdict"), ==,
                   "equivalent");
  g = json_array_get_object_element (graphs, 5);
  g_assert_cmpstr (json_object_get_string_member (g, "verdict"), ==, "error");
  assert_contains (json_object_get_string_member (g, "error"), "the file says [16, 33], the op computes [16, 32]");
}

static void
test_verify_usage (void)
{
  g_autofree char *path = mirage_file ("rmsnorm.json");
  const char *as_reference[] = { "verify", path, "rms_norm:n=8,d=128", NULL };
  const char *not_json[] = { "verify", "rms_norm", "/nonexistent/mirage.json", NULL };
  g_autofree char *out = NULL, *err = NULL, *out2 = NULL, *err2 = NULL;

  /* A file of four graphs is not one program. */
  g_assert_cmpint (run_prism (as_reference, &out, &err), ==, 2);
  assert_contains (err, "holds 4 Mirage muGraphs, and this command takes one program");
  g_assert_cmpint (run_prism (not_json, &out2, &err2), ==, 2);
}

static void
test_bench (void)
{
  g_autofree char *path = mirage_file ("rmsnorm.json");
  g_autofree char *bad = mirage_file ("malformed.json");
  const char *args[] = { "bench", "-f", "json", path, NULL };
  const char *bad_args[] = { "bench", "-f", "json", bad, NULL };
  g_autofree char *out = NULL, *err = NULL, *bout = NULL, *berr = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(JsonParser) bparser = json_parser_new ();
  static const gint64 kernels[] = { 1, 1, 2, 1 };
  JsonObject *root;
  JsonArray *programs;

  g_assert_cmpint (run_prism (args, &out, &err), ==, 0);
  root = parse_object (parser, out);
  programs = json_object_get_array_member (root, "programs");
  /* One entry per graph, in file order, and nothing else: the file has no baseline. */
  g_assert_cmpuint (json_array_get_length (programs), ==, 4);
  for (guint i = 0; i < 4; i++)
    {
      JsonObject *p = json_array_get_object_element (programs, i);
      g_autofree char *label = g_strdup_printf ("Mirage graph %u", i);

      g_assert_cmpstr (json_object_get_string_member (p, "program"), ==, label);
      g_assert_cmpint (json_object_get_int_member (p, "kernels"), ==, kernels[i]);
      if (!json_object_get_boolean_member (root, "gpu"))
        g_assert_cmpfloat (json_object_get_double_member (p, "predicted_us"), >, 0.0);
    }

  g_assert_cmpint (run_prism (bad_args, &bout, &berr), ==, 2);
  assert_contains (berr, "prism bench: 9 of 10 graphs could not be read");
  programs = json_object_get_array_member (parse_object (bparser, bout), "programs");
  g_assert_cmpuint (json_array_get_length (programs), ==, 10);
  assert_contains (json_object_get_string_member (json_array_get_object_element (programs, 1), "error"),
                   "unknown kernel op type “kn_frobnicate_op”");
}

/* export takes a Mirage file of one graph, as every command that takes one
 * program does (before: exit 2, the file read as a prism-graph). */
static void
test_export_one_graph (void)
{
  g_autofree char *path = mirage_file ("lora.json");
  g_autofree char *several = mirage_file ("matmul.json");
  g_autofree char *tmp = g_dir_make_tmp ("test-mirage-export-XXXXXX", NULL);
  g_autofree char *out = g_build_filename (tmp, "bundle", NULL);
  g_autofree char *out2 = g_build_filename (tmp, "bundle2", NULL);
  g_autofree char *manifest = g_build_filename (out, "manifest.json", NULL);
  g_autofree char *o1 = NULL, *e1 = NULL, *o2 = NULL, *e2 = NULL;
  const char *args[] = { "export", path, "--out", out, "--no-resource-usage", NULL };
  const char *args2[] = { "export", several, "--out", out2, "--no-resource-usage", NULL };
  int code = run_prism (args, &o1, &e1);

  if (code != 0)
    g_error ("exit %d: %s", code, e1);
  g_assert_true (g_file_test (manifest, G_FILE_TEST_IS_REGULAR));
  g_assert_cmpint (run_prism (args2, &o2, &e2), ==, 2);
  assert_contains (e2, "holds 2 Mirage muGraphs");
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  if (argc < 2)
    {
      g_printerr ("usage: %s PATH-TO-PRISM\n", argv[0]);
      return 1;
    }
  prism_path = argv[1];
  /* The messages are checked in English. */
  g_setenv ("LC_ALL", "C.UTF-8", TRUE);
  g_setenv ("LANGUAGE", "C", TRUE);

  g_test_add_func ("/mirage-cli/check", test_check);
  g_test_add_func ("/mirage-cli/check-malformed", test_check_malformed);
  g_test_add_func ("/mirage-cli/verify", test_verify);
  g_test_add_func ("/mirage-cli/verify-all-equivalent", test_verify_all_equivalent);
  g_test_add_func ("/mirage-cli/verify-json", test_verify_json);
  g_test_add_func ("/mirage-cli/verify-usage", test_verify_usage);
  g_test_add_func ("/mirage-cli/bench", test_bench);
  g_test_add_func ("/mirage-cli/export-one-graph", test_export_one_graph);
  return g_test_run ();
}
