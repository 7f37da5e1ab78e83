/* prism-canonical.c — one canonical form per program
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every tensor gets a name built from what computes it and the names of its
 * operands, after three rewrites that hold in exact arithmetic (the
 * verifier's notion of equality): identity accumulators are looked through,
 * chains of add/sub and mul/div are flattened into sorted signed terms, and
 * a custom kernel that is only a tiling of one predefined op is that op.
 * The form lists the outputs' names and every op's name sorted, so it does
 * not depend on the order ops or kernels were added in.
 */
#include "config.h"

#include <string.h>

#include "prism-canonical.h"

#define FORM_VERSION "prism-canonical-1"

typedef enum
{
  CHAIN_NONE,
  CHAIN_SUM,      /* add, sub: terms "+x", "-x" */
  CHAIN_PRODUCT,  /* mul, div: factors "*x", "/x" */
} ChainClass;

/* What an op computes, as the form sees it. */
typedef struct
{
  PrismOpKind kind;
  guint n_inputs;
  guint inputs[PRISM_MAX_OP_INPUTS];
  PrismOpAttrs attrs;
  gboolean identity;   /* its output is its first input (an accumulator over one iteration) */
  gboolean replaced;   /* a custom kernel named as the one predefined op it tiles */
} OpView;

typedef struct
{
  const PrismGraph *top;      /* the kernel graph (variable names) */
  const PrismGraph *g;
  char **knames;              /* block level: names of the kernel's inputs, by input index */
  const int *perm;            /* block level: grid axis → its place in the form, -1 if size 1 */
  gboolean loop1;             /* block level: the loop has one iteration */
  OpView *views;              /* per op */
  char **names;               /* per tensor */
  GPtrArray **terms;          /* per tensor: the sorted terms of a chain (owned), or NULL */
  ChainClass *chain;          /* per tensor */
  guint *alias;               /* per tensor: the tensor whose value it is */
  guint *uses;                /* per tensor: consumers, identities seen through */
  gboolean *absorbed;         /* per tensor: folded into its one consumer's chain */
} Namer;

static char *kernel_name (const Namer *n, const PrismOp *op, char ***out_names);

static gboolean
dim_is (const PrismDim *d, gint64 value)
{
  return prism_dim_is_const (d) && prism_dim_get_const (d) == value;
}

static ChainClass
chain_class (PrismOpKind kind)
{
  switch ((int) kind)
    {
    case PRISM_OP_ADD:
    case PRISM_OP_SUB:
      return CHAIN_SUM;
    case PRISM_OP_MUL:
    case PRISM_OP_DIV:
      return CHAIN_PRODUCT;
    default:
      return CHAIN_NONE;
    }
}

/* The parameters that make two ops of one kind differ.  Kinds this file
 * does not know (added later) are told apart by all their parameters. */
static void
append_attrs (GString *s, PrismOpKind kind, const PrismOpAttrs *attrs)
{
  switch (kind)
    {
    case PRISM_OP_SUM:
    case PRISM_OP_CONCAT:
      g_string_append_printf (s, "{%d}", attrs->dim);
      break;
    case PRISM_OP_RMS_NORM:
      g_string_append_printf (s, "{%u,%a}", attrs->norm_dims, attrs->eps);
      break;
    case PRISM_OP_ACCUM_SUM_TODIMX:
      g_string_append_printf (s, "{%u}", attrs->dimx);
      break;
    case PRISM_OP_INPUT:
    case PRISM_OP_OUTPUT:
    case PRISM_OP_MATMUL:
    case PRISM_OP_EXP:
    case PRISM_OP_SQUARE:
    case PRISM_OP_SQRT:
    case PRISM_OP_SILU:
    case PRISM_OP_GELU:
    case PRISM_OP_RELU:
    case PRISM_OP_NEG:
    case PRISM_OP_ADD:
    case PRISM_OP_SUB:
    case PRISM_OP_MUL:
    case PRISM_OP_DIV:
    case PRISM_OP_POW:
    case PRISM_OP_KERNEL:
    case PRISM_OP_ACCUM:
    case PRISM_OP_ACCUM_SUM:
    case PRISM_OP_ACCUM_MEAN:
    case PRISM_OP_ACCUM_RMS:
    case PRISM_OP_ACCUM_MAX:
    case PRISM_OP_ACCUM_RESCALE:
    case PRISM_OP_ACCUM_SUM_RESCALE:
    case PRISM_OP_RUNNING_MAX:
    case PRISM_OP_ACCUM_ONLINE:
    case PRISM_OP_ACCUM_SUM_ONLINE:
    case PRISM_N_OPS:
      break;
    default:
      {
        /* Maps and the input index are not parameters of a compute op. */
        PrismOpAttrs a = *attrs;
        g_autofree char *hex = NULL;

        memset (a.imap, 0, sizeof a.imap);
        memset (a.omap, 0, sizeof a.omap);
        a.fmap = 0;
        a.input_index = 0;
        hex = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) &a, sizeof a);
        g_string_append_printf (s, "{%.16s}", hex);
      }
      break;
    }
}

/* ------------------------------------------------------------------------ */
/* A custom kernel that only tiles one predefined op */

#define MAP_INVALID (-3)

/* The imap entry that operand @k of @kind must have along a grid axis whose
 * blocks write output dim @d (or sum their outputs, @d = -1), for the kernel
 * to compute the op itself. */
static int
expected_imap (PrismOpKind kind, guint k, int d, const PrismOp *tile, const PrismOp *out)
{
  int n = (int) out->data_ndims;

  if (kind == PRISM_OP_MATMUL)
    {
      if (d < 0)
        return k == 0 ? n - 1 : n - 2;   /* split K: the blocks' partial products are summed */
      if (d < n - 2)
        return d;
      if (d == n - 2)
        return k == 0 ? n - 2 : PRISM_MAP_REPLICATE;
      return k == 0 ? PRISM_MAP_REPLICATE : n - 1;
    }
  /* Elementwise: blocks never sum; a broadcast dim (size 1) is not split. */
  if (d < 0 || tile->data_ndims != out->data_ndims)
    return MAP_INVALID;
  if (prism_dim_is_const (tile->data_dims[d]) && prism_dim_is_const (out->data_dims[d]) &&
      prism_dim_get_const (tile->data_dims[d]) == prism_dim_get_const (out->data_dims[d]))
    return d;
  if (dim_is (tile->data_dims[d], 1))
    return PRISM_MAP_REPLICATE;
  return MAP_INVALID;
}

static gboolean
body_ops_are_one_op (const PrismGraph *b, const PrismOp **x, const PrismOp **acc, const PrismOp **out)
{
  *x = *acc = *out = NULL;
  for (guint i = 0; i < b->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (b, i);
      const PrismOp **slot;

      if (op->kind == PRISM_OP_INPUT)
        continue;
      slot = op->kind == PRISM_OP_OUTPUT ? out : prism_op_kind_is_accum (op->kind) ? acc : x;
      if (*slot != NULL)
        return FALSE;
      *slot = op;
    }
  return *x != NULL && *acc != NULL && *out != NULL && (*acc)->n_inputs == 1 &&
         (*acc)->inputs[0] == (*x)->outputs[0] && (*out)->inputs[0] == (*acc)->outputs[0];
}

/* Fills @view with the predefined op @kop's body tiles, if that is all it
 * does: one op on tiles of the kernel's inputs, an accumulator that sums
 * (or, over one iteration, passes it on), and maps under which every block
 * computes its part of the op. */
static gboolean
recognise_one_op_kernel (const PrismOp *kop, OpView *view)
{
  const PrismGraph *b = kop->body;
  const PrismOp *x, *acc, *out;
  gboolean loop1 = dim_is (b->forloop, 1);
  const PrismOp *tiles[PRISM_MAX_OP_INPUTS];

  if (kop->n_outputs != 1 || !body_ops_are_one_op (b, &x, &acc, &out))
    return FALSE;
  if (!(x->kind == PRISM_OP_MATMUL || prism_op_kind_is_unary (x->kind) ||
        prism_op_kind_is_binary (x->kind)))
    return FALSE;
  if (loop1 ? !(acc->kind == PRISM_OP_ACCUM || acc->kind == PRISM_OP_ACCUM_MAX)
            : !(x->kind == PRISM_OP_MATMUL && acc->kind == PRISM_OP_ACCUM))
    return FALSE;
  for (guint k = 0; k < x->n_inputs; k++)
    {
      const PrismTensor *t = prism_graph_tensor (b, x->inputs[k]);

      tiles[k] = prism_graph_op (b, (guint) t->producer);
      if (tiles[k]->kind != PRISM_OP_INPUT || tiles[k]->attrs.input_index >= kop->n_inputs)
        return FALSE;
    }
  /* A loop of several iterations must walk the inner dim of a matmul. */
  if (!loop1 && (tiles[0]->attrs.fmap != (int) out->data_ndims - 1 ||
                 tiles[1]->attrs.fmap != (int) out->data_ndims - 2))
    return FALSE;
  for (guint p = 0; p < b->grid_ndims; p++)
    {
      if (dim_is (b->grid[p], 1))
        continue;
      for (guint k = 0; k < x->n_inputs; k++)
        {
          int want = expected_imap (x->kind, k, out->attrs.omap[p], tiles[k], out);
          if (want == MAP_INVALID || tiles[k]->attrs.imap[p] != want)
            return FALSE;
        }
    }
  view->kind = x->kind;
  view->n_inputs = x->n_inputs;
  for (guint k = 0; k < x->n_inputs; k++)
    view->inputs[k] = kop->inputs[tiles[k]->attrs.input_index];
  view->attrs = x->attrs;
  view->replaced = TRUE;
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* Naming */

static void
make_views (Namer *n)
{
  const PrismGraph *g = n->g;

  n->views = g_new0 (OpView, g->ops->len);
  for (guint i = 0; i < g->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (g, i);
      OpView *v = &n->views[i];

      v->kind = op->kind;
      v->n_inputs = op->n_inputs;
      memcpy (v->inputs, op->inputs, sizeof v->inputs);
      v->attrs = op->attrs;
      if (g->level == PRISM_LEVEL_KERNEL && op->kind == PRISM_OP_KERNEL)
        recognise_one_op_kernel (op, v);
      else if (n->loop1 && (op->kind == PRISM_OP_ACCUM || op->kind == PRISM_OP_ACCUM_MAX ||
                            op->kind == PRISM_OP_ACCUM_RESCALE || op->kind == PRISM_OP_ACCUM_ONLINE ||
                            op->kind == PRISM_OP_RUNNING_MAX))
        v->identity = TRUE;   /* acc = 0·s + x: the rescale factor does not matter either */
      else if (n->loop1 && (op->kind == PRISM_OP_ACCUM_SUM || op->kind == PRISM_OP_ACCUM_SUM_RESCALE ||
                            op->kind == PRISM_OP_ACCUM_SUM_ONLINE))
        {
          /* One iteration of "Σ over iterations and the last dim": the sum over the last dim. */
          v->kind = PRISM_OP_SUM;
          v->n_inputs = 1;
          prism_op_attrs_init (&v->attrs);
          v->attrs.dim = (int) prism_graph_tensor (g, op->inputs[0])->ndims - 1;
        }
    }
}

/* Consumers of every tensor, identities seen through, so that a chain link
 * used once (maybe through an identity accumulator) folds into its user. */
static void
count_uses (Namer *n)
{
  const PrismGraph *g = n->g;

  n->alias = g_new (guint, g->tensors->len + 1);
  n->uses = g_new0 (guint, g->tensors->len + 1);
  for (guint t = 0; t < g->tensors->len; t++)
    n->alias[t] = t;
  for (guint i = 0; i < g->ops->len; i++)
    {
      const OpView *v = &n->views[i];
      const PrismOp *op = prism_graph_op (g, i);

      if (v->identity)
        n->alias[op->outputs[0]] = n->alias[v->inputs[0]];
      else
        for (guint k = 0; k < v->n_inputs; k++)
          n->uses[n->alias[v->inputs[k]]]++;
    }
}

static int
compare_strings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char * const *) a, *(char * const *) b);
}

/* "+x" ↔ "-x", "*x" ↔ "/x" */
static char *
flip_term (const char *term)
{
  char *t = g_strdup (term);

  switch (t[0])
    {
    case '+': t[0] = '-'; break;
    case '-': t[0] = '+'; break;
    case '*': t[0] = '/'; break;
    case '/': t[0] = '*'; break;
    default: break;
    }
  return t;
}

static char *
name_chain (Namer *n, const OpView *v, guint out)
{
  ChainClass cls = chain_class (v->kind);
  gboolean inverts = v->kind == PRISM_OP_SUB || v->kind == PRISM_OP_DIV;
  GPtrArray *terms = g_ptr_array_new_with_free_func (g_free);
  GString *s;

  for (guint k = 0; k < v->n_inputs; k++)
    {
      guint t = n->alias[v->inputs[k]];
      gboolean negate = inverts && k == 1;

      if (n->chain[t] == cls && n->uses[t] == 1)
        {
          n->absorbed[t] = TRUE;
          for (guint j = 0; j < n->terms[t]->len; j++)
            {
              const char *term = g_ptr_array_index (n->terms[t], j);
              g_ptr_array_add (terms, negate ? flip_term (term) : g_strdup (term));
            }
        }
      else
        g_ptr_array_add (terms, g_strdup_printf ("%c%s", cls == CHAIN_SUM ? (negate ? '-' : '+')
                                                                          : (negate ? '/' : '*'),
                                                 n->names[t]));
    }
  g_ptr_array_sort (terms, compare_strings);
  s = g_string_new (cls == CHAIN_SUM ? "sum[" : "product[");
  for (guint j = 0; j < terms->len; j++)
    g_string_append_printf (s, "%s%s", j ? "," : "", (char *) g_ptr_array_index (terms, j));
  g_string_append_c (s, ']');
  n->terms[out] = terms;
  n->chain[out] = cls;
  return g_string_free (s, FALSE);
}

static char *
name_plain (const Namer *n, const OpView *v)
{
  GString *s = g_string_new (prism_op_kind_to_string (v->kind));
  const char *a, *b;

  append_attrs (s, v->kind, &v->attrs);
  g_string_append_c (s, '(');
  if (prism_op_kind_is_commutative (v->kind) && v->n_inputs == 2 &&
      strcmp (n->names[n->alias[v->inputs[0]]], n->names[n->alias[v->inputs[1]]]) > 0)
    {
      a = n->names[n->alias[v->inputs[1]]];
      b = n->names[n->alias[v->inputs[0]]];
      g_string_append_printf (s, "%s,%s", a, b);
    }
  else
    for (guint k = 0; k < v->n_inputs; k++)
      g_string_append_printf (s, "%s%s", k ? "," : "", n->names[n->alias[v->inputs[k]]]);
  g_string_append_c (s, ')');
  return g_string_free (s, FALSE);
}

static char *
name_tile (const Namer *n, const PrismOp *op)
{
  GString *s = g_string_new (NULL);

  g_string_append_printf (s, "tile(%s;m", n->knames[op->attrs.input_index]);
  for (guint q = 0; q < PRISM_MAX_GRID_DIMS; q++)
    for (guint p = 0; p < n->g->grid_ndims; p++)
      if (n->perm[p] == (int) q)
        g_string_append_printf (s, "%d,", op->attrs.imap[p]);
  /* A loop of one iteration splits nothing. */
  g_string_append_printf (s, "f%d)", n->loop1 ? PRISM_MAP_REPLICATE : op->attrs.fmap);
  return g_string_free (s, FALSE);
}

static void
name_op (Namer *n, guint i, GArray *listed, GPtrArray *kernels)
{
  const PrismGraph *g = n->g;
  const PrismOp *op = prism_graph_op (g, i);
  const OpView *v = &n->views[i];
  guint out;

  if (op->kind == PRISM_OP_OUTPUT)
    return;
  if (op->kind == PRISM_OP_KERNEL && !v->replaced)
    {
      char **outs = NULL;
      char *k = kernel_name (n, op, &outs);

      for (guint o = 0; o < op->n_outputs; o++)
        n->names[op->outputs[o]] = outs[o];
      g_free (outs);
      g_ptr_array_add (kernels, k);
      return;
    }
  out = op->outputs[0];
  if (v->identity)
    {
      n->names[out] = g_strdup (n->names[n->alias[out]]);
      return;
    }
  if (op->kind == PRISM_OP_INPUT && g->level == PRISM_LEVEL_KERNEL)
    {
      guint ordinal = 0;
      for (guint j = 0; j < i; j++)
        ordinal += prism_graph_op (g, j)->kind == PRISM_OP_INPUT;
      n->names[out] = g_strdup_printf ("x%u", ordinal);
      return;
    }
  if (op->kind == PRISM_OP_INPUT)
    n->names[out] = name_tile (n, op);
  else if (chain_class (v->kind) != CHAIN_NONE && v->n_inputs == 2)
    n->names[out] = name_chain (n, v, out);
  else
    n->names[out] = name_plain (n, v);
  /* Listed by id: a chain link folded into a later op is left out then. */
  g_array_append_val (listed, out);
}

static void
namer_init (Namer *n, const PrismGraph *top, const PrismGraph *g, char **knames, const int *perm)
{
  memset (n, 0, sizeof *n);
  n->top = top;
  n->g = g;
  n->knames = knames;
  n->perm = perm;
  n->loop1 = g->level == PRISM_LEVEL_BLOCK && dim_is (g->forloop, 1);
  n->names = g_new0 (char *, g->tensors->len + 1);
  n->terms = g_new0 (GPtrArray *, g->tensors->len + 1);
  n->chain = g_new0 (ChainClass, g->tensors->len + 1);
  n->absorbed = g_new0 (gboolean, g->tensors->len + 1);
  make_views (n);
  count_uses (n);
}

static void
namer_clear (Namer *n)
{
  for (guint t = 0; t < n->g->tensors->len; t++)
    {
      g_free (n->names[t]);
      if (n->terms[t] != NULL)
        g_ptr_array_unref (n->terms[t]);
    }
  g_free (n->names);
  g_free (n->terms);
  g_free (n->chain);
  g_free (n->absorbed);
  g_free (n->alias);
  g_free (n->uses);
  g_free (n->views);
}

/* Names every op of the graph; returns the sorted names of the ops that
 * compute something (chain links folded into another, identities and
 * outputs left out) as one string "a;b;…;". */
static char *
name_all (Namer *n)
{
  g_autoptr(GArray) listed = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr(GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < n->g->ops->len; i++)
    name_op (n, i, listed, texts);
  for (guint j = 0; j < listed->len; j++)
    {
      guint t = g_array_index (listed, guint, j);
      if (!n->absorbed[t])
        g_ptr_array_add (texts, g_strdup (n->names[t]));
    }
  g_ptr_array_sort (texts, compare_strings);
  for (guint j = 0; j < texts->len; j++)
    g_string_append_printf (s, "%s;", (char *) g_ptr_array_index (texts, j));
  return g_string_free (s, FALSE);
}

/* The text of a block graph under one renumbering of its grid axes; fills
 * @out_names (one per OUTPUT op, in order) when not NULL. */
static char *
body_text (const PrismGraph *top, const PrismGraph *b, char **knames, const int *perm,
           GPtrArray *out_names)
{
  const char * const *vars = prism_graph_var_names (top);
  g_autoptr(GPtrArray) outs = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *ops = NULL;
  GString *s = g_string_new ("{grid=");
  Namer n;

  namer_init (&n, top, b, knames, perm);
  ops = name_all (&n);
  for (guint q = 0; q < PRISM_MAX_GRID_DIMS; q++)
    for (guint p = 0; p < b->grid_ndims; p++)
      if (perm[p] == (int) q)
        {
          g_autofree char *d = prism_dim_to_string (b->grid[p], vars);
          g_string_append_printf (s, "%s,", d);
        }
  {
    g_autofree char *f = prism_dim_to_string (b->forloop, vars);
    g_string_append_printf (s, "F=%s;T=%u;", f, b->block_threads);
  }
  for (guint i = 0; i < b->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (b, i);
      GString *o;

      if (op->kind != PRISM_OP_OUTPUT)
        continue;
      o = g_string_new (NULL);
      g_string_append_printf (o, "out(%s;o", n.names[n.alias[op->inputs[0]]]);
      for (guint q = 0; q < PRISM_MAX_GRID_DIMS; q++)
        for (guint p = 0; p < b->grid_ndims; p++)
          if (perm[p] == (int) q)
            g_string_append_printf (o, "%d,", op->attrs.omap[p]);
      g_string_append_c (o, ')');
      if (out_names != NULL)
        g_ptr_array_add (out_names, g_strdup (o->str));
      g_ptr_array_add (outs, g_string_free (o, FALSE));
    }
  /* The order a kernel lists its outputs in is no difference. */
  g_ptr_array_sort (outs, compare_strings);
  for (guint i = 0; i < outs->len; i++)
    g_string_append (s, g_ptr_array_index (outs, i));
  g_string_append_printf (s, "|%s}", ops);
  namer_clear (&n);
  return g_string_free (s, FALSE);
}

/* The smallest text of @kop's body over the orders of its grid axes of
 * size > 1; @out_names gets its outputs' names under that order. */
static char *
kernel_name (const Namer *kn, const PrismOp *kop, char ***out_names)
{
  static const guint perms[6][3] = {
    { 0, 1, 2 }, { 0, 2, 1 }, { 1, 0, 2 }, { 1, 2, 0 }, { 2, 0, 1 }, { 2, 1, 0 },
  };
  const PrismGraph *b = kop->body;
  char *knames[PRISM_MAX_OP_INPUTS];
  guint axes[PRISM_MAX_GRID_DIMS], n_axes = 0;
  g_autofree char *best = NULL;
  g_autoptr(GPtrArray) best_outs = NULL;
  g_autoptr(GPtrArray) sorted = g_ptr_array_new ();
  GString *s = g_string_new ("kernel(");
  char *head;

  for (guint k = 0; k < kop->n_inputs; k++)
    knames[k] = kn->names[kn->alias[kop->inputs[k]]];
  for (guint p = 0; p < b->grid_ndims; p++)
    if (!dim_is (b->grid[p], 1))
      axes[n_axes++] = p;
  for (guint pi = 0; pi < G_N_ELEMENTS (perms); pi++)
    {
      int perm[PRISM_MAX_GRID_DIMS] = { -1, -1, -1 };
      gboolean valid = TRUE;
      GPtrArray *outs;
      char *text;

      /* Only the orders of the first n_axes places; the rest stay put. */
      for (guint j = n_axes; j < PRISM_MAX_GRID_DIMS; j++)
        valid &= perms[pi][j] == j;
      for (guint j = 0; j < n_axes && valid; j++)
        perm[axes[j]] = (int) perms[pi][j];
      if (!valid)
        continue;
      outs = g_ptr_array_new_with_free_func (g_free);
      text = body_text (kn->top, b, knames, perm, outs);
      if (best == NULL || strcmp (text, best) < 0)
        {
          g_free (best);
          best = text;
          if (best_outs != NULL)
            g_ptr_array_unref (best_outs);
          best_outs = outs;
        }
      else
        {
          g_free (text);
          g_ptr_array_unref (outs);
        }
    }
  for (guint k = 0; k < kop->n_inputs; k++)
    g_ptr_array_add (sorted, knames[k]);
  g_ptr_array_sort (sorted, compare_strings);
  for (guint k = 0; k < sorted->len; k++)
    g_string_append_printf (s, "%s%s", k ? "," : "", (char *) g_ptr_array_index (sorted, k));
  g_string_append_printf (s, ")%s", best);
  head = g_string_free (s, FALSE);
  /* Each output is named by the kernel and what it writes. */
  *out_names = g_new0 (char *, kop->n_outputs + 1);
  for (guint o = 0; o < kop->n_outputs && o < best_outs->len; o++)
    (*out_names)[o] = g_strdup_printf ("%s#%s", head, (char *) g_ptr_array_index (best_outs, o));
  return head;
}

char *
prism_graph_canonical_form (const PrismGraph *graph)
{
  g_autofree char *ops = NULL;
  GString *s = g_string_new (FORM_VERSION "|");
  Namer n;

  g_return_val_if_fail (graph != NULL && graph->level == PRISM_LEVEL_KERNEL, NULL);
  namer_init (&n, graph, graph, NULL, NULL);
  ops = name_all (&n);
  for (guint i = 0; i < graph->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (graph, i);
      if (op->kind == PRISM_OP_OUTPUT)
        g_string_append_printf (s, "O(%s)", n.names[n.alias[op->inputs[0]]]);
    }
  g_string_append_printf (s, "|%s", ops);
  namer_clear (&n);
  return g_string_free (s, FALSE);
}

char *
prism_graph_canonical_digest (const PrismGraph *graph)
{
  g_autofree char *form = prism_graph_canonical_form (graph);
  g_autofree char *hex = g_compute_checksum_for_string (G_CHECKSUM_SHA256, form, -1);

  return g_strndup (hex, 32);
}
