/* prism-chart-text.h — placing text in the explorer's Cairo/snapshot charts
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Appends @layout to @snapshot with its top-left corner at (@x, @y). */
void prism_chart_append_text (GtkSnapshot   *snapshot,
                              PangoLayout   *layout,
                              const GdkRGBA *color,
                              double         x,
                              double         y);
/* The size of @layout in pixels, as doubles for the charts' arithmetic;
 * either out argument may be %NULL. */
void prism_chart_text_size   (PangoLayout   *layout,
                              double        *width,
                              double        *height);

G_END_DECLS
