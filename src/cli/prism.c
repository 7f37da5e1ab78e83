/* prism.c — the headless command line: `prism COMMAND [OPTIONS] …`
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <locale.h>
#include <stdio.h>
#include <glib/gi18n.h>

#include "prism-cli.h"

typedef struct
{
  const char *name;
  PrismCliCommand func;
  const char *summary;
} Command;

/* One line per subcommand; keep docs/cli.md in step. */
static const Command commands[] = {
  { "workloads", prism_cmd_workloads, N_("List the built-in workloads") },
  { "run", prism_cmd_run, N_("Run a program on the CPU interpreter") },
  { "check", prism_cmd_check, N_("Validate a program file or workload and print it") },
  { "export", prism_cmd_export, N_("Write the CUDA bundle (.cu, .h, manifest) of a program or candidate") },
  { "bench", prism_cmd_bench, N_("Time candidates and the unfused baseline on the GPU") },
  { "calibrate", prism_cmd_calibrate, N_("Measure the GPU’s constants for the cost model (a prism-gpu file)") },
  { "verify", prism_cmd_verify, N_("Prove a candidate equivalent to a reference program") },
  { "search", prism_cmd_search, N_("Search for fused programs equivalent to a program") },
  { "import", prism_cmd_import, N_("Read an ONNX model or a torch.export program as a program") },
};

static void
print_usage (FILE *out)
{
  fprintf (out, "%s\n\n%s\n", _("Usage: prism COMMAND [OPTIONS…]"), _("Commands:"));
  for (guint i = 0; i < G_N_ELEMENTS (commands) && commands[i].name; i++)
    fprintf (out, "  %-12s %s\n", commands[i].name, _(commands[i].summary));
  fprintf (out, "\n%s\n", _("Run “prism COMMAND --help” for the options of a command."));
}

int
main (int argc, char **argv)
{
  setlocale (LC_ALL, "");
  /* PRISM_LOCALEDIR: the build tree's po/, for running without installing. */
  bindtextdomain (GETTEXT_PACKAGE, g_getenv ("PRISM_LOCALEDIR") ? g_getenv ("PRISM_LOCALEDIR") : LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  if (argc < 2 || g_str_equal (argv[1], "--help") || g_str_equal (argv[1], "-h") ||
      g_str_equal (argv[1], "help"))
    {
      print_usage (argc < 2 ? stderr : stdout);
      return argc < 2 ? PRISM_EXIT_BAD_INPUT : PRISM_EXIT_OK;
    }
  if (g_str_equal (argv[1], "--version"))
    {
      printf ("prism %s\n", PACKAGE_VERSION);
      return PRISM_EXIT_OK;
    }
  for (guint i = 0; i < G_N_ELEMENTS (commands) && commands[i].name; i++)
    if (g_str_equal (argv[1], commands[i].name))
      return commands[i].func (argc - 1, argv + 1);

  fprintf (stderr, _("prism: unknown command “%s”\n"), argv[1]);
  print_usage (stderr);
  return PRISM_EXIT_BAD_INPUT;
}
