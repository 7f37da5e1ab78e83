/* prism-preferences-dialog.c — the search preferences, kept in GSettings
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "prism-preferences-dialog"

#include "config.h"

#include <glib/gi18n.h>

#include "prism-preferences-dialog.h"

struct _PrismPreferencesDialog
{
  GtkWindow parent_instance;

  /* Owned References */
  GSettings *settings;

  /* Template Widgets */
  GtkSpinButton *threads_spin;
  GtkSpinButton *budget_spin;
  GtkDropDown *gpu_dropdown;
  GtkDropDown *baseline_dropdown;
  GtkDropDown *layout_dropdown;
};

G_DEFINE_FINAL_TYPE (PrismPreferencesDialog, prism_preferences_dialog, GTK_TYPE_WINDOW)

enum {
  PROP_0,
  PROP_SETTINGS,
  N_PROPS
};

static GParamSpec *properties [N_PROPS];

/* The drop-downs list the nicks of these enum keys in schema order. */
static const char * const target_gpu_nicks[] = { "h100", "h200", "a100", NULL };
static const char * const baseline_nicks[] = { "vendor", "prism-lowered", NULL };
static const char * const layout_direction_nicks[] = { "top-to-bottom", "left-to-right", NULL };

/*
 * Auxiliary methods
 */

static gboolean
nick_to_position (GValue   *value,
                  GVariant *variant,
                  gpointer  user_data)
{
  const char * const *nicks = user_data;
  const char *nick = g_variant_get_string (variant, NULL);

  for (guint i = 0; nicks[i] != NULL; i++)
    if (g_str_equal (nicks[i], nick))
      {
        g_value_set_uint (value, i);
        return TRUE;
      }
  return FALSE;
}

static GVariant *
position_to_nick (const GValue       *value,
                  const GVariantType *expected_type,
                  gpointer            user_data)
{
  const char * const *nicks = user_data;
  guint position = g_value_get_uint (value);

  if (position >= g_strv_length ((char **) nicks))
    return NULL;
  return g_variant_new_string (nicks[position]);
}

/*
 * GObject overrides
 */

static void
prism_preferences_dialog_constructed (GObject *object)
{
  PrismPreferencesDialog *self = (PrismPreferencesDialog *)object;

  G_OBJECT_CLASS (prism_preferences_dialog_parent_class)->constructed (object);

  g_assert (G_IS_SETTINGS (self->settings));

  g_settings_bind (self->settings, "threads", self->threads_spin, "value",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "time-budget", self->budget_spin, "value",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind_with_mapping (self->settings, "target-gpu", self->gpu_dropdown, "selected",
                                G_SETTINGS_BIND_DEFAULT, nick_to_position, position_to_nick,
                                (gpointer) target_gpu_nicks, NULL);
  g_settings_bind_with_mapping (self->settings, "baseline", self->baseline_dropdown, "selected",
                                G_SETTINGS_BIND_DEFAULT, nick_to_position, position_to_nick,
                                (gpointer) baseline_nicks, NULL);
  g_settings_bind_with_mapping (self->settings, "layout-direction", self->layout_dropdown,
                                "selected", G_SETTINGS_BIND_DEFAULT, nick_to_position,
                                position_to_nick, (gpointer) layout_direction_nicks, NULL);
}

static void
prism_preferences_dialog_dispose (GObject *object)
{
  PrismPreferencesDialog *self = (PrismPreferencesDialog *)object;

  gtk_widget_dispose_template (GTK_WIDGET (self), PRISM_TYPE_PREFERENCES_DIALOG);
  g_clear_object (&self->settings);

  G_OBJECT_CLASS (prism_preferences_dialog_parent_class)->dispose (object);
}

static void
prism_preferences_dialog_get_property (GObject    *object,
                                       guint       prop_id,
                                       GValue     *value,
                                       GParamSpec *pspec)
{
  PrismPreferencesDialog *self = PRISM_PREFERENCES_DIALOG (object);

  switch (prop_id)
    {
    case PROP_SETTINGS:
      g_value_set_object (value, self->settings);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
prism_preferences_dialog_set_property (GObject      *object,
                                       guint         prop_id,
                                       const GValue *value,
                                       GParamSpec   *pspec)
{
  PrismPreferencesDialog *self = PRISM_PREFERENCES_DIALOG (object);

  switch (prop_id)
    {
    case PROP_SETTINGS:
      self->settings = g_value_dup_object (value);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
prism_preferences_dialog_class_init (PrismPreferencesDialogClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->constructed = prism_preferences_dialog_constructed;
  object_class->dispose = prism_preferences_dialog_dispose;
  object_class->get_property = prism_preferences_dialog_get_property;
  object_class->set_property = prism_preferences_dialog_set_property;

  properties [PROP_SETTINGS] =
    g_param_spec_object ("settings", NULL, NULL, G_TYPE_SETTINGS,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/prism/Explorer/prism-preferences-dialog.ui");
  gtk_widget_class_bind_template_child (widget_class, PrismPreferencesDialog, threads_spin);
  gtk_widget_class_bind_template_child (widget_class, PrismPreferencesDialog, budget_spin);
  gtk_widget_class_bind_template_child (widget_class, PrismPreferencesDialog, gpu_dropdown);
  gtk_widget_class_bind_template_child (widget_class, PrismPreferencesDialog, baseline_dropdown);
  gtk_widget_class_bind_template_child (widget_class, PrismPreferencesDialog, layout_dropdown);

  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

static void
prism_preferences_dialog_init (PrismPreferencesDialog *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

/*
 * Public API
 */

/**
 * prism_preferences_dialog_new:
 * @settings: the explorer's settings (org.prism.Explorer)
 *
 * Every control is bound to its key, so changes apply at once.
 *
 * Returns: (transfer none): a new dialog, owned by GTK until it is closed
 */
GtkWidget *
prism_preferences_dialog_new (GSettings *settings)
{
  g_return_val_if_fail (G_IS_SETTINGS (settings), NULL);

  return g_object_new (PRISM_TYPE_PREFERENCES_DIALOG, "settings", settings, NULL);
}
