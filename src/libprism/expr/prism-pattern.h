/* prism-pattern.h — s-expression patterns with variables
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "prism-term.h"

G_BEGIN_DECLS

/**
 * PrismPattern:
 *
 * A term in which leaves may be variables `?x`.  A variable may occur several
 * times (a non-linear pattern: all occurrences must match the same e-class or
 * the same subterm).  Variables are numbered from 0 in order of first
 * occurrence; a substitution is an array indexed by that number.  The two
 * sides of a rule share one numbering (see prism-rewrite.h).
 *
 * Immutable once parsed: const functions may run concurrently.
 */
typedef struct _PrismPattern PrismPattern;

/**
 * prism_pattern_parse:
 * @text: e.g. `(+ ?a (* ?b ?a))`
 * @error: return location for a #GError (PRISM_ERROR_PARSE)
 *
 * Returns: (transfer full) (nullable): the pattern
 */
PrismPattern *prism_pattern_parse        (const char          *text,
                                          GError             **error);
void          prism_pattern_free         (PrismPattern        *pattern);

guint         prism_pattern_get_n_vars   (const PrismPattern  *pattern);
/* Returns: (transfer none): the variable's name without the '?' */
const char   *prism_pattern_get_var_name (const PrismPattern  *pattern,
                                          guint                var);
/* Returns: the variable's number, or -1 if @name (without '?') is not one. */
gint          prism_pattern_lookup_var   (const PrismPattern  *pattern,
                                          const char          *name);
/* Whether the whole pattern is one variable. */
gboolean      prism_pattern_is_var       (const PrismPattern  *pattern);
/* Returns: (transfer full): the pattern in its text form */
char         *prism_pattern_to_string    (const PrismPattern  *pattern);

/**
 * prism_pattern_match_term:
 * @pattern: a pattern
 * @term: a term
 * @node: the node of @term to match at (not below it)
 * @subst: (out caller-allocates) (array): prism_pattern_get_n_vars() node indices of @term
 *
 * Syntactic matching (no e-graph, no rewriting): a repeated variable matches
 * only equal subterms.  Variables that do not occur in @pattern but are
 * numbered (shared with the other side of a rule) are set to G_MAXUINT.
 *
 * Returns: %TRUE if @pattern matches the subterm at @node
 */
gboolean      prism_pattern_match_term   (const PrismPattern  *pattern,
                                          const PrismTerm     *term,
                                          guint                node,
                                          guint               *subst);

/**
 * prism_pattern_instantiate:
 * @pattern: a pattern
 * @dst: the term to build into
 * @src: the term @subst refers to (may be @dst)
 * @subst: (array): for each variable, a node of @src
 *
 * Returns: the index in @dst of @pattern with its variables replaced, or
 *   G_MAXUINT if a variable of @pattern has no value (G_MAXUINT in @subst)
 */
guint         prism_pattern_instantiate  (const PrismPattern  *pattern,
                                          PrismTerm           *dst,
                                          const PrismTerm     *src,
                                          const guint         *subst);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrismPattern, prism_pattern_free)

G_END_DECLS
