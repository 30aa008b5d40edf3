"""How a PyTorch matrix product maps onto the C API's row-major GEMM: the one home of that mapping,
used both to run products (gemmtune.mm, gemmtune.bmm) and to capture their shapes for
`gemmtune sweep` (gemmtune.capture), so that what is tuned is exactly what runs.

Pure Python on shapes and strides (in elements); no PyTorch needed.

A matrix X (rows x cols, element (i, j) at offset i * s_row + j * s_col) enters a row-major GEMM
  - as stored (op n) with leading dimension s_row when s_col == 1: a row-major matrix,
  - transposed (op t) with leading dimension s_col when s_row == 1: the transpose of a row-major
    cols x rows matrix (a `.t()` or `.transpose(-2, -1)` view, a column-major matrix),
  - not at all otherwise (every stride above 1, a zero stride along a dimension of size > 1,
    rows that overlap): gemmtune.mm then copies it with `.contiguous()` (the output: it computes
    into a contiguous temporary and copies that into `out`).
A dimension of size 1 constrains nothing.

C = op(A) op(B) needs C row-major. A column-major C (C.t() row-major, e.g. `out=c.t()`) is computed
as C^T = op(B)^T op(A)^T: M and N trade places, A and B too, and each op flips.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence, Tuple

# The sweep's problem files hold batches up to the grid's z limit (tuner/src/problems.cpp).
MAX_SWEEP_BATCH = 65535
INT_MAX = 2**31 - 1


@dataclass(frozen=True)
class Operand:
    """How a stored matrix is read: `op` "n" (as stored, row-major) or "t" (the transpose of the
    row-major matrix stored), with leading dimension `ld` (in elements)."""

    op: str
    ld: int


def operand(rows: int, cols: int, row_stride: int, col_stride: int) -> Optional[Operand]:
    """The Operand that reads a rows x cols matrix with these strides, or None when none does.
    Row-major is preferred when both fit (a row or column vector, a 1 x 1 matrix)."""
    if rows == 0 or cols == 0:  # nothing is read: any leading dimension that passes the checks
        return Operand("n", max(cols, 1))
    if (cols == 1 or col_stride == 1) and (rows == 1 or row_stride >= cols):
        return Operand("n", row_stride if rows > 1 else cols)
    if (rows == 1 or row_stride == 1) and col_stride >= rows:  # here cols > 1 (else row-major fits)
        return Operand("t", col_stride)
    return None


def flip(op: str) -> str:
    return "t" if op == "n" else "n"


def contiguous_strides(shape: Sequence[int]) -> Tuple[int, ...]:
    """The strides of a contiguous (row-major) tensor of `shape`, as `.contiguous()` makes them."""
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return tuple(reversed(strides))


@dataclass(frozen=True)
class Plan:
    """A (batched) product as the row-major call of the C API that runs it.

    m, n, k, batch, op_a, op_b, lda, ldb, ldc, stride_a, stride_b, stride_c are the call's
    arguments. `swapped`: the call's A is the caller's B and its B the caller's A (C is stored
    column-major). `copy_a`, `copy_b`, `copy_c`: that tensor's strides cannot be described and the
    plan is for its contiguous copy."""

    m: int
    n: int
    k: int
    batch: int
    op_a: str
    op_b: str
    lda: int
    ldb: int
    ldc: int
    stride_a: int
    stride_b: int
    stride_c: int
    swapped: bool
    copy_a: bool = False
    copy_b: bool = False
    copy_c: bool = False

    @property
    def layout(self) -> str:
        """The layout field of `gemmtune sweep`'s problem files: op_a then op_b ("nt")."""
        return self.op_a + self.op_b

    @property
    def flops(self) -> int:
        return 2 * self.m * self.n * self.k * self.batch


Shape = Sequence[int]


def _batched(shape: Shape, strides: Shape) -> Tuple[int, int, int, int, int, int]:
    """(batch, rows, cols, batch stride, row stride, col stride) of a 2-D or 3-D tensor."""
    if len(shape) == 2:
        return (1, shape[0], shape[1], 0, strides[0], strides[1])
    return (shape[0], shape[1], shape[2], strides[0], strides[1], strides[2])


def plan(a_shape: Shape, a_strides: Shape, b_shape: Shape, b_strides: Shape, c_shape: Shape, c_strides: Shape) -> Plan:
    """The row-major call for C = A B (2-D: M x K times K x N; 3-D: batch x M x K times
    batch x K x N). Shapes must already agree (checked by the caller)."""
    batch, m, k, a_bs, a_rs, a_cs = _batched(a_shape, a_strides)
    _, _, n, b_bs, b_rs, b_cs = _batched(b_shape, b_strides)
    _, _, _, c_bs, c_rs, c_cs = _batched(c_shape, c_strides)

    def read(rows: int, cols: int, bs: int, rs: int, cs: int, shape: Shape) -> Tuple[Operand, int, bool]:
        found = operand(rows, cols, rs, cs)
        if found is not None:
            return found, bs if batch > 1 else 0, False
        strides = _batched(shape, contiguous_strides(shape))
        return operand(rows, cols, strides[4], strides[5]), strides[3] if batch > 1 else 0, True

    a, stride_a, copy_a = read(m, k, a_bs, a_rs, a_cs, a_shape)
    b, stride_b, copy_b = read(k, n, b_bs, b_rs, b_cs, b_shape)

    def output(bs: int, rs: int, cs: int) -> Optional[Tuple[Operand, int]]:
        c = operand(m, n, rs, cs)
        if c is None:
            return None
        # The matrices of C must not overlap: a row-major (rows x cols, ld) matrix spans
        # (rows - 1) * ld + cols elements.
        rows, cols = (m, n) if c.op == "n" else (n, m)
        span = (rows - 1) * c.ld + cols
        if batch > 1 and bs < span:
            return None
        return c, (bs if batch > 1 else max(span, 0))

    out = output(c_bs, c_rs, c_cs)
    copy_c = out is None
    if out is None:
        _, _, _, c_bs, c_rs, c_cs = _batched(c_shape, contiguous_strides(c_shape))
        out = output(c_bs, c_rs, c_cs)
        assert out is not None
    c, stride_c = out
    if c.op == "n":
        return Plan(m, n, k, batch, a.op, b.op, a.ld, b.ld, c.ld, stride_a, stride_b, stride_c, False, copy_a, copy_b, copy_c)
    # C^T = op(B)^T op(A)^T, row-major N x M.
    return Plan(
        n, m, k, batch, flip(b.op), flip(a.op), b.ld, a.ld, c.ld, stride_b, stride_a, stride_c, True, copy_a, copy_b, copy_c
    )


def check_sizes(p: Plan) -> None:
    """The C API takes M, N, K and batch as int: larger products cannot run."""
    for name, value in (("M", p.m), ("N", p.n), ("K", p.k), ("batch", p.batch)):
        if value > INT_MAX:
            raise ValueError(f"{name} = {value} exceeds the C API's int range ({INT_MAX}); split the product")
