/* test-mpi-tune.c — `mpirun -np 3 prism search` times its best candidates
 * on the GPUs of the ranks (docs/architecture.md, "MPI")
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Against the fake driver (fake-cuda.c) with two fake devices: the three
 * ranks each time one of the three programs (the unfused one and the two
 * best candidates) on device (0 + its rank on the node) mod 2, and the
 * merged results.json equals the one-process run's in everything but the
 * times and who timed what.  Then: rank 0 without a GPU (the others time
 * everything), no GPU anywhere (what one process without one records), a
 * rank killed during the timings (what was timed is kept; --resume times
 * the rest), --device out of range, and ranks started with other options
 * (rank 0 says so, exit 2).  Skipped (77) without MPI or mpirun.
 *
 * Arguments: prism, prism-gpu-worker, libfakecuda.so, libfakenvrtc.so
 * (NVRTC's compilation is seconds per program for a CUBIN the fake driver
 * ignores), whether prism was built with MPI ("true"/"false").
 */
#include "config.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "codegen-cases.h"
#include "prism-graph-json.h"
#include "prism-kernel-headers.h"
#include "prism-workload.h"

static const char *prism, *worker, *fake, *fake_nvrtc;
static char *tmpdir, *program_path, *headers, *cache;
/* -x ASAN_OPTIONS=…: under the sanitizer build LeakSanitizer would report
 * Open MPI's own allocations that outlive MPI_Finalize, so leak checking is
 * off for the ranks only (the one-process runs keep it), in every app
 * context of an mpirun command line. */
static char *asan;

/* rms_norm at small shapes in f32 (the fake driver runs f32 programs). */
static void
write_program (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismGraph) f16 = prism_workload_build ("rms_norm", "n=4,d=64", &error);
  g_autofree char *text = NULL;
  g_auto(GStrv) parts = NULL;
  g_autofree char *joined = NULL;

  g_assert_no_error (error);
  text = prism_graph_to_data (f16, NULL);
  parts = g_strsplit (text, "\"f16\"", -1);
  joined = g_strjoinv ("\"f32\"", parts);
  program_path = g_build_filename (tmpdir, "rms_norm_f32.json", NULL);
  g_assert_true (g_file_set_contents (program_path, joined, -1, NULL));
  headers = g_build_filename (tmpdir, "kernels", NULL);
  g_assert_true (prism_kernel_headers_write (headers, NULL));
  cache = g_build_filename (tmpdir, "builds", NULL);
  g_assert_cmpint (g_mkdir (cache, 0700), ==, 0);
}

/* Runs ARGV (NULL-terminated, after `timeout 240`); its exit status, its
 * standard error in @err (transfer full, optional).  Under the sanitizer
 * build a report from any process (a rank's too) fails the test. */
static int
run (const char * const *argv, char **err)
{
  g_autoptr(GPtrArray) full = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  int status = 0;

  g_ptr_array_add (full, (gpointer) "timeout");
  g_ptr_array_add (full, (gpointer) "240");
  for (guint i = 0; argv[i] != NULL; i++)
    g_ptr_array_add (full, (gpointer) argv[i]);
  g_ptr_array_add (full, NULL);
  g_assert_true (g_spawn_sync (NULL, (char **) full->pdata, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL,
                               NULL, &text, &status, &error));
  g_assert_no_error (error);
  if (strstr (text, "runtime error:") != NULL || strstr (text, "ERROR: AddressSanitizer") != NULL)
    {
      g_test_message ("%s", text);
      g_assert_not_reached ();
    }
  if (err != NULL)
    *err = g_steal_pointer (&text);
  return WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status);
}

/* `mpirun -np 3 prism search … --out OUT` with EXTRA options before the
 * program's (an -x VAR=VALUE, say); NULL EXTRA allowed. */
static int
mpirun3 (const char *out, const char *const *extra, gboolean resume, char **err)
{
  g_autoptr(GPtrArray) a = g_ptr_array_new ();
  const char *base[] = { "mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "3",
                         "-x", asan, NULL };
  const char *search[] = { "search", "--threads", "1", "--time-limit", "0", "--tune-top", "2",
                           "--tune-min-time", "1", NULL };

  for (guint i = 0; base[i]; i++)
    g_ptr_array_add (a, (gpointer) base[i]);
  for (guint i = 0; extra != NULL && extra[i]; i++)
    g_ptr_array_add (a, (gpointer) extra[i]);
  g_ptr_array_add (a, (gpointer) prism);
  for (guint i = 0; search[i]; i++)
    g_ptr_array_add (a, (gpointer) search[i]);
  g_ptr_array_add (a, program_path);
  g_ptr_array_add (a, (gpointer) "--out");
  g_ptr_array_add (a, (gpointer) out);
  if (resume)
    g_ptr_array_add (a, (gpointer) "--resume");
  g_ptr_array_add (a, NULL);
  return run ((const char * const *) a->pdata, err);
}

static JsonObject *
load (const char *dir, JsonParser **parser)
{
  g_autofree char *path = g_build_filename (dir, "results.json", NULL);
  g_autoptr(GError) error = NULL;

  *parser = json_parser_new ();
  g_assert_true (json_parser_load_from_file (*parser, path, &error));
  g_assert_no_error (error);
  return json_node_get_object (json_parser_get_root (*parser));
}

/* Times and who timed what, wherever they are in a results file. */
static const char *const varying[] = {
  "median_us", "p20_us", "p80_us", "speedup", "rank", "device", "measured_us", "measured_p20_us",
  "measured_p80_us", "measured_rank", "measured_device", "seconds", "found_at_s",
};

static void
strip (JsonNode *node)
{
  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *a = json_node_get_array (node);

      for (guint i = 0; i < json_array_get_length (a); i++)
        strip (json_array_get_element (a, i));
    }
  else if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *o = json_node_get_object (node);
      g_autoptr(GList) names = json_object_get_members (o);

      for (GList *l = names; l != NULL; l = l->next)
        {
          gboolean drop = FALSE;

          for (guint k = 0; k < G_N_ELEMENTS (varying); k++)
            drop |= g_str_equal (l->data, varying[k]);
          if (drop)
            json_object_remove_member (o, l->data);
          else
            strip (json_object_get_member (o, l->data));
        }
    }
}

/* What must not depend on how many processes searched and timed: all but
 * the statistics, the times and who timed what. */
static char *
comparable (JsonObject *root)
{
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), root);
  g_autoptr(JsonNode) copy = json_node_copy (node);
  JsonObject *obj = json_node_get_object (copy);

  json_object_remove_member (obj, "stats");
  strip (copy);
  return json_to_string (copy, TRUE);
}

static void
assert_same (const char *one, const char *many)
{
  g_autoptr(JsonParser) p1 = NULL, p3 = NULL;
  g_autofree char *a = comparable (load (one, &p1));
  g_autofree char *b = comparable (load (many, &p3));

  if (g_strcmp0 (a, b) != 0)
    {
      g_autofree char *fa = g_build_filename (tmpdir, "one.txt", NULL);
      g_autofree char *fb = g_build_filename (tmpdir, "many.txt", NULL);
      g_file_set_contents (fa, a, -1, NULL);
      g_file_set_contents (fb, b, -1, NULL);
      g_test_message ("differ: diff %s %s", fa, fb);
      g_assert_cmpstr (a, ==, b);
    }
}

typedef struct
{
  guint n;              /* measurements */
  guint by_rank[3];
  gboolean device_ok;   /* each on device rank % 2 */
} Who;

static void
count_one (Who *who, JsonObject *obj, const char *rank_name, const char *device_name)
{
  gint64 rank = json_object_get_int_member_with_default (obj, rank_name, -1);
  gint64 device = json_object_get_int_member_with_default (obj, device_name, -1);

  g_assert_cmpint (rank, >=, 0);
  g_assert_cmpint (rank, <, 3);
  who->n++;
  who->by_rank[rank]++;
  if (device != rank % 2)
    who->device_ok = FALSE;
}

/* Who timed what in @dir (every measurement says its rank and device). */
static Who
who_timed (const char *dir)
{
  g_autoptr(JsonParser) parser = NULL;
  JsonObject *root = load (dir, &parser);
  JsonObject *base = json_object_get_object_member (root, "baseline");
  JsonArray *cands = json_object_get_array_member (root, "candidates");
  Who who = { 0, { 0, 0, 0 }, TRUE };

  if (json_object_has_member (base, "measured_gpu"))
    count_one (&who, base, "measured_rank", "measured_device");
  for (guint i = 0; i < json_array_get_length (cands); i++)
    {
      JsonObject *c = json_array_get_object_element (cands, i);

      if (json_object_has_member (c, "measured"))
        count_one (&who, json_object_get_object_member (c, "measured"), "rank", "device");
    }
  return who;
}

static char *one_dir;

static void
use_fake_driver (void)
{
  g_setenv ("PRISM_CUDA_LIBRARY", fake, TRUE);
  g_setenv ("PRISM_FAKE_CUDA_KERNELS", headers, TRUE);
  g_setenv ("PRISM_FAKE_CUDA_DEVICES", "2", TRUE);
  g_setenv ("PRISM_GPU_WORKER", worker, TRUE);
  g_setenv ("PRISM_FAKE_CUDA_CACHE", cache, TRUE);
  g_setenv ("PRISM_NVRTC_LIBRARY", fake_nvrtc, TRUE);
}

/* The one-process run everything is compared with. */
static const char *
one_process (void)
{
  if (one_dir == NULL)
    {
      /* --min-tasks as three ranks split (8 each, prism_search_min_tasks_for()):
       * the split is part of the fingerprint. */
      const char *argv[] = { prism, "search", "--threads", "1", "--time-limit", "0", "--tune-top", "2",
                             "--tune-min-time", "1", "--min-tasks", "24", program_path, "--out", NULL, NULL };
      g_autofree char *err = NULL;
      int rc;

      one_dir = g_build_filename (tmpdir, "one", NULL);
      argv[G_N_ELEMENTS (argv) - 2] = one_dir;
      rc = run (argv, &err);
      if (rc != 0)
        g_test_message ("%s", err);
      g_assert_cmpint (rc, ==, 0);
    }
  return one_dir;
}

static void
test_three_ranks (void)
{
  g_autofree char *out = g_build_filename (tmpdir, "three", NULL);
  g_autofree char *err = NULL;
  Who one, three;
  int rc;

  use_fake_driver ();
  one = who_timed (one_process ());
  g_assert_cmpuint (one.n, ==, 3);
  g_assert_cmpuint (one.by_rank[0], ==, 3);
  rc = mpirun3 (out, NULL, FALSE, &err);
  if (rc != 0)
    g_test_message ("%s", err);
  g_assert_cmpint (rc, ==, 0);
  assert_same (one_process (), out);
  three = who_timed (out);
  g_assert_cmpuint (three.n, ==, 3);
  /* Every rank timed one, on device (its rank on the node) mod 2. */
  g_assert_cmpuint (three.by_rank[0], ==, 1);
  g_assert_cmpuint (three.by_rank[1], ==, 1);
  g_assert_cmpuint (three.by_rank[2], ==, 1);
  g_assert_true (three.device_ok);
}

/* Rank 0 has no GPU: ranks 1 and 2 time everything. */
static void
test_rank0_without_gpu (void)
{
  g_autofree char *out = g_build_filename (tmpdir, "rank0-nogpu", NULL);
  g_autofree char *missing = g_build_filename (tmpdir, "no-libcuda.so", NULL);
  g_autofree char *no_cuda = g_strconcat ("PRISM_CUDA_LIBRARY=", missing, NULL);
  g_autofree char *err = NULL;
  /* MPMD: rank 0 with its own environment, ranks 1 and 2 with the fake. */
  const char *argv[] = { "mpirun", "--allow-run-as-root", "--oversubscribe",
                         "-x", asan,
                         "-np", "1", "env", no_cuda, prism, "search", "--threads", "1", "--time-limit", "0",
                         "--tune-top", "2", "--tune-min-time", "1", program_path, "--out", out, ":",
                         "-np", "2", "-x", asan, prism, "search", "--threads", "1", "--time-limit", "0",
                         "--tune-top", "2", "--tune-min-time", "1", program_path, "--out", out, NULL };
  Who who;
  int rc;

  use_fake_driver ();
  one_process ();
  rc = run (argv, &err);
  if (rc != 0)
    g_test_message ("%s", err);
  g_assert_cmpint (rc, ==, 0);
  assert_same (one_process (), out);
  who = who_timed (out);
  g_assert_cmpuint (who.n, ==, 3);
  g_assert_cmpuint (who.by_rank[0], ==, 0);
  g_assert_cmpuint (who.by_rank[1], >=, 1);
  g_assert_cmpuint (who.by_rank[2], >=, 1);
}

/* No GPU on any rank: the same as one process without one. */
static void
test_no_gpu_anywhere (void)
{
  g_autofree char *one = g_build_filename (tmpdir, "one-nogpu", NULL);
  g_autofree char *out = g_build_filename (tmpdir, "three-nogpu", NULL);
  g_autofree char *missing = g_build_filename (tmpdir, "no-libcuda.so", NULL);
  const char *argv[] = { prism, "search", "--threads", "1", "--time-limit", "0", "--tune-top", "2",
                         "--tune-min-time", "1", "--min-tasks", "24", program_path, "--out", one, NULL };
  g_autofree char *err = NULL, *err1 = NULL;
  Who who;

  g_setenv ("PRISM_CUDA_LIBRARY", missing, TRUE);
  g_assert_cmpint (run (argv, &err1), ==, 0);
  g_assert_cmpint (mpirun3 (out, NULL, FALSE, &err), ==, 0);
  assert_same (one, out);
  who = who_timed (out);
  g_assert_cmpuint (who.n, ==, 0);
}

/* Rank 2 dies once rank 0 has its first timing: that timing is kept, the
 * run ends (no hang), and --resume times the rest. */
static void
test_rank_killed (void)
{
  g_autofree char *out = g_build_filename (tmpdir, "killed", NULL);
  const char *die[] = { "-x", "PRISM_MPI_TEST_DIE_TUNE_RANK=2", NULL };
  g_autofree char *err = NULL;
  g_autoptr(JsonParser) parser = NULL;
  Who who;
  int rc;

  use_fake_driver ();
  one_process ();
  rc = mpirun3 (out, die, FALSE, &err);
  g_assert_cmpint (rc, !=, 0);     /* 0: rank 2 was never killed */
  g_assert_cmpint (rc, !=, 124);   /* a hang */
  /* The search was complete before the timings. */
  g_assert_true (json_object_get_boolean_member (load (out, &parser), "complete"));
  who = who_timed (out);
  g_assert_cmpuint (who.by_rank[2], ==, 1);
  g_clear_pointer (&err, g_free);
  rc = mpirun3 (out, NULL, TRUE, &err);
  if (rc != 0)
    g_test_message ("%s", err);
  g_assert_cmpint (rc, ==, 0);
  assert_same (one_process (), out);
  who = who_timed (out);
  g_assert_cmpuint (who.n, ==, 3);
}

static void
test_device_range (void)
{
  g_autofree char *out = g_build_filename (tmpdir, "device", NULL);
  const char *negative[] = { prism, "search", "--device", "-1", "rms_norm", "--out", out, NULL };
  const char *beyond[] = { prism, "search", "--device", "2", "rms_norm", "--out", out, NULL };
  g_autofree char *err1 = NULL, *err2 = NULL;

  use_fake_driver ();
  g_assert_cmpint (run (negative, &err1), ==, 2);
  g_assert_nonnull (strstr (err1, "--device must not be negative"));
  g_assert_cmpint (run (beyond, &err2), ==, 2);
  g_assert_nonnull (strstr (err2, "--device 2: the CUDA driver sees 2 devices (0 to 1)"));
  g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
}

/* Rank 2 is started with another option (one that decides the tasks, one
 * that decides only the verdicts): rank 0 says so, exit 2. */
static void
test_fingerprint_mismatch (void)
{
  static const char *const other[][2] = { { "--max-kernels", "1" }, { "--seed", "7" } };

  for (guint i = 0; i < G_N_ELEMENTS (other); i++)
    {
      g_autofree char *out = g_strdup_printf ("%s/mismatch-%u", tmpdir, i);
      const char *argv[] = { "mpirun", "--allow-run-as-root", "--oversubscribe",
                             "-x", asan,
                             "-np", "2", prism, "search", "--threads", "1", "--time-limit", "0",
                             "--tune-top", "0", "rms_norm", "--out", out, ":",
                             "-np", "1", "-x", asan, prism, "search", "--threads", "1", "--time-limit", "0",
                             "--tune-top", "0", other[i][0], other[i][1], "rms_norm", "--out", out, NULL };
      g_autofree char *err = NULL;
      int rc;

      rc = run (argv, &err);
      g_test_message ("%s %s: exit %d", other[i][0], other[i][1], rc);
      g_assert_cmpint (rc, ==, 2);
      g_assert_nonnull (strstr (err, "prism search: rank 2 searches another program or configuration "
                                     "than rank 0"));
    }
}

int
main (int argc, char **argv)
{
  g_autofree char *mpirun = g_find_program_in_path ("mpirun");
  int result;

  g_test_init (&argc, &argv, NULL);
  if (argc != 6)
    g_error ("usage: %s PRISM PRISM-GPU-WORKER LIBFAKECUDA LIBFAKENVRTC BUILT-WITH-MPI", argv[0]);
  prism = argv[1];
  worker = argv[2];
  fake = argv[3];
  fake_nvrtc = argv[4];
  if (g_strcmp0 (argv[5], "true") != 0)
    {
      g_print ("SKIP: prism was built without MPI (meson option mpi)\n");
      return 77;
    }
  if (mpirun == NULL)
    {
      g_print ("SKIP: mpirun is missing (Debian: openmpi-bin)\n");
      return 77;
    }
  asan = g_strdup_printf ("ASAN_OPTIONS=%s%sdetect_leaks=0", g_getenv ("ASAN_OPTIONS") ?: "",
                          g_getenv ("ASAN_OPTIONS") ? ":" : "");
  tmpdir = g_dir_make_tmp ("prism-mpi-tune-XXXXXX", NULL);
  write_program ();
  g_test_add_func ("/mpi-tune/three-ranks", test_three_ranks);
  g_test_add_func ("/mpi-tune/rank0-without-gpu", test_rank0_without_gpu);
  g_test_add_func ("/mpi-tune/no-gpu-anywhere", test_no_gpu_anywhere);
  g_test_add_func ("/mpi-tune/rank-killed", test_rank_killed);
  g_test_add_func ("/mpi-tune/device-range", test_device_range);
  g_test_add_func ("/mpi-tune/fingerprint-mismatch", test_fingerprint_mismatch);
  result = g_test_run ();
  if (result == 0)
    {
      g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", tmpdir);
      (void) !system (cmd);
    }
  g_free (tmpdir);
  g_free (one_dir);
  g_free (program_path);
  g_free (headers);
  g_free (cache);
  g_free (asan);
  return result;
}
