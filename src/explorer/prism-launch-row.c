/* prism-launch-row.c — one launch of a kernel report, as a row of the Kernel page's list
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "prism-launch-row"

#include "config.h"

#include "prism-launch-row.h"

/* The row only points into its (immutable) report: the list is made once
 * per report and never edited. */
struct _PrismLaunchRow
{
  GObject parent_instance;

  PrismKernelReport *report;
  guint index;
};

G_DEFINE_FINAL_TYPE (PrismLaunchRow, prism_launch_row, G_TYPE_OBJECT)

static void
prism_launch_row_finalize (GObject *object)
{
  PrismLaunchRow *self = (PrismLaunchRow *)object;

  g_clear_pointer (&self->report, prism_kernel_report_unref);

  G_OBJECT_CLASS (prism_launch_row_parent_class)->finalize (object);
}

static void
prism_launch_row_class_init (PrismLaunchRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = prism_launch_row_finalize;
}

static void
prism_launch_row_init (PrismLaunchRow *self)
{
}

PrismLaunchRow *
prism_launch_row_new (PrismKernelReport *report,
                      guint              index)
{
  PrismLaunchRow *self;

  g_return_val_if_fail (report != NULL, NULL);
  g_return_val_if_fail (index < prism_kernel_report_get_n_launches (report), NULL);

  self = g_object_new (PRISM_TYPE_LAUNCH_ROW, NULL);
  self->report = prism_kernel_report_ref (report);
  self->index = index;
  return self;
}

PrismKernelReport *
prism_launch_row_get_report (PrismLaunchRow *self)
{
  g_return_val_if_fail (PRISM_IS_LAUNCH_ROW (self), NULL);
  return self->report;
}

guint
prism_launch_row_get_index (PrismLaunchRow *self)
{
  g_return_val_if_fail (PRISM_IS_LAUNCH_ROW (self), 0);
  return self->index;
}

const PrismKernelReportLaunch *
prism_launch_row_get_launch (PrismLaunchRow *self)
{
  g_return_val_if_fail (PRISM_IS_LAUNCH_ROW (self), NULL);
  return prism_kernel_report_get_launch (self->report, self->index);
}
