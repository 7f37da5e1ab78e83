/* codegen-cases.h — the graphs every code generation test runs on
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "prism-buffer.h"
#include "prism-graph.h"

G_BEGIN_DECLS

typedef struct
{
  char *label;          /* "rms_norm", "rms_norm (reference)", "graphs/x.json", "results.json#c3" */
  PrismGraph *graph;
} CodegenCase;

/* Every built-in workload (the unfused program and its fused reference
 * graph), every prism-graph file in tests/codegen/graphs/, the candidates
 * (all verified, at their best sizes) of every prism-results file there,
 * and the files listed in
 * $PRISM_CODEGEN_GRAPHS (separated by ':').  With $PRISM_CODEGEN_ONLY set,
 * only the cases whose label contains it.  (element-type CodegenCase) */
GPtrArray  *codegen_cases_load        (void);

/* The parameters ("d=1024") the cases build @workload with: smaller shapes
 * than the defaults where the defaults make the interpreter slow (large
 * square weights), the tile structure of the reference graphs unchanged.
 * NULL for the defaults, always with $PRISM_CODEGEN_FULL=1. */
const char *codegen_test_params       (const char        *workload);

/* nvcc from $NVCC, $CUDA_HOME/bin, /usr/local/cuda/bin or $PATH; NULL when
 * none is installed. */
char       *codegen_find_nvcc         (void);

/* Compares @n floats of @path with @expected (prism_buffer_max_rel_error);
 * returns +inf when the file is unreadable or short. */
double      codegen_compare_f32_file  (const char        *path,
                                       const PrismBuffer *expected);
/* Writes a buffer as raw f32. */
void        codegen_write_f32_file    (const char        *path,
                                       const PrismBuffer *buffer);

/* Runs @argv (NULL-terminated) in @cwd; TRUE on exit 0, else fills @log. */
gboolean    codegen_run               (const char * const *argv,
                                       const char        *cwd,
                                       char             **log);

/* Runs the commands in parallel, @jobs at a time; returns per command
 * NULL (success) or the output of the failure. (element-type utf8) */
GPtrArray  *codegen_run_parallel      (GPtrArray         *commands,
                                       guint              jobs);

/* Removes a folder and everything in it (the tests' temporary folders). */
void        codegen_remove_tree       (const char        *path);

G_END_DECLS
