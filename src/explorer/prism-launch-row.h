/* prism-launch-row.h — one launch of a kernel report, as a row of the Kernel page's list
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "prism-kernel-report.h"

G_BEGIN_DECLS

#define PRISM_TYPE_LAUNCH_ROW (prism_launch_row_get_type ())

G_DECLARE_FINAL_TYPE (PrismLaunchRow, prism_launch_row, PRISM, LAUNCH_ROW, GObject)

/* A reference is taken on @report. */
PrismLaunchRow                *prism_launch_row_new        (PrismKernelReport *report,
                                                            guint              index);
/* (transfer none) */
PrismKernelReport             *prism_launch_row_get_report (PrismLaunchRow    *self);
/* Its position in launch order. */
guint                          prism_launch_row_get_index  (PrismLaunchRow    *self);
/* (transfer none) */
const PrismKernelReportLaunch *prism_launch_row_get_launch (PrismLaunchRow    *self);

G_END_DECLS
