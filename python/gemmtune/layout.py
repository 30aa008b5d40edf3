"""How a PyTorch matrix product maps onto the library's row-major strided-batched GEMM: the mapping
the operators run (python/csrc/layout.cpp, its one home), for gemmtune.capture, so that what is
tuned is exactly what runs. `plan` asks the operator library (torch.ops.gemmtune.plan).

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
from typing import Sequence

# The sweep's problem files hold batches up to the grid's z limit (tuner/src/problems.cpp).
MAX_SWEEP_BATCH = 65535
INT_MAX = 2**31 - 1


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


def plan(a_shape: Shape, a_strides: Shape, b_shape: Shape, b_strides: Shape, c_shape: Shape, c_strides: Shape) -> Plan:
    """The row-major call for C = A B (2-D: M x K times K x N; 3-D: batch x M x K times
    batch x K x N), as the operators run it. Shapes and strides are sequences of ints (torch.Size,
    tensor.stride()); TypeError for another kind, ValueError where they describe no product (a
    negative size or stride, sizes that do not agree, a tensor too large for int64)."""
    from . import _arguments as arguments
    from . import errors
    from ._library import ops

    given = {"a_shape": a_shape, "a_strides": a_strides, "b_shape": b_shape, "b_strides": b_strides, "c_shape": c_shape, "c_strides": c_strides}
    lists = [arguments.integers("layout.plan", name, value) for name, value in given.items()]
    try:
        v = ops().plan(*lists)
    except (RuntimeError, ValueError) as error:
        raise errors.from_torch(error) or error from None
    op = ("n", "t")
    return Plan(v[0], v[1], v[2], v[3], op[v[4]], op[v[5]], *v[6:12], *(bool(x) for x in v[12:16]))
