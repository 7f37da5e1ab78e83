/* prism-window.c — the explorer's main window
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "prism-window"

#include "config.h"

#include <glib/gi18n.h>

#include "prism-graph-json.h"
#include "prism-window.h"
#include "prism-workload.h"

struct _PrismWindow
{
  GtkApplicationWindow parent_instance;

  /* Owned References */
  PrismGraph *graph;                 /* the program shown, or NULL */
  char *workload;                    /* its built-in name, or NULL */
  GFile *file;                       /* the file it came from, or NULL */
  GCancellable *load_cancellable;    /* the file load in flight, or NULL */
  GtkFileChooserNative *file_chooser;
  GtkStringList *workloads;
  GSettings *settings;               /* NULL when the schema is not installed */

  /* Template Widgets */
  GtkDropDown *workload_dropdown;
  GtkLabel *title_label;
  GtkLabel *subtitle_label;
  GtkMenuButton *primary_menu_button;
  GtkStack *content_stack;
  GtkPaned *paned;
  GtkWidget *sidebar;
  GtkBox *summary_box;
  GtkStack *view_stack;
  PrismProgramView *program_view;

  /* Set while the code itself moves the drop-down, so that the move is not
   * taken for the user choosing a workload. */
  guint syncing_dropdown : 1;
  guint sidebar_visible : 1;
};

G_DEFINE_FINAL_TYPE (PrismWindow, prism_window, GTK_TYPE_APPLICATION_WINDOW)

enum {
  PROP_0,
  PROP_LOADING,
  PROP_SIDEBAR_VISIBLE,
  N_PROPS
};

static GParamSpec *properties [N_PROPS];

/* What is not implemented yet exists as a disabled action, so that menus and
 * buttons show it without pretending it works. */
static const char * const unavailable_actions[] = {
  "win.export-kernel",
  "win.export-graph-svg",
  "win.export-graph-png",
  "win.export-results",
  "win.search-start",
  "win.search-pause",
  "win.search-stop",
};

typedef struct
{
  PrismWindow *self;          /* owned reference */
  GFile *file;                /* owned */
  GCancellable *cancellable;  /* owned; cancelled when the result is stale */
} LoadData;

/*
 * Auxiliary methods
 */

static void
load_data_free (LoadData *data)
{
  g_clear_object (&data->self);
  g_clear_object (&data->file);
  g_clear_object (&data->cancellable);
  g_free (data);
}

static void
show_error (PrismWindow *self,
            const char  *primary,
            const char  *secondary)
{
  GtkWidget *dialog;

  dialog = gtk_message_dialog_new (GTK_WINDOW (self),
                                   GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT,
                                   GTK_MESSAGE_ERROR,
                                   GTK_BUTTONS_CLOSE,
                                   "%s", primary);
  gtk_message_dialog_format_secondary_text (GTK_MESSAGE_DIALOG (dialog), "%s", secondary);
  g_signal_connect (dialog, "response", G_CALLBACK (gtk_window_destroy), NULL);
  gtk_window_present (GTK_WINDOW (dialog));
}

static char *
file_display_name (GFile *file)
{
  g_autofree char *basename = g_file_get_basename (file);

  return g_filename_display_name (basename ? basename : "");
}

static void
sync_dropdown (PrismWindow *self)
{
  guint position = GTK_INVALID_LIST_POSITION;
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->workloads));

  for (guint i = 0; self->workload != NULL && i < n; i++)
    if (g_str_equal (gtk_string_list_get_string (self->workloads, i), self->workload))
      position = i;

  self->syncing_dropdown = TRUE;
  gtk_drop_down_set_selected (self->workload_dropdown, position);
  self->syncing_dropdown = FALSE;
}

static void
summary_clear (PrismWindow *self)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->summary_box))))
    gtk_box_remove (self->summary_box, child);
}

static void
summary_add_heading (PrismWindow *self,
                     const char  *text)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_widget_add_css_class (label, "heading");
  gtk_widget_add_css_class (label, "summary-heading");
  gtk_box_append (self->summary_box, label);
}

static void
summary_add_item (PrismWindow *self,
                  const char  *title,
                  const char  *detail)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkWidget *label = gtk_label_new (title);

  gtk_widget_add_css_class (box, "summary-item");
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_box_append (GTK_BOX (box), label);
  if (detail != NULL)
    {
      label = gtk_label_new (detail);
      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_label_set_wrap (GTK_LABEL (label), TRUE);
      gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
      gtk_widget_add_css_class (label, "monospace");
      gtk_widget_add_css_class (label, "dim-label");
      gtk_widget_add_css_class (label, "caption");
      gtk_box_append (GTK_BOX (box), label);
    }
  gtk_box_append (self->summary_box, box);
}

/* The sidebar lists what goes in and out of the program: it stays in view
 * whichever page of the main area is shown. */
static void
summary_show_graph (PrismWindow      *self,
                    const PrismGraph *graph)
{
  const char * const *var_names = prism_graph_var_names (graph);

  summary_clear (self);
  for (guint pass = 0; pass < 2; pass++)
    {
      PrismOpKind kind = pass == 0 ? PRISM_OP_INPUT : PRISM_OP_OUTPUT;

      summary_add_heading (self, pass == 0 ? _("Inputs") : _("Outputs"));
      for (guint i = 0; i < graph->ops->len; i++)
        {
          const PrismOp *op = prism_graph_op (graph, i);
          const PrismTensor *tensor;
          g_autofree char *title = NULL;
          g_autofree char *shape = NULL;
          g_autofree char *detail = NULL;
          guint id;

          if (op->kind != kind)
            continue;
          id = kind == PRISM_OP_INPUT ? op->outputs[0] : op->inputs[0];
          tensor = prism_graph_tensor (graph, id);
          title = op->name ? g_strdup_printf ("%s (t%u)", op->name, id) : g_strdup_printf ("t%u", id);
          shape = prism_tensor_shape_to_string (graph, tensor);
          detail = g_strdup_printf ("%s %s", shape, prism_dtype_to_string (tensor->dtype));
          summary_add_item (self, title, detail);
        }
    }

  if (var_names != NULL && var_names[0] != NULL)
    {
      g_autofree char *joined = g_strjoinv (", ", (char **) var_names);

      summary_add_heading (self, _("Symbolic Sizes"));
      summary_add_item (self, joined, NULL);
    }
}

static void
set_program (PrismWindow *self,
             PrismGraph  *graph,
             const char  *workload,
             GFile       *file,
             const char  *description)
{
  g_autofree char *window_title = NULL;
  g_autofree char *subtitle = NULL;
  const char *title;

  g_assert (PRISM_IS_WINDOW (self));
  g_assert (graph != NULL);

  g_clear_pointer (&self->graph, prism_graph_unref);
  self->graph = prism_graph_ref (graph);
  g_free (self->workload);
  self->workload = g_strdup (workload);
  g_set_object (&self->file, file);

  if (graph->name != NULL && *graph->name != '\0')
    title = graph->name;
  else if (workload != NULL)
    title = workload;
  else
    title = _("Unnamed program");

  if (file != NULL)
    subtitle = file_display_name (file);
  else
    subtitle = g_strdup (_("Built-in workload"));

  gtk_label_set_label (self->title_label, title);
  gtk_label_set_label (self->subtitle_label, subtitle);
  gtk_widget_set_visible (GTK_WIDGET (self->subtitle_label), TRUE);
  /* Translators: the window title: a program's name, then the application's. */
  window_title = g_strdup_printf (_("%s — Prism Explorer"), title);
  gtk_window_set_title (GTK_WINDOW (self), window_title);

  prism_program_view_set_program (self->program_view, graph, title, description);
  summary_show_graph (self, graph);
  sync_dropdown (self);
  gtk_stack_set_visible_child_name (self->content_stack, "program");
}

static void
set_loading (PrismWindow  *self,
             GCancellable *cancellable)
{
  gboolean was_loading = self->load_cancellable != NULL;

  if (self->load_cancellable != NULL)
    g_cancellable_cancel (self->load_cancellable);
  g_set_object (&self->load_cancellable, cancellable);
  if (was_loading != (cancellable != NULL))
    g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_LOADING]);
}

/*
 * Signal callbacks
 */

static void
file_loaded_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  LoadData *data = user_data;
  PrismWindow *self = data->self;
  g_autoptr(PrismGraph) graph = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;
  gsize length = 0;

  g_assert (G_IS_FILE (object));

  if (g_file_load_contents_finish (G_FILE (object), result, &contents, &length, NULL, &error))
    graph = prism_graph_load_from_data (contents, length, NULL, &error);

  /* A newer load, or the window closing, made this one stale. */
  if (g_cancellable_is_cancelled (data->cancellable))
    {
      load_data_free (data);
      return;
    }

  set_loading (self, NULL);
  if (graph != NULL)
    set_program (self, graph, NULL, data->file, NULL);
  else
    {
      g_autofree char *name = file_display_name (data->file);
      g_autofree char *primary = g_strdup_printf (_("Could not open “%s”"), name);

      show_error (self, primary, error ? error->message : _("The file could not be read."));
    }
  load_data_free (data);
}

static void
file_chooser_response_cb (PrismWindow          *self,
                          int                   response,
                          GtkFileChooserNative *chooser)
{
  g_assert (PRISM_IS_WINDOW (self));

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));

      if (file != NULL)
        prism_window_open_file (self, file);
    }
  gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (chooser));
  if (self->file_chooser == chooser)
    g_clear_object (&self->file_chooser);
}

static void
workload_selected_cb (PrismWindow *self,
                      GParamSpec  *pspec,
                      GtkDropDown *dropdown)
{
  guint position = gtk_drop_down_get_selected (dropdown);

  if (self->syncing_dropdown || position == GTK_INVALID_LIST_POSITION)
    return;
  prism_window_open_workload (self, gtk_string_list_get_string (self->workloads, position), NULL);
}

static gboolean
drop_cb (PrismWindow  *self,
         const GValue *value,
         double        x,
         double        y)
{
  GSList *files;

  if (!G_VALUE_HOLDS (value, GDK_TYPE_FILE_LIST))
    return FALSE;
  files = gdk_file_list_get_files (g_value_get_boxed (value));
  if (files == NULL)
    return FALSE;
  prism_window_open_file (self, files->data);
  g_slist_free (files);
  return TRUE;
}

static void
workload_setup_cb (GtkSignalListItemFactory *factory,
                   GtkListItem              *item,
                   gpointer                  user_data)
{
  gboolean in_popup = GPOINTER_TO_INT (user_data);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkWidget *name = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (name), 0);
  gtk_box_append (GTK_BOX (box), name);
  if (in_popup)
    {
      GtkWidget *description = gtk_label_new (NULL);

      gtk_label_set_xalign (GTK_LABEL (description), 0);
      gtk_label_set_wrap (GTK_LABEL (description), TRUE);
      gtk_label_set_max_width_chars (GTK_LABEL (description), 44);
      gtk_label_set_width_chars (GTK_LABEL (description), 36);
      gtk_widget_add_css_class (description, "dim-label");
      gtk_widget_add_css_class (description, "caption");
      gtk_box_append (GTK_BOX (box), description);
    }
  gtk_list_item_set_child (item, box);
}

static void
workload_bind_cb (GtkSignalListItemFactory *factory,
                  GtkListItem              *item,
                  gpointer                  user_data)
{
  GtkWidget *box = gtk_list_item_get_child (item);
  GtkWidget *name = gtk_widget_get_first_child (box);
  GtkWidget *description = gtk_widget_get_next_sibling (name);
  const char *workload = gtk_string_object_get_string (gtk_list_item_get_item (item));

  gtk_label_set_label (GTK_LABEL (name), workload);
  if (description != NULL)
    {
      const PrismWorkloadInfo *info = prism_workload_lookup (workload);

      gtk_label_set_label (GTK_LABEL (description),
                           info && info->description ? _(info->description) : NULL);
    }
}

/*
 * Actions
 */

static void
open_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *param)
{
  PrismWindow *self = PRISM_WINDOW (widget);
  g_autoptr(GtkFileFilter) programs = gtk_file_filter_new ();
  g_autoptr(GtkFileFilter) all = gtk_file_filter_new ();

  if (self->file_chooser != NULL)
    {
      gtk_native_dialog_show (GTK_NATIVE_DIALOG (self->file_chooser));
      return;
    }

  self->file_chooser = gtk_file_chooser_native_new (_("Open Program File"),
                                                    GTK_WINDOW (self),
                                                    GTK_FILE_CHOOSER_ACTION_OPEN,
                                                    _("_Open"),
                                                    _("_Cancel"));
  gtk_file_filter_set_name (programs, _("Prism programs (JSON)"));
  gtk_file_filter_add_mime_type (programs, "application/json");
  gtk_file_filter_add_suffix (programs, "json");
  gtk_file_filter_set_name (all, _("All files"));
  gtk_file_filter_add_pattern (all, "*");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (self->file_chooser), programs);
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (self->file_chooser), all);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (self->file_chooser), TRUE);
  g_signal_connect_object (self->file_chooser, "response",
                           G_CALLBACK (file_chooser_response_cb), self, G_CONNECT_SWAPPED);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (self->file_chooser));
}

static void
unavailable_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *param)
{
  /* Never reached: these actions stay disabled until they are implemented. */
  g_warning ("%s is not implemented", action_name);
}

/*
 * GObject and GtkWindow overrides
 */

static gboolean
prism_window_close_request (GtkWindow *window)
{
  PrismWindow *self = PRISM_WINDOW (window);

  if (self->settings != NULL)
    {
      int width, height;

      gtk_window_get_default_size (window, &width, &height);
      g_settings_delay (self->settings);
      g_settings_set_boolean (self->settings, "window-maximized", gtk_window_is_maximized (window));
      if (!gtk_window_is_maximized (window) && width > 0 && height > 0)
        {
          g_settings_set_int (self->settings, "window-width", width);
          g_settings_set_int (self->settings, "window-height", height);
        }
      g_settings_apply (self->settings);
    }

  return GTK_WINDOW_CLASS (prism_window_parent_class)->close_request (window);
}

static void
prism_window_constructed (GObject *object)
{
  PrismWindow *self = (PrismWindow *)object;
  GtkApplication *app;

  G_OBJECT_CLASS (prism_window_parent_class)->constructed (object);

  app = gtk_window_get_application (GTK_WINDOW (self));
  if (PRISM_IS_APPLICATION (app) && prism_application_get_settings (PRISM_APPLICATION (app)))
    {
      self->settings = g_object_ref (prism_application_get_settings (PRISM_APPLICATION (app)));
      gtk_window_set_default_size (GTK_WINDOW (self),
                                   g_settings_get_int (self->settings, "window-width"),
                                   g_settings_get_int (self->settings, "window-height"));
      if (g_settings_get_boolean (self->settings, "window-maximized"))
        gtk_window_maximize (GTK_WINDOW (self));
      g_settings_bind (self->settings, "sidebar-width", self->paned, "position",
                       G_SETTINGS_BIND_DEFAULT);
    }
}

static void
prism_window_dispose (GObject *object)
{
  PrismWindow *self = (PrismWindow *)object;

  set_loading (self, NULL);
  if (self->file_chooser != NULL)
    gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (self->file_chooser));
  g_clear_object (&self->file_chooser);
  /* content_stack is the window's child: let GtkWindow unparent it now, or
   * the template teardown unparents it behind GtkWindow's back (GTK 4.8). */
  gtk_window_set_child (GTK_WINDOW (self), NULL);
  gtk_widget_dispose_template (GTK_WIDGET (self), PRISM_TYPE_WINDOW);

  G_OBJECT_CLASS (prism_window_parent_class)->dispose (object);
}

static void
prism_window_finalize (GObject *object)
{
  PrismWindow *self = (PrismWindow *)object;

  g_clear_pointer (&self->graph, prism_graph_unref);
  g_clear_pointer (&self->workload, g_free);
  g_clear_object (&self->file);
  g_clear_object (&self->workloads);
  g_clear_object (&self->settings);

  G_OBJECT_CLASS (prism_window_parent_class)->finalize (object);
}

static void
prism_window_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  PrismWindow *self = PRISM_WINDOW (object);

  switch (prop_id)
    {
    case PROP_LOADING:
      g_value_set_boolean (value, prism_window_get_loading (self));
      break;

    case PROP_SIDEBAR_VISIBLE:
      g_value_set_boolean (value, self->sidebar_visible);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
prism_window_set_property (GObject      *object,
                           guint         prop_id,
                           const GValue *value,
                           GParamSpec   *pspec)
{
  PrismWindow *self = PRISM_WINDOW (object);

  switch (prop_id)
    {
    case PROP_SIDEBAR_VISIBLE:
      if (self->sidebar_visible != !!g_value_get_boolean (value))
        {
          self->sidebar_visible = !!g_value_get_boolean (value);
          gtk_widget_set_visible (self->sidebar, self->sidebar_visible);
          g_object_notify_by_pspec (object, pspec);
        }
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
prism_window_class_init (PrismWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->constructed = prism_window_constructed;
  object_class->dispose = prism_window_dispose;
  object_class->finalize = prism_window_finalize;
  object_class->get_property = prism_window_get_property;
  object_class->set_property = prism_window_set_property;

  window_class->close_request = prism_window_close_request;

  properties [PROP_LOADING] =
    g_param_spec_boolean ("loading", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties [PROP_SIDEBAR_VISIBLE] =
    g_param_spec_boolean ("sidebar-visible", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_type_ensure (PRISM_TYPE_PROGRAM_VIEW);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/prism/Explorer/prism-window.ui");
  gtk_widget_class_bind_template_child (widget_class, PrismWindow, workload_dropdown);
  gtk_widget_class_bind_template_child (widget_class, PrismWindow, title_label);
  gtk_widget_class_bind_template_child (widget_class, PrismWindow, subtitle_label);
  gtk_widget_class_bind_template_child (widget_class, PrismWindow, primary_menu_button);
  gtk_widget_class_bind_template_child (widget_class, PrismWindow, content_stack);
  gtk_widget_class_bind_template_child (widget_class, PrismWindow, paned);
  gtk_widget_class_bind_template_child (widget_class, PrismWindow, sidebar);
  gtk_widget_class_bind_template_child (widget_class, PrismWindow, summary_box);
  gtk_widget_class_bind_template_child (widget_class, PrismWindow, view_stack);
  gtk_widget_class_bind_template_child (widget_class, PrismWindow, program_view);

  gtk_widget_class_install_action (widget_class, "win.open", NULL, open_action);
  gtk_widget_class_install_property_action (widget_class, "win.toggle-sidebar", "sidebar-visible");
  for (guint i = 0; i < G_N_ELEMENTS (unavailable_actions); i++)
    gtk_widget_class_install_action (widget_class, unavailable_actions[i], NULL, unavailable_action);
}

static void
prism_window_init (PrismWindow *self)
{
  g_autoptr(GtkBuilder) builder = NULL;
  g_autoptr(GtkListItemFactory) factory = NULL;
  g_autoptr(GtkListItemFactory) list_factory = NULL;
  GtkDropTarget *drop_target;
  const PrismWorkloadInfo *infos;
  guint n_infos = 0;

  self->sidebar_visible = TRUE;
  gtk_widget_init_template (GTK_WIDGET (self));

  for (guint i = 0; i < G_N_ELEMENTS (unavailable_actions); i++)
    gtk_widget_action_set_enabled (GTK_WIDGET (self), unavailable_actions[i], FALSE);

  builder = gtk_builder_new_from_resource ("/org/prism/Explorer/gtk/menus.ui");
  gtk_menu_button_set_menu_model (self->primary_menu_button,
                                  G_MENU_MODEL (gtk_builder_get_object (builder, "primary-menu")));

  self->workloads = gtk_string_list_new (NULL);
  infos = prism_workload_list (&n_infos);
  for (guint i = 0; i < n_infos; i++)
    gtk_string_list_append (self->workloads, infos[i].name);

  factory = gtk_signal_list_item_factory_new ();
  g_signal_connect (factory, "setup", G_CALLBACK (workload_setup_cb), GINT_TO_POINTER (FALSE));
  g_signal_connect (factory, "bind", G_CALLBACK (workload_bind_cb), NULL);
  list_factory = gtk_signal_list_item_factory_new ();
  g_signal_connect (list_factory, "setup", G_CALLBACK (workload_setup_cb), GINT_TO_POINTER (TRUE));
  g_signal_connect (list_factory, "bind", G_CALLBACK (workload_bind_cb), NULL);
  gtk_drop_down_set_factory (self->workload_dropdown, factory);
  gtk_drop_down_set_list_factory (self->workload_dropdown, list_factory);

  /* Nothing is chosen until the user or the command line chooses. */
  self->syncing_dropdown = TRUE;
  gtk_drop_down_set_model (self->workload_dropdown, G_LIST_MODEL (self->workloads));
  gtk_drop_down_set_selected (self->workload_dropdown, GTK_INVALID_LIST_POSITION);
  self->syncing_dropdown = FALSE;
  g_signal_connect_object (self->workload_dropdown, "notify::selected",
                           G_CALLBACK (workload_selected_cb), self, G_CONNECT_SWAPPED);

  drop_target = gtk_drop_target_new (GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);
  g_signal_connect_object (drop_target, "drop", G_CALLBACK (drop_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drop_target));

  gtk_stack_set_visible_child_name (self->content_stack, "empty");
}

/*
 * Public API
 */

PrismWindow *
prism_window_new (PrismApplication *application)
{
  return g_object_new (PRISM_TYPE_WINDOW, "application", application, NULL);
}

/**
 * prism_window_load_workload:
 * @name: a built-in workload
 * @params: (nullable): "key=value,…" overriding its default sizes
 *
 * Shows the built-in workload @name; on failure the window is unchanged.
 *
 * Returns: %FALSE with @error set if the workload cannot be built
 */
gboolean
prism_window_load_workload (PrismWindow  *self,
                            const char   *name,
                            const char   *params,
                            GError      **error)
{
  const PrismWorkloadInfo *info;
  g_autoptr(PrismGraph) graph = NULL;

  g_return_val_if_fail (PRISM_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);

  info = prism_workload_lookup (name);
  if (info == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   _("There is no built-in workload called “%s”"), name);
      return FALSE;
    }
  graph = prism_workload_build (name, params, error);
  if (graph == NULL)
    return FALSE;

  /* A file still loading would replace the workload the user just chose. */
  set_loading (self, NULL);
  set_program (self, graph, name, NULL, info->description ? _(info->description) : NULL);
  return TRUE;
}

/**
 * prism_window_open_workload:
 *
 * Like prism_window_load_workload(), but reports a failure in a dialog.
 */
void
prism_window_open_workload (PrismWindow *self,
                            const char  *name,
                            const char  *params)
{
  g_autoptr(GError) error = NULL;

  g_return_if_fail (PRISM_IS_WINDOW (self));

  if (!prism_window_load_workload (self, name, params, &error))
    {
      g_autofree char *primary = g_strdup_printf (_("Could not open the workload “%s”"), name);

      show_error (self, primary, error->message);
      sync_dropdown (self);
    }
}

/**
 * prism_window_open_file:
 * @file: a prism-graph JSON file
 *
 * Reads @file in the background and shows its program, or reports why it
 * cannot be read in a dialog (the window keeps what it showed). This is what
 * the Open… button does with the chosen file.
 */
void
prism_window_open_file (PrismWindow *self,
                        GFile       *file)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  LoadData *data;

  g_return_if_fail (PRISM_IS_WINDOW (self));
  g_return_if_fail (G_IS_FILE (file));

  set_loading (self, cancellable);
  data = g_new0 (LoadData, 1);
  data->self = g_object_ref (self);
  data->file = g_object_ref (file);
  data->cancellable = g_object_ref (cancellable);
  g_file_load_contents_async (file, cancellable, file_loaded_cb, data);
}

gboolean
prism_window_get_loading (PrismWindow *self)
{
  g_return_val_if_fail (PRISM_IS_WINDOW (self), FALSE);
  return self->load_cancellable != NULL;
}

/**
 * prism_window_get_graph:
 *
 * Returns: (transfer none) (nullable): the program shown
 */
const PrismGraph *
prism_window_get_graph (PrismWindow *self)
{
  g_return_val_if_fail (PRISM_IS_WINDOW (self), NULL);
  return self->graph;
}

/**
 * prism_window_get_program_view:
 *
 * Returns: (transfer none): the page that lists the program's operators
 */
PrismProgramView *
prism_window_get_program_view (PrismWindow *self)
{
  g_return_val_if_fail (PRISM_IS_WINDOW (self), NULL);
  return self->program_view;
}
