/* prism-prune-samples-popover.h — the sampled pruning decisions of one tree chart segment
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "prism-graph-view.h"
#include "prism-search.h"

G_BEGIN_DECLS

#define PRISM_TYPE_PRUNE_SAMPLES_POPOVER (prism_prune_samples_popover_get_type ())

G_DECLARE_FINAL_TYPE (PrismPruneSamplesPopover, prism_prune_samples_popover, PRISM,
                      PRUNE_SAMPLES_POPOVER, GtkPopover)

GtkWidget      *prism_prune_samples_popover_new            (void);
void            prism_prune_samples_popover_set_samples    (PrismPruneSamplesPopover *self,
                                                            const char               *title,
                                                            GPtrArray                *samples,
                                                            guint64                   pruned);
guint           prism_prune_samples_popover_get_n_samples  (PrismPruneSamplesPopover *self);
const char     *prism_prune_samples_popover_get_step       (PrismPruneSamplesPopover *self,
                                                            guint                     index);
void            prism_prune_samples_popover_select         (PrismPruneSamplesPopover *self,
                                                            guint                     index);
int             prism_prune_samples_popover_get_selected   (PrismPruneSamplesPopover *self);
PrismGraphView *prism_prune_samples_popover_get_graph_view (PrismPruneSamplesPopover *self);

G_END_DECLS
