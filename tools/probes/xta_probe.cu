// x^T A probes (y = x^T A, 1 x N x K, A row-major K x N with leading dimension N): lean kernels,
// each thread 4 adjacent columns over its split's rows, a column strip's splits one cluster
// summing in the first block's shared memory, against cuBLAS sgemm and sgemv, with the tuner's
// timing protocol. Built and run by tools/gpu-probes.sh; what it measured: docs/PERFORMANCE.md,
// twenty-sixth session.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#define CK(x)                                                     \
  do {                                                            \
    cudaError_t e = (x);                                          \
    if (e != cudaSuccess) {                                       \
      printf("CUDA %s at %d\n", cudaGetErrorString(e), __LINE__); \
      exit(1);                                                    \
    }                                                             \
  } while (0)

// Each thread: 4 adjacent columns (one float4 where the row allows, else 4 floats), over its
// split's rows, U rows in flight; the splits of a column strip are one cluster (along y) whose
// blocks store their sums into block 0's shared memory.
template <int T, int U, int S>
__global__ void __launch_bounds__(T)
    xa_cluster(const float* x, const float* a, int n, int k, long long ld, float* y) {
  __shared__ float4 sums[S][T];
  asm volatile("barrier.cluster.arrive.relaxed.aligned;\n" ::: "memory");
  const int col = 4 * (blockIdx.x * T + threadIdx.x);
  const int split = blockIdx.y;
  const int rows = (k + S - 1) / S, r0 = split * rows, r1 = min(k, r0 + rows);
  float4 acc = make_float4(0, 0, 0, 0);
  const bool vec = (ld % 4 == 0) && col + 4 <= n;
  for (int r = r0; r < r1; r += U) {
    float4 v[U];
    float xv[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int rr = r + u;
      if (rr < r1 && col < n) {
        const float* p = a + rr * ld + col;
        if (vec)
          v[u] = __ldcs(reinterpret_cast<const float4*>(p));
        else {
          v[u].x = p[0];
          v[u].y = col + 1 < n ? p[1] : 0.f;
          v[u].z = col + 2 < n ? p[2] : 0.f;
          v[u].w = col + 3 < n ? p[3] : 0.f;
        }
        xv[u] = __ldg(x + rr);
      } else {
        v[u] = make_float4(0, 0, 0, 0);
        xv[u] = 0.f;
      }
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      acc.x += xv[u] * v[u].x;
      acc.y += xv[u] * v[u].y;
      acc.z += xv[u] * v[u].z;
      acc.w += xv[u] * v[u].w;
    }
  }
  asm volatile("barrier.cluster.wait.aligned;\n" ::: "memory");
  unsigned local = static_cast<unsigned>(__cvta_generic_to_shared(&sums[split][threadIdx.x])),
           remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(remote) : "r"(local), "r"(0));
  asm volatile("st.shared::cluster.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"r"(remote), "f"(acc.x),
               "f"(acc.y), "f"(acc.z), "f"(acc.w)
               : "memory");
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;\n" ::
                   : "memory");
  if (split != 0 || col >= n) return;
  float4 t = make_float4(0, 0, 0, 0);
#pragma unroll
  for (int s = 0; s < S; ++s) {
    t.x += sums[s][threadIdx.x].x;
    t.y += sums[s][threadIdx.x].y;
    t.z += sums[s][threadIdx.x].z;
    t.w += sums[s][threadIdx.x].w;
  }
  y[col] = t.x;
  if (col + 1 < n) y[col + 1] = t.y;
  if (col + 2 < n) y[col + 2] = t.z;
  if (col + 3 < n) y[col + 3] = t.w;
}

int main() {
  int l2 = 0;
  CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  size_t flush_bytes = size_t(l2) * 2;
  void* flush;
  CK(cudaMalloc(&flush, flush_bytes));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  cublasHandle_t h;
  cublasCreate(&h);
  struct Shape {
    int n, k;
  } shapes[] = {{7000, 512}, {7001, 513}, {5003, 7919}, {777, 333}, {4096, 4096}};
  for (auto sh : shapes) {
    const int n = sh.n, k = sh.k;
    const long long ld = n;
    float *x, *a, *y;
    CK(cudaMalloc(&x, k * 4));
    CK(cudaMalloc(&a, size_t(k) * ld * 4));
    CK(cudaMalloc(&y, n * 4));
    std::vector<float> hx(k), ha(size_t(k) * ld);
    for (auto& v : hx) v = float(rand()) / RAND_MAX - 0.5f;
    for (auto& v : ha) v = float(rand()) / RAND_MAX - 0.5f;
    std::vector<double> ref(n, 0.0);
    for (int r = 0; r < k; ++r)
      for (int c = 0; c < n; ++c) ref[c] += double(hx[r]) * ha[size_t(r) * ld + c];
    CK(cudaMemcpy(x, hx.data(), k * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(a, ha.data(), ha.size() * 4, cudaMemcpyHostToDevice));
    auto run = [&](const char* name, auto launch) {
      CK(cudaMemset(y, 0xff, n * 4));
      launch();
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      std::vector<float> got(n);
      CK(cudaMemcpy(got.data(), y, n * 4, cudaMemcpyDeviceToHost));
      double num = 0, den = 0;
      for (int c = 0; c < n; ++c) {
        num += (got[c] - ref[c]) * (got[c] - ref[c]);
        den += ref[c] * ref[c];
      }
      std::vector<float> ms;
      for (int rep = 0; rep < 100; ++rep) {
        CK(cudaMemsetAsync(flush, rep & 0xff, flush_bytes));
        CK(cudaEventRecord(e0));
        launch();
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float t;
        CK(cudaEventElapsedTime(&t, e0, e1));
        ms.push_back(t);
      }
      std::sort(ms.begin(), ms.end());
      printf("1x%dx%d nn  %-24s %8.2f us  rel.err %.1e\n", n, k, name, ms[ms.size() / 2] * 1000,
             std::sqrt(num / den));
    };
    const float one = 1.f, zero = 0.f;
    // Row-major y(1xN) = x(1xK) A(KxN) is column-major y^T = A^T x: gemm N x 1 x K with A^T.
    run("cublasSgemm",
        [&] { cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, 1, k, &one, a, ld, x, k, &zero, y, n); });
    run("cublasSgemv", [&] { cublasSgemv(h, CUBLAS_OP_N, n, k, &one, a, ld, x, 1, &zero, y, 1); });
    auto lean = [&](auto kern, int T, int S, const char* name) {
      const int strips = (n + 4 * T - 1) / (4 * T);
      cudaFuncSetAttribute(kern, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
      cudaLaunchConfig_t cfg{};
      cfg.gridDim = dim3(strips, S);
      cfg.blockDim = dim3(T);
      cudaLaunchAttribute at{};
      at.id = cudaLaunchAttributeClusterDimension;
      at.val.clusterDim.x = 1;
      at.val.clusterDim.y = S;
      at.val.clusterDim.z = 1;
      cfg.attrs = &at;
      cfg.numAttrs = 1;
      run(name, [&] {
        CK(cudaLaunchKernelEx(&cfg, kern, (const float*)x, (const float*)a, n, k, ld, y));
      });
    };
    lean(xa_cluster<64, 8, 8>, 64, 8, "lean 64t u8 s8");
    lean(xa_cluster<64, 8, 16>, 64, 16, "lean 64t u8 s16");
    lean(xa_cluster<128, 8, 8>, 128, 8, "lean 128t u8 s8");
    lean(xa_cluster<128, 8, 16>, 128, 16, "lean 128t u8 s16");
    lean(xa_cluster<32, 8, 16>, 32, 16, "lean 32t u8 s16");
    lean(xa_cluster<64, 4, 16>, 64, 16, "lean 64t u4 s16");
    lean(xa_cluster<64, 16, 16>, 64, 16, "lean 64t u16 s16");
    CK(cudaFree(x));
    CK(cudaFree(a));
    CK(cudaFree(y));
  }
  return 0;
}
