/* prism-random-check.h — candidates against the reference on random inputs
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "prism-graph.h"

G_BEGIN_DECLS

/* Error above which two f64 results differ: the larger of the normwise
 * relative error max |a − b| / max |b| and the worst element's
 * |a − b| / max (|b|, 1).  Rounding in f64 stays near n · 2^-53 for the sums of a
 * few thousand terms the workloads have (about 1e-13 in practice); a wrong
 * graph is off by at least one block's share of an output, orders of
 * magnitude above 1e-9. */
#define PRISM_RANDOM_TOLERANCE 1e-9

typedef struct
{
  gboolean ran;          /* FALSE: could not run or finish (no valid sizes, too big, stopped
                          * between seeds …): see message; seeds lists those that ran */
  gboolean ok;           /* every seed within PRISM_RANDOM_TOLERANCE */
  GArray *seeds;         /* guint64, the seeds that ran */
  guint64 failing_seed;  /* when !ok: the first seed that differed */
  double max_error;      /* worst over seeds and outputs (+inf: shapes or NaNs differ) */
  double seconds;
  char *sizes;           /* the size assignment used, e.g. "gx0=2, F0=4" ("" when concrete) */
  char *message;
  char *range_message;   /* nullable: on the seed of large values, run in f32, the candidate
                          * is not finite where the reference is (an exponential or a sum
                          * that leaves f32's range: exact in f64, not on a GPU) */
} PrismRandomResult;

void prism_random_result_clear (PrismRandomResult *result);

/**
 * PrismRandomCheck:
 *
 * Runs candidates on the interpreter in f64 against a reference whose
 * outputs are computed once per seed and cached (the search checks many
 * candidates).  Thread-safe: the cache is filled under a lock.
 */
typedef struct _PrismRandomCheck PrismRandomCheck;

/**
 * prism_random_check_new:
 * @reference: a concrete kernel graph (a reference is taken)
 * @n_seeds: seeds per candidate (≥ 1)
 * @first_seed: seeds are @first_seed, @first_seed + 1000, … (input k of a
 *   seed s is filled from s + k, see prism_interp_make_inputs())
 * @n_threads: interpreter threads per run (1 when candidates are checked
 *   from several threads; 0 = one per processor)
 *
 * Returns: (transfer full): the check
 */
PrismRandomCheck *prism_random_check_new  (const PrismGraph  *reference,
                                           guint              n_seeds,
                                           guint64            first_seed,
                                           guint              n_threads);
void              prism_random_check_free (PrismRandomCheck  *check);

/**
 * prism_random_choose_sizes:
 * @graph: a kernel graph, maybe with symbolic sizes
 * @values: (out caller-allocates) (array): one value per variable of @graph
 * @error: return location for a #GError
 *
 * Picks a valid size assignment, preferring values above 1 (2, 4, 8 …) so
 * that every grid axis and loop really splits something, and different
 * values for different variables (so that a graph right only when two sizes
 * are equal is caught): a backtracking search that instantiates the graph
 * (prism_graph_instantiate()) to check every division.
 *
 * Returns: (transfer full) (nullable): the instantiated graph, or %NULL
 *   with %PRISM_ERROR_UNSUPPORTED when no assignment was found
 */
PrismGraph       *prism_random_choose_sizes (const PrismGraph *graph,
                                           gint64            *values,
                                           GError           **error);

/**
 * prism_random_check_run:
 * @check: a check
 * @candidate: a kernel graph with concrete maps; symbolic sizes are
 *   instantiated with prism_random_choose_sizes()
 * @result: (out caller-allocates): the outcome (ran is %FALSE when it could
 *   not run)
 *
 * Runs @candidate on the inputs of every seed and compares each output with
 * the reference's, inputs and outputs bound by name (prism_io_binding_new():
 * an interface that differs is a difference, max_error +inf).  Candidate input k gets the
 * values of the reference input it is bound to; outputs are compared as
 * computed (f64), normwise and element by element (see
 * %PRISM_RANDOM_TOLERANCE).  Seed 1 scales the inputs to unit variance,
 * seed 2 by 8 (large logits); a seed on which the reference is not finite
 * is drawn again (up to four times) and otherwise skipped, and an inf or a
 * NaN of the candidate is a difference.  On seed 2 both also run in f32:
 * a candidate that is not finite where the reference is sets range_message
 * (ok says the f64 comparison only).
 */
void              prism_random_check_run  (PrismRandomCheck  *check,
                                           const PrismGraph  *candidate,
                                           PrismRandomResult *result);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrismRandomCheck, prism_random_check_free)

G_END_DECLS
