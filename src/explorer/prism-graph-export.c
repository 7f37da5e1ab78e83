/* prism-graph-export.c — a program's graph as an SVG or PNG file
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "prism-graph-export"

#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n.h>
#include <cairo-svg.h>
#include <pango/pango.h>

#include "prism-graph-export.h"
#include "prism-graph-paint.h"

/*
 * Auxiliary methods
 */

static cairo_status_t
append_bytes (void                *closure,
              const unsigned char *data,
              unsigned int         length)
{
  g_byte_array_append (closure, data, length);
  return CAIRO_STATUS_SUCCESS;
}

static char *
plain_text (const char *markup)
{
  char *text = NULL;

  if (markup == NULL || !pango_parse_markup (markup, -1, 0, NULL, &text, NULL, NULL))
    return g_strdup (markup ? markup : "");
  return text;
}

/* Cairo writes text as glyph outlines; a layer of invisible boxes, one per
 * node with the node's description as its <title>, keeps the words in the
 * file: browsers show them on hover, and they can be searched. */
static char *
node_titles (const PrismGraphLayout *layout)
{
  GString *s = g_string_new ("<g id=\"prism-ops\" fill=\"none\" stroke=\"none\">\n");

  for (guint i = 0; i < layout->nodes->len; i++)
    {
      const PrismLayoutNode *node = prism_graph_layout_node (layout, i);
      g_autofree char *description = plain_text (node->tooltip);
      g_autofree char *element = NULL;
      char x[G_ASCII_DTOSTR_BUF_SIZE], y[G_ASCII_DTOSTR_BUF_SIZE];
      char w[G_ASCII_DTOSTR_BUF_SIZE], h[G_ASCII_DTOSTR_BUF_SIZE];

      g_ascii_formatd (x, sizeof x, "%.1f", node->x);
      g_ascii_formatd (y, sizeof y, "%.1f", node->y);
      g_ascii_formatd (w, sizeof w, "%.1f", node->width);
      g_ascii_formatd (h, sizeof h, "%.1f", node->height);
      element = g_markup_printf_escaped ("<g class=\"op\" id=\"op-%u\"><title>%s</title>"
                                         "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" "
                                         "pointer-events=\"all\"/></g>\n",
                                         i, description, x, y, w, h);
      g_string_append (s, element);
    }
  g_string_append (s, "</g>\n");
  return g_string_free (s, FALSE);
}

static gboolean
write_bytes (const char  *path,
             GByteArray  *bytes,
             GError     **error)
{
  g_autoptr(GError) local_error = NULL;

  if (!g_file_set_contents (path, (const char *) bytes->data, bytes->len, &local_error))
    {
      g_set_error (error, local_error->domain, local_error->code,
                   _("Could not write the graph: %s"), local_error->message);
      return FALSE;
    }
  return TRUE;
}

static gboolean
check_status (cairo_status_t   status,
              GError         **error)
{
  if (status == CAIRO_STATUS_SUCCESS)
    return TRUE;
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
               _("Could not draw the graph: %s"), cairo_status_to_string (status));
  return FALSE;
}

static void
paint (cairo_t                *cr,
       const PrismGraphLayout *layout)
{
  PrismGraphPaintOptions options;

  prism_graph_paint_options_init (&options);
  options.fill_background = TRUE;
  prism_graph_paint (cr, layout, &options);
}

static gboolean
export_svg (const PrismGraphLayout  *layout,
            const char              *path,
            GError                 **error)
{
  g_autoptr(GByteArray) bytes = g_byte_array_new ();
  g_autofree char *titles = NULL;
  cairo_surface_t *surface;
  cairo_status_t status;
  cairo_t *cr;
  const char *end;
  gsize at;

  surface = cairo_svg_surface_create_for_stream (append_bytes, bytes,
                                                 MAX (1, layout->width), MAX (1, layout->height));
  cairo_svg_surface_set_document_unit (surface, CAIRO_SVG_UNIT_PX);
  cr = cairo_create (surface);
  paint (cr, layout);
  status = cairo_status (cr);
  cairo_destroy (cr);
  cairo_surface_finish (surface);
  if (status == CAIRO_STATUS_SUCCESS)
    status = cairo_surface_status (surface);
  cairo_surface_destroy (surface);
  if (!check_status (status, error))
    return FALSE;

  /* Insert the titles just before the closing tag. */
  g_byte_array_append (bytes, (const guint8 *) "", 1);
  end = g_strrstr ((const char *) bytes->data, "</svg>");
  if (end == NULL)
    return check_status (CAIRO_STATUS_WRITE_ERROR, error);
  at = end - (const char *) bytes->data;
  titles = node_titles (layout);
  g_byte_array_set_size (bytes, bytes->len - 1);
  g_byte_array_remove_range (bytes, at, bytes->len - at);
  g_byte_array_append (bytes, (const guint8 *) titles, strlen (titles));
  g_byte_array_append (bytes, (const guint8 *) "</svg>\n", strlen ("</svg>\n"));

  return write_bytes (path, bytes, error);
}

static gboolean
export_png (const PrismGraphLayout  *layout,
            const char              *path,
            double                   scale,
            GError                 **error)
{
  g_autoptr(GByteArray) bytes = g_byte_array_new ();
  cairo_surface_t *surface;
  cairo_status_t status;
  cairo_t *cr;
  double largest = MAX (layout->width, layout->height);
  int width, height;

  if (!(scale > 0))
    scale = 1;
  /* Scale down rather than cut off what does not fit. */
  if (largest * scale > PRISM_GRAPH_EXPORT_MAX_PIXELS)
    scale = PRISM_GRAPH_EXPORT_MAX_PIXELS / largest;
  width = MAX (1, (int) ceil (layout->width * scale));
  height = MAX (1, (int) ceil (layout->height * scale));

  surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);
  cr = cairo_create (surface);
  cairo_scale (cr, scale, scale);
  paint (cr, layout);
  status = cairo_status (cr);
  cairo_destroy (cr);
  if (status == CAIRO_STATUS_SUCCESS)
    status = cairo_surface_write_to_png_stream (surface, append_bytes, bytes);
  cairo_surface_destroy (surface);
  if (!check_status (status, error))
    return FALSE;

  return write_bytes (path, bytes, error);
}

/*
 * Public API
 */

gboolean
prism_graph_export_format_from_path (const char             *path,
                                     PrismGraphExportFormat *format)
{
  const char *dot;

  g_return_val_if_fail (path != NULL, FALSE);

  dot = strrchr (path, '.');
  if (dot == NULL || strchr (dot, G_DIR_SEPARATOR) != NULL)
    return FALSE;
  if (g_ascii_strcasecmp (dot, ".svg") == 0)
    *format = PRISM_GRAPH_EXPORT_SVG;
  else if (g_ascii_strcasecmp (dot, ".png") == 0)
    *format = PRISM_GRAPH_EXPORT_PNG;
  else
    return FALSE;
  return TRUE;
}

gboolean
prism_graph_export_layout (const PrismGraphLayout  *layout,
                           const char              *path,
                           PrismGraphExportFormat   format,
                           double                   scale,
                           GError                 **error)
{
  g_return_val_if_fail (layout != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  switch (format)
    {
    case PRISM_GRAPH_EXPORT_SVG:
      return export_svg (layout, path, error);
    case PRISM_GRAPH_EXPORT_PNG:
      return export_png (layout, path, scale, error);
    default:
      g_return_val_if_reached (FALSE);
    }
}

gboolean
prism_graph_export (PrismGraph              *graph,
                    PrismGraphDirection      direction,
                    const char              *path,
                    PrismGraphExportFormat   format,
                    GError                 **error)
{
  g_autoptr(PrismGraphLayout) layout = NULL;

  g_return_val_if_fail (graph != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  layout = prism_graph_layout_compute (graph, direction, error);
  if (layout == NULL)
    return FALSE;
  return prism_graph_export_layout (layout, path, format, 2.0, error);
}
