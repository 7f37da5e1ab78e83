/* prism-session.c — one optimization run on a worker thread, streaming events
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Threads: the creator's thread (usually the main thread) owns the GObject
 * side: state, signals, notifications.  One worker thread runs the
 * pipeline; the pipeline's search runs its own pool under it.  Commands go
 * from the creator to the worker through a GAsyncQueue that the worker
 * drains on every tick (about 30 a second).  Events come from any of the
 * run's threads into a pending batch under a lock; the worker flushes it on
 * every tick with an idle source attached to the creator's context, so
 * at most ~30 deliveries a second reach the UI, however fast events come.
 */
#include "config.h"

#ifdef __linux__
#include <errno.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include <gio/gio.h>

#include "prism-search.h"
#include "prism-session.h"

#define DEFAULT_MAX_EVENTS 32
#define BACKGROUND_NICE    10

G_DEFINE_ENUM_TYPE (PrismSessionState, prism_session_state,
                    G_DEFINE_ENUM_VALUE (PRISM_SESSION_IDLE, "idle"),
                    G_DEFINE_ENUM_VALUE (PRISM_SESSION_RUNNING, "running"),
                    G_DEFINE_ENUM_VALUE (PRISM_SESSION_PAUSED, "paused"),
                    G_DEFINE_ENUM_VALUE (PRISM_SESSION_FINISHED, "finished"))

typedef enum
{
  COMMAND_PAUSE,
  COMMAND_RESUME,
  COMMAND_STOP,
  COMMAND_BUDGET,
} CommandKind;

typedef struct
{
  CommandKind kind;
  double value;
} Command;

struct _PrismSession
{
  GObject parent_instance;

  /* Set at construction, read-only afterwards (any thread). */
  PrismGraph *program;
  PrismPipeline *pipeline;
  GMainContext *main_context;   /* the creator's: deliveries go there */
  GThread *owner;               /* the creator's thread */
  GAsyncQueue *commands;        /* Command*, creator → worker */
  guint max_events;
  gboolean background;          /* run at a lower CPU priority */
  /* The worker's current cancellable, cancelled by a stop: it reaches the
   * run's setup (the oracle's saturation, the verifier's) before there is a
   * search to stop, and the search then stops at once. */
  GCancellable *cancel;

  /* Creator's thread only. */
  PrismSessionState state;
  GThread *worker;
  char *stop_reason;

  /* Under shared.lock (any thread). */
  struct
  {
    GMutex lock;
    GPtrArray *pending;         /* PrismEvent, in order */
    PrismEvent *progress;       /* the latest progress, sent last */
    guint kept_sgraphs;
    guint kept_rejected;
    guint hidden_sgraphs;
    guint hidden_rejected;
  } shared;
};

enum
{
  PROP_0,
  PROP_STATE,
  N_PROPS
};

enum
{
  EVENTS,
  FINISHED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (PrismSession, prism_session, G_TYPE_OBJECT)

#define ASSERT_OWNER(self) g_assert (g_thread_self () == (self)->owner)

/* ------------------------------------------------------------------------ */
/* Batches */

typedef struct
{
  PrismSession *session;        /* a reference: alive until delivered */
  PrismEventBatch batch;
} Delivery;

static void
delivery_free (gpointer data)
{
  Delivery *d = data;

  g_ptr_array_unref (d->batch.events);
  g_object_unref (d->session);
  g_free (d);
}

static void
set_state (PrismSession *self, PrismSessionState state)
{
  if (self->state == state)
    return;
  self->state = state;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATE]);
}

/* On the creator's thread. */
static gboolean
deliver (gpointer data)
{
  Delivery *d = data;
  PrismSession *self = d->session;
  gboolean finished = FALSE;

  ASSERT_OWNER (self);
  for (guint i = 0; i < d->batch.events->len; i++)
    {
      PrismEvent *e = g_ptr_array_index (d->batch.events, i);
      if (e->kind == PRISM_EVENT_FINISHED)
        {
          finished = TRUE;
          g_free (self->stop_reason);
          self->stop_reason = g_strdup (e->message);
        }
    }
  g_signal_emit (self, signals[EVENTS], 0, &d->batch);
  if (finished && self->state != PRISM_SESSION_FINISHED)
    {
      if (self->worker != NULL)
        g_clear_pointer (&self->worker, g_thread_join);
      set_state (self, PRISM_SESSION_FINISHED);
      g_signal_emit (self, signals[FINISHED], 0);
    }
  return G_SOURCE_REMOVE;
}

/* On the worker: sends what is pending, if anything. */
static void
flush (PrismSession *self)
{
  Delivery *d;

  g_mutex_lock (&self->shared.lock);
  if (self->shared.pending->len == 0 && self->shared.progress == NULL)
    {
      g_mutex_unlock (&self->shared.lock);
      return;
    }
  d = g_new0 (Delivery, 1);
  d->session = g_object_ref (self);
  d->batch.events = self->shared.pending;
  d->batch.hidden_sgraphs = self->shared.hidden_sgraphs;
  d->batch.hidden_rejected = self->shared.hidden_rejected;
  if (self->shared.progress != NULL)
    {
      /* Progress goes last, unless the run already finished. */
      gboolean finished = FALSE;
      for (guint i = 0; i < d->batch.events->len; i++)
        finished |= ((PrismEvent *) g_ptr_array_index (d->batch.events, i))->kind == PRISM_EVENT_FINISHED;
      if (finished)
        prism_event_unref (self->shared.progress);
      else
        g_ptr_array_add (d->batch.events, self->shared.progress);
      self->shared.progress = NULL;
    }
  self->shared.pending = g_ptr_array_new_with_free_func ((GDestroyNotify) prism_event_unref);
  self->shared.kept_sgraphs = self->shared.kept_rejected = 0;
  self->shared.hidden_sgraphs = self->shared.hidden_rejected = 0;
  g_mutex_unlock (&self->shared.lock);

  /* Not g_main_context_invoke(): that runs the callback right here, on the
   * worker, whenever the creator's context is not acquired at this instant
   * (between two iterations of a loop that is not g_main_loop_run()). */
  {
    GSource *source = g_idle_source_new ();

    g_source_set_priority (source, G_PRIORITY_DEFAULT_IDLE);
    g_source_set_callback (source, deliver, d, delivery_free);
    g_source_set_static_name (source, "[prism] session delivery");
    g_source_attach (source, self->main_context);
    g_source_unref (source);
  }
}

/* From any thread of the run. */
static void
on_event (PrismEvent *event, gpointer user_data)
{
  PrismSession *self = user_data;

  g_mutex_lock (&self->shared.lock);
  switch (event->kind)
    {
    case PRISM_EVENT_PROGRESS:
      g_clear_pointer (&self->shared.progress, prism_event_unref);
      self->shared.progress = prism_event_ref (event);
      break;
    case PRISM_EVENT_SGRAPH:
      if (self->shared.kept_sgraphs < self->max_events)
        {
          self->shared.kept_sgraphs++;
          g_ptr_array_add (self->shared.pending, prism_event_ref (event));
        }
      else
        self->shared.hidden_sgraphs++;
      break;
    case PRISM_EVENT_REJECTED:
      if (self->shared.kept_rejected < self->max_events)
        {
          self->shared.kept_rejected++;
          g_ptr_array_add (self->shared.pending, prism_event_ref (event));
        }
      else
        self->shared.hidden_rejected++;
      break;
    case PRISM_EVENT_VERIFIED:
    case PRISM_EVENT_BEST:
    case PRISM_EVENT_FINISHED:
    case PRISM_EVENT_ERROR:
    default:
      g_ptr_array_add (self->shared.pending, prism_event_ref (event));
      break;
    }
  g_mutex_unlock (&self->shared.lock);
}

/* On the worker, about 30 times a second: commands in, events out. */
static void
on_tick (gpointer user_data)
{
  PrismSession *self = user_data;
  Command *cmd;

  while ((cmd = g_async_queue_try_pop (self->commands)) != NULL)
    {
      switch (cmd->kind)
        {
        case COMMAND_PAUSE:
          prism_pipeline_set_paused (self->pipeline, TRUE);
          break;
        case COMMAND_RESUME:
          prism_pipeline_set_paused (self->pipeline, FALSE);
          break;
        case COMMAND_STOP:
          prism_pipeline_set_paused (self->pipeline, FALSE);
          prism_pipeline_stop (self->pipeline);
          break;
        case COMMAND_BUDGET:
          prism_pipeline_set_time_limit (self->pipeline, cmd->value);
          break;
        default:
          g_assert_not_reached ();
        }
      g_free (cmd);
    }
  flush (self);
}

static gpointer
worker_main (gpointer data)
{
  PrismSession *self = data;
  g_autoptr(GError) error = NULL;

#ifdef __linux__
  /* Linux keeps a nice value per thread, and the search's thread pool is
   * created from this thread, so it inherits the lower priority too. */
  if (self->background &&
      setpriority (PRIO_PROCESS, (id_t) syscall (SYS_gettid), BACKGROUND_NICE) != 0)
    g_debug ("cannot lower the priority of the session: %s", g_strerror (errno));
#endif

  /* Errors arrive as ERROR and FINISHED events. */
  g_cancellable_push_current (self->cancel);
  prism_pipeline_run (self->pipeline, &error);
  g_cancellable_pop_current (self->cancel);
  on_tick (self);
  flush (self);
  return NULL;
}

/* ------------------------------------------------------------------------ */

static void
prism_session_dispose (GObject *object)
{
  PrismSession *self = PRISM_SESSION (object);

  if (self->worker != NULL)
    {
      /* The run holds no reference to us while we are disposed from the
       * owner; stop it and wait, so nothing outlives the object. */
      prism_pipeline_set_paused (self->pipeline, FALSE);
      prism_pipeline_stop (self->pipeline);
      g_cancellable_cancel (self->cancel);
      g_clear_pointer (&self->worker, g_thread_join);
    }
  G_OBJECT_CLASS (prism_session_parent_class)->dispose (object);
}

static void
prism_session_finalize (GObject *object)
{
  PrismSession *self = PRISM_SESSION (object);

  g_clear_pointer (&self->pipeline, prism_pipeline_free);
  g_clear_pointer (&self->program, prism_graph_unref);
  g_clear_pointer (&self->main_context, g_main_context_unref);
  g_clear_pointer (&self->commands, g_async_queue_unref);
  g_clear_pointer (&self->shared.pending, g_ptr_array_unref);
  g_clear_pointer (&self->shared.progress, prism_event_unref);
  g_clear_object (&self->cancel);
  g_mutex_clear (&self->shared.lock);
  g_free (self->stop_reason);
  G_OBJECT_CLASS (prism_session_parent_class)->finalize (object);
}

static void
prism_session_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  PrismSession *self = PRISM_SESSION (object);

  switch (prop_id)
    {
    case PROP_STATE:
      g_value_set_enum (value, self->state);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
prism_session_class_init (PrismSessionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = prism_session_dispose;
  object_class->finalize = prism_session_finalize;
  object_class->get_property = prism_session_get_property;

  properties[PROP_STATE] =
    g_param_spec_enum ("state", NULL, NULL, PRISM_TYPE_SESSION_STATE, PRISM_SESSION_IDLE,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * PrismSession::events:
   * @batch: (type gpointer): the PrismEventBatch, valid during the emission
   *
   * A batch of events, on the creator's main context.
   */
  signals[EVENTS] = g_signal_new ("events", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                  NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_POINTER);
  /**
   * PrismSession::finished:
   *
   * After the batch with the FINISHED event; the worker thread has exited.
   */
  signals[FINISHED] = g_signal_new ("finished", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                    NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
prism_session_init (PrismSession *self)
{
  g_mutex_init (&self->shared.lock);
  self->shared.pending = g_ptr_array_new_with_free_func ((GDestroyNotify) prism_event_unref);
  self->commands = g_async_queue_new_full (g_free);
  self->max_events = DEFAULT_MAX_EVENTS;
  self->state = PRISM_SESSION_IDLE;
  self->cancel = g_cancellable_new ();
}

PrismSession *
prism_session_new (PrismGraph *program, const PrismPipelineOptions *options, GError **error)
{
  g_autoptr(PrismSession) self = NULL;
  PrismPipeline *pipeline;

  g_return_val_if_fail (program != NULL && options != NULL, NULL);
  /* Before anything is set up: a program too big is refused at once. */
  if (!prism_search_check_program (program, error))
    return NULL;
  pipeline = prism_pipeline_new (program, options, error);
  if (pipeline == NULL)
    return NULL;
  self = g_object_new (PRISM_TYPE_SESSION, NULL);
  self->program = prism_graph_ref (program);
  self->pipeline = pipeline;
  self->main_context = g_main_context_ref_thread_default ();
  self->owner = g_thread_self ();
  prism_pipeline_set_handlers (pipeline, on_event, on_tick, self);
  return g_steal_pointer (&self);
}

static void
push_command (PrismSession *self, CommandKind kind, double value)
{
  Command *cmd = g_new0 (Command, 1);

  cmd->kind = kind;
  cmd->value = value;
  g_async_queue_push (self->commands, cmd);
}

void
prism_session_start (PrismSession *self)
{
  g_return_if_fail (PRISM_IS_SESSION (self));
  ASSERT_OWNER (self);
  g_return_if_fail (self->state == PRISM_SESSION_IDLE);

  self->worker = g_thread_new ("prism-session", worker_main, self);
  set_state (self, PRISM_SESSION_RUNNING);
}

/**
 * prism_session_set_background:
 * @background: whether the run is background work
 *
 * Before prism_session_start(): a background run's threads (the worker and
 * the search's pool) get a lower CPU priority (nice 10 on Linux; elsewhere
 * nothing changes), so that the user interface, and the display server it
 * draws through, keep the CPU when the search uses every core.
 */
void
prism_session_set_background (PrismSession *self,
                              gboolean      background)
{
  g_return_if_fail (PRISM_IS_SESSION (self));
  g_return_if_fail (self->state == PRISM_SESSION_IDLE);

  self->background = !!background;
}

void
prism_session_pause (PrismSession *self)
{
  g_return_if_fail (PRISM_IS_SESSION (self));
  ASSERT_OWNER (self);
  if (self->state != PRISM_SESSION_RUNNING)
    return;
  push_command (self, COMMAND_PAUSE, 0);
  set_state (self, PRISM_SESSION_PAUSED);
}

void
prism_session_resume (PrismSession *self)
{
  g_return_if_fail (PRISM_IS_SESSION (self));
  ASSERT_OWNER (self);
  if (self->state != PRISM_SESSION_PAUSED)
    return;
  push_command (self, COMMAND_RESUME, 0);
  set_state (self, PRISM_SESSION_RUNNING);
}

void
prism_session_stop (PrismSession *self)
{
  g_return_if_fail (PRISM_IS_SESSION (self));
  ASSERT_OWNER (self);
  if (self->state != PRISM_SESSION_RUNNING && self->state != PRISM_SESSION_PAUSED)
    return;
  push_command (self, COMMAND_STOP, 0);
  /* A stop must also reach a search still being set up or paused. */
  prism_pipeline_set_paused (self->pipeline, FALSE);
  prism_pipeline_stop (self->pipeline);
  g_cancellable_cancel (self->cancel);
  if (self->state == PRISM_SESSION_PAUSED)
    set_state (self, PRISM_SESSION_RUNNING);
}

void
prism_session_set_time_limit (PrismSession *self, double seconds)
{
  g_return_if_fail (PRISM_IS_SESSION (self));
  ASSERT_OWNER (self);
  push_command (self, COMMAND_BUDGET, seconds);
}

PrismSessionState
prism_session_get_state (PrismSession *self)
{
  g_return_val_if_fail (PRISM_IS_SESSION (self), PRISM_SESSION_IDLE);
  return self->state;
}

PrismGraph *
prism_session_get_program (PrismSession *self)
{
  g_return_val_if_fail (PRISM_IS_SESSION (self), NULL);
  return self->program;
}

void
prism_session_get_stats (PrismSession *self, PrismRunStats *stats)
{
  g_return_if_fail (PRISM_IS_SESSION (self));
  prism_pipeline_get_stats (self->pipeline, stats);
}

GPtrArray *
prism_session_get_candidates (PrismSession *self)
{
  g_return_val_if_fail (PRISM_IS_SESSION (self), NULL);
  return prism_pipeline_get_candidates (self->pipeline);
}

double
prism_session_get_baseline_us (PrismSession *self)
{
  g_return_val_if_fail (PRISM_IS_SESSION (self), 0);
  return prism_pipeline_get_baseline_us (self->pipeline);
}

const char *
prism_session_get_results_path (PrismSession *self)
{
  g_return_val_if_fail (PRISM_IS_SESSION (self), NULL);
  return prism_pipeline_get_results_path (self->pipeline);
}

const GError *
prism_session_get_save_error (PrismSession *self)
{
  g_return_val_if_fail (PRISM_IS_SESSION (self), NULL);
  return prism_pipeline_get_save_error (self->pipeline);
}

const char *
prism_session_get_stop_reason (PrismSession *self)
{
  g_return_val_if_fail (PRISM_IS_SESSION (self), NULL);
  return self->stop_reason;
}
