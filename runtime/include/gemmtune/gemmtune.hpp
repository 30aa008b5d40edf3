#pragma once
// gemmtune's C++ API: tuned FP32 GEMM on device pointers, asynchronous on the caller's stream.
//
//   gemmtune::Dispatcher gemm;                      // device 0, database at $GEMMTUNE_DB or the user cache
//   gemm.sgemm(gemmtune::Layout::row_major, gemmtune::Op::N, gemmtune::Op::N, M, N, K,
//              1.f, A, K, B, N, 0.f, C, N, stream);
//
// Every GEMM call takes the layout of the caller's matrices first (CBLAS's convention):
// Layout::row_major or Layout::col_major (BLAS's and cuBLAS's). BLAS semantics: M, N or batch 0
// does nothing; K = 0 or alpha = 0 sets C = beta C without reading A or B (which may then be
// null). alpha and beta are values, or addresses in device memory (Scalar::on_device: cuBLAS's
// device pointer mode). Every failure throws gemmtune::Error (see error.hpp).
#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "gemmtune/device.hpp"
#include "gemmtune/error.hpp"
#include "gemmtune/explanation.hpp"
#include "gemmtune/log.hpp"
#include "gemmtune/precision.hpp"
#include "gemmtune/problem.hpp"
#include "gemmtune/version.h"
#include "gemmtune/workspace_allocator.hpp"

namespace gemmtune {

/// How a Dispatcher uses its tuning database.
enum class DbAccess {
  automatic,   ///< read-write when the file exists and is writable (compiled kernels are cached
               ///< in it), read-only when it exists but is not writable, none when it is missing
  read_only,   ///< read tuned configs and cached kernels; never write
  read_write,  ///< also store compiled kernels; creates the file when missing
  none,  ///< no database of the user's: the shipped one (use_shipped), else built-in defaults;
         ///< every kernel compiled by NVRTC
};

/// What a Dispatcher is created from.
struct DispatcherOptions {
  std::string db_path;  ///< tuning database; empty: $GEMMTUNE_DB, else
                        ///< ${XDG_CACHE_HOME:-~/.cache}/gemmtune/tuning.db
  int device = 0;       ///< CUDA device ordinal the dispatcher runs on
  DbAccess db_access = DbAccess::automatic;
  bool verbose = false;  ///< log each new choice and where its kernel came from (LogLevel::info)
  /// Only configs whose results are the same bits on every run for the same inputs: no split-K
  /// (its partial sums are added atomically, in whatever order the blocks finish). Off by
  /// default: the dispatcher runs the measured fastest config, which may be a split-K one.
  bool deterministic = false;
  /// Which kernels may compute: ieee (FP32 FMA only, the default: results as before), fp32 (also
  /// 3xTF32 tensor-core kernels measured as accurate as FP32 FMA), tf32 (also 1xTF32: ~1e-3
  /// relative error, fastest). See Precision and docs/precision.md.
  Precision precision = Precision::ieee;
  /// Workspace memory from the caller's allocator (see WorkspaceAllocator); default cudaMalloc.
  WorkspaceAllocator workspace_allocator;
  /// Behind the user's database, read the tuning database shipped with gemmtune for the GPU model
  /// (or for its architecture): it answers the problems the user's has not tuned (explanation.hpp
  /// gives the chain). Opened read-only, never written. False, or GEMMTUNE_NO_SHIPPED=1 in the
  /// environment: the user's database alone, then the built-in default. GEMMTUNE_SHIPPED_DIR
  /// names another folder to look in.
  bool use_shipped = true;
};

/// Where a kernel binary came from when a problem was first seen.
enum class KernelOrigin {
  memory,    ///< already loaded by this dispatcher (another shape chose the same config)
  database,  ///< the database's binary cache (hash-checked)
  compiled,  ///< compiled by NVRTC now (and stored when the database is writable)
};

/// "memory", "database" or "compiled".
const char* kernel_origin_name(KernelOrigin origin);

/// alpha or beta of a GEMM call: a value, or the address of a float in device memory that the
/// kernel reads when it runs (cuBLAS's CUBLAS_POINTER_MODE_DEVICE), so that a CUDA Graph replay
/// sees its value of the moment. A float converts implicitly; an address only through
/// on_device(), so that a host pointer cannot pass for one by accident.
///
/// A device alpha differs from a value in one way: the host cannot see that it is 0, so with
/// K > 0 the GEMM runs and reads A and B (they must be valid matrices); alpha 0 then still gives
/// exactly beta C (Inf or NaN in A or B does not reach C). A device beta of 0 does not read C.
class Scalar {
 public:
  Scalar(float value) : value_(value) {}  // implicit: a call passes 1.f as before
  /// The float at `address` (device memory, or memory the device can read), read by the kernel.
  static Scalar on_device(const float* address) {
    Scalar s(0.f);
    s.address_ = address, s.on_device_ = true;
    return s;
  }
  /// Whether this is a device address (on_device()) rather than a value.
  bool is_on_device() const { return on_device_; }
  /// The value; 0 for a device address.
  float value() const { return value_; }
  /// The device address; null for a value.
  const float* address() const { return address_; }

 private:
  float value_ = 0;
  const float* address_ = nullptr;
  bool on_device_ = false;
};

/// What a GEMM call has to do, by BLAS's rules.
enum class Work {
  none,  ///< M, N or batch is 0; or K = 0 or alpha = 0 with beta = 1 (values): C is left unchanged
  scale_c,  ///< K = 0 or alpha = 0 (a value): C = beta C (beta = 0 stores zeros), A and B are not read
  gemm,     ///< C = alpha op(A) op(B) + beta C (beta = 0: C is not read); always with K > 0 and a
            ///< device alpha, whose value the host cannot see
};

/// "none", "scale_c" or "gemm".
const char* work_name(Work work);

/// What `p` has to do by BLAS's rules, from its sizes and scalars alone (no checks: see below).
Work work_of(const Problem& p);

/// Checks the arguments of a (batched) GEMM whose matrices are stored as `layout` says: throws
/// Error(kInvalidArgument) naming the bad one (negative M, N, K or batch, a leading dimension
/// smaller than its matrix's row (row-major) or column (column-major), a negative batch stride of
/// an operand that is read, overlapping batches of C, a null pointer or pointer array that would
/// be used). Returns what the call has to do. Misaligned pointers are fine, except in pointer
/// arrays (Problem::pointer_arrays), whose entries the host cannot read: they must be 16-byte
/// aligned, and neither that nor overlapping matrices of C can be checked.
Work check_arguments(const Problem& p, Layout layout = Layout::row_major);

/// The runtime dispatcher of one CUDA device. Created once (it identifies the GPU model and
/// reads what the database knows about it), then called from any number of threads. After the
/// first call for a problem class (layout, M, N, K, batch, alignment) a call takes a read lock
/// on the plan cache and launches: no database access, no allocation. A split-K or repack config
/// also takes the lock of the dispatcher's per-stream workspaces (LaunchWorkspace), allocated on
/// its stream's first such call and grown, after the stream's earlier work, for a larger problem.
/// Destroying a dispatcher waits for its device to finish all enqueued work (as cublasDestroy
/// does), then unloads the kernels: keep it alive while CUDA Graphs that captured its calls may
/// still be launched. Several dispatchers (one per device, or more) may live in one process.
class Dispatcher {
 public:
  /// Opens the database (a missing or unreadable one is a one-time warning, not an error: the
  /// built-in defaults are used) and identifies the device. Throws Error(kNoDevice) without a
  /// GPU, Error(kInvalidArgument) for a device ordinal that does not exist.
  explicit Dispatcher(const DispatcherOptions& options = {});
  ~Dispatcher();
  Dispatcher(const Dispatcher&) = delete;
  Dispatcher& operator=(const Dispatcher&) = delete;
  Dispatcher(Dispatcher&&) noexcept;
  Dispatcher& operator=(Dispatcher&&) noexcept;

  /// C = alpha op(A) op(B) + beta C on device pointers, enqueued on `stream`; the matrices are
  /// stored as `layout` says. op(A) is M x K, op(B) is K x N, C is M x N. When beta is 0, C is
  /// not read; when K or alpha is 0, A and B are not read (see Work). alpha and beta are values
  /// or device addresses (Scalar::on_device).
  void sgemm(Layout layout, Op op_a, Op op_b, int m, int n, int k, Scalar alpha, const float* a,
             long long lda, const float* b, long long ldb, Scalar beta, float* c, long long ldc,
             cudaStream_t stream = nullptr);

  /// `batch` GEMMs: matrix i of A starts at a + i * stride_a (likewise B and C), all enqueued on
  /// `stream`. A stride of 0 for A or B reuses one matrix for every batch.
  void sgemm_strided_batched(Layout layout, Op op_a, Op op_b, int m, int n, int k, Scalar alpha,
                             const float* a, long long lda, long long stride_a, const float* b,
                             long long ldb, long long stride_b, Scalar beta, float* c,
                             long long ldc, long long stride_c, int batch,
                             cudaStream_t stream = nullptr);

  /// `batch` GEMMs of one shape on matrices anywhere: a[i], b[i] and c[i] are the device
  /// pointers of GEMM i, given in HOST arrays of `batch` entries (sgemm_batched_device takes them
  /// in device memory). Pointers a constant distance apart run as one strided-batched launch;
  /// others as one launch per GEMM. The matrices of C must not overlap.
  void sgemm_batched(Layout layout, Op op_a, Op op_b, int m, int n, int k, Scalar alpha,
                     const float* const a[], long long lda, const float* const b[], long long ldb,
                     Scalar beta, float* const c[], long long ldc, int batch,
                     cudaStream_t stream = nullptr);

  /// `batch` GEMMs of one shape on matrices anywhere, as cuBLAS's cublasSgemmBatched: a_array,
  /// b_array and c_array are DEVICE arrays of `batch` pointers (matrix i of A is a_array[i]),
  /// read by the kernel, so one launch serves any pointers and a CUDA Graph replay sees the
  /// arrays' current contents. The host cannot inspect those pointers: every one must be 16-byte
  /// aligned (cudaMalloc's are; a misaligned one is a CUDA error), and the kernel's accesses are
  /// as wide as the leading dimensions allow. The matrices of C must not overlap (not checked).
  /// The arrays of A and B may be null when K or alpha (a value) is 0.
  void sgemm_batched_device(Layout layout, Op op_a, Op op_b, int m, int n, int k, Scalar alpha,
                            const float* const* a_array, long long lda, const float* const* b_array,
                            long long ldb, Scalar beta, float* const* c_array, long long ldc,
                            int batch, cudaStream_t stream = nullptr);

  /// Runs a fully described row-major problem (the calls above build one: a column-major
  /// caller's problem becomes as_row_major(Layout::col_major, p)).
  void run(const Problem& p, cudaStream_t stream = nullptr);

  /// Loads (or compiles) the kernel for row-major `p`'s problem class without launching anything,
  /// so that a later call is hot. Returns where the kernel came from. `p` needs no data.
  KernelOrigin prepare(const Problem& p);

  /// Makes every call of `problems` (row-major; shape, layout, batch, alignment class, alpha and
  /// beta, pointer_arrays and whether alpha_ptr or beta_ptr is set matter, the data does not) on
  /// `stream` ready to be captured into a CUDA Graph: loads or compiles their kernels and
  /// allocates `stream`'s split-K workspace for them. A call that would still compile or allocate
  /// while `stream` is being captured throws Error(kNotPrepared) instead, before enqueuing
  /// anything. Call it outside of any capture.
  void prepare(const std::vector<Problem>& problems, cudaStream_t stream);

  /// The kernel this dispatcher chooses for row-major `p` and why (see explanation.hpp): its
  /// config name, the step of the fallback chain that chose it, the tuned figures behind it.
  /// Needs no data (shape_only_problem() makes a problem of a shape). Throws
  /// Error(kInvalidArgument) when M, N, K or batch is below 1.
  Explanation explain(const Problem& p) const;

  /// Whether this dispatcher runs only deterministic configs (DispatcherOptions::deterministic).
  bool deterministic() const;
  /// The precision policy (DispatcherOptions::precision).
  Precision precision() const;

  /// The device this dispatcher runs on.
  const DeviceInfo& device() const;
  /// The database path ("" when none is used).
  const std::string& database_path() const;
  /// The shipped tuning database read behind it ("" when none: switched off, or none fits the
  /// GPU's model or architecture).
  const std::string& shipped_database_path() const;
  /// Whether compiled kernels are stored in the database.
  bool database_writable() const;
  /// Problem classes with a ready kernel.
  std::size_t plan_count() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The library's version, "MAJOR.MINOR.PATCH" (gemmtune_version(); the headers' is
/// GEMMTUNE_VERSION_STRING in gemmtune/version.h).
const char* version();
/// The library's version as MAJOR * 10000 + MINOR * 100 + PATCH (gemmtune_version_number()).
int version_number();

}  // namespace gemmtune
