/* prism-recheck.h — re-verifying the candidates a results file holds
 *
 * A results file is input like any other: its candidates are proved again
 * before anything acts on them (export, bench, --resume, the explorer).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "prism-graph.h"
#include "prism-results.h"

G_BEGIN_DECLS

/* Seconds one candidate's proof may take: the search's proofs take
 * milliseconds; a crafted candidate must not hold a command for long. */
#define PRISM_RECHECK_TIME_LIMIT_S 2.0

typedef struct _PrismRecheck PrismRecheck;

/**
 * prism_recheck_new:
 * @program: the program the candidates claim to compute (concrete)
 *
 * Returns: (transfer full) (nullable): a checker, or %NULL with @error when
 *   @program cannot be a reference (symbolic sizes, unsupported ops)
 */
PrismRecheck *prism_recheck_new       (const PrismGraph     *program,
                                       GError              **error);
void          prism_recheck_free      (PrismRecheck         *recheck);

/**
 * prism_recheck_candidate:
 * @candidate: a candidate read from a file
 *
 * Proves the candidate's symbolic graph equivalent to the program with the
 * formal verifier (formal only: milliseconds), and checks that its sizes
 * instantiate it.  Safe to call from several threads at once.
 *
 * Returns: %FALSE with @error (%PRISM_ERROR_INVALID_GRAPH) saying why it is
 *   not equivalent, or %PRISM_ERROR_CANCELLED when the caller's current
 *   #GCancellable was cancelled before it was proved (it is not known); the
 *   caller names the candidate and the file
 */
gboolean      prism_recheck_candidate (PrismRecheck         *recheck,
                                       const PrismCandidate *candidate,
                                       GError              **error);

/**
 * prism_recheck_all:
 * @candidates: (element-type PrismCandidate)
 * @n_threads: threads to prove them on (0: one per processor)
 *
 * The threads share the caller's current #GCancellable: once it is
 * cancelled (a stop), the candidates not proved yet get
 * %PRISM_ERROR_CANCELLED — not checked, which is not "not equivalent".
 *
 * Returns: (transfer full) (element-type GError): for each candidate, %NULL
 *   if it was proved again, else why not
 */
GPtrArray    *prism_recheck_all       (PrismRecheck         *recheck,
                                       GPtrArray            *candidates,
                                       guint                 n_threads);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrismRecheck, prism_recheck_free)

G_END_DECLS
