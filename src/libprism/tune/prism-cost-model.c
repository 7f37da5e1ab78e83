/* prism-cost-model.c — predicted times of kernel graphs, from their launch plans
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The model prices what the code generator emits, nothing else: every
 * launch is planned by prism-kernel-plan.c (the same planner the emitter
 * writes the code from) and its account (prism-launch.h) priced here.  Per
 * launch (docs/cost-model.md):
 *
 *   time = launch gap + max (DRAM, L2, compute, latency)
 *
 *   DRAM    — the bytes that must cross DRAM, at the bandwidth the launch's
 *             bytes in flight per SM can draw (the target's measured curve,
 *             Little's law), scaled by the share of SMs its grid occupies;
 *   L2      — re-reads of replicated tiles and partial sums, at L2 bandwidth;
 *   compute — tensor-core FLOPs at the rate of the path emitted (WMMA) for
 *             the warps that do the work, CUDA-core FLOPs at theirs;
 *   latency — per wave of resident blocks, one DRAM latency for the first
 *             loads, then per loop iteration one latency over the ring's
 *             depth (S − 1 stages in flight) or a whole one for synchronous
 *             loads, plus the iteration's barriers and the busiest thread's
 *             longest dependent chain; and a phase on fewer blocks than
 *             SMs (the last block's sum of partials) at one SM's L2 share.
 *
 * DRAM and L2 bytes are divided by the launch's global sector efficiency:
 * what crosses is the sectors fetched, not the bytes used.
 *
 * The constants come from the target's "prism-gpu" file (datasheet and
 * calibration), never from this file.  No prediction beats physics: the
 * DRAM term never exceeds the datasheet bandwidth and no rate exceeds its
 * peak, so a graph's prediction is at least its inputs and outputs once over
 * the bandwidth and its FLOPs over the peak.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "prism-cost-model.h"
#include "prism-error.h"
#include "prism-kernel-plan.h"
#include "prism-lower.h"

/* Tensor-core units per SM: a warp issues to one, so an SM needs four
 * working warps to keep them all busy. */
#define MMA_UNITS_PER_SM 4
/* Cycles one step of a thread's dependent chain takes at least: the FP32
 * pipeline's dependent-issue latency (an add, a max, an FMA waiting for
 * the previous one). */
#define DEPENDENT_STEP_CYCLES 4
/* Sector efficiency below which a launch is not priced further (a guard
 * against a degenerate account). */
#define MIN_SECTOR_EFFICIENCY 0.01

const char *
prism_baseline_kind_to_string (PrismBaselineKind kind)
{
  return kind == PRISM_BASELINE_LOWERED ? "prism-lowered" : "vendor";
}

gboolean
prism_baseline_kind_from_string (const char *name, PrismBaselineKind *kind)
{
  if (g_strcmp0 (name, "vendor") == 0)
    *kind = PRISM_BASELINE_VENDOR;
  else if (g_strcmp0 (name, "prism-lowered") == 0)
    *kind = PRISM_BASELINE_LOWERED;
  else
    return FALSE;
  return TRUE;
}

static double
bytes_us (double bytes, double gbs)
{
  /* GB/s = 1e3 bytes/µs */
  return gbs > 0 ? bytes / (gbs * 1e3) : 0;
}

static double
flops_us (double flops, double tflops)
{
  /* TFLOP/s = 1e6 flop/µs */
  return tflops > 0 ? flops / (tflops * 1e6) : 0;
}

static void
vendor_gemm_cost (const PrismGpuTarget *t, const PrismLaunch *l, PrismOpCost *out)
{
  double rate = l->tensor_flops > 0 ? t->tensor_tflops : t->fp32_tflops;

  out->launch_us = t->launch_us;
  out->memory_us = bytes_us (l->dram_bytes, t->dram_gbs * t->vendor_gemm_bandwidth_efficiency);
  out->compute_us = flops_us (l->tensor_flops + l->fma_flops, rate * t->vendor_gemm_efficiency);
  out->us = MAX (t->vendor_gemm_min_us, out->launch_us + MAX (out->memory_us, out->compute_us));
}

/* The SM clock in GHz, from the FP32 peak: FP32 lanes per SM (64 on sm_80,
 * 128 on sm_86 and newer) × 2 FLOPs an FMA × SMs × clock. */
static double
clock_ghz (const PrismGpuTarget *t)
{
  double lanes = t->compute_capability == 80 ? 64 : 128;

  return t->fp32_tflops * 1e3 / (lanes * 2.0 * MAX (t->sm_count, 1));
}

/* µs of the busiest thread's longest dependent chain. */
static double
chain_us (const PrismGpuTarget *t, const PrismLaunch *l)
{
  return (double) l->longest_thread_chain * DEPENDENT_STEP_CYCLES / (clock_ghz (t) * 1e3);
}

/* µs of a phase that runs on fewer blocks than the GPU has SMs (the last
 * block of each tile adding its partials): what one block reads at its
 * SM's share of the L2 bandwidth.  A phase as wide as the GPU is the L2
 * term's. */
static double
narrow_phase_us (const PrismGpuTarget *t, const PrismLaunch *l)
{
  if (l->narrow_phase_bytes <= 0 || l->fewest_active_blocks >= t->sm_count)
    return 0;
  return bytes_us (l->narrow_phase_bytes, t->l2_gbs / MAX (t->sm_count, 1));
}

void
prism_cost_model_launch (const PrismGpuTarget *t, const PrismLaunch *l, PrismOpCost *out)
{
  double sectors, inflight;
  double blocks, active, sm_share, bw, per_sm_warps, iter_wait, waves, util;
  double resident_capacity;

  memset (out, 0, sizeof *out);
  out->launch = *l;
  if (l->role == PRISM_LAUNCH_VENDOR_GEMM)
    {
      vendor_gemm_cost (t, l, out);
      return;
    }

  blocks = MAX (1.0, (double) l->grid[0] * l->grid[1] * l->grid[2]);
  active = MIN (blocks, (double) t->sm_count);
  sm_share = active / t->sm_count;

  /* DRAM: the curve is for every SM drawing; a grid on fewer SMs draws
   * their share. */
  /* Wasted sectors cost bandwidth: the bytes fetched cross, not the bytes
   * used — and what is in flight is sectors too, so the curve is read at
   * the sectors in flight. */
  sectors = l->global_sector_efficiency > 0 ? MAX (l->global_sector_efficiency, MIN_SECTOR_EFFICIENCY) : 1.0;
  /* A launch that loads nothing still has its own stores in flight. */
  inflight = MAX ((double) l->bytes_in_flight_per_sm, l->dram_bytes / blocks * MAX (l->blocks_per_sm, 1));
  bw = prism_gpu_target_dram_gbs (t, inflight / sectors / 1024.0) * sm_share;
  out->memory_us = bytes_us (l->dram_bytes / sectors, MAX (bw, 1e-3));
  out->l2_us = bytes_us (l->l2_bytes / sectors, t->l2_gbs * sm_share);

  /* Compute: tensor cores need MMA_UNITS_PER_SM working warps per SM. */
  per_sm_warps = (double) MAX (l->blocks_per_sm, 1) * MAX (l->work_warps, 1);
  util = sm_share * MIN (1.0, per_sm_warps / MMA_UNITS_PER_SM);
  out->compute_us = flops_us (l->tensor_flops, t->tensor_tflops * t->tensor_efficiency * util) +
                    flops_us (l->fma_flops + l->other_flops, t->fp32_tflops * t->fp32_efficiency * util);

  /* Latency: waves of resident blocks, each waiting for its loads. */
  resident_capacity = (double) t->sm_count * MAX (l->occupancy, 1);
  waves = ceil (blocks / resident_capacity);
  if (l->sync_bytes > 0)
    iter_wait = t->dram_latency_us;
  else if (l->stage_bytes > 0)
    iter_wait = t->dram_latency_us / MAX (l->stages - 1, 1);
  else
    iter_wait = 0;
  out->latency_us = waves * (t->dram_latency_us * (l->split_outputs > 0 ? 2 : 1) +
                             (double) l->loop_iterations * (iter_wait + t->iteration_us) +
                             chain_us (t, l)) +
                    narrow_phase_us (t, l);

  out->launch_us = t->launch_us;
  out->us = out->launch_us + MAX (MAX (out->memory_us, out->l2_us), MAX (out->compute_us, out->latency_us));
}

double
prism_cost_model_plan_us (const PrismGpuTarget *target, const PrismKernelPlan *plan)
{
  double us = 0;

  for (guint i = 0; i < prism_kernel_plan_n_launches (plan); i++)
    {
      PrismLaunch l;
      PrismOpCost c;
      prism_kernel_plan_describe_launch (plan, i, &l);
      prism_cost_model_launch (target, &l, &c);
      us += c.us;
    }
  return us;
}

/* Prices every launch of a planned body into @out (1 or 2: the kernel and
 * its combine kernel); their number in @n. */
static gboolean
price_body (const PrismGpuTarget *target, const PrismGraph *body, const gint64 *values,
            guint n_values, PrismOpCost *out, guint *n)
{
  PrismKernelPlanOptions po = { target, target->compute_capability, 0, FALSE, 0 };
  g_autoptr(PrismKernelPlan) plan = prism_kernel_plan_new (body, values, n_values, &po, NULL);

  if (plan == NULL)
    return FALSE;
  *n = prism_kernel_plan_n_launches (plan);
  for (guint i = 0; i < *n; i++)
    {
      PrismLaunch l;
      prism_kernel_plan_describe_launch (plan, i, &l);
      prism_cost_model_launch (target, &l, &out[i]);
    }
  return TRUE;
}

/* A predefined matmul as cuBLASLt runs it. */
static gboolean
price_vendor_matmul (const PrismGpuTarget *target, const PrismGraph *graph, const PrismOp *op,
                     PrismOpCost *out)
{
  const PrismTensor *a = prism_graph_tensor (graph, op->inputs[0]);
  const PrismTensor *b = prism_graph_tensor (graph, op->inputs[1]);
  const PrismTensor *c = prism_graph_tensor (graph, op->outputs[0]);
  PrismLaunch l = { 0, };
  guint r = a->ndims;
  gint64 na, nb, nc, shape[PRISM_MAX_DIMS];
  double f;

  if (!prism_tensor_get_shape (a, shape) || !prism_tensor_get_shape (b, shape) ||
      !prism_tensor_get_shape (c, shape))
    return FALSE;
  na = prism_tensor_numel (a);
  nb = prism_tensor_numel (b);
  nc = prism_tensor_numel (c);
  l.role = PRISM_LAUNCH_VENDOR_GEMM;
  l.mma = PRISM_MMA_VENDOR;
  l.gemm_m = prism_dim_get_const (a->dims[r - 2]);
  l.gemm_k = prism_dim_get_const (a->dims[r - 1]);
  l.gemm_n = prism_dim_get_const (b->dims[r - 1]);
  l.gemm_batch = nc / MAX (l.gemm_m * l.gemm_n, 1);
  l.gemm_dtype = a->dtype;
  l.stages = 1;
  l.spill_bytes = -1;
  l.dram_bytes = (double) na * prism_dtype_size (a->dtype) + (double) nb * prism_dtype_size (b->dtype) +
                 (double) nc * prism_dtype_size (c->dtype);
  f = 2.0 * (double) l.gemm_batch * l.gemm_m * l.gemm_n * l.gemm_k;
  if (a->dtype == PRISM_DTYPE_F32)
    l.fma_flops = f;
  else
    l.tensor_flops = f;
  prism_cost_model_launch (target, &l, out);
  return TRUE;
}

/* The kernel input that block tensor @t of @body tiles, or -1 when @t is not
 * a block input. */
static int
tiled_kernel_input (const PrismGraph *body, guint t)
{
  const PrismOp *p = prism_graph_op (body, (guint) prism_graph_tensor (body, t)->producer);

  return p->kind == PRISM_OP_INPUT ? (int) p->attrs.input_index : -1;
}

/* Our lowering of one predefined op is never ranked above the vendor
 * library without a measurement (issue 22): the constants give our kernels
 * a larger share of DRAM bandwidth than cuBLASLt (90 % against 85 %), which
 * made a custom kernel holding nothing but one matmul "1.05× faster" than
 * cuBLASLt on that matmul.  Until a GPU calibrates both, such a kernel costs
 * at least what cuBLASLt's GEMM of the same operands costs. */
void
prism_cost_model_floor_at_vendor (const PrismGpuTarget *target, const PrismGraph *graph,
                                  guint op_index, PrismOpCost *out)
{
  const PrismOp *kop = prism_graph_op (graph, op_index);
  const PrismGraph *body = kop->body;
  const PrismOp *mm = NULL;
  PrismOp vendor;
  PrismOpCost v;
  int a, b;

  if (kop->kind != PRISM_OP_KERNEL || kop->n_outputs != 1)
    return;
  for (guint i = 0; i < body->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (body, i);

      if (op->kind == PRISM_OP_INPUT || op->kind == PRISM_OP_OUTPUT)
        continue;
      if (op->kind == PRISM_OP_MATMUL && mm == NULL)
        mm = op;
      else if (!(op->kind == PRISM_OP_ACCUM && mm != NULL && op->inputs[0] == mm->outputs[0]))
        return;  /* anything else: a fusion, priced as it is */
    }
  if (mm == NULL || (a = tiled_kernel_input (body, mm->inputs[0])) < 0 ||
      (b = tiled_kernel_input (body, mm->inputs[1])) < 0)
    return;
  memset (&vendor, 0, sizeof vendor);
  vendor.kind = PRISM_OP_MATMUL;
  vendor.n_inputs = 2;
  vendor.inputs[0] = kop->inputs[a];
  vendor.inputs[1] = kop->inputs[b];
  vendor.n_outputs = 1;
  vendor.outputs[0] = kop->outputs[0];
  if (!price_vendor_matmul (target, graph, &vendor, &v) || v.us <= out->us)
    return;
  out->memory_us = MAX (out->memory_us, v.memory_us);
  out->compute_us = MAX (out->compute_us, v.compute_us);
  out->us = v.us;
}

/* The launches of op @op_index, priced: @out[0 … *n − 1]. */
static gboolean
price_op_launches (const PrismGpuTarget *target, const PrismGraph *graph, guint op_index,
                   const gint64 *values, guint n_values, PrismBaselineKind kind, PrismOpCost *out, guint *n)
{
  const PrismOp *op = prism_graph_op (graph, op_index);
  PrismLowerOptions lo = { target->sm_count, FALSE };
  g_autoptr(PrismGraph) body = NULL;

  memset (out, 0, 2 * sizeof *out);
  *n = 0;
  if (op->kind == PRISM_OP_INPUT || op->kind == PRISM_OP_OUTPUT)
    return TRUE;
  if (op->kind == PRISM_OP_KERNEL)
    {
      PrismOpCost all;

      if (!price_body (target, op->body, values, n_values, out, n))
        return FALSE;
      /* Its combine kernel included, the whole of our kernel is what
       * cuBLASLt is compared with; what the floor adds goes to the kernel
       * itself. */
      all = out[0];
      for (guint j = 1; j < *n; j++)
        all.us += out[j].us;
      prism_cost_model_floor_at_vendor (target, graph, op_index, &all);
      for (guint j = 1; j < *n; j++)
        all.us -= out[j].us;
      if (all.us > out[0].us)
        {
          out[0].memory_us = MAX (out[0].memory_us, all.memory_us);
          out[0].compute_us = MAX (out[0].compute_us, all.compute_us);
          out[0].us = all.us;
        }
      return TRUE;
    }
  if (op->kind == PRISM_OP_MATMUL && kind == PRISM_BASELINE_VENDOR)
    {
      *n = 1;
      return price_vendor_matmul (target, graph, op, out);
    }
  body = prism_lower_op (graph, op_index, &lo, NULL);
  return body != NULL && price_body (target, body, NULL, 0, out, n);
}

gboolean
prism_cost_model_op_full (const PrismGpuTarget *target, const PrismGraph *graph, guint op_index,
                          const gint64 *values, guint n_values, PrismBaselineKind kind, PrismOpCost *out)
{
  PrismOpCost c[2];
  guint n = 0;

  if (!price_op_launches (target, graph, op_index, values, n_values, kind, c, &n))
    return FALSE;
  *out = c[0];
  out->n_launches = n;
  if (n > 1)
    {
      /* The combine kernel runs after the kernel: its time adds. */
      out->us += c[1].us;
      out->launch_us += c[1].launch_us;
      out->memory_us += c[1].memory_us;
      out->l2_us += c[1].l2_us;
      out->compute_us += c[1].compute_us;
      out->latency_us += c[1].latency_us;
    }
  return TRUE;
}

gboolean
prism_cost_model_op (const PrismGpuTarget *target, const PrismGraph *graph, guint op_index,
                     const gint64 *values, guint n_values, PrismOpCost *out)
{
  return prism_cost_model_op_full (target, graph, op_index, values, n_values, PRISM_BASELINE_LOWERED, out);
}

/* Outputs the lowering gives a copy kernel: a graph input, or a tensor
 * already output. */
static gboolean
output_needs_copy (const PrismGraph *graph, guint op_index)
{
  const PrismOp *op = prism_graph_op (graph, op_index);
  guint src = op->inputs[0];

  if (prism_graph_op (graph, prism_graph_tensor (graph, src)->producer)->kind == PRISM_OP_INPUT)
    return TRUE;
  for (guint j = 0; j < op_index; j++)
    {
      const PrismOp *o = prism_graph_op (graph, j);
      if (o->kind == PRISM_OP_OUTPUT && o->inputs[0] == src)
        return TRUE;
    }
  return FALSE;
}

/* Launches of the body of op @i as planned for the default target: 2 when
 * a combine kernel adds up its partials; 1 when its sizes are symbolic. */
static guint
op_launches (const PrismGraph *graph, guint i)
{
  const PrismOp *op = prism_graph_op (graph, i);
  const PrismGpuTarget *target = prism_gpu_target_default ();
  PrismLowerOptions lo = { target->sm_count, FALSE };
  PrismKernelPlanOptions po = { target, target->compute_capability, 0, FALSE, 0 };
  g_autoptr(PrismGraph) lowered = NULL;
  g_autoptr(PrismKernelPlan) plan = NULL;
  const PrismGraph *body = op->body;

  if (op->kind != PRISM_OP_KERNEL)
    {
      gint64 shape[PRISM_MAX_DIMS];
      for (guint k = 0; k < op->n_outputs; k++)
        if (!prism_tensor_get_shape (prism_graph_tensor (graph, op->outputs[k]), shape))
          return 1;
      lowered = prism_lower_op (graph, i, &lo, NULL);
      body = lowered;
    }
  if (body == NULL)
    return 1;
  plan = prism_kernel_plan_new (body, NULL, 0, &po, NULL);
  return plan != NULL ? prism_kernel_plan_n_launches (plan) : 1;
}

guint
prism_cost_model_count_launches (const PrismGraph *graph)
{
  guint n = 0;

  for (guint i = 0; i < graph->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (graph, i);
      if (op->kind == PRISM_OP_INPUT)
        continue;
      if (op->kind == PRISM_OP_OUTPUT)
        n += output_needs_copy (graph, i) ? 1 : 0;
      else
        n += op_launches (graph, i);
    }
  return n;
}

/* A copy kernel of @tensor, as the lowering makes it. */
static gboolean
price_copy (const PrismGpuTarget *target, const PrismGraph *graph, guint tensor, PrismOpCost *out, guint *n)
{
  const PrismTensor *t = prism_graph_tensor (graph, tensor);
  g_autoptr(PrismGraph) g = prism_graph_new ();
  g_autoptr(PrismGraph) lowered = NULL;
  gint64 shape[PRISM_MAX_DIMS];
  int in;

  if (!prism_tensor_get_shape (t, shape) ||
      (in = prism_graph_add_input (g, NULL, t->ndims, shape, t->dtype, NULL)) < 0 ||
      prism_graph_add_output (g, (guint) in, NULL, NULL) < 0)
    return FALSE;
  lowered = prism_lower_predefined_ops (g, NULL);
  for (guint i = 0; lowered != NULL && i < lowered->ops->len; i++)
    if (prism_graph_op (lowered, i)->kind == PRISM_OP_KERNEL)
      return price_body (target, prism_graph_op (lowered, i)->body, NULL, 0, out, n);
  return FALSE;
}

static gboolean
predict (const PrismGpuTarget *target, const PrismGraph *graph, const gint64 *values, guint n_values,
         PrismBaselineKind kind, GArray *costs, PrismCostEstimate *out, GError **error)
{
  memset (out, 0, sizeof *out);
  if (costs != NULL)
    g_array_set_size (costs, 0);
  for (guint i = 0; i < graph->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (graph, i);
      PrismOpCost c[2];
      guint n = 0;
      gboolean ok;

      if (op->kind == PRISM_OP_INPUT)
        continue;
      if (op->kind == PRISM_OP_OUTPUT)
        {
          if (!output_needs_copy (graph, i))
            continue;
          ok = price_copy (target, graph, op->inputs[0], c, &n);
        }
      else
        ok = price_op_launches (target, graph, i, values, n_values, kind, c, &n);
      if (!ok)
        {
          g_set_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED,
                       "op %u (%s): sizes are not concrete integers under the assignment, or the kernel "
                       "does not fit %s", i, prism_op_kind_to_string (op->kind), target->display_name);
          return FALSE;
        }
      for (guint j = 0; j < n; j++)
        {
          c[j].n_launches = 1;
          if (costs != NULL)
            g_array_append_val (costs, c[j]);
          out->total_us += c[j].us;
          out->n_launches++;
          out->memory_us += MAX (c[j].memory_us, c[j].l2_us);
          out->compute_us += c[j].compute_us;
          out->latency_us += c[j].latency_us;
          out->launch_us += c[j].launch_us;
        }
    }
  out->physics_us = prism_cost_model_physics_us (target, graph);
  return TRUE;
}

gboolean
prism_cost_model_predict (const PrismGpuTarget *target, const PrismGraph *graph, const gint64 *values,
                          guint n_values, PrismCostEstimate *out, GError **error)
{
  return predict (target, graph, values, n_values, PRISM_BASELINE_LOWERED, NULL, out, error);
}

gboolean
prism_cost_model_predict_launches (const PrismGpuTarget *target, const PrismGraph *graph,
                                   const gint64 *values, guint n_values, PrismBaselineKind kind,
                                   GArray *costs, PrismCostEstimate *out, GError **error)
{
  return predict (target, graph, values, n_values, kind, costs, out, error);
}

gboolean
prism_cost_model_predict_baseline (const PrismGpuTarget *target, const PrismGraph *program,
                                   PrismBaselineKind kind, PrismCostEstimate *out, GError **error)
{
  return predict (target, program, NULL, 0, kind, NULL, out, error);
}

double
prism_cost_model_physics_us (const PrismGpuTarget *target, const PrismGraph *graph)
{
  double bytes = 0, tensor = 0, fp32 = 0;

  for (guint i = 0; i < graph->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (graph, i);
      const PrismTensor *t;

      if (op->kind == PRISM_OP_INPUT || op->kind == PRISM_OP_OUTPUT)
        {
          gint64 shape[PRISM_MAX_DIMS];
          t = prism_graph_tensor (graph, op->kind == PRISM_OP_INPUT ? op->outputs[0] : op->inputs[0]);
          if (!prism_tensor_get_shape (t, shape))
            return -1;
          bytes += (double) prism_tensor_numel (t) * prism_dtype_size (t->dtype);
        }
      else if (op->kind == PRISM_OP_MATMUL)
        {
          const PrismTensor *a = prism_graph_tensor (graph, op->inputs[0]);
          const PrismTensor *c = prism_graph_tensor (graph, op->outputs[0]);
          double f = 2.0 * (double) prism_tensor_numel (c) * (double) prism_dim_get_const (a->dims[a->ndims - 1]);
          if (a->dtype == PRISM_DTYPE_F32)
            fp32 += f;
          else
            tensor += f;
        }
    }
  return MAX (bytes_us (bytes, target->dram_gbs), flops_us (tensor, target->tensor_tflops) +
                                                  flops_us (fp32, target->fp32_tflops));
}
