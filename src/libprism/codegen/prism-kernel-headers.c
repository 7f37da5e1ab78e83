/* prism-kernel-headers.c — the device runtime headers, embedded as a GResource
 *
 * The headers are compiled into the library so that an exported bundle is
 * complete and NVRTC can be handed them in memory, wherever the library
 * runs, whether or not the source tree or an installed copy is around.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <gio/gio.h>

#include "prism-error.h"
#include "prism-kernel-headers.h"
#include "prism-kernels-resources.h"

#define RESOURCE_PREFIX "/org/prism/kernels/"

static const char * const headers[] = {
  "prism-runtime.cuh",
  "prism-platform.cuh",
  "prism-tile.cuh",
  "prism-elementwise.cuh",
  "prism-reduce.cuh",
  "prism-mma.cuh",
  "prism-split.cuh",
  "prism-host.cuh",
  NULL,
};

const char * const *
prism_kernel_headers_list (void)
{
  return headers;
}

GBytes *
prism_kernel_headers_get (const char *name)
{
  g_autofree char *path = g_strconcat (RESOURCE_PREFIX, name, NULL);

  /* Looked up in our own resource (not the global registry): a static
   * library may drop the constructor that would register it. */
  return g_resource_lookup_data (prism_kernels_get_resource (), path,
                                 G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
}

gboolean
prism_kernel_headers_write (const char *dir, GError **error)
{
  if (g_mkdir_with_parents (dir, 0755) != 0)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED, "cannot create the folder “%s”", dir);
      return FALSE;
    }
  for (guint i = 0; headers[i] != NULL; i++)
    {
      g_autoptr(GBytes) data = prism_kernel_headers_get (headers[i]);
      g_autofree char *path = g_build_filename (dir, headers[i], NULL);
      gsize len;
      const char *text;

      if (data == NULL)
        {
          g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED,
                       "the runtime header %s is missing from the library", headers[i]);
          return FALSE;
        }
      text = g_bytes_get_data (data, &len);
      if (!g_file_set_contents (path, text, (gssize) len, error))
        return FALSE;
    }
  return TRUE;
}
