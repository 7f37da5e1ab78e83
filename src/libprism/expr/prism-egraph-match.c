/* prism-egraph-match.c — e-matching of patterns against a PrismEgraph
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Backtracking e-matching: the candidates for the pattern's root come from
 * the per-operator index (leaders only, in id order); below the root, the
 * leaders of a class with a given operator are a contiguous range of the
 * per-class index built by the rebuild, found by binary search.  A "todo"
 * stack of (pattern node, class) pairs replaces continuation closures, so a
 * search allocates nothing per candidate.
 */
#include "config.h"

#include <string.h>

#include "prism-egraph-private.h"
#include "prism-error.h"

typedef struct
{
  const PrismEgraph *eg;
  const PrismPattern *pattern;
  guint32 *subst;
  guint32 *todo_pat;
  guint32 *todo_cls;
  guint todo_len;
  PrismMatchFunc func;
  gpointer user_data;
  guint32 root_class;
  gboolean stop;
} Matcher;

/* First position in the class's node range whose (op, value) is not less
 * than (@op, @value). */
static guint32
class_lower_bound (const PrismEgraph *eg, guint32 lo, guint32 hi, PrismSymbol op, gint64 value)
{
  const guint32 *nodes = (const guint32 *) eg->class_nodes->data;

  while (lo < hi)
    {
      guint32 mid = lo + (hi - lo) / 2;
      const PrismENode *n = prism_egraph_node (eg, nodes[mid]);

      if (n->op < op || (n->op == op && n->value < value))
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

static void
matcher_run (Matcher *m)
{
  const PrismPatNode *pn;
  guint32 p, c;

  if (m->stop)
    return;
  if (m->todo_len == 0)
    {
      if (!m->func (m->user_data, m->root_class, m->subst))
        m->stop = TRUE;
      return;
    }
  m->todo_len--;
  p = m->todo_pat[m->todo_len];
  c = m->todo_cls[m->todo_len];
  pn = prism_pattern_node (m->pattern, p);
  if (pn->var >= 0)
    {
      if (m->subst[pn->var] == PRISM_NONE32)
        {
          m->subst[pn->var] = c;
          matcher_run (m);
          m->subst[pn->var] = PRISM_NONE32;
        }
      else if (m->subst[pn->var] == c)
        matcher_run (m);
    }
  else
    {
      const PrismEgraph *eg = m->eg;
      const guint32 *nodes = (const guint32 *) eg->class_nodes->data;
      guint32 start = g_array_index (eg->class_start, guint32, c);
      guint32 end = start + g_array_index (eg->class_len, guint32, c);
      const guint32 *pkids = prism_pattern_children (m->pattern, pn);
      guint base = m->todo_len;

      for (guint32 k = class_lower_bound (eg, start, end, pn->op, pn->value); k < end && !m->stop; k++)
        {
          const PrismENode *n = prism_egraph_node (eg, nodes[k]);
          const guint32 *kids;

          if (n->op != pn->op || n->value != pn->value)
            break;
          if (n->n_children != pn->n_children)
            continue;
          kids = prism_egraph_node_children (eg, n);
          for (guint i = pn->n_children; i-- > 0;)
            {
              m->todo_pat[m->todo_len] = pkids[i];
              m->todo_cls[m->todo_len] = kids[i];
              m->todo_len++;
            }
          matcher_run (m);
          m->todo_len = base;
        }
    }
  m->todo_pat[m->todo_len] = p;
  m->todo_cls[m->todo_len] = c;
  m->todo_len++;
}

gboolean
prism_egraph_search_internal (const PrismEgraph  *eg,
                              const PrismPattern *pattern,
                              PrismMatchFunc      func,
                              gpointer            user_data,
                              gint64              deadline,
                              gboolean           *timed_out)
{
  guint n_vars = pattern->var_names->len;
  guint n_pat = pattern->nodes->len;
  g_autofree guint32 *subst = g_new (guint32, MAX (n_vars, 1));
  g_autofree guint32 *todo_pat = g_new (guint32, n_pat);
  g_autofree guint32 *todo_cls = g_new (guint32, n_pat);
  const PrismPatNode *root = prism_pattern_node (pattern, pattern->root);
  Matcher m = { eg, pattern, subst, todo_pat, todo_cls, 0, func, user_data, 0, FALSE };
  guint checked = 0;

  g_assert (eg->clean);
  if (timed_out != NULL)
    *timed_out = FALSE;
  for (guint v = 0; v < n_vars; v++)
    subst[v] = PRISM_NONE32;

  if (root->var >= 0)
    {
      /* A bare variable matches every class once. */
      for (guint32 c = 0; c < eg->nodes->len && !m.stop; c++)
        {
          if (g_array_index (eg->uf, guint32, c) != c || g_array_index (eg->class_len, guint32, c) == 0)
            continue;
          subst[root->var] = c;
          if (!func (user_data, c, subst))
            m.stop = TRUE;
        }
      return !m.stop;
    }
  else
    {
      GArray *list = g_hash_table_lookup (eg->op_index, GUINT_TO_POINTER (root->op + 1));
      const guint32 *pkids = prism_pattern_children (pattern, root);

      if (list == NULL)
        return TRUE;
      for (guint k = 0; k < list->len && !m.stop; k++)
        {
          guint32 id = g_array_index (list, guint32, k);
          const PrismENode *n = prism_egraph_node (eg, id);
          const guint32 *kids;

          /* A stop (prism_cancelled()) ends the search as the deadline does;
           * the runner tells them apart. */
          if ((++checked & 255) == 0 &&
              ((deadline != 0 && g_get_monotonic_time () >= deadline) || prism_cancelled ()))
            {
              if (timed_out != NULL)
                *timed_out = TRUE;
              return FALSE;
            }
          if (!(n->flags & PRISM_ENODE_LEADER) || n->n_children != root->n_children
              || n->value != root->value)
            continue;
          kids = prism_egraph_node_children (eg, n);
          m.root_class = prism_egraph_find_const (eg, id);
          m.todo_len = 0;
          for (guint i = root->n_children; i-- > 0;)
            {
              todo_pat[m.todo_len] = pkids[i];
              todo_cls[m.todo_len] = kids[i];
              m.todo_len++;
            }
          matcher_run (&m);
        }
    }
  return !m.stop;
}

guint32
prism_egraph_lookup_instance (const PrismEgraph  *eg,
                              const PrismPattern *pattern,
                              const guint32      *subst)
{
  guint n_pat = pattern->nodes->len;
  guint32 buf[32];
  g_autofree guint32 *heap = NULL;
  guint32 *cls = buf;

  /* Pattern nodes are stored children first, so one forward pass works. */
  if (n_pat > G_N_ELEMENTS (buf))
    cls = heap = g_new (guint32, n_pat);
  for (guint p = 0; p < n_pat; p++)
    {
      const PrismPatNode *pn = prism_pattern_node (pattern, p);
      const guint32 *pkids = prism_pattern_children (pattern, pn);
      guint32 kbuf[8];
      g_autofree guint32 *kheap = NULL;
      guint32 *kids = kbuf;

      if (pn->var >= 0)
        {
          if (subst[pn->var] == PRISM_NONE32)
            return PRISM_NONE32;
          cls[p] = prism_egraph_find_const (eg, subst[pn->var]);
          continue;
        }
      if (pn->n_children > G_N_ELEMENTS (kbuf))
        kids = kheap = g_new (guint32, pn->n_children);
      for (guint i = 0; i < pn->n_children; i++)
        kids[i] = cls[pkids[i]];
      cls[p] = prism_egraph_lookup_raw (eg, pn->op, pn->value, pn->n_children, kids);
      if (cls[p] == PRISM_NONE32)
        return PRISM_NONE32;
    }
  return cls[pattern->root];
}

guint32
prism_egraph_add_instance (PrismEgraph        *eg,
                           const PrismPattern *pattern,
                           const guint32      *subst)
{
  guint n_pat = pattern->nodes->len;
  guint32 buf[32];
  g_autofree guint32 *heap = NULL;
  guint32 *ids = buf;

  if (n_pat > G_N_ELEMENTS (buf))
    ids = heap = g_new (guint32, n_pat);
  for (guint p = 0; p < n_pat; p++)
    {
      const PrismPatNode *pn = prism_pattern_node (pattern, p);
      const guint32 *pkids = prism_pattern_children (pattern, pn);
      guint32 kbuf[8];
      g_autofree guint32 *kheap = NULL;
      guint32 *kids = kbuf;

      if (pn->var >= 0)
        {
          g_assert (subst[pn->var] != PRISM_NONE32);
          ids[p] = subst[pn->var];
          continue;
        }
      if (pn->n_children > G_N_ELEMENTS (kbuf))
        kids = kheap = g_new (guint32, pn->n_children);
      for (guint i = 0; i < pn->n_children; i++)
        kids[i] = ids[pkids[i]];
      ids[p] = prism_egraph_add_internal (eg, pn->op, pn->value, pn->n_children, kids);
    }
  return ids[pattern->root];
}

/* ------------------------------------------------------------------------ */
/* Public search */

typedef struct
{
  GArray *classes;
  GArray *substs;
  guint n_vars;
} Collector;

static gboolean
collect_match (gpointer user_data, guint32 root_class, const guint32 *subst)
{
  Collector *col = user_data;

  g_array_append_val (col->classes, root_class);
  g_array_append_vals (col->substs, subst, col->n_vars);
  return TRUE;
}

PrismMatches *
prism_egraph_search (PrismEgraph *eg, const PrismPattern *pattern)
{
  PrismMatches *matches;
  Collector col;

  g_return_val_if_fail (eg != NULL && pattern != NULL, NULL);
  prism_egraph_rebuild (eg);
  col.n_vars = prism_pattern_get_n_vars (pattern);
  col.classes = g_array_new (FALSE, FALSE, sizeof (guint32));
  col.substs = g_array_new (FALSE, FALSE, sizeof (guint32));
  prism_egraph_search_internal (eg, pattern, collect_match, &col, 0, NULL);
  matches = g_new0 (PrismMatches, 1);
  matches->n_matches = col.classes->len;
  matches->n_vars = col.n_vars;
  matches->classes = (guint *) (void *) g_array_free (col.classes, FALSE);
  matches->substs = (guint *) (void *) g_array_free (col.substs, FALSE);
  return matches;
}

void
prism_matches_free (PrismMatches *matches)
{
  if (matches == NULL)
    return;
  g_free (matches->classes);
  g_free (matches->substs);
  g_free (matches);
}
