// Repack copy probes: main's copy of a misaligned operand into rows padded to 4 floats
// (families/sgemm/kernels/pack.cuh, gemmtune_pack_operand, restated here) against variants with
// aligned 16-byte loads, each checked bit for bit against it, and an aligned copy of the same rows
// as a ceiling, with the tuner's timing protocol. Built and run by tools/gpu-probes.sh; what it
// measured: docs/PERFORMANCE.md, twenty-sixth session.
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#define CK(x)                                                     \
  do {                                                            \
    cudaError_t e = (x);                                          \
    if (e != cudaSuccess) {                                       \
      printf("CUDA %s at %d\n", cudaGetErrorString(e), __LINE__); \
      exit(1);                                                    \
    }                                                             \
  } while (0)
struct PackArgs {
  const float* src;
  float* dst;
  long long ld, stride, dst_ld, dst_stride;
  int rows, cols, batch;
};

// v0: main's copy
__global__ void v0(PackArgs p) {
  const long long quads = p.dst_ld / 4;
  for (int b = blockIdx.z; b < p.batch; b += gridDim.z)
    for (long long r = blockIdx.y * blockDim.y + threadIdx.y; r < p.rows;
         r += (long long)gridDim.y * blockDim.y) {
      const float* src = p.src + b * p.stride + r * p.ld;
      float* dst = p.dst + b * p.dst_stride + r * p.dst_ld;
      for (long long q = blockIdx.x * (long long)blockDim.x + threadIdx.x; q < quads;
           q += (long long)gridDim.x * blockDim.x) {
        const long long c = 4 * q;
        float4 v;
        v.x = c < p.cols ? src[c] : 0.f;
        v.y = c + 1 < p.cols ? src[c + 1] : 0.f;
        v.z = c + 2 < p.cols ? src[c + 2] : 0.f;
        v.w = c + 3 < p.cols ? src[c + 3] : 0.f;
        *reinterpret_cast<float4*>(dst + c) = v;
      }
    }
}

// The aligned 4-float chunk of row `row` (cols floats) starting at index `at` (may be < 0 or run past
// cols): one vector load when whole, else element by element with zeros outside.
__device__ __forceinline__ float4 chunk(const float* row, long long at, int cols) {
  if (at >= 0 && at + 4 <= cols) return __ldg(reinterpret_cast<const float4*>(row + at));
  float4 v;
  v.x = at >= 0 && at < cols ? row[at] : 0.f;
  v.y = at + 1 >= 0 && at + 1 < cols ? row[at + 1] : 0.f;
  v.z = at + 2 >= 0 && at + 2 < cols ? row[at + 2] : 0.f;
  v.w = at + 3 >= 0 && at + 3 < cols ? row[at + 3] : 0.f;
  return v;
}
// Floats s..s+3 of the 8 in (lo, hi).
__device__ __forceinline__ float4 shifted(float4 lo, float4 hi, int s) {
  switch (s) {
    case 0: return lo;
    case 1: return make_float4(lo.y, lo.z, lo.w, hi.x);
    case 2: return make_float4(lo.z, lo.w, hi.x, hi.y);
    default: return make_float4(lo.w, hi.x, hi.y, hi.z);
  }
}
// v1..: QPT quads per thread (q, q + blockDim.x, ...), two aligned chunk loads each (one when aligned).
template <int QPT>
__global__ void vshift(PackArgs p) {
  const long long quads = p.dst_ld / 4;
  for (int b = blockIdx.z; b < p.batch; b += gridDim.z)
    for (long long r = blockIdx.y * blockDim.y + threadIdx.y; r < p.rows;
         r += (long long)gridDim.y * blockDim.y) {
      const float* src = p.src + b * p.stride + r * p.ld;
      float* dst = p.dst + b * p.dst_stride + r * p.dst_ld;
      const int s = int((reinterpret_cast<unsigned long long>(src) / 4) & 3);
      for (long long q0 = blockIdx.x * (long long)blockDim.x * QPT + threadIdx.x; q0 < quads;
           q0 += (long long)gridDim.x * blockDim.x * QPT) {
        float4 lo[QPT], hi[QPT];
#pragma unroll
        for (int i = 0; i < QPT; ++i) {
          const long long q = q0 + i * blockDim.x;
          if (q < quads) {
            lo[i] = chunk(src, 4 * q - s, p.cols);
            hi[i] = s ? chunk(src, 4 * q - s + 4, p.cols) : lo[i];
          }
        }
#pragma unroll
        for (int i = 0; i < QPT; ++i) {
          const long long q = q0 + i * blockDim.x;
          if (q < quads) *reinterpret_cast<float4*>(dst + 4 * q) = shifted(lo[i], hi[i], s);
        }
      }
    }
}
// Ceiling: the same rows, aligned source (ld = dst_ld), one float4 per thread.
__global__ void vceil(PackArgs p) {
  const long long quads = p.dst_ld / 4;
  for (long long r = blockIdx.y * blockDim.y + threadIdx.y; r < p.rows;
       r += (long long)gridDim.y * blockDim.y)
    for (long long q = blockIdx.x * (long long)blockDim.x + threadIdx.x; q < quads;
         q += (long long)gridDim.x * blockDim.x)
      reinterpret_cast<float4*>(p.dst + r * p.dst_ld)[q] =
          __ldg(reinterpret_cast<const float4*>(p.src + r * p.dst_ld) + q);
}

static dim3 block_for(long long quads) {
  unsigned along = 1;
  while (along < 32 && along < quads) along *= 2;
  return dim3(along, 256 / along);
}
static dim3 grid_for(dim3 block, long long quads, int rows, int qpt) {
  return dim3(unsigned(std::min<long long>((quads + block.x * qpt - 1) / (block.x * qpt), 65535)),
              unsigned(std::min<long long>((rows + block.y - 1) / block.y, 65535)), 1);
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
  struct Shape {
    int rows, cols;
    long long ld;
    const char* what;
  };
  Shape shapes[] = {{4095, 2047, 2047, "A of 2047x1023x4095 tn"},
                    {4095, 1023, 1023, "B of 2047x1023x4095 tn"},
                    {1777, 1111, 1111, "A of 1777x2333x1111 nn"},
                    {1111, 2333, 2333, "B of 1777x2333x1111 nn"},
                    {2047, 3333, 3333, "A of 3333x777x2047 tt"},
                    {777, 2047, 2047, "B of 3333x777x2047 tt"},
                    {333, 333, 333, "333^3 operand"},
                    {4096, 2048, 2048, "aligned 4096 x 2048 (ceil)"},
                    {20011, 7, 9, "short rows (check)"},
                    {5, 1, 1, "one column (check)"}};
  printf("%-26s %-8s %9s %9s %9s\n", "operand", "variant", "us", "GB/s", "vs v0");
  for (const Shape& sh : shapes) {
    const long long dst_ld = (sh.cols + 3) / 4 * 4;
    const size_t src_n = size_t(sh.rows) * sh.ld + 1, dst_n = size_t(sh.rows) * dst_ld;
    float *src, *dst, *ref;
    CK(cudaMalloc(&src, src_n * 4));
    CK(cudaMalloc(&dst, dst_n * 4));
    CK(cudaMalloc(&ref, dst_n * 4));
    std::vector<float> h(src_n);
    for (size_t i = 0; i < src_n; ++i) h[i] = float(rand()) / RAND_MAX - 0.5f;
    CK(cudaMemcpy(src, h.data(), src_n * 4, cudaMemcpyHostToDevice));
    for (int off = 0; off < 2; ++off) {  // off 1: the matrix starts 4 bytes into the allocation
      PackArgs p{src + off, dst, sh.ld, 0, dst_ld, 0, sh.rows, sh.cols, 1};
      const long long quads = dst_ld / 4;
      const dim3 blk = block_for(quads);
      double base = 0;
      const char* names[] = {"v0", "shift1", "shift2", "shift4", "ceil"};
      for (int v = 0; v < 5; ++v) {
        if (v == 4 && (off || sh.ld % 4)) continue;
        auto launch = [&] {
          switch (v) {
            case 0: v0<<<grid_for(blk, quads, sh.rows, 1), blk>>>(p); break;
            case 1: vshift<1><<<grid_for(blk, quads, sh.rows, 1), blk>>>(p); break;
            case 2: vshift<2><<<grid_for(blk, quads, sh.rows, 2), blk>>>(p); break;
            case 3: vshift<4><<<grid_for(blk, quads, sh.rows, 4), blk>>>(p); break;
            case 4: vceil<<<grid_for(blk, quads, sh.rows, 1), blk>>>(p); break;
          }
        };
        CK(cudaMemset(dst, 0xff, dst_n * 4));
        launch();
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        if (v == 0)
          CK(cudaMemcpy(ref, dst, dst_n * 4, cudaMemcpyDeviceToDevice));
        else if (v < 4) {
          std::vector<float> a(dst_n), b(dst_n);
          CK(cudaMemcpy(a.data(), dst, dst_n * 4, cudaMemcpyDeviceToHost));
          CK(cudaMemcpy(b.data(), ref, dst_n * 4, cudaMemcpyDeviceToHost));
          if (memcmp(a.data(), b.data(), dst_n * 4)) {
            printf("MISMATCH %s %s off %d\n", sh.what, names[v], off);
            return 1;
          }
        }
        if (v == 0) {  // v0 against the host's expectation
          std::vector<float> a(dst_n);
          CK(cudaMemcpy(a.data(), dst, dst_n * 4, cudaMemcpyDeviceToHost));
          for (int r = 0; r < sh.rows; ++r)
            for (long long c = 0; c < dst_ld; ++c)
              if (a[r * dst_ld + c] != (c < sh.cols ? h[off + r * sh.ld + c] : 0.f)) {
                printf("v0 WRONG %s\n", sh.what);
                return 1;
              }
        }
        std::vector<float> ms;
        for (int rep = 0; rep < 60; ++rep) {
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
        const double us = ms[ms.size() / 2] * 1000;
        if (v == 0) base = us;
        const double gbs = double(sh.rows) * (sh.cols + dst_ld) * 4 / (us * 1e3);
        printf("%-26s %-8s %9.2f %9.0f %9.2f%s\n", sh.what, names[v], us, gbs, base / us,
               off ? "  (offset 1)" : "");
      }
    }
    CK(cudaFree(src));
    CK(cudaFree(dst));
    CK(cudaFree(ref));
  }
  return 0;
}
