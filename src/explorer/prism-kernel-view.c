/* prism-kernel-view.c — the Kernel page: the selected candidate's CUDA, launches and roofline
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "prism-kernel-view"

#include "config.h"

#include <glib/gi18n.h>
#include <gtksourceview/gtksource.h>

#include "prism-format.h"
#include "prism-column-title.h"
#include "prism-kernel-source.h"
#include "prism-kernel-view.h"
#include "prism-launch-row.h"
#include "prism-ptxas.h"

/* The page shows what `prism export` would write for the selected
 * candidate (or, with none selected, for the baseline) and what the cost
 * model charges for each launch.  Generating and planning take a few
 * milliseconds, registers through nvcc seconds: both run on a worker
 * thread (PrismKernelReport), and a result is shown only if nothing it
 * depends on changed meanwhile.  The page makes nothing while it is not
 * on screen, so that a search is never slowed by a page no one looks at. */

/* The time first, and what sets it; then the static report; then the
 * cost model's terms. */
typedef enum
{
  COLUMN_KERNEL,
  COLUMN_ROLE,
  COLUMN_OPS,
  COLUMN_PREDICTED,
  COLUMN_BOUND,
  COLUMN_GRID,
  COLUMN_BLOCK,
  COLUMN_SMEM,
  COLUMN_REGISTERS,
  COLUMN_STAGES,
  COLUMN_IN_FLIGHT,
  COLUMN_BLOCKS_PER_SM,
  COLUMN_WORK_WARPS,
  COLUMN_MMA,
  COLUMN_LAUNCH,
  COLUMN_DRAM,
  COLUMN_L2,
  COLUMN_COMPUTE,
  COLUMN_LATENCY,
  N_COLUMNS
} Column;

static const char * const column_ids[N_COLUMNS] = {
  "kernel", "role", "ops", "predicted", "bound", "grid", "block", "smem", "registers", "stages",
  "in-flight", "blocks-per-sm", "work-warps", "mma", "launch", "dram", "l2", "compute", "latency",
};

struct _PrismKernelView
{
  GtkWidget parent_instance;

  /* Owned References */
  PrismSearchModel *model;
  PrismGraph *program;
  PrismCandidateRow *candidate;
  PrismKernelReport *report;            /* shown: the candidate's, or the baseline's */
  PrismKernelReport *baseline_report;
  GListStore *launches;                 /* PrismLaunchRow of @report */
  GtkSingleSelection *selection;        /* of @launches: the launch linked */
  GtkTextTag *launch_tag;               /* the selected launch's lines */
  GCancellable *cancellable;            /* the report in the making, or NULL */
  char *target;
  char *message;
  gulong changed_handler;
  gulong candidate_handlers[1];

  /* What the report shown was made for. */
  PrismBaselineKind shown_kind;
  double shown_candidate_us;
  double shown_baseline_us;

  /* Template Widgets */
  GtkLabel *title_label;
  GtkLabel *subtitle_label;
  GtkLabel *registers_label;
  GtkSpinner *spinner;
  GtkButton *measure_button;
  GtkMenuButton *columns_button;
  GtkStack *content_stack;
  GtkColumnView *column_view;
  GtkSourceView *source_view;
  GtkButton *reset_zoom_button;
  GdkFrameClock *source_clock;     /* shows the source after its next paint */
  gulong source_handler;
  PrismRooflineChart *roofline;
  GtkLabel *message_title;
  GtkLabel *message_label;

  guint dirty : 1;         /* to be made again when next on screen */
  guint shown_baseline : 1;  /* the report shown is the baseline's */
  guint linking : 1;       /* the page moves the source's cursor itself */
  guint measuring : 1;     /* the report in the making compiles with nvcc */
};

G_DEFINE_FINAL_TYPE (PrismKernelView, prism_kernel_view, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_TARGET,
  PROP_LOADING,
  N_PROPS
};

static GParamSpec *properties [N_PROPS];

static void update_labels (PrismKernelView *self);
static void link_source (PrismKernelView *self);

/* What the worker needs, copied or referenced: it never reads the page. */
typedef struct
{
  PrismGraph *program;          /* owned */
  PrismCandidate *candidate;    /* owned, nullable */
  const PrismGpuTarget *target; /* built in: lives as long as the process */
  gboolean vendor;              /* the baseline's matmuls through cuBLASLt */
  gboolean measure;             /* registers of the program shown, from nvcc */
} Job;

typedef struct
{
  PrismKernelReport *candidate; /* nullable */
  PrismKernelReport *baseline;  /* nullable */
  char *error;                  /* why the program shown has no report */
} JobResult;

/*
 * Auxiliary methods
 */

static void
job_free (Job *job)
{
  g_clear_pointer (&job->program, prism_graph_unref);
  g_clear_pointer (&job->candidate, prism_candidate_unref);
  g_free (job);
}

static void
job_result_free (JobResult *result)
{
  g_clear_pointer (&result->candidate, prism_kernel_report_unref);
  g_clear_pointer (&result->baseline, prism_kernel_report_unref);
  g_free (result->error);
  g_free (result);
}

static const PrismGpuTarget *
lookup_target (PrismKernelView *self)
{
  const PrismGpuTarget *target = self->target ? prism_gpu_target_lookup (self->target) : NULL;

  return target ? target : prism_gpu_target_default ();
}

static PrismBaselineKind
baseline_kind (PrismKernelView *self)
{
  PrismBaselineKind kind = PRISM_BASELINE_VENDOR;

  if (self->model != NULL)
    prism_baseline_kind_from_string (prism_search_model_get_baseline (self->model), &kind);
  return kind;
}

static double
candidate_measured_us (PrismKernelView *self)
{
  if (self->candidate == NULL || !prism_candidate_row_get_measured (self->candidate))
    return -1;
  return prism_candidate_row_get_measured_us (self->candidate);
}

static double
baseline_measured_us (PrismKernelView *self)
{
  return self->model ? prism_search_model_get_baseline_measured_us (self->model) : -1;
}

static char *
format_dims (const guint dims[3])
{
  if (dims[0] == 0)
    return g_strdup ("—");
  return g_strdup_printf ("%u × %u × %u", dims[0], dims[1], dims[2]);
}

static char *
format_count_or_dash (guint64 value)
{
  return value > 0 ? g_strdup_printf ("%" G_GUINT64_FORMAT, value) : g_strdup ("—");
}

static char *
cell_text (const PrismKernelReportLaunch *launch,
           Column                         column)
{
  const PrismLaunch *l = &launch->cost.launch;
  const PrismOpCost *c = &launch->cost;
  gboolean vendor = launch->role == PRISM_KERNEL_ROLE_VENDOR;

  switch (column)
    {
    case COLUMN_KERNEL:
      return g_strdup (launch->name);
    case COLUMN_ROLE:
      return g_strdup (prism_kernel_role_to_label (launch->role));
    case COLUMN_OPS:
      return g_strdup (launch->ops);
    case COLUMN_GRID:
      return format_dims (launch->grid);
    case COLUMN_BLOCK:
      return format_dims (launch->block);
    case COLUMN_SMEM:
      return vendor ? g_strdup ("—") : prism_format_bytes (launch->smem_bytes);
    case COLUMN_REGISTERS:
      /* Only ptxas knows: the planner's estimate is not shown as a fact. */
      if (!l->registers_measured)
        return g_strdup ("—");
      if (l->spill_bytes > 0)
        {
          /* A gettext msgid cannot hold G_GINT64_FORMAT: the number goes in as text. */
          g_autofree char *bytes = g_strdup_printf ("%" G_GINT64_FORMAT, (gint64) l->spill_bytes);

          /* Translators: registers per thread, and the bytes ptxas spilled */
          return g_strdup_printf (_("%u (spills %s B)"), l->registers, bytes);
        }
      return g_strdup_printf ("%u", l->registers);
    case COLUMN_STAGES:
      return vendor ? g_strdup ("—") : g_strdup_printf ("%u", l->stages);
    case COLUMN_IN_FLIGHT:
      return vendor ? g_strdup ("—") : prism_format_bytes (l->bytes_in_flight_per_sm);
    case COLUMN_BLOCKS_PER_SM:
      return vendor ? g_strdup ("—") : format_count_or_dash (l->blocks_per_sm);
    case COLUMN_WORK_WARPS:
      if (vendor)
        return g_strdup ("—");
      /* Translators: the warps of a block that do its work, of all its warps */
      return g_strdup_printf (_("%u of %u"), l->work_warps, l->warps);
    case COLUMN_MMA:
      return g_strdup (prism_mma_path_to_string (l->mma));
    case COLUMN_PREDICTED:
      return prism_format_time_us (c->us);
    case COLUMN_BOUND:
      return g_strdup (prism_kernel_report_launch_limiter (launch));
    case COLUMN_LAUNCH:
      return prism_format_time_us (c->launch_us);
    case COLUMN_DRAM:
      return prism_format_time_us (c->memory_us);
    case COLUMN_L2:
      return vendor ? g_strdup ("—") : prism_format_time_us (c->l2_us);
    case COLUMN_COMPUTE:
      return prism_format_time_us (c->compute_us);
    case COLUMN_LATENCY:
      return vendor ? g_strdup ("—") : prism_format_time_us (c->latency_us);
    case N_COLUMNS:
    default:
      g_assert_not_reached ();
    }
}

static const char *
column_title (Column column)
{
  switch (column)
    {
    case COLUMN_KERNEL:        return C_("launch column", "Kernel");
    case COLUMN_ROLE:          return C_("launch column", "Role");
    case COLUMN_OPS:           return C_("launch column", "Operators");
    case COLUMN_GRID:          return C_("launch column", "Grid");
    case COLUMN_BLOCK:         return C_("launch column", "Block");
    case COLUMN_SMEM:          return C_("launch column", "Shared");
    case COLUMN_REGISTERS:     return C_("launch column", "Registers");
    case COLUMN_STAGES:        return C_("launch column", "Stages");
    case COLUMN_IN_FLIGHT:     return C_("launch column", "In Flight/SM");
    case COLUMN_BLOCKS_PER_SM: return C_("launch column", "Blocks/SM");
    case COLUMN_WORK_WARPS:    return C_("launch column", "Work Warps");
    case COLUMN_MMA:           return C_("launch column", "MMA");
    case COLUMN_PREDICTED:     return C_("launch column", "Predicted");
    case COLUMN_BOUND:         return C_("launch column", "Bound By");
    case COLUMN_LAUNCH:        return C_("launch column", "Launch");
    case COLUMN_DRAM:          return C_("launch column", "DRAM");
    case COLUMN_L2:            return C_("launch column", "L2");
    case COLUMN_COMPUTE:       return C_("launch column", "Compute");
    case COLUMN_LATENCY:       return C_("launch column", "Latency");
    case N_COLUMNS:
    default:
      g_assert_not_reached ();
    }
}

static const char *
column_tooltip (Column column)
{
  switch (column)
    {
    case COLUMN_SMEM:          return _("Dynamic shared memory of one block");
    case COLUMN_REGISTERS:     return _("Registers per thread, from ptxas: “—” until Measure Registers has compiled the code");
    case COLUMN_STAGES:        return _("Depth of the cp.async ring the loop tiles stream through (1: loaded synchronously)");
    case COLUMN_IN_FLIGHT:     return _("Bytes each SM keeps in flight from DRAM");
    case COLUMN_BLOCKS_PER_SM: return _("Blocks resident on one SM");
    case COLUMN_WORK_WARPS:    return _("Warps of a block that do its matmul or elementwise work");
    case COLUMN_MMA:           return _("The path its matmuls run on");
    case COLUMN_PREDICTED:     return _("Launch gap plus the largest of the DRAM, L2, compute and latency terms");
    case COLUMN_BOUND:         return _("The term that sets the predicted time");
    case COLUMN_LAUNCH:        return _("The gap between two dependent launches");
    case COLUMN_DRAM:          return _("Bytes through DRAM at the bandwidth its bytes in flight can draw");
    case COLUMN_L2:            return _("Re-read tiles and partial sums at the L2 bandwidth");
    case COLUMN_COMPUTE:       return _("FLOPs at the rate of the path emitted, for the warps that work");
    case COLUMN_LATENCY:       return _("One DRAM latency per wave, then per loop iteration one latency over the ring’s depth");
    default:                   return NULL;
    }
}

static gboolean
column_is_numeric (Column column)
{
  return column > COLUMN_OPS && column != COLUMN_MMA && column != COLUMN_BOUND;
}

/* The kernel's cell names it and, under it, the operators it runs. */
static void
cell_setup_cb (GtkSignalListItemFactory *factory,
               GtkListItem              *item,
               gpointer                  user_data)
{
  Column column = GPOINTER_TO_UINT (user_data);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *label = gtk_label_new (NULL);

  gtk_widget_set_valign (box, GTK_ALIGN_CENTER);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  gtk_box_append (GTK_BOX (box), label);
  if (column_is_numeric (column))
    {
      gtk_label_set_xalign (GTK_LABEL (label), 1);
      gtk_widget_add_css_class (label, "numeric");
    }
  else
    gtk_label_set_xalign (GTK_LABEL (label), 0);
  if (column == COLUMN_KERNEL)
    {
      GtkWidget *ops = gtk_label_new (NULL);

      gtk_widget_add_css_class (label, "monospace");
      gtk_label_set_xalign (GTK_LABEL (ops), 0);
      gtk_label_set_ellipsize (GTK_LABEL (ops), PANGO_ELLIPSIZE_END);
      gtk_widget_add_css_class (ops, "dim-label");
      gtk_widget_add_css_class (ops, "launch-ops");
      gtk_box_append (GTK_BOX (box), ops);
    }
  gtk_list_item_set_child (item, box);
}

static void
cell_bind_cb (GtkSignalListItemFactory *factory,
              GtkListItem              *item,
              gpointer                  user_data)
{
  Column column = GPOINTER_TO_UINT (user_data);
  PrismLaunchRow *row = gtk_list_item_get_item (item);
  const PrismKernelReportLaunch *launch = prism_launch_row_get_launch (row);
  GtkWidget *label = gtk_widget_get_first_child (gtk_list_item_get_child (item));
  GtkWidget *ops = gtk_widget_get_next_sibling (label);
  g_autofree char *text = cell_text (launch, column);

  gtk_label_set_label (GTK_LABEL (label), text);
  if (ops != NULL)
    {
      gtk_label_set_label (GTK_LABEL (ops), launch->ops);
      gtk_widget_set_tooltip_text (gtk_list_item_get_child (item), launch->ops);
    }
}

static void
add_columns (PrismKernelView *self)
{
  static const int widths[N_COLUMNS] = {
    190, 124, 0, 82, 80, 96, 96, 76, 82, 62, 100, 84, 94, 60, 64, 64, 64, 74, 70,
  };

  for (Column c = 0; c < N_COLUMNS; c++)
    {
      g_autoptr(GtkListItemFactory) factory = NULL;
      g_autoptr(GtkColumnViewColumn) column = NULL;

      /* Shown under the kernel's name. */
      if (c == COLUMN_OPS)
        continue;
      factory = gtk_signal_list_item_factory_new ();
      g_signal_connect (factory, "setup", G_CALLBACK (cell_setup_cb), GUINT_TO_POINTER (c));
      g_signal_connect (factory, "bind", G_CALLBACK (cell_bind_cb), GUINT_TO_POINTER (c));
      column = gtk_column_view_column_new (column_title (c), g_object_ref (factory));
      gtk_column_view_column_set_resizable (column, TRUE);
      prism_column_title_fit (self->column_view, column, widths[c]);
      gtk_column_view_append_column (self->column_view, column);
    }
  /* GTK 4.8's column headers have no tooltips: what the columns mean is
   * in the header bar's popover. */
  {
    GString *text = g_string_new (NULL);
    GtkWidget *label;
    GtkWidget *popover;

    for (Column c = 0; c < N_COLUMNS; c++)
      if (column_tooltip (c) != NULL)
        {
          g_autofree char *escaped = g_markup_escape_text (column_tooltip (c), -1);
          g_string_append_printf (text, "%s<b>%s</b> — %s", text->len ? "\n" : "", column_title (c), escaped);
        }
    label = gtk_label_new (NULL);
    gtk_label_set_markup (GTK_LABEL (label), text->str);
    gtk_label_set_wrap (GTK_LABEL (label), TRUE);
    gtk_label_set_max_width_chars (GTK_LABEL (label), 70);
    gtk_label_set_xalign (GTK_LABEL (label), 0);
    gtk_widget_add_css_class (label, "columns-help");
    popover = gtk_popover_new ();
    gtk_popover_set_child (GTK_POPOVER (popover), label);
    gtk_menu_button_set_popover (self->columns_button, popover);
    g_string_free (text, TRUE);
  }
}

static const char *nvcc_path (void);

static void
cancel_source (PrismKernelView *self)
{
  if (self->source_clock != NULL)
    g_clear_signal_handler (&self->source_handler, self->source_clock);
  g_clear_object (&self->source_clock);
}

static void
set_loading (PrismKernelView *self,
             GCancellable    *cancellable)
{
  gboolean was_loading = self->cancellable != NULL;

  /* A newer report replaces one whose source was still to come. */
  if (cancellable != NULL)
    cancel_source (self);
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_set_object (&self->cancellable, cancellable);
  gtk_spinner_set_spinning (self->spinner, cancellable != NULL);
  gtk_widget_set_visible (GTK_WIDGET (self->spinner), cancellable != NULL);
  if (cancellable == NULL)
    self->measuring = FALSE;
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "kernel.measure-registers",
                                 cancellable == NULL && self->report != NULL &&
                                 !self->report->registers_measured && nvcc_path () != NULL);
  if (was_loading != (cancellable != NULL))
    g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_LOADING]);
}

static const char *
nvcc_path (void)
{
  static char *path;
  static gsize looked;

  /* A few stat()s, once. */
  if (g_once_init_enter (&looked))
    {
      path = prism_ptxas_find_nvcc ();
      g_once_init_leave (&looked, 1);
    }
  return path;
}

static void
show_message (PrismKernelView *self,
              const char      *title,
              const char      *message)
{
  g_free (self->message);
  self->message = g_strdup (message);
  gtk_label_set_label (self->message_title, title);
  gtk_label_set_label (self->message_label, message);
  gtk_stack_set_visible_child_name (self->content_stack, "message");
}

/* The report's source in the source view, from the top; then the report
 * is shown whole and the page no longer loading. */
static void
show_source (PrismKernelView *self)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->source_view));
  GtkTextIter start;

  cancel_source (self);
  self->linking = TRUE;
  gtk_text_buffer_set_text (buffer, self->report ? self->report->source : "", -1);
  gtk_text_buffer_get_start_iter (buffer, &start);
  gtk_text_buffer_place_cursor (buffer, &start);
  self->linking = FALSE;
  gtk_text_view_scroll_to_iter (GTK_TEXT_VIEW (self->source_view), &start, 0, FALSE, 0, 0);
  /* A launch selected before its source came in. */
  link_source (self);
  set_loading (self, NULL);
}

static void
source_after_paint_cb (GdkFrameClock   *clock,
                       PrismKernelView *self)
{
  show_source (self);
}

/* A new report used to be one frame: the launch table's rows made, the
 * roofline drawn, and the new source laid out and highlighted, 20 ms and
 * more of the main thread during a search (docs/benchmarks.md).  The source
 * now goes in after the frame that shows the rest. */
static void
show_source_later (PrismKernelView *self)
{
  GdkFrameClock *clock = gtk_widget_get_frame_clock (GTK_WIDGET (self));

  cancel_source (self);
  if (clock == NULL || !gtk_widget_get_mapped (GTK_WIDGET (self)))
    {
      show_source (self);
      return;
    }
  self->source_clock = g_object_ref (clock);
  self->source_handler = g_signal_connect (clock, "after-paint", G_CALLBACK (source_after_paint_cb), self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* Shows @report (and @baseline in the roofline); its source at once or,
 * with @source_later, after the next frame, and then it is done loading. */
static void
show_report (PrismKernelView   *self,
             PrismKernelReport *report,
             PrismKernelReport *baseline,
             const char        *error,
             gboolean           source_later)
{

  if (report != NULL)
    prism_kernel_report_ref (report);
  if (baseline != NULL)
    prism_kernel_report_ref (baseline);
  g_clear_pointer (&self->report, prism_kernel_report_unref);
  g_clear_pointer (&self->baseline_report, prism_kernel_report_unref);
  self->report = report;
  self->baseline_report = baseline;
  g_clear_pointer (&self->message, g_free);

  /* One change for the table, not one per launch (each relays it out). */
  {
    guint n = report != NULL ? prism_kernel_report_get_n_launches (report) : 0;
    g_autoptr(GPtrArray) rows = g_ptr_array_new_full (n, g_object_unref);

    for (guint i = 0; i < n; i++)
      g_ptr_array_add (rows, prism_launch_row_new (report, i));
    /* A new list selects no launch (the selection follows the splice). */
    g_list_store_splice (self->launches, 0, g_list_model_get_n_items (G_LIST_MODEL (self->launches)),
                         rows->pdata, rows->len);
    gtk_single_selection_set_selected (self->selection, GTK_INVALID_LIST_POSITION);
  }
  self->shown_baseline = self->candidate == NULL;
  self->shown_candidate_us = candidate_measured_us (self);
  self->shown_baseline_us = baseline_measured_us (self);
  prism_roofline_chart_set_reports (self->roofline, self->candidate ? report : NULL, baseline,
                                    self->shown_candidate_us, self->shown_baseline_us);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "kernel.copy", report != NULL);

  if (report != NULL)
    gtk_stack_set_visible_child_name (self->content_stack, "report");
  else if (self->program == NULL)
    show_message (self, _("No Program Open"), _("Open a program to see the code generated for it."));
  else
    show_message (self, _("No Code to Show"), error ? error : _("The program cannot be generated."));
  update_labels (self);
  if (source_later && report != NULL)
    show_source_later (self);
  else
    show_source (self);
}

/* The page's title says whose code it is; the line under it, for which
 * GPU, and what it takes predicted and measured. */
static void
update_labels (PrismKernelView *self)
{
  const PrismGpuTarget *target = self->report ? self->report->target : lookup_target (self);
  g_autofree char *title = NULL;
  g_autofree char *predicted = NULL;
  g_autofree char *launches = NULL;
  g_autofree char *measured = NULL;
  g_autofree char *subtitle = NULL;
  double measured_us = self->candidate ? candidate_measured_us (self) : baseline_measured_us (self);
  const char *baseline_label = self->model ? prism_search_model_get_baseline_label (self->model)
                                           : _("the unfused program");

  if (self->candidate != NULL)
    title = prism_candidate_row_dup_title (self->candidate);
  else
    /* Translators: the Kernel page's title without a candidate selected;
     * %s says what the baseline is */
    title = g_strdup_printf (_("Baseline: %s (no candidate selected)"), baseline_label);
  gtk_label_set_label (self->title_label, title);

  if (self->report != NULL)
    {
      guint n = prism_kernel_report_get_n_launches (self->report);

      predicted = prism_format_time_us (self->report->total_us);
      launches = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u launch", "%u launches", n), n);
      if (measured_us > 0)
        {
          g_autofree char *m = prism_format_time_us (measured_us);
          /* Translators: the whole program's time on a GPU; the GPU does not
           * time launches one by one */
          measured = g_strdup_printf (_(" · measured %s (whole program)"), m);
        }
      /* Translators: the Kernel page's subtitle: the GPU, its arch, how many
       * launches, the predicted time, and the measured one if any */
      subtitle = g_strdup_printf (_("%s · %s · %s · predicted %s%s"), target->display_name,
                                  self->report->arch, launches, predicted, measured ? measured : "");
    }
  else
    subtitle = g_strdup_printf ("%s · sm_%u", target->display_name, target->compute_capability);
  gtk_label_set_label (self->subtitle_label, subtitle);

  if (self->report == NULL)
    gtk_label_set_label (self->registers_label, "");
  else if (self->report->registers_measured)
    {
      g_autofree char *text = g_strdup_printf (_("Registers and spills: %s"), self->report->registers_note);
      gtk_label_set_label (self->registers_label, text);
    }
  else if (self->report->registers_note != NULL)
    {
      g_autofree char *text = g_strdup_printf (_("Registers not measured: %s"), self->report->registers_note);
      gtk_label_set_label (self->registers_label, text);
    }
  else if (nvcc_path () == NULL)
    gtk_label_set_label (self->registers_label,
                         _("Registers: not measured (nvcc, which reports them, is not installed)"));
  else
    gtk_label_set_label (self->registers_label,
                         _("Registers: not measured (Measure Registers compiles the code with nvcc)"));
  /* The note (nvcc's own words, at times) can be longer than the line. */
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->registers_label),
                               *gtk_label_get_label (self->registers_label)
                               ? gtk_label_get_label (self->registers_label) : NULL);
}

static void
job_thread (GTask        *task,
            gpointer      source_object,
            gpointer      task_data,
            GCancellable *cancellable)
{
  Job *job = task_data;
  JobResult *result = g_new0 (JobResult, 1);
  g_autoptr(GError) error = NULL;

  result->baseline = prism_kernel_report_new (job->program, job->target, job->vendor,
                                              job->measure && job->candidate == NULL, cancellable, &error);
  if (job->candidate == NULL)
    {
      if (result->baseline == NULL)
        result->error = g_strdup (error->message);
    }
  else
    {
      g_autoptr(GError) local = NULL;
      g_autoptr(PrismGraph) graph = prism_candidate_instantiate (job->candidate, &local);

      if (graph != NULL && !prism_graph_is_concrete (graph))
        g_set_error_literal (&local, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                             _("The candidate has no concrete sizes to generate code for."));
      else if (graph != NULL)
        result->candidate = prism_kernel_report_new (graph, job->target, FALSE, job->measure, cancellable, &local);
      if (result->candidate == NULL)
        result->error = g_strdup (local->message);
    }
  g_task_return_pointer (task, result, (GDestroyNotify) job_result_free);
}

static void
job_done_cb (GObject      *object,
             GAsyncResult *res,
             gpointer      user_data)
{
  PrismKernelView *self = PRISM_KERNEL_VIEW (object);
  GCancellable *cancellable = g_task_get_cancellable (G_TASK (res));
  JobResult *result = g_task_propagate_pointer (G_TASK (res), NULL);

  /* A newer request, or the page going away, made this one stale. */
  if (g_cancellable_is_cancelled (cancellable) || cancellable != self->cancellable)
    {
      g_clear_pointer (&result, job_result_free);
      return;
    }
  /* Done loading once the source is in (the measure action depends on
   * the report then shown). */
  show_report (self, result->candidate ? result->candidate : self->candidate ? NULL : result->baseline,
               result->baseline, result->error, TRUE);
  job_result_free (result);
}

static void
start_job (PrismKernelView *self,
           gboolean         measure)
{
  g_autoptr(GCancellable) cancellable = NULL;
  g_autoptr(GTask) task = NULL;
  Job *job;

  self->dirty = FALSE;
  if (self->program == NULL)
    {
      set_loading (self, NULL);
      show_report (self, NULL, NULL, NULL, FALSE);
      return;
    }

  cancellable = g_cancellable_new ();
  job = g_new0 (Job, 1);
  job->program = prism_graph_ref (self->program);
  if (self->candidate != NULL)
    job->candidate = prism_candidate_ref (prism_candidate_row_get_candidate (self->candidate));
  job->target = lookup_target (self);
  self->shown_kind = baseline_kind (self);
  job->vendor = self->shown_kind == PRISM_BASELINE_VENDOR;
  job->measure = measure;

  set_loading (self, cancellable);
  self->measuring = measure;
  task = g_task_new (self, cancellable, job_done_cb, NULL);
  g_task_set_source_tag (task, start_job);
  g_task_set_name (task, "[prism] kernel report");
  g_task_set_task_data (task, job, (GDestroyNotify) job_free);
  g_task_run_in_thread (task, job_thread);
}

/* Made now if on screen, else when next shown. */
static void
request_update (PrismKernelView *self)
{
  if (gtk_widget_get_mapped (GTK_WIDGET (self)))
    start_job (self, FALSE);
  else
    {
      set_loading (self, NULL);
      self->dirty = TRUE;
    }
}

/* The model changes up to 30 times a second during a search: only a new
 * baseline kind (a new search) or a new measurement changes the page. */
static void
model_changed_cb (PrismKernelView  *self,
                  PrismSearchModel *model)
{
  if (self->program != NULL && baseline_kind (self) != self->shown_kind)
    {
      request_update (self);
      return;
    }
  if (self->report != NULL && baseline_measured_us (self) != self->shown_baseline_us)
    {
      self->shown_baseline_us = baseline_measured_us (self);
      prism_roofline_chart_set_reports (self->roofline, self->candidate ? self->report : NULL,
                                        self->baseline_report, self->shown_candidate_us,
                                        self->shown_baseline_us);
      update_labels (self);
    }
}

static void
candidate_measured_cb (PrismKernelView   *self,
                       GParamSpec        *pspec,
                       PrismCandidateRow *row)
{
  if (self->report != NULL && candidate_measured_us (self) != self->shown_candidate_us)
    {
      self->shown_candidate_us = candidate_measured_us (self);
      prism_roofline_chart_set_reports (self->roofline, self->report, self->baseline_report,
                                        self->shown_candidate_us, self->shown_baseline_us);
    }
  update_labels (self);
}

static void
copy_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *param)
{
  PrismKernelView *self = PRISM_KERNEL_VIEW (widget);

  if (self->report != NULL)
    gdk_clipboard_set_text (gtk_widget_get_clipboard (widget), self->report->source);
}

static void
measure_registers_action (GtkWidget  *widget,
                          const char *action_name,
                          GVariant   *param)
{
  PrismKernelView *self = PRISM_KERNEL_VIEW (widget);

  if (self->program != NULL)
    start_job (self, TRUE);
}

static void
reset_zoom_clicked_cb (PrismKernelView *self,
                       GtkButton       *button)
{
  prism_roofline_chart_reset_zoom (self->roofline);
}

/* Reset Zoom is there only while the roofline is zoomed; it keeps its place
 * (transparent and insensitive otherwise), so that the chart does not move
 * under the pointer when it appears. */
static void
roofline_zoomed_cb (PrismKernelView    *self,
                    GParamSpec         *pspec,
                    PrismRooflineChart *roofline)
{
  gboolean zoomed = prism_roofline_chart_get_zoomed (roofline);

  gtk_widget_set_sensitive (GTK_WIDGET (self->reset_zoom_button), zoomed);
  gtk_widget_set_opacity (GTK_WIDGET (self->reset_zoom_button), zoomed ? 1 : 0);
  gtk_widget_set_can_target (GTK_WIDGET (self->reset_zoom_button), zoomed);
}

/* Linking, as Nsight Compute links: the launch selected in the list is
 * selected in the source (its __global__ function's lines, scrolled to)
 * and ringed on the roofline; a click on a roofline point or in a kernel's
 * lines selects its launch.  The list's selection is the one truth: the
 * others follow it. */

static const PrismKernelReportLaunch *
selected_launch (PrismKernelView *self,
                 guint           *position)
{
  guint selected = gtk_single_selection_get_selected (self->selection);

  if (position != NULL)
    *position = selected;
  if (self->report == NULL || selected == GTK_INVALID_LIST_POSITION ||
      selected >= prism_kernel_report_get_n_launches (self->report))
    return NULL;
  return prism_kernel_report_get_launch (self->report, selected);
}

static void
link_source (PrismKernelView *self)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->source_view));
  const PrismKernelReportLaunch *launch = selected_launch (self, NULL);
  GtkTextIter start, end;
  int first, last;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  gtk_text_buffer_remove_tag (buffer, self->launch_tag, &start, &end);
  /* The source still to come links when it is in (show_source()). */
  if (launch == NULL || self->source_clock != NULL ||
      !prism_kernel_source_find (self->report->source, launch->name, &first, &last))
    {
      GtkTextIter cursor;

      /* No kernel of its own (a cuBLASLt GEMM), or none selected. */
      gtk_text_buffer_get_iter_at_mark (buffer, &cursor, gtk_text_buffer_get_insert (buffer));
      self->linking = TRUE;
      gtk_text_buffer_place_cursor (buffer, &cursor);
      self->linking = FALSE;
      return;
    }
  gtk_text_buffer_get_iter_at_line (buffer, &start, first);
  gtk_text_buffer_get_iter_at_line (buffer, &end, last);
  gtk_text_iter_forward_to_line_end (&end);
  gtk_text_buffer_apply_tag (buffer, self->launch_tag, &start, &end);
  self->linking = TRUE;
  gtk_text_buffer_select_range (buffer, &start, &end);
  self->linking = FALSE;
  /* A mark, not an iter: the lines may not be laid out yet. */
  gtk_text_view_scroll_to_mark (GTK_TEXT_VIEW (self->source_view), gtk_text_buffer_get_insert (buffer),
                                0, TRUE, 0, 0.05);
}

static void
link_roofline (PrismKernelView *self)
{
  guint position;
  const PrismKernelReportLaunch *launch = selected_launch (self, &position);

  prism_roofline_chart_set_selected (self->roofline,
                                     launch ? prism_roofline_chart_find_launch (self->roofline, position,
                                                                                self->shown_baseline)
                                            : -1);
}

static void
launch_selected_cb (PrismKernelView    *self,
                    GParamSpec         *pspec,
                    GtkSingleSelection *selection)
{
  link_source (self);
  link_roofline (self);
}

static void
point_clicked_cb (PrismKernelView    *self,
                  int                 index,
                  PrismRooflineChart *roofline)
{
  const PrismRooflinePoint *point = prism_roofline_chart_get_point (roofline, (guint) index);

  if (!point->measured && point->index >= 0 && !point->baseline == !self->shown_baseline)
    {
      gtk_single_selection_set_selected (self->selection, (guint) point->index);
      return;
    }
  /* The baseline's launches beside a candidate, and whole programs, have
   * no row: the point alone is selected. */
  gtk_single_selection_set_selected (self->selection, GTK_INVALID_LIST_POSITION);
  prism_roofline_chart_set_selected (roofline, index);
}

/* A click in a kernel's lines selects its launch (not a click in the
 * launch already selected: the click may start a selection of its own). */
static void
source_mark_set_cb (PrismKernelView *self,
                    GtkTextIter     *location,
                    GtkTextMark     *mark,
                    GtkTextBuffer   *buffer)
{
  int line = gtk_text_iter_get_line (location);
  guint selected;

  if (self->linking || self->report == NULL || mark != gtk_text_buffer_get_insert (buffer))
    return;
  selected_launch (self, &selected);
  for (guint i = 0; i < prism_kernel_report_get_n_launches (self->report); i++)
    {
      const PrismKernelReportLaunch *launch = prism_kernel_report_get_launch (self->report, i);
      int first, last;

      if (prism_kernel_source_find (self->report->source, launch->name, &first, &last) &&
          line >= first && line <= last)
        {
          if (i != selected)
            gtk_single_selection_set_selected (self->selection, i);
          return;
        }
    }
}

static GtkSourceStyleScheme *
pick_style_scheme (void)
{
  GtkSourceStyleSchemeManager *manager = gtk_source_style_scheme_manager_get_default ();
  GtkSourceStyleScheme *scheme = gtk_source_style_scheme_manager_get_scheme (manager, "Adwaita");

  return scheme ? scheme : gtk_source_style_scheme_manager_get_scheme (manager, "classic");
}

static void
setup_source_view (PrismKernelView *self)
{
  GtkSourceLanguageManager *languages = gtk_source_language_manager_get_default ();
  GtkSourceBuffer *buffer = GTK_SOURCE_BUFFER (gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->source_view)));
  /* GtkSourceView ships cuda.lang; C++ is the next best. */
  GtkSourceLanguage *language = gtk_source_language_manager_get_language (languages, "cuda");

  if (language == NULL)
    language = gtk_source_language_manager_get_language (languages, "cpp");
  gtk_source_buffer_set_language (buffer, language);
  gtk_source_buffer_set_highlight_syntax (buffer, TRUE);
  gtk_source_buffer_set_highlight_matching_brackets (buffer, FALSE);
  gtk_source_buffer_set_style_scheme (buffer, pick_style_scheme ());
  /* Behind the selection, so that the lines stay marked when the source
   * view's selection is unfocused or cleared by a click. */
  self->launch_tag = gtk_text_buffer_create_tag (GTK_TEXT_BUFFER (buffer), "launch-selected",
                                                 "paragraph-background", "rgba(230,97,0,0.16)", NULL);
  g_signal_connect_object (buffer, "mark-set", G_CALLBACK (source_mark_set_cb), self, G_CONNECT_SWAPPED);
}

/*
 * GtkWidget overrides
 */

static void
prism_kernel_view_map (GtkWidget *widget)
{
  PrismKernelView *self = PRISM_KERNEL_VIEW (widget);

  GTK_WIDGET_CLASS (prism_kernel_view_parent_class)->map (widget);
  if (self->dirty)
    start_job (self, FALSE);
}

/*
 * GObject overrides
 */

static void
prism_kernel_view_dispose (GObject *object)
{
  PrismKernelView *self = (PrismKernelView *)object;
  GtkWidget *child;

  cancel_source (self);
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  prism_kernel_view_set_model (self, NULL);
  prism_kernel_view_set_candidate (self, NULL);
  gtk_widget_dispose_template (GTK_WIDGET (self), PRISM_TYPE_KERNEL_VIEW);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))))
    gtk_widget_unparent (child);

  G_OBJECT_CLASS (prism_kernel_view_parent_class)->dispose (object);
}

static void
prism_kernel_view_finalize (GObject *object)
{
  PrismKernelView *self = (PrismKernelView *)object;

  g_clear_pointer (&self->program, prism_graph_unref);
  g_clear_pointer (&self->report, prism_kernel_report_unref);
  g_clear_pointer (&self->baseline_report, prism_kernel_report_unref);
  g_clear_object (&self->selection);
  g_clear_object (&self->launches);
  g_clear_pointer (&self->target, g_free);
  g_clear_pointer (&self->message, g_free);

  G_OBJECT_CLASS (prism_kernel_view_parent_class)->finalize (object);
}

static void
prism_kernel_view_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  PrismKernelView *self = PRISM_KERNEL_VIEW (object);

  switch (prop_id)
    {
    case PROP_TARGET:
      g_value_set_string (value, self->target);
      break;

    case PROP_LOADING:
      g_value_set_boolean (value, prism_kernel_view_get_loading (self));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
prism_kernel_view_set_property (GObject      *object,
                                guint         prop_id,
                                const GValue *value,
                                GParamSpec   *pspec)
{
  PrismKernelView *self = PRISM_KERNEL_VIEW (object);

  switch (prop_id)
    {
    case PROP_TARGET:
      prism_kernel_view_set_target (self, g_value_get_string (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
prism_kernel_view_class_init (PrismKernelViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = prism_kernel_view_dispose;
  object_class->finalize = prism_kernel_view_finalize;
  object_class->get_property = prism_kernel_view_get_property;
  object_class->set_property = prism_kernel_view_set_property;

  widget_class->map = prism_kernel_view_map;

  /* The GPU code is planned for: a built-in target's name (the
   * Preferences' target-gpu). */
  properties [PROP_TARGET] =
    g_param_spec_string ("target", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties [PROP_LOADING] =
    g_param_spec_boolean ("loading", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_source_init ();
  g_type_ensure (GTK_SOURCE_TYPE_VIEW);
  g_type_ensure (PRISM_TYPE_ROOFLINE_CHART);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/prism/Explorer/prism-kernel-view.ui");
  gtk_widget_class_bind_template_child (widget_class, PrismKernelView, title_label);
  gtk_widget_class_bind_template_child (widget_class, PrismKernelView, subtitle_label);
  gtk_widget_class_bind_template_child (widget_class, PrismKernelView, registers_label);
  gtk_widget_class_bind_template_child (widget_class, PrismKernelView, spinner);
  gtk_widget_class_bind_template_child (widget_class, PrismKernelView, measure_button);
  gtk_widget_class_bind_template_child (widget_class, PrismKernelView, columns_button);
  gtk_widget_class_bind_template_child (widget_class, PrismKernelView, content_stack);
  gtk_widget_class_bind_template_child (widget_class, PrismKernelView, column_view);
  gtk_widget_class_bind_template_child (widget_class, PrismKernelView, source_view);
  gtk_widget_class_bind_template_child (widget_class, PrismKernelView, reset_zoom_button);
  gtk_widget_class_bind_template_callback (widget_class, reset_zoom_clicked_cb);
  gtk_widget_class_bind_template_child (widget_class, PrismKernelView, roofline);
  gtk_widget_class_bind_template_child (widget_class, PrismKernelView, message_title);
  gtk_widget_class_bind_template_child (widget_class, PrismKernelView, message_label);

  gtk_widget_class_install_action (widget_class, "kernel.copy", NULL, copy_action);
  gtk_widget_class_install_action (widget_class, "kernel.measure-registers", NULL, measure_registers_action);
  gtk_widget_class_set_css_name (widget_class, "kernelview");
}

static void
prism_kernel_view_init (PrismKernelView *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->shown_candidate_us = -1;
  self->shown_baseline_us = -1;
  self->launches = g_list_store_new (PRISM_TYPE_LAUNCH_ROW);
  self->selection = gtk_single_selection_new (G_LIST_MODEL (g_object_ref (self->launches)));
  gtk_single_selection_set_autoselect (self->selection, FALSE);
  gtk_single_selection_set_can_unselect (self->selection, TRUE);
  gtk_column_view_set_model (self->column_view, GTK_SELECTION_MODEL (self->selection));
  g_signal_connect_object (self->selection, "notify::selected", G_CALLBACK (launch_selected_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->roofline, "point-clicked", G_CALLBACK (point_clicked_cb), self,
                           G_CONNECT_SWAPPED);
  add_columns (self);
  setup_source_view (self);
  g_signal_connect_object (self->roofline, "notify::zoomed", G_CALLBACK (roofline_zoomed_cb), self,
                           G_CONNECT_SWAPPED);
  roofline_zoomed_cb (self, NULL, self->roofline);
  if (nvcc_path () == NULL)
    gtk_widget_set_tooltip_text (GTK_WIDGET (self->measure_button),
                                 _("nvcc is not installed: registers and spills cannot be measured"));
  self->dirty = TRUE;
  set_loading (self, NULL);
  show_report (self, NULL, NULL, NULL, FALSE);
}

/*
 * Public API
 */

GtkWidget *
prism_kernel_view_new (void)
{
  return g_object_new (PRISM_TYPE_KERNEL_VIEW, NULL);
}

void
prism_kernel_view_set_model (PrismKernelView  *self,
                             PrismSearchModel *model)
{
  g_return_if_fail (PRISM_IS_KERNEL_VIEW (self));
  g_return_if_fail (model == NULL || PRISM_IS_SEARCH_MODEL (model));

  if (self->model == model)
    return;
  if (self->model != NULL)
    g_clear_signal_handler (&self->changed_handler, self->model);
  g_set_object (&self->model, model);
  if (model != NULL)
    self->changed_handler = g_signal_connect_object (model, "changed", G_CALLBACK (model_changed_cb),
                                                     self, G_CONNECT_SWAPPED);
  if (self->program != NULL)
    request_update (self);
}

void
prism_kernel_view_set_program (PrismKernelView *self,
                               PrismGraph      *program)
{
  g_return_if_fail (PRISM_IS_KERNEL_VIEW (self));

  if (self->program == program)
    return;
  if (program != NULL)
    prism_graph_ref (program);
  g_clear_pointer (&self->program, prism_graph_unref);
  self->program = program;
  /* A candidate belongs to the program it was found for. */
  prism_kernel_view_set_candidate (self, NULL);
  request_update (self);
}

void
prism_kernel_view_set_candidate (PrismKernelView   *self,
                                 PrismCandidateRow *row)
{
  g_return_if_fail (PRISM_IS_KERNEL_VIEW (self));
  g_return_if_fail (row == NULL || PRISM_IS_CANDIDATE_ROW (row));

  if (self->candidate == row)
    return;
  if (self->candidate != NULL)
    for (guint i = 0; i < G_N_ELEMENTS (self->candidate_handlers); i++)
      g_clear_signal_handler (&self->candidate_handlers[i], self->candidate);
  g_set_object (&self->candidate, row);
  if (row != NULL)
    {
      self->candidate_handlers[0] = g_signal_connect_object (row, "notify::measured-us",
                                                             G_CALLBACK (candidate_measured_cb), self,
                                                             G_CONNECT_SWAPPED);
    }
  /* Disposal clears the candidate after the template is gone. */
  if (self->title_label != NULL)
    request_update (self);
}

PrismCandidateRow *
prism_kernel_view_get_candidate (PrismKernelView *self)
{
  g_return_val_if_fail (PRISM_IS_KERNEL_VIEW (self), NULL);
  return self->candidate;
}

void
prism_kernel_view_set_target (PrismKernelView *self,
                              const char      *target)
{
  g_return_if_fail (PRISM_IS_KERNEL_VIEW (self));

  if (g_strcmp0 (self->target, target) == 0)
    return;
  g_free (self->target);
  self->target = g_strdup (target);
  request_update (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_TARGET]);
}

const char *
prism_kernel_view_get_target (PrismKernelView *self)
{
  g_return_val_if_fail (PRISM_IS_KERNEL_VIEW (self), NULL);
  return self->target;
}

gboolean
prism_kernel_view_get_loading (PrismKernelView *self)
{
  g_return_val_if_fail (PRISM_IS_KERNEL_VIEW (self), FALSE);
  return self->cancellable != NULL;
}

PrismKernelReport *
prism_kernel_view_get_report (PrismKernelView *self)
{
  g_return_val_if_fail (PRISM_IS_KERNEL_VIEW (self), NULL);
  return self->report;
}

PrismKernelReport *
prism_kernel_view_get_baseline_report (PrismKernelView *self)
{
  g_return_val_if_fail (PRISM_IS_KERNEL_VIEW (self), NULL);
  return self->baseline_report;
}

GListModel *
prism_kernel_view_get_launches (PrismKernelView *self)
{
  g_return_val_if_fail (PRISM_IS_KERNEL_VIEW (self), NULL);
  return G_LIST_MODEL (self->launches);
}

GtkColumnView *
prism_kernel_view_get_column_view (PrismKernelView *self)
{
  g_return_val_if_fail (PRISM_IS_KERNEL_VIEW (self), NULL);
  return self->column_view;
}

PrismRooflineChart *
prism_kernel_view_get_roofline (PrismKernelView *self)
{
  g_return_val_if_fail (PRISM_IS_KERNEL_VIEW (self), NULL);
  return self->roofline;
}

char *
prism_kernel_view_dup_source (PrismKernelView *self)
{
  GtkTextBuffer *buffer;
  GtkTextIter start, end;

  g_return_val_if_fail (PRISM_IS_KERNEL_VIEW (self), NULL);

  buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->source_view));
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  return gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
}

const char *
prism_kernel_view_get_title (PrismKernelView *self)
{
  g_return_val_if_fail (PRISM_IS_KERNEL_VIEW (self), NULL);
  return gtk_label_get_label (self->title_label);
}

const char *
prism_kernel_view_get_subtitle (PrismKernelView *self)
{
  g_return_val_if_fail (PRISM_IS_KERNEL_VIEW (self), NULL);
  return gtk_label_get_label (self->subtitle_label);
}

const char *
prism_kernel_view_get_message (PrismKernelView *self)
{
  g_return_val_if_fail (PRISM_IS_KERNEL_VIEW (self), NULL);
  return self->message;
}

char *
prism_kernel_view_dup_cell_text (PrismKernelView *self,
                                 guint            position,
                                 const char      *column)
{
  g_autoptr(PrismLaunchRow) row = NULL;

  g_return_val_if_fail (PRISM_IS_KERNEL_VIEW (self), NULL);

  row = g_list_model_get_item (G_LIST_MODEL (self->launches), position);
  if (row == NULL)
    return NULL;
  for (Column c = 0; c < N_COLUMNS; c++)
    if (g_strcmp0 (column_ids[c], column) == 0)
      return cell_text (prism_launch_row_get_launch (row), c);
  return NULL;
}

GtkWidget *
prism_kernel_view_get_reset_zoom_button (PrismKernelView *self)
{
  g_return_val_if_fail (PRISM_IS_KERNEL_VIEW (self), NULL);
  return GTK_WIDGET (self->reset_zoom_button);
}

void
prism_kernel_view_select_launch (PrismKernelView *self,
                                 guint            position)
{
  g_return_if_fail (PRISM_IS_KERNEL_VIEW (self));
  gtk_single_selection_set_selected (self->selection, position);
}

guint
prism_kernel_view_get_selected_launch (PrismKernelView *self)
{
  g_return_val_if_fail (PRISM_IS_KERNEL_VIEW (self), GTK_INVALID_LIST_POSITION);
  return gtk_single_selection_get_selected (self->selection);
}

gboolean
prism_kernel_view_get_source_selection (PrismKernelView *self,
                                        int             *first_line,
                                        int             *last_line)
{
  GtkTextBuffer *buffer;
  GtkTextIter start, end;

  g_return_val_if_fail (PRISM_IS_KERNEL_VIEW (self), FALSE);

  buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->source_view));
  if (!gtk_text_buffer_get_selection_bounds (buffer, &start, &end))
    return FALSE;
  *first_line = gtk_text_iter_get_line (&start);
  *last_line = gtk_text_iter_get_line (&end);
  return TRUE;
}

GtkWidget *
prism_kernel_view_get_source_view (PrismKernelView *self)
{
  g_return_val_if_fail (PRISM_IS_KERNEL_VIEW (self), NULL);
  return GTK_WIDGET (self->source_view);
}
