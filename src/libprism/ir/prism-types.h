/* prism-types.h — data types and operator kinds of both graph levels
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define PRISM_MAX_DIMS 4
#define PRISM_MAX_GRID_DIMS 3

typedef enum
{
  PRISM_DTYPE_F16,
  PRISM_DTYPE_BF16,
  PRISM_DTYPE_F32,
  PRISM_N_DTYPES
} PrismDtype;

typedef enum
{
  PRISM_LEVEL_KERNEL,  /* device level: predefined ops and custom kernels */
  PRISM_LEVEL_BLOCK,   /* the body of a custom kernel, run by every thread block */
} PrismLevel;

/* Operators of both levels.  The JSON format names them by the strings of
 * prism_op_kind_to_string(), never by these numbers. */
typedef enum
{
  PRISM_OP_INPUT,        /* kernel: graph input; block: tile of a kernel input (imap/fmap) */
  PRISM_OP_OUTPUT,       /* kernel: graph output; block: tile written out (omap) */
  PRISM_OP_MATMUL,       /* batched, A[-1] == B[-2] */
  /* elementwise unary */
  PRISM_OP_EXP,
  PRISM_OP_SQUARE,
  PRISM_OP_SQRT,
  PRISM_OP_SILU,
  PRISM_OP_GELU,
  PRISM_OP_RELU,
  PRISM_OP_NEG,
  /* elementwise binary, with broadcasting */
  PRISM_OP_ADD,
  PRISM_OP_SUB,
  PRISM_OP_MUL,
  PRISM_OP_DIV,
  PRISM_OP_POW,
  /* reductions and normalisation */
  PRISM_OP_SUM,          /* sum over attrs.dim, kept as size 1 */
  PRISM_OP_RMS_NORM,     /* x / sqrt(mean(x²)) over the trailing attrs.norm_dims dims */
  PRISM_OP_KERNEL,       /* kernel level: a custom kernel whose body is a block graph */
  /* block level only */
  PRISM_OP_CONCAT,       /* concat of two tiles along attrs.dim */
  PRISM_OP_ACCUM,            /* Σ over loop iterations */
  PRISM_OP_ACCUM_SUM,        /* Σ over iterations and the last dim (last dim → 1) */
  PRISM_OP_ACCUM_MEAN,       /* ACCUM_SUM / (F · last dim) */
  PRISM_OP_ACCUM_RMS,        /* sqrt(Σ x² / (F · last dim)) */
  PRISM_OP_ACCUM_SUM_TODIMX, /* strided partial sums over the last dim, to attrs.dimx */
  PRISM_OP_ACCUM_MAX,        /* running max over iterations */
  PRISM_OP_ACCUM_RESCALE,    /* acc = acc · s + x, s the second input (online softmax) */
  PRISM_OP_ACCUM_SUM_RESCALE,/* acc = acc · s + Σ_lastdim x */
  /* Added after the block-level kinds so that the numbers above (and the
   * search's hashes of them) stay as they were. */
  PRISM_OP_MAX,          /* maximum over attrs.dim, kept as size 1 */
  PRISM_OP_MEAN,         /* mean over attrs.dim, kept as size 1 */
  PRISM_OP_MAXIMUM,      /* elementwise binary maximum, with broadcasting */
  PRISM_OP_TRANSPOSE,    /* output dim d is input dim attrs.perm[d] */
  PRISM_OP_CONSTANT,     /* no inputs: attrs.value in a tensor whose dims are all 1 */
  /* Online softmax (block level): the running value of an accum_max, read
   * inside the loop, and accumulators rescaled by exp(previous − current)
   * of that running max. */
  PRISM_OP_RUNNING_MAX,      /* inside the loop: the accum_max input's max so far, this iteration included */
  PRISM_OP_ACCUM_ONLINE,     /* acc = acc · exp(m_prev − m) + x, m the second input (a running_max) */
  PRISM_OP_ACCUM_SUM_ONLINE, /* acc = acc · exp(m_prev − m) + Σ_lastdim x */
  PRISM_N_OPS
} PrismOpKind;

const char *prism_dtype_to_string     (PrismDtype   dtype);
/* Returns FALSE for an unknown name. */
gboolean    prism_dtype_from_string   (const char  *name,
                                       PrismDtype  *out);
guint       prism_dtype_size          (PrismDtype   dtype);

const char *prism_op_kind_to_string   (PrismOpKind  kind);
gboolean    prism_op_kind_from_string (const char  *name,
                                       PrismOpKind *out);

gboolean    prism_op_kind_is_unary    (PrismOpKind  kind);
gboolean    prism_op_kind_is_binary   (PrismOpKind  kind);
gboolean    prism_op_kind_is_accum    (PrismOpKind  kind);
/* ACCUM_ONLINE, ACCUM_SUM_ONLINE: rescaled by their running_max input. */
gboolean    prism_op_kind_is_online   (PrismOpKind  kind);
/* SUM, MAX, MEAN: reduce attrs.dim to size 1. */
gboolean    prism_op_kind_is_reduction (PrismOpKind kind);
/* TRUE if the op may appear at @level. */
gboolean    prism_op_kind_at_level    (PrismOpKind  kind,
                                       PrismLevel   level);
/* Number of tensor inputs, or -1 for "any" (kernel). */
int         prism_op_kind_arity       (PrismOpKind  kind);
gboolean    prism_op_kind_is_commutative (PrismOpKind kind);

G_END_DECLS
