/* prism-screen.h — a fast randomized screen of candidates against the program
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "prism-graph.h"

G_BEGIN_DECLS

/**
 * PrismScreenResult:
 *
 * The outcome of running a candidate and the program on the same random
 * inputs with the CPU interpreter (f64) and comparing every output.
 */
typedef struct
{
  gboolean ok;          /* every output within tolerance for every seed */
  gboolean shrunk;      /* ran at shrunk shapes (see prism_screen_check()) */
  guint n_seeds;
  guint64 first_seed;
  double max_error;     /* worst normwise relative error over outputs and seeds */
  double seconds;
  char sizes[160];      /* the sizes it ran with: "X:8x16 W:16x16; gx0=2, F0=4" */
} PrismScreenResult;

typedef struct _PrismScreen PrismScreen;

/**
 * prism_screen_new:
 * @reference: the program (concrete; copied)
 * @n_seeds: random input sets per check (≥ 1)
 * @first_seed: seed of the first set; set k uses @first_seed + k
 * @tolerance: largest accepted normwise relative error (≤ 0: 1e-9)
 *
 * Returns: (transfer full) (nullable): the checker, or %NULL with @error
 */
PrismScreen *prism_screen_new   (const PrismGraph  *reference,
                                            guint              n_seeds,
                                            guint64            first_seed,
                                            double             tolerance,
                                            GError           **error);
void              prism_screen_free  (PrismScreen  *check);

/**
 * prism_screen_check:
 * @check: a checker
 * @candidate: a kernel graph with concrete maps; grid sizes and loop
 *   ranges may be symbolic or concrete
 * @result: (out): the outcome
 *
 * A fast screen: rebuilds the program and @candidate with every distinct
 * input size larger than 4 replaced by a small one (8, 16, 24, … — distinct
 * sizes stay distinct, multiples of 8 so that splits by 2 and 4 divide), and
 * compares on random inputs (f64, tolerance 1e-9) with the grid sizes and
 * loop ranges set to 2 or 4: one round per bit of the variables' indices,
 * variable v getting 4 where that bit of v is set, so that any two variables
 * differ in some round and a graph right only when two sizes are equal is
 * caught (where 2/4 does not divide: 2, else 1).  Every op of the IR is uniform in
 * the sizes, so a candidate that differs at the small shape differs at the
 * real one.  Safe to call from several threads at once.
 *
 * Returns: %FALSE with @error when the candidate cannot be rebuilt or run
 */
gboolean          prism_screen_check (PrismScreen  *check,
                                            const PrismGraph  *candidate,
                                            PrismScreenResult *result,
                                            GError           **error);

/**
 * prism_screen_check_full:
 * @check: a checker
 * @candidate: a kernel graph with concrete maps
 * @values: (array length=n_values) (nullable): values of its size
 *   variables (a valid assignment); %NULL if it is concrete
 * @result: (out): the outcome
 *
 * Runs @candidate instantiated with @values and the program at the real
 * shapes.  Safe to call from several threads at once.
 *
 * Returns: %FALSE with @error when the candidate cannot be instantiated or run
 */
gboolean          prism_screen_check_full  (PrismScreen  *check,
                                            const PrismGraph  *candidate,
                                            const gint64      *values,
                                            guint              n_values,
                                            PrismScreenResult *result,
                                            GError           **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrismScreen, prism_screen_free)

G_END_DECLS
