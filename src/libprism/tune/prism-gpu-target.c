/* prism-gpu-target.c — what the cost model knows about each GPU
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Datasheet figures (NVIDIA H100, H200 and A100 datasheets; dense tensor
 * throughput without sparsity).  L2 bandwidth and launch overhead are not on
 * datasheets: they are round figures of published microbenchmarks, used only
 * to rank candidates.
 */
#include "config.h"

#include "prism-gpu-target.h"

static const PrismGpuTarget targets[] = {
  {
    .name = "h100",
    .display_name = "NVIDIA H100 SXM5 80 GB",
    .compute_capability = 90,
    .sm_count = 132,
    .dram_gbs = 3350,
    .l2_gbs = 7000,
    .l2_mb = 50,
    .tensor_tflops = 989.4,
    .fp32_tflops = 66.9,
    .smem_per_block_kb = 227,
    .smem_per_sm_kb = 228,
    .max_threads_per_block = 1024,
    .max_threads_per_sm = 2048,
    .max_blocks_per_sm = 32,
    .launch_us = 2.5,
  },
  {
    .name = "h200",
    .display_name = "NVIDIA H200 SXM 141 GB",
    .compute_capability = 90,
    .sm_count = 132,
    .dram_gbs = 4800,
    .l2_gbs = 7000,
    .l2_mb = 50,
    .tensor_tflops = 989.4,
    .fp32_tflops = 66.9,
    .smem_per_block_kb = 227,
    .smem_per_sm_kb = 228,
    .max_threads_per_block = 1024,
    .max_threads_per_sm = 2048,
    .max_blocks_per_sm = 32,
    .launch_us = 2.5,
  },
  {
    .name = "a100",
    .display_name = "NVIDIA A100 SXM4 80 GB",
    .compute_capability = 80,
    .sm_count = 108,
    .dram_gbs = 2039,
    .l2_gbs = 4000,
    .l2_mb = 40,
    .tensor_tflops = 312,
    .fp32_tflops = 19.5,
    .smem_per_block_kb = 163,
    .smem_per_sm_kb = 164,
    .max_threads_per_block = 1024,
    .max_threads_per_sm = 2048,
    .max_blocks_per_sm = 32,
    .launch_us = 3.0,
  },
};

const PrismGpuTarget *
prism_gpu_target_list (guint *n_targets)
{
  if (n_targets != NULL)
    *n_targets = G_N_ELEMENTS (targets);
  return targets;
}

const PrismGpuTarget *
prism_gpu_target_lookup (const char *name)
{
  for (guint i = 0; name != NULL && i < G_N_ELEMENTS (targets); i++)
    if (g_ascii_strcasecmp (targets[i].name, name) == 0)
      return &targets[i];
  return NULL;
}

const PrismGpuTarget *
prism_gpu_target_default (void)
{
  return &targets[0];
}
