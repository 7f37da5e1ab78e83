/* prism-cuda-emitter.h — CUDA source for a concrete program
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

#include "prism-gpu-target.h"
#include "prism-graph.h"
#include "prism-launch.h"

G_BEGIN_DECLS

/**
 * PrismCudaOptions:
 * @sm: target compute capability × 10 (80 = A100, 90 = H100/H200); 0 means 90
 * @smem_limit: dynamic shared memory one block may use, in bytes; 0 means the
 *   target's opt-in maximum
 * @no_pipeline: never stream loop tiles through a cp.async ring
 * @prefix: (nullable): C identifier that starts every generated symbol;
 *   %NULL derives one from the graph name ("prism_" + name)
 * @target: (nullable): the GPU the ring depths, occupancy and split-K are
 *   planned for; %NULL: the first built-in target of compute capability @sm
 * @vendor_matmul: leave predefined matmuls to cuBLASLt (launches of role
 *   %PRISM_LAUNCH_VENDOR_GEMM, run by prism-gpu-worker): the "vendor"
 *   baseline.  The generated launcher then runs on the CPU build only.
 */
typedef struct
{
  guint sm;
  gsize smem_limit;
  gboolean no_pipeline;
  const char *prefix;
  const PrismGpuTarget *target;
  gboolean vendor_matmul;
} PrismCudaOptions;

typedef enum
{
  PRISM_CUDA_ARG_INPUT,      /* inputs[index] of the launcher */
  PRISM_CUDA_ARG_OUTPUT,     /* outputs[index] of the launcher */
  PRISM_CUDA_ARG_WORKSPACE,  /* workspace + offset */
  PRISM_CUDA_ARG_EPOCH,      /* the launch's epoch (unsigned int, by value) */
} PrismCudaArgKind;

/* One argument of a generated kernel: a pointer, or the epoch that the
 * arrival counters of outputs summed over blocks test. */
typedef struct
{
  PrismCudaArgKind kind;
  guint index;
  gsize offset;        /* WORKSPACE: byte offset (GPU layout) */
  PrismDtype dtype;    /* element type pointed to */
  gboolean writable;   /* FALSE: the kernel only reads it (const) */
  gboolean counters;   /* per-tile arrival counters (unsigned int), not @dtype */
} PrismCudaArg;

/* An output summed over blocks takes three arguments: the output, its f32
 * partials and its counters; a kernel with such outputs also takes the
 * launch's epoch. */
#define PRISM_CUDA_MAX_ARGS (PRISM_MAX_OP_INPUTS + 3 * PRISM_MAX_OP_OUTPUTS + 1)

/**
 * PrismCudaKernel:
 * @source: the kernel's definition in the .cu (its comment, signature and
 *   body, with the blank line after it), owned by the emitter
 *
 * @launch: the launch's static account (prism-launch.h): ring, occupancy,
 *   paths, work — what the manifest reports and the cost model prices
 *
 * One launch of the generated program, in launch order.  Every argument is a
 * device pointer but the epoch (%PRISM_CUDA_ARG_EPOCH).  A %PRISM_LAUNCH_VENDOR_GEMM launch has no source: its
 * arguments are A, B and C of the matmul in @launch.
 */
typedef struct
{
  char *name;
  char *source;
  PrismLaunchRole role;
  guint grid[3];
  guint block[3];
  gsize smem_bytes;          /* dynamic shared memory (GPU layout) */
  guint n_args;
  PrismCudaArg args[PRISM_CUDA_MAX_ARGS];
  int op_index;              /* the kernel op in the lowered graph */
  PrismLaunch launch;
} PrismCudaKernel;

typedef struct _PrismCudaEmitter PrismCudaEmitter;

/**
 * prism_cuda_emitter_new:
 * @graph: a concrete kernel graph (predefined ops, custom kernels or both)
 * @options: (nullable): %NULL for the defaults
 * @error: return location for a #GError
 *
 * Lowers @graph (prism_lower_predefined_ops()), plans shared memory and the
 * workspace, and writes the CUDA source, the C header, the manifest and a
 * CPU test harness.  Fails with %PRISM_ERROR_UNSUPPORTED for symbolic
 * graphs and %PRISM_ERROR_LIMIT when a kernel does not fit the target.
 *
 * Returns: (transfer full) (nullable): the emitter, owning everything it made
 */
PrismCudaEmitter *prism_cuda_emitter_new         (const PrismGraph        *graph,
                                                  const PrismCudaOptions  *options,
                                                  GError                 **error);
void              prism_cuda_emitter_free        (PrismCudaEmitter        *self);

/* The identifier prefix, e.g. "prism_rms_norm" (owned by @self). */
const char       *prism_cuda_emitter_get_prefix  (const PrismCudaEmitter  *self);
/* The .cu text: kernels (compilable by nvcc, NVRTC or, as C++, g++) and the
 * extern "C" launcher (owned by @self). */
const char       *prism_cuda_emitter_get_source  (const PrismCudaEmitter  *self);
/* The .cu text splits into the preamble (comment and includes), every
 * kernel's PrismCudaKernel.source in launch order, and the host part (the
 * workspace query and the launcher, which names the kernels):
 * preamble + sources + host == prism_cuda_emitter_get_source().  Programs
 * that share kernel bodies can thus be compiled together, each body once
 * (owned by @self). */
const char       *prism_cuda_emitter_get_preamble (const PrismCudaEmitter *self);
const char       *prism_cuda_emitter_get_host_source (const PrismCudaEmitter *self);
/* The C header declaring the launcher and the workspace query (owned). */
const char       *prism_cuda_emitter_get_header  (const PrismCudaEmitter  *self);
/* A C++ main() that runs the launcher of the CPU build on f32 files
 * DIR/inK.f32 and writes DIR/outK.f32 (owned).  It is the helpers of
 * prism_cuda_cpu_harness_helpers(), the header's #include, the function of
 * prism_cuda_emitter_get_cpu_run() and a main() that calls it with DIR
 * twice. */
const char       *prism_cuda_emitter_get_cpu_harness (const PrismCudaEmitter *self);
/* The definition of `int PREFIX_cpu_run (const char *in_dir, const char
 * *out_dir)`: reads in_dir/inK.f32, runs the CPU build of the launcher,
 * writes out_dir/outK.f32, frees what it allocated and returns 0 (1 after a
 * message on stderr).  It needs prism_cuda_cpu_harness_helpers() and the
 * launcher above it; one program may hold the run functions of many
 * emitters (owned by @self). */
const char       *prism_cuda_emitter_get_cpu_run (const PrismCudaEmitter *self);
/* The C++ includes and file helpers every CPU run function uses, the same
 * for every program (static text). */
const char       *prism_cuda_cpu_harness_helpers (void);
/* Bytes of workspace the launcher needs on the GPU. */
gsize             prism_cuda_emitter_get_workspace_size (const PrismCudaEmitter *self);
/* The leading bytes of the workspace (the arrival counters of outputs summed
 * over blocks) that must be zero before the first launch; every launch
 * tags them with its own epoch, so one cudaMemset after allocating is
 * enough, even when a launch died half-way. */
gsize             prism_cuda_emitter_get_workspace_zeroed_bytes (const PrismCudaEmitter *self);
guint             prism_cuda_emitter_get_n_kernels (const PrismCudaEmitter *self);
const PrismCudaKernel *prism_cuda_emitter_get_kernel (const PrismCudaEmitter *self,
                                                  guint                    index);
/**
 * prism_cuda_emitter_set_resource_usage:
 * @kernel: a kernel's name
 *
 * Records what ptxas reported for @kernel (registers per thread, spill
 * bytes), so that the manifest and the occupancy in its report are facts.
 * Returns: %FALSE if no kernel has that name
 */
gboolean          prism_cuda_emitter_set_resource_usage (PrismCudaEmitter *self,
                                                         const char       *kernel,
                                                         guint             registers,
                                                         gint64           spill_bytes);
/* The graph the code was generated from, predefined ops lowered (owned). */
const PrismGraph *prism_cuda_emitter_get_lowered_graph (const PrismCudaEmitter *self);
/* "sm_90" */
const char       *prism_cuda_emitter_get_arch    (const PrismCudaEmitter  *self);

/**
 * prism_cuda_emitter_build_manifest:
 *
 * The bundle manifest ("format": "prism-kernels"): kernels in launch order
 * with grid, block, shared memory and argument order, the inputs and
 * outputs, the workspace size and the target arch.
 *
 * Returns: (transfer full): a JSON object node
 */
JsonNode         *prism_cuda_emitter_build_manifest (const PrismCudaEmitter *self,
                                                  const char              *source_file,
                                                  const char              *header_file);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrismCudaEmitter, prism_cuda_emitter_free)

G_END_DECLS
