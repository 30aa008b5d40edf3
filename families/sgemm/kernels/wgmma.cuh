// The warpgroup mainloop of the FP32 GEMM family (WGMMA = 1; sm_90a): Hopper's wgmma.mma_async
// with TF32 operands read from shared memory by the instruction itself.
//
// An operand that is K-major already, with rows 16-byte aligned (A of nn and nt, B of nt and tt),
// is read in place with math 1: one tensor copy (cp.async.bulk.tensor, through the tensor map in
// WarpgroupArgs) moves a slice of it into shared memory, swizzled by the copy unit, and fills what
// lies past M, N or K with zeros. The tensor cores then truncate its floats to TF32 where the split
// copy rounds them. The launcher first copies the other operands (gemmtune_pack_split, pack.cuh)
// into the workspace as K-major planes: row r of A's plane is row r of op(A), of B's column r of
// op(B), K rounded up to 32 floats, rows padded with zeros up to whole BM (BN) tiles. The big plane
// holds tf32(x), the small plane after it tf32(x - tf32(x)) (math >= 2): the split is done once per
// element instead of in every warp (mma.cuh). The copy stores each tile's slices (rows x 32 floats)
// whole and in their shared-memory order below, so one bulk copy (cp.async.bulk, the TMA unit)
// moves a slice of a plane: no bounds checks, every layout and leading dimension at full width, and
// a single thread issues all of a block's copies.
//
// Shared memory: per stage the A big, B big (then A small, B small) tiles, each `rows` x 32 floats:
// one 128-byte row per tile row, the 16-byte chunks of row r stored at chunk index c ^ (r % 8) (the
// instruction's 128-byte swizzle, from 1024-byte aligned tiles), so that the 8 rows a core matrix
// reads hit different banks. A k8 step of a tile is then its descriptor advanced by 32 bytes. After
// the stages, two barriers (mbarrier) per stage: `full` counts its copies' bytes, `empty` the
// threads done reading it.
//
// A block is BM / 64 warpgroups, each computing a 64 x BN slab (one instruction per k8 step and
// product: m64nBNk8). Warp w of the block holds rows 16 w + g and 16 w + g + 8, columns 8 i + 2 t
// and + 1 (g = lane / 4, t = lane % 4): mma.cuh's accumulator layout with a 16 x BN warp tile, so
// that WarpTile and the Epilogue serve both. MATH as in mma.cuh; math 3 sums each 32-wide slice
// in accumulator rows TM.. from zero and adds them to rows 0.. with FADD.
//
// Each slice: every thread waits for its stage's `full` barrier and issues the slice's
// instructions. With math 1 and 2 (every product in the same accumulators) it then waits for the
// previous slice's instructions only, so that this slice's keep the tensor cores busy meanwhile;
// math 3 and 4 wait for this slice's (they add its sums to the totals). A slice whose instructions are done is released: every thread arrives on
// its stage's `empty` barrier, and thread 0, once all have, starts the copy of the slice STAGES
// later into that stage. No block-wide barrier in the loop: a warpgroup may run a slice ahead.
namespace gemmtune {
namespace detail {

// The shared-memory matrix descriptor of a K-major tile with 128-byte swizzle at `address`
// (shared window, 1024-byte aligned or advanced from such by k steps): the start address / 16,
// the stride from one 8-row core matrix group to the next (1024 bytes) / 16, swizzle mode 1.
// The leading-dimension offset is unused in this mode (1 by convention).
__device__ __forceinline__ unsigned long long wgmma_descriptor(unsigned address) {
  return (unsigned long long)((address & 0x3FFFF) >> 4) | (1ull << 16) | ((1024ull >> 4) << 32) |
         (1ull << 62);
}

// d += a * b (d = a * b when !accumulate) for one m64nNk8 TF32 instruction; d's N / 2 registers
// per thread are lo (row g) and hi (row g + 8): register 4 i + 2 h + e is (h ? hi : lo)[2 i + e].
// (Written out per N: inline assembly names every register.)
template <int N>
__device__ __forceinline__ void wgmma_tf32(float (&lo)[N / 4], float (&hi)[N / 4],
                                           unsigned long long a, unsigned long long b,
                                           bool accumulate) {
  if constexpr (N == 32) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n32k8.f32.tf32.tf32 "
        "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15}, %16, %17, p, 1, 1;\n}\n"
        : "+f"(lo[0]), "+f"(lo[1]), "+f"(hi[0]), "+f"(hi[1]), "+f"(lo[2]), "+f"(lo[3]), "+f"(hi[2]),
          "+f"(hi[3]), "+f"(lo[4]), "+f"(lo[5]), "+f"(hi[4]), "+f"(hi[5]), "+f"(lo[6]), "+f"(lo[7]),
          "+f"(hi[6]), "+f"(hi[7])
        : "l"(a), "l"(b), "r"(int(accumulate)));
  } else if constexpr (N == 64) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 "
        "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%"
        "24,%25,%26,%27,%28,%29,%30,%31}, %32, %33, p, 1, 1;\n}\n"
        : "+f"(lo[0]), "+f"(lo[1]), "+f"(hi[0]), "+f"(hi[1]), "+f"(lo[2]), "+f"(lo[3]), "+f"(hi[2]),
          "+f"(hi[3]), "+f"(lo[4]), "+f"(lo[5]), "+f"(hi[4]), "+f"(hi[5]), "+f"(lo[6]), "+f"(lo[7]),
          "+f"(hi[6]), "+f"(hi[7]), "+f"(lo[8]), "+f"(lo[9]), "+f"(hi[8]), "+f"(hi[9]),
          "+f"(lo[10]), "+f"(lo[11]), "+f"(hi[10]), "+f"(hi[11]), "+f"(lo[12]), "+f"(lo[13]),
          "+f"(hi[12]), "+f"(hi[13]), "+f"(lo[14]), "+f"(lo[15]), "+f"(hi[14]), "+f"(hi[15])
        : "l"(a), "l"(b), "r"(int(accumulate)));
  } else if constexpr (N == 128) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 "
        "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%"
        "24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%"
        "46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}, %64, %65, p, 1, "
        "1;\n}\n"
        : "+f"(lo[0]), "+f"(lo[1]), "+f"(hi[0]), "+f"(hi[1]), "+f"(lo[2]), "+f"(lo[3]), "+f"(hi[2]),
          "+f"(hi[3]), "+f"(lo[4]), "+f"(lo[5]), "+f"(hi[4]), "+f"(hi[5]), "+f"(lo[6]), "+f"(lo[7]),
          "+f"(hi[6]), "+f"(hi[7]), "+f"(lo[8]), "+f"(lo[9]), "+f"(hi[8]), "+f"(hi[9]),
          "+f"(lo[10]), "+f"(lo[11]), "+f"(hi[10]), "+f"(hi[11]), "+f"(lo[12]), "+f"(lo[13]),
          "+f"(hi[12]), "+f"(hi[13]), "+f"(lo[14]), "+f"(lo[15]), "+f"(hi[14]), "+f"(hi[15]),
          "+f"(lo[16]), "+f"(lo[17]), "+f"(hi[16]), "+f"(hi[17]), "+f"(lo[18]), "+f"(lo[19]),
          "+f"(hi[18]), "+f"(hi[19]), "+f"(lo[20]), "+f"(lo[21]), "+f"(hi[20]), "+f"(hi[21]),
          "+f"(lo[22]), "+f"(lo[23]), "+f"(hi[22]), "+f"(hi[23]), "+f"(lo[24]), "+f"(lo[25]),
          "+f"(hi[24]), "+f"(hi[25]), "+f"(lo[26]), "+f"(lo[27]), "+f"(hi[26]), "+f"(hi[27]),
          "+f"(lo[28]), "+f"(lo[29]), "+f"(hi[28]), "+f"(hi[29]), "+f"(lo[30]), "+f"(lo[31]),
          "+f"(hi[30]), "+f"(hi[31])
        : "l"(a), "l"(b), "r"(int(accumulate)));
  } else if constexpr (N == 256) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 "
        "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%"
        "24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%"
        "46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%"
        "68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%"
        "90,%91,%92,%93,%94,%95,%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%"
        "110,%111,%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127},"
        " %128, %129, p, 1, 1;\n}\n"
        : "+f"(lo[0]), "+f"(lo[1]), "+f"(hi[0]), "+f"(hi[1]), "+f"(lo[2]), "+f"(lo[3]), "+f"(hi[2]),
          "+f"(hi[3]), "+f"(lo[4]), "+f"(lo[5]), "+f"(hi[4]), "+f"(hi[5]), "+f"(lo[6]), "+f"(lo[7]),
          "+f"(hi[6]), "+f"(hi[7]), "+f"(lo[8]), "+f"(lo[9]), "+f"(hi[8]), "+f"(hi[9]),
          "+f"(lo[10]), "+f"(lo[11]), "+f"(hi[10]), "+f"(hi[11]), "+f"(lo[12]), "+f"(lo[13]),
          "+f"(hi[12]), "+f"(hi[13]), "+f"(lo[14]), "+f"(lo[15]), "+f"(hi[14]), "+f"(hi[15]),
          "+f"(lo[16]), "+f"(lo[17]), "+f"(hi[16]), "+f"(hi[17]), "+f"(lo[18]), "+f"(lo[19]),
          "+f"(hi[18]), "+f"(hi[19]), "+f"(lo[20]), "+f"(lo[21]), "+f"(hi[20]), "+f"(hi[21]),
          "+f"(lo[22]), "+f"(lo[23]), "+f"(hi[22]), "+f"(hi[23]), "+f"(lo[24]), "+f"(lo[25]),
          "+f"(hi[24]), "+f"(hi[25]), "+f"(lo[26]), "+f"(lo[27]), "+f"(hi[26]), "+f"(hi[27]),
          "+f"(lo[28]), "+f"(lo[29]), "+f"(hi[28]), "+f"(hi[29]), "+f"(lo[30]), "+f"(lo[31]),
          "+f"(hi[30]), "+f"(hi[31]), "+f"(lo[32]), "+f"(lo[33]), "+f"(hi[32]), "+f"(hi[33]),
          "+f"(lo[34]), "+f"(lo[35]), "+f"(hi[34]), "+f"(hi[35]), "+f"(lo[36]), "+f"(lo[37]),
          "+f"(hi[36]), "+f"(hi[37]), "+f"(lo[38]), "+f"(lo[39]), "+f"(hi[38]), "+f"(hi[39]),
          "+f"(lo[40]), "+f"(lo[41]), "+f"(hi[40]), "+f"(hi[41]), "+f"(lo[42]), "+f"(lo[43]),
          "+f"(hi[42]), "+f"(hi[43]), "+f"(lo[44]), "+f"(lo[45]), "+f"(hi[44]), "+f"(hi[45]),
          "+f"(lo[46]), "+f"(lo[47]), "+f"(hi[46]), "+f"(hi[47]), "+f"(lo[48]), "+f"(lo[49]),
          "+f"(hi[48]), "+f"(hi[49]), "+f"(lo[50]), "+f"(lo[51]), "+f"(hi[50]), "+f"(hi[51]),
          "+f"(lo[52]), "+f"(lo[53]), "+f"(hi[52]), "+f"(hi[53]), "+f"(lo[54]), "+f"(lo[55]),
          "+f"(hi[54]), "+f"(hi[55]), "+f"(lo[56]), "+f"(lo[57]), "+f"(hi[56]), "+f"(hi[57]),
          "+f"(lo[58]), "+f"(lo[59]), "+f"(hi[58]), "+f"(hi[59]), "+f"(lo[60]), "+f"(lo[61]),
          "+f"(hi[60]), "+f"(hi[61]), "+f"(lo[62]), "+f"(lo[63]), "+f"(hi[62]), "+f"(hi[63])
        : "l"(a), "l"(b), "r"(int(accumulate)));
  } else {
    static_assert(N == 32 || N == 64 || N == 128 || N == 256,
                  "wgmma tiles here are 32, 64, 128 or 256 wide");
  }
}

template <class Cfg>
struct WgmmaMainloop {
  static_assert(Cfg::BK == 32, "a warpgroup slice is one 128-byte swizzle row: bk 32");
  static_assert(Cfg::BM % 64 == 0 && Cfg::WM == 16 && Cfg::WN == Cfg::BN,
                "64-row slabs of 16-row warp tiles");
  enum : int {
    kPlanes = warpgroup_planes(Cfg::MATH),
    kTileA = warpgroup_tile_bytes(Cfg::BM),  // bytes of one plane's tile
    kTileB = warpgroup_tile_bytes(Cfg::BN),
    kStage = warpgroup_stage_bytes(Cfg::MATH, Cfg::BM, Cfg::BN),
    kSum = Cfg::MATH >= 3 ? Cfg::TM : 0,  // first accumulator row the instructions add into
  };
  const float* a;  // this block's tile of A's big plane (its slices one after another)
  const float* b;
  const TensorMap* map_a;  // A read in place: its tensor map (in the argument block); else null
  const TensorMap* map_b;
  int m0, n0, batch;           // this block's first row of op(A), column of op(B), and matrix
  long long a_plane, b_plane;  // floats from big to small plane
  unsigned base;               // 1024-byte aligned shared address of stage 0
  unsigned full, empty;        // shared addresses of stage 0's barriers (8 bytes each)
  int first, slices;           // this block's K slices
  int tid;

  __device__ __forceinline__ WgmmaMainloop(const GemmArgs& p, const BlockWork& w, float* smem,
                                           int tid_, const WarpgroupArgs& g)
      : map_a(g.a_in_place ? &g.a : nullptr),
        map_b(g.b_in_place ? &g.b : nullptr),
        m0(w.m0),
        n0(w.n0),
        batch(w.batch),
        tid(tid_) {
    // The split copies' planes: K rounded up to 32 floats wide (lda, ldb), rows up to whole tiles.
    const long long rows_a = (p.m + Cfg::BM - 1) / Cfg::BM * Cfg::BM,
                    rows_b = (p.n + Cfg::BN - 1) / Cfg::BN * Cfg::BN;
    a = p.a + w.batch * p.stride_a + w.m0 * p.lda, a_plane = rows_a * p.lda;
    b = p.b + w.batch * p.stride_b + w.n0 * p.ldb, b_plane = rows_b * p.ldb;
    base = (unsigned(__cvta_generic_to_shared(smem)) + 1023) & ~1023u;
    full = base + Cfg::STAGES * kStage, empty = full + 8 * Cfg::STAGES;
    first = w.k_begin / 32;
    slices = (w.k_end + 31) / 32 - first;  // the planes' padding columns are zeros
  }

  // One tensor copy of the box at (k, row, matrix) of the tensor `map` describes to shared `dst`,
  // counted on barrier `bar`.
  __device__ __forceinline__ static void tensor_copy(unsigned dst, const TensorMap* map, int k,
                                                     int row, int matrix, unsigned bar) {
    asm volatile(
        "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], "
        "[%1, {%2, %3, %4}], [%5];\n" ::"r"(dst),
        "l"(reinterpret_cast<unsigned long long>(map)), "r"(k), "r"(row), "r"(matrix), "r"(bar)
        : "memory");
  }

  // One bulk copy of `bytes` from global `src` to shared `dst`, counted on barrier `bar`.
  __device__ __forceinline__ static void bulk_copy(unsigned dst, const float* src, int bytes,
                                                   unsigned bar) {
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, "
        "[%3];\n" ::"r"(dst),
        "l"(src), "r"(bytes), "r"(bar)
        : "memory");
  }

  // Thread 0: the slice's tiles of every plane into stage `slot`; its barrier completes when all
  // their bytes have landed.
  __device__ __forceinline__ void copy_slice(int slice, int slot) const {
    const unsigned s = base + slot * kStage, bar = full + 8 * slot;
    const long long at_a = (first + slice) * (Cfg::BM * 32LL),
                    at_b = (first + slice) * (Cfg::BN * 32LL);
    asm volatile(
        "{\n.reg .b64 state;\nmbarrier.arrive.expect_tx.shared::cta.b64 state, [%0], %1;\n}\n" ::
            "r"(bar),
        "r"(int(kStage))
        : "memory");
    const int k =
        32 * (first + slice);  // in place, the copy unit fills past K (and M, N) with zeros
    if (map_a)
      tensor_copy(s, map_a, k, m0, batch, bar);
    else
      bulk_copy(s, a + at_a, kTileA, bar);
    if (map_b)
      tensor_copy(s + kTileA, map_b, k, n0, batch, bar);
    else
      bulk_copy(s + kTileA, b + at_b, kTileB, bar);
    if constexpr (kPlanes == 2) {
      bulk_copy(s + kTileA + kTileB, a + a_plane + at_a, kTileA, bar);
      bulk_copy(s + 2 * kTileA + kTileB, b + b_plane + at_b, kTileB, bar);
    }
  }

  // Waits until the barrier at `bar` has completed the phase of parity `parity`.
  __device__ __forceinline__ static void wait_for(unsigned bar, int parity) {
    int done = 0;
    do {
      asm volatile(
          "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.b32 %0, "
          "1, 0, p;\n}\n"
          : "=r"(done)
          : "r"(bar), "r"(parity)
          : "memory");
    } while (!done);
  }

  // Slice `slice`'s instructions are done in this thread's warpgroup: its stage may be refilled
  // once every thread says so; thread 0 then copies the slice STAGES later into it.
  __device__ __forceinline__ void release(int slice) const {
    constexpr int STAGES = Cfg::STAGES;
    const int slot = slice % STAGES;
    asm volatile("{\n.reg .b64 state;\nmbarrier.arrive.shared::cta.b64 state, [%0];\n}\n" ::"r"(
                     empty + 8 * slot)
                 : "memory");
    if (tid == 0 && slice + STAGES < slices) {
      wait_for(empty + 8 * slot, (slice / STAGES) & 1);
      copy_slice(slice + STAGES, slot);
    }
  }

  // Issues the slice in `slot` times this warpgroup's 64 rows, into accumulator rows kSum,
  // kSum + 1; with math 3 and 4 also waits for it and adds its sums to the totals.
  __device__ __forceinline__ void compute(Accumulators<Cfg>& acc, int slot) const {
    const unsigned s = base + slot * kStage + (tid / 128) * 64 * 128;  // this warpgroup's A rows
    const unsigned long long a_big = wgmma_descriptor(s),
                             b_big = wgmma_descriptor(base + slot * kStage + kTileA);
    const unsigned long long a_small = wgmma_descriptor(s + kTileA + kTileB),
                             b_small = wgmma_descriptor(base + slot * kStage + 2 * kTileA + kTileB);
    auto& lo = acc[kSum];
    auto& hi = acc[kSum + 1];
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
      const unsigned long long step = 2 * kk;  // 32 bytes, in the descriptor's 16-byte units
      // A slice's sums (math 3) start from zero: its first product does not read them.
      if constexpr (Cfg::MATH >= 2)
        wgmma_tf32<Cfg::BN>(lo, hi, a_small + step, b_big + step, kSum == 0 || kk > 0);
      if constexpr (Cfg::MATH >= 2) wgmma_tf32<Cfg::BN>(lo, hi, a_big + step, b_small + step, true);
      if constexpr (Cfg::MATH == 4)
        wgmma_tf32<Cfg::BN>(lo, hi, a_small + step, b_small + step, true);
      // Always adds: after this step's other products, or (math 1) to the cleared accumulators.
      wgmma_tf32<Cfg::BN>(lo, hi, a_big + step, b_big + step, true);
    }
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    if constexpr (kSum > 0) {
      asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
#pragma unroll
      for (int i = 0; i < Cfg::TM; ++i)
#pragma unroll
        for (int j = 0; j < Cfg::TN; ++j) acc[i][j] += acc[kSum + i][j];
    }
  }

  __device__ __forceinline__ void operator()(const WarpTile<Cfg>&, Accumulators<Cfg>& acc) const {
    constexpr int STAGES = Cfg::STAGES;
    if (tid == 0) {
      for (int s = 0; s < STAGES; ++s) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(full + 8 * s));
        asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(empty + 8 * s),
                     "r"(int(Cfg::kThreads)));
      }
      asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
      // Launched right after a split copy, the kernel may start before it ends: its results are
      // complete and visible after this wait (which returns at once otherwise).
      asm volatile("griddepcontrol.wait;\n" ::: "memory");
      for (int t = 0; t < STAGES && t < slices; ++t) copy_slice(t, t);
    }
    __syncthreads();  // the barriers are initialised
    for (int t = 0; t < slices; ++t) {
      wait_for(full + 8 * (t % STAGES), (t / STAGES) & 1);
      compute(acc, t % STAGES);
      if constexpr (kSum > 0) {
        release(t);
      } else {
        asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
        if (t > 0) release(t - 1);
      }
    }
    if constexpr (kSum == 0) asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    __syncthreads();  // nobody waits on the barriers any more: their memory may be reused (staged C)
    if (tid == 0)
      for (int s = 0; s < 2 * STAGES; ++s)
        asm volatile("mbarrier.inval.shared::cta.b64 [%0];\n" ::"r"(full + 8 * s));
  }
};

}  // namespace detail
}  // namespace gemmtune
