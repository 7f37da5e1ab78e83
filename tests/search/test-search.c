/* test-search.c — the sGraph search: pruning reasons, uniqueness, determinism
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>
#include <glib.h>

#include "prism-error.h"
#include "prism-graph-json.h"
#include "prism-oracle.h"
#include "prism-search.h"
#include "prism-sgraph.h"
#include "prism-workload.h"

#define RMS_SMALL "n=4,d=64"
#define SWIGLU_SMALL "n=4,d=64"

typedef struct
{
  guint task;
  guint seq;
  char *key;
  gboolean symbolic;
} Found;

typedef struct
{
  GMutex lock;
  GPtrArray *found;     /* Found* */
  GHashTable *seq;      /* task → next seq */
  PrismKeyFlags flags;
  guint tasks_done;
  guint tasks_cut;
  guint ticks;
  const PrismGraph *program;   /* set: check the sGraphs' output names */
  guint misnamed;
  guint empty_root_ticks;      /* ticks whose counts had states below an empty root */
  GPtrArray *samples;          /* set: collect pruned samples (PrismPruneSample*) */
} Collect;

static void
found_free (gpointer data)
{
  Found *f = data;

  g_free (f->key);
  g_free (f);
}

static void
collect_init (Collect *c, PrismKeyFlags flags)
{
  memset (c, 0, sizeof *c);
  g_mutex_init (&c->lock);
  c->found = g_ptr_array_new_with_free_func (found_free);
  c->seq = g_hash_table_new (NULL, NULL);
  c->flags = flags;
}

static void
collect_clear (Collect *c)
{
  g_ptr_array_unref (c->found);
  g_hash_table_unref (c->seq);
  g_mutex_clear (&c->lock);
}

/* The output ops of @a and @b have the same names, in order. */
static gboolean
same_output_names (const PrismGraph *a, const PrismGraph *b)
{
  guint i = 0, j = 0;

  for (;; i++, j++)
    {
      while (i < a->ops->len && prism_graph_op (a, i)->kind != PRISM_OP_OUTPUT)
        i++;
      while (j < b->ops->len && prism_graph_op (b, j)->kind != PRISM_OP_OUTPUT)
        j++;
      if (i == a->ops->len || j == b->ops->len)
        return i == a->ops->len && j == b->ops->len;
      if (g_strcmp0 (prism_graph_op (a, i)->name, prism_graph_op (b, j)->name) != 0)
        return FALSE;
    }
}

static void
on_sgraph (PrismSearch *search, const PrismSGraph *sg, guint task, gpointer user_data)
{
  Collect *c = user_data;
  Found *f = g_new0 (Found, 1);

  f->task = task;
  f->key = prism_graph_canonical_key (sg->graph, c->flags);
  f->symbolic = sg->symbolic;
  g_mutex_lock (&c->lock);
  if (c->program != NULL && !same_output_names (c->program, sg->graph))
    c->misnamed++;
  f->seq = GPOINTER_TO_UINT (g_hash_table_lookup (c->seq, GUINT_TO_POINTER (task)));
  g_hash_table_insert (c->seq, GUINT_TO_POINTER (task), GUINT_TO_POINTER (f->seq + 1));
  g_ptr_array_add (c->found, f);
  g_mutex_unlock (&c->lock);
}

static void
on_task_done (PrismSearch *search, guint task, gboolean completed, gpointer user_data)
{
  Collect *c = user_data;

  g_mutex_lock (&c->lock);
  if (completed)
    c->tasks_done++;
  else
    c->tasks_cut++;
  g_mutex_unlock (&c->lock);
}

/* The counts read while the search runs are a true tree: any state
 * counted means the root (depth 0) is counted too. */
static void
on_tick (PrismSearch *search, gpointer user_data)
{
  Collect *c = user_data;
  PrismSearchStats st;

  c->ticks++;
  prism_search_get_stats (search, &st);
  if (st.states > 0 && st.states_by_depth[0] == 0)
    c->empty_root_ticks++;
}

static void
on_pruned_sample (PrismSearch *search, PrismPruneSample *sample, gpointer user_data)
{
  Collect *c = user_data;

  g_mutex_lock (&c->lock);
  g_ptr_array_add (c->samples, sample);
  g_mutex_unlock (&c->lock);
}

static int
compare_found (gconstpointer a, gconstpointer b)
{
  const Found *x = *(Found * const *) a, *y = *(Found * const *) b;

  if (x->task != y->task)
    return x->task < y->task ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Runs a search of @workload with @options (oracle added unless a check
 * function is set); fills @stats and @c. */
static void
run_search (const char *workload, const char *params, PrismSearchOptions *options,
            Collect *c, PrismSearchStats *stats, char **stop_reason)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismGraph) program = prism_workload_build (workload, params, &error);
  g_autoptr(PrismOracle) oracle = NULL;
  g_autoptr(PrismSearch) search = NULL;
  PrismSearchObserver observer = { on_sgraph, on_task_done, on_tick };

  g_assert_no_error (error);
  if (options->check_func == NULL && options->oracle == NULL)
    {
      PrismOracleOptions oo;
      prism_oracle_options_init (&oo);
      oo.mode = options->mode == PRISM_SEARCH_SYMBOLIC ? PRISM_ABSTRACT_UNTILED
                                                        : PRISM_ABSTRACT_CONCRETE;
      oracle = prism_oracle_new_full (program, &oo, &error);
      g_assert_no_error (error);
      options->oracle = oracle;
    }
  search = prism_search_new (program, options, &error);
  g_assert_no_error (error);
  c->program = program;
  if (c->samples != NULL)
    observer.pruned_sample = on_pruned_sample;
  prism_search_set_observer (search, &observer, c);
  g_assert_true (prism_search_run (search, &error));
  g_assert_no_error (error);
  prism_search_get_stats (search, stats);
  if (stop_reason != NULL)
    *stop_reason = g_strdup (prism_search_get_stop_reason (search));
  c->program = NULL;
  g_ptr_array_sort (c->found, compare_found);
  options->oracle = NULL;
  /* Candidates keep the program's output names (exported code and the
   * explorer name them). */
  g_assert_cmpuint (c->misnamed, ==, 0);
  g_assert_cmpuint (c->empty_root_ticks, ==, 0);
}

/* ------------------------------------------------------------------------ */

static void
test_reasons_symbolic (void)
{
  PrismSearchOptions o;
  PrismSearchStats st;
  Collect c;
  g_autofree char *stop = NULL;

  prism_search_options_init (&o);
  o.n_threads = 2;
  o.time_limit_s = 0;
  collect_init (&c, PRISM_KEY_STRUCTURE);
  run_search ("rms_norm", RMS_SMALL, &o, &c, &st, &stop);
  g_assert_cmpstr (stop, ==, "exhausted");
  g_assert_cmpuint (st.sgraphs, >, 0);
  g_assert_cmpuint (st.sgraphs, ==, c.found->len);
  g_assert_cmpuint (c.tasks_done, ==, st.n_tasks);
  g_assert_cmpuint (st.tasks_done, ==, st.n_tasks);
  /* Every reason the default symbolic search meets on this program. */
  g_assert_cmpuint (st.pruned[PRISM_PRUNE_ORDER], >, 0);
  g_assert_cmpuint (st.pruned[PRISM_PRUNE_DUPLICATE], >, 0);
  g_assert_cmpuint (st.pruned[PRISM_PRUNE_SHAPE], >, 0);
  g_assert_cmpuint (st.pruned[PRISM_PRUNE_LOOP], >, 0);
  g_assert_cmpuint (st.pruned[PRISM_PRUNE_EXPR], >, 0);
  g_assert_cmpuint (st.pruned[PRISM_PRUNE_ACCUM], >, 0);
  g_assert_cmpuint (st.pruned[PRISM_PRUNE_OPS], >, 0);
  g_assert_cmpuint (st.pruned[PRISM_PRUNE_TRIVIAL], >, 0);
  g_assert_cmpuint (st.pruned[PRISM_PRUNE_TIME], ==, 0);
  g_assert_cmpuint (st.pruned[PRISM_PRUNE_SMEM], ==, 0);
  /* States by depth add up; the root is depth 0. */
  {
    guint64 sum = 0;
    for (guint d = 0; d < PRISM_SEARCH_MAX_DEPTH; d++)
      sum += st.states_by_depth[d];
    g_assert_cmpuint (sum, ==, st.states);
    g_assert_cmpuint (st.states_by_depth[0], ==, 1);
  }
  for (guint r = 0; r < PRISM_N_PRUNE_REASONS; r++)
    {
      g_assert_nonnull (prism_prune_reason_to_string (r));
      g_assert_nonnull (prism_prune_reason_describe (r));
    }
  collect_clear (&c);
}

/* Shared memory is checked while building in enumerative mode. */
static void
test_reason_smem (void)
{
  PrismSearchOptions o;
  PrismSearchStats st;
  Collect c;

  prism_search_options_init (&o);
  o.mode = PRISM_SEARCH_ENUMERATIVE;
  o.n_threads = 2;
  o.time_limit_s = 0;
  o.max_kernels = 1;
  o.max_kernel_ops = 1;
  o.max_block_ops = 4;
  o.smem_limit = 2048;
  collect_init (&c, PRISM_KEY_MAPS | PRISM_KEY_SIZES);
  run_search ("rms_norm", RMS_SMALL, &o, &c, &st, NULL);
  g_assert_cmpuint (st.pruned[PRISM_PRUNE_SMEM], >, 0);
  collect_clear (&c);
}

static gboolean
reject_all (const PrismGraph *k, const PrismGraph *b, const guint *bi, guint t, gpointer data)
{
  g_atomic_int_inc ((gint *) data);
  return FALSE;
}

/* The expression pruning goes through the check hook (or the oracle): with
 * a hook that refuses everything no op is added and nothing is found. */
static void
test_reason_expr_hook (void)
{
  PrismSearchOptions o;
  PrismSearchStats st;
  Collect c;
  gint calls = 0;

  prism_search_options_init (&o);
  o.check_func = reject_all;
  o.check_data = &calls;
  o.n_threads = 1;
  collect_init (&c, PRISM_KEY_STRUCTURE);
  run_search ("rms_norm", RMS_SMALL, &o, &c, &st, NULL);
  g_assert_cmpuint (c.found->len, ==, 0);
  g_assert_cmpuint (st.pruned[PRISM_PRUNE_EXPR], >, 0);
  g_assert_cmpuint (st.pruned[PRISM_PRUNE_EXPR], >=, (guint64) calls);
  g_assert_cmpint (calls, >, 0);
  collect_clear (&c);
}

static void
test_reason_time (void)
{
  PrismSearchOptions o;
  PrismSearchStats st;
  Collect c;
  g_autofree char *stop = NULL;

  prism_search_options_init (&o);
  o.n_threads = 2;
  o.time_limit_s = 0.001;
  collect_init (&c, PRISM_KEY_STRUCTURE);
  run_search ("qk_norm_attention", "b=2,h=2,q=1,kv=64,dh=16", &o, &c, &st, &stop);
  g_assert_cmpstr (stop, ==, "time limit");
  g_assert_cmpuint (st.pruned[PRISM_PRUNE_TIME], >, 0);
  g_assert_cmpuint (st.tasks_done, <, st.n_tasks);
  collect_clear (&c);
}

/* Accumulator limits: with one accumulator per kernel, no kernel holding
 * two (rms and the matmul's) can be built. */
static void
test_reason_accum (void)
{
  PrismSearchOptions o;
  PrismSearchStats st;
  Collect c;

  prism_search_options_init (&o);
  o.n_threads = 2;
  o.max_accums = 1;
  o.max_kernels = 1;
  o.max_kernel_ops = 1;
  collect_init (&c, PRISM_KEY_STRUCTURE);
  run_search ("rms_norm", RMS_SMALL, &o, &c, &st, NULL);
  g_assert_cmpuint (st.pruned[PRISM_PRUNE_ACCUM], >, 0);
  /* Only kernels with one accumulator: the block-level rms_norm form
   * (rms_norm(X) @ W, then accumulate), not the accum_rms one. */
  g_assert_cmpuint (c.found->len, >, 0);
  for (guint i = 0; i < c.found->len; i++)
    {
      const char *key = ((Found *) g_ptr_array_index (c.found, i))->key;
      g_assert_null (strstr (key, "accum_rms"));
    }
  collect_clear (&c);
}

/* ------------------------------------------------------------------------ */

static void
assert_unique (Collect *c)
{
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = 0; i < c->found->len; i++)
    {
      Found *f = g_ptr_array_index (c->found, i);
      if (!g_hash_table_add (seen, f->key))
        g_error ("sGraph found twice: %s", f->key);
    }
}

static void
test_no_duplicates (void)
{
  PrismSearchOptions o;
  PrismSearchStats st;
  Collect c;

  prism_search_options_init (&o);
  o.n_threads = 2;
  collect_init (&c, PRISM_KEY_STRUCTURE);
  run_search ("swiglu", SWIGLU_SMALL, &o, &c, &st, NULL);
  g_assert_cmpuint (c.found->len, >, 10);
  assert_unique (&c);
  collect_clear (&c);

  /* Enumerative: concrete graphs, maps and sizes included. */
  prism_search_options_init (&o);
  o.mode = PRISM_SEARCH_ENUMERATIVE;
  o.n_threads = 2;
  o.max_kernels = 1;
  o.max_kernel_ops = 1;
  collect_init (&c, PRISM_KEY_MAPS | PRISM_KEY_SIZES);
  run_search ("rms_norm", RMS_SMALL, &o, &c, &st, NULL);
  g_assert_cmpuint (c.found->len, >, 10);
  for (guint i = 0; i < c.found->len; i++)
    g_assert_false (((Found *) g_ptr_array_index (c.found, i))->symbolic);
  assert_unique (&c);
  collect_clear (&c);
}

static void
assert_same_order (Collect *a, Collect *b)
{
  g_assert_cmpuint (a->found->len, ==, b->found->len);
  for (guint i = 0; i < a->found->len; i++)
    {
      Found *x = g_ptr_array_index (a->found, i), *y = g_ptr_array_index (b->found, i);
      g_assert_cmpuint (x->task, ==, y->task);
      g_assert_cmpuint (x->seq, ==, y->seq);
      g_assert_cmpstr (x->key, ==, y->key);
    }
}

/* Same program and options, same sGraphs in the same order, for one thread
 * twice and for two threads once the results are merged by position. */
static void
test_determinism (void)
{
  PrismSearchOptions o;
  PrismSearchStats s1, s2, s3;
  Collect a, b, c2;

  prism_search_options_init (&o);
  o.n_threads = 1;
  o.time_limit_s = 0;
  collect_init (&a, PRISM_KEY_STRUCTURE);
  collect_init (&b, PRISM_KEY_STRUCTURE);
  collect_init (&c2, PRISM_KEY_STRUCTURE);
  run_search ("swiglu", SWIGLU_SMALL, &o, &a, &s1, NULL);
  run_search ("swiglu", SWIGLU_SMALL, &o, &b, &s2, NULL);
  o.n_threads = 2;
  run_search ("swiglu", SWIGLU_SMALL, &o, &c2, &s3, NULL);
  assert_same_order (&a, &b);
  assert_same_order (&a, &c2);
  g_assert_cmpuint (s1.states, ==, s2.states);
  g_assert_cmpuint (s1.states, ==, s3.states);
  g_assert_cmpuint (s1.n_tasks, ==, s3.n_tasks);
  for (guint r = 0; r < PRISM_N_PRUNE_REASONS; r++)
    g_assert_cmpuint (s1.pruned[r], ==, s3.pruned[r]);
  collect_clear (&a);
  collect_clear (&b);
  collect_clear (&c2);
}

/* Pruned branches by depth: they add up to the totals by reason, are
 * only counted at depths the search reached, and come out the same for any
 * number of threads. */
static void
test_pruned_by_depth (void)
{
  PrismSearchOptions o;
  PrismSearchStats s1, s2;
  Collect a, b;
  guint depths_pruned = 0, reasons_at_one_depth = 0;
  guint64 at_root = 0;

  prism_search_options_init (&o);
  o.n_threads = 1;
  o.time_limit_s = 0;
  collect_init (&a, PRISM_KEY_STRUCTURE);
  collect_init (&b, PRISM_KEY_STRUCTURE);
  run_search ("swiglu", SWIGLU_SMALL, &o, &a, &s1, NULL);
  o.n_threads = 2;
  run_search ("swiglu", SWIGLU_SMALL, &o, &b, &s2, NULL);

  for (guint r = 0; r < PRISM_N_PRUNE_REASONS; r++)
    {
      guint64 sum = 0;

      for (guint d = 0; d < PRISM_SEARCH_MAX_DEPTH; d++)
        sum += s1.pruned_by_depth[d][r];
      g_assert_cmpuint (sum, ==, s1.pruned[r]);
    }
  for (guint d = 0; d < PRISM_SEARCH_MAX_DEPTH; d++)
    {
      guint64 at_depth = 0;
      guint reasons = 0;

      for (guint r = 0; r < PRISM_N_PRUNE_REASONS; r++)
        {
          g_assert_cmpuint (s1.pruned_by_depth[d][r], ==, s2.pruned_by_depth[d][r]);
          at_depth += s1.pruned_by_depth[d][r];
          reasons += s1.pruned_by_depth[d][r] > 0;
        }
      /* A branch is cut while extending a state: no state, no branch. */
      if (s1.states_by_depth[d] == 0)
        g_assert_cmpuint (at_depth, ==, 0);
      depths_pruned += at_depth > 0;
      reasons_at_one_depth = MAX (reasons_at_one_depth, reasons);
    }
  /* The root (depth 0) already has steps cut, and cuts spread over depths. */
  for (guint r = 0; r < PRISM_N_PRUNE_REASONS; r++)
    at_root += s1.pruned_by_depth[0][r];
  g_assert_cmpuint (at_root, >, 0);
  g_assert_cmpuint (depths_pruned, >=, 3);
  g_assert_cmpuint (reasons_at_one_depth, >=, 3);
  collect_clear (&a);
  collect_clear (&b);
}

/* The structure of each hand-written fused graph is among the sGraphs. */
static void
test_reference_structures (void)
{
  static const struct { const char *name; const char *params; } cases[] = {
    { "rms_norm", RMS_SMALL },
    { "swiglu", SWIGLU_SMALL },
    { "rmsnorm_mlp", "n=4,d=64" },
    /* One kernel of four inputs (X, W, A, B): the default limit follows
     * the program's inputs. */
    { "lora", "n=16,d=64,r=16,o=256" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(PrismGraph) ref = prism_workload_build_reference (cases[i].name, cases[i].params, &error);
      g_autofree char *key = NULL;
      PrismSearchOptions o;
      PrismSearchStats st;
      Collect c;
      gboolean hit = FALSE;

      g_assert_no_error (error);
      key = prism_graph_canonical_key (ref, PRISM_KEY_STRUCTURE);
      prism_search_options_init (&o);
      o.n_threads = 2;
      collect_init (&c, PRISM_KEY_STRUCTURE);
      run_search (cases[i].name, cases[i].params, &o, &c, &st, NULL);
      for (guint j = 0; j < c.found->len && !hit; j++)
        hit = g_str_equal (((Found *) g_ptr_array_index (c.found, j))->key, key);
      if (!hit)
        g_error ("%s: the reference structure is not among %u sGraphs", cases[i].name, c.found->len);
      collect_clear (&c);
    }
}

/* Stopping from another thread ends the run; the stop reason says so. */
static gpointer
stopper (gpointer data)
{
  g_usleep (20000);
  prism_search_stop (data);
  return NULL;
}

static void
test_stop (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismGraph) program = prism_workload_build ("qk_norm_attention", NULL, &error);
  g_autoptr(PrismOracle) oracle = prism_oracle_new (program, &error);
  g_autoptr(PrismSearch) search = NULL;
  PrismSearchOptions o;
  GThread *t;

  g_assert_no_error (error);
  prism_search_options_init (&o);
  o.oracle = oracle;
  o.n_threads = 2;
  o.time_limit_s = 0;
  search = prism_search_new (program, &o, &error);
  g_assert_no_error (error);
  g_assert_null (prism_search_get_stop_reason (search));
  t = g_thread_new ("stopper", stopper, search);
  g_assert_true (prism_search_run (search, &error));
  g_thread_join (t);
  g_assert_cmpstr (prism_search_get_stop_reason (search), ==, "stopped");
}

static void
test_bad_options (void)
{
  g_autoptr(PrismGraph) program = prism_workload_build ("rms_norm", RMS_SMALL, NULL);
  PrismSearchOptions o;
  struct { guint *field; guint value; } cases[] = {
    { &o.max_grid_dims, 0 },
    { &o.max_grid_dims, 4 },
    { &o.max_kernels, 0 },
    { &o.max_kernel_inputs, 9 },
    { &o.max_block_outputs, 0 },
    { &o.max_block_ops, 1 },
    { &o.block_threads, 100 },
    { &o.max_total_ops, 73 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      PrismSearch *s;

      prism_search_options_init (&o);
      *cases[i].field = cases[i].value;
      s = prism_search_new (program, &o, &error);
      g_assert_null (s);
      g_assert_error (error, PRISM_ERROR, PRISM_ERROR_FAILED);
      g_assert_nonnull (strstr (error->message, "search options"));
    }
}

/* max_kernel_inputs 0 (the default) is resolved by prism_search_new(): as
 * many inputs as the program has inputs (its constants never count), at
 * least 3; a limit that is given stays. */
static void
test_kernel_inputs_auto (void)
{
  static const struct { const char *name; const char *params; guint want; } cases[] = {
    { "rms_norm", RMS_SMALL, 3 },
    { "rmsnorm_mlp", "n=4,d=64", 3 },
    { "lora", "n=16,d=64,r=16,o=256", 4 },
    { "attention_safe", "b=1,h=2,q=1,kv=64,dh=32", 3 },  /* Q, K, V; 1/√dh is free */
  };
  PrismSearchOptions o;

  prism_search_options_init (&o);
  g_assert_cmpuint (o.max_kernel_inputs, ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(PrismGraph) program = prism_workload_build (cases[i].name, cases[i].params, &error);
      PrismSearch *s;

      g_assert_no_error (error);
      g_assert_cmpuint (prism_search_auto_kernel_inputs (program), ==, cases[i].want);
      prism_search_options_init (&o);
      s = prism_search_new (program, &o, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (prism_search_get_options (s)->max_kernel_inputs, ==, cases[i].want);
      prism_search_free (s);
      o.max_kernel_inputs = 2;
      s = prism_search_new (program, &o, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (prism_search_get_options (s)->max_kernel_inputs, ==, 2);
      prism_search_free (s);
    }
}

/* max_block_ops 0 (the default) is resolved by prism_search_new(): 13 for
 * a program that takes a max (the one-kernel flash attention needs them),
 * 11 otherwise; a limit that is given stays. */
static void
test_block_ops_auto (void)
{
  static const struct { const char *name; const char *params; guint want; } cases[] = {
    { "rms_norm", RMS_SMALL, 11 },
    { "attention", "b=1,h=2,q=1,kv=64,dh=32", 11 },
    { "attention_safe", "b=1,h=2,q=1,kv=64,dh=32", 13 },
    { "softmax_safe", "n=4,d=64,v=128", 13 },
  };
  PrismSearchOptions o;

  prism_search_options_init (&o);
  g_assert_cmpuint (o.max_block_ops, ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(PrismGraph) program = prism_workload_build (cases[i].name, cases[i].params, &error);
      PrismSearch *s;

      g_assert_no_error (error);
      g_assert_cmpuint (prism_search_auto_block_ops (program), ==, cases[i].want);
      prism_search_options_init (&o);
      s = prism_search_new (program, &o, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (prism_search_get_options (s)->max_block_ops, ==, cases[i].want);
      prism_search_free (s);
      o.max_block_ops = 5;
      s = prism_search_new (program, &o, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (prism_search_get_options (s)->max_block_ops, ==, 5);
      prism_search_free (s);
    }
}

/* max_total_ops 0 (the default) is resolved by prism_search_new(): 9, and
 * 2 more for each program input beyond the third (RMSNorm + Q, K, V's
 * two-kernel form has 11 ops), or the program's ops and 2 where that is
 * more; a limit that is given stays. */
static void
test_total_ops_auto (void)
{
  static const struct { const char *name; const char *params; guint want; } cases[] = {
    { "rms_norm", RMS_SMALL, 9 },
    { "rmsnorm_mlp", "n=4,d=64", 9 },
    /* The constant is not an input; its 8 ops and a kernel's 2 make 10. */
    { "attention_safe", "b=1,h=2,q=1,kv=64,dh=32", 10 },
    { "lora", "n=16,d=64,r=16,o=256", 11 },
  };
  PrismSearchOptions o;

  prism_search_options_init (&o);
  g_assert_cmpuint (o.max_total_ops, ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(PrismGraph) program = prism_workload_build (cases[i].name, cases[i].params, &error);
      PrismSearch *s;

      g_assert_no_error (error);
      g_assert_cmpuint (prism_search_auto_total_ops (program), ==, cases[i].want);
      prism_search_options_init (&o);
      s = prism_search_new (program, &o, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (prism_search_get_options (s)->max_total_ops, ==, cases[i].want);
      prism_search_free (s);
      o.max_total_ops = 5;
      s = prism_search_new (program, &o, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (prism_search_get_options (s)->max_total_ops, ==, 5);
      prism_search_free (s);
    }
}

static PrismGraph *
load_done_when (const char *name)
{
  g_autofree char *file = g_test_build_filename (G_TEST_DIST, "search", "done-when", name, NULL);
  g_autoptr(GError) error = NULL;
  PrismGraph *g = prism_graph_load (file, NULL, &error);

  g_assert_no_error (error);
  return g;
}

/* The ops of @g as the limits count them: predefined ops and the block ops
 * of custom kernels, inputs and outputs excepted, the kernel op included;
 * *max_block gets the most ops of one custom kernel, its inputs included. */
static guint
count_limit_ops (const PrismGraph *g, guint *max_block)
{
  guint n = 0;

  *max_block = 0;
  for (guint i = 0; i < g->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (g, i);
      guint body = 0, inputs = 0;

      if (op->kind == PRISM_OP_INPUT || op->kind == PRISM_OP_OUTPUT || op->kind == PRISM_OP_CONSTANT)
        continue;
      n++;
      if (op->kind != PRISM_OP_KERNEL)
        continue;
      for (guint j = 0; j < op->body->ops->len; j++)
        {
          PrismOpKind k = prism_graph_op (op->body, j)->kind;
          inputs += k == PRISM_OP_INPUT;
          body += k != PRISM_OP_INPUT && k != PRISM_OP_OUTPUT;
        }
      n += body;
      *max_block = MAX (*max_block, body + inputs);
    }
  return n;
}

/* Issue 22: a LayerNorm written out with sums (9 ops, 3 inputs) had the
 * default total-ops limit of 9, no room for any fusion (every sGraph was
 * rejected).  The defaults derive from the program now: its hand fusion
 * (the normalisation in one kernel, then the matmul) fits them; before,
 * prism_search_auto_total_ops() gave 9 for the 11 ops it needs. */
static void
test_auto_limits_leave_room (void)
{
  static const char * const programs[][2] = {
    { "layer_norm_sums.json", "layer_norm_sums-hand.json" },
    { "lm_head_softmax.json", "lm_head_softmax-hand.json" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (programs); i++)
    {
      g_autoptr(PrismGraph) program = load_done_when (programs[i][0]);
      g_autoptr(PrismGraph) hand = load_done_when (programs[i][1]);
      guint block, total = count_limit_ops (hand, &block);

      g_test_message ("%s: hand fusion %u ops, %u in one kernel; limits %u and %u", programs[i][0],
                      total, block, prism_search_auto_total_ops (program),
                      prism_search_auto_block_ops (program));
      g_assert_cmpuint (prism_search_auto_total_ops (program), >=, total);
      g_assert_cmpuint (prism_search_auto_block_ops (program), >=, block);
    }
}

/* The same program searched with the default limits and a vocabulary cut
 * to its own ops (so that the test takes seconds): the hand fusion's
 * structure is among the sGraphs.  With the old limit of 9 no sGraph had a
 * custom kernel at all. */
static void
test_layer_norm_sums_fusion_found (void)
{
  static const PrismOpKind kernel_ops[] = {
    PRISM_OP_MATMUL, PRISM_OP_SQUARE, PRISM_OP_SQRT, PRISM_OP_SUB, PRISM_OP_MUL, PRISM_OP_DIV,
    PRISM_OP_SUM,
  };
  static const PrismOpKind block_ops[] = {
    PRISM_OP_MATMUL, PRISM_OP_SQUARE, PRISM_OP_SQRT, PRISM_OP_SUB, PRISM_OP_MUL, PRISM_OP_DIV,
    PRISM_OP_SUM, PRISM_OP_ACCUM, PRISM_OP_ACCUM_SUM,
  };
  g_autoptr(PrismGraph) program = load_done_when ("layer_norm_sums.json");
  g_autoptr(PrismGraph) hand = load_done_when ("layer_norm_sums-hand.json");
  g_autofree char *key = prism_graph_canonical_key (hand, PRISM_KEY_STRUCTURE);
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismOracle) oracle = NULL;
  g_autoptr(PrismSearch) search = NULL;
  PrismSearchObserver observer = { on_sgraph, on_task_done, on_tick };
  PrismOracleOptions oo;
  PrismSearchOptions o;
  PrismSearchStats st;
  Collect c;
  gboolean hit = FALSE;

  prism_oracle_options_init (&oo);
  oo.mode = PRISM_ABSTRACT_UNTILED;
  oracle = prism_oracle_new_full (program, &oo, &error);
  g_assert_no_error (error);
  prism_search_options_init (&o);
  o.n_threads = 2;
  o.time_limit_s = 0;
  o.max_kernels = 1;
  o.kernel_ops = kernel_ops;
  o.n_kernel_ops = G_N_ELEMENTS (kernel_ops);
  o.block_ops = block_ops;
  o.n_block_ops = G_N_ELEMENTS (block_ops);
  o.oracle = oracle;
  collect_init (&c, PRISM_KEY_STRUCTURE);
  search = prism_search_new (program, &o, &error);
  g_assert_no_error (error);
  prism_search_set_observer (search, &observer, &c);
  g_assert_true (prism_search_run (search, &error));
  g_assert_no_error (error);
  prism_search_get_stats (search, &st);
  for (guint j = 0; j < c.found->len && !hit; j++)
    hit = g_str_equal (((Found *) g_ptr_array_index (c.found, j))->key, key);
  g_test_message ("layer_norm_sums: %u sGraphs, %" G_GUINT64_FORMAT " states, limits %u/%u",
                  c.found->len, st.states, prism_search_get_options (search)->max_total_ops,
                  prism_search_get_options (search)->max_block_ops);
  if (!hit)
    g_error ("layer_norm_sums: the hand fusion's structure is not among %u sGraphs", c.found->len);
  collect_clear (&c);
}

/* Issue 22, item 5: a kernel that computes exp(logits) in its loop and
 * again after the accumulator of a loop of one iteration computes one value
 * twice; with a loop of two iterations the second exp is of a sum, another
 * value; the hand fusion and the built-in references compute nothing twice. */
static void
test_find_recomputed (void)
{
  static const char * const refs[] = {
    "rms_norm", "rmsnorm_mlp", "swiglu", "attention", "qk_norm_attention", "gated_mlp", "lora",
  };
  g_autofree char *file = g_test_build_filename (G_TEST_DIST, "search", "lm-head-softmax-recomputed.json", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismGraph) twice = prism_graph_load (file, NULL, &error);
  g_autoptr(PrismGraph) hand = load_done_when ("lm_head_softmax-hand.json");
  g_autofree char *text = NULL;
  guint kop = G_MAXUINT, bop = G_MAXUINT;

  g_assert_no_error (error);
  g_assert_true (prism_graph_find_recomputed (twice, &kop, &bop));
  g_assert_cmpuint (prism_graph_op (twice, kop)->kind, ==, PRISM_OP_KERNEL);
  g_assert_cmpuint (prism_graph_op (prism_graph_op (twice, kop)->body, bop)->kind, ==, PRISM_OP_EXP);
  g_assert_false (prism_graph_find_recomputed (hand, NULL, NULL));

  g_assert_true (g_file_get_contents (file, &text, NULL, NULL));
  {
    char *loop = strstr (text, "\"forloop\": 1");
    g_autoptr(PrismGraph) two = NULL;

    g_assert_nonnull (loop);
    loop[strlen ("\"forloop\": ")] = '2';
    two = prism_graph_load_from_data (text, -1, NULL, &error);
    g_assert_no_error (error);
    g_assert_false (prism_graph_find_recomputed (two, NULL, NULL));
  }
  for (guint i = 0; i < G_N_ELEMENTS (refs); i++)
    {
      g_autoptr(PrismGraph) ref = prism_workload_build_reference (refs[i], NULL, &error);
      g_assert_no_error (error);
      g_assert_false (prism_graph_find_recomputed (ref, NULL, NULL));
    }
}

/* Issue 22: the split depth adapts to the processes sharing a search, so
 * that each of them gets at least PRISM_SEARCH_TASKS_PER_PROCESS tasks (at
 * 64 ranks the fixed depth 3 gave qk_norm_attention far fewer than 512),
 * the same split for the same count, and the tasks' work is spread: dealt
 * out in task order to the first free process (as the MPI run claims
 * them), with each task's states as its cost, no process gets more than
 * three times the mean (at 64 ranks the 177 tasks of depth 3 left one
 * rank 7.6 times the mean: 15 539 states against 2 040).  Counts, not
 * times: the machine may be loaded. */
typedef struct
{
  GMutex lock;
  GArray *states;    /* guint64 per task: the states it counted */
} TaskStates;

static void
on_task_states (PrismSearch *search, guint task, gboolean completed, gpointer user_data)
{
  TaskStates *ts = user_data;
  PrismSearchStats st;

  /* One thread: the running total when a task ends is its states plus the
   * ones before it. */
  prism_search_get_stats (search, &st);
  g_mutex_lock (&ts->lock);
  if (ts->states->len <= task)
    g_array_set_size (ts->states, task + 1);
  g_array_index (ts->states, guint64, task) = st.states;
  g_mutex_unlock (&ts->lock);
}

static void
test_split_for_ranks (void)
{
  static const guint ranks[] = { 1, 2, 8, 64 };
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismGraph) program = prism_workload_build ("qk_norm_attention", "b=2,h=2,q=1,kv=64,dh=16", &error);
  g_autoptr(PrismOracle) oracle = NULL;
  guint last_depth = 0;

  g_assert_no_error (error);
  oracle = prism_oracle_new (program, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (prism_search_min_tasks_for (1), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (ranks); i++)
    {
      g_autoptr(PrismSearch) search = NULL;
      PrismSearchObserver observer = { NULL, on_task_states, NULL };
      TaskStates ts;
      PrismSearchOptions o;
      PrismSearchStats st;
      g_autofree guint64 *load = g_new0 (guint64, ranks[i]);
      guint64 prev = 0, total = 0, most = 0;
      guint depth;

      prism_search_options_init (&o);
      o.n_threads = 1;   /* tasks end in task order: per-task states */
      o.time_limit_s = 0;
      o.oracle = oracle;
      o.min_tasks = prism_search_min_tasks_for (ranks[i]);
      search = prism_search_new (program, &o, &error);
      g_assert_no_error (error);
      g_mutex_init (&ts.lock);
      ts.states = g_array_new (FALSE, TRUE, sizeof (guint64));
      prism_search_set_observer (search, &observer, &ts);
      g_assert_true (prism_search_run (search, &error));
      prism_search_get_stats (search, &st);
      depth = prism_search_get_options (search)->split_depth;
      g_test_message ("%u ranks: split depth %u, %u tasks, %" G_GUINT64_FORMAT " states", ranks[i],
                      depth, st.n_tasks, st.states);
      g_assert_cmpuint (depth, >=, last_depth);
      last_depth = depth;
      if (ranks[i] > 1)
        g_assert_cmpuint (st.n_tasks, >=, PRISM_SEARCH_TASKS_PER_PROCESS * ranks[i]);
      else
        g_assert_cmpuint (depth, ==, 3);
      g_assert_cmpuint (st.tasks_done, ==, st.n_tasks);
      /* Greedy: each task to the process with the least work so far. */
      for (guint t = 0; t < ts.states->len; t++)
        {
          guint64 cost = g_array_index (ts.states, guint64, t) - MIN (prev, g_array_index (ts.states, guint64, t));
          guint r = 0;

          if (g_array_index (ts.states, guint64, t) > prev)
            prev = g_array_index (ts.states, guint64, t);
          for (guint k = 1; k < ranks[i]; k++)
            if (load[k] < load[r])
              r = k;
          load[r] += cost;
          total += cost;
        }
      for (guint k = 0; k < ranks[i]; k++)
        most = MAX (most, load[k]);
      g_test_message ("  most work on one rank %" G_GUINT64_FORMAT " states, mean %.0f", most,
                      (double) total / ranks[i]);
      if (ranks[i] > 1)
        g_assert_cmpfloat ((double) most, <=, 3.0 * total / ranks[i]);
      g_array_unref (ts.states);
      g_mutex_clear (&ts.lock);
    }
}

/* Sampled pruning decisions: the first few of every (depth, reason) bucket
 * the counts have, each with a partial graph, the step and its evidence;
 * sampling changes no count. */
static void
test_pruned_samples (void)
{
  PrismSearchOptions o;
  PrismSearchStats plain, st;
  Collect c;
  guint per_bucket[PRISM_SEARCH_MAX_DEPTH][PRISM_N_PRUNE_REASONS] = { { 0, } };
  guint expr_marked = 0, block_marked = 0;

  prism_search_options_init (&o);
  o.n_threads = 2;
  o.time_limit_s = 0;
  collect_init (&c, PRISM_KEY_STRUCTURE);
  run_search ("rms_norm", RMS_SMALL, &o, &c, &plain, NULL);
  collect_clear (&c);

  collect_init (&c, PRISM_KEY_STRUCTURE);
  c.samples = g_ptr_array_new_with_free_func ((GDestroyNotify) prism_prune_sample_free);
  run_search ("rms_norm", RMS_SMALL, &o, &c, &st, NULL);
  g_assert_cmpuint (st.states, ==, plain.states);
  g_assert_cmpuint (st.sgraphs, ==, plain.sgraphs);
  g_assert_cmpmem (st.pruned_by_depth, sizeof st.pruned_by_depth,
                   plain.pruned_by_depth, sizeof plain.pruned_by_depth);

  g_assert_cmpuint (c.samples->len, >, 0);
  g_assert_cmpuint (c.samples->len, <=, PRISM_SEARCH_MAX_SAMPLES);
  for (guint i = 0; i < c.samples->len; i++)
    {
      const PrismPruneSample *ps = g_ptr_array_index (c.samples, i);

      g_assert_cmpuint (ps->depth, <, PRISM_SEARCH_MAX_DEPTH);
      g_assert_cmpint (ps->reason, <, PRISM_PRUNE_TIME);
      g_assert_cmpuint (st.pruned_by_depth[ps->depth][ps->reason], >, 0);
      per_bucket[ps->depth][ps->reason]++;
      g_assert_nonnull (ps->graph);
      g_assert_cmpuint (ps->graph->ops->len, >, 0);
      g_assert_nonnull (ps->step);
      g_assert_cmpstr (ps->step, !=, "");
      g_assert_nonnull (ps->evidence);
      g_assert_cmpstr (ps->evidence, !=, "");
      if (ps->marked_op >= 0)
        g_assert_cmpint (ps->marked_op, <, (int) ps->graph->ops->len);
      if (ps->marked_block_op >= 0)
        {
          const PrismOp *k = prism_graph_op (ps->graph, (guint) ps->marked_op);
          g_assert_cmpint (k->kind, ==, PRISM_OP_KERNEL);
          g_assert_cmpint (ps->marked_block_op, <, (int) k->body->ops->len);
          block_marked++;
        }
      if (ps->reason == PRISM_PRUNE_EXPR && ps->marked_op >= 0)
        {
          /* The evidence is the expression the oracle did not find. */
          g_assert_nonnull (strstr (ps->evidence, "is not a subexpression of the target"));
          g_assert_cmpint (ps->evidence[0], ==, '(');
          expr_marked++;
        }
    }
  g_assert_cmpuint (expr_marked, >, 0);
  g_assert_cmpuint (block_marked, >, 0);
  /* Every bucket the counts have is sampled up to its bound. */
  for (guint d = 0; d < PRISM_SEARCH_MAX_DEPTH; d++)
    for (guint r = 0; r < PRISM_PRUNE_TIME; r++)
      g_assert_cmpuint (per_bucket[d][r], ==,
                        MIN (st.pruned_by_depth[d][r], PRISM_SEARCH_SAMPLES_PER_BUCKET));
  g_ptr_array_unref (c.samples);
  collect_clear (&c);
}

static void
test_size_candidates (void)
{
  g_autoptr(GArray) v = g_array_new (FALSE, FALSE, sizeof (gint64));

  prism_search_size_candidates (4096, FALSE, v);
  /* Grid: tiles of 8 to 512 elements. */
  g_assert_cmpuint (v->len, ==, 7);
  g_assert_cmpint (g_array_index (v, gint64, 0), ==, 8);
  g_assert_cmpint (g_array_index (v, gint64, 6), ==, 512);
  prism_search_size_candidates (4096, TRUE, v);
  /* Loop: tiles of 16 to 256 elements. */
  g_assert_cmpuint (v->len, ==, 5);
  g_assert_cmpint (g_array_index (v, gint64, 0), ==, 16);
  g_assert_cmpint (g_array_index (v, gint64, 4), ==, 256);
  prism_search_size_candidates (8, FALSE, v);
  g_assert_cmpuint (v->len, ==, 3);
  prism_search_size_candidates (1, FALSE, v);
  g_assert_cmpuint (v->len, ==, 0);
  prism_search_size_candidates (3 * 5 * 7 * 11, FALSE, v);
  for (guint i = 0; i < v->len; i++)
    g_assert_cmpint ((3 * 5 * 7 * 11) % g_array_index (v, gint64, i), ==, 0);
  g_assert_cmpuint (v->len, >, 0);
}

static gboolean
has_value (GArray *v, gint64 x)
{
  for (guint i = 0; i < v->len; i++)
    if (g_array_index (v, gint64, i) == x)
      return TRUE;
  return FALSE;
}

/* Sizes that are not powers of two get their divisors: 3000 (2^3·3·5^3) is
 * split into 125 blocks of 24 columns and a loop of 25 steps of 120, 6144
 * (2^11·3) into 192 blocks of 32 (Mirage's grid on 132 SMs); a size with
 * many divisors gets at most PRISM_SEARCH_MAX_SIZE_CANDIDATES, ascending,
 * the best-aligned tiles kept. */
static void
test_size_candidates_divisors (void)
{
  g_autoptr(GArray) v = g_array_new (FALSE, FALSE, sizeof (gint64));
  const gint64 many = G_GINT64_CONSTANT (720720);  /* 2^4·3^2·5·7·11·13 */
  guint aligned = 0;

  prism_search_size_candidates (3000, FALSE, v);
  g_assert_true (has_value (v, 125));
  g_assert_true (has_value (v, 375));
  prism_search_size_candidates (3000, TRUE, v);
  g_assert_true (has_value (v, 25));
  g_assert_true (has_value (v, 15));
  prism_search_size_candidates (6144, FALSE, v);
  g_assert_true (has_value (v, 192));
  g_assert_true (has_value (v, 128));
  g_assert_true (has_value (v, 256));
  prism_search_size_candidates (7, FALSE, v);
  g_assert_cmpuint (v->len, ==, 1);
  g_assert_cmpint (g_array_index (v, gint64, 0), ==, 7);
  prism_search_size_candidates (many, FALSE, v);
  g_assert_cmpuint (v->len, ==, PRISM_SEARCH_MAX_SIZE_CANDIDATES);
  for (guint i = 0; i < v->len; i++)
    {
      gint64 x = g_array_index (v, gint64, i);
      g_assert_cmpint (many % x, ==, 0);
      g_assert_cmpint (many / x, >=, 8);
      g_assert_cmpint (many / x, <=, 512);
      if (i > 0)
        g_assert_cmpint (x, >, g_array_index (v, gint64, i - 1));
      g_assert_cmpint ((many / x) % 8, ==, 0);
      aligned += (many / x) % 16 == 0;
    }
  /* Its 94 divisors in the window: all 9 whose tiles are multiples of 16,
   * then 7 spread over the 15 whose tiles are multiples of 8 only. */
  g_assert_cmpuint (aligned, ==, 9);
  /* A prime beyond the window has no candidate; a huge dim is quick. */
  prism_search_size_candidates (G_GINT64_CONSTANT (1000003), FALSE, v);
  g_assert_cmpuint (v->len, ==, 0);
  prism_search_size_candidates (G_GINT64_CONSTANT (1) << 36, FALSE, v);
  g_assert_cmpuint (v->len, ==, 7);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/search/reasons/symbolic", test_reasons_symbolic);
  g_test_add_func ("/search/reasons/smem", test_reason_smem);
  g_test_add_func ("/search/reasons/expr-hook", test_reason_expr_hook);
  g_test_add_func ("/search/reasons/time", test_reason_time);
  g_test_add_func ("/search/reasons/accum", test_reason_accum);
  g_test_add_func ("/search/no-duplicates", test_no_duplicates);
  g_test_add_func ("/search/determinism", test_determinism);
  g_test_add_func ("/search/pruned-by-depth", test_pruned_by_depth);
  g_test_add_func ("/search/pruned-samples", test_pruned_samples);
  g_test_add_func ("/search/reference-structures", test_reference_structures);
  g_test_add_func ("/search/stop", test_stop);
  g_test_add_func ("/search/bad-options", test_bad_options);
  g_test_add_func ("/search/kernel-inputs-auto", test_kernel_inputs_auto);
  g_test_add_func ("/search/block-ops-auto", test_block_ops_auto);
  g_test_add_func ("/search/total-ops-auto", test_total_ops_auto);
  g_test_add_func ("/search/auto-limits-leave-room", test_auto_limits_leave_room);
  g_test_add_func ("/search/layer-norm-sums-fusion", test_layer_norm_sums_fusion_found);
  g_test_add_func ("/search/find-recomputed", test_find_recomputed);
  g_test_add_func ("/search/split-for-ranks", test_split_for_ranks);
  g_test_add_func ("/search/size-candidates", test_size_candidates);
  g_test_add_func ("/search/size-candidates/divisors", test_size_candidates_divisors);
  return g_test_run ();
}
