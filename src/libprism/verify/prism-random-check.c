/* prism-random-check.c — candidates against the reference on random inputs
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>

#include "prism-error.h"
#include "prism-interp.h"
#include "prism-random-check.h"

/* Seeds are this far apart: input k of seed s is filled from s + k, so
 * neighbouring seeds would share all but one input stream. */
#define SEED_STRIDE 1000
/* Instantiations tried while looking for valid sizes. */
#define MAX_SIZE_TRIES 4096

typedef struct
{
  GPtrArray *outputs;    /* PrismBuffer*, NULL until computed */
  char *error;           /* the reference failed on this seed */
} SeedCache;

struct _PrismRandomCheck
{
  PrismGraph *reference;
  guint n_seeds;
  guint64 first_seed;
  guint n_threads;
  GMutex lock;           /* guards cache */
  SeedCache *cache;      /* n_seeds */
};

void
prism_random_result_clear (PrismRandomResult *result)
{
  g_clear_pointer (&result->seeds, g_array_unref);
  g_clear_pointer (&result->sizes, g_free);
  g_clear_pointer (&result->message, g_free);
}

PrismRandomCheck *
prism_random_check_new (const PrismGraph *reference, guint n_seeds, guint64 first_seed,
                        guint n_threads)
{
  PrismRandomCheck *rc = g_new0 (PrismRandomCheck, 1);

  g_return_val_if_fail (reference != NULL, NULL);
  rc->reference = prism_graph_ref ((PrismGraph *) reference);
  rc->n_seeds = MAX (n_seeds, 1);
  rc->first_seed = first_seed;
  rc->n_threads = n_threads;
  g_mutex_init (&rc->lock);
  rc->cache = g_new0 (SeedCache, rc->n_seeds);
  return rc;
}

void
prism_random_check_free (PrismRandomCheck *rc)
{
  if (rc == NULL)
    return;
  for (guint i = 0; i < rc->n_seeds; i++)
    {
      g_clear_pointer (&rc->cache[i].outputs, g_ptr_array_unref);
      g_free (rc->cache[i].error);
    }
  g_free (rc->cache);
  g_mutex_clear (&rc->lock);
  prism_graph_unref (rc->reference);
  g_free (rc);
}

/* Sizes ------------------------------------------------------------------- */

static const gint64 preferred[] = { 2, 4, 8, 3, 16, 5, 6, 32, 64, 7, 1 };

typedef struct
{
  const PrismGraph *graph;
  guint n_vars;
  gint64 *values;
  guint tries;
  PrismGraph *found;
} SizeSearch;

static gboolean
used_before (const SizeSearch *s, guint var, gint64 value)
{
  for (guint v = 0; v < var; v++)
    if (s->values[v] == value)
      return TRUE;
  return FALSE;
}

/* Assigns variables @var… in order; each partial assignment must already
 * instantiate (a constant that does not divide fails early).  Values other
 * variables do not have come first: a graph that is right only when two
 * sizes are equal (a factor gx in one place and gy in another) must not
 * pass because both were 2. */
static gboolean
size_search (SizeSearch *s, guint var)
{
  for (guint pass = 0; pass < 2; pass++)
    for (guint i = 0; i < G_N_ELEMENTS (preferred); i++)
      {
        g_autoptr(PrismGraph) g = NULL;

        if (used_before (s, var, preferred[i]) != (pass == 1))
          continue;
        if (++s->tries > MAX_SIZE_TRIES)
          return FALSE;
        s->values[var] = preferred[i];
        g = prism_graph_instantiate (s->graph, s->values, s->n_vars, NULL);
        if (g == NULL)
          continue;
        if (var + 1 == s->n_vars)
          {
            if (!prism_graph_is_concrete (g))
              continue;
            s->found = g_steal_pointer (&g);
            return TRUE;
          }
        if (size_search (s, var + 1))
          return TRUE;
      }
  s->values[var] = 0;
  return FALSE;
}

PrismGraph *
prism_random_choose_sizes (const PrismGraph *graph, gint64 *values, GError **error)
{
  guint n_vars = graph->var_names->len - 1;
  SizeSearch s = { graph, n_vars, values, 0, NULL };

  if (n_vars == 0)
    {
      if (!prism_graph_is_concrete (graph))
        {
          g_set_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED,
                       "the graph has symbolic maps; instantiate them first");
          return NULL;
        }
      return prism_graph_ref ((PrismGraph *) graph);
    }
  for (guint v = 0; v < n_vars; v++)
    values[v] = 0;
  if (!size_search (&s, 0))
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED,
                   "no valid sizes found for the graph's %u variables", n_vars);
      return NULL;
    }
  return s.found;
}

static char *
sizes_to_string (const PrismGraph *graph, const gint64 *values)
{
  GString *s = g_string_new (NULL);
  const char * const *names = prism_graph_var_names (graph);

  for (guint v = 0; names[v] != NULL; v++)
    g_string_append_printf (s, "%s%s=%" G_GINT64_FORMAT, v ? ", " : "",
                            *names[v] ? names[v] : "?", values[v]);
  return g_string_free (s, FALSE);
}

/* Runs ---------------------------------------------------------------------- */

/* The reference's outputs for seed @i, computed on first use. (transfer none) */
static GPtrArray *
reference_outputs (PrismRandomCheck *rc, guint i, GError **error)
{
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&rc->lock);
  SeedCache *c = &rc->cache[i];

  if (c->outputs == NULL && c->error == NULL)
    {
      g_autoptr(GPtrArray) inputs = prism_interp_make_inputs (rc->reference,
                                                             rc->first_seed + (guint64) i * SEED_STRIDE);
      PrismInterpOptions io = { PRISM_PRECISION_F64, rc->n_threads };
      g_autoptr(GError) local = NULL;

      c->outputs = prism_interp_run (rc->reference, (PrismBuffer **) inputs->pdata, inputs->len,
                                     &io, &local);
      /* A stop is not the reference's fault: the next caller, not stopped,
       * computes it (a resumed or restarted run shares nothing stale). */
      if (c->outputs == NULL && g_error_matches (local, PRISM_ERROR, PRISM_ERROR_CANCELLED))
        {
          g_set_error (error, PRISM_ERROR, PRISM_ERROR_CANCELLED, "the reference does not run: %s",
                       local->message);
          return NULL;
        }
      if (c->outputs == NULL)
        c->error = g_strdup (local->message);
    }
  if (c->outputs == NULL)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED, "the reference does not run: %s", c->error);
      return NULL;
    }
  return c->outputs;
}

static PrismDtype
output_dtype (const PrismGraph *g, const GArray *outputs, guint o)
{
  return prism_graph_tensor (g, g_array_index (outputs, guint, o))->dtype;
}

/* The worst normwise error over the outputs (+inf for a NaN or a missing
 * output).  Outputs of the same dtype are compared as computed: rounding
 * both to that dtype is the same function on both sides, and would turn a
 * difference of 1e-15 that straddles a rounding boundary into one of an
 * ulp.  Outputs of different dtypes are compared after each side's
 * rounding, which is what a caller of each one receives. */
static double
outputs_error (const PrismGraph *ref, GPtrArray *want, const PrismGraph *cand, GPtrArray *got)
{
  g_autoptr(GArray) ro = prism_graph_get_outputs (ref);
  g_autoptr(GArray) co = prism_graph_get_outputs (cand);
  double err = got->len == want->len ? 0.0 : INFINITY;

  for (guint o = 0; o < got->len && o < want->len; o++)
    {
      PrismBuffer *a = g_ptr_array_index (got, o), *b = g_ptr_array_index (want, o);
      g_autoptr(PrismBuffer) ar = NULL, br = NULL;
      double e;

      if (o < co->len && o < ro->len && output_dtype (cand, co, o) != output_dtype (ref, ro, o))
        {
          ar = prism_buffer_copy (a);
          br = prism_buffer_copy (b);
          prism_buffer_round_to_dtype (ar, output_dtype (cand, co, o));
          prism_buffer_round_to_dtype (br, output_dtype (ref, ro, o));
          a = ar;
          b = br;
        }
      e = prism_buffer_max_rel_error (a, b);
      /* NaN compares false: count it as a difference. */
      err = isnan (e) ? INFINITY : MAX (err, e);
    }
  return err;
}

void
prism_random_check_run (PrismRandomCheck *rc, const PrismGraph *candidate, PrismRandomResult *result)
{
  g_autofree gint64 *values = g_new0 (gint64, candidate->var_names->len);
  g_autoptr(PrismGraph) inst = NULL;
  g_autoptr(GError) error = NULL;
  gint64 start = g_get_monotonic_time ();

  *result = (PrismRandomResult) { FALSE, FALSE, g_array_new (FALSE, FALSE, sizeof (guint64)), 0,
                                  0.0, 0.0, NULL, NULL };
  inst = prism_random_choose_sizes (candidate, values, &error);
  if (inst == NULL)
    {
      result->message = g_strdup (error->message);
      goto out;
    }
  result->sizes = sizes_to_string (candidate, values);

  for (guint i = 0; i < rc->n_seeds; i++)
    {
      guint64 seed = rc->first_seed + (guint64) i * SEED_STRIDE;
      GPtrArray *want = reference_outputs (rc, i, &error);
      g_autoptr(GPtrArray) inputs = NULL;
      g_autoptr(GPtrArray) got = NULL;
      PrismInterpOptions io = { PRISM_PRECISION_F64, rc->n_threads };
      double err;

      if (want == NULL)
        {
          result->message = g_strdup (error->message);
          goto unfinished;
        }
      /* The candidate's own inputs: the same random values as the
       * reference's, rounded to the candidate's dtypes. */
      inputs = prism_interp_make_inputs (inst, seed);
      got = prism_interp_run (inst, (PrismBuffer **) inputs->pdata, inputs->len, &io, &error);
      if (got == NULL)
        {
          result->message = g_strdup_printf ("the candidate does not run: %s", error->message);
          goto unfinished;
        }
      err = outputs_error (rc->reference, want, inst, got);
      g_array_append_val (result->seeds, seed);
      result->ran = TRUE;
      result->max_error = MAX (result->max_error, err);
      if (err > PRISM_RANDOM_TOLERANCE)
        {
          /* One differing seed decides; the others would only cost time. */
          result->failing_seed = seed;
          break;
        }
    }
  result->ok = result->ran && result->max_error <= PRISM_RANDOM_TOLERANCE;
  if (!result->ok)
    result->message = g_strdup_printf ("outputs differ by %.3g (relative) on seed %" G_GUINT64_FORMAT,
                                       result->max_error, result->failing_seed);

  goto out;

unfinished:
  /* A seed that could not run (a stop, the interpreter's budget) decided
   * nothing, even after others agreed: the test did not run, it did not
   * fail (else a proved candidate would read as a verifier bug). */
  result->ran = FALSE;
  result->ok = FALSE;
out:
  result->seconds = (double) (g_get_monotonic_time () - start) / G_USEC_PER_SEC;
}
