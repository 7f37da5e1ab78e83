/* prism-runner.c — equality saturation with limits and an exact stop reason
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "prism-egraph-private.h"
#include "prism-error.h"
#include "prism-runner.h"

const char *
prism_stop_reason_to_string (PrismStopReason reason)
{
  switch (reason)
    {
    case PRISM_STOP_SATURATED:
      return "saturated";
    case PRISM_STOP_ITERATION_LIMIT:
      return "iteration limit";
    case PRISM_STOP_NODE_LIMIT:
      return "node limit";
    case PRISM_STOP_TIME_LIMIT:
      return "time limit";
    case PRISM_STOP_STOPPED:
      return "stopped";
    default:
      g_return_val_if_reached ("unknown");
    }
}

void
prism_runner_options_init (PrismRunnerOptions *options)
{
  g_return_if_fail (options != NULL);
  options->max_iterations = 30;
  options->max_nodes = 100000;
  options->time_limit_s = 10.0;
  options->match_limit = 0;
  options->ban_length = 5;
}

/* One direction of one rule. */
typedef struct
{
  const PrismRule *rule;
  const PrismPattern *search;
  const PrismPattern *apply;
  gboolean reverse;
  guint n_vars;
  guint times_banned;
  guint banned_until;   /* banned while the iteration number is below this */
  GArray *matches;      /* guint32: root class, then n_vars class ids, per match */
} Unit;

typedef struct
{
  Unit *unit;
  const PrismEgraph *eg;
  guint limit;          /* 0: none */
  gboolean over;
  guint64 found;        /* matches whose conditions hold */
} SearchCtx;

static gboolean
on_match (gpointer user_data, guint32 root_class, const guint32 *subst)
{
  SearchCtx *ctx = user_data;
  Unit *u = ctx->unit;

  if (!prism_rule_check_conditions (u->rule, ctx->eg, subst))
    return TRUE;
  ctx->found++;
  if (ctx->limit != 0 && ctx->found > ctx->limit)
    {
      ctx->over = TRUE;
      return FALSE;
    }
  /* Most matches of a later iteration were applied before: keep only those
   * whose other side is not already in the class (exact here, as the e-graph
   * is clean), which keeps the match lists small. */
  if (prism_egraph_lookup_instance (ctx->eg, u->apply, subst) == root_class)
    return TRUE;
  g_array_append_val (u->matches, root_class);
  g_array_append_vals (u->matches, subst, u->n_vars);
  return TRUE;
}

/* Applies one match.  Returns %TRUE if two classes were merged. */
static gboolean
apply_match (PrismEgraph *eg, const Unit *u, guint32 root_class, const guint32 *subst)
{
  guint32 existing = prism_egraph_lookup_instance (eg, u->apply, subst);
  guint32 to;

  /* Already true: skip, so a saturated e-graph is not touched at all. */
  if (existing != PRISM_NONE32
      && existing == prism_egraph_find_const (eg, root_class))
    return FALSE;
  if (prism_egraph_explaining (eg))
    {
      g_autofree PrismSymbol *vars = g_new (PrismSymbol, MAX (u->n_vars, 1));
      guint32 from, just;

      /* Both sides are added as exact terms over the matched classes (which
       * are e-node ids), so the recorded step rewrites an exact instance of
       * one side into an exact instance of the other. */
      from = prism_egraph_add_instance (eg, u->search, subst);
      to = prism_egraph_add_instance (eg, u->apply, subst);
      if (prism_egraph_find_mut (eg, from) == prism_egraph_find_mut (eg, to))
        return FALSE;
      for (guint v = 0; v < u->n_vars; v++)
        vars[v] = prism_rule_get_var_symbol (u->rule, v);
      just = prism_egraph_add_justification (eg, prism_rule_get_symbol (u->rule),
                                             u->reverse ? to : from, u->n_vars, vars, subst);
      return prism_egraph_union_internal (eg, from, to, just);
    }
  to = prism_egraph_add_instance (eg, u->apply, subst);
  return prism_egraph_union_internal (eg, root_class, to, PRISM_JUST_NONE);
}

static gboolean
past (gint64 deadline)
{
  return deadline != 0 && g_get_monotonic_time () >= deadline;
}

/* The time limit or a stop (prism_cancelled()), whichever comes first. */
static gboolean
must_stop (gint64 deadline, PrismStopReason *reason)
{
  if (prism_cancelled ())
    {
      *reason = PRISM_STOP_STOPPED;
      return TRUE;
    }
  if (past (deadline))
    {
      *reason = PRISM_STOP_TIME_LIMIT;
      return TRUE;
    }
  return FALSE;
}

PrismStopReason
prism_runner_run (PrismEgraph              *eg,
                  const PrismRuleSet       *rules,
                  const PrismRunnerOptions *options,
                  PrismRunReport           *report)
{
  PrismRunnerOptions defaults;
  g_autoptr(GArray) units = g_array_new (FALSE, TRUE, sizeof (Unit));
  gint64 start = g_get_monotonic_time ();
  gint64 deadline = 0;
  PrismStopReason reason = PRISM_STOP_SATURATED;
  guint iteration = 0;
  guint64 n_applied = 0, n_matches = 0;
  guint ops = 0;

  g_return_val_if_fail (eg != NULL && rules != NULL, PRISM_STOP_SATURATED);
  if (options == NULL)
    {
      prism_runner_options_init (&defaults);
      options = &defaults;
    }
  if (options->time_limit_s > 0)
    deadline = start + MAX ((gint64) (options->time_limit_s * G_USEC_PER_SEC), 1);

  for (guint i = 0; i < prism_rule_set_get_n_rules (rules); i++)
    {
      const PrismRule *rule = prism_rule_set_get_rule (rules, i);
      Unit u = { rule, prism_rule_get_lhs (rule), prism_rule_get_rhs (rule), FALSE,
                 prism_rule_get_n_vars (rule), 0, 0, NULL };

      u.matches = g_array_new (FALSE, FALSE, sizeof (guint32));
      g_array_append_val (units, u);
      if (prism_rule_is_bidirectional (rule))
        {
          u.search = prism_rule_get_rhs (rule);
          u.apply = prism_rule_get_lhs (rule);
          u.reverse = TRUE;
          u.matches = g_array_new (FALSE, FALSE, sizeof (guint32));
          g_array_append_val (units, u);
        }
    }

  prism_egraph_rebuild (eg);
  for (;;)
    {
      guint64 unions0, created0;
      gboolean any_banned = FALSE;

      if (options->max_nodes != 0 && eg->n_leaders > options->max_nodes)
        {
          reason = PRISM_STOP_NODE_LIMIT;
          break;
        }
      if (options->max_iterations != 0 && iteration >= options->max_iterations)
        {
          reason = PRISM_STOP_ITERATION_LIMIT;
          break;
        }
      if (must_stop (deadline, &reason))
        break;
      iteration++;
      unions0 = eg->n_unions;
      created0 = eg->n_leaders_created;

      /* Search everything first, on the clean e-graph, so that the order in
       * which rules are applied cannot change what the others match. */
      for (guint i = 0; i < units->len; i++)
        {
          Unit *u = &g_array_index (units, Unit, i);
          SearchCtx ctx = { u, eg, 0, FALSE, 0 };
          gboolean timed_out = FALSE;

          g_array_set_size (u->matches, 0);
          if (iteration < u->banned_until)
            {
              any_banned = TRUE;
              continue;
            }
          if (options->match_limit != 0)
            ctx.limit = options->match_limit << MIN (u->times_banned, 16);
          prism_egraph_search_internal (eg, u->search, on_match, &ctx, deadline, &timed_out);
          if (must_stop (deadline, &reason))
            goto out;
          if (timed_out)
            {
              reason = PRISM_STOP_TIME_LIMIT;
              goto out;
            }
          if (ctx.over)
            {
              u->banned_until = iteration + 1 + (options->ban_length << MIN (u->times_banned, 16));
              u->times_banned++;
              g_array_set_size (u->matches, 0);
              any_banned = TRUE;
              continue;
            }
          n_matches += ctx.found;
        }

      for (guint i = 0; i < units->len; i++)
        {
          Unit *u = &g_array_index (units, Unit, i);
          guint stride = 1 + u->n_vars;

          for (guint k = 0; k < u->matches->len; k += stride)
            {
              const guint32 *m = &g_array_index (u->matches, guint32, k);

              if (apply_match (eg, u, m[0], m + 1))
                n_applied++;
              if (options->max_nodes != 0 && eg->n_leaders > options->max_nodes)
                {
                  reason = PRISM_STOP_NODE_LIMIT;
                  goto out;
                }
              if ((++ops & 63) == 0 && must_stop (deadline, &reason))
                goto out;
            }
        }
      prism_egraph_rebuild (eg);

      if (eg->n_unions == unions0 && eg->n_leaders_created == created0)
        {
          if (!any_banned)
            {
              reason = PRISM_STOP_SATURATED;
              break;
            }
          /* Nothing changed but some rules were skipped: let them run again
           * before claiming saturation. */
          for (guint i = 0; i < units->len; i++)
            g_array_index (units, Unit, i).banned_until = 0;
        }
    }

out:
  prism_egraph_rebuild (eg);
  for (guint i = 0; i < units->len; i++)
    g_array_unref (g_array_index (units, Unit, i).matches);
  if (report != NULL)
    {
      report->stop_reason = reason;
      report->iterations = iteration;
      report->n_nodes = eg->n_leaders;
      report->n_classes = eg->n_classes;
      report->n_applied = n_applied;
      report->n_matches = n_matches;
      report->seconds = (g_get_monotonic_time () - start) / (double) G_USEC_PER_SEC;
    }
  return reason;
}
