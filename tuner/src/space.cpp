#include "gemmtune/tuner/space.hpp"

#include <map>
#include <set>

namespace gemmtune::tuner {

namespace {
// The tile-shape knobs come first in kSgemmKnobs: once they are set, a warp tile that does not
// fit the block tile, or does not hold exactly 32 threads, rules the combination out whatever
// the later knobs say. Checking there keeps the walk fast.
constexpr std::size_t kShapeKnobs = 7;  // bm, bn, bk, wm, wn, tm, tn
static_assert(kSgemmKnobs[kShapeKnobs - 1].field == &SgemmKnobs::tn, "the shape knobs lead the table");

bool warp_tile_fits(const GemmConfig& c) {
  return c.wm % c.tm == 0 && c.wn % c.tn == 0 && (c.wm / c.tm) * (c.wn / c.tn) == 32 && c.bm % c.wm == 0 &&
         c.bn % c.wn == 0;
}

// Calls `fn` on every combination of knob values from knob `index` on, the earlier ones fixed in `c`.
template <class Fn>
void walk(GemmConfig& c, std::size_t index, const Fn& fn) {
  if (index == std::size(kSgemmKnobs)) return fn(c);
  if (index == kShapeKnobs && !warp_tile_fits(c)) return;
  const Knob& knob = kSgemmKnobs[index];
  for (int v : knob.values) {
    knob.set(c, v);
    walk(c, index + 1, fn);
  }
}
}  // namespace

std::size_t full_space_size() {
  std::size_t n = 1;
  for (const Knob& knob : kSgemmKnobs) n *= knob.values.size();
  return n;
}

std::vector<GemmConfig> valid_space(const DeviceLimits& limits, Op op_a, Op op_b) {
  std::vector<GemmConfig> out;
  GemmConfig c;
  c.op_a = op_a, c.op_b = op_b;
  walk(c, 0, [&](const GemmConfig& candidate) {
    if (!candidate.validate(limits)) out.push_back(candidate);
  });
  return out;
}

std::vector<GemmConfig> coverage_sample(const DeviceLimits& limits, Op op_a, Op op_b) {
  GemmConfig def;
  def.op_a = op_a, def.op_b = op_b;
  auto distance = [&](const GemmConfig& c) {
    int d = 0;
    for (const Knob& knob : kSgemmKnobs) d += knob.get(c) != knob.get(def);
    return d;
  };
  const std::vector<GemmConfig> valid = valid_space(limits, op_a, op_b);
  std::vector<GemmConfig> out;
  std::set<std::pair<std::size_t, int>> covered;  // (knob index, value)
  auto take = [&](const GemmConfig& c) {
    out.push_back(c);
    for (std::size_t i = 0; i < std::size(kSgemmKnobs); ++i) covered.insert({i, kSgemmKnobs[i].get(c)});
  };
  if (!def.validate(limits)) take(def);
  for (std::size_t i = 0; i < std::size(kSgemmKnobs); ++i) {
    std::map<int, const GemmConfig*> closest;  // value -> closest valid config having it
    for (const GemmConfig& c : valid) {
      const int v = kSgemmKnobs[i].get(c);
      if (covered.count({i, v})) continue;
      if (!closest.count(v) || distance(c) < distance(*closest[v])) closest[v] = &c;
    }
    for (auto& [v, c] : closest)
      if (!covered.count({i, v})) take(*c);
  }
  return out;
}

}  // namespace gemmtune::tuner
