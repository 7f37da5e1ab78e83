/* prism-onnx-import-private.h — the state of one ONNX import, shared by
 * the files of src/libprism/import/ (not installed, not for callers)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "onnx.pb-c.h"
#include "prism-graph.h"
#include "prism-onnx-reader.h"

G_BEGIN_DECLS

/* What a node of the model becomes (prism-onnx-fuse.c decides before the
 * nodes are converted, since the ops of one pattern come in several nodes). */
typedef enum
{
  PRISM_ONNX_NODE_PLAIN,     /* converted on its own */
  PRISM_ONNX_NODE_ABSORBED,  /* part of a pattern whose last node computes it all */
  PRISM_ONNX_NODE_GELU,      /* the last node of 0.5·x·(1 + erf(x/√2)): gelu(x) */
  PRISM_ONNX_NODE_SILU,      /* Mul(x, Sigmoid(x)): silu(x) */
} PrismOnnxNodeRole;

/*
 * PrismOnnxValue:
 *
 * A value of the model's graph (a graph input, an initializer, a node's
 * output) and what it is in the program.  Its ONNX shape can differ from its
 * program tensor's by dims of size 1 only (a reduction without keepdims, a
 * scalar): the data are laid out the same.
 */
typedef struct
{
  char *name;                    /* owned (valid UTF-8) */
  int tensor;                    /* program tensor id, or -1 while it has none */
  guint ndims;                   /* ONNX rank, 0 to PRISM_MAX_DIMS */
  gint64 dims[PRISM_MAX_DIMS];
  gboolean is_float;             /* a dtype of the program (else: integers, bool …) */
  PrismDtype dtype;
  gint32 elem_type;              /* ONNX TensorProto.DataType */
  gboolean is_source;            /* graph input or initializer: a program input once read as data */
  gboolean is_initializer;
  guint source_rank;             /* the rank a source is read at (planned by the first pass) */
  gboolean has_values;           /* an initializer or Constant of at most PRISM_ONNX_MAX_VALUES elements */
  guint n_values;
  double values[PRISM_ONNX_MAX_VALUES];
} PrismOnnxValue;

typedef struct
{
  const Onnx__ModelProto *model;
  const Onnx__GraphProto *graph;
  gint64 opset;                  /* of the default domain */
  PrismGraph *program;
  GHashTable *values;            /* name → PrismOnnxValue* (owned) */
  GHashTable *producers;         /* name → node index + 1 */
  GHashTable *uses;              /* name → reads by nodes and graph outputs */
  PrismOnnxNodeRole *roles;      /* per node */
  const char **fused_x;          /* per node: x of a GELU or SiLU (borrowed) */
  const PrismOnnxDim *dims;
  guint n_dims;
  gboolean *dim_used;            /* per binding */
  /* The first pass learns the rank every source is read at, so that the
   * second creates the program's inputs in the model's order at that rank. */
  gboolean planning;
  GHashTable *planned_ranks;     /* name → rank (GUINT_TO_POINTER) */
  guint node;                    /* the node being converted, for messages */
} PrismOnnxImport;

/* "node 3 “/mlp/Mul” (Mul): " + the message. */
void            prism_onnx_node_error      (PrismOnnxImport *imp,
                                            GError         **error,
                                            int              code,
                                            const char      *format,
                                            ...) G_GNUC_PRINTF (4, 5);
/* Prefixes an engine error (a builder's) with the node. */
void            prism_onnx_node_prefix     (PrismOnnxImport *imp,
                                            GError         **error);
/* @name as valid UTF-8 without control characters, at most @max characters. (transfer full) */
char           *prism_onnx_clean_name      (const char      *name,
                                            guint            max);

PrismOnnxValue *prism_onnx_value_lookup    (PrismOnnxImport *imp,
                                            const char      *name);
/* A new value named @name; %NULL with @error when a value has that name already. */
PrismOnnxValue *prism_onnx_value_define    (PrismOnnxImport *imp,
                                            const char      *name,
                                            GError         **error);

/* prism-onnx-tensor.c: the program dtype of an ONNX elem_type. */
gboolean        prism_onnx_dtype_from_elem (gint32           elem_type,
                                            PrismDtype      *out);
/* "int64", "float" … (static) */
const char     *prism_onnx_elem_type_name  (gint32           elem_type);
/* Fills @v's shape, type and (small tensors) values from @t; @what names it
 * in messages ("initializer “w”"). */
gboolean        prism_onnx_tensor_describe (const Onnx__TensorProto *t,
                                            PrismOnnxValue  *v,
                                            const char      *what,
                                            GError         **error);

/* prism-onnx-fuse.c: the value a Constant node holds, from its `value`,
 * `value_float(s)` or `value_int(s)` attribute. */
gboolean        prism_onnx_constant_value  (const Onnx__NodeProto *node,
                                            PrismOnnxValue  *v,
                                            const char      *what,
                                            GError         **error);
/* The node that produces @name, or %NULL. */
const Onnx__NodeProto *prism_onnx_producer (PrismOnnxImport *imp,
                                            const char      *name);
/* Whether @node is @op_type of the default domain. */
gboolean        prism_onnx_node_is         (const Onnx__NodeProto *node,
                                            const char      *op_type);
/* prism-onnx-fuse.c: fills imp->roles and imp->fused_x. */
void            prism_onnx_find_patterns   (PrismOnnxImport *imp);
/* The value of @name when it is a known one-element constant. */
gboolean        prism_onnx_known_scalar    (PrismOnnxImport *imp,
                                            const char      *name,
                                            double          *out);

/* prism-onnx-nodes.c: converts node imp->node. */
gboolean        prism_onnx_convert_node    (PrismOnnxImport *imp,
                                            GError         **error);
/* The program tensor of @v read at @rank (ONNX broadcasting pads the left
 * with 1s): a constant is made at that rank, a source becomes an input, any
 * other value must already have that shape.  -1 with @error. */
int             prism_onnx_operand         (PrismOnnxImport *imp,
                                            PrismOnnxValue  *v,
                                            guint            rank,
                                            GError         **error);

/* The same with constants made in @dtype. */
int             prism_onnx_operand_typed   (PrismOnnxImport *imp,
                                            PrismOnnxValue  *v,
                                            guint            rank,
                                            PrismDtype       dtype,
                                            GError         **error);

G_END_DECLS
