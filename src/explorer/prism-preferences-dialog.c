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
  GtkListBox *limits_list;
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

/* The search limits, one spin button each; the ranges are the schema's
 * (and prism search's), the steps those a user would try. */
typedef struct
{
  const char *key;
  const char *label;
  const char *description;
  int step;
  const char *zero;         /* what 0 means, shown instead of it (NULL: 0 is not special) */
} Limit;

static const Limit search_limits[] = {
  { "max-kernels", N_("Custom _kernels"), N_("Custom kernels per candidate."), 1 },
  { "max-kernel-ops", N_("Kernel-level _ops"), N_("Kernel-level ops per candidate, custom kernels included."), 1 },
  { "max-block-ops", N_("Ops per _kernel"), N_("Ops per custom kernel, its inputs included. Automatic: 11, 13 for a program that takes a max (the online softmax), or what one kernel holding the program's ops needs."), 1, N_("Automatic") },
  { "max-kernel-inputs", N_("_Inputs per kernel"), N_("Inputs of one custom kernel; more finds fusions of more tensors, and searches longer. Automatic: as many as the program has inputs, at least 3."), 1, N_("Automatic") },
  { "max-block-outputs", N_("O_utputs per kernel"), N_("Outputs of one custom kernel."), 1 },
  { "max-accums", N_("_Accumulators per kernel"), N_("Accumulators of one custom kernel."), 1 },
  { "max-total-ops", N_("Ops in _all"), N_("Ops of a whole candidate: predefined ops and block ops other than inputs. Automatic: the program's ops and 2 more, at least 9 and 2 more for each program input beyond the third."), 1, N_("Automatic") },
  { "max-grid-dims", N_("_Grid dimensions"), N_("Grid dimensions of a custom kernel."), 1 },
  { "block-threads", N_("_Threads per block"), N_("Threads per block of a custom kernel, a multiple of 32."), 32 },
};

/* What else `prism search` takes, one row each. */
static const Limit run_numbers[] = {
  { "max-variants", N_("_Map choices per sGraph"), N_("Map choices verified per sGraph, best predicted first; more finds more candidates, and searches longer."), 1 },
  { "seed", N_("_Seed"), N_("Seed of the randomized checks."), 1 },
  { "tune-top", N_("Timed on the _GPU"), N_("After the search, this many of the best predicted candidates are timed on the GPU when there is one; 0: never."), 1 },
};

typedef struct
{
  const char *key;
  const char *label;
  const char *description;
} Switch;

static const Switch run_switches[] = {
  { "search-on-open", N_("Search when a program _opens"), N_("Off, the search starts with Start (F5), so that the limits can be set first.") },
  { "full-random", N_("Randomized test at the _real shapes"), N_("For every candidate, also at the program's own shapes (seconds each on the CPU); by default it runs at small shapes.") },
};

static const char * const search_mode_nicks[] = { "symbolic", "enumerative", NULL };

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

/* A limit whose 0 has a meaning (automatic) shows that word for it. */
static gboolean
on_zero_output (GtkSpinButton *spin,
                gpointer       user_data)
{
  const Limit *limit = user_data;

  if (gtk_spin_button_get_value_as_int (spin) != 0)
    return FALSE;
  gtk_editable_set_text (GTK_EDITABLE (spin), _(limit->zero));
  return TRUE;
}

/* …and reads it back (any other text is parsed as a number). */
static int
on_zero_input (GtkSpinButton *spin,
               double        *new_value,
               gpointer       user_data)
{
  const Limit *limit = user_data;
  const char *text = gtk_editable_get_text (GTK_EDITABLE (spin));

  if (g_utf8_collate (text, _(limit->zero)) != 0)
    return FALSE;
  *new_value = 0;
  return TRUE;
}

/* A row of the search list: a label with its description, then @control. */
static GtkWidget *
make_row (const char *label_text,
          const char *description_text,
          GtkWidget  *control)
{
  GtkWidget *row = gtk_list_box_row_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 24);
  GtkWidget *texts = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkWidget *label = gtk_label_new_with_mnemonic (label_text);
  GtkWidget *description = gtk_label_new (description_text);

  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), FALSE);
  gtk_widget_add_css_class (box, "preferences-row");
  gtk_widget_set_hexpand (texts, TRUE);
  gtk_widget_set_valign (texts, GTK_ALIGN_CENTER);
  gtk_widget_set_valign (control, GTK_ALIGN_CENTER);
  gtk_label_set_mnemonic_widget (GTK_LABEL (label), control);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_xalign (GTK_LABEL (description), 0);
  gtk_label_set_wrap (GTK_LABEL (description), TRUE);
  gtk_label_set_max_width_chars (GTK_LABEL (description), 40);
  gtk_widget_add_css_class (description, "dim-label");
  gtk_widget_add_css_class (description, "caption");
  gtk_box_append (GTK_BOX (texts), label);
  gtk_box_append (GTK_BOX (texts), description);
  gtk_box_append (GTK_BOX (box), texts);
  gtk_box_append (GTK_BOX (box), control);
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), box);
  return row;
}

/* A row like the template's: a label with a description, a spin button
 * bound to @limit's key, whose range is the schema's. */
static GtkWidget *
make_limit_row (PrismPreferencesDialog *self, const Limit *limit)
{
  g_autoptr(GSettingsSchemaKey) key = NULL;
  g_autoptr(GSettingsSchema) schema = NULL;
  g_autoptr(GVariant) range = NULL;
  GVariant *bounds = NULL;
  const char *type = NULL;
  gint32 lo = 0, hi = 0;
  GtkWidget *spin;

  g_object_get (self->settings, "settings-schema", &schema, NULL);
  key = g_settings_schema_get_key (schema, limit->key);
  range = g_settings_schema_key_get_range (key);
  g_variant_get (range, "(&sv)", &type, &bounds);
  if (g_str_equal (type, "range"))
    g_variant_get (bounds, "(ii)", &lo, &hi);
  g_variant_unref (bounds);
  spin = gtk_spin_button_new_with_range (lo, hi, limit->step);
  /* A numeric spin button would refuse the word for 0. */
  gtk_spin_button_set_numeric (GTK_SPIN_BUTTON (spin), limit->zero == NULL);
  if (limit->zero != NULL)
    {
      g_signal_connect (spin, "output", G_CALLBACK (on_zero_output), (gpointer) limit);
      g_signal_connect (spin, "input", G_CALLBACK (on_zero_input), (gpointer) limit);
      /* Sized for the digits of the range, the entry showed "Autor" of
       * "Automatic": room for the whole word. */
      gtk_editable_set_width_chars (GTK_EDITABLE (spin), (int) g_utf8_strlen (_(limit->zero), -1));
    }
  /* Block threads step by warps from 32: always a multiple of 32. */
  gtk_spin_button_set_snap_to_ticks (GTK_SPIN_BUTTON (spin), TRUE);
  gtk_widget_set_name (spin, limit->key);
  g_settings_bind (self->settings, limit->key, spin, "value", G_SETTINGS_BIND_DEFAULT);
  return make_row (_(limit->label), _(limit->description), spin);
}

static GtkWidget *
make_switch_row (PrismPreferencesDialog *self,
                 const Switch           *item)
{
  GtkWidget *control = gtk_switch_new ();

  gtk_widget_set_name (control, item->key);
  g_settings_bind (self->settings, item->key, control, "active", G_SETTINGS_BIND_DEFAULT);
  return make_row (_(item->label), _(item->description), control);
}

static GtkWidget *
make_mode_row (PrismPreferencesDialog *self)
{
  GtkWidget *control = gtk_drop_down_new_from_strings ((const char *[]) {
                                                         /* Translators: the search mode */
                                                         _("Symbolic"), _("Enumerative"), NULL });

  gtk_widget_set_name (control, "search-mode");
  g_settings_bind_with_mapping (self->settings, "search-mode", control, "selected", G_SETTINGS_BIND_DEFAULT,
                                nick_to_position, position_to_nick, (gpointer) search_mode_nicks, NULL);
  return make_row (_("Search _mode"),
                   _("Symbolic: sGraphs with symbolic grids, loops and maps. Enumerative: concrete ones "
                     "enumerated at search time, as Mirage does."), control);
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

  /* Named after their keys, as the rows made here are (the tests find them so). */
  gtk_widget_set_name (GTK_WIDGET (self->gpu_dropdown), "target-gpu");
  gtk_widget_set_name (GTK_WIDGET (self->baseline_dropdown), "baseline");
  gtk_widget_set_name (GTK_WIDGET (self->layout_dropdown), "layout-direction");
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
  for (guint i = 0; i < G_N_ELEMENTS (search_limits); i++)
    gtk_list_box_append (self->limits_list, make_limit_row (self, &search_limits[i]));
  /* What else `prism search` takes, so that the window can run what the
   * command line runs. */
  gtk_list_box_append (self->limits_list, make_mode_row (self));
  for (guint i = 0; i < G_N_ELEMENTS (run_numbers); i++)
    gtk_list_box_append (self->limits_list, make_limit_row (self, &run_numbers[i]));
  for (guint i = 0; i < G_N_ELEMENTS (run_switches); i++)
    gtk_list_box_append (self->limits_list, make_switch_row (self, &run_switches[i]));
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
  gtk_widget_class_bind_template_child (widget_class, PrismPreferencesDialog, limits_list);

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
 * prism_preferences_apply_search_limits:
 * @settings: the explorer's settings (org.prism.Explorer)
 * @options: (inout): search options to set the limits of
 *
 * Copies the limits of the Preferences dialog into @options, as `prism
 * search --max-kernels …` does.
 */
void
prism_preferences_apply_search_limits (GSettings          *settings,
                                       PrismSearchOptions *options)
{
  g_return_if_fail (G_IS_SETTINGS (settings));

  options->max_kernels = (guint) g_settings_get_int (settings, "max-kernels");
  options->max_kernel_ops = (guint) g_settings_get_int (settings, "max-kernel-ops");
  options->max_block_ops = (guint) g_settings_get_int (settings, "max-block-ops");
  options->max_kernel_inputs = (guint) g_settings_get_int (settings, "max-kernel-inputs");
  options->max_block_outputs = (guint) g_settings_get_int (settings, "max-block-outputs");
  options->max_accums = (guint) g_settings_get_int (settings, "max-accums");
  options->max_total_ops = (guint) g_settings_get_int (settings, "max-total-ops");
  options->max_grid_dims = (guint) g_settings_get_int (settings, "max-grid-dims");
  /* The schema has no step: a value set by hand is rounded down to warps. */
  options->block_threads = (guint) MAX (32, g_settings_get_int (settings, "block-threads") / 32 * 32);
}

/**
 * prism_preferences_apply_run_options:
 * @settings: the explorer's settings
 * @options: the options of the search the window starts
 *
 * Sets the search limits (prism_preferences_apply_search_limits()) and what
 * else `prism search` takes: the mode, the seed, the map choices per sGraph,
 * the randomized test at the real shapes and how many candidates the GPU
 * times.
 */
void
prism_preferences_apply_run_options (GSettings            *settings,
                                     PrismPipelineOptions *options)
{
  g_autofree char *mode = NULL;

  g_return_if_fail (G_IS_SETTINGS (settings));
  g_return_if_fail (options != NULL);

  prism_preferences_apply_search_limits (settings, &options->search);
  mode = g_settings_get_string (settings, "search-mode");
  if (!prism_search_mode_from_string (mode, &options->search.mode))
    g_warning ("unknown search mode %s in the settings", mode);
  options->seed = (guint64) g_settings_get_int (settings, "seed");
  options->max_variants = (guint) g_settings_get_int (settings, "max-variants");
  options->full_random = g_settings_get_boolean (settings, "full-random");
  options->tune_top = (guint) g_settings_get_int (settings, "tune-top");
}

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
