/* fake-cublaslt.c — a stand-in for libcublasLt.so that multiplies on the CPU
 *
 * Test-only.  It exports the cuBLASLt functions prism-cublaslt.c uses and
 * implements them as the library documents them, column-major: descriptors
 * hold what was set (and reject attributes of the wrong size, as the real
 * library does), the heuristic checks that the layouts fit together before
 * it returns an algorithm, and cublasLtMatmul computes
 * D = alpha · op(A) · op(B) + beta · C for every batch item.  Pointers are
 * host memory (so is the fake driver's device memory).  f32 is computed
 * exactly (double sums, rounded once); f16 through _Float16 and bf16 by bit
 * shifting, with f32 accumulation.
 *
 * $PRISM_FAKE_CUBLASLT_CORRUPT=1 adds 1 to every 7th result (a wrong GEMM);
 * $PRISM_FAKE_CUBLASLT_NO_PEDANTIC=1 has no algorithm for
 * CUBLAS_COMPUTE_32F_PEDANTIC (as a library version might not);
 * fake_cublaslt_heuristic_calls() counts the heuristic queries.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__ ((visibility ("default")))
#define DECL(ret, name, args) EXPORT ret name args; ret name args

enum
{
  SUCCESS = 0,
  NOT_INITIALIZED = 1,
  INVALID_VALUE = 7,
  NOT_SUPPORTED = 15,

  R_32F = 0,
  R_16F = 2,
  R_16BF = 14,

  COMPUTE_32F = 68,
  COMPUTE_32F_PEDANTIC = 69,

  ALGO_MAGIC = 0x5052534d,   /* "PRSM" */
};

typedef struct { int magic; } Handle;
typedef struct { int compute, scale, transa, transb; } Desc;
typedef struct { int type; uint64_t rows, cols; int64_t ld; int32_t batch; int64_t stride; } Layout;
typedef struct { uint64_t max_workspace; uint32_t align[4]; } Preference;
typedef struct { uint64_t data[8]; } Algo;
typedef struct
{
  Algo algo;
  size_t workspace_size;
  int state;
  float waves_count;
  int reserved[4];
} HeuristicResult;

static int heuristic_calls;

DECL (int, fake_cublaslt_heuristic_calls, (void)) { return heuristic_calls; }

DECL (int, cublasLtCreate, (Handle **h))
{
  *h = calloc (1, sizeof **h);
  (*h)->magic = ALGO_MAGIC;
  return SUCCESS;
}

DECL (int, cublasLtDestroy, (Handle *h)) { free (h); return SUCCESS; }
DECL (size_t, cublasLtGetVersion, (void)) { return 130100; }

DECL (const char *, cublasLtGetStatusName, (int s))
{
  switch (s)
    {
    case SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    default: return "CUBLAS_STATUS_UNKNOWN";
    }
}

DECL (int, cublasLtMatmulDescCreate, (Desc **d, int compute, int scale))
{
  if (compute != COMPUTE_32F && compute != COMPUTE_32F_PEDANTIC)
    return NOT_SUPPORTED;
  *d = calloc (1, sizeof **d);
  (*d)->compute = compute;
  (*d)->scale = scale;
  return SUCCESS;
}

DECL (int, cublasLtMatmulDescDestroy, (Desc *d)) { free (d); return SUCCESS; }

DECL (int, cublasLtMatmulDescSetAttribute, (Desc *d, int attr, const void *buf, size_t size))
{
  if (buf == NULL || (attr != 3 && attr != 4) || size != sizeof (int32_t))
    return INVALID_VALUE;
  memcpy (attr == 3 ? &d->transa : &d->transb, buf, size);
  return SUCCESS;
}

DECL (int, cublasLtMatrixLayoutCreate, (Layout **l, int type, uint64_t rows, uint64_t cols, int64_t ld))
{
  if (type != R_32F && type != R_16F && type != R_16BF)
    return NOT_SUPPORTED;
  if (ld < (int64_t) rows)
    return INVALID_VALUE;
  *l = calloc (1, sizeof **l);
  (*l)->type = type;
  (*l)->rows = rows;
  (*l)->cols = cols;
  (*l)->ld = ld;
  (*l)->batch = 1;
  return SUCCESS;
}

DECL (int, cublasLtMatrixLayoutDestroy, (Layout *l)) { free (l); return SUCCESS; }

DECL (int, cublasLtMatrixLayoutSetAttribute, (Layout *l, int attr, const void *buf, size_t size))
{
  if (buf == NULL)
    return INVALID_VALUE;
  if (attr == 5 && size == sizeof (int32_t))
    memcpy (&l->batch, buf, size);
  else if (attr == 6 && size == sizeof (int64_t))
    memcpy (&l->stride, buf, size);
  else
    return INVALID_VALUE;
  return SUCCESS;
}

DECL (int, cublasLtMatmulPreferenceCreate, (Preference **p)) { *p = calloc (1, sizeof **p); return SUCCESS; }
DECL (int, cublasLtMatmulPreferenceDestroy, (Preference *p)) { free (p); return SUCCESS; }

DECL (int, cublasLtMatmulPreferenceSetAttribute, (Preference *p, int attr, const void *buf, size_t size))
{
  if (buf == NULL)
    return INVALID_VALUE;
  if (attr == 1 && size == sizeof (uint64_t))
    memcpy (&p->max_workspace, buf, size);
  else if (attr >= 5 && attr <= 8 && size == sizeof (uint32_t))
    memcpy (&p->align[attr - 5], buf, size);
  else
    return INVALID_VALUE;
  return SUCCESS;
}

/* The operand's rows and columns after its op. */
static void
op_dims (const Layout *l, int trans, uint64_t *rows, uint64_t *cols)
{
  *rows = trans ? l->cols : l->rows;
  *cols = trans ? l->rows : l->cols;
}

static int
check (const Desc *d, const Layout *a, const Layout *b, const Layout *c, const Layout *dd)
{
  uint64_t am, ak, bk, bn;

  op_dims (a, d->transa, &am, &ak);
  op_dims (b, d->transb, &bk, &bn);
  if (ak != bk || c->rows != am || c->cols != bn || memcmp (c, dd, sizeof *c) != 0)
    return INVALID_VALUE;
  if (a->type != b->type || a->type != c->type)
    return NOT_SUPPORTED;
  if (d->scale != R_32F || (a->type != R_32F && d->compute != COMPUTE_32F))
    return NOT_SUPPORTED;
  if (a->batch != c->batch || b->batch != c->batch || a->batch < 1)
    return INVALID_VALUE;
  if (c->batch > 1 && c->stride < (int64_t) (c->ld * c->cols))
    return INVALID_VALUE;
  return SUCCESS;
}

DECL (int, cublasLtMatmulAlgoGetHeuristic, (Handle *h, Desc *d, Layout *a, Layout *b, Layout *c, Layout *dd,
                                            Preference *p, int requested, HeuristicResult *results, int *returned))
{
  int r;

  heuristic_calls++;
  if (h == NULL || h->magic != ALGO_MAGIC || requested < 1 || p == NULL)
    return INVALID_VALUE;
  r = check (d, a, b, c, dd);
  if (r != SUCCESS)
    return r;
  if (d->compute == COMPUTE_32F_PEDANTIC && getenv ("PRISM_FAKE_CUBLASLT_NO_PEDANTIC") != NULL)
    return NOT_SUPPORTED;
  memset (results, 0, sizeof *results);
  results[0].algo.data[0] = ALGO_MAGIC;
  results[0].algo.data[1] = (uint64_t) d->compute;
  results[0].waves_count = 1.0f;
  *returned = 1;
  return SUCCESS;
}

static size_t
elem_size (int type)
{
  return type == R_32F ? 4 : 2;
}

static float
load (const void *base, int type, size_t i)
{
  if (type == R_32F)
    {
      float f;
      memcpy (&f, (const char *) base + i * 4, 4);
      return f;
    }
  if (type == R_16F)
    {
      _Float16 h;
      memcpy (&h, (const char *) base + i * 2, 2);
      return (float) h;
    }
  {
    uint16_t b;
    uint32_t x;
    float f;

    memcpy (&b, (const char *) base + i * 2, 2);
    x = (uint32_t) b << 16;
    memcpy (&f, &x, 4);
    return f;
  }
}

static void
store (void *base, int type, size_t i, double v)
{
  float f = (float) v;

  if (type == R_32F)
    memcpy ((char *) base + i * 4, &f, 4);
  else if (type == R_16F)
    {
      _Float16 h = (_Float16) f;
      memcpy ((char *) base + i * 2, &h, 2);
    }
  else
    {
      uint32_t x;
      uint16_t b;

      memcpy (&x, &f, 4);
      b = (uint16_t) ((x + 0x7fff + ((x >> 16) & 1)) >> 16);   /* round to nearest even */
      memcpy ((char *) base + i * 2, &b, 2);
    }
}

/* Element (r, c) of the column-major operand @l at @base after its op. */
static float
element (const void *base, const Layout *l, int trans, uint64_t r, uint64_t c)
{
  return trans ? load (base, l->type, (size_t) (c + r * (uint64_t) l->ld))
               : load (base, l->type, (size_t) (r + c * (uint64_t) l->ld));
}

DECL (int, cublasLtMatmul, (Handle *h, Desc *d, const float *alpha, const void *A, Layout *a, const void *B,
                            Layout *b, const float *beta, const void *C, Layout *c, void *D, Layout *dd,
                            const Algo *algo, void *workspace, size_t workspace_bytes, void *stream))
{
  int corrupt = getenv ("PRISM_FAKE_CUBLASLT_CORRUPT") != NULL;
  uint64_t m, k, n, tmp;
  int r;

  (void) workspace; (void) workspace_bytes; (void) stream;
  if (h == NULL || h->magic != ALGO_MAGIC)
    return NOT_INITIALIZED;
  if (algo == NULL || algo->data[0] != ALGO_MAGIC || alpha == NULL || beta == NULL || A == NULL || B == NULL ||
      D == NULL)
    return INVALID_VALUE;
  r = check (d, a, b, c, dd);
  if (r != SUCCESS)
    return r;
  op_dims (a, d->transa, &m, &k);
  op_dims (b, d->transb, &tmp, &n);
  for (int32_t item = 0; item < c->batch; item++)
    {
      const char *pa = (const char *) A + (size_t) (item * a->stride) * elem_size (a->type);
      const char *pb = (const char *) B + (size_t) (item * b->stride) * elem_size (b->type);
      const char *pc = C != NULL ? (const char *) C + (size_t) (item * c->stride) * elem_size (c->type) : NULL;
      char *pd = (char *) D + (size_t) (item * dd->stride) * elem_size (dd->type);

      for (uint64_t col = 0; col < n; col++)
        for (uint64_t row = 0; row < m; row++)
          {
            double sum = 0;
            size_t at = (size_t) (row + col * (uint64_t) dd->ld);

            for (uint64_t i = 0; i < k; i++)
              {
                double x = element (pa, a, d->transa, row, i), y = element (pb, b, d->transb, i, col);
                /* f16/bf16 accumulate in f32; f32 is exact in double. */
                sum = a->type == R_32F ? sum + x * y : (double) (float) (sum + (double) (float) (x * y));
              }
            sum *= *alpha;
            /* beta == 0: C is not read, as the library documents. */
            if (*beta != 0.0f && pc != NULL)
              sum += (double) *beta * load (pc, c->type, at);
            if (corrupt && (at % 7) == 0)
              sum += 1.0;
            store (pd, dd->type, at, sum);
          }
    }
  return SUCCESS;
}
