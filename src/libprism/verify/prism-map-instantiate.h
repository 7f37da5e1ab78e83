/* prism-map-instantiate.h — from an sGraph to candidates with concrete maps
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "prism-graph.h"
#include "prism-sgraph.h"

G_BEGIN_DECLS

/**
 * PrismMapStats:
 *
 * What the map instantiation enumerated and why it dropped what it dropped
 * (counters accumulate over calls).
 */
typedef struct
{
  guint64 assignments;   /* per-kernel map choices, canonical under grid-axis permutation */
  guint64 no_split;      /* … that split a dim that must stay whole (rms_norm rows …) */
  guint64 no_omap;       /* … whose output maps cannot be derived */
  guint64 combinations;  /* choices combined over the kernels of a graph */
  guint64 truncated;     /* combinations beyond the limit, not tried */
  guint64 shape;         /* the rebuilt graph breaks a shape rule */
  guint64 output_shape;  /* its outputs differ from the program's */
  guint64 duplicates;    /* same candidate as one already produced by this call */
  guint64 unsized;       /* kernel map choices with no valid size on the target (pipeline) */
  guint64 dominated;     /* combinations predicted slower than the ones kept (pipeline) */
  guint64 candidates;
} PrismMapStats;

void prism_map_stats_add (PrismMapStats       *into,
                          const PrismMapStats *from);

/**
 * PrismKernelChoice:
 *
 * One choice of maps for one custom kernel: @n_axes grid axes (0 = a single
 * block), whether the loop is used, and the maps.
 */
typedef struct
{
  guint n_axes;
  gboolean loop;
  int imap[PRISM_MAX_OP_INPUTS][PRISM_MAX_GRID_DIMS];
  int fmap[PRISM_MAX_OP_INPUTS];
  int omap[PRISM_MAX_OP_OUTPUTS][PRISM_MAX_GRID_DIMS];
} PrismKernelChoice;

/**
 * prism_map_enumerate_kernel:
 * @constraints: what the search recorded about the kernel
 * @max_grid_dims: 1 to 3
 * @stats: (inout): counters to add to
 *
 * Enumerates the maps of one custom kernel.  Input dims that the search
 * matched form classes (union of the recorded equalities); a class is
 * partitioned as a whole by one grid axis or none, and by the loop or not.
 * Axes are numbered in order of first use, which picks one representative
 * per permutation of the grid axes and never leaves an axis unused (an
 * unused axis is the same kernel with one axis fewer).  A dim marked as not
 * splittable keeps its partition off; output maps follow from where each
 * output dim comes from: the axis that splits it concatenates along it, and
 * an axis that splits none of them sums over the blocks (−1).
 *
 * Returns: (transfer full) (element-type PrismKernelChoice): the choices
 */
GArray    *prism_map_enumerate_kernel (const PrismKernelConstraints *constraints,
                                       guint                         max_grid_dims,
                                       PrismMapStats                *stats);

typedef struct
{
  PrismGraph *graph;   /* concrete maps; grid sizes gx<k>, gy<k>, gz<k> and loop F<k> are variables */
  char *key;           /* prism_graph_canonical_key (graph, MAPS | SIZES) */
} PrismMapCandidate;

void       prism_map_candidate_free   (PrismMapCandidate *candidate);

/**
 * prism_map_build:
 * @sgraph: a complete symbolic sGraph
 * @program: the input program (its outputs' shapes)
 * @choices: (array): per custom kernel in op order, its maps, or %NULL to
 *   keep that kernel symbolic (its outputs keep their unpartitioned shapes,
 *   so the other kernels can be instantiated and costed one at a time)
 * @n_choices: the number of custom kernels
 * @stats: (inout) (nullable): counters to add to (shape, output_shape)
 *
 * Rebuilds @sgraph with the given maps, grid sizes gx<k>, gy<k>, gz<k> and
 * loop range F<k> as variables (only those a map uses), checking every
 * shape rule again, and, when every kernel is instantiated, that the
 * outputs have the program's shapes.
 *
 * Returns: (transfer full) (nullable): the graph, or %NULL if it is not valid
 */
PrismGraph *prism_map_build           (const PrismSGraph       *sgraph,
                                       const PrismGraph        *program,
                                       const PrismKernelChoice * const *choices,
                                       guint                    n_choices,
                                       PrismMapStats           *stats);

/**
 * prism_map_instantiate:
 * @sgraph: a complete sGraph
 * @program: the input program (its outputs' shapes)
 * @max_grid_dims: 1 to 3
 * @max_combinations: at most this many combinations over the kernels (0 = no limit)
 * @stats: (inout) (nullable): counters to add to
 *
 * Rebuilds @sgraph once per combination of its kernels' map choices, with
 * concrete maps and symbolic sizes (every shape rule checked again by the
 * builders), keeps those whose outputs have the program's shapes and drops
 * duplicates.  An enumerative sGraph (already concrete) gives itself.
 *
 * Returns: (transfer full) (element-type PrismMapCandidate): the candidates,
 *   or %NULL with @error on bad input
 */
GPtrArray *prism_map_instantiate      (const PrismSGraph *sgraph,
                                       const PrismGraph  *program,
                                       guint              max_grid_dims,
                                       guint64            max_combinations,
                                       PrismMapStats     *stats,
                                       GError           **error);

G_END_DECLS
