/* prism-egraph.c — e-graphs: congruence closure over s-expression terms
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The design follows egg (Willsey et al., POPL 2021): union-find over ids,
 * a hash-cons ("memo") from canonical e-node to id, and deferred congruence
 * closure: a union only records which e-nodes had a child merged away
 * ("pending"); rebuild() re-canonicalizes those, and two that become equal are
 * congruent, so their classes are merged too.  Everything lives in flat
 * arrays indexed by id, and every loop runs in id order, which is what makes
 * ids, matches and explanations deterministic.
 *
 * Explanations follow egg's proof-producing union-find: every union of ids a
 * and b adds the edge a–b, labelled with its justification, to a spanning
 * forest over the ids (the proof forest); the path between two ids in that
 * forest is the proof that they are equal (see prism-explain.c).
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "prism-egraph-private.h"
#include "prism-error.h"

/* ------------------------------------------------------------------------ */
/* Constant folding */

static double
bits_value (gint64 bits)
{
  union { gint64 i; double d; } v = { .i = bits };

  return v.d;
}

/* The verifier's constants are the bits of an f64 value: their product
 * folds only when it is exact (no rounding, no overflow, no underflow),
 * so that the folded constant is the real product. */
static gboolean
fold_fmul (gint64 a, gint64 b, gint64 *result)
{
  double x = bits_value (a), y = bits_value (b), p = x * y;
  union { double d; gint64 i; } v = { .d = p };

  if (!isfinite (p) || fma (x, y, -p) != 0.0 || (p == 0.0 && x != 0.0 && y != 0.0))
    return FALSE;
  *result = v.i;
  return TRUE;
}

/* Transpose codes (prism_par_perm_code()): rank · 256 + Σ perm[i] · 4^i.
 * (transpose (transpose t p) q) takes output dim i from dim p[q[i]] of t. */
static gboolean
fold_perm_compose (gint64 p, gint64 q, gint64 *result)
{
  gint64 nd = p >> 8, code;

  if (p < 0 || q < 0 || nd != (q >> 8) || nd < 1 || nd > 4)
    return FALSE;
  code = nd << 8;
  for (gint64 i = 0; i < nd; i++)
    {
      gint64 qi = (q >> (2 * i)) & 3, pq;
      if (qi >= nd)
        return FALSE;
      pq = (p >> (2 * qi)) & 3;
      if (pq >= nd)
        return FALSE;
      code |= pq << (2 * i);
    }
  *result = code;
  return TRUE;
}

/* The count a constant's bits stand for: a positive integer below 2^31. */
static gboolean
fold_bits_count (gint64 bits, gint64 *result)
{
  double v = bits_value (bits);

  if (!(v >= 1.0 && v < 2147483648.0) || v != floor (v))
    return FALSE;
  *result = (gint64) v;
  return TRUE;
}

gboolean
prism_fold_arith (PrismSymbol   op,
                  const gint64 *args,
                  guint         n_args,
                  gint64       *result,
                  gpointer      user_data)
{
  static gsize interned = 0;
  static PrismSymbol sym_bits_count, sym_fmul, sym_perm_compose;
  const char *name = prism_symbol_name (op);
  gint64 a, b;

  /* The verifier's folds, by symbol: this runs for every e-node whose
   * children are all integers (the oracle's e-graphs have many). */
  if (g_once_init_enter (&interned))
    {
      sym_bits_count = prism_symbol_intern ("bits_count");
      sym_fmul = prism_symbol_intern ("fmul");
      sym_perm_compose = prism_symbol_intern ("perm_compose");
      g_once_init_leave (&interned, 1);
    }
  if (op == sym_bits_count)
    return n_args == 1 && fold_bits_count (args[0], result);
  if (op == sym_fmul)
    return n_args == 2 && fold_fmul (args[0], args[1], result);
  if (op == sym_perm_compose)
    return n_args == 2 && fold_perm_compose (args[0], args[1], result);

  if (n_args == 1 && strcmp (name, "neg") == 0)
    {
      if (args[0] == G_MININT64)
        return FALSE;
      *result = -args[0];
      return TRUE;
    }
  if (n_args != 2)
    return FALSE;
  a = args[0];
  b = args[1];
  if (strcmp (name, "+") == 0 || strcmp (name, "dim_add") == 0)
    return !__builtin_add_overflow (a, b, result);
  if (strcmp (name, "-") == 0)
    return !__builtin_sub_overflow (a, b, result);
  if (strcmp (name, "*") == 0 || strcmp (name, "dim_mul") == 0)
    return !__builtin_mul_overflow (a, b, result);
  if (strcmp (name, "/") == 0 || strcmp (name, "dim_div") == 0)
    {
      if (b == 0 || (a == G_MININT64 && b == -1) || a % b != 0)
        return FALSE;
      *result = a / b;
      return TRUE;
    }
  return FALSE;
}

/* ------------------------------------------------------------------------ */
/* Construction */

PrismEgraph *
prism_egraph_new (PrismEgraphFlags flags)
{
  PrismEgraph *eg = g_new0 (PrismEgraph, 1);

  eg->flags = flags;
  eg->fold = prism_fold_arith;
  eg->nodes = g_array_new (FALSE, FALSE, sizeof (PrismENode));
  eg->children = g_array_new (FALSE, FALSE, sizeof (guint32));
  eg->orig = g_array_new (FALSE, FALSE, sizeof (guint32));
  eg->uf = g_array_new (FALSE, FALSE, sizeof (guint32));
  eg->classes = g_array_new (FALSE, FALSE, sizeof (PrismEClass));
  eg->parent_pool = g_array_new (FALSE, FALSE, sizeof (PrismParentEntry));
  prism_id_table_init (&eg->memo);
  prism_id_table_init (&eg->exact);
  eg->op_index = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
                                        (GDestroyNotify) g_array_unref);
  eg->pending = g_array_new (FALSE, FALSE, sizeof (guint32));
  eg->analysis = g_array_new (FALSE, FALSE, sizeof (guint32));
  eg->class_start = g_array_new (FALSE, FALSE, sizeof (guint32));
  eg->class_len = g_array_new (FALSE, FALSE, sizeof (guint32));
  eg->class_nodes = g_array_new (FALSE, FALSE, sizeof (guint32));
  eg->expl_parent = g_array_new (FALSE, FALSE, sizeof (guint32));
  eg->expl_just = g_array_new (FALSE, FALSE, sizeof (guint32));
  eg->justs = g_array_new (FALSE, FALSE, sizeof (PrismJustification));
  eg->subst_pool = g_array_new (FALSE, FALSE, sizeof (guint32));
  eg->sym_fold = prism_symbol_intern ("constant-fold");
  eg->clean = TRUE;
  return eg;
}

void
prism_egraph_free (PrismEgraph *eg)
{
  if (eg == NULL)
    return;
  g_array_unref (eg->nodes);
  g_array_unref (eg->children);
  g_array_unref (eg->orig);
  g_array_unref (eg->uf);
  g_array_unref (eg->classes);
  g_array_unref (eg->parent_pool);
  prism_id_table_clear (&eg->memo);
  prism_id_table_clear (&eg->exact);
  g_hash_table_unref (eg->op_index);
  g_array_unref (eg->pending);
  g_array_unref (eg->analysis);
  g_array_unref (eg->class_start);
  g_array_unref (eg->class_len);
  g_array_unref (eg->class_nodes);
  g_array_unref (eg->expl_parent);
  g_array_unref (eg->expl_just);
  g_array_unref (eg->justs);
  g_array_unref (eg->subst_pool);
  g_free (eg);
}

PrismEgraphFlags
prism_egraph_get_flags (const PrismEgraph *eg)
{
  g_return_val_if_fail (eg != NULL, 0);
  return eg->flags;
}

void
prism_egraph_set_fold_func (PrismEgraph *eg, PrismFoldFunc func, gpointer user_data)
{
  g_return_if_fail (eg != NULL);
  g_return_if_fail (eg->nodes->len == 0);
  eg->fold = func;
  eg->fold_data = user_data;
}

/* ------------------------------------------------------------------------ */
/* Union-find */

guint32
prism_egraph_find_mut (PrismEgraph *eg, guint32 id)
{
  guint32 *uf = (guint32 *) eg->uf->data;

  while (uf[id] != id)
    {
      uf[id] = uf[uf[id]];
      id = uf[id];
    }
  return id;
}

guint
prism_egraph_find (const PrismEgraph *eg, guint id)
{
  g_return_val_if_fail (eg != NULL && id < eg->uf->len, id);
  return prism_egraph_find_const (eg, id);
}

gboolean
prism_egraph_equiv (const PrismEgraph *eg, guint a, guint b)
{
  g_return_val_if_fail (eg != NULL && a < eg->uf->len && b < eg->uf->len, FALSE);
  return prism_egraph_find_const (eg, a) == prism_egraph_find_const (eg, b);
}

/* ------------------------------------------------------------------------ */
/* Hash-consing */

typedef struct
{
  const PrismEgraph *eg;
  PrismSymbol op;
  gint64 value;
  guint n_children;
  const guint32 *children;
} NodeKey;

static inline gboolean
same_ids (const guint32 *a, const guint32 *b, guint n)
{
  for (guint i = 0; i < n; i++)
    if (a[i] != b[i])
      return FALSE;
  return TRUE;
}

static gboolean
memo_equal (gconstpointer ctx, guint32 id)
{
  const NodeKey *key = ctx;
  const PrismENode *n = prism_egraph_node (key->eg, id);

  return n->op == key->op && n->value == key->value && n->n_children == key->n_children
         && same_ids (prism_egraph_node_children (key->eg, n), key->children, n->n_children);
}

static gboolean
exact_equal (gconstpointer ctx, guint32 id)
{
  const NodeKey *key = ctx;
  const PrismENode *n = prism_egraph_node (key->eg, id);

  return n->op == key->op && n->value == key->value && n->n_children == key->n_children
         && same_ids (prism_egraph_node_orig (key->eg, n), key->children, n->n_children);
}

/* The leader with this canonical content, or PRISM_NONE32. */
static guint32
memo_lookup (const PrismEgraph *eg, PrismSymbol op, gint64 value, guint n, const guint32 *canon)
{
  NodeKey key = { eg, op, value, n, canon };

  return prism_id_table_lookup (&eg->memo, prism_hash_node (op, value, n, canon), memo_equal, &key);
}

static void
add_parent (PrismEgraph *eg, guint32 class_id, guint32 node)
{
  PrismParentEntry entry = { node, PRISM_NONE32 };
  guint32 index = eg->parent_pool->len;
  PrismEClass *c = &g_array_index (eg->classes, PrismEClass, class_id);

  g_array_append_val (eg->parent_pool, entry);
  if (c->parents_tail == PRISM_NONE32)
    c->parents_head = index;
  else
    g_array_index (eg->parent_pool, PrismParentEntry, c->parents_tail).next = index;
  c->parents_tail = index;
  c->n_parents++;
}

static void analysis_make (PrismEgraph *eg, guint32 id);

/* Creates a new id.  @canon are the canonical children, @orig the children
 * as given (explanations only; %NULL means the same). */
static guint32
create_node (PrismEgraph   *eg,
             PrismSymbol    op,
             gint64         value,
             guint          n,
             const guint32 *canon,
             const guint32 *orig,
             gboolean       leader)
{
  guint32 id = eg->nodes->len;
  PrismENode node = { op, n, eg->children->len, leader ? PRISM_ENODE_LEADER : 0, value };
  PrismEClass cls = { PRISM_NONE32, PRISM_NONE32, 0, 0, 0 };

  g_assert (id < PRISM_ID_TOMB);
  g_array_append_vals (eg->children, canon, n);
  if (prism_egraph_explaining (eg))
    {
      guint32 just = PRISM_JUST_NONE;

      g_array_append_vals (eg->orig, orig != NULL ? orig : canon, n);
      g_array_append_val (eg->expl_parent, id);
      g_array_append_val (eg->expl_just, just);
    }
  g_array_append_val (eg->nodes, node);
  g_array_append_val (eg->uf, id);
  g_array_append_val (eg->classes, cls);
  eg->n_classes++;
  eg->clean = FALSE;

  if (prism_egraph_explaining (eg))
    prism_id_table_insert (&eg->exact,
                           prism_hash_node (op, value, n, orig != NULL ? orig : canon), id);
  if (leader)
    {
      GArray *list;
      gpointer key = GUINT_TO_POINTER (op + 1);

      prism_id_table_insert (&eg->memo, prism_hash_node (op, value, n, canon), id);
      eg->n_leaders++;
      eg->n_leaders_created++;
      list = g_hash_table_lookup (eg->op_index, key);
      if (list == NULL)
        {
          list = g_array_new (FALSE, FALSE, sizeof (guint32));
          g_hash_table_insert (eg->op_index, key, list);
        }
      g_array_append_val (list, id);
      for (guint i = 0; i < n; i++)
        {
          gboolean seen = FALSE;

          for (guint j = 0; j < i && !seen; j++)
            seen = canon[j] == canon[i];
          if (!seen)
            add_parent (eg, canon[i], id);
        }
      analysis_make (eg, id);
    }
  return id;
}

/* Copies @children to @buf (or a heap buffer) as canonical ids. */
static guint32 *
canonicalize (PrismEgraph *eg, guint n, const guint32 *children, guint32 *buf, guint buf_len)
{
  guint32 *canon = n <= buf_len ? buf : g_new (guint32, n);

  for (guint i = 0; i < n; i++)
    {
      g_return_val_if_fail (children[i] < eg->uf->len, NULL);
      canon[i] = prism_egraph_find_mut (eg, children[i]);
    }
  return canon;
}

static guint32
add_canonical (PrismEgraph *eg, PrismSymbol op, gint64 value, guint n, const guint32 *children)
{
  guint32 buf[8];
  guint32 *canon = canonicalize (eg, n, children, buf, G_N_ELEMENTS (buf));
  guint32 found, id;

  if (canon == NULL)
    return PRISM_NONE32;
  found = memo_lookup (eg, op, value, n, canon);
  if (found != PRISM_NONE32)
    id = prism_egraph_find_mut (eg, found);
  else
    id = prism_egraph_find_mut (eg, create_node (eg, op, value, n, canon, NULL, TRUE));
  if (canon != buf)
    g_free (canon);
  return id;
}

/* Explanation mode: the id of exactly this e-node (these children ids, not
 * their classes), created if needed.  A new e-node congruent to an existing
 * leader is merged with it, justified by congruence. */
static guint32
add_exact (PrismEgraph *eg, PrismSymbol op, gint64 value, guint n, const guint32 *children)
{
  NodeKey key = { eg, op, value, n, children };
  guint32 hash = prism_hash_node (op, value, n, children);
  guint32 found = prism_id_table_lookup (&eg->exact, hash, exact_equal, &key);
  guint32 buf[8];
  guint32 *canon, *orig, leader, id;

  if (found != PRISM_NONE32)
    return found;
  canon = canonicalize (eg, n, children, buf, G_N_ELEMENTS (buf));
  if (canon == NULL)
    return PRISM_NONE32;
  /* @children may point into an array that create_node() grows. */
  orig = n > 0 ? g_memdup2 (children, n * sizeof (guint32)) : NULL;
  leader = memo_lookup (eg, op, value, n, canon);
  if (leader != PRISM_NONE32)
    {
      id = create_node (eg, op, value, n, canon, orig, FALSE);
      prism_egraph_union_internal (eg, id, leader, PRISM_JUST_CONGRUENCE);
    }
  else
    id = create_node (eg, op, value, n, canon, orig, TRUE);
  g_free (orig);
  if (canon != buf)
    g_free (canon);
  return id;
}

guint32
prism_egraph_add_internal (PrismEgraph   *eg,
                           PrismSymbol    op,
                           gint64         value,
                           guint          n_children,
                           const guint32 *children)
{
  if (op == PRISM_SYMBOL_NONE)
    {
      g_return_val_if_fail (n_children == 0, PRISM_NONE32);
    }
  else
    value = 0;
  if (prism_egraph_explaining (eg))
    return add_exact (eg, op, value, n_children, children);
  return add_canonical (eg, op, value, n_children, children);
}

guint
prism_egraph_add_int (PrismEgraph *eg, gint64 value)
{
  g_return_val_if_fail (eg != NULL, PRISM_NONE32);
  return prism_egraph_add_internal (eg, PRISM_SYMBOL_NONE, value, 0, NULL);
}

guint
prism_egraph_add_symbol (PrismEgraph *eg, const char *name)
{
  g_return_val_if_fail (eg != NULL && name != NULL, PRISM_NONE32);
  return prism_egraph_add_internal (eg, prism_symbol_intern (name), 0, 0, NULL);
}

guint
prism_egraph_add_node (PrismEgraph *eg, PrismSymbol op, guint n_children, const guint *children)
{
  g_return_val_if_fail (eg != NULL, PRISM_NONE32);
  g_return_val_if_fail (op != PRISM_SYMBOL_NONE, PRISM_NONE32);
  g_return_val_if_fail (n_children == 0 || children != NULL, PRISM_NONE32);
  return prism_egraph_add_internal (eg, op, 0, n_children, children);
}

guint
prism_egraph_add_term_node (PrismEgraph *eg, const PrismTerm *term, guint node)
{
  g_autofree guint32 *ids = NULL;
  g_autofree guint8 *needed = NULL;
  g_autoptr(GArray) kids = g_array_new (FALSE, FALSE, sizeof (guint32));

  g_return_val_if_fail (eg != NULL && term != NULL, PRISM_NONE32);
  g_return_val_if_fail (node < prism_term_get_n_nodes (term), PRISM_NONE32);
  /* Children precede parents in a term: mark what @node needs, walking
   * down, then add the marked nodes walking up. */
  needed = g_new0 (guint8, node + 1);
  ids = g_new (guint32, node + 1);
  needed[node] = 1;
  for (guint i = node + 1; i-- > 0;)
    {
      if (!needed[i])
        continue;
      for (guint c = 0; c < prism_term_node_get_n_children (term, i); c++)
        needed[prism_term_node_get_child (term, i, c)] = 1;
    }
  for (guint i = 0; i <= node; i++)
    {
      guint n;

      if (!needed[i])
        continue;
      n = prism_term_node_get_n_children (term, i);
      g_array_set_size (kids, n);
      for (guint c = 0; c < n; c++)
        g_array_index (kids, guint32, c) = ids[prism_term_node_get_child (term, i, c)];
      ids[i] = prism_egraph_add_internal (eg, prism_term_node_get_op (term, i),
                                          prism_term_node_get_int (term, i),
                                          n, (guint32 *) kids->data);
    }
  return ids[node];
}

guint
prism_egraph_add_term (PrismEgraph *eg, const PrismTerm *term)
{
  g_return_val_if_fail (term != NULL && prism_term_get_root (term) != G_MAXUINT, PRISM_NONE32);
  return prism_egraph_add_term_node (eg, term, prism_term_get_root (term));
}

/* ------------------------------------------------------------------------ */
/* Unions and the proof forest */

/* Makes @x the root of its proof tree by reversing the path above it. */
static void
proof_reroot (PrismEgraph *eg, guint32 x)
{
  guint32 *parent = (guint32 *) eg->expl_parent->data;
  guint32 *just = (guint32 *) eg->expl_just->data;
  guint32 cur = x;
  guint32 up = parent[x];
  guint32 up_just = just[x];

  parent[x] = x;
  just[x] = PRISM_JUST_NONE;
  while (up != cur)
    {
      guint32 next = parent[up];
      guint32 next_just = just[up];

      parent[up] = cur;
      just[up] = up_just;
      cur = up;
      up = next;
      up_just = next_just;
    }
}

guint32
prism_egraph_add_justification (PrismEgraph       *eg,
                                PrismSymbol        name,
                                guint32            lhs_node,
                                guint              n_subst,
                                const PrismSymbol *var_symbols,
                                const guint32     *subst)
{
  PrismJustification j = { name, lhs_node, eg->subst_pool->len, 0 };

  for (guint i = 0; i < n_subst; i++)
    {
      if (subst[i] == PRISM_NONE32)
        continue;
      g_array_append_val (eg->subst_pool, var_symbols[i]);
      g_array_append_val (eg->subst_pool, subst[i]);
      j.n_subst++;
    }
  g_array_append_val (eg->justs, j);
  return eg->justs->len - 1;
}

static void
push_parents (PrismEgraph *eg, const PrismEClass *c, GArray *worklist)
{
  for (guint32 e = c->parents_head; e != PRISM_NONE32;)
    {
      const PrismParentEntry *entry = &g_array_index (eg->parent_pool, PrismParentEntry, e);

      g_array_append_val (worklist, entry->node);
      e = entry->next;
    }
}

gboolean
prism_egraph_union_internal (PrismEgraph *eg, guint32 a, guint32 b, guint32 just)
{
  guint32 ra = prism_egraph_find_mut (eg, a);
  guint32 rb = prism_egraph_find_mut (eg, b);
  PrismEClass *A, *B;
  gboolean a_const, b_const;

  if (ra == rb)
    return FALSE;
  if (prism_egraph_explaining (eg))
    {
      g_assert (just != PRISM_JUST_NONE);
      proof_reroot (eg, a);
      g_array_index (eg->expl_parent, guint32, a) = b;
      g_array_index (eg->expl_just, guint32, a) = just;
    }
  A = &g_array_index (eg->classes, PrismEClass, ra);
  B = &g_array_index (eg->classes, PrismEClass, rb);
  /* The class with more parents stays the root, so fewer e-nodes need
   * repairing; ties go to the older id.  Both choices are deterministic. */
  if (B->n_parents > A->n_parents || (B->n_parents == A->n_parents && rb < ra))
    {
      PrismEClass *t = A;
      guint32 tr = ra;

      A = B;
      B = t;
      ra = rb;
      rb = tr;
    }
  g_array_index (eg->uf, guint32, rb) = ra;
  push_parents (eg, B, eg->pending);

  a_const = (A->flags & PRISM_ECLASS_HAS_CONST) != 0;
  b_const = (B->flags & PRISM_ECLASS_HAS_CONST) != 0;
  if (b_const && !a_const)
    {
      A->flags |= PRISM_ECLASS_HAS_CONST;
      A->const_value = B->const_value;
      push_parents (eg, A, eg->analysis);
    }
  else if (a_const && !b_const)
    push_parents (eg, B, eg->analysis);
  else if (a_const && b_const && A->const_value != B->const_value)
    eg->n_const_conflicts++;

  if (B->parents_head != PRISM_NONE32)
    {
      if (A->parents_tail == PRISM_NONE32)
        A->parents_head = B->parents_head;
      else
        g_array_index (eg->parent_pool, PrismParentEntry, A->parents_tail).next = B->parents_head;
      A->parents_tail = B->parents_tail;
    }
  A->n_parents += B->n_parents;
  B->parents_head = B->parents_tail = PRISM_NONE32;
  B->n_parents = 0;

  eg->n_classes--;
  eg->n_unions++;
  eg->clean = FALSE;
  return TRUE;
}

gboolean
prism_egraph_union (PrismEgraph *eg, guint a, guint b, const char *reason)
{
  guint32 just = PRISM_JUST_NONE;

  g_return_val_if_fail (eg != NULL, FALSE);
  g_return_val_if_fail (a < eg->uf->len && b < eg->uf->len, FALSE);
  if (prism_egraph_explaining (eg))
    {
      if (prism_egraph_find_mut (eg, a) == prism_egraph_find_mut (eg, b))
        return FALSE;
      just = prism_egraph_add_justification (eg, prism_symbol_intern (reason != NULL ? reason : "given"),
                                             a, 0, NULL, NULL);
    }
  return prism_egraph_union_internal (eg, a, b, just);
}

/* ------------------------------------------------------------------------ */
/* The constant analysis */

/* Gives the class of @node the value @k by merging it with the integer leaf
 * k.  When explaining, the step is recorded on the e-node whose children are
 * exactly the integer leaves, so that the explanation shows `(* 2 3)` → `6`
 * and the congruence with the original children is explained separately. */
static void
make_const (PrismEgraph *eg, guint32 node, gint64 k, const gint64 *child_values)
{
  guint32 leaf = prism_egraph_add_internal (eg, PRISM_SYMBOL_NONE, k, 0, NULL);

  if (prism_egraph_explaining (eg))
    {
      const PrismENode *n = prism_egraph_node (eg, node);
      PrismSymbol op = n->op;
      guint n_children = n->n_children;
      g_autofree guint32 *kids = g_new (guint32, MAX (n_children, 1));
      guint32 folded, just;

      for (guint i = 0; i < n_children; i++)
        kids[i] = prism_egraph_add_internal (eg, PRISM_SYMBOL_NONE, child_values[i], 0, NULL);
      folded = prism_egraph_add_internal (eg, op, 0, n_children, kids);
      if (prism_egraph_find_mut (eg, folded) == prism_egraph_find_mut (eg, leaf))
        return;
      just = prism_egraph_add_justification (eg, eg->sym_fold, folded, 0, NULL, NULL);
      prism_egraph_union_internal (eg, folded, leaf, just);
    }
  else
    prism_egraph_union_internal (eg, node, leaf, PRISM_JUST_NONE);
}

/* Folds @node if its class has no value yet and its children all have one. */
static void
analysis_fold (PrismEgraph *eg, guint32 node)
{
  const PrismENode *n = prism_egraph_node (eg, node);
  gint64 buf[8];
  g_autofree gint64 *heap = NULL;
  gint64 *values = buf;
  gint64 k;
  PrismSymbol op = n->op;
  guint n_children = n->n_children;

  if (eg->fold == NULL || op == PRISM_SYMBOL_NONE || !(n->flags & PRISM_ENODE_LEADER))
    return;
  if (g_array_index (eg->classes, PrismEClass, prism_egraph_find_mut (eg, node)).flags
      & PRISM_ECLASS_HAS_CONST)
    return;
  if (n_children > G_N_ELEMENTS (buf))
    values = heap = g_new (gint64, n_children);
  for (guint i = 0; i < n_children; i++)
    {
      guint32 c = prism_egraph_find_mut (eg, prism_egraph_node_children (eg, prism_egraph_node (eg, node))[i]);
      const PrismEClass *cls = &g_array_index (eg->classes, PrismEClass, c);

      if (!(cls->flags & PRISM_ECLASS_HAS_CONST))
        return;
      values[i] = cls->const_value;
    }
  if (eg->fold (op, values, n_children, &k, eg->fold_data))
    make_const (eg, node, k, values);
}

static void
analysis_make (PrismEgraph *eg, guint32 id)
{
  PrismENode *n = prism_egraph_node (eg, id);

  if (n->op == PRISM_SYMBOL_NONE)
    {
      PrismEClass *c = &g_array_index (eg->classes, PrismEClass, id);

      c->flags |= PRISM_ECLASS_HAS_CONST;
      c->const_value = n->value;
      return;
    }
  analysis_fold (eg, id);
}

gboolean
prism_egraph_get_const (const PrismEgraph *eg, guint class_id, gint64 *value)
{
  const PrismEClass *c;

  g_return_val_if_fail (eg != NULL && class_id < eg->uf->len, FALSE);
  c = &g_array_index (eg->classes, PrismEClass, prism_egraph_find_const (eg, class_id));
  if (!(c->flags & PRISM_ECLASS_HAS_CONST))
    return FALSE;
  if (value != NULL)
    *value = c->const_value;
  return TRUE;
}

guint
prism_egraph_get_n_const_conflicts (const PrismEgraph *eg)
{
  g_return_val_if_fail (eg != NULL, 0);
  return eg->n_const_conflicts;
}

/* ------------------------------------------------------------------------ */
/* Rebuilding */

/* Re-canonicalizes a leader whose children may have been merged away; if it
 * now equals another leader, the two are congruent. */
static void
repair (PrismEgraph *eg, guint32 id)
{
  PrismENode *n = prism_egraph_node (eg, id);
  guint32 *kids = prism_egraph_node_children (eg, n);
  gboolean changed = FALSE;
  guint32 old_hash, other;

  if (!(n->flags & PRISM_ENODE_LEADER))
    return;
  for (guint i = 0; i < n->n_children && !changed; i++)
    changed = prism_egraph_find_mut (eg, kids[i]) != kids[i];
  if (!changed)
    return;
  old_hash = prism_hash_node (n->op, n->value, n->n_children, kids);
  if (!prism_id_table_remove (&eg->memo, old_hash, id))
    g_assert_not_reached ();
  for (guint i = 0; i < n->n_children; i++)
    kids[i] = prism_egraph_find_mut (eg, kids[i]);
  other = memo_lookup (eg, n->op, n->value, n->n_children, kids);
  if (other != PRISM_NONE32)
    {
      n->flags &= ~PRISM_ENODE_LEADER;
      eg->n_leaders--;
      prism_egraph_union_internal (eg, id, other, PRISM_JUST_CONGRUENCE);
    }
  else
    prism_id_table_insert (&eg->memo, prism_hash_node (n->op, n->value, n->n_children, kids), id);
}

static int
class_node_compare (gconstpointer a, gconstpointer b, gpointer user_data)
{
  const PrismEgraph *eg = user_data;
  guint32 x = *(const guint32 *) a;
  guint32 y = *(const guint32 *) b;
  const PrismENode *nx = prism_egraph_node (eg, x);
  const PrismENode *ny = prism_egraph_node (eg, y);

  if (nx->op != ny->op)
    return nx->op < ny->op ? -1 : 1;
  if (nx->value != ny->value)
    return nx->value < ny->value ? -1 : 1;
  return x < y ? -1 : x > y;
}

static void
build_class_index (PrismEgraph *eg)
{
  guint n_ids = eg->nodes->len;
  const guint32 *uf = (const guint32 *) eg->uf->data;
  guint32 *start, *len, *nodes;
  g_autofree guint32 *cursor = NULL;
  guint32 total = 0;

  g_array_set_size (eg->class_start, n_ids);
  g_array_set_size (eg->class_len, n_ids);
  g_array_set_size (eg->class_nodes, eg->n_leaders);
  start = (guint32 *) eg->class_start->data;
  len = (guint32 *) eg->class_len->data;
  nodes = (guint32 *) eg->class_nodes->data;
  memset (len, 0, n_ids * sizeof (guint32));
  for (guint i = 0; i < n_ids; i++)
    if (prism_egraph_node (eg, i)->flags & PRISM_ENODE_LEADER)
      len[uf[i]]++;
  for (guint i = 0; i < n_ids; i++)
    {
      start[i] = total;
      total += len[i];
    }
  g_assert (total == eg->n_leaders);
  cursor = g_memdup2 (start, MAX (n_ids, 1) * sizeof (guint32));
  for (guint i = 0; i < n_ids; i++)
    if (prism_egraph_node (eg, i)->flags & PRISM_ENODE_LEADER)
      nodes[cursor[uf[i]]++] = i;
  for (guint i = 0; i < n_ids; i++)
    if (len[i] > 1)
      g_qsort_with_data (nodes + start[i], len[i], sizeof (guint32), class_node_compare, eg);
}

void
prism_egraph_rebuild (PrismEgraph *eg)
{
  g_return_if_fail (eg != NULL);
  if (eg->clean)
    return;
  for (;;)
    {
      if (eg->pending_pos < eg->pending->len)
        {
          guint32 id = g_array_index (eg->pending, guint32, eg->pending_pos++);
          repair (eg, id);
          continue;
        }
      /* Fold only once congruence is restored, so children are canonical. */
      if (eg->analysis_pos < eg->analysis->len)
        {
          guint32 id = g_array_index (eg->analysis, guint32, eg->analysis_pos++);
          analysis_fold (eg, id);
          continue;
        }
      break;
    }
  g_array_set_size (eg->pending, 0);
  eg->pending_pos = 0;
  g_array_set_size (eg->analysis, 0);
  eg->analysis_pos = 0;
  /* Full compression: afterwards every id points at its root, finds are one
   * step and never write, which is what concurrent readers need. */
  for (guint i = 0; i < eg->uf->len; i++)
    g_array_index (eg->uf, guint32, i) = prism_egraph_find_mut (eg, i);
  build_class_index (eg);
  eg->clean = TRUE;
}

gboolean
prism_egraph_is_clean (const PrismEgraph *eg)
{
  g_return_val_if_fail (eg != NULL, FALSE);
  return eg->clean;
}

/* ------------------------------------------------------------------------ */
/* Queries */

guint
prism_egraph_get_n_nodes (const PrismEgraph *eg)
{
  g_return_val_if_fail (eg != NULL, 0);
  return eg->n_leaders;
}

guint
prism_egraph_get_n_classes (const PrismEgraph *eg)
{
  g_return_val_if_fail (eg != NULL, 0);
  return eg->n_classes;
}

guint
prism_egraph_get_n_ids (const PrismEgraph *eg)
{
  g_return_val_if_fail (eg != NULL, 0);
  return eg->nodes->len;
}

guint32
prism_egraph_lookup_raw (const PrismEgraph *eg,
                         PrismSymbol        op,
                         gint64             value,
                         guint              n,
                         const guint32     *children)
{
  guint32 buf[8];
  g_autofree guint32 *heap = NULL;
  guint32 *canon = buf;
  guint32 found;

  if (n > G_N_ELEMENTS (buf))
    canon = heap = g_new (guint32, n);
  for (guint i = 0; i < n; i++)
    canon[i] = prism_egraph_find_const (eg, children[i]);
  found = memo_lookup (eg, op, value, n, canon);
  if (found == PRISM_NONE32)
    return PRISM_NONE32;
  return prism_egraph_find_const (eg, found);
}

static gint
lookup_canonical (const PrismEgraph *eg, PrismSymbol op, gint64 value, guint n, const guint *children)
{
  guint32 found;

  for (guint i = 0; i < n; i++)
    g_return_val_if_fail (children[i] < eg->uf->len, PRISM_EGRAPH_NONE);
  found = prism_egraph_lookup_raw (eg, op, value, n, children);
  return found == PRISM_NONE32 ? PRISM_EGRAPH_NONE : (gint) found;
}

gint
prism_egraph_lookup_node (const PrismEgraph *eg, PrismSymbol op, guint n_children, const guint *children)
{
  g_return_val_if_fail (eg != NULL, PRISM_EGRAPH_NONE);
  g_return_val_if_fail (eg->clean, PRISM_EGRAPH_NONE);
  g_return_val_if_fail (n_children == 0 || children != NULL, PRISM_EGRAPH_NONE);
  if (op == PRISM_SYMBOL_NONE)
    return PRISM_EGRAPH_NONE;
  return lookup_canonical (eg, op, 0, n_children, children);
}

gint
prism_egraph_lookup_int (const PrismEgraph *eg, gint64 value)
{
  g_return_val_if_fail (eg != NULL, PRISM_EGRAPH_NONE);
  g_return_val_if_fail (eg->clean, PRISM_EGRAPH_NONE);
  return lookup_canonical (eg, PRISM_SYMBOL_NONE, value, 0, NULL);
}

gint
prism_egraph_lookup_symbol (const PrismEgraph *eg, const char *name)
{
  PrismSymbol sym = prism_symbol_try (name);

  g_return_val_if_fail (eg != NULL, PRISM_EGRAPH_NONE);
  g_return_val_if_fail (eg->clean, PRISM_EGRAPH_NONE);
  if (sym == PRISM_SYMBOL_NONE)
    return PRISM_EGRAPH_NONE;
  return lookup_canonical (eg, sym, 0, 0, NULL);
}

/* A node of a walk with an explicit stack (terms and extracted classes can
 * be far deeper than the C stack allows recursion for). */
typedef struct
{
  guint32 node;
  guint32 next;   /* the next child to visit */
} Frame;

/* Memoized on term nodes (a term is a DAG) in @memo, indexed by node:
 * children left to right, the first one missing makes the node missing and
 * its later children are not looked up. */
static gint
lookup_term_walk (const PrismEgraph *eg, const PrismTerm *term, guint node, gint *memo)
{
  Frame inline_frames[64];
  g_autofree Frame *heap = NULL;
  Frame *stack = inline_frames;
  guint cap = G_N_ELEMENTS (inline_frames), len = 0;
  guint buf[8];
  g_autofree guint *kids_heap = NULL;

  stack[len++] = (Frame) { node, 0 };
  while (len > 0)
    {
      Frame *f = &stack[len - 1];
      guint n = prism_term_node_get_n_children (term, f->node);
      guint *kids = buf;

      if (memo[f->node] != G_MININT)
        {
          len--;
          continue;
        }
      if (f->next < n)
        {
          guint child = prism_term_node_get_child (term, f->node, f->next);

          if (memo[child] == G_MININT)
            {
              if (len == cap)
                {
                  cap *= 2;
                  if (heap == NULL)
                    heap = g_memdup2 (inline_frames, sizeof inline_frames);
                  heap = g_renew (Frame, heap, cap);
                  stack = heap;
                }
              stack[len++] = (Frame) { child, 0 };
              continue;
            }
          if (memo[child] < 0)
            {
              memo[f->node] = PRISM_EGRAPH_NONE;
              len--;
              continue;
            }
          f->next++;
          continue;
        }
      if (n > G_N_ELEMENTS (buf))
        {
          g_free (kids_heap);
          kids = kids_heap = g_new (guint, n);
        }
      for (guint i = 0; i < n; i++)
        kids[i] = (guint) memo[prism_term_node_get_child (term, f->node, i)];
      memo[f->node] = lookup_canonical (eg, prism_term_node_get_op (term, f->node),
                                        prism_term_node_get_int (term, f->node), n, kids);
      len--;
    }
  return memo[node];
}

gint
prism_egraph_lookup_term_node (const PrismEgraph *eg, const PrismTerm *term, guint node)
{
  gint buf[256];
  g_autofree gint *heap = NULL;
  gint *memo = buf;

  g_return_val_if_fail (eg != NULL && term != NULL, PRISM_EGRAPH_NONE);
  g_return_val_if_fail (node < prism_term_get_n_nodes (term), PRISM_EGRAPH_NONE);
  g_return_val_if_fail (eg->clean, PRISM_EGRAPH_NONE);
  if (node >= G_N_ELEMENTS (buf))
    memo = heap = g_new (gint, node + 1);
  for (guint i = 0; i <= node; i++)
    memo[i] = G_MININT;
  return lookup_term_walk (eg, term, node, memo);
}

gint
prism_egraph_lookup_term (const PrismEgraph *eg, const PrismTerm *term)
{
  g_return_val_if_fail (term != NULL && prism_term_get_root (term) != G_MAXUINT, PRISM_EGRAPH_NONE);
  return prism_egraph_lookup_term_node (eg, term, prism_term_get_root (term));
}

guint
prism_egraph_class_get_n_nodes (const PrismEgraph *eg, guint class_id)
{
  g_return_val_if_fail (eg != NULL && class_id < eg->uf->len, 0);
  g_return_val_if_fail (eg->clean, 0);
  return g_array_index (eg->class_len, guint32, prism_egraph_find_const (eg, class_id));
}

guint
prism_egraph_class_get_node (const PrismEgraph *eg, guint class_id, guint i)
{
  guint32 root;

  g_return_val_if_fail (eg != NULL && class_id < eg->uf->len, PRISM_NONE32);
  g_return_val_if_fail (eg->clean, PRISM_NONE32);
  root = prism_egraph_find_const (eg, class_id);
  g_return_val_if_fail (i < g_array_index (eg->class_len, guint32, root), PRISM_NONE32);
  return g_array_index (eg->class_nodes, guint32, g_array_index (eg->class_start, guint32, root) + i);
}

PrismSymbol
prism_egraph_node_get_op (const PrismEgraph *eg, guint node)
{
  g_return_val_if_fail (eg != NULL && node < eg->nodes->len, PRISM_SYMBOL_NONE);
  return prism_egraph_node (eg, node)->op;
}

gboolean
prism_egraph_node_is_int (const PrismEgraph *eg, guint node)
{
  g_return_val_if_fail (eg != NULL && node < eg->nodes->len, FALSE);
  return prism_egraph_node (eg, node)->op == PRISM_SYMBOL_NONE;
}

gint64
prism_egraph_node_get_int (const PrismEgraph *eg, guint node)
{
  g_return_val_if_fail (eg != NULL && node < eg->nodes->len, 0);
  return prism_egraph_node (eg, node)->value;
}

guint
prism_egraph_node_get_n_children (const PrismEgraph *eg, guint node)
{
  g_return_val_if_fail (eg != NULL && node < eg->nodes->len, 0);
  return prism_egraph_node (eg, node)->n_children;
}

guint
prism_egraph_node_get_child (const PrismEgraph *eg, guint node, guint i)
{
  const PrismENode *n;

  g_return_val_if_fail (eg != NULL && node < eg->nodes->len, PRISM_NONE32);
  n = prism_egraph_node (eg, node);
  g_return_val_if_fail (i < n->n_children, PRISM_NONE32);
  return prism_egraph_find_const (eg, prism_egraph_node_children (eg, n)[i]);
}

/* ------------------------------------------------------------------------ */
/* Extraction */

/* Adds the term of each class's best node, children first, with an explicit
 * stack: the best nodes form a DAG (a class's best node never depends on
 * the class itself), as deep as the terms that were added. */
static guint
extract_build (const PrismEgraph *eg, guint32 cls, const guint32 *best, guint32 *built, PrismTerm *term)
{
  g_autoptr(GArray) stack = g_array_new (FALSE, FALSE, sizeof (Frame));
  g_autoptr(GArray) kids = g_array_new (FALSE, FALSE, sizeof (guint));
  Frame root = { cls, 0 };

  g_array_append_val (stack, root);
  while (stack->len > 0)
    {
      Frame *f = &g_array_index (stack, Frame, stack->len - 1);
      const PrismENode *n;

      if (built[f->node] != PRISM_NONE32)
        {
          g_array_set_size (stack, stack->len - 1);
          continue;
        }
      n = prism_egraph_node (eg, best[f->node]);
      if (f->next < n->n_children)
        {
          Frame child = { prism_egraph_node_children (eg, n)[f->next++], 0 };

          if (built[child.node] == PRISM_NONE32)
            g_array_append_val (stack, child);
          continue;
        }
      g_array_set_size (kids, n->n_children);
      for (guint i = 0; i < n->n_children; i++)
        g_array_index (kids, guint, i) = built[prism_egraph_node_children (eg, n)[i]];
      if (n->op == PRISM_SYMBOL_NONE)
        built[f->node] = prism_term_add_int (term, n->value);
      else
        built[f->node] = prism_term_add_node (term, n->op, n->n_children, (guint *) kids->data);
      g_array_set_size (stack, stack->len - 1);
    }
  return built[cls];
}

PrismTerm *
prism_egraph_extract (const PrismEgraph *eg, guint class_id)
{
  guint n_ids;
  g_autofree guint64 *cost = NULL;
  g_autofree guint32 *best = NULL;
  g_autofree guint32 *built = NULL;
  PrismTerm *term;
  gboolean changed = TRUE;

  g_return_val_if_fail (eg != NULL && class_id < eg->uf->len, NULL);
  g_return_val_if_fail (eg->clean, NULL);
  n_ids = eg->nodes->len;
  cost = g_new (guint64, n_ids);
  best = g_new (guint32, n_ids);
  built = g_new (guint32, n_ids);
  for (guint i = 0; i < n_ids; i++)
    {
      cost[i] = G_MAXUINT64;
      best[i] = PRISM_NONE32;
      built[i] = PRISM_NONE32;
    }
  /* Bellman-Ford style: costs only decrease, so this reaches a fixpoint; a
   * class's best node never depends on the class itself (its cost would be
   * larger), so building the term terminates. */
  while (changed)
    {
      changed = FALSE;
      for (guint i = 0; i < n_ids; i++)
        {
          const PrismENode *n = prism_egraph_node (eg, i);
          const guint32 *kids = prism_egraph_node_children (eg, n);
          guint32 cls;
          guint64 c = 1;

          if (!(n->flags & PRISM_ENODE_LEADER))
            continue;
          for (guint k = 0; k < n->n_children && c != G_MAXUINT64; k++)
            {
              guint64 ck = cost[kids[k]];
              c = (ck == G_MAXUINT64 || c + ck < c) ? G_MAXUINT64 : c + ck;
            }
          cls = prism_egraph_find_const (eg, i);
          if (c < cost[cls])
            {
              cost[cls] = c;
              best[cls] = i;
              changed = TRUE;
            }
        }
    }
  class_id = prism_egraph_find_const (eg, class_id);
  g_return_val_if_fail (best[class_id] != PRISM_NONE32, NULL);
  term = prism_term_new ();
  prism_term_set_root (term, extract_build (eg, class_id, best, built, term));
  return term;
}

/* ------------------------------------------------------------------------ */
/* Dump */

static int
id_compare (gconstpointer a, gconstpointer b)
{
  guint32 x = *(const guint32 *) a;
  guint32 y = *(const guint32 *) b;

  return x < y ? -1 : x > y;
}

char *
prism_egraph_dump (const PrismEgraph *eg)
{
  GString *out = g_string_new (NULL);
  g_autoptr(GArray) members = g_array_new (FALSE, FALSE, sizeof (guint32));

  g_return_val_if_fail (eg != NULL, NULL);
  g_return_val_if_fail (eg->clean, NULL);
  for (guint c = 0; c < eg->nodes->len; c++)
    {
      const PrismEClass *cls;
      guint32 start, len;

      if (prism_egraph_find_const (eg, c) != c)
        continue;
      cls = &g_array_index (eg->classes, PrismEClass, c);
      start = g_array_index (eg->class_start, guint32, c);
      len = g_array_index (eg->class_len, guint32, c);
      g_array_set_size (members, 0);
      g_array_append_vals (members, &g_array_index (eg->class_nodes, guint32, start), len);
      g_array_sort (members, id_compare);
      g_string_append_printf (out, "%u", c);
      if (cls->flags & PRISM_ECLASS_HAS_CONST)
        g_string_append_printf (out, " = %" G_GINT64_FORMAT, cls->const_value);
      g_string_append_c (out, ':');
      for (guint k = 0; k < members->len; k++)
        {
          const PrismENode *n = prism_egraph_node (eg, g_array_index (members, guint32, k));

          g_string_append_c (out, ' ');
          if (n->op == PRISM_SYMBOL_NONE)
            g_string_append_printf (out, "%" G_GINT64_FORMAT, n->value);
          else if (n->n_children == 0)
            g_string_append (out, prism_symbol_name (n->op));
          else
            {
              g_string_append_printf (out, "(%s", prism_symbol_name (n->op));
              for (guint i = 0; i < n->n_children; i++)
                g_string_append_printf (out, " %u", prism_egraph_node_children (eg, n)[i]);
              g_string_append_c (out, ')');
            }
        }
      g_string_append_c (out, '\n');
    }
  return g_string_free (out, FALSE);
}
