/* test-codegen.c — generated CUDA: lowering, the CPU build against the
 * interpreter, the manifest, the exported bundle and its C header
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "codegen-cases.h"
#include "prism-cuda-emitter.h"
#include "prism-error.h"
#include "prism-export.h"
#include "prism-graph-json.h"
#include "prism-interp.h"
#include "prism-kernel-headers.h"
#include "prism-lower.h"
#include "prism-workload.h"

/* The CPU build stores every dtype as f32 and accumulates in f32, like the
 * interpreter in PRISM_PRECISION_F32; sums run in other orders. */
#define CPU_TOLERANCE 1e-3

static GPtrArray *cases;
static char *tmpdir;

static PrismInterpOptions f32_options = { PRISM_PRECISION_F32, 0 };

static GPtrArray *
reference_outputs (const PrismGraph *graph, GPtrArray *inputs)
{
  g_autoptr(GError) error = NULL;
  GPtrArray *out = prism_interp_run (graph, (PrismBuffer * const *) inputs->pdata, inputs->len,
                                     &f32_options, &error);
  g_assert_no_error (error);
  return out;
}

/* The lowered graph (predefined ops as block graphs) computes what the
 * program computes. */
static void
test_lowering (void)
{
  for (guint i = 0; i < cases->len; i++)
    {
      const CodegenCase *c = g_ptr_array_index (cases, i);
      g_autoptr(GError) error = NULL;
      g_autoptr(PrismGraph) low = prism_lower_predefined_ops (c->graph, &error);
      g_autoptr(GPtrArray) inputs = NULL;
      g_autoptr(GPtrArray) want = NULL;
      g_autoptr(GPtrArray) got = NULL;

      g_assert_no_error (error);
      for (guint k = 0; k < low->ops->len; k++)
        {
          PrismOpKind kind = prism_graph_op (low, k)->kind;
          g_assert_true (kind == PRISM_OP_INPUT || kind == PRISM_OP_OUTPUT || kind == PRISM_OP_KERNEL);
        }
      inputs = prism_interp_make_inputs (c->graph, 7);
      want = reference_outputs (c->graph, inputs);
      got = reference_outputs (low, inputs);
      g_assert_cmpuint (got->len, ==, want->len);
      for (guint k = 0; k < got->len; k++)
        {
          double err = prism_buffer_max_rel_error (g_ptr_array_index (got, k), g_ptr_array_index (want, k));
          if (err > 1e-5)
            g_error ("%s: output %u of the lowered graph differs by %g", c->label, k, err);
        }
    }
}

/* Every case: emit, compile the .cu as C++ with g++, run on the
 * interpreter's inputs, compare with the interpreter. */
static void
test_cpu_build (void)
{
  g_autoptr(GPtrArray) commands = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  g_autoptr(GPtrArray) results = NULL;
  g_autoptr(GPtrArray) expected = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  g_autofree char *kernels = g_build_filename (tmpdir, "kernels", NULL);
  g_autofree char *gxx = g_find_program_in_path ("g++");
  g_autoptr(GString) failures = g_string_new (NULL);
  g_autoptr(GError) error = NULL;

  if (gxx == NULL)
    {
      g_test_skip ("g++ is not installed");
      return;
    }
  prism_kernel_headers_write (kernels, &error);
  g_assert_no_error (error);

  for (guint i = 0; i < cases->len; i++)
    {
      const CodegenCase *c = g_ptr_array_index (cases, i);
      g_autofree char *prefix = g_strdup_printf ("prism_case%u", i);
      PrismCudaOptions options = { .sm = 80, .prefix = prefix };
      g_autoptr(PrismCudaEmitter) e = prism_cuda_emitter_new (c->graph, &options, &error);
      g_autofree char *dir = g_strdup_printf ("%s/cpu%u", tmpdir, i);
      g_autofree char *cu = g_strdup_printf ("%s/%s.cu", dir, prefix);
      g_autofree char *h = g_strdup_printf ("%s/%s.h", dir, prefix);
      g_autofree char *harness = g_strdup_printf ("%s/harness.cpp", dir);
      g_autofree char *exe = g_strdup_printf ("%s/run", dir);
      g_autofree char *inc = g_strdup_printf ("-I%s", kernels);
      g_autoptr(GPtrArray) inputs = prism_interp_make_inputs (c->graph, 11);
      g_autoptr(GStrvBuilder) cmd = g_strv_builder_new ();

      if (e == NULL)
        g_error ("%s: %s", c->label, error->message);
      g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
      g_file_set_contents (cu, prism_cuda_emitter_get_source (e), -1, &error);
      g_assert_no_error (error);
      g_file_set_contents (h, prism_cuda_emitter_get_header (e), -1, &error);
      g_assert_no_error (error);
      g_file_set_contents (harness, prism_cuda_emitter_get_cpu_harness (e), -1, &error);
      g_assert_no_error (error);
      for (guint k = 0; k < inputs->len; k++)
        {
          g_autofree char *path = g_strdup_printf ("%s/in%u.f32", dir, k);
          codegen_write_f32_file (path, g_ptr_array_index (inputs, k));
        }
      g_ptr_array_add (expected, reference_outputs (c->graph, inputs));

      /* Compile and run in one shell command so that runs overlap too. */
      {
        g_autofree char *script =
          g_strdup_printf ("%s -std=c++17 -O1 -Wall -Werror -Wno-unused-function %s -x c++ %s -x c++ %s -o %s && %s %s",
                           gxx, inc, cu, harness, exe, exe, dir);
        g_strv_builder_add_many (cmd, "/bin/sh", "-c", script, NULL);
      }
      g_ptr_array_add (commands, g_strv_builder_end (cmd));
    }

  results = codegen_run_parallel (commands, 2);
  for (guint i = 0; i < cases->len; i++)
    {
      const CodegenCase *c = g_ptr_array_index (cases, i);
      GPtrArray *want = g_ptr_array_index (expected, i);
      const char *log = g_ptr_array_index (results, i);

      if (log != NULL)
        {
          g_string_append_printf (failures, "%s: the CPU build failed:\n%s\n", c->label, log);
          continue;
        }
      for (guint k = 0; k < want->len; k++)
        {
          g_autofree char *path = g_strdup_printf ("%s/cpu%u/out%u.f32", tmpdir, i, k);
          double err = codegen_compare_f32_file (path, g_ptr_array_index (want, k));

          g_test_message ("%s: output %u max relative error %.3g", c->label, k, err);
          if (!(err <= CPU_TOLERANCE))
            g_string_append_printf (failures, "%s: output %u differs from the interpreter by %g (> %g)\n",
                                    c->label, k, err, CPU_TOLERANCE);
        }
    }
  if (failures->len > 0)
    g_error ("%s", failures->str);
}

static JsonObject *
parse_manifest (const PrismCudaEmitter *e, JsonNode **root)
{
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  JsonNode *node = prism_cuda_emitter_build_manifest (e, "x.cu", "x.h");

  /* Through text, as a reader of the file sees it. */
  json_generator_set_root (gen, node);
  text = json_generator_to_data (gen, NULL);
  json_node_unref (node);
  json_parser_load_from_data (parser, text, -1, &error);
  g_assert_no_error (error);
  *root = json_node_copy (json_parser_get_root (parser));
  return json_node_get_object (*root);
}

/* Every manifest lists each kernel with its grid, block, shared memory and
 * arguments, and the arguments refer to real inputs, outputs and workspace. */
static void
test_manifest (void)
{
  for (guint i = 0; i < cases->len; i++)
    {
      const CodegenCase *c = g_ptr_array_index (cases, i);
      g_autoptr(GError) error = NULL;
      g_autoptr(PrismCudaEmitter) e = prism_cuda_emitter_new (c->graph, NULL, &error);
      g_autoptr(JsonNode) root = NULL;
      JsonObject *m;
      JsonArray *kernels;
      gint64 ws, n_in, n_out;

      g_assert_no_error (error);
      m = parse_manifest (e, &root);
      g_assert_cmpstr (json_object_get_string_member (m, "format"), ==, "prism-kernels");
      g_assert_cmpstr (json_object_get_string_member (m, "target_arch"), ==, "sm_90");
      ws = json_object_get_int_member (m, "workspace_bytes");
      g_assert_cmpint (ws, ==, (gint64) prism_cuda_emitter_get_workspace_size (e));
      n_in = json_array_get_length (json_object_get_array_member (m, "inputs"));
      n_out = json_array_get_length (json_object_get_array_member (m, "outputs"));
      {
        g_autoptr(GArray) gi = prism_graph_get_inputs (c->graph);
        g_autoptr(GArray) go = prism_graph_get_outputs (c->graph);
        g_assert_cmpint (n_in, ==, gi->len);
        g_assert_cmpint (n_out, ==, go->len);
      }
      kernels = json_object_get_array_member (m, "kernels");
      g_assert_cmpuint (json_array_get_length (kernels), ==, prism_cuda_emitter_get_n_kernels (e));
      g_assert_cmpuint (json_array_get_length (kernels), >=, 1);
      for (guint k = 0; k < json_array_get_length (kernels); k++)
        {
          JsonObject *kobj = json_array_get_object_element (kernels, k);
          JsonArray *grid = json_object_get_array_member (kobj, "grid");
          JsonArray *block = json_object_get_array_member (kobj, "block");
          JsonArray *args = json_object_get_array_member (kobj, "args");
          const PrismCudaKernel *pk = prism_cuda_emitter_get_kernel (e, k);

          g_assert_cmpstr (json_object_get_string_member (kobj, "name"), ==, pk->name);
          g_assert_cmpuint (json_array_get_length (grid), ==, 3);
          g_assert_cmpuint (json_array_get_length (block), ==, 3);
          for (guint d = 0; d < 3; d++)
            {
              g_assert_cmpint (json_array_get_int_element (grid, d), >=, 1);
              g_assert_cmpint (json_array_get_int_element (block, d), ==, pk->block[d]);
            }
          g_assert_cmpint (json_object_get_int_member (kobj, "shared_memory_bytes"), <=, 227 * 1024);
          g_assert_cmpuint (json_array_get_length (args), >=, 1);
          for (guint a = 0; a < json_array_get_length (args); a++)
            {
              JsonObject *arg = json_array_get_object_element (args, a);
              const char *kind = json_object_get_string_member (arg, "kind");

              if (g_str_equal (kind, "input"))
                g_assert_cmpint (json_object_get_int_member (arg, "index"), <, n_in);
              else if (g_str_equal (kind, "output"))
                g_assert_cmpint (json_object_get_int_member (arg, "index"), <, n_out);
              else if (g_str_equal (kind, "epoch"))
                {
                  /* The last argument, of kernels with summed outputs only. */
                  g_assert_cmpuint (a, ==, json_array_get_length (args) - 1);
                  g_assert_cmpuint (pk->launch.split_outputs, >, 0);
                  g_assert_cmpstr (json_object_get_string_member (arg, "dtype"), ==, "u32");
                }
              else
                {
                  g_assert_cmpstr (kind, ==, "workspace");
                  g_assert_cmpint (json_object_get_int_member (arg, "offset"), <, ws);
                  g_assert_cmpint (json_object_get_int_member (arg, "offset") % 256, ==, 0);
                }
            }
        }
    }
}

/* The bundle is complete: its header compiles as C11 into a program that
 * links against the CPU build of the .cu and asks for the workspace size. */
static void
test_export_bundle (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismGraph) g = prism_workload_build_reference ("attention", NULL, &error);
  g_autofree char *dir = g_build_filename (tmpdir, "bundle", NULL);
  g_autofree char *main_c = g_build_filename (dir, "main.c", NULL);
  g_autofree char *gcc = g_find_program_in_path ("gcc");
  g_autofree char *gxx = g_find_program_in_path ("g++");
  g_auto(GStrv) files = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autofree char *manifest = g_build_filename (dir, "manifest.json", NULL);
  g_autofree char *graph_json = g_build_filename (dir, "graph.json", NULL);
  g_autofree char *log = NULL;
  JsonObject *m;
  const char *prefix;

  g_assert_no_error (error);
  g_assert_true (prism_export_bundle (g, NULL, NULL, PRISM_EXPORT_DEFAULT, dir, &files, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (g_strv_length (files), >=, 5);
  for (guint i = 0; files[i]; i++)
    g_assert_true (g_file_test (files[i], G_FILE_TEST_IS_REGULAR));

  json_parser_load_from_file (parser, manifest, &error);
  g_assert_no_error (error);
  m = json_node_get_object (json_parser_get_root (parser));
  prefix = json_object_get_string_member (m, "prefix");
  g_assert_cmpstr (prefix, ==, "prism_attention");
  g_assert_true (g_file_test (graph_json, G_FILE_TEST_IS_REGULAR));
  {
    g_autoptr(PrismGraph) back = prism_graph_load (graph_json, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (back->ops->len, ==, g->ops->len);
  }

  if (gcc == NULL || gxx == NULL)
    {
      g_test_skip ("gcc or g++ is not installed");
      return;
    }
  {
    g_autofree char *text = g_strdup_printf (
      "#include <stdio.h>\n#include \"%s.h\"\n\n"
      "int\nmain (void)\n{\n"
      "  size_t ws = %s_workspace_size ();\n"
      "  int (*launch) (const void *const *, void *const *, void *, struct CUstream_st *) = %s_launch;\n"
      "  printf (\"inputs %%d outputs %%d workspace %%zu\\n\", %s_NUM_INPUTS, %s_NUM_OUTPUTS, ws);\n"
      "  int err = %s_launch (NULL, NULL, NULL, NULL);\n"
      "  printf (\"%%s\\n\", %s_error_string (err));\n"
      "  return launch != NULL && err == %s_ERROR_INPUT (0) ? 0 : 1;\n}\n",
      prefix, prefix, prefix, "PRISM_ATTENTION", "PRISM_ATTENTION", prefix, prefix, "PRISM_ATTENTION");
    g_autofree char *obj = g_build_filename (dir, "kernels.o", NULL);
    g_autofree char *cu = g_strdup_printf ("%s/%s.cu", dir, prefix);
    g_autofree char *inc = g_strdup_printf ("-I%s/%s", dir, PRISM_EXPORT_KERNELS_DIR);
    g_autofree char *exe = g_build_filename (dir, "main", NULL);
    const char *cc_argv[] = { gcc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic", "-c", main_c,
                              "-o", "main.o", NULL };
    const char *cxx_argv[] = { gxx, "-std=c++17", "-O1", inc, "-x", "c++", "-c", cu, "-o", obj, NULL };
    const char *ld_argv[] = { gxx, "main.o", obj, "-o", exe, NULL };
    const char *run_argv[] = { exe, NULL };

    g_file_set_contents (main_c, text, -1, &error);
    g_assert_no_error (error);
    if (!codegen_run (cc_argv, dir, &log) || !codegen_run (cxx_argv, dir, &log) ||
        !codegen_run (ld_argv, dir, &log))
      g_error ("building the C program against the bundle failed: %s", log);
    /* The launcher refuses missing pointers, naming the first. */
    g_assert_true (codegen_run (run_argv, dir, &log));
  }
}

/* Clear errors for what the generator cannot do. */
static void
test_errors (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismGraph) g = prism_workload_build_reference ("rms_norm", NULL, &error);
  g_autoptr(PrismGraph) sym = prism_graph_new ();
  PrismCudaOptions tiny = { .smem_limit = 256 };
  PrismCudaOptions bad_prefix = { .prefix = "not an identifier" };
  PrismCudaOptions old = { .sm = 70 };
  PrismCudaEmitter *e;

  g_assert_no_error (error);
  e = prism_cuda_emitter_new (g, &tiny, &error);
  g_assert_null (e);
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_LIMIT);
  g_assert_nonnull (strstr (error->message, "shared memory"));
  g_clear_error (&error);

  g_assert_null (prism_cuda_emitter_new (g, &bad_prefix, &error));
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_PARSE);
  g_clear_error (&error);

  g_assert_null (prism_cuda_emitter_new (g, &old, &error));
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED);
  g_clear_error (&error);

  {
    guint n = prism_graph_add_var (sym, "n");
    g_autoptr(PrismDim) one = prism_dim_const (1);
    g_autoptr(PrismDim) nd = prism_dim_var (n);
    PrismDim *grid[1] = { nd };
    g_autoptr(PrismGraph) body = prism_block_graph_new (1, grid, 128, one);
    gint64 dims[2] = { 8, 64 };
    int x = prism_graph_add_input (sym, "X", 2, dims, PRISM_DTYPE_F16, &error);
    g_assert_no_error (error);
    g_assert_cmpint (x, >=, 0);
    (void) body;
    /* A symbolic loop range is enough to make the graph symbolic. */
    {
      g_autoptr(PrismGraph) body2 = prism_block_graph_new (1, grid, 128, nd);
      PrismDim *xd[2];
      int imap[3] = { -1, -1, -1 };
      int t, acc;
      guint in[1];
      int omap[3] = { -1, -1, -1 };
      guint kin[1] = { (guint) x };
      int kop;

      xd[0] = prism_graph_tensor (sym, (guint) x)->dims[0];
      xd[1] = prism_graph_tensor (sym, (guint) x)->dims[1];
      t = prism_block_graph_add_input (body2, 0, 2, xd, PRISM_DTYPE_F16, imap, -1, &error);
      g_assert_no_error (error);
      in[0] = (guint) t;
      acc = prism_graph_add (body2, PRISM_OP_ACCUM, in, 1, NULL, &error);
      g_assert_no_error (error);
      prism_block_graph_add_output (body2, (guint) acc, omap, &error);
      g_assert_no_error (error);
      kop = prism_graph_add_kernel (sym, kin, 1, body2, &error);
      g_assert_no_error (error);
      prism_graph_add_output (sym, prism_graph_op (sym, (guint) kop)->outputs[0], "O", &error);
      g_assert_no_error (error);
    }
  }
  g_assert_null (prism_cuda_emitter_new (sym, NULL, &error));
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED);
}


/* The first case with an output summed over blocks, its emitter in @e, and
 * the blocks of the launches before that kernel in @before. */
static const CodegenCase *
find_summed_case (PrismCudaEmitter **e, guint *before)
{
  for (guint i = 0; i < cases->len; i++)
    {
      const CodegenCase *c = g_ptr_array_index (cases, i);
      PrismCudaOptions options = { .sm = 80, .prefix = "prism_abort" };
      PrismCudaEmitter *em = prism_cuda_emitter_new (c->graph, &options, NULL);
      guint blocks = 0;

      for (guint k = 0; em != NULL && k < prism_cuda_emitter_get_n_kernels (em); k++)
        {
          const PrismCudaKernel *kk = prism_cuda_emitter_get_kernel (em, k);
          if (kk->launch.split_outputs > 0)
            {
              *e = em;
              *before = blocks;
              return c;
            }
          blocks += kk->grid[0] * kk->grid[1] * kk->grid[2];
        }
      if (em != NULL)
        prism_cuda_emitter_free (em);
    }
  return NULL;
}

/* A driver for the CPU build that runs a launch which dies after @abort_at
 * blocks, then a whole launch on the same workspace, and checks that every
 * misaligned pointer is refused with a code that names it. */
static char *
aborted_launch_driver (PrismCudaEmitter *e, guint abort_at)
{
  const PrismGraph *low = prism_cuda_emitter_get_lowered_graph (e);
  g_autoptr(GArray) ins = prism_graph_get_inputs (low);
  g_autoptr(GArray) outs = prism_graph_get_outputs (low);
  GString *s = g_string_new (prism_cuda_cpu_harness_helpers ());

  g_string_append (s, "#include \"prism-runtime.cuh\"\n#include \"prism_abort.h\"\n\n"
                   "static int\nexpect (int got, int want, const char *what)\n{\n"
                   "  printf (\"%s: %d: %s\\n\", what, got, prism_abort_error_string (got));\n"
                   "  return got == want ? 0 : 1;\n}\n\n"
                   "int\nmain (int argc, char **argv)\n{\n  const char *dir = argv[argc - 1];\n  int bad = 0;\n");
  g_string_append_printf (s, "  const void *in[%u + 1];\n  void *out[%u + 1];\n", ins->len, outs->len);
  for (guint i = 0; i < ins->len; i++)
    g_string_append_printf (s, "  char in%u_name[] = \"in%u.f32\";\n"
                            "  if ((in[%u] = prism_harness_load (dir, in%u_name, %" G_GINT64_FORMAT ")) == NULL)\n"
                            "    return 1;\n", i, i, i, i,
                            prism_tensor_numel (prism_graph_tensor (low, g_array_index (ins, guint, i))));
  for (guint i = 0; i < outs->len; i++)
    g_string_append_printf (s, "  out[%u] = malloc (%" G_GINT64_FORMAT " * sizeof (float));\n", i,
                            prism_tensor_numel (prism_graph_tensor (low, g_array_index (outs, guint, i))));
  g_string_append (s, "  size_t ws_size = prism_abort_workspace_size ();\n"
                   "  unsigned char *ws = (unsigned char *) aligned_alloc (16, ws_size + 16);\n"
                   "  memset (ws, 0xff, ws_size + 16);\n"
                   "  memset (ws, 0, prism_abort_workspace_zeroed_bytes ());\n"
                   "  {\n    const void *in1[sizeof in / sizeof in[0]];\n    void *out1[sizeof out / sizeof out[0]];\n"
                   "    memcpy (in1, in, sizeof in);\n    memcpy (out1, out, sizeof out);\n"
                   "    in1[0] = (const char *) in[0] + 4;\n"
                   "    bad += expect (prism_abort_launch (in1, out, ws, NULL), PRISM_ABORT_ERROR_INPUT (0), \"input 0 + 4\");\n"
                   "    out1[0] = (char *) out[0] + 8;\n"
                   "    bad += expect (prism_abort_launch (in, out1, ws, NULL), PRISM_ABORT_ERROR_OUTPUT (0), \"output 0 + 8\");\n"
                   "    bad += expect (prism_abort_launch (in, out, ws + 4, NULL), PRISM_ABORT_ERROR_WORKSPACE_ALIGNMENT, \"workspace + 4\");\n"
                   "    bad += expect (prism_abort_launch (in, out, NULL, NULL), PRISM_ABORT_ERROR_NO_WORKSPACE, \"no workspace\");\n"
                   "  }\n");
  g_string_append_printf (s, "  prism::cpu::blocks_left = %u;\n"
                          "  bad += expect (prism_abort_launch (in, out, ws, NULL), 0, \"the launch that dies\");\n"
                          "  prism::cpu::blocks_left = -1;\n"
                          "  bad += expect (prism_abort_launch (in, out, ws, NULL), 0, \"the next launch\");\n",
                          abort_at);
  for (guint i = 0; i < outs->len; i++)
    {
      gint64 n = prism_tensor_numel (prism_graph_tensor (low, g_array_index (outs, guint, i)));
      g_string_append_printf (s, "  char out%u_name[] = \"out%u.f32\";\n"
                              "  if (!prism_harness_save (dir, out%u_name, (float *) out[%u], %" G_GINT64_FORMAT "))\n"
                              "    return 1;\n  memset (out[%u], 0xff, %" G_GINT64_FORMAT " * sizeof (float));\n",
                              i, i, i, i, n, i, n);
    }
  /* The same through the graph: one graph launch dies, the next is whole. */
  g_string_append_printf (s, "  prism_abort_graph *graph = NULL;\n"
                          "  bad += expect (prism_abort_graph_create (in, out, ws, &graph), 0, \"graph_create\");\n"
                          "  prism::cpu::blocks_left = %u;\n"
                          "  bad += expect (prism_abort_graph_launch (graph, NULL), 0, \"the graph launch that dies\");\n"
                          "  prism::cpu::blocks_left = -1;\n"
                          "  bad += expect (prism_abort_graph_launch (graph, NULL), 0, \"the next graph launch\");\n"
                          "  prism_abort_graph_destroy (graph);\n", abort_at);
  for (guint i = 0; i < outs->len; i++)
    g_string_append_printf (s, "  char gout%u_name[] = \"gout%u.f32\";\n"
                            "  if (!prism_harness_save (dir, gout%u_name, (float *) out[%u], %" G_GINT64_FORMAT "))\n"
                            "    return 1;\n", i, i, i, i,
                            prism_tensor_numel (prism_graph_tensor (low, g_array_index (outs, guint, i))));
  g_string_append (s, "  return bad;\n}\n");
  return g_string_free (s, FALSE);
}

/* A launch that died half-way (its first blocks of a kernel with summed
 * outputs counted, the rest never ran) leaves arrival counters part-way:
 * the next launch on the same workspace must still add every partial
 * (epochs, prism-split.cuh) — through PREFIX_launch() and through
 * PREFIX_graph_launch() —, and misaligned pointers are refused by name. */
static void
test_aborted_launch (void)
{
  g_autofree char *gxx = g_find_program_in_path ("g++");
  g_autofree char *kernels = g_build_filename (tmpdir, "kernels-abort", NULL);
  g_autofree char *dir = g_build_filename (tmpdir, "abort", NULL);
  g_autofree char *cu = g_build_filename (dir, "prism_abort.cu", NULL);
  g_autofree char *h = g_build_filename (dir, "prism_abort.h", NULL);
  g_autofree char *drv = g_build_filename (dir, "driver.cpp", NULL);
  g_autofree char *exe = g_build_filename (dir, "run", NULL);
  g_autofree char *inc = g_strdup_printf ("-I%s", kernels);
  g_autofree char *driver = NULL;
  g_autofree char *log = NULL;
  g_autofree char *out = NULL;
  g_autoptr(GPtrArray) inputs = NULL;
  g_autoptr(GPtrArray) want = NULL;
  g_autoptr(GError) error = NULL;
  PrismCudaEmitter *e = NULL;
  const CodegenCase *c;
  guint before = 0;

  if (gxx == NULL)
    {
      g_test_skip ("g++ is not installed");
      return;
    }
  c = find_summed_case (&e, &before);
  g_assert_nonnull (c);
  g_test_message ("%s: the launch dies after block %u", c->label, before + 1);
  prism_kernel_headers_write (kernels, &error);
  g_assert_no_error (error);
  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_file_set_contents (cu, prism_cuda_emitter_get_source (e), -1, &error);
  g_assert_no_error (error);
  g_file_set_contents (h, prism_cuda_emitter_get_header (e), -1, &error);
  g_assert_no_error (error);
  driver = aborted_launch_driver (e, before + 1);
  g_file_set_contents (drv, driver, -1, &error);
  g_assert_no_error (error);
  inputs = prism_interp_make_inputs (c->graph, 5);
  for (guint k = 0; k < inputs->len; k++)
    {
      g_autofree char *path = g_strdup_printf ("%s/in%u.f32", dir, k);
      codegen_write_f32_file (path, g_ptr_array_index (inputs, k));
    }
  want = reference_outputs (c->graph, inputs);
  {
    g_autofree char *script = g_strdup_printf ("%s -std=c++17 -O1 -Wall -Werror -Wno-unused-function %s -I%s "
                                               "-x c++ %s -x c++ %s -o %s && %s %s",
                                               gxx, inc, dir, cu, drv, exe, exe, dir);
    const char *argv[] = { "/bin/sh", "-c", script, NULL };
    if (!codegen_run (argv, dir, &log))
      g_error ("%s: the aborted-launch driver failed:\n%s", c->label, log);
  }
  for (guint k = 0; k < want->len; k++)
    for (guint graph = 0; graph < 2; graph++)
      {
        g_autofree char *path = g_strdup_printf ("%s/%sout%u.f32", dir, graph ? "g" : "", k);
        double err = codegen_compare_f32_file (path, g_ptr_array_index (want, k));
        if (!(err <= CPU_TOLERANCE))
          g_error ("%s: after a %s that died, output %u differs from the interpreter by %g", c->label,
                   graph ? "graph launch" : "launch", k, err);
      }
  prism_cuda_emitter_free (e);
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  int rc;

  g_test_init (&argc, &argv, NULL);
  tmpdir = g_dir_make_tmp ("prism-codegen-XXXXXX", &error);
  g_assert_no_error (error);
  cases = codegen_cases_load ();

  g_test_add_func ("/codegen/lowering", test_lowering);
  g_test_add_func ("/codegen/cpu-build", test_cpu_build);
  g_test_add_func ("/codegen/manifest", test_manifest);
  g_test_add_func ("/codegen/export-bundle", test_export_bundle);
  g_test_add_func ("/codegen/errors", test_errors);
  g_test_add_func ("/codegen/aborted-launch", test_aborted_launch);
  rc = g_test_run ();

  if (g_getenv ("PRISM_KEEP_TMP") == NULL)
    codegen_remove_tree (tmpdir);
  else
    g_printerr ("kept %s\n", tmpdir);
  g_ptr_array_unref (cases);
  g_free (tmpdir);
  return rc;
}
