/* prism-gpu-target.h — what the cost model knows about each GPU
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/**
 * PrismGpuTarget:
 *
 * Datasheet figures of one GPU (dense throughput, no sparsity) and the few
 * calibration constants of the roofline model.  Read-only tables.
 */
typedef struct
{
  const char *name;              /* "h100", as given to --target */
  const char *display_name;      /* "NVIDIA H100 SXM5 80 GB" */
  guint compute_capability;      /* 90, 80 */
  guint sm_count;
  double dram_gbs;               /* HBM bandwidth, GB/s */
  double l2_gbs;                 /* L2 bandwidth (approximate), GB/s */
  double l2_mb;
  double tensor_tflops;          /* f16/bf16 tensor cores, f32 accumulate */
  double fp32_tflops;            /* CUDA cores */
  guint smem_per_block_kb;       /* largest dynamic shared memory of one block */
  guint smem_per_sm_kb;
  guint max_threads_per_block;
  guint max_threads_per_sm;
  guint max_blocks_per_sm;
  double launch_us;              /* launch and tail of one kernel */
} PrismGpuTarget;

/* The tables in a stable order (h100, h200, a100). */
const PrismGpuTarget *prism_gpu_target_list    (guint       *n_targets);
/* NULL for an unknown name. */
const PrismGpuTarget *prism_gpu_target_lookup  (const char  *name);
/* The target used when none is given (h100). */
const PrismGpuTarget *prism_gpu_target_default (void);

G_END_DECLS
