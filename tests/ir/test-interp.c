/* test-interp.c — the CPU interpreter against values computed here by hand
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include <gio/gio.h>

#include "prism-error.h"
#include "prism-graph-json.h"
#include "prism-interp.h"
#include "prism-workload.h"

/* Helpers ------------------------------------------------------------------ */

static PrismBuffer *
random_buffer (guint ndims, gint64 d0, gint64 d1, gint64 d2, guint64 seed)
{
  gint64 dims[3] = { d0, d1, d2 };
  PrismBuffer *b = prism_buffer_new (ndims, dims);

  prism_buffer_fill_random (b, seed);
  return b;
}

static double
at2 (const PrismBuffer *b, gint64 i, gint64 j)
{
  g_assert_cmpuint (b->ndims, ==, 2);
  g_assert_true (i >= 0 && i < b->dims[0] && j >= 0 && j < b->dims[1]);
  return b->data[i * b->dims[1] + j];
}

static double
at3 (const PrismBuffer *b, gint64 i, gint64 j, gint64 k)
{
  g_assert_cmpuint (b->ndims, ==, 3);
  return b->data[(i * b->dims[1] + j) * b->dims[2] + k];
}

static void
assert_close (double got, double want, double tol)
{
  if (!(fabs (got - want) <= tol * MAX (1.0, fabs (want))))
    g_error ("got %.17g, expected %.17g (tolerance %g)", got, want, tol);
}

static void
assert_shape (const PrismBuffer *b, guint ndims, gint64 d0, gint64 d1, gint64 d2)
{
  gint64 dims[3] = { d0, d1, d2 };

  g_assert_cmpuint (b->ndims, ==, ndims);
  for (guint i = 0; i < ndims; i++)
    g_assert_cmpint (b->dims[i], ==, dims[i]);
}

static int
add_input (PrismGraph *g, guint ndims, gint64 d0, gint64 d1, gint64 d2)
{
  g_autoptr(GError) error = NULL;
  gint64 dims[3] = { d0, d1, d2 };
  int t = prism_graph_add_input (g, NULL, ndims, dims, PRISM_DTYPE_F32, &error);

  g_assert_no_error (error);
  return t;
}

static int
add_op (PrismGraph *g, PrismOpKind kind, int a, int b, const PrismOpAttrs *attrs)
{
  g_autoptr(GError) error = NULL;
  guint in[2] = { (guint) a, (guint) b };
  int t = prism_graph_add (g, kind, in, b < 0 ? 1 : 2, attrs, &error);

  g_assert_no_error (error);
  g_assert_cmpint (t, >=, 0);
  return t;
}

static int
add_op_dim (PrismGraph *g, PrismOpKind kind, int a, int dim, guint norm_dims, guint dimx)
{
  PrismOpAttrs attrs;

  prism_op_attrs_init (&attrs);
  attrs.dim = dim;
  attrs.norm_dims = norm_dims;
  attrs.dimx = dimx;
  return add_op (g, kind, a, -1, &attrs);
}

static int
add_tile (PrismGraph *b, const PrismGraph *g, guint index, int t, int mx, int my, int mz, int fmap)
{
  g_autoptr(GError) error = NULL;
  const PrismTensor *src = prism_graph_tensor (g, (guint) t);
  int imap[3] = { mx, my, mz };
  int id = prism_block_graph_add_input (b, index, src->ndims, src->dims, src->dtype, imap, fmap,
                                        &error);

  g_assert_no_error (error);
  return id;
}

static void
add_block_output (PrismGraph *b, int t, int ox, int oy, int oz)
{
  g_autoptr(GError) error = NULL;
  int omap[3] = { ox, oy, oz };

  g_assert_cmpint (prism_block_graph_add_output (b, (guint) t, omap, &error), >=, 0);
  g_assert_no_error (error);
}

/* Adds the kernel and marks all its outputs as graph outputs. Takes @body. */
static void
add_kernel (PrismGraph *g, PrismGraph *body, const int *ins, guint n)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismGraph) owned = body;
  guint in[8];
  int kop;
  const PrismOp *op;

  for (guint i = 0; i < n; i++)
    in[i] = (guint) ins[i];
  kop = prism_graph_add_kernel (g, in, n, owned, &error);
  g_assert_no_error (error);
  op = prism_graph_op (g, (guint) kop);
  for (guint o = 0; o < op->n_outputs; o++)
    {
      g_assert_cmpint (prism_graph_add_output (g, op->outputs[o], NULL, &error), >=, 0);
      g_assert_no_error (error);
    }
}

static GPtrArray *
run (const PrismGraph *g, PrismBuffer **inputs, guint n, PrismPrecision precision, guint threads)
{
  g_autoptr(GError) error = NULL;
  PrismInterpOptions opts = { precision, threads };
  GPtrArray *out = prism_interp_run (g, inputs, n, &opts, &error);

  g_assert_no_error (error);
  g_assert_nonnull (out);
  return out;
}

static PrismBuffer *
out_at (GPtrArray *outs, guint i)
{
  return g_ptr_array_index (outs, i);
}

static gboolean
buffers_identical (const PrismBuffer *a, const PrismBuffer *b)
{
  return prism_buffer_same_shape (a, b) &&
         memcmp (a->data, b->data, sizeof (double) * a->numel) == 0;
}

/* Buffers ------------------------------------------------------------------ */

static void
test_buffer_random (void)
{
  g_autoptr(PrismBuffer) a = random_buffer (2, 30, 40, 0, 7);
  g_autoptr(PrismBuffer) b = random_buffer (2, 30, 40, 0, 7);
  g_autoptr(PrismBuffer) c = random_buffer (2, 30, 40, 0, 8);
  double lo = 1.0, hi = -1.0;

  g_assert_true (buffers_identical (a, b));
  g_assert_false (buffers_identical (a, c));
  for (gint64 i = 0; i < a->numel; i++)
    {
      g_assert_cmpfloat (a->data[i], >=, -1.0);
      g_assert_cmpfloat (a->data[i], <, 1.0);
      lo = MIN (lo, a->data[i]);
      hi = MAX (hi, a->data[i]);
    }
  /* 1200 uniform values spread over the range. */
  g_assert_cmpfloat (lo, <, -0.9);
  g_assert_cmpfloat (hi, >, 0.9);
}

static void
test_buffer_round (void)
{
  gint64 dims[1] = { 8 };
  g_autoptr(PrismBuffer) b = prism_buffer_new (1, dims);
  g_autoptr(PrismBuffer) c = NULL;

  b->data[0] = 1.0 / 3.0;
  b->data[1] = 1.0;
  b->data[2] = 65519.0;
  b->data[3] = 65520.0;
  b->data[4] = 1e-8;
  b->data[5] = 3e-8;
  b->data[6] = -2049.0;  /* halfway between 2048 and 2050: ties to even */
  b->data[7] = 0.1;
  c = prism_buffer_copy (b);
  prism_buffer_round_to_dtype (b, PRISM_DTYPE_F16);
  g_assert_cmpfloat (b->data[0], ==, 0.333251953125);
  g_assert_cmpfloat (b->data[1], ==, 1.0);
  g_assert_cmpfloat (b->data[2], ==, 65504.0);
  g_assert_true (isinf (b->data[3]) && b->data[3] > 0);
  g_assert_cmpfloat (b->data[4], ==, 0.0);
  g_assert_cmpfloat (b->data[5], ==, ldexp (1.0, -24));
  g_assert_cmpfloat (b->data[6], ==, -2048.0);
  g_assert_cmpfloat (b->data[7], ==, 0.0999755859375);

  prism_buffer_round_to_dtype (c, PRISM_DTYPE_BF16);
  g_assert_cmpfloat (c->data[0], ==, 0.333984375);
  g_assert_cmpfloat (c->data[7], ==, 0.10009765625);
  c->data[0] = 0.1;
  prism_buffer_round_to_dtype (c, PRISM_DTYPE_F32);
  g_assert_cmpfloat (c->data[0], ==, (double) 0.1f);
}

static void
test_buffer_metrics (void)
{
  gint64 dims[2] = { 1, 3 };
  g_autoptr(PrismBuffer) a = prism_buffer_new (2, dims);
  g_autoptr(PrismBuffer) b = prism_buffer_new (2, dims);
  gint64 other[2] = { 3, 1 };
  g_autoptr(PrismBuffer) c = prism_buffer_new (2, other);
  g_autofree char *shape = prism_buffer_shape_to_string (a);

  g_assert_cmpstr (shape, ==, "[1, 3]");
  b->data[0] = 2.0;
  b->data[1] = -4.0;
  b->data[2] = 1.0;
  memcpy (a->data, b->data, sizeof (double) * 3);
  a->data[2] = 1.5;
  assert_close (prism_buffer_max_rel_error (a, b), 0.5 / 4.0, 1e-15);
  assert_close (prism_buffer_max_rel_error (b, b), 0.0, 0.0);
  g_assert_true (isinf (prism_buffer_max_rel_error (a, c)));
  a->data[0] = NAN;
  g_assert_true (isinf (prism_buffer_max_rel_error (a, b)));
  assert_close (prism_buffer_norm (b), sqrt (21.0), 1e-15);
  /* weights 1, 1 + 1/16, 1 + 2/16 */
  assert_close (prism_buffer_checksum (b), 2.0 - 4.0 * 17.0 / 16.0 + 18.0 / 16.0, 1e-15);
}

/* Predefined ops ---------------------------------------------------------- */

static double
unary_ref (PrismOpKind kind, double x)
{
  switch ((int) kind)
    {
    case PRISM_OP_EXP: return exp (x);
    case PRISM_OP_SQUARE: return x * x;
    case PRISM_OP_SQRT: return sqrt (x);
    case PRISM_OP_SILU: return x * (1.0 / (1.0 + exp (-x)));
    case PRISM_OP_GELU: return 0.5 * x * erfc (-x / sqrt (2.0));
    case PRISM_OP_RELU: return x < 0 ? 0.0 : x;
    case PRISM_OP_NEG: return 0.0 - x;
    default: g_assert_not_reached ();
    }
  return 0.0;
}

static void
test_unary (void)
{
  static const PrismOpKind kinds[] = { PRISM_OP_EXP, PRISM_OP_SQUARE, PRISM_OP_SQRT, PRISM_OP_SILU,
                                       PRISM_OP_GELU, PRISM_OP_RELU, PRISM_OP_NEG };
  g_autoptr(PrismBuffer) x = random_buffer (2, 3, 5, 0, 1);

  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    {
      g_autoptr(PrismGraph) g = prism_graph_new ();
      g_autoptr(PrismBuffer) in = prism_buffer_copy (x);
      g_autoptr(GPtrArray) outs = NULL;
      int t = add_input (g, 2, 3, 5, 0);

      if (kinds[k] == PRISM_OP_SQRT)
        for (gint64 i = 0; i < in->numel; i++)
          in->data[i] = fabs (in->data[i]);
      g_assert_cmpint (prism_graph_add_output (g, (guint) add_op (g, kinds[k], t, -1, NULL), NULL,
                                               NULL), >=, 0);
      outs = run (g, &in, 1, PRISM_PRECISION_F64, 1);
      assert_shape (out_at (outs, 0), 2, 3, 5, 0);
      for (gint64 i = 0; i < in->numel; i++)
        assert_close (out_at (outs, 0)->data[i], unary_ref (kinds[k], in->data[i]), 1e-14);
    }
}

static double
binary_ref (PrismOpKind kind, double a, double b)
{
  switch ((int) kind)
    {
    case PRISM_OP_ADD: return a + b;
    case PRISM_OP_SUB: return a - b;
    case PRISM_OP_MUL: return a * b;
    case PRISM_OP_DIV: return a / b;
    case PRISM_OP_POW: return exp (b * log (a));
    default: g_assert_not_reached ();
    }
  return 0.0;
}

static void
test_binary_broadcast (void)
{
  static const PrismOpKind kinds[] = { PRISM_OP_ADD, PRISM_OP_SUB, PRISM_OP_MUL, PRISM_OP_DIV,
                                       PRISM_OP_POW };
  g_autoptr(PrismBuffer) a = random_buffer (3, 2, 1, 3, 2);
  g_autoptr(PrismBuffer) b = random_buffer (3, 1, 4, 3, 3);

  /* pow needs a positive base. */
  for (gint64 i = 0; i < a->numel; i++)
    a->data[i] = fabs (a->data[i]) + 0.25;
  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    {
      g_autoptr(PrismGraph) g = prism_graph_new ();
      g_autoptr(GPtrArray) outs = NULL;
      PrismBuffer *ins[2] = { a, b };
      int ta = add_input (g, 3, 2, 1, 3);
      int tb = add_input (g, 3, 1, 4, 3);
      PrismBuffer *o;

      prism_graph_add_output (g, (guint) add_op (g, kinds[k], ta, tb, NULL), NULL, NULL);
      outs = run (g, ins, 2, PRISM_PRECISION_F64, 2);
      o = out_at (outs, 0);
      assert_shape (o, 3, 2, 4, 3);
      for (int i = 0; i < 2; i++)
        for (int j = 0; j < 4; j++)
          for (int c = 0; c < 3; c++)
            assert_close (at3 (o, i, j, c), binary_ref (kinds[k], at3 (a, i, 0, c), at3 (b, 0, j, c)),
                          1e-13);
    }
}

static void
check_matmul (gint64 batch, gint64 m, gint64 k, gint64 n, guint threads)
{
  g_autoptr(PrismGraph) g = prism_graph_new ();
  g_autoptr(PrismBuffer) a = random_buffer (3, batch, m, k, 4);
  g_autoptr(PrismBuffer) b = random_buffer (3, batch, k, n, 5);
  g_autoptr(GPtrArray) outs = NULL;
  PrismBuffer *ins[2] = { a, b };
  int ta = add_input (g, 3, batch, m, k);
  int tb = add_input (g, 3, batch, k, n);
  PrismBuffer *o;

  prism_graph_add_output (g, (guint) add_op (g, PRISM_OP_MATMUL, ta, tb, NULL), NULL, NULL);
  outs = run (g, ins, 2, PRISM_PRECISION_F64, threads);
  o = out_at (outs, 0);
  assert_shape (o, 3, batch, m, n);
  for (gint64 s = 0; s < batch; s++)
    for (gint64 i = 0; i < m; i++)
      for (gint64 j = 0; j < n; j++)
        {
          double want = 0.0;
          for (gint64 p = 0; p < k; p++)
            want += at3 (a, s, i, p) * at3 (b, s, p, j);
          assert_close (at3 (o, s, i, j), want, 1e-12);
        }
}

static void
test_matmul (void)
{
  check_matmul (2, 3, 4, 5, 1);
  /* Several row blocks and column chunks, split over threads. */
  check_matmul (3, 40, 300, 270, 3);
}

static void
test_sum (void)
{
  g_autoptr(PrismBuffer) x = random_buffer (3, 2, 3, 4, 6);

  for (int dim = 0; dim < 3; dim++)
    {
      g_autoptr(PrismGraph) g = prism_graph_new ();
      g_autoptr(GPtrArray) outs = NULL;
      int t = add_input (g, 3, 2, 3, 4);
      PrismBuffer *o;

      prism_graph_add_output (g, (guint) add_op_dim (g, PRISM_OP_SUM, t, dim, 1, 0), NULL, NULL);
      outs = run (g, &x, 1, PRISM_PRECISION_F64, 1);
      o = out_at (outs, 0);
      assert_shape (o, 3, dim == 0 ? 1 : 2, dim == 1 ? 1 : 3, dim == 2 ? 1 : 4);
      for (int i = 0; i < o->dims[0]; i++)
        for (int j = 0; j < o->dims[1]; j++)
          for (int c = 0; c < o->dims[2]; c++)
            {
              double want = 0.0;
              for (int r = 0; r < x->dims[dim]; r++)
                want += at3 (x, dim == 0 ? r : i, dim == 1 ? r : j, dim == 2 ? r : c);
              assert_close (at3 (o, i, j, c), want, 1e-14);
            }
    }
}

/* max and mean over each dim, against loops written here. */
static void
test_max_mean (void)
{
  g_autoptr(PrismBuffer) x = random_buffer (3, 2, 3, 4, 9);

  for (int dim = 0; dim < 3; dim++)
    {
      g_autoptr(PrismGraph) g = prism_graph_new ();
      g_autoptr(GPtrArray) outs = NULL;
      int t = add_input (g, 3, 2, 3, 4);

      prism_graph_add_output (g, (guint) add_op_dim (g, PRISM_OP_MAX, t, dim, 1, 0), NULL, NULL);
      prism_graph_add_output (g, (guint) add_op_dim (g, PRISM_OP_MEAN, t, dim, 1, 0), NULL, NULL);
      outs = run (g, &x, 1, PRISM_PRECISION_F64, 1);
      for (guint k = 0; k < 2; k++)
        {
          PrismBuffer *o = out_at (outs, k);
          assert_shape (o, 3, dim == 0 ? 1 : 2, dim == 1 ? 1 : 3, dim == 2 ? 1 : 4);
          for (int i = 0; i < o->dims[0]; i++)
            for (int j = 0; j < o->dims[1]; j++)
              for (int c = 0; c < o->dims[2]; c++)
                {
                  double sum = 0.0, max = -INFINITY;
                  for (int r = 0; r < x->dims[dim]; r++)
                    {
                      double v = at3 (x, dim == 0 ? r : i, dim == 1 ? r : j, dim == 2 ? r : c);
                      sum += v;
                      max = MAX (max, v);
                    }
                  assert_close (at3 (o, i, j, c), k == 0 ? max : sum / x->dims[dim], 1e-14);
                }
        }
    }
}

/* maximum broadcasts like add; a constant is one value of any rank. */
static void
test_maximum_constant (void)
{
  g_autoptr(PrismBuffer) x = random_buffer (2, 3, 5, 0, 4);
  g_autoptr(PrismGraph) g = prism_graph_new ();
  g_autoptr(GPtrArray) outs = NULL;
  g_autoptr(GError) error = NULL;
  int t = add_input (g, 2, 3, 5, 0);
  int c = prism_graph_add_constant (g, 0.25, 2, PRISM_DTYPE_F32, &error);
  PrismBuffer *o;

  g_assert_no_error (error);
  g_assert_cmpint (c, >=, 0);
  prism_graph_add_output (g, (guint) add_op (g, PRISM_OP_MAXIMUM, t, c, NULL), NULL, NULL);
  prism_graph_add_output (g, (guint) add_op (g, PRISM_OP_MUL, c, t, NULL), NULL, NULL);
  outs = run (g, &x, 1, PRISM_PRECISION_F64, 1);
  o = out_at (outs, 0);
  assert_shape (o, 2, 3, 5, 0);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 5; j++)
      {
        assert_close (at2 (o, i, j), MAX (at2 (x, i, j), 0.25), 0.0);
        assert_close (at2 (out_at (outs, 1), i, j), 0.25 * at2 (x, i, j), 0.0);
      }

  /* The value is rounded to the constant's dtype, as an input would be:
   * 0.1 in f16 is 0.0999755859375. */
  {
    g_autoptr(PrismGraph) h = prism_graph_new ();
    g_autoptr(GPtrArray) hout = NULL;
    int hx = add_input (h, 2, 3, 5, 0);
    int hc = prism_graph_add_constant (h, 0.1, 2, PRISM_DTYPE_F16, &error);

    g_assert_no_error (error);
    prism_graph_add_output (h, (guint) add_op (h, PRISM_OP_MUL, hx, hc, NULL), NULL, NULL);
    hout = run (h, &x, 1, PRISM_PRECISION_F64, 1);
    assert_close (at2 (out_at (hout, 0), 1, 2), at2 (x, 1, 2) * 0.0999755859375, 1e-15);
  }

  /* Not finite: refused, naming the op. */
  g_assert_cmpint (prism_graph_add_constant (g, NAN, 2, PRISM_DTYPE_F32, &error), ==, -1);
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_INVALID_GRAPH);
  g_assert_nonnull (strstr (error->message, "(constant): value must be a finite number"));
  g_clear_error (&error);
  g_assert_cmpint (prism_graph_add_constant (g, INFINITY, 2, PRISM_DTYPE_F32, &error), ==, -1);
  g_clear_error (&error);
}

/* In a kernel a constant mixes with tiles of the loop and of the epilogue
 * alike: (Σ_iterations x) · 0.5 + 0.5. */
static void
test_kernel_constant (void)
{
  g_autoptr(PrismBuffer) x = random_buffer (2, 4, 8, 0, 3);
  g_autoptr(PrismGraph) g = prism_graph_new ();
  PrismGraph *b = prism_block_graph_new_const (1, (gint64[]) { 2 }, 128, 4);
  g_autoptr(GPtrArray) outs = NULL;
  g_autoptr(GError) error = NULL;
  int t = add_input (g, 2, 4, 8, 0);
  int x_t = add_tile (b, g, 0, t, 0, -1, -1, 1);
  int c = prism_graph_add_constant (b, 0.5, 2, PRISM_DTYPE_F32, &error);
  int acc, m;

  g_assert_no_error (error);
  acc = add_op (b, PRISM_OP_ACCUM, add_op (b, PRISM_OP_MUL, x_t, c, NULL), -1, NULL);
  m = add_op (b, PRISM_OP_ADD, acc, c, NULL);
  g_assert_true (prism_graph_tensor (b, (guint) m)->after_accum);
  add_block_output (b, m, 0, -1, -1);
  add_kernel (g, b, &t, 1);
  outs = run (g, &x, 1, PRISM_PRECISION_F64, 1);
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 2; j++)
      {
        double want = 0.0;
        for (int f = 0; f < 4; f++)
          want += 0.5 * at2 (x, i, f * 2 + j);
        assert_close (at2 (out_at (outs, 0), i, j), want + 0.5, 1e-14);
      }
}

/* transpose: output dim d is input dim perm[d]; a bad perm is refused. */
static void
test_transpose (void)
{
  g_autoptr(PrismBuffer) x = random_buffer (3, 2, 3, 4, 5);
  g_autoptr(PrismGraph) g = prism_graph_new ();
  g_autoptr(GPtrArray) outs = NULL;
  g_autoptr(GError) error = NULL;
  PrismOpAttrs attrs;
  int t = add_input (g, 3, 2, 3, 4);
  PrismBuffer *o;
  guint in[1] = { (guint) t };

  prism_op_attrs_init (&attrs);
  attrs.perm[0] = 2;
  attrs.perm[1] = 0;
  attrs.perm[2] = 1;
  prism_graph_add_output (g, (guint) add_op (g, PRISM_OP_TRANSPOSE, t, -1, &attrs), NULL, NULL);
  outs = run (g, &x, 1, PRISM_PRECISION_F64, 1);
  o = out_at (outs, 0);
  assert_shape (o, 3, 4, 2, 3);
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 2; j++)
      for (int k = 0; k < 3; k++)
        assert_close (at3 (o, i, j, k), at3 (x, j, k, i), 0.0);

  attrs.perm[2] = 0;
  g_assert_cmpint (prism_graph_add (g, PRISM_OP_TRANSPOSE, in, 1, &attrs, &error), ==, -1);
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_INVALID_GRAPH);
  g_assert_nonnull (strstr (error->message, "(transpose): perm is not a permutation"));
  g_clear_error (&error);
  attrs.perm[2] = 3;
  g_assert_cmpint (prism_graph_add (g, PRISM_OP_TRANSPOSE, in, 1, &attrs, &error), ==, -1);
  g_assert_nonnull (strstr (error->message, "(transpose): perm[2] = 3 is not a dim"));
  g_clear_error (&error);
  attrs.dim = 3;
  g_assert_cmpint (prism_graph_add (g, PRISM_OP_MAX, in, 1, &attrs, &error), ==, -1);
  g_assert_nonnull (strstr (error->message, "(max): dim 3 out of range"));
}

static void
test_rms_norm (void)
{
  g_autoptr(PrismBuffer) x = random_buffer (3, 2, 3, 4, 7);

  for (guint nd = 1; nd <= 2; nd++)
    {
      g_autoptr(PrismGraph) g = prism_graph_new ();
      g_autoptr(GPtrArray) outs = NULL;
      int t = add_input (g, 3, 2, 3, 4);
      PrismBuffer *o;

      prism_graph_add_output (g, (guint) add_op_dim (g, PRISM_OP_RMS_NORM, t, 0, nd, 0), NULL, NULL);
      outs = run (g, &x, 1, PRISM_PRECISION_F64, 1);
      o = out_at (outs, 0);
      assert_shape (o, 3, 2, 3, 4);
      for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++)
          {
            /* The normalised group: one row (nd 1) or a 3×4 slab (nd 2). */
            double ss = 0.0;
            int j0 = nd == 1 ? j : 0, j1 = nd == 1 ? j + 1 : 3;
            for (int jj = j0; jj < j1; jj++)
              for (int c = 0; c < 4; c++)
                ss += at3 (x, i, jj, c) * at3 (x, i, jj, c);
            for (int c = 0; c < 4; c++)
              assert_close (at3 (o, i, j, c), at3 (x, i, j, c) / sqrt (ss / (4.0 * (j1 - j0))), 1e-14);
          }
    }
}

/* eps is added to mean(x²) under the square root: a zero row gives 0, not
 * NaN, and others x / sqrt (mean + eps). */
static void
test_rms_norm_eps (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismGraph) g = prism_graph_load_from_data (
    "{\"format\": \"prism-graph\", \"version\": 1, \"ops\": ["
    "{\"op\": \"input\", \"outputs\": [{\"id\": 0, \"shape\": [2, 2], \"dtype\": \"f32\"}]},"
    "{\"op\": \"rms_norm\", \"eps\": 0.5, \"inputs\": [0], \"outputs\": [1]},"
    "{\"op\": \"output\", \"inputs\": [1]}]}", -1, NULL, &error);
  g_autoptr(PrismBuffer) x = NULL;
  g_autoptr(GPtrArray) outs = NULL;
  PrismBuffer *o;

  g_assert_no_error (error);
  x = prism_buffer_new (2, (const gint64[]) { 2, 2 });
  x->data[2] = 3.0;
  x->data[3] = 4.0;
  outs = run (g, &x, 1, PRISM_PRECISION_F64, 1);
  o = out_at (outs, 0);
  g_assert_cmpfloat (o->data[0], ==, 0.0);
  g_assert_cmpfloat (o->data[1], ==, 0.0);
  /* mean (9, 16) = 12.5, + 0.5 = 13 */
  assert_close (o->data[2], 3.0 / sqrt (13.0), 1e-14);
  assert_close (o->data[3], 4.0 / sqrt (13.0), 1e-14);
}

/* Custom kernels ----------------------------------------------------------- */

/* X [4,8], Y [4,4]; grid 2 splits rows, the loop (2) splits X's columns;
 * the Y tile is the same at every iteration.  O = -Σ_i exp(X_i) ⊙ Y. */
static void
test_kernel_accum_epilogue (void)
{
  g_autoptr(PrismGraph) g = prism_graph_new ();
  g_autoptr(PrismBuffer) x = random_buffer (2, 4, 8, 0, 11);
  g_autoptr(PrismBuffer) y = random_buffer (2, 4, 4, 0, 12);
  g_autoptr(GPtrArray) outs = NULL;
  PrismBuffer *ins[2] = { x, y };
  int kin[2];
  PrismGraph *b = NULL;
  gint64 grid[1] = { 2 };
  int xt, yt, acc;

  kin[0] = add_input (g, 2, 4, 8, 0);
  kin[1] = add_input (g, 2, 4, 4, 0);
  b = prism_block_graph_new_const (1, grid, 128, 2);
  xt = add_tile (b, g, 0, kin[0], 0, -1, -1, 1);
  yt = add_tile (b, g, 1, kin[1], 0, -1, -1, -1);
  acc = add_op (b, PRISM_OP_ACCUM, add_op (b, PRISM_OP_MUL, add_op (b, PRISM_OP_EXP, xt, -1, NULL),
                                           yt, NULL), -1, NULL);
  add_block_output (b, add_op (b, PRISM_OP_NEG, acc, -1, NULL), 0, -1, -1);
  add_kernel (g, b, kin, 2);

  outs = run (g, ins, 2, PRISM_PRECISION_F64, 2);
  assert_shape (out_at (outs, 0), 2, 4, 4, 0);
  for (int r = 0; r < 4; r++)
    for (int c = 0; c < 4; c++)
      assert_close (at2 (out_at (outs, 0), r, c),
                    -(exp (at2 (x, r, c)) * at2 (y, r, c) + exp (at2 (x, r, c + 4)) * at2 (y, r, c)),
                    1e-14);
}

/* X [4,8]: grid 2 over rows, loop 2 over columns, tile [2,4]; one output per
 * reducing accumulator. */
static void
test_kernel_reducing_accums (void)
{
  g_autoptr(PrismGraph) g = prism_graph_new ();
  g_autoptr(PrismBuffer) x = random_buffer (2, 4, 8, 0, 13);
  g_autoptr(GPtrArray) outs = NULL;
  gint64 grid[1] = { 2 };
  PrismGraph *b = prism_block_graph_new_const (1, grid, 128, 2);
  int kin[1];
  int xt;

  kin[0] = add_input (g, 2, 4, 8, 0);
  xt = add_tile (b, g, 0, kin[0], 0, -1, -1, 1);
  add_block_output (b, add_op (b, PRISM_OP_ACCUM_SUM, xt, -1, NULL), 0, -1, -1);
  add_block_output (b, add_op (b, PRISM_OP_ACCUM_MEAN, xt, -1, NULL), 0, -1, -1);
  add_block_output (b, add_op (b, PRISM_OP_ACCUM_RMS, xt, -1, NULL), 0, -1, -1);
  add_block_output (b, add_op_dim (b, PRISM_OP_ACCUM_SUM_TODIMX, xt, 0, 1, 2), 0, -1, -1);
  add_block_output (b, add_op (b, PRISM_OP_ACCUM_MAX, xt, -1, NULL), 0, -1, -1);
  add_kernel (g, b, kin, 1);

  outs = run (g, &x, 1, PRISM_PRECISION_F64, 1);
  g_assert_cmpuint (outs->len, ==, 5);
  assert_shape (out_at (outs, 0), 2, 4, 1, 0);
  assert_shape (out_at (outs, 3), 2, 4, 2, 0);
  assert_shape (out_at (outs, 4), 2, 4, 4, 0);
  for (int r = 0; r < 4; r++)
    {
      double sum = 0.0, ss = 0.0;

      for (int c = 0; c < 8; c++)
        {
          sum += at2 (x, r, c);
          ss += at2 (x, r, c) * at2 (x, r, c);
        }
      assert_close (at2 (out_at (outs, 0), r, 0), sum, 1e-14);
      assert_close (at2 (out_at (outs, 1), r, 0), sum / 8.0, 1e-14);
      assert_close (at2 (out_at (outs, 2), r, 0), sqrt (ss / 8.0), 1e-14);
      /* todimx 2 of a 4-wide tile over 2 iterations: element j sums the
       * columns 4i + j + 2t. */
      for (int j = 0; j < 2; j++)
        assert_close (at2 (out_at (outs, 3), r, j),
                      at2 (x, r, j) + at2 (x, r, j + 2) + at2 (x, r, 4 + j) + at2 (x, r, 6 + j), 1e-14);
      for (int c = 0; c < 4; c++)
        g_assert_cmpfloat (at2 (out_at (outs, 4), r, c), ==, MAX (at2 (x, r, c), at2 (x, r, c + 4)));
    }
}

/* accum_rescale and accum_sum_rescale: acc = acc · s + x over 4 iterations. */
static void
test_kernel_rescale (void)
{
  g_autoptr(PrismGraph) g = prism_graph_new ();
  g_autoptr(PrismBuffer) x = random_buffer (2, 2, 8, 0, 14);
  g_autoptr(PrismBuffer) s = random_buffer (2, 2, 8, 0, 15);
  g_autoptr(PrismBuffer) s1 = random_buffer (2, 2, 4, 0, 16);
  g_autoptr(GPtrArray) outs = NULL;
  PrismBuffer *ins[3] = { x, s, s1 };
  gint64 grid[1] = { 1 };
  PrismGraph *b = prism_block_graph_new_const (1, grid, 128, 4);
  int kin[3];
  int xt, st, s1t;

  kin[0] = add_input (g, 2, 2, 8, 0);
  kin[1] = add_input (g, 2, 2, 8, 0);
  kin[2] = add_input (g, 2, 2, 4, 0);
  xt = add_tile (b, g, 0, kin[0], -1, -1, -1, 1);   /* [2, 2] */
  st = add_tile (b, g, 1, kin[1], -1, -1, -1, 1);   /* [2, 2] */
  s1t = add_tile (b, g, 2, kin[2], -1, -1, -1, 1);  /* [2, 1] */
  add_block_output (b, add_op (b, PRISM_OP_ACCUM_RESCALE, xt, st, NULL), -1, -1, -1);
  add_block_output (b, add_op (b, PRISM_OP_ACCUM_SUM_RESCALE, xt, s1t, NULL), -1, -1, -1);
  add_kernel (g, b, kin, 3);

  outs = run (g, ins, 3, PRISM_PRECISION_F64, 1);
  assert_shape (out_at (outs, 0), 2, 2, 2, 0);
  assert_shape (out_at (outs, 1), 2, 2, 1, 0);
  for (int r = 0; r < 2; r++)
    {
      double acc1 = 0.0;

      for (int c = 0; c < 2; c++)
        {
          double acc = 0.0;
          for (int i = 0; i < 4; i++)
            acc = acc * at2 (s, r, 2 * i + c) + at2 (x, r, 2 * i + c);
          assert_close (at2 (out_at (outs, 0), r, c), acc, 1e-14);
        }
      for (int i = 0; i < 4; i++)
        acc1 = acc1 * at2 (s1, r, i) + (at2 (x, r, 2 * i) + at2 (x, r, 2 * i + 1));
      assert_close (at2 (out_at (outs, 1), r, 0), acc1, 1e-14);
    }
}

/* The online softmax: over a loop of 4 column tiles, accum_sum_online of
 * exp(x − running max) is Σ exp(x − final max) of the whole row, and
 * accum_online keeps one such sum per column of the tile. */
static void
test_kernel_online (void)
{
  g_autoptr(PrismGraph) g = prism_graph_new ();
  g_autoptr(PrismBuffer) x = random_buffer (2, 2, 8, 0, 18);
  g_autoptr(GPtrArray) outs = NULL;
  PrismBuffer *ins[1] = { x };
  gint64 grid[1] = { 1 };
  PrismGraph *b = prism_block_graph_new_const (1, grid, 128, 4);
  int kin[1], xt, m, r, e;

  /* Rows far apart in size: a stale max would be off by a large factor. */
  for (gint64 c = 0; c < 8; c++)
    x->data[8 + c] = 40.0 * x->data[8 + c] + (double) c;
  kin[0] = add_input (g, 2, 2, 8, 0);
  xt = add_tile (b, g, 0, kin[0], -1, -1, -1, 1);   /* [2, 2] */
  m = add_op (b, PRISM_OP_ACCUM_MAX, add_op_dim (b, PRISM_OP_MAX, xt, 1, 0, 0), -1, NULL);
  r = add_op (b, PRISM_OP_RUNNING_MAX, m, -1, NULL);
  e = add_op (b, PRISM_OP_EXP, add_op (b, PRISM_OP_SUB, xt, r, NULL), -1, NULL);
  add_block_output (b, add_op (b, PRISM_OP_ACCUM_ONLINE, e, r, NULL), -1, -1, -1);
  add_block_output (b, add_op (b, PRISM_OP_ACCUM_SUM_ONLINE, e, r, NULL), -1, -1, -1);
  add_block_output (b, m, -1, -1, -1);
  add_kernel (g, b, kin, 1);

  outs = run (g, ins, 1, PRISM_PRECISION_F64, 1);
  assert_shape (out_at (outs, 0), 2, 2, 2, 0);
  assert_shape (out_at (outs, 1), 2, 2, 1, 0);
  for (int row = 0; row < 2; row++)
    {
      double mx = -INFINITY, sum = 0.0;

      for (int c = 0; c < 8; c++)
        mx = MAX (mx, at2 (x, row, c));
      assert_close (at2 (out_at (outs, 2), row, 0), mx, 0.0);
      for (int c = 0; c < 2; c++)
        {
          double col = 0.0;
          for (int i = 0; i < 4; i++)
            col += exp (at2 (x, row, 2 * i + c) - mx);
          assert_close (at2 (out_at (outs, 0), row, c), col, 1e-13);
          sum += col;
        }
      assert_close (at2 (out_at (outs, 1), row, 0), sum, 1e-13);
    }
}

/* The largest scaled logit (Q @ K)[b, r, j] / √128 of attention_safe's inputs. */
static double
max_logit (const PrismBuffer *q, const PrismBuffer *k)
{
  gint64 nb = q->dims[0], rows = q->dims[1], dh = q->dims[2], keys = k->dims[2];
  double best = -INFINITY;

  for (gint64 bi = 0; bi < nb; bi++)
    for (gint64 r = 0; r < rows; r++)
      for (gint64 j = 0; j < keys; j++)
        {
          double dot = 0.0;
          for (gint64 d = 0; d < dh; d++)
            dot += q->data[(bi * rows + r) * dh + d] * k->data[(bi * dh + d) * keys + j];
          best = MAX (best, dot / sqrt ((double) dh));
        }
  return best;
}

/* The one-kernel flash attention (tests/verify/graphs/attention_safe-online.json)
 * computes what attention_safe computes, also where the logits are large
 * enough that exp without the max overflows: past 11.1 in f16 (scale 4),
 * past 88.7 even in f32 (scale 8). */
static void
test_online_attention (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "verify", "graphs",
                                                 "attention_safe-online.json", NULL);
  g_autoptr(PrismGraph) flash = prism_graph_load (path, NULL, &error);
  g_autoptr(PrismGraph) prog = NULL;
  const double scales[] = { 1.0, 4.0, 8.0 };

  g_assert_no_error (error);
  prog = prism_workload_build ("attention_safe", NULL, &error);
  g_assert_no_error (error);
  for (guint si = 0; si < G_N_ELEMENTS (scales); si++)
    {
      g_autoptr(GPtrArray) ins = prism_interp_make_inputs (prog, 7 + si);
      g_autoptr(GPtrArray) want = NULL, got = NULL;
      PrismBuffer *q = g_ptr_array_index (ins, 0), *k = g_ptr_array_index (ins, 1);
      const PrismBuffer *o1, *o2;
      double top, worst = 0.0, norm = 0.0;

      for (guint t = 0; t < 2; t++)
        {
          PrismBuffer *buf = g_ptr_array_index (ins, t);
          for (gint64 i = 0; i < buf->numel; i++)
            buf->data[i] = prism_dtype_round_value (buf->data[i] * scales[si], PRISM_DTYPE_F16);
        }
      top = max_logit (q, k);
      g_test_message ("scale %g: largest logit %.2f", scales[si], top);
      if (scales[si] == 4.0)
        {
          g_assert_cmpfloat (top, >, 11.1);
          g_assert_true (isinf (prism_dtype_round_value (exp (top), PRISM_DTYPE_F16)));
        }
      if (scales[si] == 8.0)
        g_assert_true (isinf ((float) exp (top)));
      want = run (prog, (PrismBuffer **) ins->pdata, ins->len, PRISM_PRECISION_F32, 2);
      got = run (flash, (PrismBuffer **) ins->pdata, ins->len, PRISM_PRECISION_F32, 2);
      o1 = out_at (want, 0);
      o2 = out_at (got, 0);
      g_assert_true (prism_buffer_same_shape (o1, o2));
      for (gint64 i = 0; i < o1->numel; i++)
        {
          g_assert_true (isfinite (o2->data[i]));
          worst = MAX (worst, fabs (o1->data[i] - o2->data[i]));
          norm = MAX (norm, fabs (o1->data[i]));
        }
      g_test_message ("scale %g: max |difference| %.3g of max |O| %.3g", scales[si], worst, norm);
      g_assert_cmpfloat (worst, <=, 1e-5 * norm);
    }
}

/* Grid and loop split the same dim: block b at iteration i reads the tile
 * (b · F + i).  An order-sensitive accumulator (acc · 2 + x) shows it. */
static void
test_kernel_grid_outer_loop_inner (void)
{
  g_autoptr(PrismGraph) g = prism_graph_new ();
  g_autoptr(PrismBuffer) x = random_buffer (2, 1, 12, 0, 17);
  g_autoptr(PrismBuffer) two = random_buffer (2, 1, 12, 0, 0);
  g_autoptr(GPtrArray) outs = NULL;
  PrismBuffer *ins[2] = { x, two };
  gint64 grid[1] = { 2 };
  PrismGraph *b = prism_block_graph_new_const (1, grid, 128, 3);
  int kin[2];

  for (gint64 i = 0; i < two->numel; i++)
    two->data[i] = 2.0;
  kin[0] = add_input (g, 2, 1, 12, 0);
  kin[1] = add_input (g, 2, 1, 12, 0);
  add_block_output (b, add_op (b, PRISM_OP_ACCUM_RESCALE, add_tile (b, g, 0, kin[0], 1, -1, -1, 1),
                               add_tile (b, g, 1, kin[1], 1, -1, -1, 1), NULL), 1, -1, -1);
  add_kernel (g, b, kin, 2);

  outs = run (g, ins, 2, PRISM_PRECISION_F64, 2);
  assert_shape (out_at (outs, 0), 2, 1, 4, 0);
  for (int blk = 0; blk < 2; blk++)
    for (int c = 0; c < 2; c++)
      {
        double want = 0.0;
        for (int i = 0; i < 3; i++)
          want = want * 2.0 + at2 (x, 0, (blk * 3 + i) * 2 + c);
        assert_close (at2 (out_at (outs, 0), 0, blk * 2 + c), want, 1e-14);
      }
}

/* omap -1 on an axis of size 4 sums the blocks; a second output of the same
 * tile concatenates them instead. */
static GPtrArray *
run_summed_kernel (PrismBuffer *x, guint threads)
{
  g_autoptr(PrismGraph) g = prism_graph_new ();
  gint64 grid[2] = { 4, 3 };
  PrismGraph *b = prism_block_graph_new_const (2, grid, 128, 1);
  int kin[1];
  int acc;

  kin[0] = add_input (g, 2, 6, 8, 0);
  /* x splits the columns (4 × 2), y the rows (3 × 2). */
  acc = add_op (b, PRISM_OP_ACCUM, add_tile (b, g, 0, kin[0], 1, 0, -1, -1), -1, NULL);
  add_block_output (b, acc, -1, 0, -1);
  add_block_output (b, acc, 1, 0, -1);
  add_kernel (g, b, kin, 1);
  return run (g, &x, 1, PRISM_PRECISION_F64, threads);
}

static void
test_kernel_omap_sum (void)
{
  g_autoptr(PrismBuffer) x = random_buffer (2, 6, 8, 0, 18);
  g_autoptr(GPtrArray) outs = run_summed_kernel (x, 1);
  g_autoptr(GPtrArray) outs4 = run_summed_kernel (x, 4);

  assert_shape (out_at (outs, 0), 2, 6, 2, 0);
  assert_shape (out_at (outs, 1), 2, 6, 8, 0);
  for (int r = 0; r < 6; r++)
    {
      for (int c = 0; c < 2; c++)
        assert_close (at2 (out_at (outs, 0), r, c),
                      at2 (x, r, c) + at2 (x, r, c + 2) + at2 (x, r, c + 4) + at2 (x, r, c + 6), 1e-14);
      for (int c = 0; c < 8; c++)
        g_assert_cmpfloat (at2 (out_at (outs, 1), r, c), ==, at2 (x, r, c));
    }
  for (guint i = 0; i < 2; i++)
    g_assert_true (buffers_identical (out_at (outs, i), out_at (outs4, i)));
}

/* Two grid axes mapped crosswise: the input tile at block (bx, by) is
 * X[by·2 + i, bx·2 + j]; one output puts it back in place, the other writes
 * it transposed by blocks. */
static void
test_kernel_maps_2d (void)
{
  g_autoptr(PrismGraph) g = prism_graph_new ();
  g_autoptr(PrismBuffer) x = random_buffer (2, 4, 6, 0, 19);
  g_autoptr(GPtrArray) outs = NULL;
  gint64 grid[2] = { 3, 2 };
  PrismGraph *b = prism_block_graph_new_const (2, grid, 128, 1);
  int kin[1];
  int acc;

  kin[0] = add_input (g, 2, 4, 6, 0);
  acc = add_op (b, PRISM_OP_ACCUM, add_op (b, PRISM_OP_EXP, add_tile (b, g, 0, kin[0], 1, 0, -1, -1),
                                           -1, NULL), -1, NULL);
  add_block_output (b, acc, 1, 0, -1);
  add_block_output (b, acc, 0, 1, -1);
  add_kernel (g, b, kin, 1);

  outs = run (g, &x, 1, PRISM_PRECISION_F64, 3);
  assert_shape (out_at (outs, 0), 2, 4, 6, 0);
  assert_shape (out_at (outs, 1), 2, 6, 4, 0);
  for (int bx = 0; bx < 3; bx++)
    for (int by = 0; by < 2; by++)
      for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
          {
            double want = exp (at2 (x, by * 2 + i, bx * 2 + j));
            assert_close (at2 (out_at (outs, 0), by * 2 + i, bx * 2 + j), want, 1e-15);
            assert_close (at2 (out_at (outs, 1), bx * 2 + i, by * 2 + j), want, 1e-15);
          }
}

/* Block-level matmul, concat, sum and rms_norm. */
static void
test_kernel_block_ops (void)
{
  g_autoptr(PrismGraph) g = prism_graph_new ();
  g_autoptr(PrismBuffer) x = random_buffer (2, 4, 8, 0, 20);
  g_autoptr(PrismBuffer) w = random_buffer (2, 8, 6, 0, 21);
  g_autoptr(GPtrArray) outs = NULL;
  PrismBuffer *ins[2] = { x, w };
  gint64 grid[1] = { 2 };
  PrismGraph *b = prism_block_graph_new_const (1, grid, 128, 2);
  PrismOpAttrs cat;
  int kin[2];
  int xt, wt, c, s, rn;
  PrismBuffer *o;

  kin[0] = add_input (g, 2, 4, 8, 0);
  kin[1] = add_input (g, 2, 8, 6, 0);
  xt = add_tile (b, g, 0, kin[0], -1, -1, -1, 1);  /* [4, 4] */
  wt = add_tile (b, g, 1, kin[1], 1, -1, -1, 0);   /* [4, 3] */
  add_block_output (b, add_op (b, PRISM_OP_ACCUM, add_op (b, PRISM_OP_MATMUL, xt, wt, NULL), -1,
                               NULL), 1, -1, -1);
  prism_op_attrs_init (&cat);
  cat.dim = 1;
  c = add_op (b, PRISM_OP_CONCAT, xt, xt, &cat);              /* [4, 8] */
  s = add_op_dim (b, PRISM_OP_SUM, c, 1, 1, 0);               /* [4, 1] */
  add_block_output (b, add_op (b, PRISM_OP_ACCUM, s, -1, NULL), -1, -1, -1);
  rn = add_op_dim (b, PRISM_OP_RMS_NORM, xt, 0, 1, 0);         /* [4, 4] */
  add_block_output (b, add_op (b, PRISM_OP_ACCUM, rn, -1, NULL), -1, -1, -1);
  add_kernel (g, b, kin, 2);

  outs = run (g, ins, 2, PRISM_PRECISION_F64, 2);
  o = out_at (outs, 0);
  assert_shape (o, 2, 4, 6, 0);
  for (int r = 0; r < 4; r++)
    for (int j = 0; j < 6; j++)
      {
        double want = 0.0;
        for (int p = 0; p < 8; p++)
          want += at2 (x, r, p) * at2 (w, p, j);
        assert_close (at2 (o, r, j), want, 1e-13);
      }
  /* Every block sums the concatenated row (2 × the row) over the loop, and
   * the two blocks are summed (omap -1): 4 × Σ row. */
  assert_shape (out_at (outs, 1), 2, 4, 1, 0);
  assert_shape (out_at (outs, 2), 2, 4, 4, 0);
  for (int r = 0; r < 4; r++)
    {
      double sum = 0.0;
      for (int c2 = 0; c2 < 8; c2++)
        sum += at2 (x, r, c2);
      assert_close (at2 (out_at (outs, 1), r, 0), 4.0 * sum, 1e-13);
      for (int c2 = 0; c2 < 4; c2++)
        {
          double want = 0.0;
          for (int i = 0; i < 2; i++)
            {
              double ss = 0.0;
              for (int t = 0; t < 4; t++)
                ss += at2 (x, r, 4 * i + t) * at2 (x, r, 4 * i + t);
              want += at2 (x, r, 4 * i + c2) / sqrt (ss / 4.0);
            }
          assert_close (at2 (out_at (outs, 2), r, c2), 2.0 * want, 1e-13);
        }
    }
}

/* Precision, determinism, errors ----------------------------------------- */

static void
test_precision (void)
{
  g_autoptr(PrismGraph) g = prism_graph_new ();
  g_autoptr(PrismBuffer) x = random_buffer (2, 16, 64, 0, 22);
  g_autoptr(PrismBuffer) w = random_buffer (2, 64, 32, 0, 23);
  g_autoptr(GPtrArray) f32 = NULL;
  g_autoptr(GPtrArray) f64 = NULL;
  PrismBuffer *ins[2] = { x, w };
  int tx = add_input (g, 2, 16, 64, 0);
  int tw = add_input (g, 2, 64, 32, 0);
  int e = add_op (g, PRISM_OP_EXP, add_op (g, PRISM_OP_MATMUL, tx, tw, NULL), -1, NULL);
  PrismBuffer *o32, *o64;
  double err;

  prism_graph_add_output (g, (guint) add_op (g, PRISM_OP_DIV, e, add_op_dim (g, PRISM_OP_SUM, e, 1, 1, 0),
                                             NULL), NULL, NULL);
  f32 = run (g, ins, 2, PRISM_PRECISION_F32, 1);
  f64 = run (g, ins, 2, PRISM_PRECISION_F64, 1);
  o32 = out_at (f32, 0);
  o64 = out_at (f64, 0);
  for (gint64 i = 0; i < o32->numel; i++)
    g_assert_cmpfloat (o32->data[i], ==, (double) (float) o32->data[i]);
  /* f32 differs from f64 (inputs are not floats), by float rounding only. */
  err = prism_buffer_max_rel_error (o32, o64);
  g_assert_cmpfloat (err, >, 0.0);
  g_assert_cmpfloat (err, <, 1e-5);
  /* f64 is exact against a direct computation. */
  for (int r = 0; r < 16; r++)
    {
      double row[32], z = 0.0;
      for (int j = 0; j < 32; j++)
        {
          double dot = 0.0;
          for (int p = 0; p < 64; p++)
            dot += at2 (x, r, p) * at2 (w, p, j);
          row[j] = exp (dot);
          z += row[j];
        }
      for (int j = 0; j < 32; j++)
        assert_close (at2 (o64, r, j), row[j] / z, 1e-13);
    }
}

static void
test_determinism (void)
{
  static const char * const names[] = { "gqa", "attention", "lora" };
  static const char * const params[] = { "b=2,q=32,kv=512,dh=16", "b=1,h=4,q=2,kv=128,dh=32",
                                         "n=4,d=64,r=4,o=512" };

  for (guint w = 0; w < G_N_ELEMENTS (names); w++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(PrismGraph) ref = prism_workload_build_reference (names[w], params[w], &error);
      g_autoptr(PrismGraph) prog = NULL;
      g_autoptr(GPtrArray) ins = NULL;
      g_autoptr(GPtrArray) a = NULL;
      g_autoptr(GPtrArray) b = NULL;
      g_autoptr(GPtrArray) c = NULL;
      g_autoptr(GPtrArray) p1 = NULL;
      g_autoptr(GPtrArray) p4 = NULL;

      g_assert_no_error (error);
      prog = prism_workload_build (names[w], params[w], &error);
      g_assert_no_error (error);
      ins = prism_interp_make_inputs (ref, 99);
      a = run (ref, (PrismBuffer **) ins->pdata, ins->len, PRISM_PRECISION_F32, 1);
      b = run (ref, (PrismBuffer **) ins->pdata, ins->len, PRISM_PRECISION_F32, 4);
      c = run (ref, (PrismBuffer **) ins->pdata, ins->len, PRISM_PRECISION_F32, 4);
      g_assert_true (buffers_identical (out_at (a, 0), out_at (b, 0)));
      g_assert_true (buffers_identical (out_at (b, 0), out_at (c, 0)));
      p1 = run (prog, (PrismBuffer **) ins->pdata, ins->len, PRISM_PRECISION_F64, 1);
      p4 = run (prog, (PrismBuffer **) ins->pdata, ins->len, PRISM_PRECISION_F64, 3);
      g_assert_true (buffers_identical (out_at (p1, 0), out_at (p4, 0)));
    }
}

static void
test_make_inputs (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismGraph) g = prism_workload_build ("lora", "n=4,d=8,r=2,o=16", &error);
  g_autoptr(GPtrArray) a = NULL;
  g_autoptr(GPtrArray) b = NULL;

  g_assert_no_error (error);
  a = prism_interp_make_inputs (g, 5);
  b = prism_interp_make_inputs (g, 5);
  g_assert_cmpuint (a->len, ==, 4);
  assert_shape (out_at (a, 0), 2, 4, 8, 0);
  assert_shape (out_at (a, 3), 2, 2, 16, 0);
  for (guint k = 0; k < a->len; k++)
    {
      PrismBuffer *r = prism_buffer_copy (out_at (a, k));
      g_assert_true (buffers_identical (out_at (a, k), out_at (b, k)));
      /* Values are f16 values already. */
      prism_buffer_round_to_dtype (r, PRISM_DTYPE_F16);
      g_assert_true (buffers_identical (r, out_at (a, k)));
      prism_buffer_free (r);
    }
  /* Input k is seeded with seed + k. */
  g_assert_false (buffers_identical (out_at (a, 0), out_at (a, 1)));
}

static void
test_errors (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismGraph) g = prism_graph_new ();
  g_autoptr(PrismGraph) sym = prism_graph_new ();
  g_autoptr(PrismBuffer) x = random_buffer (2, 4, 8, 0, 1);
  g_autoptr(PrismBuffer) bad = random_buffer (2, 8, 4, 0, 1);
  g_autoptr(PrismDim) gx = NULL;
  g_autoptr(PrismDim) f = prism_dim_const (1);
  g_autoptr(GPtrArray) outs = NULL;
  PrismBuffer *two[2] = { x, x };
  PrismGraph *b;
  int t, kin[1];

  t = add_input (g, 2, 4, 8, 0);
  prism_graph_add_output (g, (guint) add_op (g, PRISM_OP_EXP, t, -1, NULL), NULL, NULL);

  outs = prism_interp_run (g, two, 2, NULL, &error);
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_INVALID_GRAPH);
  g_assert_null (outs);
  g_clear_error (&error);

  outs = prism_interp_run (g, &bad, 1, NULL, &error);
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_INVALID_GRAPH);
  g_assert_nonnull (strstr (error->message, "[4, 8]"));
  g_assert_null (outs);
  g_clear_error (&error);

  /* A kernel whose grid size is a variable is not concrete. */
  gx = prism_dim_var (prism_graph_add_var (sym, "gx"));
  kin[0] = add_input (sym, 2, 4, 8, 0);
  b = prism_block_graph_new (1, &gx, 128, f);
  add_block_output (b, add_op (b, PRISM_OP_ACCUM, add_tile (b, sym, 0, kin[0], 0, -1, -1, -1), -1,
                               NULL), 0, -1, -1);
  add_kernel (sym, b, kin, 1);
  g_assert_false (prism_graph_is_concrete (sym));
  outs = prism_interp_run (sym, &x, 1, NULL, &error);
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED);
  g_assert_null (outs);
}

/* Budgets ------------------------------------------------------------------ */

/* X[dims] → neg → output. */
static PrismGraph *
neg_of (guint ndims, const gint64 *dims)
{
  g_autoptr(GError) error = NULL;
  PrismGraph *g = prism_graph_new ();
  int t = prism_graph_add_input (g, "X", ndims, dims, PRISM_DTYPE_F32, &error);

  g_assert_no_error (error);
  prism_graph_add_output (g, (guint) add_op (g, PRISM_OP_NEG, t, -1, NULL), NULL, &error);
  g_assert_no_error (error);
  return g;
}

/* A buffer whose size overflows is refused, not computed with a wrapped
 * signed product (UBSan reported it). */
static void
test_buffer_overflow (void)
{
  gint64 huge[4] = { 1 << 20, 1 << 20, 1 << 20, 1 << 20 };
  gint64 dims[2] = { 3, 5 };
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismBuffer) ok = NULL;
  PrismBuffer *b;
  gint64 numel = 0;

  g_assert_false (prism_buffer_numel_checked (4, huge, &numel));
  b = prism_buffer_try_new (4, huge, &error);
  g_assert_null (b);
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_LIMIT);
  g_assert_true (prism_buffer_numel_checked (2, dims, &numel));
  g_assert_cmpint (numel, ==, 15);
  ok = prism_buffer_try_new (2, dims, NULL);
  g_assert_cmpint (ok->numel, ==, 15);
}

/* Tensors beyond memory (8 TiB, and 2^80 elements) are refused before any
 * allocation, naming the tensor and the bytes; make_inputs makes inputs
 * without data instead of aborting. */
static void
test_budget_memory (void)
{
  static const gint64 shapes[][4] = {
    { 1 << 20, 1 << 20 },
    { 1 << 20, 1 << 20, 1 << 20, 1 << 20 },
  };
  static const guint ranks[] = { 2, 4 };

  for (guint i = 0; i < G_N_ELEMENTS (ranks); i++)
    {
      g_autoptr(PrismGraph) g = neg_of (ranks[i], shapes[i]);
      g_autoptr(GPtrArray) inputs = prism_interp_make_inputs (g, 1);
      g_autoptr(GPtrArray) outs = NULL;
      g_autoptr(GError) error = NULL;
      PrismBuffer *x;

      g_assert_cmpuint (inputs->len, ==, 1);
      x = g_ptr_array_index (inputs, 0);
      g_assert_null (x->data);
      g_assert_cmpint (x->dims[0], ==, 1 << 20);
      outs = prism_interp_run (g, (PrismBuffer **) inputs->pdata, 1, NULL, &error);
      g_assert_null (outs);
      g_assert_error (error, PRISM_ERROR, PRISM_ERROR_LIMIT);
      g_assert_nonnull (strstr (error->message, "“X”"));
      g_assert_nonnull (strstr (error->message, "bytes"));
      g_test_message ("%s", error->message);
      g_clear_error (&error);
      g_assert_false (prism_interp_check_budget (g, NULL, NULL, &error));
      g_assert_error (error, PRISM_ERROR, PRISM_ERROR_LIMIT);
    }
}

/* The options' budgets: too little memory or work refuses a workload that
 * runs with the defaults, naming what it needs. */
static void
test_budget_options (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismGraph) g = prism_workload_build ("rms_norm", "n=4,d=256", &error);
  g_autoptr(GPtrArray) inputs = prism_interp_make_inputs (g, 1);
  PrismInterpOptions opts = { PRISM_PRECISION_F64, 1, 0, 0 };
  PrismInterpCost cost;
  GPtrArray *outs;

  g_assert_no_error (error);
  g_assert_true (prism_interp_check_budget (g, &opts, &cost, &error));
  g_assert_no_error (error);
  /* W is 256 × 256 doubles; the matmul 4 × 256 × 256 multiply-adds. */
  g_assert_cmpuint (cost.memory, >=, 256 * 256 * 8);
  g_assert_cmpuint (cost.memory, <, 4 * 256 * 256 * 8);
  g_assert_cmpuint (cost.work, >=, 4 * 256 * 256);
  g_assert_cmpuint (cost.work, <, 4 * 4 * 256 * 256);

  opts.max_memory = cost.memory - 1;
  outs = prism_interp_run (g, (PrismBuffer **) inputs->pdata, inputs->len, &opts, &error);
  g_assert_null (outs);
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_LIMIT);
  g_assert_nonnull (strstr (error->message, "memory budget"));
  g_clear_error (&error);

  opts.max_memory = cost.memory;
  opts.max_work = cost.work - 1;
  outs = prism_interp_run (g, (PrismBuffer **) inputs->pdata, inputs->len, &opts, &error);
  g_assert_null (outs);
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_LIMIT);
  g_assert_nonnull (strstr (error->message, "work budget"));
  g_assert_nonnull (strstr (error->message, "matmul"));
  g_clear_error (&error);

  opts.max_work = cost.work;
  outs = prism_interp_run (g, (PrismBuffer **) inputs->pdata, inputs->len, &opts, &error);
  g_assert_no_error (error);
  g_ptr_array_unref (outs);
}

/* exp(X) summed over every block of a grid of @blocks and @iters loop
 * iterations, every block reading all of X. */
static PrismGraph *
busy_kernel (gint64 blocks, gint64 iters)
{
  g_autoptr(GError) error = NULL;
  PrismGraph *g = prism_graph_new ();
  PrismGraph *b = prism_block_graph_new_const (1, &blocks, 128, iters);
  int x = add_input (g, 2, 4, 8, 0);
  int t = add_tile (b, g, 0, x, -1, -1, -1, -1);

  t = add_op (b, PRISM_OP_EXP, t, -1, NULL);
  add_block_output (b, add_op (b, PRISM_OP_ACCUM, t, -1, NULL), -1, -1, -1);
  add_kernel (g, b, &x, 1);
  return g;
}

/* A grid of 10^9 blocks or a loop of 2^31 - 1 iterations used to run for
 * hours: refused at once by the default work budget. */
static void
test_budget_work (void)
{
  static const gint64 cases[][2] = { { 1000000000, 1 }, { 1, G_MAXINT32 } };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(PrismGraph) g = busy_kernel (cases[i][0], cases[i][1]);
      g_autoptr(GPtrArray) inputs = prism_interp_make_inputs (g, 1);
      g_autoptr(GPtrArray) outs = NULL;
      g_autoptr(GError) error = NULL;

      outs = prism_interp_run (g, (PrismBuffer **) inputs->pdata, inputs->len, NULL, &error);
      g_assert_null (outs);
      g_assert_error (error, PRISM_ERROR, PRISM_ERROR_LIMIT);
      g_assert_nonnull (strstr (error->message, "work budget"));
      g_assert_nonnull (strstr (error->message, "op 1 (kernel)"));
      g_test_message ("%s", error->message);
    }
  /* A small one runs, and sums exp(X) over its blocks and iterations. */
  {
    g_autoptr(PrismGraph) g = busy_kernel (3, 5);
    g_autoptr(GPtrArray) inputs = prism_interp_make_inputs (g, 1);
    g_autoptr(GPtrArray) outs = NULL;
    g_autoptr(GError) error = NULL;
    const PrismBuffer *x = g_ptr_array_index (inputs, 0);

    outs = prism_interp_run (g, (PrismBuffer **) inputs->pdata, inputs->len, NULL, &error);
    g_assert_no_error (error);
    assert_close (((PrismBuffer *) g_ptr_array_index (outs, 0))->data[7], 15 * exp (x->data[7]), 1e-12);
  }
}

/* A cancelled current GCancellable stops a run (the search's stop reaches
 * the interpreter this way). */
static void
test_cancel (void)
{
  g_autoptr(PrismGraph) g = busy_kernel (1000, 1000);
  g_autoptr(GPtrArray) inputs = prism_interp_make_inputs (g, 1);
  g_autoptr(GCancellable) cancel = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  GPtrArray *outs;

  g_cancellable_push_current (cancel);
  g_assert_false (prism_cancelled ());
  g_cancellable_cancel (cancel);
  g_assert_true (prism_cancelled ());
  outs = prism_interp_run (g, (PrismBuffer **) inputs->pdata, inputs->len, NULL, &error);
  g_cancellable_pop_current (cancel);
  g_assert_null (outs);
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_CANCELLED);
  g_assert_false (prism_cancelled ());
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/interp/buffer/random", test_buffer_random);
  g_test_add_func ("/interp/buffer/round", test_buffer_round);
  g_test_add_func ("/interp/buffer/metrics", test_buffer_metrics);
  g_test_add_func ("/interp/op/unary", test_unary);
  g_test_add_func ("/interp/op/binary-broadcast", test_binary_broadcast);
  g_test_add_func ("/interp/op/matmul", test_matmul);
  g_test_add_func ("/interp/op/sum", test_sum);
  g_test_add_func ("/interp/op/rms-norm", test_rms_norm);
  g_test_add_func ("/interp/op/rms-norm-eps", test_rms_norm_eps);
  g_test_add_func ("/interp/op/max-mean", test_max_mean);
  g_test_add_func ("/interp/op/maximum-constant", test_maximum_constant);
  g_test_add_func ("/interp/op/transpose", test_transpose);
  g_test_add_func ("/interp/kernel/constant", test_kernel_constant);
  g_test_add_func ("/interp/kernel/accum-epilogue", test_kernel_accum_epilogue);
  g_test_add_func ("/interp/kernel/reducing-accums", test_kernel_reducing_accums);
  g_test_add_func ("/interp/kernel/rescale", test_kernel_rescale);
  g_test_add_func ("/interp/kernel/online", test_kernel_online);
  g_test_add_func ("/interp/kernel/online-attention", test_online_attention);
  g_test_add_func ("/interp/kernel/grid-outer-loop-inner", test_kernel_grid_outer_loop_inner);
  g_test_add_func ("/interp/kernel/omap-sum", test_kernel_omap_sum);
  g_test_add_func ("/interp/kernel/maps-2d", test_kernel_maps_2d);
  g_test_add_func ("/interp/kernel/block-ops", test_kernel_block_ops);
  g_test_add_func ("/interp/precision", test_precision);
  g_test_add_func ("/interp/determinism", test_determinism);
  g_test_add_func ("/interp/make-inputs", test_make_inputs);
  g_test_add_func ("/interp/errors", test_errors);
  g_test_add_func ("/interp/budget/buffer-overflow", test_buffer_overflow);
  g_test_add_func ("/interp/budget/memory", test_budget_memory);
  g_test_add_func ("/interp/budget/options", test_budget_options);
  g_test_add_func ("/interp/budget/work", test_budget_work);
  g_test_add_func ("/interp/cancel", test_cancel);

  return g_test_run ();
}
