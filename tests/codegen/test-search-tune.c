/* test-search-tune.c — a search that times its best candidates on the GPU
 *
 * Against the fake driver (fake-cuda.c, which builds each job's kernels for
 * the CPU with g++): a small f32 search with tune_top 2 times the unfused
 * program and its two best predicted candidates through the session, and
 * results.json and its reader carry the measurements.  A stop between two
 * programs ends the tuning.  With the driver missing the search finishes as
 * before, says "no GPU" once and measures nothing.  The fake parts need
 * NVRTC and g++ (skipped otherwise); the no-GPU part runs everywhere.
 *
 * Arguments: prism, prism-gpu-worker, libfakecuda.so.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "codegen-cases.h"
#include "prism-cuda-runtime.h"
#include "prism-error.h"
#include "prism-graph-json.h"
#include "prism-kernel-headers.h"
#include "prism-pipeline.h"
#include "prism-results.h"
#include "prism-session.h"
#include "prism-workload.h"

static char *tmpdir;
static const char *fake_path;
static gboolean usable;

/* rms_norm at small shapes in f32: the fake driver runs f32 programs only. */
static PrismGraph *
f32_program (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismGraph) f16 = prism_workload_build ("rms_norm", "n=4,d=64", &error);
  g_autofree char *text = NULL;
  g_auto(GStrv) parts = NULL;
  g_autofree char *joined = NULL;
  PrismGraph *g;

  g_assert_no_error (error);
  text = prism_graph_to_data (f16, NULL);
  parts = g_strsplit (text, "\"f16\"", -1);
  joined = g_strjoinv ("\"f32\"", parts);
  g = prism_graph_load_from_data (joined, -1, NULL, &error);
  g_assert_no_error (error);
  return g;
}

static void
small_options (PrismPipelineOptions *o, const char *out)
{
  prism_pipeline_options_init (o);
  o->search.n_threads = 2;
  o->search.time_limit_s = 0;
  o->source = "rms_norm";
  o->out_dir = out;
  o->tune_min_time_ms = 1;
  o->tune_timeout_s = 120;
}

/* Each test runs in a fresh child: its environment is set before any
 * thread exists. */
static gboolean
in_child (void)
{
  if (g_test_subprocess ())
    return TRUE;
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
  return FALSE;
}

static void
use_fake_driver (void)
{
  g_autofree char *headers = g_build_filename (tmpdir, "kernels", NULL);

  g_assert_true (prism_kernel_headers_write (headers, NULL));
  g_setenv ("PRISM_CUDA_LIBRARY", fake_path, TRUE);
  g_setenv ("PRISM_FAKE_CUDA_KERNELS", headers, TRUE);
}

typedef struct
{
  GMainLoop *loop;
  GPtrArray *events;   /* PrismEvent, every event in order */
} Collect;

static void
on_events (PrismSession *session, PrismEventBatch *batch, gpointer data)
{
  Collect *c = data;

  for (guint i = 0; i < batch->events->len; i++)
    {
      PrismEvent *e = g_ptr_array_index (batch->events, i);
      if (e->kind != PRISM_EVENT_PROGRESS && e->kind != PRISM_EVENT_SGRAPH)
        g_ptr_array_add (c->events, prism_event_ref (e));
    }
}

static void
on_finished (PrismSession *session, gpointer data)
{
  g_main_loop_quit (((Collect *) data)->loop);
}

/* Runs a session to its end; returns its events (no progress, no sGraphs). */
static GPtrArray *
run_session (PrismGraph *prog, const PrismPipelineOptions *o, GPtrArray **cands)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismSession) s = prism_session_new (prog, o, &error);
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  Collect c = { loop, g_ptr_array_new_with_free_func ((GDestroyNotify) prism_event_unref) };

  g_assert_no_error (error);
  g_signal_connect (s, "events", G_CALLBACK (on_events), &c);
  g_signal_connect (s, "finished", G_CALLBACK (on_finished), &c);
  prism_session_start (s);
  g_main_loop_run (loop);
  *cands = prism_session_get_candidates (s);
  return c.events;
}

static int
by_predicted (gconstpointer a, gconstpointer b)
{
  const PrismCandidate *x = *(PrismCandidate * const *) a;
  const PrismCandidate *y = *(PrismCandidate * const *) b;

  if (x->speedup != y->speedup)
    return x->speedup > y->speedup ? -1 : 1;
  return x->id < y->id ? -1 : x->id > y->id;
}

static void
assert_same_measurement (const PrismMeasurement *a, const PrismMeasurement *b)
{
  g_assert_nonnull (a);
  g_assert_nonnull (b);
  g_assert_cmpstr (a->gpu, ==, b->gpu);
  g_assert_cmpstr (a->error, ==, b->error);
  g_assert_cmpfloat_with_epsilon (a->median_us, b->median_us, 1e-9 * a->median_us + 1e-12);
  g_assert_cmpfloat_with_epsilon (a->p20_us, b->p20_us, 1e-9 * a->p20_us + 1e-12);
  g_assert_cmpfloat_with_epsilon (a->p80_us, b->p80_us, 1e-9 * a->p80_us + 1e-12);
  g_assert_cmpfloat_with_epsilon (a->speedup, b->speedup, 1e-9 * a->speedup + 1e-12);
}

static void
test_fake_gpu (void)
{
  g_autoptr(PrismGraph) prog = NULL;
  g_autofree char *out = g_build_filename (tmpdir, "fake", NULL);
  g_autofree char *path = g_build_filename (out, "results.json", NULL);
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GPtrArray) cands = NULL;
  g_autoptr(GPtrArray) sorted = NULL;
  g_autoptr(PrismResults) loaded = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  PrismPipelineOptions o;
  const PrismMeasurement *base = NULL;
  guint n_measured = 0, n_tuning = 0, n_in_file = 0;
  gint finished_at = -1, done_at = -1;
  JsonObject *root, *baseline, *tuning;
  JsonArray *file_cands;

  if (!in_child ())
    return;
  if (!usable)
    {
      g_test_skip ("NVRTC or g++ is not installed");
      return;
    }
  use_fake_driver ();
  prog = f32_program ();
  small_options (&o, out);
  o.tune_top = 2;
  events = run_session (prog, &o, &cands);
  g_assert_cmpuint (cands->len, >=, 3);

  /* The two best by predicted speedup, in that order. */
  sorted = g_ptr_array_copy (cands, (GCopyFunc) prism_candidate_ref, NULL);
  g_ptr_array_set_free_func (sorted, (GDestroyNotify) prism_candidate_unref);
  g_ptr_array_sort (sorted, by_predicted);

  for (guint i = 0; i < events->len; i++)
    {
      const PrismEvent *e = g_ptr_array_index (events, i);

      g_assert_cmpint (e->kind, !=, PRISM_EVENT_ERROR);
      if (e->kind == PRISM_EVENT_TUNING)
        {
          if (n_tuning++ == 0)
            {
              g_assert_cmpint (e->tune_status, ==, PRISM_TUNE_MEASURING);
              g_assert_cmpuint (e->tune_count, ==, 3);
              g_assert_nonnull (strstr (e->message, "Fake CUDA device"));
              g_assert_cmpuint (n_measured, ==, 0);
            }
          else
            {
              g_assert_cmpint (e->tune_status, ==, PRISM_TUNE_DONE);
              g_assert_cmpuint (e->tune_index, ==, 3);
              done_at = (gint) i;
            }
        }
      else if (e->kind == PRISM_EVENT_MEASURED)
        {
          const PrismMeasurement *m = e->measurement;
          g_autoptr(JsonNode) json = prism_event_to_json (e);

          g_assert_cmpuint (e->tune_index, ==, n_measured + 1);
          g_assert_cmpuint (e->tune_count, ==, 3);
          g_assert_nonnull (m);
          g_assert_null (m->error);
          g_assert_cmpstr (m->gpu, ==, "Fake CUDA device (CPU)");
          g_assert_cmpfloat (m->median_us, >, 0);
          g_assert_cmpfloat (m->p20_us, <=, m->median_us);
          g_assert_cmpfloat (m->median_us, <=, m->p80_us);
          g_assert_cmpfloat (m->max_rel_error, <=, 1e-3);
          g_assert_true (json_object_get_boolean_member (json_node_get_object (json), "baseline") ==
                         (e->candidate == NULL));
          if (n_measured == 0)
            {
              g_assert_null (e->candidate);
              g_assert_cmpfloat (m->speedup, ==, 1.0);
              base = m;
            }
          else
            {
              const PrismCandidate *want = g_ptr_array_index (sorted, n_measured - 1);

              g_assert_nonnull (e->candidate);
              g_assert_cmpstr (e->candidate->digest, ==, want->digest);
              g_assert_cmpfloat_with_epsilon (m->speedup, base->median_us / m->median_us,
                                              1e-9 * m->speedup);
              assert_same_measurement (m, prism_candidate_get_measurement (want));
            }
          n_measured++;
        }
      else if (e->kind == PRISM_EVENT_FINISHED)
        finished_at = (gint) i;
    }
  g_assert_cmpuint (n_measured, ==, 3);
  g_assert_cmpuint (n_tuning, ==, 2);
  g_assert_cmpint (done_at, >=, 0);
  g_assert_cmpint (finished_at, ==, (gint) events->len - 1);
  for (guint i = 2; i < sorted->len; i++)
    g_assert_null (prism_candidate_get_measurement (g_ptr_array_index (sorted, i)));

  /* results.json */
  g_assert_true (json_parser_load_from_file (parser, path, &error));
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpint (json_object_get_int_member (root, "version"), ==, 1);
  baseline = json_object_get_object_member (root, "baseline");
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (baseline, "measured_us"), base->median_us,
                                  1e-9 * base->median_us);
  g_assert_cmpfloat (json_object_get_double_member (baseline, "predicted_us"), >, 0);
  tuning = json_object_get_object_member (root, "tuning");
  g_assert_nonnull (strstr (json_object_get_string_member (tuning, "gpu"), "Fake CUDA device"));
  g_assert_cmpint (json_object_get_int_member (tuning, "top"), ==, 2);
  file_cands = json_object_get_array_member (root, "candidates");
  g_assert_cmpuint (json_array_get_length (file_cands), ==, cands->len);
  for (guint i = 0; i < json_array_get_length (file_cands); i++)
    {
      JsonObject *c = json_array_get_object_element (file_cands, i);
      JsonObject *m;

      if (!json_object_has_member (c, "measured"))
        continue;
      m = json_object_get_object_member (c, "measured");
      g_assert_cmpfloat (json_object_get_double_member (m, "median_us"), >, 0);
      g_assert_cmpfloat (json_object_get_double_member (m, "speedup"), >, 0);
      g_assert_false (json_object_has_member (m, "error"));
      g_assert_true (g_str_equal (json_object_get_string_member (c, "digest"),
                                  ((PrismCandidate *) g_ptr_array_index (sorted, 0))->digest) ||
                     g_str_equal (json_object_get_string_member (c, "digest"),
                                  ((PrismCandidate *) g_ptr_array_index (sorted, 1))->digest));
      n_in_file++;
    }
  g_assert_cmpuint (n_in_file, ==, 2);

  /* The reader gives them back. */
  loaded = prism_results_load (path, &error);
  g_assert_no_error (error);
  assert_same_measurement (prism_results_get_baseline_measurement (loaded), base);
  g_assert_nonnull (strstr (prism_results_get_tuning_gpu (loaded), "Fake CUDA device"));
  for (guint i = 0; i < prism_results_get_candidates (loaded)->len; i++)
    {
      const PrismCandidate *lc = g_ptr_array_index (prism_results_get_candidates (loaded), i);

      for (guint j = 0; j < sorted->len; j++)
        {
          const PrismCandidate *c = g_ptr_array_index (sorted, j);

          if (!g_str_equal (c->digest, lc->digest))
            continue;
          if (j < 2)
            assert_same_measurement (prism_candidate_get_measurement (lc), prism_candidate_get_measurement (c));
          else
            g_assert_null (prism_candidate_get_measurement (lc));
        }
    }
}

typedef struct
{
  PrismPipeline *pipeline;
  guint measured;
  guint done_index;
  guint tuning;
} StopRun;

static void
stop_on_measured (PrismEvent *e, gpointer data)
{
  StopRun *run = data;

  if (e->kind == PRISM_EVENT_MEASURED && run->measured++ == 0)
    prism_pipeline_stop (run->pipeline);
  if (e->kind == PRISM_EVENT_TUNING)
    {
      run->tuning++;
      if (e->tune_status == PRISM_TUNE_DONE)
        run->done_index = e->tune_index;
    }
}

/* A stop after the baseline was timed: no candidate is timed. */
static void
test_fake_gpu_stop (void)
{
  g_autoptr(PrismGraph) prog = NULL;
  g_autoptr(PrismPipeline) p = NULL;
  g_autoptr(GPtrArray) cands = NULL;
  g_autoptr(GError) error = NULL;
  PrismPipelineOptions o;
  StopRun run = { 0, };

  if (!in_child ())
    return;
  if (!usable)
    {
      g_test_skip ("NVRTC or g++ is not installed");
      return;
    }
  use_fake_driver ();
  prog = f32_program ();
  small_options (&o, NULL);
  o.tune_top = 3;
  p = prism_pipeline_new (prog, &o, &error);
  g_assert_no_error (error);
  run.pipeline = p;
  prism_pipeline_set_handlers (p, stop_on_measured, NULL, &run);
  g_assert_true (prism_pipeline_run (p, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (run.measured, ==, 1);
  g_assert_cmpuint (run.tuning, ==, 2);
  g_assert_cmpuint (run.done_index, ==, 1);
  cands = prism_pipeline_get_candidates (p);
  g_assert_cmpuint (cands->len, >, 0);
  for (guint i = 0; i < cands->len; i++)
    g_assert_null (prism_candidate_get_measurement (g_ptr_array_index (cands, i)));
}

typedef struct
{
  PrismPipeline *pipeline;
  gboolean then_stop;        /* lift the pause with a stop instead of a resume */
  GThread *lifter;
  guint measured;
} PauseRun;

static gpointer
lift_pause_later (gpointer data)
{
  PauseRun *run = data;

  g_usleep (300 * 1000);
  if (run->then_stop)
    prism_pipeline_stop (run->pipeline);
  else
    prism_pipeline_set_paused (run->pipeline, FALSE);
  return NULL;
}

static void
pause_on_measured (PrismEvent *e, gpointer data)
{
  PauseRun *run = data;

  if (e->kind == PRISM_EVENT_MEASURED && run->measured++ == 0)
    {
      prism_pipeline_set_paused (run->pipeline, TRUE);
      run->lifter = g_thread_new ("lift-pause", lift_pause_later, run);
    }
}

static guint
run_paused (gboolean then_stop)
{
  g_autoptr(PrismGraph) prog = f32_program ();
  g_autoptr(PrismPipeline) p = NULL;
  g_autoptr(GError) error = NULL;
  PrismPipelineOptions o;
  PauseRun run = { 0, };

  small_options (&o, NULL);
  o.tune_top = 2;
  p = prism_pipeline_new (prog, &o, &error);
  g_assert_no_error (error);
  run.pipeline = p;
  run.then_stop = then_stop;
  prism_pipeline_set_handlers (p, pause_on_measured, NULL, &run);
  g_assert_true (prism_pipeline_run (p, &error));
  g_assert_no_error (error);
  g_assert_nonnull (run.lifter);
  g_thread_join (run.lifter);
  return run.measured;
}

/* A pause after the baseline was timed holds the timings: stopped while
 * paused, the run times nothing more (without the wait it would have gone
 * on at once); resumed, it times the others. */
static void
test_fake_gpu_pause (void)
{
  if (!in_child ())
    return;
  if (!usable)
    {
      g_test_skip ("NVRTC or g++ is not installed");
      return;
    }
  use_fake_driver ();
  g_assert_cmpuint (run_paused (TRUE), ==, 1);
  g_assert_cmpuint (run_paused (FALSE), ==, 3);
}

/* The driver library is missing: the search finishes normally and says, once,
 * that speedups are predicted. */
static void
test_no_gpu (void)
{
  g_autoptr(PrismGraph) prog = NULL;
  g_autofree char *out = g_build_filename (tmpdir, "nogpu", NULL);
  g_autofree char *path = g_build_filename (out, "results.json", NULL);
  g_autofree char *missing = g_build_filename (tmpdir, "no-such-dir", "libcuda.so.1", NULL);
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GPtrArray) cands = NULL;
  g_autoptr(PrismResults) loaded = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  PrismPipelineOptions o;
  guint n_tuning = 0;
  JsonObject *root, *baseline;
  JsonArray *file_cands;

  if (!in_child ())
    return;
  g_setenv ("PRISM_CUDA_LIBRARY", missing, TRUE);
  prog = f32_program ();
  small_options (&o, out);
  g_assert_cmpuint (o.tune_top, ==, 5);   /* the default: tune when there is a GPU */
  events = run_session (prog, &o, &cands);
  g_assert_cmpuint (cands->len, >, 0);
  for (guint i = 0; i < events->len; i++)
    {
      const PrismEvent *e = g_ptr_array_index (events, i);

      g_assert_cmpint (e->kind, !=, PRISM_EVENT_MEASURED);
      g_assert_cmpint (e->kind, !=, PRISM_EVENT_ERROR);
      if (e->kind == PRISM_EVENT_TUNING)
        {
          g_autoptr(JsonNode) json = prism_event_to_json (e);

          n_tuning++;
          g_assert_cmpint (e->tune_status, ==, PRISM_TUNE_NO_GPU);
          g_assert_cmpuint (e->tune_count, ==, 0);
          g_assert_nonnull (strstr (e->message, "no GPU"));
          g_assert_nonnull (strstr (e->message, missing));
          g_assert_cmpstr (json_object_get_string_member (json_node_get_object (json), "status"), ==, "no_gpu");
        }
      if (e->kind == PRISM_EVENT_FINISHED)
        {
          g_assert_cmpuint (i, ==, events->len - 1);
          g_assert_cmpstr (e->message, ==, "exhausted");
        }
    }
  g_assert_cmpuint (n_tuning, ==, 1);
  for (guint i = 0; i < cands->len; i++)
    g_assert_null (prism_candidate_get_measurement (g_ptr_array_index (cands, i)));

  g_assert_true (json_parser_load_from_file (parser, path, &error));
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));
  baseline = json_object_get_object_member (root, "baseline");
  g_assert_false (json_object_has_member (baseline, "measured_us"));
  g_assert_true (JSON_NODE_HOLDS_NULL (json_object_get_member (json_object_get_object_member (root, "tuning"), "gpu")));
  file_cands = json_object_get_array_member (root, "candidates");
  for (guint i = 0; i < json_array_get_length (file_cands); i++)
    g_assert_false (json_object_has_member (json_array_get_object_element (file_cands, i), "measured"));
  loaded = prism_results_load (path, &error);
  g_assert_no_error (error);
  g_assert_null (prism_results_get_baseline_measurement (loaded));
  g_assert_null (prism_results_get_tuning_gpu (loaded));
  g_assert_nonnull (strstr (prism_results_get_tuning_message (loaded), "no GPU"));
}

/* tune_top 0: nothing is probed or timed, and the run says so. */
static void
test_off (void)
{
  g_autoptr(PrismGraph) prog = f32_program ();
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GPtrArray) cands = NULL;
  PrismPipelineOptions o;
  guint n_tuning = 0;

  small_options (&o, NULL);
  o.tune_top = 0;
  events = run_session (prog, &o, &cands);
  for (guint i = 0; i < events->len; i++)
    {
      const PrismEvent *e = g_ptr_array_index (events, i);

      g_assert_cmpint (e->kind, !=, PRISM_EVENT_MEASURED);
      if (e->kind == PRISM_EVENT_TUNING)
        {
          n_tuning++;
          g_assert_cmpint (e->tune_status, ==, PRISM_TUNE_OFF);
        }
    }
  g_assert_cmpuint (n_tuning, ==, 1);
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismCudaRuntime) rt = prism_cuda_runtime_new ();
  g_autofree char *gxx = g_find_program_in_path ("g++");
  g_autofree char *include = prism_cuda_find_include_dir ();
  int rc;

  /* The paths reach the per-test children through the environment. */
  if (argc == 4 && argv[1][0] != '-')
    {
      g_setenv ("PRISM_TEST_CLI", argv[1], TRUE);
      g_setenv ("PRISM_GPU_WORKER", argv[2], TRUE);
      g_setenv ("PRISM_TEST_FAKE_CUDA", argv[3], TRUE);
    }
  g_test_init (&argc, &argv, NULL);
  fake_path = g_getenv ("PRISM_TEST_FAKE_CUDA");
  if (fake_path == NULL)
    g_error ("usage: %s PRISM PRISM-GPU-WORKER LIBFAKECUDA", argv[0]);
  usable = gxx != NULL && include != NULL && prism_cuda_runtime_load_nvrtc (rt, NULL);
  tmpdir = g_dir_make_tmp ("prism-search-tune-XXXXXX", &error);
  g_assert_no_error (error);

  g_test_add_func ("/search-tune/fake-gpu", test_fake_gpu);
  g_test_add_func ("/search-tune/fake-gpu-stop", test_fake_gpu_stop);
  g_test_add_func ("/search-tune/fake-gpu-pause", test_fake_gpu_pause);
  g_test_add_func ("/search-tune/no-gpu", test_no_gpu);
  g_test_add_func ("/search-tune/off", test_off);
  rc = g_test_run ();
  codegen_remove_tree (tmpdir);
  g_free (tmpdir);
  return rc;
}
