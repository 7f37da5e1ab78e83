/* prism-cmd-verify.c — `prism verify`: is a candidate equivalent to a reference?
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <glib/gi18n.h>

#include "prism-cli.h"
#include "prism-json-reader.h"
#include "prism-cli-budget.h"
#include "prism-error.h"
#include "prism-random-check.h"
#include "prism-verifier.h"

#define REFERENCE_SUFFIX "@reference"

/* FILE, WORKLOAD[:key=value,…], or either workload spelling followed by
 * "@reference" for its hand-written fused graph. */
static PrismGraph *
open_spec (const char *arg, GError **error)
{
  if (g_str_has_suffix (arg, REFERENCE_SUFFIX) && !g_file_test (arg, G_FILE_TEST_EXISTS))
    {
      g_autofree char *name = g_strndup (arg, strlen (arg) - strlen (REFERENCE_SUFFIX));
      return prism_cli_open_reference (name, error);
    }
  return prism_cli_open_program (arg, error);
}

/* The rules of a proof, each once in order of first use, with its count. */
static char *
rules_summary (const GPtrArray *rules)
{
  g_autoptr(GHashTable) counts = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GPtrArray) order = g_ptr_array_new ();
  GString *s = g_string_new (NULL);

  for (guint i = 0; rules != NULL && i < rules->len; i++)
    {
      const char *name = g_ptr_array_index (rules, i);
      guint n = GPOINTER_TO_UINT (g_hash_table_lookup (counts, name));
      if (n == 0)
        g_ptr_array_add (order, (gpointer) name);
      g_hash_table_insert (counts, (gpointer) name, GUINT_TO_POINTER (n + 1));
    }
  for (guint i = 0; i < order->len; i++)
    {
      const char *name = g_ptr_array_index (order, i);
      guint n = GPOINTER_TO_UINT (g_hash_table_lookup (counts, name));
      g_string_append_printf (s, "%s%s", i ? ", " : "", name);
      if (n > 1)
        g_string_append_printf (s, " ×%u", n);
    }
  return g_string_free (s, FALSE);
}

static void
print_verdict (const PrismVerdict *v)
{
  printf (_("verdict: %s\n"), prism_verdict_kind_to_string (v->kind));
  printf ("%s\n", v->message);
  if (v->formal_ran)
    {
      if (v->proved)
        {
          g_autofree char *rules = rules_summary (v->rules_used);
          printf (_("formal: proved in %u steps (%u iterations, %u e-nodes, %.3f s)\n"),
                  v->proof_length, v->formal_iterations, v->formal_nodes, v->formal_seconds);
          printf (_("  rules: %s\n"), rules);
        }
      else
        printf (_("formal: not proved, %s (%u iterations, %u e-nodes, %.3f s)%s%s\n"), v->stop_reason,
                v->formal_iterations, v->formal_nodes, v->formal_seconds,
                v->formal_message ? ": " : "", v->formal_message ? v->formal_message : "");
    }
  if (v->random_ran)
    {
      g_autoptr(GString) seeds = g_string_new (NULL);
      g_autofree char *tol = g_strdup_printf ("%g", PRISM_RANDOM_TOLERANCE);
      g_autofree char *err = isfinite (v->max_error) ? g_strdup_printf ("%.3g", v->max_error)
                                                      : g_strdup ("inf");

      for (guint i = 0; i < v->seeds->len; i++)
        g_string_append_printf (seeds, "%s%" G_GUINT64_FORMAT, i ? ", " : "",
                                g_array_index (v->seeds, guint64, i));
      if (v->random_ok)
        printf (_("random: agrees on seeds %s; max relative error %s (tolerance %s), %.3f s\n"),
                seeds->str, err, tol, v->random_seconds);
      else
        printf (_("random: differs on seeds %s; max relative error %s (tolerance %s), %.3f s\n"),
                seeds->str, err, tol, v->random_seconds);
      if (v->sizes != NULL && *v->sizes)
        printf (_("  sizes: %s\n"), v->sizes);
    }
  else if (v->random_message != NULL)
    printf (_("random: did not run: %s\n"), v->random_message);
  if (v->explanation != NULL)
    printf (_("proof:\n%s"), v->explanation);
}

static void
print_json (JsonNode *node)
{
  g_autofree char *text = prism_json_to_text (node, TRUE, NULL);

  printf ("%s\n", text);
}

/* The verdict on one graph of a Mirage file, as an object of "graphs":
 * prism_verdict_to_json()'s members with "index" and "label", or "verdict":
 * "error" with why the graph could not be read or checked. */
static JsonNode *
mirage_verdict_json (const PrismMirageGraph *m, const PrismVerdict *v, const char *message)
{
  g_autofree char *label = prism_cli_mirage_label (m);
  JsonNode *node = v != NULL ? prism_verdict_to_json (v) : json_node_new (JSON_NODE_OBJECT);
  JsonObject *obj;

  if (v == NULL)
    json_node_take_object (node, json_object_new ());
  obj = json_node_get_object (node);
  json_object_set_int_member (obj, "index", m->index);
  json_object_set_string_member (obj, "label", label);
  if (v == NULL)
    {
      json_object_set_string_member (obj, "verdict", "error");
      json_object_set_string_member (obj, "error", message);
    }
  return node;
}

/* REFERENCE against every graph of a Mirage file, inputs matched by their
 * order: one line (or one object of "graphs") per graph.  Exits with 0 only
 * when every graph is proved equivalent. */
static int
verify_mirage (PrismVerifier *verifier, const char *reference, const char *path, gboolean json)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) graphs = prism_cli_open_mirage (path, &error);
  g_autoptr(JsonArray) verdicts = json_array_new ();
  guint n_equivalent = 0;

  if (graphs == NULL)
    return prism_cli_fail ("verify", error->message);
  for (guint i = 0; i < graphs->len; i++)
    {
      const PrismMirageGraph *m = g_ptr_array_index (graphs, i);
      g_autoptr(PrismVerdict) v = NULL;
      g_autoptr(GError) err = NULL;
      const char *why = NULL;

      if (m->graph == NULL)
        why = prism_cli_mirage_error (m);
      else if ((v = prism_verifier_check (verifier, m->graph, &err)) == NULL)
        why = err->message;
      n_equivalent += v != NULL && v->kind == PRISM_VERDICT_EQUIVALENT;
      if (json)
        json_array_add_element (verdicts, mirage_verdict_json (m, v, why));
      else
        {
          g_autofree char *safe = prism_cli_escape (why != NULL ? why : v->message);
          /* TRANSLATORS: `prism verify` on a Mirage file: graph index, verdict, why */
          printf (_("graph %u: %s: %s\n"), m->index,
                  v != NULL ? prism_verdict_kind_to_string (v->kind) : _("error"), safe);
        }
    }
  if (json)
    {
      g_autoptr(JsonNode) root = json_node_new (JSON_NODE_OBJECT);
      JsonObject *obj = json_object_new ();

      json_object_set_string_member (obj, "reference", reference);
      json_object_set_string_member (obj, "file", path);
      json_object_set_int_member (obj, "total", graphs->len);
      json_object_set_int_member (obj, "equivalent", n_equivalent);
      json_object_set_array_member (obj, "graphs", json_array_ref (verdicts));
      json_node_take_object (root, obj);
      print_json (root);
    }
  else
    /* TRANSLATORS: the last line of `prism verify` on a Mirage file */
    printf (g_dngettext (GETTEXT_PACKAGE, "%u of %u graph equivalent to %s\n",
                         "%u of %u graphs equivalent to %s\n", graphs->len),
            n_equivalent, graphs->len, reference);
  return n_equivalent == graphs->len ? PRISM_EXIT_OK : PRISM_EXIT_FAILED;
}

int
prism_cmd_verify (int argc, char **argv)
{
  gboolean json = FALSE, no_random = FALSE, proof = FALSE;
  int seeds = 3, threads = 0, max_nodes = G_MININT;   /* G_MININT: not given */
  gint64 seed = 1;
  double time_limit = -G_MAXDOUBLE;                  /* not given */
  g_autofree char *max_memory = NULL;
  g_autofree char *max_work = NULL;
  GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json,
      N_("Print the verdict and its evidence as JSON"), NULL },
    { "seeds", 'n', 0, G_OPTION_ARG_INT, &seeds,
      N_("Seeds of the randomized test (default 3)"), N_("N") },
    { "seed", 's', 0, G_OPTION_ARG_INT64, &seed,
      N_("First seed; the others follow 1000 apart (default 1)"), N_("SEED") },
    { "no-random", 0, 0, G_OPTION_ARG_NONE, &no_random,
      N_("Only try the formal proof"), NULL },
    { "max-nodes", 0, 0, G_OPTION_ARG_INT, &max_nodes,
      N_("E-node limit of the proof search (default 60000)"), N_("N") },
    { "time-limit", 0, 0, G_OPTION_ARG_DOUBLE, &time_limit,
      N_("Time limit of the proof search in seconds (default 10)"), N_("SECONDS") },
    { "proof", 'p', 0, G_OPTION_ARG_NONE, &proof,
      N_("Print the proof, one rewritten term per step"), NULL },
    { "threads", 't', 0, G_OPTION_ARG_INT, &threads,
      N_("Interpreter threads (default: one per processor)"), N_("N") },
    PRISM_CLI_BUDGET_ENTRIES (&max_memory, &max_work),
    G_OPTION_ENTRY_NULL
  };
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismGraph) reference = NULL;
  g_autoptr(PrismGraph) candidate = NULL;
  g_autoptr(PrismVerifier) verifier = NULL;
  g_autoptr(PrismVerdict) verdict = NULL;
  PrismVerifierOptions options;

  if (!prism_cli_parse ("verify", _("REFERENCE CANDIDATE"),
                        _("Proves CANDIDATE equivalent to REFERENCE by e-graph rewriting and runs both "
                          "on random inputs. Each is a prism-graph JSON file, a built-in workload "
                          "(“name” or “name:key=value,…”) or a workload’s hand-written fused graph "
                          "(“name@reference”, “name:key=value,…@reference”). A CANDIDATE that is a Mirage "
                          "muGraph file has each of its graphs decided, inputs matched by their "
                          "order, one line per graph. Exits with 0 when the "
                          "candidate (every graph of a Mirage file) is proved equivalent, 1 when it is not (different, not proved, "
                          "or a verifier bug) and 2 on bad input."),
                        entries, &argc, &argv))
    return PRISM_EXIT_BAD_INPUT;
  if (argc != 3)
    return prism_cli_fail ("verify", _("expected a REFERENCE and a CANDIDATE (see “prism verify --help”)"));
  if (seeds < 1 || seeds > 1000)
    return prism_cli_fail ("verify", _("--seeds must be between 1 and 1000"));
  if (seed < 0)
    return prism_cli_fail ("verify", _("--seed must not be negative"));
  if (threads < 0 || threads > 1024)
    return prism_cli_fail ("verify", _("--threads must be between 0 and 1024"));
  if (max_nodes != G_MININT && max_nodes <= 0)
    return prism_cli_fail ("verify", _("--max-nodes must be positive"));
  /* Microseconds of a deadline fit in 64 bits: 1e13 s overflowed into a
   * deadline in the past ("time limit" at once). */
  if (time_limit != -G_MAXDOUBLE && !(time_limit > 0.0 && time_limit <= 1e7))
    return prism_cli_fail ("verify", _("--time-limit must be a number of seconds above 0, at most 10000000"));
  /* The randomized test's interpreter runs take them as their defaults. */
  if (!prism_cli_budget_apply (max_memory, max_work, NULL, &error))
    return prism_cli_fail ("verify", error->message);

  reference = open_spec (argv[1], &error);
  if (reference == NULL)
    {
      g_autofree char *message = g_strdup_printf ("%s: %s", argv[1], error->message);
      return prism_cli_fail ("verify", message);
    }

  prism_verifier_options_init (&options);
  options.n_seeds = (guint) seeds;
  options.first_seed = (guint64) seed;
  options.skip_random = no_random;
  options.n_threads = (guint) threads;
  options.keep_explanation = proof;
  if (max_nodes > 0)
    options.max_nodes = (guint) max_nodes;
  if (time_limit > 0)
    options.time_limit_s = time_limit;

  verifier = prism_verifier_new (reference, &options, &error);
  if (verifier == NULL)
    {
      g_autofree char *message = g_strdup_printf ("%s: %s", argv[1], error->message);
      return prism_cli_fail ("verify", message);
    }
  if (prism_cli_is_mirage_file (argv[2]))
    return verify_mirage (verifier, argv[1], argv[2], json);
  candidate = open_spec (argv[2], &error);
  if (candidate == NULL)
    {
      g_autofree char *message = g_strdup_printf ("%s: %s", argv[2], error->message);
      return prism_cli_fail ("verify", message);
    }
  verdict = prism_verifier_check (verifier, candidate, &error);
  if (verdict == NULL)
    {
      g_autofree char *message = g_strdup_printf ("%s: %s", argv[2], error->message);
      return prism_cli_fail ("verify", message);
    }

  if (json)
    {
      g_autoptr(JsonNode) node = prism_verdict_to_json (verdict);
      print_json (node);
    }
  else
    print_verdict (verdict);
  return verdict->kind == PRISM_VERDICT_EQUIVALENT ? PRISM_EXIT_OK : PRISM_EXIT_FAILED;
}
