/* prism-graph-diff.c — the structural differences of two programs
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "prism-graph-diff"

#include "config.h"

#include <glib/gi18n.h>

#include "prism-graph-diff.h"

struct _PrismGraphDiff
{
  GArray *differences;   /* PrismGraphDifference */
  GHashTable *ops[2];    /* op ids of each side taking part in a difference */
};

typedef struct
{
  PrismGraphDiff *diff;
  const PrismGraph *top[2];
  const char * const *names[2];
  const int *top_match;  /* the first program's top-level ops' partners */
} Differ;

/*
 * Auxiliary methods
 */

static void
difference_clear (gpointer data)
{
  PrismGraphDifference *difference = data;

  g_free (difference->description);
}

/* Pairs ops of the same kind by their order among ops of that kind (custom
 * kernels thus pair by their order). Returns, for each op of @a, the index
 * of its partner in @b or -1; fills @match_b the same way. */
static int *
match_ops (const PrismGraph  *a,
           const PrismGraph  *b,
           int              **match_b)
{
  int *match_a = g_new (int, MAX (1, a->ops->len));
  int *mb = g_new (int, MAX (1, b->ops->len));
  guint seen_a[PRISM_N_OPS] = { 0 };

  for (guint j = 0; j < b->ops->len; j++)
    mb[j] = -1;
  for (guint i = 0; i < a->ops->len; i++)
    {
      PrismOpKind kind = prism_graph_op (a, i)->kind;
      guint ordinal = seen_a[kind]++;
      guint seen_b = 0;

      match_a[i] = -1;
      for (guint j = 0; j < b->ops->len; j++)
        if (prism_graph_op (b, j)->kind == kind && seen_b++ == ordinal)
          {
            match_a[i] = j;
            mb[j] = i;
            break;
          }
    }
  *match_b = mb;
  return match_a;
}

/* What a program input or output is apart from its name: "[8, 128] f16". */
static char *
interface_signature (const PrismGraph *graph,
                     const PrismOp    *op)
{
  const PrismTensor *tensor = op->n_outputs > 0 ? prism_graph_tensor (graph, op->outputs[0])
                            : op->n_inputs > 0 ? prism_graph_tensor (graph, op->inputs[0]) : NULL;
  const char * const *names = prism_graph_var_names (graph);
  GString *s = g_string_new (NULL);

  if (tensor == NULL)
    return g_string_free (s, FALSE);
  for (guint i = 0; i < tensor->ndims; i++)
    {
      g_autofree char *dim = prism_dim_to_string (tensor->dims[i], names);

      g_string_append_printf (s, "%s%s", i ? ", " : "", dim);
    }
  g_string_append_printf (s, " %s", prism_dtype_to_string (tensor->dtype));
  return g_string_free (s, FALSE);
}

typedef enum
{
  PAIR_BY_NAME,        /* same name and same shape and dtype */
  PAIR_BY_SIGNATURE,   /* same shape and dtype, in order */
  PAIR_BY_ORDER,       /* what is left, in order */
} PairRule;

static void
pair_interface (const PrismGraph  *a,
                const PrismGraph  *b,
                PrismOpKind        kind,
                PairRule           rule,
                char             **sig_a,
                char             **sig_b,
                int               *match_a,
                int               *match_b)
{
  for (guint i = 0; i < a->ops->len; i++)
    {
      const PrismOp *oa = prism_graph_op (a, i);

      if (oa->kind != kind || match_a[i] >= 0)
        continue;
      for (guint j = 0; j < b->ops->len; j++)
        {
          const PrismOp *ob = prism_graph_op (b, j);

          if (ob->kind != kind || match_b[j] >= 0)
            continue;
          if (rule != PAIR_BY_ORDER && !g_str_equal (sig_a[i], sig_b[j]))
            continue;
          if (rule == PAIR_BY_NAME && g_strcmp0 (oa->name, ob->name) != 0)
            continue;
          match_a[i] = (int) j;
          match_b[j] = (int) i;
          break;
        }
    }
}

/* A program's inputs and outputs are its interface: a Mirage graph calls
 * them in0, in1, out0 where ours say X, W, Y, and may list them in another
 * order.  They pair by name where shape and dtype agree, then by shape and
 * dtype in order, then by order, so that a renamed or reordered input is
 * not a difference, nor is everything that reads it. */
static void
match_interface (const PrismGraph *a,
                 const PrismGraph *b,
                 int              *match_a,
                 int              *match_b)
{
  g_auto(GStrv) sig_a = g_new0 (char *, a->ops->len + 1);
  g_auto(GStrv) sig_b = g_new0 (char *, b->ops->len + 1);
  const PrismOpKind kinds[] = { PRISM_OP_INPUT, PRISM_OP_OUTPUT };

  for (guint i = 0; i < a->ops->len; i++)
    sig_a[i] = interface_signature (a, prism_graph_op (a, i));
  for (guint j = 0; j < b->ops->len; j++)
    sig_b[j] = interface_signature (b, prism_graph_op (b, j));
  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    {
      for (guint i = 0; i < a->ops->len; i++)
        if (prism_graph_op (a, i)->kind == kinds[k] && match_a[i] >= 0)
          {
            match_b[match_a[i]] = -1;
            match_a[i] = -1;
          }
      pair_interface (a, b, kinds[k], PAIR_BY_NAME, sig_a, sig_b, match_a, match_b);
      pair_interface (a, b, kinds[k], PAIR_BY_SIGNATURE, sig_a, sig_b, match_a, match_b);
      pair_interface (a, b, kinds[k], PAIR_BY_ORDER, sig_a, sig_b, match_a, match_b);
    }
}

static guint
kernel_number (const PrismGraph *top,
               guint             op_index)
{
  guint n = 0;

  for (guint i = 0; i <= op_index; i++)
    if (prism_graph_op (top, i)->kind == PRISM_OP_KERNEL)
      n++;
  return n;
}

/* "matmul (op 3)", "input “X” (op 0)", "kernel 1 › accum (op 4)". */
static char *
op_label (const Differ *d,
          int           side,
          guint         op_id)
{
  int kernel = prism_op_id_get_kernel (op_id);
  guint index = prism_op_id_get_op (op_id);
  const PrismGraph *graph = d->top[side];
  const PrismOp *op;
  g_autofree char *kind = NULL;
  g_autofree char *label = NULL;

  if (kernel >= 0)
    graph = prism_graph_op (graph, kernel)->body;
  op = prism_graph_op (graph, index);
  if (op->kind == PRISM_OP_KERNEL)
    /* Translators: the title of a custom kernel in the graph, numbered from 1. */
    return g_strdup_printf (_("kernel %u"), kernel_number (d->top[side], index));

  kind = op->name != NULL ? g_strdup_printf ("%s “%s”", prism_op_kind_to_string (op->kind), op->name)
                          : g_strdup (prism_op_kind_to_string (op->kind));
  /* Translators: an operator and its position in its graph. */
  label = g_strdup_printf (_("%s (op %u)"), kind, index);
  if (kernel < 0)
    return g_steal_pointer (&label);
  /* Translators: an operator inside a custom kernel, e.g. “kernel 1 › matmul (op 3)”. */
  return g_strdup_printf (_("kernel %u › %s"), kernel_number (d->top[side], kernel), label);
}

static void
mark (Differ *d,
      int     side,
      guint   op_id)
{
  if (op_id != PRISM_OP_ID_NONE)
    g_hash_table_add (d->diff->ops[side], GUINT_TO_POINTER (op_id));
}

G_GNUC_PRINTF (6, 7)
static void
add_difference (Differ              *d,
                PrismDifferenceKind  kind,
                guint                op_a,
                guint                op_b,
                const char          *field,
                const char          *format,
                ...)
{
  PrismGraphDifference difference = { 0 };
  g_autofree char *label = op_label (d, op_a != PRISM_OP_ID_NONE ? 0 : 1,
                                     op_a != PRISM_OP_ID_NONE ? op_a : op_b);
  g_autofree char *what = NULL;
  va_list args;

  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);

  difference.kind = kind;
  difference.op_a = op_a;
  difference.op_b = op_b;
  difference.field = field;
  /* Translators: an operator, then what differs about it. */
  difference.description = g_strdup_printf (_("%s: %s"), label, what);
  g_array_append_val (d->diff->differences, difference);
  mark (d, 0, op_a);
  mark (d, 1, op_b);
}

static char *
tensor_string (const Differ      *d,
               int                side,
               const PrismTensor *tensor)
{
  GString *s = g_string_new ("[");

  for (guint i = 0; i < tensor->ndims; i++)
    {
      g_autofree char *dim = prism_dim_to_string (tensor->dims[i], d->names[side]);

      g_string_append_printf (s, "%s%s", i ? ", " : "", dim);
    }
  g_string_append_printf (s, "] %s", prism_dtype_to_string (tensor->dtype));
  return g_string_free (s, FALSE);
}

static char *
dims_string (const Differ     *d,
             int               side,
             PrismDim * const *dims,
             guint             ndims)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < ndims; i++)
    {
      g_autofree char *dim = prism_dim_to_string (dims[i], d->names[side]);

      g_string_append_printf (s, "%s%s", i ? "×" : "", dim);
    }
  return g_string_free (s, FALSE);
}

/* The tensor an op shows: its first output, or what an OUTPUT op reads. */
static const PrismTensor *
op_tensor (const PrismGraph *graph,
           const PrismOp    *op)
{
  if (op->n_outputs > 0)
    return prism_graph_tensor (graph, op->outputs[0]);
  if (op->n_inputs > 0)
    return prism_graph_tensor (graph, op->inputs[0]);
  return NULL;
}

static gboolean
same_tensor (const PrismTensor *ta,
             const PrismTensor *tb,
             const int         *match_a)
{
  if (ta->producer < 0 || tb->producer < 0)
    return ta->producer == tb->producer;
  return match_a[ta->producer] == tb->producer && ta->producer_slot == tb->producer_slot;
}

/* TRUE if every operand of the two ops comes from partner ops (same slot),
 * in the same order — or, for custom kernels, in any order: a kernel's
 * parameters are in the order its author listed them (Mirage lists a
 * graph's in the order it read them), and its block inputs say which is
 * which (same_source()). */
static gboolean
same_operands (const PrismGraph *ga,
               const PrismOp    *oa,
               const PrismGraph *gb,
               const PrismOp    *ob,
               const int        *match_a)
{
  gboolean used[PRISM_MAX_OP_INPUTS] = { FALSE, };
  gboolean any_order = oa->kind == PRISM_OP_KERNEL && oa->n_inputs <= PRISM_MAX_OP_INPUTS;

  if (oa->n_inputs != ob->n_inputs)
    return FALSE;
  for (guint s = 0; s < oa->n_inputs; s++)
    {
      const PrismTensor *ta = prism_graph_tensor (ga, oa->inputs[s]);
      gboolean found = FALSE;

      if (!any_order)
        {
          if (!same_tensor (ta, prism_graph_tensor (gb, ob->inputs[s]), match_a))
            return FALSE;
          continue;
        }
      for (guint t = 0; t < ob->n_inputs && !found; t++)
        if (!used[t] && same_tensor (ta, prism_graph_tensor (gb, ob->inputs[t]), match_a))
          found = used[t] = TRUE;
      if (!found)
        return FALSE;
    }
  return TRUE;
}

/* TRUE if two block inputs tile partner tensors of the program: the
 * operands @input_index names of their kernels. */
static gboolean
same_source (const Differ  *d,
             const PrismOp *kernel_a,
             const PrismOp *input_a,
             const PrismOp *kernel_b,
             const PrismOp *input_b)
{
  guint ia = input_a->attrs.input_index, ib = input_b->attrs.input_index;

  if (ia >= kernel_a->n_inputs || ib >= kernel_b->n_inputs)
    return ia == ib;
  return same_tensor (prism_graph_tensor (d->top[0], kernel_a->inputs[ia]),
                      prism_graph_tensor (d->top[1], kernel_b->inputs[ib]), d->top_match);
}

/* Block inputs pair by the program tensor they tile, then by order, so that
 * a kernel reading (W, X) where the other reads (X, W) differs in neither. */
static void
match_block_inputs (const Differ     *d,
                    const PrismOp    *kernel_a,
                    const PrismOp    *kernel_b,
                    int              *match_a,
                    int              *match_b)
{
  const PrismGraph *ba = kernel_a->body, *bb = kernel_b->body;

  for (guint i = 0; i < ba->ops->len; i++)
    if (prism_graph_op (ba, i)->kind == PRISM_OP_INPUT && match_a[i] >= 0)
      {
        match_b[match_a[i]] = -1;
        match_a[i] = -1;
      }
  for (guint pass = 0; pass < 2; pass++)
    for (guint i = 0; i < ba->ops->len; i++)
      {
        const PrismOp *oa = prism_graph_op (ba, i);

        if (oa->kind != PRISM_OP_INPUT || match_a[i] >= 0)
          continue;
        for (guint j = 0; j < bb->ops->len; j++)
          {
            const PrismOp *ob = prism_graph_op (bb, j);

            if (ob->kind != PRISM_OP_INPUT || match_b[j] >= 0 ||
                (pass == 0 && !same_source (d, kernel_a, oa, kernel_b, ob)))
              continue;
            match_a[i] = (int) j;
            match_b[j] = (int) i;
            break;
          }
      }
}

static void
compare_attrs (Differ        *d,
               const PrismOp *oa,
               const PrismOp *ob,
               guint          id_a,
               guint          id_b)
{
  switch (oa->kind)
    {
    case PRISM_OP_SUM:
    case PRISM_OP_CONCAT:
      if (oa->attrs.dim != ob->attrs.dim)
        add_difference (d, PRISM_DIFFERENCE_CHANGED, id_a, id_b, "attrs",
                        _("along dim %d → %d"), oa->attrs.dim, ob->attrs.dim);
      break;

    case PRISM_OP_RMS_NORM:
      if (oa->attrs.norm_dims != ob->attrs.norm_dims)
        add_difference (d, PRISM_DIFFERENCE_CHANGED, id_a, id_b, "attrs",
                        _("normalised dims %u → %u"), oa->attrs.norm_dims, ob->attrs.norm_dims);
      break;

    case PRISM_OP_ACCUM_SUM_TODIMX:
      if (oa->attrs.dimx != ob->attrs.dimx)
        add_difference (d, PRISM_DIFFERENCE_CHANGED, id_a, id_b, "attrs",
                        _("last dim reduced to %u → %u"), oa->attrs.dimx, ob->attrs.dimx);
      break;

    case PRISM_OP_INPUT:
    case PRISM_OP_OUTPUT:
    case PRISM_OP_MATMUL:
    case PRISM_OP_EXP:
    case PRISM_OP_SQUARE:
    case PRISM_OP_SQRT:
    case PRISM_OP_SILU:
    case PRISM_OP_GELU:
    case PRISM_OP_RELU:
    case PRISM_OP_NEG:
    case PRISM_OP_ADD:
    case PRISM_OP_SUB:
    case PRISM_OP_MUL:
    case PRISM_OP_DIV:
    case PRISM_OP_POW:
    case PRISM_OP_KERNEL:
    case PRISM_OP_ACCUM:
    case PRISM_OP_ACCUM_SUM:
    case PRISM_OP_ACCUM_MEAN:
    case PRISM_OP_ACCUM_RMS:
    case PRISM_OP_ACCUM_MAX:
    case PRISM_OP_ACCUM_RESCALE:
    case PRISM_OP_ACCUM_SUM_RESCALE:
    case PRISM_N_OPS:
    default:
      break;
    }
}

/* What two partner ops of the same kind differ in (not their bodies). */
static void
compare_ops (Differ           *d,
             const PrismGraph *ga,
             const PrismGraph *gb,
             guint             ia,
             guint             ib,
             int               kernel_a,
             int               kernel_b,
             const int        *match_a)
{
  const PrismOp *oa = prism_graph_op (ga, ia);
  const PrismOp *ob = prism_graph_op (gb, ib);
  guint id_a = prism_op_id_make (kernel_a, ia);
  guint id_b = prism_op_id_make (kernel_b, ib);
  gboolean block = ga->level == PRISM_LEVEL_BLOCK;
  const PrismTensor *ta = op_tensor (ga, oa);
  const PrismTensor *tb = op_tensor (gb, ob);

  /* A program's inputs and outputs pair by what they are (match_interface()):
   * their names are labels, not a difference. */
  if (g_strcmp0 (oa->name, ob->name) != 0 &&
      !(ga->level == PRISM_LEVEL_KERNEL && (oa->kind == PRISM_OP_INPUT || oa->kind == PRISM_OP_OUTPUT)))
    add_difference (d, PRISM_DIFFERENCE_CHANGED, id_a, id_b, "name",
                    _("name “%s” → “%s”"), oa->name ? oa->name : "", ob->name ? ob->name : "");

  if (block && oa->kind == PRISM_OP_INPUT)
    {
      g_autofree char *ma = prism_graph_layout_format_map (oa->attrs.imap, ga->grid_ndims, FALSE);
      g_autofree char *mb = prism_graph_layout_format_map (ob->attrs.imap, gb->grid_ndims, FALSE);
      g_autofree char *fa = prism_graph_layout_format_fmap (oa->attrs.fmap);
      g_autofree char *fb = prism_graph_layout_format_fmap (ob->attrs.fmap);

      if (!same_source (d, prism_graph_op (d->top[0], (guint) kernel_a), oa,
                        prism_graph_op (d->top[1], (guint) kernel_b), ob))
        add_difference (d, PRISM_DIFFERENCE_CHANGED, id_a, id_b, "input",
                        _("tiles kernel input %u → %u"), oa->attrs.input_index, ob->attrs.input_index);
      if (!g_str_equal (ma, mb))
        add_difference (d, PRISM_DIFFERENCE_CHANGED, id_a, id_b, "imap", "imap %s → %s", ma, mb);
      if (!g_str_equal (fa, fb))
        add_difference (d, PRISM_DIFFERENCE_CHANGED, id_a, id_b, "fmap", "fmap %s → %s", fa, fb);
    }
  else if (block && oa->kind == PRISM_OP_OUTPUT)
    {
      g_autofree char *ma = prism_graph_layout_format_map (oa->attrs.omap, ga->grid_ndims, TRUE);
      g_autofree char *mb = prism_graph_layout_format_map (ob->attrs.omap, gb->grid_ndims, TRUE);

      if (!g_str_equal (ma, mb))
        add_difference (d, PRISM_DIFFERENCE_CHANGED, id_a, id_b, "omap", "omap %s → %s", ma, mb);
    }

  if (!(block && oa->kind == PRISM_OP_INPUT) && !same_operands (ga, oa, gb, ob, match_a))
    add_difference (d, PRISM_DIFFERENCE_CHANGED, id_a, id_b, "inputs",
                    "%s", _("reads different operands"));

  if (ta != NULL && tb != NULL && oa->kind != PRISM_OP_KERNEL)
    {
      g_autofree char *sa = tensor_string (d, 0, ta);
      g_autofree char *sb = tensor_string (d, 1, tb);

      if (!g_str_equal (sa, sb))
        add_difference (d, PRISM_DIFFERENCE_CHANGED, id_a, id_b, "shape",
                        _("shape %s → %s"), sa, sb);
    }

  compare_attrs (d, oa, ob, id_a, id_b);
}

static void
add_unmatched (Differ           *d,
               int               side,
               const PrismGraph *graph,
               guint             index,
               int               kernel)
{
  const PrismOp *op = prism_graph_op (graph, index);
  guint id = prism_op_id_make (kernel, index);
  guint none = PRISM_OP_ID_NONE;

  add_difference (d, side == 0 ? PRISM_DIFFERENCE_ONLY_A : PRISM_DIFFERENCE_ONLY_B,
                  side == 0 ? id : none, side == 0 ? none : id,
                  op->kind == PRISM_OP_KERNEL ? "kernel" : "op",
                  "%s", side == 0 ? _("only in the first graph") : _("only in the second graph"));
  /* A kernel that is missing on the other side is different throughout. */
  if (op->kind == PRISM_OP_KERNEL && op->body != NULL)
    for (guint j = 0; j < op->body->ops->len; j++)
      mark (d, side, prism_op_id_make (index, j));
}

static void
compare_kernels (Differ *d,
                 guint   ia,
                 guint   ib)
{
  const PrismOp *ka = prism_graph_op (d->top[0], ia);
  const PrismOp *kb = prism_graph_op (d->top[1], ib);
  const PrismGraph *ba = ka->body;
  const PrismGraph *bb = kb->body;
  g_autofree char *grid_a = dims_string (d, 0, ba->grid, ba->grid_ndims);
  g_autofree char *grid_b = dims_string (d, 1, bb->grid, bb->grid_ndims);
  g_autofree char *loop_a = prism_dim_to_string (ba->forloop, d->names[0]);
  g_autofree char *loop_b = prism_dim_to_string (bb->forloop, d->names[1]);
  g_autofree int *match_a = NULL;
  g_autofree int *match_b = NULL;

  if (!g_str_equal (grid_a, grid_b))
    add_difference (d, PRISM_DIFFERENCE_CHANGED, ia, ib, "grid", _("grid %s → %s"), grid_a, grid_b);
  if (!g_str_equal (loop_a, loop_b))
    add_difference (d, PRISM_DIFFERENCE_CHANGED, ia, ib, "loop", _("loop range %s → %s"), loop_a, loop_b);
  if (ba->block_threads != bb->block_threads)
    add_difference (d, PRISM_DIFFERENCE_CHANGED, ia, ib, "threads",
                    _("%u → %u threads per block"), ba->block_threads, bb->block_threads);

  match_a = match_ops (ba, bb, &match_b);
  match_block_inputs (d, ka, kb, match_a, match_b);
  for (guint i = 0; i < ba->ops->len; i++)
    {
      if (match_a[i] < 0)
        add_unmatched (d, 0, ba, i, ia);
      else
        compare_ops (d, ba, bb, i, match_a[i], ia, ib, match_a);
    }
  for (guint j = 0; j < bb->ops->len; j++)
    if (match_b[j] < 0)
      add_unmatched (d, 1, bb, j, ib);
}

static int
compare_guint (gconstpointer a,
               gconstpointer b)
{
  guint x = *(const guint *) a, y = *(const guint *) b;

  return x < y ? -1 : x > y;
}

/*
 * Public API
 */

PrismGraphDiff *
prism_graph_diff_new (const PrismGraph *a,
                      const PrismGraph *b)
{
  PrismGraphDiff *diff;
  Differ d = { 0 };
  g_autofree int *match_a = NULL;
  g_autofree int *match_b = NULL;

  g_return_val_if_fail (a != NULL && a->level == PRISM_LEVEL_KERNEL, NULL);
  g_return_val_if_fail (b != NULL && b->level == PRISM_LEVEL_KERNEL, NULL);

  diff = g_new0 (PrismGraphDiff, 1);
  diff->differences = g_array_new (FALSE, TRUE, sizeof (PrismGraphDifference));
  g_array_set_clear_func (diff->differences, difference_clear);
  diff->ops[0] = g_hash_table_new (NULL, NULL);
  diff->ops[1] = g_hash_table_new (NULL, NULL);

  d.diff = diff;
  d.top[0] = a;
  d.top[1] = b;
  d.names[0] = prism_graph_var_names (a);
  d.names[1] = prism_graph_var_names (b);

  match_a = match_ops (a, b, &match_b);
  match_interface (a, b, match_a, match_b);
  d.top_match = match_a;
  for (guint i = 0; i < a->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (a, i);

      if (match_a[i] < 0)
        add_unmatched (&d, 0, a, i, -1);
      else
        {
          compare_ops (&d, a, b, i, match_a[i], -1, -1, match_a);
          if (op->kind == PRISM_OP_KERNEL && op->body != NULL &&
              prism_graph_op (b, match_a[i])->body != NULL)
            compare_kernels (&d, i, match_a[i]);
        }
    }
  for (guint j = 0; j < b->ops->len; j++)
    if (match_b[j] < 0)
      add_unmatched (&d, 1, b, j, -1);

  return diff;
}

void
prism_graph_diff_free (PrismGraphDiff *diff)
{
  if (diff == NULL)
    return;
  g_array_unref (diff->differences);
  g_hash_table_unref (diff->ops[0]);
  g_hash_table_unref (diff->ops[1]);
  g_free (diff);
}

guint
prism_graph_diff_get_n (const PrismGraphDiff *diff)
{
  g_return_val_if_fail (diff != NULL, 0);
  return diff->differences->len;
}

/* Returns: (transfer none): the difference at @index */
const PrismGraphDifference *
prism_graph_diff_get (const PrismGraphDiff *diff,
                      guint                 index)
{
  g_return_val_if_fail (diff != NULL, NULL);
  g_return_val_if_fail (index < diff->differences->len, NULL);
  return &g_array_index (diff->differences, PrismGraphDifference, index);
}

GArray *
prism_graph_diff_get_ops (const PrismGraphDiff *diff,
                          gboolean              side_b)
{
  GArray *ops;
  GHashTableIter iter;
  gpointer key;

  g_return_val_if_fail (diff != NULL, NULL);

  ops = g_array_new (FALSE, FALSE, sizeof (guint));
  g_hash_table_iter_init (&iter, diff->ops[side_b ? 1 : 0]);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    {
      guint id = GPOINTER_TO_UINT (key);

      g_array_append_val (ops, id);
    }
  g_array_sort (ops, compare_guint);
  return ops;
}
