/* test-model-view.c — an ONNX model opened in the explorer (the Model page)
 *
 * Opens a model of Debian's onnx test data through the window, as File >
 * Open does; the whole model is drawn on the Model page and no search
 * starts; Find Blocks proposes the block around its matmul; a region
 * chosen by a rectangle over ops is shown with its inputs and outputs,
 * saved as a program and searched.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>
#include <glib/gstdio.h>
#include <gtk/gtk.h>

#include "prism-graph-json.h"
#include "prism-search-model.h"
#include "prism-window.h"
#include "ui-test-util.h"

#define MODEL "/usr/share/libonnx-testdata/data/node/test_gemm_all_attributes/model.onnx"

#define WAIT_UNTIL(cond)                                                       \
  G_STMT_START {                                                               \
    gint64 wait_end_ = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;          \
    while (!(cond))                                                            \
      {                                                                        \
        if (g_get_monotonic_time () > wait_end_)                               \
          g_error ("gave up waiting for: %s", #cond);                          \
        if (!g_main_context_iteration (NULL, FALSE))                           \
          g_usleep (1000);                                                     \
      }                                                                        \
  } G_STMT_END

static PrismApplication *app;

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

/* A model with a symbolic dim: the Model page asks its size, then shows
 * the model imported with it. */
static void
test_model_dim_param (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("PRISM_SOURCE_DIR"), "tests", "import", "models", "dim_param",
                                            "model.onnx", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  PrismWindow *window = prism_window_new (app);
  PrismModelView *view = prism_window_get_model_view (window);
  const char *const *names;
  const PrismGraph *model;
  gint64 shape[PRISM_MAX_DIMS];

  gtk_window_present (GTK_WINDOW (window));
  prism_window_open_file (window, file);
  WAIT_UNTIL (prism_model_view_get_dim_names (view) != NULL && !prism_window_get_loading (window));
  names = prism_model_view_get_dim_names (view);
  g_assert_cmpstr (names[0], ==, "batch");
  g_assert_null (names[1]);
  g_assert_null (prism_model_view_get_model (view));
  g_assert_null (find_message_dialog (GTK_WINDOW (window)));
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (view)));
  g_assert_true (prism_model_view_set_dim (view, "batch", 4));
  g_assert_false (prism_model_view_set_dim (view, "seq", 4));
  prism_model_view_open_sized (view);
  WAIT_UNTIL (prism_model_view_get_model (view) != NULL);
  model = prism_model_view_get_model (view);
  g_assert_true (prism_tensor_get_shape (prism_graph_tensor (model, 0), shape));
  g_assert_cmpint (shape[0], ==, 4);
  g_assert_cmpint (shape[1], ==, 16);
  g_assert_null (prism_model_view_get_dim_names (view));
  g_assert_true (prism_window_get_graph (window) == model);
  g_assert_null (prism_window_get_session (window));
  gtk_window_destroy (GTK_WINDOW (window));
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

/* The box of the graph view's node for op @op, in widget coordinates. */
static gboolean
node_box (PrismGraphView *view, guint op, graphene_rect_t *out)
{
  PrismGraphLayout *layout = prism_graph_view_get_layout (view);
  double zoom, ox, oy;

  prism_graph_view_get_transform (view, &zoom, &ox, &oy);
  for (guint i = 0; i < layout->nodes->len; i++)
    {
      const PrismLayoutNode *node = prism_graph_layout_node (layout, i);
      if (node->op_id == prism_op_id_make (-1, op))
        {
          graphene_rect_init (out, ox + node->x * zoom, oy + node->y * zoom, node->width * zoom, node->height * zoom);
          return TRUE;
        }
    }
  return FALSE;
}

static void
test_model_open (void)
{
  g_autoptr(GFile) file = g_file_new_for_path (MODEL);
  PrismWindow *window;
  PrismModelView *view;
  PrismGraphView *graph_view;
  const PrismGraph *model;
  const PrismGraphRegion *region;
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *saved = NULL;
  g_autoptr(GFile) saved_file = NULL;
  g_autoptr(PrismGraph) again = NULL;
  graphene_rect_t a, b;
  guint matmul = G_MAXUINT, transpose = G_MAXUINT;

  if (!g_file_test (MODEL, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("libonnx-testdata is not installed");
      return;
    }
  window = prism_window_new (app);
  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 860);
  gtk_window_present (GTK_WINDOW (window));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  view = prism_window_get_model_view (window);
  graph_view = prism_model_view_get_graph_view (view);

  /* Opened whole, on the Model page; no search on the whole model. */
  prism_window_open_file (window, file);
  WAIT_UNTIL (prism_model_view_get_model (view) != NULL && !prism_window_get_loading (window));
  WAIT_UNTIL (prism_graph_view_get_layout (graph_view) != NULL && !prism_graph_view_get_loading (graph_view));
  ui_test_spin_for_ms (200);
  model = prism_model_view_get_model (view);
  g_assert_cmpstr (model->name, ==, "test_gemm_all_attributes");
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (view)));
  g_assert_null (prism_window_get_session (window));
  g_assert_null (prism_model_view_get_region (view));

  /* Find Blocks: one block, the matmul and the ops around it. */
  g_assert_cmpuint (prism_model_view_find_blocks (view), ==, 1);
  prism_model_view_select_block (view, 0);
  region = prism_model_view_get_region (view);
  g_assert_nonnull (region);
  for (guint i = 0; i < model->ops->len; i++)
    {
      PrismOpKind kind = prism_graph_op (model, i)->kind;
      if (kind == PRISM_OP_MATMUL)
        matmul = i;
      if (kind == PRISM_OP_TRANSPOSE && transpose == G_MAXUINT)
        transpose = i;
    }
  g_assert_true (prism_graph_region_contains (region, matmul));
  g_assert_cmpuint (region->inputs->len, ==, 3);
  g_assert_cmpuint (region->outputs->len, ==, 1);

  /* A rectangle over the first transpose and the matmul: what a Shift+drag selects. */
  prism_model_view_set_region (view, NULL, 0);
  g_assert_true (node_box (graph_view, transpose, &a));
  g_assert_true (node_box (graph_view, matmul, &b));
  graphene_rect_union (&a, &b, &a);
  prism_model_view_select_rect (view, a.origin.x + 1, a.origin.y + 1, a.origin.x + a.size.width - 1,
                                a.origin.y + a.size.height - 1);
  region = prism_model_view_get_region (view);
  g_assert_nonnull (region);
  g_assert_true (prism_graph_region_contains (region, matmul));
  g_assert_true (prism_graph_region_contains (region, transpose));
  g_assert_nonnull (strstr (prism_model_view_get_summary (view), "Inputs"));
  g_assert_nonnull (strstr (prism_model_view_get_summary (view), "Outputs"));

  /* Back to the whole block for the screenshot and the search. */
  prism_model_view_select_block (view, 0);
  ui_test_spin_for_ms (300);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  ui_test_save_screenshot (GTK_WIDGET (window), "model-region.png");

  /* Save Region: a valid program file. */
  dir = g_dir_make_tmp ("prism-model-XXXXXX", &error);
  g_assert_no_error (error);
  saved = g_build_filename (dir, "region.json", NULL);
  saved_file = g_file_new_for_path (saved);
  g_assert_true (prism_model_view_save_region (view, saved_file, &error));
  g_assert_no_error (error);
  again = prism_graph_load (saved, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (again->ops->len, >, 3);

  /* Search Region: the region is the program, and its search runs. */
  g_assert_true (prism_model_view_search_region (view));
  g_assert_nonnull (prism_window_get_session (window));
  g_assert_nonnull (strstr (prism_window_get_graph (window)->name, "region of"));
  /* Searching: states explored (a whole search of it takes longer than a test should). */
  WAIT_UNTIL (prism_search_model_get_stats (prism_window_get_search_model (window))->search.states > 0
              || prism_search_model_get_state (prism_window_get_search_model (window)) == PRISM_SEARCH_STATE_FINISHED);
  g_assert_cmpint (prism_search_model_get_state (prism_window_get_search_model (window)), !=, PRISM_SEARCH_STATE_FAILED);
  /* The model stays on its page for the next region. */
  g_assert_nonnull (prism_model_view_get_model (view));
  ui_test_spin_for_ms (1500);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  ui_test_save_screenshot (GTK_WIDGET (window), "model-region-search.png");

  gtk_window_destroy (GTK_WINDOW (window));
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_unlink (saved);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *cache_dir = NULL;
  int ret;

  if (g_getenv ("DISPLAY") == NULL && g_getenv ("WAYLAND_DISPLAY") == NULL)
    {
      g_printerr ("no display: run the ui suite under xvfb-run\n");
      return 77;
    }
  cache_dir = g_dir_make_tmp ("prism-model-cache-XXXXXX", &error);
  g_assert_no_error (error);
  g_setenv ("XDG_CACHE_HOME", cache_dir, TRUE);
  gtk_test_init (&argc, &argv, NULL);
  g_object_set (gtk_settings_get_default (), "gtk-enable-animations", FALSE, NULL);
  app = prism_application_new ();
  g_application_set_flags (G_APPLICATION (app),
                           g_application_get_flags (G_APPLICATION (app)) | G_APPLICATION_NON_UNIQUE);
  g_application_register (G_APPLICATION (app), NULL, &error);
  g_assert_no_error (error);
  g_test_add_func ("/explorer/model/open-region-search", test_model_open);
  g_test_add_func ("/explorer/model/dim-param", test_model_dim_param);
  ret = g_test_run ();
  g_clear_object (&app);
  ui_test_rm_rf (cache_dir);
  return ret;
}
