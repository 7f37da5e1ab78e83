/* prism-format.h — numbers, times and speedups as the explorer writes them
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "prism-search.h"

G_BEGIN_DECLS

/* "987", "12.3 k", "4.56 M" (transfer full) */
char *prism_format_count    (guint64 count);
/* "1,234,567" with the locale's grouping (transfer full) */
char *prism_format_exact    (guint64 count);
/* "< 1 ms", "250 ms", "4.2 s", "42 s", "3 min 05 s", "1 h 02 min" (transfer full) */
char *prism_format_seconds  (double  seconds);
/* "812 ns", "12.3 µs", "1.23 ms" (transfer full) */
char *prism_format_time_us  (double  microseconds);
/* "1.42×" (transfer full) */
char *prism_format_speedup  (double  speedup);
/* "0.05", "2.4e-07"; "—" when not a number (transfer full) */
char *prism_format_error    (double  error);
char *prism_format_prediction_error (double predicted_us,
                                     double measured_us);
/* "512 B", "42.3 KiB", "1.5 MiB", "2.00 GiB"; "—" when not a number (transfer full) */
char *prism_format_bytes    (double  bytes);
/* "850 GFLOP/s", "12.3 TFLOP/s" from GFLOP/s; "—" when not a number (transfer full) */
char *prism_format_flops_rate (double gflops);
/* "900 GB/s", "3.35 TB/s" from GB/s; "—" when not a number (transfer full) */
char *prism_format_bandwidth (double gbs);
/* "0.25 FLOP/B", "128 FLOP/B": arithmetic intensity; "—" when not a number (transfer full) */
char *prism_format_intensity (double flop_per_byte);

/* A pruning reason in a few words, for legends: "Shape mismatch" (transfer none) */
const char *prism_format_prune_reason (PrismPruneReason reason);
/* The verifier's verdict ("equivalent", "not-equivalent", …) in words (transfer none) */
const char *prism_format_verdict      (const char       *verdict);
char       *prism_format_rule         (const char       *name);

G_END_DECLS
