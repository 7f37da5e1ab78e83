/* prism-kernel-report.h — a program's generated CUDA and every launch it makes, priced
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "prism-cost-model.h"
#include "prism-cuda-emitter.h"
#include "prism-gpu-target.h"
#include "prism-graph.h"

G_BEGIN_DECLS

/* What a launch is there for. */
typedef enum
{
  PRISM_KERNEL_ROLE_CUSTOM,   /* a custom kernel of the program (a candidate's fused kernel) */
  PRISM_KERNEL_ROLE_LOWERED,  /* a helper: a predefined op lowered to a kernel of its own */
  PRISM_KERNEL_ROLE_COPY,     /* a helper: an output that is an input or another output */
  PRISM_KERNEL_ROLE_VENDOR,   /* a matmul run by cuBLASLt (the vendor baseline) */
} PrismKernelRole;

/**
 * PrismKernelReportLaunch:
 * @name: the kernel's name in the .cu and manifest.json ("prism_rms_norm_k2")
 * @ops: the block graph's operators, in order and without repeats
 *   ("rms_norm, matmul"); "copy" for a copy kernel, "matmul" for cuBLASLt
 * @cost: the cost model's price of the launch; @cost.launch is the
 *   planner's static account (what manifest.json's "report" says)
 *
 * One launch of the generated program, in launch order.
 */
typedef struct
{
  char *name;
  char *ops;
  PrismKernelRole role;
  guint grid[3];
  guint block[3];
  gsize smem_bytes;
  PrismOpCost cost;
} PrismKernelReportLaunch;

/**
 * PrismKernelReport:
 * @source: the .cu text, as `prism export` writes it
 * @arch: "sm_90"
 * @target: the GPU the code was planned and priced for (built in, static)
 * @launches: (element-type PrismKernelReportLaunch): every launch, in order
 * @total_us: the predicted time: the sum over the launches
 * @registers_measured: whether ptxas compiled the code and the launches'
 *   registers, spills and occupancy are its figures
 * @registers_note: (nullable): where the registers came from ("nvcc 13.0
 *   (ptxas -O3, sm_90)") or why they are not known; %NULL when not asked
 *
 * Reference-counted and immutable once made, so that a worker thread can
 * make it and the main thread show it.
 */
typedef struct
{
  /*< private >*/
  gint ref_count;
  /*< public >*/
  char *source;
  char *arch;
  const PrismGpuTarget *target;
  GArray *launches;
  double total_us;
  gboolean registers_measured;
  char *registers_note;
} PrismKernelReport;

/**
 * prism_kernel_report_new:
 * @graph: a concrete kernel graph
 * @target: the GPU to plan and price for
 * @vendor_matmul: leave predefined matmuls to cuBLASLt (the vendor baseline)
 * @measure_registers: also compile the code with nvcc (seconds: call it
 *   off the main thread) and take each kernel's registers and spills from
 *   ptxas; without nvcc the report is made all the same and
 *   @registers_note says why the registers are not known
 * @cancellable: (nullable): checked before the compiler runs
 * @error: return location for a #GError
 *
 * Generates @graph's CUDA as `prism export` does (prism_cuda_emitter_new()
 * with the same options) and prices every launch the emitter makes with
 * prism_cost_model_launch().  Safe to call from any thread.
 *
 * Returns: (transfer full) (nullable): the report; %NULL with
 *   %PRISM_ERROR_UNSUPPORTED for symbolic graphs, %PRISM_ERROR_LIMIT when a
 *   kernel does not fit @target, %G_IO_ERROR_CANCELLED when cancelled
 */
PrismKernelReport *prism_kernel_report_new   (const PrismGraph     *graph,
                                              const PrismGpuTarget *target,
                                              gboolean              vendor_matmul,
                                              gboolean              measure_registers,
                                              GCancellable         *cancellable,
                                              GError              **error);
PrismKernelReport *prism_kernel_report_ref   (PrismKernelReport    *report);
void               prism_kernel_report_unref (PrismKernelReport    *report);

guint              prism_kernel_report_get_n_launches (const PrismKernelReport *report);
/* (transfer none) */
const PrismKernelReportLaunch *prism_kernel_report_get_launch (const PrismKernelReport *report,
                                                               guint                    index);

/* FLOPs of a launch, every unit together. */
double             prism_kernel_report_launch_flops (const PrismKernelReportLaunch *launch);
/* The same for the whole program, and the bytes it moves through DRAM. */
double             prism_kernel_report_get_flops      (const PrismKernelReport *report);
double             prism_kernel_report_get_dram_bytes (const PrismKernelReport *report);

/* The term of the cost model that sets the launch's time: "DRAM", "L2",
 * "compute", "latency", or "cuBLASLt minimum" (static, translated) */
const char        *prism_kernel_report_launch_limiter (const PrismKernelReportLaunch *launch);

/* "Custom kernel", "Lowered op", "Copy", "cuBLASLt" (static, translated) */
const char        *prism_kernel_role_to_label (PrismKernelRole role);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrismKernelReport, prism_kernel_report_unref)

G_END_DECLS
