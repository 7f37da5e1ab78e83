/* prism-tune-queue.c — who times which program when several processes tune
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "prism-tune-queue.h"

typedef enum
{
  ITEM_OPEN,
  ITEM_HELD,
  ITEM_DONE,
} ItemState;

typedef struct
{
  ItemState state;
  guint holder;
} Item;

typedef struct
{
  PrismTunePeerState state;
  guint given;
  gboolean waiting;     /* its last claim was told to wait */
} Peer;

struct _PrismTuneQueue
{
  guint n_items;
  guint n_peers;
  Item *items;
  Peer *peers;
};

PrismTuneQueue *
prism_tune_queue_new (guint n_items, guint n_peers)
{
  PrismTuneQueue *q = g_new0 (PrismTuneQueue, 1);

  q->n_items = n_items;
  q->n_peers = n_peers;
  q->items = g_new0 (Item, MAX (n_items, 1));
  q->peers = g_new0 (Peer, MAX (n_peers, 1));
  return q;
}

void
prism_tune_queue_free (PrismTuneQueue *q)
{
  if (q == NULL)
    return;
  g_free (q->items);
  g_free (q->peers);
  g_free (q);
}

void
prism_tune_queue_mark_done (PrismTuneQueue *q, guint item)
{
  g_return_if_fail (item < q->n_items);
  q->items[item].state = ITEM_DONE;
}

void
prism_tune_queue_set_peer (PrismTuneQueue *q, guint peer, PrismTunePeerState state)
{
  g_return_if_fail (peer < q->n_peers);
  /* Lost is final: a late message of a lost peer changes nothing. */
  if (q->peers[peer].state == PRISM_TUNE_PEER_LOST)
    return;
  q->peers[peer].state = state;
  q->peers[peer].waiting = FALSE;
  if (state != PRISM_TUNE_PEER_LOST)
    return;
  for (guint i = 0; i < q->n_items; i++)
    if (q->items[i].state == ITEM_HELD && q->items[i].holder == peer)
      q->items[i].state = ITEM_OPEN;
}

PrismTunePeerState
prism_tune_queue_get_peer (PrismTuneQueue *q, guint peer)
{
  g_return_val_if_fail (peer < q->n_peers, PRISM_TUNE_PEER_LOST);
  return q->peers[peer].state;
}

gboolean
prism_tune_queue_all_answered (PrismTuneQueue *q)
{
  for (guint r = 0; r < q->n_peers; r++)
    if (q->peers[r].state == PRISM_TUNE_PEER_UNKNOWN)
      return FALSE;
  return TRUE;
}

guint
prism_tune_queue_n_ready (PrismTuneQueue *q)
{
  guint n = 0;

  for (guint r = 0; r < q->n_peers; r++)
    n += q->peers[r].state == PRISM_TUNE_PEER_READY;
  return n;
}

/* Another READY peer waits for work and has had less than @peer. */
static gboolean
someone_poorer_waits (PrismTuneQueue *q, guint peer)
{
  for (guint r = 0; r < q->n_peers; r++)
    if (r != peer && q->peers[r].state == PRISM_TUNE_PEER_READY && q->peers[r].waiting &&
        q->peers[r].given < q->peers[peer].given)
      return TRUE;
  return FALSE;
}

static int
wait_for (PrismTuneQueue *q, guint peer)
{
  q->peers[peer].waiting = TRUE;
  return PRISM_TUNE_QUEUE_WAIT;
}

int
prism_tune_queue_claim (PrismTuneQueue *q, guint peer)
{
  gboolean held = FALSE;

  g_return_val_if_fail (peer < q->n_peers, PRISM_TUNE_QUEUE_NONE);
  if (q->peers[peer].state != PRISM_TUNE_PEER_READY || prism_tune_queue_n_done (q) == q->n_items)
    return PRISM_TUNE_QUEUE_NONE;
  if (!prism_tune_queue_all_answered (q))
    return wait_for (q, peer);
  /* One at a time: the next comes once the last one's result is in. */
  for (guint i = 0; i < q->n_items; i++)
    if (q->items[i].state == ITEM_HELD && q->items[i].holder == peer)
      return wait_for (q, peer);
  /* The baseline first, alone. */
  if (q->n_items > 0 && q->items[0].state == ITEM_HELD)
    return wait_for (q, peer);
  if (someone_poorer_waits (q, peer))
    return wait_for (q, peer);
  for (guint i = 0; i < q->n_items; i++)
    {
      if (q->items[i].state == ITEM_HELD)
        held = TRUE;
      if (q->items[i].state != ITEM_OPEN)
        continue;
      q->items[i].state = ITEM_HELD;
      q->items[i].holder = peer;
      q->peers[peer].given++;
      q->peers[peer].waiting = FALSE;
      return (int) i;
    }
  /* Nothing open, but what others hold comes back if they are lost. */
  return held ? wait_for (q, peer) : PRISM_TUNE_QUEUE_NONE;
}

gboolean
prism_tune_queue_finish (PrismTuneQueue *q, guint peer, guint item)
{
  g_return_val_if_fail (item < q->n_items, FALSE);
  if (q->items[item].state != ITEM_HELD || q->items[item].holder != peer)
    return FALSE;
  q->items[item].state = ITEM_DONE;
  return TRUE;
}

gboolean
prism_tune_queue_is_over (PrismTuneQueue *q)
{
  gboolean held = FALSE, open = FALSE;

  for (guint i = 0; i < q->n_items; i++)
    {
      held |= q->items[i].state == ITEM_HELD;
      open |= q->items[i].state == ITEM_OPEN;
    }
  if (held)
    return FALSE;
  if (!open)
    return TRUE;
  /* Open items and someone who may still take them. */
  for (guint r = 0; r < q->n_peers; r++)
    if (q->peers[r].state == PRISM_TUNE_PEER_READY || q->peers[r].state == PRISM_TUNE_PEER_UNKNOWN)
      return FALSE;
  return TRUE;
}

guint
prism_tune_queue_n_done (PrismTuneQueue *q)
{
  guint n = 0;

  for (guint i = 0; i < q->n_items; i++)
    n += q->items[i].state == ITEM_DONE;
  return n;
}

guint
prism_tune_queue_n_given (PrismTuneQueue *q, guint peer)
{
  g_return_val_if_fail (peer < q->n_peers, 0);
  return q->peers[peer].given;
}
