/* test-results-cli.c — `prism export`, `prism bench` and `prism search --resume`
 * on results files that were edited, crafted or are not files at all
 *
 * The path of the prism executable is the first argument (meson passes it).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#define PROGRAM "swiglu:n=4,d=64"

static const char *prism_path;
static char *tmpdir;
static char *good_results;    /* a finished search of PROGRAM */

static int
run_prism (const char * const *args, char **out, char **err)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *ignored_out = NULL, *ignored_err = NULL;
  int status = -1;

  g_ptr_array_add (argv, (gpointer) prism_path);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                               out ? out : &ignored_out, err ? err : &ignored_err, &status, &error));
  g_assert_no_error (error);
  /* Never a crash: an exit code. */
  if (!WIFEXITED (status))
    g_error ("prism %s was killed by signal %d", args[0], WTERMSIG (status));
  return WEXITSTATUS (status);
}

static char *
folder (const char *name)
{
  char *dir = g_build_filename (tmpdir, name, NULL);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  return dir;
}

/* A results file in its own folder (for --resume), with @text. */
static char *
results_in (const char *name, const char *text, gssize len)
{
  g_autofree char *dir = folder (name);
  char *path = g_build_filename (dir, "results.json", NULL);

  g_assert_true (g_file_set_contents (path, text, len, NULL));
  return path;
}

G_GNUC_NO_INLINE static char *
good_text (void)
{
  char *text = NULL;

  g_assert_true (g_file_get_contents (good_results, &text, NULL, NULL));
  return text;
}

static JsonNode *
good_root (void)
{
  g_autoptr(JsonParser) parser = json_parser_new ();

  g_assert_true (json_parser_load_from_file (parser, good_results, NULL));
  return json_parser_steal_root (parser);
}

static char *
to_text (JsonNode *root)
{
  g_autoptr(JsonGenerator) gen = json_generator_new ();

  json_generator_set_root (gen, root);
  return json_generator_to_data (gen, NULL);
}

/* Replaces every op "silu" under @node with "relu": shapes stay valid, the
 * program is another one. */
static guint
swap_silu (JsonNode *node)
{
  guint n = 0;

  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *o = json_node_get_object (node);
      g_autoptr(GList) values = json_object_get_values (o);

      /* Before the member is replaced, which frees the names' storage. */
      for (GList *l = values; l != NULL; l = l->next)
        n += swap_silu (l->data);
      if (g_strcmp0 (json_object_get_string_member_with_default (o, "op", ""), "silu") == 0)
        {
          json_object_set_string_member (o, "op", "relu");
          n++;
        }
    }
  else if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *a = json_node_get_array (node);
      for (guint i = 0; i < json_array_get_length (a); i++)
        n += swap_silu (json_array_get_element (a, i));
    }
  return n;
}

/* The best candidate's graphs edited to a wrong program, digest kept. */
static char *
tampered_text (guint *best_id)
{
  g_autoptr(JsonNode) root = good_root ();
  JsonObject *obj = json_node_get_object (root);
  JsonArray *cands = json_object_get_array_member (obj, "candidates");
  gint64 best = json_object_get_int_member (json_object_get_object_member (obj, "best"), "id");

  for (guint i = 0; i < json_array_get_length (cands); i++)
    {
      JsonObject *c = json_array_get_object_element (cands, i);
      if (json_object_get_int_member (c, "id") == best)
        {
          g_assert_cmpuint (swap_silu (json_object_get_member (c, "symbolic_graph")), >, 0);
          g_assert_cmpuint (swap_silu (json_object_get_member (c, "graph")), >, 0);
        }
    }
  *best_id = (guint) best;
  return to_text (root);
}

static GPtrArray *
digests_of (const char *path)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  GPtrArray *d = g_ptr_array_new_with_free_func (g_free);
  JsonArray *cands;

  g_assert_true (json_parser_load_from_file (parser, path, NULL));
  cands = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)), "candidates");
  for (guint i = 0; i < json_array_get_length (cands); i++)
    g_ptr_array_add (d, g_strdup (json_object_get_string_member (json_array_get_object_element (cands, i),
                                                                 "digest")));
  return d;
}

/* Finding 3: a candidate edited to a wrong program is refused by export and
 * bench (exit 1, named), and dropped by --resume, which searches its task
 * again and ends with the candidates of the untouched file. */
static void
test_tampered_candidate (void)
{
  guint best = 0;
  g_autofree char *text = tampered_text (&best);
  g_autofree char *path = results_in ("tampered", text, -1);
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *out_dir = g_build_filename (tmpdir, "tampered-export", NULL);
  g_autofree char *expected = g_strdup_printf ("candidate %u of %s is not equivalent to its program: no proof found",
                                               best, path);
  g_autofree char *best_id = g_strdup_printf ("%u", best);
  const char *export_best[] = { "export", path, "--out", out_dir, "--no-resource-usage", NULL };
  const char *export_id[] = { "export", path, "--candidate", best_id, "--out", out_dir, "--no-resource-usage", NULL };
  const char *export_other[] = { "export", path, "--candidate", best == 1 ? "2" : "1", "--out", out_dir,
                                 "--no-resource-usage", NULL };
  const char *bench[] = { "bench", path, NULL };
  const char *resume[] = { "search", PROGRAM, "--threads", "2", "--out", dir, "--resume", NULL };
  g_autoptr(GPtrArray) before = digests_of (good_results);
  g_autoptr(GPtrArray) after = NULL;

  const char * const *refusing[] = { export_best, export_id, bench };
  for (guint i = 0; i < G_N_ELEMENTS (refusing); i++)
    {
      g_autofree char *out = NULL, *err = NULL;

      g_assert_cmpint (run_prism (refusing[i], &out, &err), ==, 1);
      if (strstr (err, expected) == NULL)
        g_error ("prism %s: stderr “%s” lacks “%s”", refusing[i][0], err, expected);
      g_assert_null (strchr (g_strchomp (err), '\n'));
    }
  g_assert_false (g_file_test (out_dir, G_FILE_TEST_EXISTS));

  /* Another candidate of the same file is proved and exported. */
  {
    g_autofree char *out = NULL, *err = NULL;
    g_assert_cmpint (run_prism (export_other, &out, &err), ==, 0);
    g_assert_true (g_file_test (out_dir, G_FILE_TEST_IS_DIR));
  }

  /* --resume: dropped with a warning naming it; the search goes on. */
  {
    g_autofree char *out = NULL, *err = NULL;
    g_autofree char *warning = g_strdup_printf ("candidate %u of %s is not equivalent to its program", best, path);

    g_assert_cmpint (run_prism (resume, &out, &err), ==, 0);
    if (strstr (err, warning) == NULL || strstr (err, "it is dropped and its task searched again") == NULL)
      g_error ("--resume: stderr “%s” lacks the warning", err);
  }
  after = digests_of (path);
  g_assert_cmpuint (after->len, ==, before->len);
  for (guint i = 0; i < after->len; i++)
    g_assert_cmpstr (g_ptr_array_index (after, i), ==, g_ptr_array_index (before, i));
  /* The candidate kept is the proved one, not the edited one. */
  {
    g_autofree char *now = NULL;
    const char *again[] = { "export", path, "--candidate", best_id, "--out", out_dir, "--no-resource-usage", NULL };

    g_assert_true (g_file_get_contents (path, &now, NULL, NULL));
    g_assert_null (strstr (now, "\"relu\""));
    g_assert_cmpint (run_prism (again, NULL, NULL), ==, 0);
  }
}

/* The file's program is what its candidates are proved against: one edited
 * behind an unchanged fingerprint is refused by --resume. */
static void
test_edited_program (void)
{
  g_autoptr(JsonNode) root = good_root ();
  JsonObject *obj = json_node_get_object (root);
  g_autofree char *text = NULL;
  g_autofree char *path = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *out = NULL, *err = NULL;
  const char *resume[] = { "search", PROGRAM, "--threads", "2", "--out", NULL, "--resume", NULL };

  g_assert_cmpuint (swap_silu (json_object_get_member (obj, "program")), ==, 1);
  text = to_text (root);
  path = results_in ("edited-program", text, -1);
  dir = g_path_get_dirname (path);
  resume[5] = dir;
  g_assert_cmpint (run_prism (resume, &out, &err), ==, 2);
  g_assert_nonnull (strstr (err, "its “program” is not the program its fingerprint names"));
}

/* Findings 4b, 7, 8: crafted files get exit 2, one line naming the file and
 * what is wrong, in bounded time and memory. */
static void
test_crafted_files (void)
{
  const gsize deep = 100000;
  g_autofree char *nested = g_malloc (2 * deep);
  g_autofree char *good = good_text ();
  g_autofree char *two = g_strconcat (good, good, NULL);
  g_autofree char *comment = g_strconcat ("/* results */ ", good, NULL);
  g_autofree char *progress = NULL;
  const char *at = strstr (good, "\"done\" : [");
  const char *names[] = { "nested", "two-documents", "comment", "progress", "hex", "quotes" };
  const char *texts[G_N_ELEMENTS (names)];
  gssize lengths[G_N_ELEMENTS (names)] = { 2 * deep, -1, -1, -1, -1, -1 };
  const char *messages[] = {
    "nested deeper than 64 levels", "more text after the document", "a comment; JSON has none",
    "“progress.done[0]” is not a range of the", "a hexadecimal number", "a single-quoted string",
  };

  memset (nested, '[', deep);
  memset (nested + deep, ']', deep);
  /* Two billion tasks marked done would be 8 GiB of task numbers. */
  g_assert_nonnull (at);
  progress = g_strdup_printf ("%.*s\"done\" : [[0, 2147483647]]%s", (int) (at - good), good,
                              strchr (strchr (at, ']') + 1, ']') + 1);
  texts[0] = nested;
  texts[1] = two;
  texts[2] = comment;
  texts[3] = progress;
  texts[4] = "{\"format\": \"prism-results\", \"version\": 0x1}";
  texts[5] = "{'format': 'prism-results'}";
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *name = g_strdup_printf ("crafted-%s", names[i]);
      g_autofree char *path = results_in (name, texts[i], lengths[i]);
      g_autofree char *dir = g_path_get_dirname (path);
      g_autofree char *out_dir = g_build_filename (dir, "bundle", NULL);
      const char *export[] = { "export", path, "--out", out_dir, NULL };
      const char *bench[] = { "bench", path, NULL };
      const char *resume[] = { "search", PROGRAM, "--out", dir, "--resume", NULL };
      const char * const *commands[] = { export, bench, resume };

      for (guint k = 0; k < G_N_ELEMENTS (commands); k++)
        {
          g_autofree char *out = NULL, *err = NULL;
          int code = run_prism (commands[k], &out, &err);

          g_test_message ("%s %s: %d %s", commands[k][0], names[i], code, err);
          g_assert_cmpint (code, ==, 2);
          if (strstr (err, messages[i]) == NULL || strstr (err, path) == NULL)
            g_error ("prism %s on %s: stderr “%s” lacks “%s” or the file", commands[k][0], names[i], err,
                     messages[i]);
          g_assert_null (strchr (g_strchomp (err), '\n'));
        }
    }
}

/* Finding 7: --resume of something that is not a regular file fails at
 * once, saying what it is (it read /dev/zero to 12 GB and blocked on a FIFO). */
static void
test_not_regular (void)
{
  g_autofree char *fifo_dir = folder ("fifo");
  g_autofree char *fifo = g_build_filename (fifo_dir, "results.json", NULL);
  g_autofree char *zero_dir = folder ("zero");
  g_autofree char *zero = g_build_filename (zero_dir, "results.json", NULL);
  g_autofree char *big_dir = folder ("big");
  g_autofree char *big = g_build_filename (big_dir, "results.json", NULL);
  struct
  {
    const char *dir;
    const char *path;
    const char *message;
  } cases[] = {
    { fifo_dir, fifo, "is a FIFO (named pipe), not a regular file" },
    { zero_dir, zero, "is a character device, not a regular file" },
    { big_dir, big, "bytes; at most 67108864 are read" },
  };
  int fd;

  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_assert_cmpint (symlink ("/dev/zero", zero), ==, 0);
  /* A sparse file over the limit: refused by its size, never read. */
  fd = g_open (big, O_WRONLY | O_CREAT, 0644);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (ftruncate (fd, (off_t) 65 * 1024 * 1024), ==, 0);
  close (fd);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *out_dir = g_build_filename (cases[i].dir, "bundle", NULL);
      const char *resume[] = { "search", PROGRAM, "--out", cases[i].dir, "--resume", NULL };
      const char *export[] = { "export", cases[i].path, "--out", out_dir, NULL };
      const char *bench[] = { "bench", cases[i].path, NULL };
      const char * const *commands[] = { resume, export, bench };

      if (i == 1 && !g_file_test ("/dev/zero", G_FILE_TEST_EXISTS))
        continue;
      for (guint k = 0; k < G_N_ELEMENTS (commands); k++)
        {
          g_autofree char *out = NULL, *err = NULL;

          g_assert_cmpint (run_prism (commands[k], &out, &err), ==, 2);
          if (strstr (err, cases[i].message) == NULL || strstr (err, cases[i].path) == NULL)
            g_error ("prism %s %s: stderr “%s” lacks “%s”", commands[k][0], cases[i].path, err, cases[i].message);
        }
    }
}

/* Finding 9: temporary files of a writer killed with SIGKILL are removed
 * when the next search starts in the folder; a live writer's are kept. */
static void
test_stale_temporaries (void)
{
  g_autofree char *dir = folder ("stale");
  g_autofree char *dead = NULL, *live = NULL, *old = NULL, *recent = NULL, *other = NULL;
  const char *search[] = { "search", PROGRAM, "--threads", "2", "--max-kernels", "1", "--out", dir, NULL };
  GPid child;
  int status;

  /* A process that has exited: its pid is free (and not reused this soon). */
  {
    const char *argv[] = { "/bin/true", NULL };
    g_assert_true (g_spawn_async (NULL, (char **) argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &child, NULL));
    g_assert_cmpint (waitpid (child, &status, 0), ==, child);
  }
  dead = g_strdup_printf ("%s/results.json.tmp-%d-a1B2c3", dir, (int) child);
  live = g_strdup_printf ("%s/results.json.tmp-%d-d4E5f6", dir, (int) getpid ());
  old = g_build_filename (dir, "results.json.Xy12Zw", NULL);
  recent = g_build_filename (dir, "results.json.Ab34Cd", NULL);
  other = g_build_filename (dir, "notes.json.tmp-1-abcdef", NULL);
  for (const char **p = (const char *[]) { dead, live, old, recent, other, NULL }; *p; p++)
    g_assert_true (g_file_set_contents (*p, "{\"half\": ", -1, NULL));
  {
    /* g_file_set_contents()'s temporary files name no process: stale after an hour. */
    gint64 two_hours_ago = g_get_real_time () / G_USEC_PER_SEC - 2 * 3600;
    GFile *f = g_file_new_for_path (old);
    g_assert_true (g_file_set_attribute_uint64 (f, G_FILE_ATTRIBUTE_TIME_MODIFIED, (guint64) two_hours_ago,
                                                G_FILE_QUERY_INFO_NONE, NULL, NULL));
    g_object_unref (f);
  }

  g_assert_cmpint (run_prism (search, NULL, NULL), ==, 0);
  g_assert_false (g_file_test (dead, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (old, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (live, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (recent, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (other, G_FILE_TEST_EXISTS));
  /* And the run itself left none. */
  {
    g_autoptr(GDir) listing = g_dir_open (dir, 0, NULL);
    const char *entry;
    guint n = 0;

    while ((entry = g_dir_read_name (listing)) != NULL)
      if (g_str_has_prefix (entry, "results.json.tmp-"))
        n++;
    g_assert_cmpuint (n, ==, 1);   /* the live one */
  }
}

/* Finding 9: control characters from a file never reach the terminal. */
static void
test_escaped_messages (void)
{
  g_autofree char *path = results_in ("escape",
                                      "{\"format\": \"prism-results\", \"version\": 1, \"program\": "
                                      "{\"format\": \"prism-graph\", \"version\": 1, \"ops\": "
                                      "[{\"op\": \"\\u001b]0;owned\\u0007\"}]}, \"mode\": \"symbolic\"}",
                                      -1);
  g_autofree char *out_dir = g_build_filename (tmpdir, "escape-bundle", NULL);
  const char *export[] = { "export", path, "--out", out_dir, NULL };
  g_autofree char *out = NULL, *err = NULL;

  g_assert_cmpint (run_prism (export, &out, &err), ==, 2);
  g_assert_null (strchr (err, '\x1b'));
  g_assert_null (strchr (err, '\x07'));
  if (strstr (err, "unknown op “\\x1B]0;owned\\x07”") == NULL)
    g_error ("stderr “%s” lacks the escaped op", err);
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
  tmpdir = g_dir_make_tmp ("test-results-cli-XXXXXX", NULL);
  {
    g_autofree char *dir = folder ("good");
    const char *search[] = { "search", PROGRAM, "--threads", "2", "--out", dir, NULL };

    g_assert_cmpint (run_prism (search, NULL, NULL), ==, 0);
    good_results = g_build_filename (dir, "results.json", NULL);
  }
  g_test_add_func ("/results-cli/tampered-candidate", test_tampered_candidate);
  g_test_add_func ("/results-cli/edited-program", test_edited_program);
  g_test_add_func ("/results-cli/crafted-files", test_crafted_files);
  g_test_add_func ("/results-cli/not-regular", test_not_regular);
  g_test_add_func ("/results-cli/stale-temporaries", test_stale_temporaries);
  g_test_add_func ("/results-cli/escaped-messages", test_escaped_messages);
  ret = g_test_run ();
  {
    g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", tmpdir);
    if (system (cmd) != 0)
      g_warning ("could not remove %s", tmpdir);
  }
  g_free (tmpdir);
  g_free (good_results);
  return ret;
}
