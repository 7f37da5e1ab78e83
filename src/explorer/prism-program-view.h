/* prism-program-view.h — a program's name, description and operator list
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "prism-graph.h"

G_BEGIN_DECLS

#define PRISM_TYPE_PROGRAM_VIEW (prism_program_view_get_type ())

G_DECLARE_FINAL_TYPE (PrismProgramView, prism_program_view, PRISM, PROGRAM_VIEW, GtkWidget)

GtkWidget  *prism_program_view_new         (void);
void        prism_program_view_set_program (PrismProgramView *self,
                                            const PrismGraph *graph,
                                            const char       *title,
                                            const char       *description);
GListModel *prism_program_view_get_ops     (PrismProgramView *self);

G_END_DECLS
