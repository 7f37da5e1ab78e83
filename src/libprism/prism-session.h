/* prism-session.h — one optimization run on a worker thread, streaming events
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib-object.h>

#include "prism-pipeline.h"

G_BEGIN_DECLS

typedef enum
{
  PRISM_SESSION_IDLE,      /* created, not started */
  PRISM_SESSION_RUNNING,
  PRISM_SESSION_PAUSED,
  PRISM_SESSION_FINISHED,  /* the last batch (with the FINISHED event) was delivered */
} PrismSessionState;

#define PRISM_TYPE_SESSION_STATE (prism_session_state_get_type ())
GType prism_session_state_get_type (void);

/**
 * PrismEventBatch:
 *
 * What one delivery carries: the events since the previous one, in order.
 * Verified, best, finished and error events are never dropped.  Of the
 * sGraph-found and rejected events only the most recent ones are carried
 * (at most PrismSession:max-events each per batch); the others are counted
 * in @hidden_sgraphs and @hidden_rejected.  At most one progress event, the
 * latest, comes last.
 */
typedef struct
{
  GPtrArray *events;        /* PrismEvent */
  guint hidden_sgraphs;
  guint hidden_rejected;
} PrismEventBatch;

#define PRISM_TYPE_SESSION (prism_session_get_type ())
G_DECLARE_FINAL_TYPE (PrismSession, prism_session, PRISM, SESSION, GObject)

/**
 * prism_session_new:
 * @program: the program to optimize (a reference is taken)
 * @options: the run's options (copied)
 *
 * Creates a session bound to the thread-default main context of the caller:
 * every #PrismSession::events emission and every property notification
 * happens there.  Bad options, or a results folder that cannot be resumed,
 * fail here.
 *
 * Returns: (transfer full) (nullable): the session, or %NULL with @error
 */
PrismSession     *prism_session_new            (PrismGraph                 *program,
                                                const PrismPipelineOptions *options,
                                                GError                    **error);

/* Before start: lower the CPU priority of the run's threads (interactive front-ends). */
void              prism_session_set_background (PrismSession  *self,
                                                gboolean       background);
/* Commands (from the creator's thread); they travel to the worker through a queue. */
void              prism_session_start          (PrismSession  *self);
void              prism_session_pause          (PrismSession  *self);
void              prism_session_resume         (PrismSession  *self);
void              prism_session_stop           (PrismSession  *self);
void              prism_session_set_time_limit (PrismSession  *self,
                                                double         seconds);

PrismSessionState prism_session_get_state      (PrismSession  *self);
PrismGraph       *prism_session_get_program    (PrismSession  *self);
/* Thread-safe snapshots. */
void              prism_session_get_stats      (PrismSession  *self,
                                                PrismRunStats *stats);
/* (transfer full) (element-type PrismCandidate) in the search's order */
GPtrArray        *prism_session_get_candidates (PrismSession  *self);
double            prism_session_get_baseline_us (PrismSession *self);
/* NULL without an output folder. */
const char       *prism_session_get_results_path (PrismSession *self);
/* Why the last save of results.json failed, NULL if it did not; once
 * finished, the final save's.  (transfer none) */
const GError     *prism_session_get_save_error  (PrismSession *self);
/* "exhausted", "time limit", "stopped", "error"; NULL until finished. */
const char       *prism_session_get_stop_reason (PrismSession *self);

G_END_DECLS
