// `gemmtune db replay`: runs a search strategy on a database's recorded results instead of a GPU
// (measure() returns the recorded median with a little noise; a fake clock counts what each
// measurement would have cost), to compare strategies in milliseconds. Per problem: candidates
// recorded, measurements the strategy made, simulated seconds, best found vs the recorded best,
// and how well the cost model orders the recorded candidates (rank correlation).
#include "db_commands.hpp"
#include "deprecated.hpp"
#include "gemmtune/tuner/replay.hpp"
#include "table.hpp"

namespace gemmtune::cli {
namespace {

struct ReplayCliOptions {
  std::string db;
  std::string device;
  std::string strategy = "model";
  ProblemFilter filter;
  double budget = 0;
  std::uint64_t seed = 1;
  std::size_t first_round = 1;
  bool uncalibrated = false;
};

std::vector<Column> replay_columns() {
  return {problem_column(),
          {"candidates", "candidates"},
          {"measured", "measurements"},
          {"simulated", "simulated_s"},
          {"found", "found_ms"},
          {"recorded best", "recorded_best_ms"},
          {"ratio", "ratio"},
          {"model rank", "found_model_rank"},
          {"best's rank", "best_model_rank"},
          {"model rho", "model_rank_correlation"}};
}

void run_replay(ReplayCliOptions& o) {
  o.filter.parse();
  const tuner::StrategyKind kind = tuner::parse_strategy(o.strategy);
  auto db = open_for_reading(o.db);
  if (report_if_empty(db, false)) return;
  const auto gpus = db->gpu_models();
  std::string text;
  int skipped = 0;
  for (const auto* g : select_gpus(gpus, o.device, db->path())) {
    tuner::ReplayOptions ro;
    ro.strategy.kind = kind;
    ro.strategy.budget_s = o.budget;
    ro.strategy.seed = o.seed;
    ro.strategy.min_measurements = o.first_round;
    ro.seed = o.seed;
    try {
      ro.gpu = tuner::ceilings_of(g->model);
    } catch (const Error& e) {  // one odd GPU row: the others are still replayed
      std::fprintf(stderr, "gemmtune: skipping: %s\n", e.what());
      ++skipped;
      continue;
    }
    if (!o.uncalibrated) ro.tuned = tuner::tuned_neighbours(*db, g->id);
    Table table(replay_columns());
    std::size_t candidates = 0, measurements = 0, problems = 0;
    double simulated = 0, worst = 0, rho_sum = 0;
    for (const auto& p : tuner::load_recorded(*db, g->id)) {
      if (!o.filter.accepts(p.key)) continue;
      const tuner::ReplayOutcome r = tuner::replay_problem(p, ro);
      table.add_row(
          {Cell::problem(problem_label(p.key), p.key), Cell::integer(std::int64_t(r.candidates)),
           Cell::integer(std::int64_t(r.measurements)), fixed_cell(r.simulated_s, 1, " s"),
           time_cell(r.found ? std::optional(r.found_ms) : std::nullopt),
           time_cell(r.recorded_best_ms), fixed_cell(r.ratio(), 3),
           Cell::integer(std::int64_t(r.found_model_rank) + 1),
           Cell::integer(std::int64_t(r.best_model_rank) + 1),
           fixed_cell(r.model_rank_correlation, 2)});
      ++problems, candidates += r.candidates, measurements += r.measurements;
      simulated += r.simulated_s, worst = std::max(worst, r.ratio());
      rho_sum += r.model_rank_correlation;
    }
    if (table.empty()) continue;
    text += (text.empty() ? "" : "\n") + describe_gpu(g->model) + ", strategy " + o.strategy +
            "\n" + table.render() +
            format(
                "%zu problems: %zu measurements for %zu recorded candidates, %.1f s simulated, "
                "worst ratio %.3f, mean model rho %.2f\n",
                problems, measurements, candidates, simulated, worst, rho_sum / double(problems));
  }
  if (text.empty() && skipped > 0)
    throw usage_error("no GPU model in '" + db->path() + "' can be replayed");
  if (text.empty()) throw usage_error("no recorded problem matches --shape/--layout");
  print(text);
}

void add_db_replay(CLI::App& db) {
  auto o = std::make_shared<ReplayCliOptions>();
  auto* cmd =
      db.add_subcommand("replay", "Run a search strategy on recorded results, without a GPU");
  cmd->footer(
      "Per problem: the ok candidates recorded, the measurements the strategy made, the seconds "
      "they\n"
      "would have taken (recorded median x repetitions + 30 ms each), the recorded time of the "
      "config\n"
      "it picked, the recorded best, their ratio (1: it found the recorded best) and where the "
      "cost\n"
      "model ranked the pick and the recorded best (1: first), and how well the model orders "
      "all the\n"
      "recorded candidates (model rho: the rank correlation of its predictions with the "
      "recorded times;\n"
      "1: the same order, 0: none). The strategy only sees the recorded candidates: the "
      "recorded best is\n"
      "the best the recording sweep found, not the space's.");
  add_db_option(cmd, o->db);
  add_old_spelling(cmd,
                   cmd->add_option("--gpu-model", o->device,
                                   "Only this GPU model (its name, or a unique part of it)"),
                   "--device", o->device);
  cmd->add_option("--strategy", o->strategy, "model, halving, exhaustive or random")
      ->capture_default_str();
  o->filter.add_options(cmd);
  add_old_spelling(cmd, cmd->get_option("--shape"), "--problem", o->filter.shapes);
  cmd->add_option("--budget", o->budget, "Simulated seconds per problem (0: unlimited)")
      ->check(finite_number(0, false, 1e9, "a number of seconds, 0 or more (0: unlimited)"));
  cmd->add_option("--seed", o->seed, "Noise and sampling seed")->capture_default_str();
  cmd->add_option(
         "--first-round", o->first_round,
         "Measurements the budget always allows, as a sweep's first round of compiles (a sweep "
         "sets them with -j; the model strategy times the best's variants after them)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_flag("--uncalibrated", o->uncalibrated,
                "The model alone, as on an empty database: no calibration by the other recorded "
                "problems");
  cmd->callback([o] { run_replay(*o); });
}

const DbRegistration kRegistration("replay", add_db_replay);

}  // namespace
}  // namespace gemmtune::cli
