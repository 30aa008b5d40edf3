// Dot-product probes: lean one-launch dots (a last-block ticket, or one cluster's blocks) and the
// family's habits added one at a time, against cuBLAS, with the tuner's timing protocol (L2
// flushed by a memset of twice its size before each run, event-timed, median). C = alpha x.y +
// beta C. Built and run by tools/gpu-probes.sh; what it measured: docs/PERFORMANCE.md,
// twenty-sixth session.
#include <cooperative_groups.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
namespace cg = cooperative_groups;
#define CK(x)                                                     \
  do {                                                            \
    cudaError_t e = (x);                                          \
    if (e != cudaSuccess) {                                       \
      printf("CUDA %s at %d\n", cudaGetErrorString(e), __LINE__); \
      exit(1);                                                    \
    }                                                             \
  } while (0)

template <int T>
__device__ __forceinline__ float block_sum(float v) {
  __shared__ float w[T / 32];
  for (int o = 16; o; o >>= 1) v += __shfl_down_sync(~0u, v, o);
  if (threadIdx.x % 32 == 0) w[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    v = threadIdx.x < T / 32 ? w[threadIdx.x] : 0.f;
    for (int o = 16; o; o >>= 1) v += __shfl_down_sync(~0u, v, o);
  }
  return v;
}
// I float4 of each vector per thread, loads first: evict-first, or (PLAIN) plain loads.
template <int T, int I, bool PLAIN = false>
__device__ __forceinline__ float partial(const float* x, const float* y, int n) {
  float s = 0.f;
  float4 a[I], b[I];
  const int n4 = n / 4;
  const float4 *x4 = reinterpret_cast<const float4*>(x), *y4 = reinterpret_cast<const float4*>(y);
#pragma unroll
  for (int i = 0; i < I; ++i) {
    const int q = (blockIdx.x * I + i) * T + threadIdx.x;
    if (q >= n4)
      a[i] = b[i] = make_float4(0, 0, 0, 0);
    else if (PLAIN)
      a[i] = __ldg(x4 + q), b[i] = __ldg(y4 + q);
    else
      a[i] = __ldcs(x4 + q), b[i] = __ldcs(y4 + q);
  }
#pragma unroll
  for (int i = 0; i < I; ++i)
    s += a[i].x * b[i].x + a[i].y * b[i].y + a[i].z * b[i].z + a[i].w * b[i].w;
  if (blockIdx.x == 0 && threadIdx.x < n % 4)
    s += x[4 * n4 + threadIdx.x] * y[4 * n4 + threadIdx.x];
  return s;
}
// Last-block finish: partials to ws, ticket; the last block adds them in order.
template <int T, int I>
__global__ void __launch_bounds__(T)
    dot_ticket(const float* x, const float* y, int n, float* c, float alpha, float beta, float* ws,
               unsigned* ticket) {
  float s = block_sum<T>(partial<T, I>(x, y, n));
  __shared__ bool last;
  if (threadIdx.x == 0) {
    ws[blockIdx.x] = s;
    __threadfence();
    last = atomicAdd(ticket, 1) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  float t = 0.f;
  for (int i = threadIdx.x; i < gridDim.x; i += T) t += __ldcg(ws + i);
  t = block_sum<T>(t);
  if (threadIdx.x == 0) {
    *c = alpha * t + (beta == 0.f ? 0.f : beta * *c);
    *ticket = 0;
  }
}
// One cluster: blocks add their sums through distributed shared memory into block 0.
template <int T, int I>
__global__ void __launch_bounds__(T)
    dot_cluster(const float* x, const float* y, int n, float* c, float alpha, float beta) {
  __shared__ float sums[16];
  cg::cluster_group cl = cg::this_cluster();
  float s = block_sum<T>(partial<T, I>(x, y, n));
  if (threadIdx.x == 0) *cl.map_shared_rank(&sums[cl.block_rank()], 0) = s;
  cl.sync();
  if (cl.block_rank() == 0 && threadIdx.x == 0) {
    float t = 0.f;
    for (unsigned i = 0; i < cl.num_blocks(); ++i) t += sums[i];
    *c = alpha * t + (beta == 0.f ? 0.f : beta * *c);
  }
}

// Family-like variants of the cluster dot (16 blocks of 1024 threads, 2 float4 of each a thread).
// MODE bits: 1 = the family's ending (own shared memory, barrier, rank 0 reads remotely, writes,
// second barrier); 2 = the family's warp reduction (xor shuffles, 31 warps to shared memory, warp 0's
// lanes add 31 each); 4 = plain loads instead of evict-first.
template <int MODE>
__global__ void __launch_bounds__(1024)
    dot_family_like(const float* x, const float* y, int n, float* c, float alpha, float beta) {
  constexpr int T = 1024, I = 2;
  __shared__ float sums[16];
  __shared__ float part[31][32];
  cg::cluster_group cl = cg::this_cluster();
  if (MODE & 8) asm volatile("barrier.cluster.arrive.relaxed.aligned;\n" ::: "memory");
  float s = partial<T, I, (MODE & 4) != 0>(x, y, n);
  if (MODE & 2) {
    for (int o = 16; o; o >>= 1) s += __shfl_xor_sync(~0u, s, o);
    const int kw = threadIdx.x / 32;
    if (kw > 0) part[kw - 1][threadIdx.x % 32] = s;
    __syncthreads();
    if (kw == 0)
      for (int q = 0; q < 31; ++q) s += part[q][threadIdx.x];
  } else {
    s = block_sum<T>(s);
  }
  if (MODE & 1) {
    if (threadIdx.x == 0) sums[0] = s;
    cl.sync();
    if (cl.block_rank() == 0 && threadIdx.x == 0) {
      float t = 0.f;
      for (unsigned i = 0; i < cl.num_blocks(); ++i) t += *cl.map_shared_rank(&sums[0], i);
      *c = alpha * t + (beta == 0.f ? 0.f : beta * *c);
    }
    cl.sync();
  } else {
    if (MODE & 8) asm volatile("barrier.cluster.wait.aligned;\n" ::: "memory");
    if (threadIdx.x == 0) *cl.map_shared_rank(&sums[cl.block_rank()], 0) = s;
    cl.sync();
    if (cl.block_rank() == 0 && threadIdx.x == 0) {
      float t = 0.f;
      for (unsigned i = 0; i < cl.num_blocks(); ++i) t += sums[i];
      *c = alpha * t + (beta == 0.f ? 0.f : beta * *c);
    }
  }
}
__global__ void store_kernel(float* c, float v) { *c = v; }

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
  for (int n : {1000, 100000, 1000000}) {
    float *x, *y, *c, *ws;
    unsigned* ticket;
    CK(cudaMalloc(&x, n * 4));
    CK(cudaMalloc(&y, n * 4));
    CK(cudaMalloc(&c, 4));
    CK(cudaMalloc(&ws, 1 << 20));
    CK(cudaMalloc(&ticket, 4));
    CK(cudaMemset(ticket, 0, 4));
    std::vector<float> hx(n), hy(n);
    double ref = 0;
    for (int i = 0; i < n; ++i) {
      hx[i] = float(rand()) / RAND_MAX - 0.5f;
      hy[i] = float(rand()) / RAND_MAX - 0.5f;
      ref += double(hx[i]) * hy[i];
    }
    CK(cudaMemcpy(x, hx.data(), n * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(y, hy.data(), n * 4, cudaMemcpyHostToDevice));
    const float alpha = 1.f, beta = 0.f;
    auto run = [&](const char* name, auto launch) {
      float poison = 1e30f;
      CK(cudaMemcpy(c, &poison, 4, cudaMemcpyHostToDevice));
      launch();
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      float got;
      CK(cudaMemcpy(&got, c, 4, cudaMemcpyDeviceToHost));
      std::vector<float> ms;
      for (int rep = 0; rep < 200; ++rep) {
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
      printf("n=%-9d %-22s %8.2f us  rel.err %.1e\n", n, name, ms[ms.size() / 2] * 1000,
             std::abs(got - ref) / std::abs(ref));
    };
    run("one store (floor)", [&] { store_kernel<<<1, 32>>>(c, float(ref)); });
    run("cublasSgemm 1x1xn", [&] {
      cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, n, &alpha, x, 1, y, n, &beta, c, 1);
    });
    run("cublasSdot (host ptr)", [&] {
      float r;
      cublasSdot(h, n, x, 1, y, 1, &r);
      cudaMemcpyAsync(c, &r, 4, cudaMemcpyHostToDevice);
    });
    const int n4 = n / 4;
    auto ticket_run = [&](auto kern, int T, int I, const char* name) {
      const int blocks = std::max(1, (n4 + T * I - 1) / (T * I));
      if (blocks > 4096) return;
      run(name, [&] { kern<<<blocks, T>>>(x, y, n, c, alpha, beta, ws, ticket); });
    };
    ticket_run(dot_ticket<1024, 1>, 1024, 1, "ticket 1024 x1");
    ticket_run(dot_ticket<1024, 2>, 1024, 2, "ticket 1024 x2");
    ticket_run(dot_ticket<256, 1>, 256, 1, "ticket 256 x1");
    ticket_run(dot_ticket<256, 4>, 256, 4, "ticket 256 x4");
    ticket_run(dot_ticket<512, 2>, 512, 2, "ticket 512 x2");
    ticket_run(dot_ticket<1024, 8>, 1024, 8, "ticket 1024 x8");
    auto cluster_run = [&](auto kern, int T, int I, const char* name) {
      const int blocks = std::max(1, (n4 + T * I - 1) / (T * I));
      if (blocks > 16) return;
      cudaFuncSetAttribute(kern, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
      cudaLaunchConfig_t cfg{};
      cfg.gridDim = dim3(blocks);
      cfg.blockDim = dim3(T);
      cudaLaunchAttribute a{};
      a.id = cudaLaunchAttributeClusterDimension;
      a.val.clusterDim.x = blocks;
      a.val.clusterDim.y = 1;
      a.val.clusterDim.z = 1;
      cfg.attrs = &a;
      cfg.numAttrs = 1;
      run(name, [&] { CK(cudaLaunchKernelEx(&cfg, kern, x, y, n, c, alpha, beta)); });
    };
    cluster_run(dot_cluster<1024, 2>, 1024, 2, "cluster 1024 x2");
    cluster_run(dot_cluster<1024, 4>, 1024, 4, "cluster 1024 x4");
    cluster_run(dot_cluster<512, 4>, 512, 4, "cluster 512 x4");
    cluster_run(dot_cluster<1024, 1>, 1024, 1, "cluster 1024 x1");
    auto family_run = [&](auto kern, const char* name) {
      if (n != 100000) return;
      cudaFuncSetAttribute(kern, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
      cudaLaunchConfig_t cfg{};
      cfg.gridDim = dim3(16);
      cfg.blockDim = dim3(1024);
      cudaLaunchAttribute a{};
      a.id = cudaLaunchAttributeClusterDimension;
      a.val.clusterDim.x = 16;
      a.val.clusterDim.y = 1;
      a.val.clusterDim.z = 1;
      cfg.attrs = &a;
      cfg.numAttrs = 1;
      run(name, [&] { CK(cudaLaunchKernelEx(&cfg, kern, x, y, n, c, alpha, beta)); });
    };
    for (int round = 0; round < 2; ++round) {
      cluster_run(dot_cluster<1024, 2>, 1024, 2, "cluster 1024 x2 (13)");
      family_run(dot_family_like<0>, "16x1024 lean");
      family_run(dot_family_like<1>, "16x1024 +ending");
      family_run(dot_family_like<2>, "16x1024 +warp sums");
      family_run(dot_family_like<4>, "16x1024 +plain loads");
      family_run(dot_family_like<8>, "16x1024 +start phase");
      family_run(dot_family_like<10>, "16x1024 +start+sums");
    }
    CK(cudaFree(x));
    CK(cudaFree(y));
    CK(cudaFree(c));
    CK(cudaFree(ws));
    CK(cudaFree(ticket));
  }
  return 0;
}
