/* prism-search-model.c — what the explorer shows of a running search
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "prism-search-model"

#include "config.h"

#include <string.h>
#include <glib/gi18n.h>

#include "prism-format.h"
#include "prism-search-model.h"

/* The model lives on the main thread: the session hands it batches of
 * events there, and the views read it there. Applying a batch is cheap
 * (counters and at most a few list rows); the views learn of it through
 * "changed", which is coalesced so that they redraw at most ~30 times a
 * second however often batches come. */
#define CHANGED_INTERVAL_US (G_USEC_PER_SEC / 30)

/* States per second are measured over about this much search time. */
#define RATE_WINDOW_S 1.0
#define N_RATE_SAMPLES 32

typedef struct
{
  double time_s;
  guint64 states;
} RateSample;

struct _PrismSearchModel
{
  GObject parent_instance;

  PrismSearchState state;
  char *stop_reason;
  char *error;
  PrismRunStats stats;
  double elapsed_s;
  PrismSearchDepth depths[PRISM_SEARCH_MAX_DEPTH];
  gboolean pruned_by_depth;
  guint64 sgraphs;
  guint64 verified;
  guint64 rejected;

  RateSample rate[N_RATE_SAMPLES];
  guint rate_head;
  guint rate_len;
  double states_per_s;

  /* Candidates: at most max_candidates rows, the fastest ones. */
  GListStore *candidates;
  GHashTable *by_digest;        /* digest → PrismCandidateRow (borrowed from the store) */
  guint max_candidates;
  guint hidden_candidates;
  guint n_external;             /* rows of graphs from elsewhere (Mirage's), beside the run's */
  PrismCandidateRow *best;      /* owned */

  /* Speedup over time. */
  GArray *best_series;          /* PrismSpeedupPoint, one per new best */
  GArray *points;               /* PrismSpeedupPoint, one per candidate */
  guint max_points;
  guint hidden_points;
  guint run;                    /* bumped by each reset: a new search */

  /* Timing on the GPU after the search (TUNING and MEASURED events). */
  gboolean has_tuning;
  PrismTuneStatus tune_status;
  char *tune_message;           /* the GPU, or why nothing is timed */
  guint tune_timed;             /* programs timed so far, the baseline included */
  guint tune_count;
  guint tune_failed;
  char *tune_error;             /* the last failure */
  double baseline_measured_us;  /* < 0: not measured */
  char *baseline;               /* "vendor", "prism-lowered" */
  char *measured_baseline;      /* how the unfused program ran on the GPU, when timed */

  /* Pruning decisions the search sampled (PRUNED_SAMPLE events, owned),
   * at most PRISM_SEARCH_MAX_SAMPLES: a resumed run samples again. */
  GPtrArray *samples;
  guint hidden_samples;

  /* Coalescing of "changed". */
  guint changed_source;
  gint64 last_changed_us;
  guint dirty : 1;
};

G_DEFINE_FINAL_TYPE (PrismSearchModel, prism_search_model, G_TYPE_OBJECT)

enum {
  CHANGED,
  N_SIGNALS
};

static guint signals [N_SIGNALS];

/*
 * Auxiliary methods
 */

static gboolean
emit_changed_cb (gpointer user_data)
{
  PrismSearchModel *self = user_data;

  self->changed_source = 0;
  prism_search_model_flush (self);
  return G_SOURCE_REMOVE;
}

static void
queue_changed (PrismSearchModel *self)
{
  gint64 now, due;

  self->dirty = TRUE;
  if (self->changed_source != 0)
    return;

  now = g_get_monotonic_time ();
  due = self->last_changed_us + CHANGED_INTERVAL_US;
  if (due <= now)
    self->changed_source = g_idle_add_full (G_PRIORITY_DEFAULT_IDLE, emit_changed_cb, self, NULL);
  else
    self->changed_source = g_timeout_add_full (G_PRIORITY_DEFAULT_IDLE,
                                               (guint) ((due - now + 999) / 1000),
                                               emit_changed_cb, self, NULL);
  g_source_set_name_by_id (self->changed_source, "[prism] search model changed");
}

/* Thins a series to half its points, keeping the first and last, when it is
 * full; returns how many points were dropped. */
static guint
thin_series (GArray *series,
             guint   max_points)
{
  guint kept = 0;
  guint before = series->len;

  if (series->len < max_points || series->len < 4)
    return 0;
  for (guint i = 0; i < series->len; i++)
    if (i % 2 == 0 || i == series->len - 1)
      g_array_index (series, PrismSpeedupPoint, kept++) = g_array_index (series, PrismSpeedupPoint, i);
  g_array_set_size (series, kept);
  return before - kept;
}

static void
add_point (PrismSearchModel        *self,
           GArray                  *series,
           const PrismSpeedupPoint *point)
{
  guint dropped = thin_series (series, self->max_points);

  if (series == self->points)
    self->hidden_points += dropped;
  g_array_append_val (series, *point);
}

static void
update_rate (PrismSearchModel *self,
             double            time_s,
             guint64           states)
{
  RateSample *oldest = NULL;

  self->rate[self->rate_head] = (RateSample) { time_s, states };
  self->rate_head = (self->rate_head + 1) % N_RATE_SAMPLES;
  self->rate_len = MIN (self->rate_len + 1, N_RATE_SAMPLES);

  /* The newest sample at least a window old, else the oldest kept. */
  for (guint k = 1; k < self->rate_len; k++)
    {
      guint i = (self->rate_head + N_RATE_SAMPLES - 1 - k) % N_RATE_SAMPLES;

      oldest = &self->rate[i];
      if (time_s - oldest->time_s >= RATE_WINDOW_S)
        break;
    }
  if (oldest != NULL && time_s > oldest->time_s && states >= oldest->states)
    self->states_per_s = (states - oldest->states) / (time_s - oldest->time_s);
}

static void
apply_stats (PrismSearchModel    *self,
             const PrismRunStats *stats,
             double               time_s)
{
  guint64 by_depth = 0;

  self->stats = *stats;
  for (guint d = 0; d < PRISM_SEARCH_MAX_DEPTH; d++)
    self->depths[d].states = stats->search.states_by_depth[d];
  /* The engine counts a cut branch at the depth of the state it would have
   * extended; the tree shows it one depth down, beside the states that were
   * reached there, so each depth holds every branch met on the way to it. */
  for (guint d = 0; d < PRISM_SEARCH_MAX_DEPTH; d++)
    memset (self->depths[d].pruned, 0, sizeof self->depths[d].pruned);
  for (guint d = 0; d < PRISM_SEARCH_MAX_DEPTH; d++)
    for (guint r = 0; r < PRISM_N_PRUNE_REASONS; r++)
      {
        guint64 n = stats->search.pruned_by_depth[d][r];

        self->depths[MIN (d + 1, PRISM_SEARCH_MAX_DEPTH - 1)].pruned[r] += n;
        by_depth += n;
      }
  /* Counters from before they were kept by depth (an older results file
   * resumed) only have totals: then the chart shows those. */
  self->pruned_by_depth = by_depth == prism_search_stats_total_pruned (&stats->search);
  update_rate (self, MAX (time_s, stats->search.elapsed_s), stats->search.states);
}

static PrismCandidateRow *
find_slowest (PrismSearchModel *self,
              guint            *position)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->candidates));
  PrismCandidateRow *slowest = NULL;

  for (guint i = 0; i < n; i++)
    {
      PrismCandidateRow *row = g_list_model_get_item (G_LIST_MODEL (self->candidates), i);

      /* The cap is on the run's candidates: a graph the user added stays. */
      if (prism_candidate_row_is_external (row))
        {
          g_object_unref (row);
          continue;
        }
      if (slowest == NULL ||
          prism_candidate_row_get_speedup (row) < prism_candidate_row_get_speedup (slowest))
        {
          slowest = row;
          *position = i;
        }
      g_object_unref (row);  /* the store keeps it alive */
    }
  return slowest;
}

static void
set_best (PrismSearchModel  *self,
          PrismCandidateRow *row,
          double             time_s)
{
  PrismSpeedupPoint point;

  g_set_object (&self->best, row);
  point.time_s = time_s;
  point.speedup = prism_candidate_row_get_speedup (row);
  point.id = prism_candidate_row_get_id (row);
  point.measured = prism_candidate_row_get_measured (row);
  add_point (self, self->best_series, &point);
}

/* Adds a verified candidate, or counts it as hidden when the table is full
 * of faster ones. Rows to append are collected in @added and spliced into
 * the store at the end of the batch, so a batch is one change. */
static void
add_candidate (PrismSearchModel *self,
               PrismCandidate   *candidate,
               guint             id,
               double            time_s,
               GPtrArray        *added)
{
  g_autoptr(PrismCandidateRow) row = NULL;
  PrismSpeedupPoint point;
  guint n_rows;

  if (candidate->digest != NULL && g_hash_table_contains (self->by_digest, candidate->digest))
    return;

  /* The id the run published the candidate with, which never changes. */
  row = prism_candidate_row_new (candidate, id);
  prism_candidate_row_set_announced_at (row, time_s);
  point.time_s = time_s;
  point.speedup = prism_candidate_row_get_speedup (row);
  point.id = prism_candidate_row_get_id (row);
  point.measured = FALSE;
  add_point (self, self->points, &point);

  /* A candidate slower than the program is never the best one. */
  if (point.speedup > 1.0 &&
      (self->best == NULL || point.speedup > prism_candidate_row_get_speedup (self->best)))
    set_best (self, row, time_s);

  n_rows = g_list_model_get_n_items (G_LIST_MODEL (self->candidates)) - self->n_external + added->len;
  if (n_rows >= self->max_candidates)
    {
      guint position = 0;
      PrismCandidateRow *slowest;

      /* Flush what is pending so that the slowest is looked up among all. */
      if (added->len > 0)
        {
          g_list_store_splice (self->candidates,
                               g_list_model_get_n_items (G_LIST_MODEL (self->candidates)), 0,
                               added->pdata, added->len);
          g_ptr_array_set_size (added, 0);
        }
      slowest = find_slowest (self, &position);
      self->hidden_candidates++;
      if (slowest == NULL || prism_candidate_row_get_speedup (slowest) >= point.speedup)
        return;
      if (prism_candidate_row_get_candidate (slowest)->digest != NULL)
        g_hash_table_remove (self->by_digest, prism_candidate_row_get_candidate (slowest)->digest);
      g_list_store_remove (self->candidates, position);
    }

  if (candidate->digest != NULL)
    g_hash_table_insert (self->by_digest, g_strdup (candidate->digest), row);
  g_ptr_array_add (added, g_steal_pointer (&row));
}

static void
apply_tuning (PrismSearchModel *self,
              const PrismEvent *event)
{
  const PrismMeasurement *m = event->measurement;

  self->has_tuning = TRUE;
  self->tune_count = MAX (self->tune_count, event->tune_count);
  if (event->kind == PRISM_EVENT_TUNING)
    {
      self->tune_status = event->tune_status;
      g_free (self->tune_message);
      self->tune_message = g_strdup (event->message);
      return;
    }
  if (m == NULL)
    return;
  self->tune_timed = MAX (self->tune_timed, event->tune_index);
  if (m->error != NULL)
    {
      g_autofree char *what = event->candidate != NULL
        ? g_strdup_printf (_("candidate %u"), event->id)
        : g_strdup (_("the unfused program"));

      self->tune_failed++;
      g_free (self->tune_error);
      /* Translators: a program that could not be timed on the GPU, and why */
      self->tune_error = g_strdup_printf (_("%s failed: %s"), what, m->error);
      return;
    }
  if (event->candidate == NULL)
    {
      self->baseline_measured_us = m->median_us;
      g_free (self->measured_baseline);
      self->measured_baseline = g_strdup (event->message);
    }
  else if (m->speedup > 0)
    prism_search_model_set_measured (self, event->candidate->digest, m->median_us, m->speedup);
}

static void
apply_one (PrismSearchModel *self,
           const PrismEvent *event,
           GPtrArray        *added)
{
  guint depth;

  self->elapsed_s = MAX (self->elapsed_s, event->time_s);
  if (self->state == PRISM_SEARCH_STATE_IDLE)
    self->state = PRISM_SEARCH_STATE_RUNNING;

  switch (event->kind)
    {
    case PRISM_EVENT_PROGRESS:
      apply_stats (self, &event->stats, event->time_s);
      break;

    case PRISM_EVENT_SGRAPH:
      depth = prism_search_depth_of_graph (event->graph);
      self->depths[depth].sgraphs++;
      self->sgraphs++;
      break;

    case PRISM_EVENT_VERIFIED:
      if (event->candidate == NULL)
        break;
      depth = prism_search_depth_of_graph (event->candidate->graph);
      self->depths[depth].verified++;
      self->verified++;
      add_candidate (self, event->candidate, event->id, event->time_s, added);
      break;

    case PRISM_EVENT_BEST:
      /* The VERIFIED event before it already made it the best; a BEST for a
       * candidate not seen (a resumed run) adds it. */
      if (event->candidate != NULL)
        add_candidate (self, event->candidate, event->id, event->time_s, added);
      break;

    case PRISM_EVENT_REJECTED:
      depth = prism_search_depth_of_graph (event->graph);
      self->depths[depth].rejected++;
      self->rejected++;
      break;

    case PRISM_EVENT_FINISHED:
      apply_stats (self, &event->stats, event->time_s);
      if (self->state != PRISM_SEARCH_STATE_FAILED)
        self->state = PRISM_SEARCH_STATE_FINISHED;
      g_free (self->stop_reason);
      self->stop_reason = g_strdup (event->message);
      break;

    case PRISM_EVENT_ERROR:
      self->state = PRISM_SEARCH_STATE_FAILED;
      g_free (self->error);
      self->error = g_strdup (event->message);
      break;

    case PRISM_EVENT_TUNING:
    case PRISM_EVENT_MEASURED:
      apply_tuning (self, event);
      break;

    case PRISM_EVENT_PRUNED_SAMPLE:
      if (event->sample == NULL)
        break;
      if (self->samples->len < PRISM_SEARCH_MAX_SAMPLES)
        g_ptr_array_add (self->samples, prism_event_ref ((PrismEvent *) event));
      else
        self->hidden_samples++;
      break;

    default:
      break;
    }
}

/*
 * GObject overrides
 */

static void
prism_search_model_dispose (GObject *object)
{
  PrismSearchModel *self = (PrismSearchModel *)object;

  g_clear_handle_id (&self->changed_source, g_source_remove);

  G_OBJECT_CLASS (prism_search_model_parent_class)->dispose (object);
}

static void
prism_search_model_finalize (GObject *object)
{
  PrismSearchModel *self = (PrismSearchModel *)object;

  g_clear_pointer (&self->by_digest, g_hash_table_unref);
  g_clear_pointer (&self->samples, g_ptr_array_unref);
  g_clear_object (&self->candidates);
  g_clear_object (&self->best);
  g_clear_pointer (&self->best_series, g_array_unref);
  g_clear_pointer (&self->points, g_array_unref);
  g_clear_pointer (&self->stop_reason, g_free);
  g_clear_pointer (&self->error, g_free);
  g_clear_pointer (&self->tune_message, g_free);
  g_clear_pointer (&self->tune_error, g_free);
  g_clear_pointer (&self->baseline, g_free);
  g_clear_pointer (&self->measured_baseline, g_free);

  G_OBJECT_CLASS (prism_search_model_parent_class)->finalize (object);
}

static void
prism_search_model_class_init (PrismSearchModelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = prism_search_model_dispose;
  object_class->finalize = prism_search_model_finalize;

  /**
   * PrismSearchModel::changed:
   *
   * Something shown changed; emitted at most ~30 times a second, from the
   * main loop, never from within prism_search_model_apply_events().
   */
  signals [CHANGED] =
    g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
prism_search_model_init (PrismSearchModel *self)
{
  self->candidates = g_list_store_new (PRISM_TYPE_CANDIDATE_ROW);
  self->by_digest = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->best_series = g_array_new (FALSE, FALSE, sizeof (PrismSpeedupPoint));
  self->points = g_array_new (FALSE, FALSE, sizeof (PrismSpeedupPoint));
  self->samples = g_ptr_array_new_with_free_func ((GDestroyNotify) prism_event_unref);
  self->max_candidates = PRISM_SEARCH_MODEL_MAX_CANDIDATES;
  self->max_points = PRISM_SEARCH_MODEL_MAX_POINTS;
  self->baseline_measured_us = -1;
}

/*
 * Public API
 */

PrismSearchModel *
prism_search_model_new (void)
{
  return g_object_new (PRISM_TYPE_SEARCH_MODEL, NULL);
}

/**
 * prism_search_model_reset:
 *
 * Forgets everything, for a new search.
 */
void
prism_search_model_reset (PrismSearchModel *self)
{
  g_return_if_fail (PRISM_IS_SEARCH_MODEL (self));

  self->run++;
  self->state = PRISM_SEARCH_STATE_IDLE;
  g_clear_pointer (&self->stop_reason, g_free);
  g_clear_pointer (&self->error, g_free);
  memset (&self->stats, 0, sizeof self->stats);
  memset (self->depths, 0, sizeof self->depths);
  self->elapsed_s = 0;
  self->sgraphs = self->verified = self->rejected = 0;
  self->rate_head = self->rate_len = 0;
  self->states_per_s = 0;
  g_hash_table_remove_all (self->by_digest);
  g_list_store_remove_all (self->candidates);
  self->hidden_candidates = 0;
  self->n_external = 0;
  g_clear_object (&self->best);
  g_array_set_size (self->best_series, 0);
  g_array_set_size (self->points, 0);
  self->hidden_points = 0;
  g_ptr_array_set_size (self->samples, 0);
  self->hidden_samples = 0;
  self->has_tuning = FALSE;
  self->tune_timed = self->tune_count = self->tune_failed = 0;
  g_clear_pointer (&self->tune_message, g_free);
  g_clear_pointer (&self->tune_error, g_free);
  self->baseline_measured_us = -1;
  g_clear_pointer (&self->measured_baseline, g_free);
  queue_changed (self);
}

/**
 * prism_search_model_apply_events:
 * @events: (array length=n_events): a batch of events, in the order they happened
 *
 * Applies a batch from the session. Main thread only; the events are
 * borrowed (candidates in them are referenced by the rows).
 */
void
prism_search_model_apply_events (PrismSearchModel   *self,
                                 PrismEvent * const *events,
                                 guint               n_events)
{
  g_autoptr(GPtrArray) added = g_ptr_array_new_with_free_func (g_object_unref);

  g_return_if_fail (PRISM_IS_SEARCH_MODEL (self));
  g_return_if_fail (events != NULL || n_events == 0);

  for (guint i = 0; i < n_events; i++)
    apply_one (self, events[i], added);
  if (added->len > 0)
    g_list_store_splice (self->candidates, g_list_model_get_n_items (G_LIST_MODEL (self->candidates)),
                         0, added->pdata, added->len);
  if (n_events > 0)
    queue_changed (self);
}

void
prism_search_model_apply_event (PrismSearchModel *self,
                                const PrismEvent *event)
{
  PrismEvent *events[1] = { (PrismEvent *) event };

  prism_search_model_apply_events (self, events, 1);
}

/**
 * prism_search_model_add_external:
 * @candidate: a graph from elsewhere (a Mirage file's), verified against the
 *   program shown and priced like the run's candidates (a reference is taken)
 * @index: its number where it came from
 * @label: what people call it ("Mirage graph 2")
 * @source: (nullable): the file it came from, as shown to people
 *
 * Adds a row beside the run's candidates, to be looked at and compared with
 * them.  It is not one of the run's results: the counters, the speedup
 * chart and the best candidate leave it out, and the cap on rows does not
 * remove it; the next prism_search_model_reset() does.  A candidate whose
 * digest a row already has is not added again.
 *
 * Returns: %TRUE if a row was added
 */
gboolean
prism_search_model_add_external (PrismSearchModel *self,
                                 PrismCandidate   *candidate,
                                 guint             index,
                                 const char       *label,
                                 const char       *source)
{
  g_autoptr(PrismCandidateRow) row = NULL;

  g_return_val_if_fail (PRISM_IS_SEARCH_MODEL (self), FALSE);
  g_return_val_if_fail (candidate != NULL, FALSE);
  g_return_val_if_fail (label != NULL, FALSE);

  if (candidate->digest != NULL && g_hash_table_contains (self->by_digest, candidate->digest))
    return FALSE;
  row = prism_candidate_row_new_external (candidate, index, label, source);
  if (candidate->digest != NULL)
    g_hash_table_insert (self->by_digest, g_strdup (candidate->digest), row);
  self->n_external++;
  g_list_store_append (self->candidates, row);
  queue_changed (self);
  return TRUE;
}

/* Returns: how many rows prism_search_model_add_external() added since the
 *   last reset */
guint
prism_search_model_get_n_external (PrismSearchModel *self)
{
  g_return_val_if_fail (PRISM_IS_SEARCH_MODEL (self), 0);
  return self->n_external;
}

/**
 * prism_search_model_set_measured:
 * @digest: names the candidate
 *
 * Records a GPU measurement of a candidate: its row, its point and, if it
 * becomes the fastest, the best series use the measured speedup.
 */
void
prism_search_model_set_measured (PrismSearchModel *self,
                                 const char       *digest,
                                 double            measured_us,
                                 double            speedup)
{
  PrismCandidateRow *row;
  guint id;

  g_return_if_fail (PRISM_IS_SEARCH_MODEL (self));
  g_return_if_fail (digest != NULL);

  row = g_hash_table_lookup (self->by_digest, digest);
  if (row == NULL || prism_candidate_row_is_external (row))
    return;
  prism_candidate_row_set_measured (row, measured_us, speedup);
  id = prism_candidate_row_get_id (row);
  for (guint i = 0; i < self->points->len; i++)
    {
      PrismSpeedupPoint *point = &g_array_index (self->points, PrismSpeedupPoint, i);

      if (point->id == id && id != 0)
        {
          point->speedup = speedup;
          point->measured = TRUE;
        }
    }
  if (speedup > 1.0 && (self->best == NULL || row == self->best ||
                         speedup > prism_candidate_row_get_speedup (self->best)))
    set_best (self, row, self->elapsed_s);
  queue_changed (self);
}

/**
 * prism_search_model_set_caps:
 * @max_candidates: rows kept in the candidates table (the fastest)
 * @max_points: points kept per speedup series before it is thinned
 *
 * Changes the caps that keep memory bounded (tests use small ones).
 */
void
prism_search_model_set_caps (PrismSearchModel *self,
                             guint             max_candidates,
                             guint             max_points)
{
  g_return_if_fail (PRISM_IS_SEARCH_MODEL (self));
  g_return_if_fail (max_candidates > 0 && max_points >= 4);

  self->max_candidates = max_candidates;
  self->max_points = max_points;
}

/**
 * prism_search_model_flush:
 *
 * Emits a pending "changed" now.
 */
void
prism_search_model_flush (PrismSearchModel *self)
{
  g_return_if_fail (PRISM_IS_SEARCH_MODEL (self));

  g_clear_handle_id (&self->changed_source, g_source_remove);
  if (!self->dirty)
    return;
  self->dirty = FALSE;
  self->last_changed_us = g_get_monotonic_time ();
  g_signal_emit (self, signals [CHANGED], 0);
}

PrismSearchState
prism_search_model_get_state (PrismSearchModel *self)
{
  g_return_val_if_fail (PRISM_IS_SEARCH_MODEL (self), PRISM_SEARCH_STATE_IDLE);
  return self->state;
}

/* Returns: (nullable): why the search ended ("exhausted", "time limit", "stopped") */
const char *
prism_search_model_get_stop_reason (PrismSearchModel *self)
{
  g_return_val_if_fail (PRISM_IS_SEARCH_MODEL (self), NULL);
  return self->stop_reason;
}

/* Returns: (nullable): why the search could not go on */
const char *
prism_search_model_get_error (PrismSearchModel *self)
{
  g_return_val_if_fail (PRISM_IS_SEARCH_MODEL (self), NULL);
  return self->error;
}

/* Returns: (transfer none): the latest counters */
const PrismRunStats *
prism_search_model_get_stats (PrismSearchModel *self)
{
  g_return_val_if_fail (PRISM_IS_SEARCH_MODEL (self), NULL);
  return &self->stats;
}

double
prism_search_model_get_elapsed (PrismSearchModel *self)
{
  g_return_val_if_fail (PRISM_IS_SEARCH_MODEL (self), 0);
  return MAX (self->elapsed_s, self->stats.search.elapsed_s);
}

/**
 * prism_search_model_get_states_per_second:
 *
 * Returns: while the search runs, its states per second over the last few
 *   seconds; once it has ended (or was reopened from its results, which
 *   carry one figure of each counter), the run's average: a finished run
 *   explores no states, yet it did not explore 0 per second
 */
double
prism_search_model_get_states_per_second (PrismSearchModel *self)
{
  double elapsed;

  g_return_val_if_fail (PRISM_IS_SEARCH_MODEL (self), 0);

  if (self->state == PRISM_SEARCH_STATE_RUNNING || self->state == PRISM_SEARCH_STATE_IDLE)
    return self->states_per_s;
  elapsed = prism_search_model_get_elapsed (self);
  return elapsed > 0 ? self->stats.search.states / elapsed : 0;
}

/**
 * prism_search_model_dup_pace:
 *
 * The pace of a running search in words: its states per second, or, while
 * it explores none, what it does instead — every worker deciding a
 * candidate (sizes, screen, proof) or making the candidates of an sGraph
 * (maps, ranking), or the GPU timing the best ones after the search.  A bare "0 states/s" reads as a search that hangs.
 *
 * @is_rate: (out) (optional): set to whether the phrase is the states per second
 *
 * Returns: (transfer full): one translated phrase ("1.2 k states/s")
 */
char *
prism_search_model_dup_pace (PrismSearchModel *self,
                             gboolean         *is_rate)
{
  g_autofree char *count = NULL;
  guint64 rate;

  g_return_val_if_fail (PRISM_IS_SEARCH_MODEL (self), NULL);

  rate = (guint64) prism_search_model_get_states_per_second (self);
  if (is_rate != NULL)
    *is_rate = FALSE;
  if (self->state == PRISM_SEARCH_STATE_RUNNING && self->has_tuning &&
      self->tune_status == PRISM_TUNE_MEASURING)
    /* Translators: in the status line, in place of the states per second
     * once the search has ended and the GPU times its best candidates */
    return g_strdup (_("timing candidates on the GPU"));
  if (self->state == PRISM_SEARCH_STATE_RUNNING && rate == 0 && self->stats.deciding > 0)
    {
      count = prism_format_count (self->stats.deciding);
      /* Translators: in the status line, in place of "0 states/s" while
       * every worker decides (sizes, screens, proves) a candidate; %s is
       * their number */
      return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "deciding %s candidate",
                                           "deciding %s candidates",
                                           (gulong) MIN (self->stats.deciding, G_MAXULONG)),
                              count);
    }
  if (self->state == PRISM_SEARCH_STATE_RUNNING && rate == 0 && self->stats.instantiating > 0)
    {
      count = prism_format_count (self->stats.instantiating);
      /* Translators: in the status line, in place of "0 states/s" while
       * the workers make the candidates of sGraphs (maps, sizes) and
       * decide them; %s is the number of sGraphs */
      return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "making the candidates of %s sGraph",
                                           "making the candidates of %s sGraphs",
                                           (gulong) MIN (self->stats.instantiating, G_MAXULONG)),
                              count);
    }
  count = prism_format_count (rate);
  if (is_rate != NULL)
    *is_rate = TRUE;
  /* Translators: the search's pace in the status line */
  return g_strdup_printf (_("%s states/s"), count);
}

/* Returns: one more than the deepest depth anything happened at */
guint
prism_search_model_get_n_depths (PrismSearchModel *self)
{
  g_return_val_if_fail (PRISM_IS_SEARCH_MODEL (self), 0);

  for (guint d = PRISM_SEARCH_MAX_DEPTH; d > 0; d--)
    {
      const PrismSearchDepth *depth = &self->depths[d - 1];
      guint64 pruned = 0;

      for (guint r = 0; r < PRISM_N_PRUNE_REASONS; r++)
        pruned += depth->pruned[r];
      if (depth->states || pruned || depth->sgraphs || depth->verified || depth->rejected)
        return d;
    }
  return 0;
}

/**
 * prism_search_model_get_depth:
 * @depth: below %PRISM_SEARCH_MAX_DEPTH (the last one holds all deeper)
 *
 * Returns: (transfer none): the counters at @depth
 */
const PrismSearchDepth *
prism_search_model_get_depth (PrismSearchModel *self,
                              guint             depth)
{
  g_return_val_if_fail (PRISM_IS_SEARCH_MODEL (self), NULL);
  g_return_val_if_fail (depth < PRISM_SEARCH_MAX_DEPTH, NULL);
  return &self->depths[depth];
}

/* Whether the depths' pruned counters are filled; when not, only the
 * totals by reason (in the stats) are known. */
gboolean
prism_search_model_get_pruned_by_depth (PrismSearchModel *self)
{
  g_return_val_if_fail (PRISM_IS_SEARCH_MODEL (self), FALSE);
  return self->pruned_by_depth;
}

guint64
prism_search_model_get_sgraphs (PrismSearchModel *self)
{
  g_return_val_if_fail (PRISM_IS_SEARCH_MODEL (self), 0);
  return MAX (self->sgraphs, self->stats.search.sgraphs);
}

guint64
prism_search_model_get_verified (PrismSearchModel *self)
{
  g_return_val_if_fail (PRISM_IS_SEARCH_MODEL (self), 0);
  return MAX (self->verified, self->stats.verified);
}

guint64
prism_search_model_get_rejected (PrismSearchModel *self)
{
  g_return_val_if_fail (PRISM_IS_SEARCH_MODEL (self), 0);
  return MAX (self->rejected, self->stats.rejected);
}

/**
 * prism_search_model_get_candidates:
 *
 * Returns: (transfer none): the #PrismCandidateRow of each candidate shown,
 *   in the order they were verified
 */
GListModel *
prism_search_model_get_candidates (PrismSearchModel *self)
{
  g_return_val_if_fail (PRISM_IS_SEARCH_MODEL (self), NULL);
  return G_LIST_MODEL (self->candidates);
}

/* Returns: how many verified candidates the table does not show */
guint
prism_search_model_get_hidden_candidates (PrismSearchModel *self)
{
  g_return_val_if_fail (PRISM_IS_SEARCH_MODEL (self), 0);
  return self->hidden_candidates;
}

/* Returns: (transfer none) (nullable): the fastest candidate so far */
PrismCandidateRow *
prism_search_model_get_best (PrismSearchModel *self)
{
  g_return_val_if_fail (PRISM_IS_SEARCH_MODEL (self), NULL);
  return self->best;
}

/* Returns: the best speedup so far, 0 when none */
double
prism_search_model_get_best_speedup (PrismSearchModel *self)
{
  g_return_val_if_fail (PRISM_IS_SEARCH_MODEL (self), 0);
  return self->best ? prism_candidate_row_get_speedup (self->best) : 0;
}

gboolean
prism_search_model_get_best_measured (PrismSearchModel *self)
{
  g_return_val_if_fail (PRISM_IS_SEARCH_MODEL (self), FALSE);
  return self->best ? prism_candidate_row_get_measured (self->best) : FALSE;
}

/**
 * prism_search_model_get_best_series:
 * @n_points: (out): length of the series
 *
 * Returns: (transfer none) (array length=n_points): the best speedup each
 *   time it improved, in time order
 */
const PrismSpeedupPoint *
prism_search_model_get_best_series (PrismSearchModel *self,
                                    guint            *n_points)
{
  g_return_val_if_fail (PRISM_IS_SEARCH_MODEL (self), NULL);
  *n_points = self->best_series->len;
  return (const PrismSpeedupPoint *) self->best_series->data;
}

/**
 * prism_search_model_get_points:
 * @n_points: (out): length of the series
 *
 * Returns: (transfer none) (array length=n_points): every candidate's
 *   speedup when it was verified, in time order, thinned when long
 */
const PrismSpeedupPoint *
prism_search_model_get_points (PrismSearchModel *self,
                               guint            *n_points)
{
  g_return_val_if_fail (PRISM_IS_SEARCH_MODEL (self), NULL);
  *n_points = self->points->len;
  return (const PrismSpeedupPoint *) self->points->data;
}

/* Returns: a number that changes with each prism_search_model_reset(), so
 * that views can tell a new search from more of the same one. */
guint
prism_search_model_get_run (PrismSearchModel *self)
{
  g_return_val_if_fail (PRISM_IS_SEARCH_MODEL (self), 0);
  return self->run;
}

/* Returns: candidates' points dropped by thinning */
guint
prism_search_model_get_hidden_points (PrismSearchModel *self)
{
  g_return_val_if_fail (PRISM_IS_SEARCH_MODEL (self), 0);
  return self->hidden_points;
}

/**
 * prism_search_depth_of_graph:
 * @graph: (nullable): an sGraph or a candidate built from one
 *
 * The depth of the search tree at which the search completed @graph: one
 * step per kernel-level op, and for each custom kernel one to open it, one
 * per op of its body and one to close it. Deeper graphs share the last depth.
 *
 * Returns: the depth, below %PRISM_SEARCH_MAX_DEPTH
 */
guint
prism_search_depth_of_graph (const PrismGraph *graph)
{
  guint depth = 0;

  if (graph == NULL)
    return 0;
  for (guint i = 0; i < graph->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (graph, i);

      if (op->kind == PRISM_OP_INPUT || op->kind == PRISM_OP_OUTPUT)
        continue;
      depth++;
      if (op->body != NULL)
        {
          depth++;
          for (guint k = 0; k < op->body->ops->len; k++)
            {
              PrismOpKind kind = prism_graph_op (op->body, k)->kind;

              if (kind != PRISM_OP_INPUT && kind != PRISM_OP_OUTPUT)
                depth++;
            }
        }
    }
  return MIN (depth, PRISM_SEARCH_MAX_DEPTH - 1);
}

/**
 * prism_search_model_get_pruned_samples:
 * @first_depth: the first depth of the tree (the chart's row)
 * @last_depth: the last depth, ≥ @first_depth
 * @reason: why the branches were cut
 *
 * The sampled pruning decisions of the branches a row of the tree chart
 * counts for @reason: those cut while extending a state one depth above
 * (as #PrismSearchDepth's pruned), in the order they came.
 *
 * Returns: (transfer container) (element-type PrismPruneSample): the
 *   samples, borrowed from the model (valid until its next reset)
 */
GPtrArray *
prism_search_model_get_pruned_samples (PrismSearchModel *self,
                                       guint             first_depth,
                                       guint             last_depth,
                                       PrismPruneReason  reason)
{
  GPtrArray *out;

  g_return_val_if_fail (PRISM_IS_SEARCH_MODEL (self), NULL);

  out = g_ptr_array_new ();
  for (guint i = 0; i < self->samples->len; i++)
    {
      const PrismEvent *e = g_ptr_array_index (self->samples, i);
      guint depth = MIN (e->sample->depth + 1, PRISM_SEARCH_MAX_DEPTH - 1);

      if (e->sample->reason == reason && depth >= first_depth && depth <= last_depth)
        g_ptr_array_add (out, e->sample);
    }
  return out;
}

/* Samples the model did not keep, past PRISM_SEARCH_MAX_SAMPLES. */
guint
prism_search_model_get_hidden_samples (PrismSearchModel *self)
{
  g_return_val_if_fail (PRISM_IS_SEARCH_MODEL (self), 0);
  return self->hidden_samples;
}

static void
append_tensors (GString *out, const char *prefix, const guint *ids, guint n)
{
  for (guint i = 0; i < n; i++)
    g_string_append_printf (out, "%s%s%u", i > 0 ? ", " : "", prefix, ids[i]);
}

static char *
op_step (const PrismOp *op, const char *prefix)
{
  GString *out = g_string_new (prism_op_kind_to_string (op->kind));

  g_string_append_c (out, '(');
  append_tensors (out, prefix, op->inputs, op->n_inputs);
  g_string_append_c (out, ')');
  return g_string_free (out, FALSE);
}

/**
 * prism_search_path_of_graph:
 * @graph: (nullable): a candidate's kernel graph
 *
 * The steps the search took from the input program to @graph, in order.
 * The search appends every op it adds, so a graph's op order is its build
 * order: each kernel-level op is a step, and each custom kernel is one step
 * to open it, one per op of its body and one to close it (as
 * prism_search_depth_of_graph() counts them; inputs and outputs are not
 * steps).  Tensors are named as the pruned samples name them: t3 at kernel
 * level, b2 in a body.
 *
 * Returns: (transfer full) (element-type utf8): the steps
 */
GPtrArray *
prism_search_path_of_graph (const PrismGraph *graph)
{
  GPtrArray *steps = g_ptr_array_new_with_free_func (g_free);
  guint kernel = 0;

  for (guint i = 0; graph != NULL && i < graph->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (graph, i);
      GString *open;

      if (op->kind == PRISM_OP_INPUT || op->kind == PRISM_OP_OUTPUT)
        continue;
      if (op->body == NULL)
        {
          g_ptr_array_add (steps, op_step (op, "t"));
          continue;
        }
      kernel++;
      open = g_string_new (NULL);
      /* Translators: opening custom kernel %u over the tensors that follow */
      g_string_append_printf (open, _("open kernel %u over "), kernel);
      append_tensors (open, "t", op->inputs, op->n_inputs);
      g_ptr_array_add (steps, g_string_free (open, FALSE));
      for (guint k = 0; k < op->body->ops->len; k++)
        {
          const PrismOp *bop = prism_graph_op (op->body, k);
          g_autofree char *step = NULL;

          if (bop->kind == PRISM_OP_INPUT || bop->kind == PRISM_OP_OUTPUT)
            continue;
          step = op_step (bop, "b");
          g_ptr_array_add (steps, g_strdup_printf (_("kernel %u: %s"), kernel, step));
        }
      {
        GString *close = g_string_new (NULL);
        /* Translators: closing custom kernel %u, which writes the tensors that follow */
        g_string_append_printf (close, _("close kernel %u, writing "), kernel);
        append_tensors (close, "t", op->outputs, op->n_outputs);
        g_ptr_array_add (steps, g_string_free (close, FALSE));
      }
    }
  return steps;
}

/**
 * prism_search_model_get_gpu_status:
 * @tooltip: (out) (optional) (transfer full) (nullable): the details
 *
 * Says whether the speedups are measured on a GPU or predicted: nothing
 * before the search ends, then "No GPU: …", "Measuring on … 2 of 6",
 * "Measured on …", with the last failure if a program could not be timed.
 *
 * Returns: (transfer full) (nullable): one line, translated
 */
char *
prism_search_model_get_gpu_status (PrismSearchModel  *self,
                                   char             **tooltip)
{
  g_autofree char *line = NULL;

  g_return_val_if_fail (PRISM_IS_SEARCH_MODEL (self), NULL);

  if (tooltip != NULL)
    *tooltip = NULL;
  if (!self->has_tuning)
    return NULL;
  switch (self->tune_status)
    {
    case PRISM_TUNE_MEASURING:
      /* Translators: the GPU the candidates are being timed on, programs timed, programs to time */
      line = g_strdup_printf (_("Measuring on %s: %u of %u"), self->tune_message, self->tune_timed,
                              self->tune_count);
      break;
    case PRISM_TUNE_DONE:
      /* Translators: programs timed, programs to time, the GPU */
      line = g_strdup_printf (_("Measured %u of %u on %s"), self->tune_timed, self->tune_count,
                              self->tune_message);
      break;
    case PRISM_TUNE_NO_GPU:
      line = g_strdup (_("No GPU: speedups are predicted by the cost model"));
      break;
    case PRISM_TUNE_OFF:
      line = g_strdup (_("GPU tuning is off: speedups are predicted by the cost model"));
      break;
    case PRISM_TUNE_STOPPED:
      line = g_strdup (_("Stopped before the GPU timed anything: speedups are predicted"));
      break;
    case PRISM_TUNE_NOTHING:
    default:
      line = g_strdup (_("Nothing to time on the GPU"));
      break;
    }
  if (self->tune_error != NULL)
    {
      char *both = g_strdup_printf ("%s — %s", line, self->tune_error);

      g_free (line);
      line = both;
    }
  if (tooltip != NULL && self->tune_message != NULL &&
      (self->tune_status == PRISM_TUNE_NO_GPU || self->tune_error != NULL))
    *tooltip = self->tune_error != NULL ? g_strdup (self->tune_error) : g_strdup (self->tune_message);
  return g_steal_pointer (&line);
}

/* Returns: the unfused program's time measured on the GPU, or -1 */
double
prism_search_model_get_baseline_measured_us (PrismSearchModel *self)
{
  g_return_val_if_fail (PRISM_IS_SEARCH_MODEL (self), -1);
  return self->baseline_measured_us;
}

void
prism_search_model_set_baseline (PrismSearchModel *self, const char *kind)
{
  g_return_if_fail (PRISM_IS_SEARCH_MODEL (self));
  g_free (self->baseline);
  self->baseline = g_strdup (kind);
}

const char *
prism_search_model_get_baseline (PrismSearchModel *self)
{
  g_return_val_if_fail (PRISM_IS_SEARCH_MODEL (self), NULL);
  return self->baseline != NULL ? self->baseline : "vendor";
}

const char *
prism_search_model_get_baseline_label (PrismSearchModel *self)
{
  const char *kind = prism_search_model_get_baseline (self);

  /* Measured speedups are against what could be timed: without cuBLASLt
   * the vendor baseline runs as Prism lowers it. */
  if (self->measured_baseline != NULL && !g_str_equal (self->measured_baseline, kind))
    return _("the unfused program as Prism lowers it (cuBLASLt could not be timed)");
  if (g_str_equal (kind, "prism-lowered"))
    return _("the unfused program, every op as Prism lowers it");
  return _("the unfused program, its matmuls through cuBLASLt");
}
