/* prism-graph-paint.c — draws a graph layout with Cairo (view and export alike)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "prism-graph-paint"

#include "config.h"

#include <math.h>
#include <glib/gi18n.h>
#include <pango/pangocairo.h>

#include "prism-graph-paint.h"

typedef struct
{
  double r, g, b, a;
} Rgba;

typedef struct
{
  Rgba fill;
  Rgba stroke;
} Swatch;

/* One colour per level, as in Mirage's visualizer: kernel level green,
 * block level blue; accumulators purple and the epilogue amber, so the loop
 * structure of a custom kernel reads at a glance. */
typedef struct
{
  Rgba background;
  Rgba text;
  Rgba subtext;
  Rgba edge;
  Rgba highlight;
  Rgba highlight_glow;
  Rgba selection;
  Rgba selection_glow;
  Swatch io;
  Swatch op;
  Swatch cluster;
  Swatch tile;
  Swatch block_op;
  Swatch accum;
  Swatch epilogue;
  Swatch empty;
  Rgba cluster_title;
} Palette;

#define RGB(hex) { ((hex) >> 16 & 0xff) / 255.0, ((hex) >> 8 & 0xff) / 255.0, ((hex) & 0xff) / 255.0, 1.0 }
#define RGBA(hex, alpha) { ((hex) >> 16 & 0xff) / 255.0, ((hex) >> 8 & 0xff) / 255.0, ((hex) & 0xff) / 255.0, alpha }

static const Palette light_palette = {
  .background = RGB (0xffffff),
  .text = RGB (0x241f31),
  .subtext = RGB (0x5e5c64),
  .edge = RGB (0x77767b),
  .highlight = RGB (0xe66100),
  .highlight_glow = RGBA (0xe66100, 0.22),
  .selection = RGB (0x1c71d8),
  .selection_glow = RGBA (0x1c71d8, 0.25),
  .io = { RGB (0xf6f5f4), RGB (0x9a9996) },
  .op = { RGB (0xe2efd6), RGB (0x70a148) },
  .cluster = { RGB (0xf4f8ef), RGB (0x70a148) },
  .tile = { RGB (0xffffff), RGB (0x5a8fcb) },
  .block_op = { RGB (0xdce8f6), RGB (0x5a8fcb) },
  .accum = { RGB (0xeadcf1), RGB (0x9141ac) },
  .epilogue = { RGB (0xfcefd3), RGB (0xc88800) },
  .empty = { RGB (0xffffff), RGB (0x9a9996) },
  .cluster_title = RGB (0x3d6b1f),
};

static const Palette dark_palette = {
  .background = RGB (0x1e1e1e),
  .text = RGB (0xffffff),
  .subtext = RGB (0xc0bfbc),
  .edge = RGB (0x9a9996),
  .highlight = RGB (0xffa348),
  .highlight_glow = RGBA (0xffa348, 0.25),
  .selection = RGB (0x78aeed),
  .selection_glow = RGBA (0x78aeed, 0.3),
  .io = { RGB (0x303030), RGB (0x9a9996) },
  .op = { RGB (0x2f4223), RGB (0x8cc265) },
  .cluster = { RGB (0x232a1e), RGB (0x70a148) },
  .tile = { RGB (0x1e1e1e), RGB (0x7aa7db) },
  .block_op = { RGB (0x23344a), RGB (0x7aa7db) },
  .accum = { RGB (0x3a2745), RGB (0xb77fd0) },
  .epilogue = { RGB (0x453614), RGB (0xe5a50a) },
  .empty = { RGB (0x1e1e1e), RGB (0x9a9996) },
  .cluster_title = RGB (0xa6d67f),
};

#undef RGB
#undef RGBA

/* Sizes in graph units (pixels at zoom 1). */
static const struct
{
  const char *family;
  PangoWeight weight;
  double size;
} font_specs[PRISM_GRAPH_N_FONTS] = {
  [PRISM_GRAPH_FONT_TITLE] = { "Sans", PANGO_WEIGHT_BOLD, 12.0 },
  [PRISM_GRAPH_FONT_SUBTITLE] = { "Monospace", PANGO_WEIGHT_NORMAL, 10.5 },
  [PRISM_GRAPH_FONT_DETAIL] = { "Sans", PANGO_WEIGHT_NORMAL, 10.0 },
  [PRISM_GRAPH_FONT_CLUSTER_TITLE] = { "Sans", PANGO_WEIGHT_BOLD, 12.5 },
  [PRISM_GRAPH_FONT_CLUSTER_SUBTITLE] = { "Sans", PANGO_WEIGHT_NORMAL, 11.0 },
  [PRISM_GRAPH_FONT_LEGEND] = { "Sans", PANGO_WEIGHT_NORMAL, 11.0 },
};

#define NODE_RADIUS 6.0
#define CLUSTER_RADIUS 10.0
#define ARROW_HALF_WIDTH 4.0

/*
 * Auxiliary methods
 */

static const PangoFontDescription *
get_font (PrismGraphFont font)
{
  static PangoFontDescription *fonts[PRISM_GRAPH_N_FONTS];
  static gsize initialized = 0;

  /* Read-only once made, so every thread may share them. */
  if (g_once_init_enter (&initialized))
    {
      for (guint i = 0; i < PRISM_GRAPH_N_FONTS; i++)
        {
          fonts[i] = pango_font_description_new ();
          pango_font_description_set_family_static (fonts[i], font_specs[i].family);
          pango_font_description_set_weight (fonts[i], font_specs[i].weight);
          pango_font_description_set_absolute_size (fonts[i], font_specs[i].size * PANGO_SCALE);
        }
      g_once_init_leave (&initialized, 1);
    }
  return fonts[font];
}

/* Unhinted metrics: text measures the same at every zoom level and on every
 * surface, so a label measured once fits its box wherever it is drawn. */
static void
configure_context (PangoContext *context)
{
  cairo_font_options_t *options = cairo_font_options_create ();

  cairo_font_options_set_hint_metrics (options, CAIRO_HINT_METRICS_OFF);
  cairo_font_options_set_hint_style (options, CAIRO_HINT_STYLE_NONE);
  cairo_font_options_set_antialias (options, CAIRO_ANTIALIAS_GRAY);
  pango_cairo_context_set_font_options (context, options);
  pango_cairo_context_set_resolution (context, 96.0);
  pango_context_set_round_glyph_positions (context, FALSE);
  cairo_font_options_destroy (options);
}

static void
set_source (cairo_t *cr, const Rgba *color)
{
  cairo_set_source_rgba (cr, color->r, color->g, color->b, color->a);
}

static void
rounded_rect (cairo_t *cr, double x, double y, double w, double h, double r)
{
  r = MIN (r, MIN (w, h) / 2);
  cairo_new_sub_path (cr);
  cairo_arc (cr, x + w - r, y + r, r, -G_PI / 2, 0);
  cairo_arc (cr, x + w - r, y + h - r, r, 0, G_PI / 2);
  cairo_arc (cr, x + r, y + h - r, r, G_PI / 2, G_PI);
  cairo_arc (cr, x + r, y + r, r, G_PI, 3 * G_PI / 2);
  cairo_close_path (cr);
}

static gboolean
visible (const double clip[4], double x, double y, double w, double h)
{
  return x <= clip[2] && x + w >= clip[0] && y <= clip[3] && y + h >= clip[1];
}

static const Swatch *
role_swatch (const Palette *palette, PrismLayoutRole role)
{
  switch (role)
    {
    case PRISM_LAYOUT_ROLE_INPUT:
    case PRISM_LAYOUT_ROLE_OUTPUT:
      return &palette->io;
    case PRISM_LAYOUT_ROLE_OP:
      return &palette->op;
    case PRISM_LAYOUT_ROLE_TILE_INPUT:
    case PRISM_LAYOUT_ROLE_TILE_OUTPUT:
      return &palette->tile;
    case PRISM_LAYOUT_ROLE_BLOCK_OP:
      return &palette->block_op;
    case PRISM_LAYOUT_ROLE_ACCUM:
      return &palette->accum;
    case PRISM_LAYOUT_ROLE_EPILOGUE:
      return &palette->epilogue;
    case PRISM_LAYOUT_ROLE_KERNEL:
      return &palette->cluster;
    case PRISM_LAYOUT_ROLE_EMPTY:
    default:
      return &palette->empty;
    }
}

/* Program inputs and outputs are pills, tiles have dashed borders: the
 * shapes tell roles apart even without colour. */
static void
node_path (cairo_t *cr, PrismLayoutRole role, double x, double y, double w, double h)
{
  double radius = NODE_RADIUS;

  if (role == PRISM_LAYOUT_ROLE_INPUT || role == PRISM_LAYOUT_ROLE_OUTPUT)
    radius = h / 2;
  else if (role == PRISM_LAYOUT_ROLE_ACCUM)
    radius = 2;
  rounded_rect (cr, x, y, w, h, radius);
}

static double
draw_text (cairo_t        *cr,
           PangoLayout    *layout,
           PrismGraphFont  font,
           const char     *text,
           double          x,
           double          y,
           double          width,
           gboolean        center)
{
  PangoRectangle logical;

  pango_layout_set_font_description (layout, get_font (font));
  pango_layout_set_text (layout, text, -1);
  pango_layout_set_width (layout, (int) (width * PANGO_SCALE));
  pango_layout_set_ellipsize (layout, PANGO_ELLIPSIZE_END);
  pango_layout_set_alignment (layout, center ? PANGO_ALIGN_CENTER : PANGO_ALIGN_LEFT);
  pango_layout_get_extents (layout, NULL, &logical);
  cairo_move_to (cr, x, y);
  pango_cairo_show_layout (cr, layout);
  return (double) logical.height / PANGO_SCALE;
}

static void
paint_cluster (cairo_t                  *cr,
               const Palette            *palette,
               const PrismLayoutCluster *cluster)
{
  rounded_rect (cr, cluster->x, cluster->y, cluster->width, cluster->height, CLUSTER_RADIUS);
  set_source (cr, &palette->cluster.fill);
  cairo_fill (cr);
}

/* Drawn over the edges, so that an edge entering the kernel passes under
 * its title rather than through the words. */
static void
paint_cluster_header (cairo_t                  *cr,
                      PangoLayout              *text,
                      const Palette            *palette,
                      const PrismLayoutCluster *cluster,
                      gboolean                  hovered,
                      gboolean                  highlighted,
                      gboolean                  selected)
{
  double x = cluster->x, y = cluster->y, w = cluster->width, h = cluster->height;
  double ty;

  /* The header band, in the kernel level's colour. */
  cairo_save (cr);
  rounded_rect (cr, x, y, w, h, CLUSTER_RADIUS);
  cairo_clip (cr);
  cairo_rectangle (cr, x, y, w, cluster->header_height);
  set_source (cr, &palette->op.fill);
  cairo_fill (cr);
  cairo_restore (cr);

  if (selected)
    {
      rounded_rect (cr, x - 3, y - 3, w + 6, h + 6, CLUSTER_RADIUS + 3);
      set_source (cr, &palette->selection_glow);
      cairo_set_line_width (cr, 6.0);
      cairo_stroke (cr);
    }
  rounded_rect (cr, x, y, w, h, CLUSTER_RADIUS);
  set_source (cr, selected ? &palette->selection : highlighted ? &palette->highlight
                                                              : &palette->cluster.stroke);
  cairo_set_line_width (cr, selected || highlighted ? 3.0 : hovered ? 2.5 : 1.5);
  cairo_stroke (cr);

  ty = y + PRISM_GRAPH_LAYOUT_CLUSTER_PAD_Y;
  set_source (cr, &palette->cluster_title);
  ty += draw_text (cr, text, PRISM_GRAPH_FONT_CLUSTER_TITLE, cluster->title,
                   x + PRISM_GRAPH_LAYOUT_CLUSTER_PAD_X, ty,
                   w - 2 * PRISM_GRAPH_LAYOUT_CLUSTER_PAD_X, FALSE);
  ty += PRISM_GRAPH_LAYOUT_LINE_GAP;
  set_source (cr, &palette->subtext);
  draw_text (cr, text, PRISM_GRAPH_FONT_CLUSTER_SUBTITLE, cluster->subtitle,
             x + PRISM_GRAPH_LAYOUT_CLUSTER_PAD_X, ty,
             w - 2 * PRISM_GRAPH_LAYOUT_CLUSTER_PAD_X, FALSE);
}

static void
paint_edge (cairo_t                *cr,
            const Palette          *palette,
            const PrismGraphLayout *layout,
            const PrismLayoutEdge  *edge)
{
  double ex, ey, tx, ty, dx, dy, len;

  set_source (cr, &palette->edge);
  cairo_set_line_width (cr, 1.3);

  if (edge->n_points == 0)
    {
      const PrismLayoutNode *tail = prism_graph_layout_node (layout, edge->tail);
      const PrismLayoutNode *head = prism_graph_layout_node (layout, edge->head);

      cairo_move_to (cr, tail->x + tail->width / 2, tail->y + tail->height / 2);
      cairo_line_to (cr, head->x + head->width / 2, head->y + head->height / 2);
      cairo_stroke (cr);
      return;
    }

  cairo_move_to (cr, edge->points[0], edge->points[1]);
  for (guint p = 1; p + 2 < edge->n_points; p += 3)
    cairo_curve_to (cr,
                    edge->points[2 * p], edge->points[2 * p + 1],
                    edge->points[2 * p + 2], edge->points[2 * p + 3],
                    edge->points[2 * p + 4], edge->points[2 * p + 5]);
  cairo_stroke (cr);

  if (!edge->has_arrow)
    return;

  /* The route stops short of the head node; the arrow fills the gap. */
  ex = edge->points[2 * (edge->n_points - 1)];
  ey = edge->points[2 * (edge->n_points - 1) + 1];
  tx = edge->tip_x;
  ty = edge->tip_y;
  dx = tx - ex;
  dy = ty - ey;
  len = hypot (dx, dy);
  if (len < 1e-6)
    return;
  dx /= len;
  dy /= len;
  cairo_move_to (cr, tx, ty);
  cairo_line_to (cr, ex - dy * ARROW_HALF_WIDTH, ey + dx * ARROW_HALF_WIDTH);
  cairo_line_to (cr, ex + dy * ARROW_HALF_WIDTH, ey - dx * ARROW_HALF_WIDTH);
  cairo_close_path (cr);
  cairo_fill (cr);
}

static void
paint_node (cairo_t               *cr,
            PangoLayout           *text,
            const Palette         *palette,
            const PrismLayoutNode *node,
            gboolean               hovered,
            gboolean               highlighted,
            gboolean               selected)
{
  const Swatch *swatch = role_swatch (palette, node->role);
  double x = node->x, y = node->y, w = node->width, h = node->height;
  double inner = w - 2 * PRISM_GRAPH_LAYOUT_NODE_PAD_X;
  double ty;

  if (highlighted || selected)
    {
      node_path (cr, node->role, x - 5, y - 5, w + 10, h + 10);
      set_source (cr, selected ? &palette->selection_glow : &palette->highlight_glow);
      cairo_fill (cr);
    }

  if (node->role == PRISM_LAYOUT_ROLE_KERNEL)
    {
      /* A second border: there is a block graph inside to expand. */
      node_path (cr, node->role, x + 3, y + 3, w, h);
      set_source (cr, &swatch->fill);
      cairo_fill_preserve (cr);
      set_source (cr, &swatch->stroke);
      cairo_set_line_width (cr, 1.2);
      cairo_stroke (cr);
    }

  node_path (cr, node->role, x, y, w, h);
  set_source (cr, &swatch->fill);
  cairo_fill_preserve (cr);
  if (selected)
    {
      set_source (cr, &palette->selection);
      cairo_set_line_width (cr, 3.0);
    }
  else if (highlighted)
    {
      set_source (cr, &palette->highlight);
      cairo_set_line_width (cr, 3.0);
    }
  else
    {
      set_source (cr, &swatch->stroke);
      cairo_set_line_width (cr, hovered ? 2.8 : 1.4);
    }
  if (node->role == PRISM_LAYOUT_ROLE_TILE_INPUT || node->role == PRISM_LAYOUT_ROLE_TILE_OUTPUT ||
      node->role == PRISM_LAYOUT_ROLE_EMPTY)
    {
      static const double dashes[] = { 4.0, 2.5 };

      if (!highlighted && !selected)
        cairo_set_dash (cr, dashes, G_N_ELEMENTS (dashes), 0);
    }
  cairo_stroke (cr);
  cairo_set_dash (cr, NULL, 0, 0);

  ty = y + PRISM_GRAPH_LAYOUT_NODE_PAD_Y;
  set_source (cr, node->role == PRISM_LAYOUT_ROLE_KERNEL ? &palette->cluster_title : &palette->text);
  ty += draw_text (cr, text, PRISM_GRAPH_FONT_TITLE, node->title,
                   x + PRISM_GRAPH_LAYOUT_NODE_PAD_X, ty, inner, TRUE);
  set_source (cr, &palette->subtext);
  if (node->subtitle != NULL)
    ty += PRISM_GRAPH_LAYOUT_LINE_GAP + draw_text (cr, text, PRISM_GRAPH_FONT_SUBTITLE, node->subtitle,
                                                   x + PRISM_GRAPH_LAYOUT_NODE_PAD_X,
                                                   ty + PRISM_GRAPH_LAYOUT_LINE_GAP, inner, TRUE);
  if (node->detail != NULL)
    draw_text (cr, text, PRISM_GRAPH_FONT_DETAIL, node->detail,
               x + PRISM_GRAPH_LAYOUT_NODE_PAD_X, ty + PRISM_GRAPH_LAYOUT_LINE_GAP, inner, TRUE);
}

static gboolean
is_highlighted (const PrismGraphPaintOptions *options,
                guint                         op_id)
{
  return options->highlight != NULL && op_id != PRISM_OP_ID_NONE &&
         g_hash_table_contains (options->highlight, GUINT_TO_POINTER (op_id));
}

/* A collapsed kernel stands for its block ops: it is emphasized when one
 * of them is. */
static gboolean
hides_highlight (const PrismGraphPaintOptions *options,
                 guint                         kernel_op_id)
{
  GHashTableIter iter;
  gpointer key;

  if (options->highlight == NULL)
    return FALSE;
  g_hash_table_iter_init (&iter, options->highlight);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    if (prism_op_id_get_kernel (GPOINTER_TO_UINT (key)) == (int) prism_op_id_get_op (kernel_op_id))
      return TRUE;
  return FALSE;
}

static PangoLayout *
create_text_layout (cairo_t *cr)
{
  PangoContext *context = pango_cairo_create_context (cr);
  PangoLayout *layout;

  configure_context (context);
  pango_cairo_update_context (cr, context);
  layout = pango_layout_new (context);
  g_object_unref (context);
  return layout;
}

/*
 * Public API
 */

void
prism_graph_paint_options_init (PrismGraphPaintOptions *options)
{
  g_return_if_fail (options != NULL);

  options->dark = FALSE;
  options->fill_background = FALSE;
  options->highlight = NULL;
  options->hover_node = -1;
  options->hover_cluster = -1;
  options->selected_node = -1;
  options->selected_cluster = -1;
}

void
prism_graph_paint (cairo_t                      *cr,
                   const PrismGraphLayout       *layout,
                   const PrismGraphPaintOptions *options)
{
  PrismGraphPaintOptions defaults;
  const Palette *palette;
  g_autoptr(PangoLayout) text = NULL;
  double clip[4];

  g_return_if_fail (cr != NULL);
  g_return_if_fail (layout != NULL);

  if (options == NULL)
    {
      prism_graph_paint_options_init (&defaults);
      options = &defaults;
    }
  palette = options->dark ? &dark_palette : &light_palette;

  cairo_save (cr);
  cairo_clip_extents (cr, &clip[0], &clip[1], &clip[2], &clip[3]);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_ROUND);

  if (options->fill_background)
    {
      cairo_rectangle (cr, 0, 0, layout->width, layout->height);
      set_source (cr, &palette->background);
      cairo_fill (cr);
    }

  text = create_text_layout (cr);

  for (guint c = 0; c < layout->clusters->len; c++)
    {
      const PrismLayoutCluster *cluster = prism_graph_layout_cluster (layout, c);

      if (visible (clip, cluster->x - 4, cluster->y - 4, cluster->width + 8, cluster->height + 8))
        paint_cluster (cr, palette, cluster);
    }

  for (guint e = 0; e < layout->edges->len; e++)
    paint_edge (cr, palette, layout, prism_graph_layout_edge (layout, e));

  for (guint c = 0; c < layout->clusters->len; c++)
    {
      const PrismLayoutCluster *cluster = prism_graph_layout_cluster (layout, c);

      if (visible (clip, cluster->x - 4, cluster->y - 4, cluster->width + 8, cluster->height + 8))
        paint_cluster_header (cr, text, palette, cluster, options->hover_cluster == (int) c,
                              is_highlighted (options, cluster->op_id),
                              options->selected_cluster == (int) c);
    }

  for (guint i = 0; i < layout->nodes->len; i++)
    {
      const PrismLayoutNode *node = prism_graph_layout_node (layout, i);

      if (visible (clip, node->x - 6, node->y - 6, node->width + 12, node->height + 12))
        paint_node (cr, text, palette, node, options->hover_node == (int) i,
                    is_highlighted (options, node->op_id) ||
                    (node->role == PRISM_LAYOUT_ROLE_KERNEL && hides_highlight (options, node->op_id)),
                    options->selected_node == (int) i);
    }

  cairo_restore (cr);
}

void
prism_graph_paint_legend (cairo_t  *cr,
                          double    x,
                          double    y,
                          gboolean  dark,
                          double   *width,
                          double   *height)
{
  const Palette *palette = dark ? &dark_palette : &light_palette;
  g_autoptr(PangoLayout) text = NULL;
  const struct {
    const Swatch *swatch;
    PrismLayoutRole role;
    const char *label;
  } entries[] = {
    { &palette->io, PRISM_LAYOUT_ROLE_INPUT, N_("Program input or output") },
    { &palette->op, PRISM_LAYOUT_ROLE_OP, N_("Kernel-level operator") },
    { &palette->cluster, PRISM_LAYOUT_ROLE_OP, N_("Custom kernel") },
    { &palette->tile, PRISM_LAYOUT_ROLE_TILE_INPUT, N_("Tile read or written") },
    { &palette->block_op, PRISM_LAYOUT_ROLE_BLOCK_OP, N_("Block operator, every iteration") },
    { &palette->accum, PRISM_LAYOUT_ROLE_ACCUM, N_("Loop accumulator") },
    { &palette->epilogue, PRISM_LAYOUT_ROLE_EPILOGUE, N_("After the loop") },
  };
  const double pad = 8, swatch_w = 22, swatch_h = 12, row = 18;
  double text_w = 0, w, h;

  g_return_if_fail (cr != NULL);

  text = create_text_layout (cr);
  pango_layout_set_font_description (text, get_font (PRISM_GRAPH_FONT_LEGEND));
  for (guint i = 0; i < G_N_ELEMENTS (entries); i++)
    {
      PangoRectangle logical;

      pango_layout_set_text (text, _(entries[i].label), -1);
      pango_layout_get_extents (text, NULL, &logical);
      text_w = MAX (text_w, (double) logical.width / PANGO_SCALE);
    }
  w = ceil (pad * 2 + swatch_w + 8 + text_w);
  h = pad * 2 + row * G_N_ELEMENTS (entries);

  cairo_save (cr);
  rounded_rect (cr, x, y, w, h, 8);
  set_source (cr, &palette->background);
  cairo_fill_preserve (cr);
  cairo_set_source_rgba (cr, palette->edge.r, palette->edge.g, palette->edge.b, 0.5);
  cairo_set_line_width (cr, 1);
  cairo_stroke (cr);

  for (guint i = 0; i < G_N_ELEMENTS (entries); i++)
    {
      double ry = y + pad + i * row;
      PangoRectangle logical;

      node_path (cr, entries[i].role, x + pad, ry + (row - swatch_h) / 2, swatch_w, swatch_h);
      set_source (cr, &entries[i].swatch->fill);
      cairo_fill_preserve (cr);
      set_source (cr, &entries[i].swatch->stroke);
      cairo_set_line_width (cr, 1.2);
      cairo_stroke (cr);

      pango_layout_set_text (text, _(entries[i].label), -1);
      pango_layout_get_extents (text, NULL, &logical);
      set_source (cr, &palette->text);
      cairo_move_to (cr, x + pad + swatch_w + 8, ry + (row - (double) logical.height / PANGO_SCALE) / 2);
      pango_cairo_show_layout (cr, text);
    }
  cairo_restore (cr);

  if (width != NULL)
    *width = w;
  if (height != NULL)
    *height = h;
}

void
prism_graph_paint_get_background (gboolean dark,
                                  double   rgba[4])
{
  const Rgba *color = dark ? &dark_palette.background : &light_palette.background;

  rgba[0] = color->r;
  rgba[1] = color->g;
  rgba[2] = color->b;
  rgba[3] = color->a;
}

PangoContext *
prism_graph_paint_create_context (void)
{
  static PangoFontMap *font_map;
  PangoContext *context;

  /* One font map for the process, kept: the caller serializes. */
  if (font_map == NULL)
    font_map = pango_cairo_font_map_new ();
  context = pango_font_map_create_context (font_map);

  configure_context (context);
  return context;
}

void
prism_graph_paint_measure (PangoContext   *context,
                           PrismGraphFont  font,
                           const char     *text,
                           double         *width,
                           double         *height)
{
  g_autoptr(PangoLayout) layout = NULL;
  PangoRectangle logical;

  g_return_if_fail (PANGO_IS_CONTEXT (context));
  g_return_if_fail (font < PRISM_GRAPH_N_FONTS);

  layout = pango_layout_new (context);
  pango_layout_set_font_description (layout, get_font (font));
  pango_layout_set_text (layout, text ? text : "", -1);
  pango_layout_get_extents (layout, NULL, &logical);
  *width = (double) logical.width / PANGO_SCALE;
  *height = (double) logical.height / PANGO_SCALE;
}
