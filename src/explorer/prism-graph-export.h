/* prism-graph-export.h — a program's graph as an SVG or PNG file
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "prism-graph-layout.h"

G_BEGIN_DECLS

typedef enum
{
  PRISM_GRAPH_EXPORT_SVG,
  PRISM_GRAPH_EXPORT_PNG,
} PrismGraphExportFormat;

/* The widest or tallest PNG written, in pixels; larger drawings are scaled
 * down to fit (never cut off). */
#define PRISM_GRAPH_EXPORT_MAX_PIXELS 16384

/* The format named by @path's extension (".svg", ".png", any case);
 * FALSE if it names neither. */
gboolean prism_graph_export_format_from_path (const char              *path,
                                              PrismGraphExportFormat  *format);

/**
 * prism_graph_export_layout:
 * @layout: a finished layout
 * @path: the file to write (replaced atomically)
 * @scale: PNG only: pixels per graph unit (2 is crisp on most screens);
 *   lowered if the image would exceed %PRISM_GRAPH_EXPORT_MAX_PIXELS
 *
 * Draws @layout as the graph view does (light palette, white background).
 * SVG files also carry each op's description as a <title>, so browsers show
 * it on hover and the op names can be searched.
 *
 * Returns: %FALSE with @error set if the file cannot be written
 */
gboolean prism_graph_export_layout           (const PrismGraphLayout  *layout,
                                              const char              *path,
                                              PrismGraphExportFormat   format,
                                              double                   scale,
                                              GError                 **error);

/* Lays @graph out (on the calling thread) and exports it at scale 2. */
gboolean prism_graph_export                  (PrismGraph              *graph,
                                              PrismGraphDirection      direction,
                                              const char              *path,
                                              PrismGraphExportFormat   format,
                                              GError                 **error);

G_END_DECLS
