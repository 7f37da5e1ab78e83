/* test-abstract-expr.c — abstract expressions of every op kind, both levels,
 * concrete and untiled sizes
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "prism-abstract-expr.h"
#include "prism-error.h"
#include "prism-workload.h"

static int
add_input (PrismGraph *g, const char *name, gint64 d0, gint64 d1)
{
  g_autoptr(GError) error = NULL;
  gint64 dims[2] = { d0, d1 };
  int t = prism_graph_add_input (g, name, 2, dims, PRISM_DTYPE_F16, &error);

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
add_attr (PrismGraph *g, PrismOpKind kind, int a, int dim, guint norm_dims, guint dimx)
{
  PrismOpAttrs attrs;

  prism_op_attrs_init (&attrs);
  attrs.dim = dim;
  attrs.norm_dims = norm_dims;
  attrs.dimx = dimx;
  return add_op (g, kind, a, -1, &attrs);
}

/* The printed expression of a kernel tensor. */
static char *
kexpr (const PrismGraph *g, int t, PrismAbstractMode mode)
{
  g_autoptr(GError) error = NULL;
  char *s = prism_abstract_expr_to_string (g, (guint) t, mode, &error);

  g_assert_no_error (error);
  g_assert_nonnull (s);
  return s;
}

/* The printed expression of a tensor of @block (open, or a kernel's body). */
static char *
bexpr (const PrismGraph *g, const PrismGraph *block, const guint *ins, int t,
       PrismAbstractMode mode)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismTerm) term = prism_abstract_expr_of_tensor (g, block, ins, TRUE, (guint) t,
                                                             mode, &error);

  g_assert_no_error (error);
  g_assert_nonnull (term);
  return prism_term_to_string (term);
}

#define assert_kexpr(g, t, mode, want) \
  G_STMT_START { \
    g_autofree char *got_ = kexpr ((g), (t), (mode)); \
    g_assert_cmpstr (got_, ==, (want)); \
  } G_STMT_END

#define assert_bexpr(g, b, ins, t, mode, want) \
  G_STMT_START { \
    g_autofree char *got_ = bexpr ((g), (b), (ins), (t), (mode)); \
    g_assert_cmpstr (got_, ==, (want)); \
  } G_STMT_END

static void
test_kernel_ops (void)
{
  g_autoptr(PrismGraph) g = prism_graph_new ();
  int x = add_input (g, "X", 8, 64);
  int w = add_input (g, "W", 64, 32);
  int y = add_input (g, "Y", 8, 64);
  int one = add_input (g, "S", 8, 1);
  static const struct
  {
    PrismOpKind kind;
    const char *want;
  } unary[] = {
    { PRISM_OP_EXP, "(exp v0)" },
    { PRISM_OP_SQUARE, "(square v0)" },
    { PRISM_OP_SQRT, "(sqrt v0)" },
    { PRISM_OP_SILU, "(silu v0)" },
    { PRISM_OP_GELU, "(gelu v0)" },
    { PRISM_OP_RELU, "(relu v0)" },
    { PRISM_OP_NEG, "(neg v0)" },
  }, binary[] = {
    { PRISM_OP_ADD, "(+ v0 v2)" },
    { PRISM_OP_SUB, "(+ v0 (neg v2))" },
    { PRISM_OP_MUL, "(* v0 v2)" },
    { PRISM_OP_DIV, "(/ v0 v2)" },
    { PRISM_OP_POW, "(pow v0 v2)" },
  };

  assert_kexpr (g, x, PRISM_ABSTRACT_CONCRETE, "v0");
  assert_kexpr (g, one, PRISM_ABSTRACT_UNTILED, "v3");
  for (guint i = 0; i < G_N_ELEMENTS (unary); i++)
    assert_kexpr (g, add_op (g, unary[i].kind, x, -1, NULL), PRISM_ABSTRACT_CONCRETE,
                  unary[i].want);
  for (guint i = 0; i < G_N_ELEMENTS (binary); i++)
    assert_kexpr (g, add_op (g, binary[i].kind, x, y, NULL), PRISM_ABSTRACT_CONCRETE,
                  binary[i].want);

  /* matmul sums over A's last dim; sum over the named dim; degree 1 vanishes. */
  assert_kexpr (g, add_op (g, PRISM_OP_MATMUL, x, w, NULL), PRISM_ABSTRACT_CONCRETE,
                "(sum 64 (* v0 v1))");
  assert_kexpr (g, add_attr (g, PRISM_OP_SUM, x, 1, 1, 0), PRISM_ABSTRACT_CONCRETE,
                "(sum 64 v0)");
  assert_kexpr (g, add_attr (g, PRISM_OP_SUM, x, 0, 1, 0), PRISM_ABSTRACT_UNTILED,
                "(sum 8 v0)");
  assert_kexpr (g, add_attr (g, PRISM_OP_SUM, one, 1, 1, 0), PRISM_ABSTRACT_CONCRETE, "v3");
  assert_kexpr (g, add_attr (g, PRISM_OP_SUM, add_attr (g, PRISM_OP_SUM, x, 1, 1, 0), 1, 1, 0),
                PRISM_ABSTRACT_CONCRETE, "(sum 64 v0)");

  /* rms_norm over the trailing norm_dims dims. */
  assert_kexpr (g, add_attr (g, PRISM_OP_RMS_NORM, x, 0, 1, 0), PRISM_ABSTRACT_CONCRETE,
                "(/ v0 (rms 64 v0))");
  assert_kexpr (g, add_attr (g, PRISM_OP_RMS_NORM, x, 0, 2, 0), PRISM_ABSTRACT_UNTILED,
                "(/ v0 (rms 512 v0))");
  assert_kexpr (g, add_attr (g, PRISM_OP_RMS_NORM, one, 0, 1, 0), PRISM_ABSTRACT_UNTILED,
                "(/ v3 v3)");

  /* Nested: broadcasting keeps the sizes right. */
  {
    int s = add_attr (g, PRISM_OP_SUM, add_op (g, PRISM_OP_EXP, x, -1, NULL), 1, 1, 0);
    int d = add_op (g, PRISM_OP_DIV, add_op (g, PRISM_OP_EXP, x, -1, NULL), s, NULL);
    assert_kexpr (g, add_op (g, PRISM_OP_MATMUL, d, w, NULL), PRISM_ABSTRACT_AUTO,
                  "(sum 64 (* (/ (exp v0) (sum 64 (exp v0))) v1))");
  }
}

/* A kernel over X [8, 64], W [64, 32], Y [8, 64], S [8, 1]: grid 2 splits
 * W's columns, the loop (4) splits the contraction dim. */
typedef struct
{
  PrismGraph *g;
  PrismGraph *b;
  guint ins[4];
  int xt, wt, yt, st;
} Fixture;

static void
fixture_init (Fixture *f, gboolean symbolic)
{
  g_autoptr(GError) error = NULL;
  int rep[3] = { -1, -1, -1 }, col[3] = { 1, -1, -1 };
  const PrismTensor *t;

  f->g = prism_graph_new ();
  f->ins[0] = (guint) add_input (f->g, "X", 8, 64);
  f->ins[1] = (guint) add_input (f->g, "W", 64, 32);
  f->ins[2] = (guint) add_input (f->g, "Y", 8, 64);
  f->ins[3] = (guint) add_input (f->g, "S", 8, 1);
  if (symbolic)
    {
      guint gx = prism_graph_add_var (f->g, "gx");
      guint ff = prism_graph_add_var (f->g, "F");
      g_autoptr(PrismDim) dgx = prism_dim_var (gx);
      g_autoptr(PrismDim) dff = prism_dim_var (ff);
      PrismDim *grid[1] = { dgx };

      f->b = prism_block_graph_new (1, grid, 128, dff);
      f->b->symbolic_maps = TRUE;
      for (guint p = 0; p < 3; p++)
        rep[p] = col[p] = p == 0 ? PRISM_MAP_UNKNOWN : PRISM_MAP_REPLICATE;
    }
  else
    {
      gint64 grid[1] = { 2 };
      f->b = prism_block_graph_new_const (1, grid, 128, 4);
    }
  t = prism_graph_tensor (f->g, f->ins[0]);
  f->xt = prism_block_graph_add_input (f->b, 0, 2, t->dims, t->dtype, rep,
                                       symbolic ? PRISM_MAP_UNKNOWN : 1, &error);
  g_assert_no_error (error);
  t = prism_graph_tensor (f->g, f->ins[1]);
  f->wt = prism_block_graph_add_input (f->b, 1, 2, t->dims, t->dtype, col,
                                       symbolic ? PRISM_MAP_UNKNOWN : 0, &error);
  g_assert_no_error (error);
  t = prism_graph_tensor (f->g, f->ins[2]);
  f->yt = prism_block_graph_add_input (f->b, 2, 2, t->dims, t->dtype, rep,
                                       symbolic ? PRISM_MAP_UNKNOWN : 1, &error);
  g_assert_no_error (error);
  t = prism_graph_tensor (f->g, f->ins[3]);
  f->st = prism_block_graph_add_input (f->b, 3, 2, t->dims, t->dtype, rep,
                                       symbolic ? PRISM_MAP_UNKNOWN : PRISM_MAP_REPLICATE,
                                       &error);
  g_assert_no_error (error);
}

static void
fixture_clear (Fixture *f)
{
  g_clear_pointer (&f->b, prism_graph_unref);
  g_clear_pointer (&f->g, prism_graph_unref);
}

static void
test_block_ops_concrete (void)
{
  Fixture f;
  const PrismAbstractMode C = PRISM_ABSTRACT_CONCRETE, U = PRISM_ABSTRACT_UNTILED;
  int mm, acc, sm, rn, cat, cat_w, w2;

  fixture_init (&f, FALSE);

  /* Partitioning is invisible: a tile is its input's expression. */
  assert_bexpr (f.g, f.b, f.ins, f.xt, C, "v0");
  assert_bexpr (f.g, f.b, f.ins, f.st, U, "v3");

  /* matmul over the tile's K (64 / loop 4 = 16); untiled: the whole K. */
  mm = add_op (f.b, PRISM_OP_MATMUL, f.xt, f.wt, NULL);
  assert_bexpr (f.g, f.b, f.ins, mm, C, "(sum 16 (* v0 v1))");
  assert_bexpr (f.g, f.b, f.ins, mm, U, "(sum 64 (* v0 v1))");
  acc = add_op (f.b, PRISM_OP_ACCUM, mm, -1, NULL);
  assert_bexpr (f.g, f.b, f.ins, acc, C, "(sum 4 (sum 16 (* v0 v1)))");
  assert_bexpr (f.g, f.b, f.ins, acc, U, "(sum 64 (* v0 v1))");
  assert_bexpr (f.g, f.b, f.ins, acc, PRISM_ABSTRACT_AUTO, "(sum 4 (sum 16 (* v0 v1)))");

  /* The accumulators over the tile's last dim (16) and the loop (4). */
  assert_bexpr (f.g, f.b, f.ins, add_op (f.b, PRISM_OP_ACCUM_SUM, f.xt, -1, NULL), C,
                "(sum 64 v0)");
  assert_bexpr (f.g, f.b, f.ins, add_op (f.b, PRISM_OP_ACCUM_SUM, f.xt, -1, NULL), U,
                "(sum 64 v0)");
  assert_bexpr (f.g, f.b, f.ins, add_op (f.b, PRISM_OP_ACCUM_MEAN, f.xt, -1, NULL), C,
                "(/ (sum 64 v0) 64)");
  assert_bexpr (f.g, f.b, f.ins, add_op (f.b, PRISM_OP_ACCUM_RMS, f.xt, -1, NULL), C,
                "(rms 64 v0)");
  assert_bexpr (f.g, f.b, f.ins, add_attr (f.b, PRISM_OP_ACCUM_SUM_TODIMX, f.xt, 0, 1, 8), C,
                "(sum 8 v0)");
  assert_bexpr (f.g, f.b, f.ins, add_attr (f.b, PRISM_OP_ACCUM_SUM_TODIMX, f.xt, 0, 1, 16), C,
                "(sum 4 v0)");
  /* accum_max is a maximum over the loop, like the max op over a dim. */
  assert_bexpr (f.g, f.b, f.ins, add_op (f.b, PRISM_OP_ACCUM_MAX, f.xt, -1, NULL), C,
                "(max 4 v0)");
  assert_bexpr (f.g, f.b, f.ins, add_op (f.b, PRISM_OP_ACCUM_MAX, f.xt, -1, NULL), U, "v0");
  assert_bexpr (f.g, f.b, f.ins, add_attr (f.b, PRISM_OP_MAX, f.xt, 1, 1, 0), C, "(max 16 v0)");
  assert_bexpr (f.g, f.b, f.ins, add_op (f.b, PRISM_OP_ACCUM_RESCALE, f.xt, f.yt, NULL), C,
                "(accum_rescale 4 v0 v2)");
  assert_bexpr (f.g, f.b, f.ins, add_op (f.b, PRISM_OP_ACCUM_SUM_RESCALE, f.xt, f.st, NULL), C,
                "(accum_sum_rescale 64 v0 v3)");
  /* An accumulator over a last dim of 1 and a loop of 1 (untiled) vanishes. */
  assert_bexpr (f.g, f.b, f.ins, add_op (f.b, PRISM_OP_ACCUM_SUM, f.st, -1, NULL), U, "v3");
  assert_bexpr (f.g, f.b, f.ins, add_op (f.b, PRISM_OP_ACCUM_MEAN, f.st, -1, NULL), U, "v3");

  /* Block sum and rms_norm over tile dims. */
  sm = add_attr (f.b, PRISM_OP_SUM, f.xt, 1, 1, 0);
  assert_bexpr (f.g, f.b, f.ins, sm, C, "(sum 16 v0)");
  assert_bexpr (f.g, f.b, f.ins, sm, U, "(sum 64 v0)");
  rn = add_attr (f.b, PRISM_OP_RMS_NORM, f.xt, 0, 1, 0);
  assert_bexpr (f.g, f.b, f.ins, rn, C, "(/ v0 (rms 16 v0))");
  assert_bexpr (f.g, f.b, f.ins, rn, U, "(/ v0 (rms 64 v0))");
  assert_bexpr (f.g, f.b, f.ins, add_op (f.b, PRISM_OP_SUB, f.xt, f.yt, NULL), C,
                "(+ v0 (neg v2))");

  /* concat is uninterpreted, except concat(x, y) @ concat(w, w) along K. */
  {
    g_autoptr(GError) error = NULL;
    PrismOpAttrs attrs;
    guint in[2];

    prism_op_attrs_init (&attrs);
    attrs.dim = 1;
    in[0] = (guint) f.xt;
    in[1] = (guint) f.yt;
    cat = prism_graph_add (f.b, PRISM_OP_CONCAT, in, 2, &attrs, &error);
    g_assert_no_error (error);
    assert_bexpr (f.g, f.b, f.ins, cat, C, "(concat v0 v2)");
    w2 = add_op (f.b, PRISM_OP_EXP, f.wt, -1, NULL);
    attrs.dim = 0;
    in[0] = (guint) f.wt;
    in[1] = (guint) w2;
    cat_w = prism_graph_add (f.b, PRISM_OP_CONCAT, in, 2, &attrs, &error);
    g_assert_no_error (error);
    mm = add_op (f.b, PRISM_OP_MATMUL, cat, cat_w, NULL);
    assert_bexpr (f.g, f.b, f.ins, mm, C,
                  "(+ (sum 16 (* v0 v1)) (sum 16 (* v2 (exp v1))))");
    assert_bexpr (f.g, f.b, f.ins, mm, U,
                  "(+ (sum 64 (* v0 v1)) (sum 64 (* v2 (exp v1))))");
  }

  fixture_clear (&f);
}

/* An sGraph block: tile dims are the unpartitioned sizes, the grid and the
 * loop are variables. */
static void
test_block_ops_symbolic (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismAbstractExpr) expr = NULL;
  Fixture f;
  int mm, acc, rms, d;
  guint node;

  fixture_init (&f, TRUE);
  mm = add_op (f.b, PRISM_OP_MATMUL, f.xt, f.wt, NULL);
  acc = add_op (f.b, PRISM_OP_ACCUM, mm, -1, NULL);
  rms = add_op (f.b, PRISM_OP_ACCUM_RMS, f.xt, -1, NULL);
  d = add_op (f.b, PRISM_OP_DIV, acc, rms, NULL);

  assert_bexpr (f.g, f.b, f.ins, mm, PRISM_ABSTRACT_UNTILED, "(sum 64 (* v0 v1))");
  assert_bexpr (f.g, f.b, f.ins, acc, PRISM_ABSTRACT_AUTO, "(sum 64 (* v0 v1))");
  assert_bexpr (f.g, f.b, f.ins, d, PRISM_ABSTRACT_AUTO,
                "(/ (sum 64 (* v0 v1)) (rms 64 v0))");
  assert_bexpr (f.g, f.b, f.ins, add_op (f.b, PRISM_OP_ACCUM_SUM, f.xt, -1, NULL),
                PRISM_ABSTRACT_AUTO, "(sum 64 v0)");

  /* Elementwise ops and block sum / rms_norm over unpartitioned tiles. */
  {
    static const struct
    {
      PrismOpKind kind;
      gboolean binary;
      const char *want;
    } ew[] = {
      { PRISM_OP_EXP, FALSE, "(exp v0)" },
      { PRISM_OP_SQUARE, FALSE, "(square v0)" },
      { PRISM_OP_SQRT, FALSE, "(sqrt v0)" },
      { PRISM_OP_SILU, FALSE, "(silu v0)" },
      { PRISM_OP_GELU, FALSE, "(gelu v0)" },
      { PRISM_OP_RELU, FALSE, "(relu v0)" },
      { PRISM_OP_NEG, FALSE, "(neg v0)" },
      { PRISM_OP_ADD, TRUE, "(+ v0 v2)" },
      { PRISM_OP_SUB, TRUE, "(+ v0 (neg v2))" },
      { PRISM_OP_MUL, TRUE, "(* v0 v2)" },
      { PRISM_OP_DIV, TRUE, "(/ v0 v2)" },
      { PRISM_OP_POW, TRUE, "(pow v0 v2)" },
    };

    for (guint i = 0; i < G_N_ELEMENTS (ew); i++)
      assert_bexpr (f.g, f.b, f.ins,
                    add_op (f.b, ew[i].kind, f.xt, ew[i].binary ? f.yt : -1, NULL),
                    PRISM_ABSTRACT_AUTO, ew[i].want);
    assert_bexpr (f.g, f.b, f.ins, add_attr (f.b, PRISM_OP_SUM, f.xt, 1, 1, 0),
                  PRISM_ABSTRACT_AUTO, "(sum 64 v0)");
    assert_bexpr (f.g, f.b, f.ins, add_attr (f.b, PRISM_OP_SUM, f.xt, 0, 1, 0),
                  PRISM_ABSTRACT_AUTO, "(sum 8 v0)");
    assert_bexpr (f.g, f.b, f.ins, add_attr (f.b, PRISM_OP_RMS_NORM, f.xt, 0, 2, 0),
                  PRISM_ABSTRACT_AUTO, "(/ v0 (rms 512 v0))");
    assert_bexpr (f.g, f.b, f.ins, add_attr (f.b, PRISM_OP_ACCUM_SUM_TODIMX, f.xt, 0, 1, 16),
                  PRISM_ABSTRACT_AUTO, "(sum 4 v0)");
    assert_bexpr (f.g, f.b, f.ins, add_op (f.b, PRISM_OP_ACCUM_MEAN, f.xt, -1, NULL),
                  PRISM_ABSTRACT_AUTO, "(/ (sum 64 v0) 64)");
  }

  /* CONCRETE needs the loop range, which is a variable here. */
  expr = prism_abstract_expr_new (f.g, f.b, f.ins, PRISM_ABSTRACT_CONCRETE);
  g_assert_cmpint (prism_abstract_expr_get_mode (expr), ==, PRISM_ABSTRACT_CONCRETE);
  g_assert_false (prism_abstract_expr_eval (expr, TRUE, (guint) acc, &node, &error));
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED);
  g_clear_error (&error);
  /* … but the matmul's K is a plain size. */
  g_clear_pointer (&expr, prism_abstract_expr_free);
  expr = prism_abstract_expr_new (f.g, f.b, f.ins, PRISM_ABSTRACT_AUTO);
  g_assert_cmpint (prism_abstract_expr_get_mode (expr), ==, PRISM_ABSTRACT_UNTILED);

  /* The same body as a kernel op: kernel outputs are the body's outputs. */
  {
    int omap[3] = { PRISM_MAP_UNKNOWN, PRISM_MAP_REPLICATE, PRISM_MAP_REPLICATE };
    int kop, out;

    g_assert_cmpint (prism_block_graph_add_output (f.b, (guint) d, omap, &error), >=, 0);
    g_assert_no_error (error);
    kop = prism_graph_add_kernel (f.g, f.ins, 4, f.b, &error);
    g_assert_no_error (error);
    out = (int) prism_graph_op (f.g, (guint) kop)->outputs[0];
    assert_kexpr (f.g, out, PRISM_ABSTRACT_AUTO, "(/ (sum 64 (* v0 v1)) (rms 64 v0))");
    assert_kexpr (f.g, add_op (f.g, PRISM_OP_SILU, out, -1, NULL), PRISM_ABSTRACT_UNTILED,
                  "(silu (/ (sum 64 (* v0 v1)) (rms 64 v0)))");
  }
  fixture_clear (&f);
}

/* A body evaluated as a kernel op, and the same block as an open block. */
static void
test_kernel_op_and_open_block (void)
{
  g_autoptr(GError) error = NULL;
  Fixture f;
  int acc, kop, out, omap[3] = { 1, -1, -1 };
  guint node;

  fixture_init (&f, FALSE);
  acc = add_op (f.b, PRISM_OP_ACCUM, add_op (f.b, PRISM_OP_MATMUL, f.xt, f.wt, NULL), -1, NULL);
  g_assert_cmpint (prism_block_graph_add_output (f.b, (guint) acc, omap, &error), >=, 0);
  g_assert_no_error (error);

  /* Open: the block's INPUT ops read f.ins. */
  assert_bexpr (f.g, f.b, f.ins, acc, PRISM_ABSTRACT_CONCRETE, "(sum 4 (sum 16 (* v0 v1)))");

  kop = prism_graph_add_kernel (f.g, f.ins, 4, f.b, &error);
  g_assert_no_error (error);
  out = (int) prism_graph_op (f.g, (guint) kop)->outputs[0];
  assert_kexpr (f.g, out, PRISM_ABSTRACT_CONCRETE, "(sum 4 (sum 16 (* v0 v1)))");
  assert_kexpr (f.g, out, PRISM_ABSTRACT_UNTILED, "(sum 64 (* v0 v1))");

  /* A second kernel reading the first's output: an open block over it. */
  {
    g_autoptr(PrismGraph) b2 = NULL;
    gint64 grid[1] = { 4 };
    int rep[3] = { 0, -1, -1 };
    const PrismTensor *t = prism_graph_tensor (f.g, (guint) out);
    guint ins2[1] = { (guint) out };
    int tt, e;

    b2 = prism_block_graph_new_const (1, grid, 128, 1);
    tt = prism_block_graph_add_input (b2, 0, 2, t->dims, t->dtype, rep, -1, &error);
    g_assert_no_error (error);
    e = add_op (b2, PRISM_OP_EXP, tt, -1, NULL);
    assert_bexpr (f.g, b2, ins2, e, PRISM_ABSTRACT_CONCRETE,
                  "(exp (sum 4 (sum 16 (* v0 v1))))");
    assert_bexpr (f.g, b2, ins2, e, PRISM_ABSTRACT_UNTILED, "(exp (sum 64 (* v0 v1)))");
  }

  /* Errors name what is wrong. */
  {
    g_autoptr(PrismAbstractExpr) expr = prism_abstract_expr_new (f.g, NULL, NULL,
                                                                 PRISM_ABSTRACT_UNTILED);
    g_assert_false (prism_abstract_expr_eval (expr, FALSE, 999, &node, &error));
    g_assert_error (error, PRISM_ERROR, PRISM_ERROR_INVALID_GRAPH);
    g_assert_nonnull (strstr (error->message, "999"));
    g_clear_error (&error);
    g_assert_false (prism_abstract_expr_eval (expr, TRUE, 0, &node, &error));
    g_assert_error (error, PRISM_ERROR, PRISM_ERROR_INVALID_GRAPH);
    g_clear_error (&error);
    /* The builder still works after an error. */
    g_assert_true (prism_abstract_expr_eval (expr, FALSE, (guint) out, &node, &error));
    g_assert_no_error (error);
  }
  fixture_clear (&f);
}

/* The outputs of the built-in programs, and the fused references evaluated
 * untiled give the program's own expressions. */
static void
test_workloads (void)
{
  static const struct
  {
    const char *name;
    const char *want;
  } cases[] = {
    { "rms_norm", "(sum 4096 (* (/ v0 (rms 4096 v0)) v1))" },
    { "swiglu", "(* (silu (sum 1024 (* v0 v1))) (sum 1024 (* v0 v2)))" },
    { "attention",
      "(sum 8192 (* (/ (exp (sum 128 (* v0 v1))) (sum 8192 (exp (sum 128 (* v0 v1))))) v2))" },
    { "lora", "(+ (sum 256 (* v0 v1)) (sum 16 (* (sum 256 (* v0 v2)) v3)))" },
    { "norm_transformer",
      "(/ (+ v1 (* v2 (+ (/ v0 (rms 4096 v0)) v1))) "
      "(rms 4096 (+ v1 (* v2 (+ (/ v0 (rms 4096 v0)) v1)))))" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(PrismGraph) g = prism_workload_build (cases[i].name, NULL, &error);
      g_autoptr(GArray) roots = NULL;
      g_autoptr(PrismTerm) t = NULL;
      g_autofree char *s = NULL;

      g_assert_no_error (error);
      t = prism_abstract_expr_of_outputs (g, PRISM_ABSTRACT_AUTO, &roots, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (roots->len, ==, 1);
      s = prism_term_to_string (t);
      g_assert_cmpstr (s, ==, cases[i].want);
    }

  /* Fused references. */
  {
    static const struct
    {
      const char *name;
      const char *untiled;
      const char *concrete;
    } refs[] = {
      { "rms_norm", "(/ (sum 4096 (* v0 v1)) (rms 4096 v0))",
        "(/ (sum 64 (sum 64 (* v0 v1))) (rms 4096 v0))" },
      { "swiglu", "(* (silu (sum 1024 (* v0 v1))) (sum 1024 (* v0 v2)))",
        "(* (silu (sum 8 (sum 128 (* v0 v1)))) (sum 8 (sum 128 (* v0 v2))))" },
      /* Two kernels; the second adds the first's partial sums.  Untiled,
       * the partials already are the whole sums. */
      { "attention",
        "(/ (sum 8192 (* (exp (sum 128 (* v0 v1))) v2)) (sum 8192 (exp (sum 128 (* v0 v1)))))",
        "(/ (sum 16 (sum 8 (sum 64 (* (exp (sum 128 (* v0 v1))) v2)))) "
        "(sum 16 (sum 512 (exp (sum 128 (* v0 v1))))))" },
      /* With accum_sum_todimx: the numerators were concatenated along the
       * last dim (16 slices of 64), untiled there is one slice. */
      { "gqa",
        "(/ (sum 4096 (* (exp (sum 64 (* v0 v1))) v2)) (sum 4096 (exp (sum 64 (* v0 v1)))))",
        "(/ (sum 16 (sum 4 (sum 64 (* (exp (sum 64 (* v0 v1))) v2)))) "
        "(sum 16 (sum 256 (exp (sum 64 (* v0 v1))))))" },
    };

    for (guint i = 0; i < G_N_ELEMENTS (refs); i++)
      {
        g_autoptr(GError) error = NULL;
        g_autoptr(PrismGraph) g = prism_workload_build_reference (refs[i].name, NULL, &error);
        g_autoptr(GArray) outs = NULL;

        g_assert_no_error (error);
        outs = prism_graph_get_outputs (g);
        assert_kexpr (g, g_array_index (outs, guint, 0), PRISM_ABSTRACT_UNTILED, refs[i].untiled);
        assert_kexpr (g, g_array_index (outs, guint, 0), PRISM_ABSTRACT_CONCRETE,
                      refs[i].concrete);
        assert_kexpr (g, g_array_index (outs, guint, 0), PRISM_ABSTRACT_AUTO, refs[i].concrete);
      }
  }
}

/* One builder shares subterms between tensors (a DAG, not a tree). */
static void
test_sharing (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismGraph) g = prism_workload_build ("attention", "b=1,h=1,q=2,kv=8,dh=4", &error);
  g_autoptr(PrismAbstractExpr) expr = NULL;
  g_autoptr(GArray) outs = NULL;
  guint n1, n2, node, before;

  g_assert_no_error (error);
  expr = prism_abstract_expr_new (g, NULL, NULL, PRISM_ABSTRACT_AUTO);
  outs = prism_graph_get_outputs (g);
  g_assert_true (prism_abstract_expr_eval (expr, FALSE, g_array_index (outs, guint, 0), &node,
                                           &error));
  g_assert_no_error (error);
  n1 = prism_term_get_n_nodes (prism_abstract_expr_get_term (expr));
  /* exp(QK) occurs twice in the output but is stored once:
   * v0 v1 (* v0 v1) 4 (sum 4 …) (exp …) 8 (sum 8 (exp …)) (/ …) v2 (* … v2) (sum 8 …) */
  g_assert_cmpuint (n1, ==, 12);
  g_assert_cmpuint (prism_term_node_tree_size (prism_abstract_expr_get_term (expr), node), >, n1);
  /* Evaluating again is a memo hit and adds nothing. */
  before = n1;
  g_assert_true (prism_abstract_expr_eval (expr, FALSE, g_array_index (outs, guint, 0), &n2,
                                           &error));
  g_assert_cmpuint (n2, ==, node);
  g_assert_cmpuint (prism_term_get_n_nodes (prism_abstract_expr_get_term (expr)), ==, before);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/abstract-expr/kernel-ops", test_kernel_ops);
  g_test_add_func ("/abstract-expr/block-ops-concrete", test_block_ops_concrete);
  g_test_add_func ("/abstract-expr/block-ops-symbolic", test_block_ops_symbolic);
  g_test_add_func ("/abstract-expr/kernel-op-and-open-block", test_kernel_op_and_open_block);
  g_test_add_func ("/abstract-expr/workloads", test_workloads);
  g_test_add_func ("/abstract-expr/sharing", test_sharing);

  return g_test_run ();
}
