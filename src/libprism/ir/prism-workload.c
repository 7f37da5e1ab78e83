/* prism-workload.c — the built-in programs and their hand-written fused graphs
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The five workloads of the Prism paper, four of Mirage's benchmarks and
 * three in the numerically safe form real programs use (row max subtracted
 * before exp, 1/√d and ε as constants), all with f16 inputs.  Each has a hand-written fused graph built for the same
 * shape parameters: tile sizes are chosen as divisors of the parameters, so
 * every shape gives a valid graph (the known-good targets the verifier and
 * the code generator are tested against).
 */
#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "prism-error.h"
#include "prism-workload.h"

#define MAX_PARAMS 6
#define MAX_KEY 16

typedef struct
{
  const PrismWorkloadInfo *info;
  guint n;
  char keys[MAX_PARAMS][MAX_KEY];
  gint64 values[MAX_PARAMS];
} Params;

typedef PrismGraph *(*BuildFunc) (const Params *p, GError **error);

static gint64
param (const Params *p, const char *key)
{
  for (guint i = 0; i < p->n; i++)
    if (g_str_equal (p->keys[i], key))
      return p->values[i];
  g_return_val_if_reached (1);
}

/* The largest divisor of @n that is at most @limit: tile sizes that always
 * divide the data dims, whatever the parameters. */
static gint64
pick_divisor (gint64 n, gint64 limit)
{
  for (gint64 t = MIN (n, limit); t > 1; t--)
    if (n % t == 0)
      return t;
  return 1;
}

/* ------------------------------------------------------------------------ */
/* Builder helpers.  Each returns -1 (leaving @error as it is) when an operand
 * is already -1, so a chain of calls needs one check at its end. */

static PrismGraph *
new_graph (const Params *p, gboolean reference)
{
  PrismGraph *g = prism_graph_new ();
  g_autofree char *desc = NULL;

  if (reference)
    desc = g_strdup_printf ("Hand-written fused graph. %s", p->info->description);
  prism_graph_set_name (g, p->info->name, reference ? desc : p->info->description);
  return g;
}

static int
input (PrismGraph *g, const char *name, guint ndims, gint64 d0, gint64 d1, gint64 d2,
       GError **error)
{
  gint64 dims[3] = { d0, d1, d2 };

  return prism_graph_add_input (g, name, ndims, dims, PRISM_DTYPE_F16, error);
}

static int
op1 (PrismGraph *g, PrismOpKind kind, int x, GError **error)
{
  guint in[1] = { (guint) x };

  if (x < 0)
    return -1;
  return prism_graph_add (g, kind, in, 1, NULL, error);
}

static int
op2 (PrismGraph *g, PrismOpKind kind, int x, int y, GError **error)
{
  guint in[2] = { (guint) x, (guint) y };

  if (x < 0 || y < 0)
    return -1;
  return prism_graph_add (g, kind, in, 2, NULL, error);
}

static int
op_attr (PrismGraph *g, PrismOpKind kind, int x, int dim, guint norm_dims, guint dimx,
         GError **error)
{
  guint in[1] = { (guint) x };
  PrismOpAttrs attrs;

  if (x < 0)
    return -1;
  prism_op_attrs_init (&attrs);
  attrs.dim = dim;
  attrs.norm_dims = norm_dims;
  attrs.dimx = dimx;
  return prism_graph_add (g, kind, in, 1, &attrs, error);
}

static int
rms_norm (PrismGraph *g, int x, GError **error)
{
  return op_attr (g, PRISM_OP_RMS_NORM, x, 0, 1, 0, error);
}

static int
constant (PrismGraph *g, double value, guint ndims, GError **error)
{
  return prism_graph_add_constant (g, value, ndims, PRISM_DTYPE_F16, error);
}

static gboolean
output (PrismGraph *g, int t, const char *name, GError **error)
{
  if (t < 0)
    return FALSE;
  return prism_graph_add_output (g, (guint) t, name, error) >= 0;
}

/* A tile of kernel input @index (kernel tensor @t) with imap (@mx, @my, @mz). */
static int
tile (PrismGraph *b, const PrismGraph *g, guint index, int t, int mx, int my, int mz, int fmap,
      GError **error)
{
  const PrismTensor *src;
  int imap[PRISM_MAX_GRID_DIMS] = { mx, my, mz };

  if (t < 0)
    return -1;
  src = prism_graph_tensor (g, (guint) t);
  return prism_block_graph_add_input (b, index, src->ndims, src->dims, src->dtype, imap, fmap,
                                      error);
}

static gboolean
block_output (PrismGraph *b, int t, int ox, int oy, int oz, GError **error)
{
  int omap[PRISM_MAX_GRID_DIMS] = { ox, oy, oz };

  if (t < 0)
    return FALSE;
  return prism_block_graph_add_output (b, (guint) t, omap, error) >= 0;
}

/* Adds a custom kernel; returns its op index or -1.  Takes @body. */
static int
kernel (PrismGraph *g, PrismGraph *body, gboolean ok, const int *ins, guint n, GError **error)
{
  g_autoptr(PrismGraph) owned = body;
  guint in[PRISM_MAX_OP_INPUTS];

  if (!ok)
    return -1;
  for (guint i = 0; i < n; i++)
    {
      if (ins[i] < 0)
        return -1;
      in[i] = (guint) ins[i];
    }
  return prism_graph_add_kernel (g, in, n, owned, error);
}

static int
kernel_out (PrismGraph *g, int kop, guint slot)
{
  if (kop < 0)
    return -1;
  return (int) prism_graph_op (g, (guint) kop)->outputs[slot];
}

static PrismGraph *
block_1d (gint64 grid, gint64 forloop)
{
  gint64 gd[1] = { grid };

  return prism_block_graph_new_const (1, gd, 128, forloop);
}

/* Returns @g, or NULL (freeing @g) when @ok is FALSE. */
static PrismGraph *
finish (PrismGraph *g, gboolean ok)
{
  if (!ok)
    {
      prism_graph_unref (g);
      return NULL;
    }
  return g;
}

/* ------------------------------------------------------------------------ */
/* rms_norm: O = rms_norm(X) @ W */

static PrismGraph *
build_rms_norm (const Params *p, GError **error)
{
  gint64 n = param (p, "n"), d = param (p, "d");
  PrismGraph *g = new_graph (p, FALSE);
  int x = input (g, "X", 2, n, d, 0, error);
  int w = x < 0 ? -1 : input (g, "W", 2, d, d, 0, error);
  int o = op2 (g, PRISM_OP_MATMUL, rms_norm (g, x, error), w, error);

  return finish (g, output (g, o, "O", error));
}

/* One kernel: the grid splits W's columns, the loop splits d; the rms of X
 * and X @ W accumulate side by side and the division runs in the epilogue. */
static PrismGraph *
ref_rms_norm (const Params *p, GError **error)
{
  gint64 n = param (p, "n"), d = param (p, "d");
  gint64 tn = pick_divisor (d, 64), tk = pick_divisor (d, 64);
  PrismGraph *g = new_graph (p, TRUE);
  PrismGraph *b = block_1d (d / tn, d / tk);
  int ins[2];
  int xt, wt, acc, rms, kop;
  gboolean ok;

  ins[0] = input (g, "X", 2, n, d, 0, error);
  ins[1] = ins[0] < 0 ? -1 : input (g, "W", 2, d, d, 0, error);
  xt = tile (b, g, 0, ins[0], -1, -1, -1, 1, error);
  wt = tile (b, g, 1, ins[1], 1, -1, -1, 0, error);
  acc = op1 (b, PRISM_OP_ACCUM, op2 (b, PRISM_OP_MATMUL, xt, wt, error), error);
  rms = op1 (b, PRISM_OP_ACCUM_RMS, xt, error);
  ok = block_output (b, op2 (b, PRISM_OP_DIV, acc, rms, error), 1, -1, -1, error);
  kop = kernel (g, b, ok, ins, 2, error);
  return finish (g, output (g, kernel_out (g, kop, 0), "O", error));
}

/* ------------------------------------------------------------------------ */
/* rmsnorm_mlp: O = (rms_norm(X) @ W_up) ⊙ (rms_norm(X) @ W_gate) */

static PrismGraph *
build_rmsnorm_mlp (const Params *p, GError **error)
{
  gint64 n = param (p, "n"), d = param (p, "d");
  PrismGraph *g = new_graph (p, FALSE);
  int x = input (g, "X", 2, n, d, 0, error);
  int wu = x < 0 ? -1 : input (g, "W_up", 2, d, d, 0, error);
  int wg = wu < 0 ? -1 : input (g, "W_gate", 2, d, d, 0, error);
  int y = rms_norm (g, x, error);
  int up = op2 (g, PRISM_OP_MATMUL, y, wu, error);
  int gate = op2 (g, PRISM_OP_MATMUL, y, wg, error);

  return finish (g, output (g, op2 (g, PRISM_OP_MUL, up, gate, error), "O", error));
}

/* One kernel, three accumulators: X @ W_up, X @ W_gate and rms(X). */
static PrismGraph *
ref_rmsnorm_mlp (const Params *p, GError **error)
{
  gint64 n = param (p, "n"), d = param (p, "d");
  gint64 tn = pick_divisor (d, 64), tk = pick_divisor (d, 64);
  PrismGraph *g = new_graph (p, TRUE);
  PrismGraph *b = block_1d (d / tn, d / tk);
  int ins[3];
  int xt, ut, gt, au, ag, rms, o, kop;
  gboolean ok;

  ins[0] = input (g, "X", 2, n, d, 0, error);
  ins[1] = ins[0] < 0 ? -1 : input (g, "W_up", 2, d, d, 0, error);
  ins[2] = ins[1] < 0 ? -1 : input (g, "W_gate", 2, d, d, 0, error);
  xt = tile (b, g, 0, ins[0], -1, -1, -1, 1, error);
  ut = tile (b, g, 1, ins[1], 1, -1, -1, 0, error);
  gt = tile (b, g, 2, ins[2], 1, -1, -1, 0, error);
  au = op1 (b, PRISM_OP_ACCUM, op2 (b, PRISM_OP_MATMUL, xt, ut, error), error);
  ag = op1 (b, PRISM_OP_ACCUM, op2 (b, PRISM_OP_MATMUL, xt, gt, error), error);
  rms = op1 (b, PRISM_OP_ACCUM_RMS, xt, error);
  o = op2 (b, PRISM_OP_MUL, op2 (b, PRISM_OP_DIV, au, rms, error),
           op2 (b, PRISM_OP_DIV, ag, rms, error), error);
  ok = block_output (b, o, 1, -1, -1, error);
  kop = kernel (g, b, ok, ins, 3, error);
  return finish (g, output (g, kernel_out (g, kop, 0), "O", error));
}

/* ------------------------------------------------------------------------ */
/* swiglu and gated_mlp: O = silu(X @ W_a) ⊙ (X @ W_b) */

static PrismGraph *
build_gated (const Params *p, const char *wa_name, const char *wb_name, GError **error)
{
  gint64 n = param (p, "n"), d = param (p, "d");
  PrismGraph *g = new_graph (p, FALSE);
  int x = input (g, "X", 2, n, d, 0, error);
  int wa = x < 0 ? -1 : input (g, wa_name, 2, d, d, 0, error);
  int wb = wa < 0 ? -1 : input (g, wb_name, 2, d, d, 0, error);
  int a = op1 (g, PRISM_OP_SILU, op2 (g, PRISM_OP_MATMUL, x, wa, error), error);
  int bm = op2 (g, PRISM_OP_MATMUL, x, wb, error);

  return finish (g, output (g, op2 (g, PRISM_OP_MUL, a, bm, error), "O", error));
}

/* Mirage's hand-written gated MLP: two matmuls → two accumulators → silu → mul. */
static PrismGraph *
ref_gated (const Params *p, const char *wa_name, const char *wb_name, GError **error)
{
  gint64 n = param (p, "n"), d = param (p, "d");
  gint64 tn = pick_divisor (d, 64), tk = pick_divisor (d, 128);
  PrismGraph *g = new_graph (p, TRUE);
  PrismGraph *b = block_1d (d / tn, d / tk);
  int ins[3];
  int xt, at, bt, aa, ab, kop;
  gboolean ok;

  ins[0] = input (g, "X", 2, n, d, 0, error);
  ins[1] = ins[0] < 0 ? -1 : input (g, wa_name, 2, d, d, 0, error);
  ins[2] = ins[1] < 0 ? -1 : input (g, wb_name, 2, d, d, 0, error);
  xt = tile (b, g, 0, ins[0], -1, -1, -1, 1, error);
  at = tile (b, g, 1, ins[1], 1, -1, -1, 0, error);
  bt = tile (b, g, 2, ins[2], 1, -1, -1, 0, error);
  aa = op1 (b, PRISM_OP_ACCUM, op2 (b, PRISM_OP_MATMUL, xt, at, error), error);
  ab = op1 (b, PRISM_OP_ACCUM, op2 (b, PRISM_OP_MATMUL, xt, bt, error), error);
  ok = block_output (b, op2 (b, PRISM_OP_MUL, op1 (b, PRISM_OP_SILU, aa, error), ab, error),
                     1, -1, -1, error);
  kop = kernel (g, b, ok, ins, 3, error);
  return finish (g, output (g, kernel_out (g, kop, 0), "O", error));
}

static PrismGraph *
build_swiglu (const Params *p, GError **error)
{
  return build_gated (p, "W_gate", "W_up", error);
}

static PrismGraph *
ref_swiglu (const Params *p, GError **error)
{
  return ref_gated (p, "W_gate", "W_up", error);
}

static PrismGraph *
build_gated_mlp (const Params *p, GError **error)
{
  return build_gated (p, "W1", "W2", error);
}

static PrismGraph *
ref_gated_mlp (const Params *p, GError **error)
{
  return ref_gated (p, "W1", "W2", error);
}

/* ------------------------------------------------------------------------ */
/* Attention: O = (exp(Q @ K) / Σ_lastdim exp(Q @ K)) @ V, Q [b, rows, dh],
 * K [b, dh, keys], V [b, keys, dh].  No max subtraction, as in the papers. */

static PrismGraph *
build_attention_common (const Params *p, gint64 b, gint64 rows, gint64 keys, gint64 dh,
                        gboolean qk_norm, GError **error)
{
  PrismGraph *g = new_graph (p, FALSE);
  int q = input (g, "Q", 3, b, rows, dh, error);
  int k = q < 0 ? -1 : input (g, "K", 3, b, dh, keys, error);
  int v = k < 0 ? -1 : input (g, "V", 3, b, keys, dh, error);
  int e, z;

  if (qk_norm)
    q = rms_norm (g, q, error);
  e = op1 (g, PRISM_OP_EXP, op2 (g, PRISM_OP_MATMUL, q, k, error), error);
  z = op_attr (g, PRISM_OP_SUM, e, 2, 1, 0, error);
  return finish (g, output (g, op2 (g, PRISM_OP_MATMUL, op2 (g, PRISM_OP_DIV, e, z, error), v,
                                    error), "O", error));
}

/* Flash decoding in two kernels.  Kernel 1: grid (batch, split of the keys,
 * split of the query rows), the loop splits each block's keys further;
 * outputs the partial numerators Σ exp(QK) V, concatenated along the last
 * dim (one dh-wide slice per split), and the partial denominators
 * Σ exp(QK).  Kernel 2 adds the partials and divides: with @todimx as in
 * Mirage's demo (one pass, accum_sum_todimx + accum_sum), otherwise with a
 * loop over the splits (accum + accum). */
static PrismGraph *
ref_attention_common (const Params *p, gint64 b, gint64 rows, gint64 keys, gint64 dh,
                      gboolean qk_norm, gboolean todimx, GError **error)
{
  gint64 rows_blk = pick_divisor (rows, 64), kt = pick_divisor (keys, 64);
  gint64 splits = pick_divisor (keys / kt, 16), loop = keys / kt / splits;
  gint64 rows2 = pick_divisor (rows, 16);
  gint64 grid1[3] = { b, splits, rows / rows_blk };
  gint64 grid2[2] = { b, rows / rows2 };
  PrismGraph *g = new_graph (p, TRUE);
  PrismGraph *k1 = prism_block_graph_new_const (3, grid1, 128, loop);
  PrismGraph *k2 = prism_block_graph_new_const (2, grid2, 128, todimx ? 1 : splits);
  int ins[3], parts[2];
  int qt, kt_, vt, e, num, den, kop1, kop2;
  gboolean ok;

  ins[0] = input (g, "Q", 3, b, rows, dh, error);
  ins[1] = ins[0] < 0 ? -1 : input (g, "K", 3, b, dh, keys, error);
  ins[2] = ins[1] < 0 ? -1 : input (g, "V", 3, b, keys, dh, error);

  qt = tile (k1, g, 0, ins[0], 0, -1, 1, -1, error);
  if (qk_norm)
    qt = rms_norm (k1, qt, error);
  kt_ = tile (k1, g, 1, ins[1], 0, 2, -1, 2, error);
  vt = tile (k1, g, 2, ins[2], 0, 1, -1, 1, error);
  e = op1 (k1, PRISM_OP_EXP, op2 (k1, PRISM_OP_MATMUL, qt, kt_, error), error);
  num = op1 (k1, PRISM_OP_ACCUM, op2 (k1, PRISM_OP_MATMUL, e, vt, error), error);
  den = op1 (k1, PRISM_OP_ACCUM_SUM, e, error);
  ok = block_output (k1, num, 0, 2, 1, error) && block_output (k1, den, 0, 2, 1, error);
  kop1 = kernel (g, k1, ok, ins, 3, error);

  parts[0] = kernel_out (g, kop1, 0);
  parts[1] = kernel_out (g, kop1, 1);
  if (todimx)
    {
      num = op_attr (k2, PRISM_OP_ACCUM_SUM_TODIMX, tile (k2, g, 0, parts[0], 0, 1, -1, -1, error),
                     0, 1, (guint) dh, error);
      den = op1 (k2, PRISM_OP_ACCUM_SUM, tile (k2, g, 1, parts[1], 0, 1, -1, -1, error), error);
    }
  else
    {
      num = op1 (k2, PRISM_OP_ACCUM, tile (k2, g, 0, parts[0], 0, 1, -1, 2, error), error);
      den = op1 (k2, PRISM_OP_ACCUM, tile (k2, g, 1, parts[1], 0, 1, -1, 2, error), error);
    }
  ok = block_output (k2, op2 (k2, PRISM_OP_DIV, num, den, error), 0, 1, -1, error);
  kop2 = kernel (g, k2, ok, parts, 2, error);
  return finish (g, output (g, kernel_out (g, kop2, 0), "O", error));
}

static PrismGraph *
build_attention (const Params *p, GError **error)
{
  return build_attention_common (p, param (p, "b"), param (p, "h") * param (p, "q"),
                                 param (p, "h") * param (p, "kv"), param (p, "dh"), FALSE, error);
}

static PrismGraph *
ref_attention (const Params *p, GError **error)
{
  return ref_attention_common (p, param (p, "b"), param (p, "h") * param (p, "q"),
                               param (p, "h") * param (p, "kv"), param (p, "dh"), FALSE, FALSE,
                               error);
}

static PrismGraph *
build_qk_norm_attention (const Params *p, GError **error)
{
  return build_attention_common (p, param (p, "b"), param (p, "h") * param (p, "q"),
                                 param (p, "h") * param (p, "kv"), param (p, "dh"), TRUE, error);
}

static PrismGraph *
ref_qk_norm_attention (const Params *p, GError **error)
{
  return ref_attention_common (p, param (p, "b"), param (p, "h") * param (p, "q"),
                               param (p, "h") * param (p, "kv"), param (p, "dh"), TRUE, FALSE,
                               error);
}

static PrismGraph *
build_gqa (const Params *p, GError **error)
{
  return build_attention_common (p, param (p, "b"), param (p, "q"), param (p, "kv"),
                                 param (p, "dh"), FALSE, error);
}

static PrismGraph *
ref_gqa (const Params *p, GError **error)
{
  return ref_attention_common (p, param (p, "b"), param (p, "q"), param (p, "kv"),
                               param (p, "dh"), FALSE, TRUE, error);
}

/* ------------------------------------------------------------------------ */
/* lora: O = X @ W + (X @ A) @ B */

static PrismGraph *
build_lora (const Params *p, GError **error)
{
  gint64 n = param (p, "n"), d = param (p, "d"), r = param (p, "r"), o = param (p, "o");
  PrismGraph *g = new_graph (p, FALSE);
  int x = input (g, "X", 2, n, d, 0, error);
  int w = x < 0 ? -1 : input (g, "W", 2, d, o, 0, error);
  int a = w < 0 ? -1 : input (g, "A", 2, d, r, 0, error);
  int bm = a < 0 ? -1 : input (g, "B", 2, r, o, 0, error);
  int xw = op2 (g, PRISM_OP_MATMUL, x, w, error);
  int xab = op2 (g, PRISM_OP_MATMUL, op2 (g, PRISM_OP_MATMUL, x, a, error), bm, error);

  return finish (g, output (g, op2 (g, PRISM_OP_ADD, xw, xab, error), "O", error));
}

/* One kernel with three matmuls: the grid splits the output columns, the
 * loop splits d; (X_i @ A_i) @ B is linear in the loop, so it is added to
 * X_i @ W_i before the single accumulator. */
static PrismGraph *
ref_lora (const Params *p, GError **error)
{
  gint64 n = param (p, "n"), d = param (p, "d"), r = param (p, "r"), o = param (p, "o");
  gint64 tn = pick_divisor (o, 64), tk = pick_divisor (d, 64);
  PrismGraph *g = new_graph (p, TRUE);
  PrismGraph *b = block_1d (o / tn, d / tk);
  int ins[4];
  int xt, wt, at, bt, xw, xab, acc, kop;
  gboolean ok;

  ins[0] = input (g, "X", 2, n, d, 0, error);
  ins[1] = ins[0] < 0 ? -1 : input (g, "W", 2, d, o, 0, error);
  ins[2] = ins[1] < 0 ? -1 : input (g, "A", 2, d, r, 0, error);
  ins[3] = ins[2] < 0 ? -1 : input (g, "B", 2, r, o, 0, error);
  xt = tile (b, g, 0, ins[0], -1, -1, -1, 1, error);
  wt = tile (b, g, 1, ins[1], 1, -1, -1, 0, error);
  at = tile (b, g, 2, ins[2], -1, -1, -1, 0, error);
  bt = tile (b, g, 3, ins[3], 1, -1, -1, -1, error);
  xw = op2 (b, PRISM_OP_MATMUL, xt, wt, error);
  xab = op2 (b, PRISM_OP_MATMUL, op2 (b, PRISM_OP_MATMUL, xt, at, error), bt, error);
  acc = op1 (b, PRISM_OP_ACCUM, op2 (b, PRISM_OP_ADD, xw, xab, error), error);
  ok = block_output (b, acc, 1, -1, -1, error);
  kop = kernel (g, b, ok, ins, 4, error);
  return finish (g, output (g, kernel_out (g, kop, 0), "O", error));
}

/* ------------------------------------------------------------------------ */
/* norm_transformer: C = X + α ⊙ (rms_norm(H) + X), O = rms_norm(C) */

static PrismGraph *
build_norm_transformer (const Params *p, GError **error)
{
  gint64 n = param (p, "n"), d = param (p, "d");
  PrismGraph *g = new_graph (p, FALSE);
  int h = input (g, "H", 2, n, d, 0, error);
  int x = h < 0 ? -1 : input (g, "X", 2, n, d, 0, error);
  int alpha = x < 0 ? -1 : input (g, "alpha", 2, n, d, 0, error);
  int t = op2 (g, PRISM_OP_ADD, rms_norm (g, h, error), x, error);
  int c = op2 (g, PRISM_OP_ADD, x, op2 (g, PRISM_OP_MUL, alpha, t, error), error);

  return finish (g, output (g, rms_norm (g, c, error), "O", error));
}

/* One kernel, one row per block, no loop: both norms need whole rows. */
static PrismGraph *
ref_norm_transformer (const Params *p, GError **error)
{
  gint64 n = param (p, "n"), d = param (p, "d");
  PrismGraph *g = new_graph (p, TRUE);
  PrismGraph *b = block_1d (n, 1);
  int ins[3];
  int ht, xt, at, t, c, kop;
  gboolean ok;

  ins[0] = input (g, "H", 2, n, d, 0, error);
  ins[1] = ins[0] < 0 ? -1 : input (g, "X", 2, n, d, 0, error);
  ins[2] = ins[1] < 0 ? -1 : input (g, "alpha", 2, n, d, 0, error);
  ht = tile (b, g, 0, ins[0], 0, -1, -1, -1, error);
  xt = tile (b, g, 1, ins[1], 0, -1, -1, -1, error);
  at = tile (b, g, 2, ins[2], 0, -1, -1, -1, error);
  t = op2 (b, PRISM_OP_ADD, rms_norm (b, ht, error), xt, error);
  c = op2 (b, PRISM_OP_ADD, xt, op2 (b, PRISM_OP_MUL, at, t, error), error);
  ok = block_output (b, rms_norm (b, op1 (b, PRISM_OP_ACCUM, c, error), error), 0, -1, -1, error);
  kop = kernel (g, b, ok, ins, 3, error);
  return finish (g, output (g, kernel_out (g, kop, 0), "O", error));
}

/* ------------------------------------------------------------------------ */
/* softmax_safe: L = X @ W, O = exp(L - max(L)) / Σ exp(L - max(L)), rows */

static int
safe_softmax (PrismGraph *g, int l, int dim, GError **error)
{
  int m = op_attr (g, PRISM_OP_MAX, l, dim, 1, 0, error);
  int e = op1 (g, PRISM_OP_EXP, op2 (g, PRISM_OP_SUB, l, m, error), error);

  return op2 (g, PRISM_OP_DIV, e, op_attr (g, PRISM_OP_SUM, e, dim, 1, 0, error), error);
}

static PrismGraph *
build_softmax_safe (const Params *p, GError **error)
{
  gint64 n = param (p, "n"), d = param (p, "d"), v = param (p, "v");
  PrismGraph *g = new_graph (p, FALSE);
  int x = input (g, "X", 2, n, d, 0, error);
  int w = x < 0 ? -1 : input (g, "W", 2, d, v, 0, error);

  return finish (g, output (g, safe_softmax (g, op2 (g, PRISM_OP_MATMUL, x, w, error), 1, error),
                            "O", error));
}

/* Two kernels: the logits (grid over W's columns, loop over d), then one
 * block per row does the max, exp, sum and divide on the whole row. */
static PrismGraph *
ref_softmax_safe (const Params *p, GError **error)
{
  gint64 n = param (p, "n"), d = param (p, "d"), v = param (p, "v");
  gint64 tn = pick_divisor (v, 64), tk = pick_divisor (d, 64);
  PrismGraph *g = new_graph (p, TRUE);
  PrismGraph *k1 = block_1d (v / tn, d / tk);
  PrismGraph *k2 = block_1d (n, 1);
  int ins[2], lt, kop1, kop2, logits;
  gboolean ok;

  ins[0] = input (g, "X", 2, n, d, 0, error);
  ins[1] = ins[0] < 0 ? -1 : input (g, "W", 2, d, v, 0, error);
  ok = block_output (k1, op1 (k1, PRISM_OP_ACCUM,
                              op2 (k1, PRISM_OP_MATMUL, tile (k1, g, 0, ins[0], -1, -1, -1, 1, error),
                                   tile (k1, g, 1, ins[1], 1, -1, -1, 0, error), error), error),
                     1, -1, -1, error);
  kop1 = kernel (g, k1, ok, ins, 2, error);
  logits = kernel_out (g, kop1, 0);
  lt = tile (k2, g, 0, logits, 0, -1, -1, -1, error);
  ok = block_output (k2, op1 (k2, PRISM_OP_ACCUM, safe_softmax (k2, lt, 1, error), error),
                     0, -1, -1, error);
  kop2 = kernel (g, k2, ok, &logits, 1, error);
  return finish (g, output (g, kernel_out (g, kop2, 0), "O", error));
}

/* ------------------------------------------------------------------------ */
/* attention_safe: S = (Q @ K) · 1/√dh, O = softmax_rows(S) @ V, the row
 * max subtracted. */

static PrismGraph *
build_attention_safe (const Params *p, GError **error)
{
  gint64 b = param (p, "b"), rows = param (p, "h") * param (p, "q");
  gint64 keys = param (p, "h") * param (p, "kv"), dh = param (p, "dh");
  PrismGraph *g = new_graph (p, FALSE);
  int q = input (g, "Q", 3, b, rows, dh, error);
  int k = q < 0 ? -1 : input (g, "K", 3, b, dh, keys, error);
  int v = k < 0 ? -1 : input (g, "V", 3, b, keys, dh, error);
  int c = v < 0 ? -1 : constant (g, 1.0 / sqrt ((double) dh), 3, error);
  int sc = op2 (g, PRISM_OP_MUL, op2 (g, PRISM_OP_MATMUL, q, k, error), c, error);

  return finish (g, output (g, op2 (g, PRISM_OP_MATMUL, safe_softmax (g, sc, 2, error), v, error),
                            "O", error));
}

/* Two kernels over (batch, row blocks), both looping over the keys: the
 * first takes the row max of the scaled scores (block max, accum_max), the
 * second subtracts it and accumulates Σ exp · V and Σ exp, dividing in its
 * epilogue.  (The one-kernel form, with the online softmax's running max
 * and rescaled sums, is tests/verify/graphs/attention_safe-online.json.) */
static PrismGraph *
ref_attention_safe (const Params *p, GError **error)
{
  gint64 b = param (p, "b"), rows = param (p, "h") * param (p, "q");
  gint64 keys = param (p, "h") * param (p, "kv"), dh = param (p, "dh");
  gint64 rb = pick_divisor (rows, 64), kt = pick_divisor (keys, 64);
  gint64 grid[2] = { b, rows / rb };
  double scale = 1.0 / sqrt ((double) dh);
  PrismGraph *g = new_graph (p, TRUE);
  PrismGraph *k1 = prism_block_graph_new_const (2, grid, 128, keys / kt);
  PrismGraph *k2 = prism_block_graph_new_const (2, grid, 128, keys / kt);
  int ins[4], s1, s2, e, num, den, kop1, kop2;
  gboolean ok;

  ins[0] = input (g, "Q", 3, b, rows, dh, error);
  ins[1] = ins[0] < 0 ? -1 : input (g, "K", 3, b, dh, keys, error);
  ins[2] = ins[1] < 0 ? -1 : input (g, "V", 3, b, keys, dh, error);

  s1 = op2 (k1, PRISM_OP_MUL, op2 (k1, PRISM_OP_MATMUL, tile (k1, g, 0, ins[0], 0, 1, -1, -1, error),
                                   tile (k1, g, 1, ins[1], 0, -1, -1, 2, error), error),
            constant (k1, scale, 3, error), error);
  ok = block_output (k1, op1 (k1, PRISM_OP_ACCUM_MAX, op_attr (k1, PRISM_OP_MAX, s1, 2, 1, 0, error),
                              error), 0, 1, -1, error);
  kop1 = kernel (g, k1, ok, ins, 2, error);
  ins[3] = kernel_out (g, kop1, 0);

  s2 = op2 (k2, PRISM_OP_MUL, op2 (k2, PRISM_OP_MATMUL, tile (k2, g, 0, ins[0], 0, 1, -1, -1, error),
                                   tile (k2, g, 1, ins[1], 0, -1, -1, 2, error), error),
            constant (k2, scale, 3, error), error);
  e = op1 (k2, PRISM_OP_EXP, op2 (k2, PRISM_OP_SUB, s2, tile (k2, g, 3, ins[3], 0, 1, -1, -1, error),
                                  error), error);
  num = op1 (k2, PRISM_OP_ACCUM, op2 (k2, PRISM_OP_MATMUL, e, tile (k2, g, 2, ins[2], 0, -1, -1, 1, error),
                                      error), error);
  den = op1 (k2, PRISM_OP_ACCUM_SUM, e, error);
  ok = block_output (k2, op2 (k2, PRISM_OP_DIV, num, den, error), 0, 1, -1, error);
  kop2 = kernel (g, k2, ok, ins, 4, error);
  return finish (g, output (g, kernel_out (g, kop2, 0), "O", error));
}

/* ------------------------------------------------------------------------ */
/* layer_norm_linear: O = ((X - mean(X)) / sqrt(var(X) + ε)) @ W, rows */

static int
layer_norm (PrismGraph *g, int x, double eps, GError **error)
{
  int xc = op2 (g, PRISM_OP_SUB, x, op_attr (g, PRISM_OP_MEAN, x, 1, 1, 0, error), error);
  int var = op_attr (g, PRISM_OP_MEAN, op1 (g, PRISM_OP_SQUARE, xc, error), 1, 1, 0, error);
  int r = op1 (g, PRISM_OP_SQRT, op2 (g, PRISM_OP_ADD, var, constant (g, eps, 2, error), error), error);

  return op2 (g, PRISM_OP_DIV, xc, r, error);
}

#define LAYER_NORM_EPS 1e-5

static PrismGraph *
build_layer_norm_linear (const Params *p, GError **error)
{
  gint64 n = param (p, "n"), d = param (p, "d"), o = param (p, "o");
  PrismGraph *g = new_graph (p, FALSE);
  int x = input (g, "X", 2, n, d, 0, error);
  int w = x < 0 ? -1 : input (g, "W", 2, d, o, 0, error);

  return finish (g, output (g, op2 (g, PRISM_OP_MATMUL, layer_norm (g, x, LAYER_NORM_EPS, error), w,
                                    error), "O", error));
}

/* Two kernels: one block per row normalises it (the mean is needed before
 * the variance), then the matmul (grid over W's columns, loop over d). */
static PrismGraph *
ref_layer_norm_linear (const Params *p, GError **error)
{
  gint64 n = param (p, "n"), d = param (p, "d"), o = param (p, "o");
  gint64 tn = pick_divisor (o, 64), tk = pick_divisor (d, 64);
  PrismGraph *g = new_graph (p, TRUE);
  PrismGraph *k1 = block_1d (n, 1);
  PrismGraph *k2 = block_1d (o / tn, d / tk);
  int ins[2], y[2], kop1, kop2;
  gboolean ok;

  ins[0] = input (g, "X", 2, n, d, 0, error);
  ins[1] = ins[0] < 0 ? -1 : input (g, "W", 2, d, o, 0, error);
  ok = block_output (k1, op1 (k1, PRISM_OP_ACCUM,
                              layer_norm (k1, tile (k1, g, 0, ins[0], 0, -1, -1, -1, error),
                                          LAYER_NORM_EPS, error), error), 0, -1, -1, error);
  kop1 = kernel (g, k1, ok, ins, 1, error);
  y[0] = kernel_out (g, kop1, 0);
  y[1] = ins[1];
  ok = block_output (k2, op1 (k2, PRISM_OP_ACCUM,
                              op2 (k2, PRISM_OP_MATMUL, tile (k2, g, 0, y[0], -1, -1, -1, 1, error),
                                   tile (k2, g, 1, y[1], 1, -1, -1, 0, error), error), error),
                     1, -1, -1, error);
  kop2 = kernel (g, k2, ok, y, 2, error);
  return finish (g, output (g, kernel_out (g, kop2, 0), "O", error));
}

/* ------------------------------------------------------------------------ */

static const PrismWorkloadInfo workloads[] = {
  { "rms_norm",
    N_("RMS normalization followed by a linear layer: O = rms_norm(X) @ W."),
    "n=8,d=4096", TRUE },
  { "rmsnorm_mlp",
    N_("RMS normalization feeding two projections multiplied elementwise: O = (rms_norm(X) @ W_up) ⊙ (rms_norm(X) @ W_gate)."),
    "n=8,d=4096", TRUE },
  { "swiglu",
    N_("The SwiGLU gate of a feed-forward layer: O = silu(X @ W_gate) ⊙ (X @ W_up)."),
    "n=16,d=1024", TRUE },
  { "attention",
    N_("Decoding attention with the heads folded into the rows: O = (exp(Q @ K) / Σ exp(Q @ K)) @ V."),
    "b=2,h=8,q=1,kv=1024,dh=128", TRUE },
  { "qk_norm_attention",
    N_("Attention whose queries are first RMS-normalized over the head dimension."),
    "b=2,h=8,q=1,kv=1024,dh=128", TRUE },
  { "gated_mlp",
    N_("Mirage's gated MLP benchmark: O = silu(X @ W1) ⊙ (X @ W2)."),
    "n=8,d=4096", TRUE },
  { "lora",
    N_("A linear layer with a low-rank adapter: O = X @ W + (X @ A) @ B."),
    "n=16,d=256,r=16,o=4096", TRUE },
  { "gqa",
    N_("Mirage's group-query attention benchmark: O = (exp(Q @ K) / Σ exp(Q @ K)) @ V."),
    "b=2,q=256,kv=4096,dh=64", TRUE },
  { "norm_transformer",
    N_("Mirage's normalized-transformer block: C = X + α ⊙ (rms_norm(H) + X), O = rms_norm(C)."),
    "n=8,d=4096", TRUE },
  { "softmax_safe",
    N_("A softmax over a linear layer with the row max subtracted: L = X @ W, O = exp(L − max(L)) / Σ exp(L − max(L))."),
    "n=8,d=1024,v=4096", TRUE },
  { "attention_safe",
    N_("Decoding attention in the safe form: S = (Q @ K) / √dh, O = (exp(S − max(S)) / Σ exp(S − max(S))) @ V."),
    "b=2,h=8,q=1,kv=1024,dh=128", TRUE },
  { "layer_norm_linear",
    N_("Layer normalization with ε followed by a linear layer: O = ((X − mean(X)) / √(var(X) + ε)) @ W."),
    "n=8,d=4096,o=4096", TRUE },
};

typedef struct
{
  BuildFunc build;
  BuildFunc build_reference;
} WorkloadImpl;

/* Same order as workloads[]. */
static const WorkloadImpl impls[] = {
  { build_rms_norm, ref_rms_norm },
  { build_rmsnorm_mlp, ref_rmsnorm_mlp },
  { build_swiglu, ref_swiglu },
  { build_attention, ref_attention },
  { build_qk_norm_attention, ref_qk_norm_attention },
  { build_gated_mlp, ref_gated_mlp },
  { build_lora, ref_lora },
  { build_gqa, ref_gqa },
  { build_norm_transformer, ref_norm_transformer },
  { build_softmax_safe, ref_softmax_safe },
  { build_attention_safe, ref_attention_safe },
  { build_layer_norm_linear, ref_layer_norm_linear },
};

G_STATIC_ASSERT (G_N_ELEMENTS (workloads) == G_N_ELEMENTS (impls));

const PrismWorkloadInfo *
prism_workload_list (guint *n_workloads)
{
  if (n_workloads != NULL)
    *n_workloads = G_N_ELEMENTS (workloads);
  return workloads;
}

const PrismWorkloadInfo *
prism_workload_lookup (const char *name)
{
  for (guint i = 0; name != NULL && i < G_N_ELEMENTS (workloads); i++)
    if (g_str_equal (workloads[i].name, name))
      return &workloads[i];
  return NULL;
}

static char *
param_keys (const Params *p)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < p->n; i++)
    g_string_append_printf (s, "%s%s", i ? ", " : "", p->keys[i]);
  return g_string_free (s, FALSE);
}

/* Parses "key=value,…" into @p: with @defaults every key is new, otherwise
 * every key must already be there and appear once. */
static gboolean
parse_params (Params *p, const char *text, gboolean defaults, GError **error)
{
  g_autofree char *trimmed = text != NULL ? g_strstrip (g_strdup (text)) : NULL;
  g_auto(GStrv) items = NULL;
  gboolean seen[MAX_PARAMS] = { FALSE, };

  if (trimmed == NULL || *trimmed == '\0')
    return TRUE;
  items = g_strsplit (trimmed, ",", -1);
  for (guint i = 0; items[i] != NULL; i++)
    {
      g_auto(GStrv) kv = g_strsplit (items[i], "=", 2);
      g_autoptr(GError) local = NULL;
      const char *key, *value;
      guint slot;
      gint64 v;

      if (kv[0] == NULL || kv[1] == NULL)
        {
          g_set_error (error, PRISM_ERROR, PRISM_ERROR_PARSE,
                       "workload “%s”: “%s” is not of the form key=value", p->info->name,
                       g_strstrip (items[i]));
          return FALSE;
        }
      key = g_strstrip (kv[0]);
      value = g_strstrip (kv[1]);
      for (slot = 0; slot < p->n; slot++)
        if (g_str_equal (p->keys[slot], key))
          break;
      if (defaults)
        {
          g_assert (slot == p->n && p->n < MAX_PARAMS && strlen (key) < MAX_KEY);
          g_strlcpy (p->keys[p->n++], key, MAX_KEY);
        }
      else if (slot == p->n)
        {
          g_autofree char *known = param_keys (p);
          g_set_error (error, PRISM_ERROR, PRISM_ERROR_PARSE,
                       "workload “%s” has no parameter “%s” (it takes %s)", p->info->name, key,
                       known);
          return FALSE;
        }
      else if (seen[slot])
        {
          g_set_error (error, PRISM_ERROR, PRISM_ERROR_PARSE,
                       "workload “%s”: parameter “%s” is given twice", p->info->name, key);
          return FALSE;
        }
      if (!g_ascii_string_to_signed (value, 10, 1, PRISM_DIM_MAX, &v, &local))
        {
          g_set_error (error, PRISM_ERROR, PRISM_ERROR_PARSE,
                       "workload “%s”: parameter “%s” = “%s” is not an integer between 1 and %"
                       G_GINT64_FORMAT, p->info->name, key, value, PRISM_DIM_MAX);
          return FALSE;
        }
      seen[slot] = TRUE;
      p->values[slot] = v;
    }
  return TRUE;
}

static PrismGraph *
build (const char *name, const char *params, gboolean reference, GError **error)
{
  const PrismWorkloadInfo *info = prism_workload_lookup (name);
  Params p = { info, 0, };
  const WorkloadImpl *impl;
  PrismGraph *g;

  if (info == NULL)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_PARSE, "there is no built-in workload “%s”",
                   name ? name : "");
      return NULL;
    }
  impl = &impls[info - workloads];
  if (reference && impl->build_reference == NULL)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED,
                   "workload “%s” has no hand-written fused graph", name);
      return NULL;
    }
  if (!parse_params (&p, info->shape_params, TRUE, NULL))
    g_assert_not_reached ();
  if (!parse_params (&p, params, FALSE, error))
    return NULL;
  g = reference ? impl->build_reference (&p, error) : impl->build (&p, error);
  if (g == NULL)
    g_prefix_error (error, "workload “%s”: ", name);
  return g;
}

PrismGraph *
prism_workload_build (const char *name, const char *params, GError **error)
{
  return build (name, params, FALSE, error);
}

PrismGraph *
prism_workload_build_reference (const char *name, const char *params, GError **error)
{
  return build (name, params, TRUE, error);
}
