#include "gemmtune/sgemm/tuning/space.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace gemmtune::tuner {

namespace {
// The tile-shape knobs come first in kSgemmKnobs, and the walk takes k_lanes and k_warps right
// after them: once those are set, a warp tile that does not fit the block tile, or does not hold
// one thread tile per 32 / k_lanes lanes, or a block of more than 1024 threads, rules the
// combination out whatever the later knobs say, and a reduction (k_lanes or k_warps > 1) takes
// only the defaults of the tile-only knobs. Checking there keeps the walk fast.
constexpr std::size_t kShapeKnobs = 7;  // bm, bn, bk, wm, wn, tm, tn
static_assert(kSgemmKnobs[kShapeKnobs - 1].field == &SgemmKnobs::tn,
              "the shape knobs lead the table");

// The knobs that decide whether a config is a reduction or runs on tensor cores, walked right
// after the shapes: a tensor-core config's thread tile follows from its warp tile (mma_fits).
constexpr int SgemmKnobs::*kReductionKnobs[] = {&SgemmKnobs::k_lanes, &SgemmKnobs::k_warps,
                                                &SgemmKnobs::math};

std::vector<std::size_t> walk_order() {
  std::vector<std::size_t> order, reduction;
  for (std::size_t i = 0; i < std::size(kSgemmKnobs); ++i) {
    const bool decides = std::find(std::begin(kReductionKnobs), std::end(kReductionKnobs),
                                   kSgemmKnobs[i].field) != std::end(kReductionKnobs);
    (decides ? reduction : order).push_back(i);
  }
  order.insert(order.begin() + kShapeKnobs, reduction.begin(), reduction.end());
  return order;
}

bool mma_fits(const GemmConfig& c) {
  return c.math == 0 ||
         (!c.reduces() && c.wm % 16 == 0 && c.wn % 8 == 0 && c.tm == c.wm / 8 && c.tn == c.wn / 4);
}

bool warp_tile_fits(const GemmConfig& c) {
  return c.wm % c.tm == 0 && c.wn % c.tn == 0 && (c.wm / c.tm) * (c.wn / c.tn) == c.warp_slots() &&
         c.bm % c.wm == 0 && c.bn % c.wn == 0;
}

// Calls `fn` on every combination of knob values from position `at` of the walk order on, the
// earlier ones fixed in `c`.
template <class Fn>
void walk(GemmConfig& c, const std::vector<std::size_t>& order, std::size_t at, const Fn& fn) {
  if (at == order.size()) return fn(c);
  if (at == kShapeKnobs + 1 && !warp_tile_fits(c)) return;  // k_lanes set
  if (at == kShapeKnobs + std::size(kReductionKnobs) && (c.threads() > 1024 || !mma_fits(c)))
    return;
  const Knob& knob = kSgemmKnobs[order[at]];
  // Reductions keep the tile-only knobs' defaults, tensor-core configs their own padding.
  const bool held = c.reduces() ? knob.tile_only : c.math > 0 && knob.field == &SgemmKnobs::pad;
  if (at >= kShapeKnobs + std::size(kReductionKnobs) && held) {
    knob.set(c, knob.default_value());
    return walk(c, order, at + 1, fn);
  }
  for (int v : knob.values) {
    knob.set(c, v);
    walk(c, order, at + 1, fn);
  }
}
}  // namespace

std::size_t full_space_size() {
  std::size_t n = 1;
  for (const Knob& knob : kSgemmKnobs) n *= knob.values.size();
  return n;
}

std::vector<GemmConfig> valid_space(const DeviceLimits& limits, Op op_a, Op op_b,
                                    const std::function<bool(const GemmConfig&)>& keep) {
  std::vector<GemmConfig> out;
  GemmConfig c;
  c.op_a = op_a, c.op_b = op_b;
  walk(c, walk_order(), 0, [&](const GemmConfig& candidate) {
    if ((!keep || keep(candidate)) && !candidate.validate(limits)) out.push_back(candidate);
  });
  return out;
}

std::vector<GemmConfig> coverage_sample(const DeviceLimits& limits, Op op_a, Op op_b,
                                        const std::function<void(const GemmConfig&)>& visit) {
  GemmConfig def;
  def.op_a = op_a, def.op_b = op_b;
  auto distance = [&](const GemmConfig& c) {
    int d = 0;
    for (const Knob& knob : kSgemmKnobs) d += knob.get(c) != knob.get(def);
    return d;
  };
  // One walk: for every knob and value, the valid config closest to the default that has it (the
  // first one met among equals), without holding the whole space.
  struct Closest {
    int distance;
    GemmConfig config;
  };
  std::vector<std::map<int, Closest>> closest(std::size(kSgemmKnobs));
  valid_space(limits, op_a, op_b, [&](const GemmConfig& c) {
    if (visit) visit(c);
    if (c.validate(limits)) return false;  // not valid
    const int d = distance(c);
    for (std::size_t i = 0; i < std::size(kSgemmKnobs); ++i) {
      auto [it, fresh] = closest[i].try_emplace(kSgemmKnobs[i].get(c), Closest{d, c});
      if (!fresh && d < it->second.distance) it->second = {d, c};
    }
    return false;  // nothing is kept: the walk only visits
  });
  // The default first, then for each knob in order the closest config of each value no config
  // taken so far has.
  std::vector<GemmConfig> out;
  std::set<std::pair<std::size_t, int>> covered;  // (knob index, value)
  auto take = [&](const GemmConfig& c) {
    out.push_back(c);
    for (std::size_t i = 0; i < std::size(kSgemmKnobs); ++i)
      covered.insert({i, kSgemmKnobs[i].get(c)});
  };
  if (!def.validate(limits)) take(def);
  for (std::size_t i = 0; i < std::size(kSgemmKnobs); ++i)
    for (const auto& [value, c] : closest[i])
      if (!covered.count({i, value})) take(c.config);
  return out;
}

}  // namespace gemmtune::tuner
