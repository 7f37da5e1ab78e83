/* prism-term.h — interned symbols and s-expression terms
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A symbol is an interned string (a GQuark): operator names such as `+` or
 * `matmul` and leaf names such as `input0` or `data_dim0`.  Interning is
 * process-wide and thread-safe; symbols are never freed.  0 is no symbol.
 * Nothing in the engine orders by symbol value, so results never depend on the
 * order in which unrelated code interned its strings. */
typedef guint32 PrismSymbol;

#define PRISM_SYMBOL_NONE ((PrismSymbol) 0)

PrismSymbol  prism_symbol_intern     (const char *name);
/* Returns PRISM_SYMBOL_NONE if @name was never interned (and interns nothing). */
PrismSymbol  prism_symbol_try        (const char *name);
/* Returns: (transfer none): the name, valid for the whole process */
const char  *prism_symbol_name       (PrismSymbol symbol);

/**
 * PrismTerm:
 *
 * A set of s-expression nodes stored in flat arrays: each node is an integer
 * leaf, a symbol leaf (`input0`) or an operator with children (`(+ a b)`).
 * Nodes are numbered from 0 in the order they were added, and children always
 * come before their parents.  Adding a node that already exists returns the
 * existing index, so a term is a DAG with shared subterms and two indices of
 * one term are equal exactly when their subterms are.  A leaf symbol and an
 * operator with no children are the same thing.
 *
 * The "root" is the last node added unless set with prism_term_set_root();
 * functions without a node argument work on the root.
 *
 * A term is a plain owned struct: not reference counted, not thread-safe for
 * writers; const functions may run concurrently.  Nothing here recurses on
 * a term's depth (walks keep their own stack), so terms may be as deep as
 * memory allows; only the parsers are depth-limited.
 */
typedef struct _PrismTerm PrismTerm;

/* Returns: (transfer full): an empty term */
PrismTerm   *prism_term_new          (void);
/* Returns: (transfer full): a deep copy */
PrismTerm   *prism_term_copy         (const PrismTerm *term);
void         prism_term_free         (PrismTerm       *term);

/* Builders: return the index of the (possibly existing) node.  @children are
 * indices of nodes of @term.  @op is a symbol or a name to intern. */
guint        prism_term_add_int      (PrismTerm       *term,
                                      gint64           value);
guint        prism_term_add_symbol   (PrismTerm       *term,
                                      const char      *name);
guint        prism_term_add_op       (PrismTerm       *term,
                                      const char      *op,
                                      guint            n_children,
                                      const guint     *children);
guint        prism_term_add_node     (PrismTerm       *term,
                                      PrismSymbol      op,
                                      guint            n_children,
                                      const guint     *children);
/* Copies the subterm of @src at @src_node into @dst; returns its index in @dst. */
guint        prism_term_add_subterm  (PrismTerm       *dst,
                                      const PrismTerm *src,
                                      guint            src_node);

guint        prism_term_get_n_nodes  (const PrismTerm *term);
/* Returns: the root index, or G_MAXUINT for an empty term */
guint        prism_term_get_root     (const PrismTerm *term);
void         prism_term_set_root     (PrismTerm       *term,
                                      guint            node);

gboolean     prism_term_node_is_int  (const PrismTerm *term,
                                      guint            node);
/* The value of an integer leaf (0 for other nodes). */
gint64       prism_term_node_get_int (const PrismTerm *term,
                                      guint            node);
/* The operator or leaf symbol (PRISM_SYMBOL_NONE for an integer leaf). */
PrismSymbol  prism_term_node_get_op  (const PrismTerm *term,
                                      guint            node);
guint        prism_term_node_get_n_children (const PrismTerm *term,
                                      guint            node);
guint        prism_term_node_get_child (const PrismTerm *term,
                                      guint            node,
                                      guint            i);
/* Structural equality of two subterms, possibly of different terms; each
 * pair of nodes is compared once, so shared subterms cost nothing more. */
gboolean     prism_term_node_equal   (const PrismTerm *a,
                                      guint            a_node,
                                      const PrismTerm *b,
                                      guint            b_node);
/* Number of nodes of the subterm counted as a tree (shared subterms count
 * each time they occur), saturating at G_MAXUINT64. */
guint64      prism_term_node_tree_size (const PrismTerm *term,
                                      guint            node);

/**
 * prism_term_parse:
 * @text: one s-expression, e.g. `(* (+ a b) 2)`
 * @error: return location for a #GError (PRISM_ERROR_PARSE, with the offset)
 *
 * Integers are `-?[0-9]+`; any other run of characters other than blanks,
 * parentheses and commas is a symbol.  `?x` (a pattern variable) is rejected.
 *
 * Returns: (transfer full) (nullable): the term, its root the parsed expression
 */
PrismTerm   *prism_term_parse        (const char      *text,
                                      GError         **error);
/* Parses @text into an existing term; sets @out_node to the expression's index. */
gboolean     prism_term_parse_into   (PrismTerm       *term,
                                      const char      *text,
                                      guint           *out_node,
                                      GError         **error);

/* The printers stop after this many bytes of text and end it with "…": a
 * term of n nodes can stand for a tree of 2^n (shared subterms print each
 * time they occur). */
#define PRISM_TERM_TEXT_MAX (1u << 20)

/* Returns: (transfer full): the root printed as an s-expression */
char        *prism_term_to_string    (const PrismTerm *term);
/* Returns: (transfer full): the subterm at @node printed as an s-expression */
char        *prism_term_node_to_string (const PrismTerm *term,
                                      guint            node);
void         prism_term_node_append  (const PrismTerm *term,
                                      guint            node,
                                      GString         *out);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrismTerm, prism_term_free)

G_END_DECLS
