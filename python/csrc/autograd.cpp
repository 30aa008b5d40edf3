// Autograd of the operators, in C++ (no Python per call), itself through the operators:
//   C = alpha A B:           dA = alpha dC B^T,  dB = alpha A^T dC   (mm, bmm; transposed views, no
//   copy) Y = X W^T + bias:        dX = dY W,  dW = dY^T X,  dbias = the sum of dY over its rows
//   (linear)
// Sizes through sym_size: torch.compile traces these functions with symbolic shapes.
// The out= forms do not support autograd, as PyTorch's own out= functions do not.
#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/autograd.h>
#include <torch/library.h>

#include "ops.hpp"

namespace gemmtune_torch {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

using Product = at::Tensor(const at::Tensor&, const at::Tensor&, double);
using ProductOut = void(const at::Tensor&, const at::Tensor&, const at::Tensor&, double, double);
using Linear = at::Tensor(const at::Tensor&, const at::Tensor&, const std::optional<at::Tensor>&);

template <typename Signature>
c10::TypedOperatorHandle<Signature> op(const char* name) {
  return c10::Dispatcher::singleton().findSchemaOrThrow(name, "").typed<Signature>();
}

const c10::TypedOperatorHandle<Product>& mm_op() {
  static const auto handle = op<Product>("gemmtune::mm");
  return handle;
}
const c10::TypedOperatorHandle<Product>& bmm_op() {
  static const auto handle = op<Product>("gemmtune::bmm");
  return handle;
}

const c10::TypedOperatorHandle<Linear>& linear_op() {
  static const auto handle = op<Linear>("gemmtune::linear");
  return handle;
}

template <bool Batched>
struct ProductFunction : public torch::autograd::Function<ProductFunction<Batched>> {
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& a, const at::Tensor& b,
                            double alpha) {
    ctx->saved_data["alpha"] = alpha;
    ctx->save_for_backward({a, b});
    at::AutoDispatchBelowADInplaceOrView guard;
    return (Batched ? bmm_op() : mm_op()).call(a, b, alpha);
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const at::Tensor &a = saved[0], &b = saved[1], &grad = grads[0];
    const double alpha = ctx->saved_data["alpha"].toDouble();
    const auto& product = Batched ? bmm_op() : mm_op();
    at::Tensor grad_a, grad_b;
    if (ctx->needs_input_grad(0)) grad_a = product.call(grad, b.transpose(-2, -1), alpha);
    if (ctx->needs_input_grad(1)) grad_b = product.call(a.transpose(-2, -1), grad, alpha);
    return {grad_a, grad_b, at::Tensor()};
  }
};

struct LinearFunction : public torch::autograd::Function<LinearFunction> {
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& x, const at::Tensor& weight,
                            const std::optional<at::Tensor>& bias) {
    ctx->save_for_backward({x, weight});
    ctx->saved_data["bias"] = bias.has_value() && bias->defined();
    at::AutoDispatchBelowADInplaceOrView guard;
    return linear_op().call(x, weight, bias);
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const at::Tensor &x = saved[0], &weight = saved[1];
    const at::Tensor grad = grads[0].reshape_symint({-1, weight.sym_size(0)});
    at::Tensor grad_x, grad_weight, grad_bias;
    if (ctx->needs_input_grad(0))
      grad_x = mm_op().call(grad, weight, 1.0).view_symint(x.sym_sizes());
    if (ctx->needs_input_grad(1))
      grad_weight = mm_op().call(grad.t(), x.reshape_symint({-1, x.sym_size(-1)}), 1.0);
    if (ctx->saved_data["bias"].toBool() && ctx->needs_input_grad(2)) grad_bias = grad.sum(0);
    return {grad_x, grad_weight, grad_bias};
  }
};

// Whether a call records a graph; when not, the autograd kernels go straight to the kernels
// below (a torch::autograd::Function would still allocate its node on every call).
bool records(std::initializer_list<const at::Tensor*> inputs) {
  if (!torch::autograd::GradMode::is_enabled()) return false;
  for (const at::Tensor* t : inputs)
    if (t->defined() && t->requires_grad()) return true;
  return false;
}

at::Tensor mm_autograd(const at::Tensor& a, const at::Tensor& b, double alpha) {
  if (!records({&a, &b})) {
    at::AutoDispatchBelowADInplaceOrView guard;
    return mm_op().call(a, b, alpha);
  }
  return ProductFunction<false>::apply(a, b, alpha);
}
at::Tensor bmm_autograd(const at::Tensor& a, const at::Tensor& b, double alpha) {
  if (!records({&a, &b})) {
    at::AutoDispatchBelowADInplaceOrView guard;
    return bmm_op().call(a, b, alpha);
  }
  return ProductFunction<true>::apply(a, b, alpha);
}
at::Tensor linear_autograd(const at::Tensor& x, const at::Tensor& weight,
                           const std::optional<at::Tensor>& bias) {
  if (!gemmtune_runs_linear(x, weight, bias))
    return at::linear(x, weight, bias);  // PyTorch's, with its autograd
  const at::Tensor no_bias;
  if (!records({&x, &weight, bias ? &*bias : &no_bias})) {
    at::AutoDispatchBelowADInplaceOrView guard;
    return linear_op().call(x, weight, bias);
  }
  return LinearFunction::apply(x, weight, bias);
}

template <bool Batched>
void product_out_autograd(const at::Tensor& a, const at::Tensor& b, const at::Tensor& out,
                          double alpha, double beta) {
  const char* name = Batched ? "bmm" : "mm";
  TORCH_CHECK(!(torch::autograd::GradMode::is_enabled() &&
                (a.requires_grad() || b.requires_grad() || out.requires_grad())),
              "gemmtune.", name,
              ": out= does not support autograd (an argument requires grad); call without out=");
  {
    at::AutoDispatchBelowADInplaceOrView guard;
    static const auto handle = op<ProductOut>(Batched ? "gemmtune::bmm_out" : "gemmtune::mm_out");
    handle.call(a, b, out, alpha, beta);
  }
  torch::autograd::impl::bump_version(out);  // out was written: saved copies of it are stale
}

}  // namespace
}  // namespace gemmtune_torch

TORCH_LIBRARY_IMPL(gemmtune, Autograd, m) {
  using namespace gemmtune_torch;
  m.impl("mm", TORCH_FN(mm_autograd));
  m.impl("bmm", TORCH_FN(bmm_autograd));
  m.impl("linear", TORCH_FN(linear_autograd));
  m.impl("mm_out", TORCH_FN(product_out_autograd<false>));
  m.impl("bmm_out", TORCH_FN(product_out_autograd<true>));
}
