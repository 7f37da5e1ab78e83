/* prism-candidate-info.c — what the comparison shows about one candidate
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "prism-candidate-info"

#include "config.h"

#include "prism-candidate-info.h"

G_DEFINE_BOXED_TYPE (PrismCandidateInfo, prism_candidate_info,
                     prism_candidate_info_ref, prism_candidate_info_unref)

/**
 * prism_candidate_info_new:
 * @id: the name shown for the candidate
 * @graph: its kernel graph (a reference is taken)
 */
PrismCandidateInfo *
prism_candidate_info_new (const char *id,
                          PrismGraph *graph)
{
  PrismCandidateInfo *info;

  g_return_val_if_fail (id != NULL, NULL);
  g_return_val_if_fail (graph != NULL, NULL);

  info = g_new0 (PrismCandidateInfo, 1);
  info->ref_count = 1;
  info->id = g_strdup (id);
  info->graph = prism_graph_ref (graph);
  info->predicted_us = -1;
  info->speedup = 0;
  return info;
}

PrismCandidateInfo *
prism_candidate_info_ref (PrismCandidateInfo *info)
{
  g_return_val_if_fail (info != NULL, NULL);
  g_atomic_int_inc (&info->ref_count);
  return info;
}

void
prism_candidate_info_unref (PrismCandidateInfo *info)
{
  if (info == NULL || !g_atomic_int_dec_and_test (&info->ref_count))
    return;
  g_free (info->id);
  prism_graph_unref (info->graph);
  g_free (info->verification);
  g_free (info);
}

void
prism_candidate_info_set_verification (PrismCandidateInfo *info,
                                       const char         *verification)
{
  g_return_if_fail (info != NULL);

  g_free (info->verification);
  info->verification = g_strdup (verification);
}
