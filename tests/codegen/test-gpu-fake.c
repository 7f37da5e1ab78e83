/* test-gpu-fake.c — the whole GPU benchmark path against a fake driver
 *
 * fake-cuda.c stands in for libcuda.so.1 and runs the CPU build of the
 * generated kernels, so prism_gpu_bench_run() goes through everything a GPU
 * run does: the job folder, the child process, NVRTC, the manifest's
 * launches, the check against the interpreter, warm-up, samples and
 * statistics, a wrong result and a hung kernel.  Needs NVRTC and g++
 * (skipped with 77 otherwise).
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
#include "prism-cuda-emitter.h"
#include "prism-cuda-runtime.h"
#include "prism-error.h"
#include "prism-gpu-bench.h"
#include "prism-graph-json.h"
#include "prism-kernel-headers.h"

static const char *prism_path;
static char *tmpdir;
static gboolean usable;

/* An f32 fused kernel: rms_norm(X) @ W with the reduction split across
 * grid axis y (summed output) and a loop; plus the rms as a second output. */
static const char fused_f32[] =
  "{\"format\": \"prism-graph\", \"version\": 1, \"name\": \"fused_f32\", \"ops\": ["
  " {\"op\": \"input\", \"name\": \"X\", \"outputs\": [{\"id\": \"x\", \"shape\": [8, 128], \"dtype\": \"f32\"}]},"
  " {\"op\": \"input\", \"name\": \"W\", \"outputs\": [{\"id\": \"w\", \"shape\": [128, 64], \"dtype\": \"f32\"}]},"
  " {\"op\": \"kernel\", \"inputs\": [\"x\", \"w\"], \"outputs\": [\"o\"], \"block\": {"
  "   \"grid\": [2, 2], \"forloop\": 4, \"ops\": ["
  "   {\"op\": \"input\", \"input\": 0, \"imap\": [-1, 1], \"fmap\": 1, \"outputs\": [\"xt\"]},"
  "   {\"op\": \"input\", \"input\": 1, \"imap\": [1, 0], \"fmap\": 0, \"outputs\": [\"wt\"]},"
  "   {\"op\": \"matmul\", \"inputs\": [\"xt\", \"wt\"], \"outputs\": [\"mm\"]},"
  "   {\"op\": \"accum\", \"inputs\": [\"mm\"], \"outputs\": [\"acc\"]},"
  "   {\"op\": \"output\", \"inputs\": [\"acc\"], \"omap\": [1, -1]}]}},"
  " {\"op\": \"output\", \"name\": \"O\", \"inputs\": [\"o\"]}]}";

/* The CPU build of exactly what prism_gpu_bench_run() generates for the
 * fake device (sm_90, 227 KiB of shared memory). */
static gboolean
build_cpu_kernels (const PrismGraph *graph, const char *so)
{
  PrismCudaOptions options = { .sm = 90, .smem_limit = 227 * 1024, .prefix = "prism_bench" };
  g_autoptr(PrismCudaEmitter) e = prism_cuda_emitter_new (graph, &options, NULL);
  g_autofree char *src = g_strdup_printf ("%s.cu", so);
  g_autofree char *kernels = g_build_filename (tmpdir, "kernels", NULL);
  g_autofree char *inc = g_strdup_printf ("-I%s", kernels);
  g_autofree char *log = NULL;
  const char *argv[] = { "g++", "-std=c++17", "-O1", "-fPIC", "-shared", inc, "-x", "c++", src, "-o", so, NULL };

  g_assert_nonnull (e);
  g_assert_true (prism_kernel_headers_write (kernels, NULL));
  g_assert_true (g_file_set_contents (src, prism_cuda_emitter_get_source (e), -1, NULL));
  if (!codegen_run (argv, tmpdir, &log))
    g_error ("building the CPU kernels failed: %s", log);
  return TRUE;
}

static PrismGraph *
load_graph (const char *which)
{
  g_autoptr(GError) error = NULL;
  PrismGraph *g;

  if (g_str_equal (which, "fused"))
    g = prism_graph_load_from_data (fused_f32, -1, NULL, &error);
  else
    {
      const char *src = g_getenv ("PRISM_SOURCE_DIR") ? g_getenv ("PRISM_SOURCE_DIR") : PRISM_SOURCE_DIR;
      g_autofree char *path = g_build_filename (src, "tests", "codegen", "graphs", which, NULL);
      g = prism_graph_load (path, NULL, &error);
    }
  g_assert_no_error (error);
  return g;
}

static void
quick_options (PrismGpuBenchOptions *o)
{
  prism_gpu_bench_options_init (o);
  o->warmup_ms = 1;
  o->min_time_ms = 1;
  o->min_samples = 5;
  o->max_samples = 20;
  o->timeout_s = 120;
}

/* Each test runs in a fresh child of the test program, so that its
 * environment is set before any thread exists (setenv is not thread-safe
 * and GSubprocess starts threads). */
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
test_measure (gconstpointer data)
{
  const char *which = data;
  g_autoptr(PrismGraph) g = NULL;
  g_autofree char *so = NULL;
  g_autoptr(GError) error = NULL;
  PrismGpuBenchOptions o;
  PrismGpuBenchResult r;
  double flops, bytes;

  if (!in_child ())
    return;
  if (!usable)
    {
      g_test_skip ("NVRTC or g++ is not installed");
      return;
    }
  g = load_graph (which);
  so = g_strdup_printf ("%s/%s.so", tmpdir, which);
  build_cpu_kernels (g, so);
  g_setenv ("PRISM_FAKE_CUDA_KERNELS", so, TRUE);
  quick_options (&o);
  if (!prism_gpu_bench_run (g, &o, &r, &error))
    g_error ("%s: %s", which, error->message);
  g_assert_cmpstr (r.device_name, ==, "Fake CUDA device (CPU)");
  g_assert_cmpint (r.compute_capability, ==, 90);
  g_assert_cmpstr (r.arch, ==, "sm_90");
  g_assert_cmpuint (r.n_samples, >=, 5);
  g_assert_cmpuint (r.n_samples, <=, 20);
  g_assert_cmpfloat (r.median_us, >, 0);
  g_assert_cmpfloat (r.p20_us, <=, r.median_us);
  g_assert_cmpfloat (r.median_us, <=, r.p80_us);
  g_assert_cmpfloat (r.min_us, <=, r.p20_us);
  g_assert_cmpfloat (r.max_rel_error, <=, r.tolerance);
  g_assert_cmpfloat (r.tolerance, ==, 1e-3);
  prism_gpu_bench_count_work (g, &flops, &bytes);
  g_assert_cmpfloat (r.flops, ==, flops);
  g_assert_cmpfloat (fabs (r.tflops - flops / (r.median_us * 1e-6) / 1e12), <=, 1e-9 * r.tflops + 1e-12);
  g_assert_cmpfloat (r.roofline_pct, >, 0);
  g_assert_cmpuint (r.n_kernels, >=, 1);
  prism_gpu_bench_result_clear (&r);
  g_unsetenv ("PRISM_FAKE_CUDA_KERNELS");
}

/* A kernel that computes the wrong thing is caught before any timing. */
static void
test_mismatch (void)
{
  g_autoptr(PrismGraph) g = NULL;
  g_autofree char *so = NULL;
  g_autoptr(GError) error = NULL;
  PrismGpuBenchOptions o;
  PrismGpuBenchResult r;

  if (!in_child ())
    return;
  if (!usable)
    {
      g_test_skip ("NVRTC or g++ is not installed");
      return;
    }
  g = load_graph ("fused");
  so = g_strdup_printf ("%s/mismatch.so", tmpdir);
  build_cpu_kernels (g, so);
  g_setenv ("PRISM_FAKE_CUDA_KERNELS", so, TRUE);
  g_setenv ("PRISM_FAKE_CUDA_CORRUPT", "1", TRUE);
  quick_options (&o);
  g_assert_false (prism_gpu_bench_run (g, &o, &r, &error));
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_FAILED);
  g_assert_nonnull (strstr (error->message, "differs from the interpreter"));
  g_assert_cmpuint (r.n_samples, ==, 0);
  prism_gpu_bench_result_clear (&r);
  g_unsetenv ("PRISM_FAKE_CUDA_CORRUPT");
  g_unsetenv ("PRISM_FAKE_CUDA_KERNELS");
}

/* A hung kernel: the child is killed at the timeout, the caller gets an error. */
static void
test_timeout (void)
{
  g_autoptr(PrismGraph) g = NULL;
  g_autofree char *so = NULL;
  g_autoptr(GError) error = NULL;
  PrismGpuBenchOptions o;
  PrismGpuBenchResult r;
  gint64 t0;

  if (!in_child ())
    return;
  if (!usable)
    {
      g_test_skip ("NVRTC or g++ is not installed");
      return;
    }
  g = load_graph ("fused");
  so = g_strdup_printf ("%s/hang.so", tmpdir);
  build_cpu_kernels (g, so);
  g_setenv ("PRISM_FAKE_CUDA_KERNELS", so, TRUE);
  g_setenv ("PRISM_FAKE_CUDA_HANG", "1", TRUE);
  quick_options (&o);
  o.timeout_s = 3;
  t0 = g_get_monotonic_time ();
  g_assert_false (prism_gpu_bench_run (g, &o, &r, &error));
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_LIMIT);
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 60 * G_USEC_PER_SEC);
  prism_gpu_bench_result_clear (&r);
  g_unsetenv ("PRISM_FAKE_CUDA_HANG");
  g_unsetenv ("PRISM_FAKE_CUDA_KERNELS");
}

/* `prism bench FILE` with a (fake) GPU: the measured table in each format. */
static void
test_cli (void)
{
  g_autoptr(PrismGraph) g = NULL;
  g_autofree char *so = NULL;
  g_autofree char *file = g_build_filename (tmpdir, "fused.json", NULL);
  g_autofree char *out = NULL;
  g_autofree char *md = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  const char *argv[] = { prism_path, "bench", file, "--format", "json", "--min-time", "1", NULL };
  const char *md_argv[] = { prism_path, "bench", file, "--format", "markdown", "--min-time", "1", NULL };
  JsonObject *o, *p;
  int status = -1;

  if (!in_child ())
    return;
  if (!usable)
    {
      g_test_skip ("NVRTC or g++ is not installed");
      return;
    }
  g = load_graph ("fused");
  g_assert_true (prism_graph_save (g, NULL, file, NULL));
  so = g_strdup_printf ("%s/cli.so", tmpdir);
  build_cpu_kernels (g, so);
  g_setenv ("PRISM_FAKE_CUDA_KERNELS", so, TRUE);
  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  json_parser_load_from_data (parser, out, -1, &error);
  g_assert_no_error (error);
  o = json_node_get_object (json_parser_get_root (parser));
  g_assert_true (json_object_get_boolean_member (o, "gpu"));
  g_assert_nonnull (strstr (json_object_get_string_member (o, "device"), "Fake CUDA device"));
  p = json_array_get_object_element (json_object_get_array_member (o, "programs"), 0);
  g_assert_cmpfloat (json_object_get_double_member (p, "median_us"), >, 0);
  g_assert_cmpfloat (json_object_get_double_member (p, "speedup"), ==, 1.0);

  g_spawn_sync (NULL, (char **) md_argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &md, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_nonnull (strstr (md, "| fused.json (unfused, vendor) | 1 |"));
  g_assert_nonnull (strstr (md, "Speedups are against the vendor baseline."));
  g_assert_nonnull (strstr (md, "median (µs)"));
  g_unsetenv ("PRISM_FAKE_CUDA_KERNELS");
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
      g_setenv ("PRISM_CUDA_LIBRARY", argv[3], TRUE);
    }
  g_test_init (&argc, &argv, NULL);
  prism_path = g_getenv ("PRISM_TEST_CLI");
  if (prism_path == NULL)
    g_error ("usage: %s PRISM PRISM-GPU-WORKER LIBFAKECUDA", argv[0]);
  usable = gxx != NULL && include != NULL && prism_cuda_runtime_load_nvrtc (rt, NULL);
  tmpdir = g_dir_make_tmp ("prism-gpu-fake-XXXXXX", &error);
  g_assert_no_error (error);

  g_test_add_data_func ("/gpu-fake/measure/fused", "fused", test_measure);
  g_test_add_data_func ("/gpu-fake/measure/predefined", "f32-predefined.json", test_measure);
  g_test_add_func ("/gpu-fake/mismatch", test_mismatch);
  g_test_add_func ("/gpu-fake/timeout", test_timeout);
  g_test_add_func ("/gpu-fake/cli", test_cli);
  rc = g_test_run ();
  codegen_remove_tree (tmpdir);
  g_free (tmpdir);
  return rc;
}
