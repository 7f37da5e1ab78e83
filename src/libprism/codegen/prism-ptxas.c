/* prism-ptxas.c — registers and spills of generated kernels, from ptxas
 *
 * The planner estimates registers (for occupancy) before any code exists;
 * where the CUDA toolkit is installed, the exported bundle reports what the
 * compiler actually allocated, so that the manifest's occupancy, bytes in
 * flight and spills are facts.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <gio/gio.h>
#include <stdlib.h>
#include <string.h>

#include "prism-error.h"
#include "prism-ptxas.h"

char *
prism_ptxas_find_nvcc (void)
{
  const char *env = g_getenv ("NVCC");
  const char *home = g_getenv ("CUDA_HOME");

  if (env != NULL && *env && g_file_test (env, G_FILE_TEST_IS_EXECUTABLE))
    return g_strdup (env);
  if (home != NULL && *home)
    {
      g_autofree char *p = g_build_filename (home, "bin", "nvcc", NULL);
      if (g_file_test (p, G_FILE_TEST_IS_EXECUTABLE))
        return g_steal_pointer (&p);
    }
  if (g_file_test ("/usr/local/cuda/bin/nvcc", G_FILE_TEST_IS_EXECUTABLE))
    return g_strdup ("/usr/local/cuda/bin/nvcc");
  return g_find_program_in_path ("nvcc");
}

/* The number after @key in @line ("Used 40 registers" → 40), or -1. */
static gint64
number_before (const char *line, const char *word)
{
  const char *p = strstr (line, word);
  const char *q;

  if (p == NULL)
    return -1;
  q = p;
  while (q > line && q[-1] == ' ')
    q--;
  while (q > line && g_ascii_isdigit (q[-1]))
    q--;
  return g_ascii_isdigit (*q) ? g_ascii_strtoll (q, NULL, 10) : -1;
}

guint
prism_ptxas_parse (PrismCudaEmitter *emitter, const char *output)
{
  g_auto(GStrv) lines = g_strsplit (output, "\n", -1);
  g_autofree char *current = NULL;
  gint64 spill = -1;
  guint found = 0;

  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *line = lines[i];
      const char *entry = strstr (line, "Compiling entry function '");
      gint64 regs;

      if (entry != NULL)
        {
          const char *start = entry + strlen ("Compiling entry function '");
          const char *end = strchr (start, '\'');
          g_free (current);
          current = end ? g_strndup (start, (gsize) (end - start)) : NULL;
          spill = -1;
          continue;
        }
      if (current == NULL)
        continue;
      if (strstr (line, "bytes spill stores") != NULL)
        {
          gint64 stores = number_before (line, "bytes spill stores");
          gint64 loads = number_before (line, "bytes spill loads");
          spill = MAX (stores, 0) + MAX (loads, 0);
          continue;
        }
      regs = number_before (line, "registers");
      if (strstr (line, "Used ") != NULL && regs >= 0)
        {
          if (prism_cuda_emitter_set_resource_usage (emitter, current, (guint) regs, MAX (spill, 0)))
            found++;
          g_clear_pointer (&current, g_free);
        }
    }
  return found;
}

gboolean
prism_ptxas_resource_usage (PrismCudaEmitter *emitter, const char *source_path, const char *include_dir,
                            char **tool, GError **error)
{
  g_autofree char *nvcc = prism_ptxas_find_nvcc ();
  g_autofree char *inc = g_strdup_printf ("-I%s", include_dir);
  g_autofree char *arch = g_strdup_printf ("-arch=%s", prism_cuda_emitter_get_arch (emitter));
  g_autoptr(GSubprocess) p = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;

  if (nvcc == NULL)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED,
                   "nvcc is not installed ($NVCC, $CUDA_HOME/bin, /usr/local/cuda/bin, $PATH): registers "
                   "and spills are not known");
      return FALSE;
    }
  p = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE, error, nvcc,
                        "-std=c++17", "-O3", arch, "-cubin", "-o", "/dev/null", inc, "-Xptxas", "-v",
                        source_path, NULL);
  if (p == NULL || !g_subprocess_communicate_utf8 (p, NULL, NULL, &out, &err, error))
    return FALSE;
  if (!g_subprocess_get_successful (p))
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED, "%s failed on %s:\n%s", nvcc, source_path,
                   err ? err : "");
      return FALSE;
    }
  if (prism_ptxas_parse (emitter, err ? err : "") == 0)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED, "%s reported no kernel resources for %s", nvcc,
                   source_path);
      return FALSE;
    }
  if (tool != NULL)
    *tool = g_strdup_printf ("%s -O3 -Xptxas -v (%s)", nvcc, prism_cuda_emitter_get_arch (emitter));
  return TRUE;
}
