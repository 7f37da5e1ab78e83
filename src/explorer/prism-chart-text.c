/* prism-chart-text.c — placing text in the explorer's charts
 *
 * The speedup chart, the search tree and the roofline all draw their labels
 * this way.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "prism-chart-text.h"

void
prism_chart_append_text (GtkSnapshot   *snapshot,
                         PangoLayout   *layout,
                         const GdkRGBA *color,
                         double         x,
                         double         y)
{
  gtk_snapshot_save (snapshot);
  gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT (x, y));
  gtk_snapshot_append_layout (snapshot, layout, color);
  gtk_snapshot_restore (snapshot);
}

void
prism_chart_text_size (PangoLayout *layout,
                       double      *width,
                       double      *height)
{
  int w, h;

  pango_layout_get_pixel_size (layout, &w, &h);
  if (width != NULL)
    *width = w;
  if (height != NULL)
    *height = h;
}
