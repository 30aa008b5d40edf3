// The epilogue of the FP32 GEMM family: C = alpha * acc + beta * C, and split-K's protocol.
namespace gemmtune {
namespace detail {

// Split-K in one launch, no split waiting on another's sums. The first split of a tile to
// start (the first ticket) scales the tile of C by beta, zeros where beta is 0, and raises the
// tile's flag; every split, that one too, adds alpha * acc atomically once the flag is up, which
// it is long before another split is through its K range. The first split waits on nothing, so
// every wait ends. The tile's counter holds tickets (bits 0-9), splits done with the counter
// (bits 10-19) and the flag (bit 20); the last split done resets it, so counters are zero
// between launches.
struct SplitKCounter {
  static constexpr int kTicket = 1, kDone = 1 << 10, kFlag = 1 << 20;

  // Block-wide, before the K loop: takes this split's ticket; true for the tile's first split.
  __device__ __forceinline__ static bool start(int* counter, int tid) {
    __shared__ int first;
    if (tid == 0) first = (atomicAdd(counter, kTicket) & (kDone - 1)) == 0;
    __syncthreads();
    return first;
  }
  // Block-wide, first split only, after its writes of beta * C: makes them visible, raises the flag.
  __device__ __forceinline__ static void raise(int* counter, int tid) {
    __threadfence();
    __syncthreads();
    if (tid == 0) atomicAdd(counter, kFlag);
  }
  // Block-wide, before the adds: returns once the tile's scaled C is visible.
  __device__ __forceinline__ static void wait(const int* counter, int tid) {
    if (tid == 0) {
      while ((*reinterpret_cast<const volatile int*>(counter) & kFlag) == 0) __nanosleep(32);
      __threadfence();
    }
    __syncthreads();
  }
  // One thread, after wait(): done with the counter; the last split resets it. Every split has
  // taken its ticket and seen the flag by then, so nothing reads the counter after.
  template <int SPLIT_K>
  __device__ __forceinline__ static void leave(int* counter) {
    const int before = atomicAdd(counter, kDone);
    if ((before / kDone) % (kFlag / kDone) == SPLIT_K - 1) atomicExch(counter, 0);
  }
};

// alpha * x, exactly 0 when alpha is 0 whatever x is: a device alpha of 0 (device pointer mode,
// which the host cannot see) runs the GEMM, and Inf or NaN in A or B must not reach C as 0 * x.
__device__ __forceinline__ float times_alpha(float alpha, float x) {
  return alpha == 0.f ? 0.f : alpha * x;
}

// The scalars of a launch, read once: from device memory in device pointer mode.
struct Scalars {
  float alpha, beta;
  __device__ __forceinline__ explicit Scalars(const GemmArgs& p)
      : alpha(p.alpha_ptr ? *p.alpha_ptr : p.alpha), beta(p.beta_ptr ? *p.beta_ptr : p.beta) {}
};

// How a call writes C: decided per call (kAnyMode) or, where a caller has decided once for its
// whole tile, fixed: plain stores (beta == 0), stores blended with beta * C, or split-K's adds.
enum WriteMode { kAnyMode, kStore, kBlend, kAdd };

// C = alpha * acc + beta * C for one W-float vector of C at dst (W adjacent accumulators in
// `acc`), or, for a split-K block that is not its tile's first, the atomic add of alpha * acc.
// C is not read when beta == 0, so NaN in an uninitialised C cannot leak in; alpha == 0 gives
// exactly beta * C (times_alpha).
template <int W, int MODE = kAnyMode>
__device__ __forceinline__ void write_c(const Scalars& s, float* dst, const float* acc,
                                        bool store_c) {
  Vec<W> out;
  if (MODE == kAdd || (MODE == kAnyMode && !store_c)) {
    if (s.alpha == 0.f) return;  // C is beta C already: nothing to add
#pragma unroll
    for (int j = 0; j < W; ++j) out.v[j] = s.alpha * acc[j];
    atomic_add_vec<W>(dst, out);
    return;
  }
  if (MODE == kStore || (MODE == kAnyMode && s.beta == 0.f)) {
#pragma unroll
    for (int j = 0; j < W; ++j) out.v[j] = times_alpha(s.alpha, acc[j]);
  } else {
    Vec<W> old = load_vec<W>(dst);
#pragma unroll
    for (int j = 0; j < W; ++j) {
      const float scaled_c = s.beta * old.v[j];
      out.v[j] = s.alpha == 0.f ? scaled_c : fmaf(s.alpha, acc[j], scaled_c);
    }
  }
  store_vec<W>(dst, out);
}

// Writes a block's accumulators to C (write_c); with split-K each split adds atomically to the
// beta * C its tile's first split left there (start(), SplitKCounter).
//
// Each thread's VN-wide column chunks go out as vectors of W floats (Traits::WC: Traits::W
// narrowed where C's data is not aligned to it), one bounds test each; rows past M and vectors
// past N are skipped. Where C is narrowed below VN (an odd ldc, say) a tile kernel has two more
// ways: staged (Cfg::kStageC), each warp's tile passes through shared memory one accumulator row
// at a time and goes out with lanes on adjacent columns; windowed (Cfg::kWindowC), the aligned
// vectors that a row spans are put together from neighbouring lanes' chunks by shuffles. Written
// directly, a store instruction's lanes write single floats VN apart, so each 32-byte sector of
// C is written in VN pieces. Which way wins depends on the config (1024x50257x768 nt on an H200,
// 128x256 t16x8: direct 1.87 ms, staged 1.85, windowed 1.79, the aligned twin 1.66; a 256x128
// tile with A and B narrowed too lost 5% windowed), so the tuner times all three
// (GemmConfig::stage_c, window_c).
template <class Cfg>
struct Epilogue {
  enum : int {
    TM = Cfg::TM,
    TN = Cfg::TN,
    VM = Cfg::VM,
    VN = Cfg::VN,
    W = Cfg::WC,
    SPLIT_K = Cfg::SPLIT_K,
    kStagedLd = staged_c_row(Cfg::WN),  // + 4: vector writes aligned, rows on other banks
    kStagedFloats = staged_c_floats(Cfg::BM, Cfg::BN, Cfg::WM, Cfg::WN, Cfg::TM),
    kMainloopFloats = Cfg::STAGES * (Cfg::kStageA + Cfg::kStageB),
  };
  static_assert(!Cfg::kOrderedSplits || (Cfg::kReduce && SPLIT_K > 1),
                "ordered splits are a split reduction's (GemmConfig::ordered_splits)");
  static_assert(!Cfg::kPrescaleC || (SPLIT_K > 1 && !Cfg::kOrderedSplits && !Cfg::kSplitTail),
                "a prescaled C is for atomic splits of every tile (GemmConfig::prescale_c)");
  static_assert(!Cfg::kWindowC || (!Cfg::kReduce && !Cfg::kStageC && Cfg::W == VN && VN > 1),
                "windows of C are whole chunks of a tile kernel (GemmConfig::can_window_c)");
  static_assert(
      !Cfg::kStageC || (!Cfg::kReduce && !Cfg::kStreamB && kStagedFloats <= kMainloopFloats),
      "staging C needs a tile kernel and room in its shared memory (GemmConfig::can_stage_c)");

  __device__ __forceinline__ static void run(const GemmArgs& p, const BlockWork& w,
                                             const WarpTile<Cfg>& tile,
                                             const Accumulators<Cfg>& acc, float* smem, int tid) {
    if constexpr (Cfg::kOrderedSplits) {
      last_split_sums(p, w, tile, acc, tid);
      return;
    }
    if constexpr (Cfg::kClusterSplits) {
      cluster_split_sums(p, w, tile, acc, tid);
      return;
    }
    // Split-tail blocks of unsplit tiles store like an unsplit kernel; split tiles' C holds beta * C
    // (start()), to which each split adds.
    const bool splits = SPLIT_K > 1 && (!Cfg::kSplitTail || w.split);
    const bool store_c = !splits;
    if constexpr (Cfg::kPrescaleC) {
      // C is beta * C once gemmtune_prescale_c, launched before and overlapping this kernel's
      // start (programmatic dependent launch), is done.
#if __CUDA_ARCH__ >= 900
      asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
    } else if constexpr (SPLIT_K > 1) {
      if (splits) SplitKCounter::wait(tile_counter(p, w), tid);
    }

    const Scalars scalars(p);
    float* gc = batch_c(p, w.batch);
    if constexpr (Cfg::kStageC) {
      staged(p, scalars, w, tile, acc, smem, tid, gc, store_c);
    } else if constexpr (Cfg::kWindowC) {
      // One mode for the whole tile, so that the instruction cache holds only its code (the three
      // interleaved: 12% of 1024x50257x768 nt's stall samples were instruction misses, H200).
      if (!store_c)
        windowed<kAdd>(p, scalars, w, tile, acc, tid, gc);
      else if (scalars.beta == 0.f)
        windowed<kStore>(p, scalars, w, tile, acc, tid, gc);
      else
        windowed<kBlend>(p, scalars, w, tile, acc, tid, gc);
    } else if (!Cfg::kReduce || (tid % Cfg::KL == 0 && tid < Cfg::kOutputWarps * 32)) {
      // In a reduction the KL lanes of a thread tile hold the same sums, and the first warp
      // holds those of all KW: its first lane of each tile writes.
#pragma unroll
      for (int i = 0; i < TM; ++i) {
        const int r = w.m0 + tile.row0 + (i / VM) * Cfg::TY * VM + i % VM;
        if (r >= p.m) continue;
#pragma unroll
        for (int c = 0; c < TN / VN; ++c) {
#pragma unroll
          for (int v = 0; v < VN / W; ++v) {
            const int col = w.n0 + tile.col0 + c * Cfg::TX * VN + v * W;
            if (col < p.n)
              write_c<W>(scalars, gc + r * p.ldc + col, &acc[i][c * VN + v * W], store_c);
          }
        }
      }
    }
    if constexpr (SPLIT_K > 1 && !Cfg::kPrescaleC) {
      if (splits && tid == 0) SplitKCounter::leave<SPLIT_K>(tile_counter(p, w));
    }
  }

  // Split-K's share before the K loop (atomic splits; ordered ones keep to last_split_sums): the
  // first split of each split tile scales the tile of C by beta (SplitKCounter).
  __device__ __forceinline__ static void start(const GemmArgs& p, const BlockWork& w, int tid) {
#if __CUDA_ARCH__ >= 900
    // Cluster splits: this block has started, so that the first block's shared memory may be
    // written once the barrier's phase completes (cluster_split_sums waits for it there).
    if constexpr (Cfg::kClusterSplits)
      asm volatile("barrier.cluster.arrive.relaxed.aligned;\n" ::: "memory");
#endif
    if constexpr (SPLIT_K > 1 && !Cfg::kOrderedSplits && !Cfg::kPrescaleC && !Cfg::kClusterSplits) {
      if (Cfg::kSplitTail && !w.split) return;
      int* const counter = tile_counter(p, w);
      if (!SplitKCounter::start(counter, tid)) return;
      const Scalars s(p);
      float* const gc = batch_c(p, w.batch);
      const int rows = min(Cfg::BM, p.m - w.m0), cols = min(Cfg::BN, p.n - w.n0);
      for (int e = tid; e < rows * cols; e += Cfg::kThreads) {
        float* const c = gc + static_cast<long long>(w.m0 + e / cols) * p.ldc + w.n0 + e % cols;
        *c = s.beta == 0.f ? 0.f
                           : s.beta * *c;  // C unread where beta is 0: NaN there cannot leak in
      }
      SplitKCounter::raise(counter, tid);
    }
  }

  // The split tile's counter: by tile for split-tail kernels, else by block column and batch.
  __device__ __forceinline__ static int* tile_counter(const GemmArgs& p, const BlockWork& w) {
    return Cfg::kSplitTail
               ? p.tile_counters + w.tile
               : p.tile_counters + static_cast<long long>(w.batch) * gridDim.x + blockIdx.x;
  }

  // Split-K of a reduction with ordered splits: each split stores its sums in the workspace,
  // after the tile counters (kSplitSumsAlign), and takes a ticket; the last of a tile's splits
  // adds the tile's sums in split order and writes C. The same bits whichever split finishes
  // first, but the last split's extra pass (a fence, the sums read back from L2) made a dot
  // product of 1e5 0.35-0.6 us slower than the atomic protocol on an H200 (7.17-7.33 against
  // 6.75-6.82 us), so the tuner times both and a deterministic dispatcher takes this one.
  __device__ __forceinline__ static void last_split_sums(const GemmArgs& p, const BlockWork& w,
                                                         const WarpTile<Cfg>& tile,
                                                         const Accumulators<Cfg>& acc, int tid) {
    constexpr int kOutputs = Cfg::BM * Cfg::BN;
    const long long tiles = static_cast<long long>(gridDim.x) * p.batch,
                    tile_index = static_cast<long long>(w.batch) * gridDim.x + blockIdx.x;
    int* const counter = p.tile_counters + tile_index;
    float* const sums =
        reinterpret_cast<float*>(p.tile_counters + (tiles + kSplitSumsAlign - 1) / kSplitSumsAlign *
                                                       kSplitSumsAlign) +
        tile_index * SPLIT_K * kOutputs;
    // The KL lanes of a thread tile hold the same sums, the first warp those of all KW.
    const bool writer = tid % Cfg::KL == 0 && tid < Cfg::kOutputWarps * 32;
    const int split = blockIdx.z % SPLIT_K;
    if (writer) {
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) sums[split * kOutputs + output_of(tile, i, j)] = acc[i][j];
    }
    __shared__ int last;
    __threadfence();  // this split's sums are visible before its ticket
    __syncthreads();
    if (tid == 0) last = atomicAdd(counter, 1) == SPLIT_K - 1;
    __syncthreads();
    if (!last) return;
    __threadfence();
    // The last split's threads add the sums: G groups of threads per output (fewer threads than
    // outputs: one each, looping), group g taking splits g, g + G, ...; then the groups' totals
    // in group order. Each output's order of additions is fixed by the config alone. Each sum is
    // zeroed once read: the buffer is all zeros between launches, as the counters that another
    // config's launch on this workspace may keep where these sums were.
    constexpr int T = Cfg::kThreads, G = kOutputs >= T ? 1 : T / kOutputs;
    const Scalars scalars(p);
    float* gc = batch_c(p, w.batch);
    auto put = [&](int at, float total) {
      const int r = w.m0 + at / Cfg::BN, c = w.n0 + at % Cfg::BN;
      if (r < p.m && c < p.n)
        write_c<1, kAnyMode>(scalars, gc + static_cast<long long>(r) * p.ldc + c, &total, true);
    };
    if constexpr (G == 1) {
      for (int at = tid; at < kOutputs; at += T) {
        float total = 0.f;
#pragma unroll 8
        for (int s = 0; s < SPLIT_K; ++s) total += take(sums + s * kOutputs + at);
        put(at, total);
      }
    } else {
      __shared__ float group_totals[G * kOutputs];
      const int at = tid % kOutputs, g = tid / kOutputs;
      if (g < G) {
        float part = 0.f;
        for (int s = g; s < SPLIT_K; s += G) part += take(sums + s * kOutputs + at);
        group_totals[g * kOutputs + at] = part;
      }
      __syncthreads();
      if (tid < kOutputs) {
        float total = 0.f;
#pragma unroll 8
        for (int q = 0; q < G; ++q) total += group_totals[q * kOutputs + tid];
        put(tid, total);
      }
    }
    if (tid == 0) *counter = 0;  // for the next launch (kernel boundaries order it)
  }
  // Split-K of a reduction whose splits are the blocks of one cluster (cluster dimensions
  // (1, 1, SPLIT_K): a block's rank in it is its split): each block stores its sums into the first
  // block's shared memory, in its split's row, once every block has started (the barrier phase
  // start() arrived at); after a second barrier the first block adds the rows in split order and
  // writes C. The same bits on every run, no workspace, no atomics. (The first block reading the
  // others' shared memory instead, with a second barrier to keep them until it had, made cluster
  // configs 0.5-8% slower on an H200: a dot of 1e5 in 16 x 1024 threads 6.4 against 6.1 us.)
  __device__ __forceinline__ static void cluster_split_sums(const GemmArgs& p, const BlockWork& w,
                                                            const WarpTile<Cfg>& tile,
                                                            const Accumulators<Cfg>& acc, int tid) {
    static_assert(
        SPLIT_K >= 2 && SPLIT_K <= 16 && Cfg::kReduce,
        "cluster splits are a split reduction's, 2 to 16 blocks (GemmConfig::cluster_splits)");
#if __CUDA_ARCH__ >= 900
    constexpr int kOutputs = Cfg::BM * Cfg::BN;
    __shared__ float sums[SPLIT_K][kOutputs];  // the first block's: every split's sums
    asm volatile("barrier.cluster.wait.aligned;\n" ::: "memory");  // every block has started
    // The KL lanes of a thread tile hold the same sums, the first warp those of all KW.
    if (tid % Cfg::KL == 0 && tid < Cfg::kOutputWarps * 32) {
      const unsigned row =
          static_cast<unsigned>(__cvta_generic_to_shared(sums[blockIdx.z % SPLIT_K]));
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
          cluster_shared_store(row + 4u * output_of(tile, i, j), 0, acc[i][j]);
    }
    cluster_barrier();
    if (blockIdx.z % SPLIT_K != 0) return;
    const Scalars scalars(p);
    float* gc = batch_c(p, w.batch);
    for (int at = tid; at < kOutputs; at += Cfg::kThreads) {
      float total = 0.f;
#pragma unroll
      for (int s = 0; s < SPLIT_K; ++s) total += sums[s][at];
      const int r = w.m0 + at / Cfg::BN, c = w.n0 + at % Cfg::BN;
      if (r < p.m && c < p.n)
        write_c<1, kAnyMode>(scalars, gc + static_cast<long long>(r) * p.ldc + c, &total, true);
    }
#endif
  }
#if __CUDA_ARCH__ >= 900
  // Every thread of the cluster's blocks: their shared-memory writes before, visible after.
  __device__ __forceinline__ static void cluster_barrier() {
    asm volatile(
        "barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;\n" ::
            : "memory");
  }
  // Stores v at shared-memory address `local` of the cluster's block `rank`.
  __device__ __forceinline__ static void cluster_shared_store(unsigned local, int rank, float v) {
    unsigned remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(remote) : "r"(local), "r"(rank));
    asm volatile("st.shared::cluster.f32 [%0], %1;\n" ::"r"(remote), "f"(v) : "memory");
  }
#endif

  // A split's sum from L2 (other blocks wrote it), leaving zero in its place.
  __device__ __forceinline__ static float take(float* at) {
    const float v = __ldcg(at);
    __stcg(at, 0.f);
    return v;
  }
  // Accumulator (i, j)'s place in the block tile, row-major.
  __device__ __forceinline__ static int output_of(const WarpTile<Cfg>& tile, int i, int j) {
    return (tile.row0 + (i / VM) * Cfg::TY * VM + i % VM) * Cfg::BN + tile.col0 +
           (j / VN) * Cfg::TX * VN + j % VN;
  }

  // C's rows start anywhere (ldc not a multiple of VN), but a warp's VN-wide chunks of one row are
  // adjacent (chunk b of lane tx at column TX * VN * b + VN * tx of the warp tile's row): so the
  // row is written as the VN-aligned windows it spans, each put together from two neighbouring
  // chunks by shuffles and stored as one vector. (Written directly, 1024x50257x768 nt took 4.3
  // times the L2 write sectors of its aligned twin on an H200.) Window j of a row starts s floats
  // before chunk j (s: the row's misalignment); lane tx owns window b * TX + tx. The row's first
  // window (head) and the one after its last chunk (tail) are partial: their floats go out one at
  // a time, the head's by lane 0 and the tail's by lane TX - 1, in the same instructions.
  template <int MODE>
  __device__ __forceinline__ static void windowed(const GemmArgs& p, const Scalars& scalars,
                                                  const BlockWork& w, const WarpTile<Cfg>& tile,
                                                  const Accumulators<Cfg>& acc, int tid,
                                                  float* gc) {
    constexpr bool store_c = MODE != kAdd;
    constexpr int NB = TN / VN, TX = Cfg::TX;
    int lane = tid % 32;
    asm volatile("" : "+r"(lane));  // computed after the K loop (as in staged())
    const int tx = (tile.col0 % Cfg::WN) / VN;
    const int first_col = w.n0 + tile.col0 - tx * VN;    // the warp tile's first column
    const int from = tx > 0 ? lane - 1 : lane + TX - 1;  // the lane holding the chunk before
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      const int r = w.m0 + tile.row0 + (i / VM) * Cfg::TY * VM + i % VM;
      float* row = gc + static_cast<long long>(r < p.m ? r : 0) * p.ldc + first_col;
      const int s = int((reinterpret_cast<unsigned long long>(row) / sizeof(float)) % VN);
      const int room = r < p.m ? p.n - first_col : 0;  // columns of this row the warp may write
      float before[NB][VN];  // chunk b of the lane `from`; a window takes at most its last VN - 1
#pragma unroll
      for (int b = 0; b < NB; ++b) {
        before[b][0] = 0.f;
#pragma unroll
        for (int e = 1; e < VN; ++e)
          before[b][e] = __shfl_sync(0xffffffffu, acc[i][b * VN + e], from);
      }
      float head[VN];
#pragma unroll
      for (int b = 0; b < NB; ++b) {
        const float* x = &acc[i][b * VN];
        float prev
            [VN];  // by value: a pointer chosen at run time would put the arrays in local memory
#pragma unroll
        for (int e = 0; e < VN; ++e)
          prev[e] = tx > 0 || b == 0 ? before[b][e] : before[b > 0 ? b - 1 : 0][e];
        float win[VN];
#pragma unroll
        for (int e = 0; e < VN; ++e) {
          float v = x[e];
#pragma unroll
          for (int t = 1; t < VN; ++t)
            if (s == t) v = e < t ? prev[VN - t + e] : x[e - t];
          win[e] = v;
        }
        const int j = b * TX + tx, start = j * VN - s;  // the window's columns from first_col
        if (j == 0) {
#pragma unroll
          for (int e = 0; e < VN; ++e) head[e] = win[e];
        }
        if (start >= 0 && start + VN <= room) {
          write_c<VN, MODE>(scalars, row + start, win, store_c);
        } else if (j > 0 || s == 0) {  // past N (a misaligned head is written below)
#pragma unroll
          for (int e = 0; e < VN; ++e)
            if (start + e < room) write_c<1, MODE>(scalars, row + start + e, &win[e], store_c);
        }
      }
      // The partial windows: the head (columns [0, VN - s)) and the tail (the last chunk's last s).
      const float* last = &acc[i][(NB - 1) * VN];
      float tail[VN];
#pragma unroll
      for (int e = 0; e < VN; ++e) {
        float v = 0.f;
#pragma unroll
        for (int t = 1; t < VN; ++t)
          if (s == t && e < t) v = last[VN - t + e];
        tail[e] = v;
      }
      const int tail_start = NB * TX * VN - s;
      if constexpr (TX > 1) {
        const bool is_head = tx == 0 && s > 0, is_tail = tx == TX - 1 && s > 0;
        const int start = is_head ? -s : tail_start, lo = is_head ? s : 0, hi = is_head ? VN : s;
#pragma unroll
        for (int e = 0; e < VN; ++e) {
          const float v = is_head ? head[e] : tail[e];
          if ((is_head || is_tail) && e >= lo && e < hi && start + e < room)
            write_c<1, MODE>(scalars, row + start + e, &v, store_c);
        }
      } else if (s > 0) {  // one lane owns the whole row
#pragma unroll
        for (int e = 0; e < VN; ++e) {
          if (e >= s && e - s < room) write_c<1, MODE>(scalars, row + e - s, &head[e], store_c);
          if (e < s && tail_start + e < room)
            write_c<1, MODE>(scalars, row + tail_start + e, &tail[e], store_c);
        }
      }
    }
  }

  // Accumulator row i of every lane of a warp covers TY rows of the warp tile (one per lane row
  // ty), all WN columns: staged as TY rows of kStagedLd floats, then written 32 adjacent floats
  // per instruction, each lane TN of them.
  __device__ __forceinline__ static void staged(const GemmArgs& p, const Scalars& scalars,
                                                const BlockWork& w, const WarpTile<Cfg>& tile,
                                                const Accumulators<Cfg>& acc, float* smem, int tid,
                                                float* gc, bool store_c) {
    int lane = tid % 32;
    // Opaque from here on: what follows from the lane is computed after the K loop, not hoisted
    // before it to hold registers through it (which cost a block per SM at 64x128 tiles).
    asm volatile("" : "+r"(lane));
    const int ty = lane / Cfg::TX, tx = lane % Cfg::TX;
    const int wm0 = tile.row0 - ty * VM, wn0 = tile.col0 - tx * VN;  // the warp tile's corner
    float* rows = smem + (tid / 32) * Cfg::TY * kStagedLd;
    __syncthreads();  // every warp is done reading the mainloop's last slice
#pragma unroll
    for (int i = 0; i < TM; ++i) {
#pragma unroll
      for (int c = 0; c < TN / VN; ++c) {
        Vec<VN> v;
#pragma unroll
        for (int e = 0; e < VN; ++e) v.v[e] = acc[i][c * VN + e];
        store_vec<VN>(rows + ty * kStagedLd + tx * VN + c * Cfg::TX * VN, v);
      }
      __syncwarp();
      const int row_in_group = (i / VM) * Cfg::TY * VM + i % VM;
#pragma unroll
      for (int q = 0; q < TN; ++q) {
        const int at = q * 32 + lane, y = at / Cfg::WN, x = at % Cfg::WN;
        const int r = w.m0 + wm0 + y * VM + row_in_group, col = w.n0 + wn0 + x;
        if (r < p.m && col < p.n)
          write_c<1>(scalars, gc + r * p.ldc + col, rows + y * kStagedLd + x, store_c);
      }
      __syncwarp();  // the row is written out before the next one is staged over it
    }
  }
};

}  // namespace detail
}  // namespace gemmtune
