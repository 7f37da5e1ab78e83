/* prism-column-title.c — table columns wide enough for their titles
 *
 * GTK 4.8's column headers clip a title wider than its column and have no
 * tooltip that would show it whole; a fixed width that suits the English
 * titles cuts longer translations ("Разд. память" in 84 px).  The candidates
 * table and the Kernel page's launch list size their columns here.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "prism-column-title.h"

/* The header's padding and, on a sortable column, its sort arrow. */
#define TITLE_PADDING 16
#define SORT_ARROW    18

/**
 * prism_column_title_fit:
 * @view: the table @column is (or will be) in: its font measures the title
 * @width: the width the design gives the column
 *
 * Sets @column's fixed width to @width, or wider if its (translated) title
 * needs it, set bold as headers may be.
 */
void
prism_column_title_fit (GtkColumnView       *view,
                        GtkColumnViewColumn *column,
                        int                  width)
{
  const char *title = gtk_column_view_column_get_title (column);
  g_autoptr(PangoLayout) layout = NULL;
  g_autoptr(PangoAttrList) attrs = NULL;
  int text_width = 0;

  g_return_if_fail (GTK_IS_COLUMN_VIEW (view));
  g_return_if_fail (GTK_IS_COLUMN_VIEW_COLUMN (column));

  if (title != NULL && *title != '\0')
    {
      layout = gtk_widget_create_pango_layout (GTK_WIDGET (view), title);
      attrs = pango_attr_list_new ();
      pango_attr_list_insert (attrs, pango_attr_weight_new (PANGO_WEIGHT_BOLD));
      pango_layout_set_attributes (layout, attrs);
      pango_layout_get_pixel_size (layout, &text_width, NULL);
      text_width += TITLE_PADDING + (gtk_column_view_column_get_sorter (column) != NULL ? SORT_ARROW : 0);
    }
  gtk_column_view_column_set_fixed_width (column, MAX (width, text_width));
}
