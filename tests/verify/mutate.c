/* mutate.c — wrong graphs made from right ones, for testing the verifier
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A mutant is the original graph replayed op by op through the builders of
 * prism-graph.h with one edit on the way, so the builders reject every
 * mutant that breaks a shape or map rule.
 */
#include "config.h"

#include "mutate.h"

static const char * const kind_names[] = {
  "accum-kind", "imap", "fmap", "omap", "grid-size", "forloop", "unary", "binary", "drop",
  "duplicate", "swap-operands", "reduction-dim", "kernel-inputs", "tile-source", "swap-grid-axes",
  "rewrite",
};

G_STATIC_ASSERT (G_N_ELEMENTS (kind_names) == MUT_N_KINDS);

static const PrismOpKind accum_kinds[] = {
  PRISM_OP_ACCUM, PRISM_OP_ACCUM_SUM, PRISM_OP_ACCUM_MEAN, PRISM_OP_ACCUM_RMS, PRISM_OP_ACCUM_MAX,
};
static const PrismOpKind unary_kinds[] = {
  PRISM_OP_EXP, PRISM_OP_SQUARE, PRISM_OP_SQRT, PRISM_OP_SILU, PRISM_OP_GELU, PRISM_OP_RELU, PRISM_OP_NEG,
};
static const PrismOpKind binary_kinds[] = {
  PRISM_OP_ADD, PRISM_OP_SUB, PRISM_OP_MUL, PRISM_OP_DIV, PRISM_OP_POW,
};

const char *
mut_kind_to_string (MutKind kind)
{
  g_return_val_if_fail (kind < MUT_N_KINDS, "?");
  return kind_names[kind];
}

char *
mut_to_string (const Mutation *m)
{
  return g_strdup_printf ("%s k%d op %d a=%d b=%d", mut_kind_to_string (m->kind), m->kernel, m->op,
                          m->a, m->b);
}

static void
push (GArray *out, MutKind kind, int kernel, int op, int a, int b)
{
  Mutation m = { kind, kernel, op, a, b };

  g_array_append_val (out, m);
}

static gboolean
same_shape (const PrismTensor *x, const PrismTensor *y)
{
  if (x->ndims != y->ndims)
    return FALSE;
  for (guint d = 0; d < x->ndims; d++)
    if (!prism_dim_equal (x->dims[d], y->dims[d]))
      return FALSE;
  return TRUE;
}

/* The value-preserving rewrites that apply at block op @op (MUT_REWRITE). */
static void
enumerate_rewrites (GArray *out, const PrismGraph *b, const PrismOp *op, int k, int i)
{
  const PrismOp *from;

  if (!prism_op_kind_is_unary (op->kind) && !prism_op_kind_is_binary (op->kind) &&
      op->kind != PRISM_OP_MEAN)
    return;
  push (out, MUT_REWRITE, k, i, 0, MUT_RW_MAXIMUM_SELF);
  push (out, MUT_REWRITE, k, i, 0, MUT_RW_TRANSPOSE_ID);
  if (op->kind == PRISM_OP_RELU)
    push (out, MUT_REWRITE, k, i, 0, MUT_RW_RELU_MAXIMUM);
  if (op->kind == PRISM_OP_SUB)
    push (out, MUT_REWRITE, k, i, 0, MUT_RW_SUB_ADD_NEG);
  if (op->kind == PRISM_OP_MEAN)
    push (out, MUT_REWRITE, k, i, 0, MUT_RW_MEAN_DIV);
  if (op->kind == PRISM_OP_EXP)
    {
      from = prism_graph_op (b, (guint) prism_graph_tensor (b, op->inputs[0])->producer);
      if (from->kind == PRISM_OP_SUB)
        push (out, MUT_REWRITE, k, i, 0, MUT_RW_EXP_DIV);
    }
  if (op->kind == PRISM_OP_MUL)
    for (guint j = 0; j < 2; j++)
      {
        from = prism_graph_op (b, (guint) prism_graph_tensor (b, op->inputs[j])->producer);
        if (from->kind == PRISM_OP_CONSTANT)
          push (out, MUT_REWRITE, k, i, (int) j, MUT_RW_MUL_SPLIT);
      }
}

static void
enumerate_kernel (GArray *out, const PrismGraph *g, const PrismOp *kop, int k)
{
  const PrismGraph *b = kop->body;

  for (guint p = 0; p < b->grid_ndims; p++)
    for (int v = 0; v < 2; v++)
      push (out, MUT_GRID_SIZE, k, -1, (int) p, v);
  for (int v = 0; v < 2; v++)
    push (out, MUT_FORLOOP, k, -1, 0, v);
  for (guint x = 0; x < kop->n_inputs; x++)
    for (guint y = x + 1; y < kop->n_inputs; y++)
      if (same_shape (prism_graph_tensor (g, kop->inputs[x]), prism_graph_tensor (g, kop->inputs[y])))
        push (out, MUT_KERNEL_INPUTS, k, -1, (int) x, (int) y);

  for (guint i = 0; i < b->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (b, i);
      int rank = op->n_inputs > 0 ? (int) prism_graph_tensor (b, op->inputs[0])->ndims : (int) op->data_ndims;

      enumerate_rewrites (out, b, op, k, (int) i);

      switch ((int) op->kind)
        {
        case PRISM_OP_INPUT:
          for (guint p = 0; p < b->grid_ndims; p++)
            for (int v = -1; v < rank; v++)
              if (v != op->attrs.imap[p])
                push (out, MUT_IMAP, k, (int) i, (int) p, v);
          for (int v = -1; v < rank; v++)
            if (v != op->attrs.fmap)
              push (out, MUT_FMAP, k, (int) i, 0, v);
          for (guint j = 0; j < kop->n_inputs; j++)
            if (j != op->attrs.input_index)
              push (out, MUT_TILE_SOURCE, k, (int) i, 0, (int) j);
          for (guint p = 0; p < b->grid_ndims; p++)
            for (guint q = p + 1; q < b->grid_ndims; q++)
              if (op->attrs.imap[p] != op->attrs.imap[q])
                push (out, MUT_SWAP_GRID_AXES, k, (int) i, (int) p, (int) q);
          break;
        case PRISM_OP_OUTPUT:
          for (guint p = 0; p < b->grid_ndims; p++)
            for (int v = -1; v < rank; v++)
              if (v != op->attrs.omap[p])
                push (out, MUT_OMAP, k, (int) i, (int) p, v);
          break;
        case PRISM_OP_MATMUL:
          push (out, MUT_SWAP_OPERANDS, k, (int) i, 0, 0);
          push (out, MUT_DROP, k, (int) i, 0, 0);
          push (out, MUT_DROP, k, (int) i, 1, 0);
          break;
        case PRISM_OP_SUM:
        case PRISM_OP_MAX:
        case PRISM_OP_MEAN:
          for (int v = 0; v < rank; v++)
            if (v != op->attrs.dim)
              push (out, MUT_REDUCTION_DIM, k, (int) i, 0, v);
          push (out, MUT_DROP, k, (int) i, 0, 0);
          break;
        case PRISM_OP_RMS_NORM:
          for (int v = 1; v <= rank; v++)
            if (v != (int) op->attrs.norm_dims)
              push (out, MUT_REDUCTION_DIM, k, (int) i, 0, v);
          push (out, MUT_DROP, k, (int) i, 0, 0);
          push (out, MUT_DUPLICATE, k, (int) i, 0, 0);
          break;
        case PRISM_OP_ACCUM_SUM_TODIMX:
          push (out, MUT_REDUCTION_DIM, k, (int) i, 0, (int) op->attrs.dimx * 2);
          push (out, MUT_REDUCTION_DIM, k, (int) i, 0, (int) op->attrs.dimx / 2);
          /* fall through */
        case PRISM_OP_ACCUM:
        case PRISM_OP_ACCUM_SUM:
        case PRISM_OP_ACCUM_MEAN:
        case PRISM_OP_ACCUM_RMS:
        case PRISM_OP_ACCUM_MAX:
          for (guint v = 0; v < G_N_ELEMENTS (accum_kinds); v++)
            if (accum_kinds[v] != op->kind)
              push (out, MUT_ACCUM_KIND, k, (int) i, 0, (int) accum_kinds[v]);
          break;
        case PRISM_OP_ACCUM_ONLINE:
        case PRISM_OP_ACCUM_SUM_ONLINE:
          /* The rescale by exp(old max − new max) left out (the plain
           * accumulators take the value only), or the other online one. */
          for (guint v = 0; v < G_N_ELEMENTS (accum_kinds); v++)
            push (out, MUT_ACCUM_KIND, k, (int) i, 0, (int) accum_kinds[v]);
          push (out, MUT_ACCUM_KIND, k, (int) i, 0,
                op->kind == PRISM_OP_ACCUM_ONLINE ? PRISM_OP_ACCUM_SUM_ONLINE : PRISM_OP_ACCUM_ONLINE);
          break;
        default:
          if (prism_op_kind_is_unary (op->kind))
            {
              for (guint v = 0; v < G_N_ELEMENTS (unary_kinds); v++)
                if (unary_kinds[v] != op->kind)
                  push (out, MUT_UNARY, k, (int) i, 0, (int) unary_kinds[v]);
              push (out, MUT_DROP, k, (int) i, 0, 0);
              push (out, MUT_DUPLICATE, k, (int) i, 0, 0);
            }
          else if (prism_op_kind_is_binary (op->kind))
            {
              for (guint v = 0; v < G_N_ELEMENTS (binary_kinds); v++)
                if (binary_kinds[v] != op->kind)
                  push (out, MUT_BINARY, k, (int) i, 0, (int) binary_kinds[v]);
              push (out, MUT_DROP, k, (int) i, 0, 0);
              push (out, MUT_DROP, k, (int) i, 1, 0);
              push (out, MUT_DUPLICATE, k, (int) i, 0, 0);
              push (out, MUT_SWAP_OPERANDS, k, (int) i, 0, 0);
            }
          break;
        }
    }
}

GArray *
mut_enumerate (const PrismGraph *graph)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (Mutation));
  int k = 0;

  for (guint i = 0; i < graph->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (graph, i);
      if (op->kind == PRISM_OP_KERNEL)
        enumerate_kernel (out, graph, op, k++);
    }
  return out;
}

/* Replay ------------------------------------------------------------------ */

static PrismDim *
resize (const PrismDim *d, int variant)
{
  gint64 v = prism_dim_get_const (d);

  if (v <= 0)
    return NULL;
  if (variant == 0)
    return prism_dim_const (v * 2);
  return v % 2 == 0 ? prism_dim_const (v / 2) : NULL;
}

static int
add2 (PrismGraph *g, PrismOpKind kind, guint a, guint b)
{
  guint in[2] = { a, b };

  return prism_graph_add (g, kind, in, 2, NULL, NULL);
}

static int
add1 (PrismGraph *g, PrismOpKind kind, guint a, const PrismOpAttrs *attrs)
{
  return prism_graph_add (g, kind, &a, 1, attrs, NULL);
}

/* Block op @op of @b rebuilt in @out as a value-preserving rewrite of
 * itself (@map: tensors of @b in @out, @in: its operands there).  Returns
 * the tensor that stands for its output, or -1. */
static int
rewrite (PrismGraph *out, const PrismGraph *b, const PrismOp *op, const guint *map, const guint *in,
         const PrismOpAttrs *attrs, const Mutation *m)
{
  const PrismTensor *y = prism_graph_tensor (b, op->outputs[0]);
  int r, c1, c2;

  switch (m->b)
    {
    case MUT_RW_MAXIMUM_SELF:
    case MUT_RW_TRANSPOSE_ID:
      r = prism_graph_add (out, op->kind, in, op->n_inputs, attrs, NULL);
      if (r < 0)
        return -1;
      if (m->b == MUT_RW_MAXIMUM_SELF)
        return add2 (out, PRISM_OP_MAXIMUM, (guint) r, (guint) r);
      {
        PrismOpAttrs id;
        prism_op_attrs_init (&id);   /* perm: the identity */
        return add1 (out, PRISM_OP_TRANSPOSE, (guint) r, &id);
      }
    case MUT_RW_RELU_MAXIMUM:
      c1 = prism_graph_add_constant (out, 0.0, y->ndims, y->dtype, NULL);
      return c1 < 0 ? -1 : add2 (out, PRISM_OP_MAXIMUM, in[0], (guint) c1);
    case MUT_RW_SUB_ADD_NEG:
      r = add1 (out, PRISM_OP_NEG, in[1], NULL);
      return r < 0 ? -1 : add2 (out, PRISM_OP_ADD, in[0], (guint) r);
    case MUT_RW_EXP_DIV:
      {
        const PrismOp *sub = prism_graph_op (b, (guint) prism_graph_tensor (b, op->inputs[0])->producer);
        int ea = add1 (out, PRISM_OP_EXP, map[sub->inputs[0]], NULL);
        int eb = ea < 0 ? -1 : add1 (out, PRISM_OP_EXP, map[sub->inputs[1]], NULL);
        return eb < 0 ? -1 : add2 (out, PRISM_OP_DIV, (guint) ea, (guint) eb);
      }
    case MUT_RW_MUL_SPLIT:
      {
        const PrismOp *cop = prism_graph_op (b, (guint) prism_graph_tensor (b, op->inputs[m->a])->producer);
        const PrismTensor *ct = prism_graph_tensor (b, op->inputs[m->a]);
        c1 = prism_graph_add_constant (out, 2.0, ct->ndims, ct->dtype, NULL);
        c2 = prism_graph_add_constant (out, cop->attrs.value / 2.0, ct->ndims, ct->dtype, NULL);
        if (c1 < 0 || c2 < 0)
          return -1;
        r = add2 (out, PRISM_OP_MUL, in[1 - m->a], (guint) c1);
        return r < 0 ? -1 : add2 (out, PRISM_OP_MUL, (guint) r, (guint) c2);
      }
    case MUT_RW_MEAN_DIV:
      {
        const PrismTensor *x = prism_graph_tensor (b, op->inputs[0]);
        const PrismDim *n = x->dims[attrs->dim];
        if (!prism_dim_is_const (n))
          return -1;
        r = add1 (out, PRISM_OP_SUM, in[0], attrs);
        c1 = prism_graph_add_constant (out, (double) prism_dim_get_const (n), x->ndims, x->dtype, NULL);
        return r < 0 || c1 < 0 ? -1 : add2 (out, PRISM_OP_DIV, (guint) r, (guint) c1);
      }
    default:
      return -1;
    }
}

/* Replays block graph @b of kernel @k with the edit (if it is for @k);
 * @kin are the kernel's inputs in @dst. */
static PrismGraph *
replay_body (const Mutation *m, int k, const PrismGraph *b, const PrismGraph *dst, const guint *kin,
             guint n_kin)
{
  gboolean mine = m->kernel == k;
  PrismDim *grid[PRISM_MAX_GRID_DIMS];
  g_autoptr(PrismDim) f = NULL;
  g_autoptr(PrismGraph) out = NULL;
  g_autofree guint *map = g_new0 (guint, b->tensors->len);
  gboolean ok = TRUE;

  for (guint p = 0; p < b->grid_ndims; p++)
    grid[p] = prism_dim_ref (b->grid[p]);
  f = prism_dim_ref (b->forloop);
  if (mine && m->kind == MUT_GRID_SIZE)
    {
      PrismDim *r = resize (grid[m->a], m->b);
      prism_dim_unref (grid[m->a]);
      grid[m->a] = r;
      ok = r != NULL;
    }
  if (mine && m->kind == MUT_FORLOOP)
    {
      PrismDim *r = resize (f, m->b);
      prism_dim_unref (f);
      f = r;
      ok = ok && r != NULL;
    }
  if (ok)
    out = prism_block_graph_new (b->grid_ndims, grid, b->block_threads, f);
  for (guint p = 0; p < b->grid_ndims; p++)
    if (grid[p] != NULL)
      prism_dim_unref (grid[p]);
  if (!ok)
    return NULL;

  for (guint i = 0; i < b->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (b, i);
      gboolean here = mine && m->op == (int) i;
      PrismOpAttrs attrs = op->attrs;
      PrismOpKind kind = op->kind;
      guint in[PRISM_MAX_OP_INPUTS];
      int r;

      for (guint j = 0; j < op->n_inputs; j++)
        in[j] = map[op->inputs[j]];

      if (op->kind == PRISM_OP_INPUT)
        {
          const PrismTensor *src;
          if (here && m->kind == MUT_IMAP)
            attrs.imap[m->a] = m->b;
          if (here && m->kind == MUT_FMAP)
            attrs.fmap = m->b;
          if (here && m->kind == MUT_TILE_SOURCE)
            attrs.input_index = (guint) m->b;
          if (here && m->kind == MUT_SWAP_GRID_AXES)
            {
              int t = attrs.imap[m->a];
              attrs.imap[m->a] = attrs.imap[m->b];
              attrs.imap[m->b] = t;
            }
          if (attrs.input_index >= n_kin)
            return NULL;
          src = prism_graph_tensor (dst, kin[attrs.input_index]);
          r = prism_block_graph_add_input (out, attrs.input_index, src->ndims, src->dims, src->dtype,
                                           attrs.imap, attrs.fmap, NULL);
          if (r < 0)
            return NULL;
          map[op->outputs[0]] = (guint) r;
          continue;
        }
      if (op->kind == PRISM_OP_OUTPUT)
        {
          if (here && m->kind == MUT_OMAP)
            attrs.omap[m->a] = m->b;
          if (prism_block_graph_add_output (out, in[0], attrs.omap, NULL) < 0)
            return NULL;
          continue;
        }
      if (here && m->kind == MUT_DROP)
        {
          if ((guint) m->a >= op->n_inputs)
            return NULL;
          map[op->outputs[0]] = in[m->a];
          continue;
        }
      if (here && (m->kind == MUT_ACCUM_KIND || m->kind == MUT_UNARY || m->kind == MUT_BINARY))
        kind = (PrismOpKind) m->b;
      if (here && m->kind == MUT_REDUCTION_DIM)
        {
          if (prism_op_kind_is_reduction (op->kind))
            attrs.dim = m->b;
          else if (op->kind == PRISM_OP_RMS_NORM)
            attrs.norm_dims = (guint) m->b;
          else
            {
              if (m->b <= 0)
                return NULL;
              attrs.dimx = (guint) m->b;
            }
        }
      if (here && m->kind == MUT_SWAP_OPERANDS && op->n_inputs == 2)
        {
          guint t = in[0];
          in[0] = in[1];
          in[1] = t;
        }
      if (here && m->kind == MUT_REWRITE)
        {
          r = rewrite (out, b, op, map, in, &attrs, m);
          if (r < 0)
            return NULL;
          map[op->outputs[0]] = (guint) r;
          continue;
        }
      if (kind == PRISM_OP_CONSTANT)
        {
          const PrismTensor *ct = prism_graph_tensor (b, op->outputs[0]);
          r = prism_graph_add_constant (out, attrs.value, ct->ndims, ct->dtype, NULL);
        }
      else
        r = prism_graph_add (out, kind, in, prism_op_kind_arity (kind) == 1 ? 1 : op->n_inputs, &attrs,
                             NULL);
      if (r < 0)
        return NULL;
      if (here && m->kind == MUT_DUPLICATE)
        {
          guint again[2] = { (guint) r, in[op->n_inputs > 1 ? 1 : 0] };
          r = prism_graph_add (out, kind, again, op->n_inputs, &attrs, NULL);
          if (r < 0)
            return NULL;
        }
      map[op->outputs[0]] = (guint) r;
    }
  return g_steal_pointer (&out);
}

PrismGraph *
mut_apply (const PrismGraph *graph, const Mutation *m)
{
  g_autoptr(PrismGraph) dst = prism_graph_new ();
  g_autofree guint *map = g_new0 (guint, graph->tensors->len);
  int k = 0;

  prism_graph_set_name (dst, graph->name, graph->description);
  for (guint i = 0; i + 1 < graph->var_names->len; i++)
    prism_graph_add_var (dst, g_ptr_array_index (graph->var_names, i));
  for (guint i = 0; i < graph->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (graph, i);
      guint in[PRISM_MAX_OP_INPUTS];
      int r;

      for (guint j = 0; j < op->n_inputs; j++)
        in[j] = map[op->inputs[j]];
      switch ((int) op->kind)
        {
        case PRISM_OP_INPUT:
          {
            const PrismTensor *t = prism_graph_tensor (graph, op->outputs[0]);
            gint64 shape[PRISM_MAX_DIMS];
            if (!prism_tensor_get_shape (t, shape))
              return NULL;
            r = prism_graph_add_input (dst, op->name, t->ndims, shape, t->dtype, NULL);
            if (r < 0)
              return NULL;
            map[op->outputs[0]] = (guint) r;
          }
          break;
        case PRISM_OP_OUTPUT:
          if (prism_graph_add_output (dst, in[0], op->name, NULL) < 0)
            return NULL;
          break;
        case PRISM_OP_KERNEL:
          {
            g_autoptr(PrismGraph) body = NULL;
            if (m->kernel == k && m->kind == MUT_KERNEL_INPUTS)
              {
                guint t = in[m->a];
                in[m->a] = in[m->b];
                in[m->b] = t;
              }
            body = replay_body (m, k, op->body, dst, in, op->n_inputs);
            k++;
            if (body == NULL)
              return NULL;
            r = prism_graph_add_kernel (dst, in, op->n_inputs, body, NULL);
            if (r < 0)
              return NULL;
            for (guint o = 0; o < op->n_outputs; o++)
              map[op->outputs[o]] = prism_graph_op (dst, (guint) r)->outputs[o];
          }
          break;
        case PRISM_OP_CONSTANT:
          {
            const PrismTensor *ct = prism_graph_tensor (graph, op->outputs[0]);
            r = prism_graph_add_constant (dst, op->attrs.value, ct->ndims, ct->dtype, NULL);
            if (r < 0)
              return NULL;
            map[op->outputs[0]] = (guint) r;
          }
          break;
        default:
          r = prism_graph_add (dst, op->kind, in, op->n_inputs, &op->attrs, NULL);
          if (r < 0)
            return NULL;
          map[op->outputs[0]] = (guint) r;
          break;
        }
    }
  if (!prism_graph_validate (dst, NULL))
    return NULL;
  return g_steal_pointer (&dst);
}
