/* prism-candidate-row.h — one verified candidate, as a row of the candidates table
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "prism-results.h"

G_BEGIN_DECLS

#define PRISM_TYPE_CANDIDATE_ROW (prism_candidate_row_get_type ())

G_DECLARE_FINAL_TYPE (PrismCandidateRow, prism_candidate_row, PRISM, CANDIDATE_ROW, GObject)

/* How a candidate was shown equivalent to the program; also its sort order
 * in the table (a proof outranks a test alone). */
typedef enum
{
  PRISM_VERIFICATION_NONE,
  PRISM_VERIFICATION_RANDOM,        /* randomized test only */
  PRISM_VERIFICATION_FORMAL,        /* e-graph proof only */
  PRISM_VERIFICATION_FORMAL_RANDOM, /* proof, and the randomized test agrees */
} PrismVerificationMethod;

PrismCandidateRow  *prism_candidate_row_new                 (PrismCandidate    *candidate,
                                                             guint              id);
PrismCandidateRow  *prism_candidate_row_new_external        (PrismCandidate    *candidate,
                                                             guint              index,
                                                             const char        *label,
                                                             const char        *source);
gboolean            prism_candidate_row_is_external         (PrismCandidateRow *self);
const char         *prism_candidate_row_get_label           (PrismCandidateRow *self);
const char         *prism_candidate_row_get_source          (PrismCandidateRow *self);
char               *prism_candidate_row_dup_name            (PrismCandidateRow *self);
char               *prism_candidate_row_dup_title           (PrismCandidateRow *self);
PrismCandidate     *prism_candidate_row_get_candidate       (PrismCandidateRow *self);
guint               prism_candidate_row_get_id              (PrismCandidateRow *self);
gboolean            prism_candidate_row_get_pinned          (PrismCandidateRow *self);
void                prism_candidate_row_set_pinned          (PrismCandidateRow *self,
                                                             gboolean           pinned);
PrismGraph         *prism_candidate_row_get_graph           (PrismCandidateRow *self);
PrismGraph         *prism_candidate_row_dup_concrete_graph  (PrismCandidateRow *self);
guint               prism_candidate_row_get_kernels         (PrismCandidateRow *self);
gboolean            prism_candidate_row_get_smem_bytes      (PrismCandidateRow *self,
                                                             guint64           *bytes);
double              prism_candidate_row_get_predicted_us    (PrismCandidateRow *self);
double              prism_candidate_row_get_measured_us     (PrismCandidateRow *self);
gboolean            prism_candidate_row_get_measured        (PrismCandidateRow *self);
double              prism_candidate_row_get_time_us         (PrismCandidateRow *self);
double              prism_candidate_row_get_speedup         (PrismCandidateRow *self);
double              prism_candidate_row_get_found_at        (PrismCandidateRow *self);
void                prism_candidate_row_set_announced_at    (PrismCandidateRow *self,
                                                             double             time_s);
double              prism_candidate_row_get_announced_at    (PrismCandidateRow *self);
const char         *prism_candidate_row_get_params          (PrismCandidateRow *self);
PrismVerificationMethod prism_candidate_row_get_method      (PrismCandidateRow *self);
const char         *prism_candidate_row_get_verification    (PrismCandidateRow *self);
const char         *prism_candidate_row_get_verdict         (PrismCandidateRow *self);
void                prism_candidate_row_set_measured        (PrismCandidateRow *self,
                                                             double             measured_us,
                                                             double             speedup);

/* The evidence of the verification, as the verifier recorded it. */
gboolean            prism_candidate_row_get_proved          (PrismCandidateRow *self);
const char * const *prism_candidate_row_get_proof_rules     (PrismCandidateRow *self);
guint               prism_candidate_row_get_proof_length    (PrismCandidateRow *self);
const char         *prism_candidate_row_get_proof_stop      (PrismCandidateRow *self);
double              prism_candidate_row_get_proof_seconds   (PrismCandidateRow *self);
gboolean            prism_candidate_row_get_random_ran      (PrismCandidateRow *self);
gboolean            prism_candidate_row_get_random_ok       (PrismCandidateRow *self);
/* (element-type guint64) (transfer none) */
GArray             *prism_candidate_row_get_seeds           (PrismCandidateRow *self);
double              prism_candidate_row_get_max_error       (PrismCandidateRow *self);
double              prism_candidate_row_get_random_seconds  (PrismCandidateRow *self);
const char         *prism_candidate_row_get_message         (PrismCandidateRow *self);
const char         *prism_candidate_row_get_explanation     (PrismCandidateRow *self);
double              prism_candidate_row_get_tolerance       (PrismCandidateRow *self);
const char         *prism_candidate_row_get_random_sizes    (PrismCandidateRow *self);

G_END_DECLS
