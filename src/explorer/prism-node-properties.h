/* prism-node-properties.h — what one op of a graph is: kind, tensors, maps, launch
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "prism-graph-layout.h"

G_BEGIN_DECLS

#define PRISM_TYPE_NODE_PROPERTIES (prism_node_properties_get_type ())

G_DECLARE_FINAL_TYPE (PrismNodeProperties, prism_node_properties, PRISM, NODE_PROPERTIES, GtkBox)

GtkWidget  *prism_node_properties_new       (void);
gboolean    prism_node_properties_set_op    (PrismNodeProperties *self,
                                             PrismGraph          *graph,
                                             guint                op_id);
void        prism_node_properties_clear     (PrismNodeProperties *self);
const char *prism_node_properties_get_title (PrismNodeProperties *self);
char       *prism_node_properties_get_text  (PrismNodeProperties *self);

G_END_DECLS
