/* prism-io-binding.c — which input and output of a candidate is which of the reference's
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Both methods of the verifier use one binding: the translation gives
 * candidate input k the reference's symbol inputs[k], the randomized test
 * gives it the reference's values, and outputs are compared pairwise.  A
 * candidate that lists Y before X and computes Y − X by name must never meet
 * the reference's X − Y as "input 0 − input 1".
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "prism-error.h"
#include "prism-io-binding.h"

/* The names of the INPUT (or OUTPUT) ops of @g in op order; NULL entries
 * for unnamed ones. (transfer container) */
static GPtrArray *
io_names (const PrismGraph *g, PrismOpKind kind)
{
  GPtrArray *names = g_ptr_array_new ();

  for (guint i = 0; i < g->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (g, i);
      if (op->kind == kind)
        g_ptr_array_add (names, op->name != NULL && *op->name != '\0' ? op->name : NULL);
    }
  return names;
}

/* Whether @names names every input or output distinctly, and not with the
 * Mirage reader's placeholders "in<k>" ("out<k>") for position k: those say
 * position (docs/format.md). */
static gboolean
all_named (const GPtrArray *names, gboolean input)
{
  gboolean placeholders = names->len > 0;

  for (guint k = 0; k < names->len; k++)
    {
      const char *name = g_ptr_array_index (names, k);
      g_autofree char *positional = g_strdup_printf ("%s%u", input ? "in" : "out", k);

      if (name == NULL)
        return FALSE;
      placeholders = placeholders && strcmp (name, positional) == 0;
      for (guint j = 0; j < k; j++)
        if (strcmp (name, g_ptr_array_index (names, j)) == 0)
          return FALSE;
    }
  return !placeholders;
}

static char *
joined (const GPtrArray *names)
{
  GString *s = g_string_new (NULL);

  for (guint k = 0; k < names->len; k++)
    g_string_append_printf (s, "%s%s", k ? ", " : "", (const char *) g_ptr_array_index (names, k));
  return g_string_free (s, FALSE);
}

/* "input 1 (W)": the reference's position and the name. (transfer full) */
static char *
label (gboolean input, guint k, const char *name)
{
  const char *what = input ? "input" : "output";

  if (name != NULL)
    return g_strdup_printf ("%s %u (%s)", what, k, name);
  return g_strdup_printf ("%s %u", what, k);
}

/* Whether tensor @r of @ref and @c of @cand have one shape and dtype; the
 * error names them by @label. */
static gboolean
same_tensor (const PrismGraph *ref, guint r, const PrismGraph *cand, guint c, const char *label,
             GError **error)
{
  const PrismTensor *x = prism_graph_tensor (ref, r);
  const PrismTensor *y = prism_graph_tensor (cand, c);
  gboolean same = x->ndims == y->ndims;

  for (guint d = 0; same && d < x->ndims; d++)
    same = prism_dim_equal (x->dims[d], y->dims[d]);
  if (!same)
    {
      g_autofree char *want = prism_tensor_shape_to_string (ref, x);
      g_autofree char *got = prism_tensor_shape_to_string (cand, y);
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_INVALID_GRAPH,
                   "%s of the candidate is %s, the reference's is %s", label, got, want);
      return FALSE;
    }
  if (x->dtype != y->dtype)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_INVALID_GRAPH,
                   "%s of the candidate is %s, the reference's is %s", label,
                   prism_dtype_to_string (y->dtype), prism_dtype_to_string (x->dtype));
      return FALSE;
    }
  return TRUE;
}

/* Fills @map (candidate index → reference index) for one side of the
 * interface. */
static gboolean
bind (const PrismGraph *ref, const PrismGraph *cand, gboolean input, gboolean *by_name, guint *map,
      GError **error)
{
  PrismOpKind kind = input ? PRISM_OP_INPUT : PRISM_OP_OUTPUT;
  const char *what = input ? "inputs" : "outputs";
  g_autoptr(GPtrArray) rn = io_names (ref, kind);
  g_autoptr(GPtrArray) cn = io_names (cand, kind);
  g_autoptr(GArray) rt = input ? prism_graph_get_inputs (ref) : prism_graph_get_outputs (ref);
  g_autoptr(GArray) ct = input ? prism_graph_get_inputs (cand) : prism_graph_get_outputs (cand);

  if (rn->len != cn->len)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_INVALID_GRAPH, "the candidate has %u %s, the reference %u",
                   cn->len, what, rn->len);
      return FALSE;
    }
  *by_name = all_named (rn, input) && all_named (cn, input);
  for (guint k = 0; k < cn->len; k++)
    {
      map[k] = k;
      if (!*by_name)
        continue;
      for (map[k] = 0; map[k] < rn->len; map[k]++)
        if (strcmp (g_ptr_array_index (cn, k), g_ptr_array_index (rn, map[k])) == 0)
          break;
      if (map[k] == rn->len)
        {
          g_autofree char *names = joined (rn);
          g_set_error (error, PRISM_ERROR, PRISM_ERROR_INVALID_GRAPH,
                       "%s %s of the candidate is not one of the reference's %s (%s)",
                       input ? "input" : "output", (const char *) g_ptr_array_index (cn, k), what, names);
          return FALSE;
        }
    }
  for (guint k = 0; k < cn->len; k++)
    {
      const char *name = g_ptr_array_index (rn, map[k]);
      g_autofree char *l = label (input, map[k], name != NULL ? name : g_ptr_array_index (cn, k));

      if (!same_tensor (ref, g_array_index (rt, guint, map[k]), cand, g_array_index (ct, guint, k), l,
                        error))
        return FALSE;
    }
  return TRUE;
}

PrismIoBinding *
prism_io_binding_new (const PrismGraph *reference, const PrismGraph *candidate, GError **error)
{
  g_autoptr(PrismIoBinding) b = g_new0 (PrismIoBinding, 1);
  g_autoptr(GArray) ci = NULL, co = NULL;
  gboolean in_by_name = FALSE, out_by_name = FALSE;

  g_return_val_if_fail (reference != NULL && candidate != NULL, NULL);
  ci = prism_graph_get_inputs (candidate);
  co = prism_graph_get_outputs (candidate);
  b->n_inputs = ci->len;
  b->n_outputs = co->len;
  b->inputs = g_new0 (guint, MAX (ci->len, 1));
  b->outputs = g_new0 (guint, MAX (co->len, 1));
  if (!bind (reference, candidate, TRUE, &in_by_name, b->inputs, error) ||
      !bind (reference, candidate, FALSE, &out_by_name, b->outputs, error))
    return NULL;
  b->by_name = in_by_name || out_by_name;
  return g_steal_pointer (&b);
}

void
prism_io_binding_free (PrismIoBinding *binding)
{
  if (binding == NULL)
    return;
  g_free (binding->inputs);
  g_free (binding->outputs);
  g_free (binding);
}
