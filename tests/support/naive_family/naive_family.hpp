#pragma once
// A second kernel family, for the tests alone (families/README.md, "Adding a kernel family"): the
// "naive" family, prefix "naivegemm", one knob (the block size, 64, 128 or 256 threads), configs
// named "naivegemm_<layout>_b<threads>" (naivegemm_nt_b128). Its kernel computes one element of
// C per thread (naive.cuh). It lives under tests/ and touches no file of families/: a test
// registers it with register_family(naive_kernel_family()).
#include <string>

#include "gemmtune/family.hpp"

namespace gemmtune::test {

/// The naive family (one object for the process).
const KernelFamily& naive_kernel_family();

/// Registers the naive family with the process's registry once; later calls do nothing.
void register_naive_family();

/// The config name of the naive family for layout op_a, op_b and `threads` a block.
std::string naive_config_name(Op op_a, Op op_b, int threads);

}  // namespace gemmtune::test
