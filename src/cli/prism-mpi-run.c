/* prism-mpi-run.c — one `prism search` across the ranks of an MPI job
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every MPI call of the program is in this file, and after start-up all of
 * them are made by one thread per rank (the communication thread): the
 * pipeline's callbacks only queue messages and wait for answers, so MPI
 * needs no more than MPI_THREAD_SERIALIZED.  The thread never blocks in MPI
 * (Open MPI's blocking calls spin): it posts sends with MPI_Isend, probes
 * with MPI_Iprobe and sleeps between rounds, 50 µs while messages flow and
 * up to 2 ms when idle.
 *
 * Messages (tags): a rank > 0 says HELLO (its configuration's fingerprint),
 * asks CLAIM (the task it reached) and gets GRANT (the task it may run, at
 * or after it), reports TASK (the verified candidates a task met, JSON;
 * a candidate it sent before goes by digest only), STATS (its counters,
 * twice a second) and DONE (its search ended).  Rank 0 sends STOP (stop
 * searching) and END (the run is over: exit); a rank > 0 that is stopped
 * (SIGTERM, Ctrl-C sent to it) sends STOP to rank 0, which stops them all.
 *
 * Then the timings on the GPU (docs/architecture.md, "MPI"): rank 0 sends
 * TUNE_BEGIN; each rank answers TUNE_READY (its GPU, or why it has none),
 * then asks TUNE_CLAIM and gets TUNE_JOB (a program to time, JSON; empty:
 * no more), and hands back TUNE_RESULT.  A claim rank 0 cannot answer yet
 * (the unfused program is still being timed) waits on rank 0.
 */
#include "config.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <glib/gi18n.h>

#include "prism-error.h"
#include "prism-json-reader.h"
#include "prism-mpi-run.h"

#ifdef PRISM_HAVE_MPI

#include <mpi.h>

enum
{
  TAG_HELLO = 1,
  TAG_CLAIM,
  TAG_GRANT,
  TAG_TASK,
  TAG_STATS,
  TAG_DONE,
  TAG_STOP,
  TAG_END,
  TAG_TUNE_BEGIN,
  TAG_TUNE_READY,
  TAG_TUNE_CLAIM,
  TAG_TUNE_JOB,
  TAG_TUNE_RESULT,
};

#define STATS_INTERVAL_US (G_USEC_PER_SEC / 2)
#define BUSY_SLEEP_US 50
#define IDLE_SLEEP_US 2000
#define STARTUP_MESSAGE_MAX 1024
/* A rank's sends still in flight when the run ends get this long. */
#define FLUSH_LIMIT_US (2 * G_USEC_PER_SEC)

typedef struct
{
  int dest;
  int tag;
  GBytes *data;
} OutMsg;

typedef struct
{
  MPI_Request request;
  OutMsg *msg;
} Pending;

typedef struct
{
  int src;
  guint from;
} ClaimAsk;

/* Rank 0's view of one rank. */
typedef struct
{
  gboolean hello;     /* it is set up (or ended without getting there) */
  gboolean done;      /* its search ended and everything it found is here */
  gboolean lost;      /* it stopped answering (MPI said so) */
  guint64 tasks;
  guint64 candidates;
  guint64 states;
  guint64 sent;
  guint64 received;
  double seconds;
  char *stop_reason;
  gboolean tune_claim;  /* its claim for a program to time waits */
  gboolean tune_told;   /* the pipeline knows it is lost (or has no part in the timings) */
  gboolean foreign;     /* it searches another configuration: nothing of it is taken */
} RankInfo;

struct _PrismMpiRun
{
  int rank;
  int size;
  PrismPipelinePeers peers;
  GThread *comm;
  GAsyncQueue *outbox;            /* OutMsg* for the communication thread */
  GArray *pending;                /* Pending: comm thread only */
  gint quit;                      /* atomic: the comm thread flushes and ends */

  GMutex lock;
  GCond cond;
  PrismPipeline *pipeline;        /* set by started(); under @lock */
  gboolean stopping;              /* a stop was asked for (here or by rank 0) */
  gboolean lost_any;              /* MPI reported a failure */
  char *problem;                  /* rank 0: for the user */
  gboolean misconfigured;         /* rank 0: a rank was started with other options */
  /* Ranks > 0. */
  gboolean has_reply;
  guint reply;
  gboolean ended;                 /* END came (or rank 0 was lost) */
  gboolean done_sent;
  GHashTable *sent_digests;       /* candidates sent in full */
  guint die_after;                /* test hook: SIGKILL after this many TASK messages */
  int signal_self;                /* test hook: this signal to itself … */
  guint signal_after;             /* … after this many TASK messages */
  guint64 reports;
  gboolean tune_begun;            /* TUNE_BEGIN came */
  gboolean has_job;               /* TUNE_JOB came … */
  GBytes *job;                    /* … with this */
  gboolean die_in_tune;           /* test hook: SIGKILL at the answer after the first result */
  guint tune_results;
  /* Rank 0. */
  guint hellos;                   /* ranks set up and searching */
  GArray *early_claims;           /* ClaimAsk that came before every rank was set up */
  RankInfo *ranks;
  GHashTable *candidates;         /* digest → PrismCandidate* received */
  gboolean stop_sent;             /* STOP was sent (rank 0) or need not be (rank > 0) */
  gboolean tuning;                /* TUNE_BEGIN was sent */
  int local_rank;                 /* among the ranks of this node */

  guint64 sent;                   /* messages, under @lock */
  guint64 received;
  gint64 last_stats_us;           /* comm thread only */
};

/* ------------------------------------------------------------------------ */
/* Queueing (any thread) */

static void
out_msg_free (OutMsg *m)
{
  g_bytes_unref (m->data);
  g_free (m);
}

static void
post (PrismMpiRun *run, int dest, int tag, GBytes *data)
{
  OutMsg *m = g_new0 (OutMsg, 1);

  m->dest = dest;
  m->tag = tag;
  m->data = data != NULL ? data : g_bytes_new (NULL, 0);
  g_async_queue_push (run->outbox, m);
}

static void
post_uint (PrismMpiRun *run, int dest, int tag, guint value)
{
  guint32 v = value;

  post (run, dest, tag, g_bytes_new (&v, sizeof v));
}

static void
post_json (PrismMpiRun *run, int dest, int tag, JsonNode *node)
{
  gsize length;
  char *text = prism_json_to_text (node, FALSE, &length);

  post (run, dest, tag, g_bytes_new_take (text, length));
}

/* MPI said a peer is gone: the run stops, what is decided is kept. */
static void
lost_locked (PrismMpiRun *run, int peer, const char *what, int code)
{
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;

  MPI_Error_string (code, text, &length);
  if (!run->lost_any)
    {
      g_free (run->problem);
      run->problem = g_strdup_printf (_("MPI failed while talking to rank %d (%s: %.*s); the run "
                                        "stopped and its results are kept"),
                                      peer, what, length, text);
    }
  run->lost_any = TRUE;
  run->stopping = TRUE;
  if (run->ranks != NULL && peer > 0 && peer < run->size)
    run->ranks[peer].lost = TRUE;
  if (run->rank != 0)
    run->ended = TRUE;
  g_cond_broadcast (&run->cond);
}

/* ------------------------------------------------------------------------ */
/* Rank 0: what the others say */

static JsonNode *
parse_json (GBytes *data)
{
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  gsize length;
  const char *text = g_bytes_get_data (data, &length);

  if (text == NULL || !json_parser_load_from_data (parser, text, (gssize) length, NULL))
    return NULL;
  return json_parser_steal_root (parser);
}

static guint
read_uint (GBytes *data)
{
  guint32 v = G_MAXUINT32;

  if (g_bytes_get_size (data) == sizeof v)
    memcpy (&v, g_bytes_get_data (data, NULL), sizeof v);
  return v;
}

static void
grant (PrismMpiRun *run, PrismPipeline *p, int src, guint from)
{
  guint k = G_MAXUINT;

  if (from != G_MAXUINT32)
    k = prism_pipeline_claim (p, (guint) src, from);
  post_uint (run, src, TAG_GRANT, k);
}

/* Nothing is handed out until every rank is set up (its HELLO came):
 * otherwise the first ranks ready would take a small search whole while
 * the others still build their verifier. */
static gboolean
gate_open_locked (PrismMpiRun *run)
{
  return run->hellos + 1 >= (guint) run->size || run->stopping;
}

static void
open_gate (PrismMpiRun *run, PrismPipeline *p)
{
  g_autoptr(GArray) early = NULL;

  g_mutex_lock (&run->lock);
  if (!gate_open_locked (run) || run->early_claims->len == 0)
    {
      g_cond_broadcast (&run->cond);
      g_mutex_unlock (&run->lock);
      return;
    }
  early = run->early_claims;
  run->early_claims = g_array_new (FALSE, FALSE, sizeof (ClaimAsk));
  g_cond_broadcast (&run->cond);
  g_mutex_unlock (&run->lock);
  for (guint i = 0; i < early->len; i++)
    grant (run, p, g_array_index (early, ClaimAsk, i).src, g_array_index (early, ClaimAsk, i).from);
}

static void
on_claim (PrismMpiRun *run, PrismPipeline *p, int src, GBytes *data)
{
  ClaimAsk ask = { src, read_uint (data) };
  gboolean wait;

  g_mutex_lock (&run->lock);
  /* A rank with another configuration gets no task. */
  if (run->ranks[src].foreign)
    ask.from = G_MAXUINT32;
  wait = !gate_open_locked (run);
  if (wait)
    g_array_append_val (run->early_claims, ask);
  g_mutex_unlock (&run->lock);
  if (!wait)
    grant (run, p, src, ask.from);
}

static void
on_task (PrismMpiRun *run, PrismPipeline *p, int src, GBytes *data)
{
  g_autoptr(JsonNode) root = parse_json (data);
  g_autoptr(GPtrArray) finds = g_ptr_array_new_with_free_func ((GDestroyNotify) prism_task_find_free);
  JsonObject *obj;
  JsonArray *list;
  gint64 task;
  gboolean completed;
  guint new_candidates = 0;

  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_warning ("rank %d sent a malformed task report; its task will run again on resume", src);
      return;
    }
  /* Decided under another configuration: not this run's. */
  g_mutex_lock (&run->lock);
  if (run->ranks[src].foreign)
    {
      g_mutex_unlock (&run->lock);
      return;
    }
  g_mutex_unlock (&run->lock);
  obj = json_node_get_object (root);
  task = json_object_get_int_member_with_default (obj, "task", -1);
  completed = json_object_get_boolean_member_with_default (obj, "completed", FALSE);
  list = json_object_has_member (obj, "finds") ? json_object_get_array_member (obj, "finds") : NULL;
  if (task < 0 || task >= G_MAXUINT32)
    return;
  for (guint i = 0; list != NULL && i < json_array_get_length (list); i++)
    {
      JsonObject *fo = json_array_get_object_element (list, i);
      const char *digest = fo ? json_object_get_string_member_with_default (fo, "digest", NULL) : NULL;
      PrismCandidate *c = digest ? g_hash_table_lookup (run->candidates, digest) : NULL;
      PrismTaskFind *f;

      if (fo != NULL && json_object_has_member (fo, "candidate"))
        {
          g_autoptr(GError) error = NULL;
          PrismCandidate *got = prism_candidate_from_json (json_object_get_member (fo, "candidate"), &error);

          if (got == NULL)
            {
              g_warning ("rank %d sent a candidate rank 0 cannot read (%s); its task will run "
                         "again on resume", src, error->message);
              completed = FALSE;
              continue;
            }
          got->id = 0;
          /* Made here, not under the pipeline's lock where it is read. */
          prism_candidate_get_executed_digest (got);
          c = got;
          if (!g_hash_table_contains (run->candidates, got->digest))
            {
              g_hash_table_insert (run->candidates, g_strdup (got->digest), got);
              new_candidates++;
            }
          else
            {
              c = g_hash_table_lookup (run->candidates, got->digest);
              prism_candidate_unref (got);
            }
        }
      if (c == NULL)
        {
          g_warning ("rank %d named a candidate it never sent; its task will run again on resume", src);
          completed = FALSE;
          continue;
        }
      f = g_new0 (PrismTaskFind, 1);
      f->candidate = prism_candidate_ref (c);
      f->seq = (guint) json_object_get_int_member_with_default (fo, "seq", 0);
      g_ptr_array_add (finds, f);
    }
  prism_pipeline_merge_task (p, (guint) src, (guint) task, completed, finds);
  g_mutex_lock (&run->lock);
  run->ranks[src].tasks += completed;
  run->ranks[src].candidates += new_candidates;
  g_mutex_unlock (&run->lock);
}

static void
on_stats (PrismMpiRun *run, PrismPipeline *p, int src, GBytes *data, gboolean done)
{
  g_autoptr(JsonNode) root = parse_json (data);
  JsonObject *obj;
  PrismRunStats stats;

  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return;
  obj = json_node_get_object (root);
  memset (&stats, 0, sizeof stats);
  stats.time_to_best_s = -1;
  if (json_object_has_member (obj, "stats") &&
      JSON_NODE_HOLDS_OBJECT (json_object_get_member (obj, "stats")))
    prism_run_stats_from_json (json_object_get_object_member (obj, "stats"), &stats);
  stats.time_to_best_s = -1;
  stats.search.n_tasks = stats.search.tasks_done = 0;
  prism_pipeline_set_peer_stats (p, (guint) src, &stats);
  if (done)
    prism_pipeline_peer_ended (p, (guint) src,
                               json_object_get_string_member_with_default (obj, "stop_reason", NULL));

  g_mutex_lock (&run->lock);
  run->ranks[src].states = stats.search.states;
  run->ranks[src].seconds = stats.search.elapsed_s;
  run->ranks[src].sent = (guint64) json_object_get_int_member_with_default (obj, "sent", 0);
  run->ranks[src].received = (guint64) json_object_get_int_member_with_default (obj, "received", 0);
  if (done)
    {
      /* A rank whose setup failed ends without a HELLO: wait no more for it. */
      if (!run->ranks[src].hello)
        run->hellos++;
      run->ranks[src].hello = TRUE;
      run->ranks[src].done = TRUE;
      g_free (run->ranks[src].stop_reason);
      run->ranks[src].stop_reason =
        g_strdup (json_object_get_string_member_with_default (obj, "stop_reason", "stopped"));
      g_cond_broadcast (&run->cond);
    }
  g_mutex_unlock (&run->lock);
  if (done)
    open_gate (run, p);
}

static void
on_hello (PrismMpiRun *run, PrismPipeline *p, int src, GBytes *data)
{
  gsize length;
  const char *fp = g_bytes_get_data (data, &length);
  const char *mine = prism_pipeline_get_peer_fingerprint (p);
  gboolean same = fp != NULL && length == strlen (mine) && memcmp (fp, mine, length) == 0;

  g_mutex_lock (&run->lock);
  if (!run->ranks[src].hello)
    run->hellos++;
  run->ranks[src].hello = TRUE;
  if (!same)
    {
      run->ranks[src].foreign = TRUE;
      run->misconfigured = TRUE;
      if (run->problem == NULL)
        run->problem = g_strdup_printf (_("rank %d searches another program or configuration than "
                                          "rank 0 (its fingerprint differs); the run stopped"), src);
    }
  g_mutex_unlock (&run->lock);
  open_gate (run, p);
  if (same)
    return;
  prism_pipeline_stop (p);
}

/* stats.ranks of results.json. */
static JsonNode *
ranks_to_json (PrismMpiRun *run, PrismPipeline *p)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  PrismRunStats own;
  guint64 own_tasks, own_candidates;

  prism_pipeline_get_task_stats (p, &own);
  prism_pipeline_get_own_counts (p, &own_tasks, &own_candidates);
  g_mutex_lock (&run->lock);
  run->ranks[0].tasks = own_tasks;
  run->ranks[0].candidates = own_candidates;
  run->ranks[0].states = own.search.states;
  run->ranks[0].seconds = own.search.elapsed_s;
  run->ranks[0].sent = run->sent;
  run->ranks[0].received = run->received;
  json_builder_begin_array (b);
  for (int r = 0; r < run->size; r++)
    {
      const RankInfo *ri = &run->ranks[r];

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "rank");
      json_builder_add_int_value (b, r);
      json_builder_set_member_name (b, "state");
      json_builder_add_string_value (b, ri->lost ? "lost"
                                        : r == 0 ? (prism_pipeline_get_search_stop_reason (p) ?: "searching")
                                        : ri->done ? ri->stop_reason : "searching");
      json_builder_set_member_name (b, "tasks");
      json_builder_add_int_value (b, (gint64) ri->tasks);
      json_builder_set_member_name (b, "candidates");
      json_builder_add_int_value (b, (gint64) ri->candidates);
      json_builder_set_member_name (b, "states");
      json_builder_add_int_value (b, (gint64) ri->states);
      json_builder_set_member_name (b, "seconds");
      json_builder_add_double_value (b, ri->seconds);
      json_builder_set_member_name (b, "messages_sent");
      json_builder_add_int_value (b, (gint64) ri->sent);
      json_builder_set_member_name (b, "messages_received");
      json_builder_add_int_value (b, (gint64) ri->received);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  g_mutex_unlock (&run->lock);
  return json_builder_get_root (b);
}

/* Rank 0: the timings on the GPU */

static void
on_tune_ready (PrismMpiRun *run, PrismPipeline *p, int src, GBytes *data)
{
  g_autoptr(JsonNode) root = parse_json (data);
  JsonObject *obj = root && JSON_NODE_HOLDS_OBJECT (root) ? json_node_get_object (root) : NULL;
  const char *device = obj ? json_object_get_string_member_with_default (obj, "device", NULL) : NULL;
  const char *why = obj ? json_object_get_string_member_with_default (obj, "why", NULL) : NULL;

  prism_pipeline_tune_ready (p, (guint) src, device, why ? why : "?", FALSE);
}

/* A claim that must wait stays on rank 0 and is tried again each round
 * (tune_retry()). */
static void
answer_claim (PrismMpiRun *run, PrismPipeline *p, int src)
{
  gboolean later = FALSE;
  g_autoptr(JsonNode) job = prism_pipeline_tune_claim (p, (guint) src, &later);

  g_mutex_lock (&run->lock);
  run->ranks[src].tune_claim = later;
  g_mutex_unlock (&run->lock);
  if (later)
    return;
  if (job != NULL)
    post_json (run, src, TAG_TUNE_JOB, job);
  else
    post (run, src, TAG_TUNE_JOB, NULL);
}

static void
on_tune_claim (PrismMpiRun *run, PrismPipeline *p, int src)
{
  answer_claim (run, p, src);
}

static void
on_tune_result (PrismMpiRun *run, PrismPipeline *p, int src, GBytes *data)
{
  JsonNode *root = parse_json (data);

  if (root == NULL)
    {
      g_warning ("rank %d sent a malformed timing; its program is timed again on resume", src);
      return;
    }
  prism_pipeline_tune_merge (p, (guint) src, root);
}

/* Each round on rank 0 while timings run: claims that waited, and ranks
 * lost (or without a search) that the pipeline must not wait for. */
static void
tune_retry (PrismMpiRun *run, PrismPipeline *p)
{
  for (int r = 1; r < run->size; r++)
    {
      gboolean claim, tell, lost;

      g_mutex_lock (&run->lock);
      claim = run->tuning && run->ranks[r].tune_claim && !run->ranks[r].lost;
      lost = run->ranks[r].lost;
      tell = run->tuning && !run->ranks[r].tune_told &&
             (lost || g_strcmp0 (run->ranks[r].stop_reason, "error") == 0);
      if (tell)
        run->ranks[r].tune_told = TRUE;
      g_mutex_unlock (&run->lock);
      if (tell)
        prism_pipeline_tune_ready (p, (guint) r, NULL, _("its search failed"), lost);
      if (claim)
        answer_claim (run, p, r);
    }
}

/* ------------------------------------------------------------------------ */
/* Ranks > 0: what rank 0 says */

static void
worker_stats (PrismMpiRun *run, PrismPipeline *p, gboolean done)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  PrismRunStats stats;

  guint64 sent, received;

  prism_pipeline_get_task_stats (p, &stats);
  g_mutex_lock (&run->lock);
  sent = run->sent;
  received = run->received;
  g_mutex_unlock (&run->lock);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "stats");
  json_builder_add_value (b, prism_run_stats_to_json (&stats));
  json_builder_set_member_name (b, "sent");
  json_builder_add_int_value (b, (gint64) sent);
  json_builder_set_member_name (b, "received");
  json_builder_add_int_value (b, (gint64) received);
  if (done)
    {
      const char *reason = prism_pipeline_get_search_stop_reason (p);
      json_builder_set_member_name (b, "stop_reason");
      json_builder_add_string_value (b, reason ? reason : "stopped");
    }
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  post_json (run, 0, done ? TAG_DONE : TAG_STATS, root);
}

/* ------------------------------------------------------------------------ */
/* The communication thread */

static gboolean
handle (PrismMpiRun *run, int src, int tag, GBytes *data)
{
  PrismPipeline *p;

  g_mutex_lock (&run->lock);
  p = run->pipeline;
  g_mutex_unlock (&run->lock);

  if (run->rank == 0)
    {
      /* Nothing is asked of rank 0 before its pipeline is set up: the
       * message waits (handle() is not called for it). */
      g_return_val_if_fail (p != NULL, FALSE);
      switch (tag)
        {
        case TAG_HELLO: on_hello (run, p, src, data); break;
        case TAG_CLAIM: on_claim (run, p, src, data); break;
        case TAG_TASK:  on_task (run, p, src, data); break;
        case TAG_STATS: on_stats (run, p, src, data, FALSE); break;
        case TAG_DONE:  on_stats (run, p, src, data, TRUE); break;
        case TAG_TUNE_READY:  on_tune_ready (run, p, src, data); break;
        case TAG_TUNE_CLAIM:  on_tune_claim (run, p, src); break;
        case TAG_TUNE_RESULT: on_tune_result (run, p, src, data); break;
        case TAG_STOP: prism_pipeline_stop (p); break;
        default: g_warning ("rank 0 got an unknown message (tag %d) from rank %d", tag, src); break;
        }
      return TRUE;
    }
  g_mutex_lock (&run->lock);
  switch (tag)
    {
    case TAG_GRANT:
      run->reply = read_uint (data);
      run->has_reply = TRUE;
      break;
    case TAG_STOP:
      run->stopping = TRUE;
      run->stop_sent = TRUE;   /* rank 0 knows: not told back */
      break;
    case TAG_END:
      run->ended = TRUE;
      break;
    case TAG_TUNE_BEGIN:
      run->tune_begun = TRUE;
      break;
    case TAG_TUNE_JOB:
      g_clear_pointer (&run->job, g_bytes_unref);
      run->job = g_bytes_ref (data);
      run->has_job = TRUE;
      break;
    default:
      g_warning ("rank %d got an unknown message (tag %d)", run->rank, tag);
      break;
    }
  g_cond_broadcast (&run->cond);
  g_mutex_unlock (&run->lock);
  if (tag == TAG_STOP && p != NULL)
    prism_pipeline_stop (p);
  return TRUE;
}

static void
send_now (PrismMpiRun *run, OutMsg *m)
{
  Pending pd = { MPI_REQUEST_NULL, m };
  int rc = MPI_Isend (g_bytes_get_data (m->data, NULL), (int) g_bytes_get_size (m->data), MPI_BYTE,
                      m->dest, m->tag, MPI_COMM_WORLD, &pd.request);

  if (rc != MPI_SUCCESS)
    {
      g_mutex_lock (&run->lock);
      lost_locked (run, m->dest, "MPI_Isend", rc);
      g_mutex_unlock (&run->lock);
      out_msg_free (m);
      return;
    }
  g_mutex_lock (&run->lock);
  run->sent++;
  g_mutex_unlock (&run->lock);
  /* Test hook: this rank dies like one killed with kill -9, right after
   * its report has left. */
  if (m->tag == TAG_TASK && run->die_after > 0 && ++run->reports >= run->die_after)
    {
      MPI_Wait (&pd.request, MPI_STATUS_IGNORE);
      raise (SIGKILL);
    }
  /* Test hook: as if someone sent this rank SIGTERM or SIGINT. */
  if (m->tag == TAG_TASK && run->signal_self != 0 && ++run->reports >= run->signal_after)
    {
      raise (run->signal_self);
      run->signal_self = 0;
    }
  g_array_append_val (run->pending, pd);
}

static void
test_pending (PrismMpiRun *run)
{
  for (guint i = 0; i < run->pending->len;)
    {
      Pending *pd = &g_array_index (run->pending, Pending, i);
      int flag = 0;
      int rc = MPI_Test (&pd->request, &flag, MPI_STATUS_IGNORE);

      if (rc != MPI_SUCCESS)
        {
          g_mutex_lock (&run->lock);
          lost_locked (run, pd->msg->dest, "MPI_Test", rc);
          g_mutex_unlock (&run->lock);
          flag = 1;
        }
      if (!flag)
        {
          i++;
          continue;
        }
      out_msg_free (pd->msg);
      g_array_remove_index_fast (run->pending, i);
    }
}

/* Every message that has arrived; whether there was any. */
static gboolean
receive_all (PrismMpiRun *run)
{
  gboolean any = FALSE;

  for (;;)
    {
      MPI_Status st;
      int flag = 0, count = 0, rc;
      char *buf;

      rc = MPI_Iprobe (MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
      if (rc != MPI_SUCCESS)
        {
          g_mutex_lock (&run->lock);
          lost_locked (run, -1, "MPI_Iprobe", rc);
          g_mutex_unlock (&run->lock);
          return any;
        }
      if (!flag)
        return any;
      MPI_Get_count (&st, MPI_BYTE, &count);
      buf = g_malloc (MAX (count, 1));
      rc = MPI_Recv (buf, count, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (rc != MPI_SUCCESS)
        {
          g_free (buf);
          g_mutex_lock (&run->lock);
          lost_locked (run, st.MPI_SOURCE, "MPI_Recv", rc);
          g_mutex_unlock (&run->lock);
          return any;
        }
      g_mutex_lock (&run->lock);
      run->received++;
      g_mutex_unlock (&run->lock);
      any = TRUE;
      {
        g_autoptr(GBytes) data = g_bytes_new_take (buf, (gsize) count);
        handle (run, st.MPI_SOURCE, st.MPI_TAG, data);
      }
    }
}

static void
periodic (PrismMpiRun *run, PrismPipeline *p)
{
  gint64 now = g_get_monotonic_time ();

  if (p == NULL || now - run->last_stats_us < STATS_INTERVAL_US)
    return;
  run->last_stats_us = now;
  if (run->rank == 0)
    prism_pipeline_set_ranks (p, ranks_to_json (run, p));
  else
    worker_stats (run, p, FALSE);
}

static gpointer
comm_main (gpointer data)
{
  PrismMpiRun *run = data;
  guint64 sleep_us = BUSY_SLEEP_US;
  gint64 flush_deadline = 0;

  for (;;)
    {
      OutMsg *m = g_async_queue_timeout_pop (run->outbox, sleep_us);
      gboolean busy = m != NULL;
      PrismPipeline *p;

      for (; m != NULL; m = g_async_queue_try_pop (run->outbox))
        send_now (run, m);
      test_pending (run);
      g_mutex_lock (&run->lock);
      p = run->pipeline;
      g_mutex_unlock (&run->lock);
      /* Rank 0 leaves messages waiting until its pipeline can take them. */
      if (run->rank != 0 || p != NULL)
        busy |= receive_all (run);
      if (run->rank == 0 && p != NULL)
        tune_retry (run, p);
      periodic (run, p);

      if (g_atomic_int_get (&run->quit))
        {
          if (flush_deadline == 0)
            flush_deadline = g_get_monotonic_time () + FLUSH_LIMIT_US;
          if ((run->pending->len == 0 && g_async_queue_length (run->outbox) <= 0) ||
              g_get_monotonic_time () > flush_deadline)
            break;
        }
      sleep_us = busy ? BUSY_SLEEP_US : MIN (sleep_us * 2, IDLE_SLEEP_US);
    }
  return NULL;
}

/* ------------------------------------------------------------------------ */
/* The pipeline's callbacks */

static void
started (PrismPipeline *p, gpointer user_data)
{
  PrismMpiRun *run = user_data;
  gboolean stop;

  g_mutex_lock (&run->lock);
  run->pipeline = p;
  stop = run->stopping;
  g_mutex_unlock (&run->lock);
  if (run->rank != 0)
    {
      const char *fp = prism_pipeline_get_peer_fingerprint (p);
      post (run, 0, TAG_HELLO, g_bytes_new (fp, strlen (fp)));
    }
  if (stop)
    prism_pipeline_stop (p);
}

static guint
claim_task (PrismPipeline *p, guint from, gpointer user_data)
{
  PrismMpiRun *run = user_data;
  guint k = G_MAXUINT;

  if (run->rank == 0)
    {
      g_mutex_lock (&run->lock);
      while (!gate_open_locked (run))
        g_cond_wait (&run->cond, &run->lock);
      g_mutex_unlock (&run->lock);
      return prism_pipeline_claim (p, 0, from);
    }

  g_mutex_lock (&run->lock);
  if (run->stopping || run->ended)
    {
      g_mutex_unlock (&run->lock);
      return G_MAXUINT;
    }
  run->has_reply = FALSE;
  g_mutex_unlock (&run->lock);
  post_uint (run, 0, TAG_CLAIM, from);
  g_mutex_lock (&run->lock);
  while (!run->has_reply && !run->stopping && !run->ended)
    g_cond_wait (&run->cond, &run->lock);
  if (run->has_reply)
    k = run->reply == G_MAXUINT32 ? G_MAXUINT : run->reply;
  g_mutex_unlock (&run->lock);
  return k;
}

static void
task_finished (PrismPipeline *p, guint task, gboolean completed, GPtrArray *finds, gpointer user_data)
{
  PrismMpiRun *run = user_data;
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "task");
  json_builder_add_int_value (b, task);
  json_builder_set_member_name (b, "completed");
  json_builder_add_boolean_value (b, completed);
  json_builder_set_member_name (b, "finds");
  json_builder_begin_array (b);
  for (guint i = 0; i < finds->len; i++)
    {
      PrismTaskFind *f = g_ptr_array_index (finds, i);
      gboolean first;

      g_mutex_lock (&run->lock);
      first = g_hash_table_add (run->sent_digests, g_strdup (f->candidate->digest));
      g_mutex_unlock (&run->lock);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "digest");
      json_builder_add_string_value (b, f->candidate->digest);
      json_builder_set_member_name (b, "seq");
      json_builder_add_int_value (b, f->seq);
      if (first)
        {
          JsonNode *cn = prism_candidate_to_json (f->candidate);

          /* Numbered where it is published; the reader wants a number. */
          json_object_set_int_member (json_node_get_object (cn), "id", 1);
          json_builder_set_member_name (b, "candidate");
          json_builder_add_value (b, cn);
        }
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  post_json (run, 0, TAG_TASK, root);
}

static gboolean
all_ended_locked (PrismMpiRun *run)
{
  /* A rank's search is over when rank 0 starts the timings too. */
  if (run->rank != 0)
    return run->ended || run->tune_begun;
  for (int r = 1; r < run->size; r++)
    if (!run->ranks[r].done && !run->ranks[r].lost)
      return FALSE;
  return TRUE;
}

static gboolean
wait_peers (PrismPipeline *p, guint timeout_ms, gpointer user_data)
{
  PrismMpiRun *run = user_data;
  gint64 until = g_get_monotonic_time () + timeout_ms * (gint64) 1000;
  gboolean ended;

  gboolean send_done;

  g_mutex_lock (&run->lock);
  send_done = run->rank != 0 && !run->done_sent;
  run->done_sent = TRUE;
  g_mutex_unlock (&run->lock);
  /* Once: this rank's search ended, and every report of it is queued
   * before this (and arrives before it: MPI keeps one sender's order). */
  if (send_done)
    worker_stats (run, p, TRUE);
  g_mutex_lock (&run->lock);
  while (!(ended = all_ended_locked (run)))
    if (!g_cond_wait_until (&run->cond, &run->lock, until))
      break;
  g_mutex_unlock (&run->lock);
  if (ended && run->rank == 0)
    prism_pipeline_set_ranks (p, ranks_to_json (run, p));
  return ended;
}

static void
stop (PrismPipeline *p, gpointer user_data)
{
  PrismMpiRun *run = user_data;
  gboolean tell;

  g_mutex_lock (&run->lock);
  run->stopping = TRUE;
  tell = !run->stop_sent && !run->ended;
  run->stop_sent = TRUE;
  g_cond_broadcast (&run->cond);
  g_mutex_unlock (&run->lock);
  /* A stop of a rank > 0 (SIGTERM or Ctrl-C sent to it) is the run's:
   * rank 0 stops, and tells every rank, so that none waits for another. */
  if (tell && run->rank != 0)
    post (run, 0, TAG_STOP, NULL);
  else if (tell)
    {
      for (int r = 1; r < run->size; r++)
        post (run, r, TAG_STOP, NULL);
      /* Ranks waiting for their first task get none. */
      open_gate (run, p);
    }
}

static void
tune_begin (PrismPipeline *p, gpointer user_data)
{
  PrismMpiRun *run = user_data;

  g_mutex_lock (&run->lock);
  run->tuning = TRUE;
  g_mutex_unlock (&run->lock);
  for (int r = 1; r < run->size; r++)
    if (!run->ranks[r].lost)
      post (run, r, TAG_TUNE_BEGIN, NULL);
}

static gboolean
tune_ready (PrismPipeline *p, const char *device, const char *why, gpointer user_data)
{
  PrismMpiRun *run = user_data;
  g_autoptr(JsonBuilder) b = NULL;
  g_autoptr(JsonNode) root = NULL;
  gboolean on;

  g_mutex_lock (&run->lock);
  on = run->tune_begun && !run->ended && !run->stopping;
  g_mutex_unlock (&run->lock);
  if (!on)
    return FALSE;
  b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, device != NULL ? "device" : "why");
  json_builder_add_string_value (b, device != NULL ? device : why ? why : "?");
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  post_json (run, 0, TAG_TUNE_READY, root);
  return TRUE;
}

static JsonNode *
tune_next (PrismPipeline *p, gpointer user_data)
{
  PrismMpiRun *run = user_data;
  g_autoptr(GBytes) job = NULL;

  g_mutex_lock (&run->lock);
  if (run->stopping || run->ended)
    {
      g_mutex_unlock (&run->lock);
      return NULL;
    }
  run->has_job = FALSE;
  g_mutex_unlock (&run->lock);
  post (run, 0, TAG_TUNE_CLAIM, NULL);
  g_mutex_lock (&run->lock);
  while (!run->has_job && !run->stopping && !run->ended)
    g_cond_wait (&run->cond, &run->lock);
  if (run->has_job)
    job = g_steal_pointer (&run->job);
  run->has_job = FALSE;
  g_mutex_unlock (&run->lock);
  /* Test hook: this rank dies during the timings, once rank 0 has its
   * first result (the answer to the next claim comes after it). */
  if (run->die_in_tune && run->tune_results > 0)
    raise (SIGKILL);
  return job != NULL && g_bytes_get_size (job) > 0 ? parse_json (job) : NULL;
}

static void
tune_result (PrismPipeline *p, JsonNode *result, gpointer user_data)
{
  PrismMpiRun *run = user_data;

  run->tune_results++;
  post_json (run, 0, TAG_TUNE_RESULT, result);
}

/* ------------------------------------------------------------------------ */
/* Start and end */

/* This rank's place among the ranks on its node (MPI-3 shared-memory
 * split; collective), for the choice of GPU. */
static int
local_rank_of (int rank)
{
  MPI_Comm node = MPI_COMM_NULL;
  int local = 0;

  if (MPI_Comm_split_type (MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node) != MPI_SUCCESS)
    return 0;
  MPI_Comm_rank (node, &local);
  MPI_Comm_free (&node);
  return local;
}

/* Started by mpirun (Open MPI, or a PMI launcher such as Hydra or Slurm). */
static gboolean
started_by_mpirun (void)
{
  return g_getenv ("OMPI_COMM_WORLD_SIZE") != NULL || g_getenv ("PMI_SIZE") != NULL ||
         g_getenv ("PMIX_RANK") != NULL;
}

PrismMpiRun *
prism_mpi_run_init (GError **error)
{
  PrismMpiRun *run;
  int provided = 0, rank = 0, size = 1;
  const char *die_rank;

  if (!started_by_mpirun ())
    return NULL;
  if (MPI_Init_thread (NULL, NULL, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED, _("MPI could not start (MPI_Init_thread)"));
      return NULL;
    }
  MPI_Comm_set_errhandler (MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  if (provided < MPI_THREAD_SERIALIZED)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED,
                   _("this MPI library does not let a second thread call it "
                     "(MPI_THREAD_SERIALIZED); prism search needs that"));
      MPI_Finalize ();
      return NULL;
    }

  run = g_new0 (PrismMpiRun, 1);
  run->rank = rank;
  run->size = size;
  g_mutex_init (&run->lock);
  g_cond_init (&run->cond);
  run->outbox = g_async_queue_new ();
  run->pending = g_array_new (FALSE, FALSE, sizeof (Pending));
  run->sent_digests = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  run->candidates = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                           (GDestroyNotify) prism_candidate_unref);
  run->ranks = g_new0 (RankInfo, size);
  run->early_claims = g_array_new (FALSE, FALSE, sizeof (ClaimAsk));
  run->peers.role = size == 1 ? PRISM_PIPELINE_ALONE
                    : rank == 0 ? PRISM_PIPELINE_GATHER : PRISM_PIPELINE_REPORT;
  run->peers.claim_task = claim_task;
  run->peers.task_finished = task_finished;
  run->peers.wait_peers = wait_peers;
  run->peers.stop = stop;
  run->peers.started = started;
  run->peers.rank = (guint) rank;
  run->peers.size = (guint) size;
  run->peers.tune_begin = tune_begin;
  run->peers.tune_ready = tune_ready;
  run->peers.tune_next = tune_next;
  run->peers.tune_result = tune_result;
  run->peers.user_data = run;
  run->local_rank = local_rank_of (rank);
  die_rank = g_getenv ("PRISM_MPI_TEST_DIE_RANK");
  if (die_rank != NULL && atoi (die_rank) == rank && rank != 0)
    run->die_after = (guint) MAX (atoi (g_getenv ("PRISM_MPI_TEST_DIE_AFTER") ?: "1"), 1);
  die_rank = g_getenv ("PRISM_MPI_TEST_SIGNAL_RANK");
  if (die_rank != NULL && atoi (die_rank) == rank && rank != 0)
    {
      run->signal_self = g_strcmp0 (g_getenv ("PRISM_MPI_TEST_SIGNAL"), "INT") == 0 ? SIGINT : SIGTERM;
      run->signal_after = (guint) MAX (atoi (g_getenv ("PRISM_MPI_TEST_SIGNAL_AFTER") ?: "1"), 1);
    }
  die_rank = g_getenv ("PRISM_MPI_TEST_DIE_TUNE_RANK");
  run->die_in_tune = die_rank != NULL && atoi (die_rank) == rank && rank != 0;
  return run;
}

guint
prism_mpi_run_get_rank (PrismMpiRun *run)
{
  return (guint) run->rank;
}

guint
prism_mpi_run_get_size (PrismMpiRun *run)
{
  return (guint) run->size;
}

guint
prism_mpi_run_get_local_rank (PrismMpiRun *run)
{
  return (guint) run->local_rank;
}

gboolean
prism_mpi_run_check_startup (PrismMpiRun *run, const GError *local, GError **error)
{
  char mine[STARTUP_MESSAGE_MAX] = "";
  char verdict[STARTUP_MESSAGE_MAX + 32] = "";
  g_autofree char *all = NULL;
  int ok = local == NULL, all_ok = 0;

  if (local != NULL)
    g_strlcpy (mine, local->message[0] ? local->message : "?", sizeof mine);
  /* Everyone learns whether all could start; only then the messages. */
  if (MPI_Allreduce (&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED, _("MPI failed at start-up (MPI_Allreduce)"));
      return FALSE;
    }
  if (all_ok)
    {
      /* From here on only the communication thread calls MPI. */
      run->comm = g_thread_new ("prism-mpi", comm_main, run);
      return TRUE;
    }
  if (run->rank == 0)
    all = g_malloc0 ((gsize) STARTUP_MESSAGE_MAX * run->size);
  MPI_Gather (mine, STARTUP_MESSAGE_MAX, MPI_CHAR, all, STARTUP_MESSAGE_MAX, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (run->rank == 0)
    for (int r = 0; r < run->size; r++)
      {
        char *msg = all + (gsize) r * STARTUP_MESSAGE_MAX;

        msg[STARTUP_MESSAGE_MAX - 1] = '\0';
        if (msg[0] != '\0')
          {
            /* TRANSLATORS: an MPI rank (a process of the job) and why it could not start */
            g_snprintf (verdict, sizeof verdict, _("rank %d: %s"), r, msg);
            break;
          }
      }
  MPI_Bcast (verdict, sizeof verdict, MPI_CHAR, 0, MPI_COMM_WORLD);
  verdict[sizeof verdict - 1] = '\0';
  g_set_error_literal (error, PRISM_ERROR, local ? local->code : PRISM_ERROR_FAILED, verdict);
  return FALSE;
}

const PrismPipelinePeers *
prism_mpi_run_get_peers (PrismMpiRun *run)
{
  return run->size > 1 ? &run->peers : NULL;
}

const char *
prism_mpi_run_get_problem (PrismMpiRun *run)
{
  return run->problem;
}

gboolean
prism_mpi_run_is_misconfigured (PrismMpiRun *run)
{
  return run->misconfigured;
}

void
prism_mpi_run_finish (PrismMpiRun *run)
{
  gboolean lost;

  if (run == NULL)
    return;
  if (run->comm != NULL)
    {
      gboolean say_done;

      /* A rank whose pipeline failed before its search never said DONE:
       * rank 0 must not wait for it. */
      g_mutex_lock (&run->lock);
      say_done = run->rank != 0 && !run->done_sent;
      run->done_sent = TRUE;
      g_mutex_unlock (&run->lock);
      if (say_done)
        post (run, 0, TAG_DONE, g_bytes_new_static ("{\"stop_reason\":\"error\"}", 23));
      /* After the timings rank 0 may still be at work: its END (or its
       * loss) ends the run here, as wait_peers does without timings. */
      g_mutex_lock (&run->lock);
      while (run->rank != 0 && !run->ended)
        g_cond_wait (&run->cond, &run->lock);
      g_mutex_unlock (&run->lock);
      if (run->rank == 0)
        for (int r = 1; r < run->size; r++)
          if (!run->ranks[r].lost)
            post (run, r, TAG_END, NULL);
      g_atomic_int_set (&run->quit, 1);
      g_thread_join (run->comm);
    }
  g_mutex_lock (&run->lock);
  lost = run->lost_any;
  g_mutex_unlock (&run->lock);
  /* With a rank gone, MPI_Finalize would wait for it. */
  if (!lost)
    MPI_Finalize ();
  for (guint i = 0; i < run->pending->len; i++)
    out_msg_free (g_array_index (run->pending, Pending, i).msg);
  g_array_unref (run->pending);
  g_array_unref (run->early_claims);
  g_async_queue_unref (run->outbox);
  g_hash_table_unref (run->sent_digests);
  g_hash_table_unref (run->candidates);
  g_clear_pointer (&run->job, g_bytes_unref);
  for (int r = 0; r < run->size; r++)
    g_free (run->ranks[r].stop_reason);
  g_free (run->ranks);
  g_free (run->problem);
  g_mutex_clear (&run->lock);
  g_cond_clear (&run->cond);
  g_free (run);
}

#else /* !PRISM_HAVE_MPI */

/* Built without MPI: always one process. */
PrismMpiRun *
prism_mpi_run_init (GError **error)
{
  return NULL;
}

guint
prism_mpi_run_get_rank (PrismMpiRun *run)
{
  return 0;
}

guint
prism_mpi_run_get_size (PrismMpiRun *run)
{
  return 1;
}

guint
prism_mpi_run_get_local_rank (PrismMpiRun *run)
{
  return 0;
}

gboolean
prism_mpi_run_check_startup (PrismMpiRun *run, const GError *local, GError **error)
{
  return TRUE;
}

const PrismPipelinePeers *
prism_mpi_run_get_peers (PrismMpiRun *run)
{
  return NULL;
}

const char *
prism_mpi_run_get_problem (PrismMpiRun *run)
{
  return NULL;
}

gboolean
prism_mpi_run_is_misconfigured (PrismMpiRun *run)
{
  return FALSE;
}

void
prism_mpi_run_finish (PrismMpiRun *run)
{
}

#endif /* PRISM_HAVE_MPI */
