/* test-tune-queue.c — who times which program when several processes tune
 * (PrismTuneQueue: docs/architecture.md, "MPI")
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib.h>

#include "prism-tune-queue.h"

#define WAIT PRISM_TUNE_QUEUE_WAIT
#define NONE PRISM_TUNE_QUEUE_NONE

static PrismTuneQueue *
ready_queue (guint items, guint peers)
{
  PrismTuneQueue *q = prism_tune_queue_new (items, peers);

  for (guint r = 0; r < peers; r++)
    prism_tune_queue_set_peer (q, r, PRISM_TUNE_PEER_READY);
  return q;
}

/* Nothing before every peer has said whether it has a GPU. */
static void
test_waits_for_answers (void)
{
  g_autoptr(PrismTuneQueue) q = prism_tune_queue_new (3, 2);

  prism_tune_queue_set_peer (q, 0, PRISM_TUNE_PEER_READY);
  g_assert_false (prism_tune_queue_all_answered (q));
  g_assert_cmpint (prism_tune_queue_claim (q, 0), ==, WAIT);
  g_assert_false (prism_tune_queue_is_over (q));
  prism_tune_queue_set_peer (q, 1, PRISM_TUNE_PEER_NO_GPU);
  g_assert_true (prism_tune_queue_all_answered (q));
  g_assert_cmpuint (prism_tune_queue_n_ready (q), ==, 1);
  g_assert_cmpint (prism_tune_queue_claim (q, 1), ==, NONE);   /* no GPU, no work */
  g_assert_cmpint (prism_tune_queue_claim (q, 0), ==, 0);
}

/* The baseline first and alone; then each peer one before anyone a second. */
static void
test_baseline_first_then_fair (void)
{
  g_autoptr(PrismTuneQueue) q = ready_queue (4, 3);

  g_assert_cmpint (prism_tune_queue_claim (q, 0), ==, 0);
  g_assert_cmpint (prism_tune_queue_claim (q, 1), ==, WAIT);
  g_assert_cmpint (prism_tune_queue_claim (q, 2), ==, WAIT);
  g_assert_true (prism_tune_queue_finish (q, 0, 0));
  /* Peer 0 has had one; 1 and 2 wait for their first. */
  g_assert_cmpint (prism_tune_queue_claim (q, 0), ==, WAIT);
  g_assert_cmpint (prism_tune_queue_claim (q, 2), ==, 1);
  g_assert_cmpint (prism_tune_queue_claim (q, 2), ==, WAIT);   /* it holds one */
  g_assert_cmpint (prism_tune_queue_claim (q, 0), ==, WAIT);
  g_assert_cmpint (prism_tune_queue_claim (q, 1), ==, 2);
  g_assert_cmpint (prism_tune_queue_claim (q, 0), ==, 3);
  /* All handed out, some still held: wait (they could come back). */
  g_assert_cmpint (prism_tune_queue_claim (q, 0), ==, WAIT);
  g_assert_false (prism_tune_queue_is_over (q));
  g_assert_true (prism_tune_queue_finish (q, 2, 1));
  g_assert_true (prism_tune_queue_finish (q, 1, 2));
  g_assert_true (prism_tune_queue_finish (q, 0, 3));
  g_assert_cmpint (prism_tune_queue_claim (q, 0), ==, NONE);
  g_assert_true (prism_tune_queue_is_over (q));
  g_assert_cmpuint (prism_tune_queue_n_done (q), ==, 4);
  for (guint r = 0; r < 3; r++)
    g_assert_cmpuint (prism_tune_queue_n_given (q, r), >=, 1);
}

/* A lost peer's program goes to another; its late result is ignored. */
static void
test_lost_peer_gives_back (void)
{
  g_autoptr(PrismTuneQueue) q = ready_queue (2, 3);

  g_assert_cmpint (prism_tune_queue_claim (q, 1), ==, 0);
  g_assert_cmpint (prism_tune_queue_claim (q, 2), ==, WAIT);
  prism_tune_queue_set_peer (q, 1, PRISM_TUNE_PEER_LOST);
  g_assert_cmpint (prism_tune_queue_claim (q, 2), ==, 0);
  g_assert_false (prism_tune_queue_finish (q, 1, 0));
  /* Lost is final. */
  prism_tune_queue_set_peer (q, 1, PRISM_TUNE_PEER_READY);
  g_assert_cmpint (prism_tune_queue_get_peer (q, 1), ==, PRISM_TUNE_PEER_LOST);
  g_assert_true (prism_tune_queue_finish (q, 2, 0));
  g_assert_cmpint (prism_tune_queue_claim (q, 0), ==, 1);
}

/* One at a time: a peer's next program comes once its last result is in
 * (rank 0 records it before the sender hears more). */
static void
test_one_at_a_time (void)
{
  g_autoptr(PrismTuneQueue) q = ready_queue (3, 1);

  prism_tune_queue_mark_done (q, 0);
  g_assert_cmpint (prism_tune_queue_claim (q, 0), ==, 1);
  g_assert_cmpint (prism_tune_queue_claim (q, 0), ==, WAIT);
  g_assert_true (prism_tune_queue_finish (q, 0, 1));
  g_assert_cmpint (prism_tune_queue_claim (q, 0), ==, 2);
}

/* Open programs and nobody left with a GPU: over. */
static void
test_over_without_gpus (void)
{
  g_autoptr(PrismTuneQueue) q = prism_tune_queue_new (3, 2);

  prism_tune_queue_set_peer (q, 0, PRISM_TUNE_PEER_NO_GPU);
  g_assert_false (prism_tune_queue_is_over (q));
  prism_tune_queue_set_peer (q, 1, PRISM_TUNE_PEER_LOST);
  g_assert_true (prism_tune_queue_is_over (q));
  g_assert_cmpuint (prism_tune_queue_n_ready (q), ==, 0);
}

/* A resumed run's timings are not handed out again. */
static void
test_resumed_items (void)
{
  g_autoptr(PrismTuneQueue) q = ready_queue (3, 1);

  prism_tune_queue_mark_done (q, 0);
  prism_tune_queue_mark_done (q, 1);
  g_assert_cmpint (prism_tune_queue_claim (q, 0), ==, 2);
  g_assert_true (prism_tune_queue_finish (q, 0, 2));
  g_assert_cmpint (prism_tune_queue_claim (q, 0), ==, NONE);
  g_assert_true (prism_tune_queue_is_over (q));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/tune-queue/waits-for-answers", test_waits_for_answers);
  g_test_add_func ("/tune-queue/baseline-first-then-fair", test_baseline_first_then_fair);
  g_test_add_func ("/tune-queue/lost-peer-gives-back", test_lost_peer_gives_back);
  g_test_add_func ("/tune-queue/one-at-a-time", test_one_at_a_time);
  g_test_add_func ("/tune-queue/over-without-gpus", test_over_without_gpus);
  g_test_add_func ("/tune-queue/resumed-items", test_resumed_items);
  return g_test_run ();
}
