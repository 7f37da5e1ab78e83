/* test-calibrate.c — `prism calibrate` against the fake driver
 *
 * The fake driver (fake-cuda.c) builds the job's kernels.cu — the embedded
 * prism-calibrate.cu — for the CPU and runs it, the fake cuBLASLt
 * multiplies on the CPU and the fake NVML reports fixed clocks, so the
 * whole command runs: the file it writes has every key of the prism-gpu
 * schema, finite and positive where measured; a datasheet file's peak rates,
 * name and efficiencies are copied while the device limits stay the
 * driver's; without cuBLASLt the GEMMs are skipped with the reason; a hung
 * calibration kernel is killed at the timeout and named; without a GPU
 * nothing is written and it exits with 1; bad options exit with 2.  The
 * calibration source also compiles with NVRTC for sm_80 and sm_90.  The
 * fake parts need NVRTC and g++ (skipped otherwise).
 *
 * Arguments: prism, prism-gpu-worker, libfakecuda.so, libfakecublaslt.so, libfakenvml.so.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "codegen-cases.h"
#include "prism-calibrate.h"
#include "prism-cuda-runtime.h"
#include "prism-error.h"
#include "prism-kernel-headers.h"

static char *tmpdir;
static const char *prism_path;
static gboolean usable;

/* Fewer samples and tiny GEMMs: the fake computes on one CPU core. */
#define SMALL_GEMMS "8x64x64,32x128x64"

static int
run (const char * const *argv, char **out, char **err)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *discard_out = NULL;
  g_autofree char *discard_err = NULL;
  int status = -1;

  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, out ? out : &discard_out,
                err ? err : &discard_err, &status, &error);
  g_assert_no_error (error);
  return WIFEXITED (status) ? WEXITSTATUS (status) : -1;
}

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
use_fakes (void)
{
  g_autofree char *headers = g_build_filename (tmpdir, "kernels", NULL);

  g_assert_true (prism_kernel_headers_write (headers, NULL));
  g_setenv ("PRISM_FAKE_CUDA_KERNELS", headers, TRUE);
}

static gboolean
positive (JsonObject *o, const char *name)
{
  double v = json_object_get_double_member (o, name);

  return isfinite (v) && v > 0;
}

/* Every key of the prism-gpu version 1 schema (docs/format.md). */
static void
assert_schema (JsonObject *doc)
{
  const char *top[] = { "format", "version", "name", "display_name", "match", "datasheet", "calibration" };
  const char *ds_keys[] = { "source", "compute_capability", "sm_count", "dram_gbs", "l2_mb", "tensor_tflops",
                            "fp32_tflops", "smem_per_block_kb", "smem_per_sm_kb", "max_threads_per_block",
                            "max_threads_per_sm", "max_blocks_per_sm", "registers_per_sm" };
  const char *cal_keys[] = { "source", "measured", "launch_gap_us", "dram_latency_us", "l2_gbs",
                             "dram_gbs_by_inflight", "tensor_efficiency", "fp32_efficiency", "vendor_gemm" };
  JsonObject *ds, *cal, *vg;
  JsonArray *sweep;

  for (guint i = 0; i < G_N_ELEMENTS (top); i++)
    g_assert_true (json_object_has_member (doc, top[i]));
  g_assert_cmpstr (json_object_get_string_member (doc, "format"), ==, "prism-gpu");
  g_assert_cmpint (json_object_get_int_member (doc, "version"), ==, 1);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (doc, "match")), >=, 1);
  ds = json_object_get_object_member (doc, "datasheet");
  for (guint i = 0; i < G_N_ELEMENTS (ds_keys); i++)
    if (!json_object_has_member (ds, ds_keys[i]))
      g_error ("datasheet.%s is missing", ds_keys[i]);
  cal = json_object_get_object_member (doc, "calibration");
  for (guint i = 0; i < G_N_ELEMENTS (cal_keys); i++)
    if (!json_object_has_member (cal, cal_keys[i]))
      g_error ("calibration.%s is missing", cal_keys[i]);
  vg = json_object_get_object_member (cal, "vendor_gemm");
  g_assert_true (json_object_has_member (vg, "efficiency"));
  g_assert_true (json_object_has_member (vg, "min_us"));

  /* The fake device's limits, from the driver. */
  g_assert_cmpint (json_object_get_int_member (ds, "compute_capability"), ==, 90);
  g_assert_cmpint (json_object_get_int_member (ds, "sm_count"), ==, 4);
  g_assert_cmpfloat (json_object_get_double_member (ds, "l2_mb"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (ds, "smem_per_block_kb"), ==, 227);
  g_assert_cmpint (json_object_get_int_member (ds, "smem_per_sm_kb"), ==, 228);
  g_assert_cmpint (json_object_get_int_member (ds, "max_threads_per_block"), ==, 1024);
  g_assert_cmpint (json_object_get_int_member (ds, "max_threads_per_sm"), ==, 2048);
  g_assert_cmpint (json_object_get_int_member (ds, "max_blocks_per_sm"), ==, 32);
  g_assert_cmpint (json_object_get_int_member (ds, "registers_per_sm"), ==, 65536);

  /* Measured: finite and positive. */
  g_assert_true (json_object_get_boolean_member (cal, "measured"));
  g_assert_true (positive (cal, "launch_gap_us"));
  g_assert_true (positive (cal, "dram_latency_us"));
  g_assert_true (positive (cal, "l2_gbs"));
  g_assert_true (positive (cal, "tensor_efficiency"));
  g_assert_true (positive (cal, "fp32_efficiency"));
  sweep = json_object_get_array_member (cal, "dram_gbs_by_inflight");
  g_assert_cmpuint (json_array_get_length (sweep), >=, 4);
  for (guint i = 0; i < json_array_get_length (sweep); i++)
    {
      JsonObject *p = json_array_get_object_element (sweep, i);
      g_assert_cmpint (json_object_get_int_member (p, "kib_per_sm"), >=, 2);
      g_assert_cmpint (json_object_get_int_member (p, "kib_per_sm"), <=, 128);
      g_assert_true (positive (p, "gbs"));
    }
  g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (sweep, 0), "kib_per_sm"), ==, 2);
  g_assert_nonnull (strstr (json_object_get_string_member (cal, "source"), "prism calibrate on Fake CUDA device"));
  g_assert_nonnull (strstr (json_object_get_string_member (cal, "source"), "driver 13000"));
}

/* The command with the fakes: the file, every key, the values; --json prints it too. */
static void
test_cli (void)
{
  g_autofree char *file = g_build_filename (tmpdir, "cal.json", NULL);
  g_autofree char *out = NULL;
  g_autofree char *text = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(JsonParser) printed = json_parser_new ();
  g_autoptr(GError) error = NULL;
  const char *argv[] = { prism_path, "calibrate", "--quick", "--gemm-shapes", SMALL_GEMMS, "--out", file,
                         "--json", NULL };
  const char *text_argv[] = { prism_path, "calibrate", "--quick", "--gemm-shapes", "", "--out", file, NULL };
  JsonObject *doc, *cal, *vg, *ds;

  if (!in_child () || skip_unusable ())
    return;
  use_fakes ();
  g_assert_cmpint (run (argv, &out, NULL), ==, 0);
  json_parser_load_from_file (parser, file, &error);
  g_assert_no_error (error);
  doc = json_node_get_object (json_parser_get_root (parser));
  assert_schema (doc);
  g_assert_cmpstr (json_object_get_string_member (doc, "name"), ==, "fake-cuda-device-cpu");
  g_assert_cmpstr (json_object_get_string_member (doc, "display_name"), ==, "Fake CUDA device (CPU)");
  ds = json_object_get_object_member (doc, "datasheet");
  /* No datasheet file: the peak rates are unknown, and it says so. */
  g_assert_cmpfloat (json_object_get_double_member (ds, "dram_gbs"), ==, 0);
  g_assert_cmpfloat (json_object_get_double_member (ds, "tensor_tflops"), ==, 0);
  g_assert_nonnull (strstr (json_object_get_string_member (ds, "source"), "unknown"));
  cal = json_object_get_object_member (doc, "calibration");
  g_assert_cmpfloat (json_object_get_double_member (cal, "tensor_efficiency"), ==, 0.7);
  g_assert_cmpfloat (json_object_get_double_member (cal, "fp32_efficiency"), ==, 0.6);
  g_assert_nonnull (strstr (json_object_get_string_member (cal, "source"), "0.7/0.6"));
  /* The fake NVML's clock under load. */
  g_assert_cmpfloat (json_object_get_double_member (cal, "sm_clock_mhz"), ==, 1755);
  g_assert_nonnull (strstr (json_object_get_string_member (cal, "source"), "SM clock 1755 MHz"));
  vg = json_object_get_object_member (cal, "vendor_gemm");
  g_assert_true (positive (vg, "efficiency"));
  g_assert_true (positive (vg, "min_us"));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (vg, "shapes")), ==, 2);
  /* --json printed the same document. */
  json_parser_load_from_data (printed, out, -1, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (json_parser_get_root (printed)), "name"), ==,
                   "fake-cuda-device-cpu");

  /* The text summary; no GEMMs at all is allowed. */
  g_clear_pointer (&out, g_free);
  g_assert_cmpint (run (text_argv, &out, NULL), ==, 0);
  g_assert_nonnull (strstr (out, "Fake CUDA device (CPU)"));
  g_assert_nonnull (strstr (out, "GB/s"));
  g_assert_nonnull (strstr (out, file));
  g_file_get_contents (file, &text, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (text, "\"skipped\""));
}

/* A datasheet file: peak rates, name, match and efficiencies copied; the
 * device's limits stay the driver's. */
static void
test_datasheet (void)
{
  g_autofree char *ds_path = g_build_filename (tmpdir, "h200.json", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) doc = NULL;
  PrismCalibrateOptions o;
  JsonObject *d, *ds, *cal;
  const char *ds_text =
    "{\"format\": \"prism-gpu\", \"version\": 1, \"name\": \"h200\", \"display_name\": \"NVIDIA H200\","
    " \"match\": [\"H200\", \"GH200\"],"
    " \"datasheet\": {\"source\": \"NVIDIA H200 datasheet\", \"compute_capability\": 90, \"sm_count\": 132,"
    "   \"dram_gbs\": 4800, \"l2_mb\": 50, \"tensor_tflops\": 989.4, \"fp32_tflops\": 66.9},"
    " \"calibration\": {\"tensor_efficiency\": 0.75, \"fp32_efficiency\": 0.65}}";

  if (!in_child () || skip_unusable ())
    return;
  use_fakes ();
  g_assert_true (g_file_set_contents (ds_path, ds_text, -1, NULL));
  prism_calibrate_options_init (&o);
  o.quick = TRUE;
  o.datasheet = ds_path;
  o.gemm_shapes = SMALL_GEMMS;
  doc = prism_calibrate_run (&o, &error);
  g_assert_no_error (error);
  d = json_node_get_object (doc);
  assert_schema (d);
  g_assert_cmpstr (json_object_get_string_member (d, "name"), ==, "h200");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (d, "match")), ==, 2);
  ds = json_object_get_object_member (d, "datasheet");
  g_assert_cmpfloat (json_object_get_double_member (ds, "dram_gbs"), ==, 4800);
  g_assert_cmpfloat (json_object_get_double_member (ds, "tensor_tflops"), ==, 989.4);
  g_assert_cmpfloat (json_object_get_double_member (ds, "fp32_tflops"), ==, 66.9);
  g_assert_nonnull (strstr (json_object_get_string_member (ds, "source"), "NVIDIA H200 datasheet"));
  cal = json_object_get_object_member (d, "calibration");
  g_assert_cmpfloat (json_object_get_double_member (cal, "tensor_efficiency"), ==, 0.75);
  g_assert_cmpfloat (json_object_get_double_member (cal, "fp32_efficiency"), ==, 0.65);
  g_assert_nonnull (strstr (json_object_get_string_member (json_object_get_object_member (cal, "vendor_gemm"),
                                                           "source"), "datasheet"));

  /* Saved atomically, readable back. */
  {
    g_autofree char *out = g_build_filename (tmpdir, "saved.json", NULL);
    g_autoptr(JsonParser) p = json_parser_new ();

    g_assert_true (prism_calibrate_save (doc, out, &error));
    g_assert_no_error (error);
    json_parser_load_from_file (p, out, &error);
    g_assert_no_error (error);
  }
}

/* Without cuBLASLt the file is still written, the GEMMs skipped with why. */
static void
test_no_vendor (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) doc = NULL;
  PrismCalibrateOptions o;
  JsonObject *vg;

  if (!in_child () || skip_unusable ())
    return;
  use_fakes ();
  g_setenv ("PRISM_CUBLASLT_LIBRARY", "/nonexistent/libcublasLt.so.13", TRUE);
  prism_calibrate_options_init (&o);
  o.quick = TRUE;
  o.gemm_shapes = SMALL_GEMMS;
  doc = prism_calibrate_run (&o, &error);
  g_assert_no_error (error);
  vg = json_object_get_object_member (json_object_get_object_member (json_node_get_object (doc), "calibration"),
                                      "vendor_gemm");
  g_assert_cmpfloat (json_object_get_double_member (vg, "efficiency"), ==, 0);
  g_assert_nonnull (strstr (json_object_get_string_member (vg, "skipped"), "cuBLASLt"));
  g_assert_nonnull (strstr (json_object_get_string_member (vg, "skipped"), "/nonexistent/libcublasLt.so.13"));
}

/* A hung calibration kernel: killed at the timeout, the step named, no file. */
static void
test_hang (void)
{
  g_autofree char *file = g_build_filename (tmpdir, "hang.json", NULL);
  g_autofree char *err = NULL;
  const char *argv[] = { prism_path, "calibrate", "--quick", "--gemm-shapes", "", "--timeout", "4", "--out", file,
                         NULL };
  gint64 t0;

  if (!in_child () || skip_unusable ())
    return;
  use_fakes ();
  g_setenv ("PRISM_FAKE_CUDA_HANG", "prism_cal_chase", TRUE);
  t0 = g_get_monotonic_time ();
  g_assert_cmpint (run (argv, NULL, &err), ==, 1);
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 60 * G_USEC_PER_SEC);
  g_assert_nonnull (strstr (err, "did not finish within 4 s"));
  g_assert_nonnull (strstr (err, "DRAM latency"));
  g_assert_nonnull (strstr (err, "no file was written"));
  g_assert_false (g_file_test (file, G_FILE_TEST_EXISTS));
}

/* A failing launch: the CUDA error and the call are named. */
static void
test_cuda_error (void)
{
  g_autoptr(GError) error = NULL;
  PrismCalibrateOptions o;

  if (!in_child () || skip_unusable ())
    return;
  use_fakes ();
  g_setenv ("PRISM_FAKE_CUDA_FAIL", "prism_cal_read_u2", TRUE);
  prism_calibrate_options_init (&o);
  o.quick = TRUE;
  o.gemm_shapes = "";
  g_assert_null (prism_calibrate_run (&o, &error));
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_FAILED);
  g_assert_nonnull (strstr (error->message, "CUDA_ERROR_LAUNCH_FAILED"));
  g_assert_nonnull (strstr (error->message, "cuLaunchKernel (prism_cal_read_u2)"));
}

/* No GPU: exit 1, nothing written; bad input: exit 2. */
static void
test_no_gpu_and_bad_input (void)
{
  g_autofree char *file = g_build_filename (tmpdir, "none.json", NULL);
  g_autofree char *bad_ds = g_build_filename (tmpdir, "bad-datasheet.json", NULL);
  g_autofree char *err = NULL;
  const char *argv[] = { prism_path, "calibrate", "--out", file, NULL };
  const char *extra[] = { prism_path, "calibrate", "h200", NULL };
  const char *shapes[] = { prism_path, "calibrate", "--gemm-shapes", "8x8", NULL };
  const char *missing[] = { prism_path, "calibrate", "--datasheet", "/nonexistent/h200.json", NULL };
  const char *wrong[] = { prism_path, "calibrate", "--datasheet", bad_ds, NULL };
  const char *timeout[] = { prism_path, "calibrate", "--timeout", "0", NULL };

  if (!in_child ())
    return;
  g_setenv ("PRISM_CUDA_LIBRARY", "/nonexistent/libcuda.so.1", TRUE);
  g_assert_cmpint (run (argv, NULL, &err), ==, 1);
  g_assert_nonnull (strstr (err, "no GPU"));
  g_assert_nonnull (strstr (err, "/nonexistent/libcuda.so.1"));
  g_assert_false (g_file_test (file, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_set_contents (bad_ds, "{\"format\": \"prism-graph\", \"version\": 1}", -1, NULL));
  g_assert_cmpint (run (extra, NULL, NULL), ==, 2);
  g_assert_cmpint (run (shapes, NULL, NULL), ==, 2);
  g_assert_cmpint (run (missing, NULL, NULL), ==, 2);
  g_assert_cmpint (run (wrong, NULL, NULL), ==, 2);
  g_assert_cmpint (run (timeout, NULL, NULL), ==, 2);
}

/* The calibration source is real CUDA: NVRTC compiles it for both targets. */
static void
test_nvrtc (void)
{
  g_autoptr(PrismCudaRuntime) rt = prism_cuda_runtime_new ();
  g_autoptr(GBytes) source = prism_calibrate_get_source ();
  g_autofree char *text = NULL;
  g_autofree char *include = prism_cuda_find_include_dir ();
  const char *arches[] = { "sm_80", "sm_90" };

  g_assert_nonnull (source);
  if (!prism_cuda_runtime_load_nvrtc (rt, NULL) || include == NULL)
    {
      g_test_skip ("NVRTC or the CUDA headers are not installed");
      return;
    }
  text = g_strndup (g_bytes_get_data (source, NULL), g_bytes_get_size (source));
  for (guint i = 0; i < G_N_ELEMENTS (arches); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GBytes) cubin = prism_cuda_runtime_compile (rt, text, arches[i], NULL, &error);

      g_assert_no_error (error);
      g_assert_cmpuint (g_bytes_get_size (cubin), >, 0);
    }
}

static void
test_name (void)
{
  const char *cases[][2] = {
    { "NVIDIA H200", "h200" },
    { "NVIDIA H100 80GB HBM3", "h100-80gb-hbm3" },
    { "NVIDIA A100-SXM4-40GB", "a100-sxm4-40gb" },
    { "Fake CUDA device (CPU)", "fake-cuda-device-cpu" },
    { "", "gpu" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *name = prism_calibrate_name_for (cases[i][0]);
      g_assert_cmpstr (name, ==, cases[i][1]);
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

  if (argc == 6 && argv[1][0] != '-')
    {
      g_setenv ("PRISM_TEST_CLI", argv[1], TRUE);
      g_setenv ("PRISM_GPU_WORKER", argv[2], TRUE);
      g_setenv ("PRISM_CUDA_LIBRARY", argv[3], TRUE);
      g_setenv ("PRISM_CUBLASLT_LIBRARY", argv[4], TRUE);
      g_setenv ("PRISM_NVML_LIBRARY", argv[5], TRUE);
    }
  g_test_init (&argc, &argv, NULL);
  prism_path = g_getenv ("PRISM_TEST_CLI");
  if (prism_path == NULL)
    g_error ("usage: %s PRISM PRISM-GPU-WORKER LIBFAKECUDA LIBFAKECUBLASLT LIBFAKENVML", argv[0]);
  usable = gxx != NULL && include != NULL && prism_cuda_runtime_load_nvrtc (rt, NULL);
  tmpdir = g_dir_make_tmp ("prism-calibrate-test-XXXXXX", &error);
  g_assert_no_error (error);

  g_test_add_func ("/calibrate/cli", test_cli);
  g_test_add_func ("/calibrate/datasheet", test_datasheet);
  g_test_add_func ("/calibrate/no-vendor", test_no_vendor);
  g_test_add_func ("/calibrate/hang", test_hang);
  g_test_add_func ("/calibrate/cuda-error", test_cuda_error);
  g_test_add_func ("/calibrate/no-gpu-and-bad-input", test_no_gpu_and_bad_input);
  g_test_add_func ("/calibrate/nvrtc", test_nvrtc);
  g_test_add_func ("/calibrate/name", test_name);
  rc = g_test_run ();
  codegen_remove_tree (tmpdir);
  g_free (tmpdir);
  return rc;
}
