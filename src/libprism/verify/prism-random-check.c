/* prism-random-check.c — candidates against the reference on random inputs
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>

#include "prism-error.h"
#include "prism-interp.h"
#include "prism-io-binding.h"
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
  gboolean not_finite;   /* the reference was inf or NaN on every draw */
  guint64 seed;          /* the draw whose outputs these are */
  GPtrArray *outputs32;  /* the same draw run in f32, NULL until needed */
  gboolean f32_done;     /* outputs32 computed (NULL then: the run failed) */
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
  g_clear_pointer (&result->range_message, g_free);
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
      g_clear_pointer (&rc->cache[i].outputs32, g_ptr_array_unref);
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

/* Seeds -------------------------------------------------------------------- */

/* The uniform inputs in [-1, 1] have variance 1/3; a seed of unit variance
 * (× √3) and one of large values (× 8, logits 64 times larger) reach ranges
 * where an unnormalized sum or an exponential overflows (issue 20). */
#define LARGE_SCALE 8.0
/* Draws of one seed until the reference's outputs are finite: a reference
 * that is inf or NaN on a seed gives no evidence either way. */
#define MAX_DRAWS 4
/* Redraws stay within a seed's stride (a graph has far fewer inputs). */
#define REDRAW_STRIDE 100

static double
seed_scale (guint i)
{
  if (i == 2)
    return LARGE_SCALE;
  return i % 2 == 1 ? sqrt (3.0) : 1.0;
}

/* The reference's inputs of seed @seed at @scale, rounded to their dtypes.
 * (transfer full) */
static GPtrArray *
seed_inputs (const PrismGraph *reference, guint64 seed, double scale)
{
  g_autoptr(GArray) ids = prism_graph_get_inputs (reference);
  GPtrArray *inputs = prism_interp_make_inputs (reference, seed);

  if (scale == 1.0)
    return inputs;
  for (guint k = 0; k < inputs->len; k++)
    {
      PrismBuffer *b = g_ptr_array_index (inputs, k);
      for (gint64 e = 0; e < b->numel; e++)
        b->data[e] *= scale;
      prism_buffer_round_to_dtype (b, prism_graph_tensor (reference, g_array_index (ids, guint, k))->dtype);
    }
  return inputs;
}

static gboolean
all_finite (GPtrArray *outputs)
{
  for (guint o = 0; o < outputs->len; o++)
    {
      const PrismBuffer *b = g_ptr_array_index (outputs, o);
      for (gint64 e = 0; e < b->numel; e++)
        if (!isfinite (b->data[e]))
          return FALSE;
    }
  return TRUE;
}

/* Runs ---------------------------------------------------------------------- */

/* The reference's outputs for seed @i, computed on first use; @seed is the
 * seed drawn.  With @not_finite set and %NULL returned, the reference was
 * not finite on any draw: the seed decides nothing. (transfer none) */
static GPtrArray *
reference_outputs (PrismRandomCheck *rc, guint i, guint64 *seed, gboolean *not_finite, GError **error)
{
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&rc->lock);
  SeedCache *c = &rc->cache[i];

  *not_finite = FALSE;
  for (guint draw = 0; c->outputs == NULL && c->error == NULL && !c->not_finite && draw < MAX_DRAWS; draw++)
    {
      guint64 s = rc->first_seed + (guint64) i * SEED_STRIDE + (guint64) draw * REDRAW_STRIDE;
      g_autoptr(GPtrArray) inputs = seed_inputs (rc->reference, s, seed_scale (i));
      PrismInterpOptions io = { PRISM_PRECISION_F64, rc->n_threads };
      g_autoptr(GError) local = NULL;

      c->outputs = prism_interp_run (rc->reference, (PrismBuffer **) inputs->pdata, inputs->len,
                                     &io, &local);
      c->seed = s;
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
      else if (!all_finite (c->outputs))
        {
          g_clear_pointer (&c->outputs, g_ptr_array_unref);
          c->not_finite = draw + 1 == MAX_DRAWS;
        }
    }
  *seed = c->seed;
  if (c->not_finite)
    {
      *not_finite = TRUE;
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED,
                   "the reference's outputs are not finite on %u draws of seed %" G_GUINT64_FORMAT,
                   MAX_DRAWS, rc->first_seed + (guint64) i * SEED_STRIDE);
      return NULL;
    }
  if (c->outputs == NULL)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED, "the reference does not run: %s", c->error);
      return NULL;
    }
  return c->outputs;
}

/* The reference's outputs of seed @i (already drawn) run in f32, or NULL
 * when that run fails. (transfer none) */
static GPtrArray *
reference_outputs_f32 (PrismRandomCheck *rc, guint i)
{
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&rc->lock);
  SeedCache *c = &rc->cache[i];

  if (!c->f32_done)
    {
      g_autoptr(GPtrArray) inputs = seed_inputs (rc->reference, c->seed, seed_scale (i));
      PrismInterpOptions io = { PRISM_PRECISION_F32, rc->n_threads };

      c->outputs32 = prism_interp_run (rc->reference, (PrismBuffer **) inputs->pdata, inputs->len, &io, NULL);
      /* A stop decides nothing: the next caller runs it again. */
      c->f32_done = c->outputs32 != NULL || !prism_cancelled ();
    }
  return c->outputs32;
}

/* Why the candidate leaves f32's range on seed @i where the reference does
 * not (an unnormalized exponential, a softmax without its max), or NULL.
 * f64 hides it: exp (700) is finite there.  (transfer full) */
static char *
range_loss (PrismRandomCheck *rc, guint i, guint64 seed, const PrismGraph *inst,
            const PrismIoBinding *binding, PrismBuffer **bound)
{
  GPtrArray *want = reference_outputs_f32 (rc, i);
  g_autoptr(GPtrArray) got = NULL;
  PrismInterpOptions io = { PRISM_PRECISION_F32, rc->n_threads };

  if (want == NULL || !all_finite (want))
    return NULL;
  got = prism_interp_run (inst, bound, binding->n_inputs, &io, NULL);
  if (got == NULL)
    return NULL;
  for (guint o = 0; o < got->len && o < binding->n_outputs; o++)
    {
      const PrismBuffer *b = g_ptr_array_index (got, o);
      for (gint64 e = 0; e < b->numel; e++)
        if (!isfinite (b->data[e]))
          return g_strdup_printf ("run in f32 on seed %" G_GUINT64_FORMAT " (inputs × %g), output %u "
                                  "of the candidate is not finite (element %" G_GINT64_FORMAT ") where "
                                  "the reference's outputs all are", seed, seed_scale (i), o, e);
    }
  return NULL;
}

/* The error of candidate output @a against the reference's @b (finite):
 * the larger of the normwise relative error max |a − b| / max |b| and the
 * worst element's |a − b| / max (|b|, 1).  The normwise figure alone hides
 * an absolute error of 1 beside elements of 1e12; a NaN or an infinity of
 * the candidate is +inf (never agreement, whatever the reference has). */
static double
output_error (const PrismBuffer *a, const PrismBuffer *b)
{
  double max_diff = 0.0, max_ref = 0.0, element = 0.0;

  if (!prism_buffer_same_shape (a, b))
    return INFINITY;
  for (gint64 i = 0; i < a->numel; i++)
    {
      double x = a->data[i], y = b->data[i], d;

      if (!isfinite (x) || !isfinite (y))
        return INFINITY;
      d = fabs (x - y);
      max_diff = MAX (max_diff, d);
      max_ref = MAX (max_ref, fabs (y));
      element = MAX (element, d / MAX (fabs (y), 1.0));
    }
  return MAX (max_diff / MAX (max_ref, 1e-30), element);
}

/* The worst error over the outputs, candidate output k against the
 * reference's output @binding->outputs[k] (+inf for a missing output).
 * The binding makes their dtypes equal, and they are compared as computed:
 * rounding both to that dtype is the same function on both sides, and
 * would turn a difference of 1e-15 that straddles a rounding boundary into
 * one of an ulp. */
static double
outputs_error (const PrismIoBinding *binding, GPtrArray *want, GPtrArray *got)
{
  double err = got->len == want->len && got->len == binding->n_outputs ? 0.0 : INFINITY;

  for (guint o = 0; o < got->len && o < binding->n_outputs; o++)
    {
      guint r = binding->outputs[o];
      if (r >= want->len)
        return INFINITY;
      err = MAX (err, output_error (g_ptr_array_index (got, o), g_ptr_array_index (want, r)));
    }
  return err;
}

void
prism_random_check_run (PrismRandomCheck *rc, const PrismGraph *candidate, PrismRandomResult *result)
{
  g_autofree gint64 *values = g_new0 (gint64, candidate->var_names->len);
  g_autoptr(PrismGraph) inst = NULL;
  g_autoptr(PrismIoBinding) binding = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) skipped = g_string_new (NULL);
  gint64 start = g_get_monotonic_time ();

  *result = (PrismRandomResult) { FALSE, FALSE, g_array_new (FALSE, FALSE, sizeof (guint64)), 0,
                                  0.0, 0.0, NULL, NULL, NULL };
  inst = prism_random_choose_sizes (candidate, values, &error);
  if (inst == NULL)
    {
      result->message = g_strdup (error->message);
      goto out;
    }
  result->sizes = sizes_to_string (candidate, values);
  /* Inputs and outputs by name (prism-io-binding.h). */
  binding = prism_io_binding_new (rc->reference, inst, &error);
  if (binding == NULL)
    {
      /* Another interface is a difference on every seed (the outputs are
       * another shape or another dtype, or not the same outputs). */
      result->ran = TRUE;
      result->max_error = INFINITY;
      result->failing_seed = rc->first_seed;
      g_array_append_val (result->seeds, result->failing_seed);
      result->message = g_strdup (error->message);
      goto out;
    }

  for (guint i = 0; i < rc->n_seeds; i++)
    {
      guint64 seed = 0;
      gboolean not_finite = FALSE;
      GPtrArray *want = reference_outputs (rc, i, &seed, &not_finite, &error);
      g_autoptr(GPtrArray) inputs = NULL;
      g_autoptr(GPtrArray) got = NULL;
      g_autofree PrismBuffer **bound = NULL;
      PrismInterpOptions io = { PRISM_PRECISION_F64, rc->n_threads };
      double err;

      if (want == NULL && not_finite)
        {
          /* No evidence either way: the next seed decides. */
          g_string_append_printf (skipped, "%s%s", skipped->len ? "; " : "", error->message);
          g_clear_error (&error);
          continue;
        }
      if (want == NULL)
        {
          result->message = g_strdup (error->message);
          goto unfinished;
        }
      /* The reference's values: candidate input k is the reference's input
       * the binding names (the dtypes are equal). */
      inputs = seed_inputs (rc->reference, seed, seed_scale (i));
      bound = g_new0 (PrismBuffer *, MAX (binding->n_inputs, 1));
      for (guint k = 0; k < binding->n_inputs; k++)
        bound[k] = g_ptr_array_index (inputs, binding->inputs[k]);
      got = prism_interp_run (inst, bound, binding->n_inputs, &io, &error);
      if (got == NULL)
        {
          result->message = g_strdup_printf ("the candidate does not run: %s", error->message);
          goto unfinished;
        }
      err = outputs_error (binding, want, got);
      g_array_append_val (result->seeds, seed);
      result->ran = TRUE;
      result->max_error = MAX (result->max_error, err);
      if (err > PRISM_RANDOM_TOLERANCE)
        {
          /* One differing seed decides; the others would only cost time. */
          result->failing_seed = seed;
          break;
        }
      if (i == 2 && result->range_message == NULL)
        result->range_message = range_loss (rc, i, seed, inst, binding, bound);
    }
  result->ok = result->ran && result->max_error <= PRISM_RANDOM_TOLERANCE;
  if (!result->ran)
    result->message = g_strdup (skipped->str);
  else if (!result->ok)
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
