/* prism-pipeline.h — one optimization run: search → maps → verify → tune
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

#include "prism-cost-model.h"
#include "prism-gpu-target.h"
#include "prism-graph.h"
#include "prism-results.h"
#include "prism-search.h"
#include "prism-verifier.h"

G_BEGIN_DECLS

typedef enum
{
  PRISM_EVENT_PROGRESS,  /* counters: stats */
  PRISM_EVENT_SGRAPH,    /* the search completed an sGraph: graph */
  PRISM_EVENT_VERIFIED,  /* a candidate was proved equivalent: candidate */
  PRISM_EVENT_REJECTED,  /* a candidate was not: graph, digest, message, evidence */
  PRISM_EVENT_BEST,      /* a new best candidate: candidate */
  PRISM_EVENT_FINISHED,  /* the run ended: stats, message = stop reason */
  PRISM_EVENT_ERROR,     /* the run could not go on: message */
  PRISM_EVENT_TUNING,    /* after the search: message = the GPU, or why speedups stay
                          * predicted; tune_count = programs to time (0: none) */
  PRISM_EVENT_MEASURED,  /* one program timed on the GPU: measurement, candidate (NULL for
                          * the unfused program), tune_index of tune_count */
  PRISM_EVENT_PRUNED_SAMPLE, /* a sampled pruning decision of the search: sample */
} PrismEventKind;

/* "progress", "sgraph", "verified", "rejected", "best", "finished", "error",
 * "tuning", "measured", "pruned_sample" */
const char *prism_event_kind_to_string (PrismEventKind kind);

/* What a TUNING event says about timing on the GPU. */
typedef enum
{
  PRISM_TUNE_MEASURING,  /* timing tune_count programs on the GPU named by message */
  PRISM_TUNE_DONE,       /* tune_index of tune_count programs were timed (fewer: stopped) */
  PRISM_TUNE_NO_GPU,     /* no usable GPU (message says what is missing): predicted only */
  PRISM_TUNE_OFF,        /* tune_top is 0 */
  PRISM_TUNE_STOPPED,    /* the run was stopped before tuning */
  PRISM_TUNE_NOTHING,    /* a GPU, but no candidate to time */
} PrismTuneStatus;

/* "measuring", "done", "no_gpu", "off", "stopped", "nothing" */
const char *prism_tune_status_to_string (PrismTuneStatus status);

/**
 * PrismEvent:
 *
 * One thing that happened in a run.  Reference-counted, immutable once
 * emitted; which fields are set depends on @kind.
 */
typedef struct
{
  /*< private >*/
  gint ref_count;
  /*< public >*/
  PrismEventKind kind;
  double time_s;              /* run time when it happened */
  PrismRunStats stats;        /* PROGRESS, FINISHED */
  PrismCandidate *candidate;  /* VERIFIED, BEST */
  PrismGraph *graph;          /* SGRAPH, REJECTED */
  char *digest;               /* REJECTED */
  char *message;              /* REJECTED: why; FINISHED: stop reason; ERROR; MEASURED of the
                               * unfused program: the baseline kind it ran as */
  JsonNode *evidence;         /* REJECTED: the verdict or the screen's result */
  guint task;                 /* SGRAPH, VERIFIED, REJECTED */
  PrismMeasurement *measurement; /* MEASURED (owned) */
  PrismTuneStatus tune_status; /* TUNING */
  guint tune_index;           /* MEASURED: 1 … tune_count (the baseline is 1) */
  guint tune_count;           /* TUNING, MEASURED: the unfused program and the candidates */
  guint id;                   /* VERIFIED, BEST, MEASURED: the candidate's id, given once when
                               * it is published and never changed */
  PrismPruneSample *sample;   /* PRUNED_SAMPLE (owned) */
} PrismEvent;

PrismEvent *prism_event_new     (PrismEventKind    kind);
PrismEvent *prism_event_ref     (PrismEvent       *event);
void        prism_event_unref   (PrismEvent       *event);
/* One JSON object per event, as `prism search --json` prints them (transfer full). */
JsonNode   *prism_event_to_json (const PrismEvent *event);

/**
 * PrismVerifyFunc:
 *
 * Replaces the formal verifier (tests).  Returns the verdict and fills
 * @evidence (transfer full) and @message (transfer full, nullable).
 * Called from several threads at once.
 */
typedef PrismVerdictKind (*PrismVerifyFunc) (const PrismGraph *candidate,
                                             JsonNode        **evidence,
                                             char            **message,
                                             gpointer          user_data);

typedef struct _PrismPipeline PrismPipeline;

/* How a pipeline shares one search with other processes (an MPI run,
 * src/cli/prism-mpi-run.c).  Every process runs the same split phase; each
 * task runs in one of them. */
typedef enum
{
  PRISM_PIPELINE_ALONE,   /* one process: runs every task, publishes and saves */
  PRISM_PIPELINE_GATHER,  /* the first of several: hands tasks out (prism_pipeline_claim()),
                           * publishes its own candidates and those the others report
                           * (prism_pipeline_merge_task()) in the one-process order, and alone
                           * writes results.json */
  PRISM_PIPELINE_REPORT,  /* one of the others: runs the tasks it is given, publishes and saves
                           * nothing, and reports each task's verified candidates (task_finished) */
} PrismPipelineRole;

/**
 * PrismTaskFind:
 * @candidate: a verified candidate as the reporting process decided it
 * @seq: where in the task it was met (the task's own order of candidates)
 *
 * One meeting of a verified candidate in a task.  A task that meets a
 * candidate decided in another task (or on another process) lists it too:
 * the one who gathers keeps the earliest place.
 */
typedef struct
{
  PrismCandidate *candidate;
  guint seq;
} PrismTaskFind;

void prism_task_find_free (PrismTaskFind *find);

/**
 * PrismPipelinePeers:
 * @role: what this process does
 * @claim_task: REPORT: asks the gathering process for a task to run, the
 *   first at or after @from that nobody has; returns it, or G_MAXUINT for
 *   none (stopped).  GATHER: the same for this process (nullable: then
 *   prism_pipeline_claim() at once).  Called on the split phase's thread;
 *   may block.
 * @task_finished: REPORT: every candidate @task met is decided; @finds
 *   (element-type PrismTaskFind) are the verified ones (borrowed).  Called
 *   on the search worker that ran the task, also for a task cut short
 *   (!@completed): what it decided is kept, the task runs again on resume.
 * @wait_peers: after this process's search ended: waits up to @timeout_ms
 *   for the others to end (GATHER: every one has reported all its tasks;
 *   REPORT: the gathering process says the run is over) and returns whether
 *   they have.  The pipeline calls it again (emitting progress) until then.
 * @stop: (nullable): prism_pipeline_stop() was called: tell the others.
 * @started: (nullable): the setup is done and the search is about to start
 *   (on the thread of prism_pipeline_run()); the pipeline may be called
 *   from now on
 * @rank: this process's number (0 for GATHER), recorded with each timing
 * @size: how many processes share the search
 * @tune_begin: (nullable) GATHER: the timings on the GPU start (after every
 *   process's search ended): tell the others, which answer with
 *   prism_pipeline_tune_ready(), then ask prism_pipeline_tune_claim() and
 *   hand back prism_pipeline_tune_merge().  %NULL: this process times
 *   every program itself, the others none
 * @tune_ready: (nullable) REPORT: after wait_peers: whether the gathering
 *   process started the timings (%FALSE: the run is over); if so, tells it
 *   the GPU this process has (@device, a description) or why it has none
 *   (@device %NULL, @why)
 * @tune_next: (nullable) REPORT: the next program to time (transfer full:
 *   a job as prism_pipeline_tune_claim() made it), blocking until the
 *   gathering process gives one; %NULL when there is no more (or the run
 *   stopped)
 * @tune_result: (nullable) REPORT: the timing of the last job (borrowed),
 *   for prism_pipeline_tune_merge() there
 * @user_data: for the callbacks
 *
 * Borrowed by the options: it must outlive the pipeline.
 */
typedef struct
{
  PrismPipelineRole role;
  guint    (*claim_task)    (PrismPipeline *pipeline,
                             guint          from,
                             gpointer       user_data);
  void     (*task_finished) (PrismPipeline *pipeline,
                             guint          task,
                             gboolean       completed,
                             GPtrArray     *finds,
                             gpointer       user_data);
  gboolean (*wait_peers)    (PrismPipeline *pipeline,
                             guint          timeout_ms,
                             gpointer       user_data);
  void     (*stop)          (PrismPipeline *pipeline,
                             gpointer       user_data);
  void     (*started)       (PrismPipeline *pipeline,
                             gpointer       user_data);
  guint    rank;
  guint    size;
  void     (*tune_begin)    (PrismPipeline *pipeline,
                             gpointer       user_data);
  gboolean (*tune_ready)    (PrismPipeline *pipeline,
                             const char    *device,
                             const char    *why,
                             gpointer       user_data);
  JsonNode *(*tune_next)    (PrismPipeline *pipeline,
                             gpointer       user_data);
  void     (*tune_result)   (PrismPipeline *pipeline,
                             JsonNode      *result,
                             gpointer       user_data);
  gpointer user_data;
} PrismPipelinePeers;

typedef struct
{
  PrismSearchOptions search;      /* oracle / check_func are set by the pipeline unless given */
  const char *target;             /* GPU table name; NULL = h100 */
  guint64 seed;                   /* randomized checks */
  guint random_seeds;             /* input sets per randomized check (default 2) */
  const char *out_dir;            /* results.json goes there; NULL = nowhere */
  gboolean resume;                /* continue from out_dir/results.json */
  gboolean overwrite;             /* a results.json of another program may be replaced */
  const char *source;             /* shown in results: a workload name or a file */
  guint64 max_map_combinations;   /* per enumerative sGraph (default 4096) */
  guint max_variants;             /* map choices decided per symbolic sGraph, best predicted first (default 4) */
  double verifier_time_limit_s;   /* per candidate (default 10) */
  gboolean full_random;           /* also the verifier's randomized test at the real shapes
                                   * (seconds per candidate on the CPU); by default the
                                   * screen at small shapes is the randomized test */
  PrismVerifyFunc verify_func;    /* NULL = prism_verifier_check() */
  gpointer verify_data;
  guint tune_top;                 /* after the search, time this many of the best predicted
                                   * candidates (and the unfused program) when a GPU is
                                   * present (default 5; 0 = never) */
  const char *gpu_worker;         /* prism-gpu-worker; NULL = $PRISM_GPU_WORKER, next to the
                                   * program, then $PATH */
  guint tune_timeout_s;           /* per program on the GPU (default 60) */
  int tune_device;                /* CUDA device ordinal the timings run on (default 0) */
  double tune_min_time_ms;        /* samples per program (default 100 ms) */
  PrismBaselineKind baseline;     /* what speedups are against (default vendor) */
  const PrismPipelinePeers *peers; /* NULL = one process (borrowed); a REPORT pipeline
                                   * ignores out_dir and resume, and tunes nothing */
} PrismPipelineOptions;

void prism_pipeline_options_init (PrismPipelineOptions *options);

/* Called from any thread of the run; the event is borrowed (ref it to keep it). */
typedef void (*PrismEventFunc) (PrismEvent *event,
                                gpointer    user_data);
/* Called about 30 times a second on the thread in prism_pipeline_run(). */
typedef void (*PrismTickFunc)  (gpointer    user_data);

/**
 * prism_pipeline_new:
 * @program: the program to optimize (concrete; a reference is taken)
 * @options: the options (copied)
 *
 * Checks the options and, with @resume, loads out_dir/results.json and
 * checks that it comes from the same program and configuration.  The heavy
 * work (oracle, verifier, search) happens in prism_pipeline_run().
 *
 * Returns: (transfer full) (nullable): the pipeline, or %NULL with @error
 *   (PRISM_ERROR_FAILED for bad options, PRISM_ERROR_PARSE for a bad
 *   results file)
 */
PrismPipeline *prism_pipeline_new          (PrismGraph                 *program,
                                            const PrismPipelineOptions *options,
                                            GError                    **error);
void           prism_pipeline_free         (PrismPipeline              *pipeline);
void           prism_pipeline_set_handlers (PrismPipeline              *pipeline,
                                            PrismEventFunc              on_event,
                                            PrismTickFunc               on_tick,
                                            gpointer                    user_data);

/**
 * prism_pipeline_run:
 * @pipeline: a pipeline
 *
 * Builds the oracle and the verifier, predicts the unfused program, runs the
 * search and, for every sGraph it finds (on the search's worker threads):
 * instantiates maps, drops candidates already seen, chooses sizes (a
 * candidate with no valid size on the target is dropped), screens at small
 * shapes, proves with the verifier and tunes.  Each verified candidate is
 * added to the results and written at once (atomically).  Then, unless the
 * run was stopped, when tune_top > 0 and a GPU is usable, times the unfused
 * program and the tune_top best candidates by predicted speedup on it (a
 * TUNING event, one MEASURED event per program, TUNING done; a program that
 * fails the GPU check or times out is recorded as such).  Without a GPU it
 * emits one TUNING event saying so and nothing is timed.  Emits a FINISHED
 * event last.
 *
 * Returns: %FALSE with @error if the run could not start
 */
gboolean       prism_pipeline_run          (PrismPipeline              *pipeline,
                                            GError                    **error);

/* Thread-safe controls (no-ops before the search starts).  A stop also
 * ends the tuning on the GPU, and a pause holds it, between two programs. */
void           prism_pipeline_stop         (PrismPipeline              *pipeline);
void           prism_pipeline_set_paused   (PrismPipeline              *pipeline,
                                            gboolean                    paused);
void           prism_pipeline_set_time_limit (PrismPipeline            *pipeline,
                                            double                      seconds);

/* Thread-safe snapshots. */
void           prism_pipeline_get_stats    (PrismPipeline              *pipeline,
                                            PrismRunStats              *stats);
/* (transfer full) (element-type PrismCandidate): in the search's order */
GPtrArray     *prism_pipeline_get_candidates (PrismPipeline            *pipeline);
double         prism_pipeline_get_baseline_us (PrismPipeline           *pipeline);
/* NULL without an output folder. */
const char    *prism_pipeline_get_results_path (PrismPipeline          *pipeline);
/* Why the last save of results.json failed, %NULL if it did not (or none
 * was made): after prism_pipeline_run(), the final save.  (transfer none) */
const GError  *prism_pipeline_get_save_error   (PrismPipeline          *pipeline);
/* Valid after prism_pipeline_run(). */
const char    *prism_pipeline_get_stop_reason (PrismPipeline           *pipeline);

/* Sharing one search with other processes (PrismPipelinePeers).  All
 * thread-safe; the GATHER ones are for the process that gathers, @peer
 * numbering the others from 1. */

/* GATHER: the first task at or after @from that is neither finished nor
 * handed out, now handed out (to @peer; 0 = this process). */
guint          prism_pipeline_claim        (PrismPipeline              *pipeline,
                                            guint                       peer,
                                            guint                       from);
/**
 * prism_pipeline_merge_task:
 * @finds: (element-type PrismTaskFind): the verified candidates @task met
 *   on @peer (borrowed; the candidates are referenced, their id, task and
 *   seq set here)
 *
 * GATHER: takes what @peer decided in @task as if it had been found here:
 * each candidate goes into the publication order at its earliest place
 * (the same as in one process), and a @completed task counts as finished.
 */
void           prism_pipeline_merge_task   (PrismPipeline              *pipeline,
                                            guint                       peer,
                                            guint                       task,
                                            gboolean                    completed,
                                            GPtrArray                  *finds);
/* GATHER: @peer's counters (prism_pipeline_get_task_stats() there), added
 * into this pipeline's; the last one given counts. */
void           prism_pipeline_set_peer_stats (PrismPipeline            *pipeline,
                                            guint                       peer,
                                            const PrismRunStats        *stats);
/* GATHER: @peer's search ended with @stop_reason: a run is complete only
 * if every process exhausted its tasks. */
void           prism_pipeline_peer_ended   (PrismPipeline              *pipeline,
                                            guint                       peer,
                                            const char                 *stop_reason);
/* GATHER: stored as results.json "stats.ranks" (transfer full; NULL forgets it). */
void           prism_pipeline_set_ranks    (PrismPipeline              *pipeline,
                                            JsonNode                   *ranks);
/* Timing on the GPU across processes (PrismPipelinePeers.tune_begin).
 * GATHER, thread-safe, @peer numbering the others from 1. */

/* @peer has a usable GPU (@device, a description) or not (@device %NULL,
 * @why); a lost peer (@device and @why %NULL, @lost) gives its program
 * back to the others. */
void           prism_pipeline_tune_ready   (PrismPipeline              *pipeline,
                                            guint                       peer,
                                            const char                 *device,
                                            const char                 *why,
                                            gboolean                    lost);
/**
 * prism_pipeline_tune_claim:
 * @later: (out): %TRUE when the answer is "not now": ask again in a while
 *
 * GATHER: the next program @peer times (docs/architecture.md, "MPI": the
 * unfused program first and alone, then the candidates by predicted
 * speedup, each peer one at a time).
 *
 * Returns: (transfer full) (nullable): the job, for the peer's
 *   PrismPipelinePeers.tune_next; %NULL: none (now, if @later)
 */
JsonNode      *prism_pipeline_tune_claim   (PrismPipeline              *pipeline,
                                            guint                       peer,
                                            gboolean                   *later);
/* GATHER: @peer's timing of its job (transfer full), recorded as if timed here. */
void           prism_pipeline_tune_merge   (PrismPipeline              *pipeline,
                                            guint                       peer,
                                            JsonNode                   *result);
/* The counters of this process alone in this run: its decisions and the
 * states of the tasks it ran (without the split phase, which every process
 * runs): what the gathering process adds up. */
void           prism_pipeline_get_task_stats (PrismPipeline            *pipeline,
                                            PrismRunStats              *stats);
/* Of this run on this process: tasks finished here, verified candidates
 * decided here (not counting those met again). */
void           prism_pipeline_get_own_counts (PrismPipeline            *pipeline,
                                            guint64                    *tasks,
                                            guint64                    *candidates);
/* Why this process's search ended ("exhausted", …), NULL while it runs. */
const char    *prism_pipeline_get_search_stop_reason (PrismPipeline    *pipeline);
/* Valid after prism_pipeline_new(): the program and the whole configuration
 * as results.json names it (processes sharing a search must agree on it). */
const char    *prism_pipeline_get_fingerprint (PrismPipeline           *pipeline);
/* The fingerprint and the options that decide verdicts and timings but
 * not the tasks (seed, randomized checks, baseline, tuning): what the
 * processes sharing one run compare. */
const char    *prism_pipeline_get_peer_fingerprint (PrismPipeline      *pipeline);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrismEvent, prism_event_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrismPipeline, prism_pipeline_free)

G_END_DECLS
