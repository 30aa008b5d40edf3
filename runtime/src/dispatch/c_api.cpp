// The C API: a thin shell over gemmtune::Dispatcher that turns exceptions into status codes and
// a thread-local message.
#include <cstring>
#include <new>
#include <string>

#include "gemmtune/gemmtune.h"
#include "gemmtune/gemmtune.hpp"

struct gemmtune_handle {
  gemmtune::Dispatcher dispatcher;
};

namespace {

static_assert(GEMMTUNE_STATUS_INTERNAL == int(gemmtune::Status::kInternal), "C and C++ status codes differ");
static_assert(GEMMTUNE_STATUS_NO_DEVICE == int(gemmtune::Status::kNoDevice), "C and C++ status codes differ");
static_assert(GEMMTUNE_STATUS_DATABASE_ERROR == int(gemmtune::Status::kDatabaseError),
              "C and C++ status codes differ");

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
  if (value != GEMMTUNE_OP_N && value != GEMMTUNE_OP_T)
    throw gemmtune::Error(gemmtune::Status::kInvalidArgument,
                          std::string(name) + " = " + std::to_string(value) +
                              " is not GEMMTUNE_OP_N (0) or GEMMTUNE_OP_T (1)");
  return value == GEMMTUNE_OP_T ? gemmtune::Op::T : gemmtune::Op::N;
}

gemmtune::DbAccess to_db_access(gemmtune_db_access_t access) {
  switch (static_cast<int>(access)) {
    case GEMMTUNE_DB_AUTOMATIC:
      return gemmtune::DbAccess::automatic;
    case GEMMTUNE_DB_READ_ONLY:
      return gemmtune::DbAccess::read_only;
    case GEMMTUNE_DB_READ_WRITE:
      return gemmtune::DbAccess::read_write;
    case GEMMTUNE_DB_NONE:
      return gemmtune::DbAccess::none;
  }
  throw gemmtune::Error(
      gemmtune::Status::kInvalidArgument,
      "db_access = " + std::to_string(static_cast<int>(access)) +
          " is not a gemmtune_db_access_t: use GEMMTUNE_DB_AUTOMATIC, _READ_ONLY, _READ_WRITE "
          "or _NONE (0 to 3)");
}

gemmtune::Dispatcher& dispatcher_of(gemmtune_handle_t handle) {
  if (!handle) throw gemmtune::Error(gemmtune::Status::kInvalidArgument, "handle is NULL (create one with gemmtune_create)");
  return handle->dispatcher;
}

}  // namespace

extern "C" {

void gemmtune_options_init(gemmtune_options* options) {
  if (!options) return;
  options->db_path = nullptr;
  options->device = 0;
  options->db_access = GEMMTUNE_DB_AUTOMATIC;
  options->verbose = 0;
}

gemmtune_status_t gemmtune_create(gemmtune_handle_t* handle, const gemmtune_options* options) {
  return guarded([&] {
    if (!handle) throw gemmtune::Error(gemmtune::Status::kInvalidArgument, "handle pointer is NULL");
    *handle = nullptr;
    gemmtune_options defaults;
    gemmtune_options_init(&defaults);
    const gemmtune_options& o = options ? *options : defaults;
    gemmtune::DispatcherOptions cpp;
    cpp.db_path = o.db_path ? o.db_path : "";
    cpp.device = o.device;
    cpp.db_access = to_db_access(o.db_access);
    cpp.verbose = o.verbose != 0;
    *handle = new gemmtune_handle{gemmtune::Dispatcher(cpp)};
  });
}

gemmtune_status_t gemmtune_destroy(gemmtune_handle_t handle) {
  return guarded([&] { delete handle; });
}

gemmtune_status_t gemmtune_sgemm(gemmtune_handle_t handle, gemmtune_op_t op_a, gemmtune_op_t op_b, int m, int n,
                                 int k, float alpha, const float* a, int64_t lda, const float* b, int64_t ldb,
                                 float beta, float* c, int64_t ldc, cudaStream_t stream) {
  return gemmtune_sgemm_strided_batched(handle, op_a, op_b, m, n, k, alpha, a, lda, 0, b, ldb, 0, beta, c, ldc, 0, 1,
                                        stream);
}

gemmtune_status_t gemmtune_sgemm_strided_batched(gemmtune_handle_t handle, gemmtune_op_t op_a, gemmtune_op_t op_b,
                                                 int m, int n, int k, float alpha, const float* a, int64_t lda,
                                                 int64_t stride_a, const float* b, int64_t ldb, int64_t stride_b,
                                                 float beta, float* c, int64_t ldc, int64_t stride_c, int batch,
                                                 cudaStream_t stream) {
  return guarded([&] {
    gemmtune::Problem p;
    p.op_a = to_op(op_a, "op_a"), p.op_b = to_op(op_b, "op_b");
    p.m = m, p.n = n, p.k = k, p.batch = batch;
    p.lda = lda, p.ldb = ldb, p.ldc = ldc;
    p.stride_a = stride_a, p.stride_b = stride_b, p.stride_c = stride_c;
    p.a = a, p.b = b, p.c = c, p.alpha = alpha, p.beta = beta;
    bool work = gemmtune::check_arguments(p);  // before the handle: argument errors come first
    gemmtune::Dispatcher& d = dispatcher_of(handle);
    if (work) d.run(p, stream);
  });
}

gemmtune_status_t gemmtune_explain(gemmtune_handle_t handle, gemmtune_op_t op_a, gemmtune_op_t op_b, int m, int n,
                                   int k, int batch, int alignment, char* buffer, size_t size, size_t* length) {
  return guarded([&] {
    if (m < 1 || n < 1 || k < 1 || batch < 1)
      throw gemmtune::Error(gemmtune::Status::kInvalidArgument, "explain: M, N, K and batch must be at least 1");
    if (alignment != 0 && alignment != 1 && alignment != 2 && alignment != 4)
      throw gemmtune::Error(gemmtune::Status::kInvalidArgument, "explain: alignment must be 0, 1, 2 or 4");
    if (!buffer && size > 0) throw gemmtune::Error(gemmtune::Status::kInvalidArgument, "explain: buffer is NULL");
    const gemmtune::Problem problem = gemmtune::shape_only_problem(
        to_op(op_a, "op_a"), to_op(op_b, "op_b"), m, n, k, batch, alignment);
    std::string text = dispatcher_of(handle).explain(problem).to_string();
    if (length) *length = text.size();
    if (size > 0) {
      size_t n_copy = text.size() < size - 1 ? text.size() : size - 1;
      std::memcpy(buffer, text.data(), n_copy);
      buffer[n_copy] = '\0';
    }
  });
}

const char* gemmtune_status_string(gemmtune_status_t status) {
  return gemmtune::status_name(gemmtune::Status(int(status)));
}

const char* gemmtune_last_error(void) { return last_error.c_str(); }

}  // extern "C"
