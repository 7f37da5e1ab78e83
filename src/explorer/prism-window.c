/* prism-window.c — the explorer's main window
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "prism-window"

#include "config.h"

#include <errno.h>
#include <glib/gi18n.h>

#include "prism-candidates-view.h"
#include "prism-export.h"
#include "prism-format.h"
#include "prism-gpu-bench.h"
#include "prism-graph-export.h"
#include "prism-graph-json.h"
#include "prism-kernel-view.h"
#include "prism-mirage-reader.h"
#include "prism-open-file.h"
#include "prism-run-history.h"
#include "prism-open-mirage.h"
#include "prism-preferences-dialog.h"
#include "prism-search-view.h"
#include "prism-session.h"
#include "prism-window.h"
#include "prism-workload.h"

struct _PrismWindow
{
  GtkApplicationWindow parent_instance;

  /* Owned References */
  PrismGraph *graph;                 /* the program shown, or NULL */
  char *workload;                    /* its built-in name, or NULL */
  char *workload_params;             /* the sizes it was built with ("n=8,d=4096") */
  GFile *file;                       /* the file it came from, or NULL */
  GCancellable *load_cancellable;    /* the file load in flight, or NULL */
  char *run_target;                  /* the GPU the run shown was priced for, NULL: the preferences' */
  GtkFileChooserNative *file_chooser;
  char *last_export;                 /* what the last export said it wrote (tests) */
  guint load_status_timeout;         /* refreshes the status line while a Mirage file is checked */
  PrismRunHistory *run_history;      /* the Run History window, while open (weak) */
  GtkFileChooserNative *graph_chooser;  /* Export Graph as … */
  GtkStringList *workloads;
  GSettings *settings;               /* NULL when the schema is not installed */

  /* The search (main thread only: the session delivers its batches here) */
  PrismSession *session;             /* the run shown, or NULL */
  PrismSearchModel *search_model;
  char *search_error;                /* why the last search could not start */
  GCancellable *gpu_probe;
  char *gpu_status;                  /* NULL until the probe answers */
  GtkFileChooserNative *export_chooser;

  /* Template Widgets */
  GtkDropDown *workload_dropdown;
  GtkMenuButton *sizes_button;
  GtkLabel *title_label;
  GtkLabel *subtitle_label;
  GtkMenuButton *primary_menu_button;
  GtkStack *content_stack;
  GtkPaned *paned;
  GtkWidget *sidebar;
  GtkBox *summary_box;
  GtkStack *view_stack;
  PrismProgramView *program_view;
  PrismGraphView *graph_view;
  PrismSearchView *search_view;
  PrismCandidatesView *candidates_view;
  PrismKernelView *kernel_view;
  PrismModelView *model_view;    /* the Model page, shown while a model is open */
  GtkSpinner *status_spinner;
  GtkLabel *status_label;
  GtkLabel *gpu_label;

  /* Set while the code itself moves the drop-down, so that the move is not
   * taken for the user choosing a workload. */
  guint syncing_dropdown : 1;
  guint sidebar_visible : 1;
  guint search_on_open : 1;
};

G_DEFINE_FINAL_TYPE (PrismWindow, prism_window, GTK_TYPE_APPLICATION_WINDOW)

enum {
  PROP_0,
  PROP_LOADING,
  PROP_SIDEBAR_VISIBLE,
  PROP_SEARCH_ON_OPEN,
  N_PROPS
};

static GParamSpec *properties [N_PROPS];

static void start_search          (PrismWindow *self,
                                   gboolean     interactive);
static void detach_session        (PrismWindow *self);
static void update_search_actions (PrismWindow *self);
static void update_status         (PrismWindow *self);

typedef struct
{
  PrismWindow *self;          /* owned reference */
  GFile *file;                /* owned */
  GCancellable *cancellable;  /* owned; cancelled when the result is stale */
  PrismGraph *reference;      /* owned; a Mirage file's graphs are checked against it */
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
  g_clear_pointer (&data->reference, prism_graph_unref);
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

/* Lines beyond this many go into a scrolled list under the message: a
 * Mirage file of 28 refused graphs made a dialog 1384 px tall, its Close
 * button off the screen. */
#define DIALOG_INLINE_LINES 3
#define DIALOG_LIST_MAX_HEIGHT 320

/* An error with one line per item (a refused graph, a refused candidate):
 * a few in the secondary text, more in a scrolled, selectable list of
 * bounded height, so that the dialog always fits the screen. */
static void
show_error_list (PrismWindow *self,
                 const char  *primary,
                 GPtrArray   *lines)
{
  g_autoptr(GString) text = g_string_new (NULL);
  GtkWidget *dialog, *scrolled, *label;

  for (guint i = 0; i < lines->len; i++)
    g_string_append_printf (text, "%s%s", i ? "\n" : "", (char *) g_ptr_array_index (lines, i));
  if (lines->len <= DIALOG_INLINE_LINES)
    {
      show_error (self, primary, text->str);
      return;
    }

  dialog = gtk_message_dialog_new (GTK_WINDOW (self),
                                   GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT,
                                   GTK_MESSAGE_ERROR,
                                   GTK_BUTTONS_CLOSE,
                                   "%s", primary);
  label = gtk_label_new (text->str);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_max_width_chars (GTK_LABEL (label), 80);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_yalign (GTK_LABEL (label), 0);
  gtk_widget_set_name (label, "details");
  scrolled = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (scrolled), TRUE);
  gtk_scrolled_window_set_max_content_height (GTK_SCROLLED_WINDOW (scrolled), DIALOG_LIST_MAX_HEIGHT);
  gtk_widget_set_size_request (scrolled, 560, -1);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), label);
  gtk_widget_set_vexpand (scrolled, TRUE);
  gtk_box_append (GTK_BOX (gtk_message_dialog_get_message_area (GTK_MESSAGE_DIALOG (dialog))), scrolled);
  g_signal_connect (dialog, "response", G_CALLBACK (gtk_window_destroy), NULL);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void export_chart_action (GtkWidget  *widget,
                                 const char *action_name,
                                 GVariant   *param);

/*
 * Asking before a run leaves the window
 */

typedef void (*DiscardFunc) (PrismWindow *self, gpointer data);

typedef struct
{
  PrismWindow *self;
  DiscardFunc func;
  DiscardFunc cancel;
  gpointer data;
  GDestroyNotify destroy;
} Discard;

static void
discard_free (Discard *d)
{
  if (d->destroy != NULL)
    d->destroy (d->data);
  g_object_unref (d->self);
  g_free (d);
}

static void
discard_response_cb (GtkDialog *dialog,
                     int        response,
                     Discard   *d)
{
  gtk_window_destroy (GTK_WINDOW (dialog));
  if (response == GTK_RESPONSE_ACCEPT)
    d->func (d->self, d->data);
  else if (d->cancel != NULL)
    d->cancel (d->self, d->data);
  discard_free (d);
}

/* Whether the run shown would be lost to the window: one still searching,
 * or one that found candidates. */
static gboolean
has_run_to_lose (PrismWindow *self)
{
  PrismSessionState state;

  if (self->session == NULL)
    return FALSE;
  state = prism_session_get_state (self->session);
  return state == PRISM_SESSION_RUNNING || state == PRISM_SESSION_PAUSED ||
         g_list_model_get_n_items (prism_search_model_get_candidates (self->search_model)) > 0;
}

/* Runs @func at once when nothing would be lost; otherwise asks first, in a
 * dialog saying what happens to the run shown (it is stopped, its
 * candidates stay in its results file) and runs @func if the user agrees,
 * @cancel if not.  @destroy frees @data either way. */
static void
confirm_discard (PrismWindow    *self,
                 const char     *title,
                 const char     *accept_label,
                 DiscardFunc     func,
                 DiscardFunc     cancel,
                 gpointer        data,
                 GDestroyNotify  destroy)
{
  Discard *d = g_new0 (Discard, 1);
  guint n = g_list_model_get_n_items (prism_search_model_get_candidates (self->search_model));
  const char *results;
  g_autofree char *where = NULL;
  g_autofree char *detail = NULL;
  PrismSessionState state;
  GtkWidget *dialog, *button;

  d->self = g_object_ref (self);
  d->func = func;
  d->cancel = cancel;
  d->data = data;
  d->destroy = destroy;
  if (!has_run_to_lose (self))
    {
      func (self, data);
      discard_free (d);
      return;
    }

  state = prism_session_get_state (self->session);
  results = prism_session_get_results_path (self->session);
  where = results ? g_filename_display_name (results) : NULL;
  if (state == PRISM_SESSION_RUNNING || state == PRISM_SESSION_PAUSED)
    detail = where ? g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                   "The search that is running stops. The %u candidate "
                                                   "found so far stays in %s (Export Results saves it elsewhere).",
                                                   "The search that is running stops. The %u candidates "
                                                   "found so far stay in %s (Export Results saves them elsewhere).",
                                                   n), n, where)
                   : g_strdup (_("The search that is running stops, and its candidates leave this window."));
  else
    detail = where ? g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                   "The %u candidate of this search leaves this window; it "
                                                   "stays in %s (Export Results saves it elsewhere).",
                                                   "The %u candidates of this search leave this window; they "
                                                   "stay in %s (Export Results saves them elsewhere).",
                                                   n), n, where)
                   : g_strdup (_("The candidates of this search leave this window."));

  dialog = gtk_message_dialog_new (GTK_WINDOW (self),
                                   GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT,
                                   GTK_MESSAGE_QUESTION, GTK_BUTTONS_NONE, "%s", title);
  gtk_message_dialog_format_secondary_text (GTK_MESSAGE_DIALOG (dialog), "%s", detail);
  gtk_dialog_add_button (GTK_DIALOG (dialog), _("_Cancel"), GTK_RESPONSE_CANCEL);
  button = gtk_dialog_add_button (GTK_DIALOG (dialog), accept_label, GTK_RESPONSE_ACCEPT);
  gtk_widget_add_css_class (button, "destructive-action");
  gtk_dialog_set_default_response (GTK_DIALOG (dialog), GTK_RESPONSE_CANCEL);
  g_signal_connect (dialog, "response", G_CALLBACK (discard_response_cb), d);
  gtk_window_present (GTK_WINDOW (dialog));
}

#define RESPONSE_OPEN_FOLDER 1

static void
folder_launched_cb (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(GError) error = NULL;

  if (!g_app_info_launch_default_for_uri_finish (result, &error))
    g_warning ("Cannot open the folder: %s", error->message);
}

static void
exported_response_cb (GtkDialog *dialog,
                      int        response,
                      char      *folder)
{
  if (response == RESPONSE_OPEN_FOLDER)
    {
      g_autoptr(GFile) file = g_file_new_for_path (folder);
      g_autofree char *uri = g_file_get_uri (file);

      g_app_info_launch_default_for_uri_async (uri, NULL, NULL, folder_launched_cb, NULL);
    }
  gtk_window_destroy (GTK_WINDOW (dialog));
}

/* Says what an export wrote and where, with a button that opens the
 * folder it is in; the window keeps @what for tests. */
static void
show_exported (PrismWindow *self,
               const char  *what,
               const char  *path,
               gboolean     is_folder)
{
  g_autofree char *shown = g_filename_display_name (path);
  g_autofree char *folder = is_folder ? g_strdup (path) : g_path_get_dirname (path);
  GtkWidget *dialog;

  g_free (self->last_export);
  self->last_export = g_strdup_printf ("%s\n%s", what, shown);
  dialog = gtk_message_dialog_new (GTK_WINDOW (self),
                                   GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT,
                                   GTK_MESSAGE_INFO, GTK_BUTTONS_NONE, "%s", what);
  gtk_message_dialog_format_secondary_text (GTK_MESSAGE_DIALOG (dialog),
                                            is_folder ? _("Written to the folder %s.") : _("Written to %s."),
                                            shown);
  gtk_dialog_add_button (GTK_DIALOG (dialog), _("_Open Folder"), RESPONSE_OPEN_FOLDER);
  gtk_dialog_add_button (GTK_DIALOG (dialog), _("_Close"), GTK_RESPONSE_CLOSE);
  gtk_dialog_set_default_response (GTK_DIALOG (dialog), GTK_RESPONSE_CLOSE);
  g_signal_connect_data (dialog, "response", G_CALLBACK (exported_response_cb),
                         g_steal_pointer (&folder), (GClosureNotify) g_free, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

/* "Candidate 7 for NVIDIA H100 (sm_90)": what Export Kernel writes. */
static char *
describe_kernel_export (PrismWindow       *self,
                        PrismCandidateRow *row)
{
  g_autofree char *target = self->settings ? g_settings_get_string (self->settings, "target-gpu") : NULL;
  const PrismGpuTarget *gpu = target ? prism_gpu_target_lookup (target) : NULL;

  if (gpu == NULL)
    gpu = prism_gpu_target_default ();
  /* TRANSLATORS: what Export Kernel writes: candidate number, GPU, compute capability */
  return g_strdup_printf (_("Candidate %u for %s (sm_%u)"), prism_candidate_row_get_id (row),
                          gpu->display_name ? gpu->display_name : gpu->name, gpu->compute_capability);
}

/*
 * Problem sizes of a built-in workload
 */

/* Adds the "key=value" pairs of @text to @keys/@values, a later value of a
 * key replacing the earlier one. */
static void
add_params (GPtrArray  *keys,
            GPtrArray  *values,
            const char *text)
{
  g_auto(GStrv) pairs = g_strsplit (text ? text : "", ",", -1);

  for (guint i = 0; pairs[i] != NULL; i++)
    {
      const char *eq = strchr (pairs[i], '=');
      g_autofree char *key = NULL;
      guint at;

      if (eq == NULL || eq == pairs[i])
        continue;
      key = g_strndup (pairs[i], eq - pairs[i]);
      if (g_ptr_array_find_with_equal_func (keys, key, g_str_equal, &at))
        {
          g_free (g_ptr_array_index (values, at));
          g_ptr_array_index (values, at) = g_strdup (eq + 1);
        }
      else
        {
          g_ptr_array_add (keys, g_steal_pointer (&key));
          g_ptr_array_add (values, g_strdup (eq + 1));
        }
    }
}

/* "n=8,d=4096" with the values of @over ("d=1024") put in. */
static char *
merge_params (const char *defaults,
              const char *over)
{
  g_autoptr(GPtrArray) keys = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) values = g_ptr_array_new_with_free_func (g_free);
  GString *out = g_string_new (NULL);

  add_params (keys, values, defaults);
  add_params (keys, values, over);
  for (guint i = 0; i < keys->len; i++)
    g_string_append_printf (out, "%s%s=%s", i ? "," : "", (char *) g_ptr_array_index (keys, i),
                            (char *) g_ptr_array_index (values, i));
  return g_string_free (out, FALSE);
}

static void
sizes_confirmed (PrismWindow *self,
                 gpointer     params)
{
  g_autofree char *name = g_strdup (self->workload);

  prism_window_open_workload (self, name, params);
}

/* Apply: the workload again at the sizes of the spin buttons, asking first
 * if that would replace a run. */
static void
sizes_apply_cb (PrismWindow *self,
                GtkButton   *button)
{
  GPtrArray *spins = g_object_get_data (G_OBJECT (button), "spins");
  GString *params = g_string_new (NULL);

  for (guint i = 0; i < spins->len; i++)
    {
      GtkSpinButton *spin = g_ptr_array_index (spins, i);

      gtk_spin_button_update (spin);
      g_string_append_printf (params, "%s%s=%d", i ? "," : "",
                              (const char *) g_object_get_data (G_OBJECT (spin), "key"),
                              gtk_spin_button_get_value_as_int (spin));
    }
  gtk_menu_button_popdown (self->sizes_button);
  confirm_discard (self, _("Change the Problem Sizes?"), _("_Change Sizes"), sizes_confirmed, NULL,
                   g_string_free (params, FALSE), g_free);
}

/* The Sizes popover: one spin button per shape parameter of the workload
 * shown, set to the sizes it was built with. */
static void
update_sizes (PrismWindow *self)
{
  g_autoptr(GPtrArray) keys = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) values = g_ptr_array_new_with_free_func (g_free);
  GPtrArray *spins;
  GtkWidget *grid, *apply, *box, *popover;

  add_params (keys, values, self->workload ? self->workload_params : NULL);
  gtk_widget_set_sensitive (GTK_WIDGET (self->sizes_button), keys->len > 0);
  if (keys->len == 0)
    {
      gtk_menu_button_set_popover (self->sizes_button, NULL);
      return;
    }
  box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  grid = gtk_grid_new ();
  gtk_grid_set_row_spacing (GTK_GRID (grid), 6);
  gtk_grid_set_column_spacing (GTK_GRID (grid), 12);
  spins = g_ptr_array_new ();
  for (guint i = 0; i < keys->len; i++)
    {
      const char *key = g_ptr_array_index (keys, i);
      GtkWidget *label = gtk_label_new (key);
      GtkWidget *spin = gtk_spin_button_new_with_range (1, 1 << 20, 1);

      gtk_label_set_xalign (GTK_LABEL (label), 1);
      gtk_spin_button_set_value (GTK_SPIN_BUTTON (spin),
                                 g_ascii_strtod (g_ptr_array_index (values, i), NULL));
      gtk_widget_set_hexpand (spin, TRUE);
      g_object_set_data_full (G_OBJECT (spin), "key", g_strdup (key), g_free);
      gtk_accessible_update_relation (GTK_ACCESSIBLE (spin), GTK_ACCESSIBLE_RELATION_LABELLED_BY, label, NULL, -1);
      gtk_grid_attach (GTK_GRID (grid), label, 0, i, 1, 1);
      gtk_grid_attach (GTK_GRID (grid), spin, 1, i, 1, 1);
      g_ptr_array_add (spins, spin);
    }
  apply = gtk_button_new_with_mnemonic (_("_Apply"));
  gtk_widget_add_css_class (apply, "suggested-action");
  gtk_widget_set_halign (apply, GTK_ALIGN_END);
  g_object_set_data_full (G_OBJECT (apply), "spins", spins, (GDestroyNotify) g_ptr_array_unref);
  g_signal_connect_object (apply, "clicked", G_CALLBACK (sizes_apply_cb), self, G_CONNECT_SWAPPED);
  gtk_box_append (GTK_BOX (box), grid);
  gtk_box_append (GTK_BOX (box), apply);
  popover = gtk_popover_new ();
  gtk_popover_set_child (GTK_POPOVER (popover), box);
  gtk_popover_set_default_widget (GTK_POPOVER (popover), apply);
  /* GTK 4.8 has no getter for the default widget (tests look it up). */
  g_object_set_data (G_OBJECT (popover), "apply", apply);
  gtk_menu_button_set_popover (self->sizes_button, popover);
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
  prism_graph_view_set_graph (self->graph_view, graph);
  prism_kernel_view_set_program (self->kernel_view, graph);
  update_sizes (self);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.export-graph-svg", TRUE);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.export-graph-png", TRUE);
  summary_show_graph (self, graph);
  sync_dropdown (self);
  gtk_stack_set_visible_child_name (self->content_stack, "program");

  /* A new program ends the search of the old one. */
  detach_session (self);
  g_clear_pointer (&self->run_target, g_free);
  prism_search_model_reset (self->search_model);
  g_clear_pointer (&self->search_error, g_free);
  if (self->search_on_open)
    {
      start_search (self, FALSE);
      gtk_stack_set_visible_child_name (self->view_stack, "search");
    }
  else
    gtk_stack_set_visible_child_name (self->view_stack, "program");
  update_search_actions (self);
  update_status (self);
}

static gboolean
refresh_load_status (gpointer user_data)
{
  update_status (user_data);
  return G_SOURCE_CONTINUE;
}

static void
set_loading (PrismWindow  *self,
             GCancellable *cancellable)
{
  gboolean was_loading = self->load_cancellable != NULL;

  if (self->load_cancellable != NULL)
    g_cancellable_cancel (self->load_cancellable);
  if (!g_set_object (&self->load_cancellable, cancellable))
    return;
  if (was_loading != (cancellable != NULL))
    g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_LOADING]);
  /* The status line says how far a Mirage file's graphs are checked, four
   * times a second (a file of 28 graphs took minutes with no word). */
  g_clear_handle_id (&self->load_status_timeout, g_source_remove);
  if (cancellable != NULL && g_object_get_data (G_OBJECT (cancellable), "prism-mirage-file") != NULL)
    self->load_status_timeout = g_timeout_add (250, refresh_load_status, self);
  if (self->status_label != NULL)
    {
      update_status (self);
      update_search_actions (self);
    }
}

/*
 * The search
 */

static const char *
describe_stop_reason (const char *reason)
{
  if (g_strcmp0 (reason, "exhausted") == 0)
    return _("search space exhausted");
  if (g_strcmp0 (reason, "time limit") == 0)
    return _("time budget reached");
  if (g_strcmp0 (reason, "stopped") == 0)
    return _("stopped");
  if (g_strcmp0 (reason, "error") == 0)
    return _("failed");
  return reason;
}

static void
update_status (PrismWindow *self)
{
  PrismSessionState state = self->session ? prism_session_get_state (self->session) : PRISM_SESSION_IDLE;
  PrismSearchModel *model = self->search_model;
  const PrismRunStats *stats = prism_search_model_get_stats (model);
  g_autofree char *pace = prism_search_model_dup_pace (model, NULL);
  g_autofree char *pruned = prism_format_count (prism_search_stats_total_pruned (&stats->search));
  g_autofree char *verified = prism_format_count (prism_search_model_get_verified (model));
  g_autofree char *best = prism_format_speedup (prism_search_model_get_best_speedup (model));
  g_autofree char *elapsed = prism_format_seconds (prism_search_model_get_elapsed (model));
  g_autofree char *counters = NULL;
  g_autofree char *text = NULL;
  gboolean running = state == PRISM_SESSION_RUNNING;
  /* The Mirage file being checked (open_mirage()), if that is what loads. */
  const char *checking = self->load_cancellable ? g_object_get_data (G_OBJECT (self->load_cancellable),
                                                                     "prism-mirage-file")
                                                : NULL;

  /* Translators: the status line's counters: the search's pace ("1.2 k
   * states/s", "deciding 2 candidates"), pruned branches, verified
   * candidates, best speedup (and whether it is predicted or measured),
   * search time */
  counters = g_strdup_printf (_("%s · %s pruned · %s verified · best %s%s · %s"),
                              pace, pruned, verified, best,
                              prism_search_model_get_best (model) == NULL ? ""
                              : prism_search_model_get_best_measured (model) ? _(" (measured)")
                              : _(" (predicted)"),
                              elapsed);

  if (self->search_error != NULL)
    text = g_strdup_printf (_("The search could not start: %s"), self->search_error);
  else if (prism_search_model_get_state (model) == PRISM_SEARCH_STATE_FAILED)
    text = g_strdup_printf (_("The search failed: %s"), prism_search_model_get_error (model));
  else if (self->session == NULL)
    text = g_strdup (self->graph ? _("Ready to search") : "");
  else if (state == PRISM_SESSION_FINISHED && prism_search_model_get_best (model) == NULL &&
           prism_search_model_get_verified (model) > 0)
    /* Translators: the status line when a search ended and every verified
     * candidate is slower than the input program */
    text = g_strdup_printf (_("Finished (%s) — No candidate is faster than the program; keep the "
                              "program. — %s"),
                            describe_stop_reason (prism_session_get_stop_reason (self->session)),
                            counters);
  else if (state == PRISM_SESSION_FINISHED)
    text = g_strdup_printf (_("Finished (%s) — %s"),
                            describe_stop_reason (prism_session_get_stop_reason (self->session)),
                            counters);
  else if (state == PRISM_SESSION_PAUSED)
    text = g_strdup_printf (_("Paused — %s"), counters);
  else if (stats->search.states == 0)
    text = g_strdup (_("Preparing the search (building the pruning oracle)…"));
  else
    text = g_strdup_printf (_("Searching — %s"), counters);

  if (checking != NULL)
    {
      g_autofree char *run = g_steal_pointer (&text);

      guint done = 0, total = 0;

      prism_open_mirage_get_progress (self->load_cancellable, &done, &total);
      if (total > 0)
        /* Translators: the status line while a Mirage file's graphs are
         * verified: graphs decided, graphs in the file, the file; then what
         * it said before */
        text = g_strdup_printf (_("Verifying graph %u of %u of “%s” against the program (Stop cancels) — %s"),
                                MIN (done + 1, total), total, checking, run);
      else
        /* Translators: the status line while a Mirage file's graphs are
         * verified; then what it said before */
        text = g_strdup_printf (_("Verifying the graphs of “%s” against the program… — %s"), checking, run);
      running = TRUE;
    }
  gtk_label_set_label (self->status_label, text);
  /* A narrow window (or a long language) ellipsizes it: the tooltip has it whole. */
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->status_label), text && *text ? text : NULL);
  gtk_spinner_set_spinning (self->status_spinner, running);
  gtk_widget_set_visible (GTK_WIDGET (self->status_spinner), running);
  gtk_label_set_label (self->gpu_label, self->gpu_status ? self->gpu_status : _("Looking for a GPU…"));
}

static void
update_search_actions (PrismWindow *self)
{
  PrismSessionState state = self->session ? prism_session_get_state (self->session) : PRISM_SESSION_IDLE;
  gboolean active = self->session != NULL &&
                    (state == PRISM_SESSION_RUNNING || state == PRISM_SESSION_PAUSED);
  const char *results = self->session ? prism_session_get_results_path (self->session) : NULL;

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.search-start",
                                 self->graph != NULL && (!active || state == PRISM_SESSION_PAUSED));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.search-pause", state == PRISM_SESSION_RUNNING);
  /* Stop also cancels the verification of a Mirage file's graphs. */
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.search-stop", active || self->load_cancellable != NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.export-kernel",
                                 prism_candidates_view_get_selected (self->candidates_view) != NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.export-results",
                                 results != NULL && g_file_test (results, G_FILE_TEST_IS_REGULAR));
}

static void
session_events_cb (PrismSession    *session,
                   PrismEventBatch *batch,
                   PrismWindow     *self)
{
  g_assert (PRISM_IS_WINDOW (self));
  g_assert (session == self->session);

  prism_search_model_apply_events (self->search_model, (PrismEvent **) batch->events->pdata,
                                   batch->events->len);
}

static void
session_state_cb (PrismWindow  *self,
                  GParamSpec   *pspec,
                  PrismSession *session)
{
  update_search_actions (self);
  update_status (self);
}

static void
model_changed_cb (PrismWindow      *self,
                  PrismSearchModel *model)
{
  update_status (self);
  /* results.json appears with the first save. */
  update_search_actions (self);
}

/* A session stopped behind a closed window or a new program finishes in
 * the background; the application stays up until its worker has exited. */
static void
detached_finished_cb (PrismSession   *session,
                      GApplication   *app)
{
  g_signal_handlers_disconnect_by_func (session, detached_finished_cb, app);
  g_object_unref (session);
  if (app != NULL)
    {
      g_application_release (app);
      g_object_unref (app);
    }
}

static void
detach_session (PrismWindow *self)
{
  g_autoptr(PrismSession) session = g_steal_pointer (&self->session);
  PrismSessionState state;
  GApplication *app;

  if (session == NULL)
    return;

  /* From here on no batch of it reaches this window. */
  g_signal_handlers_disconnect_by_data (session, self);
  state = prism_session_get_state (session);
  if (state == PRISM_SESSION_RUNNING || state == PRISM_SESSION_PAUSED)
    {
      app = G_APPLICATION (gtk_window_get_application (GTK_WINDOW (self)));
      if (app != NULL)
        g_application_hold (app);
      g_signal_connect_data (session, "finished", G_CALLBACK (detached_finished_cb),
                             app ? g_object_ref (app) : NULL, NULL, 0);
      prism_session_stop (session);
      g_steal_pointer (&session);  /* released by detached_finished_cb() */
    }
}

static char *
make_run_dir (PrismWindow *self)
{
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *stamp = g_date_time_format (now, "%Y%m%d-%H%M%S");
  g_autofree char *name = NULL;
  g_autofree char *base = NULL;
  char *dir;

  if (self->workload != NULL)
    base = g_strdup (self->workload);
  else if (self->file != NULL)
    base = g_file_get_basename (self->file);
  else
    base = g_strdup ("program");
  g_strdelimit (base, "/\\: ", '_');
  name = g_strdup_printf ("%s-%s-%d", base, stamp, g_random_int_range (0, 1 << 20));
  {
    g_autofree char *runs = prism_run_info_default_folder ();
    dir = g_build_filename (runs, name, NULL);
  }
  if (g_mkdir_with_parents (dir, 0755) != 0)
    {
      g_warning ("Cannot create %s: %s; results will not be saved", dir, g_strerror (errno));
      g_clear_pointer (&dir, g_free);
    }
  return dir;
}

/* Starts a search of the program shown with the preferences' threads,
 * budget and target. Only a search the user asked for reports a failure to
 * start in a dialog; an automatic one says it in the status line. */
static void
start_search (PrismWindow *self,
              gboolean     interactive)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *run_dir = NULL;
  g_autofree char *target = NULL;
  g_autofree char *source = NULL;
  PrismPipelineOptions options;

  g_assert (PRISM_IS_WINDOW (self));

  if (self->graph == NULL)
    return;

  detach_session (self);
  prism_search_model_reset (self->search_model);
  g_clear_pointer (&self->search_error, g_free);

  prism_pipeline_options_init (&options);
  if (self->settings != NULL)
    {
      g_autofree char *baseline = g_settings_get_string (self->settings, "baseline");

      options.search.n_threads = (guint) g_settings_get_int (self->settings, "threads");
      options.search.time_limit_s = g_settings_get_int (self->settings, "time-budget");
      prism_preferences_apply_run_options (self->settings, &options);
      target = g_settings_get_string (self->settings, "target-gpu");
      options.target = target;
      prism_baseline_kind_from_string (baseline, &options.baseline);
    }
  prism_search_model_set_baseline (self->search_model, prism_baseline_kind_to_string (options.baseline));
  g_free (self->run_target);
  self->run_target = g_strdup (target);
  source = self->workload ? g_strdup (self->workload)
                          : self->file ? g_file_get_basename (self->file) : NULL;
  options.source = source;
  run_dir = make_run_dir (self);
  options.out_dir = run_dir;

  self->session = prism_session_new (self->graph, &options, &error);
  if (self->session == NULL)
    {
      self->search_error = g_strdup (error->message);
      if (interactive)
        show_error (self, _("Could not start the search"), error->message);
      update_search_actions (self);
      update_status (self);
      return;
    }

  g_signal_connect (self->session, "events", G_CALLBACK (session_events_cb), self);
  g_signal_connect_swapped (self->session, "notify::state", G_CALLBACK (session_state_cb), self);
  g_signal_connect_swapped (self->session, "finished", G_CALLBACK (session_state_cb), self);
  /* The window must stay responsive while the search uses every core. */
  prism_session_set_background (self->session, TRUE);
  prism_session_start (self->session);
  update_search_actions (self);
  update_status (self);
}

static void
time_budget_changed_cb (PrismWindow *self,
                        const char  *key,
                        GSettings   *settings)
{
  if (self->session != NULL && prism_session_get_state (self->session) != PRISM_SESSION_FINISHED)
    prism_session_set_time_limit (self->session, g_settings_get_int (settings, "time-budget"));
}

static void
layout_direction_changed_cb (PrismWindow *self,
                             const char  *key,
                             GSettings   *settings)
{
  prism_candidates_view_set_direction (self->candidates_view,
                                       g_settings_get_enum (settings, "layout-direction") == 1
                                       ? PRISM_GRAPH_DIRECTION_LEFT_TO_RIGHT
                                       : PRISM_GRAPH_DIRECTION_TOP_TO_BOTTOM);
}

static void
gpu_probe_thread (GTask        *task,
                  gpointer      source_object,
                  gpointer      task_data,
                  GCancellable *cancellable)
{
  g_autoptr(GError) error = NULL;
  char *description = NULL;

  if (prism_gpu_bench_probe (0, &description, &error))
    g_task_return_pointer (task, description, g_free);
  else
    g_task_return_error (task, g_steal_pointer (&error));
}

/* A GPU that is absent or fails is a status, never an error dialog. */
static void
gpu_probed_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *description = g_task_propagate_pointer (G_TASK (result), &error);
  GCancellable *cancellable = g_task_get_cancellable (G_TASK (result));
  PrismWindow *self = PRISM_WINDOW (object);

  if (g_cancellable_is_cancelled (cancellable))
    return;
  g_clear_object (&self->gpu_probe);
  g_free (self->gpu_status);
  if (description != NULL)
    self->gpu_status = g_strdup_printf (_("GPU: %s — times are predicted unless marked measured"),
                                        description);
  else
    {
      g_autofree char *tooltip = g_strconcat (_("Times and speedups are the cost model’s predictions."),
                                              error ? "\n" : "", error ? error->message : "", NULL);

      self->gpu_status = g_strdup (_("No GPU — times are predicted"));
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->gpu_label), tooltip);
    }
  update_status (self);
}

static void
probe_gpu (PrismWindow *self)
{
  g_autoptr(GTask) task = NULL;

  self->gpu_probe = g_cancellable_new ();
  task = g_task_new (self, self->gpu_probe, gpu_probed_cb, NULL);
  g_task_set_source_tag (task, probe_gpu);
  g_task_set_name (task, "[prism] GPU probe");
  g_task_run_in_thread (task, gpu_probe_thread);
}

/* A click on a point of the speedup chart shows its candidate. */
static void
speedup_point_activated_cb (PrismWindow       *self,
                            guint              id,
                            PrismSpeedupChart *chart)
{
  if (prism_candidates_view_select_id (self->candidates_view, id))
    gtk_stack_set_visible_child_name (self->view_stack, "candidates");
}

static void
candidate_selected_cb (PrismWindow         *self,
                       GParamSpec          *pspec,
                       PrismCandidatesView *view)
{
  prism_kernel_view_set_candidate (self->kernel_view, prism_candidates_view_get_selected (view));
  update_search_actions (self);
}

static char *
suggested_name (PrismWindow *self,
                const char  *suffix)
{
  const char *name = self->workload ? self->workload
                     : self->graph && self->graph->name ? self->graph->name : "program";

  return g_strdup_printf ("%s%s", name, suffix);
}

static void
export_kernel_to (PrismWindow       *self,
                  PrismCandidateRow *row,
                  const char        *dir)
{
  g_autoptr(GError) error = NULL;

  if (!prism_window_export_kernel (self, dir, &error))
    show_error (self, _("Could not export the kernel"), error->message);
  else
    {
      g_autofree char *what = describe_kernel_export (self, row);
      g_autofree char *title = g_strdup_printf (_("Exported the kernels of %s"), what);

      show_exported (self, title, dir, TRUE);
    }
}

static void
replace_export_response_cb (GtkDialog *dialog,
                            int        response,
                            gpointer   user_data)
{
  PrismWindow *self = PRISM_WINDOW (gtk_window_get_transient_for (GTK_WINDOW (dialog)));
  PrismCandidateRow *row = g_object_get_data (G_OBJECT (dialog), "prism-row");
  const char *dir = g_object_get_data (G_OBJECT (dialog), "prism-dir");

  /* The selection may have changed while the dialog was up. */
  if (response == GTK_RESPONSE_ACCEPT && row == prism_candidates_view_get_selected (self->candidates_view))
    export_kernel_to (self, row, dir);
  gtk_window_destroy (GTK_WINDOW (dialog));
}

/* A second export of the same candidate to the same folder replaced the
 * first without a word: ask, naming the folder. */
static void
confirm_replace_export (PrismWindow       *self,
                        PrismCandidateRow *row,
                        const char        *dir)
{
  g_autofree char *shown = g_filename_display_name (dir);
  GtkWidget *dialog, *button;

  dialog = gtk_message_dialog_new (GTK_WINDOW (self),
                                   GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT,
                                   GTK_MESSAGE_QUESTION, GTK_BUTTONS_NONE,
                                   _("Replace the Exported Kernels?"));
  /* Translators: %s is a folder */
  gtk_message_dialog_format_secondary_text (GTK_MESSAGE_DIALOG (dialog),
                                            _("%s already exists. Its files are replaced by this export."),
                                            shown);
  gtk_dialog_add_button (GTK_DIALOG (dialog), _("_Cancel"), GTK_RESPONSE_CANCEL);
  button = gtk_dialog_add_button (GTK_DIALOG (dialog), _("_Replace"), GTK_RESPONSE_ACCEPT);
  gtk_widget_add_css_class (button, "destructive-action");
  gtk_dialog_set_default_response (GTK_DIALOG (dialog), GTK_RESPONSE_CANCEL);
  g_object_set_data_full (G_OBJECT (dialog), "prism-row", g_object_ref (row), g_object_unref);
  g_object_set_data_full (G_OBJECT (dialog), "prism-dir", g_strdup (dir), g_free);
  g_signal_connect (dialog, "response", G_CALLBACK (replace_export_response_cb), NULL);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
export_kernel_response_cb (PrismWindow          *self,
                           int                   response,
                           GtkFileChooserNative *chooser)
{
  g_autoptr(GFile) folder = NULL;
  g_autofree char *path = NULL;
  g_autofree char *dir = NULL;
  PrismCandidateRow *row = prism_candidates_view_get_selected (self->candidates_view);

  if (response == GTK_RESPONSE_ACCEPT &&
      (folder = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser))) != NULL &&
      row != NULL && (path = g_file_get_path (folder)) != NULL)
    {
      g_autofree char *leaf = prism_candidate_row_is_external (row)
                              ? g_strdup_printf ("%s-mirage-graph-%u", self->workload ? self->workload : "program",
                                                 prism_candidate_row_get_id (row))
                              : g_strdup_printf ("%s-candidate-%u", self->workload ? self->workload : "program",
                                                 prism_candidate_row_get_id (row));

      dir = g_build_filename (path, leaf, NULL);
      if (g_file_test (dir, G_FILE_TEST_EXISTS))
        confirm_replace_export (self, row, dir);
      else
        export_kernel_to (self, row, dir);
    }
  gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (chooser));
  if (self->export_chooser == chooser)
    g_clear_object (&self->export_chooser);
}

static void
export_results_response_cb (PrismWindow          *self,
                            int                   response,
                            GtkFileChooserNative *chooser)
{
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;

  if (response == GTK_RESPONSE_ACCEPT &&
      (file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser))) != NULL &&
      (path = g_file_get_path (file)) != NULL)
    {
      if (!prism_window_export_results (self, path, &error))
        show_error (self, _("Could not export the results"), error->message);
      else
        show_exported (self, _("Exported the results of the search"), path, FALSE);
    }
  gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (chooser));
  if (self->export_chooser == chooser)
    g_clear_object (&self->export_chooser);
}

static void
start_new_search (PrismWindow *self,
                  gpointer     data)
{
  start_search (self, TRUE);
  if (self->session != NULL)
    gtk_stack_set_visible_child_name (self->view_stack, "search");
}

static void
search_start_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *param)
{
  PrismWindow *self = PRISM_WINDOW (widget);

  if (self->session != NULL && prism_session_get_state (self->session) == PRISM_SESSION_PAUSED)
    {
      prism_session_resume (self->session);
      gtk_stack_set_visible_child_name (self->view_stack, "search");
      return;
    }
  confirm_discard (self, _("Start a New Search?"), _("_Start New Search"),
                   start_new_search, NULL, NULL, NULL);
}

static void
search_pause_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *param)
{
  PrismWindow *self = PRISM_WINDOW (widget);

  if (self->session != NULL)
    prism_session_pause (self->session);
}

static void
search_stop_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *param)
{
  PrismWindow *self = PRISM_WINDOW (widget);

  /* A Mirage file's graphs being verified: stop that first (the run is
   * left as it is). */
  if (self->load_cancellable != NULL &&
      g_object_get_data (G_OBJECT (self->load_cancellable), "prism-mirage-file") != NULL)
    {
      set_loading (self, NULL);
      update_search_actions (self);
      return;
    }
  /* The session stays: its last batch and results arrive when it has stopped. */
  if (self->session != NULL)
    prism_session_stop (self->session);
}

static void
export_kernel_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *param)
{
  PrismWindow *self = PRISM_WINDOW (widget);
  PrismCandidateRow *row = prism_candidates_view_get_selected (self->candidates_view);
  g_autofree char *what = row ? describe_kernel_export (self, row) : NULL;
  g_autofree char *title = NULL;

  /* TRANSLATORS: title of the folder chooser; %s is "Candidate 7 for NVIDIA H100 (sm_90)" */
  title = what ? g_strdup_printf (_("Export the Kernels of %s to a Folder"), what)
               : g_strdup (_("Export Kernel to a Folder"));
  if (self->export_chooser != NULL)
    gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (self->export_chooser));
  g_clear_object (&self->export_chooser);
  self->export_chooser = gtk_file_chooser_native_new (title,
                                                      GTK_WINDOW (self),
                                                      GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER,
                                                      _("_Export"),
                                                      _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (self->export_chooser), TRUE);
  g_signal_connect_object (self->export_chooser, "response",
                           G_CALLBACK (export_kernel_response_cb), self, G_CONNECT_SWAPPED);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (self->export_chooser));
}

static void
export_results_action (GtkWidget  *widget,
                       const char *action_name,
                       GVariant   *param)
{
  PrismWindow *self = PRISM_WINDOW (widget);
  g_autofree char *name = suggested_name (self, "-results.json");

  if (self->export_chooser != NULL)
    gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (self->export_chooser));
  g_clear_object (&self->export_chooser);
  self->export_chooser = gtk_file_chooser_native_new (_("Export Results"),
                                                      GTK_WINDOW (self),
                                                      GTK_FILE_CHOOSER_ACTION_SAVE,
                                                      _("_Export"),
                                                      _("_Cancel"));
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (self->export_chooser), name);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (self->export_chooser), TRUE);
  g_signal_connect_object (self->export_chooser, "response",
                           G_CALLBACK (export_results_response_cb), self, G_CONNECT_SWAPPED);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (self->export_chooser));
}

/*
 * Signal callbacks
 */

/* A results file opened: its program, and its candidates (each proved
 * again when it was read) as a finished search shows them. */
static void
show_results (PrismWindow *self,
              PrismOpenedFile *opened,
              GFile *file)
{
  GPtrArray *cands = prism_results_get_candidates (opened->results);
  g_autoptr(GPtrArray) events = g_ptr_array_new_with_free_func ((GDestroyNotify) prism_event_unref);
  gboolean search_on_open = self->search_on_open;
  PrismEvent *e;

  /* Nothing to search for: the file holds what a search found. */
  self->search_on_open = FALSE;
  set_program (self, opened->program, NULL, file, NULL);
  self->search_on_open = search_on_open;

  prism_search_model_set_baseline (self->search_model, prism_results_get_baseline_kind (opened->results));
  g_free (self->run_target);
  self->run_target = g_strdup (prism_results_get_target (opened->results));
  for (guint i = 0; i < cands->len; i++)
    {
      PrismCandidate *c = g_ptr_array_index (cands, i);

      e = prism_event_new (PRISM_EVENT_VERIFIED);
      e->candidate = prism_candidate_ref (c);
      e->id = c->id;
      e->time_s = c->found_at_s;
      g_ptr_array_add (events, e);
    }
  e = prism_event_new (PRISM_EVENT_FINISHED);
  e->stats = *prism_results_get_stats (opened->results);
  e->time_s = e->stats.search.elapsed_s;
  e->message = g_strdup (prism_results_get_stop_reason (opened->results));
  g_ptr_array_add (events, e);
  prism_search_model_apply_events (self->search_model, (PrismEvent **) events->pdata, events->len);
  gtk_stack_set_visible_child_name (self->view_stack, "candidates");
  update_search_actions (self);
  update_status (self);
}

/* A model (an imported ONNX file) is shown whole on the Model page, where
 * the user picks the region to search; the search starts only then. */
static void
show_model (PrismWindow *self,
            PrismGraph  *model,
            GFile       *file)
{
  GtkStackPage *page = gtk_stack_get_page (self->view_stack, GTK_WIDGET (self->model_view));
  gboolean search_on_open = self->search_on_open;

  prism_model_view_set_model (self->model_view, model, file);
  gtk_stack_page_set_visible (page, model != NULL);
  if (model == NULL)
    return;
  self->search_on_open = FALSE;
  set_program (self, model, NULL, file, NULL);
  self->search_on_open = search_on_open;
  gtk_stack_set_visible_child_name (self->view_stack, "model");
}

/* A model with symbolic dims: the Model page asks their sizes first. */
static void
ask_model_dims (PrismWindow *self,
                char       **names,
                GFile       *file)
{
  prism_model_view_ask_dims (self->model_view, file, (const char *const *) names);
  gtk_stack_page_set_visible (gtk_stack_get_page (self->view_stack, GTK_WIDGET (self->model_view)), TRUE);
  /* Out of the welcome page, which shows while no program was opened yet. */
  gtk_stack_set_visible_child_name (self->content_stack, "program");
  gtk_stack_set_visible_child_name (self->view_stack, "model");
}

static void
model_sized_cb (PrismWindow    *self,
                PrismGraph     *model,
                PrismModelView *view)
{
  show_model (self, model, prism_model_view_get_file (view));
}

/* Search Region: the region becomes the program shown, and is searched. */
static void
model_search_region_cb (PrismWindow    *self,
                        PrismGraph     *region,
                        PrismModelView *view)
{
  g_autofree char *description = NULL;
  GFile *file = prism_model_view_get_file (view);
  g_autofree char *name = file != NULL ? file_display_name (file) : g_strdup ("");

  /* TRANSLATORS: the description of a region's program: the model file */
  description = g_strdup_printf (_("A region of the model “%s”."), name);
  set_program (self, region, NULL, file, description);
  if (self->session == NULL)
    start_search (self, TRUE);
  gtk_stack_set_visible_child_name (self->view_stack, "search");
}

static void
file_loaded_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  LoadData *data = user_data;
  PrismWindow *self = data->self;
  g_autoptr(PrismOpenedFile) opened = NULL;
  g_autoptr(GError) error = NULL;

  g_assert (G_IS_FILE (object));

  opened = prism_open_file_finish (result, &error);

  /* A newer load, or the window closing, made this one stale. */
  if (g_cancellable_is_cancelled (data->cancellable))
    {
      load_data_free (data);
      return;
    }

  set_loading (self, NULL);
  if (opened != NULL && opened->results != NULL)
    show_results (self, opened, data->file);
  else if (opened != NULL && opened->dim_params != NULL)
    ask_model_dims (self, opened->dim_params, data->file);
  else if (opened != NULL && opened->is_model)
    show_model (self, opened->program, data->file);
  else if (opened != NULL)
    {
      show_model (self, NULL, NULL);
      set_program (self, opened->program, NULL, data->file, NULL);
    }
  else
    {
      g_autofree char *name = file_display_name (data->file);
      g_autofree char *primary = g_strdup_printf (_("Could not open “%s”"), name);

      show_error (self, primary, error ? error->message : _("The file could not be read."));
    }
  if (opened != NULL && opened->refused->len > 0)
    {
      g_autofree char *name = file_display_name (data->file);
      g_autofree char *primary = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                               "%u candidate of “%s” was not opened",
                                                               "%u candidates of “%s” were not opened",
                                                               opened->refused->len),
                                                  opened->refused->len, name);

      show_error_list (self, primary, opened->refused);
    }
  load_data_free (data);
}

/* One dialog for every graph of a Mirage file that was not added, each
 * with why (as a results file's refused candidates are reported). */
static void
show_refused_graphs (PrismWindow       *self,
                     PrismOpenedMirage *opened,
                     GFile             *file)
{
  g_autofree char *name = file_display_name (file);
  g_autofree char *primary = NULL;

  primary = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                          "%u of the %u graphs of “%s” was not added",
                                          "%u of the %u graphs of “%s” were not added",
                                          opened->refused->len),
                             opened->refused->len, opened->n_graphs, name);
  show_error_list (self, primary, opened->refused);
}

/* A Mirage file's equivalent graphs join the candidates table, beside the
 * run's; the run itself is left as it is. */
static void
mirage_loaded_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  LoadData *data = user_data;
  PrismWindow *self = data->self;
  g_autoptr(PrismOpenedMirage) opened = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *name = NULL;
  guint added = 0;

  opened = prism_open_mirage_finish (result, &error);
  /* A newer load, another program or the window closing made it stale. */
  if (g_cancellable_is_cancelled (data->cancellable) || self->graph != data->reference)
    {
      load_data_free (data);
      return;
    }

  set_loading (self, NULL);
  name = file_display_name (data->file);
  if (opened == NULL)
    {
      g_autofree char *primary = g_strdup_printf (_("Could not open “%s”"), name);

      show_error (self, primary, error ? error->message : _("The file could not be read."));
      load_data_free (data);
      return;
    }
  for (guint i = 0; i < opened->candidates->len; i++)
    {
      PrismCandidate *c = g_ptr_array_index (opened->candidates, i);
      /* TRANSLATORS: a graph of a Mirage muGraph file, numbered from 0 */
      g_autofree char *label = g_strdup_printf (_("Mirage graph %u"), c->id);

      if (prism_search_model_add_external (self->search_model, c, c->id, label, name))
        added++;
      else
        /* Not silently (16 of gated_mlp's 32 graphs went so): said with
         * the graphs that were not added. */
        g_ptr_array_add (opened->refused,
                         /* TRANSLATORS: a Mirage graph number, its file */
                         g_strdup_printf (_("Mirage graph %u of %s is the same program as a graph already "
                                            "listed, and is listed once"), c->id, name));
    }
  if (opened->candidates->len > 0)
    gtk_stack_set_visible_child_name (self->view_stack, "candidates");
  if (opened->refused->len > 0)
    show_refused_graphs (self, opened, data->file);
  g_debug ("%s: %u of %u graphs added", name, added, opened->n_graphs);
  update_search_actions (self);
  update_status (self);
  load_data_free (data);
}

/* What the Mirage graphs are priced with: the run's target and baseline,
 * so that their speedups and the run's compare; the preferences' size
 * limits, as a search would use them. */
static void
mirage_options (PrismWindow          *self,
                PrismPipelineOptions *options,
                char                **target)
{
  prism_pipeline_options_init (options);
  *target = g_strdup (self->run_target);
  if (self->settings != NULL)
    {
      prism_preferences_apply_search_limits (self->settings, &options->search);
      if (*target == NULL)
        *target = g_settings_get_string (self->settings, "target-gpu");
    }
  options->target = *target;
  prism_baseline_kind_from_string (prism_search_model_get_baseline (self->search_model), &options->baseline);
}

static void
open_mirage (PrismWindow *self,
             GFile       *file)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autofree char *target = NULL;
  PrismPipelineOptions options;
  LoadData *data;

  g_object_set_data_full (G_OBJECT (cancellable), "prism-mirage-file", file_display_name (file), g_free);
  set_loading (self, cancellable);
  data = g_new0 (LoadData, 1);
  data->self = g_object_ref (self);
  data->file = g_object_ref (file);
  data->cancellable = g_object_ref (cancellable);
  data->reference = prism_graph_ref (self->graph);
  mirage_options (self, &options, &target);
  prism_open_mirage_async (file, self->graph, &options, cancellable, mirage_loaded_cb, data);
}

static void
open_file_confirmed (PrismWindow *self,
                     gpointer     file)
{
  prism_window_open_file (self, file);
}

/* Whether @file would be added beside the program shown rather than
 * replace it: a Mirage file in a local folder, with a program to check its
 * graphs against.  (Any other Mirage file is refused by the reader with a
 * message saying what to do.) */
static gboolean
adds_to_program (PrismWindow *self,
                 GFile       *file)
{
  g_autofree char *path = g_file_get_path (file);

  return self->graph != NULL && path != NULL && prism_mirage_file_is_mugraphs (path);
}

/**
 * prism_window_ask_open_file:
 * @file: a file the user chose (Open…) or dropped
 *
 * What Open… and a drop do with a file: prism_window_open_file(), after
 * asking when the file would replace a run that has something to lose.  A
 * Mirage file added beside the program shown replaces nothing: no question.
 */
void
prism_window_ask_open_file (PrismWindow *self,
                            GFile       *file)
{
  g_return_if_fail (PRISM_IS_WINDOW (self));
  g_return_if_fail (G_IS_FILE (file));

  /* Adding Mirage's graphs keeps the run shown: nothing to ask. */
  if (adds_to_program (self, file))
    {
      prism_window_open_file (self, file);
      return;
    }
  confirm_discard (self, _("Open Another File?"), _("_Open"), open_file_confirmed, NULL,
                   g_object_ref (file), g_object_unref);
}

static void
open_run_cb (PrismWindow     *self,
             const char      *results,
             PrismRunHistory *history)
{
  g_autoptr(GFile) file = g_file_new_for_path (results);

  prism_window_ask_open_file (self, file);
}

/* Alt+1 … Alt+5: a page of the open program, as the sidebar shows it. */
static void
show_page_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *param)
{
  PrismWindow *self = PRISM_WINDOW (widget);
  const char *page = g_variant_get_string (param, NULL);

  if (g_strcmp0 (gtk_stack_get_visible_child_name (self->content_stack), "program") != 0)
    return;   /* no program open: the pages are not shown */
  if (gtk_stack_get_child_by_name (self->view_stack, page) != NULL)
    gtk_stack_set_visible_child_name (self->view_stack, page);
}

static void
run_history_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *param)
{
  PrismWindow *self = PRISM_WINDOW (widget);

  if (self->run_history == NULL)
    {
      self->run_history = prism_run_history_new (GTK_WINDOW (self), NULL);
      g_object_add_weak_pointer (G_OBJECT (self->run_history), (gpointer *) &self->run_history);
      g_signal_connect_object (self->run_history, "open-run", G_CALLBACK (open_run_cb), self,
                               G_CONNECT_SWAPPED);
    }
  gtk_window_present (GTK_WINDOW (self->run_history));
}

/**
 * prism_window_get_sizes_button:
 *
 * Returns: (transfer none): the header bar's Sizes button (tests)
 */
GtkMenuButton *
prism_window_get_sizes_button (PrismWindow *self)
{
  g_return_val_if_fail (PRISM_IS_WINDOW (self), NULL);
  return self->sizes_button;
}

/* (transfer none): the Model page */
PrismModelView *
prism_window_get_model_view (PrismWindow *self)
{
  g_return_val_if_fail (PRISM_IS_WINDOW (self), NULL);
  return self->model_view;
}

/**
 * prism_window_get_run_history:
 *
 * Returns: (transfer none) (nullable): the Run History window, while it is open
 */
PrismRunHistory *
prism_window_get_run_history (PrismWindow *self)
{
  g_return_val_if_fail (PRISM_IS_WINDOW (self), NULL);
  return self->run_history;
}

static void
open_workload_confirmed (PrismWindow *self,
                         gpointer     name)
{
  prism_window_open_workload (self, name, NULL);
}

static void
open_workload_cancelled (PrismWindow *self,
                         gpointer     name)
{
  sync_dropdown (self);
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
        prism_window_ask_open_file (self, file);
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
  confirm_discard (self, _("Open Another Workload?"), _("_Open"), open_workload_confirmed,
                   open_workload_cancelled, g_strdup (gtk_string_list_get_string (self->workloads, position)),
                   g_free);
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
  prism_window_ask_open_file (self, files->data);
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
  /* Models are opened whole on the Model page. */
  gtk_file_filter_set_name (programs, _("Prism programs (JSON) and ONNX models"));
  gtk_file_filter_add_suffix (programs, "onnx");
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
export_graph_response_cb (PrismWindow          *self,
                          int                   response,
                          GtkFileChooserNative *chooser)
{
  g_assert (PRISM_IS_WINDOW (self));

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
      g_autofree char *path = file ? g_file_get_path (file) : NULL;
      const char *extension = g_object_get_data (G_OBJECT (chooser), "prism-extension");
      PrismGraphExportFormat format;
      g_autoptr(GError) error = NULL;

      /* The file name decides the format; a name without a known extension
       * gets the one of the menu item chosen. */
      if (path != NULL && !prism_graph_export_format_from_path (path, &format))
        {
          g_autofree char *with_extension = g_strconcat (path, extension, NULL);

          g_clear_object (&file);
          file = g_file_new_for_path (with_extension);
        }
      if (file != NULL && !prism_window_export_graph (self, file, &error))
        show_error (self, _("Could not export the graph"), error->message);
      else if (file != NULL)
        {
          g_autofree char *written = g_file_get_path (file);

          show_exported (self, _("Exported the graph"), written, FALSE);
        }
    }
  gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (chooser));
  if (self->graph_chooser == chooser)
    g_clear_object (&self->graph_chooser);
}

static void
export_graph_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *param)
{
  PrismWindow *self = PRISM_WINDOW (widget);
  gboolean png = g_str_equal (action_name, "win.export-graph-png");
  g_autoptr(GtkFileFilter) filter = gtk_file_filter_new ();
  g_autofree char *name = NULL;
  g_autofree char *title = NULL;
  PrismCandidateRow *row = NULL;
  const char *base;

  if (self->graph == NULL)
    return;
  if (self->graph_chooser != NULL)
    gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (self->graph_chooser));
  g_clear_object (&self->graph_chooser);

  /* The graph exported is the selected candidate's on the Candidates page
   * (prism_window_export_graph()): the title and the name say which. */
  if (g_strcmp0 (gtk_stack_get_visible_child_name (self->view_stack), "candidates") == 0)
    row = prism_candidates_view_get_selected (self->candidates_view);
  if (row != NULL)
    title = g_strdup_printf (png ? _("Export the Graph of Candidate %u as PNG")
                                 : _("Export the Graph of Candidate %u as SVG"),
                             prism_candidate_row_get_id (row));
  else
    title = g_strdup (png ? _("Export Graph as PNG") : _("Export Graph as SVG"));
  self->graph_chooser = gtk_file_chooser_native_new (title,
                                                     GTK_WINDOW (self),
                                                     GTK_FILE_CHOOSER_ACTION_SAVE,
                                                     _("_Export"),
                                                     _("_Cancel"));
  g_object_set_data (G_OBJECT (self->graph_chooser), "prism-extension", (gpointer) (png ? ".png" : ".svg"));
  gtk_file_filter_set_name (filter, png ? _("PNG images") : _("SVG images"));
  gtk_file_filter_add_suffix (filter, png ? "png" : "svg");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (self->graph_chooser), filter);
  base = self->workload ? self->workload
         : self->graph->name && *self->graph->name ? self->graph->name : "graph";
  if (row != NULL)
    name = g_strdup_printf ("%s-candidate-%u.%s", base, prism_candidate_row_get_id (row), png ? "png" : "svg");
  else
    name = g_strdup_printf ("%s.%s", base, png ? "png" : "svg");
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (self->graph_chooser), name);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (self->graph_chooser), TRUE);
  g_signal_connect_object (self->graph_chooser, "response",
                           G_CALLBACK (export_graph_response_cb), self, G_CONNECT_SWAPPED);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (self->graph_chooser));
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

      /* No g_settings_delay(): the application's settings object is shared,
       * and delay-apply mode would hold back every later change to it. */
      gtk_window_get_default_size (window, &width, &height);
      g_settings_set_boolean (self->settings, "window-maximized", gtk_window_is_maximized (window));
      if (!gtk_window_is_maximized (window) && width > 0 && height > 0)
        {
          g_settings_set_int (self->settings, "window-width", width);
          g_settings_set_int (self->settings, "window-height", height);
        }
    }

  return GTK_WINDOW_CLASS (prism_window_parent_class)->close_request (window);
}

/* Runs once the window has its application: GtkWindow's "application" is
 * not a construct property, so constructed() would still see none. */
static void
setup_settings (PrismWindow *self)
{
  GtkApplication *app;

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
      /* Read when the window is made and when the key changes; a caller
       * (the tests) may still set the property. */
      g_settings_bind (self->settings, "search-on-open", self, "search-on-open", G_SETTINGS_BIND_GET);
      /* Compare's CUDA Source is the code for the GPU the preferences target. */
      g_settings_bind (self->settings, "target-gpu", prism_candidates_view_get_compare_view (self->candidates_view),
                       "target", G_SETTINGS_BIND_GET);
      g_settings_bind (self->settings, "layout-direction", self->graph_view, "direction",
                       G_SETTINGS_BIND_DEFAULT);
      g_settings_bind (self->settings, "show-legend", self->graph_view, "show-legend",
                       G_SETTINGS_BIND_DEFAULT);
      g_settings_bind (self->settings, "show-legend",
                       prism_candidates_view_get_graph_view (self->candidates_view), "show-legend",
                       G_SETTINGS_BIND_DEFAULT);
      g_settings_bind (self->settings, "target-gpu", self->kernel_view, "target", G_SETTINGS_BIND_GET);
      g_signal_connect_object (self->settings, "changed::time-budget",
                               G_CALLBACK (time_budget_changed_cb), self, G_CONNECT_SWAPPED);
      g_signal_connect_object (self->settings, "changed::layout-direction",
                               G_CALLBACK (layout_direction_changed_cb), self, G_CONNECT_SWAPPED);
      layout_direction_changed_cb (self, "layout-direction", self->settings);
    }
}

static void
prism_window_dispose (GObject *object)
{
  PrismWindow *self = (PrismWindow *)object;

  set_loading (self, NULL);
  if (self->run_history != NULL)
    {
      PrismRunHistory *history = self->run_history;

      g_object_remove_weak_pointer (G_OBJECT (history), (gpointer *) &self->run_history);
      self->run_history = NULL;
      gtk_window_destroy (GTK_WINDOW (history));
    }
  if (self->file_chooser != NULL)
    gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (self->file_chooser));
  g_clear_object (&self->file_chooser);
  if (self->graph_chooser != NULL)
    gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (self->graph_chooser));
  g_clear_object (&self->graph_chooser);
  if (self->export_chooser != NULL)
    gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (self->export_chooser));
  g_clear_object (&self->export_chooser);
  /* Closing mid-search: the session stops in the background and no late
   * batch reaches the widgets torn down below. */
  detach_session (self);
  if (self->gpu_probe != NULL)
    g_cancellable_cancel (self->gpu_probe);
  g_clear_object (&self->gpu_probe);
  if (self->search_model != NULL)
    g_signal_handlers_disconnect_by_data (self->search_model, self);
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
  g_clear_pointer (&self->workload_params, g_free);
  g_clear_pointer (&self->run_target, g_free);
  g_clear_object (&self->file);
  g_clear_object (&self->workloads);
  g_clear_object (&self->settings);
  g_clear_object (&self->search_model);
  g_clear_pointer (&self->search_error, g_free);
  g_clear_pointer (&self->gpu_status, g_free);
  g_clear_pointer (&self->last_export, g_free);

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

    case PROP_SEARCH_ON_OPEN:
      g_value_set_boolean (value, self->search_on_open);
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

    case PROP_SEARCH_ON_OPEN:
      if (self->search_on_open != !!g_value_get_boolean (value))
        {
          self->search_on_open = !!g_value_get_boolean (value);
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
  /* Whether opening a program starts its search (tests turn it off). */
  properties [PROP_SEARCH_ON_OPEN] =
    g_param_spec_boolean ("search-on-open", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_type_ensure (PRISM_TYPE_PROGRAM_VIEW);
  g_type_ensure (PRISM_TYPE_GRAPH_VIEW);
  g_type_ensure (PRISM_TYPE_SEARCH_VIEW);
  g_type_ensure (PRISM_TYPE_CANDIDATES_VIEW);
  g_type_ensure (PRISM_TYPE_KERNEL_VIEW);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/prism/Explorer/prism-window.ui");
  gtk_widget_class_bind_template_child (widget_class, PrismWindow, workload_dropdown);
  gtk_widget_class_bind_template_child (widget_class, PrismWindow, sizes_button);
  gtk_widget_class_bind_template_child (widget_class, PrismWindow, title_label);
  gtk_widget_class_bind_template_child (widget_class, PrismWindow, subtitle_label);
  gtk_widget_class_bind_template_child (widget_class, PrismWindow, primary_menu_button);
  gtk_widget_class_bind_template_child (widget_class, PrismWindow, content_stack);
  gtk_widget_class_bind_template_child (widget_class, PrismWindow, paned);
  gtk_widget_class_bind_template_child (widget_class, PrismWindow, sidebar);
  gtk_widget_class_bind_template_child (widget_class, PrismWindow, summary_box);
  gtk_widget_class_bind_template_child (widget_class, PrismWindow, view_stack);
  gtk_widget_class_bind_template_child (widget_class, PrismWindow, program_view);
  gtk_widget_class_bind_template_child (widget_class, PrismWindow, graph_view);
  gtk_widget_class_bind_template_child (widget_class, PrismWindow, search_view);
  gtk_widget_class_bind_template_child (widget_class, PrismWindow, candidates_view);
  gtk_widget_class_bind_template_child (widget_class, PrismWindow, kernel_view);
  gtk_widget_class_bind_template_child (widget_class, PrismWindow, status_spinner);
  gtk_widget_class_bind_template_child (widget_class, PrismWindow, status_label);
  gtk_widget_class_bind_template_child (widget_class, PrismWindow, gpu_label);

  gtk_widget_class_install_action (widget_class, "win.open", NULL, open_action);
  gtk_widget_class_install_action (widget_class, "win.run-history", NULL, run_history_action);
  gtk_widget_class_install_action (widget_class, "win.show-page", "s", show_page_action);
  gtk_widget_class_install_action (widget_class, "win.export-chart", "s", export_chart_action);
  gtk_widget_class_install_action (widget_class, "win.export-graph-svg", NULL, export_graph_action);
  gtk_widget_class_install_action (widget_class, "win.export-graph-png", NULL, export_graph_action);
  gtk_widget_class_install_property_action (widget_class, "win.toggle-sidebar", "sidebar-visible");
  gtk_widget_class_install_action (widget_class, "win.search-start", NULL, search_start_action);
  gtk_widget_class_install_action (widget_class, "win.search-pause", NULL, search_pause_action);
  gtk_widget_class_install_action (widget_class, "win.search-stop", NULL, search_stop_action);
  gtk_widget_class_install_action (widget_class, "win.export-kernel", NULL, export_kernel_action);
  gtk_widget_class_install_action (widget_class, "win.export-results", NULL, export_results_action);
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
  self->search_on_open = TRUE;
  gtk_widget_init_template (GTK_WIDGET (self));
  /* Nothing to export until a program is open. */
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.export-graph-svg", FALSE);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.export-graph-png", FALSE);

  self->model_view = PRISM_MODEL_VIEW (prism_model_view_new ());
  gtk_stack_page_set_icon_name (gtk_stack_add_titled (self->view_stack, GTK_WIDGET (self->model_view), "model",
                                                      _("Model")), "view-grid-symbolic");
  gtk_stack_page_set_visible (gtk_stack_get_page (self->view_stack, GTK_WIDGET (self->model_view)), FALSE);
  g_signal_connect_object (self->model_view, "search-region", G_CALLBACK (model_search_region_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->model_view, "model-sized", G_CALLBACK (model_sized_cb), self, G_CONNECT_SWAPPED);

  self->search_model = prism_search_model_new ();
  prism_search_view_set_model (self->search_view, self->search_model);
  prism_candidates_view_set_model (self->candidates_view, self->search_model);
  prism_kernel_view_set_model (self->kernel_view, self->search_model);
  g_signal_connect_object (self->search_model, "changed", G_CALLBACK (model_changed_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->candidates_view, "notify::selected",
                           G_CALLBACK (candidate_selected_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (prism_search_view_get_speedup_chart (self->search_view), "candidate-activated",
                           G_CALLBACK (speedup_point_activated_cb), self, G_CONNECT_SWAPPED);
  update_search_actions (self);
  update_status (self);
  probe_gpu (self);

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
  PrismWindow *self = g_object_new (PRISM_TYPE_WINDOW, "application", application, NULL);

  setup_settings (self);
  return self;
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
  g_free (self->workload_params);
  self->workload_params = merge_params (info->shape_params, params);
  update_sizes (self);
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
 * @file: a prism-graph or prism-results JSON file
 *
 * Reads @file in the background and shows its program, or reports why it
 * cannot be read in a dialog (the window keeps what it showed). This is what
 * the Open… button does with the chosen file. A results file shows its
 * program and the candidates it holds, as a finished search (no search
 * starts); each candidate is proved again first, and a dialog names those
 * that fail, which are left out.
 *
 * A Mirage muGraph file (in a local folder) opened while a program is shown
 * adds to it instead: each graph is verified against the program, inputs
 * matched by their order, in the background; the equivalent ones join the
 * candidates table as “Mirage graph N”, priced like the run's, the run
 * shown is kept, and one dialog names the others with why.  With no
 * program shown, a Mirage file is refused with a dialog saying to open the
 * reference program first.
 */
void
prism_window_open_file (PrismWindow *self,
                        GFile       *file)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  LoadData *data;

  g_return_if_fail (PRISM_IS_WINDOW (self));
  g_return_if_fail (G_IS_FILE (file));

  if (adds_to_program (self, file))
    {
      open_mirage (self, file);
      return;
    }
  set_loading (self, cancellable);
  data = g_new0 (LoadData, 1);
  data->self = g_object_ref (self);
  data->file = g_object_ref (file);
  data->cancellable = g_object_ref (cancellable);
  /* Bounded, never blocking on a FIFO; a results file's candidates are
   * proved again (prism-open-file.c). */
  prism_open_file_async (file, cancellable, file_loaded_cb, data);
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

/**
 * prism_window_start_search:
 *
 * Starts a new search of the program shown (the Start button when no search
 * is paused), replacing the one shown.
 */
void
prism_window_start_search (PrismWindow *self)
{
  g_return_if_fail (PRISM_IS_WINDOW (self));
  start_search (self, TRUE);
}

/**
 * prism_window_get_session:
 *
 * Returns: (transfer none) (nullable): the search shown
 */
PrismSession *
prism_window_get_session (PrismWindow *self)
{
  g_return_val_if_fail (PRISM_IS_WINDOW (self), NULL);
  return self->session;
}

/**
 * prism_window_get_search_model:
 *
 * Returns: (transfer none): what the Search and Candidates pages show
 */
PrismSearchModel *
prism_window_get_search_model (PrismWindow *self)
{
  g_return_val_if_fail (PRISM_IS_WINDOW (self), NULL);
  return self->search_model;
}

/**
 * prism_window_get_search_view:
 *
 * Returns: (transfer none): the Search page
 */
PrismSearchView *
prism_window_get_search_view (PrismWindow *self)
{
  g_return_val_if_fail (PRISM_IS_WINDOW (self), NULL);
  return self->search_view;
}

/**
 * prism_window_get_candidates_view:
 *
 * Returns: (transfer none): the Candidates page
 */
PrismCandidatesView *
prism_window_get_candidates_view (PrismWindow *self)
{
  g_return_val_if_fail (PRISM_IS_WINDOW (self), NULL);
  return self->candidates_view;
}

/**
 * prism_window_get_status:
 *
 * Returns: (transfer none): the status line's text
 */
const char *
prism_window_get_status (PrismWindow *self)
{
  g_return_val_if_fail (PRISM_IS_WINDOW (self), NULL);
  return gtk_label_get_label (self->status_label);
}

/**
 * prism_window_get_gpu_status:
 *
 * Returns: (transfer none) (nullable): what the status line says about the
 *   GPU ("No GPU — …"), or %NULL while it is being looked for
 */
const char *
prism_window_get_gpu_status (PrismWindow *self)
{
  g_return_val_if_fail (PRISM_IS_WINDOW (self), NULL);
  return self->gpu_status;
}

/* The chart @which ("speedup" or "tree") of the Search page. */
static GtkWidget *
chart_widget (PrismWindow *self,
              const char  *which)
{
  if (g_strcmp0 (which, "speedup") == 0)
    return GTK_WIDGET (prism_search_view_get_speedup_chart (self->search_view));
  if (g_strcmp0 (which, "tree") == 0)
    return GTK_WIDGET (prism_search_view_get_tree_chart (self->search_view));
  return NULL;
}

/**
 * prism_window_export_chart:
 * @which: "speedup" or "tree"
 * @path: a PNG file to write
 *
 * Saves the Search page's speedup chart or search tree as drawn, at its
 * size on screen (what Export Speedup Chart / Search Tree as PNG do).
 *
 * Returns: %FALSE with @error if the chart has not been drawn or @path
 *   cannot be written
 */
gboolean
prism_window_export_chart (PrismWindow  *self,
                           const char   *which,
                           const char   *path,
                           GError      **error)
{
  GtkWidget *chart;
  g_autoptr(GdkPaintable) paintable = NULL;
  g_autoptr(GskRenderNode) node = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  GtkSnapshot *snapshot;
  GskRenderer *renderer;
  int width, height;

  g_return_val_if_fail (PRISM_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  chart = chart_widget (self, which);
  g_return_val_if_fail (chart != NULL, FALSE);
  width = gtk_widget_get_width (chart);
  height = gtk_widget_get_height (chart);
  renderer = gtk_widget_get_native (chart) ? gtk_native_get_renderer (gtk_widget_get_native (chart)) : NULL;
  if (width <= 0 || height <= 0 || renderer == NULL || !gtk_widget_get_mapped (chart))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_INITIALIZED,
                           _("The chart is not on screen: show the Search page first"));
      return FALSE;
    }
  paintable = gtk_widget_paintable_new (chart);
  snapshot = gtk_snapshot_new ();
  gdk_paintable_snapshot (paintable, snapshot, width, height);
  node = gtk_snapshot_free_to_node (snapshot);
  if (node == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_INITIALIZED, _("The chart has nothing drawn yet"));
      return FALSE;
    }
  texture = gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, width, height));
  if (!gdk_texture_save_to_png (texture, path))
    {
      g_autofree char *shown = g_filename_display_name (path);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("Cannot write the image “%s”"), shown);
      return FALSE;
    }
  return TRUE;
}

static void
export_chart_response_cb (PrismWindow          *self,
                          int                   response,
                          GtkFileChooserNative *chooser)
{
  const char *which = g_object_get_data (G_OBJECT (chooser), "prism-chart");
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;

  if (response == GTK_RESPONSE_ACCEPT &&
      (file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser))) != NULL &&
      (path = g_file_get_path (file)) != NULL)
    {
      if (!g_str_has_suffix (path, ".png"))
        {
          char *with = g_strconcat (path, ".png", NULL);
          g_free (path);
          path = with;
        }
      if (!prism_window_export_chart (self, which, path, &error))
        show_error (self, _("Could not export the chart"), error->message);
      else
        show_exported (self, g_str_equal (which, "speedup") ? _("Exported the speedup chart")
                                                            : _("Exported the search tree"),
                       path, FALSE);
    }
  gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (chooser));
  if (self->export_chooser == chooser)
    g_clear_object (&self->export_chooser);
}

static void
export_chart_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *param)
{
  PrismWindow *self = PRISM_WINDOW (widget);
  const char *which = g_variant_get_string (param, NULL);
  g_autoptr(GtkFileFilter) filter = gtk_file_filter_new ();
  g_autofree char *name = NULL;

  if (chart_widget (self, which) == NULL)
    return;
  /* The chart is saved as drawn: it must be on screen. */
  gtk_stack_set_visible_child_name (self->view_stack, "search");
  if (self->export_chooser != NULL)
    gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (self->export_chooser));
  g_clear_object (&self->export_chooser);
  self->export_chooser = gtk_file_chooser_native_new (g_str_equal (which, "speedup")
                                                      ? _("Export the Speedup Chart as PNG")
                                                      : _("Export the Search Tree as PNG"),
                                                      GTK_WINDOW (self), GTK_FILE_CHOOSER_ACTION_SAVE,
                                                      _("_Export"), _("_Cancel"));
  g_object_set_data_full (G_OBJECT (self->export_chooser), "prism-chart", g_strdup (which), g_free);
  gtk_file_filter_set_name (filter, _("PNG images"));
  gtk_file_filter_add_suffix (filter, "png");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (self->export_chooser), filter);
  name = g_strdup_printf ("%s-%s.png", self->workload ? self->workload : "search",
                          g_str_equal (which, "speedup") ? "speedup" : "search-tree");
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (self->export_chooser), name);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (self->export_chooser), TRUE);
  g_signal_connect_object (self->export_chooser, "response",
                           G_CALLBACK (export_chart_response_cb), self, G_CONNECT_SWAPPED);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (self->export_chooser));
}

/**
 * prism_window_get_last_export:
 *
 * Returns: (nullable): what the last export from a menu said it wrote, and
 *   where, on two lines (tests)
 */
const char *
prism_window_get_last_export (PrismWindow *self)
{
  g_return_val_if_fail (PRISM_IS_WINDOW (self), NULL);
  return self->last_export;
}

/* The search model is emptied whenever the program changes, so a row of
 * the open program is one the model still holds. */
static gboolean
row_is_of_open_program (PrismWindow       *self,
                        PrismCandidateRow *row)
{
  GListModel *rows = prism_search_model_get_candidates (self->search_model);
  guint n = g_list_model_get_n_items (rows);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(PrismCandidateRow) item = g_list_model_get_item (rows, i);

      if (item == row)
        return TRUE;
    }
  return FALSE;
}

/**
 * prism_window_export_kernel:
 * @dir: the bundle folder (created when missing)
 *
 * Writes the selected candidate, with its best sizes, as a CUDA bundle
 * (.cu, .h, manifest.json, graph.json, Makefile, runtime headers); this is
 * what Export Kernel… does with the folder chosen.
 *
 * Returns: %FALSE with @error if nothing is selected or a file cannot be written
 */
gboolean
prism_window_export_kernel (PrismWindow  *self,
                            const char   *dir,
                            GError      **error)
{
  PrismCandidateRow *row;
  g_autoptr(PrismGraph) graph = NULL;
  g_autoptr(JsonNode) provenance = NULL;
  g_autofree char *target = NULL;
  PrismCudaOptions options = { 0, };
  const PrismGpuTarget *gpu;

  g_return_val_if_fail (PRISM_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (dir != NULL, FALSE);

  row = prism_candidates_view_get_selected (self->candidates_view);
  if (row == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                           _("No candidate is selected"));
      return FALSE;
    }
  if (!row_is_of_open_program (self, row))
    {
      g_autofree char *title = prism_candidate_row_dup_title (row);

      /* Translators: %s is "Candidate 5" or "Mirage graph 2" */
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("%s is not a candidate of the open program"), title);
      return FALSE;
    }
  graph = prism_candidate_row_dup_concrete_graph (row);
  if (graph == NULL || !prism_graph_is_concrete (graph))
    {
      g_autofree char *title = prism_candidate_row_dup_title (row);

      /* Translators: %s is "Candidate 5" or "Mirage graph 2" */
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("%s has no concrete sizes to generate code for"), title);
      return FALSE;
    }

  /* Code for the GPU the preferences target. */
  if (self->settings != NULL)
    target = g_settings_get_string (self->settings, "target-gpu");
  gpu = target ? prism_gpu_target_lookup (target) : NULL;
  if (gpu == NULL)
    gpu = prism_gpu_target_default ();
  options.sm = gpu->compute_capability;
  options.target = gpu;

  provenance = prism_candidate_to_json (prism_candidate_row_get_candidate (row));
  /* No nvcc run here: the window stays responsive; `prism export` adds
   * registers and spills. */
  return prism_export_bundle (graph, provenance, &options, PRISM_EXPORT_DEFAULT, dir, NULL, NULL, error);
}

/**
 * prism_window_export_results:
 * @path: the file to write
 *
 * Copies the search's results.json (every verified candidate with its
 * evidence, the counters and the configuration) to @path; this is what
 * Export Results… does with the file chosen.
 *
 * Returns: %FALSE with @error if there are no results yet or @path cannot be written
 */
gboolean
prism_window_export_results (PrismWindow  *self,
                             const char   *path,
                             GError      **error)
{
  const char *results;
  g_autoptr(GFile) source = NULL;
  g_autoptr(GFile) dest = NULL;

  g_return_val_if_fail (PRISM_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  results = self->session ? prism_session_get_results_path (self->session) : NULL;
  if (results == NULL || !g_file_test (results, G_FILE_TEST_IS_REGULAR))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                           _("The search has not saved any results yet"));
      return FALSE;
    }
  source = g_file_new_for_path (results);
  dest = g_file_new_for_path (path);
  return g_file_copy (source, dest, G_FILE_COPY_OVERWRITE, NULL, NULL, NULL, error);
}

/**
 * prism_window_get_kernel_view:
 *
 * Returns: (transfer none): the Kernel page
 */
PrismKernelView *
prism_window_get_kernel_view (PrismWindow *self)
{
  g_return_val_if_fail (PRISM_IS_WINDOW (self), NULL);
  return self->kernel_view;
}

/**
 * prism_window_get_graph_view:
 *
 * Returns: (transfer none): the page that draws the program's graph
 */
PrismGraphView *
prism_window_get_graph_view (PrismWindow *self)
{
  g_return_val_if_fail (PRISM_IS_WINDOW (self), NULL);
  return self->graph_view;
}

/**
 * prism_window_export_graph:
 * @file: a local file ending in .svg or .png, which decides the format
 *
 * Writes the program's graph as the Graph page draws it, or on the
 * Candidates page the selected candidate's (what the Export Graph menu items
 * do with the chosen file).
 *
 * Returns: %FALSE with @error set if nothing is open, the extension is
 *   unknown or the file cannot be written
 */
gboolean
prism_window_export_graph (PrismWindow  *self,
                           GFile        *file,
                           GError      **error)
{
  g_autofree char *path = NULL;
  PrismGraphLayout *layout;
  PrismGraphExportFormat format;

  g_return_val_if_fail (PRISM_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);

  path = g_file_get_path (file);
  if (self->graph == NULL || path == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   self->graph == NULL ? _("No program is open") : _("The graph can only be saved to a local file"));
      return FALSE;
    }
  if (!prism_graph_export_format_from_path (path, &format))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_FILENAME,
                   _("“%s” does not end in .svg or .png"), path);
      return FALSE;
    }

  /* On the Candidates page the graph meant is the selected candidate's. */
  if (g_strcmp0 (gtk_stack_get_visible_child_name (self->view_stack), "candidates") == 0 &&
      prism_candidates_view_get_selected (self->candidates_view) != NULL)
    {
      PrismCandidateRow *row = prism_candidates_view_get_selected (self->candidates_view);
      PrismGraphView *view = prism_candidates_view_get_graph_view (self->candidates_view);
      g_autoptr(PrismGraph) candidate = prism_candidate_row_dup_concrete_graph (row);

      layout = prism_graph_view_get_layout (view);
      if (layout != NULL && prism_graph_view_get_graph (view) != NULL &&
          layout->graph == prism_graph_view_get_graph (view) &&
          prism_candidates_view_get_n_selected (self->candidates_view) == 1)
        return prism_graph_export_layout (layout, path, format, 2.0, error);
      return prism_graph_export (candidate, prism_graph_view_get_direction (view), path, format, error);
    }

  /* The layout on screen when it is ready, else the same one made here. */
  layout = prism_graph_view_get_layout (self->graph_view);
  if (layout != NULL && layout->graph == self->graph)
    return prism_graph_export_layout (layout, path, format, 2.0, error);
  return prism_graph_export (self->graph, prism_graph_view_get_direction (self->graph_view),
                             path, format, error);
}
