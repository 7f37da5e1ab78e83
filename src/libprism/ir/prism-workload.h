/* prism-workload.h — the built-in programs and their hand-written fused graphs
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "prism-graph.h"

G_BEGIN_DECLS

typedef struct
{
  const char *name;         /* "rms_norm" */
  const char *description;  /* one sentence (untranslated; UIs wrap it in gettext) */
  const char *shape_params; /* default parameters, e.g. "n=8,d=4096" */
  gboolean has_reference;   /* a hand-written fused graph exists */
} PrismWorkloadInfo;

/* The built-in workloads in a stable order. */
const PrismWorkloadInfo *prism_workload_list      (guint       *n_workloads);
const PrismWorkloadInfo *prism_workload_lookup    (const char  *name);

/**
 * prism_workload_build:
 * @name: a built-in workload name
 * @params: (nullable): "key=value,…" overriding default shape parameters
 *
 * Returns: (transfer full) (nullable): the unfused input program
 */
PrismGraph *prism_workload_build           (const char  *name,
                                            const char  *params,
                                            GError     **error);

/**
 * prism_workload_build_reference:
 * @name: a built-in workload with has_reference
 * @params: (nullable): as for prism_workload_build()
 *
 * Returns: (transfer full) (nullable): the known-good fused graph
 */
PrismGraph *prism_workload_build_reference (const char  *name,
                                            const char  *params,
                                            GError     **error);

G_END_DECLS
