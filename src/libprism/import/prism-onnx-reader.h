/* prism-onnx-reader.h — ONNX models read as programs
 *
 * An ONNX model's graph becomes a kernel-level program: graph inputs and
 * initializers become named inputs, nodes become the program's ops (some
 * spelled out, such as Softmax; some recognised, such as the erf GELU), and
 * anything the program format cannot say is refused with the node's
 * position, name and op type.  docs/format.md ("ONNX models") lists the
 * mapping; the file is unpacked by protobuf-c from onnx.proto only after a
 * bounded walk of its wire format (prism-onnx-wire.h).
 *
 * Built only with the meson feature `onnx` (PRISM_HAVE_ONNX).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "prism-graph.h"

G_BEGIN_DECLS

/* Bytes of a model file (weights included: the reader needs their shapes only). */
#define PRISM_ONNX_MAX_SIZE      ((gsize) 256 << 20)
/* Nodes of the model's graph (the prism-graph limit per level). */
#define PRISM_ONNX_MAX_NODES     65536
/* Elements of an initializer or Constant whose values are read (axes, scalars). */
#define PRISM_ONNX_MAX_VALUES    64

/**
 * PrismOnnxDim:
 * @name: a `dim_param` of the model's graph inputs
 * @value: its size, 1 to %PRISM_DIM_MAX
 *
 * One `--dim NAME=VALUE`: the program format has no symbolic graph inputs,
 * so every symbolic dim of the model is given a size.
 */
typedef struct
{
  char *name;
  gint64 value;
} PrismOnnxDim;

/**
 * prism_onnx_dim_parse:
 * @text: "NAME=VALUE"
 * @out: (out caller-allocates): the binding; free @out->name with g_free()
 *
 * Returns: %TRUE, or %FALSE with @error (%PRISM_ERROR_PARSE) naming @text
 */
gboolean    prism_onnx_dim_parse          (const char         *text,
                                           PrismOnnxDim       *out,
                                           GError            **error);

/**
 * prism_onnx_load_from_data:
 * @data: (array length=length): the bytes of a model file
 * @dims: (array length=n_dims) (nullable): sizes of the symbolic dims
 * @default_name: (nullable): the program's name when the graph has none
 *
 * Safe on any bytes (a fuzzing entry point).  Refuses (%PRISM_ERROR_PARSE)
 * what is not an ONNX model, (%PRISM_ERROR_LIMIT) what is past the limits
 * above or nests deeper than prism-onnx-wire.h allows, and
 * (%PRISM_ERROR_UNSUPPORTED) nodes, types and shapes the program format
 * does not have, data stored outside the file, a `dim_param` no binding
 * sizes and a binding that names no `dim_param`.  Every message names the
 * node (`node 3 “/mlp/Mul” (Mul)`), the input or the initializer.
 *
 * Returns: (transfer full) (nullable): the program, valid for
 *   prism_graph_validate()
 */
PrismGraph *prism_onnx_load_from_data     (const guint8       *data,
                                           gsize               length,
                                           const PrismOnnxDim *dims,
                                           guint               n_dims,
                                           const char         *default_name,
                                           GError            **error);

/**
 * prism_onnx_list_dim_params:
 * @path: a model file
 *
 * The symbolic dims (`dim_param`) of the model's graph inputs, each once,
 * in the order the inputs list them: what bindings the model needs.
 *
 * Returns: (transfer full) (nullable): a %NULL-terminated array, empty
 *   when the model has none; %NULL with @error when the file is not a
 *   model (the errors of prism_onnx_load())
 */
char      **prism_onnx_list_dim_params    (const char         *path,
                                           GError            **error);

/* Reads a regular file of at most %PRISM_ONNX_MAX_SIZE bytes, then
 * prism_onnx_load_from_data() with the file's base name as default name;
 * the errors start with @path.  (transfer full) (nullable) */
PrismGraph *prism_onnx_load               (const char         *path,
                                           const PrismOnnxDim *dims,
                                           guint               n_dims,
                                           GError            **error);

G_END_DECLS
