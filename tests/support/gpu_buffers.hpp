#pragma once
// Device buffers and random problems for GPU tests: RAII memory, fresh random data, poison.
#include <cuda_runtime_api.h>

#include <cmath>
#include <random>
#include <vector>

#include "gemmtune/device_buffer.hpp"
#include "gemmtune/error.hpp"
#include "gemmtune/problem.hpp"

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
};

}  // namespace gemmtune::test
