/* prism-candidate-row.c — one verified candidate, as a row of the candidates table
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "prism-candidate-row"

#include "config.h"

#include <math.h>
#include <glib/gi18n.h>

#include "prism-candidate-row.h"
#include "prism-sgraph.h"

/* The row holds a reference on the (immutable) candidate and what the table
 * shows of it, read once from its evidence; only a GPU measurement arriving
 * later changes it. */
struct _PrismCandidateRow
{
  GObject parent_instance;

  PrismCandidate *candidate;
  guint id;                  /* as published; ids never change (a graph's index when external) */
  char *label;               /* a graph from elsewhere ("Mirage graph 2"), NULL for the run's own */
  char *source;              /* the file it came from, shown with the label */
  gboolean pinned;           /* ticked for comparing (the candidates view's) */
  char *params;
  guint64 smem_bytes;        /* every custom kernel's shared memory together */
  gboolean smem_known;
  double measured_us;        /* < 0: not measured */
  double speedup;
  double announced_at_s;     /* when the run announced it (where the chart plots it); < 0: unknown */

  PrismVerificationMethod method;
  char *verification;        /* the method, as the table shows it */
  char *message;

  /* Formal proof */
  gboolean proved;
  GStrv proof_rules;
  guint proof_length;
  char *proof_stop;
  double proof_seconds;
  char *explanation;         /* the proof term by term, when kept */

  /* Randomized test */
  gboolean random_ran;
  gboolean random_ok;
  GArray *seeds;             /* guint64 */
  double max_error;          /* NAN when not reported */
  double tolerance;          /* NAN when not reported */
  char *sizes;               /* the sizes the test ran at */
  double random_seconds;
};

G_DEFINE_FINAL_TYPE (PrismCandidateRow, prism_candidate_row, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_ID,
  PROP_KERNELS,
  PROP_SMEM_BYTES,
  PROP_PREDICTED_US,
  PROP_MEASURED_US,
  PROP_MEASURED,
  PROP_TIME_US,
  PROP_SPEEDUP,
  PROP_FOUND_AT,
  PROP_PARAMS,
  PROP_METHOD,
  PROP_VERIFICATION,
  PROP_VERDICT,
  PROP_PINNED,
  N_PROPS
};

static GParamSpec *properties [N_PROPS];

/*
 * Auxiliary methods
 */

static JsonObject *
get_object_member (JsonObject *object,
                   const char *name)
{
  JsonNode *node;

  if (object == NULL || (node = json_object_get_member (object, name)) == NULL)
    return NULL;
  return JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
}

static gboolean
get_bool_member (JsonObject *object,
                 const char *name,
                 gboolean    fallback)
{
  JsonNode *node = object ? json_object_get_member (object, name) : NULL;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return fallback;
  return json_node_get_value_type (node) == G_TYPE_BOOLEAN ? json_node_get_boolean (node) : fallback;
}

static double
get_double_member (JsonObject *object,
                   const char *name,
                   double      fallback)
{
  JsonNode *node = object ? json_object_get_member (object, name) : NULL;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return fallback;
  switch (json_node_get_value_type (node))
    {
    case G_TYPE_DOUBLE:
    case G_TYPE_INT64:
      return json_node_get_double (node);
    default:
      return fallback;
    }
}

static const char *
get_string_member (JsonObject *object,
                   const char *name)
{
  JsonNode *node = object ? json_object_get_member (object, name) : NULL;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

static gboolean
array_has_string (JsonArray  *array,
                  const char *value)
{
  for (guint i = 0; array != NULL && i < json_array_get_length (array); i++)
    {
      JsonNode *node = json_array_get_element (array, i);

      if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING &&
          g_strcmp0 (json_node_get_string (node), value) == 0)
        return TRUE;
    }
  return FALSE;
}

static void
read_formal (PrismCandidateRow *self,
             JsonObject        *formal)
{
  JsonNode *rules;
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  self->proved = get_bool_member (formal, "proved", FALSE);
  self->proof_stop = g_strdup (get_string_member (formal, "stop_reason"));
  self->proof_seconds = get_double_member (formal, "seconds", NAN);
  self->explanation = g_strdup (get_string_member (formal, "explanation"));

  rules = json_object_get_member (formal, "rules_used");
  if (rules == NULL)
    rules = json_object_get_member (formal, "rules");
  if (rules != NULL && JSON_NODE_HOLDS_ARRAY (rules))
    {
      JsonArray *array = json_node_get_array (rules);

      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          JsonNode *node = json_array_get_element (array, i);

          /* A rule is named by a string, or by an object with a name. */
          if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
            g_strv_builder_add (builder, json_node_get_string (node));
          else if (JSON_NODE_HOLDS_OBJECT (node) &&
                   get_string_member (json_node_get_object (node), "rule") != NULL)
            g_strv_builder_add (builder, get_string_member (json_node_get_object (node), "rule"));
          else if (JSON_NODE_HOLDS_OBJECT (node) &&
                   get_string_member (json_node_get_object (node), "name") != NULL)
            g_strv_builder_add (builder, get_string_member (json_node_get_object (node), "name"));
        }
    }
  self->proof_rules = g_strv_builder_end (builder);
  self->proof_length = (guint) get_double_member (formal, "proof_length",
                                                  g_strv_length (self->proof_rules));
}

static void
read_random (PrismCandidateRow *self,
             JsonObject        *random)
{
  JsonNode *seeds = json_object_get_member (random, "seeds");

  self->random_ran = get_bool_member (random, "ran", TRUE);
  self->random_ok = get_bool_member (random, "ok", FALSE);
  self->max_error = get_double_member (random, "max_error", NAN);
  self->random_seconds = get_double_member (random, "seconds", NAN);
  self->tolerance = get_double_member (random, "tolerance", NAN);
  self->sizes = g_strdup (get_string_member (random, "sizes"));

  /* Either the seeds themselves, or how many from a first one. */
  if (seeds != NULL && JSON_NODE_HOLDS_ARRAY (seeds))
    {
      JsonArray *array = json_node_get_array (seeds);

      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          guint64 seed = (guint64) json_array_get_int_element (array, i);
          g_array_append_val (self->seeds, seed);
        }
    }
  else if (seeds != NULL && JSON_NODE_HOLDS_VALUE (seeds))
    {
      gint64 n = json_node_get_int (seeds);
      guint64 first = (guint64) get_double_member (random, "first_seed", 0);

      for (gint64 i = 0; i < MIN (n, 64); i++)
        {
          guint64 seed = first + (guint64) i;
          g_array_append_val (self->seeds, seed);
        }
    }
}

static void
read_evidence (PrismCandidateRow *self)
{
  JsonNode *root = self->candidate->verification;
  JsonObject *object = NULL;
  JsonObject *formal, *random;
  JsonArray *methods = NULL;
  gboolean has_formal, has_random;

  if (root != NULL && JSON_NODE_HOLDS_OBJECT (root))
    object = json_node_get_object (root);
  if (object != NULL && json_object_has_member (object, "methods") &&
      JSON_NODE_HOLDS_ARRAY (json_object_get_member (object, "methods")))
    methods = json_object_get_array_member (object, "methods");

  formal = get_object_member (object, "formal");
  random = get_object_member (object, "random");
  if (formal != NULL)
    read_formal (self, formal);
  if (random != NULL)
    read_random (self, random);
  self->message = g_strdup (get_string_member (object, "message"));

  has_formal = methods ? array_has_string (methods, "formal") : formal != NULL && self->proved;
  has_random = methods ? array_has_string (methods, "random") : random != NULL && self->random_ran;
  if (has_formal && has_random)
    {
      self->method = PRISM_VERIFICATION_FORMAL_RANDOM;
      /* Translators: how a candidate was verified: an e-graph proof, and a test on random inputs. */
      self->verification = g_strdup (_("Proof + random test"));
    }
  else if (has_formal)
    {
      self->method = PRISM_VERIFICATION_FORMAL;
      self->verification = g_strdup (_("Proof"));
    }
  else if (has_random)
    {
      self->method = PRISM_VERIFICATION_RANDOM;
      self->verification = g_strdup (_("Random test only"));
    }
  else
    {
      self->method = PRISM_VERIFICATION_NONE;
      self->verification = g_strdup (_("None recorded"));
    }
}

/*
 * GObject overrides
 */

static void
prism_candidate_row_finalize (GObject *object)
{
  PrismCandidateRow *self = (PrismCandidateRow *)object;

  g_clear_pointer (&self->candidate, prism_candidate_unref);
  g_clear_pointer (&self->params, g_free);
  g_clear_pointer (&self->label, g_free);
  g_clear_pointer (&self->source, g_free);
  g_clear_pointer (&self->verification, g_free);
  g_clear_pointer (&self->message, g_free);
  g_clear_pointer (&self->proof_rules, g_strfreev);
  g_clear_pointer (&self->proof_stop, g_free);
  g_clear_pointer (&self->explanation, g_free);
  g_clear_pointer (&self->sizes, g_free);
  g_clear_pointer (&self->seeds, g_array_unref);

  G_OBJECT_CLASS (prism_candidate_row_parent_class)->finalize (object);
}

static void
prism_candidate_row_get_property (GObject    *object,
                                  guint       prop_id,
                                  GValue     *value,
                                  GParamSpec *pspec)
{
  PrismCandidateRow *self = PRISM_CANDIDATE_ROW (object);

  switch (prop_id)
    {
    case PROP_ID:
      g_value_set_uint (value, prism_candidate_row_get_id (self));
      break;

    case PROP_KERNELS:
      g_value_set_uint (value, prism_candidate_row_get_kernels (self));
      break;

    case PROP_SMEM_BYTES:
      g_value_set_uint64 (value, self->smem_bytes);
      break;

    case PROP_PREDICTED_US:
      g_value_set_double (value, prism_candidate_row_get_predicted_us (self));
      break;

    case PROP_MEASURED_US:
      g_value_set_double (value, self->measured_us);
      break;

    case PROP_MEASURED:
      g_value_set_boolean (value, prism_candidate_row_get_measured (self));
      break;

    case PROP_TIME_US:
      g_value_set_double (value, prism_candidate_row_get_time_us (self));
      break;

    case PROP_SPEEDUP:
      g_value_set_double (value, self->speedup);
      break;

    case PROP_FOUND_AT:
      g_value_set_double (value, prism_candidate_row_get_found_at (self));
      break;

    case PROP_PARAMS:
      g_value_set_string (value, self->params);
      break;

    case PROP_METHOD:
      g_value_set_uint (value, self->method);
      break;

    case PROP_VERIFICATION:
      g_value_set_string (value, self->verification);
      break;

    case PROP_VERDICT:
      g_value_set_string (value, prism_candidate_row_get_verdict (self));
      break;

    case PROP_PINNED:
      g_value_set_boolean (value, self->pinned);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
prism_candidate_row_set_property (GObject      *object,
                                  guint         prop_id,
                                  const GValue *value,
                                  GParamSpec   *pspec)
{
  PrismCandidateRow *self = PRISM_CANDIDATE_ROW (object);

  switch (prop_id)
    {
    case PROP_PINNED:
      prism_candidate_row_set_pinned (self, g_value_get_boolean (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
prism_candidate_row_class_init (PrismCandidateRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags flags = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->finalize = prism_candidate_row_finalize;
  object_class->get_property = prism_candidate_row_get_property;
  object_class->set_property = prism_candidate_row_set_property;

  properties [PROP_ID] = g_param_spec_uint ("id", NULL, NULL, 0, G_MAXUINT, 0, flags);
  properties [PROP_KERNELS] = g_param_spec_uint ("kernels", NULL, NULL, 0, G_MAXUINT, 0, flags);
  properties [PROP_SMEM_BYTES] = g_param_spec_uint64 ("smem-bytes", NULL, NULL, 0, G_MAXUINT64, 0, flags);
  properties [PROP_PREDICTED_US] =
    g_param_spec_double ("predicted-us", NULL, NULL, 0, G_MAXDOUBLE, 0, flags);
  properties [PROP_MEASURED_US] =
    g_param_spec_double ("measured-us", NULL, NULL, -1, G_MAXDOUBLE, -1, flags);
  properties [PROP_MEASURED] = g_param_spec_boolean ("measured", NULL, NULL, FALSE, flags);
  properties [PROP_TIME_US] = g_param_spec_double ("time-us", NULL, NULL, 0, G_MAXDOUBLE, 0, flags);
  properties [PROP_SPEEDUP] = g_param_spec_double ("speedup", NULL, NULL, 0, G_MAXDOUBLE, 0, flags);
  properties [PROP_FOUND_AT] = g_param_spec_double ("found-at", NULL, NULL, 0, G_MAXDOUBLE, 0, flags);
  properties [PROP_PARAMS] = g_param_spec_string ("params", NULL, NULL, NULL, flags);
  properties [PROP_METHOD] = g_param_spec_uint ("method", NULL, NULL, 0, G_MAXUINT, 0, flags);
  properties [PROP_VERIFICATION] = g_param_spec_string ("verification", NULL, NULL, NULL, flags);
  properties [PROP_VERDICT] = g_param_spec_string ("verdict", NULL, NULL, NULL, flags);
  /* Ticked in the table's Compare column (two ticked rows are compared). */
  properties [PROP_PINNED] = g_param_spec_boolean ("pinned", NULL, NULL, FALSE,
                                                   G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY |
                                                   G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
prism_candidate_row_init (PrismCandidateRow *self)
{
  self->measured_us = -1;
  self->announced_at_s = -1;
  self->max_error = NAN;
  self->tolerance = NAN;
  self->proof_seconds = NAN;
  self->random_seconds = NAN;
  self->seeds = g_array_new (FALSE, FALSE, sizeof (guint64));
}

/*
 * Public API
 */

/**
 * prism_candidate_row_new:
 * @candidate: a verified candidate (a reference is taken)
 * @id: the number to show (the one the run published it with)
 *
 * Returns: (transfer full): a row showing @candidate
 */
/* The shared memory of every custom kernel at the candidate's best sizes,
 * so that rows whose kernels differ only in their tiles can be told apart. */
static gboolean
sum_smem (const PrismCandidate *candidate,
          guint64              *total)
{
  *total = 0;
  if (candidate->graph == NULL)
    return FALSE;
  for (guint i = 0; i < candidate->graph->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (candidate->graph, i);
      guint64 bytes;

      if (op->kind != PRISM_OP_KERNEL || op->body == NULL)
        continue;
      if (!prism_block_graph_smem_bytes (op->body, candidate->values, candidate->n_values, &bytes))
        return FALSE;
      *total += bytes;
    }
  return TRUE;
}

PrismCandidateRow *
prism_candidate_row_new (PrismCandidate *candidate,
                         guint           id)
{
  PrismCandidateRow *self;

  g_return_val_if_fail (candidate != NULL, NULL);

  self = g_object_new (PRISM_TYPE_CANDIDATE_ROW, NULL);
  self->candidate = prism_candidate_ref (candidate);
  /* The id its VERIFIED event gave (candidate->id is the same, and is
   * written by the run's thread). */
  self->id = id;
  self->speedup = candidate->speedup;
  self->params = candidate->graph ? prism_candidate_params_to_string (candidate) : g_strdup ("");
  self->smem_known = sum_smem (candidate, &self->smem_bytes);
  read_evidence (self);
  return self;
}

/**
 * prism_candidate_row_new_external:
 * @candidate: a graph from elsewhere (a Mirage file's), verified against the
 *   program shown and priced as the run's candidates are (a reference is taken)
 * @index: its number where it came from, which orders such rows
 * @label: what people call it ("Mirage graph 2", translated)
 * @source: (nullable): the file it came from, as shown to people
 *
 * A row beside the run's candidates that is none of them: it is named by
 * @label instead of an id, and never becomes the run's best.
 *
 * Returns: (transfer full): a row showing @candidate
 */
PrismCandidateRow *
prism_candidate_row_new_external (PrismCandidate *candidate,
                                  guint           index,
                                  const char     *label,
                                  const char     *source)
{
  PrismCandidateRow *self;

  g_return_val_if_fail (candidate != NULL, NULL);
  g_return_val_if_fail (label != NULL, NULL);

  self = prism_candidate_row_new (candidate, index);
  self->label = g_strdup (label);
  self->source = g_strdup (source);
  return self;
}

/* Returns: whether the row is a graph from elsewhere, not the run's own */
gboolean
prism_candidate_row_is_external (PrismCandidateRow *self)
{
  g_return_val_if_fail (PRISM_IS_CANDIDATE_ROW (self), FALSE);
  return self->label != NULL;
}

/* Returns: (nullable): an external row's label, %NULL for the run's own */
const char *
prism_candidate_row_get_label (PrismCandidateRow *self)
{
  g_return_val_if_fail (PRISM_IS_CANDIDATE_ROW (self), NULL);
  return self->label;
}

/* Returns: (nullable): the file an external row came from */
const char *
prism_candidate_row_get_source (PrismCandidateRow *self)
{
  g_return_val_if_fail (PRISM_IS_CANDIDATE_ROW (self), NULL);
  return self->source;
}

/* Returns: (transfer full): the short name lists and Compare use: "#5", or
 *   an external row's label */
char *
prism_candidate_row_dup_name (PrismCandidateRow *self)
{
  g_return_val_if_fail (PRISM_IS_CANDIDATE_ROW (self), NULL);
  return self->label ? g_strdup (self->label) : g_strdup_printf ("#%u", self->id);
}

/* Returns: (transfer full): the heading of its page: "Candidate 5", or an
 *   external row's label */
char *
prism_candidate_row_dup_title (PrismCandidateRow *self)
{
  g_return_val_if_fail (PRISM_IS_CANDIDATE_ROW (self), NULL);
  return self->label ? g_strdup (self->label) : g_strdup_printf (_("Candidate %u"), self->id);
}

/**
 * prism_candidate_row_get_candidate:
 *
 * Returns: (transfer none): the candidate shown
 */
PrismCandidate *
prism_candidate_row_get_candidate (PrismCandidateRow *self)
{
  g_return_val_if_fail (PRISM_IS_CANDIDATE_ROW (self), NULL);
  return self->candidate;
}

/* Returns: the candidate's number, as published and in results.json */
guint
prism_candidate_row_get_id (PrismCandidateRow *self)
{
  g_return_val_if_fail (PRISM_IS_CANDIDATE_ROW (self), 0);
  return self->id;
}

gboolean
prism_candidate_row_get_pinned (PrismCandidateRow *self)
{
  g_return_val_if_fail (PRISM_IS_CANDIDATE_ROW (self), FALSE);
  return self->pinned;
}

/**
 * prism_candidate_row_set_pinned:
 * @pinned: whether the row is ticked for comparing
 */
void
prism_candidate_row_set_pinned (PrismCandidateRow *self,
                                gboolean           pinned)
{
  g_return_if_fail (PRISM_IS_CANDIDATE_ROW (self));

  pinned = !!pinned;
  if (self->pinned == pinned)
    return;
  self->pinned = pinned;
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_PINNED]);
}

/**
 * prism_candidate_row_get_graph:
 *
 * Returns: (transfer none) (nullable): the candidate's graph (concrete maps,
 *   symbolic sizes)
 */
PrismGraph *
prism_candidate_row_get_graph (PrismCandidateRow *self)
{
  g_return_val_if_fail (PRISM_IS_CANDIDATE_ROW (self), NULL);
  return self->candidate->graph;
}

/**
 * prism_candidate_row_dup_concrete_graph:
 *
 * The graph to show, run and export: the candidate with its best sizes
 * substituted, or as proved (sizes symbolic) if they cannot be.
 *
 * Returns: (transfer full) (nullable): a graph
 */
PrismGraph *
prism_candidate_row_dup_concrete_graph (PrismCandidateRow *self)
{
  g_autoptr(GError) error = NULL;
  PrismGraph *graph;

  g_return_val_if_fail (PRISM_IS_CANDIDATE_ROW (self), NULL);

  if (self->candidate->graph == NULL)
    return NULL;
  graph = prism_candidate_instantiate (self->candidate, &error);
  if (graph == NULL)
    {
      g_debug ("candidate %u keeps its symbolic sizes: %s", self->id, error->message);
      graph = prism_graph_ref (self->candidate->graph);
    }
  return graph;
}

/* Returns: FALSE when a tile size is not known at the candidate's sizes */
gboolean
prism_candidate_row_get_smem_bytes (PrismCandidateRow *self,
                                    guint64           *bytes)
{
  g_return_val_if_fail (PRISM_IS_CANDIDATE_ROW (self), FALSE);
  *bytes = self->smem_bytes;
  return self->smem_known;
}

guint
prism_candidate_row_get_kernels (PrismCandidateRow *self)
{
  g_return_val_if_fail (PRISM_IS_CANDIDATE_ROW (self), 0);
  return self->candidate->n_kernels;
}

double
prism_candidate_row_get_predicted_us (PrismCandidateRow *self)
{
  g_return_val_if_fail (PRISM_IS_CANDIDATE_ROW (self), 0);
  return self->candidate->predicted_us;
}

/* Returns: the time measured on a GPU, or -1 */
double
prism_candidate_row_get_measured_us (PrismCandidateRow *self)
{
  g_return_val_if_fail (PRISM_IS_CANDIDATE_ROW (self), -1);
  return self->measured_us;
}

gboolean
prism_candidate_row_get_measured (PrismCandidateRow *self)
{
  g_return_val_if_fail (PRISM_IS_CANDIDATE_ROW (self), FALSE);
  return self->measured_us >= 0;
}

/* The measured time when there is one, else the predicted. */
double
prism_candidate_row_get_time_us (PrismCandidateRow *self)
{
  g_return_val_if_fail (PRISM_IS_CANDIDATE_ROW (self), 0);
  return self->measured_us >= 0 ? self->measured_us : self->candidate->predicted_us;
}

/* Over the unfused program, both measured or both predicted. */
double
prism_candidate_row_get_speedup (PrismCandidateRow *self)
{
  g_return_val_if_fail (PRISM_IS_CANDIDATE_ROW (self), 0);
  return self->speedup;
}

double
prism_candidate_row_get_found_at (PrismCandidateRow *self)
{
  g_return_val_if_fail (PRISM_IS_CANDIDATE_ROW (self), 0);
  return self->candidate->found_at_s;
}

/**
 * prism_candidate_row_set_announced_at:
 * @time_s: the run's time when the candidate was announced
 *
 * Candidates are announced in the search's order, so one found early can be
 * announced seconds later, once the tasks before it are done; the speedup
 * chart plots it then.
 */
void
prism_candidate_row_set_announced_at (PrismCandidateRow *self,
                                      double             time_s)
{
  g_return_if_fail (PRISM_IS_CANDIDATE_ROW (self));
  self->announced_at_s = time_s;
}

/**
 * prism_candidate_row_get_announced_at:
 *
 * Returns: when the run announced the candidate, or a negative number if
 *   that is not known (a reopened run, a graph from a file)
 */
double
prism_candidate_row_get_announced_at (PrismCandidateRow *self)
{
  g_return_val_if_fail (PRISM_IS_CANDIDATE_ROW (self), -1);
  return self->announced_at_s;
}

const char *
prism_candidate_row_get_params (PrismCandidateRow *self)
{
  g_return_val_if_fail (PRISM_IS_CANDIDATE_ROW (self), NULL);
  return self->params;
}

PrismVerificationMethod
prism_candidate_row_get_method (PrismCandidateRow *self)
{
  g_return_val_if_fail (PRISM_IS_CANDIDATE_ROW (self), PRISM_VERIFICATION_NONE);
  return self->method;
}

/* The method, translated, as the table shows it. */
const char *
prism_candidate_row_get_verification (PrismCandidateRow *self)
{
  g_return_val_if_fail (PRISM_IS_CANDIDATE_ROW (self), NULL);
  return self->verification;
}

const char *
prism_candidate_row_get_verdict (PrismCandidateRow *self)
{
  g_return_val_if_fail (PRISM_IS_CANDIDATE_ROW (self), NULL);
  return self->candidate->verdict;
}

/**
 * prism_candidate_row_set_measured:
 * @measured_us: the median time measured on a GPU
 * @speedup: over the unfused program timed by the same harness
 *
 * Records a GPU measurement; from then on the row's time and speedup are
 * the measured ones.
 */
void
prism_candidate_row_set_measured (PrismCandidateRow *self,
                                  double             measured_us,
                                  double             speedup)
{
  gboolean was_measured;

  g_return_if_fail (PRISM_IS_CANDIDATE_ROW (self));
  g_return_if_fail (measured_us >= 0);

  if (self->measured_us == measured_us && self->speedup == speedup)
    return;
  was_measured = self->measured_us >= 0;
  self->measured_us = measured_us;
  self->speedup = speedup;

  g_object_freeze_notify (G_OBJECT (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_MEASURED_US]);
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_TIME_US]);
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_SPEEDUP]);
  if (!was_measured)
    g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_MEASURED]);
  g_object_thaw_notify (G_OBJECT (self));
}

gboolean
prism_candidate_row_get_proved (PrismCandidateRow *self)
{
  g_return_val_if_fail (PRISM_IS_CANDIDATE_ROW (self), FALSE);
  return self->proved;
}

/**
 * prism_candidate_row_get_proof_rules:
 *
 * Returns: (transfer none): the rewrite rules of the proof, in order (empty
 *   when none were recorded)
 */
const char * const *
prism_candidate_row_get_proof_rules (PrismCandidateRow *self)
{
  g_return_val_if_fail (PRISM_IS_CANDIDATE_ROW (self), NULL);
  return (const char * const *) self->proof_rules;
}

guint
prism_candidate_row_get_proof_length (PrismCandidateRow *self)
{
  g_return_val_if_fail (PRISM_IS_CANDIDATE_ROW (self), 0);
  return self->proof_length;
}

/* Returns: (nullable): why the e-graph rewriting stopped */
const char *
prism_candidate_row_get_proof_stop (PrismCandidateRow *self)
{
  g_return_val_if_fail (PRISM_IS_CANDIDATE_ROW (self), NULL);
  return self->proof_stop;
}

/* Returns: seconds, or NAN when not recorded */
double
prism_candidate_row_get_proof_seconds (PrismCandidateRow *self)
{
  g_return_val_if_fail (PRISM_IS_CANDIDATE_ROW (self), NAN);
  return self->proof_seconds;
}

gboolean
prism_candidate_row_get_random_ran (PrismCandidateRow *self)
{
  g_return_val_if_fail (PRISM_IS_CANDIDATE_ROW (self), FALSE);
  return self->random_ran;
}

gboolean
prism_candidate_row_get_random_ok (PrismCandidateRow *self)
{
  g_return_val_if_fail (PRISM_IS_CANDIDATE_ROW (self), FALSE);
  return self->random_ok;
}

GArray *
prism_candidate_row_get_seeds (PrismCandidateRow *self)
{
  g_return_val_if_fail (PRISM_IS_CANDIDATE_ROW (self), NULL);
  return self->seeds;
}

/* Returns: the worst relative error over the seeds, or NAN when not recorded */
double
prism_candidate_row_get_max_error (PrismCandidateRow *self)
{
  g_return_val_if_fail (PRISM_IS_CANDIDATE_ROW (self), NAN);
  return self->max_error;
}

double
prism_candidate_row_get_random_seconds (PrismCandidateRow *self)
{
  g_return_val_if_fail (PRISM_IS_CANDIDATE_ROW (self), NAN);
  return self->random_seconds;
}

/* Returns: (nullable): the verifier's sentence about the candidate */
const char *
prism_candidate_row_get_message (PrismCandidateRow *self)
{
  g_return_val_if_fail (PRISM_IS_CANDIDATE_ROW (self), NULL);
  return self->message;
}

/* Returns: (nullable): the proof, one rewrite per line, when it was kept */
const char *
prism_candidate_row_get_explanation (PrismCandidateRow *self)
{
  g_return_val_if_fail (PRISM_IS_CANDIDATE_ROW (self), NULL);
  return self->explanation;
}

/* Returns: the error the randomized test allows, or NAN */
double
prism_candidate_row_get_tolerance (PrismCandidateRow *self)
{
  g_return_val_if_fail (PRISM_IS_CANDIDATE_ROW (self), NAN);
  return self->tolerance;
}

/* Returns: (nullable): the sizes the randomized test ran at ("gx0=4, F0=2") */
const char *
prism_candidate_row_get_random_sizes (PrismCandidateRow *self)
{
  g_return_val_if_fail (PRISM_IS_CANDIDATE_ROW (self), NULL);
  return self->sizes;
}
