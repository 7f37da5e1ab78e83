/* prism-kernel-plan.h — how one custom kernel is laid out on the GPU
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "prism-gpu-target.h"
#include "prism-graph.h"
#include "prism-launch.h"

G_BEGIN_DECLS

/* Bytes in flight per SM that the ring depth aims for: about what an
 * H100/H200 needs to reach its HBM bandwidth (Little's law: ~4 TB/s over
 * 132 SMs at ~0.7 µs). */
#define PRISM_PIPELINE_GOAL_BYTES (32 * 1024)
#define PRISM_MAX_STAGES          8
/* Partials of one output tile (f32 bytes, all splits) past which a combine
 * kernel adds them up instead of the last block to arrive: one SM draws
 * about 37–53 GB/s of L2 on the built-in targets, so 128 KiB take one block
 * 2.5–3.5 µs, more than the second launch's gap. */
#define PRISM_COMBINE_MIN_BYTES   (128 * 1024)

/**
 * PrismKernelPlanOptions:
 * @target: (nullable): the GPU whose occupancy the ring depth is chosen for;
 *   %NULL: the first built-in target of compute capability @sm
 * @sm: compute capability × 10 (80, 90); 0 means the target's
 * @smem_limit: dynamic shared memory one block may use; 0 means the target's
 * @no_pipeline: load loop tiles synchronously (no cp.async ring)
 * @max_stages: deepest ring (0 means %PRISM_MAX_STAGES)
 */
typedef struct
{
  const PrismGpuTarget *target;
  guint sm;
  gsize smem_limit;
  gboolean no_pipeline;
  guint max_stages;
} PrismKernelPlanOptions;

typedef struct _PrismKernelPlan PrismKernelPlan;

/**
 * prism_kernel_plan_new:
 * @body: a block graph with concrete maps; its sizes concrete or symbolic
 * @values: (array length=n_values) (nullable): values of the size variables
 *
 * Plans the kernel as the emitter generates it: live ops, matmul paths and
 * their split over the warps, storage types, the schedule, the loop tiles'
 * ring depth, shared memory, and the outputs summed over blocks.
 *
 * Returns: (transfer full) (nullable): the plan; %NULL with
 *   %PRISM_ERROR_UNSUPPORTED when a size is not a positive integer under
 *   @values, %PRISM_ERROR_LIMIT when the kernel does not fit the target
 */
PrismKernelPlan *prism_kernel_plan_new      (const PrismGraph              *body,
                                             const gint64                  *values,
                                             guint                          n_values,
                                             const PrismKernelPlanOptions  *options,
                                             GError                       **error);
void             prism_kernel_plan_free     (PrismKernelPlan               *plan);

/* The launch's static account (prism-launch.h): grid, shared memory, ring,
 * occupancy, paths and work — of the kernel proper (launch 0). */
void             prism_kernel_plan_describe (const PrismKernelPlan         *plan,
                                             PrismLaunch                   *out);

/* Launches the kernel op takes: 1, or 2 when outputs summed over many
 * blocks are added up by a combine kernel launched right after it. */
guint            prism_kernel_plan_n_launches (const PrismKernelPlan      *plan);

/**
 * prism_kernel_plan_describe_launch:
 * @index: 0 (the kernel) … prism_kernel_plan_n_launches() − 1 (its combine
 *   kernel)
 * @out: (out): the launch's static account
 */
void             prism_kernel_plan_describe_launch (const PrismKernelPlan *plan,
                                                    guint                  index,
                                                    PrismLaunch           *out);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrismKernelPlan, prism_kernel_plan_free)

G_END_DECLS
