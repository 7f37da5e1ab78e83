/* prism-kernel-headers.h — the device runtime headers (the .cuh files of kernels/), embedded
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* File names of the headers, NULL-terminated, "prism-runtime.cuh" first. */
const char * const *prism_kernel_headers_list  (void);

/**
 * prism_kernel_headers_get:
 * @name: a name from prism_kernel_headers_list()
 *
 * Returns: (transfer full) (nullable): the header's text, %NULL for an unknown name
 */
GBytes             *prism_kernel_headers_get   (const char  *name);

/* Writes every header into @dir (created if needed). */
gboolean            prism_kernel_headers_write (const char  *dir,
                                                GError     **error);

G_END_DECLS
