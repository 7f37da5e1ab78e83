/* test-template-figures.c — the launch plan's account of what each device
 * template does: the busiest thread's longest dependent chain, the sector
 * efficiency of the global accesses and the narrowest phase
 * (docs/codegen.md, "The static report"), checked against figures derived
 * by hand from the templates of kernels/ in each test's comment.
 *
 * Every kernel is planned for the H100 (132 SMs) with 128-thread blocks
 * (four warps).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>

#include "prism-cost-model.h"
#include "prism-gpu-target.h"
#include "prism-graph-json.h"
#include "prism-kernel-plan.h"

/* The figures of launch @index of the first kernel of @json. */
static void
plan_launch (const char *json, guint index, guint *n_launches, PrismLaunch *out)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismGraph) g = prism_graph_load_from_data (json, -1, NULL, &error);
  const PrismGpuTarget *h100 = prism_gpu_target_lookup ("h100");
  PrismKernelPlanOptions po = { h100, 90, 0, FALSE, 0 };
  g_autoptr(PrismKernelPlan) kp = NULL;

  g_assert_no_error (error);
  g_assert_nonnull (h100);
  for (guint i = 0; i < g->ops->len; i++)
    if (prism_graph_op (g, i)->kind == PRISM_OP_KERNEL)
      {
        kp = prism_kernel_plan_new (prism_graph_op (g, i)->body, NULL, 0, &po, &error);
        break;
      }
  g_assert_no_error (error);
  g_assert_nonnull (kp);
  *n_launches = prism_kernel_plan_n_launches (kp);
  g_assert_cmpuint (index, <, *n_launches);
  prism_kernel_plan_describe_launch (kp, index, out);
}

static void
assert_efficiency (double got, double want)
{
  if (fabs (got - want) > 1e-9)
    g_error ("global sector efficiency %.9f, derived by hand %.9f", got, want);
}

/* load_tile / store_tile with 24-byte rows: an f16 tile of 64 × 12 in a
 * 64 × 48 tensor, 4 blocks along the columns.  Each row of the tile is a
 * run of 12 × 2 = 24 bytes; runs start at multiples of gcd (12, 48) × 2 =
 * 24 bytes, that is at 0, 8, 16 or 24 modulo a sector: 1, 1, 2 and 2
 * sectors, 6 for 4 × 24 useful bytes — 96 / 192 = 0.5.  The store of the
 * relu's tile has the same runs: 0.5 overall.  Elementwise work is one
 * step per element (chain 1); the one phase has all 4 blocks. */
static void
test_tile_loads (void)
{
  const char *json =
    "{\"format\": \"prism-graph\", \"version\": 1, \"name\": \"narrow_rows\", \"ops\": ["
    " {\"op\": \"input\", \"name\": \"X\", \"outputs\": [{\"id\": \"x\", \"shape\": [64, 48], \"dtype\": \"f16\"}]},"
    " {\"op\": \"kernel\", \"inputs\": [\"x\"], \"outputs\": [\"y\"], \"block\": {\"grid\": [4], \"forloop\": 1, \"ops\": ["
    "   {\"op\": \"input\", \"input\": 0, \"imap\": [1], \"fmap\": -1, \"outputs\": [\"xt\"]},"
    "   {\"op\": \"relu\", \"inputs\": [\"xt\"], \"outputs\": [\"r\"]},"
    "   {\"op\": \"accum\", \"inputs\": [\"r\"], \"outputs\": [\"a\"]},"
    "   {\"op\": \"output\", \"inputs\": [\"a\"], \"omap\": [1]}]}},"
    " {\"op\": \"output\", \"name\": \"Y\", \"inputs\": [\"y\"]}]}";
  PrismLaunch l;
  guint n;

  plan_launch (json, 0, &n, &l);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpint (l.longest_thread_chain, ==, 1);
  g_assert_cmpint (l.fewest_active_blocks, ==, 4);
  assert_efficiency (l.global_sector_efficiency, 0.5);
}

/* for_each_row_sum (reduce_sum along the last dim): tiles of 2 × 1000 f32
 * rows of a 64 × 1000 tensor, 32 blocks.  Two rows for four warps: each
 * row is split over 4 / 2 = 2 warps, a lane adds ⌈1000 / 64⌉ = 16
 * elements into four accumulators (4 steps each) and joins them (2), then
 * 5 shuffle steps, then one lane adds the 2 warps' sums: 4 + 2 + 5 + 2 =
 * 13 steps.  The tile is one run of 8000 bytes (whole rows)
 * starting at multiples of 8000 bytes, aligned: 250 sectors, all used.
 * The 2 × 1 output is a run of 8 bytes at multiples of 8: one sector for 8
 * bytes, 0.25.  32 blocks load 8000 and store 8 bytes each:
 * (256000 + 256) / (256000 + 1024). */
static void
test_row_reduction (void)
{
  const char *json =
    "{\"format\": \"prism-graph\", \"version\": 1, \"name\": \"row_sums\", \"ops\": ["
    " {\"op\": \"input\", \"name\": \"X\", \"outputs\": [{\"id\": \"x\", \"shape\": [64, 1000], \"dtype\": \"f32\"}]},"
    " {\"op\": \"kernel\", \"inputs\": [\"x\"], \"outputs\": [\"y\"], \"block\": {\"grid\": [32], \"forloop\": 1, \"ops\": ["
    "   {\"op\": \"input\", \"input\": 0, \"imap\": [0], \"fmap\": -1, \"outputs\": [\"xt\"]},"
    "   {\"op\": \"sum\", \"dim\": 1, \"inputs\": [\"xt\"], \"outputs\": [\"s\"]},"
    "   {\"op\": \"accum\", \"inputs\": [\"s\"], \"outputs\": [\"a\"]},"
    "   {\"op\": \"output\", \"inputs\": [\"a\"], \"omap\": [0]}]}},"
    " {\"op\": \"output\", \"name\": \"Y\", \"inputs\": [\"y\"]}]}";
  PrismLaunch l;
  guint n;

  plan_launch (json, 0, &n, &l);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpint (l.longest_thread_chain, ==, 13);
  g_assert_cmpint (l.fewest_active_blocks, ==, 32);
  assert_efficiency (l.global_sector_efficiency, 256256.0 / 257024.0);
}

/* store_partial + arrive_last + reduce_partials (the last block's form):
 * column sums of a 64 × 512 f32 tensor, blocks of 16 × 64 — grid 4 along
 * the rows, summed (omap −1), × 8 along the columns.  The partials of a
 * tile, 4 splits × 1 × 64 × 4 bytes = 1 KiB, are far under
 * PRISM_COMBINE_MIN_BYTES: one launch, and the last block of each of the 8
 * tiles adds them, so the narrowest phase has 8 blocks of the 32 and each
 * thread's chain there is the 4 splits.  The sum along dim 0 has 64
 * outputs for 128 threads: two lanes an output, each 8 of the 16 rows,
 * then one shuffle — 9 steps, the longest.  Every access is
 * whole sectors: the input's rows are 256-byte runs at multiples of 256,
 * the partials 256-byte dense tiles, the output 256-byte runs. */
static void
test_last_block_sum (void)
{
  const char *json =
    "{\"format\": \"prism-graph\", \"version\": 1, \"name\": \"column_sums\", \"ops\": ["
    " {\"op\": \"input\", \"name\": \"X\", \"outputs\": [{\"id\": \"x\", \"shape\": [64, 512], \"dtype\": \"f32\"}]},"
    " {\"op\": \"kernel\", \"inputs\": [\"x\"], \"outputs\": [\"y\"], \"block\": {\"grid\": [4, 8], \"forloop\": 1, \"ops\": ["
    "   {\"op\": \"input\", \"input\": 0, \"imap\": [0, 1], \"fmap\": -1, \"outputs\": [\"xt\"]},"
    "   {\"op\": \"sum\", \"dim\": 0, \"inputs\": [\"xt\"], \"outputs\": [\"s\"]},"
    "   {\"op\": \"accum\", \"inputs\": [\"s\"], \"outputs\": [\"a\"]},"
    "   {\"op\": \"output\", \"inputs\": [\"a\"], \"omap\": [-1, 1]}]}},"
    " {\"op\": \"output\", \"name\": \"Y\", \"inputs\": [\"y\"]}]}";
  PrismLaunch l;
  guint n;

  plan_launch (json, 0, &n, &l);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpint (l.longest_thread_chain, ==, 9);
  g_assert_cmpint (l.fewest_active_blocks, ==, 8);
  g_assert_cmpfloat (l.narrow_phase_bytes, ==, 4 * 64 * 4);
  assert_efficiency (l.global_sector_efficiency, 1.0);
}

/* The combine kernel (combine_partials): X (16 × 8192, f16) · W (8192 ×
 * 256, f16), K split over 64 blocks (omap −1) × 2 column tiles, a loop of
 * 2 over 64-deep slices.  A tile's partials are 64 × 16 × 128 × 4 bytes =
 * 512 KiB, past PRISM_COMBINE_MIN_BYTES: two launches.  The kernel: 128
 * blocks, one 16 × 16 × 16 fragment step per 16 of the slice's K = 64
 * (chain 4), every access whole sectors (X's rows 128 bytes at multiples of
 * 128, W's 256 at multiples of 256, the partials dense).  The combine: 512
 * vectors of 4 floats a tile; widths 256 … 16 give 4 … 64 blocks, under
 * the 132 SMs, so W = 8 (the narrowest): 2 × 64 = 128 blocks of R = 32
 * rows × 8 columns = 256 threads; a thread adds 64 / 32 = 2 splits, then
 * 32 row sums: 34 steps.  Per split a block reads 8 × 16 = 128 contiguous
 * bytes at multiples of 128, and stores 256-byte output rows: 1.0. */
static void
test_combine_kernel (void)
{
  const char *json =
    "{\"format\": \"prism-graph\", \"version\": 1, \"name\": \"split_k\", \"ops\": ["
    " {\"op\": \"input\", \"name\": \"X\", \"outputs\": [{\"id\": \"x\", \"shape\": [16, 8192], \"dtype\": \"f16\"}]},"
    " {\"op\": \"input\", \"name\": \"W\", \"outputs\": [{\"id\": \"w\", \"shape\": [8192, 256], \"dtype\": \"f16\"}]},"
    " {\"op\": \"kernel\", \"inputs\": [\"x\", \"w\"], \"outputs\": [\"o\"], \"block\": {\"grid\": [2, 64], \"forloop\": 2, \"ops\": ["
    "   {\"op\": \"input\", \"input\": 0, \"imap\": [-1, 1], \"fmap\": 1, \"outputs\": [\"xt\"]},"
    "   {\"op\": \"input\", \"input\": 1, \"imap\": [1, 0], \"fmap\": 0, \"outputs\": [\"wt\"]},"
    "   {\"op\": \"matmul\", \"inputs\": [\"xt\", \"wt\"], \"outputs\": [\"mm\"]},"
    "   {\"op\": \"accum\", \"inputs\": [\"mm\"], \"outputs\": [\"acc\"]},"
    "   {\"op\": \"output\", \"inputs\": [\"acc\"], \"omap\": [1, -1]}]}},"
    " {\"op\": \"output\", \"name\": \"O\", \"inputs\": [\"o\"]}]}";
  PrismLaunch k, c;
  guint n;

  plan_launch (json, 0, &n, &k);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpint (k.longest_thread_chain, ==, 4);
  g_assert_cmpint (k.fewest_active_blocks, ==, 128);
  g_assert_cmpuint (k.split_outputs, ==, 0);
  assert_efficiency (k.global_sector_efficiency, 1.0);
  plan_launch (json, 1, &n, &c);
  g_assert_cmpuint (c.grid[0], ==, 128);
  g_assert_cmpuint (c.block_threads, ==, 256);
  g_assert_cmpint (c.longest_thread_chain, ==, 34);
  g_assert_cmpint (c.fewest_active_blocks, ==, 128);
  assert_efficiency (c.global_sector_efficiency, 1.0);
  /* It reads every partial from L2 once and writes the output once. */
  g_assert_cmpfloat (c.l2_bytes, ==, 2.0 * 64 * 16 * 128 * 4);
  g_assert_cmpfloat (c.dram_bytes, ==, 16.0 * 256 * 2);

  /* The tuner's price of the kernel (prism_cost_model_plan_us) is the
   * graph's predicted time: both launches (it priced the first only, and
   * ranked a kernel with a combine as if it had none). */
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(PrismGraph) g = prism_graph_load_from_data (json, -1, NULL, &error);
    const PrismGpuTarget *h100 = prism_gpu_target_lookup ("h100");
    PrismKernelPlanOptions po = { h100, 90, 0, FALSE, 0 };
    g_autoptr(PrismKernelPlan) kp = NULL;
    PrismCostEstimate est;

    g_assert_no_error (error);
    for (guint i = 0; i < g->ops->len; i++)
      if (prism_graph_op (g, i)->kind == PRISM_OP_KERNEL)
        kp = prism_kernel_plan_new (prism_graph_op (g, i)->body, NULL, 0, &po, &error);
    g_assert_no_error (error);
    g_assert_true (prism_cost_model_predict (h100, g, NULL, 0, &est, &error));
    g_assert_no_error (error);
    g_assert_cmpuint (est.n_launches, ==, 2);
    g_assert_cmpfloat (fabs (prism_cost_model_plan_us (h100, kp) - est.total_us), <, 1e-9 * est.total_us);
  }
}

/* reduce_each (max along the last dim): rows of 8192 f32, one row a
 * block, 64 blocks.  One row for four warps: the row is split over all
 * four, a lane takes ⌈8192 / 128⌉ = 64 elements into four accumulators (16
 * steps each, 2 joins), then 5 shuffle steps and the join of the 4 warps'
 * maxima: 16 + 2 + 5 + 4 = 27 (one thread per output walked all 8192
 * before). */
static void
test_reduce_each (void)
{
  const char *json =
    "{\"format\": \"prism-graph\", \"version\": 1, \"name\": \"row_max\", \"ops\": ["
    " {\"op\": \"input\", \"name\": \"X\", \"outputs\": [{\"id\": \"x\", \"shape\": [64, 8192], \"dtype\": \"f32\"}]},"
    " {\"op\": \"kernel\", \"inputs\": [\"x\"], \"outputs\": [\"y\"], \"block\": {\"grid\": [64], \"forloop\": 1, \"ops\": ["
    "   {\"op\": \"input\", \"input\": 0, \"imap\": [0], \"fmap\": -1, \"outputs\": [\"xt\"]},"
    "   {\"op\": \"max\", \"dim\": 1, \"inputs\": [\"xt\"], \"outputs\": [\"m\"]},"
    "   {\"op\": \"accum\", \"inputs\": [\"m\"], \"outputs\": [\"a\"]},"
    "   {\"op\": \"output\", \"inputs\": [\"a\"], \"omap\": [0]}]}},"
    " {\"op\": \"output\", \"name\": \"Y\", \"inputs\": [\"y\"]}]}";
  PrismLaunch l;
  guint n;

  plan_launch (json, 0, &n, &l);
  g_assert_cmpint (l.longest_thread_chain, ==, 27);
  g_assert_cmpint (l.fewest_active_blocks, ==, 64);
}

/* scalar_matmul (f32 operands, CUDA cores): X (8 × 64) · W (64 × 48), one
 * block.  A work item is 4 consecutive outputs of a row (16 bytes of W's
 * row k with one load): 8 × 12 = 96 items for 128 threads, one a thread,
 * each K = 64 dependent multiply-adds (its 4 sums side by side).  With
 * 1 × 32 outputs (X 1 × 64, W 64 × 32): 8 items, 128 / 8 = 16 lanes share
 * one, ⌈64 / 16⌉ = 4 steps each and a 4-step shuffle, 8 (one output a
 * thread before: 4 lanes an output, 16 + 2 = 18). */
static void
test_scalar_matmul (void)
{
  /* The two programs differ in X's rows and W's columns only. */
#define SMALL_MM(M, N) \
    "{\"format\": \"prism-graph\", \"version\": 1, \"name\": \"small_mm\", \"ops\": [" \
    " {\"op\": \"input\", \"name\": \"X\", \"outputs\": [{\"id\": \"x\", \"shape\": [" #M ", 64], \"dtype\": \"f32\"}]}," \
    " {\"op\": \"input\", \"name\": \"W\", \"outputs\": [{\"id\": \"w\", \"shape\": [64, " #N "], \"dtype\": \"f32\"}]}," \
    " {\"op\": \"kernel\", \"inputs\": [\"x\", \"w\"], \"outputs\": [\"o\"], \"block\": {\"grid\": [1], \"forloop\": 1, \"ops\": [" \
    "   {\"op\": \"input\", \"input\": 0, \"imap\": [-1], \"fmap\": -1, \"outputs\": [\"xt\"]}," \
    "   {\"op\": \"input\", \"input\": 1, \"imap\": [-1], \"fmap\": -1, \"outputs\": [\"wt\"]}," \
    "   {\"op\": \"matmul\", \"inputs\": [\"xt\", \"wt\"], \"outputs\": [\"mm\"]}," \
    "   {\"op\": \"accum\", \"inputs\": [\"mm\"], \"outputs\": [\"a\"]}," \
    "   {\"op\": \"output\", \"inputs\": [\"a\"], \"omap\": [-1]}]}}," \
    " {\"op\": \"output\", \"name\": \"O\", \"inputs\": [\"o\"]}]}"
  const char *programs[] = { SMALL_MM (8, 48), SMALL_MM (1, 32) };
  const gint64 chains[] = { 64, 8 };
#undef SMALL_MM

  for (guint i = 0; i < G_N_ELEMENTS (programs); i++)
    {
      PrismLaunch l;
      guint n;

      plan_launch (programs[i], 0, &n, &l);
      g_assert_cmpint (l.mma, ==, PRISM_MMA_FMA);
      if (l.longest_thread_chain != chains[i])
        g_error ("program %u: chain %" G_GINT64_FORMAT ", derived by hand %" G_GINT64_FORMAT, i,
                 l.longest_thread_chain, chains[i]);
    }
}

/* The sector arithmetic itself: runs of 64 bytes at multiples of 4 start
 * anywhere in a sector — 2 sectors from 0, 3 from the seven other starts,
 * 23 for 8 × 64 bytes. */
static void
test_cost_prices_figures (void)
{
  const PrismGpuTarget *h100 = prism_gpu_target_lookup ("h100");
  PrismLaunch l = {
    .role = PRISM_LAUNCH_BLOCK_GRAPH, .grid = { 4 * h100->sm_count, 1, 1 }, .block_threads = 128,
    .loop_iterations = 1, .stages = 1, .blocks_per_sm = 4, .occupancy = 4, .bytes_in_flight_per_sm = 65536,
    .warps = 4, .work_warps = 4, .mma = PRISM_MMA_NONE, .dram_bytes = 1e9,
    .longest_thread_chain = 1, .global_sector_efficiency = 1.0, .fewest_active_blocks = 4 * h100->sm_count,
  };
  PrismOpCost full, half, chained, narrow;

  /* Half the sectors wasted: twice the DRAM time. */
  prism_cost_model_launch (h100, &l, &full);
  l.global_sector_efficiency = 0.5;
  prism_cost_model_launch (h100, &l, &half);
  g_assert_cmpfloat (fabs (half.memory_us - 2 * full.memory_us), <, 1e-9 * full.memory_us);
  /* A chain of a million steps: at least 4 cycles each at under 2 GHz. */
  l.global_sector_efficiency = 1.0;
  l.longest_thread_chain = 1000000;
  prism_cost_model_launch (h100, &l, &chained);
  g_assert_cmpfloat (chained.latency_us, >, 2000);
  /* One block alone reading 1 MB of partials: at one SM's share of L2. */
  l.longest_thread_chain = 1;
  l.fewest_active_blocks = 1;
  l.narrow_phase_bytes = 1e6;
  prism_cost_model_launch (h100, &l, &narrow);
  g_assert_cmpfloat (narrow.latency_us - full.latency_us, >=, 1e6 / (h100->l2_gbs / h100->sm_count * 1e3) * 0.999);

  /* One block storing 2 bytes (a constant), nothing loaded: its sectors
   * are in flight at once, so a sixteenth of a sector used costs no more
   * than a whole one (it cost 16 times as much when the curve was read at
   * the bytes in flight, 0). */
  {
    PrismLaunch tiny = {
      .role = PRISM_LAUNCH_BLOCK_GRAPH, .grid = { 1, 1, 1 }, .block_threads = 128, .loop_iterations = 1,
      .stages = 1, .blocks_per_sm = 1, .occupancy = 16, .warps = 4, .work_warps = 1, .dram_bytes = 2,
      .longest_thread_chain = 1, .global_sector_efficiency = 1.0, .fewest_active_blocks = 1,
    };
    PrismOpCost whole, sixteenth;

    prism_cost_model_launch (h100, &tiny, &whole);
    tiny.global_sector_efficiency = 0.0625;
    prism_cost_model_launch (h100, &tiny, &sixteenth);
    g_assert_cmpfloat (fabs (sixteenth.memory_us - whole.memory_us), <, 1e-9 + 1e-6 * whole.memory_us);
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/template-figures/tile-loads", test_tile_loads);
  g_test_add_func ("/template-figures/row-reduction", test_row_reduction);
  g_test_add_func ("/template-figures/last-block-sum", test_last_block_sum);
  g_test_add_func ("/template-figures/combine-kernel", test_combine_kernel);
  g_test_add_func ("/template-figures/reduce-each", test_reduce_each);
  g_test_add_func ("/template-figures/scalar-matmul", test_scalar_matmul);
  g_test_add_func ("/template-figures/cost-prices-figures", test_cost_prices_figures);
  return g_test_run ();
}
