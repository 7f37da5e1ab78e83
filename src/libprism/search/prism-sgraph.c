/* prism-sgraph.c — sGraphs, rebuilding with new maps or shapes, canonical keys
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "prism-error.h"
#include "prism-sgraph.h"

PrismKernelConstraints *
prism_kernel_constraints_new (void)
{
  PrismKernelConstraints *c = g_new0 (PrismKernelConstraints, 1);

  c->equalities = g_array_new (FALSE, FALSE, sizeof (PrismDimEquality));
  memset (c->output_source, PRISM_DIM_REF_NONE, sizeof c->output_source);
  return c;
}

PrismKernelConstraints *
prism_kernel_constraints_copy (const PrismKernelConstraints *c)
{
  PrismKernelConstraints *copy;

  if (c == NULL)
    return NULL;
  copy = g_memdup2 (c, sizeof *c);
  copy->equalities = g_array_copy (c->equalities);
  return copy;
}

void
prism_kernel_constraints_free (PrismKernelConstraints *c)
{
  if (c == NULL)
    return;
  g_array_unref (c->equalities);
  g_free (c);
}

PrismSGraph *
prism_sgraph_new (const PrismGraph *graph, GPtrArray *constraints, gboolean symbolic)
{
  PrismSGraph *sg = g_new0 (PrismSGraph, 1);

  sg->graph = prism_graph_copy (graph);
  sg->constraints = g_ptr_array_new_with_free_func ((GDestroyNotify) prism_kernel_constraints_free);
  for (guint i = 0; constraints != NULL && i < constraints->len; i++)
    g_ptr_array_add (sg->constraints,
                     prism_kernel_constraints_copy (g_ptr_array_index (constraints, i)));
  sg->symbolic = symbolic;
  return sg;
}

void
prism_sgraph_free (PrismSGraph *sgraph)
{
  if (sgraph == NULL)
    return;
  prism_graph_unref (sgraph->graph);
  g_ptr_array_unref (sgraph->constraints);
  g_free (sgraph);
}

/* ------------------------------------------------------------------------ */
/* Rebuilding */

/* Adds to @dst an op like @op of @src on the tensors @in; returns its index. */
static int
add_op_like (PrismGraph *dst, const PrismGraph *src, const PrismOp *op, const guint *in,
             GError **error)
{
  if (op->kind == PRISM_OP_CONSTANT)
    {
      const PrismTensor *t = prism_graph_tensor (src, op->outputs[0]);
      if (prism_graph_add_constant (dst, op->attrs.value, t->ndims, t->dtype, error) < 0)
        return -1;
      return (int) dst->ops->len - 1;
    }
  return prism_graph_add_op (dst, op->kind, in, op->n_inputs, &op->attrs, error);
}

static PrismGraph *
rebuild_body (const PrismGraph *dst, const PrismGraph *src, const guint *kinputs,
              const PrismKernelMaps *km, GError **error)
{
  g_autoptr(PrismGraph) b = NULL;
  g_autofree guint *map = g_new0 (guint, src->tensors->len + 1);
  guint n_in = 0, n_out = 0;

  if (km != NULL)
    b = prism_block_graph_new (km->grid_ndims, km->grid, src->block_threads, km->forloop);
  else
    {
      b = prism_block_graph_new (src->grid_ndims, src->grid, src->block_threads, src->forloop);
      prism_block_graph_set_symbolic_maps (b, src->symbolic_maps);
    }

  for (guint i = 0; i < src->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (src, i);
      guint in[PRISM_MAX_OP_INPUTS];
      int r;

      for (guint k = 0; k < op->n_inputs; k++)
        in[k] = map[op->inputs[k]];
      if (op->kind == PRISM_OP_INPUT)
        {
          const PrismTensor *data = prism_graph_tensor (dst, kinputs[op->attrs.input_index]);
          const int *imap = km ? km->imap[n_in] : op->attrs.imap;
          int fmap = km ? km->fmap[n_in] : op->attrs.fmap;

          n_in++;
          r = prism_block_graph_add_input (b, op->attrs.input_index, data->ndims, data->dims,
                                           op->data_dtype, imap, fmap, error);
          if (r < 0)
            return NULL;
          map[op->outputs[0]] = (guint) r;
          continue;
        }
      if (op->kind == PRISM_OP_OUTPUT)
        {
          const int *omap = km ? km->omap[n_out] : op->attrs.omap;

          n_out++;
          if (prism_block_graph_add_output (b, in[0], omap, error) < 0)
            return NULL;
          continue;
        }
      r = add_op_like (b, src, op, in, error);
      if (r < 0)
        return NULL;
      for (guint o = 0; o < op->n_outputs; o++)
        map[op->outputs[o]] = prism_graph_op (b, (guint) r)->outputs[o];
    }
  return g_steal_pointer (&b);
}

PrismGraph *
prism_graph_rebuild (const PrismGraph *graph, const char * const *var_names,
                     const PrismKernelMaps * const *kernel_maps, guint n_kernel_maps,
                     PrismDimMapFunc map_dim, gpointer map_dim_data, GError **error)
{
  g_autoptr(PrismGraph) dst = prism_graph_new ();
  g_autofree guint *map = g_new0 (guint, graph->tensors->len + 1);
  const char * const *names = var_names ? var_names : prism_graph_var_names (graph);
  guint kernel_index = 0;

  g_return_val_if_fail (graph->level == PRISM_LEVEL_KERNEL, NULL);
  prism_graph_set_name (dst, graph->name, graph->description);
  for (guint i = 0; names[i] != NULL; i++)
    prism_graph_add_var (dst, names[i]);

  for (guint i = 0; i < graph->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (graph, i);
      guint in[PRISM_MAX_OP_INPUTS];
      int r;

      for (guint k = 0; k < op->n_inputs; k++)
        in[k] = map[op->inputs[k]];
      switch ((int) op->kind)
        {
        case PRISM_OP_INPUT:
          {
            const PrismTensor *t = prism_graph_tensor (graph, op->outputs[0]);
            gint64 shape[PRISM_MAX_DIMS];

            if (!prism_tensor_get_shape (t, shape))
              {
                g_set_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED,
                             "op %u (input): symbolic graph inputs cannot be rebuilt", i);
                return NULL;
              }
            for (guint d = 0; map_dim != NULL && d < t->ndims; d++)
              shape[d] = map_dim (shape[d], map_dim_data);
            r = prism_graph_add_input (dst, op->name, t->ndims, shape, t->dtype, error);
            if (r < 0)
              return NULL;
            map[op->outputs[0]] = (guint) r;
            continue;
          }
        case PRISM_OP_OUTPUT:
          if (prism_graph_add_output (dst, in[0], op->name, error) < 0)
            return NULL;
          continue;
        case PRISM_OP_KERNEL:
          {
            const PrismKernelMaps *km = kernel_index < n_kernel_maps && kernel_maps != NULL
                                        ? kernel_maps[kernel_index] : NULL;
            g_autoptr(PrismGraph) body = NULL;

            kernel_index++;
            body = rebuild_body (dst, op->body, in, km, error);
            if (body == NULL)
              {
                g_prefix_error (error, "op %u (kernel): ", i);
                return NULL;
              }
            r = prism_graph_add_kernel (dst, in, op->n_inputs, body, error);
          }
          break;
        default:
          r = add_op_like (dst, graph, op, in, error);
          break;
        }
      if (r < 0)
        return NULL;
      for (guint o = 0; o < op->n_outputs; o++)
        map[op->outputs[o]] = prism_graph_op (dst, (guint) r)->outputs[o];
    }
  return g_steal_pointer (&dst);
}

/* ------------------------------------------------------------------------ */
/* Canonical keys.  Every tensor gets a name built from its operator and its
 * operands' names, so the key does not depend on the order the ops were
 * added in (the search's canonical order differs from a hand-written one). */

typedef struct
{
  const PrismGraph *top;
  PrismKeyFlags flags;
} KeyContext;

static void append_kernel_name (GString *s, const KeyContext *ctx, const PrismGraph *g,
                                const PrismOp *op, char **knames);
static void free_names (char **names, guint n);

static void
append_attrs (GString *s, const PrismOp *op)
{
  switch ((int) op->kind)
    {
    case PRISM_OP_SUM:
    case PRISM_OP_MAX:
    case PRISM_OP_MEAN:
    case PRISM_OP_CONCAT:
      g_string_append_printf (s, "{%d}", op->attrs.dim);
      break;
    case PRISM_OP_TRANSPOSE:
      g_string_append_printf (s, "{%d,%d,%d,%d}", op->attrs.perm[0], op->attrs.perm[1],
                              op->attrs.perm[2], op->attrs.perm[3]);
      break;
    case PRISM_OP_CONSTANT:
      g_string_append_printf (s, "{%a}", op->attrs.value);
      break;
    case PRISM_OP_RMS_NORM:
      g_string_append_printf (s, "{%u,%a}", op->attrs.norm_dims, op->attrs.eps);
      break;
    case PRISM_OP_ACCUM_SUM_TODIMX:
      g_string_append_printf (s, "{%u}", op->attrs.dimx);
      break;
    default:
      break;
    }
}

static int
compare_strings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char * const *) a, *(char * const *) b);
}

/* Names of every tensor of @g.  @knames (kernel level) holds the name of the
 * kernel inputs a block graph reads; @perm (block level) renumbers grid axes. */
static char **
name_tensors (const KeyContext *ctx, const PrismGraph *g, char **knames, const int *perm)
{
  char **names = g_new0 (char *, g->tensors->len + 1);

  for (guint i = 0; i < g->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (g, i);
      GString *s;

      if (op->kind == PRISM_OP_OUTPUT)
        continue;
      if (op->kind == PRISM_OP_KERNEL)
        {
          GString *k = g_string_new (NULL);
          char **body_names;
          guint o = 0;

          append_kernel_name (k, ctx, g, op, names);
          /* Each output is named by the body tensor it writes (maps aside),
           * so the order of the outputs does not matter. */
          {
            KeyContext plain = { ctx->top, PRISM_KEY_STRUCTURE };
            char *in_names[PRISM_MAX_OP_INPUTS];
            for (guint j = 0; j < op->n_inputs; j++)
              in_names[j] = names[op->inputs[j]];
            body_names = name_tensors (&plain, op->body, in_names, NULL);
          }
          for (guint j = 0; j < op->body->ops->len && o < op->n_outputs; j++)
            {
              const PrismOp *bop = prism_graph_op (op->body, j);
              if (bop->kind == PRISM_OP_OUTPUT)
                names[op->outputs[o++]] = g_strdup_printf ("%s#%s", k->str, body_names[bop->inputs[0]]);
            }
          free_names (body_names, op->body->tensors->len);
          g_string_free (k, TRUE);
          continue;
        }
      s = g_string_new (NULL);
      if (op->kind == PRISM_OP_INPUT && g->level == PRISM_LEVEL_KERNEL)
        {
          guint ordinal = 0;
          for (guint j = 0; j < i; j++)
            ordinal += prism_graph_op (g, j)->kind == PRISM_OP_INPUT;
          g_string_append_printf (s, "x%u", ordinal);
        }
      else if (op->kind == PRISM_OP_INPUT)
        {
          g_string_append_printf (s, "tile(%s", knames[op->attrs.input_index]);
          if (ctx->flags & PRISM_KEY_MAPS)
            {
              g_string_append (s, ";m");
              /* New axis q is the old axis p with perm[p] == q. */
              for (guint q = 0; q < PRISM_MAX_GRID_DIMS; q++)
                for (guint p = 0; p < g->grid_ndims; p++)
                  if (perm[p] == (int) q)
                    g_string_append_printf (s, "%d,", op->attrs.imap[p]);
              g_string_append_printf (s, "f%d", op->attrs.fmap);
            }
          g_string_append_c (s, ')');
        }
      else
        {
          g_string_append (s, prism_op_kind_to_string (op->kind));
          append_attrs (s, op);
          g_string_append_c (s, '(');
          if (prism_op_kind_is_commutative (op->kind) && op->n_inputs == 2 &&
              strcmp (names[op->inputs[0]], names[op->inputs[1]]) > 0)
            g_string_append_printf (s, "%s,%s", names[op->inputs[1]], names[op->inputs[0]]);
          else
            for (guint k = 0; k < op->n_inputs; k++)
              g_string_append_printf (s, "%s%s", k ? "," : "", names[op->inputs[k]]);
          g_string_append_c (s, ')');
        }
      names[op->outputs[0]] = g_string_free (s, FALSE);
    }
  return names;
}

static void
free_names (char **names, guint n)
{
  for (guint i = 0; i < n; i++)
    g_free (names[i]);
  g_free (names);
}

/* The body's name under one renumbering of the grid axes. */
static char *
body_name (const KeyContext *ctx, const PrismGraph *b, char **knames, const int *perm)
{
  char **names = name_tensors (ctx, b, knames, perm);
  GString *s = g_string_new ("{");
  const char * const *vars = prism_graph_var_names (ctx->top);

  if (ctx->flags & PRISM_KEY_SIZES)
    {
      g_string_append (s, "grid=");
      for (guint q = 0; q < PRISM_MAX_GRID_DIMS; q++)
        for (guint p = 0; p < b->grid_ndims; p++)
          if (perm[p] == (int) q)
            {
              g_autofree char *d = prism_dim_to_string (b->grid[p], vars);
              g_string_append_printf (s, "%s,", d);
            }
      {
        g_autofree char *f = prism_dim_to_string (b->forloop, vars);
        g_string_append_printf (s, "F=%s;", f);
      }
    }
  {
    /* Outputs sorted: the order a kernel lists them in is no difference. */
    g_autoptr(GPtrArray) outs = g_ptr_array_new_with_free_func (g_free);
    for (guint i = 0; i < b->ops->len; i++)
      {
        const PrismOp *op = prism_graph_op (b, i);
        GString *o;

        if (op->kind != PRISM_OP_OUTPUT)
          continue;
        o = g_string_new (NULL);
        g_string_append_printf (o, "out(%s", names[op->inputs[0]]);
        if (ctx->flags & PRISM_KEY_MAPS)
          {
            g_string_append (o, ";o");
            for (guint q = 0; q < PRISM_MAX_GRID_DIMS; q++)
              for (guint p = 0; p < b->grid_ndims; p++)
                if (perm[p] == (int) q)
                  g_string_append_printf (o, "%d,", op->attrs.omap[p]);
          }
        g_string_append (o, ")");
        g_ptr_array_add (outs, g_string_free (o, FALSE));
      }
    g_ptr_array_sort (outs, compare_strings);
    for (guint i = 0; i < outs->len; i++)
      g_string_append (s, g_ptr_array_index (outs, i));
  }
  /* Every op once, sorted: shared subterms are counted as many times as
   * they are computed, which the output names alone would hide. */
  {
    g_autoptr(GPtrArray) all = g_ptr_array_new ();
    for (guint i = 0; i < b->ops->len; i++)
      {
        const PrismOp *op = prism_graph_op (b, i);
        if (op->kind != PRISM_OP_OUTPUT && op->n_outputs > 0)
          g_ptr_array_add (all, names[op->outputs[0]]);
      }
    g_ptr_array_sort (all, compare_strings);
    g_string_append_c (s, '|');
    for (guint i = 0; i < all->len; i++)
      g_string_append_printf (s, "%s;", (char *) g_ptr_array_index (all, i));
  }
  g_string_append_c (s, '}');
  free_names (names, b->tensors->len);
  return g_string_free (s, FALSE);
}

static gboolean
axis_is_trivial (const PrismGraph *b, guint p)
{
  return prism_dim_is_const (b->grid[p]) && b->grid[p]->value == 1;
}

static void
append_kernel_name (GString *s, const KeyContext *ctx, const PrismGraph *g, const PrismOp *op,
                    char **knames)
{
  const PrismGraph *b = op->body;
  char *in_names[PRISM_MAX_OP_INPUTS];
  g_autofree char *best = NULL;
  guint axes[PRISM_MAX_GRID_DIMS], n_axes = 0;
  int perm[PRISM_MAX_GRID_DIMS];
  static const guint perms[6][3] = {
    { 0, 1, 2 }, { 0, 2, 1 }, { 1, 0, 2 }, { 1, 2, 0 }, { 2, 0, 1 }, { 2, 1, 0 },
  };

  for (guint k = 0; k < op->n_inputs; k++)
    in_names[k] = knames[op->inputs[k]];
  for (guint p = 0; p < b->grid_ndims; p++)
    if (!axis_is_trivial (b, p))
      axes[n_axes++] = p;

  /* Try every order of the non-trivial axes; keep the smallest name. */
  for (guint pi = 0; pi < 6; pi++)
    {
      gboolean valid = TRUE;
      char *name;

      for (guint p = 0; p < PRISM_MAX_GRID_DIMS; p++)
        perm[p] = -1;
      for (guint j = 0; j < n_axes && valid; j++)
        {
          if (perms[pi][j] >= n_axes)
            valid = FALSE;
          else
            perm[axes[j]] = (int) perms[pi][j];
        }
      for (guint j = n_axes; j < 3 && valid; j++)
        if (perms[pi][j] != j)
          valid = FALSE;
      if (!valid)
        continue;
      name = body_name (ctx, b, in_names, perm);
      if (best == NULL || strcmp (name, best) < 0)
        {
          g_free (best);
          best = name;
        }
      else
        g_free (name);
    }
  g_string_append (s, "kernel(");
  {
    g_autoptr(GPtrArray) sorted = g_ptr_array_new ();
    for (guint k = 0; k < op->n_inputs; k++)
      g_ptr_array_add (sorted, in_names[k]);
    g_ptr_array_sort (sorted, compare_strings);
    for (guint k = 0; k < sorted->len; k++)
      g_string_append_printf (s, "%s%s", k ? "," : "", (char *) g_ptr_array_index (sorted, k));
  }
  g_string_append_printf (s, ")%s", best);
}

char *
prism_graph_canonical_key (const PrismGraph *graph, PrismKeyFlags flags)
{
  KeyContext ctx = { graph, flags };
  char **names;
  GString *s = g_string_new (NULL);
  g_autoptr(GPtrArray) all = g_ptr_array_new ();

  g_return_val_if_fail (graph->level == PRISM_LEVEL_KERNEL, NULL);
  names = name_tensors (&ctx, graph, NULL, NULL);
  for (guint i = 0; i < graph->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (graph, i);
      if (op->kind == PRISM_OP_OUTPUT)
        g_string_append_printf (s, "O(%s)", names[op->inputs[0]]);
      else if (op->kind != PRISM_OP_INPUT)
        for (guint o = 0; o < op->n_outputs; o++)
          g_ptr_array_add (all, names[op->outputs[o]]);
    }
  g_ptr_array_sort (all, compare_strings);
  g_string_append_c (s, '|');
  for (guint i = 0; i < all->len; i++)
    g_string_append_printf (s, "%s;", (char *) g_ptr_array_index (all, i));
  free_names (names, graph->tensors->len);
  return g_string_free (s, FALSE);
}

char *
prism_key_digest (const char *key)
{
  guint64 h = 0xcbf29ce484222325ull;

  for (const guchar *p = (const guchar *) key; *p; p++)
    {
      h ^= *p;
      h *= 0x100000001b3ull;
    }
  return g_strdup_printf ("%016" G_GINT64_MODIFIER "x", h);
}

gboolean
prism_block_graph_smem_bytes (const PrismGraph *block, const gint64 *values, guint n_values,
                              guint64 *out)
{
  guint64 total = 0;

  for (guint i = 0; i < block->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (block, i);
      const PrismTensor *t;
      guint64 n = 1;

      if (op->n_outputs == 0 || prism_op_kind_is_unary (op->kind) || op->kind == PRISM_OP_ACCUM ||
          op->kind == PRISM_OP_ACCUM_MAX || op->kind == PRISM_OP_ACCUM_RESCALE)
        continue;
      t = prism_graph_tensor (block, op->outputs[0]);
      for (guint d = 0; d < t->ndims; d++)
        {
          gint64 v;
          if (!prism_dim_eval (t->dims[d], values, n_values, &v) || v <= 0)
            return FALSE;
          n *= (guint64) v;
        }
      total += n * prism_dtype_size (t->dtype);
    }
  *out = total;
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* Recomputed values */

/* The name of what block op @i of @body computes, from its operands' names
 * in @names (borrowed); NULL when it is the tile it reads (an accumulator
 * over a loop of one iteration). */
static char *
block_value_name (const PrismGraph *body, guint i, GPtrArray *names)
{
  const PrismOp *op = prism_graph_op (body, i);
  const char *a, *b;
  GString *s;

  if (op->kind == PRISM_OP_INPUT)
    return g_strdup_printf ("in%u[%d,%d,%d|%d]", op->attrs.input_index, op->attrs.imap[0],
                            op->attrs.imap[1], op->attrs.imap[2], op->attrs.fmap);
  if (op->kind == PRISM_OP_ACCUM && prism_dim_is_const (body->forloop) &&
      prism_dim_get_const (body->forloop) == 1)
    return NULL;
  s = g_string_new (prism_op_kind_to_string (op->kind));
  g_string_append_printf (s, "{%d,%u,%u,%g,%d%d%d%d}", op->attrs.dim, op->attrs.dimx,
                          op->attrs.norm_dims, op->attrs.value, op->attrs.perm[0],
                          op->attrs.perm[1], op->attrs.perm[2], op->attrs.perm[3]);
  a = op->n_inputs > 0 ? g_ptr_array_index (names, op->inputs[0]) : "";
  b = op->n_inputs > 1 ? g_ptr_array_index (names, op->inputs[1]) : NULL;
  /* x + y and y + x are one value. */
  if (b != NULL && prism_op_kind_is_commutative (op->kind) && strcmp (a, b) > 0)
    {
      const char *t = a;
      a = b;
      b = t;
    }
  g_string_append_printf (s, "(%s", a);
  for (guint k = 1; k < op->n_inputs; k++)
    g_string_append_printf (s, ",%s", k == 1 && b != NULL ? b
                                      : (const char *) g_ptr_array_index (names, op->inputs[k]));
  g_string_append_c (s, ')');
  return g_string_free (s, FALSE);
}

static gboolean
body_recomputes (const PrismGraph *body, guint *block_op)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new_full (body->tensors->len, g_free);
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);

  g_ptr_array_set_size (names, body->tensors->len);
  for (guint i = 0; i < body->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (body, i);
      char *name;

      if (op->kind == PRISM_OP_OUTPUT || op->n_outputs == 0)
        continue;
      name = block_value_name (body, i, names);
      if (name == NULL)
        {
          /* The identity: its tile has its operand's name. */
          g_ptr_array_index (names, op->outputs[0]) =
            g_strdup (g_ptr_array_index (names, op->inputs[0]));
          continue;
        }
      if (g_hash_table_contains (seen, name))
        {
          g_free (name);
          if (block_op != NULL)
            *block_op = i;
          return TRUE;
        }
      g_ptr_array_index (names, op->outputs[0]) = name;
      g_hash_table_add (seen, name);
      /* Ops of several outputs are named by their first; the others
       * (none in the vocabulary today) by the slot. */
      for (guint o = 1; o < op->n_outputs; o++)
        g_ptr_array_index (names, op->outputs[o]) = g_strdup_printf ("%s#%u", name, o);
    }
  return FALSE;
}

gboolean
prism_graph_find_recomputed (const PrismGraph *graph, guint *kernel_op, guint *block_op)
{
  g_return_val_if_fail (graph != NULL, FALSE);
  for (guint i = 0; i < graph->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (graph, i);

      if (op->kind == PRISM_OP_KERNEL && op->body != NULL && body_recomputes (op->body, block_op))
        {
          if (kernel_op != NULL)
            *kernel_op = i;
          return TRUE;
        }
    }
  return FALSE;
}
