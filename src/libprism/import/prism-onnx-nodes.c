/* prism-onnx-nodes.c — ONNX nodes as ops of the program
 *
 * One function per op type (or family).  Broadcasting follows numpy's
 * rules, which pad the shorter shape with 1s on the left; the program's
 * binary ops want equal ranks, so operands are read at the rank of the
 * result (prism_onnx_operand()).  What the format cannot say is refused
 * naming the node; docs/format.md ("ONNX models") lists the mapping.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "prism-error.h"
#include "prism-onnx-import-private.h"

typedef gboolean (*ConvertFunc) (PrismOnnxImport *imp, const Onnx__NodeProto *node, GError **error);

/* Attributes ------------------------------------------------------------- */

static const Onnx__AttributeProto *
find_attr (const Onnx__NodeProto *node, const char *name)
{
  for (gsize i = 0; i < node->n_attribute; i++)
    if (node->attribute[i]->name != NULL && strcmp (node->attribute[i]->name, name) == 0)
      return node->attribute[i];
  return NULL;
}

static gint64
attr_int (const Onnx__NodeProto *node, const char *name, gint64 fallback)
{
  const Onnx__AttributeProto *a = find_attr (node, name);

  return a != NULL && a->has_i ? a->i : fallback;
}

static double
attr_float (const Onnx__NodeProto *node, const char *name, double fallback)
{
  const Onnx__AttributeProto *a = find_attr (node, name);

  return a != NULL && a->has_f ? a->f : fallback;
}

/* Values and tensors ------------------------------------------------------ */

static PrismDtype
dtype_of (PrismOnnxImport *imp, const PrismOnnxValue *v)
{
  if (v->tensor >= 0)
    return prism_graph_tensor (imp->program, v->tensor)->dtype;
  return v->is_float ? v->dtype : PRISM_DTYPE_F32;
}

/* Whether @v is a one-element constant (made at any rank where it is read). */
static gboolean
is_scalar_constant (const PrismOnnxValue *v)
{
  return v->has_values && v->n_values == 1 && v->tensor < 0;
}

/* The dtype of a binary op's result: its first operand that is not a constant's. */
static PrismDtype
result_dtype (PrismOnnxImport *imp, PrismOnnxValue *const *operands, guint n)
{
  for (guint i = 0; i < n; i++)
    if (!is_scalar_constant (operands[i]))
      return dtype_of (imp, operands[i]);
  return PRISM_DTYPE_F32;
}

static char *
shape_text (guint ndims, const gint64 *dims)
{
  GString *s = g_string_new ("[");

  for (guint i = 0; i < ndims; i++)
    g_string_append_printf (s, "%s%" G_GINT64_FORMAT, i > 0 ? ", " : "", dims[i]);
  g_string_append_c (s, ']');
  return g_string_free (s, FALSE);
}

static gboolean
plan_source_rank (PrismOnnxImport *imp, PrismOnnxValue *v, guint rank, GError **error)
{
  gpointer planned = g_hash_table_lookup (imp->planned_ranks, v->name);

  if (planned != NULL && GPOINTER_TO_UINT (planned) != rank)
    {
      prism_onnx_node_error (imp, error, PRISM_ERROR_UNSUPPORTED,
                             "reads “%s” at rank %u, and another node at rank %u: the program format has no "
                             "reshape", v->name, rank, GPOINTER_TO_UINT (planned));
      return FALSE;
    }
  g_hash_table_insert (imp->planned_ranks, g_strdup (v->name), GUINT_TO_POINTER (rank));
  return TRUE;
}

int
prism_onnx_operand_typed (PrismOnnxImport *imp, PrismOnnxValue *v, guint rank, PrismDtype dtype, GError **error)
{
  gint64 want[PRISM_MAX_DIMS], have[PRISM_MAX_DIMS];
  guint pad = rank - v->ndims;
  const PrismTensor *t;

  g_return_val_if_fail (rank >= v->ndims && rank >= 1 && rank <= PRISM_MAX_DIMS, -1);
  if (error != NULL && *error != NULL)
    return -1;
  for (guint i = 0; i < rank; i++)
    want[i] = i < pad ? 1 : v->dims[i - pad];
  if (is_scalar_constant (v))
    {
      int id = prism_graph_add_constant (imp->program, v->values[0], rank, dtype, error);
      if (id < 0)
        prism_onnx_node_prefix (imp, error);
      return id;
    }
  if (!v->is_float)
    {
      prism_onnx_node_error (imp, error, PRISM_ERROR_UNSUPPORTED,
                             "reads “%s”, which holds %s: the program's tensors are f16, bf16 or f32", v->name,
                             prism_onnx_elem_type_name (v->elem_type));
      return -1;
    }
  if (v->is_source && !plan_source_rank (imp, v, rank, error))
    return -1;
  if (v->is_source && v->tensor < 0)
    {
      g_autofree char *name = prism_onnx_clean_name (v->name, 64);
      v->tensor = prism_graph_add_input (imp->program, name, rank, want, v->dtype, error);
      if (v->tensor < 0)
        {
          prism_onnx_node_prefix (imp, error);
          return -1;
        }
    }
  if (v->tensor < 0)
    {
      prism_onnx_node_error (imp, error, PRISM_ERROR_UNSUPPORTED,
                             "reads “%s”, a constant of %u elements: the program's constants are single values",
                             v->name, v->n_values);
      return -1;
    }
  t = prism_graph_tensor (imp->program, v->tensor);
  prism_tensor_get_shape (t, have);
  if (t->ndims != rank || memcmp (have, want, rank * sizeof (gint64)) != 0)
    {
      g_autofree char *a = shape_text (t->ndims, have);
      g_autofree char *b = shape_text (rank, want);
      prism_onnx_node_error (imp, error, PRISM_ERROR_UNSUPPORTED,
                             "reads “%s” of shape %s as %s: the program format has no reshape", v->name, a, b);
      return -1;
    }
  return v->tensor;
}

int
prism_onnx_operand (PrismOnnxImport *imp, PrismOnnxValue *v, guint rank, GError **error)
{
  return prism_onnx_operand_typed (imp, v, rank, dtype_of (imp, v), error);
}

/* The value read as input @i of @node; %NULL with @error when it is missing
 * or has not been produced yet. */
static PrismOnnxValue *
input_value (PrismOnnxImport *imp, const Onnx__NodeProto *node, guint i, GError **error)
{
  PrismOnnxValue *v;

  if (i >= node->n_input || node->input[i][0] == '\0')
    {
      prism_onnx_node_error (imp, error, PRISM_ERROR_UNSUPPORTED, "needs input %u", i);
      return NULL;
    }
  v = prism_onnx_value_lookup (imp, node->input[i]);
  if (v == NULL)
    prism_onnx_node_error (imp, error, PRISM_ERROR_PARSE,
                           "reads “%s”, which no earlier node, graph input or initializer produces "
                           "(nodes are in topological order)", node->input[i]);
  return v;
}

/* Defines output 0 of @node as program tensor @tensor (the ONNX shape is its shape). */
static gboolean
define_result (PrismOnnxImport *imp, const Onnx__NodeProto *node, int tensor, GError **error)
{
  const PrismTensor *t = prism_graph_tensor (imp->program, tensor);
  PrismOnnxValue *v;

  if (node->n_output < 1 || node->output[0][0] == '\0')
    {
      prism_onnx_node_error (imp, error, PRISM_ERROR_PARSE, "has no output");
      return FALSE;
    }
  v = prism_onnx_value_define (imp, node->output[0], error);
  if (v == NULL)
    {
      prism_onnx_node_prefix (imp, error);
      return FALSE;
    }
  v->tensor = tensor;
  v->ndims = t->ndims;
  prism_tensor_get_shape (t, v->dims);
  v->is_float = TRUE;
  v->dtype = t->dtype;
  return TRUE;
}

/* Builders with the node named in their errors. */
static int
add_op (PrismOnnxImport *imp, PrismOpKind kind, const guint *inputs, guint n, const PrismOpAttrs *attrs,
        GError **error)
{
  int id;

  /* Operands are built as arguments: one that failed has said why. */
  if (error != NULL && *error != NULL)
    return -1;
  id = prism_graph_add (imp->program, kind, inputs, n, attrs, error);
  if (id < 0)
    prism_onnx_node_prefix (imp, error);
  return id;
}

static int
add_unary (PrismOnnxImport *imp, PrismOpKind kind, int a, GError **error)
{
  guint in[1] = { (guint) a };

  return a < 0 ? -1 : add_op (imp, kind, in, 1, NULL, error);
}

static int
add_binary (PrismOnnxImport *imp, PrismOpKind kind, int a, int b, GError **error)
{
  guint in[2] = { (guint) a, (guint) b };

  return a < 0 || b < 0 ? -1 : add_op (imp, kind, in, 2, NULL, error);
}

static int
add_reduction (PrismOnnxImport *imp, PrismOpKind kind, int a, int dim, GError **error)
{
  PrismOpAttrs attrs;
  guint in[1] = { (guint) a };

  prism_op_attrs_init (&attrs);
  attrs.dim = dim;
  return a < 0 ? -1 : add_op (imp, kind, in, 1, &attrs, error);
}

static int
add_constant (PrismOnnxImport *imp, double value, guint rank, PrismDtype dtype, GError **error)
{
  int id;

  if (error != NULL && *error != NULL)
    return -1;
  id = prism_graph_add_constant (imp->program, value, rank, dtype, error);
  if (id < 0)
    prism_onnx_node_prefix (imp, error);
  return id;
}

static guint
rank_of (const PrismOnnxValue *v)
{
  return MAX (v->ndims, 1);
}

/* @v read at its own rank. */
static int
operand (PrismOnnxImport *imp, PrismOnnxValue *v, GError **error)
{
  return prism_onnx_operand (imp, v, rank_of (v), error);
}

/* An axis attribute or input entry of a rank-@rank operand, negative ones from the end. */
static gboolean
normalize_axis (PrismOnnxImport *imp, gint64 axis, guint rank, int *out, GError **error)
{
  if (axis < -(gint64) rank || axis >= (gint64) rank)
    {
      prism_onnx_node_error (imp, error, PRISM_ERROR_INVALID_GRAPH,
                             "axis %" G_GINT64_FORMAT " is out of range for a rank-%u tensor", axis, rank);
      return FALSE;
    }
  *out = (int) (axis < 0 ? axis + rank : axis);
  return TRUE;
}

/* Elementwise ------------------------------------------------------------- */

static gboolean
convert_unary (PrismOnnxImport *imp, const Onnx__NodeProto *node, PrismOpKind kind, GError **error)
{
  PrismOnnxValue *x = input_value (imp, node, 0, error);
  int id;

  if (x == NULL || (id = add_unary (imp, kind, operand (imp, x, error), error)) < 0)
    return FALSE;
  return define_result (imp, node, id, error);
}

static gboolean
convert_binary_kind (PrismOnnxImport *imp, const Onnx__NodeProto *node, PrismOpKind kind, GError **error)
{
  PrismOnnxValue *v[2];
  PrismDtype dtype;
  guint rank;
  int a, b, id;

  for (guint i = 0; i < 2; i++)
    if ((v[i] = input_value (imp, node, i, error)) == NULL)
      return FALSE;
  rank = MAX (rank_of (v[0]), rank_of (v[1]));
  dtype = result_dtype (imp, v, 2);
  /* In order: the program's inputs and messages follow the operands'. */
  a = prism_onnx_operand_typed (imp, v[0], rank, dtype, error);
  b = a < 0 ? -1 : prism_onnx_operand_typed (imp, v[1], rank, dtype, error);
  id = add_binary (imp, kind, a, b, error);
  return id >= 0 && define_result (imp, node, id, error);
}

static gboolean
convert_add (PrismOnnxImport *imp, const Onnx__NodeProto *node, GError **error)
{
  return convert_binary_kind (imp, node, PRISM_OP_ADD, error);
}

static gboolean
convert_sub (PrismOnnxImport *imp, const Onnx__NodeProto *node, GError **error)
{
  return convert_binary_kind (imp, node, PRISM_OP_SUB, error);
}

static gboolean
convert_mul (PrismOnnxImport *imp, const Onnx__NodeProto *node, GError **error)
{
  return convert_binary_kind (imp, node, PRISM_OP_MUL, error);
}

static gboolean
convert_div (PrismOnnxImport *imp, const Onnx__NodeProto *node, GError **error)
{
  return convert_binary_kind (imp, node, PRISM_OP_DIV, error);
}

/* x², the usual exponent of norms, is the program's square (which the
 * search's rules know better than pow), x^0.5 its sqrt. */
static gboolean
convert_pow (PrismOnnxImport *imp, const Onnx__NodeProto *node, GError **error)
{
  PrismOnnxValue *y = input_value (imp, node, 1, error);

  if (y == NULL)
    return FALSE;
  if (is_scalar_constant (y) && y->values[0] == 2.0)
    return convert_unary (imp, node, PRISM_OP_SQUARE, error);
  if (is_scalar_constant (y) && y->values[0] == 0.5)
    return convert_unary (imp, node, PRISM_OP_SQRT, error);
  return convert_binary_kind (imp, node, PRISM_OP_POW, error);
}

/* Max of any number of operands: a chain of maximum. */
static gboolean
convert_max (PrismOnnxImport *imp, const Onnx__NodeProto *node, GError **error)
{
  g_autofree PrismOnnxValue **v = g_new0 (PrismOnnxValue *, MAX (node->n_input, 1));
  guint rank = 1;
  PrismDtype dtype;
  int acc;

  for (guint i = 0; i < node->n_input || i == 0; i++)
    {
      if ((v[i] = input_value (imp, node, i, error)) == NULL)
        return FALSE;
      rank = MAX (rank, rank_of (v[i]));
    }
  dtype = result_dtype (imp, v, node->n_input);
  acc = prism_onnx_operand_typed (imp, v[0], rank, dtype, error);
  for (guint i = 1; i < node->n_input && acc >= 0; i++)
    acc = add_binary (imp, PRISM_OP_MAXIMUM, acc, prism_onnx_operand_typed (imp, v[i], rank, dtype, error), error);
  return acc >= 0 && define_result (imp, node, acc, error);
}

static gboolean
convert_exp (PrismOnnxImport *imp, const Onnx__NodeProto *node, GError **error)
{
  return convert_unary (imp, node, PRISM_OP_EXP, error);
}

static gboolean
convert_sqrt (PrismOnnxImport *imp, const Onnx__NodeProto *node, GError **error)
{
  return convert_unary (imp, node, PRISM_OP_SQRT, error);
}

static gboolean
convert_relu (PrismOnnxImport *imp, const Onnx__NodeProto *node, GError **error)
{
  return convert_unary (imp, node, PRISM_OP_RELU, error);
}

static gboolean
convert_neg (PrismOnnxImport *imp, const Onnx__NodeProto *node, GError **error)
{
  return convert_unary (imp, node, PRISM_OP_NEG, error);
}

/* 1 / x. */
static gboolean
convert_reciprocal (PrismOnnxImport *imp, const Onnx__NodeProto *node, GError **error)
{
  PrismOnnxValue *x = input_value (imp, node, 0, error);
  int a, id;

  if (x == NULL || (a = operand (imp, x, error)) < 0)
    return FALSE;
  id = add_binary (imp, PRISM_OP_DIV, add_constant (imp, 1.0, rank_of (x), dtype_of (imp, x), error), a, error);
  return id >= 0 && define_result (imp, node, id, error);
}

/* A Sigmoid that is not part of a SiLU: 1 / (1 + exp(−x)). */
static gboolean
convert_sigmoid (PrismOnnxImport *imp, const Onnx__NodeProto *node, GError **error)
{
  PrismOnnxValue *x = input_value (imp, node, 0, error);
  int a, e, one, denominator, id;

  if (x == NULL || (a = operand (imp, x, error)) < 0)
    return FALSE;
  e = add_unary (imp, PRISM_OP_EXP, add_unary (imp, PRISM_OP_NEG, a, error), error);
  one = add_constant (imp, 1.0, rank_of (x), dtype_of (imp, x), error);
  denominator = add_binary (imp, PRISM_OP_ADD, one, e, error);
  id = add_binary (imp, PRISM_OP_DIV, one, denominator, error);
  return id >= 0 && define_result (imp, node, id, error);
}

/* A value's program tensor under a second name. */
static gboolean
convert_identity (PrismOnnxImport *imp, const Onnx__NodeProto *node, GError **error)
{
  PrismOnnxValue *x = input_value (imp, node, 0, error);
  PrismOnnxValue *y;
  int id;

  if (x == NULL || (id = operand (imp, x, error)) < 0 || !define_result (imp, node, id, error))
    return FALSE;
  /* Keep the ONNX shape (a view keeps its own). */
  y = prism_onnx_value_lookup (imp, node->output[0]);
  y->ndims = x->ndims;
  memcpy (y->dims, x->dims, sizeof y->dims);
  return TRUE;
}

static gboolean
convert_erf (PrismOnnxImport *imp, const Onnx__NodeProto *node, GError **error)
{
  prism_onnx_node_error (imp, error, PRISM_ERROR_UNSUPPORTED,
                         "Erf is read only as part of GELU, 0.5·x·(1 + erf(x/√2)) (the program format has no erf)");
  return FALSE;
}

/* The op a pattern of several nodes computes (prism-onnx-fuse.c). */
static gboolean
convert_fused (PrismOnnxImport *imp, const Onnx__NodeProto *node, PrismOpKind kind, GError **error)
{
  PrismOnnxValue *x = prism_onnx_value_lookup (imp, imp->fused_x[imp->node]);
  int id;

  if (x == NULL)
    {
      prism_onnx_node_error (imp, error, PRISM_ERROR_PARSE, "reads “%s”, which no earlier node produces",
                             imp->fused_x[imp->node]);
      return FALSE;
    }
  if ((id = add_unary (imp, kind, operand (imp, x, error), error)) < 0)
    return FALSE;
  return define_result (imp, node, id, error);
}

static gboolean
convert_constant (PrismOnnxImport *imp, const Onnx__NodeProto *node, GError **error)
{
  g_autofree char *what = g_strdup_printf ("node %u “%s” (Constant)", imp->node, node->name ? node->name : "");
  PrismOnnxValue *v;

  if (node->n_output < 1 || node->output[0][0] == '\0')
    {
      prism_onnx_node_error (imp, error, PRISM_ERROR_PARSE, "has no output");
      return FALSE;
    }
  if ((v = prism_onnx_value_define (imp, node->output[0], error)) == NULL)
    {
      prism_onnx_node_prefix (imp, error);
      return FALSE;
    }
  return prism_onnx_constant_value (node, v, what, error);
}

/* Matrix products ---------------------------------------------------------- */

static gboolean
convert_matmul (PrismOnnxImport *imp, const Onnx__NodeProto *node, GError **error)
{
  PrismOnnxValue *a = input_value (imp, node, 0, error);
  PrismOnnxValue *b = a != NULL ? input_value (imp, node, 1, error) : NULL;
  guint rank;
  int ta, id;

  if (b == NULL)
    return FALSE;
  if (a->ndims < 2 || b->ndims < 2)
    {
      prism_onnx_node_error (imp, error, PRISM_ERROR_UNSUPPORTED,
                             "a rank-%u operand: the program's matmul multiplies matrices (rank 2 to 4)",
                             MIN (a->ndims, b->ndims));
      return FALSE;
    }
  /* numpy pads the batch dims of the shorter operand with 1s; the
   * program's matmul then checks that the batch dims are equal. */
  rank = MAX (a->ndims, b->ndims);
  if ((ta = prism_onnx_operand (imp, a, rank, error)) < 0)
    return FALSE;
  id = add_binary (imp, PRISM_OP_MATMUL, ta, prism_onnx_operand (imp, b, rank, error), error);
  return id >= 0 && define_result (imp, node, id, error);
}

static int
transposed_2d (PrismOnnxImport *imp, int a, GError **error)
{
  PrismOpAttrs attrs;
  guint in[1] = { (guint) a };

  if (a < 0)
    return -1;
  prism_op_attrs_init (&attrs);
  attrs.perm[0] = 1;
  attrs.perm[1] = 0;
  return add_op (imp, PRISM_OP_TRANSPOSE, in, 1, &attrs, error);
}

/* alpha · A' @ B' + beta · C, A' = Aᵀ with transA, B' = Bᵀ with transB. */
static gboolean
convert_gemm (PrismOnnxImport *imp, const Onnx__NodeProto *node, GError **error)
{
  PrismOnnxValue *a = input_value (imp, node, 0, error);
  PrismOnnxValue *b = a != NULL ? input_value (imp, node, 1, error) : NULL;
  double alpha = attr_float (node, "alpha", 1.0), beta = attr_float (node, "beta", 1.0);
  int ta, tb, y;

  if (b == NULL)
    return FALSE;
  if (a->ndims != 2 || b->ndims != 2)
    {
      prism_onnx_node_error (imp, error, PRISM_ERROR_INVALID_GRAPH, "Gemm multiplies rank-2 operands, not rank %u",
                             a->ndims != 2 ? a->ndims : b->ndims);
      return FALSE;
    }
  ta = prism_onnx_operand (imp, a, 2, error);
  if (ta >= 0 && attr_int (node, "transA", 0) != 0)
    ta = transposed_2d (imp, ta, error);
  tb = ta < 0 ? -1 : prism_onnx_operand (imp, b, 2, error);
  if (tb >= 0 && attr_int (node, "transB", 0) != 0)
    tb = transposed_2d (imp, tb, error);
  y = add_binary (imp, PRISM_OP_MATMUL, ta, tb, error);
  if (y >= 0 && alpha != 1.0)
    y = add_binary (imp, PRISM_OP_MUL, y, add_constant (imp, alpha, 2, dtype_of (imp, a), error), error);
  if (y >= 0 && node->n_input >= 3 && node->input[2][0] != '\0' && beta != 0.0)
    {
      PrismOnnxValue *c = input_value (imp, node, 2, error);
      int tc;

      if (c == NULL)
        return FALSE;
      if (c->ndims > 2)
        {
          prism_onnx_node_error (imp, error, PRISM_ERROR_INVALID_GRAPH, "C has rank %u; Gemm's C has rank 2 at most",
                                 c->ndims);
          return FALSE;
        }
      tc = prism_onnx_operand_typed (imp, c, 2, dtype_of (imp, a), error);
      if (tc >= 0 && beta != 1.0)
        tc = add_binary (imp, PRISM_OP_MUL, tc, add_constant (imp, beta, 2, dtype_of (imp, a), error), error);
      y = add_binary (imp, PRISM_OP_ADD, y, tc, error);
    }
  return y >= 0 && define_result (imp, node, y, error);
}

/* Reductions ---------------------------------------------------------------- */

/* The axes of a Reduce node: its `axes` attribute before the opset where
 * they became its second input (13 for ReduceSum, 18 for the others),
 * that input after; an input's values must be known (an initializer or a
 * Constant).  Fills @reduce per dim; FALSE with @error. */
static gboolean
reduce_axes (PrismOnnxImport *imp, const Onnx__NodeProto *node, guint rank, gint64 input_opset, gboolean *reduce,
             gboolean *any, GError **error)
{
  const Onnx__AttributeProto *attr = find_attr (node, "axes");
  guint n = 0;
  double axes[PRISM_ONNX_MAX_VALUES];

  *any = FALSE;
  if (imp->opset >= input_opset && node->n_input >= 2 && node->input[1][0] != '\0')
    {
      PrismOnnxValue *v = input_value (imp, node, 1, error);

      if (v == NULL)
        return FALSE;
      if (!v->has_values)
        {
          prism_onnx_node_error (imp, error, PRISM_ERROR_UNSUPPORTED,
                                 "its axes “%s” are not constant (%s): the program needs them when it is built",
                                 v->name, v->is_source ? "a graph input" : "computed by the model");
          return FALSE;
        }
      n = v->n_values;
      memcpy (axes, v->values, n * sizeof (double));
    }
  else if (attr != NULL)
    {
      n = MIN (attr->n_ints, PRISM_ONNX_MAX_VALUES);
      for (guint i = 0; i < n; i++)
        axes[i] = (double) attr->ints[i];
    }
  for (guint i = 0; i < n; i++)
    {
      int d;

      /* An axes tensor of floats may hold anything: casting a value out of
       * gint64's range (or NaN) is undefined (found by fuzz-onnx-reader). */
      if (!(axes[i] >= -64 && axes[i] <= 64) || axes[i] != (double) (gint64) axes[i])
        {
          prism_onnx_node_error (imp, error, PRISM_ERROR_INVALID_GRAPH, "axis %g is not a whole number of a dim",
                                 axes[i]);
          return FALSE;
        }
      if (!normalize_axis (imp, (gint64) axes[i], rank, &d, error))
        return FALSE;
      if (reduce[d])
        {
          prism_onnx_node_error (imp, error, PRISM_ERROR_INVALID_GRAPH, "axis %d is listed twice", d);
          return FALSE;
        }
      reduce[d] = *any = TRUE;
    }
  return TRUE;
}

static gboolean
convert_reduce (PrismOnnxImport *imp, const Onnx__NodeProto *node, PrismOpKind kind, gint64 input_opset,
                GError **error)
{
  PrismOnnxValue *x = input_value (imp, node, 0, error);
  gboolean reduce[PRISM_MAX_DIMS] = { FALSE };
  gboolean any;
  PrismOnnxValue *y;
  guint kept = 0;
  int t;

  if (x == NULL || !reduce_axes (imp, node, x->ndims, input_opset, reduce, &any, error)
      || (t = operand (imp, x, error)) < 0)
    return FALSE;
  /* No axes: all of them, unless noop_with_empty_axes says none. */
  if (!any && attr_int (node, "noop_with_empty_axes", 0) == 0)
    for (guint d = 0; d < x->ndims; d++)
      reduce[d] = TRUE;
  /* Reducing dims one after the other is reducing them together (a mean
   * of equal-sized means is the mean). */
  for (guint d = 0; d < x->ndims && t >= 0; d++)
    if (reduce[d])
      t = add_reduction (imp, kind, t, (int) d, error);
  if (t < 0 || !define_result (imp, node, t, error))
    return FALSE;
  if (attr_int (node, "keepdims", 1) != 0)
    return TRUE;
  /* Without keepdims the ONNX value drops the reduced dims; the program's
   * tensor keeps them as 1s (the same data). */
  y = prism_onnx_value_lookup (imp, node->output[0]);
  for (guint d = 0; d < x->ndims; d++)
    if (!reduce[d])
      y->dims[kept++] = x->dims[d];
  y->ndims = kept;
  return TRUE;
}

static gboolean
convert_reduce_sum (PrismOnnxImport *imp, const Onnx__NodeProto *node, GError **error)
{
  return convert_reduce (imp, node, PRISM_OP_SUM, 13, error);
}

static gboolean
convert_reduce_max (PrismOnnxImport *imp, const Onnx__NodeProto *node, GError **error)
{
  return convert_reduce (imp, node, PRISM_OP_MAX, 18, error);
}

static gboolean
convert_reduce_mean (PrismOnnxImport *imp, const Onnx__NodeProto *node, GError **error)
{
  return convert_reduce (imp, node, PRISM_OP_MEAN, 18, error);
}

/* softmax(x) over one axis, spelled safely: exp(x − max) / Σ exp(x − max).
 * Before opset 13 Softmax flattened the dims from `axis` on into one, which
 * is the same when that axis is the last. */
static gboolean
convert_softmax (PrismOnnxImport *imp, const Onnx__NodeProto *node, GError **error)
{
  PrismOnnxValue *x = input_value (imp, node, 0, error);
  gint64 axis = attr_int (node, "axis", imp->opset >= 13 ? -1 : 1);
  int d, t, e;

  if (x == NULL || !normalize_axis (imp, axis, rank_of (x), &d, error) || (t = operand (imp, x, error)) < 0)
    return FALSE;
  if (imp->opset < 13 && d != (int) rank_of (x) - 1)
    {
      prism_onnx_node_error (imp, error, PRISM_ERROR_UNSUPPORTED,
                             "a Softmax of opset %" G_GINT64_FORMAT " over dims %d to %u taken together: "
                             "the program reduces one dim at a time", imp->opset, d, rank_of (x) - 1);
      return FALSE;
    }
  e = add_unary (imp, PRISM_OP_EXP, add_binary (imp, PRISM_OP_SUB, t, add_reduction (imp, PRISM_OP_MAX, t, d, error),
                                                error), error);
  t = add_binary (imp, PRISM_OP_DIV, e, add_reduction (imp, PRISM_OP_SUM, e, d, error), error);
  return t >= 0 && define_result (imp, node, t, error);
}

static gboolean
convert_transpose (PrismOnnxImport *imp, const Onnx__NodeProto *node, GError **error)
{
  PrismOnnxValue *x = input_value (imp, node, 0, error);
  const Onnx__AttributeProto *perm = find_attr (node, "perm");
  PrismOpAttrs attrs;
  guint in[1];
  int t;

  if (x == NULL || (t = operand (imp, x, error)) < 0)
    return FALSE;
  prism_op_attrs_init (&attrs);
  if (perm != NULL && perm->n_ints != rank_of (x))
    {
      prism_onnx_node_error (imp, error, PRISM_ERROR_INVALID_GRAPH,
                             "perm has %" G_GSIZE_FORMAT " entries for a rank-%u tensor", perm->n_ints, rank_of (x));
      return FALSE;
    }
  for (guint d = 0; d < rank_of (x); d++)
    {
      gint64 p = perm != NULL ? perm->ints[d] : (gint64) (rank_of (x) - 1 - d);

      if (p < 0 || p >= (gint64) rank_of (x))
        {
          prism_onnx_node_error (imp, error, PRISM_ERROR_INVALID_GRAPH, "perm entry %" G_GINT64_FORMAT " is out of range",
                                 p);
          return FALSE;
        }
      attrs.perm[d] = (int) p;
    }
  in[0] = (guint) t;
  t = add_op (imp, PRISM_OP_TRANSPOSE, in, 1, &attrs, error);
  return t >= 0 && define_result (imp, node, t, error);
}

/* Dispatch ------------------------------------------------------------------- */

static const struct
{
  const char *op_type;
  ConvertFunc convert;
} converters[] = {
  { "MatMul", convert_matmul },
  { "Gemm", convert_gemm },
  { "Add", convert_add },
  { "Sub", convert_sub },
  { "Mul", convert_mul },
  { "Div", convert_div },
  { "Pow", convert_pow },
  { "Max", convert_max },
  { "Exp", convert_exp },
  { "Sqrt", convert_sqrt },
  { "Reciprocal", convert_reciprocal },
  { "Relu", convert_relu },
  { "Neg", convert_neg },
  { "Sigmoid", convert_sigmoid },
  { "Erf", convert_erf },
  { "Identity", convert_identity },
  { "ReduceSum", convert_reduce_sum },
  { "ReduceMax", convert_reduce_max },
  { "ReduceMean", convert_reduce_mean },
  { "Softmax", convert_softmax },
  { "Transpose", convert_transpose },
  { "Constant", convert_constant },
};

static gboolean
refuse_unknown (PrismOnnxImport *imp, const Onnx__NodeProto *node, GError **error)
{
  g_autoptr(GString) known = g_string_new (NULL);

  if (node->domain != NULL && node->domain[0] != '\0' && strcmp (node->domain, "ai.onnx") != 0)
    {
      g_autofree char *domain = prism_onnx_clean_name (node->domain, 64);
      prism_onnx_node_error (imp, error, PRISM_ERROR_UNSUPPORTED, "an op of the domain “%s”, which is not read", domain);
      return FALSE;
    }
  for (gsize i = 0; i < G_N_ELEMENTS (converters); i++)
    g_string_append_printf (known, "%s%s", i > 0 ? ", " : "", converters[i].op_type);
  prism_onnx_node_error (imp, error, PRISM_ERROR_UNSUPPORTED,
                         "not supported: the program format has no counterpart (the ops read are %s)", known->str);
  return FALSE;
}

gboolean
prism_onnx_convert_node (PrismOnnxImport *imp, GError **error)
{
  const Onnx__NodeProto *node = imp->graph->node[imp->node];

  switch (imp->roles[imp->node])
    {
    case PRISM_ONNX_NODE_ABSORBED:
      return TRUE;
    case PRISM_ONNX_NODE_GELU:
      return convert_fused (imp, node, PRISM_OP_GELU, error);
    case PRISM_ONNX_NODE_SILU:
      return convert_fused (imp, node, PRISM_OP_SILU, error);
    case PRISM_ONNX_NODE_PLAIN:
    default:
      break;
    }
  for (gsize i = 0; i < G_N_ELEMENTS (converters); i++)
    if (prism_onnx_node_is (node, converters[i].op_type))
      return converters[i].convert (imp, node, error);
  return refuse_unknown (imp, node, error);
}
