/* prism-calibrate.c — measuring the constants of the cost model on a GPU
 *
 * The cost model predicts from a few numbers per GPU: the launch gap, the
 * DRAM latency, the L2 bandwidth, the DRAM bandwidth reached with a given
 * number of bytes in flight per SM, and how close cuBLASLt gets to the
 * roofline.  `prism calibrate` measures them with the microbenchmarks of
 * prism-calibrate.cu, compiled by NVRTC and run in prism-gpu-worker (a
 * process of its own, so a hung kernel is killed at the timeout like a
 * benchmark's), and writes a prism-gpu file.  What the driver reports (SM
 * count, limits, L2 size) is copied; the peak rates are not measurable this
 * way and come from a datasheet file.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <gio/gio.h>
#include <math.h>
#include <string.h>

#include "prism-calibrate.h"
#include "prism-cublaslt.h"
#include "prism-cuda-runtime.h"
#include "prism-error.h"
#include "prism-gpu-bench-private.h"
#include "prism-json-reader.h"
#include "prism-tune-resources.h"

#define SOURCE_RESOURCE "/org/prism/tune/prism-calibrate.cu"
#define DEFAULT_GEMMS "8x4096x4096,256x4096x4096,4096x4096x4096"
/* cuBLASLt's workspace, as the benchmark gives it. */
#define VENDOR_WORKSPACE_BYTES ((gsize) 32 << 20)

void
prism_calibrate_options_init (PrismCalibrateOptions *options)
{
  memset (options, 0, sizeof *options);
  options->timeout_s = 300;
}

char *
prism_calibrate_name_for (const char *device_name)
{
  g_autofree char *lower = g_ascii_strdown (device_name != NULL ? device_name : "", -1);
  const char *p = g_str_has_prefix (lower, "nvidia ") ? lower + strlen ("nvidia ") : lower;
  GString *name = g_string_new (NULL);

  for (; *p; p++)
    if (g_ascii_isalnum (*p))
      g_string_append_c (name, *p);
    else if (name->len > 0 && name->str[name->len - 1] != '-')
      g_string_append_c (name, '-');
  while (name->len > 0 && name->str[name->len - 1] == '-')
    g_string_truncate (name, name->len - 1);
  if (name->len == 0)
    g_string_append (name, "gpu");
  return g_string_free (name, FALSE);
}

/* ------------------------------------------------------------------------ */
/* The child: the microbenchmarks */

/* The kernels of prism-calibrate.cu. */
enum { K_EMPTY, K_FILL, K_READ1, K_READ2, K_READ4, K_READ8, K_CHASE_INIT, K_CHASE, N_KERNELS };

static const char * const kernel_names[N_KERNELS] = {
  "prism_cal_empty", "prism_cal_fill", "prism_cal_read_u1", "prism_cal_read_u2", "prism_cal_read_u4",
  "prism_cal_read_u8", "prism_cal_chase_init", "prism_cal_chase",
};

typedef struct
{
  PrismGpuWorker g;
  PrismCUfunction fns[N_KERNELS];
  PrismCUevent start, stop;
  PrismCUdeviceptr buf, sink;
  gsize buf_bytes;
  int sms;
  guint smem_one_per_sm;     /* dynamic shared memory that leaves room for one block per SM */
} Cal;

/* @args: pointers to 8-byte values (device pointers, long long), NULL-terminated. */
static gboolean
launch (Cal *c, int k, guint grid, guint block, guint smem, void **args, GError **error)
{
  PrismCUresult r = c->g.cu->LaunchKernel (c->fns[k], grid, 1, 1, block, 1, 1, smem, c->g.stream, args, NULL);

  if (r != 0)
    {
      g_autofree char *what = g_strdup_printf ("cuLaunchKernel (%s)", kernel_names[k]);
      return _prism_gpu_worker_check (&c->g, r, what, error);
    }
  return TRUE;
}

static gboolean
sync_all (Cal *c, const char *what, GError **error)
{
  g_autofree char *call = g_strdup_printf ("cuStreamSynchronize (%s)", what);

  return _prism_gpu_worker_check (&c->g, c->g.cu->StreamSynchronize (c->g.stream), call, error);
}

static gboolean
record (Cal *c, PrismCUevent e, GError **error)
{
  return _prism_gpu_worker_check (&c->g, c->g.cu->EventRecord (e, c->g.stream), "cuEventRecord", error);
}

/* Milliseconds between the start and stop events, once stop is reached. */
static gboolean
elapsed (Cal *c, double *ms, GError **error)
{
  float f = 0;

  if (!_prism_gpu_worker_check (&c->g, c->g.cu->EventSynchronize (c->stop), "cuEventSynchronize", error) ||
      !_prism_gpu_worker_check (&c->g, c->g.cu->EventElapsedTime (&f, c->start, c->stop), "cuEventElapsedTime",
                                error))
    return FALSE;
  *ms = f;
  return TRUE;
}

static gboolean
fill (Cal *c, PrismCUdeviceptr p, gsize bytes, gint64 seed, GError **error)
{
  gint64 n = (gint64) (bytes / 16);
  void *args[] = { &p, &n, &seed, NULL };

  return launch (c, K_FILL, (guint) c->sms * 4, 256, 0, args, error);
}

static int
compare_doubles (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

static double
median (double *v, guint n)
{
  qsort (v, n, sizeof *v, compare_doubles);
  return n == 0 ? NAN : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* (t_last − t_first) / (N − 1) over back-to-back launches of an empty
 * kernel on one stream, the median of @repeats tries. */
static gboolean
measure_launch_gap (Cal *c, guint n, guint repeats, double *gap_us, GError **error)
{
  g_autofree double *v = g_new0 (double, repeats);
  void *none[] = { NULL };

  if (!launch (c, K_EMPTY, 1, 32, 0, none, error) || !sync_all (c, "the empty kernel", error))
    return FALSE;
  for (guint r = 0; r < repeats; r++)
    {
      double ms;

      if (!launch (c, K_EMPTY, 1, 32, 0, none, error) || !record (c, c->start, error))
        return FALSE;
      for (guint i = 1; i < n; i++)
        if (!launch (c, K_EMPTY, 1, 32, 0, none, error))
          return FALSE;
      if (!record (c, c->stop, error) || !elapsed (c, &ms, error))
        return FALSE;
      v[r] = ms * 1000.0 / (n - 1);
    }
  *gap_us = median (v, repeats);
  return TRUE;
}

/* Reads @n_vec vectors of the buffer @passes times with @threads threads per
 * SM (one block per SM, forced by its shared memory) issuing @u loads each
 * before waiting; the best of @repeats.  @n_vec is rounded down to whole
 * rounds; @bytes gets what one launch reads. */
static gboolean
measure_read (Cal *c, guint threads, guint u, gint64 n_vec, gint64 passes, guint repeats, double *best_ms,
              double *bytes, GError **error)
{
  int k = u == 1 ? K_READ1 : u == 2 ? K_READ2 : u == 4 ? K_READ4 : K_READ8;
  gint64 round = (gint64) u * threads * c->sms;
  gint64 n = n_vec / round * round;
  guint smem = MAX (threads * u * 16, c->smem_one_per_sm);
  void *args[] = { &c->buf, &n, &passes, &c->sink, NULL };

  *best_ms = INFINITY;
  if (n == 0)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED,
                   "the buffer of %" G_GINT64_FORMAT " vectors is smaller than one round of %" G_GINT64_FORMAT,
                   n_vec, round);
      return FALSE;
    }
  *bytes = (double) n * 16.0 * (double) passes;
  /* The first launch also loads the kernel (lazy loading) and warms L2. */
  if (!launch (c, k, (guint) c->sms, threads, smem, args, error) || !sync_all (c, kernel_names[k], error))
    return FALSE;
  for (guint r = 0; r < repeats; r++)
    {
      double ms;

      if (!record (c, c->start, error) || !launch (c, k, (guint) c->sms, threads, smem, args, error) ||
          !record (c, c->stop, error) || !elapsed (c, &ms, error))
        return FALSE;
      *best_ms = MIN (*best_ms, ms);
    }
  return TRUE;
}

/* Evicts L2 by reading the whole buffer once (8 × L2) with the streaming
 * read kernel: a memset would leave it full of dirty lines that the next
 * kernel timed pays to write back. */
static gboolean
flush_l2 (Cal *c, GError **error)
{
  const guint threads = 256;
  gint64 round = (gint64) threads * c->sms, n = (gint64) (c->buf_bytes / 16) / round * round, passes = 1;
  void *args[] = { &c->buf, &n, &passes, &c->sink, NULL };

  return launch (c, K_READ1, (guint) c->sms, threads, MAX (threads * 16, c->smem_one_per_sm), args, error);
}

/* One thread follows a chain through the whole buffer (one element per
 * 128-byte line, 4224 bytes apart); the chain is rebuilt before each of
 * @repeats tries so that every step misses L2. */
static gboolean
measure_latency (Cal *c, gint64 steps, guint repeats, double *latency_us, GError **error)
{
  g_autofree double *v = g_new0 (double, repeats);
  gint64 n = (gint64) (c->buf_bytes / 8), stride = 16 * 33;
  void *init_args[] = { &c->buf, &n, &stride, NULL };
  void *args[] = { &c->buf, &steps, &c->sink, NULL };

  for (guint r = 0; r < repeats; r++)
    {
      double ms;

      if (!launch (c, K_CHASE_INIT, (guint) c->sms * 4, 256, 0, init_args, error) ||
          !sync_all (c, "prism_cal_chase_init", error) || !record (c, c->start, error) ||
          !launch (c, K_CHASE, 1, 32, 0, args, error) || !record (c, c->stop, error) || !elapsed (c, &ms, error))
        return FALSE;
      v[r] = ms * 1000.0 / (double) steps;
    }
  *latency_us = median (v, repeats);
  return TRUE;
}

static void
add_double (JsonBuilder *b, const char *name, double v)
{
  json_builder_set_member_name (b, name);
  json_builder_add_double_value (b, v);
}

static void
add_int (JsonBuilder *b, const char *name, gint64 v)
{
  json_builder_set_member_name (b, name);
  json_builder_add_int_value (b, v);
}

/* cuBLASLt on each shape of @shapes ([m, n, k] f16): median and minimum
 * over @samples, L2 flushed before each; "vendor_gemm" in @res, with a
 * status that says why nothing was timed. */
static gboolean
measure_gemms (Cal *c, JsonArray *shapes, guint samples, JsonBuilder *res, GError **error)
{
  g_autoptr(PrismCublasLt) lt = NULL;
  g_autoptr(GError) local = NULL;
  PrismCUdeviceptr ws = 0;
  gboolean ok = TRUE;

  json_builder_set_member_name (res, "vendor_gemm");
  json_builder_begin_object (res);
  if (shapes == NULL || json_array_get_length (shapes) == 0)
    {
      json_builder_set_member_name (res, "status");
      json_builder_add_string_value (res, "skipped");
      json_builder_set_member_name (res, "message");
      json_builder_add_string_value (res, "no GEMM shape was asked for");
      json_builder_end_object (res);
      return TRUE;
    }
  lt = prism_cublaslt_new ();
  if (!prism_cublaslt_load (lt, &local))
    {
      json_builder_set_member_name (res, "status");
      json_builder_add_string_value (res, "no_vendor");
      json_builder_set_member_name (res, "message");
      json_builder_add_string_value (res, local->message);
      json_builder_end_object (res);
      return TRUE;
    }
  json_builder_set_member_name (res, "library");
  json_builder_add_string_value (res, prism_cublaslt_get_path (lt));
  if (!_prism_gpu_worker_check (&c->g, c->g.cu->MemAlloc (&ws, VENDOR_WORKSPACE_BYTES),
                                "cuMemAlloc (cuBLASLt's workspace)", error))
    {
      json_builder_end_object (res);
      return FALSE;
    }
  json_builder_set_member_name (res, "shapes");
  json_builder_begin_array (res);
  for (guint i = 0; ok && i < json_array_get_length (shapes); i++)
    {
      JsonArray *s = json_array_get_array_element (shapes, i);
      PrismGemmShape shape = { 1, json_array_get_int_element (s, 0), json_array_get_int_element (s, 1),
                               json_array_get_int_element (s, 2), PRISM_DTYPE_F16, 0, 0, 0 };
      gsize bytes[3] = { (gsize) (shape.m * shape.k * 2), (gsize) (shape.k * shape.n * 2),
                         (gsize) (shape.m * shape.n * 2) };
      PrismCUdeviceptr p[3] = { 0, 0, 0 };
      g_autofree double *v = g_new0 (double, samples);
      g_autofree char *what = prism_gemm_shape_to_string (&shape);
      double least = INFINITY;

      _prism_gpu_worker_step (what);
      for (guint m = 0; ok && m < 3; m++)
        ok = _prism_gpu_worker_check (&c->g, c->g.cu->MemAlloc (&p[m], (bytes[m] + 15) / 16 * 16),
                                      "cuMemAlloc (a GEMM operand)", error) &&
             fill (c, p[m], (bytes[m] + 15) / 16 * 16, (gint64) m + 1, error);
      /* The first call chooses the algorithm and loads its kernel. */
      ok = ok && prism_cublaslt_gemm (lt, &shape, p[0], p[1], p[2], ws, VENDOR_WORKSPACE_BYTES, c->g.stream, error) &&
           sync_all (c, "the first GEMM", error);
      for (guint r = 0; ok && r < samples; r++)
        {
          double ms = 0;

          ok = flush_l2 (c, error) &&
               record (c, c->start, error) &&
               prism_cublaslt_gemm (lt, &shape, p[0], p[1], p[2], ws, VENDOR_WORKSPACE_BYTES, c->g.stream, error) &&
               record (c, c->stop, error) && elapsed (c, &ms, error);
          v[r] = ms * 1000.0;
          least = MIN (least, v[r]);
        }
      if (ok)
        {
          json_builder_begin_object (res);
          add_int (res, "m", shape.m);
          add_int (res, "n", shape.n);
          add_int (res, "k", shape.k);
          json_builder_set_member_name (res, "dtype");
          json_builder_add_string_value (res, "f16");
          add_int (res, "samples", samples);
          add_double (res, "median_us", median (v, samples));
          add_double (res, "min_us", least);
          json_builder_end_object (res);
        }
      else if (c->g.failed_call == NULL)
        {
          /* cuBLASLt's own failure (no algorithm, a bad status). */
          const char *status = prism_cublaslt_get_last_status_name (lt);
          c->g.failed_call = g_strdup_printf ("cublasLtMatmul (%s)", what);
          c->g.failed_error = g_strdup (status != NULL ? status : "CUBLAS_STATUS_NOT_SUPPORTED");
        }
      for (guint m = 0; m < 3; m++)
        if (p[m])
          c->g.cu->MemFree (p[m]);
    }
  json_builder_end_array (res);
  json_builder_set_member_name (res, "status");
  json_builder_add_string_value (res, ok ? "ok" : "error");
  json_builder_end_object (res);
  c->g.cu->MemFree (ws);
  return ok;
}

/* The DRAM sweep: bytes in flight per SM = threads per SM × loads per
 * thread × 16. */
typedef struct
{
  guint kib;
  guint threads;
  guint loads;
} Point;

static const Point sweep[] = {
  { 2, 128, 1 }, { 4, 256, 1 }, { 8, 512, 1 }, { 16, 1024, 1 }, { 32, 1024, 2 }, { 64, 1024, 4 }, { 128, 1024, 8 },
};

void
_prism_calibrate_worker_run (const char *dir, JsonObject *job, JsonBuilder *res)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *src_path = g_build_filename (dir, "kernels.cu", NULL);
  g_autofree char *source = NULL;
  gboolean quick = json_object_get_boolean_member_with_default (job, "quick", FALSE);
  guint repeats = quick ? 2 : 5;
  const char *status = "error";
  const PrismGpuInfo *info;
  Cal c = { 0, };
  double gap_us, latency_us, best_ms, bytes, l2_ms_per_launch = 0;
  gint64 chase_steps, l2_vec, l2_passes = quick ? 32 : 64;
  guint l2_loads = 8;

  if (!g_file_get_contents (src_path, &source, NULL, &error) ||
      !_prism_gpu_worker_open (&c.g, (int) json_object_get_int_member_with_default (job, "device", 0), source, res,
                               &status, &error))
    goto out;
  status = "error";
  info = c.g.info;
  c.sms = MAX (info->sm_count, 1);
  /* More than half the SM's shared memory: no second block fits beside. */
  if (info->smem_per_sm > 0)
    c.smem_one_per_sm = (guint) MIN (info->smem_per_sm / 2 + 1024, MAX (info->smem_per_block_optin, 0));
  for (int k = 0; k < N_KERNELS; k++)
    {
      gboolean reads = k >= K_READ1 && k <= K_READ8;

      if (!_prism_gpu_worker_function (&c.g, kernel_names[k], reads ? (gsize) MAX (info->smem_per_block_optin, 0) : 0,
                                       &c.fns[k], &error))
        goto out;
    }
  if (!_prism_gpu_worker_check (&c.g, c.g.cu->EventCreate (&c.start, 0), "cuEventCreate", &error) ||
      !_prism_gpu_worker_check (&c.g, c.g.cu->EventCreate (&c.stop, 0), "cuEventCreate", &error) ||
      !_prism_gpu_worker_check (&c.g, c.g.cu->MemAlloc (&c.sink, 256), "cuMemAlloc (the sink)", &error))
    goto out;

  _prism_gpu_worker_step ("launch gap");
  if (!measure_launch_gap (&c, quick ? 200 : 1000, quick ? 3 : 5, &gap_us, &error))
    goto out;
  add_double (res, "launch_gap_us", gap_us);

  /* A power of two ≫ L2 (8 ×, at least 64 MiB, at most a quarter of the
   * memory): the DRAM sweep and the pointer chase never hit L2. */
  c.buf_bytes = (gsize) 64 << 20;
  while (c.buf_bytes < (gsize) MAX (info->l2_bytes, 0) * 8 && c.buf_bytes * 8 <= info->total_memory)
    c.buf_bytes *= 2;
  _prism_gpu_worker_step ("filling the DRAM buffer");
  if (!_prism_gpu_worker_check (&c.g, c.g.cu->MemAlloc (&c.buf, c.buf_bytes), "cuMemAlloc (the DRAM buffer)",
                                &error) ||
      !fill (&c, c.buf, c.buf_bytes, 7, &error) || !sync_all (&c, "prism_cal_fill", &error))
    goto out;
  json_builder_set_member_name (res, "buffers");
  json_builder_begin_object (res);
  add_int (res, "dram_bytes", (gint64) c.buf_bytes);
  add_int (res, "one_block_per_sm_smem", c.smem_one_per_sm);
  json_builder_end_object (res);

  _prism_gpu_worker_step ("DRAM bandwidth by bytes in flight");
  json_builder_set_member_name (res, "dram_gbs_by_inflight");
  json_builder_begin_array (res);
  for (guint i = 0; i < G_N_ELEMENTS (sweep); i++)
    {
      const Point *pt = &sweep[i];

      /* Quick: 2, 8, 32 and 128 KiB. */
      if (quick && i % 2 == 1)
        continue;
      if (!measure_read (&c, pt->threads, pt->loads, (gint64) (c.buf_bytes / 16), 1, repeats, &best_ms, &bytes,
                         &error))
        {
          json_builder_end_array (res);
          goto out;
        }
      json_builder_begin_object (res);
      add_int (res, "kib_per_sm", pt->kib);
      add_double (res, "gbs", bytes / (best_ms * 1e-3) / 1e9);
      add_int (res, "threads_per_sm", pt->threads);
      add_int (res, "loads_per_thread", pt->loads);
      json_builder_end_object (res);
    }
  json_builder_end_array (res);

  /* L2: a quarter of it, read again and again; the widest reads that still
   * make whole rounds in half the working set. */
  _prism_gpu_worker_step ("L2 bandwidth");
  l2_vec = MAX (info->l2_bytes, 0) / 4 / 16;
  while (l2_loads > 1 && (gint64) l2_loads * 1024 * c.sms * 2 > l2_vec)
    l2_loads /= 2;
  if (!measure_read (&c, 1024, l2_loads, l2_vec, l2_passes, repeats, &best_ms, &bytes, &error))
    goto out;
  l2_ms_per_launch = best_ms;
  add_double (res, "l2_gbs", bytes / (best_ms * 1e-3) / 1e9);
  add_int (res, "l2_working_set_bytes", (gint64) (bytes / (double) l2_passes));

  _prism_gpu_worker_step ("DRAM latency");
  chase_steps = MIN ((gint64) (quick ? 4096 : 16384), (gint64) (c.buf_bytes / 128));
  if (!measure_latency (&c, chase_steps, quick ? 2 : 3, &latency_us, &error))
    goto out;
  add_double (res, "dram_latency_us", latency_us);
  add_int (res, "chase_steps", chase_steps);

  /* The SM clock under load: NVML is read while L2 reads keep the GPU busy
   * for about 100-200 ms (launches are asynchronous on a real GPU). */
  _prism_gpu_worker_step ("SM clock under load");
  {
    gint64 n = l2_vec / ((gint64) l2_loads * 1024 * c.sms) * ((gint64) l2_loads * 1024 * c.sms);
    guint smem = MAX (1024 * l2_loads * 16, c.smem_one_per_sm);
    guint count = (guint) CLAMP ((quick ? 100.0 : 200.0) / MAX (l2_ms_per_launch, 1e-3), 1, 5000);
    int k = l2_loads == 1 ? K_READ1 : l2_loads == 2 ? K_READ2 : l2_loads == 4 ? K_READ4 : K_READ8;
    void *args[] = { &c.buf, &n, &l2_passes, &c.sink, NULL };

    for (guint i = 0; i < count; i++)
      if (!launch (&c, k, (guint) c.sms, 1024, smem, args, &error))
        goto out;
    g_usleep ((gulong) (quick ? 30000 : 60000));
    _prism_gpu_worker_add_clocks (&c.g, res);
    if (!sync_all (&c, "the load for the clock", &error))
      goto out;
  }

  _prism_gpu_worker_step ("cuBLASLt GEMMs");
  if (!measure_gemms (&c, json_object_has_member (job, "gemm_shapes") ? json_object_get_array_member (job, "gemm_shapes")
                                                                       : NULL,
                      quick ? 5 : 20, res, &error))
    goto out;
  status = "ok";

out:
  _prism_gpu_worker_add_kernels (&c.g, res);
  _prism_gpu_worker_add_status (&c.g, res, status, error);
  if (c.g.cu != NULL)
    {
      if (c.start != NULL)
        c.g.cu->EventDestroy (c.start);
      if (c.stop != NULL)
        c.g.cu->EventDestroy (c.stop);
      if (c.buf)
        c.g.cu->MemFree (c.buf);
      if (c.sink)
        c.g.cu->MemFree (c.sink);
    }
  _prism_gpu_worker_close (&c.g);
}

/* ------------------------------------------------------------------------ */
/* The parent: the job and the prism-gpu document */

GBytes *
prism_calibrate_get_source (void)
{
  /* Looked up in our own resource: a static library may drop the
   * constructor that would register it globally. */
  return g_resource_lookup_data (prism_tune_get_resource (), SOURCE_RESOURCE, G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
}

/* "MxNxK,…" as [[m, n, k], …]. */
static JsonNode *
parse_gemm_shapes (const char *text, GError **error)
{
  g_auto(GStrv) items = g_strsplit (text, ",", -1);
  g_autoptr(JsonBuilder) b = json_builder_new ();

  json_builder_begin_array (b);
  for (guint i = 0; items[i] != NULL; i++)
    {
      g_auto(GStrv) dims = g_strsplit (g_strstrip (items[i]), "x", -1);
      guint64 v[3];

      if (*items[i] == '\0' && items[1] == NULL)
        break;
      if (g_strv_length (dims) != 3)
        goto bad;
      for (guint d = 0; d < 3; d++)
        if (!g_ascii_string_to_unsigned (dims[d], 10, 1, 1 << 20, &v[d], NULL))
          goto bad;
      json_builder_begin_array (b);
      for (guint d = 0; d < 3; d++)
        json_builder_add_int_value (b, (gint64) v[d]);
      json_builder_end_array (b);
      continue;
bad:
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_PARSE,
                   "GEMM shape “%s” is not MxNxK with each size from 1 to 1048576", items[i]);
      return NULL;
    }
  json_builder_end_array (b);
  return json_builder_get_root (b);
}

/* A prism-gpu file (version 1) with a datasheet object. (transfer full) */
static JsonParser *
load_datasheet (const char *path, GError **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) local = NULL;
  g_autofree char *data = NULL;
  JsonObject *o;
  gsize len;

  /* A regular file of bounded size (the message names it), strict JSON
   * (prism-json-reader.h), then json-glib. */
  if ((data = prism_json_read_file (path, PRISM_JSON_GPU_MAX_SIZE, &len, &local)) == NULL)
    {
      /* Bad input, like a file that does not parse. */
      g_set_error_literal (error, PRISM_ERROR, PRISM_ERROR_PARSE, local->message);
      return NULL;
    }
  if (!prism_json_check_text (data, len, prism_json_limits_for (PRISM_JSON_GPU), &local) ||
      !json_parser_load_from_data (parser, data, (gssize) len, &local))
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_PARSE, "%s: %s", path, local->message);
      return NULL;
    }
  if (!JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)) ||
      g_strcmp0 (json_object_get_string_member_with_default (json_node_get_object (json_parser_get_root (parser)),
                                                              "format", ""), "prism-gpu") != 0)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_PARSE, "%s: not a prism-gpu file (\"format\": \"prism-gpu\")",
                   path);
      return NULL;
    }
  o = json_node_get_object (json_parser_get_root (parser));
  if (json_object_get_int_member_with_default (o, "version", 0) != 1)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_VERSION, "%s: prism-gpu version %" G_GINT64_FORMAT
                   " is not one this program reads (1)", path, json_object_get_int_member_with_default (o, "version", 0));
      return NULL;
    }
  if (!json_object_has_member (o, "datasheet") || !JSON_NODE_HOLDS_OBJECT (json_object_get_member (o, "datasheet")))
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_PARSE, "%s: no \"datasheet\" object", path);
      return NULL;
    }
  return g_steal_pointer (&parser);
}

static double
member_double (JsonObject *o, const char *name, double fallback)
{
  JsonNode *n = o != NULL ? json_object_get_member (o, name) : NULL;

  return n != NULL && JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) != G_TYPE_STRING
         && json_node_get_value_type (n) != G_TYPE_BOOLEAN ? json_node_get_double (n) : fallback;
}

/* Dense f16 tensor-core FLOPs per SM and clock of the architectures we know
 * (A100 312 TFLOP/s = 108 SMs × 1.41 GHz × 2048, H100 989 = 132 × 1.83 ×
 * 4096); 0 for others. */
static double
tensor_flops_per_sm_clock (int cc)
{
  switch (cc)
    {
    case 80: return 2048;
    case 86:
    case 89: return 1024;
    case 90: return 4096;
    case 100: return 8192;
    default: return 0;
    }
}

static void
set_string (JsonObject *o, const char *name, const char *value)
{
  json_object_set_string_member (o, name, value);
}

/* The prism-gpu document from the worker's result @r and the datasheet
 * file @ds (nullable). */
static JsonNode *
build_document (JsonObject *r, JsonObject *ds_root, const char *ds_path)
{
  JsonObject *dev = json_object_get_object_member (r, "device");
  JsonObject *ds_in = ds_root != NULL ? json_object_get_object_member (ds_root, "datasheet") : NULL;
  JsonObject *cal_in = ds_root != NULL && json_object_has_member (ds_root, "calibration") &&
                       JSON_NODE_HOLDS_OBJECT (json_object_get_member (ds_root, "calibration"))
                       ? json_object_get_object_member (ds_root, "calibration") : NULL;
  JsonObject *clocks = json_object_has_member (r, "clocks") ? json_object_get_object_member (r, "clocks") : NULL;
  JsonObject *vendor = json_object_has_member (r, "vendor_gemm") ? json_object_get_object_member (r, "vendor_gemm")
                                                                  : NULL;
  JsonArray *sweep_in = json_object_get_array_member (r, "dram_gbs_by_inflight");
  const char *device_name = json_object_get_string_member_with_default (dev, "name", "GPU");
  JsonObject *doc = json_object_new ();
  JsonObject *ds = json_object_new ();
  JsonObject *cal = json_object_new ();
  JsonArray *match = json_array_new ();
  JsonArray *sweep_out = json_array_new ();
  JsonNode *root = json_node_new (JSON_NODE_OBJECT);
  g_autofree char *name = NULL;
  g_autofree char *ds_source = NULL;
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *date = g_date_time_format (now, "%Y-%m-%d");
  g_autofree char *clock_text = NULL;
  g_autofree char *source = NULL;
  g_autofree char *gemm_note = NULL;
  const char *efficiency_note;
  int cc = (int) json_object_get_int_member_with_default (dev, "compute_capability", 0);
  int sms = (int) json_object_get_int_member_with_default (dev, "sm_count", 0);
  double clock_mhz, best_dram = 0, tensor_tflops, dram_gbs, tensor_eff, fp32_eff;

  /* Identity: the datasheet file's when given, else from the device name. */
  if (ds_root != NULL && json_object_get_string_member_with_default (ds_root, "name", NULL) != NULL)
    name = g_strdup (json_object_get_string_member (ds_root, "name"));
  else
    name = prism_calibrate_name_for (device_name);
  if (ds_root != NULL && json_object_has_member (ds_root, "match") &&
      JSON_NODE_HOLDS_ARRAY (json_object_get_member (ds_root, "match")))
    {
      JsonArray *m = json_object_get_array_member (ds_root, "match");
      for (guint i = 0; i < json_array_get_length (m); i++)
        if (JSON_NODE_HOLDS_VALUE (json_array_get_element (m, i)) &&
            json_node_get_value_type (json_array_get_element (m, i)) == G_TYPE_STRING)
          json_array_add_string_element (match, json_array_get_string_element (m, i));
    }
  else
    json_array_add_string_element (match, g_str_has_prefix (device_name, "NVIDIA ")
                                          ? device_name + strlen ("NVIDIA ") : device_name);
  set_string (doc, "format", "prism-gpu");
  json_object_set_int_member (doc, "version", 1);
  set_string (doc, "name", name);
  set_string (doc, "display_name", device_name);
  json_object_set_array_member (doc, "match", match);

  /* Datasheet: the peak rates and anything else from the file, then what
   * the driver says about this very device over it. */
  if (ds_in != NULL)
    {
      JsonObjectIter it;
      const char *key;
      JsonNode *value;

      json_object_iter_init (&it, ds_in);
      while (json_object_iter_next (&it, &key, &value))
        json_object_set_member (ds, key, json_node_copy (value));
      ds_source = g_strdup_printf ("%s (%s); device limits from the CUDA driver",
                                   json_object_get_string_member_with_default (ds_in, "source", "datasheet"),
                                   ds_path);
    }
  else
    ds_source = g_strdup ("device limits from the CUDA driver; peak rates unknown (0): "
                          "give prism calibrate --datasheet FILE");
  set_string (ds, "source", ds_source);
  json_object_set_int_member (ds, "compute_capability", cc);
  json_object_set_int_member (ds, "sm_count", sms);
  if (!json_object_has_member (ds, "dram_gbs"))
    json_object_set_double_member (ds, "dram_gbs", 0);
  {
    gint64 l2 = json_object_get_int_member_with_default (dev, "l2_bytes", 0);

    /* Whole MiB as an integer, as datasheets write it (50 for an H100). */
    if (l2 % (1 << 20) == 0)
      json_object_set_int_member (ds, "l2_mb", l2 >> 20);
    else
      json_object_set_double_member (ds, "l2_mb", (double) l2 / (1 << 20));
  }
  if (!json_object_has_member (ds, "tensor_tflops"))
    json_object_set_double_member (ds, "tensor_tflops", 0);
  if (!json_object_has_member (ds, "fp32_tflops"))
    json_object_set_double_member (ds, "fp32_tflops", 0);
  json_object_set_int_member (ds, "smem_per_block_kb",
                              json_object_get_int_member_with_default (dev, "smem_per_block_optin", 0) / 1024);
  json_object_set_int_member (ds, "smem_per_sm_kb", json_object_get_int_member_with_default (dev, "smem_per_sm", 0) / 1024);
  json_object_set_int_member (ds, "max_threads_per_block",
                              json_object_get_int_member_with_default (dev, "max_threads_per_block", 0));
  json_object_set_int_member (ds, "max_threads_per_sm",
                              json_object_get_int_member_with_default (dev, "max_threads_per_sm", 0));
  json_object_set_int_member (ds, "max_blocks_per_sm",
                              json_object_get_int_member_with_default (dev, "max_blocks_per_sm", 0));
  json_object_set_int_member (ds, "registers_per_sm",
                              json_object_get_int_member_with_default (dev, "registers_per_sm", 0));
  json_object_set_object_member (doc, "datasheet", ds);

  /* The clock the measurements ran at. */
  if (clocks != NULL && json_object_get_int_member_with_default (clocks, "sm_mhz", 0) > 0)
    {
      clock_mhz = (double) json_object_get_int_member (clocks, "sm_mhz");
      clock_text = g_strdup_printf ("SM clock %.0f MHz under load (NVML)", clock_mhz);
    }
  else
    {
      clock_mhz = (double) json_object_get_int_member_with_default (dev, "clock_khz", 0) / 1000.0;
      clock_text = g_strdup_printf ("SM clock %.0f MHz (the driver's attribute; %s)", clock_mhz,
                                    clocks != NULL && json_object_get_string_member_with_default (clocks, "note", NULL)
                                    ? json_object_get_string_member (clocks, "note") : "NVML not read");
    }

  for (guint i = 0; sweep_in != NULL && i < json_array_get_length (sweep_in); i++)
    {
      JsonObject *p = json_array_get_object_element (sweep_in, i);
      JsonObject *q = json_object_new ();

      json_object_set_int_member (q, "kib_per_sm", json_object_get_int_member (p, "kib_per_sm"));
      json_object_set_double_member (q, "gbs", json_object_get_double_member (p, "gbs"));
      json_object_set_int_member (q, "threads_per_sm", json_object_get_int_member (p, "threads_per_sm"));
      json_object_set_int_member (q, "loads_per_thread", json_object_get_int_member (p, "loads_per_thread"));
      json_array_add_object_element (sweep_out, q);
      best_dram = MAX (best_dram, json_object_get_double_member (p, "gbs"));
    }

  /* The GEMM roofline: the datasheet's peaks, else the tensor peak from the
   * SM count and clock, and the best DRAM bandwidth measured. */
  tensor_tflops = member_double (ds, "tensor_tflops", 0);
  dram_gbs = member_double (ds, "dram_gbs", 0);
  if (tensor_tflops > 0 && dram_gbs > 0)
    gemm_note = g_strdup ("against the datasheet's peaks");
  else
    {
      double max_mhz = clocks != NULL && json_object_get_int_member_with_default (clocks, "sm_max_mhz", 0) > 0
                       ? (double) json_object_get_int_member (clocks, "sm_max_mhz") : clock_mhz;
      if (tensor_tflops <= 0)
        tensor_tflops = tensor_flops_per_sm_clock (cc) * sms * max_mhz * 1e6 / 1e12;
      if (dram_gbs <= 0)
        dram_gbs = best_dram;
      gemm_note = g_strdup_printf ("against estimated peaks (%.1f TFLOP/s from %d SMs × %.0f MHz, %.0f GB/s measured)",
                                   tensor_tflops, sms, max_mhz, dram_gbs);
    }

  json_object_set_boolean_member (cal, "measured", TRUE);
  json_object_set_double_member (cal, "launch_gap_us", json_object_get_double_member (r, "launch_gap_us"));
  json_object_set_double_member (cal, "dram_latency_us", json_object_get_double_member (r, "dram_latency_us"));
  json_object_set_double_member (cal, "l2_gbs", json_object_get_double_member (r, "l2_gbs"));
  json_object_set_array_member (cal, "dram_gbs_by_inflight", sweep_out);
  tensor_eff = member_double (cal_in, "tensor_efficiency", NAN);
  fp32_eff = member_double (cal_in, "fp32_efficiency", NAN);
  if (!isnan (tensor_eff) && !isnan (fp32_eff))
    efficiency_note = "tensor/fp32 efficiency copied from the datasheet file";
  else
    {
      tensor_eff = isnan (tensor_eff) ? 0.7 : tensor_eff;
      fp32_eff = isnan (fp32_eff) ? 0.6 : fp32_eff;
      efficiency_note = "tensor/fp32 efficiency not measured (defaults 0.7/0.6)";
    }
  json_object_set_double_member (cal, "tensor_efficiency", tensor_eff);
  json_object_set_double_member (cal, "fp32_efficiency", fp32_eff);
  json_object_set_double_member (cal, "sm_clock_mhz", clock_mhz);

  {
    JsonObject *vg = json_object_new ();
    JsonArray *shapes = vendor != NULL && json_object_has_member (vendor, "shapes")
                        ? json_object_get_array_member (vendor, "shapes") : NULL;
    JsonArray *shapes_out = json_array_new ();
    g_autoptr(GArray) effs = g_array_new (FALSE, FALSE, sizeof (double));
    double least = INFINITY;

    for (guint i = 0; shapes != NULL && i < json_array_get_length (shapes); i++)
      {
        JsonObject *s = json_array_get_object_element (shapes, i);
        JsonObject *q = json_object_new ();
        double m = (double) json_object_get_int_member (s, "m"), n = (double) json_object_get_int_member (s, "n");
        double k = (double) json_object_get_int_member (s, "k");
        double us = json_object_get_double_member (s, "median_us");
        double roof_us = MAX (tensor_tflops > 0 ? 2 * m * n * k / (tensor_tflops * 1e12) : 0,
                              dram_gbs > 0 ? 2 * (m * k + k * n + m * n) / (dram_gbs * 1e9) : 0) * 1e6;
        double eff = us > 0 && roof_us > 0 ? roof_us / us : 0;

        json_object_set_int_member (q, "m", (gint64) m);
        json_object_set_int_member (q, "n", (gint64) n);
        json_object_set_int_member (q, "k", (gint64) k);
        json_object_set_double_member (q, "median_us", us);
        json_object_set_double_member (q, "min_us", json_object_get_double_member (s, "min_us"));
        json_object_set_double_member (q, "roofline_us", roof_us);
        json_object_set_double_member (q, "efficiency", eff);
        json_array_add_object_element (shapes_out, q);
        g_array_append_val (effs, eff);
        least = MIN (least, json_object_get_double_member (s, "min_us"));
      }
    json_object_set_double_member (vg, "efficiency", effs->len > 0 ? median ((double *) effs->data, effs->len) : 0);
    json_object_set_double_member (vg, "min_us", isinf (least) ? 0 : least);
    if (effs->len > 0)
      set_string (vg, "source", gemm_note);
    else
      set_string (vg, "skipped", vendor != NULL ? json_object_get_string_member_with_default (vendor, "message", "")
                                               : "not measured");
    json_object_set_array_member (vg, "shapes", shapes_out);
    json_object_set_object_member (cal, "vendor_gemm", vg);
  }

  source = g_strdup_printf ("prism calibrate on %s, driver %" G_GINT64_FORMAT ", %s, %s; %s", device_name,
                            json_object_get_int_member_with_default (dev, "driver_version", 0), date, clock_text,
                            efficiency_note);
  set_string (cal, "source", source);
  json_object_set_object_member (doc, "calibration", cal);
  json_node_take_object (root, doc);
  return root;
}

JsonNode *
prism_calibrate_run (const PrismCalibrateOptions *options_in, GError **error)
{
  PrismCalibrateOptions options;
  g_autoptr(PrismCudaRuntime) rt = prism_cuda_runtime_new ();
  g_autoptr(JsonParser) datasheet = NULL;
  g_autoptr(JsonNode) shapes = NULL;
  g_autoptr(JsonBuilder) job = json_builder_new ();
  g_autoptr(JsonNode) job_node = NULL;
  g_autoptr(JsonParser) result = NULL;
  g_autoptr(GBytes) source = NULL;
  g_autofree char *worker = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *end_note = NULL;
  JsonNode *doc = NULL;
  JsonObject *r;
  const char *status;

  if (options_in != NULL)
    options = *options_in;
  else
    prism_calibrate_options_init (&options);

  /* Bad input first, before anything waits for the GPU. */
  if (options.datasheet != NULL && (datasheet = load_datasheet (options.datasheet, error)) == NULL)
    return NULL;
  shapes = parse_gemm_shapes (options.gemm_shapes != NULL ? options.gemm_shapes
                              : options.quick ? "8x4096x4096,4096x4096x4096" : DEFAULT_GEMMS, error);
  if (shapes == NULL)
    return NULL;
  /* Fail fast, in this process, when there is no GPU at all. */
  if (!prism_cuda_runtime_load_driver (rt, options.device, error) || !prism_cuda_runtime_load_nvrtc (rt, error))
    return NULL;
  worker = _prism_gpu_find_worker (options.worker);
  if (worker == NULL)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED, "cannot find prism-gpu-worker (set $PRISM_GPU_WORKER "
                   "to its path)");
      return NULL;
    }

  source = prism_calibrate_get_source ();
  if (source == NULL)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED, "the calibration source %s is missing from the library",
                   SOURCE_RESOURCE);
      return NULL;
    }
  dir = g_dir_make_tmp ("prism-calibrate-XXXXXX", error);
  if (dir == NULL)
    return NULL;
  json_builder_begin_object (job);
  json_builder_set_member_name (job, "type");
  json_builder_add_string_value (job, "calibrate");
  json_builder_set_member_name (job, "device");
  json_builder_add_int_value (job, options.device);
  json_builder_set_member_name (job, "quick");
  json_builder_add_boolean_value (job, options.quick);
  json_builder_set_member_name (job, "gemm_shapes");
  json_builder_add_value (job, json_node_copy (shapes));
  json_builder_end_object (job);
  job_node = json_builder_get_root (job);
  if (!_prism_gpu_write_bytes (dir, "kernels.cu", source, error) ||
      !_prism_gpu_write_json (dir, "job.json", job_node, error) ||
      !_prism_gpu_spawn_worker (worker, dir, options.timeout_s, "the calibration", &end_note, error) ||
      (result = _prism_gpu_read_result (dir, end_note, error)) == NULL)
    goto out;

  r = json_node_get_object (json_parser_get_root (result));
  status = json_object_get_string_member_with_default (r, "status", "error");
  if (g_str_equal (status, "no_gpu"))
    g_set_error (error, PRISM_ERROR, PRISM_ERROR_NO_GPU, "%s",
                 json_object_get_string_member_with_default (r, "message", ""));
  else if (g_str_equal (status, "cuda_error"))
    g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED, "CUDA error %s in %s during the calibration: %s",
                 json_object_get_string_member_with_default (r, "cuda_error", ""),
                 json_object_get_string_member_with_default (r, "cuda_call", ""),
                 json_object_get_string_member_with_default (r, "message", ""));
  else if (g_str_equal (status, "build_error"))
    g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED, "the calibration kernels could not be built: %s",
                 json_object_get_string_member_with_default (r, "message", ""));
  else if (!g_str_equal (status, "ok"))
    g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED, "the calibration failed on the GPU: %s",
                 json_object_get_string_member_with_default (r, "message", ""));
  else
    doc = build_document (r, datasheet != NULL ? json_node_get_object (json_parser_get_root (datasheet)) : NULL,
                          options.datasheet);

out:
  if (options.keep_dir)
    g_message ("calibration job folder kept: %s", dir);
  else
    _prism_gpu_remove_dir (dir);
  return doc;
}

gboolean
prism_calibrate_save (JsonNode *doc, const char *path, GError **error)
{
  g_autofree char *text = NULL;
  gsize len = 0;

  text = prism_json_to_text (doc, TRUE, &len);
  /* g_file_set_contents() writes a temporary file and renames it. */
  return g_file_set_contents (path, text, (gssize) len, error);
}
