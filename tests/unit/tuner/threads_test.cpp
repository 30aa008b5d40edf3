// Starting thread pools when the system refuses threads: an Error, the started threads joined,
// never std::terminate. The refusals are made in a forked child with a small address space.
#include <gtest/gtest.h>

#include <atomic>
#include <string>

#include "gemmtune/error.hpp"
#include "gemmtune/tuner/compile_pool.hpp"
#include "gemmtune/tuner/threads.hpp"
#include "support/child.hpp"

using namespace gemmtune;
using namespace gemmtune::tuner;
using gemmtune::test::limit_address_space;
using gemmtune::test::run_in_child;

namespace {

// Room for a few 8 MiB thread stacks, not for 64.
constexpr long long kRoomForAFewThreads = 48ll << 20;

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(StartThreads, RefusedThreadsAreAnErrorAndTheStartedOnesAreJoined) {
  const std::string out = run_in_child([] {
    if (!limit_address_space(kRoomForAFewThreads)) return std::string("no limit");
    std::atomic<bool> stopping{false};
    std::atomic<int> running{0};
    try {
      auto threads = start_threads(
          64,
          [&] {
            ++running;
            while (!stopping) std::this_thread::yield();
            --running;
          },
          [&] { stopping = true; }, "test threads");
      stopping = true;
      for (auto& t : threads) t.join();
      return std::string("all started");
    } catch (const Error& e) {
      return std::string(e.what()) + (running == 0 ? "" : " [a thread still runs]");
    }
  });
  if (out == "no limit") GTEST_SKIP() << "cannot limit the address space here";
  EXPECT_TRUE(contains(out, "started only")) << out;
  EXPECT_TRUE(contains(out, "of the 64 test threads asked for")) << out;
  EXPECT_TRUE(contains(out, "ask for fewer")) << out;
  EXPECT_FALSE(contains(out, "still runs")) << out;
  EXPECT_FALSE(contains(out, "did not exit cleanly")) << out;
}

TEST(StartThreads, CompilePoolWithTooManyThreadsThrowsInsteadOfAborting) {
  const std::string out = run_in_child([] {
    if (!limit_address_space(kRoomForAFewThreads)) return std::string("no limit");
    try {
      CompilePool pool("sm_90", "", 64);
      return "started " + std::to_string(pool.threads()) + " threads";
    } catch (const Error& e) {
      return std::string(e.what());
    }
  });
  if (out == "no limit") GTEST_SKIP() << "cannot limit the address space here";
  EXPECT_TRUE(contains(out, "of the 64 compile threads asked for")) << out;
  EXPECT_FALSE(contains(out, "did not exit cleanly")) << out;
}

}  // namespace
