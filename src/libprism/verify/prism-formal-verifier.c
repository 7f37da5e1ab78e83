/* prism-formal-verifier.c — equivalence proofs by equality saturation
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Both graphs go into one e-graph (the reference's rms_norm must be unfolded
 * as much as the candidate's accumulators are folded, so saturating only the
 * candidate would miss proofs that meet in the middle).  The e-graph is run
 * one iteration at a time so that a proof ends the run as soon as it exists.
 */
#include "config.h"

#include "prism-error.h"
#include "prism-explain.h"
#include "prism-formal-verifier.h"
#include "prism-par-expr.h"
#include "prism-par-typer.h"
#include "prism-runner.h"

struct _PrismFormalVerifier
{
  PrismGraph *reference;
  guint n_outputs;
};

void
prism_formal_options_init (PrismFormalOptions *options)
{
  g_return_if_fail (options != NULL);
  options->max_nodes = 60000;
  options->max_iterations = 40;
  options->time_limit_s = 10.0;
  options->extra_rules = NULL;
  options->audit = FALSE;
  options->keep_explanation = FALSE;
}

void
prism_formal_result_clear (PrismFormalResult *result)
{
  g_clear_pointer (&result->rules_used, g_ptr_array_unref);
  g_clear_pointer (&result->message, g_free);
  g_clear_pointer (&result->explanation, g_free);
}

PrismFormalVerifier *
prism_formal_verifier_new (const PrismGraph *reference, GError **error)
{
  g_autoptr(PrismParEnv) env = prism_par_env_new ();
  g_autoptr(PrismTerm) term = prism_term_new ();
  g_autofree guint *roots = NULL;
  PrismFormalVerifier *fv;

  g_return_val_if_fail (reference != NULL && reference->level == PRISM_LEVEL_KERNEL, NULL);
  roots = g_new0 (guint, prism_par_count_outputs (reference) + 1);
  if (!prism_par_translate (env, reference, "r", term, roots, error))
    {
      g_prefix_error (error, "the reference: ");
      return NULL;
    }
  fv = g_new0 (PrismFormalVerifier, 1);
  fv->reference = prism_graph_ref ((PrismGraph *) reference);
  fv->n_outputs = prism_par_count_outputs (reference);
  return fv;
}

void
prism_formal_verifier_free (PrismFormalVerifier *fv)
{
  if (fv == NULL)
    return;
  prism_graph_unref (fv->reference);
  g_free (fv);
}

static gboolean
all_proved (const PrismEgraph *eg, const guint *ref_ids, const guint *cand_ids, guint n)
{
  for (guint i = 0; i < n; i++)
    if (!prism_egraph_equiv (eg, ref_ids[i], cand_ids[i]))
      return FALSE;
  return TRUE;
}

/* Explains every output's proof and replays it; fills the proof fields. */
static gboolean
explain (PrismEgraph *eg, const PrismRuleSet *rules, const guint *ref_ids, const guint *cand_ids,
         guint n, gboolean keep_text, PrismFormalResult *result, GError **error)
{
  g_autoptr(GString) text = keep_text ? g_string_new (NULL) : NULL;

  result->rules_used = g_ptr_array_new ();
  result->proof_length = 0;
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(PrismExplanation) ex = prism_egraph_explain (eg, cand_ids[i], ref_ids[i], error);
      g_autoptr(GPtrArray) used = NULL;

      if (ex == NULL)
        return FALSE;
      if (!prism_explanation_check (ex, rules, prism_fold_arith, NULL, error))
        {
          g_prefix_error (error, "the proof of output %u does not replay: ", i);
          return FALSE;
        }
      result->proof_length += prism_explanation_get_length (ex);
      used = prism_explanation_get_rules_used (ex);
      for (guint k = 0; k < used->len; k++)
        g_ptr_array_add (result->rules_used, g_ptr_array_index (used, k));
      if (text != NULL)
        {
          g_autofree char *steps = prism_explanation_to_string (ex);
          g_string_append_printf (text, "output %u:\n%s", i, steps);
        }
    }
  if (text != NULL)
    result->explanation = g_string_free (g_steal_pointer (&text), FALSE);
  return TRUE;
}

gboolean
prism_formal_verifier_check (PrismFormalVerifier *fv, const PrismGraph *candidate,
                             const PrismFormalOptions *options, PrismFormalResult *result,
                             GError **error)
{
  PrismFormalOptions defaults;
  g_autoptr(PrismParEnv) env = prism_par_env_new ();
  g_autoptr(PrismTerm) term = prism_term_new ();
  g_autoptr(PrismEgraph) eg = NULL;
  g_autoptr(PrismParTyper) typer = NULL;
  g_autoptr(PrismRuleSet) rules = NULL;
  g_autoptr(GError) local = NULL;
  g_autofree guint *ref_roots = NULL, *cand_roots = NULL, *ref_ids = NULL, *cand_ids = NULL;
  gint64 start = g_get_monotonic_time ();
  guint n = fv->n_outputs;

  g_return_val_if_fail (candidate != NULL && result != NULL, FALSE);
  if (options == NULL)
    {
      prism_formal_options_init (&defaults);
      options = &defaults;
    }
  *result = (PrismFormalResult) { FALSE, "unsupported", 0, NULL, 0, 0, 0.0, NULL, NULL };

  if (prism_par_count_outputs (candidate) != n)
    {
      result->stop_reason = "different outputs";
      result->message = g_strdup_printf ("the candidate has %u outputs, the reference %u",
                                         prism_par_count_outputs (candidate), n);
      return TRUE;
    }
  ref_roots = g_new0 (guint, n + 1);
  cand_roots = g_new0 (guint, n + 1);
  if (!prism_par_translate (env, fv->reference, "r", term, ref_roots, error))
    return FALSE;
  if (!prism_par_translate (env, candidate, "c", term, cand_roots, &local))
    {
      result->message = g_strdup (local->message);
      return TRUE;
    }

  eg = prism_egraph_new (PRISM_EGRAPH_EXPLAIN);
  ref_ids = g_new0 (guint, n + 1);
  cand_ids = g_new0 (guint, n + 1);
  for (guint i = 0; i < n; i++)
    {
      ref_ids[i] = prism_egraph_add_term_node (eg, term, ref_roots[i]);
      cand_ids[i] = prism_egraph_add_term_node (eg, term, cand_roots[i]);
    }
  prism_egraph_rebuild (eg);

  typer = prism_par_typer_new (env, eg);
  rules = prism_rule_set_new ();
  prism_par_typer_register_conditions (typer, rules);
  if (!prism_rule_set_add_builtin (rules, "verify", error))
    return FALSE;
  if (options->extra_rules != NULL &&
      !prism_rule_set_add_from_string (rules, options->extra_rules, "extra rules", error))
    return FALSE;

  /* One iteration per run: a proof stops the saturation at once. */
  result->stop_reason = "saturated";
  while (!all_proved (eg, ref_ids, cand_ids, n))
    {
      PrismRunnerOptions ro;
      PrismRunReport report;
      double elapsed = (double) (g_get_monotonic_time () - start) / G_USEC_PER_SEC;
      PrismStopReason reason;

      if (options->max_iterations != 0 && result->iterations >= options->max_iterations)
        {
          result->stop_reason = "iteration limit";
          break;
        }
      if (options->time_limit_s > 0 && elapsed >= options->time_limit_s)
        {
          result->stop_reason = "time limit";
          break;
        }
      prism_runner_options_init (&ro);
      ro.max_iterations = 1;
      ro.max_nodes = options->max_nodes;
      ro.time_limit_s = options->time_limit_s > 0 ? options->time_limit_s - elapsed : 0;
      reason = prism_runner_run (eg, rules, &ro, &report);
      result->iterations++;
      if (reason != PRISM_STOP_ITERATION_LIMIT)
        {
          result->stop_reason = prism_stop_reason_to_string (reason);
          break;
        }
    }
  result->proved = all_proved (eg, ref_ids, cand_ids, n);
  result->n_nodes = prism_egraph_get_n_nodes (eg);

  if (options->audit && !prism_par_typer_audit (typer, error))
    return FALSE;
  if (result->proved)
    {
      result->stop_reason = "proved";
      if (!explain (eg, rules, ref_ids, cand_ids, n, options->keep_explanation, result, &local))
        {
          /* A proof that does not replay is no proof. */
          g_warning ("formal verifier: %s", local->message);
          result->proved = FALSE;
          result->stop_reason = "unsupported";
          result->message = g_strdup_printf ("the proof could not be explained: %s", local->message);
          g_clear_pointer (&result->rules_used, g_ptr_array_unref);
        }
    }
  result->seconds = (double) (g_get_monotonic_time () - start) / G_USEC_PER_SEC;
  return TRUE;
}
