// Deterministic mode (the chooser skips split-K configs, whose atomic sums depend on the order
// blocks finish), the log callback, and the C = beta C kernel's compilation: all without a GPU.
#include <gtest/gtest.h>

#include <mutex>
#include <utility>
#include <vector>

#include "gemmtune/choice.hpp"
#include "gemmtune/gemmtune.h"
#include "gemmtune/logging.hpp"
#include "gemmtune/scale_kernel.hpp"
#include "unit/dispatch/tuning_db.hpp"

namespace gemmtune::test {
namespace {

const DeviceLimits& h200_limits() {
  static const DeviceLimits limits = DeviceLimits::for_arch("sm_90");
  return limits;
}

// A snapshot whose only tuned problem (nn 96x96x2048) is best with a split-K config.
TuningSnapshot split_k_snapshot(GemmConfig* split_config) {
  static const std::vector<GemmConfig> pool = tuned_pool(h200_limits(), Op::N, Op::N, 4);
  EXPECT_FALSE(pool.empty());
  *split_config = pool.front();
  TunedBest b;
  b.problem.m = 96, b.problem.n = 96, b.problem.k = 2048;
  b.config_name = config_name(pool.front());
  b.config_id = 1;
  b.median_ms = 0.05;
  TuningSnapshot s;
  s.gpu_model = "NVIDIA H200 (sm_90, 132 SMs)";
  s.bests = {b};
  s.top_configs = {b};
  return s;
}

TEST(Deterministic, SplitKIsNotDeterministicUnlessItsSplitsAreOrdered) {
  GemmConfig c;
  EXPECT_TRUE(c.deterministic());
  c.split_k = 2;
  EXPECT_FALSE(c.deterministic());
  // A dot product split 128 ways: atomically, or its last split adding the sums in split order.
  auto dot = parse_config_name("sgemm_nn_1x1x8_w1x1_t1x1_s2_v4_p4_k128_r8_l32_j2");
  ASSERT_TRUE(dot.has_value());
  EXPECT_FALSE(dot->deterministic());
  auto ordered = parse_config_name("sgemm_nn_1x1x8_w1x1_t1x1_s2_v4_p4_k128_r8_l32_j2_d");
  ASSERT_TRUE(ordered.has_value());
  EXPECT_TRUE(ordered->deterministic());
  EXPECT_FALSE(ordered->validate(h200_limits()).has_value());
  EXPECT_EQ(ordered->name_expression(),
            "gemmtune::sgemm<1,1,8,1,1,1,1,2,4,4,128,8,1,32,2,0,0,false,false,4,4,4,false,false,"
            "false,true>");
  // Only a split reduction orders its splits.
  GemmConfig tile;
  tile.split_k = 4, tile.ordered_splits = true;
  ASSERT_TRUE(tile.validate(h200_limits()).has_value());
  EXPECT_NE(tile.validate(h200_limits())->find("ordered_splits"), std::string::npos);
  EXPECT_FALSE(
      parse_config_name("sgemm_nn_1x1x8_w1x1_t1x1_s2_v4_p4_k128_r8_l32_j2_d_d").has_value());
}

TEST(Deterministic, TheFastestSplitKConfigRunsOnlyByDefault) {
  GemmConfig split;
  const TuningSnapshot s = split_k_snapshot(&split);
  const Problem p = shape_only_problem(Op::N, Op::N, 96, 96, 2048);

  const Choice fastest = Chooser(h200_limits(), s).choose(p);
  EXPECT_EQ(fastest.source, ChoiceSource::exact);
  EXPECT_EQ(fastest.config.split_k, split.split_k);
  EXPECT_FALSE(fastest.deterministic_only);
  EXPECT_NE(fastest.to_string().find("bits     may differ"), std::string::npos)
      << fastest.to_string();

  const Chooser deterministic(h200_limits(), s, true);
  EXPECT_TRUE(deterministic.deterministic());
  const Choice same_bits = deterministic.choose(p);
  EXPECT_TRUE(same_bits.config.deterministic());
  EXPECT_TRUE(same_bits.deterministic_only);
  EXPECT_EQ(same_bits.source, ChoiceSource::builtin);  // every tuned config was split-K
  ASSERT_FALSE(same_bits.trail.empty());
  EXPECT_NE(same_bits.trail.front().find("is not deterministic (split-K"), std::string::npos)
      << same_bits.to_string();
  EXPECT_NE(same_bits.to_string().find("bits     the same on every run"), std::string::npos)
      << same_bits.to_string();
  // Nearby shapes are held to the same rule.
  EXPECT_TRUE(
      deterministic.choose(shape_only_problem(Op::N, Op::N, 100, 90, 3000)).config.deterministic());
}

TEST(Deterministic, TheFastestUnsplitConfigMeasuredOnTheProblemRunsInstead) {
  GemmConfig split;
  TuningSnapshot s = split_k_snapshot(&split);
  TunedBest plain = s.bests.front();
  plain.config_name = config_name(tuned_pool(h200_limits(), Op::N, Op::N).at(0));
  plain.config_id = 2, plain.median_ms = 0.07;  // second fastest on the problem
  s.top_configs.push_back(plain);
  const Choice c =
      Chooser(h200_limits(), s, true).choose(shape_only_problem(Op::N, Op::N, 96, 96, 2048));
  EXPECT_EQ(c.source, ChoiceSource::exact) << c.to_string();
  EXPECT_EQ(config_name(c.config), plain.config_name);
  EXPECT_NE(c.trail.front().find("is not deterministic (split-K"), std::string::npos)
      << c.to_string();
}

// Collects what the log callback receives; restores stderr when done.
struct LogCapture {
  std::mutex mutex;
  std::vector<std::pair<LogLevel, std::string>> messages;
  LogCapture() {
    set_log_callback([this](LogLevel level, const std::string& message) {
      std::lock_guard lock(mutex);
      messages.emplace_back(level, message);
    });
  }
  ~LogCapture() { set_log_callback(nullptr); }
};

TEST(Log, CallbackReceivesMessagesInsteadOfStderr) {
  testing::internal::CaptureStderr();
  {
    LogCapture log;
    // A topic of this run's own: warn_once remembers topics for the process (--gtest_repeat).
    static int runs = 0;
    const std::string topic = "modes_test topic " + std::to_string(++runs);
    detail::log(LogLevel::info, "hello");
    detail::warn_once(topic, "first");
    detail::warn_once(topic, "second, same topic: not repeated");
    ASSERT_EQ(log.messages.size(), 2u);
    EXPECT_EQ(log.messages[0], std::pair(LogLevel::info, std::string("hello")));
    EXPECT_EQ(log.messages[1], std::pair(LogLevel::warning, std::string("first")));
  }
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  testing::internal::CaptureStderr();
  detail::log(LogLevel::warning, "back on stderr");
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "gemmtune: warning: back on stderr\n");
}

TEST(Log, ACallbackThatThrowsIsContained) {
  set_log_callback(
      [](LogLevel, const std::string&) { throw std::runtime_error("callback failed"); });
  EXPECT_NO_THROW(detail::log(LogLevel::error, "x"));
  set_log_callback(nullptr);
}

TEST(Log, CApiCallbackGetsLevelMessageAndUserData) {
  struct Seen {
    int level = -1;
    std::string message;
  } seen;
  gemmtune_set_log_callback(
      [](gemmtune_log_level_t level, const char* message, void* user) {
        auto* s = static_cast<Seen*>(user);
        s->level = int(level);
        s->message = message;
      },
      &seen);
  detail::log(LogLevel::error, "from C");
  gemmtune_set_log_callback(nullptr, nullptr);
  EXPECT_EQ(seen.level, GEMMTUNE_LOG_ERROR);
  EXPECT_EQ(seen.message, "from C");
  EXPECT_STREQ(log_level_name(LogLevel::warning), "warning");
}

TEST(ScaleKernel, CompilesWithoutAGpu) {
  for (const char* arch : {"sm_80", "sm_90"}) {
    const CompileResult r = compile_scale_kernel(arch);
    EXPECT_TRUE(r.ok) << arch << ":\n" << r.log;
    EXPECT_FALSE(r.cubin.empty());
    EXPECT_EQ(r.lowered_name, kScaleKernelName);
  }
}

}  // namespace
}  // namespace gemmtune::test
