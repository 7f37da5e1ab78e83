/* test-preferences.c — the preferences dialog is bound to GSettings both ways
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <gtk/gtk.h>

#include "prism-preferences-dialog.h"

static GtkWidget *
find_widget (GtkWidget *root, GType type, guint nth)
{
  g_autoptr(GPtrArray) stack = g_ptr_array_new ();

  /* Depth-first, in widget order, so "the second drop-down" is stable. */
  g_ptr_array_add (stack, root);
  while (stack->len > 0)
    {
      GtkWidget *widget = g_ptr_array_steal_index (stack, stack->len - 1);

      if (G_TYPE_CHECK_INSTANCE_TYPE (widget, type) && nth-- == 0)
        return widget;
      for (GtkWidget *child = gtk_widget_get_last_child (widget); child != NULL;
           child = gtk_widget_get_prev_sibling (child))
        g_ptr_array_add (stack, child);
    }
  return NULL;
}

static GtkWidget *find_named (GtkWidget *root, const char *name);

static void
test_preferences_bindings (void)
{
  g_autoptr(GSettings) settings = g_settings_new ("org.prism.Explorer");
  GtkWidget *dialog = prism_preferences_dialog_new (settings);
  GtkSpinButton *threads = GTK_SPIN_BUTTON (find_widget (dialog, GTK_TYPE_SPIN_BUTTON, 0));
  GtkSpinButton *budget = GTK_SPIN_BUTTON (find_widget (dialog, GTK_TYPE_SPIN_BUTTON, 1));
  GtkDropDown *gpu = GTK_DROP_DOWN (find_widget (dialog, GTK_TYPE_DROP_DOWN, 0));
  GtkDropDown *baseline = GTK_DROP_DOWN (find_widget (dialog, GTK_TYPE_DROP_DOWN, 1));
  GtkDropDown *layout = GTK_DROP_DOWN (find_named (dialog, "layout-direction"));

  g_assert_nonnull (threads);
  g_assert_nonnull (budget);
  g_assert_nonnull (gpu);
  g_assert_nonnull (baseline);
  g_assert_nonnull (layout);
  gtk_window_present (GTK_WINDOW (dialog));

  /* The dialog shows the stored values … */
  g_settings_set_int (settings, "threads", 6);
  g_settings_set_int (settings, "time-budget", 90);
  g_settings_set_string (settings, "target-gpu", "a100");
  g_settings_set_string (settings, "baseline", "prism-lowered");
  g_settings_set_string (settings, "layout-direction", "left-to-right");
  g_assert_cmpint (gtk_spin_button_get_value_as_int (threads), ==, 6);
  g_assert_cmpint (gtk_spin_button_get_value_as_int (budget), ==, 90);
  g_assert_cmpuint (gtk_drop_down_get_selected (gpu), ==, 2);
  g_assert_cmpuint (gtk_drop_down_get_selected (baseline), ==, 1);
  g_assert_cmpuint (gtk_drop_down_get_selected (layout), ==, 1);

  /* … and stores what the user sets. */
  gtk_spin_button_set_value (threads, 12);
  gtk_spin_button_set_value (budget, 300);
  gtk_drop_down_set_selected (gpu, 1);
  gtk_drop_down_set_selected (baseline, 0);
  gtk_drop_down_set_selected (layout, 0);
  g_assert_cmpint (g_settings_get_int (settings, "threads"), ==, 12);
  g_assert_cmpint (g_settings_get_int (settings, "time-budget"), ==, 300);
  {
    g_autofree char *target = g_settings_get_string (settings, "target-gpu");
    g_autofree char *direction = g_settings_get_string (settings, "layout-direction");
    g_autofree char *kind = g_settings_get_string (settings, "baseline");

    g_assert_cmpstr (kind, ==, "vendor");
    g_assert_cmpstr (target, ==, "h200");
    g_assert_cmpstr (direction, ==, "top-to-bottom");
  }

  /* The schema's range is the spin button's: out-of-range input is clamped. */
  gtk_spin_button_set_value (budget, 0);
  g_assert_cmpint (g_settings_get_int (settings, "time-budget"), ==, 1);

  gtk_window_destroy (GTK_WINDOW (dialog));
}

static GtkWidget *
find_named (GtkWidget *root, const char *name)
{
  /* Spin buttons, drop-downs and switches, named after their keys. */
  if (g_strcmp0 (gtk_widget_get_name (root), name) == 0 &&
      (GTK_IS_SPIN_BUTTON (root) || GTK_IS_DROP_DOWN (root) || GTK_IS_SWITCH (root)))
    return root;
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_named (child, name);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* Every search limit of prism search has a spin button, bound to its key
 * within the search's range, and reaches the search options. */
static void
test_preferences_search_limits (void)
{
  static const char * const keys[] = {
    "max-kernels", "max-kernel-ops", "max-block-ops", "max-kernel-inputs", "max-block-outputs",
    "max-accums", "max-total-ops", "max-grid-dims", "block-threads",
  };
  g_autoptr(GSettings) settings = g_settings_new ("org.prism.Explorer");
  GtkWidget *dialog = prism_preferences_dialog_new (settings);
  GtkSpinButton *inputs, *threads;
  PrismSearchOptions options;
  double lo, hi;

  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    if (find_named (dialog, keys[i]) == NULL)
      g_error ("no spin button for %s", keys[i]);
  inputs = GTK_SPIN_BUTTON (find_named (dialog, "max-kernel-inputs"));
  threads = GTK_SPIN_BUTTON (find_named (dialog, "block-threads"));
  gtk_window_present (GTK_WINDOW (dialog));

  gtk_spin_button_get_range (inputs, &lo, &hi);
  /* 0: automatic (as many as the program has inputs, at least 3), the default. */
  g_assert_cmpfloat (lo, ==, 0);
  g_assert_cmpfloat (hi, ==, PRISM_MAX_OP_INPUTS);
  g_assert_cmpint (g_settings_get_int (settings, "max-kernel-inputs"), ==, 0);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (inputs)), ==, "Automatic");
  /* The kernel's op limit is automatic too (13 for a program with a max). */
  g_assert_cmpint (g_settings_get_int (settings, "max-block-ops"), ==, 0);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (find_named (dialog, "max-block-ops"))),
                   ==, "Automatic");
  g_assert_cmpint (g_settings_get_int (settings, "max-total-ops"), ==, 0);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (find_named (dialog, "max-total-ops"))),
                   ==, "Automatic");
  g_settings_set_int (settings, "max-kernel-inputs", 4);
  g_assert_cmpint (gtk_spin_button_get_value_as_int (inputs), ==, 4);
  gtk_spin_button_set_value (inputs, 2);
  g_assert_cmpint (g_settings_get_int (settings, "max-kernel-inputs"), ==, 2);
  gtk_spin_button_set_value (threads, 256);
  g_settings_set_int (settings, "max-block-outputs", 1);

  prism_search_options_init (&options);
  prism_preferences_apply_search_limits (settings, &options);
  g_assert_cmpuint (options.max_kernel_inputs, ==, 2);
  g_assert_cmpuint (options.max_block_outputs, ==, 1);
  g_assert_cmpuint (options.block_threads, ==, 256);

  /* The defaults are the search's own. */
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    g_settings_reset (settings, keys[i]);
  {
    PrismSearchOptions dflt, set;

    prism_search_options_init (&dflt);
    prism_search_options_init (&set);
    prism_preferences_apply_search_limits (settings, &set);
    g_assert_cmpuint (set.max_kernels, ==, dflt.max_kernels);
    g_assert_cmpuint (set.max_kernel_ops, ==, dflt.max_kernel_ops);
    g_assert_cmpuint (set.max_block_ops, ==, dflt.max_block_ops);
    g_assert_cmpuint (set.max_kernel_inputs, ==, dflt.max_kernel_inputs);
    g_assert_cmpuint (set.max_block_outputs, ==, dflt.max_block_outputs);
    g_assert_cmpuint (set.max_accums, ==, dflt.max_accums);
    g_assert_cmpuint (set.max_total_ops, ==, dflt.max_total_ops);
    g_assert_cmpuint (set.max_grid_dims, ==, dflt.max_grid_dims);
    g_assert_cmpuint (set.block_threads, ==, dflt.block_threads);
  }
  gtk_window_destroy (GTK_WINDOW (dialog));
}

/* Issue 25, item 4: the dialog was 560 × 1200 with no scrolling, and the
 * spin buttons of automatic limits showed "Autor" of "Automatic". */
static void
test_preferences_fits (void)
{
  static const char * const automatic[] = { "max-block-ops", "max-kernel-inputs", "max-total-ops" };
  g_autoptr(GSettings) settings = g_settings_new ("org.prism.Explorer");
  GtkWidget *dialog = prism_preferences_dialog_new (settings);
  int min_height = 0, nat_height = 0;

  for (guint i = 0; i < G_N_ELEMENTS (automatic); i++)
    g_settings_reset (settings, automatic[i]);
  gtk_window_present (GTK_WINDOW (dialog));
  gtk_test_widget_wait_for_draw (dialog);

  gtk_widget_measure (dialog, GTK_ORIENTATION_VERTICAL, 560, &min_height, &nat_height, NULL, NULL);
  g_test_message ("preferences: %d px tall at least, %d natural, %d shown", min_height, nat_height,
                  gtk_widget_get_height (dialog));
  /* A 1366 × 768 laptop, its panel and the title bar. */
  g_assert_cmpint (nat_height, <=, 720);
  g_assert_cmpint (gtk_widget_get_height (dialog), <=, 720);

  for (guint i = 0; i < G_N_ELEMENTS (automatic); i++)
    {
      GtkWidget *spin = find_named (dialog, automatic[i]);
      const char *text = gtk_editable_get_text (GTK_EDITABLE (spin));
      PangoLayout *layout = gtk_widget_create_pango_layout (spin, text);
      GtkWidget *entry = find_widget (spin, GTK_TYPE_TEXT, 0);
      int text_width = 0;

      g_assert_cmpstr (text, ==, "Automatic");
      g_assert_nonnull (entry);
      pango_layout_get_pixel_size (layout, &text_width, NULL);
      g_test_message ("%s: text %d px, entry %d px", automatic[i], text_width, gtk_widget_get_width (entry));
      g_assert_cmpint (gtk_widget_get_width (entry), >=, text_width);
      g_object_unref (layout);
    }
  gtk_window_destroy (GTK_WINDOW (dialog));
}

/* Issue 25, item 12: Preferences offer what `prism search` takes — mode,
 * seed, map choices, the randomized test at the real shapes, how many are
 * timed — and whether opening a program starts its search, so that limits
 * can be set before a search starts. */
static void
test_preferences_run_options (void)
{
  static const char * const keys[] = { "search-mode", "seed", "max-variants", "tune-top",
                                       "full-random", "search-on-open" };
  g_autoptr(GSettings) settings = g_settings_new ("org.prism.Explorer");
  GtkWidget *dialog = prism_preferences_dialog_new (settings);
  PrismPipelineOptions options, dflt;

  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    if (find_named (dialog, keys[i]) == NULL)
      g_error ("no control for %s", keys[i]);
  gtk_window_present (GTK_WINDOW (dialog));

  /* The defaults are the command line's. */
  prism_pipeline_options_init (&dflt);
  prism_pipeline_options_init (&options);
  prism_preferences_apply_run_options (settings, &options);
  g_assert_cmpint (options.search.mode, ==, dflt.search.mode);
  g_assert_cmpuint (options.seed, ==, dflt.seed);
  g_assert_cmpuint (options.max_variants, ==, dflt.max_variants);
  g_assert_cmpint (options.full_random, ==, dflt.full_random);
  g_assert_cmpuint (options.tune_top, ==, dflt.tune_top);
  g_assert_true (g_settings_get_boolean (settings, "search-on-open"));

  /* The controls set them. */
  gtk_drop_down_set_selected (GTK_DROP_DOWN (find_named (dialog, "search-mode")), 1);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (find_named (dialog, "seed")), 7);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (find_named (dialog, "max-variants")), 9);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (find_named (dialog, "tune-top")), 0);
  gtk_switch_set_active (GTK_SWITCH (find_named (dialog, "full-random")), TRUE);
  gtk_switch_set_active (GTK_SWITCH (find_named (dialog, "search-on-open")), FALSE);
  prism_pipeline_options_init (&options);
  prism_preferences_apply_run_options (settings, &options);
  g_assert_cmpint (options.search.mode, ==, PRISM_SEARCH_ENUMERATIVE);
  g_assert_cmpuint (options.seed, ==, 7);
  g_assert_cmpuint (options.max_variants, ==, 9);
  g_assert_true (options.full_random);
  g_assert_cmpuint (options.tune_top, ==, 0);
  g_assert_false (g_settings_get_boolean (settings, "search-on-open"));

  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    g_settings_reset (settings, keys[i]);
  gtk_window_destroy (GTK_WINDOW (dialog));
}

int
main (int argc, char *argv[])
{
  if (g_getenv ("DISPLAY") == NULL && g_getenv ("WAYLAND_DISPLAY") == NULL)
    {
      g_printerr ("no display: run the ui suite under xvfb-run\n");
      return 77;
    }
  gtk_test_init (&argc, &argv, NULL);

  g_test_add_func ("/explorer/preferences/bindings", test_preferences_bindings);
  g_test_add_func ("/explorer/preferences/search-limits", test_preferences_search_limits);
  g_test_add_func ("/explorer/preferences/fits", test_preferences_fits);
  g_test_add_func ("/explorer/preferences/run-options", test_preferences_run_options);

  return g_test_run ();
}
