/* prism-atomic-file.h — files written whole or not at all
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/**
 * prism_atomic_file_write:
 * @path: the file to write
 * @data: (array length=length): its contents
 *
 * Writes a temporary file beside @path, named after the writing process
 * ("NAME.tmp-PID-XXXXXX"), and renames it over @path: a reader sees the old
 * file or the new one, never half a file.  The temporary file is removed on
 * every failure; a writer killed in the middle leaves it for
 * prism_atomic_file_remove_stale().
 *
 * Returns: %FALSE with @error (a #GFileError) naming the file
 */
gboolean prism_atomic_file_write        (const char  *path,
                                         const char  *data,
                                         gsize        length,
                                         GError     **error);

/**
 * prism_atomic_file_remove_stale:
 * @path: a file written by prism_atomic_file_write()
 *
 * Removes the temporary files of @path left by writers that are gone: those
 * named after a process that no longer runs (on this machine), and those of
 * older versions ("NAME.XXXXXX", written by g_file_set_contents()), which
 * name no process, once they are an hour old.  A live writer's file is never
 * touched.
 *
 * Returns: how many were removed
 */
guint    prism_atomic_file_remove_stale (const char  *path);

G_END_DECLS
