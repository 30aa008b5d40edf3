// The chain's last step: a problem that no database answers gets a config of its shape class.
// One 128x128 tile config for every shape ran dot products, matrix-vector products and deep-K
// problems at 0.04-12% of cuBLAS's speed on an H200 (docs/PERFORMANCE.md, entry "2026-12-02:
// Before any sweep: shape-class built-in configs"); each class below takes the kernel path and
// tile that won its class in the H200 sweeps recorded in tests/fixtures/h200-exhaustive.tar.xz
// and db/shipped/sweeps/, with split-K sized from the problem so that the GPU fills.
#include <algorithm>

#include "chooser_steps.hpp"

namespace gemmtune::detail {

namespace {

long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

// A tile config: block bm x bn x bk, warp wm x wn, thread tm x tn, `stages` deep.
GemmConfig tile(int bm, int bn, int bk, int wm, int wn, int tm, int tn, int stages) {
  GemmConfig c;
  c.bm = bm, c.bn = bn, c.bk = bk, c.wm = wm, c.wn = wn, c.tm = tm, c.tn = tn;
  c.stages = stages;
  return c;
}

// A reduction config: `k_lanes` lanes of `k_warps` warps share each output's K range.
GemmConfig reduction(int bm, int bn, int bk, int wm, int wn, int tm, int tn, int k_lanes,
                     int k_warps) {
  GemmConfig c = tile(bm, bn, bk, wm, wn, tm, tn, 2);
  c.k_lanes = k_lanes, c.k_warps = k_warps;
  return c;
}

// The split of K that gives about `target` blocks for `tiles` output tiles, each split at
// least `min_k` deep, at most `max_split`.
int split_for(long long tiles, long long target, long long k, long long min_k, int max_split) {
  const long long by_fill = nearest_pow2(double(target) / double(std::max(1LL, tiles)));
  const long long by_depth = floor_pow2(double(k) / double(min_k));
  return int(std::clamp(std::min(by_fill, by_depth), 1LL, (long long)max_split));
}

// The tile of a tall skinny problem of N = `side` <= 64: 16-48 wide, as the sweeps' tall problems
// of such sides were won (65536x16x64, 262144x32x32 and 8191x48x1023 nn on an H200; a 64-wide tile
// left 75% of a 16-wide problem's work idle: 16x60000x1024 tn ran 0.71x cuBLAS, 2026-12-03).
GemmConfig tall_tile(long long side) {
  if (side <= 16) return tile(128, 16, 16, 32, 16, 4, 4, 2);
  if (side <= 32) return tile(128, 32, 16, 32, 32, 4, 8, 2);
  if (side <= 48) return tile(64, 48, 16, 64, 16, 8, 4, 2);
  return tile(128, 64, 8, 64, 64, 8, 16, 2);
}

// The same for a wide skinny problem of M = `side` <= 64 (16x4096x4096, 32x32000x4096 and
// 48x8191x1023 tn won by these tiles).
GemmConfig wide_tile(long long side) {
  if (side <= 16) return tile(16, 128, 16, 16, 32, 4, 4, 2);
  if (side <= 32) return tile(32, 128, 16, 32, 64, 8, 8, 2);
  if (side <= 48) return tile(48, 64, 16, 16, 64, 4, 8, 2);
  return tile(64, 128, 8, 32, 128, 8, 16, 2);
}

// The config of the problem's shape class (M, N, K and batch of its kernel form), on a GPU of
// `sms` multiprocessors.
GemmConfig class_config(const Problem& p, long long sms) {
  const long long m = p.m, n = p.n, k = p.k, batch = p.batch;
  const long long small = std::min(m, n), large = std::max(m, n);
  const auto tiles_of = [&](int bm, int bn) { return ceil_div(m, bm) * ceil_div(n, bn) * batch; };
  GemmConfig c;
  if (large <= 8 && (k >= 256 || large == 1)) {
    // Dot products and a few of them: K split over lanes, warps and blocks.
    c = m == 1 && n == 1 ? reduction(1, 1, 8, 1, 1, 1, 1, 32, 4)
                         : reduction(8, 8, 16, 4, 8, 2, 2, 4, 1);
    c.split_k = split_for(tiles_of(c.bm, c.bn), 2 * sms, k, 1536, m == 1 && n == 1 ? 256 : 512);
    if (c.split_k > 1) c.k_warps = 1;  // the blocks share K: one warp of lanes each
  } else if (m == 1 && p.op_b == Op::N) {
    // x^T B with B's rows along N: B streamed through registers, K split across blocks.
    c = tile(1, 256, 16, 1, 128, 1, 4, 2);
    c.split_k = split_for(tiles_of(1, 256), 4 * sms, k, 64, 64);
  } else if (m == 1) {
    // x^T B^T: each output a dot product of a row of B, 32 lanes of two warps along K.
    c = reduction(1, 2, 32, 1, 1, 1, 1, 32, 2);
  } else if (n == 1) {
    // A x where the kernel form kept N = 1: rows of A in 4-row thread tiles, four lanes along K.
    c = reduction(256, 1, 8, 32, 1, 4, 1, 4, 1);
    c.split_k = split_for(tiles_of(256, 1), 2 * sms, k, 256, 16);
  } else if (small <= 4 && m <= 4 && p.op_b == Op::T) {
    // A few rows times B^T (a language model's decode step): the reduction, four rows a block.
    c = reduction(4, 2, 16, 4, 2, 4, 2, 32, 2);
  } else if (small <= 4 && n <= 4 && p.op_a == Op::N && p.op_b == Op::T) {
    // A few columns, both operands stored along K: each output a dot product, 32 lanes of two
    // warps along K, 2x4 outputs a block. On four such shapes (H200, 2026-12-03) 1.4-2.3x cuBLAS,
    // where the deep-K and skinny tiles below ran 0.48-0.68x.
    c = reduction(2, 4, 16, 2, 4, 2, 4, 32, 2);
  } else if (small <= 4 && n <= 4 && p.op_a == Op::T) {
    // A few columns of A^T B^T or A^T B: the tall thin tile 4096x2x4096 tn tuned to, K split for
    // fill (H200, 2026-12-03: 3000x4x2000 tn 1.70x cuBLAS, 4000x3x500 tt 1.16x; 150x3x900 tn,
    // two row tiles split in 2, 0.67x).
    c = tile(128, 4, 32, 64, 4, 4, 2, 3);
    c.split_k = split_for(tiles_of(128, 4), 2 * sms, k, 256, 16);
  } else if (k >= 8 * large) {
    // Deep K: few output tiles, each K range split across blocks.
    c = tile(64, 64, 16, 32, 32, 8, 4, 2);
    c.split_k = split_for(tiles_of(64, 64), 2 * sms, k, 256, 512);
  } else if (batch > 1 && large <= 256) {
    // A batch of small matrices: one tile about the matrix, none split. 33x33x33 b500 nn ran
    // 0.98x cuBLAS on the 64x64 tile and 0.79x on the skinny rule's 128x64 (H200, 2026-12-03);
    // the sweeps' batched problems of sides 64-384 were won by 64x64 tiles, of 32 by 32x32.
    c = large <= 32 ? tile(32, 32, 16, 16, 32, 4, 4, 2) : tile(64, 64, 16, 32, 32, 8, 4, 2);
  } else if (double(m) * double(n) * double(k) * double(batch) < double(1 << 24)) {
    // Tiny products (below 256^3 multiply-adds): 64-thread blocks, three stages.
    c = tile(16, 32, 16, 16, 16, 4, 2, 3);
  } else if (small <= 64) {
    // Skinny: small tiles split along K where the tiles alone leave SMs idle; long sides of
    // many tiles take a tile long along them and as short as the short side.
    if (tiles_of(32, 32) >= 8 * sms)
      c = m >= n ? tall_tile(small) : wide_tile(small);
    else if (m <= 16)
      c = tile(16, 64, 16, 16, 32, 4, 4, 2);
    else
      c = tile(32, 32, 16, 16, 32, 4, 4, 2);
    c.split_k = split_for(tiles_of(c.bm, c.bn), 2 * sms, k, 256, 16);
  } else if (tiles_of(128, 128) * 4 < sms) {
    // Small outputs: 32x32 tiles, split along K to fill the GPU about twice.
    c = tile(32, 32, 16, 16, 32, 4, 4, 2);
    c.split_k = split_for(tiles_of(32, 32), 2 * sms, k, 256, 16);
  } else if (tiles_of(128, 128) < sms) {
    // Medium: fewer 128x128 tiles than SMs, split along K to fill the GPU about four times.
    c = tile(128, 128, 8, 32, 64, 8, 8, 2);
    c.split_k = split_for(tiles_of(128, 128), 4 * sms, k, 128, 16);
  } else {
    // Large: 128x128 tiles, of 16x8 per thread where both operands are stored alike (nn, tt),
    // of 8x8 where one is transposed (nt, tn: 8x8 kept 0.88-0.96 of the best, 16x8 0.73-0.83);
    // the tiles of a last, partial round split K (split_tail) so that it fills the GPU too.
    c = p.op_a == p.op_b ? tile(128, 128, 8, 64, 64, 16, 8, 2) : tile(128, 128, 8, 64, 32, 8, 8, 2);
    const long long tail = tiles_of(128, 128) % sms;
    if (tail > 0) c.split_k = split_for(tail, sms, k, 256, 16);
    c.split_tail = c.split_k > 1;
  }
  return c;
}

}  // namespace

std::optional<GemmConfig> shape_class_config(const ChoiceRequest& r, std::string& why_not) {
  const long long sms = r.snapshot.sm_count > 0 ? r.snapshot.sm_count : (long long)kAssumedSmCount;
  GemmConfig c = class_config(r.p, sms);
  c.op_a = r.p.op_a, c.op_b = r.p.op_b;
  // A deterministic dispatcher keeps a reduction's splits in order and leaves tiles unsplit.
  if (r.deterministic && c.split_k > 1) {
    if (c.reduces()) {
      c.ordered_splits = true;
    } else {
      c.split_k = 1;
      c.split_tail = false;
    }
  }
  if (auto why = c.validate(r.limits)) {
    why_not = config_name(c) + " does not validate: " + *why;
    return std::nullopt;
  }
  c = c.fitted_to(r.p);
  if (auto why = c.can_implement(r.p)) {
    why_not = config_name(c) + " cannot run this problem: " + *why;
    return std::nullopt;
  }
  return c;
}

}  // namespace gemmtune::detail
