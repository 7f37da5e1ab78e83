/* prism-gpu-target.c — what the code generator and the cost model know about each GPU
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every figure lives in a "prism-gpu" file (the files of data/gpus, embedded in
 * the library; docs/cost-model.md): the datasheet part with its source, and
 * the calibration part, either estimates or what `prism calibrate` measured
 * on the GPU.  Nothing here is a constant in the code, so that calibrating
 * a GPU is writing a file, not a patch.
 */
#include "config.h"

#include <gio/gio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "prism-error.h"
#include "prism-gpu-target.h"
#include "prism-gpus-resources.h"
#include "prism-json-reader.h"

#define RESOURCE_PREFIX "/org/prism/gpus/"
#define MAX_FILE_SIZE   PRISM_JSON_GPU_MAX_SIZE
#define MAX_CURVE       64

static const char * const builtin_names[] = { "h100", "h200", "a100" };

void
prism_gpu_target_free (PrismGpuTarget *target)
{
  if (target == NULL)
    return;
  g_free (target->name);
  g_free (target->display_name);
  g_strfreev (target->match);
  g_free (target->datasheet_source);
  g_free (target->calibration_source);
  g_free (target->dram_curve);
  g_free (target);
}

/* ------------------------------------------------------------------------ */
/* Reading */

typedef struct
{
  const char *origin;
  GError **error;
} Reader;

static gboolean
fail (Reader *r, const char *section, const char *field, const char *what)
{
  g_set_error (r->error, PRISM_ERROR, PRISM_ERROR_PARSE, "%s: %s%s%s: %s", r->origin,
               section ? section : "", section ? "." : "", field, what);
  return FALSE;
}

static gboolean
get_object (Reader *r, JsonObject *o, const char *section, const char *field, JsonObject **out)
{
  JsonNode *n = json_object_get_member (o, field);

  if (n == NULL || !JSON_NODE_HOLDS_OBJECT (n))
    return fail (r, section, field, n == NULL ? "missing" : "not an object");
  *out = json_node_get_object (n);
  return TRUE;
}

static gboolean
get_string (Reader *r, JsonObject *o, const char *section, const char *field, char **out)
{
  JsonNode *n = json_object_get_member (o, field);

  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_STRING)
    return fail (r, section, field, n == NULL ? "missing" : "not a string");
  *out = g_strdup (json_node_get_string (n));
  return TRUE;
}

static gboolean
get_number (Reader *r, JsonObject *o, const char *section, const char *field, double min,
            double max, double *out)
{
  JsonNode *n = json_object_get_member (o, field);
  GType t;

  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n))
    return fail (r, section, field, n == NULL ? "missing" : "not a number");
  t = json_node_get_value_type (n);
  if (t == G_TYPE_INT64)
    *out = (double) json_node_get_int (n);
  else if (t == G_TYPE_DOUBLE)
    *out = json_node_get_double (n);
  else
    return fail (r, section, field, "not a number");
  if (!isfinite (*out) || *out < min || *out > max)
    {
      g_autofree char *what = g_strdup_printf ("%g is outside [%g, %g]", *out, min, max);
      return fail (r, section, field, what);
    }
  return TRUE;
}

static gboolean
get_uint (Reader *r, JsonObject *o, const char *section, const char *field, guint min, guint max,
          guint *out)
{
  double v;

  if (!get_number (r, o, section, field, min, max, &v))
    return FALSE;
  if (v != floor (v))
    return fail (r, section, field, "not an integer");
  *out = (guint) v;
  return TRUE;
}

/* Every member of @o is one of @known: a typo ("iteration_uss") is an
 * error, not a default silently kept. */
static gboolean
only_known (Reader *r, JsonObject *o, const char *section, const char * const *known)
{
  JsonObjectIter it;
  const char *name;
  JsonNode *value;

  json_object_iter_init (&it, o);
  while (json_object_iter_next (&it, &name, &value))
    if (!g_strv_contains (known, name))
      {
        g_autofree char *shown = g_strndup (name, 64);
        g_autofree char *what = g_strdup_printf ("“%s” is not a member of %s (a typo?)", shown,
                                                 section ? section : "the file");

        g_set_error (r->error, PRISM_ERROR, PRISM_ERROR_PARSE, "%s: %s", r->origin, what);
        return FALSE;
      }
  return TRUE;
}

static const char * const top_members[] = { "format", "version", "name", "display_name", "match",
                                            "datasheet", "calibration", NULL };
static const char * const datasheet_members[] = { "source", "compute_capability", "sm_count", "dram_gbs",
                                                  "l2_mb", "tensor_tflops", "fp32_tflops",
                                                  "smem_per_block_kb", "smem_per_sm_kb",
                                                  "max_threads_per_block", "max_threads_per_sm",
                                                  "max_blocks_per_sm", "registers_per_sm", NULL };
/* With what prism calibrate writes beside the figures read here. */
static const char * const calibration_members[] = { "source", "measured", "launch_gap_us", "dram_latency_us",
                                                    "l2_gbs", "dram_gbs_by_inflight", "tensor_efficiency",
                                                    "fp32_efficiency", "vendor_gemm", "iteration_us",
                                                    "sm_clock_mhz", NULL };
static const char * const vendor_gemm_members[] = { "efficiency", "min_us", "bandwidth_efficiency", "source",
                                                    "skipped", "shapes", NULL };
static const char * const curve_members[] = { "kib_per_sm", "gbs", "threads_per_sm", "loads_per_thread", NULL };

/* A name printed by bench and search: printable, one line, bounded. */
static gboolean
check_label (Reader *r, const char *field, const char *value, gsize max)
{
  if (strlen (value) > max)
    {
      g_autofree char *what = g_strdup_printf ("longer than %" G_GSIZE_FORMAT " bytes", max);
      return fail (r, NULL, field, what);
    }
  if (!g_utf8_validate (value, -1, NULL))
    return fail (r, NULL, field, "not valid UTF-8");
  for (const char *c = value; *c; c = g_utf8_next_char (c))
    {
      gunichar u = g_utf8_get_char (c);

      if (g_unichar_iscntrl (u) || u == 0x2028 || u == 0x2029)
        {
          g_autofree char *what = g_strdup_printf ("holds the control character U+%04X", u);
          return fail (r, NULL, field, what);
        }
    }
  return TRUE;
}

static gboolean
read_match (Reader *r, JsonObject *o, PrismGpuTarget *t)
{
  JsonNode *n = json_object_get_member (o, "match");
  JsonArray *a;
  guint len;

  if (n == NULL || !JSON_NODE_HOLDS_ARRAY (n))
    return fail (r, NULL, "match", n == NULL ? "missing" : "not an array of strings");
  a = json_node_get_array (n);
  len = MIN (json_array_get_length (a), 16);
  t->match = g_new0 (char *, len + 1);
  for (guint i = 0; i < len; i++)
    {
      JsonNode *e = json_array_get_element (a, i);
      if (!JSON_NODE_HOLDS_VALUE (e) || json_node_get_value_type (e) != G_TYPE_STRING ||
          *json_node_get_string (e) == '\0')
        return fail (r, NULL, "match", "not an array of non-empty strings");
      if (!check_label (r, "match", json_node_get_string (e), PRISM_GPU_MAX_NAME))
        return FALSE;
      t->match[i] = g_strdup (json_node_get_string (e));
    }
  return TRUE;
}

/* Threads come in warps of 32 on every GPU the code generator targets. */
static gboolean
whole_warps (Reader *r, const char *section, const char *field, guint threads)
{
  return threads % 32 == 0 || fail (r, section, field, "not a multiple of 32 (a warp)");
}

static gboolean
read_datasheet (Reader *r, JsonObject *d, PrismGpuTarget *t)
{
  const char *s = "datasheet";

  return only_known (r, d, s, datasheet_members) &&
         get_string (r, d, s, "source", &t->datasheet_source) &&
         get_uint (r, d, s, "compute_capability", 50, 200, &t->compute_capability) &&
         get_uint (r, d, s, "sm_count", 1, 4096, &t->sm_count) &&
         get_number (r, d, s, "dram_gbs", 1, 1e6, &t->dram_gbs) &&
         get_number (r, d, s, "l2_mb", 0.1, 4096, &t->l2_mb) &&
         get_number (r, d, s, "tensor_tflops", 0.1, 1e6, &t->tensor_tflops) &&
         get_number (r, d, s, "fp32_tflops", 0.1, 1e6, &t->fp32_tflops) &&
         get_uint (r, d, s, "smem_per_block_kb", 16, 4096, &t->smem_per_block_kb) &&
         get_uint (r, d, s, "smem_per_sm_kb", 16, 4096, &t->smem_per_sm_kb) &&
         get_uint (r, d, s, "max_threads_per_block", 32, 1024, &t->max_threads_per_block) &&
         whole_warps (r, s, "max_threads_per_block", t->max_threads_per_block) &&
         get_uint (r, d, s, "max_threads_per_sm", 32, 4096, &t->max_threads_per_sm) &&
         whole_warps (r, s, "max_threads_per_sm", t->max_threads_per_sm) &&
         get_uint (r, d, s, "max_blocks_per_sm", 1, 1024, &t->max_blocks_per_sm) &&
         get_uint (r, d, s, "registers_per_sm", 1024, 1 << 24, &t->registers_per_sm);
}

static gboolean
read_curve (Reader *r, JsonObject *c, PrismGpuTarget *t)
{
  JsonNode *n = json_object_get_member (c, "dram_gbs_by_inflight");
  JsonArray *a;

  if (n == NULL || !JSON_NODE_HOLDS_ARRAY (n))
    return fail (r, "calibration", "dram_gbs_by_inflight", n == NULL ? "missing" : "not an array");
  a = json_node_get_array (n);
  if (json_array_get_length (a) == 0 || json_array_get_length (a) > MAX_CURVE)
    return fail (r, "calibration", "dram_gbs_by_inflight", "needs 1 to 64 points");
  t->n_dram_curve = json_array_get_length (a);
  t->dram_curve = g_new0 (PrismBandwidthPoint, t->n_dram_curve);
  for (guint i = 0; i < t->n_dram_curve; i++)
    {
      JsonNode *e = json_array_get_element (a, i);
      PrismBandwidthPoint *p = &t->dram_curve[i];

      if (!JSON_NODE_HOLDS_OBJECT (e))
        return fail (r, "calibration", "dram_gbs_by_inflight", "a point is not an object");
      if (!only_known (r, json_node_get_object (e), "calibration.dram_gbs_by_inflight[]", curve_members))
        return FALSE;
      if (!get_number (r, json_node_get_object (e), "calibration.dram_gbs_by_inflight", "kib_per_sm",
                       1e-3, 1e6, &p->kib_per_sm) ||
          !get_number (r, json_node_get_object (e), "calibration.dram_gbs_by_inflight", "gbs", 1e-3,
                       1e6, &p->gbs))
        return FALSE;
      if (i > 0 && p->kib_per_sm <= t->dram_curve[i - 1].kib_per_sm)
        return fail (r, "calibration", "dram_gbs_by_inflight", "kib_per_sm must ascend");
    }
  return TRUE;
}

static gboolean
read_calibration (Reader *r, JsonObject *c, PrismGpuTarget *t)
{
  const char *s = "calibration";
  JsonNode *m = json_object_get_member (c, "measured");
  JsonObject *v;

  if (m == NULL || !JSON_NODE_HOLDS_VALUE (m) || json_node_get_value_type (m) != G_TYPE_BOOLEAN)
    return fail (r, s, "measured", m == NULL ? "missing" : "not a boolean");
  t->measured = json_node_get_boolean (m);
  if (!only_known (r, c, s, calibration_members) ||
      !get_string (r, c, s, "source", &t->calibration_source) ||
      !get_number (r, c, s, "launch_gap_us", 0, 1000, &t->launch_us) ||
      !get_number (r, c, s, "dram_latency_us", 1e-3, 100, &t->dram_latency_us) ||
      !get_number (r, c, s, "l2_gbs", 1, 1e6, &t->l2_gbs) ||
      !read_curve (r, c, t) ||
      !get_number (r, c, s, "tensor_efficiency", 1e-3, 1, &t->tensor_efficiency) ||
      !get_number (r, c, s, "fp32_efficiency", 1e-3, 1, &t->fp32_efficiency) ||
      !get_object (r, c, s, "vendor_gemm", &v) ||
      !only_known (r, v, "calibration.vendor_gemm", vendor_gemm_members) ||
      !get_number (r, v, "calibration.vendor_gemm", "efficiency", 0, 1, &t->vendor_gemm_efficiency) ||
      !get_number (r, v, "calibration.vendor_gemm", "min_us", 0, 1000, &t->vendor_gemm_min_us))
    return FALSE;
  /* 0: not measured (prism calibrate without cuBLASLt); the estimates of
   * the built-in files stand in. */
  if (t->vendor_gemm_efficiency == 0)
    {
      t->vendor_gemm_efficiency = 0.75;
      t->vendor_gemm_min_us = MAX (t->vendor_gemm_min_us, 3.0);
    }
  /* Optional: what prism calibrate does not measure keeps a default. */
  t->iteration_us = 0.05;
  if (json_object_has_member (c, "iteration_us") &&
      !get_number (r, c, s, "iteration_us", 0, 100, &t->iteration_us))
    return FALSE;
  t->vendor_gemm_bandwidth_efficiency = 0.85;
  if (json_object_has_member (v, "bandwidth_efficiency") &&
      !get_number (r, v, "calibration.vendor_gemm", "bandwidth_efficiency", 1e-3, 1,
                   &t->vendor_gemm_bandwidth_efficiency))
    return FALSE;
  return TRUE;
}

PrismGpuTarget *
prism_gpu_target_load_data (const char *data, gssize length, const char *origin, GError **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(PrismGpuTarget) t = g_new0 (PrismGpuTarget, 1);
  Reader r = { origin ? origin : "prism-gpu data", error };
  g_autofree char *format = NULL;
  JsonNode *root;
  JsonObject *o, *d, *c;
  guint version;
  GError *local = NULL;

  if (length < 0)
    length = (gssize) strlen (data);
  if (length > MAX_FILE_SIZE)
    {
      fail (&r, NULL, "(file)", "larger than 1 MiB");
      return NULL;
    }
  /* Strict JSON first (prism-json-reader.h): json-glib is lenient. */
  if (!prism_json_check_text (data, (gsize) length, prism_json_limits_for (PRISM_JSON_GPU), &local) ||
      !json_parser_load_from_data (parser, data, length, &local))
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_PARSE, "%s: not JSON: %s", r.origin, local->message);
      g_error_free (local);
      return NULL;
    }
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      fail (&r, NULL, "(root)", "not an object");
      return NULL;
    }
  o = json_node_get_object (root);
  if (!get_string (&r, o, NULL, "format", &format))
    return NULL;
  if (!g_str_equal (format, PRISM_GPU_FORMAT) || !get_uint (&r, o, NULL, "version", 0, G_MAXINT, &version) ||
      version != PRISM_GPU_FORMAT_VERSION)
    {
      g_clear_error (error);
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_VERSION, "%s: not a %s file of version %d", r.origin,
                   PRISM_GPU_FORMAT, PRISM_GPU_FORMAT_VERSION);
      return NULL;
    }
  if (!only_known (&r, o, NULL, top_members) ||
      !get_string (&r, o, NULL, "name", &t->name) ||
      !check_label (&r, "name", t->name, PRISM_GPU_MAX_NAME) ||
      !get_string (&r, o, NULL, "display_name", &t->display_name) ||
      !check_label (&r, "display_name", t->display_name, PRISM_GPU_MAX_NAME) ||
      !read_match (&r, o, t) ||
      !get_object (&r, o, NULL, "datasheet", &d) || !read_datasheet (&r, d, t) ||
      !get_object (&r, o, NULL, "calibration", &c) || !read_calibration (&r, c, t))
    return NULL;
  if (*t->name == '\0' || strpbrk (t->name, " \t\n/") != NULL)
    {
      fail (&r, NULL, "name", "must be a non-empty word");
      return NULL;
    }
  if (t->smem_per_block_kb > t->smem_per_sm_kb)
    {
      fail (&r, "datasheet", "smem_per_block_kb", "exceeds smem_per_sm_kb");
      return NULL;
    }
  return g_steal_pointer (&t);
}

PrismGpuTarget *
prism_gpu_target_load_file (const char *path, GError **error)
{
  g_autofree char *data = NULL;
  gsize len = 0;

  /* A regular file of at most 1 MiB, refused by kind before it is read. */
  if ((data = prism_json_read_file (path, MAX_FILE_SIZE, &len, error)) == NULL)
    return NULL;
  return prism_gpu_target_load_data (data, (gssize) len, path, error);
}

/* ------------------------------------------------------------------------ */
/* The table */

static GPtrArray *table;   /* PrismGpuTarget*, the process's lifetime */

static void
table_put (GPtrArray *t, PrismGpuTarget *target)
{
  for (guint i = 0; i < t->len; i++)
    {
      PrismGpuTarget *old = g_ptr_array_index (t, i);
      if (g_ascii_strcasecmp (old->name, target->name) == 0)
        {
          /* Replaced in place: the built-in order stays. */
          t->pdata[i] = target;
          prism_gpu_target_free (old);
          return;
        }
    }
  g_ptr_array_add (t, target);
}

static void
load_user_file (GPtrArray *t, const char *entry)
{
  g_autoptr(GError) error = NULL;
  PrismGpuTarget *target;

  target = prism_gpu_target_load_file (entry, &error);
  if (target == NULL)
    {
      g_warning ("$PRISM_GPU_DATA_PATH: %s", error->message);
      return;
    }
  table_put (t, target);
}

/* An entry of the path: a file, or a folder whose *.json files are read —
 * only those: a folder (or a link to one, "ln -s . d/a.json") among them
 * is not entered, so a symlink loop costs one warning, not 2^40 paths. */
static void
load_user_path (GPtrArray *t, const char *entry)
{
  g_autoptr(GDir) dir = NULL;
  g_autoptr(GPtrArray) names = NULL;
  const char *name;

  if (!g_file_test (entry, G_FILE_TEST_IS_DIR))
    {
      load_user_file (t, entry);
      return;
    }
  dir = g_dir_open (entry, 0, NULL);
  names = g_ptr_array_new_with_free_func (g_free);
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    if (g_str_has_suffix (name, ".json"))
      {
        if (names->len == PRISM_GPU_MAX_DATA_FILES)
          {
            g_warning ("$PRISM_GPU_DATA_PATH: %s: more than %d .json files; the rest are not read",
                       entry, PRISM_GPU_MAX_DATA_FILES);
            break;
          }
        g_ptr_array_add (names, g_build_filename (entry, name, NULL));
      }
  g_ptr_array_sort (names, (GCompareFunc) g_strcmp0);
  for (guint i = 0; i < names->len; i++)
    {
      const char *path = g_ptr_array_index (names, i);

      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        g_warning ("$PRISM_GPU_DATA_PATH: %s is a folder (or a link to one) inside a folder of the "
                   "path: not read (only the path's own folders are)", path);
      else
        load_user_file (t, path);
    }
}

static int
compare_extra (gconstpointer a, gconstpointer b)
{
  const PrismGpuTarget *x = *(PrismGpuTarget * const *) a;
  const PrismGpuTarget *y = *(PrismGpuTarget * const *) b;

  return g_ascii_strcasecmp (x->name, y->name);
}

static GPtrArray *
build_table (void)
{
  GPtrArray *t = g_ptr_array_new ();
  const char *env = g_getenv ("PRISM_GPU_DATA_PATH");

  for (guint i = 0; i < G_N_ELEMENTS (builtin_names); i++)
    {
      g_autofree char *path = g_strconcat (RESOURCE_PREFIX, builtin_names[i], ".json", NULL);
      g_autoptr(GBytes) bytes = g_resource_lookup_data (prism_gpus_get_resource (), path,
                                                        G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
      g_autoptr(GError) error = NULL;
      gsize len = 0;
      const char *data = bytes ? g_bytes_get_data (bytes, &len) : NULL;
      PrismGpuTarget *target = data ? prism_gpu_target_load_data (data, (gssize) len, path, &error) : NULL;

      /* The built-in files are part of the library and tested. */
      if (target == NULL)
        g_error ("built-in GPU data %s: %s", path, error ? error->message : "missing");
      g_ptr_array_add (t, target);
    }
  if (env != NULL && *env)
    {
      g_auto(GStrv) parts = g_strsplit (env, G_SEARCHPATH_SEPARATOR_S, -1);
      guint n_builtin = t->len;

      for (guint i = 0; parts[i] != NULL; i++)
        if (*parts[i])
          load_user_path (t, parts[i]);
      /* Built-ins first, in their order; the others by name. */
      if (t->len > n_builtin + 1)
        qsort (t->pdata + n_builtin, t->len - n_builtin, sizeof (gpointer), compare_extra);
    }
  return t;
}

static GPtrArray *
get_table (void)
{
  if (g_once_init_enter (&table))
    g_once_init_leave (&table, build_table ());
  return table;
}

const PrismGpuTarget * const *
prism_gpu_target_list (guint *n_targets)
{
  GPtrArray *t = get_table ();

  if (n_targets != NULL)
    *n_targets = t->len;
  return (const PrismGpuTarget * const *) t->pdata;
}

static const PrismGpuTarget *
nth (guint i)
{
  return g_ptr_array_index (get_table (), i);
}

const PrismGpuTarget *
prism_gpu_target_lookup (const char *name)
{
  GPtrArray *t = get_table ();

  for (guint i = 0; name != NULL && i < t->len; i++)
    if (g_ascii_strcasecmp (nth (i)->name, name) == 0)
      return nth (i);
  return NULL;
}

const PrismGpuTarget *
prism_gpu_target_default (void)
{
  return prism_gpu_target_lookup ("h100");
}

const PrismGpuTarget *
prism_gpu_target_for_device (const char *device_name, guint compute_capability)
{
  GPtrArray *t = get_table ();
  g_autofree char *lower = g_ascii_strdown (device_name ? device_name : "", -1);

  for (guint i = 0; i < t->len; i++)
    for (char **m = nth (i)->match; m != NULL && *m != NULL; m++)
      {
        g_autofree char *lm = g_ascii_strdown (*m, -1);
        if (strstr (lower, lm) != NULL)
          return nth (i);
      }
  for (guint i = 0; i < t->len; i++)
    if (nth (i)->compute_capability == compute_capability)
      return nth (i);
  return NULL;
}

double
prism_gpu_target_dram_gbs (const PrismGpuTarget *target, double kib_per_sm)
{
  const PrismBandwidthPoint *c = target->dram_curve;
  guint n = target->n_dram_curve;
  double gbs;

  if (kib_per_sm <= 0)
    return 0;
  if (kib_per_sm <= c[0].kib_per_sm)
    gbs = c[0].gbs * kib_per_sm / c[0].kib_per_sm;
  else if (kib_per_sm >= c[n - 1].kib_per_sm)
    gbs = c[n - 1].gbs;
  else
    {
      guint i = 1;
      while (c[i].kib_per_sm < kib_per_sm)
        i++;
      gbs = c[i - 1].gbs + (c[i].gbs - c[i - 1].gbs) * (kib_per_sm - c[i - 1].kib_per_sm) /
                               (c[i].kib_per_sm - c[i - 1].kib_per_sm);
    }
  return MIN (gbs, target->dram_gbs);
}
