/* prism-cli-budget.h — the interpreter's budgets as options of `prism run`
 * and `prism verify`
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "prism-interp.h"

G_BEGIN_DECLS

/* The --max-memory SIZE and --max-work N entries; they fill the strings. */
#define PRISM_CLI_BUDGET_ENTRIES(max_memory, max_work) \
  { "max-memory", 0, 0, G_OPTION_ARG_STRING, (max_memory), \
    N_("Most memory the interpreter may use, e.g. 512M or 8G (default: half the physical memory)"), \
    N_("SIZE") }, \
  { "max-work", 0, 0, G_OPTION_ARG_STRING, (max_work), \
    N_("Most element operations one interpreter run may do, e.g. 50G (default 16G)"), N_("N") }

/**
 * prism_cli_budget_apply:
 * @max_memory: (nullable): the --max-memory text: a number of bytes with an
 *   optional K, M, G or T (powers of 1024; "KiB", "MB" … read the same)
 * @max_work: (nullable): the --max-work text: a count with an optional k, M,
 *   G or T (powers of 1000)
 * @options: (nullable): options whose budgets are set too
 * @error: return location for a #GError naming the option
 *
 * Makes them the budgets of every interpreter run of the process (the
 * verifier's runs included) with prism_interp_set_default_budget().
 *
 * Returns: %FALSE when a text is not a positive size or count
 */
gboolean prism_cli_budget_apply (const char         *max_memory,
                                 const char         *max_work,
                                 PrismInterpOptions *options,
                                 GError            **error);

G_END_DECLS
