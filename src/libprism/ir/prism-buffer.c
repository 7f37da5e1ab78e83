/* prism-buffer.c — dense tensors of doubles
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "prism-buffer.h"
#include "prism-error.h"

gboolean
prism_buffer_numel_checked (guint ndims, const gint64 *dims, gint64 *numel)
{
  gint64 n = 1, bytes;

  for (guint i = 0; i < ndims; i++)
    if (dims[i] <= 0 || __builtin_mul_overflow (n, dims[i], &n))
      return FALSE;
  if (__builtin_mul_overflow (n, (gint64) sizeof (double), &bytes) || (guint64) bytes > G_MAXSIZE)
    return FALSE;
  *numel = n;
  return TRUE;
}

static char *
dims_to_string (guint ndims, const gint64 *dims)
{
  GString *s = g_string_new ("[");

  for (guint i = 0; i < ndims; i++)
    g_string_append_printf (s, "%s%" G_GINT64_FORMAT, i ? ", " : "", dims[i]);
  g_string_append_c (s, ']');
  return g_string_free (s, FALSE);
}

PrismBuffer *
prism_buffer_try_new (guint ndims, const gint64 *dims, GError **error)
{
  g_autofree PrismBuffer *b = NULL;
  gint64 numel;

  g_return_val_if_fail (ndims >= 1 && ndims <= PRISM_MAX_DIMS, NULL);
  for (guint i = 0; i < ndims; i++)
    g_return_val_if_fail (dims[i] > 0, NULL);
  if (!prism_buffer_numel_checked (ndims, dims, &numel))
    {
      g_autofree char *shape = dims_to_string (ndims, dims);
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_LIMIT,
                   "a buffer of shape %s has more bytes than 64 bits count", shape);
      return NULL;
    }
  b = g_new0 (PrismBuffer, 1);
  b->ndims = ndims;
  memcpy (b->dims, dims, ndims * sizeof (gint64));
  b->numel = numel;
  b->data = g_try_malloc0_n ((gsize) numel, sizeof (double));
  if (b->data == NULL)
    {
      g_autofree char *shape = dims_to_string (ndims, dims);
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_LIMIT,
                   "cannot allocate %" G_GINT64_FORMAT " bytes for a buffer of shape %s",
                   numel * (gint64) sizeof (double), shape);
      return NULL;
    }
  return g_steal_pointer (&b);
}

PrismBuffer *
prism_buffer_new (guint ndims, const gint64 *dims)
{
  g_autoptr(GError) error = NULL;
  PrismBuffer *b;

  g_return_val_if_fail (ndims >= 1 && ndims <= PRISM_MAX_DIMS, NULL);
  b = prism_buffer_try_new (ndims, dims, &error);
  if (b == NULL)
    g_error ("prism_buffer_new: %s", error->message);
  return b;
}

PrismBuffer *
prism_buffer_copy (const PrismBuffer *buffer)
{
  PrismBuffer *b = g_memdup2 (buffer, sizeof *buffer);

  b->data = g_memdup2 (buffer->data, sizeof (double) * buffer->numel);
  return b;
}

void
prism_buffer_free (PrismBuffer *buffer)
{
  if (buffer == NULL)
    return;
  g_free (buffer->data);
  g_free (buffer);
}

gboolean
prism_buffer_same_shape (const PrismBuffer *a, const PrismBuffer *b)
{
  if (a->ndims != b->ndims)
    return FALSE;
  for (guint i = 0; i < a->ndims; i++)
    if (a->dims[i] != b->dims[i])
      return FALSE;
  return TRUE;
}

/* SplitMix64 (Steele, Lea, Flood 2014): tiny, fast, and the same stream
 * everywhere, which GRand's 32-bit seeding would not give for 64-bit seeds. */
static inline guint64
splitmix64 (guint64 *state)
{
  guint64 z = (*state += G_GUINT64_CONSTANT (0x9e3779b97f4a7c15));

  z = (z ^ (z >> 30)) * G_GUINT64_CONSTANT (0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * G_GUINT64_CONSTANT (0x94d049bb133111eb);
  return z ^ (z >> 31);
}

static void
fill_range (double *data, gint64 n, guint64 *state)
{
  for (gint64 i = 0; i < n; i++)
    data[i] = (double) (splitmix64 (state) >> 11) * 0x1p-52 - 1.0;
}

void
prism_buffer_fill_random (PrismBuffer *buffer, guint64 seed)
{
  guint64 state = seed;

  fill_range (buffer->data, buffer->numel, &state);
}

/* Rounds @x to @mant_bits explicit mantissa bits (ties to even) for
 * magnitudes ≥ 2^@min_exp; below that the spacing is fixed at
 * 2^(@min_exp - @mant_bits) (subnormals of the narrow type). */
static double
round_to_format (double x, guint mant_bits, int min_exp, double max_finite)
{
  double ax = fabs (x);
  guint64 bits;
  guint drop;

  if (!isfinite (x) || x == 0.0)
    return x;
  if (ax < ldexp (1.0, min_exp))
    {
      double q = ldexp (1.0, min_exp - (int) mant_bits);
      return nearbyint (x / q) * q;
    }
  drop = 52 - mant_bits;
  memcpy (&bits, &x, sizeof bits);
  bits += ((G_GUINT64_CONSTANT (1) << (drop - 1)) - 1) + ((bits >> drop) & 1);
  bits &= ~((G_GUINT64_CONSTANT (1) << drop) - 1);
  memcpy (&x, &bits, sizeof bits);
  if (fabs (x) > max_finite)
    return x > 0 ? INFINITY : -INFINITY;
  return x;
}

static void
round_range (double *data, gint64 n, PrismDtype dtype)
{
  for (gint64 i = 0; i < n; i++)
    {
      double *v = &data[i];
      switch (dtype)
        {
        case PRISM_DTYPE_F16:
          *v = round_to_format (*v, 10, -14, 65504.0);
          break;
        case PRISM_DTYPE_BF16:
          *v = round_to_format (*v, 7, -126, 0x1.fep127);
          break;
        case PRISM_DTYPE_F32:
        case PRISM_N_DTYPES:
        default:
          *v = (double) (float) *v;
          break;
        }
    }
}

void
prism_buffer_round_to_dtype (PrismBuffer *buffer, PrismDtype dtype)
{
  round_range (buffer->data, buffer->numel, dtype);
}

double
prism_dtype_round_value (double value, PrismDtype dtype)
{
  round_range (&value, 1, dtype);
  return value;
}

/* Elements per step of prism_buffer_fill_random_rounded(): a few ms. */
#define FILL_CHUNK (G_GINT64_CONSTANT (1) << 18)

gboolean
prism_buffer_fill_random_rounded (PrismBuffer *buffer, guint64 seed, PrismDtype dtype)
{
  guint64 state = seed;

  for (gint64 start = 0; start < buffer->numel; start += FILL_CHUNK)
    {
      gint64 n = MIN (FILL_CHUNK, buffer->numel - start);

      if (prism_cancelled ())
        return FALSE;
      fill_range (buffer->data + start, n, &state);
      round_range (buffer->data + start, n, dtype);
    }
  return TRUE;
}

double
prism_buffer_max_rel_error (const PrismBuffer *a, const PrismBuffer *b)
{
  double max_diff = 0.0, max_ref = 0.0;

  if (!prism_buffer_same_shape (a, b))
    return INFINITY;
  for (gint64 i = 0; i < a->numel; i++)
    {
      double x = a->data[i], y = b->data[i];
      double d;

      if (isnan (x) || isnan (y))
        {
          if (isnan (x) && isnan (y))
            continue;
          return INFINITY;
        }
      /* Equal infinities agree; anything else involving inf is infinitely wrong. */
      if (x == y)
        d = 0.0;
      else
        d = fabs (x - y);
      if (!(d <= max_diff))
        max_diff = d;
      if (isfinite (y) && fabs (y) > max_ref)
        max_ref = fabs (y);
    }
  return max_diff / MAX (max_ref, 1e-30);
}

double
prism_buffer_checksum (const PrismBuffer *buffer)
{
  double sum = 0.0;

  for (gint64 i = 0; i < buffer->numel; i++)
    sum += buffer->data[i] * (1.0 + (double) (i % 16) / 16.0);
  return sum;
}

double
prism_buffer_norm (const PrismBuffer *buffer)
{
  double sum = 0.0;

  for (gint64 i = 0; i < buffer->numel; i++)
    sum += buffer->data[i] * buffer->data[i];
  return sqrt (sum);
}

char *
prism_buffer_shape_to_string (const PrismBuffer *buffer)
{
  GString *s = g_string_new ("[");

  for (guint i = 0; i < buffer->ndims; i++)
    g_string_append_printf (s, "%s%" G_GINT64_FORMAT, i ? ", " : "", buffer->dims[i]);
  g_string_append_c (s, ']');
  return g_string_free (s, FALSE);
}
