/* prism-abstract-expr.h — abstract expressions of graph tensors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "prism-graph.h"
#include "prism-term.h"

G_BEGIN_DECLS

/*
 * The abstract expression of a tensor says *what* it computes from the
 * graph inputs, forgetting indices, tiling and layout (Mirage's AbstractExpr).
 * Terms are s-expressions (prism-term.h) over:
 *
 *     v0 v1 …                inputs, in the order of the kernel graph's INPUT ops
 *     (+ a b) (* a b) (/ a b) (pow a b)
 *     (exp a) (square a) (sqrt a) (silu a) (gelu a) (relu a) (neg a)
 *     (sum n a)              a sum of n terms of a (n an integer)
 *     (rms n a)              sqrt (mean of a² over n terms)
 *     (max n a)              the maximum of n terms of a
 *     (maximum a b)          the elementwise maximum
 *     (const bits)           a constant, named by the bits of its double
 *
 * sub(a, b) is `(+ a (neg b))`, so that the rules of + apply to it.
 * matmul(A, B) is `(sum K (* A B))`; sum over a dim is `(sum D a)`;
 * rms_norm(a) is `(/ a (rms n a))` with n the product of the normalised dims;
 * max over a dim is `(max D a)`, mean over a dim `(/ (sum D a) D)`;
 * transpose(a) is a itself (layout is invisible).
 * Block INPUT and OUTPUT ops pass expressions through (partitioning is
 * invisible).  Accumulators over a loop of range F:
 *
 *     accum              (sum F a)
 *     accum_sum          (sum F·L a)          L the last dim of a
 *     accum_mean         (/ (sum F·L a) F·L)  the count is an integer leaf
 *     accum_rms          (rms F·L a)
 *     accum_sum_todimx   (sum F·L/dimx a)
 *     accum_max          (max F a)
 *     accum_rescale      (accum_rescale F a s)            uninterpreted,
 *                                                         never dropped
 *     accum_sum_rescale  (accum_sum_rescale F·L a s)
 *     accum_online       (sum F a)            the closed form of the online
 *     accum_sum_online   (sum F·L a)          softmax: in a, running_max
 *     running_max        its accum_max's term is the final max (max F x)
 *
 * A sum, max, rms or mean of degree 1 is dropped: `(sum 1 x)` is x.  concat(a, b)
 * is the uninterpreted `(concat a b)`, except that a matmul whose operands
 * are both concats along its contraction dim, concat(a, b) @ concat(c, d),
 * is `(+ (sum Ka (* a c)) (sum Kb (* b d)))` (Mirage's concat-then-matmul).
 *
 * **Sizes.**  Degrees come from tensor dims, evaluated in one of two ways:
 *
 * - %PRISM_ABSTRACT_CONCRETE: the graph's own dims: tile dims for block ops,
 *   the loop range F as it is.  Every dim and loop range involved must be a
 *   constant.  accum(matmul(x, w)) over a loop of 64 on tiles with K = 64 is
 *   `(sum 64 (sum 64 (* x w)))`.
 * - %PRISM_ABSTRACT_UNTILED: the program with every map at zero, as Prism
 *   prunes sGraphs: every tile is the whole tensor it reads, the loop range
 *   counts as 1 and block outputs have their tile's size.  The same
 *   accumulated matmul is `(sum 4096 (* x w))`.  Sizes are propagated from
 *   the kernel graph's inputs by this module (not read from the graph), so
 *   concrete graphs, sGraphs (`symbolic_maps`) and graphs with symbolic grid
 *   or loop sizes all evaluate.
 * - %PRISM_ABSTRACT_AUTO: CONCRETE when every block graph involved is
 *   concrete (prism_graph_is_concrete()), else UNTILED.
 *
 * For kernel graphs without custom kernels both evaluations agree.
 */
typedef enum
{
  PRISM_ABSTRACT_UNTILED,
  PRISM_ABSTRACT_CONCRETE,
  PRISM_ABSTRACT_AUTO,
} PrismAbstractMode;

/* Returns: (transfer none): "untiled", "concrete" or "auto" */
const char *prism_abstract_mode_to_string (PrismAbstractMode mode);

/**
 * PrismAbstractExpr:
 *
 * Builds the abstract expressions of the tensors of one kernel graph (and,
 * optionally, of a block graph under construction that is not yet a kernel
 * op of it) into one hash-consed #PrismTerm, memoizing every tensor it
 * evaluates.  The graphs are borrowed and must not change while it lives.
 * Not thread-safe; use one per thread.
 */
typedef struct _PrismAbstractExpr PrismAbstractExpr;

/**
 * prism_abstract_expr_new:
 * @kernel_graph: a kernel graph (borrowed)
 * @block: (nullable): a block graph under construction (borrowed)
 * @block_inputs: (array) (nullable): with @block, the tensor of @kernel_graph
 *   each of its INPUT ops reads, indexed by input_index (borrowed; it must
 *   have an entry for every input_index of @block)
 * @mode: how sizes are evaluated
 *
 * Returns: (transfer full): a builder with an empty term
 */
PrismAbstractExpr *prism_abstract_expr_new    (const PrismGraph   *kernel_graph,
                                               const PrismGraph   *block,
                                               const guint        *block_inputs,
                                               PrismAbstractMode   mode);
void               prism_abstract_expr_free   (PrismAbstractExpr  *expr);

/* The mode actually used (AUTO resolved). */
PrismAbstractMode  prism_abstract_expr_get_mode (const PrismAbstractExpr *expr);

/**
 * prism_abstract_expr_eval:
 * @expr: a builder
 * @in_block: %TRUE for a tensor of the block graph given at construction,
 *   %FALSE for a tensor of the kernel graph
 * @tensor: the tensor id
 * @out_node: (out): its node in prism_abstract_expr_get_term()
 * @error: return location for a #GError
 *
 * Fails (PRISM_ERROR_INVALID_GRAPH) for an unknown tensor or a tensor no op
 * produces, or (PRISM_ERROR_UNSUPPORTED) in CONCRETE mode when a size it
 * needs is symbolic.
 *
 * Returns: %TRUE on success
 */
gboolean           prism_abstract_expr_eval   (PrismAbstractExpr  *expr,
                                               gboolean            in_block,
                                               guint               tensor,
                                               guint              *out_node,
                                               GError            **error);

/* Returns: (transfer none): the term holding every expression evaluated so far */
const PrismTerm   *prism_abstract_expr_get_term (const PrismAbstractExpr *expr);

/**
 * prism_abstract_expr_of_tensor:
 * @kernel_graph: a kernel graph
 * @block: (nullable): as for prism_abstract_expr_new()
 * @block_inputs: (array) (nullable): as for prism_abstract_expr_new()
 * @in_block: whether @tensor is a tensor of @block
 * @tensor: the tensor
 * @mode: how sizes are evaluated
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): a term whose root is the expression
 */
PrismTerm         *prism_abstract_expr_of_tensor (const PrismGraph *kernel_graph,
                                               const PrismGraph   *block,
                                               const guint        *block_inputs,
                                               gboolean            in_block,
                                               guint               tensor,
                                               PrismAbstractMode   mode,
                                               GError            **error);

/**
 * prism_abstract_expr_to_string:
 *
 * Same as prism_abstract_expr_of_tensor() for a kernel tensor, printed.
 *
 * Returns: (transfer full) (nullable): e.g. `(sum 4096 (* v0 v1))`
 */
char              *prism_abstract_expr_to_string (const PrismGraph *kernel_graph,
                                               guint               tensor,
                                               PrismAbstractMode   mode,
                                               GError            **error);

/**
 * prism_abstract_expr_of_outputs:
 * @graph: a kernel graph with outputs
 * @mode: how sizes are evaluated
 * @out_roots: (out) (transfer full): the node of each output, in
 *   prism_graph_get_outputs() order (a #GArray of guint)
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): one term holding every output's
 *   expression (the root is the last output's)
 */
PrismTerm         *prism_abstract_expr_of_outputs (const PrismGraph *graph,
                                               PrismAbstractMode   mode,
                                               GArray            **out_roots,
                                               GError            **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrismAbstractExpr, prism_abstract_expr_free)

G_END_DECLS
