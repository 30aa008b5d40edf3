// Results of the dispatcher equal the float64 reference for tuned (exact), nearest, model-default
// and built-in choices, on awkward shapes: every layout, odd sizes, padded (unaligned) leading
// dimensions, offset pointers, batches. The tuning database is hand-made for this GPU.
#include <gtest/gtest.h>

#include <random>

#include "gemmtune/db/sqlite.hpp"
#include "gpu/dispatch/dispatch_check.hpp"
#include "support/gpu_env.hpp"
#include "unit/dispatch/tuning_db.hpp"

namespace gemmtune::test {
namespace {

constexpr std::pair<Op, Op> kLayouts[] = {
    {Op::N, Op::N}, {Op::N, Op::T}, {Op::T, Op::N}, {Op::T, Op::T}};

class DispatchCorrectness : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!gpu_unavailable_reason().empty()) return;
    device_ = device_info(0);
    path_ = (scratch_dir("gpu_correctness") / "tuning.db").string();
    TuningDbBuilder b(path_);
    b.gpu(device_.name, device_.limits.cc_major, device_.limits.cc_minor, device_.sm_count);
    // Three layouts are tuned (tt is not: it takes the built-in default). Per layout: an awkward
    // exact shape of alignment 1, and a square one of alignment 4 for nearest lookups.
    for (int i = 0; i < 3; ++i) {
      auto [oa, ob] = kLayouts[i];
      auto pool = tuned_pool(device_.limits, oa, ob);
      ASSERT_GE(pool.size(), 3u);
      b.add(db_problem(oa, ob, 127, 129, 65, 1, 1), pool[0], 0.01);  // vec 4 stored: lowered to 1
      b.add(db_problem(oa, ob, 256, 256, 256), pool[1], 0.02);
      b.add(db_problem(oa, ob, 64, 64, 64, 3), pool[2], 0.01);  // batched
      auto split = tuned_pool(device_.limits, oa, ob, 4);
      ASSERT_FALSE(split.empty());
      b.add(db_problem(oa, ob, 96, 96, 2048), split.front(), 0.05);  // large-K: split-K
    }
    DispatcherOptions o;
    o.db_path = path_;
    o.db_access = DbAccess::read_write;
    dispatcher_ = new Dispatcher(o);
    reference_ = new ReferenceGemm(device_.limits.arch());
  }
  static void TearDownTestSuite() {
    delete dispatcher_;
    delete reference_;
    dispatcher_ = nullptr;
    reference_ = nullptr;
  }
  void SetUp() override { GEMMTUNE_REQUIRE_GPU(); }

  // Runs `p` (padded by ld_pad, offset by ptr_offset floats) on `dispatcher` (default: the
  // suite's) and checks it against the reference and the expected source of the choice.
  void check(Problem p, int ld_pad, int ptr_offset, ChoiceSource expected,
             Dispatcher* dispatcher = nullptr) {
    if (!dispatcher) dispatcher = dispatcher_;
    std::mt19937_64 rng(std::hash<std::string>{}(describe(p)) + ld_pad * 31 + ptr_offset);
    ProblemData data(p, ld_pad, ptr_offset, rng);
    const Explanation c = dispatcher->explain(data.p);
    EXPECT_EQ(c.source, expected) << describe(data.p) << "\n" << c.to_string();
    double err = dispatch_error(*dispatcher, data, *reference_);
    EXPECT_LE(err, fp32_tolerance(p.k)) << describe(data.p) << " with " << c.config;
  }

  static inline DeviceInfo device_;
  static inline std::string path_;
  static inline Dispatcher* dispatcher_ = nullptr;
  static inline ReferenceGemm* reference_ = nullptr;
};

TEST_F(DispatchCorrectness, ExactTunedShapes) {
  for (int i = 0; i < 3; ++i) {
    auto [oa, ob] = kLayouts[i];
    check(shape(oa, ob, 127, 129, 65), 0, 0, ChoiceSource::exact);
    check(shape(oa, ob, 256, 256, 256), 0, 0, ChoiceSource::exact);
    check(shape(oa, ob, 64, 64, 64, 3), 0, 0, ChoiceSource::exact);
    check(shape(oa, ob, 96, 96, 2048), 0, 0, ChoiceSource::exact);
  }
}

TEST_F(DispatchCorrectness, NearestShapes) {
  for (int i = 0; i < 3; ++i) {
    auto [oa, ob] = kLayouts[i];
    check(shape(oa, ob, 200, 136, 312), 0, 0, ChoiceSource::nearest);  // near 256^3
    check(shape(oa, ob, 129, 131, 67), 0, 0,
          ChoiceSource::nearest);  // alignment 1, near 127x129x65
    check(shape(oa, ob, 100, 120, 3000), 0, 0, ChoiceSource::nearest);  // large-K, split-K kernel
    check(shape(oa, ob, 40, 48, 72, 5), 0, 0, ChoiceSource::nearest);   // batched
  }
}

// Alignment 2, which no tuned problem has: the nearest problem tuned at alignment 4 lends its
// config, its accesses narrowed to 2 floats.
TEST_F(DispatchCorrectness, AlignedNeighbourLendsToAnUntunedAlignmentTwo) {
  for (int i = 0; i < 3; ++i) {
    auto [oa, ob] = kLayouts[i];
    check(shape(oa, ob, 128, 96, 64), 2, 0, ChoiceSource::nearest);    // padded ld: alignment 2
    check(shape(oa, ob, 90, 70, 50, 2), 0, 2, ChoiceSource::nearest);  // pointers offset 8 bytes
  }
}

// Alignment 2 in a database tuned at alignment 1 only (which does not lend to it): under ieee
// the shape class's built-in config; under fp32 (tensor-core classes admitted) the model's pick
// among the tuned configs comes first.
TEST_F(DispatchCorrectness, ClassConfigOrModelDefaultForUntunedAlignment) {
  const std::string odd_path = (scratch_dir("gpu_correctness_odd") / "tuning.db").string();
  {
    TuningDbBuilder b(odd_path);
    b.gpu(device_.name, device_.limits.cc_major, device_.limits.cc_minor, device_.sm_count);
    for (int i = 0; i < 3; ++i) {
      auto [oa, ob] = kLayouts[i];
      auto pool = tuned_pool(device_.limits, oa, ob);
      ASSERT_GE(pool.size(), 3u);
      b.add(db_problem(oa, ob, 127, 129, 65, 1, 1), pool[0], 0.01);
      b.add(db_problem(oa, ob, 255, 257, 253, 1, 1), pool[1], 0.02);
    }
  }
  DispatcherOptions o;
  o.db_path = odd_path;
  o.use_shipped = false;  // the model ranks this database's configs
  Dispatcher ieee(o);
  o.precision = Precision::fp32;
  Dispatcher fp32(o);
  for (int i = 0; i < 3; ++i) {
    auto [oa, ob] = kLayouts[i];
    check(shape(oa, ob, 128, 96, 64), 2, 0, ChoiceSource::builtin, &ieee);
    check(shape(oa, ob, 90, 70, 50, 2), 0, 2, ChoiceSource::builtin, &ieee);
    check(shape(oa, ob, 128, 96, 64), 2, 0, ChoiceSource::model_default, &fp32);
    check(shape(oa, ob, 90, 70, 50, 2), 0, 2, ChoiceSource::model_default, &fp32);
  }
}

TEST_F(DispatchCorrectness, BuiltinForUntunedLayout) {
  check(shape(Op::T, Op::T, 127, 129, 65), 0, 0, ChoiceSource::builtin);
  check(shape(Op::T, Op::T, 256, 256, 256), 3, 1, ChoiceSource::builtin);
  check(shape(Op::T, Op::T, 33, 17, 300, 4), 1, 0, ChoiceSource::builtin);
  check(shape(Op::T, Op::T, 3, 2, 1), 0, 0,
        ChoiceSource::builtin);  // (a tt dot product runs as nt)
}

// y = A^T x runs as y^T = x^T A (kernel_form) where C's elements are adjacent, else as given;
// both against the reference, odd sizes, offset (misaligned) pointers, batches, beta 0 and not.
TEST_F(DispatchCorrectness, MatrixTransposedTimesVectorRunsTransposed) {
  for (Op ob : {Op::N, Op::T})
    for (auto [m, k, batch, ld_pad, offset, beta] : {std::tuple{1031, 517, 1, 0, 0, 0.f},
                                                     {257, 4099, 3, 0, 1, 0.5f},
                                                     {4096, 4096, 1, 0, 0, 0.f},
                                                     {333, 129, 2, 3, 1, 0.5f}}) {
      Problem p = shape(Op::T, ob, m, 1, k, batch, 1.25f, beta);
      std::mt19937_64 rng(m * 7 + k + batch);
      ProblemData data(p, ld_pad, offset, rng);
      const Explanation c = dispatcher_->explain(data.p);
      EXPECT_EQ(!c.runs_as.empty(), data.p.ldc == 1) << describe(data.p) << "\n" << c.to_string();
      const double err = dispatch_error(*dispatcher_, data, *reference_);
      EXPECT_LE(err, fp32_tolerance(k)) << describe(data.p) << " with " << c.config;
    }
}

TEST_F(DispatchCorrectness, BetaZeroDoesNotReadC) {
  // C is poisoned with NaN: a kernel that reads it fails. Alignment 1: nearest to 127x129x65.
  for (auto [oa, ob] : kLayouts) {
    ChoiceSource expected =
        oa == Op::T && ob == Op::T ? ChoiceSource::builtin : ChoiceSource::nearest;
    check(shape(oa, ob, 77, 55, 33, 1, 1.f, 0.f), 1, 1, expected);
  }
}

TEST_F(DispatchCorrectness, SgemmEntryPointsMatchRun) {
  std::mt19937_64 rng(7);
  ProblemData data(shape(Op::N, Op::T, 65, 66, 67, 3), 1, 0, rng);
  const Problem& p = data.p;
  DeviceArray<double> ref(size_t(p.batch) * p.m * p.n);
  reference_->run(p, ref.get(), nullptr);
  dispatcher_->sgemm_strided_batched(Layout::row_major, p.op_a, p.op_b, p.m, p.n, p.k, p.alpha, p.a,
                                     p.lda, p.stride_a, p.b, p.ldb, p.stride_b, p.beta, p.c, p.ldc,
                                     p.stride_c, p.batch, nullptr);
  GEMMTUNE_CUDA(cudaDeviceSynchronize());
  EXPECT_LE(relative_error(data.result(), p.ldc, p.stride_c, ref.download(), p.m, p.n, p.batch),
            fp32_tolerance(p.k));

  ProblemData one(shape(Op::T, Op::N, 31, 45, 59), 0, 0, rng);
  const Problem& q = one.p;
  DeviceArray<double> ref1(size_t(q.m) * q.n);
  reference_->run(q, ref1.get(), nullptr);
  dispatcher_->sgemm(Layout::row_major, q.op_a, q.op_b, q.m, q.n, q.k, q.alpha, q.a, q.lda, q.b,
                     q.ldb, q.beta, q.c, q.ldc, nullptr);
  GEMMTUNE_CUDA(cudaDeviceSynchronize());
  EXPECT_LE(relative_error(one.result(), q.ldc, 0, ref1.download(), q.m, q.n, 1),
            fp32_tolerance(q.k));
}

TEST_F(DispatchCorrectness, ZeroSizeLeavesCUnchanged) {
  std::mt19937_64 rng(3);
  ProblemData data(shape(Op::N, Op::N, 16, 16, 16), 0, 0, rng);
  auto before = data.result();
  dispatcher_->sgemm(Layout::row_major, Op::N, Op::N, 0, 16, 16, 1.f, nullptr, 16, nullptr, 16, 0.f,
                     nullptr, 16, nullptr);
  dispatcher_->sgemm(Layout::row_major, Op::N, Op::N, 16, 0, 16, 1.f, nullptr, 16, nullptr, 16, 0.f,
                     nullptr, 16, nullptr);
  // K = 0 with beta = 1: C = 1 C, nothing to do.
  dispatcher_->sgemm(Layout::row_major, Op::N, Op::N, 16, 16, 0, 1.f, nullptr, 16, nullptr, 16, 1.f,
                     data.p.c, 16, nullptr);
  GEMMTUNE_CUDA(cudaDeviceSynchronize());
  EXPECT_EQ(before, data.result());
}

TEST_F(DispatchCorrectness, BinariesComeFromTheDatabaseTheSecondTime) {
  DispatcherOptions o;
  o.db_path = path_;
  Problem p = shape_only_problem(Op::N, Op::N, 256, 256, 256);
  {
    Dispatcher first(o);  // compiles and stores the kernel, unless an earlier test did
    first.prepare(p);
  }
  Dispatcher fresh(o);
  EXPECT_TRUE(fresh.database_writable());
  EXPECT_EQ(fresh.prepare(p), KernelOrigin::database);
  EXPECT_EQ(fresh.prepare(p), KernelOrigin::memory);
  // A damaged entry is a miss: compiled again (and replaced).
  db::Connection(path_, db::OpenMode::read_write)
      .exec("UPDATE binaries SET content_hash = '0000000000000000'");
  Dispatcher again(o);
  EXPECT_EQ(again.prepare(p), KernelOrigin::compiled);
  Dispatcher third(o);
  EXPECT_EQ(third.prepare(p), KernelOrigin::database);
}

// Tuned repack configs ("_q") through the dispatcher: A and B copied into the stream's workspace
// (shared with split-K's counters, grown as larger problems come) before the kernel, every layout.
TEST(DispatchRepack, TunedRepackConfigsComputeRight) {
  GEMMTUNE_REQUIRE_GPU();
  const DeviceInfo device = device_info(0);
  struct Case {
    int m, n, k, batch, ld_pad, ptr_offset;
    float beta;
  };
  const Case cases[] = {{31, 29, 23, 1, 0, 0, 0.5f},
                        {301, 299, 203, 1, 0, 0, 0.f},
                        {65, 67, 129, 3, 0, 0, 0.5f},
                        {64, 96, 80, 2, 0, 1, 0.f},
                        {129, 131, 67, 2, 3, 0, 0.5f}};
  const std::string path = (scratch_dir("gpu_dispatch_repack") / "tuning.db").string();
  {
    TuningDbBuilder b(path);
    b.gpu(device.name, device.limits.cc_major, device.limits.cc_minor, device.sm_count);
    for (auto [oa, ob] : kLayouts) {
      GemmConfig c = tuned_pool(device.limits, oa, ob).at(0);
      c.repack = true;
      GemmConfig split = tuned_pool(device.limits, oa, ob, 4).at(0);
      split.repack = true;
      for (const Case& k : cases) {
        std::mt19937_64 rng(1);
        ProblemData data(shape(oa, ob, k.m, k.n, k.k, k.batch), k.ld_pad, k.ptr_offset, rng);
        // The deep-K case with split-K too: counters and copies in one workspace.
        b.add(db_problem(oa, ob, k.m, k.n, k.k, k.batch, data.p.alignment()),
              k.k >= 200 ? split : c, 0.01);
      }
    }
  }
  DispatcherOptions o;
  o.db_path = path;
  Dispatcher d(o);
  ReferenceGemm reference(device.limits.arch());
  int packed = 0;
  for (auto [oa, ob] : kLayouts)
    for (const Case& k : cases) {
      std::mt19937_64 rng(std::hash<int>{}(k.m * 7 + k.k) + int(oa) * 2 + int(ob));
      ProblemData data(shape(oa, ob, k.m, k.n, k.k, k.batch, 1.25f, k.beta), k.ld_pad, k.ptr_offset,
                       rng);
      const Explanation c = d.explain(data.p);
      const GemmConfig config = explained_config(c);
      SCOPED_TRACE(describe(data.p) + " with " + c.config);
      EXPECT_EQ(c.source, ChoiceSource::exact) << c.to_string();
      packed += config.repack;
      EXPECT_EQ(config.repack, config.packs_a(data.p) || config.packs_b(data.p));
      EXPECT_LE(dispatch_error(d, data, reference), fp32_tolerance(k.k));
    }
  EXPECT_GE(packed, 12);
}

// A plan is kept per alignment of each operand: a kernel fitted to a misaligned B (its A read in
// 4-float vectors) must not run the same shape with a misaligned A.
TEST(DispatchPlans, SameShapeWithAnotherOperandMisalignedGetsItsOwnKernel) {
  GEMMTUNE_REQUIRE_GPU();
  const DeviceInfo device = device_info(0);
  const std::string path = (scratch_dir("gpu_dispatch_plans") / "tuning.db").string();
  {
    TuningDbBuilder b(path);
    b.gpu(device.name, device.limits.cc_major, device.limits.cc_minor, device.sm_count);
    b.add(db_problem(Op::N, Op::N, 64, 64, 64, 1, 1), tuned_pool(device.limits, Op::N, Op::N).at(0),
          0.01);
  }
  DispatcherOptions o;
  o.db_path = path;
  Dispatcher d(o);
  ReferenceGemm reference(device.limits.arch());
  std::mt19937_64 rng(5);
  ProblemData data(shape(Op::N, Op::N, 64, 64, 64, 1, 1.f, 0.5f), 0, 1,
                   rng);  // every pointer +1 float
  const Problem misaligned = data.p;
  data.p.a = data.a.get(), data.p.c = data.c.get();  // only B misaligned
  data.reset_c();
  EXPECT_EQ(explained_config(d.explain(data.p)).width_a(), 4);
  EXPECT_LE(dispatch_error(d, data, reference), fp32_tolerance(64));
  data.p = misaligned;
  data.p.b = data.b.get(),
  data.p.c = data.c.get();  // only A misaligned: A read one float at a time
  data.reset_c();
  EXPECT_EQ(explained_config(d.explain(data.p)).width_a(), 1);
  EXPECT_LE(dispatch_error(d, data, reference), fp32_tolerance(64));
}

TEST_F(DispatchCorrectness, DispatchersOnSeveralDevices) {
  int count = device_count();
  if (count < 2) GTEST_SKIP() << "needs two GPUs";
  std::vector<std::unique_ptr<Dispatcher>> ds;
  for (int dev = 0; dev < 2; ++dev) {
    DispatcherOptions o;
    o.db_path = path_;
    o.device = dev;
    ds.push_back(std::make_unique<Dispatcher>(o));
  }
  for (int dev = 0; dev < 2; ++dev) {
    GEMMTUNE_CUDA(cudaSetDevice(dev));
    ReferenceGemm reference(ds[dev]->device().limits.arch());
    std::mt19937_64 rng(dev);
    ProblemData data(shape(Op::N, Op::T, 100, 90, 80), 0, 0, rng);
    const Problem& p = data.p;
    DeviceArray<double> ref(size_t(p.m) * p.n);
    reference.run(p, ref.get(), nullptr);
    GEMMTUNE_CUDA(cudaDeviceSynchronize());
    GEMMTUNE_CUDA(cudaSetDevice(1 - dev));  // the dispatcher must switch to its device itself
    ds[dev]->run(p, nullptr);
    int current = -1;
    GEMMTUNE_CUDA(cudaGetDevice(&current));
    EXPECT_EQ(current, 1 - dev) << "the caller's current device is restored";
    GEMMTUNE_CUDA(cudaSetDevice(dev));
    GEMMTUNE_CUDA(cudaDeviceSynchronize());
    EXPECT_LE(relative_error(data.result(), p.ldc, 0, ref.download(), p.m, p.n, 1),
              fp32_tolerance(p.k))
        << "device " << dev;
  }
  GEMMTUNE_CUDA(cudaSetDevice(0));
}

}  // namespace
}  // namespace gemmtune::test
