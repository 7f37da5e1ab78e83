/* prism-term.c — interned symbols and s-expression terms
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "prism-error.h"
#include "prism-expr-private.h"
#include "prism-term.h"

/* ------------------------------------------------------------------------ */
/* Symbols */

PrismSymbol
prism_symbol_intern (const char *name)
{
  g_return_val_if_fail (name != NULL && *name != '\0', PRISM_SYMBOL_NONE);
  return g_quark_from_string (name);
}

PrismSymbol
prism_symbol_try (const char *name)
{
  if (name == NULL)
    return PRISM_SYMBOL_NONE;
  return g_quark_try_string (name);
}

const char *
prism_symbol_name (PrismSymbol symbol)
{
  const char *name = g_quark_to_string (symbol);

  return name != NULL ? name : "";
}

/* ------------------------------------------------------------------------ */
/* PrismIdTable */

void
prism_id_table_init (PrismIdTable *table)
{
  memset (table, 0, sizeof *table);
}

void
prism_id_table_clear (PrismIdTable *table)
{
  g_free (table->slots);
  memset (table, 0, sizeof *table);
}

void
prism_id_table_copy (PrismIdTable *dst, const PrismIdTable *src)
{
  guint32 cap = src->slots != NULL ? src->mask + 1 : 0;

  *dst = *src;
  dst->slots = cap ? g_memdup2 (src->slots, cap * sizeof (PrismIdSlot)) : NULL;
}

guint32
prism_id_table_lookup (const PrismIdTable *table,
                       guint32             hash,
                       PrismIdEqualFunc    equal,
                       gconstpointer       ctx)
{
  guint32 i;

  if (table->slots == NULL)
    return PRISM_ID_EMPTY;
  for (i = hash & table->mask;; i = (i + 1) & table->mask)
    {
      const PrismIdSlot *slot = &table->slots[i];

      if (slot->id == PRISM_ID_EMPTY)
        return PRISM_ID_EMPTY;
      if (slot->hash == hash && slot->id != PRISM_ID_TOMB && equal (ctx, slot->id))
        return slot->id;
    }
}

static void
id_table_resize (PrismIdTable *table, guint32 cap)
{
  PrismIdSlot *old = table->slots;
  guint32 old_cap = old != NULL ? table->mask + 1 : 0;

  table->slots = g_new (PrismIdSlot, cap);
  memset (table->slots, 0xff, cap * sizeof (PrismIdSlot));
  table->mask = cap - 1;
  table->n_used = 0;
  table->n_live = 0;
  for (guint32 i = 0; i < old_cap; i++)
    if (old[i].id < PRISM_ID_TOMB)
      prism_id_table_insert (table, old[i].hash, old[i].id);
  g_free (old);
}

void
prism_id_table_insert (PrismIdTable *table, guint32 hash, guint32 id)
{
  guint32 i;

  g_assert (id < PRISM_ID_TOMB);
  /* Keep the load (tombstones included) under 3/4; grow only if live
   * entries need it, otherwise rehashing in place drops the tombstones. */
  if (table->slots == NULL)
    id_table_resize (table, 64);
  else if ((guint64) (table->n_used + 1) * 4 > (guint64) (table->mask + 1) * 3)
    {
      guint32 cap = table->mask + 1;

      if ((guint64) (table->n_live + 1) * 2 > cap)
        cap *= 2;
      id_table_resize (table, cap);
    }
  for (i = hash & table->mask;; i = (i + 1) & table->mask)
    {
      PrismIdSlot *slot = &table->slots[i];

      if (slot->id == PRISM_ID_EMPTY || slot->id == PRISM_ID_TOMB)
        {
          if (slot->id == PRISM_ID_EMPTY)
            table->n_used++;
          slot->id = id;
          slot->hash = hash;
          table->n_live++;
          return;
        }
    }
}

gboolean
prism_id_table_remove (PrismIdTable *table, guint32 hash, guint32 id)
{
  guint32 i;

  if (table->slots == NULL)
    return FALSE;
  for (i = hash & table->mask;; i = (i + 1) & table->mask)
    {
      PrismIdSlot *slot = &table->slots[i];

      if (slot->id == PRISM_ID_EMPTY)
        return FALSE;
      if (slot->id == id)
        {
          slot->id = PRISM_ID_TOMB;
          table->n_live--;
          return TRUE;
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Lexer */

void
prism_lexer_init (PrismLexer *lexer, const char *text, gsize len)
{
  memset (lexer, 0, sizeof *lexer);
  lexer->text = text;
  lexer->len = len;
  prism_lexer_next (lexer);
}

static gboolean
is_delimiter (char c)
{
  return g_ascii_isspace (c) || c == '(' || c == ')' || c == ',' || c == '\0';
}

void
prism_lexer_next (PrismLexer *lexer)
{
  gsize p = lexer->pos;

  while (p < lexer->len && g_ascii_isspace (lexer->text[p]))
    p++;
  lexer->start = p;
  if (p >= lexer->len || lexer->text[p] == '\0')
    {
      lexer->kind = PRISM_TOK_END;
      lexer->tok_len = 0;
      lexer->pos = p;
      return;
    }
  switch (lexer->text[p])
    {
    case '(':
      lexer->kind = PRISM_TOK_LPAREN;
      p++;
      break;
    case ')':
      lexer->kind = PRISM_TOK_RPAREN;
      p++;
      break;
    case ',':
      lexer->kind = PRISM_TOK_COMMA;
      p++;
      break;
    default:
      lexer->kind = PRISM_TOK_ATOM;
      while (p < lexer->len && !is_delimiter (lexer->text[p]))
        p++;
      break;
    }
  lexer->tok_len = p - lexer->start;
  lexer->pos = p;
}

gboolean
prism_lexer_atom_is (const PrismLexer *lexer, const char *word)
{
  return lexer->kind == PRISM_TOK_ATOM
         && strlen (word) == lexer->tok_len
         && memcmp (lexer->text + lexer->start, word, lexer->tok_len) == 0;
}

char *
prism_lexer_token (const PrismLexer *lexer)
{
  return g_strndup (lexer->text + lexer->start, lexer->tok_len);
}

char *
prism_lexer_describe (const PrismLexer *lexer)
{
  g_autofree char *tok = NULL;

  switch (lexer->kind)
    {
    case PRISM_TOK_END:
      return g_strdup ("the end of the text");
    case PRISM_TOK_LPAREN:
      return g_strdup ("'('");
    case PRISM_TOK_RPAREN:
      return g_strdup ("')'");
    case PRISM_TOK_COMMA:
      return g_strdup ("','");
    case PRISM_TOK_ATOM:
      tok = prism_lexer_token (lexer);
      return g_strdup_printf ("'%s'", tok);
    default:
      g_assert_not_reached ();
    }
}

void
prism_lexer_error (const PrismLexer *lexer,
                   gsize             offset,
                   GError          **error,
                   const char       *format,
                   ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  if (lexer->source != NULL)
    g_set_error (error, PRISM_ERROR, PRISM_ERROR_PARSE, "%s:%u:%" G_GSIZE_FORMAT ": %s%s%s",
                 lexer->source, lexer->line, offset + 1,
                 lexer->context != NULL ? lexer->context : "",
                 lexer->context != NULL ? ": " : "", message);
  else
    g_set_error (error, PRISM_ERROR, PRISM_ERROR_PARSE, "offset %" G_GSIZE_FORMAT ": %s",
                 offset, message);
}

gboolean
prism_lexer_classify (const PrismLexer *lexer,
                      PrismAtomKind    *kind,
                      gint64           *value,
                      GError          **error)
{
  const char *s = lexer->text + lexer->start;
  gsize n = lexer->tok_len;
  gsize i = 0;
  guint64 acc = 0;
  gboolean negative = FALSE;

  g_assert (lexer->kind == PRISM_TOK_ATOM);
  *value = 0;
  if (s[0] == '?')
    {
      *kind = PRISM_ATOM_VAR;
      if (n < 2)
        {
          prism_lexer_error (lexer, lexer->start, error, "a variable needs a name after '?'");
          return FALSE;
        }
      return TRUE;
    }
  if (s[0] == '-' && n > 1 && g_ascii_isdigit (s[1]))
    {
      negative = TRUE;
      i = 1;
    }
  if (!g_ascii_isdigit (s[i]))
    {
      *kind = PRISM_ATOM_SYMBOL;
      return TRUE;
    }
  for (; i < n; i++)
    {
      if (!g_ascii_isdigit (s[i]))
        {
          g_autofree char *tok = prism_lexer_token (lexer);
          prism_lexer_error (lexer, lexer->start, error,
                             "'%s' is not a number (symbols must not start with a digit)", tok);
          return FALSE;
        }
      acc = acc * 10 + (guint64) (s[i] - '0');
      if (acc > (guint64) G_MAXINT64)
        {
          g_autofree char *tok = prism_lexer_token (lexer);
          prism_lexer_error (lexer, lexer->start, error, "integer %s is out of range", tok);
          return FALSE;
        }
    }
  *kind = PRISM_ATOM_INT;
  *value = negative ? -(gint64) acc : (gint64) acc;
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* PrismTerm */

static inline const PrismTermNode *
term_node (const PrismTerm *term, guint i)
{
  return &g_array_index (term->nodes, PrismTermNode, i);
}

static inline const guint32 *
term_children (const PrismTerm *term, const PrismTermNode *n)
{
  return &g_array_index (term->children, guint32, n->first_child);
}

PrismTerm *
prism_term_new (void)
{
  PrismTerm *term = g_new0 (PrismTerm, 1);

  term->nodes = g_array_new (FALSE, FALSE, sizeof (PrismTermNode));
  term->children = g_array_new (FALSE, FALSE, sizeof (guint32));
  prism_id_table_init (&term->dedup);
  term->root = G_MAXUINT;
  return term;
}

PrismTerm *
prism_term_copy (const PrismTerm *term)
{
  PrismTerm *copy;

  g_return_val_if_fail (term != NULL, NULL);
  copy = g_new0 (PrismTerm, 1);
  copy->nodes = g_array_copy (term->nodes);
  copy->children = g_array_copy (term->children);
  prism_id_table_copy (&copy->dedup, &term->dedup);
  copy->root = term->root;
  return copy;
}

void
prism_term_free (PrismTerm *term)
{
  if (term == NULL)
    return;
  g_array_unref (term->nodes);
  g_array_unref (term->children);
  prism_id_table_clear (&term->dedup);
  g_free (term);
}

typedef struct
{
  const PrismTerm *term;
  PrismSymbol op;
  gint64 value;
  guint n_children;
  const guint32 *children;
} TermKey;

static gboolean
term_key_equal (gconstpointer ctx, guint32 id)
{
  const TermKey *key = ctx;
  const PrismTermNode *n = term_node (key->term, id);

  return n->op == key->op && n->value == key->value && n->n_children == key->n_children
         && (key->n_children == 0
             || memcmp (term_children (key->term, n), key->children,
                        key->n_children * sizeof (guint32)) == 0);
}

static guint
term_add (PrismTerm *term, PrismSymbol op, gint64 value, guint n_children, const guint *children)
{
  TermKey key = { term, op, value, n_children, children };
  guint32 hash = prism_hash_node (op, value, n_children, children);
  PrismTermNode node = { op, n_children, term->children->len, 0, value };
  guint32 found;
  guint index;

  for (guint i = 0; i < n_children; i++)
    g_return_val_if_fail (children[i] < term->nodes->len, G_MAXUINT);
  found = prism_id_table_lookup (&term->dedup, hash, term_key_equal, &key);
  if (found != PRISM_ID_EMPTY)
    {
      term->root = found;
      return found;
    }
  g_return_val_if_fail (term->nodes->len < PRISM_ID_TOMB, G_MAXUINT);
  /* @children may point into term->children, which the append can move. */
  if (n_children > 0)
    {
      g_autofree guint32 *copy = g_memdup2 (children, n_children * sizeof (guint32));
      g_array_append_vals (term->children, copy, n_children);
    }
  index = term->nodes->len;
  g_array_append_val (term->nodes, node);
  prism_id_table_insert (&term->dedup, hash, index);
  term->root = index;
  return index;
}

guint
prism_term_add_int (PrismTerm *term, gint64 value)
{
  g_return_val_if_fail (term != NULL, G_MAXUINT);
  return term_add (term, PRISM_SYMBOL_NONE, value, 0, NULL);
}

guint
prism_term_add_symbol (PrismTerm *term, const char *name)
{
  g_return_val_if_fail (term != NULL, G_MAXUINT);
  return term_add (term, prism_symbol_intern (name), 0, 0, NULL);
}

guint
prism_term_add_op (PrismTerm   *term,
                   const char  *op,
                   guint        n_children,
                   const guint *children)
{
  g_return_val_if_fail (term != NULL, G_MAXUINT);
  return term_add (term, prism_symbol_intern (op), 0, n_children, children);
}

guint
prism_term_add_node (PrismTerm   *term,
                     PrismSymbol  op,
                     guint        n_children,
                     const guint *children)
{
  g_return_val_if_fail (term != NULL, G_MAXUINT);
  g_return_val_if_fail (op != PRISM_SYMBOL_NONE, G_MAXUINT);
  return term_add (term, op, 0, n_children, children);
}

/* A node of a walk with an explicit stack (terms can be far deeper than
 * the C stack allows recursion for): the node and the next child to visit. */
typedef struct
{
  guint node;
  guint next;
} Frame;

static inline void
push_frame (GArray *stack, guint node)
{
  Frame f = { node, 0 };

  g_array_append_val (stack, f);
}

guint
prism_term_add_subterm (PrismTerm *dst, const PrismTerm *src, guint src_node)
{
  g_autofree guint *map = NULL;
  g_autoptr(GArray) stack = NULL;
  g_autoptr(GArray) kids = NULL;

  g_return_val_if_fail (dst != NULL && src != NULL, G_MAXUINT);
  g_return_val_if_fail (src_node < src->nodes->len, G_MAXUINT);
  if (dst == src)
    return src_node;
  /* Only the nodes below src_node matter, and they all have smaller indices. */
  map = g_new (guint, src_node + 1);
  memset (map, 0xff, (src_node + 1) * sizeof (guint));
  stack = g_array_new (FALSE, FALSE, sizeof (Frame));
  kids = g_array_new (FALSE, FALSE, sizeof (guint));
  /* Post-order, children left to right: dst gets its nodes in the order a
   * recursive copy would add them. */
  push_frame (stack, src_node);
  while (stack->len > 0)
    {
      Frame *f = &g_array_index (stack, Frame, stack->len - 1);
      const PrismTermNode *n = term_node (src, f->node);

      if (map[f->node] != G_MAXUINT)
        {
          g_array_set_size (stack, stack->len - 1);
          continue;
        }
      if (f->next < n->n_children)
        {
          guint child = term_children (src, n)[f->next++];

          if (map[child] == G_MAXUINT)
            push_frame (stack, child);
          continue;
        }
      g_array_set_size (kids, n->n_children);
      for (guint i = 0; i < n->n_children; i++)
        g_array_index (kids, guint, i) = map[term_children (src, n)[i]];
      map[f->node] = term_add (dst, n->op, n->value, n->n_children, (guint *) kids->data);
      g_array_set_size (stack, stack->len - 1);
    }
  return map[src_node];
}

guint
prism_term_get_n_nodes (const PrismTerm *term)
{
  g_return_val_if_fail (term != NULL, 0);
  return term->nodes->len;
}

guint
prism_term_get_root (const PrismTerm *term)
{
  g_return_val_if_fail (term != NULL, G_MAXUINT);
  return term->root;
}

void
prism_term_set_root (PrismTerm *term, guint node)
{
  g_return_if_fail (term != NULL);
  g_return_if_fail (node < term->nodes->len);
  term->root = node;
}

gboolean
prism_term_node_is_int (const PrismTerm *term, guint node)
{
  g_return_val_if_fail (term != NULL && node < term->nodes->len, FALSE);
  return term_node (term, node)->op == PRISM_SYMBOL_NONE;
}

gint64
prism_term_node_get_int (const PrismTerm *term, guint node)
{
  g_return_val_if_fail (term != NULL && node < term->nodes->len, 0);
  return term_node (term, node)->value;
}

PrismSymbol
prism_term_node_get_op (const PrismTerm *term, guint node)
{
  g_return_val_if_fail (term != NULL && node < term->nodes->len, PRISM_SYMBOL_NONE);
  return term_node (term, node)->op;
}

guint
prism_term_node_get_n_children (const PrismTerm *term, guint node)
{
  g_return_val_if_fail (term != NULL && node < term->nodes->len, 0);
  return term_node (term, node)->n_children;
}

guint
prism_term_node_get_child (const PrismTerm *term, guint node, guint i)
{
  const PrismTermNode *n;

  g_return_val_if_fail (term != NULL && node < term->nodes->len, G_MAXUINT);
  n = term_node (term, node);
  g_return_val_if_fail (i < n->n_children, G_MAXUINT);
  return term_children (term, n)[i];
}

static guint
pair_hash (gconstpointer p)
{
  const guint *pair = p;

  return pair[0] * 0x9e3779b1u ^ pair[1];
}

static gboolean
pair_equal (gconstpointer a, gconstpointer b)
{
  const guint *x = a, *y = b;

  return x[0] == y[0] && x[1] == y[1];
}

gboolean
prism_term_node_equal (const PrismTerm *a,
                       guint            a_node,
                       const PrismTerm *b,
                       guint            b_node)
{
  g_autoptr(GArray) todo = NULL;
  g_autoptr(GHashTable) seen = NULL;
  gboolean equal = TRUE;

  g_return_val_if_fail (a != NULL && a_node < a->nodes->len, FALSE);
  g_return_val_if_fail (b != NULL && b_node < b->nodes->len, FALSE);
  /* Within one term, hash-consing makes equal subterms the same node. */
  if (a == b)
    return a_node == b_node;
  /* Pairs still to compare, each compared once: shared subterms are not
   * walked again, so this is linear in the DAGs, not in their trees. */
  todo = g_array_new (FALSE, FALSE, 2 * sizeof (guint));
  seen = g_hash_table_new_full (pair_hash, pair_equal, g_free, NULL);
  {
    guint pair[2] = { a_node, b_node };
    g_array_append_val (todo, pair);
  }
  while (equal && todo->len > 0)
    {
      guint pair[2];
      const PrismTermNode *x, *y;

      memcpy (pair, &g_array_index (todo, guint, 2 * (todo->len - 1)), sizeof pair);
      g_array_set_size (todo, todo->len - 1);
      x = term_node (a, pair[0]);
      y = term_node (b, pair[1]);
      if (x->op != y->op || x->value != y->value || x->n_children != y->n_children)
        {
          equal = FALSE;
          break;
        }
      for (guint i = x->n_children; i-- > 0;)
        {
          guint next[2] = { term_children (a, x)[i], term_children (b, y)[i] };

          if (g_hash_table_contains (seen, next))
            continue;
          g_hash_table_add (seen, g_memdup2 (next, sizeof next));
          g_array_append_val (todo, next);
        }
    }
  return equal;
}

guint64
prism_term_node_tree_size (const PrismTerm *term, guint node)
{
  g_autofree guint64 *size = NULL;
  guint64 ret;

  g_return_val_if_fail (term != NULL && node < term->nodes->len, 0);
  /* Children precede parents, so one forward pass suffices. */
  size = g_new (guint64, node + 1);
  for (guint i = 0; i <= node; i++)
    {
      const PrismTermNode *n = term_node (term, i);
      guint64 s = 1;

      for (guint c = 0; c < n->n_children; c++)
        {
          guint64 cs = size[term_children (term, n)[c]];
          s = (s + cs < s) ? G_MAXUINT64 : s + cs;
        }
      size[i] = s;
    }
  ret = size[node];
  return ret;
}

/* The s-expression walker both readers share.  Recursive descent;
 * depth-limited. */
static gboolean
read_sexp (PrismLexer *lx, const PrismSexpReader *reader, gpointer data, guint depth,
           guint *out, GError **error)
{
  PrismAtomKind kind;
  gint64 value;

  if (depth > PRISM_PARSE_MAX_DEPTH)
    {
      prism_lexer_error (lx, lx->start, error, "nesting deeper than %d", PRISM_PARSE_MAX_DEPTH);
      return FALSE;
    }
  if (lx->kind == PRISM_TOK_ATOM)
    {
      if (!prism_lexer_classify (lx, &kind, &value, error) ||
          !reader->leaf (data, lx, kind, value, out, error))
        return FALSE;
      prism_lexer_next (lx);
      return TRUE;
    }
  if (lx->kind == PRISM_TOK_LPAREN)
    {
      gsize open = lx->start;
      g_autoptr(GArray) kids = g_array_new (FALSE, FALSE, sizeof (guint));
      g_autofree char *op = NULL;

      prism_lexer_next (lx);
      if (lx->kind != PRISM_TOK_ATOM)
        {
          g_autofree char *what = prism_lexer_describe (lx);
          prism_lexer_error (lx, lx->start, error, "expected an operator name after '(', found %s", what);
          return FALSE;
        }
      if (!prism_lexer_classify (lx, &kind, &value, error))
        return FALSE;
      if (kind != PRISM_ATOM_SYMBOL)
        {
          g_autofree char *tok = prism_lexer_token (lx);
          prism_lexer_error (lx, lx->start, error, "'%s' cannot be an operator name", tok);
          return FALSE;
        }
      op = prism_lexer_token (lx);
      prism_lexer_next (lx);
      while (lx->kind != PRISM_TOK_RPAREN)
        {
          guint child;

          if (lx->kind == PRISM_TOK_END)
            {
              prism_lexer_error (lx, open, error, "'(' is never closed");
              return FALSE;
            }
          if (lx->kind == PRISM_TOK_COMMA)
            {
              prism_lexer_error (lx, lx->start, error, "unexpected ',' inside an s-expression");
              return FALSE;
            }
          if (!read_sexp (lx, reader, data, depth + 1, &child, error))
            return FALSE;
          g_array_append_val (kids, child);
        }
      prism_lexer_next (lx);
      *out = reader->node (data, prism_symbol_intern (op), kids->len, (guint *) kids->data);
      return TRUE;
    }
  {
    g_autofree char *what = prism_lexer_describe (lx);
    prism_lexer_error (lx, lx->start, error, "expected %s, found %s", reader->what, what);
  }
  return FALSE;
}

gboolean
prism_lexer_read_sexp (PrismLexer *lexer, const PrismSexpReader *reader, gpointer data,
                       guint *out, GError **error)
{
  return read_sexp (lexer, reader, data, 0, out, error);
}

/* Terms: integers and symbols; variables belong to patterns. */
static gboolean
term_reader_leaf (gpointer data, const PrismLexer *lx, PrismAtomKind kind, gint64 value, guint *out,
           GError **error)
{
  PrismTerm *term = data;
  g_autofree char *tok = prism_lexer_token (lx);

  if (kind == PRISM_ATOM_VAR)
    {
      prism_lexer_error (lx, lx->start, error,
                         "variable '%s' is only allowed in patterns and rules", tok);
      return FALSE;
    }
  if (kind == PRISM_ATOM_INT)
    *out = prism_term_add_int (term, value);
  else
    *out = prism_term_add_node (term, prism_symbol_intern (tok), 0, NULL);
  return TRUE;
}

static guint
term_reader_node (gpointer data, PrismSymbol op, guint n_children, const guint *children)
{
  return prism_term_add_node (data, op, n_children, children);
}

static const PrismSexpReader term_reader = { term_reader_leaf, term_reader_node, "a term" };

gboolean
prism_term_parse_into (PrismTerm   *term,
                       const char  *text,
                       guint       *out_node,
                       GError     **error)
{
  PrismLexer lx;
  guint node;

  g_return_val_if_fail (term != NULL && text != NULL, FALSE);
  prism_lexer_init (&lx, text, strlen (text));
  if (!prism_lexer_read_sexp (&lx, &term_reader, term, &node, error))
    return FALSE;
  if (lx.kind != PRISM_TOK_END)
    {
      g_autofree char *what = prism_lexer_describe (&lx);
      prism_lexer_error (&lx, lx.start, error, "unexpected %s after the term", what);
      return FALSE;
    }
  term->root = node;
  if (out_node != NULL)
    *out_node = node;
  return TRUE;
}

PrismTerm *
prism_term_parse (const char *text, GError **error)
{
  g_autoptr(PrismTerm) term = prism_term_new ();

  g_return_val_if_fail (text != NULL, NULL);
  if (!prism_term_parse_into (term, text, NULL, error))
    return NULL;
  return g_steal_pointer (&term);
}

/* Appends one node's own text: a leaf whole, an operator its "(op". */
static void
append_head (const PrismTermNode *n, GString *out)
{
  if (n->op == PRISM_SYMBOL_NONE)
    g_string_append_printf (out, "%" G_GINT64_FORMAT, n->value);
  else if (n->n_children == 0)
    g_string_append (out, prism_symbol_name (n->op));
  else
    {
      g_string_append_c (out, '(');
      g_string_append (out, prism_symbol_name (n->op));
    }
}

void
prism_term_node_append (const PrismTerm *term, guint node, GString *out)
{
  g_autoptr(GArray) stack = NULL;
  gsize start;

  g_return_if_fail (term != NULL && node < term->nodes->len);
  start = out->len;
  stack = g_array_new (FALSE, FALSE, sizeof (Frame));
  /* next counts the children printed, G_MAXUINT before the head. */
  {
    Frame f = { node, G_MAXUINT };
    g_array_append_val (stack, f);
  }
  while (stack->len > 0)
    {
      Frame *f = &g_array_index (stack, Frame, stack->len - 1);
      const PrismTermNode *n = term_node (term, f->node);

      if (out->len - start > PRISM_TERM_TEXT_MAX - sizeof "…")
        {
          g_string_truncate (out, start + PRISM_TERM_TEXT_MAX - sizeof "…");
          g_string_append (out, "…");
          return;
        }
      if (f->next == G_MAXUINT)
        {
          append_head (n, out);
          if (n->op == PRISM_SYMBOL_NONE || n->n_children == 0)
            {
              g_array_set_size (stack, stack->len - 1);
              continue;
            }
          f->next = 0;
        }
      if (f->next < n->n_children)
        {
          Frame child = { term_children (term, n)[f->next++], G_MAXUINT };

          g_string_append_c (out, ' ');
          g_array_append_val (stack, child);
          continue;
        }
      g_string_append_c (out, ')');
      g_array_set_size (stack, stack->len - 1);
    }
}

char *
prism_term_node_to_string (const PrismTerm *term, guint node)
{
  GString *out = g_string_new (NULL);

  prism_term_node_append (term, node, out);
  return g_string_free (out, FALSE);
}

char *
prism_term_to_string (const PrismTerm *term)
{
  g_return_val_if_fail (term != NULL, NULL);
  if (term->root == G_MAXUINT)
    return g_strdup ("");
  return prism_term_node_to_string (term, term->root);
}
