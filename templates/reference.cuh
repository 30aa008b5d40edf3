// Float64 reference GEMM (GemmArgs is prepended when embedded): one thread per element of C,
// products and sums in double. Slow and simple on purpose: it is what every kernel is checked against.
extern "C" __global__ void gemmtune_reference(gemmtune::GemmArgs p, double* out) {
  const long long total = static_cast<long long>(p.m) * p.n * p.batch;
  for (long long idx = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; idx < total;
       idx += static_cast<long long>(gridDim.x) * blockDim.x) {
    const int b = static_cast<int>(idx / (static_cast<long long>(p.m) * p.n));
    const long long rest = idx % (static_cast<long long>(p.m) * p.n);
    const int i = static_cast<int>(rest / p.n), j = static_cast<int>(rest % p.n);
    const float* a = p.a + b * p.stride_a;
    const float* bb = p.b + b * p.stride_b;
    const bool ta = p.lda < 0, tb = p.ldb < 0;  // sign of ld carries the op (see reference.cpp)
    const long long lda = ta ? -p.lda : p.lda, ldb = tb ? -p.ldb : p.ldb;
    double sum = 0;
    for (int k = 0; k < p.k; ++k) {
      double x = ta ? a[k * lda + i] : a[i * lda + k];
      double y = tb ? bb[j * ldb + k] : bb[k * ldb + j];
      sum += x * y;
    }
    double r = double(p.alpha) * sum;
    if (p.beta != 0.f) r += double(p.beta) * p.c[b * p.stride_c + i * p.ldc + j];
    out[idx] = r;
  }
}
