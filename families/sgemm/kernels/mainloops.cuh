// The mainloops of the FP32 GEMM family: each runs a block's K range into the threads'
// accumulators (laid out by WarpTile). Every one has the same interface:
//   Mainloop(const GemmArgs& p, const BlockWork& w, float* smem, int tid)   set-up
//   void operator()(const WarpTile<Cfg>& tile, Accumulators<Cfg>& acc)     the K loop
// and Mainloop<Cfg> picks its path's (KernelPath, gemmtune/sgemm/shapes.hpp) at compile time; a
// new path (a reduction, a tensor-core family) is a new KernelPath, a new struct here and a new
// MainloopOf line.
//
// Code generation: NVVM optimizes each function before inlining it, __forceinline__ or not, so a
// K loop in a function of its own compiles slightly differently from the same loop written in
// the kernel (another induction variable; ptxas then allocates, and for a few double-buffered
// tiles unrolls, differently). Wrapping the old inline loop in a lambda shows it. Compare SASS
// with that in mind; the set-up/loop split and the order of the kernel's statements keep the
// rest of the code as it was.
namespace gemmtune {
namespace detail {

// Thin tiles with every row in each thread (BM <= 8, TM == BM, B not transposed: matrix-vector-
// like problems; TY == 1 and row0 == 0). Each element of B is used by one thread only, so B
// streams from global memory straight into registers (evict-first), and A's TM values per k, the
// same for the whole warp, come as broadcast loads. No shared memory, no barriers. STAGES 2: two
// register sets of BK rows, the next rows load while this set's FMAs run; STAGES 1: one set,
// half the registers, so that more blocks per SM keep loads in flight (the other warps' loads
// overlap this one's FMAs).
template <class Cfg>
struct StreamingMainloop {
  // B is read W floats at a time: WB, narrowed where B's data is not aligned to W.
  enum : int { BK = Cfg::BK, TM = Cfg::TM, TN = Cfg::TN, VN = Cfg::VN, W = Cfg::WB };
  // acc[i][v * W + j] is column chunk (v * W) / VN, element (v * W) % VN + j: the epilogue's order.
  using BRows = Vec<W>[BK][TN / W];
  using ARows = float[BK][TM];

  const GemmArgs& p;
  const BlockWork& w;

  // Rows k0 .. k0 + BK - 1 of B (this thread's columns) and of A (the tile's rows); zeros past
  // the K range, M and N.
  __device__ __forceinline__ StreamingMainloop(const GemmArgs& p_, const BlockWork& w_, float*, int)
      : p(p_), w(w_) {}

  __device__ __forceinline__ void load(BRows& bv, ARows& av, const float* a0, const float* b0,
                                       const WarpTile<Cfg>& tile, int k0) const {
#pragma unroll
    for (int u = 0; u < BK; ++u) {
      const int k = k0 + u;
#pragma unroll
      for (int v = 0; v < TN / W; ++v) {
        const int col = w.n0 + tile.col0 + (v * W / VN) * Cfg::TX * VN + (v * W) % VN;
        if (k < w.k_end && col < p.n) {
          bv[u][v] = load_vec_once<W>(b0 + static_cast<long long>(k) * p.ldb + col);
        } else {
#pragma unroll
          for (int j = 0; j < W; ++j) bv[u][v].v[j] = 0.f;
        }
      }
#pragma unroll
      for (int i = 0; i < TM; ++i) {
        const int r = w.m0 + i;
        const float* a = Cfg::TA ? a0 + static_cast<long long>(k) * p.lda + r
                                 : a0 + static_cast<long long>(r) * p.lda + k;
        av[u][i] = k < w.k_end && r < p.m ? __ldg(a) : 0.f;
      }
    }
  }
  __device__ __forceinline__ static void multiply(Accumulators<Cfg>& acc, const BRows& bv,
                                                  const ARows& av) {
#pragma unroll
    for (int u = 0; u < BK; ++u)
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int v = 0; v < TN / W; ++v)
#pragma unroll
          for (int j = 0; j < W; ++j)
            acc[i][v * W + j] = fmaf(av[u][i], bv[u][v].v[j], acc[i][v * W + j]);
  }
  __device__ __forceinline__ void operator()(const WarpTile<Cfg>& tile,
                                             Accumulators<Cfg>& acc) const {
    const float* a0 = batch_a(p, w.batch);  // this batch's A and B
    const float* b0 = batch_b(p, w.batch);
    if (Cfg::STAGES == 1) {
      BRows bv;
      ARows av;
      for (int k0 = w.k_begin; k0 < w.k_end; k0 += BK) {
        load(bv, av, a0, b0, tile, k0);
        multiply(acc, bv, av);
      }
      return;
    }
    BRows b_even, b_odd;
    ARows a_even, a_odd;
    load(b_even, a_even, a0, b0, tile, w.k_begin);
    for (int k0 = w.k_begin; k0 < w.k_end; k0 += 2 * BK) {
      if (k0 + BK < w.k_end) load(b_odd, a_odd, a0, b0, tile, k0 + BK);
      multiply(acc, b_even, a_even);
      if (k0 + BK >= w.k_end) break;
      if (k0 + 2 * BK < w.k_end) load(b_even, a_even, a0, b0, tile, k0 + 2 * BK);
      multiply(acc, b_odd, a_odd);
    }
  }
};

// K_LANES or K_WARPS > 1, the reduction path: for outputs too few to share operands through
// shared memory (dot products, matrix-vector products). KL neighbouring lanes of each of KW
// warps (kOutputWarps apart) own one thread tile (WarpTile) and split its K range among S =
// KL * KW sharers. Per step a sharer takes BK values of K as BK / VEC runs of VEC, run u at
// k0 + (u * S + share) * VEC, so that together the KL lanes of a warp read KL * VEC
// adjacent floats of each K-contiguous row (A not transposed, B transposed), in GA/GB-float
// pieces; an operand stored the other way is read along its outputs, for each k the thread
// tile's VM (VN) adjacent rows (columns) as one vector, as wide as GA (GB) allows. Two register sets
// of steps, as in StreamingMainloop. An operand that no other block reads (A where one block
// column covers N, B where one block row covers M: the matrix of a matrix-vector product, both
// vectors of a dot) is read evict-first (load_vec_once) where each value is loaded by one thread
// tile and 16 or more lanes share a row (kOnceA/B). Where its runs are narrowed by an odd leading
// dimension, in pieces of 1 or 2 floats, only L2 is told (load_vec_once_l2: L1 keeps the line for
// the run's next piece), and not in blocks of one thread tile (a dot's; kOnceNarrowA/B), and
// not in PLAIN_NARROW_RUNS instances: which is faster depends on the problem, so the tuner times
// both (H200, 1x2 l16 j2: 1x4095x4095 nt 27.4 us plain, 25.1 evict-first in L2; 1x12289x4097 nt
// 60.5 and 62.0; evict-first in L1 and L2 as well, 26.8 and 69.3; commit 438bd92). A dot's vectors evict-first: 99999, 1x1 l32 j4 k64, 6.6 -> 7.2 us (H100). Measured
// against evict-first (H200): tiles of 8 lanes per row (50000x3x512 nt, 4x4 l8: 50 -> 80 us);
// a run-time choice between loads compiled into configs that then take the plain one
// (3x8192x4096 nt, 1x4 l32: 62.6 -> 69.0 us; H100, a dot of 9999999, 1x1 l32 j4 k64: 76 -> 97
// us). At the end the KL lanes sum their accumulators with shuffles, the KW warps through shared
// memory; the Epilogue writes from the first lane of the first warp.
template <class Cfg>
struct ReductionMainloop {
  enum : int {
    TM = Cfg::TM,
    TN = Cfg::TN,
    KL = Cfg::KL,
    KW = Cfg::KW,
    V = Cfg::VEC,
    RUNS = Cfg::BK / Cfg::VEC,
    S = Cfg::KL * Cfg::KW,
    STEP = S * Cfg::BK,
    kOwners = Cfg::kOutputWarps * 32,
    // Widths of the loads along the outputs (A transposed, B not): a VM (VN) chunk of the thread
    // tile, narrowed to the data's alignment.
    VA = Cfg::GA < Cfg::VM ? Cfg::GA : Cfg::VM,
    VB = Cfg::GB < Cfg::VN ? Cfg::GB : Cfg::VN,
  };
  enum : bool {
    // Where evict-first can pay (above): A (B) loaded by one thread tile across the block's N (M).
    kOnceA = Cfg::BN == Cfg::TN && Cfg::KL >= 16,
    kOnceB = Cfg::BM == Cfg::TM && Cfg::KL >= 16,
    // Runs narrowed by an odd leading dimension too (evict-first in L2 only), but not in blocks
    // of one thread tile (a dot's), nor in PLAIN_NARROW_RUNS instances, the tuned alternative:
    // compile-time, so that where they are not the plain load is the only one compiled.
    kOnceNarrowA = kOnceA && !kOnceB && !Cfg::kPlainNarrowRuns,
    kOnceNarrowB = kOnceB && !kOnceA && !Cfg::kPlainNarrowRuns,
  };
  using AFrag = float[RUNS][V][TM];
  using BFrag = float[RUNS][V][TN];

  const GemmArgs& p;
  const BlockWork& w;
  const int tid;
  const int share;            // this lane's place among the S sharers of its thread tile
  const bool a_once, b_once;  // A (B) read by this block alone: evict-first

  __device__ __forceinline__ ReductionMainloop(const GemmArgs& p_, const BlockWork& w_, float*,
                                               int tid_)
      : p(p_),
        w(w_),
        tid(tid_),
        share((tid_ / kOwners) * KL + tid_ % KL),
        a_once(kOnceA && p_.n <= Cfg::BN),
        b_once(kOnceB && p_.m <= Cfg::BM) {}

  template <int G>
  __device__ __forceinline__ static Vec<G> load_maybe_once(const float* src, bool once) {
    return once ? load_vec_once<G>(src) : load_vec<G>(src);
  }

  // Block-tile row of accumulator row i and column of accumulator column j: the Epilogue's order.
  __device__ __forceinline__ static int row_of(const WarpTile<Cfg>& tile, int i) {
    return tile.row0 + (i / Cfg::VM) * Cfg::TY * Cfg::VM + i % Cfg::VM;
  }
  __device__ __forceinline__ static int col_of(const WarpTile<Cfg>& tile, int j) {
    return tile.col0 + (j / Cfg::VN) * Cfg::TX * Cfg::VN + j % Cfg::VN;
  }
  // The run of V values of K from k on, at src, in G-float pieces; zeros past K or when !ok.
  template <int G>
  __device__ __forceinline__ void run(float (&out)[V], const float* src, int k, bool ok,
                                      bool once) const {
#pragma unroll
    for (int s = 0; s < V / G; ++s) {
      Vec<G> v;
      if (ok && k + s * G < w.k_end) {
        // Pieces of a narrowed run: evict-first in L2 only, so that L1 still holds the line
        // for the next piece.
        if constexpr (G < V)
          v = once ? load_vec_once_l2<G>(src + s * G) : load_vec<G>(src + s * G);
        else
          v = load_maybe_once<G>(src + s * G, once);
      } else {
#pragma unroll
        for (int j = 0; j < G; ++j) v.v[j] = 0.f;
      }
#pragma unroll
      for (int j = 0; j < G; ++j) out[s * G + j] = v.v[j];
    }
  }

  // For each of the V values of K from k on, G adjacent outputs (rows of a transposed A,
  // columns of B) at src + k * ld as one vector, into out[e][first..first + G); zeros past K or
  // when !ok.
  template <int G, int T>
  __device__ __forceinline__ void across(float (&out)[V][T], int first, const float* src,
                                         long long ld, int k, bool ok, bool once) const {
#pragma unroll
    for (int e = 0; e < V; ++e) {
      Vec<G> v;
      if (ok && k + e < w.k_end) {
        v = load_maybe_once<G>(src + (k + e) * ld, once);
      } else {
#pragma unroll
        for (int q = 0; q < G; ++q) v.v[q] = 0.f;
      }
#pragma unroll
      for (int q = 0; q < G; ++q) out[e][first + q] = v.v[q];
    }
  }

  __device__ __forceinline__ void load(AFrag& a, BFrag& b, const float* a0, const float* b0,
                                       const WarpTile<Cfg>& tile, int k0) const {
#pragma unroll
    for (int u = 0; u < RUNS; ++u) {
      const int k = k0 + (u * S + share) * V;
#pragma unroll
      for (int i = 0; i < TM; ++i) {
        const int r = w.m0 + row_of(tile, i);
        if constexpr (!Cfg::TA) {
          float values[V];
          run<Cfg::GA>(values, a0 + r * p.lda + k, k, r < p.m,
                       a_once && (Cfg::GA == V || kOnceNarrowA));
#pragma unroll
          for (int e = 0; e < V; ++e) a[u][e][i] = values[e];
        } else if (i % VA == 0) {  // VA adjacent rows of the tile, for each k
          across<VA>(a[u], i, a0 + r, p.lda, k, r < p.m, a_once && VA == Cfg::VM);
        }
      }
#pragma unroll
      for (int j = 0; j < TN; ++j) {
        const int c = w.n0 + col_of(tile, j);
        if constexpr (Cfg::TB) {
          float values[V];
          run<Cfg::GB>(values, b0 + c * p.ldb + k, k, c < p.n,
                       b_once && (Cfg::GB == V || kOnceNarrowB));
#pragma unroll
          for (int e = 0; e < V; ++e) b[u][e][j] = values[e];
        } else if (j % VB == 0) {  // VB adjacent columns of the tile, for each k
          across<VB>(b[u], j, b0 + c, p.ldb, k, c < p.n, b_once && VB == Cfg::VN);
        }
      }
    }
  }
  __device__ __forceinline__ static void multiply(Accumulators<Cfg>& acc, const AFrag& a,
                                                  const BFrag& b) {
#pragma unroll
    for (int u = 0; u < RUNS; ++u)
#pragma unroll
      for (int e = 0; e < V; ++e)
#pragma unroll
        for (int i = 0; i < TM; ++i)
#pragma unroll
          for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a[u][e][i], b[u][e][j], acc[i][j]);
  }
  __device__ __forceinline__ void operator()(const WarpTile<Cfg>& tile,
                                             Accumulators<Cfg>& acc) const {
    const float* a0 = batch_a(p, w.batch);  // this batch's A and B
    const float* b0 = batch_b(p, w.batch);
    AFrag a_even, a_odd;
    BFrag b_even, b_odd;
    load(a_even, b_even, a0, b0, tile, w.k_begin);
    for (int k0 = w.k_begin; k0 < w.k_end; k0 += 2 * STEP) {
      if (k0 + STEP < w.k_end) load(a_odd, b_odd, a0, b0, tile, k0 + STEP);
      multiply(acc, a_even, b_even);
      if (k0 + STEP >= w.k_end) break;
      if (k0 + 2 * STEP < w.k_end) load(a_even, b_even, a0, b0, tile, k0 + 2 * STEP);
      multiply(acc, a_odd, b_odd);
    }
    // The K range is the block's, so every lane leaves the loop together: the shuffles see all.
#pragma unroll
    for (int offset = KL / 2; offset > 0; offset /= 2)
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] += __shfl_xor_sync(0xffffffffu, acc[i][j], offset);
    if constexpr (KW > 1) {
      // The warps past the first leave their sums in shared memory (a thread's values kOwners
      // apart: no bank conflicts); the first warp's lanes add them up.
      __shared__ float partial[KW - 1][TM * TN][kOwners];
      const int kw = tid / kOwners, owner = tid % kOwners;
      if (kw > 0) {
#pragma unroll
        for (int i = 0; i < TM; ++i)
#pragma unroll
          for (int j = 0; j < TN; ++j) partial[kw - 1][i * TN + j][owner] = acc[i][j];
      }
      __syncthreads();
      if (kw == 0) {
#pragma unroll
        for (int q = 0; q < KW - 1; ++q)
#pragma unroll
          for (int i = 0; i < TM; ++i)
#pragma unroll
            for (int j = 0; j < TN; ++j) acc[i][j] += partial[q][i * TN + j][owner];
      }
    }
  }
};

// Stages 1 and 2: slices go global -> registers -> shared memory (OperandSlices::load, store).
// STAGES == 1 has one buffer: compute, barrier, load the next slice, store it, barrier.
// STAGES == 2 double-buffers: the next slice's global loads are issued before this slice's
// compute, so their latency hides behind the FMAs, and it is stored to the other buffer after.
// EARLY_BARRIER instances store it, and pass the barrier, before the slice's last k-step.
template <class Cfg>
struct RegisterPrefetchMainloop {
  OperandSlices<Cfg> s;

  __device__ __forceinline__ RegisterPrefetchMainloop(const GemmArgs& p, const BlockWork& w,
                                                      float* smem, int tid)
      : s(p, w, smem, tid) {}

  __device__ __forceinline__ void operator()(const WarpTile<Cfg>& tile,
                                             Accumulators<Cfg>& acc) const {
    constexpr int STAGES = Cfg::STAGES;
    typename OperandSlices<Cfg>::LoaderA la;
    typename OperandSlices<Cfg>::LoaderB lb;
    s.load(la, lb, 0, s.klim(0));
    s.store(la, lb, 0);
    __syncthreads();
    for (int t = 0; t < s.num_slices; ++t) {
      const int cur = STAGES == 2 ? t % 2 : 0;
      const bool more = t + 1 < s.num_slices;
      const int klim = s.klim(t + 1);  // here, not in load(): see OperandSlices::load
      if constexpr (Cfg::kEarlyBarrier) {
        // The next slice goes to the other buffer and the barrier comes before the last k-step's
        // FMAs, so that they run while the barrier's stragglers arrive. Its fragments are read
        // first: after the barrier, a fast warp may store the slice after next into this buffer.
        // The load is not conditional (past the last slice every chunk is out of range: zeros,
        // no access), or the compiler moves it into the store's branch, right before the stores.
        static_assert(STAGES == 2 && !Cfg::kMma, "EARLY_BARRIER: the two-stage FMA loop only");
        s.load(la, lb, t + 1, klim);
        tile.steps(acc, s.a_stage(cur), s.b_stage(cur), 0, Cfg::BK - 1);
        float fa[Cfg::TM], fb[Cfg::TN];
        tile.fragments(s.a_stage(cur), s.b_stage(cur), Cfg::BK - 1, fa, fb);
        if (more) {
          s.store(la, lb, (t + 1) % 2);
          __syncthreads();
        }
        WarpTile<Cfg>::multiply(acc, fa, fb);
        continue;
      }
      if (STAGES == 2 && more) s.load(la, lb, t + 1, klim);  // prefetch while computing
      s.compute(tile, acc, cur);
      if (more) {
        if (STAGES == 1) {
          __syncthreads();  // everyone is done reading the single buffer
          s.load(la, lb, t + 1, klim);
        }
        s.store(la, lb, STAGES == 2 ? (t + 1) % 2 : 0);
        __syncthreads();
      }
    }
  }
};

// Stages >= 3: a ring of STAGES shared buffers filled by cp.async (OperandSlices::copy_async),
// STAGES - 1 slices in flight while one is computed. One commit group per slice, empty ones past
// the end, so that waiting for all but STAGES - 2 groups always means slice t has landed.
template <class Cfg>
struct CpAsyncMainloop {
  OperandSlices<Cfg> s;

  __device__ __forceinline__ CpAsyncMainloop(const GemmArgs& p, const BlockWork& w, float* smem,
                                             int tid)
      : s(p, w, smem, tid) {}

  __device__ __forceinline__ void operator()(const WarpTile<Cfg>& tile,
                                             Accumulators<Cfg>& acc) const {
    constexpr int STAGES = Cfg::STAGES;
#pragma unroll
    for (int t = 0; t < STAGES - 1; ++t) {
      if (t < s.num_slices) s.copy_async(t, t);
      cp_async_commit();
    }
    for (int t = 0; t < s.num_slices; ++t) {
      cp_async_wait<STAGES - 2>();
      __syncthreads();  // slice t is visible; everyone finished computing slice t-1
      const int load = t + STAGES - 1;
      if (load < s.num_slices) s.copy_async(load, load % STAGES);
      cp_async_commit();
      s.compute(tile, acc, t % STAGES);
    }
    cp_async_wait<0>();
  }
};

// The mainloop of each kernel path (KernelPath, gemmtune/sgemm/shapes.hpp): the shared-memory
// tile paths fill their stages through registers, or by cp.async from 3 stages on; mma.sync runs
// either, by its stages, with the tensor-core step (WarpTile::compute).
template <KernelPath Path, class Cfg>
struct MainloopOf;  // a path without a mainloop does not compile
template <class Cfg>
struct MainloopOf<KernelPath::register_tile, Cfg> {
  using type = RegisterPrefetchMainloop<Cfg>;
};
template <class Cfg>
struct MainloopOf<KernelPath::cp_async_tile, Cfg> {
  using type = CpAsyncMainloop<Cfg>;
};
template <class Cfg>
struct MainloopOf<KernelPath::streamed_tile, Cfg> {
  using type = StreamingMainloop<Cfg>;
};
template <class Cfg>
struct MainloopOf<KernelPath::reduction, Cfg> {
  using type = ReductionMainloop<Cfg>;
};
template <class Cfg>
struct MainloopOf<KernelPath::mma_sync, Cfg> {
  using type = typename MainloopOf<fills_by_cp_async(Cfg::STAGES) ? KernelPath::cp_async_tile
                                                                  : KernelPath::register_tile,
                                   Cfg>::type;
};
template <class Cfg>
struct MainloopOf<KernelPath::warpgroup, Cfg> {
  using type = WgmmaMainloop<Cfg>;
};

// The mainloop of an instance: its path's.
template <class Cfg>
using Mainloop = typename MainloopOf<KernelPath(Cfg::kPath), Cfg>::type;

}  // namespace detail
}  // namespace gemmtune
