/* prism-lower.c — predefined kernel-level ops rewritten as custom kernels
 *
 * Each predefined op becomes one custom kernel: the grid partitions the
 * output, the loop (when there is one) walks the reduced dim, and a for-loop
 * accumulator carries the result to the block output.  The tile sizes aim at
 * a few thousand elements per block (elementwise, reductions) or up to
 * 64 × 128 output tiles (matmul).  A matmul with fewer output tiles than
 * twice the GPU's SMs — the decoding shapes of the workloads, where M is a
 * handful of rows — also splits K over a grid axis whose blocks add into one
 * tile (omap −1; the last block to arrive sums the partials), so that the
 * weights stream through every SM instead of a few; the K tile is sized so
 * that one loop stage moves up to 24 KiB.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "prism-error.h"
#include "prism-lower.h"

/* Elements of the output tile of one block of an elementwise kernel: at
 * most TARGET_ELEMENTS, fewer (down to MIN_TILE_ELEMENTS) so that small
 * tensors still spread over MIN_BLOCKS blocks. */
#define TARGET_ELEMENTS 4096
#define MIN_TILE_ELEMENTS 256
#define MIN_BLOCKS      264
/* Elements of the reduced dim one block reads per loop iteration. */
#define TARGET_CHUNK    2048
#define MAX_GRID_X      ((gint64) G_MAXINT32)
#define MAX_GRID_YZ     ((gint64) 65535)
#define BLOCK_THREADS   128
#define DEFAULT_SM_COUNT 132
/* Split K no finer than this many elements per block. */
#define MIN_SPLIT_K      64
/* Bytes of A and B tiles one loop iteration of a matmul block loads. */
#define MAX_STAGE_BYTES  (24 * 1024)

static gint64
largest_divisor_at_most (gint64 n, gint64 limit)
{
  if (limit >= n)
    return n;
  for (gint64 d = limit; d > 1; d--)
    if (n % d == 0)
      return d;
  return 1;
}

/* How the grid partitions an output: grid axis p splits data dim axis_dim[p]
 * into axis_parts[p] tiles of tile[axis_dim[p]] elements. */
typedef struct
{
  guint ndims;
  gint64 dims[PRISM_MAX_DIMS];
  gint64 tile[PRISM_MAX_DIMS];
  guint n_axes;
  int axis_dim[PRISM_MAX_GRID_DIMS];
  gint64 axis_parts[PRISM_MAX_GRID_DIMS];
} Partition;

/* Gives grid axes to the dims from the last one backwards, each tile taking
 * what is left of @budget elements; dims in @whole stay whole. */
static void
partition_output (Partition *pt, guint ndims, const gint64 *dims, const gboolean *whole,
                  gint64 budget)
{
  memset (pt, 0, sizeof *pt);
  pt->ndims = ndims;
  memcpy (pt->dims, dims, sizeof (gint64) * ndims);
  memcpy (pt->tile, dims, sizeof (gint64) * ndims);
  for (int d = (int) ndims - 1; d >= 0; d--)
    {
      gint64 t, parts, limit;

      if (whole[d] || dims[d] == 1)
        continue;
      if (pt->n_axes == PRISM_MAX_GRID_DIMS)
        {
          budget = MAX (1, budget / dims[d]);
          continue;
        }
      t = largest_divisor_at_most (dims[d], MAX (budget, 1));
      parts = dims[d] / t;
      limit = pt->n_axes == 0 ? MAX_GRID_X : MAX_GRID_YZ;
      if (parts > limit)
        {
          parts = largest_divisor_at_most (dims[d], limit);
          t = dims[d] / parts;
        }
      pt->tile[d] = t;
      if (parts > 1)
        {
          pt->axis_dim[pt->n_axes] = d;
          pt->axis_parts[pt->n_axes] = parts;
          pt->n_axes++;
        }
      budget = MAX (1, budget / t);
    }
}

static PrismGraph *
partition_body (const Partition *pt, gint64 forloop)
{
  gint64 grid[PRISM_MAX_GRID_DIMS] = { 1, 1, 1 };

  for (guint p = 0; p < pt->n_axes; p++)
    grid[p] = pt->axis_parts[p];
  return prism_block_graph_new_const (MAX (pt->n_axes, 1), grid, BLOCK_THREADS, forloop);
}

/* A tile of kernel input @index (tensor @tensor of @g): mapped like the
 * output, except along dims where it broadcasts (size 1). */
static int
partition_tile (PrismGraph *body, const PrismGraph *g, guint index, guint tensor,
                const Partition *pt, int fmap, GError **error)
{
  const PrismTensor *t = prism_graph_tensor (g, tensor);
  int imap[PRISM_MAX_GRID_DIMS] = { PRISM_MAP_REPLICATE, PRISM_MAP_REPLICATE, PRISM_MAP_REPLICATE };

  for (guint p = 0; p < pt->n_axes; p++)
    if (prism_dim_get_const (t->dims[pt->axis_dim[p]]) == pt->dims[pt->axis_dim[p]])
      imap[p] = pt->axis_dim[p];
  return prism_block_graph_add_input (body, index, t->ndims, t->dims, t->dtype, imap, fmap, error);
}

/* Accumulates @t over the loop with @accum and writes it out as the
 * partition says. */
static gboolean
partition_output_accum (PrismGraph *body, PrismOpKind accum, int t, const Partition *pt,
                        GError **error)
{
  int omap[PRISM_MAX_GRID_DIMS] = { PRISM_MAP_REPLICATE, PRISM_MAP_REPLICATE, PRISM_MAP_REPLICATE };
  guint in[1];
  int acc;

  if (t < 0)
    return FALSE;
  in[0] = (guint) t;
  acc = prism_graph_add (body, accum, in, 1, NULL, error);
  if (acc < 0)
    return FALSE;
  for (guint p = 0; p < pt->n_axes; p++)
    omap[p] = pt->axis_dim[p];
  return prism_block_graph_add_output (body, (guint) acc, omap, error) >= 0;
}

static gboolean
partition_output_op (PrismGraph *body, int t, const Partition *pt, GError **error)
{
  return partition_output_accum (body, PRISM_OP_ACCUM, t, pt, error);
}

/* Adds @body as a kernel reading @inputs of @g; returns its first output or -1. */
static int
add_kernel (PrismGraph *g, const guint *inputs, guint n_inputs, PrismGraph *body, gboolean ok,
            GError **error)
{
  int op;

  if (!ok)
    return -1;
  op = prism_graph_add_kernel (g, inputs, n_inputs, body, error);
  if (op < 0)
    return -1;
  return (int) prism_graph_op (g, (guint) op)->outputs[0];
}

/* Elementwise ops, sum, max, mean, rms_norm and (@op NULL) a copy of @in[0]. */
static int
lower_simple (PrismGraph *g, const PrismOp *op, const gint64 *out_dims, guint ndims,
              const guint *in, GError **error)
{
  gboolean whole[PRISM_MAX_DIMS] = { FALSE, };
  g_autoptr(PrismGraph) body = NULL;
  gint64 numel = 1, budget, forloop = 1;
  PrismOpKind kind = op != NULL ? op->kind : PRISM_OP_ACCUM;
  int fmap = PRISM_MAP_REPLICATE;
  int tiles[2] = { -1, -1 };
  guint n_in = op != NULL ? op->n_inputs : 1;
  Partition pt;
  int t;

  for (guint d = 0; d < ndims; d++)
    numel *= out_dims[d];
  budget = CLAMP (numel / MIN_BLOCKS, MIN_TILE_ELEMENTS, TARGET_ELEMENTS);
  if (kind == PRISM_OP_RMS_NORM)
    for (guint d = ndims - op->attrs.norm_dims; d < ndims; d++)
      {
        whole[d] = TRUE;
        budget = MAX (1, budget / out_dims[d]);
      }
  else if (kind == PRISM_OP_MEAN)
    {
      /* The whole dim in one block: a mean of chunk means would need the
       * chunk count to divide by. */
      whole[op->attrs.dim] = TRUE;
      budget = MAX (1, budget / prism_dim_get_const (prism_graph_tensor (g, in[0])->dims[op->attrs.dim]));
    }
  else if (kind == PRISM_OP_SUM || kind == PRISM_OP_MAX)
    {
      gint64 n = prism_dim_get_const (prism_graph_tensor (g, in[0])->dims[op->attrs.dim]);
      gint64 chunk = largest_divisor_at_most (n, TARGET_CHUNK);

      whole[op->attrs.dim] = TRUE;
      forloop = n / chunk;
      fmap = op->attrs.dim;
      budget = MAX (1, budget / chunk);
    }
  partition_output (&pt, ndims, out_dims, whole, budget);
  body = partition_body (&pt, forloop);
  for (guint k = 0; k < n_in; k++)
    if ((tiles[k] = partition_tile (body, g, k, in[k], &pt, fmap, error)) < 0)
      return -1;

  if (op == NULL)
    t = tiles[0];
  else
    {
      guint tin[2] = { (guint) tiles[0], (guint) tiles[1] };
      t = prism_graph_add (body, kind, tin, n_in, &op->attrs, error);
    }
  return add_kernel (g, in, n_in, body,
                     partition_output_accum (body, kind == PRISM_OP_MAX ? PRISM_OP_ACCUM_MAX
                                                   : PRISM_OP_ACCUM, t, &pt, error), error);
}

/* A transpose: the grid partitions the output; each block reads the tile of
 * the input its output tile comes from (output dim d is input dim perm[d])
 * and transposes it in shared memory. */
static int
lower_transpose (PrismGraph *g, const PrismOp *op, const gint64 *out_dims, guint ndims,
                 const guint *in, GError **error)
{
  gboolean whole[PRISM_MAX_DIMS] = { FALSE, };
  g_autoptr(PrismGraph) body = NULL;
  gint64 numel = 1;
  const PrismTensor *x = prism_graph_tensor (g, in[0]);
  int imap[PRISM_MAX_GRID_DIMS] = { PRISM_MAP_REPLICATE, PRISM_MAP_REPLICATE, PRISM_MAP_REPLICATE };
  Partition pt;
  int tile, t;
  guint tin[1];

  for (guint d = 0; d < ndims; d++)
    numel *= out_dims[d];
  partition_output (&pt, ndims, out_dims, whole,
                    CLAMP (numel / MIN_BLOCKS, MIN_TILE_ELEMENTS, TARGET_ELEMENTS));
  body = partition_body (&pt, 1);
  for (guint p = 0; p < pt.n_axes; p++)
    imap[p] = op->attrs.perm[pt.axis_dim[p]];
  if ((tile = prism_block_graph_add_input (body, 0, x->ndims, x->dims, x->dtype, imap,
                                           PRISM_MAP_REPLICATE, error)) < 0)
    return -1;
  tin[0] = (guint) tile;
  t = prism_graph_add (body, PRISM_OP_TRANSPOSE, tin, 1, &op->attrs, error);
  return add_kernel (g, in, 1, body, partition_output_op (body, t, &pt, error), error);
}

/* A constant: one block writes the value (custom kernels read it as an input). */
static int
lower_constant (PrismGraph *g, const PrismOp *op, guint ndims, PrismDtype dtype, GError **error)
{
  g_autoptr(PrismGraph) body = prism_block_graph_new_const (1, (gint64[]) { 1 }, BLOCK_THREADS, 1);
  gboolean whole[PRISM_MAX_DIMS] = { FALSE, };
  gint64 ones[PRISM_MAX_DIMS] = { 1, 1, 1, 1 };
  Partition pt;
  int t;

  partition_output (&pt, ndims, ones, whole, 1);
  t = prism_graph_add_constant (body, op->attrs.value, ndims, dtype, error);
  return add_kernel (g, NULL, 0, body, partition_output_op (body, t, &pt, error), error);
}

static gint64
pick_tile (gint64 n, const gint64 *choices, guint n_choices, gint64 fallback_limit)
{
  for (guint i = 0; i < n_choices; i++)
    if (n % choices[i] == 0)
      return choices[i];
  return largest_divisor_at_most (n, fallback_limit);
}

/* How far to split K: the fewest parts that give 2 × SMs blocks, no part
 * shorter than MIN_SPLIT_K, each a multiple of 16 (the fragment depth) when
 * K is one. */
static gint64
pick_split_k (gint64 k, gint64 tiles, gint64 want_blocks)
{
  gint64 best = 1;

  for (gint64 parts = 2; parts <= k / MIN_SPLIT_K && tiles * best < want_blocks; parts++)
    {
      if (k % parts != 0 || (k % 16 == 0 && (k / parts) % 16 != 0))
        continue;
      if (k / parts < MIN_SPLIT_K)
        break;
      best = parts;
    }
  return best;
}

/* The loop's K tile: the deepest of 128, 64, 32, 16 that divides the block's
 * K, keeps a stage within MAX_STAGE_BYTES and leaves two iterations (for the
 * ring) when the block's K allows. */
static gint64
pick_k_tile (gint64 kblk, gint64 bm, gint64 bn, gsize esize)
{
  static const gint64 choices[] = { 128, 64, 32, 16 };

  for (guint i = 0; i < G_N_ELEMENTS (choices); i++)
    {
      gint64 bk = choices[i];
      if (kblk % bk != 0 || (gsize) (bm + bn) * bk * esize > MAX_STAGE_BYTES)
        continue;
      if (kblk / bk < 2 && bk > 16 && kblk % (bk / 2) == 0 && kblk > 64)
        continue;
      return bk;
    }
  return largest_divisor_at_most (kblk, 64);
}

/* Batched matmul: the grid splits N (x), M (y), the innermost batch dim (z)
 * and, when that leaves too few blocks, K; the loop walks the block's K;
 * dims further out stay whole inside the block. */
static int
lower_matmul (PrismGraph *g, const guint *in, guint sm_count, GError **error)
{
  static const gint64 m_choices[] = { 64, 32, 16, 8 };
  static const gint64 n_choices[] = { 128, 64, 32, 16 };
  const PrismTensor *a = prism_graph_tensor (g, in[0]);
  const PrismTensor *b = prism_graph_tensor (g, in[1]);
  guint r = a->ndims;
  gint64 m = prism_dim_get_const (a->dims[r - 2]);
  gint64 k = prism_dim_get_const (a->dims[r - 1]);
  gint64 n = prism_dim_get_const (b->dims[r - 1]);
  gint64 batch = r >= 3 ? prism_dim_get_const (a->dims[r - 3]) : 1;
  gint64 bm = pick_tile (m, m_choices, G_N_ELEMENTS (m_choices), 64);
  gint64 want_blocks = 2 * (gint64) (sm_count ? sm_count : DEFAULT_SM_COUNT);
  gint64 bn = -1, outer, tiles, ks = 1, bk;
  gint64 grid[PRISM_MAX_GRID_DIMS] = { 1, 1, 1 };
  int amap[PRISM_MAX_GRID_DIMS] = { -1, -1, -1 };
  int bmap[PRISM_MAX_GRID_DIMS] = { -1, -1, -1 };
  int omap[PRISM_MAX_GRID_DIMS] = { -1, -1, -1 };
  g_autoptr(PrismGraph) body = NULL;
  guint n_axes = 0;
  gboolean split_batch = batch > 1 && batch <= MAX_GRID_YZ;
  int at, bt, mm, acc;
  guint tin[2];

  outer = (m / bm) * (split_batch ? batch : 1);
  /* The widest column tile that still gives enough blocks; failing that, 64
   * wide (or the widest that fits) and K splits to make up the blocks. */
  for (guint i = 0; i < G_N_ELEMENTS (n_choices); i++)
    /* With 8-row tiles only the 8×32×16 tensor-core fragment fits: keep
     * the column tile a multiple of 32. */
    if (n % n_choices[i] == 0 && (bm % 16 == 0 || n_choices[i] % 32 == 0))
      {
        if (bn < 0 || n_choices[i] >= 64)
          bn = n_choices[i];
        if (outer * (n / n_choices[i]) >= want_blocks)
          {
            bn = n_choices[i];
            break;
          }
      }
  if (bn < 0)
    bn = largest_divisor_at_most (n, 128);

  if (n / bn > 1)
    {
      grid[n_axes] = n / bn;
      bmap[n_axes] = omap[n_axes] = (int) r - 1;
      n_axes++;
    }
  if (m / bm > 1)
    {
      if (m / bm > MAX_GRID_YZ)
        bm = m / largest_divisor_at_most (m, MAX_GRID_YZ);
      grid[n_axes] = m / bm;
      amap[n_axes] = omap[n_axes] = (int) r - 2;
      n_axes++;
    }
  if (split_batch)
    {
      grid[n_axes] = batch;
      amap[n_axes] = bmap[n_axes] = omap[n_axes] = (int) r - 3;
      n_axes++;
    }
  tiles = (n / bn) * (m / bm) * (split_batch ? batch : 1);
  if (n_axes < PRISM_MAX_GRID_DIMS && tiles < want_blocks)
    ks = pick_split_k (k, tiles, want_blocks);
  if (ks > 1)
    {
      /* Blocks along this axis each take a slice of K and add into the
       * same output tile (omap −1). */
      grid[n_axes] = ks;
      amap[n_axes] = (int) r - 1;
      bmap[n_axes] = (int) r - 2;
      omap[n_axes] = PRISM_MAP_REPLICATE;
      n_axes++;
    }
  bk = pick_k_tile (k / ks, bm, bn, prism_dtype_size (a->dtype));

  body = prism_block_graph_new_const (MAX (n_axes, 1), grid, BLOCK_THREADS, k / ks / bk);
  at = prism_block_graph_add_input (body, 0, r, a->dims, a->dtype, amap, (int) r - 1, error);
  if (at < 0)
    return -1;
  bt = prism_block_graph_add_input (body, 1, r, b->dims, b->dtype, bmap, (int) r - 2, error);
  if (bt < 0)
    return -1;
  tin[0] = (guint) at;
  tin[1] = (guint) bt;
  if ((mm = prism_graph_add (body, PRISM_OP_MATMUL, tin, 2, NULL, error)) < 0)
    return -1;
  tin[0] = (guint) mm;
  if ((acc = prism_graph_add (body, PRISM_OP_ACCUM, tin, 1, NULL, error)) < 0)
    return -1;
  return add_kernel (g, in, 2, body,
                     prism_block_graph_add_output (body, (guint) acc, omap, error) >= 0, error);
}

/* Lowers op @op of @graph into @g, whose tensors @in stand for its inputs;
 * returns the tensor of @g that holds its output, or -1. */
static int
lower_one (PrismGraph *g, const PrismGraph *graph, guint i, const PrismOp *op, const guint *in,
           const PrismLowerOptions *options, GError **error)
{
  const PrismTensor *out = prism_graph_tensor (graph, op->outputs[0]);
  gint64 shape[PRISM_MAX_DIMS];

  if (op->kind == PRISM_OP_MATMUL)
    return lower_matmul (g, in, options->sm_count, error);
  if (op->kind == PRISM_OP_CONSTANT)
    return lower_constant (g, op, out->ndims, out->dtype, error);
  if (!prism_op_kind_is_unary (op->kind) && !prism_op_kind_is_binary (op->kind) &&
      !prism_op_kind_is_reduction (op->kind) && op->kind != PRISM_OP_RMS_NORM &&
      op->kind != PRISM_OP_TRANSPOSE)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED,
                   "op %u (%s) cannot appear in a kernel graph", i, prism_op_kind_to_string (op->kind));
      return -1;
    }
  if (!prism_tensor_get_shape (out, shape))
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED,
                   "op %u (%s): its output has symbolic dims", i, prism_op_kind_to_string (op->kind));
      return -1;
    }
  if (op->kind == PRISM_OP_TRANSPOSE)
    return lower_transpose (g, op, shape, out->ndims, in, error);
  return lower_simple (g, op, shape, out->ndims, in, error);
}

PrismGraph *
prism_lower_predefined_ops (const PrismGraph *graph, GError **error)
{
  return prism_lower_predefined_ops_full (graph, NULL, error);
}

PrismGraph *
prism_lower_predefined_ops_full (const PrismGraph *graph, const PrismLowerOptions *options,
                                 GError **error)
{
  PrismLowerOptions defaults = { 0, };
  g_autoptr(PrismGraph) g = NULL;
  g_autofree guint *map = NULL;
  g_autofree gboolean *is_input = NULL;
  g_autofree gboolean *is_output = NULL;

  g_return_val_if_fail (graph != NULL, NULL);
  if (options == NULL)
    options = &defaults;

  if (graph->level != PRISM_LEVEL_KERNEL)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_INVALID_GRAPH,
                   "code generation needs a kernel graph, not a block graph");
      return NULL;
    }
  if (!prism_graph_is_concrete (graph))
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED,
                   "code generation needs concrete sizes and maps; “%s” still has symbols",
                   graph->name ? graph->name : "the graph");
      return NULL;
    }
  if (!prism_graph_validate (graph, error))
    return NULL;

  g = prism_graph_new ();
  prism_graph_set_name (g, graph->name, graph->description);
  map = g_new0 (guint, graph->tensors->len);
  is_input = g_new0 (gboolean, graph->tensors->len);
  is_output = g_new0 (gboolean, graph->tensors->len);

  for (guint i = 0; i < graph->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (graph, i);
      guint in[PRISM_MAX_OP_INPUTS];
      gint64 shape[PRISM_MAX_DIMS];
      int t = -1;

      for (guint k = 0; k < op->n_inputs; k++)
        in[k] = map[op->inputs[k]];

      switch (op->kind)
        {
        case PRISM_OP_INPUT:
          {
            const PrismTensor *src = prism_graph_tensor (graph, op->outputs[0]);
            prism_tensor_get_shape (src, shape);
            t = prism_graph_add_input (g, op->name, src->ndims, shape, src->dtype, error);
            if (t >= 0)
              is_input[op->outputs[0]] = TRUE;
          }
          break;

        case PRISM_OP_OUTPUT:
          {
            guint src = op->inputs[0];
            guint out = in[0];

            if (is_input[src] || is_output[src])
              {
                const PrismTensor *st = prism_graph_tensor (graph, src);
                int c;

                prism_tensor_get_shape (st, shape);
                if ((c = lower_simple (g, NULL, shape, st->ndims, &out, error)) < 0)
                  break;
                out = (guint) c;
              }
            is_output[src] = TRUE;
            if (prism_graph_add_output (g, out, op->name, error) < 0)
              break;
            t = 0;
          }
          break;

        case PRISM_OP_KERNEL:
          {
            int kop = prism_graph_add_kernel (g, in, op->n_inputs, op->body, error);

            if (kop >= 0)
              {
                const PrismOp *nop = prism_graph_op (g, (guint) kop);
                for (guint o = 0; o < op->n_outputs; o++)
                  map[op->outputs[o]] = nop->outputs[o];
                t = 0;
              }
          }
          break;

        case PRISM_OP_MATMUL:
          if (options->keep_matmul)
            t = prism_graph_add (g, PRISM_OP_MATMUL, in, 2, NULL, error);
          else
            t = lower_one (g, graph, i, op, in, options, error);
          break;

        default:
          t = lower_one (g, graph, i, op, in, options, error);
          break;
        }

      if (t < 0)
        {
          g_prefix_error (error, "lowering op %u (%s): ", i, prism_op_kind_to_string (op->kind));
          return NULL;
        }
      if (op->kind != PRISM_OP_OUTPUT && op->kind != PRISM_OP_KERNEL)
        map[op->outputs[0]] = (guint) t;
    }

  return g_steal_pointer (&g);
}

PrismGraph *
prism_lower_op (const PrismGraph *graph, guint op_index, const PrismLowerOptions *options,
                GError **error)
{
  PrismLowerOptions defaults = { 0, };
  const PrismOp *op;
  g_autoptr(PrismGraph) g = prism_graph_new ();
  guint in[PRISM_MAX_OP_INPUTS];
  int t;

  g_return_val_if_fail (graph != NULL && op_index < graph->ops->len, NULL);
  if (options == NULL)
    options = &defaults;
  op = prism_graph_op (graph, op_index);
  for (guint k = 0; k < op->n_inputs; k++)
    {
      const PrismTensor *src = prism_graph_tensor (graph, op->inputs[k]);
      gint64 shape[PRISM_MAX_DIMS];
      int id;

      if (!prism_tensor_get_shape (src, shape))
        {
          g_set_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED,
                       "op %u (%s): input %u has symbolic dims", op_index,
                       prism_op_kind_to_string (op->kind), k);
          return NULL;
        }
      if ((id = prism_graph_add_input (g, NULL, src->ndims, shape, src->dtype, error)) < 0)
        return NULL;
      in[k] = (guint) id;
    }
  t = lower_one (g, graph, op_index, op, in, options, error);
  if (t < 0)
    return NULL;
  return prism_graph_ref (prism_graph_op (g, (guint) prism_graph_tensor (g, (guint) t)->producer)->body);
}
