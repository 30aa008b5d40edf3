"""gemmtune.mm and gemmtune.bmm: thin wrappers over the C++ operators (python/csrc, registered with
PyTorch as torch.ops.gemmtune.*), which check the arguments, map strides onto the row-major call,
choose gemmtune or PyTorch for the problem, and run on the current stream; they trace under
torch.compile and torch.export (Meta kernels) and have autograd (in C++).

The operators, in the `gemmtune` namespace:
  mm(Tensor a, Tensor b, float alpha=1) -> Tensor           alpha a @ b, a new tensor
  mm_out(Tensor a, Tensor b, Tensor(a!) out, float alpha=1, float beta=0) -> ()
                                                            out = alpha a @ b + beta out
  bmm, bmm_out                                              the same, batched (3-D)
  linear(Tensor x, Tensor weight, Tensor? bias=None) -> Tensor   x @ weight^T + bias (gemmtune.nn)
"""

from __future__ import annotations

from typing import Optional

import torch

from ._arguments import operator_failure, real_type_error
from ._library import ops


def _beta_needs_out(function: str, beta) -> Exception:
    return real_type_error(function, "beta", beta) or ValueError(f"gemmtune.{function}: beta = {beta} needs out= (the C that beta scales)")



def _product(name: str, a, b, out, alpha, beta) -> torch.Tensor:
    """The operator `name` (mm or bmm), or its out= form; a refused call becomes the package's
    clear TypeError/ValueError or GemmtuneError (the checks run only once the operator refused)."""
    library = ops()
    try:
        if out is None:
            if beta != 0.0:
                raise _beta_needs_out(name, beta)
            return getattr(library, name)(a, b, alpha)
        getattr(library, name + "_out")(a, b, out, alpha, beta)
        return out
    except (RuntimeError, ValueError, TypeError) as error:
        raise operator_failure(name, error, tensors={"a": a, "b": b, "out": out}, reals={"alpha": alpha, "beta": beta}) from None

def mm(a: torch.Tensor, b: torch.Tensor, out: Optional[torch.Tensor] = None, *, alpha: float = 1.0, beta: float = 0.0) -> torch.Tensor:
    """alpha a @ b (+ beta out) for float32 CUDA matrices a (M x K) and b (K x N), on the current
    CUDA stream. Any strides: row-major tensors and transposed views (`.t()`, `.mT`) run as they
    are; others are copied first (see gemmtune.layout). With `out` (M x N, any strides; it must
    not overlap a or b) the result is written there and returned: out = alpha a @ b + beta out
    (beta = 0 does not read out, which may hold NaN). Without `out`, a new contiguous tensor
    (beta must be 0). Differentiable without `out`. Runs on gemmtune where its tuned kernel
    measured faster than cuBLAS, else on PyTorch's own product (gemmtune.configure(fallback=...)).
    Errors: TypeError/ValueError for bad arguments, gemmtune.GemmtuneError (and subclasses)
    with the library's message."""
    return _product("mm", a, b, out, alpha, beta)


def bmm(a: torch.Tensor, b: torch.Tensor, out: Optional[torch.Tensor] = None, *, alpha: float = 1.0, beta: float = 0.0) -> torch.Tensor:
    """gemmtune.mm for batches: a (batch x M x K), b (batch x K x N), out (batch x M x N), run as one
    strided-batched launch. A batch stride of 0 (an `.expand()`ed operand) reuses one matrix;
    out's matrices must not overlap."""
    return _product("bmm", a, b, out, alpha, beta)
