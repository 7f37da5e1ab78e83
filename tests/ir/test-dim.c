/* test-dim.c — PrismDim: canonical form, substitution, evaluation, parsing
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "prism-dim.h"
#include "prism-error.h"

static const char * const names[] = { "gx", "F", "gy", NULL };

static PrismDim *
parse (const char *text)
{
  GError *error = NULL;
  PrismDim *d = prism_dim_parse (text, names, &error);

  g_assert_no_error (error);
  g_assert_nonnull (d);
  return d;
}

static void
assert_prints (const PrismDim *d, const char *expected)
{
  g_autofree char *text = prism_dim_to_string (d, names);

  g_assert_cmpstr (text, ==, expected);
}

static void
test_canonical (void)
{
  g_autoptr(PrismDim) c4096 = prism_dim_const (4096);
  g_autoptr(PrismDim) gx = prism_dim_var (0);
  g_autoptr(PrismDim) f = prism_dim_var (1);
  g_autoptr(PrismDim) tile = prism_dim_div (c4096, gx);
  g_autoptr(PrismDim) back = prism_dim_mul (tile, gx);
  g_autoptr(PrismDim) back2 = prism_dim_mul (gx, tile);
  g_autoptr(PrismDim) inner = prism_dim_div (tile, f);
  g_autoptr(PrismDim) gxf = prism_dim_mul (gx, f);
  g_autoptr(PrismDim) fgx = prism_dim_mul (f, gx);
  g_autoptr(PrismDim) inner2 = prism_dim_div (c4096, fgx);
  g_autoptr(PrismDim) restored = prism_dim_mul (inner, gxf);

  /* (4096/gx)*gx folds back to the constant, whichever side multiplies. */
  g_assert_true (prism_dim_is_const (back));
  g_assert_cmpint (prism_dim_get_const (back), ==, 4096);
  g_assert_true (prism_dim_equal (back, c4096));
  g_assert_true (prism_dim_equal (back2, c4096));

  /* (4096/gx)/F is one fraction with a product below. */
  assert_prints (tile, "4096/gx");
  assert_prints (inner, "4096/(gx*F)");
  g_assert_true (prism_dim_equal (inner, inner2));
  g_assert_cmpuint (prism_dim_hash (inner), ==, prism_dim_hash (inner2));
  g_assert_true (prism_dim_equal (restored, c4096));

  /* Products are ordered by variable index, so gx*F == F*gx. */
  g_assert_true (prism_dim_equal (gxf, fgx));
  assert_prints (fgx, "gx*F");
  g_assert_false (prism_dim_equal (gx, f));
  g_assert_false (prism_dim_equal (tile, inner));
  g_assert_false (prism_dim_is_const (tile));
  g_assert_cmpint (prism_dim_get_const (tile), ==, -1);
  g_assert_true (prism_dim_is_var (gx));
  g_assert_false (prism_dim_is_var (tile));
}

static void
test_constants (void)
{
  g_autoptr(PrismDim) six = prism_dim_const (6);
  g_autoptr(PrismDim) four = prism_dim_const (4);
  g_autoptr(PrismDim) two = prism_dim_const (2);
  g_autoptr(PrismDim) zero = prism_dim_const (0);
  g_autoptr(PrismDim) gx = prism_dim_var (0);
  g_autoptr(PrismDim) q = prism_dim_div (six, four);
  g_autoptr(PrismDim) exact = prism_dim_div (four, two);
  g_autoptr(PrismDim) sum = prism_dim_add (six, four);
  g_autoptr(PrismDim) plus_zero = prism_dim_add (gx, zero);
  g_autoptr(PrismDim) zero_plus = prism_dim_add (zero, gx);
  g_autoptr(PrismDim) times_zero = prism_dim_mul (gx, zero);
  g_autoptr(PrismDim) big = prism_dim_const ((gint64) 1 << 40);
  g_autoptr(PrismDim) huge = prism_dim_mul (big, big);
  g_autoptr(PrismDim) huge_var = prism_dim_mul (huge, gx);
  g_autoptr(PrismDim) max = prism_dim_const (G_MAXINT64);
  g_autoptr(PrismDim) huge_sum = prism_dim_add (max, max);

  /* An inexact quotient of constants stays a fraction, reduced. */
  g_assert_false (prism_dim_is_const (q));
  assert_prints (q, "3/2");
  g_assert_true (prism_dim_is_const (exact));
  g_assert_cmpint (prism_dim_get_const (exact), ==, 2);
  g_assert_cmpint (prism_dim_get_const (sum), ==, 10);
  g_assert_true (prism_dim_equal (plus_zero, gx));
  g_assert_true (prism_dim_equal (zero_plus, gx));
  g_assert_cmpint (prism_dim_get_const (times_zero), ==, 0);

  /* Overflow saturates (no undefined behaviour); readers reject such dims. */
  g_assert_true (prism_dim_is_const (huge));
  g_assert_cmpint (prism_dim_get_const (huge), ==, G_MAXINT64);
  assert_prints (huge_var, "9223372036854775807*gx");
  g_assert_cmpint (prism_dim_get_const (huge_sum), ==, G_MAXINT64);
}

static void
test_sums (void)
{
  g_autoptr(PrismDim) a = parse ("gx+F");
  g_autoptr(PrismDim) b = parse ("F+gx");
  g_autoptr(PrismDim) c = parse ("2*(F+gx)");
  g_autoptr(PrismDim) d = parse ("(gx+F)*2");
  g_autoptr(PrismDim) e = parse ("(gx+F)/gx");
  g_autoptr(PrismDim) f = parse ("4096/gx + 64");

  g_assert_true (prism_dim_equal (a, b));
  assert_prints (b, "gx+F");
  g_assert_true (prism_dim_equal (c, d));
  assert_prints (c, "2*(gx+F)");
  assert_prints (e, "(gx+F)/gx");
  assert_prints (f, "64+4096/gx");
  g_assert_cmpfloat (prism_dim_eval_float (f, 2.0), ==, 64.0 + 2048.0);
}

static void
test_vars (void)
{
  g_autoptr(PrismDim) d = parse ("4096/(gx*F) + gy");
  g_autoptr(GHashTable) vars = g_hash_table_new (NULL, NULL);

  g_assert_true (prism_dim_has_var (d, 0));
  g_assert_true (prism_dim_has_var (d, 1));
  g_assert_true (prism_dim_has_var (d, 2));
  g_assert_false (prism_dim_has_var (d, 3));
  prism_dim_collect_vars (d, vars);
  g_assert_cmpuint (g_hash_table_size (vars), ==, 3);
  g_assert_true (g_hash_table_contains (vars, GUINT_TO_POINTER (0 + 1)));
  g_assert_true (g_hash_table_contains (vars, GUINT_TO_POINTER (2 + 1)));
}

static void
test_substitute (void)
{
  g_autoptr(PrismDim) d = parse ("4096/(gx*F)");
  const gint64 exact[] = { 64, 16 };
  const gint64 partial[] = { 64, 0 };
  const gint64 inexact[] = { 3, 1 };
  g_autoptr(PrismDim) a = prism_dim_substitute (d, exact, G_N_ELEMENTS (exact));
  g_autoptr(PrismDim) b = prism_dim_substitute (d, partial, G_N_ELEMENTS (partial));
  g_autoptr(PrismDim) c = prism_dim_substitute (d, inexact, G_N_ELEMENTS (inexact));
  g_autoptr(PrismDim) e = prism_dim_substitute (d, exact, 1);
  g_autoptr(PrismDim) unchanged = prism_dim_substitute (d, NULL, 0);

  g_assert_true (prism_dim_is_const (a));
  g_assert_cmpint (prism_dim_get_const (a), ==, 4);
  /* 0 keeps a variable symbolic. */
  assert_prints (b, "64/F");
  /* An inexact division stays a DIV node, so callers can tell. */
  g_assert_false (prism_dim_is_const (c));
  assert_prints (c, "4096/3");
  /* Variables past @n_values stay symbolic. */
  assert_prints (e, "64/F");
  g_assert_true (prism_dim_equal (unchanged, d));
}

static void
test_eval (void)
{
  g_autoptr(PrismDim) d = parse ("4096/(gx*F) + gy*2");
  g_autoptr(PrismDim) sq = parse ("gx*gx");
  g_autoptr(PrismDim) sum = parse ("gx+gx");
  const gint64 ok[] = { 64, 16, 3 };
  const gint64 inexact[] = { 3, 16, 3 };
  const gint64 unknown[] = { 64, 0, 3 };
  const gint64 huge[] = { (gint64) 1 << 62 };
  const gint64 half_max[] = { G_MAXINT64 / 2 + 1 };
  gint64 out = 0;

  g_assert_true (prism_dim_eval (d, ok, 3, &out));
  g_assert_cmpint (out, ==, 4 + 6);
  /* 4096 / (3 * 16) is not an integer. */
  g_assert_false (prism_dim_eval (d, inexact, 3, &out));
  g_assert_false (prism_dim_eval (d, unknown, 3, &out));
  g_assert_false (prism_dim_eval (d, ok, 2, &out));
  g_assert_false (prism_dim_eval (d, NULL, 0, &out));
  /* Overflow is an unknown value, not a wrapped one. */
  g_assert_false (prism_dim_eval (sq, huge, 1, &out));
  g_assert_false (prism_dim_eval (sum, half_max, 1, &out));
  g_assert_cmpfloat (prism_dim_eval_float (d, 1.0), ==, 4096.0 + 2.0);
}

static void
test_parse_print (void)
{
  /* Each expression prints in canonical form, which parses back to an equal dim. */
  static const struct
  {
    const char *text;
    const char *canonical;
  } cases[] = {
    { "4096", "4096" },
    { "gx", "gx" },
    { " 4096 / gx ", "4096/gx" },
    { "(4096/gx)/F", "4096/(gx*F)" },
    { "4096/gx/F", "4096/(gx*F)" },
    { "F*gx*2", "2*gx*F" },
    { "(4096/gx)*gx", "4096" },
    { "gx*F/gx", "F" },
    { "8*4", "32" },
    { "gx*gx/gy", "gx*gx/gy" },
    { "(gx+F)*(gy+1)", "(1+gy)*(gx+F)" },
    { "1/gx", "1/gx" },
    { "v1*gx", "gx*F" },
    { "6/4", "3/2" },
    { "2147483647", "2147483647" },
    { "((((gx))))", "gx" },
    { "gx + 0", "gx" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(PrismDim) d = parse (cases[i].text);
      g_autofree char *printed = prism_dim_to_string (d, names);
      g_autoptr(PrismDim) again = parse (printed);
      g_autofree char *printed2 = prism_dim_to_string (again, names);

      g_assert_cmpstr (printed, ==, cases[i].canonical);
      g_assert_true (prism_dim_equal (d, again));
      g_assert_cmpstr (printed2, ==, printed);
    }
}

static void
test_unnamed_vars (void)
{
  static const char * const some[] = { "gx", "", NULL };
  g_autoptr(PrismDim) v5 = prism_dim_var (5);
  g_autoptr(PrismDim) v1 = prism_dim_var (1);
  g_autoptr(PrismDim) parsed = NULL;
  g_autofree char *a = prism_dim_to_string (v5, NULL);
  g_autofree char *b = prism_dim_to_string (v1, some);
  g_autofree char *c = prism_dim_to_string (v5, some);
  GError *error = NULL;

  g_assert_cmpstr (a, ==, "v5");
  g_assert_cmpstr (b, ==, "v1");
  g_assert_cmpstr (c, ==, "v5");
  parsed = prism_dim_parse ("v5", NULL, &error);
  g_assert_no_error (error);
  g_assert_true (prism_dim_equal (parsed, v5));
}

static void
test_parse_errors (void)
{
  static const struct
  {
    const char *text;
    const char *message;
  } cases[] = {
    { "", "expected a number, a name or “(”" },
    { "4096/", "expected a number, a name or “(”" },
    { "*gx", "expected a number, a name or “(”" },
    { "(gx", "expected “)”" },
    { "gx)", "unexpected character" },
    { "gx $ 2", "unexpected character" },
    { "gx - 2", "unexpected character" },
    { "foo*2", "unknown variable" },
    { "4096/0", "division by zero" },
    { "gx/(0*F)", "division by zero" },
    { "2147483648", "number too large" },
    { "99999999999999999999999", "number too large" },
    { "4096 gx", "unexpected character" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      GError *error = NULL;
      g_autoptr(PrismDim) d = prism_dim_parse (cases[i].text, names, &error);

      g_assert_null (d);
      g_assert_error (error, PRISM_ERROR, PRISM_ERROR_PARSE);
      if (strstr (error->message, cases[i].message) == NULL)
        g_error ("“%s”: message “%s” lacks “%s”", cases[i].text, error->message, cases[i].message);
      /* The message quotes the text it could not read. */
      g_assert_nonnull (strstr (error->message, cases[i].text));
      g_clear_error (&error);
    }
}

/* "An expression has at most 64 terms" (docs/format.md): numbers and
 * variables as written, whether or not the canonical form folds them. */
static void
test_term_limit (void)
{
  g_autoptr(GPtrArray) vars = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GString) distinct = g_string_new (NULL);
  g_autoptr(GString) ones = g_string_new (NULL);
  g_autoptr(PrismDim) d = NULL;
  GError *error = NULL;

  for (guint i = 0; i < PRISM_DIM_MAX_TERMS; i++)
    {
      g_ptr_array_add (vars, g_strdup_printf ("a%u", i));
      g_string_append_printf (distinct, "%sa%u", i ? "+" : "", i);
      g_string_append (ones, i ? "+1" : "1");
    }
  g_ptr_array_add (vars, NULL);

  /* 64 terms: accepted, folded or not. */
  d = prism_dim_parse (distinct->str, (const char * const *) vars->pdata, &error);
  g_assert_no_error (error);
  g_assert_nonnull (d);
  g_clear_pointer (&d, prism_dim_unref);
  d = prism_dim_parse (ones->str, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (prism_dim_get_const (d), ==, PRISM_DIM_MAX_TERMS);
  g_clear_pointer (&d, prism_dim_unref);

  /* 65: refused, even when the sum folds to one constant. */
  g_string_append (distinct, "+1");
  g_string_append (ones, "+1");
  d = prism_dim_parse (distinct->str, (const char * const *) vars->pdata, &error);
  g_assert_null (d);
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_LIMIT);
  g_assert_nonnull (strstr (error->message, "more than 64 terms"));
  g_clear_error (&error);
  d = prism_dim_parse (ones->str, NULL, &error);
  g_assert_null (d);
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_LIMIT);
  g_clear_error (&error);
  /* Parentheses do not hide terms. */
  d = prism_dim_parse ("((1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1)+(1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1))*"
                       "((1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1)+(1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1))",
                       NULL, &error);
  g_assert_null (d);
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_LIMIT);
  g_clear_error (&error);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/dim/canonical", test_canonical);
  g_test_add_func ("/dim/constants", test_constants);
  g_test_add_func ("/dim/sums", test_sums);
  g_test_add_func ("/dim/vars", test_vars);
  g_test_add_func ("/dim/substitute", test_substitute);
  g_test_add_func ("/dim/eval", test_eval);
  g_test_add_func ("/dim/parse-print", test_parse_print);
  g_test_add_func ("/dim/unnamed-vars", test_unnamed_vars);
  g_test_add_func ("/dim/parse-errors", test_parse_errors);
  g_test_add_func ("/dim/term-limit", test_term_limit);
  return g_test_run ();
}
