/* prism-results.c — verified candidates and the results.json file
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The file format is specified in docs/format.md ("prism-results").
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>

#include "prism-atomic-file.h"
#include "prism-canonical.h"
#include "prism-cost-model.h"
#include "prism-error.h"
#include "prism-gpu-target.h"
#include "prism-graph-json.h"
#include "prism-json-reader.h"
#include "prism-results.h"
#include "prism-sgraph.h"

/* ------------------------------------------------------------------------ */
/* GPU measurements */

PrismMeasurement *
prism_measurement_new (const char *gpu, const char *error)
{
  PrismMeasurement *m = g_new0 (PrismMeasurement, 1);

  m->gpu = g_strdup (gpu);
  m->error = g_strdup (error);
  m->rank = -1;
  m->device = -1;
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

/* Which process and device timed @m (an MPI run spreads the timings),
 * as PREFIXrank and PREFIXdevice, when known. */
static void
add_where (JsonBuilder *b, const char *prefix, const PrismMeasurement *m)
{
  g_autofree char *rank = g_strconcat (prefix, "rank", NULL);
  g_autofree char *device = g_strconcat (prefix, "device", NULL);

  if (m->rank >= 0)
    {
      json_builder_set_member_name (b, rank);
      json_builder_add_int_value (b, m->rank);
    }
  if (m->device >= 0)
    {
      json_builder_set_member_name (b, device);
      json_builder_add_int_value (b, m->device);
    }
}

static gint64 get_int (JsonObject *obj, const char *name, gint64 fallback);

/* -1 unless a small non-negative number. */
static int
get_where (JsonObject *obj, const char *name)
{
  gint64 v = get_int (obj, name, -1);

  return v >= 0 && v <= G_MAXINT32 ? (int) v : -1;
}

JsonNode *
prism_measurement_to_json (const PrismMeasurement *m)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "gpu");
  json_builder_add_string_value (b, m->gpu ? m->gpu : "");
  add_where (b, "", m);
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
  m->rank = get_where (obj, "rank");
  m->device = get_where (obj, "device");
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

void
prism_equivalent_form_free (PrismEquivalentForm *form)
{
  if (form == NULL)
    return;
  g_free (form->digest);
  g_free (form);
}

PrismCandidate *
prism_candidate_new (void)
{
  PrismCandidate *c = g_new0 (PrismCandidate, 1);

  c->ref_count = 1;
  c->alternatives = g_ptr_array_new_with_free_func ((GDestroyNotify) prism_param_assignment_free);
  c->equivalents = g_ptr_array_new_with_free_func ((GDestroyNotify) prism_equivalent_form_free);
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
  g_ptr_array_unref (candidate->equivalents);
  prism_measurement_free (candidate->measurement);
  g_free (candidate->json_text);
  g_free (candidate->executed_digest);
  g_free (candidate);
}

gboolean
prism_candidate_is_faster (const PrismCandidate *candidate)
{
  return candidate->speedup > 1.0;
}

const char *
prism_candidate_get_executed_digest (PrismCandidate *candidate)
{
  char *digest = g_atomic_pointer_get (&candidate->executed_digest);
  g_autoptr(PrismGraph) concrete = NULL;

  if (digest != NULL)
    return digest;
  concrete = prism_candidate_instantiate (candidate, NULL);
  if (concrete != NULL)
    digest = prism_graph_canonical_digest (concrete);
  else
    digest = g_strdup (candidate->digest);
  /* Another thread may have made it meanwhile: keep the first. */
  if (!g_atomic_pointer_compare_and_exchange (&candidate->executed_digest, NULL, digest))
    g_free (digest);
  return g_atomic_pointer_get (&candidate->executed_digest);
}

gboolean
prism_candidate_add_equivalent (PrismCandidate *candidate, const PrismCandidate *form)
{
  PrismEquivalentForm *e;

  if (candidate->equivalents->len >= PRISM_RESULTS_MAX_ALTERNATIVES)
    return FALSE;
  e = g_new0 (PrismEquivalentForm, 1);
  e->digest = g_strdup (form->digest);
  e->n_kernels = form->n_kernels;
  e->predicted_us = form->predicted_us;
  e->task = form->task;
  e->seq = form->seq;
  g_ptr_array_add (candidate->equivalents, e);
  prism_candidate_invalidate (candidate);
  return TRUE;
}

guint64
prism_candidates_count_distinct (GPtrArray *candidates)
{
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = 0; i < candidates->len; i++)
    g_hash_table_add (seen, (gpointer) prism_candidate_get_executed_digest (g_ptr_array_index (candidates, i)));
  return g_hash_table_size (seen);
}

guint64
prism_candidates_count_faster (GPtrArray *candidates)
{
  guint64 n = 0;

  for (guint i = 0; i < candidates->len; i++)
    n += prism_candidate_is_faster (g_ptr_array_index (candidates, i));
  return n;
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
  /* Derived from the speedup (not read back): slower candidates are kept
   * for what they show, but marked. */
  json_builder_set_member_name (b, "faster");
  json_builder_add_boolean_value (b, prism_candidate_is_faster (c));
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
  /* Last: the forms merged into this one (docs/format.md, "Canonical form"). */
  json_builder_set_member_name (b, "equivalent");
  json_builder_begin_array (b);
  for (guint i = 0; i < c->equivalents->len; i++)
    {
      const PrismEquivalentForm *e = g_ptr_array_index (c->equivalents, i);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "digest");
      json_builder_add_string_value (b, e->digest);
      json_builder_set_member_name (b, "kernels");
      json_builder_add_int_value (b, e->n_kernels);
      json_builder_set_member_name (b, "predicted_us");
      json_builder_add_double_value (b, e->predicted_us);
      json_builder_set_member_name (b, "order");
      json_builder_begin_array (b);
      json_builder_add_int_value (b, e->task);
      json_builder_add_int_value (b, e->seq);
      json_builder_end_array (b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

/* Readers of values that may be anything: a member of another type reads
 * as the fallback (these are counters and times, shown, never trusted). */
static gboolean
node_is_number (JsonNode *n)
{
  return n != NULL && JSON_NODE_HOLDS_VALUE (n) &&
         (json_node_get_value_type (n) == G_TYPE_INT64 || json_node_get_value_type (n) == G_TYPE_DOUBLE);
}

static double
get_double (JsonObject *obj, const char *name, double fallback)
{
  JsonNode *n = json_object_get_member (obj, name);

  if (!node_is_number (n))
    return fallback;
  return json_node_get_double (n);
}

static gint64
get_int (JsonObject *obj, const char *name, gint64 fallback)
{
  JsonNode *n = json_object_get_member (obj, name);

  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_INT64)
    return fallback;
  return json_node_get_int (n);
}

/* json_array_get_int_element() is critical on a non-value. */
static gint64
array_int (JsonArray *a, guint i, gint64 fallback)
{
  JsonNode *n = i < json_array_get_length (a) ? json_array_get_element (a, i) : NULL;

  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_INT64)
    return fallback;
  return json_node_get_int (n);
}

static guint
get_count (JsonObject *obj, const char *name)
{
  return (guint) CLAMP (get_int (obj, name, 0), 0, G_MAXUINT32);
}

static const char *
get_string (JsonObject *obj, const char *name)
{
  JsonNode *n = json_object_get_member (obj, name);

  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (n);
}

G_GNUC_PRINTF (3, 4) static gboolean
fail (GError **error, PrismErrorCode code, const char *fmt, ...)
{
  va_list args;
  g_autofree char *msg = NULL;

  va_start (args, fmt);
  msg = g_strdup_vprintf (fmt, args);
  va_end (args);
  g_set_error_literal (error, PRISM_ERROR, code, msg);
  return FALSE;
}

/* 32 lower-case hex digits, as key_digest() writes them. */
static gboolean
is_digest (const char *s)
{
  guint n = 0;

  for (; s[n] != '\0'; n++)
    if (!g_ascii_isdigit (s[n]) && !(s[n] >= 'a' && s[n] <= 'f'))
      return FALSE;
  return n == 32;
}

/* A finite number from 0 up (times, speedups); absent reads as 0. */
static gboolean
read_nonnegative (JsonObject *obj, const char *name, double *out, GError **error)
{
  JsonNode *n = json_object_get_member (obj, name);

  *out = 0;
  if (n == NULL)
    return TRUE;
  if (!node_is_number (n) || !(json_node_get_double (n) >= 0) || !isfinite (json_node_get_double (n)))
    return fail (error, PRISM_ERROR_PARSE, "“%s” is not a number from 0 up", name);
  *out = json_node_get_double (n);
  return TRUE;
}

/* The "equivalent" array: every element checked like the candidate itself. */
static gboolean
read_equivalents (PrismCandidate *c, JsonNode *member, GError **error)
{
  JsonArray *forms;

  if (!JSON_NODE_HOLDS_ARRAY (member))
    return fail (error, PRISM_ERROR_PARSE, "“equivalent” is not an array");
  forms = json_node_get_array (member);
  if (json_array_get_length (forms) > PRISM_RESULTS_MAX_ALTERNATIVES)
    return fail (error, PRISM_ERROR_LIMIT, "more than %d “equivalent” forms",
                 PRISM_RESULTS_MAX_ALTERNATIVES);
  for (guint i = 0; i < json_array_get_length (forms); i++)
    {
      JsonNode *node = json_array_get_element (forms, i);
      JsonObject *obj = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
      JsonNode *order = obj ? json_object_get_member (obj, "order") : NULL;
      gboolean pair = order != NULL && JSON_NODE_HOLDS_ARRAY (order) &&
                      json_array_get_length (json_node_get_array (order)) == 2;
      gint64 task = pair ? array_int (json_node_get_array (order), 0, -1) : -1;
      gint64 seq = pair ? array_int (json_node_get_array (order), 1, -1) : -1;
      const char *digest = obj ? get_string (obj, "digest") : NULL;
      gint64 kernels = obj ? get_int (obj, "kernels", -1) : -1;
      PrismEquivalentForm *e;

      if (obj == NULL || digest == NULL || !is_digest (digest) || kernels < 0 || kernels > G_MAXINT32 ||
          task < 0 || task > G_MAXINT32 || seq < 0 || seq > G_MAXINT32)
        return fail (error, PRISM_ERROR_PARSE,
                     "equivalent[%u] is not an object with a 32-hex-digit “digest”, “kernels” and "
                     "“order” (two numbers from 0 to %d)", i, G_MAXINT32);
      e = g_new0 (PrismEquivalentForm, 1);
      e->digest = g_strdup (digest);
      e->n_kernels = (guint) kernels;
      e->task = (guint) task;
      e->seq = (guint) seq;
      g_ptr_array_add (c->equivalents, e);
      if (!read_nonnegative (obj, "predicted_us", &e->predicted_us, error))
        {
          g_prefix_error (error, "equivalent[%u]: ", i);
          return FALSE;
        }
    }
  return TRUE;
}

/* Every member is checked: a results file is input like any other, and
 * export, bench and --resume act on what it says. */
PrismCandidate *
prism_candidate_from_json (JsonNode *node, GError **error)
{
  g_autoptr(PrismCandidate) c = prism_candidate_new ();
  JsonObject *obj;
  JsonNode *member;
  gint64 v;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      fail (error, PRISM_ERROR_PARSE, "a candidate is not an object");
      return NULL;
    }
  obj = json_node_get_object (node);
  v = get_int (obj, "id", -1);
  if (v < 1 || v > G_MAXINT32)
    {
      fail (error, PRISM_ERROR_PARSE, "“id” is not a number from 1 to %d", G_MAXINT32);
      return NULL;
    }
  c->id = (guint) v;
  c->digest = g_strdup (get_string (obj, "digest"));
  if (c->digest == NULL || !is_digest (c->digest))
    {
      fail (error, PRISM_ERROR_PARSE, "candidate %u: “digest” is not 32 hex digits", c->id);
      return NULL;
    }
  if (strspn (c->digest, "0") == 32)
    {
      fail (error, PRISM_ERROR_PARSE, "candidate %u: “digest” is all zeros, which no graph has", c->id);
      return NULL;
    }
  if ((member = json_object_get_member (obj, "symbolic_graph")) == NULL &&
      (member = json_object_get_member (obj, "graph")) == NULL)
    {
      fail (error, PRISM_ERROR_PARSE, "candidate %u has no “symbolic_graph”", c->id);
      return NULL;
    }
  c->graph = prism_graph_from_json (member, NULL, error);
  if (c->graph == NULL)
    {
      g_prefix_error (error, "candidate %u: symbolic_graph: ", c->id);
      return NULL;
    }
  v = get_int (obj, "kernels", prism_graph_count_kernels (c->graph));
  c->n_kernels = (guint) CLAMP (v, 0, G_MAXINT32);
  c->verdict = g_strdup (get_string (obj, "verdict"));
  /* Only verified candidates are stored. */
  if (c->verdict != NULL && !g_str_equal (c->verdict, "equivalent"))
    {
      fail (error, PRISM_ERROR_PARSE, "candidate %u: “verdict” is “%.64s”, not “equivalent”", c->id,
            c->verdict);
      return NULL;
    }
  if ((member = json_object_get_member (obj, "verification")) != NULL && !JSON_NODE_HOLDS_NULL (member))
    {
      if (!JSON_NODE_HOLDS_OBJECT (member))
        {
          fail (error, PRISM_ERROR_PARSE, "candidate %u: “verification” is not an object", c->id);
          return NULL;
        }
      c->verification = json_node_copy (member);
    }
  if (!params_from_json (c->graph, json_object_get_member (obj, "params"), &c->values, &c->n_values,
                         error) ||
      !read_nonnegative (obj, "predicted_us", &c->predicted_us, error) ||
      !read_nonnegative (obj, "speedup", &c->speedup, error) ||
      !read_nonnegative (obj, "found_at_s", &c->found_at_s, error))
    {
      g_prefix_error (error, "candidate %u: ", c->id);
      return NULL;
    }
  if ((member = json_object_get_member (obj, "alternatives")) != NULL && JSON_NODE_HOLDS_ARRAY (member))
    {
      JsonArray *alts = json_node_get_array (member);

      if (json_array_get_length (alts) > PRISM_RESULTS_MAX_ALTERNATIVES)
        {
          fail (error, PRISM_ERROR_LIMIT, "candidate %u: more than %d “alternatives”", c->id,
                PRISM_RESULTS_MAX_ALTERNATIVES);
          return NULL;
        }
      for (guint i = 0; i < json_array_get_length (alts); i++)
        {
          JsonNode *an = json_array_get_element (alts, i);
          PrismParamAssignment *a;
          if (!JSON_NODE_HOLDS_OBJECT (an))
            continue;
          a = g_new0 (PrismParamAssignment, 1);
          if (!params_from_json (c->graph, json_object_get_member (json_node_get_object (an), "params"),
                                 &a->values, &a->n_values, error) ||
              !read_nonnegative (json_node_get_object (an), "predicted_us", &a->predicted_us, error))
            {
              prism_param_assignment_free (a);
              g_prefix_error (error, "candidate %u: alternatives[%u]: ", c->id, i);
              return NULL;
            }
          g_ptr_array_add (c->alternatives, a);
        }
    }
  if ((member = json_object_get_member (obj, "equivalent")) != NULL &&
      !read_equivalents (c, member, error))
    {
      g_prefix_error (error, "candidate %u: ", c->id);
      return NULL;
    }
  if ((member = json_object_get_member (obj, "order")) != NULL)
    {
      gboolean pair = JSON_NODE_HOLDS_ARRAY (member) && json_array_get_length (json_node_get_array (member)) == 2;
      gint64 task = pair ? array_int (json_node_get_array (member), 0, -1) : -1;
      gint64 seq = pair ? array_int (json_node_get_array (member), 1, -1) : -1;

      if (task < 0 || task > G_MAXINT32 || seq < 0 || seq > G_MAXINT32)
        {
          fail (error, PRISM_ERROR_PARSE, "candidate %u: “order” is not two numbers from 0 to %d", c->id,
                G_MAXINT32);
          return NULL;
        }
      c->task = (guint) task;
      c->seq = (guint) seq;
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
  ADD_COUNTER (b, s, unknown_unproved);
  ADD_COUNTER (b, s, unknown_untested);
  ADD_COUNTER (b, s, verifier_bugs);
  ADD_COUNTER (b, s, equivalent);
  ADD_COUNTER (b, s, faster);
  ADD_COUNTER (b, s, distinct);
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

#define GET_COUNTER(obj, s, field) ((s)->field = (guint64) MAX (0, get_int (obj, #field, 0)))

void
prism_run_stats_from_json (JsonObject *obj, PrismRunStats *s)
{
  JsonNode *n;

  memset (s, 0, sizeof *s);
  s->search.states = (guint64) MAX (0, get_int (obj, "states", 0));
  if ((n = json_object_get_member (obj, "states_by_depth")) != NULL && JSON_NODE_HOLDS_ARRAY (n))
    {
      JsonArray *a = json_node_get_array (n);
      for (guint d = 0; d < MIN (json_array_get_length (a), PRISM_SEARCH_MAX_DEPTH); d++)
        s->search.states_by_depth[d] = (guint64) MAX (0, array_int (a, d, 0));
    }
  if ((n = json_object_get_member (obj, "pruned")) != NULL && JSON_NODE_HOLDS_OBJECT (n))
    for (guint r = 0; r < PRISM_N_PRUNE_REASONS; r++)
      s->search.pruned[r] = (guint64) get_int (json_node_get_object (n),
                                               prism_prune_reason_to_string (r), 0);
  /* Optional: files written before it was counted have none. */
  if ((n = json_object_get_member (obj, "pruned_by_depth")) != NULL && JSON_NODE_HOLDS_ARRAY (n))
    {
      JsonArray *a = json_node_get_array (n);
      for (guint d = 0; d < MIN (json_array_get_length (a), PRISM_SEARCH_MAX_DEPTH * 4); d++)
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
  s->search.sgraphs = (guint64) MAX (0, get_int (obj, "sgraphs", 0));
  s->search.n_tasks = get_count (obj, "tasks");
  s->search.tasks_done = get_count (obj, "tasks_done");
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
  GET_COUNTER (obj, s, unknown_unproved);
  GET_COUNTER (obj, s, unknown_untested);
  GET_COUNTER (obj, s, verifier_bugs);
  GET_COUNTER (obj, s, equivalent);
  GET_COUNTER (obj, s, faster);
  GET_COUNTER (obj, s, distinct);
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
  s->unknown_unproved += m->unknown_unproved;
  s->unknown_untested += m->unknown_untested;
  s->verifier_bugs += m->verifier_bugs;
  s->equivalent += m->equivalent;
  /* faster and distinct describe the candidates, not events: kept. */
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
  JsonNode *ranks;             /* stats.ranks of an MPI run, or NULL */
  guint n_tasks;
  GArray *done;            /* guint, ascending */
  char *stop_reason;
  guint n_candidates_in_file; /* read back: all of them, kept or not */
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
  g_clear_pointer (&r->ranks, json_node_unref);
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
prism_results_remove_candidate (PrismResults *r, PrismCandidate *c)
{
  g_ptr_array_remove (r->candidates, c);
}

void
prism_results_set_stats (PrismResults *r, const PrismRunStats *stats)
{
  r->stats = *stats;
}

void
prism_results_set_ranks (PrismResults *r, JsonNode *ranks)
{
  if (ranks == r->ranks)
    return;
  g_clear_pointer (&r->ranks, json_node_unref);
  r->ranks = ranks != NULL ? json_node_copy (ranks) : NULL;
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
  /* Only the order: ids are given once, when a candidate is published. */
  g_ptr_array_sort (r->candidates, compare_order);
}

PrismCandidate *
prism_results_get_best (PrismResults *r)
{
  PrismCandidate *best = NULL;

  for (guint i = 0; i < r->candidates->len; i++)
    {
      PrismCandidate *c = g_ptr_array_index (r->candidates, i);
      if (prism_candidate_is_faster (c) && (best == NULL || c->speedup > best->speedup))
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
  {
    /* The counts of the candidates are those of the file's own. */
    PrismRunStats stats = r->stats;

    JsonNode *node;

    stats.faster = prism_candidates_count_faster (r->candidates);
    stats.distinct = prism_candidates_count_distinct (r->candidates);
    node = prism_run_stats_to_json (&stats);
    if (r->ranks != NULL)
      json_object_set_member (json_node_get_object (node), "ranks", json_node_copy (r->ranks));
    json_builder_add_value (b, node);
  }
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
      add_where (b, "measured_", r->baseline_measured);
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
  return prism_json_to_text (node, pretty, NULL);
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
  /* A temporary file renamed over the old one: a reader (or a kill) never
   * sees half a file; a killed writer's temporary file carries its process
   * id, so that the next run removes it (prism_atomic_file_remove_stale()). */
  ok = prism_atomic_file_write (path, data->str, data->len, error);
  g_string_free (data, TRUE);
  return ok;
}

/* ------------------------------------------------------------------------ */
/* Reading */

/* A word: letters, digits, "_", "-", "." (GPU names, modes, kinds). */
static gboolean
is_word (const char *s, gsize max)
{
  gsize n = 0;

  for (; s[n] != '\0'; n++)
    if (!g_ascii_isalnum (s[n]) && s[n] != '_' && s[n] != '-' && s[n] != '.' && s[n] != ' ')
      return FALSE;
  return n > 0 && n <= max;
}

/* A string member that must be short (absent: NULL). */
static gboolean
read_short_string (JsonObject *obj, const char *name, gsize max_chars, const char **out, GError **error)
{
  JsonNode *n = json_object_get_member (obj, name);

  *out = NULL;
  if (n == NULL || JSON_NODE_HOLDS_NULL (n))
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_STRING)
    return fail (error, PRISM_ERROR_PARSE, "“%s” is not a string", name);
  if ((gsize) g_utf8_strlen (json_node_get_string (n), -1) > max_chars)
    return fail (error, PRISM_ERROR_LIMIT, "“%s” is longer than %" G_GSIZE_FORMAT " characters", name,
                 max_chars);
  *out = json_node_get_string (n);
  return TRUE;
}

static gboolean
read_progress (PrismResults *r, JsonObject *p, GError **error)
{
  JsonNode *d = json_object_get_member (p, "done");
  gint64 tasks = get_int (p, "tasks", 0);
  g_autoptr(GHashTable) seen = NULL;

  /* Each finished task is one entry of an array and of the search's skip
   * set: bounded, so that "[[0, 2147483647]]" allocates nothing. */
  if (tasks < 0 || tasks > PRISM_RESULTS_MAX_TASKS)
    return fail (error, PRISM_ERROR_LIMIT, "“progress.tasks” is not a number from 0 to %d",
                 PRISM_RESULTS_MAX_TASKS);
  r->n_tasks = (guint) tasks;
  if (d == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_ARRAY (d))
    return fail (error, PRISM_ERROR_PARSE, "“progress.done” is not an array");
  seen = g_hash_table_new (NULL, NULL);
  for (guint i = 0; i < json_array_get_length (json_node_get_array (d)); i++)
    {
      JsonNode *run = json_array_get_element (json_node_get_array (d), i);
      JsonArray *ra;
      gint64 first, last;

      if (!JSON_NODE_HOLDS_ARRAY (run) || json_array_get_length (ra = json_node_get_array (run)) != 2)
        return fail (error, PRISM_ERROR_PARSE, "“progress.done” holds something that is not a [first, last] pair");
      first = array_int (ra, 0, -1);
      last = array_int (ra, 1, -1);
      if (first < 0 || last < first || last >= tasks)
        return fail (error, PRISM_ERROR_PARSE,
                     "“progress.done[%u]” is not a range of the %" G_GINT64_FORMAT " tasks", i, tasks);
      for (gint64 t = first; t <= last; t++)
        {
          guint v = (guint) t;
          if (!g_hash_table_add (seen, GUINT_TO_POINTER (v + 1)))
            return fail (error, PRISM_ERROR_PARSE, "“progress.done” lists task %u twice", v);
          g_array_append_val (r->done, v);
        }
    }
  g_array_sort (r->done, compare_guint);
  return TRUE;
}

static gboolean
read_baseline (PrismResults *r, JsonObject *base, GError **error)
{
  const char *kind, *mkind, *note, *gpu, *merror;
  JsonNode *alts;
  double us;

  if (!read_short_string (base, "kind", 64, &kind, error) ||
      !read_short_string (base, "measured_kind", 64, &mkind, error) ||
      !read_short_string (base, "measured_note", 1024, &note, error) ||
      !read_short_string (base, "measured_gpu", 256, &gpu, error) ||
      !read_short_string (base, "measure_error", 4096, &merror, error) ||
      !read_nonnegative (base, "predicted_us", &us, error))
    {
      g_prefix_error (error, "baseline: ");
      return FALSE;
    }
  r->baseline_kind = g_strdup (kind);
  r->baseline_us = us;
  r->baseline_launches = get_count (base, "launches");
  if ((alts = json_object_get_member (base, "alternatives")) != NULL && JSON_NODE_HOLDS_ARRAY (alts) &&
      json_array_get_length (json_node_get_array (alts)) > 0 &&
      JSON_NODE_HOLDS_OBJECT (json_array_get_element (json_node_get_array (alts), 0)))
    {
      JsonObject *alt = json_array_get_object_element (json_node_get_array (alts), 0);
      const char *alt_kind;

      if (!read_short_string (alt, "kind", 64, &alt_kind, error) ||
          !read_nonnegative (alt, "predicted_us", &us, error))
        {
          g_prefix_error (error, "baseline.alternatives[0]: ");
          return FALSE;
        }
      prism_results_set_baseline_alternative (r, alt_kind, us, get_count (alt, "launches"));
    }
  r->baseline_measured_kind = g_strdup (mkind);
  r->baseline_measured_note = g_strdup (note);
  if (get_double (base, "measured_us", 0) > 0 || merror != NULL)
    {
      r->baseline_measured = prism_measurement_new (gpu, merror);
      r->baseline_measured->median_us = get_double (base, "measured_us", 0);
      r->baseline_measured->p20_us = get_double (base, "measured_p20_us", r->baseline_measured->median_us);
      r->baseline_measured->p80_us = get_double (base, "measured_p80_us", r->baseline_measured->median_us);
      r->baseline_measured->max_rel_error = get_double (base, "measured_max_rel_error", 0);
      r->baseline_measured->speedup = r->baseline_measured->error == NULL ? 1 : 0;
      r->baseline_measured->rank = get_where (base, "measured_rank");
      r->baseline_measured->device = get_where (base, "measured_device");
    }
  return TRUE;
}

/* The document without its candidates (json-glib builds a tree about twenty
 * times its text: the candidates are read one at a time). */
static PrismResults *
read_head (JsonNode *root, GError **error)
{
  g_autoptr(PrismGraph) program = NULL;
  g_autoptr(PrismResults) r = NULL;
  const char *format, *source, *mode, *target, *fingerprint, *stop_reason;
  JsonObject *obj;
  JsonNode *n;
  gint64 version;

  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      fail (error, PRISM_ERROR_PARSE, "not a JSON object");
      return NULL;
    }
  obj = json_node_get_object (root);
  format = get_string (obj, "format");
  if (g_strcmp0 (format, PRISM_RESULTS_FORMAT) != 0)
    {
      fail (error, PRISM_ERROR_PARSE, "not a prism-results file (“format” is not “prism-results”)");
      return NULL;
    }
  version = get_int (obj, "version", -1);
  if (version != PRISM_RESULTS_FORMAT_VERSION)
    {
      fail (error, PRISM_ERROR_VERSION, "prism-results version %" G_GINT64_FORMAT " is not supported (only %d)",
            version, PRISM_RESULTS_FORMAT_VERSION);
      return NULL;
    }
  if ((n = json_object_get_member (obj, "program")) == NULL)
    {
      fail (error, PRISM_ERROR_PARSE, "no “program”");
      return NULL;
    }
  program = prism_graph_from_json (n, NULL, error);
  if (program == NULL)
    {
      g_prefix_error (error, "program: ");
      return NULL;
    }
  if (!read_short_string (obj, "source", 4096, &source, error) ||
      !read_short_string (obj, "mode", 64, &mode, error) ||
      !read_short_string (obj, "target", 64, &target, error) ||
      !read_short_string (obj, "fingerprint", 64, &fingerprint, error) ||
      !read_short_string (obj, "stop_reason", 64, &stop_reason, error))
    return NULL;
  if (mode == NULL || target == NULL)
    {
      fail (error, PRISM_ERROR_PARSE, "“mode” or “target” is missing");
      return NULL;
    }
  if (!g_str_equal (mode, "symbolic") && !g_str_equal (mode, "enumerative"))
    {
      fail (error, PRISM_ERROR_PARSE, "“mode” is “%s”, not “symbolic” or “enumerative”", mode);
      return NULL;
    }
  if (!is_word (target, 64))
    {
      fail (error, PRISM_ERROR_PARSE, "“target” is not the name of a GPU table");
      return NULL;
    }
  /* Only ever compared (by --resume): a short word is all it must be. */
  if (fingerprint != NULL && fingerprint[0] != '\0' && !is_word (fingerprint, 64))
    {
      fail (error, PRISM_ERROR_PARSE, "“fingerprint” is not a word of letters and digits");
      return NULL;
    }
  r = prism_results_new (program, source, mode, target, fingerprint);
  if ((n = json_object_get_member (obj, "options")) != NULL && !JSON_NODE_HOLDS_NULL (n))
    r->options = json_node_copy (n);
  r->stop_reason = g_strdup (stop_reason);
  if ((n = json_object_get_member (obj, "stats")) != NULL && JSON_NODE_HOLDS_OBJECT (n))
    prism_run_stats_from_json (json_node_get_object (n), &r->stats);
  if ((n = json_object_get_member (obj, "baseline")) != NULL && JSON_NODE_HOLDS_OBJECT (n) &&
      !read_baseline (r, json_node_get_object (n), error))
    return NULL;
  if ((n = json_object_get_member (obj, "tuning")) != NULL && JSON_NODE_HOLDS_OBJECT (n))
    {
      const char *gpu, *message;

      if (!read_short_string (json_node_get_object (n), "gpu", 256, &gpu, error) ||
          !read_short_string (json_node_get_object (n), "message", 4096, &message, error))
        {
          g_prefix_error (error, "tuning: ");
          return NULL;
        }
      prism_results_set_tuning (r, gpu, message, get_count (json_node_get_object (n), "top"));
    }
  if ((n = json_object_get_member (obj, "progress")) != NULL && JSON_NODE_HOLDS_OBJECT (n) &&
      !read_progress (r, json_node_get_object (n), error))
    return NULL;
  return g_steal_pointer (&r);
}

static JsonNode *
parse_span (const char *data, const PrismJsonSpan *span, GError **error)
{
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  g_autoptr(GError) local = NULL;

  if (!json_parser_load_from_data (parser, data + span->start, (gssize) (span->end - span->start), &local))
    {
      fail (error, PRISM_ERROR_PARSE, "malformed JSON: %s", local->message);
      return NULL;
    }
  return json_parser_steal_root (parser);
}

static PrismCandidate *
read_candidate (const char *data, const PrismJsonSpan *span, guint index, GError **error)
{
  g_autoptr(JsonNode) node = NULL;
  PrismCandidate *c;

  if (span->end - span->start > PRISM_RESULTS_MAX_CANDIDATE_SIZE)
    {
      fail (error, PRISM_ERROR_LIMIT, "candidates[%u] has %" G_GSIZE_FORMAT " bytes; at most %d are read",
            index, span->end - span->start, PRISM_RESULTS_MAX_CANDIDATE_SIZE);
      return NULL;
    }
  if ((node = parse_span (data, span, error)) == NULL ||
      (c = prism_candidate_from_json (node, error)) == NULL)
    {
      g_prefix_error (error, "candidates[%u]: ", index);
      return NULL;
    }
  return c;
}

/* A member of the candidate object at @span, parsed on its own. */
static JsonNode *
candidate_member (const char *data, const PrismJsonSpan *span, const char *name)
{
  PrismJsonSpan m;
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();

  if (!prism_json_find_member (data + span->start, span->end - span->start, name, &m) ||
      !json_parser_load_from_data (parser, data + span->start + m.start, (gssize) (m.end - m.start), NULL))
    return NULL;
  return json_parser_steal_root (parser);
}

/* What a select function is told, without building the candidate: its id,
 * digest and speedup, found in its text (checked as strictly as when the
 * candidate is read; the others are not read at all). */
static gboolean
summarize_candidate (const char *data, const PrismJsonSpan *span, PrismCandidateSummary *out, char **digest,
                     GError **error)
{
  g_autoptr(JsonNode) id = NULL, dg = NULL, speedup = NULL;

  if (data[span->start] != '{')
    return fail (error, PRISM_ERROR_PARSE, "a candidate is not an object");
  id = candidate_member (data, span, "id");
  if (id == NULL || !JSON_NODE_HOLDS_VALUE (id) || json_node_get_value_type (id) != G_TYPE_INT64 ||
      json_node_get_int (id) < 1 || json_node_get_int (id) > G_MAXINT32)
    return fail (error, PRISM_ERROR_PARSE, "“id” is not a number from 1 to %d", G_MAXINT32);
  out->id = (guint) json_node_get_int (id);
  dg = candidate_member (data, span, "digest");
  if (dg == NULL || !JSON_NODE_HOLDS_VALUE (dg) || json_node_get_value_type (dg) != G_TYPE_STRING ||
      !is_digest (json_node_get_string (dg)))
    return fail (error, PRISM_ERROR_PARSE, "candidate %u: “digest” is not 32 hex digits", out->id);
  speedup = candidate_member (data, span, "speedup");
  out->speedup = 0;
  if (speedup != NULL)
    {
      if (!node_is_number (speedup) || !(json_node_get_double (speedup) >= 0))
        return fail (error, PRISM_ERROR_PARSE, "candidate %u: “speedup” is not a number from 0 up", out->id);
      out->speedup = json_node_get_double (speedup);
    }
  *digest = g_strdup (json_node_get_string (dg));
  return TRUE;
}

/* Ids and digests name one candidate each: a file with two candidates of
 * one id (export --candidate would pick either) or one digest (the same
 * candidate twice, or thousands of times) is not one the search wrote. */
static gboolean
check_identity (GHashTable *ids, GHashTable *digests, guint id, const char *digest, GError **error)
{
  if (!g_hash_table_add (ids, GUINT_TO_POINTER (id)))
    return fail (error, PRISM_ERROR_PARSE, "two candidates have the id %u", id);
  if (!g_hash_table_add (digests, g_strdup (digest)))
    return fail (error, PRISM_ERROR_PARSE, "candidate %u has the digest of an earlier candidate (%s): "
                 "a candidate is listed once", id, digest);
  return TRUE;
}

/* The file's figure where it is the model's up to the rounding of a sum
 * taken in another order (a file read back writes the same bytes). */
static gboolean
same_figure (double in_file, double model)
{
  return fabs (in_file - model) <= 1e-9 * fabs (model);
}

/* Predicted times and speedups are the cost model's for the file's target,
 * program and sizes, never the file's (a speedup of 1e300 made export pick
 * the wrong best): the baseline and each candidate are priced again. */
static gboolean
recompute_figures (PrismResults *r, GError **error)
{
  const PrismGpuTarget *target = prism_gpu_target_lookup (r->target);
  PrismBaselineKind kind = PRISM_BASELINE_VENDOR;
  PrismCostEstimate est;
  g_autoptr(GError) local = NULL;

  if (target == NULL)
    return fail (error, PRISM_ERROR_PARSE, "“target” “%s” is not a GPU this build knows "
                 "(prism search --help lists them; $PRISM_GPU_DATA_PATH adds others)", r->target);
  if (r->baseline_kind != NULL && !prism_baseline_kind_from_string (r->baseline_kind, &kind))
    return fail (error, PRISM_ERROR_PARSE, "baseline: “kind” “%s” is not vendor or prism-lowered",
                 r->baseline_kind);
  if (r->candidates->len == 0 && r->baseline_us == 0)
    return TRUE;
  if (!prism_cost_model_predict_baseline (target, r->program, kind, &est, &local))
    return fail (error, PRISM_ERROR_PARSE, "program: the cost model cannot price it on %s: %s",
                 r->target, local->message);
  r->baseline_us = same_figure (r->baseline_us, est.total_us) ? r->baseline_us : est.total_us;
  r->baseline_launches = est.n_launches;
  for (guint i = 0; i < r->candidates->len; i++)
    {
      PrismCandidate *c = g_ptr_array_index (r->candidates, i);

      if (!prism_cost_model_predict (target, c->graph, c->values, c->n_values, &est, &local))
        return fail (error, PRISM_ERROR_PARSE, "candidate %u: its sizes (“params”) do not fit it on %s: %s",
                     c->id, r->target, local->message);
      c->predicted_us = same_figure (c->predicted_us, est.total_us) ? c->predicted_us : est.total_us;
      c->speedup = c->predicted_us > 0 ? r->baseline_us / c->predicted_us : 0;
    }
  return TRUE;
}

static PrismResults *
load_text (const char *data, gsize length, PrismResultsSelectFunc select, gpointer user_data,
           GError **error)
{
  g_autoptr(GArray) spans = NULL;
  g_autoptr(GString) head = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(PrismResults) r = NULL;
  g_autofree gboolean *keep = NULL;
  g_autoptr(GHashTable) ids = NULL;
  g_autoptr(GHashTable) digest_set = NULL;
  PrismJsonSpan cands;
  gboolean has_cands;

  if (!prism_json_check_text (data, length, prism_json_limits_for (PRISM_JSON_RESULTS), error))
    return NULL;
  has_cands = prism_json_find_member (data, length, "candidates", &cands);
  if (has_cands)
    {
      spans = prism_json_array_elements (data, &cands, PRISM_RESULTS_MAX_CANDIDATES);
      if (spans == NULL)
        {
          fail (error, PRISM_ERROR_PARSE, "“candidates” is not an array");
          return NULL;
        }
      if (spans->len > PRISM_RESULTS_MAX_CANDIDATES)
        {
          fail (error, PRISM_ERROR_LIMIT, "more than %d candidates", PRISM_RESULTS_MAX_CANDIDATES);
          return NULL;
        }
      head = g_string_sized_new (length - (cands.end - cands.start) + 2);
      g_string_append_len (head, data, (gssize) cands.start);
      g_string_append (head, "[]");
      g_string_append_len (head, data + cands.end, (gssize) (length - cands.end));
    }
  else
    head = g_string_new_len (data, (gssize) length);
  if (head->len > PRISM_RESULTS_MAX_HEAD_SIZE)
    {
      fail (error, PRISM_ERROR_LIMIT,
            "everything but the candidates has %" G_GSIZE_FORMAT " bytes; at most %d are read", head->len,
            PRISM_RESULTS_MAX_HEAD_SIZE);
      return NULL;
    }
  /* The head is one tree: it has the value limit of any other document. */
  {
    const PrismJsonLimits head_limits = { PRISM_RESULTS_MAX_HEAD_SIZE, PRISM_JSON_MAX_DEPTH, PRISM_JSON_MAX_VALUES };

    if (!prism_json_check_text (head->str, head->len, &head_limits, error))
      {
        g_prefix_error (error, "everything but the candidates: ");
        return NULL;
      }
  }
  root = parse_span (head->str, &(PrismJsonSpan) { 0, head->len }, error);
  if (root == NULL || (r = read_head (root, error)) == NULL)
    return NULL;
  g_clear_pointer (&root, json_node_unref);
  g_string_free (g_steal_pointer (&head), TRUE);
  if (spans == NULL)
    return recompute_figures (r, error) ? g_steal_pointer (&r) : NULL;

  /* Every candidate is read (and checked); with @select, only the few
   * members it is told about are read of the others, and only those it
   * picks are kept: time and memory are those of the few a command acts on. */
  r->n_candidates_in_file = spans->len;
  keep = g_new0 (gboolean, MAX (spans->len, 1));
  ids = g_hash_table_new (NULL, NULL);
  digest_set = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  if (select != NULL)
    {
      g_autofree PrismCandidateSummary *all = g_new0 (PrismCandidateSummary, MAX (spans->len, 1));
      g_autoptr(GPtrArray) digests = g_ptr_array_new_with_free_func (g_free);

      for (guint i = 0; i < spans->len; i++)
        {
          char *digest = NULL;

          if (!summarize_candidate (data, &g_array_index (spans, PrismJsonSpan, i), &all[i], &digest, error))
            {
              g_prefix_error (error, "candidates[%u]: ", i);
              return NULL;
            }
          all[i].index = i;
          g_ptr_array_add (digests, digest);
          if (!check_identity (ids, digest_set, all[i].id, digest, error))
            return NULL;
          all[i].digest = digest;
        }
      select (all, spans->len, keep, user_data);
    }
  for (guint i = 0; i < spans->len; i++)
    {
      PrismCandidate *c;

      if (select != NULL && !keep[i])
        continue;
      c = read_candidate (data, &g_array_index (spans, PrismJsonSpan, i), i, error);
      if (c == NULL)
        return NULL;
      g_ptr_array_add (r->candidates, c);
      if (select == NULL && !check_identity (ids, digest_set, c->id, c->digest, error))
        return NULL;
    }
  if (!recompute_figures (r, error))
    return NULL;
  return g_steal_pointer (&r);
}

PrismResults *
prism_results_load_from_data (const char *data, gsize length, GError **error)
{
  g_return_val_if_fail (data != NULL || length == 0, NULL);
  return load_text (data ? data : "", length, NULL, NULL, error);
}

PrismResults *
prism_results_load_selected (const char *path, PrismResultsSelectFunc select, gpointer user_data,
                             GError **error)
{
  g_autofree char *data = NULL;
  PrismResults *r;
  gsize len;

  g_return_val_if_fail (path != NULL, NULL);
  /* A regular file of bounded size only: --resume of a FIFO or /dev/zero
   * must fail at once. */
  data = prism_json_read_file (path, PRISM_JSON_RESULTS_MAX_SIZE, &len, error);
  if (data == NULL)
    return NULL;
  r = load_text (data, len, select, user_data, error);
  if (r == NULL)
    g_prefix_error (error, "%s: ", path);
  return r;
}

PrismResults *
prism_results_load (const char *path, GError **error)
{
  return prism_results_load_selected (path, NULL, NULL, error);
}

guint
prism_results_get_n_candidates_in_file (PrismResults *r)
{
  return MAX (r->n_candidates_in_file, r->candidates->len);
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
