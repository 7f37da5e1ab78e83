/* bench-egraph.c — saturates sizeable comm/assoc examples and prints the
 * e-graph's size and speed (not a test: built, not run by the suite).
 *
 *   bench-egraph [N]   sums and products of N leaves (default 10)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "prism-egraph.h"
#include "prism-explain.h"
#include "prism-rewrite.h"
#include "prism-runner.h"

static char *
chain (const char *op, guint n)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i + 1 < n; i++)
    g_string_append_printf (s, "(%s x%u ", op, i);
  g_string_append_printf (s, "x%u", n - 1);
  for (guint i = 0; i + 1 < n; i++)
    g_string_append_c (s, ')');
  return g_string_free (s, FALSE);
}

static void
run_one (const char *label, const char *text, PrismEgraphFlags flags, const PrismRuleSet *rules)
{
  g_autoptr(PrismEgraph) eg = prism_egraph_new (flags);
  g_autoptr(PrismTerm) term = prism_term_parse (text, NULL);
  PrismRunnerOptions options;
  PrismRunReport report;
  gint64 t0, t1;
  double lookup_us;
  guint found = 0;

  prism_runner_options_init (&options);
  options.max_iterations = 1000;
  options.max_nodes = 2000000;
  options.time_limit_s = 120;
  prism_egraph_add_term (eg, term);
  prism_runner_run (eg, rules, &options, &report);

  /* Lookup speed (the pruning oracle's question) on the saturated graph. */
  t0 = g_get_monotonic_time ();
  for (guint i = 0; i < 100000; i++)
    found += prism_egraph_lookup_term (eg, term) >= 0;
  t1 = g_get_monotonic_time ();
  lookup_us = (t1 - t0) / 100000.0;
  g_assert_cmpuint (found, ==, 100000);

  printf ("%-26s %-8s %-10s %5u %8u %7u %9" G_GUINT64_FORMAT " %10" G_GUINT64_FORMAT " %8.3f %9.0f %10.0f %9.2f\n",
          label, flags & PRISM_EGRAPH_EXPLAIN ? "explain" : "plain",
          prism_stop_reason_to_string (report.stop_reason),
          report.iterations, report.n_nodes, report.n_classes, report.n_applied, report.n_matches,
          report.seconds, report.n_nodes / MAX (report.seconds, 1e-9),
          report.n_matches / MAX (report.seconds, 1e-9), lookup_us);
}

int
main (int argc, char **argv)
{
  g_autoptr(PrismRuleSet) rules = prism_rule_set_new ();
  g_autoptr(GError) error = NULL;
  guint n = argc > 1 ? (guint) atoi (argv[1]) : 10;
  g_autofree char *sum = NULL;
  g_autofree char *prod = NULL;
  g_autofree char *label = NULL;

  if (n < 2 || n > 14)
    {
      fprintf (stderr, "usage: bench-egraph [N], 2 <= N <= 14\n");
      return 2;
    }
  if (!prism_rule_set_add_builtin (rules, "arith", &error))
    {
      fprintf (stderr, "%s\n", error->message);
      return 1;
    }
  sum = chain ("+", n);
  prod = chain ("*", n);
  printf ("%-26s %-8s %-10s %5s %8s %7s %9s %10s %8s %9s %10s %9s\n",
          "example", "mode", "stop", "iters", "nodes", "classes", "applied", "matches", "seconds",
          "nodes/s", "matches/s", "lookup_us");
  for (guint k = n - 2; k <= n; k++)
    {
      g_autofree char *s = chain ("+", k);
      g_clear_pointer (&label, g_free);
      label = g_strdup_printf ("comm/assoc sum of %u", k);
      run_one (label, s, PRISM_EGRAPH_FLAGS_NONE, rules);
    }
  g_clear_pointer (&label, g_free);
  label = g_strdup_printf ("comm/assoc sum of %u", n);
  run_one (label, sum, PRISM_EGRAPH_EXPLAIN, rules);
  g_clear_pointer (&label, g_free);
  label = g_strdup_printf ("comm/assoc product of %u", n);
  run_one (label, prod, PRISM_EGRAPH_FLAGS_NONE, rules);
  return 0;
}
