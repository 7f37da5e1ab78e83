/* prism-cublaslt.h — cuBLASLt matmuls, loaded at run time
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "prism-cuda-runtime.h"
#include "prism-types.h"

G_BEGIN_DECLS

/**
 * PrismGemmShape:
 * @batch: batch items, at least 1
 * @m: rows of A and C
 * @n: columns of B and C
 * @k: columns of A, rows of B
 * @dtype: the element type of A, B and C (f16, bf16 or f32)
 * @stride_a: elements between two batch items of A; 0 uses the same A for
 *   every item (broadcast)
 * @stride_b: the same for B
 * @stride_c: the same for C (at least m × n when @batch > 1)
 *
 * C[b] = A[b] · B[b] for dense row-major A[m, k], B[k, n], C[m, n].
 */
typedef struct
{
  guint batch;
  gint64 m, n, k;
  PrismDtype dtype;
  gint64 stride_a, stride_b, stride_c;
} PrismGemmShape;

typedef struct _PrismCublasLt PrismCublasLt;

/**
 * prism_cublaslt_new:
 *
 * Returns: (transfer full): nothing loaded yet; free with prism_cublaslt_free()
 *   before the CUDA context it was used in is released
 */
PrismCublasLt *prism_cublaslt_new        (void);
void           prism_cublaslt_free       (PrismCublasLt *self);

/**
 * prism_cublaslt_load:
 *
 * dlopens cuBLASLt ($PRISM_CUBLASLT_LIBRARY, else libcublasLt.so.13, then
 * libcublasLt.so.12, each through the dynamic loader and then in the
 * folders of prism_cuda_library_dirs() with the wheel folders
 * nvidia/cublas/lib, nvidia/cu13/lib and nvidia/cu12/lib), resolves the
 * functions and creates a handle.  Needs a current CUDA context.
 *
 * Returns: %FALSE with %PRISM_ERROR_NO_VENDOR and a message naming the
 *   library and where it looked when it is missing or unusable
 */
gboolean       prism_cublaslt_load       (PrismCublasLt *self,
                                          GError       **error);

/* What was loaded ("libcublasLt.so.13" or a path), or NULL. */
const char    *prism_cublaslt_get_path   (const PrismCublasLt *self);
/* cublasLtGetVersion(): 130100 for 13.1.0. */
gsize          prism_cublaslt_get_version (const PrismCublasLt *self);

/**
 * prism_cublaslt_gemm:
 * @a: device pointer to A (row-major [m, k] per batch item)
 * @b: device pointer to B (row-major [k, n])
 * @c: device pointer to C (row-major [m, n]), written
 * @workspace: device memory cuBLASLt may use, @workspace_bytes long
 * @stream: where the matmul is enqueued (it does not synchronise)
 *
 * C[b] = A[b] · B[b], in f32 arithmetic: f16 and bf16 operands with f32
 * accumulation and scaling; f32 operands with CUBLAS_COMPUTE_32F_PEDANTIC
 * (no TF32), or CUBLAS_COMPUTE_32F, which does not down-convert either,
 * where no pedantic algorithm exists.  Row-major data is handed to the
 * column-major library as C^T = B^T · A^T.  The algorithm is chosen by
 * cublasLtMatmulAlgoGetHeuristic() once per shape, alignment and workspace
 * size and kept with its descriptors, so repeated calls only enqueue.
 *
 * Returns: %FALSE with @error (naming the shape and the cuBLASLt status) on
 *   a bad shape, no algorithm, or a failed call
 */
gboolean       prism_cublaslt_gemm       (PrismCublasLt        *self,
                                          const PrismGemmShape *shape,
                                          PrismCUdeviceptr      a,
                                          PrismCUdeviceptr      b,
                                          PrismCUdeviceptr      c,
                                          PrismCUdeviceptr      workspace,
                                          gsize                 workspace_bytes,
                                          PrismCUstream         stream,
                                          GError              **error);

/* How many times the heuristic was asked (once per distinct shape). */
guint          prism_cublaslt_get_n_heuristic_queries (const PrismCublasLt *self);

/* The cuBLASLt status name of the last failure ("CUBLAS_STATUS_NOT_SUPPORTED"),
 * or NULL; owned by the library. */
const char    *prism_cublaslt_get_last_status_name    (const PrismCublasLt *self);

/* "4 × 8×4096×4096 f16" (transfer full) */
char          *prism_gemm_shape_to_string (const PrismGemmShape *shape);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrismCublasLt, prism_cublaslt_free)

G_END_DECLS
