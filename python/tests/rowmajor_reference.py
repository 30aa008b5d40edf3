"""A float64 model of the C API's row-major strided-batched call, reading and writing raw storage
through nothing but a Plan's pointers, ops, leading dimensions and batch strides: a plan that
misdescribes a tensor reads the wrong elements here and fails the comparison with PyTorch."""

from __future__ import annotations

import torch

from gemmtune import layout


def _flat(t: torch.Tensor) -> torch.Tensor:
    """All of t's storage as a 1-D float tensor (shares memory)."""
    return torch.empty(0, dtype=t.dtype, device=t.device).set_(t.untyped_storage())


def _stored(t: torch.Tensor, op: str, rows: int, cols: int, ld: int, stride: int, batch: int) -> torch.Tensor:
    """op(X) (batch x rows x cols) as the C API reads it: op n, X is row-major rows x cols; op t,
    X^T is row-major cols x rows."""
    r, c = (rows, cols) if op == "n" else (cols, rows)
    assert ld >= max(c, 1), f"ld {ld} below a row of {c}: the library would reject it"
    view = _flat(t).as_strided((batch, r, c), (stride, ld, 1), t.storage_offset())
    return view if op == "n" else view.transpose(1, 2)


def run(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor, alpha: float, beta: float) -> layout.Plan:
    """out = alpha a @ b + beta out (a, b, out 2-D or 3-D) the way gemmtune.ops runs it: planned,
    copied where the plan says, then the row-major call modelled in float64. Returns the plan."""
    p = layout.plan(a.shape, a.stride(), b.shape, b.stride(), out.shape, out.stride())
    a = a.contiguous() if p.copy_a else a
    b = b.contiguous() if p.copy_b else b
    target = out.contiguous() if p.copy_c else out
    first, second = (b, a) if p.swapped else (a, b)
    op_a = _stored(first, p.op_a, p.m, p.k, p.lda, p.stride_a, p.batch).double()
    op_b = _stored(second, p.op_b, p.k, p.n, p.ldb, p.stride_b, p.batch).double()
    if p.batch > 1:
        span = (p.m - 1) * p.ldc + p.n
        assert p.stride_c >= span, "C's matrices would overlap: the library would reject it"
    c = _stored(target, "n", p.m, p.n, p.ldc, p.stride_c, p.batch)
    result = alpha * (op_a @ op_b)
    if beta != 0.0:
        result += beta * c.double()
    c.copy_(result.to(c.dtype))
    if target is not out:
        out.copy_(target)
    return p
