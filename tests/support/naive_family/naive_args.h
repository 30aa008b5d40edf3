// The naive family's second argument block (LaunchShape::extra_args, its kernel's second
// parameter): embedded before naive.cuh for NVRTC, and included by the family's host code, so
// that both lay it out alike.
#pragma once

namespace gemmtune {

struct NaiveArgs {
  /// ANDed into the bits of each operand value: all ones, or TF32's 10 mantissa bits
  /// (0xffffe000) for a `_tf32` config, whose kernel is otherwise the plain config's.
  unsigned operand_mask;
};

}  // namespace gemmtune
