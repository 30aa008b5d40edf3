// Fuzzes the shape syntax of every command (parse_shape, parse_layouts in tuner/src/shape.cpp).
// Properties: a text parses exactly when it is three decimal numbers of 1..INT_MAX joined by 'x'
// or 'X' (the grammar written out again below, independently); the sizes are those numbers; a
// parsed shape printed back parses to the same sizes; a refusal is Error(kInvalidArgument)
// quoting the text. Layouts: exactly nn, nt, tn, tt (one pair) and all (four pairs) parse.
#include <climits>
#include <cstdint>
#include <optional>
#include <string>

#include "fuzz/fuzz_check.hpp"
#include "gemmtune/error.hpp"
#include "gemmtune/tuner/shape.hpp"

namespace {

using gemmtune::tuner::Shape;

// The shape grammar, read by hand: digits, [xX], digits, [xX], digits; each 1..INT_MAX.
std::optional<Shape> reference_shape(const std::string& text) {
  long long v[3] = {0, 0, 0};
  std::size_t i = 0;
  for (int part = 0; part < 3; ++part) {
    if (part > 0) {
      if (i >= text.size() || (text[i] != 'x' && text[i] != 'X')) return std::nullopt;
      ++i;
    }
    const std::size_t start = i;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
      v[part] = v[part] * 10 + (text[i] - '0');
      if (v[part] > INT_MAX) return std::nullopt;
    }
    if (i == start || v[part] < 1) return std::nullopt;
  }
  if (i != text.size()) return std::nullopt;
  return Shape{int(v[0]), int(v[1]), int(v[2])};
}

std::optional<Shape> parsed_shape(const std::string& text) {
  try {
    return gemmtune::tuner::parse_shape(text);
  } catch (const gemmtune::Error& e) {
    FUZZ_CHECK(e.status() == gemmtune::Status::kInvalidArgument, text);
    const std::string quoted = "'" + gemmtune::fuzz::quotable(text);
    FUZZ_CHECK(std::string(e.what()).find(quoted) != std::string::npos, text);
    return std::nullopt;
  }
}

void check_layouts(const std::string& text) {
  std::size_t pairs = 0;
  try {
    pairs = gemmtune::tuner::parse_layouts(text).size();
  } catch (const gemmtune::Error& e) {
    FUZZ_CHECK(e.status() == gemmtune::Status::kInvalidArgument, text);
  }
  const bool one = text == "nn" || text == "nt" || text == "tn" || text == "tt";
  FUZZ_CHECK(pairs == (text == "all" ? 4u : one ? 1u : 0u), text);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::optional<Shape> got = parsed_shape(text), want = reference_shape(text);
  FUZZ_CHECK(got.has_value() == want.has_value(), text);
  if (got) {
    FUZZ_CHECK(got->m == want->m && got->n == want->n && got->k == want->k, text);
    FUZZ_CHECK(got->m >= 1 && got->n >= 1 && got->k >= 1, text);
    const std::string printed =
        std::to_string(got->m) + "x" + std::to_string(got->n) + "x" + std::to_string(got->k);
    const std::optional<Shape> again = parsed_shape(printed);
    FUZZ_CHECK(again && again->m == got->m && again->n == got->n && again->k == got->k, text);
  }
  check_layouts(text);
  return 0;
}
