// Eight threads call one dispatcher at once, each on its own stream, all starting cold (their
// first calls race to build the same plans), then hot; every result is checked. One shape is
// tuned to a split-K config: its launches on eight streams at once need eight workspaces.
#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <thread>

#include "gpu/dispatch/dispatch_check.hpp"
#include "support/gpu_env.hpp"
#include "unit/dispatch/tuning_db.hpp"

namespace gemmtune::test {
namespace {

TEST(DispatchThreads, EightThreadsOwnStreams) {
  GEMMTUNE_REQUIRE_GPU();
  constexpr int kThreads = 8, kRepeats = 20;
  DispatcherOptions o;
  o.db_path = (scratch_dir("gpu_threads") / "tuning.db").string();
  o.db_access = DbAccess::read_write;
  const DeviceInfo device = device_info(0);
  {
    TuningDbBuilder b(o.db_path);
    b.gpu(device.name, device.limits.cc_major, device.limits.cc_minor, device.sm_count);
    auto split = tuned_pool(device.limits, Op::N, Op::N, 8);
    ASSERT_FALSE(split.empty());
    b.add(db_problem(Op::N, Op::N, 96, 80, 2048), split.front(), 0.05);
  }
  Dispatcher d(o);
  ReferenceGemm reference(d.device().limits.arch());
  const Problem shapes[] = {shape(Op::N, Op::N, 128, 128, 128, 1, 1.f, 0.f),
                            shape(Op::N, Op::T, 77, 99, 111, 1, 1.f, 0.f),
                            shape(Op::T, Op::N, 64, 32, 256, 3, 2.f, 0.f),
                            shape(Op::N, Op::N, 96, 80, 2048, 1, 1.5f, 0.f)};
  struct Work {
    std::unique_ptr<ProblemData> data;
    std::unique_ptr<DeviceArray<double>> ref;
  };
  std::vector<std::vector<Work>> work(kThreads);
  std::mt19937_64 rng(11);
  for (int t = 0; t < kThreads; ++t)
    for (const Problem& s : shapes) {
      Work w;
      w.data = std::make_unique<ProblemData>(s, t % 2, t % 3 == 2 ? 1 : 0,
                                             rng);  // several alignment classes
      w.ref = std::make_unique<DeviceArray<double>>(size_t(s.batch) * s.m * s.n);
      reference.run(w.data->p, w.ref->get(), nullptr);
      work[t].push_back(std::move(w));
    }
  GEMMTUNE_CUDA(cudaDeviceSynchronize());

  std::atomic<int> ready{0};
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      try {
        cudaStream_t stream;
        GEMMTUNE_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        ++ready;
        while (ready.load() < kThreads)
          std::this_thread::yield();  // start together: cold plans race
        for (int r = 0; r < kRepeats; ++r)
          for (auto& w : work[t]) d.run(w.data->p, stream);
        GEMMTUNE_CUDA(cudaStreamSynchronize(stream));
        GEMMTUNE_CUDA(cudaStreamDestroy(stream));
      } catch (const std::exception& e) {
        errors[t] = e.what();
      }
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(errors[t], "") << "thread " << t;
  for (int t = 0; t < kThreads; ++t)
    for (auto& w : work[t]) {
      const Problem& p = w.data->p;
      EXPECT_LE(
          relative_error(w.data->result(), p.ldc, p.stride_c, w.ref->download(), p.m, p.n, p.batch),
          fp32_tolerance(p.k))
          << "thread " << t << " " << describe(p);
    }
  EXPECT_GE(d.plan_count(), 4u);
  EXPECT_EQ(explained_config(d.explain(shapes[3])).split_k, 8);
}

}  // namespace
}  // namespace gemmtune::test
