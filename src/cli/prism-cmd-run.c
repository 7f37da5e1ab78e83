/* prism-cmd-run.c — `prism run`: execute a program on the CPU interpreter
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "prism-cli.h"
#include "prism-cli-budget.h"
#include "prism-error.h"
#include "prism-interp.h"
#include "prism-workload.h"

/* Writes each buffer of @buffers as DIR/PREFIXk.f32: raw little-endian f32,
 * row-major, k from 0 in the graph's order of inputs or outputs. */
static gboolean
save_buffers (const char *dir, const char *prefix, GPtrArray *buffers, GError **error)
{
  if (g_mkdir_with_parents (dir, 0755) != 0)
    {
      int saved = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved),
                   _("cannot create the folder “%s”: %s"), dir, g_strerror (saved));
      return FALSE;
    }
  for (guint k = 0; k < buffers->len; k++)
    {
      const PrismBuffer *b = g_ptr_array_index (buffers, k);
      g_autofree char *name = g_strdup_printf ("%s%u.f32", prefix, k);
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_autofree guint32 *raw = g_try_malloc_n ((gsize) b->numel, sizeof (guint32));

      if (raw == NULL && b->numel > 0)
        {
          g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOMEM,
                       _("not enough memory to write “%s”"), path);
          return FALSE;
        }
      for (gint64 i = 0; i < b->numel; i++)
        {
          float f = (float) b->data[i];
          guint32 bits;

          memcpy (&bits, &f, sizeof bits);
          raw[i] = GUINT32_TO_LE (bits);
        }
      if (!g_file_set_contents (path, (const char *) raw, (gssize) (sizeof (guint32) * b->numel), error))
        return FALSE;
    }
  return TRUE;
}

/* Prints the error; a budget's gets the options that raise it. */
static int
fail_budget (const GError *error)
{
  g_autofree char *message = NULL;

  if (!g_error_matches (error, PRISM_ERROR, PRISM_ERROR_LIMIT))
    return prism_cli_fail ("run", error->message);
  /* TRANSLATORS: the interpreter's message, then how to raise its budgets */
  message = g_strdup_printf (_("%s (--max-memory and --max-work raise the budgets)"), error->message);
  return prism_cli_fail ("run", message);
}

int
prism_cmd_run (int argc, char **argv)
{
  gint64 seed = 0;
  int threads = 0;
  g_autofree char *dtype = NULL;
  g_autofree char *seed_text = NULL;
  g_autofree char *inputs_dir = NULL;
  g_autofree char *outputs_dir = NULL;
  g_autofree char *max_memory = NULL;
  g_autofree char *max_work = NULL;
  gboolean reference = FALSE;
  GOptionEntry entries[] = {
    { "seed", 's', 0, G_OPTION_ARG_INT64, &seed,
      N_("Seed of the random inputs (input k uses SEED + k; default 0)"), N_("SEED") },
    { "dtype", 'd', 0, G_OPTION_ARG_STRING, &dtype,
      N_("Arithmetic of the interpreter: f32 (default) or f64"), N_("DTYPE") },
    { "reference", 'r', 0, G_OPTION_ARG_NONE, &reference,
      N_("Run the workload's hand-written fused graph instead of its program"), NULL },
    { "threads", 't', 0, G_OPTION_ARG_INT, &threads,
      N_("Worker threads (default: one per processor)"), N_("N") },
    { "save-inputs", 0, 0, G_OPTION_ARG_FILENAME, &inputs_dir,
      N_("Write input k to DIR/inK.f32 (raw little-endian f32, row-major)"), N_("DIR") },
    { "save-outputs", 0, 0, G_OPTION_ARG_FILENAME, &outputs_dir,
      N_("Write output k to DIR/outK.f32 (raw little-endian f32, row-major)"), N_("DIR") },
    PRISM_CLI_BUDGET_ENTRIES (&max_memory, &max_work),
    G_OPTION_ENTRY_NULL
  };
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismGraph) graph = NULL;
  g_autoptr(GPtrArray) inputs = NULL;
  g_autoptr(GPtrArray) outputs = NULL;
  PrismInterpOptions options = { PRISM_PRECISION_F32, 0, 0, 0 };
  gint64 start, elapsed;
  guint k = 0, n_ops;

  if (!prism_cli_parse ("run", _("FILE|WORKLOAD[:key=value,…]"),
                        _("Runs a program on the CPU interpreter with seeded random inputs and "
                          "prints, per output, its shape, a checksum and its L2 norm."),
                        entries, &argc, &argv))
    return PRISM_EXIT_BAD_INPUT;
  if (argc != 2)
    return prism_cli_fail ("run", argc < 2 ? _("missing program (a file or a workload name)")
                                           : _("too many arguments; give one program"));
  if (dtype == NULL || g_str_equal (dtype, "f32"))
    options.precision = PRISM_PRECISION_F32;
  else if (g_str_equal (dtype, "f64"))
    options.precision = PRISM_PRECISION_F64;
  else
    return prism_cli_fail ("run", _("--dtype must be f32 or f64"));
  if (seed < 0)
    return prism_cli_fail ("run", _("--seed must not be negative"));
  if (threads < 0 || threads > 1024)
    return prism_cli_fail ("run", _("--threads must be between 0 and 1024"));
  options.n_threads = (guint) threads;
  if (!prism_cli_budget_apply (max_memory, max_work, &options, &error))
    return prism_cli_fail ("run", error->message);

  graph = reference ? prism_cli_open_reference (argv[1], &error) : prism_cli_open_program (argv[1], &error);
  if (graph == NULL)
    return prism_cli_fail ("run", error->message);

  /* Before the inputs are made: a program that cannot run allocates nothing. */
  if (prism_graph_is_concrete (graph) && !prism_interp_check_budget (graph, &options, NULL, &error))
    return fail_budget (error);
  inputs = prism_interp_make_inputs (graph, (guint64) seed);
  start = g_get_monotonic_time ();
  outputs = prism_interp_run (graph, (PrismBuffer **) inputs->pdata, inputs->len, &options, &error);
  if (outputs == NULL)
    return fail_budget (error);
  elapsed = g_get_monotonic_time () - start;
  if (inputs_dir != NULL && !save_buffers (inputs_dir, "in", inputs, &error))
    return prism_cli_fail ("run", error->message);
  if (outputs_dir != NULL && !save_buffers (outputs_dir, "out", outputs, &error))
    return prism_cli_fail ("run", error->message);

  n_ops = prism_graph_count_kernels (graph);
  /* No format macros inside translatable strings: xgettext cannot see through them. */
  seed_text = g_strdup_printf ("%" G_GINT64_FORMAT, seed);
  printf (ngettext ("%s: %u op, %s, seed %s\n", "%s: %u ops, %s, seed %s\n", n_ops),
          graph->name ? graph->name : argv[1], n_ops,
          options.precision == PRISM_PRECISION_F64 ? "f64" : "f32", seed_text);
  for (guint i = 0; i < graph->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (graph, i);
      const PrismBuffer *b;
      g_autofree char *shape = NULL;
      g_autofree char *label = NULL;

      if (op->kind != PRISM_OP_OUTPUT)
        continue;
      b = g_ptr_array_index (outputs, k);
      shape = prism_buffer_shape_to_string (b);
      label = op->name ? g_strdup (op->name) : g_strdup_printf ("output%u", k);
      /* TRANSLATORS: one line per output of `prism run` */
      printf (_("%s: shape %s checksum %.10g norm %.10g\n"), label, shape,
              prism_buffer_checksum (b), prism_buffer_norm (b));
      k++;
    }
  printf (_("interpreted in %.3f s\n"), (double) elapsed / G_USEC_PER_SEC);
  return PRISM_EXIT_OK;
}
