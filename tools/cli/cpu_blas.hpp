#pragma once
// The CPU baseline of `gemmtune bench --cpu`: OpenBLAS's cblas_sgemm on all cores. OpenBLAS is
// optional at build time (CMake finds it; tools/cli/CMakeLists.txt links its static archive when
// there is one, so that the binary runs on machines without it); without it every call here
// throws a usage error that says how to get it.
#include <string>

#include "gemmtune/problem.hpp"

namespace gemmtune::cli {

/// What runs the CPU baseline.
struct CpuBlas {
  std::string cpu;      ///< the processor's model name (from /proc/cpuinfo), or "" when unknown
  std::string library;  ///< e.g. "OpenBLAS 0.3.21 DYNAMIC_ARCH ... Cooperlake MAX_THREADS=64"
  int threads = 0;      ///< threads it uses: one per core the process may run on
};

/// Sets OpenBLAS to one thread per available core and says what it is; throws a usage error
/// when this gemmtune was built without OpenBLAS.
CpuBlas cpu_blas_setup();

/// C = alpha op(A) op(B) + beta C for the row-major problem `p` on host memory (p.a, p.b, p.c),
/// each matrix of a batch in turn.
void cpu_sgemm(const Problem& p);

}  // namespace gemmtune::cli
