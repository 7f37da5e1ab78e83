/* test-term.c — PrismTerm and PrismPattern: parsing, printing, matching
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "prism-error.h"
#include "prism-pattern.h"
#include "prism-term.h"

static void
test_symbols (void)
{
  PrismSymbol a = prism_symbol_intern ("test-term-symbol");
  PrismSymbol b = prism_symbol_intern ("test-term-symbol");

  g_assert_cmpuint (a, !=, PRISM_SYMBOL_NONE);
  g_assert_cmpuint (a, ==, b);
  g_assert_cmpstr (prism_symbol_name (a), ==, "test-term-symbol");
  g_assert_cmpuint (prism_symbol_try ("test-term-never-interned-xyz"), ==, PRISM_SYMBOL_NONE);
  g_assert_cmpuint (prism_symbol_try ("test-term-symbol"), ==, a);
}

static void
test_roundtrip (void)
{
  const char *texts[] = {
    "x",
    "42",
    "-7",
    "(+ a b)",
    "(* (+ a b) (sum 64 (exp input0)))",
    "(partition (matmul input0 input1) data_dim0 dx1 gx)",
    "(- 3 -4)",
  };

  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(PrismTerm) t = prism_term_parse (texts[i], &error);
      g_autofree char *back = NULL;

      g_assert_no_error (error);
      back = prism_term_to_string (t);
      g_assert_cmpstr (back, ==, texts[i]);
    }
}

static void
test_whitespace_and_leaf_op (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismTerm) t = prism_term_parse ("  ( f\n\t(g)  x )  ", &error);
  g_autofree char *s = NULL;

  g_assert_no_error (error);
  s = prism_term_to_string (t);
  /* (g) is the leaf g: an operator without children is a symbol. */
  g_assert_cmpstr (s, ==, "(f g x)");
}

static void
test_dedup (void)
{
  g_autoptr(PrismTerm) t = prism_term_new ();
  guint a = prism_term_add_symbol (t, "a");
  guint b = prism_term_add_symbol (t, "b");
  guint ab[2] = { a, b };
  guint x = prism_term_add_op (t, "+", 2, ab);
  guint y = prism_term_add_op (t, "+", 2, ab);
  guint xx[2] = { x, y };
  guint sq = prism_term_add_op (t, "*", 2, xx);
  g_autofree char *s = NULL;

  g_assert_cmpuint (x, ==, y);
  g_assert_cmpuint (prism_term_get_n_nodes (t), ==, 4);
  g_assert_cmpuint (prism_term_get_root (t), ==, sq);
  g_assert_cmpuint (prism_term_node_tree_size (t, sq), ==, 7);
  s = prism_term_to_string (t);
  g_assert_cmpstr (s, ==, "(* (+ a b) (+ a b))");
  g_assert_cmpuint (prism_term_node_get_child (t, sq, 1), ==, x);
  g_assert_cmpuint (prism_term_add_int (t, 5), ==, prism_term_add_int (t, 5));
  g_assert_true (prism_term_node_is_int (t, prism_term_add_int (t, 5)));
  g_assert_cmpint (prism_term_node_get_int (t, prism_term_add_int (t, -5)), ==, -5);
}

static void
test_subterm_and_equal (void)
{
  g_autoptr(PrismTerm) a = prism_term_parse ("(f (g x 1) (g x 1))", NULL);
  g_autoptr(PrismTerm) b = prism_term_parse ("(h (g x 1))", NULL);
  g_autoptr(PrismTerm) c = prism_term_copy (a);
  guint ga = prism_term_node_get_child (a, prism_term_get_root (a), 0);
  guint gb = prism_term_node_get_child (b, prism_term_get_root (b), 0);
  guint imported;
  g_autofree char *s = NULL;

  g_assert_true (prism_term_node_equal (a, ga, b, gb));
  g_assert_false (prism_term_node_equal (a, prism_term_get_root (a), b, prism_term_get_root (b)));
  g_assert_true (prism_term_node_equal (a, prism_term_get_root (a), c, prism_term_get_root (c)));
  imported = prism_term_add_subterm (b, a, ga);
  /* Already present in b: hash-consing finds it. */
  g_assert_cmpuint (imported, ==, gb);
  imported = prism_term_add_subterm (b, a, prism_term_get_root (a));
  s = prism_term_node_to_string (b, imported);
  g_assert_cmpstr (s, ==, "(f (g x 1) (g x 1))");
}

static void
check_parse_error (const char *text, const char *expected)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismTerm) t = prism_term_parse (text, &error);

  g_assert_null (t);
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_PARSE);
  if (g_strstr_len (error->message, -1, expected) == NULL)
    g_error ("parsing '%s': message '%s' lacks '%s'", text, error->message, expected);
}

static void
test_parse_errors (void)
{
  check_parse_error ("", "expected a term, found the end of the text");
  check_parse_error ("(+ a b", "offset 0: '(' is never closed");
  check_parse_error ("(+ a b))", "offset 7: unexpected ')' after the term");
  check_parse_error ("()", "expected an operator name after '(', found ')'");
  check_parse_error ("(3 a)", "'3' cannot be an operator name");
  check_parse_error ("(+ ?x a)", "variable '?x' is only allowed in patterns");
  check_parse_error ("(+ 12ab c)", "'12ab' is not a number");
  check_parse_error ("99999999999999999999", "out of range");
  check_parse_error ("(f a, b)", "unexpected ','");
  check_parse_error ("a b", "unexpected 'b' after the term");
}

static void
test_deep_nesting (void)
{
  GString *s = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismTerm) t = NULL;

  for (int i = 0; i < 10000; i++)
    g_string_append (s, "(f ");
  g_string_append (s, "x");
  for (int i = 0; i < 10000; i++)
    g_string_append_c (s, ')');
  t = prism_term_parse (s->str, &error);
  g_assert_null (t);
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_PARSE);
  g_assert_nonnull (strstr (error->message, "nesting deeper than"));
  g_string_free (s, TRUE);
}

static void
test_pattern_parse (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismPattern) p = prism_pattern_parse ("(+ ?a (* ?b ?a) 2 x)", &error);
  g_autofree char *s = NULL;

  g_assert_no_error (error);
  g_assert_cmpuint (prism_pattern_get_n_vars (p), ==, 2);
  g_assert_cmpstr (prism_pattern_get_var_name (p, 0), ==, "a");
  g_assert_cmpstr (prism_pattern_get_var_name (p, 1), ==, "b");
  g_assert_cmpint (prism_pattern_lookup_var (p, "b"), ==, 1);
  g_assert_cmpint (prism_pattern_lookup_var (p, "c"), ==, -1);
  g_assert_false (prism_pattern_is_var (p));
  s = prism_pattern_to_string (p);
  g_assert_cmpstr (s, ==, "(+ ?a (* ?b ?a) 2 x)");

  {
    g_autoptr(PrismPattern) v = prism_pattern_parse ("?x", &error);
    g_assert_no_error (error);
    g_assert_true (prism_pattern_is_var (v));
  }
  {
    g_autoptr(PrismPattern) bad = prism_pattern_parse ("(+ ? a)", &error);
    g_assert_null (bad);
    g_assert_error (error, PRISM_ERROR, PRISM_ERROR_PARSE);
    g_assert_nonnull (strstr (error->message, "a variable needs a name"));
  }
}

static void
test_pattern_match_term (void)
{
  g_autoptr(PrismPattern) p = prism_pattern_parse ("(+ ?a (* ?b ?a))", NULL);
  g_autoptr(PrismTerm) yes = prism_term_parse ("(+ (f x) (* 3 (f x)))", NULL);
  g_autoptr(PrismTerm) no = prism_term_parse ("(+ (f x) (* 3 (f y)))", NULL);
  g_autoptr(PrismTerm) out = prism_term_new ();
  g_autoptr(PrismPattern) q = prism_pattern_parse ("(g ?b ?a ?a)", NULL);
  guint subst[2];
  guint inst;
  g_autofree char *s = NULL;

  g_assert_true (prism_pattern_match_term (p, yes, prism_term_get_root (yes), subst));
  s = prism_term_node_to_string (yes, subst[0]);
  g_assert_cmpstr (s, ==, "(f x)");
  g_assert_cmpint (prism_term_node_get_int (yes, subst[1]), ==, 3);
  /* Non-linear: ?a must be the same subterm twice. */
  g_assert_false (prism_pattern_match_term (p, no, prism_term_get_root (no), subst));

  g_assert_true (prism_pattern_match_term (p, yes, prism_term_get_root (yes), subst));
  inst = prism_pattern_instantiate (q, out, yes, subst);
  g_clear_pointer (&s, g_free);
  s = prism_term_node_to_string (out, inst);
  /* q has its own numbering: ?b is 0 and ?a is 1 there. */
  g_assert_cmpstr (s, ==, "(g (f x) 3 3)");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/expr/term/symbols", test_symbols);
  g_test_add_func ("/expr/term/roundtrip", test_roundtrip);
  g_test_add_func ("/expr/term/whitespace", test_whitespace_and_leaf_op);
  g_test_add_func ("/expr/term/dedup", test_dedup);
  g_test_add_func ("/expr/term/subterm", test_subterm_and_equal);
  g_test_add_func ("/expr/term/parse-errors", test_parse_errors);
  g_test_add_func ("/expr/term/deep-nesting", test_deep_nesting);
  g_test_add_func ("/expr/pattern/parse", test_pattern_parse);
  g_test_add_func ("/expr/pattern/match-term", test_pattern_match_term);
  return g_test_run ();
}
