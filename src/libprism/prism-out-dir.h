/* prism-out-dir.h — the folder a search writes its results.json to
 *
 * A search checks its folder before it starts rather than finding out at
 * its first save (a regular file, a FIFO, a symlink loop, a read-only
 * folder, a results.json that is a folder), refuses to overwrite the
 * results of another program unless told to, and locks the folder so that
 * two searches never write one file.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "prism-graph.h"

G_BEGIN_DECLS

/* The lock file in the folder: the pid of the search that holds it. */
#define PRISM_OUT_DIR_LOCK_NAME ".prism-search.lock"

typedef struct _PrismOutDir PrismOutDir;

/**
 * prism_out_dir_open:
 * @dir: the folder (made, with its parents, unless @resume)
 * @program: the program about to be searched
 * @resume: the folder must exist; its results.json is continued
 * @overwrite: a results.json that is not this program's may be replaced
 *
 * Checks that @dir is a folder this process can write in, that its
 * results.json (if any) is a regular file and, unless @resume or
 * @overwrite, holds results of @program; then locks it.  A lock held by a
 * process that no longer exists is taken over.
 *
 * Returns: (transfer full) (nullable): the locked folder, or %NULL with
 *   @error (PRISM_ERROR_FAILED) naming the path and what is wrong
 */
PrismOutDir *prism_out_dir_open             (const char       *dir,
                                             const PrismGraph *program,
                                             gboolean          resume,
                                             gboolean          overwrite,
                                             GError          **error);
/* Unlocks the folder and frees @out (NULL is fine). */
void         prism_out_dir_close            (PrismOutDir      *out);
/* DIR/results.json (transfer none) */
const char  *prism_out_dir_get_results_path (PrismOutDir      *out);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrismOutDir, prism_out_dir_close)

G_END_DECLS
