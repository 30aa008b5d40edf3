// The CUDA kernels of the operators: checks, the layout mapping (layout.hpp), the decision who
// runs the product (runtime_state.hpp), then gemmtune's dispatcher or PyTorch's own product.
#include "ops.hpp"

#include <ATen/ATen.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAStream.h>

#include <climits>
#include <string>

#include "errors.hpp"
#include "layout.hpp"
#include "runtime_state.hpp"

namespace gemmtune_torch {

namespace {

void check_operand(const char* name, const char* label, const at::Tensor& t, int dims) {
  TORCH_CHECK_VALUE(t.dim() == dims, "gemmtune.", name, ": ", label, " must be ", dims,
                    "-D, got shape ", t.sym_sizes());
  TORCH_CHECK_TYPE(t.scalar_type() == at::kFloat, "gemmtune.", name, ": ", label, " is ",
                   t.scalar_type(), "; gemmtune runs float32 only (use .float())");
}

void check_on_cuda(const char* name, const char* label, const at::Tensor& t) {
  TORCH_CHECK_VALUE(t.is_cuda(), "gemmtune.", name, ": ", label, " is on ", t.device(),
                    "; gemmtune runs on CUDA tensors",
                    c10::cuda::device_count() == 0 ? " (this machine has no CUDA device)" : "");
}

void check_same_device(const char* name, const at::Tensor& a, const at::Tensor& b,
                       const at::Tensor& c) {
  const bool same = a.device() == b.device() && (!c.defined() || c.device() == a.device());
  TORCH_CHECK_VALUE(same, "gemmtune.", name, ": the tensors are on different devices (", a.device(),
                    ", ", b.device(), c.defined() ? ", " + c.device().str() : std::string(), ")");
}

// [first, last] byte addresses of the elements of `t` (numel > 0).
std::pair<uintptr_t, uintptr_t> span(const at::Tensor& t) {
  int64_t last = 0;
  for (int64_t d = 0; d < t.dim(); ++d) last += (t.size(d) - 1) * t.stride(d);
  const auto first = reinterpret_cast<uintptr_t>(t.data_ptr());
  return {first, first + uintptr_t(last) * t.element_size()};
}

void check_out_overlap(const char* name, const at::Tensor& out, const at::Tensor& a,
                       const at::Tensor& b) {
  if (out.numel() == 0) return;
  for (int64_t d = 0; d < out.dim(); ++d)
    TORCH_CHECK_VALUE(out.stride(d) != 0 || out.size(d) == 1, "gemmtune.", name,
                      ": out has a zero stride (an expanded tensor): its elements overlap");
  const auto [lo, hi] = span(out);
  for (const at::Tensor* t : {&a, &b}) {
    if (t->numel() == 0 || !t->storage().is_alias_of(out.storage())) continue;
    const auto [t_lo, t_hi] = span(*t);
    TORCH_CHECK_VALUE(!(t_lo <= hi && lo <= t_hi), "gemmtune.", name,
                      ": out overlaps an input in memory; write to a separate tensor");
  }
}

MatrixView view_of(const at::Tensor& t) {
  return MatrixView::of(int(t.dim()), t.sizes().data(), t.strides().data());
}

int as_int(const char* name, const char* what, int64_t value) {
  TORCH_CHECK_VALUE(value <= INT_MAX, "gemmtune.", name, ": ", what, " = ", value,
                    " exceeds the library's int range (", INT_MAX, "); split the product");
  return int(value);
}

std::string label(const gemmtune::Problem& p) {
  return p.m >= 0 && p.n >= 0 && p.k >= 0 ? p.label() : std::string("?");
}

// A checked product out = alpha a @ b + beta out, planned, with the decision who runs it.
struct Prepared {
  at::Tensor a, b, target;  // as the call reads and writes them (contiguous copies where planned)
  gemmtune::Problem problem;
  int device = 0;
  std::shared_ptr<gemmtune::Dispatcher> gemmtune;  // null: PyTorch runs it
};

Prepared prepare(const char* name, const at::Tensor& a_in, const at::Tensor& b_in,
                 const at::Tensor& out, double alpha, double beta) {
  check_out_overlap(name, out, a_in, b_in);
  const Plan plan_ = plan(view_of(a_in), view_of(b_in), view_of(out));
  Prepared r;
  r.a = plan_.copy_a ? a_in.contiguous() : a_in;
  r.b = plan_.copy_b ? b_in.contiguous() : b_in;
  r.target = plan_.copy_c ? out.contiguous() : out;  // computed there, copied into out after
  const at::Tensor& first = plan_.swapped ? r.b : r.a;
  const at::Tensor& second = plan_.swapped ? r.a : r.b;

  gemmtune::Problem& p = r.problem;
  p.op_a = plan_.transpose_a ? gemmtune::Op::T : gemmtune::Op::N;
  p.op_b = plan_.transpose_b ? gemmtune::Op::T : gemmtune::Op::N;
  p.m = as_int(name, "M", plan_.m), p.n = as_int(name, "N", plan_.n),
  p.k = as_int(name, "K", plan_.k);
  p.batch = as_int(name, "batch", plan_.batch);
  p.lda = plan_.lda, p.ldb = plan_.ldb, p.ldc = plan_.ldc;
  p.stride_a = plan_.stride_a, p.stride_b = plan_.stride_b, p.stride_c = plan_.stride_c;
  p.a = first.data_ptr<float>(), p.b = second.data_ptr<float>(), p.c = r.target.data_ptr<float>();
  p.alpha = float(alpha), p.beta = float(beta);

  r.device = out.get_device();
  library_call([&] { r.gemmtune = gemmtune_for(r.device, p); }, name, [&] { return label(p); });
  return r;
}

// Runs a prepared product on gemmtune, on the device's current stream.
void run_gemmtune(const char* name, const Prepared& r, const at::Tensor& out) {
  const cudaStream_t stream = c10::cuda::getCurrentCUDAStream(r.device).stream();
  library_call([&] { r.gemmtune->run(r.problem, stream); }, name, [&] { return label(r.problem); });
  if (!r.target.is_same(out)) out.copy_(r.target);
}

void product(const char* name, const at::Tensor& a, const at::Tensor& b, const at::Tensor& out,
             double alpha, double beta) {
  const Prepared r = prepare(name, a, b, out, alpha, beta);
  if (r.gemmtune) return run_gemmtune(name, r, out);
  // PyTorch's own, on the tensors as they are (beta = 0 does not read out, as gemmtune's).
  if (out.dim() == 3) {
    out.baddbmm_(a, b, beta, alpha);
  } else {
    out.addmm_(a, b, beta, alpha);
  }
}

at::Tensor new_output(const at::Tensor& a, const at::Tensor& b) {
  if (a.dim() == 3) return at::empty({a.size(0), a.size(1), b.size(2)}, a.options());
  return at::empty({a.size(0), b.size(1)}, a.options());
}

void check_cuda_product(const char* name, const at::Tensor& a, const at::Tensor& b,
                        const at::Tensor& out, int dims) {
  check_product(name, a, b, out, dims);
  check_on_cuda(name, "a", a);
  check_on_cuda(name, "b", b);
  if (out.defined()) check_on_cuda(name, "out", out);
  check_same_device(name, a, b, out);
}

}  // namespace

void check_product(const char* name, const at::Tensor& a, const at::Tensor& b,
                   const at::Tensor& out, int dims) {
  check_operand(name, "a", a, dims);
  check_operand(name, "b", b, dims);
  if (out.defined()) check_operand(name, "out", out, dims);
  TORCH_CHECK_VALUE(a.sym_size(-1) == b.sym_size(-2), "gemmtune.", name, ": a ", a.sym_sizes(),
                    " and b ", b.sym_sizes(), " cannot be multiplied (K ", a.sym_size(-1),
                    " != ", b.sym_size(-2), ")");
  if (dims == 3)
    TORCH_CHECK_VALUE(a.sym_size(0) == b.sym_size(0), "gemmtune.", name, ": batch sizes differ: a ",
                      a.sym_sizes(), ", b ", b.sym_sizes());
  if (out.defined()) {
    const bool fits = out.sym_size(-2) == a.sym_size(-2) && out.sym_size(-1) == b.sym_size(-1) &&
                      (dims == 2 || out.sym_size(0) == a.sym_size(0));
    TORCH_CHECK_VALUE(fits, "gemmtune.", name, ": out has shape ", out.sym_sizes(),
                      ", the product's is ",
                      dims == 3 ? c10::SymIntArrayRef({a.sym_size(0), a.sym_size(1), b.sym_size(2)})
                                : c10::SymIntArrayRef({a.sym_size(0), b.sym_size(1)}));
  }
}

bool gemmtune_runs_linear(const at::Tensor& x, const at::Tensor& weight,
                          const std::optional<at::Tensor>& bias) {
  const auto fits = [&](const at::Tensor& t) {
    return t.is_cuda() && t.scalar_type() == at::kFloat && t.device() == x.device();
  };
  return fits(x) && fits(weight) && (!bias || !bias->defined() || fits(*bias));
}

void check_linear(const at::Tensor& x, const at::Tensor& weight,
                  const std::optional<at::Tensor>& bias) {
  TORCH_CHECK_VALUE(x.dim() >= 1, "gemmtune.linear: x must have at least one dimension");
  TORCH_CHECK_VALUE(weight.dim() == 2, "gemmtune.linear: weight must be 2-D, got shape ",
                    weight.sym_sizes());
  TORCH_CHECK_VALUE(x.sym_size(-1) == weight.sym_size(1), "gemmtune.linear: x ", x.sym_sizes(),
                    " and weight ", weight.sym_sizes(), " do not fit (in_features ", x.sym_size(-1),
                    " != ", weight.sym_size(1), ")");
  if (bias && bias->defined()) {
    TORCH_CHECK_VALUE(bias->dim() == 1, "gemmtune.linear: bias must be 1-D, got shape ",
                      bias->sym_sizes());
    TORCH_CHECK_VALUE(bias->sym_size(0) == weight.sym_size(0), "gemmtune.linear: bias ",
                      bias->sym_sizes(), " does not fit weight ", weight.sym_sizes());
  }
}

at::Tensor mm_cuda(const at::Tensor& a, const at::Tensor& b, double alpha) {
  check_cuda_product("mm", a, b, at::Tensor(), 2);
  at::Tensor out = new_output(a, b);
  product("mm", a, b, out, alpha, 0.0);
  return out;
}

at::Tensor bmm_cuda(const at::Tensor& a, const at::Tensor& b, double alpha) {
  check_cuda_product("bmm", a, b, at::Tensor(), 3);
  at::Tensor out = new_output(a, b);
  product("bmm", a, b, out, alpha, 0.0);
  return out;
}

void mm_out_cuda(const at::Tensor& a, const at::Tensor& b, const at::Tensor& out, double alpha,
                 double beta) {
  check_cuda_product("mm", a, b, out, 2);
  product("mm", a, b, out, alpha, beta);
}

void bmm_out_cuda(const at::Tensor& a, const at::Tensor& b, const at::Tensor& out, double alpha,
                  double beta) {
  check_cuda_product("bmm", a, b, out, 3);
  product("bmm", a, b, out, alpha, beta);
}

at::Tensor linear_cuda(const at::Tensor& x, const at::Tensor& weight,
                       const std::optional<at::Tensor>& bias) {
  if (!gemmtune_runs_linear(x, weight, bias)) return at::linear(x, weight, bias);
  check_linear(x, weight, bias);
  const bool has_bias = bias && bias->defined();
  // x (..., in) flattened to (tokens, in): one row-major x times transposed-weight product, the
  // "nt" problem `gemmtune.capture` records for PyTorch's own linear layers.
  const at::Tensor x2 = x.reshape({-1, x.size(-1)});
  const at::Tensor weight_t = weight.t();
  at::Tensor out = at::empty({x2.size(0), weight.size(0)}, x.options());
  const Prepared r = prepare("linear", x2, weight_t, out, 1.0, 0.0);
  if (!r.gemmtune) {
    if (has_bias) {
      at::addmm_out(out, *bias, x2,
                    weight_t);  // PyTorch's linear, its bias fused where cuBLASLt can
    } else {
      at::mm_out(out, x2, weight_t);
    }
  } else {
    run_gemmtune("linear", r, out);
    if (has_bias)
      out.add_(*bias);  // a second pass over C: gemmtune's kernels have no bias epilogue
  }
  std::vector<int64_t> shape(x.sizes().begin(), x.sizes().end());
  shape.back() = weight.size(0);
  return out.view(shape);
}

}  // namespace gemmtune_torch
