/* prism-json-reader.h — reading JSON text that trusts nothing
 *
 * Every reader of a file a user gives (programs, results, GPU data) goes
 * through here: only regular files of bounded size are read, and the text is
 * checked against RFC 8259 — strictly, iteratively, with bounded nesting —
 * before json-glib, which is lenient and recursive, parses it.
 * docs/format.md ("Limits") lists the limits.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* Nesting of arrays and objects, the document's own object or array being
 * level 1; the same for every kind of file. */
#define PRISM_JSON_MAX_DEPTH        64
/* Bytes of text per kind of file. */
#define PRISM_JSON_GRAPH_MAX_SIZE   (64 * 1024 * 1024)
#define PRISM_JSON_RESULTS_MAX_SIZE (64 * 1024 * 1024)
#define PRISM_JSON_GPU_MAX_SIZE     (1024 * 1024)
/* Values (objects, arrays, strings, numbers, literals) of a document that
 * json-glib builds a tree of: its tree takes about 80 bytes per value, so
 * 64 MiB of "[0,0,0,…" would take 2.7 GB.  A results file is never parsed
 * whole (its parts are: prism-results.h). */
#define PRISM_JSON_MAX_VALUES       (1 << 21)

/**
 * PrismJsonLimits:
 * @max_size: bytes of text
 * @max_depth: levels of nesting of arrays and objects
 * @max_values: values in the document (0: no limit)
 *
 * What prism_json_check_text() accepts.
 */
typedef struct
{
  gsize max_size;
  guint max_depth;
  guint max_values;
} PrismJsonLimits;

typedef enum
{
  PRISM_JSON_GRAPH,    /* prism-graph (programs, candidates' graphs) */
  PRISM_JSON_RESULTS,  /* prism-results */
  PRISM_JSON_GPU,      /* prism-gpu (target tables, calibration, datasheets) */
} PrismJsonKind;

/* (transfer none) the limits of one kind of file */
const PrismJsonLimits *prism_json_limits_for (PrismJsonKind kind);

/**
 * prism_json_check_text:
 * @data: the text (need not be NUL-terminated)
 * @length: bytes of @data
 * @limits: (nullable): %NULL for those of prism-graph files
 * @error: return location for a #GError
 *
 * Accepts exactly one JSON value (RFC 8259) with only whitespace around it:
 * no comments, single quotes, trailing commas, leading zeros, hexadecimal
 * or non-finite numbers, byte order mark or second document; strings in
 * valid UTF-8 without raw control characters, lone surrogates or U+0000
 * (json-glib would cut the string there); integers that fit in 64 bits
 * (json-glib would silently wrap them); no member name twice in an object.
 * Never recursive: it uses a stack bounded by @limits->max_depth, and its
 * memory is bounded by the size of @data.  Safe on any bytes (a fuzzing
 * entry point).
 *
 * Returns: %FALSE with @error (%PRISM_ERROR_PARSE, or %PRISM_ERROR_LIMIT for
 *   the size and the nesting) naming the line and column
 */
gboolean  prism_json_check_text (const char             *data,
                                 gsize                   length,
                                 const PrismJsonLimits  *limits,
                                 GError                **error);

/**
 * prism_json_read_file:
 * @path: a file name
 * @max_size: the most bytes read
 * @length: (out): bytes read
 *
 * Reads a regular file of at most @max_size bytes.  Anything else is refused
 * by kind before a byte is read — a FIFO (it would block), a device (it may
 * never end), a folder, a socket — and so is a file larger than the limit or
 * one that grows past it while it is read.  The errors name @path.
 *
 * Returns: (transfer full) (nullable): the contents, NUL-terminated
 */
char     *prism_json_read_file  (const char             *path,
                                 gsize                   max_size,
                                 gsize                  *length,
                                 GError                **error);

/**
 * prism_json_parse:
 *
 * prism_json_check_text(), then json-glib.
 *
 * Returns: (transfer full) (nullable): the document's root
 */
JsonNode *prism_json_parse      (const char             *data,
                                 gsize                   length,
                                 const PrismJsonLimits  *limits,
                                 GError                **error);

/**
 * prism_json_load_file:
 *
 * prism_json_read_file() and prism_json_parse(); every error message
 * starts with @path.
 *
 * Returns: (transfer full) (nullable): the document's root
 */
JsonNode *prism_json_load_file  (const char             *path,
                                 const PrismJsonLimits  *limits,
                                 GError                **error);

/**
 * PrismJsonSpan:
 *
 * Where a value lies in a text: bytes @start to @end (excluded).
 */
typedef struct
{
  gsize start;
  gsize end;
} PrismJsonSpan;

/**
 * prism_json_find_member:
 * @data: text that prism_json_check_text() accepted
 * @name: a member of its root object
 * @span: (out): where its value lies
 *
 * Lets a reader parse one part of a large document at a time (json-glib
 * builds a tree about twenty times the size of the text).
 *
 * Returns: %FALSE if the root is not an object or has no member @name
 */
gboolean  prism_json_find_member (const char           *data,
                                  gsize                 length,
                                  const char           *name,
                                  PrismJsonSpan        *span);

/**
 * prism_json_array_elements:
 * @data: text that prism_json_check_text() accepted
 * @array: where an array value lies in it
 * @max: the most elements wanted; one more is reported when there are more
 *
 * Returns: (transfer full) (nullable) (element-type PrismJsonSpan): where
 *   each element lies (at most @max + 1), %NULL if @array is not an array
 */
GArray   *prism_json_array_elements (const char         *data,
                                     const PrismJsonSpan *array,
                                     guint               max);

/**
 * prism_json_to_text:
 * @root: a document
 * @pretty: indented, one member per line
 * @length: (out) (optional): its bytes
 *
 * json_generator_to_data() with its doubles repaired: json-glib 1.6 writes
 * 1e-10 as "1e-10.0", which is not JSON.  Every writer of the project goes
 * through this, so that what it writes its own readers accept.
 *
 * Returns: (transfer full): the text
 */
char     *prism_json_to_text    (JsonNode               *root,
                                 gboolean                pretty,
                                 gsize                  *length);

G_END_DECLS
