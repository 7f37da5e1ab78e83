/* prism-runner.h — equality saturation with limits and an exact stop reason
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "prism-egraph.h"
#include "prism-rewrite.h"

G_BEGIN_DECLS

/* Why prism_runner_run() stopped.  Exactly one holds:
 * SATURATED: an iteration changed nothing (no new e-node, no merge) and no
 *   rule was banned by the scheduler, so every rule's every match is already
 *   true in the e-graph;
 * ITERATION_LIMIT: max_iterations iterations ran and the last one changed
 *   something;
 * NODE_LIMIT: the number of e-nodes exceeded max_nodes (checked after every
 *   rule application and before every iteration);
 * TIME_LIMIT: time_limit_s passed (checked while searching and applying);
 * STOPPED: the calling thread's current #GCancellable was cancelled
 *   (prism_cancelled(), checked where the time is). */
typedef enum
{
  PRISM_STOP_SATURATED,
  PRISM_STOP_ITERATION_LIMIT,
  PRISM_STOP_NODE_LIMIT,
  PRISM_STOP_TIME_LIMIT,
  PRISM_STOP_STOPPED,
} PrismStopReason;

/* Returns: (transfer none): "saturated", "iteration limit", "node limit", "time limit" or
 * "stopped" */
const char *prism_stop_reason_to_string (PrismStopReason reason);

typedef struct
{
  guint max_iterations;  /* default 30; 0 = no limit */
  /* Counts distinct e-nodes (prism_egraph_get_n_nodes()).  An explaining
   * e-graph also keeps the exact instances of both sides of every applied
   * match as duplicate e-nodes, which this limit does not count. */
  guint max_nodes;       /* default 100000; 0 = no limit */
  double time_limit_s;   /* default 10; <= 0 = no limit */
  /* Backoff scheduler (egg's BackoffScheduler): a rule finding more than
   * match_limit << n matches in one iteration, after having been banned n
   * times, has those matches dropped and is banned for ban_length << n
   * iterations.  0 (the default) disables it: every match is applied. */
  guint match_limit;
  guint ban_length;      /* default 5 */
} PrismRunnerOptions;

void        prism_runner_options_init   (PrismRunnerOptions *options);

typedef struct
{
  PrismStopReason stop_reason;
  guint iterations;      /* iterations started, the interrupted one included */
  guint n_nodes;         /* prism_egraph_get_n_nodes() at the end */
  guint n_classes;
  guint64 n_applied;     /* rule applications that merged two classes */
  guint64 n_matches;     /* matches found (conditions passed), over all iterations */
  double seconds;
} PrismRunReport;

/**
 * prism_runner_run:
 * @egraph: the e-graph to saturate (terms already added)
 * @rules: the rules; every direction of every rule is tried each iteration
 * @options: (nullable): limits; %NULL for the defaults
 * @report: (out caller-allocates) (optional): what happened
 *
 * Runs iterations of: search every rule on the clean e-graph (collecting all
 * matches first, in rule order), apply them all, rebuild — until a stop
 * reason holds.  The e-graph is clean (rebuilt) on return even when a limit
 * interrupted an iteration.  Deterministic apart from where a time limit
 * falls: same e-graph, rules and options give the same e-graph.
 *
 * Returns: the stop reason
 */
PrismStopReason prism_runner_run        (PrismEgraph              *egraph,
                                         const PrismRuleSet       *rules,
                                         const PrismRunnerOptions *options,
                                         PrismRunReport           *report);

G_END_DECLS
