/* fuzz-mirage-reader.c — fuzz target for the reader of Mirage's saved muGraphs
 *
 * Any byte string goes through prism_mirage_load_from_data().  The reader may
 * refuse the file, or any of its graphs, with a GError that has a message,
 * but must not crash, leak, recurse without bound or log a critical.  Every
 * graph it accepts is a valid PrismGraph: the prism-graph writer's text of it
 * reads back.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib.h>

#include "prism-graph-json.h"
#include "prism-mirage-reader.h"
#include "fuzz-target.h"

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  /* A critical is a broken precondition inside the engine: a bug. */
  g_log_set_always_fatal (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);
  return 0;
}

static void
check_graph (const PrismMirageGraph *m)
{
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismGraph) again = NULL;

  if (m->graph == NULL)
    {
      if (m->error == NULL || m->error->message == NULL || m->error->message[0] == '\0')
        g_error ("graph %u was refused without saying why", m->index);
      return;
    }
  if (m->error != NULL)
    g_error ("graph %u was read and refused", m->index);
  text = prism_graph_to_data (m->graph, NULL);
  again = prism_graph_load_from_data (text, -1, NULL, &error);
  if (again == NULL)
    g_error ("the prism-graph reader refuses graph %u as written (%s):\n%s", m->index, error->message, text);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) graphs = prism_mirage_load_from_data ((const char *) data, (gssize) size, &error);

  if (graphs == NULL)
    {
      if (error == NULL || error->message == NULL || error->message[0] == '\0')
        g_error ("the reader refused an input without saying why");
      return 0;
    }
  g_assert_no_error (error);
  for (guint i = 0; i < graphs->len; i++)
    check_graph (g_ptr_array_index (graphs, i));
  return 0;
}
