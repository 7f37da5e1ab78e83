/* prism-search.h — depth-first construction of sGraphs
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "prism-graph.h"
#include "prism-oracle.h"
#include "prism-sgraph.h"

G_BEGIN_DECLS

typedef enum
{
  PRISM_SEARCH_SYMBOLIC,    /* grids, loops and maps are symbols (Prism) */
  PRISM_SEARCH_ENUMERATIVE, /* concrete grids, maps and loops enumerated at search time (Mirage) */
} PrismSearchMode;

const char *prism_search_mode_to_string   (PrismSearchMode  mode);
gboolean    prism_search_mode_from_string (const char      *name,
                                           PrismSearchMode *out);

/* Why a branch of the search tree was cut.  Every candidate step that is not
 * taken is counted under exactly one reason. */
typedef enum
{
  PRISM_PRUNE_ORDER,      /* not in canonical order: the same graph is built along another path */
  PRISM_PRUNE_DUPLICATE,  /* an operand repeated where it adds nothing (x+x, x/x, kernel(x,x)) */
  PRISM_PRUNE_SHAPE,      /* shape rule or symbolic dimension matching failed */
  PRISM_PRUNE_LOOP,       /* mixes loop-body and epilogue tensors, or accumulates twice */
  PRISM_PRUNE_EXPR,       /* abstract expression is not a subexpression of the target */
  PRISM_PRUNE_SMEM,       /* shared memory over the limit */
  PRISM_PRUNE_ACCUM,      /* more accumulators than allowed, or two on one tensor */
  PRISM_PRUNE_OPS,        /* op-count limits, or too few ops left to finish the kernel */
  PRISM_PRUNE_TRIVIAL,    /* only copies tiles (a kernel, an output, an accumulated program input) */
  PRISM_PRUNE_TIME,       /* the time budget ran out (or the search was stopped) */
  PRISM_N_PRUNE_REASONS
} PrismPruneReason;

/* "order", "duplicate", "shape", … (stable; used in JSON). */
const char *prism_prune_reason_to_string (PrismPruneReason reason);
/* One translated sentence explaining the reason. */
const char *prism_prune_reason_describe  (PrismPruneReason reason);

#define PRISM_SEARCH_MAX_DEPTH 32

/* The largest search spaces prism_search_new() takes: they bound the depth
 * of the depth-first search (one level per op added, kernel opened or
 * closed, a few frames each). */
#define PRISM_SEARCH_MAX_KERNELS     4
#define PRISM_SEARCH_MAX_KERNEL_OPS  8
#define PRISM_SEARCH_MAX_BLOCK_OPS   16

/**
 * PrismSearchStats:
 *
 * Counters of a search; depth is the number of steps (ops added, kernels
 * opened or closed) from the input program.  Depths past the last are
 * counted in the last.  pruned_by_depth[d][r] counts the branches cut for
 * reason r while extending a state at depth d (so the branch itself would
 * have been at depth d + 1); summed over d it equals pruned[r].
 */
typedef struct
{
  guint64 states;
  guint64 states_by_depth[PRISM_SEARCH_MAX_DEPTH];
  guint64 pruned[PRISM_N_PRUNE_REASONS];
  guint64 pruned_by_depth[PRISM_SEARCH_MAX_DEPTH][PRISM_N_PRUNE_REASONS];
  guint64 sgraphs;
  guint n_tasks;
  guint tasks_done;
  double elapsed_s;
} PrismSearchStats;

guint64 prism_search_stats_total_pruned (const PrismSearchStats *stats);

/* Pruning hook used instead of the oracle (tests); same contract as
 * prism_oracle_check().  Called from several threads at once. */
typedef gboolean (*PrismSearchCheckFunc) (const PrismGraph *kernel_graph,
                                          const PrismGraph *block,
                                          const guint      *block_inputs,
                                          guint             tensor,
                                          gpointer          user_data);

typedef struct
{
  PrismSearchMode mode;
  guint n_threads;          /* 0 = number of processors */
  double time_limit_s;      /* ≤ 0: none */
  guint max_kernel_ops;     /* kernel-level ops (custom kernels included), inputs excluded */
  guint max_kernels;        /* custom kernels */
  guint max_kernel_inputs;  /* inputs of one custom kernel; 0 (the default):
                             * prism_search_auto_kernel_inputs() of the program */
  guint max_block_ops;      /* ops of one block graph, its inputs included, outputs excluded;
                             * 0 (the default): prism_search_auto_block_ops() of the program */
  guint max_total_ops;      /* ops of the whole graph: predefined ops and block ops without inputs;
                             * 0 (the default): prism_search_auto_total_ops() of the program */
  guint max_block_outputs;
  guint max_accums;         /* accumulators per custom kernel */
  guint max_grid_dims;      /* 1 to 3 */
  guint block_threads;
  guint64 smem_limit;       /* bytes of shared memory per block */
  guint max_blocks;         /* thread blocks per kernel */
  guint split_depth;        /* work is split into tasks at this depth (0: 3 symbolic, 1 enumerative) */
  guint min_tasks;          /* 0: split at split_depth; else at the first depth from split_depth
                             * on (at most PRISM_SEARCH_MAX_SPLIT_DEPTH) that gives at least this
                             * many tasks (prism_search_min_tasks_for()); the depth chosen is in
                             * prism_search_get_options() once prism_search_run() started */
  /* Ops tried at each level, in this order; NULL = the defaults. */
  const PrismOpKind *kernel_ops;
  guint n_kernel_ops;
  const PrismOpKind *block_ops;
  guint n_block_ops;
  /* Enumerative mode: candidate grid sizes and loop ranges of a dimension
   * (NULL = prism_search_size_candidates()). */
  void (*size_candidates) (gint64 data_dim, gboolean loop, GArray *out);
  /* Expression-guided pruning (borrowed); with neither, nothing is pruned for it. */
  PrismOracle *oracle;
  PrismSearchCheckFunc check_func;
  gpointer check_data;
} PrismSearchOptions;

/* The deepest split min_tasks may choose: the tasks of a deeper split are
 * too many for their queue and too small to be worth one each. */
#define PRISM_SEARCH_MAX_SPLIT_DEPTH 8

/* The tasks per process a split should give when @n_processes share one
 * search, so that the last tasks (some much longer than others) leave no
 * process idle for long. */
#define PRISM_SEARCH_TASKS_PER_PROCESS 8

/**
 * prism_search_min_tasks_for:
 * @n_processes: the processes sharing one search (MPI ranks)
 *
 * Returns: the min_tasks for them: 0 (the fixed split depth) for one,
 *   else %PRISM_SEARCH_TASKS_PER_PROCESS per process
 */
guint       prism_search_min_tasks_for (guint n_processes);

/* Fills @options with the defaults (symbolic, all processors, 60 s, …). */
void        prism_search_options_init  (PrismSearchOptions *options);

/**
 * prism_search_size_candidates:
 * @data_dim: the extent a size variable divides (the gcd of the dims it splits)
 * @loop: %TRUE for a loop range, %FALSE for a grid size
 * @out: (element-type gint64): receives the candidates, ascending, all > 1
 *
 * The divisor-based candidate values of one size variable, shared by the
 * enumerative search and the parameter instantiation: the divisors of
 * @data_dim (powers of two or not) in a window that leaves tiles neither tiny
 * nor huge, at most %PRISM_SEARCH_MAX_SIZE_CANDIDATES of them (those whose
 * tiles are multiples of 16, 8, 4 … first).
 */
#define PRISM_SEARCH_MAX_SIZE_CANDIDATES 16

void        prism_search_size_candidates (gint64  data_dim,
                                          gboolean loop,
                                          GArray  *out);

/**
 * prism_search_auto_kernel_inputs:
 * @program: the program to optimize
 *
 * The limit on a custom kernel's inputs when none is given (the program's
 * constants are never counted against it): as many as the program has
 * inputs, at least 3 and at most
 * %PRISM_MAX_OP_INPUTS, so that the whole program fits one kernel (Mirage's
 * LoRA graph reads X, W, A and B), while programs of three inputs or fewer
 * keep the limit of 3: their 4th kernel input could only be a tensor that
 * another op computes, and allowing it made rmsnorm_mlp's search 4.2× as
 * long for no faster candidate.
 *
 * Returns: the limit
 */
guint       prism_search_auto_kernel_inputs (const PrismGraph *program);

/**
 * prism_search_auto_block_ops:
 * @program: the program to optimize
 *
 * The limit on a custom kernel's ops (its inputs included) when none is
 * given: 11, or 13 for a program that takes a max, or more where one kernel
 * holding every op of @program before the ops that compute its outputs
 * needs more (the tiles of the inputs those ops read, the ops and the
 * accumulator that writes the kernel's tile out), at most
 * %PRISM_SEARCH_MAX_BLOCK_OPS.  The one-kernel flash attention of a safe
 * softmax reads Q, K, V and 1/√d and holds both matmuls, the scale, the
 * running max (one step), the subtraction, the exp, both online sums and the
 * divide: 13.  Raising the limit for the programs without a max would cost
 * them time for no kernel they need (the online softmax is only in their
 * vocabulary when they take a max).
 *
 * Returns: the limit
 */
guint       prism_search_auto_block_ops (const PrismGraph *program);

/* The ops beyond a program's own that fusing them into one custom kernel
 * adds: the kernel op and the accumulator that writes its tile out. */
#define PRISM_SEARCH_FUSION_HEADROOM 2

/**
 * prism_search_auto_total_ops:
 * @program: the program to optimize
 *
 * The limit on a whole candidate's ops (predefined ops and block ops other
 * than inputs) when none is given: the program's ops (inputs, outputs and
 * constants not counted) plus %PRISM_SEARCH_FUSION_HEADROOM, so that the
 * default always leaves room for the program's own ops in one custom
 * kernel (a LayerNorm written out with sums, 9 ops, needs 11); and at least
 * 9, plus 2 for each program input beyond the third (at most 15).  Each
 * further input is one more operand whose tiles are read and combined — a
 * projection of the same normalised input by a third weight (RMSNorm + Q, K,
 * V: its two-kernel form has 11 ops) or LoRA's adapter.  The time limit
 * (PrismSearchOptions.time_limit_s) keeps the larger spaces bounded.
 *
 * Returns: the limit
 */
guint       prism_search_auto_total_ops (const PrismGraph *program);

typedef struct _PrismSearch PrismSearch;

/* The most ops (all levels: kernel-level ops, custom kernels' block ops)
 * a program to optimize may have.  Candidates have at most
 * PRISM_SEARCH_MAX_KERNEL_OPS kernel-level ops and PRISM_SEARCH_MAX_KERNELS
 * custom kernels of PRISM_SEARCH_MAX_BLOCK_OPS ops, and the reference's e-graphs (the
 * oracle's 100 000 e-nodes, the verifier's 60 000) would be full of the
 * program before any rewrite: bigger programs are refused up front. */
#define PRISM_SEARCH_MAX_PROGRAM_OPS 1024

/* The most elements a tensor of a program to optimize may have: 2^36, a
 * 128 GiB f16 tensor, more than any GPU holds next to anything else.  It
 * keeps every product the cost model and the lowering form (a matmul's
 * M·N·K is at most 2^54) inside 64 bits. */
#define PRISM_SEARCH_MAX_TENSOR_ELEMENTS (G_GINT64_CONSTANT (1) << 36)

/**
 * prism_search_check_program:
 * @program: a program to optimize
 * @error: return location for a #GError
 *
 * Returns: %FALSE with PRISM_ERROR_LIMIT when @program has more than
 *   %PRISM_SEARCH_MAX_PROGRAM_OPS ops or a tensor of more than
 *   %PRISM_SEARCH_MAX_TENSOR_ELEMENTS elements (the message says which)
 */
gboolean     prism_search_check_program (const PrismGraph        *program,
                                        GError                  **error);

/* How many pruned steps a search samples (see PrismPruneSample): the first
 * few of each (depth, reason) bucket, and no more than the global cap. */
#define PRISM_SEARCH_SAMPLES_PER_BUCKET 8
#define PRISM_SEARCH_MAX_SAMPLES        2000

/**
 * PrismPruneSample:
 * @depth: the depth of the state the step would have extended (as in
 *   PrismSearchStats.pruned_by_depth)
 * @reason: why the step was cut (never %PRISM_PRUNE_TIME: a stop names no step)
 * @task: the task that tried it, or G_MAXUINT in the split phase
 * @graph: (transfer full): the partial candidate, a kernel graph: with the
 *   step appended when the builders accept it; a step inside a custom kernel
 *   still being built shows that kernel as the last op, its body as far as
 *   it got (it has no outputs yet: prism_graph_validate() refuses such a
 *   graph, and so does the JSON reader)
 * @marked_op: the op of @graph the step added or, for a block-level step,
 *   the open kernel holding it; -1 when the step could not be built
 * @marked_block_op: for a block-level step, the op of the open kernel's body
 *   the step added, else -1
 * @step: (transfer full): the step tried, e.g. "matmul(t0, t3)" or
 *   "kernel 1: exp(b2)"
 * @evidence: (transfer full): what was wrong, e.g. the abstract expression
 *   that is not a subexpression of the target, or the operand shapes
 *
 * One concrete pruning decision.  Samples are taken only while their bucket
 * has room, so sampling costs a pair of atomic reads per pruned branch.
 */
typedef struct
{
  guint depth;
  PrismPruneReason reason;
  guint task;
  PrismGraph *graph;
  int marked_op;
  int marked_block_op;
  char *step;
  char *evidence;
} PrismPruneSample;

void prism_prune_sample_free (PrismPruneSample *sample);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrismPruneSample, prism_prune_sample_free)

/**
 * PrismSearchObserver:
 * @sgraph_found: a complete sGraph, from the worker thread running @task;
 *   within a task in depth-first order
 * @task_done: every sGraph of @task was delivered (@completed) or the task
 *   was cut short by a stop or the time limit (!@completed)
 * @tick: about 30 times a second, on the thread in prism_search_run()
 * @pruned_sample: (nullable): a sampled pruning decision (transfer full),
 *   from the thread that pruned it; without it nothing is sampled
 * @claim_task: (nullable): whether this search runs @task, asked on the
 *   thread of prism_search_run() (the split phase) once the task is cut and
 *   about to be queued, in task order; it may block (a peer process hands
 *   tasks out).  %FALSE drops the task: it is not run, not counted done and
 *   no task_done() comes for it (another process runs it).  Tasks skipped
 *   with prism_search_skip_task() are not asked about.  Without it every
 *   task runs here.
 */
typedef struct
{
  void (*sgraph_found) (PrismSearch       *search,
                        const PrismSGraph *sgraph,
                        guint              task,
                        gpointer           user_data);
  void (*task_done)    (PrismSearch       *search,
                        guint              task,
                        gboolean           completed,
                        gpointer           user_data);
  void (*tick)         (PrismSearch       *search,
                        gpointer           user_data);
  void (*pruned_sample) (PrismSearch      *search,
                         PrismPruneSample *sample,
                         gpointer          user_data);
  gboolean (*claim_task) (PrismSearch     *search,
                          guint            task,
                          gpointer         user_data);
} PrismSearchObserver;

/**
 * prism_search_new:
 * @program: the input program (a concrete kernel graph; copied)
 * @options: the options (copied; the oracle stays borrowed)
 *
 * Returns: (transfer full) (nullable): a search, or %NULL with @error on bad options
 */
PrismSearch *prism_search_new          (const PrismGraph         *program,
                                        const PrismSearchOptions *options,
                                        GError                  **error);
void         prism_search_free         (PrismSearch              *search);

void         prism_search_set_observer (PrismSearch              *search,
                                        const PrismSearchObserver *observer,
                                        gpointer                  user_data);
/* Marks tasks finished in an earlier run (resume); before prism_search_run(). */
void         prism_search_skip_task    (PrismSearch              *search,
                                        guint                     task);
/* Elapsed time of earlier runs, added to every reported time. */
void         prism_search_set_elapsed_offset (PrismSearch        *search,
                                        double                    seconds);

/**
 * prism_search_run:
 * @search: a search
 *
 * Splits the search tree into tasks at the split depth (the same tasks for
 * any number of threads), runs them on a pool of worker threads and returns
 * when every task is done, the time limit is reached or
 * prism_search_stop() was called — or the calling thread's current
 * #GCancellable is cancelled.  A stop or the time limit also cancels the
 * current cancellable of the worker threads (prism_cancelled()), so that
 * the observer's work on a found sGraph (verification, tuning) ends too;
 * the task is then not completed.  Tasks are numbered in depth-first order,
 * so results sorted by (task, order within the task) come out the same for
 * any number of threads.
 *
 * Returns: %FALSE with @error if the search could not start
 */
gboolean     prism_search_run          (PrismSearch              *search,
                                        GError                  **error);

/* Thread-safe controls. */
void         prism_search_stop         (PrismSearch              *search);
void         prism_search_set_paused   (PrismSearch              *search,
                                        gboolean                  paused);
void         prism_search_set_time_limit (PrismSearch            *search,
                                        double                    seconds);
/* A consistent snapshot of the counters. */
void         prism_search_get_stats    (PrismSearch              *search,
                                        PrismSearchStats         *stats);
/* The counters of the split phase alone (the top of the tree, the same in
 * every process that runs this search): states, pruned and sGraphs; the
 * rest is 0.  Subtracted from prism_search_get_stats() it leaves what the
 * tasks run here counted, which processes sharing one search add up. */
void         prism_search_get_split_stats (PrismSearch           *search,
                                        PrismSearchStats         *stats);
/* Seconds since prism_search_run() started (pauses excluded), plus the offset. */
double       prism_search_get_elapsed  (PrismSearch              *search);
/* "exhausted", "time limit", "stopped" or NULL while running. */
const char  *prism_search_get_stop_reason (PrismSearch           *search);
const PrismSearchOptions *prism_search_get_options (PrismSearch  *search);
/* The program as the search holds it (with the size variables registered). */
const PrismGraph *prism_search_get_program (PrismSearch          *search);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrismSearch, prism_search_free)

G_END_DECLS
