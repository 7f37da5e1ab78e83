/* prism-abstract-expr-private.h — the tensor walk shared by the term builder
 * and the pruning oracle
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "prism-abstract-expr.h"

G_BEGIN_DECLS

/* A value the backend could not produce (the oracle: "not in the e-graph"). */
#define PRISM_ABSTRACT_ABSENT (G_MAXUINT - 1)

typedef struct
{
  PrismSymbol add, mul, div, pow;
  PrismSymbol exp, square, sqrt, silu, gelu, relu, neg;
  PrismSymbol sum, rms, concat;
  PrismSymbol accum_rescale, accum_sum_rescale;
  PrismSymbol max, maximum, constant;
} PrismAbstractSymbols;

/* Returns: (transfer none): the operator symbols, interned once per process */
const PrismAbstractSymbols *prism_abstract_symbols (void);

/* How expressions are materialised: as nodes of a term, or as classes of a
 * saturated e-graph found by lookup.  Children are never ABSENT (the walk
 * stops at the first ABSENT value); each function may return ABSENT. */
typedef struct
{
  guint (*node)       (gpointer     data,
                       PrismSymbol  op,
                       guint        n_children,
                       const guint *children);
  guint (*leaf_int)   (gpointer     data,
                       gint64       value);
  guint (*leaf_input) (gpointer     data,
                       guint        index);
} PrismAbstractBackend;

typedef struct
{
  gint64 dims[PRISM_MAX_DIMS];
} PrismAbstractShape;

/* One evaluation context: a kernel graph, its custom kernels' bodies and an
 * optional open block, each tensor with a memo slot.  Small graphs use the
 * caller's buffers (no allocation: the oracle's checks), bigger ones the heap. */
typedef struct
{
  const PrismAbstractBackend *backend;
  gpointer data;
  const PrismAbstractSymbols *sym;
  gboolean untiled;
  const PrismGraph *kernel_graph;
  const PrismGraph *block;
  const guint *block_inputs;

  guint n_slots;
  guint *values;                /* per slot: value, ABSENT, or UNSET */
  PrismAbstractShape *shapes;   /* per slot, valid once the value is set */
  guint *body_base;             /* per kernel op: first slot of its body */
  guint block_base;
  gboolean owns_buffers;
  guint ordinal_op, ordinal;    /* INPUT ops before kernel op ordinal_op */
  guint depth;                  /* of the recursion (see prism-abstract-expr.c) */

  GError *error;                /* the first error; the walk then returns ABSENT */
} PrismAbstractWalk;

#define PRISM_ABSTRACT_WALK_STACK_SLOTS 192
#define PRISM_ABSTRACT_WALK_STACK_OPS   64

/* Buffers a caller may keep on its stack for prism_abstract_walk_init(). */
typedef struct
{
  guint values[PRISM_ABSTRACT_WALK_STACK_SLOTS];
  PrismAbstractShape shapes[PRISM_ABSTRACT_WALK_STACK_SLOTS];
  guint body_base[PRISM_ABSTRACT_WALK_STACK_OPS];
} PrismAbstractWalkStorage;

/* @storage may be NULL (heap).  @mode must not be AUTO. */
void     prism_abstract_walk_init  (PrismAbstractWalk          *walk,
                                    const PrismAbstractBackend *backend,
                                    gpointer                    data,
                                    const PrismGraph           *kernel_graph,
                                    const PrismGraph           *block,
                                    const guint                *block_inputs,
                                    PrismAbstractMode           mode,
                                    PrismAbstractWalkStorage   *storage);
void     prism_abstract_walk_clear (PrismAbstractWalk          *walk);

/* Returns: the tensor's value, or ABSENT (with walk->error set on an error) */
guint    prism_abstract_walk_eval  (PrismAbstractWalk          *walk,
                                    gboolean                    in_block,
                                    guint                       tensor);

/* Test hook: the recursion depth past which the walk uses its explicit
 * stack (default PRISM_ABSTRACT_WALK_STACK_SLOTS; 0: always).  Not
 * thread-safe: set it before any walk runs. */
void     prism_abstract_set_max_recursion (guint depth);

/* Resolves AUTO for these graphs. */
PrismAbstractMode prism_abstract_resolve_mode (const PrismGraph *kernel_graph,
                                    const PrismGraph           *block,
                                    PrismAbstractMode           mode);

G_END_DECLS
