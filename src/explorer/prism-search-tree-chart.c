/* prism-search-tree-chart.c — the search tree by depth, drawn as an icicle
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "prism-search-tree-chart"

#include "config.h"

#include <math.h>
#include <glib/gi18n.h>

#include "prism-chart-text.h"
#include "prism-format.h"
#include "prism-prune-samples-popover.h"
#include "prism-search-tree-chart.h"

/* One row per depth of the search tree. A row's length grows with the
 * number of branches the search met at that depth, on a log scale, so the
 * shape of the tree shows (narrow at the top, widest where the search spends
 * its time); the row is split, linearly, into states explored, sGraphs
 * completed there and branches pruned, one colour per reason. Verified
 * candidates are marked after the row. Segments too thin to see are merged
 * into one hatched segment and the footer says how much was merged. */

#define PAD          12.0
#define LABEL_WIDTH  44.0
#define COUNTS_WIDTH 250.0
#define ROW_MAX      24.0
#define ROW_MIN      13.0
#define ROW_GAP       4.0
#define SWATCH       10.0
#define MIN_SEGMENT   2.0
#define MIN_SGRAPH    3.0

enum {
  SEG_EXPLORED,
  SEG_SGRAPHS,
  SEG_VERIFIED,
  SEG_OTHER,
  SEG_PRUNED,      /* + reason */
};

typedef struct
{
  guint first_depth, last_depth;
  gboolean totals;             /* the "pruned at all depths" row */
  guint64 states;
  guint64 pruned[PRISM_N_PRUNE_REASONS];
  guint64 sgraphs;
  guint64 verified;
  guint64 rejected;
  guint64 other;               /* pruned branches merged into the hatched segment */
  guint n_other;               /* … from this many reasons */
  graphene_rect_t counts;      /* where its counts were drawn, if they were cut short */
} Row;

typedef struct
{
  graphene_rect_t rect;
  guint row;
  guint segment;
} Hit;

struct _PrismSearchTreeChart
{
  GtkWidget parent_instance;

  PrismSearchModel *model;
  gulong changed_handler;

  /* What the last snapshot drew, for tooltips and tests. */
  GArray *rows;                /* Row */
  GArray *hits;                /* Hit */
  guint64 not_shown;
  guint merged_depths;

  /* The sampled decisions of the pruned segment last clicked. */
  GtkWidget *samples_popover;  /* PrismPruneSamplesPopover, a child */
};

G_DEFINE_FINAL_TYPE (PrismSearchTreeChart, prism_search_tree_chart, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_MODEL,
  N_PROPS
};

static GParamSpec *properties [N_PROPS];

/* GNOME palette: blues for the tree, green for success, warm colours for
 * the reasons that say something about the program, greys for the ones
 * that are bookkeeping (canonical order, duplicates, time). */
static const char * const reason_colors[PRISM_N_PRUNE_REASONS] = {
  [PRISM_PRUNE_ORDER]     = "#c0bfbc",
  [PRISM_PRUNE_DUPLICATE] = "#9a9996",
  [PRISM_PRUNE_SHAPE]     = "#ffa348",
  [PRISM_PRUNE_LOOP]      = "#c64600",
  [PRISM_PRUNE_EXPR]      = "#e01b24",
  [PRISM_PRUNE_SMEM]      = "#c061cb",
  [PRISM_PRUNE_ACCUM]     = "#813d9c",
  [PRISM_PRUNE_OPS]       = "#b5835a",
  [PRISM_PRUNE_TRIVIAL]   = "#f6d32d",
  [PRISM_PRUNE_TIME]      = "#5e5c64",
};

#define COLOR_EXPLORED "#62a0ea"
#define COLOR_SGRAPHS  "#1a5fb4"
#define COLOR_VERIFIED "#26a269"

/*
 * Auxiliary methods
 */

static GdkRGBA
parse_color (const char *spec)
{
  GdkRGBA rgba;

  gdk_rgba_parse (&rgba, spec);
  return rgba;
}

static GdkRGBA
segment_color (guint segment)
{
  switch (segment)
    {
    case SEG_EXPLORED:
      return parse_color (COLOR_EXPLORED);
    case SEG_SGRAPHS:
      return parse_color (COLOR_SGRAPHS);
    case SEG_VERIFIED:
      return parse_color (COLOR_VERIFIED);
    case SEG_OTHER:
      return parse_color ("#77767b");
    default:
      return parse_color (reason_colors[segment - SEG_PRUNED]);
    }
}

static const char *
segment_name (guint segment)
{
  switch (segment)
    {
    case SEG_EXPLORED:
      return _("Explored");
    case SEG_SGRAPHS:
      return _("sGraph completed");
    case SEG_VERIFIED:
      return _("Verified candidate");
    case SEG_OTHER:
      return _("Too small to draw");
    default:
      return prism_format_prune_reason (segment - SEG_PRUNED);
    }
}

static guint64
row_total (const Row *row)
{
  guint64 total = row->states;

  for (guint r = 0; r < PRISM_N_PRUNE_REASONS; r++)
    total += row->pruned[r];
  return total;
}

static guint64
row_pruned (const Row *row)
{
  guint64 total = 0;

  for (guint r = 0; r < PRISM_N_PRUNE_REASONS; r++)
    total += row->pruned[r];
  return total;
}

static void
row_add_depth (Row                    *row,
               const PrismSearchDepth *depth)
{
  row->states += depth->states;
  for (guint r = 0; r < PRISM_N_PRUNE_REASONS; r++)
    row->pruned[r] += depth->pruned[r];
  row->sgraphs += depth->sgraphs;
  row->verified += depth->verified;
  row->rejected += depth->rejected;
}

/* Depth rows, the deepest merged into one when there is no room. */
static void
build_rows (PrismSearchTreeChart *self,
            guint                 max_rows)
{
  guint n_depths = self->model ? prism_search_model_get_n_depths (self->model) : 0;
  gboolean by_depth = self->model && prism_search_model_get_pruned_by_depth (self->model);
  const PrismRunStats *stats = self->model ? prism_search_model_get_stats (self->model) : NULL;
  guint64 total_pruned = stats ? prism_search_stats_total_pruned (&stats->search) : 0;
  gboolean totals_row = !by_depth && total_pruned > 0;
  guint depth_rows;

  g_array_set_size (self->rows, 0);
  self->merged_depths = 0;
  if (n_depths == 0 && !totals_row)
    return;

  max_rows = MAX (max_rows, totals_row ? 3 : 2);
  depth_rows = MIN (n_depths, max_rows - (totals_row ? 1 : 0));
  for (guint i = 0; i < depth_rows; i++)
    {
      Row row = { 0, };

      row.first_depth = row.last_depth = i;
      /* The last row takes every depth that does not fit. */
      if (i == depth_rows - 1 && n_depths > depth_rows)
        {
          row.last_depth = n_depths - 1;
          self->merged_depths = n_depths - depth_rows;
        }
      for (guint d = row.first_depth; d <= row.last_depth; d++)
        row_add_depth (&row, prism_search_model_get_depth (self->model, d));
      g_array_append_val (self->rows, row);
    }

  if (totals_row)
    {
      Row row = { 0, };

      row.totals = TRUE;
      for (guint r = 0; r < PRISM_N_PRUNE_REASONS; r++)
        row.pruned[r] = stats->search.pruned[r];
      g_array_append_val (self->rows, row);
    }
}

static void
add_hit (PrismSearchTreeChart *self,
         double x, double y, double w, double h,
         guint                 row,
         guint                 segment)
{
  Hit hit = { GRAPHENE_RECT_INIT (x, y, w, h), row, segment };

  g_array_append_val (self->hits, hit);
}

static void
append_hatched (GtkSnapshot *snapshot,
                double x, double y, double w, double h)
{
  cairo_t *cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (x, y, w, h));

  cairo_rectangle (cr, x, y, w, h);
  cairo_set_source_rgba (cr, 0.47, 0.46, 0.48, 0.35);
  cairo_fill_preserve (cr);
  cairo_clip (cr);
  cairo_set_source_rgba (cr, 0.47, 0.46, 0.48, 0.9);
  cairo_set_line_width (cr, 1);
  for (double t = x - h; t < x + w; t += 4)
    {
      cairo_move_to (cr, t, y + h);
      cairo_line_to (cr, t + h, y);
    }
  cairo_stroke (cr);
  cairo_destroy (cr);
}

static void
append_diamond (GtkSnapshot   *snapshot,
                const GdkRGBA *color,
                double         cx,
                double         cy,
                double         r)
{
  cairo_t *cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (cx - r - 1, cy - r - 1,
                                                                          2 * r + 2, 2 * r + 2));

  cairo_move_to (cr, cx, cy - r);
  cairo_line_to (cr, cx + r, cy);
  cairo_line_to (cr, cx, cy + r);
  cairo_line_to (cr, cx - r, cy);
  cairo_close_path (cr);
  gdk_cairo_set_source_rgba (cr, color);
  cairo_fill (cr);
  cairo_destroy (cr);
}

/* Splits a row of @length pixels among its segments and draws them;
 * returns the pixels used. */
static double
draw_row_bar (PrismSearchTreeChart *self,
              GtkSnapshot          *snapshot,
              guint                 row_index,
              double                x,
              double                y,
              double                length,
              double                height)
{
  Row *row = &g_array_index (self->rows, Row, row_index);
  guint64 total = row_total (row);
  double widths[SEG_PRUNED + PRISM_N_PRUNE_REASONS] = { 0, };
  guint64 values[SEG_PRUNED + PRISM_N_PRUNE_REASONS] = { 0, };
  double used = 0, excess;
  guint widest = SEG_EXPLORED;

  if (total == 0 || length <= 0)
    return 0;

  values[SEG_SGRAPHS] = MIN (row->sgraphs, row->states);
  values[SEG_EXPLORED] = row->states - values[SEG_SGRAPHS];
  for (guint r = 0; r < PRISM_N_PRUNE_REASONS; r++)
    values[SEG_PRUNED + r] = row->pruned[r];

  row->other = 0;
  row->n_other = 0;
  for (guint s = 0; s < G_N_ELEMENTS (values); s++)
    {
      if (values[s] == 0 || s == SEG_VERIFIED || s == SEG_OTHER)
        continue;
      widths[s] = length * (double) values[s] / (double) total;
      if (s == SEG_SGRAPHS)
        widths[s] = MAX (widths[s], MIN_SGRAPH);
      else if (s >= SEG_PRUNED && widths[s] < MIN_SEGMENT)
        {
          /* Too thin to see or to point at: merged, and counted. */
          widths[SEG_OTHER] += widths[s];
          widths[s] = 0;
          row->other += values[s];
          row->n_other++;
        }
    }
  if (row->other > 0)
    widths[SEG_OTHER] = MAX (widths[SEG_OTHER], MIN_SEGMENT);

  for (guint s = 0; s < G_N_ELEMENTS (widths); s++)
    {
      used += widths[s];
      if (widths[s] > widths[widest])
        widest = s;
    }
  excess = used - length;
  if (excess > 0)
    widths[widest] = MAX (0, widths[widest] - excess);

  /* Explored, sGraphs, then the reasons, then what was merged. */
  used = 0;
  for (guint k = 0; k < G_N_ELEMENTS (widths); k++)
    {
      guint s;
      GdkRGBA color;

      if (k == 0)
        s = SEG_EXPLORED;
      else if (k == 1)
        s = SEG_SGRAPHS;
      else if (k < 2 + PRISM_N_PRUNE_REASONS)
        s = SEG_PRUNED + (k - 2);
      else if (k == 2 + PRISM_N_PRUNE_REASONS)
        s = SEG_OTHER;
      else
        break;
      if (widths[s] <= 0)
        continue;
      if (s == SEG_OTHER)
        append_hatched (snapshot, x + used, y, widths[s], height);
      else
        {
          color = segment_color (s);
          gtk_snapshot_append_color (snapshot, &color,
                                     &GRAPHENE_RECT_INIT (x + used, y, widths[s], height));
        }
      add_hit (self, x + used, y, widths[s], height, row_index, s);
      used += widths[s];
    }
  return used;
}

static void
draw_legend (PrismSearchTreeChart *self,
             GtkSnapshot          *snapshot,
             const GdkRGBA        *fg,
             double                width,
             double               *y)
{
  GtkWidget *widget = GTK_WIDGET (self);
  const PrismRunStats *stats = self->model ? prism_search_model_get_stats (self->model) : NULL;
  double x = PAD, line_height = 0;
  guint items[4 + PRISM_N_PRUNE_REASONS];
  guint n_items = 0;

  items[n_items++] = SEG_EXPLORED;
  items[n_items++] = SEG_SGRAPHS;
  items[n_items++] = SEG_VERIFIED;
  /* Only reasons that happened, so the key stays short. */
  for (guint r = 0; r < PRISM_N_PRUNE_REASONS; r++)
    if (stats != NULL && stats->search.pruned[r] > 0)
      items[n_items++] = SEG_PRUNED + r;

  for (guint i = 0; i < n_items; i++)
    {
      g_autoptr(PangoLayout) layout = gtk_widget_create_pango_layout (widget, segment_name (items[i]));
      GdkRGBA color = segment_color (items[i]);
      double tw, th, item_width;

      prism_chart_text_size (layout, &tw, &th);
      item_width = SWATCH + 5 + tw + 14;
      if (x + item_width > width - PAD && x > PAD)
        {
          x = PAD;
          *y += line_height + 4;
        }
      line_height = MAX (line_height, th);
      if (items[i] == SEG_VERIFIED)
        append_diamond (snapshot, &color, x + SWATCH / 2, *y + th / 2, SWATCH / 2 + 1);
      else
        gtk_snapshot_append_color (snapshot, &color,
                                   &GRAPHENE_RECT_INIT (x, *y + (th - SWATCH) / 2, SWATCH, SWATCH));
      prism_chart_append_text (snapshot, layout, fg, x + SWATCH + 5, *y);
      add_hit (self, x, *y, item_width, th, G_MAXUINT, items[i]);
      x += item_width;
    }
  *y += line_height + 10;
}

static char *
row_label (const Row *row)
{
  if (row->totals)
    return g_strdup (C_("search tree row", "all"));
  if (row->first_depth != row->last_depth)
    /* Translators: a row of the search tree holding several depths, “20+” */
    return g_strdup_printf (_("%u+"), row->first_depth);
  return g_strdup_printf ("%u", row->first_depth);
}

static char *
row_counts (const Row *row)
{
  g_autofree char *states = prism_format_count (row->states);
  g_autofree char *pruned = prism_format_count (row_pruned (row));
  g_autofree char *sgraphs = prism_format_count (row->sgraphs);
  g_autofree char *verified = prism_format_count (row->verified);
  GString *s = g_string_new (NULL);

  if (row->totals)
    {
      /* Translators: pruned branches of the whole search tree */
      g_string_append_printf (s, _("%s pruned"), pruned);
      return g_string_free (s, FALSE);
    }
  /* Translators: states of the search tree at one depth; %s is a number */
  g_string_append_printf (s, g_dngettext (GETTEXT_PACKAGE, "%s state", "%s states",
                                          (gulong) MIN (row->states, G_MAXULONG)), states);
  if (row_pruned (row) > 0)
    {
      g_string_append (s, " · ");
      /* Translators: pruned branches of the whole search tree */
      g_string_append_printf (s, _("%s pruned"), pruned);
    }
  if (row->sgraphs > 0)
    {
      g_string_append (s, " · ");
      /* Translators: sGraphs completed at one depth; %s is a number */
      g_string_append_printf (s, g_dngettext (GETTEXT_PACKAGE, "%s sGraph", "%s sGraphs",
                                              (gulong) MIN (row->sgraphs, G_MAXULONG)), sgraphs);
    }
  if (row->verified > 0)
    {
      g_string_append (s, " · ");
      /* Translators: candidates verified at one depth; %s is a number */
      g_string_append_printf (s, _("%s verified"), verified);
    }
  return g_string_free (s, FALSE);
}

/*
 * GtkWidget overrides
 */

static void
prism_search_tree_chart_snapshot (GtkWidget   *widget,
                                  GtkSnapshot *snapshot)
{
  PrismSearchTreeChart *self = PRISM_SEARCH_TREE_CHART (widget);
  double width = gtk_widget_get_width (widget);
  double height = gtk_widget_get_height (widget);
  double counts_width = width > 900 ? COUNTS_WIDTH + 110 : width > 640 ? COUNTS_WIDTH : width > 420 ? 150 : 0;
  double bar_x = PAD + LABEL_WIDTH;
  double bar_width = width - bar_x - counts_width - PAD - 28;
  double y = PAD, row_height, footer_height, log_max = 0;
  GdkRGBA fg, dim;
  guint max_rows;
  g_autoptr(GString) footer = g_string_new (NULL);
  g_autoptr(PangoLayout) probe = gtk_widget_create_pango_layout (widget, "0");
  double text_height;

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  gtk_style_context_get_color (gtk_widget_get_style_context (widget), &fg);
  G_GNUC_END_IGNORE_DEPRECATIONS
  dim = fg;
  dim.alpha *= 0.6;

  g_array_set_size (self->hits, 0);
  self->not_shown = 0;
  prism_chart_text_size (probe, NULL, &text_height);

  if (self->model == NULL || bar_width < 40)
    {
      g_array_set_size (self->rows, 0);
      return;
    }

  draw_legend (self, snapshot, &fg, width, &y);

  /* Rows share what is left above the footer. */
  footer_height = 2 * (text_height + 2) + PAD;
  max_rows = (guint) MAX (1, (height - y - footer_height) / (ROW_MIN + ROW_GAP));
  build_rows (self, max_rows);
  if (self->rows->len == 0)
    {
      g_autoptr(PangoLayout) layout = gtk_widget_create_pango_layout (widget, _("The search has not started."));
      prism_chart_append_text (snapshot, layout, &dim, PAD, y);
      return;
    }
  row_height = CLAMP ((height - y - footer_height) / self->rows->len - ROW_GAP, ROW_MIN, ROW_MAX);

  /* The counts column widens for the longest row's counts (longer in some
   * languages), taking up to 55% of the width from the bars, which are on
   * a log scale and read as well shorter. */
  if (counts_width > 0)
    {
      double widest = 0;

      for (guint i = 0; i < self->rows->len; i++)
        {
          g_autofree char *counts = row_counts (&g_array_index (self->rows, Row, i));
          g_autoptr(PangoLayout) layout = gtk_widget_create_pango_layout (widget, counts);
          double tw;

          prism_chart_text_size (layout, &tw, NULL);
          widest = MAX (widest, ceil (tw));
        }
      counts_width = MAX (counts_width, MIN (widest, floor (width * 0.55)));
      bar_width = MAX (40, width - bar_x - counts_width - PAD - 28);
    }

  for (guint i = 0; i < self->rows->len; i++)
    log_max = MAX (log_max, log1p ((double) row_total (&g_array_index (self->rows, Row, i))));

  for (guint i = 0; i < self->rows->len; i++)
    {
      Row *row = &g_array_index (self->rows, Row, i);
      g_autofree char *label = row_label (row);
      g_autofree char *counts = NULL;
      g_autoptr(PangoLayout) label_layout = gtk_widget_create_pango_layout (widget, label);
      g_autoptr(PangoLayout) counts_layout = NULL;
      guint64 total = row_total (row);
      double length, used, tw, th;

      if (row->totals)
        {
          /* A rule sets the totals apart from the depths. */
          GdkRGBA rule = fg;
          rule.alpha *= 0.15;
          y += 4;
          gtk_snapshot_append_color (snapshot, &rule, &GRAPHENE_RECT_INIT (PAD, y, width - 2 * PAD, 1));
          y += 5;
          length = bar_width;
        }
      else
        length = total > 0 ? MAX (2, bar_width * log1p ((double) total) / log_max) : 0;

      prism_chart_text_size (label_layout, &tw, &th);
      prism_chart_append_text (snapshot, label_layout, &dim, bar_x - 8 - tw, y + (row_height - th) / 2);

      used = draw_row_bar (self, snapshot, i, bar_x, y, length, row_height);
      self->not_shown += row->other;

      if (row->verified > 0)
        {
          GdkRGBA green = segment_color (SEG_VERIFIED);
          double r = MIN (row_height / 2 - 1, 6);
          append_diamond (snapshot, &green, bar_x + used + 4 + r, y + row_height / 2, r);
          add_hit (self, bar_x + used, y, 2 * r + 8, row_height, i, SEG_VERIFIED);
          used += 2 * r + 8;
        }

      if (counts_width > 0)
        {
          counts = row_counts (row);
          counts_layout = gtk_widget_create_pango_layout (widget, counts);
          pango_layout_set_width (counts_layout, (int) (counts_width * PANGO_SCALE));
          pango_layout_set_ellipsize (counts_layout, PANGO_ELLIPSIZE_END);
          prism_chart_text_size (counts_layout, &tw, &th);
          prism_chart_append_text (snapshot, counts_layout, &dim, width - PAD - counts_width,
                       y + (row_height - th) / 2);
          /* Cut short, the counts are whole in the tooltip. */
          if (pango_layout_is_ellipsized (counts_layout))
            row->counts = GRAPHENE_RECT_INIT (width - PAD - counts_width, y, counts_width, row_height);
        }
      y += row_height + ROW_GAP;
    }

  /* Say what the drawing leaves out, rather than leaving it out silently. */
  if (self->not_shown > 0)
    {
      g_autofree char *n = prism_format_exact (self->not_shown);
      /* Translators: %s is a number of pruned branches */
      g_string_append_printf (footer, _("%s not shown: pruned branches in segments too thin to draw (hatched; hover for counts)."), n);
    }
  if (self->merged_depths > 0)
    {
      if (footer->len > 0)
        g_string_append (footer, "  ");
      g_string_append_printf (footer,
                              g_dngettext (GETTEXT_PACKAGE,
                                           "%u deeper depth not shown separately: merged into the last row.",
                                           "%u deeper depths not shown separately: merged into the last row.",
                                           self->merged_depths),
                              self->merged_depths);
    }
  /* The session thins sGraph events in a burst (the counters stay exact). */
  {
    guint64 placed = 0, total = prism_search_model_get_sgraphs (self->model);

    for (guint d = 0; d < PRISM_SEARCH_MAX_DEPTH; d++)
      placed += prism_search_model_get_depth (self->model, d)->sgraphs;
    if (total > placed)
      {
        g_autofree char *n = prism_format_exact (total - placed);

        if (footer->len > 0)
          g_string_append (footer, "  ");
        /* Translators: %s is a number of sGraphs */
        g_string_append_printf (footer, _("%s sGraphs not placed at a depth (reported in bulk)."), n);
      }
  }
  if (footer->len == 0)
    g_string_append (footer, _("Row length: branches met at that depth (log scale). Hover for counts."));
  {
    g_autoptr(PangoLayout) layout = gtk_widget_create_pango_layout (widget, footer->str);
    pango_layout_set_width (layout, (int) ((width - 2 * PAD) * PANGO_SCALE));
    pango_layout_set_wrap (layout, PANGO_WRAP_WORD_CHAR);
    prism_chart_append_text (snapshot, layout, &dim, PAD, MAX (y + 4, height - footer_height + 4));
  }
}

static void
prism_search_tree_chart_measure (GtkWidget      *widget,
                                 GtkOrientation  orientation,
                                 int             for_size,
                                 int            *minimum,
                                 int            *natural,
                                 int            *minimum_baseline,
                                 int            *natural_baseline)
{
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      *minimum = 240;
      *natural = 640;
    }
  else
    {
      *minimum = 160;
      *natural = 320;
    }
}

static gboolean
prism_search_tree_chart_query_tooltip (GtkWidget  *widget,
                                       int         x,
                                       int         y,
                                       gboolean    keyboard_mode,
                                       GtkTooltip *tooltip)
{
  PrismSearchTreeChart *self = PRISM_SEARCH_TREE_CHART (widget);
  g_autofree char *text = prism_search_tree_chart_describe_at (self, x, y);

  if (text == NULL)
    return FALSE;
  gtk_tooltip_set_markup (tooltip, text);
  return TRUE;
}

static void
prism_search_tree_chart_size_allocate (GtkWidget *widget,
                                       int        width,
                                       int        height,
                                       int        baseline)
{
  PrismSearchTreeChart *self = PRISM_SEARCH_TREE_CHART (widget);

  if (self->samples_popover != NULL)
    gtk_popover_present (GTK_POPOVER (self->samples_popover));
}

static void
click_released_cb (PrismSearchTreeChart *self,
                   int                   n_press,
                   double                x,
                   double                y,
                   GtkGestureClick      *gesture)
{
  if (n_press == 1 && prism_search_tree_chart_open_samples_at (self, x, y))
    gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
}

/*
 * GObject overrides
 */

static void
model_changed_cb (PrismSearchTreeChart *self,
                  PrismSearchModel     *model)
{
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
prism_search_tree_chart_dispose (GObject *object)
{
  PrismSearchTreeChart *self = (PrismSearchTreeChart *)object;

  prism_search_tree_chart_set_model (self, NULL);
  g_clear_pointer (&self->samples_popover, gtk_widget_unparent);

  G_OBJECT_CLASS (prism_search_tree_chart_parent_class)->dispose (object);
}

static void
prism_search_tree_chart_finalize (GObject *object)
{
  PrismSearchTreeChart *self = (PrismSearchTreeChart *)object;

  g_clear_pointer (&self->rows, g_array_unref);
  g_clear_pointer (&self->hits, g_array_unref);

  G_OBJECT_CLASS (prism_search_tree_chart_parent_class)->finalize (object);
}

static void
prism_search_tree_chart_get_property (GObject    *object,
                                      guint       prop_id,
                                      GValue     *value,
                                      GParamSpec *pspec)
{
  PrismSearchTreeChart *self = PRISM_SEARCH_TREE_CHART (object);

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
prism_search_tree_chart_set_property (GObject      *object,
                                      guint         prop_id,
                                      const GValue *value,
                                      GParamSpec   *pspec)
{
  PrismSearchTreeChart *self = PRISM_SEARCH_TREE_CHART (object);

  switch (prop_id)
    {
    case PROP_MODEL:
      prism_search_tree_chart_set_model (self, g_value_get_object (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
prism_search_tree_chart_class_init (PrismSearchTreeChartClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = prism_search_tree_chart_dispose;
  object_class->finalize = prism_search_tree_chart_finalize;
  object_class->get_property = prism_search_tree_chart_get_property;
  object_class->set_property = prism_search_tree_chart_set_property;

  widget_class->snapshot = prism_search_tree_chart_snapshot;
  widget_class->measure = prism_search_tree_chart_measure;
  widget_class->size_allocate = prism_search_tree_chart_size_allocate;
  widget_class->query_tooltip = prism_search_tree_chart_query_tooltip;

  properties [PROP_MODEL] =
    g_param_spec_object ("model", NULL, NULL, PRISM_TYPE_SEARCH_MODEL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_css_name (widget_class, "searchtreechart");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
prism_search_tree_chart_init (PrismSearchTreeChart *self)
{
  self->rows = g_array_new (FALSE, TRUE, sizeof (Row));
  self->hits = g_array_new (FALSE, FALSE, sizeof (Hit));
  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);
  {
    GtkGesture *click = gtk_gesture_click_new ();

    gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (click), GDK_BUTTON_PRIMARY);
    g_signal_connect_object (click, "released", G_CALLBACK (click_released_cb), self,
                             G_CONNECT_SWAPPED);
    gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (click));
  }
  gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Search tree by depth"),
                                  -1);
}

/*
 * Public API
 */

GtkWidget *
prism_search_tree_chart_new (void)
{
  return g_object_new (PRISM_TYPE_SEARCH_TREE_CHART, NULL);
}

/**
 * prism_search_tree_chart_get_model:
 *
 * Returns: (transfer none) (nullable): the model drawn
 */
PrismSearchModel *
prism_search_tree_chart_get_model (PrismSearchTreeChart *self)
{
  g_return_val_if_fail (PRISM_IS_SEARCH_TREE_CHART (self), NULL);
  return self->model;
}

void
prism_search_tree_chart_set_model (PrismSearchTreeChart *self,
                                   PrismSearchModel     *model)
{
  g_return_if_fail (PRISM_IS_SEARCH_TREE_CHART (self));
  g_return_if_fail (model == NULL || PRISM_IS_SEARCH_MODEL (model));

  if (self->model == model)
    return;
  if (self->model != NULL)
    g_clear_signal_handler (&self->changed_handler, self->model);
  g_set_object (&self->model, model);
  if (model != NULL)
    self->changed_handler = g_signal_connect_object (model, "changed", G_CALLBACK (model_changed_cb),
                                                     self, G_CONNECT_SWAPPED);
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_MODEL]);
}

guint64
prism_search_tree_chart_get_not_shown (PrismSearchTreeChart *self)
{
  g_return_val_if_fail (PRISM_IS_SEARCH_TREE_CHART (self), 0);
  return self->not_shown;
}

guint
prism_search_tree_chart_get_merged_depths (PrismSearchTreeChart *self)
{
  g_return_val_if_fail (PRISM_IS_SEARCH_TREE_CHART (self), 0);
  return self->merged_depths;
}

/**
 * prism_search_tree_chart_get_pruned_segment:
 * @depth: a depth of the search tree
 * @reason: why branches were pruned
 * @rect: (out) (optional): where the segment was drawn
 * @count: (out) (optional): the branches it stands for
 *
 * Where the last drawing put the branches pruned for @reason on the way
 * to @depth, on the row holding it (the last row can hold several depths;
 * the "all" row, drawn when the counts by depth are not known, holds none).
 *
 * Returns: %TRUE if they have a segment of their own in @reason's colour,
 *   %FALSE when there are none or they were merged into the hatched one
 */
gboolean
prism_search_tree_chart_get_pruned_segment (PrismSearchTreeChart *self,
                                            guint                 depth,
                                            PrismPruneReason      reason,
                                            graphene_rect_t      *rect,
                                            guint64              *count)
{
  g_return_val_if_fail (PRISM_IS_SEARCH_TREE_CHART (self), FALSE);
  g_return_val_if_fail (reason < PRISM_N_PRUNE_REASONS, FALSE);

  for (guint i = 0; i < self->hits->len; i++)
    {
      const Hit *hit = &g_array_index (self->hits, Hit, i);
      const Row *row;

      if (hit->row == G_MAXUINT || hit->segment != SEG_PRUNED + reason)
        continue;
      row = &g_array_index (self->rows, Row, hit->row);
      if (row->totals || depth < row->first_depth || depth > row->last_depth)
        continue;
      if (rect != NULL)
        *rect = hit->rect;
      if (count != NULL)
        *count = row->pruned[reason];
      return TRUE;
    }
  return FALSE;
}

char *
prism_search_tree_chart_describe_at (PrismSearchTreeChart *self,
                                     double                x,
                                     double                y)
{
  const Hit *hit = NULL;
  const Row *row;
  g_autofree char *where = NULL;
  g_autofree char *count = NULL;
  g_autofree char *other = NULL;
  guint64 value = 0, total;

  g_return_val_if_fail (PRISM_IS_SEARCH_TREE_CHART (self), NULL);

  for (guint i = 0; i < self->hits->len; i++)
    if (graphene_rect_contains_point (&g_array_index (self->hits, Hit, i).rect,
                                      &GRAPHENE_POINT_INIT (x, y)))
      hit = &g_array_index (self->hits, Hit, i);
  for (guint i = 0; hit == NULL && i < self->rows->len; i++)
    {
      row = &g_array_index (self->rows, Row, i);
      if (row->counts.size.width > 0 && graphene_rect_contains_point (&row->counts, &GRAPHENE_POINT_INIT (x, y)))
        {
          g_autofree char *counts = row_counts (row);

          return g_markup_escape_text (counts, -1);
        }
    }
  if (hit == NULL)
    return NULL;

  /* The legend explains a colour. */
  if (hit->row == G_MAXUINT)
    {
      switch (hit->segment)
        {
        case SEG_EXPLORED:
          return g_strdup (_("States the search reached and went on from"));
        case SEG_SGRAPHS:
          return g_strdup (_("Complete sGraphs: states with every output computed, handed to map instantiation and verification"));
        case SEG_VERIFIED:
          return g_strdup (_("Candidates proved equivalent to the program, marked at the depth of their sGraph"));
        default:
          return g_markup_printf_escaped ("<b>%s</b>\n%s", segment_name (hit->segment),
                                          prism_prune_reason_describe (hit->segment - SEG_PRUNED));
        }
    }

  row = &g_array_index (self->rows, Row, hit->row);
  total = row_total (row);
  if (row->totals)
    where = g_strdup (_("All depths"));
  else if (row->first_depth != row->last_depth)
    where = g_strdup_printf (_("Depths %u to %u"), row->first_depth, row->last_depth);
  else
    where = g_strdup_printf (_("Depth %u"), row->first_depth);

  switch (hit->segment)
    {
    case SEG_EXPLORED:
      value = row->states - MIN (row->sgraphs, row->states);
      count = prism_format_exact (value);
      other = prism_format_exact (row_pruned (row));
      return g_markup_printf_escaped (_("<b>%s</b>\nExplored: %s states (%.1f%%)\nPruned: %s branches"),
                                      where, count, total ? 100.0 * value / total : 0.0, other);
    case SEG_SGRAPHS:
      count = prism_format_exact (row->sgraphs);
      return g_markup_printf_escaped (_("<b>%s</b>\nsGraphs completed: %s"), where, count);
    case SEG_VERIFIED:
      count = prism_format_exact (row->verified);
      other = prism_format_exact (row->rejected);
      return g_markup_printf_escaped (_("<b>%s</b>\nVerified candidates: %s\nRejected by the verifier: %s"),
                                      where, count, other);
    case SEG_OTHER:
      count = prism_format_exact (row->other);
      return g_markup_printf_escaped (g_dngettext (GETTEXT_PACKAGE,
                                                   "<b>%s</b>\n%s pruned branches from %u reason too small to draw",
                                                   "<b>%s</b>\n%s pruned branches from %u reasons too small to draw",
                                                   row->n_other),
                                      where, count, row->n_other);
    default:
      value = row->pruned[hit->segment - SEG_PRUNED];
      count = prism_format_exact (value);
      return g_markup_printf_escaped (_("<b>%s</b>\nPruned (%s): %s branches (%.1f%%)\n%s"),
                                      where, segment_name (hit->segment), count,
                                      total ? 100.0 * value / total : 0.0,
                                      prism_prune_reason_describe (hit->segment - SEG_PRUNED));
    }
}

/**
 * prism_search_tree_chart_open_samples_at:
 * @x: a point of the last drawing
 * @y: a point of the last drawing
 *
 * What a click does: on a pruned segment of a depth row, pops up the
 * decisions the search sampled for that row's depths and the segment's
 * reason (prism_search_tree_chart_get_samples_popover()).
 *
 * Returns: %TRUE if there was such a segment at the point
 */
gboolean
prism_search_tree_chart_open_samples_at (PrismSearchTreeChart *self,
                                         double                x,
                                         double                y)
{
  const Hit *hit = NULL;
  const Row *row;
  PrismPruneReason reason;
  g_autoptr(GPtrArray) samples = NULL;
  g_autofree char *title = NULL;
  GdkRectangle pointing;

  g_return_val_if_fail (PRISM_IS_SEARCH_TREE_CHART (self), FALSE);

  for (guint i = 0; i < self->hits->len; i++)
    if (graphene_rect_contains_point (&g_array_index (self->hits, Hit, i).rect,
                                      &GRAPHENE_POINT_INIT (x, y)))
      hit = &g_array_index (self->hits, Hit, i);
  if (hit == NULL || hit->row == G_MAXUINT || hit->segment < SEG_PRUNED || self->model == NULL)
    return FALSE;
  row = &g_array_index (self->rows, Row, hit->row);
  /* The totals row has no depth to sample from. */
  if (row->totals)
    return FALSE;
  reason = hit->segment - SEG_PRUNED;
  samples = prism_search_model_get_pruned_samples (self->model, row->first_depth, row->last_depth,
                                                   reason);
  if (row->first_depth != row->last_depth)
    /* Translators: depths %u to %u of the search tree, then a prune reason */
    title = g_strdup_printf (_("Depths %u to %u: %s"), row->first_depth, row->last_depth,
                             segment_name (hit->segment));
  else
    /* Translators: a depth of the search tree, then a prune reason */
    title = g_strdup_printf (_("Depth %u: %s"), row->first_depth, segment_name (hit->segment));

  if (self->samples_popover == NULL)
    {
      self->samples_popover = prism_prune_samples_popover_new ();
      gtk_widget_set_parent (self->samples_popover, GTK_WIDGET (self));
    }
  prism_prune_samples_popover_set_samples (PRISM_PRUNE_SAMPLES_POPOVER (self->samples_popover),
                                           title, samples, row->pruned[reason]);
  pointing = (GdkRectangle) { (int) hit->rect.origin.x, (int) hit->rect.origin.y,
                              MAX (1, (int) hit->rect.size.width), MAX (1, (int) hit->rect.size.height) };
  gtk_popover_set_pointing_to (GTK_POPOVER (self->samples_popover), &pointing);
  gtk_popover_popup (GTK_POPOVER (self->samples_popover));
  return TRUE;
}

/* Returns: (transfer none) (nullable): the popover of the last pruned
 * segment clicked, a #PrismPruneSamplesPopover */
GtkWidget *
prism_search_tree_chart_get_samples_popover (PrismSearchTreeChart *self)
{
  g_return_val_if_fail (PRISM_IS_SEARCH_TREE_CHART (self), NULL);
  return self->samples_popover;
}

/**
 * prism_search_tree_chart_reason_color:
 * @color: (out): the colour the chart draws @reason in
 */
void
prism_search_tree_chart_reason_color (PrismPruneReason  reason,
                                      GdkRGBA          *color)
{
  g_return_if_fail (reason < PRISM_N_PRUNE_REASONS);
  *color = parse_color (reason_colors[reason]);
}

/**
 * prism_search_tree_chart_count_cut_rows:
 *
 * Returns: how many rows of the last drawing had their counts cut short
 *   (whole in their tooltip; tests)
 */
guint
prism_search_tree_chart_count_cut_rows (PrismSearchTreeChart *self)
{
  guint n = 0;

  g_return_val_if_fail (PRISM_IS_SEARCH_TREE_CHART (self), 0);
  for (guint i = 0; i < self->rows->len; i++)
    n += g_array_index (self->rows, Row, i).counts.size.width > 0;
  return n;
}
