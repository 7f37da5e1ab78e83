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
  g_clear_pointer (&result->precision_message, g_free);
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

/* Precision of stored tensors ------------------------------------------------ */

static gboolean
one_dtype (const PrismGraph *a, const PrismGraph *b)
{
  PrismDtype d = prism_graph_tensor (a, 0)->dtype;

  for (guint pass = 0; pass < 2; pass++)
    {
      const PrismGraph *g = pass == 0 ? a : b;
      for (guint i = 0; i < g->tensors->len; i++)
        if (prism_graph_tensor (g, i)->dtype != d)
          return FALSE;
    }
  return TRUE;
}

/* Which outputs of @g (a bit per output index, at most 64) each
 * kernel-level tensor reaches.  A custom kernel's input reaches what the
 * kernel outputs reached from its block OUTPUT ops reach. (transfer full) */
static guint64 *
output_reach (const PrismGraph *g)
{
  guint64 *reach = g_new0 (guint64, MAX (g->tensors->len, 1));
  guint n_out = prism_par_count_outputs (g);

  for (guint i = g->ops->len; i-- > 0;)
    {
      const PrismOp *op = prism_graph_op (g, i);

      if (op->kind == PRISM_OP_OUTPUT && --n_out < 64)
        reach[op->inputs[0]] |= G_GUINT64_CONSTANT (1) << n_out;
      else if (op->kind == PRISM_OP_KERNEL)
        {
          const PrismGraph *body = op->body;
          g_autofree guint *mask = g_new0 (guint, MAX (body->tensors->len, 1));
          guint out = 0;

          for (guint j = 0; j < body->ops->len; j++)
            {
              const PrismOp *bop = prism_graph_op (body, j);
              guint m = bop->kind == PRISM_OP_INPUT ? 1u << bop->attrs.input_index : 0;

              for (guint k = 0; k < bop->n_inputs; k++)
                m |= mask[bop->inputs[k]];
              for (guint k = 0; k < bop->n_outputs; k++)
                mask[bop->outputs[k]] = m;
              if (bop->kind != PRISM_OP_OUTPUT || out >= op->n_outputs)
                continue;
              for (guint k = 0; k < op->n_inputs; k++)
                if (m & (1u << k))
                  reach[op->inputs[k]] |= reach[op->outputs[out]];
              out++;
            }
        }
      else
        for (guint o = 0; o < op->n_outputs; o++)
          for (guint k = 0; k < op->n_inputs; k++)
            reach[op->inputs[k]] |= reach[op->outputs[o]];
    }
  return reach;
}

/* Whether the op that makes tensor @t of @g returns one of its operands'
 * values unchanged (a transpose, a maximum …) of operands stored in @t's
 * dtype: storing it rounds nothing. */
static gboolean
exact_copy (const PrismGraph *g, guint t)
{
  const PrismTensor *x = prism_graph_tensor (g, t);
  const PrismOp *op = prism_graph_op (g, (guint) x->producer);

  switch ((int) op->kind)
    {
    case PRISM_OP_TRANSPOSE:
    case PRISM_OP_CONCAT:
    case PRISM_OP_MAX:
    case PRISM_OP_MAXIMUM:
    case PRISM_OP_NEG:
    case PRISM_OP_RELU:
      for (guint k = 0; k < op->n_inputs; k++)
        if (prism_graph_tensor (g, op->inputs[k])->dtype != x->dtype)
          return FALSE;
      return TRUE;
    default:
      return FALSE;
    }
}

/* "O" or "" for output @k of @g. */
static const char *
output_name (const PrismGraph *g, guint k)
{
  for (guint i = 0, n = 0; i < g->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (g, i);
      if (op->kind == PRISM_OP_OUTPUT && n++ == k)
        return op->name ? op->name : "";
    }
  return "";
}

/* Whether a tensor of @ref stored as @dtype on the way to reference output
 * @out is in e-class @cls. */
static gboolean
reference_stores (const PrismEgraph *eg, const PrismTerm *term, const PrismGraph *ref,
                  const guint *ref_nodes, const guint64 *ref_reach, guint cls, PrismDtype dtype,
                  guint out)
{
  for (guint r = 0; r < ref->tensors->len; r++)
    {
      gint rc;
      if (prism_graph_tensor (ref, r)->dtype != dtype || out >= 64 ||
          (ref_reach[r] & (G_GUINT64_CONSTANT (1) << out)) == 0)
        continue;
      rc = prism_egraph_lookup_term_node (eg, term, ref_nodes[r]);
      if (rc != PRISM_EGRAPH_NONE && prism_egraph_equiv (eg, (guint) rc, cls))
        return TRUE;
    }
  return FALSE;
}

/* Why the proved candidate still rounds a value more than the reference,
 * or NULL (see prism_formal_verifier_check()).  Every tensor the candidate
 * stores in f16 or bf16 rounds its value (unless it copies operands of its
 * own dtype), whatever it is computed from — a product of two f16 inputs is
 * no f16 value —, and that rounding reaches each output the tensor reaches:
 * for each of them the reference must store an equal value in the same
 * dtype on its way to the same output. (transfer full) */
static char *
precision_loss (PrismEgraph *eg, const PrismTerm *term, const PrismGraph *ref, const guint *ref_nodes,
                const PrismGraph *cand, const guint *cand_nodes, const PrismIoBinding *binding)
{
  g_autofree guint64 *reach = NULL, *ref_reach = NULL;

  if (one_dtype (ref, cand))
    return NULL;
  prism_egraph_rebuild (eg);
  reach = output_reach (cand);
  ref_reach = output_reach (ref);
  for (guint t = 0; t < cand->tensors->len; t++)
    {
      const PrismTensor *x = prism_graph_tensor (cand, t);
      const PrismOp *op = prism_graph_op (cand, (guint) x->producer);
      gint cls;

      /* The rounding of a tensor that no output reads reaches nothing;
       * inputs are rounded alike on both sides; f32 holds every value the
       * reference may keep (f64 only in the randomized test). */
      if (op->kind == PRISM_OP_INPUT || reach[t] == 0 || x->dtype == PRISM_DTYPE_F32 ||
          op->kind == PRISM_OP_CONSTANT || exact_copy (cand, t))
        continue;
      /* Not in the e-graph: no output's term contains it (a kernel input
       * that only the kernel's other outputs read). */
      cls = prism_egraph_lookup_term_node (eg, term, cand_nodes[t]);
      if (cls == PRISM_EGRAPH_NONE)
        continue;
      for (guint o = 0; o < binding->n_outputs && o < 64; o++)
        {
          guint r = binding->outputs[o];

          if ((reach[t] & (G_GUINT64_CONSTANT (1) << o)) == 0 ||
              reference_stores (eg, term, ref, ref_nodes, ref_reach, (guint) cls, x->dtype, r))
            continue;
          return g_strdup_printf ("tensor %u (output %u of op %d, %s) of the candidate is stored as %s "
                                  "on the way to output %u (%s), and the proof found no tensor of the "
                                  "reference equal to it stored as %s on the way to that output",
                                  t, x->producer_slot, x->producer, prism_op_kind_to_string (op->kind),
                                  prism_dtype_to_string (x->dtype), r, output_name (ref, r),
                                  prism_dtype_to_string (x->dtype));
        }
    }
  return NULL;
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
  g_autoptr(PrismIoBinding) binding = NULL;
  g_autofree guint *ref_roots = NULL, *cand_roots = NULL, *ref_ids = NULL, *cand_ids = NULL;
  g_autofree guint *ref_nodes = NULL, *cand_nodes = NULL;
  gint64 start = g_get_monotonic_time ();
  guint n = fv->n_outputs;

  g_return_val_if_fail (candidate != NULL && result != NULL, FALSE);
  if (options == NULL)
    {
      prism_formal_options_init (&defaults);
      options = &defaults;
    }
  *result = (PrismFormalResult) { FALSE, "unsupported", 0, NULL, 0, 0, 0.0, NULL, NULL, NULL };

  if (prism_par_count_outputs (candidate) != n)
    {
      result->stop_reason = "different outputs";
      result->message = g_strdup_printf ("the candidate has %u outputs, the reference %u",
                                         prism_par_count_outputs (candidate), n);
      return TRUE;
    }
  /* Inputs and outputs by name: positions say nothing (a reader orders
   * the ops of a file topologically). */
  binding = prism_io_binding_new (fv->reference, candidate, &local);
  if (binding == NULL)
    {
      result->stop_reason = "different interface";
      result->message = g_strdup (local->message);
      return TRUE;
    }
  ref_roots = g_new0 (guint, n + 1);
  cand_roots = g_new0 (guint, n + 1);
  ref_nodes = g_new0 (guint, fv->reference->tensors->len);
  cand_nodes = g_new0 (guint, candidate->tensors->len);
  if (!prism_par_translate_full (env, fv->reference, "r", term, ref_roots, ref_nodes, error))
    return FALSE;
  if (!prism_par_translate_bound (env, candidate, "c", term, binding, cand_roots, cand_nodes, &local))
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
      else
        result->precision_message = precision_loss (eg, term, fv->reference, ref_nodes, candidate,
                                                    cand_nodes, binding);
    }
  result->seconds = (double) (g_get_monotonic_time () - start) / G_USEC_PER_SEC;
  return TRUE;
}
