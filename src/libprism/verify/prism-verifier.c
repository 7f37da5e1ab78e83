/* prism-verifier.c — proves candidates equivalent to the reference program
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Two independent methods: the formal proof (prism-formal-verifier.c) decides,
 * the randomized test (prism-random-check.c) must agree.  A proof the
 * randomized test contradicts is never resolved either way: it is reported
 * as a verifier bug, loudly.
 */
#include "config.h"

#include <math.h>

#include "prism-error.h"
#include "prism-formal-verifier.h"
#include "prism-io-binding.h"
#include "prism-random-check.h"
#include "prism-verifier.h"

struct _PrismVerifier
{
  PrismGraph *reference;
  PrismVerifierOptions options;
  char *extra_rules;
  PrismFormalVerifier *formal;
  PrismRandomCheck *random;
};

void
prism_verdict_free (PrismVerdict *v)
{
  if (v == NULL)
    return;
  g_clear_pointer (&v->rules_used, g_ptr_array_unref);
  g_clear_pointer (&v->seeds, g_array_unref);
  g_free (v->message);
  g_free (v->formal_message);
  g_free (v->explanation);
  g_free (v->sizes);
  g_free (v->random_message);
  g_free (v->precision_message);
  g_free (v->range_message);
  g_free (v);
}

const char *
prism_verdict_kind_to_string (PrismVerdictKind kind)
{
  switch (kind)
    {
    case PRISM_VERDICT_EQUIVALENT:
      return "equivalent";
    case PRISM_VERDICT_NOT_EQUIVALENT:
      return "not-equivalent";
    case PRISM_VERDICT_UNKNOWN:
      return "unknown";
    case PRISM_VERDICT_VERIFIER_BUG:
      return "verifier-bug";
    default:
      g_return_val_if_reached ("unknown");
    }
}

/* JSON has no infinities: those become null (the text says why). */
static void
add_number (JsonBuilder *b, const char *name, double value)
{
  json_builder_set_member_name (b, name);
  if (isfinite (value))
    json_builder_add_double_value (b, value);
  else
    json_builder_add_null_value (b);
}

static void
add_string (JsonBuilder *b, const char *name, const char *value)
{
  if (value == NULL)
    return;
  json_builder_set_member_name (b, name);
  json_builder_add_string_value (b, value);
}

JsonNode *
prism_verdict_to_json (const PrismVerdict *v)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();

  g_return_val_if_fail (v != NULL, NULL);
  json_builder_begin_object (b);
  add_string (b, "verdict", prism_verdict_kind_to_string (v->kind));
  add_string (b, "message", v->message);

  json_builder_set_member_name (b, "methods");
  json_builder_begin_array (b);
  if (v->formal_ran)
    json_builder_add_string_value (b, "formal");
  if (v->random_ran)
    json_builder_add_string_value (b, "random");
  json_builder_end_array (b);

  json_builder_set_member_name (b, "formal");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "ran");
  json_builder_add_boolean_value (b, v->formal_ran);
  json_builder_set_member_name (b, "proved");
  json_builder_add_boolean_value (b, v->proved);
  add_string (b, "stop_reason", v->stop_reason);
  json_builder_set_member_name (b, "proof_length");
  json_builder_add_int_value (b, v->proof_length);
  json_builder_set_member_name (b, "rules_used");
  json_builder_begin_array (b);
  for (guint i = 0; v->rules_used != NULL && i < v->rules_used->len; i++)
    json_builder_add_string_value (b, g_ptr_array_index (v->rules_used, i));
  json_builder_end_array (b);
  json_builder_set_member_name (b, "iterations");
  json_builder_add_int_value (b, v->formal_iterations);
  json_builder_set_member_name (b, "nodes");
  json_builder_add_int_value (b, v->formal_nodes);
  add_number (b, "seconds", v->formal_seconds);
  add_string (b, "message", v->formal_message);
  add_string (b, "explanation", v->explanation);
  add_string (b, "precision", v->precision_message);
  json_builder_end_object (b);

  json_builder_set_member_name (b, "random");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "ran");
  json_builder_add_boolean_value (b, v->random_ran);
  json_builder_set_member_name (b, "ok");
  json_builder_add_boolean_value (b, v->random_ok);
  json_builder_set_member_name (b, "seeds");
  json_builder_begin_array (b);
  for (guint i = 0; v->seeds != NULL && i < v->seeds->len; i++)
    json_builder_add_int_value (b, (gint64) g_array_index (v->seeds, guint64, i));
  json_builder_end_array (b);
  add_number (b, "max_error", v->max_error);
  add_number (b, "tolerance", PRISM_RANDOM_TOLERANCE);
  if (v->random_ran && !v->random_ok)
    {
      json_builder_set_member_name (b, "failing_seed");
      json_builder_add_int_value (b, (gint64) v->failing_seed);
    }
  add_string (b, "sizes", v->sizes);
  add_number (b, "seconds", v->random_seconds);
  add_string (b, "message", v->random_message);
  add_string (b, "range", v->range_message);
  json_builder_end_object (b);

  json_builder_end_object (b);
  return json_builder_get_root (b);
}

void
prism_verifier_options_init (PrismVerifierOptions *options)
{
  PrismFormalOptions fo;

  g_return_if_fail (options != NULL);
  prism_formal_options_init (&fo);
  *options = (PrismVerifierOptions) { 0, };
  options->n_seeds = 3;
  options->first_seed = 1;
  options->max_nodes = fo.max_nodes;
  options->max_iterations = fo.max_iterations;
  options->time_limit_s = fo.time_limit_s;
  options->skip_random = FALSE;
  options->n_threads = 1;
}

PrismVerifier *
prism_verifier_new (const PrismGraph *reference, const PrismVerifierOptions *options, GError **error)
{
  g_autoptr(PrismFormalVerifier) formal = NULL;
  PrismVerifier *v;

  g_return_val_if_fail (reference != NULL, NULL);
  if (reference->level != PRISM_LEVEL_KERNEL || !prism_graph_validate (reference, error))
    {
      if (error != NULL && *error == NULL)
        g_set_error (error, PRISM_ERROR, PRISM_ERROR_INVALID_GRAPH, "the reference is not a kernel graph");
      return NULL;
    }
  if (!prism_graph_is_concrete (reference))
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED,
                   "the reference has symbolic sizes or maps; it must be concrete");
      return NULL;
    }
  formal = prism_formal_verifier_new (reference, error);
  if (formal == NULL)
    return NULL;

  v = g_new0 (PrismVerifier, 1);
  v->reference = prism_graph_ref ((PrismGraph *) reference);
  if (options != NULL)
    v->options = *options;
  else
    prism_verifier_options_init (&v->options);
  v->extra_rules = g_strdup (v->options.extra_rules);
  v->options.extra_rules = v->extra_rules;
  v->formal = g_steal_pointer (&formal);
  v->random = prism_random_check_new (reference, v->options.n_seeds, v->options.first_seed,
                                      v->options.n_threads);
  return v;
}

void
prism_verifier_free (PrismVerifier *v)
{
  if (v == NULL)
    return;
  prism_formal_verifier_free (v->formal);
  prism_random_check_free (v->random);
  prism_graph_unref (v->reference);
  g_free (v->extra_rules);
  g_free (v);
}

static gboolean
has_symbolic_maps (const PrismGraph *g)
{
  if (g->symbolic_maps)
    return TRUE;
  for (guint i = 0; i < g->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (g, i);
      if (op->body != NULL && has_symbolic_maps (op->body))
        return TRUE;
    }
  return FALSE;
}

static void
decide (PrismVerdict *v, const PrismVerifierOptions *options)
{
  if (v->proved && v->random_ran && !v->random_ok)
    {
      v->kind = PRISM_VERDICT_VERIFIER_BUG;
      v->message = g_strdup_printf ("VERIFIER BUG: proved equivalent in %u steps, but the outputs "
                                    "differ by %.3g on seed %" G_GUINT64_FORMAT " (sizes %s)",
                                    v->proof_length, v->max_error, v->failing_seed,
                                    v->sizes && *v->sizes ? v->sizes : "as given");
    }
  else if (v->proved && v->precision_message != NULL)
    {
      /* Equal in exact arithmetic, but rounded more than the reference. */
      v->kind = PRISM_VERDICT_NOT_EQUIVALENT;
      v->message = g_strdup_printf ("Not equivalent: proved equal in exact arithmetic, but %s.",
                                    v->precision_message);
    }
  else if (v->random_ran && v->random_ok && v->range_message != NULL)
    {
      /* Equal in f64, but it overflows where the program does not. */
      v->kind = PRISM_VERDICT_NOT_EQUIVALENT;
      v->message = g_strdup_printf ("Not equivalent: %s%s.", v->proved ? "proved equal in exact "
                                    "arithmetic and the randomized test agrees in f64, but " : "",
                                    v->range_message);
    }
  else if (v->proved && !v->random_ran && !options->skip_random)
    {
      /* Equivalent needs both methods: a candidate the interpreter cannot
       * run is exactly where a wrong translation would go unnoticed. */
      v->kind = PRISM_VERDICT_UNKNOWN;
      v->message = g_strdup_printf ("Proved, but the randomized test could not run: %s.",
                                    v->random_message ? v->random_message : "no reason given");
    }
  else if (v->proved)
    {
      v->kind = PRISM_VERDICT_EQUIVALENT;
      if (v->random_ran)
        v->message = g_strdup_printf ("Proved equivalent in %u rewrite steps; the randomized test "
                                      "agrees (%u seeds, max error %.3g).", v->proof_length,
                                      v->seeds->len, v->max_error);
      else
        v->message = g_strdup_printf ("Proved equivalent in %u rewrite steps; the randomized test "
                                      "did not run (skipped).", v->proof_length);
    }
  else if (v->random_ran && !v->random_ok)
    {
      v->kind = PRISM_VERDICT_NOT_EQUIVALENT;
      v->message = g_strdup_printf ("Not equivalent: the outputs differ by %.3g on seed %"
                                    G_GUINT64_FORMAT ".", v->max_error, v->failing_seed);
    }
  else
    {
      v->kind = PRISM_VERDICT_UNKNOWN;
      if (v->random_ran)
        v->message = g_strdup_printf ("Not proved (%s%s%s); no difference found on %u seeds.",
                                      v->stop_reason, v->formal_message ? ": " : "",
                                      v->formal_message ? v->formal_message : "", v->seeds->len);
      else
        v->message = g_strdup_printf ("Not proved (%s%s%s); the randomized test did not run.",
                                      v->stop_reason, v->formal_message ? ": " : "",
                                      v->formal_message ? v->formal_message : "");
    }
}

PrismVerdict *
prism_verifier_check (PrismVerifier *verifier, const PrismGraph *candidate, GError **error)
{
  const PrismVerifierOptions *o = &verifier->options;
  g_autoptr(PrismVerdict) v = g_new0 (PrismVerdict, 1);
  g_autoptr(GError) difference = NULL;
  g_autoptr(PrismIoBinding) binding = NULL;
  PrismFormalOptions fo;
  PrismFormalResult fr;

  g_return_val_if_fail (candidate != NULL, NULL);
  if (candidate->level != PRISM_LEVEL_KERNEL)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_INVALID_GRAPH, "the candidate is not a kernel graph");
      return NULL;
    }
  if (!prism_graph_validate (candidate, error))
    return NULL;
  if (has_symbolic_maps (candidate))
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED,
                   "the candidate has symbolic maps; instantiate them first");
      return NULL;
    }

  v->stop_reason = "not run";
  /* The dtypes are part of the interface: inputs are rounded to theirs
   * before a kernel sees them and outputs are stored in theirs, so a
   * candidate with a bf16 weight where the program has f16 computes
   * something else.  Names bind inputs and outputs (prism-io-binding.h). */
  binding = prism_io_binding_new (verifier->reference, candidate, &difference);
  if (binding == NULL)
    {
      v->kind = PRISM_VERDICT_NOT_EQUIVALENT;
      v->message = g_strdup_printf ("Not equivalent: %s.", difference->message);
      return g_steal_pointer (&v);
    }

  prism_formal_options_init (&fo);
  fo.max_nodes = o->max_nodes;
  fo.max_iterations = o->max_iterations;
  fo.time_limit_s = o->time_limit_s;
  fo.extra_rules = o->extra_rules;
  fo.keep_explanation = o->keep_explanation;
  if (!prism_formal_verifier_check (verifier->formal, candidate, &fo, &fr, error))
    return NULL;
  v->formal_ran = TRUE;
  v->proved = fr.proved;
  v->stop_reason = fr.stop_reason;
  v->proof_length = fr.proof_length;
  v->rules_used = g_steal_pointer (&fr.rules_used);
  v->formal_seconds = fr.seconds;
  v->formal_iterations = fr.iterations;
  v->formal_nodes = fr.n_nodes;
  v->formal_message = g_steal_pointer (&fr.message);
  v->explanation = g_steal_pointer (&fr.explanation);
  v->precision_message = g_steal_pointer (&fr.precision_message);
  prism_formal_result_clear (&fr);

  if (!o->skip_random)
    {
      PrismRandomResult rr;

      prism_random_check_run (verifier->random, candidate, &rr);
      v->random_ran = rr.ran;
      v->random_ok = rr.ok;
      v->seeds = g_steal_pointer (&rr.seeds);
      v->max_error = rr.max_error;
      v->failing_seed = rr.failing_seed;
      v->random_seconds = rr.seconds;
      v->sizes = g_steal_pointer (&rr.sizes);
      v->random_message = g_steal_pointer (&rr.message);
      v->range_message = g_steal_pointer (&rr.range_message);
      prism_random_result_clear (&rr);
    }
  if (v->seeds == NULL)
    v->seeds = g_array_new (FALSE, FALSE, sizeof (guint64));

  decide (v, o);
  if (v->kind == PRISM_VERDICT_VERIFIER_BUG)
    {
      g_autoptr(GString) rules = g_string_new (NULL);
      for (guint i = 0; v->rules_used != NULL && i < v->rules_used->len; i++)
        g_string_append_printf (rules, "%s%s", i ? " " : "", (const char *) g_ptr_array_index (v->rules_used, i));
      g_warning ("%s; rules used: %s", v->message, rules->str);
    }
  return g_steal_pointer (&v);
}
