/* prism-interp.h — the CPU interpreter: ground truth for every other stage
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "prism-graph.h"

G_BEGIN_DECLS

/**
 * PrismBuffer:
 *
 * A dense row-major tensor of doubles (values are rounded to float after
 * every op when the interpreter runs in f32).
 */
typedef struct
{
  guint ndims;
  gint64 dims[PRISM_MAX_DIMS];
  gint64 numel;
  double *data;   /* owned, numel elements */
} PrismBuffer;

PrismBuffer *prism_buffer_new            (guint              ndims,
                                          const gint64      *dims);
PrismBuffer *prism_buffer_copy           (const PrismBuffer *buffer);
void         prism_buffer_free           (PrismBuffer       *buffer);
/* Uniform values in [-1, 1) from a seeded generator (same seed, same values). */
void         prism_buffer_fill_random    (PrismBuffer       *buffer,
                                          guint64            seed);
/* max |a - b| / max(max |b|, 1e-30): the normwise error used by every check. */
double       prism_buffer_max_rel_error  (const PrismBuffer *a,
                                          const PrismBuffer *b);
/* A stable checksum and the L2 norm, printed by `prism run`. */
double       prism_buffer_checksum       (const PrismBuffer *buffer);
double       prism_buffer_norm           (const PrismBuffer *buffer);

typedef enum
{
  PRISM_PRECISION_F32,
  PRISM_PRECISION_F64,
} PrismPrecision;

typedef struct
{
  PrismPrecision precision;
  guint n_threads;     /* 0 = number of processors */
} PrismInterpOptions;

/* One random buffer per graph input, input k seeded with seed + k. (transfer full) */
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
 * IR.
 *
 * Returns: (transfer full) (element-type PrismBuffer): one buffer per graph
 *   output in output order, or %NULL with @error set
 */
GPtrArray   *prism_interp_run            (const PrismGraph  *graph,
                                          PrismBuffer * const *inputs,
                                          guint              n_inputs,
                                          const PrismInterpOptions *options,
                                          GError           **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrismBuffer, prism_buffer_free)

G_END_DECLS
