// The FP32 GEMM kernel family, compiled at run time by NVRTC (GemmArgs is prepended when embedded).
//
// C = alpha * op(A) * op(B) + beta * C, row-major, any M, N, K >= 1, batched by blockIdx.z.
// A block computes a BM x BN tile of C stepping through K in BK slices; its warps each own a
// WM x WN warp tile; each thread accumulates a TM x TN tile in registers by outer products of
// fragments read from shared memory. Both operands live in shared memory K-major
// (As[k][m], Bs[k][n]) so that fragments are contiguous vectors; an operand whose K dimension is
// contiguous in global memory is transposed on the way in. A thread's tile is split into
// vector-wide chunks spread across the warp tile, so a warp reads a contiguous span of shared
// memory per chunk (no bank conflicts). Thin tiles whose rows all belong to each thread (BM <= 8,
// TM == BM, B not transposed: matrix-vector-like problems) skip shared memory and stream B from
// global memory into registers.
//
// Each knob is a template parameter; GemmConfig::validate() (runtime/src/config.cpp) states which
// combinations are valid, and the launcher (runtime/src/kernel.cpp) sizes the grid.
namespace gemmtune {

namespace detail {

// Copies `bytes` (4, 8 or 16) from global to shared memory asynchronously; zero-fills when !valid.
template <int BYTES>
__device__ __forceinline__ void cp_async(float* dst, const float* src, bool valid) {
  unsigned saddr = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  int src_bytes = valid ? BYTES : 0;
  if constexpr (BYTES == 16) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(saddr), "l"(src), "r"(src_bytes));
  } else {
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(saddr), "l"(src), "n"(BYTES),
                 "r"(src_bytes));
  }
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

// N consecutive floats as one access (N = 1, 2 or 4); the address must be N-float aligned.
template <int N>
struct Vec;
template <>
struct Vec<1> { float v[1]; };
template <>
struct __align__(8) Vec<2> { float v[2]; };
template <>
struct __align__(16) Vec<4> { float v[4]; };

template <int N>
__device__ __forceinline__ Vec<N> load_vec(const float* p) { return *reinterpret_cast<const Vec<N>*>(p); }

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

template <int N>
__device__ __forceinline__ void store_vec(float* p, const Vec<N>& v) { *reinterpret_cast<Vec<N>*>(p) = v; }

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

// Split-K in one launch. The first split of a tile to finish writes alpha * acc + beta * C with
// plain stores, like an unsplit kernel, and raises the tile's flag; every other split waits for
// the flag, then adds alpha * acc atomically. The first split never waits, so every wait ends.
// The tile's counter holds tickets (bits 0-9), splits done with the counter (bits 10-19) and the
// flag (bit 20); the last split done resets it, so counters are zero between launches.
struct SplitKCounter {
  static constexpr int kTicket = 1, kDone = 1 << 10, kFlag = 1 << 20;

  // Block-wide: takes this split's ticket; true for the first split. The others return once the
  // first split's C is visible (and are then done with the counter).
  template <int SPLITK>
  __device__ __forceinline__ static bool arrive(int* counter, int tid) {
    __shared__ int first;
    if (tid == 0) {
      first = (atomicAdd(counter, kTicket) & (kDone - 1)) == 0;
      if (!first) {
        while ((*reinterpret_cast<volatile int*>(counter) & kFlag) == 0) __nanosleep(32);
        __threadfence();
        leave<SPLITK>(counter, kDone);
      }
    }
    __syncthreads();
    return first;
  }
  // Block-wide, first split only, after its stores to C: makes them visible, raises the flag.
  template <int SPLITK>
  __device__ __forceinline__ static void publish(int* counter, int tid) {
    __threadfence();
    __syncthreads();
    if (tid == 0) leave<SPLITK>(counter, kFlag + kDone);
  }
  template <int SPLITK>
  __device__ __forceinline__ static void leave(int* counter, int add) {
    int before = atomicAdd(counter, add);
    if ((before / kDone) % (kFlag / kDone) == SPLITK - 1) atomicExch(counter, 0);  // the last one out
  }
};

// Moves one operand's BK-slice into shared memory laid out S[k][x], x in [0, X), row stride LDS.
// Global memory holds the operand either with x contiguous (rows are k) or with k contiguous
// (rows are x, transposed on the way in). Out-of-range elements become zeros.
template <int X, int BK, int LDS, int VEC, int THREADS, bool K_CONTIGUOUS>
struct TileLoader {
  static constexpr int kTotal = X * BK / VEC;                       // vectors in a slice
  static constexpr int kVectors = (kTotal + THREADS - 1) / THREADS;  // per thread (the last round may be partial)
  static constexpr int kPerRow = (K_CONTIGUOUS ? BK : X) / VEC;
  Vec<VEC> staged[kVectors];

  // Position of vector i of this thread: (x, k) of its first element.
  __device__ __forceinline__ static bool active(int tid, int i) {
    return kTotal % THREADS == 0 || tid + i * THREADS < kTotal;
  }
  __device__ __forceinline__ static void position(int tid, int i, int& x, int& k) {
    int v = tid + i * THREADS;
    int row = v / kPerRow, col = (v % kPerRow) * VEC;
    if (K_CONTIGUOUS) x = row, k = col; else k = row, x = col;
  }
  __device__ __forceinline__ static const float* address(const float* g, long long ld, int x, int k) {
    return K_CONTIGUOUS ? g + x * ld + k : g + k * ld + x;
  }

  // Stages 1-2: global -> registers now, registers -> shared later, overlapping the compute.
  __device__ __forceinline__ void load(const float* g, long long ld, int xlim, int klim, int tid) {
#pragma unroll
    for (int i = 0; i < kVectors; ++i) {
      int x, k;
      position(tid, i, x, k);
      if (active(tid, i) && x < xlim && k < klim) {
        staged[i] = load_vec<VEC>(address(g, ld, x, k));
      } else {
#pragma unroll
        for (int j = 0; j < VEC; ++j) staged[i].v[j] = 0.f;
      }
    }
  }
  __device__ __forceinline__ void store(float* s, int tid) const {
#pragma unroll
    for (int i = 0; i < kVectors; ++i) {
      if (!active(tid, i)) continue;
      int x, k;
      position(tid, i, x, k);
      if (K_CONTIGUOUS) {
#pragma unroll
        for (int j = 0; j < VEC; ++j) s[(k + j) * LDS + x] = staged[i].v[j];
      } else {
        store_vec<VEC>(s + k * LDS + x, staged[i]);
      }
    }
  }
  // Stages >= 3: global -> shared directly with cp.async (4-byte copies when transposing).
  __device__ __forceinline__ static void copy_async(float* s, const float* g, long long ld, int xlim, int klim,
                                                    int tid) {
#pragma unroll
    for (int i = 0; i < kVectors; ++i) {
      if (!active(tid, i)) continue;
      int x, k;
      position(tid, i, x, k);
      bool valid = x < xlim && k < klim;
      const float* src = valid ? address(g, ld, x, k) : g;
      if (K_CONTIGUOUS) {
#pragma unroll
        for (int j = 0; j < VEC; ++j) cp_async<4>(s + (k + j) * LDS + x, src + (valid ? j : 0), valid);
      } else {
        cp_async<4 * VEC>(s + k * LDS + x, src, valid);
      }
    }
  }
};

// Maps the linear block index to a tile so that groups of RASTER tile-rows are walked
// column by column: neighbouring blocks share B tiles and A tiles in L2.
template <int RASTER>
__device__ __forceinline__ void raster_tile(int bid, int tiles_m, int tiles_n, int& tile_m, int& tile_n) {
  if (RASTER == 1) {
    tile_m = bid / tiles_n, tile_n = bid % tiles_n;
    return;
  }
  int group = bid / (RASTER * tiles_n);
  int first_m = group * RASTER;
  int rows = min(tiles_m - first_m, RASTER);
  int local = bid - group * RASTER * tiles_n;
  tile_m = first_m + local % rows;
  tile_n = local / rows;
}

}  // namespace detail

// One instance of the family. Template parameters (see GemmConfig for their defaults):
//   BM, BN, BK   block tile of C and the K slice per stage
//   WM, WN       warp tile; (WM/TM) * (WN/TN) == 32
//   TM, TN       thread tile (accumulators per thread)
//   STAGES       1: load-sync-compute; 2: register prefetch (double buffer); >=3: cp.async ring
//   VEC          floats per global access (1, 2, 4)
//   PAD          floats of padding per shared row against bank conflicts
//   SPLITK       K slices computed by separate blocks: the first to finish stores, the others add
//                atomically (SplitKCounter)
//   RASTER       tile-rows per rasterization group
//   MINB         blocks per SM the registers are budgeted for (__launch_bounds__ minimum)
//   TA, TB       op(A), op(B) transposed
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int STAGES, int VEC, int PAD, int SPLITK,
          int RASTER, int MINB, bool TA, bool TB>
__global__ void __launch_bounds__((BM / WM) * (BN / WN) * 32, MINB) sgemm(GemmArgs p) {
  constexpr int kThreads = (BM / WM) * (BN / WN) * 32;
  constexpr int VM = TM < 4 ? TM : 4;  // fragment vector widths
  constexpr int VN = TN < 4 ? TN : 4;
  constexpr int TX = WN / TN;  // warp threads along n
  constexpr int TY = WM / TM;  // warp threads along m
  constexpr int LDA = BM + PAD, LDB = BN + PAD;
  // Thin tiles with every row in each thread stream B from global memory (GemmConfig::streams_b).
  constexpr bool kStreamB = BM <= 8 && TM == BM && !TB;
  constexpr int kStageA = BK * LDA, kStageB = BK * LDB;
  // A is K-contiguous in global memory unless transposed; B is K-contiguous when transposed.
  using LoaderA = detail::TileLoader<BM, BK, LDA, VEC, kThreads, !TA>;
  using LoaderB = detail::TileLoader<BN, BK, LDB, VEC, kThreads, TB>;

  extern __shared__ __align__(16) float smem[];
  float* As = smem;
  float* Bs = smem + STAGES * kStageA;

  const int tid = threadIdx.x;
  const int tiles_m = (p.m + BM - 1) / BM, tiles_n = (p.n + BN - 1) / BN;
  int tile_m, tile_n;
  detail::raster_tile<RASTER>(blockIdx.x, tiles_m, tiles_n, tile_m, tile_n);
  const int m0 = tile_m * BM, n0 = tile_n * BN;
  const int batch = blockIdx.z / SPLITK, split = blockIdx.z % SPLITK;

  // This block's share of K: whole BK slices, so split boundaries never cut a vector.
  const int k_chunk = ((p.k + SPLITK - 1) / SPLITK + BK - 1) / BK * BK;
  const int k_begin = split * k_chunk;
  const int k_end = min(p.k, k_begin + k_chunk);
  if (k_begin >= k_end) return;  // never for split-K: GemmConfig::can_implement gives every split work
  const int num_tiles = (k_end - k_begin + BK - 1) / BK;

  // Each operand's base at (x0, k_begin); per-slice advance along k.
  const float* ga = p.a + batch * p.stride_a + (TA ? k_begin * p.lda + m0 : m0 * p.lda + k_begin);
  const float* gb = p.b + batch * p.stride_b + (TB ? n0 * p.ldb + k_begin : k_begin * p.ldb + n0);
  const long long step_a = TA ? BK * p.lda : BK;
  const long long step_b = TB ? BK : BK * p.ldb;
  const int xlim_a = p.m - m0, xlim_b = p.n - n0;

  // Thread position: warp tile origin, lane position inside the warp's thread grid.
  const int warp = tid / 32, lane = tid % 32;
  const int wm0 = (warp / (BN / WN)) * WM, wn0 = (warp % (BN / WN)) * WN;
  const int ty = lane / TX, tx = lane % TX;
  const int row0 = wm0 + ty * VM, col0 = wn0 + tx * VN;  // first element of chunk 0

  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.f;

  auto compute = [&](const float* as, const float* bs) {
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      float fa[TM], fb[TN];
#pragma unroll
      for (int c = 0; c < TM / VM; ++c) {
        auto v = detail::load_vec<VM>(as + kk * LDA + row0 + c * TY * VM);
#pragma unroll
        for (int j = 0; j < VM; ++j) fa[c * VM + j] = v.v[j];
      }
#pragma unroll
      for (int c = 0; c < TN / VN; ++c) {
        auto v = detail::load_vec<VN>(bs + kk * LDB + col0 + c * TX * VN);
#pragma unroll
        for (int j = 0; j < VN; ++j) fb[c * VN + j] = v.v[j];
      }
      // The longer fragment in the outer loop: measured faster for both 16x8 and 8x16 tiles.
      if constexpr (TM >= TN) {
#pragma unroll
        for (int i = 0; i < TM; ++i)
#pragma unroll
          for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(fa[i], fb[j], acc[i][j]);
      } else {
#pragma unroll
        for (int j = 0; j < TN; ++j)
#pragma unroll
          for (int i = 0; i < TM; ++i) acc[i][j] = fmaf(fa[i], fb[j], acc[i][j]);
      }
    }
  };

  // Epilogue and streaming loads move W floats at a time (W <= VEC keeps the alignment the
  // dispatcher checked); a thread's VN-wide chunks come in whole vectors, so one test each.
  constexpr int W = VEC < VN ? VEC : VN;

  if constexpr (kStreamB) {
    // Thin tile, all rows in each thread (TY == 1, row0 == 0): each element of B is used by one
    // thread only, so B streams from global memory straight into registers and A's TM values
    // per k, the same for the whole warp, come as broadcast loads. No shared memory, no
    // barriers. Two register sets of BK rows: the next rows load while this set's FMAs run.
    using BRows = detail::Vec<W>[BK][TN / W];
    using ARows = float[BK][TM];
    const float* a0 = p.a + batch * p.stride_a;
    const float* b0 = p.b + batch * p.stride_b;
    auto load = [&](BRows& bv, ARows& av, int k0) {
#pragma unroll
      for (int u = 0; u < BK; ++u) {
        const int k = k0 + u;
#pragma unroll
        for (int v = 0; v < TN / W; ++v) {
          const int col = n0 + col0 + (v * W / VN) * TX * VN + (v * W) % VN;
          if (k < k_end && col < p.n) {
            bv[u][v] = detail::load_vec_once<W>(b0 + static_cast<long long>(k) * p.ldb + col);
          } else {
#pragma unroll
            for (int j = 0; j < W; ++j) bv[u][v].v[j] = 0.f;
          }
        }
#pragma unroll
        for (int i = 0; i < TM; ++i) {
          const int r = m0 + i;
          const float* a = TA ? a0 + static_cast<long long>(k) * p.lda + r : a0 + static_cast<long long>(r) * p.lda + k;
          av[u][i] = k < k_end && r < p.m ? __ldg(a) : 0.f;
        }
      }
    };
    // acc[i][v * W + j] is column chunk (v * W) / VN, element (v * W) % VN + j: the epilogue's order.
    auto multiply = [&](const BRows& bv, const ARows& av) {
#pragma unroll
      for (int u = 0; u < BK; ++u)
#pragma unroll
        for (int i = 0; i < TM; ++i)
#pragma unroll
          for (int v = 0; v < TN / W; ++v)
#pragma unroll
            for (int j = 0; j < W; ++j) acc[i][v * W + j] = fmaf(av[u][i], bv[u][v].v[j], acc[i][v * W + j]);
    };
    BRows b_even, b_odd;
    ARows a_even, a_odd;
    load(b_even, a_even, k_begin);
    for (int k0 = k_begin; k0 < k_end; k0 += 2 * BK) {
      if (k0 + BK < k_end) load(b_odd, a_odd, k0 + BK);
      multiply(b_even, a_even);
      if (k0 + BK >= k_end) break;
      if (k0 + 2 * BK < k_end) load(b_even, a_even, k0 + 2 * BK);
      multiply(b_odd, a_odd);
    }
  } else if constexpr (STAGES <= 2) {
    LoaderA la;
    LoaderB lb;
    la.load(ga, p.lda, xlim_a, k_end - k_begin, tid);
    lb.load(gb, p.ldb, xlim_b, k_end - k_begin, tid);
    la.store(As, tid);
    lb.store(Bs, tid);
    __syncthreads();
    for (int t = 0; t < num_tiles; ++t) {
      const int cur = STAGES == 2 ? t % 2 : 0;
      const bool more = t + 1 < num_tiles;
      const int klim = k_end - k_begin - (t + 1) * BK;
      if (STAGES == 2 && more) {  // prefetch the next slice into registers while computing
        la.load(ga + (t + 1) * step_a, p.lda, xlim_a, klim, tid);
        lb.load(gb + (t + 1) * step_b, p.ldb, xlim_b, klim, tid);
      }
      compute(As + cur * kStageA, Bs + cur * kStageB);
      if (more) {
        if (STAGES == 1) {
          __syncthreads();  // everyone is done reading the single buffer
          la.load(ga + (t + 1) * step_a, p.lda, xlim_a, klim, tid);
          lb.load(gb + (t + 1) * step_b, p.ldb, xlim_b, klim, tid);
        }
        const int next = STAGES == 2 ? (t + 1) % 2 : 0;
        la.store(As + next * kStageA, tid);
        lb.store(Bs + next * kStageB, tid);
        __syncthreads();
      }
    }
  } else {
    // cp.async ring of STAGES buffers: STAGES-1 slices in flight while one is computed.
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
      if (s < num_tiles) {
        const int klim = k_end - k_begin - s * BK;
        LoaderA::copy_async(As + s * kStageA, ga + s * step_a, p.lda, xlim_a, klim, tid);
        LoaderB::copy_async(Bs + s * kStageB, gb + s * step_b, p.ldb, xlim_b, klim, tid);
      }
      detail::cp_async_commit();
    }
    for (int t = 0; t < num_tiles; ++t) {
      detail::cp_async_wait<STAGES - 2>();
      __syncthreads();  // slice t is visible; everyone finished computing slice t-1
      const int load = t + STAGES - 1;
      if (load < num_tiles) {
        const int buf = load % STAGES, klim = k_end - k_begin - load * BK;
        LoaderA::copy_async(As + buf * kStageA, ga + load * step_a, p.lda, xlim_a, klim, tid);
        LoaderB::copy_async(Bs + buf * kStageB, gb + load * step_b, p.ldb, xlim_b, klim, tid);
      }
      detail::cp_async_commit();
      compute(As + (t % STAGES) * kStageA, Bs + (t % STAGES) * kStageB);
    }
    detail::cp_async_wait<0>();
  }

  // Split-K: the first split to finish writes C; the others wait for it, then add to it.
  int* const tile_counter = p.tile_counters + static_cast<long long>(batch) * gridDim.x + blockIdx.x;
  bool store_c = true;
  if constexpr (SPLITK > 1) store_c = detail::SplitKCounter::arrive<SPLITK>(tile_counter, tid);

  // Epilogue: each chunk of VN columns is written with vectors of W floats.
  float* gc = p.c + batch * p.stride_c;
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int r = m0 + row0 + (i / VM) * TY * VM + i % VM;
    if (r >= p.m) continue;
#pragma unroll
    for (int c = 0; c < TN / VN; ++c) {
#pragma unroll
      for (int w = 0; w < VN / W; ++w) {
        const int col = n0 + col0 + c * TX * VN + w * W;
        if (col >= p.n) continue;
        float* dst = gc + r * p.ldc + col;
        detail::Vec<W> out;
        if (SPLITK > 1 && !store_c) {
#pragma unroll
          for (int j = 0; j < W; ++j) out.v[j] = p.alpha * acc[i][c * VN + w * W + j];
          detail::atomic_add_vec<W>(dst, out);
          continue;
        }
        if (p.beta == 0.f) {  // C is not read: NaN in an uninitialised C must not leak in
#pragma unroll
          for (int j = 0; j < W; ++j) out.v[j] = p.alpha * acc[i][c * VN + w * W + j];
        } else {
          detail::Vec<W> old = detail::load_vec<W>(dst);
#pragma unroll
          for (int j = 0; j < W; ++j) out.v[j] = fmaf(p.alpha, acc[i][c * VN + w * W + j], p.beta * old.v[j]);
        }
        detail::store_vec<W>(dst, out);
      }
    }
  }
  if constexpr (SPLITK > 1) {
    if (store_c) detail::SplitKCounter::publish<SPLITK>(tile_counter, tid);
  }
}

}  // namespace gemmtune
