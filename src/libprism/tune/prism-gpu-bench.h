/* prism-gpu-bench.h — timing generated kernels on the GPU
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "prism-graph.h"
#include "prism-nvml.h"

G_BEGIN_DECLS

/**
 * PrismGpuBenchOptions:
 * @timeout_s: the whole measurement (compile, check, warm-up, samples) runs in
 *   a child process that is killed after this many seconds
 * @warmup_ms: warm-up by time before the first sample
 * @min_time_ms: keep sampling until the samples add up to this much…
 * @min_samples: …and there are at least this many
 * @max_samples: stop here whatever the time
 * @tolerance: largest normwise relative error against the interpreter;
 *   0 means by dtype (f16 2e-2, bf16 5e-2, f32 1e-3)
 * @device: CUDA device ordinal
 * @seed: seed of the random inputs
 * @input_scale: the inputs are the interpreter's uniform values in [-1, 1)
 *   times this (default 0.25, then rounded to the input dtype): programs
 *   such as softmax without max subtraction then keep their f16
 *   intermediates finite; timings do not depend on the values
 * @worker: (nullable): path of prism-gpu-worker; %NULL looks in
 *   $PRISM_GPU_WORKER, next to the running program, then in $PATH
 * @work_graph: (nullable): count FLOPs and bytes on this graph (the unfused
 *   program) instead of the timed one, so candidates and baseline share them
 * @keep_dir: keep the job folder (for debugging) and log its path
 * @vendor_matmul: run the program's predefined matmuls through cuBLASLt
 *   (the vendor baseline, PrismCudaOptions.vendor_matmul) instead of our
 *   lowering; without cuBLASLt the run fails with %PRISM_ERROR_NO_VENDOR
 */
typedef struct
{
  guint timeout_s;
  double warmup_ms;
  double min_time_ms;
  guint min_samples;
  guint max_samples;
  double tolerance;
  int device;
  guint64 seed;
  double input_scale;
  const char *worker;
  const PrismGraph *work_graph;
  gboolean keep_dir;
  gboolean vendor_matmul;
} PrismGpuBenchOptions;

/**
 * PrismGpuFault:
 * @PRISM_GPU_FAULT_NONE: measured
 * @PRISM_GPU_FAULT_NO_GPU: no driver, device or NVRTC
 * @PRISM_GPU_FAULT_NO_VENDOR: the program has vendor GEMMs and cuBLASLt is missing
 * @PRISM_GPU_FAULT_BUILD: NVRTC could not compile the kernels
 * @PRISM_GPU_FAULT_CUDA_ERROR: a CUDA or cuBLASLt call failed (a faulting
 *   kernel, a lost device…); the result names the call and the error
 * @PRISM_GPU_FAULT_MISMATCH: an output differs from the interpreter's
 * @PRISM_GPU_FAULT_TIMEOUT: the worker did not finish in time and was killed
 *   (a kernel that hangs)
 * @PRISM_GPU_FAULT_CRASH: the worker died without a result (a signal)
 * @PRISM_GPU_FAULT_ERROR: anything else (a bad job folder…)
 *
 * What went wrong with one measurement.  The caller's process is never
 * affected: each program runs in a worker process of its own.
 */
typedef enum
{
  PRISM_GPU_FAULT_NONE,
  PRISM_GPU_FAULT_NO_GPU,
  PRISM_GPU_FAULT_NO_VENDOR,
  PRISM_GPU_FAULT_BUILD,
  PRISM_GPU_FAULT_CUDA_ERROR,
  PRISM_GPU_FAULT_MISMATCH,
  PRISM_GPU_FAULT_TIMEOUT,
  PRISM_GPU_FAULT_CRASH,
  PRISM_GPU_FAULT_ERROR,
} PrismGpuFault;

/* "none", "no_gpu", "no_vendor", "build_error", "cuda_error", "mismatch",
 * "timeout", "crash", "error": the worker's result status for each. */
const char *prism_gpu_fault_to_string (PrismGpuFault fault);

/**
 * PrismGpuBenchKernel:
 * @name: the kernel, as in the manifest
 * @registers: registers per thread (cuFuncGetAttribute), -1 for a vendor GEMM
 * @local_bytes: local memory per thread (spills), -1 for a vendor GEMM
 */
typedef struct
{
  char *name;
  int registers;
  int local_bytes;
} PrismGpuBenchKernel;

/**
 * PrismGpuBenchResult:
 *
 * One measurement: median and p20/p80 of the per-sample times (one CUDA
 * event pair per sample, L2 flushed before each), with throughput and the
 * share of the roofline of the device.
 */
typedef struct
{
  char *device_name;
  int compute_capability;
  int sm_count;
  int driver_version;
  char *arch;               /* what the kernels were compiled for */
  guint n_kernels;          /* launches per run */
  double max_rel_error;     /* worst output, against the interpreter */
  double tolerance;
  guint n_samples;
  double median_us, p20_us, p80_us, min_us, mean_us, cv;
  double flops, bytes;      /* work of one run */
  double tflops, gbs;       /* at the median */
  double roofline_us;       /* max (flops / peak, bytes / bandwidth) */
  double roofline_pct;      /* roofline_us / median_us · 100 */
  const char *peak_source;  /* which table the peaks came from */
  PrismGpuFault fault;      /* PRISM_GPU_FAULT_NONE when measured */
  char *cuda_call;          /* CUDA_ERROR: the call that failed ("cuLaunchKernel (prism_bench_k2)") */
  char *cuda_error;         /* CUDA_ERROR: its error ("CUDA_ERROR_ILLEGAL_ADDRESS") */
  PrismGpuClocks clocks;    /* read right after the samples */
  GArray *kernels;          /* (element-type PrismGpuBenchKernel) (nullable): each kernel once, launch order */
} PrismGpuBenchResult;

void     prism_gpu_bench_options_init  (PrismGpuBenchOptions      *options);
/* Frees what @result owns and zeroes it. */
void     prism_gpu_bench_result_clear  (PrismGpuBenchResult       *result);

/**
 * prism_gpu_bench_probe:
 * @description: (out) (optional) (transfer full): "NVIDIA H200 (sm_90, 132 SMs)"
 *
 * Loads the driver and NVRTC and looks at device @device.
 *
 * Returns: %FALSE with %PRISM_ERROR_NO_GPU (and a message saying what is
 *   missing) when there is no usable GPU
 */
gboolean prism_gpu_bench_probe         (int                         device,
                                        char                      **description,
                                        GError                    **error);

/* How many CUDA devices the driver sees (no NVRTC needed); %FALSE with
 * %PRISM_ERROR_NO_GPU when none. */
gboolean prism_gpu_bench_count_devices (int                        *count,
                                        GError                    **error);

/**
 * prism_gpu_bench_run:
 * @graph: a concrete kernel graph
 * @result: (out caller-allocates): the measurement
 *
 * Generates the CUDA code of @graph, and in a child process (killed after
 * the timeout) compiles it with NVRTC for the device, runs it once and
 * compares every output with the CPU interpreter, then times it.
 *
 * Returns: %FALSE with @error and @result's fault set when there is no
 *   GPU (%PRISM_ERROR_NO_GPU), cuBLASLt is needed and missing
 *   (%PRISM_ERROR_NO_VENDOR), the child timed out (%PRISM_ERROR_LIMIT), or
 *   the code cannot be built, an output is wrong, a CUDA call failed or the
 *   child died (%PRISM_ERROR_FAILED, the message naming which); @result
 *   must be cleared in every case
 */
gboolean prism_gpu_bench_run           (const PrismGraph           *graph,
                                        const PrismGpuBenchOptions *options,
                                        PrismGpuBenchResult        *result,
                                        GError                    **error);

/**
 * prism_gpu_bench_run_job:
 * @dir: a job folder as prism_gpu_bench_run() writes it (docs/codegen.md):
 *   job.json, manifest.json, kernels.cu, inK.bin, refK.f32
 * @options: (nullable): the worker and the timeout are used
 * @result: (out caller-allocates): the worker's part of the measurement
 *   (device, check, samples, kernels, clocks, fault); no work counts
 *
 * Runs prism-gpu-worker on @dir (killed after the timeout) and reads its
 * result.json.  For job folders made by other means (tests, tools).
 *
 * Returns: as prism_gpu_bench_run()
 */
gboolean prism_gpu_bench_run_job       (const char                 *dir,
                                        const PrismGpuBenchOptions *options,
                                        PrismGpuBenchResult        *result,
                                        GError                    **error);

/* FLOPs and DRAM bytes (graph inputs and outputs, each counted once) of one
 * run of @graph. */
void     prism_gpu_bench_count_work    (const PrismGraph           *graph,
                                        double                     *flops,
                                        double                     *bytes);

/* The child process: `prism-gpu-worker JOBDIR`.  Returns the exit status. */
int      prism_gpu_bench_worker_main   (int                         argc,
                                        char                      **argv);

G_END_DECLS
