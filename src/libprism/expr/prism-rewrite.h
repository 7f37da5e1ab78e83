/* prism-rewrite.h — rewrite rules as readable data
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "prism-egraph.h"
#include "prism-pattern.h"
#include "prism-term.h"

G_BEGIN_DECLS

/*
 * Rule text: one rule per line,
 *
 *     name: lhs => rhs
 *     name: lhs <=> rhs                     (both directions)
 *     name: lhs => rhs if cond(?x, ?y) and !cond2(?z, 3)
 *
 * lhs and rhs are patterns (prism-pattern.h).  `#` starts a comment; blank
 * lines are ignored.  A name is made of letters, digits and `_ - .`, and is
 * unique in its rule set.  Every variable of rhs (and of the conditions) must
 * occur in lhs; with `<=>`, both sides must have the same variables and
 * neither may be a bare variable.  A condition names a #PrismConditionFunc
 * registered in the rule set *before* the text is parsed; its arguments are
 * variables, symbols or integers; `!` negates it.  Conditions are checked when
 * a match is found, with the e-graph clean.
 *
 * Built-in conditions (always registered):
 *   is_distinct(a, b, …)  the arguments are pairwise not equal
 *   is_equal(a, b)        the arguments are equal
 *   is_const(?x)          the class of ?x has a constant value
 *   is_symbol(?x)         the class of ?x contains a leaf symbol
 * where a variable equals a symbol (an integer) when its class contains that
 * leaf (has that value), and two variables are equal when their classes are.
 */

typedef struct _PrismRule PrismRule;
typedef struct _PrismRuleSet PrismRuleSet;

typedef enum
{
  PRISM_COND_ARG_CLASS,   /* a variable: its class id */
  PRISM_COND_ARG_SYMBOL,
  PRISM_COND_ARG_INT,
} PrismCondArgKind;

typedef struct
{
  PrismCondArgKind kind;
  guint class_id;         /* PRISM_COND_ARG_CLASS: canonical class id */
  PrismSymbol symbol;     /* PRISM_COND_ARG_SYMBOL */
  gint64 value;           /* PRISM_COND_ARG_INT */
} PrismCondArg;

/**
 * PrismConditionFunc:
 * @egraph: the (clean) e-graph being searched; read it only
 * @args: (array length=n_args): the condition's arguments for this match
 * @n_args: their number
 * @user_data: data given at registration
 *
 * Must be pure: the same e-graph and arguments give the same answer (the
 * runner's determinism depends on it).
 *
 * Returns: %TRUE if the rule may be applied
 */
typedef gboolean (*PrismConditionFunc) (const PrismEgraph  *egraph,
                                        const PrismCondArg *args,
                                        guint               n_args,
                                        gpointer            user_data);

/* Whether two condition arguments denote the same value in @egraph (the
 * "equal" of the built-in conditions; useful in custom ones). */
gboolean      prism_cond_arg_equal       (const PrismEgraph  *egraph,
                                          const PrismCondArg *a,
                                          const PrismCondArg *b);

/* Returns: (transfer full): an empty set with the built-in conditions */
PrismRuleSet *prism_rule_set_new         (void);
void          prism_rule_set_free        (PrismRuleSet       *set);

/**
 * prism_rule_set_register_condition:
 * @set: a rule set
 * @name: the name rules use
 * @n_args: the number of arguments it takes, or -1 for any
 * @func: the check
 * @user_data: data for @func
 * @destroy: (nullable): frees @user_data with the set
 *
 * Registering a name again replaces it for rules parsed afterwards.
 */
void          prism_rule_set_register_condition (PrismRuleSet *set,
                                          const char         *name,
                                          gint                n_args,
                                          PrismConditionFunc  func,
                                          gpointer            user_data,
                                          GDestroyNotify      destroy);

/**
 * prism_rule_set_add_from_string:
 * @set: a rule set
 * @text: rules, one per line
 * @source: (nullable): a name for messages (a file name), default "rules"
 * @error: return location for a #GError
 *
 * Parses every rule of @text; on any error adds none of them and sets
 * @error (PRISM_ERROR_PARSE) to "source:line:column: rule 'name': what".
 *
 * Returns: %TRUE on success
 */
gboolean      prism_rule_set_add_from_string (PrismRuleSet   *set,
                                          const char         *text,
                                          const char         *source,
                                          GError            **error);
/* Adds the compiled-in rule file src/libprism/expr/rules/@name.rules. */
gboolean      prism_rule_set_add_builtin (PrismRuleSet       *set,
                                          const char         *name,
                                          GError            **error);

guint         prism_rule_set_get_n_rules (const PrismRuleSet *set);
/* Returns: (transfer none): rule @i, in the order they were added */
const PrismRule *prism_rule_set_get_rule (const PrismRuleSet *set,
                                          guint               i);
/* Returns: (transfer none) (nullable): the rule called @name */
const PrismRule *prism_rule_set_lookup   (const PrismRuleSet *set,
                                          const char         *name);

/* Rules belong to their set: the getters below return (transfer none)
 * values that live as long as the set. */
const char   *prism_rule_get_name        (const PrismRule    *rule);
PrismSymbol   prism_rule_get_symbol      (const PrismRule    *rule);
/* Both sides share one variable numbering: prism_rule_get_n_vars(). */
const PrismPattern *prism_rule_get_lhs   (const PrismRule    *rule);
const PrismPattern *prism_rule_get_rhs   (const PrismRule    *rule);
guint         prism_rule_get_n_vars      (const PrismRule    *rule);
/* The variable's name with its '?', interned (e.g. `?x`). */
PrismSymbol   prism_rule_get_var_symbol  (const PrismRule    *rule,
                                          guint               var);
gboolean      prism_rule_is_bidirectional (const PrismRule   *rule);
guint         prism_rule_get_n_conditions (const PrismRule   *rule);
/* Returns: (transfer full): the rule in its text form (parsable again) */
char         *prism_rule_to_string       (const PrismRule    *rule);

/* Whether the conditions hold for @subst (class ids by variable). */
gboolean      prism_rule_check_conditions (const PrismRule   *rule,
                                          const PrismEgraph  *egraph,
                                          const guint        *subst);

/**
 * prism_rule_check_step:
 * @rule: a rule
 * @backward: %TRUE to read the rule right to left
 * @before: a term
 * @before_node: its node
 * @after: a term
 * @after_node: its node
 *
 * An independent proof checker for explanation steps: whether @after is
 * @before with exactly one subterm rewritten by one application of @rule.
 * Conditions are not checked (they are about an e-graph, not terms).
 *
 * Returns: %TRUE if the step is valid
 */
gboolean      prism_rule_check_step      (const PrismRule    *rule,
                                          gboolean            backward,
                                          const PrismTerm    *before,
                                          guint               before_node,
                                          const PrismTerm    *after,
                                          guint               after_node);

/* Compiled-in rule files (generated from src/libprism/expr/rules/\*.rules).
 * Returns: (transfer none) (nullable): the text of rules/@name.rules */
const char   *prism_builtin_rules_get    (const char         *name);
/* Returns: (transfer none): the names, %NULL-terminated */
const char * const *prism_builtin_rules_list (void);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrismRuleSet, prism_rule_set_free)

G_END_DECLS
