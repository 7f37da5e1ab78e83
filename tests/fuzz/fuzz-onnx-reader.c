/* fuzz-onnx-reader.c — fuzz target for the ONNX reader (src/libprism/import/)
 *
 * Any byte string goes through prism_onnx_load_from_data(), once without
 * dim bindings and once with "batch" bound (the models of the corpus that
 * have a dim_param use that name).  The reader may refuse it with a GError
 * that has a message, but must not crash, leak, recurse without bound or
 * log a critical.  Every program it accepts is valid: the prism-graph
 * writer's text of it reads back.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib.h>

#include "prism-graph-json.h"
#include "prism-onnx-reader.h"
#include "fuzz-target.h"

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  /* A critical is a broken precondition inside the engine: a bug. */
  g_log_set_always_fatal (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);
  return 0;
}

static void
read_once (const uint8_t *data, size_t size, const PrismOnnxDim *dims, guint n_dims)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismGraph) graph = prism_onnx_load_from_data (data, size, dims, n_dims, "fuzz", &error);
  g_autofree char *text = NULL;
  g_autoptr(PrismGraph) again = NULL;

  if (graph == NULL)
    {
      if (error == NULL || error->message == NULL || error->message[0] == '\0')
        g_error ("the reader refused an input without saying why");
      return;
    }
  g_assert_no_error (error);
  text = prism_graph_to_data (graph, NULL);
  again = prism_graph_load_from_data (text, -1, NULL, &error);
  if (again == NULL)
    g_error ("the prism-graph reader refuses the imported program as written (%s):\n%s", error->message, text);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  PrismOnnxDim batch = { (char *) "batch", 4 };

  read_once (data, size, NULL, 0);
  read_once (data, size, &batch, 1);
  return 0;
}
