/* prism-pipeline.c — one optimization run: search → maps → verify → tune
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The stages after the search run inline, on the search worker that found
 * the sGraph, so verification is as parallel as the search and a task is
 * finished only when everything it found is decided (which makes --resume
 * exact: a finished task never needs to run again).
 *
 * Candidates are named by a 128-bit hash of their canonical key.  The first
 * time a name is met it is decided (sizes, screen, proof); later meetings
 * only record the earliest position in the depth-first order, so the final
 * order of the candidates does not depend on which thread got there first.
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "prism-atomic-file.h"
#include "prism-cost-model.h"
#include "prism-error.h"
#include "prism-gpu-bench.h"
#include "prism-graph-json.h"
#include "prism-map-instantiate.h"
#include "prism-oracle.h"
#include "prism-param-instantiate.h"
#include "prism-pipeline.h"
#include "prism-out-dir.h"
#include "prism-recheck.h"
#include "prism-screen.h"
#include "prism-tune-queue.h"

#define SAVE_INTERVAL_US (2 * G_USEC_PER_SEC)

/* ------------------------------------------------------------------------ */
/* Events */

const char *
prism_event_kind_to_string (PrismEventKind kind)
{
  static const char * const names[] = {
    "progress", "sgraph", "verified", "rejected", "best", "finished", "error",
    "tuning", "measured", "pruned_sample",
  };

  g_return_val_if_fail ((guint) kind < G_N_ELEMENTS (names), "?");
  return names[kind];
}

PrismEvent *
prism_event_new (PrismEventKind kind)
{
  PrismEvent *e = g_new0 (PrismEvent, 1);

  e->ref_count = 1;
  e->kind = kind;
  e->stats.time_to_best_s = -1;
  return e;
}

PrismEvent *
prism_event_ref (PrismEvent *event)
{
  g_return_val_if_fail (event != NULL, NULL);
  g_atomic_int_inc (&event->ref_count);
  return event;
}

void
prism_event_unref (PrismEvent *event)
{
  if (event == NULL || !g_atomic_int_dec_and_test (&event->ref_count))
    return;
  g_clear_pointer (&event->candidate, prism_candidate_unref);
  g_clear_pointer (&event->graph, prism_graph_unref);
  g_free (event->digest);
  g_free (event->message);
  g_clear_pointer (&event->evidence, json_node_unref);
  g_clear_pointer (&event->measurement, prism_measurement_free);
  g_clear_pointer (&event->sample, prism_prune_sample_free);
  g_free (event);
}

static void
add_candidate_summary (JsonBuilder *b, const PrismCandidate *c, guint id)
{
  g_autofree char *params = prism_candidate_params_to_string (c);

  json_builder_set_member_name (b, "id");
  json_builder_add_int_value (b, id != 0 ? id : c->id);
  json_builder_set_member_name (b, "digest");
  json_builder_add_string_value (b, c->digest);
  json_builder_set_member_name (b, "kernels");
  json_builder_add_int_value (b, c->n_kernels);
  json_builder_set_member_name (b, "params");
  json_builder_add_string_value (b, params);
  json_builder_set_member_name (b, "predicted_us");
  json_builder_add_double_value (b, c->predicted_us);
  json_builder_set_member_name (b, "speedup");
  json_builder_add_double_value (b, c->speedup);
}

static void
add_pruned_sample (JsonBuilder *b, const PrismPruneSample *ps)
{
  json_builder_set_member_name (b, "depth");
  json_builder_add_int_value (b, ps->depth);
  json_builder_set_member_name (b, "reason");
  json_builder_add_string_value (b, prism_prune_reason_to_string (ps->reason));
  json_builder_set_member_name (b, "task");
  if (ps->task != G_MAXUINT)
    json_builder_add_int_value (b, ps->task);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "step");
  json_builder_add_string_value (b, ps->step);
  json_builder_set_member_name (b, "evidence");
  json_builder_add_string_value (b, ps->evidence);
  json_builder_set_member_name (b, "marked_op");
  json_builder_add_int_value (b, ps->marked_op);
  json_builder_set_member_name (b, "marked_block_op");
  json_builder_add_int_value (b, ps->marked_block_op);
  json_builder_set_member_name (b, "graph");
  json_builder_add_value (b, prism_graph_to_json (ps->graph, NULL));
}

JsonNode *
prism_event_to_json (const PrismEvent *e)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "event");
  json_builder_add_string_value (b, prism_event_kind_to_string (e->kind));
  json_builder_set_member_name (b, "time_s");
  json_builder_add_double_value (b, e->time_s);
  switch (e->kind)
    {
    case PRISM_EVENT_PROGRESS:
    case PRISM_EVENT_FINISHED:
      json_builder_set_member_name (b, "stats");
      json_builder_add_value (b, prism_run_stats_to_json (&e->stats));
      if (e->message != NULL)
        {
          json_builder_set_member_name (b, "stop_reason");
          json_builder_add_string_value (b, e->message);
        }
      break;
    case PRISM_EVENT_SGRAPH:
      {
        g_autofree char *key = prism_graph_canonical_key (e->graph, PRISM_KEY_STRUCTURE);
        json_builder_set_member_name (b, "task");
        json_builder_add_int_value (b, e->task);
        json_builder_set_member_name (b, "structure");
        json_builder_add_string_value (b, key);
      }
      break;
    case PRISM_EVENT_VERIFIED:
    case PRISM_EVENT_BEST:
      add_candidate_summary (b, e->candidate, e->id);
      break;
    case PRISM_EVENT_REJECTED:
      json_builder_set_member_name (b, "digest");
      json_builder_add_string_value (b, e->digest);
      json_builder_set_member_name (b, "reason");
      json_builder_add_string_value (b, e->message);
      json_builder_set_member_name (b, "evidence");
      if (e->evidence != NULL)
        json_builder_add_value (b, json_node_copy (e->evidence));
      else
        json_builder_add_null_value (b);
      break;
    case PRISM_EVENT_ERROR:
      json_builder_set_member_name (b, "message");
      json_builder_add_string_value (b, e->message);
      break;
    case PRISM_EVENT_TUNING:
      json_builder_set_member_name (b, "status");
      json_builder_add_string_value (b, prism_tune_status_to_string (e->tune_status));
      json_builder_set_member_name (b, "message");
      json_builder_add_string_value (b, e->message ? e->message : "");
      json_builder_set_member_name (b, "count");
      json_builder_add_int_value (b, e->tune_count);
      if (e->tune_status == PRISM_TUNE_DONE)
        {
          json_builder_set_member_name (b, "timed");
          json_builder_add_int_value (b, e->tune_index);
        }
      break;
    case PRISM_EVENT_MEASURED:
      json_builder_set_member_name (b, "baseline");
      json_builder_add_boolean_value (b, e->candidate == NULL);
      if (e->candidate != NULL)
        {
          json_builder_set_member_name (b, "id");
          json_builder_add_int_value (b, e->id);
          json_builder_set_member_name (b, "digest");
          json_builder_add_string_value (b, e->candidate->digest);
          json_builder_set_member_name (b, "predicted_us");
          json_builder_add_double_value (b, e->candidate->predicted_us);
        }
      json_builder_set_member_name (b, "index");
      json_builder_add_int_value (b, e->tune_index);
      json_builder_set_member_name (b, "count");
      json_builder_add_int_value (b, e->tune_count);
      json_builder_set_member_name (b, "measured");
      json_builder_add_value (b, prism_measurement_to_json (e->measurement));
      break;
    case PRISM_EVENT_PRUNED_SAMPLE:
      add_pruned_sample (b, e->sample);
      break;
    default:
      break;
    }
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

/* ------------------------------------------------------------------------ */
/* Options */

void
prism_pipeline_options_init (PrismPipelineOptions *options)
{
  memset (options, 0, sizeof *options);
  prism_search_options_init (&options->search);
  options->seed = 1;
  options->random_seeds = 2;
  options->max_map_combinations = 4096;
  options->max_variants = 4;
  options->verifier_time_limit_s = 10;
  options->tune_top = 5;
  options->tune_timeout_s = 60;
  options->tune_device = 0;
  options->tune_min_time_ms = 100;
  options->baseline = PRISM_BASELINE_VENDOR;
}

const char *
prism_tune_status_to_string (PrismTuneStatus status)
{
  static const char * const names[] = {
    "measuring", "done", "no_gpu", "off", "stopped", "nothing",
  };

  g_return_val_if_fail ((guint) status < G_N_ELEMENTS (names), "?");
  return names[status];
}

/* ------------------------------------------------------------------------ */

typedef struct
{
  guint64 a, b;
} Key128;

typedef enum
{
  ENTRY_PENDING,
  ENTRY_NO_SIZES,
  ENTRY_SCREENED,
  ENTRY_VERIFIED,
  ENTRY_REJECTED,
} EntryState;

typedef struct
{
  Key128 key;
  EntryState state;
  guint task;
  guint seq;
  PrismCandidate *candidate;   /* VERIFIED (a reference) */
  GSequenceIter *queued;       /* in PrismPipeline.order until published or dropped */
} Entry;

struct _PrismPipeline
{
  PrismGraph *program;
  PrismPipelineOptions opts;
  char *target_name;
  char *out_dir;
  char *source;
  char *results_path;
  PrismOutDir *out;            /* checked and locked while the pipeline lives */
  GError *save_error;          /* the last save's failure; NULL once one succeeds */
  const PrismGpuTarget *target;
  char *fingerprint;
  char *peer_fingerprint;
  JsonNode *options_json;

  PrismEventFunc on_event;
  PrismTickFunc on_tick;
  gpointer user_data;

  /* Built by prism_pipeline_run(), read-only afterwards. */
  PrismOracle *oracle;
  PrismVerifier *verifier;
  PrismScreen *screen;
  PrismSearch *search;
  double baseline_us;
  guint baseline_launches;
  gint64 start_us;
  double setup_s;

  /* Shared by the worker threads, under @lock. */
  GMutex lock;
  PrismResults *results;
  GHashTable *seen;            /* Key128* → Entry* */
  GHashTable *scores;          /* kernel body signature → ScoreCache* */
  PrismRunStats counters;      /* pipeline counters of this run */
  PrismRunStats previous;      /* everything of earlier runs (resume) */
  GArray *done;                /* finished tasks (earlier runs included) */
  GHashTable *done_set;        /* the same, as a set */
  guint head;                  /* the first task not finished: every earlier one is */
  GSequence *order;            /* Entry* not published yet, by (task, seq) */
  GHashTable *dropped_ids;     /* digest → id of a resumed candidate not proved again */
  GHashTable *forms;           /* executed digest → PrismCandidate* (a reference) published with it */
  GQueue outbox;               /* PrismEvent* published, to emit in order */
  GMutex emit_lock;            /* held by the one thread emitting the outbox */
  guint next_id;
  PrismCandidate *best;
  gboolean resumed;            /* p->results came from results.json: recheck it */
  gboolean dirty;
  gint64 last_save_us;
  char *stop_reason;

  char *gpu_worker;
  gint stop_requested;         /* atomic: ends the tuning between programs */
  gint paused;               /* atomic: the GPU timings wait while it is set */

  /* Sharing the search with other processes (PrismPipelinePeers). */
  PrismPipelineRole role;
  GCond decided;               /* an entry stopped being PENDING (REPORT waits for it) */
  guint next_claim;            /* GATHER: tasks before it are handed out (under @lock) */
  guint peer_tasks;            /* GATHER: 1 + the last task a peer reported (its split phase
                                * may be ahead of ours) */
  GArray *peer_stats;          /* GATHER: PrismRunStats per peer, index 0 unused */
  char *peer_stop_reason;      /* GATHER: the first peer's that is not "exhausted" */
  JsonNode *ranks;             /* GATHER: results.json stats.ranks */
  guint64 own_tasks;           /* tasks finished here in this run */
  guint64 own_candidates;      /* candidates decided verified here in this run */
  guint grant;                 /* split phase thread: the task handed to this process … */
  gboolean has_grant;          /* … not reached yet */

  /* GATHER, timing across processes (tune_shared()), under @lock. */
  PrismTuneQueue *tune_queue;  /* NULL outside the timings */
  GPtrArray *tune_order;       /* PrismCandidate*: item i + 1 is tune_order[i] */
  PrismMeasurement *tune_base; /* item 0's timing, once there */
  char **tune_devices;         /* per process: its GPU, or NULL */
  GQueue tune_inbox;           /* TuneResult*: the others' timings, for the pipeline's thread */
  GCond tune_cond;             /* a timing came or a process answered */
};

typedef struct
{
  guint peer;
  JsonNode *result;
} TuneResult;

static void
tune_result_free (TuneResult *r)
{
  json_node_unref (r->result);
  g_free (r);
}

/* A meeting of a candidate in a task (REPORT: reported when the task ends). */
typedef struct
{
  Entry *entry;
  guint seq;
} Meeting;

/* The position of the sGraphs a worker is delivering: one task at a time. */
typedef struct
{
  guint task;
  guint seq;
  GArray *met;                 /* REPORT: Meeting, in the task's order */
} TaskPos;

static void
task_pos_free (gpointer data)
{
  TaskPos *pos = data;

  if (pos->met != NULL)
    g_array_unref (pos->met);
  g_free (pos);
}

static GPrivate task_pos = G_PRIVATE_INIT (task_pos_free);

void
prism_task_find_free (PrismTaskFind *find)
{
  if (find == NULL)
    return;
  prism_candidate_unref (find->candidate);
  g_free (find);
}

static guint
key_hash (gconstpointer k)
{
  return (guint) ((const Key128 *) k)->a;
}

static gboolean
key_equal (gconstpointer x, gconstpointer y)
{
  return memcmp (x, y, sizeof (Key128)) == 0;
}

static void
entry_free (gpointer data)
{
  Entry *e = data;

  prism_candidate_unref (e->candidate);
  g_free (e);
}

/* Two FNV-1a hashes with different offsets, the second one finished with a
 * mixer: 128 bits, so distinct candidates never share a name in practice. */
static Key128
key_of (const char *text)
{
  Key128 k = { 0xcbf29ce484222325ull, 0x84222325cbf29ce4ull };

  for (const guchar *p = (const guchar *) text; *p; p++)
    {
      k.a = (k.a ^ *p) * 0x100000001b3ull;
      k.b = (k.b ^ *p) * 0x100000001b3ull;
      k.b ^= k.b >> 29;
    }
  k.b ^= k.b >> 33;
  k.b *= 0xff51afd7ed558ccdull;
  k.b ^= k.b >> 33;
  return k;
}

static char *
key_digest (Key128 k)
{
  return g_strdup_printf ("%016" G_GINT64_MODIFIER "x%016" G_GINT64_MODIFIER "x", k.a, k.b);
}

static gboolean
key_from_digest (const char *digest, Key128 *k)
{
  char a[17], b[17];
  char *end;

  if (digest == NULL || strlen (digest) != 32)
    return FALSE;
  memcpy (a, digest, 16);
  memcpy (b, digest + 16, 16);
  a[16] = b[16] = '\0';
  k->a = g_ascii_strtoull (a, &end, 16);
  if (*end != '\0')
    return FALSE;
  k->b = g_ascii_strtoull (b, &end, 16);
  return *end == '\0';
}

static double
run_time (PrismPipeline *p)
{
  if (p->search != NULL)
    return p->setup_s + prism_search_get_elapsed (p->search);
  return p->previous.search.elapsed_s + (g_get_monotonic_time () - p->start_us) / 1e6;
}

static void
emit (PrismPipeline *p, PrismEvent *e)
{
  e->time_s = run_time (p);
  if (p->on_event != NULL)
    p->on_event (e, p->user_data);
  prism_event_unref (e);
}

/* Counters of this run and the earlier ones, the search's included.
 * Call with the lock held. */
static void
snapshot_locked (PrismPipeline *p, PrismRunStats *out)
{
  PrismRunStats now = p->counters;

  if (p->search != NULL)
    {
      prism_search_get_stats (p->search, &now.search);
      now.search.elapsed_s = 0;
    }
  *out = p->previous;
  prism_run_stats_add (out, &now);
  /* The other processes' own counters (their split phase left out: it is
   * counted once, here). */
  for (guint i = 1; p->peer_stats != NULL && i < p->peer_stats->len; i++)
    prism_run_stats_add (out, &g_array_index (p->peer_stats, PrismRunStats, i));
  out->search.elapsed_s = run_time (p);
  out->setup_s = p->previous.setup_s + p->setup_s;
  out->search.tasks_done = p->done->len;
  if (p->search != NULL)
    {
      PrismSearchStats s;
      prism_search_get_stats (p->search, &s);
      out->search.n_tasks = MAX (out->search.n_tasks, s.n_tasks);
    }
  /* Tasks finished elsewhere are tasks of the file too. */
  out->search.n_tasks = MAX (out->search.n_tasks, p->peer_tasks);
  out->time_to_best_s = p->best ? p->best->found_at_s : -1;
  out->deciding = now.deciding;
  out->instantiating = now.instantiating;
  if (p->results != NULL)
    {
      GPtrArray *cands = prism_results_get_candidates (p->results);

      out->faster = prism_candidates_count_faster (cands);
      out->distinct = prism_candidates_count_distinct (cands);
    }
}

/* The finished tasks whose candidates are all in the file: a task whose
 * verified candidates wait to be published (tasks before it still run) is
 * not written as done, or --resume after a kill would skip it and lose
 * them. */
static GArray *
done_tasks_saved_locked (PrismPipeline *p)
{
  g_autoptr(GHashTable) waiting = g_hash_table_new (NULL, NULL);
  GArray *done = g_array_sized_new (FALSE, FALSE, sizeof (guint), p->done->len);

  for (GSequenceIter *it = g_sequence_get_begin_iter (p->order); !g_sequence_iter_is_end (it);
       it = g_sequence_iter_next (it))
    g_hash_table_add (waiting, GUINT_TO_POINTER (((Entry *) g_sequence_get (it))->task));
  for (guint i = 0; i < p->done->len; i++)
    {
      guint task = g_array_index (p->done, guint, i);

      if (!g_hash_table_contains (waiting, GUINT_TO_POINTER (task)))
        g_array_append_val (done, task);
    }
  return done;
}

static void
save_locked (PrismPipeline *p)
{
  PrismRunStats stats;
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) done = NULL;

  if (p->results_path == NULL)
    return;
  snapshot_locked (p, &stats);
  done = done_tasks_saved_locked (p);
  prism_results_set_stats (p->results, &stats);
  prism_results_set_ranks (p->results, p->ranks);
  prism_results_set_progress (p->results, stats.search.n_tasks, done, p->stop_reason);
  if (!prism_results_save (p->results, p->results_path, &error))
    {
      /* Said once per reason, not at every save; the run's end reports
       * the last one (prism_pipeline_get_save_error()). */
      if (p->save_error == NULL || !g_error_matches (p->save_error, error->domain, error->code))
        g_warning ("cannot write %s: %s", p->results_path, error->message);
      g_clear_error (&p->save_error);
      p->save_error = g_steal_pointer (&error);
    }
  else
    g_clear_error (&p->save_error);
  p->dirty = FALSE;
  p->last_save_us = g_get_monotonic_time ();
}

/* ------------------------------------------------------------------------ */
/* Publishing candidates in the search's order */

/* Candidates are numbered once, when they are published, and never again.
 * So that the numbers do not depend on which thread decided what first, a
 * candidate is published only when everything before it in the search's
 * order — the tasks before its own, and in its task the candidates met
 * before it — has been decided: the ids are the order of (task, seq), the
 * same with any number of threads, and a one-thread run publishes each
 * candidate the moment it is verified. */
static gint
compare_positions (gconstpointer a, gconstpointer b, gpointer user_data)
{
  const Entry *x = a, *y = b;

  if (x->task != y->task)
    return x->task < y->task ? -1 : 1;
  if (x->seq != y->seq)
    return x->seq < y->seq ? -1 : 1;
  /* Two entries are never met at one place; keep the order total anyway. */
  return memcmp (&x->key, &y->key, sizeof x->key);
}

static void
mark_done_locked (PrismPipeline *p, guint task)
{
  if (!g_hash_table_add (p->done_set, GUINT_TO_POINTER (task)))
    return;
  g_array_append_val (p->done, task);
  while (g_hash_table_contains (p->done_set, GUINT_TO_POINTER (p->head)))
    p->head++;
}

/* A candidate whose canonical form is that of one published before it is
 * the same program (docs/format.md, "Canonical form"): it is recorded as
 * that one's equivalent and is no candidate of its own.  Publication goes
 * in the search's order, so the one kept is the earliest, with any number
 * of threads. */
static gboolean
merge_equivalent_locked (PrismPipeline *p, PrismCandidate *c)
{
  const char *form = prism_candidate_get_executed_digest (c);
  PrismCandidate *kept = g_hash_table_lookup (p->forms, form);

  if (kept == NULL || kept == c)
    {
      if (kept == NULL)
        g_hash_table_insert (p->forms, g_strdup (form), prism_candidate_ref (c));
      return FALSE;
    }
  prism_candidate_add_equivalent (kept, c);
  p->counters.equivalent++;
  p->dirty = TRUE;
  return TRUE;
}

static void
publish_locked (PrismPipeline *p, Entry *entry)
{
  PrismCandidate *c = entry->candidate;
  gpointer old_id;
  PrismEvent *e;

  c->task = entry->task;
  c->seq = entry->seq;
  p->counters.verified++;
  if (merge_equivalent_locked (p, c))
    return;
  if (g_hash_table_lookup_extended (p->dropped_ids, c->digest, NULL, &old_id))
    {
      c->id = GPOINTER_TO_UINT (old_id);
      g_hash_table_remove (p->dropped_ids, c->digest);
    }
  else
    c->id = ++p->next_id;
  prism_candidate_invalidate (c);
  prism_results_add_candidate (p->results, c);
  p->dirty = TRUE;

  e = prism_event_new (PRISM_EVENT_VERIFIED);
  e->candidate = prism_candidate_ref (c);
  e->id = c->id;
  e->task = entry->task;
  g_queue_push_tail (&p->outbox, e);
  /* A candidate slower than the program is never the best one. */
  if (prism_candidate_is_faster (c) && (p->best == NULL || c->speedup > p->best->speedup))
    {
      p->best = c;
      e = prism_event_new (PRISM_EVENT_BEST);
      e->candidate = prism_candidate_ref (c);
      e->id = c->id;
      g_queue_push_tail (&p->outbox, e);
    }
}

/* The candidate's decision is made: it is no longer counted as deciding. */
static void
set_decided_locked (PrismPipeline *p, Entry *entry, EntryState state)
{
  g_assert (entry->state == ENTRY_PENDING && state != ENTRY_PENDING);
  entry->state = state;
  p->counters.deciding--;
}

/* Publishes the decided candidates at the front of the order.  With @all
 * (the search has ended, maybe stopped), every decided one; those whose
 * decision was cut short are dropped. */
static void
publish_front_locked (PrismPipeline *p, gboolean all)
{
  gboolean published = FALSE;

  while (!g_sequence_is_empty (p->order))
    {
      GSequenceIter *front = g_sequence_get_begin_iter (p->order);
      Entry *entry = g_sequence_get (front);

      if (!all && (entry->task > p->head || entry->state == ENTRY_PENDING))
        break;
      g_sequence_remove (front);
      entry->queued = NULL;
      if (entry->state == ENTRY_VERIFIED)
        {
          publish_locked (p, entry);
          published = TRUE;
        }
    }
  /* Once per batch: the file is rewritten at every published candidate. */
  if (published)
    save_locked (p);
}

static void
publish_ready_locked (PrismPipeline *p)
{
  publish_front_locked (p, FALSE);
}

/* Emits the published events in the order they were published: one thread
 * at a time empties the outbox, so that VERIFIED events arrive by id. */
static void
emit_outbox (PrismPipeline *p)
{
  g_mutex_lock (&p->emit_lock);
  for (;;)
    {
      PrismEvent *e;

      g_mutex_lock (&p->lock);
      e = g_queue_pop_head (&p->outbox);
      g_mutex_unlock (&p->lock);
      if (e == NULL)
        break;
      emit (p, e);
    }
  g_mutex_unlock (&p->emit_lock);
}

/* ------------------------------------------------------------------------ */
/* Deciding one candidate */

/* The screen's result in the shape of the verifier's "random" object, with
 * the shapes it ran at. */
static JsonNode *
screen_evidence (const PrismScreenResult *r, const char *error)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "ran");
  json_builder_add_boolean_value (b, error == NULL);
  json_builder_set_member_name (b, "ok");
  json_builder_add_boolean_value (b, error == NULL && r->ok);
  json_builder_set_member_name (b, "seeds");
  json_builder_begin_array (b);
  for (guint i = 0; i < r->n_seeds; i++)
    json_builder_add_int_value (b, (gint64) (r->first_seed + i));
  json_builder_end_array (b);
  json_builder_set_member_name (b, "max_error");
  if (error == NULL && r->max_error < G_MAXDOUBLE)
    json_builder_add_double_value (b, r->max_error);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "tolerance");
  json_builder_add_double_value (b, 1e-9);
  json_builder_set_member_name (b, "shapes");
  json_builder_add_string_value (b, "small");
  json_builder_set_member_name (b, "sizes");
  json_builder_add_string_value (b, r->sizes);
  json_builder_set_member_name (b, "seconds");
  json_builder_add_double_value (b, r->seconds);
  if (error != NULL)
    {
      json_builder_set_member_name (b, "message");
      json_builder_add_string_value (b, error);
    }
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

/* Puts the screen into the verifier's evidence: as its randomized test when
 * the verifier ran formally only, else next to the verifier's own test. */
static void
merge_screen (PrismPipeline *p, JsonNode *evidence, const PrismScreenResult *screened,
              PrismVerdictKind kind)
{
  JsonObject *obj;
  JsonArray *methods;
  gboolean has_random = FALSE;

  if (!JSON_NODE_HOLDS_OBJECT (evidence))
    return;
  obj = json_node_get_object (evidence);
  if (p->opts.full_random)
    {
      json_object_set_member (obj, "screen", screen_evidence (screened, NULL));
      return;
    }
  json_object_set_member (obj, "random", screen_evidence (screened, NULL));
  if (!json_object_has_member (obj, "methods") ||
      !JSON_NODE_HOLDS_ARRAY (json_object_get_member (obj, "methods")))
    json_object_set_array_member (obj, "methods", json_array_new ());
  methods = json_object_get_array_member (obj, "methods");
  for (guint i = 0; i < json_array_get_length (methods); i++)
    has_random |= g_strcmp0 (json_array_get_string_element (methods, i), "random") == 0;
  if (!has_random)
    json_array_add_string_element (methods, "random");
  if (kind == PRISM_VERDICT_EQUIVALENT)
    {
      gint64 steps = 0;
      g_autofree char *msg = NULL;

      if (json_object_has_member (obj, "formal") &&
          JSON_NODE_HOLDS_OBJECT (json_object_get_member (obj, "formal")))
        steps = json_object_get_int_member_with_default (json_object_get_object_member (obj, "formal"),
                                                         "proof_length", 0);
      msg = g_strdup_printf (_("Proved equivalent in %u rewrite steps; the randomized test at small "
                               "shapes agrees (%u seeds, max error %.3g)."),
                             (guint) steps, screened->n_seeds, screened->max_error);
      json_object_set_string_member (obj, "message", msg);
    }
}

static void
reject (PrismPipeline *p, Entry *entry, EntryState state, const PrismGraph *graph, guint task,
        const char *message, JsonNode *evidence)
{
  PrismEvent *e = prism_event_new (PRISM_EVENT_REJECTED);

  g_mutex_lock (&p->lock);
  set_decided_locked (p, entry, state);
  g_cond_broadcast (&p->decided);
  publish_ready_locked (p);
  g_mutex_unlock (&p->lock);
  e->graph = prism_graph_ref ((PrismGraph *) graph);
  e->digest = key_digest (entry->key);
  e->message = g_strdup (message);
  e->evidence = evidence;
  e->task = task;
  emit (p, e);
  emit_outbox (p);
}

/* Why an unknown verdict is unknown, for the counters. */
typedef enum
{
  UNKNOWN_OTHER,     /* the verifier failed, or the run stopped */
  UNKNOWN_UNPROVED,  /* the proof stopped and nothing refuted it */
  UNKNOWN_UNTESTED,  /* proved, but the randomized test could not run */
} UnknownReason;

static PrismVerdictKind
verify_why (PrismPipeline *p, const PrismGraph *graph, JsonNode **evidence, char **message,
            UnknownReason *why)
{
  g_autoptr(PrismVerdict) verdict = NULL;
  g_autoptr(GError) error = NULL;

  *why = UNKNOWN_OTHER;
  if (p->opts.verify_func != NULL)
    return p->opts.verify_func (graph, evidence, message, p->opts.verify_data);
  verdict = prism_verifier_check (p->verifier, graph, &error);
  if (verdict == NULL)
    {
      *message = g_strdup_printf (_("The verifier could not check it: %s"), error->message);
      *evidence = NULL;
      return PRISM_VERDICT_UNKNOWN;
    }
  *evidence = prism_verdict_to_json (verdict);
  *message = g_strdup (verdict->message);
  if (verdict->kind == PRISM_VERDICT_UNKNOWN && verdict->formal_ran)
    *why = verdict->proved ? UNKNOWN_UNTESTED : UNKNOWN_UNPROVED;
  return verdict->kind;
}

static PrismVerdictKind
verify (PrismPipeline *p, const PrismGraph *graph, JsonNode **evidence, char **message)
{
  UnknownReason why;

  return verify_why (p, graph, evidence, message, &why);
}

static void
accept (PrismPipeline *p, Entry *entry, const PrismMapCandidate *mc, GPtrArray *params,
        JsonNode *evidence)
{
  PrismCandidate *c = prism_candidate_new ();
  const PrismParamAssignment *best = g_ptr_array_index (params, 0);

  c->digest = key_digest (entry->key);
  c->graph = prism_graph_ref (mc->graph);
  c->n_kernels = prism_cost_model_count_launches (mc->graph);
  c->verdict = g_strdup ("equivalent");
  c->verification = evidence;
  c->n_values = best->n_values;
  c->values = g_memdup2 (best->values, MAX (best->n_values, 1) * sizeof (gint64));
  c->predicted_us = best->predicted_us;
  c->speedup = best->predicted_us > 0 ? p->baseline_us / best->predicted_us : 0;
  for (guint i = 1; i < params->len; i++)
    {
      const PrismParamAssignment *a = g_ptr_array_index (params, i);
      PrismParamAssignment *copy = g_new0 (PrismParamAssignment, 1);
      copy->n_values = a->n_values;
      copy->values = g_memdup2 (a->values, MAX (a->n_values, 1) * sizeof (gint64));
      copy->predicted_us = a->predicted_us;
      g_ptr_array_add (c->alternatives, copy);
    }
  c->found_at_s = run_time (p);
  /* Made here, not under the lock where the counters read it. */
  prism_candidate_get_executed_digest (c);

  g_mutex_lock (&p->lock);
  c->task = entry->task;
  c->seq = entry->seq;
  set_decided_locked (p, entry, ENTRY_VERIFIED);
  entry->candidate = c;
  p->own_candidates++;
  g_cond_broadcast (&p->decided);
  publish_ready_locked (p);
  g_mutex_unlock (&p->lock);
  emit_outbox (p);
}

/* Returns TRUE if the candidate is (or already was) verified. */
static gboolean
decide (PrismPipeline *p, const PrismMapCandidate *mc, guint task, guint seq)
{
  Key128 key = key_of (mc->key);
  Entry *entry;
  g_autoptr(GPtrArray) params = NULL;
  PrismParamStats pstats = { 0, };
  PrismParamOptions popts = { p->opts.search.smem_limit, p->opts.search.max_blocks, 5 };
  PrismScreenResult screened;
  g_autoptr(GError) error = NULL;
  JsonNode *evidence = NULL;
  g_autofree char *message = NULL;
  PrismVerdictKind kind;
  UnknownReason why;

  /* Stopped (the search's cancellable, prism_cancelled ()): decide nothing
   * more; the task is left unfinished for --resume. */
  if (prism_cancelled ())
    return FALSE;
  /* A kernel that computes one value twice is the candidate that computes
   * it once and uses it twice (issue 22: 8 of LM head + softmax's 85): a
   * duplicate of that one, never listed. */
  if (prism_graph_find_recomputed (mc->graph, NULL, NULL))
    {
      g_mutex_lock (&p->lock);
      p->counters.duplicates++;
      g_mutex_unlock (&p->lock);
      return FALSE;
    }
  g_mutex_lock (&p->lock);
  entry = g_hash_table_lookup (p->seen, &key);
  if (p->role == PRISM_PIPELINE_REPORT)
    {
      TaskPos *pos = g_private_get (&task_pos);
      Meeting m = { NULL, seq };

      if (entry == NULL)
        {
          entry = g_new0 (Entry, 1);
          entry->key = key;
          entry->task = task;
          entry->seq = seq;
          /* Published where the results are gathered, not here. */
          g_hash_table_insert (p->seen, &entry->key, entry);
          p->counters.map_candidates++;
          m.entry = entry;
          g_array_append_val (pos->met, m);
          g_mutex_unlock (&p->lock);
          goto decide_new;
        }
      m.entry = entry;
      g_array_append_val (pos->met, m);
    }
  if (entry != NULL)
    {
      if (task < entry->task || (task == entry->task && seq < entry->seq))
        {
          entry->task = task;
          entry->seq = seq;
          /* Found earlier in the search's order: published there. */
          if (entry->queued != NULL)
            g_sequence_sort_changed (entry->queued, compare_positions, NULL);
        }
      p->counters.duplicates++;
      g_mutex_unlock (&p->lock);
      return entry->state == ENTRY_VERIFIED;
    }
  entry = g_new0 (Entry, 1);
  entry->key = key;
  entry->task = task;
  entry->seq = seq;
  entry->queued = g_sequence_insert_sorted (p->order, entry, compare_positions, NULL);
  g_hash_table_insert (p->seen, &entry->key, entry);
  p->counters.map_candidates++;
  p->counters.deciding++;
  g_mutex_unlock (&p->lock);

decide_new:
  /* Sizes first: cheap, and a candidate no GPU can run is not worth a proof. */
  params = prism_param_instantiate (mc->graph, p->target, &popts, &pstats);
  g_mutex_lock (&p->lock);
  prism_param_stats_add (&p->counters.params, &pstats);
  if (params->len == 0)
    {
      set_decided_locked (p, entry, ENTRY_NO_SIZES);
      p->counters.no_sizes++;
      g_cond_broadcast (&p->decided);
      publish_ready_locked (p);
    }
  g_mutex_unlock (&p->lock);
  if (params->len == 0)
    {
      emit_outbox (p);
      return FALSE;
    }

  /* The screen: a run at small shapes refutes most wrong candidates in
   * microseconds, before the e-graph is asked. */
  if (!prism_screen_check (p->screen, mc->graph, &screened, &error) || !screened.ok)
    {
      g_mutex_lock (&p->lock);
      p->counters.screened_out++;
      g_mutex_unlock (&p->lock);
      reject (p, entry, ENTRY_SCREENED, mc->graph, task,
              error ? _("Cannot be run at small shapes") : _("Differs from the program at small shapes"),
              screen_evidence (&screened, error ? error->message : NULL));
      return FALSE;
    }

  kind = verify_why (p, mc->graph, &evidence, &message, &why);
  if (evidence == NULL)
    {
      /* Not json_node_init_object(), which would keep a second reference. */
      evidence = json_node_new (JSON_NODE_OBJECT);
      json_node_take_object (evidence, json_object_new ());
    }
  merge_screen (p, evidence, &screened, kind);
  switch (kind)
    {
    case PRISM_VERDICT_EQUIVALENT:
      accept (p, entry, mc, params, evidence);
      return TRUE;
    case PRISM_VERDICT_NOT_EQUIVALENT:
      g_mutex_lock (&p->lock);
      p->counters.rejected++;
      g_mutex_unlock (&p->lock);
      break;
    case PRISM_VERDICT_VERIFIER_BUG:
      g_mutex_lock (&p->lock);
      p->counters.verifier_bugs++;
      g_mutex_unlock (&p->lock);
      /* Never resolved silently: the proof and the test disagree. */
      g_warning ("verifier bug on candidate %s: %s", mc->key, message ? message : "");
      break;
    case PRISM_VERDICT_UNKNOWN:
    default:
      g_mutex_lock (&p->lock);
      p->counters.unknown++;
      p->counters.unknown_unproved += why == UNKNOWN_UNPROVED;
      p->counters.unknown_untested += why == UNKNOWN_UNTESTED;
      g_mutex_unlock (&p->lock);
      break;
    }
  reject (p, entry, ENTRY_REJECTED, mc->graph, task,
          message ? message : prism_verdict_kind_to_string (kind), evidence);
  return FALSE;
}

/* ------------------------------------------------------------------------ */
/* Search callbacks */

typedef struct
{
  guint choice;
  double us;
} Scored;

static int
compare_scored (gconstpointer a, gconstpointer b)
{
  const Scored *x = a, *y = b;

  if (x->us != y->us)
    return x->us < y->us ? -1 : 1;
  return x->choice < y->choice ? -1 : x->choice > y->choice;
}

typedef struct
{
  double us;
  guint pick[32];
} Combo;

static int
compare_combo (gconstpointer a, gconstpointer b)
{
  const Combo *x = a, *y = b;

  if (x->us != y->us)
    return x->us < y->us ? -1 : 1;
  return memcmp (x->pick, y->pick, sizeof x->pick);
}

/* The kept combinations: every kernel's choices ranked by that kernel's
 * predicted time (kernels have their own variables and their times add up),
 * the best products of the top choices first. */
static GArray *
best_combinations (GArray **scored, guint nk, guint keep, guint64 *total)
{
  GArray *combos = g_array_new (FALSE, TRUE, sizeof (Combo));
  guint limit[32], idx[32] = { 0, };

  *total = 1;
  for (guint k = 0; k < nk; k++)
    {
      *total *= scored[k]->len;
      limit[k] = MIN (scored[k]->len, keep);
    }
  if (*total == 0)
    return combos;
  for (;;)
    {
      Combo c = { 0, };
      guint k;

      for (k = 0; k < nk; k++)
        {
          const Scored *sc = &g_array_index (scored[k], Scored, idx[k]);
          c.us += sc->us;
          c.pick[k] = sc->choice;
        }
      g_array_append_val (combos, c);
      for (k = 0; k < nk; k++)
        {
          if (++idx[k] < limit[k])
            break;
          idx[k] = 0;
        }
      if (k == nk)
        break;
    }
  g_array_sort (combos, compare_combo);
  if (combos->len > keep)
    g_array_set_size (combos, keep);
  return combos;
}

static gboolean
decide_graph (PrismPipeline *p, PrismGraph *g, guint task, guint seq)
{
  PrismMapCandidate mc = { g, prism_graph_canonical_key (g, PRISM_KEY_MAPS | PRISM_KEY_SIZES) };
  gboolean ok = decide (p, &mc, task, seq);

  g_free (mc.key);
  return ok;
}

/* The ranked map choices of one kernel body: the same body (same ops on the
 * same input shapes) recurs in many sGraphs, with the same choices. */
typedef struct
{
  GArray *scored;   /* Scored, sorted */
  guint n_choices;
  guint n_unsized;
  guint n_shape;
} ScoreCache;

#define MAX_SCORE_CACHE 4096

static void
score_cache_free (gpointer data)
{
  ScoreCache *c = data;

  g_array_unref (c->scored);
  g_free (c);
}

static char *
body_signature (const PrismGraph *kg, const PrismOp *kop)
{
  const PrismGraph *b = kop->body;
  GString *s = g_string_new (NULL);

  g_string_append_printf (s, "%u:", b->grid_ndims);
  for (guint i = 0; i < b->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (b, i);

      g_string_append_printf (s, "%d{%d,%u,%u}(", op->kind, op->attrs.dim, op->attrs.norm_dims,
                              op->attrs.input_index);
      for (guint k = 0; k < op->n_inputs; k++)
        g_string_append_printf (s, "%u,", op->inputs[k]);
      for (guint d = 0; d < op->data_ndims; d++)
        g_string_append_printf (s, "%" G_GINT64_FORMAT ",", prism_dim_get_const (op->data_dims[d]));
      g_string_append_c (s, ')');
    }
  return g_string_free (s, FALSE);
}

static void
instantiate_symbolic (PrismPipeline *p, const PrismSGraph *sg, guint task, TaskPos *pos,
                      PrismMapStats *ms)
{
  guint nk = sg->constraints->len;
  g_autofree GArray **choices = g_new0 (GArray *, MAX (nk, 1));
  g_autofree GArray **scored = g_new0 (GArray *, MAX (nk, 1));
  g_autofree guint *kop = g_new0 (guint, MAX (nk, 1));
  g_autofree const PrismKernelChoice **only = g_new0 (const PrismKernelChoice *, MAX (nk, 1));
  PrismParamOptions popts = { p->opts.search.smem_limit, p->opts.search.max_blocks, 1 };
  PrismParamStats ps = { 0, };
  g_autoptr(GArray) combos = NULL;
  guint64 total;
  guint k = 0;

  if (nk == 0 || nk > 32)
    return;
  for (guint i = 0; i < sg->graph->ops->len; i++)
    if (prism_graph_op (sg->graph, i)->kind == PRISM_OP_KERNEL && k < nk)
      kop[k++] = i;

  /* Every valid tiling computes what the sGraph computes untiled (one
   * block, no loop): if that differs from the program, no map choice can
   * help, and none is tried. */
  {
    PrismKernelChoice trivial;
    g_autoptr(PrismGraph) g = NULL;
    g_autoptr(GError) error = NULL;
    PrismScreenResult r;

    memset (&trivial, 0, sizeof trivial);
    for (guint i = 0; i < PRISM_MAX_OP_INPUTS; i++)
      {
        trivial.fmap[i] = PRISM_MAP_REPLICATE;
        for (guint q = 0; q < PRISM_MAX_GRID_DIMS; q++)
          trivial.imap[i][q] = PRISM_MAP_REPLICATE;
      }
    for (guint o = 0; o < PRISM_MAX_OP_OUTPUTS; o++)
      for (guint q = 0; q < PRISM_MAX_GRID_DIMS; q++)
        trivial.omap[o][q] = PRISM_MAP_REPLICATE;
    for (k = 0; k < nk; k++)
      only[k] = &trivial;
    g = prism_map_build (sg, p->program, only, nk, NULL);
    for (k = 0; k < nk; k++)
      only[k] = NULL;
    if (g == NULL || !prism_screen_check (p->screen, g, &r, &error) || !r.ok)
      {
        g_mutex_lock (&p->lock);
        p->counters.sgraphs_rejected++;
        g_mutex_unlock (&p->lock);
        return;
      }
  }

  for (k = 0; k < nk; k++)
    {
      g_autofree char *sig = body_signature (sg->graph, prism_graph_op (sg->graph, kop[k]));
      ScoreCache *cached;
      PrismMapStats cms = { 0, };

      choices[k] = prism_map_enumerate_kernel (g_ptr_array_index (sg->constraints, k),
                                               p->opts.search.max_grid_dims, &cms);
      g_mutex_lock (&p->lock);
      cached = g_hash_table_lookup (p->scores, sig);
      if (cached != NULL && cached->n_choices == choices[k]->len)
        {
          scored[k] = g_array_copy (cached->scored);
          ms->unsized += cached->n_unsized;
          ms->shape += cached->n_shape;
          g_mutex_unlock (&p->lock);
          prism_map_stats_add (ms, &cms);
          continue;
        }
      g_mutex_unlock (&p->lock);
      scored[k] = g_array_new (FALSE, FALSE, sizeof (Scored));
      for (guint c = 0; c < choices[k]->len; c++)
        {
          g_autoptr(PrismGraph) g = NULL;
          g_autoptr(GPtrArray) best = NULL;
          Scored sc;

          only[k] = &g_array_index (choices[k], PrismKernelChoice, c);
          g = prism_map_build (sg, p->program, only, nk, &cms);
          only[k] = NULL;
          if (g == NULL)
            continue;
          best = prism_param_tune_kernel (g, kop[k], p->target, &popts, &ps);
          if (best->len == 0)
            {
              cms.unsized++;
              continue;
            }
          sc.choice = c;
          sc.us = ((PrismParamAssignment *) g_ptr_array_index (best, 0))->predicted_us;
          g_array_append_val (scored[k], sc);
        }
      g_array_sort (scored[k], compare_scored);
      prism_map_stats_add (ms, &cms);

      cached = g_new0 (ScoreCache, 1);
      cached->scored = g_array_copy (scored[k]);
      cached->n_choices = choices[k]->len;
      cached->n_unsized = (guint) cms.unsized;
      cached->n_shape = (guint) cms.shape;
      g_mutex_lock (&p->lock);
      /* Bounded: a run over a huge space starts the cache over. */
      if (g_hash_table_size (p->scores) >= MAX_SCORE_CACHE)
        g_hash_table_remove_all (p->scores);
      g_hash_table_replace (p->scores, g_steal_pointer (&sig), cached);
      g_mutex_unlock (&p->lock);
    }

  /* Down the ranking until max_variants are verified, looking at no more
   * than four times that many: a wrong map choice can rank high. */
  combos = best_combinations (scored, nk, 4 * MAX (p->opts.max_variants, 1), &total);
  {
    guint verified = 0, tried = 0;

    for (guint j = 0; j < combos->len && verified < MAX (p->opts.max_variants, 1); j++)
      {
        const Combo *c = &g_array_index (combos, Combo, j);
        g_autoptr(PrismGraph) g = NULL;

        tried++;
        for (k = 0; k < nk; k++)
          only[k] = &g_array_index (choices[k], PrismKernelChoice, c->pick[k]);
        g = prism_map_build (sg, p->program, only, nk, ms);
        if (g == NULL)
          continue;
        ms->candidates++;
        if (decide_graph (p, g, task, pos->seq++))
          verified++;
      }
    ms->combinations += tried;
    ms->dominated += total - tried;
  }

  g_mutex_lock (&p->lock);
  prism_param_stats_add (&p->counters.params, &ps);
  g_mutex_unlock (&p->lock);
  for (k = 0; k < nk; k++)
    {
      g_array_unref (choices[k]);
      g_array_unref (scored[k]);
    }
}

static void
search_sgraph (PrismSearch *search, const PrismSGraph *sg, guint task, gpointer user_data)
{
  PrismPipeline *p = user_data;
  TaskPos *pos = g_private_get (&task_pos);
  PrismMapStats ms = { 0, };
  PrismEvent *e;

  if (pos == NULL)
    {
      pos = g_new0 (TaskPos, 1);
      pos->task = G_MAXUINT;
      pos->met = g_array_new (FALSE, FALSE, sizeof (Meeting));
      g_private_set (&task_pos, pos);
    }
  if (pos->task != task)
    {
      pos->task = task;
      pos->seq = 0;
      g_array_set_size (pos->met, 0);
    }

  e = prism_event_new (PRISM_EVENT_SGRAPH);
  e->graph = prism_graph_ref (sg->graph);
  e->task = task;
  emit (p, e);

  g_mutex_lock (&p->lock);
  p->counters.instantiating++;
  g_mutex_unlock (&p->lock);

  if (sg->symbolic)
    instantiate_symbolic (p, sg, task, pos, &ms);
  else
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GPtrArray) cands = prism_map_instantiate (sg, p->program, p->opts.search.max_grid_dims,
                                                          p->opts.max_map_combinations, &ms, &error);
      if (cands == NULL)
        g_warning ("map instantiation failed: %s", error->message);
      for (guint i = 0; cands != NULL && i < cands->len; i++)
        decide (p, g_ptr_array_index (cands, i), task, pos->seq++);
    }
  g_mutex_lock (&p->lock);
  prism_map_stats_add (&p->counters.maps, &ms);
  p->counters.instantiating--;
  g_mutex_unlock (&p->lock);
}

/* REPORT: the verified candidates @task met, once every one it met is
 * decided (another thread may still be deciding one it met again). */
static GPtrArray *
task_finds (PrismPipeline *p, guint task)
{
  TaskPos *pos = g_private_get (&task_pos);
  GPtrArray *finds = g_ptr_array_new_with_free_func ((GDestroyNotify) prism_task_find_free);

  if (pos == NULL || pos->task != task)
    return finds;
  g_mutex_lock (&p->lock);
  for (guint i = 0; i < pos->met->len; i++)
    {
      Meeting *m = &g_array_index (pos->met, Meeting, i);

      /* The thread deciding it is at work (it waits for nobody). */
      while (m->entry->state == ENTRY_PENDING)
        g_cond_wait (&p->decided, &p->lock);
      if (m->entry->state == ENTRY_VERIFIED)
        {
          PrismTaskFind *f = g_new0 (PrismTaskFind, 1);

          f->candidate = prism_candidate_ref (m->entry->candidate);
          f->seq = m->seq;
          g_ptr_array_add (finds, f);
        }
    }
  g_mutex_unlock (&p->lock);
  g_array_set_size (pos->met, 0);
  pos->task = G_MAXUINT;
  return finds;
}

static void
search_task_done (PrismSearch *search, guint task, gboolean completed, gpointer user_data)
{
  PrismPipeline *p = user_data;

  if (completed)
    {
      g_mutex_lock (&p->lock);
      p->own_tasks++;
      g_mutex_unlock (&p->lock);
    }
  if (p->role == PRISM_PIPELINE_REPORT)
    {
      g_autoptr(GPtrArray) finds = task_finds (p, task);

      p->opts.peers->task_finished (p, task, completed, finds, p->opts.peers->user_data);
      return;
    }
  if (!completed)
    return;
  g_mutex_lock (&p->lock);
  mark_done_locked (p, task);
  p->dirty = TRUE;
  publish_ready_locked (p);
  g_mutex_unlock (&p->lock);
  emit_outbox (p);
}

/* Whether this process runs @task, on the split phase's thread.  The
 * process holds at most one task handed out and not reached yet: the
 * tasks before it belong to others. */
static gboolean
search_claim_task (PrismSearch *search, guint task, gpointer user_data)
{
  PrismPipeline *p = user_data;

  if (p->has_grant && task < p->grant)
    return FALSE;
  if (p->has_grant && task == p->grant)
    {
      p->has_grant = FALSE;
      return TRUE;
    }
  p->grant = p->opts.peers->claim_task != NULL
             ? p->opts.peers->claim_task (p, task, p->opts.peers->user_data)
             : prism_pipeline_claim (p, 0, task);
  if (p->grant == task)
    return TRUE;
  /* G_MAXUINT: nothing more for this process (stopped). */
  p->has_grant = TRUE;
  return FALSE;
}

/* From the worker thread that pruned the step, like SGRAPH events. */
static void
search_pruned_sample (PrismSearch *search, PrismPruneSample *sample, gpointer user_data)
{
  PrismPipeline *p = user_data;
  PrismEvent *e = prism_event_new (PRISM_EVENT_PRUNED_SAMPLE);

  e->sample = sample;
  e->task = sample->task;
  emit (p, e);
}

static void
search_tick (PrismSearch *search, gpointer user_data)
{
  PrismPipeline *p = user_data;
  PrismEvent *e = prism_event_new (PRISM_EVENT_PROGRESS);

  g_mutex_lock (&p->lock);
  snapshot_locked (p, &e->stats);
  if (p->dirty && g_get_monotonic_time () - p->last_save_us > SAVE_INTERVAL_US)
    save_locked (p);
  g_mutex_unlock (&p->lock);
  emit (p, e);
  if (p->on_tick != NULL)
    p->on_tick (p->user_data);
}

/* ------------------------------------------------------------------------ */
/* Setup */

static JsonNode *
options_to_json (const PrismPipelineOptions *o)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  const PrismSearchOptions *s = &o->search;

#define INT_MEMBER(name, value) \
  G_STMT_START { json_builder_set_member_name (b, name); \
                 json_builder_add_int_value (b, (gint64) (value)); } G_STMT_END
  json_builder_begin_object (b);
  INT_MEMBER ("threads", s->n_threads);
  json_builder_set_member_name (b, "time_limit_s");
  json_builder_add_double_value (b, s->time_limit_s);
  INT_MEMBER ("seed", o->seed);
  INT_MEMBER ("random_seeds", o->random_seeds);
  INT_MEMBER ("max_kernel_ops", s->max_kernel_ops);
  INT_MEMBER ("max_kernels", s->max_kernels);
  INT_MEMBER ("max_kernel_inputs", s->max_kernel_inputs);
  INT_MEMBER ("max_block_ops", s->max_block_ops);
  INT_MEMBER ("max_total_ops", s->max_total_ops);
  INT_MEMBER ("max_block_outputs", s->max_block_outputs);
  INT_MEMBER ("max_accums", s->max_accums);
  INT_MEMBER ("max_grid_dims", s->max_grid_dims);
  INT_MEMBER ("block_threads", s->block_threads);
  INT_MEMBER ("smem_limit", s->smem_limit);
  INT_MEMBER ("max_blocks", s->max_blocks);
  INT_MEMBER ("max_map_combinations", o->max_map_combinations);
  INT_MEMBER ("max_variants", o->max_variants);
  json_builder_set_member_name (b, "formal");
  json_builder_add_boolean_value (b, o->verify_func == NULL);
  json_builder_set_member_name (b, "full_random");
  json_builder_add_boolean_value (b, o->full_random);
  json_builder_set_member_name (b, "baseline");
  json_builder_add_string_value (b, prism_baseline_kind_to_string (o->baseline));
  json_builder_end_object (b);
#undef INT_MEMBER
  return json_builder_get_root (b);
}

/* Everything that decides which tasks exist and what a candidate is. */
static char *
make_fingerprint (PrismPipeline *p)
{
  const PrismSearchOptions *s = &p->opts.search;
  g_autofree char *program = prism_graph_to_data (p->program, NULL);
  GString *text = g_string_new (program);

  g_string_append_printf (text, "|%s|%s|%u,%u,%u,%u,%u,%u,%u,%u,%" G_GUINT64_FORMAT ",%u,%u,%"
                          G_GUINT64_FORMAT "|",
                          prism_search_mode_to_string (s->mode), p->target->name,
                          s->max_kernel_ops, s->max_kernels, s->max_kernel_inputs, s->max_block_ops,
                          s->max_block_outputs, s->max_accums, s->max_grid_dims, s->block_threads,
                          s->smem_limit, s->max_blocks, s->split_depth, p->opts.max_map_combinations);
  g_string_append_printf (text, "v%u,t%u|", p->opts.max_variants, s->max_total_ops);
  /* The split the tasks come from (not written when unset: the
   * fingerprints of earlier results stay valid). */
  if (s->min_tasks > 0)
    g_string_append_printf (text, "m%u|", s->min_tasks);
  for (guint i = 0; s->kernel_ops && i < s->n_kernel_ops; i++)
    g_string_append_printf (text, "k%s,", prism_op_kind_to_string (s->kernel_ops[i]));
  for (guint i = 0; s->block_ops && i < s->n_block_ops; i++)
    g_string_append_printf (text, "b%s,", prism_op_kind_to_string (s->block_ops[i]));
  {
    Key128 k = key_of (text->str);
    g_string_free (text, TRUE);
    return key_digest (k);
  }
}

/* The fingerprint and what else decides the verdicts and the timings (a
 * resumed run may change these; processes sharing one run may not). */
static char *
make_peer_fingerprint (PrismPipeline *p)
{
  const PrismPipelineOptions *o = &p->opts;

  return g_strdup_printf ("%s|seed %" G_GUINT64_FORMAT ",seeds %u,full %d,verifier %.17g,baseline %s,"
                          "tune %u,%u,%.17g", p->fingerprint, o->seed, o->random_seeds, !!o->full_random,
                          o->verifier_time_limit_s, prism_baseline_kind_to_string (o->baseline),
                          o->tune_top, o->tune_timeout_s, o->tune_min_time_ms);
}

/* A resumed candidate's canonical form, and the forms recorded as its
 * equivalents, are decided: met again, they are not proved again. */
static gboolean
register_previous_forms (PrismPipeline *p, PrismCandidate *c, GError **error)
{
  const char *form = prism_candidate_get_executed_digest (c);

  if (!g_hash_table_contains (p->forms, form))
    g_hash_table_insert (p->forms, g_strdup (form), prism_candidate_ref (c));
  for (guint j = 0; j < c->equivalents->len; j++)
    {
      const PrismEquivalentForm *form_j = g_ptr_array_index (c->equivalents, j);
      Entry *e = g_new0 (Entry, 1);

      if (!key_from_digest (form_j->digest, &e->key))
        {
          g_free (e);
          g_set_error (error, PRISM_ERROR, PRISM_ERROR_PARSE,
                       _("cannot resume from %s: candidate %u has a malformed equivalent digest"),
                       p->results_path, c->id);
          return FALSE;
        }
      e->state = ENTRY_VERIFIED;
      e->task = form_j->task;
      e->seq = form_j->seq;
      if (!g_hash_table_contains (p->seen, &e->key))
        g_hash_table_insert (p->seen, &e->key, e);
      else
        g_free (e);
    }
  return TRUE;
}

static gboolean
load_previous (PrismPipeline *p, GError **error)
{
  g_autoptr(GError) local = NULL;
  g_autoptr(PrismResults) r = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *found = NULL;
  GPtrArray *cands;
  GStatBuf st;

  if (g_lstat (p->results_path, &st) != 0 && errno == ENOENT)
    return TRUE;   /* nothing to resume: a fresh start */
  /* Bounded and strict: a FIFO, a device or a huge file fails at once. */
  r = prism_results_load (p->results_path, &local);
  if (r == NULL)
    {
      /* The message starts with the file's name. */
      g_set_error (error, PRISM_ERROR, local->code == PRISM_ERROR_VERSION ? PRISM_ERROR_VERSION : PRISM_ERROR_PARSE,
                   _("cannot resume: %s"), local->message);
      return FALSE;
    }
  if (g_strcmp0 (prism_results_get_fingerprint (r), p->fingerprint) != 0)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_PARSE,
                   _("cannot resume from %s: it comes from a different program, mode, target or "
                     "search limits"), p->results_path);
      return FALSE;
    }
  /* The fingerprint names the program, but the file's "program" is what its
   * candidates were proved against and what it will keep saying: it must be
   * this run's program itself. */
  expected = prism_graph_to_data (p->program, NULL);
  found = prism_graph_to_data (prism_results_get_program (r), NULL);
  if (!g_str_equal (expected, found))
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_PARSE,
                   _("cannot resume from %s: its “program” is not the program its fingerprint names "
                     "(the file was edited)"), p->results_path);
      return FALSE;
    }
  p->previous = *prism_results_get_stats (r);
  for (guint i = 0; i < prism_results_get_done_tasks (r)->len; i++)
    mark_done_locked (p, g_array_index (prism_results_get_done_tasks (r), guint, i));
  cands = prism_results_get_candidates (r);
  for (guint i = 0; i < cands->len; i++)
    {
      PrismCandidate *c = g_ptr_array_index (cands, i);
      Entry *e = g_new0 (Entry, 1);

      if (!key_from_digest (c->digest, &e->key))
        {
          g_free (e);
          g_set_error (error, PRISM_ERROR, PRISM_ERROR_PARSE,
                       _("cannot resume from %s: candidate %u has a malformed digest"),
                       p->results_path, c->id);
          return FALSE;
        }
      e->state = ENTRY_VERIFIED;
      e->task = c->task;
      e->seq = c->seq;
      e->candidate = prism_candidate_ref (c);
      g_hash_table_replace (p->seen, &e->key, e);
      p->next_id = MAX (p->next_id, c->id);
      if (!register_previous_forms (p, c, error))
        return FALSE;
      if (prism_candidate_is_faster (c) && (p->best == NULL || c->speedup > p->best->speedup))
        p->best = c;
    }
  /* Counters of decided candidates start from the earlier run's. */
  p->results = g_steal_pointer (&r);
  p->resumed = TRUE;
  return TRUE;
}

static void
error_free0 (gpointer error)
{
  if (error != NULL)
    g_error_free (error);
}

/* A candidate of the resumed file that is not proved again is dropped: it
 * is not kept as verified, and the task that found it is searched again (so
 * that the real candidate of that place, if any, is found). */
static void
drop_previous (PrismPipeline *p, PrismCandidate *c, const char *why)
{
  Key128 k;

  g_warning ("candidate %u of %s is not equivalent to its program: %s; it is dropped and its task "
             "searched again", c->id, p->results_path, why);
  if (key_from_digest (c->digest, &k))
    g_hash_table_remove (p->seen, &k);
  /* Its equivalents stood on its proof: decided again when met again. */
  for (guint j = 0; j < c->equivalents->len; j++)
    if (key_from_digest (((PrismEquivalentForm *) g_ptr_array_index (c->equivalents, j))->digest, &k))
      g_hash_table_remove (p->seen, &k);
  if (g_hash_table_lookup (p->forms, prism_candidate_get_executed_digest (c)) == c)
    g_hash_table_remove (p->forms, prism_candidate_get_executed_digest (c));
  for (guint i = 0; i < p->done->len; i++)
    if (g_array_index (p->done, guint, i) == c->task)
      {
        g_array_remove_index (p->done, i);
        break;
      }
  g_hash_table_remove (p->done_set, GUINT_TO_POINTER (c->task));
  p->head = MIN (p->head, c->task);
  /* Found again (its task is searched again), it keeps its number. */
  g_hash_table_insert (p->dropped_ids, g_strdup (c->digest), GUINT_TO_POINTER (c->id));
  if (p->previous.verified > 0)
    p->previous.verified--;
  prism_results_remove_candidate (p->results, c);
}

/* Every candidate of a resumed file is proved again before it counts: the
 * file is input like any other.  Formally only, on the search's threads
 * (milliseconds each; docs/format.md says how long a big file takes). */
static gboolean
recheck_previous (PrismPipeline *p, GError **error)
{
  g_autoptr(GPtrArray) cands = NULL;
  g_autoptr(GPtrArray) errors = NULL;
  GPtrArray *kept;

  kept = prism_results_get_candidates (p->results);
  if (!p->resumed || kept->len == 0)
    return TRUE;
  cands = g_ptr_array_new_with_free_func ((GDestroyNotify) prism_candidate_unref);
  for (guint i = 0; i < kept->len; i++)
    g_ptr_array_add (cands, prism_candidate_ref (g_ptr_array_index (kept, i)));
  if (p->opts.verify_func != NULL)
    {
      /* Tests replace the verifier: the same one decides here. */
      errors = g_ptr_array_new_full (cands->len, error_free0);
      for (guint i = 0; i < cands->len; i++)
        {
          PrismCandidate *c = g_ptr_array_index (cands, i);
          g_autoptr(JsonNode) evidence = NULL;
          g_autofree char *message = NULL;

          if (g_atomic_int_get (&p->stop_requested) || prism_cancelled ())
            g_ptr_array_add (errors, g_error_new_literal (PRISM_ERROR, PRISM_ERROR_CANCELLED, "stopped"));
          else if (verify (p, c->graph, &evidence, &message) == PRISM_VERDICT_EQUIVALENT)
            g_ptr_array_add (errors, NULL);
          else
            g_ptr_array_add (errors, g_error_new_literal (PRISM_ERROR, PRISM_ERROR_INVALID_GRAPH,
                                                          message ? message : "not proved"));
        }
    }
  else
    {
      g_autoptr(PrismRecheck) recheck = prism_recheck_new (p->program, error);

      if (recheck == NULL)
        return FALSE;
      errors = prism_recheck_all (recheck, cands, p->opts.search.n_threads);
    }
  g_mutex_lock (&p->lock);
  /* A candidate the stop left unchecked stays as it was, with its id: the
   * next --resume checks it (dropping it would delete it from the file, and
   * finding it again would number it anew). */
  for (guint i = 0; i < cands->len; i++)
    {
      const GError *why = g_ptr_array_index (errors, i);

      if (why != NULL && !g_error_matches (why, PRISM_ERROR, PRISM_ERROR_CANCELLED))
        drop_previous (p, g_ptr_array_index (cands, i), why->message);
    }
  p->best = NULL;
  for (guint i = 0; i < kept->len; i++)
    {
      PrismCandidate *c = g_ptr_array_index (kept, i);
      if (prism_candidate_is_faster (c) && (p->best == NULL || c->speedup > p->best->speedup))
        p->best = c;
    }
  g_mutex_unlock (&p->lock);
  return TRUE;
}

PrismPipeline *
prism_pipeline_new (PrismGraph *program, const PrismPipelineOptions *options, GError **error)
{
  g_autoptr(PrismPipeline) p = g_new0 (PrismPipeline, 1);
  g_autoptr(PrismSearch) probe = NULL;

  g_return_val_if_fail (program != NULL && options != NULL, NULL);
  p->program = prism_graph_ref (program);
  p->opts = *options;
  p->target_name = g_strdup (options->target ? options->target : prism_gpu_target_default ()->name);
  p->out_dir = g_strdup (options->out_dir);
  p->source = g_strdup (options->source ? options->source : program->name);
  p->opts.target = p->target_name;
  p->opts.out_dir = p->out_dir;
  p->opts.source = p->source;
  p->gpu_worker = g_strdup (options->gpu_worker);
  p->opts.gpu_worker = p->gpu_worker;
  g_mutex_init (&p->lock);
  p->seen = g_hash_table_new_full (key_hash, key_equal, NULL, entry_free);
  p->scores = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, score_cache_free);
  p->done = g_array_new (FALSE, FALSE, sizeof (guint));
  p->done_set = g_hash_table_new (NULL, NULL);
  p->order = g_sequence_new (NULL);
  p->dropped_ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  p->forms = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                    (GDestroyNotify) prism_candidate_unref);
  g_queue_init (&p->outbox);
  g_mutex_init (&p->emit_lock);
  g_cond_init (&p->decided);
  g_cond_init (&p->tune_cond);
  p->role = options->peers != NULL ? options->peers->role : PRISM_PIPELINE_ALONE;
  if (p->role == PRISM_PIPELINE_GATHER)
    p->peer_stats = g_array_new (FALSE, TRUE, sizeof (PrismRunStats));
  p->previous.time_to_best_s = -1;
  p->counters.time_to_best_s = -1;

  p->target = prism_gpu_target_lookup (p->target_name);
  if (p->target == NULL)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED, _("unknown GPU target “%s”"),
                   p->target_name);
      return NULL;
    }
  if (p->opts.random_seeds == 0)
    p->opts.random_seeds = 1;
  /* Let the search check the rest of the options (and the program) now. */
  probe = prism_search_new (program, &p->opts.search, error);
  if (probe == NULL)
    return NULL;
  p->opts.search = *prism_search_get_options (probe);
  /* The search's copy holds the op lists; keep ours pointing at stable data. */
  p->opts.search.kernel_ops = g_memdup2 (p->opts.search.kernel_ops,
                                         p->opts.search.n_kernel_ops * sizeof (PrismOpKind));
  p->opts.search.block_ops = g_memdup2 (p->opts.search.block_ops,
                                        p->opts.search.n_block_ops * sizeof (PrismOpKind));
  p->fingerprint = make_fingerprint (p);
  p->peer_fingerprint = make_peer_fingerprint (p);
  p->options_json = options_to_json (&p->opts);

  /* Only the gathering process writes the results. */
  if (p->out_dir != NULL && p->role != PRISM_PIPELINE_REPORT)
    {
      p->out = prism_out_dir_open (p->out_dir, program, options->resume, options->overwrite, error);
      if (p->out == NULL)
        return NULL;
      p->results_path = g_strdup (prism_out_dir_get_results_path (p->out));
      /* Temporary files of writers killed with SIGKILL. */
      prism_atomic_file_remove_stale (p->results_path);
      if (options->resume && !load_previous (p, error))
        return NULL;
    }
  if (p->results == NULL)
    p->results = prism_results_new (program, p->source,
                                    prism_search_mode_to_string (p->opts.search.mode),
                                    p->target->name, p->fingerprint);
  prism_results_set_options (p->results, p->options_json);
  return g_steal_pointer (&p);
}

void
prism_pipeline_free (PrismPipeline *p)
{
  if (p == NULL)
    return;
  g_clear_pointer (&p->search, prism_search_free);
  g_clear_pointer (&p->oracle, prism_oracle_free);
  g_clear_pointer (&p->verifier, prism_verifier_free);
  g_clear_pointer (&p->screen, prism_screen_free);
  g_clear_pointer (&p->results, prism_results_free);
  /* Entries are owned by @seen; the order only points at them. */
  g_clear_pointer (&p->order, g_sequence_free);
  g_queue_clear_full (&p->outbox, (GDestroyNotify) prism_event_unref);
  g_clear_pointer (&p->seen, g_hash_table_unref);
  g_clear_pointer (&p->done_set, g_hash_table_unref);
  g_clear_pointer (&p->dropped_ids, g_hash_table_unref);
  g_clear_pointer (&p->forms, g_hash_table_unref);
  g_clear_pointer (&p->scores, g_hash_table_unref);
  g_clear_pointer (&p->done, g_array_unref);
  g_clear_pointer (&p->options_json, json_node_unref);
  g_clear_pointer (&p->program, prism_graph_unref);
  g_free ((gpointer) p->opts.search.kernel_ops);
  g_free ((gpointer) p->opts.search.block_ops);
  g_free (p->target_name);
  g_free (p->out_dir);
  g_free (p->source);
  g_free (p->results_path);
  g_clear_pointer (&p->out, prism_out_dir_close);
  g_clear_error (&p->save_error);
  g_free (p->gpu_worker);
  g_free (p->fingerprint);
  g_free (p->peer_fingerprint);
  g_free (p->stop_reason);
  g_clear_pointer (&p->peer_stats, g_array_unref);
  g_clear_pointer (&p->ranks, json_node_unref);
  g_free (p->peer_stop_reason);
  g_cond_clear (&p->decided);
  g_cond_clear (&p->tune_cond);
  g_queue_clear_full (&p->tune_inbox, (GDestroyNotify) tune_result_free);
  g_mutex_clear (&p->lock);
  g_mutex_clear (&p->emit_lock);
  g_free (p);
}

void
prism_pipeline_set_handlers (PrismPipeline *p, PrismEventFunc on_event, PrismTickFunc on_tick,
                             gpointer user_data)
{
  p->on_event = on_event;
  p->on_tick = on_tick;
  p->user_data = user_data;
}

/* ------------------------------------------------------------------------ */
/* Tuning on the GPU, after the search */

static int
compare_predicted (gconstpointer a, gconstpointer b)
{
  const PrismCandidate *x = *(PrismCandidate * const *) a;
  const PrismCandidate *y = *(PrismCandidate * const *) b;

  if (x->speedup != y->speedup)
    return x->speedup > y->speedup ? -1 : 1;
  /* Ties in the search's order (what the ids follow), so that any
   * number of threads times the same candidates. */
  if (x->task != y->task)
    return x->task < y->task ? -1 : 1;
  if (x->seq != y->seq)
    return x->seq < y->seq ? -1 : 1;
  return g_strcmp0 (x->digest, y->digest);
}

/* Pause holds the GPU timings between programs, as it holds the search;
 * a stop ends the wait. */
static void
wait_while_paused (PrismPipeline *p)
{
  while (g_atomic_int_get (&p->paused) && !g_atomic_int_get (&p->stop_requested))
    g_usleep (20 * 1000);
}

/* Events reach the front-ends on ticks; a measurement takes seconds. */
static void
tick (PrismPipeline *p)
{
  if (p->on_tick != NULL)
    p->on_tick (p->user_data);
}

static void
tuning_event (PrismPipeline *p, PrismTuneStatus status, const char *message, guint index,
              guint count)
{
  PrismEvent *e = prism_event_new (PRISM_EVENT_TUNING);

  e->tune_status = status;
  e->message = g_strdup (message);
  e->tune_index = index;
  e->tune_count = count;
  emit (p, e);
  tick (p);
}

static void
measured_event (PrismPipeline *p, PrismCandidate *c, const PrismMeasurement *m, guint index,
                guint count)
{
  PrismEvent *e = prism_event_new (PRISM_EVENT_MEASURED);

  /* The baseline's: how it ran (the vendor baseline falls back to
   * prism-lowered without cuBLASLt). */
  if (c == NULL)
    {
      g_mutex_lock (&p->lock);
      e->message = g_strdup (prism_results_get_baseline_measured_kind (p->results));
      g_mutex_unlock (&p->lock);
    }
  e->candidate = c ? prism_candidate_ref (c) : NULL;
  /* The id it was published with (ids never change). */
  e->id = c ? c->id : 0;
  e->measurement = prism_measurement_copy (m);
  e->tune_index = index;
  e->tune_count = count;
  emit (p, e);
  tick (p);
}

/* Times @graph; a failure (wrong output, timeout, no worker) is a
 * measurement with an error, never the end of the run. */
static guint
own_rank (PrismPipeline *p)
{
  return p->opts.peers != NULL ? p->opts.peers->rank : 0;
}

/* A timing that could not be made, said where. */
static PrismMeasurement *
measurement_failed (PrismPipeline *p, const PrismGpuBenchOptions *options, const char *device,
                    const char *why)
{
  PrismMeasurement *m = prism_measurement_new (device, why);

  m->rank = (int) own_rank (p);
  m->device = options->device;
  return m;
}

static PrismMeasurement *
measure (PrismPipeline *p, const PrismGraph *graph, const PrismGpuBenchOptions *options,
         const char *device, double base_us)
{
  g_autoptr(GError) error = NULL;
  PrismGpuBenchResult r;
  PrismMeasurement *m;

  if (!prism_gpu_bench_run (graph, options, &r, &error))
    {
      m = measurement_failed (p, options, r.device_name && *r.device_name ? r.device_name : device,
                              error->message);
      prism_gpu_bench_result_clear (&r);
      return m;
    }
  m = prism_measurement_new (r.device_name, NULL);
  m->rank = (int) own_rank (p);
  m->device = options->device;
  m->median_us = r.median_us;
  m->p20_us = r.p20_us;
  m->p80_us = r.p80_us;
  m->max_rel_error = r.max_rel_error;
  m->speedup = base_us > 0 && r.median_us > 0 ? base_us / r.median_us : 0;
  prism_gpu_bench_result_clear (&r);
  return m;
}

static void
set_tuning (PrismPipeline *p, const char *gpu, const char *message)
{
  g_mutex_lock (&p->lock);
  prism_results_set_tuning (p->results, gpu, message, p->opts.tune_top);
  save_locked (p);
  g_mutex_unlock (&p->lock);
}

static void
bench_options (PrismPipeline *p, PrismGpuBenchOptions *o)
{
  prism_gpu_bench_options_init (o);
  o->timeout_s = MAX (p->opts.tune_timeout_s, 1);
  if (p->opts.tune_min_time_ms > 0)
    o->min_time_ms = p->opts.tune_min_time_ms;
  o->worker = p->opts.gpu_worker;
  o->seed = p->opts.seed;
  o->work_graph = p->program;
  o->device = p->opts.tune_device;
}

/* The unfused program as @against says; @kind and @note (transfer full)
 * say how it ran.  The vendor baseline runs the matmuls through cuBLASLt;
 * without it (or when it fails) the program is timed as we lower it, and
 * the results say so. */
static PrismMeasurement *
measure_baseline (PrismPipeline *p, PrismGpuBenchOptions *o, const char *device,
                  PrismBaselineKind against, char **kind, char **note)
{
  PrismMeasurement *base;

  *kind = g_strdup (prism_baseline_kind_to_string (against));
  *note = NULL;
  o->vendor_matmul = against == PRISM_BASELINE_VENDOR;
  base = measure (p, p->program, o, device, 0);
  if (o->vendor_matmul && base->error != NULL)
    {
      *note = g_strdup_printf (_("The vendor baseline could not be timed (%s); it was timed as "
                                 "prism-lowered"), base->error);
      g_free (*kind);
      *kind = g_strdup (prism_baseline_kind_to_string (PRISM_BASELINE_LOWERED));
      o->vendor_matmul = FALSE;
      prism_measurement_free (base);
      base = measure (p, p->program, o, device, 0);
    }
  o->vendor_matmul = FALSE;
  if (base->error == NULL)
    base->speedup = 1;
  return base;
}

/* ------------------------------------------------------------------------ */
/* Timing across processes: the gathering process hands out jobs (JSON,
 * docs/architecture.md "MPI"), each process times them on its GPU. */

/* Item @item as a job.  Call with the lock held: item 0 (the unfused
 * program) is done before any candidate is handed out, and its time is
 * what the candidates' speedups are against. */
static JsonNode *
tune_job_locked (PrismPipeline *p, guint item)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "item");
  json_builder_add_int_value (b, item);
  json_builder_set_member_name (b, "timeout_s");
  json_builder_add_int_value (b, MAX (p->opts.tune_timeout_s, 1));
  json_builder_set_member_name (b, "min_time_ms");
  json_builder_add_double_value (b, p->opts.tune_min_time_ms);
  json_builder_set_member_name (b, "seed");
  json_builder_add_int_value (b, (gint64) p->opts.seed);
  if (item == 0)
    {
      json_builder_set_member_name (b, "baseline");
      json_builder_add_string_value (b, prism_baseline_kind_to_string (p->opts.baseline));
    }
  else
    {
      PrismCandidate *c = g_ptr_array_index (p->tune_order, item - 1);

      json_builder_set_member_name (b, "candidate");
      json_builder_add_value (b, prism_candidate_to_json (c));
      json_builder_set_member_name (b, "base_us");
      json_builder_add_double_value (b, p->tune_base != NULL && p->tune_base->error == NULL
                                        ? p->tune_base->median_us : 0);
    }
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

/* Times one job here; the result names the item (transfer full). */
static JsonNode *
run_tune_job (PrismPipeline *p, JsonNode *job, const char *device)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *kind = NULL, *note = NULL;
  JsonObject *obj = json_node_get_object (job);
  gint64 item = json_object_get_int_member_with_default (obj, "item", -1);
  PrismGpuBenchOptions o;
  PrismMeasurement *m;

  bench_options (p, &o);
  o.timeout_s = (guint) CLAMP (json_object_get_int_member_with_default (obj, "timeout_s", o.timeout_s),
                               1, G_MAXINT32);
  if (json_object_get_double_member_with_default (obj, "min_time_ms", 0) > 0)
    o.min_time_ms = json_object_get_double_member (obj, "min_time_ms");
  o.seed = (guint64) json_object_get_int_member_with_default (obj, "seed", (gint64) o.seed);
  if (item == 0)
    {
      PrismBaselineKind against = p->opts.baseline;

      prism_baseline_kind_from_string (json_object_get_string_member_with_default (obj, "baseline", ""),
                                       &against);
      m = measure_baseline (p, &o, device, against, &kind, &note);
    }
  else
    {
      JsonNode *cn = json_object_get_member (obj, "candidate");
      g_autoptr(PrismCandidate) c = cn != NULL ? prism_candidate_from_json (cn, &error) : NULL;
      g_autoptr(PrismGraph) graph = c != NULL ? prism_candidate_instantiate (c, &error) : NULL;

      if (graph != NULL)
        m = measure (p, graph, &o, device,
                     json_object_get_double_member_with_default (obj, "base_us", 0));
      else
        m = measurement_failed (p, &o, device, error != NULL ? error->message : _("no candidate in the job"));
    }
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "item");
  json_builder_add_int_value (b, item);
  json_builder_set_member_name (b, "measured");
  json_builder_add_value (b, prism_measurement_to_json (m));
  if (kind != NULL)
    {
      json_builder_set_member_name (b, "kind");
      json_builder_add_string_value (b, kind);
    }
  if (note != NULL)
    {
      json_builder_set_member_name (b, "note");
      json_builder_add_string_value (b, note);
    }
  json_builder_end_object (b);
  prism_measurement_free (m);
  return json_builder_get_root (b);
}

/* A timing from @peer (here: 0) goes into the results as if timed here. */
static void
record_tune_result (PrismPipeline *p, guint peer, JsonNode *result, guint *timed, guint count)
{
  JsonObject *obj = JSON_NODE_HOLDS_OBJECT (result) ? json_node_get_object (result) : NULL;
  gint64 item = obj ? json_object_get_int_member_with_default (obj, "item", -1) : -1;
  g_autoptr(PrismMeasurement) m = obj ? prism_measurement_from_json (json_object_get_member (obj, "measured"))
                                      : NULL;
  PrismCandidate *c = NULL;

  g_mutex_lock (&p->lock);
  if (item < 0 || item >= count || p->tune_queue == NULL ||
      !prism_tune_queue_finish (p->tune_queue, peer, (guint) item))
    {
      /* A late timing of a job given back, or nonsense: not ours. */
      g_mutex_unlock (&p->lock);
      return;
    }
  if (m == NULL)
    {
      /* TRANSLATORS: a process of an MPI run (a rank) sent a timing that cannot be read */
      g_autofree char *why = g_strdup_printf (_("rank %u sent a timing that cannot be read"), peer);
      m = prism_measurement_new (p->tune_devices[peer], why);
      m->rank = (int) peer;
    }
  if (item == 0)
    {
      prism_results_set_baseline_measurement (p->results, m,
                                              json_object_get_string_member_with_default (obj, "kind", NULL),
                                              json_object_get_string_member_with_default (obj, "note", NULL));
      g_clear_pointer (&p->tune_base, prism_measurement_free);
      p->tune_base = prism_measurement_copy (m);
    }
  else
    {
      c = g_ptr_array_index (p->tune_order, item - 1);
      if (prism_candidate_get_measurement (c) == NULL)
        prism_candidate_set_measurement (c, prism_measurement_copy (m));
    }
  save_locked (p);
  g_cond_broadcast (&p->tune_cond);
  g_mutex_unlock (&p->lock);
  measured_event (p, c, c ? prism_candidate_get_measurement (c) : m, ++*timed, count);
}

/* The device the results name: this process's, else the first other's. */
static char *
shown_device_locked (PrismPipeline *p)
{
  for (guint r = 0; r < p->opts.peers->size; r++)
    if (p->tune_devices[r] != NULL)
      return g_strdup (p->tune_devices[r]);
  return NULL;
}

/* The timings already there (a resumed run) count as done. */
static void
tune_announce (PrismPipeline *p, const char *shown, guint *timed, guint count)
{
  const PrismMeasurement *base;

  tuning_event (p, PRISM_TUNE_MEASURING, shown, 0, count);
  g_mutex_lock (&p->lock);
  base = p->tune_base;
  g_mutex_unlock (&p->lock);
  if (base != NULL && base->error == NULL)
    measured_event (p, NULL, base, ++*timed, count);
  for (guint i = 0; i + 1 < count; i++)
    {
      PrismCandidate *c = g_ptr_array_index (p->tune_order, i);

      if (prism_candidate_get_measurement (c) != NULL && p->tune_queue != NULL)
        measured_event (p, c, prism_candidate_get_measurement (c), ++*timed, count);
    }
}

static void
tune_shared_setup (PrismPipeline *p, GPtrArray *order, guint count, const PrismMeasurement *base,
                   const char *device)
{
  g_mutex_lock (&p->lock);
  p->tune_queue = prism_tune_queue_new (count, p->opts.peers->size);
  p->tune_order = g_ptr_array_ref (order);
  p->tune_devices = g_new0 (char *, p->opts.peers->size + 1);
  if (base != NULL && base->error == NULL)
    {
      prism_tune_queue_mark_done (p->tune_queue, 0);
      p->tune_base = prism_measurement_copy (base);
    }
  for (guint i = 0; i + 1 < count; i++)
    if (prism_candidate_get_measurement (g_ptr_array_index (order, i)) != NULL)
      prism_tune_queue_mark_done (p->tune_queue, i + 1);
  p->tune_devices[0] = g_strdup (device);
  prism_tune_queue_set_peer (p->tune_queue, 0, device != NULL ? PRISM_TUNE_PEER_READY : PRISM_TUNE_PEER_NO_GPU);
  g_mutex_unlock (&p->lock);
}

static void
tune_shared_teardown (PrismPipeline *p)
{
  g_mutex_lock (&p->lock);
  g_clear_pointer (&p->tune_queue, prism_tune_queue_free);
  g_clear_pointer (&p->tune_order, g_ptr_array_unref);
  g_clear_pointer (&p->tune_base, prism_measurement_free);
  /* Not a NULL-terminated list: a process without a GPU has a hole. */
  for (guint r = 0; p->tune_devices != NULL && r < p->opts.peers->size; r++)
    g_free (p->tune_devices[r]);
  g_clear_pointer (&p->tune_devices, g_free);
  g_queue_clear_full (&p->tune_inbox, (GDestroyNotify) tune_result_free);
  g_queue_init (&p->tune_inbox);
  g_mutex_unlock (&p->lock);
}

/* GATHER: the programs of @order timed across the processes, this one
 * included when it has a GPU (@device; else @why says why not). */
static void
tune_shared (PrismPipeline *p, GPtrArray *order, guint count, const PrismMeasurement *base,
             const char *device, const char *why)
{
  g_autofree char *shown = NULL;
  gboolean announced = FALSE, no_gpu = FALSE;
  guint timed = 0;

  tune_shared_setup (p, order, count, base, device);
  p->opts.peers->tune_begin (p, p->opts.peers->user_data);
  for (;;)
    {
      TuneResult *r;
      gboolean answered, over;
      int item = PRISM_TUNE_QUEUE_NONE;
      JsonNode *job = NULL;

      g_mutex_lock (&p->lock);
      while ((r = g_queue_pop_head (&p->tune_inbox)) != NULL)
        {
          g_mutex_unlock (&p->lock);
          record_tune_result (p, r->peer, r->result, &timed, count);
          tune_result_free (r);
          g_mutex_lock (&p->lock);
        }
      answered = prism_tune_queue_all_answered (p->tune_queue);
      no_gpu = answered && prism_tune_queue_n_ready (p->tune_queue) == 0;
      over = prism_tune_queue_is_over (p->tune_queue);
      if (answered && shown == NULL)
        shown = shown_device_locked (p);
      if (answered && !no_gpu && device != NULL && !g_atomic_int_get (&p->paused) &&
          !g_atomic_int_get (&p->stop_requested))
        {
          item = prism_tune_queue_claim (p->tune_queue, 0);
          if (item >= 0)
            job = tune_job_locked (p, (guint) item);
        }
      g_mutex_unlock (&p->lock);

      if (g_atomic_int_get (&p->stop_requested) || no_gpu)
        break;
      if (answered && !announced)
        {
          tune_announce (p, shown, &timed, count);
          announced = TRUE;
        }
      if (job != NULL)
        {
          g_autoptr(JsonNode) own_job = job;
          g_autoptr(JsonNode) result = run_tune_job (p, own_job, device);

          record_tune_result (p, 0, result, &timed, count);
          continue;
        }
      if (announced && over)
        break;
      g_mutex_lock (&p->lock);
      if (g_queue_is_empty (&p->tune_inbox))
        g_cond_wait_until (&p->tune_cond, &p->lock, g_get_monotonic_time () + G_USEC_PER_SEC / 30);
      g_mutex_unlock (&p->lock);
      tick (p);
    }
  tune_shared_teardown (p);
  if (no_gpu)
    {
      /* No GPU anywhere: what one process without one records. */
      set_tuning (p, NULL, why);
      tuning_event (p, PRISM_TUNE_NO_GPU, why, 0, 0);
      return;
    }
  set_tuning (p, shown, NULL);
  tuning_event (p, PRISM_TUNE_DONE, shown, timed, count);
}

/* REPORT: times what the gathering process hands out, on this process's GPU. */
static void
tune_for_gatherer (PrismPipeline *p)
{
  const PrismPipelinePeers *peers = p->opts.peers;
  g_autoptr(GError) error = NULL;
  g_autofree char *device = NULL;
  gboolean ok;
  JsonNode *job;

  if (peers->tune_ready == NULL || peers->tune_next == NULL || peers->tune_result == NULL)
    return;
  ok = prism_gpu_bench_probe (p->opts.tune_device, &device, &error);
  if (!peers->tune_ready (p, ok ? device : NULL, ok ? NULL : error->message, peers->user_data) || !ok)
    return;
  while ((job = peers->tune_next (p, peers->user_data)) != NULL)
    {
      g_autoptr(JsonNode) result = run_tune_job (p, job, device);

      json_node_unref (job);
      peers->tune_result (p, result, peers->user_data);
    }
}

void
prism_pipeline_tune_ready (PrismPipeline *p, guint peer, const char *device, const char *why, gboolean lost)
{
  g_mutex_lock (&p->lock);
  if (p->tune_queue != NULL && p->opts.peers != NULL && peer < p->opts.peers->size && peer > 0)
    {
      prism_tune_queue_set_peer (p->tune_queue, peer,
                                 lost ? PRISM_TUNE_PEER_LOST
                                 : device != NULL ? PRISM_TUNE_PEER_READY : PRISM_TUNE_PEER_NO_GPU);
      if (device != NULL && !lost)
        {
          g_free (p->tune_devices[peer]);
          p->tune_devices[peer] = g_strdup (device);
        }
      g_cond_broadcast (&p->tune_cond);
    }
  g_mutex_unlock (&p->lock);
}

JsonNode *
prism_pipeline_tune_claim (PrismPipeline *p, guint peer, gboolean *later)
{
  JsonNode *job = NULL;
  int item;

  *later = FALSE;
  g_mutex_lock (&p->lock);
  if (p->tune_queue != NULL && peer > 0 && peer < p->opts.peers->size &&
      !g_atomic_int_get (&p->stop_requested))
    {
      item = prism_tune_queue_claim (p->tune_queue, peer);
      *later = item == PRISM_TUNE_QUEUE_WAIT;
      if (item >= 0)
        job = tune_job_locked (p, (guint) item);
    }
  g_mutex_unlock (&p->lock);
  return job;
}

void
prism_pipeline_tune_merge (PrismPipeline *p, guint peer, JsonNode *result)
{
  TuneResult *r = g_new0 (TuneResult, 1);

  r->peer = peer;
  r->result = result;
  g_mutex_lock (&p->lock);
  if (p->tune_queue == NULL)
    {
      g_mutex_unlock (&p->lock);
      tune_result_free (r);
      return;
    }
  g_queue_push_tail (&p->tune_inbox, r);
  g_cond_broadcast (&p->tune_cond);
  g_mutex_unlock (&p->lock);
}

/* ------------------------------------------------------------------------ */

/* The unfused program and the tune_top best candidates by predicted
 * speedup, on the GPU, one at a time (a GPU is timed by one program at a
 * time); across processes, each on its own GPU at once (tune_shared()).
 * The probe only dlopens the driver: without a GPU this costs
 * microseconds and starts no process.  A resumed run keeps the
 * measurements it already has. */
static void
tune (PrismPipeline *p)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) order = g_ptr_array_new_with_free_func ((GDestroyNotify) prism_candidate_unref);
  g_autofree char *device = NULL;
  g_autoptr(PrismMeasurement) base = NULL;
  PrismGpuBenchOptions o;
  GPtrArray *cands;
  guint count, timed = 0;
  gboolean local, shared;

  if (p->opts.tune_top == 0)
    {
      const char *why = _("GPU tuning is off: speedups are predicted by the cost model");
      set_tuning (p, NULL, why);
      tuning_event (p, PRISM_TUNE_OFF, why, 0, 0);
      return;
    }
  if (g_atomic_int_get (&p->stop_requested))
    {
      const char *why = _("The run was stopped before its candidates were timed on the GPU");
      set_tuning (p, NULL, why);
      tuning_event (p, PRISM_TUNE_STOPPED, why, 0, 0);
      return;
    }
  local = prism_gpu_bench_probe (p->opts.tune_device, &device, &error);
  shared = p->role == PRISM_PIPELINE_GATHER && p->opts.peers->tune_begin != NULL &&
           p->opts.peers->size > 1;
  if (!local && !shared)
    {
      set_tuning (p, NULL, error->message);
      tuning_event (p, PRISM_TUNE_NO_GPU, error->message, 0, 0);
      return;
    }
  g_mutex_lock (&p->lock);
  cands = prism_results_get_candidates (p->results);
  for (guint i = 0; i < cands->len; i++)
    g_ptr_array_add (order, prism_candidate_ref (g_ptr_array_index (cands, i)));
  base = prism_measurement_copy (prism_results_get_baseline_measurement (p->results));
  g_mutex_unlock (&p->lock);
  if (order->len == 0)
    {
      /* Nothing to time: the other processes are not asked. */
      if (!local)
        {
          set_tuning (p, NULL, error->message);
          tuning_event (p, PRISM_TUNE_NO_GPU, error->message, 0, 0);
          return;
        }
      set_tuning (p, device, _("No candidate to time on the GPU"));
      tuning_event (p, PRISM_TUNE_NOTHING, device, 0, 0);
      return;
    }
  g_ptr_array_sort (order, compare_predicted);
  count = 1 + MIN (p->opts.tune_top, order->len);
  g_ptr_array_set_size (order, count - 1);
  if (shared)
    {
      tune_shared (p, order, count, base, local ? device : NULL, local ? NULL : error->message);
      return;
    }
  tuning_event (p, PRISM_TUNE_MEASURING, device, 0, count);

  bench_options (p, &o);
  if (base == NULL || base->error != NULL)
    {
      g_autofree char *kind = NULL, *note = NULL;

      g_clear_pointer (&base, prism_measurement_free);
      base = measure_baseline (p, &o, device, p->opts.baseline, &kind, &note);
      g_mutex_lock (&p->lock);
      prism_results_set_baseline_measurement (p->results, base, kind, note);
      save_locked (p);
      g_mutex_unlock (&p->lock);
    }
  measured_event (p, NULL, base, ++timed, count);

  for (guint i = 0; i + 1 < count; i++)
    {
      PrismCandidate *c = g_ptr_array_index (order, i);
      PrismMeasurement *m;

      wait_while_paused (p);
      if (g_atomic_int_get (&p->stop_requested))
        break;
      if (prism_candidate_get_measurement (c) == NULL)
        {
          g_autoptr(PrismGraph) graph = prism_candidate_instantiate (c, &error);

          if (graph != NULL)
            m = measure (p, graph, &o, device, base->error == NULL ? base->median_us : 0);
          else
            m = measurement_failed (p, &o, device, error->message);
          g_clear_error (&error);
          g_mutex_lock (&p->lock);
          prism_candidate_set_measurement (c, m);
          save_locked (p);
          g_mutex_unlock (&p->lock);
        }
      measured_event (p, c, prism_candidate_get_measurement (c), ++timed, count);
    }
  set_tuning (p, device, NULL);
  tuning_event (p, PRISM_TUNE_DONE, device, timed, count);
}

static void
fail_event (PrismPipeline *p, const GError *error)
{
  PrismEvent *e = prism_event_new (PRISM_EVENT_ERROR);

  e->message = g_strdup (error->message);
  emit (p, e);
  e = prism_event_new (PRISM_EVENT_FINISHED);
  e->message = g_strdup ("error");
  g_mutex_lock (&p->lock);
  snapshot_locked (p, &e->stats);
  g_mutex_unlock (&p->lock);
  emit (p, e);
}

/* After this process's search: the others' tasks, with progress events
 * (and periodic saves) as if the search still ran. */
static void
wait_peers (PrismPipeline *p)
{
  const PrismPipelinePeers *peers = p->opts.peers;

  while (!peers->wait_peers (p, 1000 / 30, peers->user_data))
    {
      search_tick (p->search, p);
      /* Stopping: under mpirun a signal is followed by SIGKILL within a
       * second, so what is decided is written at once. */
      if (g_atomic_int_get (&p->stop_requested))
        {
          g_mutex_lock (&p->lock);
          if (p->dirty)
            save_locked (p);
          g_mutex_unlock (&p->lock);
        }
    }
}

gboolean
prism_pipeline_run (PrismPipeline *p, GError **error)
{
  g_autoptr(GError) local = NULL;
  PrismSearchOptions sopts = p->opts.search;
  PrismSearchObserver observer = { search_sgraph, search_task_done, search_tick,
                                   search_pruned_sample };
  PrismCostEstimate base;
  GPtrArray *cands;
  PrismEvent *e;

  p->start_us = g_get_monotonic_time ();

  if (sopts.check_func == NULL && sopts.oracle == NULL)
    {
      PrismOracleOptions oo;
      prism_oracle_options_init (&oo);
      oo.mode = sopts.mode == PRISM_SEARCH_SYMBOLIC ? PRISM_ABSTRACT_UNTILED : PRISM_ABSTRACT_CONCRETE;
      p->oracle = prism_oracle_new_full (p->program, &oo, &local);
      if (p->oracle == NULL)
        goto fail;
      sopts.oracle = p->oracle;
    }
  if (p->opts.verify_func == NULL)
    {
      PrismVerifierOptions vo;
      prism_verifier_options_init (&vo);
      vo.n_seeds = p->opts.random_seeds;
      vo.first_seed = p->opts.seed;
      if (p->opts.verifier_time_limit_s > 0)
        vo.time_limit_s = p->opts.verifier_time_limit_s;
      /* The verifier's own randomized test runs at the real shapes, seconds
       * per candidate on the CPU; by default the screen at small shapes is
       * the randomized test. */
      vo.skip_random = !p->opts.full_random;
      p->verifier = prism_verifier_new (p->program, &vo, &local);
      if (p->verifier == NULL)
        goto fail;
    }
  p->screen = prism_screen_new (p->program, p->opts.random_seeds, p->opts.seed, 0, &local);
  if (p->screen == NULL)
    goto fail;
  if (!recheck_previous (p, &local))
    goto fail;
  /* Both baselines are predicted; speedups are against the chosen one. */
  {
    PrismBaselineKind other = p->opts.baseline == PRISM_BASELINE_VENDOR ? PRISM_BASELINE_LOWERED
                                                                          : PRISM_BASELINE_VENDOR;
    PrismCostEstimate alt;

    if (!prism_cost_model_predict_baseline (p->target, p->program, p->opts.baseline, &base, &local) ||
        !prism_cost_model_predict_baseline (p->target, p->program, other, &alt, &local))
      goto fail;
    p->baseline_us = base.total_us;
    p->baseline_launches = base.n_launches;
    prism_results_set_baseline (p->results, prism_baseline_kind_to_string (p->opts.baseline), base.total_us,
                                base.n_launches);
    prism_results_set_baseline_alternative (p->results, prism_baseline_kind_to_string (other), alt.total_us,
                                            alt.n_launches);
  }

  p->search = prism_search_new (p->program, &sopts, &local);
  if (p->search == NULL)
    goto fail;
  for (guint i = 0; i < p->done->len; i++)
    prism_search_skip_task (p->search, g_array_index (p->done, guint, i));
  prism_search_set_elapsed_offset (p->search, p->previous.search.elapsed_s);
  if (p->role != PRISM_PIPELINE_ALONE)
    observer.claim_task = search_claim_task;
  prism_search_set_observer (p->search, &observer, p);
  p->setup_s = (g_get_monotonic_time () - p->start_us) / 1e6;
  if (p->opts.peers != NULL && p->opts.peers->started != NULL)
    p->opts.peers->started (p, p->opts.peers->user_data);

  if (!prism_search_run (p->search, &local))
    goto fail;
  if (p->role != PRISM_PIPELINE_ALONE)
    wait_peers (p);

  /* The search has ended (maybe stopped): whatever was decided is
   * published, in order. */
  g_mutex_lock (&p->lock);
  publish_front_locked (p, TRUE);
  /* The file's order: by the earliest position each candidate was met at
   * (a resumed run's candidates may have been met earlier this time).  A
   * sort, never a renumbering: ids stay those the candidates were
   * published with. */
  cands = prism_results_get_candidates (p->results);
  for (guint i = 0; i < cands->len; i++)
    {
      PrismCandidate *c = g_ptr_array_index (cands, i);
      Key128 k;
      Entry *entry;

      if (key_from_digest (c->digest, &k) && (entry = g_hash_table_lookup (p->seen, &k)) != NULL &&
          (c->task != entry->task || c->seq != entry->seq))
        {
          c->task = entry->task;
          c->seq = entry->seq;
          prism_candidate_invalidate (c);
        }
    }
  prism_results_sort (p->results);
  g_free (p->stop_reason);
  p->stop_reason = g_strdup (prism_search_get_stop_reason (p->search));
  /* Complete only if every process exhausted its tasks: a peer's time
   * limit says so, and a peer lost leaves tasks unfinished. */
  if (g_strcmp0 (p->stop_reason, "exhausted") == 0 && p->role == PRISM_PIPELINE_GATHER)
    {
      PrismSearchStats st;

      prism_search_get_stats (p->search, &st);
      if (p->peer_stop_reason != NULL || p->head < st.n_tasks)
        {
          g_free (p->stop_reason);
          p->stop_reason = g_strdup (p->peer_stop_reason ? p->peer_stop_reason : "stopped");
        }
    }
  save_locked (p);
  g_mutex_unlock (&p->lock);
  emit_outbox (p);

  /* The results are where the GPU timings are gathered. */
  if (p->role != PRISM_PIPELINE_REPORT)
    tune (p);
  else
    tune_for_gatherer (p);

  g_mutex_lock (&p->lock);
  save_locked (p);
  e = prism_event_new (PRISM_EVENT_FINISHED);
  snapshot_locked (p, &e->stats);
  e->message = g_strdup (p->stop_reason);
  g_mutex_unlock (&p->lock);
  emit (p, e);
  return TRUE;

fail:
  fail_event (p, local);
  g_propagate_error (error, g_steal_pointer (&local));
  return FALSE;
}

void
prism_pipeline_stop (PrismPipeline *p)
{
  g_atomic_int_set (&p->stop_requested, TRUE);
  if (p->search != NULL)
    prism_search_stop (p->search);
  if (p->opts.peers != NULL && p->opts.peers->stop != NULL)
    p->opts.peers->stop (p, p->opts.peers->user_data);
  /* See wait_peers(): the gathering process may have a second left. */
  if (p->role == PRISM_PIPELINE_GATHER)
    {
      g_mutex_lock (&p->lock);
      save_locked (p);
      g_mutex_unlock (&p->lock);
    }
}

void
prism_pipeline_set_paused (PrismPipeline *p, gboolean paused)
{
  g_atomic_int_set (&p->paused, !!paused);
  if (p->search != NULL)
    prism_search_set_paused (p->search, paused);
}

void
prism_pipeline_set_time_limit (PrismPipeline *p, double seconds)
{
  p->opts.search.time_limit_s = seconds;
  if (p->search != NULL)
    prism_search_set_time_limit (p->search, seconds);
}

void
prism_pipeline_get_stats (PrismPipeline *p, PrismRunStats *stats)
{
  g_mutex_lock (&p->lock);
  snapshot_locked (p, stats);
  g_mutex_unlock (&p->lock);
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

GPtrArray *
prism_pipeline_get_candidates (PrismPipeline *p)
{
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) prism_candidate_unref);
  GPtrArray *cands;

  g_mutex_lock (&p->lock);
  cands = prism_results_get_candidates (p->results);
  for (guint i = 0; i < cands->len; i++)
    g_ptr_array_add (out, prism_candidate_ref (g_ptr_array_index (cands, i)));
  g_mutex_unlock (&p->lock);
  g_ptr_array_sort (out, compare_order);
  return out;
}

double
prism_pipeline_get_baseline_us (PrismPipeline *p)
{
  return p->baseline_us;
}

const GError *
prism_pipeline_get_save_error (PrismPipeline *p)
{
  return p->save_error;
}

const char *
prism_pipeline_get_results_path (PrismPipeline *p)
{
  return p->results_path;
}

const char *
prism_pipeline_get_stop_reason (PrismPipeline *p)
{
  return p->stop_reason;
}

/* ------------------------------------------------------------------------ */
/* Sharing one search with other processes */

guint
prism_pipeline_claim (PrismPipeline *p, guint peer, guint from)
{
  guint k;

  g_return_val_if_fail (p->role == PRISM_PIPELINE_GATHER, G_MAXUINT);
  if (g_atomic_int_get (&p->stop_requested))
    return G_MAXUINT;
  g_mutex_lock (&p->lock);
  k = MAX (from, p->next_claim);
  /* Finished in an earlier run (resume): nobody runs it again. */
  while (g_hash_table_contains (p->done_set, GUINT_TO_POINTER (k)))
    k++;
  p->next_claim = k + 1;
  g_mutex_unlock (&p->lock);
  return k;
}

/* A candidate another process met at (@task, @seq): like a meeting in
 * decide(), but decided already.  Call with the lock held. */
static void
merge_find_locked (PrismPipeline *p, PrismCandidate *c, guint task, guint seq)
{
  Key128 key;
  Entry *entry;

  if (!key_from_digest (c->digest, &key))
    {
      g_warning ("a peer reported a candidate with a malformed digest; it is left out");
      return;
    }
  entry = g_hash_table_lookup (p->seen, &key);
  if (entry != NULL)
    {
      if (task < entry->task || (task == entry->task && seq < entry->seq))
        {
          entry->task = task;
          entry->seq = seq;
          if (entry->queued != NULL)
            g_sequence_sort_changed (entry->queued, compare_positions, NULL);
        }
      return;
    }
  entry = g_new0 (Entry, 1);
  entry->key = key;
  entry->task = task;
  entry->seq = seq;
  entry->state = ENTRY_VERIFIED;
  entry->candidate = prism_candidate_ref (c);
  c->task = task;
  c->seq = seq;
  entry->queued = g_sequence_insert_sorted (p->order, entry, compare_positions, NULL);
  g_hash_table_insert (p->seen, &entry->key, entry);
}

void
prism_pipeline_merge_task (PrismPipeline *p, guint peer, guint task, gboolean completed,
                           GPtrArray *finds)
{
  g_return_if_fail (p->role == PRISM_PIPELINE_GATHER);
  g_mutex_lock (&p->lock);
  for (guint i = 0; i < finds->len; i++)
    {
      PrismTaskFind *f = g_ptr_array_index (finds, i);
      merge_find_locked (p, f->candidate, task, f->seq);
    }
  if (completed)
    mark_done_locked (p, task);
  p->peer_tasks = MAX (p->peer_tasks, task + 1);
  p->dirty = TRUE;
  publish_ready_locked (p);
  g_mutex_unlock (&p->lock);
  emit_outbox (p);
}

void
prism_pipeline_set_peer_stats (PrismPipeline *p, guint peer, const PrismRunStats *stats)
{
  g_return_if_fail (p->role == PRISM_PIPELINE_GATHER && peer > 0);
  g_mutex_lock (&p->lock);
  if (p->peer_stats->len <= peer)
    g_array_set_size (p->peer_stats, peer + 1);
  g_array_index (p->peer_stats, PrismRunStats, peer) = *stats;
  g_mutex_unlock (&p->lock);
}

void
prism_pipeline_peer_ended (PrismPipeline *p, guint peer, const char *stop_reason)
{
  g_return_if_fail (p->role == PRISM_PIPELINE_GATHER);
  g_mutex_lock (&p->lock);
  if (p->peer_stop_reason == NULL && g_strcmp0 (stop_reason, "exhausted") != 0)
    p->peer_stop_reason = g_strdup (stop_reason ? stop_reason : "stopped");
  g_mutex_unlock (&p->lock);
}

void
prism_pipeline_set_ranks (PrismPipeline *p, JsonNode *ranks)
{
  g_mutex_lock (&p->lock);
  g_clear_pointer (&p->ranks, json_node_unref);
  p->ranks = ranks;
  p->dirty = TRUE;
  g_mutex_unlock (&p->lock);
}

void
prism_pipeline_get_task_stats (PrismPipeline *p, PrismRunStats *stats)
{
  PrismSearchStats split;

  g_mutex_lock (&p->lock);
  *stats = p->counters;
  if (p->search != NULL)
    {
      /* The split phase's first: the totals read after it include it. */
      prism_search_get_split_stats (p->search, &split);
      prism_search_get_stats (p->search, &stats->search);
      stats->search.states -= split.states;
      for (guint d = 0; d < PRISM_SEARCH_MAX_DEPTH; d++)
        stats->search.states_by_depth[d] -= split.states_by_depth[d];
      for (guint r = 0; r < PRISM_N_PRUNE_REASONS; r++)
        stats->search.pruned[r] -= split.pruned[r];
      for (guint d = 0; d < PRISM_SEARCH_MAX_DEPTH; d++)
        for (guint r = 0; r < PRISM_N_PRUNE_REASONS; r++)
          stats->search.pruned_by_depth[d][r] -= split.pruned_by_depth[d][r];
      stats->search.sgraphs -= split.sgraphs;
      /* Told by the gathering process, which knows them all. */
      stats->search.n_tasks = 0;
      stats->search.tasks_done = 0;
      stats->search.elapsed_s = prism_search_get_elapsed (p->search);
    }
  stats->time_to_best_s = -1;
  g_mutex_unlock (&p->lock);
}

void
prism_pipeline_get_own_counts (PrismPipeline *p, guint64 *tasks, guint64 *candidates)
{
  g_mutex_lock (&p->lock);
  *tasks = p->own_tasks;
  *candidates = p->own_candidates;
  g_mutex_unlock (&p->lock);
}

const char *
prism_pipeline_get_search_stop_reason (PrismPipeline *p)
{
  return p->search != NULL ? prism_search_get_stop_reason (p->search) : NULL;
}

const char *
prism_pipeline_get_fingerprint (PrismPipeline *p)
{
  return p->fingerprint;
}

const char *
prism_pipeline_get_peer_fingerprint (PrismPipeline *p)
{
  return p->peer_fingerprint;
}
