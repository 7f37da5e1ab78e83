/* prism-column-title.h — table columns wide enough for their titles
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

void prism_column_title_fit (GtkColumnView       *view,
                             GtkColumnViewColumn *column,
                             int                  width);

G_END_DECLS
