#pragma once
// The operators' kernels, shared by the registration (register.cpp) and autograd (autograd.cpp).
#include <ATen/core/Tensor.h>

#include <optional>

namespace gemmtune_torch {

/// Argument checks that need no data (dimensions, dtype, shapes): the CUDA and Meta kernels run
/// them. `out` may be undefined (the functional forms). ValueError/TypeError naming the problem.
void check_product(const char* name, const at::Tensor& a, const at::Tensor& b,
                   const at::Tensor& out, int dims);
void check_linear(const at::Tensor& x, const at::Tensor& weight,
                  const std::optional<at::Tensor>& bias);

/// Whether gemmtune runs linear(x, weight, bias): float32 CUDA tensors on one device. Anything
/// else (CPU, another dtype) is PyTorch's own at::linear, as for torch.nn.Linear.
bool gemmtune_runs_linear(const at::Tensor& x, const at::Tensor& weight,
                          const std::optional<at::Tensor>& bias);

/// The CUDA kernels: out = alpha a @ b + beta out (2-D or 3-D), on the current stream, by gemmtune
/// or, where it has not measured faster, by PyTorch (runtime_state.hpp).
at::Tensor mm_cuda(const at::Tensor& a, const at::Tensor& b, double alpha);
at::Tensor bmm_cuda(const at::Tensor& a, const at::Tensor& b, double alpha);
void mm_out_cuda(const at::Tensor& a, const at::Tensor& b, const at::Tensor& out, double alpha,
                 double beta);
void bmm_out_cuda(const at::Tensor& a, const at::Tensor& b, const at::Tensor& out, double alpha,
                  double beta);
/// x @ weight^T + bias for x (..., in), weight (out, in), bias (out) or none.
at::Tensor linear_cuda(const at::Tensor& x, const at::Tensor& weight,
                       const std::optional<at::Tensor>& bias);

}  // namespace gemmtune_torch
