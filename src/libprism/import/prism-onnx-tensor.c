/* prism-onnx-tensor.c — shapes, types and small values of ONNX tensors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "prism-error.h"
#include "prism-onnx-import-private.h"

/* TensorProto.DataType numbers of onnx.proto. */
enum
{
  ELEM_FLOAT = 1, ELEM_UINT8 = 2, ELEM_INT8 = 3, ELEM_UINT16 = 4, ELEM_INT16 = 5, ELEM_INT32 = 6,
  ELEM_INT64 = 7, ELEM_STRING = 8, ELEM_BOOL = 9, ELEM_FLOAT16 = 10, ELEM_DOUBLE = 11,
  ELEM_UINT32 = 12, ELEM_UINT64 = 13, ELEM_COMPLEX64 = 14, ELEM_COMPLEX128 = 15, ELEM_BFLOAT16 = 16,
};

gboolean
prism_onnx_dtype_from_elem (gint32 elem_type, PrismDtype *out)
{
  switch (elem_type)
    {
    case ELEM_FLOAT:
      *out = PRISM_DTYPE_F32;
      return TRUE;
    case ELEM_FLOAT16:
      *out = PRISM_DTYPE_F16;
      return TRUE;
    case ELEM_BFLOAT16:
      *out = PRISM_DTYPE_BF16;
      return TRUE;
    default:
      return FALSE;
    }
}

const char *
prism_onnx_elem_type_name (gint32 elem_type)
{
  static const char *const names[] = {
    "undefined", "float", "uint8", "int8", "uint16", "int16", "int32", "int64", "string", "bool",
    "float16", "double", "uint32", "uint64", "complex64", "complex128", "bfloat16",
  };

  if (elem_type >= 0 && (gsize) elem_type < G_N_ELEMENTS (names))
    return names[elem_type];
  return "an unknown type";
}

/* IEEE half and bfloat16 bits as a double. */
static double
half_to_double (guint16 h)
{
  int exponent = (h >> 10) & 0x1f;
  double mantissa = h & 0x3ff;
  double v;

  if (exponent == 0)
    v = ldexp (mantissa, -24);
  else if (exponent == 31)
    v = mantissa == 0 ? INFINITY : NAN;
  else
    v = ldexp (mantissa + 1024, exponent - 25);
  return (h & 0x8000) ? -v : v;
}

static double
bf16_to_double (guint16 b)
{
  guint32 bits = (guint32) b << 16;
  float f;

  memcpy (&f, &bits, sizeof f);
  return f;
}

/* Element @i of little-endian raw data of @size bytes per element. */
static double
raw_element (const guint8 *raw, gint32 elem_type, gsize i)
{
  guint64 bits = 0;
  gsize size = elem_type == ELEM_FLOAT16 || elem_type == ELEM_BFLOAT16 ? 2
               : elem_type == ELEM_INT64 || elem_type == ELEM_DOUBLE ? 8 : 4;

  for (gsize b = 0; b < size; b++)
    bits |= (guint64) raw[i * size + b] << (8 * b);
  switch (elem_type)
    {
    case ELEM_FLOAT:
      {
        guint32 u = (guint32) bits;
        float f;
        memcpy (&f, &u, sizeof f);
        return f;
      }
    case ELEM_DOUBLE:
      {
        double d;
        memcpy (&d, &bits, sizeof d);
        return d;
      }
    case ELEM_INT64:
      return (double) (gint64) bits;
    case ELEM_INT32:
      return (double) (gint32) (guint32) bits;
    case ELEM_FLOAT16:
      return half_to_double ((guint16) bits);
    default:
      return bf16_to_double ((guint16) bits);
    }
}

static gsize
raw_size (gint32 elem_type)
{
  switch (elem_type)
    {
    case ELEM_FLOAT16:
    case ELEM_BFLOAT16:
      return 2;
    case ELEM_FLOAT:
    case ELEM_INT32:
      return 4;
    case ELEM_INT64:
    case ELEM_DOUBLE:
      return 8;
    default:
      return 0;
    }
}

/* The values of a tensor of @n elements from its typed field or its raw
 * data; FALSE for a type whose values the reader never needs. */
static gboolean
read_values (const Onnx__TensorProto *t, gsize n, PrismOnnxValue *v, const char *what, GError **error)
{
  gint32 type = t->data_type;
  gsize typed = 0;

  if (raw_size (type) == 0)
    return TRUE;
  if (t->has_raw_data)
    {
      if (t->raw_data.len != n * raw_size (type))
        {
          g_set_error (error, PRISM_ERROR, PRISM_ERROR_PARSE,
                       "%s: raw_data holds %" G_GSIZE_FORMAT " bytes for %" G_GSIZE_FORMAT " elements of %s", what,
                       t->raw_data.len, n, prism_onnx_elem_type_name (type));
          return FALSE;
        }
      for (gsize i = 0; i < n; i++)
        v->values[i] = raw_element (t->raw_data.data, type, i);
      v->n_values = n;
      v->has_values = TRUE;
      return TRUE;
    }
  typed = type == ELEM_FLOAT ? t->n_float_data
          : type == ELEM_DOUBLE ? t->n_double_data
          : type == ELEM_INT64 ? t->n_int64_data : t->n_int32_data;
  if (typed != n)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_PARSE,
                   "%s: holds %" G_GSIZE_FORMAT " values for %" G_GSIZE_FORMAT " elements", what, typed, n);
      return FALSE;
    }
  for (gsize i = 0; i < n; i++)
    switch (type)
      {
      case ELEM_FLOAT:
        v->values[i] = t->float_data[i];
        break;
      case ELEM_DOUBLE:
        v->values[i] = t->double_data[i];
        break;
      case ELEM_INT64:
        v->values[i] = (double) t->int64_data[i];
        break;
      case ELEM_INT32:
        v->values[i] = t->int32_data[i];
        break;
      case ELEM_FLOAT16:
        v->values[i] = half_to_double ((guint16) t->int32_data[i]);
        break;
      default:
        v->values[i] = bf16_to_double ((guint16) t->int32_data[i]);
        break;
      }
  v->n_values = n;
  v->has_values = TRUE;
  return TRUE;
}

/* Data in another file: the model's own bytes do not hold it. */
static gboolean
refuse_external (const Onnx__TensorProto *t, const char *what, GError **error)
{
  const char *location = NULL;

  for (gsize i = 0; i < t->n_external_data; i++)
    if (t->external_data[i]->key != NULL && strcmp (t->external_data[i]->key, "location") == 0)
      location = t->external_data[i]->value;
  if (location != NULL)
    {
      g_autofree char *clean = prism_onnx_clean_name (location, 256);
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED,
                   "%s: its data is stored outside the model (external data in “%s”), which is not read; "
                   "save the model with its data inside (onnx.save_model(…, save_as_external_data=False))",
                   what, clean);
    }
  else
    g_set_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED,
                 "%s: its data is stored outside the model (external data), which is not read; save the "
                 "model with its data inside (onnx.save_model(…, save_as_external_data=False))", what);
  return FALSE;
}

gboolean
prism_onnx_tensor_describe (const Onnx__TensorProto *t, PrismOnnxValue *v, const char *what, GError **error)
{
  guint64 n = 1;

  if ((t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
      || t->n_external_data > 0)
    return refuse_external (t, what, error);
  if (t->segment != NULL)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED, "%s: a segment of a tensor is not read", what);
      return FALSE;
    }
  if (t->n_dims > PRISM_MAX_DIMS)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED,
                   "%s: rank %" G_GSIZE_FORMAT "; the program format has tensors of rank 1 to %d", what, t->n_dims,
                   PRISM_MAX_DIMS);
      return FALSE;
    }
  v->ndims = t->n_dims;
  for (gsize i = 0; i < t->n_dims; i++)
    {
      if (t->dims[i] < 1 || t->dims[i] > PRISM_DIM_MAX)
        {
          g_set_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED,
                       "%s: dim %" G_GSIZE_FORMAT " is %" G_GINT64_FORMAT "; sizes are 1 to %" G_GINT64_FORMAT, what, i,
                       t->dims[i], PRISM_DIM_MAX);
          return FALSE;
        }
      v->dims[i] = t->dims[i];
      /* Saturated (only whether n is small matters): 2^32 · 2^31 fits. */
      n = MIN (n * (guint64) t->dims[i], (guint64) G_MAXUINT32 + 1);
    }
  v->elem_type = t->data_type;
  v->is_float = prism_onnx_dtype_from_elem (t->data_type, &v->dtype);
  if (n <= PRISM_ONNX_MAX_VALUES)
    return read_values (t, (gsize) n, v, what, error);
  return TRUE;
}
