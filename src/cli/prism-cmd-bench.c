/* prism-cmd-bench.c — `prism bench`: time candidates and the unfused baseline on the GPU
 *
 * Without a GPU it says so and prints the cost model's predicted times
 * instead (clearly labelled), and still exits with 0: a machine without a
 * GPU is a normal place to run it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <glib/gi18n.h>
#include <json-glib/json-glib.h>

#include "prism-cli.h"
#include "prism-cost-model.h"
#include "prism-error.h"
#include "prism-gpu-bench.h"
#include "prism-gpu-target.h"
#include "prism-graph-json.h"
#include "prism-results.h"
#include "prism-workload.h"

typedef struct
{
  char *label;
  PrismGraph *graph;        /* NULL when @error says why there is none */
  char *error;
  gboolean baseline;        /* a row of the unfused program */
  PrismBaselineKind kind;   /* baseline rows: how its matmuls run */
} Entry;

static void
entry_free (gpointer data)
{
  Entry *e = data;

  g_free (e->label);
  g_clear_pointer (&e->graph, prism_graph_unref);
  g_free (e->error);
  g_free (e);
}

static void
add_entry (GPtrArray *entries, char *label, PrismGraph *graph, gboolean baseline)
{
  Entry *e = g_new0 (Entry, 1);

  e->label = label;
  e->graph = graph;
  e->baseline = baseline;
  e->kind = PRISM_BASELINE_LOWERED;
  g_ptr_array_add (entries, e);
}

/* The unfused program twice: as the vendor baseline runs it (matmuls
 * through cuBLASLt) and as Prism lowers it. */
static void
add_baselines (GPtrArray *entries, const char *name, PrismGraph *graph)
{
  Entry *e;

  /* TRANSLATORS: a row of `prism bench`: the program's name */
  add_entry (entries, g_strdup_printf (_("%s (unfused, vendor)"), name), prism_graph_ref (graph), TRUE);
  e = g_ptr_array_index (entries, entries->len - 1);
  e->kind = PRISM_BASELINE_VENDOR;
  /* TRANSLATORS: a row of `prism bench`: the program's name */
  add_entry (entries, g_strdup_printf (_("%s (unfused, prism-lowered)"), name), graph, TRUE);
}

/* What to time: the unfused program first (the baseline), then the fused
 * graphs. */
static GPtrArray *
collect (const char *arg, guint n_candidates, char **results_target, GError **error)
{
  g_autoptr(GPtrArray) entries = g_ptr_array_new_with_free_func (entry_free);
  g_auto(GStrv) parts = g_strsplit (arg, ":", 2);
  const PrismWorkloadInfo *info = prism_workload_lookup (parts[0]);

  if (prism_cli_is_mirage_file (arg))
    {
      /* One row per graph, in file order; a graph that could not be read
       * keeps its row, with why.  The file holds no unfused program, so
       * there is no baseline. */
      g_autoptr(GPtrArray) graphs = prism_cli_open_mirage (arg, error);

      if (graphs == NULL)
        return NULL;
      for (guint i = 0; i < graphs->len; i++)
        {
          PrismMirageGraph *m = g_ptr_array_index (graphs, i);

          add_entry (entries, prism_cli_mirage_label (m), g_steal_pointer (&m->graph), FALSE);
          if (m->error != NULL)
            ((Entry *) g_ptr_array_index (entries, entries->len - 1))->error = g_strdup (prism_cli_mirage_error (m));
        }
    }
  else if (prism_cli_is_results_file (arg))
    {
      g_autoptr(GPtrArray) ids = NULL;
      PrismGraph *program = NULL;
      g_autoptr(GPtrArray) graphs = prism_cli_open_candidates (arg, NULL, n_candidates, &ids, &program,
                                                               results_target, error);

      if (graphs == NULL)
        return NULL;
      add_baselines (entries, _("program"), program);
      for (guint i = 0; i < graphs->len; i++)
        add_entry (entries, g_strdup_printf (_("candidate %s"), (const char *) g_ptr_array_index (ids, i)),
                   prism_graph_ref (g_ptr_array_index (graphs, i)), FALSE);
    }
  else if (info != NULL)
    {
      PrismGraph *g = prism_cli_open_program (arg, error);

      if (g == NULL)
        return NULL;
      add_baselines (entries, info->name, g);
      if (info->has_reference)
        {
          g = prism_cli_open_reference (arg, error);
          if (g == NULL)
            return NULL;
          add_entry (entries, g_strdup_printf (_("%s (reference fused)"), info->name), g, FALSE);
        }
    }
  else
    {
      PrismGraph *g = prism_cli_open_program (arg, error);
      g_autofree char *base = g_path_get_basename (arg);

      if (g == NULL)
        {
          prism_cli_name_file (error, arg);
          return NULL;
        }
      add_baselines (entries, base, g);
    }
  return g_steal_pointer (&entries);
}

/* The row speedups are against: the unfused program as @kind runs it. */
static const Entry *
find_baseline (GPtrArray *entries, PrismBaselineKind kind)
{
  for (guint i = 0; i < entries->len; i++)
    {
      const Entry *e = g_ptr_array_index (entries, i);
      if (e->baseline && e->kind == kind)
        return e;
    }
  return NULL;
}

typedef enum { FORMAT_TEXT, FORMAT_MARKDOWN, FORMAT_JSON } Format;

/* One launch's account and its predicted cost, for --explain. */
static void
print_launch (guint index, const PrismOpCost *c)
{
  const PrismLaunch *l = &c->launch;

  if (l->role == PRISM_LAUNCH_VENDOR_GEMM)
    /* TRANSLATORS: --explain: a matmul run by cuBLASLt (batch, M, N, K) */
    printf (_("    launch %u: cuBLASLt GEMM %lld×%lld×%lld×%lld, %.2f MB from DRAM, %.2f GFLOP\n"),
            index, (long long) l->gemm_batch, (long long) l->gemm_m, (long long) l->gemm_n,
            (long long) l->gemm_k, l->dram_bytes / 1e6, (l->tensor_flops + l->fma_flops) / 1e9);
  else
    /* TRANSLATORS: --explain: one launch's plan */
    printf (_("    launch %u: grid %u×%u×%u, %u threads, loop %lld, %u stages, %.1f KiB in "
              "flight per SM (%u blocks/SM), %u of %u warps on %s, %.2f MB from DRAM, %.2f MB through L2, "
              "%.3f GFLOP%s\n"),
            index, l->grid[0], l->grid[1], l->grid[2], l->block_threads, (long long) l->loop_iterations, l->stages,
            (double) l->bytes_in_flight_per_sm / 1024.0, l->blocks_per_sm, l->work_warps, l->warps,
            prism_mma_path_to_string (l->mma), l->dram_bytes / 1e6, l->l2_bytes / 1e6,
            (l->tensor_flops + l->fma_flops + l->other_flops) / 1e9,
            l->split_outputs > 0 ? _(", partial sums added by the last block") : "");
  /* TRANSLATORS: --explain: the terms of the cost model, in µs */
  printf (_("      %.2f µs = launch %.2f + max (DRAM %.2f, L2 %.2f, compute %.2f, latency %.2f)\n"),
          c->us, c->launch_us, c->memory_us, c->l2_us, c->compute_us, c->latency_us);
}

/* The row of a graph that could not be read (a Mirage file's): why. */
static void
print_unread (JsonBuilder *b, const Entry *e, Format format)
{
  g_autofree char *safe = prism_cli_escape (e->error);

  if (format == FORMAT_JSON)
    {
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "program");
      json_builder_add_string_value (b, e->label);
      json_builder_set_member_name (b, "error");
      json_builder_add_string_value (b, e->error);
      json_builder_end_object (b);
    }
  else if (format == FORMAT_MARKDOWN)
    {
      g_autofree char *one_line = g_strdelimit (g_strdup (safe), "\n|", ' ');
      /* TRANSLATORS: a row of `prism bench` for a graph that could not be read */
      printf (_("| %s | not read: %s | | |\n"), e->label, one_line);
    }
  else
    /* TRANSLATORS: a row of `prism bench` for a graph that could not be read */
    printf (_("%-44s not read: %s\n"), e->label, safe);
}

/* Rows that could not be read make the input bad (exit 2), as in `prism check`. */
static int
unread_status (GPtrArray *entries)
{
  guint n = 0;

  for (guint i = 0; i < entries->len; i++)
    n += ((const Entry *) g_ptr_array_index (entries, i))->graph == NULL;
  if (n == 0)
    return PRISM_EXIT_OK;
  {
    g_autofree char *msg = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u of %u graphs could not be read",
                                                         "%u of %u graphs could not be read", n),
                                            n, entries->len);
    return prism_cli_fail ("bench", msg);
  }
}

static int
print_predicted (GPtrArray *entries, const char *target_name, const char *why, Format format,
                 PrismBaselineKind against, gboolean explain)
{
  const PrismGpuTarget *target = target_name ? prism_gpu_target_lookup (target_name)
                                             : prism_gpu_target_default ();
  double base_us = NAN;
  const Entry *base = find_baseline (entries, against);
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(GArray) costs = g_array_new (FALSE, TRUE, sizeof (PrismOpCost));

  if (target == NULL)
    {
      g_autofree char *names = prism_cli_target_names ();
      g_autofree char *msg = g_strdup_printf (_("unknown --target “%s” (one of %s)"), target_name, names);
      return prism_cli_fail ("bench", msg);
    }
  if (base != NULL)
    {
      PrismCostEstimate est;
      if (prism_cost_model_predict_baseline (target, base->graph, base->kind, &est, NULL))
        base_us = est.total_us;
    }

  if (format == FORMAT_JSON)
    {
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "gpu");
      json_builder_add_boolean_value (b, FALSE);
      json_builder_set_member_name (b, "message");
      json_builder_add_string_value (b, why);
      json_builder_set_member_name (b, "predicted_for");
      json_builder_add_string_value (b, target->name);
      json_builder_set_member_name (b, "calibration");
      json_builder_add_string_value (b, target->calibration_source);
      json_builder_set_member_name (b, "speedup_against");
      if (base != NULL)
        json_builder_add_string_value (b, prism_baseline_kind_to_string (against));
      else
        json_builder_add_null_value (b);
      json_builder_set_member_name (b, "programs");
      json_builder_begin_array (b);
    }
  else
    {
      printf (_("Not measured: %s\n"), why);
      if (base != NULL)
        printf (_("Predicted times (cost model for %s, %s; not measured); speedups against %s:\n\n"),
                target->display_name, target->measured ? _("calibrated on the GPU") : _("uncalibrated estimates"),
                prism_cli_baseline_label (prism_baseline_kind_to_string (against), FALSE));
      else
        printf (_("Predicted times (cost model for %s, %s; not measured); no unfused program to compare "
                  "with, so no speedups:\n\n"),
                target->display_name, target->measured ? _("calibrated on the GPU") : _("uncalibrated estimates"));
      if (format == FORMAT_MARKDOWN)
        printf ("| %s | %s | %s | %s |\n|---|---:|---:|---:|\n", _("program"), _("launches"),
                _("predicted (µs)"), _("predicted speedup"));
      else
        printf ("%-44s %8s %16s %18s\n", _("program"), _("launches"), _("predicted µs"), _("predicted speedup"));
    }
  for (guint i = 0; i < entries->len; i++)
    {
      const Entry *e = g_ptr_array_index (entries, i);
      g_autoptr(GError) error = NULL;
      PrismCostEstimate est;
      gboolean ok;
      double speedup;
      guint n;

      if (e->graph == NULL)
        {
          print_unread (b, e, format);
          continue;
        }
      ok = prism_cost_model_predict_launches (target, e->graph, NULL, 0, e->kind, costs, &est, &error);
      speedup = ok && !isnan (base_us) ? base_us / est.total_us : NAN;
      n = ok ? est.n_launches : prism_cost_model_count_launches (e->graph);

      if (format == FORMAT_JSON)
        {
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "program");
          json_builder_add_string_value (b, e->label);
          json_builder_set_member_name (b, "baseline");
          if (e->baseline)
            json_builder_add_string_value (b, prism_baseline_kind_to_string (e->kind));
          else
            json_builder_add_null_value (b);
          json_builder_set_member_name (b, "kernels");
          json_builder_add_int_value (b, n);
          json_builder_set_member_name (b, "predicted_us");
          json_builder_add_double_value (b, ok ? est.total_us : -1);
          json_builder_set_member_name (b, "physics_us");
          json_builder_add_double_value (b, ok ? est.physics_us : -1);
          json_builder_set_member_name (b, "predicted_speedup");
          json_builder_add_double_value (b, isnan (speedup) ? -1 : speedup);
          json_builder_end_object (b);
          continue;
        }
      else if (!ok)
        printf (format == FORMAT_MARKDOWN ? "| %s | %u | %s | |\n" : "%-44s %8u %s\n", e->label, n,
                error->message);
      else
        {
          g_autofree char *sp = isnan (speedup) ? g_strdup ("") : g_strdup_printf ("%.2f×", speedup);

          if (format == FORMAT_MARKDOWN)
            printf ("| %s | %u | %.1f | %s |\n", e->label, n, est.total_us, sp);
          else
            printf ("%-44s %8u %16.1f %18s\n", e->label, n, est.total_us, sp);
        }
      if (explain && ok)
        for (guint j = 0; j < costs->len; j++)
          print_launch (j, &g_array_index (costs, PrismOpCost, j));
    }
  if (format == FORMAT_JSON)
    {
      g_autoptr(JsonGenerator) gen = json_generator_new ();
      g_autoptr(JsonNode) root = NULL;
      g_autofree char *text = NULL;

      json_builder_end_array (b);
      json_builder_end_object (b);
      root = json_builder_get_root (b);
      json_generator_set_pretty (gen, TRUE);
      json_generator_set_root (gen, root);
      text = json_generator_to_data (gen, NULL);
      printf ("%s\n", text);
    }
  return unread_status (entries);
}

int
prism_cmd_bench (int argc, char **argv)
{
  int n_candidates = 3;
  int timeout = 120;
  int device = 0;
  double min_time = 100;
  g_autofree char *format_name = NULL;
  g_autofree char *target = NULL;
  g_autofree char *baseline = NULL;
  g_autofree char *results_target = NULL;
  gboolean keep = FALSE, explain = FALSE;
  PrismBaselineKind against = PRISM_BASELINE_VENDOR;
  GOptionEntry entries[] = {
    { "candidates", 'n', 0, G_OPTION_ARG_INT, &n_candidates,
      N_("With a prism-results file: how many verified candidates to time, best first (default 3)"), N_("N") },
    { "timeout", 't', 0, G_OPTION_ARG_INT, &timeout,
      N_("Seconds one program may take on the GPU before it is stopped (default 120)"), N_("S") },
    { "device", 'd', 0, G_OPTION_ARG_INT, &device, N_("CUDA device ordinal (default 0)"), N_("K") },
    { "min-time", 0, 0, G_OPTION_ARG_DOUBLE, &min_time,
      N_("Milliseconds of samples to collect per program (default 100)"), N_("MS") },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format_name,
      N_("Output: text (default), markdown or json"), N_("FORMAT") },
    { "target", 0, 0, G_OPTION_ARG_STRING, &target,
      N_("GPU whose cost model predicts times when there is no GPU (h100, h200, a100)"), N_("NAME") },
    { "baseline", 'b', 0, G_OPTION_ARG_STRING, &baseline,
      N_("What speedups are against: vendor (default: the unfused program with its matmuls through "
         "cuBLASLt) or prism-lowered"), N_("KIND") },
    { "explain", 'e', 0, G_OPTION_ARG_NONE, &explain,
      N_("Without a GPU: print every launch's plan and the terms of its predicted time"), NULL },
    { "keep", 0, 0, G_OPTION_ARG_NONE, &keep, N_("Keep the job folders of the GPU worker"), NULL },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) programs = NULL;
  g_autoptr(JsonBuilder) jb = json_builder_new ();
  g_autofree char *device_text = NULL;
  PrismGpuBenchOptions options;
  Format format = FORMAT_TEXT;
  const char *against_label = NULL;
  double base_us = NAN;
  int status = PRISM_EXIT_OK;

  if (!prism_cli_parse ("bench", _("RESULTS.json|FILE|WORKLOAD"),
                        /* xgettext:no-c-format */
                        _("Times programs on the GPU: the unfused program (the baseline) and the fused "
                          "graphs (a workload’s reference graph, the best candidates of a "
                          "prism-results file, or every graph of a Mirage muGraph file). Each program is generated, compiled with NVRTC, "
                          "checked against the CPU interpreter and timed in a child process "
                          "(median, p20–p80, TFLOP/s, GB/s, % of roofline). Without a GPU it says "
                          "so and prints predicted times instead."),
                        entries, &argc, &argv))
    return PRISM_EXIT_BAD_INPUT;
  if (argc != 2)
    return prism_cli_fail ("bench", _("expected one RESULTS.json, FILE or WORKLOAD (see “prism bench --help”)"));
  if (format_name == NULL || g_str_equal (format_name, "text"))
    format = FORMAT_TEXT;
  else if (g_str_equal (format_name, "markdown"))
    format = FORMAT_MARKDOWN;
  else if (g_str_equal (format_name, "json"))
    format = FORMAT_JSON;
  else
    return prism_cli_fail ("bench", _("--format must be text, markdown or json"));
  if (device < 0)
    return prism_cli_fail ("bench", _("--device must not be negative"));
  if (n_candidates < 1 || timeout < 1 || !(min_time > 0))
    return prism_cli_fail ("bench", _("--candidates, --timeout and --min-time must be positive"));
  if (baseline != NULL && !prism_baseline_kind_from_string (baseline, &against))
    return prism_cli_fail ("bench", _("--baseline must be vendor or prism-lowered"));

  programs = collect (argv[1], (guint) n_candidates, &results_target, &error);
  if (programs == NULL)
    return prism_cli_fail_with ("bench", error);
  /* The baseline speedups are against comes first. */
  if (programs->len >= 2 && against == PRISM_BASELINE_LOWERED)
    {
      gpointer first = programs->pdata[0];
      programs->pdata[0] = programs->pdata[1];
      programs->pdata[1] = first;
    }
  against_label = prism_cli_baseline_label (prism_baseline_kind_to_string (against), TRUE);
  if (programs->len == 0)
    return prism_cli_fail ("bench", _("nothing to time"));

  if (!prism_gpu_bench_probe (device, &device_text, &error))
    {
      if (!g_error_matches (error, PRISM_ERROR, PRISM_ERROR_NO_GPU))
        return prism_cli_fail ("bench", error->message);
      /* A results file predicts for the target its search used. */
      if (target == NULL && results_target != NULL && prism_gpu_target_lookup (results_target) != NULL)
        target = g_strdup (results_target);
      return print_predicted (programs, target, error->message, format, against, explain);
    }
  g_clear_error (&error);

  prism_gpu_bench_options_init (&options);
  options.timeout_s = (guint) timeout;
  options.device = device;
  options.min_time_ms = min_time;
  options.keep_dir = keep;
  if (find_baseline (programs, PRISM_BASELINE_LOWERED) != NULL)
    options.work_graph = find_baseline (programs, PRISM_BASELINE_LOWERED)->graph;

  if (format == FORMAT_JSON)
    {
      json_builder_begin_object (jb);
      json_builder_set_member_name (jb, "gpu");
      json_builder_add_boolean_value (jb, TRUE);
      json_builder_set_member_name (jb, "device");
      json_builder_add_string_value (jb, device_text);
      json_builder_set_member_name (jb, "programs");
      json_builder_begin_array (jb);
    }
  else
    {
      printf (_("Device: %s\n\n"), device_text);
      if (format == FORMAT_MARKDOWN)
        printf ("| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n"
                "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
                _("program"), _("kernels"), _("median (µs)"), _("p20–p80 (µs)"), "TFLOP/s", "GB/s",
                /* xgettext:no-c-format */
                _("% of roofline"), _("speedup"), _("max rel. error"));
      else
        printf ("%-36s %7s %11s %19s %8s %8s %9s %8s %10s\n", _("program"), _("kernels"), _("median µs"),
                _("p20–p80 µs"), "TFLOP/s", "GB/s", _("roofline"), _("speedup"), _("max error"));
    }

  for (guint i = 0; i < programs->len; i++)
    {
      const Entry *e = g_ptr_array_index (programs, i);
      PrismGpuBenchResult r;
      g_autoptr(GError) err = NULL;
      double speedup = NAN;

      if (e->graph == NULL)
        {
          print_unread (jb, e, format);
          status = PRISM_EXIT_FAILED;
          continue;
        }
      options.vendor_matmul = e->baseline && e->kind == PRISM_BASELINE_VENDOR;
      if (!prism_gpu_bench_run (e->graph, &options, &r, &err))
        {
          /* The vendor baseline needs cuBLASLt; without it, speedups are
           * against the prism-lowered row, and the output says so. */
          if (e->baseline && isnan (base_us))
            against_label = prism_cli_baseline_label (prism_baseline_kind_to_string (e->kind == PRISM_BASELINE_VENDOR
                                                                                      ? PRISM_BASELINE_LOWERED
                                                                                      : PRISM_BASELINE_VENDOR),
                                                      TRUE);
          status = PRISM_EXIT_FAILED;
          if (format == FORMAT_JSON)
            {
              json_builder_begin_object (jb);
              json_builder_set_member_name (jb, "program");
              json_builder_add_string_value (jb, e->label);
              json_builder_set_member_name (jb, "error");
              json_builder_add_string_value (jb, err->message);
              json_builder_end_object (jb);
            }
          else if (format == FORMAT_MARKDOWN)
            {
              g_autofree char *one_line = g_strdelimit (g_strdup (err->message), "\n|", ' ');
              printf (_("| %s | failed: %s | | | | | | | |\n"), e->label, one_line);
            }
          else
            printf (_("%-36s failed: %s\n"), e->label, err->message);
          prism_gpu_bench_result_clear (&r);
          continue;
        }
      if (e->baseline && isnan (base_us))
        base_us = r.median_us;
      if (!isnan (base_us))
        speedup = base_us / r.median_us;

      if (format == FORMAT_JSON)
        {
          json_builder_begin_object (jb);
          json_builder_set_member_name (jb, "program");
          json_builder_add_string_value (jb, e->label);
          json_builder_set_member_name (jb, "baseline");
          if (e->baseline)
            json_builder_add_string_value (jb, prism_baseline_kind_to_string (e->kind));
          else
            json_builder_add_null_value (jb);
          json_builder_set_member_name (jb, "kernels");
          json_builder_add_int_value (jb, r.n_kernels);
          json_builder_set_member_name (jb, "samples");
          json_builder_add_int_value (jb, r.n_samples);
          json_builder_set_member_name (jb, "median_us");
          json_builder_add_double_value (jb, r.median_us);
          json_builder_set_member_name (jb, "p20_us");
          json_builder_add_double_value (jb, r.p20_us);
          json_builder_set_member_name (jb, "p80_us");
          json_builder_add_double_value (jb, r.p80_us);
          json_builder_set_member_name (jb, "min_us");
          json_builder_add_double_value (jb, r.min_us);
          json_builder_set_member_name (jb, "cv");
          json_builder_add_double_value (jb, r.cv);
          json_builder_set_member_name (jb, "tflops");
          json_builder_add_double_value (jb, r.tflops);
          json_builder_set_member_name (jb, "gbs");
          json_builder_add_double_value (jb, r.gbs);
          json_builder_set_member_name (jb, "roofline_pct");
          json_builder_add_double_value (jb, r.roofline_pct);
          json_builder_set_member_name (jb, "speedup");
          json_builder_add_double_value (jb, isnan (speedup) ? -1 : speedup);
          json_builder_set_member_name (jb, "max_rel_error");
          json_builder_add_double_value (jb, r.max_rel_error);
          json_builder_set_member_name (jb, "arch");
          json_builder_add_string_value (jb, r.arch);
          json_builder_end_object (jb);
        }
      else
        {
          g_autofree char *range = g_strdup_printf ("%.1f–%.1f", r.p20_us, r.p80_us);
          g_autofree char *sp = isnan (speedup) ? g_strdup ("") : g_strdup_printf ("%.2f×", speedup);

          if (format == FORMAT_MARKDOWN)
            printf ("| %s | %u | %.1f | %s | %.2f | %.0f | %.0f %% | %s | %.1e |\n", e->label, r.n_kernels,
                    r.median_us, range, r.tflops, r.gbs, r.roofline_pct, sp, r.max_rel_error);
          else
            printf ("%-36s %7u %11.1f %19s %8.2f %8.0f %8.0f%% %8s %10.1e\n", e->label, r.n_kernels,
                    r.median_us, range, r.tflops, r.gbs, r.roofline_pct, sp, r.max_rel_error);
        }
      prism_gpu_bench_result_clear (&r);
    }

  if (format == FORMAT_JSON)
    {
      g_autoptr(JsonGenerator) gen = json_generator_new ();
      g_autoptr(JsonNode) root = NULL;
      g_autofree char *text = NULL;

      json_builder_end_array (jb);
      json_builder_set_member_name (jb, "speedup_against");
      json_builder_add_string_value (jb, against_label);
      json_builder_end_object (jb);
      root = json_builder_get_root (jb);
      json_generator_set_pretty (gen, TRUE);
      json_generator_set_root (gen, root);
      text = json_generator_to_data (gen, NULL);
      printf ("%s\n", text);
    }
  else
    /* TRANSLATORS: after the table of `prism bench`: "the vendor baseline" */
    printf (_("\nSpeedups are against %s.\n"), against_label);
  return unread_status (programs) != PRISM_EXIT_OK ? PRISM_EXIT_BAD_INPUT : status;
}
