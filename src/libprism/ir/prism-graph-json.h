/* prism-graph-json.h — the prism-graph JSON format (docs/format.md)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

#include "prism-graph.h"

G_BEGIN_DECLS

#define PRISM_GRAPH_FORMAT         "prism-graph"
#define PRISM_GRAPH_FORMAT_VERSION 1

/**
 * prism_graph_to_json:
 * @graph: a kernel graph
 * @provenance: (nullable): an object stored as-is under "provenance"
 *
 * Returns: (transfer full): the document's root node
 */
JsonNode   *prism_graph_to_json        (const PrismGraph *graph,
                                        JsonNode         *provenance);

/**
 * prism_graph_from_json:
 * @root: a document's root node
 * @provenance: (out) (optional) (transfer full) (nullable): its provenance
 *
 * Validates everything (version, names, ids, cycles, shapes, maps, ranges);
 * the error message names the op and the field.
 *
 * Returns: (transfer full) (nullable): the graph
 */
PrismGraph *prism_graph_from_json      (JsonNode         *root,
                                        JsonNode        **provenance,
                                        GError          **error);

PrismGraph *prism_graph_load           (const char       *path,
                                        JsonNode        **provenance,
                                        GError          **error);
PrismGraph *prism_graph_load_from_data (const char       *data,
                                        gssize            length,
                                        JsonNode        **provenance,
                                        GError          **error);
/* Writes atomically (temporary file + rename). */
gboolean    prism_graph_save           (const PrismGraph *graph,
                                        JsonNode         *provenance,
                                        const char       *path,
                                        GError          **error);
char       *prism_graph_to_data        (const PrismGraph *graph,
                                        JsonNode         *provenance);

G_END_DECLS
