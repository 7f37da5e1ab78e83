/* prism-tune-queue.h — who times which program when several processes tune
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * After a search shared by several processes (an MPI run), the unfused
 * program (item 0) and the best predicted candidates (items 1 …) are timed
 * in parallel, each on one GPU.  The queue decides the handout; it does no
 * timing and no messaging, and is not thread-safe (the pipeline holds its
 * lock around every call).
 *
 * The rules (docs/architecture.md, "MPI"):
 * - nothing is handed out before every peer said whether it has a usable
 *   GPU (prism_tune_queue_set_peer());
 * - item 0 goes first and alone: the candidates' speedups are against it;
 * - a peer holds one item at a time: the next comes once the result of
 *   the last is in (so a result is recorded before its sender hears more);
 * - items go in order to whoever asks, except that a peer that has been
 *   given more than another one waiting for its first… waits: every GPU
 *   gets work when there is enough;
 * - a peer lost while it holds an item gives the item back to the others.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  PRISM_TUNE_PEER_UNKNOWN,   /* has not said yet */
  PRISM_TUNE_PEER_READY,     /* has a usable GPU */
  PRISM_TUNE_PEER_NO_GPU,    /* has none: gets nothing */
  PRISM_TUNE_PEER_LOST,      /* stopped answering: its item goes back */
} PrismTunePeerState;

/* What prism_tune_queue_claim() says instead of an item. */
#define PRISM_TUNE_QUEUE_WAIT (-1)   /* ask again later */
#define PRISM_TUNE_QUEUE_NONE (-2)   /* nothing more for this peer */

typedef struct _PrismTuneQueue PrismTuneQueue;

/* (transfer full): @n_items programs, @n_peers processes (0 … n_peers - 1),
 * every peer UNKNOWN. */
PrismTuneQueue    *prism_tune_queue_new        (guint               n_items,
                                                guint               n_peers);
void               prism_tune_queue_free       (PrismTuneQueue     *queue);

/* An item that needs no timing (a resumed run measured it before). */
void               prism_tune_queue_mark_done  (PrismTuneQueue     *queue,
                                                guint               item);
void               prism_tune_queue_set_peer   (PrismTuneQueue     *queue,
                                                guint               peer,
                                                PrismTunePeerState  state);
PrismTunePeerState prism_tune_queue_get_peer   (PrismTuneQueue     *queue,
                                                guint               peer);
/* Every peer has said (READY, NO_GPU or LOST). */
gboolean           prism_tune_queue_all_answered (PrismTuneQueue   *queue);
/* Peers READY (not lost). */
guint              prism_tune_queue_n_ready    (PrismTuneQueue     *queue);

/**
 * prism_tune_queue_claim:
 *
 * @peer asks for a program to time.
 *
 * Returns: the item, now held by @peer; PRISM_TUNE_QUEUE_WAIT (ask again
 *   after a while: a rule above holds it back, or items are still being
 *   timed elsewhere and could come back); PRISM_TUNE_QUEUE_NONE (every item
 *   is done, or @peer is not READY)
 */
int                prism_tune_queue_claim      (PrismTuneQueue     *queue,
                                                guint               peer);
/* @peer's result for @item came; FALSE if @peer did not hold it (a late
 * result of an item given back: ignore it). */
gboolean           prism_tune_queue_finish     (PrismTuneQueue     *queue,
                                                guint               peer,
                                                guint               item);
/* Every item done, or none can be any more (no READY peer and none held). */
gboolean           prism_tune_queue_is_over    (PrismTuneQueue     *queue);
guint              prism_tune_queue_n_done     (PrismTuneQueue     *queue);
/* How many items @peer was given (and still holds or finished). */
guint              prism_tune_queue_n_given    (PrismTuneQueue     *queue,
                                                guint               peer);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrismTuneQueue, prism_tune_queue_free)

G_END_DECLS
