#pragma once
// gemmtune's C++ API: tuned FP32 GEMM on device pointers, asynchronous on the caller's stream.
//
//   gemmtune::Dispatcher gemm;                      // device 0, database at $GEMMTUNE_DB or ~/.cache/gemmtune/tuning.db
//   gemm.sgemm(gemmtune::Op::N, gemmtune::Op::N, M, N, K, 1.f, A, K, B, N, 0.f, C, N, stream);
//
// Row-major: element (i, j) of a matrix with leading dimension ld is at [i * ld + j]. A
// column-major caller computes C^T = op(B)^T op(A)^T instead: swap A and B (with their ops and
// leading dimensions) and swap M and N. Every failure throws gemmtune::Error (see error.hpp).
#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <string>

#include "gemmtune/choice.hpp"
#include "gemmtune/device.hpp"
#include "gemmtune/error.hpp"
#include "gemmtune/problem.hpp"

namespace gemmtune {

/// How a Dispatcher uses its tuning database.
enum class DbAccess {
  automatic,   ///< read-write when the file exists and is writable (compiled kernels are cached
               ///< in it), read-only when it exists but is not writable, none when it is missing
  read_only,   ///< read tuned configs and cached kernels; never write
  read_write,  ///< also store compiled kernels; creates the file when missing
  none,        ///< no database: built-in defaults, every kernel compiled by NVRTC
};

/// What a Dispatcher is created from.
struct DispatcherOptions {
  std::string db_path;                    ///< tuning database; empty: $GEMMTUNE_DB, else ~/.cache/gemmtune/tuning.db
  int device = 0;                         ///< CUDA device ordinal the dispatcher runs on
  DbAccess db_access = DbAccess::automatic;
  bool verbose = false;                   ///< print each new choice and where its kernel came from (stderr)
};

/// Where a kernel binary came from when a problem was first seen.
enum class KernelOrigin {
  memory,    ///< already loaded by this dispatcher (another shape chose the same config)
  database,  ///< the database's binary cache (hash-checked)
  compiled,  ///< compiled by NVRTC now (and stored when the database is writable)
};

/// "memory", "database" or "compiled".
const char* kernel_origin_name(KernelOrigin origin);

/// Checks the arguments of a (batched) GEMM: throws Error(kInvalidArgument) naming the bad one
/// (negative M, N, K or batch, a leading dimension smaller than its matrix's row, a negative or
/// overlapping batch stride, a null pointer). Returns false when there is nothing to do
/// (M, N, K or batch is 0: C is left unchanged), true otherwise. Misaligned pointers are fine.
bool check_arguments(const Problem& p);

/// The runtime dispatcher of one CUDA device. Created once (it identifies the GPU model and
/// reads what the database knows about it), then called from any number of threads. After the
/// first call for a problem class (layout, M, N, K, batch, alignment) a call takes a read lock
/// on the plan cache and launches: no database access, no allocation. A split-K or repack config
/// also takes the lock of the dispatcher's per-stream workspaces (LaunchWorkspace), allocated on
/// its stream's first such call and grown, after the stream's earlier work, for a larger problem.
/// Destroying a dispatcher waits for the device. Several dispatchers (one per device, or more)
/// may live in one process.
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

  /// C = alpha op(A) op(B) + beta C, row-major, on device pointers, enqueued on `stream`.
  /// op(A) is M x K, op(B) is K x N, C is M x N. When beta is 0, C is not read.
  void sgemm(Op op_a, Op op_b, int m, int n, int k, float alpha, const float* a, long long lda, const float* b,
             long long ldb, float beta, float* c, long long ldc, cudaStream_t stream = nullptr);

  /// `batch` GEMMs: matrix i of A starts at a + i * stride_a (likewise B and C), all enqueued on
  /// `stream`. A stride of 0 for A or B reuses one matrix for every batch.
  void sgemm_strided_batched(Op op_a, Op op_b, int m, int n, int k, float alpha, const float* a, long long lda,
                             long long stride_a, const float* b, long long ldb, long long stride_b, float beta,
                             float* c, long long ldc, long long stride_c, int batch,
                             cudaStream_t stream = nullptr);

  /// Runs a fully described problem (the two calls above build one).
  void run(const Problem& p, cudaStream_t stream = nullptr);

  /// Loads (or compiles) the kernel for `p`'s problem class without launching anything, so that
  /// a later call is hot. Returns where the kernel came from.
  KernelOrigin prepare(const Problem& p);

  /// The kernel this dispatcher chooses for `p` and why (see choice.hpp). Needs no data.
  Choice explain(const Problem& p) const;

  /// The device this dispatcher runs on.
  const DeviceInfo& device() const;
  /// The database path ("" when none is used).
  const std::string& database_path() const;
  /// Whether compiled kernels are stored in the database.
  bool database_writable() const;
  /// Problem classes with a ready kernel.
  std::size_t plan_count() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gemmtune
