/* prism-graph-view.c — a candidate's graph: kernels, block graphs, zoom and pan
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "prism-graph-view"

#include "config.h"

#include <math.h>
#include <glib/gi18n.h>

#include "prism-graph-paint.h"
#include "prism-graph-view.h"

#define MIN_ZOOM 0.05
#define MAX_ZOOM 8.0
#define MAX_FIT_ZOOM 1.25   /* a small graph is not blown up past this */
#define ZOOM_STEP 1.25
#define SCROLL_STEP 40.0
#define TOOLBAR_MARGIN 8

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

  /* Template Widgets */
  GtkWidget *toolbar;
  GtkToggleButton *direction_button;

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
  int width = gtk_widget_get_width (GTK_WIDGET (self));
  int height = gtk_widget_get_height (GTK_WIDGET (self));
  double top = self->toolbar_height > 0 ? self->toolbar_height + TOOLBAR_MARGIN : 0;
  double zoom, ox = 0, oy = 0;

  if (self->layout == NULL || width <= 0 || height <= 0 ||
      self->layout->width <= 0 || self->layout->height <= 0)
    return;

  zoom = fit_in (self, 0, top, width, height - top, &ox, &oy);
  if (zoom <= 0)
    zoom = fit_in (self, 0, 0, width, height, &ox, &oy);

  if (self->show_legend && zoom > 0)
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
      self->layout = g_steal_pointer (&layout);
      self->hover_node = -1;
      self->hover_cluster = -1;
      set_message (self, NULL);
      self->auto_fit = TRUE;
      fit (self);
    }
  else
    set_message (self, error->message);
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
      self->cancellable = g_cancellable_new ();
      prism_graph_layout_compute_async (self->graph, self->direction, self->cancellable,
                                        layout_ready_cb, g_object_ref (self));
    }
  else
    {
      g_clear_pointer (&self->layout, prism_graph_layout_unref);
      set_message (self, NULL);
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
  prism_graph_paint (cr, self->layout, &options);
  cairo_restore (cr);

  if (self->show_legend)
    {
      /* In the bottom-left corner, if it fits. */
      ensure_legend_size (self);
      if (self->legend_width + 2 * TOOLBAR_MARGIN < width &&
          self->legend_height + 2 * TOOLBAR_MARGIN + self->toolbar_height < height)
        prism_graph_paint_legend (cr, TOOLBAR_MARGIN, height - self->legend_height - TOOLBAR_MARGIN,
                                  self->dark, NULL, NULL);
    }
  cairo_destroy (cr);

  return gtk_snapshot_free_to_node (snapshot);
}

/*
 * Signal callbacks
 */

static void
drag_begin_cb (PrismGraphView *self,
               double          x,
               double          y,
               GtkGestureDrag *gesture)
{
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

  G_OBJECT_CLASS (prism_graph_view_parent_class)->dispose (object);
}

static void
prism_graph_view_finalize (GObject *object)
{
  PrismGraphView *self = (PrismGraphView *)object;

  g_clear_pointer (&self->graph, prism_graph_unref);
  g_clear_pointer (&self->layout, prism_graph_layout_unref);
  g_clear_pointer (&self->highlight, g_hash_table_unref);
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

static void
prism_graph_view_init (PrismGraphView *self)
{
  GtkGesture *drag;
  GtkEventController *controller;
  GtkWidget *button;

  self->zoom = 1.0;
  self->hover_node = -1;
  self->hover_cluster = -1;
  self->auto_fit = TRUE;
  self->show_legend = TRUE;
  self->direction = PRISM_GRAPH_DIRECTION_TOP_TO_BOTTOM;
  self->highlight = g_hash_table_new (NULL, NULL);

  gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);
  gtk_widget_set_overflow (GTK_WIDGET (self), GTK_OVERFLOW_HIDDEN);
  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);

  /* Zoom buttons float over the top-right corner of the drawing. */
  self->toolbar = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  gtk_widget_add_css_class (self->toolbar, "linked");
  gtk_widget_add_css_class (self->toolbar, "graph-toolbar");
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
  gtk_widget_set_parent (self->toolbar, GTK_WIDGET (self));

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

/* Zooms about the centre of the view. */
void
prism_graph_view_set_zoom (PrismGraphView *self,
                           double          zoom)
{
  g_return_if_fail (PRISM_IS_GRAPH_VIEW (self));

  zoom_at (self, zoom,
           gtk_widget_get_width (GTK_WIDGET (self)) / 2.0,
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
 * is in the middle of the view.
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
                 gtk_widget_get_width (GTK_WIDGET (self)) / 2.0 - cx * self->zoom,
                 gtk_widget_get_height (GTK_WIDGET (self)) / 2.0 - cy * self->zoom);
  return TRUE;
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
