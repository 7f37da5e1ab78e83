/* prism-cli-results.c — the prism-results files `prism export` and `prism bench` read
 *
 * A results file is input like any other: it is read with the strict,
 * bounded reader, only the candidates a command acts on are kept (a large
 * file costs the memory of those few), and each of them is proved again
 * before it is used.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>
#include <glib/gi18n.h>

#include "prism-cli.h"
#include "prism-error.h"
#include "prism-json-reader.h"
#include "prism-recheck.h"
#include "prism-results.h"

gboolean
prism_cli_is_results_file (const char *path)
{
  g_autofree char *data = NULL;
  g_autoptr(JsonNode) format = NULL;
  PrismJsonSpan span;
  gsize len;

  /* Anything that is not a well-formed results file is read as a program,
   * whose reader then says what is wrong with it. */
  data = prism_json_read_file (path, PRISM_JSON_RESULTS_MAX_SIZE, &len, NULL);
  if (data == NULL || !prism_json_check_text (data, len, prism_json_limits_for (PRISM_JSON_RESULTS), NULL) ||
      !prism_json_find_member (data, len, "format", &span))
    return FALSE;
  format = prism_json_parse (data + span.start, span.end - span.start, NULL, NULL);
  return format != NULL && JSON_NODE_HOLDS_VALUE (format) &&
         json_node_get_value_type (format) == G_TYPE_STRING &&
         g_str_equal (json_node_get_string (format), PRISM_RESULTS_FORMAT);
}

typedef struct
{
  const char *want_id;
  guint max;
} Want;

static int
by_speedup (gconstpointer a, gconstpointer b)
{
  const PrismCandidateSummary *x = *(PrismCandidateSummary * const *) a;
  const PrismCandidateSummary *y = *(PrismCandidateSummary * const *) b;

  if (x->speedup != y->speedup)
    return x->speedup > y->speedup ? -1 : 1;
  return x->id < y->id ? -1 : x->id > y->id;
}

/* An id is the candidate's number or a prefix of its digest (4 digits at
 * least). */
static gboolean
matches (const PrismCandidateSummary *c, const char *want_id)
{
  g_autofree char *id = g_strdup_printf ("%u", c->id);

  return want_id == NULL || g_str_equal (id, want_id) ||
         (strlen (want_id) >= 4 && g_str_has_prefix (c->digest, want_id));
}

/* Best predicted first; the first @max that match. */
static void
select_wanted (const PrismCandidateSummary *all, guint n, gboolean *keep, gpointer user_data)
{
  const Want *want = user_data;
  g_autoptr(GPtrArray) order = g_ptr_array_sized_new (n);
  guint kept = 0;

  for (guint i = 0; i < n; i++)
    g_ptr_array_add (order, (gpointer) &all[i]);
  g_ptr_array_sort (order, by_speedup);
  for (guint i = 0; i < order->len && (want->max == 0 || kept < want->max); i++)
    {
      const PrismCandidateSummary *c = g_ptr_array_index (order, i);
      if (matches (c, want->want_id))
        {
          keep[c->index] = TRUE;
          kept++;
        }
    }
}

static int
candidates_by_speedup (gconstpointer a, gconstpointer b)
{
  const PrismCandidate *x = *(PrismCandidate * const *) a, *y = *(PrismCandidate * const *) b;

  if (x->speedup != y->speedup)
    return x->speedup > y->speedup ? -1 : 1;
  return x->id < y->id ? -1 : x->id > y->id;
}

GPtrArray *
prism_cli_open_candidates (const char *path, const char *want_id, guint max, GPtrArray **ids,
                           PrismGraph **program, char **target, GError **error)
{
  Want want = { want_id, max };
  g_autoptr(PrismResults) results = NULL;
  g_autoptr(PrismRecheck) recheck = NULL;
  g_autoptr(GPtrArray) graphs = g_ptr_array_new_with_free_func ((GDestroyNotify) prism_graph_unref);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) order = NULL;
  GPtrArray *cands;

  /* The best are chosen by the figures the reader prices again, not by
   * the file's: every candidate is read when none is named. */
  results = want_id != NULL ? prism_results_load_selected (path, select_wanted, &want, error)
                            : prism_results_load (path, error);
  if (results == NULL)
    return NULL;
  cands = prism_results_get_candidates (results);
  if (want_id != NULL && cands->len == 0)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_PARSE, _("%s has no candidate “%s”"), path, want_id);
      return NULL;
    }
  /* The file says they are verified: prove it again before acting on one. */
  if (cands->len > 0)
    {
      recheck = prism_recheck_new (prism_results_get_program (results), error);
      if (recheck == NULL)
        {
          g_prefix_error (error, _("%s: program: "), path);
          return NULL;
        }
    }
  order = g_ptr_array_sized_new (cands->len);
  for (guint i = 0; i < cands->len; i++)
    g_ptr_array_add (order, g_ptr_array_index (cands, i));
  g_ptr_array_sort (order, candidates_by_speedup);
  if (want_id == NULL && max > 0 && order->len > max)
    g_ptr_array_set_size (order, max);
  for (guint i = 0; i < order->len; i++)
    {
      const PrismCandidate *c = g_ptr_array_index (order, i);
      g_autoptr(GError) local = NULL;
      PrismGraph *g;

      if (!prism_recheck_candidate (recheck, c, &local))
        {
          /* TRANSLATORS: candidate number, file, why */
          g_set_error (error, PRISM_CLI_ERROR, PRISM_CLI_ERROR_NOT_EQUIVALENT,
                       _("candidate %u of %s is not equivalent to its program: %s"), c->id, path,
                       local->message);
          return NULL;
        }
      g = prism_candidate_instantiate (c, error);
      if (g == NULL)
        {
          g_prefix_error (error, _("%s, candidate %u: "), path, c->id);
          return NULL;
        }
      g_ptr_array_add (graphs, g);
      g_ptr_array_add (names, g_strdup_printf ("%u", c->id));
    }
  if (program != NULL)
    *program = prism_graph_ref (prism_results_get_program (results));
  if (target != NULL)
    *target = g_strdup (prism_results_get_target (results));
  if (ids != NULL)
    *ids = g_steal_pointer (&names);
  return g_steal_pointer (&graphs);
}
