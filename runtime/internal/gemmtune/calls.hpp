#pragma once
// The Problem of a public GEMM call's arguments, in the caller's layout and not yet checked
// (check_arguments): shared by the C++ calls (runtime/src/dispatch/calls.cpp) and the C API,
// which checks the arguments before it looks at the handle.
#include "gemmtune/gemmtune.hpp"

struct gemmtune_problem;  // gemmtune.h

namespace gemmtune::detail {

/// A strided-batched GEMM's Problem. alpha and beta go in as values or device addresses
/// (Problem::alpha_ptr, beta_ptr); a null device address is Error(kInvalidArgument).
Problem make_problem(Op op_a, Op op_b, int m, int n, int k, Scalar alpha, const float* a,
                     long long lda, long long stride_a, const float* b, long long ldb,
                     long long stride_b, Scalar beta, float* c, long long ldc, long long stride_c,
                     int batch);

/// The Problem of a device-array batched call (Problem::pointer_arrays).
Problem make_pointer_array_problem(Op op_a, Op op_b, int m, int n, int k, Scalar alpha,
                                   const float* const* a_array, long long lda,
                                   const float* const* b_array, long long ldb, Scalar beta,
                                   float* const* c_array, long long ldc, int batch);

/// The row-major Problem that the call `q` describes runs as (gemmtune_prepare,
/// gemmtune_explain_problem): its shape and leading dimensions (0: packed), packed batch strides,
/// placeholder addresses (never dereferenced) of q.alignment, and pointer arrays and device
/// scalars as described. Throws Error(kInvalidArgument), starting with `what`, where a field is
/// bad or the call's arguments would be.
Problem described_problem(const gemmtune_problem& q, const std::string& what);

}  // namespace gemmtune::detail
