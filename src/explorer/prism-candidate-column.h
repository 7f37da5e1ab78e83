/* prism-candidate-column.h — the candidates table's columns: titles, sort
 * properties, cell texts, and the filter's terms matched against them
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "prism-candidate-row.h"

G_BEGIN_DECLS

typedef enum
{
  PRISM_CANDIDATE_COLUMN_ID,
  PRISM_CANDIDATE_COLUMN_SPEEDUP,
  PRISM_CANDIDATE_COLUMN_TIME,
  PRISM_CANDIDATE_COLUMN_MEASURED,
  PRISM_CANDIDATE_COLUMN_KERNELS,
  PRISM_CANDIDATE_COLUMN_SMEM,
  PRISM_CANDIDATE_COLUMN_VERIFICATION,
  PRISM_CANDIDATE_COLUMN_PARAMS,
  PRISM_CANDIDATE_COLUMN_FOUND,
  PRISM_CANDIDATE_N_COLUMNS
} PrismCandidateColumn;

/* (transfer full) what @column shows for @row */
char       *prism_candidate_column_text     (PrismCandidateRow    *row,
                                             PrismCandidateColumn  column);
const char *prism_candidate_column_title    (PrismCandidateColumn  column);
const char *prism_candidate_column_property (PrismCandidateColumn  column);
/* Whether @row matches one term of the table's filter (casefolded):
 * "launches=1", "speedup>=2", "time<5" compare a figure; any other word is
 * looked for in the row's cells and the steps that built it. */
gboolean    prism_candidate_filter_term_matches (PrismCandidateRow *row,
                                                 const char        *term);

G_END_DECLS
