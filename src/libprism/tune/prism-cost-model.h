/* prism-cost-model.h — a roofline model of kernel graphs on a target GPU
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "prism-gpu-target.h"
#include "prism-graph.h"

G_BEGIN_DECLS

/**
 * PrismOpCost:
 *
 * The predicted time of one kernel launch (a predefined op or a custom
 * kernel): launch overhead plus the largest of memory time, compute time and
 * the latency floor of its loop.
 */
typedef struct
{
  double us;            /* total */
  double memory_us;
  double compute_us;
  double latency_us;
  guint64 dram_bytes;   /* bytes that must come from or go to DRAM */
  guint64 l2_bytes;     /* re-reads of replicated tiles, served by L2 */
  double flops;
  guint64 blocks;       /* custom kernels: thread blocks */
  guint64 smem_bytes;   /* custom kernels: shared memory of one block */
} PrismOpCost;

/**
 * PrismCostEstimate:
 *
 * The predicted time of a whole graph: the sum over its kernel launches.
 */
typedef struct
{
  double total_us;
  guint n_launches;
  double memory_us;     /* sums of the per-launch components */
  double compute_us;
  double latency_us;
  double launch_us;
} PrismCostEstimate;

/**
 * prism_cost_model_op:
 * @target: the GPU
 * @graph: a kernel graph
 * @op_index: a predefined op or a KERNEL op of @graph
 * @values: (array length=n_values) (nullable): values of the size variables
 * @out: (out): the cost
 *
 * Returns: %FALSE if some size of the op is not a positive integer under @values
 */
gboolean prism_cost_model_op      (const PrismGpuTarget *target,
                                   const PrismGraph     *graph,
                                   guint                 op_index,
                                   const gint64         *values,
                                   guint                 n_values,
                                   PrismOpCost          *out);

/**
 * prism_cost_model_predict:
 * @target: the GPU
 * @graph: a kernel graph
 * @values: (array length=n_values) (nullable): values of the size variables
 * @out: (out): the estimate
 *
 * Predicts the time of @graph, each predefined op and each custom kernel
 * being one launch.  Used for the unfused program (every op its own kernel)
 * and for every candidate assignment.
 *
 * Returns: %FALSE with @error if a size is not concrete under @values
 */
gboolean prism_cost_model_predict (const PrismGpuTarget *target,
                                   const PrismGraph     *graph,
                                   const gint64         *values,
                                   guint                 n_values,
                                   PrismCostEstimate    *out,
                                   GError              **error);

G_END_DECLS
