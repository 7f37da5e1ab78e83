/* prism-cuda-emitter.c — CUDA source for a concrete program
 *
 * The program is first lowered (prism-lower.c) so that every kernel is a
 * block graph — or, for the vendor baseline, a matmul left to cuBLASLt.
 * Each block graph is planned (prism-kernel-plan.c: paths, ring, shared
 * memory, summed outputs) and written (prism-kernel-emit.c); this file
 * places every kernel-level tensor (an input, an output or a workspace
 * region), lays out the workspace — first the arrival counters of outputs
 * summed over blocks, which must start at zero, then intermediate tensors,
 * then the f32 partials —, and keeps the launches, in order, with each
 * one's static account (prism-launch.h) for the manifest and the cost model.
 * The host side is in prism-cuda-host.c.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "prism-cuda-emitter-private.h"
#include "prism-error.h"
#include "prism-kernel-emit.h"
#include "prism-lower.h"

#define WS_ALIGN         256

/* ------------------------------------------------------------------------ */
/* Small helpers */

static gsize
align_up (gsize n, gsize a)
{
  return (n + a - 1) / a * a;
}

static char *
make_prefix (const char *name)
{
  GString *s = g_string_new ("prism_");

  for (const char *p = name != NULL ? name : "program"; *p; p++)
    g_string_append_c (s, g_ascii_isalnum (*p) ? g_ascii_tolower (*p) : '_');
  return g_string_free (s, FALSE);
}

static gboolean
valid_identifier (const char *s)
{
  if (s == NULL || !(g_ascii_isalpha (*s) || *s == '_'))
    return FALSE;
  for (; *s; s++)
    if (!g_ascii_isalnum (*s) && *s != '_')
      return FALSE;
  return TRUE;
}

static void
kernel_free (gpointer data)
{
  PrismCudaKernel *k = data;

  g_free (k->name);
  g_free (k->source);
  g_free (k);
}

static PrismCudaKernel *
kernel_new (const char *name, PrismLaunchRole role, int op_index)
{
  PrismCudaKernel *k = g_new0 (PrismCudaKernel, 1);

  k->name = g_strdup (name);
  k->role = role;
  k->op_index = op_index;
  k->grid[0] = k->grid[1] = k->grid[2] = 1;
  k->block[0] = k->block[1] = k->block[2] = 1;
  return k;
}

/* A workspace region of @numel elements of @gpu_bytes (GPU) and @cpu_bytes
 * (CPU build) each. */
static guint
add_region (PrismCudaEmitter *self, gsize gpu_bytes, gsize cpu_bytes, gint64 numel)
{
  PrismRegion r = { { gpu_bytes, cpu_bytes }, numel, { 0, 0 } };

  for (int l = 0; l < PRISM_N_LAYOUTS; l++)
    {
      r.offset[l] = self->ws_size[l];
      self->ws_size[l] = align_up (self->ws_size[l] + (gsize) numel * r.elem_bytes[l], WS_ALIGN);
    }
  g_array_append_val (self->regions, r);
  return self->regions->len - 1;
}

static const PrismRegion *
region (const PrismCudaEmitter *self, guint index)
{
  return &g_array_index (self->regions, PrismRegion, index);
}

static PrismCudaArg
region_arg (const PrismCudaEmitter *self, guint index, PrismDtype dtype, gboolean writable, gboolean counters)
{
  PrismCudaArg a = { PRISM_CUDA_ARG_WORKSPACE, index, 0, dtype, writable, counters };

  a.offset = region (self, index)->offset[PRISM_LAYOUT_GPU];
  return a;
}

/* A kernel argument for the kernel-level tensor @t. */
static PrismCudaArg
loc_arg (const PrismCudaEmitter *self, guint t, gboolean writable)
{
  PrismCudaArg a = { PRISM_CUDA_ARG_INPUT, 0, 0, PRISM_DTYPE_F32, writable, FALSE };
  const PrismLoc *loc = &self->locs[t];

  a.dtype = prism_graph_tensor (self->lowered, t)->dtype;
  switch (loc->kind)
    {
    case PRISM_LOC_INPUT:
      a.kind = PRISM_CUDA_ARG_INPUT;
      a.index = loc->index;
      break;
    case PRISM_LOC_OUTPUT:
      a.kind = PRISM_CUDA_ARG_OUTPUT;
      a.index = loc->index;
      break;
    case PRISM_LOC_WORKSPACE:
    default:
      a.kind = PRISM_CUDA_ARG_WORKSPACE;
      a.index = loc->index;
      a.offset = region (self, loc->index)->offset[PRISM_LAYOUT_GPU];
      break;
    }
  return a;
}

char *
prism_cuda_emitter_arg_type (const PrismCudaArg *a)
{
  if (a->kind == PRISM_CUDA_ARG_EPOCH)
    return g_strdup ("unsigned int");
  if (a->counters)
    return g_strdup ("unsigned int *");
  return g_strdup_printf ("%s%s *", a->writable ? "" : "const ", prism_cuda_ctype (a->dtype));
}

char *
prism_cuda_emitter_arg_expr (const PrismCudaEmitter *self, const PrismCudaArg *a, const char *type)
{
  switch (a->kind)
    {
    case PRISM_CUDA_ARG_INPUT:
      return g_strdup_printf ("(%s) inputs[%u]", type, a->index);
    case PRISM_CUDA_ARG_OUTPUT:
      return g_strdup_printf ("(%s) outputs[%u]", type, a->index);
    case PRISM_CUDA_ARG_EPOCH:
      return g_strdup ("epoch");
    case PRISM_CUDA_ARG_WORKSPACE:
    default:
      {
        const PrismRegion *r = region (self, a->index);
        return g_strdup_printf ("(%s) (ws + PRISM_PICK (%" G_GSIZE_FORMAT "u, %" G_GSIZE_FORMAT "u))",
                                type, r->offset[PRISM_LAYOUT_GPU], r->offset[PRISM_LAYOUT_CPU]);
      }
    }
}

/* ------------------------------------------------------------------------ */
/* Planning every kernel, then the workspace */

typedef struct
{
  PrismKernelPlan *plan;              /* KERNEL ops; NULL otherwise */
  guint counters[PRISM_MAX_OP_OUTPUTS];   /* regions, per summed output */
  guint partials[PRISM_MAX_OP_OUTPUTS];
} OpEntry;

static gboolean
plan_kernels (PrismCudaEmitter *self, OpEntry *entries, GError **error)
{
  PrismKernelPlanOptions po = { self->target, self->sm, self->smem_limit, self->no_pipeline, 0 };

  for (guint i = 0; i < self->lowered->ops->len; i++)
    {
      const PrismOp *kop = prism_graph_op (self->lowered, i);
      const PrismGraph *body = kop->body;
      gint64 grid[PRISM_MAX_GRID_DIMS] = { 1, 1, 1 };

      if (kop->kind != PRISM_OP_KERNEL)
        continue;
      for (guint p = 0; p < body->grid_ndims; p++)
        grid[p] = prism_dim_get_const (body->grid[p]);
      if (grid[0] > G_MAXINT32 || grid[1] > 65535 || grid[2] > 65535)
        {
          g_set_error (error, PRISM_ERROR, PRISM_ERROR_LIMIT,
                       "op %u (kernel): grid (%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
                       ") exceeds CUDA's limits", i, grid[0], grid[1], grid[2]);
          return FALSE;
        }
      entries[i].plan = prism_kernel_plan_new (body, NULL, 0, &po, error);
      if (entries[i].plan == NULL)
        {
          g_prefix_error (error, "op %u (kernel): ", i);
          return FALSE;
        }
      /* An arrival counter keeps its count in 16 bits beside the epoch's
       * tag (prism-split.cuh). */
      for (guint j = 0; j < entries[i].plan->n_ops; j++)
        if (entries[i].plan->ops[j].summed && entries[i].plan->ops[j].splits > 0xffff)
          {
            g_set_error (error, PRISM_ERROR, PRISM_ERROR_LIMIT,
                         "op %u (kernel): %" G_GINT64_FORMAT " blocks add into one output tile; the arrival "
                         "counters count at most 65535", i, entries[i].plan->ops[j].splits);
            return FALSE;
          }
    }
  return TRUE;
}

/* The workspace: first the arrival counters (the zeroed prefix), then every
 * intermediate tensor (place_tensors), then the f32 partials of outputs
 * summed over blocks. */
static void
plan_workspace_regions (PrismCudaEmitter *self, OpEntry *entries, gboolean counters)
{
  for (guint i = 0; i < self->lowered->ops->len; i++)
    {
      const PrismKernelPlan *kp = entries[i].plan;
      guint m = 0;

      if (kp == NULL)
        continue;
      for (guint j = 0; j < kp->n_ops; j++)
        {
          const PrismOp *op = prism_graph_op (kp->body, j);
          const PrismOpPlan *p = &kp->ops[j];
          const gint64 *tile;

          if (op->kind != PRISM_OP_OUTPUT)
            continue;
          tile = kp->tensors[op->inputs[0]].shape;
          if (p->summed && !p->combined && counters)
            entries[i].counters[m] = add_region (self, 4, 4, p->tiles);
          else if (p->summed)
            entries[i].partials[m] = add_region (self, 4, 4, p->tiles * p->splits *
                                                              tile[0] * tile[1] * tile[2] * tile[3]);
          m++;
        }
    }
  if (counters)
    self->ws_zeroed = self->ws_size[PRISM_LAYOUT_GPU];
}

static void
plan_workspace_counters (PrismCudaEmitter *self, OpEntry *entries)
{
  plan_workspace_regions (self, entries, TRUE);
}

static void
plan_workspace_partials (PrismCudaEmitter *self, OpEntry *entries)
{
  plan_workspace_regions (self, entries, FALSE);
}

static void
place_tensors (PrismCudaEmitter *self)
{
  self->inputs = prism_graph_get_inputs (self->lowered);
  self->outputs = prism_graph_get_outputs (self->lowered);
  self->locs = g_new0 (PrismLoc, self->lowered->tensors->len);
  for (guint t = 0; t < self->lowered->tensors->len; t++)
    self->locs[t].kind = PRISM_LOC_WORKSPACE;
  for (guint i = 0; i < self->inputs->len; i++)
    {
      PrismLoc *l = &self->locs[g_array_index (self->inputs, guint, i)];
      l->kind = PRISM_LOC_INPUT;
      l->index = i;
    }
  for (guint i = 0; i < self->outputs->len; i++)
    {
      PrismLoc *l = &self->locs[g_array_index (self->outputs, guint, i)];
      l->kind = PRISM_LOC_OUTPUT;
      l->index = i;
    }
  for (guint t = 0; t < self->lowered->tensors->len; t++)
    if (self->locs[t].kind == PRISM_LOC_WORKSPACE)
      {
        const PrismTensor *tensor = prism_graph_tensor (self->lowered, t);
        self->locs[t].index = add_region (self, prism_kernel_plan_elem_bytes (tensor->dtype, PRISM_LAYOUT_GPU),
                                          prism_kernel_plan_elem_bytes (tensor->dtype, PRISM_LAYOUT_CPU),
                                          prism_tensor_numel (tensor));
      }
}

/* ------------------------------------------------------------------------ */
/* The launches */

/* The second launch of a kernel op whose partials are added up by many
 * blocks (prism_kernel_plan_n_launches ()): per combined output, the output
 * and its partials. */
static void
emit_combine_kernel (PrismCudaEmitter *self, GString *s, guint kop_index, const OpEntry *entry,
                     const PrismKernelEmitInfo *info)
{
  const PrismOp *kop = prism_graph_op (self->lowered, kop_index);
  const PrismKernelPlan *kp = entry->plan;
  g_autofree char *name = g_strdup_printf ("%s_k%u_combine", self->prefix, kop_index);
  PrismCudaKernel *k = kernel_new (name, PRISM_LAUNCH_BLOCK_GRAPH, (int) kop_index);
  gsize cpu_smem = 0, start = s->len;
  guint m = 0;

  prism_kernel_plan_describe_launch (kp, 1, &k->launch);
  for (guint p = 0; p < 3; p++)
    k->grid[p] = k->launch.grid[p];
  k->block[0] = k->launch.block_threads;
  k->smem_bytes = 0;
  for (guint j = 0; j < kp->n_ops; j++)
    {
      if (prism_graph_op (kp->body, j)->kind != PRISM_OP_OUTPUT)
        continue;
      if (kp->ops[j].combined)
        {
          k->args[k->n_args++] = loc_arg (self, kop->outputs[m], TRUE);
          k->args[k->n_args++] = region_arg (self, entry->partials[m], PRISM_DTYPE_F32, FALSE, FALSE);
        }
      m++;
    }
  prism_kernel_plan_emit_combine (kp, info, name, s);
  k->source = g_strndup (s->str + start, s->len - start);
  g_ptr_array_add (self->kernels, k);
  g_array_append_val (self->cpu_smem, cpu_smem);
}

static void
emit_block_kernel (PrismCudaEmitter *self, GString *s, guint kop_index, const OpEntry *entry)
{
  const PrismOp *kop = prism_graph_op (self->lowered, kop_index);
  const PrismKernelPlan *kp = entry->plan;
  g_autofree char *name = g_strdup_printf ("%s_k%u", self->prefix, kop_index);
  PrismKernelEmitInfo info = { name, kop_index, { 0, }, kop->n_inputs, { 0, }, kop->n_outputs };
  PrismCudaKernel *k = kernel_new (name, PRISM_LAUNCH_BLOCK_GRAPH, (int) kop_index);
  gsize cpu_smem = kp->smem[PRISM_LAYOUT_CPU], start = s->len;
  gboolean summed = FALSE;
  guint m = 0;

  for (guint i = 0; i < kop->n_inputs; i++)
    info.in_dtypes[i] = prism_graph_tensor (self->lowered, kop->inputs[i])->dtype;
  for (guint i = 0; i < kop->n_outputs; i++)
    info.out_dtypes[i] = prism_graph_tensor (self->lowered, kop->outputs[i])->dtype;

  prism_kernel_plan_describe (kp, &k->launch);
  for (guint p = 0; p < PRISM_MAX_GRID_DIMS; p++)
    k->grid[p] = (guint) kp->grid[p];
  k->block[0] = kp->threads;
  k->smem_bytes = kp->smem[PRISM_LAYOUT_GPU];
  for (guint i = 0; i < kop->n_inputs; i++)
    k->args[k->n_args++] = loc_arg (self, kop->inputs[i], FALSE);
  for (guint j = 0; j < kp->n_ops; j++)
    {
      if (prism_graph_op (kp->body, j)->kind != PRISM_OP_OUTPUT)
        continue;
      k->args[k->n_args++] = loc_arg (self, kop->outputs[m], TRUE);
      if (kp->ops[j].summed)
        {
          k->args[k->n_args++] = region_arg (self, entry->partials[m], PRISM_DTYPE_F32, TRUE, FALSE);
          if (!kp->ops[j].combined)
            {
              /* Counted by the epoch the launch passes (prism-split.cuh);
               * a combined output has no counter and needs none. */
              k->args[k->n_args++] = region_arg (self, entry->counters[m], PRISM_DTYPE_F32, TRUE, TRUE);
              summed = TRUE;
            }
        }
      m++;
    }
  if (summed)
    {
      PrismCudaArg epoch = { PRISM_CUDA_ARG_EPOCH, 0, 0, PRISM_DTYPE_F32, FALSE, FALSE };
      k->args[k->n_args++] = epoch;
    }

  prism_kernel_plan_emit (kp, &info, s);
  k->source = g_strndup (s->str + start, s->len - start);
  g_ptr_array_add (self->kernels, k);
  g_array_append_val (self->cpu_smem, cpu_smem);
  if (prism_kernel_plan_n_launches (kp) > 1)
    emit_combine_kernel (self, s, kop_index, entry, &info);
}

/* A predefined matmul the vendor baseline leaves to cuBLASLt. */
static void
add_vendor_gemm (PrismCudaEmitter *self, guint op_index)
{
  const PrismOp *op = prism_graph_op (self->lowered, op_index);
  const PrismTensor *a = prism_graph_tensor (self->lowered, op->inputs[0]);
  const PrismTensor *b = prism_graph_tensor (self->lowered, op->inputs[1]);
  const PrismTensor *c = prism_graph_tensor (self->lowered, op->outputs[0]);
  g_autofree char *name = g_strdup_printf ("%s_gemm%u", self->prefix, op_index);
  PrismCudaKernel *k = kernel_new (name, PRISM_LAUNCH_VENDOR_GEMM, (int) op_index);
  PrismLaunch *l = &k->launch;
  guint r = a->ndims;
  gsize zero = 0;
  double esize = prism_dtype_size (a->dtype);

  l->role = PRISM_LAUNCH_VENDOR_GEMM;
  l->gemm_m = prism_dim_get_const (a->dims[r - 2]);
  l->gemm_k = prism_dim_get_const (a->dims[r - 1]);
  l->gemm_n = prism_dim_get_const (b->dims[r - 1]);
  l->gemm_batch = prism_tensor_numel (c) / (l->gemm_m * l->gemm_n);
  l->gemm_dtype = a->dtype;
  l->mma = PRISM_MMA_VENDOR;
  l->stages = 1;
  l->spill_bytes = -1;
  l->dram_bytes = esize * (double) l->gemm_batch *
                  (double) (l->gemm_m * l->gemm_k + l->gemm_k * l->gemm_n) +
                  (double) prism_tensor_numel (c) * prism_dtype_size (c->dtype);
  if (a->dtype == PRISM_DTYPE_F16 || a->dtype == PRISM_DTYPE_BF16)
    l->tensor_flops = 2.0 * (double) l->gemm_batch * l->gemm_m * l->gemm_n * l->gemm_k;
  else
    l->fma_flops = 2.0 * (double) l->gemm_batch * l->gemm_m * l->gemm_n * l->gemm_k;
  k->grid[0] = k->grid[1] = k->grid[2] = 0;
  k->block[0] = k->block[1] = k->block[2] = 0;
  k->args[k->n_args++] = loc_arg (self, op->inputs[0], FALSE);
  k->args[k->n_args++] = loc_arg (self, op->inputs[1], FALSE);
  k->args[k->n_args++] = loc_arg (self, op->outputs[0], TRUE);
  g_ptr_array_add (self->kernels, k);
  g_array_append_val (self->cpu_smem, zero);
}

/* ------------------------------------------------------------------------ */

static const PrismGpuTarget *
default_target (guint sm)
{
  guint n = 0;
  const PrismGpuTarget * const *list = prism_gpu_target_list (&n);

  for (guint i = 0; i < n; i++)
    if (list[i]->compute_capability == sm)
      return list[i];
  return prism_gpu_target_default ();
}

static void
entries_free (OpEntry *entries, guint n)
{
  for (guint i = 0; i < n; i++)
    prism_kernel_plan_free (entries[i].plan);
  g_free (entries);
}

PrismCudaEmitter *
prism_cuda_emitter_new (const PrismGraph *graph, const PrismCudaOptions *options, GError **error)
{
  g_autoptr(PrismCudaEmitter) self = NULL;
  g_autoptr(GString) s = NULL;
  PrismCudaOptions defaults = { 0, };
  PrismLowerOptions lo = { 0, };
  OpEntry *entries;
  guint n_ops;
  gboolean ok;

  g_return_val_if_fail (graph != NULL, NULL);
  if (options == NULL)
    options = &defaults;

  self = g_new0 (PrismCudaEmitter, 1);
  self->kernels = g_ptr_array_new_with_free_func (kernel_free);
  self->cpu_smem = g_array_new (FALSE, TRUE, sizeof (gsize));
  self->regions = g_array_new (FALSE, TRUE, sizeof (PrismRegion));
  self->sm = options->sm != 0 ? options->sm
             : options->target != NULL ? options->target->compute_capability : 90;
  if (self->sm < 80)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED,
                   "target sm_%u is not supported; the generated code needs sm_80 or newer", self->sm);
      return NULL;
    }
  self->target = options->target != NULL ? options->target : default_target (self->sm);
  self->arch = g_strdup_printf ("sm_%u", self->sm);
  /* Opt-in maximum per block: 163 KiB on sm_80, 227 KiB on sm_90 and newer. */
  self->smem_limit = options->smem_limit != 0 ? options->smem_limit
                                               : (self->sm >= 90 ? 227 * 1024 : 163 * 1024);
  self->no_pipeline = options->no_pipeline;
  self->vendor = options->vendor_matmul;
  if (options->prefix != NULL && !valid_identifier (options->prefix))
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_PARSE, "“%s” is not a C identifier", options->prefix);
      return NULL;
    }

  lo.sm_count = self->target->sm_count;
  lo.keep_matmul = self->vendor;
  self->lowered = prism_lower_predefined_ops_full (graph, &lo, error);
  if (self->lowered == NULL)
    return NULL;
  self->prefix = options->prefix != NULL ? g_strdup (options->prefix) : make_prefix (graph->name);

  n_ops = self->lowered->ops->len;
  entries = g_new0 (OpEntry, n_ops);
  if (!plan_kernels (self, entries, error))
    {
      entries_free (entries, n_ops);
      return NULL;
    }
  plan_workspace_counters (self, entries);
  place_tensors (self);
  plan_workspace_partials (self, entries);

  s = g_string_new (NULL);
  g_string_append_printf (s, "/* %s.cu — generated by Prism Explorer %s; do not edit.\n *\n"
                          " * Program: %s\n * Target: %s (also compiles for sm_80 and newer)\n *\n"
                          " * Compile: nvcc -std=c++17 -arch=%s -I<kernels> -c %s.cu\n"
                          " * The same text compiles as C++ (g++ -x c++ -std=c++17 -I<kernels>) into a\n"
                          " * CPU build that runs the blocks in order, for testing without a GPU.\n */\n"
                          "#include \"prism-runtime.cuh\"\n\n",
                          self->prefix, PACKAGE_VERSION,
                          graph->name ? graph->name : "(unnamed)", self->arch, self->arch, self->prefix);
  self->preamble = g_strdup (s->str);
  ok = TRUE;
  for (guint i = 0; i < n_ops && ok; i++)
    {
      const PrismOp *op = prism_graph_op (self->lowered, i);
      if (op->kind == PRISM_OP_KERNEL)
        emit_block_kernel (self, s, i, &entries[i]);
      else if (op->kind == PRISM_OP_MATMUL)
        add_vendor_gemm (self, i);
    }
  entries_free (entries, n_ops);
  {
    gsize host_start = s->len;
    prism_cuda_emitter_emit_launcher (self, s);
    self->host = g_strdup (s->str + host_start);
  }
  self->source = g_string_free (g_steal_pointer (&s), FALSE);
  prism_cuda_emitter_emit_header (self);
  prism_cuda_emitter_emit_cpu_run (self);
  prism_cuda_emitter_emit_harness (self);
  return g_steal_pointer (&self);
}

void
prism_cuda_emitter_free (PrismCudaEmitter *self)
{
  if (self == NULL)
    return;
  g_clear_pointer (&self->lowered, prism_graph_unref);
  g_free (self->prefix);
  g_free (self->arch);
  g_clear_pointer (&self->inputs, g_array_unref);
  g_clear_pointer (&self->outputs, g_array_unref);
  g_free (self->locs);
  g_clear_pointer (&self->regions, g_array_unref);
  g_clear_pointer (&self->kernels, g_ptr_array_unref);
  g_clear_pointer (&self->cpu_smem, g_array_unref);
  g_free (self->source);
  g_free (self->preamble);
  g_free (self->host);
  g_free (self->header);
  g_free (self->harness);
  g_free (self->cpu_run);
  g_free (self);
}

const char *
prism_cuda_emitter_get_prefix (const PrismCudaEmitter *self)
{
  return self->prefix;
}

const char *
prism_cuda_emitter_get_source (const PrismCudaEmitter *self)
{
  return self->source;
}

const char *
prism_cuda_emitter_get_preamble (const PrismCudaEmitter *self)
{
  return self->preamble;
}

const char *
prism_cuda_emitter_get_host_source (const PrismCudaEmitter *self)
{
  return self->host;
}

const char *
prism_cuda_emitter_get_header (const PrismCudaEmitter *self)
{
  return self->header;
}

const char *
prism_cuda_emitter_get_cpu_harness (const PrismCudaEmitter *self)
{
  return self->harness;
}

const char *
prism_cuda_emitter_get_cpu_run (const PrismCudaEmitter *self)
{
  return self->cpu_run;
}

gsize
prism_cuda_emitter_get_workspace_size (const PrismCudaEmitter *self)
{
  return self->ws_size[PRISM_LAYOUT_GPU];
}

gsize
prism_cuda_emitter_get_workspace_zeroed_bytes (const PrismCudaEmitter *self)
{
  return self->ws_zeroed;
}

gboolean
prism_cuda_emitter_set_resource_usage (PrismCudaEmitter *self, const char *kernel, guint registers,
                                       gint64 spill_bytes)
{
  for (guint i = 0; i < self->kernels->len; i++)
    {
      PrismCudaKernel *k = g_ptr_array_index (self->kernels, i);
      PrismLaunch *l = &k->launch;

      if (g_strcmp0 (k->name, kernel) != 0)
        continue;
      prism_launch_set_registers (l, registers, spill_bytes, self->target->registers_per_sm,
                                  self->target->sm_count);
      return TRUE;
    }
  return FALSE;
}

guint
prism_cuda_emitter_get_n_kernels (const PrismCudaEmitter *self)
{
  return self->kernels->len;
}

const PrismCudaKernel *
prism_cuda_emitter_get_kernel (const PrismCudaEmitter *self, guint index)
{
  g_return_val_if_fail (index < self->kernels->len, NULL);
  return g_ptr_array_index (self->kernels, index);
}

const PrismGraph *
prism_cuda_emitter_get_lowered_graph (const PrismCudaEmitter *self)
{
  return self->lowered;
}

const char *
prism_cuda_emitter_get_arch (const PrismCudaEmitter *self)
{
  return self->arch;
}

/* ------------------------------------------------------------------------ */
/* The manifest */

static void
add_tensor_list (JsonBuilder *b, const PrismCudaEmitter *self, PrismOpKind kind)
{
  guint n = 0;

  json_builder_begin_array (b);
  for (guint j = 0; j < self->lowered->ops->len; j++)
    {
      const PrismOp *op = prism_graph_op (self->lowered, j);
      const PrismTensor *t;
      gint64 shape[PRISM_MAX_DIMS];

      if (op->kind != kind)
        continue;
      t = prism_graph_tensor (self->lowered, kind == PRISM_OP_INPUT ? op->outputs[0] : op->inputs[0]);
      prism_tensor_get_shape (t, shape);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "index");
      json_builder_add_int_value (b, n++);
      json_builder_set_member_name (b, "name");
      json_builder_add_string_value (b, op->name ? op->name : "");
      json_builder_set_member_name (b, "dtype");
      json_builder_add_string_value (b, prism_dtype_to_string (t->dtype));
      json_builder_set_member_name (b, "shape");
      json_builder_begin_array (b);
      for (guint d = 0; d < t->ndims; d++)
        json_builder_add_int_value (b, shape[d]);
      json_builder_end_array (b);
      json_builder_set_member_name (b, "bytes");
      json_builder_add_int_value (b, prism_tensor_numel (t) * prism_dtype_size (t->dtype));
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

static void
add_uint3 (JsonBuilder *b, const char *name, const guint *v)
{
  json_builder_set_member_name (b, name);
  json_builder_begin_array (b);
  for (guint i = 0; i < 3; i++)
    json_builder_add_int_value (b, v[i]);
  json_builder_end_array (b);
}

static const char *
role_name (PrismLaunchRole role)
{
  switch (role)
    {
    case PRISM_LAUNCH_VENDOR_GEMM:
      return "vendor_gemm";
    case PRISM_LAUNCH_BLOCK_GRAPH:
    default:
      return "block_graph";
    }
}

static void
add_gemm (JsonBuilder *b, const PrismLaunch *l)
{
  json_builder_set_member_name (b, "gemm");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "batch");
  json_builder_add_int_value (b, l->gemm_batch);
  json_builder_set_member_name (b, "m");
  json_builder_add_int_value (b, l->gemm_m);
  json_builder_set_member_name (b, "n");
  json_builder_add_int_value (b, l->gemm_n);
  json_builder_set_member_name (b, "k");
  json_builder_add_int_value (b, l->gemm_k);
  json_builder_set_member_name (b, "dtype");
  json_builder_add_string_value (b, prism_dtype_to_string (l->gemm_dtype));
  json_builder_set_member_name (b, "stride_a");
  json_builder_add_int_value (b, l->gemm_m * l->gemm_k);
  json_builder_set_member_name (b, "stride_b");
  json_builder_add_int_value (b, l->gemm_k * l->gemm_n);
  json_builder_set_member_name (b, "stride_c");
  json_builder_add_int_value (b, l->gemm_m * l->gemm_n);
  json_builder_end_object (b);
}

static const char *
arg_kind_name (PrismCudaArgKind kind)
{
  switch (kind)
    {
    case PRISM_CUDA_ARG_INPUT:
      return "input";
    case PRISM_CUDA_ARG_OUTPUT:
      return "output";
    case PRISM_CUDA_ARG_EPOCH:
      return "epoch";
    case PRISM_CUDA_ARG_WORKSPACE:
    default:
      return "workspace";
    }
}

JsonNode *
prism_cuda_emitter_build_manifest (const PrismCudaEmitter *self, const char *source_file,
                                   const char *header_file)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autofree char *launcher = g_strdup_printf ("%s_launch", self->prefix);
  g_autofree char *wsfn = g_strdup_printf ("%s_workspace_size", self->prefix);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "format");
  json_builder_add_string_value (b, "prism-kernels");
  json_builder_set_member_name (b, "version");
  json_builder_add_int_value (b, 1);
  json_builder_set_member_name (b, "program");
  json_builder_add_string_value (b, self->lowered->name ? self->lowered->name : "");
  json_builder_set_member_name (b, "prefix");
  json_builder_add_string_value (b, self->prefix);
  json_builder_set_member_name (b, "target_arch");
  json_builder_add_string_value (b, self->arch);
  json_builder_set_member_name (b, "min_arch");
  json_builder_add_string_value (b, "sm_80");
  json_builder_set_member_name (b, "source");
  json_builder_add_string_value (b, source_file);
  json_builder_set_member_name (b, "header");
  json_builder_add_string_value (b, header_file);
  json_builder_set_member_name (b, "launcher");
  json_builder_add_string_value (b, launcher);
  json_builder_set_member_name (b, "workspace_size_function");
  json_builder_add_string_value (b, wsfn);
  json_builder_set_member_name (b, "workspace_bytes");
  json_builder_add_int_value (b, (gint64) self->ws_size[PRISM_LAYOUT_GPU]);
  json_builder_set_member_name (b, "workspace_zeroed_bytes");
  json_builder_add_int_value (b, (gint64) self->ws_zeroed);
  json_builder_set_member_name (b, "inputs");
  add_tensor_list (b, self, PRISM_OP_INPUT);
  json_builder_set_member_name (b, "outputs");
  add_tensor_list (b, self, PRISM_OP_OUTPUT);

  json_builder_set_member_name (b, "kernels");
  json_builder_begin_array (b);
  for (guint i = 0; i < self->kernels->len; i++)
    {
      const PrismCudaKernel *k = g_ptr_array_index (self->kernels, i);

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "name");
      json_builder_add_string_value (b, k->name);
      json_builder_set_member_name (b, "role");
      json_builder_add_string_value (b, role_name (k->role));
      json_builder_set_member_name (b, "op");
      json_builder_add_int_value (b, k->op_index);
      add_uint3 (b, "grid", k->grid);
      add_uint3 (b, "block", k->block);
      json_builder_set_member_name (b, "shared_memory_bytes");
      json_builder_add_int_value (b, (gint64) k->smem_bytes);
      if (k->role == PRISM_LAUNCH_VENDOR_GEMM)
        add_gemm (b, &k->launch);
      json_builder_set_member_name (b, "report");
      json_builder_begin_object (b);
      prism_launch_add_report (&k->launch, b);
      json_builder_end_object (b);
      json_builder_set_member_name (b, "args");
      json_builder_begin_array (b);
      for (guint j = 0; j < k->n_args; j++)
        {
          const PrismCudaArg *a = &k->args[j];

          json_builder_begin_object (b);
          json_builder_set_member_name (b, "kind");
          json_builder_add_string_value (b, arg_kind_name (a->kind));
          if (a->kind == PRISM_CUDA_ARG_WORKSPACE)
            {
              json_builder_set_member_name (b, "offset");
              json_builder_add_int_value (b, (gint64) a->offset);
            }
          else if (a->kind != PRISM_CUDA_ARG_EPOCH)
            {
              json_builder_set_member_name (b, "index");
              json_builder_add_int_value (b, a->index);
            }
          json_builder_set_member_name (b, "dtype");
          json_builder_add_string_value (b, a->counters || a->kind == PRISM_CUDA_ARG_EPOCH
                                                ? "u32" : prism_dtype_to_string (a->dtype));
          json_builder_set_member_name (b, "const");
          json_builder_add_boolean_value (b, !a->writable);
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}
