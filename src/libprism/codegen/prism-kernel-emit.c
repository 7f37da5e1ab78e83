/* prism-kernel-emit.c — the CUDA text of one planned custom kernel
 *
 * Writes what prism-kernel-plan.c decided: the signature, one typedef per
 * tile shape and one pointer per shared-memory tile, the prologue
 * (accumulators, loop-invariant tiles, the first S − 1 stages of the ring),
 * the loop (the next stage's cp.async, the synchronous loads, the body), and
 * after it the accumulators' finishing, the epilogue and the stores — with
 * the last block to arrive at a summed tile adding the partials.
 *
 * Every size, stride and offset coefficient is a compile-time constant; only
 * the block indices and the loop counter vary at run time.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "prism-buffer.h"
#include "prism-kernel-emit.h"
#include "prism-kernel-plan-private.h"

static const char *const mma_names[] = {
  "prism::MMA_SCALAR", "prism::MMA_16x16x16", "prism::MMA_8x32x16",
};

const char *
prism_cuda_ctype (PrismDtype dtype)
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
    case PRISM_OP_MAXIMUM: return "prism::OpMaximum";
    default: return NULL;
    }
}

/* Row-major element strides of a padded shape. */
static void
row_major_strides (const gint64 *shape, gint64 *strides)
{
  strides[3] = 1;
  for (int i = 2; i >= 0; i--)
    strides[i] = strides[i + 1] * shape[i + 1];
}

/* A shared-memory pointer: "(T *) (smem + PRISM_PICK (gpu, cpu))". */
static void
append_smem_ptr (GString *s, const PrismKernelPlan *kp, int item, PrismDtype storage)
{
  const PrismSmemItem *it = &g_array_index (kp->items, PrismSmemItem, item);

  g_string_append_printf (s, "(%s *) (smem + PRISM_PICK (%" G_GSIZE_FORMAT "u, %" G_GSIZE_FORMAT "u))",
                          prism_cuda_ctype (storage), it->offset[PRISM_LAYOUT_GPU], it->offset[PRISM_LAYOUT_CPU]);
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

static void
append_strides (GString *s, const gint64 *data)
{
  gint64 strides[PRISM_MAX_DIMS];

  row_major_strides (data, strides);
  g_string_append_printf (s, "%" G_GINT64_FORMAT "LL, %" G_GINT64_FORMAT "LL, %" G_GINT64_FORMAT "LL",
                          data[0] > 1 ? strides[0] : 0, data[1] > 1 ? strides[1] : 0,
                          data[2] > 1 ? strides[2] : 0);
}

/* Per grid axis, the element-offset coefficient of the block index for a
 * tile of @tile_shape in a tensor of @data_shape (both padded) mapped by
 * @map; @fmap/@forloop fold the loop partition in (grid outer, loop inner). */
static void
tile_offsets (const PrismKernelPlan *kp, guint ndims, const gint64 *tile, const gint64 *data,
              const int *map, int fmap, gint64 *coef, gint64 *step)
{
  gint64 strides[PRISM_MAX_DIMS];
  guint pad = PRISM_MAX_DIMS - ndims;

  row_major_strides (data, strides);
  coef[0] = coef[1] = coef[2] = 0;
  *step = 0;
  for (guint d = 0; d < ndims; d++)
    {
      gint64 unit = tile[pad + d] * strides[pad + d];
      for (guint p = 0; p < kp->body->grid_ndims; p++)
        if (map[p] == (int) d)
          coef[p] = unit * (fmap == (int) d ? kp->forloop : 1);
      if (fmap == (int) d)
        *step = unit;
    }
}

/* The name of the operand pointer a matmul reads: its shadow copy when it
 * has one. */
static char *
operand_name (const PrismOpPlan *p, guint k, guint tensor)
{
  if (p->shadow[k] >= 0)
    return g_strdup_printf ("sh%u_%u", tensor, k);
  return g_strdup_printf ("t%u", tensor);
}

/* ", S3::pitch, S4::pitch" when an operand's rows are padded, else "". */
static char *
pitch_args (const PrismKernelPlan *kp, guint i)
{
  const PrismOp *op = prism_graph_op (kp->body, i);
  const PrismOpPlan *p = &kp->ops[i];
  const PrismTensorPlan *a = &kp->tensors[op->inputs[0]], *b = &kp->tensors[op->inputs[1]];
  gint64 lda = p->shadow[0] >= 0 ? a->shape[3] : a->pitch;
  gint64 ldb = p->shadow[1] >= 0 ? b->shape[3] : b->pitch;

  if (lda == a->shape[3] && ldb == b->shape[3])
    return g_strdup ("");
  return g_strdup_printf (", %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT, lda, ldb);
}

static void
emit_matmul (GString *s, const char *indent, const PrismKernelPlan *kp, guint i)
{
  g_autofree char *ld = pitch_args (kp, i);
  const PrismOp *op = prism_graph_op (kp->body, i);
  const PrismOpPlan *p = &kp->ops[i];
  guint o = op->outputs[0], a = op->inputs[0], b = op->inputs[1];
  g_autofree char *an = operand_name (p, 0, a);
  g_autofree char *bn = operand_name (p, 1, b);

  for (guint k = 0; k < 2; k++)
    if (p->shadow[k] >= 0)
      {
        guint src = op->inputs[k];
        const PrismTensor *st = prism_graph_tensor (kp->body, src);
        g_string_append_printf (s, "%s%s *const sh%u_%u = ", indent, prism_cuda_ctype (st->dtype), src, k);
        append_smem_ptr (s, kp, p->shadow[k], st->dtype);
        g_string_append_printf (s, ";\n%sprism::convert<NT, S%u> (sh%u_%u, t%u);\n%sprism::sync ();\n",
                                indent, src, src, k, src, indent);
      }
  if (p->fused && p->in_registers)
    g_string_append_printf (s, "%sacc%u.step (%s, %s);\n", indent,
                            prism_graph_op (kp->body, p->partner)->outputs[0], an, bn);
  else if (p->fused)
    g_string_append_printf (s, "%sprism::matmul_acc<NT, %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
                            ", %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", %s%s> (t%u, %s, %s);\n",
                            indent, p->batch, p->m, p->n, p->k, mma_names[p->mma], ld,
                            prism_graph_op (kp->body, p->partner)->outputs[0], an, bn);
  else
    g_string_append_printf (s, "%sprism::matmul<NT, %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
                            ", %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", %s, %u%s> (t%u, %s, %s);\n",
                            indent, p->batch, p->m, p->n, p->k, mma_names[p->mma], p->ksplit, ld, o, an, bn);
}

static void
emit_op (GString *s, const char *indent, const PrismKernelPlan *kp, guint i)
{
  const PrismOp *op = prism_graph_op (kp->body, i);
  const PrismOpPlan *p = &kp->ops[i];
  guint o = op->n_outputs > 0 ? op->outputs[0] : 0;
  guint a = op->n_inputs > 0 ? op->inputs[0] : 0;
  guint b = op->n_inputs > 1 ? op->inputs[1] : 0;
  const PrismTensorPlan *ta = &kp->tensors[a];

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
        emit_matmul (s, indent, kp, i);
        break;
      case PRISM_OP_SUM:
        g_string_append_printf (s, "%sprism::reduce_sum<NT, S%u, %d> (t%u, t%u);\n", indent, a,
                                op->attrs.dim + (PRISM_MAX_DIMS - (int) prism_graph_tensor (kp->body, a)->ndims),
                                o, a);
        break;
      case PRISM_OP_MAX:
      case PRISM_OP_MEAN:
        g_string_append_printf (s, "%sprism::%s<NT, S%u, %d> (t%u, t%u);\n", indent,
                                op->kind == PRISM_OP_MAX ? "reduce_max" : "reduce_mean", a,
                                op->attrs.dim + (PRISM_MAX_DIMS - (int) prism_graph_tensor (kp->body, a)->ndims),
                                o, a);
        break;
      case PRISM_OP_TRANSPOSE:
        {
          int off = PRISM_MAX_DIMS - (int) prism_graph_tensor (kp->body, a)->ndims;
          int pp[PRISM_MAX_DIMS];
          for (int d = 0; d < PRISM_MAX_DIMS; d++)
            pp[d] = d < off ? d : op->attrs.perm[d - off] + off;
          g_string_append_printf (s, "%sprism::transpose<NT, S%u, S%u, %d, %d, %d, %d> (t%u, t%u);\n",
                                  indent, o, a, pp[0], pp[1], pp[2], pp[3], o, a);
        }
        break;
      case PRISM_OP_CONSTANT:
        {
          char buf[G_ASCII_DTOSTR_BUF_SIZE];
          /* Rounded to its dtype here, so that a build that stores every
           * tile as f32 (the CPU build) holds what the GPU and the
           * interpreter hold. */
          g_ascii_formatd (buf, sizeof buf, "%.9e",
                           prism_dtype_round_value (op->attrs.value,
                                                    prism_graph_tensor (kp->body, o)->dtype));
          g_string_append_printf (s, "%sprism::constant<NT, S%u> (t%u, %sf);\n", indent, o, o, buf);
        }
        break;
      case PRISM_OP_RMS_NORM:
        {
          gint64 len = 1;
          for (guint d = PRISM_MAX_DIMS - op->attrs.norm_dims; d < PRISM_MAX_DIMS; d++)
            len *= ta->shape[d];
          char eps[G_ASCII_DTOSTR_BUF_SIZE];

          g_ascii_formatd (eps, sizeof eps, "%.9e", op->attrs.eps);
          g_string_append_printf (s, "%sprism::rms_norm<NT, S%u, %" G_GINT64_FORMAT "> (t%u, t%u, %sf);\n",
                                  indent, a, len, o, a, eps);
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
      case PRISM_OP_RUNNING_MAX:
        /* The accum_max's tile, this iteration's step done. */
        g_string_append_printf (s, "%sprism::convert<NT, S%u> (t%u, t%u);\n", indent, o, o, a);
        break;
      case PRISM_OP_ACCUM_ONLINE:
      case PRISM_OP_ACCUM_SUM_ONLINE:
        /* pm<o>: the max the sum is at; every thread has rescaled before
         * any moves it on. */
        g_string_append_printf (s, "%sprism::%s<NT, S%u, S%u> (t%u, t%u, t%u, pm%u);\n%sprism::sync ();\n"
                                "%sprism::online_keep<NT, S%u> (pm%u, t%u);\n", indent,
                                op->kind == PRISM_OP_ACCUM_ONLINE ? "accum_online" : "accum_sum_online",
                                op->kind == PRISM_OP_ACCUM_ONLINE ? o : a, b, o, a, b, o, indent,
                                indent, b, o, b);
        break;
      default:
        g_assert_not_reached ();
      }
  g_string_append_printf (s, "%sprism::sync ();\n", indent);
}

/* Emits the load of INPUT op @i's tile into @dst; @it is the iteration
 * expression (NULL: none). */
static void
emit_load (GString *s, const char *indent, const PrismKernelPlan *kp, guint i, const char *fn,
           const char *dst, const char *it)
{
  const PrismOp *op = prism_graph_op (kp->body, i);
  const PrismOpPlan *p = &kp->ops[i];
  guint t = op->outputs[0];
  const PrismTensorPlan *tp = &kp->tensors[t];
  gint64 coef[PRISM_MAX_GRID_DIMS], step;

  tile_offsets (kp, op->data_ndims, tp->shape, p->data, op->attrs.imap, op->attrs.fmap, coef, &step);
  g_string_append_printf (s, "%sprism::%s<NT, %u, S%u, ", indent, fn, p->vec, t);
  append_strides (s, p->data);
  g_string_append_printf (s, "> (%s, in%u + o%u", dst, op->attrs.input_index, t);
  if (step != 0 && it != NULL)
    g_string_append_printf (s, " + (long long) (%s) * %" G_GINT64_FORMAT "LL", it, step);
  g_string_append (s, ");\n");
}

/* Linear index over the grid axes whose omap entry is ≥ 0 (@summed FALSE:
 * the output tile) or −1 (@summed TRUE: the block's partial). */
static void
append_axes_index (GString *s, const PrismKernelPlan *kp, const PrismOp *op, gboolean summed)
{
  gboolean any = FALSE;
  gint64 stride = 1;

  for (guint p = 0; p < kp->body->grid_ndims; p++)
    if ((op->attrs.omap[p] < 0) == summed && kp->grid[p] > 1)
      {
        g_string_append_printf (s, "%sg%u", any ? " + " : "(", p);
        if (stride > 1)
          g_string_append_printf (s, " * %" G_GINT64_FORMAT "LL", stride);
        stride *= kp->grid[p];
        any = TRUE;
      }
  g_string_append (s, any ? ")" : "0LL");
}

static void
emit_signature (GString *s, const PrismKernelPlan *kp, const PrismKernelEmitInfo *info)
{
  gboolean summed = FALSE;
  guint m = 0;

  g_string_append_printf (s, "/* Op %u: grid (%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
                          "), %u threads, loop %" G_GINT64_FORMAT ", %" G_GSIZE_FORMAT " bytes of shared memory",
                          info->kop_index, kp->grid[0], kp->grid[1], kp->grid[2], kp->threads, kp->forloop,
                          kp->smem[PRISM_LAYOUT_GPU]);
  if (kp->pipelined)
    g_string_append_printf (s, ", loop tiles through a %u-stage cp.async ring", kp->stages);
  g_string_append (s, ". */\n");
  g_string_append_printf (s, "extern \"C\" __global__ void __launch_bounds__ (%u)\n%s (",
                          kp->threads, info->name);
  for (guint i = 0; i < info->n_in; i++)
    g_string_append_printf (s, "%sconst %s *__restrict__ in%u", i ? ", " : "",
                            prism_cuda_ctype (info->in_dtypes[i]), i);
  for (guint i = 0; i < kp->n_ops; i++)
    {
      if (prism_graph_op (kp->body, i)->kind != PRISM_OP_OUTPUT)
        continue;
      g_string_append_printf (s, "%s%s *__restrict__ out%u", info->n_in > 0 || m > 0 ? ", " : "",
                              prism_cuda_ctype (info->out_dtypes[m]), m);
      if (kp->ops[i].summed)
        g_string_append_printf (s, ", float *__restrict__ part%u", m);
      if (kp->ops[i].summed && !kp->ops[i].combined)
        g_string_append_printf (s, ", unsigned int *__restrict__ cnt%u", m);
      /* Only outputs with an arrival counter test the epoch. */
      summed = summed || (kp->ops[i].summed && !kp->ops[i].combined);
      m++;
    }
  /* The launch's epoch, which the arrival counters of summed outputs test
   * (prism-split.cuh). */
  if (summed)
    g_string_append (s, ", unsigned int epoch");
  g_string_append (s, ")\n{\n");
  /* Launched to overlap the kernel before it (sm_90): nothing global is
   * read before that one has finished. */
  g_string_append (s, "  prism::allow_dependent_grids ();\n  prism::wait_prior_grids ();\n");
}

static void
emit_declarations (GString *s, const PrismKernelPlan *kp)
{
  g_string_append_printf (s, "  constexpr int NT = %u;\n  constexpr int F = %" G_GINT64_FORMAT ";\n",
                          kp->threads, kp->forloop);
  if (kp->pipelined)
    g_string_append_printf (s, "  constexpr int STAGES = %u;\n", kp->stages);
  g_string_append (s, "  PRISM_DYNAMIC_SMEM (smem);\n");
  for (guint p = 0; p < kp->body->grid_ndims; p++)
    g_string_append_printf (s, "  [[maybe_unused]] const long long g%u = blockIdx.%c;\n", p, "xyz"[p]);

  for (guint t = 0; t < kp->n_tensors; t++)
    {
      const PrismTensorPlan *tp = &kp->tensors[t];
      if (!tp->live)
        continue;
      g_string_append_printf (s, "  using S%u [[maybe_unused]] = prism::Shape<%" G_GINT64_FORMAT ", %"
                              G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT, t, tp->shape[0],
                              tp->shape[1], tp->shape[2], tp->shape[3]);
      /* Rows padded for the tensor cores' ldmatrix. */
      if (tp->pitch > tp->shape[3])
        g_string_append_printf (s, ", %" G_GINT64_FORMAT, tp->pitch);
      g_string_append (s, ">;\n");
    }
  for (guint t = 0; t < kp->n_tensors; t++)
    {
      const PrismTensorPlan *tp = &kp->tensors[t];
      if (!tp->live || tp->item < 0)
        continue;
      g_string_append_printf (s, "  %s *const t%u%s = ", prism_cuda_ctype (tp->storage), t, tp->ring ? "_ring" : "");
      append_smem_ptr (s, kp, tp->item, tp->storage);
      g_string_append (s, ";\n");
    }
}

/* The ring's load of iteration @it into its stage. */
static void
emit_ring_load (GString *s, const char *indent, const PrismKernelPlan *kp, guint i, const char *stage,
                const char *it)
{
  guint t = prism_graph_op (kp->body, i)->outputs[0];
  g_autofree char *dst = g_strdup_printf ("t%u_ring + (%s) * %" G_GINT64_FORMAT, t, stage,
                                          prism_tensor_plan_ring_stride (&kp->tensors[t]));

  emit_load (s, indent, kp, i, "load_tile_async", dst, it);
}

static void
emit_prologue (GString *s, const PrismKernelPlan *kp)
{
  g_string_append (s, "\n  /* Before the loop: accumulators, tile offsets, loop-invariant tiles. */\n");
  for (guint i = 0; i < kp->n_ops; i++)
    {
      const PrismOp *op = prism_graph_op (kp->body, i);
      const PrismOpPlan *p = &kp->ops[i];
      guint o;

      if (!p->live || op->kind == PRISM_OP_OUTPUT)
        continue;
      o = op->outputs[0];
      if (op->kind == PRISM_OP_MATMUL && p->fused && p->in_registers)
        {
          guint acc = prism_graph_op (kp->body, p->partner)->outputs[0];
          g_autofree char *ld = pitch_args (kp, i);
          g_string_append_printf (s, "  prism::MatmulAccum<NT, %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", %"
                                  G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", %s, %s, %u%s> acc%u;\n  acc%u.zero ();\n",
                                  p->batch, p->m, p->n, p->k, mma_names[p->mma],
                                  prism_cuda_ctype (prism_graph_tensor (kp->body, op->inputs[0])->dtype),
                                  p->ksplit, ld, acc, acc);
        }
      else if (prism_op_kind_is_accum (op->kind) && !(p->fused && p->in_registers) &&
               !(op->kind == PRISM_OP_ACCUM && kp->forloop == 1 && !p->fused))
        {
          g_string_append_printf (s, "  prism::fill<NT, S%u> (t%u, %s);\n", o, o,
                                  op->kind == PRISM_OP_ACCUM_MAX ? "prism::neg_inf ()" : "0.0f");
          if (prism_op_kind_is_online (op->kind))
            {
              g_string_append_printf (s, "  float *const pm%u = ", o);
              append_smem_ptr (s, kp, p->shadow[0], PRISM_DTYPE_F32);
              g_string_append_printf (s, ";\n  prism::fill<NT, S%u> (pm%u, prism::neg_inf ());\n",
                                      op->inputs[1], o);
            }
        }
      else if (op->kind == PRISM_OP_INPUT)
        {
          const PrismTensorPlan *tp = &kp->tensors[o];
          gint64 coef[PRISM_MAX_GRID_DIMS], step;

          tile_offsets (kp, op->data_ndims, tp->shape, p->data, op->attrs.imap, op->attrs.fmap, coef, &step);
          g_string_append_printf (s, "  const long long o%u = ", o);
          append_offset (s, coef);
          g_string_append (s, ";\n");
          if (tp->invariant)
            {
              g_autofree char *dst = g_strdup_printf ("t%u", o);
              emit_load (s, "  ", kp, i, "load_tile", dst, "0");
            }
        }
    }
  if (kp->pipelined)
    {
      /* The first STAGES − 1 stages, one commit group each (empty groups
       * past the loop's end keep the counting uniform). */
      g_string_append (s, "PRISM_UNROLL\n  for (int st = 0; st < STAGES - 1; ++st)\n    {\n"
                          "      if (st < F)\n        {\n");
      for (guint i = 0; i < kp->n_ops; i++)
        if (kp->ops[i].live && prism_graph_op (kp->body, i)->kind == PRISM_OP_INPUT &&
            kp->tensors[prism_graph_op (kp->body, i)->outputs[0]].ring)
          emit_ring_load (s, "          ", kp, i, "st", "st");
      g_string_append (s, "        }\n      prism::cp_async_commit ();\n    }\n");
    }
  g_string_append (s, "  prism::sync ();\n\n");
}

static void
emit_loop (GString *s, const PrismKernelPlan *kp)
{
  const char *ind = "      ";

  g_string_append (s, "  for (int it = 0; it < F; ++it)\n    {\n");
  if (kp->pipelined)
    {
      for (guint i = 0; i < kp->n_ops; i++)
        {
          const PrismOp *op = prism_graph_op (kp->body, i);
          guint t;
          if (!kp->ops[i].live || op->kind != PRISM_OP_INPUT || !kp->tensors[op->outputs[0]].ring)
            continue;
          t = op->outputs[0];
          g_string_append_printf (s, "%s%s *const t%u = t%u_ring + (it %% STAGES) * %" G_GINT64_FORMAT ";\n",
                                  ind, prism_cuda_ctype (kp->tensors[t].storage), t, t,
                                  prism_tensor_plan_ring_stride (&kp->tensors[t]));
        }
      g_string_append_printf (s, "%sif (it + STAGES - 1 < F)\n%s  {\n", ind, ind);
      for (guint i = 0; i < kp->n_ops; i++)
        {
          const PrismOp *op = prism_graph_op (kp->body, i);
          if (kp->ops[i].live && op->kind == PRISM_OP_INPUT && kp->tensors[op->outputs[0]].ring)
            emit_ring_load (s, "          ", kp, i, "(it + STAGES - 1) % STAGES", "it + STAGES - 1");
        }
      g_string_append_printf (s, "%s  }\n%sprism::cp_async_commit ();\n", ind, ind);
    }
  for (guint i = 0; i < kp->n_ops; i++)
    {
      const PrismOp *op = prism_graph_op (kp->body, i);
      const PrismTensorPlan *tp;
      if (!kp->ops[i].live || op->kind != PRISM_OP_INPUT)
        continue;
      tp = &kp->tensors[op->outputs[0]];
      if (!tp->invariant && !tp->ring)
        {
          g_autofree char *dst = g_strdup_printf ("t%u", op->outputs[0]);
          emit_load (s, ind, kp, i, "load_tile", dst, "it");
        }
    }
  if (kp->pipelined)
    g_string_append_printf (s, "%sprism::cp_async_wait<STAGES - 1> ();\n", ind);
  g_string_append_printf (s, "%sprism::sync ();\n", ind);
  for (guint i = 0; i < kp->n_ops; i++)
    {
      const PrismOp *op = prism_graph_op (kp->body, i);
      /* An accum fed by a matmul kept in registers has nothing to do here. */
      if (kp->ops[i].live && op->kind != PRISM_OP_INPUT && op->kind != PRISM_OP_OUTPUT &&
          prism_kernel_plan_in_loop (kp, op) && !(prism_op_kind_is_accum (op->kind) && kp->ops[i].fused))
        emit_op (s, ind, kp, i);
    }
  g_string_append (s, "    }\n\n");
}

static void
emit_finish (GString *s, const PrismKernelPlan *kp)
{
  g_string_append (s, "  /* After the loop: finish the accumulators, the epilogue, the stores. */\n");
  for (guint i = 0; i < kp->n_ops; i++)
    {
      const PrismOp *op = prism_graph_op (kp->body, i);
      const PrismOpPlan *p = &kp->ops[i];
      guint o;
      double count;

      if (!p->live || !prism_op_kind_is_accum (op->kind))
        continue;
      o = op->outputs[0];
      count = (double) kp->forloop * (double) kp->tensors[op->inputs[0]].shape[3];
      if (p->fused && p->in_registers)
        g_string_append_printf (s, "  acc%u.store (t%u);\n", o, o);
      else if (op->kind == PRISM_OP_ACCUM_MEAN)
        g_string_append_printf (s, "  prism::accum_scale<NT, S%u> (t%u, %.9gf);\n", o, o, 1.0 / count);
      else if (op->kind == PRISM_OP_ACCUM_RMS)
        g_string_append_printf (s, "  prism::accum_rms_finish<NT, S%u> (t%u, %.9gf);\n", o, o, 1.0 / count);
    }
  g_string_append (s, "  prism::sync ();\n");
  for (guint i = 0; i < kp->n_ops; i++)
    {
      const PrismOp *op = prism_graph_op (kp->body, i);
      if (kp->ops[i].live && op->kind != PRISM_OP_INPUT && op->kind != PRISM_OP_OUTPUT &&
          !prism_kernel_plan_in_loop (kp, op))
        emit_op (s, "  ", kp, i);
    }
}

static void
emit_stores (GString *s, const PrismKernelPlan *kp)
{
  guint m = 0;

  for (guint i = 0; i < kp->n_ops; i++)
    {
      const PrismOp *op = prism_graph_op (kp->body, i);
      const PrismOpPlan *p = &kp->ops[i];
      guint t;
      gint64 coef[PRISM_MAX_GRID_DIMS], step;

      if (op->kind != PRISM_OP_OUTPUT)
        continue;
      t = op->inputs[0];
      tile_offsets (kp, op->data_ndims, kp->tensors[t].shape, p->data, op->attrs.omap, -1, coef, &step);
      if (!p->summed)
        {
          g_string_append_printf (s, "  prism::store_tile<NT, %u, S%u, ", p->vec, t);
          append_strides (s, p->data);
          g_string_append_printf (s, "> (out%u + ", m);
          append_offset (s, coef);
          g_string_append_printf (s, ", t%u);\n", t);
          m++;
          continue;
        }
      /* The blocks along the summed axes store their partials; the last of
       * them to arrive adds them up in a fixed order and stores the tile. */
      g_string_append_printf (s, "  {\n    const long long tile = ");
      append_axes_index (s, kp, op, FALSE);
      g_string_append (s, ";\n    const long long split = ");
      append_axes_index (s, kp, op, TRUE);
      g_string_append_printf (s, ";\n    prism::store_partial<NT, S%u> (part%u + (tile * %" G_GINT64_FORMAT
                              "LL + split) * S%u::size, t%u);\n",
                              t, m, p->splits, t, t);
      if (p->combined)
        {
          /* Added up (and stored) by the combine kernel launched next. */
          g_string_append_printf (s, "    (void) out%u;\n  }\n", m);
          m++;
          continue;
        }
      g_string_append_printf (s, "    if (prism::arrive_last<NT> (cnt%u + tile, %" G_GINT64_FORMAT "u, epoch))\n", m, p->splits);
      g_string_append_printf (s, "      prism::reduce_partials<NT, %u, S%u, ", p->vec, t);
      append_strides (s, p->data);
      g_string_append_printf (s, ", %" G_GINT64_FORMAT "> (out%u + ", p->splits, m);
      append_offset (s, coef);
      g_string_append_printf (s, ", part%u + tile * %" G_GINT64_FORMAT "LL * S%u::size);\n  }\n", m, p->splits, t);
      m++;
    }
}

/* The block indices g0… of the tile with linear index "tile" (the inverse
 * of append_axes_index (…, FALSE)); 0 along the summed axes. */
static void
append_tile_indices (GString *s, const PrismKernelPlan *kp, const PrismOp *op, const char *indent)
{
  gint64 stride = 1;

  for (guint p = 0; p < kp->body->grid_ndims; p++)
    {
      g_string_append_printf (s, "%s[[maybe_unused]] const long long g%u = ", indent, p);
      if (op->attrs.omap[p] >= 0 && kp->grid[p] > 1)
        {
          g_string_append_printf (s, "tile / %" G_GINT64_FORMAT "LL %% %" G_GINT64_FORMAT "LL;\n",
                                  stride, kp->grid[p]);
          stride *= kp->grid[p];
        }
      else
        g_string_append (s, "0;\n");
    }
}

void
prism_kernel_plan_emit_combine (const PrismKernelPlan *kp, const PrismKernelEmitInfo *info, const char *name,
                                GString *s)
{
  guint m = 0;
  gboolean first = TRUE;

  g_string_append_printf (s, "/* Op %u, combine: %" G_GINT64_FORMAT " blocks of %u threads add up the partials "
                          "of %s, %u vectors of each tile a block. */\n"
                          "extern \"C\" __global__ void __launch_bounds__ (%u)\n%s (",
                          info->kop_index, kp->combine_blocks, kp->combine_threads, info->name,
                          kp->combine_width, kp->combine_threads, name);
  for (guint i = 0; i < kp->n_ops; i++)
    {
      const PrismOp *op = prism_graph_op (kp->body, i);
      if (op->kind != PRISM_OP_OUTPUT)
        continue;
      if (kp->ops[i].combined)
        {
          g_string_append_printf (s, "%s%s *__restrict__ out%u, const float *__restrict__ part%u",
                                  first ? "" : ", ", prism_cuda_ctype (info->out_dtypes[m]), m, m);
          first = FALSE;
        }
      m++;
    }
  g_string_append_printf (s, ")\n{\n  constexpr int CT = %u;\n  const long long b = blockIdx.x;\n\n",
                          kp->combine_threads);
  m = 0;
  for (guint i = 0; i < kp->n_ops; i++)
    {
      const PrismOp *op = prism_graph_op (kp->body, i);
      const PrismOpPlan *p = &kp->ops[i];
      guint t;
      gint64 coef[PRISM_MAX_GRID_DIMS], step;
      const PrismTensorPlan *tp;

      if (op->kind != PRISM_OP_OUTPUT)
        continue;
      if (!p->combined)
        {
          m++;
          continue;
        }
      t = op->inputs[0];
      tp = &kp->tensors[t];
      tile_offsets (kp, op->data_ndims, tp->shape, p->data, op->attrs.omap, -1, coef, &step);
      g_string_append_printf (s, "  if (b >= %" G_GINT64_FORMAT "LL && b < %" G_GINT64_FORMAT "LL)\n    {\n",
                              p->combine_first, p->combine_first + p->tiles * p->slices);
      g_string_append_printf (s, "      using S%u = prism::Shape<%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", %"
                              G_GINT64_FORMAT ", %" G_GINT64_FORMAT ">;\n", t, tp->shape[0], tp->shape[1],
                              tp->shape[2], tp->shape[3]);
      g_string_append_printf (s, "      const long long tile = (b - %" G_GINT64_FORMAT "LL) / %" G_GINT64_FORMAT "LL;\n"
                              "      const int slice = (int) ((b - %" G_GINT64_FORMAT "LL) %% %" G_GINT64_FORMAT "LL);\n",
                              p->combine_first, p->slices, p->combine_first, p->slices);
      append_tile_indices (s, kp, op, "      ");
      g_string_append_printf (s, "      prism::combine_partials<CT, %u, %u, S%u, ", kp->combine_width, p->vec, t);
      append_strides (s, p->data);
      g_string_append_printf (s, ", %" G_GINT64_FORMAT "> (out%u + ", p->splits, m);
      append_offset (s, coef);
      g_string_append_printf (s, ", part%u + tile * %" G_GINT64_FORMAT "LL * S%u::size, slice);\n    }\n",
                              m, p->splits, t);
      m++;
    }
  g_string_append (s, "}\n\n");
}

void
prism_kernel_plan_emit (const PrismKernelPlan *kp, const PrismKernelEmitInfo *info, GString *s)
{
  emit_signature (s, kp, info);
  emit_declarations (s, kp);
  emit_prologue (s, kp);
  emit_loop (s, kp);
  emit_finish (s, kp);
  emit_stores (s, kp);
  g_string_append (s, "}\n\n");
}
