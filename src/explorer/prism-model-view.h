/* prism-model-view.h — a whole model, and the region of it to superoptimize
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "prism-graph-region.h"
#include "prism-graph-view.h"

G_BEGIN_DECLS

#define PRISM_TYPE_MODEL_VIEW (prism_model_view_get_type ())

G_DECLARE_FINAL_TYPE (PrismModelView, prism_model_view, PRISM, MODEL_VIEW, GtkWidget)

GtkWidget              *prism_model_view_new            (void);
/* Shows @model (an imported model; %NULL for none) read from @file. */
void                    prism_model_view_set_model      (PrismModelView   *self,
                                                         PrismGraph       *model,
                                                         GFile            *file);
PrismGraph             *prism_model_view_get_model      (PrismModelView   *self);
GFile                  *prism_model_view_get_file       (PrismModelView   *self);
PrismGraphView         *prism_model_view_get_graph_view (PrismModelView   *self);

/* The selected region: what Shift+click (one op) and Shift+drag (the ops
 * in the rectangle) add to or take from. */
void                    prism_model_view_set_region     (PrismModelView   *self,
                                                         const guint      *ops,
                                                         guint             n_ops);
void                    prism_model_view_toggle_op      (PrismModelView   *self,
                                                         guint             op);
/* Adds the ops whose boxes meet the rectangle (widget coordinates of the graph view). */
void                    prism_model_view_select_rect    (PrismModelView   *self,
                                                         double            x0,
                                                         double            y0,
                                                         double            x1,
                                                         double            y1);
/* (transfer none) (nullable): the region, %NULL when nothing is selected */
const PrismGraphRegion *prism_model_view_get_region     (PrismModelView   *self);
/* The text of the region's inputs and outputs, as the panel shows it. */
const char             *prism_model_view_get_summary    (PrismModelView   *self);
/* (transfer full) (nullable): the region as a program */
PrismGraph             *prism_model_view_get_region_program (PrismModelView *self,
                                                         GError          **error);
gboolean                prism_model_view_save_region    (PrismModelView   *self,
                                                         GFile            *file,
                                                         GError          **error);
/* Find Blocks: proposes regions around the matmuls; returns how many. */
guint                   prism_model_view_find_blocks    (PrismModelView   *self);
/* Makes proposal @index the region. */
void                    prism_model_view_select_block   (PrismModelView   *self,
                                                         guint             index);
/* What Search Region does: emits ::search-region with the region's program. */
gboolean                prism_model_view_search_region  (PrismModelView   *self);

/* A model whose inputs have symbolic dims @names (from @file): the page
 * asks their sizes; Open Model imports it with them (::model-sized). */
void                    prism_model_view_ask_dims       (PrismModelView   *self,
                                                         GFile            *file,
                                                         const char *const *names);
/* (transfer none) (nullable): the dims asked for, %NULL when none are */
const char *const      *prism_model_view_get_dim_names  (PrismModelView   *self);
/* Sets the size field of dim @name; FALSE when no such dim is asked for. */
gboolean                prism_model_view_set_dim        (PrismModelView   *self,
                                                         const char       *name,
                                                         gint64            value);
/* What Open Model does: imports the model with the sizes, off the main thread. */
void                    prism_model_view_open_sized     (PrismModelView   *self);

G_END_DECLS
