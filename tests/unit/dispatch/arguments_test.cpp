// Argument checking, through the C++ check and through the C API (whose arguments are checked
// before its handle, so this needs no GPU), and what creating a dispatcher does without a GPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <thread>
#include <type_traits>

#include "gemmtune/device.hpp"
#include "gemmtune/gemmtune.h"
#include "gemmtune/gemmtune.hpp"

namespace gemmtune::test {
namespace {

// Placeholder device addresses: never dereferenced by the checks.
const float* addr(std::uintptr_t v) { return reinterpret_cast<const float*>(v); }

Problem valid_problem() {
  Problem p = Problem::packed(Op::N, Op::N, 100, 200, 300);
  p.a = addr(256), p.b = addr(512), p.c = const_cast<float*>(addr(1024));
  return p;
}

void expect_invalid(const Problem& p, const std::string& part) {
  try {
    check_arguments(p);
    ADD_FAILURE() << "accepted; expected an error naming " << part;
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

bool has_gpu() {
  try {
    return device_count() > 0;
  } catch (const Error&) {
    return false;
  }
}

TEST(CheckArguments, ValidProblemRuns) { EXPECT_EQ(check_arguments(valid_problem()), Work::gemm); }

TEST(CheckArguments, NegativeSizesAreInvalid) {
  for (auto [field, name] : {std::pair{&Problem::m, "M = -1"},
                             {&Problem::n, "N = -1"},
                             {&Problem::k, "K = -1"},
                             {&Problem::batch, "batch = -1"}}) {
    Problem p = valid_problem();
    p.*field = -1;
    expect_invalid(p, name);
  }
}

TEST(CheckArguments, ZeroSizeIsANoOpEvenWithoutPointers) {
  for (auto field : {&Problem::m, &Problem::n, &Problem::batch}) {
    Problem p = valid_problem();
    p.*field = 0;
    p.a = nullptr, p.b = nullptr, p.c = nullptr;
    EXPECT_EQ(check_arguments(p), Work::none);
  }
}

TEST(CheckArguments, LeadingDimensionTooSmallIsNamed) {
  Problem p = valid_problem();
  p.lda = 299;  // A is M x K: rows of 300
  expect_invalid(p, "lda = 299");
  p = valid_problem();
  p.ldb = 199;  // B is K x N
  expect_invalid(p, "ldb = 199");
  p = valid_problem();
  p.ldc = 199;  // C is M x N
  expect_invalid(p, "ldc = 199");
  // Transposed A is stored K x M: its rows have M = 100 floats.
  p = Problem::packed(Op::T, Op::N, 100, 200, 300);
  p.a = addr(256), p.b = addr(512), p.c = const_cast<float*>(addr(1024));
  EXPECT_EQ(check_arguments(p), Work::gemm);
  p.lda = 99;
  expect_invalid(p, "lda = 99");
  // Padded leading dimensions are fine.
  p = valid_problem();
  p.lda += 3, p.ldb += 1, p.ldc += 7;
  EXPECT_EQ(check_arguments(p), Work::gemm);
}

TEST(CheckArguments, NullPointersAreInvalid) {
  Problem p = valid_problem();
  p.a = nullptr;
  expect_invalid(p, "A is a null pointer");
  p = valid_problem();
  p.b = nullptr;
  expect_invalid(p, "B is a null pointer");
  p = valid_problem();
  p.c = nullptr;
  expect_invalid(p, "C is a null pointer");
}

TEST(CheckArguments, MisalignedPointerIsNotAnError) {
  Problem p = valid_problem();
  p.a = addr(260);  // 4-byte aligned only
  EXPECT_EQ(check_arguments(p), Work::gemm);
  EXPECT_EQ(p.alignment(), 1);
}

TEST(CheckArguments, BatchStrides) {
  Problem p = Problem::packed(Op::N, Op::N, 10, 20, 30, 4);
  p.a = addr(256), p.b = addr(512), p.c = const_cast<float*>(addr(1024));
  EXPECT_EQ(check_arguments(p), Work::gemm);
  p.stride_a = 0;  // one A for every batch
  EXPECT_EQ(check_arguments(p), Work::gemm);
  p.stride_b = -1;
  expect_invalid(p, "stride_b = -1");
  p = Problem::packed(Op::N, Op::N, 10, 20, 30, 4);
  p.a = addr(256), p.b = addr(512), p.c = const_cast<float*>(addr(1024));
  p.stride_c = 20 * 9 + 19;  // the last row of one C would be the first of the next
  expect_invalid(p, "stride_c");
}

TEST(CApi, ArgumentErrorsComeBeforeTheHandle) {
  float* fake = const_cast<float*>(addr(1024));
  gemmtune_status_t s =
      gemmtune_sgemm(nullptr, GEMMTUNE_ROW_MAJOR, GEMMTUNE_OP_N, GEMMTUNE_OP_N, 100, 200, 300, 1.f,
                     fake, 300, fake, 200, 0.f, fake, 150, nullptr);
  EXPECT_EQ(s, GEMMTUNE_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gemmtune_last_error()).find("ldc = 150"), std::string::npos)
      << gemmtune_last_error();

  s = gemmtune_sgemm(nullptr, GEMMTUNE_ROW_MAJOR, GEMMTUNE_OP_N, GEMMTUNE_OP_N, -5, 200, 300, 1.f,
                     fake, 300, fake, 200, 0.f, fake, 200, nullptr);
  EXPECT_EQ(s, GEMMTUNE_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gemmtune_last_error()).find("M = -5"), std::string::npos)
      << gemmtune_last_error();

  s = gemmtune_sgemm(nullptr, GEMMTUNE_ROW_MAJOR, GEMMTUNE_OP_N, gemmtune_op_t(7), 100, 200, 300,
                     1.f, fake, 300, fake, 200, 0.f, fake, 200, nullptr);
  EXPECT_EQ(s, GEMMTUNE_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gemmtune_last_error()).find("op"), std::string::npos)
      << gemmtune_last_error();

  s = gemmtune_sgemm_strided_batched(nullptr, GEMMTUNE_ROW_MAJOR, GEMMTUNE_OP_N, GEMMTUNE_OP_N, 10,
                                     20, 30, 1.f, fake, 30, 300, nullptr, 20, 600, 0.f, fake, 20,
                                     200, 3, nullptr);
  EXPECT_EQ(s, GEMMTUNE_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gemmtune_last_error()).find("B is a null pointer"), std::string::npos);
}

// A C caller can pass any int where an enum is expected: each is checked, and named.
TEST(CApi, OutOfRangeEnumValuesAreInvalidArguments) {
  // In C++ the enums hold every int, so these checks are not assumed away (UBSan agrees).
  EXPECT_TRUE((std::is_same_v<std::underlying_type_t<gemmtune_op_t>, int>));
  EXPECT_TRUE((std::is_same_v<std::underlying_type_t<gemmtune_db_access_t>, int>));
  EXPECT_TRUE((std::is_same_v<std::underlying_type_t<gemmtune_status_t>, int>));
  float* fake = const_cast<float*>(addr(1024));
  for (int bad : {4, -1, 1 << 20, std::numeric_limits<int>::min()}) {  // beyond each enum's range
    SCOPED_TRACE(bad);
    const std::string value = std::to_string(bad);
    EXPECT_EQ(gemmtune_sgemm(nullptr, GEMMTUNE_ROW_MAJOR, gemmtune_op_t(bad), GEMMTUNE_OP_N, 100,
                             200, 300, 1.f, fake, 300, fake, 200, 0.f, fake, 200, nullptr),
              GEMMTUNE_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(std::string(gemmtune_last_error()).find("op_a = " + value), std::string::npos)
        << gemmtune_last_error();
    EXPECT_EQ(gemmtune_sgemm(nullptr, GEMMTUNE_ROW_MAJOR, GEMMTUNE_OP_N, gemmtune_op_t(bad), 100,
                             200, 300, 1.f, fake, 300, fake, 200, 0.f, fake, 200, nullptr),
              GEMMTUNE_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(std::string(gemmtune_last_error()).find("op_b = " + value), std::string::npos)
        << gemmtune_last_error();
    char buf[64];
    EXPECT_EQ(gemmtune_explain(nullptr, GEMMTUNE_ROW_MAJOR, gemmtune_op_t(bad), GEMMTUNE_OP_N, 64,
                               64, 64, 1, 0, buf, sizeof buf, nullptr),
              GEMMTUNE_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(std::string(gemmtune_last_error()).find("op_a = " + value), std::string::npos)
        << gemmtune_last_error();
    gemmtune_options o;
    gemmtune_options_init(&o);
    o.db_access = gemmtune_db_access_t(bad);
    gemmtune_handle_t h = nullptr;
    EXPECT_EQ(gemmtune_create(&h, &o), GEMMTUNE_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(std::string(gemmtune_last_error()).find("db_access = " + value), std::string::npos)
        << gemmtune_last_error();
    EXPECT_NE(gemmtune_status_string(gemmtune_status_t(bad)), nullptr);
  }
}

TEST(CApi, NullHandleIsReported) {
  float* fake = const_cast<float*>(addr(1024));
  gemmtune_status_t s =
      gemmtune_sgemm(nullptr, GEMMTUNE_ROW_MAJOR, GEMMTUNE_OP_N, GEMMTUNE_OP_T, 100, 200, 300, 1.f,
                     fake, 300, fake, 300, 0.f, fake, 200, nullptr);
  EXPECT_EQ(s, GEMMTUNE_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gemmtune_last_error()).find("handle is NULL"), std::string::npos)
      << gemmtune_last_error();
  char buf[64];
  EXPECT_EQ(gemmtune_explain(nullptr, GEMMTUNE_ROW_MAJOR, GEMMTUNE_OP_N, GEMMTUNE_OP_N, 64, 64, 64,
                             1, 0, buf, sizeof buf, nullptr),
            GEMMTUNE_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(gemmtune_destroy(nullptr), GEMMTUNE_STATUS_SUCCESS);
  EXPECT_EQ(gemmtune_create(nullptr, nullptr), GEMMTUNE_STATUS_INVALID_ARGUMENT);
}

TEST(CApi, StatusStringsMatchTheCppNames) {
  for (int s = 0; s <= 8; ++s)
    EXPECT_STREQ(gemmtune_status_string(gemmtune_status_t(s)), status_name(Status(s)));
  EXPECT_STREQ(gemmtune_status_string(GEMMTUNE_STATUS_NO_DEVICE), "no CUDA device");
  EXPECT_NE(gemmtune_status_string(gemmtune_status_t(99)), nullptr);
}

TEST(CApi, LastErrorIsPerThread) {
  gemmtune_sgemm(nullptr, GEMMTUNE_ROW_MAJOR, GEMMTUNE_OP_N, GEMMTUNE_OP_N, -1, 1, 1, 1.f, nullptr,
                 1, nullptr, 1, 0.f, nullptr, 1, nullptr);
  std::string here = gemmtune_last_error();
  std::string there = "unset";
  std::thread([&] { there = gemmtune_last_error(); }).join();
  EXPECT_FALSE(here.empty());
  EXPECT_EQ(there, "");
}

void* no_allocation(std::size_t, cudaStream_t, void*) { return nullptr; }

TEST(CApi, AWorkspaceAllocatorNeedsBothCallbacks) {
  // Checked before the device is looked for: the same answer with or without a GPU.
  gemmtune_options o;
  gemmtune_options_init(&o);
  EXPECT_EQ(o.workspace_alloc, nullptr);
  EXPECT_EQ(o.workspace_free, nullptr);
  EXPECT_EQ(o.workspace_user_data, nullptr);
  o.workspace_alloc = no_allocation;
  gemmtune_handle_t h = nullptr;
  EXPECT_EQ(gemmtune_create(&h, &o), GEMMTUNE_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gemmtune_last_error()).find("set both allocate and free"),
            std::string::npos)
      << gemmtune_last_error();
  DispatcherOptions options;
  options.workspace_allocator.allocate = no_allocation;
  try {
    Dispatcher d(options);
    ADD_FAILURE() << "created a dispatcher with half an allocator";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::kInvalidArgument) << e.what();
  }
}

TEST(Dispatcher, CreationWithoutAGpuIsNoDevice) {
  if (has_gpu()) GTEST_SKIP() << "this machine has a GPU";
  try {
    Dispatcher d;
    ADD_FAILURE() << "created a dispatcher without a GPU";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::kNoDevice) << e.what();
  }
  gemmtune_handle_t h = reinterpret_cast<gemmtune_handle_t>(std::uintptr_t(1));
  gemmtune_options o;
  gemmtune_options_init(&o);
  o.db_access = GEMMTUNE_DB_NONE;
  EXPECT_EQ(gemmtune_create(&h, &o), GEMMTUNE_STATUS_NO_DEVICE);
  EXPECT_EQ(h, nullptr);
  EXPECT_NE(std::string(gemmtune_last_error()), "");
}

}  // namespace
}  // namespace gemmtune::test
