/* prism-par-expr.c — kernel graphs as tensor terms with parallel operators
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The translation must say exactly what the interpreter does (prism-interp.c
 * is the definition): a wrong translation would let the verifier prove the
 * wrong thing.  The places where the two meet are commented.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "prism-buffer.h"
#include "prism-error.h"
#include "prism-par-expr.h"

typedef struct
{
  PrismSymbol symbol;
  PrismDim *size;
  char *name;
} ParAxis;

struct _PrismParEnv
{
  GPtrArray *inputs;        /* PrismTensor*, by input index */
  GHashTable *input_index;  /* PrismSymbol → index + 1 */
  GArray *axes;             /* ParAxis */
  GHashTable *axis_index;   /* PrismSymbol → index + 1 */
  GHashTable *sizes;        /* PrismSymbol → PrismDim* (owned) */
};

static void
tensor_free (gpointer data)
{
  PrismTensor *t = data;

  for (guint i = 0; i < t->ndims; i++)
    prism_dim_unref (t->dims[i]);
  g_free (t);
}

PrismParEnv *
prism_par_env_new (void)
{
  PrismParEnv *env = g_new0 (PrismParEnv, 1);

  env->inputs = g_ptr_array_new_with_free_func (tensor_free);
  env->input_index = g_hash_table_new (NULL, NULL);
  env->axes = g_array_new (FALSE, TRUE, sizeof (ParAxis));
  env->axis_index = g_hash_table_new (NULL, NULL);
  env->sizes = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) prism_dim_unref);
  return env;
}

void
prism_par_env_free (PrismParEnv *env)
{
  if (env == NULL)
    return;
  g_ptr_array_unref (env->inputs);
  g_hash_table_unref (env->input_index);
  for (guint i = 0; i < env->axes->len; i++)
    {
      ParAxis *a = &g_array_index (env->axes, ParAxis, i);
      prism_dim_unref (a->size);
      g_free (a->name);
    }
  g_array_unref (env->axes);
  g_hash_table_unref (env->axis_index);
  g_hash_table_unref (env->sizes);
  g_free (env);
}

guint
prism_par_env_get_n_inputs (const PrismParEnv *env)
{
  return env->inputs->len;
}

const PrismTensor *
prism_par_env_lookup_input (const PrismParEnv *env, PrismSymbol symbol)
{
  guint i = GPOINTER_TO_UINT (g_hash_table_lookup (env->input_index, GUINT_TO_POINTER (symbol)));

  return i == 0 ? NULL : g_ptr_array_index (env->inputs, i - 1);
}

int
prism_par_env_lookup_axis (const PrismParEnv *env, PrismSymbol symbol)
{
  return (int) GPOINTER_TO_UINT (g_hash_table_lookup (env->axis_index, GUINT_TO_POINTER (symbol))) - 1;
}

guint
prism_par_env_get_n_axes (const PrismParEnv *env)
{
  return env->axes->len;
}

const PrismDim *
prism_par_env_get_axis_size (const PrismParEnv *env, guint index)
{
  g_return_val_if_fail (index < env->axes->len, NULL);
  return g_array_index (env->axes, ParAxis, index).size;
}

const char *
prism_par_env_get_axis_name (const PrismParEnv *env, guint index)
{
  g_return_val_if_fail (index < env->axes->len, NULL);
  return g_array_index (env->axes, ParAxis, index).name;
}

const PrismDim *
prism_par_env_lookup_size (const PrismParEnv *env, PrismSymbol symbol)
{
  return g_hash_table_lookup (env->sizes, GUINT_TO_POINTER (symbol));
}

guint
prism_par_count_outputs (const PrismGraph *graph)
{
  guint n = 0;

  for (guint i = 0; i < graph->ops->len; i++)
    n += prism_graph_op (graph, i)->kind == PRISM_OP_OUTPUT;
  return n;
}

/* ------------------------------------------------------------------------ */

typedef struct
{
  PrismParEnv *env;
  const PrismGraph *top;
  const char *prefix;
  PrismTerm *term;
  gboolean first;          /* this graph defines the inputs */
  guint n_inputs_seen;
} Translation;

/* (map f a): the unary op f applied to every element. */
static guint
map1 (PrismTerm *term, const char *f, guint a)
{
  guint ch[2] = { prism_term_add_symbol (term, f), a };

  return prism_term_add_op (term, "map", 2, ch);
}

/* (map2 f a b): the binary op f applied to matching elements. */
static guint
map2 (PrismTerm *term, const char *f, guint a, guint b)
{
  guint ch[3] = { prism_term_add_symbol (term, f), a, b };

  return prism_term_add_op (term, "map2", 3, ch);
}

static guint
node2 (PrismTerm *term, const char *op, guint a, guint b)
{
  guint ch[2] = { a, b };

  return prism_term_add_op (term, op, 2, ch);
}

static guint
node3 (PrismTerm *term, const char *op, guint a, guint b, guint c)
{
  guint ch[3] = { a, b, c };

  return prism_term_add_op (term, op, 3, ch);
}

/* A size as a leaf: an integer when constant, else a symbol `size:<dim>`
 * that the environment maps back to the dim.  Equal dims print equally (they
 * are canonical), so equal sizes are the same leaf.  Brackets replace the
 * parentheses so that the term prints as one symbol. */
static guint
size_leaf (Translation *tr, const PrismDim *dim)
{
  g_autofree char *text = NULL;
  g_autofree char *name = NULL;
  PrismSymbol sym;

  if (prism_dim_is_const (dim))
    return prism_term_add_int (tr->term, prism_dim_get_const (dim));
  text = prism_dim_to_string (dim, prism_graph_var_names (tr->top));
  g_strdelimit (text, "(", '[');
  g_strdelimit (text, ")", ']');
  g_strdelimit (text, " ,", '_');
  name = g_strdup_printf ("size:%s", text);
  sym = prism_symbol_intern (name);
  if (!g_hash_table_contains (tr->env->sizes, GUINT_TO_POINTER (sym)))
    g_hash_table_insert (tr->env->sizes, GUINT_TO_POINTER (sym), prism_dim_ref (dim));
  return prism_term_add_symbol (tr->term, name);
}

static guint
dim_leaf (Translation *tr, guint ndims, int dim)
{
  /* Data dims are numbered from the last in terms. */
  return prism_term_add_int (tr->term, (gint64) ndims - 1 - dim);
}

static int
add_axis (Translation *tr, const char *name, const PrismDim *size, GError **error)
{
  PrismSymbol sym = prism_symbol_intern (name);
  ParAxis axis = { sym, prism_dim_ref (size), g_strdup (name) };

  if (prism_par_env_lookup_axis (tr->env, sym) >= 0)
    {
      prism_dim_unref (axis.size);
      g_free (axis.name);
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED, "axis %s defined twice", name);
      return -1;
    }
  if (tr->env->axes->len >= PRISM_PAR_MAX_AXES)
    {
      prism_dim_unref (axis.size);
      g_free (axis.name);
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED,
                   "more than %d parallel axes in the graphs", PRISM_PAR_MAX_AXES);
      return -1;
    }
  g_array_append_val (tr->env->axes, axis);
  g_hash_table_insert (tr->env->axis_index, GUINT_TO_POINTER (sym),
                       GUINT_TO_POINTER (tr->env->axes->len));
  return (int) tr->env->axes->len - 1;
}

static gboolean
is_one (const PrismDim *d)
{
  return prism_dim_is_const (d) && prism_dim_get_const (d) == 1;
}

static const char *
elementwise_name (PrismOpKind kind)
{
  switch ((int) kind)
    {
    case PRISM_OP_EXP: return "exp";
    case PRISM_OP_SQUARE: return "square";
    case PRISM_OP_SQRT: return "sqrt";
    case PRISM_OP_SILU: return "silu";
    case PRISM_OP_GELU: return "gelu";
    case PRISM_OP_RELU: return "relu";
    case PRISM_OP_NEG: return "neg";
    case PRISM_OP_ADD: return "add";
    case PRISM_OP_SUB: return "sub";
    case PRISM_OP_MUL: return "mul";
    case PRISM_OP_DIV: return "div";
    case PRISM_OP_POW: return "pow";
    case PRISM_OP_MAXIMUM: return "maximum";
    default: return NULL;
    }
}

/* (const bits rank): a constant of value @v, all @rank dims 1. */
static guint
const_leaf (Translation *tr, double v, guint rank)
{
  /* The sign of a zero is kept: 1 / −0 is −inf, 1 / +0 is +inf. */
  union { double d; gint64 i; } bits = { .d = v };
  guint ch[2] = { prism_term_add_int (tr->term, bits.i), prism_term_add_int (tr->term, rank) };

  return prism_term_add_op (tr->term, "const", 2, ch);
}

/* Ops that mean the same at both levels: elementwise, matmul, sum,
 * rms_norm, concat.  @t maps tensor ids of @g to term nodes. */
static gboolean
translate_common (Translation *tr, const PrismGraph *g, const PrismOp *op, guint *t,
                  GError **error)
{
  const PrismTensor *a;
  guint x;
  guint out;

  if (op->kind == PRISM_OP_CONSTANT)
    {
      /* (const bits rank): the bits of the value as its dtype stores it name
       * it (the interpreter rounds it so): equal values are one leaf, 0.1 in
       * f16 and in f32 are two. */
      PrismDtype dtype = prism_graph_tensor (g, op->outputs[0])->dtype;
      double v = prism_dtype_round_value (op->attrs.value, dtype);

      /* A value its dtype cannot hold is stored as an infinity: X·70000 and
       * X·99999 in f16 would be one term. */
      if (!isfinite (v))
        {
          g_set_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED,
                       "the constant %.9g is outside the range of %s", op->attrs.value,
                       prism_dtype_to_string (dtype));
          return FALSE;
        }
      t[op->outputs[0]] = const_leaf (tr, v, prism_graph_tensor (g, op->outputs[0])->ndims);
      return TRUE;
    }
  a = prism_graph_tensor (g, op->inputs[0]);
  x = t[op->inputs[0]];
  if (prism_op_kind_is_unary (op->kind))
    out = map1 (tr->term, elementwise_name (op->kind), x);
  else if (prism_op_kind_is_binary (op->kind))
    out = map2 (tr->term, elementwise_name (op->kind), x, t[op->inputs[1]]);
  else if (op->kind == PRISM_OP_MATMUL)
    out = node2 (tr->term, "matmul", x, t[op->inputs[1]]);
  else if (op->kind == PRISM_OP_SUM)
    out = node2 (tr->term, "sum", x, dim_leaf (tr, a->ndims, op->attrs.dim));
  else if (op->kind == PRISM_OP_MAX)
    out = node2 (tr->term, "max", x, dim_leaf (tr, a->ndims, op->attrs.dim));
  else if (op->kind == PRISM_OP_MEAN)
    out = node2 (tr->term, "divn", node2 (tr->term, "sum", x, dim_leaf (tr, a->ndims, op->attrs.dim)),
                 size_leaf (tr, a->dims[op->attrs.dim]));
  else if (op->kind == PRISM_OP_TRANSPOSE)
    out = node2 (tr->term, "transpose", x,
                 prism_term_add_int (tr->term, prism_par_perm_code (a->ndims, op->attrs.perm)));
  else if (op->kind == PRISM_OP_CONCAT)
    out = node3 (tr->term, "concat", x, t[op->inputs[1]], dim_leaf (tr, a->ndims, op->attrs.dim));
  else if (op->kind == PRISM_OP_RMS_NORM && op->attrs.norm_dims == 1 && op->attrs.eps == 0.0)
    out = node2 (tr->term, "rms_norm", x, size_leaf (tr, a->dims[a->ndims - 1]));
  else if (op->kind == PRISM_OP_RMS_NORM && op->attrs.norm_dims == 1)
    out = node3 (tr->term, "rms_norm_eps", x, size_leaf (tr, a->dims[a->ndims - 1]),
                 const_leaf (tr, op->attrs.eps, a->ndims));
  else if (op->kind == PRISM_OP_RMS_NORM)
    {
      /* Over several trailing dims: x / sqrt (Σ x² / n + eps), spelled out;
       * eps is a constant leaf, so a different eps is a different term. */
      g_autoptr(PrismDim) n = prism_dim_const (1);
      guint s = map1 (tr->term, "square", x);

      for (guint k = 0; k < op->attrs.norm_dims; k++)
        {
          PrismDim *m = prism_dim_mul (n, a->dims[a->ndims - 1 - k]);
          prism_dim_unref (n);
          n = m;
          s = node2 (tr->term, "sum", s, prism_term_add_int (tr->term, k));
        }
      s = node2 (tr->term, "divn", s, size_leaf (tr, n));
      if (op->attrs.eps != 0.0)
        s = map2 (tr->term, "add", s, const_leaf (tr, op->attrs.eps, a->ndims));
      s = map1 (tr->term, "sqrt", s);
      out = map2 (tr->term, "div", x, s);
    }
  else
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED,
                   "the formal verifier has no translation for %s ops",
                   prism_op_kind_to_string (op->kind));
      return FALSE;
    }
  t[op->outputs[0]] = out;
  return TRUE;
}

gint64
prism_par_perm_code (guint ndims, const int *perm)
{
  gint64 code = (gint64) ndims << 8;

  for (guint i = 0; i < ndims; i++)
    code |= (gint64) (perm[i] & 3) << (2 * i);
  return code;
}

static const char axis_letters[] = "xyz";

/* A custom kernel: @kin are the terms of its inputs, @kout receives the
 * terms of its outputs. */
static gboolean
translate_kernel (Translation *tr, guint kernel_index, const PrismGraph *body, const guint *kin,
                  guint n_kin, guint *kout, GError **error)
{
  g_autofree guint *t = g_new0 (guint, body->tensors->len);
  /* Constants: their term without the loop axis, for the epilogue. */
  g_autofree guint *post = g_new0 (guint, body->tensors->len);
  g_autofree gboolean *has_post = g_new0 (gboolean, body->tensors->len);
  guint axis_sym[PRISM_MAX_GRID_DIMS];
  gboolean has_axis[PRISM_MAX_GRID_DIMS] = { FALSE, };
  guint f_sym = 0;
  gboolean has_f;
  guint n_out = 0;

  if (body->symbolic_maps)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED,
                   "kernel %u has symbolic maps; instantiate them first", kernel_index);
      return FALSE;
    }
  /* Axes of constant size 1 are left out: one block or one iteration sees
   * the whole dim, exactly what the term without the axis says. */
  for (guint p = 0; p < body->grid_ndims; p++)
    if (!is_one (body->grid[p]))
      {
        g_autofree char *name = g_strdup_printf ("%s%u.%c", tr->prefix, kernel_index, axis_letters[p]);
        if (add_axis (tr, name, body->grid[p], error) < 0)
          return FALSE;
        axis_sym[p] = prism_term_add_symbol (tr->term, name);
        has_axis[p] = TRUE;
      }
  has_f = !is_one (body->forloop);
  if (has_f)
    {
      g_autofree char *name = g_strdup_printf ("%s%u.f", tr->prefix, kernel_index);
      if (add_axis (tr, name, body->forloop, error) < 0)
        return FALSE;
      f_sym = prism_term_add_symbol (tr->term, name);
    }

  for (guint i = 0; i < body->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (body, i);
      const PrismTensor *a = op->n_inputs > 0 ? prism_graph_tensor (body, op->inputs[0]) : NULL;
      guint x = op->n_inputs > 0 ? t[op->inputs[0]] : 0;

      switch ((int) op->kind)
        {
        case PRISM_OP_INPUT:
          {
            guint v;
            if (op->attrs.input_index >= n_kin)
              {
                g_set_error (error, PRISM_ERROR, PRISM_ERROR_INVALID_GRAPH,
                             "kernel %u: block op %u reads kernel input %u of %u", kernel_index, i,
                             op->attrs.input_index, n_kin);
                return FALSE;
              }
            v = kin[op->attrs.input_index];
            /* Grid partitions first, the loop last: the interpreter's tile
             * offset along a dim split by both is (block · F + iteration),
             * i.e. the loop splits the grid's chunk. */
            for (guint p = 0; p < body->grid_ndims; p++)
              {
                if (!has_axis[p])
                  continue;
                if (op->attrs.imap[p] >= 0)
                  v = node3 (tr->term, "partition", v, dim_leaf (tr, op->data_ndims, op->attrs.imap[p]),
                             axis_sym[p]);
                else
                  v = node2 (tr->term, "replicate", v, axis_sym[p]);
              }
            if (has_f)
              {
                if (op->attrs.fmap >= 0)
                  v = node3 (tr->term, "partition", v, dim_leaf (tr, op->data_ndims, op->attrs.fmap), f_sym);
                else
                  v = node2 (tr->term, "replicate", v, f_sym);
              }
            t[op->outputs[0]] = v;
          }
          break;

        case PRISM_OP_OUTPUT:
          {
            guint v = x;
            for (guint p = 0; p < body->grid_ndims; p++)
              {
                if (!has_axis[p])
                  continue;
                /* omap −1: the interpreter adds the tiles of all blocks
                 * along the axis into the same place. */
                if (op->attrs.omap[p] >= 0)
                  v = node3 (tr->term, "combine", v, dim_leaf (tr, a->ndims, op->attrs.omap[p]),
                             axis_sym[p]);
                else
                  v = node2 (tr->term, "reduce", v, axis_sym[p]);
              }
            kout[n_out++] = v;
          }
          break;

        case PRISM_OP_ACCUM:
        case PRISM_OP_ACCUM_SUM:
        case PRISM_OP_ACCUM_MEAN:
        case PRISM_OP_ACCUM_RMS:
        case PRISM_OP_ACCUM_MAX:
        case PRISM_OP_ACCUM_SUM_TODIMX:
          {
            const PrismDim *last = a->dims[a->ndims - 1];
            guint v = x;
            if (op->kind == PRISM_OP_ACCUM_RMS)
              v = map1 (tr->term, "square", v);
            if (has_f)
              v = node2 (tr->term, op->kind == PRISM_OP_ACCUM_MAX ? "reduce_max" : "reduce", v, f_sym);
            if (op->kind == PRISM_OP_ACCUM_SUM || op->kind == PRISM_OP_ACCUM_MEAN ||
                op->kind == PRISM_OP_ACCUM_RMS)
              v = node2 (tr->term, "sum", v, prism_term_add_int (tr->term, 0));
            if (op->kind == PRISM_OP_ACCUM_MEAN || op->kind == PRISM_OP_ACCUM_RMS)
              {
                /* The interpreter divides by forloop · last dim of the tile. */
                g_autoptr(PrismDim) count = prism_dim_mul (body->forloop, last);
                v = node2 (tr->term, "divn", v, size_leaf (tr, count));
              }
            if (op->kind == PRISM_OP_ACCUM_RMS)
              v = map1 (tr->term, "sqrt", v);
            if (op->kind == PRISM_OP_ACCUM_SUM_TODIMX)
              {
                /* out[j] = Σ_{c ≡ j mod dimx} x[c]: chunk s of size dimx
                 * holds c = s·dimx + j, so this is the sum of the chunks,
                 * i.e. a reduction over a fresh axis splitting the last dim. */
                g_autoptr(PrismDim) dimx = prism_dim_const (op->attrs.dimx);
                g_autoptr(PrismDim) parts = prism_dim_div (last, dimx);
                if (!is_one (parts))
                  {
                    g_autofree char *name = g_strdup_printf ("%s%u.r%u", tr->prefix, kernel_index, i);
                    guint r;
                    if (add_axis (tr, name, parts, error) < 0)
                      return FALSE;
                    r = prism_term_add_symbol (tr->term, name);
                    v = node3 (tr->term, "partition", v, prism_term_add_int (tr->term, 0), r);
                    v = node2 (tr->term, "reduce", v, r);
                  }
              }
            t[op->outputs[0]] = v;
          }
          break;

        case PRISM_OP_CONSTANT:
          {
            /* The same value in every block and iteration: a copy along
             * every axis, as a replicated input would be. */
            guint v;
            if (!translate_common (tr, body, op, t, error))
              {
                g_prefix_error (error, "kernel %u, block op %u: ", kernel_index, i);
                return FALSE;
              }
            v = t[op->outputs[0]];
            for (guint p = 0; p < body->grid_ndims; p++)
              if (has_axis[p])
                v = node2 (tr->term, "replicate", v, axis_sym[p]);
            post[op->outputs[0]] = v;
            has_post[op->outputs[0]] = TRUE;
            if (has_f)
              v = node2 (tr->term, "replicate", v, f_sym);
            t[op->outputs[0]] = v;
          }
          break;

        case PRISM_OP_RUNNING_MAX:
          {
            /* (running v f): at iteration i the max of v over iterations
             * 0 … i, v the accum_max's input.  With one iteration it is
             * the accum_max's value, v itself. */
            const PrismOp *acc = prism_graph_op (body, (guint) a->producer);
            guint v = t[acc->inputs[0]];
            t[op->outputs[0]] = has_f ? node2 (tr->term, "running", v, f_sym) : v;
          }
          break;

        case PRISM_OP_ACCUM_ONLINE:
        case PRISM_OP_ACCUM_SUM_ONLINE:
          {
            /* (reduce_online x r f) = Σ_i x_i · exp(r_i − r_last); group 13
             * of verify.rules reads it when x_i = exp(s_i − r_i) · y_i.  The
             * running max has size 1 along the last dim here (the IR: it is
             * 1 or the accumulator's, which accum_sum_online makes 1), so
             * the sum over the last dim may come after the loop's. */
            guint v = x;
            if (has_f)
              v = node3 (tr->term, "reduce_online", v, t[op->inputs[1]], f_sym);
            if (op->kind == PRISM_OP_ACCUM_SUM_ONLINE)
              v = node2 (tr->term, "sum", v, prism_term_add_int (tr->term, 0));
            t[op->outputs[0]] = v;
          }
          break;

        case PRISM_OP_ACCUM_RESCALE:
        case PRISM_OP_ACCUM_SUM_RESCALE:
          g_set_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED,
                       "kernel %u: the formal verifier has no translation for %s", kernel_index,
                       prism_op_kind_to_string (op->kind));
          return FALSE;

        default:
          {
            /* After the loop, a constant has no loop axis. */
            gboolean epilogue = op->n_outputs > 0 &&
                                prism_graph_tensor (body, op->outputs[0])->after_accum;
            guint saved[PRISM_MAX_OP_INPUTS];
            gboolean ok;

            for (guint k = 0; k < op->n_inputs; k++)
              {
                saved[k] = t[op->inputs[k]];
                if (epilogue && has_post[op->inputs[k]])
                  t[op->inputs[k]] = post[op->inputs[k]];
              }
            ok = translate_common (tr, body, op, t, error);
            for (guint k = 0; k < op->n_inputs; k++)
              if (op->outputs[0] != op->inputs[k])
                t[op->inputs[k]] = saved[k];
            if (!ok)
              {
                g_prefix_error (error, "kernel %u, block op %u: ", kernel_index, i);
                return FALSE;
              }
          }
          break;
        }
    }
  return TRUE;
}

static gboolean
same_shape (const PrismTensor *a, const PrismTensor *b)
{
  if (a->ndims != b->ndims)
    return FALSE;
  for (guint i = 0; i < a->ndims; i++)
    if (!prism_dim_equal (a->dims[i], b->dims[i]))
      return FALSE;
  return TRUE;
}

gboolean
prism_par_translate (PrismParEnv *env, const PrismGraph *graph, const char *prefix,
                     PrismTerm *term, guint *roots, GError **error)
{
  return prism_par_translate_full (env, graph, prefix, term, roots, NULL, error);
}

gboolean
prism_par_translate_full (PrismParEnv *env, const PrismGraph *graph, const char *prefix,
                          PrismTerm *term, guint *roots, guint *tensor_nodes, GError **error)
{
  return prism_par_translate_bound (env, graph, prefix, term, NULL, roots, tensor_nodes, error);
}

gboolean
prism_par_translate_bound (PrismParEnv *env, const PrismGraph *graph, const char *prefix,
                           PrismTerm *term, const PrismIoBinding *binding, guint *roots,
                           guint *tensor_nodes, GError **error)
{
  Translation tr = { env, graph, prefix, term, env->inputs->len == 0, 0 };
  g_autofree guint *t = NULL;
  guint n_roots = 0, n_kernels = 0;

  g_return_val_if_fail (graph->level == PRISM_LEVEL_KERNEL, FALSE);
  t = g_new0 (guint, graph->tensors->len);
  for (guint i = 0; i < graph->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (graph, i);

      switch ((int) op->kind)
        {
        case PRISM_OP_INPUT:
          {
            const PrismTensor *shape = prism_graph_tensor (graph, op->outputs[0]);
            guint k = tr.n_inputs_seen++;
            g_autofree char *name = NULL;

            /* The reference's input this one is bound to (by name). */
            if (!tr.first && binding != NULL)
              {
                if (k >= binding->n_inputs)
                  {
                    g_set_error (error, PRISM_ERROR, PRISM_ERROR_INVALID_GRAPH,
                                 "the graph has more inputs than its binding (%u)", binding->n_inputs);
                    return FALSE;
                  }
                k = binding->inputs[k];
              }
            name = g_strdup_printf ("in%u", k);

            if (tr.first)
              {
                PrismTensor *copy = g_new0 (PrismTensor, 1);
                copy->ndims = shape->ndims;
                copy->dtype = shape->dtype;
                for (guint d = 0; d < shape->ndims; d++)
                  copy->dims[d] = prism_dim_ref (shape->dims[d]);
                g_ptr_array_add (env->inputs, copy);
                g_hash_table_insert (env->input_index, GUINT_TO_POINTER (prism_symbol_intern (name)),
                                     GUINT_TO_POINTER (env->inputs->len));
              }
            else if (k >= env->inputs->len ||
                     !same_shape (shape, g_ptr_array_index (env->inputs, k)))
              {
                g_set_error (error, PRISM_ERROR, PRISM_ERROR_INVALID_GRAPH,
                             "input %u differs from the reference's inputs", k);
                return FALSE;
              }
            else if (shape->dtype != ((const PrismTensor *) g_ptr_array_index (env->inputs, k))->dtype)
              {
                /* The terms are exact arithmetic on the rounded inputs: an
                 * input rounded to another dtype is another input. */
                const PrismTensor *first = g_ptr_array_index (env->inputs, k);
                g_set_error (error, PRISM_ERROR, PRISM_ERROR_INVALID_GRAPH,
                             "input %u is %s, the reference's is %s", k,
                             prism_dtype_to_string (shape->dtype), prism_dtype_to_string (first->dtype));
                return FALSE;
              }
            t[op->outputs[0]] = prism_term_add_symbol (term, name);
          }
          break;
        case PRISM_OP_OUTPUT:
          if (!tr.first && binding != NULL && n_roots >= binding->n_outputs)
            {
              g_set_error (error, PRISM_ERROR, PRISM_ERROR_INVALID_GRAPH,
                           "the graph has more outputs than its binding (%u)", binding->n_outputs);
              return FALSE;
            }
          roots[!tr.first && binding != NULL ? binding->outputs[n_roots] : n_roots] = t[op->inputs[0]];
          n_roots++;
          break;
        case PRISM_OP_KERNEL:
          {
            guint kin[PRISM_MAX_OP_INPUTS], kout[PRISM_MAX_OP_OUTPUTS];
            for (guint k = 0; k < op->n_inputs; k++)
              kin[k] = t[op->inputs[k]];
            if (!translate_kernel (&tr, n_kernels++, op->body, kin, op->n_inputs, kout, error))
              return FALSE;
            for (guint o = 0; o < op->n_outputs; o++)
              t[op->outputs[o]] = kout[o];
          }
          break;
        default:
          if (!translate_common (&tr, graph, op, t, error))
            {
              g_prefix_error (error, "op %u: ", i);
              return FALSE;
            }
          break;
        }
    }
  if (!tr.first && tr.n_inputs_seen != env->inputs->len)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_INVALID_GRAPH,
                   "the graph has %u inputs, the reference %u", tr.n_inputs_seen, env->inputs->len);
      return FALSE;
    }
  if (tensor_nodes != NULL)
    memcpy (tensor_nodes, t, sizeof (guint) * graph->tensors->len);
  return TRUE;
}
