/* prism-cli-budget.c — the interpreter's budgets as command-line options
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n.h>

#include "prism-cli-budget.h"

/* "512M", "1.5G", "8GiB", "1e9": a positive number with an optional
 * suffix, K/M/G/T meaning @base^1 … @base^4; "B" and "iB" after it are
 * allowed for sizes.  Rounded to an integer ≥ 1. */
static gboolean
parse_amount (const char *text, double base, gboolean bytes, guint64 *out)
{
  static const char suffixes[] = "KMGT";
  char *end = NULL;
  double value = g_ascii_strtod (text, &end);

  if (end == text || !isfinite (value) || value <= 0)
    return FALSE;
  if (*end != '\0')
    {
      const char *p = strchr (suffixes, g_ascii_toupper (*end));

      if (p == NULL)
        return FALSE;
      value *= pow (base, (double) (p - suffixes + 1));
      end++;
      if (bytes && *end == 'i')
        end++;
      if (bytes && (*end == 'B' || *end == 'b'))
        end++;
      if (*end != '\0')
        return FALSE;
    }
  value = round (value);
  /* 2^64 is not representable: stay strictly below it. */
  if (value < 1 || value >= 18446744073709551616.0)
    return FALSE;
  *out = (guint64) value;
  return TRUE;
}

gboolean
prism_cli_budget_apply (const char *max_memory, const char *max_work, PrismInterpOptions *options,
                        GError **error)
{
  guint64 memory = 0, work = 0;

  if (max_memory != NULL && !parse_amount (max_memory, 1024, TRUE, &memory))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   _("--max-memory must be a positive size in bytes, e.g. 512M or 8G, not “%s”"),
                   max_memory);
      return FALSE;
    }
  if (max_work != NULL && !parse_amount (max_work, 1000, FALSE, &work))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   _("--max-work must be a positive number of operations, e.g. 50G, not “%s”"),
                   max_work);
      return FALSE;
    }
  prism_interp_set_default_budget (memory, work);
  if (options != NULL)
    {
      options->max_memory = memory;
      options->max_work = work;
    }
  return TRUE;
}
