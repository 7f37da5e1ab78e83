/* prism-compare-view.c — two candidates side by side, their differences highlighted
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "prism-compare-view"

#include "config.h"

#include <math.h>
#include <glib/gi18n.h>

#include "prism-compare-view.h"
#include "prism-kernel-report.h"
#include "prism-line-diff.h"

/* The colour the graph view emphasizes with, for values that differ. */
#define DIFFERENT_MARKUP "<span foreground=\"#e66100\" weight=\"bold\">%s</span>"

typedef enum
{
  METRIC_KERNELS,
  METRIC_OPERATORS,
  METRIC_GRIDS,
  METRIC_LOOPS,
  METRIC_THREADS,
  METRIC_SMEM,
  METRIC_TIME,
  METRIC_SPEEDUP,
  METRIC_VERIFICATION,
  N_METRICS
} Metric;

struct _PrismCompareView
{
  GtkWidget parent_instance;

  /* Owned References */
  PrismCandidateInfo *candidates[2];
  PrismGraphDiff *diff;

  /* Child Widgets */
  GtkWidget *paned;
  GtkLabel *titles[2];
  PrismGraphView *views[2];
  GtkLabel *metric_values[N_METRICS][2];
  GtkLabel *metric_deltas[N_METRICS];
  GtkLabel *differences_title;
  GtkListBox *differences;
  GtkStack *stack;              /* "graphs" or "source" */
  GtkTextView *source_view;     /* the unified diff of the two .cu files */
  GtkLabel *source_summary;
  guint source_dirty : 1;       /* to be made when the source is next shown */
  char *target;                 /* the GPU the code is planned for, or NULL */
};

G_DEFINE_FINAL_TYPE (PrismCompareView, prism_compare_view, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_DIRECTION,
  PROP_TARGET,
  N_PROPS
};

static GParamSpec *properties [N_PROPS];

/*
 * Auxiliary methods
 */

static const char *
metric_title (Metric metric)
{
  switch (metric)
    {
    case METRIC_KERNELS:      return _("Kernel launches");
    case METRIC_OPERATORS:    return _("Operators");
    case METRIC_GRIDS:        return _("Grids");
    case METRIC_LOOPS:        return _("Loop ranges");
    case METRIC_THREADS:      return _("Threads per block");
    case METRIC_SMEM:         return _("Shared memory");
    case METRIC_TIME:         return _("Predicted time");
    case METRIC_SPEEDUP:      return _("Speedup");
    case METRIC_VERIFICATION: return _("Verification");
    case N_METRICS:
    default:
      g_assert_not_reached ();
    }
}

/* Joins one string per custom kernel with "; ", or "—" without kernels. */
static char *
per_kernel (const PrismGraph *graph,
            Metric            metric)
{
  const char * const *names = prism_graph_var_names (graph);
  g_autoptr(GPtrArray) parts = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < graph->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (graph, i);
      const PrismGraph *body = op->body;
      guint64 bytes;

      if (op->kind != PRISM_OP_KERNEL || body == NULL)
        continue;
      switch (metric)
        {
        case METRIC_GRIDS:
          {
            GString *s = g_string_new (NULL);

            for (guint d = 0; d < body->grid_ndims; d++)
              {
                g_autofree char *dim = prism_dim_to_string (body->grid[d], names);

                g_string_append_printf (s, "%s%s", d ? "×" : "", dim);
              }
            g_ptr_array_add (parts, g_string_free (s, FALSE));
          }
          break;

        case METRIC_LOOPS:
          g_ptr_array_add (parts, prism_dim_to_string (body->forloop, names));
          break;

        case METRIC_THREADS:
          g_ptr_array_add (parts, g_strdup_printf ("%u", body->block_threads));
          break;

        case METRIC_SMEM:
          if (prism_graph_layout_estimate_smem (body, &bytes))
            g_ptr_array_add (parts, g_format_size_full (bytes, G_FORMAT_SIZE_IEC_UNITS));
          else
            g_ptr_array_add (parts, g_strdup ("?"));
          break;

        case METRIC_KERNELS:
        case METRIC_OPERATORS:
        case METRIC_TIME:
        case METRIC_SPEEDUP:
        case METRIC_VERIFICATION:
        case N_METRICS:
        default:
          g_assert_not_reached ();
        }
    }
  if (parts->len == 0)
    return g_strdup ("—");
  g_ptr_array_add (parts, NULL);
  return g_strjoinv ("; ", (char **) parts->pdata);
}

static char *
metric_value (const PrismCandidateInfo *info,
              Metric                    metric)
{
  const PrismGraph *graph = info->graph;
  guint n = 0;

  switch (metric)
    {
    case METRIC_KERNELS:
      /* Every predefined op launches a kernel of its own, as does every
       * custom kernel. */
      for (guint i = 0; i < graph->ops->len; i++)
        {
          PrismOpKind kind = prism_graph_op (graph, i)->kind;

          if (kind != PRISM_OP_INPUT && kind != PRISM_OP_OUTPUT)
            n++;
        }
      return g_strdup_printf ("%u", n);

    case METRIC_OPERATORS:
      for (guint i = 0; i < graph->ops->len; i++)
        {
          const PrismOp *op = prism_graph_op (graph, i);

          if (op->kind == PRISM_OP_KERNEL && op->body != NULL)
            {
              for (guint j = 0; j < op->body->ops->len; j++)
                {
                  PrismOpKind kind = prism_graph_op (op->body, j)->kind;

                  if (kind != PRISM_OP_INPUT && kind != PRISM_OP_OUTPUT)
                    n++;
                }
            }
          else if (op->kind != PRISM_OP_INPUT && op->kind != PRISM_OP_OUTPUT)
            n++;
        }
      return g_strdup_printf ("%u", n);

    case METRIC_GRIDS:
    case METRIC_LOOPS:
    case METRIC_THREADS:
    case METRIC_SMEM:
      return per_kernel (graph, metric);

    case METRIC_TIME:
      if (info->predicted_us < 0)
        return g_strdup ("—");
      /* Translators: a kernel time in microseconds; the second form was measured on a GPU. */
      return g_strdup_printf (info->measured ? _("%.1f µs (measured)") : _("%.1f µs (predicted)"),
                              info->predicted_us);

    case METRIC_SPEEDUP:
      if (info->speedup <= 0)
        return g_strdup ("—");
      /* Translators: a speedup factor, e.g. 1.85× */
      return g_strdup_printf (_("%.2f×"), info->speedup);

    case METRIC_VERIFICATION:
      return g_strdup (info->verification != NULL ? info->verification : "—");

    case N_METRICS:
    default:
      g_assert_not_reached ();
    }
}

/* Launches and operators, counted as metric_value() shows them. */
static guint
count_metric (const PrismGraph *graph,
              Metric            metric)
{
  guint n = 0;

  for (guint i = 0; i < graph->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (graph, i);

      if (metric == METRIC_OPERATORS && op->kind == PRISM_OP_KERNEL && op->body != NULL)
        {
          for (guint j = 0; j < op->body->ops->len; j++)
            {
              PrismOpKind kind = prism_graph_op (op->body, j)->kind;

              if (kind != PRISM_OP_INPUT && kind != PRISM_OP_OUTPUT)
                n++;
            }
        }
      else if (op->kind != PRISM_OP_INPUT && op->kind != PRISM_OP_OUTPUT)
        n++;
    }
  return n;
}

/* The shared memory of every custom kernel together; FALSE if one is unknown. */
static gboolean
total_smem (const PrismGraph *graph,
            guint64          *total)
{
  *total = 0;
  for (guint i = 0; i < graph->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (graph, i);
      guint64 bytes;

      if (op->kind != PRISM_OP_KERNEL || op->body == NULL)
        continue;
      if (!prism_graph_layout_estimate_smem (op->body, &bytes))
        return FALSE;
      *total += bytes;
    }
  return TRUE;
}

static char *
signed_count (gint64 delta)
{
  /* Translators: a difference of counts; %s is the sign (+ or −) */
  return delta == 0 ? g_strdup (_("same")) : g_strdup_printf ("%s%" G_GINT64_FORMAT, delta > 0 ? "+" : "−",
                                                             delta > 0 ? delta : -delta);
}

/* The second candidate's value against the first's, for the metrics that
 * are numbers: counts, shared memory, time (and its share), speedup. */
static char *
metric_delta (const PrismCandidateInfo *a,
              const PrismCandidateInfo *b,
              Metric                    metric)
{
  guint64 sa, sb;

  switch (metric)
    {
    case METRIC_KERNELS:
    case METRIC_OPERATORS:
      return signed_count ((gint64) count_metric (b->graph, metric) - (gint64) count_metric (a->graph, metric));

    case METRIC_SMEM:
      if (!total_smem (a->graph, &sa) || !total_smem (b->graph, &sb))
        return g_strdup ("");
      if (sa == sb)
        return g_strdup (_("same"));
      {
        g_autofree char *size = g_format_size_full (sa > sb ? sa - sb : sb - sa, G_FORMAT_SIZE_IEC_UNITS);
        return g_strdup_printf ("%s%s", sb > sa ? "+" : "−", size);
      }

    case METRIC_TIME:
      if (a->predicted_us <= 0 || b->predicted_us < 0)
        return g_strdup ("");
      if (fabs (b->predicted_us - a->predicted_us) < 0.05)
        return g_strdup (_("same"));
      /* Translators: the second time minus the first in µs, then as a share of the first */
      return g_strdup_printf (_("%s%.1f µs (%s%.0f %%)"), b->predicted_us >= a->predicted_us ? "+" : "−",
                              fabs (b->predicted_us - a->predicted_us),
                              b->predicted_us >= a->predicted_us ? "+" : "−",
                              100 * fabs (b->predicted_us - a->predicted_us) / a->predicted_us);

    case METRIC_SPEEDUP:
      if (a->speedup <= 0 || b->speedup <= 0)
        return g_strdup ("");
      if (fabs (b->speedup / a->speedup - 1) < 0.005)
        return g_strdup (_("same"));
      /* Translators: how much faster (or slower) the second is than the first, e.g. ×1.25 */
      return g_strdup_printf (_("×%.2f"), b->speedup / a->speedup);

    case METRIC_GRIDS:
    case METRIC_LOOPS:
    case METRIC_THREADS:
    case METRIC_VERIFICATION:
    case N_METRICS:
    default:
      return g_strdup ("");
    }
}

static void
update_metrics (PrismCompareView *self)
{
  for (guint m = 0; m < N_METRICS; m++)
    {
      char *values[2] = { NULL, NULL };
      gboolean differ;

      for (guint side = 0; side < 2; side++)
        values[side] = self->candidates[side] ? metric_value (self->candidates[side], m) : g_strdup ("");
      differ = self->candidates[0] != NULL && self->candidates[1] != NULL &&
               !g_str_equal (values[0], values[1]);
      for (guint side = 0; side < 2; side++)
        {
          g_autofree char *escaped = g_markup_escape_text (values[side], -1);
          g_autofree char *markup = differ ? g_strdup_printf (DIFFERENT_MARKUP, escaped)
                                           : g_steal_pointer (&escaped);

          gtk_label_set_markup (self->metric_values[m][side], markup);
        }
      {
        g_autofree char *delta = self->candidates[0] && self->candidates[1]
                                 ? metric_delta (self->candidates[0], self->candidates[1], m)
                                 : g_strdup ("");
        gtk_label_set_label (self->metric_deltas[m], delta);
      }
      g_free (values[0]);
      g_free (values[1]);
    }
}

static void
update_differences (PrismCompareView *self)
{
  GtkWidget *child;
  guint n;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->differences))))
    gtk_list_box_remove (self->differences, child);

  n = self->diff ? prism_graph_diff_get_n (self->diff) : 0;
  if (self->diff == NULL)
    gtk_label_set_label (self->differences_title, _("Differences"));
  else
    {
      g_autofree char *title = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u Difference",
                                                             "%u Differences", n), n);

      gtk_label_set_label (self->differences_title, title);
    }

  for (guint i = 0; i < n; i++)
    {
      const PrismGraphDifference *difference = prism_graph_diff_get (self->diff, i);
      GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
      GtkWidget *marker = gtk_label_new (NULL);
      GtkWidget *label = gtk_label_new (difference->description);
      const char *symbol;
      const char *tooltip;

      switch (difference->kind)
        {
        case PRISM_DIFFERENCE_ONLY_A:
          symbol = "−";
          tooltip = _("Only in the first graph");
          break;
        case PRISM_DIFFERENCE_ONLY_B:
          symbol = "+";
          tooltip = _("Only in the second graph");
          break;
        case PRISM_DIFFERENCE_CHANGED:
        default:
          symbol = "≠";
          tooltip = _("Changed");
          break;
        }
      {
        g_autofree char *markup = g_strdup_printf (DIFFERENT_MARKUP, symbol);

        gtk_label_set_markup (GTK_LABEL (marker), markup);
      }
      gtk_widget_set_tooltip_text (marker, tooltip);
      gtk_label_set_width_chars (GTK_LABEL (marker), 2);
      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_label_set_wrap (GTK_LABEL (label), TRUE);
      gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
      gtk_widget_set_hexpand (label, TRUE);
      gtk_box_append (GTK_BOX (row), marker);
      gtk_box_append (GTK_BOX (row), label);
      gtk_widget_set_margin_start (row, 4);
      gtk_widget_set_margin_end (row, 8);
      gtk_list_box_append (self->differences, row);
    }
  if (self->diff != NULL && n == 0)
    {
      GtkWidget *label = gtk_label_new (_("The two graphs have the same structure and parameters."));

      gtk_label_set_wrap (GTK_LABEL (label), TRUE);
      gtk_widget_add_css_class (label, "dim-label");
      gtk_widget_set_margin_top (label, 12);
      gtk_list_box_set_placeholder (self->differences, label);
    }
  else
    gtk_list_box_set_placeholder (self->differences, NULL);
}

static const PrismGpuTarget *
lookup_target (PrismCompareView *self)
{
  const PrismGpuTarget *target = self->target ? prism_gpu_target_lookup (self->target) : NULL;

  return target ? target : prism_gpu_target_default ();
}

static char *
generate_source (PrismCompareView         *self,
                 const PrismCandidateInfo *info,
                 GError                  **error)
{
  g_autoptr(PrismKernelReport) report = NULL;

  if (info->graph == NULL || !prism_graph_is_concrete (info->graph))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("%s has no concrete sizes to generate code for."), info->id);
      return NULL;
    }
  /* What the Kernel page shows and `prism export` writes. */
  report = prism_kernel_report_new (info->graph, lookup_target (self), FALSE, FALSE, NULL, error);
  return report ? g_strdup (report->source) : NULL;
}

static void
append_tagged (GtkTextBuffer *buffer,
               const char    *prefix,
               const char    *text,
               const char    *tag)
{
  GtkTextIter end;
  g_autofree char *line = g_strconcat (prefix, text, "\n", NULL);

  gtk_text_buffer_get_end_iter (buffer, &end);
  if (tag != NULL)
    gtk_text_buffer_insert_with_tags_by_name (buffer, &end, line, -1, tag, NULL);
  else
    gtk_text_buffer_insert (buffer, &end, line, -1);
}

/* The two candidates' CUDA as a unified diff: removed lines red, added
 * green, each hunk under its "@@" line.  Generating takes a few
 * milliseconds per candidate: only when the page is shown. */
static void
update_source (PrismCompareView *self)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (self->source_view);
  g_autoptr(GError) error = NULL;
  g_autofree char *source_a = NULL;
  g_autofree char *source_b = NULL;
  g_autoptr(GArray) lines = NULL;
  guint removed = 0, added = 0;

  self->source_dirty = FALSE;
  gtk_text_buffer_set_text (buffer, "", -1);
  if (self->candidates[0] == NULL || self->candidates[1] == NULL)
    {
      gtk_label_set_label (self->source_summary, "");
      return;
    }
  source_a = generate_source (self, self->candidates[0], &error);
  if (source_a != NULL)
    source_b = generate_source (self, self->candidates[1], &error);
  if (source_b == NULL)
    {
      gtk_label_set_label (self->source_summary, error->message);
      return;
    }
  lines = prism_line_diff_new (source_a, source_b, 3, &removed, &added);
  for (guint i = 0; i < lines->len; i++)
    {
      const PrismDiffLine *line = &g_array_index (lines, PrismDiffLine, i);

      switch (line->kind)
        {
        case PRISM_DIFF_LINE_HUNK:
          append_tagged (buffer, "", line->text, "hunk");
          break;
        case PRISM_DIFF_LINE_REMOVED:
          append_tagged (buffer, "-", line->text, "removed");
          break;
        case PRISM_DIFF_LINE_ADDED:
          append_tagged (buffer, "+", line->text, "added");
          break;
        case PRISM_DIFF_LINE_SAME:
        default:
          append_tagged (buffer, " ", line->text, NULL);
          break;
        }
    }
  if (lines->len == 0)
    gtk_label_set_label (self->source_summary, _("The two candidates generate the same CUDA code."));
  else
    {
      g_autofree char *r = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u line removed",
                                                         "%u lines removed", removed), removed);
      g_autofree char *a = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u line added",
                                                         "%u lines added", added), added);
      /* Translators: lines removed, lines added, then the GPU the code is for */
      g_autofree char *summary = g_strdup_printf (_("%s, %s: the code “prism export” writes for each, for %s"),
                                                  r, a, lookup_target (self)->display_name);

      gtk_label_set_label (self->source_summary, summary);
    }
}

static void
stack_page_cb (PrismCompareView *self,
               GParamSpec       *pspec,
               GtkStack         *stack)
{
  if (self->source_dirty && g_strcmp0 (gtk_stack_get_visible_child_name (stack), "source") == 0)
    update_source (self);
}

static void
update (PrismCompareView *self)
{
  g_clear_pointer (&self->diff, prism_graph_diff_free);
  if (self->candidates[0] != NULL && self->candidates[1] != NULL)
    self->diff = prism_graph_diff_new (self->candidates[0]->graph, self->candidates[1]->graph);

  for (guint side = 0; side < 2; side++)
    {
      PrismCandidateInfo *info = self->candidates[side];
      g_autoptr(GArray) ops = self->diff ? prism_graph_diff_get_ops (self->diff, side == 1) : NULL;

      gtk_label_set_label (self->titles[side], info ? info->id : "");
      prism_graph_view_set_graph (self->views[side], info ? info->graph : NULL);
      if (ops != NULL)
        prism_graph_view_set_highlight (self->views[side], (const guint *) (void *) ops->data, ops->len);
      else
        prism_graph_view_set_highlight (self->views[side], NULL, 0);
    }
  update_metrics (self);
  update_differences (self);
  self->source_dirty = TRUE;
  if (self->stack != NULL)
    stack_page_cb (self, NULL, self->stack);
}

/*
 * Signal callbacks
 */

static void
difference_activated_cb (PrismCompareView *self,
                         GtkListBoxRow    *row,
                         GtkListBox       *list)
{
  const PrismGraphDifference *difference;
  int index = gtk_list_box_row_get_index (row);

  if (self->diff == NULL || index < 0 || (guint) index >= prism_graph_diff_get_n (self->diff))
    return;
  difference = prism_graph_diff_get (self->diff, index);
  /* Close enough to read the op, not only centred at the fitted zoom. */
  if (difference->op_a != PRISM_OP_ID_NONE)
    prism_graph_view_zoom_to (self->views[0], difference->op_a);
  if (difference->op_b != PRISM_OP_ID_NONE)
    prism_graph_view_zoom_to (self->views[1], difference->op_b);
}

static void
direction_changed_cb (PrismCompareView *self,
                      GParamSpec       *pspec,
                      PrismGraphView   *view)
{
  /* Both sides always use the same direction. */
  prism_compare_view_set_direction (self, prism_graph_view_get_direction (view));
}

/*
 * GObject overrides
 */

static void
prism_compare_view_dispose (GObject *object)
{
  PrismCompareView *self = (PrismCompareView *)object;

  /* Taking the stack apart changes its visible page: no code made then. */
  if (self->stack != NULL)
    g_signal_handlers_disconnect_by_data (self->stack, self);
  self->stack = NULL;
  g_clear_pointer (&self->paned, gtk_widget_unparent);
  g_clear_pointer (&self->candidates[0], prism_candidate_info_unref);
  g_clear_pointer (&self->candidates[1], prism_candidate_info_unref);
  g_clear_pointer (&self->diff, prism_graph_diff_free);
  g_clear_pointer (&self->target, g_free);

  G_OBJECT_CLASS (prism_compare_view_parent_class)->dispose (object);
}

static void
prism_compare_view_get_property (GObject    *object,
                                 guint       prop_id,
                                 GValue     *value,
                                 GParamSpec *pspec)
{
  PrismCompareView *self = PRISM_COMPARE_VIEW (object);

  switch (prop_id)
    {
    case PROP_DIRECTION:
      g_value_set_enum (value, prism_graph_view_get_direction (self->views[0]));
      break;

    case PROP_TARGET:
      g_value_set_string (value, self->target);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
prism_compare_view_set_property (GObject      *object,
                                 guint         prop_id,
                                 const GValue *value,
                                 GParamSpec   *pspec)
{
  PrismCompareView *self = PRISM_COMPARE_VIEW (object);

  switch (prop_id)
    {
    case PROP_DIRECTION:
      prism_compare_view_set_direction (self, g_value_get_enum (value));
      break;

    case PROP_TARGET:
      prism_compare_view_set_target (self, g_value_get_string (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
prism_compare_view_class_init (PrismCompareViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = prism_compare_view_dispose;
  object_class->get_property = prism_compare_view_get_property;
  object_class->set_property = prism_compare_view_set_property;

  properties [PROP_DIRECTION] =
    g_param_spec_enum ("direction", NULL, NULL,
                       PRISM_TYPE_GRAPH_DIRECTION, PRISM_GRAPH_DIRECTION_TOP_TO_BOTTOM,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* The GPU the CUDA Source page's code is planned for: a built-in
   * target's name, as the Kernel page's (the Preferences' target-gpu);
   * unknown names and NULL mean the default. */
  properties [PROP_TARGET] =
    g_param_spec_string ("target", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "compareview");
}

static GtkWidget *
graph_column (PrismCompareView *self,
              guint             side)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *header = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *side_label = gtk_label_new (side == 0 ? _("First") : _("Second"));
  GtkWidget *title = gtk_label_new (NULL);

  gtk_widget_add_css_class (side_label, "dim-label");
  gtk_widget_add_css_class (title, "heading");
  gtk_label_set_ellipsize (GTK_LABEL (title), PANGO_ELLIPSIZE_END);
  gtk_widget_set_margin_start (header, 12);
  gtk_widget_set_margin_end (header, 12);
  gtk_widget_set_margin_top (header, 6);
  gtk_widget_set_margin_bottom (header, 6);
  gtk_box_append (GTK_BOX (header), side_label);
  gtk_box_append (GTK_BOX (header), title);
  gtk_box_append (GTK_BOX (box), header);
  gtk_box_append (GTK_BOX (box), gtk_separator_new (GTK_ORIENTATION_HORIZONTAL));

  self->titles[side] = GTK_LABEL (title);
  self->views[side] = PRISM_GRAPH_VIEW (prism_graph_view_new ());
  prism_graph_view_set_show_legend (self->views[side], FALSE);
  gtk_widget_set_vexpand (GTK_WIDGET (self->views[side]), TRUE);
  gtk_widget_set_hexpand (GTK_WIDGET (self->views[side]), TRUE);
  g_signal_connect_object (self->views[side], "notify::direction",
                           G_CALLBACK (direction_changed_cb), self, G_CONNECT_SWAPPED);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->views[side]));
  return box;
}

static GtkWidget *
metrics_grid (PrismCompareView *self)
{
  GtkWidget *grid = gtk_grid_new ();

  gtk_grid_set_column_spacing (GTK_GRID (grid), 18);
  gtk_grid_set_row_spacing (GTK_GRID (grid), 4);
  gtk_widget_set_margin_start (grid, 12);
  gtk_widget_set_margin_end (grid, 12);
  gtk_widget_set_margin_top (grid, 10);
  gtk_widget_set_margin_bottom (grid, 10);

  for (guint side = 0; side < 2; side++)
    {
      GtkWidget *label = gtk_label_new (side == 0 ? _("First") : _("Second"));

      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_widget_add_css_class (label, "heading");
      gtk_grid_attach (GTK_GRID (grid), label, 1 + side, 0, 1, 1);
    }
  {
    /* Translators: heading of the column of differences, second minus first */
    GtkWidget *label = gtk_label_new (_("Δ (second − first)"));

    gtk_label_set_xalign (GTK_LABEL (label), 0);
    gtk_widget_add_css_class (label, "heading");
    gtk_grid_attach (GTK_GRID (grid), label, 3, 0, 1, 1);
  }
  for (guint m = 0; m < N_METRICS; m++)
    {
      GtkWidget *title = gtk_label_new (metric_title (m));

      gtk_label_set_xalign (GTK_LABEL (title), 0);
      gtk_widget_add_css_class (title, "dim-label");
      gtk_grid_attach (GTK_GRID (grid), title, 0, 1 + m, 1, 1);
      for (guint side = 0; side < 2; side++)
        {
          GtkWidget *value = gtk_label_new (NULL);

          gtk_label_set_xalign (GTK_LABEL (value), 0);
          gtk_label_set_selectable (GTK_LABEL (value), TRUE);
          gtk_label_set_wrap (GTK_LABEL (value), TRUE);
          gtk_label_set_max_width_chars (GTK_LABEL (value), 32);
          gtk_widget_set_hexpand (value, TRUE);
          gtk_grid_attach (GTK_GRID (grid), value, 1 + side, 1 + m, 1, 1);
          self->metric_values[m][side] = GTK_LABEL (value);
        }
      {
        GtkWidget *delta = gtk_label_new (NULL);

        gtk_label_set_xalign (GTK_LABEL (delta), 0);
        gtk_label_set_selectable (GTK_LABEL (delta), TRUE);
        gtk_widget_add_css_class (delta, "numeric");
        gtk_grid_attach (GTK_GRID (grid), delta, 3, 1 + m, 1, 1);
        self->metric_deltas[m] = GTK_LABEL (delta);
      }
    }
  return grid;
}

static GtkWidget *
source_page (PrismCompareView *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *summary = gtk_label_new (NULL);
  GtkWidget *scrolled = gtk_scrolled_window_new ();
  GtkWidget *view = gtk_text_view_new ();
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (view));

  gtk_label_set_xalign (GTK_LABEL (summary), 0);
  gtk_label_set_wrap (GTK_LABEL (summary), TRUE);
  gtk_widget_add_css_class (summary, "dim-label");
  gtk_widget_set_margin_start (summary, 12);
  gtk_widget_set_margin_end (summary, 12);
  gtk_widget_set_margin_top (summary, 6);
  gtk_widget_set_margin_bottom (summary, 6);
  gtk_box_append (GTK_BOX (box), summary);
  gtk_box_append (GTK_BOX (box), gtk_separator_new (GTK_ORIENTATION_HORIZONTAL));

  gtk_text_view_set_editable (GTK_TEXT_VIEW (view), FALSE);
  gtk_text_view_set_cursor_visible (GTK_TEXT_VIEW (view), FALSE);
  gtk_text_view_set_monospace (GTK_TEXT_VIEW (view), TRUE);
  gtk_text_view_set_left_margin (GTK_TEXT_VIEW (view), 6);
  gtk_text_view_set_top_margin (GTK_TEXT_VIEW (view), 6);
  gtk_widget_add_css_class (view, "source-diff");
  gtk_accessible_update_property (GTK_ACCESSIBLE (view), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Differences of the generated CUDA source"), -1);
  gtk_text_buffer_create_tag (buffer, "removed", "paragraph-background", "rgba(224,27,36,0.16)", NULL);
  gtk_text_buffer_create_tag (buffer, "added", "paragraph-background", "rgba(46,194,126,0.20)", NULL);
  gtk_text_buffer_create_tag (buffer, "hunk", "foreground", "#1c71d8", "weight", PANGO_WEIGHT_BOLD, NULL);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), view);
  gtk_widget_set_vexpand (scrolled, TRUE);
  gtk_box_append (GTK_BOX (box), scrolled);

  self->source_view = GTK_TEXT_VIEW (view);
  self->source_summary = GTK_LABEL (summary);
  return box;
}

static void
prism_compare_view_init (PrismCompareView *self)
{
  GtkWidget *graphs = gtk_paned_new (GTK_ORIENTATION_HORIZONTAL);
  GtkWidget *bottom = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  GtkWidget *scrolled;
  GtkWidget *box;
  GtkWidget *title;

  gtk_paned_set_start_child (GTK_PANED (graphs), graph_column (self, 0));
  gtk_paned_set_end_child (GTK_PANED (graphs), graph_column (self, 1));
  gtk_paned_set_shrink_start_child (GTK_PANED (graphs), FALSE);
  gtk_paned_set_shrink_end_child (GTK_PANED (graphs), FALSE);
  gtk_paned_set_wide_handle (GTK_PANED (graphs), TRUE);

  /* The metrics are few: always shown whole; the differences scroll. */
  gtk_box_append (GTK_BOX (bottom), metrics_grid (self));
  gtk_box_append (GTK_BOX (bottom), gtk_separator_new (GTK_ORIENTATION_VERTICAL));

  box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_widget_set_hexpand (box, TRUE);
  title = gtk_label_new (_("Differences"));
  gtk_label_set_xalign (GTK_LABEL (title), 0);
  gtk_widget_add_css_class (title, "heading");
  gtk_widget_set_margin_start (title, 12);
  gtk_widget_set_margin_top (title, 10);
  gtk_widget_set_margin_bottom (title, 6);
  self->differences_title = GTK_LABEL (title);
  gtk_box_append (GTK_BOX (box), title);
  self->differences = GTK_LIST_BOX (gtk_list_box_new ());
  gtk_list_box_set_selection_mode (self->differences, GTK_SELECTION_SINGLE);
  gtk_list_box_set_activate_on_single_click (self->differences, TRUE);
  gtk_widget_add_css_class (GTK_WIDGET (self->differences), "navigation-sidebar");
  g_signal_connect_object (self->differences, "row-activated",
                           G_CALLBACK (difference_activated_cb), self, G_CONNECT_SWAPPED);
  scrolled = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), GTK_WIDGET (self->differences));
  gtk_widget_set_vexpand (scrolled, TRUE);
  gtk_box_append (GTK_BOX (box), scrolled);
  gtk_box_append (GTK_BOX (bottom), box);

  /* The graphs or their code, above what the metrics and differences say. */
  {
    GtkWidget *top = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
    GtkWidget *switcher = gtk_stack_switcher_new ();

    self->stack = GTK_STACK (gtk_stack_new ());
    gtk_stack_add_titled (self->stack, graphs, "graphs", _("Graphs"));
    gtk_stack_add_titled (self->stack, source_page (self), "source", _("CUDA Source"));
    gtk_widget_set_vexpand (GTK_WIDGET (self->stack), TRUE);
    g_signal_connect_object (self->stack, "notify::visible-child-name", G_CALLBACK (stack_page_cb), self,
                             G_CONNECT_SWAPPED);
    gtk_stack_switcher_set_stack (GTK_STACK_SWITCHER (switcher), self->stack);
    gtk_widget_set_halign (switcher, GTK_ALIGN_CENTER);
    gtk_widget_set_margin_top (switcher, 4);
    gtk_widget_set_margin_bottom (switcher, 4);
    gtk_box_append (GTK_BOX (top), switcher);
    gtk_box_append (GTK_BOX (top), GTK_WIDGET (self->stack));
    graphs = top;
  }

  self->paned = gtk_paned_new (GTK_ORIENTATION_VERTICAL);
  gtk_paned_set_start_child (GTK_PANED (self->paned), graphs);
  gtk_paned_set_end_child (GTK_PANED (self->paned), bottom);
  gtk_paned_set_resize_end_child (GTK_PANED (self->paned), FALSE);
  gtk_paned_set_shrink_start_child (GTK_PANED (self->paned), FALSE);
  gtk_paned_set_shrink_end_child (GTK_PANED (self->paned), FALSE);
  gtk_widget_set_parent (self->paned, GTK_WIDGET (self));

  update (self);
}

/*
 * Public API
 */

GtkWidget *
prism_compare_view_new (void)
{
  return g_object_new (PRISM_TYPE_COMPARE_VIEW, NULL);
}

/**
 * prism_compare_view_set_candidates:
 * @a: (nullable): the candidate shown on the left (a reference is taken)
 * @b: (nullable): the candidate shown on the right
 *
 * Shows both graphs with what differs between them highlighted in each,
 * their metrics side by side, and the list of differences.
 */
void
prism_compare_view_set_candidates (PrismCompareView   *self,
                                   PrismCandidateInfo *a,
                                   PrismCandidateInfo *b)
{
  g_return_if_fail (PRISM_IS_COMPARE_VIEW (self));

  if (a != NULL)
    prism_candidate_info_ref (a);
  if (b != NULL)
    prism_candidate_info_ref (b);
  g_clear_pointer (&self->candidates[0], prism_candidate_info_unref);
  g_clear_pointer (&self->candidates[1], prism_candidate_info_unref);
  self->candidates[0] = a;
  self->candidates[1] = b;
  update (self);
}

/**
 * prism_compare_view_get_candidate:
 * @second: %FALSE for the left candidate, %TRUE for the right one
 *
 * Returns: (transfer none) (nullable)
 */
PrismCandidateInfo *
prism_compare_view_get_candidate (PrismCompareView *self,
                                  gboolean          second)
{
  g_return_val_if_fail (PRISM_IS_COMPARE_VIEW (self), NULL);
  return self->candidates[second ? 1 : 0];
}

/**
 * prism_compare_view_get_delta:
 * @title: a metric's title as shown ("Predicted time")
 *
 * Returns: (nullable): its Δ cell's text (tests)
 */
const char *
prism_compare_view_get_delta (PrismCompareView *self,
                              const char       *title)
{
  g_return_val_if_fail (PRISM_IS_COMPARE_VIEW (self), NULL);
  for (guint m = 0; m < N_METRICS; m++)
    if (g_str_equal (metric_title (m), title))
      return gtk_label_get_label (self->metric_deltas[m]);
  return NULL;
}

/**
 * prism_compare_view_get_diff:
 *
 * Returns: (transfer none) (nullable): the differences, %NULL unless both
 *   candidates are set
 */
const PrismGraphDiff *
prism_compare_view_get_diff (PrismCompareView *self)
{
  g_return_val_if_fail (PRISM_IS_COMPARE_VIEW (self), NULL);
  return self->diff;
}

/* Returns: (transfer none) */
PrismGraphView *
prism_compare_view_get_graph_view (PrismCompareView *self,
                                   gboolean          second)
{
  g_return_val_if_fail (PRISM_IS_COMPARE_VIEW (self), NULL);
  return self->views[second ? 1 : 0];
}

/* Returns: (transfer none): one row per difference, in the diff's order */
GtkListBox *
prism_compare_view_get_differences_list (PrismCompareView *self)
{
  g_return_val_if_fail (PRISM_IS_COMPARE_VIEW (self), NULL);
  return self->differences;
}

void
prism_compare_view_set_direction (PrismCompareView    *self,
                                  PrismGraphDirection  direction)
{
  gboolean changed;

  g_return_if_fail (PRISM_IS_COMPARE_VIEW (self));

  changed = prism_graph_view_get_direction (self->views[0]) != direction ||
            prism_graph_view_get_direction (self->views[1]) != direction;
  if (!changed)
    return;
  prism_graph_view_set_direction (self->views[0], direction);
  prism_graph_view_set_direction (self->views[1], direction);
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_DIRECTION]);
}

/* "graphs" or "source": what the upper part shows. */
void
prism_compare_view_set_page (PrismCompareView *self,
                             const char       *page)
{
  g_return_if_fail (PRISM_IS_COMPARE_VIEW (self));
  gtk_stack_set_visible_child_name (self->stack, page);
}

const char *
prism_compare_view_get_page (PrismCompareView *self)
{
  g_return_val_if_fail (PRISM_IS_COMPARE_VIEW (self), NULL);
  return gtk_stack_get_visible_child_name (self->stack);
}

/* Returns: (transfer none): the source diff's view (tests) */
GtkTextView *
prism_compare_view_get_source_view (PrismCompareView *self)
{
  g_return_val_if_fail (PRISM_IS_COMPARE_VIEW (self), NULL);
  return self->source_view;
}

/* Returns: (transfer none): what the source diff's line above it says */
const char *
prism_compare_view_get_source_summary (PrismCompareView *self)
{
  g_return_val_if_fail (PRISM_IS_COMPARE_VIEW (self), NULL);
  return gtk_label_get_label (self->source_summary);
}

void
prism_compare_view_set_target (PrismCompareView *self,
                               const char       *target)
{
  g_return_if_fail (PRISM_IS_COMPARE_VIEW (self));

  if (g_strcmp0 (self->target, target) == 0)
    return;
  g_free (self->target);
  self->target = g_strdup (target);
  self->source_dirty = TRUE;
  if (self->stack != NULL)
    stack_page_cb (self, NULL, self->stack);
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_TARGET]);
}
