/* prism-mirage-reader.c — converting Mirage's saved muGraphs into PrismGraphs
 *
 * A Mirage file is a JSON list of muGraphs; a muGraph is a list of kernel
 * (KN) operators in topological order whose tensors are linked by guid; a
 * customized op carries a thread-block (TB) graph whose operators link
 * shared-memory tensors the same way.  The two levels map one to one onto
 * ours: grid_dim → grid, forloop_range → forloop, input_map → imap,
 * forloop_dim → fmap, output_map → omap, Mirage's accumulators onto ours.
 * Every op goes through the builders of prism-graph.h, so the IR's rules are
 * checked again, and every shape the file states is compared with the one
 * the builders infer: a file edited by hand cannot claim one shape and
 * compute another.  What has no counterpart in our IR is refused, naming the
 * graph, the op and the field.
 *
 * Mirage's enums changed over time (docs/format.md lists both tables): the
 * files of December 2024 write FP16 as 921 and the accumulators as
 * tb_accum_*_op; later ones write 941 and tb_forloop_accum_*_op.  Both are
 * read.  Fields we have no use for (smem_offset, strides of contiguous
 * tensors, input_map of a graph input, …) are ignored rather than refused,
 * so that a file of a later Mirage still reads.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "prism-error.h"
#include "prism-json-reader.h"
#include "prism-mirage-reader.h"

/* Bytes read to tell the formats apart: any whitespace before the first
 * character a sane writer puts there. */
#define SNIFF_BYTES 4096

void
prism_mirage_graph_free (PrismMirageGraph *graph)
{
  if (graph == NULL)
    return;
  g_clear_pointer (&graph->graph, prism_graph_unref);
  g_clear_error (&graph->error);
  g_free (graph);
}

/* ------------------------------------------------------------------------ */
/* Detection */

gboolean
prism_mirage_data_is_mugraphs (const char *data, gsize length)
{
  for (gsize i = 0; i < length; i++)
    {
      char c = data[i];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
        continue;
      return c == '[';
    }
  return FALSE;
}

gboolean
prism_mirage_file_is_mugraphs (const char *path)
{
  char buf[SNIFF_BYTES];
  gsize n;
  FILE *f;

  /* A FIFO would block the open and a device may never end: only regular
   * files are looked at. */
  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
    return FALSE;
  if ((f = fopen (path, "rb")) == NULL)
    return FALSE;
  n = fread (buf, 1, sizeof buf, f);
  fclose (f);
  return prism_mirage_data_is_mugraphs (buf, n);
}

/* ------------------------------------------------------------------------ */
/* Errors */

G_GNUC_PRINTF (5, 6) static gboolean
fail (GError **error, PrismErrorCode code, const char *where, const char *field, const char *fmt, ...)
{
  va_list args;
  g_autofree char *msg = NULL;

  va_start (args, fmt);
  msg = g_strdup_vprintf (fmt, args);
  va_end (args);
  if (field != NULL)
    g_set_error (error, PRISM_ERROR, code, "%s: field “%s”: %s", where, field, msg);
  else
    g_set_error (error, PRISM_ERROR, code, "%s: %s", where, msg);
  return FALSE;
}

/* The builders start their messages with their own op numbering ("block op
 * 3 (matmul): …"); the file's op and type say more to whoever wrote it. */
static gboolean
fail_builder (GError **error, GError *inner, const char *where)
{
  const char *msg = inner->message;
  const char *p = msg;

  if (g_str_has_prefix (p, "block "))
    p += strlen ("block ");
  if (g_str_has_prefix (p, "op "))
    {
      const char *close = strstr (p, "): ");
      if (close != NULL)
        msg = close + strlen ("): ");
    }
  g_set_error (error, PRISM_ERROR, inner->code, "%s: %s", where, msg);
  g_error_free (inner);
  return FALSE;
}

/* ------------------------------------------------------------------------ */
/* Typed access to JSON nodes */

static const char *
node_kind (JsonNode *node)
{
  if (JSON_NODE_HOLDS_OBJECT (node))
    return "an object";
  if (JSON_NODE_HOLDS_ARRAY (node))
    return "a list";
  if (JSON_NODE_HOLDS_NULL (node))
    return "null";
  switch (json_node_get_value_type (node))
    {
    case G_TYPE_INT64:
      return "an integer";
    case G_TYPE_DOUBLE:
      return "a number with a fraction";
    case G_TYPE_BOOLEAN:
      return "a boolean";
    case G_TYPE_STRING:
      return "a string";
    default:
      return "a value";
    }
}

static JsonNode *
require (JsonObject *obj, const char *name, const char *where, const char *field, GError **error)
{
  JsonNode *node = json_object_get_member (obj, name);

  if (node == NULL)
    fail (error, PRISM_ERROR_PARSE, where, field, "is missing");
  return node;
}

static gboolean
read_int (JsonNode *node, const char *where, const char *field, gint64 min, gint64 max, gint64 *out,
          GError **error)
{
  gint64 v;

  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_INT64)
    return fail (error, PRISM_ERROR_PARSE, where, field, "is %s, not an integer", node_kind (node));
  v = json_node_get_int (node);
  if (v < min || v > max)
    return fail (error, PRISM_ERROR_INVALID_GRAPH, where, field,
                 "%" G_GINT64_FORMAT " is not between %" G_GINT64_FORMAT " and %" G_GINT64_FORMAT, v, min, max);
  *out = v;
  return TRUE;
}

static gboolean
read_member_int (JsonObject *obj, const char *name, const char *where, const char *field, gint64 min,
                 gint64 max, gint64 *out, GError **error)
{
  JsonNode *node = require (obj, name, where, field, error);

  return node != NULL && read_int (node, where, field, min, max, out, error);
}

static JsonObject *
read_object (JsonNode *node, const char *where, const char *field, GError **error)
{
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      fail (error, PRISM_ERROR_PARSE, where, field, "is %s, not an object", node_kind (node));
      return NULL;
    }
  return json_node_get_object (node);
}

static JsonArray *
read_array (JsonNode *node, const char *where, const char *field, GError **error)
{
  if (!JSON_NODE_HOLDS_ARRAY (node))
    {
      fail (error, PRISM_ERROR_PARSE, where, field, "is %s, not a list", node_kind (node));
      return NULL;
    }
  return json_node_get_array (node);
}

static JsonArray *
read_member_array (JsonObject *obj, const char *name, const char *where, GError **error)
{
  JsonNode *node = require (obj, name, where, name, error);

  return node != NULL ? read_array (node, where, name, error) : NULL;
}

/* Mirage's int3 maps: {"x": …, "y": …, "z": …}, -1 for "none". */
static gboolean
read_int3 (JsonObject *obj, const char *name, const char *where, gint64 min, gint64 max, gint64 out[3],
           GError **error)
{
  static const char * const axes[3] = { "x", "y", "z" };
  JsonNode *node = require (obj, name, where, name, error);
  JsonObject *o;

  if (node == NULL || (o = read_object (node, where, name, error)) == NULL)
    return FALSE;
  for (guint a = 0; a < 3; a++)
    {
      g_autofree char *field = g_strdup_printf ("%s.%s", name, axes[a]);
      if (!read_member_int (o, axes[a], where, field, min, max, &out[a], error))
        return FALSE;
    }
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* Tensors */

typedef struct
{
  gint64 guid;
  guint ndims;
  gint64 dims[PRISM_MAX_DIMS];
  gboolean has_dtype;
  PrismDtype dtype;
  gboolean has_after_accum;
  gboolean after_accum;
} MTensor;

/* Mirage's DataType numbers, old and new (include/mirage/type.h). */
static gboolean
dtype_from_mirage (gint64 code, PrismDtype *out)
{
  switch (code)
    {
    case 920: /* Dec 2024: DT_BFLOAT16 */
    case 940: /* since 2025: DT_BFLOAT16 */
      *out = PRISM_DTYPE_BF16;
      return TRUE;
    case 921: /* Dec 2024: DT_FLOAT16 */
    case 941: /* since 2025: DT_FLOAT16 */
      *out = PRISM_DTYPE_F16;
      return TRUE;
    case 930: /* Dec 2024: DT_FLOAT32 (FP8 in later enums, which the search never uses) */
    case 950: /* since 2025: DT_FLOAT32 */
      *out = PRISM_DTYPE_F32;
      return TRUE;
    default:
      return FALSE;
    }
}

/* Column-major device tensors would need strides our IR does not have. */
static gboolean
layout_ok (JsonNode *node)
{
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    return g_strcmp0 (json_node_get_string (node), "DmemColumnMajor") != 0;
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_INT64)
    return json_node_get_int (node) != 101;
  return TRUE;
}

static gboolean
read_tensor (JsonNode *node, const char *where, const char *field, MTensor *t, GError **error)
{
  g_autofree char *f_guid = g_strdup_printf ("%s.guid", field);
  g_autofree char *f_nd = g_strdup_printf ("%s.num_dims", field);
  g_autofree char *f_dim = g_strdup_printf ("%s.dim", field);
  JsonObject *obj = read_object (node, where, field, error);
  JsonNode *member;
  JsonArray *dims;
  gint64 v;

  memset (t, 0, sizeof *t);
  if (obj == NULL || !read_member_int (obj, "guid", where, f_guid, G_MININT64, G_MAXINT64, &t->guid, error) ||
      !read_member_int (obj, "num_dims", where, f_nd, 1, PRISM_MAX_DIMS, &v, error))
    return FALSE;
  t->ndims = (guint) v;
  if ((member = require (obj, "dim", where, f_dim, error)) == NULL ||
      (dims = read_array (member, where, f_dim, error)) == NULL)
    return FALSE;
  if (json_array_get_length (dims) < t->ndims || json_array_get_length (dims) > PRISM_MAX_DIMS)
    return fail (error, PRISM_ERROR_INVALID_GRAPH, where, f_dim, "has %u entries for %u dims (at most %d)",
                 json_array_get_length (dims), t->ndims, PRISM_MAX_DIMS);
  for (guint d = 0; d < t->ndims; d++)
    {
      g_autofree char *f = g_strdup_printf ("%s.dim[%u]", field, d);
      if (!read_int (json_array_get_element (dims, d), where, f, 1, PRISM_DIM_MAX, &t->dims[d], error))
        return FALSE;
    }
  /* Mirage pads the array past num_dims: with sizes (0 or 1 in its files),
   * never anything else. */
  for (guint d = t->ndims; d < json_array_get_length (dims); d++)
    {
      g_autofree char *f = g_strdup_printf ("%s.dim[%u]", field, d);
      gint64 pad;

      if (!read_int (json_array_get_element (dims, d), where, f, 0, PRISM_DIM_MAX, &pad, error))
        return FALSE;
    }
  if ((member = json_object_get_member (obj, "data_type")) != NULL)
    {
      g_autofree char *f = g_strdup_printf ("%s.data_type", field);
      if (!read_int (member, where, f, G_MININT64, G_MAXINT64, &v, error))
        return FALSE;
      if (!dtype_from_mirage (v, &t->dtype))
        return fail (error, PRISM_ERROR_UNSUPPORTED, where, f,
                     "data type %" G_GINT64_FORMAT " is not one we read (f16: 921 or 941, bf16: 920 or 940, "
                     "f32: 930 or 950)", v);
      t->has_dtype = TRUE;
    }
  if ((member = json_object_get_member (obj, "layout")) != NULL && !layout_ok (member))
    {
      g_autofree char *f = g_strdup_printf ("%s.layout", field);
      return fail (error, PRISM_ERROR_UNSUPPORTED, where, f, "column-major tensors are not supported");
    }
  if ((member = json_object_get_member (obj, "after_accum")) != NULL)
    {
      if (!JSON_NODE_HOLDS_VALUE (member) || json_node_get_value_type (member) != G_TYPE_BOOLEAN)
        {
          g_autofree char *f = g_strdup_printf ("%s.after_accum", field);
          return fail (error, PRISM_ERROR_PARSE, where, f, "is %s, not a boolean", node_kind (member));
        }
      t->has_after_accum = TRUE;
      t->after_accum = json_node_get_boolean (member);
    }
  return TRUE;
}

static char *
shape_text (guint ndims, const gint64 *dims)
{
  GString *s = g_string_new ("[");

  for (guint d = 0; d < ndims; d++)
    g_string_append_printf (s, "%s%" G_GINT64_FORMAT, d ? ", " : "", dims[d]);
  g_string_append_c (s, ']');
  return g_string_free (s, FALSE);
}

/* The file states every tensor's shape: it must be the one the builders
 * inferred (and, in a block, the same side of the loop). */
static gboolean
check_tensor (const PrismGraph *g, guint id, const MTensor *t, const char *where, const char *field,
              GError **error)
{
  const PrismTensor *pt = prism_graph_tensor (g, id);
  gint64 shape[PRISM_MAX_DIMS];
  gboolean same = pt->ndims == t->ndims && prism_tensor_get_shape (pt, shape);

  for (guint d = 0; same && d < t->ndims; d++)
    same = shape[d] == t->dims[d];
  if (!same)
    {
      g_autofree char *f = g_strdup_printf ("%s.dim", field);
      g_autofree char *stated = shape_text (t->ndims, t->dims);
      g_autofree char *inferred = prism_tensor_shape_to_string (g, pt);
      return fail (error, PRISM_ERROR_INVALID_GRAPH, where, f, "the file says %s, the op computes %s", stated,
                   inferred);
    }
  /* A stated data type is checked like a stated shape: the file's must be
   * what the op computes, not ignored. */
  if (t->has_dtype && t->dtype != pt->dtype)
    {
      g_autofree char *f = g_strdup_printf ("%s.data_type", field);
      return fail (error, PRISM_ERROR_INVALID_GRAPH, where, f, "the file says %s, the op computes %s",
                   prism_dtype_to_string (t->dtype), prism_dtype_to_string (pt->dtype));
    }
  if (t->has_after_accum && t->after_accum != pt->after_accum)
    {
      g_autofree char *f = g_strdup_printf ("%s.after_accum", field);
      return fail (error, PRISM_ERROR_INVALID_GRAPH, where, f, "the file says %s, but the tensor is %s",
                   t->after_accum ? "true" : "false",
                   pt->after_accum ? "after an accumulator" : "inside the loop");
    }
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* One level (kernel or block): guid → tensor id */

typedef struct
{
  PrismGraph *g;
  GHashTable *ids;   /* gint64* guid → tensor id + 1 */
  gint64 reduction_dimx;
} Level;

static void
level_init (Level *lv, PrismGraph *g)
{
  lv->g = g;
  lv->ids = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  lv->reduction_dimx = 64;
}

static void
level_clear (Level *lv)
{
  g_clear_pointer (&lv->ids, g_hash_table_unref);
}

static gboolean
level_lookup (Level *lv, gint64 guid, guint *id)
{
  gpointer v = g_hash_table_lookup (lv->ids, &guid);

  if (v == NULL)
    return FALSE;
  *id = GPOINTER_TO_UINT (v) - 1;
  return TRUE;
}

static gboolean
level_register (Level *lv, const MTensor *t, guint id, const char *where, const char *field, GError **error)
{
  g_autofree char *f = g_strdup_printf ("%s.guid", field);

  if (g_hash_table_contains (lv->ids, &t->guid))
    return fail (error, PRISM_ERROR_INVALID_GRAPH, where, f, "tensor %" G_GINT64_FORMAT " is produced twice",
                 t->guid);
  g_hash_table_insert (lv->ids, g_memdup2 (&t->guid, sizeof t->guid), GUINT_TO_POINTER (id + 1));
  return TRUE;
}

/* Reads "input_tensors": each must be produced by an earlier op of the level
 * and have the shape it was produced with. */
static gboolean
read_inputs (Level *lv, JsonObject *obj, const char *where, guint min, guint max, guint *ids, guint *n,
             GError **error)
{
  JsonArray *array = read_member_array (obj, "input_tensors", where, error);

  if (array == NULL)
    return FALSE;
  *n = json_array_get_length (array);
  if (*n < min || *n > max)
    {
      if (min == max)
        return fail (error, PRISM_ERROR_INVALID_GRAPH, where, "input_tensors", "has %u tensors; the op takes %u",
                     *n, min);
      return fail (error, PRISM_ERROR_INVALID_GRAPH, where, "input_tensors",
                   "has %u tensors; the op takes %u to %u", *n, min, max);
    }
  for (guint i = 0; i < *n; i++)
    {
      g_autofree char *field = g_strdup_printf ("input_tensors[%u]", i);
      MTensor t;

      if (!read_tensor (json_array_get_element (array, i), where, field, &t, error))
        return FALSE;
      if (!level_lookup (lv, t.guid, &ids[i]))
        {
          g_autofree char *f = g_strdup_printf ("%s.guid", field);
          return fail (error, PRISM_ERROR_INVALID_GRAPH, where, f,
                       "tensor %" G_GINT64_FORMAT " is not produced by an earlier op", t.guid);
        }
      if (!check_tensor (lv->g, ids[i], &t, where, field, error))
        return FALSE;
    }
  return TRUE;
}

/* Reads "output_tensors", which must hold exactly @n tensors, checks them
 * against @ids and registers their guids. */
static gboolean
register_outputs (Level *lv, JsonObject *obj, const char *where, const guint *ids, guint n, GError **error)
{
  JsonArray *array = read_member_array (obj, "output_tensors", where, error);

  if (array == NULL)
    return FALSE;
  if (json_array_get_length (array) != n)
    return fail (error, PRISM_ERROR_INVALID_GRAPH, where, "output_tensors", "has %u tensors; the op produces %u",
                 json_array_get_length (array), n);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *field = g_strdup_printf ("output_tensors[%u]", i);
      MTensor t;

      if (!read_tensor (json_array_get_element (array, i), where, field, &t, error) ||
          !check_tensor (lv->g, ids[i], &t, where, field, error) ||
          !level_register (lv, &t, ids[i], where, field, error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
no_outputs (JsonObject *obj, const char *where, GError **error)
{
  JsonNode *node = json_object_get_member (obj, "output_tensors");
  JsonArray *array;

  if (node == NULL)
    return TRUE;
  if ((array = read_array (node, where, "output_tensors", error)) == NULL)
    return FALSE;
  if (json_array_get_length (array) != 0)
    return fail (error, PRISM_ERROR_INVALID_GRAPH, where, "output_tensors",
                 "has %u tensors; an output op produces none", json_array_get_length (array));
  return TRUE;
}

/* Strides must describe the contiguous row-major layout: our IR has no
 * others. */
static gboolean
check_strides (JsonObject *obj, const char *name, const PrismTensor *t, const char *where, GError **error)
{
  JsonNode *node = json_object_get_member (obj, name);
  gint64 shape[PRISM_MAX_DIMS], expect = 1;
  JsonArray *array;

  if (node == NULL)
    return TRUE;
  if ((array = read_array (node, where, name, error)) == NULL)
    return FALSE;
  prism_tensor_get_shape (t, shape);
  if (json_array_get_length (array) != t->ndims)
    return fail (error, PRISM_ERROR_UNSUPPORTED, where, name, "has %u strides for a rank-%u tensor",
                 json_array_get_length (array), t->ndims);
  for (guint k = t->ndims; k-- > 0;)
    {
      g_autofree char *f = g_strdup_printf ("%s[%u]", name, k);
      gint64 s;

      if (!read_int (json_array_get_element (array, k), where, f, G_MININT64, G_MAXINT64, &s, error))
        return FALSE;
      if (s != expect && shape[k] != 1)
        return fail (error, PRISM_ERROR_UNSUPPORTED, where, f,
                     "%" G_GINT64_FORMAT " is not the contiguous row-major stride %" G_GINT64_FORMAT
                     "; only contiguous tensors are read", s, expect);
      expect *= shape[k];
    }
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* Operator names */

typedef struct
{
  const char *name;
  PrismOpKind kind;
  int dim;          /* SUM, CONCAT: the data dim */
} OpName;

static const OpName kn_ops[] = {
  { "kn_matmul_op", PRISM_OP_MATMUL, -1 },
  { "kn_exp_op", PRISM_OP_EXP, -1 },
  { "kn_square_op", PRISM_OP_SQUARE, -1 },
  { "kn_sqrt_op", PRISM_OP_SQRT, -1 },
  { "kn_silu_op", PRISM_OP_SILU, -1 },
  { "kn_gelu_op", PRISM_OP_GELU, -1 },
  { "kn_relu_op", PRISM_OP_RELU, -1 },
  { "kn_add_op", PRISM_OP_ADD, -1 },
  { "kn_mul_op", PRISM_OP_MUL, -1 },
  { "kn_div_op", PRISM_OP_DIV, -1 },
  { "kn_pow_op", PRISM_OP_POW, -1 },
  { "kn_reduction_0_op", PRISM_OP_SUM, 0 },
  { "kn_reduction_1_op", PRISM_OP_SUM, 1 },
  { "kn_reduction_2_op", PRISM_OP_SUM, 2 },
  { "kn_rms_norm_op", PRISM_OP_RMS_NORM, -1 },
};

/* Old (Dec 2024) and new names of the accumulators both appear. */
static const OpName tb_ops[] = {
  { "tb_matmul_op", PRISM_OP_MATMUL, -1 },
  { "tb_exp_op", PRISM_OP_EXP, -1 },
  { "tb_square_op", PRISM_OP_SQUARE, -1 },
  { "tb_sqrt_op", PRISM_OP_SQRT, -1 },
  { "tb_silu_op", PRISM_OP_SILU, -1 },
  { "tb_gelu_op", PRISM_OP_GELU, -1 },
  { "tb_relu_op", PRISM_OP_RELU, -1 },
  { "tb_add_op", PRISM_OP_ADD, -1 },
  { "tb_sub_op", PRISM_OP_SUB, -1 },
  { "tb_mul_op", PRISM_OP_MUL, -1 },
  { "tb_div_op", PRISM_OP_DIV, -1 },
  { "tb_pow_op", PRISM_OP_POW, -1 },
  { "tb_reduction_0_op", PRISM_OP_SUM, 0 },
  { "tb_reduction_1_op", PRISM_OP_SUM, 1 },
  { "tb_reduction_2_op", PRISM_OP_SUM, 2 },
  { "tb_rms_norm_op", PRISM_OP_RMS_NORM, -1 },
  { "tb_concat_0_op", PRISM_OP_CONCAT, 0 },
  { "tb_concat_1_op", PRISM_OP_CONCAT, 1 },
  { "tb_concat_2_op", PRISM_OP_CONCAT, 2 },
  { "tb_accum_nored_op", PRISM_OP_ACCUM, -1 },
  { "tb_forloop_accum_nored_op", PRISM_OP_ACCUM, -1 },
  { "tb_forloop_accum_no_red_op", PRISM_OP_ACCUM, -1 },
  { "tb_accum_red_ld_sum_op", PRISM_OP_ACCUM_SUM, -1 },
  { "tb_forloop_accum_red_ld_sum_op", PRISM_OP_ACCUM_SUM, -1 },
  { "tb_accum_red_ld_mean_op", PRISM_OP_ACCUM_MEAN, -1 },
  { "tb_forloop_accum_red_ld_mean_op", PRISM_OP_ACCUM_MEAN, -1 },
  { "tb_accum_red_ld_rms_op", PRISM_OP_ACCUM_RMS, -1 },
  { "tb_forloop_accum_red_ld_rms_op", PRISM_OP_ACCUM_RMS, -1 },
  { "tb_accum_redtox_ld_sum_op", PRISM_OP_ACCUM_SUM_TODIMX, -1 },
  { "tb_forloop_accum_redtox_ld_sum_op", PRISM_OP_ACCUM_SUM_TODIMX, -1 },
  { "tb_forloop_accum_max_op", PRISM_OP_ACCUM_MAX, -1 },
  { "tb_forloop_accum_no_red_rescale_op", PRISM_OP_ACCUM_RESCALE, -1 },
  { "tb_forloop_accum_red_ld_sum_rescale_op", PRISM_OP_ACCUM_SUM_RESCALE, -1 },
};

/* Mirage ops that exist but have no counterpart in our IR: refused with a
 * message that says so rather than "unknown". */
static const char * const unsupported_ops[] = {
  "kn_mul_scalar_op", "kn_sigmoid_op", "kn_clamp_op", "kn_log_op", "kn_concat_0_op", "kn_concat_1_op",
  "kn_concat_2_op", "kn_split_0_op", "kn_split_1_op", "kn_split_2_op", "kn_chunk_0_op", "kn_chunk_1_op",
  "kn_chunk_2_op", "kn_allreduce_op", "tb_mul_scalar_op", "tb_sigmoid_op", "tb_clamp_op", "tb_log_op",
  "tb_reduction_0_to_dimx_op", "tb_reduction_1_to_dimx_op", "tb_reduction_2_to_dimx_op",
  "tb_reduction_0_max_op", "tb_reduction_1_max_op", "tb_reduction_2_max_op", "tb_concat_then_matmul_op",
  "tb_split_0_op", "tb_split_1_op", "tb_split_2_op", "tb_customized_op", NULL
};

static const OpName *
lookup_op (const OpName *table, gsize n, const char *name)
{
  for (gsize i = 0; i < n; i++)
    if (g_str_equal (table[i].name, name))
      return &table[i];
  return NULL;
}

static gboolean
fail_op_type (GError **error, const char *where, const char *type, gboolean block)
{
  if (g_strv_contains (unsupported_ops, type))
    return fail (error, PRISM_ERROR_UNSUPPORTED, where, "op_type",
                 "“%s” has no counterpart in Prism's IR and is not supported", type);
  return fail (error, PRISM_ERROR_UNSUPPORTED, where, "op_type", "unknown %s op type “%s”",
               block ? "thread-block" : "kernel", type);
}

static gboolean
printable_name (const char *s)
{
  if (!g_utf8_validate (s, -1, NULL) || g_utf8_strlen (s, -1) > 64)
    return FALSE;
  for (const char *p = s; *p != '\0'; p = g_utf8_next_char (p))
    if (g_unichar_iscntrl (g_utf8_get_char (p)))
      return FALSE;
  return TRUE;
}

/* The op object and its "op_type"; @where gets "PREFIX op I (TYPE)". */
static JsonObject *
read_op_head (JsonNode *node, const char *prefix, guint index, const char **type, char **where, GError **error)
{
  g_autofree char *bare = g_strdup_printf ("%sop %u", prefix, index);
  JsonObject *obj = read_object (node, bare, NULL, error);
  JsonNode *member;

  if (obj == NULL)
    return NULL;
  if ((member = require (obj, "op_type", bare, "op_type", error)) == NULL)
    return NULL;
  if (!JSON_NODE_HOLDS_VALUE (member) || json_node_get_value_type (member) != G_TYPE_STRING)
    {
      fail (error, PRISM_ERROR_PARSE, bare, "op_type", "is %s, not a string", node_kind (member));
      return NULL;
    }
  *type = json_node_get_string (member);
  /* Names shown to people hold no control character. */
  if (!printable_name (*type))
    {
      fail (error, PRISM_ERROR_UNSUPPORTED, bare, "op_type", "is not an op type (at most 64 printable characters)");
      return NULL;
    }
  *where = g_strdup_printf ("%s (%s)", bare, *type);
  return obj;
}

/* ------------------------------------------------------------------------ */
/* Thread-block graphs */

/* Map entries name data dims of a rank-@ndims tensor; the builders would
 * say so too, but not in the file's words. */
static gboolean
check_map_range (const gint64 map[3], const char *name, guint ndims, const char *where, GError **error)
{
  static const char * const axes[3] = { "x", "y", "z" };

  for (guint a = 0; a < 3; a++)
    if (map[a] >= (gint64) ndims)
      {
        g_autofree char *field = g_strdup_printf ("%s.%s", name, axes[a]);
        return fail (error, PRISM_ERROR_INVALID_GRAPH, where, field,
                     "data dim %" G_GINT64_FORMAT " is out of range for a rank-%u tensor", map[a], ndims);
      }
  return TRUE;
}

typedef struct
{
  const guint *inputs;        /* kernel-level tensor ids of the customized op's inputs */
  const gint64 *input_guids;
  guint n_inputs;
  const PrismGraph *top;
  guint next_input;           /* TB input ops read the customized op's inputs in order */
  const gint64 *output_guids; /* the customized op's outputs, in order */
  guint n_outputs;
  guint next_output;
} Kernel;

static gboolean
read_tb_input (Level *lv, Kernel *k, JsonObject *obj, const char *where, GError **error)
{
  const PrismTensor *src;
  gint64 imap3[3], fmap;
  int imap[PRISM_MAX_GRID_DIMS];
  guint slot = k->next_input++;
  g_autoptr(GError) inner = NULL;
  JsonNode *member;
  MTensor dt;
  int id;

  if (slot >= k->n_inputs)
    return fail (error, PRISM_ERROR_INVALID_GRAPH, where, NULL,
                 "the kernel has %u inputs; this is thread-block input %u", k->n_inputs, slot);
  if ((member = json_object_get_member (obj, "dtensor")) != NULL)
    {
      if (!read_tensor (member, where, "dtensor", &dt, error))
        return FALSE;
      if (dt.guid != k->input_guids[slot])
        return fail (error, PRISM_ERROR_INVALID_GRAPH, where, "dtensor.guid",
                     "tensor %" G_GINT64_FORMAT " is not input %u of the kernel (tensor %" G_GINT64_FORMAT "); "
                     "thread-block inputs read the kernel's inputs in order",
                     dt.guid, slot, k->input_guids[slot]);
      if (!check_tensor (k->top, k->inputs[slot], &dt, where, "dtensor", error))
        return FALSE;
    }
  if (!read_int3 (obj, "input_map", where, -1, PRISM_MAX_DIMS - 1, imap3, error))
    return FALSE;
  if ((member = require (obj, "forloop_dim", where, "forloop_dim", error)) == NULL ||
      !read_int (member, where, "forloop_dim", -1, PRISM_MAX_DIMS - 1, &fmap, error))
    return FALSE;
  /* Axes left out of the grid (grid_rank()) have one block: no partition. */
  src = prism_graph_tensor (k->top, k->inputs[slot]);
  if (!check_map_range (imap3, "input_map", src->ndims, where, error))
    return FALSE;
  if (fmap >= (gint64) src->ndims)
    return fail (error, PRISM_ERROR_INVALID_GRAPH, where, "forloop_dim",
                 "data dim %" G_GINT64_FORMAT " is out of range for a rank-%u tensor", fmap, src->ndims);
  for (guint p = 0; p < PRISM_MAX_GRID_DIMS; p++)
    imap[p] = p < lv->g->grid_ndims ? (int) imap3[p] : PRISM_MAP_REPLICATE;
  id = prism_block_graph_add_input (lv->g, slot, src->ndims, src->dims, src->dtype, imap, (int) fmap, &inner);
  if (id < 0)
    return fail_builder (error, g_steal_pointer (&inner), where);
  {
    guint ids[1] = { (guint) id };
    return register_outputs (lv, obj, where, ids, 1, error);
  }
}

static gboolean
read_tb_output (Level *lv, Kernel *k, JsonObject *obj, const char *where, GError **error)
{
  gint64 omap3[3], fdim;
  int omap[PRISM_MAX_GRID_DIMS];
  guint slot = k->next_output++;
  g_autoptr(GError) inner = NULL;
  JsonNode *member;
  guint in[1], n;
  MTensor dt;
  int index;

  if (!read_inputs (lv, obj, where, 1, 1, in, &n, error) ||
      !read_int3 (obj, "output_map", where, -1, PRISM_MAX_DIMS - 1, omap3, error) ||
      !no_outputs (obj, where, error))
    return FALSE;
  if ((member = json_object_get_member (obj, "forloop_dim")) != NULL)
    {
      if (!read_int (member, where, "forloop_dim", -1, PRISM_MAX_DIMS - 1, &fdim, error))
        return FALSE;
      if (fdim != -1)
        return fail (error, PRISM_ERROR_UNSUPPORTED, where, "forloop_dim",
                     "%" G_GINT64_FORMAT ": outputs written at every iteration are not supported (only -1)", fdim);
    }
  if (slot >= k->n_outputs)
    return fail (error, PRISM_ERROR_INVALID_GRAPH, where, NULL,
                 "the kernel lists %u outputs; this is thread-block output %u", k->n_outputs, slot);
  if ((member = json_object_get_member (obj, "dtensor")) != NULL)
    {
      if (!read_tensor (member, where, "dtensor", &dt, error))
        return FALSE;
      if (dt.guid != k->output_guids[slot])
        return fail (error, PRISM_ERROR_INVALID_GRAPH, where, "dtensor.guid",
                     "tensor %" G_GINT64_FORMAT " is not output %u of the kernel (tensor %" G_GINT64_FORMAT ")",
                     dt.guid, slot, k->output_guids[slot]);
    }
  if (!check_map_range (omap3, "output_map", prism_graph_tensor (lv->g, in[0])->ndims, where, error))
    return FALSE;
  for (guint p = 0; p < PRISM_MAX_GRID_DIMS; p++)
    omap[p] = p < lv->g->grid_ndims ? (int) omap3[p] : PRISM_MAP_REPLICATE;
  index = prism_block_graph_add_output (lv->g, in[0], omap, &inner);
  if (index < 0)
    return fail_builder (error, g_steal_pointer (&inner), where);
  return TRUE;
}

static gboolean
read_compute_op (Level *lv, const OpName *name, JsonObject *obj, const char *where, GError **error)
{
  g_autoptr(GError) inner = NULL;
  guint in[2], n;
  int arity = prism_op_kind_arity (name->kind);
  PrismOpAttrs attrs;
  int index;

  if (!read_inputs (lv, obj, where, (guint) arity, (guint) arity, in, &n, error))
    return FALSE;
  prism_op_attrs_init (&attrs);
  if (name->dim >= 0)
    attrs.dim = name->dim;
  if (name->kind == PRISM_OP_ACCUM_SUM_TODIMX)
    attrs.dimx = (guint) lv->reduction_dimx;
  if (name->kind == PRISM_OP_RMS_NORM)
    {
      /* Mirage normalises over the trailing dims its normalized_shape names. */
      JsonNode *member = json_object_get_member (obj, "normalized_shape");
      JsonArray *shape;

      if (member != NULL)
        {
          if ((shape = read_array (member, where, "normalized_shape", error)) == NULL)
            return FALSE;
          if (json_array_get_length (shape) < 1 || json_array_get_length (shape) > PRISM_MAX_DIMS)
            return fail (error, PRISM_ERROR_INVALID_GRAPH, where, "normalized_shape", "has %u dims, not 1 to %d",
                         json_array_get_length (shape), PRISM_MAX_DIMS);
          attrs.norm_dims = json_array_get_length (shape);
        }
    }
  index = prism_graph_add_op (lv->g, name->kind, in, n, &attrs, &inner);
  if (index < 0)
    return fail_builder (error, g_steal_pointer (&inner), where);
  {
    const PrismOp *op = prism_graph_op (lv->g, (guint) index);
    return register_outputs (lv, obj, where, op->outputs, op->n_outputs, error);
  }
}

static gboolean
read_tb_op (Level *lv, Kernel *k, JsonNode *node, const char *prefix, guint index, GError **error)
{
  g_autofree char *where = NULL;
  const char *type = NULL;
  JsonObject *obj = read_op_head (node, prefix, index, &type, &where, error);
  const OpName *name;

  if (obj == NULL)
    return FALSE;
  if (g_str_equal (type, "tb_input_op"))
    return read_tb_input (lv, k, obj, where, error);
  if (g_str_equal (type, "tb_output_op"))
    return read_tb_output (lv, k, obj, where, error);
  if ((name = lookup_op (tb_ops, G_N_ELEMENTS (tb_ops), type)) == NULL)
    return fail_op_type (error, where, type, TRUE);
  return read_compute_op (lv, name, obj, where, error);
}

/* Grid axes after the last one of more than one block are left out: a
 * partition by 1 is no partition, and (256) reads better than (256, 1, 1). */
static guint
grid_rank (const gint64 grid[3])
{
  guint n = 1;

  for (guint p = 0; p < 3; p++)
    if (grid[p] > 1)
      n = p + 1;
  return n;
}

static PrismGraph *
read_bgraph (Kernel *k, JsonObject *op, const char *where, GError **error)
{
  g_autofree char *prefix = g_strdup_printf ("%s: bgraph ", where);
  g_autoptr(PrismGraph) body = NULL;
  gint64 grid[3], threads[3], forloop, dimx = 64;
  JsonNode *member = require (op, "bgraph", where, "bgraph", error);
  JsonObject *obj;
  JsonArray *ops;
  Level lv;
  gboolean ok = TRUE;

  if (member == NULL || (obj = read_object (member, where, "bgraph", error)) == NULL)
    return NULL;
  {
    g_autofree char *bwhere = g_strdup_printf ("%s: bgraph", where);
    if (!read_int3 (obj, "grid_dim", bwhere, 1, 1 << 30, grid, error) ||
        !read_member_int (obj, "forloop_range", bwhere, "forloop_range", 1, G_MAXINT32, &forloop, error))
      return NULL;
    /* CUDA's limits, checked when the file is read (as export does), so
     * that check, run and bench do not accept what export refuses. */
    if (grid[1] > PRISM_MIRAGE_MAX_GRID_YZ || grid[2] > PRISM_MIRAGE_MAX_GRID_YZ)
      {
        fail (error, PRISM_ERROR_UNSUPPORTED, bwhere, "grid_dim",
              "y = %" G_GINT64_FORMAT " and z = %" G_GINT64_FORMAT "; CUDA grids have at most %d blocks "
              "along y and z", grid[1], grid[2], PRISM_MIRAGE_MAX_GRID_YZ);
        return NULL;
      }
    if (json_object_get_member (obj, "block_dim") == NULL)
      threads[0] = 128, threads[1] = threads[2] = 1;
    else if (!read_int3 (obj, "block_dim", bwhere, 1, 1024, threads, error))
      return NULL;
    if (threads[0] * threads[1] * threads[2] > 1024 || (threads[0] * threads[1] * threads[2]) % 32 != 0)
      {
        fail (error, PRISM_ERROR_UNSUPPORTED, bwhere, "block_dim",
              "%" G_GINT64_FORMAT " threads; a block has a multiple of 32 threads, at most 1024",
              threads[0] * threads[1] * threads[2]);
        return NULL;
      }
    if ((member = json_object_get_member (obj, "reduction_dimx")) != NULL &&
        !read_int (member, bwhere, "reduction_dimx", 1, PRISM_DIM_MAX, &dimx, error))
      return NULL;
    if ((ops = read_member_array (obj, "operators", bwhere, error)) == NULL)
      return NULL;
    if (json_array_get_length (ops) > 65536)
      {
        fail (error, PRISM_ERROR_LIMIT, bwhere, "operators", "has %u operators, more than 65536",
              json_array_get_length (ops));
        return NULL;
      }
  }

  body = prism_block_graph_new_const (grid_rank (grid), grid, (guint) (threads[0] * threads[1] * threads[2]),
                                      forloop);
  level_init (&lv, body);
  lv.reduction_dimx = dimx;
  for (guint i = 0; i < json_array_get_length (ops) && ok; i++)
    ok = read_tb_op (&lv, k, json_array_get_element (ops, i), prefix, i, error);
  level_clear (&lv);
  if (!ok)
    return NULL;
  if (k->next_input != k->n_inputs)
    {
      fail (error, PRISM_ERROR_INVALID_GRAPH, where, "bgraph.operators",
            "reads %u of the kernel's %u inputs; each input needs its tb_input_op", k->next_input, k->n_inputs);
      return NULL;
    }
  return g_steal_pointer (&body);
}

/* ------------------------------------------------------------------------ */
/* Kernel graphs */

static gboolean
read_kn_input (Level *lv, JsonObject *obj, const char *where, guint *n_inputs, GError **error)
{
  g_autoptr(GError) inner = NULL;
  g_autofree char *name = g_strdup_printf ("in%u", *n_inputs);
  JsonArray *array = read_member_array (obj, "output_tensors", where, error);
  MTensor t;
  int id;

  if (array == NULL)
    return FALSE;
  if (json_array_get_length (array) != 1)
    return fail (error, PRISM_ERROR_INVALID_GRAPH, where, "output_tensors", "has %u tensors; an input has 1",
                 json_array_get_length (array));
  if (!read_tensor (json_array_get_element (array, 0), where, "output_tensors[0]", &t, error))
    return FALSE;
  if (!t.has_dtype)
    return fail (error, PRISM_ERROR_PARSE, where, "output_tensors[0].data_type", "is missing");
  /* Inputs are matched with a reference program's by their order. */
  id = prism_graph_add_input (lv->g, name, t.ndims, t.dims, t.dtype, &inner);
  if (id < 0)
    return fail_builder (error, g_steal_pointer (&inner), where);
  (*n_inputs)++;
  return level_register (lv, &t, (guint) id, where, "output_tensors[0]", error) &&
         check_strides (obj, "input_strides", prism_graph_tensor (lv->g, (guint) id), where, error);
}

static gboolean
read_kn_output (Level *lv, JsonObject *obj, const char *where, guint *n_outputs, GError **error)
{
  g_autoptr(GError) inner = NULL;
  g_autofree char *name = g_strdup_printf ("out%u", *n_outputs);
  guint in[1], n;

  if (!read_inputs (lv, obj, where, 1, 1, in, &n, error) || !no_outputs (obj, where, error) ||
      !check_strides (obj, "output_strides", prism_graph_tensor (lv->g, in[0]), where, error))
    return FALSE;
  if (prism_graph_add_output (lv->g, in[0], name, &inner) < 0)
    return fail_builder (error, g_steal_pointer (&inner), where);
  (*n_outputs)++;
  return TRUE;
}

static gboolean
read_kn_customized (Level *lv, JsonObject *obj, const char *where, GError **error)
{
  guint in[PRISM_MAX_OP_INPUTS], n;
  gint64 in_guids[PRISM_MAX_OP_INPUTS], out_guids[PRISM_MAX_OP_OUTPUTS];
  g_autoptr(PrismGraph) body = NULL;
  g_autoptr(GError) inner = NULL;
  JsonArray *inputs, *outputs;
  Kernel k = { 0, };
  int index;

  if (!read_inputs (lv, obj, where, 1, PRISM_MAX_OP_INPUTS, in, &n, error))
    return FALSE;
  inputs = json_object_get_array_member (obj, "input_tensors");
  for (guint i = 0; i < n; i++)
    in_guids[i] = json_object_get_int_member (json_array_get_object_element (inputs, i), "guid");
  if ((outputs = read_member_array (obj, "output_tensors", where, error)) == NULL)
    return FALSE;
  if (json_array_get_length (outputs) < 1 || json_array_get_length (outputs) > PRISM_MAX_OP_OUTPUTS)
    return fail (error, PRISM_ERROR_INVALID_GRAPH, where, "output_tensors", "has %u tensors, not 1 to %d",
                 json_array_get_length (outputs), PRISM_MAX_OP_OUTPUTS);
  for (guint i = 0; i < json_array_get_length (outputs); i++)
    {
      g_autofree char *field = g_strdup_printf ("output_tensors[%u]", i);
      MTensor t;

      if (!read_tensor (json_array_get_element (outputs, i), where, field, &t, error))
        return FALSE;
      out_guids[i] = t.guid;
    }

  k.inputs = in;
  k.input_guids = in_guids;
  k.n_inputs = n;
  k.top = lv->g;
  k.output_guids = out_guids;
  k.n_outputs = json_array_get_length (outputs);
  if ((body = read_bgraph (&k, obj, where, error)) == NULL)
    return FALSE;
  index = prism_graph_add_kernel (lv->g, in, n, body, &inner);
  if (index < 0)
    return fail_builder (error, g_steal_pointer (&inner), where);
  {
    const PrismOp *op = prism_graph_op (lv->g, (guint) index);
    return register_outputs (lv, obj, where, op->outputs, op->n_outputs, error);
  }
}

static gboolean
read_kn_op (Level *lv, JsonNode *node, const char *prefix, guint index, guint *n_inputs, guint *n_outputs,
            GError **error)
{
  g_autofree char *where = NULL;
  const char *type = NULL;
  JsonObject *obj = read_op_head (node, prefix, index, &type, &where, error);
  const OpName *name;

  if (obj == NULL)
    return FALSE;
  if (g_str_equal (type, "kn_input_op"))
    return read_kn_input (lv, obj, where, n_inputs, error);
  if (g_str_equal (type, "kn_output_op"))
    return read_kn_output (lv, obj, where, n_outputs, error);
  if (g_str_equal (type, "kn_customized_op"))
    return read_kn_customized (lv, obj, where, error);
  if ((name = lookup_op (kn_ops, G_N_ELEMENTS (kn_ops), type)) == NULL)
    return fail_op_type (error, where, type, FALSE);
  return read_compute_op (lv, name, obj, where, error);
}

static PrismGraph *
read_mugraph (JsonNode *node, guint index, guint *n_ops, GError **error)
{
  g_autofree char *prefix = g_strdup_printf ("graph %u: ", index);
  g_autofree char *where = g_strdup_printf ("graph %u", index);
  g_autofree char *name = g_strdup_printf ("mirage_graph_%u", index);
  g_autoptr(PrismGraph) g = NULL;
  guint n_inputs = 0, n_outputs = 0;
  JsonArray *ops;
  Level lv;
  gboolean ok = TRUE;

  *n_ops = 0;
  if (!JSON_NODE_HOLDS_ARRAY (node))
    {
      fail (error, PRISM_ERROR_PARSE, where, NULL, "is %s, not a list of operators", node_kind (node));
      return NULL;
    }
  ops = json_node_get_array (node);
  *n_ops = json_array_get_length (ops);
  if (*n_ops > 65536)
    {
      fail (error, PRISM_ERROR_LIMIT, where, NULL, "has %u operators, more than 65536", *n_ops);
      return NULL;
    }

  g = prism_graph_new ();
  prism_graph_set_name (g, name, "A muGraph saved by Mirage");
  level_init (&lv, g);
  for (guint i = 0; i < *n_ops && ok; i++)
    ok = read_kn_op (&lv, json_array_get_element (ops, i), prefix, i, &n_inputs, &n_outputs, error);
  level_clear (&lv);
  if (!ok)
    return NULL;
  if (n_outputs == 0)
    {
      fail (error, PRISM_ERROR_INVALID_GRAPH, where, NULL, "has no kn_output_op");
      return NULL;
    }
  if (!prism_graph_validate (g, error))
    {
      g_prefix_error (error, "%s: ", where);
      return NULL;
    }
  return g_steal_pointer (&g);
}

/* ------------------------------------------------------------------------ */
/* Files */

GPtrArray *
prism_mirage_load_from_data (const char *data, gssize length, GError **error)
{
  gsize len = length < 0 ? strlen (data) : (gsize) length;
  g_autoptr(GPtrArray) graphs = NULL;
  g_autoptr(JsonNode) root = NULL;
  JsonArray *list;
  guint n;

  root = prism_json_parse (data, len, prism_json_limits_for (PRISM_JSON_GRAPH), error);
  if (root == NULL)
    return NULL;
  if (!JSON_NODE_HOLDS_ARRAY (root))
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_PARSE,
                   "not a Mirage muGraph file: the document is %s, not a list of muGraphs", node_kind (root));
      return NULL;
    }
  list = json_node_get_array (root);
  n = json_array_get_length (list);
  if (n == 0)
    {
      g_set_error_literal (error, PRISM_ERROR, PRISM_ERROR_INVALID_GRAPH, "the list holds no muGraph");
      return NULL;
    }
  if (n > PRISM_MIRAGE_MAX_GRAPHS)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_LIMIT, "the list holds %u muGraphs, more than %d", n,
                   PRISM_MIRAGE_MAX_GRAPHS);
      return NULL;
    }

  graphs = g_ptr_array_new_with_free_func ((GDestroyNotify) prism_mirage_graph_free);
  for (guint i = 0; i < n; i++)
    {
      PrismMirageGraph *m = g_new0 (PrismMirageGraph, 1);

      m->index = i;
      m->graph = read_mugraph (json_array_get_element (list, i), i, &m->n_ops, &m->error);
      g_ptr_array_add (graphs, m);
    }
  return g_steal_pointer (&graphs);
}

GPtrArray *
prism_mirage_load (const char *path, GError **error)
{
  g_autofree char *data = NULL;
  GPtrArray *graphs;
  gsize len;

  data = prism_json_read_file (path, PRISM_JSON_GRAPH_MAX_SIZE, &len, error);
  if (data == NULL)
    return NULL;
  graphs = prism_mirage_load_from_data (data, (gssize) len, error);
  if (graphs == NULL && error != NULL && *error != NULL && !g_str_has_prefix ((*error)->message, path))
    g_prefix_error (error, "%s: ", path);
  return graphs;
}
