// A cuBLAS program ported to gemmtune by renaming. The original call site:
//
//   cublasHandle_t handle;          cublasCreate(&handle);          cublasSetStream(handle, stream);
//   cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_T, m, n, k, &alpha, A, lda, B, ldb, &beta, C, ldc);
//
// becomes, with the same arguments (column-major, alpha and beta by host pointer):
//
//   gemmtune_handle_t handle;       gemmtune_create(&handle, NULL); gemmtune_set_stream(handle, stream);
//   gemmtune_cublasSgemm(handle, GEMMTUNE_OP_N, GEMMTUNE_OP_T, m, n, k, &alpha, A, lda, B, ldb, &beta, C, ldc);
//
// and a batch whose pointers live in device arrays, cublasSgemmBatched(handle, ..., Aarray, ...),
// becomes gemmtune_cublasSgemmBatched(handle, ..., Aarray, ...) (every pointer in the arrays
// 16-byte aligned, as cudaMalloc's are).
//
// This program runs both on the same buffers and compares them. Exits 0 when they agree, 1 when
// they do not or on an error, 77 when this machine has no GPU.
#include <cublas_v2.h>
#include <gemmtune/gemmtune.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

namespace {

int fail(const char* what, const char* why) {
  std::fprintf(stderr, "%s: %s\n", what, why);
  return 1;
}

// Both sum k products in FP32, in different orders: the largest difference relative to the
// largest entry, within a tolerance that grows with sqrt(k).
bool agree(const char* what, const std::vector<float>& got, const std::vector<float>& want, int k) {
  double diff = 0, scale = 1e-30;
  for (size_t i = 0; i < want.size(); ++i) {
    diff = std::fmax(diff, std::fabs(double(got[i]) - want[i]));
    scale = std::fmax(scale, std::fabs(double(want[i])));
  }
  const double tolerance = 1e-6 * std::sqrt(double(k)) * 4;
  std::printf("gemmtune vs cuBLAS, %s: max relative difference %.2e (tolerance %.1e): %s\n", what,
              diff / scale, tolerance, diff / scale <= tolerance ? "OK" : "DIFFERENT");
  return diff / scale <= tolerance;
}

}  // namespace

int main() {
  const int m = 300, n = 200, k = 129, lda = m, ldb = n,
            ldc = m;  // A m x k, B n x k (used as B^T), C m x n
  const float alpha = 1.f, beta = 0.5f;
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> a(size_t(lda) * k), b(size_t(ldb) * k), c(size_t(ldc) * n);
  for (auto* v : {&a, &b, &c})
    for (float& x : *v) x = dist(rng);

  gemmtune_handle_t handle = nullptr;
  gemmtune_status_t s = gemmtune_create(&handle, nullptr);
  if (s == GEMMTUNE_STATUS_NO_DEVICE) {
    std::printf("no GPU: %s\n", gemmtune_last_error());
    return 77;
  }
  if (s != GEMMTUNE_STATUS_SUCCESS) return fail("gemmtune_create", gemmtune_last_error());
  cublasHandle_t cublas = nullptr;
  if (cublasCreate(&cublas) != CUBLAS_STATUS_SUCCESS) return fail("cublasCreate", "failed");
  cublasSetMathMode(cublas, CUBLAS_PEDANTIC_MATH);  // plain FP32, as gemmtune computes

  float *da = nullptr, *db = nullptr, *dc = nullptr;
  if (cudaMalloc(reinterpret_cast<void**>(&da), a.size() * sizeof(float)) ||
      cudaMalloc(reinterpret_cast<void**>(&db), b.size() * sizeof(float)) ||
      cudaMalloc(reinterpret_cast<void**>(&dc), c.size() * sizeof(float)))
    return fail("cudaMalloc", "out of device memory");
  cudaMemcpy(da, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice);

  std::vector<float> want(c.size()), got(c.size());
  cudaMemcpy(dc, c.data(), c.size() * sizeof(float), cudaMemcpyHostToDevice);
  cublasSgemm(cublas, CUBLAS_OP_N, CUBLAS_OP_T, m, n, k, &alpha, da, lda, db, ldb, &beta, dc, ldc);
  cudaMemcpy(want.data(), dc, c.size() * sizeof(float), cudaMemcpyDeviceToHost);

  cudaMemcpy(dc, c.data(), c.size() * sizeof(float), cudaMemcpyHostToDevice);
  s = gemmtune_cublasSgemm(handle, GEMMTUNE_OP_N, GEMMTUNE_OP_T, m, n, k, &alpha, da, lda, db, ldb,
                           &beta, dc, ldc);
  if (s != GEMMTUNE_STATUS_SUCCESS) return fail("gemmtune_cublasSgemm", gemmtune_last_error());
  cudaMemcpy(got.data(), dc, c.size() * sizeof(float), cudaMemcpyDeviceToHost);
  bool ok = agree("cublasSgemm, column-major 300x200x129 nt", got, want, k);

  // cublasSgemmBatched: C_i = A B^T + beta C_i for three C matrices in allocations of their own,
  // their pointers in a device array (A and B shared through theirs).
  const int batch = 3;
  float* dcs[batch] = {};
  for (float*& ci : dcs)
    if (cudaMalloc(reinterpret_cast<void**>(&ci), c.size() * sizeof(float)))
      return fail("cudaMalloc", "out of device memory");
  const float* as[batch] = {da, da, da};
  const float* bs[batch] = {db, db, db};
  const float** a_array = nullptr;
  const float** b_array = nullptr;
  float** c_array = nullptr;
  if (cudaMalloc(reinterpret_cast<void**>(&a_array), sizeof as) ||
      cudaMalloc(reinterpret_cast<void**>(&b_array), sizeof bs) ||
      cudaMalloc(reinterpret_cast<void**>(&c_array), sizeof dcs))
    return fail("cudaMalloc", "out of device memory");
  cudaMemcpy(a_array, as, sizeof as, cudaMemcpyHostToDevice);
  cudaMemcpy(b_array, bs, sizeof bs, cudaMemcpyHostToDevice);
  cudaMemcpy(c_array, dcs, sizeof dcs, cudaMemcpyHostToDevice);
  std::vector<float> want_batch(c.size() * batch), got_batch(c.size() * batch);
  for (int use_gemmtune = 0; use_gemmtune < 2; ++use_gemmtune) {
    for (float* ci : dcs)
      cudaMemcpy(ci, c.data(), c.size() * sizeof(float), cudaMemcpyHostToDevice);
    if (use_gemmtune) {
      s = gemmtune_cublasSgemmBatched(handle, GEMMTUNE_OP_N, GEMMTUNE_OP_T, m, n, k, &alpha,
                                      a_array, lda, b_array, ldb, &beta, c_array, ldc, batch);
      if (s != GEMMTUNE_STATUS_SUCCESS)
        return fail("gemmtune_cublasSgemmBatched", gemmtune_last_error());
    } else {
      cublasSgemmBatched(cublas, CUBLAS_OP_N, CUBLAS_OP_T, m, n, k, &alpha, a_array, lda, b_array,
                         ldb, &beta, c_array, ldc, batch);
    }
    std::vector<float>& out = use_gemmtune ? got_batch : want_batch;
    for (int i = 0; i < batch; ++i)
      cudaMemcpy(out.data() + i * c.size(), dcs[i], c.size() * sizeof(float),
                 cudaMemcpyDeviceToHost);
  }
  ok = agree("cublasSgemmBatched, 3 x 300x200x129 nt, device pointer arrays", got_batch, want_batch,
             k) &&
       ok;

  for (float* ci : dcs) cudaFree(ci);
  cudaFree(a_array);
  cudaFree(b_array);
  cudaFree(c_array);
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  cublasDestroy(cublas);
  gemmtune_destroy(handle);
  return ok ? 0 : 1;
}
