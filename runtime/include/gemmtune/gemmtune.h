/* gemmtune's C API: tuned FP32 GEMM on device pointers, asynchronous on the caller's stream.
 * The same code as the C++ API (gemmtune.hpp); failures come back as status codes, with a message
 * from gemmtune_last_error().
 *
 *   gemmtune_handle_t h;
 *   if (gemmtune_create(&h, NULL) != GEMMTUNE_STATUS_SUCCESS) fprintf(stderr, "%s\n", gemmtune_last_error());
 *   gemmtune_sgemm(h, GEMMTUNE_ROW_MAJOR, GEMMTUNE_OP_N, GEMMTUNE_OP_N, M, N, K, 1.f, A, K, B, N, 0.f, C, N, stream);
 *   gemmtune_destroy(h);
 *
 * Every GEMM call takes the layout of the caller's matrices first, as CBLAS does (the same
 * values as CblasRowMajor and CblasColMajor). Row-major: element (i, j) of a matrix with leading
 * dimension ld is at [i * ld + j]; column-major (BLAS, cuBLAS): at [i + j * ld].
 * gemmtune_cublasSgemm(), gemmtune_cublasSgemmStridedBatched() and gemmtune_cublasSgemmBatched()
 * take cuBLAS's arguments in cuBLAS's order, so a cuBLAS call site ports by renaming.
 *
 * BLAS semantics: M, N or batch 0 does nothing; K = 0 or alpha = 0 sets C = beta C without
 * reading A or B (they may then be NULL); beta = 0 does not read C (it may hold NaN). In device
 * pointer mode (gemmtune_set_pointer_mode) the host cannot see alpha: see there. */
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
  GEMMTUNE_STATUS_INVALID_ARGUMENT =
      1,                          /**< a bad shape, leading dimension, stride, pointer or option */
  GEMMTUNE_STATUS_NO_DEVICE = 2,  /**< no CUDA device or driver */
  GEMMTUNE_STATUS_CUDA_ERROR = 3, /**< a CUDA runtime call failed */
  GEMMTUNE_STATUS_COMPILE_ERROR = 4,  /**< NVRTC could not compile a kernel */
  GEMMTUNE_STATUS_DATABASE_ERROR = 5, /**< the tuning database could not be read or written */
  GEMMTUNE_STATUS_NOT_SUPPORTED = 6,  /**< no kernel can run this problem */
  GEMMTUNE_STATUS_INTERNAL = 7,       /**< a bug in gemmtune */
  GEMMTUNE_STATUS_NOT_PREPARED = 8 /**< the call would compile or allocate while its stream is being
                                             captured into a CUDA Graph: gemmtune_prepare() it first */
} gemmtune_status_t;

/** op(X): the matrix as stored (N) or transposed (T); the values of cublasOperation_t.
 * GEMMTUNE_OP_C (conjugate transpose) is GEMMTUNE_OP_T for real matrices. */
typedef enum gemmtune_op_t GEMMTUNE_INT_ENUM {
  GEMMTUNE_OP_N = 0,
  GEMMTUNE_OP_T = 1,
  GEMMTUNE_OP_C = 2
} gemmtune_op_t;

/** How the caller's matrices are stored; the values of CBLAS's CBLAS_LAYOUT. */
typedef enum gemmtune_layout_t GEMMTUNE_INT_ENUM {
  GEMMTUNE_ROW_MAJOR = 101, /**< element (i, j) at [i * ld + j] */
  GEMMTUNE_COL_MAJOR = 102  /**< element (i, j) at [i + j * ld] (BLAS, cuBLAS) */
} gemmtune_layout_t;

/** How much a log message matters (see gemmtune_set_log_callback). */
typedef enum gemmtune_log_level_t GEMMTUNE_INT_ENUM {
  GEMMTUNE_LOG_INFO = 0,    /**< the choices made (verbose handles only) */
  GEMMTUNE_LOG_WARNING = 1, /**< something degraded but the call went on */
  GEMMTUNE_LOG_ERROR = 2    /**< something failed where no status can report it */
} gemmtune_log_level_t;

/** Where the cuBLAS-shaped calls' alpha and beta pointers point; the values of
 * cublasPointerMode_t (see gemmtune_set_pointer_mode). */
typedef enum gemmtune_pointer_mode_t GEMMTUNE_INT_ENUM {
  GEMMTUNE_POINTER_MODE_HOST = 0,  /**< host memory, read during the call (the default) */
  GEMMTUNE_POINTER_MODE_DEVICE = 1 /**< device memory, read by the kernel when it runs */
} gemmtune_pointer_mode_t;

/** How a handle uses its tuning database (see gemmtune::DbAccess). */
typedef enum gemmtune_db_access_t GEMMTUNE_INT_ENUM {
  GEMMTUNE_DB_AUTOMATIC =
      0, /**< read-write if the file exists and is writable, read-only if not writable, none if missing */
  GEMMTUNE_DB_READ_ONLY = 1,  /**< never write */
  GEMMTUNE_DB_READ_WRITE = 2, /**< cache compiled kernels; create the file when missing */
  GEMMTUNE_DB_NONE = 3        /**< no database of the user's: the shipped one (unless
                                 no_shipped), else built-in defaults */
} gemmtune_db_access_t;

/** Which kernels a handle may run (docs/precision.md). */
typedef enum gemmtune_precision {
  GEMMTUNE_PRECISION_IEEE = 0, /**< FP32 FMA kernels only: the default */
  GEMMTUNE_PRECISION_FP32 =
      1, /**< also 3xTF32 tensor-core kernels measured as accurate as FP32 FMA */
  GEMMTUNE_PRECISION_TF32 = 2 /**< also 1xTF32 tensor-core kernels: about 1e-3 relative error */
} gemmtune_precision_t;

/** Options of gemmtune_create(). Start from gemmtune_options_init(). */
typedef struct gemmtune_options {
  const char*
      db_path; /**< NULL or "": $GEMMTUNE_DB, else ${XDG_CACHE_HOME:-~/.cache}/gemmtune/tuning.db */
  int device;  /**< CUDA device ordinal */
  gemmtune_db_access_t db_access; /**< default GEMMTUNE_DB_AUTOMATIC */
  int verbose;                    /**< nonzero: log each new choice (GEMMTUNE_LOG_INFO) */
  int deterministic; /**< nonzero: only configs that give the same bits on every run (no
                                       split-K, whose atomic sums depend on the order blocks finish);
                                       default 0: the measured fastest config */
  gemmtune_precision_t precision; /**< default GEMMTUNE_PRECISION_IEEE */
  /** Workspace memory (split-K counters, repacked operands) from the caller's allocator, as
   * cublasSetWorkspace does for cuBLAS: both NULL (the default) for cudaMalloc/cudaFree, else both
   * set. workspace_alloc returns `bytes` of memory of the handle's device (current when called),
   * 256-byte aligned, usable in the order of `stream`, or NULL when out of memory; workspace_free
   * gets it back, with its size and stream, once no launch of the handle can use it. Never called
   * during CUDA Graph capture, nor from two threads at once. */
  void* (*workspace_alloc)(size_t bytes, cudaStream_t stream, void* user_data);
  void (*workspace_free)(void* ptr, size_t bytes, cudaStream_t stream, void* user_data);
  void* workspace_user_data; /**< passed to both */
  /** nonzero: never read the tuning databases shipped with gemmtune (docs/runtime.md, "How a
   * kernel is chosen"); default 0: behind the user's database, the shipped one of the GPU model
   * (or of its architecture) answers problems the user's has not tuned. The environment variable
   * GEMMTUNE_NO_SHIPPED=1 switches them off for every handle. */
  int no_shipped;
} gemmtune_options;

/** A dispatcher for one device. Thread-safe: any number of threads may call it at once. */
typedef struct gemmtune_handle* gemmtune_handle_t;

/** Fills `options` with the defaults (default database, device 0, automatic access, quiet, not
 * deterministic, IEEE precision, shipped databases read). */
void gemmtune_options_init(gemmtune_options* options);

/** Creates a handle in `*handle` from `options` (NULL: the defaults). Returns
 * GEMMTUNE_STATUS_NO_DEVICE without a GPU. A missing or unreadable database is not an error: the
 * handle uses built-in default kernels and one warning is printed. */
gemmtune_status_t gemmtune_create(gemmtune_handle_t* handle, const gemmtune_options* options);

/** Destroys a handle (NULL is ignored). It first waits for the device to finish all enqueued
 * work (as cublasDestroy does), so work already enqueued completes; CUDA Graphs that captured the
 * handle's calls must not be launched afterwards (their kernels are unloaded). */
gemmtune_status_t gemmtune_destroy(gemmtune_handle_t handle);

/** C = alpha op(A) op(B) + beta C, enqueued on `stream`, the matrices stored as `layout` says.
 * op(A) is M x K, op(B) is K x N, C is M x N. BLAS semantics (see above). A misaligned pointer
 * selects a narrower-vector kernel; it is not an error. Arguments are checked before the handle,
 * so their errors are reported even for a NULL handle. */
gemmtune_status_t gemmtune_sgemm(gemmtune_handle_t handle, gemmtune_layout_t layout,
                                 gemmtune_op_t op_a, gemmtune_op_t op_b, int m, int n, int k,
                                 float alpha, const float* a, int64_t lda, const float* b,
                                 int64_t ldb, float beta, float* c, int64_t ldc,
                                 cudaStream_t stream);

/** `batch` GEMMs as gemmtune_sgemm(); matrix i of A starts at a + i * stride_a (likewise B, C).
 * A stride of 0 for A or B reuses one matrix; the matrices of C must not overlap. */
gemmtune_status_t gemmtune_sgemm_strided_batched(gemmtune_handle_t handle, gemmtune_layout_t layout,
                                                 gemmtune_op_t op_a, gemmtune_op_t op_b, int m,
                                                 int n, int k, float alpha, const float* a,
                                                 int64_t lda, int64_t stride_a, const float* b,
                                                 int64_t ldb, int64_t stride_b, float beta,
                                                 float* c, int64_t ldc, int64_t stride_c, int batch,
                                                 cudaStream_t stream);

/** `batch` GEMMs of one shape on matrices anywhere: a[i], b[i], c[i] are GEMM i's device
 * pointers, in HOST arrays of `batch` entries (gemmtune_sgemm_batched_device takes device arrays).
 * Pointers a constant distance apart run as one strided-batched launch, others one launch per
 * GEMM. */
gemmtune_status_t gemmtune_sgemm_batched(gemmtune_handle_t handle, gemmtune_layout_t layout,
                                         gemmtune_op_t op_a, gemmtune_op_t op_b, int m, int n,
                                         int k, float alpha, const float* const a[], int64_t lda,
                                         const float* const b[], int64_t ldb, float beta,
                                         float* const c[], int64_t ldc, int batch,
                                         cudaStream_t stream);

/** gemmtune_sgemm_batched() with a, b and c in DEVICE memory, as cublasSgemmBatched takes them:
 * arrays of `batch` device pointers, read by the kernel (one launch for any pointers; a CUDA
 * Graph replays whatever the arrays hold when it runs). The host cannot inspect those pointers,
 * so EVERY POINTER IN THEM MUST BE 16-BYTE ALIGNED (cudaMalloc's are; an offset into an
 * allocation must be a multiple of 4 floats; a misaligned one is a CUDA error, not a slower
 * kernel), and the matrices of C must not overlap (not checked either). a and b may be NULL when
 * K or alpha is 0. Arguments are checked before the handle. */
gemmtune_status_t gemmtune_sgemm_batched_device(gemmtune_handle_t handle, gemmtune_layout_t layout,
                                                gemmtune_op_t op_a, gemmtune_op_t op_b, int m,
                                                int n, int k, float alpha, const float* const a[],
                                                int64_t lda, const float* const b[], int64_t ldb,
                                                float beta, float* const c[], int64_t ldc,
                                                int batch, cudaStream_t stream);

/** Sets the stream of the handle's cuBLAS-shaped calls (as cublasSetStream does; NULL: the legacy
 * default stream). The other calls take their stream as an argument. */
gemmtune_status_t gemmtune_set_stream(gemmtune_handle_t handle, cudaStream_t stream);

/** The stream gemmtune_set_stream() set. */
gemmtune_status_t gemmtune_get_stream(gemmtune_handle_t handle, cudaStream_t* stream);

/** Sets where the alpha and beta pointers of the handle's cuBLAS-shaped calls point, as
 * cublasSetPointerMode does: GEMMTUNE_POINTER_MODE_HOST (the default: read during the call) or
 * GEMMTUNE_POINTER_MODE_DEVICE (device memory, read by the kernel when it runs, so that a CUDA
 * Graph replay sees the values of the moment). The other calls take alpha and beta by value.
 * One difference from host mode: the host cannot see a device alpha, so with K > 0 the GEMM runs
 * and reads A and B even when alpha is 0 (they must be valid matrices then, not NULL); the result
 * is still exactly beta C (Inf or NaN in A or B does not reach C). A device beta of 0 does not
 * read C, and K = 0 sets C = beta C with the device beta. */
gemmtune_status_t gemmtune_set_pointer_mode(gemmtune_handle_t handle, gemmtune_pointer_mode_t mode);

/** The pointer mode gemmtune_set_pointer_mode() set. */
gemmtune_status_t gemmtune_get_pointer_mode(gemmtune_handle_t handle,
                                            gemmtune_pointer_mode_t* mode);

/** cublasSgemm's arguments in cuBLAS's order, column-major, on the handle's stream: a call site
 * ports by renaming cublasSgemm, the handle and CUBLAS_OP_* (alpha and beta point to host or
 * device memory as the handle's pointer mode says, as in cuBLAS). */
gemmtune_status_t gemmtune_cublasSgemm(gemmtune_handle_t handle, gemmtune_op_t transa,
                                       gemmtune_op_t transb, int m, int n, int k,
                                       const float* alpha, const float* A, int lda, const float* B,
                                       int ldb, const float* beta, float* C, int ldc);

/** cublasSgemmStridedBatched's arguments in cuBLAS's order, column-major, on the handle's stream. */
gemmtune_status_t gemmtune_cublasSgemmStridedBatched(gemmtune_handle_t handle, gemmtune_op_t transa,
                                                     gemmtune_op_t transb, int m, int n, int k,
                                                     const float* alpha, const float* A, int lda,
                                                     long long int strideA, const float* B, int ldb,
                                                     long long int strideB, const float* beta,
                                                     float* C, int ldc, long long int strideC,
                                                     int batchCount);

/** cublasSgemmBatched's arguments in cuBLAS's order, column-major, on the handle's stream, with
 * its pointer arrays in device memory: gemmtune_sgemm_batched_device(), whose rules apply (every
 * pointer in the arrays 16-byte aligned). */
gemmtune_status_t gemmtune_cublasSgemmBatched(gemmtune_handle_t handle, gemmtune_op_t transa,
                                              gemmtune_op_t transb, int m, int n, int k,
                                              const float* alpha, const float* const Aarray[],
                                              int lda, const float* const Barray[], int ldb,
                                              const float* beta, float* const Carray[], int ldc,
                                              int batchCount);

/** One GEMM call described without its data, for gemmtune_prepare() and
 * gemmtune_explain_problem(): shape, leading dimensions, scalars and call kind. Each operand's
 * alignment class (the widest access its data allows: 4, 2 or 1 floats) follows from its
 * leading dimension and `alignment`, the alignment of the call's pointers and batch strides, as
 * for the call itself. A zero-initialised field means: packed matrices, aligned pointers, host
 * scalars, one matrix per operand. */
typedef struct gemmtune_problem {
  gemmtune_layout_t layout;
  gemmtune_op_t op_a, op_b;
  int m, n, k, batch; /**< batch 0 is taken as 1 */
  float alpha, beta;  /**< their values; not used with device_scalars */
  int alignment;      /**< the pointers' alignment in floats (4, 2 or 1; 0: 4, 16 bytes) */
  int pointer_arrays; /**< nonzero: the device-array call (gemmtune_sgemm_batched_device,
                           gemmtune_cublasSgemmBatched), whose class may get another kernel */
  int device_scalars; /**< nonzero: alpha and beta in device memory (GEMMTUNE_POINTER_MODE_DEVICE):
                           a call with K > 0 runs the GEMM whatever alpha is */
  int lda, ldb, ldc;  /**< the call's leading dimensions in `layout`; 0: packed. An odd one narrows
                           only its own operand's accesses, so it may get another kernel */
} gemmtune_problem;

/** Makes the calls of `problems` (`count` of them) on `stream` ready to be captured into a CUDA
 * Graph: compiles or loads their kernels and allocates `stream`'s split-K workspace. A call that
 * would still compile or allocate during capture returns GEMMTUNE_STATUS_NOT_PREPARED and enqueues
 * nothing. Call it outside of any capture. */
gemmtune_status_t gemmtune_prepare(gemmtune_handle_t handle, const gemmtune_problem* problems,
                                   size_t count, cudaStream_t stream);

/** Writes (NUL-terminated, truncated to `size` bytes) why the handle would run a given kernel for
 * the packed problem (layout, op_a, op_b, M, N, K, batch) with alignment class `alignment` (4, 2
 * or 1 floats; 0: what the shape allows). `*length` (when not NULL) receives the full text's
 * length. A column-major problem is explained as the row-major one it runs as. */
gemmtune_status_t gemmtune_explain(gemmtune_handle_t handle, gemmtune_layout_t layout,
                                   gemmtune_op_t op_a, gemmtune_op_t op_b, int m, int n, int k,
                                   int batch, int alignment, char* buffer, size_t size,
                                   size_t* length);

/** gemmtune_explain() for the call that `problem` describes, as gemmtune_prepare() reads it:
 * its leading dimensions, pointer arrays (gemmtune_sgemm_batched_device) and device scalars
 * included. */
gemmtune_status_t gemmtune_explain_problem(gemmtune_handle_t handle,
                                           const gemmtune_problem* problem, char* buffer,
                                           size_t size, size_t* length);

/** Receives each log message (one line, no prefix, no newline) with its level and `user_data`.
 * May be called from any thread that calls gemmtune, also at once from several; must not call
 * gemmtune. */
typedef void (*gemmtune_log_callback_t)(gemmtune_log_level_t level, const char* message,
                                        void* user_data);

/** Sends every later log message of this process (all handles) to `callback`; NULL restores the
 * default, one line on stderr per message. Thread-safe. */
void gemmtune_set_log_callback(gemmtune_log_callback_t callback, void* user_data);

/** The name of a status code ("invalid argument", ...); never NULL. */
const char* gemmtune_status_string(gemmtune_status_t status);

/** The message of the last call on this thread that failed ("" if none did). Valid until the
 * next failing call on this thread. */
const char* gemmtune_last_error(void);

#ifdef __cplusplus
}
#endif

/* The version: the headers' in gemmtune/version.h (GEMMTUNE_VERSION_MAJOR, ..._STRING), the
 * library's from the functions below. */
#include "gemmtune/version.h"
#ifdef __cplusplus
extern "C" {
#endif

/** The library's version, "MAJOR.MINOR.PATCH" (GEMMTUNE_VERSION_STRING as it was built); never
 * NULL. It may differ from the headers' when a program loads another libgemmtune.so. */
const char* gemmtune_version(void);

/** The library's version as MAJOR * 10000 + MINOR * 100 + PATCH (GEMMTUNE_VERSION_NUMBER as it
 * was built): compare it with the headers' to refuse a library older than they are. */
int gemmtune_version_number(void);

#ifdef __cplusplus
}
#endif

#endif /* GEMMTUNE_GEMMTUNE_H */
