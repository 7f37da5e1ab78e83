/* prism-interp.h — the CPU interpreter: ground truth for every other stage
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "prism-buffer.h"
#include "prism-graph.h"

G_BEGIN_DECLS

/*
 * Numerical conventions (the generated CUDA code follows the same ones):
 *
 * - gelu is the exact form 0.5 · x · (1 + erf(x / √2)), not the tanh
 *   approximation.
 * - rms_norm is x / sqrt(mean(x²) + eps) (with eps 0, the default, an all-zero row gives NaN).
 * - silu is x / (1 + exp(-x)); relu(NaN) is 0.
 * - In PRISM_PRECISION_F32 values are stored as doubles but rounded to float
 *   after every elementwise op, after every reduction (matmul, sum, rms_norm
 *   and the per-iteration reduction of accum_sum/…) and after every
 *   accumulator step, so results behave like f32 arithmetic with exact
 *   accumulation inside one op.  Graph inputs are rounded to float on entry.
 *   PRISM_PRECISION_F64 rounds nothing.
 * - Every sum runs in a fixed order (reduced index ascending; blocks summed
 *   through omap -1 in grid order, x fastest), so results do not depend on
 *   the number of threads.
 */

typedef enum
{
  PRISM_PRECISION_F32,
  PRISM_PRECISION_F64,
} PrismPrecision;

typedef struct
{
  PrismPrecision precision;
  guint n_threads;     /* 0 = number of processors */
  /* Budgets, checked before anything is allocated or run (see
   * prism_interp_check_budget()); 0 = the process default. */
  guint64 max_memory;  /* bytes held at once: inputs, live tensors, outputs, tiles */
  guint64 max_work;    /* element operations */
} PrismInterpOptions;

/* The default work budget: about a minute or two of one core. */
#define PRISM_INTERP_DEFAULT_MAX_WORK (G_GUINT64_CONSTANT (16000000000))

/**
 * prism_interp_set_default_budget:
 * @max_memory: bytes, or 0 to keep the current default
 * @max_work: element operations, or 0 to keep the current default
 *
 * Sets the budgets of every run whose options leave them at 0, the runs the
 * verifier and the search make included: a command line calls it once from
 * its options (`--max-memory`, `--max-work`).  The defaults are half the
 * physical memory and %PRISM_INTERP_DEFAULT_MAX_WORK.  Thread-safe.
 */
void         prism_interp_set_default_budget   (guint64            max_memory,
                                                guint64            max_work);
guint64      prism_interp_get_default_max_memory (void);
guint64      prism_interp_get_default_max_work (void);

/**
 * PrismInterpCost:
 * @memory: the most bytes the run holds at once (inputs, the tensors still
 *   to be read, the outputs, every thread's tiles of the running kernel)
 * @work: element operations: a predefined op costs its output's elements
 *   times what each one reduces (a matmul's inner size, a sum's or
 *   rms_norm's extent); a custom kernel costs, per block, the loop range
 *   times the elements of its loop ops (loads and accumulator steps
 *   included; tiles the same at every iteration once) plus those of its
 *   epilogue and stores; every op executed counts 16 more
 */
typedef struct
{
  guint64 memory;
  guint64 work;
} PrismInterpCost;

/**
 * prism_interp_check_budget:
 * @graph: a concrete kernel graph
 * @options: (nullable): the run's options (their budgets, threads, precision)
 * @cost: (out) (optional): what the run would need (saturated at G_MAXUINT64)
 * @error: return location for a #GError
 *
 * What prism_interp_run() checks first, with overflow-checked arithmetic:
 * fails with %PRISM_ERROR_LIMIT, naming the tensor or op and the figures,
 * when the run would hold more memory or do more work than its budgets.
 * Inputs are counted as prism_interp_make_inputs() makes them.
 *
 * Returns: %TRUE if the run fits
 */
gboolean     prism_interp_check_budget   (const PrismGraph  *graph,
                                          const PrismInterpOptions *options,
                                          PrismInterpCost   *cost,
                                          GError           **error);

/* One random buffer per graph input, input k seeded with seed + k, values
 * uniform in [-1, 1) rounded to the input's dtype (so they are exactly what
 * a GPU run of the same graph is given).  When the inputs do not fit the
 * default memory budget together, or the calling thread's current
 * #GCancellable is cancelled (prism_cancelled()), each gets a buffer with
 * its dims but no data (numel 0, data %NULL), which prism_interp_run()
 * refuses with the budget's (or the stop's) error. (transfer full) */
GPtrArray   *prism_interp_make_inputs    (const PrismGraph  *graph,
                                          guint64            seed);

/**
 * prism_interp_run:
 * @graph: a concrete kernel graph (prism_graph_is_concrete())
 * @inputs: (array length=n_inputs): one buffer per graph input, in input order
 * @options: (nullable): %NULL = f64, all processors
 *
 * Executes predefined ops directly and custom kernels block by block,
 * iteration by iteration, with the accumulator and epilogue semantics of the
 * IR.  @inputs are not modified.  Fails with %PRISM_ERROR_UNSUPPORTED for a
 * graph that is not concrete, %PRISM_ERROR_INVALID_GRAPH when the inputs
 * do not match the graph's input shapes, %PRISM_ERROR_LIMIT when it does not
 * fit its budgets (prism_interp_check_budget(), before anything runs) and
 * %PRISM_ERROR_CANCELLED when the calling thread's current #GCancellable is
 * cancelled while it runs (checked between ops, blocks, loop iterations and
 * matmul tiles).
 *
 * Returns: (transfer full) (element-type PrismBuffer): one buffer per graph
 *   output in output order, or %NULL with @error set
 */
GPtrArray   *prism_interp_run            (const PrismGraph  *graph,
                                          PrismBuffer * const *inputs,
                                          guint              n_inputs,
                                          const PrismInterpOptions *options,
                                          GError           **error);

G_END_DECLS
