/* test-gpu-runtime.c — the GPU runner without a GPU: dlopen failures give
 * PRISM_ERROR_NO_GPU with a clear message, the worker reports them, work
 * counting, and the `prism export` / `prism bench` commands
 *
 * Arguments: the prism and prism-gpu-worker executables.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "codegen-cases.h"
#include "prism-cuda-runtime.h"
#include "prism-error.h"
#include "prism-gpu-bench.h"
#include "prism-graph-json.h"
#include "prism-results.h"
#include "prism-workload.h"

static const char *prism_path;
static const char *worker_path;
static char *tmpdir;

/* Runs @argv with @env_extra ("NAME=value" or NULL) added; returns the exit
 * status and the standard output. */
static int
run (const char * const *argv, const char *env_extra, char **out, char **err)
{
  g_auto(GStrv) env = g_get_environ ();
  g_autoptr(GError) error = NULL;
  g_autofree char *discard = NULL;
  g_autofree char *discard_out = NULL;
  int status = -1;

  if (env_extra != NULL)
    {
      g_auto(GStrv) kv = g_strsplit (env_extra, "=", 2);
      env = g_environ_setenv (env, kv[0], kv[1], TRUE);
    }
  /* Messages of expected failures stay out of the test log. */
  g_spawn_sync (NULL, (char **) argv, env, G_SPAWN_DEFAULT, NULL, NULL, out ? out : &discard_out,
                err ? err : &discard, &status, &error);
  g_assert_no_error (error);
  return WIFEXITED (status) ? WEXITSTATUS (status) : -1;
}

/* A driver that is not there: NO_GPU, and the message names the library. */
static void
test_no_driver (void)
{
  g_autoptr(PrismCudaRuntime) rt = prism_cuda_runtime_new ();
  g_autoptr(GError) error = NULL;

  g_setenv ("PRISM_CUDA_LIBRARY", "/nonexistent/libcuda.so.1", TRUE);
  g_assert_false (prism_cuda_runtime_load_driver (rt, 0, &error));
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_NO_GPU);
  g_assert_nonnull (strstr (error->message, "no GPU"));
  g_assert_nonnull (strstr (error->message, "/nonexistent/libcuda.so.1"));
  g_assert_null (prism_cuda_runtime_get_driver (rt));
  g_assert_null (prism_cuda_runtime_get_info (rt));
  g_unsetenv ("PRISM_CUDA_LIBRARY");
}

/* A library that loads but is not a CUDA driver: NO_GPU naming the missing
 * function. */
static void
test_wrong_driver (void)
{
  g_autoptr(PrismCudaRuntime) rt = prism_cuda_runtime_new ();
  g_autoptr(GError) error = NULL;

  g_setenv ("PRISM_CUDA_LIBRARY", "libm.so.6", TRUE);
  g_assert_false (prism_cuda_runtime_load_driver (rt, 0, &error));
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_NO_GPU);
  g_assert_nonnull (strstr (error->message, "cuInit"));
  g_unsetenv ("PRISM_CUDA_LIBRARY");
}

static void
test_no_nvrtc (void)
{
  g_autoptr(PrismCudaRuntime) rt = prism_cuda_runtime_new ();
  g_autoptr(GError) error = NULL;

  g_setenv ("PRISM_NVRTC_LIBRARY", "/nonexistent/libnvrtc.so.13", TRUE);
  g_assert_false (prism_cuda_runtime_load_nvrtc (rt, &error));
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_NO_GPU);
  g_assert_nonnull (strstr (error->message, "NVRTC"));
  g_clear_error (&error);
  /* Compiling loads NVRTC on demand and fails the same way. */
  g_assert_null (prism_cuda_runtime_compile (rt, "int x;", "sm_90", NULL, &error));
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_NO_GPU);
  g_unsetenv ("PRISM_NVRTC_LIBRARY");
}

/* prism_gpu_bench_run() and the probe fail cleanly, before spawning anything. */
static void
test_bench_no_gpu (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismGraph) g = prism_workload_build_reference ("rms_norm", "d=256", &error);
  g_autofree char *desc = NULL;
  PrismGpuBenchResult r;

  g_assert_no_error (error);
  g_setenv ("PRISM_CUDA_LIBRARY", "/nonexistent/libcuda.so.1", TRUE);
  g_assert_false (prism_gpu_bench_probe (0, &desc, &error));
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_NO_GPU);
  g_assert_null (desc);
  g_clear_error (&error);
  g_assert_false (prism_gpu_bench_run (g, NULL, &r, &error));
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_NO_GPU);
  prism_gpu_bench_result_clear (&r);
  g_unsetenv ("PRISM_CUDA_LIBRARY");
}

/* The worker itself reports a missing driver in its result file. */
static void
test_worker_no_gpu (void)
{
  g_autofree char *dir = g_build_filename (tmpdir, "job", NULL);
  g_autofree char *result = g_build_filename (dir, "result.json", NULL);
  g_autofree char *job = g_build_filename (dir, "job.json", NULL);
  g_autofree char *man = g_build_filename (dir, "manifest.json", NULL);
  g_autofree char *src = g_build_filename (dir, "kernels.cu", NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;
  const char *usage[] = { worker_path, NULL };
  const char *argv[] = { worker_path, dir, NULL };
  JsonObject *o;

  g_assert_cmpint (run (usage, NULL, &out, NULL), ==, 2);
  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_file_set_contents (job, "{\"device\": 0}", -1, &error);
  g_file_set_contents (man, "{\"kernels\": [], \"inputs\": [], \"outputs\": []}", -1, &error);
  g_file_set_contents (src, "", -1, &error);
  g_assert_no_error (error);
  g_assert_cmpint (run (argv, "PRISM_CUDA_LIBRARY=/nonexistent/libcuda.so.1", NULL, NULL), ==, 0);
  json_parser_load_from_file (parser, result, &error);
  g_assert_no_error (error);
  o = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpstr (json_object_get_string_member (o, "status"), ==, "no_gpu");
  g_assert_nonnull (strstr (json_object_get_string_member (o, "message"), "/nonexistent/libcuda.so.1"));
}

/* FLOPs and bytes of the unfused rms_norm program, counted by hand. */
static void
test_count_work (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismGraph) g = prism_workload_build ("rms_norm", "n=8,d=256", &error);
  g_autoptr(PrismGraph) ref = prism_workload_build_reference ("rms_norm", "n=8,d=256", &error);
  double flops, bytes, rflops, rbytes;

  g_assert_no_error (error);
  prism_gpu_bench_count_work (g, &flops, &bytes);
  g_assert_cmpfloat (flops, ==, 2.0 * 8 * 256 * 256 + 3.0 * 8 * 256);
  g_assert_cmpfloat (bytes, ==, (8.0 * 256 + 256.0 * 256 + 8.0 * 256) * 2);
  /* The fused graph reads and writes the same tensors and does at least
   * the matmul's work. */
  prism_gpu_bench_count_work (ref, &rflops, &rbytes);
  g_assert_cmpfloat (rbytes, ==, bytes);
  g_assert_cmpfloat (rflops, >=, 2.0 * 8 * 256 * 256);
}

/* `prism bench` without a GPU: says so, prints predicted times, exits 0. */
static void
test_cli_bench_no_gpu (void)
{
  const char *argv[] = { prism_path, "bench", "rms_norm:d=256", NULL };
  const char *json_argv[] = { prism_path, "bench", "attention", "--format", "json", NULL };
  const char *bad[] = { prism_path, "bench", "no_such_workload", NULL };
  g_autofree char *out = NULL;
  g_autofree char *jout = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonObject *o;

  g_assert_cmpint (run (argv, "PRISM_CUDA_LIBRARY=/nonexistent/libcuda.so.1", &out, NULL), ==, 0);
  g_assert_nonnull (strstr (out, "Not measured: no GPU"));
  g_assert_nonnull (strstr (out, "/nonexistent/libcuda.so.1"));
  g_assert_nonnull (strstr (out, "Predicted"));
  g_assert_nonnull (strstr (out, "rms_norm (unfused, vendor)"));
  g_assert_nonnull (strstr (out, "rms_norm (unfused, prism-lowered)"));
  g_assert_nonnull (strstr (out, "rms_norm (reference fused)"));
  g_assert_nonnull (strstr (out, "speedups against the vendor baseline"));

  g_assert_cmpint (run (json_argv, "PRISM_CUDA_LIBRARY=/nonexistent/libcuda.so.1", &jout, NULL), ==, 0);
  json_parser_load_from_data (parser, jout, -1, &error);
  g_assert_no_error (error);
  o = json_node_get_object (json_parser_get_root (parser));
  g_assert_false (json_object_get_boolean_member (o, "gpu"));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (o, "programs")), ==, 3);
  g_assert_cmpstr (json_object_get_string_member (o, "speedup_against"), ==, "vendor");
  g_assert_cmpfloat (json_object_get_double_member (json_array_get_object_element (
                       json_object_get_array_member (o, "programs"), 0), "predicted_us"), >, 0);

  g_assert_cmpint (run (bad, NULL, NULL, NULL), ==, 2);
}

/* `prism export` of a workload, its reference, a results-file candidate;
 * bad input exits 2. */
static void
test_cli_export (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismGraph) ref = prism_workload_build_reference ("swiglu", NULL, &error);
  g_autofree char *results = g_build_filename (tmpdir, "results.json", NULL);
  g_autofree char *out1 = g_build_filename (tmpdir, "export1", NULL);
  g_autofree char *out2 = g_build_filename (tmpdir, "export2", NULL);
  g_autofree char *out3 = g_build_filename (tmpdir, "export3", NULL);
  g_autofree char *cu = g_build_filename (out2, "prism_swiglu.cu", NULL);
  g_autofree char *man = g_build_filename (out1, "manifest.json", NULL);
  g_autofree char *text = NULL;
  g_autofree char *out = NULL;
  const char *a1[] = { prism_path, "export", "swiglu", "--out", out1, "--arch", "sm_80", NULL };
  const char *a2[] = { prism_path, "export", results, "--candidate", "7", "--out", out2, NULL };
  const char *a3[] = { prism_path, "export", results, "--candidate", "0123", "--out", out3, NULL };
  const char *best[] = { prism_path, "export", results, "--out", out3, NULL };
  const char *bench[] = { prism_path, "bench", results, "--candidates", "1", NULL };
  const char *missing[] = { prism_path, "export", results, "--candidate", "nope", "--out", out2, NULL };
  const char *no_out[] = { prism_path, "export", "swiglu", NULL };
  const char *bad_arch[] = { prism_path, "export", "swiglu", "--out", out1, "--arch", "sm_70", NULL };

  g_assert_no_error (error);
  g_assert_cmpint (run (a1, NULL, &out, NULL), ==, 0);
  g_assert_nonnull (strstr (out, "manifest.json"));
  g_file_get_contents (man, &text, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (text, "\"target_arch\" : \"sm_80\""));

  {
    g_autoptr(PrismGraph) program = prism_workload_build ("swiglu", NULL, &error);
    g_autoptr(PrismResults) res = prism_results_new (program, "swiglu", "symbolic", "h100", "test");
    g_autoptr(PrismCandidate) c3 = prism_candidate_new ();
    g_autoptr(PrismCandidate) c7 = prism_candidate_new ();

    g_assert_no_error (error);
    c3->id = 3;
    c3->digest = g_strdup ("0123456789abcdef0123456789abcdef");
    c3->graph = prism_graph_ref (program);
    c3->speedup = 1.0;
    c7->id = 7;
    c7->digest = g_strdup ("fedcba9876543210fedcba9876543210");
    c7->graph = prism_graph_ref (ref);
    c7->speedup = 2.0;
    prism_results_add_candidate (res, c3);
    prism_results_add_candidate (res, c7);
    prism_results_save (res, results, &error);
    g_assert_no_error (error);
  }
  g_clear_pointer (&out, g_free);
  g_assert_cmpint (run (a2, NULL, &out, NULL), ==, 0);
  g_assert_nonnull (strstr (out, "candidate 7"));
  g_assert_true (g_file_test (cu, G_FILE_TEST_IS_REGULAR));
  /* By digest prefix; without --candidate the best predicted one. */
  g_clear_pointer (&out, g_free);
  g_assert_cmpint (run (a3, NULL, &out, NULL), ==, 0);
  g_assert_nonnull (strstr (out, "candidate 3"));
  g_clear_pointer (&out, g_free);
  g_assert_cmpint (run (best, NULL, &out, NULL), ==, 0);
  g_assert_nonnull (strstr (out, "candidate 7"));
  /* bench of a results file: the program and the best candidate. */
  g_clear_pointer (&out, g_free);
  g_assert_cmpint (run (bench, "PRISM_CUDA_LIBRARY=/nonexistent/libcuda.so.1", &out, NULL), ==, 0);
  g_assert_nonnull (strstr (out, "unfused program"));
  g_assert_nonnull (strstr (out, "candidate 7"));
  g_assert_null (strstr (out, "candidate 3"));

  /* A graph file whose two outputs are summed over blocks: still one
   * launch (the last block to arrive sums the partials), with both outputs'
   * partials and counters among its arguments and counted in its report. */
  {
    const char *src = g_getenv ("PRISM_SOURCE_DIR") ? g_getenv ("PRISM_SOURCE_DIR") : PRISM_SOURCE_DIR;
    g_autofree char *file = g_build_filename (src, "tests", "codegen", "graphs", "split-k-matmul.json", NULL);
    g_autofree char *out4 = g_build_filename (tmpdir, "export4", NULL);
    g_autofree char *man4 = g_build_filename (out4, "manifest.json", NULL);
    const char *a4[] = { prism_path, "export", file, "--out", out4, "--prefix", "splitk", NULL };
    g_autoptr(JsonParser) parser = json_parser_new ();
    JsonObject *root, *k, *report;
    JsonArray *kernels, *args;
    guint n_counters = 0;

    g_assert_cmpint (run (a4, NULL, NULL, NULL), ==, 0);
    json_parser_load_from_file (parser, man4, &error);
    g_assert_no_error (error);
    root = json_node_get_object (json_parser_get_root (parser));
    kernels = json_object_get_array_member (root, "kernels");
    g_assert_cmpuint (json_array_get_length (kernels), ==, 1);
    k = json_array_get_object_element (kernels, 0);
    g_assert_cmpstr (json_object_get_string_member (k, "role"), ==, "block_graph");
    g_assert_cmpstr (json_object_get_string_member (k, "name"), ==, "splitk_k2");
    report = json_object_get_object_member (k, "report");
    g_assert_cmpint (json_object_get_int_member (report, "split_outputs"), ==, 2);
    args = json_object_get_array_member (k, "args");
    /* Two counters, then the launch's epoch. */
    for (guint i = 0; i < json_array_get_length (args); i++)
      if (g_str_equal (json_object_get_string_member (json_array_get_object_element (args, i), "kind"), "workspace") &&
          g_str_equal (json_object_get_string_member (json_array_get_object_element (args, i), "dtype"), "u32"))
        n_counters++;
    g_assert_cmpuint (n_counters, ==, 2);
    g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (args, json_array_get_length (args) - 1),
                                                    "kind"), ==, "epoch");
    g_assert_cmpint (json_object_get_int_member (root, "workspace_zeroed_bytes"), >, 0);
  }

  g_assert_cmpint (run (missing, NULL, NULL, NULL), ==, 2);
  g_assert_cmpint (run (no_out, NULL, NULL, NULL), ==, 2);
  g_assert_cmpint (run (bad_arch, NULL, NULL, NULL), ==, 2);
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  int rc;

  g_test_init (&argc, &argv, NULL);
  if (argc != 3)
    g_error ("usage: %s PRISM PRISM-GPU-WORKER", argv[0]);
  prism_path = argv[1];
  worker_path = argv[2];
  tmpdir = g_dir_make_tmp ("prism-gpu-runtime-XXXXXX", &error);
  g_assert_no_error (error);

  g_test_add_func ("/tune/no-driver", test_no_driver);
  g_test_add_func ("/tune/wrong-driver", test_wrong_driver);
  g_test_add_func ("/tune/no-nvrtc", test_no_nvrtc);
  g_test_add_func ("/tune/bench-no-gpu", test_bench_no_gpu);
  g_test_add_func ("/tune/worker-no-gpu", test_worker_no_gpu);
  g_test_add_func ("/tune/count-work", test_count_work);
  g_test_add_func ("/cli/bench-no-gpu", test_cli_bench_no_gpu);
  g_test_add_func ("/cli/export", test_cli_export);
  rc = g_test_run ();
  codegen_remove_tree (tmpdir);
  g_free (tmpdir);
  return rc;
}
