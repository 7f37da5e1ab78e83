/* prism-cmd-calibrate.c — `prism calibrate`: measure the cost model's constants on the GPU
 *
 * Unlike `prism bench`, which still prints predicted times without a GPU,
 * calibrate exists to write a file; without a GPU it writes none and exits
 * with 1.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <stdio.h>
#include <glib/gi18n.h>
#include <json-glib/json-glib.h>

#include "prism-calibrate.h"
#include "prism-cli.h"
#include "prism-error.h"

static double
get_double (JsonObject *o, const char *name)
{
  return json_object_get_double_member_with_default (o, name, 0);
}

/* The measured values, one per line. */
static void
print_summary (JsonObject *doc, const char *path)
{
  JsonObject *ds = json_object_get_object_member (doc, "datasheet");
  JsonObject *cal = json_object_get_object_member (doc, "calibration");
  JsonObject *vg = json_object_get_object_member (cal, "vendor_gemm");
  JsonArray *sweep = json_object_get_array_member (cal, "dram_gbs_by_inflight");

  printf (_("Device: %s (sm_%d, %d SMs)\n"), json_object_get_string_member (doc, "display_name"),
          (int) json_object_get_int_member (ds, "compute_capability"), (int) json_object_get_int_member (ds, "sm_count"));
  printf (_("  launch gap          %8.2f µs\n"), get_double (cal, "launch_gap_us"));
  printf (_("  DRAM latency        %8.3f µs\n"), get_double (cal, "dram_latency_us"));
  printf (_("  L2 bandwidth        %8.0f GB/s\n"), get_double (cal, "l2_gbs"));
  printf (_("  DRAM bandwidth by bytes in flight per SM:\n"));
  for (guint i = 0; i < json_array_get_length (sweep); i++)
    {
      JsonObject *p = json_array_get_object_element (sweep, i);
      printf (_("    %4d KiB           %8.0f GB/s\n"), (int) json_object_get_int_member (p, "kib_per_sm"),
              get_double (p, "gbs"));
    }
  if (json_object_has_member (vg, "skipped"))
    printf (_("  cuBLASLt GEMM       not measured: %s\n"), json_object_get_string_member (vg, "skipped"));
  else
    printf (_("  cuBLASLt GEMM       efficiency %.2f of the roofline, fastest %.1f µs\n"),
            get_double (vg, "efficiency"), get_double (vg, "min_us"));
  printf (_("  SM clock            %8.0f MHz\n"), get_double (cal, "sm_clock_mhz"));
  printf (_("Source: %s\n"), json_object_get_string_member (cal, "source"));
  printf (_("Wrote %s\n"), path);
}

int
prism_cmd_calibrate (int argc, char **argv)
{
  g_autofree char *out = NULL;
  g_autofree char *datasheet = NULL;
  g_autofree char *gemms = NULL;
  g_autofree char *path = NULL;
  int device = 0;
  int timeout = 300;
  gboolean quick = FALSE;
  gboolean json = FALSE;
  gboolean keep = FALSE;
  GOptionEntry entries[] = {
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &out,
      N_("File to write (default: calibration-NAME.json in the current folder)"), N_("FILE") },
    { "device", 'd', 0, G_OPTION_ARG_INT, &device, N_("CUDA device ordinal (default 0)"), N_("K") },
    { "quick", 'q', 0, G_OPTION_ARG_NONE, &quick, N_("Fewer points and repetitions (under 30 s)"), NULL },
    { "timeout", 't', 0, G_OPTION_ARG_INT, &timeout,
      N_("Seconds the measurements may take before they are stopped (default 300)"), N_("S") },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Also print the file on standard output"), NULL },
    { "datasheet", 0, 0, G_OPTION_ARG_FILENAME, &datasheet,
      N_("A prism-gpu file whose datasheet (peak rates), name and match list are copied"), N_("FILE") },
    { "gemm-shapes", 0, 0, G_OPTION_ARG_STRING, &gemms,
      N_("cuBLASLt GEMMs to time, MxNxK,… in f16 (default 8x4096x4096,256x4096x4096,4096x4096x4096; "
         "empty for none)"), N_("LIST") },
    { "keep", 0, 0, G_OPTION_ARG_NONE, &keep, N_("Keep the job folder of the GPU worker"), NULL },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) doc = NULL;
  PrismCalibrateOptions options;

  if (!prism_cli_parse ("calibrate", "",
                        _("Measures on the GPU what the cost model needs: the launch gap, the DRAM latency, "
                          "the L2 bandwidth, the DRAM bandwidth by bytes in flight per SM, how close "
                          "cuBLASLt gets to the roofline, and the SM clock under load; writes them with "
                          "the device's limits as a prism-gpu file. Without a GPU it writes nothing and "
                          "exits with 1."),
                        entries, &argc, &argv))
    return PRISM_EXIT_BAD_INPUT;
  if (argc != 1)
    return prism_cli_fail ("calibrate", _("takes no arguments (see “prism calibrate --help”)"));
  if (timeout < 1 || device < 0)
    return prism_cli_fail ("calibrate", _("--timeout must be positive and --device not negative"));

  prism_calibrate_options_init (&options);
  options.device = device;
  options.quick = quick;
  options.timeout_s = (guint) timeout;
  options.datasheet = datasheet;
  options.gemm_shapes = gemms;
  options.keep_dir = keep;
  doc = prism_calibrate_run (&options, &error);
  if (doc == NULL)
    {
      if (g_error_matches (error, PRISM_ERROR, PRISM_ERROR_PARSE) ||
          g_error_matches (error, PRISM_ERROR, PRISM_ERROR_VERSION))
        return prism_cli_fail ("calibrate", error->message);
      g_printerr (_("prism calibrate: %s\n"), error->message);
      g_printerr (_("prism calibrate: nothing was measured, no file was written\n"));
      return PRISM_EXIT_FAILED;
    }

  if (out != NULL)
    path = g_strdup (out);
  else
    {
      /* The name may come from a datasheet file: keep it a file name. */
      g_autofree char *name = g_strdup (json_object_get_string_member (json_node_get_object (doc), "name"));
      path = g_strdup_printf ("calibration-%s.json", g_strdelimit (name, G_DIR_SEPARATOR_S, '-'));
    }
  if (!prism_calibrate_save (doc, path, &error))
    {
      g_printerr (_("prism calibrate: cannot write %s: %s\n"), path, error->message);
      return PRISM_EXIT_FAILED;
    }
  if (json)
    {
      g_autoptr(JsonGenerator) gen = json_generator_new ();
      g_autofree char *text = NULL;

      json_generator_set_pretty (gen, TRUE);
      json_generator_set_root (gen, doc);
      text = json_generator_to_data (gen, NULL);
      printf ("%s\n", text);
      g_printerr (_("Wrote %s\n"), path);
    }
  else
    print_summary (json_node_get_object (doc), path);
  return PRISM_EXIT_OK;
}
