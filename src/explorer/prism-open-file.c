/* prism-open-file.c — reading a program or results file off the main thread
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "prism-open-file"

#include "config.h"

#include <glib/gi18n.h>

#include "prism-error.h"
#include "prism-graph-json.h"
#include "prism-json-reader.h"
#include "prism-mirage-reader.h"
#include "prism-onnx-reader.h"
#include "prism-open-file.h"
#include "prism-recheck.h"

/* Both kinds of file: the larger limit, then each reader's own. */
#define MAX_SIZE MAX (PRISM_JSON_GRAPH_MAX_SIZE, PRISM_JSON_RESULTS_MAX_SIZE)

void
prism_opened_file_free (PrismOpenedFile *opened)
{
  if (opened == NULL)
    return;
  g_clear_pointer (&opened->program, prism_graph_unref);
  g_clear_pointer (&opened->results, prism_results_free);
  g_clear_pointer (&opened->refused, g_ptr_array_unref);
  g_strfreev (opened->dim_params);
  g_free (opened);
}

/* A file without a local path (gvfs): its type and size first, then at most
 * the limit + 1 bytes. */
static char *
read_remote (GFile *file, gsize *length, GCancellable *cancellable, GError **error)
{
  g_autoptr(GFileInfo) info = NULL;
  g_autoptr(GFileInputStream) in = NULL;
  g_autofree char *name = g_file_get_parse_name (file);
  g_autoptr(GByteArray) bytes = NULL;

  info = g_file_query_info (file, G_FILE_ATTRIBUTE_STANDARD_TYPE "," G_FILE_ATTRIBUTE_STANDARD_SIZE,
                            G_FILE_QUERY_INFO_NONE, cancellable, error);
  if (info == NULL)
    return NULL;
  if (g_file_info_get_file_type (info) != G_FILE_TYPE_REGULAR)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED, _("“%s” is not a regular file"), name);
      return NULL;
    }
  if (g_file_info_get_size (info) > MAX_SIZE)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_LIMIT, _("“%s” is larger than %d bytes"), name, MAX_SIZE);
      return NULL;
    }
  if ((in = g_file_read (file, cancellable, error)) == NULL)
    return NULL;
  bytes = g_byte_array_new ();
  for (;;)
    {
      guint8 chunk[65536];
      gsize got = 0;

      if (!g_input_stream_read_all (G_INPUT_STREAM (in), chunk, sizeof chunk, &got, cancellable, error))
        return NULL;
      g_byte_array_append (bytes, chunk, (guint) got);
      if (bytes->len > MAX_SIZE)
        {
          g_set_error (error, PRISM_ERROR, PRISM_ERROR_LIMIT, _("“%s” is larger than %d bytes"), name, MAX_SIZE);
          return NULL;
        }
      if (got < sizeof chunk)
        break;
    }
  *length = bytes->len;
  g_byte_array_append (bytes, (const guint8 *) "", 1);
  return (char *) g_byte_array_free (g_steal_pointer (&bytes), FALSE);
}

static gboolean
is_results_text (const char *data, gsize len)
{
  g_autoptr(JsonNode) format = NULL;
  PrismJsonSpan span;

  if (!prism_json_check_text (data, len, prism_json_limits_for (PRISM_JSON_RESULTS), NULL) ||
      !prism_json_find_member (data, len, "format", &span))
    return FALSE;
  format = prism_json_parse (data + span.start, span.end - span.start, NULL, NULL);
  return format != NULL && JSON_NODE_HOLDS_VALUE (format) && json_node_get_value_type (format) == G_TYPE_STRING &&
         g_str_equal (json_node_get_string (format), PRISM_RESULTS_FORMAT);
}

/* The file says its candidates are verified: each is proved again, and only
 * those are shown (and can be exported). */
static gboolean
recheck_results (PrismOpenedFile *opened, const char *name, GError **error)
{
  GPtrArray *cands = prism_results_get_candidates (opened->results);
  g_autoptr(PrismRecheck) recheck = NULL;
  g_autoptr(GPtrArray) errors = NULL;
  g_autoptr(GPtrArray) all = NULL;

  if (cands->len == 0)
    return TRUE;
  recheck = prism_recheck_new (opened->program, error);
  if (recheck == NULL)
    {
      g_prefix_error (error, _("program: "));
      return FALSE;
    }
  all = g_ptr_array_new_with_free_func ((GDestroyNotify) prism_candidate_unref);
  for (guint i = 0; i < cands->len; i++)
    g_ptr_array_add (all, prism_candidate_ref (g_ptr_array_index (cands, i)));
  errors = prism_recheck_all (recheck, all, 0);
  for (guint i = 0; i < all->len; i++)
    {
      PrismCandidate *c = g_ptr_array_index (all, i);
      GError *why = g_ptr_array_index (errors, i);

      if (why == NULL)
        continue;
      /* TRANSLATORS: candidate number, file, why */
      g_ptr_array_add (opened->refused, g_strdup_printf (_("candidate %u of %s is not equivalent to its program: %s"),
                                                         c->id, name, why->message));
      prism_results_remove_candidate (opened->results, c);
    }
  return TRUE;
}

/* An ONNX model, imported as `prism import` does; one with symbolic dims
 * only has them listed, for the Model page to ask their sizes.  Takes @opened. */
static void
open_model (GTask *task, PrismOpenedFile *opened_in, const char *path, const char *name)
{
  g_autoptr(PrismOpenedFile) opened = opened_in;
#ifdef PRISM_HAVE_ONNX
  GError *error = NULL;

  if (path == NULL)
    {
      g_task_return_new_error (task, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED,
                               _("“%s”: models are opened from a local folder"), name);
      return;
    }
  /* Symbolic dims are sized on the Model page first. */
  opened->dim_params = prism_onnx_list_dim_params (path, &error);
  if (opened->dim_params != NULL && opened->dim_params[0] == NULL)
    {
      g_clear_pointer (&opened->dim_params, g_strfreev);
      opened->program = prism_onnx_load (path, NULL, 0, &error);
    }
  if (opened->program == NULL && opened->dim_params == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  opened->is_model = TRUE;
  g_task_return_pointer (task, g_steal_pointer (&opened), (GDestroyNotify) prism_opened_file_free);
#else
  g_task_return_new_error (task, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED,
                           _("“%s”: this Prism Explorer was built without ONNX support (meson option “onnx”)"),
                           name);
#endif
}

static void
open_in_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  GFile *file = source;
  g_autoptr(PrismOpenedFile) opened = g_new0 (PrismOpenedFile, 1);
  g_autofree char *path = g_file_get_path (file);
  g_autofree char *name = g_file_get_parse_name (file);
  g_autofree char *data = NULL;
  GError *error = NULL;
  gsize len = 0;

  opened->refused = g_ptr_array_new_with_free_func (g_free);
  if (g_str_has_suffix (name, ".onnx"))
    {
      open_model (task, g_steal_pointer (&opened), path, name);
      return;
    }
  /* Read as the command line reads: a FIFO is refused, never opened for a
   * blocking read; a device is never read. */
  data = path != NULL ? prism_json_read_file (path, MAX_SIZE, &len, &error)
                      : read_remote (file, &len, cancellable, &error);
  if (data == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  /* A Mirage file holds graphs to check against a program, and none of its
   * own: the window opens it beside the program shown (prism-open-mirage.c). */
  if (prism_mirage_data_is_mugraphs (data, len))
    {
      g_task_return_new_error (task, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED,
                               _("“%s” is a Mirage muGraph file: it holds graphs to check against a program, "
                                 "and no program of its own. Open the reference program first (a workload or "
                                 "a program file), then the Mirage file from a local folder."), name);
      return;
    }
  if (is_results_text (data, len))
    {
      opened->results = prism_results_load_from_data (data, len, &error);
      if (opened->results != NULL)
        {
          opened->program = prism_graph_ref (prism_results_get_program (opened->results));
          g_clear_pointer (&data, g_free);
          if (!recheck_results (opened, name, &error))
            g_clear_pointer (&opened->program, prism_graph_unref);
        }
    }
  else
    opened->program = prism_graph_load_from_data (data, (gssize) len, NULL, &error);
  if (opened->program == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  g_task_return_pointer (task, g_steal_pointer (&opened), (GDestroyNotify) prism_opened_file_free);
}

void
prism_open_file_async (GFile *file, GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (G_IS_FILE (file));
  task = g_task_new (file, cancellable, callback, user_data);
  g_task_set_source_tag (task, prism_open_file_async);
  /* The result, not the read, is what a cancel drops (the window checks). */
  g_task_set_check_cancellable (task, FALSE);
  g_task_run_in_thread (task, open_in_thread);
}

PrismOpenedFile *
prism_open_file_finish (GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (G_IS_TASK (result) && g_task_get_source_tag (G_TASK (result)) == prism_open_file_async, NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
