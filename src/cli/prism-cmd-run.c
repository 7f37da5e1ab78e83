/* prism-cmd-run.c — `prism run`: execute a program on the CPU interpreter
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <stdio.h>
#include <glib/gi18n.h>

#include "prism-cli.h"
#include "prism-error.h"
#include "prism-interp.h"
#include "prism-workload.h"

int
prism_cmd_run (int argc, char **argv)
{
  gint64 seed = 0;
  int threads = 0;
  g_autofree char *dtype = NULL;
  g_autofree char *seed_text = NULL;
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
    G_OPTION_ENTRY_NULL
  };
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismGraph) graph = NULL;
  g_autoptr(GPtrArray) inputs = NULL;
  g_autoptr(GPtrArray) outputs = NULL;
  PrismInterpOptions options = { PRISM_PRECISION_F32, 0 };
  gint64 start;
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

  graph = reference ? prism_cli_open_reference (argv[1], &error) : prism_cli_open_program (argv[1], &error);
  if (graph == NULL)
    return prism_cli_fail ("run", error->message);

  inputs = prism_interp_make_inputs (graph, (guint64) seed);
  start = g_get_monotonic_time ();
  outputs = prism_interp_run (graph, (PrismBuffer **) inputs->pdata, inputs->len, &options, &error);
  if (outputs == NULL)
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
  printf (_("interpreted in %.3f s\n"), (double) (g_get_monotonic_time () - start) / G_USEC_PER_SEC);
  return PRISM_EXIT_OK;
}
