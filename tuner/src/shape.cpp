#include "gemmtune/tuner/shape.hpp"

#include <charconv>

#include "gemmtune/error.hpp"

namespace gemmtune::tuner {

Shape parse_shape(const std::string& text) {
  int v[3] = {0, 0, 0};
  const char* p = text.data();
  const char* end = text.data() + text.size();
  for (int i = 0; i < 3; ++i) {
    auto [next, ec] = std::from_chars(p, end, v[i]);
    bool sep_ok = i < 2 ? (next < end && (*next == 'x' || *next == 'X')) : next == end;
    if (ec != std::errc() || v[i] < 1 || !sep_ok)
      throw Error(
          Status::kInvalidArgument,
          "bad shape '" + text + "': expected MxNxK with positive integers, e.g. 4096x4096x4096");
    p = next + 1;
  }
  return {v[0], v[1], v[2]};
}

std::vector<std::pair<Op, Op>> parse_layouts(const std::string& text) {
  if (text == "all") return {{Op::N, Op::N}, {Op::N, Op::T}, {Op::T, Op::N}, {Op::T, Op::T}};
  if (text.size() == 2) {
    auto a = op_from_char(text[0]), b = op_from_char(text[1]);
    if (a && b) return {{*a, *b}};
  }
  throw Error(Status::kInvalidArgument, "bad layout '" + text + "': use nn, nt, tn, tt or all");
}

}  // namespace gemmtune::tuner
