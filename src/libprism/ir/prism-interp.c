/* prism-interp.c — the CPU interpreter
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Predefined ops run directly on whole tensors (big matmuls split over a few
 * threads).  A custom kernel runs block by block: every block owns one tile
 * buffer per block-graph tensor, loads its input tiles at every loop
 * iteration, updates its accumulators, runs the epilogue once and adds its
 * output tiles into the kernel's outputs.  Blocks are spread over threads so
 * that all the blocks summed into one output location (omap -1) run on the
 * same thread in a fixed order: results never depend on the thread count.
 */
#include "config.h"

#include <math.h>
#include <string.h>
#include <unistd.h>
#include <gio/gio.h>

#include "prism-error.h"
#include "prism-interp.h"

/* The work of an op beyond its elements (a function call, a tile's
 * bookkeeping): about what 16 elementwise operations cost. */
#define OP_OVERHEAD 16
/* Below this many multiply-adds (or element operations) threads cost more
 * than they save. */
#define PARALLEL_MIN_WORK (G_GINT64_CONSTANT (1) << 18)
/* Output tile of one matmul work item: rows × columns. */
#define MM_ROWS 16
#define MM_COLS 256

typedef struct
{
  gboolean f32;
  guint n_threads;
  GCancellable *cancel;   /* the caller's current one (nullable), read by every thread */
} Ctx;

static inline gboolean
stopped (const Ctx *ctx)
{
  return ctx->cancel != NULL && g_cancellable_is_cancelled (ctx->cancel);
}

static inline double
rnd (const Ctx *ctx, double x)
{
  return ctx->f32 ? (double) (float) x : x;
}

static void
round_all (const Ctx *ctx, double *data, gint64 n)
{
  if (!ctx->f32)
    return;
  for (gint64 i = 0; i < n; i++)
    data[i] = (double) (float) data[i];
}

/* Right-aligns @ndims dims into 4, padding in front with @fill. */
static void
pad4 (guint ndims, const gint64 *dims, gint64 fill, gint64 *out)
{
  guint off = 4 - ndims;

  for (guint i = 0; i < off; i++)
    out[i] = fill;
  for (guint i = 0; i < ndims; i++)
    out[off + i] = dims[i];
}

/* ------------------------------------------------------------------------ */
/* A minimal parallel for: the calling thread and n - 1 helpers take items
 * from a shared counter.  Items are independent, so the split does not
 * change any result. */

typedef void (*WorkFunc) (gpointer user_data, guint thread, gint64 item);

typedef struct
{
  WorkFunc func;
  gpointer user_data;
  gint n_items;
  gint next;   /* atomic */
} Work;

typedef struct
{
  Work *work;
  guint index;
} Worker;

static void
work_drain (Work *work, guint thread)
{
  for (;;)
    {
      gint item = g_atomic_int_add (&work->next, 1);

      if (item >= work->n_items)
        break;
      work->func (work->user_data, thread, item);
    }
}

static gpointer
worker_main (gpointer data)
{
  Worker *w = data;

  work_drain (w->work, w->index);
  return NULL;
}

/* @n_items must be below G_MAXINT - @n_threads (callers check). */
static void
parallel_for (guint n_threads, gint64 n_items, WorkFunc func, gpointer user_data)
{
  Work work = { func, user_data, (gint) n_items, 0 };
  g_autofree GThread **threads = NULL;
  g_autofree Worker *workers = NULL;

  n_threads = (guint) MIN ((gint64) n_threads, n_items);
  if (n_threads <= 1)
    {
      for (gint64 i = 0; i < n_items; i++)
        func (user_data, 0, i);
      return;
    }
  threads = g_new0 (GThread *, n_threads);
  workers = g_new0 (Worker, n_threads);
  for (guint t = 1; t < n_threads; t++)
    {
      workers[t].work = &work;
      workers[t].index = t;
      /* A thread that cannot start only costs speed: the others take its items. */
      threads[t] = g_thread_try_new ("prism-interp", worker_main, &workers[t], NULL);
    }
  work_drain (&work, 0);
  for (guint t = 1; t < n_threads; t++)
    if (threads[t] != NULL)
      g_thread_join (threads[t]);
}

/* ------------------------------------------------------------------------ */
/* Ops on whole buffers */

static void
unary_op (const Ctx *ctx, PrismOpKind kind, const PrismBuffer *x, PrismBuffer *y)
{
  const double *in = x->data;
  double *out = y->data;
  gint64 n = x->numel;

  switch ((int) kind)
    {
    case PRISM_OP_EXP:
      for (gint64 i = 0; i < n; i++)
        out[i] = exp (in[i]);
      break;
    case PRISM_OP_SQUARE:
      for (gint64 i = 0; i < n; i++)
        out[i] = in[i] * in[i];
      break;
    case PRISM_OP_SQRT:
      for (gint64 i = 0; i < n; i++)
        out[i] = sqrt (in[i]);
      break;
    case PRISM_OP_SILU:
      for (gint64 i = 0; i < n; i++)
        out[i] = in[i] / (1.0 + exp (-in[i]));
      break;
    case PRISM_OP_GELU:
      for (gint64 i = 0; i < n; i++)
        out[i] = 0.5 * in[i] * (1.0 + erf (in[i] * M_SQRT1_2));
      break;
    case PRISM_OP_RELU:
      for (gint64 i = 0; i < n; i++)
        out[i] = in[i] > 0.0 ? in[i] : 0.0;
      break;
    case PRISM_OP_NEG:
      for (gint64 i = 0; i < n; i++)
        out[i] = -in[i];
      break;
    default:
      g_assert_not_reached ();
    }
  round_all (ctx, out, n);
}

static inline double
binary_apply (PrismOpKind kind, double a, double b)
{
  switch ((int) kind)
    {
    case PRISM_OP_ADD:
      return a + b;
    case PRISM_OP_SUB:
      return a - b;
    case PRISM_OP_MUL:
      return a * b;
    case PRISM_OP_DIV:
      return a / b;
    case PRISM_OP_POW:
      return pow (a, b);
    case PRISM_OP_MAXIMUM:
      /* fmax, as CUDA's fmaxf: a NaN operand yields the other one. */
      return fmax (a, b);
    default:
      g_assert_not_reached ();
    }
  return 0.0;
}

/* Row-major strides of @dims (4 padded dims), 0 where a dim of size 1 is
 * broadcast against a bigger @out dim. */
static void
broadcast_strides (const gint64 *dims, const gint64 *out, gint64 *strides)
{
  gint64 s = 1;

  for (int i = 3; i >= 0; i--)
    {
      strides[i] = dims[i] == 1 && out[i] != 1 ? 0 : s;
      s *= dims[i];
    }
}

static void
binary_op (const Ctx *ctx, PrismOpKind kind, const PrismBuffer *a, const PrismBuffer *b,
           PrismBuffer *y)
{
  gint64 ad[4], bd[4], od[4], as[4], bs[4];
  double *out = y->data;

  pad4 (a->ndims, a->dims, 1, ad);
  pad4 (b->ndims, b->dims, 1, bd);
  pad4 (y->ndims, y->dims, 1, od);
  broadcast_strides (ad, od, as);
  broadcast_strides (bd, od, bs);
  for (gint64 i0 = 0; i0 < od[0]; i0++)
    for (gint64 i1 = 0; i1 < od[1]; i1++)
      for (gint64 i2 = 0; i2 < od[2]; i2++)
        {
          const double *pa = a->data + i0 * as[0] + i1 * as[1] + i2 * as[2];
          const double *pb = b->data + i0 * bs[0] + i1 * bs[1] + i2 * bs[2];

          for (gint64 i3 = 0; i3 < od[3]; i3++)
            *out++ = rnd (ctx, binary_apply (kind, pa[i3 * as[3]], pb[i3 * bs[3]]));
        }
}

static void
sum_op (const Ctx *ctx, const PrismBuffer *x, int dim, PrismBuffer *y)
{
  gint64 outer = 1, inner = 1, n = x->dims[dim];

  for (int i = 0; i < dim; i++)
    outer *= x->dims[i];
  for (guint i = (guint) dim + 1; i < x->ndims; i++)
    inner *= x->dims[i];
  memset (y->data, 0, sizeof (double) * y->numel);
  for (gint64 o = 0; o < outer; o++)
    for (gint64 j = 0; j < n; j++)
      {
        const double *src = x->data + (o * n + j) * inner;
        double *dst = y->data + o * inner;

        for (gint64 k = 0; k < inner; k++)
          dst[k] += src[k];
      }
  round_all (ctx, y->data, y->numel);
}

/* max or mean over @dim, the dim kept as size 1. */
static void
reduce_op (const Ctx *ctx, PrismOpKind kind, const PrismBuffer *x, int dim, PrismBuffer *y)
{
  gint64 outer = 1, inner = 1, n = x->dims[dim];

  if (kind == PRISM_OP_SUM)
    {
      sum_op (ctx, x, dim, y);
      return;
    }
  for (int i = 0; i < dim; i++)
    outer *= x->dims[i];
  for (guint i = (guint) dim + 1; i < x->ndims; i++)
    inner *= x->dims[i];
  for (gint64 o = 0; o < outer; o++)
    for (gint64 k = 0; k < inner; k++)
      {
        const double *src = x->data + o * n * inner + k;
        double acc = kind == PRISM_OP_MAX ? -INFINITY : 0.0;

        for (gint64 j = 0; j < n; j++)
          acc = kind == PRISM_OP_MAX ? fmax (acc, src[j * inner]) : acc + src[j * inner];
        if (kind == PRISM_OP_MEAN)
          acc /= (double) n;
        y->data[o * inner + k] = acc;
      }
  round_all (ctx, y->data, y->numel);
}

/* y[i0, i1, …] = x at the index whose dim perm[d] is i_d. */
static void
transpose_op (const PrismBuffer *x, const int *perm, PrismBuffer *y)
{
  gint64 xs[PRISM_MAX_DIMS], ys[PRISM_MAX_DIMS], idx[PRISM_MAX_DIMS] = { 0, };
  guint nd = x->ndims;

  xs[nd - 1] = 1;
  for (int i = (int) nd - 2; i >= 0; i--)
    xs[i] = xs[i + 1] * x->dims[i + 1];
  /* The stride in x of each output dim. */
  for (guint d = 0; d < nd; d++)
    ys[d] = xs[perm[d]];
  for (gint64 e = 0; e < y->numel; e++)
    {
      gint64 off = 0;

      for (guint d = 0; d < nd; d++)
        off += idx[d] * ys[d];
      y->data[e] = x->data[off];
      for (int d = (int) nd - 1; d >= 0; d--)
        {
          if (++idx[d] < y->dims[d])
            break;
          idx[d] = 0;
        }
    }
}

static void
rms_norm_op (const Ctx *ctx, const PrismBuffer *x, guint norm_dims, double eps, PrismBuffer *y)
{
  gint64 n = 1;

  for (guint i = x->ndims - norm_dims; i < x->ndims; i++)
    n *= x->dims[i];
  for (gint64 r = 0; r < x->numel / n; r++)
    {
      const double *src = x->data + r * n;
      double *dst = y->data + r * n;
      double ss = 0.0, scale;

      for (gint64 j = 0; j < n; j++)
        ss += src[j] * src[j];
      scale = sqrt (ss / (double) n + eps);
      for (gint64 j = 0; j < n; j++)
        dst[j] = rnd (ctx, src[j] / scale);
    }
}

static void
concat_op (const PrismBuffer *a, const PrismBuffer *b, int dim, PrismBuffer *y)
{
  gint64 outer = 1, ia = a->dims[dim], ib = b->dims[dim];

  for (int i = 0; i < dim; i++)
    outer *= a->dims[i];
  for (guint i = (guint) dim + 1; i < a->ndims; i++)
    {
      ia *= a->dims[i];
      ib *= a->dims[i];
    }
  for (gint64 o = 0; o < outer; o++)
    {
      memcpy (y->data + o * (ia + ib), a->data + o * ia, sizeof (double) * ia);
      memcpy (y->data + o * (ia + ib) + ia, b->data + o * ib, sizeof (double) * ib);
    }
}

typedef struct
{
  const Ctx *ctx;
  const double *a, *b;
  double *c;
  gint64 m, k, n;
  gint64 row_blocks, col_chunks;
} Matmul;

/* One item = a batch index, MM_ROWS rows and MM_COLS columns of C.  Every
 * element sums over k in ascending order, whatever the split. */
static void
matmul_item (gpointer user_data, guint thread, gint64 item)
{
  const Matmul *mm = user_data;
  gint64 cb = item % mm->col_chunks;
  gint64 rb = (item / mm->col_chunks) % mm->row_blocks;
  gint64 bt = item / mm->col_chunks / mm->row_blocks;
  gint64 i0 = rb * MM_ROWS, i1 = MIN (mm->m, i0 + MM_ROWS);
  gint64 j0 = cb * MM_COLS, j1 = MIN (mm->n, j0 + MM_COLS);
  const double *A = mm->a + bt * mm->m * mm->k;
  const double *B = mm->b + bt * mm->k * mm->n;
  double *C = mm->c + bt * mm->m * mm->n;

  /* A big matmul is most of a run: a stop skips the rest of it. */
  if (stopped (mm->ctx))
    return;
  for (gint64 i = i0; i < i1; i++)
    memset (C + i * mm->n + j0, 0, sizeof (double) * (j1 - j0));
  for (gint64 p = 0; p < mm->k; p++)
    {
      const double *brow = B + p * mm->n;

      for (gint64 i = i0; i < i1; i++)
        {
          double aip = A[i * mm->k + p];
          double *crow = C + i * mm->n;

          for (gint64 j = j0; j < j1; j++)
            crow[j] += aip * brow[j];
        }
    }
  if (mm->ctx->f32)
    for (gint64 i = i0; i < i1; i++)
      round_all (mm->ctx, C + i * mm->n + j0, j1 - j0);
}

static void
matmul_op (const Ctx *ctx, const PrismBuffer *a, const PrismBuffer *b, PrismBuffer *y,
           gboolean parallel)
{
  Matmul mm = { ctx, a->data, b->data, y->data, 0, };
  gint64 batch, n_items;

  mm.m = a->dims[a->ndims - 2];
  mm.k = a->dims[a->ndims - 1];
  mm.n = b->dims[b->ndims - 1];
  batch = a->numel / (mm.m * mm.k);
  mm.row_blocks = (mm.m + MM_ROWS - 1) / MM_ROWS;
  mm.col_chunks = (mm.n + MM_COLS - 1) / MM_COLS;
  n_items = batch * mm.row_blocks * mm.col_chunks;
  if (parallel && ctx->n_threads > 1 && batch * mm.m * mm.n * mm.k >= PARALLEL_MIN_WORK &&
      n_items < G_MAXINT / 2)
    parallel_for (ctx->n_threads, n_items, matmul_item, &mm);
  else
    for (gint64 i = 0; i < n_items; i++)
      matmul_item (&mm, 0, i);
}

/* Computes a non-accumulator op from @bufs (indexed by tensor id). */
static void
compute_op (const Ctx *ctx, const PrismGraph *g, const PrismOp *op, PrismBuffer **bufs,
            gboolean parallel)
{
  PrismBuffer *y = bufs[op->outputs[0]];
  const PrismBuffer *a = op->n_inputs > 0 ? bufs[op->inputs[0]] : NULL;
  const PrismBuffer *b = op->n_inputs > 1 ? bufs[op->inputs[1]] : NULL;

  if (op->kind == PRISM_OP_RUNNING_MAX)
    {
      /* The accum_max's tile holds its value so far: its step comes first. */
      memcpy (y->data, a->data, sizeof (double) * (gsize) y->numel);
      return;
    }
  if (op->kind == PRISM_OP_CONSTANT)
    {
      /* Rounded to its dtype, as an input of that dtype is. */
      y->data[0] = rnd (ctx, prism_dtype_round_value (op->attrs.value,
                                                      prism_graph_tensor (g, op->outputs[0])->dtype));
      return;
    }
  if (prism_op_kind_is_unary (op->kind))
    unary_op (ctx, op->kind, a, y);
  else if (prism_op_kind_is_binary (op->kind))
    binary_op (ctx, op->kind, a, b, y);
  else if (op->kind == PRISM_OP_MATMUL)
    matmul_op (ctx, a, b, y, parallel);
  else if (prism_op_kind_is_reduction (op->kind))
    reduce_op (ctx, op->kind, a, op->attrs.dim, y);
  else if (op->kind == PRISM_OP_TRANSPOSE)
    transpose_op (a, op->attrs.perm, y);
  else if (op->kind == PRISM_OP_RMS_NORM)
    rms_norm_op (ctx, a, op->attrs.norm_dims, op->attrs.eps, y);
  else if (op->kind == PRISM_OP_CONCAT)
    concat_op (a, b, op->attrs.dim, y);
  else
    g_assert_not_reached ();
}

/* ------------------------------------------------------------------------ */
/* Custom kernels */

typedef struct
{
  PrismBuffer **tiles;   /* per block-graph tensor id (owned) */
  /* Per block-graph tensor id, for the outputs of online accumulators: the
   * running max they last rescaled to (owned; NULL elsewhere). */
  PrismBuffer **prev_max;
} Workspace;

typedef struct
{
  const Ctx *ctx;
  const PrismGraph *body;
  PrismBuffer **inputs;    /* the kernel's inputs, by input index (borrowed) */
  PrismBuffer **outputs;   /* by block OUTPUT op order (borrowed) */
  guint *out_slot;         /* per block op: its index in outputs */
  gboolean *invariant;     /* per block tensor: the same at every iteration */
  gint64 grid[PRISM_MAX_GRID_DIMS];
  gint64 forloop;
  guint n_outer_axes, n_summed_axes;
  guint outer_axes[PRISM_MAX_GRID_DIMS];
  guint summed_axes[PRISM_MAX_GRID_DIMS];
  gint64 n_inner;
  Workspace *ws;           /* per thread */
} KernelRun;

/* Copies the box of @tile's shape at @start of @big into @tile, or (@store)
 * adds @tile into that box. */
static void
box_transfer (const Ctx *ctx, PrismBuffer *big, const gint64 *start, PrismBuffer *tile,
              gboolean store)
{
  gint64 bd[4], td[4], st[4], bs[4];
  double *t = tile->data;

  pad4 (big->ndims, big->dims, 1, bd);
  pad4 (tile->ndims, tile->dims, 1, td);
  pad4 (big->ndims, start, 0, st);
  bs[3] = 1;
  for (int i = 2; i >= 0; i--)
    bs[i] = bs[i + 1] * bd[i + 1];
  for (gint64 i0 = 0; i0 < td[0]; i0++)
    for (gint64 i1 = 0; i1 < td[1]; i1++)
      for (gint64 i2 = 0; i2 < td[2]; i2++)
        {
          double *row = big->data + (st[0] + i0) * bs[0] + (st[1] + i1) * bs[1] +
                        (st[2] + i2) * bs[2] + st[3];
          if (store)
            for (gint64 i3 = 0; i3 < td[3]; i3++)
              row[i3] = rnd (ctx, row[i3] + t[i3]);
          else
            memcpy (t, row, sizeof (double) * td[3]);
          t += td[3];
        }
}

static void
load_tile (const KernelRun *run, const PrismOp *op, const gint64 *bidx, gint64 iter,
           PrismBuffer *tile)
{
  PrismBuffer *src = run->inputs[op->attrs.input_index];
  gint64 start[PRISM_MAX_DIMS];

  for (guint d = 0; d < src->ndims; d++)
    {
      gint64 off = 0;

      for (guint p = 0; p < run->body->grid_ndims; p++)
        if (op->attrs.imap[p] == (int) d)
          off = bidx[p];
      /* Grid partition outer, loop partition inner. */
      if (op->attrs.fmap == (int) d)
        off = off * run->forloop + iter;
      start[d] = off * tile->dims[d];
    }
  box_transfer (run->ctx, src, start, tile, FALSE);
}

static void
store_tile (const KernelRun *run, guint op_index, const PrismOp *op, const gint64 *bidx,
            PrismBuffer *tile)
{
  PrismBuffer *dst = run->outputs[run->out_slot[op_index]];
  gint64 start[PRISM_MAX_DIMS];

  for (guint d = 0; d < dst->ndims; d++)
    {
      start[d] = 0;
      for (guint p = 0; p < run->body->grid_ndims; p++)
        if (op->attrs.omap[p] == (int) d)
          start[d] = bidx[p] * tile->dims[d];
    }
  /* Always adds: outputs start at zero, and blocks that share a location
   * (omap -1) are summed. */
  box_transfer (run->ctx, dst, start, tile, TRUE);
}

/* Flat index into @s (dims 1 or equal to @acc's) of element @j of @acc. */
static gint64
broadcast_index (const PrismBuffer *acc, const PrismBuffer *s, gint64 j)
{
  gint64 idx = 0, stride = 1;

  for (int d = (int) acc->ndims - 1; d >= 0; d--)
    {
      gint64 coord = j % acc->dims[d];

      j /= acc->dims[d];
      if (s->dims[d] != 1)
        idx += coord * stride;
      stride *= s->dims[d];
    }
  return idx;
}

static void
accum_init (const PrismOp *op, Workspace *ws)
{
  PrismBuffer *acc = ws->tiles[op->outputs[0]];
  PrismBuffer *prev = ws->prev_max[op->outputs[0]];
  double v = op->kind == PRISM_OP_ACCUM_MAX ? -INFINITY : 0.0;

  for (gint64 j = 0; j < acc->numel; j++)
    acc->data[j] = v;
  if (prev != NULL)
    for (gint64 j = 0; j < prev->numel; j++)
      prev->data[j] = -INFINITY;
}

/* exp(m_prev − m), the factor that moves a sum of exp(· − m_prev) terms to
 * exp(· − m); 1 when the max did not change (also when both are −∞, before
 * any finite value was seen, where the difference is not defined). */
static double
online_factor (const Ctx *ctx, double prev, double cur)
{
  if (prev == cur)
    return 1.0;
  return rnd (ctx, exp (prev - cur));
}

/* ACCUM_ONLINE and ACCUM_SUM_ONLINE: acc = acc · exp(m_prev − m) + x. */
static void
online_step (const Ctx *ctx, const PrismOp *op, Workspace *ws)
{
  const PrismBuffer *x = ws->tiles[op->inputs[0]];
  const PrismBuffer *m = ws->tiles[op->inputs[1]];
  PrismBuffer *acc = ws->tiles[op->outputs[0]];
  PrismBuffer *prev = ws->prev_max[op->outputs[0]];
  gint64 last = x->dims[x->ndims - 1];

  for (gint64 j = 0; j < acc->numel; j++)
    {
      gint64 k = broadcast_index (acc, m, j);
      double part = 0.0;

      if (op->kind == PRISM_OP_ACCUM_SUM_ONLINE)
        {
          for (gint64 c = 0; c < last; c++)
            part += x->data[j * last + c];
          part = rnd (ctx, part);
        }
      else
        part = x->data[j];
      acc->data[j] = rnd (ctx, acc->data[j] * online_factor (ctx, prev->data[k], m->data[k]) + part);
    }
  memcpy (prev->data, m->data, sizeof (double) * (gsize) m->numel);
}

static void
accum_step (const Ctx *ctx, const PrismOp *op, Workspace *ws)
{
  PrismBuffer **tiles = ws->tiles;
  const PrismBuffer *x = tiles[op->inputs[0]];
  const PrismBuffer *s = op->n_inputs > 1 ? tiles[op->inputs[1]] : NULL;
  PrismBuffer *acc = tiles[op->outputs[0]];
  gint64 last = x->dims[x->ndims - 1];
  gint64 rows = x->numel / last;

  switch ((int) op->kind)
    {
    case PRISM_OP_ACCUM_ONLINE:
    case PRISM_OP_ACCUM_SUM_ONLINE:
      online_step (ctx, op, ws);
      break;
    case PRISM_OP_ACCUM:
      for (gint64 j = 0; j < acc->numel; j++)
        acc->data[j] = rnd (ctx, acc->data[j] + x->data[j]);
      break;
    case PRISM_OP_ACCUM_SUM:
    case PRISM_OP_ACCUM_MEAN:
    case PRISM_OP_ACCUM_RMS:
    case PRISM_OP_ACCUM_SUM_RESCALE:
      for (gint64 r = 0; r < rows; r++)
        {
          const double *row = x->data + r * last;
          double part = 0.0;

          if (op->kind == PRISM_OP_ACCUM_RMS)
            for (gint64 c = 0; c < last; c++)
              part += row[c] * row[c];
          else
            for (gint64 c = 0; c < last; c++)
              part += row[c];
          part = rnd (ctx, part);
          if (op->kind == PRISM_OP_ACCUM_SUM_RESCALE)
            acc->data[r] = rnd (ctx, acc->data[r] * s->data[broadcast_index (acc, s, r)] + part);
          else
            acc->data[r] = rnd (ctx, acc->data[r] + part);
        }
      break;
    case PRISM_OP_ACCUM_SUM_TODIMX:
      {
        gint64 dimx = acc->dims[acc->ndims - 1];

        for (gint64 r = 0; r < rows; r++)
          for (gint64 j = 0; j < dimx; j++)
            {
              double part = 0.0;

              for (gint64 c = j; c < last; c += dimx)
                part += x->data[r * last + c];
              acc->data[r * dimx + j] = rnd (ctx, acc->data[r * dimx + j] + rnd (ctx, part));
            }
      }
      break;
    case PRISM_OP_ACCUM_MAX:
      for (gint64 j = 0; j < acc->numel; j++)
        if (isnan (x->data[j]) || x->data[j] > acc->data[j])
          acc->data[j] = x->data[j];
      break;
    case PRISM_OP_ACCUM_RESCALE:
      for (gint64 j = 0; j < acc->numel; j++)
        acc->data[j] = rnd (ctx, acc->data[j] * s->data[broadcast_index (acc, s, j)] + x->data[j]);
      break;
    default:
      g_assert_not_reached ();
    }
}

static void
accum_finish (const KernelRun *run, const PrismOp *op, PrismBuffer **tiles)
{
  const PrismBuffer *x = tiles[op->inputs[0]];
  PrismBuffer *acc = tiles[op->outputs[0]];
  double count = (double) run->forloop * (double) x->dims[x->ndims - 1];

  if (op->kind == PRISM_OP_ACCUM_MEAN)
    for (gint64 j = 0; j < acc->numel; j++)
      acc->data[j] = rnd (run->ctx, acc->data[j] / count);
  else if (op->kind == PRISM_OP_ACCUM_RMS)
    for (gint64 j = 0; j < acc->numel; j++)
      acc->data[j] = rnd (run->ctx, sqrt (acc->data[j] / count));
}

static void
run_block (const KernelRun *run, Workspace *ws, const gint64 *bidx)
{
  const PrismGraph *body = run->body;
  PrismBuffer **tiles = ws->tiles;

  for (guint i = 0; i < body->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (body, i);
      if (prism_op_kind_is_accum (op->kind))
        accum_init (op, ws);
    }

  for (gint64 iter = 0; iter < run->forloop; iter++)
    for (guint i = 0; i < body->ops->len; i++)
      {
        const PrismOp *op = prism_graph_op (body, i);
        guint out;

        if (i == 0 && (iter & 63) == 63 && stopped (run->ctx))
          return;
        if (op->kind == PRISM_OP_OUTPUT)
          continue;
        out = op->outputs[0];
        if (prism_op_kind_is_accum (op->kind))
          accum_step (run->ctx, op, ws);
        else if (prism_graph_tensor (body, out)->after_accum)
          continue;
        /* Loop-invariant tiles hold the same values at every iteration;
         * computing them once is exactly equivalent. */
        else if (iter > 0 && run->invariant[out])
          continue;
        else if (op->kind == PRISM_OP_INPUT)
          load_tile (run, op, bidx, iter, tiles[out]);
        else
          compute_op (run->ctx, run->body, op, tiles, FALSE);
      }

  /* The epilogue, once, in op order (accumulators first finish). */
  for (guint i = 0; i < body->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (body, i);
      if (prism_op_kind_is_accum (op->kind))
        accum_finish (run, op, tiles);
    }
  for (guint i = 0; i < body->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (body, i);

      if (op->kind == PRISM_OP_OUTPUT)
        store_tile (run, i, op, bidx, tiles[op->inputs[0]]);
      else if (!prism_op_kind_is_accum (op->kind) && op->kind != PRISM_OP_INPUT &&
               prism_graph_tensor (body, op->outputs[0])->after_accum)
        compute_op (run->ctx, run->body, op, tiles, FALSE);
    }
}

static void
workspace_init (const KernelRun *run, Workspace *ws)
{
  const PrismGraph *body = run->body;

  ws->tiles = g_new0 (PrismBuffer *, body->tensors->len);
  for (guint t = 0; t < body->tensors->len; t++)
    {
      const PrismTensor *tensor = prism_graph_tensor (body, t);
      gint64 shape[PRISM_MAX_DIMS];

      prism_tensor_get_shape (tensor, shape);
      ws->tiles[t] = prism_buffer_new (tensor->ndims, shape);
    }
  ws->prev_max = g_new0 (PrismBuffer *, body->tensors->len);
  for (guint i = 0; i < body->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (body, i);
      const PrismTensor *m;
      gint64 shape[PRISM_MAX_DIMS];

      if (!prism_op_kind_is_online (op->kind))
        continue;
      m = prism_graph_tensor (body, op->inputs[1]);
      prism_tensor_get_shape (m, shape);
      ws->prev_max[op->outputs[0]] = prism_buffer_new (m->ndims, shape);
    }
}

static void
workspace_clear (const KernelRun *run, Workspace *ws)
{
  if (ws->tiles == NULL)
    return;
  for (guint t = 0; t < run->body->tensors->len; t++)
    {
      prism_buffer_free (ws->tiles[t]);
      if (ws->prev_max[t] != NULL)
        prism_buffer_free (ws->prev_max[t]);
    }
  g_clear_pointer (&ws->tiles, g_free);
  g_clear_pointer (&ws->prev_max, g_free);
}

/* One item = one combination of the grid axes no output sums over; the
 * blocks along the summed axes run here, in grid order (x fastest). */
static void
kernel_item (gpointer user_data, guint thread, gint64 item)
{
  const KernelRun *run = user_data;
  Workspace *ws = &run->ws[thread];
  gint64 bidx[PRISM_MAX_GRID_DIMS] = { 0, 0, 0 };

  if (ws->tiles == NULL)
    workspace_init (run, ws);
  for (guint a = 0; a < run->n_outer_axes; a++)
    {
      guint p = run->outer_axes[a];
      bidx[p] = item % run->grid[p];
      item /= run->grid[p];
    }
  for (gint64 inner = 0; inner < run->n_inner; inner++)
    {
      gint64 rem = inner;

      for (guint a = 0; a < run->n_summed_axes; a++)
        {
          guint p = run->summed_axes[a];
          bidx[p] = rem % run->grid[p];
          rem /= run->grid[p];
        }
      if (stopped (run->ctx))
        return;
      run_block (run, ws, bidx);
    }
}

G_GNUC_PRINTF (3, 4) static void
kernel_error (GError **error, guint op_index, const char *fmt, ...)
{
  va_list args;
  g_autofree char *msg = NULL;

  va_start (args, fmt);
  msg = g_strdup_vprintf (fmt, args);
  va_end (args);
  g_set_error (error, PRISM_ERROR, PRISM_ERROR_INVALID_GRAPH, "op %u (kernel): %s", op_index, msg);
}

/* Checks that every tile, partitioned as its maps say, covers its data
 * tensor exactly, so that no block reads or writes out of bounds. */
static gboolean
check_kernel (const KernelRun *run, guint kop, GError **error)
{
  const PrismGraph *body = run->body;

  for (guint i = 0; i < body->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (body, i);
      const PrismBuffer *data;
      const PrismTensor *tile;
      const int *map;

      if (op->kind == PRISM_OP_INPUT)
        {
          data = run->inputs[op->attrs.input_index];
          tile = prism_graph_tensor (body, op->outputs[0]);
          map = op->attrs.imap;
        }
      else if (op->kind == PRISM_OP_OUTPUT)
        {
          data = run->outputs[run->out_slot[i]];
          tile = prism_graph_tensor (body, op->inputs[0]);
          map = op->attrs.omap;
        }
      else
        {
          const PrismOp *acc = op;
          if (acc->kind == PRISM_OP_ACCUM_RESCALE || acc->kind == PRISM_OP_ACCUM_SUM_RESCALE)
            {
              const PrismTensor *a = prism_graph_tensor (body, acc->outputs[0]);
              const PrismTensor *s = prism_graph_tensor (body, acc->inputs[1]);
              for (guint d = 0; d < a->ndims; d++)
                if (s->ndims != a->ndims ||
                    (prism_dim_get_const (s->dims[d]) != 1 &&
                     prism_dim_get_const (s->dims[d]) != prism_dim_get_const (a->dims[d])))
                  {
                    kernel_error (error, kop, "block op %u (%s): the scale does not broadcast to the accumulator",
                                  i, prism_op_kind_to_string (acc->kind));
                    return FALSE;
                  }
            }
          continue;
        }
      if (data->ndims != tile->ndims)
        {
          kernel_error (error, kop, "block op %u (%s): rank %u tile of a rank-%u tensor", i,
                        prism_op_kind_to_string (op->kind), tile->ndims, data->ndims);
          return FALSE;
        }
      for (guint d = 0; d < data->ndims; d++)
        {
          gint64 parts = 1;

          for (guint p = 0; p < body->grid_ndims; p++)
            {
              if (map[p] < PRISM_MAP_REPLICATE || map[p] >= (int) data->ndims)
                {
                  kernel_error (error, kop, "block op %u (%s): map entry %d out of range", i,
                                prism_op_kind_to_string (op->kind), map[p]);
                  return FALSE;
                }
              if (map[p] == (int) d)
                parts *= run->grid[p];
            }
          if (op->kind == PRISM_OP_INPUT && op->attrs.fmap == (int) d)
            parts *= run->forloop;
          if (prism_dim_get_const (tile->dims[d]) * parts != data->dims[d])
            {
              kernel_error (error, kop,
                            "block op %u (%s): dim %u: tile %" G_GINT64_FORMAT " × %" G_GINT64_FORMAT
                            " parts does not cover %" G_GINT64_FORMAT, i,
                            prism_op_kind_to_string (op->kind), d,
                            prism_dim_get_const (tile->dims[d]), parts, data->dims[d]);
              return FALSE;
            }
        }
    }
  return TRUE;
}

static gboolean
run_kernel (const Ctx *ctx, guint kop, const PrismOp *op, PrismBuffer **bufs, GError **error)
{
  const PrismGraph *body = op->body;
  KernelRun run = { ctx, body, 0, };
  g_autofree PrismBuffer **inputs = g_new0 (PrismBuffer *, op->n_inputs);
  g_autofree guint *out_slot = g_new0 (guint, body->ops->len);
  g_autofree gboolean *invariant = g_new0 (gboolean, body->tensors->len);
  PrismBuffer *outputs[PRISM_MAX_OP_OUTPUTS];
  gint64 n_outer = 1, n_blocks, tile_work = 0;
  guint n_out = 0, n_threads;

  for (guint k = 0; k < op->n_inputs; k++)
    inputs[k] = bufs[op->inputs[k]];
  for (guint k = 0; k < op->n_outputs; k++)
    outputs[k] = bufs[op->outputs[k]];
  run.inputs = inputs;
  run.outputs = outputs;
  run.out_slot = out_slot;
  run.invariant = invariant;
  for (guint p = 0; p < PRISM_MAX_GRID_DIMS; p++)
    run.grid[p] = p < body->grid_ndims ? prism_dim_get_const (body->grid[p]) : 1;
  run.forloop = prism_dim_get_const (body->forloop);

  for (guint i = 0; i < body->ops->len; i++)
    {
      const PrismOp *bop = prism_graph_op (body, i);
      gboolean inv = TRUE;

      if (bop->kind == PRISM_OP_OUTPUT)
        {
          if (n_out >= op->n_outputs)
            {
              kernel_error (error, kop, "the block graph has more outputs than the kernel");
              return FALSE;
            }
          out_slot[i] = n_out++;
          continue;
        }
      if (bop->kind == PRISM_OP_INPUT)
        {
          if (bop->attrs.input_index >= op->n_inputs)
            {
              kernel_error (error, kop, "block op %u reads kernel input %u of %u", i,
                            bop->attrs.input_index, op->n_inputs);
              return FALSE;
            }
          invariant[bop->outputs[0]] = bop->attrs.fmap == PRISM_MAP_REPLICATE;
          continue;
        }
      if (prism_op_kind_is_accum (bop->kind))
        continue;
      for (guint k = 0; k < bop->n_inputs; k++)
        inv = inv && invariant[bop->inputs[k]];
      invariant[bop->outputs[0]] = inv;
    }
  if (n_out != op->n_outputs)
    {
      kernel_error (error, kop, "the block graph has fewer outputs than the kernel");
      return FALSE;
    }
  if (!check_kernel (&run, kop, error))
    return FALSE;

  /* Axes of size > 1 that some output sums over run inside one work item. */
  for (guint p = 0; p < PRISM_MAX_GRID_DIMS; p++)
    {
      gboolean summed = FALSE;

      for (guint i = 0; i < body->ops->len && run.grid[p] > 1; i++)
        {
          const PrismOp *bop = prism_graph_op (body, i);
          summed |= bop->kind == PRISM_OP_OUTPUT && bop->attrs.omap[p] == PRISM_MAP_REPLICATE;
        }
      if (summed)
        run.summed_axes[run.n_summed_axes++] = p;
      else
        {
          run.outer_axes[run.n_outer_axes++] = p;
          n_outer *= run.grid[p];
        }
    }
  n_blocks = run.grid[0] * run.grid[1] * run.grid[2];
  run.n_inner = n_blocks / n_outer;
  if (n_blocks >= G_MAXINT / 2)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_LIMIT, "op %u (kernel): %" G_GINT64_FORMAT
                   " blocks is more than the interpreter runs", kop, n_blocks);
      return FALSE;
    }

  for (guint t = 0; t < body->tensors->len; t++)
    tile_work += prism_tensor_numel (prism_graph_tensor (body, t));
  n_threads = ctx->n_threads;
  {
    gint64 total;

    if (!__builtin_mul_overflow (n_blocks, run.forloop, &total) &&
        !__builtin_mul_overflow (total, tile_work, &total) && total < PARALLEL_MIN_WORK)
      n_threads = 1;
  }
  n_threads = (guint) MAX (1, MIN ((gint64) n_threads, n_outer));
  run.ws = g_new0 (Workspace, n_threads);
  parallel_for (n_threads, n_outer, kernel_item, &run);
  for (guint t = 0; t < n_threads; t++)
    workspace_clear (&run, &run.ws[t]);
  g_free (run.ws);
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* Budgets */

/* The process defaults, under their lock (set once by a command line, read
 * at the start of every run). */
G_LOCK_DEFINE_STATIC (defaults);
static guint64 default_max_memory;   /* 0 until first read */
static guint64 default_max_work = PRISM_INTERP_DEFAULT_MAX_WORK;

/* Half the physical memory (1 GiB if the system does not say). */
static guint64
half_physical_memory (void)
{
  long pages = sysconf (_SC_PHYS_PAGES), page = sysconf (_SC_PAGESIZE);
  guint64 bytes;

  if (pages <= 0 || page <= 0 || __builtin_mul_overflow ((guint64) pages, (guint64) page, &bytes))
    return G_GUINT64_CONSTANT (1) << 30;
  return bytes / 2;
}

void
prism_interp_set_default_budget (guint64 max_memory, guint64 max_work)
{
  G_LOCK (defaults);
  if (max_memory > 0)
    default_max_memory = max_memory;
  if (max_work > 0)
    default_max_work = max_work;
  G_UNLOCK (defaults);
}

guint64
prism_interp_get_default_max_memory (void)
{
  guint64 v;

  G_LOCK (defaults);
  if (default_max_memory == 0)
    default_max_memory = half_physical_memory ();
  v = default_max_memory;
  G_UNLOCK (defaults);
  return v;
}

guint64
prism_interp_get_default_max_work (void)
{
  guint64 v;

  G_LOCK (defaults);
  v = default_max_work;
  G_UNLOCK (defaults);
  return v;
}

static inline guint64
sat_add (guint64 a, guint64 b)
{
  guint64 r;

  return __builtin_add_overflow (a, b, &r) ? G_MAXUINT64 : r;
}

static inline guint64
sat_mul (guint64 a, guint64 b)
{
  guint64 r;

  return __builtin_mul_overflow (a, b, &r) ? G_MAXUINT64 : r;
}

/* Elements of a concrete tensor, G_MAXUINT64 when they overflow (and so
 * everything summed with them). */
static guint64
tensor_elems (const PrismTensor *t)
{
  guint64 n = 1;

  for (guint d = 0; d < t->ndims; d++)
    {
      gint64 v = prism_dim_get_const (t->dims[d]);
      n = sat_mul (n, v > 0 ? (guint64) v : 1);
    }
  return n;
}

static guint64
tensor_bytes (const PrismTensor *t)
{
  return sat_mul (tensor_elems (t), sizeof (double));
}

/* The work of one non-kernel op on tensors (tiles) of @g. */
static guint64
op_work (const PrismGraph *g, const PrismOp *op)
{
  const PrismTensor *out = op->n_outputs > 0 ? prism_graph_tensor (g, op->outputs[0]) : NULL;
  const PrismTensor *in = op->n_inputs > 0 ? prism_graph_tensor (g, op->inputs[0]) : NULL;
  guint64 w = 0;

  if (op->kind == PRISM_OP_OUTPUT || op->kind == PRISM_OP_INPUT)
    w = tensor_elems (op->kind == PRISM_OP_OUTPUT ? in : out);
  else if (op->kind == PRISM_OP_MATMUL && in != NULL && out != NULL)
    w = sat_mul (tensor_elems (out),
                 (guint64) MAX (prism_dim_get_const (in->dims[in->ndims - 1]), 1));
  else if (prism_op_kind_is_reduction (op->kind) || prism_op_kind_is_accum (op->kind))
    w = in != NULL ? tensor_elems (in) : 0;
  else if (op->kind == PRISM_OP_RMS_NORM)
    w = in != NULL ? sat_mul (tensor_elems (in), 2) : 0;
  else if (out != NULL)
    w = tensor_elems (out);
  return sat_add (w, OP_OVERHEAD);
}

/* The work of a custom kernel, as run_block() does it: every block runs the
 * loop ops at every iteration (loop-invariant ones compute once, but are
 * still visited), then its epilogue and stores.  Sets *@blocks and *@iters. */
static guint64
kernel_work (const PrismOp *kop, guint64 *blocks, guint64 *iters)
{
  const PrismGraph *body = kop->body;
  g_autofree gboolean *invariant = g_new0 (gboolean, MAX (body->tensors->len, 1));
  guint64 per_iter = 0, once = 0, epilogue = 0, per_block;
  gint64 f = prism_dim_get_const (body->forloop);

  *blocks = 1;
  for (guint p = 0; p < body->grid_ndims; p++)
    *blocks = sat_mul (*blocks, (guint64) MAX (prism_dim_get_const (body->grid[p]), 1));
  *iters = (guint64) MAX (f, 1);
  for (guint i = 0; i < body->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (body, i);
      guint64 w = op_work (body, op);
      gboolean inv = TRUE;

      if (op->kind == PRISM_OP_OUTPUT)
        {
          epilogue = sat_add (epilogue, w);
          continue;
        }
      if (prism_op_kind_is_accum (op->kind))
        {
          /* A step at every iteration, the finish (mean, rms) once. */
          per_iter = sat_add (per_iter, w);
          epilogue = sat_add (epilogue, w);
          continue;
        }
      if (prism_graph_tensor (body, op->outputs[0])->after_accum)
        {
          epilogue = sat_add (epilogue, w);
          continue;
        }
      if (op->kind == PRISM_OP_INPUT)
        inv = op->attrs.fmap == PRISM_MAP_REPLICATE;
      else
        for (guint k = 0; k < op->n_inputs; k++)
          inv = inv && invariant[op->inputs[k]];
      invariant[op->outputs[0]] = inv;
      if (inv)
        {
          once = sat_add (once, w - OP_OVERHEAD);
          per_iter = sat_add (per_iter, 1);
        }
      else
        per_iter = sat_add (per_iter, w);
    }
  per_block = sat_add (sat_add (sat_mul (*iters, per_iter), once), epilogue);
  return sat_mul (*blocks, per_block);
}

/* The bytes of one kernel's tiles, for every thread that runs its blocks. */
static guint64
kernel_tile_bytes (const PrismOp *kop, guint n_threads)
{
  guint64 bytes = 0;

  for (guint t = 0; t < kop->body->tensors->len; t++)
    bytes = sat_add (bytes, tensor_bytes (prism_graph_tensor (kop->body, t)));
  return sat_mul (bytes, MAX (n_threads, 1));
}

static guint64
effective (guint64 option, guint64 fallback)
{
  return option > 0 ? option : fallback;
}

static char *
tensor_name (const PrismGraph *graph, guint t)
{
  const PrismTensor *tensor = prism_graph_tensor (graph, t);
  g_autofree char *shape = prism_tensor_shape_to_string (graph, tensor);
  const PrismOp *op = tensor->producer >= 0 ? prism_graph_op (graph, (guint) tensor->producer) : NULL;

  if (op != NULL && op->kind == PRISM_OP_INPUT)
    return g_strdup_printf ("input “%s” %s", op->name ? op->name : "", shape);
  if (op != NULL)
    return g_strdup_printf ("tensor %u %s (op %d, %s)", t, shape, tensor->producer,
                            prism_op_kind_to_string (op->kind));
  return g_strdup_printf ("tensor %u %s", t, shape);
}

/* The memory of the run, op by op as prism_interp_run() allocates and
 * frees; @copies: graph inputs the run copies (f32 rounding), NULL for
 * none.  Fails naming the biggest tensor alive when the peak passes @budget. */
static gboolean
check_memory (const PrismGraph *graph, guint n_threads, const gboolean *copies, guint64 budget,
              guint64 *peak_out, GError **error)
{
  guint n_tensors = graph->tensors->len;
  g_autofree int *last_use = g_new (int, MAX (n_tensors, 1));
  g_autofree gboolean *owned = g_new0 (gboolean, MAX (n_tensors, 1));
  g_autoptr(GArray) ids = prism_graph_get_inputs (graph);
  guint64 live = 0, peak = 0;
  guint biggest = G_MAXUINT;

  for (guint t = 0; t < n_tensors; t++)
    last_use[t] = -1;
  for (guint i = 0; i < graph->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (graph, i);
      for (guint k = 0; k < op->n_inputs; k++)
        last_use[op->inputs[k]] = (int) i;
    }
  for (guint k = 0; k < ids->len; k++)
    {
      guint t = g_array_index (ids, guint, k);
      guint64 b = tensor_bytes (prism_graph_tensor (graph, t));

      /* The caller's buffer, and the run's copy if it rounds one. */
      live = sat_add (live, copies != NULL && copies[k] ? sat_mul (b, 2) : b);
      owned[t] = copies != NULL && copies[k];
      if (biggest == G_MAXUINT || b > tensor_bytes (prism_graph_tensor (graph, biggest)))
        biggest = t;
    }
  peak = live;
  if (peak > budget)
    goto over;
  for (guint i = 0; i < graph->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (graph, i);
      guint64 extra = 0;

      if (op->kind == PRISM_OP_INPUT)
        continue;
      if (op->kind == PRISM_OP_OUTPUT)
        live = sat_add (live, tensor_bytes (prism_graph_tensor (graph, op->inputs[0])));
      else
        for (guint o = 0; o < op->n_outputs; o++)
          {
            guint t = op->outputs[o];
            guint64 b = tensor_bytes (prism_graph_tensor (graph, t));

            live = sat_add (live, b);
            owned[t] = TRUE;
            if (b > tensor_bytes (prism_graph_tensor (graph, biggest)))
              biggest = t;
          }
      if (op->kind == PRISM_OP_KERNEL)
        extra = kernel_tile_bytes (op, n_threads);
      peak = MAX (peak, sat_add (live, extra));
      if (peak > budget)
        goto over;
      for (guint k = 0; k < op->n_inputs; k++)
        {
          guint t = op->inputs[k];
          if (last_use[t] == (int) i && owned[t])
            {
              live -= tensor_bytes (prism_graph_tensor (graph, t));
              owned[t] = FALSE;
            }
        }
    }
  *peak_out = peak;
  return TRUE;

over:
  {
    g_autofree char *name = tensor_name (graph, biggest);

    *peak_out = peak;
    if (peak == G_MAXUINT64)
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_LIMIT,
                   "the program does not fit in memory: %s alone has more bytes than 64 bits "
                   "count (the interpreter's memory budget is %" G_GUINT64_FORMAT " bytes)",
                   name, budget);
    else
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_LIMIT,
                   "the program needs %" G_GUINT64_FORMAT " bytes at once, more than the "
                   "interpreter's memory budget of %" G_GUINT64_FORMAT " bytes; the biggest "
                   "tensor, %s, takes %" G_GUINT64_FORMAT " bytes",
                   peak, budget, name, tensor_bytes (prism_graph_tensor (graph, biggest)));
    return FALSE;
  }
}

static gboolean
check_work (const PrismGraph *graph, guint64 budget, guint64 *total_out, GError **error)
{
  guint64 total = 0, worst = 0, blocks = 0, iters = 0;
  int worst_op = -1;

  for (guint i = 0; i < graph->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (graph, i);
      guint64 w, b = 0, f = 0;

      if (op->kind == PRISM_OP_INPUT)
        continue;
      w = op->kind == PRISM_OP_KERNEL ? kernel_work (op, &b, &f) : op_work (graph, op);
      total = sat_add (total, w);
      if (worst_op < 0 || w > worst)
        {
          worst = w;
          worst_op = (int) i;
          blocks = b;
          iters = f;
        }
    }
  *total_out = total;
  if (total <= budget)
    return TRUE;
  {
    const PrismOp *op = prism_graph_op (graph, (guint) worst_op);
    g_autofree char *why = op->kind == PRISM_OP_KERNEL
      ? g_strdup_printf (": %" G_GUINT64_FORMAT " blocks × %" G_GUINT64_FORMAT " loop iterations", blocks, iters)
      : g_strdup ("");
    g_autofree char *total_text = total == G_MAXUINT64 ? g_strdup ("more than 2^64")
                                                       : g_strdup_printf ("%" G_GUINT64_FORMAT, total);
    g_autofree char *worst_text = worst == G_MAXUINT64 ? g_strdup ("more than 2^64")
                                                       : g_strdup_printf ("%" G_GUINT64_FORMAT, worst);

    g_set_error (error, PRISM_ERROR, PRISM_ERROR_LIMIT,
                 "the program needs %s element operations, more than the interpreter's work "
                 "budget of %" G_GUINT64_FORMAT "; op %d (%s) alone needs %s%s",
                 total_text, budget, worst_op, prism_op_kind_to_string (op->kind), worst_text, why);
  }
  return FALSE;
}

static guint
threads_of (const PrismInterpOptions *options)
{
  return options != NULL && options->n_threads > 0 ? options->n_threads : g_get_num_processors ();
}

static gboolean
check_budget (const PrismGraph *graph, const PrismInterpOptions *options, const gboolean *copies,
              PrismInterpCost *cost, GError **error)
{
  guint64 max_memory = effective (options ? options->max_memory : 0,
                                  prism_interp_get_default_max_memory ());
  guint64 max_work = effective (options ? options->max_work : 0, prism_interp_get_default_max_work ());
  PrismInterpCost c = { 0, 0 };
  gboolean ok;

  ok = check_memory (graph, threads_of (options), copies, max_memory, &c.memory, error) &&
       check_work (graph, max_work, &c.work, error);
  if (cost != NULL)
    *cost = c;
  return ok;
}

gboolean
prism_interp_check_budget (const PrismGraph *graph, const PrismInterpOptions *options,
                           PrismInterpCost *cost, GError **error)
{
  g_return_val_if_fail (graph != NULL, FALSE);
  if (graph->level != PRISM_LEVEL_KERNEL || !prism_graph_is_concrete (graph))
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED,
                   "only concrete kernel graphs have a cost to check");
      return FALSE;
    }
  return check_budget (graph, options, NULL, cost, error);
}

/* ------------------------------------------------------------------------ */

GPtrArray *
prism_interp_make_inputs (const PrismGraph *graph, guint64 seed)
{
  g_autoptr(GArray) ids = prism_graph_get_inputs (graph);
  GPtrArray *inputs = g_ptr_array_new_with_free_func ((GDestroyNotify) prism_buffer_free);
  guint64 total = 0;
  gboolean fits;

  for (guint k = 0; k < ids->len; k++)
    total = sat_add (total, tensor_bytes (prism_graph_tensor (graph, g_array_index (ids, guint, k))));
  fits = total <= prism_interp_get_default_max_memory ();
  for (guint k = 0; k < ids->len; k++)
    {
      const PrismTensor *t = prism_graph_tensor (graph, g_array_index (ids, guint, k));
      gint64 shape[PRISM_MAX_DIMS];
      PrismBuffer *b;

      if (!prism_tensor_get_shape (t, shape))
        for (guint d = 0; d < t->ndims; d++)
          shape[d] = 1;
      /* Filling big inputs takes seconds: a stopped caller gets them
       * without data too (prism_interp_run() then says it was stopped). */
      if (fits && prism_cancelled ())
        fits = FALSE;
      if (!fits)
        {
          /* Dims without data: prism_interp_run() names the budget. */
          b = g_new0 (PrismBuffer, 1);
          b->ndims = t->ndims;
          memcpy (b->dims, shape, t->ndims * sizeof (gint64));
          g_ptr_array_add (inputs, b);
          continue;
        }
      b = prism_buffer_new (t->ndims, shape);
      if (!prism_buffer_fill_random_rounded (b, seed + k, t->dtype))
        {
          /* Stopped half-way: no data, as for the inputs after it. */
          g_clear_pointer (&b->data, g_free);
          b->numel = 0;
          fits = FALSE;
        }
      g_ptr_array_add (inputs, b);
    }
  return inputs;
}

static gboolean
is_float_exact (const PrismBuffer *b)
{
  for (gint64 i = 0; i < b->numel; i++)
    if ((double) (float) b->data[i] != b->data[i] && !isnan (b->data[i]))
      return FALSE;
  return TRUE;
}

static gboolean
check_graph (const PrismGraph *graph, PrismBuffer * const *inputs, guint n_inputs, GError **error)
{
  g_autoptr(GArray) ids = NULL;

  if (graph->level != PRISM_LEVEL_KERNEL)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_INVALID_GRAPH,
                   "the interpreter runs kernel graphs, not block graphs");
      return FALSE;
    }
  if (!prism_graph_is_concrete (graph))
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED,
                   "the graph has symbolic sizes or maps; instantiate it before running it");
      return FALSE;
    }
  if (!prism_graph_validate (graph, error))
    return FALSE;
  ids = prism_graph_get_inputs (graph);
  if (ids->len != n_inputs)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_INVALID_GRAPH,
                   "the graph has %u inputs but %u buffers were given", ids->len, n_inputs);
      return FALSE;
    }
  for (guint k = 0; k < n_inputs; k++)
    {
      const PrismTensor *t = prism_graph_tensor (graph, g_array_index (ids, guint, k));
      gint64 shape[PRISM_MAX_DIMS];
      gboolean ok = inputs[k] != NULL && inputs[k]->ndims == t->ndims;

      prism_tensor_get_shape (t, shape);
      for (guint d = 0; ok && d < t->ndims; d++)
        ok = inputs[k]->dims[d] == shape[d];
      if (!ok)
        {
          g_autofree char *want = prism_tensor_shape_to_string (graph, t);
          g_autofree char *got = inputs[k] ? prism_buffer_shape_to_string (inputs[k]) : g_strdup ("none");
          g_set_error (error, PRISM_ERROR, PRISM_ERROR_INVALID_GRAPH,
                       "input %u: the graph expects %s, the buffer is %s", k, want, got);
          return FALSE;
        }
    }
  return TRUE;
}

GPtrArray *
prism_interp_run (const PrismGraph *graph, PrismBuffer * const *inputs, guint n_inputs,
                  const PrismInterpOptions *options, GError **error)
{
  Ctx ctx = { FALSE, 0, NULL };
  g_autoptr(GPtrArray) result = NULL;
  g_autoptr(GArray) ids = NULL;
  g_autofree PrismBuffer **bufs = NULL;
  g_autofree gboolean *owned = NULL;
  g_autofree int *last_use = NULL;
  g_autofree gboolean *copies = NULL;
  guint n_tensors = graph->tensors->len;
  gboolean ok = TRUE;

  g_return_val_if_fail (graph != NULL, NULL);
  g_return_val_if_fail (inputs != NULL || n_inputs == 0, NULL);
  if (!check_graph (graph, inputs, n_inputs, error))
    return NULL;

  ctx.f32 = options != NULL && options->precision == PRISM_PRECISION_F32;
  ctx.n_threads = threads_of (options);
  ctx.cancel = g_cancellable_get_current ();
  if (stopped (&ctx))
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_CANCELLED, "stopped before the run");
      return NULL;
    }

  /* The budgets before anything is allocated, with the copies f32 makes. */
  copies = g_new0 (gboolean, MAX (n_inputs, 1));
  for (guint k = 0; k < n_inputs; k++)
    copies[k] = ctx.f32 && inputs[k]->data != NULL && !is_float_exact (inputs[k]);
  if (!check_budget (graph, options, copies, NULL, error))
    return NULL;
  for (guint k = 0; k < n_inputs; k++)
    if (inputs[k]->data == NULL && inputs[k]->numel == 0)
      {
        g_set_error (error, PRISM_ERROR, PRISM_ERROR_LIMIT,
                     "input %u has no data: the inputs did not fit the default memory budget "
                     "of %" G_GUINT64_FORMAT " bytes when they were made", k,
                     prism_interp_get_default_max_memory ());
        return NULL;
      }

  bufs = g_new0 (PrismBuffer *, n_tensors);
  owned = g_new0 (gboolean, n_tensors);
  last_use = g_new0 (int, n_tensors);
  for (guint t = 0; t < n_tensors; t++)
    last_use[t] = -1;
  for (guint i = 0; i < graph->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (graph, i);
      for (guint k = 0; k < op->n_inputs; k++)
        last_use[op->inputs[k]] = (int) i;
    }

  ids = prism_graph_get_inputs (graph);
  for (guint k = 0; k < n_inputs; k++)
    {
      guint t = g_array_index (ids, guint, k);

      if (copies[k])
        {
          bufs[t] = prism_buffer_copy (inputs[k]);
          round_all (&ctx, bufs[t]->data, bufs[t]->numel);
          owned[t] = TRUE;
        }
      else
        bufs[t] = inputs[k];
    }

  result = g_ptr_array_new_with_free_func ((GDestroyNotify) prism_buffer_free);
  for (guint i = 0; i < graph->ops->len && ok; i++)
    {
      const PrismOp *op = prism_graph_op (graph, i);

      if (op->kind == PRISM_OP_INPUT)
        continue;
      if (stopped (&ctx))
        {
          g_set_error (error, PRISM_ERROR, PRISM_ERROR_CANCELLED, "stopped at op %u of %u", i,
                       graph->ops->len);
          ok = FALSE;
          break;
        }
      if (op->kind == PRISM_OP_OUTPUT)
        g_ptr_array_add (result, prism_buffer_copy (bufs[op->inputs[0]]));
      else
        {
          for (guint o = 0; o < op->n_outputs && ok; o++)
            {
              const PrismTensor *t = prism_graph_tensor (graph, op->outputs[o]);
              gint64 shape[PRISM_MAX_DIMS];

              prism_tensor_get_shape (t, shape);
              bufs[op->outputs[o]] = prism_buffer_try_new (t->ndims, shape, error);
              owned[op->outputs[o]] = bufs[op->outputs[o]] != NULL;
              if (bufs[op->outputs[o]] == NULL)
                {
                  g_prefix_error (error, "op %u (%s): ", i, prism_op_kind_to_string (op->kind));
                  ok = FALSE;
                }
            }
          if (!ok)
            break;
          if (op->kind == PRISM_OP_KERNEL)
            ok = run_kernel (&ctx, i, op, bufs, error);
          else if (prism_op_kind_at_level (op->kind, PRISM_LEVEL_KERNEL))
            compute_op (&ctx, graph, op, bufs, TRUE);
          else
            {
              g_set_error (error, PRISM_ERROR, PRISM_ERROR_INVALID_GRAPH,
                           "op %u (%s) is not a kernel-level op", i,
                           prism_op_kind_to_string (op->kind));
              ok = FALSE;
            }
        }
      /* Free what no later op reads, so big unfused programs stay small. */
      for (guint k = 0; k < op->n_inputs; k++)
        {
          guint t = op->inputs[k];
          if (last_use[t] == (int) i && owned[t])
            {
              g_clear_pointer (&bufs[t], prism_buffer_free);
              owned[t] = FALSE;
            }
        }
    }
  for (guint t = 0; t < n_tensors; t++)
    if (owned[t])
      prism_buffer_free (bufs[t]);
  /* A stop inside the last op left its outputs unfinished. */
  if (ok && stopped (&ctx))
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_CANCELLED, "stopped at the end of the run");
      ok = FALSE;
    }
  if (!ok)
    return NULL;
  return g_steal_pointer (&result);
}
