/* prism-kernel-plan-private.h — the planner's tables, shared with the emitter
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "prism-kernel-plan.h"

G_BEGIN_DECLS

/* Two shared-memory layouts are planned: the GPU's and the CPU build's
 * (where every dtype is stored as a 4-byte float). */
enum { PRISM_LAYOUT_GPU, PRISM_LAYOUT_CPU, PRISM_N_LAYOUTS };

/* Matmul kinds, as kernels/prism-mma.cuh names them. */
enum { PRISM_KMMA_SCALAR, PRISM_KMMA_16x16x16, PRISM_KMMA_8x32x16 };

/* Schedule positions: the prologue, the loop's loads, then one per op. */
#define PRISM_POS_PROLOGUE  0
#define PRISM_POS_LOOP_LOAD 1

typedef struct
{
  gboolean live;
  int pos;               /* schedule position */
  int mma;               /* MATMUL: PRISM_KMMA_* */
  guint ksplit;          /* MATMUL: warps sharing one output fragment, each a slice of K */
  gboolean fused;        /* MATMUL whose only use is an ACCUM, or that ACCUM */
  gboolean in_registers; /* fused: the sum stays in registers (MatmulAccum) */
  int partner;           /* the fused MATMUL's ACCUM op and vice versa */
  int shadow[2];         /* MATMUL: item of an operand converted for the tensor cores;
                          * ACCUM_ONLINE, ACCUM_SUM_ONLINE: [0] the max it last rescaled to */
  gint64 batch, m, n, k;
  /* INPUT / OUTPUT: the data tensor, padded to four dims. */
  gint64 data[PRISM_MAX_DIMS];
  guint vec;             /* INPUT / OUTPUT: elements per vector access */
  gboolean summed;       /* OUTPUT: blocks along some grid axis add into one tile */
  gint64 splits;         /* OUTPUT, summed: blocks adding into one tile */
  gint64 tiles;          /* OUTPUT, summed: tiles of the output */
  gboolean combined;     /* OUTPUT, summed: added up by the combine kernel, not the last block */
  guint lv;              /* OUTPUT, summed: floats per partial load (partial_vec) */
  gint64 slices;         /* OUTPUT, combined: combine blocks per tile */
  gint64 combine_first;  /* OUTPUT, combined: its first block in the combine grid */
} PrismOpPlan;

typedef struct
{
  gboolean live;
  PrismDtype storage;
  gint64 shape[PRISM_MAX_DIMS];  /* padded to four dims */
  gint64 pitch;         /* row pitch in shared memory: shape[3], or more for
                         * tiles only tensor-core matmuls read (bank padding) */
  int item;             /* shared-memory item, -1 for none */
  gboolean ring;        /* INPUT tile streamed through a cp.async ring of `stages` buffers */
  int last;             /* position of the last use */
  gboolean invariant;   /* INPUT tile loaded once, before the loop */
} PrismTensorPlan;

typedef struct
{
  gint64 elems;          /* per buffer */
  PrismDtype storage;
  gboolean ring;         /* `stages` buffers back to back */
  int start, end;
  gsize offset[PRISM_N_LAYOUTS];
} PrismSmemItem;

struct _PrismKernelPlan
{
  const PrismGraph *body;        /* borrowed */
  const PrismGpuTarget *target;  /* borrowed */
  guint sm;
  gsize smem_limit;
  guint n_ops, n_tensors;
  PrismOpPlan *ops;
  PrismTensorPlan *tensors;
  GArray *items;                 /* PrismSmemItem */
  gsize smem[PRISM_N_LAYOUTS];
  gint64 grid[PRISM_MAX_GRID_DIMS];
  gint64 blocks;
  gint64 forloop;
  guint threads, warps;
  int loop_end, epi_start, end;
  guint stages;                  /* ring depth (≥ 2) when `pipelined` */
  gboolean pipelined;
  gboolean smem_limited;
  gsize stage_bytes, sync_bytes, invariant_bytes;
  guint occupancy, resident;
  guint registers;               /* estimate */
  guint combine_threads;         /* threads of a combine block (0: no combine kernel) */
  guint combine_width;           /* partial vectors a combine block adds (its columns) */
  gint64 combine_blocks;         /* blocks of the combine kernel */
};

/* Bytes of one element of @dtype in @layout. */
gsize       prism_kernel_plan_elem_bytes (PrismDtype dtype,
                                          int        layout);
/* Elements a tile takes in shared memory (rows × pitch). */
gint64      prism_tensor_plan_storage    (const PrismTensorPlan *tp);
/* Elements from one stage of a ring tile to the next: its storage rounded up
 * so that every stage starts 128-byte aligned on the GPU (WMMA and cp.async
 * want 32 and 16). */
gint64      prism_tensor_plan_ring_stride (const PrismTensorPlan *tp);
/* Whether @op runs inside the loop (accumulators and what feeds them). */
gboolean    prism_kernel_plan_in_loop    (const PrismKernelPlan *plan,
                                          const PrismOp         *op);
/* Elements per vector access: 16 bytes when both the tile's and the
 * tensor's last dims allow it, fewer otherwise. */
guint       prism_kernel_plan_pick_vec   (PrismDtype dtype,
                                          gint64     tile_last,
                                          gint64     data_last);
/* Useful share (0–1) of the 32-byte sectors fetched by contiguous runs of
 * @run bytes that start at multiples of @step bytes, averaged over the
 * starts (bases 32-byte aligned). */
double      prism_kernel_plan_sector_efficiency (gint64 run,
                                                 gint64 step);
/* Left-pads an evaluated shape to four dims. */
void        prism_pad_shape              (guint       ndims,
                                          const gint64 *dims,
                                          gint64     *out);

G_END_DECLS
