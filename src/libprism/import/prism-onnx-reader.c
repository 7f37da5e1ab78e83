/* prism-onnx-reader.c — ONNX models read as programs
 *
 * The model is unpacked by protobuf-c after a bounded walk of its bytes
 * (prism-onnx-wire.c), then converted twice: the first pass learns the rank
 * at which every graph input and initializer is read (numpy broadcasting
 * pads shapes on the left; the program format has no reshape), the second
 * creates the program's inputs in the model's order at those ranks and
 * converts the nodes (prism-onnx-nodes.c) and patterns
 * (prism-onnx-fuse.c) in the model's order.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <stdarg.h>
#include <string.h>

#include "prism-error.h"
#include "prism-json-reader.h"
#include "prism-onnx-import-private.h"
#include "prism-onnx-wire.h"

/* Messages ------------------------------------------------------------------ */

char *
prism_onnx_clean_name (const char *name, guint max)
{
  g_autofree char *valid = g_utf8_make_valid (name != NULL ? name : "", -1);
  GString *s = g_string_new (NULL);
  guint n = 0;

  for (const char *p = valid; *p != '\0' && n < max; p = g_utf8_next_char (p), n++)
    {
      gunichar c = g_utf8_get_char (p);

      /* Names reach terminals and the prism-graph reader, which refuses
       * control characters. */
      if (c < 0x20 || (c >= 0x7f && c < 0xa0))
        g_string_append_c (s, '?');
      else
        g_string_append_unichar (s, c);
    }
  return g_string_free (s, FALSE);
}

/* "node 3 “/mlp/Mul” (Mul)", or NULL outside the nodes (graph inputs and outputs). */
static char *
node_label (PrismOnnxImport *imp)
{
  const Onnx__NodeProto *node;
  g_autofree char *name = NULL;
  g_autofree char *op = NULL;

  if (imp->node >= imp->graph->n_node)
    return NULL;
  node = imp->graph->node[imp->node];
  name = prism_onnx_clean_name (node->name, 128);
  op = prism_onnx_clean_name (node->op_type, 64);
  if (name[0] == '\0')
    return g_strdup_printf ("node %u (%s)", imp->node, op);
  return g_strdup_printf ("node %u “%s” (%s)", imp->node, name, op);
}

void
prism_onnx_node_error (PrismOnnxImport *imp, GError **error, int code, const char *format, ...)
{
  g_autofree char *label = node_label (imp);
  g_autofree char *message = NULL;
  g_autofree char *clean = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  /* Messages quote names from the file. */
  clean = prism_onnx_clean_name (message, 4096);
  if (label != NULL)
    g_set_error (error, PRISM_ERROR, code, "%s: %s", label, clean);
  else
    g_set_error_literal (error, PRISM_ERROR, code, clean);
}

void
prism_onnx_node_prefix (PrismOnnxImport *imp, GError **error)
{
  g_autofree char *label = node_label (imp);

  if (label != NULL && error != NULL && *error != NULL)
    g_prefix_error (error, "%s: ", label);
}

/* Values ---------------------------------------------------------------------- */

static void
value_free (gpointer data)
{
  PrismOnnxValue *v = data;

  g_free (v->name);
  g_free (v);
}

PrismOnnxValue *
prism_onnx_value_lookup (PrismOnnxImport *imp, const char *name)
{
  return g_hash_table_lookup (imp->values, name);
}

PrismOnnxValue *
prism_onnx_value_define (PrismOnnxImport *imp, const char *name, GError **error)
{
  PrismOnnxValue *v;

  if (g_hash_table_contains (imp->values, name))
    {
      g_autofree char *clean = prism_onnx_clean_name (name, 256);
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_PARSE, "“%s” is defined twice", clean);
      return NULL;
    }
  v = g_new0 (PrismOnnxValue, 1);
  v->name = g_strdup (name);
  v->tensor = -1;
  g_hash_table_insert (imp->values, v->name, v);
  return v;
}

/* Dims ------------------------------------------------------------------------- */

gboolean
prism_onnx_dim_parse (const char *text, PrismOnnxDim *out, GError **error)
{
  const char *eq = strchr (text, '=');
  g_autofree char *name = eq != NULL ? g_strndup (text, eq - text) : NULL;
  guint64 value = 0;

  if (eq == NULL || name[0] == '\0'
      || !g_ascii_string_to_unsigned (eq + 1, 10, 1, PRISM_DIM_MAX, &value, NULL))
    {
      g_autofree char *clean = prism_onnx_clean_name (text, 256);
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_PARSE,
                   "--dim “%s”: expected NAME=VALUE with VALUE from 1 to %" G_GINT64_FORMAT, clean, PRISM_DIM_MAX);
      return FALSE;
    }
  out->name = g_steal_pointer (&name);
  out->value = (gint64) value;
  return TRUE;
}

/* The size of dim @d of graph input @name. */
static gboolean
input_dim (PrismOnnxImport *imp, const char *name, guint d, const Onnx__TensorShapeProto__Dimension *dim,
           gint64 *out, GError **error)
{
  g_autofree char *clean = prism_onnx_clean_name (name, 256);

  if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
    {
      if (dim->dim_value < 1 || dim->dim_value > PRISM_DIM_MAX)
        {
          g_set_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED,
                       "graph input “%s”: dim %u is %" G_GINT64_FORMAT "; sizes are 1 to %" G_GINT64_FORMAT, clean, d,
                       dim->dim_value, PRISM_DIM_MAX);
          return FALSE;
        }
      *out = dim->dim_value;
      return TRUE;
    }
  if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM && dim->dim_param[0] != '\0')
    {
      g_autofree char *param = prism_onnx_clean_name (dim->dim_param, 64);

      for (guint i = 0; i < imp->n_dims; i++)
        if (strcmp (imp->dims[i].name, dim->dim_param) == 0)
          {
            imp->dim_used[i] = TRUE;
            *out = imp->dims[i].value;
            return TRUE;
          }
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED,
                   "graph input “%s”: dim %u is “%s”, which has no size: give it one with --dim %s=N", clean, d,
                   param, param);
      return FALSE;
    }
  g_set_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED, "graph input “%s”: dim %u has no size", clean, d);
  return FALSE;
}

/* Graph inputs and initializers --------------------------------------------------- */

static gboolean
define_initializers (PrismOnnxImport *imp, GError **error)
{
  for (gsize i = 0; i < imp->graph->n_initializer; i++)
    {
      const Onnx__TensorProto *t = imp->graph->initializer[i];
      g_autofree char *clean = prism_onnx_clean_name (t->name, 256);
      g_autofree char *what = g_strdup_printf ("initializer “%s”", clean);
      PrismOnnxValue *v;

      if (t->name == NULL || t->name[0] == '\0')
        {
          g_set_error (error, PRISM_ERROR, PRISM_ERROR_PARSE, "initializer %" G_GSIZE_FORMAT " has no name", i);
          return FALSE;
        }
      if ((v = prism_onnx_value_define (imp, t->name, error)) == NULL)
        return FALSE;
      v->is_source = v->is_initializer = TRUE;
      if (!prism_onnx_tensor_describe (t, v, what, error))
        return FALSE;
      /* One value is a constant of the program wherever it is read (an
       * eps, a scale): the search needs its value, not a tensor. */
      v->is_source = !(v->has_values && v->n_values == 1);
    }
  if (imp->graph->n_sparse_initializer > 0)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED, "sparse initializers are not read");
      return FALSE;
    }
  return TRUE;
}

static gboolean
define_graph_input (PrismOnnxImport *imp, const Onnx__ValueInfoProto *info, GError **error)
{
  g_autofree char *clean = prism_onnx_clean_name (info->name, 256);
  const Onnx__TypeProto__Tensor *tt;
  PrismOnnxValue *v;

  if (info->name == NULL || info->name[0] == '\0')
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_PARSE, "a graph input has no name");
      return FALSE;
    }
  /* Models of IR version 3 list their initializers among the inputs too. */
  if ((v = prism_onnx_value_lookup (imp, info->name)) != NULL && v->is_initializer)
    return TRUE;
  if (info->type == NULL || info->type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED, "graph input “%s” is not a tensor", clean);
      return FALSE;
    }
  tt = info->type->tensor_type;
  if (tt->shape == NULL)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED, "graph input “%s” has no shape", clean);
      return FALSE;
    }
  if (tt->shape->n_dim > PRISM_MAX_DIMS)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED,
                   "graph input “%s” has rank %" G_GSIZE_FORMAT "; the program format has tensors of rank 1 to %d",
                   clean, tt->shape->n_dim, PRISM_MAX_DIMS);
      return FALSE;
    }
  if ((v = prism_onnx_value_define (imp, info->name, error)) == NULL)
    return FALSE;
  v->is_source = TRUE;
  v->elem_type = tt->elem_type;
  v->is_float = prism_onnx_dtype_from_elem (tt->elem_type, &v->dtype);
  v->ndims = tt->shape->n_dim;
  for (guint d = 0; d < v->ndims; d++)
    if (!input_dim (imp, info->name, d, tt->shape->dim[d], &v->dims[d], error))
      return FALSE;
  return TRUE;
}

/* The second pass: the program's inputs in the model's order, graph inputs
 * first (unread ones too, which keeps the model's signature), then the
 * initializers read as tensors. */
static gboolean
create_inputs (PrismOnnxImport *imp, GError **error)
{
  GPtrArray *order = g_ptr_array_new ();
  gboolean ok = TRUE;

  for (gsize i = 0; i < imp->graph->n_input; i++)
    {
      PrismOnnxValue *v = prism_onnx_value_lookup (imp, imp->graph->input[i]->name);
      if (v != NULL && !v->is_initializer)
        g_ptr_array_add (order, v);
    }
  for (gsize i = 0; i < imp->graph->n_initializer; i++)
    {
      PrismOnnxValue *v = prism_onnx_value_lookup (imp, imp->graph->initializer[i]->name);
      if (g_hash_table_contains (imp->planned_ranks, v->name))
        g_ptr_array_add (order, v);
    }
  for (guint i = 0; i < order->len && ok; i++)
    {
      PrismOnnxValue *v = g_ptr_array_index (order, i);
      gpointer rank = g_hash_table_lookup (imp->planned_ranks, v->name);

      if (!v->is_float || !v->is_source)
        continue;
      ok = prism_onnx_operand (imp, v, rank != NULL ? GPOINTER_TO_UINT (rank) : MAX (v->ndims, 1), error) >= 0;
    }
  g_ptr_array_unref (order);
  return ok;
}

/* Graph outputs ---------------------------------------------------------------------- */

static gboolean
add_outputs (PrismOnnxImport *imp, GError **error)
{
  if (imp->graph->n_output == 0)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_PARSE, "the graph has no output");
      return FALSE;
    }
  for (gsize i = 0; i < imp->graph->n_output; i++)
    {
      const char *name = imp->graph->output[i]->name != NULL ? imp->graph->output[i]->name : "";
      g_autofree char *clean = prism_onnx_clean_name (name, 64);
      PrismOnnxValue *v = prism_onnx_value_lookup (imp, name);
      int t;

      if (v == NULL)
        {
          g_set_error (error, PRISM_ERROR, PRISM_ERROR_PARSE, "graph output “%s” is produced by no node", clean);
          return FALSE;
        }
      /* A value whose ONNX shape only lacks dims of 1 (a reduction without
       * keepdims) is output as its program tensor: the same data. */
      t = v->tensor >= 0 ? v->tensor : prism_onnx_operand (imp, v, MAX (v->ndims, 1), error);
      if (t < 0 || prism_graph_add_output (imp->program, (guint) t, clean, error) < 0)
        {
          g_prefix_error (error, "graph output “%s”: ", clean);
          return FALSE;
        }
    }
  return TRUE;
}

/* The model ------------------------------------------------------------------------------ */

/* Who produces and who reads each name, for the patterns and the messages. */
static gboolean
index_nodes (PrismOnnxImport *imp, GError **error)
{
  for (gsize n = 0; n < imp->graph->n_node; n++)
    {
      const Onnx__NodeProto *node = imp->graph->node[n];

      imp->node = n;
      if (node->op_type == NULL)
        {
          prism_onnx_node_error (imp, error, PRISM_ERROR_PARSE, "has no op_type");
          return FALSE;
        }
      for (gsize i = 0; i < node->n_input; i++)
        {
          gpointer count = g_hash_table_lookup (imp->uses, node->input[i]);
          g_hash_table_insert (imp->uses, node->input[i], GUINT_TO_POINTER (GPOINTER_TO_UINT (count) + 1));
        }
      for (gsize i = 0; i < node->n_output; i++)
        {
          if (node->output[i][0] == '\0')
            continue;
          if (g_hash_table_contains (imp->producers, node->output[i]))
            {
              prism_onnx_node_error (imp, error, PRISM_ERROR_PARSE, "produces “%s”, which an earlier node produces",
                                     node->output[i]);
              return FALSE;
            }
          g_hash_table_insert (imp->producers, node->output[i], GUINT_TO_POINTER (n + 1));
        }
    }
  for (gsize i = 0; i < imp->graph->n_output; i++)
    if (imp->graph->output[i]->name != NULL)
      {
        gpointer count = g_hash_table_lookup (imp->uses, imp->graph->output[i]->name);
        g_hash_table_insert (imp->uses, imp->graph->output[i]->name, GUINT_TO_POINTER (GPOINTER_TO_UINT (count) + 1));
      }
  return TRUE;
}

static gboolean
find_opset (PrismOnnxImport *imp, GError **error)
{
  for (gsize i = 0; i < imp->model->n_opset_import; i++)
    {
      const Onnx__OperatorSetIdProto *o = imp->model->opset_import[i];

      if ((o->domain == NULL || o->domain[0] == '\0' || strcmp (o->domain, "ai.onnx") == 0) && o->has_version)
        {
          imp->opset = o->version;
          return TRUE;
        }
    }
  g_set_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED, "the model imports no version of the ONNX operators "
               "(opset_import of the default domain)");
  return FALSE;
}

/* One pass over the model into a new imp->program. */
static gboolean
convert_pass (PrismOnnxImport *imp, GError **error)
{
  g_clear_pointer (&imp->program, prism_graph_unref);
  g_clear_pointer (&imp->values, g_hash_table_unref);
  imp->program = prism_graph_new ();
  imp->values = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, value_free);
  if (!define_initializers (imp, error))
    return FALSE;
  for (gsize i = 0; i < imp->graph->n_input; i++)
    if (!define_graph_input (imp, imp->graph->input[i], error))
      return FALSE;
  imp->node = imp->graph->n_node; /* no node in messages */
  if (!imp->planning && !create_inputs (imp, error))
    return FALSE;
  for (imp->node = 0; imp->node < imp->graph->n_node; imp->node++)
    if (!prism_onnx_convert_node (imp, error))
      return FALSE;
  return add_outputs (imp, error);
}

static gboolean
check_bindings_used (PrismOnnxImport *imp, GError **error)
{
  for (guint i = 0; i < imp->n_dims; i++)
    if (!imp->dim_used[i])
      {
        g_autofree char *clean = prism_onnx_clean_name (imp->dims[i].name, 64);
        g_set_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED,
                     "--dim %s: no graph input has a dim named “%s”", clean, clean);
        return FALSE;
      }
  return TRUE;
}

static void
name_program (PrismOnnxImport *imp, const char *default_name)
{
  const char *name = imp->graph->name != NULL && imp->graph->name[0] != '\0' ? imp->graph->name : default_name;
  g_autofree char *clean = prism_onnx_clean_name (name != NULL ? name : "onnx", 128);
  g_autofree char *producer = prism_onnx_clean_name (imp->model->producer_name, 64);
  g_autofree char *description = producer[0] != '\0'
    ? g_strdup_printf ("Imported from an ONNX model (opset %" G_GINT64_FORMAT ", made by %s).", imp->opset, producer)
    : g_strdup_printf ("Imported from an ONNX model (opset %" G_GINT64_FORMAT ").", imp->opset);

  prism_graph_set_name (imp->program, clean, description);
}

static PrismGraph *
convert_model (const Onnx__ModelProto *model, const PrismOnnxDim *dims, guint n_dims, const char *default_name,
               GError **error)
{
  PrismOnnxImport imp = { 0 };
  PrismGraph *result = NULL;

  imp.model = model;
  imp.graph = model->graph;
  imp.dims = dims;
  imp.n_dims = n_dims;
  imp.dim_used = g_new0 (gboolean, MAX (n_dims, 1));
  if (imp.graph == NULL)
    g_set_error (error, PRISM_ERROR, PRISM_ERROR_PARSE, "not an ONNX model: it has no graph");
  else if (imp.graph->n_node > PRISM_ONNX_MAX_NODES)
    g_set_error (error, PRISM_ERROR, PRISM_ERROR_LIMIT, "the graph has %" G_GSIZE_FORMAT " nodes, more than %d",
                 imp.graph->n_node, PRISM_ONNX_MAX_NODES);
  if (imp.graph == NULL || imp.graph->n_node > PRISM_ONNX_MAX_NODES || !find_opset (&imp, error))
    goto out;
  imp.producers = g_hash_table_new (g_str_hash, g_str_equal);
  imp.uses = g_hash_table_new (g_str_hash, g_str_equal);
  imp.planned_ranks = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  imp.roles = g_new0 (PrismOnnxNodeRole, MAX (imp.graph->n_node, 1));
  imp.fused_x = g_new0 (const char *, MAX (imp.graph->n_node, 1));
  /* The patterns read the values of initializers (0.5, 1, √2). */
  imp.values = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, value_free);
  if (!index_nodes (&imp, error) || !define_initializers (&imp, error))
    goto out;
  prism_onnx_find_patterns (&imp);
  imp.planning = TRUE;
  if (!convert_pass (&imp, error) || !check_bindings_used (&imp, error))
    goto out;
  imp.planning = FALSE;
  if (!convert_pass (&imp, error))
    goto out;
  name_program (&imp, default_name);
  if (prism_graph_validate (imp.program, error))
    result = g_steal_pointer (&imp.program);
out:
  g_clear_pointer (&imp.program, prism_graph_unref);
  g_clear_pointer (&imp.values, g_hash_table_unref);
  g_clear_pointer (&imp.producers, g_hash_table_unref);
  g_clear_pointer (&imp.uses, g_hash_table_unref);
  g_clear_pointer (&imp.planned_ranks, g_hash_table_unref);
  g_free (imp.roles);
  g_free (imp.fused_x);
  g_free (imp.dim_used);
  return result;
}

PrismGraph *
prism_onnx_load_from_data (const guint8 *data, gsize length, const PrismOnnxDim *dims, guint n_dims,
                           const char *default_name, GError **error)
{
  Onnx__ModelProto *model;
  PrismGraph *graph;

  if (length > PRISM_ONNX_MAX_SIZE)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_LIMIT, "the model has %" G_GSIZE_FORMAT " bytes, more than %" G_GSIZE_FORMAT,
                   length, PRISM_ONNX_MAX_SIZE);
      return NULL;
    }
  if (!prism_onnx_wire_check (data, length, &onnx__model_proto__descriptor, error))
    return NULL;
  model = onnx__model_proto__unpack (NULL, length, data);
  if (model == NULL)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_PARSE, "not an ONNX model: protobuf-c cannot unpack it");
      return NULL;
    }
  graph = convert_model (model, dims, n_dims, default_name, error);
  onnx__model_proto__free_unpacked (model, NULL);
  return graph;
}

PrismGraph *
prism_onnx_load (const char *path, const PrismOnnxDim *dims, guint n_dims, GError **error)
{
  gsize length = 0;
  g_autofree char *data = prism_json_read_file (path, PRISM_ONNX_MAX_SIZE, &length, error);
  g_autofree char *base = NULL;
  PrismGraph *graph;

  if (data == NULL)
    return NULL;
  base = g_path_get_basename (path);
  if (g_str_has_suffix (base, ".onnx"))
    base[strlen (base) - 5] = '\0';
  graph = prism_onnx_load_from_data ((const guint8 *) data, length, dims, n_dims, base, error);
  if (graph == NULL)
    g_prefix_error (error, "%s: ", path);
  return graph;
}

/* The bytes of @path unpacked, after the bounded walk. (transfer full) (nullable) */
static Onnx__ModelProto *
unpack_file (const char *path, GError **error)
{
  gsize length = 0;
  g_autofree char *data = prism_json_read_file (path, PRISM_ONNX_MAX_SIZE, &length, error);
  Onnx__ModelProto *model;

  if (data == NULL)
    return NULL;
  if (!prism_onnx_wire_check ((const guint8 *) data, length, &onnx__model_proto__descriptor, error))
    {
      g_prefix_error (error, "%s: ", path);
      return NULL;
    }
  model = onnx__model_proto__unpack (NULL, length, (const guint8 *) data);
  if (model == NULL)
    g_set_error (error, PRISM_ERROR, PRISM_ERROR_PARSE, "%s: not an ONNX model: protobuf-c cannot unpack it", path);
  return model;
}

char **
prism_onnx_list_dim_params (const char *path, GError **error)
{
  Onnx__ModelProto *model = unpack_file (path, error);
  g_autoptr(GPtrArray) names = NULL;

  if (model == NULL)
    return NULL;
  names = g_ptr_array_new_with_free_func (g_free);
  for (gsize i = 0; model->graph != NULL && i < model->graph->n_input; i++)
    {
      const Onnx__ValueInfoProto *info = model->graph->input[i];
      const Onnx__TensorShapeProto *shape;

      if (info->type == NULL || info->type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE
          || (shape = info->type->tensor_type->shape) == NULL)
        continue;
      for (gsize d = 0; d < shape->n_dim; d++)
        {
          const Onnx__TensorShapeProto__Dimension *dim = shape->dim[d];
          gboolean known = FALSE;

          if (dim->value_case != ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM || dim->dim_param[0] == '\0')
            continue;
          for (guint k = 0; k < names->len && !known; k++)
            known = g_strcmp0 (g_ptr_array_index (names, k), dim->dim_param) == 0;
          if (!known && names->len < 64)
            g_ptr_array_add (names, g_strdup (dim->dim_param));
        }
    }
  onnx__model_proto__free_unpacked (model, NULL);
  g_ptr_array_add (names, NULL);
  return (char **) g_ptr_array_free (g_steal_pointer (&names), FALSE);
}
