/* prism-kernel-emit.h — the CUDA text of one planned custom kernel
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "prism-kernel-plan.h"

G_BEGIN_DECLS

/**
 * PrismKernelEmitInfo:
 * @name: the kernel's C name
 * @kop_index: the kernel op in the lowered graph (for comments)
 * @in_dtypes: (array length=n_in): the kernel's inputs
 * @out_dtypes: (array length=n_out): the kernel's outputs, in the order of
 *   the body's OUTPUT ops
 *
 * The signature takes in0…, then per output outK — and, for an output
 * summed over blocks, partK (f32 partials in the workspace) and — unless a
 * combine kernel adds them up — cntK (its per-tile arrival counters, zero
 * before the first launch).
 */
typedef struct
{
  const char *name;
  guint kop_index;
  PrismDtype in_dtypes[PRISM_MAX_OP_INPUTS];
  guint n_in;
  PrismDtype out_dtypes[PRISM_MAX_OP_OUTPUTS];
  guint n_out;
} PrismKernelEmitInfo;

/* Appends the kernel's definition (comment, signature, body, blank line). */
void        prism_kernel_plan_emit (const PrismKernelPlan     *plan,
                                    const PrismKernelEmitInfo *info,
                                    GString                   *s);

/* Appends the definition of the plan's combine kernel, named @name, when
 * prism_kernel_plan_n_launches() is 2: per output added up there, outK and
 * then partK (the f32 partials the kernel @info->name stored). */
void        prism_kernel_plan_emit_combine (const PrismKernelPlan     *plan,
                                            const PrismKernelEmitInfo *info,
                                            const char                *name,
                                            GString                   *s);

/* "prism::f16", "prism::bf16", "float" (static) */
const char *prism_cuda_ctype       (PrismDtype                 dtype);

G_END_DECLS
