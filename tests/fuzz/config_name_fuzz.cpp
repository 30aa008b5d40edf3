// Fuzzes the procedural config names (config_name / parse_config_name in
// families/sgemm/src/config.cpp), which the dispatcher reads from database files. Two uses of
// each input:
//  - as a name: a name that parses is the name of what it parses to (one name per config), and
//    validate(), fitted_to() and can_implement() of the config are defined for any values (the
//    sanitizers check); a valid config fitted to a problem has a name that parses back to it.
//  - as knob values (table values, any power of two, any int): a config whose knob values fit
//    a name (0..999999999) parses back from its name to itself; one with a negative value or
//    one too long does not parse at all.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <string>

#include "fuzz/fuzz_check.hpp"
#include "gemmtune/sgemm/config.hpp"

namespace {

using gemmtune::GemmConfig;
using gemmtune::Op;

const gemmtune::DeviceLimits kSm90{}, kSm86{8, 6, 1024, 101376, 102400, 65536, 255};

// Checks what can be computed of any config: the sanitizers catch overflow or bad shifts, and a
// config that validates has sizes that fit a launch.
void check_derived(const GemmConfig& c, const std::string& input) {
  for (const gemmtune::DeviceLimits& limits : {kSm90, kSm86}) {
    if (c.validate(limits)) continue;
    FUZZ_CHECK(c.threads() >= 32 && c.threads() <= limits.max_threads_per_block, input);
    FUZZ_CHECK(c.smem_bytes() <= limits.max_smem_per_block_optin, input);
    FUZZ_CHECK(!c.name_expression().empty(), input);
    for (int m : {1, 7, 64}) {
      const gemmtune::Problem p = gemmtune::Problem::packed(c.op_a, c.op_b, m, 33, 1001, 2);
      const GemmConfig fitted = c.fitted_to(p);
      (void)fitted.can_implement(p);
      const auto back = gemmtune::parse_config_name(gemmtune::config_name(fitted));
      FUZZ_CHECK(back && *back == fitted, input);
    }
  }
}

void check_as_name(const std::string& text) {
  const auto parsed = gemmtune::parse_config_name(text);
  if (!parsed) return;
  FUZZ_CHECK(gemmtune::config_name(*parsed) == text, text);
  for (int a : {parsed->align_a, parsed->align_b, parsed->align_c})
    FUZZ_CHECK(a == 1 || a == 2 || a == 4, text);
  check_derived(*parsed, text);
}

// A knob value: mostly from the knob's table, else any power of two, else any int.
int knob_value(FuzzedDataProvider& in, const gemmtune::Knob& knob) {
  switch (in.ConsumeIntegralInRange(0, 7)) {
    case 6: return 1 << in.ConsumeIntegralInRange(0, 30);
    case 7: return in.ConsumeIntegral<int>();
    default: return knob.values[in.ConsumeIntegralInRange<std::size_t>(0, knob.values.size() - 1)];
  }
}

void check_as_knobs(const std::uint8_t* data, std::size_t size, const std::string& input) {
  FuzzedDataProvider in(data, size);
  GemmConfig c;
  c.op_a = in.ConsumeBool() ? Op::T : Op::N;
  c.op_b = in.ConsumeBool() ? Op::T : Op::N;
  bool fits_a_name = true;
  for (const gemmtune::Knob& knob : gemmtune::kSgemmKnobs) {
    const int v = knob_value(in, knob);
    knob.set(c, v);
    fits_a_name &= v >= 0 && v <= 999999999;
  }
  // The one stored form of a data alignment: 4 unless it narrows the accesses (config.hpp).
  for (int* align : {&c.align_a, &c.align_b, &c.align_c}) {
    const int a = 1 << in.ConsumeIntegralInRange(0, 2);
    *align = a < c.vec ? a : 4;
  }
  const auto back = gemmtune::parse_config_name(gemmtune::config_name(c));
  if (fits_a_name)
    FUZZ_CHECK(back && *back == c, input);
  else
    FUZZ_CHECK(!back, input);
  check_derived(c, input);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  check_as_name(text);
  check_as_knobs(data, size, text);
  return 0;
}
