/* test-ru-layout.c — the window in Russian (and English) at 1180 × 760: nothing cut
 *
 * Russian strings run a third longer than English ones.  With a search
 * running and a candidate selected, every page of the window must fit
 * 1180 × 760 (its minimum size, as GTK measures it), and no label in the
 * header bar, the sidebar, the status bar or a page's toolbar may be
 * ellipsized below its natural width without a tooltip that shows it
 * whole.
 *
 * The machine has no ru_RU locale compiled: the test compiles one with
 * localedef into a folder of its own (LOCPATH) and loads the translations
 * from the build tree.  Without localedef or the ru_RU source it skips.
 * With PRISM_LAYOUT_LANGUAGE=en (the test test-en-layout) it checks the
 * English window the same way.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <locale.h>
#include <string.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <gtk/gtk.h>

#include "prism-candidates-view.h"
#include "prism-search-tree-chart.h"
#include "prism-search-view.h"
#include "prism-window.h"
#include "ui-test-util.h"

#define WIDTH  1180
#define HEIGHT 760

#define WAIT_UNTIL(seconds, cond)                                              \
  G_STMT_START {                                                               \
    gint64 wait_end_ = g_get_monotonic_time () + (seconds) * G_USEC_PER_SEC;   \
    while (!(cond))                                                            \
      {                                                                        \
        if (g_get_monotonic_time () > wait_end_)                               \
          g_error ("gave up waiting for: %s", #cond);                          \
        if (!g_main_context_iteration (NULL, FALSE))                           \
          g_usleep (1000);                                                     \
      }                                                                        \
  } G_STMT_END

static PrismApplication *app;
static char *tmp_dir;
static const char *language = "ru";

/* Whether @widget or a container it is in says what it shows in a tooltip. */
static gboolean
has_tooltip (GtkWidget *widget)
{
  for (guint up = 0; widget != NULL && up < 3; up++, widget = gtk_widget_get_parent (widget))
    if (gtk_widget_get_tooltip_text (widget) != NULL || gtk_widget_get_tooltip_markup (widget) != NULL)
      return TRUE;
  return FALSE;
}

/* How much of @widget's width an ancestor that clips its children leaves
 * visible, or -1 if all of it shows.  Scrolled content is meant to be
 * scrolled into view: the search stops at a viewport or scrolled window. */
static double
clipped_width (GtkWidget *widget)
{
  for (GtkWidget *up = gtk_widget_get_parent (widget); up != NULL; up = gtk_widget_get_parent (up))
    {
      graphene_rect_t bounds;
      double left, right;

      if (GTK_IS_VIEWPORT (up) || GTK_IS_SCROLLED_WINDOW (up) || GTK_IS_SCROLLABLE (up) || GTK_IS_WINDOW (up))
        break;
      if (gtk_widget_get_overflow (up) != GTK_OVERFLOW_HIDDEN ||
          !gtk_widget_compute_bounds (widget, up, &bounds))
        continue;
      left = MAX (bounds.origin.x, 0);
      right = MIN (bounds.origin.x + bounds.size.width, gtk_widget_get_width (up));
      if (right - left < bounds.size.width - 1)
        return MAX (right - left, 0);
    }
  return -1;
}

/* Appends a line to @cut for each label under @widget drawn narrower than
 * it needs, with no tooltip.  Lists (their rows have tooltips of their own
 * or are meant to be scrolled) and hidden widgets are not looked into. */
static void
find_cut_labels (GtkWidget *widget, const char *where, GString *cut)
{
  if (!gtk_widget_get_mapped (widget) || GTK_IS_LIST_VIEW (widget) || GTK_IS_TEXT_VIEW (widget))
    return;
  /* A table's column titles, not its rows. */
  if (GTK_IS_COLUMN_VIEW (widget))
    {
      find_cut_labels (gtk_widget_get_first_child (widget), where, cut);
      return;
    }
  /* A label that is not ellipsized can still be clipped by a container
   * narrower than it (a table's column title). */
  if (GTK_IS_LABEL (widget) && gtk_label_get_ellipsize (GTK_LABEL (widget)) == PANGO_ELLIPSIZE_NONE &&
      !has_tooltip (widget))
    {
      double shown = clipped_width (widget);

      if (shown >= 0)
        g_string_append_printf (cut, "  %s: “%s” is clipped to %.0f px of %d\n", where,
                                gtk_label_get_text (GTK_LABEL (widget)), shown, gtk_widget_get_width (widget));
    }
  if (GTK_IS_LABEL (widget) && gtk_label_get_ellipsize (GTK_LABEL (widget)) != PANGO_ELLIPSIZE_NONE)
    {
      int natural = 0;

      /* Pango knows whether it cut the text (a comparison with the
       * measured width would count the theme's padding). */
      gtk_widget_measure (widget, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &natural, NULL, NULL);
      if (pango_layout_is_ellipsized (gtk_label_get_layout (GTK_LABEL (widget))) && !has_tooltip (widget))
        g_string_append_printf (cut, "  %s: “%s” is %d px of %d\n", where,
                                gtk_label_get_text (GTK_LABEL (widget)), gtk_widget_get_width (widget),
                                natural);
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    find_cut_labels (child, where, cut);
}

static GtkWidget *
find_by_css_class (GtkWidget *widget, const char *css_class)
{
  if (gtk_widget_has_css_class (widget, css_class))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_by_css_class (child, css_class);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static GtkWidget *
find_by_type (GtkWidget *widget, GType type)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (widget, type))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_by_type (child, type);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* What must fit on one page: the window's minimum size, and the labels of
 * the header bar, the sidebar, the status bar and the page's own bars. */
static void
check_page (PrismWindow *window, const char *page, GString *problems)
{
  GtkWidget *widget = GTK_WIDGET (window);
  GtkWidget *titlebar = gtk_window_get_titlebar (GTK_WINDOW (window));
  GtkWidget *sidebar = find_by_type (widget, GTK_TYPE_STACK_SIDEBAR);
  GtkStack *stack = GTK_STACK (gtk_widget_get_parent (GTK_WIDGET (prism_window_get_search_view (window))));
  GtkWidget *child;
  int min_width = 0, min_height = 0;

  gtk_stack_set_visible_child_name (stack, page);
  child = gtk_stack_get_visible_child (stack);
  ui_test_spin_for_ms (300);
  gtk_test_widget_wait_for_draw (widget);

  gtk_widget_measure (widget, GTK_ORIENTATION_HORIZONTAL, -1, &min_width, NULL, NULL, NULL);
  gtk_widget_measure (widget, GTK_ORIENTATION_VERTICAL, WIDTH, &min_height, NULL, NULL, NULL);
  g_test_message ("%s page: the window needs at least %d × %d", page, min_width, min_height);
  if (min_width > WIDTH || min_height > HEIGHT)
    g_string_append_printf (problems, "  %s page: the window needs %d × %d\n", page, min_width, min_height);

  find_cut_labels (titlebar, "header bar", problems);
  if (sidebar != NULL)
    find_cut_labels (gtk_widget_get_parent (sidebar), "sidebar", problems);
  if (find_by_css_class (widget, "search-status") != NULL)
    find_cut_labels (find_by_css_class (widget, "search-status"), "status bar", problems);
  /* The page itself: its bars, counters, headings and panels (not the
   * rows of its lists). */
  find_cut_labels (child, page, problems);
}

static void
test_ru_layout (void)
{
  PrismWindow *window = prism_window_new (app);
  PrismCandidatesView *candidates = prism_window_get_candidates_view (window);
  GListModel *rows = G_LIST_MODEL (prism_candidates_view_get_selection (candidates));
  static const char * const pages[] = { "program", "search", "candidates", "graph", "kernel" };
  g_autoptr(GString) problems = g_string_new (NULL);
  g_autoptr(GError) error = NULL;

  gtk_window_set_default_size (GTK_WINDOW (window), WIDTH, HEIGHT);
  gtk_window_present (GTK_WINDOW (window));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));

  /* A search running (one that runs for several seconds), a candidate
   * selected. */
  g_assert_true (prism_window_load_workload (window, "gqa", NULL, &error));
  g_assert_no_error (error);
  WAIT_UNTIL (60, g_list_model_get_n_items (rows) >= 1);
  g_assert_true (gtk_selection_model_select_item (GTK_SELECTION_MODEL (rows), 0, TRUE));
  g_assert_nonnull (prism_candidates_view_get_selected (candidates));
  /* The verdict is a word of the language, not results.json's identifier. */
  if (g_str_equal (language, "ru"))
  {
    g_autofree char *verification = prism_candidates_view_get_verification_text (candidates);

    g_test_message ("verification pane:\n%s", verification);
    g_assert_null (strstr (verification, "equivalent"));
    g_assert_nonnull (strstr (verification, "эквивалентен"));
  }

  for (guint i = 0; i < G_N_ELEMENTS (pages); i++)
    {
      g_autofree char *name = g_strdup_printf ("%s-%s.png", language, pages[i]);

      check_page (window, pages[i], problems);
      ui_test_save_screenshot (GTK_WIDGET (window), name);
    }
  g_test_message ("status line: %s", prism_window_get_status (window));
  /* gqa on one thread searches for longer than these checks take; a much
   * faster machine could finish first, which the checks after the stop
   * cover as well. */
  if (prism_session_get_state (prism_window_get_session (window)) != PRISM_SESSION_RUNNING)
    g_test_message ("the search ended before the pages were checked");
  if (problems->len > 0)
    g_error ("cut at %d × %d in %s:\n%s", WIDTH, HEIGHT, language, problems->str);
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (window)), <=, WIDTH);
  g_assert_cmpint (gtk_widget_get_height (GTK_WIDGET (window)), <=, HEIGHT);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.search-stop", NULL);
  WAIT_UNTIL (30, prism_session_get_state (prism_window_get_session (window)) != PRISM_SESSION_RUNNING);
  /* The finished search's status line, the longest it gets. */
  check_page (window, "search", problems);
  {
    g_autofree char *name = g_strdup_printf ("%s.png", language);

    ui_test_save_screenshot (GTK_WIDGET (window), name);
  }
  /* The search tree's counts ("состояний: 2,62 тыс. · 71,7 тыс. отсечено ·
   * sGraph: 29 · проверено: 107") are whole beside their bars. */
  g_test_message ("search tree rows cut: %u",
                  prism_search_tree_chart_count_cut_rows (prism_search_view_get_tree_chart (prism_window_get_search_view (window))));
  g_assert_cmpuint (prism_search_tree_chart_count_cut_rows (prism_search_view_get_tree_chart (prism_window_get_search_view (window))), ==, 0);
  g_test_message ("status line: %s", prism_window_get_status (window));
  if (problems->len > 0)
    g_error ("cut at %d × %d in %s after the search:\n%s", WIDTH, HEIGHT, language, problems->str);

  gtk_window_destroy (GTK_WINDOW (window));
  ui_test_spin_for_ms (200);
}

/* Compiles ru_RU.UTF-8 into @dir; FALSE (with why) if this machine cannot. */
static gboolean
make_ru_locale (const char *dir, char **why)
{
  g_autofree char *localedef = g_find_program_in_path ("localedef");
  g_autofree char *out = g_build_filename (dir, "ru_RU.UTF-8", NULL);
  g_autofree char *err = NULL;
  const char *argv[] = { NULL, "-i", "ru_RU", "-f", "UTF-8", NULL, NULL };
  int status = 0;

  if (localedef == NULL)
    {
      *why = g_strdup ("no localedef (Debian: libc-bin)");
      return FALSE;
    }
  if (!g_file_test ("/usr/share/i18n/locales/ru_RU", G_FILE_TEST_EXISTS))
    {
      *why = g_strdup ("no /usr/share/i18n/locales/ru_RU (Debian: locales)");
      return FALSE;
    }
  argv[0] = localedef;
  argv[5] = out;
  /* localedef exits 1 on warnings with the locale written: the folder says. */
  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err,
                     &status, NULL) ||
      !g_file_test (out, G_FILE_TEST_IS_DIR))
    {
      *why = g_strdup_printf ("localedef could not compile ru_RU.UTF-8: %s", err ? err : "");
      return FALSE;
    }
  return TRUE;
}

int
main (int argc, char *argv[])
{
  g_autoptr(GError) error = NULL;
  g_autofree char *why = NULL;
  g_autofree char *localedir = NULL;
  g_autofree char *cache = NULL;
  GSettings *settings;
  int ret;

  if (g_getenv ("DISPLAY") == NULL && g_getenv ("WAYLAND_DISPLAY") == NULL)
    {
      g_printerr ("no display: run the ui suite under xvfb-run\n");
      return 77;
    }
  if (g_strcmp0 (g_getenv ("PRISM_LAYOUT_LANGUAGE"), "en") == 0)
    language = "en";
  tmp_dir = g_dir_make_tmp ("prism-ru-layout-XXXXXX", &error);
  g_assert_no_error (error);
  /* Before anything calls setlocale(): GTK does in gtk_test_init(). */
  if (g_str_equal (language, "en"))
    {
      g_setenv ("LC_ALL", "C.UTF-8", TRUE);
      g_unsetenv ("LANGUAGE");
    }
  else if (!make_ru_locale (tmp_dir, &why))
    {
      g_printerr ("skipped: %s\n", why);
      ui_test_rm_rf (tmp_dir);
      return 77;
    }
  else
    {
      g_setenv ("LOCPATH", tmp_dir, TRUE);
      g_setenv ("LC_ALL", "ru_RU.UTF-8", TRUE);
      g_setenv ("LANGUAGE", "ru", TRUE);
    }
  cache = g_build_filename (tmp_dir, "cache", NULL);
  g_setenv ("XDG_CACHE_HOME", cache, TRUE);
  g_assert_nonnull (setlocale (LC_ALL, ""));
  localedir = g_build_filename (g_getenv ("G_TEST_BUILDDIR"), "..", "..", "po", NULL);
  bindtextdomain (GETTEXT_PACKAGE, localedir);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  gtk_test_init (&argc, &argv, NULL);
  g_object_set (gtk_settings_get_default (), "gtk-enable-animations", FALSE, NULL);
  /* The translations are those of the build tree (not a test of gettext). */
  if (g_str_equal (language, "ru"))
    g_assert_cmpstr (_("Search Tree by Depth"), !=, "Search Tree by Depth");

  app = prism_application_new ();
  g_application_set_flags (G_APPLICATION (app),
                           g_application_get_flags (G_APPLICATION (app)) | G_APPLICATION_NON_UNIQUE);
  g_application_register (G_APPLICATION (app), NULL, &error);
  g_assert_no_error (error);
  settings = prism_application_get_settings (app);
  g_settings_set_int (settings, "time-budget", 120);
  g_settings_set_int (settings, "threads", 1);

  g_test_add_func (g_str_equal (language, "ru") ? "/explorer/ru/layout" : "/explorer/en/layout",
                   test_ru_layout);
  ret = g_test_run ();
  g_clear_object (&app);
  ui_test_rm_rf (tmp_dir);
  g_free (tmp_dir);
  return ret;
}
