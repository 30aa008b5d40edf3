// Every sampled config of the family against the float64 reference, on fresh random data with
// the output poisoned: awkward shapes, all four layouts, alpha/beta not 1/0, batches, unaligned
// leading dimensions and pointers. Relative Frobenius error must stay under 1e-5 (tensor-core
// configs: their verification_tolerance).
#include <gtest/gtest.h>

#include <atomic>
#include <bit>
#include <cmath>
#include <map>
#include <memory>
#include <thread>

#include "gemmtune/kernel.hpp"
#include "gemmtune/reference.hpp"
#include "gemmtune/sgemm/tuning/space.hpp"
#include "support/compile_all.hpp"
#include "support/gpu_buffers.hpp"
#include "support/gpu_env.hpp"
#include "support/gpu_reference.hpp"

using namespace gemmtune;
using namespace gemmtune::test;

namespace {

struct Shape {
  int m, n, k, batch;
  int ld_pad, ptr_offset;  // unaligned variants
  float alpha, beta;
};

const std::vector<Shape> kShapes = {
    {1, 1, 1, 1, 0, 0, 1.5f, -0.75f},
    {7, 13, 11, 1, 0, 0, 1.5f, -0.75f},
    {127, 257, 1023, 1, 0, 0, -0.5f, 0.f},
    {1000, 1000, 1000, 1, 0, 0, 1.5f, 0.25f},
    {1024, 1024, 2048, 1, 0, 0, 1.f, 0.f},
    {65, 67, 129, 3, 0, 0, 0.5f, 2.f},
    {129, 131, 67, 2, 3, 0, 1.5f, -0.75f},
    {64, 96, 80, 1, 0, 1, 2.f, 0.f},
    {1, 1000, 997, 2, 0, 0, 1.5f, 0.25f},  // rows of A misaligned, B and C aligned
    // One operand's accesses narrowed at a time (per layout: whichever has the odd extent):
    {64, 1001, 256, 1, 0, 0, 1.5f, 0.25f},  // odd N
    {96, 128, 1003, 2, 0, 0, -1.f, 0.f},    // odd K
    {66, 130, 64, 1, 2, 0, 1.f, 0.5f},      // 2-float alignments
};

std::string shape_name(const Shape& s, Op a, Op b) {
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k) + " batch " +
         std::to_string(s.batch) + " " + op_char(a) + op_char(b) + " ldpad " +
         std::to_string(s.ld_pad) + " ptroff " + std::to_string(s.ptr_offset);
}

}  // namespace

TEST(KernelCorrectness, SampledConfigsMatchFloat64Reference) {
  GEMMTUNE_REQUIRE_GPU();
  ReferenceSetup setup;
  auto& [dev, arch, reference, rng] = setup;
  int checked = 0, narrowed = 0;
  double worst = 0;
  LaunchWorkspace workspace;  // shared by every split-K config: counters must reset themselves
  for (Op oa : {Op::N, Op::T})
    for (Op ob : {Op::N, Op::T}) {
      // The layout's sample, and its vec-1 variants (what the tuner also proposes for unaligned
      // data), each fitted to every shape's data; the distinct instances compiled in parallel.
      std::vector<GemmConfig> sample = tuner::coverage_sample(dev.limits, oa, ob);
      const size_t n_aligned = sample.size();
      for (size_t i = 0; i < n_aligned; ++i) {
        GemmConfig narrow = sample[i];
        narrow.vec = 1;
        if (narrow.vec != sample[i].vec && !narrow.validate(dev.limits)) sample.push_back(narrow);
      }
      std::vector<std::unique_ptr<ProblemData>> data;
      for (const Shape& s : kShapes) {
        Problem shape = Problem::packed(oa, ob, s.m, s.n, s.k, s.batch);
        shape.alpha = s.alpha, shape.beta = s.beta;
        data.push_back(std::make_unique<ProblemData>(shape, s.ld_pad, s.ptr_offset, rng));
      }
      std::map<std::string, size_t> index;  // instance name -> position in `configs`
      std::vector<GemmConfig> configs;
      for (const auto& d : data)
        for (const GemmConfig& c : sample) {
          GemmConfig f = c.fitted_to(d->p);
          if (!f.can_implement(d->p) && index.emplace(config_name(f), configs.size()).second)
            configs.push_back(f);
        }
      const std::vector<CompileResult> compiled = compile_all(configs, arch);

      for (size_t si = 0; si < kShapes.size(); ++si) {
        const Shape& s = kShapes[si];
        ProblemData& d = *data[si];
        DeviceArray<double> ref(size_t(s.m) * s.n * s.batch);
        reference.run(d.p, ref.get(), nullptr);
        std::vector<double> expect = ref.download();
        for (const GemmConfig& c : sample) {
          const GemmConfig f = c.fitted_to(d.p);
          if (f.can_implement(d.p)) continue;
          const size_t i = index.at(config_name(f));
          SCOPED_TRACE(config_name(f) + " on " + shape_name(s, oa, ob));
          ASSERT_TRUE(compiled[i].ok) << compiled[i].log;
          GemmKernel kernel(f, compiled[i].cubin, compiled[i].lowered_name);
          d.reset_c();
          kernel.launch(d.p, nullptr, &workspace);
          GEMMTUNE_CUDA(cudaDeviceSynchronize());
          double err = d.error(expect);
          // Tensor-core configs at their verification tolerance: TF32's for 1xTF32, FP32's
          // (which grows with K) for 3xTF32 summed in the tensor core (math 2: 1.4e-5 at K = 2048).
          EXPECT_LT(err, f.math == 0 ? 1e-5 : verification_tolerance(f, s.k));
          worst = std::max(worst, err);
          ++checked;
          narrowed += f.width_a() < f.vec || f.width_b() < f.vec || f.width_c() < f.vec;
        }
      }
    }
  std::cout << checked << " (config, problem) pairs checked (" << narrowed
            << " with narrowed accesses), worst relative error " << worst << "\n";
  EXPECT_GT(checked, 100);
  EXPECT_GT(narrowed, 100);
}

// Tiles that stream B read A one float at a time, so they keep float4 loads of B when only A is
// misaligned (a row of A of odd length, or A transposed with M = 1, so lda = 1).
TEST(KernelCorrectness, StreamingTilesKeepWideVectorsWhenOnlyAIsMisaligned) {
  GEMMTUNE_REQUIRE_GPU();
  ReferenceSetup setup;
  auto& [dev, arch, reference, rng] = setup;
  LaunchWorkspace workspace;
  for (const char* name : {"sgemm_nn_1x256x8_w1x128_t1x4_s2_v4_p4_k8_r8_o2",
                           "sgemm_tn_1x256x8_w1x128_t1x4_s2_v4_p4_k8_r8_o2"}) {
    auto cfg = parse_config_name(name);
    ASSERT_TRUE(cfg.has_value()) << name;
    auto kernel = build_kernel(*cfg, arch);
    for (const Shape& s :
         {Shape{1, 1000, 997, 2, 0, 0, 1.5f, 0.25f}, Shape{3, 1000, 997, 1, 0, 0, -1.f, 0.f}}) {
      SCOPED_TRACE(std::string(name) + " on " + shape_name(s, cfg->op_a, cfg->op_b));
      Problem shape = Problem::packed(cfg->op_a, cfg->op_b, s.m, s.n, s.k, s.batch);
      shape.alpha = s.alpha, shape.beta = s.beta;
      ProblemData data(shape, s.ld_pad, s.ptr_offset, rng);
      ASSERT_EQ(data.p.alignment(), 1);
      ASSERT_FALSE(kernel->config().can_implement(data.p).has_value())
          << *kernel->config().can_implement(data.p);
      DeviceArray<double> ref(size_t(s.m) * s.n * s.batch);
      reference.run(data.p, ref.get(), nullptr);
      kernel->launch(data.p, nullptr, &workspace);
      GEMMTUNE_CUDA(cudaDeviceSynchronize());
      EXPECT_LT(relative_error(data.result(), data.p.ldc, data.p.stride_c, ref.download(), s.m, s.n,
                               s.batch),
                1e-5);
    }
  }
}

// Reductions reading rows along K that start at any float (an odd K or leading dimension, a
// pointer off by 1-3 floats): rows of every misalignment, runs cut by the split boundaries and by
// K's end, one to 32 lanes per row, 4- and 2-float runs, ordered splits, splits summed in a
// cluster (sm_90 on), a matrix-vector product's narrowed runs read evict-first in L2 and
// plainly (plain_narrow_runs).
TEST(KernelCorrectness, ReductionsReadRowsOfAnyAlignment) {
  GEMMTUNE_REQUIRE_GPU();
  ReferenceSetup setup;
  auto& [dev, arch, reference, rng] = setup;
  std::vector<const char*> names = {
      "sgemm_nt_8x1x16_w8x1_t4x1_s2_v4_p4_k1_r8_l16_j4",    // rows of A, 16 lanes x 4 warps
      "sgemm_nt_1x4x16_w1x4_t1x4_s2_v4_p4_k1_r8_l32_j2",    // rows of B, 32 lanes x 2 warps
      "sgemm_nn_4x1x8_w4x1_t1x1_s2_v4_p4_k4_r8_l8",         // rows of A in 4 splits, B along N
      "sgemm_nt_1x1x16_w1x1_t1x1_s2_v4_p4_k8_r8_l32_j2",    // a dot product in 8 splits
      "sgemm_nt_32x1x8_w32x1_t1x1_s2_v4_p4_k2_r8_j4",       // one lane per row, 4 warps
      "sgemm_nt_2x1x8_w2x1_t1x1_s2_v2_p4_k1_r8_l16",        // 2-float runs
      "sgemm_nt_1x1x16_w1x1_t1x1_s2_v4_p4_k4_r8_l32_j2_d",  // ordered splits
      "sgemm_nt_1x2x32_w1x2_t1x1_s2_v4_p4_k1_r8_l16_j2",    // rows of B, one block row
      "sgemm_nt_1x2x32_w1x2_t1x1_s2_v4_p4_k1_r8_l16_j2_n",  // the same, narrowed runs plain
      "sgemm_nt_8x1x16_w8x1_t4x1_s2_v4_p4_k1_r8_l16_j4_n",  // rows of A, narrowed runs plain
  };
  const bool clusters = dev.limits.cc_major >= 9;
  if (clusters)
    for (const char* name :
         {"sgemm_nt_1x1x16_w1x1_t1x1_s2_v4_p4_k8_r8_l32_j2_x",    // a dot's splits in a cluster
          "sgemm_nn_4x1x8_w4x1_t1x1_s2_v4_p4_k4_r8_l8_x",         // rows of A, 4 splits
          "sgemm_nt_1x4x16_w1x4_t1x4_s2_v4_p4_k16_r8_l32_j2_x"})  // rows of B, 16 splits
      names.push_back(name);
  struct Case {
    int m, n, k, ld_pad, ptr_offset;
  };
  const Case cases[] = {{13, 1, 4095, 0, 0}, {9, 1, 1001, 0, 3}, {5, 1, 1, 0, 1},
                        {7, 1, 3, 2, 2},     {1, 1, 37, 0, 1},   {3, 2, 130, 1, 0},
                        {1, 5, 4093, 0, 2},  {17, 3, 70, 3, 1},  {1, 7, 1001, 1, 1}};
  LaunchWorkspace workspace;
  int checked = 0, misaligned = 0, once_narrowed = 0, plain = 0, clustered = 0;
  double worst = 0;
  for (const char* name : names) {
    auto cfg = parse_config_name(name);
    ASSERT_TRUE(cfg.has_value()) << name;
    ASSERT_FALSE(cfg->validate(dev.limits).has_value())
        << name << ": " << *cfg->validate(dev.limits);
    std::map<std::string, std::unique_ptr<GemmKernel>> kernels;  // by instance: fitted to each case
    for (const Case& c : cases) {
      Problem shape = Problem::packed(cfg->op_a, cfg->op_b, c.m, c.n, c.k, 1);
      shape.alpha = 0.75f, shape.beta = checked % 2 ? 0.f : 1.5f;
      ProblemData data(shape, c.ld_pad, c.ptr_offset, rng);
      const GemmConfig fitted = cfg->fitted_to(data.p);
      if (fitted.can_implement(data.p)) continue;  // K too short for the splits
      auto& built = kernels[config_name(fitted)];
      if (!built) built = build_kernel(fitted, arch);
      SCOPED_TRACE(config_name(fitted) + " " + std::to_string(c.m) + "x" + std::to_string(c.n) +
                   "x" + std::to_string(c.k) + " ldpad " + std::to_string(c.ld_pad) + " ptroff " +
                   std::to_string(c.ptr_offset));
      DeviceArray<double> ref(size_t(c.m) * c.n);
      reference.run(data.p, ref.get(), nullptr);
      built->launch(data.p, nullptr, &workspace);
      GEMMTUNE_CUDA(cudaDeviceSynchronize());
      const double err = data.error(ref.download());
      EXPECT_LT(err, 1e-5);
      worst = std::max(worst, err);
      ++checked;
      misaligned += fitted.align_a < fitted.vec || fitted.align_b < fitted.vec;
      once_narrowed += fitted.narrows_read_once_runs(data.p) && !fitted.plain_narrow_runs;
      plain += fitted.plain_narrow_runs;
      clustered += fitted.cluster_splits;
    }
  }
  std::cout << checked << " (config, problem) pairs checked, " << misaligned
            << " reading misaligned rows (" << once_narrowed
            << " a matrix in narrowed runs evict-first in L2, " << plain << " plainly), "
            << clustered << " with splits summed in a cluster; worst relative error " << worst
            << "\n";
  EXPECT_GE(checked, 40);
  EXPECT_GE(misaligned, 30);
  EXPECT_GE(once_narrowed, 4);
  EXPECT_GE(plain, 4);
  if (clusters) {
    EXPECT_GE(clustered, 12);
  }
}

// What checking a launch variant (repack, stage_c) found over the sampled configs.
struct VariantCheck {
  int checked = 0, packed_a = 0, packed_b = 0;
  double worst = 0;
};

// Every tile config of the coverage sample with `mark` applied, fitted to each of `shapes` in all
// four layouts, where fitting keeps the variant (`applies`), against the float64 reference with C
// poisoned; A and B must not change. Each binary compiles once, in parallel.
template <class Mark, class Applies>
VariantCheck check_variant(const std::vector<Shape>& shapes, Mark mark, Applies applies) {
  ReferenceSetup setup;
  auto& [dev, arch, reference, rng] = setup;
  VariantCheck out;
  LaunchWorkspace workspace;
  for (Op oa : {Op::N, Op::T})
    for (Op ob : {Op::N, Op::T}) {
      std::vector<GemmConfig> sample;
      for (GemmConfig c : tuner::coverage_sample(dev.limits, oa, ob))
        if (!c.reduces()) {
          mark(c);
          sample.push_back(c);
        }
      std::vector<std::unique_ptr<ProblemData>> data;
      for (const Shape& s : shapes) {
        Problem shape = Problem::packed(oa, ob, s.m, s.n, s.k, s.batch);
        shape.alpha = s.alpha, shape.beta = s.beta;
        data.push_back(std::make_unique<ProblemData>(shape, s.ld_pad, s.ptr_offset, rng));
      }
      std::map<std::string, size_t> index;  // name expression -> position in `binaries`
      std::vector<GemmConfig> binaries;
      for (const auto& d : data)
        for (const GemmConfig& c : sample) {
          GemmConfig f = c.fitted_to(d->p);
          if (applies(f) && !f.can_implement(d->p) &&
              index.emplace(f.name_expression(), binaries.size()).second)
            binaries.push_back(f);
        }
      const std::vector<CompileResult> compiled = compile_all(binaries, arch);

      for (size_t si = 0; si < shapes.size(); ++si) {
        const Shape& s = shapes[si];
        ProblemData& d = *data[si];
        DeviceArray<double> ref(size_t(s.m) * s.n * s.batch);
        reference.run(d.p, ref.get(), nullptr);
        std::vector<double> expect = ref.download();
        const std::vector<float> a_before = d.a.download(), b_before = d.b.download();
        for (const GemmConfig& c : sample) {
          const GemmConfig f = c.fitted_to(d.p);
          if (!applies(f) || f.can_implement(d.p)) continue;
          const size_t i = index.at(f.name_expression());
          SCOPED_TRACE(config_name(f) + " on " + shape_name(s, oa, ob));
          EXPECT_TRUE(compiled[i].ok) << compiled[i].log;
          if (!compiled[i].ok) continue;
          GemmKernel kernel(f, compiled[i].cubin, compiled[i].lowered_name);
          d.reset_c();
          kernel.launch(d.p, nullptr, &workspace);
          GEMMTUNE_CUDA(cudaDeviceSynchronize());
          double err = d.error(expect);
          // Tensor-core configs at their verification tolerance: TF32's for 1xTF32, FP32's
          // (which grows with K) for 3xTF32 summed in the tensor core (math 2: 1.4e-5 at K = 2048).
          EXPECT_LT(err, f.math == 0 ? 1e-5 : verification_tolerance(f, s.k));
          out.worst = std::max(out.worst, err);
          ++out.checked;
          out.packed_a += f.packs_a(d.p);
          out.packed_b += f.packs_b(d.p);
        }
        EXPECT_EQ(d.a.download(), a_before) << "A changed on " << shape_name(s, oa, ob);
        EXPECT_EQ(d.b.download(), b_before) << "B changed on " << shape_name(s, oa, ob);
      }
    }
  return out;
}

// Repack configs: A and B, where misaligned, are copied into the workspace with rows padded to 4
// floats and read at full width. The sample's tile configs with repack set, fitted to every
// awkward shape (odd leading dimensions and batch strides in all four layouts, pointers off by
// one, K = 1, M or N = 1, 2-float alignments) against the float64 reference, C poisoned where
// beta = 0. One workspace for all: its packed buffers grow and are reused in stream order.
TEST(KernelCorrectness, RepackConfigsMatchFloat64Reference) {
  GEMMTUNE_REQUIRE_GPU();
  const std::vector<Shape> shapes = {
      {2999, 3001, 2003, 1, 0, 0, 1.f, 0.f},  // the problem: every leading dimension odd
      {7, 13, 11, 1, 0, 0, 1.5f, -0.75f},    {1, 1, 1, 1, 0, 0, 1.5f, -0.75f},
      {65, 67, 129, 3, 0, 0, 0.5f, 2.f},      // batched, odd strides
      {129, 131, 67, 2, 3, 0, 1.5f, -0.75f},  // odd padded leading dimensions
      {64, 96, 80, 2, 0, 1, 2.f, 0.f},        // aligned shape, pointers one float off
      {100, 130, 1, 2, 0, 0, 1.5f, 0.25f},    // K = 1
      {1, 1000, 997, 2, 0, 0, 1.5f, 0.25f},   // M = 1
      {1000, 1, 997, 1, 0, 0, -1.f, 0.f},     // N = 1
      {66, 130, 64, 1, 2, 0, 1.f, 0.5f},      // 2-float alignments
  };
  const VariantCheck r = check_variant(
      shapes, [](GemmConfig& c) { c.repack = true; }, [](const GemmConfig& f) { return f.repack; });
  std::cout << r.checked << " (repack config, problem) pairs checked (A packed in " << r.packed_a
            << ", B in " << r.packed_b << "), worst relative error " << r.worst << "\n";
  EXPECT_GT(r.checked, 200);
  EXPECT_GT(r.packed_a, 100);
  EXPECT_GT(r.packed_b, 100);
}

// Where an odd ldc narrows C: odd N and padded ldc, beta 0 (C poisoned) and not, batches.
const std::vector<Shape> kNarrowedCShapes = {
    {1023, 1001, 257, 1, 0, 0, 1.f, 0.f},  // odd N: C one float aligned
    {7, 13, 11, 1, 0, 0, 1.5f, -0.75f},    {65, 67, 129, 3, 0, 0, 0.5f, 2.f},  // batched
    {129, 131, 67, 2, 3, 0, 1.5f, -0.75f},  // odd padded leading dimensions
    {64, 96, 80, 2, 0, 1, 2.f, 0.f},        // pointers one float off
    {200, 130, 2048, 1, 2, 0, 1.f, 0.5f},   // 2-float alignment, deep K
    {1, 1001, 97, 1, 0, 0, 1.5f, 0.25f},    // one row
};

// The sample's tile configs with the C variant `flag` set, on kNarrowedCShapes: at least 200
// pairs, split-K and tensor-core configs among them.
void check_c_variant(bool GemmConfig::*flag, const char* what) {
  bool split = false, mma = false;
  const VariantCheck r = check_variant(
      kNarrowedCShapes, [&](GemmConfig& c) { c.*flag = true; },
      [&](const GemmConfig& f) {
        split |= f.*flag && f.split_k > 1;
        mma |= f.*flag && f.uses_tensor_cores();
        return f.*flag;
      });
  std::cout << r.checked << " (" << what << " config, problem) pairs checked, worst relative error "
            << r.worst << "\n";
  EXPECT_GT(r.checked, 200);
  EXPECT_TRUE(split) << "no split-K " << what << " config";
  EXPECT_TRUE(mma) << "no tensor-core " << what << " config";
}

// C written through shared memory (stage_c) where an odd ldc narrows it: split-K and
// tensor-core configs of the sample, repack.
TEST(KernelCorrectness, StagedCConfigsMatchFloat64Reference) {
  GEMMTUNE_REQUIRE_GPU();
  check_c_variant(&GemmConfig::stage_c, "staged-C");
}

// C written in aligned windows (window_c) on the same shapes: every misalignment of a row, the
// partial windows at both ends of each warp's row and past N, split-K's atomic adds, beta, the
// tensor-core chunks of two floats and thin tiles.
TEST(KernelCorrectness, WindowedCConfigsMatchFloat64Reference) {
  GEMMTUNE_REQUIRE_GPU();
  check_c_variant(&GemmConfig::window_c, "windowed-C");
}

// Shapes that cut a mainloop's slices every way: K of one value, one slice of bk 8, a slice of
// bk 16 and a row more, odd sizes (every operand narrowed), odd padded leading dimensions,
// pointers one float off, batches, deep K (many slices, and splits), beta 0 (C poisoned) and not.
const std::vector<Shape> kSliceShapes = {
    {131, 67, 1, 1, 0, 0, 1.f, 0.f},       {65, 129, 8, 1, 0, 0, 1.5f, -0.75f},
    {70, 33, 17, 2, 0, 0, 1.f, 0.f},       {257, 255, 101, 1, 0, 0, 1.f, 0.5f},
    {129, 131, 67, 2, 3, 0, 1.5f, -0.75f}, {64, 96, 80, 2, 0, 1, 2.f, 0.f},
    {300, 200, 2048, 1, 0, 0, 1.f, 0.f},
};

// Early-barrier configs: the two-stage FMA loop stores the next slice and passes the barrier
// before the last k-step. The sample's configs that may, on K of one slice or less (the first
// slice only), one slice and one more, a few slices, split K, odd leading dimensions (narrowed
// loads), batches, beta 0 (C poisoned) and not, against the float64 reference.
TEST(KernelCorrectness, EarlyBarrierConfigsMatchFloat64Reference) {
  GEMMTUNE_REQUIRE_GPU();
  const VariantCheck r = check_variant(
      kSliceShapes, [](GemmConfig& c) { c.early_barrier = c.can_barrier_early(); },
      [](const GemmConfig& f) { return f.early_barrier; });
  std::cout << r.checked << " (early-barrier config, problem) pairs checked, worst relative error "
            << r.worst << "\n";
  EXPECT_GT(r.checked, 100);
}

// cp.async tiles that copy a K-contiguous operand (A of nn and nt, B of nt and tt) transposed into
// shared memory one float at a time (TileLoader::copy_async_transposed): the sample's FMA tile
// configs moved to 3 or 4 stages, on K of one value, one slice and a partial one, odd K and
// leading dimensions (every operand narrowed), pointers one float off, tiles cut by M and N, a
// batch and deep K, beta 0 (C poisoned) and not.
TEST(KernelCorrectness, TransposingCopiesMatchFloat64Reference) {
  GEMMTUNE_REQUIRE_GPU();
  const DeviceLimits limits = device_info(0).limits;
  const auto to_cp_async = [&](GemmConfig& c) {
    if (c.math != 0 || c.streams_b() || c.stages >= 3) return;
    GemmConfig t = c;
    t.stages = t.bk == 8 ? 4 : 3;
    t.early_barrier = false;
    if (!t.validate(limits)) c = t;
  };
  const VariantCheck r = check_variant(kSliceShapes, to_cp_async, [](const GemmConfig& f) {
    return f.path() == KernelPath::cp_async_tile && f.math == 0 &&
           (f.op_a == Op::N || f.op_b == Op::T);
  });
  std::cout << r.checked << " (transposing cp.async config, problem) pairs checked, worst "
            << "relative error " << r.worst << "\n";
  EXPECT_GT(r.checked, 200);
}

// Split-tail configs: the tiles of whole rounds of one per SM unsplit, the rest split K ways
// (one launch; BlockWork::of_split_tail). The sample's split tile configs with split_tail set, on
// shapes with a round and a few tiles more, several rounds and more, exactly one round (nothing
// split) and under one round (every tile split), odd sizes and leading dimensions, beta 0 (C
// poisoned) and not, against the float64 reference.
TEST(KernelCorrectness, SplitTailConfigsMatchFloat64Reference) {
  GEMMTUNE_REQUIRE_GPU();
  const std::vector<Shape> shapes = {
      {1531, 1531, 611, 1, 0, 0, 1.f, 0.f},      // 144 tiles of 128x128, 576 of 64x64
      {1000, 1030, 997, 1, 0, 0, 1.5f, -0.75f},  // beta: the unsplit tiles read C too
      {1408, 1536, 160, 1, 0, 0, 1.f, 0.5f},     // 132 tiles of 128x128: no tile split
      {130, 131, 677, 1, 3, 0, 1.5f, 0.f},       // few tiles: every tile split
      {2050, 700, 1203, 1, 2, 1, -1.f, 0.25f},   // 2-float ld, pointers one float off
  };
  const VariantCheck r = check_variant(
      shapes, [](GemmConfig& c) { c.split_tail = c.split_k > 1 && !c.streams_b(); },
      [](const GemmConfig& f) { return f.split_tail; });
  std::cout << r.checked << " (split-tail config, problem) pairs checked, worst relative error "
            << r.worst << "\n";
  EXPECT_GT(r.checked, 20);
}

// Named tiles (the part of a name after the layout, e.g. "128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8"), each in
// every one of `layouts` (default all four), fitted to each of `shapes`, against the float64 reference
// with C poisoned where beta = 0; `check` sees each (config, problem data, error). One workspace for
// all. Returns the pairs run.
template <class Check>
int check_named_tiles(const std::vector<const char*>& tiles, const std::vector<Shape>& shapes,
                      Check check,
                      const std::vector<std::pair<Op, Op>>& layouts = {
                          {Op::N, Op::N}, {Op::N, Op::T}, {Op::T, Op::N}, {Op::T, Op::T}}) {
  ReferenceSetup setup;
  auto& [dev, arch, reference, rng] = setup;
  LaunchWorkspace workspace;
  int checked = 0;
  for (const auto& [oa, ob] : layouts) {
    std::vector<std::unique_ptr<ProblemData>> data;
    std::vector<GemmConfig> configs;  // (tile, shape) pairs that apply, fitted
    std::vector<size_t> shape_of;
    for (size_t si = 0; si < shapes.size(); ++si) {
      const Shape& s = shapes[si];
      Problem shape = Problem::packed(oa, ob, s.m, s.n, s.k, s.batch);
      shape.alpha = s.alpha, shape.beta = s.beta;
      data.push_back(std::make_unique<ProblemData>(shape, s.ld_pad, s.ptr_offset, rng));
      for (const char* tile : tiles) {
        auto c = parse_config_name(std::string("sgemm_") + op_char(oa) + op_char(ob) + "_" + tile);
        EXPECT_TRUE(c.has_value()) << tile;
        if (!c) return checked;
        EXPECT_FALSE(c->validate(dev.limits).has_value())
            << tile << ": " << c->validate(dev.limits).value_or("");
        const GemmConfig f = c->fitted_to(data.back()->p);
        if (f.can_implement(data.back()->p))
          continue;  // split_tail on a batch, splits without work
        configs.push_back(f), shape_of.push_back(si);
      }
    }
    const std::vector<CompileResult> compiled = compile_all(configs, arch);
    std::map<size_t, std::vector<double>> expected;
    for (size_t i = 0; i < configs.size(); ++i) {
      const Shape& s = shapes[shape_of[i]];
      ProblemData& d = *data[shape_of[i]];
      if (!expected.count(shape_of[i])) {
        DeviceArray<double> ref(size_t(s.m) * s.n * s.batch);
        reference.run(d.p, ref.get(), nullptr);
        expected[shape_of[i]] = ref.download();
      }
      SCOPED_TRACE(config_name(configs[i]) + " on " + shape_name(s, oa, ob));
      EXPECT_TRUE(compiled[i].ok) << compiled[i].log;
      if (!compiled[i].ok) continue;
      GemmKernel kernel(configs[i], compiled[i].cubin, compiled[i].lowered_name);
      d.reset_c();
      kernel.launch(d.p, nullptr, &workspace);
      GEMMTUNE_CUDA(cudaDeviceSynchronize());
      check(configs[i], d, d.error(expected[shape_of[i]]));
      ++checked;
    }
  }
  return checked;
}

// Warpgroup configs (wgmma, sm_90 only): A and B split into K-major TF32 planes by the copy before
// the kernel, or with math 1 read in place through tensor maps where they are K-major and aligned
// (K a multiple of 4 below: A of nn and nt, B of nt and tt). Every math variant, tiles of 64 and
// 128 rows and 32 to 256 columns, split-K (all tiles and the tail only), C staged, in all four
// layouts on odd shapes, K = 1, M or N = 1, batches with odd strides, padded leading dimensions
// and pointers one float off, against the float64 reference with C poisoned where beta = 0.
TEST(KernelCorrectness, WarpgroupConfigsMatchFloat64Reference) {
  GEMMTUNE_REQUIRE_GPU();
  GEMMTUNE_CUDA(cudaSetDevice(0));
  const DeviceInfo dev = device_info(0);
  if (dev.limits.cc_major != 9 || dev.limits.cc_minor != 0)
    GTEST_SKIP() << "the warpgroup instruction needs sm_90";
  const std::vector<const char*> tiles = {
      "128x128x32_w16x128_t2x32_s3_v4_p4_k1_r8_m3_wg1",
      "128x256x32_w16x256_t2x64_s3_v4_p4_k1_r8_m1_wg1",
      "64x64x32_w16x64_t2x16_s4_v4_p4_k1_r8_m2_wg1",
      "64x32x32_w16x32_t2x8_s2_v4_p4_k2_r1_m4_wg1",
      "128x64x32_w16x64_t2x16_s3_v4_p4_k4_r8_m3_wg1_h",
      "128x128x32_w16x128_t2x32_s3_v4_p4_k1_r8_m3_wg1_e",
  };
  const std::vector<Shape> shapes = {
      {2999, 301, 203, 1, 0, 0, 1.f, 0.f},
      {7, 13, 11, 1, 0, 0, 1.5f, -0.75f},
      {1, 1, 1, 1, 0, 0, 1.5f, -0.75f},
      {65, 67, 129, 3, 0, 0, 0.5f, 2.f},
      {129, 131, 67, 2, 3, 0, 1.5f, -0.75f},
      {64, 96, 80, 2, 0, 1, 2.f, 0.f},
      {100, 130, 1, 2, 0, 0, 1.5f, 0.25f},
      {1, 1000, 997, 1, 0, 0, 1.5f, 0.25f},
      {1000, 1, 997, 1, 0, 0, -1.f, 0.f},
      {1031, 1029, 1031, 1, 0, 0, 1.f, 0.f},
      // In place where K-major: odd M and N, K past a slice's edge, batches, padded rows.
      {1031, 259, 516, 1, 0, 0, 1.f, 0.f},
      {67, 131, 100, 3, 4, 0, 1.5f, -0.75f},
      {1, 300, 1028, 1, 0, 0, 1.5f, 0.25f},
      {257, 1, 4, 2, 8, 0, 1.f, 0.f},
  };
  int in_place = 0;
  double worst = 0;
  const int checked =
      check_named_tiles(tiles, shapes, [&](const GemmConfig& c, const ProblemData& d, double err) {
        EXPECT_LT(err, verification_tolerance(c, d.p.k));
        in_place += c.reads_a_in_place(d.p) || c.reads_b_in_place(d.p);
        if (c.math >= 3) {
          EXPECT_LT(err, 1e-6);  // FP32 accuracy and better
        }
        worst = std::max(worst, c.math == 1 ? 0.0 : err);
      });
  std::cout << checked << " (warpgroup config, problem) pairs checked (" << in_place
            << " reading an operand in place), worst relative error of 3xTF32 " << worst << "\n";
  EXPECT_GT(checked, 150);
  EXPECT_GE(in_place, 12);
}

// Block sides of three warp tiles (48 and 96 rows or columns, 96 to 384 threads): loads whose
// vectors do not divide evenly among the threads, every cp.async and register path, split-K and
// split tail, C written directly, staged and in windows, on shapes they fit (33 rows, 96 columns)
// and shapes they overhang, odd leading dimensions, batches, K = 1, M or N = 1.
TEST(KernelCorrectness, ThreeWarpTilesMatchFloat64Reference) {
  GEMMTUNE_REQUIRE_GPU();
  const std::vector<const char*> tiles = {
      "48x128x16_w16x64_t4x8_s3_v4_p4_k1_r8",     "48x128x32_w16x64_t4x8_s3_v4_p4_k8_r8_o2_c",
      "48x64x8_w16x32_t4x4_s2_v4_p4_k4_r8_e",     "96x64x8_w32x64_t8x8_s2_v4_p4_k1_r8",
      "128x96x8_w64x32_t8x8_s2_v4_p4_k4_r8_h",    "48x48x16_w16x16_t2x4_s3_v4_p4_k2_r1",
      "96x96x16_w32x32_t8x4_s3_v4_p4_k1_r8_o2_e", "64x96x16_w32x32_t4x8_s1_v4_p4_k1_r8_c",
  };
  const std::vector<Shape> shapes = {
      {33, 4097, 1023, 1, 0, 0, 1.f, 0.f},   {48, 96, 64, 1, 0, 0, 1.5f, -0.75f},
      {7, 13, 11, 1, 0, 0, 1.5f, -0.75f},    {1, 1, 1, 1, 0, 0, 1.5f, -0.75f},
      {97, 95, 131, 3, 0, 0, 0.5f, 2.f},     {129, 131, 67, 2, 3, 0, 1.5f, -0.75f},
      {512, 96, 100, 4, 0, 1, 2.f, 0.f},     {100, 130, 1, 2, 0, 0, 1.5f, 0.25f},
      {1, 1000, 997, 1, 0, 0, 1.5f, 0.25f},  {1000, 1, 997, 1, 0, 0, -1.f, 0.f},
      {1031, 1029, 1031, 1, 0, 0, 1.f, 0.f}, {66, 130, 64, 1, 2, 0, 1.f, 0.5f},
  };
  double worst = 0;
  const int checked =
      check_named_tiles(tiles, shapes, [&](const GemmConfig&, const ProblemData&, double err) {
        EXPECT_LT(err, 1e-5);
        worst = std::max(worst, err);
      });
  std::cout << checked << " (three-warp tile config, problem) pairs checked, worst relative error "
            << worst << "\n";
  EXPECT_GT(checked, 250);
}

// Thin tiles that stream B with one register set (stages 1; B not transposed, so nn and tn): 1 to
// 8 rows, 2 and 4 columns per thread, with and without split-K, odd and padded leading
// dimensions, pointers one float off, batches, K = 1, beta 0 (C poisoned) and not.
TEST(KernelCorrectness, StreamingOneRegisterSetMatchesFloat64Reference) {
  GEMMTUNE_REQUIRE_GPU();
  const std::vector<const char*> tiles = {
      "1x256x16_w1x128_t1x4_s1_v4_p4_k32_r8", "1x256x8_w1x128_t1x4_s1_v4_p4_k1_r8_o2",
      "2x64x32_w2x64_t2x2_s1_v4_p4_k4_r8",    "4x256x16_w4x128_t4x4_s1_v4_p4_k8_r8",
      "8x256x16_w8x128_t8x4_s1_v4_p4_k16_r8", "1x512x32_w1x128_t1x4_s1_v2_p4_k2_r8",
  };
  const std::vector<Shape> shapes = {
      {1, 4093, 4099, 1, 0, 0, 1.f, 0.f}, {1, 1000, 997, 2, 0, 0, 1.5f, 0.25f},
      {3, 1000, 997, 1, 3, 1, -1.f, 0.f}, {8, 4096, 4096, 1, 0, 0, 1.f, 0.f},
      {7, 257, 1, 3, 0, 0, 1.5f, -0.75f}, {5, 130, 1031, 1, 1, 0, 0.5f, 2.f},
      {1, 1, 2048, 1, 0, 0, 1.f, 0.f},    {2, 2048, 2048, 1, 0, 0, 1.f, 0.5f},
  };
  double worst = 0;
  const int checked = check_named_tiles(tiles, shapes,
                                        [&](const GemmConfig&, const ProblemData&, double err) {
                                          EXPECT_LT(err, 1e-5);
                                          worst = std::max(worst, err);
                                        },
                                        {{Op::N, Op::N}, {Op::T, Op::N}});
  std::cout << checked
            << " (one-set streaming config, problem) pairs checked, worst relative error " << worst
            << "\n";
  EXPECT_GT(checked, 50);
}

TEST(KernelCorrectness, RepackWithoutWorkspaceIsAnError) {
  GEMMTUNE_REQUIRE_GPU();
  ReferenceSetup setup;
  auto& [dev, arch, reference, rng] = setup;
  ProblemData data(Problem::packed(Op::N, Op::N, 7, 13, 11), 0, 0, rng);
  GemmConfig c;
  c.repack = true;
  auto kernel = build_kernel(c.fitted_to(data.p), arch);
  ASSERT_TRUE(kernel->config().repack);
  try {
    kernel->launch(data.p, nullptr);
    FAIL() << "launched without a workspace";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("LaunchWorkspace"), std::string::npos) << e.what();
  }
}

// Special values through the tensor-core variants: a NaN in A (CUDA's canonical 0x7fffffff,
// whose TF32 rounding would carry into the sign) makes its row of C NaN and leaves the others
// finite, as in FP32. (Infinite inputs give NaN in the 3xTF32 variants: docs/precision.md.)
TEST(KernelCorrectness, TensorCoreVariantsPropagateNaN) {
  GEMMTUNE_REQUIRE_GPU();
  ReferenceSetup setup;
  auto& [dev, arch, reference, rng] = setup;
  for (int math : {0, 1, 2, 3, 4}) {
    GemmConfig c;
    c.bm = c.bn = 64, c.bk = 16, c.wm = 32, c.wn = 32, c.tm = math ? 4 : 8, c.tn = math ? 8 : 4,
    c.stages = 3;
    c.math = math;
    ASSERT_FALSE(c.validate(dev.limits).has_value()) << math;
    Problem shape = Problem::packed(Op::N, Op::N, 70, 50, 40);
    ProblemData data(shape, 0, 0, rng);
    std::vector<float> a = data.a.download();
    a[3 * 40 + 7] = std::bit_cast<float>(0x7fffffffu);  // row 3 of A
    data.a.upload(a);
    auto kernel = build_kernel(c.fitted_to(data.p), arch);
    data.reset_c();
    kernel->launch(data.p, nullptr, nullptr);
    GEMMTUNE_CUDA(cudaDeviceSynchronize());
    const std::vector<float> out = data.result();
    for (int i = 0; i < 70; ++i)
      for (int j = 0; j < 50; ++j)
        ASSERT_EQ(std::isnan(out[i * 50 + j]), i == 3)
            << "math " << math << " at " << i << ", " << j;
  }
}
