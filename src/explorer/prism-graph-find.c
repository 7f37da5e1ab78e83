/* prism-graph-find.c — the ops of a graph that a search text names
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "prism-graph-find"

#include "config.h"

#include <string.h>
#include <glib/gi18n.h>

#include "prism-graph-find.h"

/*
 * Auxiliary methods
 */

static gboolean
text_contains (const char *text,
               const char *folded_query)
{
  g_autofree char *folded = NULL;

  if (text == NULL)
    return FALSE;
  folded = g_utf8_casefold (text, -1);
  return strstr (folded, folded_query) != NULL;
}

/* "t3" names tensor 3 exactly: "t1" must not find t12. */
static gboolean
names_tensor (const char  *folded_query,
              char         prefix,
              const guint *ids,
              guint        n_ids)
{
  guint64 id;
  char *end;

  if (folded_query[0] != prefix || !g_ascii_isdigit (folded_query[1]))
    return FALSE;
  id = g_ascii_strtoull (folded_query + 1, &end, 10);
  if (*end != '\0')
    return FALSE;
  for (guint i = 0; i < n_ids; i++)
    if (ids[i] == id)
      return TRUE;
  return FALSE;
}

/* The name of the program input or output a kernel-level tensor is. */
static gboolean
tensor_name_contains (const PrismGraph *graph,
                      guint             id,
                      const char       *folded_query)
{
  const PrismTensor *tensor = prism_graph_tensor (graph, id);

  if (tensor->producer >= 0 && prism_graph_op (graph, tensor->producer)->kind == PRISM_OP_INPUT &&
      text_contains (prism_graph_op (graph, tensor->producer)->name, folded_query))
    return TRUE;
  for (guint i = 0; i < graph->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (graph, i);

      if (op->kind == PRISM_OP_OUTPUT && op->inputs[0] == id && text_contains (op->name, folded_query))
        return TRUE;
    }
  return FALSE;
}

static gboolean
kernel_op_matches (const PrismGraph *graph,
                   guint             index,
                   guint             number,
                   const char       *folded_query)
{
  const PrismOp *op = prism_graph_op (graph, index);

  if (op->kind == PRISM_OP_KERNEL)
    {
      /* Translators: the title of a custom kernel in the graph, numbered from 1. */
      g_autofree char *title = g_strdup_printf (_("kernel %u"), number);

      return text_contains (title, folded_query) ||
             names_tensor (folded_query, 't', op->outputs, op->n_outputs);
    }
  if (text_contains (prism_op_kind_to_string (op->kind), folded_query) ||
      text_contains (op->name, folded_query))
    return TRUE;
  /* An input is found by the tensor it makes, an output by the one it reads. */
  if (op->kind == PRISM_OP_OUTPUT)
    return names_tensor (folded_query, 't', op->inputs, op->n_inputs);
  return names_tensor (folded_query, 't', op->outputs, op->n_outputs);
}

static gboolean
block_op_matches (const PrismGraph *graph,
                  const PrismOp    *kernel_op,
                  const PrismOp    *op,
                  const char       *folded_query)
{
  if (text_contains (prism_op_kind_to_string (op->kind), folded_query))
    return TRUE;
  if (op->kind == PRISM_OP_OUTPUT)
    return names_tensor (folded_query, 's', op->inputs, op->n_inputs);
  if (names_tensor (folded_query, 's', op->outputs, op->n_outputs))
    return TRUE;
  /* A tile is found by the name of the tensor it is a tile of. */
  return op->kind == PRISM_OP_INPUT && op->attrs.input_index < kernel_op->n_inputs &&
         tensor_name_contains (graph, kernel_op->inputs[op->attrs.input_index], folded_query);
}

/*
 * Public API
 */

GArray *
prism_graph_find_ops (const PrismGraph *graph,
                      const char       *query)
{
  GArray *matches = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autofree char *stripped = NULL;
  g_autofree char *folded = NULL;
  guint number = 0;

  g_return_val_if_fail (graph != NULL, matches);

  stripped = g_strstrip (g_strdup (query != NULL ? query : ""));
  if (*stripped == '\0')
    return matches;
  folded = g_utf8_casefold (stripped, -1);

  for (guint i = 0; i < graph->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (graph, i);

      if (op->kind == PRISM_OP_KERNEL)
        number++;
      if (kernel_op_matches (graph, i, number, folded))
        {
          guint id = prism_op_id_make (-1, i);

          g_array_append_val (matches, id);
        }
      if (op->kind != PRISM_OP_KERNEL || op->body == NULL)
        continue;
      for (guint j = 0; j < op->body->ops->len; j++)
        if (block_op_matches (graph, op, prism_graph_op (op->body, j), folded))
          {
            guint id = prism_op_id_make (i, j);

            g_array_append_val (matches, id);
          }
    }
  return matches;
}
