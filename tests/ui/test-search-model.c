/* test-search-model.c — the explorer's model of a running search
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>

#include "prism-candidate-row.h"
#include "prism-search-model.h"
#include "prism-workload.h"
#include "ui-test-util.h"

/*****************************************************************************/

static PrismGraph *
workload (gboolean fused)
{
  g_autoptr(GError) error = NULL;
  PrismGraph *graph = fused ? prism_workload_build_reference ("rms_norm", NULL, &error)
                            : prism_workload_build ("rms_norm", NULL, &error);

  g_assert_no_error (error);
  return graph;
}

static JsonNode *
evidence (gboolean formal, gboolean random)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text =
    g_strdup_printf ("{ \"verdict\": \"equivalent\", \"message\": \"Proved.\", \"methods\": [ %s %s %s ],"
                     "  \"formal\": { \"ran\": %s, \"proved\": %s, \"stop_reason\": \"saturated\","
                     "                \"proof_length\": 3, \"rules_used\": [ \"part-matmul\", \"accum-sum\", \"div-comm\" ],"
                     "                \"seconds\": 0.25 },"
                     "  \"random\": { \"ran\": %s, \"ok\": true, \"seeds\": [ 7, 8, 9 ], \"max_error\": 2.5e-06,"
                     "               \"tolerance\": 0.001, \"sizes\": \"gx0=4\", \"seconds\": 0.5 } }",
                     formal ? "\"formal\"" : "", formal && random ? "," : "", random ? "\"random\"" : "",
                     formal ? "true" : "false", formal ? "true" : "false", random ? "true" : "false");
  JsonNode *node = json_from_string (text, &error);

  g_assert_no_error (error);
  return node;
}

static PrismCandidate *
candidate_new (guint id, double speedup, gboolean fused)
{
  PrismCandidate *c = prism_candidate_new ();

  c->id = id;
  c->digest = g_strdup_printf ("%032x", id);
  c->graph = workload (fused);
  c->n_kernels = prism_graph_count_kernels (c->graph);
  c->verdict = g_strdup ("equivalent");
  c->verification = evidence (TRUE, TRUE);
  c->predicted_us = 10.0 / speedup;
  c->speedup = speedup;
  c->found_at_s = id;
  return c;
}

static PrismEvent *
progress_new (double time_s, guint64 states)
{
  PrismEvent *e = prism_event_new (PRISM_EVENT_PROGRESS);

  e->time_s = time_s;
  e->stats.search.states = states;
  e->stats.search.states_by_depth[0] = 1;
  e->stats.search.states_by_depth[1] = states - 1;
  e->stats.search.pruned[PRISM_PRUNE_SHAPE] = 2 * states;
  e->stats.search.pruned[PRISM_PRUNE_EXPR] = states / 2;
  e->stats.search.elapsed_s = time_s;
  return e;
}

static PrismEvent *
verified_new (double time_s, PrismCandidate *candidate)
{
  PrismEvent *e = prism_event_new (PRISM_EVENT_VERIFIED);

  e->time_s = time_s;
  e->candidate = prism_candidate_ref (candidate);
  e->id = candidate->id;
  return e;
}

static void
count_cb (PrismSearchModel *model, guint *count)
{
  (*count)++;
}

/*****************************************************************************/

static void
test_depth_of_graph (void)
{
  g_autoptr(PrismGraph) unfused = workload (FALSE);
  g_autoptr(PrismGraph) fused = workload (TRUE);

  /* rms_norm then matmul: two steps. */
  g_assert_cmpuint (prism_search_depth_of_graph (unfused), ==, 2);
  /* One kernel: open, matmul, accum, accum_rms, div, close. */
  g_assert_cmpuint (prism_search_depth_of_graph (fused), ==, 6);
  g_assert_cmpuint (prism_search_depth_of_graph (NULL), ==, 0);
}

static void
test_apply_batch (void)
{
  g_autoptr(PrismSearchModel) model = prism_search_model_new ();
  g_autoptr(PrismCandidate) slow = candidate_new (1, 1.2, TRUE);
  g_autoptr(PrismCandidate) fast = candidate_new (2, 1.8, TRUE);
  g_autoptr(PrismEvent) sgraph = prism_event_new (PRISM_EVENT_SGRAPH);
  g_autoptr(PrismEvent) rejected = prism_event_new (PRISM_EVENT_REJECTED);
  g_autoptr(PrismEvent) finished = prism_event_new (PRISM_EVENT_FINISHED);
  g_autoptr(GPtrArray) batch = g_ptr_array_new_with_free_func ((GDestroyNotify) prism_event_unref);
  const PrismSpeedupPoint *points;
  guint n_points = 0, changed = 0;
  g_autoptr(PrismCandidateRow) row = NULL;

  g_signal_connect (model, "changed", G_CALLBACK (count_cb), &changed);
  g_assert_cmpint (prism_search_model_get_state (model), ==, PRISM_SEARCH_STATE_IDLE);

  sgraph->graph = workload (TRUE);
  sgraph->time_s = 0.5;
  rejected->graph = workload (FALSE);
  rejected->time_s = 0.6;
  g_ptr_array_add (batch, progress_new (0.4, 100));
  g_ptr_array_add (batch, prism_event_ref (sgraph));
  g_ptr_array_add (batch, prism_event_ref (sgraph));
  g_ptr_array_add (batch, prism_event_ref (rejected));
  g_ptr_array_add (batch, verified_new (1.0, slow));
  g_ptr_array_add (batch, verified_new (2.0, fast));
  g_ptr_array_add (batch, progress_new (2.5, 400));
  prism_search_model_apply_events (model, (PrismEvent **) batch->pdata, batch->len);

  /* Nothing is emitted from inside apply. */
  g_assert_cmpuint (changed, ==, 0);
  g_assert_cmpint (prism_search_model_get_state (model), ==, PRISM_SEARCH_STATE_RUNNING);

  /* Counters: the latest progress wins; sGraphs and verdicts land at the
   * depth their graph was completed at. */
  g_assert_cmpuint (prism_search_model_get_stats (model)->search.states, ==, 400);
  g_assert_cmpuint (prism_search_model_get_depth (model, 1)->states, ==, 399);
  g_assert_cmpuint (prism_search_model_get_depth (model, 6)->sgraphs, ==, 2);
  g_assert_cmpuint (prism_search_model_get_depth (model, 6)->verified, ==, 2);
  g_assert_cmpuint (prism_search_model_get_depth (model, 2)->rejected, ==, 1);
  g_assert_cmpuint (prism_search_model_get_n_depths (model), ==, 7);
  g_assert_cmpuint (prism_search_model_get_sgraphs (model), ==, 2);
  g_assert_cmpuint (prism_search_model_get_verified (model), ==, 2);
  g_assert_cmpuint (prism_search_model_get_rejected (model), ==, 1);
  g_assert_cmpfloat (prism_search_model_get_elapsed (model), ==, 2.5);
  /* 300 states in 2.1 s of search. */
  g_assert_cmpfloat_with_epsilon (prism_search_model_get_states_per_second (model), 300 / 2.1, 1e-6);

  /* Candidates in the order verified; the faster is the best. */
  g_assert_cmpuint (g_list_model_get_n_items (prism_search_model_get_candidates (model)), ==, 2);
  row = g_list_model_get_item (prism_search_model_get_candidates (model), 0);
  g_assert_cmpuint (prism_candidate_row_get_id (row), ==, 1);
  g_assert_true (prism_search_model_get_best (model) != NULL);
  g_assert_cmpuint (prism_candidate_row_get_id (prism_search_model_get_best (model)), ==, 2);
  g_assert_cmpfloat (prism_search_model_get_best_speedup (model), ==, 1.8);
  g_assert_false (prism_search_model_get_best_measured (model));

  points = prism_search_model_get_points (model, &n_points);
  g_assert_cmpuint (n_points, ==, 2);
  g_assert_cmpfloat (points[0].time_s, ==, 1.0);
  g_assert_cmpfloat (points[1].speedup, ==, 1.8);
  g_assert_false (points[1].measured);
  points = prism_search_model_get_best_series (model, &n_points);
  g_assert_cmpuint (n_points, ==, 2);
  g_assert_cmpfloat (points[0].speedup, ==, 1.2);
  g_assert_cmpfloat (points[1].speedup, ==, 1.8);

  /* A candidate met again (a BEST event after its VERIFIED) is not added twice. */
  {
    g_autoptr(PrismEvent) best = prism_event_new (PRISM_EVENT_BEST);
    best->candidate = prism_candidate_ref (fast);
    best->id = fast->id;
    best->time_s = 2.0;
    prism_search_model_apply_event (model, best);
    g_assert_cmpuint (g_list_model_get_n_items (prism_search_model_get_candidates (model)), ==, 2);
  }

  /* The change comes from the main loop, once. */
  prism_search_model_flush (model);
  g_assert_cmpuint (changed, ==, 1);
  prism_search_model_flush (model);
  g_assert_cmpuint (changed, ==, 1);

  /* A GPU measurement replaces the prediction everywhere it is shown. */
  prism_search_model_set_measured (model, fast->digest, 4.0, 2.4);
  g_assert_true (prism_search_model_get_best_measured (model));
  g_assert_cmpfloat (prism_search_model_get_best_speedup (model), ==, 2.4);
  points = prism_search_model_get_points (model, &n_points);
  g_assert_true (points[1].measured);
  g_assert_cmpfloat (points[1].speedup, ==, 2.4);
  g_assert_false (points[0].measured);

  finished->kind = PRISM_EVENT_FINISHED;
  finished->message = g_strdup ("exhausted");
  finished->time_s = 3;
  finished->stats = prism_search_model_get_stats (model)[0];
  prism_search_model_apply_event (model, finished);
  g_assert_cmpint (prism_search_model_get_state (model), ==, PRISM_SEARCH_STATE_FINISHED);
  g_assert_cmpstr (prism_search_model_get_stop_reason (model), ==, "exhausted");

  /* A reset forgets the run. */
  prism_search_model_reset (model);
  g_assert_cmpuint (g_list_model_get_n_items (prism_search_model_get_candidates (model)), ==, 0);
  g_assert_cmpuint (prism_search_model_get_n_depths (model), ==, 0);
  g_assert_null (prism_search_model_get_best (model));
  g_assert_null (prism_search_model_get_stop_reason (model));
}

static void
test_error (void)
{
  g_autoptr(PrismSearchModel) model = prism_search_model_new ();
  g_autoptr(PrismEvent) error = prism_event_new (PRISM_EVENT_ERROR);
  g_autoptr(PrismEvent) finished = prism_event_new (PRISM_EVENT_FINISHED);

  error->message = g_strdup ("no oracle");
  finished->message = g_strdup ("error");
  prism_search_model_apply_event (model, error);
  prism_search_model_apply_event (model, finished);
  g_assert_cmpint (prism_search_model_get_state (model), ==, PRISM_SEARCH_STATE_FAILED);
  g_assert_cmpstr (prism_search_model_get_error (model), ==, "no oracle");
}

/* Memory stays bounded: past the caps the model keeps the fastest rows and
 * a thinned series, and counts what it does not show. */
static void
test_caps (void)
{
  g_autoptr(PrismSearchModel) model = prism_search_model_new ();
  static const double speedups[] = { 1.1, 0.9, 1.5, 1.3, 2.0, 0.8, 1.7, 1.05, 1.9, 1.2, 1.6, 1.4 };
  const PrismSpeedupPoint *points;
  guint n_points = 0, n_best = 0;
  GListModel *rows;
  double shown_min = G_MAXDOUBLE;

  prism_search_model_set_caps (model, 3, 8);
  for (guint i = 0; i < G_N_ELEMENTS (speedups); i++)
    {
      g_autoptr(PrismCandidate) c = candidate_new (i + 1, speedups[i], i % 2);
      g_autoptr(PrismEvent) e = verified_new (i + 1, c);

      prism_search_model_apply_event (model, e);
    }

  /* The three fastest are shown, the other nine counted. */
  rows = prism_search_model_get_candidates (model);
  g_assert_cmpuint (g_list_model_get_n_items (rows), ==, 3);
  g_assert_cmpuint (prism_search_model_get_hidden_candidates (model), ==, 9);
  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(PrismCandidateRow) row = g_list_model_get_item (rows, i);
      shown_min = MIN (shown_min, prism_candidate_row_get_speedup (row));
    }
  g_assert_cmpfloat (shown_min, ==, 1.7);
  g_assert_cmpfloat (prism_search_model_get_best_speedup (model), ==, 2.0);
  g_assert_cmpuint (prism_search_model_get_verified (model), ==, 12);

  /* Points: thinned, every point accounted for, first and last kept. */
  points = prism_search_model_get_points (model, &n_points);
  g_assert_cmpuint (n_points, <=, 8);
  g_assert_cmpuint (n_points + prism_search_model_get_hidden_points (model), ==, 12);
  g_assert_cmpfloat (points[0].time_s, ==, 1);
  g_assert_cmpfloat (points[n_points - 1].time_s, ==, 12);
  for (guint i = 1; i < n_points; i++)
    g_assert_cmpfloat (points[i - 1].time_s, <, points[i].time_s);

  /* The best series only rises. */
  points = prism_search_model_get_best_series (model, &n_best);
  g_assert_cmpuint (n_best, ==, 3);  /* 1.1, 1.5, 2.0 */
  for (guint i = 1; i < n_best; i++)
    g_assert_cmpfloat (points[i - 1].speedup, <, points[i].speedup);
}

/* A graph from elsewhere is a row beside the run's, not one of its results:
 * a slow one is never pushed out by the cap, a fast one is never the best,
 * and neither counts as verified by the run or as a point of its chart. */
static void
test_external (void)
{
  g_autoptr(PrismSearchModel) model = prism_search_model_new ();
  g_autoptr(PrismCandidate) slow = candidate_new (100, 0.5, TRUE);
  g_autoptr(PrismCandidate) fast = candidate_new (101, 9.0, TRUE);
  GListModel *rows = prism_search_model_get_candidates (model);
  guint n_points = 0, n_external = 0;

  prism_search_model_set_caps (model, 2, 8);
  g_assert_true (prism_search_model_add_external (model, slow, 0, "Mirage graph 0", "m.json"));
  g_assert_true (prism_search_model_add_external (model, fast, 1, "Mirage graph 1", "m.json"));
  /* The same digest again: no second row. */
  g_assert_false (prism_search_model_add_external (model, fast, 1, "Mirage graph 1", "m.json"));
  for (guint i = 0; i < 4; i++)
    {
      g_autoptr(PrismCandidate) c = candidate_new (i + 1, 1.1 + i, TRUE);
      g_autoptr(PrismEvent) e = verified_new (i + 1, c);

      prism_search_model_apply_event (model, e);
    }

  /* Two of the run's (the cap) and both external rows. */
  g_assert_cmpuint (g_list_model_get_n_items (rows), ==, 4);
  g_assert_cmpuint (prism_search_model_get_hidden_candidates (model), ==, 2);
  g_assert_cmpuint (prism_search_model_get_n_external (model), ==, 2);
  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(PrismCandidateRow) row = g_list_model_get_item (rows, i);
      g_autofree char *name = prism_candidate_row_dup_name (row);
      g_autofree char *title = prism_candidate_row_dup_title (row);

      if (!prism_candidate_row_is_external (row))
        {
          g_assert_cmpfloat (prism_candidate_row_get_speedup (row), >, 3.0);
          g_assert_cmpuint (name[0], ==, '#');
          continue;
        }
      n_external++;
      g_assert_cmpstr (name, ==, prism_candidate_row_get_label (row));
      g_assert_cmpstr (title, ==, prism_candidate_row_get_label (row));
      g_assert_cmpstr (prism_candidate_row_get_source (row), ==, "m.json");
    }
  g_assert_cmpuint (n_external, ==, 2);
  g_assert_cmpuint (prism_search_model_get_verified (model), ==, 4);
  g_assert_cmpfloat (prism_search_model_get_best_speedup (model), ==, 4.1);
  g_assert_false (prism_candidate_row_is_external (prism_search_model_get_best (model)));
  prism_search_model_get_points (model, &n_points);
  g_assert_cmpuint (n_points + prism_search_model_get_hidden_points (model), ==, 4);

  /* A new search clears them. */
  prism_search_model_reset (model);
  g_assert_cmpuint (g_list_model_get_n_items (rows), ==, 0);
  g_assert_cmpuint (prism_search_model_get_n_external (model), ==, 0);
}

/* Many batches in a burst make one "changed"; a steady stream makes at
 * most ~30 a second. */
static void
test_coalescing (void)
{
  g_autoptr(PrismSearchModel) model = prism_search_model_new ();
  guint changed = 0;
  gint64 start, end;
  guint64 states = 1;

  g_signal_connect (model, "changed", G_CALLBACK (count_cb), &changed);

  for (guint i = 0; i < 200; i++)
    {
      g_autoptr(PrismEvent) e = progress_new (i * 0.01, states + i + 1);
      prism_search_model_apply_event (model, e);
    }
  g_assert_cmpuint (changed, ==, 0);
  ui_test_spin_for_ms (100);
  g_assert_cmpuint (changed, ==, 1);
  states += 200;

  /* A batch every millisecond for half a second. */
  changed = 0;
  start = g_get_monotonic_time ();
  end = start + G_USEC_PER_SEC / 2;
  while (g_get_monotonic_time () < end)
    {
      g_autoptr(PrismEvent) e = NULL;

      states++;
      e = progress_new (states * 0.001, states);
      prism_search_model_apply_event (model, e);
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
  ui_test_spin_for_ms (100);
  end = g_get_monotonic_time ();
  g_test_message ("%u changes in %.0f ms", changed, (end - start) / 1000.0);
  g_assert_cmpuint (changed, >=, 1);
  g_assert_cmpuint (changed, <=, (end - start) / (G_USEC_PER_SEC / 30) + 2);
  g_assert_cmpuint (prism_search_model_get_stats (model)->search.states, ==, states);
}

/* The candidate row reads the verifier's evidence. */
static void
test_row_evidence (void)
{
  g_autoptr(PrismCandidate) c = candidate_new (5, 1.5, TRUE);
  g_autoptr(PrismCandidateRow) row = prism_candidate_row_new (c, c->id);
  const char * const *rules;
  GArray *seeds;
  double speedup = 0;
  guint method;

  g_assert_cmpuint (prism_candidate_row_get_id (row), ==, 5);
  g_assert_cmpint (prism_candidate_row_get_method (row), ==, PRISM_VERIFICATION_FORMAL_RANDOM);
  g_assert_true (prism_candidate_row_get_proved (row));
  rules = prism_candidate_row_get_proof_rules (row);
  g_assert_cmpuint (g_strv_length ((char **) rules), ==, 3);
  g_assert_cmpstr (rules[0], ==, "part-matmul");
  g_assert_cmpstr (rules[2], ==, "div-comm");
  g_assert_cmpuint (prism_candidate_row_get_proof_length (row), ==, 3);
  g_assert_cmpstr (prism_candidate_row_get_proof_stop (row), ==, "saturated");
  g_assert_true (prism_candidate_row_get_random_ran (row));
  g_assert_true (prism_candidate_row_get_random_ok (row));
  seeds = prism_candidate_row_get_seeds (row);
  g_assert_cmpuint (seeds->len, ==, 3);
  g_assert_cmpuint (g_array_index (seeds, guint64, 2), ==, 9);
  g_assert_cmpfloat (prism_candidate_row_get_max_error (row), ==, 2.5e-6);
  g_assert_cmpfloat (prism_candidate_row_get_tolerance (row), ==, 1e-3);
  g_assert_cmpstr (prism_candidate_row_get_random_sizes (row), ==, "gx0=4");
  g_assert_cmpstr (prism_candidate_row_get_message (row), ==, "Proved.");
  g_assert_false (prism_candidate_row_get_measured (row));
  g_assert_cmpfloat (prism_candidate_row_get_time_us (row), ==, 10.0 / 1.5);

  /* Properties are what the table's sorters read. */
  g_object_get (row, "speedup", &speedup, "method", &method, NULL);
  g_assert_cmpfloat (speedup, ==, 1.5);
  g_assert_cmpuint (method, ==, PRISM_VERIFICATION_FORMAL_RANDOM);

  /* A proof alone, a test alone. */
  {
    g_autoptr(PrismCandidate) formal = candidate_new (6, 1.1, TRUE);
    g_autoptr(PrismCandidate) random = candidate_new (7, 1.1, TRUE);
    g_autoptr(PrismCandidateRow) formal_row = NULL;
    g_autoptr(PrismCandidateRow) random_row = NULL;

    json_node_unref (formal->verification);
    formal->verification = evidence (TRUE, FALSE);
    json_node_unref (random->verification);
    random->verification = evidence (FALSE, TRUE);
    formal_row = prism_candidate_row_new (formal, formal->id);
    random_row = prism_candidate_row_new (random, random->id);
    g_assert_cmpint (prism_candidate_row_get_method (formal_row), ==, PRISM_VERIFICATION_FORMAL);
    g_assert_cmpint (prism_candidate_row_get_method (random_row), ==, PRISM_VERIFICATION_RANDOM);
    g_assert_false (prism_candidate_row_get_proved (random_row));
  }

  /* No evidence at all is said, not guessed. */
  {
    g_autoptr(PrismCandidate) bare = candidate_new (8, 1.1, TRUE);
    g_autoptr(PrismCandidateRow) bare_row = NULL;

    g_clear_pointer (&bare->verification, json_node_unref);
    bare_row = prism_candidate_row_new (bare, bare->id);
    g_assert_cmpint (prism_candidate_row_get_method (bare_row), ==, PRISM_VERIFICATION_NONE);
    g_assert_true (isnan (prism_candidate_row_get_max_error (bare_row)));
    g_assert_cmpuint (prism_candidate_row_get_seeds (bare_row)->len, ==, 0);
  }
}

static void
notify_cb (GObject *object, GParamSpec *pspec, GPtrArray *names)
{
  g_ptr_array_add (names, g_strdup (pspec->name));
}

static void
test_row_measured (void)
{
  g_autoptr(PrismCandidate) c = candidate_new (3, 1.25, FALSE);
  g_autoptr(PrismCandidateRow) row = prism_candidate_row_new (c, c->id);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);

  g_signal_connect (row, "notify", G_CALLBACK (notify_cb), names);
  prism_candidate_row_set_measured (row, 5.0, 1.6);
  g_assert_true (prism_candidate_row_get_measured (row));
  g_assert_cmpfloat (prism_candidate_row_get_time_us (row), ==, 5.0);
  g_assert_cmpfloat (prism_candidate_row_get_speedup (row), ==, 1.6);
  g_assert_cmpfloat (prism_candidate_row_get_predicted_us (row), ==, 8.0);
  g_assert_true (g_ptr_array_find_with_equal_func (names, "measured", g_str_equal, NULL));
  g_assert_true (g_ptr_array_find_with_equal_func (names, "speedup", g_str_equal, NULL));
  g_assert_true (g_ptr_array_find_with_equal_func (names, "time-us", g_str_equal, NULL));

  /* The same measurement again is not a change. */
  g_ptr_array_set_size (names, 0);
  prism_candidate_row_set_measured (row, 5.0, 1.6);
  g_assert_cmpuint (names->len, ==, 0);
}

/* Ids are given once: the rows, the best and the points keep the ids the
 * VERIFIED events published, through the end of the run. */
static void
test_ids_kept (void)
{
  g_autoptr(PrismSearchModel) model = prism_search_model_new ();
  g_autoptr(PrismCandidate) a = candidate_new (1, 1.2, TRUE);
  g_autoptr(PrismCandidate) b = candidate_new (2, 1.9, TRUE);
  g_autoptr(PrismCandidate) c = candidate_new (3, 1.5, TRUE);
  PrismCandidate *cands[] = { a, b, c };
  g_autoptr(PrismEvent) finished = prism_event_new (PRISM_EVENT_FINISHED);
  const PrismSpeedupPoint *points;
  guint n_points = 0;

  for (guint i = 0; i < G_N_ELEMENTS (cands); i++)
    {
      g_autoptr(PrismEvent) e = verified_new (i + 1.0, cands[i]);

      e->id = 7 + i;
      prism_search_model_apply_event (model, e);
    }
  finished->time_s = 9.0;
  finished->message = g_strdup ("exhausted");
  prism_search_model_apply_event (model, finished);
  g_assert_cmpint (prism_search_model_get_state (model), ==, PRISM_SEARCH_STATE_FINISHED);

  for (guint i = 0; i < G_N_ELEMENTS (cands); i++)
    {
      g_autoptr(PrismCandidateRow) row = g_list_model_get_item (prism_search_model_get_candidates (model), i);
      g_assert_cmpuint (prism_candidate_row_get_id (row), ==, 7 + i);
    }
  g_assert_cmpuint (prism_candidate_row_get_id (prism_search_model_get_best (model)), ==, 8);
  points = prism_search_model_get_points (model, &n_points);
  g_assert_cmpuint (n_points, ==, 3);
  for (guint i = 0; i < n_points; i++)
    g_assert_cmpuint (points[i].id, ==, 7 + i);
}

/*****************************************************************************/

/* Candidates slower than the program are listed, but none is the best. */
static void
test_nothing_faster (void)
{
  g_autoptr(PrismSearchModel) model = prism_search_model_new ();
  g_autoptr(PrismCandidate) slower = candidate_new (1, 0.8, TRUE);
  g_autoptr(PrismCandidate) slow = candidate_new (2, 0.95, TRUE);
  g_autoptr(GPtrArray) batch = g_ptr_array_new_with_free_func ((GDestroyNotify) prism_event_unref);
  guint n_points = 0;

  g_ptr_array_add (batch, verified_new (1.0, slower));
  g_ptr_array_add (batch, verified_new (2.0, slow));
  prism_search_model_apply_events (model, (PrismEvent **) batch->pdata, batch->len);

  g_assert_cmpuint (g_list_model_get_n_items (prism_search_model_get_candidates (model)), ==, 2);
  g_assert_cmpuint (prism_search_model_get_verified (model), ==, 2);
  g_assert_null (prism_search_model_get_best (model));
  g_assert_cmpfloat (prism_search_model_get_best_speedup (model), ==, 0);
  prism_search_model_get_best_series (model, &n_points);
  g_assert_cmpuint (n_points, ==, 0);
}

/* While no state is explored, the pace says why: every worker deciding a
 * candidate, or the GPU timing the best ones; a searching one is counted
 * in states per second, and a finished search is not said to decide. */
static void
test_pace (void)
{
  g_autoptr(PrismSearchModel) model = prism_search_model_new ();
  g_autoptr(PrismEvent) tuning = prism_event_new (PRISM_EVENT_TUNING);
  g_autoptr(PrismEvent) done = prism_event_new (PRISM_EVENT_TUNING);
  g_autoptr(PrismEvent) finished = prism_event_new (PRISM_EVENT_FINISHED);
  g_autofree char *pace = NULL;
  PrismEvent *e;

  e = progress_new (1.0, 1000);
  prism_search_model_apply_event (model, e);
  prism_event_unref (e);
  e = progress_new (2.0, 3000);
  e->stats.deciding = 2;
  prism_search_model_apply_event (model, e);
  prism_event_unref (e);
  pace = prism_search_model_dup_pace (model, NULL);
  g_assert_cmpstr (pace, ==, "2.00 k states/s");
  g_clear_pointer (&pace, g_free);

  /* Three seconds without a state, two candidates being decided. */
  for (guint i = 0; i < 4; i++)
    {
      e = progress_new (3.0 + i, 3000);
      e->stats.deciding = 2;
      prism_search_model_apply_event (model, e);
      prism_event_unref (e);
    }
  pace = prism_search_model_dup_pace (model, NULL);
  g_assert_cmpstr (pace, ==, "deciding 2 candidates");
  g_clear_pointer (&pace, g_free);
  e = progress_new (7.0, 3000);
  e->stats.deciding = 1;
  prism_search_model_apply_event (model, e);
  prism_event_unref (e);
  pace = prism_search_model_dup_pace (model, NULL);
  g_assert_cmpstr (pace, ==, "deciding 1 candidate");
  g_clear_pointer (&pace, g_free);
  /* Between decisions, the workers make more candidates from sGraphs. */
  e = progress_new (8.0, 3000);
  e->stats.instantiating = 2;
  prism_search_model_apply_event (model, e);
  prism_event_unref (e);
  pace = prism_search_model_dup_pace (model, NULL);
  g_assert_cmpstr (pace, ==, "making the candidates of 2 sGraphs");
  g_clear_pointer (&pace, g_free);

  /* After the search, the GPU times the best candidates. */
  tuning->tune_status = PRISM_TUNE_MEASURING;
  tuning->message = g_strdup ("Test GPU");
  tuning->tune_count = 3;
  prism_search_model_apply_event (model, tuning);
  pace = prism_search_model_dup_pace (model, NULL);
  g_assert_cmpstr (pace, ==, "timing candidates on the GPU");
  g_clear_pointer (&pace, g_free);
  done->tune_status = PRISM_TUNE_DONE;
  done->message = g_strdup ("Test GPU");
  prism_search_model_apply_event (model, done);
  finished->message = g_strdup ("stopped");
  finished->stats.search.states = 3000;
  finished->stats.deciding = 1;   /* cut short by the stop */
  finished->stats.search.elapsed_s = 8.0;
  prism_search_model_apply_event (model, finished);
  /* Ended, the pace is the run's average (issue 25, item 6: a reopened
   * run said "States per second: 0"; this said "0 states/s"). */
  pace = prism_search_model_dup_pace (model, NULL);
  g_assert_cmpstr (pace, ==, "375 states/s");
  g_assert_cmpfloat_with_epsilon (prism_search_model_get_states_per_second (model), 375, 1e-9);
  g_clear_pointer (&pace, g_free);

  /* A run reopened from its results: one figure of each counter. */
  {
    g_autoptr(PrismSearchModel) reopened = prism_search_model_new ();
    g_autoptr(PrismEvent) end = prism_event_new (PRISM_EVENT_FINISHED);

    end->message = g_strdup ("exhausted");
    end->stats.search.states = 12000;
    end->stats.search.elapsed_s = 4.0;
    prism_search_model_apply_event (reopened, end);
    pace = prism_search_model_dup_pace (reopened, NULL);
    g_assert_cmpstr (pace, ==, "3.00 k states/s");
  }
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/explorer/search-model/depth-of-graph", test_depth_of_graph);
  g_test_add_func ("/explorer/search-model/apply-batch", test_apply_batch);
  g_test_add_func ("/explorer/search-model/error", test_error);
  g_test_add_func ("/explorer/search-model/caps", test_caps);
  g_test_add_func ("/explorer/search-model/external", test_external);
  g_test_add_func ("/explorer/search-model/nothing-faster", test_nothing_faster);
  g_test_add_func ("/explorer/search-model/coalescing", test_coalescing);
  g_test_add_func ("/explorer/search-model/ids-kept", test_ids_kept);
  g_test_add_func ("/explorer/search-model/pace", test_pace);
  g_test_add_func ("/explorer/candidate-row/evidence", test_row_evidence);
  g_test_add_func ("/explorer/candidate-row/measured", test_row_measured);

  return g_test_run ();
}
