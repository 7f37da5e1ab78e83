/* test-canonical.c — one canonical form per program (prism-canonical.h)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Hand-built pairs of programs: those that differ only in op order, in the
 * grouping of a mul/div chain, across an accumulator of one iteration, or
 * by a custom kernel that only tiles one predefined op must have one form;
 * those with other maps, sizes or ops must not.
 */
#include "config.h"

#include "prism-canonical.h"
#include "prism-graph.h"

#define F16 PRISM_DTYPE_F16

static guint
input (PrismGraph *g, const char *name, gint64 rows, gint64 cols)
{
  g_autoptr(GError) error = NULL;
  gint64 dims[2] = { rows, cols };
  int t = prism_graph_add_input (g, name, 2, dims, F16, &error);

  g_assert_no_error (error);
  return (guint) t;
}

static guint
op (PrismGraph *g, PrismOpKind kind, guint a, int b)
{
  g_autoptr(GError) error = NULL;
  guint in[2] = { a, (guint) b };
  int t = prism_graph_add (g, kind, in, b < 0 ? 1 : 2, NULL, &error);

  g_assert_no_error (error);
  return (guint) t;
}

/* A tile of kernel input @index (tensor @data of @g) split along dim @split
 * by grid axis 0 (-1: replicated) and along @fmap by the loop. */
static guint
tile (PrismGraph *b, const PrismGraph *g, guint index, guint data, int split, int fmap)
{
  g_autoptr(GError) error = NULL;
  const PrismTensor *t = prism_graph_tensor (g, data);
  int imap[PRISM_MAX_GRID_DIMS] = { split, -1, -1 };
  int id = prism_block_graph_add_input (b, index, t->ndims, t->dims, t->dtype, imap, fmap, &error);

  g_assert_no_error (error);
  return (guint) id;
}

static void
block_output (PrismGraph *b, guint t, int omap0)
{
  g_autoptr(GError) error = NULL;
  int omap[PRISM_MAX_GRID_DIMS] = { omap0, -1, -1 };

  prism_block_graph_add_output (b, t, omap, &error);
  g_assert_no_error (error);
}

/* Adds @b (taken) as a kernel of @g; returns its first output. */
static guint
kernel (PrismGraph *g, PrismGraph *b, const guint *inputs, guint n)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismGraph) body = b;
  int k = prism_graph_add_kernel (g, inputs, n, body, &error);

  g_assert_no_error (error);
  return prism_graph_op (g, (guint) k)->outputs[0];
}

static void
output (PrismGraph *g, guint t)
{
  g_autoptr(GError) error = NULL;

  prism_graph_add_output (g, t, NULL, &error);
  g_assert_no_error (error);
}

static void
assert_same (const PrismGraph *a, const PrismGraph *b)
{
  g_autofree char *fa = prism_graph_canonical_form (a);
  g_autofree char *fb = prism_graph_canonical_form (b);
  g_autofree char *da = prism_graph_canonical_digest (a);
  g_autofree char *db = prism_graph_canonical_digest (b);

  g_assert_cmpstr (fa, ==, fb);
  g_assert_cmpstr (da, ==, db);
  g_assert_cmpuint (strlen (da), ==, 32);
}

static void
assert_different (const PrismGraph *a, const PrismGraph *b)
{
  g_autofree char *fa = prism_graph_canonical_form (a);
  g_autofree char *fb = prism_graph_canonical_form (b);
  g_autofree char *da = prism_graph_canonical_digest (a);
  g_autofree char *db = prism_graph_canonical_digest (b);

  g_assert_cmpstr (fa, !=, fb);
  g_assert_cmpstr (da, !=, db);
}

/* ------------------------------------------------------------------------ */

/* Kernel 1: exp of X's rows (grid 2); kernel 2: sqrt(X·Y) in @grid2 row
 * blocks; both outputs of the program.  @swap adds kernel 2 first. */
static PrismGraph *
two_kernels (gboolean swap, gint64 grid2)
{
  PrismGraph *g = prism_graph_new ();
  guint x = input (g, "X", 4, 8), y = input (g, "Y", 4, 8);
  guint e = 0, m = 0;

  for (guint step = 0; step < 2; step++)
    if ((step == 0) != swap)
      {
        gint64 grid[1] = { 2 };
        PrismGraph *b = prism_block_graph_new_const (1, grid, 128, 1);
        guint in[1] = { x };
        block_output (b, op (b, PRISM_OP_ACCUM, op (b, PRISM_OP_EXP, tile (b, g, 0, x, 0, -1), -1), -1), 0);
        e = kernel (g, b, in, 1);
      }
    else
      {
        gint64 grid[1] = { grid2 };
        PrismGraph *b = prism_block_graph_new_const (1, grid, 128, 1);
        guint in[2] = { y, x };
        guint ty = tile (b, g, 0, y, 0, -1), tx = tile (b, g, 1, x, 0, -1);
        block_output (b, op (b, PRISM_OP_ACCUM, op (b, PRISM_OP_SQRT, op (b, PRISM_OP_MUL, tx, (int) ty), -1), -1), 0);
        m = kernel (g, b, in, 2);
      }
  output (g, e);
  output (g, m);
  return g;
}

static void
test_independent_kernels (void)
{
  g_autoptr(PrismGraph) a = two_kernels (FALSE, 2);
  g_autoptr(PrismGraph) b = two_kernels (TRUE, 2);
  g_autoptr(PrismGraph) c = two_kernels (FALSE, 4);

  assert_same (a, b);
  /* Another grid size is another tiling: never merged. */
  assert_different (a, c);
}

/* One kernel over U, G [4,8] and R [4,1] (grid 2 over rows, loop of 2 over
 * rows of a tile), whose epilogue is given by @form:
 * 0: ((u/r)·g)/r   1: (u/r)·(g/r)   2: (u/r)·g   3: u/(r·g)   4: ((g·u)/r)/r
 * 5: (u·(g/r))/r with the tiles split by columns instead (other maps) */
static PrismGraph *
epilogue (guint form)
{
  PrismGraph *g = prism_graph_new ();
  guint u = input (g, "U", 4, 8), gg = input (g, "G", 4, 8), r = input (g, "R", 4, 1);
  gint64 grid[1] = { 2 };
  PrismGraph *b = prism_block_graph_new_const (1, grid, 128, 2);
  guint in[3] = { u, gg, r };
  guint tu = tile (b, g, 0, u, form == 5 ? 1 : 0, 0);
  guint tg = tile (b, g, 1, gg, form == 5 ? 1 : 0, 0);
  guint tr = tile (b, g, 2, r, form == 5 ? -1 : 0, 0);
  guint au = op (b, PRISM_OP_ACCUM, tu, -1);
  guint ag = op (b, PRISM_OP_ACCUM, tg, -1);
  guint ar = op (b, PRISM_OP_ACCUM, tr, -1);
  guint res;

  switch (form)
    {
    case 0:
      res = op (b, PRISM_OP_DIV, op (b, PRISM_OP_MUL, op (b, PRISM_OP_DIV, au, (int) ar), (int) ag), (int) ar);
      break;
    case 1:
      res = op (b, PRISM_OP_MUL, op (b, PRISM_OP_DIV, au, (int) ar), (int) op (b, PRISM_OP_DIV, ag, (int) ar));
      break;
    case 2:
      res = op (b, PRISM_OP_MUL, op (b, PRISM_OP_DIV, au, (int) ar), (int) ag);
      break;
    case 3:
      res = op (b, PRISM_OP_DIV, au, (int) op (b, PRISM_OP_MUL, ar, (int) ag));
      break;
    case 4:
      res = op (b, PRISM_OP_DIV, op (b, PRISM_OP_DIV, op (b, PRISM_OP_MUL, ag, (int) au), (int) ar), (int) ar);
      break;
    default:
      res = op (b, PRISM_OP_DIV, op (b, PRISM_OP_MUL, au, (int) op (b, PRISM_OP_DIV, ag, (int) ar)), (int) ar);
      break;
    }
  block_output (b, res, form == 5 ? 1 : 0);
  output (g, kernel (g, b, in, 3));
  return g;
}

static void
test_epilogue_chains (void)
{
  g_autoptr(PrismGraph) nested = epilogue (0);
  g_autoptr(PrismGraph) split = epilogue (1);
  g_autoptr(PrismGraph) once = epilogue (2);
  g_autoptr(PrismGraph) denominator = epilogue (3);
  g_autoptr(PrismGraph) reordered = epilogue (4);
  g_autoptr(PrismGraph) other_maps = epilogue (5);

  /* ((u/r)·g)/r ≡ (u/r)·(g/r) ≡ ((g·u)/r)/r: u·g·r⁻¹·r⁻¹ in exact arithmetic. */
  assert_same (nested, split);
  assert_same (nested, reordered);
  /* (u/r)·g is u·g/r, not u/(r·g); and dividing once is not twice. */
  assert_different (once, denominator);
  assert_different (nested, once);
  /* The same arithmetic with the tiles split by columns is another program. */
  assert_different (nested, other_maps);
}

/* sqrt(exp(x)) with the accumulator before, between or after the two ops
 * (@where 0, 1, 2), in a kernel over X [4,8]: grid 2 over rows, a loop of
 * @loop iterations over columns. */
static PrismGraph *
accum_at (gint64 loop, guint where)
{
  PrismGraph *g = prism_graph_new ();
  guint x = input (g, "X", 4, 8);
  gint64 grid[1] = { 2 };
  PrismGraph *b = prism_block_graph_new_const (1, grid, 128, loop);
  guint in[1] = { x };
  guint t = tile (b, g, 0, x, 0, 1);

  if (where == 0)
    t = op (b, PRISM_OP_ACCUM, t, -1);
  t = op (b, PRISM_OP_EXP, t, -1);
  if (where == 1)
    t = op (b, PRISM_OP_ACCUM, t, -1);
  t = op (b, PRISM_OP_SQRT, t, -1);
  if (where == 2)
    t = op (b, PRISM_OP_ACCUM, t, -1);
  block_output (b, t, 0);
  output (g, kernel (g, b, in, 1));
  return g;
}

/* Σ over one iteration and the last dim is the plain sum over that dim. */
static PrismGraph *
row_sum (gboolean accum_sum)
{
  PrismGraph *g = prism_graph_new ();
  guint x = input (g, "X", 4, 8);
  gint64 grid[1] = { 2 };
  PrismGraph *b = prism_block_graph_new_const (1, grid, 128, 1);
  guint in[1] = { x };
  guint t = tile (b, g, 0, x, 0, -1);
  guint res;

  if (accum_sum)
    res = op (b, PRISM_OP_ACCUM_SUM, t, -1);
  else
    {
      g_autoptr(GError) error = NULL;
      PrismOpAttrs attrs;
      int s;

      prism_op_attrs_init (&attrs);
      attrs.dim = 1;
      s = prism_graph_add (b, PRISM_OP_SUM, &t, 1, &attrs, &error);
      g_assert_no_error (error);
      res = op (b, PRISM_OP_ACCUM, (guint) s, -1);
    }
  block_output (b, res, 0);
  output (g, kernel (g, b, in, 1));
  return g;
}

static void
test_identity_accumulator (void)
{
  g_autoptr(PrismGraph) first1 = accum_at (1, 0);
  g_autoptr(PrismGraph) middle1 = accum_at (1, 1);
  g_autoptr(PrismGraph) last1 = accum_at (1, 2);
  g_autoptr(PrismGraph) first2 = accum_at (2, 0);
  g_autoptr(PrismGraph) last2 = accum_at (2, 2);
  g_autoptr(PrismGraph) accum_sum = row_sum (TRUE);
  g_autoptr(PrismGraph) sum = row_sum (FALSE);

  assert_same (first1, middle1);
  assert_same (first1, last1);
  /* Over two iterations sqrt(exp(Σ x)) ≠ Σ sqrt(exp(x)). */
  assert_different (first2, last2);
  assert_different (first1, first2);
  assert_same (accum_sum, sum);
}

/* softmax(X) over rows in blocks of 2: the online form (running max,
 * accum_online, accum_sum_online) or, with @plain, the block max and the
 * plain accumulators; the loop walks the columns in @loop steps. */
static PrismGraph *
online_softmax (gint64 loop, gboolean plain)
{
  g_autoptr(GError) error = NULL;
  PrismGraph *g = prism_graph_new ();
  guint x = input (g, "X", 4, 8);
  gint64 grid[1] = { 2 };
  PrismGraph *b = prism_block_graph_new_const (1, grid, 128, loop);
  guint in[1] = { x };
  guint t = tile (b, g, 0, x, 0, loop > 1 ? 1 : -1);
  PrismOpAttrs attrs;
  guint m, e, num, den;
  int r;

  prism_op_attrs_init (&attrs);
  attrs.dim = 1;
  r = prism_graph_add (b, PRISM_OP_MAX, &t, 1, &attrs, &error);
  g_assert_no_error (error);
  m = (guint) r;
  if (!plain)
    m = op (b, PRISM_OP_RUNNING_MAX, op (b, PRISM_OP_ACCUM_MAX, m, -1), -1);
  e = op (b, PRISM_OP_EXP, op (b, PRISM_OP_SUB, t, (int) m), -1);
  num = op (b, plain ? PRISM_OP_ACCUM : PRISM_OP_ACCUM_ONLINE, e, plain ? -1 : (int) m);
  den = op (b, plain ? PRISM_OP_ACCUM_SUM : PRISM_OP_ACCUM_SUM_ONLINE, e, plain ? -1 : (int) m);
  block_output (b, op (b, PRISM_OP_DIV, num, (int) den), 0);
  output (g, kernel (g, b, in, 1));
  return g;
}

/* Over one iteration the running max is the block max and the online
 * accumulators are the plain ones: one candidate.  Over two they differ. */
static void
test_online_one_iteration (void)
{
  g_autoptr(PrismGraph) online1 = online_softmax (1, FALSE);
  g_autoptr(PrismGraph) plain1 = online_softmax (1, TRUE);
  g_autoptr(PrismGraph) online2 = online_softmax (2, FALSE);

  assert_same (online1, plain1);
  assert_different (online1, online2);
}

/* Y = X·W (X [4,8], W [8,16]) then exp: the matmul as the predefined op
 * (@how 0), as a custom kernel tiling it — grid 2 over W's columns, a loop
 * of 2 over the inner dim (1) — or with the loop over X's rows, which is no
 * matmul (2). */
static PrismGraph *
matmul_then_exp (guint how)
{
  PrismGraph *g = prism_graph_new ();
  guint x = input (g, "X", 4, 8), w = input (g, "W", 8, 16);
  guint y;

  if (how == 0)
    y = op (g, PRISM_OP_MATMUL, x, (int) w);
  else
    {
      gint64 grid[1] = { 2 };
      PrismGraph *b = prism_block_graph_new_const (1, grid, 128, 2);
      guint in[2] = { x, w };
      guint tx = tile (b, g, 0, x, -1, how == 1 ? 1 : -1);
      guint tw = tile (b, g, 1, w, 1, how == 1 ? 0 : -1);

      block_output (b, op (b, PRISM_OP_ACCUM, op (b, PRISM_OP_MATMUL, tx, (int) tw), -1), 1);
      y = kernel (g, b, in, 2);
    }
  output (g, op (g, PRISM_OP_EXP, y, -1));
  return g;
}

/* exp(X) as the predefined op or as a custom kernel of @grid row blocks. */
static PrismGraph *
exp_only (gint64 grid0, gboolean custom)
{
  PrismGraph *g = prism_graph_new ();
  guint x = input (g, "X", 4, 8);

  if (!custom)
    output (g, op (g, PRISM_OP_EXP, x, -1));
  else
    {
      gint64 grid[1] = { grid0 };
      PrismGraph *b = prism_block_graph_new_const (1, grid, 128, 1);
      guint in[1] = { x };

      block_output (b, op (b, PRISM_OP_ACCUM, op (b, PRISM_OP_EXP, tile (b, g, 0, x, 0, -1), -1), -1), 0);
      output (g, kernel (g, b, in, 1));
    }
  return g;
}

static void
test_one_op_kernel (void)
{
  g_autoptr(PrismGraph) predefined = matmul_then_exp (0);
  g_autoptr(PrismGraph) tiled = matmul_then_exp (1);
  g_autoptr(PrismGraph) untiled_sum = matmul_then_exp (2);
  g_autoptr(PrismGraph) exp_op = exp_only (1, FALSE);
  g_autoptr(PrismGraph) exp_kernel = exp_only (2, TRUE);
  g_autoptr(PrismGraph) fused = accum_at (1, 2);
  g_autoptr(PrismGraph) unfused = prism_graph_new ();

  assert_same (predefined, tiled);
  assert_same (exp_op, exp_kernel);
  /* Summing whole products over two iterations doubles them: not a matmul. */
  assert_different (predefined, untiled_sum);
  /* A kernel of two ops is a fusion, not the two predefined ops. */
  output (unfused, op (unfused, PRISM_OP_SQRT, op (unfused, PRISM_OP_EXP, input (unfused, "X", 4, 8), -1), -1));
  assert_different (fused, unfused);
}

/* The grid axes of a kernel in either order are one program. */
static PrismGraph *
two_axes (gboolean swap)
{
  PrismGraph *g = prism_graph_new ();
  guint x = input (g, "X", 4, 8);
  gint64 grid[2] = { swap ? 4 : 2, swap ? 2 : 4 };
  PrismGraph *b = prism_block_graph_new_const (2, grid, 128, 1);
  g_autoptr(GError) error = NULL;
  const PrismTensor *t = prism_graph_tensor (g, x);
  int imap[PRISM_MAX_GRID_DIMS] = { swap ? 1 : 0, swap ? 0 : 1, -1 };
  int omap[PRISM_MAX_GRID_DIMS] = { swap ? 1 : 0, swap ? 0 : 1, -1 };
  int xt = prism_block_graph_add_input (b, 0, 2, t->dims, F16, imap, -1, &error);
  guint in[1] = { x };

  g_assert_no_error (error);
  prism_block_graph_add_output (b, op (b, PRISM_OP_ACCUM, op (b, PRISM_OP_SQRT, (guint) xt, -1), -1),
                                omap, &error);
  g_assert_no_error (error);
  output (g, kernel (g, b, in, 1));
  return g;
}

static void
test_grid_axes (void)
{
  g_autoptr(PrismGraph) a = two_axes (FALSE);
  g_autoptr(PrismGraph) b = two_axes (TRUE);

  assert_same (a, b);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/canonical/independent-kernels", test_independent_kernels);
  g_test_add_func ("/canonical/epilogue-chains", test_epilogue_chains);
  g_test_add_func ("/canonical/identity-accumulator", test_identity_accumulator);
  g_test_add_func ("/canonical/online-one-iteration", test_online_one_iteration);
  g_test_add_func ("/canonical/one-op-kernel", test_one_op_kernel);
  g_test_add_func ("/canonical/grid-axes", test_grid_axes);
  return g_test_run ();
}
