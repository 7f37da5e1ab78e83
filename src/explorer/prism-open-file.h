/* prism-open-file.h — reading a program or results file off the main thread
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "prism-graph.h"
#include "prism-results.h"

G_BEGIN_DECLS

/**
 * PrismOpenedFile:
 * @program: the program to show
 * @results: (nullable): when the file was a prism-results file, its
 *   results, holding only the candidates that were proved again
 * @refused: (element-type utf8): one sentence per candidate of the file that
 *   was not ("candidate 3 of FILE is not equivalent to its program: …")
 * @is_model: the file was a model (ONNX), imported as @program: the window
 *   shows it on the Model page, where a part of it is chosen to search
 * @dim_params: (nullable): a model whose inputs have symbolic dims, which
 *   must be given sizes before it is imported (@program is then %NULL):
 *   their names
 */
typedef struct
{
  PrismGraph *program;
  PrismResults *results;
  GPtrArray *refused;
  gboolean is_model;
  char **dim_params;
} PrismOpenedFile;

void             prism_opened_file_free (PrismOpenedFile     *opened);

/**
 * prism_open_file_async:
 * @file: a prism-graph or prism-results file
 *
 * Reads @file on a worker thread as the command line does: a regular file of
 * bounded size only (a FIFO or a device is refused by kind, never read),
 * strict JSON, every rule of the format; a results file's candidates are
 * each proved again, and those that fail are left out and listed.
 */
void             prism_open_file_async  (GFile               *file,
                                         GCancellable        *cancellable,
                                         GAsyncReadyCallback  callback,
                                         gpointer             user_data);
/* (transfer full) (nullable): the file's contents, or %NULL with @error
 * saying what is wrong with it (the reader's message) */
PrismOpenedFile *prism_open_file_finish (GAsyncResult        *result,
                                         GError             **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrismOpenedFile, prism_opened_file_free)

G_END_DECLS
