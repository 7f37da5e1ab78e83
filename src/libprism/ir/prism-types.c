/* prism-types.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "prism-types.h"

static const char * const dtype_names[PRISM_N_DTYPES] = { "f16", "bf16", "f32" };

static const char * const op_names[PRISM_N_OPS] = {
  [PRISM_OP_INPUT] = "input",
  [PRISM_OP_OUTPUT] = "output",
  [PRISM_OP_MATMUL] = "matmul",
  [PRISM_OP_EXP] = "exp",
  [PRISM_OP_SQUARE] = "square",
  [PRISM_OP_SQRT] = "sqrt",
  [PRISM_OP_SILU] = "silu",
  [PRISM_OP_GELU] = "gelu",
  [PRISM_OP_RELU] = "relu",
  [PRISM_OP_NEG] = "neg",
  [PRISM_OP_ADD] = "add",
  [PRISM_OP_SUB] = "sub",
  [PRISM_OP_MUL] = "mul",
  [PRISM_OP_DIV] = "div",
  [PRISM_OP_POW] = "pow",
  [PRISM_OP_SUM] = "sum",
  [PRISM_OP_RMS_NORM] = "rms_norm",
  [PRISM_OP_KERNEL] = "kernel",
  [PRISM_OP_CONCAT] = "concat",
  [PRISM_OP_ACCUM] = "accum",
  [PRISM_OP_ACCUM_SUM] = "accum_sum",
  [PRISM_OP_ACCUM_MEAN] = "accum_mean",
  [PRISM_OP_ACCUM_RMS] = "accum_rms",
  [PRISM_OP_ACCUM_SUM_TODIMX] = "accum_sum_todimx",
  [PRISM_OP_ACCUM_MAX] = "accum_max",
  [PRISM_OP_ACCUM_RESCALE] = "accum_rescale",
  [PRISM_OP_ACCUM_SUM_RESCALE] = "accum_sum_rescale",
  [PRISM_OP_MAX] = "max",
  [PRISM_OP_MEAN] = "mean",
  [PRISM_OP_MAXIMUM] = "maximum",
  [PRISM_OP_TRANSPOSE] = "transpose",
  [PRISM_OP_CONSTANT] = "constant",
  [PRISM_OP_RUNNING_MAX] = "running_max",
  [PRISM_OP_ACCUM_ONLINE] = "accum_online",
  [PRISM_OP_ACCUM_SUM_ONLINE] = "accum_sum_online",
};

const char *
prism_dtype_to_string (PrismDtype dtype)
{
  g_return_val_if_fail (dtype < PRISM_N_DTYPES, "?");
  return dtype_names[dtype];
}

gboolean
prism_dtype_from_string (const char *name, PrismDtype *out)
{
  for (guint i = 0; i < PRISM_N_DTYPES; i++)
    if (g_strcmp0 (name, dtype_names[i]) == 0)
      {
        *out = (PrismDtype) i;
        return TRUE;
      }
  return FALSE;
}

guint
prism_dtype_size (PrismDtype dtype)
{
  return dtype == PRISM_DTYPE_F32 ? 4 : 2;
}

const char *
prism_op_kind_to_string (PrismOpKind kind)
{
  g_return_val_if_fail (kind < PRISM_N_OPS, "?");
  return op_names[kind];
}

gboolean
prism_op_kind_from_string (const char *name, PrismOpKind *out)
{
  for (guint i = 0; i < PRISM_N_OPS; i++)
    if (g_strcmp0 (name, op_names[i]) == 0)
      {
        *out = (PrismOpKind) i;
        return TRUE;
      }
  return FALSE;
}

gboolean
prism_op_kind_is_unary (PrismOpKind kind)
{
  return kind >= PRISM_OP_EXP && kind <= PRISM_OP_NEG;
}

gboolean
prism_op_kind_is_binary (PrismOpKind kind)
{
  return (kind >= PRISM_OP_ADD && kind <= PRISM_OP_POW) || kind == PRISM_OP_MAXIMUM;
}

gboolean
prism_op_kind_is_reduction (PrismOpKind kind)
{
  return kind == PRISM_OP_SUM || kind == PRISM_OP_MAX || kind == PRISM_OP_MEAN;
}

gboolean
prism_op_kind_is_accum (PrismOpKind kind)
{
  return (kind >= PRISM_OP_ACCUM && kind <= PRISM_OP_ACCUM_SUM_RESCALE) ||
         prism_op_kind_is_online (kind);
}

gboolean
prism_op_kind_is_online (PrismOpKind kind)
{
  return kind == PRISM_OP_ACCUM_ONLINE || kind == PRISM_OP_ACCUM_SUM_ONLINE;
}

gboolean
prism_op_kind_is_commutative (PrismOpKind kind)
{
  return kind == PRISM_OP_ADD || kind == PRISM_OP_MUL || kind == PRISM_OP_MAXIMUM;
}

gboolean
prism_op_kind_at_level (PrismOpKind kind, PrismLevel level)
{
  if (kind == PRISM_OP_KERNEL)
    return level == PRISM_LEVEL_KERNEL;
  if (kind == PRISM_OP_CONCAT || kind == PRISM_OP_RUNNING_MAX || prism_op_kind_is_accum (kind))
    return level == PRISM_LEVEL_BLOCK;
  return kind < PRISM_N_OPS;
}

int
prism_op_kind_arity (PrismOpKind kind)
{
  if (kind == PRISM_OP_INPUT || kind == PRISM_OP_CONSTANT)
    return 0;
  if (kind == PRISM_OP_KERNEL)
    return -1;
  if (prism_op_kind_is_binary (kind) || kind == PRISM_OP_MATMUL || kind == PRISM_OP_CONCAT ||
      kind == PRISM_OP_ACCUM_RESCALE || kind == PRISM_OP_ACCUM_SUM_RESCALE ||
      prism_op_kind_is_online (kind))
    return 2;
  return 1;
}
