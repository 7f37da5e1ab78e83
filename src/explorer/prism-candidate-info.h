/* prism-candidate-info.h — what the comparison shows about one candidate
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib-object.h>

#include "prism-graph.h"

G_BEGIN_DECLS

#define PRISM_TYPE_CANDIDATE_INFO (prism_candidate_info_get_type ())

/**
 * PrismCandidateInfo:
 *
 * One candidate program and what is known about it. Fields are set by whoever
 * makes it (a search-results model, a test) before it is shown; they are not
 * changed afterwards.
 */
typedef struct
{
  /*< private >*/
  gint ref_count;
  /*< public >*/
  char *id;              /* a short name shown above its graph, e.g. "#3" (owned) */
  PrismGraph *graph;     /* a kernel graph (owned reference) */
  double predicted_us;   /* predicted (or measured) time in µs; < 0 when unknown */
  gboolean measured;     /* predicted_us was measured on a GPU */
  double speedup;        /* over the unfused program; ≤ 0 when unknown */
  char *verification;    /* (nullable) e.g. "proved (e-graph, 41 rewrites)" (owned) */
} PrismCandidateInfo;

GType               prism_candidate_info_get_type (void) G_GNUC_CONST;
/* Returns: (transfer full): an info with unknown time, speedup and verification */
PrismCandidateInfo *prism_candidate_info_new      (const char         *id,
                                                   PrismGraph         *graph);
PrismCandidateInfo *prism_candidate_info_ref      (PrismCandidateInfo *info);
void                prism_candidate_info_unref    (PrismCandidateInfo *info);
void                prism_candidate_info_set_verification (PrismCandidateInfo *info,
                                                   const char         *verification);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrismCandidateInfo, prism_candidate_info_unref)

G_END_DECLS
