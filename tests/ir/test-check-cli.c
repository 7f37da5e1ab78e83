/* test-check-cli.c — `prism check` on good and bad files: exit codes and messages
 *
 * The path of the prism executable is the first argument (meson passes it).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>
#include <sys/wait.h>
#include <glib.h>

static const char *prism_path;

static int
run_check (const char * const *args, char **out, char **err)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  GError *error = NULL;
  int status = -1;

  g_ptr_array_add (argv, (gpointer) prism_path);
  g_ptr_array_add (argv, (gpointer) "check");
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                               out, err, &status, &error));
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (status));
  return WEXITSTATUS (status);
}

static char *
data_file (const char *dir, const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "ir", dir, name, NULL);
}

static void
test_good_file (void)
{
  g_autofree char *path = data_file ("good", "rms-norm-linear.json");
  const char *args[] = { path, NULL };
  const char *json_args[] = { "--json", path, NULL };
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *json = NULL;
  g_autofree char *json_err = NULL;
  g_autofree char *contents = NULL;

  g_assert_cmpint (run_check (args, &out, &err), ==, 0);
  g_assert_cmpstr (err, ==, "");
  g_assert_true (g_str_has_prefix (out, "rms_norm_linear_fused\n"));
  g_assert_nonnull (strstr (out, "grid=(gx) block=128 forloop=F"));
  g_assert_nonnull (strstr (out, "matmul (t0, t1) -> t2 [8, 4096/gx] f16"));

  /* The file is canonical: --json writes it back byte for byte. */
  g_assert_cmpint (run_check (json_args, &json, &json_err), ==, 0);
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  g_assert_cmpstr (json, ==, contents);
}

static void
test_workload (void)
{
  const char *args[] = { "rms_norm", NULL };
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;

  g_assert_cmpint (run_check (args, &out, &err), ==, 0);
  g_assert_nonnull (strstr (out, "matmul"));
}

static void
test_bad_files (void)
{
  static const struct
  {
    const char *file;
    const char *message;
  } cases[] = {
    { "cycle.json", "the ops form a cycle: op 1 (add) → op 2 (exp) → op 1 (add)" },
    { "version-2.json", "field “version”: version 2 is not supported" },
    { "matmul-inner-mismatch.json", "op 2 (matmul): inner dims differ" },
    { "imap-not-dividing.json", "op 1 (kernel): block op 0 (input): imap[0] = 0 splits dim 0: 8 is not divisible by 3" },
    { "malformed-json.json", "malformed JSON" },
    { "deep-nesting.json", "nested deeper than 64 levels" },
    { "transpose-perm-repeated.json", "op 1 (transpose): perm is not a permutation" },
    { "transpose-perm-length.json", "op 1 (transpose): field “perm”: has 3 entries" },
    { "constant-value-string.json", "op 1 (constant): field “value”: expected a number" },
    { "constant-shape-not-one.json", "op 1 (constant): field “outputs[0].shape[1]”" },
    { "constant-not-finite.json", "the number 1e999 is out of range" },
    { "max-dim-out-of-range.json", "op 1 (max): dim 2 out of range" },
    { "mean-dim-out-of-range.json", "op 1 (mean): dim 3 out of range" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = data_file ("bad", cases[i].file);
      const char *args[] = { path, NULL };
      g_autofree char *out = NULL;
      g_autofree char *err = NULL;
      g_autofree char *expected = g_strdup_printf ("prism check: %s: ", path);

      g_assert_cmpint (run_check (args, &out, &err), ==, 2);
      g_assert_cmpstr (out, ==, "");
      g_assert_true (g_str_has_prefix (err, expected));
      if (strstr (err, cases[i].message) == NULL)
        g_error ("%s: stderr “%s” lacks “%s”", cases[i].file, err, cases[i].message);
    }
}

static void
test_usage (void)
{
  const char *none[] = { NULL };
  const char *missing[] = { "/nonexistent/graph.json", NULL };
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *out2 = NULL;
  g_autofree char *err2 = NULL;

  g_assert_cmpint (run_check (none, &out, &err), ==, 2);
  g_assert_true (g_str_has_prefix (err, "prism check: "));
  g_assert_cmpint (run_check (missing, &out2, &err2), ==, 2);
  g_assert_true (g_str_has_prefix (err2, "prism check: /nonexistent/graph.json: "));
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

  g_test_add_func ("/check-cli/good-file", test_good_file);
  g_test_add_func ("/check-cli/workload", test_workload);
  g_test_add_func ("/check-cli/bad-files", test_bad_files);
  g_test_add_func ("/check-cli/usage", test_usage);
  return g_test_run ();
}
