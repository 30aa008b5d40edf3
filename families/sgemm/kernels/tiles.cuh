// The tiling of the FP32 GEMM family: an instance's knobs and derived shapes (Traits), a block's
// share of the problem (BlockWork), a thread's accumulators and the fragment step (WarpTile), and
// the movement of BK-slices of A and B into shared memory (TileLoader, OperandSlices).
namespace gemmtune {
namespace detail {

// The knobs of one instance (the kernel's template parameters, same names) and the shapes that
// follow from them, for every component to read. The path and the shapes the host sizes too come
// from gemmtune/sgemm/shapes.hpp (embedded before this file). Derived:
//   kPath           the kernel path, KernelPath(kPath): which Mainloop runs (mainloops.cuh)
//   kOutputWarps    warps that own the block tile's outputs; KW > 1 repeats them along K
//   kThreads        threads per block
//   VM, VN          fragment vector widths: a thread's TM x TN tile is chunks of VM x VN (VN
//                   narrowed with streamed B: see below)
//   TX, TY          the warp's grid of thread tiles: TX along n, TY along m (TX * TY = 32 / KL)
//   KL, KW          lanes of a warp, and warps, sharing each thread tile's K range (the
//                   reduction path when either is > 1)
//   LDA, LDB        row strides of the shared-memory operands As[k][m], Bs[k][n]
//   kStageA/B       floats per pipeline stage of each operand in shared memory
//   W               floats per chunk of C and of streamed B: W <= VEC, and a thread's VN-wide
//                   chunks come in whole W-float chunks
//   GA, GB, GC      floats per global access of A, B and C (each divides VEC): VEC narrowed to
//                   the data's alignment (OperandSlices, TileLoader); WC and WB are the access
//                   widths of C and of streamed B (<= W)
//   kStageC         the Epilogue writes C through shared memory (GemmConfig::stage_c)
//   kWindowC        the Epilogue writes C in aligned windows (GemmConfig::window_c)
//   kOrderedSplits  a split reduction's last split adds the splits' sums (GemmConfig::ordered_splits)
//   kPrescaleC      C holds beta * C before the kernel starts (gemmtune_prescale_c): splits only
//                   add (GemmConfig::prescale_c)
//   kClusterSplits  a split reduction's splits are one cluster's blocks and add their sums in
//                   distributed shared memory (GemmConfig::cluster_splits)
//   kSplitTail      SPLIT_K splits only the tiles past whole rounds of one per SM (BlockWork;
//                   GemmConfig::split_tail)
//   kReduce         the reduction path (KL or KW > 1)
//   kStreamB        the streamed thin tile path: every row in each thread, B streamed from
//                   global memory (GemmConfig::streams_b)
//   kMma            tensor-core math (MATH > 0): mma.cuh's step, or the warpgroup instruction's
// Enumerators rather than static constexpr members: NVRTC emits each of those as a global
// variable in the cubin.
template <int BM_, int BN_, int BK_, int WM_, int WN_, int TM_, int TN_, int STAGES_, int VEC_,
          int PAD_, int SPLIT_K_, int RASTER_, int OCCUPANCY_, int K_LANES_, int K_WARPS_,
          int MATH_, int WGMMA_, bool TA_, bool TB_, int GA_, int GB_, int GC_,
          bool STAGE_C_ = false, bool SPLIT_TAIL_ = false, bool WINDOW_C_ = false,
          bool ORDERED_SPLITS_ = false, bool PRESCALE_C_ = false, bool PLAIN_NARROW_RUNS_ = false,
          bool CLUSTER_SPLITS_ = false, bool EARLY_BARRIER_ = false>
struct Traits {
  // clang-format off
  enum : int {
    BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_, TM = TM_, TN = TN_,
    STAGES = STAGES_, VEC = VEC_, PAD = PAD_, SPLIT_K = SPLIT_K_, RASTER = RASTER_,
    OCCUPANCY = OCCUPANCY_, KL = K_LANES_, KW = K_WARPS_, MATH = MATH_, WGMMA = WGMMA_,

    kPath = int(kernel_path(BM, TM, STAGES, KL, KW, MATH, WGMMA, TB_)),
    kOutputWarps = output_warps(BM, BN, WM, WN),
    kThreads = block_threads(BM, BN, WM, WN, KW),
    // The tensor-core step's accumulators (mma.cuh): rows 8 apart, column pairs 8 apart; streamed
    // B read narrowed: chunks of GB columns (chunk_columns).
    VM = chunk_rows(MATH, TM),
    VN = chunk_columns(KernelPath(kPath), MATH, TN, GB_),
    TX = WN / TN,
    TY = WM / TM,
    // Shared memory: K-major (S[k][x]) for the FMA step, which reads vectors along x. The
    // tensor-core step keeps each operand as it lies in global memory (K-contiguous ones as
    // S[x][k]), padded so that its fragment reads (8 x along, 4 k) hit 32 banks.
    LDA = smem_row_a(MATH, TA_, BM, BK, PAD),
    LDB = smem_row_b(MATH, TB_, BN, BK, PAD),
    kStageA = stage_floats_a(MATH, TA_, BM, BK, PAD),
    kStageB = stage_floats_b(MATH, TB_, BN, BK, PAD),
    // Accumulator rows: the tensor-core variants 3 and 4 sum each slice apart.
    kAccRows = accumulator_rows(MATH, TM),
    W = VEC < VN ? VEC : VN,
    GA = GA_, GB = GB_, GC = GC_,
    WC = GC < W ? GC : W,
    WB = GB < W ? GB : W,
  };
  enum : bool {
    TA = TA_, TB = TB_,
    kReduce = KernelPath(kPath) == KernelPath::reduction,
    kStreamB = KernelPath(kPath) == KernelPath::streamed_tile,
    kMma = tensor_core_math(MATH),
    kStageC = STAGE_C_,
    kSplitTail = SPLIT_TAIL_,
    kWindowC = WINDOW_C_,
    kOrderedSplits = ORDERED_SPLITS_,
    kPrescaleC = PRESCALE_C_,
    kPlainNarrowRuns = PLAIN_NARROW_RUNS_,
    kClusterSplits = CLUSTER_SPLITS_,
    kEarlyBarrier = EARLY_BARRIER_,
  };
  // clang-format on
};

// Maps the linear block index to a tile so that groups of RASTER tile-rows are walked
// column by column: neighbouring blocks share B tiles and A tiles in L2.
template <int RASTER>
__device__ __forceinline__ void raster_tile(int bid, int tiles_m, int tiles_n, int& tile_m,
                                            int& tile_n) {
  // One row or column of tiles (a matrix-vector product, a dot): the order is the index, and
  // the two divisions by run-time values below would only delay a short kernel's first loads.
  if (tiles_n == 1 || tiles_m == 1) {
    tile_m = tiles_n == 1 ? bid : 0, tile_n = tiles_n == 1 ? 0 : bid;
    return;
  }
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

// The matrices of batch `batch`: through the device pointer arrays when the call gave them, else
// by stride. The one place the kernels find a batch's operands (one uniform branch).
__device__ __forceinline__ const float* batch_a(const GemmArgs& p, int batch) {
  return p.pointer_arrays ? p.a_array[batch] : p.a + batch * p.stride_a;
}
__device__ __forceinline__ const float* batch_b(const GemmArgs& p, int batch) {
  return p.pointer_arrays ? p.b_array[batch] : p.b + batch * p.stride_b;
}
__device__ __forceinline__ float* batch_c(const GemmArgs& p, int batch) {
  return p.pointer_arrays ? p.c_array[batch] : p.c + batch * p.stride_c;
}

// A block's work: the BM x BN tile of C at (m0, n0) of matrix `batch`, over K in [k_begin, k_end).
// blockIdx.x is the tile (rasterized), blockIdx.z is batch * SPLIT_K + split; splits take whole
// BK slices (split_range).
// With kSplitTail (one matrix) blockIdx.x runs over the first `whole` tiles (whole rounds of one
// per SM), each a block of its own over all of K, then SPLIT_K blocks for each tile left: the
// host sizes the grid as whole + (tiles - whole) * SPLIT_K, so `whole` follows from gridDim.x.
// `tile` is then the tile's index (its split-K counter) and `split` whether it is split.
struct BlockWork {
  int m0, n0, batch, k_begin, k_end;
  int tile;
  bool split;

  template <class Cfg>
  __device__ __forceinline__ static BlockWork of(const GemmArgs& p) {
    const int tiles_m = (p.m + Cfg::BM - 1) / Cfg::BM, tiles_n = (p.n + Cfg::BN - 1) / Cfg::BN;
    if constexpr (Cfg::kSplitTail) return of_split_tail<Cfg>(p, tiles_m, tiles_n);
    int tile_m, tile_n;
    raster_tile<Cfg::RASTER>(blockIdx.x, tiles_m, tiles_n, tile_m, tile_n);
    BlockWork w;
    w.m0 = tile_m * Cfg::BM, w.n0 = tile_n * Cfg::BN;
    w.batch = blockIdx.z / Cfg::SPLIT_K;
    w.split_range<Cfg>(p, blockIdx.z % Cfg::SPLIT_K);
    return w;
  }

  // Split `split`'s share of K: whole BK slices (split boundaries never cut a vector), spread as
  // evenly as they go, so that every split has work wherever K has SPLIT_K slices (K = 4099 in
  // 64 splits of 16: 4 or 5 slices each, where rounding one share up to whole slices left the
  // last splits none).
  template <class Cfg>
  __device__ __forceinline__ void split_range(const GemmArgs& p, int split) {
    const long long slices = (static_cast<long long>(p.k) + Cfg::BK - 1) / Cfg::BK;
    k_begin = int(split * slices / Cfg::SPLIT_K * Cfg::BK);
    k_end = int(min(static_cast<long long>(p.k), (split + 1) * slices / Cfg::SPLIT_K * Cfg::BK));
  }

  template <class Cfg>
  __device__ __forceinline__ static BlockWork of_split_tail(const GemmArgs& p, int tiles_m,
                                                            int tiles_n) {
    static_assert(Cfg::SPLIT_K > 1, "split_tail splits the tiles past whole rounds");
    const int tiles = tiles_m * tiles_n;
    const int whole = tiles - (int(gridDim.x) - tiles) / (Cfg::SPLIT_K - 1);
    BlockWork w;
    w.batch = 0;
    w.split = int(blockIdx.x) >= whole;
    const int piece = int(blockIdx.x) - whole;
    w.tile = w.split ? whole + piece / Cfg::SPLIT_K : int(blockIdx.x);
    int tile_m, tile_n;
    raster_tile<Cfg::RASTER>(w.tile, tiles_m, tiles_n, tile_m, tile_n);
    w.m0 = tile_m * Cfg::BM, w.n0 = tile_n * Cfg::BN;
    if (!w.split) {
      w.k_begin = 0, w.k_end = p.k;
    } else {
      w.split_range<Cfg>(p, piece % Cfg::SPLIT_K);
    }
    return w;
  }
  // No K to work on: never for split-K, whose every split GemmConfig::can_implement gives work.
  __device__ __forceinline__ bool empty() const { return k_begin >= k_end; }
};

// A thread's accumulators: its TM x TN tile of C, in registers. Their place in the block tile is
// the thread's WarpTile.
// Rows TM.. (kAccRows > TM): a slice's sums in the tensor core (mma.cuh, MATH >= 3).
template <class Cfg>
using Accumulators = float[Cfg::kAccRows][Cfg::TN];

template <class Cfg>
__device__ __forceinline__ void clear(Accumulators<Cfg>& acc) {
#pragma unroll
  for (int i = 0; i < Cfg::kAccRows; ++i)
#pragma unroll
    for (int j = 0; j < Cfg::TN; ++j) acc[i][j] = 0.f;
}

// One thread's place in its warp's WM x WN tile of C: its TM x TN accumulators are VM x VN chunks
// spread across the warp tile (chunk (a, b) starts at row row0 + a * TY * VM, column
// col0 + b * TX * VN of the block tile), so that a warp reads a contiguous span of shared memory
// per chunk (no bank conflicts). compute() is the fragment step of the shared-memory mainloops:
// for each k of a BK slice it reads the thread's A and B fragments from As[k][m] and Bs[k][n] as
// vectors and accumulates their outer product. (The accumulators are kept apart from row0 and
// col0, in an array of their own, so that the compiler keeps both in registers from the start.)
// The tensor-core variants (MATH > 0) step with mma_slice() instead (mma.cuh); their lane
// layout is the same formula (TX = 4, TY = 8, VM = 1, VN = 2): row0 = warp row + lane / 4,
// col0 = warp column + 2 (lane % 4).
template <class Cfg>
struct WarpTile {
  int row0, col0;  // block-tile position of chunk (0, 0)

  __device__ __forceinline__ explicit WarpTile(int tid) {
    // A reduction's KL neighbouring lanes, and its KW warps kOutputWarps apart, share one
    // thread tile (ReductionMainloop).
    const int warp = Cfg::KW == 1 ? tid / 32 : (tid / 32) % Cfg::kOutputWarps,
              lane = (tid % 32) / Cfg::KL;
    const int wm0 = (warp / (Cfg::BN / Cfg::WN)) * Cfg::WM,
              wn0 = (warp % (Cfg::BN / Cfg::WN)) * Cfg::WN;
    const int ty = lane / Cfg::TX, tx = lane % Cfg::TX;
    row0 = wm0 + ty * Cfg::VM, col0 = wn0 + tx * Cfg::VN;
  }

  __device__ __forceinline__ void compute(Accumulators<Cfg>& acc, const float* as,
                                          const float* bs) const {
    if constexpr (Cfg::kMma) {
      // B's fragment column is the lane's group (row0's offset in the warp tile), t its k.
      const int t = (col0 % Cfg::WN) / 2;
      mma_slice<Cfg>(acc, as, bs, row0, col0 - 2 * t + (row0 % Cfg::WM), t);
      return;
    }
    steps(acc, as, bs, 0, Cfg::BK);
  }

  // The FMA step: k-steps [first, last) of a slice (!kMma).
  __device__ __forceinline__ void steps(Accumulators<Cfg>& acc, const float* as, const float* bs,
                                        int first, int last) const {
#pragma unroll
    for (int kk = first; kk < last; ++kk) {
      float fa[Cfg::TM], fb[Cfg::TN];
      fragments(as, bs, kk, fa, fb);
      multiply(acc, fa, fb);
    }
  }
  // The thread's A and B fragments of k-step kk, as vectors from As[k][m] and Bs[k][n].
  __device__ __forceinline__ void fragments(const float* as, const float* bs, int kk,
                                            float (&fa)[Cfg::TM], float (&fb)[Cfg::TN]) const {
    constexpr int TM = Cfg::TM, TN = Cfg::TN, VM = Cfg::VM, VN = Cfg::VN;
#pragma unroll
    for (int c = 0; c < TM / VM; ++c) {
      auto v = load_vec<VM>(as + kk * Cfg::LDA + row0 + c * Cfg::TY * VM);
#pragma unroll
      for (int j = 0; j < VM; ++j) fa[c * VM + j] = v.v[j];
    }
#pragma unroll
    for (int c = 0; c < TN / VN; ++c) {
      auto v = load_vec<VN>(bs + kk * Cfg::LDB + col0 + c * Cfg::TX * VN);
#pragma unroll
      for (int j = 0; j < VN; ++j) fb[c * VN + j] = v.v[j];
    }
  }
  // The outer product of one k-step's fragments into the accumulators.
  __device__ __forceinline__ static void multiply(Accumulators<Cfg>& acc,
                                                  const float (&fa)[Cfg::TM],
                                                  const float (&fb)[Cfg::TN]) {
    constexpr int TM = Cfg::TM, TN = Cfg::TN;
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

// Moves one operand's BK-slice into shared memory laid out S[k][x], x in [0, X), row stride LDS.
// Global memory holds the operand either with x contiguous (rows are k) or with k contiguous
// (rows are x, transposed on the way in). Out-of-range elements become zeros. Each thread moves
// VEC-float chunks, reading global memory GW floats at a time (GW < VEC where the operand's data
// is not aligned to VEC: the pieces then have their own bounds tests). Through registers (load,
// store), the chunk still goes to shared memory as one vector; cp.async has no such store to
// save, so its loader is instantiated with VEC = GW (OperandSlices): lanes then read adjacent
// pieces, which coalesces better. KEEP (the tensor-core step) keeps a K-contiguous operand as it
// is, S[x][k] with row stride LDS, so that it moves in whole vectors too.
template <int X, int BK, int LDS, int VEC, int THREADS, bool K_CONTIGUOUS, int GW,
          bool KEEP = false>
struct TileLoader {
  static constexpr int kTotal = X * BK / VEC;  // vectors in a slice
  // Per thread (the last round may be partial).
  static constexpr int kVectors = (kTotal + THREADS - 1) / THREADS;
  static constexpr int kPerRow = (K_CONTIGUOUS ? BK : X) / VEC;
  Vec<VEC> staged[kVectors];

  // Position of vector i of this thread: (x, k) of its first element.
  __device__ __forceinline__ static bool active(int tid, int i) {
    return kTotal % THREADS == 0 || tid + i * THREADS < kTotal;
  }
  __device__ __forceinline__ static void position(int tid, int i, int& x, int& k) {
    int v = tid + i * THREADS;
    int row = v / kPerRow, col = (v % kPerRow) * VEC;
    if (K_CONTIGUOUS)
      x = row, k = col;
    else
      k = row, x = col;
  }
  __device__ __forceinline__ static const float* address(const float* g, long long ld, int x,
                                                         int k) {
    return K_CONTIGUOUS ? g + x * ld + k : g + k * ld + x;
  }
  // Stages 1-2: global -> registers now, registers -> shared later, overlapping the compute.
  __device__ __forceinline__ void load(const float* g, long long ld, int xlim, int klim, int tid) {
#pragma unroll
    for (int i = 0; i < kVectors; ++i) {
      int x, k;
      position(tid, i, x, k);
      if constexpr (GW == VEC) {
        if (active(tid, i) && x < xlim && k < klim) {
          staged[i] = load_vec<VEC>(address(g, ld, x, k));
        } else {
#pragma unroll
          for (int j = 0; j < VEC; ++j) staged[i].v[j] = 0.f;
        }
      } else {
        // Piece s lies GW * s floats further along the contiguous dimension: one address and
        // one bound per chunk, tested against constants. (Testing each piece's own position
        // kept all of them in registers: 40 more on 128x64 t8x8 tiles, one block fewer per SM.)
        const bool row_in = active(tid, i) && (K_CONTIGUOUS ? x < xlim : k < klim);
        const int reach = K_CONTIGUOUS ? klim - k : xlim - x;
        const float* src = address(g, ld, x, k);
#pragma unroll
        for (int s = 0; s < VEC / GW; ++s) {
          Vec<GW> v;
          if (row_in && s * GW < reach) {
            v = load_vec<GW>(src + s * GW);
          } else {
#pragma unroll
            for (int j = 0; j < GW; ++j) v.v[j] = 0.f;
          }
#pragma unroll
          for (int j = 0; j < GW; ++j) staged[i].v[s * GW + j] = v.v[j];
        }
      }
    }
  }
  __device__ __forceinline__ void store(float* s, int tid) const {
#pragma unroll
    for (int i = 0; i < kVectors; ++i) {
      if (!active(tid, i)) continue;
      int x, k;
      position(tid, i, x, k);
      if (K_CONTIGUOUS && !KEEP) {
#pragma unroll
        for (int j = 0; j < VEC; ++j) s[(k + j) * LDS + x] = staged[i].v[j];
      } else {
        store_vec<VEC>(s + (K_CONTIGUOUS ? x * LDS + k : k * LDS + x), staged[i]);
      }
    }
  }
  // Stages >= 3: global -> shared directly with cp.async (4-byte copies when transposing).
  __device__ __forceinline__ static void copy_async(float* s, const float* g, long long ld,
                                                    int xlim, int klim, int tid) {
    static_assert(GW == VEC, "cp.async loaders move GW-float chunks");
    if constexpr (K_CONTIGUOUS && !KEEP && THREADS % BK == 0) {
      copy_async_transposed(s, g, ld, xlim, klim, tid);
      return;
    }
    if constexpr (VEC < 4 && THREADS % kPerRow == 0) {
      copy_async_narrow(s, g, ld, xlim, klim, tid);
      return;
    }
#pragma unroll
    for (int i = 0; i < kVectors; ++i) {
      if (!active(tid, i)) continue;
      int x, k;
      position(tid, i, x, k);
      bool valid = x < xlim && k < klim;
      const float* src = valid ? address(g, ld, x, k) : g;
      if (K_CONTIGUOUS && !KEEP) {
#pragma unroll
        for (int j = 0; j < VEC; ++j)
          cp_async<4>(s + (k + j) * LDS + x, src + (valid ? j : 0), valid);
      } else {
        cp_async<4 * VEC>(s + (K_CONTIGUOUS ? x * LDS + k : k * LDS + x), src, valid);
      }
    }
  }
  // copy_async of a K-contiguous operand into S[k][x]: single floats, each thread one k, its
  // rows kRowsPerRound apart. A warp's copy then takes 32 / BK rows' BK adjacent values (whole
  // sectors, as cuBLAS's transposing copies do) where copies of 4-float chunks took 16 rows' 2
  // values each (4x the sectors, and bank conflicts in shared memory: docs/PERFORMANCE.md,
  // 2026-12-03). Any alignment of the data reads the same way.
  static constexpr int kRowsPerRound = THREADS / BK;
  static constexpr int kRounds = (X + kRowsPerRound - 1) / kRowsPerRound;
  __device__ __forceinline__ static void copy_async_transposed(float* s, const float* g,
                                                               long long ld, int xlim, int klim,
                                                               int tid) {
    const int k = tid % BK, x = tid / BK;
    const bool k_in = k < klim;
    const int rows_left = xlim - x;
    const float* src0 = g + x * ld + k;
    float* dst0 = s + k * LDS + x;
#pragma unroll
    for (int i = 0; i < kRounds; ++i) {
      if (X % kRowsPerRound != 0 && x + i * kRowsPerRound >= X) continue;
      const bool valid = k_in && i * kRowsPerRound < rows_left;
      cp_async<4>(dst0 + i * kRowsPerRound, valid ? src0 + i * kRowsPerRound * ld : g, valid);
    }
  }
  // copy_async of narrowed chunks (data not aligned to 4 floats: 4 to 8 times as many chunks)
  // where each thread's chunks lie in one column, kRowStep rows apart: one address, one row
  // bound and one column test per thread, the rest constants. (Positions computed per chunk
  // stayed in registers: 64x64x16 s3 with 4-byte copies took 203 registers against 116 with
  // 16-byte ones.)
  static constexpr int kRowStep = THREADS / kPerRow;
  __device__ __forceinline__ static void copy_async_narrow(float* s, const float* g, long long ld,
                                                           int xlim, int klim, int tid) {
    int x, k;
    position(tid, 0, x, k);
    const int rows_left = K_CONTIGUOUS ? xlim - x : klim - k;
    const bool column_in = K_CONTIGUOUS ? k < klim : x < xlim;
    const float* src0 = address(g, ld, x, k);
    const long long row_stride = kRowStep * ld;
    // Shared memory: rows are x (K-contiguous: transposed unless KEEP) or k.
    constexpr int kDstRowStep = K_CONTIGUOUS && !KEEP ? kRowStep : kRowStep * LDS;
    float* dst0 = s + (K_CONTIGUOUS && !KEEP ? k * LDS + x
                       : K_CONTIGUOUS        ? x * LDS + k
                                             : k * LDS + x);
#pragma unroll
    for (int i = 0; i < kVectors; ++i) {
      if (!active(tid, i)) continue;
      const bool valid = column_in && i * kRowStep < rows_left;
      const float* src = valid ? src0 + i * row_stride : g;
      float* dst = dst0 + i * kDstRowStep;
      if (K_CONTIGUOUS && !KEEP) {
#pragma unroll
        for (int j = 0; j < VEC; ++j) cp_async<4>(dst + j * LDS, src + (valid ? j : 0), valid);
      } else {
        cp_async<4 * VEC>(dst, src, valid);
      }
    }
  }
};

// A and B for the shared-memory mainloops: STAGES buffers of BK-slices of each operand in shared
// memory (all of A's, then B's), both K-major (As[k][m], Bs[k][n]; the tensor-core step keeps
// K-contiguous operands as As[m][k], Bs[n][k]: Traits::LDA); in global memory each
// operand's base at (x0, k_begin), its advance per slice, and how far x and k reach from there.
// A is K-contiguous in global memory unless transposed; B is K-contiguous when transposed.
// Slice t is loaded either through registers (load, then store: stages 1-2) or with cp.async
// (copy_async: stages >= 3); compute() runs the warp tile's fragment step on a buffer.
template <class Cfg>
struct OperandSlices {
  // Chunks of VEC through registers, of the access width with cp.async (see TileLoader);
  // measured on an H200 with the data of one operand or all unaligned (docs/PERFORMANCE.md).
  enum : int {
    kChunkA = fills_by_cp_async(Cfg::STAGES) ? Cfg::GA : Cfg::VEC,
    kChunkB = fills_by_cp_async(Cfg::STAGES) ? Cfg::GB : Cfg::VEC,
  };
  using LoaderA =
      TileLoader<Cfg::BM, Cfg::BK, Cfg::LDA, kChunkA, Cfg::kThreads, !Cfg::TA, Cfg::GA, Cfg::kMma>;
  using LoaderB =
      TileLoader<Cfg::BN, Cfg::BK, Cfg::LDB, kChunkB, Cfg::kThreads, Cfg::TB, Cfg::GB, Cfg::kMma>;

  float* As;
  float* Bs;
  int k_len, num_slices;  // K of the block, in values and in slices
  const float* ga;
  const float* gb;
  long long lda, ldb, step_a, step_b;
  int xlim_a, xlim_b, tid;

  __device__ __forceinline__ OperandSlices(const GemmArgs& p, const BlockWork& w, float* smem,
                                           int tid_)
      : As(smem), Bs(smem + Cfg::STAGES * Cfg::kStageA), lda(p.lda), ldb(p.ldb), tid(tid_) {
    k_len = w.k_end - w.k_begin;
    num_slices = (k_len + Cfg::BK - 1) / Cfg::BK;
    ga = batch_a(p, w.batch) + (Cfg::TA ? w.k_begin * p.lda + w.m0 : w.m0 * p.lda + w.k_begin);
    gb = batch_b(p, w.batch) + (Cfg::TB ? w.n0 * p.ldb + w.k_begin : w.k_begin * p.ldb + w.n0);
    step_a = Cfg::TA ? Cfg::BK * p.lda : Cfg::BK;
    step_b = Cfg::TB ? Cfg::BK : Cfg::BK * p.ldb;
    xlim_a = p.m - w.m0, xlim_b = p.n - w.n0;
  }
  // How far k reaches from slice t's start.
  __device__ __forceinline__ int klim(int t) const { return k_len - t * Cfg::BK; }

  // Slice t: global -> registers; k_reach is klim(t), which the caller computes (at the top of
  // its iteration, where the generated code has always had it).
  __device__ __forceinline__ void load(LoaderA& la, LoaderB& lb, int t, int k_reach) const {
    la.load(ga + t * step_a, lda, xlim_a, k_reach, tid);
    lb.load(gb + t * step_b, ldb, xlim_b, k_reach, tid);
  }
  // Registers -> shared buffer `buf`.
  __device__ __forceinline__ void store(const LoaderA& la, const LoaderB& lb, int buf) const {
    la.store(As + buf * Cfg::kStageA, tid);
    lb.store(Bs + buf * Cfg::kStageB, tid);
  }
  // Slice t: global -> shared buffer `buf`, asynchronously (commit and wait are the caller's).
  __device__ __forceinline__ void copy_async(int t, int buf) const {
    const int k = klim(t);
    LoaderA::copy_async(As + buf * Cfg::kStageA, ga + t * step_a, lda, xlim_a, k, tid);
    LoaderB::copy_async(Bs + buf * Cfg::kStageB, gb + t * step_b, ldb, xlim_b, k, tid);
  }
  __device__ __forceinline__ void compute(const WarpTile<Cfg>& tile, Accumulators<Cfg>& acc,
                                          int buf) const {
    tile.compute(acc, As + buf * Cfg::kStageA, Bs + buf * Cfg::kStageB);
  }
  __device__ __forceinline__ const float* a_stage(int buf) const { return As + buf * Cfg::kStageA; }
  __device__ __forceinline__ const float* b_stage(int buf) const { return Bs + buf * Cfg::kStageB; }
};

}  // namespace detail
}  // namespace gemmtune
