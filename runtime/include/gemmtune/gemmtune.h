/* gemmtune's C API: tuned FP32 GEMM on device pointers, asynchronous on the caller's stream.
 * The same code as the C++ API (gemmtune.hpp); failures come back as status codes, with a message
 * from gemmtune_last_error().
 *
 *   gemmtune_handle_t h;
 *   if (gemmtune_create(&h, NULL) != GEMMTUNE_STATUS_SUCCESS) fprintf(stderr, "%s\n", gemmtune_last_error());
 *   gemmtune_sgemm(h, GEMMTUNE_OP_N, GEMMTUNE_OP_N, M, N, K, 1.f, A, K, B, N, 0.f, C, N, stream);
 *   gemmtune_destroy(h);
 *
 * Row-major: element (i, j) of a matrix with leading dimension ld is at [i * ld + j]. A
 * column-major caller computes C^T = op(B)^T op(A)^T: pass B (with opB, ldb) as the first operand,
 * A (with opA, lda) as the second, and N, M in place of M, N. */
#ifndef GEMMTUNE_GEMMTUNE_H
#define GEMMTUNE_GEMMTUNE_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* In C++ the enums below have int as their underlying type: any int a C caller passes is then a
 * value of the type, which the library checks (an enum without a fixed type holds only the range
 * of its enumerators, and a compiler may assume a value is in it). */
#ifdef __cplusplus
#define GEMMTUNE_INT_ENUM : int
#else
#define GEMMTUNE_INT_ENUM
#endif

/** Status codes; the same values as gemmtune::Status. */
typedef enum gemmtune_status_t GEMMTUNE_INT_ENUM {
  GEMMTUNE_STATUS_SUCCESS = 0,
  GEMMTUNE_STATUS_INVALID_ARGUMENT = 1, /**< a bad shape, leading dimension, stride, pointer or option */
  GEMMTUNE_STATUS_NO_DEVICE = 2,        /**< no CUDA device or driver */
  GEMMTUNE_STATUS_CUDA_ERROR = 3,       /**< a CUDA runtime call failed */
  GEMMTUNE_STATUS_COMPILE_ERROR = 4,    /**< NVRTC could not compile a kernel */
  GEMMTUNE_STATUS_DATABASE_ERROR = 5,   /**< the tuning database could not be read or written */
  GEMMTUNE_STATUS_NOT_SUPPORTED = 6,    /**< no kernel can run this problem */
  GEMMTUNE_STATUS_INTERNAL = 7          /**< a bug in gemmtune */
} gemmtune_status_t;

/** op(X): the matrix as stored (N) or transposed (T). */
typedef enum gemmtune_op_t GEMMTUNE_INT_ENUM { GEMMTUNE_OP_N = 0, GEMMTUNE_OP_T = 1 } gemmtune_op_t;

/** How a handle uses its tuning database (see gemmtune::DbAccess). */
typedef enum gemmtune_db_access_t GEMMTUNE_INT_ENUM {
  GEMMTUNE_DB_AUTOMATIC = 0,  /**< read-write if the file exists and is writable, read-only if not writable, none if missing */
  GEMMTUNE_DB_READ_ONLY = 1,  /**< never write */
  GEMMTUNE_DB_READ_WRITE = 2, /**< cache compiled kernels; create the file when missing */
  GEMMTUNE_DB_NONE = 3        /**< built-in defaults only */
} gemmtune_db_access_t;

/** Options of gemmtune_create(). Start from gemmtune_options_init(). */
typedef struct gemmtune_options {
  const char* db_path;            /**< NULL or "": $GEMMTUNE_DB, else ~/.cache/gemmtune/tuning.db */
  int device;                     /**< CUDA device ordinal */
  gemmtune_db_access_t db_access; /**< default GEMMTUNE_DB_AUTOMATIC */
  int verbose;                    /**< nonzero: print each new choice on stderr */
} gemmtune_options;

/** A dispatcher for one device. Thread-safe: any number of threads may call it at once. */
typedef struct gemmtune_handle* gemmtune_handle_t;

/** Fills `options` with the defaults (default database, device 0, automatic access, quiet). */
void gemmtune_options_init(gemmtune_options* options);

/** Creates a handle in `*handle` from `options` (NULL: the defaults). Returns
 * GEMMTUNE_STATUS_NO_DEVICE without a GPU. A missing or unreadable database is not an error: the
 * handle uses built-in default kernels and one warning is printed. */
gemmtune_status_t gemmtune_create(gemmtune_handle_t* handle, const gemmtune_options* options);

/** Destroys a handle (NULL is ignored). Work already enqueued still completes. */
gemmtune_status_t gemmtune_destroy(gemmtune_handle_t handle);

/** C = alpha op(A) op(B) + beta C, row-major, enqueued on `stream`. op(A) is M x K, op(B) is
 * K x N, C is M x N. M, N or K of 0 is a no-op that succeeds (C is left unchanged). A misaligned
 * pointer selects a narrower-vector kernel; it is not an error. When beta is 0, C is not read.
 * Arguments are checked before the handle, so their errors are reported even for a NULL handle. */
gemmtune_status_t gemmtune_sgemm(gemmtune_handle_t handle, gemmtune_op_t op_a, gemmtune_op_t op_b, int m, int n,
                                 int k, float alpha, const float* a, int64_t lda, const float* b, int64_t ldb,
                                 float beta, float* c, int64_t ldc, cudaStream_t stream);

/** `batch` GEMMs as gemmtune_sgemm(); matrix i of A starts at a + i * stride_a (likewise B, C).
 * A stride of 0 for A or B reuses one matrix; the matrices of C must not overlap. */
gemmtune_status_t gemmtune_sgemm_strided_batched(gemmtune_handle_t handle, gemmtune_op_t op_a, gemmtune_op_t op_b,
                                                 int m, int n, int k, float alpha, const float* a, int64_t lda,
                                                 int64_t stride_a, const float* b, int64_t ldb, int64_t stride_b,
                                                 float beta, float* c, int64_t ldc, int64_t stride_c, int batch,
                                                 cudaStream_t stream);

/** Writes (NUL-terminated, truncated to `size` bytes) why the handle would run a given kernel for
 * the packed problem (op_a, op_b, M, N, K, batch) with alignment class `alignment` (4, 2 or 1
 * floats; 0: what the shape allows). `*length` (when not NULL) receives the full text's length. */
gemmtune_status_t gemmtune_explain(gemmtune_handle_t handle, gemmtune_op_t op_a, gemmtune_op_t op_b, int m, int n,
                                   int k, int batch, int alignment, char* buffer, size_t size, size_t* length);

/** The name of a status code ("invalid argument", ...); never NULL. */
const char* gemmtune_status_string(gemmtune_status_t status);

/** The message of the last call on this thread that failed ("" if none did). Valid until the
 * next failing call on this thread. */
const char* gemmtune_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* GEMMTUNE_GEMMTUNE_H */
