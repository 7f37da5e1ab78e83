/* bench-oracle.c — the pruning oracle's reference e-graph per built-in
 * workload, and how fast it answers
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Not a test (nothing is asserted): prints, per workload, the saturated
 * e-graph's size, iterations, stop reason and saturation time, then times
 * prism_oracle_check() over every tensor of the unfused program and of the
 * fused reference graph (kernel and block level), one thread, and reports
 * how many of those tensors pass.  Results go to docs/benchmarks.md.
 *
 *   bench-oracle [--mode untiled|concrete] [--seconds S] [WORKLOAD…]
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "prism-oracle.h"
#include "prism-workload.h"

typedef struct
{
  const PrismGraph *graph;
  const PrismGraph *block;      /* NULL: a kernel tensor */
  const guint *block_inputs;
  guint tensor;
} Query;

static void
collect (const PrismGraph *g, GArray *queries)
{
  for (guint t = 0; t < g->tensors->len; t++)
    {
      Query q = { g, NULL, NULL, t };
      g_array_append_val (queries, q);
    }
  for (guint i = 0; i < g->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (g, i);
      if (op->body == NULL)
        continue;
      for (guint t = 0; t < op->body->tensors->len; t++)
        {
          Query q = { g, op->body, op->inputs, t };
          g_array_append_val (queries, q);
        }
    }
}

static int
bench (const char *name, const PrismOracleOptions *options, double seconds)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismGraph) program = prism_workload_build (name, NULL, &error);
  g_autoptr(PrismGraph) reference = NULL;
  g_autoptr(PrismOracle) oracle = NULL;
  g_autoptr(GArray) queries = g_array_new (FALSE, FALSE, sizeof (Query));
  PrismOracleStats st;
  guint n_program, n_pass_program = 0, n_pass_ref = 0;
  guint64 checks = 0;
  gint64 start, elapsed;

  if (program == NULL)
    {
      fprintf (stderr, "%s: %s\n", name, error->message);
      return 1;
    }
  reference = prism_workload_build_reference (name, NULL, NULL);
  oracle = prism_oracle_new_full (program, options, &error);
  if (oracle == NULL)
    {
      fprintf (stderr, "%s: %s\n", name, error->message);
      return 1;
    }
  prism_oracle_get_stats (oracle, &st);

  collect (program, queries);
  n_program = queries->len;
  if (reference != NULL)
    collect (reference, queries);
  for (guint i = 0; i < queries->len; i++)
    {
      const Query *q = &g_array_index (queries, Query, i);
      gboolean pass = prism_oracle_check (oracle, q->graph, q->block, q->block_inputs, q->tensor);
      if (pass)
        *(i < n_program ? &n_pass_program : &n_pass_ref) += 1;
    }

  start = g_get_monotonic_time ();
  do
    {
      for (guint i = 0; i < queries->len; i++)
        {
          const Query *q = &g_array_index (queries, Query, i);
          prism_oracle_check (oracle, q->graph, q->block, q->block_inputs, q->tensor);
        }
      checks += queries->len;
      elapsed = g_get_monotonic_time () - start;
    }
  while (elapsed < seconds * G_USEC_PER_SEC);

  printf ("| %s | %u | %u | %u | %u | %u | %s | %.3f | %u/%u | %u/%u | %.2f |\n",
          name, st.n_target_nodes, st.n_factor_rules, st.n_nodes, st.n_classes, st.iterations,
          prism_stop_reason_to_string (st.stop_reason), st.seconds, n_pass_program, n_program,
          n_pass_ref, queries->len - n_program, checks / (elapsed / (double) G_USEC_PER_SEC) / 1e6);
  fflush (stdout);
  return 0;
}

int
main (int argc, char *argv[])
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *mode = NULL;
  double seconds = 1.0;
  int match_limit = 0, max_nodes = 100000, max_iterations = 100;
  PrismOracleOptions options;
  GOptionEntry entries[] = {
    { "mode", 0, 0, G_OPTION_ARG_STRING, &mode, "untiled (default) or concrete", "MODE" },
    { "seconds", 0, 0, G_OPTION_ARG_DOUBLE, &seconds, "time spent checking per workload", "S" },
    { "match-limit", 0, 0, G_OPTION_ARG_INT, &match_limit, "backoff scheduler match limit (0: off)", "N" },
    { "max-nodes", 0, 0, G_OPTION_ARG_INT, &max_nodes, "e-graph node limit", "N" },
    { "max-iterations", 0, 0, G_OPTION_ARG_INT, &max_iterations, "iteration limit", "N" },
    { NULL }
  };
  int status = 0;

  context = g_option_context_new ("[WORKLOAD…]");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      fprintf (stderr, "%s\n", error->message);
      return 2;
    }
  prism_oracle_options_init (&options);
  if (mode != NULL && g_str_equal (mode, "concrete"))
    options.mode = PRISM_ABSTRACT_CONCRETE;
  options.match_limit = (guint) MAX (match_limit, 0);
  options.max_nodes = (guint) MAX (max_nodes, 0);
  options.max_iterations = (guint) MAX (max_iterations, 0);

  printf ("mode: %s; limits: %u nodes, %u iterations, %.0f s\n",
          prism_abstract_mode_to_string (options.mode), options.max_nodes,
          options.max_iterations, options.time_limit_s);
  printf ("| workload | target nodes | factor rules | e-nodes | e-classes | iterations "
          "| stop | saturation s | program pass | fused pass | M checks/s |\n");
  printf ("|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|\n");
  if (argc > 1)
    {
      for (int i = 1; i < argc; i++)
        status |= bench (argv[i], &options, seconds);
    }
  else
    {
      guint n;
      const PrismWorkloadInfo *list = prism_workload_list (&n);
      for (guint i = 0; i < n; i++)
        status |= bench (list[i].name, &options, seconds);
    }
  return status;
}
