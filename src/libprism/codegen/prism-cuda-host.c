/* prism-cuda-host.c — the host side of a generated program
 *
 * The launcher (the extern "C" function that enqueues every launch), the C
 * header declaring it, and the CPU harness that runs the launcher of the CPU
 * build on files: the parts of the generated text that are not kernels.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "prism-cuda-emitter-private.h"
#include "prism-kernel-emit.h"

#define SMEM_NO_OPT_IN 49152

/* The name of the program's input or output @index ("" when it has none). */
static const char *
tensor_name (const PrismCudaEmitter *self, PrismOpKind kind, guint index)
{
  for (guint j = 0, n = 0; j < self->lowered->ops->len; j++)
    {
      const PrismOp *op = prism_graph_op (self->lowered, j);
      if (op->kind == kind && n++ == index)
        return op->name != NULL ? op->name : "";
    }
  return "";
}

static void
emit_workspace_functions (PrismCudaEmitter *self, GString *s)
{
  g_string_append_printf (s,
                          "/* Bytes of workspace %s_launch() needs (GPU layout; the CPU build stores\n"
                          " * every dtype as f32 and needs the second figure). */\n"
                          "extern \"C\" size_t\n%s_workspace_size (void)\n{\n"
                          "  return PRISM_PICK (%" G_GSIZE_FORMAT "u, %" G_GSIZE_FORMAT "u);\n}\n\n",
                          self->prefix, self->prefix, self->ws_size[PRISM_LAYOUT_GPU], self->ws_size[PRISM_LAYOUT_CPU]);
  g_string_append_printf (s,
                          "/* The leading bytes of the workspace that must be zero before the first\n"
                          " * launch (the arrival counters of outputs summed over blocks, which every\n"
                          " * launch then tags with its own epoch). */\n"
                          "extern \"C\" size_t\n%s_workspace_zeroed_bytes (void)\n{\n"
                          "  return %" G_GSIZE_FORMAT "u;\n}\n\n",
                          self->prefix, self->ws_zeroed);
}

/* PREFIX_check_arguments() and PREFIX_error_string(): the codes are those
 * the header defines (PREFIX_ERROR_*). */
static void
emit_argument_check (PrismCudaEmitter *self, GString *s)
{
  const char *p = self->prefix;

  g_string_append_printf (s,
                          "/* 0, or the code of the first pointer argument that is NULL or not 16-byte\n"
                          " * aligned (the kernels move 16-byte vectors). */\n"
                          "extern \"C\" int\n%s_check_arguments (const void *const *inputs, void *const *outputs,\n"
                          "%*s void *workspace)\n{\n", p, (int) strlen (p) + 16, "");
  for (guint i = 0; i < self->inputs->len; i++)
    g_string_append_printf (s, "  if (inputs == nullptr || !prism::aligned16 (inputs[%u]))\n    return %d;\n",
                            i, -100 - (int) i);
  for (guint i = 0; i < self->outputs->len; i++)
    g_string_append_printf (s, "  if (outputs == nullptr || !prism::aligned16 (outputs[%u]))\n    return %d;\n",
                            i, -200 - (int) i);
  g_string_append_printf (s,
                          "  if (workspace == nullptr)\n    return %s_workspace_size () > 0 ? -1 : 0;\n"
                          "  return prism::aligned16 (workspace) ? 0 : -2;\n}\n\n", p);

  g_string_append_printf (s,
                          "/* What the code @code of %s_launch() means (a static string). */\n"
                          "extern \"C\" const char *\n%s_error_string (int code)\n{\n  switch (code)\n    {\n"
                          "    case 0:\n      return \"no error\";\n"
                          "    case -1:\n      return \"the workspace is missing\";\n"
                          "    case -2:\n      return \"the workspace is not 16-byte aligned\";\n", p, p);
  for (guint i = 0; i < self->inputs->len; i++)
    g_string_append_printf (s, "    case %d:\n      return \"inputs[%u] (%s) is NULL or not 16-byte aligned\";\n",
                            -100 - (int) i, i, tensor_name (self, PRISM_OP_INPUT, i));
  for (guint i = 0; i < self->outputs->len; i++)
    g_string_append_printf (s, "    case %d:\n      return \"outputs[%u] (%s) is NULL or not 16-byte aligned\";\n",
                            -200 - (int) i, i, tensor_name (self, PRISM_OP_OUTPUT, i));
  g_string_append (s, "    default:\n      return code > 0 ? \"a CUDA error (see cudaGetErrorString)\" : \"unknown code\";\n"
                   "    }\n}\n\n");
}

/* One launch of kernel @k in the enqueue function. */
static void
emit_one_launch (PrismCudaEmitter *self, GString *s, guint i)
{
  const PrismCudaKernel *k = g_ptr_array_index (self->kernels, i);
  gsize cpu_smem = g_array_index (self->cpu_smem, gsize, i);

  if (k->role == PRISM_LAUNCH_VENDOR_GEMM)
    {
      const PrismLaunch *l = &k->launch;
      /* A, B, C: batched row-major, strides in elements (0: broadcast). */
      g_string_append_printf (s, "  if (int err = PRISM_VENDOR_GEMM (%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
                              ", %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", %s, stream",
                              l->gemm_batch, l->gemm_m, l->gemm_n, l->gemm_k, prism_cuda_ctype (l->gemm_dtype));
    }
  else if (i == 0)
    g_string_append_printf (s, "  PRISM_LAUNCH (%s, dim3 (%u, %u, %u), dim3 (%u, %u, %u),\n"
                            "                PRISM_PICK (%" G_GSIZE_FORMAT "u, %" G_GSIZE_FORMAT "u), stream",
                            k->name, k->grid[0], k->grid[1], k->grid[2], k->block[0], k->block[1],
                            k->block[2], k->smem_bytes, cpu_smem);
  else
    /* Every later launch may overlap the one before it (sm_90). */
    g_string_append_printf (s, "  static std::atomic<int> pdl%u (-1);\n"
                            "  if (int err = PRISM_LAUNCH_AFTER (pdl%u, %s, dim3 (%u, %u, %u), dim3 (%u, %u, %u),\n"
                            "                PRISM_PICK (%" G_GSIZE_FORMAT "u, %" G_GSIZE_FORMAT "u), stream",
                            i, i, k->name, k->grid[0], k->grid[1], k->grid[2], k->block[0], k->block[1],
                            k->block[2], k->smem_bytes, cpu_smem);
  for (guint j = 0; j < k->n_args; j++)
    {
      g_autofree char *full = prism_cuda_emitter_arg_type (&k->args[j]);
      g_autofree char *e = prism_cuda_emitter_arg_expr (self, &k->args[j], full);
      g_string_append_printf (s, ",\n                %s", e);
    }
  g_string_append (s, k->role == PRISM_LAUNCH_VENDOR_GEMM || i > 0 ? "))\n    return err;\n" : ");\n");
}

/* PREFIX_prepare() (the kernels' shared-memory attributes, set outside any
 * stream capture) and PREFIX_enqueue(): every launch, with the given epoch. */
static void
emit_enqueue (PrismCudaEmitter *self, GString *s)
{
  g_string_append_printf (s, "/* What must be set before the kernels are launched or captured. */\n"
                          "static int\n%s_prepare (void)\n{\n", self->prefix);
  for (guint i = 0; i < self->kernels->len; i++)
    {
      const PrismCudaKernel *k = g_ptr_array_index (self->kernels, i);
      if (k->role == PRISM_LAUNCH_BLOCK_GRAPH && k->smem_bytes > SMEM_NO_OPT_IN)
        g_string_append_printf (s, "  if (int err = PRISM_SET_MAX_SMEM (%s, %" G_GSIZE_FORMAT "u))\n"
                                "    return err;\n", k->name, k->smem_bytes);
    }
  g_string_append (s, "  return 0;\n}\n\n");
  g_string_append_printf (s,
                          "/* Enqueues every launch on @stream for the launch of epoch @epoch. */\n"
                          "static int\n%s_enqueue (const void *const *inputs, void *const *outputs,\n"
                          "%*s unsigned char *ws, cudaStream_t stream, unsigned int epoch)\n{\n"
                          "  (void) ws;\n  (void) stream;\n  (void) inputs;\n  (void) epoch;\n",
                          self->prefix, (int) strlen (self->prefix) + 8, "");
  for (guint i = 0; i < self->kernels->len; i++)
    emit_one_launch (self, s, i);
  g_string_append (s, "  return PRISM_LAST_ERROR ();\n}\n\n");
}

/* Whether launch @k takes the epoch (its last argument). */
static gboolean
takes_epoch (const PrismCudaKernel *k)
{
  return k->n_args > 0 && k->args[k->n_args - 1].kind == PRISM_CUDA_ARG_EPOCH;
}

/* The graph's record of its kernel nodes that take the epoch, found by
 * their function after the capture. */
static void
emit_graph_nodes (PrismCudaEmitter *self, GString *s, guint n_epoch)
{
  const char *p = self->prefix;

  g_string_append_printf (s,
                          "#if PRISM_CUDA\n"
                          "/* The captured kernel nodes that take the epoch, and the index of its argument. */\n"
                          "static int\n%s_graph_find_epoch_nodes (%s_graph *g)\n{\n"
                          "  size_t n = 0;\n"
                          "  if (cudaError_t err = cudaGraphGetNodes (g->graph, nullptr, &n))\n    return (int) err;\n"
                          "  cudaGraphNode_t *nodes = (cudaGraphNode_t *) calloc (n + 1, sizeof *nodes);\n"
                          "  if (nodes == nullptr)\n    return (int) cudaErrorMemoryAllocation;\n"
                          "  cudaError_t err = cudaGraphGetNodes (g->graph, nodes, &n);\n"
                          "  for (size_t i = 0; i < n && err == cudaSuccess; i++)\n    {\n"
                          "      cudaGraphNodeType type;\n      cudaKernelNodeParams kp;\n"
                          "      if ((err = cudaGraphNodeGetType (nodes[i], &type)) != cudaSuccess || type != cudaGraphNodeTypeKernel)\n"
                          "        continue;\n"
                          "      if ((err = cudaGraphKernelNodeGetParams (nodes[i], &kp)) != cudaSuccess)\n        break;\n",
                          p, p);
  for (guint i = 0; i < self->kernels->len; i++)
    {
      const PrismCudaKernel *k = g_ptr_array_index (self->kernels, i);
      if (!takes_epoch (k))
        continue;
      g_string_append_printf (s,
                              "      if (kp.func == (void *) %s && g->n_epoch_nodes < %u)\n"
                              "        {\n          g->epoch_nodes[g->n_epoch_nodes] = nodes[i];\n"
                              "          g->epoch_arg[g->n_epoch_nodes++] = %u;\n        }\n",
                              k->name, n_epoch, k->n_args - 1);
    }
  g_string_append (s, "    }\n  free (nodes);\n  return (int) err;\n}\n\n"
                   "/* Gives every kernel node that takes one the epoch @epoch. */\n");
  g_string_append_printf (s,
                          "static int\n%s_graph_set_epoch (%s_graph *g, unsigned int epoch)\n{\n"
                          "  for (unsigned int i = 0; i < g->n_epoch_nodes; i++)\n    {\n"
                          "      cudaKernelNodeParams kp;\n      void *args[%u];\n"
                          "      if (cudaError_t err = cudaGraphKernelNodeGetParams (g->epoch_nodes[i], &kp))\n"
                          "        return (int) err;\n"
                          "      for (unsigned int a = 0; a < g->epoch_arg[i]; a++)\n"
                          "        args[a] = kp.kernelParams[a];\n"
                          "      args[g->epoch_arg[i]] = &epoch;\n"
                          "      kp.kernelParams = args;\n      kp.extra = nullptr;\n"
                          "      if (cudaError_t err = cudaGraphExecKernelNodeSetParams (g->exec, g->epoch_nodes[i], &kp))\n"
                          "        return (int) err;\n    }\n  return 0;\n}\n#endif\n\n",
                          p, p, PRISM_CUDA_MAX_ARGS);
}

/* PREFIX_graph_create/launch/destroy: the whole program as one CUDA graph
 * (one launch's CPU cost, launch gaps the driver can close), its pointers
 * fixed at creation; every graph launch gives the kernels a new epoch. */
static void
emit_graph (PrismCudaEmitter *self, GString *s)
{
  const char *p = self->prefix;
  guint n_epoch = 0;
  /* No copy of a pointer array that may be NULL (no inputs). */
  g_autofree char *copy_in = self->inputs->len == 0 ? g_strdup ("")
    : g_strdup_printf ("  memcpy (g->inputs, inputs, %u * sizeof *inputs);\n", self->inputs->len);
  g_autofree char *copy_out = self->outputs->len == 0 ? g_strdup ("")
    : g_strdup_printf ("  memcpy (g->outputs, outputs, %u * sizeof *outputs);\n", self->outputs->len);

  for (guint i = 0; i < self->kernels->len; i++)
    n_epoch += takes_epoch (g_ptr_array_index (self->kernels, i));
  g_string_append_printf (s,
                          "struct %s_graph\n{\n"
                          "  const void *inputs[%u + 1];\n  void *outputs[%u + 1];\n  unsigned char *ws;\n"
                          "#if PRISM_CUDA\n  cudaGraph_t graph;\n  cudaGraphExec_t exec;\n"
                          "  /* The kernel nodes that take the epoch (%u), and its argument's index. */\n"
                          "  unsigned int n_epoch_nodes;\n"
                          "  cudaGraphNode_t epoch_nodes[%u + 1];\n"
                          "  unsigned int epoch_arg[%u + 1];\n#endif\n};\n\n",
                          p, self->inputs->len, self->outputs->len, n_epoch, n_epoch, n_epoch);
  emit_graph_nodes (self, s, n_epoch);
  g_string_append_printf (s,
                          "/* Frees @graph (NULL: nothing). */\n"
                          "extern \"C\" void\n%s_graph_destroy (%s_graph *graph)\n{\n"
                          "  if (graph == nullptr)\n    return;\n"
                          "#if PRISM_CUDA\n  if (graph->exec != nullptr)\n    cudaGraphExecDestroy (graph->exec);\n"
                          "  if (graph->graph != nullptr)\n    cudaGraphDestroy (graph->graph);\n#endif\n"
                          "  free (graph);\n}\n\n", p, p);
  g_string_append_printf (s,
                          "/* Captures the program's launches on @inputs, @outputs and @workspace into a\n"
                          " * CUDA graph: 0 and *@graph, or the code %s_launch() would return. */\n"
                          "extern \"C\" int\n%s_graph_create (const void *const *inputs, void *const *outputs,\n"
                          "%*s void *workspace, %s_graph **graph)\n{\n"
                          "  if (int err = %s_check_arguments (inputs, outputs, workspace))\n    return err;\n"
                          "  if (int err = %s_prepare ())\n    return err;\n"
                          "  %s_graph *g = (%s_graph *) calloc (1, sizeof *g);\n"
                          "  if (g == nullptr)\n    return 2; /* cudaErrorMemoryAllocation */\n"
                          "%s%s"
                          "  g->ws = (unsigned char *) workspace;\n"
                          "#if PRISM_CUDA\n"
                          "  cudaStream_t capture = nullptr;\n"
                          "  int err = (int) cudaStreamCreateWithFlags (&capture, cudaStreamNonBlocking);\n"
                          "  if (err == 0)\n    {\n"
                          "      err = (int) cudaStreamBeginCapture (capture, cudaStreamCaptureModeThreadLocal);\n"
                          "      if (err == 0)\n        {\n"
                          "          int launch_err = %s_enqueue (g->inputs, g->outputs, g->ws, capture, 0);\n"
                          "          err = (int) cudaStreamEndCapture (capture, &g->graph);\n"
                          "          if (launch_err != 0)\n            err = launch_err;\n        }\n"
                          "      cudaStreamDestroy (capture);\n    }\n"
                          "  if (err == 0)\n    err = (int) cudaGraphInstantiate (&g->exec, g->graph, 0);\n"
                          "  if (err == 0)\n    err = %s_graph_find_epoch_nodes (g);\n"
                          "  if (err != 0)\n    {\n      %s_graph_destroy (g);\n      return err;\n    }\n"
                          "#endif\n  *graph = g;\n  return 0;\n}\n\n",
                          p, p, (int) strlen (p) + 14, "", p, p, p, p, p,
                          copy_in, copy_out, p, p, p);
  g_string_append_printf (s,
                          "/* Launches @graph on @stream with a new epoch; 0 or a CUDA error. */\n"
                          "extern \"C\" int\n%s_graph_launch (%s_graph *graph, cudaStream_t stream)\n{\n"
                          "  unsigned int epoch = prism::next_launch_epoch ();\n"
                          "#if PRISM_CUDA\n"
                          "  if (int err = %s_graph_set_epoch (graph, epoch))\n    return err;\n"
                          "  return (int) cudaGraphLaunch (graph->exec, stream);\n"
                          "#else\n"
                          "  return %s_enqueue (graph->inputs, graph->outputs, graph->ws, stream, epoch);\n"
                          "#endif\n}\n\n", p, p, p, p);
}

void
prism_cuda_emitter_emit_launcher (PrismCudaEmitter *self, GString *s)
{
  const char *p = self->prefix;

  g_string_append (s, "#if !defined(__CUDACC_RTC__)\n\n");
  emit_workspace_functions (self, s);
  emit_argument_check (self, s);
  emit_enqueue (self, s);
  g_string_append_printf (s,
                          "/* Runs the program on @stream.  Returns 0, the %s_check_arguments() code of\n"
                          " * a missing or misaligned pointer, or the first CUDA error. */\n"
                          "extern \"C\" int\n%s_launch (const void *const *inputs, void *const *outputs,\n"
                          "%*s void *workspace, cudaStream_t stream)\n{\n"
                          "  if (int err = %s_check_arguments (inputs, outputs, workspace))\n    return err;\n"
                          "  if (int err = %s_prepare ())\n    return err;\n"
                          "  return %s_enqueue (inputs, outputs, (unsigned char *) workspace, stream,\n"
                          "%*s prism::next_launch_epoch ());\n}\n\n",
                          p, p, (int) strlen (p) + 8, "", p, p, p, (int) strlen (p) + 19, "");
  emit_graph (self, s);
  g_string_append (s, "#endif /* !__CUDACC_RTC__ */\n");
}

static void
describe_tensor (GString *s, const PrismCudaEmitter *self, guint t, const char *label, guint index)
{
  const PrismTensor *tensor = prism_graph_tensor (self->lowered, t);
  const PrismOp *op = prism_graph_op (self->lowered, tensor->producer);
  g_autofree char *shape = prism_tensor_shape_to_string (self->lowered, tensor);

  g_string_append_printf (s, " *   %s[%u]: %s %s %s\n", label, index,
                          op->kind == PRISM_OP_INPUT && op->name ? op->name : "",
                          prism_dtype_to_string (tensor->dtype), shape);
}

void
prism_cuda_emitter_emit_header (PrismCudaEmitter *self)
{
  GString *s = g_string_new (NULL);
  g_autofree char *guard = g_ascii_strup (self->prefix, -1);

  g_string_append_printf (s, "/* %s.h — generated by Prism Explorer %s; do not edit.\n *\n",
                          self->prefix, PACKAGE_VERSION);
  g_string_append_printf (s, " * Program: %s (target %s)\n *\n",
                          self->lowered->name ? self->lowered->name : "(unnamed)", self->arch);
  g_string_append (s, " * Device pointers, row-major, 16-byte aligned:\n");
  for (guint i = 0; i < self->inputs->len; i++)
    describe_tensor (s, self, g_array_index (self->inputs, guint, i), "inputs", i);
  for (guint i = 0; i < self->outputs->len; i++)
    {
      const PrismTensor *tensor = prism_graph_tensor (self->lowered, g_array_index (self->outputs, guint, i));
      g_autofree char *shape = prism_tensor_shape_to_string (self->lowered, tensor);
      const char *name = NULL;
      for (guint j = 0, n = 0; j < self->lowered->ops->len; j++)
        {
          const PrismOp *op = prism_graph_op (self->lowered, j);
          if (op->kind == PRISM_OP_OUTPUT && n++ == i)
            name = op->name;
        }
      g_string_append_printf (s, " *   outputs[%u]: %s %s %s\n", i, name ? name : "",
                              prism_dtype_to_string (tensor->dtype), shape);
    }
  g_string_append_printf (s,
                          " */\n#ifndef %s_H\n#define %s_H\n\n#include <stddef.h>\n\n"
                          "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
                          "struct CUstream_st; /* cudaStream_t */\n\n"
                          "#define %s_NUM_INPUTS %u\n#define %s_NUM_OUTPUTS %u\n\n"
                          "/* Bytes of device memory to pass as @workspace (may be 0), 16-byte aligned.\n"
                          " * Zero its first %s_workspace_zeroed_bytes () bytes once after allocating\n"
                          " * it (e.g. cudaMemset).  Each launch tags the arrival counters there with its\n"
                          " * own epoch, so a launch that died half-way does not upset the next one.\n"
                          " * One workspace per concurrent stream: two launches in flight at once on\n"
                          " * one workspace race on its counters and partial sums. */\n"
                          "size_t %s_workspace_size (void);\n"
                          "size_t %s_workspace_zeroed_bytes (void);\n\n"
                          "/* What %s_launch() returns besides 0 and a cudaError_t value (> 0). */\n"
                          "#define %s_ERROR_NO_WORKSPACE (-1)        /* workspace NULL, size > 0 */\n"
                          "#define %s_ERROR_WORKSPACE_ALIGNMENT (-2) /* not 16-byte aligned */\n"
                          "#define %s_ERROR_INPUT(i) (-100 - (i))    /* inputs[i] NULL or misaligned */\n"
                          "#define %s_ERROR_OUTPUT(i) (-200 - (i))   /* outputs[i] NULL or misaligned */\n\n"
                          "/* 0, or the code of the first pointer that is NULL or not 16-byte aligned. */\n"
                          "int %s_check_arguments (const void *const *inputs, void *const *outputs,\n"
                          "%*s void *workspace);\n\n"
                          "/* A static string naming what @code (a return value) means: the argument. */\n"
                          "const char *%s_error_string (int code);\n\n"
                          "/* Enqueues the program on @stream; returns 0, a %s_ERROR_* code or a\n"
                          " * cudaError_t value. */\n"
                          "int %s_launch (const void *const *inputs, void *const *outputs,\n"
                          "%*s void *workspace, struct CUstream_st *stream);\n\n"
                          "/* The program as one CUDA graph, its pointers fixed at creation (checked as\n"
                          " * by %s_launch()): create once, launch many times (each launch with a new\n"
                          " * epoch), destroy.  Returns 0, a %s_ERROR_* code or a cudaError_t value. */\n"
                          "typedef struct %s_graph %s_graph;\n"
                          "int %s_graph_create (const void *const *inputs, void *const *outputs,\n"
                          "%*s void *workspace, %s_graph **graph);\n"
                          "/* Not from two threads at once on one graph (it sets the epoch in place). */\n"
                          "int %s_graph_launch (%s_graph *graph, struct CUstream_st *stream);\n"
                          "void %s_graph_destroy (%s_graph *graph);\n\n"
                          "#ifdef __cplusplus\n}\n#endif\n\n#endif /* %s_H */\n",
                          guard, guard, guard, self->inputs->len, guard, self->outputs->len,
                          self->prefix, self->prefix, self->prefix, self->prefix,
                          guard, guard, guard, guard,
                          self->prefix, (int) strlen (self->prefix) + 21, "",
                          self->prefix, guard,
                          self->prefix, (int) strlen (self->prefix) + 12, "",
                          self->prefix, guard, self->prefix, self->prefix,
                          self->prefix, (int) strlen (self->prefix) + 18, "", self->prefix,
                          self->prefix, self->prefix, self->prefix, self->prefix, guard);
  self->header = g_string_free (s, FALSE);
}

/* Shared by every run function, so that many programs' runs fit one
 * translation unit (static: one copy per harness). */
static const char harness_helpers[] =
  "#include <cstdio>\n#include <cstdlib>\n#include <cstring>\n\n"
  "static float *\nprism_harness_load (const char *dir, const char *name, size_t n)\n{\n"
  "  char path[4096];\n  float *p = (float *) malloc (n * sizeof (float) + 1);\n"
  "  snprintf (path, sizeof path, \"%s/%s\", dir, name);\n"
  "  FILE *f = fopen (path, \"rb\");\n"
  "  if (f == NULL || p == NULL || fread (p, sizeof (float), n, f) != n)\n"
  "    {\n      fprintf (stderr, \"cannot read %zu floats from %s\\n\", n, path);\n"
  "      if (f != NULL)\n        fclose (f);\n      free (p);\n      return NULL;\n    }\n"
  "  fclose (f);\n  return p;\n}\n\n"
  "static bool\nprism_harness_save (const char *dir, const char *name, const float *p, size_t n)\n{\n"
  "  char path[4096];\n  snprintf (path, sizeof path, \"%s/%s\", dir, name);\n"
  "  FILE *f = fopen (path, \"wb\");\n"
  "  bool ok = f != NULL && fwrite (p, sizeof (float), n, f) == n;\n"
  "  if (f != NULL && fclose (f) != 0)\n    ok = false;\n"
  "  if (!ok)\n    fprintf (stderr, \"cannot write %s\\n\", path);\n"
  "  return ok;\n}\n\n";

const char *
prism_cuda_cpu_harness_helpers (void)
{
  return harness_helpers;
}

void
prism_cuda_emitter_emit_cpu_run (PrismCudaEmitter *self)
{
  GString *s = g_string_new (NULL);
  guint n_in = self->inputs->len, n_out = self->outputs->len;

  g_string_append_printf (s,
                          "/* Runs the CPU build of %s_launch() on in_dir/inK.f32 and writes\n"
                          " * out_dir/outK.f32 (raw little-endian f32); 0 on success. */\n"
                          "int\n%s_cpu_run (const char *in_dir, const char *out_dir)\n{\n"
                          "  float *in[%u + 1] = { NULL, };\n  float *out[%u + 1] = { NULL, };\n"
                          "  void *ws = NULL;\n  int rc = 1;\n\n",
                          self->prefix, self->prefix, n_in, n_out);
  for (guint i = 0; i < n_in; i++)
    g_string_append_printf (s, "  if ((in[%u] = prism_harness_load (in_dir, \"in%u.f32\", %" G_GINT64_FORMAT
                            ")) == NULL)\n    goto out;\n", i, i,
                            prism_tensor_numel (prism_graph_tensor (self->lowered,
                                                                    g_array_index (self->inputs, guint, i))));
  /* Outputs and the workspace start as NaN (0xff bytes) so that an element
   * nobody writes shows up. */
  for (guint i = 0; i < n_out; i++)
    {
      gint64 n = prism_tensor_numel (prism_graph_tensor (self->lowered, g_array_index (self->outputs, guint, i)));
      g_string_append_printf (s, "  out[%u] = (float *) malloc (%" G_GINT64_FORMAT " * sizeof (float));\n"
                              "  if (out[%u] == NULL)\n    goto out;\n"
                              "  memset (out[%u], 0xff, %" G_GINT64_FORMAT " * sizeof (float));\n",
                              i, n, i, i, n);
    }
  g_string_append_printf (s, "  {\n    size_t ws_size = %s_workspace_size ();\n"
                          "    ws = ws_size > 0 ? malloc (ws_size) : NULL;\n"
                          "    if (ws != NULL)\n      {\n        memset (ws, 0xff, ws_size);\n"
                          "        memset (ws, 0, %s_workspace_zeroed_bytes ());\n      }\n"
                          "    const void *inputs[] = { ", self->prefix, self->prefix);
  for (guint i = 0; i < n_in; i++)
    g_string_append_printf (s, "in[%u], ", i);
  g_string_append (s, "NULL };\n    void *outputs[] = { ");
  for (guint i = 0; i < n_out; i++)
    g_string_append_printf (s, "out[%u], ", i);
  g_string_append_printf (s, "NULL };\n    int err = %s_launch (inputs, outputs, ws, NULL);\n"
                          "    if (err != 0)\n      {\n        fprintf (stderr, \"%s: launch failed: %%d\\n\", err);\n"
                          "        goto out;\n      }\n  }\n", self->prefix, self->prefix);
  for (guint i = 0; i < n_out; i++)
    g_string_append_printf (s, "  if (!prism_harness_save (out_dir, \"out%u.f32\", out[%u], %" G_GINT64_FORMAT "))\n"
                            "    goto out;\n", i, i,
                            prism_tensor_numel (prism_graph_tensor (self->lowered,
                                                                    g_array_index (self->outputs, guint, i))));
  g_string_append_printf (s, "  rc = 0;\n\nout:\n"
                          "  for (unsigned i = 0; i < %u; i++)\n    free (in[i]);\n"
                          "  for (unsigned i = 0; i < %u; i++)\n    free (out[i]);\n"
                          "  free (ws);\n  return rc;\n}\n", n_in, n_out);
  self->cpu_run = g_string_free (s, FALSE);
}

void
prism_cuda_emitter_emit_harness (PrismCudaEmitter *self)
{
  GString *s = g_string_new (NULL);

  g_string_append_printf (s,
                          "/* CPU test harness of %s (generated): reads DIR/inK.f32, runs the CPU\n"
                          " * build of the launcher, writes DIR/outK.f32 (raw little-endian f32). */\n",
                          self->prefix);
  g_string_append (s, harness_helpers);
  g_string_append_printf (s, "#include \"%s.h\"\n\n", self->prefix);
  g_string_append (s, self->cpu_run);
  g_string_append_printf (s,
                          "\nint\nmain (int argc, char **argv)\n{\n"
                          "  if (argc != 2)\n    {\n      fprintf (stderr, \"usage: %%s DIR\\n\", argv[0]);\n"
                          "      return 2;\n    }\n"
                          "  return %s_cpu_run (argv[1], argv[1]);\n}\n", self->prefix);
  self->harness = g_string_free (s, FALSE);
}

