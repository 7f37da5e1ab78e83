/* prism-kernel-report.c — a program's generated CUDA and every launch it makes, priced
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The Kernel page shows what `prism export` would write and what the cost
 * model would charge for it, so the report is made from the same two
 * engine calls: the emitter's launches, each priced by
 * prism_cost_model_launch() (which /launch-plan/emitter-and-model-agree
 * checks is the model's prediction of the whole graph).  Nothing here
 * touches GTK: the page makes reports on a worker thread.
 */
#define G_LOG_DOMAIN "prism-kernel-report"

#include "config.h"

#include <string.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "prism-error.h"
#include "prism-export.h"
#include "prism-kernel-headers.h"
#include "prism-kernel-report.h"
#include "prism-ptxas.h"

/*
 * Auxiliary methods
 */

static void
launch_clear (gpointer data)
{
  PrismKernelReportLaunch *launch = data;

  g_clear_pointer (&launch->name, g_free);
  g_clear_pointer (&launch->ops, g_free);
}

/* The operators a block graph computes, in order, each named once. */
static char *
describe_body (const PrismGraph *body)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new ();

  for (guint i = 0; body != NULL && i < body->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (body, i);
      const char *name = prism_op_kind_to_string (op->kind);

      if (op->kind == PRISM_OP_INPUT || op->kind == PRISM_OP_OUTPUT)
        continue;
      if (!g_ptr_array_find_with_equal_func (names, name, g_str_equal, NULL))
        g_ptr_array_add (names, (gpointer) name);
    }
  if (names->len == 0)
    return g_strdup ("copy");
  g_ptr_array_add (names, NULL);
  return g_strjoinv (", ", (char **) names->pdata);
}

/* Lowering keeps a custom kernel's body as it is (the same block graph,
 * referenced), so a launch whose body is one of @graph's own is one of the
 * program's custom kernels; any other is a helper made by the lowering. */
static gboolean
is_custom_body (const PrismGraph *graph,
                const PrismGraph *body)
{
  for (guint i = 0; i < graph->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (graph, i);

      if (op->kind == PRISM_OP_KERNEL && op->body == body)
        return TRUE;
    }
  return FALSE;
}

static void
describe_launch (const PrismGraph        *graph,
                 const PrismCudaEmitter  *emitter,
                 const PrismCudaKernel   *kernel,
                 PrismKernelReportLaunch *out)
{
  const PrismGraph *lowered = prism_cuda_emitter_get_lowered_graph (emitter);
  const PrismGraph *body = NULL;

  if (kernel->op_index >= 0 && (guint) kernel->op_index < lowered->ops->len)
    body = prism_graph_op (lowered, (guint) kernel->op_index)->body;

  out->name = g_strdup (kernel->name);
  memcpy (out->grid, kernel->grid, sizeof out->grid);
  memcpy (out->block, kernel->block, sizeof out->block);
  out->smem_bytes = kernel->smem_bytes;
  if (kernel->role == PRISM_LAUNCH_VENDOR_GEMM)
    {
      out->role = PRISM_KERNEL_ROLE_VENDOR;
      out->ops = g_strdup (prism_op_kind_to_string (PRISM_OP_MATMUL));
      return;
    }
  out->ops = describe_body (body);
  if (body != NULL && is_custom_body (graph, body))
    out->role = PRISM_KERNEL_ROLE_CUSTOM;
  else if (g_str_equal (out->ops, "copy"))
    out->role = PRISM_KERNEL_ROLE_COPY;
  else
    out->role = PRISM_KERNEL_ROLE_LOWERED;
}

static void
remove_tree (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      if (g_file_test (child, G_FILE_TEST_IS_DIR) && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
        remove_tree (child);
      else
        g_unlink (child);
    }
  g_rmdir (path);
}

/* Compiles the source in a folder of its own, as the exported bundle
 * would be compiled, and records what ptxas says.  Returns the note. */
static char *
measure_registers (PrismCudaEmitter *emitter,
                   gboolean         *measured)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("prism-registers-XXXXXX", &error);
  g_autofree char *source = NULL;
  g_autofree char *include_dir = NULL;
  g_autofree char *tool = NULL;
  char *note;

  *measured = FALSE;
  if (dir == NULL)
    return g_strdup (error->message);
  source = g_build_filename (dir, "kernels.cu", NULL);
  include_dir = g_build_filename (dir, PRISM_EXPORT_KERNELS_DIR, NULL);
  if (g_file_set_contents (source, prism_cuda_emitter_get_source (emitter), -1, &error) &&
      prism_kernel_headers_write (include_dir, &error) &&
      prism_ptxas_resource_usage (emitter, source, include_dir, &tool, &error))
    {
      *measured = TRUE;
      note = g_steal_pointer (&tool);
    }
  else
    note = g_strdup (error->message);
  remove_tree (dir);
  return note;
}

/*
 * Public API
 */

PrismKernelReport *
prism_kernel_report_new (const PrismGraph     *graph,
                         const PrismGpuTarget *target,
                         gboolean              vendor_matmul,
                         gboolean              measure,
                         GCancellable         *cancellable,
                         GError              **error)
{
  PrismCudaOptions options = { 0, };
  g_autoptr(PrismCudaEmitter) emitter = NULL;
  PrismKernelReport *report;

  g_return_val_if_fail (graph != NULL, NULL);
  g_return_val_if_fail (target != NULL, NULL);

  /* The options of the window's Export Kernel… and of `prism export
   * --target`: code for the Preferences' GPU. */
  options.sm = target->compute_capability;
  options.target = target;
  options.vendor_matmul = vendor_matmul;
  emitter = prism_cuda_emitter_new (graph, &options, error);
  if (emitter == NULL)
    return NULL;

  report = g_new0 (PrismKernelReport, 1);
  report->ref_count = 1;
  report->target = target;
  report->arch = g_strdup (prism_cuda_emitter_get_arch (emitter));
  report->source = g_strdup (prism_cuda_emitter_get_source (emitter));
  report->launches = g_array_new (FALSE, TRUE, sizeof (PrismKernelReportLaunch));
  g_array_set_clear_func (report->launches, launch_clear);

  if (measure)
    {
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        {
          prism_kernel_report_unref (report);
          return NULL;
        }
      report->registers_note = measure_registers (emitter, &report->registers_measured);
    }

  /* Priced after ptxas, whose registers change the occupancy. */
  for (guint i = 0; i < prism_cuda_emitter_get_n_kernels (emitter); i++)
    {
      const PrismCudaKernel *kernel = prism_cuda_emitter_get_kernel (emitter, i);
      PrismKernelReportLaunch launch = { 0, };

      describe_launch (graph, emitter, kernel, &launch);
      prism_cost_model_launch (target, &kernel->launch, &launch.cost);
      report->total_us += launch.cost.us;
      g_array_append_val (report->launches, launch);
    }
  return report;
}

PrismKernelReport *
prism_kernel_report_ref (PrismKernelReport *report)
{
  g_return_val_if_fail (report != NULL, NULL);
  g_atomic_int_inc (&report->ref_count);
  return report;
}

void
prism_kernel_report_unref (PrismKernelReport *report)
{
  if (report == NULL || !g_atomic_int_dec_and_test (&report->ref_count))
    return;
  g_free (report->source);
  g_free (report->arch);
  g_free (report->registers_note);
  g_array_unref (report->launches);
  g_free (report);
}

guint
prism_kernel_report_get_n_launches (const PrismKernelReport *report)
{
  g_return_val_if_fail (report != NULL, 0);
  return report->launches->len;
}

const PrismKernelReportLaunch *
prism_kernel_report_get_launch (const PrismKernelReport *report,
                                guint                    index)
{
  g_return_val_if_fail (report != NULL, NULL);
  g_return_val_if_fail (index < report->launches->len, NULL);
  return &g_array_index (report->launches, PrismKernelReportLaunch, index);
}

double
prism_kernel_report_launch_flops (const PrismKernelReportLaunch *launch)
{
  const PrismLaunch *l = &launch->cost.launch;

  return l->tensor_flops + l->fma_flops + l->other_flops;
}

double
prism_kernel_report_get_flops (const PrismKernelReport *report)
{
  double flops = 0;

  for (guint i = 0; i < report->launches->len; i++)
    flops += prism_kernel_report_launch_flops (prism_kernel_report_get_launch (report, i));
  return flops;
}

double
prism_kernel_report_get_dram_bytes (const PrismKernelReport *report)
{
  double bytes = 0;

  for (guint i = 0; i < report->launches->len; i++)
    bytes += prism_kernel_report_get_launch (report, i)->cost.launch.dram_bytes;
  return bytes;
}

const char *
prism_kernel_report_launch_limiter (const PrismKernelReportLaunch *launch)
{
  const PrismOpCost *c = &launch->cost;
  double terms[4] = { c->memory_us, c->l2_us, c->compute_us, c->latency_us };
  const char *names[4] = {
    C_("cost term", "DRAM"), C_("cost term", "L2"), C_("cost term", "compute"), C_("cost term", "latency"),
  };
  guint largest = 0;

  for (guint i = 1; i < G_N_ELEMENTS (terms); i++)
    if (terms[i] > terms[largest])
      largest = i;
  /* cuBLASLt's shortest GEMM is a floor under its terms. */
  if (c->us > c->launch_us + terms[largest] * (1 + 1e-9) + 1e-9)
    return C_("cost term", "cuBLASLt minimum");
  return names[largest];
}

const char *
prism_kernel_role_to_label (PrismKernelRole role)
{
  switch (role)
    {
    case PRISM_KERNEL_ROLE_CUSTOM:  return C_("launch role", "Custom kernel");
    case PRISM_KERNEL_ROLE_LOWERED: return C_("launch role", "Lowered op");
    case PRISM_KERNEL_ROLE_COPY:    return C_("launch role", "Copy");
    case PRISM_KERNEL_ROLE_VENDOR:  return C_("launch role", "cuBLASLt");
    default:
      g_return_val_if_reached ("?");
    }
}
