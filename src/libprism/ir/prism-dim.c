/* prism-dim.c — symbolic tensor dimensions
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "prism-dim.h"
#include "prism-error.h"

static PrismDim *
dim_alloc (PrismDimKind kind, gint64 value, PrismDim *a, PrismDim *b)
{
  PrismDim *d = g_new0 (PrismDim, 1);

  d->ref_count = 1;
  d->kind = kind;
  d->value = value;
  d->a = a;
  d->b = b;
  /* Unsigned arithmetic: a large constant must not overflow a signed product. */
  d->hash = (guint) kind * 2654435761u ^ (guint) ((guint64) value * 40503u) ^
            (guint) ((guint64) value >> 32);
  if (a != NULL)
    d->hash = d->hash * 31 + a->hash;
  if (b != NULL)
    d->hash = d->hash * 131 + b->hash;
  return d;
}

PrismDim *
prism_dim_ref (const PrismDim *dim)
{
  PrismDim *d = (PrismDim *) dim;

  g_return_val_if_fail (d != NULL, NULL);
  g_atomic_int_inc (&d->ref_count);
  return d;
}

void
prism_dim_unref (PrismDim *dim)
{
  if (dim == NULL)
    return;
  if (!g_atomic_int_dec_and_test (&dim->ref_count))
    return;
  prism_dim_unref (dim->a);
  prism_dim_unref (dim->b);
  g_free (dim);
}

PrismDim *
prism_dim_const (gint64 value)
{
  return dim_alloc (PRISM_DIM_CONST, value, NULL, NULL);
}

PrismDim *
prism_dim_var (guint index)
{
  return dim_alloc (PRISM_DIM_VAR, index, NULL, NULL);
}

gboolean
prism_dim_is_const (const PrismDim *dim)
{
  return dim != NULL && dim->kind == PRISM_DIM_CONST;
}

gint64
prism_dim_get_const (const PrismDim *dim)
{
  return prism_dim_is_const (dim) ? dim->value : -1;
}

gboolean
prism_dim_is_var (const PrismDim *dim)
{
  return dim != NULL && dim->kind == PRISM_DIM_VAR;
}

guint
prism_dim_hash (const PrismDim *dim)
{
  return dim->hash;
}

/* A total structural order; it makes the canonical form deterministic. */
static int
dim_compare (const PrismDim *a, const PrismDim *b)
{
  int c;

  if (a == b)
    return 0;
  if (a->kind != b->kind)
    return a->kind < b->kind ? -1 : 1;
  if (a->value != b->value)
    return a->value < b->value ? -1 : 1;
  if (a->a == NULL)
    return 0;
  if ((c = dim_compare (a->a, b->a)) != 0)
    return c;
  return dim_compare (a->b, b->b);
}

gboolean
prism_dim_equal (const PrismDim *a, const PrismDim *b)
{
  if (a == b)
    return TRUE;
  if (a == NULL || b == NULL || a->hash != b->hash)
    return FALSE;
  return dim_compare (a, b) == 0;
}

gboolean
prism_dim_has_var (const PrismDim *dim, guint index)
{
  if (dim == NULL)
    return FALSE;
  if (dim->kind == PRISM_DIM_VAR)
    return dim->value == (gint64) index;
  return prism_dim_has_var (dim->a, index) || prism_dim_has_var (dim->b, index);
}

void
prism_dim_collect_vars (const PrismDim *dim, GHashTable *vars)
{
  if (dim == NULL)
    return;
  if (dim->kind == PRISM_DIM_VAR)
    g_hash_table_add (vars, GUINT_TO_POINTER ((guint) dim->value + 1));
  prism_dim_collect_vars (dim->a, vars);
  prism_dim_collect_vars (dim->b, vars);
}

/* ------------------------------------------------------------------------ */
/* Monomial normal form: num/den · Π atomᵢ^expᵢ, where an atom is a VAR or an
 * ADD node.  Products and quotients are flattened into it and rebuilt, so
 * (4096/gx)·gx folds to 4096 and (4096/gx)/F prints as 4096/(gx*F). */

typedef struct
{
  const PrismDim *atom;
  int exp;
} Factor;

typedef struct
{
  gint64 num;
  gint64 den;
  GArray *factors; /* Factor */
} Monomial;

static gint64
gcd64 (gint64 a, gint64 b)
{
  if (a < 0)
    a = -a;
  if (b < 0)
    b = -b;
  while (b != 0)
    {
      gint64 t = a % b;
      a = b;
      b = t;
    }
  return a == 0 ? 1 : a;
}

static void
monomial_add_atom (Monomial *m, const PrismDim *atom, int exp)
{
  for (guint i = 0; i < m->factors->len; i++)
    {
      Factor *f = &g_array_index (m->factors, Factor, i);
      if (prism_dim_equal (f->atom, atom))
        {
          f->exp += exp;
          return;
        }
    }
  g_array_append_val (m->factors, ((Factor) { atom, exp }));
}

/* Products saturate instead of overflowing (undefined behaviour): a dim that
 * large is out of range anyway and every reader rejects it. */
static gint64
mul_saturate (gint64 a, gint64 b)
{
  gint64 r;

  if (__builtin_mul_overflow (a, b, &r))
    return (a < 0) != (b < 0) ? -G_MAXINT64 : G_MAXINT64;
  return r;
}

/* Multiplies @m by @d raised to @sign (±1). */
static void
monomial_absorb (Monomial *m, const PrismDim *d, int sign)
{
  switch (d->kind)
    {
    case PRISM_DIM_CONST:
      if (sign > 0)
        m->num = mul_saturate (m->num, d->value);
      else
        m->den = mul_saturate (m->den, d->value);
      break;
    case PRISM_DIM_MUL:
      monomial_absorb (m, d->a, sign);
      monomial_absorb (m, d->b, sign);
      break;
    case PRISM_DIM_DIV:
      monomial_absorb (m, d->a, sign);
      monomial_absorb (m, d->b, -sign);
      break;
    case PRISM_DIM_VAR:
    case PRISM_DIM_ADD:
      monomial_add_atom (m, d, sign);
      break;
    default:
      g_assert_not_reached ();
    }
}

static int
factor_compare (gconstpointer a, gconstpointer b)
{
  return dim_compare (((const Factor *) a)->atom, ((const Factor *) b)->atom);
}

static PrismDim *
mul_node (PrismDim *acc, const PrismDim *x)
{
  if (acc == NULL)
    return prism_dim_ref (x);
  return dim_alloc (PRISM_DIM_MUL, 0, acc, prism_dim_ref (x));
}

/* Builds c · Π atoms^(±exp) for one side of the fraction (sign = +1 numerator). */
static PrismDim *
monomial_side (const Monomial *m, gint64 c, int sign)
{
  PrismDim *acc = NULL;

  if (c != 1)
    acc = prism_dim_const (c);
  for (guint i = 0; i < m->factors->len; i++)
    {
      const Factor *f = &g_array_index (m->factors, Factor, i);
      for (int k = 0; k < f->exp * sign; k++)
        acc = mul_node (acc, f->atom);
    }
  return acc;
}

static PrismDim *
monomial_build (Monomial *m)
{
  PrismDim *num, *den;
  gint64 g = gcd64 (m->num, m->den);

  m->num /= g;
  m->den /= g;
  g_array_sort (m->factors, factor_compare);
  num = monomial_side (m, m->num, +1);
  den = monomial_side (m, m->den, -1);
  if (num == NULL)
    num = prism_dim_const (1);
  if (den == NULL)
    return num;
  return dim_alloc (PRISM_DIM_DIV, 0, num, den);
}

static PrismDim *
monomial_combine (const PrismDim *a, const PrismDim *b, int sign_b)
{
  Monomial m = { 1, 1, g_array_new (FALSE, FALSE, sizeof (Factor)) };
  PrismDim *ret;

  monomial_absorb (&m, a, +1);
  monomial_absorb (&m, b, sign_b);
  if (m.num == 0)
    ret = prism_dim_const (0);
  else
    ret = monomial_build (&m);
  g_array_unref (m.factors);
  return ret;
}

PrismDim *
prism_dim_mul (const PrismDim *a, const PrismDim *b)
{
  return monomial_combine (a, b, +1);
}

PrismDim *
prism_dim_div (const PrismDim *a, const PrismDim *b)
{
  g_return_val_if_fail (!(prism_dim_is_const (b) && b->value == 0), prism_dim_ref (a));
  return monomial_combine (a, b, -1);
}

PrismDim *
prism_dim_add (const PrismDim *a, const PrismDim *b)
{
  if (prism_dim_is_const (a) && prism_dim_is_const (b))
    {
      gint64 sum;
      if (__builtin_add_overflow (a->value, b->value, &sum))
        sum = G_MAXINT64;
      return prism_dim_const (sum);
    }
  if (prism_dim_is_const (a) && a->value == 0)
    return prism_dim_ref (b);
  if (prism_dim_is_const (b) && b->value == 0)
    return prism_dim_ref (a);
  if (dim_compare (a, b) > 0)
    {
      const PrismDim *t = a;
      a = b;
      b = t;
    }
  return dim_alloc (PRISM_DIM_ADD, 0, prism_dim_ref (a), prism_dim_ref (b));
}

PrismDim *
prism_dim_substitute (const PrismDim *dim, const gint64 *values, guint n_values)
{
  g_autoptr(PrismDim) a = NULL;
  g_autoptr(PrismDim) b = NULL;

  switch (dim->kind)
    {
    case PRISM_DIM_CONST:
      return prism_dim_ref (dim);
    case PRISM_DIM_VAR:
      if (dim->value < (gint64) n_values && values[dim->value] > 0)
        return prism_dim_const (values[dim->value]);
      return prism_dim_ref (dim);
    case PRISM_DIM_ADD:
    case PRISM_DIM_MUL:
    case PRISM_DIM_DIV:
      a = prism_dim_substitute (dim->a, values, n_values);
      b = prism_dim_substitute (dim->b, values, n_values);
      if (dim->kind == PRISM_DIM_ADD)
        return prism_dim_add (a, b);
      if (dim->kind == PRISM_DIM_MUL)
        return prism_dim_mul (a, b);
      return prism_dim_div (a, b);
    default:
      g_assert_not_reached ();
    }
}

gboolean
prism_dim_eval (const PrismDim *dim, const gint64 *values, guint n_values, gint64 *out)
{
  gint64 a, b;

  switch (dim->kind)
    {
    case PRISM_DIM_CONST:
      *out = dim->value;
      return TRUE;
    case PRISM_DIM_VAR:
      if (values == NULL || dim->value >= (gint64) n_values || values[dim->value] <= 0)
        return FALSE;
      *out = values[dim->value];
      return TRUE;
    case PRISM_DIM_ADD:
    case PRISM_DIM_MUL:
    case PRISM_DIM_DIV:
      if (!prism_dim_eval (dim->a, values, n_values, &a) ||
          !prism_dim_eval (dim->b, values, n_values, &b))
        return FALSE;
      if (dim->kind == PRISM_DIM_ADD)
        return !__builtin_add_overflow (a, b, out);
      else if (dim->kind == PRISM_DIM_MUL)
        return !__builtin_mul_overflow (a, b, out);
      else if (b == 0 || a % b != 0)
        return FALSE;
      else
        *out = a / b;
      return TRUE;
    default:
      g_assert_not_reached ();
    }
}

double
prism_dim_eval_float (const PrismDim *dim, double var_value)
{
  switch (dim->kind)
    {
    case PRISM_DIM_CONST:
      return (double) dim->value;
    case PRISM_DIM_VAR:
      return var_value;
    case PRISM_DIM_ADD:
      return prism_dim_eval_float (dim->a, var_value) + prism_dim_eval_float (dim->b, var_value);
    case PRISM_DIM_MUL:
      return prism_dim_eval_float (dim->a, var_value) * prism_dim_eval_float (dim->b, var_value);
    case PRISM_DIM_DIV:
      return prism_dim_eval_float (dim->a, var_value) / prism_dim_eval_float (dim->b, var_value);
    default:
      g_assert_not_reached ();
    }
}

/* ------------------------------------------------------------------------ */

static void
dim_print (GString *s, const PrismDim *d, const char * const *names, int prec)
{
  /* prec: 0 = sum context, 1 = product context, 2 = atom needed */
  int mine;

  switch (d->kind)
    {
    case PRISM_DIM_CONST:
      g_string_append_printf (s, "%" G_GINT64_FORMAT, d->value);
      return;
    case PRISM_DIM_VAR:
      {
        guint n = names ? g_strv_length ((char **) names) : 0;
        if (d->value < (gint64) n && names[d->value][0] != '\0')
          g_string_append (s, names[d->value]);
        else
          g_string_append_printf (s, "v%" G_GINT64_FORMAT, d->value);
      }
      return;
    case PRISM_DIM_ADD:
    case PRISM_DIM_MUL:
    case PRISM_DIM_DIV:
      mine = d->kind == PRISM_DIM_ADD ? 0 : 1;
      if (mine < prec)
        g_string_append_c (s, '(');
      dim_print (s, d->a, names, mine);
      g_string_append_c (s, d->kind == PRISM_DIM_ADD ? '+' : d->kind == PRISM_DIM_MUL ? '*' : '/');
      dim_print (s, d->b, names, d->kind == PRISM_DIM_DIV ? 2 : mine);
      if (mine < prec)
        g_string_append_c (s, ')');
      return;
    default:
      g_assert_not_reached ();
    }
}

char *
prism_dim_to_string (const PrismDim *dim, const char * const *var_names)
{
  GString *s = g_string_new (NULL);

  dim_print (s, dim, var_names, 0);
  return g_string_free (s, FALSE);
}

typedef struct
{
  const char *p;
  const char *start;
  const char * const *names;
  guint terms;             /* numbers and names read so far */
  GError **error;
} Parser;

static PrismDim *parse_sum (Parser *ps);

static void
skip_ws (Parser *ps)
{
  while (g_ascii_isspace (*ps->p))
    ps->p++;
}

static PrismDim *
parse_error (Parser *ps, const char *what)
{
  if (ps->error != NULL && *ps->error == NULL)
    g_set_error (ps->error, PRISM_ERROR, PRISM_ERROR_PARSE,
                 "dimension expression “%s”: %s at offset %d",
                 ps->start, what, (int) (ps->p - ps->start));
  return NULL;
}

static PrismDim *
parse_name (Parser *ps)
{
  const char *begin = ps->p;
  g_autofree char *name = NULL;
  guint n = ps->names ? g_strv_length ((char **) ps->names) : 0;

  while (g_ascii_isalnum (*ps->p) || *ps->p == '_')
    ps->p++;
  name = g_strndup (begin, ps->p - begin);
  for (guint i = 0; i < n; i++)
    if (g_strcmp0 (ps->names[i], name) == 0)
      return prism_dim_var (i);
  if (name[0] == 'v' && name[1] != '\0' && strspn (name + 1, "0123456789") == strlen (name + 1))
    return prism_dim_var ((guint) g_ascii_strtoull (name + 1, NULL, 10));
  ps->p = begin;
  return parse_error (ps, "unknown variable");
}

/* Counted as written: "1+1+…+1" folds to one constant but has every term. */
static gboolean
count_term (Parser *ps)
{
  if (++ps->terms <= PRISM_DIM_MAX_TERMS)
    return TRUE;
  if (ps->error != NULL && *ps->error == NULL)
    g_set_error (ps->error, PRISM_ERROR, PRISM_ERROR_LIMIT,
                 "dimension expression “%s” has more than %d terms", ps->start, PRISM_DIM_MAX_TERMS);
  return FALSE;
}

static PrismDim *
parse_atom (Parser *ps)
{
  PrismDim *d;

  skip_ws (ps);
  if ((g_ascii_isalnum (*ps->p) || *ps->p == '_') && !count_term (ps))
    return NULL;
  if (*ps->p == '(')
    {
      ps->p++;
      if ((d = parse_sum (ps)) == NULL)
        return NULL;
      skip_ws (ps);
      if (*ps->p != ')')
        {
          prism_dim_unref (d);
          return parse_error (ps, "expected “)”");
        }
      ps->p++;
      return d;
    }
  if (g_ascii_isdigit (*ps->p))
    {
      char *end = NULL;
      guint64 v = g_ascii_strtoull (ps->p, &end, 10);
      if (v > (guint64) PRISM_DIM_MAX)
        return parse_error (ps, "number too large");
      ps->p = end;
      return prism_dim_const ((gint64) v);
    }
  if (g_ascii_isalpha (*ps->p) || *ps->p == '_')
    return parse_name (ps);
  return parse_error (ps, "expected a number, a name or “(”");
}

static PrismDim *
parse_product (Parser *ps)
{
  PrismDim *acc = parse_atom (ps);

  while (acc != NULL)
    {
      char op;
      g_autoptr(PrismDim) rhs = NULL;
      PrismDim *next;

      skip_ws (ps);
      op = *ps->p;
      if (op != '*' && op != '/')
        break;
      ps->p++;
      if ((rhs = parse_atom (ps)) == NULL)
        {
          prism_dim_unref (acc);
          return NULL;
        }
      if (op == '/' && prism_dim_is_const (rhs) && rhs->value == 0)
        {
          prism_dim_unref (acc);
          return parse_error (ps, "division by zero");
        }
      next = op == '*' ? prism_dim_mul (acc, rhs) : prism_dim_div (acc, rhs);
      prism_dim_unref (acc);
      acc = next;
    }
  return acc;
}

static PrismDim *
parse_sum (Parser *ps)
{
  PrismDim *acc = parse_product (ps);

  while (acc != NULL)
    {
      g_autoptr(PrismDim) rhs = NULL;
      PrismDim *next;

      skip_ws (ps);
      if (*ps->p != '+')
        break;
      ps->p++;
      if ((rhs = parse_product (ps)) == NULL)
        {
          prism_dim_unref (acc);
          return NULL;
        }
      next = prism_dim_add (acc, rhs);
      prism_dim_unref (acc);
      acc = next;
    }
  return acc;
}

PrismDim *
prism_dim_parse (const char *text, const char * const *var_names, GError **error)
{
  Parser ps = { text, text, var_names, 0, error };
  PrismDim *d = parse_sum (&ps);

  if (d == NULL)
    return NULL;
  skip_ws (&ps);
  if (*ps.p != '\0')
    {
      prism_dim_unref (d);
      return parse_error (&ps, "unexpected character");
    }
  return d;
}
