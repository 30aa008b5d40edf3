// The operators of the `gemmtune` namespace, their CUDA, Meta (shapes only: torch.compile,
// torch.export, FakeTensorMode) and CPU (a clear error) kernels, and the operators without tensors
// (configure, explain, plan). Autograd: autograd.cpp.
#include <ATen/ATen.h>
#include <c10/cuda/CUDAFunctions.h>
#include <torch/library.h>

#include "errors.hpp"
#include "layout.hpp"
#include "ops.hpp"
#include "runtime_state.hpp"

namespace gemmtune_torch {
namespace {

at::Tensor mm_meta(const at::Tensor& a, const at::Tensor& b, double) {
  check_product("mm", a, b, at::Tensor(), 2);
  return at::empty_symint({a.sym_size(0), b.sym_size(1)}, a.options());
}
at::Tensor bmm_meta(const at::Tensor& a, const at::Tensor& b, double) {
  check_product("bmm", a, b, at::Tensor(), 3);
  return at::empty_symint({a.sym_size(0), a.sym_size(1), b.sym_size(2)}, a.options());
}
void mm_out_meta(const at::Tensor& a, const at::Tensor& b, const at::Tensor& out, double, double) {
  check_product("mm", a, b, out, 2);
}
void bmm_out_meta(const at::Tensor& a, const at::Tensor& b, const at::Tensor& out, double, double) {
  check_product("bmm", a, b, out, 3);
}
at::Tensor linear_meta(const at::Tensor& x, const at::Tensor& weight,
                       const std::optional<at::Tensor>& bias) {
  check_linear(x, weight, bias);
  std::vector<c10::SymInt> shape(x.sym_sizes().begin(), x.sym_sizes().end());
  shape.back() = weight.sym_size(0);
  return at::empty_symint(shape, x.options());
}

// CPU tensors: the operators run on CUDA only; say so (PyTorch would name a missing kernel).
[[noreturn]] void refuse_cpu(const char* name, const char* label) {
  TORCH_CHECK_VALUE(false, "gemmtune.", name, ": ", label,
                    " is on cpu; gemmtune runs on CUDA tensors",
                    c10::cuda::device_count() == 0 ? " (this machine has no CUDA device)" : "");
}
at::Tensor mm_cpu(const at::Tensor& a, const at::Tensor& b, double) {
  refuse_cpu("mm", a.is_cpu() ? "a" : "b");
}
at::Tensor bmm_cpu(const at::Tensor& a, const at::Tensor& b, double) {
  refuse_cpu("bmm", a.is_cpu() ? "a" : "b");
}
void mm_out_cpu(const at::Tensor& a, const at::Tensor& b, const at::Tensor&, double, double) {
  refuse_cpu("mm", a.is_cpu() ? "a" : b.is_cpu() ? "b" : "out");
}
void bmm_out_cpu(const at::Tensor& a, const at::Tensor& b, const at::Tensor&, double, double) {
  refuse_cpu("bmm", a.is_cpu() ? "a" : b.is_cpu() ? "b" : "out");
}
// linear keeps PyTorch's behaviour where gemmtune does not run: on CPU, and under autocast (whose
// lower precision PyTorch's linear takes; at::linear meets the autocast kernel again).
at::Tensor pytorch_linear(const at::Tensor& x, const at::Tensor& weight,
                          const std::optional<at::Tensor>& bias) {
  return at::linear(x, weight, bias);
}

void configure_op(std::optional<std::string> db_path, std::string db_access, bool deterministic,
                  bool verbose, std::string precision, std::string fallback) {
  Settings s;
  s.db_path = std::move(db_path);
  s.db_access = std::move(db_access);
  s.deterministic = deterministic, s.verbose = verbose;
  s.precision = std::move(precision), s.fallback = std::move(fallback);
  library_call([&] { configure(s); }, "configure",
               [] { return std::string("dropping the dispatchers"); });
}

std::string explain_op(int64_t m, int64_t n, int64_t k, std::string layout, int64_t batch,
                       int64_t alignment, int64_t device) {
  TORCH_CHECK_VALUE(layout.size() == 2 && (layout[0] == 'n' || layout[0] == 't') &&
                        (layout[1] == 'n' || layout[1] == 't'),
                    "layout = '", layout, "': use nn, nt, tn or tt");
  for (int64_t v : {m, n, k, batch})
    TORCH_CHECK_VALUE(v >= 1 && v <= INT_MAX, "explain: M, N, K and batch must be in 1 .. ",
                      INT_MAX, ", got ", v);
  const gemmtune::Problem p =
      gemmtune::shape_only_problem(layout[0] == 't' ? gemmtune::Op::T : gemmtune::Op::N,
                                   layout[1] == 't' ? gemmtune::Op::T : gemmtune::Op::N, int(m),
                                   int(n), int(k), int(batch), int(alignment));
  std::string text;
  library_call([&] { text = explain(int(device), p); }, "explain",
               [&] { return "device " + std::to_string(device) + ", " + p.label(); });
  return text;
}

// The row-major call of a product of tensors with these shapes and strides (2-D or 3-D), as the
// operators run it: [m, n, k, batch, transpose_a, transpose_b, lda, ldb, ldc, stride_a, stride_b,
// stride_c, swapped, copy_a, copy_b, copy_c]. For gemmtune.layout.plan (and so gemmtune.capture).
std::vector<int64_t> plan_op(c10::IntArrayRef a_shape, c10::IntArrayRef a_strides,
                             c10::IntArrayRef b_shape, c10::IntArrayRef b_strides,
                             c10::IntArrayRef c_shape, c10::IntArrayRef c_strides) {
  const size_t dims = a_shape.size();
  TORCH_CHECK_VALUE((dims == 2 || dims == 3) && a_strides.size() == dims &&
                        b_shape.size() == dims && b_strides.size() == dims &&
                        c_shape.size() == dims && c_strides.size() == dims,
                    "plan: shapes and strides must all have 2 or 3 entries");
  const auto view = [&](c10::IntArrayRef shape, c10::IntArrayRef strides) {
    return MatrixView::of(int(dims), shape.data(), strides.data());
  };
  const Plan p = plan(view(a_shape, a_strides), view(b_shape, b_strides), view(c_shape, c_strides));
  return {p.m,       p.n,      p.k,      p.batch,    p.transpose_a, p.transpose_b,
          p.lda,     p.ldb,    p.ldc,    p.stride_a, p.stride_b,    p.stride_c,
          p.swapped, p.copy_a, p.copy_b, p.copy_c};
}

}  // namespace
}  // namespace gemmtune_torch

TORCH_LIBRARY(gemmtune, m) {
  using namespace gemmtune_torch;
  m.def("mm(Tensor a, Tensor b, float alpha=1.0) -> Tensor");
  m.def("bmm(Tensor a, Tensor b, float alpha=1.0) -> Tensor");
  m.def("mm_out(Tensor a, Tensor b, Tensor(a!) out, float alpha=1.0, float beta=0.0) -> ()");
  m.def("bmm_out(Tensor a, Tensor b, Tensor(a!) out, float alpha=1.0, float beta=0.0) -> ()");
  m.def("linear(Tensor x, Tensor weight, Tensor? bias=None) -> Tensor");
  m.def(
      "configure(str? db_path=None, str db_access='automatic', bool deterministic=False, bool "
      "verbose=False, "
      "str precision='ieee', str fallback='torch') -> ()",
      &configure_op);
  m.def(
      "explain(int m, int n, int k, str layout='nn', int batch=1, int alignment=0, int device=0) "
      "-> str",
      &explain_op);
  m.def(
      "plan(int[] a_shape, int[] a_strides, int[] b_shape, int[] b_strides, int[] c_shape, int[] "
      "c_strides) -> int[]",
      &plan_op);
}

TORCH_LIBRARY_IMPL(gemmtune, CUDA, m) {
  using namespace gemmtune_torch;
  m.impl("mm", TORCH_FN(mm_cuda));
  m.impl("bmm", TORCH_FN(bmm_cuda));
  m.impl("mm_out", TORCH_FN(mm_out_cuda));
  m.impl("bmm_out", TORCH_FN(bmm_out_cuda));
  m.impl("linear", TORCH_FN(linear_cuda));
}

TORCH_LIBRARY_IMPL(gemmtune, Meta, m) {
  using namespace gemmtune_torch;
  m.impl("mm", TORCH_FN(mm_meta));
  m.impl("bmm", TORCH_FN(bmm_meta));
  m.impl("mm_out", TORCH_FN(mm_out_meta));
  m.impl("bmm_out", TORCH_FN(bmm_out_meta));
  m.impl("linear", TORCH_FN(linear_meta));
}

TORCH_LIBRARY_IMPL(gemmtune, CPU, m) {
  using namespace gemmtune_torch;
  m.impl("mm", TORCH_FN(mm_cpu));
  m.impl("bmm", TORCH_FN(bmm_cpu));
  m.impl("mm_out", TORCH_FN(mm_out_cpu));
  m.impl("bmm_out", TORCH_FN(bmm_out_cpu));
  m.impl("linear", TORCH_FN(pytorch_linear));
}

TORCH_LIBRARY_IMPL(gemmtune, AutocastCUDA, m) {
  m.impl("linear", TORCH_FN(gemmtune_torch::pytorch_linear));
}
