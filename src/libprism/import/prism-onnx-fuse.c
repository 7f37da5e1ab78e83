/* prism-onnx-fuse.c — patterns of several ONNX nodes that are one op of
 * the program: the erf GELU and SiLU
 *
 * Exporters spell gelu(x) = 0.5·x·(1 + erf(x/√2)) in five nodes (Div or
 * Mul by 1/√2, Erf, Add 1, two Mul) and silu(x) as Mul(x, Sigmoid(x)).  The
 * program format has no erf and no sigmoid of its own, so the pattern is
 * found before the nodes are converted: its last node becomes the op, the
 * others are skipped.  A node whose output is also read outside the
 * pattern is not absorbed (the pattern is then not recognised, and a lone
 * Erf is refused by name).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "prism-error.h"
#include "prism-onnx-import-private.h"

gboolean
prism_onnx_node_is (const Onnx__NodeProto *node, const char *op_type)
{
  gboolean default_domain = node->domain == NULL || node->domain[0] == '\0'
                            || strcmp (node->domain, "ai.onnx") == 0;

  return default_domain && node->op_type != NULL && strcmp (node->op_type, op_type) == 0;
}

const Onnx__NodeProto *
prism_onnx_producer (PrismOnnxImport *imp, const char *name)
{
  guint index = GPOINTER_TO_UINT (g_hash_table_lookup (imp->producers, name));

  return index == 0 ? NULL : imp->graph->node[index - 1];
}

static guint
node_index (PrismOnnxImport *imp, const char *output)
{
  return GPOINTER_TO_UINT (g_hash_table_lookup (imp->producers, output)) - 1;
}

static guint
uses (PrismOnnxImport *imp, const char *name)
{
  return GPOINTER_TO_UINT (g_hash_table_lookup (imp->uses, name));
}

gboolean
prism_onnx_constant_value (const Onnx__NodeProto *node, PrismOnnxValue *v, const char *what, GError **error)
{
  for (gsize i = 0; i < node->n_attribute; i++)
    {
      const Onnx__AttributeProto *a = node->attribute[i];
      const char *name = a->name != NULL ? a->name : "";

      v->ndims = 0;
      v->has_values = TRUE;
      v->is_float = TRUE;
      v->dtype = PRISM_DTYPE_F32;
      if (strcmp (name, "value") == 0 && a->t != NULL)
        {
          v->has_values = FALSE;
          return prism_onnx_tensor_describe (a->t, v, what, error);
        }
      if (strcmp (name, "value_float") == 0 || strcmp (name, "value_int") == 0)
        {
          v->is_float = name[6] == 'f';
          v->elem_type = v->is_float ? 1 : 7;
          v->n_values = 1;
          v->values[0] = v->is_float ? a->f : (double) a->i;
          return TRUE;
        }
      if (strcmp (name, "value_floats") == 0 || strcmp (name, "value_ints") == 0)
        {
          gsize n = name[6] == 'f' ? a->n_floats : a->n_ints;

          v->is_float = name[6] == 'f';
          v->elem_type = v->is_float ? 1 : 7;
          v->ndims = 1;
          v->dims[0] = (gint64) n;
          v->has_values = n >= 1 && n <= PRISM_ONNX_MAX_VALUES;
          if (n == 0)
            break;
          for (gsize k = 0; v->has_values && k < n; k++)
            v->values[k] = v->is_float ? a->floats[k] : (double) a->ints[k];
          v->n_values = v->has_values ? n : 0;
          return TRUE;
        }
    }
  g_set_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED,
               "%s: a Constant needs a non-empty value, value_float(s) or value_int(s) attribute", what);
  return FALSE;
}

gboolean
prism_onnx_known_scalar (PrismOnnxImport *imp, const char *name, double *out)
{
  const PrismOnnxValue *v = prism_onnx_value_lookup (imp, name);
  const Onnx__NodeProto *node;
  PrismOnnxValue tmp = { 0 };

  if (v == NULL && (node = prism_onnx_producer (imp, name)) != NULL && prism_onnx_node_is (node, "Constant")
      && prism_onnx_constant_value (node, &tmp, "", NULL))
    v = &tmp;
  if (v == NULL || !v->has_values || v->n_values != 1)
    return FALSE;
  *out = v->values[0];
  return TRUE;
}

static gboolean
is_scalar (PrismOnnxImport *imp, const char *name, double want, double tolerance)
{
  double value;

  return prism_onnx_known_scalar (imp, name, &value) && fabs (value - want) <= tolerance;
}

/* The producer of @name when it is @op_type, is converted on its own so far
 * and @name is read once (by the pattern). */
static const Onnx__NodeProto *
single_use_producer (PrismOnnxImport *imp, const char *name, const char *op_type)
{
  const Onnx__NodeProto *node = prism_onnx_producer (imp, name);

  if (node == NULL || !prism_onnx_node_is (node, op_type) || uses (imp, name) != 1 || node->n_output != 1
      || imp->roles[node_index (imp, name)] != PRISM_ONNX_NODE_PLAIN)
    return NULL;
  return node;
}

/* @a is 1 + erf(x/√2) (in either order of each binary node); returns x. */
static const char *
match_one_plus_erf (PrismOnnxImport *imp, const char *a, const char **absorbed)
{
  const Onnx__NodeProto *add = single_use_producer (imp, a, "Add");
  const Onnx__NodeProto *erf, *scale;

  if (add == NULL || add->n_input != 2)
    return NULL;
  for (guint i = 0; i < 2; i++)
    {
      if (!is_scalar (imp, add->input[1 - i], 1.0, 1e-6)
          || (erf = single_use_producer (imp, add->input[i], "Erf")) == NULL || erf->n_input != 1)
        continue;
      if ((scale = single_use_producer (imp, erf->input[0], "Div")) != NULL && scale->n_input == 2
          && is_scalar (imp, scale->input[1], G_SQRT2, 1e-5))
        ;
      else if ((scale = single_use_producer (imp, erf->input[0], "Mul")) != NULL && scale->n_input == 2
               && (is_scalar (imp, scale->input[1], M_SQRT1_2, 1e-5) || is_scalar (imp, scale->input[0], M_SQRT1_2, 1e-5)))
        ;
      else
        continue;
      absorbed[0] = a;
      absorbed[1] = add->input[i];
      absorbed[2] = erf->input[0];
      if (scale->input[0][0] != '\0' && is_scalar (imp, scale->input[0], M_SQRT1_2, 1e-5))
        return scale->input[1];
      return scale->input[0];
    }
  return NULL;
}

/* The three factors of @root (a Mul of a Mul and a value, either way): x,
 * 0.5 and 1 + erf(x/√2). */
static void
match_gelu (PrismOnnxImport *imp, guint root_index)
{
  const Onnx__NodeProto *root = imp->graph->node[root_index];

  for (guint i = 0; i < 2; i++)
    {
      const Onnx__NodeProto *inner = single_use_producer (imp, root->input[i], "Mul");
      const char *leaves[3];

      if (inner == NULL || inner->n_input != 2)
        continue;
      leaves[0] = root->input[1 - i];
      leaves[1] = inner->input[0];
      leaves[2] = inner->input[1];
      for (guint h = 0; h < 3; h++)
        for (guint e = 0; e < 3; e++)
          {
            const char *absorbed[3];
            guint xi = 3 - h - e;
            const char *x;

            if (h == e || !is_scalar (imp, leaves[h], 0.5, 1e-6)
                || (x = match_one_plus_erf (imp, leaves[e], absorbed)) == NULL || strcmp (x, leaves[xi]) != 0)
              continue;
            imp->roles[root_index] = PRISM_ONNX_NODE_GELU;
            imp->fused_x[root_index] = x;
            imp->roles[node_index (imp, root->input[i])] = PRISM_ONNX_NODE_ABSORBED;
            for (guint k = 0; k < 3; k++)
              imp->roles[node_index (imp, absorbed[k])] = PRISM_ONNX_NODE_ABSORBED;
            return;
          }
    }
}

static void
match_silu (PrismOnnxImport *imp, guint root_index)
{
  const Onnx__NodeProto *root = imp->graph->node[root_index];

  for (guint i = 0; i < 2; i++)
    {
      const Onnx__NodeProto *sigmoid = single_use_producer (imp, root->input[i], "Sigmoid");

      if (sigmoid == NULL || sigmoid->n_input != 1 || strcmp (sigmoid->input[0], root->input[1 - i]) != 0)
        continue;
      imp->roles[root_index] = PRISM_ONNX_NODE_SILU;
      imp->fused_x[root_index] = root->input[1 - i];
      imp->roles[node_index (imp, root->input[i])] = PRISM_ONNX_NODE_ABSORBED;
      return;
    }
}

void
prism_onnx_find_patterns (PrismOnnxImport *imp)
{
  /* Last nodes first: a GELU's root is after its inner Mul, which must not
   * be taken for a pattern of its own. */
  for (gsize n = imp->graph->n_node; n-- > 0;)
    {
      const Onnx__NodeProto *node = imp->graph->node[n];

      if (imp->roles[n] != PRISM_ONNX_NODE_PLAIN || !prism_onnx_node_is (node, "Mul") || node->n_input != 2
          || node->n_output != 1)
        continue;
      match_gelu (imp, n);
      if (imp->roles[n] == PRISM_ONNX_NODE_PLAIN)
        match_silu (imp, n);
    }
}
