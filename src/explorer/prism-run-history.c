/* prism-run-history.c — the runs the explorer cached, to open or delete
 *
 * A window listing the run folders of the cache, newest first, with when
 * each was last written and the disk it takes, and a total; Open reads a
 * run's results.json back into the main window (through its "open-run"
 * signal, so that the main window asks before replacing what it shows),
 * Delete removes the run after asking.  The folder is walked on a worker
 * thread: a cache of many runs must not block the window.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n.h>

#include "prism-run-history.h"

struct _PrismRunHistory
{
  GtkWindow parent_instance;

  char *folder;
  GPtrArray *runs;               /* PrismRunInfo, as listed */
  GCancellable *scan;            /* the scan in flight, or NULL */
  char *summary;

  GtkLabel *summary_label;
  GtkListBox *list;
  GtkStack *stack;
  GtkWidget *compare_button;
  GArray *ticked;                /* guint: the runs ticked for comparing, oldest first (at most 2) */
};

G_DEFINE_FINAL_TYPE (PrismRunHistory, prism_run_history, GTK_TYPE_WINDOW)

enum {
  OPEN_RUN,
  N_SIGNALS
};

static guint signals [N_SIGNALS];

static void rescan          (PrismRunHistory *self);
static void tick_toggled_cb (GtkCheckButton  *tick,
                             PrismRunHistory *self);

static char *
describe_run (const PrismRunInfo *info)
{
  g_autoptr(GDateTime) when = g_date_time_new_from_unix_local (info->modified);
  g_autofree char *date = when ? g_date_time_format (when, "%x %X") : g_strdup ("?");
  g_autofree char *size = g_format_size (info->bytes);

  if (info->results == NULL)
    /* TRANSLATORS: a run of the history without results: date, disk used */
    return g_strdup_printf (_("%s · %s · no results (the search did not get far)"), date, size);
  /* TRANSLATORS: a run of the history: date it was last written, disk used */
  return g_strdup_printf (_("%s · %s"), date, size);
}

static void
open_clicked_cb (GtkButton       *button,
                 PrismRunHistory *self)
{
  prism_run_history_open_run (self, GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (button), "index")));
}

static void
delete_clicked_cb (GtkButton       *button,
                   PrismRunHistory *self)
{
  prism_run_history_ask_delete (self, GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (button), "index")));
}

static void
update_compare (PrismRunHistory *self)
{
  gtk_widget_set_sensitive (self->compare_button, self->ticked->len == 2);
}

/* Ticking a third run unticks the oldest, as the candidates table does. */
static void
tick_toggled_cb (GtkCheckButton  *tick,
                 PrismRunHistory *self)
{
  guint index = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (tick), "index"));

  for (guint i = 0; i < self->ticked->len; i++)
    if (g_array_index (self->ticked, guint, i) == index)
      g_array_remove_index (self->ticked, i--);
  if (gtk_check_button_get_active (tick))
    g_array_append_val (self->ticked, index);
  while (self->ticked->len > 2)
    {
      guint oldest = g_array_index (self->ticked, guint, 0);

      g_array_remove_index (self->ticked, 0);
      for (GtkWidget *row = gtk_widget_get_first_child (GTK_WIDGET (self->list)); row != NULL;
           row = gtk_widget_get_next_sibling (row))
        {
          GtkWidget *box = gtk_list_box_row_get_child (GTK_LIST_BOX_ROW (row));

          for (GtkWidget *w = gtk_widget_get_first_child (box); w != NULL; w = gtk_widget_get_next_sibling (w))
            if (GTK_IS_CHECK_BUTTON (w) && GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (w), "index")) == oldest)
              gtk_check_button_set_active (GTK_CHECK_BUTTON (w), FALSE);
        }
    }
  update_compare (self);
}

static GtkWidget *
make_row (PrismRunHistory    *self,
          const PrismRunInfo *info,
          guint               index)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkWidget *text = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkWidget *name = gtk_label_new (info->name);
  g_autofree char *details = describe_run (info);
  GtkWidget *detail = gtk_label_new (details);
  GtkWidget *open = gtk_button_new_with_mnemonic (_("_Open"));
  GtkWidget *delete = gtk_button_new_from_icon_name ("user-trash-symbolic");

  gtk_widget_set_margin_start (box, 12);
  gtk_widget_set_margin_end (box, 12);
  gtk_widget_set_margin_top (box, 6);
  gtk_widget_set_margin_bottom (box, 6);
  gtk_widget_set_hexpand (text, TRUE);
  gtk_label_set_xalign (GTK_LABEL (name), 0);
  gtk_label_set_ellipsize (GTK_LABEL (name), PANGO_ELLIPSIZE_MIDDLE);
  gtk_widget_add_css_class (name, "heading");
  gtk_label_set_xalign (GTK_LABEL (detail), 0);
  gtk_widget_add_css_class (detail, "dim-label");
  gtk_box_append (GTK_BOX (text), name);
  gtk_box_append (GTK_BOX (text), detail);
  if (info->summary != NULL)
    {
      /* What the run was: program, mode, GPU, counts, best, how it ended. */
      GtkWidget *what = gtk_label_new (info->summary);

      gtk_label_set_xalign (GTK_LABEL (what), 0);
      gtk_label_set_wrap (GTK_LABEL (what), TRUE);
      gtk_label_set_wrap_mode (GTK_LABEL (what), PANGO_WRAP_WORD_CHAR);
      gtk_widget_add_css_class (what, "caption");
      gtk_widget_set_tooltip_text (what, info->limits);
      gtk_box_append (GTK_BOX (text), what);
    }
  {
    GtkWidget *tick = gtk_check_button_new ();

    gtk_widget_set_valign (tick, GTK_ALIGN_CENTER);
    gtk_widget_set_sensitive (tick, info->summary != NULL);
    gtk_widget_set_tooltip_text (tick, _("Tick two runs to compare them"));
    gtk_accessible_update_property (GTK_ACCESSIBLE (tick), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Compare"), -1);
    g_object_set_data (G_OBJECT (tick), "index", GUINT_TO_POINTER (index));
    g_signal_connect (tick, "toggled", G_CALLBACK (tick_toggled_cb), self);
    gtk_box_append (GTK_BOX (box), tick);
  }
  gtk_box_append (GTK_BOX (box), text);

  gtk_widget_set_valign (open, GTK_ALIGN_CENTER);
  gtk_widget_set_sensitive (open, info->results != NULL);
  gtk_widget_set_tooltip_text (open, _("Show this run's candidates in the main window"));
  g_object_set_data (G_OBJECT (open), "index", GUINT_TO_POINTER (index));
  g_signal_connect (open, "clicked", G_CALLBACK (open_clicked_cb), self);
  gtk_box_append (GTK_BOX (box), open);

  gtk_widget_set_valign (delete, GTK_ALIGN_CENTER);
  gtk_widget_set_tooltip_text (delete, _("Delete this run from the disk"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (delete), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Delete"), -1);
  g_object_set_data (G_OBJECT (delete), "index", GUINT_TO_POINTER (index));
  g_signal_connect (delete, "clicked", G_CALLBACK (delete_clicked_cb), self);
  gtk_box_append (GTK_BOX (box), delete);
  return box;
}

static void
show_runs (PrismRunHistory *self,
           GPtrArray       *runs)
{
  g_autofree char *folder = g_filename_display_name (self->folder);
  g_autofree char *total = NULL;
  guint64 bytes = 0;
  GtkWidget *child;

  g_clear_pointer (&self->runs, g_ptr_array_unref);
  self->runs = g_ptr_array_ref (runs);
  g_array_set_size (self->ticked, 0);
  update_compare (self);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->list))) != NULL)
    gtk_list_box_remove (self->list, child);
  for (guint i = 0; i < runs->len; i++)
    {
      const PrismRunInfo *info = g_ptr_array_index (runs, i);

      bytes += info->bytes;
      gtk_list_box_append (self->list, make_row (self, info, i));
    }
  total = g_format_size (bytes);
  g_free (self->summary);
  /* TRANSLATORS: %u runs, %s disk used (e.g. "12.3 MB"), %s the folder */
  self->summary = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u run, %s on disk, in %s",
                                                "%u runs, %s on disk, in %s", runs->len),
                                   runs->len, total, folder);
  gtk_label_set_label (self->summary_label, self->summary);
  gtk_stack_set_visible_child_name (self->stack, runs->len > 0 ? "runs" : "empty");
}

static void
scan_thread (GTask        *task,
             gpointer      source,
             gpointer      task_data,
             GCancellable *cancellable)
{
  g_task_return_pointer (task, prism_run_info_scan (task_data), (GDestroyNotify) g_ptr_array_unref);
}

static void
scan_done_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(PrismRunHistory) self = user_data;
  g_autoptr(GPtrArray) runs = g_task_propagate_pointer (G_TASK (result), NULL);

  /* A newer scan (after a deletion) replaces this one. */
  if (g_task_get_cancellable (G_TASK (result)) != self->scan || runs == NULL)
    return;
  g_clear_object (&self->scan);
  show_runs (self, runs);
}

static void
rescan (PrismRunHistory *self)
{
  g_autoptr(GTask) task = NULL;

  if (self->scan != NULL)
    g_cancellable_cancel (self->scan);
  g_clear_object (&self->scan);
  self->scan = g_cancellable_new ();
  task = g_task_new (NULL, self->scan, scan_done_cb, g_object_ref (self));
  g_task_set_task_data (task, g_strdup (self->folder), g_free);
  g_task_run_in_thread (task, scan_thread);
}

void
prism_run_history_open_run (PrismRunHistory *self,
                            guint            index)
{
  const PrismRunInfo *info;

  g_return_if_fail (PRISM_IS_RUN_HISTORY (self));
  g_return_if_fail (self->runs != NULL && index < self->runs->len);
  info = g_ptr_array_index (self->runs, index);
  if (info->results != NULL)
    g_signal_emit (self, signals[OPEN_RUN], 0, info->results);
}

static void
delete_response_cb (GtkDialog       *dialog,
                    int              response,
                    PrismRunHistory *self)
{
  PrismRunInfo *info = g_object_get_data (G_OBJECT (dialog), "run");
  g_autoptr(GError) error = NULL;

  if (response == GTK_RESPONSE_ACCEPT && !prism_run_info_delete (info, &error))
    {
      GtkWidget *failed = gtk_message_dialog_new (GTK_WINDOW (self), GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT,
                                                  GTK_MESSAGE_ERROR, GTK_BUTTONS_CLOSE,
                                                  "%s", _("Could not delete the run"));
      gtk_message_dialog_format_secondary_text (GTK_MESSAGE_DIALOG (failed), "%s", error->message);
      g_signal_connect (failed, "response", G_CALLBACK (gtk_window_destroy), NULL);
      gtk_window_present (GTK_WINDOW (failed));
    }
  gtk_window_destroy (GTK_WINDOW (dialog));
  if (response == GTK_RESPONSE_ACCEPT)
    rescan (self);
}

void
prism_run_history_ask_delete (PrismRunHistory *self,
                              guint            index)
{
  const PrismRunInfo *info;
  PrismRunInfo *copy;
  g_autofree char *size = NULL;
  GtkWidget *dialog, *button;

  g_return_if_fail (PRISM_IS_RUN_HISTORY (self));
  g_return_if_fail (self->runs != NULL && index < self->runs->len);
  info = g_ptr_array_index (self->runs, index);
  size = g_format_size (info->bytes);
  dialog = gtk_message_dialog_new (GTK_WINDOW (self), GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT,
                                   GTK_MESSAGE_QUESTION, GTK_BUTTONS_NONE, _("Delete the Run “%s”?"), info->name);
  gtk_message_dialog_format_secondary_text (GTK_MESSAGE_DIALOG (dialog),
                                            _("Its results and the %s it takes are removed from the disk; "
                                              "this cannot be undone."), size);
  gtk_dialog_add_button (GTK_DIALOG (dialog), _("_Cancel"), GTK_RESPONSE_CANCEL);
  button = gtk_dialog_add_button (GTK_DIALOG (dialog), _("_Delete"), GTK_RESPONSE_ACCEPT);
  gtk_widget_add_css_class (button, "destructive-action");
  gtk_dialog_set_default_response (GTK_DIALOG (dialog), GTK_RESPONSE_CANCEL);
  /* The list may be scanned again while the question is open. */
  copy = g_new0 (PrismRunInfo, 1);
  copy->path = g_strdup (info->path);
  copy->name = g_strdup (info->name);
  copy->results = g_strdup (info->results);
  copy->modified = info->modified;
  copy->bytes = info->bytes;
  g_object_set_data_full (G_OBJECT (dialog), "run", copy, (GDestroyNotify) prism_run_info_free);
  g_signal_connect_object (dialog, "response", G_CALLBACK (delete_response_cb), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

/**
 * prism_run_history_compare:
 * @a: a run's index
 * @b: another's
 *
 * Shows what differs between the two runs — what each was (program, mode,
 * GPU, counts, best, how it ended) and every search option that differs —
 * in a dialog.
 *
 * Returns: (transfer full): the lines shown
 */
GPtrArray *
prism_run_history_compare (PrismRunHistory *self,
                           guint            a,
                           guint            b)
{
  g_autoptr(GString) text = g_string_new (NULL);
  const PrismRunInfo *ra, *rb;
  GPtrArray *lines;
  GtkWidget *dialog, *label, *scrolled;

  g_return_val_if_fail (PRISM_IS_RUN_HISTORY (self), NULL);
  g_return_val_if_fail (self->runs != NULL && a < self->runs->len && b < self->runs->len, NULL);
  ra = g_ptr_array_index (self->runs, a);
  rb = g_ptr_array_index (self->runs, b);
  lines = prism_run_info_compare (ra, rb);
  for (guint i = 0; i < lines->len; i++)
    g_string_append_printf (text, "%s%s", i ? "\n" : "", (char *) g_ptr_array_index (lines, i));
  dialog = gtk_message_dialog_new (GTK_WINDOW (self), GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT,
                                   GTK_MESSAGE_INFO, GTK_BUTTONS_CLOSE,
                                   /* Translators: two runs of the history */
                                   _("“%s” and “%s”"), ra->name, rb->name);
  label = gtk_label_new (lines->len > 0 ? text->str : _("Nothing that the two runs record differs."));
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_max_width_chars (GTK_LABEL (label), 80);
  scrolled = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (scrolled), TRUE);
  gtk_scrolled_window_set_max_content_height (GTK_SCROLLED_WINDOW (scrolled), 360);
  gtk_widget_set_size_request (scrolled, 520, -1);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), label);
  gtk_box_append (GTK_BOX (gtk_message_dialog_get_message_area (GTK_MESSAGE_DIALOG (dialog))), scrolled);
  g_signal_connect (dialog, "response", G_CALLBACK (gtk_window_destroy), NULL);
  gtk_window_present (GTK_WINDOW (dialog));
  return lines;
}

static void
compare_clicked_cb (GtkButton       *button,
                    PrismRunHistory *self)
{
  if (self->ticked->len == 2)
    g_ptr_array_unref (prism_run_history_compare (self, g_array_index (self->ticked, guint, 0),
                                                  g_array_index (self->ticked, guint, 1)));
}

GPtrArray *
prism_run_history_get_runs (PrismRunHistory *self)
{
  g_return_val_if_fail (PRISM_IS_RUN_HISTORY (self), NULL);
  return self->runs;
}

gboolean
prism_run_history_get_loading (PrismRunHistory *self)
{
  g_return_val_if_fail (PRISM_IS_RUN_HISTORY (self), FALSE);
  return self->scan != NULL;
}

const char *
prism_run_history_get_summary (PrismRunHistory *self)
{
  g_return_val_if_fail (PRISM_IS_RUN_HISTORY (self), NULL);
  return self->summary;
}

static void
prism_run_history_dispose (GObject *object)
{
  PrismRunHistory *self = PRISM_RUN_HISTORY (object);

  if (self->scan != NULL)
    g_cancellable_cancel (self->scan);
  g_clear_object (&self->scan);
  G_OBJECT_CLASS (prism_run_history_parent_class)->dispose (object);
}

static void
prism_run_history_finalize (GObject *object)
{
  PrismRunHistory *self = PRISM_RUN_HISTORY (object);

  g_clear_pointer (&self->runs, g_ptr_array_unref);
  g_clear_pointer (&self->ticked, g_array_unref);
  g_free (self->folder);
  g_free (self->summary);
  G_OBJECT_CLASS (prism_run_history_parent_class)->finalize (object);
}

static void
prism_run_history_class_init (PrismRunHistoryClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = prism_run_history_dispose;
  object_class->finalize = prism_run_history_finalize;

  /**
   * PrismRunHistory::open-run:
   * @results: the results.json of the run to open
   */
  signals [OPEN_RUN] =
    g_signal_new ("open-run", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void
prism_run_history_init (PrismRunHistory *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *scrolled = gtk_scrolled_window_new ();
  GtkWidget *empty = gtk_label_new (_("No runs yet: every search the explorer starts is kept here."));
  GtkWidget *header = gtk_header_bar_new ();

  gtk_window_set_title (GTK_WINDOW (self), _("Run History"));
  gtk_window_set_default_size (GTK_WINDOW (self), 640, 420);
  gtk_window_set_titlebar (GTK_WINDOW (self), header);
  self->ticked = g_array_new (FALSE, FALSE, sizeof (guint));
  self->compare_button = gtk_button_new_with_mnemonic (_("_Compare"));
  gtk_widget_set_tooltip_text (self->compare_button, _("What differs between the two runs ticked"));
  gtk_widget_set_sensitive (self->compare_button, FALSE);
  g_signal_connect (self->compare_button, "clicked", G_CALLBACK (compare_clicked_cb), self);
  gtk_header_bar_pack_start (GTK_HEADER_BAR (header), self->compare_button);

  self->summary_label = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_xalign (self->summary_label, 0);
  gtk_label_set_wrap (self->summary_label, TRUE);
  gtk_widget_set_margin_start (GTK_WIDGET (self->summary_label), 12);
  gtk_widget_set_margin_end (GTK_WIDGET (self->summary_label), 12);
  gtk_widget_set_margin_top (GTK_WIDGET (self->summary_label), 12);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->summary_label));

  self->list = GTK_LIST_BOX (gtk_list_box_new ());
  gtk_list_box_set_selection_mode (self->list, GTK_SELECTION_NONE);
  gtk_widget_add_css_class (GTK_WIDGET (self->list), "boxed-list");
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), GTK_WIDGET (self->list));
  gtk_widget_add_css_class (empty, "dim-label");

  self->stack = GTK_STACK (gtk_stack_new ());
  gtk_widget_set_vexpand (GTK_WIDGET (self->stack), TRUE);
  gtk_stack_add_named (self->stack, gtk_spinner_new (), "loading");
  gtk_spinner_start (GTK_SPINNER (gtk_stack_get_child_by_name (self->stack, "loading")));
  gtk_stack_add_named (self->stack, scrolled, "runs");
  gtk_stack_add_named (self->stack, empty, "empty");
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->stack));
  gtk_window_set_child (GTK_WINDOW (self), box);
}

PrismRunHistory *
prism_run_history_new (GtkWindow  *parent,
                       const char *folder)
{
  PrismRunHistory *self = g_object_new (PRISM_TYPE_RUN_HISTORY,
                                        "transient-for", parent,
                                        "destroy-with-parent", TRUE,
                                        NULL);

  self->folder = folder ? g_strdup (folder) : prism_run_info_default_folder ();
  gtk_label_set_label (self->summary_label, _("Looking for runs…"));
  rescan (self);
  return self;
}
