/* prism-rewrite.c — rewrite rules as readable data
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "prism-egraph-private.h"
#include "prism-error.h"
#include "prism-rewrite.h"

typedef struct
{
  PrismCondArgKind kind;
  guint var;              /* PRISM_COND_ARG_CLASS */
  PrismSymbol symbol;
  gint64 value;
} RuleCondArg;

typedef struct
{
  char *name;
  PrismConditionFunc func;
  gpointer user_data;
  gboolean negate;
  GArray *args;           /* RuleCondArg */
} RuleCond;

struct _PrismRule
{
  char *name;
  PrismSymbol symbol;
  PrismPattern *lhs;
  PrismPattern *rhs;
  gboolean bidirectional;
  GPtrArray *var_names;   /* shared with lhs and rhs */
  PrismSymbol *var_symbols;
  GArray *conds;          /* RuleCond */
};

typedef struct
{
  char *name;
  gint n_args;
  PrismConditionFunc func;
  gpointer user_data;
  GDestroyNotify destroy;
} Condition;

struct _PrismRuleSet
{
  GPtrArray *rules;       /* PrismRule */
  GHashTable *by_name;    /* name → PrismRule (for lookups only, never iterated) */
  GArray *conditions;     /* Condition */
};

/* ------------------------------------------------------------------------ */
/* Built-in conditions */

gboolean
prism_cond_arg_equal (const PrismEgraph  *eg,
                      const PrismCondArg *a,
                      const PrismCondArg *b)
{
  gint64 v;

  if (a->kind != PRISM_COND_ARG_CLASS && b->kind == PRISM_COND_ARG_CLASS)
    {
      const PrismCondArg *t = a;
      a = b;
      b = t;
    }
  if (a->kind == PRISM_COND_ARG_CLASS)
    {
      switch (b->kind)
        {
        case PRISM_COND_ARG_CLASS:
          return prism_egraph_find (eg, a->class_id) == prism_egraph_find (eg, b->class_id);
        case PRISM_COND_ARG_SYMBOL:
          return prism_egraph_lookup_raw (eg, b->symbol, 0, 0, NULL) == prism_egraph_find (eg, a->class_id);
        case PRISM_COND_ARG_INT:
          return prism_egraph_get_const (eg, a->class_id, &v) && v == b->value;
        default:
          g_assert_not_reached ();
        }
    }
  if (a->kind != b->kind)
    return FALSE;
  return a->kind == PRISM_COND_ARG_SYMBOL ? a->symbol == b->symbol : a->value == b->value;
}

static gboolean
cond_is_distinct (const PrismEgraph *eg, const PrismCondArg *args, guint n_args, gpointer user_data)
{
  for (guint i = 0; i < n_args; i++)
    for (guint j = i + 1; j < n_args; j++)
      if (prism_cond_arg_equal (eg, &args[i], &args[j]))
        return FALSE;
  return TRUE;
}

static gboolean
cond_is_equal (const PrismEgraph *eg, const PrismCondArg *args, guint n_args, gpointer user_data)
{
  return prism_cond_arg_equal (eg, &args[0], &args[1]);
}

static gboolean
cond_is_const (const PrismEgraph *eg, const PrismCondArg *args, guint n_args, gpointer user_data)
{
  if (args[0].kind == PRISM_COND_ARG_INT)
    return TRUE;
  return args[0].kind == PRISM_COND_ARG_CLASS && prism_egraph_get_const (eg, args[0].class_id, NULL);
}

static gboolean
cond_is_symbol (const PrismEgraph *eg, const PrismCondArg *args, guint n_args, gpointer user_data)
{
  guint n;

  if (args[0].kind != PRISM_COND_ARG_CLASS)
    return args[0].kind == PRISM_COND_ARG_SYMBOL;
  n = prism_egraph_class_get_n_nodes (eg, args[0].class_id);
  for (guint i = 0; i < n; i++)
    {
      guint node = prism_egraph_class_get_node (eg, args[0].class_id, i);

      if (!prism_egraph_node_is_int (eg, node) && prism_egraph_node_get_n_children (eg, node) == 0)
        return TRUE;
    }
  return FALSE;
}

/* ------------------------------------------------------------------------ */
/* Rules and sets */

static void
rule_free (PrismRule *rule)
{
  if (rule == NULL)
    return;
  for (guint i = 0; i < rule->conds->len; i++)
    {
      RuleCond *c = &g_array_index (rule->conds, RuleCond, i);
      g_free (c->name);
      g_array_unref (c->args);
    }
  g_array_unref (rule->conds);
  g_free (rule->name);
  prism_pattern_free (rule->lhs);
  prism_pattern_free (rule->rhs);
  g_ptr_array_unref (rule->var_names);
  g_free (rule->var_symbols);
  g_free (rule);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrismRule, rule_free)

PrismRuleSet *
prism_rule_set_new (void)
{
  PrismRuleSet *set = g_new0 (PrismRuleSet, 1);

  set->rules = g_ptr_array_new_with_free_func ((GDestroyNotify) rule_free);
  set->by_name = g_hash_table_new (g_str_hash, g_str_equal);
  set->conditions = g_array_new (FALSE, TRUE, sizeof (Condition));
  prism_rule_set_register_condition (set, "is_distinct", -1, cond_is_distinct, NULL, NULL);
  prism_rule_set_register_condition (set, "is_equal", 2, cond_is_equal, NULL, NULL);
  prism_rule_set_register_condition (set, "is_const", 1, cond_is_const, NULL, NULL);
  prism_rule_set_register_condition (set, "is_symbol", 1, cond_is_symbol, NULL, NULL);
  return set;
}

void
prism_rule_set_free (PrismRuleSet *set)
{
  if (set == NULL)
    return;
  g_ptr_array_unref (set->rules);
  g_hash_table_unref (set->by_name);
  for (guint i = 0; i < set->conditions->len; i++)
    {
      Condition *c = &g_array_index (set->conditions, Condition, i);

      if (c->destroy != NULL)
        c->destroy (c->user_data);
      g_free (c->name);
    }
  g_array_unref (set->conditions);
  g_free (set);
}

static Condition *
find_condition (const PrismRuleSet *set, const char *name)
{
  for (guint i = 0; i < set->conditions->len; i++)
    {
      Condition *c = &g_array_index (set->conditions, Condition, i);

      if (strcmp (c->name, name) == 0)
        return c;
    }
  return NULL;
}

void
prism_rule_set_register_condition (PrismRuleSet       *set,
                                   const char         *name,
                                   gint                n_args,
                                   PrismConditionFunc  func,
                                   gpointer            user_data,
                                   GDestroyNotify      destroy)
{
  Condition *c;

  g_return_if_fail (set != NULL && name != NULL && func != NULL);
  c = find_condition (set, name);
  if (c == NULL)
    {
      Condition fresh = { g_strdup (name), 0, NULL, NULL, NULL };

      g_array_append_val (set->conditions, fresh);
      c = &g_array_index (set->conditions, Condition, set->conditions->len - 1);
    }
  else if (c->destroy != NULL)
    {
      /* Rules parsed earlier keep the old function; its data must stay
       * alive as long as they do, so it is released with the set. */
      Condition old = *c;

      old.name = g_strdup ("");
      g_array_append_val (set->conditions, old);
      c = find_condition (set, name);
    }
  c->n_args = n_args;
  c->func = func;
  c->user_data = user_data;
  c->destroy = destroy;
}

/* ------------------------------------------------------------------------ */
/* Parsing */

static gboolean
valid_name (const char *s, gsize n)
{
  if (n == 0)
    return FALSE;
  for (gsize i = 0; i < n; i++)
    if (!g_ascii_isalnum (s[i]) && s[i] != '_' && s[i] != '-' && s[i] != '.')
      return FALSE;
  return TRUE;
}

static char *
condition_names (const PrismRuleSet *set)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < set->conditions->len; i++)
    {
      const Condition *c = &g_array_index (set->conditions, Condition, i);

      if (*c->name == '\0')
        continue;
      if (out->len > 0)
        g_string_append (out, ", ");
      g_string_append (out, c->name);
    }
  return g_string_free (out, FALSE);
}

/* Checks that every variable numbered so far occurs in @pattern. */
static gboolean
check_vars_bound (PrismLexer         *lx,
                  gsize               offset,
                  const PrismPattern *pattern,
                  GPtrArray          *var_names,
                  const char         *what,
                  const char         *side,
                  GError            **error)
{
  for (guint v = 0; v < var_names->len; v++)
    if (!prism_pattern_has_var (pattern, v))
      {
        prism_lexer_error (lx, offset, error, "variable ?%s %s is not bound by the %s",
                           (const char *) g_ptr_array_index (var_names, v), what, side);
        return FALSE;
      }
  return TRUE;
}

static gboolean
parse_condition (const PrismRuleSet *set,
                 PrismLexer         *lx,
                 PrismRule          *rule,
                 GError            **error)
{
  RuleCond cond = { NULL, NULL, NULL, FALSE, NULL };
  g_autofree char *tok = NULL;
  const char *name;
  const Condition *c;
  gsize name_offset = lx->start;
  g_autoptr(GArray) args = g_array_new (FALSE, FALSE, sizeof (RuleCondArg));

  if (lx->kind != PRISM_TOK_ATOM)
    {
      g_autofree char *what = prism_lexer_describe (lx);
      prism_lexer_error (lx, lx->start, error, "expected a condition, found %s", what);
      return FALSE;
    }
  tok = prism_lexer_token (lx);
  name = tok;
  if (*name == '!')
    {
      cond.negate = TRUE;
      name++;
    }
  c = find_condition (set, name);
  if (c == NULL || *name == '\0')
    {
      g_autofree char *known = condition_names (set);
      prism_lexer_error (lx, name_offset, error, "unknown condition '%s' (known: %s)", name, known);
      return FALSE;
    }
  prism_lexer_next (lx);
  if (lx->kind != PRISM_TOK_LPAREN)
    {
      g_autofree char *what = prism_lexer_describe (lx);
      prism_lexer_error (lx, lx->start, error, "expected '(' after condition '%s', found %s", name, what);
      return FALSE;
    }
  prism_lexer_next (lx);
  while (lx->kind != PRISM_TOK_RPAREN)
    {
      RuleCondArg arg = { PRISM_COND_ARG_INT, 0, PRISM_SYMBOL_NONE, 0 };
      PrismAtomKind kind;

      if (args->len > 0)
        {
          if (lx->kind != PRISM_TOK_COMMA)
            {
              g_autofree char *what = prism_lexer_describe (lx);
              prism_lexer_error (lx, lx->start, error, "expected ',' or ')' in condition '%s', found %s",
                                 name, what);
              return FALSE;
            }
          prism_lexer_next (lx);
        }
      if (lx->kind != PRISM_TOK_ATOM)
        {
          g_autofree char *what = prism_lexer_describe (lx);
          prism_lexer_error (lx, lx->start, error, "expected an argument of condition '%s', found %s",
                             name, what);
          return FALSE;
        }
      if (!prism_lexer_classify (lx, &kind, &arg.value, error))
        return FALSE;
      if (kind == PRISM_ATOM_VAR)
        {
          const char *vname = lx->text + lx->start + 1;
          gsize vlen = lx->tok_len - 1;
          gboolean found = FALSE;

          for (guint v = 0; v < rule->var_names->len && !found; v++)
            {
              const char *known = g_ptr_array_index (rule->var_names, v);
              if (strlen (known) == vlen && memcmp (known, vname, vlen) == 0)
                {
                  arg.var = v;
                  found = TRUE;
                }
            }
          if (!found)
            {
              g_autofree char *vtok = prism_lexer_token (lx);
              prism_lexer_error (lx, lx->start, error,
                                 "variable %s of condition '%s' is not bound by the left-hand side",
                                 vtok, name);
              return FALSE;
            }
          arg.kind = PRISM_COND_ARG_CLASS;
        }
      else if (kind == PRISM_ATOM_SYMBOL)
        {
          g_autofree char *stok = prism_lexer_token (lx);
          arg.kind = PRISM_COND_ARG_SYMBOL;
          arg.symbol = prism_symbol_intern (stok);
        }
      g_array_append_val (args, arg);
      prism_lexer_next (lx);
      if (lx->kind == PRISM_TOK_END)
        {
          prism_lexer_error (lx, lx->start, error, "condition '%s' is missing its ')'", name);
          return FALSE;
        }
    }
  prism_lexer_next (lx);
  if (c->n_args >= 0 && (gint) args->len != c->n_args)
    {
      prism_lexer_error (lx, name_offset, error, "condition '%s' takes %d argument%s, not %u",
                         name, c->n_args, c->n_args == 1 ? "" : "s", args->len);
      return FALSE;
    }
  cond.name = g_strdup (name);
  cond.func = c->func;
  cond.user_data = c->user_data;
  cond.args = g_steal_pointer (&args);
  g_array_append_val (rule->conds, cond);
  return TRUE;
}

static PrismRule *
parse_rule_line (const PrismRuleSet *set,
                 const char         *line,
                 gsize               len,
                 const char         *source,
                 guint               line_no,
                 GHashTable         *names_in_text,
                 GError            **error)
{
  g_autoptr(PrismRule) rule = g_new0 (PrismRule, 1);
  g_autofree char *context = NULL;
  const char *colon = memchr (line, ':', len);
  gsize name_start = 0, name_end, lhs_offset, rhs_offset;
  PrismLexer lx;

  prism_lexer_init (&lx, line, len);
  lx.source = source;
  lx.line = line_no;
  rule->conds = g_array_new (FALSE, FALSE, sizeof (RuleCond));
  rule->var_names = g_ptr_array_new_with_free_func (g_free);

  while (name_start < len && g_ascii_isspace (line[name_start]))
    name_start++;
  if (colon == NULL)
    {
      prism_lexer_error (&lx, name_start, error, "expected 'name: lhs => rhs' (no ':' after a rule name)");
      return NULL;
    }
  name_end = colon - line;
  while (name_end > name_start && g_ascii_isspace (line[name_end - 1]))
    name_end--;
  rule->name = g_strndup (line + name_start, name_end - name_start);
  if (!valid_name (rule->name, strlen (rule->name)))
    {
      prism_lexer_error (&lx, name_start, error,
                         "'%s' is not a valid rule name (letters, digits, '_', '-', '.')", rule->name);
      return NULL;
    }
  context = g_strdup_printf ("rule '%s'", rule->name);
  lx.context = context;
  if (strcmp (rule->name, "constant-fold") == 0)
    {
      prism_lexer_error (&lx, name_start, error, "the name is reserved for constant folding");
      return NULL;
    }
  if (g_hash_table_contains (set->by_name, rule->name)
      || g_hash_table_contains (names_in_text, rule->name))
    {
      prism_lexer_error (&lx, name_start, error, "a rule with this name already exists");
      return NULL;
    }
  rule->symbol = prism_symbol_intern (rule->name);

  lx.pos = (gsize) (colon - line) + 1;
  prism_lexer_next (&lx);
  if (lx.kind == PRISM_TOK_END)
    {
      prism_lexer_error (&lx, lx.start, error, "the rule is empty after ':'");
      return NULL;
    }
  lhs_offset = lx.start;
  rule->lhs = prism_pattern_parse_lexer (&lx, rule->var_names, error);
  if (rule->lhs == NULL)
    return NULL;
  if (prism_lexer_atom_is (&lx, "<=>"))
    rule->bidirectional = TRUE;
  else if (!prism_lexer_atom_is (&lx, "=>"))
    {
      g_autofree char *what = prism_lexer_describe (&lx);
      prism_lexer_error (&lx, lx.start, error, "expected '=>' or '<=>' after the left-hand side, found %s", what);
      return NULL;
    }
  prism_lexer_next (&lx);
  rhs_offset = lx.start;
  rule->rhs = prism_pattern_parse_lexer (&lx, rule->var_names, error);
  if (rule->rhs == NULL)
    return NULL;

  if (prism_pattern_is_var (rule->lhs))
    {
      prism_lexer_error (&lx, lhs_offset, error, "the left-hand side must not be a bare variable");
      return NULL;
    }
  if (rule->bidirectional && prism_pattern_is_var (rule->rhs))
    {
      prism_lexer_error (&lx, rhs_offset, error,
                         "with '<=>' the right-hand side must not be a bare variable either");
      return NULL;
    }
  if (!check_vars_bound (&lx, rhs_offset, rule->lhs, rule->var_names,
                         "of the right-hand side", "left-hand side", error))
    return NULL;
  if (rule->bidirectional
      && !check_vars_bound (&lx, lhs_offset, rule->rhs, rule->var_names,
                            "of the left-hand side", "right-hand side (needed with '<=>')", error))
    return NULL;

  if (prism_lexer_atom_is (&lx, "if"))
    {
      prism_lexer_next (&lx);
      for (;;)
        {
          if (!parse_condition (set, &lx, rule, error))
            return NULL;
          if (prism_lexer_atom_is (&lx, "and") || prism_lexer_atom_is (&lx, "&&"))
            {
              prism_lexer_next (&lx);
              continue;
            }
          break;
        }
    }
  if (lx.kind != PRISM_TOK_END)
    {
      g_autofree char *what = prism_lexer_describe (&lx);
      prism_lexer_error (&lx, lx.start, error, "unexpected %s at the end of the rule", what);
      return NULL;
    }

  rule->var_symbols = g_new (PrismSymbol, MAX (rule->var_names->len, 1));
  for (guint v = 0; v < rule->var_names->len; v++)
    {
      g_autofree char *s = g_strconcat ("?", (const char *) g_ptr_array_index (rule->var_names, v), NULL);
      rule->var_symbols[v] = prism_symbol_intern (s);
    }
  return g_steal_pointer (&rule);
}

gboolean
prism_rule_set_add_from_string (PrismRuleSet  *set,
                                const char    *text,
                                const char    *source,
                                GError       **error)
{
  g_autoptr(GPtrArray) parsed = g_ptr_array_new_with_free_func ((GDestroyNotify) rule_free);
  g_autoptr(GHashTable) names = g_hash_table_new (g_str_hash, g_str_equal);
  const char *p;
  guint line_no = 0;

  g_return_val_if_fail (set != NULL && text != NULL, FALSE);
  if (source == NULL)
    source = "rules";
  for (p = text; *p != '\0';)
    {
      const char *eol = strchr (p, '\n');
      gsize len = eol != NULL ? (gsize) (eol - p) : strlen (p);
      const char *hash = memchr (p, '#', len);
      gsize content = hash != NULL ? (gsize) (hash - p) : len;
      gboolean blank = TRUE;
      PrismRule *rule;

      line_no++;
      for (gsize i = 0; i < content && blank; i++)
        blank = g_ascii_isspace (p[i]);
      if (!blank)
        {
          rule = parse_rule_line (set, p, content, source, line_no, names, error);
          if (rule == NULL)
            return FALSE;
          g_hash_table_add (names, rule->name);
          g_ptr_array_add (parsed, rule);
        }
      p += len;
      if (*p == '\n')
        p++;
    }
  for (guint i = 0; i < parsed->len; i++)
    {
      PrismRule *rule = g_ptr_array_index (parsed, i);

      g_hash_table_insert (set->by_name, rule->name, rule);
      g_ptr_array_add (set->rules, rule);
    }
  /* The rules now belong to the set. */
  g_ptr_array_set_free_func (parsed, NULL);
  return TRUE;
}

gboolean
prism_rule_set_add_builtin (PrismRuleSet *set, const char *name, GError **error)
{
  const char *text;
  g_autofree char *source = NULL;

  g_return_val_if_fail (set != NULL && name != NULL, FALSE);
  text = prism_builtin_rules_get (name);
  if (text == NULL)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED, "no built-in rule file '%s'", name);
      return FALSE;
    }
  source = g_strdup_printf ("rules/%s.rules", name);
  return prism_rule_set_add_from_string (set, text, source, error);
}

guint
prism_rule_set_get_n_rules (const PrismRuleSet *set)
{
  g_return_val_if_fail (set != NULL, 0);
  return set->rules->len;
}

const PrismRule *
prism_rule_set_get_rule (const PrismRuleSet *set, guint i)
{
  g_return_val_if_fail (set != NULL && i < set->rules->len, NULL);
  return g_ptr_array_index (set->rules, i);
}

const PrismRule *
prism_rule_set_lookup (const PrismRuleSet *set, const char *name)
{
  g_return_val_if_fail (set != NULL && name != NULL, NULL);
  return g_hash_table_lookup (set->by_name, name);
}

const char *
prism_rule_get_name (const PrismRule *rule)
{
  g_return_val_if_fail (rule != NULL, NULL);
  return rule->name;
}

PrismSymbol
prism_rule_get_symbol (const PrismRule *rule)
{
  g_return_val_if_fail (rule != NULL, PRISM_SYMBOL_NONE);
  return rule->symbol;
}

const PrismPattern *
prism_rule_get_lhs (const PrismRule *rule)
{
  g_return_val_if_fail (rule != NULL, NULL);
  return rule->lhs;
}

const PrismPattern *
prism_rule_get_rhs (const PrismRule *rule)
{
  g_return_val_if_fail (rule != NULL, NULL);
  return rule->rhs;
}

guint
prism_rule_get_n_vars (const PrismRule *rule)
{
  g_return_val_if_fail (rule != NULL, 0);
  return rule->var_names->len;
}

PrismSymbol
prism_rule_get_var_symbol (const PrismRule *rule, guint var)
{
  g_return_val_if_fail (rule != NULL && var < rule->var_names->len, PRISM_SYMBOL_NONE);
  return rule->var_symbols[var];
}

gboolean
prism_rule_is_bidirectional (const PrismRule *rule)
{
  g_return_val_if_fail (rule != NULL, FALSE);
  return rule->bidirectional;
}

guint
prism_rule_get_n_conditions (const PrismRule *rule)
{
  g_return_val_if_fail (rule != NULL, 0);
  return rule->conds->len;
}

char *
prism_rule_to_string (const PrismRule *rule)
{
  GString *out = g_string_new (NULL);
  g_autofree char *lhs = NULL;
  g_autofree char *rhs = NULL;

  g_return_val_if_fail (rule != NULL, NULL);
  lhs = prism_pattern_to_string (rule->lhs);
  rhs = prism_pattern_to_string (rule->rhs);
  g_string_append_printf (out, "%s: %s %s %s", rule->name, lhs, rule->bidirectional ? "<=>" : "=>", rhs);
  for (guint i = 0; i < rule->conds->len; i++)
    {
      const RuleCond *c = &g_array_index (rule->conds, RuleCond, i);

      g_string_append (out, i == 0 ? " if " : " and ");
      g_string_append_printf (out, "%s%s(", c->negate ? "!" : "", c->name);
      for (guint a = 0; a < c->args->len; a++)
        {
          const RuleCondArg *arg = &g_array_index (c->args, RuleCondArg, a);

          if (a > 0)
            g_string_append (out, ", ");
          if (arg->kind == PRISM_COND_ARG_CLASS)
            g_string_append_printf (out, "?%s", (const char *) g_ptr_array_index (rule->var_names, arg->var));
          else if (arg->kind == PRISM_COND_ARG_SYMBOL)
            g_string_append (out, prism_symbol_name (arg->symbol));
          else
            g_string_append_printf (out, "%" G_GINT64_FORMAT, arg->value);
        }
      g_string_append_c (out, ')');
    }
  return g_string_free (out, FALSE);
}

gboolean
prism_rule_check_conditions (const PrismRule   *rule,
                             const PrismEgraph *eg,
                             const guint       *subst)
{
  g_return_val_if_fail (rule != NULL && eg != NULL && subst != NULL, FALSE);
  for (guint i = 0; i < rule->conds->len; i++)
    {
      const RuleCond *c = &g_array_index (rule->conds, RuleCond, i);
      PrismCondArg buf[8];
      g_autofree PrismCondArg *heap = NULL;
      PrismCondArg *args = buf;
      gboolean ok;

      if (c->args->len > G_N_ELEMENTS (buf))
        args = heap = g_new (PrismCondArg, c->args->len);
      for (guint a = 0; a < c->args->len; a++)
        {
          const RuleCondArg *ra = &g_array_index (c->args, RuleCondArg, a);

          args[a].kind = ra->kind;
          args[a].class_id = ra->kind == PRISM_COND_ARG_CLASS ? prism_egraph_find (eg, subst[ra->var]) : 0;
          args[a].symbol = ra->symbol;
          args[a].value = ra->value;
        }
      ok = c->func (eg, args, c->args->len, c->user_data);
      if (ok == c->negate)
        return FALSE;
    }
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* Proof checking */

/* Whether @from at @b and @to at @a match with one substitution: variables
 * bound on both sides must be bound to equal subterms. */
static gboolean
step_at (const PrismRule *rule,
         const PrismPattern *from,
         const PrismPattern *to,
         const PrismTerm *before,
         guint b,
         const PrismTerm *after,
         guint a)
{
  guint n = rule->var_names->len;
  g_autofree guint *s1 = g_new (guint, MAX (n, 1));
  g_autofree guint *s2 = g_new (guint, MAX (n, 1));

  if (!prism_pattern_match_term (from, before, b, s1))
    return FALSE;
  if (!prism_pattern_match_term (to, after, a, s2))
    return FALSE;
  for (guint v = 0; v < n; v++)
    if (s1[v] != G_MAXUINT && s2[v] != G_MAXUINT
        && !prism_term_node_equal (before, s1[v], after, s2[v]))
      return FALSE;
  return TRUE;
}

/* Whether @after is @before with one application of @rule somewhere inside:
 * the two agree down one path of differing children, at whose end the rule
 * applies (a loop: the path can be as long as the terms are deep). */
static gboolean
check_step_at_path (const PrismRule *rule,
                    const PrismPattern *from,
                    const PrismPattern *to,
                    const PrismTerm *before,
                    guint b,
                    const PrismTerm *after,
                    guint a)
{
  for (;;)
    {
      guint n, differing = G_MAXUINT;

      if (step_at (rule, from, to, before, b, after, a))
        return TRUE;
      if (prism_term_node_get_op (before, b) != prism_term_node_get_op (after, a)
          || prism_term_node_get_int (before, b) != prism_term_node_get_int (after, a))
        return FALSE;
      n = prism_term_node_get_n_children (before, b);
      if (n != prism_term_node_get_n_children (after, a))
        return FALSE;
      for (guint i = 0; i < n; i++)
        if (!prism_term_node_equal (before, prism_term_node_get_child (before, b, i),
                                    after, prism_term_node_get_child (after, a, i)))
          {
            if (differing != G_MAXUINT)
              return FALSE;
            differing = i;
          }
      if (differing == G_MAXUINT)
        return FALSE;
      b = prism_term_node_get_child (before, b, differing);
      a = prism_term_node_get_child (after, a, differing);
    }
}

gboolean
prism_rule_check_step (const PrismRule *rule,
                       gboolean         backward,
                       const PrismTerm *before,
                       guint            before_node,
                       const PrismTerm *after,
                       guint            after_node)
{
  g_return_val_if_fail (rule != NULL && before != NULL && after != NULL, FALSE);
  g_return_val_if_fail (before_node < prism_term_get_n_nodes (before), FALSE);
  g_return_val_if_fail (after_node < prism_term_get_n_nodes (after), FALSE);
  return check_step_at_path (rule, backward ? rule->rhs : rule->lhs, backward ? rule->lhs : rule->rhs,
                         before, before_node, after, after_node);
}
