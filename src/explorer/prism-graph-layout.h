/* prism-graph-layout.h — where the ops of a program go when it is drawn
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "prism-graph.h"

G_BEGIN_DECLS

/* Op ids name an op of a kernel graph or of one of its custom kernels' block
 * graphs with one number: kernel-level op i is i; op j of the block graph of
 * the custom kernel at kernel-level index k is ((k + 1) << 16) | j. */
#define PRISM_OP_ID_NONE G_MAXUINT

static inline guint
prism_op_id_make (int   kernel_op,
                  guint op)
{
  return kernel_op < 0 ? op : (((guint) kernel_op + 1) << 16) | op;
}

/* The kernel-level index of the custom kernel holding the op, or -1. */
static inline int
prism_op_id_get_kernel (guint op_id)
{
  return (int) (op_id >> 16) - 1;
}

static inline guint
prism_op_id_get_op (guint op_id)
{
  return op_id & 0xffff;
}

typedef enum
{
  PRISM_GRAPH_DIRECTION_TOP_TO_BOTTOM,
  PRISM_GRAPH_DIRECTION_LEFT_TO_RIGHT,
} PrismGraphDirection;

#define PRISM_TYPE_GRAPH_DIRECTION (prism_graph_direction_get_type ())
GType prism_graph_direction_get_type (void);

/* What a node stands for; it decides how the node is drawn. */
typedef enum
{
  PRISM_LAYOUT_ROLE_INPUT,        /* kernel level: a program input */
  PRISM_LAYOUT_ROLE_OUTPUT,       /* kernel level: a program output */
  PRISM_LAYOUT_ROLE_OP,           /* kernel level: a predefined op */
  PRISM_LAYOUT_ROLE_TILE_INPUT,   /* block level: the tile a block reads (imap/fmap) */
  PRISM_LAYOUT_ROLE_TILE_OUTPUT,  /* block level: the tile a block writes (omap) */
  PRISM_LAYOUT_ROLE_BLOCK_OP,     /* block level: runs every loop iteration */
  PRISM_LAYOUT_ROLE_ACCUM,        /* block level: a for-loop accumulator */
  PRISM_LAYOUT_ROLE_EPILOGUE,     /* block level: runs once after the loop */
  PRISM_LAYOUT_ROLE_EMPTY,        /* stands in for an empty block graph */
  PRISM_LAYOUT_ROLE_KERNEL,       /* kernel level: a custom kernel drawn collapsed, one box */
} PrismLayoutRole;

/* Boxes are in graph units (pixels at zoom 1), origin at the top left. */
typedef struct
{
  guint op_id;
  PrismLayoutRole role;
  double x, y, width, height;
  char *title;       /* the op kind, or a program input's name */
  char *subtitle;    /* the output shape and dtype */
  char *detail;      /* (nullable) maps of block inputs and outputs */
  char *tooltip;     /* Pango markup */
} PrismLayoutNode;

/* One edge per use of a tensor; a kernel input or output crosses the
 * custom kernel's border to the block INPUT/OUTPUT op of its body. */
typedef struct
{
  guint tail, head;  /* node indices */
  guint n_points;    /* 1 + 3k: a start point, then k cubic Bézier segments */
  double *points;    /* x, y pairs */
  gboolean has_arrow;
  double tip_x, tip_y; /* where the arrow head points (after the last point) */
} PrismLayoutEdge;

/* A custom kernel, drawn as a box holding its block graph. */
typedef struct
{
  guint op_id;       /* the KERNEL op */
  double x, y, width, height;
  double header_height; /* the band at the top that the titles use */
  char *title;       /* "kernel 1" */
  char *subtitle;    /* grid, threads, loop */
  char *tooltip;     /* Pango markup */
} PrismLayoutCluster;

typedef struct
{
  /*< private >*/
  gint ref_count;
  /*< public, read-only >*/
  PrismGraph *graph;               /* the graph laid out (owned reference) */
  PrismGraphDirection direction;
  double width, height;            /* everything drawn lies in [0, width] × [0, height] */
  GArray *nodes;                   /* PrismLayoutNode */
  GArray *edges;                   /* PrismLayoutEdge */
  GArray *clusters;                /* PrismLayoutCluster, in kernel order */
} PrismGraphLayout;

/* Layout geometry shared by the layout, which sizes boxes, and the painter. */
#define PRISM_GRAPH_LAYOUT_MARGIN        24.0
#define PRISM_GRAPH_LAYOUT_NODE_PAD_X    12.0
#define PRISM_GRAPH_LAYOUT_NODE_PAD_Y     7.0
#define PRISM_GRAPH_LAYOUT_LINE_GAP       2.0
#define PRISM_GRAPH_LAYOUT_CLUSTER_PAD_X 10.0
#define PRISM_GRAPH_LAYOUT_CLUSTER_PAD_Y  8.0

/**
 * prism_graph_layout_compute:
 * @graph: a kernel graph (a reference is taken; it must not change afterwards)
 * @direction: the direction data flows in
 *
 * Lays @graph out with Graphviz `dot`: one node per op, one cluster per
 * custom kernel holding its block graph. Safe to call from any thread; the
 * Graphviz calls of all threads are serialized.
 *
 * Returns: (transfer full) (nullable): the layout, or %NULL with @error set
 */
PrismGraphLayout *prism_graph_layout_compute        (PrismGraph           *graph,
                                                     PrismGraphDirection   direction,
                                                     GError              **error);
/**
 * prism_graph_layout_compute_collapsed:
 * @collapsed: (array length=n_collapsed) (nullable): kernel-level indices of
 *   custom kernels drawn as one box (a %PRISM_LAYOUT_ROLE_KERNEL node whose
 *   op id is the kernel's) rather than as a cluster holding their block
 *   graph; indices of other ops are ignored
 *
 * Same as prism_graph_layout_compute() with some kernels collapsed.
 *
 * Returns: (transfer full) (nullable): the layout, or %NULL with @error set
 */
PrismGraphLayout *prism_graph_layout_compute_collapsed (PrismGraph         *graph,
                                                     PrismGraphDirection   direction,
                                                     const guint          *collapsed,
                                                     guint                 n_collapsed,
                                                     GError              **error);
/* Same on a worker thread; @callback runs in the caller's main context.
 * @collapsed is copied. */
void              prism_graph_layout_compute_async  (PrismGraph           *graph,
                                                     PrismGraphDirection   direction,
                                                     const guint          *collapsed,
                                                     guint                 n_collapsed,
                                                     GCancellable         *cancellable,
                                                     GAsyncReadyCallback   callback,
                                                     gpointer              user_data);
/* Returns: (transfer full) (nullable); %G_IO_ERROR_CANCELLED when cancelled. */
PrismGraphLayout *prism_graph_layout_compute_finish (GAsyncResult         *result,
                                                     GError              **error);

PrismGraphLayout *prism_graph_layout_ref            (PrismGraphLayout     *layout);
void              prism_graph_layout_unref          (PrismGraphLayout     *layout);

static inline const PrismLayoutNode *
prism_graph_layout_node (const PrismGraphLayout *layout, guint index)
{
  return &g_array_index (layout->nodes, PrismLayoutNode, index);
}

static inline const PrismLayoutEdge *
prism_graph_layout_edge (const PrismGraphLayout *layout, guint index)
{
  return &g_array_index (layout->edges, PrismLayoutEdge, index);
}

static inline const PrismLayoutCluster *
prism_graph_layout_cluster (const PrismGraphLayout *layout, guint index)
{
  return &g_array_index (layout->clusters, PrismLayoutCluster, index);
}

/* The node under the point (graph units), or -1. */
int               prism_graph_layout_node_at        (const PrismGraphLayout *layout,
                                                     double                  x,
                                                     double                  y);
/* The innermost cluster under the point, or -1. */
int               prism_graph_layout_cluster_at     (const PrismGraphLayout *layout,
                                                     double                  x,
                                                     double                  y);
/* The node of @op_id, or -1. */
int               prism_graph_layout_find_node      (const PrismGraphLayout *layout,
                                                     guint                   op_id);
/* The cluster of the custom kernel with kernel-level op id @op_id, or -1. */
int               prism_graph_layout_find_cluster   (const PrismGraphLayout *layout,
                                                     guint                   op_id);
/* What stands for @op_id in the drawing: the op itself, or the kernel whose
 * collapsed box hides it; %PRISM_OP_ID_NONE if neither is drawn. */
guint             prism_graph_layout_shown_op       (const PrismGraphLayout *layout,
                                                     guint                   op_id);
/* Whether the custom kernel at kernel-level index @kernel is drawn collapsed. */
gboolean          prism_graph_layout_is_collapsed   (const PrismGraphLayout *layout,
                                                     guint                   kernel);

/**
 * prism_graph_layout_estimate_smem:
 * @body: a block graph
 * @out_bytes: (out): bytes of shared memory one block needs
 *
 * Estimates the shared memory of one block as the search does
 * (prism_block_graph_smem_bytes(): every tile a non-unary op writes counts
 * once; unary ops work in place, plain accumulators live in registers).
 *
 * Returns: %FALSE if a tile size is symbolic
 */
gboolean          prism_graph_layout_estimate_smem  (const PrismGraph     *body,
                                                     guint64              *out_bytes);

/* "[8, 4096] f16": a tensor's shape and dtype, sizes named by @graph's
 * variables. (transfer full) */
char             *prism_graph_layout_format_tensor  (const PrismGraph     *graph,
                                                     const PrismTensor    *tensor);
/* "grid 8×4 · 128 threads · loop 64": a custom kernel's launch. (transfer full) */
char             *prism_graph_layout_format_launch  (const PrismGraph     *graph,
                                                     const PrismGraph     *body);
/* "≈ 48 KiB (f16 tiles)" or "depends on the sizes". (transfer full) */
char             *prism_graph_layout_format_smem    (const PrismGraph     *body);

/* Map notation shared by the drawing, its tooltips and the comparison:
 * "(x→rep, y→1)" for an imap, "(x→sum)" for an omap, "rep" for an fmap. */
char             *prism_graph_layout_format_map     (const int            *map,
                                                     guint                 n_axes,
                                                     gboolean              is_omap);
char             *prism_graph_layout_format_fmap    (int                   fmap);
/* What an op's attributes add to its kind ("along dim 1", "over the last
 * dim", …), or NULL for ops without such attributes. */
char             *prism_graph_layout_format_attrs   (const PrismGraph     *graph,
                                                     const PrismOp        *op);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrismGraphLayout, prism_graph_layout_unref)

G_END_DECLS
