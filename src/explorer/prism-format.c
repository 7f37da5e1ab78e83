/* prism-format.c — numbers, times and speedups as the explorer writes them
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n.h>

#include "prism-format.h"
#include "prism-egraph.h"
#include "prism-par-typer.h"
#include "prism-rewrite.h"

char *
prism_format_count (guint64 count)
{
  if (count < 1000)
    return g_strdup_printf ("%u", (guint) count);
  if (count < 1000000)
    /* Translators: a count in thousands, as in “12.3 k states” */
    return g_strdup_printf (_("%.*f k"), count < 10000 ? 2 : count < 100000 ? 1 : 0, count / 1e3);
  if (count < 1000000000)
    /* Translators: a count in millions */
    return g_strdup_printf (_("%.*f M"), count < 10000000 ? 2 : count < 100000000 ? 1 : 0,
                            count / 1e6);
  /* Translators: a count in billions */
  return g_strdup_printf (_("%.1f G"), count / 1e9);
}

char *
prism_format_exact (guint64 count)
{
  /* glibc's ' flag groups digits the locale's way. */
  return g_strdup_printf ("%'llu", (unsigned long long) count);
}

char *
prism_format_seconds (double seconds)
{
  if (!isfinite (seconds) || seconds < 0)
    seconds = 0;
  if (seconds < 0.001)
    /* Translators: less than a millisecond */
    return g_strdup (_("< 1 ms"));
  if (seconds < 1)
    /* Translators: milliseconds */
    return g_strdup_printf (_("%.0f ms"), seconds * 1e3);
  if (seconds < 10)
    /* Translators: seconds with one decimal */
    return g_strdup_printf (_("%.1f s"), seconds);
  if (seconds < 60)
    /* Translators: whole seconds */
    return g_strdup_printf (_("%.0f s"), floor (seconds));
  if (seconds < 3600)
    {
      guint s = (guint) seconds;
      /* Translators: minutes and seconds */
      return g_strdup_printf (_("%u min %02u s"), s / 60, s % 60);
    }
  {
    guint m = (guint) (seconds / 60);
    /* Translators: hours and minutes */
    return g_strdup_printf (_("%u h %02u min"), m / 60, m % 60);
  }
}

char *
prism_format_time_us (double us)
{
  if (!isfinite (us) || us < 0)
    return g_strdup ("—");
  if (us < 1)
    /* Translators: nanoseconds */
    return g_strdup_printf (_("%.0f ns"), us * 1e3);
  if (us < 1000)
    /* Translators: microseconds */
    return g_strdup_printf (_("%.*f µs"), us < 10 ? 2 : us < 100 ? 1 : 0, us);
  /* Translators: milliseconds */
  return g_strdup_printf (_("%.*f ms"), us < 1e4 ? 2 : us < 1e5 ? 1 : 0, us / 1e3);
}

char *
prism_format_speedup (double speedup)
{
  if (!isfinite (speedup) || speedup <= 0)
    return g_strdup ("—");
  /* Translators: a speedup over the unfused program, as in “1.42×” */
  return g_strdup_printf (_("%.2f×"), speedup);
}

/**
 * prism_format_prediction_error:
 * @predicted_us: the cost model's time
 * @measured_us: the GPU's
 *
 * Returns: (transfer full): how far the measured time is from the
 *   predicted one, signed ("+26 %": slower than predicted; "−20 %": faster),
 *   or "—" when either is unknown
 */
char *
prism_format_prediction_error (double predicted_us,
                               double measured_us)
{
  double percent;

  if (!(predicted_us > 0) || !(measured_us > 0) || !isfinite (predicted_us) || !isfinite (measured_us))
    return g_strdup ("—");
  percent = 100 * (measured_us - predicted_us) / predicted_us;
  if (fabs (percent) < 0.5)
    return g_strdup ("±0 %");
  /* Translators: how far a measured time is from the predicted one */
  return g_strdup_printf (percent > 0 ? _("+%.0f %%") : _("−%.0f %%"), fabs (percent));
}

char *
prism_format_error (double error)
{
  if (!isfinite (error))
    return g_strdup ("—");
  if (error == 0)
    return g_strdup ("0");
  if (error >= 0.01 && error < 1000)
    return g_strdup_printf ("%.3g", error);
  return g_strdup_printf ("%.2e", error);
}

char *
prism_format_bytes (double bytes)
{
  if (!isfinite (bytes) || bytes < 0)
    return g_strdup ("—");
  if (bytes < 1024)
    /* Translators: bytes */
    return g_strdup_printf (_("%.0f B"), bytes);
  if (bytes < 1024 * 1024)
    /* Translators: kibibytes */
    return g_strdup_printf (_("%.1f KiB"), bytes / 1024);
  if (bytes < 1024.0 * 1024 * 1024)
    /* Translators: mebibytes */
    return g_strdup_printf (_("%.1f MiB"), bytes / (1024.0 * 1024));
  /* Translators: gibibytes */
  return g_strdup_printf (_("%.2f GiB"), bytes / (1024.0 * 1024 * 1024));
}

char *
prism_format_flops_rate (double gflops)
{
  if (!isfinite (gflops) || gflops < 0)
    return g_strdup ("—");
  if (gflops < 1)
    /* Translators: a rate in millions of floating-point operations per second */
    return g_strdup_printf (_("%.0f MFLOP/s"), gflops * 1e3);
  if (gflops < 1000)
    /* Translators: a rate in billions of floating-point operations per second */
    return g_strdup_printf (_("%.*f GFLOP/s"), gflops < 10 ? 2 : gflops < 100 ? 1 : 0, gflops);
  /* Translators: a rate in trillions of floating-point operations per second */
  return g_strdup_printf (_("%.*f TFLOP/s"), gflops < 1e4 ? 2 : gflops < 1e5 ? 1 : 0, gflops / 1e3);
}

char *
prism_format_bandwidth (double gbs)
{
  if (!isfinite (gbs) || gbs < 0)
    return g_strdup ("—");
  if (gbs < 1000)
    /* Translators: a bandwidth in gigabytes per second */
    return g_strdup_printf (_("%.0f GB/s"), gbs);
  /* Translators: a bandwidth in terabytes per second */
  return g_strdup_printf (_("%.2f TB/s"), gbs / 1e3);
}

char *
prism_format_intensity (double flop_per_byte)
{
  if (!isfinite (flop_per_byte) || flop_per_byte < 0)
    return g_strdup ("—");
  if (flop_per_byte >= 100)
    /* Translators: arithmetic intensity, floating-point operations per byte of DRAM traffic */
    return g_strdup_printf (_("%.0f FLOP/B"), flop_per_byte);
  /* Translators: arithmetic intensity, floating-point operations per byte of DRAM traffic */
  return g_strdup_printf (_("%.3g FLOP/B"), flop_per_byte);
}

/* The engine's reason names (order, expr, …) are identifiers for files and
 * scripts; the window says what they mean. */
const char *
prism_format_prune_reason (PrismPruneReason reason)
{
  switch (reason)
    {
    case PRISM_PRUNE_ORDER:     return C_("pruning reason", "Other order");
    case PRISM_PRUNE_DUPLICATE: return C_("pruning reason", "Repeated operand");
    case PRISM_PRUNE_SHAPE:     return C_("pruning reason", "Shape mismatch");
    case PRISM_PRUNE_LOOP:      return C_("pruning reason", "Loop mix-up");
    case PRISM_PRUNE_EXPR:      return C_("pruning reason", "Not in program");
    case PRISM_PRUNE_SMEM:      return C_("pruning reason", "Shared memory");
    case PRISM_PRUNE_ACCUM:     return C_("pruning reason", "Accumulator limit");
    case PRISM_PRUNE_OPS:       return C_("pruning reason", "Op limit");
    case PRISM_PRUNE_TRIVIAL:   return C_("pruning reason", "Copies only");
    case PRISM_PRUNE_TIME:      return C_("pruning reason", "Out of time");
    case PRISM_N_PRUNE_REASONS:
    default:
      g_return_val_if_reached ("?");
    }
}

/* The verdicts are identifiers of results.json; the window says them in
 * words.  One it does not know is shown as it is. */
const char *
prism_format_verdict (const char *verdict)
{
  if (g_strcmp0 (verdict, "equivalent") == 0)
    return C_("verdict", "equivalent");
  if (g_strcmp0 (verdict, "not-equivalent") == 0)
    return C_("verdict", "not equivalent");
  if (g_strcmp0 (verdict, "unknown") == 0)
    return C_("verdict", "neither proved nor refuted");
  if (g_strcmp0 (verdict, "verifier-bug") == 0)
    return C_("verdict", "the proof and the test disagree");
  return verdict;
}

/*
 * Rewrite rules in mathematical notation
 */

/* The verifier's rules, read once (the compiled-in rule file). */
static const PrismRuleSet *
verify_rules (void)
{
  static gsize once = 0;
  static PrismRuleSet *rules = NULL;
  static PrismParEnv *env;
  static PrismEgraph *egraph;
  static PrismParTyper *typer;

  if (g_once_init_enter (&once))
    {
      g_autoptr(GError) error = NULL;
      PrismRuleSet *set = prism_rule_set_new ();
      /* The rules name the verifier's conditions; a typer of nothing
       * registers them (they are never checked here, only printed).  Kept
       * for the life of the program, as the set is. */
      env = prism_par_env_new ();
      egraph = prism_egraph_new (PRISM_EGRAPH_FLAGS_NONE);
      typer = prism_par_typer_new (env, egraph);

      prism_par_typer_register_conditions (typer, set);
      if (!prism_rule_set_add_builtin (set, "verify", &error))
        {
          g_warning ("cannot read the verifier's rules: %s", error->message);
          g_clear_pointer (&set, prism_rule_set_free);
        }
      rules = set;
      g_once_init_leave (&once, 1);
    }
  return rules;
}

typedef struct
{
  const char *p;
  guint depth;
} Reader;

static void
skip_spaces (Reader *r)
{
  while (*r->p == ' ')
    r->p++;
}

static char *
read_atom (Reader *r)
{
  const char *start = r->p;

  while (*r->p != '\0' && *r->p != ' ' && *r->p != '(' && *r->p != ')')
    r->p++;
  /* Pattern variables read without their '?'. */
  if (*start == '?')
    start++;
  return g_strndup (start, r->p - start);
}

static const char *
infix_symbol (const char *op)
{
  static const struct { const char *op, *symbol; } table[] = {
    { "add", " + " }, { "sub", " − " }, { "mul", " · " }, { "div", " / " },
  };

  for (guint i = 0; i < G_N_ELEMENTS (table); i++)
    if (g_str_equal (op, table[i].op))
      return table[i].symbol;
  return NULL;
}

/* One pattern term from @r as mathematics; *@infix says whether it is a
 * binary operation (which needs parentheses as an operand).  The rules are
 * our own compiled-in text, their patterns at most PRISM_PATTERN_MAX_NODES
 * deep; the depth is bounded again here all the same. */
static char *
read_term (Reader   *r,
           gboolean *infix)
{
  g_autofree char *head = NULL;
  g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GArray) args_infix = g_array_new (FALSE, FALSE, sizeof (gboolean));
  const char *symbol;

  *infix = FALSE;
  skip_spaces (r);
  if (*r->p != '(')
    return read_atom (r);
  if (++r->depth > 64)
    return NULL;
  r->p++;
  skip_spaces (r);
  head = read_atom (r);
  for (;;)
    {
      gboolean sub_infix;
      char *arg;

      skip_spaces (r);
      if (*r->p == ')' || *r->p == '\0')
        break;
      if ((arg = read_term (r, &sub_infix)) == NULL)
        return NULL;
      g_ptr_array_add (args, arg);
      g_array_append_val (args_infix, sub_infix);
    }
  if (*r->p == ')')
    r->p++;
  r->depth--;

#define ARG(i) ((const char *) g_ptr_array_index (args, i))
#define PAREN(i) (g_array_index (args_infix, gboolean, i))
  if (g_str_equal (head, "map2") && args->len == 3 && (symbol = infix_symbol (ARG (0))) != NULL)
    {
      *infix = TRUE;
      return g_strdup_printf ("%s%s%s%s%s%s%s", PAREN (1) ? "(" : "", ARG (1), PAREN (1) ? ")" : "",
                              symbol, PAREN (2) ? "(" : "", ARG (2), PAREN (2) ? ")" : "");
    }
  if (g_str_equal (head, "map2") && args->len == 3)
    return g_strdup_printf ("%s(%s, %s)", ARG (0), ARG (1), ARG (2));
  if (g_str_equal (head, "map") && args->len == 2 && g_str_equal (ARG (0), "neg"))
    return g_strdup_printf (PAREN (1) || g_str_has_prefix (ARG (1), "−") ? "−(%s)" : "−%s", ARG (1));
  if (g_str_equal (head, "map") && args->len == 2)
    return g_strdup_printf ("%s(%s)", ARG (0), ARG (1));
  if ((g_str_equal (head, "matmul") || g_str_equal (head, "divn")) && args->len == 2)
    {
      *infix = TRUE;
      return g_strdup_printf ("%s%s%s %s %s%s%s", PAREN (0) ? "(" : "", ARG (0), PAREN (0) ? ")" : "",
                              g_str_equal (head, "matmul") ? "@" : "/",
                              PAREN (1) ? "(" : "", ARG (1), PAREN (1) ? ")" : "");
    }
#undef ARG
#undef PAREN
  g_ptr_array_add (args, NULL);
  {
    g_autofree char *joined = g_strjoinv (", ", (char **) args->pdata);
    return g_strdup_printf ("%s(%s)", head, joined);
  }
}

static char *
pattern_math (const char *text)
{
  Reader r = { text, 0 };
  gboolean infix;

  return read_term (&r, &infix);
}

/**
 * prism_format_rule:
 * @name: a rule of the verifier, as a proof lists it
 *
 * Returns: (transfer full) (nullable): the rule as an equation, e.g.
 *   "a + b = b + a" (with its conditions, if any, after "if"), or %NULL
 *   for a name the verifier has no rule for
 */
char *
prism_format_rule (const char *name)
{
  const PrismRuleSet *rules = verify_rules ();
  const PrismRule *rule = rules ? prism_rule_set_lookup (rules, name) : NULL;
  g_autofree char *text = NULL;
  g_autofree char *lhs = NULL, *rhs = NULL;
  const char *arrow, *conditions;

  if (rule == NULL)
    return NULL;
  /* "name: LHS => RHS if c(?x) and …" */
  text = prism_rule_to_string (rule);
  lhs = pattern_math (strchr (text, ':') + 1);
  arrow = strstr (text, prism_rule_is_bidirectional (rule) ? " <=> " : " => ");
  if (lhs == NULL || arrow == NULL)
    return NULL;
  rhs = pattern_math (strchr (arrow + 1, ' ') + 1);
  if (rhs == NULL)
    return NULL;
  conditions = strstr (arrow, " if ");
  if (conditions != NULL)
    {
      GString *plain = g_string_new (NULL);

      /* The conditions name the same variables, without their '?'. */
      for (const char *c = conditions; *c != '\0'; c++)
        if (*c != '?')
          g_string_append_c (plain, *c);
      {
        g_autofree char *cond = g_string_free (plain, FALSE);
        /* TRANSLATORS: a rewrite rule: left side = right side, then its conditions (" if …") */
        return g_strdup_printf (_("%s = %s%s"), lhs, rhs, cond);
      }
    }
  return g_strdup_printf (_("%s = %s%s"), lhs, rhs, "");
}
