/* prism-formal-verifier.h — equivalence proofs by equality saturation
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "prism-graph.h"

G_BEGIN_DECLS

typedef struct
{
  guint max_nodes;         /* e-nodes (default 60000) */
  guint max_iterations;    /* default 40 */
  double time_limit_s;     /* default 10 */
  /* Testing only: rule text added to the built-in rules (it may be unsound;
   * the verdict's VERIFIER_BUG path is tested with it). */
  const char *extra_rules;
  /* Tests: after the run, check that every e-class is consistently typed
   * (prism_par_typer_audit()); a failure makes the result an error. */
  gboolean audit;
  /* Keep the proof's text in the result (it can be long). */
  gboolean keep_explanation;
} PrismFormalOptions;

void prism_formal_options_init (PrismFormalOptions *options);

/**
 * PrismFormalResult:
 *
 * What one proof attempt did.  Owns its fields; clear it with
 * prism_formal_result_clear().
 */
typedef struct
{
  gboolean proved;
  const char *stop_reason;   /* static: "proved", "saturated", "iteration limit", "node limit",
                              * "time limit", "unsupported", "different outputs" or
                              * "different interface" (names, shapes or dtypes) */
  guint proof_length;        /* rewrite steps, summed over the outputs */
  GPtrArray *rules_used;     /* const char * (interned), in proof order; NULL when not proved */
  guint iterations;
  guint n_nodes;             /* e-nodes at the end */
  double seconds;
  char *message;             /* why not proved, when it is known (unsupported op …) */
  char *explanation;         /* with keep_explanation: the steps, one term per line */
  /* When proved: why the candidate is still not exactly the reference (a
   * value stored in a lower precision, see prism_formal_verifier_check()),
   * or NULL. */
  char *precision_message;
} PrismFormalResult;

void prism_formal_result_clear (PrismFormalResult *result);

typedef struct _PrismFormalVerifier PrismFormalVerifier;

/**
 * prism_formal_verifier_new:
 * @reference: a concrete kernel graph (a reference is taken)
 * @error: return location for a #GError
 *
 * Fails (%PRISM_ERROR_UNSUPPORTED) when the reference cannot be translated.
 *
 * Returns: (transfer full) (nullable): a verifier for candidates of @reference
 */
PrismFormalVerifier *prism_formal_verifier_new   (const PrismGraph          *reference,
                                                  GError                   **error);
void                 prism_formal_verifier_free  (PrismFormalVerifier       *verifier);

/**
 * prism_formal_verifier_check:
 * @verifier: a verifier
 * @candidate: a kernel graph with concrete maps; sizes may be symbolic
 * @options: (nullable): limits; %NULL for the defaults
 * @result: (out caller-allocates): the outcome
 * @error: return location for a #GError
 *
 * Translates both graphs to terms with partition / replicate / combine /
 * reduce operators (prism-par-expr.h), puts both in one e-graph and
 * saturates it with the rules of src/libprism/expr/rules/verify.rules,
 * stopping as soon as every output of the candidate is in the class of the
 * reference's output with the same index.  A proof is then explained (a
 * chain of named rule applications) and the chain replayed by
 * prism_explanation_check().  A candidate the language cannot express is
 * "unsupported", not an error.  Safe to call from several threads at once.
 *
 * The terms are exact arithmetic on the inputs (rounded to their dtypes,
 * which must be the reference's).  What they leave out is the rounding of
 * the tensors a graph stores between ops in global memory, each in its
 * dtype.  So after a proof, every such tensor of the candidate that is
 * stored in a lower precision than an input it is computed from (f16 or
 * bf16 below f32, or f16 and bf16 mixed) must hold a value the proof found
 * equal to a tensor the reference stores in the same dtype; otherwise the
 * candidate rounds a value the reference keeps more precisely, and
 * @result's precision_message says which (the proof itself still holds).
 * With one input dtype, as in every built-in workload, every tensor has
 * that dtype and there is nothing to check.
 *
 * Returns: %FALSE with @error only on internal failures (a rule file that
 *   does not parse, a failed audit)
 */
gboolean             prism_formal_verifier_check (PrismFormalVerifier       *verifier,
                                                  const PrismGraph          *candidate,
                                                  const PrismFormalOptions  *options,
                                                  PrismFormalResult         *result,
                                                  GError                   **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrismFormalVerifier, prism_formal_verifier_free)

G_END_DECLS
