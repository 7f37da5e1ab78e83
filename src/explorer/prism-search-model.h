/* prism-search-model.h — what the explorer shows of a running search
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "prism-candidate-row.h"
#include "prism-pipeline.h"

G_BEGIN_DECLS

#define PRISM_TYPE_SEARCH_MODEL (prism_search_model_get_type ())

G_DECLARE_FINAL_TYPE (PrismSearchModel, prism_search_model, PRISM, SEARCH_MODEL, GObject)

/* Defaults of the caps that keep the model's memory bounded however long a
 * search runs; what does not fit is counted, never silently dropped.  The
 * table is a virtualized, sorted list: 20 000 rows (every candidate of the
 * built-in workloads, whose largest search verifies about a thousand) cost
 * a row object each, the candidates themselves are the run's. */
#define PRISM_SEARCH_MODEL_MAX_CANDIDATES 20000
#define PRISM_SEARCH_MODEL_MAX_POINTS     2048

/* The search tree at one depth (steps from the input program). */
typedef struct
{
  guint64 states;                         /* states reached at this depth */
  guint64 pruned[PRISM_N_PRUNE_REASONS];  /* branches cut on the way to it: the engine's
                                           * pruned_by_depth of the depth above */
  guint64 sgraphs;                        /* sGraphs completed at this depth */
  guint64 verified;                       /* candidates of those sGraphs that were verified */
  guint64 rejected;                       /* … and that the verifier rejected */
} PrismSearchDepth;

/* One point of a speedup series. */
typedef struct
{
  double time_s;
  double speedup;
  guint id;          /* the candidate, 0 for an aggregate */
  gboolean measured; /* timed on a GPU rather than predicted */
} PrismSpeedupPoint;

typedef enum
{
  PRISM_SEARCH_STATE_IDLE,
  PRISM_SEARCH_STATE_RUNNING,
  PRISM_SEARCH_STATE_FINISHED,
  PRISM_SEARCH_STATE_FAILED,
} PrismSearchState;

PrismSearchModel       *prism_search_model_new               (void);
void                    prism_search_model_reset             (PrismSearchModel  *self);
void                    prism_search_model_apply_event       (PrismSearchModel  *self,
                                                              const PrismEvent  *event);
void                    prism_search_model_apply_events      (PrismSearchModel  *self,
                                                              PrismEvent * const *events,
                                                              guint              n_events);
gboolean                prism_search_model_add_external      (PrismSearchModel  *self,
                                                              PrismCandidate    *candidate,
                                                              guint              index,
                                                              const char        *label,
                                                              const char        *source);
guint                   prism_search_model_get_n_external    (PrismSearchModel  *self);
void                    prism_search_model_set_measured      (PrismSearchModel  *self,
                                                              const char        *digest,
                                                              double             measured_us,
                                                              double             speedup);
void                    prism_search_model_set_caps          (PrismSearchModel  *self,
                                                              guint              max_candidates,
                                                              guint              max_points);
void                    prism_search_model_flush             (PrismSearchModel  *self);

PrismSearchState        prism_search_model_get_state         (PrismSearchModel  *self);
const char             *prism_search_model_get_stop_reason   (PrismSearchModel  *self);
const char             *prism_search_model_get_error         (PrismSearchModel  *self);
const PrismRunStats    *prism_search_model_get_stats         (PrismSearchModel  *self);
double                  prism_search_model_get_elapsed       (PrismSearchModel  *self);
double                  prism_search_model_get_states_per_second (PrismSearchModel *self);
char                   *prism_search_model_dup_pace          (PrismSearchModel  *self,
                                                              gboolean          *is_rate);
guint                   prism_search_model_get_n_depths      (PrismSearchModel  *self);
const PrismSearchDepth *prism_search_model_get_depth         (PrismSearchModel  *self,
                                                              guint              depth);
gboolean                prism_search_model_get_pruned_by_depth (PrismSearchModel *self);
guint64                 prism_search_model_get_sgraphs       (PrismSearchModel  *self);
guint64                 prism_search_model_get_verified      (PrismSearchModel  *self);
guint64                 prism_search_model_get_rejected      (PrismSearchModel  *self);
GListModel             *prism_search_model_get_candidates    (PrismSearchModel  *self);
guint                   prism_search_model_get_hidden_candidates (PrismSearchModel *self);
PrismCandidateRow      *prism_search_model_get_best          (PrismSearchModel  *self);
double                  prism_search_model_get_best_speedup  (PrismSearchModel  *self);
gboolean                prism_search_model_get_best_measured (PrismSearchModel  *self);
const PrismSpeedupPoint *prism_search_model_get_best_series  (PrismSearchModel  *self,
                                                              guint             *n_points);
const PrismSpeedupPoint *prism_search_model_get_points       (PrismSearchModel  *self,
                                                              guint             *n_points);
guint                   prism_search_model_get_hidden_points (PrismSearchModel  *self);
guint                   prism_search_model_get_run           (PrismSearchModel  *self);
char                   *prism_search_model_get_gpu_status    (PrismSearchModel  *self,
                                                              char             **tooltip);
double                  prism_search_model_get_baseline_measured_us (PrismSearchModel *self);

guint                   prism_search_depth_of_graph          (const PrismGraph  *graph);
GPtrArray              *prism_search_path_of_graph           (const PrismGraph  *graph);
GPtrArray              *prism_search_model_get_pruned_samples (PrismSearchModel *self,
                                                              guint              first_depth,
                                                              guint              last_depth,
                                                              PrismPruneReason   reason);
guint                   prism_search_model_get_hidden_samples (PrismSearchModel *self);

/* What the speedups are against ("vendor", "prism-lowered"); kept across
 * prism_search_model_reset(). */
void        prism_search_model_set_baseline (PrismSearchModel *self,
                                             const char       *kind);
const char *prism_search_model_get_baseline (PrismSearchModel *self);
/* "the unfused program, its matmuls through cuBLASLt" (static, translated) */
const char *prism_search_model_get_baseline_label (PrismSearchModel *self);

G_END_DECLS
