/* fuzz-json-checker.c — fuzz target for the strict JSON checker
 *
 * Every reader of a user-given file checks its text with
 * prism_json_check_text() before json-glib sees it, and large results files
 * are cut into parts with prism_json_find_member() and
 * prism_json_array_elements().  So, on any bytes: the checker must not
 * crash; what it accepts json-glib must parse; and the spans it finds must
 * hold exactly the values json-glib finds there.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>
#include <glib.h>
#include <json-glib/json-glib.h>

#include "prism-json-reader.h"
#include "fuzz-target.h"

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  g_log_set_always_fatal (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);
  return 0;
}

static char *
node_to_text (JsonNode *node)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();

  json_generator_set_root (generator, node);
  return json_generator_to_data (generator, NULL);
}

/* The text of @span, parsed on its own, is the value json-glib has there. */
static void
check_span (const char *data, const PrismJsonSpan *span, JsonNode *expected, const char *what)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *want = NULL;
  g_autofree char *got = NULL;

  if (span->end <= span->start)
    g_error ("%s: an empty span %" G_GSIZE_FORMAT "–%" G_GSIZE_FORMAT, what, span->start, span->end);
  if (!json_parser_load_from_data (parser, data + span->start, (gssize) (span->end - span->start), &error))
    g_error ("%s: the span does not parse on its own: %s", what, error->message);
  want = node_to_text (expected);
  got = node_to_text (json_parser_get_root (parser));
  if (strcmp (want, got) != 0)
    g_error ("%s: the span holds %s where json-glib has %s", what, got, want);
}

static void
check_members (const char *data, gsize length, JsonObject *object)
{
  g_autoptr(GList) names = json_object_get_members (object);

  for (GList *l = names; l != NULL; l = l->next)
    {
      const char *name = l->data;
      PrismJsonSpan span;

      /* Names with escapes are compared raw by the finder; skip those. */
      if (strchr (name, '\\') != NULL || strchr (name, '"') != NULL)
        continue;
      if (!prism_json_find_member (data, length, name, &span))
        g_error ("the member “%s” json-glib has was not found", name);
      check_span (data, &span, json_object_get_member (object, name), name);
    }
}

static void
check_elements (const char *data, gsize length, JsonArray *array)
{
  PrismJsonSpan whole = { 0, length };
  g_autoptr(GArray) spans = NULL;
  guint n = json_array_get_length (array);

  /* The array is the whole text, give or take whitespace. */
  while (whole.start < whole.end && strchr (" \t\r\n", data[whole.start]) != NULL)
    whole.start++;
  while (whole.end > whole.start && strchr (" \t\r\n", data[whole.end - 1]) != NULL)
    whole.end--;
  spans = prism_json_array_elements (data, &whole, 64);
  if (spans == NULL)
    g_error ("json-glib has an array where the checker finds none");
  if (spans->len != MIN (n, 65))
    g_error ("%u elements found of json-glib's %u", spans->len, n);
  for (guint i = 0; i < spans->len && i < 64; i++)
    check_span (data, &g_array_index (spans, PrismJsonSpan, i), json_array_get_element (array, i), "element");
}

int
LLVMFuzzerTestOneInput (const uint8_t *bytes, size_t size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonParser) parser = NULL;
  g_autofree char *data = g_strndup ((const char *) bytes, size);
  JsonNode *root;

  if (!prism_json_check_text ((const char *) bytes, size, NULL, &error))
    {
      if (error == NULL || error->message == NULL || error->message[0] == '\0')
        g_error ("the checker refused an input without saying why");
      return 0;
    }
  /* Accepted text has no U+0000, so the copy is the same bytes. */
  if (strlen (data) != size)
    g_error ("the checker accepted a NUL byte");
  parser = json_parser_new ();
  if (!json_parser_load_from_data (parser, data, (gssize) size, &error))
    g_error ("the checker accepts what json-glib refuses (%s)", error->message);
  root = json_parser_get_root (parser);
  if (JSON_NODE_HOLDS_OBJECT (root))
    check_members (data, size, json_node_get_object (root));
  else if (JSON_NODE_HOLDS_ARRAY (root))
    check_elements (data, size, json_node_get_array (root));
  return 0;
}
