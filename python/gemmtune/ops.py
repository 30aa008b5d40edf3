"""gemmtune.mm and gemmtune.bmm: PyTorch custom operators (torch.library) over the C API, so that
they run under torch.compile (a fake implementation gives the output's shape) and autograd.

The operators, in the `gemmtune` namespace:
  mm(Tensor a, Tensor b, float alpha) -> Tensor              alpha a @ b, a new tensor
  mm_out(Tensor a, Tensor b, Tensor(a!) out, float alpha, float beta) -> ()
                                                            out = alpha a @ b + beta out
  bmm, bmm_out                                              the same, batched (3-D)
"""

from __future__ import annotations

import ctypes
from typing import Optional

import torch

from . import _library as L
from . import layout, runtime


def _check(name: str, a: torch.Tensor, b: torch.Tensor, out: Optional[torch.Tensor], batched: bool) -> None:
    """Python-side checks, before anything reaches the library: what is wrong and what to do."""
    dims = 3 if batched else 2
    for label, t in (("a", a), ("b", b), ("out", out)):
        if t is None:
            continue
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"gemmtune.{name}: {label} must be a torch.Tensor, not {type(t).__name__}")
        if t.dim() != dims:
            raise ValueError(f"gemmtune.{name}: {label} must be {dims}-D, got shape {tuple(t.shape)}")
        if t.dtype != torch.float32:
            raise TypeError(f"gemmtune.{name}: {label} is {t.dtype}; gemmtune runs float32 only (use .float())")
        if t.device.type != "cuda":
            hint = "" if torch.cuda.is_available() else " (this machine has no CUDA device: torch.cuda.is_available() is False)"
            raise ValueError(f"gemmtune.{name}: {label} is on {t.device}; gemmtune runs on CUDA tensors{hint}")
    if a.device != b.device or (out is not None and out.device != a.device):
        devices = ", ".join(str(t.device) for t in (a, b, out) if t is not None)
        raise ValueError(f"gemmtune.{name}: the tensors are on different devices ({devices})")
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(f"gemmtune.{name}: a {tuple(a.shape)} and b {tuple(b.shape)} cannot be multiplied (K {a.shape[-1]} != {b.shape[-2]})")
    if batched and a.shape[0] != b.shape[0]:
        raise ValueError(f"gemmtune.{name}: batch sizes differ: a {tuple(a.shape)}, b {tuple(b.shape)}")
    if out is not None:
        want = _out_shape(a, b)
        if tuple(out.shape) != want:
            raise ValueError(f"gemmtune.{name}: out has shape {tuple(out.shape)}, the product's is {want}")
        if out.requires_grad and torch.is_grad_enabled():
            raise RuntimeError(f"gemmtune.{name}: out= does not support autograd (out requires grad); call without out=")


def _out_shape(a: torch.Tensor, b: torch.Tensor) -> tuple:
    return tuple(a.shape[:-1]) + (b.shape[-1],)


def _span(t: torch.Tensor) -> tuple:
    """[first, last] byte addresses a tensor's elements occupy."""
    last = sum((size - 1) * stride for size, stride in zip(t.shape, t.stride()) if size > 0)
    return t.data_ptr(), t.data_ptr() + last * t.element_size()


def _check_out_overlap(name: str, out: torch.Tensor, *inputs: torch.Tensor) -> None:
    if out.numel() == 0:
        return
    if any(stride == 0 and size > 1 for size, stride in zip(out.shape, out.stride())):
        raise ValueError(f"gemmtune.{name}: out has a zero stride (an expanded tensor): its elements overlap")
    lo, hi = _span(out)
    for t in inputs:
        if t.numel() and t.untyped_storage().data_ptr() == out.untyped_storage().data_ptr():
            t_lo, t_hi = _span(t)
            if t_lo <= hi and lo <= t_hi:
                raise ValueError(f"gemmtune.{name}: out overlaps an input in memory; write to a separate tensor")


def _run(name: str, a: torch.Tensor, b: torch.Tensor, out: torch.Tensor, alpha: float, beta: float) -> None:
    """out = alpha a @ b + beta out through the C API, on the current stream of the tensors' device."""
    batched = a.dim() == 3
    _check_out_overlap(name, out, a, b)
    p = layout.plan(a.shape, a.stride(), b.shape, b.stride(), out.shape, out.stride())
    layout.check_sizes(p)
    if p.copy_a:
        a = a.contiguous()
    if p.copy_b:
        b = b.contiguous()
    target = out.contiguous() if p.copy_c else out  # computed here, copied into out below
    first, second = (b, a) if p.swapped else (a, b)
    device = out.device.index if out.device.index is not None else torch.cuda.current_device()
    stream = torch.cuda.current_stream(out.device).cuda_stream
    lib = L.library()
    L.check(
        lib.gemmtune_sgemm_strided_batched(
            runtime.handle(device), L.ROW_MAJOR, L.OP[p.op_a], L.OP[p.op_b], p.m, p.n, p.k, alpha,
            first.data_ptr(), p.lda, p.stride_a, second.data_ptr(), p.ldb, p.stride_b, beta,
            target.data_ptr(), p.ldc, p.stride_c, p.batch, ctypes.c_void_p(stream),
        ),
        f"gemmtune.{name} ({'batch ' + str(p.batch) + ', ' if batched else ''}{p.m}x{p.n}x{p.k} {p.layout})",
    )
    if target is not out:
        out.copy_(target)


@torch.library.custom_op("gemmtune::mm", mutates_args=())
def _mm(a: torch.Tensor, b: torch.Tensor, alpha: float) -> torch.Tensor:
    _check("mm", a, b, None, False)
    out = torch.empty(_out_shape(a, b), dtype=a.dtype, device=a.device)
    _run("mm", a, b, out, alpha, 0.0)
    return out


@torch.library.custom_op("gemmtune::bmm", mutates_args=())
def _bmm(a: torch.Tensor, b: torch.Tensor, alpha: float) -> torch.Tensor:
    _check("bmm", a, b, None, True)
    out = torch.empty(_out_shape(a, b), dtype=a.dtype, device=a.device)
    _run("bmm", a, b, out, alpha, 0.0)
    return out


@torch.library.custom_op("gemmtune::mm_out", mutates_args=("out",))
def _mm_out(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor, alpha: float, beta: float) -> None:
    _check("mm", a, b, out, False)
    _run("mm", a, b, out, alpha, beta)


@torch.library.custom_op("gemmtune::bmm_out", mutates_args=("out",))
def _bmm_out(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor, alpha: float, beta: float) -> None:
    _check("bmm", a, b, out, True)
    _run("bmm", a, b, out, alpha, beta)


# Fake implementations: shapes only, for torch.compile's tracing (also on machines without a GPU).
@_mm.register_fake
def _(a, b, alpha):
    _check("mm", a, b, None, False)
    return a.new_empty(_out_shape(a, b))


@_bmm.register_fake
def _(a, b, alpha):
    _check("bmm", a, b, None, True)
    return a.new_empty(_out_shape(a, b))


@_mm_out.register_fake
def _(a, b, out, alpha, beta):
    _check("mm", a, b, out, False)


@_bmm_out.register_fake
def _(a, b, out, alpha, beta):
    _check("bmm", a, b, out, True)


# Autograd of the functional operators, itself through gemmtune (transposed views need no copy):
# C = alpha A B  gives  dA = alpha dC B^T,  dB = alpha A^T dC.
def _setup_context(ctx, inputs, output):
    a, b, alpha = inputs
    ctx.alpha = alpha
    ctx.save_for_backward(a if ctx.needs_input_grad[1] else None, b if ctx.needs_input_grad[0] else None)


def _mm_backward(ctx, grad):
    a, b = ctx.saved_tensors
    grad_a = _mm(grad, b.t(), ctx.alpha) if ctx.needs_input_grad[0] else None
    grad_b = _mm(a.t(), grad, ctx.alpha) if ctx.needs_input_grad[1] else None
    return grad_a, grad_b, None


def _bmm_backward(ctx, grad):
    a, b = ctx.saved_tensors
    grad_a = _bmm(grad, b.transpose(1, 2), ctx.alpha) if ctx.needs_input_grad[0] else None
    grad_b = _bmm(a.transpose(1, 2), grad, ctx.alpha) if ctx.needs_input_grad[1] else None
    return grad_a, grad_b, None


_mm.register_autograd(_mm_backward, setup_context=_setup_context)
_bmm.register_autograd(_bmm_backward, setup_context=_setup_context)


def _scalar(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a real number, not {type(value).__name__}")
    return float(value)


def _product(name: str, functional, inplace, batched, a, b, out, alpha, beta):
    alpha, beta = _scalar("alpha", alpha), _scalar("beta", beta)
    _check(name, a, b, out, batched)
    if out is None:
        if beta != 0.0:
            raise ValueError(f"gemmtune.{name}: beta = {beta} needs out= (the C that beta scales)")
        return functional(a, b, alpha)
    inplace(a, b, out, alpha, beta)
    return out


def mm(a: torch.Tensor, b: torch.Tensor, out: Optional[torch.Tensor] = None, *, alpha: float = 1.0, beta: float = 0.0) -> torch.Tensor:
    """alpha a @ b (+ beta out) for float32 CUDA matrices a (M x K) and b (K x N), on the current
    CUDA stream. Any strides: row-major tensors and transposed views (`.t()`, `.mT`) run as they
    are; others are copied first (see gemmtune.layout). With `out` (M x N, any strides; it must
    not overlap a or b) the result is written there and returned: out = alpha a @ b + beta out
    (beta = 0 does not read out, which may hold NaN). Without `out`, a new contiguous tensor
    (beta must be 0). Differentiable without `out`. Errors: TypeError/ValueError for bad
    arguments, gemmtune.GemmtuneError (and subclasses) with the library's message."""
    return _product("mm", _mm, _mm_out, False, a, b, out, alpha, beta)


def bmm(a: torch.Tensor, b: torch.Tensor, out: Optional[torch.Tensor] = None, *, alpha: float = 1.0, beta: float = 0.0) -> torch.Tensor:
    """gemmtune.mm for batches: a (batch x M x K), b (batch x K x N), out (batch x M x N). A batch
    stride of 0 (an `.expand()`ed operand) reuses one matrix; out's matrices must not overlap."""
    return _product("bmm", _bmm, _bmm_out, True, a, b, out, alpha, beta)
