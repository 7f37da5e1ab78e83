/* prism-cmd-search.c — `prism search`: superoptimize a program
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <glib/gi18n.h>
#include <glib-unix.h>

#include "prism-cli.h"
#include "prism-json-reader.h"
#include "prism-error.h"
#include "prism-gpu-bench.h"
#include "prism-gpu-target.h"
#include "prism-mpi-run.h"
#include "prism-session.h"

#define PROGRESS_INTERVAL_US (G_USEC_PER_SEC / 4)
/* An option left out: not a value anyone can type ("-1" is refused, not
 * read as "the default"). */
#define NOT_GIVEN        G_MININT
#define NOT_GIVEN_DOUBLE (-G_MAXDOUBLE)

typedef struct
{
  GMainLoop *loop;
  PrismSession *session;
  gboolean json;
  gboolean verbose;
  gboolean tty;
  gboolean quiet;         /* an MPI rank other than 0: rank 0 speaks */
  gboolean error;
  guint signals;
  gint64 last_progress_us;
  guint64 last_states;
  double last_time;
  double rate;
  gboolean line_open;
  double best_speedup;
  const char *name;
  /* The unfused program timed on the GPU, if it was. */
  double baseline_measured_us;
  char *gpu;
  const char *baseline;   /* "vendor", "prism-lowered" */
  const char *measured_baseline;  /* how the unfused program ran on the GPU (interned) */
  double time_limit_s;    /* the search budget (0: none) */
} Run;

static void
print_json (JsonNode *node_in)
{
  g_autoptr(JsonNode) node = node_in;
  g_autofree char *text = prism_json_to_text (node, FALSE, NULL);

  printf ("%s\n", text);
  fflush (stdout);
}

static void
end_line (Run *run)
{
  if (run->line_open)
    {
      fputc ('\n', stderr);
      run->line_open = FALSE;
    }
}

/* Counters are printed through %s: a translatable string must not contain
 * G_GUINT64_FORMAT, which xgettext cannot see through. */
static const char *
u64 (char *buf, guint64 value)
{
  g_snprintf (buf, 24, "%" G_GUINT64_FORMAT, value);
  return buf;
}

static void
print_progress (Run *run, const PrismEvent *e)
{
  const PrismRunStats *s = &e->stats;
  char n[5][24];
  g_autofree char *best = NULL;
  g_autofree char *pace = NULL;
  double dt = e->time_s - run->last_time;

  if (dt > 0.2)
    {
      run->rate = (double) (s->search.states - run->last_states) / dt;
      run->last_states = s->search.states;
      run->last_time = e->time_s;
    }
  best = run->best_speedup > 0 ? g_strdup_printf ("%.2f×", run->best_speedup) : g_strdup ("–");
  /* No state is explored while every worker makes and decides the
   * candidates of an sGraph (maps, sizes, screen, proof): the line says so
   * rather than "0/s". */
  if (run->rate < 0.5 && s->deciding > 0 && e->kind == PRISM_EVENT_PROGRESS)
    /* TRANSLATORS: in the progress line of `prism search`, in place of the
     * states per second while none are explored; %s is a number */
    pace = g_strdup_printf (ngettext ("deciding %s candidate", "deciding %s candidates",
                                      (gulong) MIN (s->deciding, G_MAXULONG)),
                            u64 (n[4], s->deciding));
  else if (run->rate < 0.5 && s->instantiating > 0 && e->kind == PRISM_EVENT_PROGRESS)
    /* TRANSLATORS: in the progress line of `prism search`, in place of the
     * states per second while the workers make candidates from sGraphs
     * (maps, sizes) and decide them; %s is a number of sGraphs */
    pace = g_strdup_printf (ngettext ("making the candidates of %s sGraph",
                                      "making the candidates of %s sGraphs",
                                      (gulong) MIN (s->instantiating, G_MAXULONG)),
                            u64 (n[4], s->instantiating));
  else
    /* TRANSLATORS: states per second in the progress line of `prism search` */
    pace = g_strdup_printf (_("%.0f/s"), run->rate);
  /* TRANSLATORS: the progress line of `prism search`; the %s after the
   * name are counters (states, its pace: "120/s" or "deciding 2
   * candidates", pruned, sGraphs, verified) */
  fprintf (stderr, _("%s%s: %s states (%s), %s pruned, %s sGraphs, %s verified, best %s, %.1f s"),
           run->tty ? "\r\033[K" : "", run->name, u64 (n[0], s->search.states), pace,
           u64 (n[1], prism_search_stats_total_pruned (&s->search)),
           u64 (n[2], s->search.sgraphs), u64 (n[3], s->verified), best, e->time_s);
  if (run->tty)
    run->line_open = TRUE;
  else
    fputc ('\n', stderr);
  fflush (stderr);
}

static void
print_candidate (Run *run, const PrismCandidate *c, guint id)
{
  g_autofree char *params = prism_candidate_params_to_string (c);

  end_line (run);
  /* TRANSLATORS: one line per verified candidate of `prism search`; the
   * second %s is what the speedup is against ("the vendor baseline") */
  fprintf (stderr, ngettext ("verified candidate %u: %u kernel launch, predicted %.2f µs (%.2f× %s) with %s\n",
                             "verified candidate %u: %u kernel launches, predicted %.2f µs (%.2f× %s) with %s\n",
                             c->n_kernels),
           id != 0 ? id : c->id, c->n_kernels, c->predicted_us, c->speedup,
           prism_cli_baseline_label (run->baseline, TRUE), *params ? params : "-");
}

/* After the search: whether the GPU times the best candidates, or why not. */
static void
print_tuning (Run *run, const PrismEvent *e)
{
  const char *why = e->message ? e->message : "";

  end_line (run);
  switch (e->tune_status)
    {
    case PRISM_TUNE_MEASURING:
      g_free (run->gpu);
      run->gpu = g_strdup (why);
      /* TRANSLATORS: %u is a number of candidates, %s the GPU */
      fprintf (stderr, ngettext ("timing the unfused program and the best %u candidate on %s\n",
                                 "timing the unfused program and the best %u candidates on %s\n",
                                 e->tune_count - 1),
               e->tune_count - 1, why);
      break;
    case PRISM_TUNE_NO_GPU:
      /* The engine's reason starts with "no GPU: " too. */
      if (g_str_has_prefix (why, "no GPU: "))
        why += strlen ("no GPU: ");
      fprintf (stderr, "%s (%s)\n", _("no GPU: speedups are predicted by the cost model"), why);
      break;
    case PRISM_TUNE_OFF:
    case PRISM_TUNE_STOPPED:
      fprintf (stderr, "%s\n", why);
      break;
    case PRISM_TUNE_DONE:
    case PRISM_TUNE_NOTHING:
    default:
      break;
    }
}

static void
print_measured (Run *run, const PrismEvent *e)
{
  const PrismMeasurement *m = e->measurement;
  const PrismCandidate *c = e->candidate;

  end_line (run);
  if (m->error != NULL && c == NULL)
    fprintf (stderr, _("the unfused program could not be timed on the GPU: %s\n"), m->error);
  else if (m->error != NULL)
    fprintf (stderr, _("candidate %u could not be timed on the GPU: %s\n"), e->id, m->error);
  else if (c == NULL)
    {
      run->baseline_measured_us = m->median_us;
      if (e->message != NULL)
        run->measured_baseline = g_intern_string (e->message);
      /* TRANSLATORS: what the baseline is ("the vendor baseline"), then the
       * median, p20 and p80 of the samples in microseconds */
      fprintf (stderr, _("measured %s: %.2f µs (p20–p80 %.2f–%.2f µs)\n"),
               prism_cli_baseline_label (run->measured_baseline ? run->measured_baseline : run->baseline, TRUE),
               m->median_us, m->p20_us, m->p80_us);
      if (run->measured_baseline != NULL && g_strcmp0 (run->measured_baseline, run->baseline) != 0)
        fprintf (stderr, _("(%s could not be timed; measured speedups are against %s)\n"),
                 prism_cli_baseline_label (run->baseline, TRUE),
                 prism_cli_baseline_label (run->measured_baseline, TRUE));
    }
  else if (m->speedup > 0)
    {
      /* TRANSLATORS: id, median, p20, p80 (µs), measured speedup, predicted
       * speedup, worst relative error against the CPU interpreter */
      fprintf (stderr, _("measured candidate %u: %.2f µs (p20–p80 %.2f–%.2f µs), %.2f× %s measured "
                         "(predicted %.2f×), max error %.1e\n"),
               e->id, m->median_us, m->p20_us, m->p80_us, m->speedup,
               prism_cli_baseline_label (run->measured_baseline ? run->measured_baseline : run->baseline, TRUE),
               c->speedup, m->max_rel_error);
    }
  else
    fprintf (stderr, _("measured candidate %u: %.2f µs (p20–p80 %.2f–%.2f µs), max error %.1e\n"),
             e->id, m->median_us, m->p20_us, m->p80_us, m->max_rel_error);
}

static void
on_events (PrismSession *session, PrismEventBatch *batch, gpointer user_data)
{
  Run *run = user_data;
  gint64 now = g_get_monotonic_time ();

  for (guint i = 0; i < batch->events->len; i++)
    {
      const PrismEvent *e = g_ptr_array_index (batch->events, i);
      gboolean throttle = e->kind == PRISM_EVENT_PROGRESS &&
                          now - run->last_progress_us < PROGRESS_INTERVAL_US;

      if (throttle)
        continue;
      if (e->kind == PRISM_EVENT_PROGRESS)
        run->last_progress_us = now;
      if (e->kind == PRISM_EVENT_ERROR)
        run->error = TRUE;
      /* Only faster candidates are published as the best. */
      if (e->kind == PRISM_EVENT_BEST)
        run->best_speedup = MAX (run->best_speedup, e->candidate->speedup);
      if (run->json)
        {
          if (e->kind == PRISM_EVENT_SGRAPH)
            continue;   /* the structure strings are long; progress counts them */
          print_json (prism_event_to_json (e));
          continue;
        }
      switch (e->kind)
        {
        case PRISM_EVENT_PROGRESS:
          print_progress (run, e);
          break;
        case PRISM_EVENT_VERIFIED:
          if (run->verbose)
            print_candidate (run, e->candidate, e->id);
          break;
        case PRISM_EVENT_ERROR:
          end_line (run);
          fprintf (stderr, "prism search: %s\n", e->message);
          break;
        case PRISM_EVENT_FINISHED:
          print_progress (run, e);
          end_line (run);
          break;
        case PRISM_EVENT_TUNING:
          print_tuning (run, e);
          break;
        case PRISM_EVENT_MEASURED:
          print_measured (run, e);
          break;
        case PRISM_EVENT_SGRAPH:
        case PRISM_EVENT_REJECTED:
        case PRISM_EVENT_BEST:
        default:
          break;
        }
    }
}

static void
on_finished (PrismSession *session, gpointer user_data)
{
  Run *run = user_data;

  g_main_loop_quit (run->loop);
}

static gboolean
on_signal (gpointer user_data)
{
  Run *run = user_data;

  if (++run->signals > 1)
    {
      /* Every verified candidate is already on disk (written atomically). */
      end_line (run);
      if (!run->quiet)
        fprintf (stderr, "%s\n", _("prism search: interrupted again, exiting now"));
      _exit (130);
    }
  end_line (run);
  if (!run->quiet)
    fprintf (stderr, "%s\n", _("prism search: stopping (results are kept; press Ctrl-C again to quit at once)"));
  prism_session_stop (run->session);
  return G_SOURCE_CONTINUE;
}

static char *
default_out_dir (const char *arg, const PrismGraph *program)
{
  g_autofree char *base = NULL;
  char *dot;

  if (program->name != NULL && *program->name)
    base = g_strdup (program->name);
  else
    base = g_path_get_basename (arg);
  if ((dot = strrchr (base, '.')) != NULL && dot != base)
    *dot = '\0';
  g_strdelimit (base, "/\\: ", '_');
  return g_build_filename ("prism-results", base, NULL);
}

/* A limit option: NOT_GIVEN, else within [lo, hi]. */
static gboolean
check_limit (const char *option, int value, int lo, int hi, int *exit_code)
{
  g_autofree char *msg = NULL;

  if (value == NOT_GIVEN || (value >= lo && value <= hi))
    return TRUE;
  /* TRANSLATORS: an option of `prism search` (--max-kernels) and its range */
  msg = g_strdup_printf (_("%s must be between %d and %d"), option, lo, hi);
  *exit_code = prism_cli_fail ("search", msg);
  return FALSE;
}

/* --device K: not negative, and below the devices the driver sees when
 * there is one (without a driver the timings say "no GPU" anyway). */
static gboolean
check_device (int device, int *exit_code)
{
  g_autofree char *msg = NULL;
  int count = 0;

  if (device >= 0 && (!prism_gpu_bench_count_devices (&count, NULL) || device < count))
    return TRUE;
  if (device < 0)
    msg = g_strdup (_("--device must not be negative"));
  else
    /* TRANSLATORS: --device K, then how many CUDA devices there are */
    msg = g_strdup_printf (ngettext ("--device %d: the CUDA driver sees %d device (0)",
                                     "--device %d: the CUDA driver sees %d devices (0 to %d)", count),
                           device, count, count - 1);
  *exit_code = prism_cli_fail ("search", msg);
  return FALSE;
}

/* Under mpirun the ranks of a node share its GPUs: device + the rank on
 * the node, modulo the devices the driver sees (docs/cli.md, "MPI"). */
static int
rank_device (PrismMpiRun *mpi, int device)
{
  int count = 0;

  if (mpi == NULL || !prism_gpu_bench_count_devices (&count, NULL))
    return device;
  return (int) (((guint) device + prism_mpi_run_get_local_rank (mpi)) % (guint) count);
}

static void
set_limit (guint *field, int value)
{
  if (value != NOT_GIVEN)
    *field = (guint) value;
}

static int
compare_predicted (gconstpointer a, gconstpointer b)
{
  const PrismCandidate *x = *(const PrismCandidate * const *) a;
  const PrismCandidate *y = *(const PrismCandidate * const *) b;

  if (x->predicted_us != y->predicted_us)
    return x->predicted_us < y->predicted_us ? -1 : 1;
  return x->id < y->id ? -1 : x->id > y->id;
}

#define TABLE_ROWS 10

/* The best candidates by predicted time, one per program as executed (the
 * others run exactly as one of them). */
static void
print_table (Run *run, GPtrArray *cands)
{
  /* Borrowed pointers: not g_ptr_array_copy(), which keeps the free function. */
  g_autoptr(GPtrArray) sorted = g_ptr_array_sized_new (cands->len);
  g_autoptr(GHashTable) shown = g_hash_table_new (g_str_hash, g_str_equal);

  if (cands->len == 0)
    return;
  for (guint i = 0; i < cands->len; i++)
    g_ptr_array_add (sorted, g_ptr_array_index (cands, i));
  g_ptr_array_sort (sorted, compare_predicted);
  /* TRANSLATORS: the heading of the table of `prism search`; %s is what the
   * speedup is against ("the vendor baseline") */
  fprintf (stderr, _("best distinct candidates by predicted time (speedup over %s):\n"),
           prism_cli_baseline_label (run->baseline, TRUE));
  /* TRANSLATORS: the columns of the table; keep the widths (id 5, launches 9,
   * predicted 14, speedup 9, verdict 12) */
  fprintf (stderr, "%s\n", _("   id  launches  predicted µs   speedup  verdict     sizes"));
  for (guint i = 0; i < sorted->len && g_hash_table_size (shown) < TABLE_ROWS; i++)
    {
      PrismCandidate *c = g_ptr_array_index (sorted, i);
      const char *executed = prism_candidate_get_executed_digest (c);
      g_autofree char *params = NULL;

      if (!g_hash_table_add (shown, (gpointer) executed))
        continue;
      params = prism_candidate_params_to_string (c);
      fprintf (stderr, "%5u  %8u  %12.2f  %7.2f×  %-10s  %s%s\n", c->id, c->n_kernels,
               c->predicted_us, c->speedup, c->verdict ? c->verdict : "equivalent",
               *params ? params : "-",
               /* TRANSLATORS: after a row of the table of a candidate slower than the program */
               prism_candidate_is_faster (c) ? "" : _(" (slower than the program)"));
    }
}

/* "order 12, shape 3" for the reasons that cut anything (transfer full). */
static char *
pruned_reasons (const PrismSearchStats *s)
{
  GString *text = g_string_new (NULL);
  char n[24];

  for (guint r = 0; r < PRISM_N_PRUNE_REASONS; r++)
    if (s->pruned[r] > 0)
      g_string_append_printf (text, "%s%s %s", text->len ? ", " : "",
                              prism_prune_reason_to_string (r), u64 (n, s->pruned[r]));
  if (text->len == 0)
    g_string_append (text, "-");
  return g_string_free (text, FALSE);
}

static void
print_summary (Run *run, const PrismRunStats *stats, const char *stop)
{
  char n[9][24];
  g_autofree char *pruned = pruned_reasons (&stats->search);

  /* TRANSLATORS: the summary of `prism search`: program, stop reason, time,
   * then counters */
  fprintf (stderr, _("%s: %s after %.2f s: %s states, %s sGraphs, %s candidates with concrete maps, "
                     "%s verified, %s distinct, %s faster than the program\n"),
           run->name, stop ? stop : "?", stats->search.elapsed_s,
           u64 (n[0], stats->search.states), u64 (n[1], stats->search.sgraphs),
           u64 (n[2], stats->map_candidates), u64 (n[3], stats->verified),
           u64 (n[4], stats->distinct), u64 (n[5], stats->faster));
  /* TRANSLATORS: the second summary line of `prism search`: why candidates
   * and sGraphs were not verified */
  fprintf (stderr, _("  not verified: unknown %s (not proved %s, proved but not tested %s), "
                     "not equivalent %s; sGraphs rejected %s (their untiled program differs "
                     "from the input)\n"),
           u64 (n[0], stats->unknown), u64 (n[1], stats->unknown_unproved),
           u64 (n[2], stats->unknown_untested), u64 (n[3], stats->rejected),
           u64 (n[4], stats->sgraphs_rejected));
  /* TRANSLATORS: the third summary line: branches of the search cut, by
   * reason (the reasons are the names of docs/format.md) */
  fprintf (stderr, _("  pruned: %s\n"), pruned);
  /* The default limits may leave more space than the budget covers: say
   * that the best candidate is only the best so far. */
  if (g_strcmp0 (stop, "time limit") == 0)
    /* TRANSLATORS: the seconds of the search budget */
    fprintf (stderr, _("  the time budget of %.0f s ran out before the search space did: the candidates "
                       "are the best found so far (--time-limit S for more, 0 for no limit)\n"),
             run->time_limit_s);
}

/* The program, or why it cannot be read on this rank. */
static PrismGraph *
open_program (PrismMpiRun *mpi, const char *arg, GError **error)
{
  const char *fail_rank = g_getenv ("PRISM_MPI_TEST_FAIL_RANK");

  /* Test hook: as root every file is readable, so a rank that cannot read
   * the program is made up (tests/search/test-mpi-search.sh). */
  if (mpi != NULL && fail_rank != NULL && (guint) atoi (fail_rank) == prism_mpi_run_get_rank (mpi))
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_PARSE,
                   _("%s: cannot be read on this rank (PRISM_MPI_TEST_FAIL_RANK)"), arg);
      return NULL;
    }
  return prism_cli_open_program (arg, error);
}

/* A rank that cannot start tells the others, which stop too; rank 0 says
 * why (the first failing rank's message). */
static int
fail_startup (PrismMpiRun *mpi, GError *error)
{
  g_autoptr(GError) verdict = NULL;
  int code = PRISM_EXIT_BAD_INPUT;

  if (mpi == NULL)
    return prism_cli_fail ("search", error->message);
  prism_mpi_run_check_startup (mpi, error, &verdict);
  if (prism_mpi_run_get_rank (mpi) == 0)
    code = prism_cli_fail ("search", verdict->message);
  prism_mpi_run_finish (mpi);
  return code;
}

int
prism_cmd_search (int argc, char **argv)
{
  g_autofree char *mode = NULL;
  g_autofree char *target = NULL;
  g_autofree char *baseline = NULL;
  g_autofree char *out = NULL;
  double time_limit = NOT_GIVEN_DOUBLE, tune_min_time = NOT_GIVEN_DOUBLE;
  int threads = 0, max_kernels = NOT_GIVEN, max_block_ops = NOT_GIVEN, max_kernel_ops = NOT_GIVEN;
  int max_variants = NOT_GIVEN, max_kernel_inputs = NOT_GIVEN, max_block_outputs = NOT_GIVEN;
  int max_accums = NOT_GIVEN, max_grid_dims = NOT_GIVEN, max_total_ops = NOT_GIVEN;
  int block_threads = NOT_GIVEN, tune_top = NOT_GIVEN, device = 0, min_tasks = NOT_GIVEN;
  int code = PRISM_EXIT_BAD_INPUT;
  gint64 seed = 1;
  gboolean resume = FALSE, json = FALSE, full_random = FALSE, verbose = FALSE, force = FALSE;
  GOptionEntry entries[] = {
    { "mode", 'm', 0, G_OPTION_ARG_STRING, &mode,
      N_("symbolic (default): sGraphs with symbolic grids, loops and maps; enumerative: concrete ones enumerated at search time, as Mirage does"),
      N_("MODE") },
    { "time-limit", 'l', 0, G_OPTION_ARG_DOUBLE, &time_limit,
      N_("Search budget in seconds (default 60; 0 = none)"), N_("S") },
    { "threads", 't', 0, G_OPTION_ARG_INT, &threads,
      N_("Worker threads (default: one per processor; 1 = deterministic order)"), N_("N") },
    { "seed", 's', 0, G_OPTION_ARG_INT64, &seed,
      N_("Seed of the randomized checks (default 1)"), N_("N") },
    { "target", 'g', 0, G_OPTION_ARG_STRING, &target,
      N_("GPU the cost model predicts for: h100 (default), h200 or a100"), N_("GPU") },
    { "baseline", 'b', 0, G_OPTION_ARG_STRING, &baseline,
      N_("What speedups are against: vendor (default: the unfused program with its matmuls through "
         "cuBLASLt) or prism-lowered (every op through Prism's own lowering)"), N_("KIND") },
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &out,
      N_("Folder for results.json (default prism-results/NAME)"), N_("DIR") },
    { "resume", 'r', 0, G_OPTION_ARG_NONE, &resume,
      N_("Continue the search saved in DIR"), NULL },
    { "force", 'f', 0, G_OPTION_ARG_NONE, &force,
      N_("Overwrite a results.json in DIR that holds another program's results"), NULL },
    { "json", 'j', 0, G_OPTION_ARG_NONE, &json,
      N_("Print events as JSON lines on standard output"), NULL },
    { "verbose", 'v', 0, G_OPTION_ARG_NONE, &verbose,
      N_("Also print one line per verified candidate as it is verified"), NULL },
    { "max-kernels", 0, 0, G_OPTION_ARG_INT, &max_kernels,
      N_("Custom kernels per candidate (default 2)"), N_("N") },
    { "max-kernel-ops", 0, 0, G_OPTION_ARG_INT, &max_kernel_ops,
      N_("Kernel-level ops per candidate, custom kernels included (default 3)"), N_("N") },
    { "max-block-ops", 0, 0, G_OPTION_ARG_INT, &max_block_ops,
      N_("Ops per custom kernel, its inputs included (default 11, 13 for a program that takes a max, or what one kernel holding the program's ops before its outputs needs)"), N_("N") },
    { "max-kernel-inputs", 0, 0, G_OPTION_ARG_INT, &max_kernel_inputs,
      N_("Inputs of one custom kernel (default: the program's inputs, at least 3)"), N_("N") },
    { "max-block-outputs", 0, 0, G_OPTION_ARG_INT, &max_block_outputs,
      N_("Outputs of one custom kernel (default 2)"), N_("N") },
    { "max-accums", 0, 0, G_OPTION_ARG_INT, &max_accums,
      N_("Accumulators of one custom kernel (default 3)"), N_("N") },
    { "max-total-ops", 0, 0, G_OPTION_ARG_INT, &max_total_ops,
      N_("Ops of a whole candidate: predefined ops and block ops other than inputs (default: the program's ops and 2 more, at least 9 and 2 more for each program input beyond the third)"), N_("N") },
    { "max-grid-dims", 0, 0, G_OPTION_ARG_INT, &max_grid_dims,
      N_("Grid dimensions of a custom kernel, 1 to 3 (default 3)"), N_("N") },
    { "block-threads", 0, 0, G_OPTION_ARG_INT, &block_threads,
      N_("Threads per block of a custom kernel, a multiple of 32 (default 128)"), N_("N") },
    { "min-tasks", 0, 0, G_OPTION_ARG_INT, &min_tasks,
      N_("Split the search into at least N tasks, deeper in its tree if need be (default: the fixed "
         "split of one process; 8 per rank under mpirun)"), N_("N") },
    { "max-variants", 0, 0, G_OPTION_ARG_INT, &max_variants,
      N_("Map choices verified per sGraph, best predicted first (default 4)"), N_("N") },
    { "full-random", 0, 0, G_OPTION_ARG_NONE, &full_random,
      N_("Also run the randomized test at the program's real shapes for every candidate "
         "(seconds each on the CPU; by default it runs at small shapes)"), NULL },
    { "tune-top", 0, 0, G_OPTION_ARG_INT, &tune_top,
      N_("After the search, time this many of the best predicted candidates on the GPU when "
         "there is one (default 5; 0 = never)"), N_("N") },
    { "tune-min-time", 0, 0, G_OPTION_ARG_DOUBLE, &tune_min_time,
      N_("Milliseconds of samples per program timed on the GPU (default 100), as prism bench "
         "--min-time"), N_("MS") },
    { "device", 'd', 0, G_OPTION_ARG_INT, &device,
      N_("CUDA device ordinal the timings run on (default 0); under mpirun each rank takes the "
         "device K + its rank on the node, modulo the devices there"), N_("K") },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismGraph) program = NULL;
  g_autoptr(PrismSession) session = NULL;
  g_autoptr(GMainLoop) loop = NULL;
  g_autoptr(GPtrArray) cands = NULL;
  PrismPipelineOptions options;
  PrismRunStats stats;
  Run run = { 0, };
  guint sigint, sigterm;
  const PrismCandidate *best = NULL, *best_measured = NULL;
  const char *stop;
  PrismMpiRun *mpi = NULL;
  gboolean quiet = FALSE;
  int result;

  if (!prism_cli_parse ("search", _("FILE|WORKLOAD[:key=value,…]"),
                        _("Searches for fused programs equivalent to the input: builds sGraphs, "
                          "instantiates their maps, proves each candidate equivalent, chooses "
                          "sizes with a cost model of the target GPU and writes every verified "
                          "candidate to DIR/results.json as soon as it is found."),
                        entries, &argc, &argv))
    return PRISM_EXIT_BAD_INPUT;
  if (argc != 2)
    return prism_cli_fail ("search", argc < 2 ? _("missing program (a file or a workload name)")
                                              : _("too many arguments; give one program"));

  prism_pipeline_options_init (&options);
  if (mode != NULL && !prism_search_mode_from_string (mode, &options.search.mode))
    return prism_cli_fail ("search", _("--mode must be symbolic or enumerative"));
  if (target != NULL && prism_gpu_target_lookup (target) == NULL)
    {
      g_autofree char *names = prism_cli_target_names ();
      g_autofree char *msg = g_strdup_printf (_("--target must be one of %s"), names);
      return prism_cli_fail ("search", msg);
    }
  if (baseline != NULL && !prism_baseline_kind_from_string (baseline, &options.baseline))
    return prism_cli_fail ("search", _("--baseline must be vendor or prism-lowered"));
  if (time_limit != NOT_GIVEN_DOUBLE && !(time_limit >= 0 && time_limit <= 1e7))
    return prism_cli_fail ("search", _("--time-limit must be a number of seconds ≥ 0"));
  if (threads < 0 || threads > 1024)
    return prism_cli_fail ("search", _("--threads must be between 0 and 1024"));
  if (seed < 0)
    return prism_cli_fail ("search", _("--seed must not be negative"));
  /* The ranges prism_search_new() takes (prism-search.h). */
  if (!check_limit ("--max-kernels", max_kernels, 1, PRISM_SEARCH_MAX_KERNELS, &code) ||
      !check_limit ("--max-kernel-ops", max_kernel_ops, 1, PRISM_SEARCH_MAX_KERNEL_OPS, &code) ||
      !check_limit ("--max-block-ops", max_block_ops, 2, PRISM_SEARCH_MAX_BLOCK_OPS, &code) ||
      !check_limit ("--max-kernel-inputs", max_kernel_inputs, 1, PRISM_MAX_OP_INPUTS, &code) ||
      !check_limit ("--max-block-outputs", max_block_outputs, 1, PRISM_MAX_OP_OUTPUTS, &code) ||
      !check_limit ("--max-accums", max_accums, 0, PRISM_SEARCH_MAX_BLOCK_OPS, &code) ||
      !check_limit ("--max-total-ops", max_total_ops, 1,
                    PRISM_SEARCH_MAX_KERNEL_OPS + PRISM_SEARCH_MAX_KERNELS * PRISM_SEARCH_MAX_BLOCK_OPS, &code) ||
      !check_limit ("--max-grid-dims", max_grid_dims, 1, PRISM_MAX_GRID_DIMS, &code) ||
      !check_limit ("--block-threads", block_threads, 32, 1024, &code) ||
      !check_limit ("--max-variants", max_variants, 1, 1024, &code) ||
      !check_limit ("--min-tasks", min_tasks, 0, 1 << 20, &code))
    return code;
  if (block_threads != NOT_GIVEN && block_threads % 32 != 0)
    return prism_cli_fail ("search", _("--block-threads must be a multiple of 32"));
  if (resume && out == NULL)
    return prism_cli_fail ("search", _("--resume needs --out DIR"));
  if (out != NULL && *out == '\0')
    return prism_cli_fail ("search", _("--out must name a folder, not be empty"));
  if (tune_top != NOT_GIVEN && (tune_top < 0 || tune_top > 1000))
    return prism_cli_fail ("search", _("--tune-top must be between 0 and 1000"));
  if (tune_min_time != NOT_GIVEN_DOUBLE && !(tune_min_time > 0 && tune_min_time <= 1e6))
    return prism_cli_fail ("search", _("--tune-min-time must be a number of milliseconds > 0"));
  if (!check_device (device, &code))
    return code;

  /* Under mpirun: one search across the job's ranks (prism-mpi-run.h). */
  mpi = prism_mpi_run_init (&error);
  if (error != NULL)
    return prism_cli_fail ("search", error->message);
  /* Only rank 0 speaks; the others search. */
  quiet = mpi != NULL && prism_mpi_run_get_rank (mpi) != 0;

  program = open_program (mpi, argv[1], &error);
  if (program == NULL)
    return fail_startup (mpi, error);

  if (time_limit != NOT_GIVEN_DOUBLE)
    options.search.time_limit_s = time_limit;
  options.search.n_threads = (guint) threads;
  set_limit (&options.search.max_kernels, max_kernels);
  set_limit (&options.search.max_kernel_ops, max_kernel_ops);
  set_limit (&options.search.max_block_ops, max_block_ops);
  set_limit (&options.search.max_kernel_inputs, max_kernel_inputs);
  set_limit (&options.search.max_block_outputs, max_block_outputs);
  set_limit (&options.search.max_accums, max_accums);
  set_limit (&options.search.max_total_ops, max_total_ops);
  set_limit (&options.search.max_grid_dims, max_grid_dims);
  set_limit (&options.search.block_threads, block_threads);
  set_limit (&options.max_variants, max_variants);
  /* Every rank of an MPI run needs tasks of its own: the split goes deeper
   * as the ranks are more (the same depth on every rank). */
  options.search.min_tasks = min_tasks != NOT_GIVEN ? (guint) min_tasks
                             : mpi != NULL ? prism_search_min_tasks_for (prism_mpi_run_get_size (mpi)) : 0;
  options.seed = (guint64) seed;
  options.full_random = full_random;
  if (tune_top != NOT_GIVEN)
    options.tune_top = (guint) tune_top;
  if (tune_min_time != NOT_GIVEN_DOUBLE)
    options.tune_min_time_ms = tune_min_time;
  options.target = target;
  options.resume = resume;
  options.overwrite = force;
  options.source = argv[1];
  if (out == NULL)
    out = default_out_dir (argv[1], program);
  options.out_dir = out;
  options.peers = mpi ? prism_mpi_run_get_peers (mpi) : NULL;
  options.tune_device = rank_device (mpi, device);

  session = prism_session_new (program, &options, &error);
  if (session == NULL)
    return fail_startup (mpi, error);
  /* Every rank could start, or none searches. */
  if (mpi != NULL && !prism_mpi_run_check_startup (mpi, NULL, &error))
    {
      code = prism_mpi_run_get_rank (mpi) == 0 ? prism_cli_fail ("search", error->message)
                                               : PRISM_EXIT_BAD_INPUT;
      prism_mpi_run_finish (mpi);
      return code;
    }

  loop = g_main_loop_new (NULL, FALSE);
  run.loop = loop;
  run.session = session;
  run.json = json;
  run.verbose = verbose;
  run.quiet = quiet;
  run.tty = isatty (fileno (stderr));
  run.name = program->name ? program->name : argv[1];
  run.baseline = prism_baseline_kind_to_string (options.baseline);
  run.time_limit_s = options.search.time_limit_s;
  if (!quiet)
    g_signal_connect (session, "events", G_CALLBACK (on_events), &run);
  g_signal_connect (session, "finished", G_CALLBACK (on_finished), &run);
  sigint = g_unix_signal_add (SIGINT, on_signal, &run);
  sigterm = g_unix_signal_add (SIGTERM, on_signal, &run);

  prism_session_start (session);
  g_main_loop_run (loop);
  g_source_remove (sigint);
  g_source_remove (sigterm);

  prism_session_get_stats (session, &stats);
  cands = prism_session_get_candidates (session);
  for (guint i = 0; i < cands->len; i++)
    {
      const PrismCandidate *c = g_ptr_array_index (cands, i);
      const PrismMeasurement *m = prism_candidate_get_measurement (c);

      /* A candidate slower than the program is never the best one. */
      if (prism_candidate_is_faster (c) && (best == NULL || c->speedup > best->speedup))
        best = c;
      /* Read at the end: the ids are the final ones of results.json. */
      if (m != NULL && m->error == NULL && m->speedup > 1.0 &&
          (best_measured == NULL || m->speedup > prism_candidate_get_measurement (best_measured)->speedup))
        best_measured = c;
    }
  stop = prism_session_get_stop_reason (session);
  if (quiet)
    {
      g_free (run.gpu);
      prism_mpi_run_finish (mpi);
      return PRISM_EXIT_OK;
    }
  if (mpi != NULL && prism_mpi_run_get_problem (mpi) != NULL)
    {
      end_line (&run);
      fprintf (stderr, "prism search: %s\n", prism_mpi_run_get_problem (mpi));
    }
  if (!json)
    {
      end_line (&run);
      print_table (&run, cands);
      print_summary (&run, &stats, stop);
      if (best != NULL)
        /* TRANSLATORS: id, predicted µs, the baseline's predicted µs, what the
         * baseline is ("the vendor baseline (…)"), speedup, the GPU */
        fprintf (stderr, _("best: candidate %u, predicted %.2f µs vs %.2f µs for %s (%.2f×) on %s\n"),
                 best->id, best->predicted_us, prism_session_get_baseline_us (session),
                 prism_cli_baseline_label (run.baseline, FALSE), best->speedup,
                 prism_gpu_target_lookup (target ? target : "h100")->display_name);
      else if (cands->len > 0)
        fprintf (stderr, "%s\n", _("No candidate is faster than the program; keep the program."));
      if (best_measured != NULL)
        {
          const PrismMeasurement *m = prism_candidate_get_measurement (best_measured);

          /* TRANSLATORS: id, measured µs, the baseline's measured µs, what the
           * baseline is, speedup, the GPU */
          fprintf (stderr, _("best measured: candidate %u, %.2f µs vs %.2f µs for %s (%.2f×) on %s\n"),
                   best_measured->id, m->median_us, run.baseline_measured_us,
                   prism_cli_baseline_label (run.measured_baseline ? run.measured_baseline : run.baseline, FALSE),
                   m->speedup, run.gpu ? run.gpu : "?");
        }
      if (prism_session_get_results_path (session) != NULL && prism_session_get_save_error (session) == NULL)
        fprintf (stderr, _("results: %s\n"), prism_session_get_results_path (session));
    }
  g_free (run.gpu);
  result = run.error ? PRISM_EXIT_BAD_INPUT : cands->len > 0 ? PRISM_EXIT_OK : PRISM_EXIT_FAILED;
  /* Results that could not be saved are lost: never exit 0 after that. */
  if (prism_session_get_save_error (session) != NULL)
    {
      g_autofree char *msg = g_strdup_printf (_("the results could not be saved to %s: %s"),
                                              prism_session_get_results_path (session),
                                              prism_session_get_save_error (session)->message);

      end_line (&run);
      prism_cli_fail ("search", msg);
      if (result == PRISM_EXIT_OK)
        result = PRISM_EXIT_FAILED;
    }
  /* Ranks started differently: bad usage, whatever was found. */
  if (mpi != NULL && prism_mpi_run_is_misconfigured (mpi))
    result = PRISM_EXIT_BAD_INPUT;
  prism_mpi_run_finish (mpi);
  return result;
}
