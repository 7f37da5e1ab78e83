/* prism-run-info.h — one run the explorer cached: where, when, how big
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/**
 * PrismRunInfo:
 * @path: the run's folder
 * @name: its name (the program's, the date and a number)
 * @results: (nullable): its results.json, if it has one
 * @modified: when its results were last written (seconds since the epoch)
 * @bytes: what the folder takes on disk
 * @summary: (nullable): what the run was, read from its results (program,
 *   mode and target, counts, best, how it ended); %NULL when it has none or
 *   they cannot be read
 * @limits: (nullable): its search options, "name=value" separated by
 *   spaces, in the file's order
 */
typedef struct
{
  char *path;
  char *name;
  char *results;
  gint64 modified;
  guint64 bytes;
  char *summary;
  char *limits;
} PrismRunInfo;

void       prism_run_info_free      (PrismRunInfo *info);

/* (transfer full) the folder the explorer's searches write their runs to */
char      *prism_run_info_default_folder (void);

/**
 * prism_run_info_scan:
 * @folder: a folder of runs
 *
 * Lists the runs in @folder, newest first, with what each takes on disk.
 * Blocking (it walks every run): call it off the main thread.
 *
 * Returns: (transfer full) (element-type PrismRunInfo): the runs; empty when
 *   @folder does not exist
 */
GPtrArray *prism_run_info_scan   (const char   *folder);

/**
 * prism_run_info_delete:
 * @info: a run of prism_run_info_scan()
 *
 * Deletes the run's folder and everything in it (a run folder holds plain
 * files only; anything else is refused).
 */
gboolean   prism_run_info_delete    (const PrismRunInfo *info,
                                         GError            **error);

/**
 * prism_run_info_compare:
 * @a: a run
 * @b: another
 *
 * Returns: (transfer full): what differs between the two runs' summaries
 *   and search options, one line each ("max_block_ops: 13 → 15"); empty
 *   lines mean nothing that they record differs
 */
GPtrArray *prism_run_info_compare   (const PrismRunInfo *a,
                                     const PrismRunInfo *b);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrismRunInfo, prism_run_info_free)

G_END_DECLS
