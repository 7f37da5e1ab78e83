/* prism-graph-region.c — a part of a program as a program of its own
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "prism-error.h"
#include "prism-graph-region.h"

#define BLOCK_DEPTH 6

static gboolean
is_boundary_kind (PrismOpKind kind)
{
  return kind == PRISM_OP_INPUT || kind == PRISM_OP_OUTPUT;
}

static int
compare_guint (gconstpointer a, gconstpointer b)
{
  guint x = *(const guint *) a, y = *(const guint *) b;

  return x < y ? -1 : x > y;
}

gboolean
prism_graph_region_contains (const PrismGraphRegion *region, guint op)
{
  guint index;

  return g_array_binary_search (region->ops, &op, compare_guint, &index);
}

/* Whether tensor @t is read by an op outside @region (an output op too), or by nothing. */
static gboolean
read_outside (const PrismGraph *graph, const PrismGraphRegion *region, guint t)
{
  gboolean read = FALSE;

  for (guint i = 0; i < graph->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (graph, i);

      for (guint k = 0; k < op->n_inputs; k++)
        if (op->inputs[k] == t)
          {
            if (!prism_graph_region_contains (region, i))
              return TRUE;
            read = TRUE;
          }
    }
  return !read;
}

static void
add_once (GArray *array, guint value)
{
  for (guint i = 0; i < array->len; i++)
    if (g_array_index (array, guint, i) == value)
      return;
  g_array_append_val (array, value);
}

PrismGraphRegion *
prism_graph_region_new (const PrismGraph *graph, const guint *ops, guint n_ops)
{
  PrismGraphRegion *region = g_new0 (PrismGraphRegion, 1);

  region->ops = g_array_new (FALSE, FALSE, sizeof (guint));
  region->inputs = g_array_new (FALSE, FALSE, sizeof (guint));
  region->outputs = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 0; i < n_ops; i++)
    if (ops[i] < graph->ops->len && !is_boundary_kind (prism_graph_op (graph, ops[i])->kind))
      add_once (region->ops, ops[i]);
  g_array_sort (region->ops, compare_guint);
  for (guint i = 0; i < region->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (graph, g_array_index (region->ops, guint, i));

      for (guint k = 0; k < op->n_inputs; k++)
        {
          const PrismTensor *t = prism_graph_tensor (graph, op->inputs[k]);
          const PrismOp *producer = prism_graph_op (graph, (guint) t->producer);

          if (!prism_graph_region_contains (region, (guint) t->producer) && producer->kind != PRISM_OP_CONSTANT)
            add_once (region->inputs, op->inputs[k]);
        }
      for (guint k = 0; k < op->n_outputs; k++)
        if (read_outside (graph, region, op->outputs[k]))
          add_once (region->outputs, op->outputs[k]);
    }
  return region;
}

void
prism_graph_region_free (PrismGraphRegion *region)
{
  if (region == NULL)
    return;
  g_array_unref (region->ops);
  g_array_unref (region->inputs);
  g_array_unref (region->outputs);
  g_free (region);
}

/* The name of the program input or output @t is, else "t<ID>". (transfer full) */
static char *
tensor_name (const PrismGraph *graph, guint t, gboolean as_output)
{
  const PrismOp *producer = prism_graph_op (graph, (guint) prism_graph_tensor (graph, t)->producer);

  if (!as_output && producer->kind == PRISM_OP_INPUT && producer->name != NULL)
    return g_strdup (producer->name);
  for (guint i = 0; as_output && i < graph->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (graph, i);
      if (op->kind == PRISM_OP_OUTPUT && op->inputs[0] == t && op->name != NULL)
        return g_strdup (op->name);
    }
  return g_strdup_printf ("t%u", t);
}

/* Copies op @index of @graph into @program, its operands through @map (old tensor id → new). */
static gboolean
copy_op (PrismGraph *program, const PrismGraph *graph, guint index, GHashTable *map, GError **error)
{
  const PrismOp *op = prism_graph_op (graph, index);
  guint inputs[PRISM_MAX_OP_INPUTS];
  int new_index;

  if (op->kind == PRISM_OP_CONSTANT)
    {
      const PrismTensor *t = prism_graph_tensor (graph, op->outputs[0]);
      int id = prism_graph_add_constant (program, op->attrs.value, t->ndims, t->dtype, error);

      if (id < 0)
        return FALSE;
      g_hash_table_insert (map, GUINT_TO_POINTER (op->outputs[0]), GUINT_TO_POINTER (id));
      return TRUE;
    }
  for (guint k = 0; k < op->n_inputs; k++)
    inputs[k] = GPOINTER_TO_UINT (g_hash_table_lookup (map, GUINT_TO_POINTER (op->inputs[k])));
  if (op->kind == PRISM_OP_KERNEL)
    new_index = prism_graph_add_kernel (program, inputs, op->n_inputs, op->body, error);
  else
    new_index = prism_graph_add_op (program, op->kind, inputs, op->n_inputs, &op->attrs, error);
  if (new_index < 0)
    return FALSE;
  for (guint k = 0; k < op->n_outputs; k++)
    g_hash_table_insert (map, GUINT_TO_POINTER (op->outputs[k]),
                         GUINT_TO_POINTER (prism_graph_op (program, (guint) new_index)->outputs[k]));
  return TRUE;
}

/* Constants read by the region but computed outside it are copied in. */
static gboolean
copy_outside_constants (PrismGraph *program, const PrismGraph *graph, const PrismGraphRegion *region,
                        GHashTable *map, GError **error)
{
  for (guint i = 0; i < region->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (graph, g_array_index (region->ops, guint, i));

      for (guint k = 0; k < op->n_inputs; k++)
        {
          guint producer = (guint) prism_graph_tensor (graph, op->inputs[k])->producer;

          if (prism_graph_op (graph, producer)->kind == PRISM_OP_CONSTANT
              && !g_hash_table_contains (map, GUINT_TO_POINTER (op->inputs[k]))
              && !copy_op (program, graph, producer, map, error))
            return FALSE;
        }
    }
  return TRUE;
}

PrismGraph *
prism_graph_region_extract (const PrismGraphRegion *region, const PrismGraph *graph, const char *name,
                            GError **error)
{
  g_autoptr(PrismGraph) program = prism_graph_new ();
  g_autoptr(GHashTable) map = g_hash_table_new (NULL, NULL);

  if (region->ops->len == 0)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_INVALID_GRAPH, "the region has no op");
      return NULL;
    }
  prism_graph_set_name (program, name, NULL);
  for (guint i = 0; i < region->inputs->len; i++)
    {
      guint t = g_array_index (region->inputs, guint, i);
      const PrismTensor *tensor = prism_graph_tensor (graph, t);
      g_autofree char *input_name = tensor_name (graph, t, FALSE);
      gint64 shape[PRISM_MAX_DIMS];
      int id;

      if (!prism_tensor_get_shape (tensor, shape))
        {
          g_set_error (error, PRISM_ERROR, PRISM_ERROR_INVALID_GRAPH,
                       "input %s of the region has symbolic sizes", input_name);
          return NULL;
        }
      id = prism_graph_add_input (program, input_name, tensor->ndims, shape, tensor->dtype, error);
      if (id < 0)
        return NULL;
      g_hash_table_insert (map, GUINT_TO_POINTER (t), GUINT_TO_POINTER (id));
    }
  if (!copy_outside_constants (program, graph, region, map, error))
    return NULL;
  for (guint i = 0; i < region->ops->len; i++)
    {
      guint index = g_array_index (region->ops, guint, i);
      const PrismOp *op = prism_graph_op (graph, index);

      /* A constant of the region read by its ops is copied already. */
      if (op->kind == PRISM_OP_CONSTANT && g_hash_table_contains (map, GUINT_TO_POINTER (op->outputs[0])))
        continue;
      if (!copy_op (program, graph, index, map, error))
        return NULL;
    }
  for (guint i = 0; i < region->outputs->len; i++)
    {
      guint t = g_array_index (region->outputs, guint, i);
      g_autofree char *output_name = tensor_name (graph, t, TRUE);

      if (prism_graph_add_output (program, GPOINTER_TO_UINT (g_hash_table_lookup (map, GUINT_TO_POINTER (t))),
                                  output_name, error) < 0)
        return NULL;
    }
  if (!prism_graph_validate (program, error))
    return NULL;
  return g_steal_pointer (&program);
}

/* Finding blocks ------------------------------------------------------------- */

/* The ops next to op @i: the producers of its operands and the readers of its outputs. */
static void
neighbours (const PrismGraph *graph, GPtrArray *readers, guint i, GArray *out)
{
  const PrismOp *op = prism_graph_op (graph, i);

  g_array_set_size (out, 0);
  for (guint k = 0; k < op->n_inputs; k++)
    {
      guint producer = (guint) prism_graph_tensor (graph, op->inputs[k])->producer;
      g_array_append_val (out, producer);
    }
  g_array_append_vals (out, ((GArray *) g_ptr_array_index (readers, i))->data,
                       ((GArray *) g_ptr_array_index (readers, i))->len);
}

/* A matmul and the non-matmul ops within BLOCK_DEPTH steps of it (breadth first). */
static GArray *
grow_block (const PrismGraph *graph, GPtrArray *readers, guint matmul)
{
  GArray *block = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr(GArray) next = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autofree guint *depth = g_new0 (guint, graph->ops->len);
  guint head = 0;

  g_array_append_val (block, matmul);
  depth[matmul] = 1;
  while (head < block->len && block->len < PRISM_GRAPH_REGION_BLOCK_MAX_OPS)
    {
      guint op = g_array_index (block, guint, head++);

      if (depth[op] > BLOCK_DEPTH)
        continue;
      neighbours (graph, readers, op, next);
      for (guint k = 0; k < next->len && block->len < PRISM_GRAPH_REGION_BLOCK_MAX_OPS; k++)
        {
          guint n = g_array_index (next, guint, k);
          PrismOpKind kind = prism_graph_op (graph, n)->kind;

          if (depth[n] != 0 || is_boundary_kind (kind) || kind == PRISM_OP_MATMUL || kind == PRISM_OP_CONSTANT)
            continue;
          depth[n] = depth[op] + 1;
          g_array_append_val (block, n);
        }
    }
  g_array_sort (block, compare_guint);
  return block;
}

static gboolean
blocks_overlap (GArray *a, GArray *b)
{
  for (guint i = 0; i < a->len; i++)
    for (guint j = 0; j < b->len; j++)
      if (g_array_index (a, guint, i) == g_array_index (b, guint, j))
        return TRUE;
  return FALSE;
}

static guint
union_size (GArray *a, GArray *b)
{
  guint n = a->len;

  for (guint j = 0; j < b->len; j++)
    {
      gboolean found = FALSE;
      for (guint i = 0; i < a->len && !found; i++)
        found = g_array_index (a, guint, i) == g_array_index (b, guint, j);
      n += !found;
    }
  return n;
}

static int
compare_first_op (gconstpointer a, gconstpointer b)
{
  const PrismGraphRegion *x = *(PrismGraphRegion *const *) a, *y = *(PrismGraphRegion *const *) b;
  guint fx = g_array_index (x->ops, guint, 0), fy = g_array_index (y->ops, guint, 0);

  return fx < fy ? -1 : fx > fy;
}

GPtrArray *
prism_graph_region_find_blocks (const PrismGraph *graph)
{
  g_autoptr(GPtrArray) readers = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  g_autoptr(GPtrArray) blocks = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  GPtrArray *regions = g_ptr_array_new_with_free_func ((GDestroyNotify) prism_graph_region_free);

  for (guint i = 0; i < graph->ops->len; i++)
    g_ptr_array_add (readers, g_array_new (FALSE, FALSE, sizeof (guint)));
  for (guint i = 0; i < graph->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (graph, i);
      for (guint k = 0; k < op->n_inputs; k++)
        g_array_append_val (g_ptr_array_index (readers, (guint) prism_graph_tensor (graph, op->inputs[k])->producer), i);
    }
  for (guint i = 0; i < graph->ops->len; i++)
    {
      GArray *block;
      gboolean merged = FALSE;

      if (prism_graph_op (graph, i)->kind != PRISM_OP_MATMUL)
        continue;
      block = grow_block (graph, readers, i);
      for (guint b = 0; b < blocks->len && !merged; b++)
        {
          GArray *other = g_ptr_array_index (blocks, b);

          if (blocks_overlap (other, block) && union_size (other, block) <= PRISM_GRAPH_REGION_BLOCK_MAX_OPS)
            {
              for (guint k = 0; k < block->len; k++)
                add_once (other, g_array_index (block, guint, k));
              merged = TRUE;
            }
        }
      if (merged)
        g_array_unref (block);
      else
        g_ptr_array_add (blocks, block);
    }
  for (guint b = 0; b < blocks->len; b++)
    {
      GArray *block = g_ptr_array_index (blocks, b);
      g_ptr_array_add (regions, prism_graph_region_new (graph, (const guint *) (void *) block->data, block->len));
    }
  g_ptr_array_sort (regions, compare_first_op);
  return regions;
}
