/* prism-gpu-bench.c — timing generated kernels on the GPU
 *
 * The protocol (docs/codegen.md):
 *
 *  1. the parent generates the CUDA code, runs the CPU interpreter on seeded
 *     inputs (rounded to the input dtypes) and writes a job folder;
 *  2. a child process (prism-gpu-worker) compiles the code with NVRTC for the
 *     device, loads it with the driver API, runs it once and compares every
 *     output with the interpreter's, and only then times it: warm-up by
 *     time, then samples with one event pair each and the L2 cache flushed
 *     (a memset of twice its size) before each, until both a minimum time
 *     and a minimum number of samples are reached;
 *  3. the parent kills the child after the timeout, reads its result, and
 *     reports the median with p20/p80, TFLOP/s, GB/s and the share of the
 *     roofline of the device.
 *
 * The unfused program is timed through the very same path (its predefined
 * ops are lowered to kernels by the code generator), so baselines and
 * candidates differ only in the graph.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "prism-cuda-emitter.h"
#include "prism-cuda-runtime.h"
#include "prism-error.h"
#include "prism-gpu-bench.h"
#include "prism-gpu-target.h"
#include "prism-interp.h"

#define WORKER_NAME "prism-gpu-worker"
/* Dynamic shared memory above this needs the opt-in attribute. */
#define SMEM_NO_OPT_IN 49152

void
prism_gpu_bench_options_init (PrismGpuBenchOptions *options)
{
  memset (options, 0, sizeof *options);
  options->timeout_s = 120;
  options->warmup_ms = 25;
  options->min_time_ms = 100;
  options->min_samples = 30;
  options->max_samples = 2000;
  options->seed = 1;
  options->input_scale = 0.25;
}

void
prism_gpu_bench_result_clear (PrismGpuBenchResult *result)
{
  g_free (result->device_name);
  g_free (result->arch);
  memset (result, 0, sizeof *result);
}

/* ------------------------------------------------------------------------ */
/* Storage conversions (the interpreter works in doubles) */

static guint16
float_to_half (float f)
{
  guint32 x, sign, exp, man, half, rem;
  int e;

  memcpy (&x, &f, sizeof x);
  sign = (x >> 16) & 0x8000;
  exp = (x >> 23) & 0xff;
  man = x & 0x7fffff;
  if (exp == 0xff)
    return (guint16) (sign | 0x7c00 | (man ? 0x200 : 0));
  e = (int) exp - 127 + 15;
  if (e >= 0x1f)
    return (guint16) (sign | 0x7c00);
  if (e <= 0)
    {
      guint32 shift, halfway;

      if (e < -10)
        return (guint16) sign;
      man |= 0x800000;
      shift = (guint32) (14 - e);
      half = man >> shift;
      rem = man & ((1u << shift) - 1);
      halfway = 1u << (shift - 1);
      if (rem > halfway || (rem == halfway && (half & 1)))
        half++;
      return (guint16) (sign | half);
    }
  half = sign | ((guint32) e << 10) | (man >> 13);
  rem = man & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (half & 1)))
    half++;   /* a carry into the exponent is the right rounding */
  return (guint16) half;
}

static float
half_to_float (guint16 h)
{
  guint32 sign = (guint32) (h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff, x;
  float f;

  if (exp == 0)
    {
      f = ldexpf ((float) man, -24);
      return sign ? -f : f;
    }
  if (exp == 0x1f)
    x = sign | 0x7f800000 | (man << 13);
  else
    x = sign | ((exp - 15 + 127) << 23) | (man << 13);
  memcpy (&f, &x, sizeof f);
  return f;
}

static guint16
float_to_bf16 (float f)
{
  guint32 x;

  memcpy (&x, &f, sizeof x);
  if ((x & 0x7fffffff) > 0x7f800000)
    return 0x7fc0;
  return (guint16) ((x + 0x7fff + ((x >> 16) & 1)) >> 16);
}

static float
bf16_to_float (guint16 b)
{
  guint32 x = (guint32) b << 16;
  float f;

  memcpy (&f, &x, sizeof f);
  return f;
}

/* @buffer in @dtype's bytes. */
static GBytes *
encode (const PrismBuffer *buffer, PrismDtype dtype)
{
  gsize size = prism_dtype_size (dtype);
  guint8 *out = g_malloc ((gsize) buffer->numel * size);

  for (gint64 i = 0; i < buffer->numel; i++)
    {
      float f = (float) buffer->data[i];
      if (dtype == PRISM_DTYPE_F32)
        memcpy (out + i * 4, &f, 4);
      else
        {
          guint16 h = dtype == PRISM_DTYPE_F16 ? float_to_half (f) : float_to_bf16 (f);
          memcpy (out + i * 2, &h, 2);
        }
    }
  return g_bytes_new_take (out, (gsize) buffer->numel * size);
}

static float
decode_one (const guint8 *data, gsize i, PrismDtype dtype)
{
  if (dtype == PRISM_DTYPE_F32)
    {
      float f;
      memcpy (&f, data + i * 4, 4);
      return f;
    }
  else
    {
      guint16 h;
      memcpy (&h, data + i * 2, 2);
      return dtype == PRISM_DTYPE_F16 ? half_to_float (h) : bf16_to_float (h);
    }
}

/* ------------------------------------------------------------------------ */
/* Work of a graph */

static double
block_op_flops (const PrismGraph *body, const PrismOp *op)
{
  const PrismTensor *out;
  double n;

  if (op->kind == PRISM_OP_INPUT || op->kind == PRISM_OP_OUTPUT)
    return 0;
  out = prism_graph_tensor (body, op->outputs[0]);
  n = (double) prism_tensor_numel (out);
  if (op->kind == PRISM_OP_MATMUL)
    {
      const PrismTensor *a = prism_graph_tensor (body, op->inputs[0]);
      return 2.0 * n * (double) prism_dim_get_const (a->dims[a->ndims - 1]);
    }
  if (op->kind == PRISM_OP_RMS_NORM)
    return 3.0 * n;
  if (op->kind == PRISM_OP_SUM || prism_op_kind_is_accum (op->kind))
    return (double) prism_tensor_numel (prism_graph_tensor (body, op->inputs[0]));
  return n;
}

void
prism_gpu_bench_count_work (const PrismGraph *graph, double *flops, double *bytes)
{
  g_autoptr(GArray) ins = prism_graph_get_inputs (graph);
  g_autoptr(GArray) outs = prism_graph_get_outputs (graph);

  *flops = 0;
  *bytes = 0;
  for (guint i = 0; i < ins->len; i++)
    {
      const PrismTensor *t = prism_graph_tensor (graph, g_array_index (ins, guint, i));
      *bytes += (double) prism_tensor_numel (t) * prism_dtype_size (t->dtype);
    }
  for (guint i = 0; i < outs->len; i++)
    {
      const PrismTensor *t = prism_graph_tensor (graph, g_array_index (outs, guint, i));
      *bytes += (double) prism_tensor_numel (t) * prism_dtype_size (t->dtype);
    }
  for (guint i = 0; i < graph->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (graph, i);

      if (op->kind == PRISM_OP_KERNEL)
        {
          const PrismGraph *body = op->body;
          double blocks = 1, f = (double) prism_dim_get_const (body->forloop);

          for (guint p = 0; p < body->grid_ndims; p++)
            blocks *= (double) prism_dim_get_const (body->grid[p]);
          for (guint j = 0; j < body->ops->len; j++)
            {
              const PrismOp *bop = prism_graph_op (body, j);
              gboolean in_loop = bop->kind != PRISM_OP_OUTPUT && bop->kind != PRISM_OP_INPUT &&
                                 (prism_op_kind_is_accum (bop->kind) ||
                                  !prism_graph_tensor (body, bop->outputs[0])->after_accum);
              *flops += block_op_flops (body, bop) * blocks * (in_loop ? f : 1.0);
            }
        }
      else
        *flops += block_op_flops (graph, op);
    }
}

/* ------------------------------------------------------------------------ */
/* The parent side */

gboolean
prism_gpu_bench_probe (int device, char **description, GError **error)
{
  g_autoptr(PrismCudaRuntime) rt = prism_cuda_runtime_new ();
  const PrismGpuInfo *info;

  if (!prism_cuda_runtime_load_driver (rt, device, error) || !prism_cuda_runtime_load_nvrtc (rt, error))
    return FALSE;
  info = prism_cuda_runtime_get_info (rt);
  if (description != NULL)
    *description = g_strdup_printf ("%s (sm_%d, %d SMs)", info->name, info->compute_capability,
                                    info->sm_count);
  return TRUE;
}

static char *
find_worker (const char *hint)
{
  const char *env = g_getenv ("PRISM_GPU_WORKER");
  g_autofree char *self = g_file_read_link ("/proc/self/exe", NULL);

  if (hint != NULL)
    return g_strdup (hint);
  if (env != NULL && *env)
    return g_strdup (env);
  if (self != NULL)
    {
      g_autofree char *dir = g_path_get_dirname (self);
      g_autofree char *next = g_build_filename (dir, WORKER_NAME, NULL);
      g_autofree char *libexec = g_build_filename (dir, "..", "libexec", WORKER_NAME, NULL);

      if (g_file_test (next, G_FILE_TEST_IS_EXECUTABLE))
        return g_steal_pointer (&next);
      if (g_file_test (libexec, G_FILE_TEST_IS_EXECUTABLE))
        return g_steal_pointer (&libexec);
    }
  return g_find_program_in_path (WORKER_NAME);
}

typedef struct
{
  gboolean done;
  gboolean timed_out;
} Wait;

static void
wait_done (GObject *source, GAsyncResult *res, gpointer user_data)
{
  Wait *w = user_data;

  g_subprocess_wait_finish (G_SUBPROCESS (source), res, NULL);
  w->done = TRUE;
}

static gboolean
wait_timeout (gpointer user_data)
{
  Wait *w = user_data;

  w->timed_out = TRUE;
  return G_SOURCE_REMOVE;
}

/* Waits for @p at most @timeout_s; kills it after that.  TRUE if it ended
 * by itself. */
static gboolean
wait_with_timeout (GSubprocess *p, guint timeout_s)
{
  GMainContext *ctx = g_main_context_new ();
  GSource *timer = g_timeout_source_new_seconds (timeout_s);
  Wait w = { FALSE, FALSE };

  g_main_context_push_thread_default (ctx);
  g_subprocess_wait_async (p, NULL, wait_done, &w);
  g_source_set_callback (timer, wait_timeout, &w, NULL);
  g_source_attach (timer, ctx);
  while (!w.done && !w.timed_out)
    g_main_context_iteration (ctx, TRUE);
  if (!w.done)
    {
      g_subprocess_force_exit (p);
      while (!w.done)
        g_main_context_iteration (ctx, TRUE);
    }
  g_source_destroy (timer);
  g_source_unref (timer);
  g_main_context_pop_thread_default (ctx);
  g_main_context_unref (ctx);
  return !w.timed_out;
}

static gboolean
write_bytes (const char *dir, const char *name, GBytes *bytes, GError **error)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  gsize len;
  const char *data = g_bytes_get_data (bytes, &len);

  return g_file_set_contents (path, data ? data : "", (gssize) len, error);
}

static gboolean
write_json (const char *dir, const char *name, JsonNode *node, GError **error)
{
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autofree char *path = g_build_filename (dir, name, NULL);

  json_generator_set_pretty (gen, TRUE);
  json_generator_set_root (gen, node);
  return json_generator_to_file (gen, path, error);
}

static void
remove_dir (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);
      g_remove (child);
    }
  g_rmdir (path);
}

static const PrismGpuTarget *
peak_table (const char *device_name, int cc, const char **source)
{
  g_autofree char *lower = g_ascii_strdown (device_name ? device_name : "", -1);
  const char *names[] = { "h200", "h100", "a100" };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (strstr (lower, names[i]) != NULL && prism_gpu_target_lookup (names[i]) != NULL)
      {
        *source = names[i];
        return prism_gpu_target_lookup (names[i]);
      }
  *source = cc >= 90 ? "h100 (closest known to this sm_90+ device)" : "a100 (closest known)";
  return prism_gpu_target_lookup (cc >= 90 ? "h100" : "a100");
}

static double
default_tolerance (const PrismGraph *graph)
{
  g_autoptr(GArray) ins = prism_graph_get_inputs (graph);
  double tol = 1e-3;

  /* Intermediates are stored in the input dtype between kernels and in
   * front of tensor-core matmuls; the interpreter rounds only to f32. */
  for (guint i = 0; i < ins->len; i++)
    {
      PrismDtype d = prism_graph_tensor (graph, g_array_index (ins, guint, i))->dtype;
      tol = MAX (tol, d == PRISM_DTYPE_F16 ? 2e-2 : d == PRISM_DTYPE_BF16 ? 5e-2 : 1e-3);
    }
  return tol;
}

static gboolean
read_result (const char *dir, const char *log_path, PrismGpuBenchResult *result, GError **error)
{
  g_autofree char *path = g_build_filename (dir, "result.json", NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autofree char *log = NULL;
  JsonObject *o, *dev;
  const char *status, *message;

  if (!json_parser_load_from_file (parser, path, NULL))
    {
      g_file_get_contents (log_path, &log, NULL, NULL);
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED,
                   "the GPU worker ended without a result; its output:\n%s", log ? log : "(none)");
      return FALSE;
    }
  o = json_node_get_object (json_parser_get_root (parser));
  status = json_object_get_string_member_with_default (o, "status", "error");
  message = json_object_get_string_member_with_default (o, "message", "");
  dev = json_object_has_member (o, "device") ? json_object_get_object_member (o, "device") : NULL;
  if (dev != NULL)
    {
      result->device_name = g_strdup (json_object_get_string_member_with_default (dev, "name", ""));
      result->compute_capability = (int) json_object_get_int_member_with_default (dev, "compute_capability", 0);
      result->sm_count = (int) json_object_get_int_member_with_default (dev, "sm_count", 0);
      result->driver_version = (int) json_object_get_int_member_with_default (dev, "driver_version", 0);
    }
  result->arch = g_strdup (json_object_get_string_member_with_default (o, "arch", ""));
  result->max_rel_error = json_object_get_double_member_with_default (o, "max_rel_error", NAN);

  if (g_str_equal (status, "no_gpu"))
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_NO_GPU, "%s", message);
      return FALSE;
    }
  if (g_str_equal (status, "mismatch"))
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED,
                   "the GPU output differs from the interpreter: max relative error %.3g > %.3g",
                   result->max_rel_error, result->tolerance);
      return FALSE;
    }
  if (!g_str_equal (status, "ok"))
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED, "on the GPU: %s", message);
      return FALSE;
    }
  result->n_samples = (guint) json_object_get_int_member_with_default (o, "samples", 0);
  result->median_us = json_object_get_double_member_with_default (o, "median_us", NAN);
  result->p20_us = json_object_get_double_member_with_default (o, "p20_us", NAN);
  result->p80_us = json_object_get_double_member_with_default (o, "p80_us", NAN);
  result->min_us = json_object_get_double_member_with_default (o, "min_us", NAN);
  result->mean_us = json_object_get_double_member_with_default (o, "mean_us", NAN);
  result->cv = json_object_get_double_member_with_default (o, "cv", NAN);
  return TRUE;
}

gboolean
prism_gpu_bench_run (const PrismGraph *graph, const PrismGpuBenchOptions *options_in,
                     PrismGpuBenchResult *result, GError **error)
{
  PrismGpuBenchOptions options;
  g_autoptr(PrismCudaRuntime) rt = prism_cuda_runtime_new ();
  g_autoptr(PrismCudaEmitter) emitter = NULL;
  g_autoptr(GPtrArray) inputs = NULL;
  g_autoptr(GPtrArray) expected = NULL;
  g_autoptr(JsonBuilder) job = json_builder_new ();
  g_autoptr(JsonNode) job_node = NULL;
  g_autoptr(JsonNode) manifest = NULL;
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) child = NULL;
  g_autoptr(GArray) in_ids = NULL;
  g_autoptr(GArray) out_ids = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *worker = NULL;
  g_autofree char *log_path = NULL;
  PrismCudaOptions cuda = { 0, };
  PrismInterpOptions interp = { PRISM_PRECISION_F32, 0 };
  const PrismGpuInfo *info;
  const PrismGpuTarget *peaks;
  gboolean ok = FALSE;
  GBytes *bytes;

  g_return_val_if_fail (graph != NULL && result != NULL, FALSE);
  memset (result, 0, sizeof *result);
  if (options_in != NULL)
    options = *options_in;
  else
    prism_gpu_bench_options_init (&options);

  /* Fail fast, in this process, when there is no GPU at all. */
  if (!prism_cuda_runtime_load_driver (rt, options.device, error) ||
      !prism_cuda_runtime_load_nvrtc (rt, error))
    return FALSE;
  info = prism_cuda_runtime_get_info (rt);
  worker = find_worker (options.worker);
  if (worker == NULL)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED,
                   "cannot find %s (set $PRISM_GPU_WORKER to its path)", WORKER_NAME);
      return FALSE;
    }

  cuda.sm = (guint) MAX (info->compute_capability, 80);
  cuda.prefix = "prism_bench";
  cuda.vendor_matmul = options.vendor_matmul;
  cuda.target = prism_gpu_target_for_device (info->name, (guint) info->compute_capability);
  if (info->smem_per_block_optin > 0)
    cuda.smem_limit = (gsize) info->smem_per_block_optin;
  emitter = prism_cuda_emitter_new (graph, &cuda, error);
  if (emitter == NULL)
    return FALSE;

  result->tolerance = options.tolerance > 0 ? options.tolerance : default_tolerance (graph);
  result->n_kernels = prism_cuda_emitter_get_n_kernels (emitter);
  inputs = prism_interp_make_inputs (graph, options.seed);
  in_ids = prism_graph_get_inputs (graph);
  for (guint i = 0; i < inputs->len && options.input_scale > 0 && options.input_scale != 1; i++)
    {
      PrismBuffer *b = g_ptr_array_index (inputs, i);
      for (gint64 j = 0; j < b->numel; j++)
        b->data[j] *= options.input_scale;
      prism_buffer_round_to_dtype (b, prism_graph_tensor (graph, g_array_index (in_ids, guint, i))->dtype);
    }
  expected = prism_interp_run (graph, (PrismBuffer * const *) inputs->pdata, inputs->len, &interp, error);
  if (expected == NULL)
    return FALSE;

  dir = g_dir_make_tmp ("prism-bench-XXXXXX", error);
  if (dir == NULL)
    return FALSE;
  log_path = g_build_filename (dir, "worker.log", NULL);

  bytes = g_bytes_new_static (prism_cuda_emitter_get_source (emitter),
                              strlen (prism_cuda_emitter_get_source (emitter)));
  ok = write_bytes (dir, "kernels.cu", bytes, error);
  g_bytes_unref (bytes);
  if (!ok)
    goto out;
  ok = FALSE;
  manifest = prism_cuda_emitter_build_manifest (emitter, "kernels.cu", "kernels.h");
  if (!write_json (dir, "manifest.json", manifest, error))
    goto out;

  for (guint i = 0; i < inputs->len; i++)
    {
      g_autofree char *name = g_strdup_printf ("in%u.bin", i);
      PrismDtype d = prism_graph_tensor (graph, g_array_index (in_ids, guint, i))->dtype;
      g_autoptr(GBytes) b = encode (g_ptr_array_index (inputs, i), d);
      if (!write_bytes (dir, name, b, error))
        goto out;
    }
  out_ids = prism_graph_get_outputs (graph);
  for (guint i = 0; i < expected->len; i++)
    {
      g_autofree char *name = g_strdup_printf ("ref%u.f32", i);
      g_autoptr(GBytes) b = encode (g_ptr_array_index (expected, i), PRISM_DTYPE_F32);
      if (!write_bytes (dir, name, b, error))
        goto out;
    }

  json_builder_begin_object (job);
  json_builder_set_member_name (job, "device");
  json_builder_add_int_value (job, options.device);
  json_builder_set_member_name (job, "warmup_ms");
  json_builder_add_double_value (job, options.warmup_ms);
  json_builder_set_member_name (job, "min_time_ms");
  json_builder_add_double_value (job, options.min_time_ms);
  json_builder_set_member_name (job, "min_samples");
  json_builder_add_int_value (job, options.min_samples);
  json_builder_set_member_name (job, "max_samples");
  json_builder_add_int_value (job, options.max_samples);
  json_builder_set_member_name (job, "tolerance");
  json_builder_add_double_value (job, result->tolerance);
  /* Sampling stops early enough to report before the parent's timeout. */
  json_builder_set_member_name (job, "sample_budget_s");
  json_builder_add_double_value (job, MAX (1.0, options.timeout_s / 3.0));
  json_builder_end_object (job);
  job_node = json_builder_get_root (job);
  if (!write_json (dir, "job.json", job_node, error))
    goto out;

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDERR_MERGE);
  g_subprocess_launcher_set_stdout_file_path (launcher, log_path);
  child = g_subprocess_launcher_spawn (launcher, error, worker, dir, NULL);
  if (child == NULL)
    goto out;
  if (!wait_with_timeout (child, MAX (options.timeout_s, 1)))
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_LIMIT,
                   "the GPU measurement did not finish within %u s and was stopped", options.timeout_s);
      goto out;
    }
  if (!read_result (dir, log_path, result, error))
    goto out;

  prism_gpu_bench_count_work (options.work_graph != NULL ? options.work_graph : graph,
                              &result->flops, &result->bytes);
  result->tflops = result->flops / (result->median_us * 1e-6) / 1e12;
  result->gbs = result->bytes / (result->median_us * 1e-6) / 1e9;
  peaks = peak_table (result->device_name, result->compute_capability, &result->peak_source);
  if (peaks != NULL)
    {
      gboolean half = FALSE;
      for (guint i = 0; i < in_ids->len; i++)
        half = half || prism_graph_tensor (graph, g_array_index (in_ids, guint, i))->dtype != PRISM_DTYPE_F32;
      result->roofline_us = MAX (result->flops / ((half ? peaks->tensor_tflops : peaks->fp32_tflops) * 1e12),
                                 result->bytes / (peaks->dram_gbs * 1e9)) * 1e6;
      result->roofline_pct = 100.0 * result->roofline_us / result->median_us;
    }
  ok = TRUE;

out:
  if (options.keep_dir)
    g_message ("GPU job folder kept: %s", dir);
  else
    remove_dir (dir);
  return ok;
}

/* ------------------------------------------------------------------------ */
/* The child: prism-gpu-worker JOBDIR */

typedef struct
{
  PrismCudaRuntime *rt;
  const PrismCudaDriver *cu;
  PrismCUmodule module;
  PrismCUstream stream;
  GPtrArray *functions;       /* PrismCUfunction per kernel */
  JsonArray *kernels;         /* the manifest's */
  PrismCUdeviceptr *in, *out;
  guint n_in, n_out;
  PrismCUdeviceptr ws, flush;
  gsize flush_bytes;
} Worker;

static gboolean
launch_all (Worker *w, GError **error)
{
  for (guint k = 0; k < json_array_get_length (w->kernels); k++)
    {
      JsonObject *ko = json_array_get_object_element (w->kernels, k);
      JsonArray *grid = json_object_get_array_member (ko, "grid");
      JsonArray *block = json_object_get_array_member (ko, "block");
      JsonArray *args = json_object_get_array_member (ko, "args");
      PrismCUdeviceptr values[PRISM_CUDA_MAX_ARGS];
      /* NULL-terminated: the driver does not need it, test doubles do. */
      void *params[PRISM_CUDA_MAX_ARGS + 1] = { NULL, };
      guint n = MIN (json_array_get_length (args), G_N_ELEMENTS (values));

      for (guint a = 0; a < n; a++)
        {
          JsonObject *ao = json_array_get_object_element (args, a);
          const char *kind = json_object_get_string_member (ao, "kind");

          if (g_str_equal (kind, "input"))
            values[a] = w->in[json_object_get_int_member (ao, "index")];
          else if (g_str_equal (kind, "output"))
            values[a] = w->out[json_object_get_int_member (ao, "index")];
          else
            values[a] = w->ws + (PrismCUdeviceptr) json_object_get_int_member (ao, "offset");
          params[a] = &values[a];
        }
      if (!prism_cuda_runtime_check (w->rt,
                                     w->cu->LaunchKernel (g_ptr_array_index (w->functions, k),
                                                          (unsigned) json_array_get_int_element (grid, 0),
                                                          (unsigned) json_array_get_int_element (grid, 1),
                                                          (unsigned) json_array_get_int_element (grid, 2),
                                                          (unsigned) json_array_get_int_element (block, 0),
                                                          (unsigned) json_array_get_int_element (block, 1),
                                                          (unsigned) json_array_get_int_element (block, 2),
                                                          (unsigned) json_object_get_int_member (ko, "shared_memory_bytes"),
                                                          w->stream, params, NULL),
                                     json_object_get_string_member (ko, "name"), error))
        return FALSE;
    }
  return TRUE;
}

static int
compare_doubles (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

static double
quantile (const double *sorted, guint n, double p)
{
  double pos = p * (n - 1);
  guint lo = (guint) floor (pos), hi = MIN (lo + 1, n - 1);

  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

static PrismDtype
dtype_of (JsonObject *o)
{
  PrismDtype d = PRISM_DTYPE_F32;

  prism_dtype_from_string (json_object_get_string_member_with_default (o, "dtype", "f32"), &d);
  return d;
}

/* Runs the job; fills @res (status, measurements). */
static void
worker_run (const char *dir, JsonBuilder *res)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonParser) jp = json_parser_new ();
  g_autoptr(JsonParser) mp = json_parser_new ();
  g_autofree char *job_path = g_build_filename (dir, "job.json", NULL);
  g_autofree char *man_path = g_build_filename (dir, "manifest.json", NULL);
  g_autofree char *src_path = g_build_filename (dir, "kernels.cu", NULL);
  g_autofree char *source = NULL;
  g_autofree char *arch = NULL;
  g_autoptr(GBytes) cubin = NULL;
  g_autoptr(GArray) samples = g_array_new (FALSE, FALSE, sizeof (double));
  const char *status = "error";
  JsonObject *job, *man;
  JsonArray *ins, *outs;
  const PrismGpuInfo *info;
  PrismCUevent start = NULL, stop = NULL;
  Worker w = { 0, };
  double tol, worst = 0;
  gint64 t0;

  w.rt = prism_cuda_runtime_new ();
  w.functions = g_ptr_array_new ();
  if (!json_parser_load_from_file (jp, job_path, &error) || !json_parser_load_from_file (mp, man_path, &error) ||
      !g_file_get_contents (src_path, &source, NULL, &error))
    goto out;
  job = json_node_get_object (json_parser_get_root (jp));
  man = json_node_get_object (json_parser_get_root (mp));
  tol = json_object_get_double_member_with_default (job, "tolerance", 2e-2);

  if (!prism_cuda_runtime_load_driver (w.rt, (int) json_object_get_int_member_with_default (job, "device", 0), &error))
    {
      status = "no_gpu";
      goto out;
    }
  w.cu = prism_cuda_runtime_get_driver (w.rt);
  info = prism_cuda_runtime_get_info (w.rt);
  json_builder_set_member_name (res, "device");
  json_builder_begin_object (res);
  json_builder_set_member_name (res, "name");
  json_builder_add_string_value (res, info->name);
  json_builder_set_member_name (res, "compute_capability");
  json_builder_add_int_value (res, info->compute_capability);
  json_builder_set_member_name (res, "sm_count");
  json_builder_add_int_value (res, info->sm_count);
  json_builder_set_member_name (res, "clock_khz");
  json_builder_add_int_value (res, info->clock_khz);
  json_builder_set_member_name (res, "memory_clock_khz");
  json_builder_add_int_value (res, info->memory_clock_khz);
  json_builder_set_member_name (res, "l2_bytes");
  json_builder_add_int_value (res, info->l2_bytes);
  json_builder_set_member_name (res, "driver_version");
  json_builder_add_int_value (res, info->driver_version);
  json_builder_end_object (res);

  arch = g_strdup_printf ("sm_%d", info->compute_capability);
  json_builder_set_member_name (res, "arch");
  json_builder_add_string_value (res, arch);
  cubin = prism_cuda_runtime_compile (w.rt, source, arch, NULL, &error);
  if (cubin == NULL)
    goto out;
  if (!prism_cuda_runtime_check (w.rt, w.cu->ModuleLoadData (&w.module, g_bytes_get_data (cubin, NULL)),
                                 "cuModuleLoadData", &error) ||
      !prism_cuda_runtime_check (w.rt, w.cu->StreamCreate (&w.stream, 0), "cuStreamCreate", &error))
    goto out;

  w.kernels = json_object_get_array_member (man, "kernels");
  for (guint k = 0; k < json_array_get_length (w.kernels); k++)
    {
      JsonObject *ko = json_array_get_object_element (w.kernels, k);
      const char *name = json_object_get_string_member (ko, "name");
      gint64 smem = json_object_get_int_member (ko, "shared_memory_bytes");
      PrismCUfunction fn = NULL;

      if (!prism_cuda_runtime_check (w.rt, w.cu->ModuleGetFunction (&fn, w.module, name), name, &error))
        goto out;
      if (smem > SMEM_NO_OPT_IN &&
          !prism_cuda_runtime_check (w.rt, w.cu->FuncSetAttribute (fn, PRISM_CU_FUNC_ATTR_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                                                   (int) smem),
                                     "cuFuncSetAttribute", &error))
        goto out;
      g_ptr_array_add (w.functions, fn);
    }

  /* Buffers: inputs from the job, outputs, workspace, the L2 flush buffer. */
  ins = json_object_get_array_member (man, "inputs");
  outs = json_object_get_array_member (man, "outputs");
  w.n_in = json_array_get_length (ins);
  w.n_out = json_array_get_length (outs);
  w.in = g_new0 (PrismCUdeviceptr, w.n_in + 1);
  w.out = g_new0 (PrismCUdeviceptr, w.n_out + 1);
  for (guint i = 0; i < w.n_in; i++)
    {
      gsize want = (gsize) json_object_get_int_member (json_array_get_object_element (ins, i), "bytes");
      g_autofree char *path = g_strdup_printf ("%s/in%u.bin", dir, i);
      g_autofree char *data = NULL;
      gsize len = 0;

      if (!g_file_get_contents (path, &data, &len, &error))
        goto out;
      if (len != want)
        {
          g_set_error (&error, PRISM_ERROR, PRISM_ERROR_FAILED, "input %u has %" G_GSIZE_FORMAT " bytes, expected %"
                       G_GSIZE_FORMAT, i, len, want);
          goto out;
        }
      if (!prism_cuda_runtime_check (w.rt, w.cu->MemAlloc (&w.in[i], MAX (want, 16)), "cuMemAlloc", &error) ||
          !prism_cuda_runtime_check (w.rt, w.cu->MemcpyHtoD (w.in[i], data, want), "cuMemcpyHtoD", &error))
        goto out;
    }
  for (guint i = 0; i < w.n_out; i++)
    {
      gsize want = (gsize) json_object_get_int_member (json_array_get_object_element (outs, i), "bytes");
      if (!prism_cuda_runtime_check (w.rt, w.cu->MemAlloc (&w.out[i], MAX (want, 16)), "cuMemAlloc", &error))
        goto out;
    }
  if (!prism_cuda_runtime_check (w.rt, w.cu->MemAlloc (&w.ws, MAX ((gsize) json_object_get_int_member (man, "workspace_bytes"), 256)),
                                 "cuMemAlloc", &error))
    goto out;
  /* Once, before the first launch: the arrival counters of outputs summed
   * over blocks start at zero and every launch leaves them so. */
  if (!prism_cuda_runtime_check (w.rt, w.cu->MemsetD8Async (w.ws, 0,
                                                            MAX ((gsize) json_object_get_int_member (man, "workspace_bytes"), 256),
                                                            w.stream), "zeroing the workspace", &error))
    goto out;
  /* Twice the L2 size, at least 64 MiB. */
  w.flush_bytes = MAX ((gsize) info->l2_bytes * 2, (gsize) 64 << 20);
  if (!prism_cuda_runtime_check (w.rt, w.cu->MemAlloc (&w.flush, w.flush_bytes), "cuMemAlloc", &error))
    goto out;

  /* One run, checked against the interpreter before anything is timed. */
  if (!launch_all (&w, &error) ||
      !prism_cuda_runtime_check (w.rt, w.cu->StreamSynchronize (w.stream), "the first run", &error))
    goto out;
  json_builder_set_member_name (res, "errors");
  json_builder_begin_array (res);
  for (guint i = 0; i < w.n_out; i++)
    {
      JsonObject *oo = json_array_get_object_element (outs, i);
      PrismDtype d = dtype_of (oo);
      gsize bytes = (gsize) json_object_get_int_member (oo, "bytes");
      gsize n = bytes / prism_dtype_size (d);
      g_autofree guint8 *got = g_malloc (MAX (bytes, 1));
      g_autofree char *path = g_strdup_printf ("%s/ref%u.f32", dir, i);
      g_autofree char *ref = NULL;
      gsize len = 0;
      double diff = 0, scale = 1e-30;

      if (!prism_cuda_runtime_check (w.rt, w.cu->MemcpyDtoH (got, w.out[i], bytes), "cuMemcpyDtoH", &error) ||
          !g_file_get_contents (path, &ref, &len, &error))
        {
          json_builder_end_array (res);
          goto out;
        }
      for (gsize j = 0; j < n && j * 4 < len; j++)
        {
          float r, g = decode_one (got, j, d);
          memcpy (&r, ref + j * 4, 4);
          diff = isnan (g) != isnan (r) ? INFINITY : MAX (diff, fabs ((double) g - r));
          scale = MAX (scale, fabs ((double) r));
        }
      json_builder_add_double_value (res, isinf (diff) ? 1e300 : diff / scale);
      worst = MAX (worst, diff / scale);
    }
  json_builder_end_array (res);
  json_builder_set_member_name (res, "max_rel_error");
  json_builder_add_double_value (res, isinf (worst) || isnan (worst) ? 1e300 : worst);
  if (!(worst <= tol))
    {
      status = "mismatch";
      goto out;
    }

  /* Warm-up by time. */
  t0 = g_get_monotonic_time ();
  while ((g_get_monotonic_time () - t0) / 1000.0 < json_object_get_double_member_with_default (job, "warmup_ms", 25))
    if (!launch_all (&w, &error) ||
        !prism_cuda_runtime_check (w.rt, w.cu->StreamSynchronize (w.stream), "warm-up", &error))
      goto out;

  /* Samples: flush L2, one event pair around one run. */
  if (!prism_cuda_runtime_check (w.rt, w.cu->EventCreate (&start, 0), "cuEventCreate", &error) ||
      !prism_cuda_runtime_check (w.rt, w.cu->EventCreate (&stop, 0), "cuEventCreate", &error))
    goto out;
  {
    double total_ms = 0;
    guint min_samples = (guint) json_object_get_int_member_with_default (job, "min_samples", 30);
    guint max_samples = (guint) json_object_get_int_member_with_default (job, "max_samples", 2000);
    double min_ms = json_object_get_double_member_with_default (job, "min_time_ms", 100);
    double budget_s = json_object_get_double_member_with_default (job, "sample_budget_s", 30);

    t0 = g_get_monotonic_time ();
    while (samples->len < max_samples &&
           (samples->len < min_samples || total_ms < min_ms) &&
           (g_get_monotonic_time () - t0) / 1e6 < budget_s)
      {
        float ms = 0;
        double us;

        if (!prism_cuda_runtime_check (w.rt, w.cu->MemsetD8Async (w.flush, (unsigned char) samples->len,
                                                                  w.flush_bytes, w.stream), "L2 flush", &error) ||
            !prism_cuda_runtime_check (w.rt, w.cu->EventRecord (start, w.stream), "cuEventRecord", &error) ||
            !launch_all (&w, &error) ||
            !prism_cuda_runtime_check (w.rt, w.cu->EventRecord (stop, w.stream), "cuEventRecord", &error) ||
            !prism_cuda_runtime_check (w.rt, w.cu->EventSynchronize (stop), "cuEventSynchronize", &error) ||
            !prism_cuda_runtime_check (w.rt, w.cu->EventElapsedTime (&ms, start, stop), "cuEventElapsedTime", &error))
          goto out;
        us = ms * 1000.0;
        g_array_append_val (samples, us);
        total_ms += ms;
      }
  }
  if (samples->len == 0)
    {
      g_set_error (&error, PRISM_ERROR, PRISM_ERROR_FAILED, "no sample was taken");
      goto out;
    }
  {
    double *s = (double *) samples->data, mean = 0, var = 0;
    guint n = samples->len;

    g_array_sort (samples, compare_doubles);
    for (guint i = 0; i < n; i++)
      mean += s[i] / n;
    for (guint i = 0; i < n; i++)
      var += (s[i] - mean) * (s[i] - mean) / n;
    json_builder_set_member_name (res, "samples");
    json_builder_add_int_value (res, n);
    json_builder_set_member_name (res, "median_us");
    json_builder_add_double_value (res, quantile (s, n, 0.5));
    json_builder_set_member_name (res, "p20_us");
    json_builder_add_double_value (res, quantile (s, n, 0.2));
    json_builder_set_member_name (res, "p80_us");
    json_builder_add_double_value (res, quantile (s, n, 0.8));
    json_builder_set_member_name (res, "min_us");
    json_builder_add_double_value (res, s[0]);
    json_builder_set_member_name (res, "mean_us");
    json_builder_add_double_value (res, mean);
    json_builder_set_member_name (res, "cv");
    json_builder_add_double_value (res, mean > 0 ? sqrt (var) / mean : 0);
  }
  status = "ok";

out:
  json_builder_set_member_name (res, "status");
  json_builder_add_string_value (res, status);
  json_builder_set_member_name (res, "message");
  json_builder_add_string_value (res, error != NULL ? error->message : "");
  if (w.cu != NULL)
    {
      if (start != NULL)
        w.cu->EventDestroy (start);
      if (stop != NULL)
        w.cu->EventDestroy (stop);
      for (guint i = 0; w.in != NULL && i < w.n_in; i++)
        if (w.in[i])
          w.cu->MemFree (w.in[i]);
      for (guint i = 0; w.out != NULL && i < w.n_out; i++)
        if (w.out[i])
          w.cu->MemFree (w.out[i]);
      if (w.ws)
        w.cu->MemFree (w.ws);
      if (w.flush)
        w.cu->MemFree (w.flush);
      if (w.stream != NULL)
        w.cu->StreamDestroy (w.stream);
      if (w.module != NULL)
        w.cu->ModuleUnload (w.module);
    }
  g_free (w.in);
  g_free (w.out);
  g_ptr_array_unref (w.functions);
  prism_cuda_runtime_free (w.rt);
}

int
prism_gpu_bench_worker_main (int argc, char **argv)
{
  g_autoptr(JsonBuilder) res = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) error = NULL;

  if (argc != 2 || !g_file_test (argv[1], G_FILE_TEST_IS_DIR))
    {
      g_printerr ("usage: %s JOBDIR (run by prism bench; see docs/codegen.md)\n", argv[0]);
      return 2;
    }
  json_builder_begin_object (res);
  worker_run (argv[1], res);
  json_builder_end_object (res);
  root = json_builder_get_root (res);
  if (!write_json (argv[1], "result.json", root, &error))
    {
      g_printerr ("%s: %s\n", argv[0], error->message);
      return 1;
    }
  return 0;
}
