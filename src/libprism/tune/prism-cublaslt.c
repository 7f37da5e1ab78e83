/* prism-cublaslt.c — cuBLASLt matmuls, loaded at run time
 *
 * The benchmark's baseline runs the unfused program with vendor matmuls, as
 * a user of PyTorch would get them.  cuBLASLt is dlopened like the driver
 * (Prism never links against CUDA libraries), so a machine without it
 * still measures everything else and says what is missing.
 *
 * cuBLASLt is column-major; Prism's tensors are row-major.  A row-major
 * [r, c] matrix is the column-major [c, r] matrix of its transpose, so
 * C = A · B (row-major) is C^T = B^T · A^T (column-major): the library's
 * "A" is our B ([n, k] column-major, leading dimension n), its "B" is our A
 * ([k, m], leading dimension k), its "C"/"D" our C ([n, m], leading
 * dimension n), nothing transposed.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

#include "prism-cublaslt.h"
#include "prism-error.h"

/* ------------------------------------------------------------------------ */
/* The cuBLASLt ABI we use (values of cublasLt.h, cublas_api.h and
 * library_types.h of CUDA 13, unchanged since CUDA 11) */

typedef int LtStatus;
typedef struct cublasLtContext *LtHandle;
typedef struct LtMatmulDescOpaque *LtMatmulDesc;
typedef struct LtMatrixLayoutOpaque *LtLayout;
typedef struct LtPreferenceOpaque *LtPreference;

typedef struct
{
  guint64 data[8];
} LtAlgo;

typedef struct
{
  LtAlgo algo;
  size_t workspace_size;
  LtStatus state;
  float waves_count;
  int reserved[4];
} LtHeuristicResult;

G_STATIC_ASSERT (sizeof (LtAlgo) == 64);
G_STATIC_ASSERT (sizeof (LtHeuristicResult) == 96);

enum
{
  LT_STATUS_SUCCESS = 0,
  LT_STATUS_NOT_SUPPORTED = 15,

  LT_R_32F = 0,                 /* cudaDataType */
  LT_R_16F = 2,
  LT_R_16BF = 14,

  LT_COMPUTE_32F = 68,          /* cublasComputeType_t */
  LT_COMPUTE_32F_PEDANTIC = 69,

  LT_OP_N = 0,                  /* cublasOperation_t */

  LT_DESC_TRANSA = 3,           /* cublasLtMatmulDescAttributes_t, int32 */
  LT_DESC_TRANSB = 4,

  LT_LAYOUT_BATCH_COUNT = 5,    /* cublasLtMatrixLayoutAttribute_t, int32 */
  LT_LAYOUT_BATCH_STRIDE = 6,   /* int64 */

  LT_PREF_MAX_WORKSPACE_BYTES = 1,   /* cublasLtMatmulPreferenceAttributes_t, uint64 */
  LT_PREF_MIN_ALIGNMENT_A = 5,       /* uint32 each */
  LT_PREF_MIN_ALIGNMENT_B = 6,
  LT_PREF_MIN_ALIGNMENT_C = 7,
  LT_PREF_MIN_ALIGNMENT_D = 8,
};

typedef struct
{
  LtStatus (*Create) (LtHandle *handle);
  LtStatus (*Destroy) (LtHandle handle);
  size_t (*GetVersion) (void);
  const char *(*GetStatusName) (LtStatus status);
  LtStatus (*MatmulDescCreate) (LtMatmulDesc *desc, int compute, int scale);
  LtStatus (*MatmulDescDestroy) (LtMatmulDesc desc);
  LtStatus (*MatmulDescSetAttribute) (LtMatmulDesc desc, int attr, const void *buf, size_t size);
  LtStatus (*MatrixLayoutCreate) (LtLayout *layout, int type, guint64 rows, guint64 cols, gint64 ld);
  LtStatus (*MatrixLayoutDestroy) (LtLayout layout);
  LtStatus (*MatrixLayoutSetAttribute) (LtLayout layout, int attr, const void *buf, size_t size);
  LtStatus (*MatmulPreferenceCreate) (LtPreference *pref);
  LtStatus (*MatmulPreferenceDestroy) (LtPreference pref);
  LtStatus (*MatmulPreferenceSetAttribute) (LtPreference pref, int attr, const void *buf, size_t size);
  LtStatus (*MatmulAlgoGetHeuristic) (LtHandle handle, LtMatmulDesc desc, LtLayout a, LtLayout b, LtLayout c,
                                      LtLayout d, LtPreference pref, int requested, LtHeuristicResult *results,
                                      int *returned);
  LtStatus (*Matmul) (LtHandle handle, LtMatmulDesc desc, const void *alpha, const void *a, LtLayout adesc,
                      const void *b, LtLayout bdesc, const void *beta, const void *c, LtLayout cdesc, void *d,
                      LtLayout ddesc, const LtAlgo *algo, void *workspace, size_t workspace_bytes,
                      PrismCUstream stream);
} Lt;

typedef struct
{
  gsize offset;
  const char *name;
} Symbol;

#define SYM(field, name) { G_STRUCT_OFFSET (Lt, field), name }

static const Symbol symbols[] = {
  SYM (Create, "cublasLtCreate"),
  SYM (Destroy, "cublasLtDestroy"),
  SYM (GetVersion, "cublasLtGetVersion"),
  SYM (GetStatusName, "cublasLtGetStatusName"),
  SYM (MatmulDescCreate, "cublasLtMatmulDescCreate"),
  SYM (MatmulDescDestroy, "cublasLtMatmulDescDestroy"),
  SYM (MatmulDescSetAttribute, "cublasLtMatmulDescSetAttribute"),
  SYM (MatrixLayoutCreate, "cublasLtMatrixLayoutCreate"),
  SYM (MatrixLayoutDestroy, "cublasLtMatrixLayoutDestroy"),
  SYM (MatrixLayoutSetAttribute, "cublasLtMatrixLayoutSetAttribute"),
  SYM (MatmulPreferenceCreate, "cublasLtMatmulPreferenceCreate"),
  SYM (MatmulPreferenceDestroy, "cublasLtMatmulPreferenceDestroy"),
  SYM (MatmulPreferenceSetAttribute, "cublasLtMatmulPreferenceSetAttribute"),
  SYM (MatmulAlgoGetHeuristic, "cublasLtMatmulAlgoGetHeuristic"),
  SYM (Matmul, "cublasLtMatmul"),
};

/* ------------------------------------------------------------------------ */

/* One shape's descriptors and algorithm, made once and kept. */
typedef struct
{
  PrismGemmShape shape;
  guint align_a, align_b, align_c;   /* of our A, B, C in bytes */
  gsize workspace_bytes;
  LtMatmulDesc desc;
  LtLayout layout_a, layout_b, layout_c;   /* the library's A (our B), B (our A), C = D (our C) */
  LtAlgo algo;
} Plan;

struct _PrismCublasLt
{
  void *handle;
  char *path;
  Lt lt;
  LtHandle lt_handle;
  GPtrArray *plans;          /* Plan */
  guint n_queries;
  LtStatus last_status;
};

PrismCublasLt *
prism_cublaslt_new (void)
{
  return g_new0 (PrismCublasLt, 1);
}

static void
plan_destroy (PrismCublasLt *self, Plan *p)
{
  if (p->layout_a != NULL)
    self->lt.MatrixLayoutDestroy (p->layout_a);
  if (p->layout_b != NULL)
    self->lt.MatrixLayoutDestroy (p->layout_b);
  if (p->layout_c != NULL)
    self->lt.MatrixLayoutDestroy (p->layout_c);
  if (p->desc != NULL)
    self->lt.MatmulDescDestroy (p->desc);
  g_free (p);
}

void
prism_cublaslt_free (PrismCublasLt *self)
{
  if (self == NULL)
    return;
  for (guint i = 0; self->plans != NULL && i < self->plans->len; i++)
    plan_destroy (self, g_ptr_array_index (self->plans, i));
  g_clear_pointer (&self->plans, g_ptr_array_unref);
  if (self->lt_handle != NULL)
    self->lt.Destroy (self->lt_handle);
  /* The library stays mapped, like the driver: it keeps process-wide state. */
  g_free (self->path);
  g_free (self);
}

gboolean
prism_cublaslt_load (PrismCublasLt *self, GError **error)
{
  static const char * const sonames[] = { "libcublasLt.so.13", "libcublasLt.so.12", NULL };
  static const char * const wheels[] = { "nvidia/cublas/lib", "nvidia/cu13/lib", "nvidia/cu12/lib", NULL };
  LtStatus r;

  g_return_val_if_fail (self != NULL, FALSE);
  if (self->lt_handle != NULL)
    return TRUE;
  if (self->handle == NULL)
    {
      self->handle = prism_cuda_open_library ("cuBLASLt", "PRISM_CUBLASLT_LIBRARY", sonames, wheels,
                                              PRISM_ERROR_NO_VENDOR, &self->path, error);
      if (self->handle == NULL)
        return FALSE;
      for (guint i = 0; i < G_N_ELEMENTS (symbols); i++)
        {
          void *p = dlsym (self->handle, symbols[i].name);

          if (p == NULL)
            {
              g_set_error (error, PRISM_ERROR, PRISM_ERROR_NO_VENDOR,
                           "the cuBLASLt library %s has no function %s (too old?)", self->path, symbols[i].name);
              memset (&self->lt, 0, sizeof self->lt);
              self->handle = NULL;
              g_clear_pointer (&self->path, g_free);
              return FALSE;
            }
          memcpy ((char *) &self->lt + symbols[i].offset, &p, sizeof p);
        }
    }
  r = self->lt.Create (&self->lt_handle);
  if (r != LT_STATUS_SUCCESS)
    {
      const char *name = self->lt.GetStatusName (r);
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_NO_VENDOR, "cublasLtCreate (%s) failed: %s (%d)", self->path,
                   name != NULL ? name : "?", r);
      self->lt_handle = NULL;
      return FALSE;
    }
  self->plans = g_ptr_array_new ();
  return TRUE;
}

const char *
prism_cublaslt_get_path (const PrismCublasLt *self)
{
  return self->path;
}

gsize
prism_cublaslt_get_version (const PrismCublasLt *self)
{
  return self->lt_handle != NULL ? self->lt.GetVersion () : 0;
}

guint
prism_cublaslt_get_n_heuristic_queries (const PrismCublasLt *self)
{
  return self->n_queries;
}

const char *
prism_cublaslt_get_last_status_name (const PrismCublasLt *self)
{
  return self->last_status != LT_STATUS_SUCCESS && self->lt.GetStatusName != NULL
         ? self->lt.GetStatusName (self->last_status) : NULL;
}

char *
prism_gemm_shape_to_string (const PrismGemmShape *shape)
{
  return g_strdup_printf ("%u × %" G_GINT64_FORMAT "×%" G_GINT64_FORMAT "×%" G_GINT64_FORMAT " %s",
                          shape->batch, shape->m, shape->n, shape->k, prism_dtype_to_string (shape->dtype));
}

/* Largest power of two up to 256 that divides @addr and @stride_bytes:
 * the heuristic assumes 256-byte alignment unless told otherwise. */
static guint
alignment (PrismCUdeviceptr addr, guint64 stride_bytes)
{
  guint a = 256;

  while (a > 1 && ((addr % a) != 0 || (stride_bytes % a) != 0))
    a /= 2;
  return a;
}

/* Records a failed call in @error; FALSE. */
static gboolean
lt_failed (PrismCublasLt *self, LtStatus r, const char *call, const PrismGemmShape *shape, GError **error)
{
  g_autofree char *what = prism_gemm_shape_to_string (shape);
  const char *name = self->lt.GetStatusName (r);

  self->last_status = r;
  g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED, "%s failed for the GEMM %s: %s (%d)", call, what,
               name != NULL ? name : "unknown cuBLASLt status", r);
  return FALSE;
}

#define LT_TRY(call, expr) \
  G_STMT_START { LtStatus r_ = (expr); if (r_ != LT_STATUS_SUCCESS) return lt_failed (self, r_, call, shape, error); } G_STMT_END

static gboolean
make_layout (PrismCublasLt *self, LtLayout *out, int type, gint64 rows, gint64 cols, gint64 ld, guint batch,
             gint64 stride, const PrismGemmShape *shape, GError **error)
{
  gint32 count = (gint32) batch;

  LT_TRY ("cublasLtMatrixLayoutCreate", self->lt.MatrixLayoutCreate (out, type, (guint64) rows, (guint64) cols, ld));
  LT_TRY ("cublasLtMatrixLayoutSetAttribute",
          self->lt.MatrixLayoutSetAttribute (*out, LT_LAYOUT_BATCH_COUNT, &count, sizeof count));
  LT_TRY ("cublasLtMatrixLayoutSetAttribute",
          self->lt.MatrixLayoutSetAttribute (*out, LT_LAYOUT_BATCH_STRIDE, &stride, sizeof stride));
  return TRUE;
}

/* Asks the heuristic for the best algorithm of @p with @compute; FALSE
 * (and no error) when it has none. */
static gboolean
query (PrismCublasLt *self, Plan *p, int compute, gboolean *found, GError **error)
{
  const PrismGemmShape *shape = &p->shape;
  gint32 op = LT_OP_N;
  guint64 ws = p->workspace_bytes;
  guint32 aligns[4] = { p->align_b, p->align_a, p->align_c, p->align_c };
  LtPreference pref = NULL;
  LtHeuristicResult result;
  int returned = 0;
  LtStatus r;

  *found = FALSE;
  if (p->desc != NULL)
    {
      self->lt.MatmulDescDestroy (p->desc);
      p->desc = NULL;
    }
  LT_TRY ("cublasLtMatmulDescCreate", self->lt.MatmulDescCreate (&p->desc, compute, LT_R_32F));
  LT_TRY ("cublasLtMatmulDescSetAttribute", self->lt.MatmulDescSetAttribute (p->desc, LT_DESC_TRANSA, &op, sizeof op));
  LT_TRY ("cublasLtMatmulDescSetAttribute", self->lt.MatmulDescSetAttribute (p->desc, LT_DESC_TRANSB, &op, sizeof op));
  LT_TRY ("cublasLtMatmulPreferenceCreate", self->lt.MatmulPreferenceCreate (&pref));
  r = self->lt.MatmulPreferenceSetAttribute (pref, LT_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
  for (guint i = 0; i < G_N_ELEMENTS (aligns) && r == LT_STATUS_SUCCESS; i++)
    r = self->lt.MatmulPreferenceSetAttribute (pref, LT_PREF_MIN_ALIGNMENT_A + (int) i, &aligns[i], sizeof aligns[i]);
  if (r == LT_STATUS_SUCCESS)
    {
      self->n_queries++;
      memset (&result, 0, sizeof result);
      r = self->lt.MatmulAlgoGetHeuristic (self->lt_handle, p->desc, p->layout_a, p->layout_b, p->layout_c,
                                           p->layout_c, pref, 1, &result, &returned);
    }
  self->lt.MatmulPreferenceDestroy (pref);
  if (r == LT_STATUS_NOT_SUPPORTED || (r == LT_STATUS_SUCCESS && (returned < 1 || result.state != 0)))
    return TRUE;
  if (r != LT_STATUS_SUCCESS)
    return lt_failed (self, r, "cublasLtMatmulAlgoGetHeuristic", shape, error);
  p->algo = result.algo;
  *found = TRUE;
  return TRUE;
}

static Plan *
find_plan (PrismCublasLt *self, const PrismGemmShape *shape, guint align_a, guint align_b, guint align_c,
           gsize workspace_bytes)
{
  for (guint i = 0; i < self->plans->len; i++)
    {
      Plan *p = g_ptr_array_index (self->plans, i);

      if (memcmp (&p->shape, shape, sizeof *shape) == 0 && p->align_a == align_a && p->align_b == align_b &&
          p->align_c == align_c && p->workspace_bytes == workspace_bytes)
        return p;
    }
  return NULL;
}

static Plan *
make_plan (PrismCublasLt *self, const PrismGemmShape *shape, guint align_a, guint align_b, guint align_c,
           gsize workspace_bytes, GError **error)
{
  int type = shape->dtype == PRISM_DTYPE_F16 ? LT_R_16F : shape->dtype == PRISM_DTYPE_BF16 ? LT_R_16BF : LT_R_32F;
  Plan *p = g_new0 (Plan, 1);
  gboolean found = FALSE;

  p->shape = *shape;
  p->align_a = align_a;
  p->align_b = align_b;
  p->align_c = align_c;
  p->workspace_bytes = workspace_bytes;
  /* The transposed view: see the top of the file. */
  if (!make_layout (self, &p->layout_a, type, shape->n, shape->k, shape->n, shape->batch, shape->stride_b, shape, error) ||
      !make_layout (self, &p->layout_b, type, shape->k, shape->m, shape->k, shape->batch, shape->stride_a, shape, error) ||
      !make_layout (self, &p->layout_c, type, shape->n, shape->m, shape->n, shape->batch, shape->stride_c, shape, error))
    {
      plan_destroy (self, p);
      return NULL;
    }
  /* f32: pedantic first, so that no TF32 algorithm can be chosen; plain
   * 32F (which never down-converts f32 operands either) where the library
   * has no pedantic algorithm or refuses the request.  f16 and bf16: f32
   * accumulation. */
  if (shape->dtype == PRISM_DTYPE_F32)
    {
      g_autoptr(GError) pedantic = NULL;

      if (!query (self, p, LT_COMPUTE_32F_PEDANTIC, &found, &pedantic))
        found = FALSE;
    }
  if (!found && !query (self, p, LT_COMPUTE_32F, &found, error))
    {
      plan_destroy (self, p);
      return NULL;
    }
  if (!found)
    {
      g_autofree char *what = prism_gemm_shape_to_string (shape);
      self->last_status = LT_STATUS_NOT_SUPPORTED;
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED,
                   "cublasLtMatmulAlgoGetHeuristic found no algorithm for the GEMM %s "
                   "(alignments %u, %u, %u bytes, %" G_GSIZE_FORMAT " bytes of workspace)",
                   what, align_a, align_b, align_c, workspace_bytes);
      plan_destroy (self, p);
      return NULL;
    }
  g_ptr_array_add (self->plans, p);
  return p;
}

gboolean
prism_cublaslt_gemm (PrismCublasLt *self, const PrismGemmShape *shape_in, PrismCUdeviceptr a, PrismCUdeviceptr b,
                     PrismCUdeviceptr c, PrismCUdeviceptr workspace, gsize workspace_bytes, PrismCUstream stream,
                     GError **error)
{
  const float alpha = 1.0f, beta = 0.0f;
  PrismGemmShape shape_copy, *shape = &shape_copy;
  guint es, align_a, align_b, align_c;
  Plan *p;

  g_return_val_if_fail (self != NULL && shape_in != NULL, FALSE);
  if (self->lt_handle == NULL)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_NO_VENDOR, "cuBLASLt is not loaded");
      return FALSE;
    }
  /* A zeroed copy: the plan cache compares shapes byte by byte. */
  memset (&shape_copy, 0, sizeof shape_copy);
  shape_copy.batch = shape_in->batch;
  shape_copy.m = shape_in->m;
  shape_copy.n = shape_in->n;
  shape_copy.k = shape_in->k;
  shape_copy.dtype = shape_in->dtype;
  shape_copy.stride_a = shape_in->batch > 1 ? shape_in->stride_a : 0;
  shape_copy.stride_b = shape_in->batch > 1 ? shape_in->stride_b : 0;
  shape_copy.stride_c = shape_in->batch > 1 ? shape_in->stride_c : 0;
  if (shape->batch < 1 || shape->m < 1 || shape->n < 1 || shape->k < 1 || shape->m > G_MAXINT32 ||
      shape->n > G_MAXINT32 || shape->k > G_MAXINT32 || shape->batch > G_MAXINT32 || shape->stride_a < 0 ||
      shape->stride_b < 0 || (shape->batch > 1 && shape->stride_c < shape->m * shape->n) ||
      shape->dtype >= PRISM_N_DTYPES || a == 0 || b == 0 || c == 0)
    {
      g_autofree char *what = prism_gemm_shape_to_string (shape_in);
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED,
                   "cannot run the GEMM %s (strides %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
                   "): sizes must be positive, strides non-negative, batch items of C must not overlap, "
                   "pointers set", what, shape_in->stride_a, shape_in->stride_b, shape_in->stride_c);
      return FALSE;
    }
  es = prism_dtype_size (shape->dtype);
  align_a = alignment (a, (guint64) shape->stride_a * es);
  align_b = alignment (b, (guint64) shape->stride_b * es);
  align_c = alignment (c, (guint64) shape->stride_c * es);
  p = find_plan (self, shape, align_a, align_b, align_c, workspace_bytes);
  if (p == NULL && (p = make_plan (self, shape, align_a, align_b, align_c, workspace_bytes, error)) == NULL)
    return FALSE;
  LT_TRY ("cublasLtMatmul",
          self->lt.Matmul (self->lt_handle, p->desc, &alpha, (const void *) (guintptr) b, p->layout_a,
                           (const void *) (guintptr) a, p->layout_b, &beta, (const void *) (guintptr) c, p->layout_c,
                           (void *) (guintptr) c, p->layout_c, &p->algo, (void *) (guintptr) workspace,
                           workspace_bytes, stream));
  self->last_status = LT_STATUS_SUCCESS;
  return TRUE;
}
