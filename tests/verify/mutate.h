/* mutate.h — wrong graphs made from right ones, for testing the verifier
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "prism-graph.h"

G_BEGIN_DECLS

/*
 * Mutation operators.  Each names one small edit of a graph with custom
 * kernels; a mutant is rebuilt through the graph builders, so every mutant
 * obeys every shape rule of the IR (edits that break one are dropped).
 * Some mutants stay equivalent (a swapped commutative operand, a smaller
 * loop range): the corpus finds those with the interpreter and sets them
 * aside.
 */
typedef enum
{
  MUT_ACCUM_KIND,      /* an accumulator becomes another kind (accum ↔ accum_sum ↔ mean ↔ rms ↔ max) */
  MUT_IMAP,            /* one imap entry of a block input changes (another dim, or -1) */
  MUT_FMAP,            /* the fmap of a block input changes */
  MUT_OMAP,            /* one omap entry of a block output changes (concat ↔ sum, another dim) */
  MUT_GRID_SIZE,       /* one grid size is doubled or halved */
  MUT_FORLOOP,         /* the loop range is doubled or halved */
  MUT_UNARY,           /* an elementwise unary op becomes another one */
  MUT_BINARY,          /* an elementwise binary op becomes another one */
  MUT_DROP,            /* an op is removed (its output replaced by an operand of the same shape) */
  MUT_DUPLICATE,       /* an op is applied twice (u(u(x)), (a∘b)∘b) */
  MUT_SWAP_OPERANDS,   /* the operands of a binary op or a matmul are swapped */
  MUT_REDUCTION_DIM,   /* a sum's dim, an rms_norm's norm_dims or a todimx's dimx changes */
  MUT_KERNEL_INPUTS,   /* two inputs of a custom kernel are swapped */
  MUT_TILE_SOURCE,     /* a block input reads another kernel input */
  MUT_SWAP_GRID_AXES,  /* two entries of a block input's imap are swapped */
  MUT_REWRITE,         /* a value-preserving rewrite (issue 24's patterns, MutRewrite in b): right */
  MUT_N_KINDS
} MutKind;

/* The rewrites of MUT_REWRITE: each keeps the value in exact arithmetic
 * (a right mutant, which the verifier must prove). */
typedef enum
{
  MUT_RW_MAXIMUM_SELF,    /* y → maximum (y, y) */
  MUT_RW_RELU_MAXIMUM,    /* relu x → maximum (x, 0) */
  MUT_RW_SUB_ADD_NEG,     /* a − b → a + (−b) */
  MUT_RW_EXP_DIV,         /* exp (a − b) → exp a / exp b */
  MUT_RW_TRANSPOSE_ID,    /* y → transpose (y, identity) */
  MUT_RW_MUL_SPLIT,       /* x · c → (x · 2) · (c / 2), c a constant */
  MUT_RW_MEAN_DIV,        /* mean_d x → sum_d x / n */
  MUT_RW_N
} MutRewrite;

const char *mut_kind_to_string (MutKind kind);

typedef struct
{
  MutKind kind;
  int kernel;   /* index of the custom kernel among the graph's kernels */
  int op;       /* block op index (-1 for edits of the kernel itself) */
  int a, b;     /* parameters: axis, value, variant … */
} Mutation;

/* Every mutation site of @graph, valid or not. (transfer full) (element-type Mutation) */
GArray     *mut_enumerate (const PrismGraph *graph);

/* Returns: (transfer full) (nullable): the mutant, or %NULL when the edit
 * breaks a rule of the IR */
PrismGraph *mut_apply     (const PrismGraph *graph,
                           const Mutation   *mutation);

/* "omap k0 op 7 a=0 b=-1" (transfer full) */
char       *mut_to_string (const Mutation   *mutation);

G_END_DECLS
