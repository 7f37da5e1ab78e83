/* prism-kernel-source.h — where a launch's kernel is in the generated CUDA
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/**
 * prism_kernel_source_find:
 * @source: a .cu text as prism_cuda_emitter_new() writes it
 * @name: a kernel's name ("prism_rms_norm_k2")
 * @first_line: (out): the first line of the kernel, from 0: the comment
 *   that says its grid, if there is one, else its `__global__` line
 * @last_line: (out): the line of the brace that closes its body
 *
 * Finds the `__global__` function named @name: the launch list, the source
 * and the roofline point to the same kernel through it.
 *
 * Returns: %TRUE if @source defines it (a cuBLASLt launch has no kernel
 *   of its own)
 */
gboolean prism_kernel_source_find (const char *source,
                                   const char *name,
                                   int        *first_line,
                                   int        *last_line);

G_END_DECLS
