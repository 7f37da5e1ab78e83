/* prism-graph-paint.h — draws a graph layout with Cairo (view and export alike)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <cairo.h>
#include <pango/pango.h>

#include "prism-graph-layout.h"

G_BEGIN_DECLS

/* The fonts of the drawing; sizes are in graph units, so that measuring (on
 * the layout's thread) and drawing (at any zoom) agree. */
typedef enum
{
  PRISM_GRAPH_FONT_TITLE,
  PRISM_GRAPH_FONT_SUBTITLE,
  PRISM_GRAPH_FONT_DETAIL,
  PRISM_GRAPH_FONT_CLUSTER_TITLE,
  PRISM_GRAPH_FONT_CLUSTER_SUBTITLE,
  PRISM_GRAPH_FONT_LEGEND,
  PRISM_GRAPH_N_FONTS
} PrismGraphFont;

typedef struct
{
  gboolean dark;               /* dark palette */
  gboolean fill_background;    /* paint the background over the whole layout */
  GHashTable *highlight;       /* (nullable) op ids drawn emphasized: GUINT_TO_POINTER (op_id) */
  int hover_node;              /* node index drawn hovered, or -1 */
  int hover_cluster;           /* cluster index drawn hovered, or -1 */
  int selected_node;           /* node index drawn selected, or -1 */
  int selected_cluster;        /* cluster index drawn selected, or -1 */
} PrismGraphPaintOptions;

void          prism_graph_paint_options_init (PrismGraphPaintOptions       *options);

/**
 * prism_graph_paint:
 * @cr: a Cairo context whose user space is graph units
 * @layout: the layout to draw
 * @options: (nullable): how; %NULL draws light, without highlights
 *
 * Draws clusters, edges and nodes. Anything outside the clip is skipped.
 */
void          prism_graph_paint              (cairo_t                      *cr,
                                              const PrismGraphLayout       *layout,
                                              const PrismGraphPaintOptions *options);

/* The colour prism_graph_paint() fills the background with. */
void          prism_graph_paint_get_background (gboolean                  dark,
                                              double                        rgba[4]);

/* Draws a key of node colours with its top-left corner at (x, y); returns its size. */
void          prism_graph_paint_legend       (cairo_t                      *cr,
                                              double                        x,
                                              double                        y,
                                              gboolean                      dark,
                                              double                       *width,
                                              double                       *height);

/* A context measuring text as prism_graph_paint() draws it. All contexts
 * share one font map: callers on several threads must serialize their calls
 * (the layout does, under its lock). (transfer full) */
PangoContext *prism_graph_paint_create_context (void);
void          prism_graph_paint_measure      (PangoContext                 *context,
                                              PrismGraphFont                font,
                                              const char                   *text,
                                              double                       *width,
                                              double                       *height);

G_END_DECLS
