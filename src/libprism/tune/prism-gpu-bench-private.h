/* prism-gpu-bench-private.h — what the benchmark and the calibration share
 *
 * Both run their kernels in prism-gpu-worker (a process of its own, killed
 * at a timeout), so both need the parent's spawning and the child's driver
 * set-up, fault recording and per-kernel statistics.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

#include "prism-cuda-runtime.h"
#include "prism-gpu-bench.h"

G_BEGIN_DECLS

/* ---- The parent ---- */

/* prism-gpu-worker from @hint, $PRISM_GPU_WORKER, next to the running
 * program, ../libexec, or $PATH; NULL when nowhere. (transfer full) */
char      *_prism_gpu_find_worker     (const char  *hint);

gboolean   _prism_gpu_write_json      (const char  *dir,
                                       const char  *name,
                                       JsonNode    *node,
                                       GError     **error);
gboolean   _prism_gpu_write_bytes     (const char  *dir,
                                       const char  *name,
                                       GBytes      *bytes,
                                       GError     **error);
/* Removes a job folder and the files in it. */
void       _prism_gpu_remove_dir      (const char  *path);

/**
 * _prism_gpu_spawn_worker:
 * @what: the job for messages ("the GPU measurement")
 * @end_note: (out) (transfer full): how the worker ended when not with
 *   status 0 ("killed by signal 6 (Aborted)"), else %NULL
 *
 * Runs `@worker @dir` with its output in @dir/worker.log and kills it after
 * @timeout_s.  Returns %FALSE with %PRISM_ERROR_LIMIT when it was killed,
 * naming @what and the last step the worker announced
 * (_prism_gpu_worker_step()), or with %PRISM_ERROR_FAILED when it could not
 * be started.
 */
gboolean   _prism_gpu_spawn_worker    (const char  *worker,
                                       const char  *dir,
                                       guint        timeout_s,
                                       const char  *what,
                                       char       **end_note,
                                       GError     **error);

/* The worker's result.json, or NULL with an error quoting @end_note and its
 * log when it left none (it crashed). (transfer full) */
JsonParser *_prism_gpu_read_result    (const char  *dir,
                                       const char  *end_note,
                                       GError     **error);

/* ---- The child ---- */

typedef struct
{
  PrismCudaRuntime *rt;
  const PrismCudaDriver *cu;
  const PrismGpuInfo *info;
  PrismCUmodule module;
  PrismCUstream stream;
  GArray *kernels;          /* PrismGpuBenchKernel per function looked up, and vendor GEMMs */
  char *failed_call;        /* the first CUDA call that failed… */
  char *failed_error;       /* …and the driver's name for its error */
} PrismGpuWorker;

/* Announces the step the worker is at on stderr (the parent's log), so
 * that a timeout can say where the worker hung. */
void       _prism_gpu_worker_step      (const char     *step);

/* prism_cuda_runtime_check() that also records the first failed call. */
gboolean   _prism_gpu_worker_check     (PrismGpuWorker *w,
                                        PrismCUresult   result,
                                        const char     *what,
                                        GError        **error);

/**
 * _prism_gpu_worker_open:
 * @source: (nullable): CUDA source to compile with NVRTC and load; %NULL
 *   for none (a program of vendor GEMMs only)
 * @status: (out): "no_gpu" or "build_error" when those fail
 *
 * Loads the driver for @device, adds "device" and "arch" to @res, compiles
 * and loads @source, creates the stream.
 */
gboolean   _prism_gpu_worker_open      (PrismGpuWorker *w,
                                        int             device,
                                        const char     *source,
                                        JsonBuilder    *res,
                                        const char    **status,
                                        GError        **error);

/* Looks up kernel @name, opts it in to @smem bytes of dynamic shared memory
 * when that is above 48 KiB, records its registers and local memory. */
gboolean   _prism_gpu_worker_function  (PrismGpuWorker  *w,
                                        const char      *name,
                                        gsize            smem,
                                        PrismCUfunction *fn,
                                        GError         **error);

/* Adds "kernels" (name, registers, local_bytes; null for vendor GEMMs). */
void       _prism_gpu_worker_add_kernels (PrismGpuWorker *w,
                                          JsonBuilder    *res);

/* Adds "clocks" (sm_mhz, sm_max_mhz, attribute_mhz, note; null where unknown). */
void       _prism_gpu_worker_add_clocks  (PrismGpuWorker *w,
                                          JsonBuilder    *res);

/* Adds "status" (@status, or "cuda_error" when a CUDA call failed and
 * @status is "error"), "message", and the failed call and error. */
void       _prism_gpu_worker_add_status  (PrismGpuWorker *w,
                                          JsonBuilder    *res,
                                          const char     *status,
                                          const GError   *error);

void       _prism_gpu_worker_close     (PrismGpuWorker *w);

/* The calibration's job (prism-calibrate.c): fills @res. */
void       _prism_calibrate_worker_run (const char     *dir,
                                        JsonObject     *job,
                                        JsonBuilder    *res);

G_END_DECLS
