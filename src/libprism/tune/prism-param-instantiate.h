/* prism-param-instantiate.h — choosing grid sizes and loop ranges
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "prism-cost-model.h"
#include "prism-gpu-target.h"
#include "prism-graph.h"

G_BEGIN_DECLS

/* Why size assignments were dropped (counters accumulate over calls). */
typedef struct
{
  guint64 assignments;   /* per-kernel assignments tried */
  guint64 indivisible;   /* a size does not divide a dim it splits */
  guint64 blocks;        /* more thread blocks than allowed */
  guint64 smem;          /* more shared memory than allowed */
  guint64 threads;       /* more threads per block than the target has */
  guint64 valid;
} PrismParamStats;

void prism_param_stats_add (PrismParamStats       *into,
                            const PrismParamStats *from);

typedef struct
{
  guint64 smem_limit;     /* bytes per block; 0 = min(96 KiB, the target's) */
  guint max_blocks;       /* 0 = 4096 */
  guint keep;             /* best assignments kept (0 = 5) */
} PrismParamOptions;

/**
 * PrismParamAssignment:
 *
 * Values for every size variable of a graph (index = variable index, 0 for
 * unused variables) and the predicted time with them.
 */
typedef struct
{
  gint64 *values;
  guint n_values;
  double predicted_us;
} PrismParamAssignment;

void prism_param_assignment_free (PrismParamAssignment *assignment);

/**
 * prism_param_var_candidates:
 * @graph: a kernel graph with symbolic grid sizes and loop ranges
 * @var: a variable index
 * @out: (element-type gint64): receives the candidate values
 *
 * The divisor-based candidates of one variable: the gcd of every constant
 * the variable divides in a tile dim gives the extent it splits, and
 * prism_search_size_candidates() the values for that extent.
 *
 * Returns: %FALSE if @var divides nothing (an unused variable)
 */
gboolean   prism_param_var_candidates (const PrismGraph *graph,
                                       guint             var,
                                       GArray           *out);

/**
 * prism_param_instantiate:
 * @graph: a candidate with concrete maps (sizes symbolic or concrete)
 * @target: the GPU
 * @options: (nullable): limits
 * @stats: (inout) (nullable): counters to add to
 *
 * Enumerates, kernel by kernel, the products of the variables' candidates,
 * drops assignments that do not divide evenly or exceed the target's block,
 * thread or shared-memory limits, predicts the rest with the cost model and
 * combines the best of each kernel (kernels have separate variables and
 * their costs add up).
 *
 * Returns: (transfer full) (element-type PrismParamAssignment): the best
 *   assignments, fastest first; empty if none is valid
 */
GPtrArray *prism_param_instantiate    (const PrismGraph        *graph,
                                       const PrismGpuTarget    *target,
                                       const PrismParamOptions *options,
                                       PrismParamStats         *stats);

/**
 * prism_param_tune_kernel:
 * @graph: a kernel graph
 * @op_index: one of its KERNEL ops (with concrete maps)
 * @target: the GPU
 * @options: (nullable): limits
 * @stats: (inout) (nullable): counters to add to
 *
 * The same as prism_param_instantiate() for one custom kernel alone: its
 * variables' best assignments and that kernel's predicted time (other
 * kernels may still have symbolic maps).
 *
 * Returns: (transfer full) (element-type PrismParamAssignment): fastest first
 */
GPtrArray *prism_param_tune_kernel    (const PrismGraph        *graph,
                                       guint                    op_index,
                                       const PrismGpuTarget    *target,
                                       const PrismParamOptions *options,
                                       PrismParamStats         *stats);

G_END_DECLS
