/* prism-open-mirage.c — a Mirage file's graphs, verified and priced off the main thread
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "prism-open-mirage"

#include "config.h"

#include <string.h>
#include <glib/gi18n.h>

#include "prism-cost-model.h"
#include "prism-error.h"
#include "prism-gpu-target.h"
#include "prism-mirage-reader.h"
#include "prism-open-mirage.h"
#include "prism-param-instantiate.h"
#include "prism-sgraph.h"
#include "prism-verifier.h"

/* How far the worker is, read by the window from the main thread (an
 * atomic rc box: the request and the cancellable each hold a reference, so
 * whichever goes last frees it). */
typedef struct
{
  gint done;
  gint total;
} Progress;

typedef struct
{
  PrismGraph *reference;
  const PrismGpuTarget *target;
  PrismBaselineKind baseline;
  PrismParamOptions params;
  Progress *progress;
} Request;

static void
request_free (Request *request)
{
  g_clear_pointer (&request->reference, prism_graph_unref);
  g_atomic_rc_box_release (request->progress);
  g_free (request);
}

void
prism_opened_mirage_free (PrismOpenedMirage *opened)
{
  if (opened == NULL)
    return;
  g_clear_pointer (&opened->candidates, g_ptr_array_unref);
  g_clear_pointer (&opened->refused, g_ptr_array_unref);
  g_free (opened);
}

/* The reader's message without its "graph N: ", which the sentence says. */
static const char *
read_error (const PrismMirageGraph *m)
{
  g_autofree char *prefix = g_strdup_printf ("graph %u: ", m->index);
  const char *msg = m->error != NULL ? m->error->message : "";

  return g_str_has_prefix (msg, prefix) ? msg + strlen (prefix) : msg;
}

/* Names the graph by its structure: the same graph opened again (from this
 * file or another) is one row.  Prefixed, so that it never names one of
 * the search's candidates. */
static char *
mirage_digest (const PrismGraph *graph)
{
  g_autofree char *key = prism_graph_canonical_key (graph, PRISM_KEY_MAPS | PRISM_KEY_SIZES);
  g_autofree char *text = g_strconcat ("mirage\n", key, NULL);

  return g_compute_checksum_for_string (G_CHECKSUM_MD5, text, -1);
}

/* An equivalent graph as the search makes a candidate: its sizes chosen (a
 * Mirage graph's are fixed, so only checked against the target's limits),
 * its time predicted, its speedup against the baseline. */
static PrismCandidate *
make_candidate (const Request *request, const PrismMirageGraph *m, const PrismVerdict *v,
                double baseline_us, const char *name, GPtrArray *refused)
{
  g_autoptr(GPtrArray) params = prism_param_instantiate (m->graph, request->target, &request->params, NULL);
  const PrismParamAssignment *best;
  PrismCandidate *c;

  if (params->len == 0)
    {
      /* TRANSLATORS: a Mirage graph number, its file, the GPU */
      g_ptr_array_add (refused, g_strdup_printf (_("Mirage graph %u of %s is equivalent to the program, but "
                                                   "does not fit %s: it needs more thread blocks, threads or "
                                                   "shared memory than the limits allow"),
                                                 m->index, name, request->target->display_name));
      return NULL;
    }
  best = g_ptr_array_index (params, 0);
  c = prism_candidate_new ();
  c->id = m->index;
  c->digest = mirage_digest (m->graph);
  c->graph = prism_graph_ref (m->graph);
  c->n_kernels = prism_cost_model_count_launches (m->graph);
  c->verdict = g_strdup (prism_verdict_kind_to_string (v->kind));
  c->verification = prism_verdict_to_json (v);
  c->n_values = best->n_values;
  c->values = g_memdup2 (best->values, MAX (best->n_values, 1) * sizeof (gint64));
  c->predicted_us = best->predicted_us;
  c->speedup = best->predicted_us > 0 ? baseline_us / best->predicted_us : 0;
  return c;
}

/* One graph: a candidate, or a sentence in @refused saying why not. */
static PrismCandidate *
decide (const Request *request, PrismVerifier *verifier, const PrismMirageGraph *m, double baseline_us,
        const char *name, GPtrArray *refused)
{
  g_autoptr(PrismVerdict) v = NULL;
  g_autoptr(GError) error = NULL;

  if (m->graph == NULL)
    {
      /* TRANSLATORS: a Mirage graph number, its file, why */
      g_ptr_array_add (refused, g_strdup_printf (_("Mirage graph %u of %s could not be read: %s"),
                                                 m->index, name, read_error (m)));
      return NULL;
    }
  v = prism_verifier_check (verifier, m->graph, &error);
  if (v == NULL)
    {
      /* TRANSLATORS: a Mirage graph number, its file, why */
      g_ptr_array_add (refused, g_strdup_printf (_("Mirage graph %u of %s could not be checked against the "
                                                   "program: %s"), m->index, name, error->message));
      return NULL;
    }
  if (v->kind == PRISM_VERDICT_NOT_EQUIVALENT)
    {
      /* TRANSLATORS: a Mirage graph number, its file, the verifier's sentence */
      g_ptr_array_add (refused, g_strdup_printf (_("Mirage graph %u of %s is not equivalent to the program: %s"),
                                                 m->index, name, v->message));
      return NULL;
    }
  if (v->kind != PRISM_VERDICT_EQUIVALENT)
    {
      /* TRANSLATORS: a Mirage graph number, its file, the verdict ("unknown"), the verifier's sentence */
      g_ptr_array_add (refused, g_strdup_printf (_("Mirage graph %u of %s was not shown equivalent to the "
                                                   "program (%s): %s"),
                                                 m->index, name, prism_verdict_kind_to_string (v->kind),
                                                 v->message));
      return NULL;
    }
  return make_candidate (request, m, v, baseline_us, name, refused);
}

static void
open_in_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  GFile *file = source;
  const Request *request = task_data;
  g_autofree char *path = g_file_get_path (file);
  g_autofree char *name = g_file_get_parse_name (file);
  g_autoptr(PrismOpenedMirage) opened = g_new0 (PrismOpenedMirage, 1);
  g_autoptr(PrismVerifier) verifier = NULL;
  g_autoptr(GPtrArray) graphs = NULL;
  PrismVerifierOptions vo;
  PrismCostEstimate base;
  GError *error = NULL;

  if (path == NULL)
    {
      g_task_return_new_error (task, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED,
                               _("“%s” is not in a local folder: Mirage files are read from local folders only"),
                               name);
      return;
    }
  /* Bounded, strict, a FIFO refused (the reader's rules). */
  graphs = prism_mirage_load (path, &error);
  if (graphs == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  if (!prism_cost_model_predict_baseline (request->target, request->reference, request->baseline, &base, &error))
    {
      g_prefix_error (&error, _("program: "));
      g_task_return_error (task, error);
      return;
    }
  /* As `prism verify` decides a graph: a proof, and the randomized test. */
  prism_verifier_options_init (&vo);
  verifier = prism_verifier_new (request->reference, &vo, &error);
  if (verifier == NULL)
    {
      g_prefix_error (&error, _("program: "));
      g_task_return_error (task, error);
      return;
    }

  opened->n_graphs = graphs->len;
  g_atomic_int_set (&request->progress->total, (gint) graphs->len);
  opened->candidates = g_ptr_array_new_with_free_func ((GDestroyNotify) prism_candidate_unref);
  opened->refused = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < graphs->len; i++)
    {
      PrismCandidate *c;

      /* Closed, or another program opened: nobody wants the rest. */
      if (g_cancellable_is_cancelled (cancellable))
        break;
      c = decide (request, verifier, g_ptr_array_index (graphs, i), base.total_us, name, opened->refused);
      if (c != NULL)
        g_ptr_array_add (opened->candidates, c);
      g_atomic_int_set (&request->progress->done, (gint) i + 1);
    }
  g_task_return_pointer (task, g_steal_pointer (&opened), (GDestroyNotify) prism_opened_mirage_free);
}

void
prism_open_mirage_async (GFile                      *file,
                         PrismGraph                 *reference,
                         const PrismPipelineOptions *options,
                         GCancellable               *cancellable,
                         GAsyncReadyCallback         callback,
                         gpointer                    user_data)
{
  g_autoptr(GTask) task = NULL;
  Request *request;

  g_return_if_fail (G_IS_FILE (file));
  g_return_if_fail (reference != NULL);
  g_return_if_fail (options != NULL);

  request = g_new0 (Request, 1);
  request->reference = prism_graph_ref (reference);
  request->target = options->target ? prism_gpu_target_lookup (options->target) : NULL;
  if (request->target == NULL)
    request->target = prism_gpu_target_default ();
  request->baseline = options->baseline;
  /* The limits the search's candidates were sized under (prism-pipeline.c). */
  request->params.smem_limit = options->search.smem_limit;
  request->params.max_blocks = options->search.max_blocks;
  request->params.keep = 5;

  request->progress = g_atomic_rc_box_new0 (Progress);
  if (cancellable != NULL)
    g_object_set_data_full (G_OBJECT (cancellable), "prism-mirage-progress",
                            g_atomic_rc_box_acquire (request->progress), (GDestroyNotify) g_atomic_rc_box_release);

  task = g_task_new (file, cancellable, callback, user_data);
  g_task_set_source_tag (task, prism_open_mirage_async);
  g_task_set_name (task, "[prism] open Mirage file");
  g_task_set_task_data (task, request, (GDestroyNotify) request_free);
  /* The window checks the cancellable: a cancel drops the result. */
  g_task_set_check_cancellable (task, FALSE);
  g_task_run_in_thread (task, open_in_thread);
}

PrismOpenedMirage *
prism_open_mirage_finish (GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (G_IS_TASK (result) && g_task_get_source_tag (G_TASK (result)) == prism_open_mirage_async,
                        NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * prism_open_mirage_get_progress:
 * @cancellable: the cancellable given to prism_open_mirage_async()
 * @done: (out): graphs decided so far
 * @total: (out): graphs in the file (0 until it has been read)
 *
 * Main thread or any: the worker counts as it goes.
 *
 * Returns: %FALSE if @cancellable is not one of a Mirage file being opened
 */
gboolean
prism_open_mirage_get_progress (GCancellable *cancellable,
                                guint        *done,
                                guint        *total)
{
  Progress *progress = cancellable ? g_object_get_data (G_OBJECT (cancellable), "prism-mirage-progress") : NULL;

  *done = *total = 0;
  if (progress == NULL)
    return FALSE;
  *done = (guint) g_atomic_int_get (&progress->done);
  *total = (guint) g_atomic_int_get (&progress->total);
  return TRUE;
}
