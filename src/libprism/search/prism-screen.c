/* prism-screen.c — a fast randomized screen of candidates against the program
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>
#include <gio/gio.h>

#include "prism-error.h"
#include "prism-interp.h"
#include "prism-screen.h"
#include "prism-sgraph.h"

#define SMALL_KEEP 4   /* sizes up to this stay as they are */

struct _PrismScreen
{
  PrismGraph *reference;
  guint n_seeds;
  guint64 first_seed;
  double tolerance;
  GHashTable *shrink;      /* original size → small size (gint64 in pointers) */
  PrismGraph *small_ref;
  GPtrArray *small_inputs; /* per seed: GPtrArray of PrismBuffer */
  GPtrArray *small_outputs;

  GMutex lock;             /* guards the lazily computed full-size data */
  GPtrArray *full_inputs;
  GPtrArray *full_outputs;
};

static gint64
shrink_dim (gint64 value, gpointer user_data)
{
  GHashTable *shrink = user_data;
  gpointer v;

  if (g_hash_table_lookup_extended (shrink, GSIZE_TO_POINTER ((gsize) value), NULL, &v))
    return (gint64) GPOINTER_TO_SIZE (v);
  return value;
}

static const PrismInterpOptions interp_options = { PRISM_PRECISION_F64, 1 };

static GPtrArray *
run (const PrismGraph *graph, GPtrArray *inputs, GError **error)
{
  return prism_interp_run (graph, (PrismBuffer * const *) inputs->pdata, inputs->len,
                           &interp_options, error);
}

/* Runs @graph on every seed's inputs; NULL with @error on failure. */
static GPtrArray *
run_seeds (const PrismGraph *graph, GPtrArray *inputs_per_seed, GError **error)
{
  g_autoptr(GPtrArray) outs = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);

  for (guint s = 0; s < inputs_per_seed->len; s++)
    {
      GPtrArray *o = run (graph, g_ptr_array_index (inputs_per_seed, s), error);
      if (o == NULL)
        return NULL;
      g_ptr_array_add (outs, o);
    }
  return g_steal_pointer (&outs);
}

static GPtrArray *
make_inputs (const PrismGraph *graph, guint n_seeds, guint64 first_seed)
{
  GPtrArray *per_seed = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);

  for (guint s = 0; s < n_seeds; s++)
    g_ptr_array_add (per_seed, prism_interp_make_inputs (graph, first_seed + s));
  return per_seed;
}

static int
compare_gint64 (gconstpointer a, gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;
  return x < y ? -1 : x > y;
}

PrismScreen *
prism_screen_new (const PrismGraph *reference, guint n_seeds, guint64 first_seed,
                        double tolerance, GError **error)
{
  g_autoptr(GArray) sizes = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GHashTable) seen = g_hash_table_new (NULL, NULL);
  PrismScreen *check;
  gint64 next = 8;   /* 8, 16, 24 …: a split by 4 and by 2 divides each */

  g_return_val_if_fail (reference != NULL, NULL);
  if (!prism_graph_is_concrete (reference))
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED,
                   "the randomized check needs a program with concrete sizes");
      return NULL;
    }
  check = g_new0 (PrismScreen, 1);
  check->reference = prism_graph_ref ((PrismGraph *) reference);
  check->n_seeds = MAX (n_seeds, 1);
  check->first_seed = first_seed;
  check->tolerance = tolerance > 0 ? tolerance : 1e-9;
  g_mutex_init (&check->lock);

  /* Distinct sizes stay distinct and keep their order. */
  for (guint i = 0; i < reference->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (reference, i);
      const PrismTensor *t;

      if (op->kind != PRISM_OP_INPUT)
        continue;
      t = prism_graph_tensor (reference, op->outputs[0]);
      for (guint d = 0; d < t->ndims; d++)
        if (g_hash_table_add (seen, GSIZE_TO_POINTER ((gsize) t->dims[d]->value)))
          g_array_append_val (sizes, t->dims[d]->value);
    }
  g_array_sort (sizes, compare_gint64);
  check->shrink = g_hash_table_new (NULL, NULL);
  for (guint i = 0; i < sizes->len; i++)
    {
      gint64 v = g_array_index (sizes, gint64, i);
      gint64 to = v <= SMALL_KEEP ? v : MIN (v, next);

      if (v > SMALL_KEEP && to == next)
        next += 8;
      g_hash_table_insert (check->shrink, GSIZE_TO_POINTER ((gsize) v), GSIZE_TO_POINTER ((gsize) to));
    }

  check->small_ref = prism_graph_rebuild (reference, NULL, NULL, 0, shrink_dim, check->shrink,
                                          error);
  if (check->small_ref == NULL)
    goto fail;
  /* Milliseconds at small shapes, which a stop of the caller (its current
   * cancellable, prism_cancelled ()) must not turn into a failed setup: they
   * run under a cancellable of their own. */
  {
    g_autoptr(GCancellable) shield = g_cancellable_new ();

    g_cancellable_push_current (shield);
    check->small_inputs = make_inputs (check->small_ref, check->n_seeds, first_seed);
    check->small_outputs = run_seeds (check->small_ref, check->small_inputs, error);
    g_cancellable_pop_current (shield);
  }
  if (check->small_outputs == NULL)
    goto fail;
  return check;

fail:
  g_prefix_error (error, "randomized check: ");
  prism_screen_free (check);
  return NULL;
}

void
prism_screen_free (PrismScreen *check)
{
  if (check == NULL)
    return;
  prism_graph_unref (check->reference);
  g_clear_pointer (&check->small_ref, prism_graph_unref);
  g_clear_pointer (&check->shrink, g_hash_table_unref);
  g_clear_pointer (&check->small_inputs, g_ptr_array_unref);
  g_clear_pointer (&check->small_outputs, g_ptr_array_unref);
  g_clear_pointer (&check->full_inputs, g_ptr_array_unref);
  g_clear_pointer (&check->full_outputs, g_ptr_array_unref);
  g_mutex_clear (&check->lock);
  g_free (check);
}

/* Compares @outs (per seed) with @expected; fills @result. */
static void
compare (PrismScreen *check, GPtrArray *outs, GPtrArray *expected, PrismScreenResult *result)
{
  result->ok = TRUE;
  result->max_error = 0;
  for (guint s = 0; s < outs->len; s++)
    {
      GPtrArray *got = g_ptr_array_index (outs, s), *want = g_ptr_array_index (expected, s);

      if (got->len != want->len)
        {
          result->ok = FALSE;
          result->max_error = G_MAXDOUBLE;
          return;
        }
      for (guint o = 0; o < got->len; o++)
        {
          const PrismBuffer *a = g_ptr_array_index (got, o), *b = g_ptr_array_index (want, o);
          double e = prism_buffer_same_shape (a, b) ? prism_buffer_max_rel_error (a, b) : G_MAXDOUBLE;

          if (!(e <= check->tolerance))
            result->ok = FALSE;
          if (!(e <= result->max_error))
            result->max_error = e;
        }
    }
}

/* A concrete grid size or loop range larger than 1 becomes a variable, so
 * the shrunk graph can use sizes that divide the shrunk dims. */
static PrismGraph *
symbolize_and_shrink (PrismScreen *check, const PrismGraph *candidate, GError **error)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) owned_dims = g_ptr_array_new_with_free_func ((GDestroyNotify) prism_dim_unref);
  g_autoptr(GPtrArray) maps = g_ptr_array_new_with_free_func (g_free);
  const char * const *old = prism_graph_var_names (candidate);
  guint n_vars = 0;

  for (; old[n_vars] != NULL; n_vars++)
    g_ptr_array_add (names, g_strdup (old[n_vars]));
  for (guint i = 0; i < candidate->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (candidate, i);
      const PrismGraph *b = op->body;
      PrismKernelMaps *km;
      gboolean concrete = FALSE;
      guint n_in = 0, n_out = 0;

      if (op->kind != PRISM_OP_KERNEL)
        continue;
      for (guint p = 0; p < b->grid_ndims; p++)
        concrete |= prism_dim_is_const (b->grid[p]) && b->grid[p]->value > 1;
      concrete |= prism_dim_is_const (b->forloop) && b->forloop->value > 1;
      if (!concrete)
        {
          g_ptr_array_add (maps, NULL);
          continue;
        }
      km = g_new0 (PrismKernelMaps, 1);
      km->grid_ndims = b->grid_ndims;
      for (guint p = 0; p <= b->grid_ndims; p++)
        {
          const PrismDim *d = p < b->grid_ndims ? b->grid[p] : b->forloop;
          PrismDim *nd;

          if (prism_dim_is_const (d) && d->value > 1)
            {
              g_ptr_array_add (names, g_strdup_printf ("s%u", n_vars));
              nd = prism_dim_var (n_vars++);
            }
          else
            nd = prism_dim_ref (d);
          g_ptr_array_add (owned_dims, nd);
          if (p < b->grid_ndims)
            km->grid[p] = nd;
          else
            km->forloop = nd;
        }
      for (guint j = 0; j < b->ops->len; j++)
        {
          const PrismOp *bop = prism_graph_op (b, j);
          if (bop->kind == PRISM_OP_INPUT && n_in < PRISM_MAX_OP_INPUTS)
            {
              memcpy (km->imap[n_in], bop->attrs.imap, sizeof km->imap[n_in]);
              km->fmap[n_in++] = bop->attrs.fmap;
            }
          else if (bop->kind == PRISM_OP_OUTPUT && n_out < PRISM_MAX_OP_OUTPUTS)
            memcpy (km->omap[n_out++], bop->attrs.omap, sizeof km->omap[0]);
        }
      g_ptr_array_add (maps, km);
    }
  g_ptr_array_add (names, NULL);
  return prism_graph_rebuild (candidate, (const char * const *) names->pdata,
                              (const PrismKernelMaps * const *) maps->pdata, maps->len,
                              shrink_dim, check->shrink, error);
}

/* Tries 2 and 4 on alternate variables (so that sizes that must differ
 * do, and a graph right only when two sizes are equal is caught), then 2
 * everywhere; where that does not divide, drops variables to 1 one at a
 * time, then all of them. */
static void
describe_sizes (const PrismGraph *g, const gint64 *values, guint n, PrismScreenResult *result)
{
  GString *s = g_string_new (NULL);
  const char * const *names = prism_graph_var_names (g);

  for (guint i = 0; i < g->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (g, i);
      const PrismTensor *t;

      if (op->kind != PRISM_OP_INPUT)
        continue;
      t = prism_graph_tensor (g, op->outputs[0]);
      g_string_append_printf (s, "%s%s:", s->len ? " " : "", op->name ? op->name : "in");
      for (guint d = 0; d < t->ndims; d++)
        g_string_append_printf (s, "%s%" G_GINT64_FORMAT, d ? "x" : "", prism_dim_get_const (t->dims[d]));
    }
  for (guint v = 0; v < n; v++)
    g_string_append_printf (s, "%s%s=%" G_GINT64_FORMAT, v ? ", " : "; ", names[v], values[v]);
  g_strlcpy (result->sizes, s->str, sizeof result->sizes);
  g_string_free (s, TRUE);
}

static PrismGraph *
instantiate_small (const PrismGraph *g, guint round, PrismScreenResult *result, GError **error)
{
  guint n = 0;
  const char * const *names = prism_graph_var_names (g);
  g_autofree gint64 *values = NULL;
  PrismGraph *r;

  while (names[n] != NULL)
    n++;
  values = g_new (gint64, MAX (n, 1));
  /* Round r gives variable v the value 2 or 4 by bit r of v: over the
   * rounds, every two variables differ at least once. */
  for (guint v = 0; v < n; v++)
    values[v] = (v >> round) & 1 ? 4 : 2;
  if ((r = prism_graph_instantiate (g, values, n, NULL)) != NULL)
    goto done;
  for (guint v = 0; v < n; v++)
    values[v] = 2;
  if ((r = prism_graph_instantiate (g, values, n, NULL)) != NULL)
    goto done;
  for (guint v = 0; v < n; v++)
    {
      values[v] = 1;
      if ((r = prism_graph_instantiate (g, values, n, NULL)) != NULL)
        goto done;
    }
  if ((r = prism_graph_instantiate (g, values, n, error)) == NULL)
    return NULL;
done:
  describe_sizes (r, values, n, result);
  return r;
}

gboolean
prism_screen_check (PrismScreen *check, const PrismGraph *candidate,
                          PrismScreenResult *result, GError **error)
{
  gint64 start = g_get_monotonic_time ();
  g_autoptr(PrismGraph) small = NULL;
  g_autoptr(PrismGraph) concrete = NULL;
  g_autoptr(GPtrArray) outs = NULL;

  memset (result, 0, sizeof *result);
  result->shrunk = TRUE;
  result->n_seeds = check->n_seeds;
  result->first_seed = check->first_seed;
  small = symbolize_and_shrink (check, candidate, error);
  if (small == NULL)
    return FALSE;
  {
    const char * const *names = prism_graph_var_names (small);
    guint n = 0, rounds = 1;
    double worst = 0;
    gboolean ok = TRUE;

    while (names[n] != NULL)
      n++;
    while ((1u << rounds) < n)
      rounds++;
    for (guint r = 0; r < rounds && ok; r++)
      {
        PrismScreenResult one = *result;

        concrete = instantiate_small (small, r, r == 0 ? result : &one, error);
        if (concrete == NULL)
          return FALSE;
        outs = run_seeds (concrete, check->small_inputs, error);
        if (outs == NULL)
          return FALSE;
        compare (check, outs, check->small_outputs, &one);
        ok = one.ok;
        worst = MAX (worst, one.max_error);
        g_clear_pointer (&concrete, prism_graph_unref);
        g_clear_pointer (&outs, g_ptr_array_unref);
      }
    result->ok = ok;
    result->max_error = worst;
  }
  result->seconds = (g_get_monotonic_time () - start) / 1e6;
  return TRUE;
}

gboolean
prism_screen_check_full (PrismScreen *check, const PrismGraph *candidate,
                         const gint64 *values, guint n_values, PrismScreenResult *result,
                         GError **error)
{
  gint64 start = g_get_monotonic_time ();
  g_autoptr(PrismGraph) concrete = NULL;
  g_autoptr(GPtrArray) outs = NULL;
  GPtrArray *inputs, *expected;

  memset (result, 0, sizeof *result);
  result->n_seeds = check->n_seeds;
  result->first_seed = check->first_seed;
  concrete = prism_graph_instantiate (candidate, values, n_values, error);
  if (concrete == NULL)
    return FALSE;
  if (!prism_graph_is_concrete (concrete))
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED,
                   "the assignment leaves some sizes symbolic");
      return FALSE;
    }

  g_mutex_lock (&check->lock);
  if (check->full_outputs == NULL)
    {
      GPtrArray *in = make_inputs (check->reference, check->n_seeds, check->first_seed);
      GPtrArray *out = run_seeds (check->reference, in, error);
      if (out == NULL)
        {
          g_ptr_array_unref (in);
          g_mutex_unlock (&check->lock);
          return FALSE;
        }
      check->full_inputs = in;
      check->full_outputs = out;
    }
  inputs = check->full_inputs;
  expected = check->full_outputs;
  g_mutex_unlock (&check->lock);

  outs = run_seeds (concrete, inputs, error);
  if (outs == NULL)
    return FALSE;
  compare (check, outs, expected, result);
  result->seconds = (g_get_monotonic_time () - start) / 1e6;
  return TRUE;
}
