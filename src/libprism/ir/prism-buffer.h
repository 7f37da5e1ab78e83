/* prism-buffer.h — dense tensors of doubles, the interpreter's values
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "prism-types.h"

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

/* A zero-filled buffer of 1 to PRISM_MAX_DIMS positive dims; aborts, as
 * g_new() does, when the memory cannot be had. (transfer full) */
PrismBuffer *prism_buffer_new            (guint              ndims,
                                          const gint64      *dims);
/* The same, or %NULL with PRISM_ERROR_LIMIT when the number of elements or
 * bytes overflows or the allocation fails. (transfer full) */
PrismBuffer *prism_buffer_try_new        (guint              ndims,
                                          const gint64      *dims,
                                          GError           **error);
/* The number of elements of @dims (1 to PRISM_MAX_DIMS positive dims), or
 * FALSE when it, or its size in bytes as doubles, overflows 64 bits. */
gboolean     prism_buffer_numel_checked  (guint              ndims,
                                          const gint64      *dims,
                                          gint64            *numel);
/* (transfer full) */
PrismBuffer *prism_buffer_copy           (const PrismBuffer *buffer);
void         prism_buffer_free           (PrismBuffer       *buffer);
/* TRUE if both have the same rank and dims. */
gboolean     prism_buffer_same_shape     (const PrismBuffer *a,
                                          const PrismBuffer *b);
/* Uniform values in [-1, 1) from a seeded generator (same seed, same values
 * on every machine: a SplitMix64 stream, 53 bits per value). */
void         prism_buffer_fill_random    (PrismBuffer       *buffer,
                                          guint64            seed);
/* prism_buffer_fill_random() then prism_buffer_round_to_dtype() (the same
 * values), in steps between which it stops, returning %FALSE with the
 * buffer half filled, when the calling thread's current cancellable is
 * cancelled (prism_cancelled()): a big input takes seconds. */
gboolean     prism_buffer_fill_random_rounded (PrismBuffer  *buffer,
                                          guint64            seed,
                                          PrismDtype         dtype);
/* Rounds every value to the nearest value of @dtype (ties to even; f16
 * subnormals kept, f16 overflow gives ±inf), as a GPU would store it. */
void         prism_buffer_round_to_dtype (PrismBuffer       *buffer,
                                          PrismDtype         dtype);
/* The same for one value (a constant's value as its dtype stores it). */
double       prism_dtype_round_value     (double             value,
                                          PrismDtype         dtype);
/* max |a - b| / max(max |b|, 1e-30): the normwise error used by every check.
 * Different shapes, or a NaN where the other has none, give +inf. */
double       prism_buffer_max_rel_error  (const PrismBuffer *a,
                                          const PrismBuffer *b);
/* A stable checksum, Σ xᵢ · (1 + (i mod 16) / 16) summed in index order so
 * that permuted values change it, and the L2 norm; printed by `prism run`. */
double       prism_buffer_checksum       (const PrismBuffer *buffer);
double       prism_buffer_norm           (const PrismBuffer *buffer);
/* "[8, 4096]" (transfer full) */
char        *prism_buffer_shape_to_string (const PrismBuffer *buffer);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrismBuffer, prism_buffer_free)

G_END_DECLS
