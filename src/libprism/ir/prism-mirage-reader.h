/* prism-mirage-reader.h — reading the muGraphs Mirage saves
 *
 * Mirage (OSDI'25) saves the muGraphs its search verified as a JSON list
 * (the files in benchmark/saved_mugraphs of its repository): one list of kernel-level operators per
 * graph, tensors linked by guid, customized ops holding a thread-block
 * graph.  This reader converts each into a PrismGraph so that the CLI and
 * the explorer can check, verify and time Mirage's graphs beside ours.
 * docs/format.md ("Mirage muGraph files") says what is read and what is
 * refused.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "prism-graph.h"

G_BEGIN_DECLS

/* Graphs in one file (Mirage's largest saved file holds 190). */
#define PRISM_MIRAGE_MAX_GRAPHS 65536
/* Blocks along y and z of a grid (CUDA's gridDim.y and .z). */
#define PRISM_MIRAGE_MAX_GRID_YZ 65535

/**
 * PrismMirageGraph:
 * @index: its position in the file's list, from 0
 * @n_ops: kernel-level operators the file lists for it
 * @graph: (nullable): the converted graph, %NULL when it could not be read
 * @error: (nullable): why it could not be read (names the graph index, the
 *   op index and type, and the field)
 *
 * One muGraph of a Mirage file.  A file whose list is well formed is read
 * even when some of its graphs are not: each carries its own result.
 */
typedef struct
{
  guint index;
  guint n_ops;
  PrismGraph *graph;
  GError *error;
} PrismMirageGraph;

void        prism_mirage_graph_free        (PrismMirageGraph *graph);

/**
 * prism_mirage_data_is_mugraphs:
 * @data: the start of a file's text (need not be NUL-terminated)
 * @length: bytes of @data
 *
 * Tells the formats apart by their first character: a Mirage file's text
 * is a JSON array, a prism-graph or prism-results document an object.
 *
 * Returns: %TRUE if the first non-whitespace byte is “[”
 */
gboolean    prism_mirage_data_is_mugraphs  (const char *data,
                                            gsize       length);

/* prism_mirage_data_is_mugraphs() on the first bytes of @path; %FALSE for
 * anything but a readable regular file (it never blocks on a FIFO). */
gboolean    prism_mirage_file_is_mugraphs  (const char *path);

/**
 * prism_mirage_load_from_data:
 * @data: the text
 * @length: bytes of @data, or -1 if it is NUL-terminated
 *
 * Checks the text with the strict reader (prism-json-reader.h, the limits
 * of prism-graph files), then converts every muGraph of the list.  Safe on
 * any bytes (a fuzzing entry point).
 *
 * Returns: (transfer full) (element-type PrismMirageGraph) (nullable): one
 *   entry per muGraph, in file order; %NULL with @error when the text is not
 *   strict JSON, is not a list, is empty or has too many graphs
 *   (%PRISM_ERROR_PARSE, %PRISM_ERROR_LIMIT)
 */
GPtrArray  *prism_mirage_load_from_data    (const char *data,
                                            gssize      length,
                                            GError    **error);

/* Reads a regular file of bounded size, then prism_mirage_load_from_data();
 * the errors start with @path.  (transfer full) (nullable) */
GPtrArray  *prism_mirage_load              (const char *path,
                                            GError    **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrismMirageGraph, prism_mirage_graph_free)

G_END_DECLS
