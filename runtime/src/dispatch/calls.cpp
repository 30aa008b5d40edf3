// The GEMM calls of the C++ API: each builds a Problem in the caller's layout, checks it there
// (so messages name the caller's arguments) and runs its row-major equivalent.
#include "gemmtune/calls.hpp"

#include <cstdint>
#include <string>
#include <utility>

namespace gemmtune {

namespace detail {

namespace {
// A value into `value`, a device address into `address`.
void set_scalar(Scalar s, const char* name, float& value, const float*& address) {
  if (!s.is_on_device()) {
    value = s.value();
    return;
  }
  if (!s.address())
    throw Error(Status::kInvalidArgument, std::string(name) + " is a null device pointer");
  address = s.address();
}
}  // namespace

Problem make_problem(Op op_a, Op op_b, int m, int n, int k, Scalar alpha, const float* a,
                     long long lda, long long stride_a, const float* b, long long ldb,
                     long long stride_b, Scalar beta, float* c, long long ldc, long long stride_c,
                     int batch) {
  Problem p;
  p.op_a = op_a, p.op_b = op_b, p.m = m, p.n = n, p.k = k, p.batch = batch;
  p.lda = lda, p.ldb = ldb, p.ldc = ldc;
  p.stride_a = stride_a, p.stride_b = stride_b, p.stride_c = stride_c;
  p.a = a, p.b = b, p.c = c;
  set_scalar(alpha, "alpha", p.alpha, p.alpha_ptr);
  set_scalar(beta, "beta", p.beta, p.beta_ptr);
  return p;
}

Problem make_pointer_array_problem(Op op_a, Op op_b, int m, int n, int k, Scalar alpha,
                                   const float* const* a_array, long long lda,
                                   const float* const* b_array, long long ldb, Scalar beta,
                                   float* const* c_array, long long ldc, int batch) {
  Problem p = make_problem(op_a, op_b, m, n, k, alpha, nullptr, lda, 0, nullptr, ldb, 0, beta,
                           nullptr, ldc, 0, batch);
  p.pointer_arrays = true;
  p.a_array = a_array, p.b_array = b_array, p.c_array = c_array;
  return p;
}

}  // namespace detail

namespace {

// The constant distance, in floats, between consecutive pointers of `ptrs`; -1 when there is none
// (uneven, negative, or not a whole number of floats). Addresses compare as integers: the
// matrices may live in separate allocations.
template <typename T>
long long even_stride(const T* const ptrs[], int count) {
  if (count < 2) return 0;
  const auto at = [&](int i) { return std::intptr_t(reinterpret_cast<std::uintptr_t>(ptrs[i])); };
  const std::intptr_t step = at(1) - at(0);
  if (step < 0 || step % std::intptr_t(sizeof(float)) != 0) return -1;
  for (int i = 2; i < count; ++i)
    if (at(i) - at(i - 1) != step) return -1;
  return step / std::intptr_t(sizeof(float));
}

}  // namespace

void Dispatcher::sgemm(Layout layout, Op op_a, Op op_b, int m, int n, int k, Scalar alpha,
                       const float* a, long long lda, const float* b, long long ldb, Scalar beta,
                       float* c, long long ldc, cudaStream_t stream) {
  sgemm_strided_batched(layout, op_a, op_b, m, n, k, alpha, a, lda, 0, b, ldb, 0, beta, c, ldc, 0,
                        1, stream);
}

void Dispatcher::sgemm_strided_batched(Layout layout, Op op_a, Op op_b, int m, int n, int k,
                                       Scalar alpha, const float* a, long long lda,
                                       long long stride_a, const float* b, long long ldb,
                                       long long stride_b, Scalar beta, float* c, long long ldc,
                                       long long stride_c, int batch, cudaStream_t stream) {
  const Problem p = detail::make_problem(op_a, op_b, m, n, k, alpha, a, lda, stride_a, b, ldb,
                                         stride_b, beta, c, ldc, stride_c, batch);
  if (check_arguments(p, layout) == Work::none) return;
  run(as_row_major(layout, p), stream);
}

void Dispatcher::sgemm_batched(Layout layout, Op op_a, Op op_b, int m, int n, int k, Scalar alpha,
                               const float* const a[], long long lda, const float* const b[],
                               long long ldb, Scalar beta, float* const c[], long long ldc,
                               int batch, cudaStream_t stream) {
  if (batch < 0)
    throw Error(Status::kInvalidArgument, "batch = " + std::to_string(batch) + " is negative");
  Problem first = detail::make_problem(op_a, op_b, m, n, k, alpha, nullptr, lda, 0, nullptr, ldb, 0,
                                       beta, nullptr, ldc, 0, batch == 0 ? 0 : 1);
  const bool reads_ab = work_of(first) == Work::gemm;
  if (batch > 0 && work_of(first) != Work::none) {
    for (auto [array, name] : {std::pair<const void*, const char*>{c, "C"},
                               {reads_ab ? a : c, "A"},
                               {reads_ab ? b : c, "B"}})
      if (!array)
        throw Error(Status::kInvalidArgument,
                    std::string("the array of ") + name + " pointers is null");
    first.a = reads_ab ? a[0] : nullptr, first.b = reads_ab ? b[0] : nullptr, first.c = c[0];
  }
  if (check_arguments(first, layout) == Work::none)
    return;  // sizes, leading dimensions, GEMM 0's pointers
  // Evenly spaced matrices: one strided-batched launch (check_arguments rejects overlapping C).
  const long long sa = reads_ab ? even_stride(a, batch) : 0,
                  sb = reads_ab ? even_stride(b, batch) : 0, sc = even_stride(c, batch);
  if (sa >= 0 && sb >= 0 && sc > 0) {
    return sgemm_strided_batched(layout, op_a, op_b, m, n, k, alpha, reads_ab ? a[0] : nullptr, lda,
                                 sa, reads_ab ? b[0] : nullptr, ldb, sb, beta, c[0], ldc, sc, batch,
                                 stream);
  }
  for (int i = 0; i < batch; ++i)
    sgemm(layout, op_a, op_b, m, n, k, alpha, reads_ab ? a[i] : nullptr, lda,
          reads_ab ? b[i] : nullptr, ldb, beta, c[i], ldc, stream);
}

void Dispatcher::sgemm_batched_device(Layout layout, Op op_a, Op op_b, int m, int n, int k,
                                      Scalar alpha, const float* const* a_array, long long lda,
                                      const float* const* b_array, long long ldb, Scalar beta,
                                      float* const* c_array, long long ldc, int batch,
                                      cudaStream_t stream) {
  const Problem p = detail::make_pointer_array_problem(op_a, op_b, m, n, k, alpha, a_array, lda,
                                                       b_array, ldb, beta, c_array, ldc, batch);
  if (check_arguments(p, layout) == Work::none) return;
  run(as_row_major(layout, p), stream);
}

}  // namespace gemmtune
