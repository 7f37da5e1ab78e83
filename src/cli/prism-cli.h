/* prism-cli.h — shared helpers of the `prism` command line
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "prism-graph.h"

G_BEGIN_DECLS

/* Exit codes of every subcommand. */
enum
{
  PRISM_EXIT_OK = 0,
  PRISM_EXIT_FAILED = 1,     /* the check ran and said no */
  PRISM_EXIT_BAD_INPUT = 2,  /* bad input file, unknown workload, bad usage */
};

typedef int (*PrismCliCommand) (int argc, char **argv);

/* Loads a program: a built-in workload name (optionally "name:key=value,…")
 * or a prism-graph JSON file. */
PrismGraph *prism_cli_open_program (const char *arg,
                                    GError    **error);

/* The hand-written fused graph of a built-in workload ("name" or "name:key=value,…"). */
PrismGraph *prism_cli_open_reference (const char *arg,
                                      GError    **error);

/* Prints "prism CMD: MESSAGE" to stderr and returns PRISM_EXIT_BAD_INPUT. */
int         prism_cli_fail         (const char *command,
                                    const char *message);

/* Parses @entries from argv with GOptionContext; on failure prints the error
 * and returns FALSE (the caller exits with PRISM_EXIT_BAD_INPUT). */
gboolean    prism_cli_parse        (const char   *command,
                                    const char   *parameter_string,
                                    const char   *summary,
                                    GOptionEntry *entries,
                                    int          *argc,
                                    char       ***argv);

/* What a speedup is against, for people: "the vendor baseline (the
 * unfused program, matmuls through cuBLASLt)"; @short_form: "the vendor
 * baseline".  @kind is "vendor", "prism-lowered" or anything else (the
 * unfused program). (static, translated) */
const char *prism_cli_baseline_label (const char *kind,
                                      gboolean    short_form);

/* "h100, h200, a100" — the GPUs --target takes (transfer full). */
char       *prism_cli_target_names   (void);

/* prism-results files (prism-cmd-export.c): TRUE if @path is one. */
gboolean    prism_cli_is_results_file (const char *path);

/* The candidates of a prism-results file with their best sizes: the one
 * whose number (or digest prefix) is @want_id, or (@want_id NULL) the first
 * @max (0 = all) by predicted speedup; @ids gets their numbers and @program
 * the input program.  (element-type PrismGraph) (transfer full) */
GPtrArray  *prism_cli_open_candidates (const char  *path,
                                       const char  *want_id,
                                       guint        max,
                                       GPtrArray  **ids,
                                       PrismGraph **program,
                                       GError     **error);

/* Subcommands, one file each (prism-cmd-NAME.c). */
int prism_cmd_workloads (int argc, char **argv);
int prism_cmd_check     (int argc, char **argv);
int prism_cmd_run       (int argc, char **argv);
int prism_cmd_export    (int argc, char **argv);
int prism_cmd_bench     (int argc, char **argv);
int prism_cmd_calibrate (int argc, char **argv);
int prism_cmd_verify    (int argc, char **argv);
int prism_cmd_search    (int argc, char **argv);

G_END_DECLS
