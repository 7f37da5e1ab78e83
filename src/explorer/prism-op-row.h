/* prism-op-row.h — one operator of a program, as a row of the explorer's op list
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "prism-graph.h"

G_BEGIN_DECLS

#define PRISM_TYPE_OP_ROW (prism_op_row_get_type ())

G_DECLARE_FINAL_TYPE (PrismOpRow, prism_op_row, PRISM, OP_ROW, GObject)

GListModel  *prism_op_row_list_new     (const PrismGraph *graph);
PrismOpKind  prism_op_row_get_kind     (PrismOpRow       *self);
guint        prism_op_row_get_depth    (PrismOpRow       *self);
const char  *prism_op_row_get_index    (PrismOpRow       *self);
const char  *prism_op_row_get_operator (PrismOpRow       *self);
const char  *prism_op_row_get_inputs   (PrismOpRow       *self);
const char  *prism_op_row_get_outputs  (PrismOpRow       *self);
const char  *prism_op_row_get_shape    (PrismOpRow       *self);
const char  *prism_op_row_get_dtype    (PrismOpRow       *self);
const char  *prism_op_row_get_details  (PrismOpRow       *self);
GListModel  *prism_op_row_get_children (PrismOpRow       *self);

G_END_DECLS
