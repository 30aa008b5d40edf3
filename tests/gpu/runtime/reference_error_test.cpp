// The tuner verifies candidates with ReferenceGemm::relative_error on the GPU; it must agree
// with the host relative_error() that the tests use, and flag an unwritten (NaN) element.
#include <gtest/gtest.h>

#include <cmath>

#include "gemmtune/kernel.hpp"
#include "gemmtune/reference.hpp"
#include "support/gpu_buffers.hpp"
#include "support/gpu_env.hpp"

using namespace gemmtune;
using namespace gemmtune::test;

TEST(ReferenceError, DeviceSumsMatchTheHostComputation) {
  GEMMTUNE_REQUIRE_GPU();
  const std::string arch = device_info(0).limits.arch();
  ReferenceGemm reference(arch);
  std::mt19937_64 rng(std::random_device{}());
  auto kernel =
      build_kernel(*parse_config_name("sgemm_nn_64x64x16_w32x32_t4x8_s3_v1_p4_k1_r8"), arch);
  DeviceArray<double> sums(3);
  // Padded ld and a batch: the device pass must follow ldc and stride_c like the host one.
  Problem shape = Problem::packed(Op::N, Op::N, 131, 67, 97, 2);
  ProblemData data(shape, 3, 1, rng);
  DeviceArray<double> ref(size_t(shape.m) * shape.n * shape.batch);
  reference.run(data.p, ref.get(), nullptr);
  kernel->launch(data.p, nullptr);
  GEMMTUNE_CUDA(cudaDeviceSynchronize());
  double host = relative_error(data.result(), data.p.ldc, data.p.stride_c, ref.download(), shape.m,
                               shape.n, shape.batch);
  double device = reference.relative_error(data.p, ref.get(), sums.get(), nullptr);
  EXPECT_GT(host, 0);  // FP32 rounding leaves a small, non-zero error
  EXPECT_LT(host, 1e-5);
  EXPECT_NEAR(device, host, 1e-9 * host + 1e-15);

  // A wrong element raises both alike; a NaN (an element never written) makes both infinite.
  float wrong = 1000.f, nan = std::nanf("");
  float* last =
      data.p.c + (shape.batch - 1) * data.p.stride_c + (shape.m - 1) * data.p.ldc + shape.n - 1;
  GEMMTUNE_CUDA(cudaMemcpy(last, &wrong, sizeof wrong, cudaMemcpyHostToDevice));
  host = relative_error(data.result(), data.p.ldc, data.p.stride_c, ref.download(), shape.m,
                        shape.n, shape.batch);
  EXPECT_GT(host, 1e-3);
  EXPECT_NEAR(reference.relative_error(data.p, ref.get(), sums.get(), nullptr), host, 1e-9 * host);
  GEMMTUNE_CUDA(cudaMemcpy(last, &nan, sizeof nan, cudaMemcpyHostToDevice));
  EXPECT_TRUE(std::isinf(reference.relative_error(data.p, ref.get(), sums.get(), nullptr)));
}
