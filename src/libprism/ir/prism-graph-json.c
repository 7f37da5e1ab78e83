/* prism-graph-json.c — reading and writing the prism-graph JSON format
 *
 * The reader trusts nothing in the document.  It checks the text before
 * json-glib sees it (size, nesting, integer literals that json-glib would
 * silently wrap), reads every field with its expected type, orders the ops
 * topologically (files may list them in any order), and rebuilds the graph
 * through the builders of prism-graph.h so that every shape rule of the IR
 * is checked again.  Every error names the op (its position in the file's
 * "ops" list and its kind) and the field.
 *
 * The writer emits one canonical text for a graph: fixed key order, tensor
 * ids equal to tensor indices, containers that fit in a line written on one
 * line.  Reading that text rebuilds the same graph, and writing it again
 * gives the same text.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>

#include "prism-atomic-file.h"
#include "prism-error.h"
#include "prism-graph-json.h"
#include "prism-json-reader.h"

#define MAX_ID_LENGTH  256
#define MAX_DIM_TEXT   256
#define MAX_NAME_LENGTH 64            /* variables, inputs and outputs */
#define MAX_PROGRAM_NAME_LENGTH 128   /* the document's "name" */
#define MAX_DESCRIPTION_LENGTH 1024   /* the document's "description" */
#define INLINE_WIDTH   120

/* ------------------------------------------------------------------------ */
/* Errors */

G_GNUC_PRINTF (5, 6) static gboolean
fail (GError **error, PrismErrorCode code, const char *where, const char *field,
      const char *fmt, ...)
{
  va_list args;
  g_autofree char *msg = NULL;
  g_autoptr(GString) s = g_string_new (NULL);

  va_start (args, fmt);
  msg = g_strdup_vprintf (fmt, args);
  va_end (args);
  if (where != NULL && where[0] != '\0')
    g_string_append_printf (s, "%s: ", where);
  if (field != NULL)
    g_string_append_printf (s, "field “%s”: ", field);
  g_string_append (s, msg);
  g_set_error_literal (error, PRISM_ERROR, code, s->str);
  return FALSE;
}

/* The builders prefix their messages with their own op numbering ("op 3
 * (matmul): …"), which differs from the file's when the file lists ops out
 * of order; replace it with the file's. */
static gboolean
fail_builder (GError **error, GError *inner, const char *where)
{
  const char *msg = inner->message;
  const char *p = msg;

  if (g_str_has_prefix (p, "block "))
    p += strlen ("block ");
  if (g_str_has_prefix (p, "op "))
    {
      const char *close = strstr (p, "): ");
      if (close != NULL)
        msg = close + strlen ("): ");
    }
  g_set_error (error, PRISM_ERROR, inner->code, "%s: %s", where, msg);
  return FALSE;
}

/* ------------------------------------------------------------------------ */
/* Typed access to JSON nodes */

static const char *
node_kind (JsonNode *node)
{
  switch (JSON_NODE_TYPE (node))
    {
    case JSON_NODE_OBJECT:
      return "an object";
    case JSON_NODE_ARRAY:
      return "an array";
    case JSON_NODE_NULL:
      return "null";
    case JSON_NODE_VALUE:
    default:
      break;
    }
  switch (json_node_get_value_type (node))
    {
    case G_TYPE_INT64:
      return "an integer";
    case G_TYPE_DOUBLE:
      return "a number with a fraction";
    case G_TYPE_BOOLEAN:
      return "a boolean";
    case G_TYPE_STRING:
      return "a string";
    default:
      return "a value";
    }
}

static gboolean
node_is_int (JsonNode *node)
{
  return JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_INT64;
}

static gboolean
node_is_string (JsonNode *node)
{
  return JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING;
}

static gboolean
read_int (JsonNode *node, const char *where, const char *field, gint64 min, gint64 max,
          gint64 *out, GError **error)
{
  gint64 v;

  if (!node_is_int (node))
    return fail (error, PRISM_ERROR_PARSE, where, field, "expected an integer, got %s",
                 node_kind (node));
  v = json_node_get_int (node);
  if (v < min || v > max)
    return fail (error, PRISM_ERROR_INVALID_GRAPH, where, field,
                 "%" G_GINT64_FORMAT " is out of range (%" G_GINT64_FORMAT " to %" G_GINT64_FORMAT ")",
                 v, min, max);
  *out = v;
  return TRUE;
}

static gboolean
read_string (JsonNode *node, const char *where, const char *field, const char **out,
             GError **error)
{
  if (!node_is_string (node))
    return fail (error, PRISM_ERROR_PARSE, where, field, "expected a string, got %s",
                 node_kind (node));
  *out = json_node_get_string (node);
  return TRUE;
}

/* A name shown to people: bounded, and no control character (which would
 * reach the terminal that prints it); a description may break lines. */
static gboolean
read_label (JsonNode *node, const char *where, const char *field, glong max_chars,
            gboolean breaks, const char **out, GError **error)
{
  const char *s = NULL;

  if (!read_string (node, where, field, &s, error))
    return FALSE;
  if (g_utf8_strlen (s, -1) > max_chars)
    return fail (error, PRISM_ERROR_LIMIT, where, field, "longer than %ld characters", max_chars);
  for (const char *p = s; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar u = g_utf8_get_char (p);
      if (breaks && (u == '\n' || u == '\t'))
        continue;
      if (u < 0x20 || (u >= 0x7F && u <= 0x9F))
        return fail (error, PRISM_ERROR_PARSE, where, field,
                     "holds the control character U+%04X; names are plain text", u);
    }
  *out = s;
  return TRUE;
}

static gboolean
read_bool (JsonNode *node, const char *where, const char *field, gboolean *out, GError **error)
{
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
    return fail (error, PRISM_ERROR_PARSE, where, field, "expected true or false, got %s",
                 node_kind (node));
  *out = json_node_get_boolean (node);
  return TRUE;
}

static gboolean
read_array (JsonNode *node, const char *where, const char *field, JsonArray **out,
            GError **error)
{
  if (!JSON_NODE_HOLDS_ARRAY (node))
    return fail (error, PRISM_ERROR_PARSE, where, field, "expected an array, got %s",
                 node_kind (node));
  *out = json_node_get_array (node);
  return TRUE;
}

static gboolean
read_object (JsonNode *node, const char *where, const char *field, JsonObject **out,
             GError **error)
{
  if (!JSON_NODE_HOLDS_OBJECT (node))
    return fail (error, PRISM_ERROR_PARSE, where, field, "expected an object, got %s",
                 node_kind (node));
  *out = json_node_get_object (node);
  return TRUE;
}

/* Fails on the first member of @obj that is not in @allowed.  A member that
 * some other kind of op takes gets a more helpful message than a typo. */
static gboolean
check_members (JsonObject *obj, const char * const *allowed, const char * const *known_elsewhere,
               const char *kind, const char *where, const char *prefix, GError **error)
{
  g_autoptr(GList) members = json_object_get_members (obj);

  for (GList *l = members; l != NULL; l = l->next)
    {
      const char *name = l->data;
      g_autofree char *field = g_strconcat (prefix ? prefix : "", name, NULL);

      if (g_strv_contains (allowed, name))
        continue;
      if (known_elsewhere != NULL && g_strv_contains (known_elsewhere, name))
        return fail (error, PRISM_ERROR_PARSE, where, field, "does not apply to “%s” ops", kind);
      return fail (error, PRISM_ERROR_PARSE, where, NULL, "unknown field “%s”", field);
    }
  return TRUE;
}

static JsonNode *
require_member (JsonObject *obj, const char *name, const char *where, const char *prefix,
                GError **error)
{
  JsonNode *node = json_object_get_member (obj, name);

  if (node == NULL)
    {
      g_autofree char *field = g_strconcat (prefix ? prefix : "", name, NULL);
      fail (error, PRISM_ERROR_PARSE, where, NULL, "missing field “%s”", field);
    }
  return node;
}

static gboolean
node_depth_ok (JsonNode *node, guint depth)
{
  if (depth > PRISM_GRAPH_JSON_MAX_DEPTH)
    return FALSE;
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      g_autoptr(GList) values = json_object_get_values (json_node_get_object (node));
      for (GList *l = values; l != NULL; l = l->next)
        if (!node_depth_ok (l->data, depth + 1))
          return FALSE;
    }
  else if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);
      for (guint i = 0; i < json_array_get_length (array); i++)
        if (!node_depth_ok (json_array_get_element (array, i), depth + 1))
          return FALSE;
    }
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* Dimensions */

/* Counts terms (leaves) up to @budget, so a huge shared expression is never
 * walked: an expression of n terms has 2n − 1 nodes. */
static gboolean
dim_small_enough (const PrismDim *d, guint *budget)
{
  if (d->a == NULL)
    {
      if (*budget == 0)
        return FALSE;
      (*budget)--;
      return TRUE;
    }
  return dim_small_enough (d->a, budget) && (d->b == NULL || dim_small_enough (d->b, budget));
}

static gboolean
dim_constants_in_range (const PrismDim *d)
{
  if (d->kind == PRISM_DIM_CONST)
    return d->value >= 1 && d->value <= PRISM_DIM_MAX;
  if (d->kind == PRISM_DIM_VAR)
    return TRUE;
  return dim_constants_in_range (d->a) && dim_constants_in_range (d->b);
}

static gboolean
dim_vars_known (const PrismDim *d, guint n_vars, guint *unknown)
{
  if (d->kind == PRISM_DIM_VAR)
    {
      if (d->value >= 0 && d->value < (gint64) n_vars)
        return TRUE;
      *unknown = (guint) d->value;
      return FALSE;
    }
  if (d->kind == PRISM_DIM_CONST)
    return TRUE;
  return dim_vars_known (d->a, n_vars, unknown) && dim_vars_known (d->b, n_vars, unknown);
}

/* Every dim the reader accepts, read or inferred, is positive, at most
 * PRISM_DIM_MAX (for a symbolic one: every constant in it, and its value
 * with all variables at 1), uses declared variables and is small.
 * Returns: (nullable): what is wrong with @d */
static char *
dim_problem (const PrismGraph *top, const PrismDim *d, PrismErrorCode *code)
{
  guint budget = PRISM_DIM_MAX_TERMS;
  guint unknown = 0;
  g_autofree char *text = NULL;

  *code = PRISM_ERROR_INVALID_GRAPH;
  if (!dim_small_enough (d, &budget))
    {
      *code = PRISM_ERROR_LIMIT;
      return g_strdup_printf ("dimension expression has more than %d terms", PRISM_DIM_MAX_TERMS);
    }
  if (!dim_vars_known (d, top->var_names->len - 1, &unknown))
    return g_strdup_printf ("variable v%u is not declared in “variables”", unknown);
  if (prism_dim_is_const (d))
    {
      if (d->value <= 0)
        return g_strdup_printf ("must be positive (got %" G_GINT64_FORMAT ")", d->value);
      if (d->value > PRISM_DIM_MAX)
        return g_strdup_printf ("%" G_GINT64_FORMAT " is larger than the limit %" G_GINT64_FORMAT,
                                d->value, PRISM_DIM_MAX);
      return NULL;
    }
  if (dim_constants_in_range (d) && prism_dim_eval_float (d, 1.0) <= (double) PRISM_DIM_MAX)
    return NULL;
  text = prism_dim_to_string (d, prism_graph_var_names (top));
  return g_strdup_printf ("“%s” is larger than the limit %" G_GINT64_FORMAT, text, PRISM_DIM_MAX);
}

/* An integer, or a dimension expression over the declared variables. */
static PrismDim *
read_dim (const PrismGraph *top, JsonNode *node, const char *where, const char *field,
          GError **error)
{
  g_autoptr(PrismDim) d = NULL;

  if (node_is_int (node))
    d = prism_dim_const (json_node_get_int (node));
  else if (node_is_string (node))
    {
      const char *text = json_node_get_string (node);
      g_autoptr(GError) local = NULL;

      if (strlen (text) > MAX_DIM_TEXT)
        {
          fail (error, PRISM_ERROR_LIMIT, where, field,
                "dimension expression longer than %d characters", MAX_DIM_TEXT);
          return NULL;
        }
      d = prism_dim_parse (text, prism_graph_var_names (top), &local);
      if (d == NULL)
        {
          fail (error, local->code == PRISM_ERROR_LIMIT ? PRISM_ERROR_LIMIT : PRISM_ERROR_INVALID_GRAPH,
                where, field, "%s", local->message);
          return NULL;
        }
    }
  else
    {
      fail (error, PRISM_ERROR_PARSE, where, field,
            "expected an integer or a dimension expression (a string), got %s", node_kind (node));
      return NULL;
    }
  {
    PrismErrorCode code;
    g_autofree char *problem = dim_problem (top, d, &code);
    if (problem != NULL)
      {
        fail (error, code, where, field, "%s", problem);
        return NULL;
      }
  }
  return g_steal_pointer (&d);
}

static char *
dims_to_string (const PrismGraph *top, guint ndims, PrismDim * const *dims)
{
  PrismTensor t = { .ndims = ndims };

  memcpy (t.dims, dims, ndims * sizeof (PrismDim *));
  return prism_tensor_shape_to_string (top, &t);
}

/* ------------------------------------------------------------------------ */
/* Reading */

/* One op of the file, as read before anything is built. */
typedef struct
{
  guint index;                 /* position in the file's "ops" list */
  PrismOpKind kind;
  JsonObject *obj;             /* borrowed from the document */
  char *label;                 /* "op 3 (matmul)" or "block op 1 (exp)" */
  char *where;                 /* the label with the enclosing kernel's, for messages */
  const char *name;            /* kernel INPUT/OUTPUT: borrowed */
  guint n_inputs;
  char *inputs[PRISM_MAX_OP_INPUTS];    /* tensor id keys */
  guint producers[PRISM_MAX_OP_INPUTS]; /* index of the op producing each input */
  guint n_outputs;
  char *outputs[PRISM_MAX_OP_OUTPUTS];  /* tensor id keys */
  /* Declared shape and dtype per output, where the file gives them. */
  guint decl_ndims[PRISM_MAX_OP_OUTPUTS];
  PrismDim *decl_dims[PRISM_MAX_OP_OUTPUTS][PRISM_MAX_DIMS];
  gboolean has_dtype[PRISM_MAX_OP_OUTPUTS];
  PrismDtype decl_dtype[PRISM_MAX_OP_OUTPUTS];
  PrismOpAttrs attrs;
  guint n_perm;                /* TRANSPOSE: entries of "perm" */
} ParsedOp;

static void
parsed_op_free (gpointer data)
{
  ParsedOp *op = data;

  g_free (op->label);
  g_free (op->where);
  for (guint i = 0; i < op->n_inputs; i++)
    g_free (op->inputs[i]);
  for (guint o = 0; o < op->n_outputs; o++)
    {
      g_free (op->outputs[o]);
      for (guint d = 0; d < op->decl_ndims[o]; d++)
        prism_dim_unref (op->decl_dims[o][d]);
    }
  g_free (op);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ParsedOp, parsed_op_free)

/* One graph level being read: the kernel graph, or one custom kernel's body. */
typedef struct
{
  PrismGraph *top;          /* the kernel graph (variables) */
  PrismGraph *g;            /* the graph built at this level */
  const char *owner;        /* NULL, or the kernel op whose body this is: "op 4 (kernel)" */
  const char *prefix;       /* "" or "op 4 (kernel): " */
  GPtrArray *ops;           /* ParsedOp, in file order */
  GHashTable *producer;     /* id key → ParsedOp index · PRISM_MAX_OP_OUTPUTS + slot + 1 */
  GHashTable *built;        /* id key → tensor id + 1 */
  /* BLOCK level: the tensors of the kernel op whose body this is */
  const PrismGraph *parent;
  const guint *kernel_inputs;
  guint n_kernel_inputs;
} Level;

static gboolean
level_is_block (const Level *lv)
{
  return lv->g->level == PRISM_LEVEL_BLOCK;
}

/* Tensor ids are strings or integers; keys keep the two apart ("s…" / "i…"). */
static char *
read_id (JsonNode *node, const char *where, const char *field, GError **error)
{
  if (node_is_string (node))
    {
      const char *s = json_node_get_string (node);
      gsize len = strlen (s);

      if (len == 0 || len > MAX_ID_LENGTH)
        {
          fail (error, PRISM_ERROR_PARSE, where, field,
                "a tensor id must have 1 to %d characters", MAX_ID_LENGTH);
          return NULL;
        }
      return g_strconcat ("s", s, NULL);
    }
  if (node_is_int (node))
    return g_strdup_printf ("i%" G_GINT64_FORMAT, json_node_get_int (node));
  fail (error, PRISM_ERROR_PARSE, where, field,
        "expected a tensor id (a string or an integer), got %s", node_kind (node));
  return NULL;
}

static char *
id_display (const char *key)
{
  if (key[0] == 's')
    return g_strdup_printf ("“%s”", key + 1);
  return g_strdup (key + 1);
}

static gboolean
read_shape (const Level *lv, JsonNode *node, const char *where, const char *field,
            guint *ndims, PrismDim **dims, GError **error)
{
  JsonArray *array = NULL;
  guint n;

  if (!read_array (node, where, field, &array, error))
    return FALSE;
  n = json_array_get_length (array);
  if (n < 1 || n > PRISM_MAX_DIMS)
    return fail (error, PRISM_ERROR_INVALID_GRAPH, where, field,
                 "rank %u is not between 1 and %d", n, PRISM_MAX_DIMS);
  for (guint d = 0; d < n; d++)
    {
      g_autofree char *f = g_strdup_printf ("%s[%u]", field, d);
      dims[d] = read_dim (lv->top, json_array_get_element (array, d), where, f, error);
      if (dims[d] == NULL)
        {
          for (guint k = 0; k < d; k++)
            g_clear_pointer (&dims[k], prism_dim_unref);
          return FALSE;
        }
    }
  *ndims = n;
  return TRUE;
}

static gboolean
read_dtype (JsonNode *node, const char *where, const char *field, PrismDtype *out, GError **error)
{
  const char *name;

  if (!read_string (node, where, field, &name, error))
    return FALSE;
  if (!prism_dtype_from_string (name, out))
    return fail (error, PRISM_ERROR_PARSE, where, field,
                 "unknown dtype “%s” (expected f16, bf16 or f32)", name);
  return TRUE;
}

/* An "outputs" entry: an id, or {"id", "shape"?, "dtype"?}. */
static gboolean
read_output_entry (Level *lv, ParsedOp *op, guint slot, JsonNode *node, GError **error)
{
  static const char * const fields[] = { "id", "shape", "dtype", NULL };
  g_autofree char *field = g_strdup_printf ("outputs[%u]", slot);
  g_autofree char *prefix = g_strconcat (field, ".", NULL);
  gboolean needs_decl = (op->kind == PRISM_OP_INPUT && !level_is_block (lv)) ||
                        op->kind == PRISM_OP_CONSTANT;
  JsonObject *obj = NULL;
  JsonNode *member;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      if (needs_decl)
        return fail (error, PRISM_ERROR_PARSE, op->where, field,
                     "a graph input or constant needs {\"id\", \"shape\", \"dtype\"}, got %s",
                     node_kind (node));
      op->outputs[slot] = read_id (node, op->where, field, error);
      return op->outputs[slot] != NULL;
    }
  obj = json_node_get_object (node);
  if (!check_members (obj, fields, NULL, NULL, op->where, prefix, error))
    return FALSE;
  if ((member = require_member (obj, "id", op->where, prefix, error)) == NULL)
    return FALSE;
  {
    g_autofree char *f = g_strconcat (prefix, "id", NULL);
    if ((op->outputs[slot] = read_id (member, op->where, f, error)) == NULL)
      return FALSE;
  }
  if ((member = json_object_get_member (obj, "shape")) != NULL)
    {
      g_autofree char *f = g_strconcat (prefix, "shape", NULL);
      if (!read_shape (lv, member, op->where, f, &op->decl_ndims[slot], op->decl_dims[slot], error))
        return FALSE;
    }
  else if (needs_decl)
    return fail (error, PRISM_ERROR_PARSE, op->where, NULL, "missing field “%sshape”", prefix);
  if ((member = json_object_get_member (obj, "dtype")) != NULL)
    {
      g_autofree char *f = g_strconcat (prefix, "dtype", NULL);
      if (!read_dtype (member, op->where, f, &op->decl_dtype[slot], error))
        return FALSE;
      op->has_dtype[slot] = TRUE;
    }
  else if (needs_decl)
    return fail (error, PRISM_ERROR_PARSE, op->where, NULL, "missing field “%sdtype”", prefix);
  return TRUE;
}

static gboolean
read_map (const Level *lv, const ParsedOp *op, const char *field, int *map, GError **error)
{
  JsonNode *node = require_member (op->obj, field, op->where, NULL, error);
  JsonArray *array = NULL;
  guint n;

  if (node == NULL || !read_array (node, op->where, field, &array, error))
    return FALSE;
  n = json_array_get_length (array);
  if (n != lv->g->grid_ndims)
    return fail (error, PRISM_ERROR_INVALID_GRAPH, op->where, field,
                 "has %u entr%s but the grid has %u ax%s", n, n == 1 ? "y" : "ies",
                 lv->g->grid_ndims, lv->g->grid_ndims == 1 ? "is" : "es");
  for (guint p = 0; p < PRISM_MAX_GRID_DIMS; p++)
    map[p] = PRISM_MAP_REPLICATE;
  for (guint p = 0; p < n; p++)
    {
      g_autofree char *f = g_strdup_printf ("%s[%u]", field, p);
      JsonNode *e = json_array_get_element (array, p);
      gint64 v;

      if (node_is_string (e) && g_str_equal (json_node_get_string (e), "?"))
        {
          if (!lv->g->symbolic_maps)
            return fail (error, PRISM_ERROR_INVALID_GRAPH, op->where, f,
                         "“?” (an entry still to be chosen) needs \"symbolic_maps\": true");
          map[p] = PRISM_MAP_UNKNOWN;
          continue;
        }
      if (!node_is_int (e))
        return fail (error, PRISM_ERROR_PARSE, op->where, f,
                     "expected a data dim, -1 or \"?\", got %s", node_kind (e));
      if (!read_int (e, op->where, f, -1, G_MAXINT32, &v, error))
        return FALSE;
      map[p] = (int) v;
    }
  return TRUE;
}

static gboolean
read_fmap (const Level *lv, const ParsedOp *op, int *fmap, GError **error)
{
  JsonNode *node = require_member (op->obj, "fmap", op->where, NULL, error);
  gint64 v;

  if (node == NULL)
    return FALSE;
  if (node_is_string (node) && g_str_equal (json_node_get_string (node), "?"))
    {
      if (!lv->g->symbolic_maps)
        return fail (error, PRISM_ERROR_INVALID_GRAPH, op->where, "fmap",
                     "“?” (an entry still to be chosen) needs \"symbolic_maps\": true");
      *fmap = PRISM_MAP_UNKNOWN;
      return TRUE;
    }
  if (!node_is_int (node))
    return fail (error, PRISM_ERROR_PARSE, op->where, "fmap",
                 "expected a data dim, -1 or \"?\", got %s", node_kind (node));
  if (!read_int (node, op->where, "fmap", -1, G_MAXINT32, &v, error))
    return FALSE;
  *fmap = (int) v;
  return TRUE;
}

/* A finite number (integer or not): a constant's value. */
static gboolean
read_number (JsonNode *node, const char *where, const char *field, double *out, GError **error)
{
  double v;

  if (node_is_int (node))
    v = (double) json_node_get_int (node);
  else if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_DOUBLE)
    v = json_node_get_double (node);
  else
    return fail (error, PRISM_ERROR_PARSE, where, field, "expected a number, got %s",
                 node_kind (node));
  /* JSON has no infinities, but 1e999 reads as one. */
  if (!isfinite (v))
    return fail (error, PRISM_ERROR_INVALID_GRAPH, where, field, "must be a finite number");
  *out = v;
  return TRUE;
}

/* "eps" of rms_norm: a finite number ≥ 0 (a negative one could take the
 * square root of a negative mean). */
static gboolean
read_eps (JsonNode *node, const char *where, double *out, GError **error)
{
  if (!read_number (node, where, "eps", out, error))
    return FALSE;
  if (*out < 0.0)
    return fail (error, PRISM_ERROR_INVALID_GRAPH, where, "eps", "%g is negative", *out);
  return TRUE;
}

/* "perm": a permutation of the operand's dims; that it is one, for the
 * operand's rank, is checked when the op is built. */
static gboolean
read_perm (ParsedOp *op, GError **error)
{
  JsonNode *node = require_member (op->obj, "perm", op->where, NULL, error);
  JsonArray *array = NULL;
  guint n;

  if (node == NULL || !read_array (node, op->where, "perm", &array, error))
    return FALSE;
  n = json_array_get_length (array);
  if (n < 1 || n > PRISM_MAX_DIMS)
    return fail (error, PRISM_ERROR_INVALID_GRAPH, op->where, "perm",
                 "has %u entries; a permutation of 1 to %d dims is needed", n, PRISM_MAX_DIMS);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *f = g_strdup_printf ("perm[%u]", i);
      gint64 v;

      if (!read_int (json_array_get_element (array, i), op->where, f, 0, PRISM_MAX_DIMS - 1, &v,
                     error))
        return FALSE;
      op->attrs.perm[i] = (int) v;
    }
  op->n_perm = n;
  return TRUE;
}

/* The fields an op of @kind may have at a level; "op" is always allowed. */
static void
op_fields (PrismOpKind kind, gboolean block, const char **out)
{
  guint n = 0;

  out[n++] = "op";
  if (kind == PRISM_OP_INPUT)
    {
      if (block)
        {
          out[n++] = "input";
          out[n++] = "imap";
          out[n++] = "fmap";
        }
      else
        out[n++] = "name";
      out[n++] = "outputs";
    }
  else if (kind == PRISM_OP_OUTPUT)
    {
      out[n++] = "inputs";
      out[n++] = block ? "omap" : "name";
    }
  else if (kind == PRISM_OP_CONSTANT)
    {
      out[n++] = "value";
      out[n++] = "outputs";
    }
  else
    {
      out[n++] = "inputs";
      out[n++] = "outputs";
      if (kind == PRISM_OP_KERNEL)
        out[n++] = "block";
      if (prism_op_kind_is_reduction (kind) || kind == PRISM_OP_CONCAT)
        out[n++] = "dim";
      if (kind == PRISM_OP_TRANSPOSE)
        out[n++] = "perm";
      if (kind == PRISM_OP_RMS_NORM)
        {
          out[n++] = "norm_dims";
          out[n++] = "eps";
        }
      if (kind == PRISM_OP_ACCUM_SUM_TODIMX)
        out[n++] = "dimx";
    }
  out[n] = NULL;
}

static const char * const all_op_fields[] = {
  "op", "name", "inputs", "outputs", "block", "dim", "norm_dims", "dimx", "input", "imap",
  "fmap", "omap", "perm", "value", NULL
};

/* Reads everything of one op except a kernel's body. */
static ParsedOp *
read_op (Level *lv, guint index, JsonNode *node, GError **error)
{
  g_autoptr(ParsedOp) op = g_new0 (ParsedOp, 1);
  gboolean block = level_is_block (lv);
  const char *fields[16];
  const char *kind_name;
  JsonNode *member;
  gint64 v;
  int arity;

  op->index = index;
  prism_op_attrs_init (&op->attrs);
  op->label = g_strdup_printf ("%s %u", block ? "block op" : "op", index);
  op->where = g_strconcat (lv->prefix, op->label, NULL);

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      fail (error, PRISM_ERROR_PARSE, op->where, NULL, "expected an object, got %s",
            node_kind (node));
      return NULL;
    }
  op->obj = json_node_get_object (node);
  if ((member = require_member (op->obj, "op", op->where, NULL, error)) == NULL ||
      !read_string (member, op->where, "op", &kind_name, error))
    return NULL;
  if (!prism_op_kind_from_string (kind_name, &op->kind))
    {
      fail (error, PRISM_ERROR_PARSE, op->where, "op", "unknown op “%s”", kind_name);
      return NULL;
    }
  g_free (op->label);
  g_free (op->where);
  op->label = g_strdup_printf ("%s %u (%s)", block ? "block op" : "op", index, kind_name);
  op->where = g_strconcat (lv->prefix, op->label, NULL);
  if (!prism_op_kind_at_level (op->kind, lv->g->level))
    {
      fail (error, PRISM_ERROR_INVALID_GRAPH, op->where, "op", "not allowed in a %s graph",
            block ? "block" : "kernel");
      return NULL;
    }
  op_fields (op->kind, block, fields);
  if (!check_members (op->obj, fields, all_op_fields, kind_name, op->where, NULL, error))
    return NULL;

  /* inputs */
  arity = prism_op_kind_arity (op->kind);
  if (arity != 0)
    {
      JsonArray *array = NULL;
      guint n;

      if ((member = require_member (op->obj, "inputs", op->where, NULL, error)) == NULL ||
          !read_array (member, op->where, "inputs", &array, error))
        return NULL;
      n = json_array_get_length (array);
      if (arity > 0 && n != (guint) arity)
        {
          fail (error, PRISM_ERROR_INVALID_GRAPH, op->where, "inputs",
                "takes %d input%s, got %u", arity, arity == 1 ? "" : "s", n);
          return NULL;
        }
      if (n > PRISM_MAX_OP_INPUTS)
        {
          fail (error, PRISM_ERROR_INVALID_GRAPH, op->where, "inputs",
                "too many inputs (%u > %d)", n, PRISM_MAX_OP_INPUTS);
          return NULL;
        }
      for (guint i = 0; i < n; i++)
        {
          g_autofree char *f = g_strdup_printf ("inputs[%u]", i);
          if ((op->inputs[i] = read_id (json_array_get_element (array, i), op->where, f, error)) == NULL)
            return NULL;
          op->n_inputs = i + 1;
        }
    }

  /* outputs */
  if (op->kind != PRISM_OP_OUTPUT)
    {
      JsonArray *array = NULL;
      guint n;

      if ((member = require_member (op->obj, "outputs", op->where, NULL, error)) == NULL ||
          !read_array (member, op->where, "outputs", &array, error))
        return NULL;
      n = json_array_get_length (array);
      if (op->kind != PRISM_OP_KERNEL && n != 1)
        {
          fail (error, PRISM_ERROR_INVALID_GRAPH, op->where, "outputs",
                "the op produces 1 tensor, got %u id%s", n, n == 1 ? "" : "s");
          return NULL;
        }
      if (n < 1 || n > PRISM_MAX_OP_OUTPUTS)
        {
          fail (error, PRISM_ERROR_INVALID_GRAPH, op->where, "outputs",
                "a kernel has 1 to %d outputs, got %u", PRISM_MAX_OP_OUTPUTS, n);
          return NULL;
        }
      for (guint o = 0; o < n; o++)
        {
          op->n_outputs = o + 1;
          if (!read_output_entry (lv, op, o, json_array_get_element (array, o), error))
            return NULL;
        }
    }

  /* attributes */
  if ((member = json_object_get_member (op->obj, "name")) != NULL &&
      !read_label (member, op->where, "name", MAX_NAME_LENGTH, FALSE, &op->name, error))
    return NULL;
  if (op->kind == PRISM_OP_TRANSPOSE && !read_perm (op, error))
    return NULL;
  if (op->kind == PRISM_OP_CONSTANT)
    {
      if ((member = require_member (op->obj, "value", op->where, NULL, error)) == NULL ||
          !read_number (member, op->where, "value", &op->attrs.value, error))
        return NULL;
    }
  if (prism_op_kind_is_reduction (op->kind) || op->kind == PRISM_OP_CONCAT)
    {
      if ((member = require_member (op->obj, "dim", op->where, NULL, error)) == NULL ||
          !read_int (member, op->where, "dim", 0, PRISM_MAX_DIMS - 1, &v, error))
        return NULL;
      op->attrs.dim = (int) v;
    }
  if (op->kind == PRISM_OP_RMS_NORM && (member = json_object_get_member (op->obj, "norm_dims")) != NULL)
    {
      if (!read_int (member, op->where, "norm_dims", 1, PRISM_MAX_DIMS, &v, error))
        return NULL;
      op->attrs.norm_dims = (guint) v;
    }
  if (op->kind == PRISM_OP_RMS_NORM && (member = json_object_get_member (op->obj, "eps")) != NULL &&
      !read_eps (member, op->where, &op->attrs.eps, error))
    return NULL;
  if (op->kind == PRISM_OP_ACCUM_SUM_TODIMX)
    {
      if ((member = require_member (op->obj, "dimx", op->where, NULL, error)) == NULL ||
          !read_int (member, op->where, "dimx", 1, PRISM_DIM_MAX, &v, error))
        return NULL;
      op->attrs.dimx = (guint) v;
    }
  if (block && op->kind == PRISM_OP_INPUT)
    {
      if ((member = require_member (op->obj, "input", op->where, NULL, error)) == NULL ||
          !read_int (member, op->where, "input", 0, G_MAXINT32, &v, error))
        return NULL;
      if (v >= lv->n_kernel_inputs)
        {
          fail (error, PRISM_ERROR_INVALID_GRAPH, op->where, "input",
                "the kernel has no input %" G_GINT64_FORMAT " (it has %u)", v, lv->n_kernel_inputs);
          return NULL;
        }
      op->attrs.input_index = (guint) v;
      if (!read_map (lv, op, "imap", op->attrs.imap, error) ||
          !read_fmap (lv, op, &op->attrs.fmap, error))
        return NULL;
    }
  if (block && op->kind == PRISM_OP_OUTPUT &&
      !read_map (lv, op, "omap", op->attrs.omap, error))
    return NULL;
  if (op->kind == PRISM_OP_KERNEL &&
      require_member (op->obj, "block", op->where, NULL, error) == NULL)
    return NULL;

  return g_steal_pointer (&op);
}

static gboolean
register_outputs (Level *lv, ParsedOp *op, GError **error)
{
  for (guint o = 0; o < op->n_outputs; o++)
    {
      gpointer prev = g_hash_table_lookup (lv->producer, op->outputs[o]);

      if (prev != NULL)
        {
          ParsedOp *other = g_ptr_array_index (lv->ops, (GPOINTER_TO_UINT (prev) - 1) /
                                                        PRISM_MAX_OP_OUTPUTS);
          g_autofree char *id = id_display (op->outputs[o]);
          g_autofree char *f = g_strdup_printf ("outputs[%u]", o);
          return fail (error, PRISM_ERROR_INVALID_GRAPH, op->where, f,
                       "tensor %s is already produced by %s", id, other->label);
        }
      g_hash_table_insert (lv->producer, op->outputs[o],
                           GUINT_TO_POINTER (op->index * PRISM_MAX_OP_OUTPUTS + o + 1));
    }
  return TRUE;
}

static gboolean
resolve_inputs (Level *lv, GError **error)
{
  for (guint i = 0; i < lv->ops->len; i++)
    {
      ParsedOp *op = g_ptr_array_index (lv->ops, i);

      for (guint k = 0; k < op->n_inputs; k++)
        {
          gpointer p = g_hash_table_lookup (lv->producer, op->inputs[k]);

          if (p == NULL)
            {
              g_autofree char *id = id_display (op->inputs[k]);
              g_autofree char *f = g_strdup_printf ("inputs[%u]", k);
              return fail (error, PRISM_ERROR_INVALID_GRAPH, op->where, f,
                           "tensor %s is not produced by any %sop", id,
                           level_is_block (lv) ? "block " : "");
            }
          op->producers[k] = (GPOINTER_TO_UINT (p) - 1) / PRISM_MAX_OP_OUTPUTS;
        }
    }
  return TRUE;
}

typedef struct
{
  guint op;
  guint next;
} Frame;

/* Depth-first post-order from the ops in file order: a file that lists its
 * ops in a valid order keeps that order (so tensor ids round-trip). */
static GArray *
sort_ops (Level *lv, GError **error)
{
  guint n = lv->ops->len;
  g_autofree guint8 *state = g_new0 (guint8, n); /* 0 new, 1 on the stack, 2 done */
  g_autoptr(GArray) stack = g_array_new (FALSE, FALSE, sizeof (Frame));
  g_autoptr(GArray) order = g_array_sized_new (FALSE, FALSE, sizeof (guint), n);

  for (guint root = 0; root < n; root++)
    {
      if (state[root] != 0)
        continue;
      state[root] = 1;
      g_array_append_val (stack, ((Frame) { root, 0 }));
      while (stack->len > 0)
        {
          Frame *f = &g_array_index (stack, Frame, stack->len - 1);
          ParsedOp *op = g_ptr_array_index (lv->ops, f->op);
          guint dep;

          if (f->next == op->n_inputs)
            {
              state[f->op] = 2;
              g_array_append_val (order, f->op);
              g_array_set_size (stack, stack->len - 1);
              continue;
            }
          dep = op->producers[f->next++];
          if (state[dep] == 0)
            {
              state[dep] = 1;
              g_array_append_val (stack, ((Frame) { dep, 0 }));
            }
          else if (state[dep] == 1)
            {
              /* stack[k + 1] produces an input of stack[k]: data flows from
               * dep to the top of the stack and back down to dep. */
              g_autoptr(GString) cycle = g_string_new (NULL);
              guint k = stack->len - 1;

              while (g_array_index (stack, Frame, k).op != dep)
                k--;
              g_string_append (cycle, ((ParsedOp *) g_ptr_array_index (lv->ops, dep))->label);
              for (guint j = stack->len; j-- > k;)
                {
                  ParsedOp *o = g_ptr_array_index (lv->ops, g_array_index (stack, Frame, j).op);
                  g_string_append_printf (cycle, " → %s", o->label);
                }
              g_set_error (error, PRISM_ERROR, PRISM_ERROR_INVALID_GRAPH,
                           "%sthe %sops form a cycle: %s", lv->prefix,
                           level_is_block (lv) ? "block " : "", cycle->str);
              return NULL;
            }
        }
    }
  return g_steal_pointer (&order);
}

static gboolean read_level (Level *lv, JsonArray *array, GError **error);

static PrismGraph *
read_block (Level *lv, ParsedOp *op, const guint *inputs, GError **error)
{
  static const char * const fields[] = {
    "grid", "block_threads", "forloop", "symbolic_maps", "ops", NULL
  };
  PrismDim *grid[PRISM_MAX_GRID_DIMS] = { NULL, };
  g_autoptr(PrismDim) forloop = NULL;
  g_autoptr(PrismGraph) body = NULL;
  g_autofree char *prefix = NULL;
  gboolean symbolic_maps = FALSE;
  gint64 threads = 128;
  JsonObject *obj = NULL;
  JsonArray *array = NULL;
  JsonNode *member;
  guint n_grid;
  Level sub;
  gboolean ok;

  if (!read_object (json_object_get_member (op->obj, "block"), op->where, "block", &obj, error) ||
      !check_members (obj, fields, NULL, NULL, op->where, "block.", error))
    return NULL;
  if ((member = require_member (obj, "grid", op->where, "block.", error)) == NULL ||
      !read_array (member, op->where, "block.grid", &array, error))
    return NULL;
  n_grid = json_array_get_length (array);
  if (n_grid < 1 || n_grid > PRISM_MAX_GRID_DIMS)
    {
      fail (error, PRISM_ERROR_INVALID_GRAPH, op->where, "block.grid",
            "has %u entries; a grid has 1 to %d axes", n_grid, PRISM_MAX_GRID_DIMS);
      return NULL;
    }
  if ((member = json_object_get_member (obj, "block_threads")) != NULL)
    {
      if (!read_int (member, op->where, "block.block_threads", 32, 1024, &threads, error))
        return NULL;
      if (threads % 32 != 0)
        {
          fail (error, PRISM_ERROR_INVALID_GRAPH, op->where, "block.block_threads",
                "%" G_GINT64_FORMAT " is not a multiple of 32", threads);
          return NULL;
        }
    }
  if ((member = json_object_get_member (obj, "forloop")) != NULL)
    {
      if ((forloop = read_dim (lv->top, member, op->where, "block.forloop", error)) == NULL)
        return NULL;
    }
  else
    forloop = prism_dim_const (1);
  if ((member = json_object_get_member (obj, "symbolic_maps")) != NULL &&
      !read_bool (member, op->where, "block.symbolic_maps", &symbolic_maps, error))
    return NULL;
  if ((member = require_member (obj, "ops", op->where, "block.", error)) == NULL)
    return NULL;

  ok = TRUE;
  for (guint p = 0; p < n_grid && ok; p++)
    {
      g_autofree char *f = g_strdup_printf ("block.grid[%u]", p);
      grid[p] = read_dim (lv->top, json_array_get_element (array, p), op->where, f, error);
      ok = grid[p] != NULL;
    }
  if (ok)
    {
      body = prism_block_graph_new (n_grid, grid, (guint) threads, forloop);
      prism_block_graph_set_symbolic_maps (body, symbolic_maps);
    }
  for (guint p = 0; p < n_grid; p++)
    prism_dim_unref (grid[p]);
  if (!ok)
    return NULL;

  if (!read_array (member, op->where, "block.ops", &array, error))
    return NULL;
  prefix = g_strconcat (op->where, ": ", NULL);
  sub = (Level) {
    .top = lv->top,
    .g = body,
    .owner = op->where,
    .prefix = prefix,
    .parent = lv->g,
    .kernel_inputs = inputs,
    .n_kernel_inputs = op->n_inputs,
  };
  if (!read_level (&sub, array, error))
    return NULL;
  return g_steal_pointer (&body);
}

static gboolean
check_outputs (Level *lv, ParsedOp *op, int op_index, GError **error)
{
  const PrismOp *built = prism_graph_op (lv->g, op_index);

  for (guint o = 0; o < built->n_outputs; o++)
    {
      const PrismTensor *t = prism_graph_tensor (lv->g, built->outputs[o]);

      for (guint d = 0; d < t->ndims; d++)
        {
          PrismErrorCode code;
          g_autofree char *problem = dim_problem (lv->top, t->dims[d], &code);
          if (problem != NULL)
            return fail (error, code, op->where, NULL, "output %u dim %u: %s", o, d, problem);
        }
      if (op->decl_ndims[o] > 0)
        {
          gboolean same = op->decl_ndims[o] == t->ndims;
          for (guint d = 0; same && d < t->ndims; d++)
            same = prism_dim_equal (op->decl_dims[o][d], t->dims[d]);
          if (!same)
            {
              g_autofree char *f = g_strdup_printf ("outputs[%u].shape", o);
              g_autofree char *declared = dims_to_string (lv->top, op->decl_ndims[o],
                                                          op->decl_dims[o]);
              g_autofree char *inferred = prism_tensor_shape_to_string (lv->top, t);
              return fail (error, PRISM_ERROR_INVALID_GRAPH, op->where, f,
                           "declared %s but the op produces %s", declared, inferred);
            }
        }
      if (op->has_dtype[o] && op->decl_dtype[o] != t->dtype)
        {
          g_autofree char *f = g_strdup_printf ("outputs[%u].dtype", o);
          return fail (error, PRISM_ERROR_INVALID_GRAPH, op->where, f,
                       "declared %s but the op produces %s",
                       prism_dtype_to_string (op->decl_dtype[o]), prism_dtype_to_string (t->dtype));
        }
      g_hash_table_insert (lv->built, op->outputs[o], GUINT_TO_POINTER (built->outputs[o] + 1));
    }
  return TRUE;
}

static gboolean
build_op (Level *lv, ParsedOp *op, GError **error)
{
  g_autoptr(GError) local = NULL;
  guint in[PRISM_MAX_OP_INPUTS];
  int r = -1;

  for (guint k = 0; k < op->n_inputs; k++)
    in[k] = GPOINTER_TO_UINT (g_hash_table_lookup (lv->built, op->inputs[k])) - 1;

  switch ((int) op->kind)
    {
    case PRISM_OP_INPUT:
      if (level_is_block (lv))
        {
          const PrismTensor *src = prism_graph_tensor (lv->parent,
                                                       lv->kernel_inputs[op->attrs.input_index]);
          if (prism_block_graph_add_input (lv->g, op->attrs.input_index, src->ndims, src->dims,
                                           src->dtype, op->attrs.imap, op->attrs.fmap, &local) >= 0)
            r = (int) lv->g->ops->len - 1;
        }
      else
        {
          gint64 shape[PRISM_MAX_DIMS];
          for (guint d = 0; d < op->decl_ndims[0]; d++)
            {
              if (!prism_dim_is_const (op->decl_dims[0][d]))
                {
                  g_autofree char *f = g_strdup_printf ("outputs[0].shape[%u]", d);
                  return fail (error, PRISM_ERROR_UNSUPPORTED, op->where, f,
                               "graph inputs must have concrete sizes");
                }
              shape[d] = op->decl_dims[0][d]->value;
            }
          if (prism_graph_add_input (lv->g, op->name, op->decl_ndims[0], shape,
                                     op->decl_dtype[0], &local) >= 0)
            r = (int) lv->g->ops->len - 1;
        }
      break;
    case PRISM_OP_CONSTANT:
      for (guint d = 0; d < op->decl_ndims[0]; d++)
        if (!prism_dim_is_const (op->decl_dims[0][d]) || op->decl_dims[0][d]->value != 1)
          {
            g_autofree char *f = g_strdup_printf ("outputs[0].shape[%u]", d);
            return fail (error, PRISM_ERROR_INVALID_GRAPH, op->where, f,
                         "every dim of a constant is 1 (it broadcasts)");
          }
      if (prism_graph_add_constant (lv->g, op->attrs.value, op->decl_ndims[0], op->decl_dtype[0],
                                    &local) >= 0)
        r = (int) lv->g->ops->len - 1;
      break;
    case PRISM_OP_TRANSPOSE:
      {
        guint rank = prism_graph_tensor (lv->g, in[0])->ndims;
        if (op->n_perm != rank)
          return fail (error, PRISM_ERROR_INVALID_GRAPH, op->where, "perm",
                       "has %u entr%s but the operand has rank %u", op->n_perm,
                       op->n_perm == 1 ? "y" : "ies", rank);
        r = prism_graph_add_op (lv->g, op->kind, in, op->n_inputs, &op->attrs, &local);
      }
      break;
    case PRISM_OP_OUTPUT:
      if (level_is_block (lv))
        r = prism_block_graph_add_output (lv->g, in[0], op->attrs.omap, &local);
      else
        r = prism_graph_add_output (lv->g, in[0], op->name, &local);
      break;
    case PRISM_OP_KERNEL:
      {
        g_autoptr(PrismGraph) body = read_block (lv, op, in, error);
        guint n_out = 0;

        if (body == NULL)
          return FALSE;
        for (guint i = 0; i < body->ops->len; i++)
          n_out += prism_graph_op (body, i)->kind == PRISM_OP_OUTPUT;
        if (n_out != 0 && n_out != op->n_outputs)
          return fail (error, PRISM_ERROR_INVALID_GRAPH, op->where, "outputs",
                       "lists %u tensor%s but the block has %u output op%s", op->n_outputs,
                       op->n_outputs == 1 ? "" : "s", n_out, n_out == 1 ? "" : "s");
        r = prism_graph_add_kernel (lv->g, in, op->n_inputs, body, &local);
      }
      break;
    default:
      r = prism_graph_add_op (lv->g, op->kind, in, op->n_inputs, &op->attrs, &local);
      break;
    }
  if (r < 0)
    return fail_builder (error, local, op->where);
  return check_outputs (lv, op, r, error);
}

static gboolean
read_level (Level *lv, JsonArray *array, GError **error)
{
  g_autoptr(GPtrArray) ops = g_ptr_array_new_with_free_func (parsed_op_free);
  g_autoptr(GHashTable) producer = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GHashTable) built = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GArray) order = NULL;
  guint n = json_array_get_length (array);

  if (n > PRISM_GRAPH_JSON_MAX_OPS)
    return fail (error, PRISM_ERROR_LIMIT, lv->owner, lv->owner ? "block.ops" : "ops",
                 "%u ops; at most %d are read", n, PRISM_GRAPH_JSON_MAX_OPS);
  lv->ops = ops;
  lv->producer = producer;
  lv->built = built;
  for (guint i = 0; i < n; i++)
    {
      ParsedOp *op = read_op (lv, i, json_array_get_element (array, i), error);
      if (op == NULL)
        return FALSE;
      g_ptr_array_add (ops, op);
      if (!register_outputs (lv, op, error))
        return FALSE;
    }
  if (!resolve_inputs (lv, error))
    return FALSE;
  if ((order = sort_ops (lv, error)) == NULL)
    return FALSE;
  for (guint i = 0; i < order->len; i++)
    if (!build_op (lv, g_ptr_array_index (ops, g_array_index (order, guint, i)), error))
      return FALSE;
  return TRUE;
}

static gboolean
read_variables (PrismGraph *graph, JsonNode *node, GError **error)
{
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  JsonArray *array = NULL;
  guint n;

  if (!read_array (node, NULL, "variables", &array, error))
    return FALSE;
  n = json_array_get_length (array);
  if (n > PRISM_GRAPH_JSON_MAX_VARS)
    return fail (error, PRISM_ERROR_LIMIT, NULL, "variables", "%u variables; at most %d are read",
                 n, PRISM_GRAPH_JSON_MAX_VARS);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *f = g_strdup_printf ("variables[%u]", i);
      const char *name;
      gboolean ok;

      if (!read_string (json_array_get_element (array, i), NULL, f, &name, error))
        return FALSE;
      ok = name[0] != '\0' && strlen (name) <= MAX_NAME_LENGTH &&
           (g_ascii_isalpha (name[0]) || name[0] == '_');
      for (const char *p = name; ok && *p; p++)
        ok = g_ascii_isalnum (*p) || *p == '_';
      if (!ok)
        return fail (error, PRISM_ERROR_INVALID_GRAPH, NULL, f,
                     "“%s” is not a name (letters, digits and “_”, at most %d, not starting with a digit)",
                     name, MAX_NAME_LENGTH);
      if (!g_hash_table_add (seen, (gpointer) name))
        return fail (error, PRISM_ERROR_INVALID_GRAPH, NULL, f, "“%s” is declared twice", name);
      prism_graph_add_var (graph, name);
    }
  return TRUE;
}

PrismGraph *
prism_graph_from_json (JsonNode *root, JsonNode **provenance, GError **error)
{
  static const char * const fields[] = {
    "format", "version", "name", "description", "variables", "ops", "provenance", NULL
  };
  g_autoptr(PrismGraph) graph = NULL;
  const char *name = NULL, *description = NULL;
  JsonObject *obj = NULL;
  JsonNode *member;
  JsonArray *ops = NULL;
  gint64 version;
  Level lv;

  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  if (provenance != NULL)
    *provenance = NULL;
  if (root == NULL)
    {
      fail (error, PRISM_ERROR_PARSE, NULL, NULL, "the document is empty");
      return NULL;
    }
  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      fail (error, PRISM_ERROR_PARSE, NULL, NULL,
            "the document is %s, not a prism-graph object", node_kind (root));
      return NULL;
    }
  obj = json_node_get_object (root);

  /* Format and version first: a newer file fails here, not on a new field. */
  if ((member = json_object_get_member (obj, "format")) == NULL)
    {
      fail (error, PRISM_ERROR_VERSION, NULL, NULL,
            "missing field “format” (expected \"%s\")", PRISM_GRAPH_FORMAT);
      return NULL;
    }
  if (!node_is_string (member) || !g_str_equal (json_node_get_string (member), PRISM_GRAPH_FORMAT))
    {
      if (node_is_string (member))
        fail (error, PRISM_ERROR_VERSION, NULL, "format", "“%s” is not \"%s\"",
              json_node_get_string (member), PRISM_GRAPH_FORMAT);
      else
        fail (error, PRISM_ERROR_VERSION, NULL, "format", "expected \"%s\", got %s",
              PRISM_GRAPH_FORMAT, node_kind (member));
      return NULL;
    }
  if ((member = json_object_get_member (obj, "version")) == NULL)
    {
      fail (error, PRISM_ERROR_VERSION, NULL, NULL, "missing field “version”");
      return NULL;
    }
  if (!node_is_int (member))
    {
      fail (error, PRISM_ERROR_VERSION, NULL, "version", "expected an integer, got %s",
            node_kind (member));
      return NULL;
    }
  version = json_node_get_int (member);
  if (version != PRISM_GRAPH_FORMAT_VERSION)
    {
      fail (error, PRISM_ERROR_VERSION, NULL, "version",
            "version %" G_GINT64_FORMAT " is not supported (this program reads version %d)",
            version, PRISM_GRAPH_FORMAT_VERSION);
      return NULL;
    }

  if (!check_members (obj, fields, NULL, NULL, NULL, NULL, error))
    return NULL;
  if ((member = json_object_get_member (obj, "name")) != NULL &&
      !read_label (member, NULL, "name", MAX_PROGRAM_NAME_LENGTH, FALSE, &name, error))
    return NULL;
  if ((member = json_object_get_member (obj, "description")) != NULL &&
      !read_label (member, NULL, "description", MAX_DESCRIPTION_LENGTH, TRUE, &description,
                   error))
    return NULL;
  if ((member = json_object_get_member (obj, "provenance")) != NULL)
    {
      JsonObject *unused;
      if (!read_object (member, NULL, "provenance", &unused, error))
        return NULL;
      if (!node_depth_ok (member, 1))
        {
          fail (error, PRISM_ERROR_LIMIT, NULL, "provenance", "nested deeper than %d levels",
                PRISM_GRAPH_JSON_MAX_DEPTH);
          return NULL;
        }
    }

  graph = prism_graph_new ();
  prism_graph_set_name (graph, name, description);
  if ((member = json_object_get_member (obj, "variables")) != NULL &&
      !read_variables (graph, member, error))
    return NULL;
  if ((member = require_member (obj, "ops", NULL, NULL, error)) == NULL ||
      !read_array (member, NULL, "ops", &ops, error))
    return NULL;
  lv = (Level) { .top = graph, .g = graph, .prefix = "" };
  if (!read_level (&lv, ops, error))
    return NULL;
  if (!prism_graph_validate (graph, error))
    return NULL;

  if (provenance != NULL && (member = json_object_get_member (obj, "provenance")) != NULL)
    *provenance = json_node_copy (member);
  return g_steal_pointer (&graph);
}

PrismGraph *
prism_graph_load_from_data (const char *data, gssize length, JsonNode **provenance,
                            GError **error)
{
  g_autoptr(JsonNode) root = NULL;
  gsize len = length < 0 ? strlen (data) : (gsize) length;

  if (provenance != NULL)
    *provenance = NULL;
  /* json-glib is lenient and recursive: the strict checker sees the text first. */
  if (!prism_json_check_text (data, len, prism_json_limits_for (PRISM_JSON_GRAPH), error))
    return NULL;
  /* Another format (a results file given for a program) is told apart before
   * json-glib builds a tree twenty times the text: the same error, from a
   * document of its "format" and "version" alone. */
  {
    PrismJsonSpan format, version;
    g_autoptr(JsonNode) value = NULL;

    if (prism_json_find_member (data, len, "format", &format) &&
        (value = prism_json_parse (data + format.start, format.end - format.start, NULL, NULL)) != NULL &&
        !(JSON_NODE_HOLDS_VALUE (value) && json_node_get_value_type (value) == G_TYPE_STRING &&
          g_str_equal (json_node_get_string (value), PRISM_GRAPH_FORMAT)))
      {
        g_autoptr(GString) head = g_string_new ("{\"format\": ");
        g_autoptr(JsonNode) small = NULL;

        g_string_append_len (head, data + format.start, (gssize) (format.end - format.start));
        if (prism_json_find_member (data, len, "version", &version))
          {
            g_string_append (head, ", \"version\": ");
            g_string_append_len (head, data + version.start, (gssize) (version.end - version.start));
          }
        g_string_append (head, "}");
        small = prism_json_parse (head->str, head->len, NULL, NULL);
        if (small != NULL)
          {
            g_autoptr(PrismGraph) none = prism_graph_from_json (small, NULL, error);
            g_assert (none == NULL);
            return NULL;
          }
      }
  }
  root = prism_json_parse (data, len, prism_json_limits_for (PRISM_JSON_GRAPH), error);
  if (root == NULL)
    return NULL;
  return prism_graph_from_json (root, provenance, error);
}

PrismGraph *
prism_graph_load (const char *path, JsonNode **provenance, GError **error)
{
  g_autofree char *data = NULL;
  gsize len;

  if (provenance != NULL)
    *provenance = NULL;
  /* Only a regular file of bounded size: a FIFO would block and a device
   * could be endless. */
  data = prism_json_read_file (path, PRISM_GRAPH_JSON_MAX_SIZE, &len, error);
  if (data == NULL)
    return NULL;
  return prism_graph_load_from_data (data, (gssize) len, provenance, error);
}

/* ------------------------------------------------------------------------ */
/* Writing */

/* json_node_init_object() and _array() add a reference of their own: these
 * hand ours over instead, or every object written would leak. */
static JsonNode *
take_object (JsonObject *object)
{
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  json_node_take_object (node, object);
  return node;
}

static JsonNode *
take_array (JsonArray *array)
{
  JsonNode *node = json_node_new (JSON_NODE_ARRAY);

  json_node_take_array (node, array);
  return node;
}

static JsonNode *
int_node (gint64 v)
{
  return json_node_init_int (json_node_alloc (), v);
}

static JsonNode *
dim_node (const PrismDim *d, const char * const *names)
{
  g_autofree char *text = NULL;

  if (prism_dim_is_const (d))
    return int_node (d->value);
  text = prism_dim_to_string (d, names);
  return json_node_init_string (json_node_alloc (), text);
}

static JsonNode *
map_node (const int *map, guint n)
{
  JsonArray *array = json_array_new ();

  for (guint p = 0; p < n; p++)
    {
      if (map[p] == PRISM_MAP_UNKNOWN)
        json_array_add_string_element (array, "?");
      else
        json_array_add_int_element (array, map[p]);
    }
  return take_array (array);
}

static JsonNode *
map_entry_node (int entry)
{
  if (entry == PRISM_MAP_UNKNOWN)
    return json_node_init_string (json_node_alloc (), "?");
  return int_node (entry);
}

static JsonNode *
tensor_node (const PrismGraph *g, guint id, const char * const *names)
{
  const PrismTensor *t = prism_graph_tensor (g, id);
  JsonObject *obj = json_object_new ();
  JsonArray *shape = json_array_new ();

  json_object_set_int_member (obj, "id", id);
  for (guint d = 0; d < t->ndims; d++)
    json_array_add_element (shape, dim_node (t->dims[d], names));
  json_object_set_array_member (obj, "shape", shape);
  json_object_set_string_member (obj, "dtype", prism_dtype_to_string (t->dtype));
  return take_object (obj);
}

static void
set_text_member (JsonObject *obj, const char *key, const char *text)
{
  g_autofree char *valid = g_utf8_make_valid (text, -1);

  json_object_set_string_member (obj, key, valid);
}

static JsonArray *ops_to_json (const PrismGraph *g, const char * const *names);

static JsonObject *
block_to_json (const PrismGraph *b, const char * const *names)
{
  JsonObject *obj = json_object_new ();
  JsonArray *grid = json_array_new ();

  for (guint p = 0; p < b->grid_ndims; p++)
    json_array_add_element (grid, dim_node (b->grid[p], names));
  json_object_set_array_member (obj, "grid", grid);
  json_object_set_int_member (obj, "block_threads", b->block_threads);
  json_object_set_member (obj, "forloop", dim_node (b->forloop, names));
  json_object_set_boolean_member (obj, "symbolic_maps", b->symbolic_maps);
  json_object_set_array_member (obj, "ops", ops_to_json (b, names));
  return obj;
}

static JsonArray *
ops_to_json (const PrismGraph *g, const char * const *names)
{
  gboolean block = g->level == PRISM_LEVEL_BLOCK;
  JsonArray *ops = json_array_new ();

  for (guint i = 0; i < g->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (g, i);
      JsonObject *obj = json_object_new ();

      json_object_set_string_member (obj, "op", prism_op_kind_to_string (op->kind));
      if (!block && op->name != NULL && (op->kind == PRISM_OP_INPUT || op->kind == PRISM_OP_OUTPUT))
        set_text_member (obj, "name", op->name);
      if (op->kind != PRISM_OP_INPUT && op->kind != PRISM_OP_CONSTANT)
        {
          JsonArray *inputs = json_array_new ();
          for (guint k = 0; k < op->n_inputs; k++)
            json_array_add_int_element (inputs, op->inputs[k]);
          json_object_set_array_member (obj, "inputs", inputs);
        }
      if (block && op->kind == PRISM_OP_INPUT)
        {
          json_object_set_int_member (obj, "input", op->attrs.input_index);
          json_object_set_member (obj, "imap", map_node (op->attrs.imap, g->grid_ndims));
          json_object_set_member (obj, "fmap", map_entry_node (op->attrs.fmap));
        }
      if (block && op->kind == PRISM_OP_OUTPUT)
        json_object_set_member (obj, "omap", map_node (op->attrs.omap, g->grid_ndims));
      if (prism_op_kind_is_reduction (op->kind) || op->kind == PRISM_OP_CONCAT)
        json_object_set_int_member (obj, "dim", op->attrs.dim);
      if (op->kind == PRISM_OP_CONSTANT)
        json_object_set_double_member (obj, "value", op->attrs.value);
      if (op->kind == PRISM_OP_TRANSPOSE)
        {
          JsonArray *perm = json_array_new ();
          guint nd = prism_graph_tensor (g, op->inputs[0])->ndims;
          for (guint k = 0; k < nd; k++)
            json_array_add_int_element (perm, op->attrs.perm[k]);
          json_object_set_array_member (obj, "perm", perm);
        }
      if (op->kind == PRISM_OP_RMS_NORM)
        json_object_set_int_member (obj, "norm_dims", op->attrs.norm_dims);
      /* Written only when set, so that files without it stay byte for byte. */
      if (op->kind == PRISM_OP_RMS_NORM && op->attrs.eps != 0.0)
        json_object_set_double_member (obj, "eps", op->attrs.eps);
      if (op->kind == PRISM_OP_ACCUM_SUM_TODIMX)
        json_object_set_int_member (obj, "dimx", op->attrs.dimx);
      if (op->kind != PRISM_OP_OUTPUT)
        {
          JsonArray *outputs = json_array_new ();
          for (guint o = 0; o < op->n_outputs; o++)
            json_array_add_element (outputs, tensor_node (g, op->outputs[o], names));
          json_object_set_array_member (obj, "outputs", outputs);
        }
      if (op->kind == PRISM_OP_KERNEL && op->body != NULL)
        json_object_set_object_member (obj, "block", block_to_json (op->body, names));
      json_array_add_object_element (ops, obj);
    }
  return ops;
}

JsonNode *
prism_graph_to_json (const PrismGraph *graph, JsonNode *provenance)
{
  JsonObject *obj = NULL;
  JsonArray *vars;
  const char * const *names;

  g_return_val_if_fail (graph != NULL && graph->level == PRISM_LEVEL_KERNEL, NULL);
  obj = json_object_new ();
  vars = json_array_new ();
  names = prism_graph_var_names (graph);
  json_object_set_string_member (obj, "format", PRISM_GRAPH_FORMAT);
  json_object_set_int_member (obj, "version", PRISM_GRAPH_FORMAT_VERSION);
  if (graph->name != NULL)
    set_text_member (obj, "name", graph->name);
  if (graph->description != NULL)
    set_text_member (obj, "description", graph->description);
  /* Unnamed variables print as v<index> in dims; name them so here too. */
  for (guint i = 0; names[i] != NULL; i++)
    {
      if (names[i][0] != '\0')
        json_array_add_string_element (vars, names[i]);
      else
        {
          g_autofree char *v = g_strdup_printf ("v%u", i);
          json_array_add_string_element (vars, v);
        }
    }
  json_object_set_array_member (obj, "variables", vars);
  json_object_set_array_member (obj, "ops", ops_to_json (graph, names));
  if (provenance != NULL)
    {
      if (node_depth_ok (provenance, 1))
        json_object_set_member (obj, "provenance", json_node_copy (provenance));
      else
        g_warning ("provenance nested deeper than %d levels is not saved",
                   PRISM_GRAPH_JSON_MAX_DEPTH);
    }
  return take_object (obj);
}

/* The text: two-space indentation; an array or object whose one-line form
 * has at most INLINE_WIDTH characters is written on one line (so most ops
 * take one line each, at both levels). */

static void
write_string (GString *out, const char *s)
{
  g_string_append_c (out, '"');
  for (const char *p = s; *p; p++)
    {
      guchar c = (guchar) *p;
      switch (c)
        {
        case '"':
          g_string_append (out, "\\\"");
          break;
        case '\\':
          g_string_append (out, "\\\\");
          break;
        case '\n':
          g_string_append (out, "\\n");
          break;
        case '\t':
          g_string_append (out, "\\t");
          break;
        case '\r':
          g_string_append (out, "\\r");
          break;
        default:
          if (c < 0x20)
            g_string_append_printf (out, "\\u%04x", c);
          else
            g_string_append_c (out, (char) c);
          break;
        }
    }
  g_string_append_c (out, '"');
}

static void
write_double (GString *out, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (!isfinite (v))
    {
      g_string_append (out, "null");
      return;
    }
  /* The shortest text that reads back as the same double. */
  for (int digits = 15; digits <= 17; digits++)
    {
      g_ascii_formatd (buf, sizeof buf, digits == 15 ? "%.15g" : digits == 16 ? "%.16g" : "%.17g", v);
      if (g_ascii_strtod (buf, NULL) == v)
        break;
    }
  g_string_append (out, buf);
  /* Keep it a double when read back. */
  if (strpbrk (buf, ".eE") == NULL)
    g_string_append (out, ".0");
}

static void
write_scalar (GString *out, JsonNode *node)
{
  if (JSON_NODE_HOLDS_NULL (node))
    {
      g_string_append (out, "null");
      return;
    }
  switch (json_node_get_value_type (node))
    {
    case G_TYPE_INT64:
      g_string_append_printf (out, "%" G_GINT64_FORMAT, json_node_get_int (node));
      break;
    case G_TYPE_DOUBLE:
      write_double (out, json_node_get_double (node));
      break;
    case G_TYPE_BOOLEAN:
      g_string_append (out, json_node_get_boolean (node) ? "true" : "false");
      break;
    case G_TYPE_STRING:
      {
        g_autofree char *valid = g_utf8_make_valid (json_node_get_string (node), -1);
        write_string (out, valid);
      }
      break;
    default:
      g_string_append (out, "null");
      break;
    }
}

/* Appends the one-line form; gives up (FALSE) once @out passes @limit bytes. */
static gboolean
write_compact (GString *out, JsonNode *node, gsize limit)
{
  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);
      g_string_append_c (out, '[');
      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          if (i > 0)
            g_string_append (out, ", ");
          if (!write_compact (out, json_array_get_element (array, i), limit))
            return FALSE;
        }
      g_string_append_c (out, ']');
    }
  else if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *obj = json_node_get_object (node);
      g_autoptr(GList) members = json_object_get_members (obj);
      g_string_append_c (out, '{');
      for (GList *l = members; l != NULL; l = l->next)
        {
          if (l != members)
            g_string_append (out, ", ");
          write_string (out, l->data);
          g_string_append (out, ": ");
          if (!write_compact (out, json_object_get_member (obj, l->data), limit))
            return FALSE;
        }
      g_string_append_c (out, '}');
    }
  else
    write_scalar (out, node);
  return out->len <= limit;
}

/* @expand: write a container over several lines even if it is short (the
 * document itself and "ops" lists, so that each op gets its own line). */
static void
write_node (GString *out, JsonNode *node, guint indent, gboolean expand)
{
  g_autoptr(GString) line = NULL;

  if (!JSON_NODE_HOLDS_ARRAY (node) && !JSON_NODE_HOLDS_OBJECT (node))
    {
      write_scalar (out, node);
      return;
    }
  line = g_string_new (NULL);
  if (!expand && write_compact (line, node, INLINE_WIDTH))
    {
      g_string_append_len (out, line->str, line->len);
      return;
    }
  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);
      if (json_array_get_length (array) == 0)
        {
          g_string_append (out, "[]");
          return;
        }
      g_string_append (out, "[\n");
      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          g_string_append_printf (out, "%s%*s", i > 0 ? ",\n" : "", indent + 2, "");
          write_node (out, json_array_get_element (array, i), indent + 2, FALSE);
        }
      g_string_append_printf (out, "\n%*s]", indent, "");
    }
  else
    {
      JsonObject *obj = json_node_get_object (node);
      g_autoptr(GList) members = json_object_get_members (obj);
      if (members == NULL)
        {
          g_string_append (out, "{}");
          return;
        }
      g_string_append (out, "{\n");
      for (GList *l = members; l != NULL; l = l->next)
        {
          g_string_append_printf (out, "%s%*s", l != members ? ",\n" : "", indent + 2, "");
          write_string (out, l->data);
          g_string_append (out, ": ");
          write_node (out, json_object_get_member (obj, l->data), indent + 2,
                      g_str_equal (l->data, "ops"));
        }
      g_string_append_printf (out, "\n%*s}", indent, "");
    }
}

char *
prism_graph_to_data (const PrismGraph *graph, JsonNode *provenance)
{
  g_autoptr(JsonNode) root = prism_graph_to_json (graph, provenance);
  GString *out = g_string_new (NULL);

  write_node (out, root, 0, TRUE);
  g_string_append_c (out, '\n');
  return g_string_free (out, FALSE);
}

gboolean
prism_graph_save (const PrismGraph *graph, JsonNode *provenance, const char *path,
                  GError **error)
{
  g_autofree char *data = prism_graph_to_data (graph, provenance);
  g_autoptr(GError) local = NULL;

  /* A temporary file in the same folder, renamed over @path, so a reader
   * (or a crash) sees the old file or the new one, never half. */
  if (!prism_atomic_file_write (path, data, strlen (data), &local))
    return fail (error, PRISM_ERROR_FAILED, NULL, NULL, "%s", local->message);
  return TRUE;
}
