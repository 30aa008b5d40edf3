// Memory primitives of the FP32 GEMM family: vector loads and stores, cp.async, vector atomics.
namespace gemmtune {
namespace detail {

// Copies `bytes` (4, 8 or 16) from global to shared memory asynchronously; zero-fills when !valid.
// Each copy asks L2 to fetch the whole 128-byte line (.L2::128B), as cuBLAS's FFMA kernels'
// copies do: a warp's narrow copies of a slice's row then find the rest of the line in L2.
template <int BYTES>
__device__ __forceinline__ void cp_async(float* dst, const float* src, bool valid) {
  unsigned saddr = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  int src_bytes = valid ? BYTES : 0;
  if constexpr (BYTES == 16) {
    asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16, %2;\n" ::"r"(saddr), "l"(src),
                 "r"(src_bytes));
  } else {
    asm volatile("cp.async.ca.shared.global.L2::128B [%0], [%1], %2, %3;\n" ::"r"(saddr), "l"(src),
                 "n"(BYTES), "r"(src_bytes));
  }
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

// N consecutive floats as one access (N = 1, 2 or 4); the address must be N-float aligned.
template <int N>
struct Vec;
template <>
struct Vec<1> {
  float v[1];
};
template <>
struct __align__(8) Vec<2> {
  float v[2];
};
template <>
struct __align__(16) Vec<4> {
  float v[4];
};

template <int N>
__device__ __forceinline__ Vec<N> load_vec(const float* p) {
  return *reinterpret_cast<const Vec<N>*>(p);
}

// The same for data read once (a matrix-vector product's matrix): evict-first in L1 and L2, so
// that streaming it through the cache does not push out lines that are still wanted (or dirty
// lines, whose write-back would then compete with the stream for DRAM bandwidth).
template <int N>
__device__ __forceinline__ Vec<N> load_vec_once(const float* p) {
  Vec<N> v;
  if constexpr (N == 4) {
    float4 f = __ldcs(reinterpret_cast<const float4*>(p));
    v.v[0] = f.x, v.v[1] = f.y, v.v[2] = f.z, v.v[3] = f.w;
  } else if constexpr (N == 2) {
    float2 f = __ldcs(reinterpret_cast<const float2*>(p));
    v.v[0] = f.x, v.v[1] = f.y;
  } else {
    v.v[0] = __ldcs(p);
  }
  return v;
}

// The same, evict-first in L2 only: L1 keeps the line for the neighbouring pieces that later
// loads of a narrowed run take from it (see ReductionMainloop).
template <int N>
__device__ __forceinline__ Vec<N> load_vec_once_l2(const float* p) {
  unsigned long long policy;
  asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
  Vec<N> v;
  if constexpr (N == 2) {
    asm("ld.global.L1::evict_normal.L2::cache_hint.v2.f32 {%0, %1}, [%2], %3;"
        : "=f"(v.v[0]), "=f"(v.v[1])
        : "l"(p), "l"(policy));
  } else {
    static_assert(N == 1, "whole runs use load_vec_once");
    asm("ld.global.L1::evict_normal.L2::cache_hint.f32 %0, [%1], %2;"
        : "=f"(v.v[0])
        : "l"(p), "l"(policy));
  }
  return v;
}

template <int N>
__device__ __forceinline__ void store_vec(float* p, const Vec<N>& v) {
  *reinterpret_cast<Vec<N>*>(p) = v;
}

// dst[j] += v[j] atomically; one vector atomic per call on sm_90 and newer (4x fewer atomics
// for split-K's epilogue), one per float before.
template <int N>
__device__ __forceinline__ void atomic_add_vec(float* dst, const Vec<N>& v) {
#if __CUDA_ARCH__ >= 900
  if constexpr (N == 4) {
    atomicAdd(reinterpret_cast<float4*>(dst), make_float4(v.v[0], v.v[1], v.v[2], v.v[3]));
    return;
  } else if constexpr (N == 2) {
    atomicAdd(reinterpret_cast<float2*>(dst), make_float2(v.v[0], v.v[1]));
    return;
  }
#endif
#pragma unroll
  for (int j = 0; j < N; ++j) atomicAdd(dst + j, v.v[j]);
}

}  // namespace detail
}  // namespace gemmtune
