// Strategies replayed on an exhaustive H200 recording: tests/fixtures/h200-exhaustive.tar.xz
// (unpacked into the build folder by CMake) holds every candidate of the reduced space, timed by
// `gemmtune sweep --strategy exhaustive` (tools/gpu-record.sh) on the 30 problems of
// tests/fixtures/replay-problems.csv: odd leading dimensions beside aligned twins, squares,
// matrix-vector forms, dot products, deep and shallow K, batched, tall and wide. The default
// strategy must find each problem's best, measuring a small share of the candidates.
#include <gtest/gtest.h>

#include <cmath>

#include "gemmtune/db_rows.hpp"
#include "gemmtune/tuner/replay.hpp"

using namespace gemmtune;
using namespace gemmtune::tuner;

namespace {

const std::string kFixture = std::string(GEMMTUNE_TEST_UNPACKED_FIXTURES) + "/h200-exhaustive.db";

struct Recorded {
  db::Database db{kFixture, db::OpenMode::read_only, kernel_families()};
  db::GpuModelRow gpu = db.gpu_models().at(0);
  std::vector<RecordedProblem> problems = load_recorded(db, gpu.id);
  std::vector<TunedNeighbour> tuned = tuned_neighbours(db, gpu.id);

  // With `calibrated`, the cost model is calibrated by the other recorded problems, as in a
  // sweep whose database holds earlier results; without, it stands alone (an empty database).
  ReplayOptions options(StrategyKind kind, bool calibrated = true) const {
    ReplayOptions o;
    o.strategy.kind = kind;
    o.gpu = ceilings_of(gpu.model);
    if (calibrated) o.tuned = tuned;
    return o;
  }
};

std::string label(const RecordedProblem& p) {
  return std::to_string(p.key.m) + "x" + std::to_string(p.key.n) + "x" + std::to_string(p.key.k) +
         " " + p.key.op_a + p.key.op_b + " b" + std::to_string(p.key.batch);
}

// Whether the sweep still tunes `p` in the form it was recorded in: the fixture predates
// kernel_form(), which runs some matrix-vector and dot layouts as another form (4096x1x4096 tn
// as 1x4096x4096 nn, a dot's column vectors as rows). The recorded times of the old form's
// kernels say nothing about a search the tuner no longer makes.
bool tuned_as_recorded(const RecordedProblem& p) {
  const Problem recorded = Problem::packed(op_from_char(p.key.op_a).value_or(Op::N),
                                           op_from_char(p.key.op_b).value_or(Op::N), int(p.key.m),
                                           int(p.key.n), int(p.key.k), int(p.key.batch));
  const Problem runs = kernel_form(recorded);
  return runs.op_a == recorded.op_a && runs.op_b == recorded.op_b && runs.m == recorded.m &&
         runs.n == recorded.n;
}

}  // namespace

TEST(Replay, FixtureHoldsThirtyProblemsOfEveryClassOnTheH200) {
  Recorded r;
  EXPECT_EQ(r.gpu.model.name, "NVIDIA H200");
  ASSERT_EQ(r.problems.size(), 30u);
  int dots = 0, vectors = 0, batched = 0, odd = 0;
  for (const auto& p : r.problems) {
    EXPECT_GT(p.configs.size(), 10u) << label(p);
    EXPECT_EQ(p.configs.size(), p.median_ms.size());
    dots += p.key.m == 1 && p.key.n == 1;
    vectors += (p.key.m == 1) != (p.key.n == 1);
    batched += p.key.batch > 1;
    odd += p.key.alignment < 4;
  }
  EXPECT_GE(dots, 5);
  EXPECT_GE(vectors, 3);
  EXPECT_GE(batched, 3);
  EXPECT_GE(odd, 5);
}

TEST(Replay, ModelFindsEveryBestWithin3PercentMeasuringFewCandidates) {
  Recorded r;
  std::size_t measurements = 0, candidates = 0, replayed = 0;
  for (const auto& p : r.problems) {
    if (!tuned_as_recorded(p)) continue;
    ++replayed;
    const ReplayOutcome model = replay_problem(p, r.options(StrategyKind::model));
    ASSERT_TRUE(model.found) << label(p);
    EXPECT_LE(model.ratio(), 1.03) << label(p) << ": found " << *model.found;
    measurements += model.measurements, candidates += p.configs.size();
  }
  // 1,734 of 40,755 when written (worst 1.025: 1x4096x4096 nt, a near-tie of memory-bound kernels).
  EXPECT_LT(measurements * 15, candidates);
  EXPECT_GE(replayed, 24u) << "most recorded problems are still tuned as recorded";
}

TEST(Replay, UncalibratedModelStaysCloseOnAnEmptyDatabase) {
  Recorded r;
  double log_sum = 0, worst = 0;
  for (const auto& p : r.problems) {
    const ReplayOutcome model = replay_problem(p, r.options(StrategyKind::model, false));
    ASSERT_TRUE(model.found) << label(p);
    log_sum += std::log(model.ratio());
    worst = std::max(worst, model.ratio());
  }
  // Geometric mean 1.0014 and worst 1.025 when written.
  EXPECT_LT(std::exp(log_sum / r.problems.size()), 1.01);
  EXPECT_LT(worst, 1.05);
}

TEST(Replay, ModelTakesLessSimulatedTimeThanHalving) {
  Recorded r;
  double model_s = 0, halving_s = 0;
  for (const auto& p : r.problems) {
    model_s += replay_problem(p, r.options(StrategyKind::model)).simulated_s;
    halving_s += replay_problem(p, r.options(StrategyKind::halving)).simulated_s;
  }
  EXPECT_LT(model_s * 10, halving_s);  // 59 s against 2,017 s when written
}

TEST(Replay, ExhaustiveFindsTheRecordedBest) {
  Recorded r;
  const ReplayOutcome o = replay_problem(r.problems.at(0), r.options(StrategyKind::exhaustive));
  EXPECT_EQ(o.measurements, o.candidates + 3);  // every candidate, then the finalists
  EXPECT_LE(o.ratio(), 1.01);                   // noise may swap near-ties
  EXPECT_GT(o.simulated_s, 0.03 * o.candidates);
}

TEST(Replay, IsDeterministic) {
  Recorded r;
  const ReplayOutcome a = replay_problem(r.problems.at(1), r.options(StrategyKind::model));
  const ReplayOutcome b = replay_problem(r.problems.at(1), r.options(StrategyKind::model));
  EXPECT_EQ(a.measurements, b.measurements);
  EXPECT_EQ(a.found, b.found);
  EXPECT_EQ(a.simulated_s, b.simulated_s);
}

TEST(Replay, RankCorrelationComparesOrdersOnly) {
  const std::vector<double> a = {1, 2, 3, 4, 5};
  EXPECT_DOUBLE_EQ(rank_correlation(a, {10, 20, 30, 40, 50}), 1.0);
  EXPECT_DOUBLE_EQ(rank_correlation(a, {1, 4, 9, 16, 1000}), 1.0);  // any increasing transform
  EXPECT_DOUBLE_EQ(rank_correlation(a, {5, 4, 3, 2, 1}), -1.0);
  // Ties share the mean of their ranks: {0.5, 0.5, 2, 3, 4} against 0..4, both about 2.
  EXPECT_NEAR(rank_correlation(a, {7, 7, 8, 9, 10}), 9.5 / std::sqrt(10 * 9.5), 1e-12);
  EXPECT_NEAR(rank_correlation({1, 2, 3, 4}, {2, 1, 4, 3}), 0.6, 1e-12);
  EXPECT_EQ(rank_correlation(a, {3, 3, 3, 3, 3}), 0.0);  // a constant orders nothing
  EXPECT_EQ(rank_correlation({1}, {2}), 0.0);
  EXPECT_EQ(rank_correlation(a, {1, 2}), 0.0);  // lengths differ
}

// The cost model orders every recorded problem's candidates better than chance, and calibration
// by the other problems orders them better than the model alone: the figures that show whether a
// change to the model helps the ranking as a whole, not only where the best lands.
TEST(Replay, ModelRanksEveryProblemsCandidatesAndCalibrationHelps) {
  Recorded r;
  double calibrated = 0, alone = 0;
  for (const auto& p : r.problems) {
    const double rho = replay_problem(p, r.options(StrategyKind::model)).model_rank_correlation;
    EXPECT_GT(rho, 0.0) << label(p);
    calibrated += rho;
    alone += replay_problem(p, r.options(StrategyKind::model, false)).model_rank_correlation;
  }
  calibrated /= double(r.problems.size()), alone /= double(r.problems.size());
  // 0.77 calibrated and 0.71 alone when written (lowest: 2048x2048x31 nn, 0.24).
  EXPECT_GT(calibrated, 0.6);
  EXPECT_GT(calibrated, alone);
}
