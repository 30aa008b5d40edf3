#pragma once
// Device buffers and random problems for GPU tests: RAII memory, fresh random data, poison.
#include <cuda_runtime_api.h>

#include <cmath>
#include <random>
#include <vector>

#include "gemmtune/device_buffer.hpp"
#include "gemmtune/error.hpp"
#include "gemmtune/problem.hpp"
#include "gemmtune/reference.hpp"

namespace gemmtune::test {

template <typename T>
using DeviceArray = DeviceBuffer<T>;

/// A problem with its own device memory: A, B, C filled with fresh random numbers, leading
/// dimensions padded by `ld_pad` elements and pointers offset by `ptr_offset` floats (to make
/// unaligned cases).
struct ProblemData {
  Problem p;
  std::vector<float> c_init;
  DeviceArray<float> a, b, c;
  ProblemData(Problem shape, int ld_pad, int ptr_offset, std::mt19937_64& rng)
      : p(shape),
        a(size_t(shape.batch) * (shape.a_rows() * (shape.a_cols() + ld_pad)) + ptr_offset),
        b(size_t(shape.batch) * (shape.b_rows() * (shape.b_cols() + ld_pad)) + ptr_offset),
        c(size_t(shape.batch) * (shape.m * (shape.n + ld_pad)) + ptr_offset) {
    p.lda = p.a_cols() + ld_pad, p.ldb = p.b_cols() + ld_pad, p.ldc = p.n + ld_pad;
    p.stride_a = p.lda * p.a_rows(), p.stride_b = p.ldb * p.b_rows(), p.stride_c = p.ldc * p.m;
    a.upload(random_floats(a.size(), rng));
    b.upload(random_floats(b.size(), rng));
    c_init = random_floats(c.size(), rng);
    p.a = a.get() + ptr_offset, p.b = b.get() + ptr_offset, p.c = c.get() + ptr_offset;
    reset_c();
  }
  /// Restores C's initial random values, or fills it with NaN when beta == 0 (C must not be read).
  void reset_c() {
    if (p.beta == 0.f) {
      std::vector<float> nan(c.size(), std::nanf(""));
      c.upload(nan);
    } else {
      c.upload(c_init);
    }
  }
  /// C as computed, from the problem's pointer on (ldc and stride_c apply).
  std::vector<float> result() const {
    auto all = c.download();
    return std::vector<float>(all.begin() + (p.c - c.get()), all.end());
  }
  /// The error of C against the float64 reference `expect`: relative (Frobenius) over the
  /// outputs; for a single output, relative to the size of its terms, |alpha| sum_k |a_k b_k| +
  /// |beta c|, since against the result alone it is unbounded where beta * C cancels the products
  /// (1xTF32 on 1x1x1 with beta -0.75 measured 0.011 against its 0.002 tolerance on an H200,
  /// 3xTF32 2.4e-6).
  double error(const std::vector<double>& expect) const {
    const std::vector<float> out = result();
    if (p.m * p.n * p.batch != 1)
      return relative_error(out, p.ldc, p.stride_c, expect, p.m, p.n, p.batch);
    const std::vector<float> ha = a.download(), hb = b.download();
    const float* a0 = ha.data() + (p.a - a.get());
    const float* b0 = hb.data() + (p.b - b.get());
    double terms = 0;
    for (long long k = 0; k < p.k; ++k)
      terms += std::abs(double(a0[p.op_a == Op::N ? k : k * p.lda]) *
                        b0[p.op_b == Op::N ? k * p.ldb : k]);
    terms = std::abs(p.alpha) * terms + std::abs(p.beta) * std::abs(c_init[p.c - c.get()]);
    return std::abs(out[0] - expect[0]) / terms;
  }
};

}  // namespace gemmtune::test
