#pragma once
// The dispatcher's GPU tests that compare gemmtune with cuBLAS on the same buffers: the C API's
// handle and cuBLAS's, set up alike, and the conversions between their enums.
#include <cublas_v2.h>
#include <gtest/gtest.h>

#include <memory>

#include "gemmtune/gemmtune.h"
#include "gpu/dispatch/dispatch_check.hpp"
#include "support/gpu_env.hpp"

#define CUBLAS_OK(call) ASSERT_EQ((call), CUBLAS_STATUS_SUCCESS) << #call
#define GEMMTUNE_OK(call) \
  ASSERT_EQ((call), GEMMTUNE_STATUS_SUCCESS) << #call << ": " << gemmtune_last_error()

namespace gemmtune::test {

inline cublasOperation_t cublas_op(Op op) { return op == Op::N ? CUBLAS_OP_N : CUBLAS_OP_T; }
inline gemmtune_op_t c_op(Op op) { return op == Op::N ? GEMMTUNE_OP_N : GEMMTUNE_OP_T; }

/// A gemmtune handle without a database (built-in kernels: nothing on the machine changes the
/// choice) in deterministic mode (bitwise comparisons: no split-K), cuBLAS with FP32 math (no
/// TF32), and the float64 reference. A fixture that adds to SetUp() returns when this one
/// skipped or failed (IsSkipped(), HasFatalFailure()).
class BesideCublas : public ::testing::Test {
 protected:
  void SetUp() override {
    GEMMTUNE_REQUIRE_GPU();
    GEMMTUNE_CUDA(cudaSetDevice(0));
    gemmtune_options o;
    gemmtune_options_init(&o);
    o.db_access = GEMMTUNE_DB_NONE;
    o.deterministic = 1;
    ASSERT_EQ(gemmtune_create(&handle_, &o), GEMMTUNE_STATUS_SUCCESS) << gemmtune_last_error();
    CUBLAS_OK(cublasCreate(&cublas_));
    CUBLAS_OK(cublasSetMathMode(cublas_, CUBLAS_PEDANTIC_MATH));
    reference_ = std::make_unique<ReferenceGemm>(device_info(0).limits.arch());
  }
  void TearDown() override {
    if (cublas_) cublasDestroy(cublas_);
    if (handle_) gemmtune_destroy(handle_);
  }

  gemmtune_handle_t handle_ = nullptr;
  cublasHandle_t cublas_ = nullptr;
  std::unique_ptr<ReferenceGemm> reference_;
};

}  // namespace gemmtune::test
