// The kernel of the test-only naive family (naive_family.hpp), embedded after
// templates/include/gemmtune/kernel_args.h and naive_args.h: one thread per element of C, a
// K-long dot product in FP32 FMAs. Slow on purpose; it is there to prove that a family outside
// families/ can be tuned, stored and dispatched. Each operand value is ANDed with the mask of its
// second argument block: a `_tf32` config's cuts it to TF32's 10 mantissa bits, so that the
// results carry a 1xTF32 kernel's error (a family of another precision class), from the same
// binary as the plain config's.
namespace gemmtune {

template <bool TA, bool TB, int BLOCK>
__global__ void __launch_bounds__(BLOCK)
    naive_gemm(const GemmArgs p, const __grid_constant__ NaiveArgs e) {
  const long long idx = blockIdx.x * static_cast<long long>(BLOCK) + threadIdx.x;
  if (idx >= static_cast<long long>(p.m) * p.n) return;
  const int i = static_cast<int>(idx / p.n), j = static_cast<int>(idx % p.n);
  const float alpha = p.alpha_ptr ? *p.alpha_ptr : p.alpha;
  const float beta = p.beta_ptr ? *p.beta_ptr : p.beta;
  for (int b = blockIdx.y; b < p.batch; b += gridDim.y) {
    const float* a = p.pointer_arrays ? p.a_array[b] : p.a + b * p.stride_a;
    const float* bb = p.pointer_arrays ? p.b_array[b] : p.b + b * p.stride_b;
    float* c = p.pointer_arrays ? p.c_array[b] : p.c + b * p.stride_c;
    float sum = 0;
    for (int k = 0; k < p.k; ++k) {
      float x = TA ? a[k * p.lda + i] : a[i * p.lda + k];
      float y = TB ? bb[j * p.ldb + k] : bb[k * p.ldb + j];
      x = __uint_as_float(__float_as_uint(x) & e.operand_mask);
      y = __uint_as_float(__float_as_uint(y) & e.operand_mask);
      sum = fmaf(x, y, sum);
    }
    float* out = c + i * p.ldc + j;
    // beta = 0 never reads C: it may hold NaN.
    *out = beta == 0.f ? alpha * sum : alpha * sum + beta * *out;
  }
}

}  // namespace gemmtune
