/* prism-kernel-plan.c — how one custom kernel is laid out on the GPU
 *
 * The plan is everything the emitter decides before it writes a line, and
 * everything the cost model prices:
 *
 *  - the ops an output depends on (dead ops are dropped);
 *  - the matmul path (WMMA 16×16×16 or 8×32×16 for f16/bf16 tiles the
 *    fragments divide, CUDA-core multiply-adds otherwise), and how a block's
 *    warps share it: when a tile has fewer output fragments than the block
 *    has warps, the warps split K among them (each a slice, the partial
 *    fragments added once at the end), so that no warp idles;
 *  - a matmul whose only use is an `accum` kept in registers across the loop;
 *  - each tile's storage type: f32 for everything computed, except tiles only
 *    read by tensor-core matmuls, which stay in the input dtype;
 *  - the schedule: loop-invariant tiles and accumulator setup before the
 *    loop, per-iteration loads, the body, then accumulator finishing, the
 *    epilogue and the stores;
 *  - the ring: loop tiles that move in 4-, 8- or 16-byte chunks stream
 *    through a cp.async ring of S buffers, S chosen so that the blocks
 *    resident on an SM keep PRISM_PIPELINE_GOAL_BYTES in flight where shared
 *    memory allows (Little's law: what is in flight over the DRAM latency is
 *    the bandwidth one SM draws);
 *  - shared memory packed by lifetime (first fit), once with the GPU's
 *    element sizes and once with the CPU build's;
 *  - the outputs whose blocks add into one tile (omap −1): the last block to
 *    arrive at a tile sums the partials (coalesced: lane t reads 16-byte
 *    vectors t, t + NT, …) while they are few; past PRISM_COMBINE_MIN_BYTES
 *    of partials a tile, a combine kernel launched next adds them up, its
 *    blocks each a slice of a tile over every split (plan_combine).
 *
 * Sizes may be symbolic with values given: the cost model plans every size
 * assignment it considers exactly as the emitter will generate it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "prism-error.h"
#include "prism-kernel-plan-private.h"

#define SMEM_ALIGN 128
/* Fragments one warp may keep in registers for a MatmulAccum (8 floats each
 * for 16×16 fragments: 64 registers). */
#define MAX_FUSED_FRAGS_PER_WARP 8
/* Shared memory the CUDA runtime reserves per resident block (sm_80+). */
#define SMEM_RESERVED_PER_BLOCK 1024
/* Static shared memory the runtime headers may declare (row-split and
 * arrival flags, a few hundred bytes), kept free of the dynamic plan. */
#define STATIC_SMEM_RESERVE 1024
/* Replicated tiles of tensors larger than this share of L2 are re-read from DRAM. */
#define L2_RESIDENT_SHARE 0.5
/* A ring deeper than two stages stays within this much shared memory, so
 * that every caller's limit above it (the search's 96 KiB, a GPU's opt-in
 * maximum) gets the same plan for kernels of several blocks per SM.  A
 * kernel that keeps one block per SM anyway may use the SM's shared memory
 * (the target's per-block maximum, 227 KiB on sm_90) instead: deeper rings
 * then cost no residency (ring_smem_budget()). */
#define RING_SMEM_BUDGET (96 * 1024)
/* Vectors of a synchronous tile load (load_tile() in prism-tile.cuh, its
 * kLoadBatch) one thread issues before it stores the first: what such
 * loads keep in flight is at most threads × this × 16 bytes. */
#define SYNC_LOAD_BATCH 8

/* ------------------------------------------------------------------------ */
/* Small helpers */

static gsize
align_up (gsize n, gsize a)
{
  return (n + a - 1) / a * a;
}

static gboolean
is_half (PrismDtype dtype)
{
  return dtype == PRISM_DTYPE_F16 || dtype == PRISM_DTYPE_BF16;
}

gsize
prism_kernel_plan_elem_bytes (PrismDtype dtype, int layout)
{
  return layout == PRISM_LAYOUT_CPU ? 4 : prism_dtype_size (dtype);
}

void
prism_pad_shape (guint ndims, const gint64 *dims, gint64 *out)
{
  for (guint i = 0; i < PRISM_MAX_DIMS; i++)
    out[i] = 1;
  for (guint i = 0; i < ndims; i++)
    out[PRISM_MAX_DIMS - ndims + i] = dims[i];
}

guint
prism_kernel_plan_pick_vec (PrismDtype dtype, gint64 tile_last, gint64 data_last)
{
  guint v = 16 / prism_dtype_size (dtype);

  while (v > 1 && (tile_last % v != 0 || data_last % v != 0))
    v /= 2;
  return v;
}

static gint64
numel4 (const gint64 *s)
{
  return s[0] * s[1] * s[2] * s[3];
}

gint64
prism_tensor_plan_storage (const PrismTensorPlan *tp)
{
  return tp->shape[0] * tp->shape[1] * tp->shape[2] * MAX (tp->pitch, tp->shape[3]);
}

gint64
prism_tensor_plan_ring_stride (const PrismTensorPlan *tp)
{
  gint64 per_line = SMEM_ALIGN / (gint64) prism_dtype_size (tp->storage);

  return (prism_tensor_plan_storage (tp) + per_line - 1) / per_line * per_line;
}

/* Evaluates and pads @ndims dims; FALSE unless each is a positive integer. */
static gboolean
eval_shape (guint ndims, PrismDim * const *dims, const gint64 *values, guint n_values, gint64 *out)
{
  gint64 v[PRISM_MAX_DIMS];

  for (guint d = 0; d < ndims; d++)
    if (!prism_dim_eval (dims[d], values, n_values, &v[d]) || v[d] <= 0)
      return FALSE;
  prism_pad_shape (ndims, v, out);
  return TRUE;
}

gboolean
prism_kernel_plan_in_loop (const PrismKernelPlan *kp, const PrismOp *op)
{
  return prism_op_kind_is_accum (op->kind) ||
         !prism_graph_tensor (kp->body, op->outputs[0])->after_accum;
}

static int
add_item (PrismKernelPlan *kp, gint64 elems, PrismDtype storage, gboolean ring, int start, int end)
{
  PrismSmemItem it = { elems, storage, ring, start, end, { 0, 0 } };

  g_array_append_val (kp->items, it);
  return (int) kp->items->len - 1;
}

static gsize
item_bytes (const PrismKernelPlan *kp, const PrismSmemItem *it, int layout)
{
  return (gsize) it->elems * (it->ring ? kp->stages : 1) * prism_kernel_plan_elem_bytes (it->storage, layout);
}

/* First-fit packing by lifetime, for one layout. */
static gsize
pack_items (PrismKernelPlan *kp, int layout)
{
  GArray *items = kp->items;
  gsize total = 0;

  for (guint i = 0; i < items->len; i++)
    {
      PrismSmemItem *it = &g_array_index (items, PrismSmemItem, i);
      gsize bytes = item_bytes (kp, it, layout);
      gsize off = 0;
      gboolean moved = TRUE;

      while (moved)
        {
          moved = FALSE;
          for (guint j = 0; j < i; j++)
            {
              const PrismSmemItem *o = &g_array_index (items, PrismSmemItem, j);
              gsize obytes = item_bytes (kp, o, layout);

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

static void
pack (PrismKernelPlan *kp)
{
  for (int l = 0; l < PRISM_N_LAYOUTS; l++)
    kp->smem[l] = pack_items (kp, l);
}

/* ------------------------------------------------------------------------ */
/* Matmul paths */

static int
mma_kind (PrismDtype da, PrismDtype db, gint64 m, gint64 n, gint64 k)
{
  if (da != db || !is_half (da))
    return PRISM_KMMA_SCALAR;
  if (m % 16 == 0 && n % 16 == 0 && k % 16 == 0)
    return PRISM_KMMA_16x16x16;
  if (m % 8 == 0 && n % 32 == 0 && k % 16 == 0)
    return PRISM_KMMA_8x32x16;
  return PRISM_KMMA_SCALAR;
}

static gint64
mma_fragments (const PrismOpPlan *p)
{
  gint64 fm = p->mma == PRISM_KMMA_8x32x16 ? 8 : 16, fn = p->mma == PRISM_KMMA_8x32x16 ? 32 : 16;

  return p->batch * (p->m / fm) * (p->n / fn);
}

/* Warps that share a fragment, each over a slice of K: enough for every
 * warp to work when the tile has fewer fragments than the block has warps,
 * and a divisor of K's 16-deep steps. */
static guint
pick_ksplit (const PrismOpPlan *p, guint warps)
{
  gint64 tiles = mma_fragments (p), steps = p->k / 16;
  guint want;

  if (p->mma == PRISM_KMMA_SCALAR || tiles >= warps)
    return 1;
  want = (guint) (warps / tiles);
  while (want > 1 && steps % want != 0)
    want--;
  return MAX (want, 1);
}

/* Fragments (with their K slices) one warp keeps. */
static gint64
frags_per_warp (const PrismOpPlan *p, guint warps)
{
  return (mma_fragments (p) * p->ksplit + warps - 1) / warps;
}

static void
plan_matmuls (PrismKernelPlan *kp)
{
  for (guint i = 0; i < kp->n_ops; i++)
    {
      const PrismOp *op = prism_graph_op (kp->body, i);
      PrismOpPlan *p = &kp->ops[i];
      const PrismTensorPlan *a, *b, *c;

      if (!p->live || op->kind != PRISM_OP_MATMUL)
        continue;
      a = &kp->tensors[op->inputs[0]];
      b = &kp->tensors[op->inputs[1]];
      c = &kp->tensors[op->outputs[0]];
      p->batch = c->shape[0] * c->shape[1];
      p->m = a->shape[2];
      p->k = a->shape[3];
      p->n = b->shape[3];
      p->mma = mma_kind (prism_graph_tensor (kp->body, op->inputs[0])->dtype,
                         prism_graph_tensor (kp->body, op->inputs[1])->dtype, p->m, p->n, p->k);
      p->ksplit = pick_ksplit (p, kp->warps);
    }
}

/* ------------------------------------------------------------------------ */
/* Liveness, storage, fusion, schedule */

static void
plan_liveness (PrismKernelPlan *kp)
{
  for (int i = (int) kp->n_ops - 1; i >= 0; i--)
    {
      const PrismOp *op = prism_graph_op (kp->body, i);
      gboolean live = op->kind == PRISM_OP_OUTPUT;

      for (guint o = 0; o < op->n_outputs; o++)
        live = live || kp->tensors[op->outputs[o]].live;
      kp->ops[i].live = live;
      kp->ops[i].partner = -1;
      kp->ops[i].shadow[0] = kp->ops[i].shadow[1] = -1;
      kp->ops[i].ksplit = 1;
      if (live)
        for (guint k = 0; k < op->n_inputs; k++)
          kp->tensors[op->inputs[k]].live = TRUE;
    }
}

static void
plan_storage (PrismKernelPlan *kp)
{
  for (guint t = 0; t < kp->n_tensors; t++)
    {
      const PrismTensor *tensor = prism_graph_tensor (kp->body, t);
      const PrismOp *producer = prism_graph_op (kp->body, tensor->producer);
      PrismTensorPlan *tp = &kp->tensors[t];
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
          const PrismOp *op = prism_graph_op (kp->body, i);
          if (!kp->ops[i].live)
            continue;
          for (guint k = 0; k < op->n_inputs; k++)
            if (op->inputs[k] == t)
              {
                any = TRUE;
                if (op->kind != PRISM_OP_MATMUL || kp->ops[i].mma == PRISM_KMMA_SCALAR)
                  only_mma = FALSE;
              }
        }
      if (any && only_mma)
        tp->storage = tensor->dtype;
    }
}

/* Whether op @i reads its operand @k through the tile's pitch: tensor-core
 * matmuls (ldmatrix) and row reductions along the last dim. */
static gboolean
reads_pitched (const PrismKernelPlan *kp, guint i, guint k)
{
  const PrismOp *op = prism_graph_op (kp->body, i);
  int last = (int) prism_graph_tensor (kp->body, op->inputs[0])->ndims - 1;

  switch (op->kind)
    {
    case PRISM_OP_MATMUL:
      return kp->ops[i].mma != PRISM_KMMA_SCALAR;
    case PRISM_OP_ACCUM_SUM:
    case PRISM_OP_ACCUM_MEAN:
    case PRISM_OP_ACCUM_RMS:
      return k == 0;
    case PRISM_OP_SUM:
      return k == 0 && op->attrs.dim == last;
    case PRISM_OP_MAX:
    case PRISM_OP_MEAN:
    case PRISM_OP_TRANSPOSE:
      return k == 0;
    default:
      return FALSE;
    }
}

/* Half-precision tiles loaded from global memory that a tensor-core matmul
 * reads get their rows padded by 16 bytes when the row is an even number of
 * 16-byte chunks: otherwise the eight rows one ldmatrix reads start in at
 * most four distinct bank groups and conflict.  Only when every reader goes
 * through the pitch (the matmuls, row reductions). */
static void
plan_pitches (PrismKernelPlan *kp)
{
  for (guint t = 0; t < kp->n_tensors; t++)
    {
      const PrismTensor *tensor = prism_graph_tensor (kp->body, t);
      PrismTensorPlan *tp = &kp->tensors[t];
      gboolean all_pitched = TRUE, any_mma = FALSE;
      gint64 row_bytes = tp->shape[3] * 2;

      tp->pitch = tp->shape[3];
      if (!tp->live || prism_graph_op (kp->body, tensor->producer)->kind != PRISM_OP_INPUT ||
          !is_half (tensor->dtype) || tp->shape[0] * tp->shape[1] * tp->shape[2] < 2 ||
          row_bytes % 16 != 0 || (row_bytes / 16) % 2 != 0)
        continue;
      for (guint i = 0; i < kp->n_ops && all_pitched; i++)
        {
          const PrismOp *op = prism_graph_op (kp->body, i);
          if (!kp->ops[i].live)
            continue;
          for (guint k = 0; k < op->n_inputs; k++)
            if (op->inputs[k] == t)
              {
                all_pitched = all_pitched && reads_pitched (kp, i, k);
                any_mma = any_mma || (op->kind == PRISM_OP_MATMUL && kp->ops[i].mma != PRISM_KMMA_SCALAR);
              }
        }
      if (any_mma && all_pitched)
        tp->pitch = tp->shape[3] + 8;
    }
}

/* A matmul whose only use is an accum adds into it directly: in registers
 * when its fragments fit, else into the accumulator's tile. */
static void
plan_fusion (PrismKernelPlan *kp)
{
  for (guint i = 0; i < kp->n_ops; i++)
    {
      const PrismOp *op = prism_graph_op (kp->body, i);
      PrismOpPlan *p = &kp->ops[i];
      guint out, n_uses = 0;
      int user = -1;

      if (!p->live || op->kind != PRISM_OP_MATMUL || !prism_kernel_plan_in_loop (kp, op))
        continue;
      out = op->outputs[0];
      for (guint j = i + 1; j < kp->n_ops; j++)
        {
          const PrismOp *u = prism_graph_op (kp->body, j);
          if (!kp->ops[j].live)
            continue;
          for (guint k = 0; k < u->n_inputs; k++)
            if (u->inputs[k] == out)
              {
                n_uses++;
                user = (int) j;
              }
        }
      if (n_uses != 1 || prism_graph_op (kp->body, user)->kind != PRISM_OP_ACCUM)
        continue;
      p->in_registers = p->mma != PRISM_KMMA_SCALAR && frags_per_warp (p, kp->warps) <= MAX_FUSED_FRAGS_PER_WARP;
      /* Without registers the product goes into the accumulator's tile one
       * fragment at a time: no K split there. */
      if (!p->in_registers)
        p->ksplit = 1;
      kp->ops[user].in_registers = p->in_registers;
      p->fused = kp->ops[user].fused = TRUE;
      p->partner = user;
      kp->ops[user].partner = (int) i;
    }
}

static void
plan_schedule (PrismKernelPlan *kp)
{
  int pos = PRISM_POS_LOOP_LOAD + 1;

  for (guint i = 0; i < kp->n_ops; i++)
    {
      const PrismOp *op = prism_graph_op (kp->body, i);
      if (kp->ops[i].live && op->kind != PRISM_OP_INPUT && op->kind != PRISM_OP_OUTPUT &&
          prism_kernel_plan_in_loop (kp, op))
        kp->ops[i].pos = pos++;
    }
  kp->loop_end = pos - 1;
  kp->epi_start = pos++;
  for (guint i = 0; i < kp->n_ops; i++)
    {
      const PrismOp *op = prism_graph_op (kp->body, i);
      if (kp->ops[i].live && op->kind != PRISM_OP_INPUT && op->kind != PRISM_OP_OUTPUT &&
          !prism_kernel_plan_in_loop (kp, op))
        kp->ops[i].pos = pos++;
    }
  for (guint i = 0; i < kp->n_ops; i++)
    if (kp->ops[i].live && prism_graph_op (kp->body, i)->kind == PRISM_OP_OUTPUT)
      kp->ops[i].pos = pos++;
  kp->end = pos;

  for (guint i = 0; i < kp->n_ops; i++)
    {
      const PrismOp *op = prism_graph_op (kp->body, i);
      if (!kp->ops[i].live)
        continue;
      for (guint k = 0; k < op->n_inputs; k++)
        kp->tensors[op->inputs[k]].last = MAX (kp->tensors[op->inputs[k]].last, kp->ops[i].pos);
    }
}

/* ------------------------------------------------------------------------ */
/* Shared memory */

static void
plan_input_item (PrismKernelPlan *kp, guint i, gboolean pipeline)
{
  const PrismOp *op = prism_graph_op (kp->body, i);
  PrismOpPlan *p = &kp->ops[i];
  PrismTensorPlan *tp = &kp->tensors[op->outputs[0]];
  const PrismTensor *tensor = prism_graph_tensor (kp->body, op->outputs[0]);
  gint64 n = prism_tensor_plan_storage (tp);
  gsize chunk, bytes = (gsize) numel4 (tp->shape) * prism_dtype_size (tensor->dtype);

  p->vec = prism_kernel_plan_pick_vec (tensor->dtype, tp->shape[3], p->data[3]);
  chunk = p->vec * prism_dtype_size (tensor->dtype);
  tp->invariant = op->attrs.fmap < 0 || kp->forloop == 1;
  if (tp->invariant)
    {
      tp->item = add_item (kp, n, tp->storage, FALSE, PRISM_POS_PROLOGUE, kp->loop_end);
      kp->invariant_bytes += bytes;
    }
  else if (pipeline && (chunk == 4 || chunk == 8 || chunk == 16))
    {
      /* cp.async moves 4, 8 or 16 bytes; the ring lives the whole kernel. */
      tp->item = add_item (kp, prism_tensor_plan_ring_stride (tp), tp->storage, TRUE, PRISM_POS_PROLOGUE, kp->end);
      tp->ring = TRUE;
      kp->pipelined = TRUE;
      kp->stage_bytes += bytes;
    }
  else
    {
      tp->item = add_item (kp, n, tp->storage, FALSE, PRISM_POS_LOOP_LOAD, MAX (tp->last, PRISM_POS_LOOP_LOAD));
      kp->sync_bytes += bytes;
    }
}

static void
plan_accum_item (PrismKernelPlan *kp, guint i)
{
  const PrismOp *op = prism_graph_op (kp->body, i);
  PrismOpPlan *p = &kp->ops[i];
  PrismTensorPlan *tp = &kp->tensors[op->outputs[0]];
  gint64 n = numel4 (tp->shape);

  if (p->fused && p->in_registers)
    tp->item = add_item (kp, n, tp->storage, FALSE, kp->epi_start, tp->last);
  else if (op->kind == PRISM_OP_ACCUM && kp->forloop == 1 && !p->fused)
    {
      /* One iteration: the accumulator is its input under a new name (same
       * tile, same storage), nothing to copy. */
      PrismTensorPlan *src = &kp->tensors[op->inputs[0]];
      if (src->item >= 0 && !src->ring)
        {
          PrismSmemItem *it = &g_array_index (kp->items, PrismSmemItem, src->item);
          tp->storage = src->storage;
          tp->item = src->item;
          it->end = MAX (it->end, tp->last);
        }
      else
        tp->item = add_item (kp, n, tp->storage, FALSE, p->pos, tp->last);
    }
  else
    tp->item = add_item (kp, n, tp->storage, FALSE, PRISM_POS_PROLOGUE, tp->last);
}

/* Elementwise ops write over an operand of the same shape and storage that
 * dies here (each element is read before it is written, by the same
 * thread); loop-invariant input tiles are needed again by the next
 * iteration and are never overwritten inside the loop. */
static void
plan_reuse (PrismKernelPlan *kp, guint i)
{
  const PrismOp *op = prism_graph_op (kp->body, i);
  PrismOpPlan *p = &kp->ops[i];
  PrismTensorPlan *tp = &kp->tensors[op->outputs[0]];

  if (!prism_op_kind_is_unary (op->kind) && !prism_op_kind_is_binary (op->kind))
    return;
  for (guint k = 0; k < op->n_inputs && tp->item < 0; k++)
    {
      PrismTensorPlan *src = &kp->tensors[op->inputs[k]];
      const PrismOp *sp = prism_graph_op (kp->body, prism_graph_tensor (kp->body, op->inputs[k])->producer);
      PrismSmemItem *it;

      if (src->item < 0 || src->ring || src->storage != tp->storage ||
          memcmp (src->shape, tp->shape, sizeof tp->shape) != 0)
        continue;
      it = &g_array_index (kp->items, PrismSmemItem, src->item);
      if (it->end != p->pos ||
          (sp->kind == PRISM_OP_INPUT && prism_kernel_plan_in_loop (kp, op) && kp->forloop > 1))
        continue;
      tp->item = src->item;
      it->end = MAX (it->end, MAX (tp->last, p->pos));
    }
}

static void
plan_items (PrismKernelPlan *kp, gboolean pipeline)
{
  g_array_set_size (kp->items, 0);
  kp->pipelined = FALSE;
  kp->stage_bytes = kp->sync_bytes = kp->invariant_bytes = 0;
  for (guint t = 0; t < kp->n_tensors; t++)
    {
      kp->tensors[t].item = -1;
      kp->tensors[t].ring = FALSE;
    }
  for (guint i = 0; i < kp->n_ops; i++)
    {
      kp->ops[i].shadow[0] = kp->ops[i].shadow[1] = -1;
    }

  for (guint i = 0; i < kp->n_ops; i++)
    {
      const PrismOp *op = prism_graph_op (kp->body, i);
      PrismOpPlan *p = &kp->ops[i];
      PrismTensorPlan *tp;

      if (!p->live || op->kind == PRISM_OP_OUTPUT)
        continue;
      if (op->kind == PRISM_OP_INPUT)
        {
          plan_input_item (kp, i, pipeline);
          continue;
        }
      tp = &kp->tensors[op->outputs[0]];
      if (op->kind == PRISM_OP_MATMUL)
        for (guint k = 0; k < 2; k++)
          if (p->mma != PRISM_KMMA_SCALAR &&
              kp->tensors[op->inputs[k]].storage != prism_graph_tensor (kp->body, op->inputs[k])->dtype)
            p->shadow[k] = add_item (kp, numel4 (kp->tensors[op->inputs[k]].shape),
                                     prism_graph_tensor (kp->body, op->inputs[k])->dtype, FALSE, p->pos, p->pos);
      if (op->kind == PRISM_OP_MATMUL && p->fused)
        continue;   /* in registers, or added into the accumulator's tile */
      if (prism_op_kind_is_accum (op->kind))
        {
          plan_accum_item (kp, i);
          /* An online accumulator's copy of the max it last rescaled to. */
          if (prism_op_kind_is_online (op->kind))
            p->shadow[0] = add_item (kp, numel4 (kp->tensors[op->inputs[1]].shape), PRISM_DTYPE_F32, FALSE,
                                     PRISM_POS_PROLOGUE, kp->end);
          continue;
        }
      plan_reuse (kp, i);
      if (tp->item < 0)
        tp->item = add_item (kp, numel4 (tp->shape), tp->storage, FALSE, p->pos, MAX (tp->last, p->pos));
    }
}

/* ------------------------------------------------------------------------ */
/* Occupancy and the ring depth */

static guint
estimate_registers (const PrismKernelPlan *kp)
{
  guint regs = 32;
  gboolean mma = FALSE;

  for (guint i = 0; i < kp->n_ops; i++)
    {
      const PrismOpPlan *p = &kp->ops[i];
      if (!p->live || prism_graph_op (kp->body, i)->kind != PRISM_OP_MATMUL || p->mma == PRISM_KMMA_SCALAR)
        continue;
      mma = TRUE;
      /* 8 f32 accumulator registers per fragment a warp holds. */
      regs += 8 * (guint) (p->in_registers ? frags_per_warp (p, kp->warps) : 1);
    }
  return MIN (regs + (mma ? 8 : 0), 255);
}

/* Blocks one SM holds by its threads and shared memory. */
static guint
occupancy_without_registers (const PrismKernelPlan *kp, gsize smem)
{
  const PrismGpuTarget *t = kp->target;
  guint by_threads = t->max_threads_per_sm / MAX (kp->threads, 1);
  guint by_smem = (guint) ((gsize) t->smem_per_sm_kb * 1024 / (smem + SMEM_RESERVED_PER_BLOCK + STATIC_SMEM_RESERVE));

  return MAX (1, MIN (MIN (t->max_blocks_per_sm, by_threads), by_smem));
}

static guint
occupancy (const PrismKernelPlan *kp, gsize smem)
{
  guint by_regs = prism_launch_blocks_by_registers (kp->registers, kp->warps, kp->target->registers_per_sm);

  return MAX (1, MIN (occupancy_without_registers (kp, smem), by_regs));
}

/* Bytes one block keeps in flight: the ring's stages ahead, and what the
 * synchronous loads of one tile issue before their first store (a batch
 * per thread, not the whole tile). */
static gsize
inflight_per_block (const PrismKernelPlan *kp)
{
  gsize batch = (gsize) kp->threads * SYNC_LOAD_BATCH * 16;
  gsize sync = MIN (kp->sync_bytes + (kp->pipelined ? 0 : kp->stage_bytes), batch);
  gsize ring = kp->pipelined ? (kp->stages - 1) * kp->stage_bytes : 0;

  return MAX (ring + sync, MIN (kp->invariant_bytes, batch));
}

static void
update_residency (PrismKernelPlan *kp)
{
  gint64 per_sm = (kp->blocks + kp->target->sm_count - 1) / kp->target->sm_count;

  kp->occupancy = occupancy (kp, kp->smem[PRISM_LAYOUT_GPU]);
  kp->resident = (guint) MAX (1, MIN ((gint64) kp->occupancy, per_sm));
}

/* Shared memory a ring deeper than two stages may fill, given the plan at
 * two stages: the SM's (the target's per-block maximum) when one block is
 * resident per SM anyway — a deeper ring then costs no residency —, else
 * RING_SMEM_BUDGET; never more than the caller's limit.  The cost model and
 * the emitter both plan at the target's maximum, so what is ranked is what
 * is generated; the size tuner's 96 KiB sees at most that much. */
static gsize
ring_smem_budget (const PrismKernelPlan *kp)
{
  gsize sm = (gsize) kp->target->smem_per_block_kb * 1024;

  return MIN (kp->smem_limit, kp->resident == 1 ? MAX (sm, (gsize) RING_SMEM_BUDGET) : RING_SMEM_BUDGET);
}

/* Picks the ring depth: the shallowest that keeps the goal in flight per
 * SM, else the one with the most in flight that fits shared memory. */
static gboolean
choose_stages (PrismKernelPlan *kp, guint max_stages)
{
  guint best = 0, smax = (guint) MIN ((gint64) max_stages, kp->forloop + 1);
  gsize best_inflight = 0, budget = RING_SMEM_BUDGET;
  gboolean hit_limit = FALSE;

  for (guint s = 2; s <= MAX (smax, 2); s++)
    {
      gsize inflight;

      kp->stages = s;
      pack (kp);
      if (kp->smem[PRISM_LAYOUT_GPU] + STATIC_SMEM_RESERVE > (s == 2 ? kp->smem_limit : budget))
        {
          hit_limit = TRUE;
          break;
        }
      update_residency (kp);
      if (s == 2)
        budget = ring_smem_budget (kp);
      inflight = kp->resident * inflight_per_block (kp);
      if (inflight > best_inflight)
        {
          best = s;
          best_inflight = inflight;
        }
      if (inflight >= PRISM_PIPELINE_GOAL_BYTES)
        break;
    }
  if (best == 0)
    return FALSE;
  kp->stages = best;
  kp->smem_limited = hit_limit && best_inflight < PRISM_PIPELINE_GOAL_BYTES;
  pack (kp);
  update_residency (kp);
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* Outputs summed over blocks */

/* The combine kernel's shape (kernels/prism-split.cuh combine_partials):
 * blocks of CT threads, W partial vectors wide and R = CT / W rows deep,
 * each row adding a run of the splits.  W is the widest (from 256 down to
 * 128 contiguous bytes per split, whole sectors) that still gives every SM
 * a block; R the rows the fewest splits fill, at most 256 / W and at least
 * one warp's worth. */
static void
plan_combine (PrismKernelPlan *kp)
{
  guint w_min = 8, width, rows;
  gint64 min_splits = G_MAXINT64, blocks = 0;

  kp->combine_threads = kp->combine_width = 0;
  kp->combine_blocks = 0;
  for (guint i = 0; i < kp->n_ops; i++)
    {
      const PrismOpPlan *p = &kp->ops[i];
      if (prism_graph_op (kp->body, i)->kind != PRISM_OP_OUTPUT || !p->combined)
        continue;
      w_min = MAX (w_min, 32 / p->lv);
      min_splits = MIN (min_splits, p->splits);
    }
  if (min_splits == G_MAXINT64)
    return;
  for (width = 256;; width /= 2)
    {
      blocks = 0;
      for (guint i = 0; i < kp->n_ops; i++)
        {
          PrismOpPlan *p = &kp->ops[i];
          gint64 nvec;
          if (prism_graph_op (kp->body, i)->kind != PRISM_OP_OUTPUT || !p->combined)
            continue;
          nvec = numel4 (kp->tensors[prism_graph_op (kp->body, i)->inputs[0]].shape) / p->lv;
          p->slices = (nvec + width - 1) / width;
          p->combine_first = blocks;
          blocks += p->tiles * p->slices;
        }
      if (width <= w_min || blocks >= kp->target->sm_count)
        break;
    }
  for (rows = 1; rows * 2 * width <= 256 && rows * 2 <= min_splits; rows *= 2)
    ;
  while (rows * width < 32)
    rows *= 2;
  kp->combine_width = width;
  kp->combine_threads = rows * width;
  kp->combine_blocks = blocks;
}

static void
plan_outputs (PrismKernelPlan *kp)
{
  for (guint i = 0; i < kp->n_ops; i++)
    {
      const PrismOp *op = prism_graph_op (kp->body, i);
      PrismOpPlan *p = &kp->ops[i];
      const PrismTensorPlan *tp;

      if (op->kind != PRISM_OP_OUTPUT)
        continue;
      tp = &kp->tensors[op->inputs[0]];
      p->vec = prism_kernel_plan_pick_vec (op->data_dtype, tp->shape[3], p->data[3]);
      p->splits = p->tiles = 1;
      for (guint a = 0; a < kp->body->grid_ndims; a++)
        {
          if (op->attrs.omap[a] < 0)
            p->splits *= kp->grid[a];
          else
            p->tiles *= kp->grid[a];
        }
      p->summed = p->splits > 1;
      if (!p->summed)
        continue;
      p->lv = p->vec % 4 == 0 ? 4 : p->vec % 2 == 0 ? 2 : 1;
      p->combined = p->splits * numel4 (tp->shape) * 4 > PRISM_COMBINE_MIN_BYTES;
    }
  plan_combine (kp);
}

/* ------------------------------------------------------------------------ */

static const PrismGpuTarget *
target_for_sm (guint sm)
{
  guint n = 0;
  const PrismGpuTarget * const *list = prism_gpu_target_list (&n);

  for (guint i = 0; i < n; i++)
    if (list[i]->compute_capability == sm)
      return list[i];
  return prism_gpu_target_default ();
}

static gboolean
evaluate (PrismKernelPlan *kp, const gint64 *values, guint n_values, GError **error)
{
  const PrismGraph *body = kp->body;

  kp->blocks = 1;
  for (guint p = 0; p < PRISM_MAX_GRID_DIMS; p++)
    {
      kp->grid[p] = 1;
      if (p < body->grid_ndims &&
          (!prism_dim_eval (body->grid[p], values, n_values, &kp->grid[p]) || kp->grid[p] <= 0))
        goto symbolic;
      kp->blocks *= kp->grid[p];
    }
  if (!prism_dim_eval (body->forloop, values, n_values, &kp->forloop) || kp->forloop <= 0)
    goto symbolic;
  for (guint t = 0; t < kp->n_tensors; t++)
    {
      const PrismTensor *tensor = prism_graph_tensor (body, t);
      kp->tensors[t].item = -1;
      kp->tensors[t].last = -1;
      if (!eval_shape (tensor->ndims, tensor->dims, values, n_values, kp->tensors[t].shape))
        goto symbolic;
    }
  for (guint i = 0; i < kp->n_ops; i++)
    {
      const PrismOp *op = prism_graph_op (body, i);
      if ((op->kind == PRISM_OP_INPUT || op->kind == PRISM_OP_OUTPUT) &&
          !eval_shape (op->data_ndims, op->data_dims, values, n_values, kp->ops[i].data))
        goto symbolic;
      for (guint a = 0; a < PRISM_MAX_GRID_DIMS; a++)
        if ((op->kind == PRISM_OP_INPUT && op->attrs.imap[a] == PRISM_MAP_UNKNOWN) ||
            (op->kind == PRISM_OP_OUTPUT && op->attrs.omap[a] == PRISM_MAP_UNKNOWN))
          goto symbolic;
      if (op->kind == PRISM_OP_INPUT && op->attrs.fmap == PRISM_MAP_UNKNOWN)
        goto symbolic;
    }
  return TRUE;

symbolic:
  g_set_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED,
               "the kernel's sizes and maps are not concrete under the assignment");
  return FALSE;
}

void
prism_kernel_plan_free (PrismKernelPlan *kp)
{
  if (kp == NULL)
    return;
  g_free (kp->ops);
  g_free (kp->tensors);
  if (kp->items != NULL)
    g_array_unref (kp->items);
  g_free (kp);
}

PrismKernelPlan *
prism_kernel_plan_new (const PrismGraph *body, const gint64 *values, guint n_values,
                       const PrismKernelPlanOptions *options, GError **error)
{
  PrismKernelPlanOptions defaults = { 0, };
  g_autoptr(PrismKernelPlan) kp = g_new0 (PrismKernelPlan, 1);
  gboolean pipeline;

  g_return_val_if_fail (body != NULL && body->level == PRISM_LEVEL_BLOCK, NULL);
  if (options == NULL)
    options = &defaults;
  kp->target = options->target != NULL ? options->target : target_for_sm (options->sm != 0 ? options->sm : 90);
  kp->sm = options->sm != 0 ? options->sm : kp->target->compute_capability;
  kp->smem_limit = options->smem_limit != 0 ? options->smem_limit : (gsize) kp->target->smem_per_block_kb * 1024;
  kp->body = body;
  kp->n_ops = body->ops->len;
  kp->n_tensors = body->tensors->len;
  kp->ops = g_new0 (PrismOpPlan, kp->n_ops);
  kp->tensors = g_new0 (PrismTensorPlan, kp->n_tensors);
  kp->items = g_array_new (FALSE, TRUE, sizeof (PrismSmemItem));
  kp->threads = body->block_threads;
  kp->warps = MAX (kp->threads / 32, 1);
  kp->stages = 1;

  if (!evaluate (kp, values, n_values, error))
    return NULL;
  plan_liveness (kp);
  plan_matmuls (kp);
  plan_storage (kp);
  plan_pitches (kp);
  plan_fusion (kp);
  plan_schedule (kp);
  plan_outputs (kp);
  kp->registers = estimate_registers (kp);

  pipeline = !options->no_pipeline && kp->forloop > 1;
  plan_items (kp, pipeline);
  if (kp->pipelined && !choose_stages (kp, options->max_stages ? options->max_stages : PRISM_MAX_STAGES))
    {
      /* Not even two buffers fit: load the loop tiles synchronously. */
      plan_items (kp, FALSE);
      kp->smem_limited = TRUE;
    }
  if (!kp->pipelined)
    {
      kp->stages = 1;
      pack (kp);
      update_residency (kp);
    }
  if (kp->smem[PRISM_LAYOUT_GPU] + STATIC_SMEM_RESERVE > kp->smem_limit)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_LIMIT,
                   "needs %" G_GSIZE_FORMAT " bytes of shared memory per block (and 1024 for the runtime headers); "
                   "sm_%u allows %" G_GSIZE_FORMAT,
                   kp->smem[PRISM_LAYOUT_GPU], kp->sm, kp->smem_limit);
      return NULL;
    }
  return g_steal_pointer (&kp);
}

/* ------------------------------------------------------------------------ */
/* The launch's account */

static double
unary_weight (PrismOpKind kind)
{
  switch ((int) kind)
    {
    case PRISM_OP_EXP:
    case PRISM_OP_SQRT:
    case PRISM_OP_SILU:
    case PRISM_OP_GELU:
      return 4;
    case PRISM_OP_POW:
      return 8;
    default:
      return 1;
    }
}

/* FLOPs of one execution of block op @i, by unit. */
static void
op_work (const PrismKernelPlan *kp, guint i, double *tensor, double *fma, double *other)
{
  const PrismOp *op = prism_graph_op (kp->body, i);
  const PrismOpPlan *p = &kp->ops[i];
  double n_out, n_in;

  *tensor = *fma = *other = 0;
  if (op->kind == PRISM_OP_INPUT || op->kind == PRISM_OP_OUTPUT)
    return;
  n_out = (double) numel4 (kp->tensors[op->outputs[0]].shape);
  n_in = (double) numel4 (kp->tensors[op->inputs[0]].shape);
  if (op->kind == PRISM_OP_MATMUL)
    {
      double f = 2.0 * (double) p->batch * (double) p->m * (double) p->n * (double) p->k;
      if (p->mma == PRISM_KMMA_SCALAR)
        *fma = f;
      else
        *tensor = f;
    }
  else if (prism_op_kind_is_unary (op->kind) || prism_op_kind_is_binary (op->kind))
    *other = n_out * unary_weight (op->kind);
  else if (op->kind == PRISM_OP_RMS_NORM)
    {
      double len = 1.0;
      for (guint d = PRISM_MAX_DIMS - op->attrs.norm_dims; d < PRISM_MAX_DIMS; d++)
        len *= (double) kp->tensors[op->inputs[0]].shape[d];
      /* square, sum and divide per element; one eps added per row */
      *other = 3.0 * n_in + (op->attrs.eps != 0.0 ? n_in / MAX (len, 1.0) : 0.0);
    }
  else
    *other = n_in;
}

/* ------------------------------------------------------------------------ */
/* What the templates do: the busiest thread's chain, the sectors, the
 * narrowest phase (docs/codegen.md, "The static report") */

#define WARP 32
#define SECTOR 32
/* Steps of a warp shuffle reduction over 32 lanes. */
#define WARP_REDUCE_STEPS 5

static gint64
gcd64 (gint64 a, gint64 b)
{
  while (b != 0)
    {
      gint64 t = a % b;
      a = b;
      b = t;
    }
  return a;
}

static gint64
ceil_div (gint64 a, gint64 b)
{
  return (a + b - 1) / b;
}

/* Useful share of the 32-byte sectors that contiguous runs of @run bytes
 * fetch when they start at multiples of @step bytes (from 32-byte aligned
 * bases), averaged over the starts modulo a sector. */
double
prism_kernel_plan_sector_efficiency (gint64 run, gint64 step)
{
  gint64 g = gcd64 (MAX (step, 1), SECTOR), sectors = 0, starts = 0;

  if (run <= 0)
    return 1.0;
  for (gint64 o = 0; o < SECTOR; o += g, starts++)
    sectors += ceil_div (o + run, SECTOR);
  return (double) run * (double) starts / ((double) SECTOR * (double) sectors);
}

/* The contiguous runs of a tile box in a row-major tensor (both padded):
 * the tile's rows, merged while the tile spans whole rows, planes, …; and
 * the granule their starts are multiples of: along the run's outermost dim
 * d the box starts at a multiple of tile[d] (the block's origin), the
 * runs of one box are a stride of dim d − 1 apart. */
static void
box_runs (const gint64 *tile, const gint64 *data, gsize esize, gint64 *run, gint64 *step)
{
  gint64 r = tile[3], inner = 1;
  int d = 3;

  while (d > 0 && tile[d] == data[d])
    {
      r *= tile[d - 1];
      inner *= data[d];
      d--;
    }
  *run = r * (gint64) esize;
  *step = (gint64) esize * inner * gcd64 (tile[d], data[d]);
}

static double
box_efficiency (const gint64 *tile, const gint64 *data, gsize esize)
{
  gint64 run, step;

  box_runs (tile, data, esize, &run, &step);
  return prism_kernel_plan_sector_efficiency (run, step);
}

/* Warps sharing one row of a row reduction (kernels/prism-reduce.cuh RowSplit). */
static gint64
row_split (gint64 rows, guint warps)
{
  return rows >= warps ? 1 : MIN ((gint64) warps / rows, 32);
}

/* for_each_row_reduce over @rows rows of @len: the lane's n elements
 * into four accumulators (⌊n / 4⌋ steps each, the remainder on the first,
 * two joins), the shuffle, and the join of the segments when rows are
 * split. */
static gint64
row_sum_chain (gint64 rows, gint64 len, guint warps)
{
  gint64 wpr = row_split (rows, warps), n = ceil_div (len, WARP * wpr);

  return n / 4 + n % 4 + 2 + WARP_REDUCE_STEPS + (wpr > 1 ? wpr : 0);
}

/* reduce_across: @outs outputs, each over @n elements, one a thread or one
 * a group of G lanes (kernels/prism-reduce.cuh ReduceGroup) when fewer than
 * the threads. */
static gint64
across_chain (gint64 outs, gint64 n, guint threads)
{
  gint64 fit = outs < threads ? threads / outs : 1, g = 1, lg = 0;

  while (g * 2 <= MIN (fit, 32))
    {
      g *= 2;
      lg++;
    }
  return g == 1 ? n : ceil_div (n, g) + lg;
}

/* Work items of CUDA-core matmul op @i (kernels/prism-mma.cuh
 * scalar_matmul): runs of V outputs of a row, V = ScalarVec (16 bytes of B,
 * or 8, or 1 element). */
static gint64
scalar_items (const PrismKernelPlan *kp, guint i)
{
  const PrismOpPlan *p = &kp->ops[i];
  PrismDtype db = prism_graph_tensor (kp->body, prism_graph_op (kp->body, i)->inputs[1])->dtype;
  gint64 full = 16 / (gint64) prism_dtype_size (db);
  gint64 v = p->n % full == 0 ? full : p->n % (full / 2) == 0 ? full / 2 : 1;

  return p->batch * p->m * (p->n / v);
}

/* Dependent steps of the busiest thread in one execution of op @i. */
static gint64
op_chain (const PrismKernelPlan *kp, guint i)
{
  const PrismOp *op = prism_graph_op (kp->body, i);
  const PrismOpPlan *p = &kp->ops[i];
  const gint64 *in = op->n_inputs > 0 ? kp->tensors[op->inputs[0]].shape : NULL;
  int dim = op->n_inputs > 0 ? op->attrs.dim + (PRISM_MAX_DIMS - (int) prism_graph_tensor (kp->body, op->inputs[0])->ndims) : 0;

  switch ((int) op->kind)
    {
    case PRISM_OP_MATMUL:
      if (p->mma == PRISM_KMMA_SCALAR)
        /* scalar_matmul: an item of V outputs a thread (K steps, the V
         * sums independent), or shared by a group of lanes. */
        return across_chain (scalar_items (kp, i), p->k, kp->threads);
      /* One fragment's K steps (a slice of them when K is split), then the
       * slices added. */
      return p->k / 16 / MAX (p->ksplit, 1) + (p->ksplit > 1 ? p->ksplit : 0);
    case PRISM_OP_SUM:
    case PRISM_OP_MAX:
    case PRISM_OP_MEAN:
      if (dim == 3)
        return row_sum_chain (numel4 (in) / in[3], in[3], kp->warps);
      return across_chain (numel4 (in) / in[dim], in[dim], kp->threads);
    case PRISM_OP_ACCUM_SUM:
    case PRISM_OP_ACCUM_MEAN:
    case PRISM_OP_ACCUM_RMS:
    case PRISM_OP_ACCUM_SUM_RESCALE:
    case PRISM_OP_ACCUM_SUM_ONLINE:
      return row_sum_chain (numel4 (in) / in[3], in[3], kp->warps);
    case PRISM_OP_RMS_NORM:
      {
        gint64 len = 1;
        for (guint d = PRISM_MAX_DIMS - op->attrs.norm_dims; d < PRISM_MAX_DIMS; d++)
          len *= in[d];
        return row_sum_chain (numel4 (in) / len, len, kp->warps) + 1;
      }
    case PRISM_OP_ACCUM_SUM_TODIMX:
      return in[3] / MAX (op->attrs.dimx, 1);
    default:
      return 1;
    }
}

/* The busiest thread's chain, the sector efficiency of the global
 * accesses and the narrowest phase of the kernel proper. */
static void
describe_templates (const PrismKernelPlan *kp, PrismLaunch *out)
{
  double useful = 0, fetched = 0;

  out->longest_thread_chain = 1;
  out->fewest_active_blocks = kp->blocks;
  out->narrow_phase_bytes = 0;
  for (guint i = 0; i < kp->n_ops; i++)
    {
      const PrismOp *op = prism_graph_op (kp->body, i);
      const PrismOpPlan *p = &kp->ops[i];
      const PrismTensorPlan *tp;
      gsize es;
      double bytes, partial;

      if (!p->live)
        continue;
      if (op->kind != PRISM_OP_INPUT && op->kind != PRISM_OP_OUTPUT)
        {
          out->longest_thread_chain = MAX (out->longest_thread_chain, op_chain (kp, i));
          continue;
        }
      es = prism_dtype_size (op->data_dtype);
      if (op->kind == PRISM_OP_INPUT)
        {
          tp = &kp->tensors[op->outputs[0]];
          bytes = (double) numel4 (tp->shape) * es * (double) kp->blocks * (tp->invariant ? 1.0 : (double) kp->forloop);
          useful += bytes;
          fetched += bytes / box_efficiency (tp->shape, p->data, es);
          continue;
        }
      tp = &kp->tensors[op->inputs[0]];
      bytes = (double) numel4 (tp->shape) * es * (double) kp->blocks;
      if (!p->summed)
        {
          useful += bytes;
          fetched += bytes / box_efficiency (tp->shape, p->data, es);
          continue;
        }
      /* store_partial: each block's f32 tile, dense. */
      partial = (double) numel4 (tp->shape) * 4.0;
      useful += partial * (double) kp->blocks;
      fetched += partial * (double) kp->blocks /
                 prism_kernel_plan_sector_efficiency ((gint64) partial, (gint64) partial);
      if (p->combined)
        continue;
      /* reduce_partials in the last block of each tile: every split's
       * partial read whole, the tile stored once. */
      useful += partial * (double) kp->blocks + bytes / (double) p->splits;
      fetched += partial * (double) kp->blocks /
                 prism_kernel_plan_sector_efficiency ((gint64) partial, (gint64) partial) +
                 bytes / (double) p->splits / box_efficiency (tp->shape, p->data, es);
      out->longest_thread_chain = MAX (out->longest_thread_chain, p->splits);
      out->fewest_active_blocks = MIN (out->fewest_active_blocks, p->tiles);
      out->narrow_phase_bytes += partial * (double) p->splits;
    }
  out->global_sector_efficiency = fetched > 0 ? useful / fetched : 1.0;
}

static void
describe_work (const PrismKernelPlan *kp, PrismLaunch *out)
{
  double l2_bytes = kp->target->l2_mb * 1024 * 1024;
  gboolean seen[PRISM_MAX_OP_INPUTS] = { FALSE, };

  for (guint i = 0; i < kp->n_ops; i++)
    {
      const PrismOp *op = prism_graph_op (kp->body, i);
      const PrismOpPlan *p = &kp->ops[i];
      double tf, ff, of, reps;

      if (!p->live)
        continue;
      if (op->kind == PRISM_OP_INPUT)
        {
          double data = (double) numel4 (p->data) * prism_dtype_size (op->data_dtype);
          double tile = (double) numel4 (kp->tensors[op->outputs[0]].shape) * prism_dtype_size (op->data_dtype);
          double loaded = tile * (double) kp->blocks * (kp->tensors[op->outputs[0]].invariant ? 1.0 : (double) kp->forloop);
          double first = 0;

          if (op->attrs.input_index >= PRISM_MAX_OP_INPUTS || !seen[op->attrs.input_index])
            {
              first = MIN (data, loaded);
              out->dram_bytes += first;
              if (op->attrs.input_index < PRISM_MAX_OP_INPUTS)
                seen[op->attrs.input_index] = TRUE;
            }
          /* Re-reads of replicated tiles hit L2 while the tensor fits. */
          if (data <= L2_RESIDENT_SHARE * l2_bytes)
            out->l2_bytes += loaded - first;
          else
            out->dram_bytes += loaded - first;
          continue;
        }
      if (op->kind == PRISM_OP_OUTPUT)
        {
          double data = (double) numel4 (p->data) * prism_dtype_size (op->data_dtype);
          double partial = (double) numel4 (kp->tensors[op->inputs[0]].shape) * 4.0;

          if (p->combined)
            {
              /* Each block writes its f32 partial; the combine kernel
               * reads them and writes the output. */
              out->l2_bytes += partial * (double) kp->blocks;
              continue;
            }
          out->dram_bytes += data;
          if (p->summed)
            {
              /* Each block writes its f32 partial, the last one reads them all. */
              out->l2_bytes += 2.0 * partial * (double) kp->blocks;
              out->split_outputs++;
            }
          continue;
        }
      op_work (kp, i, &tf, &ff, &of);
      reps = prism_kernel_plan_in_loop (kp, op) ? (double) kp->forloop : 1.0;
      out->tensor_flops += tf * reps * (double) kp->blocks;
      out->fma_flops += ff * reps * (double) kp->blocks;
      out->other_flops += of * reps * (double) kp->blocks;
    }
}

static void
describe_paths (const PrismKernelPlan *kp, PrismLaunch *out)
{
  gint64 elems = 1;

  out->mma = PRISM_MMA_NONE;
  out->work_warps = 0;
  for (guint i = 0; i < kp->n_ops; i++)
    {
      const PrismOp *op = prism_graph_op (kp->body, i);
      const PrismOpPlan *p = &kp->ops[i];
      gint64 w;

      if (!p->live || op->kind == PRISM_OP_INPUT || op->kind == PRISM_OP_OUTPUT)
        continue;
      if (op->kind != PRISM_OP_MATMUL)
        {
          /* Elementwise ops stride over their outputs, reductions over
           * their inputs (rows split over the warps when few). */
          elems = MAX (elems, MAX (numel4 (kp->tensors[op->outputs[0]].shape),
                                   numel4 (kp->tensors[op->inputs[0]].shape)));
          continue;
        }
      if (p->mma == PRISM_KMMA_SCALAR)
        {
          /* kernels/prism-mma.cuh ScalarGroup: threads share an item (V
           * outputs of a row) when the items are fewer than the threads. */
          gint64 outs = scalar_items (kp, i), g = 1;
          while (outs < kp->threads && g < 32 && outs * g * 2 <= kp->threads)
            g *= 2;
          if (out->mma == PRISM_MMA_NONE)
            out->mma = PRISM_MMA_FMA;
          w = (MIN (outs * g, (gint64) kp->threads) + 31) / 32;
        }
      else
        {
          out->mma = PRISM_MMA_WMMA;
          w = mma_fragments (p) * p->ksplit;
        }
      /* The kernel is as busy as its least busy matmul lets it be. */
      w = MIN (w, (gint64) kp->warps);
      out->work_warps = out->work_warps == 0 ? (guint) w : MIN (out->work_warps, (guint) w);
    }
  if (out->mma == PRISM_MMA_NONE)
    out->work_warps = (guint) MIN ((elems + 31) / 32, (gint64) kp->warps);
}

guint
prism_kernel_plan_n_launches (const PrismKernelPlan *kp)
{
  return kp->combine_blocks > 0 ? 2 : 1;
}

/* combine_partials: row r of a block adds ⌈splits / R⌉ splits, column w
 * the R row sums; per split a block reads W consecutive vectors (a slice
 * of the tile's contiguous partial), and it stores the slice's outputs. */
static void
describe_combine_templates (const PrismKernelPlan *kp, PrismLaunch *out)
{
  gint64 rows = kp->combine_threads / kp->combine_width;
  double useful = 0, fetched = 0;

  out->longest_thread_chain = 1;
  out->fewest_active_blocks = kp->combine_blocks;
  for (guint i = 0; i < kp->n_ops; i++)
    {
      const PrismOp *op = prism_graph_op (kp->body, i);
      const PrismOpPlan *p = &kp->ops[i];
      const PrismTensorPlan *tp;
      gint64 partial, slice;
      double reads, writes;
      gsize es;

      if (op->kind != PRISM_OP_OUTPUT || !p->combined)
        continue;
      tp = &kp->tensors[op->inputs[0]];
      es = prism_dtype_size (op->data_dtype);
      partial = numel4 (tp->shape) * 4;
      slice = MIN ((gint64) kp->combine_width * p->lv * 4, partial);
      reads = (double) partial * (double) (p->splits * p->tiles);
      writes = (double) numel4 (tp->shape) * es * (double) p->tiles;
      useful += reads + writes;
      fetched += reads / prism_kernel_plan_sector_efficiency (slice, slice) +
                 writes / box_efficiency (tp->shape, p->data, es);
      out->longest_thread_chain = MAX (out->longest_thread_chain, ceil_div (p->splits, rows) + rows);
    }
  out->global_sector_efficiency = fetched > 0 ? useful / fetched : 1.0;
}

/* The combine kernel: per combined output, its tiles' partials read once
 * (coalesced, from L2) and the output written once. */
static void
describe_combine (const PrismKernelPlan *kp, PrismLaunch *out)
{
  const PrismGpuTarget *t = kp->target;
  gint64 per_sm = (kp->combine_blocks + t->sm_count - 1) / t->sm_count;
  guint by_threads = t->max_threads_per_sm / kp->combine_threads;

  memset (out, 0, sizeof *out);
  out->role = PRISM_LAUNCH_BLOCK_GRAPH;
  out->grid[0] = (guint) kp->combine_blocks;
  out->grid[1] = out->grid[2] = 1;
  out->block_threads = kp->combine_threads;
  out->loop_iterations = 1;
  out->stages = 1;
  out->warps = kp->combine_threads / 32;
  out->work_warps = out->warps;
  out->mma = PRISM_MMA_NONE;
  out->occupancy = out->occupancy_without_registers = MAX (1, MIN (t->max_blocks_per_sm, by_threads));
  out->blocks_per_sm = (guint) MAX (1, MIN ((gint64) out->occupancy, per_sm));
  out->registers = out->registers_estimate = 32;
  out->spill_bytes = -1;
  for (guint i = 0; i < kp->n_ops; i++)
    {
      const PrismOp *op = prism_graph_op (kp->body, i);
      const PrismOpPlan *p = &kp->ops[i];
      double partials;

      if (op->kind != PRISM_OP_OUTPUT || !p->combined)
        continue;
      partials = (double) numel4 (kp->tensors[op->inputs[0]].shape) * 4.0 * (double) (p->splits * p->tiles);
      out->l2_bytes += partials;
      out->dram_bytes += (double) numel4 (p->data) * prism_dtype_size (op->data_dtype);
      out->other_flops += partials / 4.0;
      /* Four loads of LV floats in flight per thread (the split loop is
       * unrolled by four). */
      out->bytes_in_flight_per_block = MAX (out->bytes_in_flight_per_block,
                                            (gsize) kp->combine_threads * 4 * p->lv * 4);
    }
  out->sync_bytes = out->bytes_in_flight_per_block;
  out->bytes_in_flight_per_sm = out->blocks_per_sm * out->bytes_in_flight_per_block;
  describe_combine_templates (kp, out);
}

void
prism_kernel_plan_describe_launch (const PrismKernelPlan *kp, guint index, PrismLaunch *out)
{
  g_return_if_fail (index < prism_kernel_plan_n_launches (kp));
  if (index == 1)
    describe_combine (kp, out);
  else
    prism_kernel_plan_describe (kp, out);
}

void
prism_kernel_plan_describe (const PrismKernelPlan *kp, PrismLaunch *out)
{
  memset (out, 0, sizeof *out);
  out->role = PRISM_LAUNCH_BLOCK_GRAPH;
  for (guint p = 0; p < 3; p++)
    out->grid[p] = (guint) kp->grid[p];
  out->block_threads = kp->threads;
  out->smem_bytes = kp->smem[PRISM_LAYOUT_GPU];
  out->loop_iterations = kp->forloop;
  out->stages = kp->pipelined ? kp->stages : 1;
  out->stage_bytes = kp->pipelined ? kp->stage_bytes : 0;
  out->sync_bytes = kp->sync_bytes + (kp->pipelined ? 0 : kp->stage_bytes);
  out->occupancy = kp->occupancy;
  out->occupancy_without_registers = occupancy_without_registers (kp, kp->smem[PRISM_LAYOUT_GPU]);
  out->blocks_per_sm = kp->resident;
  out->bytes_in_flight_per_block = inflight_per_block (kp);
  out->bytes_in_flight_per_sm = kp->resident * out->bytes_in_flight_per_block;
  out->warps = kp->warps;
  out->registers = out->registers_estimate = kp->registers;
  out->spill_bytes = -1;
  out->smem_limited = kp->smem_limited;
  describe_paths (kp, out);
  describe_work (kp, out);
  describe_templates (kp, out);
}
