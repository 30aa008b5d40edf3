// The FP32 GEMM kernel family, compiled at run time by NVRTC. Embedded as one source, in this
// order (families/CMakeLists.txt): templates/include/gemmtune/kernel_args.h (GemmArgs, PackArgs),
// ../include/gemmtune/sgemm/shapes.hpp (the kernel paths and the shapes the host sizes too),
// memory.cuh, mma.cuh, tiles.cuh, wgmma.cuh, mainloops.cuh, epilogue.cuh, pack.cuh (this
// folder's), this file.
//
// C = alpha * op(A) * op(B) + beta * C, row-major, any M, N, K >= 1, batched by blockIdx.z.
// A block computes a BM x BN tile of C stepping through K in BK slices; its warps each own a
// WM x WN warp tile; each thread accumulates a TM x TN tile in registers by outer products of
// fragments. Its components:
//   Traits (tiles.cuh)              the knobs of an instance and the shapes derived from them
//   BlockWork (tiles.cuh)           a block's C tile (rasterized), batch and share of K (split-K)
//   batch_a/b/c (tiles.cuh)         a batch's matrices: by stride, or from device pointer arrays
//   Accumulators (tiles.cuh)        a thread's TM x TN accumulators, in registers
//   WarpTile (tiles.cuh)            where they lie in the warp tile, and compute(): the fragment
//                                   step on one shared-memory slice (FMA, or mma_slice() of
//                                   mma.cuh: tensor cores, MATH > 0)
//   TileLoader (tiles.cuh)          one operand's BK-slice, global -> shared memory, K-major, by
//                                   registers or cp.async; transposes K-contiguous operands
//   OperandSlices (tiles.cuh)       both operands' slices and shared buffers, for the mainloops
//   WgmmaMainloop (wgmma.cuh)       WGMMA: bulk copies of packed TF32 parts (or tensor copies of
//                                   operands read in place) into swizzled shared memory,
//                                   products by the warpgroup instruction
//   ReductionMainloop (mainloops)   K_LANES or K_WARPS > 1: lanes (and warps) split each output's
//                                   K range, read A and B from global memory and sum with
//                                   shuffles (and shared memory): dot products, matrix-vector
//                                   products
//   StreamingMainloop (mainloops)   thin tiles (BM <= 8, TM == BM, B not transposed): B streams
//                                   from global memory into registers, no shared memory
//   RegisterPrefetchMainloop        stages 1 (load-sync-compute) and 2 (register double buffer)
//   CpAsyncMainloop                 stages >= 3: a cp.async ring of STAGES shared buffers
//   Mainloop (mainloops.cuh)        picks the mainloop of the instance's kernel path (KernelPath,
//                                   gemmtune/sgemm/shapes.hpp) at compile time; each is set up
//                                   (operand addresses), then run (the K loop)
//   Epilogue (epilogue.cuh)         alpha/beta, vector stores; split-K's protocol (the first split
//                                   to start scales C by beta, all add: SplitKCounter), or
//                                   (ORDERED_SPLITS) the last split adding all splits' sums
//                                   (last_split_sums), or (PRESCALE_C) adds alone, or
//                                   (CLUSTER_SPLITS) the first block of the splits' cluster
//                                   adding their sums from distributed shared memory
//   gemmtune_prescale_c (pack.cuh)  not part of an instance: C = beta C, launched before each
//                                   PRESCALE_C instance (GemmConfig::prescale_c)
//   gemmtune_pack_operand (pack.cuh) not part of an instance: the copy that repack configs run
//                                   first, in their cubins only (GemmConfig::repack)
//
// Each knob is a template parameter; GemmConfig::validate() (families/sgemm/src/config.cpp) states
// which combinations are valid, and the launcher (runtime/src/kernel/kernel.cpp) sizes the grid.
namespace gemmtune {

// One instance of the family. Template parameters, in the knob table's order (gemmtune/sgemm/
// knobs.hpp has their defaults and values; a unit test checks the order):
//   BM, BN, BK   block tile of C and the K slice per stage
//   WM, WN       warp tile; (WM/TM) * (WN/TN) == 32
//   TM, TN       thread tile (accumulators per thread)
//   STAGES       1: load-sync-compute; 2: register prefetch (double buffer); >=3: cp.async ring
//   VEC          floats per global access (1, 2, 4)
//   PAD          floats of padding per shared row against bank conflicts
//   SPLIT_K      K slices computed by separate blocks, each adding its sums to C atomically once the
//                tile's first split to start has scaled C by beta (SplitKCounter)
//   RASTER       tile-rows per rasterization group
//   OCCUPANCY    blocks per SM the registers are budgeted for (__launch_bounds__ minimum)
//   K_LANES      lanes of a warp sharing each thread tile's K range (> 1: ReductionMainloop)
//   K_WARPS      warps of a block sharing it, summed through shared memory (> 1: the same)
//   MATH         0: FP32 FMA; 1-4: tensor cores, mma.sync TF32 with 1 or 3 (4) products per
//                multiply for TF32 or FP32 accuracy (mma.cuh); the thread tile is then the
//                instruction's accumulator layout (TM = WM / 8, TN = WN / 4)
//   WGMMA        1: the products on the warpgroup instruction (wgmma.cuh, sm_90a), A and B read
//                from the split, K-major copies the launcher packs first (gemmtune_pack_split),
//                or with math 1 in place through tensor maps where stored along K; such
//                instances are compiled as sgemm_wgmma, which takes the maps (WarpgroupArgs)
//   TA, TB       op(A), op(B) transposed
//   GA, GB, GC   floats per global access of A, B and C: VEC, or less where that operand's data is
//                not aligned to VEC floats (GemmConfig::fitted_to), so that an odd leading
//                dimension narrows only its own operand; the inner loop does not depend on them.
//                A repack config instead copies such an A or B into aligned rows first
//                (gemmtune_pack_operand) and runs the instance with that operand at full width:
//                the same instance, and binary, as for aligned data
//   STAGE_C      C's narrowed stores go through shared memory, 32 adjacent floats per store
//                instruction (Epilogue::staged; GemmConfig::stage_c, names ending in "_e")
//   SPLIT_TAIL   SPLIT_K splits only the tiles past whole rounds of one per SM; the others unsplit
//                (BlockWork::of_split_tail; GemmConfig::split_tail, names ending in "_h")
//   WINDOW_C     C's narrowed stores as the aligned vectors its rows span, put together from
//                neighbouring lanes' chunks by shuffles (Epilogue::windowed; GemmConfig::window_c,
//                names ending in "_c")
//   ORDERED_SPLITS  a split reduction's splits store their sums and the last adds them in split
//                order, the same bits on every run (Epilogue::last_split_sums;
//                GemmConfig::ordered_splits, names ending in "_d")
//   PRESCALE_C   a split kernel's C is scaled by beta beforehand by gemmtune_prescale_c, and the
//                splits only add (no counters); GemmConfig::prescale_c, names ending in "_z"
//   PLAIN_NARROW_RUNS  a reduction reads the narrowed runs of its read-once operand with plain
//                loads instead of evict-first in L2 (ReductionMainloop);
//                GemmConfig::plain_narrow_runs, names ending in "_n"
//   CLUSTER_SPLITS  a split reduction's splits are the blocks of one cluster, launched with
//                cluster dimensions (1, 1, SPLIT_K), and add their sums through distributed shared
//                memory in split order (Epilogue::cluster_split_sums; GemmConfig::cluster_splits,
//                names ending in "_x")
//   EARLY_BARRIER  the two-stage FMA loop stores the next slice and passes the barrier before
//                the slice's last k-step (RegisterPrefetchMainloop); GemmConfig::early_barrier,
//                names ending in "_b"
namespace detail {
// A block's work: its tile (and share of K), the mainloop, the epilogue. `extra` goes to the
// mainloop's set-up (the warpgroup kernels' tensor maps).
template <class Cfg, class... Extra>
__device__ __forceinline__ void run_block(const GemmArgs& p, const Extra&... extra) {
  extern __shared__ __align__(16) float smem[];
  const int tid = threadIdx.x;
  const BlockWork w = BlockWork::of<Cfg>(p);
  if (w.empty()) return;
  Epilogue<Cfg>::start(p, w, tid);  // split-K: the tile's first split scales C by beta
  // Operand addresses before the thread's position: the order of the former one-piece kernel,
  // to which ptxas's scheduling and register allocation are sensitive.
  const Mainloop<Cfg> mainloop(p, w, smem, tid, extra...);
  const WarpTile<Cfg> tile(tid);
  Accumulators<Cfg> acc;
  clear<Cfg>(acc);
  mainloop(tile, acc);
  Epilogue<Cfg>::run(p, w, tile, acc, smem, tid);
}
}  // namespace detail

// clang-format off
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int STAGES, int VEC, int PAD, int SPLIT_K, int RASTER, int OCCUPANCY, int K_LANES, int K_WARPS, int MATH, int WGMMA, bool TA, bool TB, int GA, int GB, int GC, bool STAGE_C = false, bool SPLIT_TAIL = false, bool WINDOW_C = false, bool ORDERED_SPLITS = false, bool PRESCALE_C = false, bool PLAIN_NARROW_RUNS = false, bool CLUSTER_SPLITS = false, bool EARLY_BARRIER = false>
__global__ void __launch_bounds__(block_threads(BM, BN, WM, WN, K_WARPS), OCCUPANCY) sgemm(GemmArgs p) {
  detail::run_block<detail::Traits<BM, BN, BK, WM, WN, TM, TN, STAGES, VEC, PAD, SPLIT_K, RASTER, OCCUPANCY, K_LANES, K_WARPS, MATH, WGMMA, TA, TB, GA, GB, GC, STAGE_C, SPLIT_TAIL, WINDOW_C, ORDERED_SPLITS, PRESCALE_C, PLAIN_NARROW_RUNS, CLUSTER_SPLITS, EARLY_BARRIER>>(p);
}

// The entry point of warpgroup instances (WGMMA = 1; GemmConfig::name_expression): the same
// parameters, and the tensor maps of the operands it reads in place.
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int STAGES, int VEC, int PAD, int SPLIT_K, int RASTER, int OCCUPANCY, int K_LANES, int K_WARPS, int MATH, int WGMMA, bool TA, bool TB, int GA, int GB, int GC, bool STAGE_C = false, bool SPLIT_TAIL = false, bool WINDOW_C = false, bool ORDERED_SPLITS = false, bool PRESCALE_C = false, bool PLAIN_NARROW_RUNS = false, bool CLUSTER_SPLITS = false, bool EARLY_BARRIER = false>
__global__ void __launch_bounds__(block_threads(BM, BN, WM, WN, K_WARPS), OCCUPANCY) sgemm_wgmma(GemmArgs p, const __grid_constant__ WarpgroupArgs g) {
  detail::run_block<detail::Traits<BM, BN, BK, WM, WN, TM, TN, STAGES, VEC, PAD, SPLIT_K, RASTER, OCCUPANCY, K_LANES, K_WARPS, MATH, WGMMA, TA, TB, GA, GB, GC, STAGE_C, SPLIT_TAIL, WINDOW_C, ORDERED_SPLITS, PRESCALE_C, PLAIN_NARROW_RUNS, CLUSTER_SPLITS, EARLY_BARRIER>>(p, g);
}
// clang-format on

}  // namespace gemmtune
