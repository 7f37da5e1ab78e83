/* prism-param-instantiate.c — choosing grid sizes and loop ranges
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "prism-error.h"
#include "prism-kernel-plan.h"
#include "prism-param-instantiate.h"
#include "prism-search.h"
#include "prism-sgraph.h"

#define DEFAULT_SMEM (96 * 1024)
#define DEFAULT_BLOCKS 4096
#define DEFAULT_KEEP 5

void
prism_param_stats_add (PrismParamStats *into, const PrismParamStats *from)
{
  into->assignments += from->assignments;
  into->indivisible += from->indivisible;
  into->blocks += from->blocks;
  into->smem += from->smem;
  into->threads += from->threads;
  into->valid += from->valid;
}

void
prism_param_assignment_free (PrismParamAssignment *assignment)
{
  if (assignment == NULL)
    return;
  g_free (assignment->values);
  g_free (assignment);
}

/* ------------------------------------------------------------------------ */
/* Candidates of one variable */

static gint64
gcd64 (gint64 a, gint64 b)
{
  while (b != 0)
    {
      gint64 t = a % b;
      a = b;
      b = t;
    }
  return a;
}

/* Product of the constant factors of a product node. */
static gint64
const_factor (const PrismDim *d)
{
  if (d->kind == PRISM_DIM_CONST)
    return d->value;
  if (d->kind == PRISM_DIM_MUL)
    return const_factor (d->a) * const_factor (d->b);
  return 1;
}

static gboolean
has_factor_var (const PrismDim *d, guint var)
{
  if (d->kind == PRISM_DIM_VAR)
    return d->value == (gint64) var;
  if (d->kind == PRISM_DIM_MUL)
    return has_factor_var (d->a, var) || has_factor_var (d->b, var);
  return FALSE;
}

/* gcd of every C in a C·…/(…·var·…) form within @d. */
static void
collect (const PrismDim *d, guint var, gint64 *g)
{
  if (d == NULL)
    return;
  if (d->kind == PRISM_DIM_DIV && has_factor_var (d->b, var))
    *g = gcd64 (*g, const_factor (d->a));
  collect (d->a, var, g);
  collect (d->b, var, g);
}

static void
collect_graph (const PrismGraph *g, guint var, gint64 *gcd, gboolean *loop)
{
  for (guint i = 0; i < g->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (g, i);
      const PrismGraph *b = op->body;

      if (b == NULL)
        continue;
      if (prism_dim_has_var (b->forloop, var))
        *loop = TRUE;
      for (guint t = 0; t < b->tensors->len; t++)
        {
          const PrismTensor *tt = prism_graph_tensor (b, t);
          for (guint d = 0; d < tt->ndims; d++)
            collect (tt->dims[d], var, gcd);
        }
    }
}

gboolean
prism_param_var_candidates (const PrismGraph *graph, guint var, GArray *out)
{
  gint64 g = 0;
  gboolean loop = FALSE;

  g_array_set_size (out, 0);
  collect_graph (graph, var, &g, &loop);
  if (g <= 0)
    return FALSE;
  prism_search_size_candidates (g, loop, out);
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* Enumeration per kernel */

typedef struct
{
  const PrismGraph *graph;
  const PrismGpuTarget *target;
  guint op_index;
  guint64 smem_limit;
  guint max_blocks;
  guint keep;
  guint n_values;
  gint64 *values;
  guint vars[2 * PRISM_MAX_GRID_DIMS + 2];
  gboolean stopped;
  guint n_vars;
  GArray *cands[2 * PRISM_MAX_GRID_DIMS + 2];
  GPtrArray *best;          /* PrismParamAssignment, sorted, ≤ keep */
  PrismParamStats *stats;
  GPtrArray *var_dims;      /* distinct dims of the body that hold a variable (borrowed) */
} KernelEnum;

static int
compare_assignments (gconstpointer a, gconstpointer b)
{
  const PrismParamAssignment *x = *(PrismParamAssignment * const *) a;
  const PrismParamAssignment *y = *(PrismParamAssignment * const *) b;

  if (x->predicted_us != y->predicted_us)
    return x->predicted_us < y->predicted_us ? -1 : 1;
  /* Ties: the earlier enumerated (smaller values) first, for determinism. */
  for (guint v = 0; v < x->n_values; v++)
    if (x->values[v] != y->values[v])
      return x->values[v] < y->values[v] ? -1 : 1;
  return 0;
}

static gboolean
var_dims_divide (KernelEnum *e)
{
  for (guint i = 0; i < e->var_dims->len; i++)
    {
      gint64 v;
      if (!prism_dim_eval (g_ptr_array_index (e->var_dims, i), e->values, e->n_values, &v) || v <= 0)
        return FALSE;
    }
  return TRUE;
}

static void
try_assignment (KernelEnum *e)
{
  const PrismOp *op = prism_graph_op (e->graph, e->op_index);
  const PrismGraph *b = op->body;
  guint64 blocks = 1;
  PrismKernelPlanOptions po = { 0, };
  g_autoptr(PrismKernelPlan) plan = NULL;
  g_autoptr(GError) error = NULL;
  PrismParamAssignment *a;

  e->stats->assignments++;
  /* The block count first: the cheapest test. */
  for (guint p = 0; p < b->grid_ndims; p++)
    {
      gint64 v;
      if (!prism_dim_eval (b->grid[p], e->values, e->n_values, &v) || v <= 0)
        {
          e->stats->indivisible++;
          return;
        }
      blocks *= (guint64) v;
    }
  if (blocks > e->max_blocks)
    {
      e->stats->blocks++;
      return;
    }
  if (!var_dims_divide (e))
    {
      e->stats->indivisible++;
      return;
    }
  if (b->block_threads > e->target->max_threads_per_block)
    {
      e->stats->threads++;
      return;
    }
  /* The kernel as the emitter will generate it: its shared memory (ring
   * included) decides whether it fits, its launch account what it costs. */
  po.target = e->target;
  po.sm = e->target->compute_capability;
  po.smem_limit = e->smem_limit;
  plan = prism_kernel_plan_new (b, e->values, e->n_values, &po, &error);
  if (plan == NULL)
    {
      if (g_error_matches (error, PRISM_ERROR, PRISM_ERROR_LIMIT))
        e->stats->smem++;
      else
        e->stats->indivisible++;
      return;
    }
  e->stats->valid++;
  a = g_new0 (PrismParamAssignment, 1);
  a->n_values = e->n_values;
  a->values = g_memdup2 (e->values, MAX (e->n_values, 1) * sizeof (gint64));
  /* Its combine kernel, when it has one, included; never below cuBLASLt's
   * GEMM for a kernel of one matmul (prism_cost_model_floor_at_vendor()). */
  {
    PrismOpCost cost = { 0, };

    cost.us = prism_cost_model_plan_us (e->target, plan);
    prism_cost_model_floor_at_vendor (e->target, e->graph, e->op_index, &cost);
    a->predicted_us = cost.us;
  }
  g_ptr_array_add (e->best, a);
  g_ptr_array_sort (e->best, compare_assignments);
  if (e->best->len > e->keep)
    g_ptr_array_set_size (e->best, e->keep);
}

/* Recursion over the kernel's size variables: at most
 * G_N_ELEMENTS (e->vars) (8) levels. */
static void
enumerate (KernelEnum *e, guint k)
{
  /* The product of the candidates can be large: a stopped search (see
   * prism_cancelled()) does not wait for it. */
  if (e->stopped || (e->stopped = prism_cancelled ()))
    return;
  if (k == e->n_vars)
    {
      try_assignment (e);
      return;
    }
  for (guint j = 0; j < e->cands[k]->len; j++)
    {
      e->values[e->vars[k]] = g_array_index (e->cands[k], gint64, j);
      enumerate (e, k + 1);
    }
  e->values[e->vars[k]] = 0;
}

static void
add_dim_vars (KernelEnum *e, const PrismDim *d)
{
  g_autoptr(GHashTable) set = g_hash_table_new (NULL, NULL);
  GHashTableIter it;
  gpointer key;

  prism_dim_collect_vars (d, set);
  g_hash_table_iter_init (&it, set);
  while (g_hash_table_iter_next (&it, &key, NULL))
    {
      guint v = GPOINTER_TO_UINT (key) - 1;
      gboolean seen = FALSE;
      for (guint j = 0; j < e->n_vars; j++)
        seen |= e->vars[j] == v;
      if (!seen && e->n_vars < G_N_ELEMENTS (e->vars))
        e->vars[e->n_vars++] = v;
    }
}

static int
compare_guint (gconstpointer a, gconstpointer b)
{
  guint x = *(const guint *) a, y = *(const guint *) b;
  return x < y ? -1 : x > y;
}

/* The best assignments of the variables of kernel op @op_index. */
static GPtrArray *
tune_kernel (const PrismGraph *graph, guint op_index, const PrismGpuTarget *target,
             guint64 smem_limit, guint max_blocks, guint keep, guint n_values,
             PrismParamStats *stats)
{
  const PrismGraph *b = prism_graph_op (graph, op_index)->body;
  KernelEnum e = { 0, };

  e.graph = graph;
  e.target = target;
  e.op_index = op_index;
  e.smem_limit = smem_limit;
  e.max_blocks = max_blocks;
  e.keep = keep;
  e.n_values = n_values;
  e.values = g_new0 (gint64, MAX (n_values, 1));
  e.best = g_ptr_array_new_with_free_func ((GDestroyNotify) prism_param_assignment_free);
  e.stats = stats;
  for (guint p = 0; p < b->grid_ndims; p++)
    add_dim_vars (&e, b->grid[p]);
  add_dim_vars (&e, b->forloop);
  /* Every dim that holds a variable, once: the divisibility test. */
  e.var_dims = g_ptr_array_new ();
  for (guint t = 0; t <= b->tensors->len + b->ops->len; t++)
    {
      PrismDim * const *dims = NULL;
      guint nd = 0;

      if (t < b->tensors->len)
        {
          const PrismTensor *tt = prism_graph_tensor (b, t);
          dims = tt->dims;
          nd = tt->ndims;
        }
      else if (t - b->tensors->len < b->ops->len)
        {
          const PrismOp *bop = prism_graph_op (b, t - b->tensors->len);
          dims = bop->data_dims;
          nd = bop->data_ndims;
        }
      for (guint d = 0; d < nd; d++)
        {
          gboolean seen = prism_dim_is_const (dims[d]);
          for (guint j = 0; j < e.var_dims->len && !seen; j++)
            seen = prism_dim_equal (g_ptr_array_index (e.var_dims, j), dims[d]);
          if (!seen)
            g_ptr_array_add (e.var_dims, dims[d]);
        }
    }
  qsort (e.vars, e.n_vars, sizeof (guint), compare_guint);
  for (guint k = 0; k < e.n_vars; k++)
    {
      e.cands[k] = g_array_new (FALSE, FALSE, sizeof (gint64));
      if (!prism_param_var_candidates (graph, e.vars[k], e.cands[k]) || e.cands[k]->len == 0)
        {
          /* A variable that splits nothing can only be 1. */
          gint64 one = 1;
          g_array_set_size (e.cands[k], 0);
          g_array_append_val (e.cands[k], one);
        }
    }
  enumerate (&e, 0);
  g_ptr_array_unref (e.var_dims);
  for (guint k = 0; k < e.n_vars; k++)
    g_array_unref (e.cands[k]);
  g_free (e.values);
  return e.best;
}

GPtrArray *
prism_param_instantiate (const PrismGraph *graph, const PrismGpuTarget *target,
                         const PrismParamOptions *options, PrismParamStats *stats)
{
  GPtrArray *result = g_ptr_array_new_with_free_func ((GDestroyNotify) prism_param_assignment_free);
  g_autoptr(GPtrArray) per_kernel = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  g_autoptr(GPtrArray) combos = NULL;
  PrismParamStats local = { 0, };
  guint64 smem_limit = options && options->smem_limit ? options->smem_limit
                       : MIN ((guint64) DEFAULT_SMEM, (guint64) target->smem_per_block_kb * 1024);
  guint max_blocks = options && options->max_blocks ? options->max_blocks : DEFAULT_BLOCKS;
  guint keep = options && options->keep ? options->keep : DEFAULT_KEEP;
  const char * const *names = prism_graph_var_names (graph);
  double fixed_us = 0;
  guint n_values = 0;

  if (stats == NULL)
    stats = &local;
  while (names[n_values] != NULL)
    n_values++;

  for (guint i = 0; i < graph->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (graph, i);
      PrismOpCost c;

      if (op->kind == PRISM_OP_INPUT || op->kind == PRISM_OP_OUTPUT)
        continue;
      if (op->kind == PRISM_OP_KERNEL)
        {
          GPtrArray *best = tune_kernel (graph, i, target, smem_limit, max_blocks, keep, n_values,
                                         stats);
          if (best->len == 0)
            {
              g_ptr_array_unref (best);
              return result;
            }
          g_ptr_array_add (per_kernel, best);
          continue;
        }
      if (!prism_cost_model_op (target, graph, i, NULL, 0, &c))
        return result;
      fixed_us += c.us;
    }

  /* Combine the kernels' best assignments (their variables are disjoint). */
  combos = g_ptr_array_new_with_free_func ((GDestroyNotify) prism_param_assignment_free);
  {
    PrismParamAssignment *seed = g_new0 (PrismParamAssignment, 1);
    seed->n_values = n_values;
    seed->values = g_new0 (gint64, MAX (n_values, 1));
    seed->predicted_us = fixed_us;
    g_ptr_array_add (combos, seed);
  }
  for (guint k = 0; k < per_kernel->len; k++)
    {
      GPtrArray *best = g_ptr_array_index (per_kernel, k);
      g_autoptr(GPtrArray) next = g_ptr_array_new_with_free_func ((GDestroyNotify) prism_param_assignment_free);

      for (guint a = 0; a < combos->len; a++)
        for (guint j = 0; j < best->len; j++)
          {
            const PrismParamAssignment *x = g_ptr_array_index (combos, a);
            const PrismParamAssignment *y = g_ptr_array_index (best, j);
            PrismParamAssignment *z = g_new0 (PrismParamAssignment, 1);

            z->n_values = n_values;
            z->values = g_memdup2 (x->values, MAX (n_values, 1) * sizeof (gint64));
            for (guint v = 0; v < n_values; v++)
              if (y->values[v] != 0)
                z->values[v] = y->values[v];
            z->predicted_us = x->predicted_us + y->predicted_us;
            g_ptr_array_add (next, z);
          }
      g_ptr_array_sort (next, compare_assignments);
      if (next->len > keep)
        g_ptr_array_set_size (next, keep);
      g_ptr_array_unref (combos);
      combos = g_steal_pointer (&next);
    }
  for (guint a = 0; a < combos->len; a++)
    g_ptr_array_add (result, g_steal_pointer (&g_ptr_array_index (combos, a)));
  g_ptr_array_set_free_func (combos, NULL);
  return result;
}

GPtrArray *
prism_param_tune_kernel (const PrismGraph *graph, guint op_index, const PrismGpuTarget *target,
                         const PrismParamOptions *options, PrismParamStats *stats)
{
  PrismParamStats local = { 0, };
  guint64 smem_limit = options && options->smem_limit ? options->smem_limit
                       : MIN ((guint64) DEFAULT_SMEM, (guint64) target->smem_per_block_kb * 1024);
  guint max_blocks = options && options->max_blocks ? options->max_blocks : DEFAULT_BLOCKS;
  guint keep = options && options->keep ? options->keep : DEFAULT_KEEP;
  const char * const *names = prism_graph_var_names (graph);
  guint n_values = 0;

  g_return_val_if_fail (op_index < graph->ops->len &&
                        prism_graph_op (graph, op_index)->kind == PRISM_OP_KERNEL, NULL);
  while (names[n_values] != NULL)
    n_values++;
  return tune_kernel (graph, op_index, target, smem_limit, max_blocks, keep, n_values,
                      stats ? stats : &local);
}
