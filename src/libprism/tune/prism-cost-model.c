/* prism-cost-model.c — a roofline model of kernel graphs on a target GPU
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each launch costs its launch overhead plus the largest of three times:
 *   memory  — bytes that must cross DRAM (each input once, each output
 *             once) at the achievable HBM bandwidth, plus re-reads of
 *             replicated tiles at L2 bandwidth;
 *   compute — tensor-core flops (matmul tiles rounded up to the m16n8k16
 *             MMA shape, so tiny tiles pay for idle lanes) and CUDA-core
 *             flops at their achievable rates;
 *   latency — per wave of blocks, a fixed prologue/epilogue plus a small
 *             cost per loop iteration, so over-splitting the loop or
 *             launching many waves is not free.
 * Memory and compute scale with the fraction of SMs a grid keeps busy.  The
 * constants below are round figures: the model ranks candidates and
 * estimates speedups; measured times come from the GPU benchmark.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "prism-cost-model.h"
#include "prism-error.h"
#include "prism-sgraph.h"

#define MEM_EFFICIENCY 0.85
#define L2_EFFICIENCY 0.7
#define TENSOR_EFFICIENCY 0.7
#define FP32_EFFICIENCY 0.5
#define MIN_KERNEL_US 1.0     /* a predefined kernel never finishes faster */
#define BLOCK_US 1.0          /* first load and final store of one block */
#define ITER_US 0.05          /* synchronisation and issue cost of one loop iteration */

static gboolean
eval (const PrismDim *d, const gint64 *values, guint n_values, gint64 *out)
{
  return prism_dim_eval (d, values, n_values, out) && *out > 0;
}

static gboolean
tensor_numel (const PrismTensor *t, const gint64 *values, guint n_values, guint64 *out)
{
  guint64 n = 1;

  for (guint d = 0; d < t->ndims; d++)
    {
      gint64 v;
      if (!eval (t->dims[d], values, n_values, &v))
        return FALSE;
      n *= (guint64) v;
    }
  *out = n;
  return TRUE;
}

static gboolean
data_numel (const PrismOp *op, const gint64 *values, guint n_values, guint64 *out)
{
  guint64 n = 1;

  for (guint d = 0; d < op->data_ndims; d++)
    {
      gint64 v;
      if (!eval (op->data_dims[d], values, n_values, &v))
        return FALSE;
      n *= (guint64) v;
    }
  *out = n;
  return TRUE;
}

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

static guint64
round_up (guint64 v, guint64 m)
{
  return (v + m - 1) / m * m;
}

/* Flops of @op on tensors of @g; @tensor_flops receives the matmul part. */
static gboolean
op_flops (const PrismGraph *g, const PrismOp *op, const gint64 *values, guint n_values,
          double *tensor_flops, double *other_flops)
{
  const PrismTensor *out;
  guint64 n_out, n_in;

  *tensor_flops = *other_flops = 0;
  if (op->n_outputs == 0 || op->n_inputs == 0)
    return TRUE;
  out = prism_graph_tensor (g, op->outputs[0]);
  if (!tensor_numel (out, values, n_values, &n_out) ||
      !tensor_numel (prism_graph_tensor (g, op->inputs[0]), values, n_values, &n_in))
    return FALSE;
  if (op->kind == PRISM_OP_MATMUL)
    {
      const PrismTensor *a = prism_graph_tensor (g, op->inputs[0]);
      gint64 m, n, k;
      guint nd = out->ndims;
      guint64 batch = 1;

      if (!eval (out->dims[nd - 2], values, n_values, &m) ||
          !eval (out->dims[nd - 1], values, n_values, &n) ||
          !eval (a->dims[a->ndims - 1], values, n_values, &k))
        return FALSE;
      batch = n_out / ((guint64) m * (guint64) n);
      if (out->dtype == PRISM_DTYPE_F32)
        *other_flops = 2.0 * batch * m * n * k;
      else
        *tensor_flops = 2.0 * batch * round_up ((guint64) m, 16) * round_up ((guint64) n, 8) *
                        round_up ((guint64) k, 16);
      return TRUE;
    }
  if (prism_op_kind_is_unary (op->kind) || prism_op_kind_is_binary (op->kind))
    *other_flops = (double) n_out * unary_weight (op->kind);
  else if (op->kind == PRISM_OP_RMS_NORM)
    *other_flops = 3.0 * n_in;
  else
    *other_flops = (double) n_in;
  return TRUE;
}

static double
bytes_us (double bytes, double gbs, double efficiency)
{
  /* GB/s = 1e3 bytes/µs */
  return bytes / (gbs * 1e3 * efficiency);
}

static double
flops_us (double flops, double tflops, double efficiency)
{
  /* TFLOP/s = 1e6 flop/µs */
  return flops / (tflops * 1e6 * efficiency);
}

static gboolean
predefined_cost (const PrismGpuTarget *target, const PrismGraph *g, const PrismOp *op,
                 const gint64 *values, guint n_values, PrismOpCost *out)
{
  double bytes = 0, tf, of;

  for (guint i = 0; i < op->n_inputs + op->n_outputs; i++)
    {
      guint id = i < op->n_inputs ? op->inputs[i] : op->outputs[i - op->n_inputs];
      const PrismTensor *t = prism_graph_tensor (g, id);
      guint64 n;
      if (!tensor_numel (t, values, n_values, &n))
        return FALSE;
      bytes += (double) n * prism_dtype_size (t->dtype);
    }
  if (!op_flops (g, op, values, n_values, &tf, &of))
    return FALSE;
  out->dram_bytes = (guint64) bytes;
  out->flops = tf + of;
  out->memory_us = bytes_us (bytes, target->dram_gbs, MEM_EFFICIENCY);
  out->compute_us = flops_us (tf, target->tensor_tflops, TENSOR_EFFICIENCY) +
                    flops_us (of, target->fp32_tflops, FP32_EFFICIENCY);
  out->latency_us = MIN_KERNEL_US;
  return TRUE;
}

static gboolean
kernel_cost (const PrismGpuTarget *target, const PrismGraph *kg, const PrismOp *kop,
             const gint64 *values, guint n_values, PrismOpCost *out)
{
  const PrismGraph *b = kop->body;
  gint64 grid[PRISM_MAX_GRID_DIMS], forloop;
  guint64 blocks = 1, occupancy, waves;
  double tile_in = 0, unique_in = 0, out_bytes = 0, combine_bytes = 0;
  double tensor = 0, other = 0, loaded, extra, util;

  for (guint p = 0; p < b->grid_ndims; p++)
    {
      if (!eval (b->grid[p], values, n_values, &grid[p]))
        return FALSE;
      blocks *= (guint64) grid[p];
    }
  if (!eval (b->forloop, values, n_values, &forloop))
    return FALSE;
  if (!prism_block_graph_smem_bytes (b, values, n_values, &out->smem_bytes))
    return FALSE;

  for (guint i = 0; i < b->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (b, i);
      guint64 n;

      if (op->kind == PRISM_OP_INPUT)
        {
          if (!tensor_numel (prism_graph_tensor (b, op->outputs[0]), values, n_values, &n))
            return FALSE;
          tile_in += (double) n * prism_dtype_size (op->data_dtype);
          if (!data_numel (op, values, n_values, &n))
            return FALSE;
          unique_in += (double) n * prism_dtype_size (op->data_dtype);
        }
      else if (op->kind == PRISM_OP_OUTPUT)
        {
          gboolean summed = FALSE;
          guint64 tile;

          if (!data_numel (op, values, n_values, &n) ||
              !tensor_numel (prism_graph_tensor (b, op->inputs[0]), values, n_values, &tile))
            return FALSE;
          out_bytes += (double) n * prism_dtype_size (op->data_dtype);
          for (guint p = 0; p < b->grid_ndims; p++)
            summed |= op->attrs.omap[p] < 0 && grid[p] > 1;
          /* Blocks that sum into one tile add their partials through L2. */
          if (summed)
            combine_bytes += (double) tile * blocks * prism_dtype_size (op->data_dtype);
        }
      else
        {
          double tf, of;
          double reps = prism_graph_tensor (b, op->outputs[0])->after_accum &&
                        !prism_op_kind_is_accum (op->kind) ? 1.0 : (double) forloop;
          if (!op_flops (b, op, values, n_values, &tf, &of))
            return FALSE;
          tensor += tf * reps;
          other += of * reps;
        }
    }

  loaded = tile_in * (double) forloop * (double) blocks;
  unique_in = MIN (unique_in, loaded);
  extra = loaded - unique_in + combine_bytes;
  util = MIN (1.0, (double) blocks / target->sm_count);
  occupancy = MIN (target->max_blocks_per_sm, target->max_threads_per_sm / MAX (b->block_threads, 1));
  if (out->smem_bytes > 0)
    occupancy = MIN (occupancy, (guint64) target->smem_per_sm_kb * 1024 / out->smem_bytes);
  occupancy = MAX (occupancy, 1);
  waves = (blocks + target->sm_count * occupancy - 1) / (target->sm_count * occupancy);

  out->blocks = blocks;
  out->dram_bytes = (guint64) (unique_in + out_bytes);
  out->l2_bytes = (guint64) extra;
  out->flops = (tensor + other) * (double) blocks;
  out->memory_us = (bytes_us (unique_in + out_bytes, target->dram_gbs, MEM_EFFICIENCY) +
                    bytes_us (extra, target->l2_gbs, L2_EFFICIENCY)) / util;
  out->compute_us = (flops_us (tensor * blocks, target->tensor_tflops, TENSOR_EFFICIENCY) +
                     flops_us (other * blocks, target->fp32_tflops, FP32_EFFICIENCY)) / util;
  out->latency_us = (double) waves * (BLOCK_US + (double) forloop * ITER_US);
  return TRUE;
}

gboolean
prism_cost_model_op (const PrismGpuTarget *target, const PrismGraph *graph, guint op_index,
                     const gint64 *values, guint n_values, PrismOpCost *out)
{
  const PrismOp *op = prism_graph_op (graph, op_index);
  gboolean ok;

  memset (out, 0, sizeof *out);
  if (op->kind == PRISM_OP_INPUT || op->kind == PRISM_OP_OUTPUT)
    return TRUE;
  if (op->kind == PRISM_OP_KERNEL)
    ok = kernel_cost (target, graph, op, values, n_values, out);
  else
    ok = predefined_cost (target, graph, op, values, n_values, out);
  if (!ok)
    return FALSE;
  out->us = target->launch_us + MAX (out->memory_us, MAX (out->compute_us, out->latency_us));
  return TRUE;
}

gboolean
prism_cost_model_predict (const PrismGpuTarget *target, const PrismGraph *graph,
                          const gint64 *values, guint n_values, PrismCostEstimate *out,
                          GError **error)
{
  memset (out, 0, sizeof *out);
  for (guint i = 0; i < graph->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (graph, i);
      PrismOpCost c;

      if (op->kind == PRISM_OP_INPUT || op->kind == PRISM_OP_OUTPUT)
        continue;
      if (!prism_cost_model_op (target, graph, i, values, n_values, &c))
        {
          g_set_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED,
                       "op %u (%s): sizes are not concrete integers under the assignment", i,
                       prism_op_kind_to_string (op->kind));
          return FALSE;
        }
      out->total_us += c.us;
      out->n_launches++;
      out->memory_us += c.memory_us;
      out->compute_us += c.compute_us;
      out->latency_us += c.latency_us;
      out->launch_us += target->launch_us;
    }
  return TRUE;
}
