/* test-window.c — the explorer's real main window, under Xvfb
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>
#include <sys/stat.h>
#include <glib/gstdio.h>
#include <gtk/gtk.h>

#include "prism-candidates-view.h"
#include "prism-compare-view.h"
#include "prism-cost-model.h"
#include "prism-graph-json.h"
#include "prism-mirage-reader.h"
#include "prism-op-row.h"
#include "prism-pipeline.h"
#include "prism-run-history.h"
#include "prism-run-info.h"
#include "prism-search-model.h"
#include "prism-session.h"
#include "prism-window.h"
#include "prism-workload.h"
#include "ui-test-util.h"

/* Bounded wait: spins the main loop until @cond holds, failing the test
 * (rather than hanging) if it has not after a generous deadline. */
#define WAIT_UNTIL(cond)                                                       \
  G_STMT_START {                                                               \
    gint64 wait_end_ = g_get_monotonic_time () + 15 * G_USEC_PER_SEC;          \
    while (!(cond))                                                            \
      {                                                                        \
        if (g_get_monotonic_time () > wait_end_)                               \
          g_error ("gave up waiting for: %s", #cond);                          \
        if (!g_main_context_iteration (NULL, FALSE))                           \
          g_usleep (1000);                                                     \
      }                                                                        \
  } G_STMT_END

static PrismApplication *app;

/*****************************************************************************/

static PrismWindow *
window_new (void)
{
  PrismWindow *window = prism_window_new (app);

  /* These tests look at programs, not searches (test-search has those). */
  g_object_set (window, "search-on-open", FALSE, NULL);
  gtk_window_present (GTK_WINDOW (window));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  return window;
}

static void
window_destroy (PrismWindow *window)
{
  gtk_window_destroy (GTK_WINDOW (window));
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

static char *
write_temp_file (const char *name, const char *contents)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("prism-ui-XXXXXX", &error);
  char *path;

  g_assert_no_error (error);
  path = g_build_filename (dir, name, NULL);
  g_file_set_contents (path, contents, -1, &error);
  g_assert_no_error (error);
  return path;
}

static void
remove_temp_file (const char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);

  g_unlink (path);
  g_rmdir (dir);
}

/* Every kernel-level op of @graph is a row, in order and of the same kind;
 * every custom kernel's row lists the ops of its block graph. */
static void
assert_rows_match (GListModel *rows, const PrismGraph *graph)
{
  g_assert_cmpuint (g_list_model_get_n_items (rows), ==, graph->ops->len);
  for (guint i = 0; i < graph->ops->len; i++)
    {
      g_autoptr(PrismOpRow) row = g_list_model_get_item (rows, i);
      const PrismOp *op = prism_graph_op (graph, i);
      GListModel *children = prism_op_row_get_children (row);

      g_assert_cmpint (prism_op_row_get_kind (row), ==, op->kind);
      g_assert_cmpstr (prism_op_row_get_operator (row), ==, prism_op_kind_to_string (op->kind));
      if (op->body != NULL)
        {
          g_assert_nonnull (children);
          g_assert_cmpuint (prism_op_row_get_depth (row), ==, 0);
          assert_rows_match (children, op->body);
          for (guint k = 0; k < op->body->ops->len; k++)
            {
              g_autoptr(PrismOpRow) child = g_list_model_get_item (children, k);
              g_assert_cmpuint (prism_op_row_get_depth (child), ==, 1);
            }
        }
      else
        g_assert_null (children);
    }
}

static GtkMessageDialog *
find_message_dialog (GtkWindow *parent)
{
  GListModel *toplevels = gtk_window_get_toplevels ();  /* transfer none */

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) window = g_list_model_get_item (toplevels, i);

      if (GTK_IS_MESSAGE_DIALOG (window) && gtk_window_get_transient_for (window) == parent &&
          gtk_widget_get_visible (GTK_WIDGET (window)))
        return GTK_MESSAGE_DIALOG (window);
    }
  return NULL;
}

static GtkWindow *
find_toplevel_of_type (GType type)
{
  GListModel *toplevels = gtk_window_get_toplevels ();  /* transfer none */

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) window = g_list_model_get_item (toplevels, i);

      if (G_TYPE_CHECK_INSTANCE_TYPE (window, type) && gtk_widget_get_visible (GTK_WIDGET (window)))
        return window;
    }
  return NULL;
}

static GtkWidget *
find_widget (GtkWidget *root, GType type, const char *action_name)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (root, type) &&
      (action_name == NULL ||
       (GTK_IS_ACTIONABLE (root) &&
        g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (root)), action_name) == 0)))
    return root;
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_widget (child, type, action_name);
      if (found != NULL)
        return found;
    }
  return NULL;
}

static void
save_screenshot (GtkWidget *widget, const char *path)
{
  g_autoptr(GdkPaintable) paintable = gtk_widget_paintable_new (widget);
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  g_autoptr(GskRenderNode) node = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);

  gdk_paintable_snapshot (paintable, snapshot, width, height);
  node = gtk_snapshot_free_to_node (snapshot);
  g_assert_nonnull (node);
  texture = gsk_renderer_render_texture (gtk_native_get_renderer (GTK_NATIVE (widget)), node,
                                         &GRAPHENE_RECT_INIT (0, 0, width, height));
  g_assert_true (gdk_texture_save_to_png (texture, path));
  g_test_message ("screenshot: %s (%dx%d)", path, width, height);
}

/* G_TEST_BUILDDIR under meson, else the folder of the test binary. */
static char *
build_path (const char *name)
{
  return g_build_filename (g_test_get_dir (G_TEST_BUILT), name, NULL);
}

/*****************************************************************************/

static void
test_window_workload (void)
{
  const PrismWorkloadInfo *infos;
  guint n_infos = 0;
  PrismWindow *window = window_new ();
  g_autoptr(PrismGraph) expected = NULL;
  g_autoptr(GError) error = NULL;
  GtkWidget *start;

  /* Nothing is open at first. */
  g_assert_null (prism_window_get_graph (window));
  g_assert_cmpuint (g_list_model_get_n_items (prism_program_view_get_ops (prism_window_get_program_view (window))),
                    ==, 0);

  infos = prism_workload_list (&n_infos);
  g_assert_cmpuint (n_infos, >, 0);
  for (guint i = 0; i < n_infos; i++)
    {
      g_clear_pointer (&expected, prism_graph_unref);
      expected = prism_workload_build (infos[i].name, NULL, &error);
      g_assert_no_error (error);

      g_assert_true (prism_window_load_workload (window, infos[i].name, NULL, &error));
      g_assert_no_error (error);
      g_assert_nonnull (prism_window_get_graph (window));
      assert_rows_match (prism_program_view_get_ops (prism_window_get_program_view (window)),
                         expected);
      g_assert_nonnull (strstr (gtk_window_get_title (GTK_WINDOW (window)), expected->name));
    }

  /* An unknown name fails and leaves the last program in place. */
  g_assert_false (prism_window_load_workload (window, "no-such-workload", NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_clear_error (&error);
  assert_rows_match (prism_program_view_get_ops (prism_window_get_program_view (window)), expected);

  /* With a program open and no search running, Start is the one to press. */
  start = find_widget (GTK_WIDGET (window), GTK_TYPE_BUTTON, "win.search-start");
  g_assert_nonnull (start);
  g_assert_true (gtk_widget_is_sensitive (start));
  g_assert_false (gtk_widget_is_sensitive (find_widget (GTK_WIDGET (window), GTK_TYPE_BUTTON,
                                                        "win.search-stop")));
  g_assert_nonnull (gtk_widget_get_tooltip_text (start));

  window_destroy (window);
}

static void
test_window_dropdown (void)
{
  PrismWindow *window = window_new ();
  GtkDropDown *dropdown = GTK_DROP_DOWN (find_widget (GTK_WIDGET (window), GTK_TYPE_DROP_DOWN, NULL));
  const PrismWorkloadInfo *infos;
  guint n_infos = 0;

  infos = prism_workload_list (&n_infos);
  g_assert_nonnull (dropdown);
  g_assert_cmpuint (g_list_model_get_n_items (gtk_drop_down_get_model (dropdown)), ==, n_infos);
  g_assert_cmpuint (gtk_drop_down_get_selected (dropdown), ==, GTK_INVALID_LIST_POSITION);

  /* Choosing in the drop-down opens that workload … */
  gtk_drop_down_set_selected (dropdown, n_infos - 1);
  g_assert_nonnull (prism_window_get_graph (window));
  g_assert_cmpstr (prism_window_get_graph (window)->name, ==, infos[n_infos - 1].name);

  /* … and opening a workload by name moves the drop-down to it. */
  g_assert_true (prism_window_load_workload (window, infos[0].name, NULL, NULL));
  g_assert_cmpuint (gtk_drop_down_get_selected (dropdown), ==, 0);

  window_destroy (window);
}

/* Opens @graph, saved as JSON, through prism_window_open_file(). */
static void
open_saved_graph (PrismWindow *window, const PrismGraph *graph)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("prism-ui-XXXXXX", &error);
  g_autofree char *path = NULL;
  g_autoptr(GFile) file = NULL;

  g_assert_no_error (error);
  path = g_build_filename (dir, "fused.json", NULL);
  g_assert_true (prism_graph_save (graph, NULL, path, &error));
  g_assert_no_error (error);

  file = g_file_new_for_path (path);
  prism_window_open_file (window, file);
  g_assert_true (prism_window_get_loading (window));
  WAIT_UNTIL (!prism_window_get_loading (window));
  g_assert_null (find_message_dialog (GTK_WINDOW (window)));

  g_unlink (path);
  g_rmdir (dir);
}

static void
test_window_open_file (void)
{
  g_autoptr(GError) error = NULL;
  PrismWindow *window = window_new ();
  const PrismWorkloadInfo *infos;
  guint n_infos = 0;
  g_autofree char *screenshot = NULL;
  GtkDropDown *dropdown = GTK_DROP_DOWN (find_widget (GTK_WIDGET (window), GTK_TYPE_DROP_DOWN, NULL));
  const char *shown = prism_workload_lookup ("rmsnorm_mlp") ? "rmsnorm_mlp" : NULL;

  infos = prism_workload_list (&n_infos);
  if (shown == NULL)
    shown = infos[0].name;

  /* Every fused reference graph has custom kernels, whose block ops are
   * listed under them; the one shown last is the screenshot's. */
  for (guint i = 0; i <= n_infos; i++)
    {
      const char *name = i < n_infos ? infos[i].name : shown;
      g_autoptr(PrismGraph) fused = NULL;
      guint n_kernels = 0;

      if (i < n_infos && !infos[i].has_reference)
        continue;
      fused = prism_workload_build_reference (name, NULL, &error);
      g_assert_no_error (error);
      for (guint k = 0; k < fused->ops->len; k++)
        n_kernels += prism_graph_op (fused, k)->kind == PRISM_OP_KERNEL;
      g_assert_cmpuint (n_kernels, >, 0);

      /* Start from the built-in, which the file then replaces. */
      g_assert_true (prism_window_load_workload (window, name, NULL, NULL));
      g_assert_cmpuint (gtk_drop_down_get_selected (dropdown), !=, GTK_INVALID_LIST_POSITION);
      open_saved_graph (window, fused);
      g_assert_nonnull (prism_window_get_graph (window));
      assert_rows_match (prism_program_view_get_ops (prism_window_get_program_view (window)), fused);
      /* A file is not a built-in: the drop-down shows none. */
      g_assert_cmpuint (gtk_drop_down_get_selected (dropdown), ==, GTK_INVALID_LIST_POSITION);
    }

  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  screenshot = build_path ("prism-window.png");
  save_screenshot (GTK_WIDGET (window), screenshot);

  window_destroy (window);
}

static void
check_malformed (PrismWindow *window, const char *contents)
{
  g_autofree char *path = write_temp_file ("broken.json", contents);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) expected = NULL;
  g_autoptr(PrismGraph) graph = NULL;
  g_autofree char *secondary = NULL;
  g_autofree char *primary = NULL;
  const PrismGraph *before = prism_window_get_graph (window);
  guint n_rows = g_list_model_get_n_items (prism_program_view_get_ops (prism_window_get_program_view (window)));
  GtkMessageDialog *dialog;

  /* What the reader itself says about the file. */
  graph = prism_graph_load (path, NULL, &expected);
  g_assert_null (graph);
  g_assert_nonnull (expected);
  g_assert_cmpstr (expected->message, !=, "");

  prism_window_open_file (window, file);
  WAIT_UNTIL (find_message_dialog (GTK_WINDOW (window)) != NULL);
  dialog = find_message_dialog (GTK_WINDOW (window));
  g_object_get (dialog, "text", &primary, "secondary-text", &secondary, NULL);
  g_assert_nonnull (strstr (primary, "broken.json"));
  g_assert_cmpstr (secondary, ==, expected->message);
  g_assert_true (gtk_window_get_modal (GTK_WINDOW (dialog)));

  /* The window keeps the program it showed. */
  g_assert_false (prism_window_get_loading (window));
  g_assert_true (prism_window_get_graph (window) == before);
  g_assert_cmpuint (g_list_model_get_n_items (prism_program_view_get_ops (prism_window_get_program_view (window))),
                    ==, n_rows);

  gtk_dialog_response (GTK_DIALOG (dialog), GTK_RESPONSE_CLOSE);
  WAIT_UNTIL (find_message_dialog (GTK_WINDOW (window)) == NULL);
  remove_temp_file (path);
}

static void
test_window_malformed (void)
{
  PrismWindow *window = window_new ();
  const PrismWorkloadInfo *infos;
  guint n_infos = 0;
  g_autoptr(PrismGraph) expected = NULL;
  GtkWindow *chooser;

  infos = prism_workload_list (&n_infos);
  g_assert_true (prism_window_load_workload (window, infos[0].name, NULL, NULL));

  /* The Open… button's chooser appears; cancelling it changes nothing. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.open", NULL));
  WAIT_UNTIL (find_toplevel_of_type (GTK_TYPE_FILE_CHOOSER_DIALOG) != NULL);
  chooser = find_toplevel_of_type (GTK_TYPE_FILE_CHOOSER_DIALOG);
  g_assert_true (gtk_window_get_transient_for (chooser) == GTK_WINDOW (window));
  gtk_dialog_response (GTK_DIALOG (chooser), GTK_RESPONSE_CANCEL);
  WAIT_UNTIL (find_toplevel_of_type (GTK_TYPE_FILE_CHOOSER_DIALOG) == NULL);

  /* Not JSON, JSON of another format, a version we do not read, and a
   * dangling tensor id: each reports the reader's message. */
  check_malformed (window, "{ \"format\": \"prism-graph\", \"version\": 1, ");
  check_malformed (window, "{ \"format\": \"something-else\", \"version\": 1 }");
  check_malformed (window, "{ \"format\": \"prism-graph\", \"version\": 999 }");
  check_malformed (window,
                   "{ \"format\": \"prism-graph\", \"version\": 1, \"name\": \"x\",\n"
                   "  \"ops\": [ { \"op\": \"exp\", \"inputs\": [ 7 ] } ] }");
  g_assert_null (find_message_dialog (GTK_WINDOW (window)));

  /* A missing file is reported too. */
  {
    g_autoptr(GFile) missing = g_file_new_for_path ("/nonexistent/prism/broken.json");
    GtkMessageDialog *dialog;

    prism_window_open_file (window, missing);
    WAIT_UNTIL (find_message_dialog (GTK_WINDOW (window)) != NULL);
    dialog = find_message_dialog (GTK_WINDOW (window));
    gtk_dialog_response (GTK_DIALOG (dialog), GTK_RESPONSE_CLOSE);
    WAIT_UNTIL (find_message_dialog (GTK_WINDOW (window)) == NULL);
  }

  /* Still usable: another workload opens. */
  expected = prism_workload_build (infos[n_infos - 1].name, NULL, NULL);
  g_assert_true (prism_window_load_workload (window, infos[n_infos - 1].name, NULL, NULL));
  assert_rows_match (prism_program_view_get_ops (prism_window_get_program_view (window)), expected);

  window_destroy (window);
}

static void
count_notify (GObject *object, GParamSpec *pspec, guint *count)
{
  (*count)++;
}

static void
test_window_sidebar (void)
{
  PrismWindow *window = window_new ();
  GtkWidget *sidebar = find_widget (GTK_WIDGET (window), GTK_TYPE_STACK_SIDEBAR, NULL);
  guint notified = 0;
  gboolean visible;

  g_assert_nonnull (sidebar);
  g_assert_true (prism_window_load_workload (window, prism_workload_list (NULL)[0].name, NULL, NULL));
  g_assert_true (gtk_widget_is_visible (sidebar));
  g_signal_connect (window, "notify::sidebar-visible", G_CALLBACK (count_notify), &notified);

  /* F9 / the header button: the action hides the whole sidebar pane. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.toggle-sidebar", NULL));
  g_object_get (window, "sidebar-visible", &visible, NULL);
  g_assert_false (visible);
  g_assert_false (gtk_widget_is_visible (sidebar));
  g_assert_cmpuint (notified, ==, 1);

  /* Setting the same value again is not a change. */
  g_object_set (window, "sidebar-visible", FALSE, NULL);
  g_assert_cmpuint (notified, ==, 1);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.toggle-sidebar", NULL));
  g_object_get (window, "sidebar-visible", &visible, NULL);
  g_assert_true (visible);
  g_assert_true (gtk_widget_is_visible (sidebar));
  g_assert_cmpuint (notified, ==, 2);

  window_destroy (window);
}

/* Replaces every op "silu" under @node with "relu" (a wrong program of
 * valid shapes). */
static guint
swap_silu (JsonNode *node)
{
  guint n = 0;

  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *o = json_node_get_object (node);
      g_autoptr(GList) values = json_object_get_values (o);

      for (GList *l = values; l != NULL; l = l->next)
        n += swap_silu (l->data);
      if (g_strcmp0 (json_object_get_string_member_with_default (o, "op", ""), "silu") == 0)
        {
          json_object_set_string_member (o, "op", "relu");
          n++;
        }
    }
  else if (JSON_NODE_HOLDS_ARRAY (node))
    for (guint i = 0; i < json_array_get_length (json_node_get_array (node)); i++)
      n += swap_silu (json_array_get_element (json_node_get_array (node), i));
  return n;
}

/* A results file shows its program and candidates as a finished search; a
 * candidate edited to a wrong program is proved again, left out and named. */
static void
test_window_open_results (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("prism-ui-XXXXXX", &error);
  g_autofree char *path = g_build_filename (dir, "results.json", NULL);
  g_autoptr(PrismGraph) program = prism_workload_build ("swiglu", "n=4,d=64", &error);
  g_autoptr(PrismPipeline) pipeline = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autoptr(GFile) file = NULL;
  g_autofree char *primary = NULL, *secondary = NULL, *expected = NULL;
  PrismWindow *window = window_new ();
  PrismPipelineOptions o;
  JsonObject *edited;
  GtkMessageDialog *dialog;
  guint n;

  g_assert_no_error (error);
  prism_pipeline_options_init (&o);
  o.search.n_threads = 2;
  o.search.time_limit_s = 0;
  o.tune_top = 0;
  o.out_dir = dir;
  pipeline = prism_pipeline_new (program, &o, &error);
  g_assert_no_error (error);
  g_assert_true (prism_pipeline_run (pipeline, &error));
  g_assert_no_error (error);

  g_assert_true (json_parser_load_from_file (parser, path, &error));
  n = json_array_get_length (json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)),
                                                           "candidates"));
  g_assert_cmpuint (n, >, 1);
  edited = json_array_get_object_element (json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)),
                                                                        "candidates"), 0);
  g_assert_cmpuint (swap_silu (json_object_get_member (edited, "symbolic_graph")), >, 0);
  expected = g_strdup_printf ("candidate %" G_GINT64_FORMAT " of %s is not equivalent to its program",
                              json_object_get_int_member (edited, "id"), path);
  json_generator_set_root (gen, json_parser_get_root (parser));
  g_assert_true (json_generator_to_file (gen, path, &error));

  file = g_file_new_for_path (path);
  prism_window_open_file (window, file);
  WAIT_UNTIL (find_message_dialog (GTK_WINDOW (window)) != NULL);
  g_assert_false (prism_window_get_loading (window));
  dialog = find_message_dialog (GTK_WINDOW (window));
  g_object_get (dialog, "text", &primary, "secondary-text", &secondary, NULL);
  g_assert_nonnull (strstr (primary, "1 candidate of “results.json” was not opened"));
  if (strstr (secondary, expected) == NULL)
    g_error ("“%s” lacks “%s”", secondary, expected);
  gtk_dialog_response (GTK_DIALOG (dialog), GTK_RESPONSE_CLOSE);
  WAIT_UNTIL (find_message_dialog (GTK_WINDOW (window)) == NULL);

  /* The program and every other candidate, and no search started. */
  g_assert_cmpstr (prism_window_get_graph (window)->name, ==, "swiglu");
  g_assert_null (prism_window_get_session (window));
  g_assert_cmpuint (g_list_model_get_n_items (prism_search_model_get_candidates (prism_window_get_search_model (window))),
                    ==, n - 1);
  g_assert_cmpint (prism_search_model_get_state (prism_window_get_search_model (window)), ==,
                   PRISM_SEARCH_STATE_FINISHED);

  window_destroy (window);
  g_unlink (path);
  g_rmdir (dir);
}

/* A FIFO is refused by kind, never opened for a blocking read. */
static void
test_window_fifo (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("prism-ui-XXXXXX", &error);
  g_autofree char *path = g_build_filename (dir, "pipe.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autofree char *secondary = NULL;
  PrismWindow *window = window_new ();
  GtkMessageDialog *dialog;

  g_assert_cmpint (mkfifo (path, 0600), ==, 0);
  prism_window_open_file (window, file);
  WAIT_UNTIL (find_message_dialog (GTK_WINDOW (window)) != NULL);
  dialog = find_message_dialog (GTK_WINDOW (window));
  g_object_get (dialog, "secondary-text", &secondary, NULL);
  g_assert_nonnull (strstr (secondary, "is a FIFO (named pipe), not a regular file"));
  gtk_dialog_response (GTK_DIALOG (dialog), GTK_RESPONSE_CLOSE);
  WAIT_UNTIL (find_message_dialog (GTK_WINDOW (window)) == NULL);
  window_destroy (window);
  g_unlink (path);
  g_rmdir (dir);
}

/* A built-in workload's sizes are changed from the header bar: the Sizes
 * popover has one field per shape parameter, set to the sizes shown, and
 * Apply builds the workload again at the new ones; a program file has none. */
static void
test_window_sizes (void)
{
  g_autoptr(GError) error = NULL;
  PrismWindow *window = window_new ();
  GtkMenuButton *button = prism_window_get_sizes_button (window);
  GtkWidget *popover;
  GtkWidget *apply = NULL;
  GPtrArray *spins;
  const PrismTensor *x;
  gint64 shape[PRISM_MAX_DIMS];
  guint set = 0;

  g_assert_false (gtk_widget_get_sensitive (GTK_WIDGET (button)));
  g_assert_true (prism_window_load_workload (window, "rms_norm", "n=8", &error));
  g_assert_no_error (error);
  g_assert_true (gtk_widget_get_sensitive (GTK_WIDGET (button)));
  popover = GTK_WIDGET (gtk_menu_button_get_popover (button));
  g_assert_nonnull (popover);
  apply = g_object_get_data (G_OBJECT (popover), "apply");
  g_assert_nonnull (apply);
  spins = g_object_get_data (G_OBJECT (apply), "spins");
  g_assert_cmpuint (spins->len, ==, 2);
  for (guint i = 0; i < spins->len; i++)
    {
      GtkSpinButton *spin = g_ptr_array_index (spins, i);
      const char *key = g_object_get_data (G_OBJECT (spin), "key");

      if (g_str_equal (key, "n"))
        {
          g_assert_cmpint (gtk_spin_button_get_value_as_int (spin), ==, 8);
          gtk_spin_button_set_value (spin, 4);
          set++;
        }
      if (g_str_equal (key, "d"))
        {
          gtk_spin_button_set_value (spin, 128);
          set++;
        }
    }
  g_assert_cmpuint (set, ==, 2);
  gtk_menu_button_popup (button);
  WAIT_UNTIL (gtk_widget_get_mapped (popover));
  gtk_test_widget_wait_for_draw (popover);
  {
    g_autofree char *shot = g_build_filename (g_test_get_dir (G_TEST_BUILT), "sizes-popover.png", NULL);
    save_screenshot (popover, shot);
  }
  g_signal_emit_by_name (apply, "clicked");
  x = prism_graph_tensor (prism_window_get_graph (window), 0);
  g_assert_true (prism_tensor_get_shape (x, shape));
  g_assert_cmpint (shape[0], ==, 4);
  g_assert_cmpint (shape[1], ==, 128);
  /* The popover now holds the new sizes. */
  spins = g_object_get_data (g_object_get_data (G_OBJECT (gtk_menu_button_get_popover (button)), "apply"), "spins");
  for (guint i = 0; i < spins->len; i++)
    if (g_str_equal (g_object_get_data (G_OBJECT (g_ptr_array_index (spins, i)), "key"), "d"))
      g_assert_cmpint (gtk_spin_button_get_value_as_int (g_ptr_array_index (spins, i)), ==, 128);

  window_destroy (window);
}

/* Run History lists the runs of the cache with the disk they use, opens
 * one's results in the window, and deletes a run only after asking — and
 * never a folder holding something a search does not write. */
static void
test_window_run_history (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *runs_dir = prism_run_info_default_folder ();
  g_autofree char *old = g_build_filename (runs_dir, "swiglu-old", NULL);
  g_autofree char *stray = g_build_filename (runs_dir, "empty-run", NULL);
  g_autofree char *stray_file = g_build_filename (stray, "notes.txt", NULL);
  g_autofree char *nested = g_build_filename (runs_dir, "nested", NULL);
  g_autofree char *nested_sub = g_build_filename (nested, "sub", NULL);
  g_autoptr(PrismGraph) program = prism_workload_build ("swiglu", "n=4,d=64", &error);
  g_autoptr(PrismPipeline) pipeline = NULL;
  PrismWindow *window = window_new ();
  PrismRunHistory *history;
  PrismPipelineOptions o;
  GtkMessageDialog *dialog;
  GPtrArray *runs;
  gint at_old = -1, at_stray = -1, at_nested = -1;

  g_assert_no_error (error);
  prism_pipeline_options_init (&o);
  o.search.n_threads = 2;
  o.search.time_limit_s = 0;
  o.tune_top = 0;
  o.out_dir = old;
  pipeline = prism_pipeline_new (program, &o, &error);
  g_assert_no_error (error);
  g_assert_true (prism_pipeline_run (pipeline, &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_mkdir_with_parents (stray, 0755), ==, 0);
  g_assert_true (g_file_set_contents (stray_file, "left behind", -1, NULL));
  g_assert_cmpint (g_mkdir_with_parents (nested_sub, 0755), ==, 0);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run-history", NULL));
  history = prism_window_get_run_history (window);
  g_assert_nonnull (history);
  WAIT_UNTIL (!prism_run_history_get_loading (history));
  runs = prism_run_history_get_runs (history);
  g_assert_cmpuint (runs->len, ==, 3);
  for (guint i = 0; i < runs->len; i++)
    {
      const PrismRunInfo *info = g_ptr_array_index (runs, i);

      if (g_str_equal (info->name, "swiglu-old"))
        at_old = (gint) i;
      if (g_str_equal (info->name, "empty-run"))
        at_stray = (gint) i;
      if (g_str_equal (info->name, "nested"))
        at_nested = (gint) i;
    }
  g_assert_true (at_old >= 0 && at_stray >= 0 && at_nested >= 0);
  g_assert_nonnull (((PrismRunInfo *) g_ptr_array_index (runs, at_old))->results);
  g_assert_cmpuint (((PrismRunInfo *) g_ptr_array_index (runs, at_old))->bytes, >, 0);
  g_assert_null (((PrismRunInfo *) g_ptr_array_index (runs, at_stray))->results);
  g_test_message ("%s", prism_run_history_get_summary (history));
  g_assert_true (g_str_has_prefix (prism_run_history_get_summary (history), "3 runs, "));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (history));
  {
    g_autofree char *shot = g_build_filename (g_test_get_dir (G_TEST_BUILT), "run-history.png", NULL);
    save_screenshot (GTK_WIDGET (history), shot);
  }

  /* A folder with a folder in it is not a run to empty. */
  prism_run_history_ask_delete (history, (guint) at_nested);
  WAIT_UNTIL ((dialog = find_message_dialog (GTK_WINDOW (history))) != NULL);
  gtk_dialog_response (GTK_DIALOG (dialog), GTK_RESPONSE_ACCEPT);
  WAIT_UNTIL ((dialog = find_message_dialog (GTK_WINDOW (history))) != NULL);
  {
    g_autofree char *primary = NULL, *secondary = NULL;
    g_object_get (dialog, "text", &primary, "secondary-text", &secondary, NULL);
    g_assert_cmpstr (primary, ==, "Could not delete the run");
    g_assert_nonnull (strstr (secondary, "“sub”"));
  }
  gtk_dialog_response (GTK_DIALOG (dialog), GTK_RESPONSE_CLOSE);
  WAIT_UNTIL (find_message_dialog (GTK_WINDOW (history)) == NULL);
  g_assert_true (g_file_test (nested_sub, G_FILE_TEST_IS_DIR));

  /* Cancel keeps a run; Delete removes it. */
  WAIT_UNTIL (!prism_run_history_get_loading (history));
  runs = prism_run_history_get_runs (history);
  for (guint i = 0; i < runs->len; i++)
    if (g_str_equal (((PrismRunInfo *) g_ptr_array_index (runs, i))->name, "empty-run"))
      at_stray = (gint) i;
  prism_run_history_ask_delete (history, (guint) at_stray);
  WAIT_UNTIL ((dialog = find_message_dialog (GTK_WINDOW (history))) != NULL);
  gtk_dialog_response (GTK_DIALOG (dialog), GTK_RESPONSE_CANCEL);
  WAIT_UNTIL (find_message_dialog (GTK_WINDOW (history)) == NULL);
  g_assert_true (g_file_test (stray_file, G_FILE_TEST_EXISTS));
  prism_run_history_ask_delete (history, (guint) at_stray);
  WAIT_UNTIL ((dialog = find_message_dialog (GTK_WINDOW (history))) != NULL);
  gtk_dialog_response (GTK_DIALOG (dialog), GTK_RESPONSE_ACCEPT);
  WAIT_UNTIL (find_message_dialog (GTK_WINDOW (history)) == NULL);
  WAIT_UNTIL (!prism_run_history_get_loading (history) && prism_run_history_get_runs (history)->len == 2);
  g_assert_false (g_file_test (stray, G_FILE_TEST_EXISTS));

  /* Open shows the run's program and candidates in the window. */
  runs = prism_run_history_get_runs (history);
  for (guint i = 0; i < runs->len; i++)
    if (g_str_equal (((PrismRunInfo *) g_ptr_array_index (runs, i))->name, "swiglu-old"))
      at_old = (gint) i;
  prism_run_history_open_run (history, (guint) at_old);
  WAIT_UNTIL (!prism_window_get_loading (window) && prism_window_get_graph (window) != NULL);
  WAIT_UNTIL (g_list_model_get_n_items (prism_search_model_get_candidates (prism_window_get_search_model (window))) > 0);
  g_assert_cmpstr (prism_window_get_graph (window)->name, ==, "swiglu");

  window_destroy (window);
  g_rmdir (nested_sub);
  g_rmdir (nested);
}

/* tests/ir/mirage/rmsnorm.json: four graphs written for rms_norm at
 * n=8, d=128; graphs 0–2 compute it, graph 3 divides where it should
 * multiply. */
static char *
mirage_file (void)
{
  return g_build_filename (g_getenv ("PRISM_SOURCE_DIR"), "tests", "ir", "mirage", "rmsnorm.json", NULL);
}

static void
collect_check_buttons (GtkWidget *widget, GPtrArray *out)
{
  if (GTK_IS_CHECK_BUTTON (widget) && gtk_widget_get_mapped (widget))
    g_ptr_array_add (out, widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    collect_check_buttons (child, out);
}

/* What the table shows as a row's time and speedup are against one
 * baseline: time × speedup is the baseline's time. */
static double
baseline_of (PrismCandidateRow *row)
{
  return prism_candidate_row_get_predicted_us (row) * prism_candidate_row_get_speedup (row);
}

/* With a finished search shown, a Mirage file is added to it, without a
 * question: its equivalent graphs become rows "Mirage graph N" beside the
 * search's candidates, priced against the same baseline; the wrong graph
 * is named in one dialog, with why; a Mirage row compares with ours. */
static void
test_window_mirage (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = mirage_file ();
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autofree char *primary = NULL, *secondary = NULL, *screenshot = NULL;
  PrismWindow *window = window_new ();
  PrismSearchModel *model = prism_window_get_search_model (window);
  PrismCandidatesView *view = prism_window_get_candidates_view (window);
  GtkSelectionModel *selection = prism_candidates_view_get_selection (view);
  PrismCompareView *compare = prism_candidates_view_get_compare_view (view);
  g_autoptr(GPtrArray) checks = g_ptr_array_new ();
  g_autoptr(PrismCandidateRow) ours = NULL;
  PrismSession *session;
  PrismCandidateRow *best;
  GtkMessageDialog *dialog;
  GtkMessageType type;
  guint n_ours, n_verified, seen = 0;
  const char *a, *b;

  g_assert_true (prism_window_load_workload (window, "rms_norm", "n=8,d=128", &error));
  g_assert_no_error (error);
  prism_window_start_search (window);
  session = prism_window_get_session (window);
  g_assert_nonnull (session);
  WAIT_UNTIL (prism_search_model_get_state (model) == PRISM_SEARCH_STATE_FINISHED);
  n_ours = g_list_model_get_n_items (prism_search_model_get_candidates (model));
  n_verified = prism_search_model_get_verified (model);
  best = prism_search_model_get_best (model);
  g_assert_cmpuint (n_ours, >, 0);
  ours = g_list_model_get_item (prism_search_model_get_candidates (model), 0);

  /* What Open… and a drop do: the run has candidates to lose, yet nothing
   * is asked, since nothing is replaced. */
  prism_window_ask_open_file (window, file);
  /* The result comes through the main loop: until then the status says why
   * the window waits. */
  g_assert_true (prism_window_get_loading (window));
  g_assert_nonnull (strstr (prism_window_get_status (window), "Verifying the graphs of “rmsnorm.json”"));
  WAIT_UNTIL (!prism_window_get_loading (window));
  g_assert_null (strstr (prism_window_get_status (window), "Verifying"));
  g_assert_true (g_str_has_prefix (prism_window_get_status (window), "Finished"));
  dialog = find_message_dialog (GTK_WINDOW (window));
  g_assert_nonnull (dialog);
  g_object_get (dialog, "message-type", &type, "text", &primary, "secondary-text", &secondary, NULL);
  g_test_message ("%s\n%s", primary, secondary);
  g_assert_cmpint (type, ==, GTK_MESSAGE_ERROR);
  g_assert_cmpstr (primary, ==, "1 of the 4 graphs of “rmsnorm.json” was not added");
  g_assert_true (g_str_has_prefix (secondary, "Mirage graph 3 of "));
  g_assert_nonnull (strstr (secondary, "rmsnorm.json is not equivalent to the program: Not equivalent: "
                                       "the outputs differ"));
  g_assert_null (strchr (secondary, '\n'));
  gtk_dialog_response (GTK_DIALOG (dialog), GTK_RESPONSE_CLOSE);
  WAIT_UNTIL (find_message_dialog (GTK_WINDOW (window)) == NULL);

  /* The run is the same, its counters and best untouched. */
  g_assert_true (prism_window_get_session (window) == session);
  g_assert_cmpint (prism_session_get_state (session), ==, PRISM_SESSION_FINISHED);
  g_assert_cmpuint (prism_search_model_get_verified (model), ==, n_verified);
  g_assert_true (prism_search_model_get_best (model) == best);
  g_assert_cmpuint (prism_search_model_get_n_external (model), ==, 3);
  g_assert_cmpuint (g_list_model_get_n_items (prism_search_model_get_candidates (model)), ==, n_ours + 3);

  /* Graphs 0, 1 and 2, proved and tested, priced like ours. */
  for (guint i = 0; i < g_list_model_get_n_items (prism_search_model_get_candidates (model)); i++)
    {
      g_autoptr(PrismCandidateRow) row = g_list_model_get_item (prism_search_model_get_candidates (model), i);
      g_autofree char *label = NULL;
      guint index = prism_candidate_row_get_id (row);

      if (!prism_candidate_row_is_external (row))
        continue;
      label = g_strdup_printf ("Mirage graph %u", index);
      g_assert_cmpuint (index, <, 3);
      seen |= 1u << index;
      g_assert_cmpstr (prism_candidate_row_get_label (row), ==, label);
      g_assert_cmpstr (prism_candidate_row_get_source (row), ==, "rmsnorm.json");
      g_assert_cmpstr (prism_candidate_row_get_verdict (row), ==, "equivalent");
      g_assert_cmpint (prism_candidate_row_get_method (row), ==, PRISM_VERIFICATION_FORMAL_RANDOM);
      g_assert_true (prism_candidate_row_get_proved (row));
      g_assert_true (prism_candidate_row_get_random_ok (row));
      g_assert_cmpuint (prism_candidate_row_get_kernels (row), ==,
                        prism_cost_model_count_launches (prism_candidate_row_get_graph (row)));
      g_assert_cmpfloat (prism_candidate_row_get_predicted_us (row), >, 0);
      g_assert_cmpfloat_with_epsilon (baseline_of (row), baseline_of (ours), 1e-9 * baseline_of (ours));
    }
  g_assert_cmpuint (seen, ==, 7);

  /* The # column names them; sorted by it, they follow ours. */
  {
    GtkColumnView *table = prism_candidates_view_get_column_view (view);
    /* After the Compare column. */
    g_autoptr(GtkColumnViewColumn) id_column = g_list_model_get_item (gtk_column_view_get_columns (table), 1);
    g_autofree char *first = NULL, *third = NULL, *fourth = NULL;
    g_autofree char *found = NULL;

    g_assert_cmpstr (gtk_column_view_column_get_title (id_column), ==, "#");
    gtk_column_view_sort_by_column (table, id_column, GTK_SORT_DESCENDING);
    first = prism_candidates_view_dup_cell_text (view, 0, "id");
    third = prism_candidates_view_dup_cell_text (view, 2, "id");
    fourth = prism_candidates_view_dup_cell_text (view, 3, "id");
    found = prism_candidates_view_dup_cell_text (view, 0, "found-at");

    g_assert_cmpstr (first, ==, "Mirage graph 2");
    g_assert_cmpstr (third, ==, "Mirage graph 0");
    g_assert_cmpuint (atoi (fourth), ==, n_ours);
    g_assert_cmpstr (found, ==, "—");
  }

  /* A Mirage graph and one of ours, ticked in the Compare column. */
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  collect_check_buttons (GTK_WIDGET (prism_candidates_view_get_column_view (view)), checks);
  g_assert_cmpuint (checks->len, >=, 4);
  gtk_widget_activate (g_ptr_array_index (checks, 0));
  gtk_widget_activate (g_ptr_array_index (checks, 3));
  g_assert_cmpstr (prism_candidates_view_get_mode (view), ==, "compare");
  a = prism_compare_view_get_candidate (compare, FALSE)->id;
  b = prism_compare_view_get_candidate (compare, TRUE)->id;
  g_test_message ("comparing %s and %s", a, b);
  g_assert_true ((g_str_equal (a, "Mirage graph 2") && b[0] == '#') ||
                 (g_str_equal (b, "Mirage graph 2") && a[0] == '#'));
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (selection)), ==, n_ours + 3);

  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  screenshot = build_path ("prism-mirage.png");
  save_screenshot (GTK_WIDGET (window), screenshot);

  /* The same file again adds no second row of a graph, and says so
   * (issue 25, item 5: graphs merged into others went unsaid). */
  prism_window_open_file (window, file);
  WAIT_UNTIL (!prism_window_get_loading (window));
  dialog = find_message_dialog (GTK_WINDOW (window));
  g_assert_nonnull (dialog);
  g_clear_pointer (&primary, g_free);
  g_object_get (dialog, "text", &primary, NULL);
  g_assert_cmpstr (primary, ==, "4 of the 4 graphs of “rmsnorm.json” were not added");
  gtk_dialog_response (GTK_DIALOG (dialog), GTK_RESPONSE_CLOSE);
  WAIT_UNTIL (find_message_dialog (GTK_WINDOW (window)) == NULL);
  g_assert_cmpuint (prism_search_model_get_n_external (model), ==, 3);

  /* A new program ends them with the run. */
  g_assert_true (prism_window_load_workload (window, "rms_norm", "n=8,d=128", &error));
  g_assert_cmpuint (prism_search_model_get_n_external (model), ==, 0);

  window_destroy (window);
}

/* Issue 25, item 4: a dialog that lists one refused graph per line grew
 * with the list (1384 px for 28 graphs, its Close button off the screen).
 * Thirty copies of rmsnorm.json's graph 3, which is not equivalent to the
 * program, are refused: the list scrolls inside a dialog that fits. */
static void
test_window_mirage_many_refused (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = mirage_file ();
  g_autofree char *contents = NULL;
  g_autofree char *dir = g_dir_make_tmp ("prism-mirage-XXXXXX", &error);
  g_autofree char *copies = NULL;
  g_autofree char *primary = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(JsonArray) many = json_array_new ();
  g_autoptr(JsonNode) root = json_node_new (JSON_NODE_ARRAY);
  g_autoptr(GFile) file = NULL;
  PrismWindow *window = window_new ();
  GtkMessageDialog *dialog;
  GtkWidget *scrolled;
  int height = 0;

  g_assert_no_error (error);
  g_assert_true (json_parser_load_from_file (parser, path, &error));
  g_assert_no_error (error);
  for (guint i = 0; i < 30; i++)
    json_array_add_element (many, json_node_copy (json_array_get_element (json_node_get_array (json_parser_get_root (parser)), 3)));
  json_node_set_array (root, many);
  contents = json_to_string (root, FALSE);
  copies = g_build_filename (dir, "refused.json", NULL);
  g_assert_true (g_file_set_contents (copies, contents, -1, &error));
  g_assert_no_error (error);
  file = g_file_new_for_path (copies);

  g_assert_true (prism_window_load_workload (window, "rms_norm", "n=8,d=128", &error));
  g_assert_no_error (error);
  prism_window_open_file (window, file);
  {
    gint64 end = g_get_monotonic_time () + 120 * G_USEC_PER_SEC;

    while (prism_window_get_loading (window) && g_get_monotonic_time () < end)
      if (!g_main_context_iteration (NULL, FALSE))
        g_usleep (1000);
    g_assert_false (prism_window_get_loading (window));
  }
  WAIT_UNTIL ((dialog = find_message_dialog (GTK_WINDOW (window))) != NULL);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (dialog));
  g_object_get (dialog, "text", &primary, NULL);
  g_test_message ("%s: %d px tall", primary, gtk_widget_get_height (GTK_WIDGET (dialog)));
  g_assert_cmpstr (primary, ==, "30 of the 30 graphs of “refused.json” were not added");
  gtk_widget_measure (GTK_WIDGET (dialog), GTK_ORIENTATION_VERTICAL, gtk_widget_get_width (GTK_WIDGET (dialog)),
                      NULL, &height, NULL, NULL);
  g_assert_cmpint (height, <=, 600);
  g_assert_cmpint (gtk_widget_get_height (GTK_WIDGET (dialog)), <=, 600);
  scrolled = find_widget (GTK_WIDGET (dialog), GTK_TYPE_SCROLLED_WINDOW, NULL);
  g_assert_nonnull (scrolled);
  {
    g_autofree char *screenshot = build_path ("mirage-refused.png");

    save_screenshot (GTK_WIDGET (dialog), screenshot);
  }
  gtk_dialog_response (GTK_DIALOG (dialog), GTK_RESPONSE_CLOSE);
  WAIT_UNTIL (find_message_dialog (GTK_WINDOW (window)) == NULL);

  window_destroy (window);
  g_unlink (copies);
  g_rmdir (dir);
}

/* Issue 25, item 5: verifying a Mirage file's graphs could not be
 * cancelled.  Stop cancels it; the program and its run stay, nothing is
 * added and nothing is asked. */
static void
test_window_mirage_cancel (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = mirage_file ();
  g_autofree char *contents = NULL;
  g_autofree char *dir = g_dir_make_tmp ("prism-mirage-XXXXXX", &error);
  g_autofree char *copies = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(JsonArray) many = json_array_new ();
  g_autoptr(JsonNode) root = json_node_new (JSON_NODE_ARRAY);
  g_autoptr(GFile) file = NULL;
  PrismWindow *window = window_new ();

  g_assert_no_error (error);
  g_assert_true (json_parser_load_from_file (parser, path, &error));
  g_assert_no_error (error);
  /* Enough that the status line is refreshed (every 250 ms) long before
   * the last is decided, on any machine. */
  for (guint i = 0; i < 1000; i++)
    json_array_add_element (many, json_node_copy (json_array_get_element (json_node_get_array (json_parser_get_root (parser)), i % 4)));
  json_node_set_array (root, many);
  contents = json_to_string (root, FALSE);
  copies = g_build_filename (dir, "many.json", NULL);
  g_assert_true (g_file_set_contents (copies, contents, -1, &error));
  g_assert_no_error (error);
  file = g_file_new_for_path (copies);

  g_assert_true (prism_window_load_workload (window, "rms_norm", "n=8,d=128", &error));
  g_assert_no_error (error);
  prism_window_open_file (window, file);
  g_assert_true (prism_window_get_loading (window));
  /* It says how far it is (issue 25, item 5: minutes with no word). */
  WAIT_UNTIL (strstr (prism_window_get_status (window), " of 1000 of “many.json”") != NULL);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.search-stop", NULL));
  g_assert_false (prism_window_get_loading (window));
  ui_test_spin_for_ms (300);
  g_assert_null (find_message_dialog (GTK_WINDOW (window)));
  g_assert_cmpuint (prism_search_model_get_n_external (prism_window_get_search_model (window)), ==, 0);
  g_assert_null (strstr (prism_window_get_status (window), "Verifying"));

  window_destroy (window);
  g_unlink (copies);
  g_rmdir (dir);
}

/* A Mirage file holds no program: with none shown, the dialog says to open
 * the reference program first, and nothing changes. */
static void
test_window_mirage_no_program (void)
{
  g_autofree char *path = mirage_file ();
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autofree char *primary = NULL, *secondary = NULL;
  PrismWindow *window = window_new ();
  GtkMessageDialog *dialog;

  g_assert_true (prism_mirage_file_is_mugraphs (path));
  prism_window_ask_open_file (window, file);
  WAIT_UNTIL (find_message_dialog (GTK_WINDOW (window)) != NULL);
  g_assert_false (prism_window_get_loading (window));
  dialog = find_message_dialog (GTK_WINDOW (window));
  g_object_get (dialog, "text", &primary, "secondary-text", &secondary, NULL);
  g_assert_cmpstr (primary, ==, "Could not open “rmsnorm.json”");
  g_assert_nonnull (strstr (secondary, "is a Mirage muGraph file"));
  g_assert_nonnull (strstr (secondary, "Open the reference program first"));
  gtk_dialog_response (GTK_DIALOG (dialog), GTK_RESPONSE_CLOSE);
  WAIT_UNTIL (find_message_dialog (GTK_WINDOW (window)) == NULL);
  g_assert_null (prism_window_get_graph (window));
  g_assert_cmpuint (g_list_model_get_n_items (prism_search_model_get_candidates (prism_window_get_search_model (window))),
                    ==, 0);
  window_destroy (window);
}

/*****************************************************************************/

/* Issue 25, item 11: Run History said when and how big each run was, not
 * what it was, and could not compare two. */
static void
test_window_run_history_compare (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *folder = g_dir_make_tmp ("prism-history-XXXXXX", &error);
  g_autoptr(PrismGraph) program = prism_workload_build ("rms_norm", "n=8,d=128", &error);
  PrismWindow *window = window_new ();
  PrismRunHistory *history;
  g_autoptr(GPtrArray) lines = NULL;
  g_autoptr(GString) all = g_string_new (NULL);
  GPtrArray *runs;

  g_assert_no_error (error);
  for (guint i = 0; i < 2; i++)
    {
      g_autofree char *name = g_strdup_printf ("rms_norm-run-%u", i);
      g_autofree char *out = g_build_filename (folder, name, NULL);
      g_autoptr(PrismPipeline) pipeline = NULL;
      PrismPipelineOptions o;

      prism_pipeline_options_init (&o);
      o.search.n_threads = 2;
      o.search.time_limit_s = 0;
      o.tune_top = 0;
      o.source = "rms_norm";
      o.search.max_block_ops = i == 0 ? 9 : 11;
      o.out_dir = out;
      pipeline = prism_pipeline_new (program, &o, &error);
      g_assert_no_error (error);
      g_assert_true (prism_pipeline_run (pipeline, &error));
      g_assert_no_error (error);
    }

  history = prism_run_history_new (GTK_WINDOW (window), folder);
  gtk_window_present (GTK_WINDOW (history));
  WAIT_UNTIL (!prism_run_history_get_loading (history));
  runs = prism_run_history_get_runs (history);
  g_assert_cmpuint (runs->len, ==, 2);
  for (guint i = 0; i < runs->len; i++)
    {
      const PrismRunInfo *info = g_ptr_array_index (runs, i);

      g_test_message ("%s: %s", info->name, info->summary);
      g_assert_nonnull (info->summary);
      g_assert_true (g_str_has_prefix (info->summary, "rms_norm · symbolic · h100 · "));
      g_assert_nonnull (strstr (info->summary, " verified ("));
      g_assert_nonnull (strstr (info->summary, " · best "));
      g_assert_nonnull (info->limits);
      g_assert_nonnull (strstr (info->limits, "max_block_ops="));
    }
  lines = prism_run_history_compare (history, 0, 1);
  for (guint i = 0; i < lines->len; i++)
    g_string_append_printf (all, "%s\n", (char *) g_ptr_array_index (lines, i));
  g_test_message ("compare:\n%s", all->str);
  g_assert_nonnull (strstr (all->str, "max_block_ops: 11 → 9") ? strstr (all->str, "max_block_ops: 11 → 9")
                                                              : strstr (all->str, "max_block_ops: 9 → 11"));
  g_assert_null (strstr (all->str, "seed:"));
  WAIT_UNTIL (find_message_dialog (GTK_WINDOW (history)) != NULL);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (find_message_dialog (GTK_WINDOW (history))));
  {
    g_autofree char *shot = build_path ("run-history-compare.png");

    save_screenshot (GTK_WIDGET (history), shot);
  }
  gtk_dialog_response (GTK_DIALOG (find_message_dialog (GTK_WINDOW (history))), GTK_RESPONSE_CLOSE);
  WAIT_UNTIL (find_message_dialog (GTK_WINDOW (history)) == NULL);

  gtk_window_destroy (GTK_WINDOW (history));
  window_destroy (window);
  for (guint i = 0; i < 2; i++)
    {
      g_autofree char *name = g_strdup_printf ("rms_norm-run-%u", i);
      g_autofree char *out = g_build_filename (folder, name, NULL);

      ui_test_rm_rf (out);
    }
  g_rmdir (folder);
}

/* The shortcuts of the window's help overlay: every one names an action
 * with an accelerator, or an accelerator of its own. */
static void
collect_shortcuts (GtkWidget *widget,
                   GPtrArray *out)
{
  if (GTK_IS_SHORTCUTS_SHORTCUT (widget))
    g_ptr_array_add (out, widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    collect_shortcuts (child, out);
}

/* Issue 25, item 13: the five pages, Export Kernel, Run History and Export
 * Results had no keys; the shortcuts window listed neither them nor the
 * charts' + − 0. */
static void
test_window_shortcuts (void)
{
  static const char * const pages[] = { "program", "search", "candidates", "graph", "kernel" };
  static const struct { const char *action, *accel; } keys[] = {
    { "win.export-kernel", "<Control>e" },
    { "win.export-results", "<Shift><Control>e" },
    { "win.run-history", "<Control>h" },
  };
  PrismWindow *window = window_new ();
  GtkStack *stack = NULL;
  GtkWindow *overlay;
  g_autoptr(GPtrArray) shortcuts = g_ptr_array_new ();
  g_autoptr(GString) listed = g_string_new (NULL);
  g_autoptr(GError) error = NULL;

  g_assert_true (prism_window_load_workload (window, "rms_norm", NULL, &error));
  g_assert_no_error (error);
  stack = GTK_STACK (gtk_widget_get_parent (GTK_WIDGET (prism_window_get_search_view (window))));
  for (guint i = 0; i < G_N_ELEMENTS (pages); i++)
    {
      g_autofree char *action = g_strdup_printf ("win.show-page('%s')", pages[i]);
      g_autofree char *want = g_strdup_printf ("<Alt>%u", i + 1);
      g_auto(GStrv) accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app), action);

      g_assert_nonnull (accels[0]);
      g_assert_cmpstr (accels[0], ==, want);
    }
  for (guint i = G_N_ELEMENTS (pages); i-- > 0;)
    {
      g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-page", "s", pages[i]));
      g_assert_cmpstr (gtk_stack_get_visible_child_name (stack), ==, pages[i]);
    }
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      g_auto(GStrv) accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app), keys[i].action);

      g_assert_nonnull (accels[0]);
      g_assert_cmpstr (accels[0], ==, keys[i].accel);
    }

  overlay = gtk_application_window_get_help_overlay (GTK_APPLICATION_WINDOW (window)) ?
            GTK_WINDOW (gtk_application_window_get_help_overlay (GTK_APPLICATION_WINDOW (window))) : NULL;
  g_assert_nonnull (overlay);
  /* As the menu item reads (issue 25, item 14: GTK's own title differed). */
  g_assert_cmpstr (gtk_window_get_title (overlay), ==, "Keyboard Shortcuts");
  collect_shortcuts (GTK_WIDGET (overlay), shortcuts);
  for (guint i = 0; i < shortcuts->len; i++)
    {
      g_autofree char *action = NULL, *accel = NULL;

      g_object_get (g_ptr_array_index (shortcuts, i), "action-name", &action, "accelerator", &accel, NULL);
      g_string_append_printf (listed, "[%s|%s]", action ? action : "", accel ? accel : "");
    }
  g_test_message ("shortcuts window: %s", listed->str);
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    g_assert_nonnull (strstr (listed->str, keys[i].action));
  for (guint i = 1; i <= G_N_ELEMENTS (pages); i++)
    {
      g_autofree char *page = g_strdup_printf ("|<Alt>%u]", i);

      g_assert_nonnull (strstr (listed->str, page));
    }
  g_assert_nonnull (strstr (listed->str, "|plus]"));
  g_assert_nonnull (strstr (listed->str, "|minus]"));
  g_assert_nonnull (strstr (listed->str, "|0]"));
  gtk_window_present (overlay);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (overlay));
  {
    g_autofree char *screenshot = build_path ("shortcuts.png");

    save_screenshot (GTK_WIDGET (overlay), screenshot);
  }
  gtk_window_close (overlay);

  window_destroy (window);
}

int
main (int argc, char *argv[])
{
  g_autoptr(GError) error = NULL;
  g_autofree char *cache_dir = NULL;
  int ret;

  if (g_getenv ("DISPLAY") == NULL && g_getenv ("WAYLAND_DISPLAY") == NULL)
    {
      g_printerr ("no display: run the ui suite under xvfb-run\n");
      return 77;
    }
  /* Runs go to a cache of the test's own, never the user's. */
  cache_dir = g_dir_make_tmp ("prism-window-cache-XXXXXX", &error);
  g_assert_no_error (error);
  g_setenv ("XDG_CACHE_HOME", cache_dir, TRUE);
  gtk_test_init (&argc, &argv, NULL);

  /* Pages and popovers appear at once, so what is checked is what is seen. */
  g_object_set (gtk_settings_get_default (), "gtk-enable-animations", FALSE, NULL);

  app = prism_application_new ();
  /* No session bus is needed or wanted for a test. */
  g_application_set_flags (G_APPLICATION (app),
                           g_application_get_flags (G_APPLICATION (app)) | G_APPLICATION_NON_UNIQUE);
  g_application_register (G_APPLICATION (app), NULL, &error);
  g_assert_no_error (error);

  g_test_add_func ("/explorer/window/workload", test_window_workload);
  g_test_add_func ("/explorer/window/dropdown", test_window_dropdown);
  g_test_add_func ("/explorer/window/open-file", test_window_open_file);
  g_test_add_func ("/explorer/window/malformed", test_window_malformed);
  g_test_add_func ("/explorer/window/sidebar", test_window_sidebar);
  g_test_add_func ("/explorer/window/shortcuts", test_window_shortcuts);
  g_test_add_func ("/explorer/window/open-results", test_window_open_results);
  g_test_add_func ("/explorer/window/fifo", test_window_fifo);
  g_test_add_func ("/explorer/window/run-history", test_window_run_history);
  g_test_add_func ("/explorer/window/run-history-compare", test_window_run_history_compare);
  g_test_add_func ("/explorer/window/sizes", test_window_sizes);
  g_test_add_func ("/explorer/window/mirage", test_window_mirage);
  g_test_add_func ("/explorer/window/mirage-many-refused", test_window_mirage_many_refused);
  g_test_add_func ("/explorer/window/mirage-cancel", test_window_mirage_cancel);
  g_test_add_func ("/explorer/window/mirage-no-program", test_window_mirage_no_program);

  ret = g_test_run ();
  g_clear_object (&app);
  ui_test_rm_rf (cache_dir);
  return ret;
}
