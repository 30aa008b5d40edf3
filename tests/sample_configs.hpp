#pragma once
// A small, deterministic sample of the kernel family that takes every value of every knob at
// least once, each time in the valid config closest to the default: what the compile and
// correctness tests run instead of the whole space.
#include <functional>
#include <map>
#include <set>
#include <vector>

#include "gemmtune/config.hpp"

namespace gemmtune::test {

inline std::vector<std::pair<const char*, std::function<int(const GemmConfig&)>>> knobs() {
  return {{"bm", [](auto& c) { return c.bm; }},         {"bn", [](auto& c) { return c.bn; }},
          {"bk", [](auto& c) { return c.bk; }},         {"wm", [](auto& c) { return c.wm; }},
          {"wn", [](auto& c) { return c.wn; }},         {"tm", [](auto& c) { return c.tm; }},
          {"tn", [](auto& c) { return c.tn; }},         {"stages", [](auto& c) { return c.stages; }},
          {"vec", [](auto& c) { return c.vec; }},       {"pad", [](auto& c) { return c.pad; }},
          {"split_k", [](auto& c) { return c.split_k; }}, {"raster", [](auto& c) { return c.raster; }}};
}

inline std::vector<GemmConfig> sample_configs(const DeviceLimits& limits, Op op_a, Op op_b) {
  GemmConfig def;
  def.op_a = op_a, def.op_b = op_b;
  auto ks = knobs();
  auto distance = [&](const GemmConfig& c) {
    int d = 0;
    for (auto& [name, get] : ks) d += get(c) != get(def);
    return d;
  };
  std::vector<GemmConfig> valid = valid_space(limits, op_a, op_b);
  std::vector<GemmConfig> out = {def};
  std::set<std::pair<int, int>> covered;
  auto cover = [&](const GemmConfig& c) {
    for (size_t i = 0; i < ks.size(); ++i) covered.insert({int(i), ks[i].second(c)});
  };
  cover(def);
  for (size_t i = 0; i < ks.size(); ++i) {
    std::map<int, const GemmConfig*> best;  // knob value -> closest valid config with it
    for (auto& c : valid) {
      int v = ks[i].second(c);
      if (covered.count({int(i), v})) continue;
      if (!best.count(v) || distance(c) < distance(*best[v])) best[v] = &c;
    }
    for (auto& [v, c] : best) {
      if (covered.count({int(i), v})) continue;
      out.push_back(*c);
      cover(*c);
    }
  }
  return out;
}

}  // namespace gemmtune::test
