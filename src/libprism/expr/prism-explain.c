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
 * path between two connected ids never changes, so the expansion only visits
 * older links.  It runs on an explicit stack of tasks (the forest and the
 * nesting of congruences are as deep as the terms), lifting every step
 * through its chain of congruence contexts as it is emitted.
 */
#include "config.h"

#include <string.h>

#include "prism-egraph-private.h"
#include "prism-error.h"
#include "prism-explain.h"

#define MAX_STEPS (1u << 20)
/* Every step is a whole term, so a proof of many steps deep inside a big
 * term needs (steps × depth) term nodes: refused past this many (about
 * 100 MiB) instead of exhausting memory. */
#define MAX_TERM_NODES (1u << 21)

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

/* A context a step is lifted into: the operator of a congruence, its
 * children's terms with a hole at @hole, inside the context @parent
 * (G_MAXUINT: the top).  Contexts are shared, never changed. */
typedef struct
{
  PrismSymbol op;
  guint n;
  guint hole;
  guint kids;           /* offset in Ctx.kid_pool */
  guint parent;
} Context;

/* Work still to do, on an explicit stack: the proof forest can be as deep
 * as the terms, and congruences nest as deep as they are. */
typedef enum
{
  TASK_PATH,            /* explain a = b */
  TASK_LINK,            /* explain one forest link a → b with its justification */
} TaskKind;

typedef struct
{
  TaskKind kind;
  guint32 a, b;
  guint32 just;         /* TASK_LINK */
  guint context;        /* where the steps go: index in Ctx.contexts or G_MAXUINT */
} Task;

typedef struct
{
  const PrismEgraph *eg;
  PrismExplanation *expl;
  guint32 *term_of;     /* id → node of expl->terms, or PRISM_NONE32 */
  GArray *contexts;     /* Context */
  GArray *kid_pool;     /* guint */
  GArray *tasks;        /* Task */
  GArray *scratch;      /* guint */
  gboolean too_long;
  gboolean too_big;
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

static void
check_size (Ctx *ctx)
{
  if (prism_term_get_n_nodes (ctx->expl->terms) > MAX_TERM_NODES)
    ctx->too_big = TRUE;
}

/* The exact term of @id: its operator over the exact terms of its orig
 * children, built children first with an explicit stack. */
static guint
term_of (Ctx *ctx, guint32 id)
{
  const PrismEgraph *eg = ctx->eg;
  g_autoptr(GArray) stack = NULL;

  if (ctx->term_of[id] != PRISM_NONE32)
    return ctx->term_of[id];
  stack = g_array_new (FALSE, FALSE, 2 * sizeof (guint32));
  {
    guint32 top[2] = { id, 0 };
    g_array_append_val (stack, top);
  }
  while (stack->len > 0)
    {
      guint32 *top = &g_array_index (stack, guint32, 2 * (stack->len - 1));
      guint32 x = top[0];
      const PrismENode *n = prism_egraph_node (eg, x);

      if (ctx->term_of[x] != PRISM_NONE32)
        {
          g_array_set_size (stack, stack->len - 1);
          continue;
        }
      if (n->op == PRISM_SYMBOL_NONE)
        {
          ctx->term_of[x] = prism_term_add_int (ctx->expl->terms, n->value);
          g_array_set_size (stack, stack->len - 1);
          continue;
        }
      if (top[1] < n->n_children)
        {
          guint32 child[2] = { prism_egraph_node_orig (eg, n)[top[1]++], 0 };

          if (ctx->term_of[child[0]] == PRISM_NONE32)
            g_array_append_val (stack, child);
          continue;
        }
      g_array_set_size (ctx->scratch, n->n_children);
      for (guint i = 0; i < n->n_children; i++)
        g_array_index (ctx->scratch, guint, i) = ctx->term_of[prism_egraph_node_orig (eg, n)[i]];
      ctx->term_of[x] = prism_term_add_node (ctx->expl->terms, n->op, n->n_children,
                                             (guint *) ctx->scratch->data);
      g_array_set_size (stack, stack->len - 1);
    }
  check_size (ctx);
  return ctx->term_of[id];
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

/* Lifts @term through @context and its parents: the whole term the step
 * produces. */
static guint
lift (Ctx *ctx, guint context, guint term)
{
  while (context != G_MAXUINT)
    {
      const Context *c = &g_array_index (ctx->contexts, Context, context);

      g_array_set_size (ctx->scratch, c->n);
      memcpy (ctx->scratch->data, &g_array_index (ctx->kid_pool, guint, c->kids), c->n * sizeof (guint));
      g_array_index (ctx->scratch, guint, c->hole) = term;
      term = prism_term_add_node (ctx->expl->terms, c->op, c->n, (guint *) ctx->scratch->data);
      context = c->parent;
    }
  return term;
}

static void
push_step (Ctx *ctx, guint context, Step *step)
{
  if (ctx->expl->steps->len >= MAX_STEPS)
    {
      ctx->too_long = TRUE;
      return;
    }
  step->term = lift (ctx, context, step->term);
  g_array_append_val (ctx->expl->steps, *step);
  check_size (ctx);
}

static void
push_task (Ctx *ctx, TaskKind kind, guint32 a, guint32 b, guint32 just, guint context)
{
  Task t = { kind, a, b, just, context };

  g_array_append_val (ctx->tasks, t);
}

/* The steps of one forest link from @from to @to: one rule step, or the
 * explanations of a congruence's differing children, each in its context
 * (children left of it already rewritten, those right of it not yet). */
static void
explain_link (Ctx *ctx, const Task *t)
{
  const PrismEgraph *eg = ctx->eg;

  if (t->just == PRISM_JUST_CONGRUENCE)
    {
      const PrismENode *nf = prism_egraph_node (eg, t->a);
      const PrismENode *nt = prism_egraph_node (eg, t->b);
      guint n = nf->n_children;
      g_autofree guint32 *cf = g_memdup2 (prism_egraph_node_orig (eg, nf), MAX (n, 1) * sizeof (guint32));
      g_autofree guint32 *ct = g_memdup2 (prism_egraph_node_orig (eg, nt), MAX (n, 1) * sizeof (guint32));
      PrismSymbol op = nf->op;
      guint first = ctx->tasks->len;

      g_assert (nt->op == op && nt->n_children == n);
      for (guint i = 0; i < n; i++)
        {
          Context c = { op, n, i, ctx->kid_pool->len, t->context };

          if (cf[i] == ct[i])
            continue;
          for (guint j = 0; j < n; j++)
            {
              guint k = term_of (ctx, j < i ? ct[j] : cf[j]);
              g_array_append_val (ctx->kid_pool, k);
            }
          g_array_append_val (ctx->contexts, c);
          push_task (ctx, TASK_PATH, cf[i], ct[i], 0, ctx->contexts->len - 1);
        }
      /* The stack pops last first: reverse, so the leftmost child goes first. */
      for (guint i = first, j = ctx->tasks->len - 1; i < j; i++, j--)
        {
          Task tmp = g_array_index (ctx->tasks, Task, i);
          g_array_index (ctx->tasks, Task, i) = g_array_index (ctx->tasks, Task, j);
          g_array_index (ctx->tasks, Task, j) = tmp;
        }
    }
  else
    {
      const PrismJustification *j = &g_array_index (eg->justs, PrismJustification, t->just);
      Step s = { j->name, j->lhs_node != t->a, 0, ctx->expl->subst_pool->len, j->n_subst };

      g_assert (j->lhs_node == t->a || j->lhs_node == t->b);
      for (guint k = 0; k < j->n_subst; k++)
        {
          guint32 var = g_array_index (eg->subst_pool, guint32, j->subst_start + 2 * k);
          guint32 id = g_array_index (eg->subst_pool, guint32, j->subst_start + 2 * k + 1);
          guint32 term = term_of (ctx, id);

          g_array_append_val (ctx->expl->subst_pool, var);
          g_array_append_val (ctx->expl->subst_pool, term);
        }
      s.term = term_of (ctx, t->b);
      push_step (ctx, t->context, &s);
    }
}

/* Pushes the links of the forest path a … b, to be explained in order: up
 * from a to the common ancestor, then down to b. */
static void
explain_path (Ctx *ctx, const Task *t)
{
  const guint32 *parent = (const guint32 *) ctx->eg->expl_parent->data;
  const guint32 *just = (const guint32 *) ctx->eg->expl_just->data;
  guint da = forest_depth (parent, t->a);
  guint db = forest_depth (parent, t->b);
  g_autoptr(GArray) up = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GArray) down = g_array_new (FALSE, FALSE, sizeof (guint32));
  guint32 x = t->a, y = t->b;

  while (da > db)
    {
      g_array_append_val (up, x);
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
      g_array_append_val (up, x);
      x = parent[x];
      g_array_append_val (down, y);
      y = parent[y];
    }
  /* Pushed last first: the down links (walked back from the ancestor), then
   * the up links. */
  for (guint k = 0; k < down->len; k++)
    {
      guint32 child = g_array_index (down, guint32, k);

      push_task (ctx, TASK_LINK, parent[child], child, just[child], t->context);
    }
  for (guint k = up->len; k-- > 0;)
    {
      guint32 from = g_array_index (up, guint32, k);

      push_task (ctx, TASK_LINK, from, parent[from], just[from], t->context);
    }
}

static void
explain (Ctx *ctx, guint32 a, guint32 b)
{
  push_task (ctx, TASK_PATH, a, b, 0, G_MAXUINT);
  while (ctx->tasks->len > 0 && !ctx->too_long && !ctx->too_big)
    {
      Task t = g_array_index (ctx->tasks, Task, ctx->tasks->len - 1);

      g_array_set_size (ctx->tasks, ctx->tasks->len - 1);
      if (t.kind == TASK_PATH)
        explain_path (ctx, &t);
      else
        explain_link (ctx, &t);
    }
}

PrismExplanation *
prism_egraph_explain (PrismEgraph *eg, guint a, guint b, GError **error)
{
  g_autoptr(PrismExplanation) expl = NULL;
  g_autofree guint32 *memo = NULL;
  g_autoptr(GArray) contexts = NULL;
  g_autoptr(GArray) kid_pool = NULL;
  g_autoptr(GArray) tasks = NULL;
  g_autoptr(GArray) scratch = NULL;
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
  contexts = g_array_new (FALSE, FALSE, sizeof (Context));
  kid_pool = g_array_new (FALSE, FALSE, sizeof (guint));
  tasks = g_array_new (FALSE, FALSE, sizeof (Task));
  scratch = g_array_new (FALSE, FALSE, sizeof (guint));
  ctx = (Ctx) { eg, expl, memo, contexts, kid_pool, tasks, scratch, FALSE, FALSE };
  expl->start = term_of (&ctx, a);
  explain (&ctx, a, b);
  if (ctx.too_long)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_LIMIT,
                   "the explanation has more than %u steps", MAX_STEPS);
      return NULL;
    }
  if (ctx.too_big)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_LIMIT,
                   "the explanation's terms have more than %u nodes (%u steps so far)",
                   MAX_TERM_NODES, expl->steps->len);
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

/* The whole text of an explanation stops after this many bytes (each term
 * is already cut at PRISM_TERM_TEXT_MAX): a long proof of a big term would
 * otherwise print steps × size. */
#define MAX_TEXT (16u << 20)

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

      if (out->len > MAX_TEXT)
        {
          g_string_append_printf (out, "  … %u more steps\n", expl->steps->len - i);
          break;
        }
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

/* Whether @a is @b with one constant fold somewhere inside: the two agree
 * down one path of differing children, where the fold is (a loop: the path
 * can be as long as the term is deep). */
static gboolean
check_fold (const PrismTerm *t, guint b, guint a, gboolean backward,
            PrismFoldFunc fold, gpointer fold_data)
{
  for (;;)
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
      b = prism_term_node_get_child (t, b, differing);
      a = prism_term_node_get_child (t, a, differing);
    }
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
        ok = fold != NULL && check_fold (expl->terms, before, s->term, s->backward, fold, fold_data);
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
