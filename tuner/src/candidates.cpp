#include "gemmtune/tuner/candidates.hpp"

#include "gemmtune/error.hpp"

namespace gemmtune::tuner {

SpaceKind parse_space(const std::string& text) {
  if (text == "full") return SpaceKind::full;
  if (text == "reduced") return SpaceKind::reduced;
  throw Error(Status::kInvalidArgument, "bad space '" + text + "': use full or reduced");
}

bool in_reduced_space(const GemmConfig& c) {
  auto among = [](int v, std::initializer_list<int> values) {
    for (int x : values)
      if (v == x) return true;
    return false;
  };
  return among(c.bk, {8, 16}) && c.pad == 4 && c.raster == 8 && among(c.stages, {2, 3}) &&
         among(c.tm, {4, 8, 16}) && among(c.tn, {4, 8, 16}) && among(c.bm, {32, 64, 128, 256}) &&
         among(c.bn, {32, 64, 128, 256}) && among(c.wm / c.tm, {4, 8}) && among(c.threads(), {128, 256}) &&
         among(c.split_k, {1, 8}) && c.tm <= 2 * c.tn && c.tn <= 2 * c.tm && c.bm <= 2 * c.bn &&
         c.bn <= 2 * c.bm && among(c.occupancy, {1, 2});
}

bool split_k_useful(const Problem& p, int bm, int bn, int bk, int split_k, int sm_count) {
  if (split_k == 1) return true;
  long long tiles = (long long)((p.m + bm - 1) / bm) * ((p.n + bn - 1) / bn) * p.batch;
  if (tiles >= 2LL * sm_count) return false;  // enough blocks already: splitting K only adds atomics
  return p.k >= split_k * bk * 4;
}

std::vector<GemmConfig> candidate_configs(const std::vector<GemmConfig>& valid, const Problem& p, int sm_count,
                                          SpaceKind space) {
  std::vector<GemmConfig> out;
  int align = p.alignment();
  for (const auto& c : valid) {
    if (c.vec != align) continue;
    if (space == SpaceKind::reduced && !in_reduced_space(c)) continue;
    if (!split_k_useful(p, c.bm, c.bn, c.bk, c.split_k, sm_count)) continue;
    if (c.can_implement(p)) continue;
    out.push_back(c);
  }
  return out;
}

}  // namespace gemmtune::tuner
