/* prism-pattern.c — s-expression patterns with variables
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "prism-error.h"
#include "prism-expr-private.h"
#include "prism-pattern.h"

static PrismPattern *
pattern_new (GPtrArray *var_names)
{
  PrismPattern *pattern = g_new0 (PrismPattern, 1);

  pattern->nodes = g_array_new (FALSE, FALSE, sizeof (PrismPatNode));
  pattern->children = g_array_new (FALSE, FALSE, sizeof (guint32));
  pattern->var_names = g_ptr_array_ref (var_names);
  pattern->root = G_MAXUINT;
  return pattern;
}

void
prism_pattern_free (PrismPattern *pattern)
{
  if (pattern == NULL)
    return;
  g_array_unref (pattern->nodes);
  g_array_unref (pattern->children);
  g_ptr_array_unref (pattern->var_names);
  g_free (pattern);
}

static guint
pattern_add (PrismPattern *pattern, const PrismPatNode *node, const guint32 *children)
{
  PrismPatNode n = *node;

  n.first_child = pattern->children->len;
  if (n.n_children > 0)
    g_array_append_vals (pattern->children, children, n.n_children);
  g_array_append_val (pattern->nodes, n);
  return pattern->nodes->len - 1;
}

static gint
find_var (GPtrArray *var_names, const char *name, gsize len)
{
  for (guint i = 0; i < var_names->len; i++)
    {
      const char *v = g_ptr_array_index (var_names, i);
      if (strlen (v) == len && memcmp (v, name, len) == 0)
        return (gint) i;
    }
  return -1;
}

/* Patterns: integers, symbols and variables ("?x", numbered by first use). */
static gboolean
pattern_leaf (gpointer data, const PrismLexer *lx, PrismAtomKind kind, gint64 value, guint *out,
              GError **error)
{
  PrismPattern *pattern = data;
  PrismPatNode node = { PRISM_SYMBOL_NONE, -1, 0, 0, 0 };

  (void) error;
  if (kind == PRISM_ATOM_VAR)
    {
      const char *name = lx->text + lx->start + 1;
      gsize len = lx->tok_len - 1;
      gint var = find_var (pattern->var_names, name, len);

      if (var < 0)
        {
          var = (gint) pattern->var_names->len;
          g_ptr_array_add (pattern->var_names, g_strndup (name, len));
        }
      node.var = var;
    }
  else if (kind == PRISM_ATOM_INT)
    node.value = value;
  else
    {
      g_autofree char *tok = prism_lexer_token (lx);
      node.op = prism_symbol_intern (tok);
    }
  *out = pattern_add (pattern, &node, NULL);
  return TRUE;
}

static guint
pattern_node (gpointer data, PrismSymbol op, guint n_children, const guint *children)
{
  PrismPatNode node = { op, -1, n_children, 0, 0 };

  G_STATIC_ASSERT (sizeof (guint) == sizeof (guint32));
  return pattern_add (data, &node, (const guint32 *) children);
}

static const PrismSexpReader pattern_reader = { pattern_leaf, pattern_node, "a pattern" };

PrismPattern *
prism_pattern_parse_lexer (PrismLexer *lexer, GPtrArray *var_names, GError **error)
{
  g_autoptr(PrismPattern) pattern = pattern_new (var_names);

  gsize start = lexer->start;

  if (!prism_lexer_read_sexp (lexer, &pattern_reader, pattern, &pattern->root, error))
    return NULL;
  /* The matcher and the instantiation recurse once per pattern node. */
  if (pattern->nodes->len > PRISM_PATTERN_MAX_NODES)
    {
      prism_lexer_error (lexer, start, error, "the pattern has more than %d nodes",
                         PRISM_PATTERN_MAX_NODES);
      return NULL;
    }
  return g_steal_pointer (&pattern);
}

PrismPattern *
prism_pattern_parse (const char *text, GError **error)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(PrismPattern) pattern = NULL;
  PrismLexer lx;

  g_return_val_if_fail (text != NULL, NULL);
  prism_lexer_init (&lx, text, strlen (text));
  pattern = prism_pattern_parse_lexer (&lx, names, error);
  if (pattern == NULL)
    return NULL;
  if (lx.kind != PRISM_TOK_END)
    {
      g_autofree char *what = prism_lexer_describe (&lx);
      prism_lexer_error (&lx, lx.start, error, "unexpected %s after the pattern", what);
      return NULL;
    }
  return g_steal_pointer (&pattern);
}

guint
prism_pattern_get_n_vars (const PrismPattern *pattern)
{
  g_return_val_if_fail (pattern != NULL, 0);
  return pattern->var_names->len;
}

const char *
prism_pattern_get_var_name (const PrismPattern *pattern, guint var)
{
  g_return_val_if_fail (pattern != NULL && var < pattern->var_names->len, NULL);
  return g_ptr_array_index (pattern->var_names, var);
}

gint
prism_pattern_lookup_var (const PrismPattern *pattern, const char *name)
{
  g_return_val_if_fail (pattern != NULL && name != NULL, -1);
  return find_var (pattern->var_names, name, strlen (name));
}

gboolean
prism_pattern_is_var (const PrismPattern *pattern)
{
  g_return_val_if_fail (pattern != NULL, FALSE);
  return prism_pattern_node (pattern, pattern->root)->var >= 0;
}

gboolean
prism_pattern_has_var (const PrismPattern *pattern, guint var)
{
  for (guint i = 0; i < pattern->nodes->len; i++)
    if (prism_pattern_node (pattern, i)->var == (gint32) var)
      return TRUE;
  return FALSE;
}

static void
pattern_append (const PrismPattern *pattern, guint i, GString *out)
{
  const PrismPatNode *n = prism_pattern_node (pattern, i);

  if (n->var >= 0)
    {
      g_string_append_c (out, '?');
      g_string_append (out, g_ptr_array_index (pattern->var_names, n->var));
      return;
    }
  if (n->op == PRISM_SYMBOL_NONE)
    {
      g_string_append_printf (out, "%" G_GINT64_FORMAT, n->value);
      return;
    }
  if (n->n_children == 0)
    {
      g_string_append (out, prism_symbol_name (n->op));
      return;
    }
  g_string_append_c (out, '(');
  g_string_append (out, prism_symbol_name (n->op));
  for (guint c = 0; c < n->n_children; c++)
    {
      g_string_append_c (out, ' ');
      pattern_append (pattern, prism_pattern_children (pattern, n)[c], out);
    }
  g_string_append_c (out, ')');
}

char *
prism_pattern_to_string (const PrismPattern *pattern)
{
  GString *out = g_string_new (NULL);

  g_return_val_if_fail (pattern != NULL, NULL);
  pattern_append (pattern, pattern->root, out);
  return g_string_free (out, FALSE);
}

static gboolean
match_term_rec (const PrismPattern *pattern,
                guint               p,
                const PrismTerm    *term,
                guint               node,
                guint              *subst)
{
  const PrismPatNode *pn = prism_pattern_node (pattern, p);
  guint n_children;

  if (pn->var >= 0)
    {
      if (subst[pn->var] == G_MAXUINT)
        {
          subst[pn->var] = node;
          return TRUE;
        }
      return prism_term_node_equal (term, subst[pn->var], term, node);
    }
  if (prism_term_node_get_op (term, node) != pn->op)
    return FALSE;
  if (pn->op == PRISM_SYMBOL_NONE)
    return prism_term_node_get_int (term, node) == pn->value;
  n_children = prism_term_node_get_n_children (term, node);
  if (n_children != pn->n_children)
    return FALSE;
  for (guint i = 0; i < n_children; i++)
    if (!match_term_rec (pattern, prism_pattern_children (pattern, pn)[i],
                         term, prism_term_node_get_child (term, node, i), subst))
      return FALSE;
  return TRUE;
}

gboolean
prism_pattern_match_term (const PrismPattern *pattern,
                          const PrismTerm    *term,
                          guint               node,
                          guint              *subst)
{
  g_return_val_if_fail (pattern != NULL && term != NULL && subst != NULL, FALSE);
  g_return_val_if_fail (node < prism_term_get_n_nodes (term), FALSE);
  for (guint v = 0; v < pattern->var_names->len; v++)
    subst[v] = G_MAXUINT;
  return match_term_rec (pattern, pattern->root, term, node, subst);
}

static guint
instantiate_rec (const PrismPattern *pattern,
                 guint               p,
                 PrismTerm          *dst,
                 const PrismTerm    *src,
                 const guint        *subst)
{
  const PrismPatNode *pn = prism_pattern_node (pattern, p);
  guint stack_buf[8];
  g_autofree guint *heap_buf = NULL;
  guint *kids = stack_buf;

  if (pn->var >= 0)
    {
      if (subst[pn->var] == G_MAXUINT)
        return G_MAXUINT;
      return prism_term_add_subterm (dst, src, subst[pn->var]);
    }
  if (pn->op == PRISM_SYMBOL_NONE)
    return prism_term_add_int (dst, pn->value);
  if (pn->n_children > G_N_ELEMENTS (stack_buf))
    kids = heap_buf = g_new (guint, pn->n_children);
  for (guint i = 0; i < pn->n_children; i++)
    {
      kids[i] = instantiate_rec (pattern, prism_pattern_children (pattern, pn)[i], dst, src, subst);
      if (kids[i] == G_MAXUINT)
        return G_MAXUINT;
    }
  return prism_term_add_node (dst, pn->op, pn->n_children, kids);
}

guint
prism_pattern_instantiate (const PrismPattern *pattern,
                           PrismTerm          *dst,
                           const PrismTerm    *src,
                           const guint        *subst)
{
  g_return_val_if_fail (pattern != NULL && dst != NULL && src != NULL, G_MAXUINT);
  return instantiate_rec (pattern, pattern->root, dst, src, subst);
}
