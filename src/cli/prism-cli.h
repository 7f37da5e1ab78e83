/* prism-cli.h — shared helpers of the `prism` command line
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "prism-graph.h"
#include "prism-mirage-reader.h"

G_BEGIN_DECLS

/* Exit codes of every subcommand. */
enum
{
  PRISM_EXIT_OK = 0,
  PRISM_EXIT_FAILED = 1,     /* the check ran and said no */
  PRISM_EXIT_BAD_INPUT = 2,  /* bad input file, unknown workload, bad usage */
};

typedef int (*PrismCliCommand) (int argc, char **argv);

/* Errors of the command line itself (the engine's are PRISM_ERROR). */
#define PRISM_CLI_ERROR (prism_cli_error_quark ())
typedef enum
{
  PRISM_CLI_ERROR_NOT_EQUIVALENT,  /* a results file's candidate failed its re-verification */
} PrismCliErrorCode;
GQuark      prism_cli_error_quark  (void);

/* Loads a program: a built-in workload name (optionally "name:key=value,…")
 * or a prism-graph JSON file. */
PrismGraph *prism_cli_open_program (const char *arg,
                                    GError    **error);

/* The hand-written fused graph of a built-in workload ("name" or "name:key=value,…"). */
PrismGraph *prism_cli_open_reference (const char *arg,
                                      GError    **error);

/* Prints "prism CMD: MESSAGE" to stderr, control characters escaped (a
 * message may quote a file), and returns PRISM_EXIT_BAD_INPUT. */
int         prism_cli_fail         (const char *command,
                                    const char *message);
/* The same for @error; returns PRISM_EXIT_FAILED for a candidate that failed
 * its re-verification, else PRISM_EXIT_BAD_INPUT. */
int         prism_cli_fail_with    (const char   *command,
                                    const GError *error);
/* Starts the message of @error with "PATH: " unless it names @path already. */
void        prism_cli_name_file    (GError    **error,
                                    const char *path);
/* @text with control characters (C0, DEL, C1) written as \xNN or \u{NNNN}, and
 * invalid UTF-8 as \xNN, so that nothing read from a file reaches the
 * terminal as a command (transfer full). */
char       *prism_cli_escape       (const char *text);

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

/* prism-results files (prism-cli-results.c): TRUE if @path is a regular
 * file of bounded size holding a well-formed JSON object whose "format" is
 * "prism-results". */
gboolean    prism_cli_is_results_file (const char *path);

/* The candidates of a prism-results file with their best sizes: the one
 * whose number (or digest prefix) is @want_id, or (@want_id NULL) the first
 * @max (0 = all) by predicted speedup; @ids gets their numbers, @program the
 * input program and @target the GPU table the search used.  Each is proved
 * again first: one that fails is an error (PRISM_CLI_ERROR_NOT_EQUIVALENT)
 * naming it and the file.  (element-type PrismGraph) (transfer full) */
GPtrArray  *prism_cli_open_candidates (const char  *path,
                                       const char  *want_id,
                                       guint        max,
                                       GPtrArray  **ids,
                                       PrismGraph **program,
                                       char       **target,
                                       GError     **error);

/* Mirage muGraph files (prism-mirage-reader.h): TRUE if @arg names no
 * built-in workload and is a regular file whose text is a JSON list. */
gboolean    prism_cli_is_mirage_file  (const char *arg);
/* Its graphs, the errors starting with @path; a graph that could not be
 * read carries its own error.  (element-type PrismMirageGraph) (transfer full) */
GPtrArray  *prism_cli_open_mirage     (const char *path,
                                       GError    **error);
/* Why @m could not be read, without the "graph N: " a listing of graphs
 * already shows. (transfer none) */
const char *prism_cli_mirage_error    (const PrismMirageGraph *m);
/* "Mirage graph N" (translated; transfer full) */
char       *prism_cli_mirage_label    (const PrismMirageGraph *m);

/* Subcommands, one file each (prism-cmd-NAME.c). */
int prism_cmd_workloads (int argc, char **argv);
int prism_cmd_check     (int argc, char **argv);
int prism_cmd_run       (int argc, char **argv);
int prism_cmd_export    (int argc, char **argv);
int prism_cmd_bench     (int argc, char **argv);
int prism_cmd_calibrate (int argc, char **argv);
int prism_cmd_verify    (int argc, char **argv);
int prism_cmd_search    (int argc, char **argv);
int prism_cmd_import    (int argc, char **argv);

G_END_DECLS
