/* prism-open-mirage.h — a Mirage file's graphs, verified and priced off the main thread
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "prism-graph.h"
#include "prism-pipeline.h"
#include "prism-results.h"

G_BEGIN_DECLS

/**
 * PrismOpenedMirage:
 * @n_graphs: graphs the file lists
 * @candidates: (element-type PrismCandidate): the graphs proved equivalent
 *   to the reference, in file order, each priced as the search prices its
 *   candidates; a candidate's @id is the graph's index in the file (from 0)
 * @refused: (element-type utf8): one sentence per other graph, saying which
 *   graph of which file and why ("Mirage graph 3 of FILE is not equivalent
 *   to the program: …")
 */
typedef struct
{
  guint n_graphs;
  GPtrArray *candidates;
  GPtrArray *refused;
} PrismOpenedMirage;

void               prism_opened_mirage_free (PrismOpenedMirage    *opened);

/**
 * prism_open_mirage_async:
 * @file: a Mirage muGraph file (prism_mirage_file_is_mugraphs()) in a local folder
 * @reference: the program its graphs must compute (concrete); a reference
 *   is taken
 * @options: where the target GPU (@target), the baseline (@baseline) and
 *   the size limits (@search.smem_limit, @search.max_blocks) are read;
 *   copied, nothing of it is kept
 *
 * Reads @file on a worker thread, matches each graph's inputs with
 * @reference's by their order, decides each with the verifier as `prism
 * verify` does (a proof and the randomized test), and chooses each
 * equivalent graph's sizes and predicts its time with the cost model, its
 * speedup against @options's baseline — what the search does with its own
 * candidates.  Cancelling @cancellable stops it between graphs.
 */
void               prism_open_mirage_async  (GFile                      *file,
                                             PrismGraph                 *reference,
                                             const PrismPipelineOptions *options,
                                             GCancellable               *cancellable,
                                             GAsyncReadyCallback         callback,
                                             gpointer                    user_data);
/* (transfer full) (nullable): the graphs, or %NULL with @error when the file
 * as a whole cannot be read or @reference cannot be a reference */
PrismOpenedMirage *prism_open_mirage_finish (GAsyncResult               *result,
                                             GError                    **error);

gboolean           prism_open_mirage_get_progress (GCancellable *cancellable,
                                                   guint        *done,
                                                   guint        *total);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrismOpenedMirage, prism_opened_mirage_free)

G_END_DECLS
