/* test-egraph.c — PrismEgraph: congruence closure, e-matching, analysis, lookup
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "prism-egraph.h"
#include "prism-error.h"
#include "prism-pattern.h"
#include "prism-term.h"

static guint
add (PrismEgraph *eg, const char *text)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismTerm) t = prism_term_parse (text, &error);

  g_assert_no_error (error);
  return prism_egraph_add_term (eg, t);
}

static gint
lookup (const PrismEgraph *eg, const char *text)
{
  g_autoptr(PrismTerm) t = prism_term_parse (text, NULL);

  g_assert_nonnull (t);
  return prism_egraph_lookup_term (eg, t);
}

static PrismMatches *
search (PrismEgraph *eg, const char *pattern)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismPattern) p = prism_pattern_parse (pattern, &error);

  g_assert_no_error (error);
  return prism_egraph_search (eg, p);
}

static void
test_hashcons (void)
{
  g_autoptr(PrismEgraph) eg = prism_egraph_new (PRISM_EGRAPH_FLAGS_NONE);
  guint x = add (eg, "(f a b)");
  guint y = add (eg, "(f a b)");
  guint z = add (eg, "(f b a)");

  g_assert_cmpuint (x, ==, y);
  g_assert_cmpuint (x, !=, z);
  /* a, b, (f a b), (f b a) */
  g_assert_cmpuint (prism_egraph_get_n_nodes (eg), ==, 4);
  g_assert_cmpuint (prism_egraph_get_n_classes (eg), ==, 4);
}

static void
test_congruence (void)
{
  g_autoptr(PrismEgraph) eg = prism_egraph_new (PRISM_EGRAPH_FLAGS_NONE);
  guint fa = add (eg, "(f a)");
  guint fb = add (eg, "(f b)");
  guint gfa = add (eg, "(g (f a) c)");
  guint gfb = add (eg, "(g (f b) c)");
  guint hfa = add (eg, "(h (g (f a) c))");
  guint hfb = add (eg, "(h (g (f b) c))");
  guint other = add (eg, "(g (f b) d)");
  guint a = add (eg, "a");
  guint b = add (eg, "b");
  guint classes;

  prism_egraph_rebuild (eg);
  classes = prism_egraph_get_n_classes (eg);
  g_assert_false (prism_egraph_equiv (eg, fa, fb));
  g_assert_true (prism_egraph_union (eg, a, b, "given"));
  g_assert_false (prism_egraph_union (eg, a, b, "given"));
  /* Congruence closure is deferred to the rebuild. */
  g_assert_false (prism_egraph_is_clean (eg));
  g_assert_false (prism_egraph_equiv (eg, fa, fb));
  prism_egraph_rebuild (eg);
  g_assert_true (prism_egraph_is_clean (eg));
  g_assert_true (prism_egraph_equiv (eg, fa, fb));
  g_assert_true (prism_egraph_equiv (eg, gfa, gfb));
  g_assert_true (prism_egraph_equiv (eg, hfa, hfb));
  g_assert_false (prism_egraph_equiv (eg, gfa, other));
  /* a=b, f, g, h each lost one class. */
  g_assert_cmpuint (prism_egraph_get_n_classes (eg), ==, classes - 4);
  /* The duplicates are no longer distinct e-nodes. */
  g_assert_cmpuint (prism_egraph_class_get_n_nodes (eg, hfa), ==, 1);
  g_assert_cmpuint (prism_egraph_class_get_n_nodes (eg, a), ==, 2);
}

static void
test_congruence_chain (void)
{
  g_autoptr(PrismEgraph) eg = prism_egraph_new (PRISM_EGRAPH_FLAGS_NONE);
  g_autoptr(PrismTerm) t = prism_term_new ();
  guint x = prism_term_add_symbol (t, "x");
  guint ids[64];

  /* f^i(x) for i = 0..63; asserting x = f(x) collapses all of them. */
  ids[0] = prism_egraph_add_term_node (eg, t, x);
  for (guint i = 1; i < G_N_ELEMENTS (ids); i++)
    {
      x = prism_term_add_op (t, "f", 1, &x);
      ids[i] = prism_egraph_add_term_node (eg, t, x);
    }
  prism_egraph_union (eg, ids[0], ids[1], NULL);
  prism_egraph_rebuild (eg);
  for (guint i = 1; i < G_N_ELEMENTS (ids); i++)
    g_assert_true (prism_egraph_equiv (eg, ids[0], ids[i]));
  g_assert_cmpuint (prism_egraph_get_n_classes (eg), ==, 1);
  g_assert_cmpuint (prism_egraph_get_n_nodes (eg), ==, 2);
}

static void
test_ematch (void)
{
  g_autoptr(PrismEgraph) eg = prism_egraph_new (PRISM_EGRAPH_FLAGS_NONE);
  guint fa = add (eg, "(f a)");
  guint gaa = add (eg, "(g a a)");
  guint gab = add (eg, "(g a b)");
  guint a = add (eg, "a");
  guint b = add (eg, "b");
  g_autoptr(PrismMatches) m1 = NULL;
  g_autoptr(PrismMatches) m2 = NULL;
  g_autoptr(PrismMatches) m3 = NULL;
  g_autoptr(PrismMatches) m4 = NULL;
  g_autoptr(PrismMatches) m5 = NULL;

  add (eg, "(f b)");
  m1 = search (eg, "(f ?x)");
  g_assert_cmpuint (m1->n_matches, ==, 2);
  g_assert_cmpuint (m1->n_vars, ==, 1);
  g_assert_cmpuint (m1->classes[0], ==, prism_egraph_find (eg, fa));
  g_assert_cmpuint (m1->substs[0], ==, prism_egraph_find (eg, a));
  g_assert_cmpuint (m1->substs[1], ==, prism_egraph_find (eg, b));

  /* Non-linear: ?x twice. */
  m2 = search (eg, "(g ?x ?x)");
  g_assert_cmpuint (m2->n_matches, ==, 1);
  g_assert_cmpuint (m2->classes[0], ==, prism_egraph_find (eg, gaa));

  /* Literals in patterns. */
  m3 = search (eg, "(g a ?y)");
  g_assert_cmpuint (m3->n_matches, ==, 2);

  prism_egraph_union (eg, a, b, NULL);
  prism_egraph_rebuild (eg);
  g_assert_true (prism_egraph_equiv (eg, gaa, gab));
  /* (f a) and (f b) are one e-node now; (g ?x ?x) matches the merged class. */
  m4 = search (eg, "(f ?x)");
  g_assert_cmpuint (m4->n_matches, ==, 1);
  m5 = search (eg, "(g ?x ?x)");
  g_assert_cmpuint (m5->n_matches, ==, 1);
}

static void
test_ematch_nested_multi (void)
{
  g_autoptr(PrismEgraph) eg = prism_egraph_new (PRISM_EGRAPH_FLAGS_NONE);
  guint s1 = add (eg, "(+ x y)");
  guint s2 = add (eg, "(+ y x)");
  guint p = add (eg, "(* (+ x y) z)");
  g_autoptr(PrismMatches) m = NULL;
  g_autoptr(PrismMatches) all = NULL;
  g_autoptr(PrismMatches) ints = NULL;

  prism_egraph_union (eg, s1, s2, NULL);
  prism_egraph_rebuild (eg);
  /* The child class holds two + nodes: two matches, one per node. */
  m = search (eg, "(* (+ ?a ?b) ?c)");
  g_assert_cmpuint (m->n_matches, ==, 2);
  g_assert_cmpuint (m->n_vars, ==, 3);
  for (guint i = 0; i < m->n_matches; i++)
    {
      g_assert_cmpuint (m->classes[i], ==, prism_egraph_find (eg, p));
      g_assert_cmpuint (m->substs[3 * i + 2], ==, (guint) lookup (eg, "z"));
    }
  g_assert_cmpuint (m->substs[0], ==, m->substs[3 + 1]);
  g_assert_cmpuint (m->substs[1], ==, m->substs[3 + 0]);
  g_assert_cmpuint (m->substs[0], !=, m->substs[1]);

  /* A bare variable matches every class once. */
  all = search (eg, "?v");
  g_assert_cmpuint (all->n_matches, ==, prism_egraph_get_n_classes (eg));

  add (eg, "(f 3 4)");
  add (eg, "(f 3 5)");
  ints = search (eg, "(f 3 4)");
  g_assert_cmpuint (ints->n_matches, ==, 1);
}

static void
test_constant_folding (void)
{
  g_autoptr(PrismEgraph) eg = prism_egraph_new (PRISM_EGRAPH_FLAGS_NONE);
  guint m = add (eg, "(* 2 3)");
  guint n = add (eg, "(dim_mul (+ 1 1) (/ 9 3))");
  guint inexact = add (eg, "(/ 7 2)");
  guint sym = add (eg, "(* n 3)");
  guint nn = add (eg, "n");
  guint two = add (eg, "(- 5 3)");
  gint64 v = 0;

  prism_egraph_rebuild (eg);
  g_assert_true (prism_egraph_get_const (eg, m, &v));
  g_assert_cmpint (v, ==, 6);
  g_assert_true (prism_egraph_equiv (eg, m, n));
  g_assert_cmpint (lookup (eg, "6"), ==, (gint) prism_egraph_find (eg, m));
  g_assert_false (prism_egraph_get_const (eg, inexact, NULL));
  g_assert_false (prism_egraph_get_const (eg, sym, NULL));

  /* Learning n = 2 later makes (* n 3) fold through the analysis worklist. */
  prism_egraph_union (eg, nn, two, NULL);
  prism_egraph_rebuild (eg);
  g_assert_true (prism_egraph_get_const (eg, sym, &v));
  g_assert_cmpint (v, ==, 6);
  g_assert_true (prism_egraph_equiv (eg, sym, m));
  g_assert_cmpuint (prism_egraph_get_n_const_conflicts (eg), ==, 0);
}

static gboolean
fold_max (PrismSymbol op, const gint64 *args, guint n_args, gint64 *result, gpointer user_data)
{
  guint *calls = user_data;

  (*calls)++;
  if (strcmp (prism_symbol_name (op), "max") != 0 || n_args == 0)
    return FALSE;
  *result = args[0];
  for (guint i = 1; i < n_args; i++)
    *result = MAX (*result, args[i]);
  return TRUE;
}

static void
test_fold_func (void)
{
  g_autoptr(PrismEgraph) eg = prism_egraph_new (PRISM_EGRAPH_FLAGS_NONE);
  g_autoptr(PrismEgraph) off = prism_egraph_new (PRISM_EGRAPH_FLAGS_NONE);
  guint calls = 0;
  guint x, y;
  gint64 v;

  prism_egraph_set_fold_func (eg, fold_max, &calls);
  x = add (eg, "(max 3 9 4)");
  y = add (eg, "(* 2 3)");
  prism_egraph_rebuild (eg);
  g_assert_cmpuint (calls, >, 0);
  g_assert_true (prism_egraph_get_const (eg, x, &v));
  g_assert_cmpint (v, ==, 9);
  /* The default arithmetic is replaced, not extended. */
  g_assert_false (prism_egraph_get_const (eg, y, NULL));

  prism_egraph_set_fold_func (off, NULL, NULL);
  y = add (off, "(* 2 3)");
  prism_egraph_rebuild (off);
  g_assert_false (prism_egraph_get_const (off, y, NULL));
  g_assert_cmpint (lookup (off, "6"), ==, PRISM_EGRAPH_NONE);
}

static void
test_lookup_without_insertion (void)
{
  g_autoptr(PrismEgraph) eg = prism_egraph_new (PRISM_EGRAPH_FLAGS_NONE);
  guint t = add (eg, "(+ (exp x) (sum 64 y))");
  guint n_ids, n_nodes;

  prism_egraph_rebuild (eg);
  n_ids = prism_egraph_get_n_ids (eg);
  n_nodes = prism_egraph_get_n_nodes (eg);
  g_assert_cmpint (lookup (eg, "(+ (exp x) (sum 64 y))"), ==, (gint) prism_egraph_find (eg, t));
  g_assert_cmpint (lookup (eg, "(sum 64 y)"), >=, 0);
  g_assert_cmpint (lookup (eg, "64"), >=, 0);
  g_assert_cmpint (lookup (eg, "(sum 32 y)"), ==, PRISM_EGRAPH_NONE);
  g_assert_cmpint (lookup (eg, "(+ (sum 64 y) (exp x))"), ==, PRISM_EGRAPH_NONE);
  g_assert_cmpint (lookup (eg, "(exp never_seen_symbol_q)"), ==, PRISM_EGRAPH_NONE);
  g_assert_cmpint (prism_egraph_lookup_symbol (eg, "x"), >=, 0);
  g_assert_cmpint (prism_egraph_lookup_symbol (eg, "never_seen_symbol_r"), ==, PRISM_EGRAPH_NONE);
  g_assert_cmpint (prism_egraph_lookup_int (eg, 64), ==, lookup (eg, "64"));
  g_assert_cmpint (prism_egraph_lookup_int (eg, 65), ==, PRISM_EGRAPH_NONE);
  g_assert_cmpuint (prism_egraph_get_n_ids (eg), ==, n_ids);
  g_assert_cmpuint (prism_egraph_get_n_nodes (eg), ==, n_nodes);

  /* Up to congruence: after x = z, (exp z) is represented without being added. */
  prism_egraph_union (eg, add (eg, "x"), add (eg, "z"), NULL);
  prism_egraph_rebuild (eg);
  g_assert_cmpint (lookup (eg, "(+ (exp z) (sum 64 y))"), ==, (gint) prism_egraph_find (eg, t));

  /* Node by node, from class ids. */
  {
    guint kids[2];
    kids[0] = (guint) prism_egraph_lookup_int (eg, 64);
    kids[1] = (guint) prism_egraph_lookup_symbol (eg, "y");
    g_assert_cmpint (prism_egraph_lookup_node (eg, prism_symbol_intern ("sum"), 2, kids),
                     ==, lookup (eg, "(sum 64 y)"));
    g_assert_cmpint (prism_egraph_lookup_node (eg, prism_symbol_intern ("mean"), 2, kids),
                     ==, PRISM_EGRAPH_NONE);
  }
}

typedef struct
{
  const PrismEgraph *eg;
  GPtrArray *terms;      /* PrismTerm */
  GArray *expected;      /* gint */
  guint rounds;
  gint failures;
} Readers;

static gpointer
reader_thread (gpointer data)
{
  Readers *r = data;

  for (guint k = 0; k < r->rounds; k++)
    for (guint i = 0; i < r->terms->len; i++)
      if (prism_egraph_lookup_term (r->eg, g_ptr_array_index (r->terms, i))
          != g_array_index (r->expected, gint, i))
        g_atomic_int_inc (&r->failures);
  return NULL;
}

static void
test_concurrent_lookup (void)
{
  g_autoptr(PrismEgraph) eg = prism_egraph_new (PRISM_EGRAPH_FLAGS_NONE);
  g_autoptr(GPtrArray) terms = g_ptr_array_new_with_free_func ((GDestroyNotify) prism_term_free);
  g_autoptr(GArray) expected = g_array_new (FALSE, FALSE, sizeof (gint));
  Readers r = { eg, terms, expected, 200, 0 };
  GThread *threads[4];
  guint present = 0;

  for (guint i = 0; i < 50; i++)
    {
      g_autofree char *text = g_strdup_printf ("(f (g v%u) (h %u))", i, i % 7);
      add (eg, text);
    }
  /* Merge some leaves so the answers depend on congruence. */
  for (guint i = 0; i + 1 < 50; i += 3)
    {
      g_autofree char *a = g_strdup_printf ("v%u", i);
      g_autofree char *b = g_strdup_printf ("v%u", i + 1);
      prism_egraph_union (eg, add (eg, a), add (eg, b), NULL);
    }
  prism_egraph_rebuild (eg);
  for (guint i = 0; i < 100; i++)
    {
      g_autofree char *text = g_strdup_printf ("(f (g v%u) (h %u))", i % 60, (i * 3) % 7);
      PrismTerm *t = prism_term_parse (text, NULL);
      gint e = prism_egraph_lookup_term (eg, t);

      g_ptr_array_add (terms, t);
      g_array_append_val (expected, e);
      present += e >= 0;
    }
  /* Both answers occur, so the threads check something. */
  g_assert_cmpuint (present, >, 0);
  g_assert_cmpuint (present, <, 100);
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    threads[i] = g_thread_new ("reader", reader_thread, &r);
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    g_thread_join (threads[i]);
  g_assert_cmpint (r.failures, ==, 0);
}

static void
test_extract (void)
{
  g_autoptr(PrismEgraph) eg = prism_egraph_new (PRISM_EGRAPH_FLAGS_NONE);
  guint big = add (eg, "(+ (* x 1) (- y y))");
  guint small = add (eg, "x");
  g_autoptr(PrismTerm) t = NULL;
  g_autofree char *s = NULL;

  prism_egraph_union (eg, add (eg, "(* x 1)"), add (eg, "x"), NULL);
  prism_egraph_union (eg, add (eg, "(- y y)"), add (eg, "0"), NULL);
  prism_egraph_rebuild (eg);
  t = prism_egraph_extract (eg, big);
  s = prism_term_to_string (t);
  g_assert_cmpstr (s, ==, "(+ x 0)");
  g_clear_pointer (&t, prism_term_free);
  g_clear_pointer (&s, g_free);
  t = prism_egraph_extract (eg, small);
  s = prism_term_to_string (t);
  g_assert_cmpstr (s, ==, "x");
}

static void
test_dump (void)
{
  g_autoptr(PrismEgraph) eg = prism_egraph_new (PRISM_EGRAPH_FLAGS_NONE);
  g_autofree char *dump = NULL;

  add (eg, "(f a (* 2 3))");
  prism_egraph_rebuild (eg);
  dump = prism_egraph_dump (eg);
  /* ids in creation order: a 0, 2 1, 3 2, (* 2 3) 3, 6 4, (f a …) 5; the
   * fold merged the new leaf 6 into class 3 (the older id wins a tie). */
  g_assert_cmpstr (dump, ==,
                   "0: a\n"
                   "1 = 2: 2\n"
                   "2 = 3: 3\n"
                   "3 = 6: (* 1 2) 6\n"
                   "5: (f 0 3)\n");
}

static void
test_explain_mode_ids (void)
{
  g_autoptr(PrismEgraph) eg = prism_egraph_new (PRISM_EGRAPH_EXPLAIN);
  guint fa = add (eg, "(f a)");
  guint a = add (eg, "a");
  guint b = add (eg, "b");
  guint fb, fb2;

  prism_egraph_union (eg, a, b, "given");
  prism_egraph_rebuild (eg);
  /* (f b) exists up to congruence, but as an exact term it is new: it gets
   * its own id, in the class of (f a). */
  fb = add (eg, "(f b)");
  fb2 = add (eg, "(f b)");
  g_assert_cmpuint (fb, ==, fb2);
  g_assert_cmpuint (fb, !=, fa);
  g_assert_true (prism_egraph_equiv (eg, fa, fb));
  prism_egraph_rebuild (eg);
  g_assert_cmpuint (prism_egraph_get_n_nodes (eg), ==, 3);
  g_assert_cmpuint (prism_egraph_get_n_classes (eg), ==, 2);
  g_assert_true (prism_egraph_get_flags (eg) & PRISM_EGRAPH_EXPLAIN);
}

static gint64
bits_of (double v)
{
  union { double d; gint64 i; } u = { .d = v };

  return u.i;
}

/* The verifier's folds: an f64 product only when exact, transpose codes of
 * one rank composed, a constant's bits as a whole count. */
static void
test_fold_verifier (void)
{
  PrismSymbol fmul = prism_symbol_intern ("fmul");
  PrismSymbol compose = prism_symbol_intern ("perm_compose");
  PrismSymbol count = prism_symbol_intern ("bits_count");
  gint64 args[2], r;

  args[0] = bits_of (2.0);
  args[1] = bits_of (3.0);
  g_assert_true (prism_fold_arith (fmul, args, 2, &r, NULL));
  g_assert_cmpint (r, ==, bits_of (6.0));
  args[0] = bits_of (0.1);   /* 0.1 · 3 rounds in f64 */
  g_assert_false (prism_fold_arith (fmul, args, 2, &r, NULL));
  args[0] = bits_of (1e300);
  args[1] = bits_of (1e300);
  g_assert_false (prism_fold_arith (fmul, args, 2, &r, NULL));

  /* rank 3: p = [2, 0, 1], q = [2, 0, 1] → p[q[i]] = [1, 2, 0]. */
  args[0] = (3 << 8) | (2 << 0) | (0 << 2) | (1 << 4);
  args[1] = args[0];
  g_assert_true (prism_fold_arith (compose, args, 2, &r, NULL));
  g_assert_cmpint (r, ==, (3 << 8) | (1 << 0) | (2 << 2) | (0 << 4));
  args[1] = (2 << 8) | (1 << 0);   /* another rank */
  g_assert_false (prism_fold_arith (compose, args, 2, &r, NULL));

  args[0] = bits_of (64.0);
  g_assert_true (prism_fold_arith (count, args, 1, &r, NULL));
  g_assert_cmpint (r, ==, 64);
  args[0] = bits_of (0.5);
  g_assert_false (prism_fold_arith (count, args, 1, &r, NULL));
  args[0] = bits_of (-4.0);
  g_assert_false (prism_fold_arith (count, args, 1, &r, NULL));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/expr/egraph/hashcons", test_hashcons);
  g_test_add_func ("/expr/egraph/fold-verifier", test_fold_verifier);
  g_test_add_func ("/expr/egraph/congruence", test_congruence);
  g_test_add_func ("/expr/egraph/congruence-chain", test_congruence_chain);
  g_test_add_func ("/expr/egraph/ematch", test_ematch);
  g_test_add_func ("/expr/egraph/ematch-nested", test_ematch_nested_multi);
  g_test_add_func ("/expr/egraph/constant-folding", test_constant_folding);
  g_test_add_func ("/expr/egraph/fold-func", test_fold_func);
  g_test_add_func ("/expr/egraph/lookup", test_lookup_without_insertion);
  g_test_add_func ("/expr/egraph/concurrent-lookup", test_concurrent_lookup);
  g_test_add_func ("/expr/egraph/extract", test_extract);
  g_test_add_func ("/expr/egraph/dump", test_dump);
  g_test_add_func ("/expr/egraph/explain-ids", test_explain_mode_ids);
  return g_test_run ();
}
