// gemmtune from C++: one row-major SGEMM and one column-major SGEMM, each checked against a
// plain CPU loop. Exits 0 on success, 1 on a wrong result or an error,
// 77 when this machine has no GPU.
#include <gemmtune/gemmtune.hpp>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

namespace {

// Device memory for a host vector, copied in; freed on scope exit.
struct DeviceVector {
  float* ptr = nullptr;
  explicit DeviceVector(const std::vector<float>& host) {
    GEMMTUNE_CUDA(cudaMalloc(reinterpret_cast<void**>(&ptr), host.size() * sizeof(float)));
    GEMMTUNE_CUDA(
        cudaMemcpy(ptr, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));
  }
  ~DeviceVector() { cudaFree(ptr); }
  DeviceVector(const DeviceVector&) = delete;
  DeviceVector& operator=(const DeviceVector&) = delete;
  std::vector<float> download(size_t n) const {
    std::vector<float> host(n);
    GEMMTUNE_CUDA(cudaMemcpy(host.data(), ptr, n * sizeof(float), cudaMemcpyDeviceToHost));
    return host;
  }
};

// Largest |got - want| relative to the largest |want|.
double max_rel_diff(const std::vector<float>& got, const std::vector<double>& want) {
  double diff = 0, scale = 1e-30;
  for (size_t i = 0; i < want.size(); ++i) {
    diff = std::fmax(diff, std::fabs(got[i] - want[i]));
    scale = std::fmax(scale, std::fabs(want[i]));
  }
  return diff / scale;
}

}  // namespace

int main() {
  const int M = 123, N = 77, K = 200;
  const float alpha = 1.5f, beta = 0.5f;
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> a(M * K), b(K * N), c(M * N);
  for (auto* v : {&a, &b, &c})
    for (auto& x : *v) x = dist(rng);

  try {
    gemmtune::Dispatcher
        gemm;  // device 0, the default tuning database (built-in defaults without one)
    std::printf(
        "%s\n%s", gemm.device().name.c_str(),
        gemm.explain(gemmtune::shape_only_problem(gemmtune::Op::N, gemmtune::Op::N, M, N, K))
            .to_string()
            .c_str());
    DeviceVector da(a), db(b), dc(c);

    // Row-major: C (M x N, ldc N) = alpha A (M x K, lda K) B (K x N, ldb N) + beta C.
    gemm.sgemm(gemmtune::Layout::row_major, gemmtune::Op::N, gemmtune::Op::N, M, N, K, alpha,
               da.ptr, K, db.ptr, N, beta, dc.ptr, N, nullptr);
    std::vector<float> got = dc.download(c.size());
    std::vector<double> want(M * N);
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        double s = 0;
        for (int p = 0; p < K; ++p) s += double(a[i * K + p]) * b[p * N + j];
        want[i * N + j] = alpha * s + beta * double(c[i * N + j]);
      }
    double err_row = max_rel_diff(got, want);

    // Column-major (as BLAS and cuBLAS store matrices): C2 (M x N, ld M) = A2 (M x K, ld M) * B2 (K x N, ld K).
    std::vector<float> a2(M * K), b2(K * N);  // column-major
    for (auto* v : {&a2, &b2})
      for (auto& x : *v) x = dist(rng);
    DeviceVector da2(a2), db2(b2), dc2(std::vector<float>(M * N, 0.f));
    gemm.sgemm(gemmtune::Layout::col_major, gemmtune::Op::N, gemmtune::Op::N, M, N, K, 1.f, da2.ptr,
               M, db2.ptr, K, 0.f, dc2.ptr, M, nullptr);
    std::vector<float> got2 = dc2.download(M * N);
    std::vector<double> want2(M * N);
    for (int j = 0; j < N; ++j)
      for (int i = 0; i < M; ++i) {
        double s = 0;
        for (int p = 0; p < K; ++p) s += double(a2[i + p * M]) * b2[p + j * K];
        want2[i + j * M] = s;
      }
    double err_col = max_rel_diff(got2, want2);

    std::printf(
        "row-major    max relative difference %.2e\ncolumn-major max relative difference %.2e\n",
        err_row, err_col);
    bool ok = err_row < 1e-5 && err_col < 1e-5;
    std::printf("%s\n", ok ? "OK" : "WRONG RESULT");
    return ok ? 0 : 1;
  } catch (const gemmtune::Error& e) {
    std::fprintf(stderr, "gemmtune: %s\n", e.what());
    return e.status() == gemmtune::Status::kNoDevice ? 77 : 1;
  }
}
