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
 *     (a kernel that reads twice its size) before each, until both a
 *     minimum time and a minimum number of samples are reached; a run is
 *     one CUDA graph (no vendor GEMM) whose launches overlap the one before
 *     on sm_90 (programmatic dependent launch);
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
#include <stdio.h>
#include <string.h>

#include "prism-cublaslt.h"
#include "prism-json-reader.h"
#include "prism-cuda-emitter.h"
#include "prism-cuda-runtime.h"
#include "prism-error.h"
#include "prism-gpu-bench.h"
#include "prism-gpu-bench-private.h"
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
  /* Long enough for the clocks to leave idle and the caches and TLBs to
   * settle; short against the samples' 100 ms. */
  options->warmup_ms = 200;
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
  g_free (result->cuda_call);
  g_free (result->cuda_error);
  prism_gpu_clocks_clear (&result->clocks);
  g_clear_pointer (&result->kernels, g_array_unref);
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

static const char * const fault_names[] = {
  "none", "no_gpu", "no_vendor", "build_error", "cuda_error", "mismatch", "timeout", "crash", "error",
};

const char *
prism_gpu_fault_to_string (PrismGpuFault fault)
{
  return (guint) fault < G_N_ELEMENTS (fault_names) ? fault_names[fault] : "error";
}

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

gboolean
prism_gpu_bench_count_devices (int *count, GError **error)
{
  g_autoptr(PrismCudaRuntime) rt = prism_cuda_runtime_new ();

  return prism_cuda_runtime_count_devices (rt, count, error);
}

char *
_prism_gpu_find_worker (const char *hint)
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

gboolean
_prism_gpu_write_bytes (const char *dir, const char *name, GBytes *bytes, GError **error)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  gsize len;
  const char *data = g_bytes_get_data (bytes, &len);

  return g_file_set_contents (path, data ? data : "", (gssize) len, error);
}

gboolean
_prism_gpu_write_json (const char *dir, const char *name, JsonNode *node, GError **error)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *text = prism_json_to_text (node, TRUE, NULL);

  return g_file_set_contents (path, text, -1, error);
}

void
_prism_gpu_remove_dir (const char *path)
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

#define STEP_PREFIX "prism-gpu-worker: step: "

/* The last step the worker announced in its log, or NULL. */
static char *
last_step (const char *log_path)
{
  g_autofree char *log = NULL;
  const char *at, *next;

  if (!g_file_get_contents (log_path, &log, NULL, NULL) || (at = g_strrstr (log, STEP_PREFIX)) == NULL)
    return NULL;
  at += strlen (STEP_PREFIX);
  next = strchr (at, '\n');
  return next != NULL ? g_strndup (at, (gsize) (next - at)) : g_strdup (at);
}

gboolean
_prism_gpu_spawn_worker (const char *worker, const char *dir, guint timeout_s, const char *what, char **end_note,
                         GError **error)
{
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDERR_MERGE);
  g_autoptr(GSubprocess) child = NULL;
  g_autofree char *log_path = g_build_filename (dir, "worker.log", NULL);

  *end_note = NULL;
  g_subprocess_launcher_set_stdout_file_path (launcher, log_path);
  child = g_subprocess_launcher_spawn (launcher, error, worker, dir, NULL);
  if (child == NULL)
    return FALSE;
  if (!wait_with_timeout (child, MAX (timeout_s, 1)))
    {
      g_autofree char *step = last_step (log_path);
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_LIMIT,
                   "%s did not finish within %u s and was stopped (a kernel that hangs?)%s%s", what, timeout_s,
                   step != NULL ? "; the worker was at: " : "", step != NULL ? step : "");
      return FALSE;
    }
  if (g_subprocess_get_if_signaled (child))
    *end_note = g_strdup_printf ("killed by signal %d (%s)", g_subprocess_get_term_sig (child),
                                 g_strsignal (g_subprocess_get_term_sig (child)));
  else if (g_subprocess_get_exit_status (child) != 0)
    *end_note = g_strdup_printf ("exit status %d", g_subprocess_get_exit_status (child));
  return TRUE;
}

/* The worker's files (job.json, the manifest, result.json) with the strict
 * reader: a regular file of bounded size (a FIFO or /dev/zero is refused at
 * once), nesting bounded (json-glib recurses), one document.  The limits of
 * a program, which a job carries. */
static gboolean
load_worker_file (JsonParser *parser, const char *path, GError **error)
{
  const PrismJsonLimits *limits = prism_json_limits_for (PRISM_JSON_GRAPH);
  g_autofree char *data = NULL;
  gsize len = 0;

  data = prism_json_read_file (path, limits->max_size, &len, error);
  if (data == NULL)
    return FALSE;
  if (!prism_json_check_text (data, len, limits, error))
    {
      g_prefix_error (error, "%s: ", path);
      return FALSE;
    }
  return json_parser_load_from_data (parser, data, (gssize) len, error);
}

JsonParser *
_prism_gpu_read_result (const char *dir, const char *end_note, GError **error)
{
  g_autofree char *path = g_build_filename (dir, "result.json", NULL);
  g_autofree char *log_path = g_build_filename (dir, "worker.log", NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autofree char *log = NULL;

  if (!load_worker_file (parser, path, NULL) || json_parser_get_root (parser) == NULL ||
      !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    {
      g_file_get_contents (log_path, &log, NULL, NULL);
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED,
                   "the GPU worker ended without a result (%s); its output:\n%s",
                   end_note != NULL ? end_note : "exit status 0", log != NULL && *log ? log : "(none)");
      return NULL;
    }
  return g_steal_pointer (&parser);
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

static int
json_int (JsonObject *o, const char *name, int fallback)
{
  JsonNode *n = json_object_get_member (o, name);

  return n != NULL && JSON_NODE_HOLDS_VALUE (n) ? (int) json_node_get_int (n) : fallback;
}

static void
kernel_clear (gpointer data)
{
  PrismGpuBenchKernel *k = data;

  g_free (k->name);
}

/* Fills @result from the worker's result.json; FALSE with @error naming the
 * fault when it is not "ok". */
static gboolean
bench_result_read (JsonObject *o, PrismGpuBenchResult *result, GError **error)
{
  const char *status = json_object_get_string_member_with_default (o, "status", "error");
  const char *message = json_object_get_string_member_with_default (o, "message", "");
  JsonObject *dev = json_object_has_member (o, "device") ? json_object_get_object_member (o, "device") : NULL;
  JsonObject *clocks = json_object_has_member (o, "clocks") ? json_object_get_object_member (o, "clocks") : NULL;
  JsonArray *kernels = json_object_has_member (o, "kernels") ? json_object_get_array_member (o, "kernels") : NULL;

  if (dev != NULL)
    {
      result->device_name = g_strdup (json_object_get_string_member_with_default (dev, "name", ""));
      result->compute_capability = json_int (dev, "compute_capability", 0);
      result->sm_count = json_int (dev, "sm_count", 0);
      result->driver_version = json_int (dev, "driver_version", 0);
    }
  result->arch = g_strdup (json_object_get_string_member_with_default (o, "arch", ""));
  result->max_rel_error = json_object_get_double_member_with_default (o, "max_rel_error", NAN);
  result->tolerance = json_object_get_double_member_with_default (o, "tolerance", result->tolerance);
  result->n_kernels = (guint) json_int (o, "launches", (int) result->n_kernels);
  if (clocks != NULL)
    {
      result->clocks.sm_mhz = (guint) MAX (json_int (clocks, "sm_mhz", 0), 0);
      result->clocks.sm_max_mhz = (guint) MAX (json_int (clocks, "sm_max_mhz", 0), 0);
      result->clocks.attribute_mhz = (guint) MAX (json_int (clocks, "attribute_mhz", 0), 0);
      if (json_object_get_string_member_with_default (clocks, "note", NULL) != NULL)
        result->clocks.note = g_strdup (json_object_get_string_member (clocks, "note"));
    }
  if (kernels != NULL)
    {
      result->kernels = g_array_new (FALSE, TRUE, sizeof (PrismGpuBenchKernel));
      g_array_set_clear_func (result->kernels, kernel_clear);
      for (guint i = 0; i < json_array_get_length (kernels); i++)
        {
          JsonObject *ko = json_array_get_object_element (kernels, i);
          PrismGpuBenchKernel k = {
            g_strdup (json_object_get_string_member_with_default (ko, "name", "")),
            json_int (ko, "registers", -1),
            json_int (ko, "local_bytes", -1),
          };
          g_array_append_val (result->kernels, k);
        }
    }

  result->fault = PRISM_GPU_FAULT_ERROR;
  for (guint i = 0; i < G_N_ELEMENTS (fault_names); i++)
    if (g_str_equal (status, fault_names[i]))
      result->fault = (PrismGpuFault) i;
  if (g_str_equal (status, "ok"))
    result->fault = PRISM_GPU_FAULT_NONE;
  switch (result->fault)
    {
    case PRISM_GPU_FAULT_NONE:
      break;
    case PRISM_GPU_FAULT_NO_GPU:
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_NO_GPU, "%s", message);
      return FALSE;
    case PRISM_GPU_FAULT_NO_VENDOR:
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_NO_VENDOR, "no vendor matmuls: %s", message);
      return FALSE;
    case PRISM_GPU_FAULT_MISMATCH:
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED,
                   "the GPU output differs from the interpreter: max relative error %.3g > %.3g",
                   result->max_rel_error, result->tolerance);
      return FALSE;
    case PRISM_GPU_FAULT_CUDA_ERROR:
      result->cuda_call = g_strdup (json_object_get_string_member_with_default (o, "cuda_call", ""));
      result->cuda_error = g_strdup (json_object_get_string_member_with_default (o, "cuda_error", ""));
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED, "CUDA error %s in %s on the GPU: %s",
                   result->cuda_error, result->cuda_call, message);
      return FALSE;
    case PRISM_GPU_FAULT_BUILD:
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED, "the kernels could not be built for the GPU: %s",
                   message);
      return FALSE;
    case PRISM_GPU_FAULT_TIMEOUT:
    case PRISM_GPU_FAULT_CRASH:
    case PRISM_GPU_FAULT_ERROR:
    default:
      result->fault = PRISM_GPU_FAULT_ERROR;
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED, "on the GPU: %s", message);
      return FALSE;
    }
  result->n_samples = (guint) json_int (o, "samples", 0);
  result->median_us = json_object_get_double_member_with_default (o, "median_us", NAN);
  result->p20_us = json_object_get_double_member_with_default (o, "p20_us", NAN);
  result->p80_us = json_object_get_double_member_with_default (o, "p80_us", NAN);
  result->min_us = json_object_get_double_member_with_default (o, "min_us", NAN);
  result->mean_us = json_object_get_double_member_with_default (o, "mean_us", NAN);
  result->cv = json_object_get_double_member_with_default (o, "cv", NAN);
  return TRUE;
}

gboolean
prism_gpu_bench_run_job (const char *dir, const PrismGpuBenchOptions *options_in, PrismGpuBenchResult *result,
                         GError **error)
{
  PrismGpuBenchOptions options;
  g_autofree char *worker = NULL;
  g_autofree char *end_note = NULL;
  g_autoptr(JsonParser) parser = NULL;
  g_autoptr(GError) local = NULL;

  g_return_val_if_fail (dir != NULL && result != NULL, FALSE);
  memset (result, 0, sizeof *result);
  if (options_in != NULL)
    options = *options_in;
  else
    prism_gpu_bench_options_init (&options);

  worker = _prism_gpu_find_worker (options.worker);
  if (worker == NULL)
    {
      result->fault = PRISM_GPU_FAULT_ERROR;
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED,
                   "cannot find %s (set $PRISM_GPU_WORKER to its path)", WORKER_NAME);
      return FALSE;
    }
  if (!_prism_gpu_spawn_worker (worker, dir, options.timeout_s, "the GPU measurement", &end_note, &local))
    {
      result->fault = g_error_matches (local, PRISM_ERROR, PRISM_ERROR_LIMIT) ? PRISM_GPU_FAULT_TIMEOUT
                                                                             : PRISM_GPU_FAULT_ERROR;
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  parser = _prism_gpu_read_result (dir, end_note, error);
  if (parser == NULL)
    {
      result->fault = PRISM_GPU_FAULT_CRASH;
      return FALSE;
    }
  return bench_result_read (json_node_get_object (json_parser_get_root (parser)), result, error);
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
  g_autoptr(GArray) in_ids = NULL;
  g_autoptr(GArray) out_ids = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *worker = NULL;
  PrismCudaOptions cuda = { 0, };
  PrismInterpOptions interp = { PRISM_PRECISION_F32, 0 };
  const PrismGpuInfo *info;
  const PrismGpuTarget *peaks;
  gboolean ok = FALSE;
  double tolerance;
  guint n_kernels;
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
    {
      result->fault = PRISM_GPU_FAULT_NO_GPU;
      return FALSE;
    }
  info = prism_cuda_runtime_get_info (rt);
  worker = _prism_gpu_find_worker (options.worker);
  if (worker == NULL)
    {
      result->fault = PRISM_GPU_FAULT_ERROR;
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED,
                   "cannot find %s (set $PRISM_GPU_WORKER to its path)", WORKER_NAME);
      return FALSE;
    }
  options.worker = worker;

  cuda.sm = (guint) MAX (info->compute_capability, 80);
  cuda.prefix = "prism_bench";
  cuda.vendor_matmul = options.vendor_matmul;
  cuda.target = prism_gpu_target_for_device (info->name, (guint) info->compute_capability);
  if (info->smem_per_block_optin > 0)
    cuda.smem_limit = (gsize) info->smem_per_block_optin;
  emitter = prism_cuda_emitter_new (graph, &cuda, error);
  if (emitter == NULL)
    {
      result->fault = PRISM_GPU_FAULT_BUILD;
      return FALSE;
    }

  tolerance = options.tolerance > 0 ? options.tolerance : default_tolerance (graph);
  n_kernels = prism_cuda_emitter_get_n_kernels (emitter);
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

  bytes = g_bytes_new_static (prism_cuda_emitter_get_source (emitter),
                              strlen (prism_cuda_emitter_get_source (emitter)));
  ok = _prism_gpu_write_bytes (dir, "kernels.cu", bytes, error);
  g_bytes_unref (bytes);
  if (!ok)
    goto out;
  ok = FALSE;
  manifest = prism_cuda_emitter_build_manifest (emitter, "kernels.cu", "kernels.h");
  if (!_prism_gpu_write_json (dir, "manifest.json", manifest, error))
    goto out;

  for (guint i = 0; i < inputs->len; i++)
    {
      g_autofree char *name = g_strdup_printf ("in%u.bin", i);
      PrismDtype d = prism_graph_tensor (graph, g_array_index (in_ids, guint, i))->dtype;
      g_autoptr(GBytes) b = encode (g_ptr_array_index (inputs, i), d);
      if (!_prism_gpu_write_bytes (dir, name, b, error))
        goto out;
    }
  out_ids = prism_graph_get_outputs (graph);
  for (guint i = 0; i < expected->len; i++)
    {
      g_autofree char *name = g_strdup_printf ("ref%u.f32", i);
      g_autoptr(GBytes) b = encode (g_ptr_array_index (expected, i), PRISM_DTYPE_F32);
      if (!_prism_gpu_write_bytes (dir, name, b, error))
        goto out;
    }

  json_builder_begin_object (job);
  json_builder_set_member_name (job, "type");
  json_builder_add_string_value (job, "bench");
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
  json_builder_add_double_value (job, tolerance);
  /* Sampling stops early enough to report before the parent's timeout. */
  json_builder_set_member_name (job, "sample_budget_s");
  json_builder_add_double_value (job, MAX (1.0, options.timeout_s / 3.0));
  json_builder_end_object (job);
  job_node = json_builder_get_root (job);
  if (!_prism_gpu_write_json (dir, "job.json", job_node, error))
    goto out;

  ok = prism_gpu_bench_run_job (dir, &options, result, error);
  /* Known here even when the worker stopped before saying them. */
  result->tolerance = tolerance;
  result->n_kernels = n_kernels;
  if (!ok)
    goto out;
  ok = FALSE;

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
    _prism_gpu_remove_dir (dir);
  return ok;
}

/* ------------------------------------------------------------------------ */
/* The child: prism-gpu-worker JOBDIR */

void
_prism_gpu_worker_step (const char *step)
{
  /* Unbuffered, so that the log holds it even when the worker is killed. */
  fprintf (stderr, STEP_PREFIX "%s\n", step);
}

gboolean
_prism_gpu_worker_check (PrismGpuWorker *w, PrismCUresult result, const char *what, GError **error)
{
  if (result != 0 && w->failed_call == NULL)
    {
      const char *name = NULL;

      if (w->cu != NULL)
        w->cu->GetErrorName (result, &name);
      w->failed_call = g_strdup (what);
      w->failed_error = name != NULL ? g_strdup (name) : g_strdup_printf ("CUDA error %d", result);
    }
  return prism_cuda_runtime_check (w->rt, result, what, error);
}

static void
add_int_or_null (JsonBuilder *b, const char *name, gint64 value)
{
  json_builder_set_member_name (b, name);
  if (value < 0)
    json_builder_add_null_value (b);
  else
    json_builder_add_int_value (b, value);
}

gboolean
_prism_gpu_worker_open (PrismGpuWorker *w, int device, const char *source, JsonBuilder *res, const char **status,
                        GError **error)
{
  g_autoptr(GBytes) cubin = NULL;
  g_autofree char *arch = NULL;
  const PrismGpuInfo *info;

  w->rt = prism_cuda_runtime_new ();
  w->kernels = g_array_new (FALSE, TRUE, sizeof (PrismGpuBenchKernel));
  g_array_set_clear_func (w->kernels, kernel_clear);
  _prism_gpu_worker_step ("loading the CUDA driver");
  if (!prism_cuda_runtime_load_driver (w->rt, device, error))
    {
      *status = "no_gpu";
      return FALSE;
    }
  w->cu = prism_cuda_runtime_get_driver (w->rt);
  w->info = info = prism_cuda_runtime_get_info (w->rt);
  json_builder_set_member_name (res, "device");
  json_builder_begin_object (res);
  json_builder_set_member_name (res, "name");
  json_builder_add_string_value (res, info->name);
  json_builder_set_member_name (res, "ordinal");
  json_builder_add_int_value (res, info->ordinal);
  json_builder_set_member_name (res, "pci_bus_id");
  json_builder_add_string_value (res, info->pci_bus_id);
  json_builder_set_member_name (res, "compute_capability");
  json_builder_add_int_value (res, info->compute_capability);
  json_builder_set_member_name (res, "sm_count");
  json_builder_add_int_value (res, info->sm_count);
  json_builder_set_member_name (res, "clock_khz");
  json_builder_add_int_value (res, info->clock_khz);
  json_builder_set_member_name (res, "memory_clock_khz");
  json_builder_add_int_value (res, info->memory_clock_khz);
  json_builder_set_member_name (res, "memory_bus_bits");
  json_builder_add_int_value (res, info->memory_bus_bits);
  json_builder_set_member_name (res, "l2_bytes");
  json_builder_add_int_value (res, info->l2_bytes);
  json_builder_set_member_name (res, "total_memory");
  json_builder_add_int_value (res, (gint64) info->total_memory);
  json_builder_set_member_name (res, "smem_per_block_optin");
  json_builder_add_int_value (res, info->smem_per_block_optin);
  json_builder_set_member_name (res, "smem_per_sm");
  json_builder_add_int_value (res, info->smem_per_sm);
  json_builder_set_member_name (res, "max_threads_per_block");
  json_builder_add_int_value (res, info->max_threads_per_block);
  json_builder_set_member_name (res, "max_threads_per_sm");
  json_builder_add_int_value (res, info->max_threads_per_sm);
  json_builder_set_member_name (res, "max_blocks_per_sm");
  json_builder_add_int_value (res, info->max_blocks_per_sm);
  json_builder_set_member_name (res, "registers_per_sm");
  json_builder_add_int_value (res, info->registers_per_sm);
  json_builder_set_member_name (res, "driver_version");
  json_builder_add_int_value (res, info->driver_version);
  json_builder_end_object (res);

  arch = g_strdup_printf ("sm_%d", info->compute_capability);
  json_builder_set_member_name (res, "arch");
  json_builder_add_string_value (res, arch);
  if (source != NULL)
    {
      _prism_gpu_worker_step ("compiling with NVRTC");
      cubin = prism_cuda_runtime_compile (w->rt, source, arch, NULL, error);
      if (cubin == NULL)
        {
          *status = error != NULL && g_error_matches (*error, PRISM_ERROR, PRISM_ERROR_NO_GPU) ? "no_gpu"
                                                                                             : "build_error";
          return FALSE;
        }
      _prism_gpu_worker_step ("loading the module");
      if (!_prism_gpu_worker_check (w, w->cu->ModuleLoadData (&w->module, g_bytes_get_data (cubin, NULL)),
                                    "cuModuleLoadData", error))
        return FALSE;
    }
  return _prism_gpu_worker_check (w, w->cu->StreamCreate (&w->stream, 0), "cuStreamCreate", error);
}

gboolean
_prism_gpu_worker_function (PrismGpuWorker *w, const char *name, gsize smem, PrismCUfunction *fn, GError **error)
{
  g_autofree char *what = g_strdup_printf ("cuModuleGetFunction (%s)", name);
  PrismGpuBenchKernel k = { g_strdup (name), -1, -1 };
  int v = 0;

  *fn = NULL;
  if (w->module == NULL)
    {
      g_free (k.name);
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED, "no module is loaded to look up %s in", name);
      return FALSE;
    }
  if (!_prism_gpu_worker_check (w, w->cu->ModuleGetFunction (fn, w->module, name), what, error))
    {
      g_free (k.name);
      return FALSE;
    }
  if (smem > SMEM_NO_OPT_IN)
    {
      g_autofree char *set = g_strdup_printf ("cuFuncSetAttribute (%s, %" G_GSIZE_FORMAT " bytes of shared memory)",
                                              name, smem);
      if (!_prism_gpu_worker_check (w, w->cu->FuncSetAttribute (*fn, PRISM_CU_FUNC_ATTR_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                                                (int) smem), set, error))
        {
          g_free (k.name);
          return FALSE;
        }
    }
  /* Registers and spills say why a kernel is slow; not knowing them is no
   * reason to fail. */
  if (w->cu->FuncGetAttribute (&v, PRISM_CU_FUNC_ATTR_NUM_REGS, *fn) == 0)
    k.registers = v;
  if (w->cu->FuncGetAttribute (&v, PRISM_CU_FUNC_ATTR_LOCAL_SIZE_BYTES, *fn) == 0)
    k.local_bytes = v;
  g_array_append_val (w->kernels, k);
  return TRUE;
}

void
_prism_gpu_worker_add_kernels (PrismGpuWorker *w, JsonBuilder *res)
{
  if (w->kernels == NULL)
    return;
  json_builder_set_member_name (res, "kernels");
  json_builder_begin_array (res);
  for (guint i = 0; i < w->kernels->len; i++)
    {
      const PrismGpuBenchKernel *k = &g_array_index (w->kernels, PrismGpuBenchKernel, i);

      json_builder_begin_object (res);
      json_builder_set_member_name (res, "name");
      json_builder_add_string_value (res, k->name);
      add_int_or_null (res, "registers", k->registers);
      add_int_or_null (res, "local_bytes", k->local_bytes);
      json_builder_end_object (res);
    }
  json_builder_end_array (res);
}

void
_prism_gpu_worker_add_clocks (PrismGpuWorker *w, JsonBuilder *res)
{
  PrismGpuClocks c;

  if (w->info == NULL)
    return;
  prism_nvml_read_clocks (w->info->pci_bus_id, w->info->ordinal, w->info->clock_khz, &c);
  json_builder_set_member_name (res, "clocks");
  json_builder_begin_object (res);
  add_int_or_null (res, "sm_mhz", c.sm_mhz > 0 ? (gint64) c.sm_mhz : -1);
  add_int_or_null (res, "sm_max_mhz", c.sm_max_mhz > 0 ? (gint64) c.sm_max_mhz : -1);
  add_int_or_null (res, "attribute_mhz", c.attribute_mhz > 0 ? (gint64) c.attribute_mhz : -1);
  json_builder_set_member_name (res, "note");
  if (c.note != NULL)
    json_builder_add_string_value (res, c.note);
  else
    json_builder_add_null_value (res);
  json_builder_end_object (res);
  prism_gpu_clocks_clear (&c);
}

void
_prism_gpu_worker_add_status (PrismGpuWorker *w, JsonBuilder *res, const char *status, const GError *error)
{
  if (g_str_equal (status, "error") && w->failed_call != NULL)
    status = "cuda_error";
  json_builder_set_member_name (res, "status");
  json_builder_add_string_value (res, status);
  json_builder_set_member_name (res, "message");
  json_builder_add_string_value (res, error != NULL ? error->message : "");
  if (w->failed_call != NULL)
    {
      json_builder_set_member_name (res, "cuda_call");
      json_builder_add_string_value (res, w->failed_call);
      json_builder_set_member_name (res, "cuda_error");
      json_builder_add_string_value (res, w->failed_error);
    }
}

void
_prism_gpu_worker_close (PrismGpuWorker *w)
{
  if (w->cu != NULL)
    {
      if (w->stream != NULL)
        w->cu->StreamDestroy (w->stream);
      if (w->module != NULL)
        w->cu->ModuleUnload (w->module);
    }
  g_clear_pointer (&w->kernels, g_array_unref);
  g_clear_pointer (&w->failed_call, g_free);
  g_clear_pointer (&w->failed_error, g_free);
  prism_cuda_runtime_free (w->rt);
  memset (w, 0, sizeof *w);
}

/* ---- The benchmark job ---- */

/* cuBLASLt's own workspace: what NVIDIA recommends for Hopper. */
#define VENDOR_WORKSPACE_BYTES ((gsize) 32 << 20)

/* One entry of the manifest, resolved once so that the timed loop only
 * enqueues. */
typedef struct
{
  const char *name;
  gboolean vendor;
  PrismCUfunction fn;
  PrismGemmShape gemm;
  guint grid[3], block[3];
  guint smem;
  guint n_args;
  int epoch_arg;                /* the argument that takes the run's epoch; -1: none */
  PrismCUdeviceptr values[PRISM_CUDA_MAX_ARGS];
} Launch;

/* The L2 flush between samples: a kernel that only reads a buffer of twice
 * the L2 size (a memset would leave up to the whole L2 dirty, and the
 * sample's first kernel would pay for writing it back).  Appended to the
 * program's source; the XOR of everything read is stored only when it
 * equals a value no buffer of ours holds, so the loads are not dropped. */
static const char l2_flush_source[] =
  "\n/* Appended by prism-gpu-worker: the read-only L2 flush between samples. */\n"
  "extern \"C\" __global__ void\nprism_l2_flush (const uint4 *buf, unsigned long long n, unsigned int *sink)\n{\n"
  "  unsigned int x = 0;\n"
  "  for (unsigned long long i = blockIdx.x * (unsigned long long) blockDim.x + threadIdx.x; i < n;\n"
  "       i += (unsigned long long) gridDim.x * blockDim.x)\n"
  "    {\n      uint4 v = __ldcg (buf + i);\n      x ^= v.x ^ v.y ^ v.z ^ v.w;\n    }\n"
  "  if (x == 0x9e3779b9u)\n    *sink = x;\n}\n";

#define L2_FLUSH_THREADS 256

typedef struct
{
  PrismGpuWorker g;
  PrismCublasLt *lt;
  GArray *launches;             /* Launch */
  PrismCUdeviceptr *in, *out;
  guint n_in, n_out;
  PrismCUdeviceptr ws, flush, lt_ws;
  gsize ws_bytes, flush_bytes;
  guint epoch;                  /* of the last run; every run takes the next */
  PrismCUfunction flush_fn;     /* prism_l2_flush */
  gboolean pdl;                 /* launches after the first overlap the one before (sm_90) */
  PrismCUgraph graph;           /* every launch of a run, captured once; NULL: launched one by one */
  PrismCUgraphExec graph_exec;
} Worker;

static gboolean
launch_all (Worker *w, GError **error)
{
  /* A new epoch for the arrival counters (prism-split.cuh); the argument is
   * an unsigned int, the low bytes of its slot on this little-endian ABI. */
  w->epoch++;
  for (guint k = 0; k < w->launches->len; k++)
    {
      Launch *l = &g_array_index (w->launches, Launch, k);
      /* NULL-terminated: the driver does not need it, test doubles do. */
      void *params[PRISM_CUDA_MAX_ARGS + 1] = { NULL, };
      PrismCUresult r;

      if (l->vendor)
        {
          if (!prism_cublaslt_gemm (w->lt, &l->gemm, l->values[0], l->values[1], l->values[2], w->lt_ws,
                                    VENDOR_WORKSPACE_BYTES, w->g.stream, error))
            {
              if (w->g.failed_call == NULL)
                {
                  const char *status = prism_cublaslt_get_last_status_name (w->lt);
                  w->g.failed_call = g_strdup_printf ("cublasLtMatmul (%s)", l->name);
                  w->g.failed_error = g_strdup (status != NULL ? status : "CUBLAS_STATUS_INVALID_VALUE");
                }
              return FALSE;
            }
          continue;
        }
      if (l->epoch_arg >= 0)
        l->values[l->epoch_arg] = w->epoch;
      for (guint a = 0; a < l->n_args; a++)
        params[a] = &l->values[a];
      if (w->pdl && k > 0)
        {
          /* The generated kernels wait for the grid before them
           * (griddepcontrol.wait), so the launch may overlap its tail. */
          PrismCUlaunchAttribute attr = { PRISM_CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION, { 0 }, { { 0 } } };
          PrismCUlaunchConfig config = { l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1], l->block[2],
                                         l->smem, w->g.stream, &attr, 1 };

          attr.value.programmatic_stream_serialization_allowed = 1;
          r = w->g.cu->LaunchKernelEx (&config, l->fn, params, NULL);
        }
      else
        r = w->g.cu->LaunchKernel (l->fn, l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1], l->block[2],
                                   l->smem, w->g.stream, params, NULL);
      if (r != 0)
        {
          g_autofree char *what = g_strdup_printf ("cuLaunchKernel (%s)", l->name);
          return _prism_gpu_worker_check (&w->g, r, what, error);
        }
    }
  return TRUE;
}

static gboolean
sync_stream (Worker *w, const char *what, GError **error)
{
  return _prism_gpu_worker_check (&w->g, w->g.cu->StreamSynchronize (w->g.stream), what, error);
}

/* One run of the program: the captured graph when there is one. */
static gboolean
run_once (Worker *w, GError **error)
{
  if (w->graph_exec != NULL)
    return _prism_gpu_worker_check (&w->g, w->g.cu->GraphLaunch (w->graph_exec, w->g.stream), "cuGraphLaunch",
                                    error);
  return launch_all (w, error);
}

/* Captures one run into a CUDA graph when the driver can and the program
 * has no vendor GEMM (cuBLASLt stays outside the graph).  A capture that
 * fails leaves the launches one by one; only a failing instantiation of a
 * graph that was captured is an error.  The graph replays the epoch it
 * was captured with, which the counters allow (prism-split.cuh). */
static gboolean
capture_graph (Worker *w, guint n_vendor, GError **error)
{
  const PrismCudaDriver *cu = w->g.cu;
  g_autoptr(GError) local = NULL;
  PrismCUresult r;

  if (n_vendor > 0 || cu->StreamBeginCapture == NULL || cu->StreamEndCapture == NULL ||
      cu->GraphInstantiate == NULL || cu->GraphLaunch == NULL || cu->GraphExecDestroy == NULL ||
      cu->GraphDestroy == NULL)
    return TRUE;
  if (cu->StreamBeginCapture (w->g.stream, PRISM_CU_STREAM_CAPTURE_MODE_THREAD_LOCAL) != 0)
    return TRUE;
  if (!launch_all (w, &local))
    {
      PrismCUgraph broken = NULL;
      if (cu->StreamEndCapture (w->g.stream, &broken) == 0 && broken != NULL)
        cu->GraphDestroy (broken);
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  r = cu->StreamEndCapture (w->g.stream, &w->graph);
  if (r != 0 || w->graph == NULL)
    {
      w->graph = NULL;
      return TRUE;
    }
  return _prism_gpu_worker_check (&w->g, cu->GraphInstantiate (&w->graph_exec, w->graph, 0),
                                  "cuGraphInstantiateWithFlags", error);
}

/* Evicts the L2 by reading the flush buffer (l2_flush_source). */
static gboolean
flush_l2 (Worker *w, GError **error)
{
  PrismCUdeviceptr n = w->flush_bytes / 16, sink = w->flush;
  void *params[] = { &w->flush, &n, &sink, NULL };
  guint blocks = (guint) MAX (w->g.info->sm_count, 1) * 4;

  return _prism_gpu_worker_check (&w->g, w->g.cu->LaunchKernel (w->flush_fn, blocks, 1, 1, L2_FLUSH_THREADS, 1, 1, 0,
                                                                w->g.stream, params, NULL),
                                  "cuLaunchKernel (prism_l2_flush)", error);
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

static gint64
member_int (JsonObject *o, const char *name, gint64 fallback)
{
  JsonNode *n = o != NULL ? json_object_get_member (o, name) : NULL;

  return n != NULL && JSON_NODE_HOLDS_VALUE (n) ? json_node_get_int (n) : fallback;
}

/* The device pointer of argument @ao of kernel @name. */
static gboolean
arg_pointer (Worker *w, const char *name, guint a, JsonObject *ao, PrismCUdeviceptr *value, GError **error)
{
  const char *kind = ao != NULL ? json_object_get_string_member_with_default (ao, "kind", "") : "";
  gint64 index = member_int (ao, "index", -1), offset = member_int (ao, "offset", -1);

  if (g_str_equal (kind, "input") && index >= 0 && index < w->n_in)
    *value = w->in[index];
  else if (g_str_equal (kind, "output") && index >= 0 && index < w->n_out)
    *value = w->out[index];
  else if (g_str_equal (kind, "workspace") && offset >= 0 && (gsize) offset < MAX (w->ws_bytes, 1))
    *value = w->ws + (PrismCUdeviceptr) offset;
  else if (g_str_equal (kind, "epoch"))
    *value = 0;   /* launch_all() sets it */
  else
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED,
                   "argument %u of %s in the manifest is not an input, output or workspace offset that exists "
                   "(kind “%s”, index %" G_GINT64_FORMAT ", offset %" G_GINT64_FORMAT ")", a, name, kind, index,
                   offset);
      return FALSE;
    }
  return TRUE;
}

/* A vendor_gemm entry's "gemm" object (docs/codegen.md). */
static gboolean
parse_gemm (JsonObject *ko, const char *name, PrismGemmShape *shape, GError **error)
{
  JsonObject *g = json_object_has_member (ko, "gemm") ? json_object_get_object_member (ko, "gemm") : NULL;
  JsonArray *args = json_object_get_array_member (ko, "args");
  const char *dtype = g != NULL ? json_object_get_string_member_with_default (g, "dtype", "") : "";

  memset (shape, 0, sizeof *shape);
  if (g != NULL)
    {
      shape->batch = (guint) CLAMP (member_int (g, "batch", 1), 0, G_MAXINT32);
      shape->m = member_int (g, "m", 0);
      shape->n = member_int (g, "n", 0);
      shape->k = member_int (g, "k", 0);
      shape->stride_a = member_int (g, "stride_a", 0);
      shape->stride_b = member_int (g, "stride_b", 0);
      shape->stride_c = member_int (g, "stride_c", 0);
    }
  if (g == NULL || args == NULL || json_array_get_length (args) != 3 ||
      !prism_dtype_from_string (dtype, &shape->dtype) || shape->batch < 1 || shape->m < 1 || shape->n < 1 ||
      shape->k < 1)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED,
                   "the vendor GEMM %s of the manifest needs a \"gemm\" object (batch, m, n, k ≥ 1, dtype "
                   "f16, bf16 or f32, strides) and three arguments (A, B, C)", name);
      return FALSE;
    }
  return TRUE;
}

/* Resolves every manifest entry: functions of the module, vendor GEMMs. */
static gboolean
resolve_launches (Worker *w, JsonArray *kernels, GError **error)
{
  for (guint k = 0; k < json_array_get_length (kernels); k++)
    {
      JsonObject *ko = json_array_get_object_element (kernels, k);
      JsonArray *grid = json_object_get_array_member (ko, "grid");
      JsonArray *block = json_object_get_array_member (ko, "block");
      JsonArray *args = json_object_get_array_member (ko, "args");
      Launch l = { 0, };

      l.name = json_object_get_string_member_with_default (ko, "name", "?");
      l.vendor = g_strcmp0 (json_object_get_string_member_with_default (ko, "role", ""), "vendor_gemm") == 0;
      l.smem = (guint) member_int (ko, "shared_memory_bytes", 0);
      l.n_args = args != NULL ? MIN (json_array_get_length (args), PRISM_CUDA_MAX_ARGS) : 0;
      l.epoch_arg = -1;
      for (guint d = 0; d < 3; d++)
        {
          l.grid[d] = grid != NULL && d < json_array_get_length (grid) ? (guint) json_array_get_int_element (grid, d) : 1;
          l.block[d] = block != NULL && d < json_array_get_length (block) ? (guint) json_array_get_int_element (block, d) : 1;
        }
      for (guint a = 0; a < l.n_args; a++)
        {
          JsonObject *ao = json_array_get_object_element (args, a);
          if (!arg_pointer (w, l.name, a, ao, &l.values[a], error))
            return FALSE;
          if (g_strcmp0 (json_object_get_string_member_with_default (ao, "kind", ""), "epoch") == 0)
            l.epoch_arg = (int) a;
        }
      if (l.vendor)
        {
          PrismGpuBenchKernel stat = { g_strdup (l.name), -1, -1 };

          if (!parse_gemm (ko, l.name, &l.gemm, error))
            {
              g_free (stat.name);
              return FALSE;
            }
          g_array_append_val (w->g.kernels, stat);
        }
      else if (!_prism_gpu_worker_function (&w->g, l.name, l.smem, &l.fn, error))
        return FALSE;
      g_array_append_val (w->launches, l);
    }
  return TRUE;
}

static gboolean
alloc (Worker *w, PrismCUdeviceptr *ptr, gsize bytes, const char *what, GError **error)
{
  g_autofree char *call = g_strdup_printf ("cuMemAlloc (%s, %" G_GSIZE_FORMAT " bytes)", what, bytes);

  return _prism_gpu_worker_check (&w->g, w->g.cu->MemAlloc (ptr, bytes), call, error);
}

/* Runs a benchmark job; fills @res (status, measurements). */
static void
bench_job (const char *dir, JsonObject *job, JsonBuilder *res)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonParser) mp = json_parser_new ();
  g_autofree char *man_path = g_build_filename (dir, "manifest.json", NULL);
  g_autofree char *src_path = g_build_filename (dir, "kernels.cu", NULL);
  g_autofree char *source = NULL;
  g_autoptr(GArray) samples = g_array_new (FALSE, FALSE, sizeof (double));
  const char *status = "error";
  JsonObject *man = NULL;
  JsonArray *ins, *outs, *kernels = NULL;
  PrismCUevent start = NULL, stop = NULL;
  Worker w = { 0, };
  double tol = json_object_get_double_member_with_default (job, "tolerance", 2e-2), worst = 0;
  guint n_vendor = 0;
  gint64 t0;

  w.launches = g_array_new (FALSE, TRUE, sizeof (Launch));
  if (!load_worker_file (mp, man_path, &error) || !g_file_get_contents (src_path, &source, NULL, &error))
    goto out;
  if (!JSON_NODE_HOLDS_OBJECT (json_parser_get_root (mp)))
    {
      g_set_error (&error, PRISM_ERROR, PRISM_ERROR_FAILED, "%s is not a JSON object", man_path);
      goto out;
    }
  man = json_node_get_object (json_parser_get_root (mp));
  kernels = json_object_get_array_member (man, "kernels");
  ins = json_object_get_array_member (man, "inputs");
  outs = json_object_get_array_member (man, "outputs");
  if (kernels == NULL || ins == NULL || outs == NULL)
    {
      g_set_error (&error, PRISM_ERROR, PRISM_ERROR_FAILED, "%s has no kernels, inputs or outputs", man_path);
      goto out;
    }
  for (guint k = 0; k < json_array_get_length (kernels); k++)
    n_vendor += g_strcmp0 (json_object_get_string_member_with_default (json_array_get_object_element (kernels, k),
                                                                        "role", ""), "vendor_gemm") == 0;

  /* The program and the L2 flush kernel, compiled together (a program of
   * vendor GEMMs only compiles the flush kernel alone). */
  {
    g_autofree char *full = g_strconcat (n_vendor < json_array_get_length (kernels) ? source : "",
                                         l2_flush_source, NULL);
    if (!_prism_gpu_worker_open (&w.g, (int) member_int (job, "device", 0), full, res, &status, &error))
      goto out;
  }
  if (!_prism_gpu_worker_check (&w.g, w.g.cu->ModuleGetFunction (&w.flush_fn, w.g.module, "prism_l2_flush"),
                                "cuModuleGetFunction (prism_l2_flush)", &error))
    goto out;
  w.pdl = w.g.info->compute_capability >= 90 && w.g.cu->LaunchKernelEx != NULL;
  status = "error";
  if (n_vendor > 0)
    {
      _prism_gpu_worker_step ("loading cuBLASLt");
      w.lt = prism_cublaslt_new ();
      if (!prism_cublaslt_load (w.lt, &error))
        {
          status = "no_vendor";
          goto out;
        }
      json_builder_set_member_name (res, "cublaslt");
      json_builder_add_string_value (res, prism_cublaslt_get_path (w.lt));
    }

  /* Buffers: inputs from the job, outputs, workspace, the L2 flush buffer. */
  w.n_in = json_array_get_length (ins);
  w.n_out = json_array_get_length (outs);
  w.in = g_new0 (PrismCUdeviceptr, w.n_in + 1);
  w.out = g_new0 (PrismCUdeviceptr, w.n_out + 1);
  _prism_gpu_worker_step ("allocating and copying the inputs");
  for (guint i = 0; i < w.n_in; i++)
    {
      gsize want = (gsize) member_int (json_array_get_object_element (ins, i), "bytes", 0);
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
      if (!alloc (&w, &w.in[i], MAX (want, 16), "an input", &error) ||
          !_prism_gpu_worker_check (&w.g, w.g.cu->MemcpyHtoD (w.in[i], data, want), "cuMemcpyHtoD", &error))
        goto out;
    }
  for (guint i = 0; i < w.n_out; i++)
    {
      gsize want = (gsize) member_int (json_array_get_object_element (outs, i), "bytes", 0);
      if (!alloc (&w, &w.out[i], MAX (want, 16), "an output", &error))
        goto out;
    }
  /* The workspace is zeroed once, here, not before every sample: generated
   * code keeps arrival counters in it, which must start at zero and which
   * every run tags with its own epoch. */
  w.ws_bytes = MAX ((gsize) member_int (man, "workspace_bytes", 0), 256);
  if (!alloc (&w, &w.ws, w.ws_bytes, "the workspace", &error) ||
      !_prism_gpu_worker_check (&w.g, w.g.cu->MemsetD8Async (w.ws, 0, w.ws_bytes, w.g.stream),
                                "cuMemsetD8Async (zeroing the workspace)", &error) ||
      !sync_stream (&w, "cuStreamSynchronize (zeroing the workspace)", &error))
    goto out;
  if (n_vendor > 0 && !alloc (&w, &w.lt_ws, VENDOR_WORKSPACE_BYTES, "cuBLASLt's workspace", &error))
    goto out;
  /* Twice the L2 size, at least 64 MiB. */
  w.flush_bytes = MAX ((gsize) w.g.info->l2_bytes * 2, (gsize) 64 << 20);
  if (!alloc (&w, &w.flush, w.flush_bytes, "the L2 flush buffer", &error))
    goto out;
  /* The flush buffer is written once (cuMemAlloc leaves it undefined), so
   * that every flush afterwards only reads. */
  if (!_prism_gpu_worker_check (&w.g, w.g.cu->MemsetD8Async (w.flush, 0, w.flush_bytes, w.g.stream),
                                "cuMemsetD8Async (the L2 flush buffer)", &error))
    goto out;
  if (!resolve_launches (&w, kernels, &error))
    goto out;
  json_builder_set_member_name (res, "programmatic_dependent_launch");
  json_builder_add_boolean_value (res, w.pdl);

  /* One run, checked against the interpreter before anything is timed, with
   * the launches one by one (a fault names its kernel) but overlapping as
   * in the graph (the same launch attributes). */
  _prism_gpu_worker_step ("the first run");
  if (!launch_all (&w, &error) || !sync_stream (&w, "cuStreamSynchronize (the first run)", &error))
    goto out;
  json_builder_set_member_name (res, "errors");
  json_builder_begin_array (res);
  for (guint i = 0; i < w.n_out; i++)
    {
      JsonObject *oo = json_array_get_object_element (outs, i);
      PrismDtype d = dtype_of (oo);
      gsize bytes = (gsize) member_int (oo, "bytes", 0);
      gsize n = bytes / prism_dtype_size (d);
      g_autofree guint8 *got = g_malloc (MAX (bytes, 1));
      g_autofree char *path = g_strdup_printf ("%s/ref%u.f32", dir, i);
      g_autofree char *ref = NULL;
      gsize len = 0;
      double diff = 0, scale = 1e-30;

      if (!_prism_gpu_worker_check (&w.g, w.g.cu->MemcpyDtoH (got, w.out[i], bytes), "cuMemcpyDtoH", &error) ||
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

  /* The timed runs: one CUDA graph each, when the driver can capture. */
  _prism_gpu_worker_step ("capturing the CUDA graph");
  if (!capture_graph (&w, n_vendor, &error))
    goto out;
  json_builder_set_member_name (res, "launch_mode");
  json_builder_add_string_value (res, w.graph_exec != NULL ? "graph" : "stream");

  /* Warm-up by time. */
  _prism_gpu_worker_step ("warm-up");
  t0 = g_get_monotonic_time ();
  while ((g_get_monotonic_time () - t0) / 1000.0 < json_object_get_double_member_with_default (job, "warmup_ms", 200))
    if (!run_once (&w, &error) || !sync_stream (&w, "cuStreamSynchronize (warm-up)", &error))
      goto out;

  /* Samples: flush L2, one event pair around one run. */
  _prism_gpu_worker_step ("samples");
  if (!_prism_gpu_worker_check (&w.g, w.g.cu->EventCreate (&start, 0), "cuEventCreate", &error) ||
      !_prism_gpu_worker_check (&w.g, w.g.cu->EventCreate (&stop, 0), "cuEventCreate", &error))
    goto out;
  {
    double total_ms = 0;
    guint min_samples = (guint) member_int (job, "min_samples", 30);
    guint max_samples = (guint) member_int (job, "max_samples", 2000);
    double min_ms = json_object_get_double_member_with_default (job, "min_time_ms", 100);
    double budget_s = json_object_get_double_member_with_default (job, "sample_budget_s", 30);

    t0 = g_get_monotonic_time ();
    while (samples->len < max_samples &&
           (samples->len < min_samples || total_ms < min_ms) &&
           (g_get_monotonic_time () - t0) / 1e6 < budget_s)
      {
        float ms = 0;
        double us;

        if (!flush_l2 (&w, &error) ||
            !_prism_gpu_worker_check (&w.g, w.g.cu->EventRecord (start, w.g.stream), "cuEventRecord", &error) ||
            !run_once (&w, &error) ||
            !_prism_gpu_worker_check (&w.g, w.g.cu->EventRecord (stop, w.g.stream), "cuEventRecord", &error) ||
            !_prism_gpu_worker_check (&w.g, w.g.cu->EventSynchronize (stop), "cuEventSynchronize", &error) ||
            !_prism_gpu_worker_check (&w.g, w.g.cu->EventElapsedTime (&ms, start, stop), "cuEventElapsedTime",
                                      &error))
          goto out;
        us = ms * 1000.0;
        g_array_append_val (samples, us);
        total_ms += ms;
      }
  }
  /* The clock the samples ran at: a throttled GPU runs everything slower. */
  _prism_gpu_worker_add_clocks (&w.g, res);
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
  json_builder_set_member_name (res, "tolerance");
  json_builder_add_double_value (res, tol);
  if (kernels != NULL)
    {
      json_builder_set_member_name (res, "launches");
      json_builder_add_int_value (res, json_array_get_length (kernels));
    }
  _prism_gpu_worker_add_kernels (&w.g, res);
  _prism_gpu_worker_add_status (&w.g, res, status, error);
  if (w.g.cu != NULL)
    {
      if (start != NULL)
        w.g.cu->EventDestroy (start);
      if (stop != NULL)
        w.g.cu->EventDestroy (stop);
      for (guint i = 0; w.in != NULL && i < w.n_in; i++)
        if (w.in[i])
          w.g.cu->MemFree (w.in[i]);
      for (guint i = 0; w.out != NULL && i < w.n_out; i++)
        if (w.out[i])
          w.g.cu->MemFree (w.out[i]);
      if (w.ws)
        w.g.cu->MemFree (w.ws);
      if (w.lt_ws)
        w.g.cu->MemFree (w.lt_ws);
      if (w.flush)
        w.g.cu->MemFree (w.flush);
      if (w.graph_exec != NULL)
        w.g.cu->GraphExecDestroy (w.graph_exec);
      if (w.graph != NULL)
        w.g.cu->GraphDestroy (w.graph);
    }
  /* cuBLASLt before the context it lives in. */
  prism_cublaslt_free (w.lt);
  g_free (w.in);
  g_free (w.out);
  g_array_unref (w.launches);
  _prism_gpu_worker_close (&w.g);
}

/* "bench" when absent, NULL when it is not a string. */
static const char *
job_type (JsonObject *job)
{
  JsonNode *n = json_object_get_member (job, "type");

  if (n == NULL)
    return "bench";
  if (!JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (n);
}

int
prism_gpu_bench_worker_main (int argc, char **argv)
{
  g_autoptr(JsonBuilder) res = json_builder_new ();
  g_autoptr(JsonParser) jp = json_parser_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *job_path = NULL;
  JsonObject *job = NULL;
  const char *type;

  if (argc != 2 || !g_file_test (argv[1], G_FILE_TEST_IS_DIR))
    {
      g_printerr ("usage: %s JOBDIR (run by prism bench and prism calibrate; see docs/codegen.md)\n", argv[0]);
      return 2;
    }
  job_path = g_build_filename (argv[1], "job.json", NULL);
  json_builder_begin_object (res);
  if (load_worker_file (jp, job_path, &error) && JSON_NODE_HOLDS_OBJECT (json_parser_get_root (jp)))
    job = json_node_get_object (json_parser_get_root (jp));
  else if (error == NULL)
    g_set_error (&error, PRISM_ERROR, PRISM_ERROR_PARSE, "%s is not a JSON object", job_path);
  type = job != NULL ? job_type (job) : NULL;
  if (job != NULL && type == NULL)
    {
      job = NULL;
      g_set_error (&error, PRISM_ERROR, PRISM_ERROR_PARSE, "%s: “type” is not a string", job_path);
    }
  if (job != NULL && g_str_equal (type, "bench"))
    bench_job (argv[1], job, res);
  else if (job != NULL && g_str_equal (type, "calibrate"))
    _prism_calibrate_worker_run (argv[1], job, res);
  else
    {
      PrismGpuWorker none = { 0, };

      if (error == NULL)
        g_set_error (&error, PRISM_ERROR, PRISM_ERROR_PARSE, "%s: unknown job type “%s” (bench or calibrate)",
                     job_path, type);
      _prism_gpu_worker_add_status (&none, res, "error", error);
    }
  json_builder_end_object (res);
  root = json_builder_get_root (res);
  g_clear_error (&error);
  if (!_prism_gpu_write_json (argv[1], "result.json", root, &error))
    {
      g_printerr ("%s: %s\n", argv[0], error->message);
      return 1;
    }
  return 0;
}
