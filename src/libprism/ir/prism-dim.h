/* prism-dim.h — symbolic tensor dimensions
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A dimension is an immutable, reference-counted expression tree over
 * variables (grid sizes, loop ranges) and integer constants.  Products and
 * quotients are kept in a canonical monomial form (c · Πvᵢ / (d · Πwⱼ)), so two
 * dims built in different orders compare equal with prism_dim_equal().
 */
typedef enum
{
  PRISM_DIM_CONST,
  PRISM_DIM_VAR,
  PRISM_DIM_ADD,
  PRISM_DIM_MUL,
  PRISM_DIM_DIV,
} PrismDimKind;

typedef struct _PrismDim PrismDim;

struct _PrismDim
{
  /*< private >*/
  gint ref_count;
  /*< public, read-only >*/
  PrismDimKind kind;
  gint64 value;   /* CONST: the value; VAR: the variable index */
  PrismDim *a;    /* ADD/MUL/DIV: left operand */
  PrismDim *b;    /* ADD/MUL/DIV: right operand */
  guint hash;
};

/* Largest dimension we accept anywhere (2^31 - 1): bigger ones are input errors. */
#define PRISM_DIM_MAX ((gint64) G_MAXINT32)

/* Terms (numbers and variables) an expression may have: as written (the
 * parser counts them before anything folds) and in its canonical form. */
#define PRISM_DIM_MAX_TERMS 64

/* Constructors return a new reference (transfer full); operands are borrowed. */
PrismDim   *prism_dim_const       (gint64          value);
PrismDim   *prism_dim_var         (guint           index);
PrismDim   *prism_dim_add         (const PrismDim *a,
                                   const PrismDim *b);
PrismDim   *prism_dim_mul         (const PrismDim *a,
                                   const PrismDim *b);
PrismDim   *prism_dim_div         (const PrismDim *a,
                                   const PrismDim *b);

PrismDim   *prism_dim_ref         (const PrismDim *dim);
void        prism_dim_unref       (PrismDim       *dim);

gboolean    prism_dim_is_const    (const PrismDim *dim);
/* The constant value, or -1 if @dim is not a constant. */
gint64      prism_dim_get_const   (const PrismDim *dim);
gboolean    prism_dim_is_var      (const PrismDim *dim);
gboolean    prism_dim_equal       (const PrismDim *a,
                                   const PrismDim *b);
guint       prism_dim_hash        (const PrismDim *dim);
gboolean    prism_dim_has_var     (const PrismDim *dim,
                                   guint           index);
/* Adds every variable index of @dim to @vars (a set of GUINT_TO_POINTER (index + 1)). */
void        prism_dim_collect_vars (const PrismDim *dim,
                                   GHashTable     *vars);

/**
 * prism_dim_substitute:
 * @dim: a dim
 * @values: (array length=n_values): per variable index, its value, or 0 to keep it symbolic
 * @n_values: length of @values
 *
 * Replaces assigned variables by constants and folds.  An inexact constant
 * division stays a DIV node, so callers detect it with prism_dim_is_const().
 *
 * Returns: (transfer full): the new dim
 */
PrismDim   *prism_dim_substitute  (const PrismDim *dim,
                                   const gint64   *values,
                                   guint           n_values);

/**
 * prism_dim_eval:
 * @dim: a dim
 * @values: (array length=n_values) (nullable): per variable index, its value (≤ 0 = unknown)
 * @n_values: length of @values
 * @out: (out): the integer value
 *
 * Returns: %TRUE if every variable is known, every division is exact and
 *   nothing overflows 64 bits.
 */
gboolean    prism_dim_eval        (const PrismDim *dim,
                                   const gint64   *values,
                                   guint           n_values,
                                   gint64         *out);

/* Evaluates with every variable set to @var_value in floating point
 * (used for "unpartitioned size" matching with maps at zero). */
double      prism_dim_eval_float  (const PrismDim *dim,
                                   double          var_value);

/**
 * prism_dim_to_string:
 * @dim: a dim
 * @var_names: (array zero-terminated=1) (nullable): names per variable index;
 *   unnamed variables print as `v<index>`
 *
 * Returns: (transfer full): the expression, e.g. `4096/(gx*F)`
 */
char       *prism_dim_to_string   (const PrismDim *dim,
                                   const char * const *var_names);

/**
 * prism_dim_parse:
 * @text: an expression as printed by prism_dim_to_string()
 * @var_names: (array zero-terminated=1): known variable names, by index
 * @error: return location for a #GError
 *
 * Refuses (%PRISM_ERROR_LIMIT) an expression of more than
 * %PRISM_DIM_MAX_TERMS terms, counted as written.
 *
 * Returns: (transfer full) (nullable): the dim, or %NULL on a syntax error or unknown name
 */
PrismDim   *prism_dim_parse       (const char     *text,
                                   const char * const *var_names,
                                   GError        **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrismDim, prism_dim_unref)

G_END_DECLS
