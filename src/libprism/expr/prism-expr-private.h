/* prism-expr-private.h — helpers shared by the files of src/libprism/expr
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "prism-pattern.h"
#include "prism-term.h"

G_BEGIN_DECLS

/* ------------------------------------------------------------------------ */
/* Hashing of node contents (operator, integer value, children). */

static inline guint32
prism_hash_mix (guint32 h, guint32 v)
{
  h ^= v;
  h *= 0x9e3779b1u;
  h ^= h >> 15;
  return h;
}

static inline guint32
prism_hash_finish (guint32 h)
{
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

static inline guint32
prism_hash_node (PrismSymbol op, gint64 value, guint n_children, const guint32 *children)
{
  guint32 h = 0x2545f491u;

  h = prism_hash_mix (h, op);
  h = prism_hash_mix (h, (guint32) value);
  h = prism_hash_mix (h, (guint32) ((guint64) value >> 32));
  h = prism_hash_mix (h, n_children);
  for (guint i = 0; i < n_children; i++)
    h = prism_hash_mix (h, children[i]);
  return prism_hash_finish (h);
}

/* ------------------------------------------------------------------------ */
/* PrismIdTable: an open-addressing hash set of 32-bit ids whose keys live
 * elsewhere (in node arrays).  The caller gives the hash and an equality
 * callback; the table stores each id's hash so that it can grow without
 * looking at the keys.  Lookups never write, so any number of threads may
 * look up while nobody inserts or removes. */

#define PRISM_ID_EMPTY 0xffffffffu
#define PRISM_ID_TOMB  0xfffffffeu

typedef gboolean (*PrismIdEqualFunc) (gconstpointer ctx, guint32 id);

typedef struct
{
  guint32 id;
  guint32 hash;
} PrismIdSlot;

typedef struct
{
  PrismIdSlot *slots; /* id and hash side by side: one cache line per probe */
  guint32 mask;    /* capacity - 1; capacity is a power of two */
  guint32 n_used;  /* live + tombstones */
  guint32 n_live;
} PrismIdTable;

void     prism_id_table_init    (PrismIdTable     *table);
void     prism_id_table_clear   (PrismIdTable     *table);
void     prism_id_table_copy    (PrismIdTable     *dst,
                                 const PrismIdTable *src);
guint32  prism_id_table_lookup  (const PrismIdTable *table,
                                 guint32           hash,
                                 PrismIdEqualFunc  equal,
                                 gconstpointer     ctx);
/* @id must not be in the table yet. */
void     prism_id_table_insert  (PrismIdTable     *table,
                                 guint32           hash,
                                 guint32           id);
/* Returns: %TRUE if @id was found under @hash and removed. */
gboolean prism_id_table_remove  (PrismIdTable     *table,
                                 guint32           hash,
                                 guint32           id);

/* ------------------------------------------------------------------------ */
/* The lexer of the s-expression text forms (terms, patterns, rule lines). */

typedef enum
{
  PRISM_TOK_END,
  PRISM_TOK_LPAREN,
  PRISM_TOK_RPAREN,
  PRISM_TOK_COMMA,
  PRISM_TOK_ATOM,
} PrismTokKind;

typedef struct
{
  const char *text;
  gsize len;
  gsize pos;          /* after the current token */
  PrismTokKind kind;  /* the current token */
  gsize start;        /* its offset in text */
  gsize tok_len;
  /* For messages: with a source, errors read "source:line:column: context: …",
   * otherwise "offset N: …". */
  const char *source;
  guint line;
  const char *context;
} PrismLexer;

typedef enum
{
  PRISM_ATOM_SYMBOL,
  PRISM_ATOM_INT,
  PRISM_ATOM_VAR,
} PrismAtomKind;

void     prism_lexer_init       (PrismLexer       *lexer,
                                 const char       *text,
                                 gsize             len);
void     prism_lexer_next       (PrismLexer       *lexer);
gboolean prism_lexer_atom_is    (const PrismLexer *lexer,
                                 const char       *word);
/* Returns: (transfer full): the current token's text */
char    *prism_lexer_token      (const PrismLexer *lexer);
/* Classifies the current atom; an int too large or a malformed number or
 * variable sets @error. */
gboolean prism_lexer_classify   (const PrismLexer *lexer,
                                 PrismAtomKind    *kind,
                                 gint64           *value,
                                 GError          **error);
/* A "what was found" description of the current token for messages. */
char    *prism_lexer_describe   (const PrismLexer *lexer);

/* Sets a PRISM_ERROR_PARSE error about the text at @offset. */
void     prism_lexer_error      (const PrismLexer *lexer,
                                 gsize             offset,
                                 GError          **error,
                                 const char       *format,
                                 ...) G_GNUC_PRINTF (4, 5);

/* What one s-expression reader builds: terms and patterns share the syntax
 * and its errors, and differ only in what a leaf may be and what a node is. */
typedef struct
{
  /* The current token is an atom of @kind (@value for ints): add a leaf,
   * or refuse it with @error.  The walker moves past it. */
  gboolean (*leaf) (gpointer          data,
                    const PrismLexer *lexer,
                    PrismAtomKind     kind,
                    gint64            value,
                    guint            *out,
                    GError          **error);
  /* Adds a node of operator @op over @children. */
  guint    (*node) (gpointer          data,
                    PrismSymbol       op,
                    guint             n_children,
                    const guint      *children);
  /* What the text should have been, for "expected a …, found …". */
  const char *what;
} PrismSexpReader;

/* Reads one s-expression at the lexer's current token, depth-limited by
 * PRISM_PARSE_MAX_DEPTH; on success the lexer is past it and @out is what
 * the reader's callbacks returned for its root. */
gboolean prism_lexer_read_sexp  (PrismLexer            *lexer,
                                 const PrismSexpReader *reader,
                                 gpointer               data,
                                 guint                 *out,
                                 GError               **error);

/* Deepest nesting the parsers accept (they are recursive). */
#define PRISM_PARSE_MAX_DEPTH 4096
/* Most nodes a pattern may have: the e-matcher recurses once per node, the
 * pattern printer and instantiation once per level (rules are a few nodes). */
#define PRISM_PATTERN_MAX_NODES 1024

/* ------------------------------------------------------------------------ */
/* Term internals used by the pattern and explanation code. */

typedef struct
{
  PrismSymbol op;       /* PRISM_SYMBOL_NONE: an integer leaf */
  guint32 n_children;
  guint32 first_child;  /* offset in children */
  guint32 pad;
  gint64 value;
} PrismTermNode;

struct _PrismTerm
{
  GArray *nodes;     /* PrismTermNode */
  GArray *children;  /* guint32 */
  PrismIdTable dedup;
  guint root;
};

/* ------------------------------------------------------------------------ */
/* Pattern internals used by the e-matcher and the rule parser. */

typedef struct
{
  PrismSymbol op;       /* PRISM_SYMBOL_NONE and var < 0: an integer leaf */
  gint32 var;           /* >= 0: a variable; the other fields are unused */
  guint32 n_children;
  guint32 first_child;  /* offset in children */
  gint64 value;
} PrismPatNode;

struct _PrismPattern
{
  GArray *nodes;        /* PrismPatNode; children before parents */
  GArray *children;     /* guint32 */
  guint root;
  GPtrArray *var_names; /* char *, without '?'; shared by both sides of a rule */
};

static inline const PrismPatNode *
prism_pattern_node (const PrismPattern *pattern, guint i)
{
  return &g_array_index (pattern->nodes, PrismPatNode, i);
}

static inline const guint32 *
prism_pattern_children (const PrismPattern *pattern, const PrismPatNode *node)
{
  return &g_array_index (pattern->children, guint32, node->first_child);
}

/* Parses one pattern starting at the lexer's current token and leaves the
 * lexer after it.  New variables are appended to @var_names (char *, owned by
 * the array), which the pattern keeps a reference to. */
PrismPattern *prism_pattern_parse_lexer (PrismLexer   *lexer,
                                         GPtrArray    *var_names,
                                         GError      **error);
/* Whether variable @var occurs in @pattern. */
gboolean      prism_pattern_has_var     (const PrismPattern *pattern,
                                         guint               var);

G_END_DECLS
