/* prism-graph.c — kernel graphs and block graphs, with shape inference
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "prism-error.h"
#include "prism-graph.h"

void
prism_op_attrs_init (PrismOpAttrs *attrs)
{
  memset (attrs, 0, sizeof *attrs);
  attrs->norm_dims = 1;
  attrs->fmap = PRISM_MAP_REPLICATE;
  for (guint i = 0; i < PRISM_MAX_GRID_DIMS; i++)
    attrs->imap[i] = attrs->omap[i] = PRISM_MAP_REPLICATE;
  for (guint i = 0; i < PRISM_MAX_DIMS; i++)
    attrs->perm[i] = (int) i;
}

static void
tensor_free (gpointer data)
{
  PrismTensor *t = data;

  for (guint i = 0; i < t->ndims; i++)
    prism_dim_unref (t->dims[i]);
  g_free (t);
}

static void
op_free (gpointer data)
{
  PrismOp *op = data;

  g_free (op->name);
  if (op->body != NULL)
    prism_graph_unref (op->body);
  for (guint i = 0; i < op->data_ndims; i++)
    prism_dim_unref (op->data_dims[i]);
  g_free (op);
}

static PrismGraph *
graph_alloc (PrismLevel level)
{
  PrismGraph *g = g_new0 (PrismGraph, 1);

  g->ref_count = 1;
  g->level = level;
  g->tensors = g_ptr_array_new_with_free_func (tensor_free);
  g->ops = g_ptr_array_new_with_free_func (op_free);
  g->var_names = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (g->var_names, NULL);
  g->block_threads = 128;
  return g;
}

PrismGraph *
prism_graph_new (void)
{
  return graph_alloc (PRISM_LEVEL_KERNEL);
}

PrismGraph *
prism_graph_ref (PrismGraph *graph)
{
  g_return_val_if_fail (graph != NULL, NULL);
  g_atomic_int_inc (&graph->ref_count);
  return graph;
}

void
prism_graph_unref (PrismGraph *graph)
{
  if (graph == NULL || !g_atomic_int_dec_and_test (&graph->ref_count))
    return;
  g_ptr_array_unref (graph->tensors);
  g_ptr_array_unref (graph->ops);
  g_ptr_array_unref (graph->var_names);
  for (guint i = 0; i < PRISM_MAX_GRID_DIMS; i++)
    prism_dim_unref (graph->grid[i]);
  prism_dim_unref (graph->forloop);
  g_free (graph->name);
  g_free (graph->description);
  g_free (graph);
}

static PrismTensor *
tensor_copy (const PrismTensor *t)
{
  PrismTensor *c = g_memdup2 (t, sizeof *t);

  for (guint i = 0; i < t->ndims; i++)
    c->dims[i] = prism_dim_ref (t->dims[i]);
  return c;
}

static PrismOp *
op_copy (const PrismOp *op)
{
  PrismOp *c = g_memdup2 (op, sizeof *op);

  c->name = g_strdup (op->name);
  c->body = op->body ? prism_graph_copy (op->body) : NULL;
  for (guint i = 0; i < op->data_ndims; i++)
    c->data_dims[i] = prism_dim_ref (op->data_dims[i]);
  return c;
}

PrismGraph *
prism_graph_copy (const PrismGraph *graph)
{
  PrismGraph *c = graph_alloc (graph->level);

  for (guint i = 0; i < graph->tensors->len; i++)
    g_ptr_array_add (c->tensors, tensor_copy (prism_graph_tensor (graph, i)));
  for (guint i = 0; i < graph->ops->len; i++)
    g_ptr_array_add (c->ops, op_copy (prism_graph_op (graph, i)));
  for (guint i = 0; i + 1 < graph->var_names->len; i++)
    prism_graph_add_var (c, g_ptr_array_index (graph->var_names, i));
  c->grid_ndims = graph->grid_ndims;
  for (guint i = 0; i < PRISM_MAX_GRID_DIMS; i++)
    c->grid[i] = graph->grid[i] ? prism_dim_ref (graph->grid[i]) : NULL;
  c->forloop = graph->forloop ? prism_dim_ref (graph->forloop) : NULL;
  c->block_threads = graph->block_threads;
  c->symbolic_maps = graph->symbolic_maps;
  c->name = g_strdup (graph->name);
  c->description = g_strdup (graph->description);
  return c;
}

void
prism_graph_set_name (PrismGraph *graph, const char *name, const char *description)
{
  g_free (graph->name);
  g_free (graph->description);
  graph->name = g_strdup (name);
  graph->description = g_strdup (description);
}

guint
prism_graph_add_var (PrismGraph *graph, const char *name)
{
  guint index = graph->var_names->len - 1;

  g_ptr_array_index (graph->var_names, index) = g_strdup (name ? name : "");
  g_ptr_array_add (graph->var_names, NULL);
  return index;
}

const char * const *
prism_graph_var_names (const PrismGraph *graph)
{
  return (const char * const *) graph->var_names->pdata;
}

/* ------------------------------------------------------------------------ */
/* Error helpers: every message starts with the op that is wrong. */

static const char *
level_prefix (const PrismGraph *g)
{
  return g->level == PRISM_LEVEL_BLOCK ? "block op" : "op";
}

G_GNUC_PRINTF (4, 5) static void
op_error (GError **error, const PrismGraph *g, PrismOpKind kind, const char *fmt, ...)
{
  va_list args;
  g_autofree char *msg = NULL;

  va_start (args, fmt);
  msg = g_strdup_vprintf (fmt, args);
  va_end (args);
  g_set_error (error, PRISM_ERROR, PRISM_ERROR_INVALID_GRAPH, "%s %u (%s): %s",
               level_prefix (g), g->ops->len, prism_op_kind_to_string (kind), msg);
}

static char *
dim_str (const PrismGraph *g, const PrismDim *d)
{
  return prism_dim_to_string (d, NULL);
}

/* ------------------------------------------------------------------------ */

static PrismOp *
op_new (PrismOpKind kind, const guint *inputs, guint n_inputs, const PrismOpAttrs *attrs)
{
  PrismOp *op = g_new0 (PrismOp, 1);

  op->kind = kind;
  op->n_inputs = n_inputs;
  if (n_inputs > 0)
    memcpy (op->inputs, inputs, n_inputs * sizeof (guint));
  if (attrs != NULL)
    op->attrs = *attrs;
  else
    prism_op_attrs_init (&op->attrs);
  return op;
}

/* Appends @op and gives it one output tensor with @dims (references taken). */
static int
commit_op (PrismGraph *g, PrismOp *op, guint n_out, guint ndims_per_out[],
           PrismDim *dims_per_out[][PRISM_MAX_DIMS], PrismDtype dtype, gboolean after_accum)
{
  guint op_index = g->ops->len;

  for (guint o = 0; o < n_out; o++)
    {
      PrismTensor *t = g_new0 (PrismTensor, 1);
      t->ndims = ndims_per_out[o];
      for (guint i = 0; i < t->ndims; i++)
        t->dims[i] = prism_dim_ref (dims_per_out[o][i]);
      t->dtype = dtype;
      t->producer = (int) op_index;
      t->producer_slot = o;
      t->after_accum = after_accum;
      op->outputs[o] = g->tensors->len;
      g_ptr_array_add (g->tensors, t);
    }
  op->n_outputs = n_out;
  g_ptr_array_add (g->ops, op);
  return (int) op_index;
}

static gboolean
dims_equal (const PrismGraph *g, const PrismDim *a, const PrismDim *b)
{
  if (prism_dim_equal (a, b))
    return TRUE;
  /* With symbolic maps both sides are unpartitioned sizes (maps at zero);
   * equal logical sizes are accepted and the search records the equality. */
  if (g->symbolic_maps)
    return prism_dim_eval_float (a, 1.0) == prism_dim_eval_float (b, 1.0);
  return FALSE;
}

static gboolean
dim_is_one (const PrismDim *d)
{
  return prism_dim_is_const (d) && d->value == 1;
}

static gboolean
check_inputs (PrismGraph *g, PrismOpKind kind, const guint *inputs, guint n_inputs, GError **error)
{
  int arity = prism_op_kind_arity (kind);

  if (!prism_op_kind_at_level (kind, g->level))
    {
      op_error (error, g, kind, "not allowed in a %s graph",
                g->level == PRISM_LEVEL_BLOCK ? "block" : "kernel");
      return FALSE;
    }
  if (arity >= 0 && (guint) arity != n_inputs)
    {
      op_error (error, g, kind, "takes %d input%s, got %u", arity, arity == 1 ? "" : "s", n_inputs);
      return FALSE;
    }
  if (n_inputs > PRISM_MAX_OP_INPUTS)
    {
      op_error (error, g, kind, "too many inputs (%u > %d)", n_inputs, PRISM_MAX_OP_INPUTS);
      return FALSE;
    }
  for (guint i = 0; i < n_inputs; i++)
    if (inputs[i] >= g->tensors->len)
      {
        op_error (error, g, kind, "input %u refers to tensor %u, which does not exist", i, inputs[i]);
        return FALSE;
      }
  return TRUE;
}

static gboolean
is_constant (const PrismGraph *g, const PrismTensor *t)
{
  return t->producer >= 0 && prism_graph_op (g, (guint) t->producer)->kind == PRISM_OP_CONSTANT;
}

/* Shape rule of elementwise binary ops: equal rank, each dim equal or 1. */
static gboolean
broadcast_shape (PrismGraph *g, PrismOpKind kind, const PrismTensor *a, const PrismTensor *b,
                 PrismDim **out, GError **error)
{
  if (a->ndims != b->ndims)
    {
      op_error (error, g, kind, "operands have rank %u and %u", a->ndims, b->ndims);
      return FALSE;
    }
  for (guint i = 0; i < a->ndims; i++)
    {
      if (dims_equal (g, a->dims[i], b->dims[i]) || dim_is_one (b->dims[i]))
        out[i] = a->dims[i];
      else if (dim_is_one (a->dims[i]))
        out[i] = b->dims[i];
      else
        {
          g_autofree char *da = dim_str (g, a->dims[i]);
          g_autofree char *db = dim_str (g, b->dims[i]);
          op_error (error, g, kind, "dim %u differs (%s vs %s) and neither is 1", i, da, db);
          return FALSE;
        }
    }
  return TRUE;
}

static gboolean
matmul_shape (PrismGraph *g, const PrismTensor *a, const PrismTensor *b, PrismDim **out,
              GError **error)
{
  guint n = a->ndims;

  if (a->ndims != b->ndims || n < 2)
    {
      op_error (error, g, PRISM_OP_MATMUL, "operands must have equal rank ≥ 2 (got %u and %u)",
                a->ndims, b->ndims);
      return FALSE;
    }
  for (guint i = 0; i + 2 < n; i++)
    if (!dims_equal (g, a->dims[i], b->dims[i]))
      {
        g_autofree char *da = dim_str (g, a->dims[i]);
        g_autofree char *db = dim_str (g, b->dims[i]);
        op_error (error, g, PRISM_OP_MATMUL, "batch dim %u differs (%s vs %s)", i, da, db);
        return FALSE;
      }
  if (!dims_equal (g, a->dims[n - 1], b->dims[n - 2]))
    {
      g_autofree char *da = dim_str (g, a->dims[n - 1]);
      g_autofree char *db = dim_str (g, b->dims[n - 2]);
      op_error (error, g, PRISM_OP_MATMUL, "inner dims differ: A[-1] = %s, B[-2] = %s", da, db);
      return FALSE;
    }
  for (guint i = 0; i < n - 1; i++)
    out[i] = a->dims[i];
  out[n - 1] = b->dims[n - 1];
  return TRUE;
}

static gboolean
check_dim_attr (PrismGraph *g, PrismOpKind kind, int dim, guint ndims, GError **error)
{
  if (dim < 0 || (guint) dim >= ndims)
    {
      op_error (error, g, kind, "dim %d out of range for a rank-%u tensor", dim, ndims);
      return FALSE;
    }
  return TRUE;
}

/* TRUE if perm[0..ndims) holds every dim below @ndims once. */
static gboolean
check_perm (PrismGraph *g, const int *perm, guint ndims, GError **error)
{
  guint seen = 0;

  for (guint i = 0; i < ndims; i++)
    {
      if (perm[i] < 0 || (guint) perm[i] >= ndims)
        {
          op_error (error, g, PRISM_OP_TRANSPOSE,
                    "perm[%u] = %d is not a dim of a rank-%u tensor", i, perm[i], ndims);
          return FALSE;
        }
      if (seen & (1u << perm[i]))
        {
          op_error (error, g, PRISM_OP_TRANSPOSE,
                    "perm is not a permutation: dim %d appears twice", perm[i]);
          return FALSE;
        }
      seen |= 1u << perm[i];
    }
  return TRUE;
}

/* Output shape of an accumulator; also checks its block-level rules. */
static gboolean
accum_shape (PrismGraph *g, PrismOpKind kind, const PrismTensor *x, const PrismTensor *s,
             const PrismOpAttrs *attrs, PrismDim *one, PrismDim **out, GError **error)
{
  guint last = x->ndims - 1;

  if (x->after_accum || (s != NULL && s->after_accum))
    {
      op_error (error, g, kind, "input is already after an accumulator");
      return FALSE;
    }
  /* The rescale factor exp(m_prev − m) is only defined for a running max. */
  if (prism_op_kind_is_online (kind) &&
      (s->producer < 0 || prism_graph_op (g, (guint) s->producer)->kind != PRISM_OP_RUNNING_MAX))
    {
      op_error (error, g, kind, "the second input must be a running_max");
      return FALSE;
    }
  for (guint i = 0; i < x->ndims; i++)
    out[i] = x->dims[i];
  switch (kind)
    {
    case PRISM_OP_ACCUM:
    case PRISM_OP_ACCUM_MAX:
    case PRISM_OP_ACCUM_RESCALE:
    case PRISM_OP_ACCUM_ONLINE:
      break;
    case PRISM_OP_ACCUM_SUM:
    case PRISM_OP_ACCUM_MEAN:
    case PRISM_OP_ACCUM_RMS:
    case PRISM_OP_ACCUM_SUM_RESCALE:
    case PRISM_OP_ACCUM_SUM_ONLINE:
      out[last] = one;
      break;
    case PRISM_OP_ACCUM_SUM_TODIMX:
      {
        gint64 n = prism_dim_get_const (x->dims[last]);
        if (attrs->dimx == 0 || (n > 0 && n % attrs->dimx != 0))
          {
            op_error (error, g, kind, "dimx %u does not divide the last dim", attrs->dimx);
            return FALSE;
          }
        /* dimx is a constant; it is stored in the op and the shape below. */
        out[last] = NULL;
      }
      break;
    default:
      g_assert_not_reached ();
    }
  if (s != NULL && prism_op_kind_is_online (kind))
    {
      /* One running max per row of the accumulator: it must not widen it. */
      if (s->ndims != x->ndims)
        {
          op_error (error, g, kind, "the running max has rank %u, the value %u", s->ndims, x->ndims);
          return FALSE;
        }
      for (guint i = 0; i < x->ndims; i++)
        if (!dim_is_one (s->dims[i]) && !dims_equal (g, s->dims[i], out[i]))
          {
            op_error (error, g, kind, "dim %u of the running max is neither 1 nor the accumulator's", i);
            return FALSE;
          }
    }
  else if (s != NULL)
    {
      PrismTensor tmp = { .ndims = x->ndims };
      PrismDim *unused[PRISM_MAX_DIMS];
      for (guint i = 0; i < x->ndims; i++)
        tmp.dims[i] = out[i];
      if (!broadcast_shape (g, kind, &tmp, s, unused, error))
        return FALSE;
    }
  return TRUE;
}

int
prism_graph_add_op (PrismGraph *g, PrismOpKind kind, const guint *inputs, guint n_inputs,
                    const PrismOpAttrs *attrs_in, GError **error)
{
  PrismOpAttrs attrs;
  PrismDim *out[PRISM_MAX_DIMS] = { NULL, };
  g_autoptr(PrismDim) tmp = NULL;
  g_autoptr(PrismDim) one = NULL;  /* outlives accum_shape(): out[] points at it until commit_op() */
  const PrismTensor *a, *b = NULL;
  gboolean after = FALSE;
  guint ndims;

  g_return_val_if_fail (g != NULL, -1);
  if (attrs_in != NULL)
    attrs = *attrs_in;
  else
    prism_op_attrs_init (&attrs);

  if (kind == PRISM_OP_INPUT || kind == PRISM_OP_KERNEL || kind == PRISM_OP_CONSTANT)
    {
      op_error (error, g, kind, "use the dedicated builder");
      return -1;
    }
  if (kind == PRISM_OP_OUTPUT)
    {
      if (n_inputs != 1)
        {
          op_error (error, g, kind, "takes 1 input, got %u", n_inputs);
          return -1;
        }
      if (g->level == PRISM_LEVEL_BLOCK)
        return prism_block_graph_add_output (g, inputs[0], attrs.omap, error);
      return prism_graph_add_output (g, inputs[0], NULL, error);
    }
  if (!check_inputs (g, kind, inputs, n_inputs, error))
    return -1;

  a = prism_graph_tensor (g, inputs[0]);
  if (n_inputs > 1)
    b = prism_graph_tensor (g, inputs[1]);
  ndims = a->ndims;

  /* A constant is the same before and after the loop: it mixes with both. */
  if (g->level == PRISM_LEVEL_BLOCK && !prism_op_kind_is_accum (kind) && b != NULL &&
      a->after_accum != b->after_accum && !is_constant (g, a) && !is_constant (g, b))
    {
      op_error (error, g, kind, "mixes a tensor from inside the loop with one after an accumulator");
      return -1;
    }
  after = a->after_accum || (b != NULL && !prism_op_kind_is_accum (kind) && b->after_accum);

  if (prism_op_kind_is_unary (kind))
    memcpy (out, a->dims, sizeof (PrismDim *) * ndims);
  else if (prism_op_kind_is_binary (kind))
    {
      if (!broadcast_shape (g, kind, a, b, out, error))
        return -1;
    }
  else if (kind == PRISM_OP_MATMUL)
    {
      if (!matmul_shape (g, a, b, out, error))
        return -1;
    }
  else if (prism_op_kind_is_reduction (kind))
    {
      if (!check_dim_attr (g, kind, attrs.dim, ndims, error))
        return -1;
      memcpy (out, a->dims, sizeof (PrismDim *) * ndims);
      out[attrs.dim] = tmp = prism_dim_const (1);
    }
  else if (kind == PRISM_OP_TRANSPOSE)
    {
      if (!check_perm (g, attrs.perm, ndims, error))
        return -1;
      for (guint i = 0; i < ndims; i++)
        out[i] = a->dims[attrs.perm[i]];
      for (guint i = ndims; i < PRISM_MAX_DIMS; i++)
        attrs.perm[i] = (int) i;
    }
  else if (kind == PRISM_OP_RMS_NORM)
    {
      if (attrs.norm_dims < 1 || attrs.norm_dims > ndims)
        {
          op_error (error, g, kind, "norm_dims %u out of range for a rank-%u tensor",
                    attrs.norm_dims, ndims);
          return -1;
        }
      if (!(attrs.eps >= 0.0 && isfinite (attrs.eps)))
        {
          op_error (error, g, kind, "eps %g is not a finite number ≥ 0", attrs.eps);
          return -1;
        }
      memcpy (out, a->dims, sizeof (PrismDim *) * ndims);
    }
  else if (kind == PRISM_OP_CONCAT)
    {
      if (!check_dim_attr (g, kind, attrs.dim, ndims, error))
        return -1;
      if (b->ndims != ndims)
        {
          op_error (error, g, kind, "operands have rank %u and %u", ndims, b->ndims);
          return -1;
        }
      for (guint i = 0; i < ndims; i++)
        if ((int) i != attrs.dim && !dims_equal (g, a->dims[i], b->dims[i]))
          {
            op_error (error, g, kind, "dim %u differs between the operands", i);
            return -1;
          }
      memcpy (out, a->dims, sizeof (PrismDim *) * ndims);
      out[attrs.dim] = tmp = prism_dim_add (a->dims[attrs.dim], b->dims[attrs.dim]);
    }
  else if (kind == PRISM_OP_RUNNING_MAX)
    {
      /* Read inside the loop: the accumulator's value so far. */
      if (a->producer < 0 || prism_graph_op (g, (guint) a->producer)->kind != PRISM_OP_ACCUM_MAX)
        {
          op_error (error, g, kind, "the input must be an accum_max");
          return -1;
        }
      memcpy (out, a->dims, sizeof (PrismDim *) * ndims);
      after = FALSE;
    }
  else if (prism_op_kind_is_accum (kind))
    {
      one = prism_dim_const (1);
      if (!accum_shape (g, kind, a, b, &attrs, one, out, error))
        return -1;
      if (out[ndims - 1] == NULL)
        out[ndims - 1] = tmp = prism_dim_const (attrs.dimx);
      after = TRUE;
    }
  else
    {
      op_error (error, g, kind, "unsupported op");
      return -1;
    }

  {
    guint nd[1] = { ndims };
    PrismDim *dims[1][PRISM_MAX_DIMS];
    memcpy (dims[0], out, sizeof out);
    return commit_op (g, op_new (kind, inputs, n_inputs, &attrs), 1, nd, dims, a->dtype, after);
  }
}

int
prism_graph_add (PrismGraph *graph, PrismOpKind kind, const guint *inputs, guint n_inputs,
                 const PrismOpAttrs *attrs, GError **error)
{
  int op = prism_graph_add_op (graph, kind, inputs, n_inputs, attrs, error);

  if (op < 0)
    return -1;
  if (prism_graph_op (graph, op)->n_outputs == 0)
    return -1;
  return (int) prism_graph_op (graph, op)->outputs[0];
}

static gboolean
check_dim_value (PrismGraph *g, PrismOpKind kind, const char *what, gint64 v, GError **error)
{
  if (v <= 0)
    {
      op_error (error, g, kind, "%s must be positive (got %" G_GINT64_FORMAT ")", what, v);
      return FALSE;
    }
  if (v > PRISM_DIM_MAX)
    {
      op_error (error, g, kind, "%s %" G_GINT64_FORMAT " is larger than the limit %" G_GINT64_FORMAT,
                what, v, PRISM_DIM_MAX);
      return FALSE;
    }
  return TRUE;
}

int
prism_graph_add_input (PrismGraph *g, const char *name, guint ndims, const gint64 *dims,
                       PrismDtype dtype, GError **error)
{
  PrismDim *d[1][PRISM_MAX_DIMS];
  guint nd[1] = { ndims };
  PrismOp *op;
  int index;

  if (g->level != PRISM_LEVEL_KERNEL)
    {
      op_error (error, g, PRISM_OP_INPUT, "graph inputs belong to the kernel level");
      return -1;
    }
  if (ndims < 1 || ndims > PRISM_MAX_DIMS)
    {
      op_error (error, g, PRISM_OP_INPUT, "rank %u is not between 1 and %d", ndims, PRISM_MAX_DIMS);
      return -1;
    }
  if (dtype >= PRISM_N_DTYPES)
    {
      op_error (error, g, PRISM_OP_INPUT, "unknown dtype");
      return -1;
    }
  for (guint i = 0; i < ndims; i++)
    {
      g_autofree char *what = g_strdup_printf ("dim %u", i);
      if (!check_dim_value (g, PRISM_OP_INPUT, what, dims[i], error))
        return -1;
    }
  for (guint i = 0; i < ndims; i++)
    d[0][i] = prism_dim_const (dims[i]);
  op = op_new (PRISM_OP_INPUT, NULL, 0, NULL);
  op->name = g_strdup (name);
  index = commit_op (g, op, 1, nd, d, dtype, FALSE);
  for (guint i = 0; i < ndims; i++)
    prism_dim_unref (d[0][i]);
  return (int) prism_graph_op (g, index)->outputs[0];
}

int
prism_graph_add_constant (PrismGraph *g, double value, guint ndims, PrismDtype dtype,
                          GError **error)
{
  g_autoptr(PrismDim) one = prism_dim_const (1);
  PrismDim *d[1][PRISM_MAX_DIMS];
  guint nd[1] = { ndims };
  PrismOp *op;
  int index;

  if (ndims < 1 || ndims > PRISM_MAX_DIMS)
    {
      op_error (error, g, PRISM_OP_CONSTANT, "rank %u is not between 1 and %d", ndims,
                PRISM_MAX_DIMS);
      return -1;
    }
  if (dtype >= PRISM_N_DTYPES)
    {
      op_error (error, g, PRISM_OP_CONSTANT, "unknown dtype");
      return -1;
    }
  if (!isfinite (value))
    {
      op_error (error, g, PRISM_OP_CONSTANT, "value must be a finite number");
      return -1;
    }
  for (guint i = 0; i < ndims; i++)
    d[0][i] = one;
  op = op_new (PRISM_OP_CONSTANT, NULL, 0, NULL);
  op->attrs.value = value;
  index = commit_op (g, op, 1, nd, d, dtype, FALSE);
  return (int) prism_graph_op (g, index)->outputs[0];
}

int
prism_graph_add_output (PrismGraph *g, guint tensor, const char *name, GError **error)
{
  PrismOp *op;
  guint in[1] = { tensor };

  if (g->level != PRISM_LEVEL_KERNEL)
    {
      op_error (error, g, PRISM_OP_OUTPUT, "use prism_block_graph_add_output() in a block graph");
      return -1;
    }
  if (!check_inputs (g, PRISM_OP_OUTPUT, in, 1, error))
    return -1;
  op = op_new (PRISM_OP_OUTPUT, in, 1, NULL);
  op->name = g_strdup (name);
  return commit_op (g, op, 0, NULL, NULL, PRISM_DTYPE_F32, FALSE);
}

/* ------------------------------------------------------------------------ */
/* Block graphs */

PrismGraph *
prism_block_graph_new (guint grid_ndims, PrismDim * const *grid, guint block_threads,
                       const PrismDim *forloop)
{
  PrismGraph *g = graph_alloc (PRISM_LEVEL_BLOCK);

  g_return_val_if_fail (grid_ndims >= 1 && grid_ndims <= PRISM_MAX_GRID_DIMS, g);
  g->grid_ndims = grid_ndims;
  for (guint i = 0; i < PRISM_MAX_GRID_DIMS; i++)
    g->grid[i] = i < grid_ndims ? prism_dim_ref (grid[i]) : prism_dim_const (1);
  g->block_threads = block_threads;
  g->forloop = prism_dim_ref (forloop);
  return g;
}

PrismGraph *
prism_block_graph_new_const (guint grid_ndims, const gint64 *grid, guint block_threads,
                             gint64 forloop)
{
  PrismDim *gd[PRISM_MAX_GRID_DIMS];
  g_autoptr(PrismDim) f = prism_dim_const (forloop);
  PrismGraph *g;

  for (guint i = 0; i < grid_ndims; i++)
    gd[i] = prism_dim_const (grid[i]);
  g = prism_block_graph_new (grid_ndims, gd, block_threads, f);
  for (guint i = 0; i < grid_ndims; i++)
    prism_dim_unref (gd[i]);
  return g;
}

void
prism_block_graph_set_symbolic_maps (PrismGraph *graph, gboolean symbolic_maps)
{
  g_return_if_fail (graph != NULL && graph->level == PRISM_LEVEL_BLOCK);
  g_return_if_fail (graph->ops->len == 0);

  graph->symbolic_maps = !!symbolic_maps;
}

void
prism_graph_truncate (PrismGraph *graph, guint n_ops, guint n_tensors)
{
  g_return_if_fail (graph != NULL);
  g_return_if_fail (n_ops <= graph->ops->len && n_tensors <= graph->tensors->len);

  /* Tensors are created by ops in order, so the last kept op's outputs are
   * the newest kept tensors. */
  if (n_ops > 0)
    {
      const PrismOp *last = g_ptr_array_index (graph->ops, n_ops - 1);
      for (guint i = 0; i < last->n_outputs; i++)
        g_return_if_fail (last->outputs[i] < n_tensors);
    }
  g_ptr_array_set_size (graph->ops, n_ops);
  g_ptr_array_set_size (graph->tensors, n_tensors);
}

/* Checks a map: entries in range, no data dim used twice, unused axes -1. */
static gboolean
check_map (PrismGraph *g, PrismOpKind kind, const char *which, const int *map, guint ndims,
           GError **error)
{
  for (guint p = 0; p < PRISM_MAX_GRID_DIMS; p++)
    {
      int m = map[p];
      if (m == PRISM_MAP_REPLICATE || (m == PRISM_MAP_UNKNOWN && g->symbolic_maps))
        continue;
      if (p >= g->grid_ndims)
        {
          op_error (error, g, kind, "%s[%u] = %d maps a grid axis the grid does not have", which, p, m);
          return FALSE;
        }
      if (m < 0 || (guint) m >= ndims)
        {
          op_error (error, g, kind, "%s[%u] = %d is out of range for a rank-%u tensor", which, p, m, ndims);
          return FALSE;
        }
      for (guint q = 0; q < p; q++)
        if (map[q] == m)
          {
            op_error (error, g, kind, "%s maps data dim %d to two grid axes", which, m);
            return FALSE;
          }
    }
  return TRUE;
}

/* d / by, failing when both are constants and the division is inexact. */
static PrismDim *
divide_dim (PrismGraph *g, PrismOpKind kind, const char *what, PrismDim *d, const PrismDim *by,
            GError **error)
{
  PrismDim *r = prism_dim_div (d, by);

  if (prism_dim_is_const (d) && prism_dim_is_const (by) && !prism_dim_is_const (r))
    {
      op_error (error, g, kind, "%s: %" G_GINT64_FORMAT " is not divisible by %" G_GINT64_FORMAT,
                what, d->value, by->value);
      prism_dim_unref (r);
      return NULL;
    }
  return r;
}

int
prism_block_graph_add_input (PrismGraph *g, guint input_index, guint ndims,
                             PrismDim * const *data_dims, PrismDtype dtype, const int *imap,
                             int fmap, GError **error)
{
  PrismDim *tile[1][PRISM_MAX_DIMS] = { { NULL, } };
  guint nd[1] = { ndims };
  PrismOpAttrs attrs;
  PrismOp *op;
  int index = -1;

  if (g->level != PRISM_LEVEL_BLOCK)
    {
      op_error (error, g, PRISM_OP_INPUT, "not a block graph");
      return -1;
    }
  if (ndims < 1 || ndims > PRISM_MAX_DIMS)
    {
      op_error (error, g, PRISM_OP_INPUT, "rank %u is not between 1 and %d", ndims, PRISM_MAX_DIMS);
      return -1;
    }
  if (!check_map (g, PRISM_OP_INPUT, "imap", imap, ndims, error))
    return -1;
  if (fmap != PRISM_MAP_REPLICATE && !(fmap == PRISM_MAP_UNKNOWN && g->symbolic_maps) &&
      (fmap < 0 || (guint) fmap >= ndims))
    {
      op_error (error, g, PRISM_OP_INPUT, "fmap = %d is out of range for a rank-%u tensor", fmap, ndims);
      return -1;
    }

  for (guint d = 0; d < ndims; d++)
    {
      tile[0][d] = prism_dim_ref (data_dims[d]);
      if (g->symbolic_maps)
        continue;
      for (guint p = 0; p < g->grid_ndims; p++)
        if (imap[p] == (int) d)
          {
            g_autofree char *what = g_strdup_printf ("imap[%u] = %u splits dim %u", p, d, d);
            PrismDim *r = divide_dim (g, PRISM_OP_INPUT, what, tile[0][d], g->grid[p], error);
            prism_dim_unref (tile[0][d]);
            if ((tile[0][d] = r) == NULL)
              goto out;
          }
      if (fmap == (int) d)
        {
          g_autofree char *what = g_strdup_printf ("fmap = %u splits dim %u", d, d);
          PrismDim *r = divide_dim (g, PRISM_OP_INPUT, what, tile[0][d], g->forloop, error);
          prism_dim_unref (tile[0][d]);
          if ((tile[0][d] = r) == NULL)
            goto out;
        }
    }

  prism_op_attrs_init (&attrs);
  attrs.input_index = input_index;
  memcpy (attrs.imap, imap, sizeof attrs.imap);
  attrs.fmap = fmap;
  op = op_new (PRISM_OP_INPUT, NULL, 0, &attrs);
  op->data_ndims = ndims;
  op->data_dtype = dtype;
  for (guint d = 0; d < ndims; d++)
    op->data_dims[d] = prism_dim_ref (data_dims[d]);
  index = commit_op (g, op, 1, nd, tile, dtype, FALSE);
  index = (int) prism_graph_op (g, index)->outputs[0];

out:
  for (guint d = 0; d < ndims; d++)
    prism_dim_unref (tile[0][d]);
  return index;
}

int
prism_block_graph_add_output (PrismGraph *g, guint tensor, const int *omap, GError **error)
{
  guint in[1] = { tensor };
  const PrismTensor *t;
  PrismOpAttrs attrs;
  PrismOp *op;

  if (g->level != PRISM_LEVEL_BLOCK)
    {
      op_error (error, g, PRISM_OP_OUTPUT, "not a block graph");
      return -1;
    }
  if (!check_inputs (g, PRISM_OP_OUTPUT, in, 1, error))
    return -1;
  t = prism_graph_tensor (g, tensor);
  if (!t->after_accum)
    {
      op_error (error, g, PRISM_OP_OUTPUT,
                "tensor %u is not after an accumulator; outputs are written once, after the loop",
                tensor);
      return -1;
    }
  if (!check_map (g, PRISM_OP_OUTPUT, "omap", omap, t->ndims, error))
    return -1;

  prism_op_attrs_init (&attrs);
  memcpy (attrs.omap, omap, sizeof attrs.omap);
  op = op_new (PRISM_OP_OUTPUT, in, 1, &attrs);
  op->data_ndims = t->ndims;
  op->data_dtype = t->dtype;
  for (guint d = 0; d < t->ndims; d++)
    {
      PrismDim *acc = prism_dim_ref (t->dims[d]);
      for (guint p = 0; p < g->grid_ndims && !g->symbolic_maps; p++)
        if (omap[p] == (int) d)
          {
            PrismDim *r = prism_dim_mul (acc, g->grid[p]);
            prism_dim_unref (acc);
            acc = r;
          }
      op->data_dims[d] = acc;
    }
  return commit_op (g, op, 0, NULL, NULL, t->dtype, TRUE);
}

static int
add_kernel (PrismGraph *g, const guint *inputs, guint n_inputs, PrismGraph *body, gboolean open,
            GError **error)
{
  guint nd[PRISM_MAX_OP_OUTPUTS];
  PrismDim *dims[PRISM_MAX_OP_OUTPUTS][PRISM_MAX_DIMS];
  guint n_out = 0;
  PrismDtype dtype = PRISM_DTYPE_F32;
  PrismOp *op;

  if (!check_inputs (g, PRISM_OP_KERNEL, inputs, n_inputs, error))
    return -1;
  if (body == NULL || body->level != PRISM_LEVEL_BLOCK)
    {
      op_error (error, g, PRISM_OP_KERNEL, "the body is not a block graph");
      return -1;
    }
  for (guint i = 0; i < body->ops->len; i++)
    {
      const PrismOp *bop = prism_graph_op (body, i);

      if (bop->kind == PRISM_OP_INPUT)
        {
          const PrismTensor *src;
          if (bop->attrs.input_index >= n_inputs)
            {
              op_error (error, g, PRISM_OP_KERNEL, "block op %u reads kernel input %u of %u", i,
                        bop->attrs.input_index, n_inputs);
              return -1;
            }
          src = prism_graph_tensor (g, inputs[bop->attrs.input_index]);
          if (src->ndims != bop->data_ndims)
            {
              op_error (error, g, PRISM_OP_KERNEL, "block op %u expects a rank-%u input, got rank %u",
                        i, bop->data_ndims, src->ndims);
              return -1;
            }
          for (guint d = 0; d < src->ndims; d++)
            if (!prism_dim_equal (src->dims[d], bop->data_dims[d]))
              {
                op_error (error, g, PRISM_OP_KERNEL, "block op %u: dim %u of kernel input %u differs",
                          i, d, bop->attrs.input_index);
                return -1;
              }
          dtype = src->dtype;
        }
      else if (bop->kind == PRISM_OP_OUTPUT)
        {
          if (n_out == PRISM_MAX_OP_OUTPUTS)
            {
              op_error (error, g, PRISM_OP_KERNEL, "more than %d outputs", PRISM_MAX_OP_OUTPUTS);
              return -1;
            }
          nd[n_out] = bop->data_ndims;
          memcpy (dims[n_out], bop->data_dims, sizeof (PrismDim *) * bop->data_ndims);
          n_out++;
        }
    }
  if (n_out == 0 && !open)
    {
      op_error (error, g, PRISM_OP_KERNEL, "the block graph has no output");
      return -1;
    }
  /* A kernel that reads nothing (it writes a constant) has the constant's dtype. */
  for (guint i = 0; i < body->ops->len && n_inputs == 0; i++)
    if (prism_graph_op (body, i)->kind == PRISM_OP_CONSTANT)
      {
        dtype = prism_graph_tensor (body, prism_graph_op (body, i)->outputs[0])->dtype;
        break;
      }
  op = op_new (PRISM_OP_KERNEL, inputs, n_inputs, NULL);
  op->body = prism_graph_ref (body);
  return commit_op (g, op, n_out, nd, dims, dtype, FALSE);
}

int
prism_graph_add_kernel (PrismGraph *g, const guint *inputs, guint n_inputs, PrismGraph *body,
                        GError **error)
{
  return add_kernel (g, inputs, n_inputs, body, FALSE, error);
}

int
prism_graph_add_open_kernel (PrismGraph *g, const guint *inputs, guint n_inputs, PrismGraph *body,
                             GError **error)
{
  return add_kernel (g, inputs, n_inputs, body, TRUE, error);
}

/* ------------------------------------------------------------------------ */

static GArray *
collect_io (const PrismGraph *graph, PrismOpKind kind)
{
  GArray *ids = g_array_new (FALSE, FALSE, sizeof (guint));

  for (guint i = 0; i < graph->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (graph, i);
      guint id;

      if (op->kind != kind)
        continue;
      id = kind == PRISM_OP_INPUT ? op->outputs[0] : op->inputs[0];
      g_array_append_val (ids, id);
    }
  return ids;
}

GArray *
prism_graph_get_inputs (const PrismGraph *graph)
{
  return collect_io (graph, PRISM_OP_INPUT);
}

GArray *
prism_graph_get_outputs (const PrismGraph *graph)
{
  return collect_io (graph, PRISM_OP_OUTPUT);
}

guint
prism_graph_count_kernels (const PrismGraph *graph)
{
  guint n = 0;

  for (guint i = 0; i < graph->ops->len; i++)
    {
      PrismOpKind k = prism_graph_op (graph, i)->kind;
      n += k != PRISM_OP_INPUT && k != PRISM_OP_OUTPUT;
    }
  return n;
}

gboolean
prism_tensor_get_shape (const PrismTensor *tensor, gint64 *out)
{
  for (guint i = 0; i < tensor->ndims; i++)
    {
      if (!prism_dim_is_const (tensor->dims[i]))
        return FALSE;
      out[i] = tensor->dims[i]->value;
    }
  return TRUE;
}

gint64
prism_tensor_numel (const PrismTensor *tensor)
{
  gint64 shape[PRISM_MAX_DIMS];
  gint64 n = 1;

  if (!prism_tensor_get_shape (tensor, shape))
    return -1;
  for (guint i = 0; i < tensor->ndims; i++)
    n *= shape[i];
  return n;
}

gboolean
prism_graph_is_concrete (const PrismGraph *graph)
{
  if (graph->symbolic_maps)
    return FALSE;
  for (guint i = 0; i < graph->tensors->len; i++)
    {
      gint64 shape[PRISM_MAX_DIMS];
      if (!prism_tensor_get_shape (prism_graph_tensor (graph, i), shape))
        return FALSE;
    }
  if (graph->level == PRISM_LEVEL_BLOCK)
    {
      for (guint p = 0; p < graph->grid_ndims; p++)
        if (!prism_dim_is_const (graph->grid[p]))
          return FALSE;
      if (!prism_dim_is_const (graph->forloop))
        return FALSE;
    }
  for (guint i = 0; i < graph->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (graph, i);
      if (op->body != NULL && !prism_graph_is_concrete (op->body))
        return FALSE;
    }
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* Instantiation replays every op through the builders, so every rule is
 * checked again with the new sizes. */

static PrismGraph *instantiate_block (const PrismGraph *b, const gint64 *values, guint n_values,
                                      GError **error);

static gboolean
replay_op (PrismGraph *dst, const PrismGraph *src, const PrismOp *op, const guint *map,
           guint *new_map, const gint64 *values, guint n_values, GError **error)
{
  guint in[PRISM_MAX_OP_INPUTS];
  int r;

  for (guint i = 0; i < op->n_inputs; i++)
    in[i] = map[op->inputs[i]];

  switch ((int) op->kind)
    {
    case PRISM_OP_INPUT:
      if (src->level == PRISM_LEVEL_KERNEL)
        {
          gint64 shape[PRISM_MAX_DIMS];
          const PrismTensor *t = prism_graph_tensor (src, op->outputs[0]);
          if (!prism_tensor_get_shape (t, shape))
            {
              g_set_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED, "symbolic graph inputs");
              return FALSE;
            }
          r = prism_graph_add_input (dst, op->name, t->ndims, shape, t->dtype, error);
        }
      else
        {
          PrismDim *dd[PRISM_MAX_DIMS];
          for (guint d = 0; d < op->data_ndims; d++)
            dd[d] = prism_dim_substitute (op->data_dims[d], values, n_values);
          r = prism_block_graph_add_input (dst, op->attrs.input_index, op->data_ndims, dd,
                                           op->data_dtype, op->attrs.imap, op->attrs.fmap, error);
          for (guint d = 0; d < op->data_ndims; d++)
            prism_dim_unref (dd[d]);
        }
      if (r < 0)
        return FALSE;
      new_map[op->outputs[0]] = (guint) r;
      return TRUE;
    case PRISM_OP_CONSTANT:
      r = prism_graph_add_constant (dst, op->attrs.value,
                                    prism_graph_tensor (src, op->outputs[0])->ndims,
                                    prism_graph_tensor (src, op->outputs[0])->dtype, error);
      if (r < 0)
        return FALSE;
      new_map[op->outputs[0]] = (guint) r;
      return TRUE;
    case PRISM_OP_OUTPUT:
      if (src->level == PRISM_LEVEL_KERNEL)
        return prism_graph_add_output (dst, in[0], op->name, error) >= 0;
      return prism_block_graph_add_output (dst, in[0], op->attrs.omap, error) >= 0;
    case PRISM_OP_KERNEL:
      {
        g_autoptr(PrismGraph) body = instantiate_block (op->body, values, n_values, error);
        if (body == NULL)
          {
            g_prefix_error (error, "op %u (kernel): ", dst->ops->len);
            return FALSE;
          }
        r = prism_graph_add_kernel (dst, in, op->n_inputs, body, error);
      }
      break;
    default:
      r = prism_graph_add_op (dst, op->kind, in, op->n_inputs, &op->attrs, error);
      break;
    }
  if (r < 0)
    return FALSE;
  for (guint o = 0; o < op->n_outputs; o++)
    new_map[op->outputs[o]] = prism_graph_op (dst, r)->outputs[o];
  return TRUE;
}

static gboolean
replay_ops (PrismGraph *dst, const PrismGraph *src, const gint64 *values, guint n_values,
            GError **error)
{
  g_autofree guint *map = g_new0 (guint, src->tensors->len + 1);

  for (guint i = 0; i < src->ops->len; i++)
    if (!replay_op (dst, src, prism_graph_op (src, i), map, map, values, n_values, error))
      return FALSE;
  return TRUE;
}

static PrismGraph *
instantiate_block (const PrismGraph *b, const gint64 *values, guint n_values, GError **error)
{
  PrismDim *grid[PRISM_MAX_GRID_DIMS];
  g_autoptr(PrismDim) f = prism_dim_substitute (b->forloop, values, n_values);
  g_autoptr(PrismGraph) dst = NULL;

  for (guint p = 0; p < b->grid_ndims; p++)
    grid[p] = prism_dim_substitute (b->grid[p], values, n_values);
  dst = prism_block_graph_new (b->grid_ndims, grid, b->block_threads, f);
  for (guint p = 0; p < b->grid_ndims; p++)
    prism_dim_unref (grid[p]);
  dst->symbolic_maps = b->symbolic_maps;
  if (!replay_ops (dst, b, values, n_values, error))
    return NULL;
  return g_steal_pointer (&dst);
}

PrismGraph *
prism_graph_instantiate (const PrismGraph *graph, const gint64 *values, guint n_values,
                         GError **error)
{
  g_autoptr(PrismGraph) dst = prism_graph_new ();

  g_return_val_if_fail (graph->level == PRISM_LEVEL_KERNEL, NULL);
  prism_graph_set_name (dst, graph->name, graph->description);
  for (guint i = 0; i + 1 < graph->var_names->len; i++)
    prism_graph_add_var (dst, g_ptr_array_index (graph->var_names, i));
  if (!replay_ops (dst, graph, values, n_values, error))
    return NULL;
  return g_steal_pointer (&dst);
}

/* ------------------------------------------------------------------------ */

char *
prism_tensor_shape_to_string (const PrismGraph *graph, const PrismTensor *tensor)
{
  GString *s = g_string_new ("[");
  const char * const *names = graph ? prism_graph_var_names (graph) : NULL;

  for (guint i = 0; i < tensor->ndims; i++)
    {
      g_autofree char *d = prism_dim_to_string (tensor->dims[i], names);
      g_string_append_printf (s, "%s%s", i ? ", " : "", d);
    }
  g_string_append_c (s, ']');
  return g_string_free (s, FALSE);
}

static void
append_map (GString *s, const char *label, const int *map, guint n)
{
  g_string_append_printf (s, " %s=(", label);
  for (guint p = 0; p < n; p++)
    g_string_append_printf (s, "%s%d", p ? "," : "", map[p]);
  g_string_append_c (s, ')');
}

static void
graph_print (GString *s, const PrismGraph *g, const PrismGraph *top, const char *indent)
{
  const char * const *names = prism_graph_var_names (top);

  for (guint i = 0; i < g->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (g, i);

      g_string_append_printf (s, "%s%u: %s", indent, i, prism_op_kind_to_string (op->kind));
      if (op->name)
        g_string_append_printf (s, " \"%s\"", op->name);
      if (op->n_inputs > 0)
        {
          g_string_append (s, " (");
          for (guint k = 0; k < op->n_inputs; k++)
            g_string_append_printf (s, "%st%u", k ? ", " : "", op->inputs[k]);
          g_string_append_c (s, ')');
        }
      if (prism_op_kind_is_reduction (op->kind) || op->kind == PRISM_OP_CONCAT)
        g_string_append_printf (s, " dim=%d", op->attrs.dim);
      if (op->kind == PRISM_OP_CONSTANT)
        g_string_append_printf (s, " value=%.17g", op->attrs.value);
      if (op->kind == PRISM_OP_TRANSPOSE)
        {
          guint nd = prism_graph_tensor (g, op->inputs[0])->ndims;
          g_string_append (s, " perm=(");
          for (guint k = 0; k < nd; k++)
            g_string_append_printf (s, "%s%d", k ? "," : "", op->attrs.perm[k]);
          g_string_append_c (s, ')');
        }
      if (op->kind == PRISM_OP_RMS_NORM)
        g_string_append_printf (s, " norm_dims=%u", op->attrs.norm_dims);
      if (op->kind == PRISM_OP_RMS_NORM && op->attrs.eps != 0.0)
        g_string_append_printf (s, " eps=%.17g", op->attrs.eps);
      if (op->kind == PRISM_OP_ACCUM_SUM_TODIMX)
        g_string_append_printf (s, " dimx=%u", op->attrs.dimx);
      if (g->level == PRISM_LEVEL_BLOCK && op->kind == PRISM_OP_INPUT)
        {
          g_string_append_printf (s, " input=%u", op->attrs.input_index);
          append_map (s, "imap", op->attrs.imap, g->grid_ndims);
          g_string_append_printf (s, " fmap=%d", op->attrs.fmap);
        }
      if (g->level == PRISM_LEVEL_BLOCK && op->kind == PRISM_OP_OUTPUT)
        append_map (s, "omap", op->attrs.omap, g->grid_ndims);
      for (guint k = 0; k < op->n_outputs; k++)
        {
          const PrismTensor *t = prism_graph_tensor (g, op->outputs[k]);
          g_autofree char *shape = prism_tensor_shape_to_string (top, t);
          g_string_append_printf (s, "%s t%u %s %s%s", k ? "," : " ->", op->outputs[k], shape,
                                  prism_dtype_to_string (t->dtype), t->after_accum ? " (after loop)" : "");
        }
      g_string_append_c (s, '\n');
      if (op->body != NULL)
        {
          const PrismGraph *b = op->body;
          g_autofree char *sub = g_strconcat (indent, "    ", NULL);
          g_autofree char *f = prism_dim_to_string (b->forloop, names);
          g_string_append_printf (s, "%s  grid=(", indent);
          for (guint p = 0; p < b->grid_ndims; p++)
            {
              g_autofree char *gd = prism_dim_to_string (b->grid[p], names);
              g_string_append_printf (s, "%s%s", p ? "," : "", gd);
            }
          g_string_append_printf (s, ") block=%u forloop=%s\n", b->block_threads, f);
          graph_print (s, b, top, sub);
        }
    }
}

char *
prism_graph_to_string (const PrismGraph *graph)
{
  GString *s = g_string_new (NULL);

  if (graph->name)
    g_string_append_printf (s, "%s\n", graph->name);
  graph_print (s, graph, graph, "  ");
  return g_string_free (s, FALSE);
}

gboolean
prism_graph_validate (const PrismGraph *graph, GError **error)
{
  gboolean has_input = FALSE, has_output = FALSE;

  if (graph->level != PRISM_LEVEL_KERNEL)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_INVALID_GRAPH, "not a kernel graph");
      return FALSE;
    }
  for (guint i = 0; i < graph->ops->len; i++)
    {
      PrismOpKind k = prism_graph_op (graph, i)->kind;
      has_input |= k == PRISM_OP_INPUT;
      has_output |= k == PRISM_OP_OUTPUT;
    }
  if (!has_input || !has_output)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_INVALID_GRAPH, "the graph has no %s",
                   has_input ? "output" : "input");
      return FALSE;
    }
  return TRUE;
}
