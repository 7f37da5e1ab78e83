/* fuzz-graph-reader.c — fuzz target for the prism-graph reader
 *
 * Any byte string goes through prism_graph_load_from_data().  The reader may
 * refuse it (with a GError that has a message) but must not crash, leak,
 * recurse without bound or log a critical.  What it accepts must survive the
 * writer: the canonical text reads back to a graph whose text is the same.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>
#include <glib.h>

#include "prism-graph-json.h"
#include "fuzz-target.h"

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  /* A critical is a broken precondition inside the engine: a bug. */
  g_log_set_always_fatal (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);
  return 0;
}

static void
check_round_trip (const PrismGraph *graph, JsonNode *provenance)
{
  g_autofree char *text = prism_graph_to_data (graph, provenance);
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismGraph) again = NULL;
  JsonNode *provenance2 = NULL;
  g_autofree char *text2 = NULL;

  again = prism_graph_load_from_data (text, -1, &provenance2, &error);
  if (again == NULL)
    g_error ("the reader refuses the writer's text (%s):\n%s", error->message, text);
  text2 = prism_graph_to_data (again, provenance2);
  if (strcmp (text, text2) != 0)
    g_error ("writing, reading and writing again changed the text:\n%s\n----\n%s", text, text2);
  if (provenance2 != NULL)
    json_node_unref (provenance2);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismGraph) graph = NULL;
  JsonNode *provenance = NULL;

  graph = prism_graph_load_from_data ((const char *) data, (gssize) size, &provenance, &error);
  if (graph == NULL)
    {
      if (error == NULL || error->message == NULL || error->message[0] == '\0')
        g_error ("the reader refused an input without saying why");
      return 0;
    }
  g_assert_no_error (error);
  check_round_trip (graph, provenance);
  if (provenance != NULL)
    json_node_unref (provenance);
  return 0;
}
