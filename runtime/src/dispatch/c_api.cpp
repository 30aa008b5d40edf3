// The C API: a thin shell over gemmtune::Dispatcher that turns exceptions into status codes and
// a thread-local message.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "gemmtune/calls.hpp"
#include "gemmtune/gemmtune.h"
#include "gemmtune/gemmtune.hpp"

struct gemmtune_handle {
  gemmtune::Dispatcher dispatcher;
  std::atomic<cudaStream_t> stream{nullptr};  // the cuBLAS-shaped calls' (gemmtune_set_stream)
  std::atomic<bool> device_scalars{false};    // their pointer mode (gemmtune_set_pointer_mode)
};

namespace {

// Fields are only ever added at the end of gemmtune_options (CHANGELOG.md lists each addition).
static_assert(offsetof(gemmtune_options, no_shipped) ==
                  offsetof(gemmtune_options, workspace_user_data) + sizeof(void*),
              "no_shipped follows workspace_user_data: new fields go at the end");
static_assert(GEMMTUNE_STATUS_INTERNAL == int(gemmtune::Status::kInternal),
              "C and C++ status codes differ");
static_assert(GEMMTUNE_STATUS_NO_DEVICE == int(gemmtune::Status::kNoDevice),
              "C and C++ status codes differ");
static_assert(GEMMTUNE_STATUS_DATABASE_ERROR == int(gemmtune::Status::kDatabaseError),
              "C and C++ status codes differ");
static_assert(GEMMTUNE_STATUS_NOT_PREPARED == int(gemmtune::Status::kNotPrepared),
              "C and C++ status codes differ");
static_assert(int(GEMMTUNE_LOG_ERROR) == int(gemmtune::LogLevel::error),
              "C and C++ log levels differ");

thread_local std::string last_error;

gemmtune_status_t fail(gemmtune::Status status, const char* message) {
  try {
    last_error = message;
  } catch (...) {  // no memory for the message: keep the code
  }
  return gemmtune_status_t(int(status));
}

// Runs `fn`, mapping every exception to a status; nothing escapes into C.
template <typename Fn>
gemmtune_status_t guarded(Fn&& fn) noexcept {
  try {
    fn();
    return GEMMTUNE_STATUS_SUCCESS;
  } catch (const std::bad_alloc&) {
    return fail(gemmtune::Status::kInternal, "out of host memory");
  } catch (const std::exception& e) {  // gemmtune::Error, db::DatabaseError, or a bug
    return fail(gemmtune::detail::status_of(e), e.what());
  } catch (...) {
    return fail(gemmtune::Status::kInternal, "unknown exception");
  }
}

// The enums' values are checked as the ints a C caller may have passed (gemmtune.h gives them int
// as their type in C++, so these comparisons hold for any value).
gemmtune::Op to_op(gemmtune_op_t op, const char* name) {
  const int value = static_cast<int>(op);
  if (value != GEMMTUNE_OP_N && value != GEMMTUNE_OP_T && value != GEMMTUNE_OP_C)
    throw gemmtune::Error(gemmtune::Status::kInvalidArgument,
                          std::string(name) + " = " + std::to_string(value) +
                              " is not GEMMTUNE_OP_N (0), GEMMTUNE_OP_T (1) or GEMMTUNE_OP_C (2)");
  return value == GEMMTUNE_OP_N ? gemmtune::Op::N
                                : gemmtune::Op::T;  // C: the transpose of a real matrix
}

gemmtune::Layout to_layout(gemmtune_layout_t layout) {
  const int value = static_cast<int>(layout);
  if (value != GEMMTUNE_ROW_MAJOR && value != GEMMTUNE_COL_MAJOR)
    throw gemmtune::Error(gemmtune::Status::kInvalidArgument,
                          "layout = " + std::to_string(value) +
                              " is not GEMMTUNE_ROW_MAJOR (101) or GEMMTUNE_COL_MAJOR (102)");
  return value == GEMMTUNE_ROW_MAJOR ? gemmtune::Layout::row_major : gemmtune::Layout::col_major;
}

// cuBLAS passes alpha and beta by pointer, to host or device memory as the handle's pointer
// mode says (host for a NULL handle, whose call fails at the handle after the arguments' checks).
gemmtune::Scalar scalar(gemmtune_handle_t handle, const float* value, const char* name) {
  if (!value)
    throw gemmtune::Error(gemmtune::Status::kInvalidArgument,
                          std::string(name) + " is a null pointer");
  if (handle && handle->device_scalars.load()) return gemmtune::Scalar::on_device(value);
  return *value;
}

// The handle's stream for the cuBLAS-shaped calls.
cudaStream_t stream_of(gemmtune_handle_t handle) {
  return handle ? handle->stream.load() : nullptr;
}

gemmtune::DbAccess to_db_access(gemmtune_db_access_t access) {
  switch (static_cast<int>(access)) {
    case GEMMTUNE_DB_AUTOMATIC: return gemmtune::DbAccess::automatic;
    case GEMMTUNE_DB_READ_ONLY: return gemmtune::DbAccess::read_only;
    case GEMMTUNE_DB_READ_WRITE: return gemmtune::DbAccess::read_write;
    case GEMMTUNE_DB_NONE: return gemmtune::DbAccess::none;
  }
  throw gemmtune::Error(
      gemmtune::Status::kInvalidArgument,
      "db_access = " + std::to_string(static_cast<int>(access)) +
          " is not a gemmtune_db_access_t: use GEMMTUNE_DB_AUTOMATIC, _READ_ONLY, _READ_WRITE "
          "or _NONE (0 to 3)");
}

gemmtune::Dispatcher& dispatcher_of(gemmtune_handle_t handle) {
  if (!handle)
    throw gemmtune::Error(gemmtune::Status::kInvalidArgument,
                          "handle is NULL (create one with gemmtune_create)");
  return handle->dispatcher;
}

// Checks `p`, a problem in `layout`, before the handle (so that argument errors come first), then
// runs it.
void run_checked(gemmtune_handle_t handle, gemmtune::Layout layout, const gemmtune::Problem& p,
                 cudaStream_t stream) {
  const gemmtune::Work work = gemmtune::check_arguments(p, layout);
  gemmtune::Dispatcher& d = dispatcher_of(handle);
  if (work != gemmtune::Work::none) d.run(gemmtune::as_row_major(layout, p), stream);
}

}  // namespace

namespace gemmtune::detail {

Problem described_problem(const gemmtune_problem& q, const std::string& what) {
  auto invalid = [&](const std::string& message) {
    throw Error(Status::kInvalidArgument, what + message);
  };
  if (q.m < 0 || q.n < 0 || q.k < 0 || q.batch < 0)
    invalid("M, N, K and batch must not be negative");
  if (q.alignment != 0 && q.alignment != 1 && q.alignment != 2 && q.alignment != 4)
    invalid("alignment must be 0, 1, 2 or 4");
  if (q.lda < 0 || q.ldb < 0 || q.ldc < 0)
    invalid("lda, ldb and ldc must not be negative (0: packed)");
  const Layout layout = to_layout(q.layout);
  const Op op_a = to_op(q.op_a, "op_a"), op_b = to_op(q.op_b, "op_b");
  const bool col = layout == Layout::col_major;
  // The packed row-major form first (a column-major caller's A and B trade places), with
  // placeholders of the alignment class; then the caller's leading dimensions.
  Problem p = col ? shape_only_problem(op_b, op_a, q.n, q.m, q.k, q.batch == 0 ? 1 : q.batch,
                                       q.alignment, q.pointer_arrays != 0)
                  : shape_only_problem(op_a, op_b, q.m, q.n, q.k, q.batch == 0 ? 1 : q.batch,
                                       q.alignment, q.pointer_arrays != 0);
  if (q.lda) (col ? p.ldb : p.lda) = q.lda;
  if (q.ldb) (col ? p.lda : p.ldb) = q.ldb;
  if (q.ldc) p.ldc = q.ldc;
  p.lda = std::max(p.lda, 1LL), p.ldb = std::max(p.ldb, 1LL),
  p.ldc = std::max(p.ldc, 1LL);  // K = 0 packs to 0
  if (!p.pointer_arrays)
    p.stride_a = p.lda * p.a_rows(), p.stride_b = p.ldb * p.b_rows(), p.stride_c = p.ldc * p.m;
  p.alpha = q.alpha, p.beta = q.beta;
  static const float unread = 0;  // a device scalar's placeholder: preparing reads no scalar
  if (q.device_scalars) p.alpha_ptr = p.beta_ptr = &unread;
  try {
    check_arguments(as_row_major(layout, p),
                    layout);  // the caller's view: as_row_major is its own inverse
  } catch (const Error& e) {
    invalid(e.what());
  }
  return p;
}

}  // namespace gemmtune::detail

namespace {

// Writes why `handle` would run the kernel it chooses for the call `q` describes into `buffer`
// (gemmtune_explain's contract).
void explain_into(gemmtune_handle_t handle, const gemmtune_problem& q, char* buffer, size_t size,
                  size_t* length) {
  if (q.m < 1 || q.n < 1 || q.k < 1 || q.batch < 0)
    throw gemmtune::Error(gemmtune::Status::kInvalidArgument,
                          "explain: M, N, K and batch must be at least 1");
  if (!buffer && size > 0)
    throw gemmtune::Error(gemmtune::Status::kInvalidArgument, "explain: buffer is NULL");
  const gemmtune::Problem p = gemmtune::detail::described_problem(q, "explain: ");
  const std::string text = dispatcher_of(handle).explain(p).to_string();
  if (length) *length = text.size();
  if (size > 0) {
    const size_t n_copy = text.size() < size - 1 ? text.size() : size - 1;
    std::memcpy(buffer, text.data(), n_copy);
    buffer[n_copy] = '\0';
  }
}

}  // namespace

extern "C" {

void gemmtune_options_init(gemmtune_options* options) {
  if (!options) return;
  options->db_path = nullptr;
  options->device = 0;
  options->db_access = GEMMTUNE_DB_AUTOMATIC;
  options->verbose = 0;
  options->deterministic = 0;
  options->precision = GEMMTUNE_PRECISION_IEEE;
  options->workspace_alloc = nullptr;
  options->workspace_free = nullptr;
  options->workspace_user_data = nullptr;
  options->no_shipped = 0;
}

gemmtune_status_t gemmtune_create(gemmtune_handle_t* handle, const gemmtune_options* options) {
  return guarded([&] {
    if (!handle)
      throw gemmtune::Error(gemmtune::Status::kInvalidArgument, "handle pointer is NULL");
    *handle = nullptr;
    gemmtune_options defaults;
    gemmtune_options_init(&defaults);
    const gemmtune_options& o = options ? *options : defaults;
    gemmtune::DispatcherOptions cpp;
    cpp.db_path = o.db_path ? o.db_path : "";
    cpp.device = o.device;
    cpp.db_access = to_db_access(o.db_access);
    cpp.verbose = o.verbose != 0;
    cpp.deterministic = o.deterministic != 0;
    if (o.precision != GEMMTUNE_PRECISION_IEEE && o.precision != GEMMTUNE_PRECISION_FP32 &&
        o.precision != GEMMTUNE_PRECISION_TF32)
      throw gemmtune::Error(
          gemmtune::Status::kInvalidArgument,
          "options.precision " + std::to_string(int(o.precision)) +
              " is not a gemmtune_precision_t (GEMMTUNE_PRECISION_IEEE, _FP32 or _TF32)");
    cpp.precision = static_cast<gemmtune::Precision>(o.precision);
    cpp.workspace_allocator.allocate = o.workspace_alloc;
    cpp.workspace_allocator.free = o.workspace_free;
    cpp.workspace_allocator.user_data = o.workspace_user_data;
    cpp.use_shipped = o.no_shipped == 0;
    *handle = new gemmtune_handle{gemmtune::Dispatcher(cpp)};
  });
}

gemmtune_status_t gemmtune_destroy(gemmtune_handle_t handle) {
  return guarded([&] { delete handle; });
}

gemmtune_status_t gemmtune_sgemm(gemmtune_handle_t handle, gemmtune_layout_t layout,
                                 gemmtune_op_t op_a, gemmtune_op_t op_b, int m, int n, int k,
                                 float alpha, const float* a, int64_t lda, const float* b,
                                 int64_t ldb, float beta, float* c, int64_t ldc,
                                 cudaStream_t stream) {
  return gemmtune_sgemm_strided_batched(handle, layout, op_a, op_b, m, n, k, alpha, a, lda, 0, b,
                                        ldb, 0, beta, c, ldc, 0, 1, stream);
}

gemmtune_status_t gemmtune_sgemm_strided_batched(gemmtune_handle_t handle, gemmtune_layout_t layout,
                                                 gemmtune_op_t op_a, gemmtune_op_t op_b, int m,
                                                 int n, int k, float alpha, const float* a,
                                                 int64_t lda, int64_t stride_a, const float* b,
                                                 int64_t ldb, int64_t stride_b, float beta,
                                                 float* c, int64_t ldc, int64_t stride_c, int batch,
                                                 cudaStream_t stream) {
  return guarded([&] {
    const gemmtune::Op oa = to_op(op_a, "op_a"), ob = to_op(op_b, "op_b");
    const gemmtune::Problem p = gemmtune::detail::make_problem(
        oa, ob, m, n, k, alpha, a, lda, stride_a, b, ldb, stride_b, beta, c, ldc, stride_c, batch);
    run_checked(handle, to_layout(layout), p, stream);
  });
}

gemmtune_status_t gemmtune_sgemm_batched(gemmtune_handle_t handle, gemmtune_layout_t layout,
                                         gemmtune_op_t op_a, gemmtune_op_t op_b, int m, int n,
                                         int k, float alpha, const float* const a[], int64_t lda,
                                         const float* const b[], int64_t ldb, float beta,
                                         float* const c[], int64_t ldc, int batch,
                                         cudaStream_t stream) {
  return guarded([&] {
    const gemmtune::Layout l = to_layout(layout);
    const gemmtune::Op oa = to_op(op_a, "op_a"), ob = to_op(op_b, "op_b");
    dispatcher_of(handle).sgemm_batched(l, oa, ob, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc,
                                        batch, stream);
  });
}

gemmtune_status_t gemmtune_sgemm_batched_device(gemmtune_handle_t handle, gemmtune_layout_t layout,
                                                gemmtune_op_t op_a, gemmtune_op_t op_b, int m,
                                                int n, int k, float alpha, const float* const a[],
                                                int64_t lda, const float* const b[], int64_t ldb,
                                                float beta, float* const c[], int64_t ldc,
                                                int batch, cudaStream_t stream) {
  return guarded([&] {
    const gemmtune::Op oa = to_op(op_a, "op_a"), ob = to_op(op_b, "op_b");
    const gemmtune::Problem p = gemmtune::detail::make_pointer_array_problem(
        oa, ob, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, batch);
    run_checked(handle, to_layout(layout), p, stream);
  });
}

gemmtune_status_t gemmtune_set_stream(gemmtune_handle_t handle, cudaStream_t stream) {
  return guarded([&] {
    dispatcher_of(handle);  // NULL check
    handle->stream.store(stream);
  });
}

gemmtune_status_t gemmtune_get_stream(gemmtune_handle_t handle, cudaStream_t* stream) {
  return guarded([&] {
    dispatcher_of(handle);
    if (!stream)
      throw gemmtune::Error(gemmtune::Status::kInvalidArgument, "stream pointer is NULL");
    *stream = handle->stream.load();
  });
}

gemmtune_status_t gemmtune_set_pointer_mode(gemmtune_handle_t handle,
                                            gemmtune_pointer_mode_t mode) {
  return guarded([&] {
    const int value = static_cast<int>(mode);
    if (value != GEMMTUNE_POINTER_MODE_HOST && value != GEMMTUNE_POINTER_MODE_DEVICE)
      throw gemmtune::Error(
          gemmtune::Status::kInvalidArgument,
          "pointer mode = " + std::to_string(value) +
              " is not GEMMTUNE_POINTER_MODE_HOST (0) or GEMMTUNE_POINTER_MODE_DEVICE (1)");
    dispatcher_of(handle);  // NULL check
    handle->device_scalars.store(value == GEMMTUNE_POINTER_MODE_DEVICE);
  });
}

gemmtune_status_t gemmtune_get_pointer_mode(gemmtune_handle_t handle,
                                            gemmtune_pointer_mode_t* mode) {
  return guarded([&] {
    dispatcher_of(handle);
    if (!mode)
      throw gemmtune::Error(gemmtune::Status::kInvalidArgument, "pointer mode pointer is NULL");
    *mode =
        handle->device_scalars.load() ? GEMMTUNE_POINTER_MODE_DEVICE : GEMMTUNE_POINTER_MODE_HOST;
  });
}

gemmtune_status_t gemmtune_cublasSgemm(gemmtune_handle_t handle, gemmtune_op_t transa,
                                       gemmtune_op_t transb, int m, int n, int k,
                                       const float* alpha, const float* A, int lda, const float* B,
                                       int ldb, const float* beta, float* C, int ldc) {
  return gemmtune_cublasSgemmStridedBatched(handle, transa, transb, m, n, k, alpha, A, lda, 0, B,
                                            ldb, 0, beta, C, ldc, 0, 1);
}

gemmtune_status_t gemmtune_cublasSgemmStridedBatched(gemmtune_handle_t handle, gemmtune_op_t transa,
                                                     gemmtune_op_t transb, int m, int n, int k,
                                                     const float* alpha, const float* A, int lda,
                                                     long long int strideA, const float* B, int ldb,
                                                     long long int strideB, const float* beta,
                                                     float* C, int ldc, long long int strideC,
                                                     int batchCount) {
  return guarded([&] {
    const gemmtune::Scalar a = scalar(handle, alpha, "alpha"), b = scalar(handle, beta, "beta");
    const gemmtune::Op oa = to_op(transa, "transa"), ob = to_op(transb, "transb");
    const gemmtune::Problem p = gemmtune::detail::make_problem(
        oa, ob, m, n, k, a, A, lda, strideA, B, ldb, strideB, b, C, ldc, strideC, batchCount);
    run_checked(handle, gemmtune::Layout::col_major, p, stream_of(handle));
  });
}

gemmtune_status_t gemmtune_cublasSgemmBatched(gemmtune_handle_t handle, gemmtune_op_t transa,
                                              gemmtune_op_t transb, int m, int n, int k,
                                              const float* alpha, const float* const Aarray[],
                                              int lda, const float* const Barray[], int ldb,
                                              const float* beta, float* const Carray[], int ldc,
                                              int batchCount) {
  return guarded([&] {
    const gemmtune::Scalar a = scalar(handle, alpha, "alpha"), b = scalar(handle, beta, "beta");
    const gemmtune::Op oa = to_op(transa, "transa"), ob = to_op(transb, "transb");
    const gemmtune::Problem p = gemmtune::detail::make_pointer_array_problem(
        oa, ob, m, n, k, a, Aarray, lda, Barray, ldb, b, Carray, ldc, batchCount);
    run_checked(handle, gemmtune::Layout::col_major, p, stream_of(handle));
  });
}

gemmtune_status_t gemmtune_prepare(gemmtune_handle_t handle, const gemmtune_problem* problems,
                                   size_t count, cudaStream_t stream) {
  return guarded([&] {
    if (!problems && count > 0)
      throw gemmtune::Error(gemmtune::Status::kInvalidArgument, "problems is NULL");
    std::vector<gemmtune::Problem> list;
    for (size_t i = 0; i < count; ++i)
      list.push_back(
          gemmtune::detail::described_problem(problems[i], "problem " + std::to_string(i) + ": "));
    dispatcher_of(handle).prepare(list, stream);
  });
}

gemmtune_status_t gemmtune_explain_problem(gemmtune_handle_t handle,
                                           const gemmtune_problem* problem, char* buffer,
                                           size_t size, size_t* length) {
  return guarded([&] {
    if (!problem)
      throw gemmtune::Error(gemmtune::Status::kInvalidArgument, "explain: problem is NULL");
    explain_into(handle, *problem, buffer, size, length);
  });
}

gemmtune_status_t gemmtune_explain(gemmtune_handle_t handle, gemmtune_layout_t layout,
                                   gemmtune_op_t op_a, gemmtune_op_t op_b, int m, int n, int k,
                                   int batch, int alignment, char* buffer, size_t size,
                                   size_t* length) {
  return guarded([&] {
    if (batch < 1)  // a gemmtune_problem takes batch 0 as 1; this call never did
      throw gemmtune::Error(gemmtune::Status::kInvalidArgument,
                            "explain: M, N, K and batch must be at least 1");
    gemmtune_problem problem{};
    problem.layout = layout, problem.op_a = op_a, problem.op_b = op_b;
    problem.m = m, problem.n = n, problem.k = k, problem.batch = batch;
    problem.alpha = 1, problem.alignment = alignment;
    explain_into(handle, problem, buffer, size, length);
  });
}

void gemmtune_set_log_callback(gemmtune_log_callback_t callback, void* user_data) {
  try {
    if (!callback) return gemmtune::set_log_callback(nullptr);
    gemmtune::set_log_callback(
        [callback, user_data](gemmtune::LogLevel level, const std::string& message) {
          callback(gemmtune_log_level_t(int(level)), message.c_str(), user_data);
        });
  } catch (...) {  // out of memory: the previous sink stays
  }
}

const char* gemmtune_status_string(gemmtune_status_t status) {
  return gemmtune::status_name(gemmtune::Status(int(status)));
}

const char* gemmtune_last_error(void) { return last_error.c_str(); }

}  // extern "C"
