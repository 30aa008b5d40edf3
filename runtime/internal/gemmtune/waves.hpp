#pragma once
// How a grid's blocks spread over a GPU's multiprocessors, in one place: the dispatcher's chooser
// weighs a config by how full its last wave is (its first, for a matrix-vector product), and the
// tuner's cost model times the busiest multiprocessor's rounds of blocks.

namespace gemmtune {

/// A grid on a GPU whose multiprocessors (SMs) each hold up to `per_sm` blocks at once. Blocks
/// are handed out as slots free up, so the busiest SM runs ceil(blocks / SMs) of them, in rounds
/// of `per_sm`. Counts are whole numbers held in double: a huge problem's overflow 64 bits.
struct Waves {
  double on_busiest = 0;   ///< blocks the busiest SM runs
  double resident = 0;     ///< of them at once: min(per_sm, on_busiest)
  double full_rounds = 0;  ///< rounds of `resident` blocks on the busiest SM
  double rest = 0;         ///< blocks of a last, partial round there (0: none)
  /// The share of the GPU's block slots (SMs x per_sm in each round) that hold a block: 1 when
  /// the last wave is full, less the emptier it is; 1 for no blocks.
  double fill = 1;
};

/// The waves of `blocks` blocks on `sms` SMs holding `per_sm` blocks each (values below 1 count
/// as 1).
Waves waves_of(double blocks, int sms, int per_sm);

/// Whether an M x N output makes a matrix-vector product (min(M, N) <= 8): one that streams its
/// matrix once, bound by bandwidth (the chooser's Regime::vector).
bool is_matrix_vector(long long m, long long n);

/// The fill a chooser weighs a grid of `blocks` blocks by, for an M x N output: the last wave's
/// (waves_of().fill), but for a matrix-vector product (is_matrix_vector) the first round's,
/// min(1, blocks / (SMs x per_sm)): such a product streams its matrix once, so once a round of
/// blocks keeps the memory system busy its time is the matrix's bytes over the bandwidth, and the
/// blocks of a last partial round take the bandwidth the others left (1x5120x2048 nn on an H200,
/// 2026-12-03: 1x4096x4096's config re-sized, passed over on its last wave's fill, ran 1.000x
/// cuBLAS against the 0.644x of the one taken; docs/PERFORMANCE.md, "The odd-size shipped rows
/// tuned with the default sweep").
double predicted_fill(double blocks, int sms, int per_sm, long long m, long long n);

/// Of a split_tail grid's `tiles`, those it splits: the ones past whole rounds of one tile per SM
/// (tiles mod SMs), which would otherwise leave most SMs idle in a last round.
double split_tail_tiles(double tiles, int sms);

}  // namespace gemmtune
