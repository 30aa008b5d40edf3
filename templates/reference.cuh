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

// Sums over the batch*M*N elements of C against the reference `ref` (packed): sums[0] +=
// (C - R)^2, sums[1] += R^2, sums[2] += number of non-finite elements of C. The caller zeroes
// `sums`; the relative Frobenius error follows on the host from the three numbers. Verifying on
// the GPU spares the tuner a copy of C and a single-core pass over it per candidate.
extern "C" __global__ void gemmtune_error_sums(gemmtune::GemmArgs p, const double* ref,
                                               double* sums) {
  const long long per_batch = static_cast<long long>(p.m) * p.n, total = per_batch * p.batch;
  double diff = 0, norm = 0, bad = 0;
  for (long long idx = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; idx < total;
       idx += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long b = idx / per_batch, rest = idx % per_batch;
    const double x = p.c[b * p.stride_c + (rest / p.n) * p.ldc + rest % p.n], r = ref[idx];
    if (isfinite(x)) {
      diff += (x - r) * (x - r);
    } else {
      bad += 1;
    }
    norm += r * r;
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    diff += __shfl_down_sync(0xffffffffu, diff, offset);
    norm += __shfl_down_sync(0xffffffffu, norm, offset);
    bad += __shfl_down_sync(0xffffffffu, bad, offset);
  }
  if (threadIdx.x % 32 == 0) {
    atomicAdd(sums, diff);
    atomicAdd(sums + 1, norm);
    atomicAdd(sums + 2, bad);
  }
}
