/* prism-format.c — numbers, times and speedups as the explorer writes them
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <glib/gi18n.h>

#include "prism-format.h"

char *
prism_format_count (guint64 count)
{
  if (count < 1000)
    return g_strdup_printf ("%u", (guint) count);
  if (count < 1000000)
    /* Translators: a count in thousands, as in “12.3 k states” */
    return g_strdup_printf (_("%.*f k"), count < 10000 ? 2 : count < 100000 ? 1 : 0, count / 1e3);
  if (count < 1000000000)
    /* Translators: a count in millions */
    return g_strdup_printf (_("%.*f M"), count < 10000000 ? 2 : count < 100000000 ? 1 : 0,
                            count / 1e6);
  /* Translators: a count in billions */
  return g_strdup_printf (_("%.1f G"), count / 1e9);
}

char *
prism_format_exact (guint64 count)
{
  /* glibc's ' flag groups digits the locale's way. */
  return g_strdup_printf ("%'llu", (unsigned long long) count);
}

char *
prism_format_seconds (double seconds)
{
  if (!isfinite (seconds) || seconds < 0)
    seconds = 0;
  if (seconds < 0.001)
    /* Translators: less than a millisecond */
    return g_strdup (_("< 1 ms"));
  if (seconds < 1)
    /* Translators: milliseconds */
    return g_strdup_printf (_("%.0f ms"), seconds * 1e3);
  if (seconds < 10)
    /* Translators: seconds with one decimal */
    return g_strdup_printf (_("%.1f s"), seconds);
  if (seconds < 60)
    /* Translators: whole seconds */
    return g_strdup_printf (_("%.0f s"), floor (seconds));
  if (seconds < 3600)
    {
      guint s = (guint) seconds;
      /* Translators: minutes and seconds */
      return g_strdup_printf (_("%u min %02u s"), s / 60, s % 60);
    }
  {
    guint m = (guint) (seconds / 60);
    /* Translators: hours and minutes */
    return g_strdup_printf (_("%u h %02u min"), m / 60, m % 60);
  }
}

char *
prism_format_time_us (double us)
{
  if (!isfinite (us) || us < 0)
    return g_strdup ("—");
  if (us < 1)
    /* Translators: nanoseconds */
    return g_strdup_printf (_("%.0f ns"), us * 1e3);
  if (us < 1000)
    /* Translators: microseconds */
    return g_strdup_printf (_("%.*f µs"), us < 10 ? 2 : us < 100 ? 1 : 0, us);
  /* Translators: milliseconds */
  return g_strdup_printf (_("%.*f ms"), us < 1e4 ? 2 : us < 1e5 ? 1 : 0, us / 1e3);
}

char *
prism_format_speedup (double speedup)
{
  if (!isfinite (speedup) || speedup <= 0)
    return g_strdup ("—");
  /* Translators: a speedup over the unfused program, as in “1.42×” */
  return g_strdup_printf (_("%.2f×"), speedup);
}

char *
prism_format_error (double error)
{
  if (!isfinite (error))
    return g_strdup ("—");
  if (error == 0)
    return g_strdup ("0");
  if (error >= 0.01 && error < 1000)
    return g_strdup_printf ("%.3g", error);
  return g_strdup_printf ("%.2e", error);
}

char *
prism_format_bytes (double bytes)
{
  if (!isfinite (bytes) || bytes < 0)
    return g_strdup ("—");
  if (bytes < 1024)
    /* Translators: bytes */
    return g_strdup_printf (_("%.0f B"), bytes);
  if (bytes < 1024 * 1024)
    /* Translators: kibibytes */
    return g_strdup_printf (_("%.1f KiB"), bytes / 1024);
  if (bytes < 1024.0 * 1024 * 1024)
    /* Translators: mebibytes */
    return g_strdup_printf (_("%.1f MiB"), bytes / (1024.0 * 1024));
  /* Translators: gibibytes */
  return g_strdup_printf (_("%.2f GiB"), bytes / (1024.0 * 1024 * 1024));
}

char *
prism_format_flops_rate (double gflops)
{
  if (!isfinite (gflops) || gflops < 0)
    return g_strdup ("—");
  if (gflops < 1)
    /* Translators: a rate in millions of floating-point operations per second */
    return g_strdup_printf (_("%.0f MFLOP/s"), gflops * 1e3);
  if (gflops < 1000)
    /* Translators: a rate in billions of floating-point operations per second */
    return g_strdup_printf (_("%.*f GFLOP/s"), gflops < 10 ? 2 : gflops < 100 ? 1 : 0, gflops);
  /* Translators: a rate in trillions of floating-point operations per second */
  return g_strdup_printf (_("%.*f TFLOP/s"), gflops < 1e4 ? 2 : gflops < 1e5 ? 1 : 0, gflops / 1e3);
}

char *
prism_format_bandwidth (double gbs)
{
  if (!isfinite (gbs) || gbs < 0)
    return g_strdup ("—");
  if (gbs < 1000)
    /* Translators: a bandwidth in gigabytes per second */
    return g_strdup_printf (_("%.0f GB/s"), gbs);
  /* Translators: a bandwidth in terabytes per second */
  return g_strdup_printf (_("%.2f TB/s"), gbs / 1e3);
}

char *
prism_format_intensity (double flop_per_byte)
{
  if (!isfinite (flop_per_byte) || flop_per_byte < 0)
    return g_strdup ("—");
  if (flop_per_byte >= 100)
    /* Translators: arithmetic intensity, floating-point operations per byte of DRAM traffic */
    return g_strdup_printf (_("%.0f FLOP/B"), flop_per_byte);
  /* Translators: arithmetic intensity, floating-point operations per byte of DRAM traffic */
  return g_strdup_printf (_("%.3g FLOP/B"), flop_per_byte);
}

/* The engine's reason names (order, expr, …) are identifiers for files and
 * scripts; the window says what they mean. */
const char *
prism_format_prune_reason (PrismPruneReason reason)
{
  switch (reason)
    {
    case PRISM_PRUNE_ORDER:     return C_("pruning reason", "Other order");
    case PRISM_PRUNE_DUPLICATE: return C_("pruning reason", "Repeated operand");
    case PRISM_PRUNE_SHAPE:     return C_("pruning reason", "Shape mismatch");
    case PRISM_PRUNE_LOOP:      return C_("pruning reason", "Loop mix-up");
    case PRISM_PRUNE_EXPR:      return C_("pruning reason", "Not in program");
    case PRISM_PRUNE_SMEM:      return C_("pruning reason", "Shared memory");
    case PRISM_PRUNE_ACCUM:     return C_("pruning reason", "Accumulator limit");
    case PRISM_PRUNE_OPS:       return C_("pruning reason", "Op limit");
    case PRISM_PRUNE_TRIVIAL:   return C_("pruning reason", "Copies only");
    case PRISM_PRUNE_TIME:      return C_("pruning reason", "Out of time");
    case PRISM_N_PRUNE_REASONS:
    default:
      g_return_val_if_reached ("?");
    }
}
