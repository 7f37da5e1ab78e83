/* test-launch-plan.c — one launch plan: the emitter's launches, their
 * reports, and the cost model that prices them
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "codegen-cases.h"
#include "prism-cost-model.h"
#include "prism-cuda-emitter.h"
#include "prism-error.h"
#include "prism-gpu-target.h"
#include "prism-graph-json.h"
#include "prism-kernel-plan.h"
#include "prism-lower.h"
#include "prism-results.h"
#include "prism-workload.h"

static GPtrArray *cases;

/* Every built-in workload at its default shapes and at shapes that are not
 * powers of two, unfused and fused. */
static GPtrArray *
default_programs (void)
{
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) prism_graph_unref);
  const char *odd[] = { "rms_norm:n=7,d=3000", "swiglu:n=12,d=768", "rmsnorm_mlp:n=3,d=2048",
                        "attention:b=1,h=4,q=1,kv=1000,dh=64", NULL };
  guint n = 0;
  const PrismWorkloadInfo *list = prism_workload_list (&n);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GError) error = NULL;
      PrismGraph *g = prism_workload_build (list[i].name, NULL, &error);

      g_assert_no_error (error);
      g_ptr_array_add (out, g);
      if (list[i].has_reference)
        {
          g = prism_workload_build_reference (list[i].name, NULL, &error);
          g_assert_no_error (error);
          g_ptr_array_add (out, g);
        }
    }
  for (guint i = 0; odd[i] != NULL; i++)
    {
      g_auto(GStrv) parts = g_strsplit (odd[i], ":", 2);
      g_autoptr(GError) error = NULL;
      PrismGraph *g = prism_workload_build (parts[0], parts[1], &error);

      g_assert_no_error (error);
      g_ptr_array_add (out, g);
    }
  return out;
}

/* The cost model prices exactly the launches the emitter makes: the same
 * count, and for each, the cost of the emitter's own account. */
static void
test_emitter_and_model_agree (void)
{
  guint n_targets = 0;
  const PrismGpuTarget * const *targets = prism_gpu_target_list (&n_targets);

  for (guint t = 0; t < n_targets; t++)
    for (guint i = 0; i < cases->len; i++)
      {
        const CodegenCase *c = g_ptr_array_index (cases, i);
        PrismCudaOptions o = { .target = targets[t] };
        g_autoptr(GError) error = NULL;
        g_autoptr(PrismCudaEmitter) e = prism_cuda_emitter_new (c->graph, &o, &error);
        g_autoptr(GArray) costs = g_array_new (FALSE, TRUE, sizeof (PrismOpCost));
        PrismCostEstimate est;
        double sum = 0;

        if (e == NULL && g_error_matches (error, PRISM_ERROR, PRISM_ERROR_LIMIT))
          continue;   /* more shared memory than this target has */
        g_assert_no_error (error);
        g_assert_true (prism_cost_model_predict_launches (targets[t], c->graph, NULL, 0, PRISM_BASELINE_LOWERED,
                                                          costs, &est, &error));
        g_assert_no_error (error);
        if (est.n_launches != prism_cuda_emitter_get_n_kernels (e))
          g_error ("%s on %s: the model prices %u launches, the emitter makes %u", c->label, targets[t]->name,
                   est.n_launches, prism_cuda_emitter_get_n_kernels (e));
        /* The count plans for the default target (split-K and combine
         * kernels follow the SM count). */
        if (targets[t] == prism_gpu_target_default ())
          g_assert_cmpuint (est.n_launches, ==, prism_cost_model_count_launches (c->graph));
        for (guint k = 0; k < prism_cuda_emitter_get_n_kernels (e); k++)
          {
            const PrismCudaKernel *kernel = prism_cuda_emitter_get_kernel (e, k);
            const PrismOpCost *mc = &g_array_index (costs, PrismOpCost, k);
            PrismOpCost ec;

            prism_cost_model_launch (targets[t], &kernel->launch, &ec);
            sum += ec.us;
            /* The same plan: grid, ring, shared memory, occupancy, work. */
            g_assert_cmpuint (kernel->launch.grid[0], ==, mc->launch.grid[0]);
            g_assert_cmpuint (kernel->launch.stages, ==, mc->launch.stages);
            g_assert_cmpuint (kernel->launch.smem_bytes, ==, mc->launch.smem_bytes);
            g_assert_cmpuint (kernel->launch.work_warps, ==, mc->launch.work_warps);
            g_assert_cmpfloat (fabs (kernel->launch.dram_bytes - mc->launch.dram_bytes), <, 1);
          }
        g_assert_cmpfloat (fabs (sum - est.total_us), <, 1e-6 * est.total_us);
      }
}

/* A launch's predicted time is its terms put together as docs/cost-model.md
 * says (the Kernel page shows them side by side): the launch gap plus the
 * largest of DRAM, L2, compute and latency; for a cuBLASLt GEMM, at least
 * its shortest time.  The graph's prediction is the sum over the launches,
 * and its components the sums of theirs. */
static void
test_terms_compose (void)
{
  guint n_targets = 0;
  const PrismGpuTarget * const *targets = prism_gpu_target_list (&n_targets);
  guint vendor_launches = 0, block_launches = 0;

  for (guint t = 0; t < n_targets; t++)
    for (guint i = 0; i < cases->len; i++)
      for (guint kind = 0; kind < 2; kind++)
        {
          const CodegenCase *c = g_ptr_array_index (cases, i);
          g_autoptr(GArray) costs = g_array_new (FALSE, TRUE, sizeof (PrismOpCost));
          g_autoptr(GError) error = NULL;
          PrismCostEstimate est;
          double total = 0, memory = 0, compute = 0, latency = 0, launch = 0;

          if (!prism_cost_model_predict_launches (targets[t], c->graph, NULL, 0,
                                                  kind == 0 ? PRISM_BASELINE_LOWERED : PRISM_BASELINE_VENDOR,
                                                  costs, &est, &error))
            continue;   /* does not fit this target */
          g_assert_cmpuint (costs->len, ==, est.n_launches);
          for (guint k = 0; k < costs->len; k++)
            {
              const PrismOpCost *oc = &g_array_index (costs, PrismOpCost, k);
              double expected;

              g_assert_cmpfloat (oc->launch_us, ==, targets[t]->launch_us);
              g_assert_cmpfloat (oc->memory_us, >=, 0);
              g_assert_cmpfloat (oc->l2_us, >=, 0);
              g_assert_cmpfloat (oc->compute_us, >=, 0);
              g_assert_cmpfloat (oc->latency_us, >=, 0);
              if (oc->launch.role == PRISM_LAUNCH_VENDOR_GEMM)
                {
                  /* cuBLASLt is priced by bandwidth and rate alone. */
                  g_assert_cmpfloat (oc->l2_us, ==, 0);
                  g_assert_cmpfloat (oc->latency_us, ==, 0);
                  expected = MAX (targets[t]->vendor_gemm_min_us,
                                  oc->launch_us + MAX (oc->memory_us, oc->compute_us));
                  vendor_launches++;
                }
              else
                {
                  expected = oc->launch_us + MAX (MAX (oc->memory_us, oc->l2_us), MAX (oc->compute_us, oc->latency_us));
                  block_launches++;
                }
              if (fabs (oc->us - expected) > 1e-9 * expected)
                g_error ("%s on %s, launch %u: %.6f µs predicted, its terms make %.6f µs", c->label,
                         targets[t]->name, k, oc->us, expected);
              total += oc->us;
              memory += MAX (oc->memory_us, oc->l2_us);
              compute += oc->compute_us;
              latency += oc->latency_us;
              launch += oc->launch_us;
            }
          g_assert_cmpfloat (fabs (total - est.total_us), <=, 1e-9 * est.total_us);
          g_assert_cmpfloat (fabs (memory - est.memory_us), <=, 1e-9 * MAX (est.memory_us, 1e-9));
          g_assert_cmpfloat (fabs (compute - est.compute_us), <=, 1e-9 * MAX (est.compute_us, 1e-9));
          g_assert_cmpfloat (fabs (latency - est.latency_us), <=, 1e-9 * MAX (est.latency_us, 1e-9));
          g_assert_cmpfloat (fabs (launch - est.launch_us), <=, 1e-9 * est.launch_us);
        }
  /* Both kinds of launch were seen. */
  g_assert_cmpuint (vendor_launches, >, 0);
  g_assert_cmpuint (block_launches, >, 0);

  /* Each term can set the time: a launch made to be bound by it. */
  for (guint term = 0; term < 4; term++)
    {
      const PrismGpuTarget *target = prism_gpu_target_default ();
      PrismLaunch l = {
        .role = PRISM_LAUNCH_BLOCK_GRAPH, .grid = { 4 * target->sm_count, 1, 1 }, .block_threads = 128,
        .loop_iterations = 1, .stages = 1, .blocks_per_sm = 4, .occupancy = 4, .bytes_in_flight_per_sm = 32768,
        .warps = 4, .work_warps = 4, .mma = PRISM_MMA_WMMA,
        .dram_bytes = 1e6, .l2_bytes = 1e6, .tensor_flops = 1e6,
      };
      PrismOpCost oc;
      double terms[4];

      switch (term)
        {
        case 0: l.dram_bytes = 1e10; break;
        case 1: l.l2_bytes = 1e11; break;
        case 2: l.tensor_flops = 1e14; break;
        default: l.loop_iterations = 1000000; l.sync_bytes = 1024; break;
        }
      prism_cost_model_launch (target, &l, &oc);
      terms[0] = oc.memory_us;
      terms[1] = oc.l2_us;
      terms[2] = oc.compute_us;
      terms[3] = oc.latency_us;
      for (guint other = 0; other < 4; other++)
        if (other != term)
          g_assert_cmpfloat (terms[term], >, terms[other]);
      g_assert_cmpfloat (fabs (oc.us - (oc.launch_us + terms[term])), <=, 1e-9 * oc.us);
    }
}

/* No prediction beats physics: the inputs and outputs once over the DRAM
 * bandwidth, the program's matmul FLOPs over the peak — for the unfused
 * programs under both baselines, the fused references, every candidate of
 * the stored search results, on every target. */
static void
test_physics (void)
{
  g_autoptr(GPtrArray) programs = default_programs ();
  guint n_targets = 0, checked = 0;
  const PrismGpuTarget * const *targets = prism_gpu_target_list (&n_targets);

  for (guint t = 0; t < n_targets; t++)
    {
      for (guint i = 0; i < programs->len; i++)
        for (guint k = 0; k < 2; k++)
          {
            const PrismGraph *g = g_ptr_array_index (programs, i);
            PrismCostEstimate est;
            g_autoptr(GError) error = NULL;
            double bound = prism_cost_model_physics_us (targets[t], g);

            if (!prism_cost_model_predict_baseline (targets[t], g, k ? PRISM_BASELINE_LOWERED : PRISM_BASELINE_VENDOR,
                                                    &est, &error))
              {
                g_assert_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED);   /* does not fit */
                continue;
              }
            g_assert_cmpfloat (bound, >, 0);
            if (!(est.total_us >= bound))
              g_error ("%s on %s: predicted %.3f µs beats physics (%.3f µs)", g->name, targets[t]->name,
                       est.total_us, bound);
            g_assert_cmpfloat (est.physics_us, ==, bound);
            checked++;
          }
      for (guint i = 0; i < cases->len; i++)
        {
          const CodegenCase *c = g_ptr_array_index (cases, i);
          PrismCostEstimate est;

          if (!prism_cost_model_predict (targets[t], c->graph, NULL, 0, &est, NULL))
            continue;
          g_assert_cmpfloat (est.total_us, >=, est.physics_us);
          checked++;
        }
    }
  g_assert_cmpuint (checked, >, 50);
}

/* Candidates of a search, predicted at their best sizes, respect the
 * physics of the program they are equivalent to. */
static void
test_physics_candidates (void)
{
  const char *files[] = { "search-rms_norm.json", "search-rmsnorm_mlp.json", "search-attention.json" };
  const char *src = g_getenv ("PRISM_SOURCE_DIR") ? g_getenv ("PRISM_SOURCE_DIR") : PRISM_SOURCE_DIR;

  for (guint f = 0; f < G_N_ELEMENTS (files); f++)
    {
      g_autofree char *path = g_build_filename (src, "tests", "codegen", "graphs", files[f], NULL);
      g_autoptr(GError) error = NULL;
      g_autoptr(PrismResults) r = prism_results_load (path, &error);
      PrismGraph *program;
      const PrismGpuTarget *target;
      GPtrArray *cands;
      double bound;

      g_assert_no_error (error);
      program = prism_results_get_program (r);
      target = prism_gpu_target_lookup (prism_results_get_target (r));
      g_assert_nonnull (target);
      bound = prism_cost_model_physics_us (target, program);
      cands = prism_results_get_candidates (r);
      for (guint i = 0; i < cands->len; i++)
        {
          const PrismCandidate *c = g_ptr_array_index (cands, i);
          PrismCostEstimate est;

          if (!prism_cost_model_predict (target, c->graph, c->values, c->n_values, &est, NULL))
            continue;
          g_assert_cmpfloat (est.total_us, >=, bound);
        }
    }
}

/* A lowered matmul of an unfused program runs on enough blocks to use the
 * GPU: at least 128, split-K where the output has few tiles.  Matmuls whose
 * operands are under 1 MiB (lora's 16 × 16 × 256 adapter) are exempt: 128
 * blocks would each get a few KiB, less than one launch's worth of work. */
static void
test_lowered_matmul_blocks (void)
{
  g_autoptr(GPtrArray) programs = default_programs ();

  for (guint i = 0; i < programs->len; i++)
    {
      const PrismGraph *g = g_ptr_array_index (programs, i);
      g_autoptr(PrismGraph) low = prism_lower_predefined_ops (g, NULL);

      for (guint k = 0; low != NULL && k < g->ops->len; k++)
        {
          const PrismOp *op = prism_graph_op (g, k);
          g_autoptr(PrismGraph) body = NULL;
          g_autoptr(PrismKernelPlan) plan = NULL;
          g_autoptr(GError) error = NULL;
          PrismLaunch l;
          gint64 blocks;

          if (op->kind != PRISM_OP_MATMUL)
            continue;
          body = prism_lower_op (g, k, NULL, &error);
          g_assert_no_error (error);
          plan = prism_kernel_plan_new (body, NULL, 0, NULL, &error);
          g_assert_no_error (error);
          prism_kernel_plan_describe (plan, &l);
          blocks = (gint64) l.grid[0] * l.grid[1] * l.grid[2];
          if (l.dram_bytes < 1024 * 1024)
            continue;
          if (blocks < 128)
            g_error ("%s op %u: the lowered matmul runs on %" G_GINT64_FORMAT " blocks", g->name, k, blocks);
          /* Every warp works on the tensor cores. */
          if (l.mma == PRISM_MMA_WMMA)
            g_assert_cmpuint (l.work_warps, ==, l.warps);
        }
    }
}

/* A block graph: a [M, K] · [K, N] matmul over a loop of @forloop with the
 * grid splitting N into @gx tiles, accumulated, with f16 operands. */
static PrismGraph *
matmul_body (gint64 m, gint64 k, gint64 n, gint64 gx, gint64 forloop)
{
  gint64 grid[1] = { gx };
  gint64 adims[2] = { m, k }, bdims[2] = { k, n };
  g_autoptr(PrismGraph) body = prism_block_graph_new_const (1, grid, 128, forloop);
  PrismDim *ad[2] = { prism_dim_const (adims[0]), prism_dim_const (adims[1]) };
  PrismDim *bd[2] = { prism_dim_const (bdims[0]), prism_dim_const (bdims[1]) };
  int amap[3] = { -1, -1, -1 }, bmap[3] = { 1, -1, -1 }, omap[3] = { 1, -1, -1 };
  guint in[2];
  int a, b, mm, acc;

  a = prism_block_graph_add_input (body, 0, 2, ad, PRISM_DTYPE_F16, amap, 1, NULL);
  b = prism_block_graph_add_input (body, 1, 2, bd, PRISM_DTYPE_F16, bmap, 0, NULL);
  g_assert_cmpint (a, >=, 0);
  g_assert_cmpint (b, >=, 0);
  in[0] = (guint) a;
  in[1] = (guint) b;
  mm = prism_graph_add (body, PRISM_OP_MATMUL, in, 2, NULL, NULL);
  in[0] = (guint) mm;
  acc = prism_graph_add (body, PRISM_OP_ACCUM, in, 1, NULL, NULL);
  g_assert_cmpint (acc, >=, 0);
  g_assert_cmpint (prism_block_graph_add_output (body, (guint) acc, omap, NULL), >=, 0);
  for (guint i = 0; i < 2; i++)
    {
      prism_dim_unref (ad[i]);
      prism_dim_unref (bd[i]);
    }
  return g_steal_pointer (&body);
}

/* The ring deepens until the resident blocks keep the goal in flight, and
 * falls back (and says so) when shared memory runs out. */
static void
test_ring_depth (void)
{
  /* 8 × 4096 · 4096 × 4096, 64 blocks of 64 columns, 64-deep K tiles: few
   * blocks per SM, so a deeper ring is what keeps bytes in flight. */
  g_autoptr(PrismGraph) body = matmul_body (8, 4096, 4096, 64, 64);
  PrismKernelPlanOptions o = { .target = prism_gpu_target_lookup ("h100") };
  g_autoptr(PrismKernelPlan) plan = prism_kernel_plan_new (body, NULL, 0, &o, NULL);
  g_autoptr(PrismKernelPlan) tight = NULL;
  g_autoptr(PrismKernelPlan) none = NULL;
  g_autoptr(GError) error = NULL;
  PrismLaunch l;

  g_assert_nonnull (plan);
  prism_kernel_plan_describe (plan, &l);
  g_assert_cmpuint (l.stages, >=, 3);
  g_assert_cmpuint (l.bytes_in_flight_per_sm, >=, PRISM_PIPELINE_GOAL_BYTES);
  g_assert_cmpuint (l.stage_bytes, ==, (8 * 64 + 64 * 64) * 2);
  g_assert_cmpuint (l.blocks_per_sm, ==, 1);
  g_assert_false (l.smem_limited);
  /* Two 8×64 fragments of 8×32, four warps: K splits in two, every warp works. */
  g_assert_cmpint (l.mma, ==, PRISM_MMA_WMMA);
  g_assert_cmpuint (l.work_warps, ==, 4);

  /* Room for two stages only: fewer stages, flagged. */
  {
    PrismKernelPlanOptions two = o;
    g_autoptr(PrismKernelPlan) p2 = NULL;
    gsize two_stages;

    two.max_stages = 2;
    p2 = prism_kernel_plan_new (body, NULL, 0, &two, NULL);
    prism_kernel_plan_describe (p2, &l);
    two_stages = l.smem_bytes;
    o.smem_limit = two_stages + 1024;   /* the runtime headers' reserve */
    tight = prism_kernel_plan_new (body, NULL, 0, &o, &error);
    g_assert_no_error (error);
    prism_kernel_plan_describe (tight, &l);
    g_assert_cmpuint (l.stages, ==, 2);
    g_assert_true (l.smem_limited);

    /* Not even two: synchronous loads, still flagged; less than that: refused. */
    o.smem_limit = two_stages + 1023;
    none = prism_kernel_plan_new (body, NULL, 0, &o, &error);
    g_assert_no_error (error);
    prism_kernel_plan_describe (none, &l);
    g_assert_cmpuint (l.stages, ==, 1);
    g_assert_true (l.smem_limited);
    g_assert_cmpuint (l.sync_bytes, >, 0);
    o.smem_limit = 1024;
    g_assert_null (prism_kernel_plan_new (body, NULL, 0, &o, &error));
    g_assert_error (error, PRISM_ERROR, PRISM_ERROR_LIMIT);
  }
}


/* A kernel that keeps one block per SM anyway deepens its ring into the
 * SM's shared memory (227 KiB on the H100) instead of stopping at 96 KiB:
 * 64 × 4096 · 4096 × 4096 on 16 blocks, 16-deep K tiles of 10 KiB a stage,
 * was held at 2 stages (10 KiB in flight, flagged) by the 96 KiB budget. */
static void
test_ring_one_block_per_sm (void)
{
  g_autoptr(PrismGraph) body = matmul_body (64, 4096, 4096, 16, 256);
  PrismKernelPlanOptions o = { .target = prism_gpu_target_lookup ("h100") };
  g_autoptr(PrismKernelPlan) plan = prism_kernel_plan_new (body, NULL, 0, &o, NULL);
  g_autoptr(PrismKernelPlan) many = NULL;
  PrismLaunch l;

  g_assert_nonnull (plan);
  prism_kernel_plan_describe (plan, &l);
  g_assert_cmpuint (l.blocks_per_sm, ==, 1);
  g_assert_cmpuint (l.stage_bytes, ==, (64 * 16 + 16 * 256) * 2);
  g_assert_cmpuint (l.stages, >, 2);
  g_assert_cmpuint (l.smem_bytes, >, 96 * 1024);
  g_assert_cmpuint (l.smem_bytes + 1024, <=, 227 * 1024);
  g_assert_cmpuint (l.bytes_in_flight_per_sm, >=, PRISM_PIPELINE_GOAL_BYTES);
  g_assert_false (l.smem_limited);

  /* A caller's lower limit (the size tuner's 96 KiB) still bounds the ring. */
  o.smem_limit = 96 * 1024;
  many = prism_kernel_plan_new (body, NULL, 0, &o, NULL);
  g_assert_nonnull (many);
  prism_kernel_plan_describe (many, &l);
  g_assert_cmpuint (l.smem_bytes + 1024, <=, 96 * 1024);
}

/* Synchronous tile loads keep a batch of 8 vectors of 16 bytes per thread
 * in flight (load_tile() issues them before storing), not the whole tile:
 * 128 × 4096 · 4096 × 4096 on 16 blocks, 64-deep K tiles, too large for a
 * ring, loads 48 KiB per iteration synchronously; the report used to claim
 * all 48 KiB in flight. */
static void
test_sync_inflight (void)
{
  g_autoptr(PrismGraph) body = matmul_body (128, 4096, 4096, 16, 64);
  PrismKernelPlanOptions o = { .target = prism_gpu_target_lookup ("h100") };
  g_autoptr(PrismKernelPlan) plan = prism_kernel_plan_new (body, NULL, 0, &o, NULL);
  PrismLaunch l;

  g_assert_nonnull (plan);
  prism_kernel_plan_describe (plan, &l);
  g_assert_cmpuint (l.stages, ==, 1);
  g_assert_cmpuint (l.sync_bytes, ==, (128 * 64 + 64 * 256) * 2);
  g_assert_cmpuint (l.bytes_in_flight_per_block, ==, l.block_threads * 8 * 16);
  g_assert_cmpuint (l.bytes_in_flight_per_sm, ==, l.blocks_per_sm * l.block_threads * 8 * 16);
}

/* Tiles only tensor-core matmuls read get rows padded by 16 bytes (rows of
 * 128 bytes would put ldmatrix's eight rows in one bank group); the CPU
 * build of the padded layout still computes the right product. */
static void
test_padded_operands (void)
{
  g_autoptr(PrismGraph) body = matmul_body (8, 4096, 4096, 64, 64);
  g_autoptr(PrismGraph) g = prism_graph_new ();
  gint64 xd[2] = { 8, 4096 }, wd[2] = { 4096, 4096 };
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismCudaEmitter) e = NULL;
  guint in[2];
  int x, w, k;
  const char *src;

  x = prism_graph_add_input (g, "X", 2, xd, PRISM_DTYPE_F16, &error);
  w = prism_graph_add_input (g, "W", 2, wd, PRISM_DTYPE_F16, &error);
  in[0] = (guint) x;
  in[1] = (guint) w;
  k = prism_graph_add_kernel (g, in, 2, body, &error);
  g_assert_no_error (error);
  g_assert_cmpint (prism_graph_add_output (g, prism_graph_op (g, (guint) k)->outputs[0], "O", &error), >=, 0);
  e = prism_cuda_emitter_new (g, NULL, &error);
  g_assert_no_error (error);
  src = prism_cuda_emitter_get_source (e);
  /* A [8, 64] and B [64, 64] tiles: pitch 72; the accumulator stays dense. */
  g_assert_nonnull (strstr (src, "prism::Shape<1, 1, 8, 64, 72>"));
  g_assert_nonnull (strstr (src, "prism::Shape<1, 1, 64, 64, 72>"));
  g_assert_nonnull (strstr (src, ", 72, 72> acc"));
}

/* Symbolic sizes are planned at the values given, and refused without. */
static void
test_symbolic (void)
{
  g_autoptr(PrismGraph) body = matmul_body (8, 4096, 4096, 64, 64);
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismKernelPlan) plan = NULL;
  const PrismGraph *sym;
  g_autoptr(PrismGraph) g = NULL;

  /* A searched candidate with symbolic grids from the stored results. */
  {
    const char *src = g_getenv ("PRISM_SOURCE_DIR") ? g_getenv ("PRISM_SOURCE_DIR") : PRISM_SOURCE_DIR;
    g_autofree char *path = g_build_filename (src, "tests", "codegen", "graphs", "search-rms_norm.json", NULL);
    g_autoptr(PrismResults) r = prism_results_load (path, &error);
    const PrismCandidate *c;

    g_assert_no_error (error);
    c = g_ptr_array_index (prism_results_get_candidates (r), 0);
    g = prism_graph_ref (c->graph);
    for (guint i = 0; i < g->ops->len; i++)
      if (prism_graph_op (g, i)->kind == PRISM_OP_KERNEL)
        {
          PrismLaunch l;

          sym = prism_graph_op (g, i)->body;
          g_assert_null (prism_kernel_plan_new (sym, NULL, 0, NULL, &error));
          g_assert_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED);
          g_clear_error (&error);
          plan = prism_kernel_plan_new (sym, c->values, c->n_values, NULL, &error);
          g_assert_no_error (error);
          prism_kernel_plan_describe (plan, &l);
          g_assert_cmpuint (l.grid[0] * l.grid[1] * l.grid[2], >, 0);
          g_clear_pointer (&plan, prism_kernel_plan_free);
        }
  }
  (void) body;
}

/* The manifest carries every report field for every launch. */
static void
test_manifest_report (void)
{
  static const char *const fields[] = {
    "loop_iterations", "stages", "blocks_per_sm", "bytes_in_flight_per_sm", "work_warps", "mma",
    "registers", "spill_bytes",
  };

  for (guint i = 0; i < cases->len; i++)
    {
      const CodegenCase *c = g_ptr_array_index (cases, i);
      g_autoptr(PrismCudaEmitter) e = prism_cuda_emitter_new (c->graph, NULL, NULL);
      g_autoptr(JsonNode) m = NULL;
      JsonArray *kernels;

      if (e == NULL)
        continue;
      m = prism_cuda_emitter_build_manifest (e, "x.cu", "x.h");
      kernels = json_object_get_array_member (json_node_get_object (m), "kernels");
      for (guint k = 0; k < json_array_get_length (kernels); k++)
        {
          JsonObject *ko = json_array_get_object_element (kernels, k);
          JsonObject *report = json_object_get_object_member (ko, "report");
          const char *role = json_object_get_string_member (ko, "role");

          g_assert_true (g_str_equal (role, "block_graph") || g_str_equal (role, "vendor_gemm"));
          for (guint f = 0; f < G_N_ELEMENTS (fields); f++)
            if (!json_object_has_member (report, fields[f]))
              g_error ("%s kernel %u: no report field %s", c->label, k, fields[f]);
          g_assert_cmpint (json_object_get_int_member (report, "stages"), >=, 1);
          g_assert_cmpint (json_object_get_int_member (report, "work_warps"), >=, 1);
        }
    }
}

/* The vendor baseline leaves predefined matmuls to cuBLASLt: one launch
 * each, no source, A, B, C in the manifest; the CPU build still runs it. */
static void
test_vendor_launches (void)
{
  g_autoptr(PrismGraph) g = prism_workload_build ("rms_norm", codegen_test_params ("rms_norm"), NULL);
  PrismCudaOptions o = { .vendor_matmul = TRUE };
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismCudaEmitter) e = prism_cuda_emitter_new (g, &o, &error);
  g_autoptr(JsonNode) m = NULL;
  JsonObject *k1, *gemm;
  PrismCostEstimate est;

  g_assert_no_error (error);
  g_assert_cmpuint (prism_cuda_emitter_get_n_kernels (e), ==, 2);
  g_assert_cmpint (prism_cuda_emitter_get_kernel (e, 1)->role, ==, PRISM_LAUNCH_VENDOR_GEMM);
  g_assert_null (prism_cuda_emitter_get_kernel (e, 1)->source);
  g_assert_nonnull (strstr (prism_cuda_emitter_get_host_source (e), "PRISM_VENDOR_GEMM"));
  m = prism_cuda_emitter_build_manifest (e, "x.cu", "x.h");
  k1 = json_array_get_object_element (json_object_get_array_member (json_node_get_object (m), "kernels"), 1);
  g_assert_cmpstr (json_object_get_string_member (k1, "role"), ==, "vendor_gemm");
  gemm = json_object_get_object_member (k1, "gemm");
  g_assert_cmpint (json_object_get_int_member (gemm, "k"), ==,
                   prism_dim_get_const (prism_graph_tensor (g, 1)->dims[0]));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (k1, "args")), ==, 3);
  /* The vendor baseline's prediction prices the matmul as cuBLASLt. */
  g_assert_true (prism_cost_model_predict_baseline (prism_gpu_target_default (), g, PRISM_BASELINE_VENDOR, &est,
                                                    NULL));
  g_assert_cmpuint (est.n_launches, ==, 2);
}

int
main (int argc, char **argv)
{
  int rc;

  g_test_init (&argc, &argv, NULL);
  cases = codegen_cases_load ();
  g_assert_cmpuint (cases->len, >, 20);
  g_test_add_func ("/launch-plan/emitter-and-model-agree", test_emitter_and_model_agree);
  g_test_add_func ("/launch-plan/terms-compose", test_terms_compose);
  g_test_add_func ("/launch-plan/physics", test_physics);
  g_test_add_func ("/launch-plan/physics-candidates", test_physics_candidates);
  g_test_add_func ("/launch-plan/lowered-matmul-blocks", test_lowered_matmul_blocks);
  g_test_add_func ("/launch-plan/ring-depth", test_ring_depth);
  g_test_add_func ("/launch-plan/ring-one-block-per-sm", test_ring_one_block_per_sm);
  g_test_add_func ("/launch-plan/sync-inflight", test_sync_inflight);
  g_test_add_func ("/launch-plan/symbolic", test_symbolic);
  g_test_add_func ("/launch-plan/padded-operands", test_padded_operands);
  g_test_add_func ("/launch-plan/manifest-report", test_manifest_report);
  g_test_add_func ("/launch-plan/vendor-launches", test_vendor_launches);
  rc = g_test_run ();
  g_ptr_array_unref (cases);
  return rc;
}
