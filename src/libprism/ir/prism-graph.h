/* prism-graph.h — kernel graphs and block graphs
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "prism-dim.h"
#include "prism-types.h"

G_BEGIN_DECLS

/* Map entries (imap, omap per grid axis; fmap for the loop). */
#define PRISM_MAP_REPLICATE (-1)  /* imap/fmap: replicated; omap: blocks along the axis are summed */
#define PRISM_MAP_UNKNOWN   (-2)  /* sGraph only: the entry is a symbol still to be chosen */

#define PRISM_MAX_OP_INPUTS  8
#define PRISM_MAX_OP_OUTPUTS 8

typedef struct _PrismGraph PrismGraph;

/**
 * PrismTensor:
 *
 * A tensor of a graph, identified by its index in the graph's tensor array.
 * At block level its dims are the dims of one block's tile in one iteration.
 */
typedef struct
{
  guint ndims;
  PrismDim *dims[PRISM_MAX_DIMS];  /* owned */
  PrismDtype dtype;
  int producer;                    /* op index */
  guint producer_slot;             /* output slot of that op */
  gboolean after_accum;            /* block level: produced downstream of an accumulator */
} PrismTensor;

/**
 * PrismOpAttrs:
 *
 * The parameters of an op; which fields matter depends on the kind.
 */
typedef struct
{
  double value;         /* CONSTANT: the value (finite) */
  int dim;              /* SUM, MAX, MEAN, CONCAT: the data dim */
  int perm[PRISM_MAX_DIMS]; /* TRANSPOSE: output dim d is input dim perm[d] */
  guint norm_dims;      /* RMS_NORM: trailing dims normalised (≥ 1) */
  double eps;           /* RMS_NORM: added to mean(x²) under the square root (finite, ≥ 0) */
  guint dimx;           /* ACCUM_SUM_TODIMX: the size the last dim is reduced to */
  guint input_index;    /* block INPUT: index into the custom kernel's inputs */
  int imap[PRISM_MAX_GRID_DIMS]; /* block INPUT: grid axis → data dim, or PRISM_MAP_REPLICATE */
  int fmap;             /* block INPUT: data dim split by the loop, or PRISM_MAP_REPLICATE */
  int omap[PRISM_MAX_GRID_DIMS]; /* block OUTPUT: grid axis → data dim, or -1 = summed */
} PrismOpAttrs;

/* Fills @attrs with neutral values: every map entry -1, norm_dims 1, perm the identity. */
void prism_op_attrs_init (PrismOpAttrs *attrs);

typedef struct
{
  PrismOpKind kind;
  guint n_inputs;
  guint inputs[PRISM_MAX_OP_INPUTS];   /* tensor ids */
  guint n_outputs;
  guint outputs[PRISM_MAX_OP_OUTPUTS]; /* tensor ids */
  PrismOpAttrs attrs;
  char *name;               /* kernel INPUT/OUTPUT: optional name (owned) */
  PrismGraph *body;         /* KERNEL: the block graph (owned reference) */
  /* block INPUT: the data tensor it tiles; block OUTPUT: the data tensor it writes. */
  guint data_ndims;
  PrismDim *data_dims[PRISM_MAX_DIMS]; /* owned */
  PrismDtype data_dtype;
} PrismOp;

struct _PrismGraph
{
  /*< private >*/
  gint ref_count;
  /*< public, read-only outside prism-graph.c >*/
  PrismLevel level;
  GPtrArray *tensors;     /* PrismTensor*, index = id */
  GPtrArray *ops;         /* PrismOp*, topological (creation) order */

  /* BLOCK level */
  guint grid_ndims;
  PrismDim *grid[PRISM_MAX_GRID_DIMS]; /* owned; 1 for unused axes */
  guint block_threads;
  PrismDim *forloop;      /* owned */
  /* With symbolic maps, tile dims are the unpartitioned sizes and the
   * search records which dims must match once maps are chosen. */
  gboolean symbolic_maps;

  /* KERNEL level */
  char *name;
  char *description;
  GPtrArray *var_names;   /* char*, index = variable index of every PrismDim var */
};

/* Kernel graphs ----------------------------------------------------------- */

PrismGraph *prism_graph_new            (void);
PrismGraph *prism_graph_ref            (PrismGraph       *graph);
void        prism_graph_unref          (PrismGraph       *graph);
/* Deep copy (block bodies included). */
PrismGraph *prism_graph_copy           (const PrismGraph *graph);

void        prism_graph_set_name       (PrismGraph       *graph,
                                        const char       *name,
                                        const char       *description);
/* Registers a new symbolic variable; returns its index for prism_dim_var(). */
guint       prism_graph_add_var        (PrismGraph       *graph,
                                        const char       *name);
/* NULL-terminated view of the variable names, for prism_dim_to_string(). */
const char * const *prism_graph_var_names (const PrismGraph *graph);

/**
 * prism_graph_add_input:
 * @graph: a kernel graph
 * @name: (nullable): a name shown to users
 * @ndims: 1 to 4
 * @dims: (array length=ndims): positive sizes ≤ %PRISM_DIM_MAX
 *
 * Returns: the new tensor id, or -1 with @error set
 */
int         prism_graph_add_input      (PrismGraph       *graph,
                                        const char       *name,
                                        guint             ndims,
                                        const gint64     *dims,
                                        PrismDtype        dtype,
                                        GError          **error);

/**
 * prism_graph_add_op:
 * @graph: a graph of either level
 * @kind: any kind valid at the graph's level except INPUT (and KERNEL)
 * @inputs: (array length=n_inputs): tensor ids
 * @attrs: (nullable): parameters; %NULL means prism_op_attrs_init() defaults
 *
 * Infers the output shape and checks every rule of the IR; the error message
 * names the op and what was wrong.
 *
 * Returns: the new op's index, or -1 with @error set
 */
int         prism_graph_add_op         (PrismGraph       *graph,
                                        PrismOpKind       kind,
                                        const guint      *inputs,
                                        guint             n_inputs,
                                        const PrismOpAttrs *attrs,
                                        GError          **error);

/* Same as prism_graph_add_op() for one-output ops; returns the output tensor id or -1. */
int         prism_graph_add            (PrismGraph       *graph,
                                        PrismOpKind       kind,
                                        const guint      *inputs,
                                        guint             n_inputs,
                                        const PrismOpAttrs *attrs,
                                        GError          **error);

/**
 * prism_graph_add_kernel:
 * @graph: a kernel graph
 * @inputs: (array length=n_inputs): the kernel's input tensors
 * @body: a block graph whose INPUT ops index @inputs (a reference is taken)
 *
 * Returns: the new op's index (its outputs are one tensor per body OUTPUT op,
 *   in order), or -1 with @error set
 */
int         prism_graph_add_kernel     (PrismGraph       *graph,
                                        const guint      *inputs,
                                        guint             n_inputs,
                                        PrismGraph       *body,
                                        GError          **error);

/* Same as prism_graph_add_kernel() for a body still being built, which may
 * have no OUTPUT op yet (the kernel op then has no outputs): for showing a
 * partial graph (a search's pruned step); prism_graph_validate() refuses it. */
int         prism_graph_add_open_kernel (PrismGraph      *graph,
                                        const guint      *inputs,
                                        guint             n_inputs,
                                        PrismGraph       *body,
                                        GError          **error);

/**
 * prism_graph_add_constant:
 * @graph: a kernel graph
 * @value: a finite number
 * @ndims: 1 to 4; every dim is 1 (the constant broadcasts like any operand)
 *
 * Returns: the new tensor id, or -1 with @error set
 */
int         prism_graph_add_constant   (PrismGraph       *graph,
                                        double            value,
                                        guint             ndims,
                                        PrismDtype        dtype,
                                        GError          **error);

/* Marks @tensor as a graph output (a kernel-level OUTPUT op); returns the op index or -1. */
int         prism_graph_add_output     (PrismGraph       *graph,
                                        guint             tensor,
                                        const char       *name,
                                        GError          **error);

/* Block graphs ------------------------------------------------------------ */

/**
 * prism_block_graph_new:
 * @grid_ndims: 1 to 3
 * @grid: (array length=grid_ndims): grid sizes (borrowed)
 * @block_threads: threads per block (a multiple of 32, ≤ 1024)
 * @forloop: the loop range (borrowed)
 *
 * Returns: (transfer full): an empty block graph
 */
PrismGraph *prism_block_graph_new      (guint             grid_ndims,
                                        PrismDim * const *grid,
                                        guint             block_threads,
                                        const PrismDim   *forloop);
/* Same with constant sizes. */
PrismGraph *prism_block_graph_new_const (guint            grid_ndims,
                                        const gint64     *grid,
                                        guint             block_threads,
                                        gint64            forloop);
/* Whether "?" (PRISM_MAP_UNKNOWN) map entries are allowed: a symbolic
 * block graph whose maps are still to be chosen.  Set before adding ops. */
void        prism_block_graph_set_symbolic_maps (PrismGraph *graph,
                                                 gboolean    symbolic_maps);

/**
 * prism_block_graph_add_input:
 * @bgraph: a block graph
 * @input_index: which input of the custom kernel feeds it
 * @ndims: rank of that kernel input
 * @data_dims: (array length=ndims): its dims (borrowed)
 * @imap: (array fixed-size=3): grid axis → data dim or -1
 * @fmap: data dim split by the loop, or -1
 *
 * Returns: the tile's tensor id, or -1 with @error set
 */
int         prism_block_graph_add_input (PrismGraph      *bgraph,
                                        guint             input_index,
                                        guint             ndims,
                                        PrismDim * const *data_dims,
                                        PrismDtype        dtype,
                                        const int        *imap,
                                        int               fmap,
                                        GError          **error);

/* Adds a block OUTPUT op writing @tensor (which must be after an accumulator)
 * with the given omap; returns the op index or -1. */
int         prism_block_graph_add_output (PrismGraph     *bgraph,
                                        guint             tensor,
                                        const int        *omap,
                                        GError          **error);

/* Queries ----------------------------------------------------------------- */

static inline PrismTensor *
prism_graph_tensor (const PrismGraph *graph, guint id)
{
  return (PrismTensor *) g_ptr_array_index (graph->tensors, id);
}

static inline PrismOp *
prism_graph_op (const PrismGraph *graph, guint index)
{
  return (PrismOp *) g_ptr_array_index (graph->ops, index);
}

/* Tensor ids of the INPUT ops (kernel level) in op order. (transfer full) */
GArray     *prism_graph_get_inputs     (const PrismGraph *graph);
/* Tensor ids read by the OUTPUT ops in op order. (transfer full) */
GArray     *prism_graph_get_outputs    (const PrismGraph *graph);
guint       prism_graph_count_kernels  (const PrismGraph *graph);

/* TRUE if every dim of @tensor is constant; fills @out. */
gboolean    prism_tensor_get_shape     (const PrismTensor *tensor,
                                        gint64           *out);
gint64      prism_tensor_numel         (const PrismTensor *tensor);
/* TRUE if every dim, grid size, loop range and map entry is concrete. */
gboolean    prism_graph_is_concrete    (const PrismGraph *graph);

/**
 * prism_graph_instantiate:
 * @graph: a kernel graph with symbolic sizes
 * @values: (array length=n_values): per variable index, its value (≤ 0 keeps it symbolic)
 *
 * Rebuilds the graph with the variables replaced; fails (naming the op) when
 * a value does not divide a dimension it partitions.
 *
 * Returns: (transfer full) (nullable): the new graph
 */
PrismGraph *prism_graph_instantiate    (const PrismGraph *graph,
                                        const gint64     *values,
                                        guint             n_values,
                                        GError          **error);

/* A readable multi-line listing of the ops with shapes (for `prism check`). */
char       *prism_graph_to_string      (const PrismGraph *graph);
/* "[8, 4096]" or "[4096/gx, 64]" */
char       *prism_tensor_shape_to_string (const PrismGraph *graph,
                                        const PrismTensor *tensor);

/* Checks whole-graph rules the builders cannot check op by op (an output
 * exists, every kernel body has outputs …). */
/**
 * prism_graph_truncate:
 * @graph: a graph of either level
 * @n_ops: how many ops to keep
 * @n_tensors: how many tensors to keep
 *
 * Drops the ops after the first @n_ops and the tensors after the first
 * @n_tensors, releasing them: undoes the builder calls made since the graph
 * had that many of each (a search step undone in place).  The kept ops must
 * not refer to dropped tensors.
 */
void        prism_graph_truncate       (PrismGraph       *graph,
                                        guint             n_ops,
                                        guint             n_tensors);

gboolean    prism_graph_validate       (const PrismGraph *graph,
                                        GError          **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrismGraph, prism_graph_unref)

G_END_DECLS
