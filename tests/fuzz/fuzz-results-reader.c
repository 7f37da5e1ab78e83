/* fuzz-results-reader.c — fuzz target for the prism-results reader
 *
 * Any byte string goes through prism_results_load_from_data(), the reader of
 * `prism export`, `prism bench`, `search --resume` and the explorer.  It may
 * refuse the input (with a GError that has a message) but must not crash,
 * leak, recurse without bound or log a critical.  What it accepts must
 * survive the writer: its document reads back to the same document.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>
#include <glib.h>
#include <json-glib/json-glib.h>

#include "prism-json-reader.h"
#include "prism-results.h"
#include "fuzz-target.h"

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  /* A critical is a broken precondition inside the engine: a bug. */
  g_log_set_always_fatal (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);
  return 0;
}

static char *
results_to_text (PrismResults *results)
{
  g_autoptr(JsonNode) root = prism_results_to_json (results);

  /* As every writer of the project does. */
  return prism_json_to_text (root, FALSE, NULL);
}

static void
check_round_trip (PrismResults *results)
{
  g_autofree char *text = results_to_text (results);
  g_autofree char *text2 = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismResults) again = NULL;

  again = prism_results_load_from_data (text, strlen (text), &error);
  if (again == NULL)
    g_error ("the reader refuses the writer's document (%s):\n%s", error->message, text);
  text2 = results_to_text (again);
  if (strcmp (text, text2) != 0)
    g_error ("writing, reading and writing again changed the document:\n%s\n----\n%s", text, text2);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismResults) results = NULL;

  results = prism_results_load_from_data ((const char *) data, size, &error);
  if (results == NULL)
    {
      if (error == NULL || error->message == NULL || error->message[0] == '\0')
        g_error ("the reader refused an input without saying why");
      return 0;
    }
  g_assert_no_error (error);
  check_round_trip (results);
  return 0;
}
