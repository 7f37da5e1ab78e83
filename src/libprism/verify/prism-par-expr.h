/* prism-par-expr.h — kernel graphs as tensor terms with parallel operators
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "prism-graph.h"
#include "prism-io-binding.h"
#include "prism-term.h"

G_BEGIN_DECLS

/*
 * The term language of the formal verifier.  A term denotes a *parallel
 * tensor*: for every index of each of its parallel axes (named symbols such as
 * `c0.x`, each with a size) a dense tensor.  A term without axes is an
 * ordinary tensor.  Data dims are numbered from the last: `0` is the last dim
 * (the K dim of a matmul's left operand), `1` the one before it, so rules do
 * not depend on ranks.
 *
 *   in<k>                       graph input k
 *   (map f t)                   f ∈ exp square sqrt silu gelu relu neg, elementwise
 *   (map2 f a b)                f ∈ add sub mul div pow, elementwise with broadcasting
 *   (matmul a b)                batched
 *   (sum t d)                   sum over dim d, kept as size 1
 *   (divn t n)                  t / n for a size n (an integer or a `size:…` symbol)
 *   (rms_norm t n)              t / (rms t n), over the last dim of size n
 *   (rms_norm_eps t n e)        t / sqrt (Σ_last t² / n + e), e a (const …) leaf
 *   (rms t n)                   sqrt (Σ_last t² / n), last dim kept as size 1
 *   (max t d)                   maximum over dim d, kept as size 1
 *   (transpose t code)          output dim i (IR numbering) is input dim perm[i];
 *                               code = prism_par_perm_code ()
 *   (const bits rank)           the constant whose double has these bits, all dims 1
 *   mean over d                 (divn (sum t d) n), n the size of dim d
 *   maximum                     (map2 maximum a b)
 *
 * (One operator for all unary ops and one for all binary ops, with the op
 * as a leaf, so that one rule covers every op of a kind.)
 *   (concat a b d)
 *   (partition t d p)           axis p: index i sees chunk i of dim d (size(p) chunks)
 *   (replicate t p)             axis p: every index sees t
 *   (combine t d p)             concatenates the values along p on dim d; removes p
 *   (reduce t p)                sums the values along p; removes p
 *   (reduce_max t p)            maximum along p
 *   (scale t p)                 t times size(p) (built only by the rules: a
 *                               reduce of copies along p)
 *   (running t p)               prefix maximum along p: index i sees max_{j≤i} t_j
 *                               (running_max of an accum_max of t)
 *   (reduce_online x r p)       Σ_i x_i · exp(r_i − r_last) along p (accum_online;
 *                               accum_sum_online sums dim 0 after it)
 *
 * A custom kernel becomes: each block INPUT is its kernel input partitioned
 * along every grid axis that maps a data dim (grid partition outer) and
 * replicated along the others, then partitioned or replicated along the loop
 * axis; block ops act on those terms; accumulators reduce the loop axis
 * (ACCUM = reduce, ACCUM_SUM = sum of reduce, ACCUM_RMS = sqrt (Σ reduce
 * (square) / n) …, ACCUM_SUM_TODIMX = reduce over a fresh axis partitioning
 * the last dim); each block OUTPUT combines along the grid axes its omap maps
 * and reduces along the −1 ones.  Axes of constant size 1 are left out (a
 * partition into one chunk is the identity).  Sizes stay symbolic.
 */

/**
 * prism_par_perm_code:
 * @ndims: the operand's rank
 * @perm: (array length=ndims): output dim d is input dim perm[d] (IR numbering)
 *
 * Returns: the integer leaf of `(transpose t code)`: ndims · 256 + Σ perm[d] · 4^d
 */
gint64       prism_par_perm_code        (guint              ndims,
                                         const int         *perm);

/**
 * PrismParEnv:
 *
 * What the term symbols stand for: the graph inputs (shapes), the parallel
 * axes (sizes, at most 64) and the size symbols.  Built by
 * prism_par_translate() for the reference and then the candidate; read-only
 * afterwards (then safe to read from several threads).
 */
typedef struct _PrismParEnv PrismParEnv;

#define PRISM_PAR_MAX_AXES 64

PrismParEnv *prism_par_env_new          (void);
void         prism_par_env_free         (PrismParEnv       *env);

/* Returns: the number of graph inputs registered */
guint        prism_par_env_get_n_inputs (const PrismParEnv *env);
/* Returns: (transfer none) (nullable): the shape of input @symbol, or %NULL */
const PrismTensor *prism_par_env_lookup_input (const PrismParEnv *env,
                                         PrismSymbol        symbol);
/* Returns: the axis index (< PRISM_PAR_MAX_AXES) of @symbol, or -1 */
int          prism_par_env_lookup_axis  (const PrismParEnv *env,
                                         PrismSymbol        symbol);
guint        prism_par_env_get_n_axes   (const PrismParEnv *env);
/* Returns: (transfer none): the size of axis @index */
const PrismDim *prism_par_env_get_axis_size (const PrismParEnv *env,
                                         guint              index);
/* Returns: (transfer none): the name of axis @index */
const char  *prism_par_env_get_axis_name (const PrismParEnv *env,
                                         guint              index);
/* Returns: (transfer none) (nullable): the size a `size:…` symbol stands for */
const PrismDim *prism_par_env_lookup_size (const PrismParEnv *env,
                                         PrismSymbol        symbol);

/**
 * prism_par_translate:
 * @env: the environment; the first graph translated into it defines the
 *   inputs, later ones must have inputs of the same shapes and dtypes
 * @graph: a kernel graph with concrete maps (sizes may be symbolic)
 * @prefix: a prefix for the graph's axis names ("r" reference, "c" candidate),
 *   so that two graphs never share an axis
 * @term: the term to add to
 * @roots: (out caller-allocates) (array): one node of @term per graph output,
 *   in output order (room for @graph's outputs)
 * @error: return location for a #GError
 *
 * Errors: %PRISM_ERROR_UNSUPPORTED for ops the language has no operator for
 * (rescaling accumulators), symbolic maps, too many axes, or a constant its
 * dtype cannot hold (70000 in f16: stored as inf), naming the op;
 * %PRISM_ERROR_INVALID_GRAPH when the inputs differ from the first graph's.
 *
 * Returns: %TRUE on success
 */
gboolean     prism_par_translate        (PrismParEnv       *env,
                                         const PrismGraph  *graph,
                                         const char        *prefix,
                                         PrismTerm         *term,
                                         guint             *roots,
                                         GError           **error);

/**
 * prism_par_translate_full:
 * @tensor_nodes: (out caller-allocates) (array) (nullable): room for one
 *   node per tensor of @graph; receives the term node of every tensor of
 *   the kernel level (what each one holds, as a term)
 *
 * Same as prism_par_translate(), and says which term each tensor is.
 *
 * Returns: %TRUE on success
 */
gboolean     prism_par_translate_full   (PrismParEnv       *env,
                                         const PrismGraph  *graph,
                                         const char        *prefix,
                                         PrismTerm         *term,
                                         guint             *roots,
                                         guint             *tensor_nodes,
                                         GError           **error);

/**
 * prism_par_translate_bound:
 * @binding: (nullable): which reference input and output each of @graph's
 *   is (prism_io_binding_new()); %NULL: the same positions
 *
 * Same as prism_par_translate_full() for a graph translated after the first:
 * its input k becomes the first graph's input @binding->inputs[k] and its
 * output k goes to @roots[@binding->outputs[k]].
 *
 * Returns: %TRUE on success
 */
gboolean     prism_par_translate_bound  (PrismParEnv       *env,
                                         const PrismGraph  *graph,
                                         const char        *prefix,
                                         PrismTerm         *term,
                                         const PrismIoBinding *binding,
                                         guint             *roots,
                                         guint             *tensor_nodes,
                                         GError           **error);

/* Returns the number of OUTPUT ops of a kernel graph. */
guint        prism_par_count_outputs    (const PrismGraph  *graph);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrismParEnv, prism_par_env_free)

G_END_DECLS
