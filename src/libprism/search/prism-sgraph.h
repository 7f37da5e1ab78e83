/* prism-sgraph.h — sGraphs: kernel graphs with symbolic custom kernels
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "prism-graph.h"

G_BEGIN_DECLS

/* A data dim of a custom kernel's input, named by the ordinal of the block
 * INPUT op (which is also the kernel input it reads) and the dim index. */
typedef struct
{
  guint8 input;
  guint8 dim;
} PrismDimRef;

/**
 * PrismDimEquality:
 *
 * Two input dims that the symbolic dimension matching of the search found
 * equal in unpartitioned size; once maps are chosen they must be partitioned
 * identically (same grid axis, same loop split), otherwise the op that
 * matched them sees tiles of different sizes.
 */
typedef struct
{
  PrismDimRef a;
  PrismDimRef b;
} PrismDimEquality;

/* Partitions an input dim must not take (rms_norm needs whole rows …). */
#define PRISM_SPLIT_NO_GRID 1
#define PRISM_SPLIT_NO_LOOP 2

/**
 * PrismKernelConstraints:
 *
 * What the search recorded about one custom kernel while building it with
 * symbolic maps; the map instantiation enumerates only maps that satisfy it.
 */
typedef struct
{
  guint n_inputs;
  guint input_ndims[PRISM_MAX_OP_INPUTS];
  gint64 input_sizes[PRISM_MAX_OP_INPUTS][PRISM_MAX_DIMS]; /* unpartitioned */
  guint8 no_split[PRISM_MAX_OP_INPUTS][PRISM_MAX_DIMS];    /* PRISM_SPLIT_* flags */
  GArray *equalities;                                      /* PrismDimEquality */
  guint n_outputs;
  guint output_ndims[PRISM_MAX_OP_OUTPUTS];
  /* The input dim each output dim comes from, or input = 0xff (a reduced dim). */
  PrismDimRef output_source[PRISM_MAX_OP_OUTPUTS][PRISM_MAX_DIMS];
  /* Every input dim an output depends on: bit input * PRISM_MAX_DIMS + dim.
   * An axis that splits none of them leaves the output the same in every
   * block along it, which no output map can write. */
  guint32 output_reads[PRISM_MAX_OP_OUTPUTS];
} PrismKernelConstraints;

#define PRISM_DIM_REF_NONE 0xff

PrismKernelConstraints *prism_kernel_constraints_new  (void);
PrismKernelConstraints *prism_kernel_constraints_copy (const PrismKernelConstraints *c);
void                    prism_kernel_constraints_free (PrismKernelConstraints *c);

/**
 * PrismSGraph:
 *
 * A complete graph found by the search.  In symbolic mode every custom kernel
 * is a block graph with `symbolic_maps` set (tile dims are unpartitioned sizes,
 * map entries %PRISM_MAP_UNKNOWN, grid and loop sizes variables), and
 * @constraints holds one entry per KERNEL op in op order.  In enumerative mode
 * the graph is concrete and @constraints entries are %NULL.
 */
typedef struct
{
  PrismGraph *graph;        /* owned */
  GPtrArray *constraints;   /* PrismKernelConstraints* or NULL, owned */
  gboolean symbolic;
} PrismSGraph;

/* Deep copies @graph and @constraints (either may be NULL entries). */
PrismSGraph *prism_sgraph_new  (const PrismGraph *graph,
                                GPtrArray        *constraints,
                                gboolean          symbolic);
void         prism_sgraph_free (PrismSGraph      *sgraph);

/* Rebuilding --------------------------------------------------------------- */

/**
 * PrismKernelMaps:
 *
 * Concrete maps and sizes for one custom kernel: @grid and @forloop are
 * borrowed dims over the variables of the rebuilt graph.
 */
typedef struct
{
  guint grid_ndims;
  PrismDim *grid[PRISM_MAX_GRID_DIMS];
  PrismDim *forloop;
  int imap[PRISM_MAX_OP_INPUTS][PRISM_MAX_GRID_DIMS];
  int fmap[PRISM_MAX_OP_INPUTS];
  int omap[PRISM_MAX_OP_OUTPUTS][PRISM_MAX_GRID_DIMS];
} PrismKernelMaps;

/* Maps an input dim size of the source graph to the one of the rebuilt graph. */
typedef gint64 (*PrismDimMapFunc) (gint64   value,
                                   gpointer user_data);

/**
 * prism_graph_rebuild:
 * @graph: a kernel graph
 * @var_names: (array zero-terminated=1) (nullable): the variables of the new
 *   graph; %NULL copies those of @graph
 * @kernel_maps: (array length=n_kernel_maps) (nullable): per KERNEL op in op
 *   order, new maps (the body is rebuilt with concrete maps), or %NULL to
 *   keep the body (and its maps) as it is
 * @map_dim: (nullable): rewrites every graph input dim
 *
 * Replays every op of @graph through the builders, so every shape rule is
 * checked again.
 *
 * Returns: (transfer full) (nullable): the new graph, or %NULL with @error
 */
PrismGraph  *prism_graph_rebuild (const PrismGraph       *graph,
                                  const char * const     *var_names,
                                  const PrismKernelMaps * const *kernel_maps,
                                  guint                   n_kernel_maps,
                                  PrismDimMapFunc         map_dim,
                                  gpointer                map_dim_data,
                                  GError                **error);

/* Keys ---------------------------------------------------------------------- */

typedef enum
{
  PRISM_KEY_STRUCTURE = 0,      /* ops, attributes and edges only */
  PRISM_KEY_MAPS = 1 << 0,      /* + imaps, fmaps, omaps (grid axes in canonical order) */
  PRISM_KEY_SIZES = 1 << 1,     /* + grid and loop sizes */
} PrismKeyFlags;

/**
 * prism_graph_canonical_key:
 * @graph: a kernel graph
 * @flags: what the key includes
 *
 * A text key naming the program independently of the order its ops were
 * added in: every tensor is named by its operator and the names of its
 * operands (commutative operands sorted), custom kernels by their inputs,
 * outputs and maps, and grid axes are permuted to the smallest name (axes of
 * constant size 1 dropped).  Two graphs with equal keys compute the same
 * thing the same way; %PRISM_KEY_MAPS without %PRISM_KEY_SIZES names a
 * candidate whose sizes are still to be chosen.
 *
 * Returns: (transfer full): the key
 */
char        *prism_graph_canonical_key (const PrismGraph *graph,
                                        PrismKeyFlags     flags);

/**
 * prism_block_graph_smem_bytes:
 * @block: a block graph
 * @values: (array length=n_values) (nullable): values of the size variables
 * @out: (out): the bytes of shared memory one block needs
 *
 * Estimates the shared memory of one block as Mirage does: every tile a
 * non-unary op writes (inputs, matmul, binary ops, reductions, rms_norm,
 * concat, reducing accumulators) counts once; unary ops work in place and a
 * plain accumulator lives in registers.
 *
 * Returns: %FALSE if a tile size is not an exact integer under @values
 */
gboolean     prism_block_graph_smem_bytes (const PrismGraph *block,
                                           const gint64     *values,
                                           guint             n_values,
                                           guint64          *out);

/* A 64-bit FNV-1a hash of @key, printed as 16 hex digits (transfer full). */
char        *prism_key_digest          (const char       *key);

/**
 * prism_graph_find_recomputed:
 * @graph: a kernel graph (its custom kernels' maps concrete or not)
 * @kernel_op: (out) (optional): the custom kernel that recomputes a value
 * @block_op: (out) (optional): the op of its body that recomputes it
 *
 * Whether a custom kernel of @graph computes one value twice: a block op of
 * the same kind, attributes and operands as an earlier one, where tiles of
 * the same kernel input read with the same maps are the same operand and an
 * accumulator over a loop of one iteration (`accum`, an identity) is the
 * tile it reads — exp(x) in the loop and exp(accum(x)) after it, say.  Such
 * a candidate is not a different program from the one that computes the
 * value once and uses it twice.
 *
 * Returns: %TRUE if one is found
 */
gboolean     prism_graph_find_recomputed (const PrismGraph *graph,
                                          guint            *kernel_op,
                                          guint            *block_op);

G_END_DECLS
