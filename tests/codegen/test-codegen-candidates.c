/* test-codegen-candidates.c — the generated CUDA of every verified candidate
 * of every built-in workload compiles with nvcc for sm_80 and sm_90, and its
 * CPU build computes what the interpreter computes
 *
 * A default search finds thousands of candidates, and compiling each alone
 * takes far too long.  Candidates share most kernels, so every workload
 * becomes one translation unit that defines each distinct kernel body once
 * (its name replaced by a shared one) followed by every candidate's
 * launcher, its kernel names rewritten to the shared ones; nvcc compiles it
 * for sm_80 and sm_90 in one call.  The CPU translation unit adds every
 * candidate's run function and a main() that runs them all on the same
 * inputs, compared with one interpreter run of the workload.
 *
 * Candidates are emitted for sm_80 (whose code also serves sm_90, as in
 * test-codegen-nvcc); the few that need more shared memory than sm_80 has
 * (the search targets an H100) are emitted for sm_90, and their kernels
 * compile to empty bodies for sm_80.
 *
 * Usage: test-codegen-candidates PRISM-CLI
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "codegen-cases.h"
#include "prism-cuda-emitter.h"
#include "prism-error.h"
#include "prism-interp.h"
#include "prism-kernel-headers.h"
#include "prism-results.h"
#include "prism-workload.h"

/* As in test-codegen.c: the CPU build stores every dtype as f32 and
 * accumulates in f32, like the interpreter in PRISM_PRECISION_F32; sums run
 * in other orders. */
#define CPU_TOLERANCE 1e-3
#define INPUT_SEED 11

/* Where a stretch of a translation unit came from, to name the candidates
 * behind a compiler error. */
typedef struct
{
  guint first_line;
  guint last_line;
  int candidate;       /* index in Workload.candidates; -1: a shared kernel */
  guint kernel;        /* index in Workload.kernels when candidate is -1 */
} Span;

typedef struct
{
  char *label;         /* "attention#12" */
  char *prefix;
  char *failure;       /* (nullable) why it failed before any compiler ran */
  char *host;          /* the launcher, kernel names rewritten to shared ones */
  char *run;           /* PREFIX_cpu_run() */
  gboolean sm90_only;  /* needs more shared memory than sm_80 has */
} Candidate;

typedef struct
{
  char *body;          /* the definition, named KERNEL_NAME */
  char *origin;        /* "prism_c3_k4 of attention#5" */
  GArray *users;       /* guint: candidate indices */
  gboolean all_archs;  /* used by a candidate that fits sm_80 */
} Kernel;

typedef struct
{
  char *name;
  char *params;
  char *dir;
  PrismGraph *program;
  GPtrArray *expected;    /* PrismBuffer: the interpreter's outputs */
  GPtrArray *candidates;  /* Candidate: one per candidate, and its sm_90 code where that differs */
  guint n_results;        /* candidates in results.json */
  guint n_kernels;        /* launches over all entries */
  guint n_sm90_only;      /* candidates too big for sm_80 */
  guint n_sm90_variants;  /* entries "#id (sm_90 code)" */
  GPtrArray *kernels;     /* Kernel: the distinct ones */
  char *nvcc_tu;          /* path of the nvcc translation unit */
  char *cpu_tu;           /* path of the CPU one: the nvcc one and the runs */
  GArray *spans;          /* Span: the same lines in both */
  char *nvcc_log;         /* NULL on success */
  char *cpu_log;
} Workload;

static const char *prism_cli;
static char *tmpdir;
static char *kernels_dir;
static GPtrArray *workloads;  /* Workload */

static gboolean jobs_ran;

static void
candidate_free (gpointer data)
{
  Candidate *c = data;

  g_free (c->label);
  g_free (c->prefix);
  g_free (c->failure);
  g_free (c->host);
  g_free (c->run);
  g_free (c);
}

static void
kernel_free (gpointer data)
{
  Kernel *k = data;

  g_free (k->body);
  g_free (k->origin);
  g_array_unref (k->users);
  g_free (k);
}

static void
workload_free (gpointer data)
{
  Workload *w = data;

  g_free (w->name);
  g_free (w->params);
  g_free (w->dir);
  g_clear_pointer (&w->program, prism_graph_unref);
  g_clear_pointer (&w->expected, g_ptr_array_unref);
  g_clear_pointer (&w->candidates, g_ptr_array_unref);
  g_clear_pointer (&w->kernels, g_ptr_array_unref);
  g_free (w->nvcc_tu);
  g_free (w->cpu_tu);
  g_clear_pointer (&w->spans, g_array_unref);
  g_free (w->nvcc_log);
  g_free (w->cpu_log);
  g_free (w);
}

static gboolean
is_ident_char (char c)
{
  return g_ascii_isalnum (c) || c == '_';
}

/* Copies @text, replacing whole identifiers found in @names by their
 * values. */
static void
append_renamed (GString *out, const char *text, GHashTable *names)
{
  const char *p = text;

  while (*p != '\0')
    {
      if ((g_ascii_isalpha (*p) || *p == '_') && (p == text || !is_ident_char (p[-1])))
        {
          const char *end = p;
          g_autofree char *ident = NULL;
          const char *to;

          while (is_ident_char (*end))
            end++;
          ident = g_strndup (p, (gsize) (end - p));
          to = g_hash_table_lookup (names, ident);
          g_string_append (out, to != NULL ? to : ident);
          p = end;
        }
      else
        g_string_append_c (out, *p++);
    }
}

/* A kernel's text without its leading comment (which names the op it came
 * from), its name replaced by KERNEL_NAME: equal keys, equal code. */
static char *
kernel_key (const PrismCudaKernel *k)
{
  g_autoptr(GHashTable) names = g_hash_table_new (g_str_hash, g_str_equal);
  const char *text = k->source;
  GString *key = g_string_new (NULL);

  if (g_str_has_prefix (text, "/*"))
    {
      const char *end = strstr (text, "*/");
      if (end != NULL)
        text = end + 2;
      while (*text == '\n')
        text++;
    }
  g_hash_table_insert (names, k->name, (gpointer) "KERNEL_NAME");
  append_renamed (key, text, names);
  return g_string_free (key, FALSE);
}

static guint
count_lines (const char *s)
{
  guint n = 0;

  for (; *s; s++)
    n += *s == '\n';
  return n;
}

/* Appends @text to @tu, counting lines in *@line, and records what it
 * belongs to. */
static void
append_span (GString *tu, guint *line, GArray *spans, const char *text, int candidate, guint kernel)
{
  Span span = { *line + 1, 0, candidate, kernel };

  g_string_append (tu, text);
  *line += count_lines (text);
  span.last_line = *line;
  g_array_append_val (spans, span);
}

static void
append_line (GString *tu, guint *line, const char *text)
{
  g_string_append (tu, text);
  *line += count_lines (text);
}

static void
write_file (const char *path, const char *text)
{
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, text, -1, &error);
  g_assert_no_error (error);
}

static Candidate *
candidate_new (Workload *w, char *label)
{
  Candidate *c = g_new0 (Candidate, 1);
  g_autofree char *out_dir = g_strdup_printf ("%s/out/c%u", w->dir, w->candidates->len);

  c->label = label;
  c->prefix = g_strdup_printf ("prism_c%u", w->candidates->len);
  g_assert_cmpint (g_mkdir_with_parents (out_dir, 0755), ==, 0);
  g_ptr_array_add (w->candidates, c);
  return c;
}

static PrismCudaEmitter *
emit (const PrismGraph *graph, guint sm, const char *prefix, GError **error)
{
  PrismCudaOptions options = { .sm = sm, .prefix = prefix };

  return prism_cuda_emitter_new (graph, &options, error);
}

/* The source without its preamble (which names the target). */
static const char *
source_body (const PrismCudaEmitter *e)
{
  return prism_cuda_emitter_get_source (e) + strlen (prism_cuda_emitter_get_preamble (e));
}

/* Files the kernels of @e (the code of candidate @c) in @w's distinct ones
 * and keeps its launcher and run function. */
static void
add_code (Workload *w, Candidate *c, const PrismCudaEmitter *e, GHashTable *kernel_ids)
{
  g_autoptr(GHashTable) names = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  g_autoptr(GString) joined = NULL;
  g_autoptr(GString) host = NULL;
  guint index = w->candidates->len;

  for (guint i = 0; i < w->candidates->len; i++)
    if (g_ptr_array_index (w->candidates, i) == c)
      index = i;
  g_assert_cmpuint (index, <, w->candidates->len);

  /* The slices make up the whole source. */
  joined = g_string_new (prism_cuda_emitter_get_preamble (e));
  for (guint k = 0; k < prism_cuda_emitter_get_n_kernels (e); k++)
    g_string_append (joined, prism_cuda_emitter_get_kernel (e, k)->source);
  g_string_append (joined, prism_cuda_emitter_get_host_source (e));
  g_assert_cmpstr (joined->str, ==, prism_cuda_emitter_get_source (e));

  for (guint k = 0; k < prism_cuda_emitter_get_n_kernels (e); k++)
    {
      const PrismCudaKernel *pk = prism_cuda_emitter_get_kernel (e, k);
      g_autofree char *key = kernel_key (pk);
      gpointer found;
      Kernel *kernel;
      guint id;

      w->n_kernels++;
      if (g_hash_table_lookup_extended (kernel_ids, key, NULL, &found))
        id = GPOINTER_TO_UINT (found);
      else
        {
          id = w->kernels->len;
          kernel = g_new0 (Kernel, 1);
          kernel->body = g_strdup (key);
          kernel->origin = g_strdup_printf ("%s of %s", pk->name, c->label);
          kernel->users = g_array_new (FALSE, FALSE, sizeof (guint));
          g_ptr_array_add (w->kernels, kernel);
          g_hash_table_insert (kernel_ids, g_steal_pointer (&key), GUINT_TO_POINTER (id));
        }
      kernel = g_ptr_array_index (w->kernels, id);
      if (kernel->users->len == 0 || g_array_index (kernel->users, guint, kernel->users->len - 1) != index)
        g_array_append_val (kernel->users, index);
      kernel->all_archs = kernel->all_archs || !c->sm90_only;
      g_hash_table_insert (names, pk->name, g_strdup_printf ("prism_shared_k%u", id));
    }

  host = g_string_new (NULL);
  g_string_append_printf (host, "/* %s%s */\n", c->label, c->sm90_only ? " (sm_90 only)" : "");
  append_renamed (host, prism_cuda_emitter_get_host_source (e), names);
  g_string_append (host, "\n");
  c->host = g_string_free (g_steal_pointer (&host), FALSE);
  c->run = g_strdup (prism_cuda_emitter_get_cpu_run (e));
}

/* Checks that candidate @pc reads the program's inputs and emits it.  Its
 * sm_80 code serves both targets (as in test-codegen-nvcc); where the code
 * for sm_90 differs (a kernel that only keeps its double buffers within
 * sm_90's larger shared memory), that code becomes a second entry,
 * "#id (sm_90 code)", compiled for sm_90 only.  A candidate that needs more
 * shared memory than sm_80 has has only the sm_90 code. */
static void
add_candidate (Workload *w, const PrismCandidate *pc, GArray *program_inputs, GHashTable *kernel_ids)
{
  Candidate *c = candidate_new (w, g_strdup_printf ("%s#%u", w->name, pc->id));
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismGraph) graph = NULL;
  g_autoptr(PrismCudaEmitter) e80 = NULL;
  g_autoptr(PrismCudaEmitter) e90 = NULL;
  g_autoptr(GArray) cand_inputs = NULL;

  if (g_strcmp0 (pc->verdict, "equivalent") != 0)
    {
      c->failure = g_strdup_printf ("in the results file with verdict “%s”", pc->verdict);
      return;
    }
  graph = prism_candidate_instantiate (pc, &error);
  if (graph == NULL)
    {
      c->failure = g_strdup_printf ("cannot be instantiated: %s", error->message);
      return;
    }
  /* The CPU run reads the program's inputs in order. */
  cand_inputs = prism_graph_get_inputs (graph);
  if (cand_inputs->len != program_inputs->len)
    {
      c->failure = g_strdup_printf ("has %u inputs; the program has %u", cand_inputs->len, program_inputs->len);
      return;
    }
  for (guint k = 0; k < cand_inputs->len; k++)
    {
      gint64 a = prism_tensor_numel (prism_graph_tensor (graph, g_array_index (cand_inputs, guint, k)));
      gint64 b = prism_tensor_numel (prism_graph_tensor (w->program, g_array_index (program_inputs, guint, k)));
      if (a != b)
        {
          c->failure = g_strdup_printf ("input %u has %" G_GINT64_FORMAT " elements; the program's has %"
                                        G_GINT64_FORMAT, k, a, b);
          return;
        }
    }

  e90 = emit (graph, 90, c->prefix, &error);
  if (e90 == NULL)
    {
      c->failure = g_strdup_printf ("the emitter failed for sm_90: %s", error->message);
      return;
    }
  e80 = emit (graph, 80, c->prefix, &error);
  if (e80 == NULL && !g_error_matches (error, PRISM_ERROR, PRISM_ERROR_LIMIT))
    {
      c->failure = g_strdup_printf ("the emitter failed for sm_80: %s", error->message);
      return;
    }
  if (e80 == NULL)
    {
      c->sm90_only = TRUE;
      w->n_sm90_only++;
      add_code (w, c, e90, kernel_ids);
      return;
    }
  add_code (w, c, e80, kernel_ids);
  if (!g_str_equal (source_body (e80), source_body (e90)))
    {
      Candidate *v = candidate_new (w, g_strdup_printf ("%s (sm_90 code)", c->label));

      g_clear_pointer (&e90, prism_cuda_emitter_free);
      e90 = emit (graph, 90, v->prefix, &error);
      g_assert_no_error (error);
      v->sm90_only = TRUE;
      w->n_sm90_variants++;
      add_code (w, v, e90, kernel_ids);
    }
}

/* The definition of shared kernel @id; a kernel that only candidates too
 * big for sm_80 use compiles to an empty body there. */
static char *
shared_kernel_text (const Kernel *kernel, guint id)
{
  g_autoptr(GHashTable) placeholder = g_hash_table_new (g_str_hash, g_str_equal);
  g_autofree char *shared = g_strdup_printf ("prism_shared_k%u", id);
  g_autoptr(GString) body = g_string_new (NULL);
  GString *text = g_string_new (NULL);

  g_hash_table_insert (placeholder, (gpointer) "KERNEL_NAME", shared);
  append_renamed (body, kernel->body, placeholder);
  g_string_append_printf (text, "/* Shared kernel %u (%u candidates), first %s. */\n", id,
                          kernel->users->len, kernel->origin);
  if (!kernel->all_archs)
    {
      const char *open = strstr (body->str, "\n{\n");
      const char *close = g_strrstr (body->str, "}\n");

      g_assert_nonnull (open);
      g_assert_nonnull (close);
      g_string_append_len (text, body->str, open + 3 - body->str);
      g_string_append (text, "#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900 /* does not fit sm_80 */\n");
      g_string_append_len (text, open + 3, close - (open + 3));
      g_string_append (text, "#endif\n");
      g_string_append (text, close);
    }
  else
    g_string_append (text, body->str);
  return g_string_free (text, FALSE);
}

/* Writes the nvcc translation unit of @w (the runtime, the shared kernels,
 * the launchers) and the CPU one, which adds the run functions and a
 * main() that runs every candidate into OUT/cK. */
static void
write_units (Workload *w)
{
  g_autoptr(GString) tu = g_string_new (NULL);
  g_autoptr(GString) table = g_string_new (NULL);
  guint line = 0;

  w->spans = g_array_new (FALSE, FALSE, sizeof (Span));
  {
    g_autofree char *head =
      g_strdup_printf ("/* %s: %u candidates, %u kernels, %u distinct (test-codegen-candidates). */\n"
                       "#include \"prism-runtime.cuh\"\n\n",
                       w->name, w->candidates->len, w->n_kernels, w->kernels->len);
    append_line (tu, &line, head);
  }
  for (guint k = 0; k < w->kernels->len; k++)
    {
      g_autofree char *text = shared_kernel_text (g_ptr_array_index (w->kernels, k), k);
      append_span (tu, &line, w->spans, text, -1, k);
    }
  for (guint i = 0; i < w->candidates->len; i++)
    {
      const Candidate *c = g_ptr_array_index (w->candidates, i);

      if (c->host != NULL)
        append_span (tu, &line, w->spans, c->host, (int) i, 0);
    }
  w->nvcc_tu = g_build_filename (w->dir, "all.cu", NULL);
  write_file (w->nvcc_tu, tu->str);

  append_line (tu, &line, prism_cuda_cpu_harness_helpers ());
  for (guint i = 0; i < w->candidates->len; i++)
    {
      const Candidate *c = g_ptr_array_index (w->candidates, i);

      if (c->run == NULL)
        continue;
      append_span (tu, &line, w->spans, c->run, (int) i, 0);
      append_line (tu, &line, "\n");
      g_string_append_printf (table, "  { \"%s\", %s_cpu_run, %u },\n", c->label, c->prefix, i);
    }
  g_string_append_printf (tu,
                          "typedef int (*prism_run_fn) (const char *, const char *);\n\n"
                          "static const struct\n{\n  const char *label;\n  prism_run_fn run;\n"
                          "  unsigned index;\n} prism_runs[] = {\n%s  { NULL, NULL, 0 }\n};\n\n"
                          "int\nmain (int argc, char **argv)\n{\n  int failed = 0;\n\n"
                          "  if (argc != 3)\n    {\n      fprintf (stderr, \"usage: %%s INPUTS OUT\\n\", argv[0]);\n"
                          "      return 2;\n    }\n"
                          "  for (unsigned i = 0; prism_runs[i].label != NULL; i++)\n    {\n"
                          "      char dir[4096];\n"
                          "      snprintf (dir, sizeof dir, \"%%s/c%%u\", argv[2], prism_runs[i].index);\n"
                          "      if (prism_runs[i].run (argv[1], dir) != 0)\n        {\n"
                          "          fprintf (stderr, \"%%s: the run failed\\n\", prism_runs[i].label);\n"
                          "          failed = 1;\n        }\n    }\n  return failed;\n}\n",
                          table->str);
  w->cpu_tu = g_build_filename (w->dir, "all-cpu.cpp", NULL);
  write_file (w->cpu_tu, tu->str);
}

/* Builds the interpreter's reference, emits every candidate, and writes the
 * two translation units of @w. */
static void
prepare_workload (Workload *w)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *results_path = g_build_filename (w->dir, "results.json", NULL);
  g_autofree char *inputs_dir = g_build_filename (w->dir, "inputs", NULL);
  g_autoptr(PrismResults) results = NULL;
  g_autoptr(GPtrArray) inputs = NULL;
  g_autoptr(GArray) program_inputs = NULL;
  g_autoptr(GHashTable) kernel_ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  PrismInterpOptions f32_options = { PRISM_PRECISION_F32, 0 };
  GPtrArray *cands;

  w->program = prism_workload_build (w->name, w->params, &error);
  g_assert_no_error (error);
  program_inputs = prism_graph_get_inputs (w->program);
  inputs = prism_interp_make_inputs (w->program, INPUT_SEED);
  g_assert_cmpint (g_mkdir_with_parents (inputs_dir, 0755), ==, 0);
  for (guint k = 0; k < inputs->len; k++)
    {
      g_autofree char *name = g_strdup_printf ("in%u.f32", k);
      g_autofree char *path = g_build_filename (inputs_dir, name, NULL);
      codegen_write_f32_file (path, g_ptr_array_index (inputs, k));
    }
  /* Every candidate computes the program's function: one run serves all. */
  w->expected = prism_interp_run (w->program, (PrismBuffer * const *) inputs->pdata, inputs->len,
                                  &f32_options, &error);
  g_assert_no_error (error);

  results = prism_results_load (results_path, &error);
  if (results == NULL)
    g_error ("%s: %s", results_path, error->message);
  cands = prism_results_get_candidates (results);
  w->candidates = g_ptr_array_new_with_free_func (candidate_free);
  w->kernels = g_ptr_array_new_with_free_func (kernel_free);
  for (guint i = 0; i < cands->len; i++)
    add_candidate (w, g_ptr_array_index (cands, i), program_inputs, kernel_ids);
  w->n_results = cands->len;
  write_units (w);
  g_test_message ("%s (%s): %u candidates (%u only for sm_90: more shared memory than sm_80 has; "
                  "%u with other code for sm_90, compiled too), %u kernels, %u distinct", w->name,
                  w->params != NULL ? w->params : "default shapes", w->n_results, w->n_sm90_only,
                  w->n_sm90_variants, w->n_kernels, w->kernels->len);
}

static void
blame_kernel (GHashTable *blamed, const Workload *w, guint id)
{
  const Kernel *kernel = id < w->kernels->len ? g_ptr_array_index (w->kernels, id) : NULL;

  for (guint u = 0; kernel != NULL && u < kernel->users->len; u++)
    g_hash_table_add (blamed, GUINT_TO_POINTER (g_array_index (kernel->users, guint, u) + 1));
}

/* Adds to @failures every candidate whose code is on a line of @log that
 * reports a problem in @tu, or whose shared kernel @log names. */
static void
blame (GString *failures, const Workload *w, const char *tu, const GArray *spans, const char *what,
       const char *log)
{
  g_autofree char *base = g_path_get_basename (tu);
  g_autofree char *escaped = g_regex_escape_string (base, -1);
  /* "all.cu(12): error", "at line 12 of /tmp/…/all.cu" (nvcc),
   * "all-cpu.cpp:12:3: error" (g++), "ptxas error : Entry function
   * 'prism_shared_k5' uses too much shared data". */
  g_autofree char *pattern = g_strdup_printf ("%s[:(](\\d+)|prism_shared_k(\\d+)|line (\\d+) of \\S*%s",
                                              escaped, escaped);
  g_autoptr(GRegex) regex = g_regex_new (pattern, 0, 0, NULL);
  g_autoptr(GMatchInfo) match = NULL;
  g_autoptr(GHashTable) blamed = g_hash_table_new (NULL, NULL);
  gboolean any = FALSE;

  g_regex_match (regex, log, 0, &match);
  while (g_match_info_matches (match))
    {
      g_autofree char *num = g_match_info_fetch (match, 1);
      g_autofree char *kernel = g_match_info_fetch (match, 2);
      g_autofree char *num2 = g_match_info_fetch (match, 3);

      if (kernel != NULL && *kernel != '\0')
        blame_kernel (blamed, w, (guint) g_ascii_strtoull (kernel, NULL, 10));
      else
        {
          const char *digits = num != NULL && *num != '\0' ? num : num2;
          guint line = digits != NULL ? (guint) g_ascii_strtoull (digits, NULL, 10) : 0;

          for (guint s = 0; s < spans->len; s++)
            {
              const Span *span = &g_array_index (spans, Span, s);

              if (line < span->first_line || line > span->last_line)
                continue;
              if (span->candidate >= 0)
                g_hash_table_add (blamed, GINT_TO_POINTER (span->candidate + 1));
              else
                blame_kernel (blamed, w, span->kernel);
            }
        }
      g_match_info_next (match, NULL);
    }
  for (guint i = 0; i < w->candidates->len; i++)
    if (g_hash_table_contains (blamed, GUINT_TO_POINTER (i + 1)))
      {
        const Candidate *c = g_ptr_array_index (w->candidates, i);
        g_string_append_printf (failures, "%s: %s failed on its code\n", c->label, what);
        any = TRUE;
      }
  if (!any)
    g_string_append_printf (failures, "%s: %s failed outside any candidate's code\n", w->name, what);
  g_string_append_printf (failures, "%s\n", log);
}

static void
report_emit_failures (GString *failures)
{
  for (guint i = 0; i < workloads->len; i++)
    {
      const Workload *w = g_ptr_array_index (workloads, i);
      for (guint k = 0; k < w->candidates->len; k++)
        {
          const Candidate *c = g_ptr_array_index (w->candidates, k);
          if (c->failure != NULL)
            g_string_append_printf (failures, "%s: %s\n", c->label, c->failure);
        }
    }
}

typedef enum
{
  JOB_SEARCH,
  JOB_CPU,             /* g++ and the runs */
  JOB_NVCC,
} JobKind;

typedef struct
{
  Workload *w;
  JobKind kind;
  double cost;         /* rough seconds, to start the longest first */
  char **argv;
  gboolean done;
  char *log;           /* NULL on success */
} Job;

typedef struct
{
  GPtrArray *pending;  /* Job */
  GPtrArray *finished; /* Job, not yet handled */
  guint running[2];    /* searches, compiles */
} Pool;

static void
job_free (gpointer data)
{
  Job *job = data;

  g_strfreev (job->argv);
  g_free (job->log);
  g_free (job);
}

static void
job_add (Pool *pool, Workload *w, JobKind kind, double cost, GStrvBuilder *b)
{
  Job *job = g_new0 (Job, 1);

  job->w = w;
  job->kind = kind;
  job->cost = cost;
  job->argv = g_strv_builder_end (b);
  g_ptr_array_add (pool->pending, job);
}

typedef struct
{
  Pool *pool;
  Job *job;
} JobRun;

static void
job_exited (GObject *source, GAsyncResult *result, gpointer data)
{
  GSubprocess *p = G_SUBPROCESS (source);
  JobRun *run = data;
  g_autoptr(GBytes) out = NULL;
  g_autoptr(GError) error = NULL;

  g_subprocess_communicate_finish (p, result, &out, NULL, &error);
  if (error != NULL || !g_subprocess_get_successful (p))
    {
      g_autofree char *cmd = g_strjoinv (" ", run->job->argv);
      gsize len = 0;
      const char *text = out != NULL ? g_bytes_get_data (out, &len) : NULL;
      g_autofree char *output = text != NULL ? g_strndup (text, len) : g_strdup ("");

      run->job->log = g_strdup_printf ("$ %s\n%s", cmd, error != NULL ? error->message : output);
    }
  run->job->done = TRUE;
  run->pool->running[run->job->kind != JOB_SEARCH]--;
  g_ptr_array_add (run->pool->finished, run->job);
  g_object_unref (p);
  g_free (run);
}

/* The next job of @kind (searches in order, compiles the most expensive
 * first), or NULL. */
static Job *
job_next (Pool *pool, gboolean search)
{
  int best = -1;

  for (guint j = 0; j < pool->pending->len; j++)
    {
      const Job *a = g_ptr_array_index (pool->pending, j);

      if ((a->kind == JOB_SEARCH) != search)
        continue;
      if (best < 0 || a->cost > ((const Job *) g_ptr_array_index (pool->pending, best))->cost)
        best = (int) j;
    }
  return best >= 0 ? g_ptr_array_steal_index (pool->pending, (guint) best) : NULL;
}

static void
job_start (Pool *pool, Job *job)
{
  g_autoptr(GError) error = NULL;
  GSubprocess *p = g_subprocess_newv ((const char * const *) job->argv,
                                      G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_MERGE, &error);
  JobRun *run;

  if (p == NULL)
    {
      job->log = g_strdup (error->message);
      job->done = TRUE;
      g_ptr_array_add (pool->finished, job);
      return;
    }
  run = g_new0 (JobRun, 1);
  run->pool = pool;
  run->job = job;
  pool->running[job->kind != JOB_SEARCH]++;
  g_subprocess_communicate_async (p, NULL, NULL, job_exited, run);
}

/* The compile jobs of a prepared workload: g++ then the runs; nvcc for
 * sm_80 and sm_90 in one call (one host compile). */
static void
add_build_jobs (Pool *pool, Workload *w, const char *gxx, const char *nvcc)
{
  g_autofree char *inc = g_strdup_printf ("-I%s", kernels_dir);
  /* Seconds measured on gqa: g++ -O1 about 0.06 per distinct kernel, the
   * runs about 0.02 per candidate; nvcc -O0 about 0.1 per distinct
   * kernel for both architectures. */
  double kernels = w->kernels->len, cands = w->candidates->len;

  if (gxx != NULL)
    {
      g_autofree char *exe = g_build_filename (w->dir, "all-cpu", NULL);
      g_autofree char *script =
        g_strdup_printf ("%s -std=c++17 -O1 -Wall -Werror -Wno-unused-function %s -o %s %s && %s %s/inputs %s/out",
                         gxx, inc, exe, w->cpu_tu, exe, w->dir, w->dir);
      g_autoptr(GStrvBuilder) b = g_strv_builder_new ();

      /* Compile and run in one shell command so that runs overlap too. */
      g_strv_builder_add_many (b, "/bin/sh", "-c", script, NULL);
      job_add (pool, w, JOB_CPU, 0.06 * kernels + 0.02 * cands, b);
    }
  if (nvcc != NULL)
    {
      g_autofree char *obj = g_build_filename (w->dir, "all.o", NULL);
      g_autoptr(GStrvBuilder) b = g_strv_builder_new ();

      /* Without optimization the front end, NVVM and ptxas still check
       * everything (inline PTX, cp.async, mma, shared-memory limits) in
       * half the time; test-codegen-nvcc builds the workloads at -O3. */
      g_strv_builder_add_many (b, nvcc, "-std=c++17", "--Werror", "all-warnings",
                               "-gencode", "arch=compute_80,code=sm_80",
                               "-gencode", "arch=compute_90,code=sm_90",
                               "-Xcicc", "-O0", "-Xptxas", "-O0", inc, "-c", w->nvcc_tu, "-o", obj, NULL);
      job_add (pool, w, JOB_NVCC, 0.1 * kernels + 0.005 * cands, b);
    }
}

/* Runs every workload's search (two threads each, one search at a time),
 * emits the candidates of each as soon as its search ends, and compiles
 * (and, for the CPU, runs) the translation units two at a time, the
 * longest first, beside the searches.  The nvcc and CPU tests share the
 * run. */
static void
run_jobs (void)
{
  g_autofree char *nvcc = codegen_find_nvcc ();
  g_autofree char *gxx = g_find_program_in_path ("g++");
  g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func (job_free);
  g_autoptr(GError) error = NULL;
  Pool pool = { g_ptr_array_new (), g_ptr_array_new (), { 0, 0 } };
  const PrismWorkloadInfo *list;
  guint n, total = 0, kernels = 0, distinct = 0, sm90_only = 0, variants = 0;
  gint64 start = g_get_monotonic_time ();
  double emit_s = 0;
  const char *only = g_getenv ("PRISM_CODEGEN_ONLY");

  if (jobs_ran)
    return;
  jobs_ran = TRUE;
  workloads = g_ptr_array_new_with_free_func (workload_free);
  kernels_dir = g_build_filename (tmpdir, "kernels", NULL);
  prism_kernel_headers_write (kernels_dir, &error);
  g_assert_no_error (error);

  list = prism_workload_list (&n);
  for (guint i = 0; i < n; i++)
    {
      Workload *w;
      g_autoptr(GStrvBuilder) b = g_strv_builder_new ();
      g_autofree char *spec = NULL;

      /* For debugging one workload; the test says so. */
      if (only != NULL && strstr (list[i].name, only) == NULL)
        {
          g_test_message ("%s left out ($PRISM_CODEGEN_ONLY=%s)", list[i].name, only);
          continue;
        }
      w = g_new0 (Workload, 1);
      w->name = g_strdup (list[i].name);
      w->params = g_strdup (codegen_test_params (list[i].name));
      w->dir = g_build_filename (tmpdir, list[i].name, NULL);
      spec = w->params != NULL ? g_strdup_printf ("%s:%s", w->name, w->params) : g_strdup (w->name);
      g_ptr_array_add (workloads, w);
      g_strv_builder_add_many (b, prism_cli, "search", spec, "--threads", "2", "--out", w->dir, NULL);
      job_add (&pool, w, JOB_SEARCH, 0, b);
    }

  /* One search at a time beside two compiles: a search keeps its two
   * threads only partly busy, and each one finished feeds the compiles. */
  while (pool.pending->len > 0 || pool.running[0] + pool.running[1] > 0 || pool.finished->len > 0)
    {
      Job *next;

      while (pool.running[0] < 1 && (next = job_next (&pool, TRUE)) != NULL)
        job_start (&pool, next);
      while (pool.running[1] < 2 && (next = job_next (&pool, FALSE)) != NULL)
        job_start (&pool, next);
      if (pool.finished->len == 0)
        g_main_context_iteration (NULL, TRUE);
      while (pool.finished->len > 0)
        {
          Job *job = g_ptr_array_steal_index (pool.finished, 0);

          g_ptr_array_add (all, job);
          if (job->kind != JOB_SEARCH)
            continue;
          if (job->log != NULL)
            g_error ("prism search %s failed:\n%s", job->w->name, job->log);
          {
            gint64 t = g_get_monotonic_time ();
            prepare_workload (job->w);
            emit_s += (g_get_monotonic_time () - t) / 1e6;
          }
          add_build_jobs (&pool, job->w, gxx, nvcc);
        }
    }
  g_ptr_array_unref (pool.pending);
  g_ptr_array_unref (pool.finished);

  for (guint j = 0; j < all->len; j++)
    {
      Job *job = g_ptr_array_index (all, j);
      if (job->kind == JOB_CPU)
        job->w->cpu_log = g_steal_pointer (&job->log);
      else if (job->kind == JOB_NVCC)
        job->w->nvcc_log = g_steal_pointer (&job->log);
    }
  for (guint i = 0; i < workloads->len; i++)
    {
      const Workload *w = g_ptr_array_index (workloads, i);
      total += w->n_results;
      variants += w->n_sm90_variants;
      kernels += w->n_kernels;
      distinct += w->kernels->len;
      sm90_only += w->n_sm90_only;
    }
  g_test_message ("all workloads: %u candidates (%u only for sm_90, %u with other code for sm_90), "
                  "%u kernels, %u distinct kernels", total, sm90_only, variants, kernels, distinct);
  g_test_message ("searches, emitting (%.1f s of it) and %u jobs: %.1f s", emit_s, all->len,
                  (g_get_monotonic_time () - start) / 1e6);
}

static void
test_nvcc (void)
{
  g_autofree char *nvcc = codegen_find_nvcc ();
  g_autoptr(GString) failures = g_string_new (NULL);

  if (nvcc == NULL)
    {
      g_test_skip ("nvcc is not installed (looked at $NVCC, $CUDA_HOME/bin, /usr/local/cuda/bin, $PATH)");
      return;
    }
  run_jobs ();
  for (guint i = 0; i < workloads->len; i++)
    {
      const Workload *w = g_ptr_array_index (workloads, i);
      g_autofree char *obj = g_build_filename (w->dir, "all.o", NULL);

      if (w->nvcc_log != NULL)
        blame (failures, w, w->nvcc_tu, w->spans, "nvcc (sm_80 and sm_90)", w->nvcc_log);
      else
        g_assert_true (g_file_test (obj, G_FILE_TEST_IS_REGULAR));
    }
  report_emit_failures (failures);
  if (failures->len > 0)
    g_test_fail_printf ("%s", failures->str);
}

static void
test_cpu_build (void)
{
  g_autofree char *gxx = g_find_program_in_path ("g++");
  g_autoptr(GString) failures = g_string_new (NULL);
  guint checked = 0;

  if (gxx == NULL)
    {
      g_test_skip ("g++ is not installed");
      return;
    }
  run_jobs ();
  for (guint i = 0; i < workloads->len; i++)
    {
      const Workload *w = g_ptr_array_index (workloads, i);
      g_autofree char *exe = g_build_filename (w->dir, "all-cpu", NULL);
      double worst = 0;

      if (w->cpu_log != NULL && !g_file_test (exe, G_FILE_TEST_IS_EXECUTABLE))
        {
          blame (failures, w, w->cpu_tu, w->spans, "the CPU build (g++)", w->cpu_log);
          continue;
        }
      /* A failed run says so and leaves no outputs; the loop names it. */
      if (w->cpu_log != NULL)
        g_string_append_printf (failures, "%s: the CPU runs reported:\n%s\n", w->name, w->cpu_log);
      for (guint k = 0; k < w->candidates->len; k++)
        {
          const Candidate *c = g_ptr_array_index (w->candidates, k);

          if (c->run == NULL)
            continue;
          for (guint o = 0; o < w->expected->len; o++)
            {
              g_autofree char *path = g_strdup_printf ("%s/out/c%u/out%u.f32", w->dir, k, o);
              double err = codegen_compare_f32_file (path, g_ptr_array_index (w->expected, o));

              if (!(err <= CPU_TOLERANCE))
                g_string_append_printf (failures, "%s: output %u differs from the interpreter by %g (> %g)\n",
                                        c->label, o, err, CPU_TOLERANCE);
              else
                worst = MAX (worst, err);
            }
          checked++;
        }
      g_test_message ("%s: CPU build of %u programs, worst max relative error %.3g", w->name,
                      w->candidates->len, worst);
    }
  g_test_message ("CPU build: %u programs (candidates and their sm_90 code) checked against the interpreter",
                  checked);
  report_emit_failures (failures);
  if (failures->len > 0)
    g_test_fail_printf ("%s", failures->str);
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  int rc;

  g_test_init (&argc, &argv, NULL);
  if (argc < 2)
    {
      g_printerr ("usage: %s PRISM-CLI\n", argv[0]);
      return 2;
    }
  prism_cli = argv[1];
  tmpdir = g_dir_make_tmp ("prism-candidates-XXXXXX", &error);
  g_assert_no_error (error);

  g_test_add_func ("/codegen/candidates/cpu-build", test_cpu_build);
  g_test_add_func ("/codegen/candidates/nvcc", test_nvcc);
  rc = g_test_run ();

  if (g_getenv ("PRISM_KEEP_TMP") == NULL)
    codegen_remove_tree (tmpdir);
  else
    g_printerr ("kept %s\n", tmpdir);
  g_clear_pointer (&workloads, g_ptr_array_unref);
  g_free (kernels_dir);
  g_free (tmpdir);
  return rc;
}
