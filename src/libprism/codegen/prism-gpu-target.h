/* prism-gpu-target.h — what the code generator and the cost model know about each GPU
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define PRISM_GPU_FORMAT         "prism-gpu"
#define PRISM_GPU_FORMAT_VERSION 1
/* Bytes of a name, a display name or a match string (printed by bench and
 * search); .json files read of one folder of $PRISM_GPU_DATA_PATH. */
#define PRISM_GPU_MAX_NAME        256
#define PRISM_GPU_MAX_DATA_FILES  256

/* One point of the achievable DRAM bandwidth (all SMs busy) as a function of
 * the bytes each SM keeps in flight. */
typedef struct
{
  double kib_per_sm;
  double gbs;
} PrismBandwidthPoint;

/**
 * PrismGpuTarget:
 *
 * One GPU, as read from a "prism-gpu" file (docs/cost-model.md): datasheet
 * figures (dense throughput, no sparsity), the limits code generation plans
 * against, and the calibration constants of the cost model, each part with
 * its provenance.  The built-in targets (data/gpus/, embedded in the
 * library) live as long as the process; read-only.
 */
typedef struct
{
  char *name;                    /* "h100", as given to --target */
  char *display_name;            /* "NVIDIA H100 SXM5 80 GB" */
  char **match;                  /* substrings of CUDA device names (NULL-terminated) */

  /* Datasheet and architecture. */
  char *datasheet_source;
  guint compute_capability;      /* 90, 80 */
  guint sm_count;
  double dram_gbs;               /* HBM bandwidth, GB/s */
  double l2_mb;
  double tensor_tflops;          /* f16/bf16 tensor cores, f32 accumulate */
  double fp32_tflops;            /* CUDA cores */
  guint smem_per_block_kb;       /* largest dynamic shared memory of one block */
  guint smem_per_sm_kb;
  guint max_threads_per_block;
  guint max_threads_per_sm;
  guint max_blocks_per_sm;
  guint registers_per_sm;

  /* Calibration. */
  char *calibration_source;
  gboolean measured;             /* by prism calibrate, or estimates */
  double launch_us;              /* gap between two dependent launches on a stream */
  double dram_latency_us;        /* from issuing a load to its data in shared memory */
  double l2_gbs;                 /* L2 bandwidth, GB/s */
  PrismBandwidthPoint *dram_curve;  /* ascending kib_per_sm */
  guint n_dram_curve;
  double iteration_us;           /* barriers and issue of one loop iteration */
  double tensor_efficiency;      /* share of tensor_tflops our MMA paths reach */
  double fp32_efficiency;        /* share of fp32_tflops our scalar paths reach */
  double vendor_gemm_efficiency;           /* cuBLASLt: share of the tensor peak */
  double vendor_gemm_bandwidth_efficiency; /* cuBLASLt: share of dram_gbs */
  double vendor_gemm_min_us;               /* cuBLASLt: the shortest GEMM, launch included */
} PrismGpuTarget;

/* The built-in targets, then those of $PRISM_GPU_DATA_PATH (folders or files
 * separated by ':'; a file named like a built-in target replaces it), in a
 * stable order: h100, h200, a100, then the others by name. */
const PrismGpuTarget * const *prism_gpu_target_list (guint *n_targets);
/* By name, case-insensitive; NULL for an unknown name. */
const PrismGpuTarget *prism_gpu_target_lookup  (const char  *name);
/* The target used when none is given (h100). */
const PrismGpuTarget *prism_gpu_target_default (void);
/* The target whose match strings occur in a CUDA device name ("NVIDIA H200"),
 * else the first of the same compute capability (sm_90 → h100), else NULL. */
const PrismGpuTarget *prism_gpu_target_for_device (const char *device_name,
                                                   guint       compute_capability);

/**
 * prism_gpu_target_load_file:
 * @path: a "prism-gpu" file (docs/cost-model.md)
 *
 * Reads and validates one target: every field present, of the right type
 * and in range (bandwidth points ascending and positive).
 *
 * Returns: (transfer full) (nullable): the target, freed with
 *   prism_gpu_target_free(); %NULL with %PRISM_ERROR_PARSE or
 *   %PRISM_ERROR_VERSION and a message naming the file and the field
 */
PrismGpuTarget       *prism_gpu_target_load_file (const char   *path,
                                                  GError      **error);
/* The same from text; @origin names it in messages.  (transfer full) */
PrismGpuTarget       *prism_gpu_target_load_data (const char   *data,
                                                  gssize        length,
                                                  const char   *origin,
                                                  GError      **error);
void                  prism_gpu_target_free      (PrismGpuTarget *target);

/* Achievable DRAM bandwidth in GB/s with @kib_per_sm in flight on every SM:
 * linear between the curve's points, proportional below the first, flat
 * above the last, never above dram_gbs. */
double                prism_gpu_target_dram_gbs  (const PrismGpuTarget *target,
                                                  double                kib_per_sm);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrismGpuTarget, prism_gpu_target_free)

G_END_DECLS
