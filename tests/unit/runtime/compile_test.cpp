// NVRTC compiles kernels without a GPU: a trivial kernel, and the sample of the family.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <thread>

#include "gemmtune/compiler.hpp"
#include "gemmtune/db_rows.hpp"
#include "gemmtune/kernel.hpp"
#include "gemmtune/sgemm/tuning/space.hpp"
#include "support/compile_all.hpp"

using namespace gemmtune;

TEST(Compile, TrivialKernelToSm90Cubin) {
  const char* src =
      "extern \"C\" __global__ void axpy(float a, const float* x, float* y) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x; y[i] += a * x[i]; }\n";
  CompileResult r = compile_cuda(src, "axpy.cu", "axpy", {});
  ASSERT_TRUE(r.ok) << r.log;
  ASSERT_GE(r.cubin.size(), 4u);
  EXPECT_EQ(std::string(r.cubin.data() + 1, 3), "ELF");  // a cubin is an ELF image
  EXPECT_EQ(r.lowered_name, "axpy");
  EXPECT_GT(r.resources.registers, 0) << r.log;
}

TEST(Compile, SyntaxErrorIsDataWithLog) {
  CompileResult r = compile_cuda("__global__ void k() { this is not cuda }", "bad.cu", "k", {});
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(r.cubin.empty());
  EXPECT_NE(r.log.find("bad.cu"), std::string::npos) << r.log;
}

TEST(Compile, InvalidConfigYieldsCompileFailedWithLog) {
  GemmConfig c;
  c.wm = 48;  // not a divisor of bm, and (48/8)*(32/8) != 32: the template's static shape breaks
  c.tm = 3;
  ASSERT_TRUE(c.validate(DeviceLimits::for_arch("sm_90")).has_value());
  CompileResult r = compile_config(c, "sm_90");
  EXPECT_FALSE(r.ok);
  EXPECT_FALSE(r.log.empty());
}

TEST(Compile, UnknownArchitectureIsDataNotException) {
  CompileResult r = compile_config(GemmConfig{}, "sm_1");
  EXPECT_FALSE(r.ok);
  EXPECT_FALSE(r.log.empty());
}

TEST(Compile, BinaryKeyDependsOnConfigAndArch) {
  GemmConfig a, b;
  b.stages = 3;
  EXPECT_NE(binary_key(a, "sm_90"), binary_key(b, "sm_90"));
  EXPECT_NE(binary_key(a, "sm_90"), binary_key(a, "sm_80"));
  EXPECT_EQ(binary_key(a, "sm_90"), binary_key(a, "sm_90"));
}

TEST(Compile, ParsesPtxasReport) {
  std::string log =
      "ptxas info    : Compiling entry function 'other' for 'sm_90'\n"
      "ptxas info    : Used 12 registers\n"
      "ptxas info    : Compiling entry function 'mine' for 'sm_90'\n"
      "ptxas         .     24 bytes stack frame, 8 bytes spill stores, 16 bytes spill loads\n"
      "ptxas info    : Used 255 registers, used 1 barriers, 2048 bytes smem\n";
  KernelResources r = parse_ptxas_report(log, "mine");
  EXPECT_EQ(r.registers, 255);
  EXPECT_EQ(r.stack_bytes, 24);
  EXPECT_EQ(r.spill_stores, 8);
  EXPECT_EQ(r.spill_loads, 16);
  EXPECT_EQ(r.static_smem, 2048);
}

// The configs compiled for sm_90 in parallel, results in their order.
static std::vector<CompileResult> compile_all(const std::vector<GemmConfig>& configs) {
  return test::compile_all(configs, "sm_90");
}

// Every knob value at least once, all four layouts, compiled in parallel; the sensible members
// (at most 64 accumulators and a budget of at least 128 registers) must not spill, but for a few
// bytes at exactly 128 registers (64 accumulators beside a register-staged next slice: tn
// 128x128x8 t8x8 o2 spills 16 bytes; the tuner prunes spilling configs, and the same tile without
// the register cap is in the space).
TEST(Compile, SampleOfTheFamilyCompilesForSm90) {
  DeviceLimits limits = DeviceLimits::for_arch("sm_90");
  std::vector<GemmConfig> sample;
  for (Op a : {Op::N, Op::T})
    for (Op b : {Op::N, Op::T})
      for (auto& c : tuner::coverage_sample(limits, a, b)) sample.push_back(c);
  const std::vector<CompileResult> results = compile_all(sample);
  std::vector<double> seconds;
  for (size_t i = 0; i < sample.size(); ++i) {
    SCOPED_TRACE(config_name(sample[i]));
    ASSERT_TRUE(results[i].ok) << results[i].log;
    EXPECT_GT(results[i].resources.registers, 0);
    const int budget = sample[i].register_budget(limits);
    if (sample[i].tm * sample[i].tn <= 64 && budget >= 128) {
      EXPECT_LE(results[i].resources.spill_stores, budget == 128 ? 32 : 0);
    }
    seconds.push_back(results[i].seconds);
  }
  std::sort(seconds.begin(), seconds.end());
  std::cout << sample.size() << " configs compiled, median " << seconds[seconds.size() / 2]
            << " s each\n";
}

// Odd leading dimensions narrow the global accesses of their operand only: every path (register
// and cp.async loaders in both orientations, streamed B, the epilogue, split-K) compiles with
// 1- and 2-float accesses of some operands under vec 4. Half the sample, fitted to misaligned data.
TEST(Compile, NarrowedAccessesCompileForSm90) {
  DeviceLimits limits = DeviceLimits::for_arch("sm_90");
  std::vector<GemmConfig> narrowed;
  for (Op a : {Op::N, Op::T})
    for (Op b : {Op::N, Op::T}) {
      Problem odd = Problem::packed(a, b, 7, 13, 11);   // every operand 1-float aligned
      Problem even = Problem::packed(a, b, 6, 14, 10);  // 2-float aligned
      odd.a = even.a = odd.b = even.b = reinterpret_cast<const float*>(std::uintptr_t(256));
      odd.c = even.c = reinterpret_cast<float*>(std::uintptr_t(256));
      auto sample = tuner::coverage_sample(limits, a, b);
      for (size_t i = 0; i < sample.size(); i += 2) {
        GemmConfig c = sample[i].fitted_to(i % 4 == 0 ? odd : even);
        if (c.width_a() < c.vec || c.width_b() < c.vec || c.width_c() < c.vec)
          narrowed.push_back(c);
      }
    }
  ASSERT_GT(narrowed.size(), 40u);
  const std::vector<CompileResult> results = compile_all(narrowed);
  for (size_t i = 0; i < narrowed.size(); ++i) {
    SCOPED_TRACE(config_name(narrowed[i]));
    ASSERT_TRUE(results[i].ok) << results[i].log;
    // Narrow accesses take more registers (more loads in flight per thread): at a budget of 128
    // some may spill (the tuner prunes spilling configs); above it none may.
    if (narrowed[i].tm * narrowed[i].tn <= 64 && narrowed[i].register_budget(limits) > 128) {
      EXPECT_EQ(results[i].resources.spill_stores, 0);
    }
  }
}

// The cubin's own records agree with ptxas's report (the fallback when NVRTC's cache skips ptxas).
TEST(Compile, CubinResourcesMatchPtxasReport) {
  const char* src =
      "extern \"C\" __global__ void local_array(float* y, int n) { float a[64];\n"
      "  for (int i = 0; i < 64; i++) a[i] = y[i * n]; float s = 0;\n"
      "  for (int i = 0; i < n; i++) s += a[(i * 7) % 64]; y[0] = s; }\n"
      "extern \"C\" __global__ void plain(float* y) { y[threadIdx.x] *= 2; }\n";
  for (const char* name : {"local_array", "plain"}) {
    CompileResult r = compile_cuda(src, "res.cu", name, {});
    ASSERT_TRUE(r.ok) << r.log;
    KernelResources from_elf = cubin_resources(r.cubin, name);
    EXPECT_EQ(from_elf.registers, r.resources.registers) << name;
    EXPECT_EQ(from_elf.stack_bytes, r.resources.stack_bytes) << name;
  }
  EXPECT_EQ(cubin_resources({'n', 'o'}, "plain").registers, -1);
}

// The family compiles for every supported architecture, not only the one we test on.
TEST(Compile, DefaultConfigCompilesForEveryArchitecture) {
  for (const char* arch : {"sm_80", "sm_86", "sm_89", "sm_90"}) {
    DeviceLimits limits = DeviceLimits::for_arch(arch);
    GemmConfig c;
    c.stages = 3;  // the cp.async path too
    ASSERT_FALSE(c.validate(limits).has_value()) << arch;
    CompileResult r = compile_config(c, arch);
    EXPECT_TRUE(r.ok) << arch << ":\n" << r.log;
    EXPECT_GT(r.resources.registers, 0) << arch;
  }
}

// A repack config is the aligned instance (same name expression), compiled with the copy kernel
// it runs first: its own binary and cache key. Each cubin holds the kernels its config's launches
// run before the GEMM and no others (each costs every compile its time).
TEST(Compile, EachCubinHoldsTheKernelsItsLaunchesRunFirstAndNoOthers) {
  Problem odd = Problem::packed(Op::N, Op::T, 2999, 3001, 2003);  // every leading dimension odd
  odd.a = odd.b = reinterpret_cast<const float*>(std::uintptr_t(256));
  odd.c = reinterpret_cast<float*>(std::uintptr_t(256));
  GemmConfig repack;
  repack.op_b = Op::T, repack.stages = 3, repack.bk = 16, repack.repack = true;
  const GemmConfig fitted = repack.fitted_to(odd);
  ASSERT_TRUE(fitted.repack);
  GemmConfig aligned = fitted;
  aligned.repack = false;
  EXPECT_EQ(fitted.name_expression(), aligned.name_expression());
  EXPECT_NE(binary_key(fitted, "sm_90"), binary_key(aligned, "sm_90"));
  EXPECT_NE(config_name(fitted), config_name(aligned));
  GemmConfig prescaled;
  prescaled.split_k = 4, prescaled.prescale_c = true;
  const auto warpgroup =
      parse_config_name("sgemm_nn_128x128x32_w16x128_t2x32_s3_v4_p4_k1_r8_m3_wg1");
  ASSERT_TRUE(warpgroup.has_value());
  struct Expect {
    GemmConfig config;
    bool pack, split, prescale;
  };
  for (const Expect& e :
       {Expect{fitted, true, false, false}, Expect{aligned, false, false, false},
        Expect{GemmConfig{}, false, false, false}, Expect{prescaled, false, false, true},
        Expect{*warpgroup, false, true, false}}) {
    SCOPED_TRACE(config_name(e.config));
    CompileResult r = compile_config(e.config, "sm_90");
    ASSERT_TRUE(r.ok) << r.log;
    EXPECT_GT(cubin_resources(r.cubin, r.lowered_name).registers, 0);
    // The entry name the binary cache derives from the config is NVRTC's; another config's is not.
    EXPECT_TRUE(is_entry_of(e.config, r.lowered_name)) << r.lowered_name << "\n"
                                                       << entry_name_prefix(e.config);
    GemmConfig other = e.config;
    other.stages += 1;
    EXPECT_FALSE(is_entry_of(other, r.lowered_name)) << r.lowered_name;
    const KernelResources pack = cubin_resources(r.cubin, "gemmtune_pack_operand");
    EXPECT_EQ(pack.registers > 0, e.pack);
    if (e.pack) {
      EXPECT_EQ(pack.stack_bytes, 0);
    }
    EXPECT_EQ(cubin_resources(r.cubin, "gemmtune_pack_split").registers > 0, e.split);
    EXPECT_EQ(cubin_resources(r.cubin, "gemmtune_prescale_c").registers > 0, e.prescale);
  }
}
