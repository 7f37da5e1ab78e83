/* prism-launch.h — one launch of a generated program, as the code generator plans it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

#include "prism-types.h"

G_BEGIN_DECLS

typedef enum
{
  PRISM_LAUNCH_BLOCK_GRAPH,   /* the body of a custom kernel (ours) */
  PRISM_LAUNCH_VENDOR_GEMM,   /* a matmul run by cuBLASLt (the vendor baseline) */
} PrismLaunchRole;

/* The matmul path a kernel's block graph runs on. */
typedef enum
{
  PRISM_MMA_NONE,    /* no matmul */
  PRISM_MMA_FMA,     /* CUDA-core multiply-adds (f32, or tiles the fragments do not divide) */
  PRISM_MMA_WMMA,    /* tensor cores through nvcuda::wmma */
  PRISM_MMA_MMA,     /* tensor cores through mma.sync (not emitted yet) */
  PRISM_MMA_WGMMA,   /* Hopper warpgroup MMA (not emitted yet) */
  PRISM_MMA_VENDOR,  /* cuBLASLt */
} PrismMmaPath;

/**
 * PrismLaunch:
 *
 * The static account of one launch: what the manifest's per-kernel report
 * says (docs/codegen.md), what the explorer shows, and everything the cost
 * model prices (docs/cost-model.md) — one description, made once by the
 * planner, so that what is ranked is what runs.
 *
 * Work is counted for the whole launch: @dram_bytes is what must cross DRAM
 * (each graph-level tensor the launch reads once, what it writes once);
 * @l2_bytes what blocks re-read or exchange through L2 (replicated tiles,
 * partial sums); FLOPs by the unit that executes them.
 */
typedef struct
{
  PrismLaunchRole role;
  guint grid[3];
  guint block_threads;
  gsize smem_bytes;              /* dynamic shared memory of one block (GPU layout) */
  gint64 loop_iterations;        /* forloop range F */
  guint stages;                  /* ring depth of the loop tiles; 1 = loaded synchronously */
  gsize stage_bytes;             /* bytes one block streams per iteration through the ring */
  gsize sync_bytes;              /* bytes one block loads per iteration without the ring */
  guint blocks_per_sm;           /* resident on the target: occupancy and grid size both */
  guint occupancy;               /* blocks an SM could hold (threads, shared memory, registers) */
  guint occupancy_without_registers; /* the same from threads and shared memory alone */
  gsize bytes_in_flight_per_block;
  gsize bytes_in_flight_per_sm;  /* blocks_per_sm × bytes one block keeps in flight */
  guint warps;                   /* per block */
  guint work_warps;              /* warps of a block that do its matmul (or elementwise) work */
  PrismMmaPath mma;
  guint registers;               /* per thread: estimated unless registers_measured */
  guint registers_estimate;      /* the planner's estimate, kept when measured */
  gboolean registers_measured;
  gint64 spill_bytes;            /* -1 when not known (no ptxas run) */
  guint split_outputs;           /* outputs summed over blocks by the last block to arrive */
  gboolean smem_limited;         /* fewer stages than the goal because of shared memory */
  /* What the templates do (docs/codegen.md, "The static report"); 0 when
   * not known (a vendor GEMM). */
  gint64 longest_thread_chain;   /* dependent steps of the busiest thread in one primitive */
  double global_sector_efficiency; /* useful bytes / bytes of the 32-byte sectors fetched, 0–1 */
  gint64 fewest_active_blocks;   /* blocks at work in the launch's narrowest phase */
  double narrow_phase_bytes;     /* bytes one block of that phase reads alone (last-block sums) */
  /* Work of the whole launch. */
  double dram_bytes;
  double l2_bytes;
  double tensor_flops;           /* on tensor cores, fragment padding included */
  double fma_flops;              /* matmul multiply-adds on CUDA cores */
  double other_flops;            /* elementwise, reductions */
  /* PRISM_LAUNCH_VENDOR_GEMM */
  gint64 gemm_batch, gemm_m, gemm_n, gemm_k;
  PrismDtype gemm_dtype;
} PrismLaunch;

/**
 * prism_launch_set_registers:
 * @registers: per thread, as ptxas reported them
 * @spill_bytes: spill stores and loads ptxas reported
 * @registers_per_sm: @sm_count: of the target the code was planned for
 *
 * Records the compiler's figures and recomputes the occupancy and the bytes
 * in flight that depend on them.
 */
void        prism_launch_set_registers (PrismLaunch *launch,
                                        guint        registers,
                                        gint64       spill_bytes,
                                        guint        registers_per_sm,
                                        guint        sm_count);

/* Blocks of @warps warps at @registers per thread one SM holds by its
 * register file (allocated per warp in units of 256). */
guint       prism_launch_blocks_by_registers (guint registers,
                                              guint warps,
                                              guint registers_per_sm);

/* "wmma", "fma", … (static) */
const char *prism_mma_path_to_string (PrismMmaPath path);

/**
 * prism_launch_add_report:
 * @builder: inside the launch's JSON object
 *
 * Adds the report members of docs/codegen.md ("loop_iterations", "stages",
 * "blocks_per_sm", "bytes_in_flight_per_sm", "work_warps", "mma",
 * "registers", "spill_bytes", …).
 */
void        prism_launch_add_report  (const PrismLaunch *launch,
                                      JsonBuilder       *builder);

G_END_DECLS
