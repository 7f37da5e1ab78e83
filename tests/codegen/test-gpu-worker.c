/* test-gpu-worker.c — the GPU worker on hand-written job folders, cuBLASLt
 * and the CUDA library lookup, against fakes
 *
 * fake-cuda.c runs the CPU build of each job's kernels.cu, fake-cublaslt.c
 * multiplies on the CPU as cuBLASLt documents it (column-major), and
 * fake-nvml.c reports fixed clocks.  The jobs go through prism-gpu-worker
 * (prism_gpu_bench_run_job()): a vendor GEMM beside an ordinary kernel, the
 * same without cuBLASLt (no_vendor) and with a wrong cuBLASLt (mismatch,
 * nothing timed), the workspace zeroed before the first launch, a failing
 * launch (cuda_error naming the call), a crashing and a hanging worker, no
 * NVML — and after each failure the next job runs.  PrismCublasLt is also
 * called directly on host memory (row-major results, broadcast batches,
 * one heuristic query per shape), and the library and header lookup runs
 * on fake folder trees (site-packages/nvidia/…).  The worker parts need
 * NVRTC and g++ (skipped with 77 otherwise).
 *
 * Arguments: prism-gpu-worker, libfakecuda.so, libfakecublaslt.so, libfakenvml.so.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <dlfcn.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "codegen-cases.h"
#include "prism-cublaslt.h"
#include "prism-cuda-runtime.h"
#include "prism-error.h"
#include "prism-gpu-bench.h"
#include "prism-kernel-headers.h"

static char *tmpdir;
static gboolean usable;

/* Each test runs in a fresh child of the test program, so that its
 * environment is set before any thread exists. */
static gboolean
in_child (void)
{
  if (g_test_subprocess ())
    return TRUE;
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
  return FALSE;
}

static gboolean
skip_unusable (void)
{
  if (!usable)
    g_test_skip ("NVRTC or g++ is not installed");
  return !usable;
}

static void
write_file (const char *dir, const char *name, const void *data, gsize len)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, data, (gssize) len, &error);
  g_assert_no_error (error);
}

static JsonObject *
load_json (const char *dir, const char *name, JsonParser *parser)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr(GError) error = NULL;

  json_parser_load_from_file (parser, path, &error);
  g_assert_no_error (error);
  return json_node_get_object (json_parser_get_root (parser));
}

/* Under the sanitizers the worker is checked too: its log must hold no
 * report (a leak does not change what it writes into result.json). */
static void
assert_clean_log (const char *dir)
{
  g_autofree char *path = g_build_filename (dir, "worker.log", NULL);
  g_autofree char *log = NULL;

  g_assert_true (g_file_get_contents (path, &log, NULL, NULL));
  if (strstr (log, "Sanitizer") != NULL || strstr (log, "runtime error:") != NULL)
    g_error ("the worker's log in %s reports an error:\n%s", dir, log);
}

static const char job_json[] =
  "{\"type\": \"bench\", \"device\": 0, \"warmup_ms\": 1, \"min_time_ms\": 1, \"min_samples\": 5,"
  " \"max_samples\": 20, \"tolerance\": 0.02, \"sample_budget_s\": 20}";

/* ---- A vendor GEMM beside an ordinary kernel ---- */

enum { BATCH = 2, M = 4, N = 8, K = 16 };

/* The ordinary kernel copies B (16-bit words, dtype-blind, so that the CPU
 * build moves the same bytes as the GPU) into the workspace; the vendor
 * GEMM multiplies the input A by it: C[b] = A[b] · B, B broadcast. */
static const char vendor_source[] =
  "#include \"prism-platform.cuh\"\n"
  "extern \"C\" __global__ void\n"
  "prism_bench_copy16 (const unsigned short *in, unsigned short *out)\n"
  "{\n"
  "  for (long long i = (long long) blockIdx.x * blockDim.x + threadIdx.x; i < 128; i += (long long) gridDim.x * blockDim.x)\n"
  "    out[i] = in[i];\n"
  "}\n";

static const char vendor_manifest[] =
  "{\"inputs\": [{\"index\": 0, \"dtype\": \"f16\", \"bytes\": 256}, {\"index\": 1, \"dtype\": \"f16\", \"bytes\": 256}],"
  " \"outputs\": [{\"index\": 0, \"dtype\": \"f16\", \"bytes\": 128}],"
  " \"workspace_bytes\": 512,"
  " \"kernels\": ["
  "  {\"name\": \"prism_bench_copy16\", \"role\": \"block_graph\", \"op\": 1, \"grid\": [2, 1, 1], \"block\": [64, 1, 1],"
  "   \"shared_memory_bytes\": 0, \"args\": [{\"kind\": \"input\", \"index\": 1, \"dtype\": \"f16\", \"const\": true},"
  "   {\"kind\": \"workspace\", \"offset\": 256, \"dtype\": \"f16\", \"const\": false}]},"
  "  {\"name\": \"prism_bench_gemm3\", \"role\": \"vendor_gemm\", \"op\": 3,"
  "   \"grid\": [0, 0, 0], \"block\": [0, 0, 0], \"shared_memory_bytes\": 0,"
  "   \"gemm\": {\"batch\": 2, \"m\": 4, \"n\": 8, \"k\": 16, \"dtype\": \"f16\","
  "             \"stride_a\": 64, \"stride_b\": 0, \"stride_c\": 32},"
  "   \"args\": [{\"kind\": \"input\", \"index\": 0, \"dtype\": \"f16\", \"const\": true},"
  "            {\"kind\": \"workspace\", \"offset\": 256, \"dtype\": \"f16\", \"const\": true},"
  "            {\"kind\": \"output\", \"index\": 0, \"dtype\": \"f16\", \"const\": false}]}]}";

static float a_value (int b, int i, int k) { return (float) ((b * 3 + i * 5 + k) % 7 - 3); }
static float b_value (int k, int j) { return (float) ((k * 2 + j) % 5 - 2); }

/* A job folder of @source and @manifest; with @vendor_inputs the inputs
 * and the expected output of the vendor GEMM, else one zero f32 output of
 * 64 elements. */
static char *
make_job (const char *name, const char *source, const char *manifest, gboolean vendor_inputs)
{
  char *dir = g_build_filename (tmpdir, name, NULL);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  write_file (dir, "kernels.cu", source, strlen (source));
  write_file (dir, "manifest.json", manifest, strlen (manifest));
  write_file (dir, "job.json", job_json, strlen (job_json));
  if (vendor_inputs)
    {
      _Float16 a[BATCH * M * K], bm[K * N];
      float c[BATCH * M * N];

      for (int b = 0; b < BATCH; b++)
        for (int i = 0; i < M; i++)
          for (int k = 0; k < K; k++)
            a[(b * M + i) * K + k] = (_Float16) a_value (b, i, k);
      for (int k = 0; k < K; k++)
        for (int j = 0; j < N; j++)
          bm[k * N + j] = (_Float16) b_value (k, j);
      for (int b = 0; b < BATCH; b++)
        for (int i = 0; i < M; i++)
          for (int j = 0; j < N; j++)
            {
              double s = 0;
              for (int k = 0; k < K; k++)
                s += (double) a_value (b, i, k) * b_value (k, j);
              c[(b * M + i) * N + j] = (float) s;
            }
      write_file (dir, "in0.bin", a, sizeof a);
      write_file (dir, "in1.bin", bm, sizeof bm);
      write_file (dir, "ref0.f32", c, sizeof c);
    }
  else
    {
      float zeros[64] = { 0, };
      write_file (dir, "ref0.f32", zeros, sizeof zeros);
    }
  return dir;
}

static void
quick_options (PrismGpuBenchOptions *o)
{
  prism_gpu_bench_options_init (o);
  o->timeout_s = 60;
}

static void
use_fakes (void)
{
  g_autofree char *headers = g_build_filename (tmpdir, "kernels", NULL);

  g_assert_true (prism_kernel_headers_write (headers, NULL));
  g_setenv ("PRISM_FAKE_CUDA_KERNELS", headers, TRUE);
}

static void
test_vendor_gemm (void)
{
  g_autofree char *dir = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  PrismGpuBenchOptions o;
  PrismGpuBenchResult r;
  JsonObject *res, *clocks;
  JsonArray *kernels;

  if (!in_child () || skip_unusable ())
    return;
  use_fakes ();
  dir = make_job ("vendor", vendor_source, vendor_manifest, TRUE);
  quick_options (&o);
  if (!prism_gpu_bench_run_job (dir, &o, &r, &error))
    g_error ("the vendor job failed: %s", error->message);
  g_assert_cmpint (r.fault, ==, PRISM_GPU_FAULT_NONE);
  g_assert_cmpfloat (r.max_rel_error, <=, 1e-3);
  g_assert_cmpuint (r.n_samples, >=, 5);
  g_assert_cmpfloat (r.median_us, >, 0);
  g_assert_cmpuint (r.n_kernels, ==, 2);
  g_assert_nonnull (r.kernels);
  g_assert_cmpuint (r.kernels->len, ==, 2);
  g_assert_cmpstr (g_array_index (r.kernels, PrismGpuBenchKernel, 0).name, ==, "prism_bench_copy16");
  g_assert_cmpint (g_array_index (r.kernels, PrismGpuBenchKernel, 0).registers, >, 0);
  g_assert_cmpint (g_array_index (r.kernels, PrismGpuBenchKernel, 0).local_bytes, ==, 0);
  g_assert_cmpstr (g_array_index (r.kernels, PrismGpuBenchKernel, 1).name, ==, "prism_bench_gemm3");
  g_assert_cmpint (g_array_index (r.kernels, PrismGpuBenchKernel, 1).registers, ==, -1);
  /* The fake NVML's device is the fake driver's (by PCI bus id). */
  g_assert_cmpuint (r.clocks.sm_mhz, ==, 1755);
  g_assert_cmpuint (r.clocks.sm_max_mhz, ==, 1980);
  g_assert_cmpuint (r.clocks.attribute_mhz, ==, 1980);
  g_assert_null (r.clocks.note);
  prism_gpu_bench_result_clear (&r);
  assert_clean_log (dir);

  /* result.json as the worker wrote it. */
  res = load_json (dir, "result.json", parser);
  g_assert_cmpstr (json_object_get_string_member (res, "status"), ==, "ok");
  g_assert_cmpint (json_object_get_int_member (res, "samples"), >, 0);
  g_assert_cmpfloat (json_object_get_double_member (res, "max_rel_error"), <=, 1e-3);
  g_assert_nonnull (strstr (json_object_get_string_member (res, "cublaslt"), "fakecublaslt"));
  kernels = json_object_get_array_member (res, "kernels");
  g_assert_cmpuint (json_array_get_length (kernels), ==, 2);
  for (guint i = 0; i < 2; i++)
    {
      JsonObject *k = json_array_get_object_element (kernels, i);
      g_assert_true (json_object_has_member (k, "name"));
      g_assert_true (json_object_has_member (k, "registers"));
      g_assert_true (json_object_has_member (k, "local_bytes"));
    }
  g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (kernels, 0), "registers"), >, 0);
  g_assert_true (json_object_get_null_member (json_array_get_object_element (kernels, 1), "registers"));
  clocks = json_object_get_object_member (res, "clocks");
  g_assert_cmpint (json_object_get_int_member (clocks, "sm_mhz"), ==, 1755);
  g_assert_true (json_object_get_null_member (clocks, "note"));
}

static void
test_no_vendor (void)
{
  g_autofree char *dir = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  PrismGpuBenchOptions o;
  PrismGpuBenchResult r;
  JsonObject *res;

  if (!in_child () || skip_unusable ())
    return;
  use_fakes ();
  g_setenv ("PRISM_CUBLASLT_LIBRARY", "/nonexistent/libcublasLt.so.13", TRUE);
  dir = make_job ("no-vendor", vendor_source, vendor_manifest, TRUE);
  quick_options (&o);
  g_assert_false (prism_gpu_bench_run_job (dir, &o, &r, &error));
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_NO_VENDOR);
  g_assert_nonnull (strstr (error->message, "cuBLASLt"));
  g_assert_nonnull (strstr (error->message, "/nonexistent/libcublasLt.so.13"));
  g_assert_cmpint (r.fault, ==, PRISM_GPU_FAULT_NO_VENDOR);
  g_assert_cmpuint (r.n_samples, ==, 0);
  prism_gpu_bench_result_clear (&r);
  res = load_json (dir, "result.json", parser);
  g_assert_cmpstr (json_object_get_string_member (res, "status"), ==, "no_vendor");
  assert_clean_log (dir);
  g_assert_nonnull (strstr (json_object_get_string_member (res, "message"), "cuBLASLt"));
  g_assert_cmpstr (prism_gpu_fault_to_string (PRISM_GPU_FAULT_NO_VENDOR), ==, "no_vendor");
}

/* A cuBLASLt that computes the wrong thing is caught before any timing. */
static void
test_vendor_corrupt (void)
{
  g_autofree char *dir = NULL;
  g_autoptr(GError) error = NULL;
  PrismGpuBenchOptions o;
  PrismGpuBenchResult r;

  if (!in_child () || skip_unusable ())
    return;
  use_fakes ();
  g_setenv ("PRISM_FAKE_CUBLASLT_CORRUPT", "1", TRUE);
  dir = make_job ("vendor-corrupt", vendor_source, vendor_manifest, TRUE);
  quick_options (&o);
  g_assert_false (prism_gpu_bench_run_job (dir, &o, &r, &error));
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_FAILED);
  g_assert_nonnull (strstr (error->message, "differs from the interpreter"));
  g_assert_cmpint (r.fault, ==, PRISM_GPU_FAULT_MISMATCH);
  g_assert_cmpuint (r.n_samples, ==, 0);
  g_assert_cmpfloat (r.max_rel_error, >, 2e-2);
  prism_gpu_bench_result_clear (&r);
  assert_clean_log (dir);
}

/* ---- The workspace, CUDA errors, crashes, hangs, no NVML ---- */

/* Copies the workspace into the output: zero only if the worker zeroed it
 * (the fake driver's fresh memory is all ones, NaN as f32). */
static const char ws_source[] =
  "#include \"prism-platform.cuh\"\n"
  "extern \"C\" __global__ void\n"
  "prism_bench_copy_ws (const float *ws, float *out)\n"
  "{\n"
  "  for (long long i = (long long) blockIdx.x * blockDim.x + threadIdx.x; i < 64; i += (long long) gridDim.x * blockDim.x)\n"
  "    out[i] = ws[i];\n"
  "}\n";

static const char ws_manifest[] =
  "{\"inputs\": [], \"outputs\": [{\"index\": 0, \"dtype\": \"f32\", \"bytes\": 256}], \"workspace_bytes\": 256,"
  " \"kernels\": [{\"name\": \"prism_bench_copy_ws\", \"role\": \"block_graph\", \"op\": 1, \"grid\": [1, 1, 1],"
  "   \"block\": [64, 1, 1], \"shared_memory_bytes\": 0,"
  "   \"args\": [{\"kind\": \"workspace\", \"offset\": 0, \"dtype\": \"f32\", \"const\": true},"
  "            {\"kind\": \"output\", \"index\": 0, \"dtype\": \"f32\", \"const\": false}]}]}";

static void
test_workspace_zero (void)
{
  g_autofree char *dir = NULL;
  g_autoptr(GError) error = NULL;
  PrismGpuBenchOptions o;
  PrismGpuBenchResult r;

  if (!in_child () || skip_unusable ())
    return;
  use_fakes ();
  dir = make_job ("workspace", ws_source, ws_manifest, FALSE);
  quick_options (&o);
  if (!prism_gpu_bench_run_job (dir, &o, &r, &error))
    g_error ("the workspace job failed: %s", error->message);
  g_assert_cmpfloat (r.max_rel_error, ==, 0);
  g_assert_cmpuint (r.n_samples, >, 0);
  prism_gpu_bench_result_clear (&r);
  assert_clean_log (dir);
}

/* The workspace job with its kernel launched twice per run: the second
 * launch may overlap the first (programmatic dependent launch). */
static const char ws_twice_manifest[] =
  "{\"inputs\": [], \"outputs\": [{\"index\": 0, \"dtype\": \"f32\", \"bytes\": 256}], \"workspace_bytes\": 256,"
  " \"kernels\": [{\"name\": \"prism_bench_copy_ws\", \"role\": \"block_graph\", \"op\": 1, \"grid\": [1, 1, 1],"
  "   \"block\": [64, 1, 1], \"shared_memory_bytes\": 0,"
  "   \"args\": [{\"kind\": \"workspace\", \"offset\": 0, \"dtype\": \"f32\", \"const\": true},"
  "            {\"kind\": \"output\", \"index\": 0, \"dtype\": \"f32\", \"const\": false}]},"
  "  {\"name\": \"prism_bench_copy_ws\", \"role\": \"block_graph\", \"op\": 2, \"grid\": [1, 1, 1],"
  "   \"block\": [64, 1, 1], \"shared_memory_bytes\": 0,"
  "   \"args\": [{\"kind\": \"workspace\", \"offset\": 0, \"dtype\": \"f32\", \"const\": true},"
  "            {\"kind\": \"output\", \"index\": 0, \"dtype\": \"f32\", \"const\": false}]}]}";

/* What the fake driver counted: flushes, graph launches, cuLaunchKernelEx. */
static void
read_fake_stats (const char *path, guint *flushes, guint *graphs, guint *ex)
{
  g_autofree char *text = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_assert_cmpint (sscanf (text, "flushes %u graph_launches %u launches_ex %u", flushes, graphs, ex), ==, 3);
}

/* The timed runs are one CUDA graph each, their second launch overlapping
 * the first (the fake device is sm_90), and each sample is preceded by the
 * read-only flush kernel — or, where the driver cannot capture, the
 * launches go one by one. */
static void
test_graph (void)
{
  g_autofree char *stats = g_build_filename (tmpdir, "fake-stats", NULL);
  PrismGpuBenchOptions o;

  if (!in_child () || skip_unusable ())
    return;
  use_fakes ();
  g_setenv ("PRISM_FAKE_CUDA_STATS", stats, TRUE);
  quick_options (&o);
  for (guint no_graph = 0; no_graph < 2; no_graph++)
    {
      g_autofree char *name = g_strdup_printf ("graph%u", no_graph);
      g_autofree char *dir = make_job (name, ws_source, ws_twice_manifest, FALSE);
      g_autoptr(JsonParser) parser = json_parser_new ();
      g_autoptr(GError) error = NULL;
      PrismGpuBenchResult r;
      JsonObject *res;
      guint flushes = 0, graphs = 0, ex = 0;

      if (no_graph)
        g_setenv ("PRISM_FAKE_CUDA_NO_GRAPH", "1", TRUE);
      if (!prism_gpu_bench_run_job (dir, &o, &r, &error))
        g_error ("the graph job failed: %s", error->message);
      g_assert_cmpfloat (r.max_rel_error, ==, 0);
      res = load_json (dir, "result.json", parser);
      g_assert_cmpstr (json_object_get_string_member (res, "launch_mode"), ==, no_graph ? "stream" : "graph");
      g_assert_true (json_object_get_boolean_member (res, "programmatic_dependent_launch"));
      read_fake_stats (stats, &flushes, &graphs, &ex);
      g_assert_cmpuint (flushes, ==, r.n_samples);
      if (no_graph)
        g_assert_cmpuint (graphs, ==, 0);
      else
        g_assert_cmpuint (graphs, >=, r.n_samples);
      /* The second launch of the first run, of the capture or of every run. */
      g_assert_cmpuint (ex, >=, no_graph ? r.n_samples + 1 : 2);
      prism_gpu_bench_result_clear (&r);
      assert_clean_log (dir);
    }
  g_unsetenv ("PRISM_FAKE_CUDA_NO_GRAPH");
}

/* Runs the workspace job once more: a failure before leaves nothing behind. */
static void
assert_next_job_runs (const char *name)
{
  g_autofree char *dir = make_job (name, ws_source, ws_manifest, FALSE);
  g_autoptr(GError) error = NULL;
  PrismGpuBenchOptions o;
  PrismGpuBenchResult r;

  quick_options (&o);
  if (!prism_gpu_bench_run_job (dir, &o, &r, &error))
    g_error ("the job after a failure failed: %s", error->message);
  g_assert_cmpint (r.fault, ==, PRISM_GPU_FAULT_NONE);
  prism_gpu_bench_result_clear (&r);
}

/* A launch fails (a faulting kernel, a lost device): the call and the
 * driver's error are named. */
static void
test_cuda_error (void)
{
  g_autofree char *dir = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  PrismGpuBenchOptions o;
  PrismGpuBenchResult r;
  JsonObject *res;

  if (!in_child () || skip_unusable ())
    return;
  use_fakes ();
  g_setenv ("PRISM_FAKE_CUDA_FAIL", "copy_ws", TRUE);
  dir = make_job ("cuda-error", ws_source, ws_manifest, FALSE);
  quick_options (&o);
  g_assert_false (prism_gpu_bench_run_job (dir, &o, &r, &error));
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_FAILED);
  g_assert_cmpint (r.fault, ==, PRISM_GPU_FAULT_CUDA_ERROR);
  g_assert_cmpstr (r.cuda_call, ==, "cuLaunchKernel (prism_bench_copy_ws)");
  g_assert_cmpstr (r.cuda_error, ==, "CUDA_ERROR_LAUNCH_FAILED");
  g_assert_nonnull (strstr (error->message, "CUDA_ERROR_LAUNCH_FAILED"));
  g_assert_nonnull (strstr (error->message, "cuLaunchKernel (prism_bench_copy_ws)"));
  prism_gpu_bench_result_clear (&r);
  res = load_json (dir, "result.json", parser);
  g_assert_cmpstr (json_object_get_string_member (res, "status"), ==, "cuda_error");
  g_assert_cmpstr (json_object_get_string_member (res, "cuda_error"), ==, "CUDA_ERROR_LAUNCH_FAILED");
  assert_clean_log (dir);
  g_unsetenv ("PRISM_FAKE_CUDA_FAIL");
  assert_next_job_runs ("after-cuda-error");
}

static void
test_crash (void)
{
  g_autofree char *dir = NULL;
  g_autoptr(GError) error = NULL;
  PrismGpuBenchOptions o;
  PrismGpuBenchResult r;

  if (!in_child () || skip_unusable ())
    return;
  use_fakes ();
  g_setenv ("PRISM_FAKE_CUDA_CRASH", "copy_ws", TRUE);
  dir = make_job ("crash", ws_source, ws_manifest, FALSE);
  quick_options (&o);
  g_assert_false (prism_gpu_bench_run_job (dir, &o, &r, &error));
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_FAILED);
  g_assert_cmpint (r.fault, ==, PRISM_GPU_FAULT_CRASH);
  g_assert_nonnull (strstr (error->message, "without a result"));
  g_assert_nonnull (strstr (error->message, "signal"));
  prism_gpu_bench_result_clear (&r);
  g_unsetenv ("PRISM_FAKE_CUDA_CRASH");
  assert_next_job_runs ("after-crash");
}

/* A kernel that hangs: killed at the timeout, the step it hung in named. */
static void
test_hang (void)
{
  g_autofree char *dir = NULL;
  g_autoptr(GError) error = NULL;
  PrismGpuBenchOptions o;
  PrismGpuBenchResult r;

  if (!in_child () || skip_unusable ())
    return;
  use_fakes ();
  g_setenv ("PRISM_FAKE_CUDA_HANG", "copy_ws", TRUE);
  dir = make_job ("hang", ws_source, ws_manifest, FALSE);
  quick_options (&o);
  o.timeout_s = 3;
  g_assert_false (prism_gpu_bench_run_job (dir, &o, &r, &error));
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_LIMIT);
  g_assert_cmpint (r.fault, ==, PRISM_GPU_FAULT_TIMEOUT);
  g_assert_nonnull (strstr (error->message, "within 3 s"));
  g_assert_nonnull (strstr (error->message, "the first run"));
  prism_gpu_bench_result_clear (&r);
  g_unsetenv ("PRISM_FAKE_CUDA_HANG");
  assert_next_job_runs ("after-hang");
}

static void
test_no_nvml (void)
{
  g_autofree char *dir = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  PrismGpuBenchOptions o;
  PrismGpuBenchResult r;
  JsonObject *clocks;

  if (!in_child () || skip_unusable ())
    return;
  use_fakes ();
  g_setenv ("PRISM_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", TRUE);
  dir = make_job ("no-nvml", ws_source, ws_manifest, FALSE);
  quick_options (&o);
  if (!prism_gpu_bench_run_job (dir, &o, &r, &error))
    g_error ("a job without NVML failed: %s", error->message);
  g_assert_cmpuint (r.clocks.sm_mhz, ==, 0);
  g_assert_cmpuint (r.clocks.attribute_mhz, ==, 1980);
  g_assert_nonnull (r.clocks.note);
  g_assert_nonnull (strstr (r.clocks.note, "/nonexistent/libnvidia-ml.so.1"));
  prism_gpu_bench_result_clear (&r);
  clocks = json_object_get_object_member (load_json (dir, "result.json", parser), "clocks");
  g_assert_true (json_object_get_null_member (clocks, "sm_mhz"));
  g_assert_true (json_object_get_null_member (clocks, "sm_max_mhz"));
  g_assert_nonnull (strstr (json_object_get_string_member (clocks, "note"), "NVML"));
  assert_clean_log (dir);
}

/* ---- PrismCublasLt on host memory ---- */

static void
store (void *p, PrismDtype d, gsize i, float v)
{
  if (d == PRISM_DTYPE_F32)
    ((float *) p)[i] = v;
  else if (d == PRISM_DTYPE_F16)
    ((_Float16 *) p)[i] = (_Float16) v;
  else
    {
      guint32 x;
      memcpy (&x, &v, 4);
      ((guint16 *) p)[i] = (guint16) (x >> 16);   /* small integers are exact */
    }
}

static float
load (const void *p, PrismDtype d, gsize i)
{
  if (d == PRISM_DTYPE_F32)
    return ((const float *) p)[i];
  if (d == PRISM_DTYPE_F16)
    return (float) ((const _Float16 *) p)[i];
  {
    guint32 x = (guint32) ((const guint16 *) p)[i] << 16;
    float f;
    memcpy (&f, &x, 4);
    return f;
  }
}

/* C[b] = A[b] · B (B broadcast) in row-major, against a direct sum: a
 * transposition or a stride mix-up shows in non-square shapes. */
static void
test_cublaslt_gemm (gconstpointer data)
{
  /* 0, 1, 2: f16, bf16, f32 (PrismDtype); 3: f32 without a pedantic algorithm. */
  gboolean fallback = GPOINTER_TO_INT (data) == 3;
  PrismDtype dtype = fallback ? PRISM_DTYPE_F32 : (PrismDtype) GPOINTER_TO_INT (data);
  g_autoptr(PrismCublasLt) lt = NULL;
  g_autoptr(GError) error = NULL;
  const int batch = 3, m = 5, n = 7, k = 6;
  gsize es = prism_dtype_size (dtype);
  g_autofree guint8 *a = g_malloc0 (batch * m * k * es);
  g_autofree guint8 *b = g_malloc0 (k * n * es);
  g_autofree guint8 *c = g_malloc0 (batch * m * n * es);
  g_autofree guint8 *ws = g_malloc0 (4096);
  PrismGemmShape shape = { batch, m, n, k, dtype, m * k, 0, m * n };
  PrismGemmShape other = { 1, n, m, k, dtype, 0, 0, 0 };
  int (*calls) (void);

  if (!in_child ())
    return;
  if (fallback)
    g_setenv ("PRISM_FAKE_CUBLASLT_NO_PEDANTIC", "1", TRUE);
  lt = prism_cublaslt_new ();
  g_assert_true (prism_cublaslt_load (lt, &error));
  g_assert_no_error (error);
  g_assert_nonnull (strstr (prism_cublaslt_get_path (lt), "fakecublaslt"));
  g_assert_cmpuint (prism_cublaslt_get_version (lt), ==, 130100);
  for (int i = 0; i < batch * m * k; i++)
    store (a, dtype, i, (float) (i % 9 - 4));
  for (int i = 0; i < k * n; i++)
    store (b, dtype, i, (float) (i % 5 - 2));

  for (int rep = 0; rep < 2; rep++)
    {
      memset (c, 0, batch * m * n * es);
      g_assert_true (prism_cublaslt_gemm (lt, &shape, (PrismCUdeviceptr) (guintptr) a, (PrismCUdeviceptr) (guintptr) b,
                                          (PrismCUdeviceptr) (guintptr) c, (PrismCUdeviceptr) (guintptr) ws, 4096,
                                          NULL, &error));
      g_assert_no_error (error);
      for (int bi = 0; bi < batch; bi++)
        for (int i = 0; i < m; i++)
          for (int j = 0; j < n; j++)
            {
              double want = 0;
              for (int p = 0; p < k; p++)
                want += (double) load (a, dtype, (bi * m + i) * k + p) * load (b, dtype, p * n + j);
              g_assert_cmpfloat (load (c, dtype, (bi * m + i) * n + j), ==, (float) want);
            }
    }
  /* One heuristic query for the shape, however often it runs (two for f32
   * without a pedantic algorithm: pedantic, then plain 32F). */
  g_assert_cmpuint (prism_cublaslt_get_n_heuristic_queries (lt), ==, fallback ? 2 : 1);
  calls = dlsym (dlopen (g_getenv ("PRISM_CUBLASLT_LIBRARY"), RTLD_NOW | RTLD_NOLOAD), "fake_cublaslt_heuristic_calls");
  g_assert_nonnull (calls);
  g_assert_cmpint (calls (), ==, fallback ? 2 : 1);
  /* A second shape: one more query (with f32 fallback: two more). */
  g_assert_true (prism_cublaslt_gemm (lt, &other, (PrismCUdeviceptr) (guintptr) a, (PrismCUdeviceptr) (guintptr) b,
                                      (PrismCUdeviceptr) (guintptr) c, (PrismCUdeviceptr) (guintptr) ws, 4096, NULL,
                                      &error));
  g_assert_no_error (error);
  g_assert_cmpuint (prism_cublaslt_get_n_heuristic_queries (lt), ==, fallback ? 4 : 2);

  /* Batch items of C that overlap are refused. */
  shape.stride_c = 1;
  g_assert_false (prism_cublaslt_gemm (lt, &shape, (PrismCUdeviceptr) (guintptr) a, (PrismCUdeviceptr) (guintptr) b,
                                       (PrismCUdeviceptr) (guintptr) c, (PrismCUdeviceptr) (guintptr) ws, 4096, NULL,
                                       &error));
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "3 × 5×7×6"));
}

/* A missing library: NO_VENDOR naming it; the real one, when installed,
 * has every function we resolve. */
static void
test_cublaslt_load (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismCublasLt) missing = prism_cublaslt_new ();
  g_autoptr(PrismCublasLt) wrong = prism_cublaslt_new ();
  const char *real = "/usr/local/cuda/lib64/libcublasLt.so.13";

  if (!in_child ())
    return;
  g_setenv ("PRISM_CUBLASLT_LIBRARY", "/nonexistent/libcublasLt.so.13", TRUE);
  g_assert_false (prism_cublaslt_load (missing, &error));
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_NO_VENDOR);
  g_assert_nonnull (strstr (error->message, "cuBLASLt"));
  g_assert_nonnull (strstr (error->message, "/nonexistent/libcublasLt.so.13"));
  g_assert_nonnull (strstr (error->message, "PRISM_CUBLASLT_LIBRARY"));
  g_clear_error (&error);
  g_setenv ("PRISM_CUBLASLT_LIBRARY", "libm.so.6", TRUE);
  g_assert_false (prism_cublaslt_load (wrong, &error));
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_NO_VENDOR);
  g_assert_nonnull (strstr (error->message, "cublasLtCreate"));
  g_clear_error (&error);

  if (g_file_test (real, G_FILE_TEST_EXISTS))
    {
      void *h = dlopen (real, RTLD_NOW | RTLD_LOCAL);
      const char *names[] = {
        "cublasLtCreate", "cublasLtDestroy", "cublasLtGetVersion", "cublasLtGetStatusName",
        "cublasLtMatmulDescCreate", "cublasLtMatmulDescDestroy", "cublasLtMatmulDescSetAttribute",
        "cublasLtMatrixLayoutCreate", "cublasLtMatrixLayoutDestroy", "cublasLtMatrixLayoutSetAttribute",
        "cublasLtMatmulPreferenceCreate", "cublasLtMatmulPreferenceDestroy", "cublasLtMatmulPreferenceSetAttribute",
        "cublasLtMatmulAlgoGetHeuristic", "cublasLtMatmul",
      };

      /* Only the symbols: creating a handle would start CUDA. */
      g_assert_nonnull (h);
      for (guint i = 0; i < G_N_ELEMENTS (names); i++)
        if (dlsym (h, names[i]) == NULL)
          g_error ("%s has no %s", real, names[i]);
    }
}

/* ---- Where the libraries and headers are looked for ---- */

static void
make_dirs_and_link (const char *dir, const char *name, const char *target)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *parent = g_path_get_dirname (path);

  g_assert_cmpint (g_mkdir_with_parents (parent, 0755), ==, 0);
  if (target != NULL)
    g_assert_cmpint (symlink (target, path), ==, 0);
  else
    write_file (parent, strrchr (path, '/') + 1, "", 0);
}

static gboolean
array_has (GPtrArray *dirs, const char *dir)
{
  for (guint i = 0; i < dirs->len; i++)
    if (g_str_equal (g_ptr_array_index (dirs, i), dir))
      return TRUE;
  return FALSE;
}

static guint
index_of (GPtrArray *dirs, const char *dir)
{
  for (guint i = 0; i < dirs->len; i++)
    if (g_str_equal (g_ptr_array_index (dirs, i), dir))
      return i;
  return G_MAXUINT;
}

static void
unset_cuda_env (const char *root)
{
  g_unsetenv ("CUDA_HOME");
  g_unsetenv ("CUDA_PATH");
  g_unsetenv ("VIRTUAL_ENV");
  g_unsetenv ("PRISM_PYTHON_SITE");
  g_unsetenv ("PRISM_CUDA_INCLUDE");
  g_unsetenv ("PRISM_CUBLASLT_LIBRARY");
  g_setenv ("PRISM_CUDA_SEARCH_ROOT", root, TRUE);
}

/* A fake machine: the toolkit, a Debian Python, a venv under /opt and one
 * in $VIRTUAL_ENV, and a $PRISM_PYTHON_SITE folder, each with wheel folders. */
static void
test_lookup_dirs (void)
{
  g_autofree char *root = g_build_filename (tmpdir, "root", NULL);
  g_autofree char *venv = g_build_filename (tmpdir, "venv", NULL);
  g_autofree char *site = g_build_filename (tmpdir, "site", NULL);
  g_autofree char *toolkit = g_build_filename (root, "usr/local/cuda/targets/x86_64-linux/lib", NULL);
  g_autofree char *debian = g_build_filename (root, "usr/lib/python3/dist-packages", NULL);
  g_autofree char *torch = g_build_filename (root, "opt/torch/.venv/lib/python3.12/site-packages", NULL);
  g_autofree char *venv_site = g_build_filename (venv, "lib/python3.11/site-packages", NULL);
  g_autofree char *torch_cu13 = g_build_filename (torch, "nvidia/cu13/lib", NULL);
  g_autofree char *debian_cublas = g_build_filename (debian, "nvidia/cublas/lib", NULL);
  g_autofree char *site_cu12 = g_build_filename (site, "nvidia/cu12/lib", NULL);
  g_autofree char *venv_cublas = g_build_filename (venv_site, "nvidia/cublas/lib", NULL);
  g_autofree char *venv_nvrtc = g_build_filename (venv_site, "nvidia/cuda_nvrtc/lib", NULL);
  const char * const cublas_wheels[] = { "nvidia/cublas/lib", "nvidia/cu13/lib", "nvidia/cu12/lib", NULL };
  g_autoptr(GPtrArray) sites = NULL;
  g_autoptr(GPtrArray) dirs = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  const char * const sonames[] = { "libprismfakelookup.so.13", "libprismfakelookup.so.12", NULL };
  void *h;

  if (!in_child ())
    return;
  unset_cuda_env (root);
  g_setenv ("VIRTUAL_ENV", venv, TRUE);
  g_setenv ("PRISM_PYTHON_SITE", site, TRUE);
  g_assert_cmpint (g_mkdir_with_parents (toolkit, 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (debian_cublas, 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (venv_cublas, 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (venv_nvrtc, 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (site_cu12, 0755), ==, 0);
  /* A wheel library, linked to the fake cuBLASLt, found under a made-up
   * name (the real sonames may be known to the dynamic loader). */
  make_dirs_and_link (torch_cu13, "libprismfakelookup.so.12", g_getenv ("PRISM_CUBLASLT_LIBRARY_FAKE"));

  sites = prism_cuda_python_site_dirs ();
  g_assert_cmpuint (sites->len, ==, 4);
  g_assert_cmpstr (g_ptr_array_index (sites, 0), ==, site);   /* $PRISM_PYTHON_SITE first */
  g_assert_true (array_has (sites, debian));
  g_assert_true (array_has (sites, torch));
  g_assert_true (array_has (sites, venv_site));

  dirs = prism_cuda_library_dirs (cublas_wheels);
  g_assert_cmpuint (index_of (dirs, toolkit), ==, 0);         /* the toolkit before the wheels */
  g_assert_true (array_has (dirs, torch_cu13));
  g_assert_true (array_has (dirs, debian_cublas));
  g_assert_true (array_has (dirs, venv_cublas));
  g_assert_true (array_has (dirs, site_cu12));
  g_assert_false (array_has (dirs, venv_nvrtc));               /* not a cuBLAS folder */
  g_assert_cmpuint (index_of (dirs, site_cu12), <, index_of (dirs, torch_cu13));
  g_clear_pointer (&dirs, g_ptr_array_unref);

  /* By soname in the folders: .so.13 is nowhere, .so.12 in the torch venv. */
  h = prism_cuda_open_library ("fake", "PRISM_NO_SUCH_VARIABLE", sonames, cublas_wheels, PRISM_ERROR_NO_VENDOR,
                               &path, &error);
  g_assert_no_error (error);
  g_assert_nonnull (h);
  {
    g_autofree char *want = g_build_filename (torch_cu13, "libprismfakelookup.so.12", NULL);
    g_assert_cmpstr (path, ==, want);
  }
  g_assert_nonnull (dlsym (h, "cublasLtMatmul"));

  /* Nowhere: the message names the library and every folder. */
  {
    const char * const none[] = { "libprismnowhere.so.1", NULL };
    g_assert_null (prism_cuda_open_library ("Nowhere", "PRISM_NOWHERE_LIBRARY", none, cublas_wheels,
                                            PRISM_ERROR_NO_VENDOR, NULL, &error));
    g_assert_error (error, PRISM_ERROR, PRISM_ERROR_NO_VENDOR);
    g_assert_nonnull (strstr (error->message, "Nowhere"));
    g_assert_nonnull (strstr (error->message, "libprismnowhere.so.1"));
    g_assert_nonnull (strstr (error->message, torch_cu13));
    g_assert_nonnull (strstr (error->message, toolkit));
    g_assert_nonnull (strstr (error->message, "$PRISM_NOWHERE_LIBRARY"));
  }
}

/* NVRTC from a wheel folder (a link to the toolkit's), and its headers split
 * over two wheel folders as the cu12 wheels have them. */
static void
test_lookup_headers (void)
{
  g_autofree char *root = g_build_filename (tmpdir, "hroot", NULL);
  g_autofree char *site = g_build_filename (root, "opt/x/.venv/lib/python3.12/site-packages", NULL);
  g_autofree char *runtime = g_build_filename (site, "nvidia/cuda_runtime/include", NULL);
  g_autofree char *nvcc = g_build_filename (site, "nvidia/cuda_nvcc/include", NULL);
  g_autofree char *cu13 = g_build_filename (site, "nvidia/cu13/lib", NULL);
  g_autofree char *real = prism_cuda_find_include_dir ();
  g_autofree char *looked = NULL;
  g_autoptr(PrismCudaRuntime) rt = prism_cuda_runtime_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) cubin = NULL;
  g_auto(GStrv) dirs = NULL;
  const char *fp[] = { "cuda_fp16.h", "cuda_fp16.hpp", "cuda_bf16.h", "cuda_bf16.hpp", NULL };
  const char *mma[] = { "mma.h", "crt/mma.h", "crt/mma.hpp", NULL };
  const char *real_nvrtc = "/usr/local/cuda/lib64/libnvrtc.so.13";

  if (!in_child ())
    return;
  unset_cuda_env (root);
  g_unsetenv ("PRISM_NVRTC_LIBRARY");
  /* Nothing yet: NULL, and where it looked. */
  g_assert_null (prism_cuda_find_include_dirs (&looked));
  g_assert_nonnull (looked);
  if (real == NULL)
    {
      g_test_skip ("no CUDA headers to copy");
      return;
    }
  for (guint i = 0; fp[i] != NULL; i++)
    {
      g_autofree char *target = g_build_filename (real, fp[i], NULL);
      make_dirs_and_link (runtime, fp[i], target);
    }
  g_clear_pointer (&looked, g_free);
  /* fp16 alone is not enough. */
  g_assert_null (prism_cuda_find_include_dirs (&looked));
  g_assert_nonnull (strstr (looked, runtime));
  for (guint i = 0; mma[i] != NULL; i++)
    {
      g_autofree char *target = g_build_filename (real, mma[i], NULL);
      make_dirs_and_link (nvcc, mma[i], target);
    }
  dirs = prism_cuda_find_include_dirs (NULL);
  g_assert_nonnull (dirs);
  g_assert_cmpuint (g_strv_length (dirs), ==, 2);
  g_assert_cmpstr (dirs[0], ==, runtime);
  g_assert_cmpstr (dirs[1], ==, nvcc);

  /* NVRTC itself from a wheel folder, compiling against those headers. */
  if (!g_file_test (real_nvrtc, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("no NVRTC to link");
      return;
    }
  make_dirs_and_link (cu13, "libnvrtc.so.13", real_nvrtc);
  make_dirs_and_link (cu13, "libnvrtc-builtins.so.13.0", "/usr/local/cuda/lib64/libnvrtc-builtins.so.13.0");
  cubin = prism_cuda_runtime_compile (rt, "#include \"prism-platform.cuh\"\n"
                                          "extern \"C\" __global__ void k (prism::f16 *p) { p[0] = prism::from_float<prism::f16> (1.0f); }\n",
                                      "sm_90", NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (cubin);
}

/* Runs the worker on @dir under a memory limit and timeout(1); returns its
 * wait status. */
static int
run_worker_bounded (const char *dir)
{
#ifdef __SANITIZE_ADDRESS__
  /* AddressSanitizer reserves terabytes of address space for its shadow
   * memory, so a worker under ulimit -v dies before main(): the bound on
   * what it reads (/dev/zero) is its own, and the timeout still ends a hang. */
  const char *limit = "";
#else
  const char *limit = "ulimit -v 4000000; ";
#endif
  g_autofree char *cmd = g_strdup_printf ("%sexec timeout 30 '%s' '%s'", limit,
                                          g_getenv ("PRISM_GPU_WORKER"), dir);
  const char *argv[] = { "/bin/sh", "-c", cmd, NULL };
  g_autoptr(GError) error = NULL;
  int status = 0;

  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL |
                               G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, &error));
  g_assert_no_error (error);
  return status;
}

/* job.json goes through the strict reader: a "type" that is not a string,
 * nesting 100 000 deep, a FIFO and /dev/zero give a result.json saying so
 * (before: SIGSEGV, SIGSEGV, a hang, memory until it ran out). */
static void
test_bad_jobs (void)
{
  g_autofree char *deep = NULL;
  const char *names[] = { "type-number", "deep", "fifo", "zero" };

  deep = g_strnfill (200000, '[');
  memset (deep + 100000, ']', 100000);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *dir = g_build_filename (tmpdir, names[i], NULL);
      g_autofree char *job = g_build_filename (dir, "job.json", NULL);
      g_autoptr(JsonParser) parser = json_parser_new ();
      JsonObject *res;
      int status;

      g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
      if (i == 0)
        write_file (dir, "job.json", "{\"type\": 5}", strlen ("{\"type\": 5}"));
      else if (i == 1)
        write_file (dir, "job.json", deep, 200000);
      else if (i == 2)
        g_assert_cmpint (mkfifo (job, 0600), ==, 0);
      else
        g_assert_cmpint (symlink ("/dev/zero", job), ==, 0);
      status = run_worker_bounded (dir);
      if (!WIFEXITED (status) || WEXITSTATUS (status) == 124)
        g_error ("%s: the worker %s %d", names[i], WIFEXITED (status) ? "timed out, exit" : "was killed by signal",
                 WIFEXITED (status) ? WEXITSTATUS (status) : WTERMSIG (status));
      res = load_json (dir, "result.json", parser);
      g_assert_cmpstr (json_object_get_string_member (res, "status"), ==, "error");
      g_test_message ("%s: %s", names[i], json_object_get_string_member_with_default (res, "message", ""));
      g_assert_nonnull (strstr (json_object_get_string_member_with_default (res, "message", ""), "job.json"));
    }
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
  if (argc == 5 && argv[1][0] != '-')
    {
      /* Absolute: the lookup test links to the fake cuBLASLt from elsewhere. */
      g_autofree char *worker = g_canonicalize_filename (argv[1], NULL);
      g_autofree char *cuda = g_canonicalize_filename (argv[2], NULL);
      g_autofree char *lt = g_canonicalize_filename (argv[3], NULL);
      g_autofree char *nvml = g_canonicalize_filename (argv[4], NULL);

      g_setenv ("PRISM_GPU_WORKER", worker, TRUE);
      g_setenv ("PRISM_CUDA_LIBRARY", cuda, TRUE);
      g_setenv ("PRISM_CUBLASLT_LIBRARY", lt, TRUE);
      g_setenv ("PRISM_CUBLASLT_LIBRARY_FAKE", lt, TRUE);
      g_setenv ("PRISM_NVML_LIBRARY", nvml, TRUE);
    }
  g_test_init (&argc, &argv, NULL);
  if (g_getenv ("PRISM_CUBLASLT_LIBRARY_FAKE") == NULL)
    g_error ("usage: %s PRISM-GPU-WORKER LIBFAKECUDA LIBFAKECUBLASLT LIBFAKENVML", argv[0]);
  usable = gxx != NULL && include != NULL && prism_cuda_runtime_load_nvrtc (rt, NULL);
  tmpdir = g_dir_make_tmp ("prism-gpu-worker-XXXXXX", &error);
  g_assert_no_error (error);

  g_test_add_func ("/gpu-worker/vendor-gemm", test_vendor_gemm);
  g_test_add_func ("/gpu-worker/no-vendor", test_no_vendor);
  g_test_add_func ("/gpu-worker/vendor-corrupt", test_vendor_corrupt);
  g_test_add_func ("/gpu-worker/workspace-zero", test_workspace_zero);
  g_test_add_func ("/gpu-worker/graph", test_graph);
  g_test_add_func ("/gpu-worker/cuda-error", test_cuda_error);
  g_test_add_func ("/gpu-worker/crash", test_crash);
  g_test_add_func ("/gpu-worker/hang", test_hang);
  g_test_add_func ("/gpu-worker/no-nvml", test_no_nvml);
  g_test_add_func ("/gpu-worker/bad-jobs", test_bad_jobs);
  g_test_add_data_func ("/cublaslt/gemm/f32", GINT_TO_POINTER (PRISM_DTYPE_F32), test_cublaslt_gemm);
  g_test_add_data_func ("/cublaslt/gemm/f16", GINT_TO_POINTER (PRISM_DTYPE_F16), test_cublaslt_gemm);
  g_test_add_data_func ("/cublaslt/gemm/bf16", GINT_TO_POINTER (PRISM_DTYPE_BF16), test_cublaslt_gemm);
  g_test_add_data_func ("/cublaslt/gemm/f32-no-pedantic", GINT_TO_POINTER (3), test_cublaslt_gemm);
  g_test_add_func ("/cublaslt/load", test_cublaslt_load);
  g_test_add_func ("/lookup/dirs", test_lookup_dirs);
  g_test_add_func ("/lookup/headers", test_lookup_headers);
  rc = g_test_run ();
  codegen_remove_tree (tmpdir);
  g_free (tmpdir);
  return rc;
}
