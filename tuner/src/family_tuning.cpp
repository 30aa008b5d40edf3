#include "gemmtune/tuner/family_tuning.hpp"

#include <algorithm>

#include "gemmtune/error.hpp"

namespace gemmtune::tuner {

SpaceKind parse_space(const std::string& text) {
  if (text == "full") return SpaceKind::full;
  if (text == "reduced") return SpaceKind::reduced;
  throw Error(Status::kInvalidArgument, "bad space '" + text + "': use full or reduced");
}

std::vector<TunedNeighbour> tuned_neighbours(const db::Database& db, db::Id gpu_model_id,
                                             int per_problem) {
  std::vector<TunedNeighbour> out;
  for (const db::BestRow& row : db.top_configs(gpu_model_id, per_problem)) {
    if (out.empty() || out.back().problem != row.problem) out.push_back({row.problem, {}});
    out.back().configs.push_back({row.config.name, row.median_ms});
  }
  return out;
}

std::size_t ModelRanking::rank_of(std::size_t index) const {
  return std::size_t(std::find(order.begin(), order.end(), index) - order.begin());
}

void use_ranking(StrategyOptions& options, const ModelRanking& ranking) {
  options.model_order = ranking.order;
  options.model_family = ranking.family;
  options.model_variant = ranking.variant;
  options.model_predicted_ms = ranking.predicted_ms;
}

}  // namespace gemmtune::tuner
