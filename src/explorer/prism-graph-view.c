/* prism-graph-view.c — a candidate's graph: kernels, block graphs, zoom and pan
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "prism-graph-view"

#include "config.h"

#include <math.h>
#include <glib/gi18n.h>

#include "prism-graph-find.h"
#include "prism-graph-paint.h"
#include "prism-graph-view.h"
#include "prism-node-properties.h"

#define MIN_ZOOM 0.05
#define MAX_ZOOM 8.0
#define MAX_FIT_ZOOM 1.25   /* a small graph is not blown up past this */
#define ZOOM_STEP 1.25
#define SCROLL_STEP 40.0
#define TOOLBAR_MARGIN 8
#define FOCUS_ZOOM 1.5      /* what a found or compared op is zoomed to: its text reads easily */
#define FOCUS_FILL 0.9      /* … unless that would not leave it whole in view */
#define PANEL_WIDTH 300
#define SEARCH_WIDTH 380
/* The legend is drawn only where the view is this many times its size:
 * below that it would cover much of the graph. */
#define LEGEND_ROOM 2.5

struct _PrismGraphView
{
  GtkWidget parent_instance;

  /* Owned References */
  PrismGraph *graph;            /* what is shown (or being laid out), or NULL */
  PrismGraphLayout *layout;     /* the layout drawn, or NULL */
  GCancellable *cancellable;    /* the layout in flight, or NULL; results of others are stale */
  GHashTable *highlight;        /* op ids drawn emphasized */
  GskRenderNode *cache;         /* the drawing at the current transform, or NULL */
  char *message;                /* why nothing is drawn, or NULL */
  GHashTable *collapsed;        /* kernel-level indices of the kernels drawn as one box */
  GArray *matches;              /* op ids the search found, as drawn (guint) */

  /* Children */
  GtkWidget *toolbar;
  GtkToggleButton *direction_button;
  GtkWidget *panel;             /* the selected op's properties, at the right */
  PrismNodeProperties *properties;
  GtkButton *collapse_button;   /* in the panel: folds the selected op's kernel */
  GtkWidget *search_bar;
  GtkSearchEntry *search_entry;
  GtkLabel *search_status;

  /* Screen point = offset + zoom × graph point. */
  double zoom;
  double offset_x;
  double offset_y;
  double drag_offset_x;
  double drag_offset_y;
  double pointer_x;
  double pointer_y;
  double legend_width;          /* measured once */
  double legend_height;
  int toolbar_height;

  PrismGraphDirection direction;
  int hover_node;
  int hover_cluster;
  guint selected;               /* op id drawn selected and shown in the panel, or PRISM_OP_ID_NONE */
  guint keep_in_view;           /* op id to centre on once laid out instead of fitting, or NONE */
  guint match_index;            /* the match selected last */

  guint auto_fit : 1;           /* refit on resize until the user zooms or pans */
  guint show_legend : 1;
  guint dark : 1;               /* the palette of the cached drawing */
  guint syncing_toggle : 1;
  guint pointer_inside : 1;
};

G_DEFINE_FINAL_TYPE (PrismGraphView, prism_graph_view, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_DIRECTION,
  PROP_LOADING,
  PROP_SELECTED,
  PROP_SHOW_LEGEND,
  PROP_ZOOM,
  N_PROPS
};

static GParamSpec *properties [N_PROPS];

/*
 * Auxiliary methods
 */

static void
invalidate (PrismGraphView *self)
{
  g_clear_pointer (&self->cache, gsk_render_node_unref);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static gboolean
theme_is_dark (PrismGraphView *self)
{
  GtkStyleContext *style = gtk_widget_get_style_context (GTK_WIDGET (self));
  GdkRGBA fg;

  /* Light text means a dark theme. */
  gtk_style_context_get_color (style, &fg);
  return 0.2126 * fg.red + 0.7152 * fg.green + 0.0722 * fg.blue > 0.5;
}

static void
set_transform (PrismGraphView *self,
               double          zoom,
               double          offset_x,
               double          offset_y)
{
  gboolean zoom_changed;

  zoom = CLAMP (zoom, MIN_ZOOM, MAX_ZOOM);
  zoom_changed = zoom != self->zoom;
  if (!zoom_changed && offset_x == self->offset_x && offset_y == self->offset_y)
    return;
  self->zoom = zoom;
  self->offset_x = offset_x;
  self->offset_y = offset_y;
  invalidate (self);
  if (zoom_changed)
    g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_ZOOM]);
}

/* Zooms keeping the graph point under (x, y) in place. */
static void
zoom_at (PrismGraphView *self,
         double          zoom,
         double          x,
         double          y)
{
  double gx = (x - self->offset_x) / self->zoom;
  double gy = (y - self->offset_y) / self->zoom;

  zoom = CLAMP (zoom, MIN_ZOOM, MAX_ZOOM);
  self->auto_fit = FALSE;
  set_transform (self, zoom, x - gx * zoom, y - gy * zoom);
}

static void
ensure_legend_size (PrismGraphView *self)
{
  cairo_surface_t *surface;
  cairo_t *cr;

  if (self->legend_width > 0)
    return;
  surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1, 1);
  cr = cairo_create (surface);
  prism_graph_paint_legend (cr, 0, 0, FALSE, &self->legend_width, &self->legend_height);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
}

static gboolean
panel_shown (PrismGraphView *self)
{
  return self->selected != PRISM_OP_ID_NONE;
}

static int
panel_width_for (int width)
{
  return MIN (PANEL_WIDTH, width / 2);
}

/* The graph is seen left of the properties panel, when there is one. */
static double
visible_width (PrismGraphView *self)
{
  int width = gtk_widget_get_width (GTK_WIDGET (self));

  if (panel_shown (self))
    width -= panel_width_for (width) + 2 * TOOLBAR_MARGIN;
  return MAX (1, width);
}

/* The band at the top that the toolbar (and the search bar) cover. */
static double
top_band (PrismGraphView *self)
{
  return self->toolbar_height > 0 ? self->toolbar_height + TOOLBAR_MARGIN : 0;
}

/* Whether the legend is drawn: asked for, and the view is big enough that
 * it does not cover much of the graph. */
static gboolean
legend_fits (PrismGraphView *self)
{
  if (!self->show_legend)
    return FALSE;
  ensure_legend_size (self);
  return visible_width (self) >= LEGEND_ROOM * self->legend_width &&
         gtk_widget_get_height (GTK_WIDGET (self)) - top_band (self) >= LEGEND_ROOM * self->legend_height;
}

/* The zoom that fits the layout in the rectangle, and the offsets that
 * centre it there. */
static double
fit_in (PrismGraphView *self,
        double          x,
        double          y,
        double          width,
        double          height,
        double         *offset_x,
        double         *offset_y)
{
  double zoom;

  if (width <= 1 || height <= 1)
    return 0;
  zoom = MIN (width / self->layout->width, height / self->layout->height);
  zoom = CLAMP (zoom, MIN_ZOOM, MAX_FIT_ZOOM);
  *offset_x = x + (width - self->layout->width * zoom) / 2;
  *offset_y = y + (height - self->layout->height * zoom) / 2;
  return zoom;
}

/* Fits the graph below the toolbar and, when that costs little, beside or
 * above the legend rather than under it. */
static void
fit (PrismGraphView *self)
{
  int width = visible_width (self);
  int height = gtk_widget_get_height (GTK_WIDGET (self));
  double top = top_band (self);
  double zoom, ox = 0, oy = 0;

  if (self->layout == NULL || width <= 0 || height <= 0 ||
      self->layout->width <= 0 || self->layout->height <= 0)
    return;

  zoom = fit_in (self, 0, top, width, height - top, &ox, &oy);
  if (zoom <= 0)
    zoom = fit_in (self, 0, 0, width, height, &ox, &oy);

  if (legend_fits (self) && zoom > 0)
    {
      double side_x, side_y, low_x, low_y, side, low, legend_x, legend_top;

      ensure_legend_size (self);
      legend_x = self->legend_width + 2 * TOOLBAR_MARGIN;
      legend_top = height - self->legend_height - 2 * TOOLBAR_MARGIN;
      side = fit_in (self, legend_x, top, width - legend_x, height - top, &side_x, &side_y);
      low = fit_in (self, 0, top, width, legend_top - top, &low_x, &low_y);
      if (side >= low && side >= 0.85 * zoom)
        {
          zoom = side;
          ox = side_x;
          oy = side_y;
        }
      else if (low >= 0.85 * zoom)
        {
          zoom = low;
          ox = low_x;
          oy = low_y;
        }
    }

  if (zoom > 0)
    set_transform (self, zoom, ox, oy);
}

static void
set_hover (PrismGraphView *self,
           int             node,
           int             cluster)
{
  if (node == self->hover_node && cluster == self->hover_cluster)
    return;
  self->hover_node = node;
  self->hover_cluster = cluster;
  invalidate (self);
}

static void
set_message (PrismGraphView *self,
             const char     *message)
{
  g_free (self->message);
  self->message = g_strdup (message);
  invalidate (self);
}

/* The node of @op_id, or -1; "no op" is no node, though empty kernels'
 * placeholders carry that id. */
static int
find_node (PrismGraphView *self,
           guint           op_id)
{
  if (self->layout == NULL || op_id == PRISM_OP_ID_NONE)
    return -1;
  return prism_graph_layout_find_node (self->layout, op_id);
}

/* Where the op's node, or its kernel's box, is drawn (graph units). */
static gboolean
op_box (PrismGraphView *self,
        guint           op_id,
        double         *x,
        double         *y,
        double         *width,
        double         *height)
{
  int index;

  if (self->layout == NULL || self->cancellable != NULL || op_id == PRISM_OP_ID_NONE)
    return FALSE;
  if ((index = find_node (self, op_id)) >= 0)
    {
      const PrismLayoutNode *node = prism_graph_layout_node (self->layout, index);

      *x = node->x;
      *y = node->y;
      *width = node->width;
      *height = node->height;
      return TRUE;
    }
  if ((index = prism_graph_layout_find_cluster (self->layout, op_id)) >= 0)
    {
      const PrismLayoutCluster *cluster = prism_graph_layout_cluster (self->layout, index);

      *x = cluster->x;
      *y = cluster->y;
      *width = cluster->width;
      *height = cluster->height;
      return TRUE;
    }
  return FALSE;
}

/* The kernel-level index of the custom kernel an op is or is in, or -1. */
static int
kernel_of (PrismGraphView *self,
           guint           op_id)
{
  int kernel = prism_op_id_get_kernel (op_id);
  guint index = prism_op_id_get_op (op_id);

  if (self->graph == NULL || op_id == PRISM_OP_ID_NONE)
    return -1;
  if (kernel >= 0)
    return kernel;
  if (index < self->graph->ops->len && prism_graph_op (self->graph, index)->kind == PRISM_OP_KERNEL &&
      prism_graph_op (self->graph, index)->body != NULL)
    return index;
  return -1;
}

/* Pans as little as needed for the box to be whole in view, left of the panel. */
static void
scroll_into_view (PrismGraphView *self,
                  guint           op_id)
{
  double x, y, w, h, sx0, sy0, sx1, sy1, dx = 0, dy = 0;
  double right = visible_width (self) - TOOLBAR_MARGIN;
  double bottom = gtk_widget_get_height (GTK_WIDGET (self)) - TOOLBAR_MARGIN;
  double top = top_band (self);

  if (!op_box (self, op_id, &x, &y, &w, &h))
    return;
  sx0 = self->offset_x + x * self->zoom;
  sy0 = self->offset_y + y * self->zoom;
  sx1 = sx0 + w * self->zoom;
  sy1 = sy0 + h * self->zoom;
  if (sx1 > right)
    dx = right - sx1;
  if (sx0 + dx < TOOLBAR_MARGIN)
    dx = TOOLBAR_MARGIN - sx0;
  if (sy1 > bottom)
    dy = bottom - sy1;
  if (sy0 + dy < top)
    dy = top - sy0;
  if (dx == 0 && dy == 0)
    return;
  self->auto_fit = FALSE;
  set_transform (self, self->zoom, self->offset_x + dx, self->offset_y + dy);
}

static void
update_panel (PrismGraphView *self)
{
  gboolean shown = self->selected != PRISM_OP_ID_NONE && self->graph != NULL &&
                   prism_node_properties_set_op (self->properties, self->graph, self->selected);
  int kernel = shown ? kernel_of (self, self->selected) : -1;

  if (!shown)
    {
      self->selected = PRISM_OP_ID_NONE;
      prism_node_properties_clear (self->properties);
    }
  gtk_widget_set_visible (self->panel, shown);
  gtk_widget_set_visible (GTK_WIDGET (self->collapse_button), kernel >= 0);
  if (kernel >= 0)
    gtk_button_set_label (self->collapse_button,
                          prism_graph_view_get_kernel_collapsed (self, kernel) ? _("Expand Kernel")
                                                                               : _("Collapse Kernel"));
}

static void
set_selected (PrismGraphView *self,
              guint           op_id)
{
  if (op_id == self->selected)
    return;
  self->selected = op_id;
  update_panel (self);
  /* The graph is now seen beside the panel, or without it. */
  if (self->auto_fit)
    fit (self);
  invalidate (self);
  gtk_widget_queue_allocate (GTK_WIDGET (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_SELECTED]);
}

static void
show_search_status (PrismGraphView *self)
{
  g_autofree char *query = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->search_entry))));
  g_autofree char *status = NULL;
  gboolean none = FALSE;

  if (*query == '\0' || self->layout == NULL)
    status = g_strdup ("");
  else if (self->matches->len == 0)
    {
      status = g_strdup (_("No match"));
      none = TRUE;
    }
  else
    /* Translators: which of the ops found is selected: "2 of 5". */
    status = g_strdup_printf (_("%u of %u"), self->match_index + 1, self->matches->len);
  gtk_label_set_label (self->search_status, status);
  if (none)
    gtk_widget_add_css_class (GTK_WIDGET (self->search_entry), "error");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self->search_entry), "error");
}

/* The ops the search text names, each once, as drawn: an op inside a
 * collapsed kernel is found as the kernel. */
static void
update_matches (PrismGraphView *self)
{
  g_autoptr(GArray) found = NULL;

  g_array_set_size (self->matches, 0);
  self->match_index = 0;
  if (self->graph != NULL && self->layout != NULL && self->cancellable == NULL)
    {
      found = prism_graph_find_ops (self->graph, gtk_editable_get_text (GTK_EDITABLE (self->search_entry)));
      for (guint i = 0; i < found->len; i++)
        {
          guint id = prism_graph_layout_shown_op (self->layout, g_array_index (found, guint, i));
          gboolean seen = id == PRISM_OP_ID_NONE;

          for (guint j = 0; j < self->matches->len && !seen; j++)
            seen = g_array_index (self->matches, guint, j) == id;
          if (!seen)
            g_array_append_val (self->matches, id);
        }
    }
  show_search_status (self);
}

static void
focus_match (PrismGraphView *self,
             guint           index)
{
  guint id;

  if (index >= self->matches->len)
    return;
  self->match_index = index;
  id = g_array_index (self->matches, guint, index);
  set_selected (self, id);
  prism_graph_view_zoom_to (self, id);
  show_search_status (self);
}

static void
layout_ready_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(PrismGraphView) self = user_data;
  g_autoptr(PrismGraphLayout) layout = NULL;
  g_autoptr(GError) error = NULL;
  GCancellable *cancellable = g_task_get_cancellable (G_TASK (result));

  layout = prism_graph_layout_compute_finish (result, &error);

  /* A newer graph or direction was asked for, or the view went away: this
   * result is stale whether it succeeded or not. */
  if (cancellable == NULL || cancellable != self->cancellable)
    return;

  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->layout, prism_graph_layout_unref);
  if (layout != NULL)
    {
      guint keep = self->keep_in_view;
      guint was_selected = self->selected;

      self->layout = g_steal_pointer (&layout);
      self->hover_node = -1;
      self->hover_cluster = -1;
      set_message (self, NULL);
      /* What was selected stays so, or its kernel if that was folded. */
      self->selected = prism_graph_layout_shown_op (self->layout, self->selected);
      update_panel (self);
      if (self->selected != was_selected)
        g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_SELECTED]);
      if (gtk_search_bar_get_search_mode (GTK_SEARCH_BAR (self->search_bar)))
        update_matches (self);
      self->keep_in_view = PRISM_OP_ID_NONE;
      keep = prism_graph_layout_shown_op (self->layout, keep);
      if (keep != PRISM_OP_ID_NONE)
        prism_graph_view_center_on (self, keep);
      else
        {
          self->auto_fit = TRUE;
          fit (self);
        }
      gtk_widget_queue_allocate (GTK_WIDGET (self));
    }
  else
    {
      set_message (self, error->message);
      set_selected (self, PRISM_OP_ID_NONE);
    }
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_LOADING]);
}

static void
relayout (PrismGraphView *self)
{
  gboolean was_loading = self->cancellable != NULL;

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);

  if (self->graph != NULL)
    {
      g_autoptr(GArray) collapsed = g_array_new (FALSE, FALSE, sizeof (guint));
      GHashTableIter iter;
      gpointer key;

      g_hash_table_iter_init (&iter, self->collapsed);
      while (g_hash_table_iter_next (&iter, &key, NULL))
        {
          guint kernel = GPOINTER_TO_UINT (key);

          g_array_append_val (collapsed, kernel);
        }
      self->cancellable = g_cancellable_new ();
      prism_graph_layout_compute_async (self->graph, self->direction,
                                        (const guint *) (void *) collapsed->data, collapsed->len,
                                        self->cancellable, layout_ready_cb, g_object_ref (self));
    }
  else
    {
      g_clear_pointer (&self->layout, prism_graph_layout_unref);
      set_message (self, NULL);
      set_selected (self, PRISM_OP_ID_NONE);
    }
  invalidate (self);
  if (was_loading != (self->cancellable != NULL))
    g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_LOADING]);
}

/* The drawing, re-recorded only when what it shows changes; redraws for
 * other reasons (the toolbar, a tooltip) append the same node. */
static GskRenderNode *
render (PrismGraphView *self,
        int             width,
        int             height)
{
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  PrismGraphPaintOptions options;
  cairo_t *cr;

  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
  cairo_save (cr);
  cairo_translate (cr, self->offset_x, self->offset_y);
  cairo_scale (cr, self->zoom, self->zoom);
  prism_graph_paint_options_init (&options);
  options.dark = self->dark;
  options.highlight = self->highlight;
  options.hover_node = self->hover_node;
  options.hover_cluster = self->hover_node < 0 ? self->hover_cluster : -1;
  options.selected_node = find_node (self, self->selected);
  options.selected_cluster = options.selected_node < 0 && self->selected != PRISM_OP_ID_NONE
                             ? prism_graph_layout_find_cluster (self->layout, self->selected) : -1;
  prism_graph_paint (cr, self->layout, &options);
  cairo_restore (cr);

  /* In the bottom-left corner. */
  if (legend_fits (self))
    prism_graph_paint_legend (cr, TOOLBAR_MARGIN, height - self->legend_height - TOOLBAR_MARGIN,
                              self->dark, NULL, NULL);
  cairo_destroy (cr);

  return gtk_snapshot_free_to_node (snapshot);
}

/*
 * Signal callbacks
 */

/* Whether (x, y) is on the drawing rather than on the toolbar, the search
 * bar or the panel, whose events bubble up here too. */
static gboolean
point_on_graph (PrismGraphView *self,
                double          x,
                double          y)
{
  return gtk_widget_pick (GTK_WIDGET (self), x, y, GTK_PICK_DEFAULT) == GTK_WIDGET (self);
}

static void
drag_begin_cb (PrismGraphView *self,
               double          x,
               double          y,
               GtkGestureDrag *gesture)
{
  if (!point_on_graph (self, x, y))
    {
      gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_DENIED);
      return;
    }
  self->drag_offset_x = self->offset_x;
  self->drag_offset_y = self->offset_y;
  gtk_widget_grab_focus (GTK_WIDGET (self));
}

static void
drag_update_cb (PrismGraphView *self,
                double          dx,
                double          dy,
                GtkGestureDrag *gesture)
{
  if (self->layout == NULL)
    return;
  gtk_widget_set_cursor_from_name (GTK_WIDGET (self), "grabbing");
  self->auto_fit = FALSE;
  set_transform (self, self->zoom, self->drag_offset_x + dx, self->drag_offset_y + dy);
}

static void
drag_end_cb (PrismGraphView *self,
             double          dx,
             double          dy,
             GtkGestureDrag *gesture)
{
  gtk_widget_set_cursor (GTK_WIDGET (self), NULL);
}

static gboolean
scroll_cb (PrismGraphView           *self,
           double                    dx,
           double                    dy,
           GtkEventControllerScroll *controller)
{
  GdkModifierType state = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (controller));
  GdkEvent *event = gtk_event_controller_get_current_event (GTK_EVENT_CONTROLLER (controller));
  double x = gtk_widget_get_width (GTK_WIDGET (self)) / 2.0;
  double y = gtk_widget_get_height (GTK_WIDGET (self)) / 2.0;
  double step = SCROLL_STEP;

  if (self->layout == NULL)
    return FALSE;

  if (event != NULL && gdk_scroll_event_get_direction (event) == GDK_SCROLL_SMOOTH &&
      gdk_event_get_device (event) != NULL &&
      gdk_device_get_source (gdk_event_get_device (event)) == GDK_SOURCE_TOUCHPAD)
    step = 1.0;  /* touchpads report pixels */

  if (state & GDK_CONTROL_MASK)
    {
      /* Keep the point under the pointer still. */
      if (self->pointer_inside)
        {
          x = self->pointer_x;
          y = self->pointer_y;
        }
      zoom_at (self, self->zoom * pow (1.1, -dy), x, y);
      return TRUE;
    }

  if (state & GDK_SHIFT_MASK)
    {
      double t = dx;

      dx = dy;
      dy = t;
    }
  prism_graph_view_pan (self, -dx * step, -dy * step);
  return TRUE;
}

static void
motion_cb (PrismGraphView           *self,
           double                    x,
           double                    y,
           GtkEventControllerMotion *controller)
{
  double gx, gy;

  self->pointer_x = x;
  self->pointer_y = y;
  self->pointer_inside = TRUE;
  if (self->layout == NULL)
    return;
  gx = (x - self->offset_x) / self->zoom;
  gy = (y - self->offset_y) / self->zoom;
  set_hover (self,
             prism_graph_layout_node_at (self->layout, gx, gy),
             prism_graph_layout_cluster_at (self->layout, gx, gy));
}

/* A double click folds the kernel whose box it is on, or unfolds a folded one. */
static void
toggle_kernel_at (PrismGraphView *self,
                  double          x,
                  double          y)
{
  double gx = (x - self->offset_x) / self->zoom;
  double gy = (y - self->offset_y) / self->zoom;
  int node = prism_graph_layout_node_at (self->layout, gx, gy);
  int cluster;

  if (node >= 0)
    {
      const PrismLayoutNode *n = prism_graph_layout_node (self->layout, node);

      if (n->role == PRISM_LAYOUT_ROLE_KERNEL)
        prism_graph_view_set_kernel_collapsed (self, prism_op_id_get_op (n->op_id), FALSE);
      return;
    }
  if ((cluster = prism_graph_layout_cluster_at (self->layout, gx, gy)) >= 0)
    prism_graph_view_set_kernel_collapsed (self,
                                           prism_op_id_get_op (prism_graph_layout_cluster (self->layout, cluster)->op_id),
                                           TRUE);
}

static void
click_released_cb (PrismGraphView  *self,
                   int              n_press,
                   double           x,
                   double           y,
                   GtkGestureClick *gesture)
{
  if (self->layout == NULL || self->cancellable != NULL || !point_on_graph (self, x, y))
    return;
  if (n_press == 2)
    toggle_kernel_at (self, x, y);
  else if (n_press == 1)
    prism_graph_view_select_at (self, x, y);
}

static void
search_changed_cb (PrismGraphView *self,
                   GtkSearchEntry *entry)
{
  update_matches (self);
  focus_match (self, 0);
}

static void
next_match_cb (PrismGraphView *self,
               GtkSearchEntry *entry)
{
  prism_graph_view_find_next (self, TRUE);
}

static void
previous_match_cb (PrismGraphView *self,
                   GtkSearchEntry *entry)
{
  prism_graph_view_find_next (self, FALSE);
}

static void
stop_search_cb (PrismGraphView *self,
                GtkSearchEntry *entry)
{
  gtk_search_bar_set_search_mode (GTK_SEARCH_BAR (self->search_bar), FALSE);
  gtk_widget_grab_focus (GTK_WIDGET (self));
}

static void
search_mode_cb (PrismGraphView *self,
                GParamSpec     *pspec,
                GtkSearchBar   *bar)
{
  if (gtk_search_bar_get_search_mode (bar))
    update_matches (self);
  gtk_widget_queue_allocate (GTK_WIDGET (self));
}

/* Ctrl+F anywhere in the window finds in the graph that is in view. */
static gboolean
find_shortcut_cb (GtkWidget *widget,
                  GVariant  *args,
                  gpointer   user_data)
{
  PrismGraphView *self = PRISM_GRAPH_VIEW (widget);

  if (!gtk_widget_get_mapped (widget) || self->graph == NULL)
    return FALSE;
  prism_graph_view_start_search (self);
  return TRUE;
}

static void
leave_cb (PrismGraphView           *self,
          GtkEventControllerMotion *controller)
{
  self->pointer_inside = FALSE;
  set_hover (self, -1, -1);
}

static void
direction_toggled_cb (PrismGraphView  *self,
                      GtkToggleButton *button)
{
  if (self->syncing_toggle)
    return;
  prism_graph_view_set_direction (self, gtk_toggle_button_get_active (button)
                                        ? PRISM_GRAPH_DIRECTION_LEFT_TO_RIGHT
                                        : PRISM_GRAPH_DIRECTION_TOP_TO_BOTTOM);
}

/*
 * Actions
 */

static void
zoom_in_action (GtkWidget  *widget,
                const char *action_name,
                GVariant   *param)
{
  prism_graph_view_zoom_in (PRISM_GRAPH_VIEW (widget));
}

static void
zoom_out_action (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *param)
{
  prism_graph_view_zoom_out (PRISM_GRAPH_VIEW (widget));
}

static void
zoom_fit_action (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *param)
{
  prism_graph_view_zoom_fit (PRISM_GRAPH_VIEW (widget));
}

static void
find_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *param)
{
  prism_graph_view_start_search (PRISM_GRAPH_VIEW (widget));
}

static void
clear_selection_action (GtkWidget  *widget,
                        const char *action_name,
                        GVariant   *param)
{
  prism_graph_view_select (PRISM_GRAPH_VIEW (widget), PRISM_OP_ID_NONE);
}

/* Escape clears the selection; with nothing selected it is not ours, so
 * that it reaches what holds the view (the pruning samples' popover, which
 * stayed open while its graph had the focus). */
static gboolean
escape_cb (GtkWidget *widget,
           GVariant  *args,
           gpointer   user_data)
{
  PrismGraphView *self = PRISM_GRAPH_VIEW (widget);

  if (self->selected == PRISM_OP_ID_NONE)
    return FALSE;
  prism_graph_view_select (self, PRISM_OP_ID_NONE);
  return TRUE;
}

static void
collapse_all_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *param)
{
  prism_graph_view_collapse_all (PRISM_GRAPH_VIEW (widget));
}

static void
expand_all_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *param)
{
  prism_graph_view_expand_all (PRISM_GRAPH_VIEW (widget));
}

/* Folds or unfolds the kernel the selected op is, or is in. */
static void
toggle_kernel_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *param)
{
  PrismGraphView *self = PRISM_GRAPH_VIEW (widget);
  int kernel = kernel_of (self, self->selected);

  if (kernel >= 0)
    prism_graph_view_set_kernel_collapsed (self, kernel, !prism_graph_view_get_kernel_collapsed (self, kernel));
}

static void
copy_properties_action (GtkWidget  *widget,
                        const char *action_name,
                        GVariant   *param)
{
  PrismGraphView *self = PRISM_GRAPH_VIEW (widget);
  g_autofree char *text = prism_node_properties_get_text (self->properties);

  gdk_clipboard_set_text (gtk_widget_get_clipboard (widget), text);
}

/*
 * GtkWidget overrides
 */

static void
prism_graph_view_measure (GtkWidget      *widget,
                          GtkOrientation  orientation,
                          int             for_size,
                          int            *minimum,
                          int            *natural,
                          int            *minimum_baseline,
                          int            *natural_baseline)
{
  PrismGraphView *self = (PrismGraphView *)widget;
  int child_min = 0, child_nat = 0;

  g_assert (PRISM_IS_GRAPH_VIEW (self));

  gtk_widget_measure (self->toolbar, orientation, -1, &child_min, &child_nat, NULL, NULL);
  *minimum = child_min + 2 * TOOLBAR_MARGIN;
  *natural = MAX (child_nat + 2 * TOOLBAR_MARGIN, orientation == GTK_ORIENTATION_HORIZONTAL ? 360 : 280);
}

static void
prism_graph_view_size_allocate (GtkWidget *widget,
                                int        width,
                                int        height,
                                int        baseline)
{
  PrismGraphView *self = (PrismGraphView *)widget;
  GtkRequisition min, nat;
  int w, h;

  g_assert (PRISM_IS_GRAPH_VIEW (self));

  gtk_widget_get_preferred_size (self->toolbar, &min, &nat);
  w = MIN (nat.width, MAX (min.width, width - 2 * TOOLBAR_MARGIN));
  h = MIN (nat.height, MAX (min.height, height - 2 * TOOLBAR_MARGIN));
  gtk_widget_size_allocate (self->toolbar,
                            &(GtkAllocation) { width - w - TOOLBAR_MARGIN, TOOLBAR_MARGIN, w, h },
                            -1);
  self->toolbar_height = h + TOOLBAR_MARGIN;

  /* The search bar at the top left, or under the toolbar where the view is
   * too narrow for both side by side. */
  {
    int room = width - w - 3 * TOOLBAR_MARGIN;
    int y = TOOLBAR_MARGIN;

    gtk_widget_get_preferred_size (self->search_bar, &min, &nat);
    if (room < min.width)
      {
        room = width - 2 * TOOLBAR_MARGIN;
        y = self->toolbar_height + TOOLBAR_MARGIN;
      }
    w = MAX (min.width, MIN (MAX (nat.width, SEARCH_WIDTH), room));
    gtk_widget_size_allocate (self->search_bar,
                              &(GtkAllocation) { TOOLBAR_MARGIN, y, w, nat.height }, -1);
    if (gtk_search_bar_get_search_mode (GTK_SEARCH_BAR (self->search_bar)) && nat.height > 0)
      self->toolbar_height = MAX (self->toolbar_height, y + nat.height);
  }

  /* The panel along the right edge, below the toolbar. */
  if (gtk_widget_get_visible (self->panel))
    {
      int pw = panel_width_for (width);
      int top = self->toolbar_height + TOOLBAR_MARGIN;

      gtk_widget_measure (self->panel, GTK_ORIENTATION_HORIZONTAL, -1, &min.width, NULL, NULL, NULL);
      pw = MAX (pw, min.width);
      gtk_widget_measure (self->panel, GTK_ORIENTATION_VERTICAL, pw, &min.height, NULL, NULL, NULL);
      gtk_widget_size_allocate (self->panel,
                                &(GtkAllocation) { width - pw - TOOLBAR_MARGIN, top, pw,
                                                   MAX (min.height, height - top - TOOLBAR_MARGIN) },
                                -1);
    }

  g_clear_pointer (&self->cache, gsk_render_node_unref);
  if (self->auto_fit)
    fit (self);
}

static void
prism_graph_view_snapshot (GtkWidget   *widget,
                           GtkSnapshot *snapshot)
{
  PrismGraphView *self = (PrismGraphView *)widget;
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  gboolean dark = theme_is_dark (self);
  double bg[4];

  g_assert (PRISM_IS_GRAPH_VIEW (self));

  if (width <= 0 || height <= 0)
    return;

  if (dark != self->dark)
    {
      self->dark = dark;
      g_clear_pointer (&self->cache, gsk_render_node_unref);
    }

  prism_graph_paint_get_background (self->dark, bg);
  gtk_snapshot_append_color (snapshot,
                             &(GdkRGBA) { bg[0], bg[1], bg[2], bg[3] },
                             &GRAPHENE_RECT_INIT (0, 0, width, height));

  if (self->layout != NULL && self->cancellable == NULL)
    {
      if (self->cache == NULL)
        self->cache = render (self, width, height);
      gtk_snapshot_push_clip (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
      gtk_snapshot_append_node (snapshot, self->cache);
      gtk_snapshot_pop (snapshot);
    }
  else
    {
      const char *text = self->message;
      g_autoptr(PangoLayout) layout = NULL;
      GtkStyleContext *style = gtk_widget_get_style_context (widget);
      GdkRGBA fg;
      int tw, th;

      if (self->cancellable != NULL)
        text = _("Laying out the graph…");
      else if (text == NULL)
        text = _("No graph to show");
      layout = gtk_widget_create_pango_layout (widget, text);
      pango_layout_set_width (layout, MAX (1, width - 48) * PANGO_SCALE);
      pango_layout_set_alignment (layout, PANGO_ALIGN_CENTER);
      pango_layout_set_wrap (layout, PANGO_WRAP_WORD_CHAR);
      pango_layout_get_pixel_size (layout, &tw, &th);
      gtk_style_context_get_color (style, &fg);
      fg.alpha *= 0.55;
      gtk_snapshot_save (snapshot);
      gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT (24, (height - th) / 2.0));
      gtk_snapshot_append_layout (snapshot, layout, &fg);
      gtk_snapshot_restore (snapshot);
    }

  gtk_widget_snapshot_child (widget, self->search_bar, snapshot);
  gtk_widget_snapshot_child (widget, self->panel, snapshot);
  gtk_widget_snapshot_child (widget, self->toolbar, snapshot);
}

static gboolean
prism_graph_view_query_tooltip (GtkWidget  *widget,
                                int         x,
                                int         y,
                                gboolean    keyboard_mode,
                                GtkTooltip *tooltip)
{
  PrismGraphView *self = (PrismGraphView *)widget;
  double gx, gy;
  int index;

  g_assert (PRISM_IS_GRAPH_VIEW (self));

  if (self->layout == NULL || self->cancellable != NULL || keyboard_mode)
    return FALSE;

  gx = (x - self->offset_x) / self->zoom;
  gy = (y - self->offset_y) / self->zoom;
  if ((index = prism_graph_layout_node_at (self->layout, gx, gy)) >= 0)
    {
      const PrismLayoutNode *node = prism_graph_layout_node (self->layout, index);

      gtk_tooltip_set_markup (tooltip, node->tooltip);
      /* A new tooltip as soon as the pointer moves to another node. */
      gtk_tooltip_set_tip_area (tooltip, &(GdkRectangle) {
                                  floor (self->offset_x + node->x * self->zoom),
                                  floor (self->offset_y + node->y * self->zoom),
                                  ceil (node->width * self->zoom),
                                  ceil (node->height * self->zoom) });
      return TRUE;
    }
  if ((index = prism_graph_layout_cluster_at (self->layout, gx, gy)) >= 0)
    {
      const PrismLayoutCluster *cluster = prism_graph_layout_cluster (self->layout, index);

      gtk_tooltip_set_markup (tooltip, cluster->tooltip);
      gtk_tooltip_set_tip_area (tooltip, &(GdkRectangle) {
                                  floor (self->offset_x + cluster->x * self->zoom),
                                  floor (self->offset_y + cluster->y * self->zoom),
                                  ceil (cluster->width * self->zoom),
                                  ceil (cluster->header_height * self->zoom) });
      return TRUE;
    }
  return FALSE;
}

/*
 * GObject overrides
 */

static void
prism_graph_view_dispose (GObject *object)
{
  PrismGraphView *self = (PrismGraphView *)object;

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->toolbar, gtk_widget_unparent);
  g_clear_pointer (&self->search_bar, gtk_widget_unparent);
  g_clear_pointer (&self->panel, gtk_widget_unparent);

  G_OBJECT_CLASS (prism_graph_view_parent_class)->dispose (object);
}

static void
prism_graph_view_finalize (GObject *object)
{
  PrismGraphView *self = (PrismGraphView *)object;

  g_clear_pointer (&self->graph, prism_graph_unref);
  g_clear_pointer (&self->layout, prism_graph_layout_unref);
  g_clear_pointer (&self->highlight, g_hash_table_unref);
  g_clear_pointer (&self->collapsed, g_hash_table_unref);
  g_clear_pointer (&self->matches, g_array_unref);
  g_clear_pointer (&self->cache, gsk_render_node_unref);
  g_clear_pointer (&self->message, g_free);

  G_OBJECT_CLASS (prism_graph_view_parent_class)->finalize (object);
}

static void
prism_graph_view_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  PrismGraphView *self = PRISM_GRAPH_VIEW (object);

  switch (prop_id)
    {
    case PROP_DIRECTION:
      g_value_set_enum (value, self->direction);
      break;

    case PROP_LOADING:
      g_value_set_boolean (value, prism_graph_view_get_loading (self));
      break;

    case PROP_SELECTED:
      g_value_set_uint (value, self->selected);
      break;

    case PROP_SHOW_LEGEND:
      g_value_set_boolean (value, self->show_legend);
      break;

    case PROP_ZOOM:
      g_value_set_double (value, self->zoom);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
prism_graph_view_set_property (GObject      *object,
                               guint         prop_id,
                               const GValue *value,
                               GParamSpec   *pspec)
{
  PrismGraphView *self = PRISM_GRAPH_VIEW (object);

  switch (prop_id)
    {
    case PROP_DIRECTION:
      prism_graph_view_set_direction (self, g_value_get_enum (value));
      break;

    case PROP_SHOW_LEGEND:
      prism_graph_view_set_show_legend (self, g_value_get_boolean (value));
      break;

    case PROP_ZOOM:
      prism_graph_view_set_zoom (self, g_value_get_double (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
prism_graph_view_class_init (PrismGraphViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = prism_graph_view_dispose;
  object_class->finalize = prism_graph_view_finalize;
  object_class->get_property = prism_graph_view_get_property;
  object_class->set_property = prism_graph_view_set_property;

  widget_class->measure = prism_graph_view_measure;
  widget_class->size_allocate = prism_graph_view_size_allocate;
  widget_class->snapshot = prism_graph_view_snapshot;
  widget_class->query_tooltip = prism_graph_view_query_tooltip;

  properties [PROP_DIRECTION] =
    g_param_spec_enum ("direction", NULL, NULL,
                       PRISM_TYPE_GRAPH_DIRECTION, PRISM_GRAPH_DIRECTION_TOP_TO_BOTTOM,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties [PROP_LOADING] =
    g_param_spec_boolean ("loading", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties [PROP_SELECTED] =
    g_param_spec_uint ("selected", NULL, NULL, 0, G_MAXUINT, PRISM_OP_ID_NONE,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties [PROP_SHOW_LEGEND] =
    g_param_spec_boolean ("show-legend", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties [PROP_ZOOM] =
    g_param_spec_double ("zoom", NULL, NULL, MIN_ZOOM, MAX_ZOOM, 1.0,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_css_name (widget_class, "graphview");

  gtk_widget_class_install_action (widget_class, "graph.zoom-in", NULL, zoom_in_action);
  gtk_widget_class_install_action (widget_class, "graph.zoom-out", NULL, zoom_out_action);
  gtk_widget_class_install_action (widget_class, "graph.zoom-fit", NULL, zoom_fit_action);
  gtk_widget_class_install_action (widget_class, "graph.find", NULL, find_action);
  gtk_widget_class_install_action (widget_class, "graph.clear-selection", NULL, clear_selection_action);
  gtk_widget_class_install_action (widget_class, "graph.collapse-all", NULL, collapse_all_action);
  gtk_widget_class_install_action (widget_class, "graph.expand-all", NULL, expand_all_action);
  gtk_widget_class_install_action (widget_class, "graph.toggle-kernel", NULL, toggle_kernel_action);
  gtk_widget_class_install_action (widget_class, "graph.copy-properties", NULL, copy_properties_action);
  gtk_widget_class_install_property_action (widget_class, "graph.show-legend", "show-legend");

  gtk_widget_class_add_binding (widget_class, GDK_KEY_Escape, 0, escape_cb, NULL);

  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_plus, 0, "graph.zoom-in", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_equal, 0, "graph.zoom-in", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_Add, 0, "graph.zoom-in", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_plus, GDK_CONTROL_MASK, "graph.zoom-in", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_equal, GDK_CONTROL_MASK, "graph.zoom-in", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_minus, 0, "graph.zoom-out", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_Subtract, 0, "graph.zoom-out", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_minus, GDK_CONTROL_MASK, "graph.zoom-out", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_0, 0, "graph.zoom-fit", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_0, GDK_CONTROL_MASK, "graph.zoom-fit", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_0, 0, "graph.zoom-fit", NULL);
}

static GtkWidget *
toolbar_button (const char *icon_name,
                const char *action_name,
                const char *tooltip)
{
  GtkWidget *button = gtk_button_new_from_icon_name (icon_name);

  gtk_actionable_set_action_name (GTK_ACTIONABLE (button), action_name);
  gtk_widget_set_tooltip_text (button, tooltip);
  gtk_widget_set_focus_on_click (button, FALSE);
  return button;
}

static GtkWidget *
create_search_bar (PrismGraphView *self)
{
  GtkWidget *bar = gtk_search_bar_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *entry = gtk_search_entry_new ();
  GtkWidget *status = gtk_label_new (NULL);
  GtkWidget *nav = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  GtkWidget *button;

  g_object_set (entry, "placeholder-text", _("Find an op or tensor"), NULL);
  gtk_widget_set_hexpand (entry, TRUE);
  gtk_label_set_width_chars (GTK_LABEL (status), 8);
  gtk_widget_add_css_class (status, "dim-label");
  gtk_widget_add_css_class (nav, "linked");
  button = gtk_button_new_from_icon_name ("go-up-symbolic");
  gtk_widget_set_tooltip_text (button, _("Previous Match"));
  g_signal_connect_object (button, "clicked", G_CALLBACK (previous_match_cb), self, G_CONNECT_SWAPPED);
  gtk_box_append (GTK_BOX (nav), button);
  button = gtk_button_new_from_icon_name ("go-down-symbolic");
  gtk_widget_set_tooltip_text (button, _("Next Match"));
  g_signal_connect_object (button, "clicked", G_CALLBACK (next_match_cb), self, G_CONNECT_SWAPPED);
  gtk_box_append (GTK_BOX (nav), button);
  gtk_box_append (GTK_BOX (box), entry);
  gtk_box_append (GTK_BOX (box), status);
  gtk_box_append (GTK_BOX (box), nav);

  gtk_search_bar_set_child (GTK_SEARCH_BAR (bar), box);
  gtk_search_bar_connect_entry (GTK_SEARCH_BAR (bar), GTK_EDITABLE (entry));
  gtk_search_bar_set_show_close_button (GTK_SEARCH_BAR (bar), TRUE);
  gtk_widget_add_css_class (bar, "graph-search");
  g_signal_connect_object (entry, "search-changed", G_CALLBACK (search_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (entry, "activate", G_CALLBACK (next_match_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (entry, "next-match", G_CALLBACK (next_match_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (entry, "previous-match", G_CALLBACK (previous_match_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (entry, "stop-search", G_CALLBACK (stop_search_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (bar, "notify::search-mode-enabled", G_CALLBACK (search_mode_cb), self,
                           G_CONNECT_SWAPPED);

  self->search_entry = GTK_SEARCH_ENTRY (entry);
  self->search_status = GTK_LABEL (status);
  return bar;
}

/* The selected op's properties, with what can be done to it. */
static GtkWidget *
create_panel (PrismGraphView *self)
{
  GtkWidget *frame = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *header = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *scrolled = gtk_scrolled_window_new ();
  GtkWidget *list = prism_node_properties_new ();
  GtkWidget *button;

  gtk_widget_add_css_class (frame, "background");
  gtk_widget_add_css_class (frame, "frame");
  gtk_widget_add_css_class (frame, "graph-panel");
  gtk_widget_set_margin_start (header, 12);
  gtk_widget_set_margin_end (header, 6);
  gtk_widget_set_margin_top (header, 6);

  button = gtk_button_new_with_label (_("Collapse Kernel"));
  gtk_actionable_set_action_name (GTK_ACTIONABLE (button), "graph.toggle-kernel");
  gtk_widget_set_hexpand (button, TRUE);
  gtk_widget_set_halign (button, GTK_ALIGN_START);
  self->collapse_button = GTK_BUTTON (button);
  gtk_box_append (GTK_BOX (header), button);
  button = gtk_button_new_from_icon_name ("edit-copy-symbolic");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (button), "graph.copy-properties");
  gtk_widget_set_tooltip_text (button, _("Copy the Properties"));
  gtk_widget_add_css_class (button, "flat");
  gtk_widget_set_halign (button, GTK_ALIGN_END);
  gtk_widget_set_hexpand (button, TRUE);
  gtk_box_append (GTK_BOX (header), button);
  button = gtk_button_new_from_icon_name ("window-close-symbolic");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (button), "graph.clear-selection");
  gtk_widget_set_tooltip_text (button, _("Close the Properties"));
  gtk_widget_add_css_class (button, "flat");
  gtk_box_append (GTK_BOX (header), button);
  gtk_box_append (GTK_BOX (frame), header);

  gtk_widget_set_margin_start (list, 12);
  gtk_widget_set_margin_end (list, 12);
  gtk_widget_set_margin_top (list, 6);
  gtk_widget_set_margin_bottom (list, 12);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (scrolled), FALSE);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), list);
  gtk_widget_set_vexpand (scrolled, TRUE);
  gtk_box_append (GTK_BOX (frame), scrolled);

  self->properties = PRISM_NODE_PROPERTIES (list);
  gtk_widget_set_visible (frame, FALSE);
  return frame;
}

static void
prism_graph_view_init (PrismGraphView *self)
{
  GtkGesture *drag;
  GtkGesture *click;
  GtkEventController *controller;
  GtkWidget *button;
  g_autoptr(GMenu) menu = g_menu_new ();

  self->zoom = 1.0;
  self->hover_node = -1;
  self->hover_cluster = -1;
  self->auto_fit = TRUE;
  self->show_legend = TRUE;
  self->direction = PRISM_GRAPH_DIRECTION_TOP_TO_BOTTOM;
  self->highlight = g_hash_table_new (NULL, NULL);
  self->collapsed = g_hash_table_new (NULL, NULL);
  self->matches = g_array_new (FALSE, FALSE, sizeof (guint));
  self->selected = PRISM_OP_ID_NONE;
  self->keep_in_view = PRISM_OP_ID_NONE;

  gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);
  gtk_widget_set_overflow (GTK_WIDGET (self), GTK_OVERFLOW_HIDDEN);
  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);

  /* Zoom buttons float over the top-right corner of the drawing. */
  self->toolbar = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  gtk_widget_add_css_class (self->toolbar, "linked");
  gtk_widget_add_css_class (self->toolbar, "graph-toolbar");
  button = toolbar_button ("edit-find-symbolic", "graph.find", _("Find an Op or Tensor"));
  gtk_widget_set_margin_end (button, 6);
  gtk_box_append (GTK_BOX (self->toolbar), button);
  gtk_box_append (GTK_BOX (self->toolbar),
                  toolbar_button ("zoom-out-symbolic", "graph.zoom-out", _("Zoom Out")));
  gtk_box_append (GTK_BOX (self->toolbar),
                  toolbar_button ("zoom-fit-best-symbolic", "graph.zoom-fit", _("Fit the Graph")));
  gtk_box_append (GTK_BOX (self->toolbar),
                  toolbar_button ("zoom-in-symbolic", "graph.zoom-in", _("Zoom In")));
  button = gtk_toggle_button_new ();
  gtk_button_set_icon_name (GTK_BUTTON (button), "object-rotate-right-symbolic");
  gtk_widget_set_tooltip_text (button, _("Lay Out from Left to Right"));
  gtk_widget_set_focus_on_click (button, FALSE);
  gtk_widget_set_margin_start (button, 6);
  g_signal_connect_object (button, "toggled", G_CALLBACK (direction_toggled_cb), self,
                           G_CONNECT_SWAPPED);
  self->direction_button = GTK_TOGGLE_BUTTON (button);
  gtk_box_append (GTK_BOX (self->toolbar), button);
  button = gtk_toggle_button_new ();
  gtk_button_set_icon_name (GTK_BUTTON (button), "view-list-bullet-symbolic");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (button), "graph.show-legend");
  gtk_widget_set_tooltip_text (button, _("Show the Legend"));
  gtk_widget_set_focus_on_click (button, FALSE);
  gtk_box_append (GTK_BOX (self->toolbar), button);
  g_menu_append (menu, _("Collapse All Kernels"), "graph.collapse-all");
  g_menu_append (menu, _("Expand All Kernels"), "graph.expand-all");
  button = gtk_menu_button_new ();
  gtk_menu_button_set_icon_name (GTK_MENU_BUTTON (button), "view-more-symbolic");
  gtk_menu_button_set_menu_model (GTK_MENU_BUTTON (button), G_MENU_MODEL (menu));
  gtk_widget_set_tooltip_text (button, _("Kernels"));
  gtk_widget_set_focus_on_click (button, FALSE);
  gtk_box_append (GTK_BOX (self->toolbar), button);
  gtk_widget_set_parent (self->toolbar, GTK_WIDGET (self));

  self->search_bar = create_search_bar (self);
  gtk_widget_set_parent (self->search_bar, GTK_WIDGET (self));
  self->panel = create_panel (self);
  gtk_widget_set_parent (self->panel, GTK_WIDGET (self));

  click = gtk_gesture_click_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (click), GDK_BUTTON_PRIMARY);
  g_signal_connect_object (click, "released", G_CALLBACK (click_released_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (click));

  controller = gtk_shortcut_controller_new ();
  gtk_shortcut_controller_set_scope (GTK_SHORTCUT_CONTROLLER (controller), GTK_SHORTCUT_SCOPE_MANAGED);
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (controller),
                                        gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_f, GDK_CONTROL_MASK),
                                                          gtk_callback_action_new (find_shortcut_cb, NULL, NULL)));
  gtk_widget_add_controller (GTK_WIDGET (self), controller);

  drag = gtk_gesture_drag_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (drag), 0);
  g_signal_connect_object (drag, "drag-begin", G_CALLBACK (drag_begin_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (drag, "drag-update", G_CALLBACK (drag_update_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (drag, "drag-end", G_CALLBACK (drag_end_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drag));

  controller = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES);
  g_signal_connect_object (controller, "scroll", G_CALLBACK (scroll_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);

  controller = gtk_event_controller_motion_new ();
  g_signal_connect_object (controller, "motion", G_CALLBACK (motion_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (controller, "leave", G_CALLBACK (leave_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);
}

/*
 * Public API
 */

GtkWidget *
prism_graph_view_new (void)
{
  return g_object_new (PRISM_TYPE_GRAPH_VIEW, NULL);
}

/**
 * prism_graph_view_set_graph:
 * @graph: (nullable): a kernel graph; a reference is taken and the graph must
 *   not change while it is shown
 *
 * Shows @graph once it is laid out in the background. A layout still in
 * flight for an earlier graph is dropped when it arrives.
 */
void
prism_graph_view_set_graph (PrismGraphView *self,
                            PrismGraph     *graph)
{
  g_return_if_fail (PRISM_IS_GRAPH_VIEW (self));
  g_return_if_fail (graph == NULL || graph->level == PRISM_LEVEL_KERNEL);

  if (graph == self->graph)
    return;
  if (graph != NULL)
    prism_graph_ref (graph);
  g_clear_pointer (&self->graph, prism_graph_unref);
  self->graph = graph;
  /* Kernels are folded and ops selected per graph. */
  g_hash_table_remove_all (self->collapsed);
  self->keep_in_view = PRISM_OP_ID_NONE;
  set_selected (self, PRISM_OP_ID_NONE);
  relayout (self);
}

/**
 * prism_graph_view_get_graph:
 *
 * Returns: (transfer none) (nullable): the graph shown or being laid out
 */
PrismGraph *
prism_graph_view_get_graph (PrismGraphView *self)
{
  g_return_val_if_fail (PRISM_IS_GRAPH_VIEW (self), NULL);
  return self->graph;
}

/**
 * prism_graph_view_get_layout:
 *
 * Returns: (transfer none) (nullable): the layout drawn; %NULL while none is
 *   ready. A stale layout is never kept once a newer one is asked for.
 */
PrismGraphLayout *
prism_graph_view_get_layout (PrismGraphView *self)
{
  g_return_val_if_fail (PRISM_IS_GRAPH_VIEW (self), NULL);
  return self->cancellable != NULL ? NULL : self->layout;
}

gboolean
prism_graph_view_get_loading (PrismGraphView *self)
{
  g_return_val_if_fail (PRISM_IS_GRAPH_VIEW (self), FALSE);
  return self->cancellable != NULL;
}

void
prism_graph_view_set_direction (PrismGraphView      *self,
                                PrismGraphDirection  direction)
{
  g_return_if_fail (PRISM_IS_GRAPH_VIEW (self));
  g_return_if_fail (direction == PRISM_GRAPH_DIRECTION_TOP_TO_BOTTOM ||
                    direction == PRISM_GRAPH_DIRECTION_LEFT_TO_RIGHT);

  if (direction == self->direction)
    return;
  self->direction = direction;
  self->syncing_toggle = TRUE;
  gtk_toggle_button_set_active (self->direction_button,
                                direction == PRISM_GRAPH_DIRECTION_LEFT_TO_RIGHT);
  self->syncing_toggle = FALSE;
  if (self->graph != NULL)
    relayout (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_DIRECTION]);
}

PrismGraphDirection
prism_graph_view_get_direction (PrismGraphView *self)
{
  g_return_val_if_fail (PRISM_IS_GRAPH_VIEW (self), PRISM_GRAPH_DIRECTION_TOP_TO_BOTTOM);
  return self->direction;
}

/**
 * prism_graph_view_set_highlight:
 * @op_ids: (array length=n_op_ids) (nullable): ops (and custom kernels, by
 *   their kernel-level op id) to draw emphasized; replaces the previous set
 */
void
prism_graph_view_set_highlight (PrismGraphView *self,
                                const guint    *op_ids,
                                guint           n_op_ids)
{
  g_return_if_fail (PRISM_IS_GRAPH_VIEW (self));
  g_return_if_fail (op_ids != NULL || n_op_ids == 0);

  g_hash_table_remove_all (self->highlight);
  for (guint i = 0; i < n_op_ids; i++)
    g_hash_table_add (self->highlight, GUINT_TO_POINTER (op_ids[i]));
  invalidate (self);
}

gboolean
prism_graph_view_is_highlighted (PrismGraphView *self,
                                 guint           op_id)
{
  g_return_val_if_fail (PRISM_IS_GRAPH_VIEW (self), FALSE);
  return g_hash_table_contains (self->highlight, GUINT_TO_POINTER (op_id));
}

void
prism_graph_view_set_show_legend (PrismGraphView *self,
                                  gboolean        show_legend)
{
  g_return_if_fail (PRISM_IS_GRAPH_VIEW (self));

  show_legend = !!show_legend;
  if (show_legend == self->show_legend)
    return;
  self->show_legend = show_legend;
  if (self->auto_fit)
    fit (self);
  invalidate (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_SHOW_LEGEND]);
}

double
prism_graph_view_get_zoom (PrismGraphView *self)
{
  g_return_val_if_fail (PRISM_IS_GRAPH_VIEW (self), 1.0);
  return self->zoom;
}

/* Zooms about the centre of the view (of what the panel leaves of it). */
void
prism_graph_view_set_zoom (PrismGraphView *self,
                           double          zoom)
{
  g_return_if_fail (PRISM_IS_GRAPH_VIEW (self));

  zoom_at (self, zoom,
           visible_width (self) / 2.0,
           gtk_widget_get_height (GTK_WIDGET (self)) / 2.0);
}

void
prism_graph_view_zoom_in (PrismGraphView *self)
{
  g_return_if_fail (PRISM_IS_GRAPH_VIEW (self));
  prism_graph_view_set_zoom (self, self->zoom * ZOOM_STEP);
}

void
prism_graph_view_zoom_out (PrismGraphView *self)
{
  g_return_if_fail (PRISM_IS_GRAPH_VIEW (self));
  prism_graph_view_set_zoom (self, self->zoom / ZOOM_STEP);
}

/* Shows the whole graph, centred, and keeps it so as the view is resized. */
void
prism_graph_view_zoom_fit (PrismGraphView *self)
{
  g_return_if_fail (PRISM_IS_GRAPH_VIEW (self));

  self->auto_fit = TRUE;
  fit (self);
}

/* Moves the drawing by (dx, dy) pixels. */
void
prism_graph_view_pan (PrismGraphView *self,
                      double          dx,
                      double          dy)
{
  g_return_if_fail (PRISM_IS_GRAPH_VIEW (self));

  self->auto_fit = FALSE;
  set_transform (self, self->zoom, self->offset_x + dx, self->offset_y + dy);
}

/**
 * prism_graph_view_center_on:
 * @op_id: an op, or a custom kernel by its kernel-level op id
 *
 * Scrolls, at the current zoom, so that the op's node (or the kernel's box)
 * is in the middle of the view (of what the properties panel leaves).
 *
 * Returns: %FALSE if the layout is not ready or has no such op
 */
gboolean
prism_graph_view_center_on (PrismGraphView *self,
                            guint           op_id)
{
  double cx, cy;
  int index;

  g_return_val_if_fail (PRISM_IS_GRAPH_VIEW (self), FALSE);

  if (self->layout == NULL || self->cancellable != NULL)
    return FALSE;
  if ((index = prism_graph_layout_find_node (self->layout, op_id)) >= 0)
    {
      const PrismLayoutNode *node = prism_graph_layout_node (self->layout, index);

      cx = node->x + node->width / 2;
      cy = node->y + node->height / 2;
    }
  else
    {
      const PrismLayoutCluster *cluster = NULL;

      for (guint c = 0; c < self->layout->clusters->len; c++)
        if (prism_graph_layout_cluster (self->layout, c)->op_id == op_id)
          cluster = prism_graph_layout_cluster (self->layout, c);
      if (cluster == NULL)
        return FALSE;
      cx = cluster->x + cluster->width / 2;
      cy = cluster->y + cluster->height / 2;
    }

  self->auto_fit = FALSE;
  set_transform (self, self->zoom,
                 visible_width (self) / 2.0 - cx * self->zoom,
                 gtk_widget_get_height (GTK_WIDGET (self)) / 2.0 - cy * self->zoom);
  return TRUE;
}

/**
 * prism_graph_view_zoom_to:
 * @op_id: an op, or a custom kernel by its kernel-level op id; an op of a
 *   collapsed kernel brings the kernel's box
 *
 * Zooms in to a size the op's text reads easily at (or keeps a closer
 * zoom), never so far that the op is not whole in view, and centres it
 * left of the properties panel.
 *
 * Returns: %FALSE if the layout is not ready or shows no such op
 */
gboolean
prism_graph_view_zoom_to (PrismGraphView *self,
                          guint           op_id)
{
  double x, y, w, h, zoom, width, height;

  g_return_val_if_fail (PRISM_IS_GRAPH_VIEW (self), FALSE);

  if (self->layout == NULL || self->cancellable != NULL)
    return FALSE;
  op_id = prism_graph_layout_shown_op (self->layout, op_id);
  if (!op_box (self, op_id, &x, &y, &w, &h))
    return FALSE;
  width = visible_width (self);
  height = gtk_widget_get_height (GTK_WIDGET (self));
  zoom = MAX (self->zoom, FOCUS_ZOOM);
  zoom = MIN (zoom, FOCUS_FILL * width / MAX (w, 1));
  zoom = MIN (zoom, FOCUS_FILL * MAX (height - top_band (self), 1) / MAX (h, 1));
  zoom = CLAMP (zoom, MIN_ZOOM, MAX_ZOOM);
  self->auto_fit = FALSE;
  set_transform (self, zoom, width / 2.0 - (x + w / 2) * zoom, height / 2.0 - (y + h / 2) * zoom);
  return TRUE;
}

/**
 * prism_graph_view_select:
 * @op_id: an op, a custom kernel by its kernel-level op id, or
 *   %PRISM_OP_ID_NONE to clear the selection
 *
 * Draws the op selected and shows its properties beside the graph,
 * scrolling it into view if the panel would hide it. An op of a collapsed
 * kernel selects the kernel.
 *
 * Returns: %FALSE (and nothing selected) if the layout is not ready or
 *   shows no such op
 */
gboolean
prism_graph_view_select (PrismGraphView *self,
                         guint           op_id)
{
  g_return_val_if_fail (PRISM_IS_GRAPH_VIEW (self), FALSE);

  if (self->layout == NULL || self->cancellable != NULL)
    op_id = PRISM_OP_ID_NONE;
  else
    op_id = prism_graph_layout_shown_op (self->layout, op_id);
  set_selected (self, op_id);
  if (op_id == PRISM_OP_ID_NONE)
    return FALSE;
  scroll_into_view (self, op_id);
  return TRUE;
}

/**
 * prism_graph_view_select_at:
 * @x: a point of the view, in widget coordinates, as a click gives it
 * @y:
 *
 * What a click does: selects the node under the point, else the custom
 * kernel whose box it is in; on empty space, clears the selection.
 *
 * Returns: whether something is selected now
 */
gboolean
prism_graph_view_select_at (PrismGraphView *self,
                            double          x,
                            double          y)
{
  double gx, gy;
  int index;

  g_return_val_if_fail (PRISM_IS_GRAPH_VIEW (self), FALSE);

  if (self->layout == NULL || self->cancellable != NULL)
    return FALSE;
  gx = (x - self->offset_x) / self->zoom;
  gy = (y - self->offset_y) / self->zoom;
  if ((index = prism_graph_layout_node_at (self->layout, gx, gy)) >= 0 &&
      prism_graph_layout_node (self->layout, index)->op_id != PRISM_OP_ID_NONE)
    return prism_graph_view_select (self, prism_graph_layout_node (self->layout, index)->op_id);
  if ((index = prism_graph_layout_cluster_at (self->layout, gx, gy)) >= 0)
    return prism_graph_view_select (self, prism_graph_layout_cluster (self->layout, index)->op_id);
  return prism_graph_view_select (self, PRISM_OP_ID_NONE);
}

/* Returns: the op id selected, or %PRISM_OP_ID_NONE */
guint
prism_graph_view_get_selected (PrismGraphView *self)
{
  g_return_val_if_fail (PRISM_IS_GRAPH_VIEW (self), PRISM_OP_ID_NONE);
  return self->selected;
}

/**
 * prism_graph_view_get_properties:
 *
 * Returns: (transfer none): the panel listing the selected op's
 *   properties; shown only while an op is selected
 */
PrismNodeProperties *
prism_graph_view_get_properties (PrismGraphView *self)
{
  g_return_val_if_fail (PRISM_IS_GRAPH_VIEW (self), NULL);
  return self->properties;
}

/**
 * prism_graph_view_set_kernel_collapsed:
 * @kernel: the kernel-level index of a custom kernel
 * @collapsed: draw it as one box rather than with its block graph
 *
 * Lays the graph out again in the background. Unless the whole graph is
 * fitted in view, the kernel stays where the user looks.
 */
void
prism_graph_view_set_kernel_collapsed (PrismGraphView *self,
                                       guint           kernel,
                                       gboolean        collapsed)
{
  g_return_if_fail (PRISM_IS_GRAPH_VIEW (self));

  if (self->graph == NULL || kernel_of (self, prism_op_id_make (-1, kernel)) != (int) kernel)
    return;
  if (!!collapsed == prism_graph_view_get_kernel_collapsed (self, kernel))
    return;
  if (collapsed)
    g_hash_table_add (self->collapsed, GUINT_TO_POINTER (kernel));
  else
    g_hash_table_remove (self->collapsed, GUINT_TO_POINTER (kernel));
  self->keep_in_view = self->auto_fit ? PRISM_OP_ID_NONE : prism_op_id_make (-1, kernel);
  relayout (self);
}

gboolean
prism_graph_view_get_kernel_collapsed (PrismGraphView *self,
                                       guint           kernel)
{
  g_return_val_if_fail (PRISM_IS_GRAPH_VIEW (self), FALSE);
  return g_hash_table_contains (self->collapsed, GUINT_TO_POINTER (kernel));
}

/* Draws every custom kernel as one box, and fits the graph. */
void
prism_graph_view_collapse_all (PrismGraphView *self)
{
  gboolean changed = FALSE;

  g_return_if_fail (PRISM_IS_GRAPH_VIEW (self));

  if (self->graph == NULL)
    return;
  for (guint i = 0; i < self->graph->ops->len; i++)
    if (kernel_of (self, prism_op_id_make (-1, i)) == (int) i &&
        !g_hash_table_contains (self->collapsed, GUINT_TO_POINTER (i)))
      {
        g_hash_table_add (self->collapsed, GUINT_TO_POINTER (i));
        changed = TRUE;
      }
  if (!changed)
    return;
  self->keep_in_view = PRISM_OP_ID_NONE;
  relayout (self);
}

/* Draws every custom kernel with its block graph, and fits the graph. */
void
prism_graph_view_expand_all (PrismGraphView *self)
{
  g_return_if_fail (PRISM_IS_GRAPH_VIEW (self));

  if (g_hash_table_size (self->collapsed) == 0)
    return;
  g_hash_table_remove_all (self->collapsed);
  self->keep_in_view = PRISM_OP_ID_NONE;
  relayout (self);
}

/* Opens the search bar (Ctrl+F) with the focus in its entry. */
void
prism_graph_view_start_search (PrismGraphView *self)
{
  g_return_if_fail (PRISM_IS_GRAPH_VIEW (self));

  gtk_search_bar_set_search_mode (GTK_SEARCH_BAR (self->search_bar), TRUE);
  gtk_widget_grab_focus (GTK_WIDGET (self->search_entry));
}

/**
 * prism_graph_view_get_search_entry:
 *
 * Returns: (transfer none): the entry of the search bar: typing there
 *   selects the first op found and zooms to it
 */
GtkSearchEntry *
prism_graph_view_get_search_entry (PrismGraphView *self)
{
  g_return_val_if_fail (PRISM_IS_GRAPH_VIEW (self), NULL);
  return self->search_entry;
}

/* Returns: what the search bar says of its matches: "2 of 5", "No match" or "" */
const char *
prism_graph_view_get_search_status (PrismGraphView *self)
{
  g_return_val_if_fail (PRISM_IS_GRAPH_VIEW (self), NULL);
  return gtk_label_get_label (self->search_status);
}

/* Selects the next (or previous) op found, and zooms to it; Enter in the entry. */
void
prism_graph_view_find_next (PrismGraphView *self,
                            gboolean        forward)
{
  guint n;

  g_return_if_fail (PRISM_IS_GRAPH_VIEW (self));

  if ((n = self->matches->len) == 0)
    return;
  focus_match (self, forward ? (self->match_index + 1) % n : (self->match_index + n - 1) % n);
}

/* Whether the legend is drawn: asked for, and room enough for it. */
gboolean
prism_graph_view_get_legend_visible (PrismGraphView *self)
{
  g_return_val_if_fail (PRISM_IS_GRAPH_VIEW (self), FALSE);
  return self->layout != NULL && self->cancellable == NULL && legend_fits (self);
}

/**
 * prism_graph_view_get_transform:
 * @zoom: (out) (optional): pixels per graph unit
 * @offset_x: (out) (optional): where the graph's origin is drawn
 * @offset_y: (out) (optional)
 */
void
prism_graph_view_get_transform (PrismGraphView *self,
                                double         *zoom,
                                double         *offset_x,
                                double         *offset_y)
{
  g_return_if_fail (PRISM_IS_GRAPH_VIEW (self));

  if (zoom != NULL)
    *zoom = self->zoom;
  if (offset_x != NULL)
    *offset_x = self->offset_x;
  if (offset_y != NULL)
    *offset_y = self->offset_y;
}
