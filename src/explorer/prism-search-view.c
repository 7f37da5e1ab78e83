/* prism-search-view.c — the Search page: counters, the search tree, the speedup chart
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "prism-search-view"

#include "config.h"

#include <glib/gi18n.h>

#include "prism-format.h"
#include "prism-search-view.h"

typedef enum
{
  COUNTER_STATES,
  COUNTER_RATE,
  COUNTER_PRUNED,
  COUNTER_SGRAPHS,
  COUNTER_VERIFIED,
  COUNTER_BEST,
  COUNTER_ELAPSED,
  N_COUNTERS
} Counter;

static const char * const counter_names[N_COUNTERS] = {
  "states", "rate", "pruned", "sgraphs", "verified", "best", "elapsed",
};

struct _PrismSearchView
{
  GtkWidget parent_instance;

  PrismSearchModel *model;
  gulong changed_handler;

  /* Template Widgets */
  GtkBox *stats_box;
  GtkPaned *paned;
  PrismSearchTreeChart *tree_chart;
  PrismSpeedupChart *speedup_chart;
  GtkButton *reset_zoom_button;
  GtkLabel *gpu_status;

  GtkLabel *values[N_COUNTERS];
  GtkLabel *captions[N_COUNTERS];
};

G_DEFINE_FINAL_TYPE (PrismSearchView, prism_search_view, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_MODEL,
  N_PROPS
};

static GParamSpec *properties [N_PROPS];

/*
 * Auxiliary methods
 */

static const char *
counter_caption (Counter counter)
{
  switch (counter)
    {
    case COUNTER_STATES:   return _("States explored");
    case COUNTER_RATE:     return _("States per second");
    case COUNTER_PRUNED:   return _("Branches pruned");
    case COUNTER_SGRAPHS:  return _("sGraphs");
    case COUNTER_VERIFIED: return _("Verified");
    case COUNTER_BEST:     return _("Best speedup");
    case COUNTER_ELAPSED:  return _("Search time");
    case N_COUNTERS:
    default:
      g_assert_not_reached ();
    }
}

static void
update_counters (PrismSearchView *self)
{
  const PrismRunStats *stats;
  char *text[N_COUNTERS] = { NULL, };

  if (self->model == NULL)
    {
      for (guint i = 0; i < N_COUNTERS; i++)
        gtk_label_set_label (self->values[i], "—");
      return;
    }

  stats = prism_search_model_get_stats (self->model);
  text[COUNTER_STATES] = prism_format_count (stats->search.states);
  text[COUNTER_RATE] = prism_format_count ((guint64) prism_search_model_get_states_per_second (self->model));
  text[COUNTER_PRUNED] = prism_format_count (prism_search_stats_total_pruned (&stats->search));
  text[COUNTER_SGRAPHS] = prism_format_count (prism_search_model_get_sgraphs (self->model));
  text[COUNTER_VERIFIED] = prism_format_count (prism_search_model_get_verified (self->model));
  if (prism_search_model_get_best (self->model) == NULL && prism_search_model_get_verified (self->model) > 0)
    /* Translators: the best-speedup counter when every verified candidate
     * is slower than the program */
    text[COUNTER_BEST] = g_strdup (_("none faster: keep the program"));
  else
    text[COUNTER_BEST] = prism_format_speedup (prism_search_model_get_best_speedup (self->model));
  text[COUNTER_ELAPSED] = prism_format_seconds (prism_search_model_get_elapsed (self->model));

  for (guint i = 0; i < N_COUNTERS; i++)
    {
      gtk_label_set_label (self->values[i], text[i]);
      g_free (text[i]);
    }

  /* A rate of 0 says why in its tooltip (the status line says it too). */
  {
    gboolean is_rate;
    g_autofree char *pace = prism_search_model_dup_pace (self->model, &is_rate);

    gtk_widget_set_tooltip_text (gtk_widget_get_parent (GTK_WIDGET (self->values[COUNTER_RATE])),
                                 is_rate ? NULL : pace);
  }

  /* The best speedup says where it comes from. */
  gtk_label_set_label (self->captions[COUNTER_BEST],
                       prism_search_model_get_best (self->model) == NULL ? _("Best speedup")
                       : prism_search_model_get_best_measured (self->model) ? _("Best (measured)")
                       : _("Best (predicted)"));
}

/* Whether the speedups are measured on a GPU or predicted; hidden until
 * the search has ended and the run said which. */
static void
update_gpu_status (PrismSearchView *self)
{
  g_autofree char *tooltip = NULL;
  g_autofree char *line = NULL;

  if (self->gpu_status == NULL)
    return;
  if (self->model != NULL)
    line = prism_search_model_get_gpu_status (self->model, &tooltip);
  gtk_label_set_label (self->gpu_status, line ? line : "");
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->gpu_status), tooltip);
  gtk_widget_set_visible (GTK_WIDGET (self->gpu_status), line != NULL);
}

static void
model_changed_cb (PrismSearchView  *self,
                  PrismSearchModel *model)
{
  update_counters (self);
  update_gpu_status (self);
}

/*
 * GObject overrides
 */

static void
prism_search_view_dispose (GObject *object)
{
  PrismSearchView *self = (PrismSearchView *)object;
  GtkWidget *child;

  prism_search_view_set_model (self, NULL);
  gtk_widget_dispose_template (GTK_WIDGET (self), PRISM_TYPE_SEARCH_VIEW);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))))
    gtk_widget_unparent (child);

  G_OBJECT_CLASS (prism_search_view_parent_class)->dispose (object);
}

static void
prism_search_view_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  PrismSearchView *self = PRISM_SEARCH_VIEW (object);

  switch (prop_id)
    {
    case PROP_MODEL:
      g_value_set_object (value, self->model);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
prism_search_view_set_property (GObject      *object,
                                guint         prop_id,
                                const GValue *value,
                                GParamSpec   *pspec)
{
  PrismSearchView *self = PRISM_SEARCH_VIEW (object);

  switch (prop_id)
    {
    case PROP_MODEL:
      prism_search_view_set_model (self, g_value_get_object (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
reset_zoom_clicked_cb (PrismSearchView *self,
                       GtkButton       *button)
{
  prism_speedup_chart_reset_zoom (self->speedup_chart);
}

/* Reset Zoom is there only while the chart is zoomed; it keeps its place
 * (transparent and insensitive otherwise), so that the chart does not move
 * under the pointer when it appears. */
static void
chart_zoomed_cb (PrismSearchView   *self,
                 GParamSpec        *pspec,
                 PrismSpeedupChart *chart)
{
  gboolean zoomed = prism_speedup_chart_get_zoomed (chart);

  gtk_widget_set_sensitive (GTK_WIDGET (self->reset_zoom_button), zoomed);
  gtk_widget_set_opacity (GTK_WIDGET (self->reset_zoom_button), zoomed ? 1 : 0);
  gtk_widget_set_can_target (GTK_WIDGET (self->reset_zoom_button), zoomed);
}

static void
prism_search_view_class_init (PrismSearchViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = prism_search_view_dispose;
  object_class->get_property = prism_search_view_get_property;
  object_class->set_property = prism_search_view_set_property;

  properties [PROP_MODEL] =
    g_param_spec_object ("model", NULL, NULL, PRISM_TYPE_SEARCH_MODEL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_type_ensure (PRISM_TYPE_SEARCH_TREE_CHART);
  g_type_ensure (PRISM_TYPE_SPEEDUP_CHART);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/prism/Explorer/prism-search-view.ui");
  gtk_widget_class_bind_template_child (widget_class, PrismSearchView, stats_box);
  gtk_widget_class_bind_template_child (widget_class, PrismSearchView, paned);
  gtk_widget_class_bind_template_child (widget_class, PrismSearchView, tree_chart);
  gtk_widget_class_bind_template_child (widget_class, PrismSearchView, speedup_chart);
  gtk_widget_class_bind_template_child (widget_class, PrismSearchView, gpu_status);
  gtk_widget_class_bind_template_child (widget_class, PrismSearchView, reset_zoom_button);
  gtk_widget_class_bind_template_callback (widget_class, reset_zoom_clicked_cb);
  gtk_widget_class_set_css_name (widget_class, "searchview");
}

static void
prism_search_view_init (PrismSearchView *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  g_signal_connect_object (self->speedup_chart, "notify::zoomed", G_CALLBACK (chart_zoomed_cb), self,
                           G_CONNECT_SWAPPED);
  chart_zoomed_cb (self, NULL, self->speedup_chart);

  for (guint i = 0; i < N_COUNTERS; i++)
    {
      GtkWidget *tile = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
      GtkWidget *value = gtk_label_new ("—");
      GtkWidget *caption = gtk_label_new (counter_caption (i));

      gtk_widget_add_css_class (tile, "stat");
      gtk_widget_add_css_class (value, "stat-value");
      gtk_widget_add_css_class (value, "numeric");
      gtk_widget_add_css_class (caption, "stat-caption");
      gtk_widget_add_css_class (caption, "dim-label");
      gtk_widget_add_css_class (caption, "caption");
      gtk_label_set_ellipsize (GTK_LABEL (caption), PANGO_ELLIPSIZE_END);
      /* The tiles are homogeneous: one value's width is every tile's.  A
       * value in words ("none faster: keep the program", 337 px) made the
       * window 2630 px wide; wrapped, it asks for its widest word only. */
      gtk_label_set_wrap (GTK_LABEL (value), TRUE);
      gtk_label_set_wrap_mode (GTK_LABEL (value), PANGO_WRAP_WORD_CHAR);
      gtk_label_set_justify (GTK_LABEL (value), GTK_JUSTIFY_CENTER);
      gtk_box_append (GTK_BOX (tile), value);
      gtk_box_append (GTK_BOX (tile), caption);
      gtk_box_append (self->stats_box, tile);
      self->values[i] = GTK_LABEL (value);
      self->captions[i] = GTK_LABEL (caption);
    }
  gtk_widget_add_css_class (GTK_WIDGET (self->values[COUNTER_BEST]), "stat-best");
}

/*
 * Public API
 */

GtkWidget *
prism_search_view_new (void)
{
  return g_object_new (PRISM_TYPE_SEARCH_VIEW, NULL);
}

/**
 * prism_search_view_get_model:
 *
 * Returns: (transfer none) (nullable): the search shown
 */
PrismSearchModel *
prism_search_view_get_model (PrismSearchView *self)
{
  g_return_val_if_fail (PRISM_IS_SEARCH_VIEW (self), NULL);
  return self->model;
}

void
prism_search_view_set_model (PrismSearchView  *self,
                             PrismSearchModel *model)
{
  g_return_if_fail (PRISM_IS_SEARCH_VIEW (self));
  g_return_if_fail (model == NULL || PRISM_IS_SEARCH_MODEL (model));

  if (self->model == model)
    return;
  if (self->model != NULL)
    g_clear_signal_handler (&self->changed_handler, self->model);
  g_set_object (&self->model, model);
  if (model != NULL)
    self->changed_handler = g_signal_connect_object (model, "changed", G_CALLBACK (model_changed_cb),
                                                     self, G_CONNECT_SWAPPED);
  /* The charts may already be gone when the view is disposed. */
  if (self->tree_chart != NULL)
    prism_search_tree_chart_set_model (self->tree_chart, model);
  if (self->speedup_chart != NULL)
    prism_speedup_chart_set_model (self->speedup_chart, model);
  if (self->values[0] != NULL)
    update_counters (self);
  update_gpu_status (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_MODEL]);
}

/**
 * prism_search_view_get_tree_chart:
 *
 * Returns: (transfer none): the search tree chart
 */
PrismSearchTreeChart *
prism_search_view_get_tree_chart (PrismSearchView *self)
{
  g_return_val_if_fail (PRISM_IS_SEARCH_VIEW (self), NULL);
  return self->tree_chart;
}

/**
 * prism_search_view_get_speedup_chart:
 *
 * Returns: (transfer none): the speedup chart
 */
PrismSpeedupChart *
prism_search_view_get_speedup_chart (PrismSearchView *self)
{
  g_return_val_if_fail (PRISM_IS_SEARCH_VIEW (self), NULL);
  return self->speedup_chart;
}

const char *
prism_search_view_get_counter (PrismSearchView *self,
                               const char      *name)
{
  g_return_val_if_fail (PRISM_IS_SEARCH_VIEW (self), NULL);

  for (guint i = 0; i < N_COUNTERS; i++)
    if (g_strcmp0 (counter_names[i], name) == 0)
      return gtk_label_get_label (self->values[i]);
  return NULL;
}

/**
 * prism_search_view_get_gpu_status:
 *
 * Returns: (transfer none) (nullable): the GPU status line, %NULL while hidden
 */
const char *
prism_search_view_get_gpu_status (PrismSearchView *self)
{
  g_return_val_if_fail (PRISM_IS_SEARCH_VIEW (self), NULL);
  if (self->gpu_status == NULL || !gtk_widget_get_visible (GTK_WIDGET (self->gpu_status)))
    return NULL;
  return gtk_label_get_label (self->gpu_status);
}

/**
 * prism_search_view_get_reset_zoom_button:
 *
 * Returns: (transfer none): the speedup chart's Reset Zoom button (tests)
 */
GtkWidget *
prism_search_view_get_reset_zoom_button (PrismSearchView *self)
{
  g_return_val_if_fail (PRISM_IS_SEARCH_VIEW (self), NULL);
  return GTK_WIDGET (self->reset_zoom_button);
}
