/* prism-results.c — verified candidates and the results.json file
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The file format is specified in docs/format.md ("prism-results").
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <glib/gstdio.h>

#include "prism-error.h"
#include "prism-graph-json.h"
#include "prism-results.h"

/* ------------------------------------------------------------------------ */
/* GPU measurements */

PrismMeasurement *
prism_measurement_new (const char *gpu, const char *error)
{
  PrismMeasurement *m = g_new0 (PrismMeasurement, 1);

  m->gpu = g_strdup (gpu);
  m->error = g_strdup (error);
  return m;
}

PrismMeasurement *
prism_measurement_copy (const PrismMeasurement *m)
{
  PrismMeasurement *copy;

  if (m == NULL)
    return NULL;
  copy = g_memdup2 (m, sizeof *m);
  copy->gpu = g_strdup (m->gpu);
  copy->error = g_strdup (m->error);
  return copy;
}

void
prism_measurement_free (PrismMeasurement *m)
{
  if (m == NULL)
    return;
  g_free (m->gpu);
  g_free (m->error);
  g_free (m);
}

JsonNode *
prism_measurement_to_json (const PrismMeasurement *m)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "gpu");
  json_builder_add_string_value (b, m->gpu ? m->gpu : "");
  if (m->error != NULL)
    {
      json_builder_set_member_name (b, "error");
      json_builder_add_string_value (b, m->error);
    }
  else
    {
      json_builder_set_member_name (b, "median_us");
      json_builder_add_double_value (b, m->median_us);
      json_builder_set_member_name (b, "p20_us");
      json_builder_add_double_value (b, m->p20_us);
      json_builder_set_member_name (b, "p80_us");
      json_builder_add_double_value (b, m->p80_us);
      json_builder_set_member_name (b, "speedup");
      if (m->speedup > 0)
        json_builder_add_double_value (b, m->speedup);
      else
        json_builder_add_null_value (b);
      json_builder_set_member_name (b, "max_rel_error");
      json_builder_add_double_value (b, m->max_rel_error);
    }
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

static double get_double (JsonObject *obj, const char *name, double fallback);
static const char *get_string (JsonObject *obj, const char *name);

PrismMeasurement *
prism_measurement_from_json (JsonNode *node)
{
  JsonObject *obj;
  PrismMeasurement *m;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return NULL;
  obj = json_node_get_object (node);
  m = prism_measurement_new (get_string (obj, "gpu"), get_string (obj, "error"));
  if (m->error == NULL)
    {
      m->median_us = get_double (obj, "median_us", 0);
      m->p20_us = get_double (obj, "p20_us", m->median_us);
      m->p80_us = get_double (obj, "p80_us", m->median_us);
      m->speedup = get_double (obj, "speedup", 0);
      m->max_rel_error = get_double (obj, "max_rel_error", 0);
      /* A measurement without a time is no measurement. */
      if (!(m->median_us > 0))
        {
          prism_measurement_free (m);
          return NULL;
        }
    }
  return m;
}

/* ------------------------------------------------------------------------ */
/* Candidates */

PrismCandidate *
prism_candidate_new (void)
{
  PrismCandidate *c = g_new0 (PrismCandidate, 1);

  c->ref_count = 1;
  c->alternatives = g_ptr_array_new_with_free_func ((GDestroyNotify) prism_param_assignment_free);
  return c;
}

PrismCandidate *
prism_candidate_ref (PrismCandidate *candidate)
{
  g_return_val_if_fail (candidate != NULL, NULL);
  g_atomic_int_inc (&candidate->ref_count);
  return candidate;
}

void
prism_candidate_unref (PrismCandidate *candidate)
{
  if (candidate == NULL || !g_atomic_int_dec_and_test (&candidate->ref_count))
    return;
  g_free (candidate->digest);
  g_clear_pointer (&candidate->graph, prism_graph_unref);
  g_free (candidate->verdict);
  g_clear_pointer (&candidate->verification, json_node_unref);
  g_free (candidate->values);
  g_ptr_array_unref (candidate->alternatives);
  prism_measurement_free (candidate->measurement);
  g_free (candidate->json_text);
  g_free (candidate);
}

void
prism_candidate_invalidate (PrismCandidate *candidate)
{
  g_clear_pointer (&candidate->json_text, g_free);
}

const PrismMeasurement *
prism_candidate_get_measurement (const PrismCandidate *candidate)
{
  return g_atomic_pointer_get ((PrismMeasurement **) &candidate->measurement);
}

void
prism_candidate_set_measurement (PrismCandidate *candidate, PrismMeasurement *m)
{
  /* Readers on other threads may hold the old one: set once, never freed
   * before the candidate. */
  g_return_if_fail (g_atomic_pointer_get (&candidate->measurement) == NULL);
  g_atomic_pointer_set (&candidate->measurement, m);
  prism_candidate_invalidate (candidate);
}

static JsonNode *
params_to_json (const PrismGraph *graph, const gint64 *values, guint n_values)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  const char * const *names = prism_graph_var_names (graph);

  json_builder_begin_object (b);
  for (guint v = 0; v < n_values && names[v] != NULL; v++)
    if (values[v] > 0)
      {
        json_builder_set_member_name (b, names[v]);
        json_builder_add_int_value (b, values[v]);
      }
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

static gboolean
params_from_json (const PrismGraph *graph, JsonNode *node, gint64 **values, guint *n_values,
                  GError **error)
{
  const char * const *names = prism_graph_var_names (graph);
  JsonObject *obj;
  g_autoptr(GList) members = NULL;
  guint n = 0;

  while (names[n] != NULL)
    n++;
  *n_values = n;
  *values = g_new0 (gint64, MAX (n, 1));
  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_PARSE, "“params” is not an object");
      return FALSE;
    }
  obj = json_node_get_object (node);
  members = json_object_get_members (obj);
  for (GList *l = members; l != NULL; l = l->next)
    {
      JsonNode *v = json_object_get_member (obj, l->data);
      guint i;

      for (i = 0; i < n && g_strcmp0 (names[i], l->data) != 0; i++)
        ;
      if (i == n || !JSON_NODE_HOLDS_VALUE (v) || json_node_get_value_type (v) != G_TYPE_INT64 ||
          json_node_get_int (v) <= 0)
        {
          g_set_error (error, PRISM_ERROR, PRISM_ERROR_PARSE,
                       "“params”: “%s” is not a variable of the graph with a positive integer value",
                       (const char *) l->data);
          return FALSE;
        }
      (*values)[i] = json_node_get_int (v);
    }
  return TRUE;
}

JsonNode *
prism_candidate_to_json (const PrismCandidate *c)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "id");
  json_builder_add_int_value (b, c->id);
  json_builder_set_member_name (b, "digest");
  json_builder_add_string_value (b, c->digest);
  /* "graph" is the program to run (sizes chosen); "symbolic_graph" is the
   * form that was proved, with the sizes as variables. */
  json_builder_set_member_name (b, "graph");
  {
    g_autoptr(PrismGraph) concrete = prism_candidate_instantiate (c, NULL);
    if (concrete != NULL)
      json_builder_add_value (b, prism_graph_to_json (concrete, NULL));
    else
      json_builder_add_null_value (b);
  }
  json_builder_set_member_name (b, "symbolic_graph");
  json_builder_add_value (b, prism_graph_to_json (c->graph, NULL));
  json_builder_set_member_name (b, "kernels");
  json_builder_add_int_value (b, c->n_kernels);
  json_builder_set_member_name (b, "verified");
  json_builder_add_boolean_value (b, g_strcmp0 (c->verdict, "equivalent") == 0);
  json_builder_set_member_name (b, "verdict");
  json_builder_add_string_value (b, c->verdict ? c->verdict : "equivalent");
  json_builder_set_member_name (b, "verification");
  {
    JsonNode *v = c->verification ? json_node_copy (c->verification) : json_node_new (JSON_NODE_OBJECT);

    /* Not json_node_init_object(), which would keep a second reference. */
    if (c->verification == NULL)
      json_node_take_object (v, json_object_new ());
    if (JSON_NODE_HOLDS_OBJECT (v))
      json_object_set_boolean_member (json_node_get_object (v), "verified",
                                      g_strcmp0 (c->verdict, "equivalent") == 0);
    json_builder_add_value (b, v);
  }
  json_builder_set_member_name (b, "params");
  json_builder_add_value (b, params_to_json (c->graph, c->values, c->n_values));
  json_builder_set_member_name (b, "predicted_us");
  json_builder_add_double_value (b, c->predicted_us);
  json_builder_set_member_name (b, "speedup");
  json_builder_add_double_value (b, c->speedup);
  json_builder_set_member_name (b, "alternatives");
  json_builder_begin_array (b);
  for (guint i = 0; i < c->alternatives->len; i++)
    {
      const PrismParamAssignment *a = g_ptr_array_index (c->alternatives, i);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "params");
      json_builder_add_value (b, params_to_json (c->graph, a->values, a->n_values));
      json_builder_set_member_name (b, "predicted_us");
      json_builder_add_double_value (b, a->predicted_us);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_set_member_name (b, "found_at_s");
  json_builder_add_double_value (b, c->found_at_s);
  json_builder_set_member_name (b, "order");
  json_builder_begin_array (b);
  json_builder_add_int_value (b, c->task);
  json_builder_add_int_value (b, c->seq);
  json_builder_end_array (b);
  if (prism_candidate_get_measurement (c) != NULL)
    {
      json_builder_set_member_name (b, "measured");
      json_builder_add_value (b, prism_measurement_to_json (prism_candidate_get_measurement (c)));
    }
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

static double
get_double (JsonObject *obj, const char *name, double fallback)
{
  JsonNode *n = json_object_get_member (obj, name);

  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n))
    return fallback;
  return json_node_get_double (n);
}

static gint64
get_int (JsonObject *obj, const char *name, gint64 fallback)
{
  JsonNode *n = json_object_get_member (obj, name);

  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n))
    return fallback;
  return json_node_get_int (n);
}

static const char *
get_string (JsonObject *obj, const char *name)
{
  JsonNode *n = json_object_get_member (obj, name);

  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (n);
}

PrismCandidate *
prism_candidate_from_json (JsonNode *node, GError **error)
{
  g_autoptr(PrismCandidate) c = prism_candidate_new ();
  JsonObject *obj;
  JsonNode *member;
  JsonArray *order;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_PARSE, "a candidate is not an object");
      return NULL;
    }
  obj = json_node_get_object (node);
  if ((member = json_object_get_member (obj, "symbolic_graph")) == NULL &&
      (member = json_object_get_member (obj, "graph")) == NULL)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_PARSE, "a candidate has no “symbolic_graph”");
      return NULL;
    }
  c->graph = prism_graph_from_json (member, NULL, error);
  if (c->graph == NULL)
    return NULL;
  c->id = (guint) get_int (obj, "id", 0);
  c->digest = g_strdup (get_string (obj, "digest"));
  if (c->digest == NULL)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_PARSE, "candidate %u has no “digest”", c->id);
      return NULL;
    }
  c->n_kernels = (guint) get_int (obj, "kernels", prism_graph_count_kernels (c->graph));
  c->verdict = g_strdup (get_string (obj, "verdict"));
  if ((member = json_object_get_member (obj, "verification")) != NULL && !JSON_NODE_HOLDS_NULL (member))
    c->verification = json_node_copy (member);
  if (!params_from_json (c->graph, json_object_get_member (obj, "params"), &c->values, &c->n_values,
                         error))
    return NULL;
  c->predicted_us = get_double (obj, "predicted_us", 0);
  c->speedup = get_double (obj, "speedup", 0);
  c->found_at_s = get_double (obj, "found_at_s", 0);
  if ((member = json_object_get_member (obj, "alternatives")) != NULL && JSON_NODE_HOLDS_ARRAY (member))
    {
      JsonArray *alts = json_node_get_array (member);
      for (guint i = 0; i < json_array_get_length (alts); i++)
        {
          JsonNode *an = json_array_get_element (alts, i);
          PrismParamAssignment *a;
          if (!JSON_NODE_HOLDS_OBJECT (an))
            continue;
          a = g_new0 (PrismParamAssignment, 1);
          if (!params_from_json (c->graph, json_object_get_member (json_node_get_object (an), "params"),
                                 &a->values, &a->n_values, error))
            {
              prism_param_assignment_free (a);
              return NULL;
            }
          a->predicted_us = get_double (json_node_get_object (an), "predicted_us", 0);
          g_ptr_array_add (c->alternatives, a);
        }
    }
  if ((member = json_object_get_member (obj, "order")) != NULL && JSON_NODE_HOLDS_ARRAY (member) &&
      json_array_get_length (order = json_node_get_array (member)) == 2)
    {
      c->task = (guint) json_array_get_int_element (order, 0);
      c->seq = (guint) json_array_get_int_element (order, 1);
    }
  c->measurement = prism_measurement_from_json (json_object_get_member (obj, "measured"));
  return g_steal_pointer (&c);
}

PrismGraph *
prism_candidate_instantiate (const PrismCandidate *candidate, GError **error)
{
  return prism_graph_instantiate (candidate->graph, candidate->values, candidate->n_values, error);
}

char *
prism_candidate_params_to_string (const PrismCandidate *candidate)
{
  GString *s = g_string_new (NULL);
  const char * const *names = prism_graph_var_names (candidate->graph);

  for (guint v = 0; v < candidate->n_values && names[v] != NULL; v++)
    if (candidate->values[v] > 0)
      g_string_append_printf (s, "%s%s=%" G_GINT64_FORMAT, s->len ? ", " : "", names[v],
                              candidate->values[v]);
  return g_string_free (s, FALSE);
}

/* ------------------------------------------------------------------------ */
/* Stats */

#define ADD_COUNTER(b, obj, field) \
  G_STMT_START { json_builder_set_member_name (b, #field); \
                 json_builder_add_int_value (b, (gint64) (obj)->field); } G_STMT_END

JsonNode *
prism_run_stats_to_json (const PrismRunStats *s)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  guint max_depth = 0;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "states");
  json_builder_add_int_value (b, (gint64) s->search.states);
  json_builder_set_member_name (b, "states_by_depth");
  json_builder_begin_array (b);
  for (guint d = 0; d < PRISM_SEARCH_MAX_DEPTH; d++)
    if (s->search.states_by_depth[d] > 0)
      max_depth = d + 1;
  for (guint d = 0; d < max_depth; d++)
    json_builder_add_int_value (b, (gint64) s->search.states_by_depth[d]);
  json_builder_end_array (b);
  json_builder_set_member_name (b, "pruned");
  json_builder_begin_object (b);
  for (guint r = 0; r < PRISM_N_PRUNE_REASONS; r++)
    {
      json_builder_set_member_name (b, prism_prune_reason_to_string (r));
      json_builder_add_int_value (b, (gint64) s->search.pruned[r]);
    }
  json_builder_end_object (b);
  /* One object per depth, down to the deepest with anything pruned; only
   * the reasons that happened there, so progress lines stay short. */
  json_builder_set_member_name (b, "pruned_by_depth");
  json_builder_begin_array (b);
  max_depth = 0;
  for (guint d = 0; d < PRISM_SEARCH_MAX_DEPTH; d++)
    for (guint r = 0; r < PRISM_N_PRUNE_REASONS; r++)
      if (s->search.pruned_by_depth[d][r] > 0)
        max_depth = d + 1;
  for (guint d = 0; d < max_depth; d++)
    {
      json_builder_begin_object (b);
      for (guint r = 0; r < PRISM_N_PRUNE_REASONS; r++)
        if (s->search.pruned_by_depth[d][r] > 0)
          {
            json_builder_set_member_name (b, prism_prune_reason_to_string (r));
            json_builder_add_int_value (b, (gint64) s->search.pruned_by_depth[d][r]);
          }
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_set_member_name (b, "sgraphs");
  json_builder_add_int_value (b, (gint64) s->search.sgraphs);
  json_builder_set_member_name (b, "tasks");
  json_builder_add_int_value (b, s->search.n_tasks);
  json_builder_set_member_name (b, "tasks_done");
  json_builder_add_int_value (b, s->search.tasks_done);
  ADD_COUNTER (b, s, sgraphs_rejected);
  ADD_COUNTER (b, s, map_candidates);
  ADD_COUNTER (b, s, duplicates);
  ADD_COUNTER (b, s, no_sizes);
  ADD_COUNTER (b, s, screened_out);
  ADD_COUNTER (b, s, verified);
  ADD_COUNTER (b, s, rejected);
  ADD_COUNTER (b, s, unknown);
  ADD_COUNTER (b, s, verifier_bugs);
  json_builder_set_member_name (b, "elapsed_s");
  json_builder_add_double_value (b, s->search.elapsed_s);
  json_builder_set_member_name (b, "setup_s");
  json_builder_add_double_value (b, s->setup_s);
  json_builder_set_member_name (b, "time_to_best_s");
  if (s->time_to_best_s >= 0)
    json_builder_add_double_value (b, s->time_to_best_s);
  else
    json_builder_add_null_value (b);

  json_builder_set_member_name (b, "maps");
  json_builder_begin_object (b);
  ADD_COUNTER (b, &s->maps, assignments);
  ADD_COUNTER (b, &s->maps, no_split);
  ADD_COUNTER (b, &s->maps, no_omap);
  ADD_COUNTER (b, &s->maps, combinations);
  ADD_COUNTER (b, &s->maps, truncated);
  ADD_COUNTER (b, &s->maps, shape);
  ADD_COUNTER (b, &s->maps, output_shape);
  ADD_COUNTER (b, &s->maps, duplicates);
  ADD_COUNTER (b, &s->maps, unsized);
  ADD_COUNTER (b, &s->maps, dominated);
  ADD_COUNTER (b, &s->maps, candidates);
  json_builder_end_object (b);

  json_builder_set_member_name (b, "params");
  json_builder_begin_object (b);
  ADD_COUNTER (b, &s->params, assignments);
  ADD_COUNTER (b, &s->params, indivisible);
  ADD_COUNTER (b, &s->params, blocks);
  ADD_COUNTER (b, &s->params, smem);
  ADD_COUNTER (b, &s->params, threads);
  ADD_COUNTER (b, &s->params, valid);
  json_builder_end_object (b);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

#define GET_COUNTER(obj, s, field) ((s)->field = (guint64) get_int (obj, #field, 0))

void
prism_run_stats_from_json (JsonObject *obj, PrismRunStats *s)
{
  JsonNode *n;

  memset (s, 0, sizeof *s);
  s->search.states = (guint64) get_int (obj, "states", 0);
  if ((n = json_object_get_member (obj, "states_by_depth")) != NULL && JSON_NODE_HOLDS_ARRAY (n))
    {
      JsonArray *a = json_node_get_array (n);
      for (guint d = 0; d < MIN (json_array_get_length (a), PRISM_SEARCH_MAX_DEPTH); d++)
        s->search.states_by_depth[d] = (guint64) json_array_get_int_element (a, d);
    }
  if ((n = json_object_get_member (obj, "pruned")) != NULL && JSON_NODE_HOLDS_OBJECT (n))
    for (guint r = 0; r < PRISM_N_PRUNE_REASONS; r++)
      s->search.pruned[r] = (guint64) get_int (json_node_get_object (n),
                                               prism_prune_reason_to_string (r), 0);
  /* Optional: files written before it was counted have none. */
  if ((n = json_object_get_member (obj, "pruned_by_depth")) != NULL && JSON_NODE_HOLDS_ARRAY (n))
    {
      JsonArray *a = json_node_get_array (n);
      for (guint d = 0; d < json_array_get_length (a); d++)
        {
          JsonNode *e = json_array_get_element (a, d);
          guint row = MIN (d, PRISM_SEARCH_MAX_DEPTH - 1);

          if (!JSON_NODE_HOLDS_OBJECT (e))
            continue;
          for (guint r = 0; r < PRISM_N_PRUNE_REASONS; r++)
            s->search.pruned_by_depth[row][r] +=
              (guint64) MAX (0, get_int (json_node_get_object (e), prism_prune_reason_to_string (r), 0));
        }
    }
  s->search.sgraphs = (guint64) get_int (obj, "sgraphs", 0);
  s->search.n_tasks = (guint) get_int (obj, "tasks", 0);
  s->search.tasks_done = (guint) get_int (obj, "tasks_done", 0);
  s->search.elapsed_s = get_double (obj, "elapsed_s", 0);
  s->setup_s = get_double (obj, "setup_s", 0);
  s->time_to_best_s = get_double (obj, "time_to_best_s", -1);
  GET_COUNTER (obj, s, sgraphs_rejected);
  GET_COUNTER (obj, s, map_candidates);
  GET_COUNTER (obj, s, duplicates);
  GET_COUNTER (obj, s, no_sizes);
  GET_COUNTER (obj, s, screened_out);
  GET_COUNTER (obj, s, verified);
  GET_COUNTER (obj, s, rejected);
  GET_COUNTER (obj, s, unknown);
  GET_COUNTER (obj, s, verifier_bugs);
  if ((n = json_object_get_member (obj, "maps")) != NULL && JSON_NODE_HOLDS_OBJECT (n))
    {
      JsonObject *m = json_node_get_object (n);
      GET_COUNTER (m, &s->maps, assignments);
      GET_COUNTER (m, &s->maps, no_split);
      GET_COUNTER (m, &s->maps, no_omap);
      GET_COUNTER (m, &s->maps, combinations);
      GET_COUNTER (m, &s->maps, truncated);
      GET_COUNTER (m, &s->maps, shape);
      GET_COUNTER (m, &s->maps, output_shape);
      GET_COUNTER (m, &s->maps, duplicates);
      GET_COUNTER (m, &s->maps, unsized);
      GET_COUNTER (m, &s->maps, dominated);
      GET_COUNTER (m, &s->maps, candidates);
    }
  if ((n = json_object_get_member (obj, "params")) != NULL && JSON_NODE_HOLDS_OBJECT (n))
    {
      JsonObject *p = json_node_get_object (n);
      GET_COUNTER (p, &s->params, assignments);
      GET_COUNTER (p, &s->params, indivisible);
      GET_COUNTER (p, &s->params, blocks);
      GET_COUNTER (p, &s->params, smem);
      GET_COUNTER (p, &s->params, threads);
      GET_COUNTER (p, &s->params, valid);
    }
}

void
prism_run_stats_add (PrismRunStats *s, const PrismRunStats *m)
{
  s->search.states += m->search.states;
  for (guint d = 0; d < PRISM_SEARCH_MAX_DEPTH; d++)
    s->search.states_by_depth[d] += m->search.states_by_depth[d];
  for (guint r = 0; r < PRISM_N_PRUNE_REASONS; r++)
    s->search.pruned[r] += m->search.pruned[r];
  for (guint d = 0; d < PRISM_SEARCH_MAX_DEPTH; d++)
    for (guint r = 0; r < PRISM_N_PRUNE_REASONS; r++)
      s->search.pruned_by_depth[d][r] += m->search.pruned_by_depth[d][r];
  s->search.sgraphs += m->search.sgraphs;
  s->search.n_tasks = MAX (s->search.n_tasks, m->search.n_tasks);
  s->search.tasks_done = MAX (s->search.tasks_done, m->search.tasks_done);
  s->search.elapsed_s += m->search.elapsed_s;
  prism_map_stats_add (&s->maps, &m->maps);
  prism_param_stats_add (&s->params, &m->params);
  s->sgraphs_rejected += m->sgraphs_rejected;
  s->map_candidates += m->map_candidates;
  s->duplicates += m->duplicates;
  s->no_sizes += m->no_sizes;
  s->screened_out += m->screened_out;
  s->verified += m->verified;
  s->rejected += m->rejected;
  s->unknown += m->unknown;
  s->verifier_bugs += m->verifier_bugs;
  if (m->time_to_best_s >= 0)
    s->time_to_best_s = m->time_to_best_s;
}

/* ------------------------------------------------------------------------ */
/* Results */

struct _PrismResults
{
  PrismGraph *program;
  char *source;
  char *mode;
  char *target;
  char *fingerprint;
  JsonNode *options;
  char *baseline_kind;
  double baseline_us;
  guint baseline_launches;
  char *baseline_alt_kind;
  double baseline_alt_us;
  guint baseline_alt_launches;
  PrismMeasurement *baseline_measured;
  char *baseline_measured_kind;
  char *baseline_measured_note;
  char *tuning_gpu;        /* the device that timed the candidates */
  char *tuning_message;    /* why nothing was timed */
  guint tuning_top;
  gboolean has_tuning;
  GPtrArray *candidates;   /* PrismCandidate */
  PrismRunStats stats;
  guint n_tasks;
  GArray *done;            /* guint, ascending */
  char *stop_reason;
};

PrismResults *
prism_results_new (PrismGraph *program, const char *source, const char *mode, const char *target,
                   const char *fingerprint)
{
  PrismResults *r = g_new0 (PrismResults, 1);

  r->program = prism_graph_ref (program);
  r->source = g_strdup (source);
  r->mode = g_strdup (mode);
  r->target = g_strdup (target);
  r->fingerprint = g_strdup (fingerprint);
  r->candidates = g_ptr_array_new_with_free_func ((GDestroyNotify) prism_candidate_unref);
  r->done = g_array_new (FALSE, FALSE, sizeof (guint));
  r->stats.time_to_best_s = -1;
  return r;
}

void
prism_results_free (PrismResults *r)
{
  if (r == NULL)
    return;
  prism_graph_unref (r->program);
  g_free (r->source);
  g_free (r->mode);
  g_free (r->target);
  g_free (r->fingerprint);
  g_clear_pointer (&r->options, json_node_unref);
  prism_measurement_free (r->baseline_measured);
  g_free (r->baseline_kind);
  g_free (r->baseline_alt_kind);
  g_free (r->baseline_measured_kind);
  g_free (r->baseline_measured_note);
  g_free (r->tuning_gpu);
  g_free (r->tuning_message);
  g_ptr_array_unref (r->candidates);
  g_array_unref (r->done);
  g_free (r->stop_reason);
  g_free (r);
}

void
prism_results_set_options (PrismResults *r, JsonNode *options)
{
  g_clear_pointer (&r->options, json_node_unref);
  r->options = options ? json_node_ref (options) : NULL;
}

void
prism_results_set_baseline (PrismResults *r, const char *kind, double predicted_us, guint launches)
{
  g_free (r->baseline_kind);
  r->baseline_kind = g_strdup (kind);
  r->baseline_us = predicted_us;
  r->baseline_launches = launches;
}

void
prism_results_set_baseline_alternative (PrismResults *r, const char *kind, double predicted_us,
                                        guint launches)
{
  g_free (r->baseline_alt_kind);
  r->baseline_alt_kind = g_strdup (kind);
  r->baseline_alt_us = predicted_us;
  r->baseline_alt_launches = launches;
}

const char *
prism_results_get_baseline_kind (PrismResults *r)
{
  return r->baseline_kind != NULL ? r->baseline_kind : "unknown";
}

void
prism_results_set_baseline_measurement (PrismResults *r, const PrismMeasurement *m, const char *kind,
                                        const char *note)
{
  g_clear_pointer (&r->baseline_measured, prism_measurement_free);
  r->baseline_measured = prism_measurement_copy (m);
  g_free (r->baseline_measured_kind);
  r->baseline_measured_kind = m != NULL ? g_strdup (kind) : NULL;
  g_free (r->baseline_measured_note);
  r->baseline_measured_note = m != NULL ? g_strdup (note) : NULL;
}

const char *
prism_results_get_baseline_measured_kind (PrismResults *r)
{
  return r->baseline_measured_kind;
}

const char *
prism_results_get_baseline_measured_note (PrismResults *r)
{
  return r->baseline_measured_note;
}

const PrismMeasurement *
prism_results_get_baseline_measurement (PrismResults *r)
{
  return r->baseline_measured;
}

void
prism_results_set_tuning (PrismResults *r, const char *gpu, const char *message, guint top)
{
  g_free (r->tuning_gpu);
  g_free (r->tuning_message);
  r->tuning_gpu = g_strdup (gpu);
  r->tuning_message = g_strdup (message);
  r->tuning_top = top;
  r->has_tuning = TRUE;
}

const char *
prism_results_get_tuning_gpu (PrismResults *r)
{
  return r->tuning_gpu;
}

const char *
prism_results_get_tuning_message (PrismResults *r)
{
  return r->tuning_message;
}

void
prism_results_add_candidate (PrismResults *r, PrismCandidate *c)
{
  g_ptr_array_add (r->candidates, prism_candidate_ref (c));
}

void
prism_results_set_stats (PrismResults *r, const PrismRunStats *stats)
{
  r->stats = *stats;
}

static int
compare_guint (gconstpointer a, gconstpointer b)
{
  guint x = *(const guint *) a, y = *(const guint *) b;
  return x < y ? -1 : x > y;
}

void
prism_results_set_progress (PrismResults *r, guint n_tasks, GArray *done, const char *stop_reason)
{
  r->n_tasks = n_tasks;
  g_array_set_size (r->done, 0);
  if (done != NULL)
    g_array_append_vals (r->done, done->data, done->len);
  g_array_sort (r->done, compare_guint);
  g_free (r->stop_reason);
  r->stop_reason = g_strdup (stop_reason);
}

static int
compare_order (gconstpointer a, gconstpointer b)
{
  const PrismCandidate *x = *(PrismCandidate * const *) a;
  const PrismCandidate *y = *(PrismCandidate * const *) b;

  if (x->task != y->task)
    return x->task < y->task ? -1 : 1;
  if (x->seq != y->seq)
    return x->seq < y->seq ? -1 : 1;
  return g_strcmp0 (x->digest, y->digest);
}

void
prism_results_sort (PrismResults *r)
{
  g_ptr_array_sort (r->candidates, compare_order);
  for (guint i = 0; i < r->candidates->len; i++)
    {
      PrismCandidate *c = g_ptr_array_index (r->candidates, i);

      /* The cached text carries the old id. */
      if (c->id != i + 1)
        {
          c->id = i + 1;
          prism_candidate_invalidate (c);
        }
    }
}

PrismCandidate *
prism_results_get_best (PrismResults *r)
{
  PrismCandidate *best = NULL;

  for (guint i = 0; i < r->candidates->len; i++)
    {
      PrismCandidate *c = g_ptr_array_index (r->candidates, i);
      if (best == NULL || c->speedup > best->speedup)
        best = c;
    }
  return best;
}

static JsonNode *
results_to_json (PrismResults *r, gboolean with_candidates)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  PrismCandidate *best = prism_results_get_best (r);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "format");
  json_builder_add_string_value (b, PRISM_RESULTS_FORMAT);
  json_builder_set_member_name (b, "version");
  json_builder_add_int_value (b, PRISM_RESULTS_FORMAT_VERSION);
  json_builder_set_member_name (b, "program");
  json_builder_add_value (b, prism_graph_to_json (r->program, NULL));
  json_builder_set_member_name (b, "source");
  json_builder_add_string_value (b, r->source ? r->source : "");
  json_builder_set_member_name (b, "mode");
  json_builder_add_string_value (b, r->mode);
  json_builder_set_member_name (b, "target");
  json_builder_add_string_value (b, r->target);
  json_builder_set_member_name (b, "fingerprint");
  json_builder_add_string_value (b, r->fingerprint ? r->fingerprint : "");
  json_builder_set_member_name (b, "options");
  if (r->options != NULL)
    json_builder_add_value (b, json_node_copy (r->options));
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "complete");
  json_builder_add_boolean_value (b, g_strcmp0 (r->stop_reason, "exhausted") == 0);
  json_builder_set_member_name (b, "stop_reason");
  if (r->stop_reason != NULL)
    json_builder_add_string_value (b, r->stop_reason);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "stats");
  json_builder_add_value (b, prism_run_stats_to_json (&r->stats));
  json_builder_set_member_name (b, "baseline");
  json_builder_begin_object (b);
  if (r->baseline_kind != NULL)
    {
      json_builder_set_member_name (b, "kind");
      json_builder_add_string_value (b, r->baseline_kind);
    }
  json_builder_set_member_name (b, "predicted_us");
  json_builder_add_double_value (b, r->baseline_us);
  json_builder_set_member_name (b, "launches");
  json_builder_add_int_value (b, r->baseline_launches);
  if (r->baseline_alt_kind != NULL)
    {
      json_builder_set_member_name (b, "alternatives");
      json_builder_begin_array (b);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "kind");
      json_builder_add_string_value (b, r->baseline_alt_kind);
      json_builder_set_member_name (b, "predicted_us");
      json_builder_add_double_value (b, r->baseline_alt_us);
      json_builder_set_member_name (b, "launches");
      json_builder_add_int_value (b, r->baseline_alt_launches);
      json_builder_end_object (b);
      json_builder_end_array (b);
    }
  if (r->baseline_measured_kind != NULL)
    {
      json_builder_set_member_name (b, "measured_kind");
      json_builder_add_string_value (b, r->baseline_measured_kind);
    }
  if (r->baseline_measured_note != NULL)
    {
      json_builder_set_member_name (b, "measured_note");
      json_builder_add_string_value (b, r->baseline_measured_note);
    }
  if (r->baseline_measured != NULL && r->baseline_measured->error == NULL)
    {
      json_builder_set_member_name (b, "measured_us");
      json_builder_add_double_value (b, r->baseline_measured->median_us);
      json_builder_set_member_name (b, "measured_p20_us");
      json_builder_add_double_value (b, r->baseline_measured->p20_us);
      json_builder_set_member_name (b, "measured_p80_us");
      json_builder_add_double_value (b, r->baseline_measured->p80_us);
      json_builder_set_member_name (b, "measured_max_rel_error");
      json_builder_add_double_value (b, r->baseline_measured->max_rel_error);
    }
  if (r->baseline_measured != NULL)
    {
      json_builder_set_member_name (b, "measured_gpu");
      json_builder_add_string_value (b, r->baseline_measured->gpu ? r->baseline_measured->gpu : "");
    }
  if (r->baseline_measured != NULL && r->baseline_measured->error != NULL)
    {
      json_builder_set_member_name (b, "measure_error");
      json_builder_add_string_value (b, r->baseline_measured->error);
    }
  json_builder_end_object (b);
  if (r->has_tuning)
    {
      json_builder_set_member_name (b, "tuning");
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "top");
      json_builder_add_int_value (b, r->tuning_top);
      json_builder_set_member_name (b, "gpu");
      if (r->tuning_gpu != NULL)
        json_builder_add_string_value (b, r->tuning_gpu);
      else
        json_builder_add_null_value (b);
      json_builder_set_member_name (b, "message");
      if (r->tuning_message != NULL)
        json_builder_add_string_value (b, r->tuning_message);
      else
        json_builder_add_null_value (b);
      json_builder_end_object (b);
    }
  json_builder_set_member_name (b, "best");
  if (best != NULL)
    {
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "id");
      json_builder_add_int_value (b, best->id);
      json_builder_set_member_name (b, "digest");
      json_builder_add_string_value (b, best->digest);
      json_builder_set_member_name (b, "predicted_us");
      json_builder_add_double_value (b, best->predicted_us);
      json_builder_set_member_name (b, "speedup");
      json_builder_add_double_value (b, best->speedup);
      json_builder_end_object (b);
    }
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "progress");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "tasks");
  json_builder_add_int_value (b, r->n_tasks);
  json_builder_set_member_name (b, "done");
  json_builder_begin_array (b);
  /* Runs of consecutive task indices, [first, last]. */
  for (guint i = 0; i < r->done->len;)
    {
      guint first = g_array_index (r->done, guint, i), last = first;
      while (++i < r->done->len && g_array_index (r->done, guint, i) == last + 1)
        last++;
      json_builder_begin_array (b);
      json_builder_add_int_value (b, first);
      json_builder_add_int_value (b, last);
      json_builder_end_array (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  /* Last member: prism_results_save() appends the candidates' texts here. */
  json_builder_set_member_name (b, "candidates");
  json_builder_begin_array (b);
  for (guint i = 0; with_candidates && i < r->candidates->len; i++)
    json_builder_add_value (b, prism_candidate_to_json (g_ptr_array_index (r->candidates, i)));
  json_builder_end_array (b);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

JsonNode *
prism_results_to_json (PrismResults *r)
{
  return results_to_json (r, TRUE);
}

static char *
to_text (JsonNode *node, gboolean pretty)
{
  g_autoptr(JsonGenerator) gen = json_generator_new ();

  json_generator_set_pretty (gen, pretty);
  json_generator_set_root (gen, node);
  return json_generator_to_data (gen, NULL);
}

gboolean
prism_results_save (PrismResults *r, const char *path, GError **error)
{
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *head = NULL;
  GString *data;
  gboolean ok;
  char *end;

  if (g_mkdir_with_parents (dir, 0755) != 0)
    {
      int saved = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved),
                   "cannot create the folder “%s”: %s", dir, g_strerror (saved));
      return FALSE;
    }
  /* The document without its candidates, then each candidate's text, made
   * once per candidate: the file is rewritten at every verified candidate,
   * and serializing hundreds of graphs each time would cost more than the
   * search. */
  root = results_to_json (r, FALSE);
  head = to_text (root, TRUE);
  /* The empty candidates array is the document's last '['. */
  end = strrchr (head, '[');
  g_assert (end != NULL);
  *end = '\0';
  data = g_string_new (head);
  g_string_append (data, "[");
  for (guint i = 0; i < r->candidates->len; i++)
    {
      PrismCandidate *c = g_ptr_array_index (r->candidates, i);
      if (c->json_text == NULL)
        {
          g_autoptr(JsonNode) node = prism_candidate_to_json (c);
          c->json_text = to_text (node, FALSE);
        }
      g_string_append (data, i ? ",\n    " : "\n    ");
      g_string_append (data, c->json_text);
    }
  g_string_append (data, "\n  ]\n}\n");
  /* g_file_set_contents() writes a temporary file and renames it over the
   * old one: a reader (or a kill) never sees half a file. */
  ok = g_file_set_contents (path, data->str, (gssize) data->len, error);
  g_string_free (data, TRUE);
  return ok;
}

static gboolean
load_fail (GError **error, const char *path, const char *what)
{
  g_set_error (error, PRISM_ERROR, PRISM_ERROR_PARSE, "%s: %s", path, what);
  return FALSE;
}

PrismResults *
prism_results_load (const char *path, GError **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(PrismGraph) program = NULL;
  g_autoptr(PrismResults) r = NULL;
  JsonObject *obj;
  JsonNode *n;
  const char *format;

  if (!json_parser_load_from_file (parser, path, error))
    return NULL;
  n = json_parser_get_root (parser);
  if (n == NULL || !JSON_NODE_HOLDS_OBJECT (n))
    {
      load_fail (error, path, "not a JSON object");
      return NULL;
    }
  obj = json_node_get_object (n);
  format = get_string (obj, "format");
  if (g_strcmp0 (format, PRISM_RESULTS_FORMAT) != 0)
    {
      load_fail (error, path, "not a prism-results file (“format” is not “prism-results”)");
      return NULL;
    }
  if (get_int (obj, "version", -1) != PRISM_RESULTS_FORMAT_VERSION)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_VERSION,
                   "%s: prism-results version %" G_GINT64_FORMAT " is not supported (only %d)",
                   path, get_int (obj, "version", -1), PRISM_RESULTS_FORMAT_VERSION);
      return NULL;
    }
  if ((n = json_object_get_member (obj, "program")) == NULL)
    {
      load_fail (error, path, "no “program”");
      return NULL;
    }
  program = prism_graph_from_json (n, NULL, error);
  if (program == NULL)
    {
      g_prefix_error (error, "%s: program: ", path);
      return NULL;
    }
  r = prism_results_new (program, get_string (obj, "source"), get_string (obj, "mode"),
                         get_string (obj, "target"), get_string (obj, "fingerprint"));
  if (r->mode == NULL || r->target == NULL)
    {
      load_fail (error, path, "“mode” or “target” is missing");
      return NULL;
    }
  if ((n = json_object_get_member (obj, "options")) != NULL && !JSON_NODE_HOLDS_NULL (n))
    r->options = json_node_copy (n);
  r->stop_reason = g_strdup (get_string (obj, "stop_reason"));
  if ((n = json_object_get_member (obj, "stats")) != NULL && JSON_NODE_HOLDS_OBJECT (n))
    prism_run_stats_from_json (json_node_get_object (n), &r->stats);
  if ((n = json_object_get_member (obj, "baseline")) != NULL && JSON_NODE_HOLDS_OBJECT (n))
    {
      JsonObject *base = json_node_get_object (n);

      JsonNode *alts;

      r->baseline_kind = g_strdup (get_string (base, "kind"));
      r->baseline_us = get_double (base, "predicted_us", 0);
      r->baseline_launches = (guint) get_int (base, "launches", 0);
      if ((alts = json_object_get_member (base, "alternatives")) != NULL && JSON_NODE_HOLDS_ARRAY (alts) &&
          json_array_get_length (json_node_get_array (alts)) > 0 &&
          JSON_NODE_HOLDS_OBJECT (json_array_get_element (json_node_get_array (alts), 0)))
        {
          JsonObject *alt = json_array_get_object_element (json_node_get_array (alts), 0);
          prism_results_set_baseline_alternative (r, get_string (alt, "kind"), get_double (alt, "predicted_us", 0),
                                                  (guint) get_int (alt, "launches", 0));
        }
      r->baseline_measured_kind = g_strdup (get_string (base, "measured_kind"));
      r->baseline_measured_note = g_strdup (get_string (base, "measured_note"));
      if (get_double (base, "measured_us", 0) > 0 || get_string (base, "measure_error") != NULL)
        {
          r->baseline_measured = prism_measurement_new (get_string (base, "measured_gpu"),
                                                        get_string (base, "measure_error"));
          r->baseline_measured->median_us = get_double (base, "measured_us", 0);
          r->baseline_measured->p20_us = get_double (base, "measured_p20_us", r->baseline_measured->median_us);
          r->baseline_measured->p80_us = get_double (base, "measured_p80_us", r->baseline_measured->median_us);
          r->baseline_measured->max_rel_error = get_double (base, "measured_max_rel_error", 0);
          r->baseline_measured->speedup = r->baseline_measured->error == NULL ? 1 : 0;
        }
    }
  if ((n = json_object_get_member (obj, "tuning")) != NULL && JSON_NODE_HOLDS_OBJECT (n))
    prism_results_set_tuning (r, get_string (json_node_get_object (n), "gpu"),
                              get_string (json_node_get_object (n), "message"),
                              (guint) get_int (json_node_get_object (n), "top", 0));
  if ((n = json_object_get_member (obj, "progress")) != NULL && JSON_NODE_HOLDS_OBJECT (n))
    {
      JsonObject *p = json_node_get_object (n);
      JsonNode *d = json_object_get_member (p, "done");

      r->n_tasks = (guint) get_int (p, "tasks", 0);
      if (d != NULL && JSON_NODE_HOLDS_ARRAY (d))
        {
          JsonArray *runs = json_node_get_array (d);
          for (guint i = 0; i < json_array_get_length (runs); i++)
            {
              JsonNode *run = json_array_get_element (runs, i);
              JsonArray *ra;
              gint64 first, last;

              if (!JSON_NODE_HOLDS_ARRAY (run) || json_array_get_length (ra = json_node_get_array (run)) != 2)
                {
                  load_fail (error, path, "“progress.done” holds something that is not a [first, last] pair");
                  return NULL;
                }
              first = json_array_get_int_element (ra, 0);
              last = json_array_get_int_element (ra, 1);
              if (first < 0 || last < first || last > G_MAXINT32)
                {
                  load_fail (error, path, "“progress.done” holds a bad range");
                  return NULL;
                }
              for (gint64 t = first; t <= last; t++)
                {
                  guint v = (guint) t;
                  g_array_append_val (r->done, v);
                }
            }
        }
    }
  if ((n = json_object_get_member (obj, "candidates")) != NULL && JSON_NODE_HOLDS_ARRAY (n))
    {
      JsonArray *cands = json_node_get_array (n);
      for (guint i = 0; i < json_array_get_length (cands); i++)
        {
          PrismCandidate *c = prism_candidate_from_json (json_array_get_element (cands, i), error);
          if (c == NULL)
            {
              g_prefix_error (error, "%s: candidates[%u]: ", path, i);
              return NULL;
            }
          g_ptr_array_add (r->candidates, c);
        }
    }
  return g_steal_pointer (&r);
}

PrismGraph *
prism_results_get_program (PrismResults *r)
{
  return r->program;
}

const char *
prism_results_get_source (PrismResults *r)
{
  return r->source;
}

const char *
prism_results_get_mode (PrismResults *r)
{
  return r->mode;
}

const char *
prism_results_get_target (PrismResults *r)
{
  return r->target;
}

const char *
prism_results_get_fingerprint (PrismResults *r)
{
  return r->fingerprint;
}

GPtrArray *
prism_results_get_candidates (PrismResults *r)
{
  return r->candidates;
}

const PrismRunStats *
prism_results_get_stats (PrismResults *r)
{
  return &r->stats;
}

double
prism_results_get_baseline_us (PrismResults *r)
{
  return r->baseline_us;
}

GArray *
prism_results_get_done_tasks (PrismResults *r)
{
  return r->done;
}

const char *
prism_results_get_stop_reason (PrismResults *r)
{
  return r->stop_reason;
}
