#pragma once
// Shared pieces of the dispatcher's GPU tests: running a problem through a dispatcher and
// measuring it against the float64 reference.
#include <gtest/gtest.h>

#include "gemmtune/choice.hpp"
#include "gemmtune/gemmtune.hpp"
#include "gemmtune/reference.hpp"
#include "support/gpu_buffers.hpp"

namespace gemmtune::test {

/// A problem shape with alpha, beta (so that C is read) and its layout.
inline Problem shape(Op op_a, Op op_b, int m, int n, int k, int batch = 1, float alpha = 1.25f,
                     float beta = 0.5f) {
  Problem p = Problem::packed(op_a, op_b, m, n, k, batch);
  p.alpha = alpha, p.beta = beta;
  return p;
}

/// Relative error of `data` computed by `d` on `stream` against the float64 reference. C is reset
/// first (poisoned when beta is 0).
inline double dispatch_error(Dispatcher& d, ProblemData& data, const ReferenceGemm& reference,
                             cudaStream_t stream = nullptr) {
  const Problem& p = data.p;
  data.reset_c();
  DeviceArray<double> ref(size_t(p.batch) * p.m * p.n);
  reference.run(p, ref.get(), stream);
  d.run(p, stream);
  GEMMTUNE_CUDA(cudaStreamSynchronize(stream));
  return relative_error(data.result(), p.ldc, p.stride_c, ref.download(), p.m, p.n, p.batch);
}

/// "nt 127x129x65 batch 3 lda 68 ..." for failure messages.
inline std::string describe(const Problem& p) {
  return p.layout() + " " + std::to_string(p.m) + "x" + std::to_string(p.n) + "x" +
         std::to_string(p.k) + " batch " + std::to_string(p.batch) + " lda " +
         std::to_string(p.lda) + " ldb " + std::to_string(p.ldb) + " ldc " + std::to_string(p.ldc) +
         " align " + std::to_string(p.alignment());
}

}  // namespace gemmtune::test
