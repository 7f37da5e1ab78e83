/* prism-results.h — verified candidates and the results.json file
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

#include "prism-graph.h"
#include "prism-map-instantiate.h"
#include "prism-param-instantiate.h"
#include "prism-search.h"

G_BEGIN_DECLS

#define PRISM_RESULTS_FORMAT         "prism-results"
#define PRISM_RESULTS_FORMAT_VERSION 1

/* Limits of the reader beyond those of the text (prism-json-reader.h), so
 * that memory stays bounded (docs/format.md, "Limits"). */
#define PRISM_RESULTS_MAX_CANDIDATES      65536
#define PRISM_RESULTS_MAX_CANDIDATE_SIZE  (1024 * 1024)     /* bytes of one candidate's text */
#define PRISM_RESULTS_MAX_HEAD_SIZE       (8 * 1024 * 1024) /* bytes of all but the candidates */
#define PRISM_RESULTS_MAX_TASKS           (1 << 20)
#define PRISM_RESULTS_MAX_ALTERNATIVES    1024

/**
 * PrismMeasurement:
 *
 * One program timed on a GPU by the tuning step (prism-gpu-bench): the
 * median and p20/p80 of its samples, its speedup over the unfused program
 * timed the same way, and its worst error against the CPU interpreter.
 * When the program could not be measured (the GPU check failed, it timed
 * out), @error says why and the times are 0.  Immutable once made.
 */
typedef struct
{
  double median_us;
  double p20_us;
  double p80_us;
  double speedup;          /* measured baseline / median; 0 when the baseline was not measured */
  double max_rel_error;    /* against the interpreter */
  char *gpu;               /* the device's name */
  char *error;             /* (nullable) why it was not measured */
  int rank;                /* the process of the run that timed it (an MPI rank; 0 in one
                            * process), -1 when not known (older files) */
  int device;              /* the CUDA device ordinal it ran on there, -1 when not known */
} PrismMeasurement;

/* (transfer full) copies of @gpu and @error; rank and device -1 */
PrismMeasurement *prism_measurement_new   (const char             *gpu,
                                           const char             *error);
PrismMeasurement *prism_measurement_copy  (const PrismMeasurement *m);
void              prism_measurement_free  (PrismMeasurement       *m);
/* (transfer full) the "measured" object of docs/format.md */
JsonNode         *prism_measurement_to_json   (const PrismMeasurement *m);
/* (transfer full) (nullable): %NULL when @node is not such an object */
PrismMeasurement *prism_measurement_from_json (JsonNode               *node);

/**
 * PrismEquivalentForm:
 *
 * A verified candidate whose canonical form (prism_graph_canonical_form()
 * of the program as it runs) is that of an earlier one: not a candidate of
 * its own, only recorded in the earlier one's @equivalents.
 */
typedef struct
{
  char *digest;           /* its own digest (32 hex digits) */
  guint n_kernels;
  double predicted_us;
  guint task;             /* where the search met it */
  guint seq;
} PrismEquivalentForm;

void prism_equivalent_form_free (PrismEquivalentForm *form);

/**
 * PrismCandidate:
 *
 * One verified candidate: a graph with concrete maps whose grid sizes and
 * loop ranges are variables (as it was proved), the best size assignment
 * the cost model found, and the evidence.  Reference-counted and immutable
 * once published (events and results share it across threads).
 */
typedef struct
{
  /*< private >*/
  gint ref_count;
  /*< public >*/
  guint id;               /* 1, 2, … in the search's deterministic order */
  char *digest;           /* 32 hex digits naming the candidate (its canonical key hashed) */
  PrismGraph *graph;      /* concrete maps, symbolic sizes (owned) */
  guint n_kernels;        /* kernel launches (custom kernels and predefined ops) */
  char *verdict;          /* "equivalent" */
  JsonNode *verification; /* methods, verdicts and evidence (owned) */
  gint64 *values;         /* best assignment, indexed like the graph's variables */
  guint n_values;
  double predicted_us;
  double speedup;         /* over the unfused program, both predicted */
  GPtrArray *alternatives;/* PrismParamAssignment: the next best assignments */
  /* PrismEquivalentForm: later candidates with the same canonical form, by
   * search order; appended by prism_candidate_add_equivalent() (the
   * pipeline, under its lock) while the run goes: read it after the run or
   * from results.json. */
  GPtrArray *equivalents;
  double found_at_s;      /* search time when it was verified */
  guint task;             /* position in the depth-first order: task … */
  guint seq;              /* … and order within the task */
  /* Set once by the tuning step after the search, when a GPU timed the
   * candidate; read it with prism_candidate_get_measurement(). */
  PrismMeasurement *measurement;
  /*< private >*/
  char *json_text;        /* the serialized candidate, made once (results writer) */
  char *executed_digest;  /* prism_candidate_get_executed_digest(), made once */
} PrismCandidate;

PrismCandidate *prism_candidate_new         (void);
PrismCandidate *prism_candidate_ref         (PrismCandidate       *candidate);
void            prism_candidate_unref       (PrismCandidate       *candidate);
/* (transfer full) */
JsonNode       *prism_candidate_to_json     (const PrismCandidate *candidate);
PrismCandidate *prism_candidate_from_json   (JsonNode             *node,
                                             GError              **error);
/* The graph with the best sizes substituted (transfer full). */
PrismGraph     *prism_candidate_instantiate (const PrismCandidate *candidate,
                                             GError              **error);
/* Forgets the cached serialization (after changing id, task or seq). */
void            prism_candidate_invalidate  (PrismCandidate       *candidate);
/* (transfer none) (nullable): the GPU measurement, %NULL until one is set */
const PrismMeasurement *prism_candidate_get_measurement (const PrismCandidate *candidate);
/* Publishes @m (transfer full) once; safe while other threads read the
 * candidate.  Forgets the cached serialization. */
void            prism_candidate_set_measurement (PrismCandidate       *candidate,
                                                 PrismMeasurement     *m);
/* Whether its predicted speedup over the baseline is above 1: only such a
 * candidate can be the best one. */
gboolean        prism_candidate_is_faster   (const PrismCandidate *candidate);
/**
 * prism_candidate_get_executed_digest:
 *
 * Names the program as it runs: prism_graph_canonical_digest() of the
 * graph with the best sizes substituted.  Candidates proved with different
 * symbolic sizes but run with the same ones, or that differ only as the
 * canonical form allows (op order, epilogue grouping, identity
 * accumulators, one-op kernels), share it.  Made on the first call
 * (thread-safe), then cached.
 *
 * Returns: (transfer none): 32 hex digits; the candidate's digest when its
 *   sizes cannot be substituted
 */
const char     *prism_candidate_get_executed_digest (PrismCandidate *candidate);
/**
 * prism_candidate_add_equivalent:
 * @candidate: the candidate kept
 * @form: a later candidate with the same executed digest (borrowed)
 *
 * Records @form in @candidate's equivalents (at most
 * %PRISM_RESULTS_MAX_ALTERNATIVES; the rest are only counted by the caller)
 * and forgets the cached serialization.  Not thread-safe.
 *
 * Returns: whether it was recorded
 */
gboolean        prism_candidate_add_equivalent (PrismCandidate       *candidate,
                                                const PrismCandidate *form);
/* How many different executed digests @candidates (element-type PrismCandidate) have. */
guint64         prism_candidates_count_distinct (GPtrArray       *candidates);
/* How many of @candidates are faster than the baseline. */
guint64         prism_candidates_count_faster (GPtrArray         *candidates);
/* "gx0=128, F0=16" (transfer full) */
char           *prism_candidate_params_to_string (const PrismCandidate *candidate);

/**
 * PrismRunStats:
 *
 * Every counter of one optimization run: the search's and those of the
 * stages after it.
 */
typedef struct
{
  PrismSearchStats search;
  PrismMapStats maps;
  PrismParamStats params;
  guint64 sgraphs_rejected;/* sGraphs whose untiled program differs from the input (screen) */
  guint64 map_candidates;  /* distinct candidates with concrete maps */
  guint64 duplicates;      /* candidates met again (another sGraph or task) */
  guint64 no_sizes;        /* no valid size assignment on the target */
  guint64 screened_out;    /* differed from the program at small shapes */
  guint64 verified;
  guint64 rejected;        /* the verifier found them different */
  guint64 unknown;         /* neither proved nor refuted, of which … */
  guint64 unknown_unproved;/* … the proof stopped (a limit, no rewrite left) and nothing refuted it */
  guint64 unknown_untested;/* … proved, but the randomized test could not run (the rest: the
                            * verifier failed or the run stopped) */
  guint64 verifier_bugs;   /* proved, but the randomized test disagreed */
  guint64 equivalent;      /* verified, but the canonical form of an earlier candidate:
                            * recorded in its equivalents, not a candidate */
  /* Of the candidates kept (set from them by whoever holds them, not added
   * by prism_run_stats_add()): */
  guint64 faster;          /* predicted faster than the baseline (prism_candidate_is_faster()) */
  guint64 distinct;        /* different programs as executed (prism_candidates_count_distinct()) */
  double setup_s;          /* building the oracle and the verifier (in search.elapsed_s) */
  double time_to_best_s;   /* when the current best was verified, -1 if none */
  /* Gauges, not counters: candidates whose decision (sizes, screen, proof)
   * is under way at the snapshot, and sGraphs whose candidates are being
   * made (maps, ranking, then those decisions).  While every worker is busy
   * with one, no state is explored, and these say why.  Neither added by
   * prism_run_stats_add() nor saved. */
  guint64 deciding;
  guint64 instantiating;
} PrismRunStats;

/* (transfer full) an object with every counter; pruned reasons by name. */
JsonNode       *prism_run_stats_to_json     (const PrismRunStats  *stats);
/* Reads what prism_run_stats_to_json() wrote (missing members stay 0). */
void            prism_run_stats_from_json   (JsonObject           *object,
                                             PrismRunStats        *stats);
/* stats += more (counters add; elapsed adds; time to best is kept from @more if set) */
void            prism_run_stats_add         (PrismRunStats        *stats,
                                             const PrismRunStats  *more);

typedef struct _PrismResults PrismResults;

/**
 * prism_results_new:
 * @program: the input program (a reference is taken)
 * @source: (nullable): where it came from ("rms_norm", a file name)
 * @mode: "symbolic" or "enumerative"
 * @target: a GPU target name
 * @fingerprint: names the search configuration (for --resume)
 *
 * Not thread-safe: one owner (the pipeline serializes access).
 */
PrismResults   *prism_results_new           (PrismGraph           *program,
                                             const char           *source,
                                             const char           *mode,
                                             const char           *target,
                                             const char           *fingerprint);
void            prism_results_free          (PrismResults         *results);

/* Stored as-is under "options" (a reference is taken). */
void            prism_results_set_options   (PrismResults         *results,
                                             JsonNode             *options);
/**
 * prism_results_set_baseline:
 * @kind: what speedups are against: "vendor" (the unfused program with its
 *   matmuls through cuBLASLt) or "prism-lowered" (every op through our own
 *   lowering)
 *
 * The predicted time and launches of the unfused program as @kind runs it.
 */
void            prism_results_set_baseline  (PrismResults         *results,
                                             const char           *kind,
                                             double                predicted_us,
                                             guint                 launches);
/* The other baseline's prediction, kept beside it for reference. */
void            prism_results_set_baseline_alternative (PrismResults *results,
                                                        const char   *kind,
                                                        double        predicted_us,
                                                        guint         launches);
/* "vendor", "prism-lowered", or "unknown" for files that predate the field. */
const char     *prism_results_get_baseline_kind (PrismResults     *results);
/**
 * prism_results_set_baseline_measurement:
 * @m: (nullable): the unfused program timed on the GPU (copied; %NULL forgets it)
 * @kind: (nullable): how it ran: the baseline's kind, or "prism-lowered"
 *   when the vendor library was missing (@m->error then says nothing; the
 *   reason is @note)
 * @note: (nullable): why the measured kind differs from the baseline's
 */
void            prism_results_set_baseline_measurement (PrismResults           *results,
                                                        const PrismMeasurement *m,
                                                        const char             *kind,
                                                        const char             *note);
/* (nullable) the measured baseline's kind and note, as set or read back */
const char     *prism_results_get_baseline_measured_kind (PrismResults *results);
const char     *prism_results_get_baseline_measured_note (PrismResults *results);
/* (transfer none) (nullable) */
const PrismMeasurement *prism_results_get_baseline_measurement (PrismResults *results);
/**
 * prism_results_set_tuning:
 * @gpu: (nullable): the device the candidates were timed on, %NULL if none
 * @message: (nullable): why nothing was timed (no GPU, tuning off)
 *
 * Stored under "tuning": whether speedups are measured or predicted.
 */
void            prism_results_set_tuning    (PrismResults         *results,
                                             const char           *gpu,
                                             const char           *message,
                                             guint                 top);
/* (nullable) as set, or read back */
const char     *prism_results_get_tuning_gpu (PrismResults        *results);
const char     *prism_results_get_tuning_message (PrismResults    *results);
void            prism_results_add_candidate (PrismResults         *results,
                                             PrismCandidate       *candidate);
/* Forgets @candidate (its reference is dropped). */
void            prism_results_remove_candidate (PrismResults      *results,
                                                PrismCandidate    *candidate);
void            prism_results_set_stats     (PrismResults         *results,
                                             const PrismRunStats  *stats);
/* Written as "stats.ranks" (copied; %NULL: none): what each process of an
 * MPI run did (docs/format.md).  Not read back: a resumed run writes its own. */
void            prism_results_set_ranks     (PrismResults         *results,
                                             JsonNode             *ranks);
/**
 * prism_results_set_progress:
 * @done: (element-type guint): indices of finished tasks, any order
 * @stop_reason: (nullable): %NULL while running
 */
void            prism_results_set_progress  (PrismResults         *results,
                                             guint                 n_tasks,
                                             GArray               *done,
                                             const char           *stop_reason);
/* Sorts the candidates by their position in the search order; their ids stay. */
void            prism_results_sort          (PrismResults         *results);

/* Writes atomically (a temporary file named after the process, renamed
 * over @path; prism_atomic_file_write()), creating the folder. */
gboolean        prism_results_save          (PrismResults         *results,
                                             const char           *path,
                                             GError              **error);
/* (transfer full) the document's root */
JsonNode       *prism_results_to_json       (PrismResults         *results);
/**
 * prism_results_load:
 *
 * Reads a results file that trusts nothing: a regular file of at most
 * %PRISM_JSON_RESULTS_MAX_SIZE bytes, strict JSON (prism_json_check_text()),
 * every field checked, the candidates parsed one at a time.  Error messages
 * start with @path.  The candidates are not re-verified: callers that act on
 * one do that (prism-recheck.h).
 *
 * Returns: (transfer full) (nullable): the results
 */
PrismResults   *prism_results_load          (const char           *path,
                                             GError              **error);

/* The same for text in memory (a fuzzing entry point); messages without a
 * file name.  (transfer full) (nullable) */
PrismResults   *prism_results_load_from_data (const char          *data,
                                              gsize                length,
                                              GError             **error);

/**
 * PrismCandidateSummary:
 *
 * What prism_results_load_selected() tells its select function about each
 * candidate of the file: its position, id, digest and predicted speedup.
 */
typedef struct
{
  guint index;
  guint id;
  const char *digest;
  double speedup;
} PrismCandidateSummary;

/* Sets @keep[i] for the candidates to keep, of the @n in the file. */
typedef void (*PrismResultsSelectFunc) (const PrismCandidateSummary *candidates,
                                        guint                        n,
                                        gboolean                    *keep,
                                        gpointer                     user_data);

/* prism_results_load() that reads only the id, digest and speedup of each
 * candidate (checked), and then in full only the candidates @select picks,
 * so that a large file costs the time and memory of the few a command acts
 * on. */
PrismResults   *prism_results_load_selected (const char            *path,
                                             PrismResultsSelectFunc select,
                                             gpointer               user_data,
                                             GError               **error);
/* Candidates the file had, kept or not. */
guint           prism_results_get_n_candidates_in_file (PrismResults *results);

PrismGraph     *prism_results_get_program   (PrismResults         *results);
const char     *prism_results_get_source    (PrismResults         *results);
const char     *prism_results_get_mode      (PrismResults         *results);
const char     *prism_results_get_target    (PrismResults         *results);
const char     *prism_results_get_fingerprint (PrismResults       *results);
/* (element-type PrismCandidate) (transfer none) */
GPtrArray      *prism_results_get_candidates (PrismResults        *results);
const PrismRunStats *prism_results_get_stats (PrismResults        *results);
double          prism_results_get_baseline_us (PrismResults       *results);
/* (element-type guint) (transfer none) finished tasks, ascending */
GArray         *prism_results_get_done_tasks (PrismResults        *results);
/* NULL while the run was still going (or killed). */
const char     *prism_results_get_stop_reason (PrismResults       *results);
/* The candidate with the highest speedup if it is faster than the
 * baseline (prism_candidate_is_faster()), or NULL. */
PrismCandidate *prism_results_get_best      (PrismResults         *results);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrismCandidate, prism_candidate_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrismMeasurement, prism_measurement_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrismResults, prism_results_free)

G_END_DECLS
