// The epilogue of the FP32 GEMM family: C = alpha * acc + beta * C, and split-K's protocol.
namespace gemmtune {
namespace detail {

// Split-K in one launch. The first split of a tile to finish writes alpha * acc + beta * C with
// plain stores, like an unsplit kernel, and raises the tile's flag; every other split waits for
// the flag, then adds alpha * acc atomically. The first split never waits, so every wait ends.
// The tile's counter holds tickets (bits 0-9), splits done with the counter (bits 10-19) and the
// flag (bit 20); the last split done resets it, so counters are zero between launches.
struct SplitKCounter {
  static constexpr int kTicket = 1, kDone = 1 << 10, kFlag = 1 << 20;

  // Block-wide: takes this split's ticket; true for the first split. The others return once the
  // first split's C is visible (and are then done with the counter).
  template <int SPLIT_K>
  __device__ __forceinline__ static bool arrive(int* counter, int tid) {
    __shared__ int first;
    if (tid == 0) {
      first = (atomicAdd(counter, kTicket) & (kDone - 1)) == 0;
      if (!first) {
        while ((*reinterpret_cast<volatile int*>(counter) & kFlag) == 0) __nanosleep(32);
        __threadfence();
        leave<SPLIT_K>(counter, kDone);
      }
    }
    __syncthreads();
    return first;
  }
  // Block-wide, first split only, after its stores to C: makes them visible, raises the flag.
  template <int SPLIT_K>
  __device__ __forceinline__ static void publish(int* counter, int tid) {
    __threadfence();
    __syncthreads();
    if (tid == 0) leave<SPLIT_K>(counter, kFlag + kDone);
  }
  template <int SPLIT_K>
  __device__ __forceinline__ static void leave(int* counter, int add) {
    int before = atomicAdd(counter, add);
    if ((before / kDone) % (kFlag / kDone) == SPLIT_K - 1) atomicExch(counter, 0);  // last one out
  }
};

// Writes a block's accumulators to C. Each thread's VN-wide column chunks go out as vectors of W
// floats (Traits::WC: Traits::W narrowed where C's data is not aligned to it), one bounds test
// each; rows past M and vectors past N are skipped.
// C = alpha * acc + beta * C, and C is not read when beta == 0, so NaN in an uninitialised C
// cannot leak in. With SPLIT_K > 1 only the first split of a tile to finish does that; the others
// wait for it, then add alpha * acc atomically (SplitKCounter).
template <class Cfg>
struct Epilogue {
  __device__ __forceinline__ static void run(const GemmArgs& p, const BlockWork& w,
                                             const WarpTile<Cfg>& tile,
                                             const Accumulators<Cfg>& acc, int tid) {
    constexpr int TM = Cfg::TM, TN = Cfg::TN, VM = Cfg::VM, VN = Cfg::VN, W = Cfg::WC,
                  SPLIT_K = Cfg::SPLIT_K;
    int* const tile_counter =
        p.tile_counters + static_cast<long long>(w.batch) * gridDim.x + blockIdx.x;
    bool store_c = true;
    if constexpr (SPLIT_K > 1) store_c = SplitKCounter::arrive<SPLIT_K>(tile_counter, tid);

    // In a reduction the KL lanes of a thread tile hold the same sums, and the first warp holds
    // those of all KW: its first lane of each tile writes.
    if (!Cfg::kReduce || (tid % Cfg::KL == 0 && tid < Cfg::kOutputWarps * 32)) {
      float* gc = p.c + w.batch * p.stride_c;
#pragma unroll
      for (int i = 0; i < TM; ++i) {
        const int r = w.m0 + tile.row0 + (i / VM) * Cfg::TY * VM + i % VM;
        if (r >= p.m) continue;
#pragma unroll
        for (int c = 0; c < TN / VN; ++c) {
#pragma unroll
          for (int v = 0; v < VN / W; ++v) {
            const int col = w.n0 + tile.col0 + c * Cfg::TX * VN + v * W;
            if (col >= p.n) continue;
            float* dst = gc + r * p.ldc + col;
            Vec<W> out;
            if (SPLIT_K > 1 && !store_c) {
#pragma unroll
              for (int j = 0; j < W; ++j) out.v[j] = p.alpha * acc[i][c * VN + v * W + j];
              atomic_add_vec<W>(dst, out);
              continue;
            }
            if (p.beta == 0.f) {  // C is not read: NaN in an uninitialised C must not leak in
#pragma unroll
              for (int j = 0; j < W; ++j) out.v[j] = p.alpha * acc[i][c * VN + v * W + j];
            } else {
              Vec<W> old = load_vec<W>(dst);
#pragma unroll
              for (int j = 0; j < W; ++j)
                out.v[j] = fmaf(p.alpha, acc[i][c * VN + v * W + j], p.beta * old.v[j]);
            }
            store_vec<W>(dst, out);
          }
        }
      }
    }
    if constexpr (SPLIT_K > 1) {
      if (store_c) SplitKCounter::publish<SPLIT_K>(tile_counter, tid);
    }
  }
};

}  // namespace detail
}  // namespace gemmtune
