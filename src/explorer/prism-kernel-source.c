/* prism-kernel-source.c — where a launch's kernel is in the generated CUDA
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "prism-kernel-source"

#include "config.h"

#include <string.h>

#include "prism-kernel-source.h"

/* The emitter writes every kernel as a comment ("Op 2: grid (…), 128
 * threads, …") and then
 *
 *   extern "C" __global__ void __launch_bounds__ (128)
 *   prism_rms_norm_k2 (const half *__restrict__ in0, …)
 *   {
 *     …
 *   }
 *
 * (prism-kernel-emit.c, emit_signature()): the name starts the line after
 * the one that says __global__, and the body ends at the first "}" alone at
 * the start of a line. */

static gboolean
line_names_kernel (const char *line,
                   const char *name)
{
  gsize n = strlen (name);

  return strncmp (line, name, n) == 0 && (line[n] == ' ' || line[n] == '(');
}

gboolean
prism_kernel_source_find (const char *source,
                          const char *name,
                          int        *first_line,
                          int        *last_line)
{
  g_auto(GStrv) lines = NULL;
  guint n;

  g_return_val_if_fail (first_line != NULL && last_line != NULL, FALSE);

  *first_line = *last_line = -1;
  if (source == NULL || name == NULL || *name == '\0')
    return FALSE;
  lines = g_strsplit (source, "\n", -1);
  n = g_strv_length (lines);
  for (guint i = 1; i < n; i++)
    {
      if (!line_names_kernel (lines[i], name) || strstr (lines[i - 1], "__global__") == NULL)
        continue;
      *first_line = (int) i - 1;
      if (i >= 2 && g_str_has_prefix (lines[i - 2], "/*"))
        *first_line = (int) i - 2;
      for (guint j = i + 1; j < n; j++)
        if (lines[j][0] == '}')
          {
            *last_line = (int) j;
            return TRUE;
          }
      *first_line = -1;
      return FALSE;
    }
  return FALSE;
}
