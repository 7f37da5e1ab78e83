/* prism-graph-json.h — the prism-graph JSON format (docs/format.md)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

#include "prism-graph.h"
#include "prism-json-reader.h"

G_BEGIN_DECLS

#define PRISM_GRAPH_FORMAT         "prism-graph"
#define PRISM_GRAPH_FORMAT_VERSION 1

/* Limits of the reader, so that no input can exhaust the stack or memory. */
#define PRISM_GRAPH_JSON_MAX_SIZE  PRISM_JSON_GRAPH_MAX_SIZE /* bytes of text */
#define PRISM_GRAPH_JSON_MAX_DEPTH PRISM_JSON_MAX_DEPTH      /* nesting of arrays and objects */
#define PRISM_GRAPH_JSON_MAX_OPS   65536              /* ops per graph level */
#define PRISM_GRAPH_JSON_MAX_VARS  1024               /* symbolic variables */

/**
 * prism_graph_to_json:
 * @graph: a kernel graph
 * @provenance: (nullable) (transfer none): an object stored as-is (copied)
 *   under "provenance"
 *
 * Returns: (transfer full): the document's root node
 */
JsonNode   *prism_graph_to_json        (const PrismGraph *graph,
                                        JsonNode         *provenance);

/**
 * prism_graph_from_json:
 * @root: (transfer none) (nullable): a document's root node
 * @provenance: (out) (optional) (transfer full) (nullable): a copy of its
 *   provenance, %NULL if it has none
 *
 * Validates everything (version, names, ids, cycles, shapes, maps, ranges)
 * and rebuilds the graph through the builders of prism-graph.h; the error
 * message names the op (its index in the file's "ops" list and its kind) and
 * the field.  Error codes: %PRISM_ERROR_VERSION for a wrong or missing
 * format or version, %PRISM_ERROR_PARSE for malformed JSON, wrong types,
 * unknown or missing fields and names, %PRISM_ERROR_INVALID_GRAPH for ids,
 * cycles, shapes, maps and ranges, %PRISM_ERROR_LIMIT for the limits above.
 * Prefer prism_graph_load_from_data() for text: it also checks the text
 * (prism_json_check_text(): strict JSON, nesting that would overflow
 * json-glib's parser, integers json-glib would wrap).
 *
 * Returns: (transfer full) (nullable): the graph
 */
PrismGraph *prism_graph_from_json      (JsonNode         *root,
                                        JsonNode        **provenance,
                                        GError          **error);

/* Reads a file (a regular file of at most PRISM_GRAPH_JSON_MAX_SIZE bytes);
 * same contract as prism_graph_from_json().  (transfer full) (nullable) */
PrismGraph *prism_graph_load           (const char       *path,
                                        JsonNode        **provenance,
                                        GError          **error);
/* @length: bytes of @data, or -1 if it is NUL-terminated.  Checks the text
 * with prism_json_check_text() first; safe on any bytes (a fuzzing entry
 * point). */
PrismGraph *prism_graph_load_from_data (const char       *data,
                                        gssize            length,
                                        JsonNode        **provenance,
                                        GError          **error);
/* Writes prism_graph_to_data() atomically (a temporary file in the same
 * folder, renamed over @path): readers see the old file or the new one. */
gboolean    prism_graph_save           (const PrismGraph *graph,
                                        JsonNode         *provenance,
                                        const char       *path,
                                        GError          **error);
/* The canonical text: deterministic, pretty, newline-terminated; reading it
 * and writing again gives the same text.  (transfer full) */
char       *prism_graph_to_data        (const PrismGraph *graph,
                                        JsonNode         *provenance);

G_END_DECLS
