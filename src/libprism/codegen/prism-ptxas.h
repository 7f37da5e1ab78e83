/* prism-ptxas.h — registers and spills of generated kernels, from ptxas
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "prism-cuda-emitter.h"

G_BEGIN_DECLS

/* nvcc from $NVCC, $CUDA_HOME/bin, /usr/local/cuda/bin or $PATH; NULL when
 * none is installed (transfer full). */
char    *prism_ptxas_find_nvcc      (void);

/**
 * prism_ptxas_resource_usage:
 * @emitter: the program; its kernels' reports get what ptxas says
 * @source_path: the emitter's source, written to a file
 * @include_dir: the folder with the kernel runtime headers
 * @tool: (out) (optional) (transfer full): "nvcc 13.0 (ptxas -O3, sm_90)"
 *
 * Compiles @source_path for the emitter's arch with nvcc (-O3, a CUBIN,
 * `-Xptxas -v`) and records each kernel's registers per thread and spill
 * bytes (stores + loads) with prism_cuda_emitter_set_resource_usage(), which
 * also recomputes the occupancy they limit.
 *
 * Returns: %FALSE with %PRISM_ERROR_UNSUPPORTED when nvcc is not installed,
 *   %PRISM_ERROR_FAILED (the compiler's last lines) when it fails
 */
gboolean prism_ptxas_resource_usage (PrismCudaEmitter *emitter,
                                     const char       *source_path,
                                     const char       *include_dir,
                                     char            **tool,
                                     GError          **error);

/* Parses `ptxas -v` output into @emitter (exposed for tests); returns how
 * many kernels it found. */
guint    prism_ptxas_parse          (PrismCudaEmitter *emitter,
                                     const char       *output);

G_END_DECLS
