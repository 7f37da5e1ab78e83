/* prism-error.h — the engine's GError domain
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define PRISM_ERROR (prism_error_quark ())

/**
 * PrismErrorCode:
 * @PRISM_ERROR_INVALID_GRAPH: a graph violates a rule of the IR (shape, arity, map, cycle…)
 * @PRISM_ERROR_PARSE: a file is not well-formed or not in a format we read
 * @PRISM_ERROR_VERSION: a file has a format version we do not read
 * @PRISM_ERROR_UNSUPPORTED: the request is valid but not supported (e.g. symbolic sizes where
 *   concrete ones are needed)
 * @PRISM_ERROR_LIMIT: a resource limit (memory, nodes, time) was hit
 * @PRISM_ERROR_NO_GPU: no usable CUDA driver or device
 * @PRISM_ERROR_FAILED: anything else
 * @PRISM_ERROR_NO_VENDOR: a vendor library a GPU measurement needs (cuBLASLt) cannot be
 *   loaded; the GPU itself is usable, so callers can fall back to our own kernels
 * @PRISM_ERROR_CANCELLED: the work was stopped (its thread's current #GCancellable, see
 *   prism_cancelled(), was cancelled)
 */
typedef enum
{
  PRISM_ERROR_INVALID_GRAPH,
  PRISM_ERROR_PARSE,
  PRISM_ERROR_VERSION,
  PRISM_ERROR_UNSUPPORTED,
  PRISM_ERROR_LIMIT,
  PRISM_ERROR_NO_GPU,
  PRISM_ERROR_FAILED,
  PRISM_ERROR_NO_VENDOR,
  PRISM_ERROR_CANCELLED,
} PrismErrorCode;

GQuark prism_error_quark (void);

/**
 * prism_cancelled:
 *
 * Whether the calling thread's current #GCancellable (the one pushed with
 * g_cancellable_push_current()) is cancelled.  The engine's long loops (the
 * interpreter, equality saturation, parameter enumeration) check it, so
 * that whoever pushed one can stop work it does not control; a search
 * pushes its own on its worker threads and cancels it when it stops.
 *
 * Returns: %TRUE when there is one and it is cancelled
 */
gboolean prism_cancelled (void);

G_END_DECLS
