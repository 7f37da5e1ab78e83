/* prism-abstract-expr.c — abstract expressions of graph tensors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One walk over the tensors of a kernel graph, its custom kernels' block
 * graphs and an optional open block graph: depth first, memoizing every
 * tensor.  It recurses (the fast path of the oracle's millions of small
 * checks) at most max_recursion levels deep; a deeper tensor (a chain of ops
 * is as deep as it is long, far deeper than the C stack allows) has its
 * dependencies evaluated first with an explicit stack.  The walk does not know what
 * an expression is made of: a backend turns each operator into a value.  The
 * term backend below builds PrismTerm nodes; the pruning oracle's backend
 * looks the same operators up in a saturated e-graph (prism-oracle.c), so the
 * two can never disagree about what a tensor's expression is.
 */
#include "config.h"

#include <string.h>

#include "prism-abstract-expr-private.h"
#include "prism-error.h"

/* A slot not evaluated yet (all bits set, so that a memset clears the memo).
 * Backends return node or class ids, which stay far below this. */
#define UNSET G_MAXUINT
/* A slot whose tensor is on the walk's stack: met again, the graph has a
 * cycle (the IR forbids them; the walk must still end). */
#define BUSY (G_MAXUINT - 2)
G_STATIC_ASSERT (UNSET != PRISM_ABSTRACT_ABSENT);
G_STATIC_ASSERT (BUSY != PRISM_ABSTRACT_ABSENT);

const char *
prism_abstract_mode_to_string (PrismAbstractMode mode)
{
  switch (mode)
    {
    case PRISM_ABSTRACT_UNTILED:
      return "untiled";
    case PRISM_ABSTRACT_CONCRETE:
      return "concrete";
    case PRISM_ABSTRACT_AUTO:
      return "auto";
    default:
      return "unknown";
    }
}

static gpointer
init_symbols (gpointer data)
{
  PrismAbstractSymbols *s = data;

  s->add = prism_symbol_intern ("+");
  s->mul = prism_symbol_intern ("*");
  s->div = prism_symbol_intern ("/");
  s->pow = prism_symbol_intern ("pow");
  s->exp = prism_symbol_intern ("exp");
  s->square = prism_symbol_intern ("square");
  s->sqrt = prism_symbol_intern ("sqrt");
  s->silu = prism_symbol_intern ("silu");
  s->gelu = prism_symbol_intern ("gelu");
  s->relu = prism_symbol_intern ("relu");
  s->neg = prism_symbol_intern ("neg");
  s->sum = prism_symbol_intern ("sum");
  s->rms = prism_symbol_intern ("rms");
  s->concat = prism_symbol_intern ("concat");
  s->accum_rescale = prism_symbol_intern ("accum_rescale");
  s->accum_sum_rescale = prism_symbol_intern ("accum_sum_rescale");
  s->max = prism_symbol_intern ("max");
  s->maximum = prism_symbol_intern ("maximum");
  s->constant = prism_symbol_intern ("const");
  return s;
}

const PrismAbstractSymbols *
prism_abstract_symbols (void)
{
  /* Written once under the GOnce, read-only afterwards. */
  static PrismAbstractSymbols symbols;
  static GOnce once = G_ONCE_INIT;

  return g_once (&once, init_symbols, &symbols);
}

PrismAbstractMode
prism_abstract_resolve_mode (const PrismGraph *kernel_graph, const PrismGraph *block,
                             PrismAbstractMode mode)
{
  if (mode != PRISM_ABSTRACT_AUTO)
    return mode;
  if (!prism_graph_is_concrete (kernel_graph))
    return PRISM_ABSTRACT_UNTILED;
  if (block != NULL && !prism_graph_is_concrete (block))
    return PRISM_ABSTRACT_UNTILED;
  return PRISM_ABSTRACT_CONCRETE;
}

/* ------------------------------------------------------------------------ */
/* The walk */

typedef struct
{
  const PrismGraph *graph;
  gboolean is_block;
  guint base;                 /* first slot of this graph's tensors */
  const guint *inputs;        /* block scopes: kernel tensor per input_index */
  guint n_inputs;             /* G_MAXUINT: not known (the open block) */
  const char *what;           /* for messages */
  guint id;                   /* SCOPE_KERNEL, SCOPE_OPEN or SCOPE_BODY + kernel op */
} Scope;

#define SCOPE_KERNEL 0
#define SCOPE_OPEN   1
#define SCOPE_BODY   2

static void
scope_init (const PrismAbstractWalk *w, guint id, Scope *s)
{
  if (id == SCOPE_KERNEL)
    *s = (Scope) { w->kernel_graph, FALSE, 0, NULL, 0, "kernel", id };
  else if (id == SCOPE_OPEN)
    *s = (Scope) { w->block, TRUE, w->block_base, w->block_inputs, G_MAXUINT, "open block", id };
  else
    {
      const PrismOp *op = prism_graph_op (w->kernel_graph, id - SCOPE_BODY);

      *s = (Scope) { op->body, TRUE, w->body_base[id - SCOPE_BODY], op->inputs, op->n_inputs,
                     "block", id };
    }
}

void
prism_abstract_walk_init (PrismAbstractWalk *walk, const PrismAbstractBackend *backend,
                          gpointer data, const PrismGraph *kernel_graph, const PrismGraph *block,
                          const guint *block_inputs, PrismAbstractMode mode,
                          PrismAbstractWalkStorage *storage)
{
  guint n_ops = kernel_graph->ops->len;
  guint cursor = kernel_graph->tensors->len;

  g_assert (mode != PRISM_ABSTRACT_AUTO);
  memset (walk, 0, sizeof *walk);
  walk->backend = backend;
  walk->data = data;
  walk->sym = prism_abstract_symbols ();
  walk->untiled = mode == PRISM_ABSTRACT_UNTILED;
  walk->kernel_graph = kernel_graph;
  walk->block = block;
  walk->block_inputs = block_inputs;

  /* Count the slots first so that one buffer holds them all; the bases are
   * written into the caller's buffer as we go when it is big enough. */
  if (storage != NULL && n_ops <= PRISM_ABSTRACT_WALK_STACK_OPS)
    walk->body_base = storage->body_base;
  for (guint i = 0; i < n_ops; i++)
    {
      const PrismOp *op = prism_graph_op (kernel_graph, i);
      if (walk->body_base != NULL)
        walk->body_base[i] = cursor;
      if (op->body != NULL)
        cursor += op->body->tensors->len;
    }
  walk->block_base = cursor;
  if (block != NULL)
    cursor += block->tensors->len;
  walk->n_slots = cursor;

  if (walk->body_base != NULL && cursor <= PRISM_ABSTRACT_WALK_STACK_SLOTS)
    {
      walk->values = storage->values;
      walk->shapes = storage->shapes;
    }
  else
    {
      walk->values = g_new (guint, MAX (cursor, 1));
      walk->shapes = g_new (PrismAbstractShape, MAX (cursor, 1));
      walk->body_base = g_new (guint, MAX (n_ops, 1));
      walk->owns_buffers = TRUE;
      cursor = kernel_graph->tensors->len;
      for (guint i = 0; i < n_ops; i++)
        {
          const PrismOp *op = prism_graph_op (kernel_graph, i);
          walk->body_base[i] = cursor;
          if (op->body != NULL)
            cursor += op->body->tensors->len;
        }
    }
  memset (walk->values, 0xff, sizeof (guint) * walk->n_slots);
}

void
prism_abstract_walk_clear (PrismAbstractWalk *walk)
{
  if (walk->owns_buffers)
    {
      g_free (walk->values);
      g_free (walk->shapes);
      g_free (walk->body_base);
    }
  walk->values = NULL;
  walk->shapes = NULL;
  walk->body_base = NULL;
  walk->owns_buffers = FALSE;
  g_clear_error (&walk->error);
}

G_GNUC_PRINTF (3, 4) static guint
fail (PrismAbstractWalk *w, PrismErrorCode code, const char *format, ...)
{
  va_list args;

  if (w->error == NULL)
    {
      va_start (args, format);
      w->error = g_error_new_valist (PRISM_ERROR, code, format, args);
      va_end (args);
    }
  return PRISM_ABSTRACT_ABSENT;
}

static guint eval (PrismAbstractWalk *w, const Scope *s, guint t);

static guint
node1 (PrismAbstractWalk *w, PrismSymbol op, guint a)
{
  if (a == PRISM_ABSTRACT_ABSENT)
    return a;
  return w->backend->node (w->data, op, 1, &a);
}

static guint
node2 (PrismAbstractWalk *w, PrismSymbol op, guint a, guint b)
{
  guint kids[2] = { a, b };

  if (a == PRISM_ABSTRACT_ABSENT || b == PRISM_ABSTRACT_ABSENT)
    return PRISM_ABSTRACT_ABSENT;
  return w->backend->node (w->data, op, 2, kids);
}

static guint
node3 (PrismAbstractWalk *w, PrismSymbol op, guint a, guint b, guint c)
{
  guint kids[3] = { a, b, c };

  if (a == PRISM_ABSTRACT_ABSENT || b == PRISM_ABSTRACT_ABSENT || c == PRISM_ABSTRACT_ABSENT)
    return PRISM_ABSTRACT_ABSENT;
  return w->backend->node (w->data, op, 3, kids);
}

static guint
leaf_int (PrismAbstractWalk *w, gint64 value)
{
  return w->backend->leaf_int (w->data, value);
}

/* `(op n x)` for a reduction of degree @n; degree 1 is x itself. */
static guint
reduce (PrismAbstractWalk *w, PrismSymbol op, gint64 n, guint x)
{
  if (x == PRISM_ABSTRACT_ABSENT || n == 1)
    return x;
  return node2 (w, op, leaf_int (w, n), x);
}

/* A size of an operand that a degree needs; symbolic sizes (only possible
 * in CONCRETE mode) are an error. */
static gboolean
need_size (PrismAbstractWalk *w, const Scope *s, const PrismOp *op, gint64 value, gint64 *out)
{
  if (value <= 0)
    {
      fail (w, PRISM_ERROR_UNSUPPORTED,
            "%s in the %s graph reduces over a symbolic size; only the untiled evaluation "
            "takes symbolic sizes", prism_op_kind_to_string (op->kind), s->what);
      return FALSE;
    }
  *out = value;
  return TRUE;
}

static gboolean
mul_size (PrismAbstractWalk *w, gint64 a, gint64 b, gint64 *out)
{
  if (__builtin_mul_overflow (a, b, out))
    {
      fail (w, PRISM_ERROR_LIMIT, "a reduction degree overflows (%" G_GINT64_FORMAT " × %"
            G_GINT64_FORMAT ")", a, b);
      return FALSE;
    }
  return TRUE;
}

/* Reads the graph's own dims: constants, or -1 where symbolic. */
static void
graph_shape (const PrismTensor *tensor, PrismAbstractShape *shape)
{
  for (guint d = 0; d < tensor->ndims; d++)
    shape->dims[d] = prism_dim_get_const (tensor->dims[d]);
  for (guint d = tensor->ndims; d < PRISM_MAX_DIMS; d++)
    shape->dims[d] = 1;
}

static const PrismAbstractShape *
slot_shape (PrismAbstractWalk *w, const Scope *s, guint t)
{
  return &w->shapes[s->base + t];
}

/* The loop range F of a block scope: 1 in the untiled program. */
static gboolean
loop_range (PrismAbstractWalk *w, const Scope *s, const PrismOp *op, gint64 *out)
{
  if (w->untiled)
    {
      *out = 1;
      return TRUE;
    }
  return need_size (w, s, op, prism_dim_get_const (s->graph->forloop), out);
}

static const PrismOp *
producer_of (const Scope *s, guint t, PrismOpKind kind)
{
  const PrismTensor *tensor = prism_graph_tensor (s->graph, t);
  const PrismOp *op;

  if (tensor->producer < 0 || (guint) tensor->producer >= s->graph->ops->len)
    return NULL;
  op = prism_graph_op (s->graph, (guint) tensor->producer);
  return op->kind == kind ? op : NULL;
}

/* concat(a, b) @ concat(c, d) with both concats along the contraction dim is
 * a·c + b·d; returns UNSET when the operands are not of that form. */
static guint
concat_matmul (PrismAbstractWalk *w, const Scope *s, const PrismOp *op)
{
  const PrismTensor *ta = prism_graph_tensor (s->graph, op->inputs[0]);
  const PrismOp *ca = producer_of (s, op->inputs[0], PRISM_OP_CONCAT);
  const PrismOp *cb = producer_of (s, op->inputs[1], PRISM_OP_CONCAT);
  guint parts[4];
  gint64 ka, kb;

  if (ca == NULL || cb == NULL || ca->attrs.dim != (int) ta->ndims - 1 ||
      cb->attrs.dim != (int) ta->ndims - 2)
    return UNSET;
  for (guint i = 0; i < 4; i++)
    {
      const PrismOp *c = i < 2 ? ca : cb;
      parts[i] = eval (w, s, c->inputs[i % 2]);
      if (parts[i] == PRISM_ABSTRACT_ABSENT)
        return PRISM_ABSTRACT_ABSENT;
    }
  if (!need_size (w, s, op, slot_shape (w, s, ca->inputs[0])->dims[ta->ndims - 1], &ka) ||
      !need_size (w, s, op, slot_shape (w, s, ca->inputs[1])->dims[ta->ndims - 1], &kb))
    return PRISM_ABSTRACT_ABSENT;
  return node2 (w, w->sym->add,
                reduce (w, w->sym->sum, ka, node2 (w, w->sym->mul, parts[0], parts[2])),
                reduce (w, w->sym->sum, kb, node2 (w, w->sym->mul, parts[1], parts[3])));
}

/* The number of INPUT ops of the kernel graph before @op_index, counted
 * on from the last answer: inputs are usually met in order, so a graph of
 * many inputs costs linear time, not quadratic. */
static guint
input_ordinal (PrismAbstractWalk *w, guint op_index)
{
  const PrismGraph *g = w->kernel_graph;

  if (op_index < w->ordinal_op)
    {
      w->ordinal_op = 0;
      w->ordinal = 0;
    }
  for (; w->ordinal_op < op_index; w->ordinal_op++)
    if (prism_graph_op (g, w->ordinal_op)->kind == PRISM_OP_INPUT)
      w->ordinal++;
  return w->ordinal;
}

static PrismSymbol
unary_symbol (const PrismAbstractSymbols *sym, PrismOpKind kind)
{
  switch (kind)
    {
    case PRISM_OP_EXP: return sym->exp;
    case PRISM_OP_SQUARE: return sym->square;
    case PRISM_OP_SQRT: return sym->sqrt;
    case PRISM_OP_SILU: return sym->silu;
    case PRISM_OP_GELU: return sym->gelu;
    case PRISM_OP_RELU: return sym->relu;
    case PRISM_OP_NEG: return sym->neg;
    default: return PRISM_SYMBOL_NONE;
    }
}

static PrismSymbol
binary_symbol (const PrismAbstractSymbols *sym, PrismOpKind kind)
{
  switch (kind)
    {
    case PRISM_OP_ADD: return sym->add;
    case PRISM_OP_MUL: return sym->mul;
    case PRISM_OP_DIV: return sym->div;
    case PRISM_OP_POW: return sym->pow;
    case PRISM_OP_MAXIMUM: return sym->maximum;
    default: return PRISM_SYMBOL_NONE;
    }
}

/* Elementwise broadcasting of untiled shapes: a dim of 1 takes the other. */
static void
broadcast (const PrismAbstractShape *a, const PrismAbstractShape *b, PrismAbstractShape *out)
{
  for (guint d = 0; d < PRISM_MAX_DIMS; d++)
    out->dims[d] = a->dims[d] == 1 ? b->dims[d] : a->dims[d];
}

static guint
eval_accum (PrismAbstractWalk *w, const Scope *s, const PrismOp *op, guint ndims, guint a,
            PrismAbstractShape *shape)
{
  const PrismAbstractSymbols *sym = w->sym;
  guint last = ndims - 1;
  gint64 f, l, n;
  guint x;

  if (!loop_range (w, s, op, &f) ||
      !need_size (w, s, op, slot_shape (w, s, op->inputs[0])->dims[last], &l) ||
      !mul_size (w, f, l, &n))
    return PRISM_ABSTRACT_ABSENT;

  switch (op->kind)
    {
    case PRISM_OP_ACCUM:
    case PRISM_OP_ACCUM_ONLINE:
      /* Online: Σ_i x_i with the final max in every x_i (the factors
       * exp(m_prev − m) telescope), i.e. the sum over the iterations of
       * its input, whose running max already reads as the final one. */
      return reduce (w, sym->sum, f, a);
    case PRISM_OP_ACCUM_SUM:
    case PRISM_OP_ACCUM_SUM_ONLINE:
      shape->dims[last] = 1;
      return reduce (w, sym->sum, n, a);
    case PRISM_OP_ACCUM_MEAN:
      shape->dims[last] = 1;
      if (n == 1)
        return a;
      return node2 (w, sym->div, reduce (w, sym->sum, n, a), leaf_int (w, n));
    case PRISM_OP_ACCUM_RMS:
      shape->dims[last] = 1;
      return reduce (w, sym->rms, n, a);
    case PRISM_OP_ACCUM_SUM_TODIMX:
      shape->dims[last] = op->attrs.dimx;
      if (op->attrs.dimx == 0 || (n > (gint64) op->attrs.dimx && n % op->attrs.dimx != 0))
        return fail (w, PRISM_ERROR_INVALID_GRAPH,
                     "accum_sum_todimx of the %s graph: dimx %u does not divide %"
                     G_GINT64_FORMAT, s->what, op->attrs.dimx, n);
      /* Untiled, the last dim may be no wider than dimx: nothing is summed. */
      return reduce (w, sym->sum, n <= (gint64) op->attrs.dimx ? 1 : n / op->attrs.dimx, a);
    case PRISM_OP_ACCUM_MAX:
      /* A maximum over the iterations, as the max op over a dim. */
      return reduce (w, sym->max, f, a);
    case PRISM_OP_ACCUM_RESCALE:
      x = eval (w, s, op->inputs[1]);
      return node3 (w, sym->accum_rescale, leaf_int (w, f), a, x);
    case PRISM_OP_ACCUM_SUM_RESCALE:
      shape->dims[last] = 1;
      x = eval (w, s, op->inputs[1]);
      return node3 (w, sym->accum_sum_rescale, leaf_int (w, n), a, x);
    default:
      g_assert_not_reached ();
    }
}

/* The value of the op producing @tensor; fills @shape with its untiled dims. */
static guint
eval_op (PrismAbstractWalk *w, const Scope *s, guint op_index, const PrismTensor *tensor,
         PrismAbstractShape *shape)
{
  const PrismAbstractSymbols *sym = w->sym;
  const PrismOp *op = prism_graph_op (s->graph, op_index);
  guint nd = tensor->ndims;
  guint a = PRISM_ABSTRACT_ABSENT, b;
  gint64 n;

  for (guint d = 0; d < PRISM_MAX_DIMS; d++)
    shape->dims[d] = 1;

  if (op->kind == PRISM_OP_INPUT)
    {
      Scope kernel;
      guint index = op->attrs.input_index, kt;

      if (!s->is_block)
        {
          graph_shape (tensor, shape);
          return w->backend->leaf_input (w->data, input_ordinal (w, op_index));
        }
      if (s->inputs == NULL || (s->n_inputs != G_MAXUINT && index >= s->n_inputs))
        return fail (w, PRISM_ERROR_INVALID_GRAPH,
                     "input op %u of the %s graph reads kernel input %u, which is not given",
                     op_index, s->what, index);
      kt = s->inputs[index];
      scope_init (w, SCOPE_KERNEL, &kernel);
      a = eval (w, &kernel, kt);
      if (a != PRISM_ABSTRACT_ABSENT)
        *shape = w->shapes[kt];
      return a;
    }

  if (op->kind == PRISM_OP_KERNEL)
    {
      Scope body;
      guint seen = 0;

      scope_init (w, SCOPE_BODY + op_index, &body);

      for (guint i = 0; i < op->body->ops->len; i++)
        {
          const PrismOp *bop = prism_graph_op (op->body, i);
          if (bop->kind != PRISM_OP_OUTPUT)
            continue;
          if (seen++ == tensor->producer_slot)
            {
              a = eval (w, &body, bop->inputs[0]);
              if (a != PRISM_ABSTRACT_ABSENT)
                *shape = w->shapes[body.base + bop->inputs[0]];
              return a;
            }
        }
      return fail (w, PRISM_ERROR_INVALID_GRAPH, "kernel op %u has no output %u", op_index,
                   tensor->producer_slot);
    }

  if (op->kind == PRISM_OP_CONSTANT)
    {
      /* The value's bits name it: equal constants are one leaf. */
      union { double d; gint64 i; } bits = { .d = op->attrs.value == 0.0 ? 0.0 : op->attrs.value };
      graph_shape (tensor, shape);
      return node1 (w, sym->constant, leaf_int (w, bits.i));
    }

  if (op->n_inputs < 1)
    return fail (w, PRISM_ERROR_INVALID_GRAPH, "op %u (%s) of the %s graph has no input",
                 op_index, prism_op_kind_to_string (op->kind), s->what);
  a = eval (w, s, op->inputs[0]);
  if (a == PRISM_ABSTRACT_ABSENT && op->kind != PRISM_OP_MATMUL)
    return a;
  if (a != PRISM_ABSTRACT_ABSENT)
    *shape = *slot_shape (w, s, op->inputs[0]);

  if (prism_op_kind_is_unary (op->kind))
    return node1 (w, unary_symbol (sym, op->kind), a);

  /* The running max reads as the final one: in an online accumulator the
   * rescales replace every running max by the last (its closed form). */
  if (op->kind == PRISM_OP_RUNNING_MAX)
    return a;

  if (prism_op_kind_is_binary (op->kind))
    {
      b = eval (w, s, op->inputs[1]);
      if (b == PRISM_ABSTRACT_ABSENT)
        return b;
      broadcast (slot_shape (w, s, op->inputs[0]), slot_shape (w, s, op->inputs[1]), shape);
      if (op->kind == PRISM_OP_SUB)
        return node2 (w, sym->add, a, node1 (w, sym->neg, b));
      return node2 (w, binary_symbol (sym, op->kind), a, b);
    }

  switch (op->kind)
    {
    case PRISM_OP_MATMUL:
      {
        guint v = concat_matmul (w, s, op);
        gint64 k;

        if (v != UNSET)
          {
            /* The untiled shape from the concats' operands (a concat
             * itself may have no value); CONCRETE reads the graph's. */
            if (v != PRISM_ABSTRACT_ABSENT && w->untiled)
              {
                const PrismOp *ca = producer_of (s, op->inputs[0], PRISM_OP_CONCAT);
                const PrismOp *cb = producer_of (s, op->inputs[1], PRISM_OP_CONCAT);
                *shape = *slot_shape (w, s, ca->inputs[0]);
                shape->dims[nd - 1] = slot_shape (w, s, cb->inputs[0])->dims[nd - 1];
              }
            return v;
          }
        if (a == PRISM_ABSTRACT_ABSENT)
          return a;
        b = eval (w, s, op->inputs[1]);
        if (b == PRISM_ABSTRACT_ABSENT)
          return b;
        if (!need_size (w, s, op, slot_shape (w, s, op->inputs[0])->dims[nd - 1], &k))
          return PRISM_ABSTRACT_ABSENT;
        shape->dims[nd - 1] = slot_shape (w, s, op->inputs[1])->dims[nd - 1];
        return reduce (w, sym->sum, k, node2 (w, sym->mul, a, b));
      }
    case PRISM_OP_SUM:
    case PRISM_OP_MAX:
    case PRISM_OP_MEAN:
      if (op->attrs.dim < 0 || (guint) op->attrs.dim >= nd)
        return fail (w, PRISM_ERROR_INVALID_GRAPH, "%s op %u of the %s graph: dim %d",
                     prism_op_kind_to_string (op->kind), op_index, s->what, op->attrs.dim);
      if (!need_size (w, s, op, shape->dims[op->attrs.dim], &n))
        return PRISM_ABSTRACT_ABSENT;
      shape->dims[op->attrs.dim] = 1;
      if (op->kind == PRISM_OP_MAX)
        return reduce (w, sym->max, n, a);
      if (op->kind == PRISM_OP_MEAN && n > 1)
        return node2 (w, sym->div, reduce (w, sym->sum, n, a), leaf_int (w, n));
      return reduce (w, sym->sum, n, a);
    case PRISM_OP_TRANSPOSE:
      /* Layout is invisible: the value, with the dims reordered. */
      for (guint d = 0; d < nd; d++)
        shape->dims[d] = slot_shape (w, s, op->inputs[0])->dims[op->attrs.perm[d]];
      return a;
    case PRISM_OP_RMS_NORM:
      {
        guint k = op->attrs.norm_dims;

        n = 1;
        if (k < 1 || k > nd)
          return fail (w, PRISM_ERROR_INVALID_GRAPH, "rms_norm op %u of the %s graph: norm_dims %u",
                       op_index, s->what, k);
        for (guint d = nd - k; d < nd; d++)
          {
            gint64 size;
            if (!need_size (w, s, op, shape->dims[d], &size) || !mul_size (w, n, size, &n))
              return PRISM_ABSTRACT_ABSENT;
          }
        b = reduce (w, sym->rms, n, a);
        /* eps as an added constant leaf: rms_norms of one eps match each
         * other, and no accum_rms (which has none) matches them. */
        if (op->attrs.eps != 0.0)
          {
            union { double d; gint64 i; } bits = { .d = op->attrs.eps };
            b = node2 (w, sym->add, b, node1 (w, sym->constant, leaf_int (w, bits.i)));
          }
        return node2 (w, sym->div, a, b);
      }
    case PRISM_OP_CONCAT:
      b = eval (w, s, op->inputs[1]);
      if (b == PRISM_ABSTRACT_ABSENT)
        return b;
      if (op->attrs.dim >= 0 && (guint) op->attrs.dim < nd)
        shape->dims[op->attrs.dim] += slot_shape (w, s, op->inputs[1])->dims[op->attrs.dim];
      return node2 (w, sym->concat, a, b);
    default:
      break;
    }

  if (prism_op_kind_is_accum (op->kind))
    return eval_accum (w, s, op, nd, a, shape);

  return fail (w, PRISM_ERROR_INVALID_GRAPH, "op %u of the %s graph (%s) produces no value",
               op_index, s->what, prism_op_kind_to_string (op->kind));
}

/* What the value of @t is made from, in the order eval_op() evaluates it:
 * (scope, tensor) pairs into @deps (at most MAX_DEPS).  *@cont says whether
 * eval_op() goes on past an absent first dependency (a matmul of two
 * concats evaluates the concats' operands even when the concat itself is
 * absent); past any other absent one it stops.  Dependencies it cannot name
 * (bad ids, a missing kernel output) are left to eval_op() to report. */
#define MAX_DEPS 5

typedef struct
{
  guint scope;
  guint t;
} Dep;

static guint
dependencies (const Scope *s, guint t, Dep *deps, gboolean *cont)
{
  const PrismTensor *tensor = prism_graph_tensor (s->graph, t);
  const PrismOp *op = prism_graph_op (s->graph, (guint) tensor->producer);
  guint n = 0;

  *cont = FALSE;
  if (op->kind == PRISM_OP_INPUT)
    {
      guint index = op->attrs.input_index;

      if (s->is_block && s->inputs != NULL && (s->n_inputs == G_MAXUINT || index < s->n_inputs))
        deps[n++] = (Dep) { SCOPE_KERNEL, s->inputs[index] };
      return n;
    }
  if (op->kind == PRISM_OP_KERNEL)
    {
      guint seen = 0;

      for (guint i = 0; i < op->body->ops->len; i++)
        {
          const PrismOp *bop = prism_graph_op (op->body, i);

          if (bop->kind == PRISM_OP_OUTPUT && seen++ == tensor->producer_slot)
            {
              deps[n++] = (Dep) { SCOPE_BODY + (guint) tensor->producer, bop->inputs[0] };
              break;
            }
        }
      return n;
    }
  if (op->n_inputs < 1)
    return 0;
  deps[n++] = (Dep) { s->id, op->inputs[0] };
  if (op->kind == PRISM_OP_MATMUL && op->n_inputs > 1)
    {
      const PrismTensor *ta = prism_graph_tensor (s->graph, op->inputs[0]);
      const PrismOp *ca = producer_of (s, op->inputs[0], PRISM_OP_CONCAT);
      const PrismOp *cb = producer_of (s, op->inputs[1], PRISM_OP_CONCAT);

      if (ca != NULL && cb != NULL && ca->attrs.dim == (int) ta->ndims - 1 &&
          cb->attrs.dim == (int) ta->ndims - 2)
        {
          deps[n++] = (Dep) { s->id, ca->inputs[0] };
          deps[n++] = (Dep) { s->id, ca->inputs[1] };
          deps[n++] = (Dep) { s->id, cb->inputs[0] };
          deps[n++] = (Dep) { s->id, cb->inputs[1] };
          *cont = TRUE;
          return n;
        }
    }
  if (op->n_inputs > 1 &&
      (prism_op_kind_is_binary (op->kind) || op->kind == PRISM_OP_MATMUL ||
       op->kind == PRISM_OP_CONCAT || op->kind == PRISM_OP_ACCUM_RESCALE ||
       op->kind == PRISM_OP_ACCUM_SUM_RESCALE))
    deps[n++] = (Dep) { s->id, op->inputs[1] };
  return n;
}

/* The slot of @t in @s, or G_MAXUINT with the error set when @t is not a
 * tensor of @s that an op produces. */
static guint
checked_slot (PrismAbstractWalk *w, const Scope *s, guint t)
{
  const PrismTensor *tensor;

  if (t >= s->graph->tensors->len)
    {
      fail (w, PRISM_ERROR_INVALID_GRAPH, "tensor %u does not exist in the %s graph", t, s->what);
      return G_MAXUINT;
    }
  tensor = prism_graph_tensor (s->graph, t);
  if (tensor->producer < 0 || (guint) tensor->producer >= s->graph->ops->len)
    {
      fail (w, PRISM_ERROR_INVALID_GRAPH, "tensor %u of the %s graph has no producer", t, s->what);
      return G_MAXUINT;
    }
  return s->base + t;
}

/* Evaluates the op producing @t, whose dependencies are all evaluated
 * (eval_op()'s own calls to eval() find them memoized), and memoizes it. */
static guint
compute (PrismAbstractWalk *w, const Scope *s, guint t)
{
  const PrismTensor *tensor = prism_graph_tensor (s->graph, t);
  PrismAbstractShape shape;
  guint slot = s->base + t;
  guint v;

  v = eval_op (w, s, (guint) tensor->producer, tensor, &shape);
  if (v != PRISM_ABSTRACT_ABSENT)
    {
      if (w->untiled)
        w->shapes[slot] = shape;
      else
        graph_shape (tensor, &w->shapes[slot]);
    }
  w->values[slot] = v;
  return v;
}

typedef struct
{
  guint scope;
  guint t;
  guint next;     /* the next dependency to look at */
} Frame;

/* Depth first over the dependencies with an explicit stack: each tensor is
 * computed once all it is made from is memoized, so eval_op()'s own calls
 * to eval() return at once and the C stack does not grow with the chain. */
static guint
walk (PrismAbstractWalk *w, const Scope *root, guint t)
{
  g_autoptr(GArray) stack = g_array_new (FALSE, FALSE, sizeof (Frame));
  Frame first = { root->id, t, 0 };

  w->values[root->base + t] = BUSY;
  g_array_append_val (stack, first);
  while (stack->len > 0)
    {
      Frame *f = &g_array_index (stack, Frame, stack->len - 1);
      Dep deps[MAX_DEPS];
      gboolean cont;
      Scope s;
      guint n, slot = G_MAXUINT;

      scope_init (w, f->scope, &s);
      n = dependencies (&s, f->t, deps, &cont);
      while (f->next < n)
        {
          Scope ds;
          guint v;

          scope_init (w, deps[f->next].scope, &ds);
          slot = checked_slot (w, &ds, deps[f->next].t);
          if (slot == G_MAXUINT)
            goto failed;
          v = w->values[slot];
          if (v == BUSY)
            {
              fail (w, PRISM_ERROR_INVALID_GRAPH, "tensor %u of the %s graph depends on itself",
                    deps[f->next].t, ds.what);
              goto failed;
            }
          if (v == UNSET)
            break;
          if (v == PRISM_ABSTRACT_ABSENT && !(cont && f->next == 0))
            {
              f->next = n;
              break;
            }
          f->next++;
        }
      if (f->next < n)
        {
          /* An unevaluated dependency: evaluate it first (the append may
           * move the frames: @f is not used after it). */
          Frame next = { deps[f->next].scope, deps[f->next].t, 0 };

          w->values[slot] = BUSY;
          g_array_append_val (stack, next);
          continue;
        }
      compute (w, &s, f->t);
      g_array_set_size (stack, stack->len - 1);
      if (w->error != NULL)
        goto failed;
    }
  return w->values[root->base + t];

failed:
  /* As the recursion would: everything on the way down is absent. */
  for (guint i = 0; i < stack->len; i++)
    {
      const Frame *f = &g_array_index (stack, Frame, i);
      Scope s;

      scope_init (w, f->scope, &s);
      w->values[s.base + f->t] = PRISM_ABSTRACT_ABSENT;
    }
  return PRISM_ABSTRACT_ABSENT;
}

/* Beyond this many levels of eval() the explicit stack takes over.  A graph
 * that fits the caller's stack storage never gets there (its dependency
 * chains are shorter than its tensors are many), so the oracle's checks
 * allocate nothing; each level costs two small frames. */
static guint max_recursion = PRISM_ABSTRACT_WALK_STACK_SLOTS;

void
prism_abstract_set_max_recursion (guint depth)
{
  max_recursion = depth;
}

static guint
eval (PrismAbstractWalk *w, const Scope *s, guint t)
{
  guint slot, v;

  if (w->error != NULL)
    return PRISM_ABSTRACT_ABSENT;
  if (t >= s->graph->tensors->len)
    return fail (w, PRISM_ERROR_INVALID_GRAPH, "tensor %u does not exist in the %s graph", t,
                 s->what);
  slot = s->base + t;
  v = w->values[slot];
  if (v != UNSET && v != BUSY)
    return v;
  if (v == BUSY)
    return fail (w, PRISM_ERROR_INVALID_GRAPH, "tensor %u of the %s graph depends on itself", t,
                 s->what);
  if (checked_slot (w, s, t) == G_MAXUINT)
    return PRISM_ABSTRACT_ABSENT;
  if (w->depth >= max_recursion)
    return walk (w, s, t);
  w->values[slot] = BUSY;
  w->depth++;
  v = compute (w, s, t);
  w->depth--;
  return v;
}

guint
prism_abstract_walk_eval (PrismAbstractWalk *walk_, gboolean in_block, guint tensor)
{
  Scope s;

  if (in_block && walk_->block == NULL)
    return fail (walk_, PRISM_ERROR_INVALID_GRAPH, "no block graph was given");
  scope_init (walk_, in_block ? SCOPE_OPEN : SCOPE_KERNEL, &s);
  return eval (walk_, &s, tensor);
}

/* ------------------------------------------------------------------------ */
/* PrismAbstractExpr: the term backend */

struct _PrismAbstractExpr
{
  PrismTerm *term;
  PrismAbstractWalk walk;
  PrismAbstractMode mode;
};

static guint
term_node (gpointer data, PrismSymbol op, guint n_children, const guint *children)
{
  return prism_term_add_node (data, op, n_children, children);
}

static guint
term_int (gpointer data, gint64 value)
{
  return prism_term_add_int (data, value);
}

static guint
term_input (gpointer data, guint index)
{
  char name[24];

  g_snprintf (name, sizeof name, "v%u", index);
  return prism_term_add_symbol (data, name);
}

static const PrismAbstractBackend term_backend = { term_node, term_int, term_input };

PrismAbstractExpr *
prism_abstract_expr_new (const PrismGraph *kernel_graph, const PrismGraph *block,
                         const guint *block_inputs, PrismAbstractMode mode)
{
  PrismAbstractExpr *expr;

  g_return_val_if_fail (kernel_graph != NULL, NULL);
  g_return_val_if_fail (kernel_graph->level == PRISM_LEVEL_KERNEL, NULL);
  g_return_val_if_fail (block == NULL || block->level == PRISM_LEVEL_BLOCK, NULL);

  expr = g_new0 (PrismAbstractExpr, 1);
  expr->term = prism_term_new ();
  expr->mode = prism_abstract_resolve_mode (kernel_graph, block, mode);
  prism_abstract_walk_init (&expr->walk, &term_backend, expr->term, kernel_graph, block,
                            block_inputs, expr->mode, NULL);
  return expr;
}

void
prism_abstract_expr_free (PrismAbstractExpr *expr)
{
  if (expr == NULL)
    return;
  prism_abstract_walk_clear (&expr->walk);
  prism_term_free (expr->term);
  g_free (expr);
}

PrismAbstractMode
prism_abstract_expr_get_mode (const PrismAbstractExpr *expr)
{
  return expr->mode;
}

const PrismTerm *
prism_abstract_expr_get_term (const PrismAbstractExpr *expr)
{
  return expr->term;
}

gboolean
prism_abstract_expr_eval (PrismAbstractExpr *expr, gboolean in_block, guint tensor,
                          guint *out_node, GError **error)
{
  guint v;

  g_return_val_if_fail (expr != NULL, FALSE);

  v = prism_abstract_walk_eval (&expr->walk, in_block, tensor);
  if (v == PRISM_ABSTRACT_ABSENT)
    {
      if (expr->walk.error != NULL)
        {
          g_propagate_error (error, g_steal_pointer (&expr->walk.error));
        }
      else
        {
          /* A memoized failure from an earlier call. */
          g_set_error (error, PRISM_ERROR, PRISM_ERROR_INVALID_GRAPH,
                       "tensor %u depends on a tensor whose expression failed earlier", tensor);
        }
      return FALSE;
    }
  if (out_node != NULL)
    *out_node = v;
  return TRUE;
}

PrismTerm *
prism_abstract_expr_of_tensor (const PrismGraph *kernel_graph, const PrismGraph *block,
                               const guint *block_inputs, gboolean in_block, guint tensor,
                               PrismAbstractMode mode, GError **error)
{
  g_autoptr(PrismAbstractExpr) expr = prism_abstract_expr_new (kernel_graph, block,
                                                               block_inputs, mode);
  g_autoptr(PrismTerm) term = NULL;
  guint node;

  if (expr == NULL)
    return NULL;
  if (!prism_abstract_expr_eval (expr, in_block, tensor, &node, error))
    return NULL;
  /* Copy just the expression: the builder's term may hold nothing else now,
   * but the copy keeps the result independent of the walk's order. */
  term = prism_term_new ();
  prism_term_add_subterm (term, expr->term, node);
  return g_steal_pointer (&term);
}

char *
prism_abstract_expr_to_string (const PrismGraph *kernel_graph, guint tensor,
                               PrismAbstractMode mode, GError **error)
{
  g_autoptr(PrismTerm) term = prism_abstract_expr_of_tensor (kernel_graph, NULL, NULL, FALSE,
                                                             tensor, mode, error);

  if (term == NULL)
    return NULL;
  return prism_term_to_string (term);
}

PrismTerm *
prism_abstract_expr_of_outputs (const PrismGraph *graph, PrismAbstractMode mode,
                                GArray **out_roots, GError **error)
{
  g_autoptr(PrismAbstractExpr) expr = NULL;
  g_autoptr(GArray) outputs = NULL;
  g_autoptr(GArray) roots = NULL;
  PrismTerm *term;

  g_return_val_if_fail (graph != NULL, NULL);

  outputs = prism_graph_get_outputs (graph);
  if (outputs->len == 0)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_INVALID_GRAPH, "the graph has no output");
      return NULL;
    }
  expr = prism_abstract_expr_new (graph, NULL, NULL, mode);
  roots = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 0; i < outputs->len; i++)
    {
      guint node;

      if (!prism_abstract_expr_eval (expr, FALSE, g_array_index (outputs, guint, i), &node,
                                     error))
        {
          g_prefix_error (error, "output %u: ", i);
          return NULL;
        }
      g_array_append_val (roots, node);
    }
  term = g_steal_pointer (&expr->term);
  expr->term = prism_term_new ();
  prism_term_set_root (term, g_array_index (roots, guint, roots->len - 1));
  if (out_roots != NULL)
    *out_roots = g_steal_pointer (&roots);
  return term;
}
