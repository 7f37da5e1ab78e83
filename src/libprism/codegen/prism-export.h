/* prism-export.h — the kernel bundle: .cu, .h, manifest, graph JSON
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

#include "prism-cuda-emitter.h"
#include "prism-graph.h"

G_BEGIN_DECLS

/* Sub-folder of a bundle holding the runtime headers. */
#define PRISM_EXPORT_KERNELS_DIR "prism-kernels"

typedef enum
{
  PRISM_EXPORT_DEFAULT = 0,
  /* Compile the bundle with nvcc (when installed) and put each kernel's
   * registers and spills, from ptxas, in the manifest. */
  PRISM_EXPORT_RESOURCE_USAGE = 1 << 0,
} PrismExportFlags;

/**
 * prism_export_bundle:
 * @graph: a concrete kernel graph
 * @provenance: (nullable): stored as-is in graph.json
 * @options: (nullable): code generation options
 * @flags: what else to do
 * @dir: the bundle folder (created when missing)
 * @files: (out) (optional) (transfer full): the paths written, %NULL-terminated
 * @message: (out) (optional) (transfer full): with
 *   %PRISM_EXPORT_RESOURCE_USAGE, where the registers came from or why they
 *   are not known (no nvcc, a compiler error); %NULL otherwise
 * @error: return location for a #GError
 *
 * Writes DIR/PREFIX.cu (kernels and the extern "C" launcher), DIR/PREFIX.h
 * (the launcher and workspace-size query, valid C and C++), DIR/manifest.json
 * (kernels, grid, block, shared memory, argument order, target arch),
 * and every launch's report), DIR/graph.json (the program in the
 * prism-graph format), DIR/Makefile and the
 * runtime headers in DIR/prism-kernels/, so that the folder compiles on its
 * own: `nvcc -std=c++17 -arch=sm_90 -Iprism-kernels -c PREFIX.cu`.
 *
 * Returns: %TRUE on success
 */
gboolean prism_export_bundle (const PrismGraph       *graph,
                              JsonNode               *provenance,
                              const PrismCudaOptions *options,
                              PrismExportFlags        flags,
                              const char             *dir,
                              GStrv                  *files,
                              char                  **message,
                              GError                **error);

G_END_DECLS
