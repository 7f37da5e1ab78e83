/* prism-recheck.c — re-verifying the candidates a results file holds
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <gio/gio.h>

#include "prism-error.h"
#include "prism-recheck.h"
#include "prism-verifier.h"

struct _PrismRecheck
{
  PrismVerifier *verifier;
};

PrismRecheck *
prism_recheck_new (const PrismGraph *program, GError **error)
{
  g_autoptr(PrismRecheck) r = g_new0 (PrismRecheck, 1);
  PrismVerifierOptions vo;

  g_return_val_if_fail (program != NULL, NULL);
  if (!prism_graph_is_concrete (program))
    {
      g_set_error_literal (error, PRISM_ERROR, PRISM_ERROR_INVALID_GRAPH,
                           "the program has symbolic sizes, so no candidate can be checked against it");
      return NULL;
    }
  prism_verifier_options_init (&vo);
  /* The proof decides; the randomized test at real shapes takes seconds. */
  vo.skip_random = TRUE;
  vo.time_limit_s = PRISM_RECHECK_TIME_LIMIT_S;
  r->verifier = prism_verifier_new (program, &vo, error);
  if (r->verifier == NULL)
    return NULL;
  return g_steal_pointer (&r);
}

void
prism_recheck_free (PrismRecheck *r)
{
  if (r == NULL)
    return;
  g_clear_pointer (&r->verifier, prism_verifier_free);
  g_free (r);
}

static gboolean
not_checked (GError **error)
{
  g_set_error_literal (error, PRISM_ERROR, PRISM_ERROR_CANCELLED, "not checked: the run was stopped");
  return FALSE;
}

gboolean
prism_recheck_candidate (PrismRecheck *r, const PrismCandidate *c, GError **error)
{
  g_autoptr(PrismVerdict) verdict = NULL;
  g_autoptr(PrismGraph) concrete = NULL;
  g_autoptr(GError) local = NULL;

  g_return_val_if_fail (r != NULL && c != NULL && c->graph != NULL, FALSE);
  verdict = prism_verifier_check (r->verifier, c->graph, &local);
  /* A proof cut short by a stop says nothing about the candidate. */
  if (prism_cancelled () && (verdict == NULL || verdict->kind != PRISM_VERDICT_EQUIVALENT))
    return not_checked (error);
  if (verdict == NULL)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_INVALID_GRAPH, "the verifier cannot check it: %s",
                   local->message);
      return FALSE;
    }
  if (verdict->kind == PRISM_VERDICT_UNKNOWN)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_INVALID_GRAPH, "no proof found (%s%s%s)",
                   verdict->stop_reason ? verdict->stop_reason : "unknown",
                   verdict->formal_message ? ": " : "", verdict->formal_message ? verdict->formal_message : "");
      return FALSE;
    }
  if (verdict->kind != PRISM_VERDICT_EQUIVALENT)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_INVALID_GRAPH, "%s", verdict->message);
      return FALSE;
    }
  /* What is run is the proved graph with the file's sizes. */
  concrete = prism_candidate_instantiate (c, &local);
  if (concrete == NULL)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_INVALID_GRAPH, "its sizes (“params”) do not fit it: %s",
                   local->message);
      return FALSE;
    }
  return TRUE;
}

static void
error_free0 (gpointer error)
{
  if (error != NULL)
    g_error_free (error);
}

typedef struct
{
  PrismRecheck *recheck;
  GPtrArray *candidates;
  GPtrArray *errors;
  GCancellable *cancel;   /* the caller's current one, made current on every thread */
  gint next;
} Batch;

static gpointer
recheck_worker (gpointer data)
{
  Batch *b = data;
  gint i;

  if (b->cancel != NULL)
    g_cancellable_push_current (b->cancel);
  /* Each thread takes the next unchecked candidate: costs differ. */
  while ((i = g_atomic_int_add (&b->next, 1)) < (gint) b->candidates->len)
    {
      GError *error = NULL;

      if (prism_cancelled ())
        not_checked (&error);
      else
        prism_recheck_candidate (b->recheck, g_ptr_array_index (b->candidates, i), &error);
      b->errors->pdata[i] = error;
    }
  if (b->cancel != NULL)
    g_cancellable_pop_current (b->cancel);
  return NULL;
}

GPtrArray *
prism_recheck_all (PrismRecheck *r, GPtrArray *candidates, guint n_threads)
{
  g_autoptr(GPtrArray) threads = g_ptr_array_new ();
  Batch b = { r, candidates, NULL, g_cancellable_get_current (), 0 };

  g_return_val_if_fail (r != NULL && candidates != NULL, NULL);
  b.errors = g_ptr_array_new_full (candidates->len, error_free0);
  g_ptr_array_set_size (b.errors, candidates->len);
  if (n_threads == 0)
    n_threads = g_get_num_processors ();
  n_threads = MIN (n_threads, MAX (candidates->len, 1));
  for (guint t = 1; t < n_threads; t++)
    g_ptr_array_add (threads, g_thread_new ("prism-recheck", recheck_worker, &b));
  recheck_worker (&b);
  for (guint t = 0; t < threads->len; t++)
    g_thread_join (g_ptr_array_index (threads, t));
  return b.errors;
}
