// The calls whose pointers live in device memory: the device-array batched call (pointer arrays
// the kernel reads) and device pointer mode for alpha and beta. Their argument checks run before
// the handle is looked at, so this needs no GPU; what the kernels do with them is
// tests/gpu/dispatch/device_pointers_test.cpp.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "gemmtune/calls.hpp"
#include "gemmtune/choice.hpp"
#include "gemmtune/gemmtune.h"
#include "gemmtune/gemmtune.hpp"

namespace gemmtune::test {
namespace {

// Placeholder device addresses: never dereferenced by the checks.
template <typename T = float>
T* fake(std::uintptr_t v = 1024) {
  return reinterpret_cast<T*>(v);
}
const float* const* fake_array() { return fake<const float* const>(2048); }
float* const* fake_c_array() { return fake<float* const>(4096); }

// The last C call failed with INVALID_ARGUMENT, and its message holds `part`.
void expect_invalid(gemmtune_status_t s, const std::string& part) {
  EXPECT_EQ(s, GEMMTUNE_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gemmtune_last_error()).find(part), std::string::npos)
      << "expected '" << part << "' in: " << gemmtune_last_error();
}

// gemmtune_sgemm_batched_device, column-major 10x20x30 (lda 10, ldb 30, ldc 10) unless changed.
gemmtune_status_t device_call(const float* const* a, const float* const* b, float* const* c,
                              int k = 30, int batch = 3, int64_t lda = 10, float alpha = 1.f) {
  return gemmtune_sgemm_batched_device(nullptr, GEMMTUNE_COL_MAJOR, GEMMTUNE_OP_N, GEMMTUNE_OP_N,
                                       10, 20, k, alpha, a, lda, b, 30, 0.5f, c, 10, batch,
                                       nullptr);
}

TEST(DeviceArrays, NullArraysThatWouldBeReadAreNamed) {
  expect_invalid(device_call(nullptr, fake_array(), fake_c_array()),
                 "the device array of A pointers is null");
  expect_invalid(device_call(fake_array(), nullptr, fake_c_array()),
                 "the device array of B pointers is null");
  expect_invalid(device_call(fake_array(), fake_array(), nullptr),
                 "the device array of C pointers is null");
  // All arguments fine: only the handle is missing.
  expect_invalid(device_call(fake_array(), fake_array(), fake_c_array()), "handle is NULL");
  // K = 0 or alpha = 0 reads neither A nor B (C = beta C): their arrays may be null, C's not.
  expect_invalid(device_call(nullptr, nullptr, fake_c_array(), 0), "handle is NULL");
  expect_invalid(device_call(nullptr, nullptr, fake_c_array(), 30, 3, 10, 0.f), "handle is NULL");
  expect_invalid(device_call(nullptr, nullptr, nullptr, 0),
                 "the device array of C pointers is null");
  // batch 0: nothing to do, no array needed.
  expect_invalid(device_call(nullptr, nullptr, nullptr, 30, 0), "handle is NULL");
}

TEST(DeviceArrays, SizesLeadingDimensionsAndOpsAreChecked) {
  expect_invalid(device_call(fake_array(), fake_array(), fake_c_array(), 30, -1),
                 "batch = -1 is negative");
  expect_invalid(device_call(fake_array(), fake_array(), fake_c_array(), -2), "K = -2 is negative");
  expect_invalid(device_call(fake_array(), fake_array(), fake_c_array(), 30, 3, 9),
                 "lda = 9 is smaller than a column of A");
  expect_invalid(gemmtune_sgemm_batched_device(
                     nullptr, GEMMTUNE_COL_MAJOR, gemmtune_op_t(7), GEMMTUNE_OP_N, 10, 20, 30, 1.f,
                     fake_array(), 10, fake_array(), 30, 0.f, fake_c_array(), 10, 3, nullptr),
                 "op_a = 7");
  expect_invalid(gemmtune_sgemm_batched_device(
                     nullptr, gemmtune_layout_t(3), GEMMTUNE_OP_N, GEMMTUNE_OP_N, 10, 20, 30, 1.f,
                     fake_array(), 10, fake_array(), 30, 0.f, fake_c_array(), 10, 3, nullptr),
                 "layout = 3");
}

TEST(DeviceArrays, TheCublasShapedCallChecksItsArguments) {
  const float one = 1.f, zero = 0.f;
  expect_invalid(
      gemmtune_cublasSgemmBatched(nullptr, GEMMTUNE_OP_N, GEMMTUNE_OP_T, 10, 20, 30, nullptr,
                                  fake_array(), 10, fake_array(), 20, &zero, fake_c_array(), 10, 4),
      "alpha is a null pointer");
  expect_invalid(gemmtune_cublasSgemmBatched(nullptr, GEMMTUNE_OP_N, GEMMTUNE_OP_T, 10, 20, 30,
                                             &one, fake_array(), 10, fake_array(), 20, nullptr,
                                             fake_c_array(), 10, 4),
                 "beta is a null pointer");
  expect_invalid(
      gemmtune_cublasSgemmBatched(nullptr, gemmtune_op_t(9), GEMMTUNE_OP_T, 10, 20, 30, &one,
                                  fake_array(), 10, fake_array(), 20, &zero, fake_c_array(), 10, 4),
      "transa = 9");
  expect_invalid(
      gemmtune_cublasSgemmBatched(nullptr, GEMMTUNE_OP_N, GEMMTUNE_OP_T, 10, 20, 30, &one, nullptr,
                                  10, fake_array(), 20, &zero, fake_c_array(), 10, 4),
      "the device array of A pointers is null");
  expect_invalid(
      gemmtune_cublasSgemmBatched(nullptr, GEMMTUNE_OP_N, GEMMTUNE_OP_T, 10, 20, 30, &one,
                                  fake_array(), 10, fake_array(), 19, &zero, fake_c_array(), 10, 4),
      "ldb = 19");  // B^T: B is stored N x K, column-major: ldb >= N
  expect_invalid(gemmtune_cublasSgemmBatched(nullptr, GEMMTUNE_OP_N, GEMMTUNE_OP_T, 10, 20, 30,
                                             &one, fake_array(), 10, fake_array(), 20, &zero,
                                             fake_c_array(), 10, -4),
                 "batch = -4 is negative");
  expect_invalid(
      gemmtune_cublasSgemmBatched(nullptr, GEMMTUNE_OP_N, GEMMTUNE_OP_T, 10, 20, 30, &one,
                                  fake_array(), 10, fake_array(), 20, &zero, fake_c_array(), 10, 4),
      "handle is NULL");
}

Problem pointer_array_problem() {
  Problem p = Problem::packed(Op::N, Op::N, 12, 20, 32, 3);  // rows of 4-float vectors
  p.pointer_arrays = true;
  p.a_array = fake_array(), p.b_array = fake_array(), p.c_array = fake_c_array();
  p.stride_a = p.stride_b = p.stride_c = 0;
  return p;
}

TEST(DeviceArrays, StridesAndPointersOutsideTheArraysAreNotUsed) {
  Problem p = pointer_array_problem();
  EXPECT_EQ(check_arguments(p), Work::gemm);
  p.stride_a = -5, p.stride_c = 1;  // would be a negative stride and overlapping C if strided
  EXPECT_EQ(check_arguments(p), Work::gemm);
  p.a = nullptr, p.b = nullptr, p.c = nullptr;
  EXPECT_EQ(check_arguments(p), Work::gemm);
  p.c_array = nullptr;
  EXPECT_THROW(check_arguments(p), Error);
}

TEST(DeviceArrays, AlignmentComesFromTheLeadingDimensionsAlone) {
  Problem p = pointer_array_problem();
  p.a = fake(1028), p.stride_b = 3;  // would narrow a strided problem; not used here
  EXPECT_EQ(p.alignment(), 4);
  p.lda = 33;
  EXPECT_EQ(p.a_alignment(), 1);
  EXPECT_EQ(p.b_alignment(), 4);
  p.ldc = 22;
  EXPECT_EQ(p.c_alignment(), 2);
  EXPECT_NE(p.label().find("pointer arrays"), std::string::npos) << p.label();
}

TEST(DeviceArrays, RepackConfigsNarrowInsteadOfPacking) {
  Problem p = pointer_array_problem();
  p.lda = 33;  // A's rows would be packed for a strided call
  GemmConfig c;
  c.repack = true;
  EXPECT_FALSE(c.packs_a(p));
  EXPECT_FALSE(c.packs_b(p));
  const GemmConfig fitted = c.fitted_to(p);
  EXPECT_FALSE(fitted.repack);
  EXPECT_EQ(fitted.width_a(), 1);
  EXPECT_EQ(fitted.can_implement(p), std::nullopt);
  // The same data by stride is packed.
  Problem strided = Problem::packed(Op::N, Op::N, 12, 20, 32, 3);
  strided.lda = 33, strided.stride_a = 33 * 12;
  strided.a = fake(), strided.b = fake(), strided.c = fake();
  EXPECT_TRUE(c.packs_a(strided));
  EXPECT_TRUE(c.fitted_to(strided).repack);
}

TEST(DeviceArrays, ColumnMajorSwapsTheArrays) {
  Problem p = pointer_array_problem();
  p.b_array = fake<const float* const>(8192);
  const Problem r = as_row_major(Layout::col_major, p);
  EXPECT_TRUE(r.pointer_arrays);
  EXPECT_EQ(r.a_array, p.b_array);
  EXPECT_EQ(r.b_array, p.a_array);
  EXPECT_EQ(r.c_array, p.c_array);
}

TEST(DeviceArrays, PreparedShapesHaveTheClassOfTheCall) {
  for (int alignment : {0, 4, 2, 1}) {
    SCOPED_TRACE(alignment);
    const Problem p = shape_only_problem(Op::T, Op::N, 64, 96, 128, 5, alignment, true);
    EXPECT_TRUE(p.pointer_arrays);
    const int want = alignment == 0 ? 4 : alignment;
    EXPECT_EQ(p.a_alignment(), want);
    EXPECT_EQ(p.b_alignment(), want);
    EXPECT_EQ(p.c_alignment(), want);
    EXPECT_EQ(check_arguments(p), Work::gemm);
  }
  // An odd shape allows 1 float whatever is asked.
  EXPECT_EQ(shape_only_problem(Op::N, Op::N, 63, 97, 127, 2, 4, true).alignment(), 1);
}

TEST(PointerMode, ValuesAreCublasPointerModes) {
  EXPECT_EQ(int(GEMMTUNE_POINTER_MODE_HOST), 0);    // CUBLAS_POINTER_MODE_HOST
  EXPECT_EQ(int(GEMMTUNE_POINTER_MODE_DEVICE), 1);  // CUBLAS_POINTER_MODE_DEVICE
}

TEST(PointerMode, SetAndGetCheckTheirArguments) {
  expect_invalid(
      gemmtune_set_pointer_mode(nullptr, gemmtune_pointer_mode_t(2)),
      "pointer mode = 2 is not GEMMTUNE_POINTER_MODE_HOST (0) or GEMMTUNE_POINTER_MODE_DEVICE (1)");
  expect_invalid(gemmtune_set_pointer_mode(nullptr, gemmtune_pointer_mode_t(-1)),
                 "pointer mode = -1");
  expect_invalid(gemmtune_set_pointer_mode(nullptr, GEMMTUNE_POINTER_MODE_DEVICE),
                 "handle is NULL");
  gemmtune_pointer_mode_t mode = GEMMTUNE_POINTER_MODE_HOST;
  expect_invalid(gemmtune_get_pointer_mode(nullptr, &mode), "handle is NULL");
}

TEST(PointerMode, DeviceScalarsAreNeitherZeroNorOne) {
  const float device_scalar = 0;  // stands for an address in device memory: never read on the host
  Problem p = Problem::packed(Op::N, Op::N, 4, 5, 6);
  p.a = fake(), p.b = fake(), p.c = fake();
  p.alpha = 0.f, p.beta = 1.f;
  EXPECT_EQ(work_of(p), Work::none);
  p.alpha_ptr = &device_scalar;  // a device alpha may be anything: the GEMM runs
  EXPECT_EQ(work_of(p), Work::gemm);
  p.a = nullptr;  // and reads A, which must be there
  try {
    check_arguments(p);
    ADD_FAILURE() << "a null A accepted with a device alpha";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("A is a null pointer"), std::string::npos) << e.what();
  }
  p.k = 0;  // K = 0: C = beta C whatever alpha is; with a host beta of 1, nothing
  EXPECT_EQ(work_of(p), Work::none);
  p.beta_ptr = &device_scalar;  // a device beta may not be 1
  EXPECT_EQ(work_of(p), Work::scale_c);
  p.lda = 1, p.b = nullptr;
  EXPECT_EQ(check_arguments(p), Work::scale_c);
}

TEST(PointerMode, ScalarsConvertFromValuesAndOnlyExplicitlyFromAddresses) {
  static_assert(std::is_convertible_v<float, Scalar>);
  static_assert(std::is_convertible_v<int, Scalar>);
  static_assert(!std::is_convertible_v<const float*, Scalar>,
                "a host pointer must not pass for a device one");
  const Scalar value = 2.5f;
  EXPECT_FALSE(value.is_on_device());
  EXPECT_EQ(value.value(), 2.5f);
  const float* address = fake();
  const Scalar on_device = Scalar::on_device(address);
  EXPECT_TRUE(on_device.is_on_device());
  EXPECT_EQ(on_device.address(), address);
  const Problem p = detail::make_problem(Op::N, Op::N, 4, 5, 6, on_device, fake(), 6, 0, fake(), 5,
                                         0, 0.5f, fake(), 5, 0, 1);
  EXPECT_EQ(p.alpha_ptr, address);
  EXPECT_EQ(p.beta_ptr, nullptr);
  EXPECT_EQ(p.beta, 0.5f);
  try {
    detail::make_problem(Op::N, Op::N, 4, 5, 6, 1.f, fake(), 6, 0, fake(), 5, 0,
                         Scalar::on_device(nullptr), fake(), 5, 0, 1);
    ADD_FAILURE() << "a null device beta accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("beta is a null device pointer"), std::string::npos)
        << e.what();
  }
}

TEST(PointerMode, PrepareTakesTheNewFields) {
  gemmtune_problem p{};
  p.layout = GEMMTUNE_COL_MAJOR, p.op_a = GEMMTUNE_OP_N, p.op_b = GEMMTUNE_OP_T, p.m = 4, p.n = 4,
  p.k = 4;
  p.pointer_arrays = 1, p.device_scalars = 1;
  expect_invalid(gemmtune_prepare(nullptr, &p, 1, nullptr), "handle is NULL");
}

}  // namespace
}  // namespace gemmtune::test
