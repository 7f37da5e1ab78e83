/* prism-par-typer.c — shapes and parallel axes of e-classes
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The typing judgement mirrors the IR's shape rules (prism-graph.c) on
 * parallel tensors: binary ops broadcast dims of size 1 and need equal axis
 * sets, matmul needs equal batch dims and A[-1] == B[-2], partition needs a
 * fresh axis, combine and reduce an axis the operand has; (scale t p), which
 * only the rules build, has t's type.
 */
#include "config.h"

#include <string.h>

#include "prism-error.h"
#include "prism-par-typer.h"

enum
{
  STATE_UNKNOWN = 0,
  STATE_BUSY,      /* being computed (a cycle through this class) */
  STATE_NONE,      /* not a well-typed tensor */
  STATE_TYPED,
};

typedef struct
{
  guint8 state;
  PrismParType type;
  guint8 real_state;    /* never_nan(): STATE_UNKNOWN, STATE_BUSY, STATE_NONE, STATE_TYPED (real) */
  guint real_checked;   /* the e-graph's node count when STATE_NONE was found */
} Entry;

struct _PrismParTyper
{
  const PrismParEnv *env;
  const PrismEgraph *eg;
  GPtrArray *memo;     /* Entry* by class id (NULL: unknown); entries never move */
};

/* Operator symbols, interned once per process. */
static struct
{
  PrismSymbol exp, square, sqrt, silu, gelu, relu, neg;
  PrismSymbol add, sub, mul, div, pow;
  PrismSymbol map, map2, matmul, sum, divn, rms_norm, rms_norm_eps, rms, concat;
  PrismSymbol partition, replicate, combine, reduce, reduce_max, scale;
  PrismSymbol maximum, max, transpose, constant;
  PrismSymbol running, reduce_online;
} sym;

static void
intern_symbols (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done))
    {
      sym.exp = prism_symbol_intern ("exp");
      sym.square = prism_symbol_intern ("square");
      sym.sqrt = prism_symbol_intern ("sqrt");
      sym.silu = prism_symbol_intern ("silu");
      sym.gelu = prism_symbol_intern ("gelu");
      sym.relu = prism_symbol_intern ("relu");
      sym.neg = prism_symbol_intern ("neg");
      sym.add = prism_symbol_intern ("add");
      sym.sub = prism_symbol_intern ("sub");
      sym.mul = prism_symbol_intern ("mul");
      sym.div = prism_symbol_intern ("div");
      sym.pow = prism_symbol_intern ("pow");
      sym.map = prism_symbol_intern ("map");
      sym.map2 = prism_symbol_intern ("map2");
      sym.matmul = prism_symbol_intern ("matmul");
      sym.sum = prism_symbol_intern ("sum");
      sym.divn = prism_symbol_intern ("divn");
      sym.rms_norm = prism_symbol_intern ("rms_norm");
      sym.rms_norm_eps = prism_symbol_intern ("rms_norm_eps");
      sym.rms = prism_symbol_intern ("rms");
      sym.concat = prism_symbol_intern ("concat");
      sym.partition = prism_symbol_intern ("partition");
      sym.replicate = prism_symbol_intern ("replicate");
      sym.combine = prism_symbol_intern ("combine");
      sym.reduce = prism_symbol_intern ("reduce");
      sym.reduce_max = prism_symbol_intern ("reduce_max");
      sym.scale = prism_symbol_intern ("scale");
      sym.maximum = prism_symbol_intern ("maximum");
      sym.max = prism_symbol_intern ("max");
      sym.transpose = prism_symbol_intern ("transpose");
      sym.constant = prism_symbol_intern ("const");
      sym.running = prism_symbol_intern ("running");
      sym.reduce_online = prism_symbol_intern ("reduce_online");
      g_once_init_leave (&done, 1);
    }
}

static void
type_clear (PrismParType *t)
{
  for (guint i = 0; i < t->ndims; i++)
    g_clear_pointer (&t->dims[i], prism_dim_unref);
  t->ndims = 0;
  t->axes = 0;
}

static void
type_copy (PrismParType *dst, const PrismParType *src)
{
  dst->ndims = src->ndims;
  dst->axes = src->axes;
  for (guint i = 0; i < src->ndims; i++)
    dst->dims[i] = prism_dim_ref (src->dims[i]);
}

/* Replaces dim @i of @t (taking @dim). */
static void
type_set_dim (PrismParType *t, guint i, PrismDim *dim)
{
  prism_dim_unref (t->dims[i]);
  t->dims[i] = dim;
}

static gboolean
type_equal (const PrismParType *a, const PrismParType *b)
{
  if (a->ndims != b->ndims || a->axes != b->axes)
    return FALSE;
  for (guint i = 0; i < a->ndims; i++)
    if (!prism_dim_equal (a->dims[i], b->dims[i]))
      return FALSE;
  return TRUE;
}

static gboolean
dim_is_one (const PrismDim *d)
{
  return prism_dim_is_const (d) && prism_dim_get_const (d) == 1;
}

PrismParTyper *
prism_par_typer_new (const PrismParEnv *env, const PrismEgraph *egraph)
{
  PrismParTyper *ty = g_new0 (PrismParTyper, 1);

  intern_symbols ();
  ty->env = env;
  ty->eg = egraph;
  ty->memo = g_ptr_array_new ();
  return ty;
}

void
prism_par_typer_free (PrismParTyper *ty)
{
  if (ty == NULL)
    return;
  for (guint i = 0; i < ty->memo->len; i++)
    {
      Entry *e = g_ptr_array_index (ty->memo, i);
      if (e != NULL)
        {
          type_clear (&e->type);
          g_free (e);
        }
    }
  g_ptr_array_unref (ty->memo);
  g_free (ty);
}

static Entry *
entry (PrismParTyper *ty, guint cls)
{
  if (cls >= ty->memo->len)
    g_ptr_array_set_size (ty->memo, (gint) MAX (cls + 1, prism_egraph_get_n_ids (ty->eg)));
  if (g_ptr_array_index (ty->memo, cls) == NULL)
    g_ptr_array_index (ty->memo, cls) = g_new0 (Entry, 1);
  return g_ptr_array_index (ty->memo, cls);
}

/* Attribute children ------------------------------------------------------ */

static gboolean
class_int (PrismParTyper *ty, guint cls, gint64 *value)
{
  return prism_egraph_get_const (ty->eg, cls, value);
}

/* The leaf symbol of a class, or PRISM_SYMBOL_NONE. */
static PrismSymbol
class_symbol (PrismParTyper *ty, guint cls)
{
  guint n = prism_egraph_class_get_n_nodes (ty->eg, cls);

  for (guint i = 0; i < n; i++)
    {
      guint node = prism_egraph_class_get_node (ty->eg, cls, i);
      if (!prism_egraph_node_is_int (ty->eg, node) &&
          prism_egraph_node_get_n_children (ty->eg, node) == 0)
        return prism_egraph_node_get_op (ty->eg, node);
    }
  return PRISM_SYMBOL_NONE;
}

static int
class_axis (PrismParTyper *ty, guint cls)
{
  PrismSymbol s = class_symbol (ty, cls);

  return s == PRISM_SYMBOL_NONE ? -1 : prism_par_env_lookup_axis (ty->env, s);
}

/* A size leaf: (transfer full) dim, or NULL. */
static PrismDim *
class_size (PrismParTyper *ty, guint cls)
{
  gint64 v;
  PrismSymbol s;
  const PrismDim *d;

  if (class_int (ty, cls, &v))
    return v > 0 ? prism_dim_const (v) : NULL;
  s = class_symbol (ty, cls);
  d = s == PRISM_SYMBOL_NONE ? NULL : prism_par_env_lookup_size (ty->env, s);
  return d ? prism_dim_ref (d) : NULL;
}

/* A data dim numbered from the last, as an index into dims[]. */
static gboolean
class_dim_index (PrismParTyper *ty, guint cls, guint ndims, guint *index)
{
  gint64 v;

  if (!class_int (ty, cls, &v) || v < 0 || v >= (gint64) ndims)
    return FALSE;
  *index = ndims - 1 - (guint) v;
  return TRUE;
}

/* Typing of e-nodes -------------------------------------------------------- */

static const PrismParType *class_type (PrismParTyper *ty, guint cls, gboolean *cycle);

static gboolean
type_broadcast (const PrismParType *a, const PrismParType *b, PrismParType *out)
{
  if (a->ndims != b->ndims || a->axes != b->axes)
    return FALSE;
  out->ndims = a->ndims;
  out->axes = a->axes;
  for (guint i = 0; i < a->ndims; i++)
    {
      const PrismDim *d;
      if (prism_dim_equal (a->dims[i], b->dims[i]) || dim_is_one (b->dims[i]))
        d = a->dims[i];
      else if (dim_is_one (a->dims[i]))
        d = b->dims[i];
      else
        {
          for (guint j = 0; j < i; j++)
            g_clear_pointer (&out->dims[j], prism_dim_unref);
          out->ndims = 0;
          return FALSE;
        }
      out->dims[i] = prism_dim_ref (d);
    }
  return TRUE;
}

static gboolean
type_matmul (const PrismParType *a, const PrismParType *b, PrismParType *out)
{
  guint n = a->ndims;

  if (a->ndims != b->ndims || n < 2 || a->axes != b->axes)
    return FALSE;
  for (guint i = 0; i + 2 < n; i++)
    if (!prism_dim_equal (a->dims[i], b->dims[i]))
      return FALSE;
  if (!prism_dim_equal (a->dims[n - 1], b->dims[n - 2]))
    return FALSE;
  type_copy (out, a);
  type_set_dim (out, n - 1, prism_dim_ref (b->dims[n - 1]));
  return TRUE;
}

/* The permutation of prism_par_perm_code() @code for a rank-@ndims
 * operand; FALSE when it is not one. */
static gboolean
perm_decode (gint64 code, guint ndims, int *perm)
{
  guint seen = 0;

  if (code < 0 || (code >> 8) != (gint64) ndims || ndims > PRISM_MAX_DIMS)
    return FALSE;
  for (guint i = 0; i < ndims; i++)
    {
      perm[i] = (int) ((code >> (2 * i)) & 3);
      if ((guint) perm[i] >= ndims || (seen & (1u << perm[i])))
        return FALSE;
      seen |= 1u << perm[i];
    }
  return TRUE;
}

/* The type of e-node @node if its children are typed; FALSE otherwise. */
static gboolean
node_type (PrismParTyper *ty, guint node, PrismParType *out, gboolean *cycle)
{
  const PrismEgraph *eg = ty->eg;
  PrismSymbol op;
  guint n;
  const PrismParType *a = NULL, *b = NULL;
  guint ch[3] = { 0, 0, 0 };

  memset (out, 0, sizeof *out);
  if (prism_egraph_node_is_int (eg, node))
    return FALSE;
  op = prism_egraph_node_get_op (eg, node);
  n = prism_egraph_node_get_n_children (eg, node);
  if (n == 0)
    {
      const PrismTensor *in = prism_par_env_lookup_input (ty->env, op);
      if (in == NULL)
        return FALSE;
      out->ndims = in->ndims;
      for (guint i = 0; i < in->ndims; i++)
        out->dims[i] = prism_dim_ref (in->dims[i]);
      return TRUE;
    }
  if (n > 3)
    return FALSE;
  for (guint i = 0; i < n; i++)
    ch[i] = prism_egraph_node_get_child (eg, node, i);
  if (op == sym.map || op == sym.map2)
    {
      PrismSymbol f = class_symbol (ty, ch[0]);

      if (n == 2 && (f == sym.exp || f == sym.square || f == sym.sqrt || f == sym.silu ||
                     f == sym.gelu || f == sym.relu || f == sym.neg))
        {
          a = class_type (ty, ch[1], cycle);
          if (a == NULL)
            return FALSE;
          type_copy (out, a);
          return TRUE;
        }
      if (n == 3 && (f == sym.add || f == sym.sub || f == sym.mul || f == sym.div || f == sym.pow ||
                     f == sym.maximum))
        {
          a = class_type (ty, ch[1], cycle);
          b = a != NULL ? class_type (ty, ch[2], cycle) : NULL;
          return b != NULL && type_broadcast (a, b, out);
        }
      return FALSE;
    }
  if (n == 2 && op == sym.constant)
    {
      gint64 bits, rank;
      /* A value of rank dims of size 1, the same everywhere (no axes). */
      if (!class_int (ty, ch[0], &bits) || !class_int (ty, ch[1], &rank) || rank < 1 ||
          rank > PRISM_MAX_DIMS)
        return FALSE;
      out->ndims = (guint) rank;
      for (guint i = 0; i < out->ndims; i++)
        out->dims[i] = prism_dim_const (1);
      return TRUE;
    }
  a = class_type (ty, ch[0], cycle);
  if (a == NULL)
    return FALSE;

  if (n == 2 && op == sym.transpose)
    {
      int perm[PRISM_MAX_DIMS];
      gint64 code;
      if (!class_int (ty, ch[1], &code) || !perm_decode (code, a->ndims, perm))
        return FALSE;
      type_copy (out, a);
      for (guint i = 0; i < a->ndims; i++)
        type_set_dim (out, i, prism_dim_ref (a->dims[perm[i]]));
      return TRUE;
    }
  if (n == 2 && op == sym.matmul)
    {
      b = class_type (ty, ch[1], cycle);
      return b != NULL && type_matmul (a, b, out);
    }
  if (n == 2 && (op == sym.divn || op == sym.rms_norm || op == sym.rms))
    {
      g_autoptr(PrismDim) size = class_size (ty, ch[1]);
      if (size == NULL || class_type (ty, ch[1], cycle) != NULL)
        return FALSE;
      type_copy (out, a);
      if (op == sym.rms)
        type_set_dim (out, a->ndims - 1, prism_dim_const (1));
      return TRUE;
    }
  if (n == 3 && op == sym.rms_norm_eps)
    {
      /* (rms_norm_eps t n e): t's type; e is a constant, of any shape of ones. */
      g_autoptr(PrismDim) size = class_size (ty, ch[1]);
      if (size == NULL || class_type (ty, ch[1], cycle) != NULL || class_type (ty, ch[2], cycle) == NULL)
        return FALSE;
      type_copy (out, a);
      return TRUE;
    }
  if (n == 2 && op == sym.scale)
    {
      /* t times the size of an axis: t's type; the axis is only a size
       * here, t may or may not have it. */
      if (class_axis (ty, ch[1]) < 0)
        return FALSE;
      type_copy (out, a);
      return TRUE;
    }
  if (n == 2 && (op == sym.sum || op == sym.max))
    {
      guint d;
      if (!class_dim_index (ty, ch[1], a->ndims, &d))
        return FALSE;
      type_copy (out, a);
      type_set_dim (out, d, prism_dim_const (1));
      return TRUE;
    }
  if (n == 3 && op == sym.concat)
    {
      guint d;
      b = class_type (ty, ch[1], cycle);
      if (b == NULL || a->ndims != b->ndims || a->axes != b->axes ||
          !class_dim_index (ty, ch[2], a->ndims, &d))
        return FALSE;
      for (guint i = 0; i < a->ndims; i++)
        if (i != d && !prism_dim_equal (a->dims[i], b->dims[i]))
          return FALSE;
      type_copy (out, a);
      type_set_dim (out, d, prism_dim_add (a->dims[d], b->dims[d]));
      return TRUE;
    }
  if (n == 2 && op == sym.running)
    {
      /* The prefix maximum along an axis t has: t's type. */
      int p = class_axis (ty, ch[1]);
      if (p < 0 || (a->axes & (G_GUINT64_CONSTANT (1) << p)) == 0)
        return FALSE;
      type_copy (out, a);
      return TRUE;
    }
  if (n == 3 && op == sym.reduce_online)
    {
      /* x summed along p, rescaled by the running max r: r has x's axes
       * and every dim of r is 1 or x's, so that one max scales each element. */
      int p = class_axis (ty, ch[2]);
      b = class_type (ty, ch[1], cycle);
      if (p < 0 || b == NULL || (a->axes & (G_GUINT64_CONSTANT (1) << p)) == 0 ||
          a->axes != b->axes || a->ndims != b->ndims)
        return FALSE;
      for (guint i = 0; i < a->ndims; i++)
        if (!dim_is_one (b->dims[i]) && !prism_dim_equal (a->dims[i], b->dims[i]))
          return FALSE;
      type_copy (out, a);
      out->axes ^= G_GUINT64_CONSTANT (1) << p;
      return TRUE;
    }
  if ((n == 3 && (op == sym.partition || op == sym.combine)) ||
      (n == 2 && (op == sym.replicate || op == sym.reduce || op == sym.reduce_max)))
    {
      int p = class_axis (ty, ch[n - 1]);
      guint64 bit;
      guint d = 0;
      const PrismDim *size;

      if (p < 0)
        return FALSE;
      bit = G_GUINT64_CONSTANT (1) << p;
      size = prism_par_env_get_axis_size (ty->env, (guint) p);
      if (n == 3 && !class_dim_index (ty, ch[1], a->ndims, &d))
        return FALSE;
      if ((op == sym.partition || op == sym.replicate) == ((a->axes & bit) != 0))
        return FALSE;  /* partition/replicate add a fresh axis; the others remove one */
      type_copy (out, a);
      out->axes ^= bit;
      if (op == sym.partition)
        {
          PrismDim *q = prism_dim_div (a->dims[d], size);
          /* A constant that does not divide is not a partition. */
          if (prism_dim_is_const (a->dims[d]) && prism_dim_is_const (size) && !prism_dim_is_const (q))
            {
              prism_dim_unref (q);
              type_clear (out);
              return FALSE;
            }
          type_set_dim (out, d, q);
        }
      else if (op == sym.combine)
        type_set_dim (out, d, prism_dim_mul (a->dims[d], size));
      return TRUE;
    }
  return FALSE;
}

static const PrismParType *
class_type (PrismParTyper *ty, guint cls, gboolean *cycle)
{
  Entry *e;
  guint n;
  gboolean my_cycle = FALSE;

  cls = prism_egraph_find (ty->eg, cls);
  e = entry (ty, cls);
  if (e->state == STATE_TYPED)
    return &e->type;
  if (e->state == STATE_NONE)
    return NULL;
  if (e->state == STATE_BUSY)
    {
      *cycle = TRUE;
      return NULL;
    }
  e->state = STATE_BUSY;
  n = prism_egraph_class_get_n_nodes (ty->eg, cls);
  for (guint i = 0; i < n; i++)
    {
      PrismParType t;
      if (node_type (ty, prism_egraph_class_get_node (ty->eg, cls, i), &t, &my_cycle))
        {
          e->type = t;
          e->state = STATE_TYPED;
          return &e->type;
        }
    }
  /* A failure that went through a class being computed may succeed from
   * another starting point: remember only definite failures. */
  e->state = my_cycle ? STATE_UNKNOWN : STATE_NONE;
  *cycle |= my_cycle;
  return NULL;
}

const PrismParType *
prism_par_typer_get (PrismParTyper *ty, guint class_id)
{
  gboolean cycle = FALSE;

  return class_type (ty, class_id, &cycle);
}

/* Conditions ---------------------------------------------------------------- */

static gboolean
arg_class (const PrismCondArg *arg, guint *cls)
{
  if (arg->kind != PRISM_COND_ARG_CLASS)
    return FALSE;
  *cls = arg->class_id;
  return TRUE;
}

static gboolean
arg_int (PrismParTyper *ty, const PrismCondArg *arg, gint64 *value)
{
  if (arg->kind == PRISM_COND_ARG_INT)
    {
      *value = arg->value;
      return TRUE;
    }
  return arg->kind == PRISM_COND_ARG_CLASS && class_int (ty, arg->class_id, value);
}

/* The size of dim @arg (numbered from the last) of tensor class @cls. */
static const PrismDim *
arg_tensor_dim (PrismParTyper *ty, const PrismCondArg *t, const PrismCondArg *d)
{
  const PrismParType *type;
  guint cls;
  gint64 v;

  if (!arg_class (t, &cls) || !arg_int (ty, d, &v))
    return NULL;
  type = prism_par_typer_get (ty, cls);
  if (type == NULL || v < 0 || v >= (gint64) type->ndims)
    return NULL;
  return type->dims[type->ndims - 1 - v];
}

static gboolean
cond_same_dim (const PrismEgraph *eg, const PrismCondArg *args, guint n_args, gpointer user_data)
{
  PrismParTyper *ty = user_data;
  const PrismDim *a = arg_tensor_dim (ty, &args[0], &args[2]);
  const PrismDim *b = arg_tensor_dim (ty, &args[1], &args[2]);

  return a != NULL && b != NULL && prism_dim_equal (a, b);
}

static gboolean
cond_dim_one (const PrismEgraph *eg, const PrismCondArg *args, guint n_args, gpointer user_data)
{
  const PrismDim *a = arg_tensor_dim (user_data, &args[0], &args[1]);

  return a != NULL && dim_is_one (a);
}

static gboolean
cond_same_size (const PrismEgraph *eg, const PrismCondArg *args, guint n_args, gpointer user_data)
{
  PrismParTyper *ty = user_data;
  guint p, q;
  int ap, aq;

  if (!arg_class (&args[0], &p) || !arg_class (&args[1], &q))
    return FALSE;
  ap = class_axis (ty, p);
  aq = class_axis (ty, q);
  return ap >= 0 && aq >= 0 &&
         prism_dim_equal (prism_par_env_get_axis_size (ty->env, (guint) ap),
                          prism_par_env_get_axis_size (ty->env, (guint) aq));
}

static const PrismDim *
arg_axis_size (PrismParTyper *ty, const PrismCondArg *arg)
{
  guint cls;
  int axis;

  if (!arg_class (arg, &cls) || (axis = class_axis (ty, cls)) < 0)
    return NULL;
  return prism_par_env_get_axis_size (ty->env, (guint) axis);
}

static gboolean
cond_size_product (const PrismEgraph *eg, const PrismCondArg *args, guint n_args, gpointer user_data)
{
  PrismParTyper *ty = user_data;
  const PrismDim *p = arg_axis_size (ty, &args[0]);
  const PrismDim *q = arg_axis_size (ty, &args[1]);
  const PrismDim *r = arg_axis_size (ty, &args[2]);
  g_autoptr(PrismDim) qr = NULL;

  if (p == NULL || q == NULL || r == NULL)
    return FALSE;
  qr = prism_dim_mul (q, r);
  return prism_dim_equal (p, qr);
}

static gboolean
cond_mm_ok (const PrismEgraph *eg, const PrismCondArg *args, guint n_args, gpointer user_data)
{
  PrismParTyper *ty = user_data;
  const PrismParType *a, *b;
  PrismParType out = { 0, };
  guint ca, cb;
  gboolean ok;

  if (!arg_class (&args[0], &ca) || !arg_class (&args[1], &cb))
    return FALSE;
  a = prism_par_typer_get (ty, ca);
  b = prism_par_typer_get (ty, cb);
  if (a == NULL || b == NULL)
    return FALSE;
  ok = type_matmul (a, b, &out);
  type_clear (&out);
  return ok;
}

static gboolean
cond_fits (const PrismEgraph *eg, const PrismCondArg *args, guint n_args, gpointer user_data)
{
  PrismParTyper *ty = user_data;
  const PrismParType *s, *a;
  guint cs, ca;

  if (!arg_class (&args[0], &cs) || !arg_class (&args[1], &ca))
    return FALSE;
  s = prism_par_typer_get (ty, cs);
  a = prism_par_typer_get (ty, ca);
  if (s == NULL || a == NULL || s->ndims != a->ndims || s->axes != a->axes)
    return FALSE;
  for (guint i = 0; i < s->ndims; i++)
    if (!dim_is_one (s->dims[i]) && !prism_dim_equal (s->dims[i], a->dims[i]))
      return FALSE;
  return TRUE;
}

static gboolean
cond_count_of (const PrismEgraph *eg, const PrismCondArg *args, guint n_args, gpointer user_data)
{
  PrismParTyper *ty = user_data;
  PrismCondArg zero = { PRISM_COND_ARG_INT, 0, PRISM_SYMBOL_NONE, 0 };
  const PrismDim *last = arg_tensor_dim (ty, &args[0], &zero);
  g_autoptr(PrismDim) n = NULL;
  guint cls;

  if (last == NULL || !arg_class (&args[1], &cls))
    return FALSE;
  n = class_size (ty, cls);
  return n != NULL && prism_dim_equal (n, last);
}

/* perm_inverse(?p, ?q): the transpose codes ?p and ?q are of one rank and
 * undo each other (transposing by ?p then by ?q is the identity). */
static gboolean
cond_perm_inverse (const PrismEgraph *eg, const PrismCondArg *args, guint n_args,
                   gpointer user_data)
{
  int p[PRISM_MAX_DIMS], q[PRISM_MAX_DIMS];
  gint64 a, b;
  guint nd;

  if (!arg_int (user_data, &args[0], &a) || !arg_int (user_data, &args[1], &b) || a < 0 ||
      (a >> 8) != (b >> 8))
    return FALSE;
  nd = (guint) (a >> 8);
  if (!perm_decode (a, nd, p) || !perm_decode (b, nd, q))
    return FALSE;
  /* (transpose (transpose t p) q): output dim i is dim q[i] of the inner,
   * i.e. dim p[q[i]] of t. */
  for (guint i = 0; i < nd; i++)
    if (p[q[i]] != (int) i)
      return FALSE;
  return TRUE;
}

/* perm_moves(?c, ?d, ?e): the transpose code ?c takes dim ?d of its operand
 * to dim ?e of its result, both numbered from the last as in terms. */
static gboolean
cond_perm_moves (const PrismEgraph *eg, const PrismCondArg *args, guint n_args,
                 gpointer user_data)
{
  int perm[PRISM_MAX_DIMS];
  gint64 code, d, e;
  guint nd;

  if (!arg_int (user_data, &args[0], &code) || !arg_int (user_data, &args[1], &d) ||
      !arg_int (user_data, &args[2], &e) || code < 0)
    return FALSE;
  nd = (guint) (code >> 8);
  if (!perm_decode (code, nd, perm) || d < 0 || e < 0 || d >= nd || e >= nd)
    return FALSE;
  /* IR numbering: result dim nd-1-e is operand dim perm[nd-1-e]. */
  return perm[nd - 1 - e] == (int) (nd - 1 - d);
}

static gboolean
cond_ge (const PrismEgraph *eg, const PrismCondArg *args, guint n_args, gpointer user_data)
{
  gint64 a, b;

  return arg_int (user_data, &args[0], &a) && arg_int (user_data, &args[1], &b) && a >= b;
}

/* NaN-freeness ---------------------------------------------------------------- */

/* Whether e-node @node is a real number wherever its operands are: inputs
 * and constants (finite: the translation refuses others), the ring
 * operations, maxima, exp and the other total functions, sums, products,
 * division by a constant that is not zero, and every parallel operator.
 * sqrt, pow, division by a tensor, rms and rms_norm can make a NaN (0/0,
 * √−1), which the interpreter's max then skips. */
static gboolean class_real (PrismParTyper *ty, guint cls);

static gboolean
node_real (PrismParTyper *ty, guint node)
{
  const PrismEgraph *eg = ty->eg;
  PrismSymbol op;
  guint n, first = 0;

  if (prism_egraph_node_is_int (eg, node))
    return TRUE;
  op = prism_egraph_node_get_op (eg, node);
  n = prism_egraph_node_get_n_children (eg, node);
  if (n == 0)
    return prism_par_env_lookup_input (ty->env, op) != NULL;
  if (op == sym.constant)
    return TRUE;
  if (op == sym.map || op == sym.map2)
    {
      PrismSymbol f = class_symbol (ty, prism_egraph_node_get_child (eg, node, 0));
      first = 1;
      if (f == sym.div && n == 3)
        {
          guint b = prism_egraph_find (eg, prism_egraph_node_get_child (eg, node, 2));
          gboolean nonzero = FALSE;
          for (guint i = 0; i < prism_egraph_class_get_n_nodes (eg, b) && !nonzero; i++)
            {
              guint c = prism_egraph_class_get_node (eg, b, i);
              gint64 bits;
              if (!prism_egraph_node_is_int (eg, c) && prism_egraph_node_get_op (eg, c) == sym.constant &&
                  class_int (ty, prism_egraph_node_get_child (eg, c, 0), &bits))
                {
                  union { gint64 i; double d; } v = { .i = bits };
                  nonzero = v.d != 0.0;
                }
            }
          return nonzero && class_real (ty, prism_egraph_node_get_child (eg, node, 1));
        }
      if (f != sym.exp && f != sym.square && f != sym.silu && f != sym.gelu && f != sym.relu &&
          f != sym.neg && f != sym.add && f != sym.sub && f != sym.mul && f != sym.maximum)
        return FALSE;
    }
  else if (op == sym.rms || op == sym.rms_norm || op == sym.reduce_online)
    return FALSE;
  for (guint i = first; i < n; i++)
    if (!class_real (ty, prism_egraph_node_get_child (eg, node, i)))
      return FALSE;
  return TRUE;
}

static gboolean
class_real (PrismParTyper *ty, guint cls)
{
  Entry *e;
  guint n_nodes = prism_egraph_get_n_nodes (ty->eg);

  cls = prism_egraph_find (ty->eg, cls);
  e = entry (ty, cls);
  /* A class found real stays real; one found not real may become real
   * when the e-graph grows (a new e-node joins it). */
  if (e->real_state == STATE_TYPED)
    return TRUE;
  if (e->real_state == STATE_BUSY || (e->real_state == STATE_NONE && e->real_checked == n_nodes))
    return FALSE;
  e->real_state = STATE_BUSY;
  for (guint i = 0; i < prism_egraph_class_get_n_nodes (ty->eg, cls); i++)
    if (node_real (ty, prism_egraph_class_get_node (ty->eg, cls, i)))
      {
        e->real_state = STATE_TYPED;
        return TRUE;
      }
  e->real_state = STATE_NONE;
  e->real_checked = n_nodes;
  return FALSE;
}

static gboolean
cond_never_nan (const PrismEgraph *eg, const PrismCondArg *args, guint n_args, gpointer user_data)
{
  guint cls;

  return arg_class (&args[0], &cls) && class_real (user_data, cls);
}

/* Conditions of the completeness rules (issue 24) -------------------------------- */

/* same_rank(?a, ?b): two tensors of one rank (a transpose of each is then
 * typed by the same code, broadcast dims moving alike). */
static gboolean
cond_same_rank (const PrismEgraph *eg, const PrismCondArg *args, guint n_args, gpointer user_data)
{
  const PrismParType *a, *b;
  guint ca, cb;

  if (!arg_class (&args[0], &ca) || !arg_class (&args[1], &cb))
    return FALSE;
  a = prism_par_typer_get (user_data, ca);
  b = a != NULL ? prism_par_typer_get (user_data, cb) : NULL;
  return b != NULL && a->ndims == b->ndims;
}

/* perm_identity(?p): the transpose code ?p moves no dim. */
static gboolean
cond_perm_identity (const PrismEgraph *eg, const PrismCondArg *args, guint n_args, gpointer user_data)
{
  int p[PRISM_MAX_DIMS];
  gint64 a;
  guint nd;

  if (!arg_int (user_data, &args[0], &a) || a < 0)
    return FALSE;
  nd = (guint) (a >> 8);
  if (!perm_decode (a, nd, p))
    return FALSE;
  for (guint i = 0; i < nd; i++)
    if (p[i] != (int) i)
      return FALSE;
  return TRUE;
}

/* The integer fold of a rule's right side has a
 * value, so the node it builds is a leaf (else it would be an untyped
 * term).  One condition per fold: fmul_exact(?a, ?b), perm_composable(?p,
 * ?q), count_bits(?b). */
static gboolean
fold_holds (PrismParTyper *ty, const char *op, const PrismCondArg *args, guint n)
{
  gint64 v[2], r;

  for (guint i = 0; i < n; i++)
    if (!arg_int (ty, &args[i], &v[i]))
      return FALSE;
  return prism_fold_arith (prism_symbol_intern (op), v, n, &r, NULL);
}

static gboolean
cond_fmul_exact (const PrismEgraph *eg, const PrismCondArg *args, guint n_args, gpointer user_data)
{
  return fold_holds (user_data, "fmul", args, 2);
}

static gboolean
cond_perm_composable (const PrismEgraph *eg, const PrismCondArg *args, guint n_args, gpointer user_data)
{
  return fold_holds (user_data, "perm_compose", args, 2);
}

static gboolean
cond_count_bits (const PrismEgraph *eg, const PrismCondArg *args, guint n_args, gpointer user_data)
{
  return fold_holds (user_data, "bits_count", args, 1);
}

/* rank_fits(?r, ?t): a constant of rank ?r broadcasts into ?t without
 * changing its shape (every dim of a constant is 1). */
static gboolean
cond_rank_fits (const PrismEgraph *eg, const PrismCondArg *args, guint n_args, gpointer user_data)
{
  const PrismParType *t;
  gint64 r;
  guint cls;

  if (!arg_int (user_data, &args[0], &r) || !arg_class (&args[1], &cls))
    return FALSE;
  t = prism_par_typer_get (user_data, cls);
  return t != NULL && r >= 1 && r <= (gint64) t->ndims;
}

void
prism_par_typer_register_conditions (PrismParTyper *ty, PrismRuleSet *rules)
{
  prism_rule_set_register_condition (rules, "same_dim", 3, cond_same_dim, ty, NULL);
  prism_rule_set_register_condition (rules, "dim_one", 2, cond_dim_one, ty, NULL);
  prism_rule_set_register_condition (rules, "same_size", 2, cond_same_size, ty, NULL);
  prism_rule_set_register_condition (rules, "size_product", 3, cond_size_product, ty, NULL);
  prism_rule_set_register_condition (rules, "mm_ok", 2, cond_mm_ok, ty, NULL);
  prism_rule_set_register_condition (rules, "fits", 2, cond_fits, ty, NULL);
  prism_rule_set_register_condition (rules, "count_of", 2, cond_count_of, ty, NULL);
  prism_rule_set_register_condition (rules, "ge", 2, cond_ge, ty, NULL);
  prism_rule_set_register_condition (rules, "perm_inverse", 2, cond_perm_inverse, ty, NULL);
  prism_rule_set_register_condition (rules, "perm_moves", 3, cond_perm_moves, ty, NULL);
  prism_rule_set_register_condition (rules, "never_nan", 1, cond_never_nan, ty, NULL);
  prism_rule_set_register_condition (rules, "same_rank", 2, cond_same_rank, ty, NULL);
  prism_rule_set_register_condition (rules, "perm_identity", 1, cond_perm_identity, ty, NULL);
  prism_rule_set_register_condition (rules, "fmul_exact", 2, cond_fmul_exact, ty, NULL);
  prism_rule_set_register_condition (rules, "perm_composable", 2, cond_perm_composable, ty, NULL);
  prism_rule_set_register_condition (rules, "count_bits", 1, cond_count_bits, ty, NULL);
  prism_rule_set_register_condition (rules, "rank_fits", 2, cond_rank_fits, ty, NULL);
}

/* Audit ----------------------------------------------------------------------- */

char *
prism_par_type_to_string (const PrismParType *type, const PrismParEnv *env)
{
  GString *s = g_string_new ("[");

  for (guint i = 0; i < type->ndims; i++)
    {
      g_autofree char *d = prism_dim_to_string (type->dims[i], NULL);
      g_string_append_printf (s, "%s%s", i ? ", " : "", d);
    }
  g_string_append (s, "] {");
  for (guint i = 0, k = 0; i < prism_par_env_get_n_axes (env); i++)
    if (type->axes & (G_GUINT64_CONSTANT (1) << i))
      g_string_append_printf (s, "%s%s", k++ ? ", " : "", prism_par_env_get_axis_name (env, i));
  g_string_append_c (s, '}');
  return g_string_free (s, FALSE);
}

gboolean
prism_par_typer_audit (PrismParTyper *ty, GError **error)
{
  guint n_ids = prism_egraph_get_n_ids (ty->eg);

  for (guint id = 0; id < n_ids; id++)
    {
      const PrismParType *ct;
      guint n;

      if (prism_egraph_find (ty->eg, id) != id)
        continue;
      ct = prism_par_typer_get (ty, id);
      if (ct == NULL)
        continue;
      n = prism_egraph_class_get_n_nodes (ty->eg, id);
      for (guint i = 0; i < n; i++)
        {
          guint node = prism_egraph_class_get_node (ty->eg, id, i);
          PrismParType t;
          gboolean cycle = FALSE, ok;

          ok = node_type (ty, node, &t, &cycle);
          if (!ok || !type_equal (&t, ct))
            {
              g_autoptr(PrismTerm) term = prism_egraph_extract (ty->eg, id);
              g_autofree char *text = prism_term_to_string (term);
              g_autofree char *want = prism_par_type_to_string (ct, ty->env);
              g_autofree char *got = ok ? prism_par_type_to_string (&t, ty->env) : g_strdup ("ill-typed");
              g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED,
                           "class %u (%s) has type %s but its e-node %u (%s) is %s", id, text, want,
                           node, prism_symbol_name (prism_egraph_node_get_op (ty->eg, node)), got);
              type_clear (&t);
              return FALSE;
            }
          type_clear (&t);
        }
    }
  return TRUE;
}
