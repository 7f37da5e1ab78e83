/* prism-cost-model.h — predicted times of kernel graphs, from their launch plans
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "prism-gpu-target.h"
#include "prism-graph.h"
#include "prism-kernel-plan.h"
#include "prism-launch.h"

G_BEGIN_DECLS

/**
 * PrismBaselineKind:
 * @PRISM_BASELINE_VENDOR: the unfused program with its matmuls through
 *   cuBLASLt, every other op as our lowering runs it — what a user would
 *   otherwise run
 * @PRISM_BASELINE_LOWERED: the unfused program with every op through our
 *   own lowering (prism-lower.c)
 *
 * What a speedup is against.
 */
typedef enum
{
  PRISM_BASELINE_VENDOR,
  PRISM_BASELINE_LOWERED,
} PrismBaselineKind;

/* "vendor", "prism-lowered" (static) */
const char *prism_baseline_kind_to_string   (PrismBaselineKind  kind);
gboolean    prism_baseline_kind_from_string (const char        *name,
                                             PrismBaselineKind *kind);

/**
 * PrismOpCost:
 * @launch: the plan's account of the launch (prism-launch.h)
 *
 * The predicted time of one launch: the launch gap plus the largest of its
 * DRAM time (at the bandwidth its bytes in flight can draw), its L2 time,
 * its compute time (at the rate of the path the code generator emits, for
 * the warps that do the work) and its latency chain (one DRAM latency per
 * wave, and per loop iteration one latency over the ring's depth).
 */
typedef struct
{
  double us;            /* total */
  double launch_us;
  double memory_us;
  double l2_us;
  double compute_us;
  double latency_us;
  guint n_launches;     /* prism_cost_model_op(): launches the op takes, their times summed */
  PrismLaunch launch;   /* the (first) launch */
} PrismOpCost;

/**
 * PrismCostEstimate:
 * @physics_us: what no program computing the same outputs can beat on the
 *   target: its inputs and outputs once over the DRAM bandwidth, its FLOPs
 *   over the peak rate (every prediction is at least this)
 *
 * The predicted time of a whole graph: the sum over its launches.
 */
typedef struct
{
  double total_us;
  guint n_launches;
  double memory_us;     /* sums of the per-launch components */
  double compute_us;
  double latency_us;
  double launch_us;
  double physics_us;
} PrismCostEstimate;

/**
 * prism_cost_model_launch:
 * @target: the GPU
 * @launch: a launch as planned (prism_kernel_plan_describe() or a vendor GEMM)
 * @out: (out): its cost, @out->launch a copy of @launch
 */
void     prism_cost_model_launch   (const PrismGpuTarget *target,
                                    const PrismLaunch    *launch,
                                    PrismOpCost          *out);

/**
 * prism_cost_model_floor_at_vendor:
 * @target: the GPU
 * @graph: a kernel graph with concrete tensor shapes
 * @op_index: an op of @graph
 * @cost: (inout): the predicted cost of that op as our own kernel
 *
 * Our lowering of one predefined op is not ranked above the vendor library
 * without a measurement: when @op_index is a custom kernel that computes
 * nothing but one matmul of two of its inputs, @cost is raised to what
 * cuBLASLt's GEMM of the same operands is predicted to cost, if that is
 * more.  Anything else (a fusion) is left as it is.
 */
void     prism_cost_model_floor_at_vendor (const PrismGpuTarget *target,
                                           const PrismGraph     *graph,
                                           guint                 op_index,
                                           PrismOpCost          *cost);

/**
 * prism_cost_model_plan_us:
 * @target: the GPU
 * @plan: a planned kernel (prism_kernel_plan_new())
 *
 * Returns: the predicted µs of every launch the kernel takes (itself and,
 *   when it has one, its combine kernel), summed
 */
double   prism_cost_model_plan_us  (const PrismGpuTarget  *target,
                                    const PrismKernelPlan *plan);

/**
 * prism_cost_model_op:
 * @target: the GPU
 * @graph: a kernel graph
 * @op_index: a predefined op or a KERNEL op of @graph
 * @values: (array length=n_values) (nullable): values of the size variables
 * @out: (out): the cost
 *
 * Plans the op as the code generator would (a KERNEL op's body at @values;
 * a predefined op lowered, or, with %PRISM_BASELINE_VENDOR priced as
 * cuBLASLt when it is a matmul) and prices the plan.
 *
 * Returns: %FALSE if a size is not a positive integer under @values or the
 *   kernel does not fit the target
 */
gboolean prism_cost_model_op       (const PrismGpuTarget *target,
                                    const PrismGraph     *graph,
                                    guint                 op_index,
                                    const gint64         *values,
                                    guint                 n_values,
                                    PrismOpCost          *out);

/* The same with the vendor baseline's pricing of predefined matmuls. */
gboolean prism_cost_model_op_full  (const PrismGpuTarget *target,
                                    const PrismGraph     *graph,
                                    guint                 op_index,
                                    const gint64         *values,
                                    guint                 n_values,
                                    PrismBaselineKind     kind,
                                    PrismOpCost          *out);

/**
 * prism_cost_model_predict:
 * @target: the GPU
 * @graph: a kernel graph
 * @values: (array length=n_values) (nullable): values of the size variables
 * @out: (out): the estimate
 *
 * Predicts the time of @graph as generated: every launch the emitter makes
 * (a custom kernel, a lowered predefined op, a copy for an output that is an
 * input or another output), each planned and priced.
 *
 * Returns: %FALSE with @error if a size is not concrete under @values or a
 *   kernel does not fit the target
 */
gboolean prism_cost_model_predict  (const PrismGpuTarget *target,
                                    const PrismGraph     *graph,
                                    const gint64         *values,
                                    guint                 n_values,
                                    PrismCostEstimate    *out,
                                    GError              **error);

/* prism_cost_model_predict() of the unfused program as the baseline @kind
 * runs it. */
gboolean prism_cost_model_predict_baseline (const PrismGpuTarget *target,
                                            const PrismGraph     *program,
                                            PrismBaselineKind     kind,
                                            PrismCostEstimate    *out,
                                            GError              **error);

/**
 * prism_cost_model_predict_launches:
 * @kind: how predefined matmuls run (%PRISM_BASELINE_VENDOR: cuBLASLt)
 * @costs: (element-type PrismOpCost): receives every launch's cost, in
 *   launch order (the account of what the model priced, for people)
 *
 * prism_cost_model_predict() with the details.
 */
gboolean prism_cost_model_predict_launches (const PrismGpuTarget *target,
                                            const PrismGraph     *graph,
                                            const gint64         *values,
                                            guint                 n_values,
                                            PrismBaselineKind     kind,
                                            GArray               *costs,
                                            PrismCostEstimate    *out,
                                            GError              **error);

/* Launches the generated program of @graph makes (kernels, predefined ops,
 * output copies, and a combine kernel after a kernel whose partials are
 * many: prism_kernel_plan_n_launches()), planned for the default target;
 * a kernel whose sizes are symbolic counts once. */
guint    prism_cost_model_count_launches (const PrismGraph *graph);

/* The physics bound of @graph on @target in µs (see PrismCostEstimate);
 * -1 when its kernel-level shapes are not concrete. */
double   prism_cost_model_physics_us     (const PrismGpuTarget *target,
                                          const PrismGraph     *graph);

G_END_DECLS
