/* test-codegen-nvcc.c — the generated CUDA of every case compiles with nvcc
 * for sm_80 and sm_90, and with NVRTC to a CUBIN; skipped (77) where
 * neither nvcc nor NVRTC is installed
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "codegen-cases.h"
#include "prism-cuda-emitter.h"
#include "prism-cuda-runtime.h"
#include "prism-error.h"
#include "prism-kernel-headers.h"

static GPtrArray *cases;
static char *tmpdir;

/* All cases in one translation unit per architecture (every symbol has its
 * case's prefix), the two architectures compiled side by side. */
static void
test_nvcc (void)
{
  g_autofree char *nvcc = codegen_find_nvcc ();
  g_autofree char *kernels = g_build_filename (tmpdir, "kernels", NULL);
  g_autofree char *all = g_build_filename (tmpdir, "all.cu", NULL);
  g_autofree char *inc = g_strdup_printf ("-I%s", kernels);
  g_autoptr(GString) tu = g_string_new ("/* every case, one translation unit */\n");
  g_autoptr(GPtrArray) commands = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  g_autoptr(GPtrArray) results = NULL;
  g_autoptr(GError) error = NULL;
  const char *archs[] = { "sm_80", "sm_90" };

  if (nvcc == NULL)
    {
      g_test_skip ("nvcc is not installed (looked at $NVCC, $CUDA_HOME/bin, /usr/local/cuda/bin, $PATH)");
      return;
    }
  prism_kernel_headers_write (kernels, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < cases->len; i++)
    {
      const CodegenCase *c = g_ptr_array_index (cases, i);
      g_autofree char *prefix = g_strdup_printf ("prism_case%u", i);
      /* sm_80's shared-memory limit, so that one source serves both. */
      PrismCudaOptions options = { .sm = 80, .prefix = prefix };
      g_autoptr(PrismCudaEmitter) e = prism_cuda_emitter_new (c->graph, &options, &error);
      g_autofree char *path = g_strdup_printf ("%s/%s.cu", tmpdir, prefix);

      if (e == NULL)
        g_error ("%s: %s", c->label, error->message);
      g_file_set_contents (path, prism_cuda_emitter_get_source (e), -1, &error);
      g_assert_no_error (error);
      g_string_append_printf (tu, "#include \"%s.cu\" /* %s */\n", prefix, c->label);
    }
  g_file_set_contents (all, tu->str, -1, &error);
  g_assert_no_error (error);

  for (guint a = 0; a < G_N_ELEMENTS (archs); a++)
    {
      g_autofree char *arch = g_strdup_printf ("-arch=%s", archs[a]);
      g_autofree char *obj = g_strdup_printf ("%s/all-%s.o", tmpdir, archs[a]);
      g_autoptr(GStrvBuilder) b = g_strv_builder_new ();

      g_strv_builder_add_many (b, nvcc, "-std=c++17", "--Werror", "all-warnings", arch, inc, "-c", all,
                               "-o", obj, NULL);
      g_ptr_array_add (commands, g_strv_builder_end (b));
    }
  results = codegen_run_parallel (commands, 2);
  for (guint a = 0; a < G_N_ELEMENTS (archs); a++)
    if (g_ptr_array_index (results, a) != NULL)
      g_error ("nvcc for %s failed:\n%s", archs[a], (const char *) g_ptr_array_index (results, a));
    else
      {
        g_autofree char *obj = g_strdup_printf ("%s/all-%s.o", tmpdir, archs[a]);
        g_assert_true (g_file_test (obj, G_FILE_TEST_IS_REGULAR));
      }
}

/* NVRTC (what the GPU runner uses) turns a few representative programs
 * into CUBINs with the runtime headers handed over in memory. */
static void
test_nvrtc (void)
{
  g_autoptr(PrismCudaRuntime) rt = prism_cuda_runtime_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *include = prism_cuda_find_include_dir ();
  const char *wanted[] = { "rms_norm (reference)", "attention (reference)", "swiglu" };
  /* NVRTC is the path `prism bench` takes; a few programs are enough here,
   * nvcc above compiles them all. */
  guint done = 0;

  if (!prism_cuda_runtime_load_nvrtc (rt, &error) || include == NULL)
    {
      g_test_skip (error != NULL ? error->message : "the CUDA toolkit headers are not installed");
      return;
    }
  for (guint i = 0; i < cases->len; i++)
    {
      const CodegenCase *c = g_ptr_array_index (cases, i);
      g_autoptr(PrismCudaEmitter) e = NULL;
      g_autoptr(GBytes) cubin = NULL;
      gboolean want = FALSE;

      for (guint w = 0; w < G_N_ELEMENTS (wanted); w++)
        want = want || g_str_equal (c->label, wanted[w]);
      /* The hand-written graphs cover what the workloads do not (bf16, f32,
       * summed outputs, every accumulator). */
      want = want || g_str_has_prefix (c->label, "graphs/");
      if (!want)
        continue;
      e = prism_cuda_emitter_new (c->graph, NULL, &error);
      g_assert_no_error (error);
      cubin = prism_cuda_runtime_compile (rt, prism_cuda_emitter_get_source (e), "sm_90", NULL, &error);
      if (cubin == NULL)
        g_error ("%s: %s", c->label, error->message);
      /* An ELF image. */
      g_assert_cmpuint (g_bytes_get_size (cubin), >, 1024);
      g_assert_cmpmem (g_bytes_get_data (cubin, NULL), 4, "\177ELF", 4);
      done++;
    }
  if (g_getenv ("PRISM_CODEGEN_ONLY") == NULL)
    g_assert_cmpuint (done, >=, G_N_ELEMENTS (wanted));

  /* A compile error comes back as an error with NVRTC's log. */
  g_assert_null (prism_cuda_runtime_compile (rt, "#include \"prism-runtime.cuh\"\nthis is not C++;\n",
                                             "sm_90", NULL, &error));
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_FAILED);
  g_assert_nonnull (strstr (error->message, "sm_90"));
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  int rc;

  g_test_init (&argc, &argv, NULL);
  tmpdir = g_dir_make_tmp ("prism-nvcc-XXXXXX", &error);
  g_assert_no_error (error);
  cases = codegen_cases_load ();
  g_test_add_func ("/codegen/nvcc", test_nvcc);
  g_test_add_func ("/codegen/nvrtc", test_nvrtc);
  rc = g_test_run ();
  if (g_getenv ("PRISM_KEEP_TMP") == NULL)
    codegen_remove_tree (tmpdir);
  g_ptr_array_unref (cases);
  g_free (tmpdir);
  return rc;
}
