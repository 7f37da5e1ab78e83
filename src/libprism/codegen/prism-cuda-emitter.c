/* prism-cuda-emitter.c — CUDA source for a concrete program
 *
 * The program is first lowered so that every kernel is a block graph.  For
 * each one the emitter
 *
 *  - keeps the ops an output depends on (dead ops are dropped);
 *  - picks the matmul path (WMMA 16×16×16 or 8×32×16 for f16/bf16 tiles the
 *    fragments divide, a scalar loop otherwise) and keeps a matmul whose only
 *    use is an `accum` in registers across the loop (MatmulAccum);
 *  - picks each tile's storage type: f32 for everything computed, except
 *    tiles only read by tensor-core matmuls, which stay in the input dtype;
 *  - schedules: loop-invariant tiles and accumulator setup before the loop,
 *    per-iteration loads (double-buffered with cp.async when 16-byte chunks
 *    allow), the loop body, then accumulator finishing, the epilogue and the
 *    stores;
 *  - packs the tiles into dynamic shared memory by lifetime (first fit), and
 *    does it twice: once with the GPU's element sizes and once with the CPU
 *    build's (every dtype a 4-byte float); PRISM_PICK chooses at compile time.
 *
 * Outputs whose omap sums blocks (-1 on an axis with more than one block) go
 * through an f32 workspace region: cleared by a small kernel, accumulated
 * with atomics, then converted into the output.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "prism-cuda-emitter.h"
#include "prism-error.h"
#include "prism-lower.h"

#define SMEM_ALIGN       128
#define WS_ALIGN         256
/* Launches above this much dynamic shared memory need the opt-in attribute. */
#define SMEM_NO_OPT_IN   49152
/* Fragments one warp may keep in registers for a MatmulAccum (8 floats each
 * for 16×16 fragments: 64 registers). */
#define MAX_FUSED_FRAGS_PER_WARP 8
#define AUX_THREADS      256
#define AUX_MAX_BLOCKS   1024

/* Two layouts are planned: the GPU's and the CPU build's. */
enum { LAYOUT_GPU, LAYOUT_CPU, N_LAYOUTS };

enum { MMA_SCALAR, MMA_16x16x16, MMA_8x32x16 };

static const char *const mma_names[] = {
  "prism::MMA_SCALAR", "prism::MMA_16x16x16", "prism::MMA_8x32x16",
};

typedef enum { LOC_INPUT, LOC_OUTPUT, LOC_WORKSPACE } LocKind;

typedef struct
{
  LocKind kind;
  guint index;    /* input / output index, or region index */
} Loc;

typedef struct
{
  PrismDtype dtype;
  gint64 numel;
  gsize offset[N_LAYOUTS];
} Region;

struct _PrismCudaEmitter
{
  PrismGraph *lowered;
  char *prefix;
  char *arch;
  guint sm;
  gsize smem_limit;
  gboolean no_pipeline;

  GArray *inputs;            /* lowered tensor ids */
  GArray *outputs;           /* lowered tensor ids */
  Loc *locs;                 /* per lowered tensor */
  GArray *regions;           /* Region */
  gsize ws_size[N_LAYOUTS];
  GPtrArray *kernels;        /* PrismCudaKernel* */
  GArray *cpu_smem;          /* gsize per kernel: shared memory of the CPU build */

  char *source;
  char *preamble;            /* slices of source (see get_preamble) */
  char *host;
  char *header;
  char *harness;
  char *cpu_run;
};

/* ------------------------------------------------------------------------ */
/* Small helpers */

static gsize
align_up (gsize n, gsize a)
{
  return (n + a - 1) / a * a;
}

static gsize
elem_bytes (PrismDtype dtype, int layout)
{
  return layout == LAYOUT_CPU ? 4 : prism_dtype_size (dtype);
}

static const char *
ctype (PrismDtype dtype)
{
  switch (dtype)
    {
    case PRISM_DTYPE_F16:
      return "prism::f16";
    case PRISM_DTYPE_BF16:
      return "prism::bf16";
    case PRISM_DTYPE_F32:
    case PRISM_N_DTYPES:
    default:
      return "float";
    }
}

static gboolean
is_half (PrismDtype dtype)
{
  return dtype == PRISM_DTYPE_F16 || dtype == PRISM_DTYPE_BF16;
}

/* Left-pads a concrete shape to four dims. */
static void
pad_shape (guint ndims, PrismDim * const *dims, gint64 *out)
{
  for (guint i = 0; i < PRISM_MAX_DIMS; i++)
    out[i] = 1;
  for (guint i = 0; i < ndims; i++)
    out[PRISM_MAX_DIMS - ndims + i] = prism_dim_get_const (dims[i]);
}

/* Row-major element strides of a padded shape. */
static void
row_major_strides (const gint64 *shape, gint64 *strides)
{
  strides[3] = 1;
  for (int i = 2; i >= 0; i--)
    strides[i] = strides[i + 1] * shape[i + 1];
}

static gint64
numel4 (const gint64 *s)
{
  return s[0] * s[1] * s[2] * s[3];
}

/* Elements per vector access: 16 bytes when both the tile's and the tensor's
 * last dims allow it, fewer otherwise. */
static guint
pick_vec (PrismDtype dtype, gint64 tile_last, gint64 data_last)
{
  guint v = 16 / prism_dtype_size (dtype);

  while (v > 1 && (tile_last % v != 0 || data_last % v != 0))
    v /= 2;
  return v;
}

static char *
make_prefix (const char *name)
{
  GString *s = g_string_new ("prism_");

  for (const char *p = name != NULL ? name : "program"; *p; p++)
    g_string_append_c (s, g_ascii_isalnum (*p) ? g_ascii_tolower (*p) : '_');
  return g_string_free (s, FALSE);
}

static gboolean
valid_identifier (const char *s)
{
  if (s == NULL || !(g_ascii_isalpha (*s) || *s == '_'))
    return FALSE;
  for (; *s; s++)
    if (!g_ascii_isalnum (*s) && *s != '_')
      return FALSE;
  return TRUE;
}

static void
kernel_free (gpointer data)
{
  PrismCudaKernel *k = data;

  g_free (k->name);
  g_free (k->source);
  g_free (k);
}

static PrismCudaKernel *
kernel_new (const char *name, PrismCudaKernelRole role, int op_index)
{
  PrismCudaKernel *k = g_new0 (PrismCudaKernel, 1);

  k->name = g_strdup (name);
  k->role = role;
  k->op_index = op_index;
  k->grid[0] = k->grid[1] = k->grid[2] = 1;
  k->block[0] = k->block[1] = k->block[2] = 1;
  return k;
}

static guint
add_region (PrismCudaEmitter *self, PrismDtype dtype, gint64 numel)
{
  Region r = { dtype, numel, { 0, 0 } };

  for (int l = 0; l < N_LAYOUTS; l++)
    {
      r.offset[l] = self->ws_size[l];
      self->ws_size[l] = align_up (self->ws_size[l] + (gsize) numel * elem_bytes (dtype, l), WS_ALIGN);
    }
  g_array_append_val (self->regions, r);
  return self->regions->len - 1;
}

static const Region *
region (const PrismCudaEmitter *self, guint index)
{
  return &g_array_index (self->regions, Region, index);
}

/* A kernel argument for the kernel-level tensor @t. */
static PrismCudaArg
partial_arg (const PrismCudaEmitter *self, guint index, gboolean writable)
{
  PrismCudaArg a = { PRISM_CUDA_ARG_WORKSPACE, index, 0, PRISM_DTYPE_F32, writable };

  a.offset = g_array_index (self->regions, Region, index).offset[LAYOUT_GPU];
  return a;
}

static PrismCudaArg
loc_arg (const PrismCudaEmitter *self, guint t, gboolean writable)
{
  PrismCudaArg a = { PRISM_CUDA_ARG_INPUT, 0, 0, PRISM_DTYPE_F32, writable };
  const Loc *loc = &self->locs[t];

  a.dtype = prism_graph_tensor (self->lowered, t)->dtype;
  switch (loc->kind)
    {
    case LOC_INPUT:
      a.kind = PRISM_CUDA_ARG_INPUT;
      a.index = loc->index;
      break;
    case LOC_OUTPUT:
      a.kind = PRISM_CUDA_ARG_OUTPUT;
      a.index = loc->index;
      break;
    case LOC_WORKSPACE:
    default:
      a.kind = PRISM_CUDA_ARG_WORKSPACE;
      a.index = loc->index;
      a.offset = region (self, loc->index)->offset[LAYOUT_GPU];
      break;
    }
  return a;
}

/* The launcher expression for an argument, cast to @type. */
static char *
arg_expr (const PrismCudaEmitter *self, const PrismCudaArg *a, const char *type)
{
  switch (a->kind)
    {
    case PRISM_CUDA_ARG_INPUT:
      return g_strdup_printf ("(%s) inputs[%u]", type, a->index);
    case PRISM_CUDA_ARG_OUTPUT:
      return g_strdup_printf ("(%s) outputs[%u]", type, a->index);
    case PRISM_CUDA_ARG_WORKSPACE:
    default:
      {
        const Region *r = region (self, a->index);
        return g_strdup_printf ("(%s) (ws + PRISM_PICK (%" G_GSIZE_FORMAT "u, %" G_GSIZE_FORMAT "u))",
                                type, r->offset[LAYOUT_GPU], r->offset[LAYOUT_CPU]);
      }
    }
}

/* ------------------------------------------------------------------------ */
/* Planning one custom kernel */

typedef struct
{
  gboolean live;
  int pos;             /* schedule position */
  int mma;             /* MATMUL: MMA_* */
  gboolean fused;      /* MATMUL whose only use is an ACCUM, or that ACCUM */
  gboolean in_registers; /* fused: the sum stays in registers (MatmulAccum),
                          * else the product is added to the ACCUM's tile */
  int partner;         /* the fused MATMUL's ACCUM op and vice versa */
  int shadow[2];       /* MATMUL: item of an operand converted for the tensor cores */
  gint64 batch, m, n, k;
} OpPlan;

typedef struct
{
  gboolean live;
  PrismDtype storage;
  gint64 shape[PRISM_MAX_DIMS];  /* padded */
  int item;             /* shared-memory item, -1 for none */
  int item2;            /* second buffer of a double-buffered tile, -1 */
  int last;             /* position of the last use */
  gboolean invariant;   /* INPUT tile loaded once, before the loop */
} TensorPlan;

typedef struct
{
  gint64 elems;
  PrismDtype storage;
  int start, end;
  gsize offset[N_LAYOUTS];
} SmemItem;

typedef struct
{
  const PrismGraph *body;
  guint n_ops, n_tensors;
  OpPlan *ops;
  TensorPlan *tensors;
  GArray *items;         /* SmemItem */
  gsize smem[N_LAYOUTS];
  gint64 forloop;
  guint threads;
  int loop_end, epi_start, end;
  gboolean pipelined;
} KernelPlan;

#define POS_PROLOGUE  0
#define POS_LOOP_LOAD 1

static void
kernel_plan_clear (KernelPlan *kp)
{
  g_clear_pointer (&kp->ops, g_free);
  g_clear_pointer (&kp->tensors, g_free);
  g_clear_pointer (&kp->items, g_array_unref);
}

static int
add_item (KernelPlan *kp, gint64 elems, PrismDtype storage, int start, int end)
{
  SmemItem it = { elems, storage, start, end, { 0, 0 } };

  g_array_append_val (kp->items, it);
  return (int) kp->items->len - 1;
}

static gboolean
is_in_loop (const KernelPlan *kp, const PrismOp *op)
{
  return prism_op_kind_is_accum (op->kind) ||
         !prism_graph_tensor (kp->body, op->outputs[0])->after_accum;
}

/* First-fit packing by lifetime, for one layout. */
static gsize
pack_items (GArray *items, int layout)
{
  gsize total = 0;

  for (guint i = 0; i < items->len; i++)
    {
      SmemItem *it = &g_array_index (items, SmemItem, i);
      gsize bytes = (gsize) it->elems * elem_bytes (it->storage, layout);
      gsize off = 0;
      gboolean moved = TRUE;

      while (moved)
        {
          moved = FALSE;
          for (guint j = 0; j < i; j++)
            {
              const SmemItem *o = &g_array_index (items, SmemItem, j);
              gsize obytes = (gsize) o->elems * elem_bytes (o->storage, layout);

              if (o->end < it->start || it->end < o->start)
                continue;
              if (off < o->offset[layout] + obytes && o->offset[layout] < off + bytes)
                {
                  off = align_up (o->offset[layout] + obytes, SMEM_ALIGN);
                  moved = TRUE;
                }
            }
        }
      it->offset[layout] = off;
      total = MAX (total, align_up (off + bytes, SMEM_ALIGN));
    }
  return total;
}

static int
mma_kind (PrismDtype da, PrismDtype db, gint64 m, gint64 n, gint64 k)
{
  if (da != db || !is_half (da))
    return MMA_SCALAR;
  if (m % 16 == 0 && n % 16 == 0 && k % 16 == 0)
    return MMA_16x16x16;
  if (m % 8 == 0 && n % 32 == 0 && k % 16 == 0)
    return MMA_8x32x16;
  return MMA_SCALAR;
}

static gint64
mma_fragments (const OpPlan *p)
{
  gint64 fm = p->mma == MMA_8x32x16 ? 8 : 16, fn = p->mma == MMA_8x32x16 ? 32 : 16;

  return p->batch * (p->m / fm) * (p->n / fn);
}

static gboolean
plan_kernel (KernelPlan *kp, const PrismGraph *body, gboolean pipeline)
{
  int pos;

  memset (kp, 0, sizeof *kp);
  kp->body = body;
  kp->n_ops = body->ops->len;
  kp->n_tensors = body->tensors->len;
  kp->ops = g_new0 (OpPlan, kp->n_ops);
  kp->tensors = g_new0 (TensorPlan, kp->n_tensors);
  kp->items = g_array_new (FALSE, TRUE, sizeof (SmemItem));
  kp->forloop = prism_dim_get_const (body->forloop);
  kp->threads = body->block_threads;

  for (guint t = 0; t < kp->n_tensors; t++)
    {
      const PrismTensor *tensor = prism_graph_tensor (body, t);
      pad_shape (tensor->ndims, tensor->dims, kp->tensors[t].shape);
      kp->tensors[t].item = kp->tensors[t].item2 = -1;
      kp->tensors[t].last = -1;
    }

  /* Liveness: what the outputs depend on. */
  for (int i = (int) kp->n_ops - 1; i >= 0; i--)
    {
      const PrismOp *op = prism_graph_op (body, i);
      gboolean live = op->kind == PRISM_OP_OUTPUT;

      for (guint o = 0; o < op->n_outputs; o++)
        live = live || kp->tensors[op->outputs[o]].live;
      kp->ops[i].live = live;
      kp->ops[i].partner = -1;
      kp->ops[i].shadow[0] = kp->ops[i].shadow[1] = -1;
      if (live)
        for (guint k = 0; k < op->n_inputs; k++)
          kp->tensors[op->inputs[k]].live = TRUE;
    }

  /* Matmul paths. */
  for (guint i = 0; i < kp->n_ops; i++)
    {
      const PrismOp *op = prism_graph_op (body, i);
      OpPlan *p = &kp->ops[i];
      const TensorPlan *a, *b, *c;

      if (!p->live || op->kind != PRISM_OP_MATMUL)
        continue;
      a = &kp->tensors[op->inputs[0]];
      b = &kp->tensors[op->inputs[1]];
      c = &kp->tensors[op->outputs[0]];
      p->batch = c->shape[0] * c->shape[1];
      p->m = a->shape[2];
      p->k = a->shape[3];
      p->n = b->shape[3];
      p->mma = mma_kind (prism_graph_tensor (body, op->inputs[0])->dtype,
                         prism_graph_tensor (body, op->inputs[1])->dtype, p->m, p->n, p->k);
    }

  /* Storage types. */
  for (guint t = 0; t < kp->n_tensors; t++)
    {
      const PrismTensor *tensor = prism_graph_tensor (body, t);
      const PrismOp *producer = prism_graph_op (body, tensor->producer);
      TensorPlan *tp = &kp->tensors[t];
      gboolean only_mma = is_half (tensor->dtype);
      gboolean any = FALSE;

      if (!tp->live)
        continue;
      if (producer->kind == PRISM_OP_INPUT)
        {
          tp->storage = tensor->dtype;
          continue;
        }
      tp->storage = PRISM_DTYPE_F32;
      if (prism_op_kind_is_accum (producer->kind) || producer->kind == PRISM_OP_MATMUL)
        continue;
      for (guint i = 0; i < kp->n_ops && only_mma; i++)
        {
          const PrismOp *op = prism_graph_op (body, i);
          if (!kp->ops[i].live)
            continue;
          for (guint k = 0; k < op->n_inputs; k++)
            if (op->inputs[k] == t)
              {
                any = TRUE;
                if (op->kind != PRISM_OP_MATMUL || kp->ops[i].mma == MMA_SCALAR)
                  only_mma = FALSE;
              }
        }
      if (any && only_mma)
        tp->storage = tensor->dtype;
    }

  /* A matmul whose only use is an accum adds into it directly: in
   * registers when its fragments fit, else into the accumulator's tile. */
  for (guint i = 0; i < kp->n_ops; i++)
    {
      const PrismOp *op = prism_graph_op (body, i);
      OpPlan *p = &kp->ops[i];
      guint out, n_uses = 0;
      int user = -1;

      if (!p->live || op->kind != PRISM_OP_MATMUL || !is_in_loop (kp, op))
        continue;
      out = op->outputs[0];
      for (guint j = i + 1; j < kp->n_ops; j++)
        {
          const PrismOp *u = prism_graph_op (body, j);
          if (!kp->ops[j].live)
            continue;
          for (guint k = 0; k < u->n_inputs; k++)
            if (u->inputs[k] == out)
              {
                n_uses++;
                user = (int) j;
              }
        }
      if (n_uses != 1 || prism_graph_op (body, user)->kind != PRISM_OP_ACCUM)
        continue;
      p->in_registers = p->mma != MMA_SCALAR &&
                        (mma_fragments (p) + kp->threads / 32 - 1) / (kp->threads / 32) <= MAX_FUSED_FRAGS_PER_WARP;
      kp->ops[user].in_registers = p->in_registers;
      p->fused = kp->ops[user].fused = TRUE;
      p->partner = user;
      kp->ops[user].partner = (int) i;
    }

  /* Positions: prologue, loads, the loop body, the epilogue, the stores. */
  pos = POS_LOOP_LOAD + 1;
  for (guint i = 0; i < kp->n_ops; i++)
    {
      const PrismOp *op = prism_graph_op (body, i);
      if (kp->ops[i].live && op->kind != PRISM_OP_INPUT && op->kind != PRISM_OP_OUTPUT &&
          is_in_loop (kp, op))
        kp->ops[i].pos = pos++;
    }
  kp->loop_end = pos - 1;
  kp->epi_start = pos++;
  for (guint i = 0; i < kp->n_ops; i++)
    {
      const PrismOp *op = prism_graph_op (body, i);
      if (kp->ops[i].live && op->kind != PRISM_OP_INPUT && op->kind != PRISM_OP_OUTPUT &&
          !is_in_loop (kp, op))
        kp->ops[i].pos = pos++;
    }
  for (guint i = 0; i < kp->n_ops; i++)
    if (kp->ops[i].live && prism_graph_op (body, i)->kind == PRISM_OP_OUTPUT)
      kp->ops[i].pos = pos++;
  kp->end = pos;

  /* Last uses. */
  for (guint i = 0; i < kp->n_ops; i++)
    {
      const PrismOp *op = prism_graph_op (body, i);
      if (!kp->ops[i].live)
        continue;
      for (guint k = 0; k < op->n_inputs; k++)
        kp->tensors[op->inputs[k]].last = MAX (kp->tensors[op->inputs[k]].last, kp->ops[i].pos);
    }

  /* Shared-memory items with their lifetimes. */
  for (guint i = 0; i < kp->n_ops; i++)
    {
      const PrismOp *op = prism_graph_op (body, i);
      OpPlan *p = &kp->ops[i];
      TensorPlan *tp;
      gint64 n;

      if (!p->live || op->kind == PRISM_OP_OUTPUT)
        continue;
      tp = &kp->tensors[op->outputs[0]];
      n = numel4 (tp->shape);

      if (op->kind == PRISM_OP_INPUT)
        {
          const PrismTensor *tensor = prism_graph_tensor (body, op->outputs[0]);
          gint64 data_last = prism_dim_get_const (op->data_dims[op->data_ndims - 1]);
          guint vec = pick_vec (tensor->dtype, tp->shape[3], data_last);

          tp->invariant = op->attrs.fmap < 0 || kp->forloop == 1;
          if (tp->invariant)
            tp->item = add_item (kp, n, tp->storage, POS_PROLOGUE, kp->loop_end);
          else if (pipeline && vec * prism_dtype_size (tensor->dtype) == 16)
            {
              tp->item = add_item (kp, n, tp->storage, POS_PROLOGUE, kp->end);
              tp->item2 = add_item (kp, n, tp->storage, POS_PROLOGUE, kp->end);
              kp->pipelined = TRUE;
            }
          else
            tp->item = add_item (kp, n, tp->storage, POS_LOOP_LOAD, MAX (tp->last, POS_LOOP_LOAD));
          continue;
        }

      if (op->kind == PRISM_OP_MATMUL)
        for (guint k = 0; k < 2; k++)
          if (p->mma != MMA_SCALAR &&
              kp->tensors[op->inputs[k]].storage != prism_graph_tensor (body, op->inputs[k])->dtype)
            p->shadow[k] = add_item (kp, numel4 (kp->tensors[op->inputs[k]].shape),
                                     prism_graph_tensor (body, op->inputs[k])->dtype, p->pos, p->pos);

      if (op->kind == PRISM_OP_MATMUL && p->fused)
        continue;   /* in registers */
      if (prism_op_kind_is_accum (op->kind))
        {
          if (p->fused && p->in_registers)
            tp->item = add_item (kp, n, tp->storage, kp->epi_start, tp->last);
          else if (op->kind == PRISM_OP_ACCUM && kp->forloop == 1 && !p->fused)
            {
              /* One iteration: the accumulator is its input under a new
               * name (same tile, same storage), nothing to copy. */
              TensorPlan *src = &kp->tensors[op->inputs[0]];
              if (src->item >= 0 && src->item2 < 0)
                {
                  SmemItem *it = &g_array_index (kp->items, SmemItem, src->item);
                  tp->storage = src->storage;
                  tp->item = src->item;
                  it->end = MAX (it->end, tp->last);
                }
              else
                tp->item = add_item (kp, n, tp->storage, p->pos, tp->last);
            }
          else
            tp->item = add_item (kp, n, tp->storage, POS_PROLOGUE, tp->last);
          continue;
        }
      /* Elementwise ops write over an operand of the same shape and storage
       * that dies here (each element is read before it is written, by the
       * same thread); loop-invariant input tiles are needed again by the
       * next iteration and are never overwritten inside the loop. */
      if (prism_op_kind_is_unary (op->kind) || prism_op_kind_is_binary (op->kind))
        for (guint k = 0; k < op->n_inputs && tp->item < 0; k++)
          {
            TensorPlan *src = &kp->tensors[op->inputs[k]];
            const PrismOp *sp = prism_graph_op (body, prism_graph_tensor (body, op->inputs[k])->producer);
            SmemItem *it;

            if (src->item < 0 || src->item2 >= 0 || src->storage != tp->storage ||
                memcmp (src->shape, tp->shape, sizeof tp->shape) != 0)
              continue;
            it = &g_array_index (kp->items, SmemItem, src->item);
            if (it->end != p->pos ||
                (sp->kind == PRISM_OP_INPUT && is_in_loop (kp, op) && kp->forloop > 1))
              continue;
            tp->item = src->item;
            it->end = MAX (it->end, MAX (tp->last, p->pos));
          }
      if (tp->item < 0)
        tp->item = add_item (kp, n, tp->storage, p->pos, MAX (tp->last, p->pos));
    }

  for (int l = 0; l < N_LAYOUTS; l++)
    kp->smem[l] = pack_items (kp->items, l);
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* Emitting one custom kernel */

static const char *
unary_op_name (PrismOpKind kind)
{
  switch (kind)
    {
    case PRISM_OP_EXP: return "prism::OpExp";
    case PRISM_OP_SQUARE: return "prism::OpSquare";
    case PRISM_OP_SQRT: return "prism::OpSqrt";
    case PRISM_OP_SILU: return "prism::OpSilu";
    case PRISM_OP_GELU: return "prism::OpGelu";
    case PRISM_OP_RELU: return "prism::OpRelu";
    case PRISM_OP_NEG: return "prism::OpNeg";
    default: return NULL;
    }
}

static const char *
binary_op_name (PrismOpKind kind)
{
  switch (kind)
    {
    case PRISM_OP_ADD: return "prism::OpAdd";
    case PRISM_OP_SUB: return "prism::OpSub";
    case PRISM_OP_MUL: return "prism::OpMul";
    case PRISM_OP_DIV: return "prism::OpDiv";
    case PRISM_OP_POW: return "prism::OpPow";
    default: return NULL;
    }
}

/* A shared-memory pointer: "(T *) (smem + PRISM_PICK (gpu, cpu))". */
static void
append_smem_ptr (GString *s, const KernelPlan *kp, int item, PrismDtype storage)
{
  const SmemItem *it = &g_array_index (kp->items, SmemItem, item);

  g_string_append_printf (s, "(%s *) (smem + PRISM_PICK (%" G_GSIZE_FORMAT "u, %" G_GSIZE_FORMAT "u))",
                          ctype (storage), it->offset[LAYOUT_GPU], it->offset[LAYOUT_CPU]);
}

/* Sum of "gP * coef" terms, "0" when empty. */
static void
append_offset (GString *s, const gint64 *coef)
{
  gboolean any = FALSE;

  for (guint p = 0; p < PRISM_MAX_GRID_DIMS; p++)
    if (coef[p] != 0)
      {
        g_string_append_printf (s, "%sg%u * %" G_GINT64_FORMAT "LL", any ? " + " : "", p, coef[p]);
        any = TRUE;
      }
  if (!any)
    g_string_append (s, "0");
}

/* The name of the operand pointer a matmul reads: its shadow copy when it
 * has one. */
static char *
operand_name (const OpPlan *p, guint k, guint tensor)
{
  if (p->shadow[k] >= 0)
    return g_strdup_printf ("sh%u_%u", tensor, k);
  return g_strdup_printf ("t%u", tensor);
}

static void
emit_op (GString *s, const char *indent, const KernelPlan *kp, guint i)
{
  const PrismOp *op = prism_graph_op (kp->body, i);
  const OpPlan *p = &kp->ops[i];
  guint o = op->n_outputs > 0 ? op->outputs[0] : 0;
  guint a = op->n_inputs > 0 ? op->inputs[0] : 0;
  guint b = op->n_inputs > 1 ? op->inputs[1] : 0;
  const TensorPlan *ta = &kp->tensors[a];

  g_string_append_printf (s, "%s/* op %u: %s */\n", indent, i, prism_op_kind_to_string (op->kind));
  if (prism_op_kind_is_unary (op->kind))
    g_string_append_printf (s, "%sprism::unary<NT, %s, S%u> (t%u, t%u);\n", indent,
                            unary_op_name (op->kind), o, o, a);
  else if (prism_op_kind_is_binary (op->kind))
    g_string_append_printf (s, "%sprism::binary<NT, %s, S%u, S%u, S%u> (t%u, t%u, t%u);\n", indent,
                            binary_op_name (op->kind), o, a, b, o, a, b);
  else
    switch (op->kind)
      {
      case PRISM_OP_MATMUL:
        {
          g_autofree char *an = operand_name (p, 0, a);
          g_autofree char *bn = operand_name (p, 1, b);

          for (guint k = 0; k < 2; k++)
            if (p->shadow[k] >= 0)
              {
                guint src = op->inputs[k];
                const PrismTensor *st = prism_graph_tensor (kp->body, src);
                g_string_append_printf (s, "%s%s *const sh%u_%u = ", indent, ctype (st->dtype), src, k);
                append_smem_ptr (s, kp, p->shadow[k], st->dtype);
                g_string_append_printf (s, ";\n%sprism::convert<NT, S%u> (sh%u_%u, t%u);\n%sprism::sync ();\n",
                                        indent, src, src, k, src, indent);
              }
          if (p->fused && p->in_registers)
            g_string_append_printf (s, "%sacc%u.step (%s, %s);\n", indent,
                                    prism_graph_op (kp->body, p->partner)->outputs[0], an, bn);
          else if (p->fused)
            g_string_append_printf (s, "%sprism::matmul_acc<NT, %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
                                    ", %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", %s> (t%u, %s, %s);\n",
                                    indent, p->batch, p->m, p->n, p->k, mma_names[p->mma],
                                    prism_graph_op (kp->body, p->partner)->outputs[0], an, bn);
          else
            g_string_append_printf (s, "%sprism::matmul<NT, %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
                                    ", %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", %s> (t%u, %s, %s);\n",
                                    indent, p->batch, p->m, p->n, p->k, mma_names[p->mma], o, an, bn);
        }
        break;
      case PRISM_OP_SUM:
        g_string_append_printf (s, "%sprism::reduce_sum<NT, S%u, %d> (t%u, t%u);\n", indent, a,
                                op->attrs.dim + (PRISM_MAX_DIMS - (int) prism_graph_tensor (kp->body, a)->ndims),
                                o, a);
        break;
      case PRISM_OP_RMS_NORM:
        {
          gint64 len = 1;
          for (guint d = PRISM_MAX_DIMS - op->attrs.norm_dims; d < PRISM_MAX_DIMS; d++)
            len *= ta->shape[d];
          g_string_append_printf (s, "%sprism::rms_norm<NT, S%u, %" G_GINT64_FORMAT "> (t%u, t%u);\n",
                                  indent, a, len, o, a);
        }
        break;
      case PRISM_OP_CONCAT:
        g_string_append_printf (s, "%sprism::concat<NT, %d, S%u, S%u, S%u> (t%u, t%u, t%u);\n", indent,
                                op->attrs.dim + (PRISM_MAX_DIMS - (int) prism_graph_tensor (kp->body, a)->ndims),
                                o, a, b, o, a, b);
        break;
      case PRISM_OP_ACCUM:
        if (p->fused)
          g_string_append_printf (s, "%s/* added to by op %d */\n", indent, p->partner);
        else if (kp->forloop == 1 && kp->tensors[o].item == kp->tensors[a].item)
          g_string_append_printf (s, "%s/* one iteration: t%u is t%u */\n", indent, o, a);
        else if (kp->forloop == 1)
          g_string_append_printf (s, "%sprism::convert<NT, S%u> (t%u, t%u);\n", indent, o, o, a);
        else
          g_string_append_printf (s, "%sprism::accum_add<NT, S%u> (t%u, t%u);\n", indent, o, o, a);
        break;
      case PRISM_OP_ACCUM_SUM:
      case PRISM_OP_ACCUM_MEAN:
        g_string_append_printf (s, "%sprism::accum_rows<NT, S%u, prism::FIdent> (t%u, t%u);\n", indent,
                                a, o, a);
        break;
      case PRISM_OP_ACCUM_RMS:
        g_string_append_printf (s, "%sprism::accum_rows<NT, S%u, prism::FSquare> (t%u, t%u);\n", indent,
                                a, o, a);
        break;
      case PRISM_OP_ACCUM_SUM_TODIMX:
        g_string_append_printf (s, "%sprism::accum_todimx<NT, S%u, %u> (t%u, t%u);\n", indent, a,
                                op->attrs.dimx, o, a);
        break;
      case PRISM_OP_ACCUM_MAX:
        g_string_append_printf (s, "%sprism::accum_max<NT, S%u> (t%u, t%u);\n", indent, o, o, a);
        break;
      case PRISM_OP_ACCUM_RESCALE:
        g_string_append_printf (s, "%sprism::accum_rescale<NT, S%u, S%u> (t%u, t%u, t%u);\n", indent,
                                o, b, o, a, b);
        break;
      case PRISM_OP_ACCUM_SUM_RESCALE:
        g_string_append_printf (s, "%sprism::accum_sum_rescale<NT, S%u, S%u> (t%u, t%u, t%u);\n", indent,
                                a, b, o, a, b);
        break;
      default:
        g_assert_not_reached ();
      }
  g_string_append_printf (s, "%sprism::sync ();\n", indent);
}

/* Per grid axis, the element-offset coefficient of the block index for a
 * tile of @tile_shape in a tensor of @data_shape (both padded) mapped by
 * @map; @fmap/@forloop fold the loop partition in (grid outer, loop inner). */
static void
tile_offsets (const PrismGraph *body, guint ndims, const gint64 *tile, const gint64 *data,
              const int *map, int fmap, gint64 forloop, gint64 *coef, gint64 *step)
{
  gint64 strides[PRISM_MAX_DIMS];
  guint pad = PRISM_MAX_DIMS - ndims;

  row_major_strides (data, strides);
  coef[0] = coef[1] = coef[2] = 0;
  *step = 0;
  for (guint d = 0; d < ndims; d++)
    {
      gint64 unit = tile[pad + d] * strides[pad + d];
      for (guint p = 0; p < body->grid_ndims; p++)
        if (map[p] == (int) d)
          coef[p] = unit * (fmap == (int) d ? forloop : 1);
      if (fmap == (int) d)
        *step = unit;
    }
}

static void
append_strides (GString *s, const gint64 *data)
{
  gint64 strides[PRISM_MAX_DIMS];

  row_major_strides (data, strides);
  g_string_append_printf (s, "%" G_GINT64_FORMAT "LL, %" G_GINT64_FORMAT "LL, %" G_GINT64_FORMAT "LL",
                          data[0] > 1 ? strides[0] : 0, data[1] > 1 ? strides[1] : 0,
                          data[2] > 1 ? strides[2] : 0);
}

static gboolean
output_is_summed (const PrismGraph *body, const PrismOp *op)
{
  for (guint p = 0; p < body->grid_ndims; p++)
    if (op->attrs.omap[p] < 0 && prism_dim_get_const (body->grid[p]) > 1)
      return TRUE;
  return FALSE;
}

/* Emits the loads of an INPUT tile; @it is the iteration expression. */
static void
emit_load (GString *s, const char *indent, const KernelPlan *kp, guint i, const char *fn,
           const char *dst, const char *it)
{
  const PrismOp *op = prism_graph_op (kp->body, i);
  guint t = op->outputs[0];
  const TensorPlan *tp = &kp->tensors[t];
  gint64 data[PRISM_MAX_DIMS], coef[PRISM_MAX_GRID_DIMS], step;

  pad_shape (op->data_ndims, op->data_dims, data);
  tile_offsets (kp->body, op->data_ndims, tp->shape, data, op->attrs.imap, op->attrs.fmap,
                kp->forloop, coef, &step);
  g_string_append_printf (s, "%sprism::%s<NT, %u, S%u, ", indent, fn,
                          pick_vec (prism_graph_tensor (kp->body, t)->dtype, tp->shape[3], data[3]), t);
  append_strides (s, data);
  g_string_append_printf (s, "> (%s, in%u + o%u", dst, op->attrs.input_index, t);
  if (step != 0 && it != NULL)
    g_string_append_printf (s, " + (long long) (%s) * %" G_GINT64_FORMAT "LL", it, step);
  g_string_append (s, ");\n");
}

static gboolean
emit_block_kernel (PrismCudaEmitter *self, GString *s, guint kop_index, GError **error)
{
  const PrismOp *kop = prism_graph_op (self->lowered, kop_index);
  const PrismGraph *body = kop->body;
  g_autofree char *name = g_strdup_printf ("%s_k%u", self->prefix, kop_index);
  KernelPlan kp;
  PrismCudaKernel *k;
  gboolean used_axis[PRISM_MAX_GRID_DIMS] = { FALSE, };
  guint n_out = 0, m;
  gboolean summed[PRISM_MAX_OP_OUTPUTS] = { FALSE, };
  guint partial[PRISM_MAX_OP_OUTPUTS] = { 0, };
  gint64 grid[PRISM_MAX_GRID_DIMS] = { 1, 1, 1 };
  const char *ind = "      ";
  gsize zero = 0;
  gsize start;

  for (guint p = 0; p < body->grid_ndims; p++)
    grid[p] = prism_dim_get_const (body->grid[p]);
  if (grid[0] > G_MAXINT32 || grid[1] > 65535 || grid[2] > 65535)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_LIMIT,
                   "op %u (kernel): grid (%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
                   ") exceeds CUDA's limits", kop_index, grid[0], grid[1], grid[2]);
      return FALSE;
    }

  plan_kernel (&kp, body, !self->no_pipeline);
  if (kp.smem[LAYOUT_GPU] > self->smem_limit && kp.pipelined)
    {
      kernel_plan_clear (&kp);
      plan_kernel (&kp, body, FALSE);
    }
  if (kp.smem[LAYOUT_GPU] > self->smem_limit)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_LIMIT,
                   "op %u (kernel): needs %" G_GSIZE_FORMAT " bytes of shared memory per block; %s allows %"
                   G_GSIZE_FORMAT, kop_index, kp.smem[LAYOUT_GPU], self->arch, self->smem_limit);
      kernel_plan_clear (&kp);
      return FALSE;
    }

  /* Which outputs sum blocks; which grid axes the offsets use. */
  for (guint i = 0; i < kp.n_ops; i++)
    {
      const PrismOp *op = prism_graph_op (body, i);
      const int *map;
      if (!kp.ops[i].live || (op->kind != PRISM_OP_INPUT && op->kind != PRISM_OP_OUTPUT))
        continue;
      map = op->kind == PRISM_OP_INPUT ? op->attrs.imap : op->attrs.omap;
      for (guint p = 0; p < body->grid_ndims; p++)
        if (map[p] >= 0)
          used_axis[p] = TRUE;
      if (op->kind == PRISM_OP_OUTPUT)
        {
          summed[n_out] = output_is_summed (body, op);
          if (summed[n_out])
            partial[n_out] = add_region (self, PRISM_DTYPE_F32,
                                         prism_tensor_numel (prism_graph_tensor (self->lowered,
                                                                                 kop->outputs[n_out])));
          n_out++;
        }
    }

  /* The clearing kernels of partial sums come first. */
  for (m = 0; m < n_out; m++)
    if (summed[m])
      {
        gint64 numel = region (self, partial[m])->numel;
        g_autofree char *zname = g_strdup_printf ("%s_zero%u", name, m);
        PrismCudaKernel *z = kernel_new (zname, PRISM_CUDA_KERNEL_ZERO, (int) kop_index);

        z->grid[0] = (guint) CLAMP ((numel + AUX_THREADS - 1) / AUX_THREADS, 1, AUX_MAX_BLOCKS);
        z->block[0] = AUX_THREADS;
        z->n_args = 1;
        z->args[0] = partial_arg (self, partial[m], TRUE);
        g_ptr_array_add (self->kernels, z);
        g_array_append_val (self->cpu_smem, zero);
        start = s->len;
        g_string_append_printf (s,
                                "/* Clears the f32 partial sums of output %u of op %u. */\n"
                                "extern \"C\" __global__ void __launch_bounds__ (%d)\n"
                                "%s (float *__restrict__ p)\n"
                                "{\n"
                                "  prism::zero_elements<%d, %" G_GINT64_FORMAT "LL> (p);\n"
                                "}\n\n",
                                m, kop_index, AUX_THREADS, zname, AUX_THREADS, numel);
        z->source = g_strndup (s->str + start, s->len - start);
      }

  k = kernel_new (name, PRISM_CUDA_KERNEL_BLOCK_GRAPH, (int) kop_index);
  for (guint p = 0; p < PRISM_MAX_GRID_DIMS; p++)
    k->grid[p] = (guint) grid[p];
  k->block[0] = body->block_threads;
  k->smem_bytes = kp.smem[LAYOUT_GPU];
  for (guint i = 0; i < kop->n_inputs; i++)
    k->args[k->n_args++] = loc_arg (self, kop->inputs[i], FALSE);
  for (m = 0; m < n_out; m++)
    k->args[k->n_args++] = summed[m] ? partial_arg (self, partial[m], TRUE)
                                     : loc_arg (self, kop->outputs[m], TRUE);
  g_ptr_array_add (self->kernels, k);
  g_array_append_val (self->cpu_smem, kp.smem[LAYOUT_CPU]);

  /* Signature. */
  start = s->len;
  g_string_append_printf (s, "/* Op %u: grid (%u, %u, %u), %u threads, loop %" G_GINT64_FORMAT
                          ", %" G_GSIZE_FORMAT " bytes of shared memory%s. */\n",
                          kop_index, k->grid[0], k->grid[1], k->grid[2], body->block_threads,
                          kp.forloop, kp.smem[LAYOUT_GPU],
                          kp.pipelined ? ", loop tiles double-buffered" : "");
  g_string_append_printf (s, "extern \"C\" __global__ void __launch_bounds__ (%u)\n%s (",
                          body->block_threads, name);
  for (guint i = 0; i < kop->n_inputs; i++)
    g_string_append_printf (s, "%sconst %s *__restrict__ in%u", i ? ", " : "",
                            ctype (prism_graph_tensor (self->lowered, kop->inputs[i])->dtype), i);
  for (m = 0; m < n_out; m++)
    g_string_append_printf (s, ", %s *__restrict__ out%u",
                            summed[m] ? "float" : ctype (prism_graph_tensor (self->lowered, kop->outputs[m])->dtype),
                            m);
  g_string_append (s, ")\n{\n");
  g_string_append_printf (s, "  constexpr int NT = %u;\n  constexpr int F = %" G_GINT64_FORMAT ";\n",
                          body->block_threads, kp.forloop);
  g_string_append (s, "  PRISM_DYNAMIC_SMEM (smem);\n");
  for (guint p = 0; p < body->grid_ndims; p++)
    if (used_axis[p])
      g_string_append_printf (s, "  const long long g%u = blockIdx.%c;\n", p, "xyz"[p]);

  /* Shapes and shared-memory tiles. */
  for (guint t = 0; t < kp.n_tensors; t++)
    {
      const TensorPlan *tp = &kp.tensors[t];
      if (!tp->live)
        continue;
      g_string_append_printf (s, "  using S%u [[maybe_unused]] = prism::Shape<%" G_GINT64_FORMAT ", %"
                              G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ">;\n",
                              t, tp->shape[0], tp->shape[1], tp->shape[2], tp->shape[3]);
    }
  for (guint t = 0; t < kp.n_tensors; t++)
    {
      const TensorPlan *tp = &kp.tensors[t];
      if (!tp->live || tp->item < 0)
        continue;
      if (tp->item2 >= 0)
        {
          g_string_append_printf (s, "  %s *const t%u_0 = ", ctype (tp->storage), t);
          append_smem_ptr (s, &kp, tp->item, tp->storage);
          g_string_append_printf (s, ";\n  %s *const t%u_1 = ", ctype (tp->storage), t);
          append_smem_ptr (s, &kp, tp->item2, tp->storage);
        }
      else
        {
          g_string_append_printf (s, "  %s *const t%u = ", ctype (tp->storage), t);
          append_smem_ptr (s, &kp, tp->item, tp->storage);
        }
      g_string_append (s, ";\n");
    }

  /* Before the loop. */
  g_string_append (s, "\n  /* Before the loop: accumulators, tile offsets, loop-invariant tiles. */\n");
  for (guint i = 0; i < kp.n_ops; i++)
    {
      const PrismOp *op = prism_graph_op (body, i);
      const OpPlan *p = &kp.ops[i];
      guint o;

      if (!p->live || op->kind == PRISM_OP_OUTPUT)
        continue;
      o = op->outputs[0];
      if (op->kind == PRISM_OP_MATMUL && p->fused && p->in_registers)
        {
          guint acc = prism_graph_op (body, p->partner)->outputs[0];
          g_string_append_printf (s, "  prism::MatmulAccum<NT, %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", %"
                                  G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", %s, %s> acc%u;\n  acc%u.zero ();\n",
                                  p->batch, p->m, p->n, p->k, mma_names[p->mma],
                                  ctype (prism_graph_tensor (body, op->inputs[0])->dtype), acc, acc);
        }
      else if (prism_op_kind_is_accum (op->kind) && !(p->fused && p->in_registers) &&
               !(op->kind == PRISM_OP_ACCUM && kp.forloop == 1 && !p->fused))
        g_string_append_printf (s, "  prism::fill<NT, S%u> (t%u, %s);\n", o, o,
                                op->kind == PRISM_OP_ACCUM_MAX ? "prism::neg_inf ()" : "0.0f");
      else if (op->kind == PRISM_OP_INPUT)
        {
          gint64 data[PRISM_MAX_DIMS], coef[PRISM_MAX_GRID_DIMS], step;
          const TensorPlan *tp = &kp.tensors[o];

          pad_shape (op->data_ndims, op->data_dims, data);
          tile_offsets (body, op->data_ndims, tp->shape, data, op->attrs.imap, op->attrs.fmap,
                        kp.forloop, coef, &step);
          g_string_append_printf (s, "  const long long o%u = ", o);
          append_offset (s, coef);
          g_string_append (s, ";\n");
          if (tp->invariant)
            {
              g_autofree char *dst = g_strdup_printf ("t%u", o);
              emit_load (s, "  ", &kp, i, "load_tile", dst, "0");
            }
          else if (tp->item2 >= 0)
            {
              g_autofree char *dst = g_strdup_printf ("t%u_0", o);
              emit_load (s, "  ", &kp, i, "load_tile_async", dst, "0");
            }
        }
    }
  if (kp.pipelined)
    g_string_append (s, "  prism::cp_async_commit ();\n");
  g_string_append (s, "  prism::sync ();\n\n");

  /* The loop. */
  g_string_append (s, "  for (int it = 0; it < F; ++it)\n    {\n");
  for (guint i = 0; i < kp.n_ops; i++)
    {
      const PrismOp *op = prism_graph_op (body, i);
      const TensorPlan *tp;
      if (!kp.ops[i].live || op->kind != PRISM_OP_INPUT)
        continue;
      tp = &kp.tensors[op->outputs[0]];
      if (tp->item2 >= 0)
        {
          guint t = op->outputs[0];
          g_autofree char *dst = g_strdup_printf ("(it & 1) ? t%u_0 : t%u_1", t, t);
          g_string_append_printf (s, "%s%s *const t%u = (it & 1) ? t%u_1 : t%u_0;\n", ind,
                                  ctype (tp->storage), t, t, t);
          g_string_append_printf (s, "%sif (it + 1 < F)\n  ", ind);
          emit_load (s, ind, &kp, i, "load_tile_async", dst, "it + 1");
        }
    }
  if (kp.pipelined)
    g_string_append_printf (s, "%sprism::cp_async_commit ();\n", ind);
  for (guint i = 0; i < kp.n_ops; i++)
    {
      const PrismOp *op = prism_graph_op (body, i);
      const TensorPlan *tp;
      if (!kp.ops[i].live || op->kind != PRISM_OP_INPUT)
        continue;
      tp = &kp.tensors[op->outputs[0]];
      if (!tp->invariant && tp->item2 < 0)
        {
          g_autofree char *dst = g_strdup_printf ("t%u", op->outputs[0]);
          emit_load (s, ind, &kp, i, "load_tile", dst, "it");
        }
    }
  if (kp.pipelined)
    g_string_append_printf (s, "%sprism::cp_async_wait<1> ();\n", ind);
  g_string_append_printf (s, "%sprism::sync ();\n", ind);
  for (guint i = 0; i < kp.n_ops; i++)
    {
      const PrismOp *op = prism_graph_op (body, i);
      /* An accum fed by a matmul kept in registers has nothing to do here. */
      if (kp.ops[i].live && op->kind != PRISM_OP_INPUT && op->kind != PRISM_OP_OUTPUT &&
          is_in_loop (&kp, op) && !(prism_op_kind_is_accum (op->kind) && kp.ops[i].fused))
        emit_op (s, ind, &kp, i);
    }
  g_string_append (s, "    }\n\n  /* After the loop: finish the accumulators, the epilogue, the stores. */\n");

  for (guint i = 0; i < kp.n_ops; i++)
    {
      const PrismOp *op = prism_graph_op (body, i);
      const OpPlan *p = &kp.ops[i];
      guint o;
      double count;

      if (!p->live || !prism_op_kind_is_accum (op->kind))
        continue;
      o = op->outputs[0];
      count = (double) kp.forloop * (double) kp.tensors[op->inputs[0]].shape[3];
      if (p->fused && p->in_registers)
        g_string_append_printf (s, "  acc%u.store (t%u);\n", o, o);
      else if (op->kind == PRISM_OP_ACCUM_MEAN)
        g_string_append_printf (s, "  prism::accum_scale<NT, S%u> (t%u, %.9gf);\n", o, o, 1.0 / count);
      else if (op->kind == PRISM_OP_ACCUM_RMS)
        g_string_append_printf (s, "  prism::accum_rms_finish<NT, S%u> (t%u, %.9gf);\n", o, o, 1.0 / count);
    }
  g_string_append (s, "  prism::sync ();\n");
  for (guint i = 0; i < kp.n_ops; i++)
    {
      const PrismOp *op = prism_graph_op (body, i);
      if (kp.ops[i].live && op->kind != PRISM_OP_INPUT && op->kind != PRISM_OP_OUTPUT &&
          !is_in_loop (&kp, op))
        emit_op (s, "  ", &kp, i);
    }
  m = 0;
  for (guint i = 0; i < kp.n_ops; i++)
    {
      const PrismOp *op = prism_graph_op (body, i);
      guint t;
      const TensorPlan *tp;
      gint64 data[PRISM_MAX_DIMS], coef[PRISM_MAX_GRID_DIMS], step;

      if (op->kind != PRISM_OP_OUTPUT)
        continue;
      t = op->inputs[0];
      tp = &kp.tensors[t];
      pad_shape (op->data_ndims, op->data_dims, data);
      tile_offsets (body, op->data_ndims, tp->shape, data, op->attrs.omap, -1, 1, coef, &step);
      if (summed[m])
        g_string_append_printf (s, "  prism::store_tile_add<NT, S%u, ", t);
      else
        g_string_append_printf (s, "  prism::store_tile<NT, %u, S%u, ",
                                pick_vec (prism_graph_tensor (self->lowered, kop->outputs[m])->dtype,
                                          tp->shape[3], data[3]), t);
      append_strides (s, data);
      g_string_append_printf (s, "> (out%u + ", m);
      append_offset (s, coef);
      g_string_append_printf (s, ", t%u);\n", t);
      m++;
    }
  g_string_append (s, "}\n\n");
  k->source = g_strndup (s->str + start, s->len - start);

  /* Partial sums become the output. */
  for (m = 0; m < n_out; m++)
    if (summed[m])
      {
        const Region *r = region (self, partial[m]);
        PrismDtype dt = prism_graph_tensor (self->lowered, kop->outputs[m])->dtype;
        g_autofree char *cname = g_strdup_printf ("%s_sum%u", name, m);
        PrismCudaKernel *c = kernel_new (cname, PRISM_CUDA_KERNEL_CONVERT, (int) kop_index);

        c->grid[0] = (guint) CLAMP ((r->numel + AUX_THREADS - 1) / AUX_THREADS, 1, AUX_MAX_BLOCKS);
        c->block[0] = AUX_THREADS;
        c->n_args = 2;
        c->args[0] = partial_arg (self, partial[m], FALSE);
        c->args[1] = loc_arg (self, kop->outputs[m], TRUE);
        g_ptr_array_add (self->kernels, c);
        g_array_append_val (self->cpu_smem, zero);
        start = s->len;
        g_string_append_printf (s,
                                "/* Output %u of op %u: the summed f32 partials, converted. */\n"
                                "extern \"C\" __global__ void __launch_bounds__ (%d)\n"
                                "%s (const float *__restrict__ src, %s *__restrict__ dst)\n"
                                "{\n"
                                "  prism::convert_elements<%d, %" G_GINT64_FORMAT "LL> (dst, src);\n"
                                "}\n\n",
                                m, kop_index, AUX_THREADS, cname, ctype (dt), AUX_THREADS, r->numel);
        c->source = g_strndup (s->str + start, s->len - start);
      }

  kernel_plan_clear (&kp);
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* The launcher, the header and the CPU harness */

static void
emit_launcher (PrismCudaEmitter *self, GString *s)
{
  g_string_append (s, "#if !defined(__CUDACC_RTC__)\n\n");
  g_string_append_printf (s,
                          "/* Bytes of workspace %s_launch() needs (GPU layout; the CPU build stores\n"
                          " * every dtype as f32 and needs the second figure). */\n"
                          "extern \"C\" size_t\n%s_workspace_size (void)\n{\n"
                          "  return PRISM_PICK (%" G_GSIZE_FORMAT "u, %" G_GSIZE_FORMAT "u);\n}\n\n",
                          self->prefix, self->prefix, self->ws_size[LAYOUT_GPU], self->ws_size[LAYOUT_CPU]);
  g_string_append_printf (s,
                          "/* Runs the program on @stream.  Returns 0, -1 when the workspace is missing,\n"
                          " * or the first CUDA error. */\n"
                          "extern \"C\" int\n%s_launch (const void *const *inputs, void *const *outputs,\n"
                          "%*s void *workspace, cudaStream_t stream)\n{\n"
                          "  unsigned char *const ws = (unsigned char *) workspace;\n\n"
                          "  (void) ws;\n  (void) stream;\n  (void) inputs;\n"
                          "  if (%s_workspace_size () > 0 && ws == nullptr)\n    return -1;\n",
                          self->prefix, (int) strlen (self->prefix) + 8, "", self->prefix);
  for (guint i = 0; i < self->kernels->len; i++)
    {
      const PrismCudaKernel *k = g_ptr_array_index (self->kernels, i);
      if (k->smem_bytes > SMEM_NO_OPT_IN)
        g_string_append_printf (s, "  if (int err = PRISM_SET_MAX_SMEM (%s, %" G_GSIZE_FORMAT "u))\n"
                                "    return err;\n", k->name, k->smem_bytes);
    }
  for (guint i = 0; i < self->kernels->len; i++)
    {
      const PrismCudaKernel *k = g_ptr_array_index (self->kernels, i);
      gsize cpu_smem = g_array_index (self->cpu_smem, gsize, i);

      g_string_append_printf (s, "  PRISM_LAUNCH (%s, dim3 (%u, %u, %u), dim3 (%u, %u, %u),\n"
                              "                PRISM_PICK (%" G_GSIZE_FORMAT "u, %" G_GSIZE_FORMAT "u), stream",
                              k->name, k->grid[0], k->grid[1], k->grid[2], k->block[0], k->block[1],
                              k->block[2], k->smem_bytes, cpu_smem);
      for (guint j = 0; j < k->n_args; j++)
        {
          const PrismCudaArg *a = &k->args[j];
          g_autofree char *full = g_strdup_printf ("%s%s *", a->writable ? "" : "const ", ctype (a->dtype));
          g_autofree char *e = arg_expr (self, &k->args[j], full);
          g_string_append_printf (s, ",\n                %s", e);
        }
      g_string_append (s, ");\n");
    }
  g_string_append (s, "  return PRISM_LAST_ERROR ();\n}\n\n#endif /* !__CUDACC_RTC__ */\n");
}

static void
describe_tensor (GString *s, const PrismCudaEmitter *self, guint t, const char *label, guint index)
{
  const PrismTensor *tensor = prism_graph_tensor (self->lowered, t);
  const PrismOp *op = prism_graph_op (self->lowered, tensor->producer);
  g_autofree char *shape = prism_tensor_shape_to_string (self->lowered, tensor);

  g_string_append_printf (s, " *   %s[%u]: %s %s %s\n", label, index,
                          op->kind == PRISM_OP_INPUT && op->name ? op->name : "",
                          prism_dtype_to_string (tensor->dtype), shape);
}

static void
emit_header (PrismCudaEmitter *self)
{
  GString *s = g_string_new (NULL);
  g_autofree char *guard = g_ascii_strup (self->prefix, -1);

  g_string_append_printf (s, "/* %s.h — generated by Prism Explorer %s; do not edit.\n *\n",
                          self->prefix, PACKAGE_VERSION);
  g_string_append_printf (s, " * Program: %s (target %s)\n *\n",
                          self->lowered->name ? self->lowered->name : "(unnamed)", self->arch);
  g_string_append (s, " * Device pointers, row-major, 16-byte aligned:\n");
  for (guint i = 0; i < self->inputs->len; i++)
    describe_tensor (s, self, g_array_index (self->inputs, guint, i), "inputs", i);
  for (guint i = 0; i < self->outputs->len; i++)
    {
      const PrismTensor *tensor = prism_graph_tensor (self->lowered, g_array_index (self->outputs, guint, i));
      g_autofree char *shape = prism_tensor_shape_to_string (self->lowered, tensor);
      const char *name = NULL;
      for (guint j = 0, n = 0; j < self->lowered->ops->len; j++)
        {
          const PrismOp *op = prism_graph_op (self->lowered, j);
          if (op->kind == PRISM_OP_OUTPUT && n++ == i)
            name = op->name;
        }
      g_string_append_printf (s, " *   outputs[%u]: %s %s %s\n", i, name ? name : "",
                              prism_dtype_to_string (tensor->dtype), shape);
    }
  g_string_append_printf (s,
                          " */\n#ifndef %s_H\n#define %s_H\n\n#include <stddef.h>\n\n"
                          "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
                          "struct CUstream_st; /* cudaStream_t */\n\n"
                          "#define %s_NUM_INPUTS %u\n#define %s_NUM_OUTPUTS %u\n\n"
                          "/* Bytes of device memory to pass as @workspace (may be 0). */\n"
                          "size_t %s_workspace_size (void);\n\n"
                          "/* Enqueues the program on @stream; returns 0 or a cudaError_t value (-1:\n"
                          " * the workspace is missing). */\n"
                          "int %s_launch (const void *const *inputs, void *const *outputs,\n"
                          "%*s void *workspace, struct CUstream_st *stream);\n\n"
                          "#ifdef __cplusplus\n}\n#endif\n\n#endif /* %s_H */\n",
                          guard, guard, guard, self->inputs->len, guard, self->outputs->len,
                          self->prefix, self->prefix, (int) strlen (self->prefix) + 12, "", guard);
  self->header = g_string_free (s, FALSE);
}

/* Shared by every run function, so that many programs' runs fit one
 * translation unit (static: one copy per harness). */
static const char harness_helpers[] =
  "#include <cstdio>\n#include <cstdlib>\n#include <cstring>\n\n"
  "static float *\nprism_harness_load (const char *dir, const char *name, size_t n)\n{\n"
  "  char path[4096];\n  float *p = (float *) malloc (n * sizeof (float) + 1);\n"
  "  snprintf (path, sizeof path, \"%s/%s\", dir, name);\n"
  "  FILE *f = fopen (path, \"rb\");\n"
  "  if (f == NULL || p == NULL || fread (p, sizeof (float), n, f) != n)\n"
  "    {\n      fprintf (stderr, \"cannot read %zu floats from %s\\n\", n, path);\n"
  "      if (f != NULL)\n        fclose (f);\n      free (p);\n      return NULL;\n    }\n"
  "  fclose (f);\n  return p;\n}\n\n"
  "static bool\nprism_harness_save (const char *dir, const char *name, const float *p, size_t n)\n{\n"
  "  char path[4096];\n  snprintf (path, sizeof path, \"%s/%s\", dir, name);\n"
  "  FILE *f = fopen (path, \"wb\");\n"
  "  bool ok = f != NULL && fwrite (p, sizeof (float), n, f) == n;\n"
  "  if (f != NULL && fclose (f) != 0)\n    ok = false;\n"
  "  if (!ok)\n    fprintf (stderr, \"cannot write %s\\n\", path);\n"
  "  return ok;\n}\n\n";

const char *
prism_cuda_cpu_harness_helpers (void)
{
  return harness_helpers;
}

static void
emit_cpu_run (PrismCudaEmitter *self)
{
  GString *s = g_string_new (NULL);
  guint n_in = self->inputs->len, n_out = self->outputs->len;

  g_string_append_printf (s,
                          "/* Runs the CPU build of %s_launch() on in_dir/inK.f32 and writes\n"
                          " * out_dir/outK.f32 (raw little-endian f32); 0 on success. */\n"
                          "int\n%s_cpu_run (const char *in_dir, const char *out_dir)\n{\n"
                          "  float *in[%u + 1] = { NULL, };\n  float *out[%u + 1] = { NULL, };\n"
                          "  void *ws = NULL;\n  int rc = 1;\n\n",
                          self->prefix, self->prefix, n_in, n_out);
  for (guint i = 0; i < n_in; i++)
    g_string_append_printf (s, "  if ((in[%u] = prism_harness_load (in_dir, \"in%u.f32\", %" G_GINT64_FORMAT
                            ")) == NULL)\n    goto out;\n", i, i,
                            prism_tensor_numel (prism_graph_tensor (self->lowered,
                                                                    g_array_index (self->inputs, guint, i))));
  /* Outputs and the workspace start as NaN (0xff bytes) so that an element
   * nobody writes shows up. */
  for (guint i = 0; i < n_out; i++)
    {
      gint64 n = prism_tensor_numel (prism_graph_tensor (self->lowered, g_array_index (self->outputs, guint, i)));
      g_string_append_printf (s, "  out[%u] = (float *) malloc (%" G_GINT64_FORMAT " * sizeof (float));\n"
                              "  if (out[%u] == NULL)\n    goto out;\n"
                              "  memset (out[%u], 0xff, %" G_GINT64_FORMAT " * sizeof (float));\n",
                              i, n, i, i, n);
    }
  g_string_append_printf (s, "  {\n    size_t ws_size = %s_workspace_size ();\n"
                          "    ws = ws_size > 0 ? malloc (ws_size) : NULL;\n"
                          "    if (ws != NULL)\n      memset (ws, 0xff, ws_size);\n"
                          "    const void *inputs[] = { ", self->prefix);
  for (guint i = 0; i < n_in; i++)
    g_string_append_printf (s, "in[%u], ", i);
  g_string_append (s, "NULL };\n    void *outputs[] = { ");
  for (guint i = 0; i < n_out; i++)
    g_string_append_printf (s, "out[%u], ", i);
  g_string_append_printf (s, "NULL };\n    int err = %s_launch (inputs, outputs, ws, NULL);\n"
                          "    if (err != 0)\n      {\n        fprintf (stderr, \"%s: launch failed: %%d\\n\", err);\n"
                          "        goto out;\n      }\n  }\n", self->prefix, self->prefix);
  for (guint i = 0; i < n_out; i++)
    g_string_append_printf (s, "  if (!prism_harness_save (out_dir, \"out%u.f32\", out[%u], %" G_GINT64_FORMAT "))\n"
                            "    goto out;\n", i, i,
                            prism_tensor_numel (prism_graph_tensor (self->lowered,
                                                                    g_array_index (self->outputs, guint, i))));
  g_string_append_printf (s, "  rc = 0;\n\nout:\n"
                          "  for (unsigned i = 0; i < %u; i++)\n    free (in[i]);\n"
                          "  for (unsigned i = 0; i < %u; i++)\n    free (out[i]);\n"
                          "  free (ws);\n  return rc;\n}\n", n_in, n_out);
  self->cpu_run = g_string_free (s, FALSE);
}

static void
emit_harness (PrismCudaEmitter *self)
{
  GString *s = g_string_new (NULL);

  g_string_append_printf (s,
                          "/* CPU test harness of %s (generated): reads DIR/inK.f32, runs the CPU\n"
                          " * build of the launcher, writes DIR/outK.f32 (raw little-endian f32). */\n",
                          self->prefix);
  g_string_append (s, harness_helpers);
  g_string_append_printf (s, "#include \"%s.h\"\n\n", self->prefix);
  g_string_append (s, self->cpu_run);
  g_string_append_printf (s,
                          "\nint\nmain (int argc, char **argv)\n{\n"
                          "  if (argc != 2)\n    {\n      fprintf (stderr, \"usage: %%s DIR\\n\", argv[0]);\n"
                          "      return 2;\n    }\n"
                          "  return %s_cpu_run (argv[1], argv[1]);\n}\n", self->prefix);
  self->harness = g_string_free (s, FALSE);
}

/* ------------------------------------------------------------------------ */

PrismCudaEmitter *
prism_cuda_emitter_new (const PrismGraph *graph, const PrismCudaOptions *options, GError **error)
{
  g_autoptr(PrismCudaEmitter) self = NULL;
  g_autoptr(GString) s = NULL;
  PrismCudaOptions defaults = { 0, };

  g_return_val_if_fail (graph != NULL, NULL);
  if (options == NULL)
    options = &defaults;

  self = g_new0 (PrismCudaEmitter, 1);
  self->kernels = g_ptr_array_new_with_free_func (kernel_free);
  self->cpu_smem = g_array_new (FALSE, TRUE, sizeof (gsize));
  self->regions = g_array_new (FALSE, TRUE, sizeof (Region));
  self->sm = options->sm != 0 ? options->sm : 90;
  if (self->sm < 80)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED,
                   "target sm_%u is not supported; the generated code needs sm_80 or newer", self->sm);
      return NULL;
    }
  self->arch = g_strdup_printf ("sm_%u", self->sm);
  /* Opt-in maximum per block: 163 KiB on sm_80, 227 KiB on sm_90 and newer. */
  self->smem_limit = options->smem_limit != 0 ? options->smem_limit
                                               : (self->sm >= 90 ? 227 * 1024 : 163 * 1024);
  self->no_pipeline = options->no_pipeline;
  if (options->prefix != NULL && !valid_identifier (options->prefix))
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_PARSE, "“%s” is not a C identifier", options->prefix);
      return NULL;
    }

  self->lowered = prism_lower_predefined_ops (graph, error);
  if (self->lowered == NULL)
    return NULL;
  self->prefix = options->prefix != NULL ? g_strdup (options->prefix) : make_prefix (graph->name);

  /* Where every kernel-level tensor lives. */
  self->inputs = prism_graph_get_inputs (self->lowered);
  self->outputs = prism_graph_get_outputs (self->lowered);
  self->locs = g_new0 (Loc, self->lowered->tensors->len);
  for (guint t = 0; t < self->lowered->tensors->len; t++)
    self->locs[t].kind = LOC_WORKSPACE;
  for (guint i = 0; i < self->inputs->len; i++)
    {
      Loc *l = &self->locs[g_array_index (self->inputs, guint, i)];
      l->kind = LOC_INPUT;
      l->index = i;
    }
  for (guint i = 0; i < self->outputs->len; i++)
    {
      Loc *l = &self->locs[g_array_index (self->outputs, guint, i)];
      l->kind = LOC_OUTPUT;
      l->index = i;
    }
  for (guint t = 0; t < self->lowered->tensors->len; t++)
    if (self->locs[t].kind == LOC_WORKSPACE)
      {
        const PrismTensor *tensor = prism_graph_tensor (self->lowered, t);
        self->locs[t].index = add_region (self, tensor->dtype, prism_tensor_numel (tensor));
      }

  s = g_string_new (NULL);
  g_string_append_printf (s, "/* %s.cu — generated by Prism Explorer %s; do not edit.\n *\n"
                          " * Program: %s\n * Target: %s (also compiles for sm_80 and newer)\n *\n"
                          " * Compile: nvcc -std=c++17 -arch=%s -I<kernels> -c %s.cu\n"
                          " * The same text compiles as C++ (g++ -x c++ -std=c++17 -I<kernels>) into a\n"
                          " * CPU build that runs the blocks in order, for testing without a GPU.\n */\n"
                          "#include \"prism-runtime.cuh\"\n\n",
                          self->prefix, PACKAGE_VERSION,
                          graph->name ? graph->name : "(unnamed)", self->arch, self->arch, self->prefix);
  self->preamble = g_strdup (s->str);
  for (guint i = 0; i < self->lowered->ops->len; i++)
    if (prism_graph_op (self->lowered, i)->kind == PRISM_OP_KERNEL &&
        !emit_block_kernel (self, s, i, error))
      return NULL;
  {
    gsize host_start = s->len;
    emit_launcher (self, s);
    self->host = g_strdup (s->str + host_start);
  }
  self->source = g_string_free (g_steal_pointer (&s), FALSE);
  emit_header (self);
  emit_cpu_run (self);
  emit_harness (self);
  return g_steal_pointer (&self);
}

void
prism_cuda_emitter_free (PrismCudaEmitter *self)
{
  if (self == NULL)
    return;
  g_clear_pointer (&self->lowered, prism_graph_unref);
  g_free (self->prefix);
  g_free (self->arch);
  g_clear_pointer (&self->inputs, g_array_unref);
  g_clear_pointer (&self->outputs, g_array_unref);
  g_free (self->locs);
  g_clear_pointer (&self->regions, g_array_unref);
  g_clear_pointer (&self->kernels, g_ptr_array_unref);
  g_clear_pointer (&self->cpu_smem, g_array_unref);
  g_free (self->source);
  g_free (self->preamble);
  g_free (self->host);
  g_free (self->header);
  g_free (self->harness);
  g_free (self->cpu_run);
  g_free (self);
}

const char *
prism_cuda_emitter_get_prefix (const PrismCudaEmitter *self)
{
  return self->prefix;
}

const char *
prism_cuda_emitter_get_source (const PrismCudaEmitter *self)
{
  return self->source;
}

const char *
prism_cuda_emitter_get_preamble (const PrismCudaEmitter *self)
{
  return self->preamble;
}

const char *
prism_cuda_emitter_get_host_source (const PrismCudaEmitter *self)
{
  return self->host;
}

const char *
prism_cuda_emitter_get_header (const PrismCudaEmitter *self)
{
  return self->header;
}

const char *
prism_cuda_emitter_get_cpu_harness (const PrismCudaEmitter *self)
{
  return self->harness;
}

const char *
prism_cuda_emitter_get_cpu_run (const PrismCudaEmitter *self)
{
  return self->cpu_run;
}

gsize
prism_cuda_emitter_get_workspace_size (const PrismCudaEmitter *self)
{
  return self->ws_size[LAYOUT_GPU];
}

guint
prism_cuda_emitter_get_n_kernels (const PrismCudaEmitter *self)
{
  return self->kernels->len;
}

const PrismCudaKernel *
prism_cuda_emitter_get_kernel (const PrismCudaEmitter *self, guint index)
{
  g_return_val_if_fail (index < self->kernels->len, NULL);
  return g_ptr_array_index (self->kernels, index);
}

const PrismGraph *
prism_cuda_emitter_get_lowered_graph (const PrismCudaEmitter *self)
{
  return self->lowered;
}

const char *
prism_cuda_emitter_get_arch (const PrismCudaEmitter *self)
{
  return self->arch;
}

/* ------------------------------------------------------------------------ */
/* The manifest */

static void
add_tensor_list (JsonBuilder *b, const PrismCudaEmitter *self, PrismOpKind kind)
{
  guint n = 0;

  json_builder_begin_array (b);
  for (guint j = 0; j < self->lowered->ops->len; j++)
    {
      const PrismOp *op = prism_graph_op (self->lowered, j);
      const PrismTensor *t;
      gint64 shape[PRISM_MAX_DIMS];

      if (op->kind != kind)
        continue;
      t = prism_graph_tensor (self->lowered, kind == PRISM_OP_INPUT ? op->outputs[0] : op->inputs[0]);
      prism_tensor_get_shape (t, shape);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "index");
      json_builder_add_int_value (b, n++);
      json_builder_set_member_name (b, "name");
      json_builder_add_string_value (b, op->name ? op->name : "");
      json_builder_set_member_name (b, "dtype");
      json_builder_add_string_value (b, prism_dtype_to_string (t->dtype));
      json_builder_set_member_name (b, "shape");
      json_builder_begin_array (b);
      for (guint d = 0; d < t->ndims; d++)
        json_builder_add_int_value (b, shape[d]);
      json_builder_end_array (b);
      json_builder_set_member_name (b, "bytes");
      json_builder_add_int_value (b, prism_tensor_numel (t) * prism_dtype_size (t->dtype));
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

static void
add_uint3 (JsonBuilder *b, const char *name, const guint *v)
{
  json_builder_set_member_name (b, name);
  json_builder_begin_array (b);
  for (guint i = 0; i < 3; i++)
    json_builder_add_int_value (b, v[i]);
  json_builder_end_array (b);
}

static const char *
role_name (PrismCudaKernelRole role)
{
  switch (role)
    {
    case PRISM_CUDA_KERNEL_ZERO:
      return "zero";
    case PRISM_CUDA_KERNEL_CONVERT:
      return "convert";
    case PRISM_CUDA_KERNEL_BLOCK_GRAPH:
    default:
      return "block_graph";
    }
}

static const char *
arg_kind_name (PrismCudaArgKind kind)
{
  switch (kind)
    {
    case PRISM_CUDA_ARG_INPUT:
      return "input";
    case PRISM_CUDA_ARG_OUTPUT:
      return "output";
    case PRISM_CUDA_ARG_WORKSPACE:
    default:
      return "workspace";
    }
}

JsonNode *
prism_cuda_emitter_build_manifest (const PrismCudaEmitter *self, const char *source_file,
                                   const char *header_file)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autofree char *launcher = g_strdup_printf ("%s_launch", self->prefix);
  g_autofree char *wsfn = g_strdup_printf ("%s_workspace_size", self->prefix);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "format");
  json_builder_add_string_value (b, "prism-kernels");
  json_builder_set_member_name (b, "version");
  json_builder_add_int_value (b, 1);
  json_builder_set_member_name (b, "program");
  json_builder_add_string_value (b, self->lowered->name ? self->lowered->name : "");
  json_builder_set_member_name (b, "prefix");
  json_builder_add_string_value (b, self->prefix);
  json_builder_set_member_name (b, "target_arch");
  json_builder_add_string_value (b, self->arch);
  json_builder_set_member_name (b, "min_arch");
  json_builder_add_string_value (b, "sm_80");
  json_builder_set_member_name (b, "source");
  json_builder_add_string_value (b, source_file);
  json_builder_set_member_name (b, "header");
  json_builder_add_string_value (b, header_file);
  json_builder_set_member_name (b, "launcher");
  json_builder_add_string_value (b, launcher);
  json_builder_set_member_name (b, "workspace_size_function");
  json_builder_add_string_value (b, wsfn);
  json_builder_set_member_name (b, "workspace_bytes");
  json_builder_add_int_value (b, (gint64) self->ws_size[LAYOUT_GPU]);
  json_builder_set_member_name (b, "inputs");
  add_tensor_list (b, self, PRISM_OP_INPUT);
  json_builder_set_member_name (b, "outputs");
  add_tensor_list (b, self, PRISM_OP_OUTPUT);

  json_builder_set_member_name (b, "kernels");
  json_builder_begin_array (b);
  for (guint i = 0; i < self->kernels->len; i++)
    {
      const PrismCudaKernel *k = g_ptr_array_index (self->kernels, i);

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "name");
      json_builder_add_string_value (b, k->name);
      json_builder_set_member_name (b, "role");
      json_builder_add_string_value (b, role_name (k->role));
      json_builder_set_member_name (b, "op");
      json_builder_add_int_value (b, k->op_index);
      add_uint3 (b, "grid", k->grid);
      add_uint3 (b, "block", k->block);
      json_builder_set_member_name (b, "shared_memory_bytes");
      json_builder_add_int_value (b, (gint64) k->smem_bytes);
      json_builder_set_member_name (b, "args");
      json_builder_begin_array (b);
      for (guint j = 0; j < k->n_args; j++)
        {
          const PrismCudaArg *a = &k->args[j];

          json_builder_begin_object (b);
          json_builder_set_member_name (b, "kind");
          json_builder_add_string_value (b, arg_kind_name (a->kind));
          if (a->kind == PRISM_CUDA_ARG_WORKSPACE)
            {
              json_builder_set_member_name (b, "offset");
              json_builder_add_int_value (b, (gint64) a->offset);
            }
          else
            {
              json_builder_set_member_name (b, "index");
              json_builder_add_int_value (b, a->index);
            }
          json_builder_set_member_name (b, "dtype");
          json_builder_add_string_value (b, prism_dtype_to_string (a->dtype));
          json_builder_set_member_name (b, "const");
          json_builder_add_boolean_value (b, !a->writable);
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}
