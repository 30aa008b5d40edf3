#pragma once
// Problem shapes as users type them: "4096x4096x4096" (M x N x K), layouts "nn".."tt" or "all".
#include <string>
#include <vector>

#include "gemmtune/problem.hpp"

namespace gemmtune::tuner {

/// M, N, K of a problem.
struct Shape {
  int m = 0, n = 0, k = 0;
};

/// Parses "MxNxK" (each a positive integer); throws Error(kInvalidArgument) naming the text.
Shape parse_shape(const std::string& text);

/// Parses "nn", "nt", "tn", "tt" or "all" into (op_a, op_b) pairs; throws on anything else.
std::vector<std::pair<Op, Op>> parse_layouts(const std::string& text);

}  // namespace gemmtune::tuner
