/* test-format.c — the explorer's number and text formats
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib.h>

#include "prism-format.h"

/* A proof's rules are shown as the equations they are, not only by name. */
static void
test_rule_equations (void)
{
  static const struct { const char *name, *equation; } cases[] = {
    { "comm-add", "a + b = b + a" },
    { "assoc-mul", "a · (b · c) = (a · b) · c" },
    { "matmul-assoc", "a @ (b @ c) = (a @ b) @ c" },
    { "neg-neg", "−(−t) = t" },
    { "mul-div", "a · (b / c) = (a · b) / c" },
    { "matmul-div-rows", "(a / s) @ c = (a @ c) / s if dim_one(s, 0) and fits(s, a) and mm_ok(a, c)" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *equation = prism_format_rule (cases[i].name);

      g_assert_cmpstr (equation, ==, cases[i].equation);
    }
  /* Every rule of the verifier reads as an equation. */
  g_assert_null (prism_format_rule ("no-such-rule"));
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/explorer/format/rule-equations", test_rule_equations);
  return g_test_run ();
}
