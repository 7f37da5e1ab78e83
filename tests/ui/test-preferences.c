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

static void
test_preferences_bindings (void)
{
  g_autoptr(GSettings) settings = g_settings_new ("org.prism.Explorer");
  GtkWidget *dialog = prism_preferences_dialog_new (settings);
  GtkSpinButton *threads = GTK_SPIN_BUTTON (find_widget (dialog, GTK_TYPE_SPIN_BUTTON, 0));
  GtkSpinButton *budget = GTK_SPIN_BUTTON (find_widget (dialog, GTK_TYPE_SPIN_BUTTON, 1));
  GtkDropDown *gpu = GTK_DROP_DOWN (find_widget (dialog, GTK_TYPE_DROP_DOWN, 0));
  GtkDropDown *baseline = GTK_DROP_DOWN (find_widget (dialog, GTK_TYPE_DROP_DOWN, 1));
  GtkDropDown *layout = GTK_DROP_DOWN (find_widget (dialog, GTK_TYPE_DROP_DOWN, 2));

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

  return g_test_run ();
}
