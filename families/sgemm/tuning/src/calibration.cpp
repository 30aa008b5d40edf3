#include "gemmtune/sgemm/tuning/calibration.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace gemmtune::tuner {

namespace {

// shape_distance() of a tuned problem's shape and `p`'s, as the dispatcher's nearest step measures.
double log_distance(const db::ProblemKey& t, const Problem& p) {
  return shape_distance(t.m, t.n, t.k, t.batch, p.m, p.n, p.k, p.batch);
}

// Same layout: the same kernel instances apply (fitted to each problem's data).
bool same_class(const db::ProblemKey& t, const Problem& p) {
  return t.op_a == op_char(p.op_a) && t.op_b == op_char(p.op_b);
}

bool same_shape(const db::ProblemKey& t, const Problem& p) {
  return t.m == p.m && t.n == p.n && t.k == p.k && t.batch == p.batch;
}

// The name of `c`'s knobs, whatever widths its data narrowed it to: a tile that suits a problem
// suits its odd twin too.
std::string knob_name(GemmConfig c) {
  c.align_a = c.align_b = c.align_c = 4;
  return config_name(c);
}

// The same with split_k 1: the split that suits a neighbour rarely suits another shape, the tile
// that does often does.
std::string unsplit_name(GemmConfig c) {
  c.split_k = 1;
  return knob_name(c);
}

}  // namespace

std::vector<double> calibration_factors(const std::vector<GemmConfig>& candidates, const Problem& p,
                                        const std::vector<TunedNeighbour>& tuned,
                                        const CalibrationOptions& options) {
  std::vector<const TunedNeighbour*> near;
  for (const auto& t : tuned)
    if (same_class(t.problem, p) && !same_shape(t.problem, p) && !t.configs.empty())
      near.push_back(&t);
  std::sort(near.begin(), near.end(), [&](const TunedNeighbour* a, const TunedNeighbour* b) {
    return log_distance(a->problem, p) < log_distance(b->problem, p);
  });
  if (near.size() > options.neighbours) near.resize(options.neighbours);
  // Support per config name, and half of it per unsplit name.
  std::map<std::string, double> exact, unsplit;
  for (const TunedNeighbour* t : near) {
    double best = t->configs.front().second;
    for (const auto& [name, ms] : t->configs) best = std::min(best, ms);
    const double weight = 1 / (1 + log_distance(t->problem, p));
    for (const auto& [name, ms] : t->configs) {
      const double support = ms > 0 ? weight * best / ms : 0;
      if (auto c = parse_config_name(name)) {
        double& e = exact[knob_name(*c)];
        e = std::max(e, support);
        double& u = unsplit[unsplit_name(*c)];
        u = std::max(u, support / 2);
      }
    }
  }
  std::vector<double> factors(candidates.size(), 1.0);
  if (near.empty()) return factors;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    double support = 0;
    if (auto it = exact.find(knob_name(candidates[i])); it != exact.end()) support = it->second;
    if (auto it = unsplit.find(unsplit_name(candidates[i])); it != unsplit.end())
      support = std::max(support, it->second);
    factors[i] = 1 - options.max_boost * std::min(1.0, support);
  }
  return factors;
}

// The kernel path a config runs (families/sgemm/kernels/mainloops.cuh): the reduction, streamed B,
// the warpgroup or mma.sync tensor-core kernels, the FMA tile kernels. The model's errors differ by
// path, so each path's best-ranked config is worth a measurement early.
static int kernel_path(const GemmConfig& c) {
  return c.reduces() ? 1 : c.streams_b() ? 2 : c.wgmma ? 3 : c.uses_tensor_cores() ? 4 : 0;
}

// Predicted times this close the model cannot tell apart: on an H200 corpus of twelve problems
// (docs/PERFORMANCE.md, entry of 2026-11-24) its measured / predicted ratio spread by a factor of
// about 1.2 within a problem.
constexpr double kModelTie = 0.05;

// `ranked` (fastest predicted first) with each run of near-ties (within kModelTie of the run's
// first) reordered to take one family of each block tile shape and split in turn, in the order
// the shapes first appear, each family's other members after all the families of the run: the
// first measurements (the search times a family's best-ranked member first) then cover shapes,
// not the enumeration order's first one (1531^3 on an H200: the 24 families ranked first were
// 64x128 tiles predicted alike at 133 us and measured 222-330 us; a 128x64 split-tail tile 4%
// behind them took 204 us).
static std::vector<std::size_t> spread_ties(const std::vector<std::size_t>& ranked,
                                            const std::vector<double>& ms,
                                            const std::vector<GemmConfig>& candidates,
                                            const std::vector<std::size_t>& family) {
  std::vector<std::size_t> out;
  out.reserve(ranked.size());
  for (std::size_t begin = 0, end = 0; begin < ranked.size(); begin = end) {
    const double limit = ms[ranked[begin]] * (1 + kModelTie);
    while (end < ranked.size() && ms[ranked[end]] <= limit) ++end;
    // A reduction is spread by its lane arrangement, not its tile (spread by tile, 4095x1x4095
    // nn tuned to 1.14-1.17x cuBLAS on an H200 against 1.25x in model order): one output per lane
    // or several, warps along K or not, which the model ranks within a few percent of each other
    // and which measured 5-10% apart either way (4095x1x4095 nt, 4096x1x4096 nt on an H200).
    // Before, reductions kept the model's order: the 5 s searches of odd matrix-vector products
    // timed only tiles of four or eight rows (on an H100, 1x4095x4095 nt 1.12x -> 1.19x cuBLAS).
    using Shape = std::tuple<int, int, int, bool>;
    std::map<Shape, std::vector<std::size_t>> by_shape;
    std::vector<Shape> shapes;           // in order of first appearance
    std::vector<std::size_t> relatives;  // members after their family's first
    std::set<std::size_t> seen;
    for (std::size_t j = begin; j < end; ++j) {
      const std::size_t i = ranked[j];
      if (!seen.insert(family[i]).second) {
        relatives.push_back(i);
        continue;
      }
      const GemmConfig& c = candidates[i];
      const Shape key = c.reduces() ? Shape{-1, c.tm * c.tn > 1, c.k_warps > 1, false}
                                    : Shape{c.bm, c.bn, c.split_k, c.split_tail};
      auto& heads = by_shape[key];
      if (heads.empty()) shapes.push_back(key);
      heads.push_back(i);
    }
    const std::size_t heads_end = end - relatives.size();
    for (std::size_t round = 0; out.size() < heads_end; ++round)
      for (const auto& key : shapes)
        if (round < by_shape[key].size()) out.push_back(by_shape[key][round]);
    out.insert(out.end(), relatives.begin(), relatives.end());
  }
  return out;
}

ModelRanking rank_candidates(const std::vector<GemmConfig>& candidates, const Problem& p,
                             const GpuCeilings& gpu, const std::vector<TunedNeighbour>& tuned,
                             const CalibrationOptions& options) {
  ModelRanking r;
  std::map<std::string, std::size_t> families, variants;
  for (const GemmConfig& c : candidates) {
    GemmConfig way = c;
    for (const Knob& f : kSgemmFlags)
      if (f.model_variant) f.set_flag(way, false);
    way.align_a = way.align_b = 0;
    // Streamed B in one register set or two: the model cannot tell which keeps more loads in
    // flight (1x4096x4096 on an H200: 1x256x16 k32 24.9 us with two sets, 24.2 with one).
    if (c.streams_b()) way.stages = 0;
    r.variant.push_back(variants.emplace(config_name(way), variants.size()).first->second);
    // What the model cannot tell apart: the warp arrangement, the register budget, streamed B's
    // register sets, where the two-stage loop's barrier sits, whether a narrowed C is written
    // through shared memory or in aligned windows, how a split reduction adds its splits
    // (atomically or in the workspace), which loads read a reduction's narrowed runs,
    // and whether misaligned A and B are read narrowed or copied aligned first: the model charges
    // both only roughly (2999x3001x2003 on an H200: the copy won by 7% one run; the next, with
    // faster narrowed loads, the model ranked the copies too low to time them), so the family's
    // best-ranked member is timed first and the other soon after as its variant.
    // A split reduction's cluster form is a family of its own, timed as early as its atomic
    // form: it has neither the atomics nor a second launch, and the model charges neither (the
    // dot of 1e5 on an H200: 16 blocks of 512 threads 5.6-5.9 us as one cluster; a 3 s sweep that
    // timed that family's prescaled head never reached it, and took 6.4 us).
    GemmConfig key = c;
    key.wm = key.wn = key.occupancy = 0;
    for (const Knob& f : kSgemmFlags)
      if (f.model_family) f.set_flag(key, false);
    key.align_a = key.align_b = 0;
    if (c.streams_b()) key.stages = 0;
    r.family.push_back(families.emplace(config_name(key), families.size()).first->second);
  }
  const std::vector<double> factors = calibration_factors(candidates, p, tuned, options);
  for (std::size_t i = 0; i < candidates.size(); ++i)
    r.predicted_ms.push_back(predict(candidates[i], p, gpu).ms * factors[i]);
  // Fastest predicted first, except that the best-ranked config of each kernel path leads: a
  // 10 s budget on 3x50000x512 nt (H200) once timed 43 thin tiles and no reduction, the winner
  // at rank 90 of 3935.
  std::vector<std::size_t> leaders, rest;
  std::set<int> paths;
  for (std::size_t i :
       spread_ties(rank_by_time(r.predicted_ms), r.predicted_ms, candidates, r.family))
    (paths.insert(kernel_path(candidates[i])).second ? leaders : rest).push_back(i);
  r.order = leaders;
  r.order.insert(r.order.end(), rest.begin(), rest.end());
  return r;
}

}  // namespace gemmtune::tuner
