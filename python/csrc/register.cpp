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
  if (db_path) {
    TORCH_CHECK_VALUE(!db_path->empty(),
                      "configure: db_path is empty: pass a file path, or None for the default");
    TORCH_CHECK_VALUE(db_path->find('\0') == std::string::npos, "configure: db_path holds a NUL ",
                      "byte, which no file name can: pass the path without it");
  }
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
  const std::pair<const char*, int64_t> sizes[] = {{"m", m}, {"n", n}, {"k", k}, {"batch", batch}};
  for (const auto& [name, v] : sizes)
    TORCH_CHECK_VALUE(v >= 1 && v <= INT_MAX, "explain: ", name, " = ", v,
                      " is out of range: M, N, K and batch run from 1 to ", INT_MAX,
                      " (the library's int)");
  TORCH_CHECK_VALUE(alignment == 0 || alignment == 1 || alignment == 2 || alignment == 4,
                    "explain: alignment = ", alignment,
                    ": use 4, 2 or 1 (floats), or 0 for what packed matrices allow");
  TORCH_CHECK_VALUE(device >= 0 && device <= INT_MAX, "explain: device = ", device,
                    ": pass a CUDA device ordinal (0, 1, ...)");
  const gemmtune::Problem p =
      gemmtune::shape_only_problem(layout[0] == 't' ? gemmtune::Op::T : gemmtune::Op::N,
                                   layout[1] == 't' ? gemmtune::Op::T : gemmtune::Op::N, int(m),
                                   int(n), int(k), int(batch), int(alignment));
  std::string text;
  library_call([&] { text = explain(int(device), p); }, "explain",
               [&] { return "device " + std::to_string(device) + ", " + p.label(); });
  return text;
}

// Whether a tensor of `shape` and `strides` can exist: no negative size or stride, and an element
// count (sizes of 0 counted as 1, as a packed copy's strides are) and a last element's offset
// that fit int64 (the mapping computes with both).
void check_tensor(const char* name, c10::IntArrayRef shape, c10::IntArrayRef strides) {
  int64_t count = 1, last = 0;
  bool fits = true;
  for (size_t d = 0; d < shape.size(); ++d) {
    TORCH_CHECK_VALUE(shape[d] >= 0 && strides[d] >= 0, "plan: ", name, " has shape ", shape,
                      " and strides ", strides, ": sizes and strides must not be negative");
    int64_t step = 0;
    fits = fits && !__builtin_mul_overflow(count, std::max<int64_t>(shape[d], 1), &count) &&
           !__builtin_mul_overflow(std::max<int64_t>(shape[d] - 1, 0), strides[d], &step) &&
           !__builtin_add_overflow(last, step, &last);
  }
  TORCH_CHECK_VALUE(fits, "plan: ", name, " has shape ", shape, " and strides ", strides,
                    ": no tensor this large can exist (its size or extent exceeds int64)");
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
  check_tensor("a", a_shape, a_strides);
  check_tensor("b", b_shape, b_strides);
  check_tensor("c", c_shape, c_strides);
  const size_t r = dims - 2;  // the rows' index
  TORCH_CHECK_VALUE(a_shape[r + 1] == b_shape[r], "plan: a ", a_shape, " and b ", b_shape,
                    " cannot be multiplied (K ", a_shape[r + 1], " != ", b_shape[r], ")");
  TORCH_CHECK_VALUE(dims == 2 || (a_shape[0] == b_shape[0] && c_shape[0] == a_shape[0]),
                    "plan: batch sizes differ: a ", a_shape, ", b ", b_shape, ", c ", c_shape);
  TORCH_CHECK_VALUE(c_shape[r] == a_shape[r] && c_shape[r + 1] == b_shape[r + 1],
                    "plan: c has shape ", c_shape, ", the product of a ", a_shape, " and b ",
                    b_shape, " does not");
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
