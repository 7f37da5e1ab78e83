/* prism-explain.c — explanations: why two terms of an e-graph are equal
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every id of an explaining e-graph stands for one exact term: its operator
 * applied to the exact terms of the ids it was added with (its "orig"
 * children).  The proof forest links ids; each link is a rule application
 * between an exact instance of the rule's left side and one of its right
 * side, a constant fold, a given reason, or a congruence between two e-nodes
 * with the same operator whose orig children were already equal.
 *
 * Explaining a = b walks the forest path a … b.  Rule links become one step;
 * congruence links are expanded into the explanations of their children,
 * each lifted into the surrounding term.  This terminates: the children of a
 * congruence link were connected before the link was made, and the forest
 * path between two connected ids never changes, so the recursion only visits
 * older links.
 */
#include "config.h"

#include <string.h>

#include "prism-egraph-private.h"
#include "prism-error.h"
#include "prism-explain.h"

#define MAX_STEPS (1u << 20)

typedef struct
{
  PrismSymbol rule;
  gboolean backward;
  guint term;           /* the term after the step */
  guint subst_start;    /* in subst_pool: pairs (var symbol, term node) */
  guint n_subst;
} Step;

struct _PrismExplanation
{
  PrismTerm *terms;
  guint start;
  GArray *steps;        /* Step */
  GArray *subst_pool;   /* guint32 */
};

typedef struct
{
  const PrismEgraph *eg;
  PrismExplanation *expl;
  guint32 *term_of;     /* id → node of expl->terms, or PRISM_NONE32 */
  gboolean too_long;
} Ctx;

void
prism_explanation_free (PrismExplanation *expl)
{
  if (expl == NULL)
    return;
  prism_term_free (expl->terms);
  g_array_unref (expl->steps);
  g_array_unref (expl->subst_pool);
  g_free (expl);
}

/* The exact term of @id. */
static guint
term_of (Ctx *ctx, guint32 id)
{
  const PrismENode *n;
  guint buf[8];
  g_autofree guint *heap = NULL;
  guint *kids = buf;

  if (ctx->term_of[id] != PRISM_NONE32)
    return ctx->term_of[id];
  n = prism_egraph_node (ctx->eg, id);
  if (n->op == PRISM_SYMBOL_NONE)
    return ctx->term_of[id] = prism_term_add_int (ctx->expl->terms, n->value);
  if (n->n_children > G_N_ELEMENTS (buf))
    kids = heap = g_new (guint, n->n_children);
  for (guint i = 0; i < n->n_children; i++)
    kids[i] = term_of (ctx, prism_egraph_node_orig (ctx->eg, prism_egraph_node (ctx->eg, id))[i]);
  n = prism_egraph_node (ctx->eg, id);
  return ctx->term_of[id] = prism_term_add_node (ctx->expl->terms, n->op, n->n_children, kids);
}

static guint
forest_depth (const guint32 *parent, guint32 x)
{
  guint d = 0;

  while (parent[x] != x)
    {
      x = parent[x];
      d++;
    }
  return d;
}

static void explain_rec (Ctx *ctx, guint32 a, guint32 b, GArray *steps);

static void
push_step (Ctx *ctx, GArray *steps, const Step *step)
{
  if (steps->len >= MAX_STEPS)
    {
      ctx->too_long = TRUE;
      return;
    }
  g_array_append_val (steps, *step);
}

/* Appends the steps that turn the term of @from into the term of @to, for
 * one forest link. */
static void
explain_link (Ctx *ctx, guint32 from, guint32 to, guint32 just, GArray *steps)
{
  const PrismEgraph *eg = ctx->eg;

  if (ctx->too_long)
    return;
  if (just == PRISM_JUST_CONGRUENCE)
    {
      const PrismENode *nf = prism_egraph_node (eg, from);
      guint n = nf->n_children;
      PrismSymbol op = nf->op;
      g_autofree guint32 *cf = g_memdup2 (prism_egraph_node_orig (eg, nf), MAX (n, 1) * sizeof (guint32));
      g_autofree guint32 *ct = g_memdup2 (prism_egraph_node_orig (eg, prism_egraph_node (eg, to)),
                                          MAX (n, 1) * sizeof (guint32));
      g_autofree guint *kids = g_new (guint, MAX (n, 1));

      g_assert (prism_egraph_node (eg, to)->op == op && prism_egraph_node (eg, to)->n_children == n);
      for (guint i = 0; i < n && !ctx->too_long; i++)
        {
          g_autoptr(GArray) sub = NULL;

          if (cf[i] == ct[i])
            continue;
          sub = g_array_new (FALSE, FALSE, sizeof (Step));
          explain_rec (ctx, cf[i], ct[i], sub);
          /* Children left of i are already rewritten, those right of it not yet. */
          for (guint j = 0; j < n; j++)
            kids[j] = term_of (ctx, j < i ? ct[j] : cf[j]);
          for (guint k = 0; k < sub->len; k++)
            {
              Step s = g_array_index (sub, Step, k);

              kids[i] = s.term;
              s.term = prism_term_add_node (ctx->expl->terms, op, n, kids);
              push_step (ctx, steps, &s);
            }
        }
      return;
    }
  else
    {
      const PrismJustification *j = &g_array_index (eg->justs, PrismJustification, just);
      Step s = { j->name, j->lhs_node != from, 0, ctx->expl->subst_pool->len, j->n_subst };

      g_assert (j->lhs_node == from || j->lhs_node == to);
      for (guint k = 0; k < j->n_subst; k++)
        {
          guint32 var = g_array_index (eg->subst_pool, guint32, j->subst_start + 2 * k);
          guint32 id = g_array_index (eg->subst_pool, guint32, j->subst_start + 2 * k + 1);
          guint32 t = term_of (ctx, id);

          g_array_append_val (ctx->expl->subst_pool, var);
          g_array_append_val (ctx->expl->subst_pool, t);
        }
      s.term = term_of (ctx, to);
      push_step (ctx, steps, &s);
    }
}

static void
explain_rec (Ctx *ctx, guint32 a, guint32 b, GArray *steps)
{
  const guint32 *parent = (const guint32 *) ctx->eg->expl_parent->data;
  const guint32 *just = (const guint32 *) ctx->eg->expl_just->data;
  guint da = forest_depth (parent, a);
  guint db = forest_depth (parent, b);
  g_autoptr(GArray) down = g_array_new (FALSE, FALSE, sizeof (guint32));
  guint32 x = a, y = b;

  /* Up from a to the common ancestor, link by link; the links from b up are
   * remembered and walked back down afterwards. */
  while (da > db)
    {
      explain_link (ctx, x, parent[x], just[x], steps);
      x = parent[x];
      da--;
    }
  while (db > da)
    {
      g_array_append_val (down, y);
      y = parent[y];
      db--;
    }
  while (x != y)
    {
      explain_link (ctx, x, parent[x], just[x], steps);
      x = parent[x];
      g_array_append_val (down, y);
      y = parent[y];
    }
  for (guint k = down->len; k-- > 0;)
    {
      guint32 child = g_array_index (down, guint32, k);

      explain_link (ctx, parent[child], child, just[child], steps);
    }
}

PrismExplanation *
prism_egraph_explain (PrismEgraph *eg, guint a, guint b, GError **error)
{
  g_autoptr(PrismExplanation) expl = NULL;
  g_autofree guint32 *memo = NULL;
  Ctx ctx;

  g_return_val_if_fail (eg != NULL, NULL);
  g_return_val_if_fail (a < eg->nodes->len && b < eg->nodes->len, NULL);
  if (!prism_egraph_explaining (eg))
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED,
                   "the e-graph records no explanations (create it with PRISM_EGRAPH_EXPLAIN)");
      return NULL;
    }
  if (prism_egraph_find_mut (eg, a) != prism_egraph_find_mut (eg, b))
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED,
                   "ids %u and %u are not in the same e-class", a, b);
      return NULL;
    }
  expl = g_new0 (PrismExplanation, 1);
  expl->terms = prism_term_new ();
  expl->steps = g_array_new (FALSE, FALSE, sizeof (Step));
  expl->subst_pool = g_array_new (FALSE, FALSE, sizeof (guint32));
  memo = g_new (guint32, eg->nodes->len);
  memset (memo, 0xff, eg->nodes->len * sizeof (guint32));
  ctx.eg = eg;
  ctx.expl = expl;
  ctx.term_of = memo;
  ctx.too_long = FALSE;
  expl->start = term_of (&ctx, a);
  explain_rec (&ctx, a, b, expl->steps);
  if (ctx.too_long)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_LIMIT,
                   "the explanation has more than %u steps", MAX_STEPS);
      return NULL;
    }
  /* Make the end term the root, and make sure it exists for empty proofs. */
  prism_term_set_root (expl->terms, term_of (&ctx, b));
  g_assert (expl->steps->len > 0
            ? g_array_index (expl->steps, Step, expl->steps->len - 1).term == term_of (&ctx, b)
            : expl->start == term_of (&ctx, b));
  return g_steal_pointer (&expl);
}

guint
prism_explanation_get_length (const PrismExplanation *expl)
{
  g_return_val_if_fail (expl != NULL, 0);
  return expl->steps->len;
}

const PrismTerm *
prism_explanation_get_terms (const PrismExplanation *expl)
{
  g_return_val_if_fail (expl != NULL, NULL);
  return expl->terms;
}

guint
prism_explanation_get_term (const PrismExplanation *expl, guint i)
{
  g_return_val_if_fail (expl != NULL && i <= expl->steps->len, G_MAXUINT);
  if (i == 0)
    return expl->start;
  return g_array_index (expl->steps, Step, i - 1).term;
}

static const Step *
get_step (const PrismExplanation *expl, guint i)
{
  return &g_array_index (expl->steps, Step, i);
}

const char *
prism_explanation_get_rule (const PrismExplanation *expl, guint i)
{
  g_return_val_if_fail (expl != NULL && i < expl->steps->len, NULL);
  return prism_symbol_name (get_step (expl, i)->rule);
}

gboolean
prism_explanation_get_backward (const PrismExplanation *expl, guint i)
{
  g_return_val_if_fail (expl != NULL && i < expl->steps->len, FALSE);
  return get_step (expl, i)->backward;
}

char *
prism_explanation_get_subst (const PrismExplanation *expl, guint i)
{
  GString *out = g_string_new (NULL);
  const Step *s;

  g_return_val_if_fail (expl != NULL && i < expl->steps->len, NULL);
  s = get_step (expl, i);
  for (guint k = 0; k < s->n_subst; k++)
    {
      guint32 var = g_array_index (expl->subst_pool, guint32, s->subst_start + 2 * k);
      guint32 t = g_array_index (expl->subst_pool, guint32, s->subst_start + 2 * k + 1);

      if (k > 0)
        g_string_append (out, ", ");
      g_string_append_printf (out, "%s = ", prism_symbol_name (var));
      prism_term_node_append (expl->terms, t, out);
    }
  return g_string_free (out, FALSE);
}

GPtrArray *
prism_explanation_get_rules_used (const PrismExplanation *expl)
{
  GPtrArray *names;

  g_return_val_if_fail (expl != NULL, NULL);
  names = g_ptr_array_sized_new (expl->steps->len);
  for (guint i = 0; i < expl->steps->len; i++)
    g_ptr_array_add (names, (gpointer) prism_symbol_name (get_step (expl, i)->rule));
  return names;
}

char *
prism_explanation_to_string (const PrismExplanation *expl)
{
  GString *out = g_string_new (NULL);

  g_return_val_if_fail (expl != NULL, NULL);
  prism_term_node_append (expl->terms, expl->start, out);
  g_string_append_c (out, '\n');
  for (guint i = 0; i < expl->steps->len; i++)
    {
      const Step *s = get_step (expl, i);

      g_string_append (out, "  = ");
      prism_term_node_append (expl->terms, s->term, out);
      g_string_append_printf (out, "    [%s%s]\n", prism_symbol_name (s->rule),
                              s->backward ? ", backward" : "");
    }
  return g_string_free (out, FALSE);
}

/* ------------------------------------------------------------------------ */
/* Replaying */

static gboolean
fold_at (const PrismTerm *t, guint from, guint to, PrismFoldFunc fold, gpointer fold_data)
{
  guint n = prism_term_node_get_n_children (t, from);
  g_autofree gint64 *args = g_new (gint64, MAX (n, 1));
  gint64 value;

  if (!prism_term_node_is_int (t, to) || prism_term_node_is_int (t, from))
    return FALSE;
  for (guint i = 0; i < n; i++)
    {
      guint c = prism_term_node_get_child (t, from, i);

      if (!prism_term_node_is_int (t, c))
        return FALSE;
      args[i] = prism_term_node_get_int (t, c);
    }
  return fold (prism_term_node_get_op (t, from), args, n, &value, fold_data)
         && value == prism_term_node_get_int (t, to);
}

static gboolean
check_fold_rec (const PrismTerm *t, guint b, guint a, gboolean backward,
                PrismFoldFunc fold, gpointer fold_data)
{
  guint n, differing = G_MAXUINT;

  if (backward ? fold_at (t, a, b, fold, fold_data) : fold_at (t, b, a, fold, fold_data))
    return TRUE;
  if (prism_term_node_get_op (t, b) != prism_term_node_get_op (t, a)
      || prism_term_node_get_int (t, b) != prism_term_node_get_int (t, a))
    return FALSE;
  n = prism_term_node_get_n_children (t, b);
  if (n != prism_term_node_get_n_children (t, a))
    return FALSE;
  for (guint i = 0; i < n; i++)
    if (prism_term_node_get_child (t, b, i) != prism_term_node_get_child (t, a, i))
      {
        if (differing != G_MAXUINT)
          return FALSE;
        differing = i;
      }
  if (differing == G_MAXUINT)
    return FALSE;
  return check_fold_rec (t, prism_term_node_get_child (t, b, differing),
                         prism_term_node_get_child (t, a, differing), backward, fold, fold_data);
}

gboolean
prism_explanation_check (const PrismExplanation *expl,
                         const PrismRuleSet     *rules,
                         PrismFoldFunc           fold,
                         gpointer                fold_data,
                         GError                **error)
{
  g_return_val_if_fail (expl != NULL && rules != NULL, FALSE);
  for (guint i = 0; i < expl->steps->len; i++)
    {
      const Step *s = get_step (expl, i);
      const char *name = prism_symbol_name (s->rule);
      guint before = prism_explanation_get_term (expl, i);
      gboolean ok;

      if (strcmp (name, "constant-fold") == 0)
        ok = fold != NULL && check_fold_rec (expl->terms, before, s->term, s->backward, fold, fold_data);
      else
        {
          const PrismRule *rule = prism_rule_set_lookup (rules, name);

          if (rule == NULL)
            {
              g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED,
                           "step %u uses '%s', which is not a rule of the set", i + 1, name);
              return FALSE;
            }
          ok = prism_rule_check_step (rule, s->backward, expl->terms, before, expl->terms, s->term);
        }
      if (!ok)
        {
          g_autofree char *b = prism_term_node_to_string (expl->terms, before);
          g_autofree char *a = prism_term_node_to_string (expl->terms, s->term);

          g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED,
                       "step %u is not one application of '%s'%s: %s => %s",
                       i + 1, name, s->backward ? " (backward)" : "", b, a);
          return FALSE;
        }
    }
  return TRUE;
}
