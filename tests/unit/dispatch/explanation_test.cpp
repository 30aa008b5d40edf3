// Dispatcher::explain's public answer (Explanation) carries what the chooser decided: the config
// by name, the source, the tuned figures under the names users read, and the same text.
#include <gtest/gtest.h>

#include "gemmtune/choice.hpp"
#include "gemmtune/error.hpp"

namespace gemmtune {
namespace {

Choice exact_choice() {
  Choice c;
  c.config = default_config(DeviceLimits::for_arch("sm_90"),
                            Problem::packed(Op::N, Op::T, 4095, 4096, 4096));
  c.config.split_k = 4;
  c.source = ChoiceSource::exact;
  c.tuned_config = "sgemm_nt_stored_name";
  TunedBest t;
  t.problem = TunedProblem{Op::N, Op::T, 4095, 4096, 4096, 1, 1};
  t.sweep_id = 7, t.median_ms = 2.5, t.tflops = 55.0, t.cublas_median_ms = 3.0, t.rel_error = 2e-7;
  c.tuned = t;
  c.narrowed = true;
  c.precision = Precision::fp32;
  c.gpu_model = "NVIDIA H200 (sm_90, 132 SMs)";
  c.trail = {"nearest: not needed"};
  return c;
}

TEST(Explanation, CarriesTheChoiceUnderPublicNames) {
  const Choice c = exact_choice();
  const Explanation e = explanation_of(c);
  EXPECT_EQ(e.config, config_name(c.config));
  EXPECT_EQ(e.source, ChoiceSource::exact);
  EXPECT_STREQ(choice_source_name(e.source), "exact");
  EXPECT_EQ(e.tuned_config, "sgemm_nt_stored_name");
  ASSERT_TRUE(e.tuned.has_value());
  EXPECT_EQ(e.tuned->problem, "4095x4096x4096 nt a1");
  EXPECT_EQ(e.tuned->sweep_id, 7);
  EXPECT_DOUBLE_EQ(e.tuned->median_ms, 2.5);
  ASSERT_TRUE(e.tuned->cublas_median_ms.has_value());
  EXPECT_DOUBLE_EQ(*e.tuned->cublas_median_ms, 3.0);
  EXPECT_DOUBLE_EQ(e.tuned->tflops.value_or(0), 55.0);
  EXPECT_FALSE(e.tuned->wide_error.has_value());
  EXPECT_TRUE(e.narrowed);
  EXPECT_EQ(e.precision, Precision::fp32);
  EXPECT_EQ(e.trail, c.trail);
  EXPECT_EQ(explained_config(e), c.config);
}

TEST(Explanation, TextShowsTheConfigsFactsAndTheTunedFigures) {
  const std::string text = explanation_of(exact_choice()).to_string();
  EXPECT_EQ(text, exact_choice().to_string());
  for (const char* line :
       {"source   exact: the tuned best of this exact problem\n",
        "bits     may differ in the last bits from run to run (split-K 4",
        "math     FP32 FMA (ieee class); precision policy fp32\n",
        "stored   sgemm_nt_stored_name\n", "tuned    4095x4096x4096 nt a1  (sweep 7)\n",
        "figures  2.5000 ms  55.00 TFLOP/s  rel. error 2e-07  1.200x cuBLAS (cuBLAS 3.0000 ms)\n",
        "skipped  nearest: not needed\n"})
    EXPECT_NE(text.find(line), std::string::npos) << line << "\nin:\n" << text;
  EXPECT_EQ(text.rfind("kernel   " + config_name(exact_choice().config) + "\n", 0), 0u) << text;
}

TEST(Explanation, ANameThatDoesNotParseIsAnInternalError) {
  Explanation e;
  e.config = "not_a_config";
  try {
    explained_config(e);
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_EQ(error.status(), Status::kInternal);
  }
  EXPECT_EQ(e.to_string().rfind("kernel   not_a_config\nsource   builtin", 0), 0u) << e.to_string();
}

}  // namespace
}  // namespace gemmtune
