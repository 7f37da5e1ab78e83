/* prism-cuda-emitter-private.h — the emitter's state, shared by its files
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "prism-cuda-emitter.h"
#include "prism-kernel-plan-private.h"

G_BEGIN_DECLS

typedef enum { PRISM_LOC_INPUT, PRISM_LOC_OUTPUT, PRISM_LOC_WORKSPACE } PrismLocKind;

/* Where a kernel-level tensor of the lowered graph lives. */
typedef struct
{
  PrismLocKind kind;
  guint index;    /* input / output index, or region index */
} PrismLoc;

/* A region of the workspace, in both layouts. */
typedef struct
{
  gsize elem_bytes[PRISM_N_LAYOUTS];
  gint64 numel;
  gsize offset[PRISM_N_LAYOUTS];
} PrismRegion;

struct _PrismCudaEmitter
{
  PrismGraph *lowered;
  char *prefix;
  char *arch;
  guint sm;
  gsize smem_limit;
  gboolean no_pipeline;
  gboolean vendor;
  const PrismGpuTarget *target;

  GArray *inputs;            /* lowered tensor ids */
  GArray *outputs;           /* lowered tensor ids */
  PrismLoc *locs;            /* per lowered tensor */
  GArray *regions;           /* PrismRegion */
  gsize ws_size[PRISM_N_LAYOUTS];
  gsize ws_zeroed;           /* leading bytes that must be zero (the counters) */
  GPtrArray *kernels;        /* PrismCudaKernel* */
  GArray *cpu_smem;          /* gsize per kernel: shared memory of the CPU build */

  char *source;
  char *preamble;            /* slices of source (see get_preamble) */
  char *host;
  char *header;
  char *harness;
  char *cpu_run;
};

/* The launcher expression for an argument, cast to @type (transfer full). */
char *prism_cuda_emitter_arg_expr (const PrismCudaEmitter *self,
                                   const PrismCudaArg     *arg,
                                   const char             *type);
/* The C type an argument points to ("const prism::f16 *") (transfer full). */
char *prism_cuda_emitter_arg_type (const PrismCudaArg     *arg);

/* prism-cuda-host.c: the launcher (appended to @s), the header, the CPU run
 * function and the CPU harness. */
void  prism_cuda_emitter_emit_launcher (PrismCudaEmitter *self,
                                        GString          *s);
void  prism_cuda_emitter_emit_header   (PrismCudaEmitter *self);
void  prism_cuda_emitter_emit_cpu_run  (PrismCudaEmitter *self);
void  prism_cuda_emitter_emit_harness  (PrismCudaEmitter *self);

G_END_DECLS
