/* prism-verifier.h — proves candidates equivalent to the reference program
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

#include "prism-graph.h"

G_BEGIN_DECLS

typedef enum
{
  PRISM_VERDICT_EQUIVALENT,     /* proved formally, and the randomized test ran and agrees
                                 * (or was skipped: PrismVerifierOptions.skip_random) */
  PRISM_VERDICT_NOT_EQUIVALENT, /* the randomized test found a difference, the shapes or dtypes
                                 * of inputs or outputs differ, or a proved candidate stores a
                                 * value less precisely than the reference */
  PRISM_VERDICT_UNKNOWN,        /* not proved (limit hit) and no difference found, or proved
                                 * but the randomized test could not run */
  PRISM_VERDICT_VERIFIER_BUG,   /* proved, but the randomized test disagrees: reported loudly */
} PrismVerdictKind;

/**
 * PrismVerdict:
 *
 * A verdict and its evidence.
 */
typedef struct
{
  PrismVerdictKind kind;
  /* formal */
  gboolean formal_ran;
  gboolean proved;
  const char *stop_reason;   /* static string: "saturated", "node limit", … */
  guint proof_length;        /* rewrite steps in the explanation */
  GPtrArray *rules_used;     /* char*, names of the rules in the proof, in order */
  double formal_seconds;
  /* randomized */
  gboolean random_ran;
  gboolean random_ok;
  GArray *seeds;             /* guint64 */
  double max_error;          /* worst max relative error over seeds */
  double random_seconds;
  char *message;             /* one sentence for users */
  /* more evidence */
  guint formal_iterations;
  guint formal_nodes;        /* e-nodes when the saturation stopped */
  char *formal_message;      /* nullable: why the formal method could not decide */
  char *explanation;         /* nullable: the proof, one term per line (keep_explanation) */
  guint64 failing_seed;      /* when the randomized test differed */
  char *sizes;               /* nullable: the size assignment the randomized test ran */
  char *random_message;      /* nullable: why it could not run, or how it differed */
  /* nullable: proved in exact arithmetic, but the candidate stores a value
   * in a lower precision than the reference (see prism_verifier_check()) */
  char *precision_message;
  char *range_message;       /* nullable: the candidate leaves f32's range where the reference
                              * does not (PrismRandomResult.range_message) */
} PrismVerdict;

void          prism_verdict_free        (PrismVerdict *verdict);
const char   *prism_verdict_kind_to_string (PrismVerdictKind kind);
/* (transfer full) an object with "verdict", "methods", "formal", "random". */
JsonNode     *prism_verdict_to_json     (const PrismVerdict *verdict);

typedef struct
{
  guint n_seeds;         /* randomized test seeds (default 3) */
  guint64 first_seed;
  guint max_nodes;       /* e-graph limits for the proof */
  guint max_iterations;
  double time_limit_s;
  gboolean skip_random;  /* formal only: a proof alone is then "equivalent" (otherwise a
                          * proved candidate the randomized test cannot run is "unknown") */
  guint n_threads;       /* interpreter threads per run: 1 (default) when checks run
                          * concurrently, 0 = one per processor */
  gboolean keep_explanation; /* fill PrismVerdict.explanation */
  /* Testing only: rules added to the built-in ones (they may be unsound). */
  const char *extra_rules;
} PrismVerifierOptions;

void          prism_verifier_options_init (PrismVerifierOptions *options);

typedef struct _PrismVerifier PrismVerifier;

/* Takes what it needs from @reference (which must be concrete). */
PrismVerifier *prism_verifier_new       (const PrismGraph *reference,
                                         const PrismVerifierOptions *options,
                                         GError          **error);
void           prism_verifier_free      (PrismVerifier   *verifier);

/**
 * prism_verifier_check:
 * @verifier: a verifier
 * @candidate: a kernel graph with concrete maps; sizes (grid, loop) may be symbolic
 *
 * Proves @candidate equivalent to the reference by e-graph rewriting with
 * partition/replicate/combine/reduce operators (sizes stay symbolic), and
 * independently runs it (instantiated with valid sizes) against the
 * reference on random inputs.  Safe to call from several threads at once.
 *
 * The interface comes first: inputs and outputs must have the reference's
 * shapes and dtypes (a mismatch is %PRISM_VERDICT_NOT_EQUIVALENT naming the
 * input or output, with neither method run).  A proof holds in exact
 * arithmetic; a proved candidate that stores a tensor in a lower precision
 * than the reference keeps that value in is not equivalent either
 * (PrismVerdict.precision_message, see prism_formal_verifier_check()).
 *
 * Returns: (transfer full) (nullable): the verdict, or %NULL with @error on bad input
 */
PrismVerdict  *prism_verifier_check     (PrismVerifier   *verifier,
                                         const PrismGraph *candidate,
                                         GError          **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrismVerdict, prism_verdict_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrismVerifier, prism_verifier_free)

G_END_DECLS
