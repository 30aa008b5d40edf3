#pragma once
// A second kernel family, for the tests alone (families/README.md, "Adding a kernel family"): the
// "naive" family, prefix "naivegemm", two knobs (the block size, 64, 128 or 256 threads; operands
// cut to TF32 or not), configs named "naivegemm_<layout>_b<threads>[_tf32]" (naivegemm_nt_b128);
// the `_tf32` ones are of the tf32 precision class, and not among its candidates. Its kernel
// computes one element of C per thread (naive.cuh). It lives under tests/ and touches no file of families/: a test
// registers it with register_family(naive_kernel_family()).
#include <string>

#include "gemmtune/family.hpp"

namespace gemmtune::test {

/// The naive family (one object for the process).
const KernelFamily& naive_kernel_family();

/// Registers the naive family with the process's registry once; later calls do nothing.
void register_naive_family();

/// The config name of the naive family for layout op_a, op_b and `threads` a block, cutting the
/// operands to TF32 with `tf32`.
std::string naive_config_name(Op op_a, Op op_b, int threads, bool tf32 = false);

}  // namespace gemmtune::test
