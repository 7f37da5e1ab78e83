/* prism-model-view.c — a whole model, and the region of it to superoptimize
 *
 * The Model page: the imported model's graph (the graph view the Graph page
 * uses) beside a panel with the selected region's ops, inputs and outputs,
 * Search Region, Save Region… and Find Blocks.  Shift+click on an op adds it
 * to the region or takes it out; Shift+drag adds the ops in the rectangle;
 * a plain click or drag does what it does in the graph view (select, pan).
 * The region's program comes from prism-graph-region.c; the window searches
 * it (::search-region).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "prism-model-view"

#include "config.h"

#include <glib/gi18n.h>

#include "prism-graph-json.h"
#include "prism-model-view.h"
#include "prism-onnx-reader.h"

/* A press that moves less than this (pixels) is a click. */
#define CLICK_SLOP 4.0

struct _PrismModelView
{
  GtkWidget parent_instance;

  PrismGraph *model;
  GFile *file;
  GArray *selected;              /* op indices */
  PrismGraphRegion *region;      /* of selected, or NULL */
  GPtrArray *blocks;             /* PrismGraphRegion*: Find Blocks' proposals */
  char *summary;

  GtkWidget *paned;
  GtkWidget *overlay;
  PrismGraphView *graph_view;
  GtkWidget *band;               /* draws the rectangle of a Shift+drag */
  GtkLabel *count_label;
  GtkLabel *inputs_label;
  GtkLabel *outputs_label;
  GtkLabel *message_label;
  GtkWidget *search_button;
  GtkWidget *save_button;
  GtkWidget *clear_button;
  GtkListBox *blocks_list;
  GtkNativeDialog *save_dialog;
  GtkWidget *dims_box;           /* the sizes of symbolic dims, while they are asked */
  GtkGrid *dims_grid;
  char **dim_names;              /* the dims asked for, or NULL */
  GPtrArray *dim_spins;          /* GtkSpinButton*, one per name */
  GCancellable *sizing;          /* the import with the sizes, while it runs */

  gboolean banding;
  double band_x0, band_y0, band_x1, band_y1;
};

G_DEFINE_FINAL_TYPE (PrismModelView, prism_model_view, GTK_TYPE_WIDGET)

enum
{
  SEARCH_REGION,
  MODEL_SIZED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static GtkWidget *build_dims_box (PrismModelView *self);

/* A name from the file, shown: valid UTF-8, no control characters. (transfer full) */
static char *
clean_label (const char *name)
{
  g_autofree char *valid = g_utf8_make_valid (name, -1);

  for (char *p = valid; *p != '\0'; p++)
    if ((guchar) *p < 0x20 || *p == 0x7f)
      *p = '?';
  return g_steal_pointer (&valid);
}

/* The region --------------------------------------------------------------- */

static void
append_tensor_line (GString *s, const PrismGraph *g, guint t, gboolean as_output)
{
  const PrismOp *producer = prism_graph_op (g, (guint) prism_graph_tensor (g, t)->producer);
  g_autofree char *shape = prism_tensor_shape_to_string (g, prism_graph_tensor (g, t));
  const char *name = NULL;

  if (!as_output && producer->kind == PRISM_OP_INPUT)
    name = producer->name;
  for (guint i = 0; as_output && i < g->ops->len && name == NULL; i++)
    if (prism_graph_op (g, i)->kind == PRISM_OP_OUTPUT && prism_graph_op (g, i)->inputs[0] == t)
      name = prism_graph_op (g, i)->name;
  if (s->len > 0)
    g_string_append_c (s, '\n');
  if (name != NULL)
    g_string_append_printf (s, "%s  t%u  %s %s", name, t, shape, prism_dtype_to_string (prism_graph_tensor (g, t)->dtype));
  else
    g_string_append_printf (s, "t%u  %s %s", t, shape, prism_dtype_to_string (prism_graph_tensor (g, t)->dtype));
}

static void
update_region (PrismModelView *self)
{
  g_autoptr(GString) inputs = g_string_new (NULL);
  g_autoptr(GString) outputs = g_string_new (NULL);
  g_autoptr(GArray) ids = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autofree char *count = NULL;
  gboolean any;

  g_clear_pointer (&self->region, prism_graph_region_free);
  if (self->model != NULL && self->selected->len > 0)
    self->region = prism_graph_region_new (self->model, (const guint *) (void *) self->selected->data,
                                           self->selected->len);
  any = self->region != NULL && self->region->ops->len > 0;
  for (guint i = 0; any && i < self->region->inputs->len; i++)
    append_tensor_line (inputs, self->model, g_array_index (self->region->inputs, guint, i), FALSE);
  for (guint i = 0; any && i < self->region->outputs->len; i++)
    append_tensor_line (outputs, self->model, g_array_index (self->region->outputs, guint, i), TRUE);
  for (guint i = 0; any && i < self->region->ops->len; i++)
    {
      guint id = prism_op_id_make (-1, g_array_index (self->region->ops, guint, i));
      g_array_append_val (ids, id);
    }
  prism_graph_view_set_highlight (self->graph_view, (const guint *) (void *) ids->data, ids->len);
  if (any)
    count = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Region: %u op", "Region: %u ops", self->region->ops->len),
                             self->region->ops->len);
  else
    count = g_strdup (_("No region: Shift+click ops, or Shift+drag over them, to choose the part to search"));
  gtk_label_set_label (self->count_label, count);
  gtk_label_set_label (self->inputs_label, any ? inputs->str : "—");
  gtk_label_set_label (self->outputs_label, any ? outputs->str : "—");
  g_free (self->summary);
  self->summary = any ? g_strdup_printf ("%s\n%s\n%s\n%s\n%s", count, _("Inputs"), inputs->str, _("Outputs"), outputs->str)
                      : g_strdup (count);
  gtk_widget_set_sensitive (self->search_button, any);
  gtk_widget_set_sensitive (self->save_button, any);
  gtk_widget_set_sensitive (self->clear_button, any);
  gtk_label_set_label (self->message_label, "");
}

void
prism_model_view_set_region (PrismModelView *self, const guint *ops, guint n_ops)
{
  g_return_if_fail (PRISM_IS_MODEL_VIEW (self));

  g_array_set_size (self->selected, 0);
  if (self->model != NULL)
    for (guint i = 0; i < n_ops; i++)
      if (ops[i] < self->model->ops->len)
        g_array_append_val (self->selected, ops[i]);
  update_region (self);
}

void
prism_model_view_toggle_op (PrismModelView *self, guint op)
{
  g_return_if_fail (PRISM_IS_MODEL_VIEW (self));

  for (guint i = 0; i < self->selected->len; i++)
    if (g_array_index (self->selected, guint, i) == op)
      {
        g_array_remove_index (self->selected, i);
        update_region (self);
        return;
      }
  if (self->model != NULL && op < self->model->ops->len)
    g_array_append_val (self->selected, op);
  update_region (self);
}

/* The kernel-level op a layout node shows (a block op: its kernel). */
static gboolean
node_op (const PrismLayoutNode *node, guint *op)
{
  int kernel;

  if (node->op_id == PRISM_OP_ID_NONE)
    return FALSE;
  kernel = prism_op_id_get_kernel (node->op_id);
  *op = kernel >= 0 ? (guint) kernel : prism_op_id_get_op (node->op_id);
  return TRUE;
}

void
prism_model_view_select_rect (PrismModelView *self, double x0, double y0, double x1, double y1)
{
  PrismGraphLayout *layout;
  double zoom, ox, oy;

  g_return_if_fail (PRISM_IS_MODEL_VIEW (self));

  layout = prism_graph_view_get_layout (self->graph_view);
  if (layout == NULL || self->model == NULL)
    return;
  prism_graph_view_get_transform (self->graph_view, &zoom, &ox, &oy);
  for (guint i = 0; i < layout->nodes->len; i++)
    {
      const PrismLayoutNode *node = prism_graph_layout_node (layout, i);
      double nx0 = ox + node->x * zoom, ny0 = oy + node->y * zoom;
      double nx1 = nx0 + node->width * zoom, ny1 = ny0 + node->height * zoom;
      gboolean known = FALSE;
      guint op;

      if (!node_op (node, &op) || nx1 < MIN (x0, x1) || nx0 > MAX (x0, x1) || ny1 < MIN (y0, y1) || ny0 > MAX (y0, y1))
        continue;
      for (guint k = 0; k < self->selected->len && !known; k++)
        known = g_array_index (self->selected, guint, k) == op;
      if (!known)
        g_array_append_val (self->selected, op);
    }
  update_region (self);
}

/* The op under a point of the graph view, if any. */
static gboolean
op_at (PrismModelView *self, double x, double y, guint *op)
{
  PrismGraphLayout *layout = prism_graph_view_get_layout (self->graph_view);
  double zoom, ox, oy;
  int index;

  if (layout == NULL)
    return FALSE;
  prism_graph_view_get_transform (self->graph_view, &zoom, &ox, &oy);
  index = prism_graph_layout_node_at (layout, (x - ox) / zoom, (y - oy) / zoom);
  return index >= 0 && node_op (prism_graph_layout_node (layout, (guint) index), op);
}

const PrismGraphRegion *
prism_model_view_get_region (PrismModelView *self)
{
  g_return_val_if_fail (PRISM_IS_MODEL_VIEW (self), NULL);
  return self->region != NULL && self->region->ops->len > 0 ? self->region : NULL;
}

const char *
prism_model_view_get_summary (PrismModelView *self)
{
  g_return_val_if_fail (PRISM_IS_MODEL_VIEW (self), NULL);
  return self->summary;
}

PrismGraph *
prism_model_view_get_region_program (PrismModelView *self, GError **error)
{
  g_autofree char *name = NULL;

  g_return_val_if_fail (PRISM_IS_MODEL_VIEW (self), NULL);
  if (prism_model_view_get_region (self) == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _("No region is selected"));
      return NULL;
    }
  /* TRANSLATORS: the name of a region's program: the model's name and the region's number of ops */
  name = g_strdup_printf (_("%s (region of %u ops)"), self->model->name != NULL ? self->model->name : "model",
                          self->region->ops->len);
  return prism_graph_region_extract (self->region, self->model, name, error);
}

gboolean
prism_model_view_save_region (PrismModelView *self, GFile *file, GError **error)
{
  g_autoptr(PrismGraph) program = prism_model_view_get_region_program (self, error);
  g_autofree char *path = g_file_get_path (file);

  if (program == NULL)
    return FALSE;
  if (path == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, _("Regions are saved to a local folder"));
      return FALSE;
    }
  return prism_graph_save (program, NULL, path, error);
}

gboolean
prism_model_view_search_region (PrismModelView *self)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismGraph) program = prism_model_view_get_region_program (self, &error);

  if (program == NULL)
    {
      gtk_label_set_label (self->message_label, error->message);
      return FALSE;
    }
  g_signal_emit (self, signals[SEARCH_REGION], 0, program);
  return TRUE;
}

/* Find Blocks ---------------------------------------------------------------- */

static char *
describe_block (const PrismGraph *model, const PrismGraphRegion *block, guint index)
{
  g_autoptr(GString) kinds = g_string_new (NULL);

  for (guint i = 0; i < block->ops->len && i < 6; i++)
    g_string_append_printf (kinds, "%s%s", i > 0 ? ", " : "",
                            prism_op_kind_to_string (prism_graph_op (model, g_array_index (block->ops, guint, i))->kind));
  if (block->ops->len > 6)
    g_string_append (kinds, ", …");
  /* TRANSLATORS: a block Find Blocks proposes: its number, its number of ops, then its op kinds */
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Block %u: %u op (%s)", "Block %u: %u ops (%s)",
                                       block->ops->len),
                          index + 1, block->ops->len, kinds->str);
}

guint
prism_model_view_find_blocks (PrismModelView *self)
{
  GtkWidget *child;

  g_return_val_if_fail (PRISM_IS_MODEL_VIEW (self), 0);

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->blocks_list))) != NULL)
    gtk_list_box_remove (self->blocks_list, child);
  g_clear_pointer (&self->blocks, g_ptr_array_unref);
  if (self->model == NULL)
    return 0;
  self->blocks = prism_graph_region_find_blocks (self->model);
  for (guint i = 0; i < self->blocks->len; i++)
    {
      g_autofree char *text = describe_block (self->model, g_ptr_array_index (self->blocks, i), i);
      GtkWidget *label = gtk_label_new (text);

      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_label_set_wrap (GTK_LABEL (label), TRUE);
      gtk_list_box_append (self->blocks_list, label);
    }
  if (self->blocks->len == 0)
    gtk_label_set_label (self->message_label, _("No block: the model has no matmul"));
  return self->blocks->len;
}

void
prism_model_view_select_block (PrismModelView *self, guint index)
{
  const PrismGraphRegion *block;

  g_return_if_fail (PRISM_IS_MODEL_VIEW (self));
  if (self->blocks == NULL || index >= self->blocks->len)
    return;
  block = g_ptr_array_index (self->blocks, index);
  prism_model_view_set_region (self, (const guint *) (void *) block->ops->data, block->ops->len);
}

static void
block_activated_cb (PrismModelView *self, GtkListBoxRow *row, GtkListBox *box)
{
  prism_model_view_select_block (self, (guint) gtk_list_box_row_get_index (row));
}

/* Gestures --------------------------------------------------------------------- */

static gboolean
shift_held (GtkGesture *gesture)
{
  return (gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (gesture)) & GDK_SHIFT_MASK) != 0;
}

static void
drag_begin_cb (PrismModelView *self, double x, double y, GtkGestureDrag *gesture)
{
  if (!shift_held (GTK_GESTURE (gesture)) || self->model == NULL)
    {
      gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_DENIED);
      return;
    }
  /* Claimed: the graph view neither pans nor selects. */
  gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
  self->banding = TRUE;
  self->band_x0 = self->band_x1 = x;
  self->band_y0 = self->band_y1 = y;
}

static void
drag_update_cb (PrismModelView *self, double dx, double dy, GtkGestureDrag *gesture)
{
  if (!self->banding)
    return;
  self->band_x1 = self->band_x0 + dx;
  self->band_y1 = self->band_y0 + dy;
  gtk_widget_queue_draw (self->band);
}

static void
drag_end_cb (PrismModelView *self, double dx, double dy, GtkGestureDrag *gesture)
{
  guint op;

  if (!self->banding)
    return;
  self->banding = FALSE;
  gtk_widget_queue_draw (self->band);
  if (ABS (dx) < CLICK_SLOP && ABS (dy) < CLICK_SLOP)
    {
      if (op_at (self, self->band_x0, self->band_y0, &op))
        prism_model_view_toggle_op (self, op);
      return;
    }
  prism_model_view_select_rect (self, self->band_x0, self->band_y0, self->band_x0 + dx, self->band_y0 + dy);
}

static void
draw_band (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer user_data)
{
  PrismModelView *self = user_data;

  if (!self->banding)
    return;
  cairo_rectangle (cr, MIN (self->band_x0, self->band_x1) + 0.5, MIN (self->band_y0, self->band_y1) + 0.5,
                   ABS (self->band_x1 - self->band_x0), ABS (self->band_y1 - self->band_y0));
  cairo_set_source_rgba (cr, 0.21, 0.52, 0.89, 0.15);
  cairo_fill_preserve (cr);
  cairo_set_source_rgba (cr, 0.21, 0.52, 0.89, 0.9);
  cairo_set_line_width (cr, 1);
  cairo_stroke (cr);
}

/* The panel -------------------------------------------------------------------- */

static void
save_response_cb (PrismModelView *self, int response, GtkNativeDialog *dialog)
{
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;

  if (response == GTK_RESPONSE_ACCEPT)
    {
      file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      if (!prism_model_view_save_region (self, file, &error))
        gtk_label_set_label (self->message_label, error->message);
      else
        {
          g_autofree char *name = g_file_get_basename (file);
          g_autofree char *text = g_strdup_printf (_("Saved the region’s program as “%s”"), name);
          gtk_label_set_label (self->message_label, text);
        }
    }
  g_clear_object (&self->save_dialog);
}

static void
save_clicked_cb (PrismModelView *self)
{
  GtkWidget *toplevel = GTK_WIDGET (gtk_widget_get_root (GTK_WIDGET (self)));

  if (self->save_dialog != NULL)
    return;
  self->save_dialog = GTK_NATIVE_DIALOG (gtk_file_chooser_native_new (_("Save Region"), GTK_WINDOW (toplevel),
                                                                      GTK_FILE_CHOOSER_ACTION_SAVE, _("_Save"),
                                                                      _("_Cancel")));
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (self->save_dialog), "region.json");
  gtk_native_dialog_set_modal (self->save_dialog, TRUE);
  g_signal_connect_object (self->save_dialog, "response", G_CALLBACK (save_response_cb), self, G_CONNECT_SWAPPED);
  gtk_native_dialog_show (self->save_dialog);
}

static void
clear_clicked_cb (PrismModelView *self)
{
  prism_model_view_set_region (self, NULL, 0);
}

static GtkLabel *
add_label (GtkBox *box, const char *text, const char *css_class)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_selectable (GTK_LABEL (label), css_class == NULL);
  if (css_class != NULL)
    gtk_widget_add_css_class (label, css_class);
  gtk_box_append (box, label);
  return GTK_LABEL (label);
}

static GtkWidget *
add_button (GtkBox *box, const char *label, GCallback callback, PrismModelView *self)
{
  GtkWidget *button = gtk_button_new_with_mnemonic (label);

  g_signal_connect_object (button, "clicked", callback, self, G_CONNECT_SWAPPED);
  gtk_box_append (box, button);
  return button;
}

static GtkWidget *
build_panel (PrismModelView *self)
{
  GtkWidget *scroller = gtk_scrolled_window_new ();
  GtkBox *box = GTK_BOX (gtk_box_new (GTK_ORIENTATION_VERTICAL, 6));
  GtkBox *buttons = GTK_BOX (gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6));

  gtk_widget_set_margin_start (GTK_WIDGET (box), 12);
  gtk_widget_set_margin_end (GTK_WIDGET (box), 12);
  gtk_widget_set_margin_top (GTK_WIDGET (box), 12);
  gtk_widget_set_margin_bottom (GTK_WIDGET (box), 12);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_widget_set_size_request (scroller, 300, -1);
  self->dims_box = build_dims_box (self);
  gtk_box_append (box, self->dims_box);
  add_label (box, _("Region"), "heading");
  self->count_label = add_label (box, "", "dim-label");
  add_label (box, _("Inputs"), "heading");
  self->inputs_label = add_label (box, "—", NULL);
  add_label (box, _("Outputs"), "heading");
  self->outputs_label = add_label (box, "—", NULL);
  self->search_button = add_button (buttons, _("_Search Region"), G_CALLBACK (prism_model_view_search_region), self);
  gtk_widget_add_css_class (self->search_button, "suggested-action");
  self->save_button = add_button (buttons, _("Sa_ve Region…"), G_CALLBACK (save_clicked_cb), self);
  self->clear_button = add_button (buttons, _("C_lear"), G_CALLBACK (clear_clicked_cb), self);
  gtk_box_append (box, GTK_WIDGET (buttons));
  self->message_label = add_label (box, "", "dim-label");
  gtk_box_append (box, gtk_separator_new (GTK_ORIENTATION_HORIZONTAL));
  add_button (box, _("_Find Blocks"), G_CALLBACK (prism_model_view_find_blocks), self);
  self->blocks_list = GTK_LIST_BOX (gtk_list_box_new ());
  gtk_list_box_set_activate_on_single_click (self->blocks_list, TRUE);
  gtk_widget_add_css_class (GTK_WIDGET (self->blocks_list), "boxed-list");
  g_signal_connect_object (self->blocks_list, "row-activated", G_CALLBACK (block_activated_cb), self,
                           G_CONNECT_SWAPPED);
  gtk_box_append (box, GTK_WIDGET (self->blocks_list));
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), GTK_WIDGET (box));
  return scroller;
}

/* Symbolic dims ------------------------------------------------------------------ */

typedef struct
{
  char *path;
  GArray *dims;   /* PrismOnnxDim */
} SizingData;

static void
sizing_data_free (SizingData *d)
{
  for (guint i = 0; i < d->dims->len; i++)
    g_free (g_array_index (d->dims, PrismOnnxDim, i).name);
  g_array_unref (d->dims);
  g_free (d->path);
  g_free (d);
}

static void
import_sized_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
#ifdef PRISM_HAVE_ONNX
  SizingData *d = task_data;
  GError *error = NULL;
  PrismGraph *graph = prism_onnx_load (d->path, (const PrismOnnxDim *) (void *) d->dims->data, d->dims->len, &error);

  if (graph == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, graph, (GDestroyNotify) prism_graph_unref);
#else
  g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, "no ONNX support");
#endif
}

static void
import_sized_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  PrismModelView *self = PRISM_MODEL_VIEW (source);
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismGraph) graph = g_task_propagate_pointer (G_TASK (result), &error);

  if (g_task_get_cancellable (G_TASK (result)) != self->sizing)
    return;  /* another model since */
  g_clear_object (&self->sizing);
  if (graph == NULL)
    {
      gtk_label_set_label (self->message_label, error->message);
      return;
    }
  g_signal_emit (self, signals[MODEL_SIZED], 0, graph);
}

void
prism_model_view_open_sized (PrismModelView *self)
{
  SizingData *d;
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (PRISM_IS_MODEL_VIEW (self));
  if (self->dim_names == NULL || self->file == NULL || self->sizing != NULL)
    return;
  d = g_new0 (SizingData, 1);
  d->path = g_file_get_path (self->file);
  d->dims = g_array_new (FALSE, TRUE, sizeof (PrismOnnxDim));
  for (guint i = 0; self->dim_names[i] != NULL; i++)
    {
      PrismOnnxDim dim = { g_strdup (self->dim_names[i]),
                           (gint64) gtk_spin_button_get_value (g_ptr_array_index (self->dim_spins, i)) };
      g_array_append_val (d->dims, dim);
    }
  self->sizing = g_cancellable_new ();
  task = g_task_new (self, self->sizing, import_sized_cb, NULL);
  g_task_set_task_data (task, d, (GDestroyNotify) sizing_data_free);
  g_task_run_in_thread (task, import_sized_thread);
}

static void
clear_dims (PrismModelView *self)
{
  GtkWidget *child;

  if (self->sizing != NULL)
    g_cancellable_cancel (self->sizing);
  g_clear_object (&self->sizing);
  g_clear_pointer (&self->dim_names, g_strfreev);
  g_ptr_array_set_size (self->dim_spins, 0);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->dims_grid))) != NULL)
    gtk_grid_remove (self->dims_grid, child);
  gtk_widget_set_visible (self->dims_box, FALSE);
}

void
prism_model_view_ask_dims (PrismModelView *self, GFile *file, const char *const *names)
{
  g_return_if_fail (PRISM_IS_MODEL_VIEW (self));
  g_return_if_fail (names != NULL);

  prism_model_view_set_model (self, NULL, file);
  self->dim_names = g_strdupv ((char **) names);
  for (guint i = 0; names[i] != NULL; i++)
    {
      g_autofree char *shown = clean_label (names[i]);
      GtkWidget *label = gtk_label_new (shown);
      GtkWidget *spin = gtk_spin_button_new_with_range (1, (double) PRISM_DIM_MAX, 1);

      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_spin_button_set_value (GTK_SPIN_BUTTON (spin), 1);
      gtk_grid_attach (self->dims_grid, label, 0, (int) i, 1, 1);
      gtk_grid_attach (self->dims_grid, spin, 1, (int) i, 1, 1);
      g_ptr_array_add (self->dim_spins, spin);
    }
  gtk_widget_set_visible (self->dims_box, TRUE);
}

const char *const *
prism_model_view_get_dim_names (PrismModelView *self)
{
  g_return_val_if_fail (PRISM_IS_MODEL_VIEW (self), NULL);
  return (const char *const *) self->dim_names;
}

gboolean
prism_model_view_set_dim (PrismModelView *self, const char *name, gint64 value)
{
  g_return_val_if_fail (PRISM_IS_MODEL_VIEW (self), FALSE);

  for (guint i = 0; self->dim_names != NULL && self->dim_names[i] != NULL; i++)
    if (g_strcmp0 (self->dim_names[i], name) == 0)
      {
        gtk_spin_button_set_value (g_ptr_array_index (self->dim_spins, i), (double) value);
        return TRUE;
      }
  return FALSE;
}

static GtkWidget *
build_dims_box (PrismModelView *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *label = gtk_label_new (_("The model’s inputs have symbolic sizes: give each one, then open the model."));
  GtkWidget *open = gtk_button_new_with_mnemonic (_("_Open Model"));

  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_box_append (GTK_BOX (box), label);
  self->dims_grid = GTK_GRID (gtk_grid_new ());
  gtk_grid_set_row_spacing (self->dims_grid, 6);
  gtk_grid_set_column_spacing (self->dims_grid, 12);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->dims_grid));
  gtk_widget_add_css_class (open, "suggested-action");
  g_signal_connect_object (open, "clicked", G_CALLBACK (prism_model_view_open_sized), self, G_CONNECT_SWAPPED);
  gtk_box_append (GTK_BOX (box), open);
  gtk_box_append (GTK_BOX (box), gtk_separator_new (GTK_ORIENTATION_HORIZONTAL));
  gtk_widget_set_visible (box, FALSE);
  return box;
}

/* The model ---------------------------------------------------------------------- */

void
prism_model_view_set_model (PrismModelView *self, PrismGraph *model, GFile *file)
{
  GtkWidget *child;

  g_return_if_fail (PRISM_IS_MODEL_VIEW (self));

  clear_dims (self);
  g_clear_pointer (&self->model, prism_graph_unref);
  self->model = model != NULL ? prism_graph_ref (model) : NULL;
  g_set_object (&self->file, file);
  g_array_set_size (self->selected, 0);
  g_clear_pointer (&self->blocks, g_ptr_array_unref);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->blocks_list))) != NULL)
    gtk_list_box_remove (self->blocks_list, child);
  gtk_widget_set_visible (GTK_WIDGET (self->graph_view), model != NULL);
  if (model != NULL)
    prism_graph_view_set_graph (self->graph_view, model);
  update_region (self);
}

PrismGraph *
prism_model_view_get_model (PrismModelView *self)
{
  g_return_val_if_fail (PRISM_IS_MODEL_VIEW (self), NULL);
  return self->model;
}

GFile *
prism_model_view_get_file (PrismModelView *self)
{
  g_return_val_if_fail (PRISM_IS_MODEL_VIEW (self), NULL);
  return self->file;
}

PrismGraphView *
prism_model_view_get_graph_view (PrismModelView *self)
{
  g_return_val_if_fail (PRISM_IS_MODEL_VIEW (self), NULL);
  return self->graph_view;
}

static void
prism_model_view_dispose (GObject *object)
{
  PrismModelView *self = PRISM_MODEL_VIEW (object);

  if (self->sizing != NULL)
    g_cancellable_cancel (self->sizing);
  g_clear_object (&self->sizing);
  if (self->save_dialog != NULL)
    gtk_native_dialog_destroy (self->save_dialog);
  g_clear_object (&self->save_dialog);
  g_clear_pointer (&self->paned, gtk_widget_unparent);
  G_OBJECT_CLASS (prism_model_view_parent_class)->dispose (object);
}

static void
prism_model_view_finalize (GObject *object)
{
  PrismModelView *self = PRISM_MODEL_VIEW (object);

  g_clear_pointer (&self->model, prism_graph_unref);
  g_clear_object (&self->file);
  g_array_unref (self->selected);
  g_clear_pointer (&self->region, prism_graph_region_free);
  g_clear_pointer (&self->blocks, g_ptr_array_unref);
  g_free (self->summary);
  g_strfreev (self->dim_names);
  g_ptr_array_unref (self->dim_spins);
  G_OBJECT_CLASS (prism_model_view_parent_class)->finalize (object);
}

static void
prism_model_view_class_init (PrismModelViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = prism_model_view_dispose;
  object_class->finalize = prism_model_view_finalize;
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);

  /**
   * PrismModelView::search-region:
   * @program: (transfer none): the region as a program
   *
   * Search Region was pressed with a region selected.
   */
  signals[SEARCH_REGION] = g_signal_new ("search-region", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                         NULL, G_TYPE_NONE, 1, G_TYPE_POINTER);
  /**
   * PrismModelView::model-sized:
   * @model: (transfer none): the model imported with the sizes given
   *
   * Open Model imported the model whose symbolic dims were asked for.
   */
  signals[MODEL_SIZED] = g_signal_new ("model-sized", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                       NULL, G_TYPE_NONE, 1, G_TYPE_POINTER);
}

static void
prism_model_view_init (PrismModelView *self)
{
  GtkGesture *drag = gtk_gesture_drag_new ();

  self->selected = g_array_new (FALSE, FALSE, sizeof (guint));
  self->dim_spins = g_ptr_array_new ();
  self->paned = gtk_paned_new (GTK_ORIENTATION_HORIZONTAL);
  gtk_widget_set_parent (self->paned, GTK_WIDGET (self));
  self->overlay = gtk_overlay_new ();
  self->graph_view = PRISM_GRAPH_VIEW (prism_graph_view_new ());
  gtk_widget_set_hexpand (GTK_WIDGET (self->graph_view), TRUE);
  gtk_widget_set_vexpand (GTK_WIDGET (self->graph_view), TRUE);
  gtk_overlay_set_child (GTK_OVERLAY (self->overlay), GTK_WIDGET (self->graph_view));
  self->band = gtk_drawing_area_new ();
  gtk_widget_set_can_target (self->band, FALSE);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (self->band), draw_band, self, NULL);
  gtk_overlay_add_overlay (GTK_OVERLAY (self->overlay), self->band);
  gtk_paned_set_start_child (GTK_PANED (self->paned), self->overlay);
  gtk_paned_set_resize_start_child (GTK_PANED (self->paned), TRUE);
  gtk_paned_set_shrink_start_child (GTK_PANED (self->paned), FALSE);
  gtk_paned_set_end_child (GTK_PANED (self->paned), build_panel (self));
  gtk_paned_set_resize_end_child (GTK_PANED (self->paned), FALSE);
  gtk_paned_set_shrink_end_child (GTK_PANED (self->paned), FALSE);

  /* Before the graph view's own gestures (capture phase), and only with Shift. */
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (drag), GDK_BUTTON_PRIMARY);
  gtk_event_controller_set_propagation_phase (GTK_EVENT_CONTROLLER (drag), GTK_PHASE_CAPTURE);
  g_signal_connect_object (drag, "drag-begin", G_CALLBACK (drag_begin_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (drag, "drag-update", G_CALLBACK (drag_update_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (drag, "drag-end", G_CALLBACK (drag_end_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self->graph_view), GTK_EVENT_CONTROLLER (drag));
  update_region (self);
}

GtkWidget *
prism_model_view_new (void)
{
  return g_object_new (PRISM_TYPE_MODEL_VIEW, NULL);
}
