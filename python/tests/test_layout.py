"""gemmtune.layout: every kind of strided view PyTorch makes, mapped onto the row-major call, checked
by running that call on the raw storage in float64 (rowmajor_reference) against PyTorch. CPU only."""

from __future__ import annotations

import itertools

import pytest
import torch

from gemmtune import layout
from rowmajor_reference import run

# Views of a logical (batch x) rows x cols matrix; None: the kind cannot make that shape.
# Each returns (view, base): base is the tensor that owns the storage.
def _views(batch, rows, cols, generator):
    def randn(*shape):
        return torch.randn(*shape, generator=generator)

    lead = (batch,) if batch else ()
    last = (-2, -1)
    kinds = {
        "row": lambda: randn(*lead, rows, cols),
        "col": lambda: randn(*lead, cols, rows).transpose(*last),
        "row_ld": lambda: randn(*lead, rows, cols + 3)[..., :cols],
        "col_ld": lambda: randn(*lead, cols, rows + 5)[..., :rows].transpose(*last),
        "offset": lambda: randn(batch * rows * cols + 1 if batch else rows * cols + 1)[1:].view(*lead, rows, cols),
        "strided": lambda: randn(*lead, 2 * rows, 2 * cols)[..., ::2, ::2],
        "expand_rows": lambda: randn(*lead, 1, cols).expand(*lead, rows, cols),
    }
    if batch:
        kinds["batch_inner"] = lambda: randn(rows, cols, batch).permute(2, 0, 1)
        kinds["batch_bcast"] = lambda: randn(1, rows, cols).expand(batch, rows, cols)
    return kinds


OUT_KINDS = ("row", "col", "row_ld", "col_ld", "offset", "strided", "batch_inner")


def _base(t: torch.Tensor) -> torch.Tensor:
    return torch.empty(0).set_(t.untyped_storage())


def _check_all(batch: int, m: int, n: int, k: int) -> int:
    generator = torch.Generator().manual_seed(m * 10000 + n * 100 + k + batch)
    a_kinds, b_kinds, c_kinds = _views(batch, m, k, generator), _views(batch, k, n, generator), _views(batch, m, n, generator)
    checked = 0
    for (ak, make_a), (bk, make_b), ck in itertools.product(a_kinds.items(), b_kinds.items(), OUT_KINDS):
        if ck not in c_kinds:
            continue
        a, b = make_a(), make_b()
        out = c_kinds[ck]()
        base = _base(out)
        before = base.clone()
        for alpha, beta in ((1.5, 0.5), (1.0, 0.0)):
            if beta == 0.0:
                out.fill_(float("nan"))  # beta = 0 must not read C
                before = base.clone()
            expected = alpha * (a.double() @ b.double())
            if beta:
                expected += beta * out.double()
            p = run(a, b, out, alpha, beta)
            where = f"a {ak} {tuple(a.shape)}{a.stride()}, b {bk} {b.stride()}, out {ck} {out.stride()}: {p}"
            torch.testing.assert_close(out.double(), expected, rtol=1e-5, atol=1e-5, msg=lambda text: f"{where}\n{text}")
            # Nothing outside out's elements was written (padding, other views of the storage).
            inside = torch.zeros(base.shape, dtype=torch.bool)
            inside.as_strided(out.shape, out.stride(), out.storage_offset()).fill_(True)
            assert torch.equal(base[~inside], before[~inside]), f"wrote outside out: {where}"
        checked += 1
    return checked


SIZES = (1, 3, 7)


@pytest.mark.parametrize("m,n,k", list(itertools.product(SIZES, SIZES, SIZES)))
def test_every_view_of_mm_maps_onto_the_row_major_call(m, n, k):
    assert _check_all(0, m, n, k) == 7 * 7 * 6


@pytest.mark.parametrize("m,n,k", [(1, 1, 1), (3, 7, 1), (7, 3, 5), (1, 7, 3), (5, 1, 7)])
def test_every_view_of_bmm_maps_onto_the_row_major_call(m, n, k):
    assert _check_all(3, m, n, k) == 9 * 9 * 7


def test_transposes_give_the_expected_ops_and_leading_dimensions():
    # A row-major product with transposed views: a is M x K = 5 x 7, b is K x N = 7 x 9.
    a, at = torch.empty(5, 7), torch.empty(7, 5)
    b, bt = torch.empty(7, 9), torch.empty(9, 7)
    c, ct = torch.empty(5, 9), torch.empty(9, 5)
    cases = [
        (a, b, c, (5, 9, 7, "nn", 7, 9, 9, False)),
        (a, bt.t(), c, (5, 9, 7, "nt", 7, 7, 9, False)),  # nn.Linear: x @ weight.t()
        (at.t(), b, c, (5, 9, 7, "tn", 5, 9, 9, False)),
        (at.t(), bt.t(), c, (5, 9, 7, "tt", 5, 7, 9, False)),
        # A column-major out: C^T = op(B)^T op(A)^T, M and N exchanged and both ops flipped.
        (a, b, ct.t(), (9, 5, 7, "tt", 9, 7, 5, True)),
        (at.t(), bt.t(), ct.t(), (9, 5, 7, "nn", 7, 5, 5, True)),
    ]
    for x, y, z, want in cases:
        p = layout.plan(x.shape, x.stride(), y.shape, y.stride(), z.shape, z.stride())
        assert (p.m, p.n, p.k, p.layout, p.lda, p.ldb, p.ldc, p.swapped) == want
        assert not (p.copy_a or p.copy_b or p.copy_c)


def test_views_that_no_leading_dimension_describes_are_planned_as_copies():
    x = torch.empty(10, 14)[::2, ::2]  # 5 x 7, every stride above 1
    y = torch.empty(7, 9)
    p = layout.plan(x.shape, x.stride(), y.shape, y.stride(), (5, 9), (9, 1))
    assert p.copy_a and not p.copy_b and (p.layout, p.lda) == ("nn", 7)
    batch_inner = torch.empty(5, 9, 4).permute(2, 0, 1)  # out whose batch is its fastest dimension
    p = layout.plan((4, 5, 7), (35, 7, 1), (4, 7, 9), (63, 9, 1), batch_inner.shape, batch_inner.stride())
    assert p.copy_c and (p.ldc, p.stride_c) == (9, 45)


def _plan(a_shape, a_strides, b_shape, b_strides):
    m, n = a_shape[0], b_shape[1]
    return layout.plan(a_shape, a_strides, b_shape, b_strides, (m, n), (max(n, 1), 1))


def test_vectors_read_row_major_and_strides_of_size_one_dimensions_constrain_nothing():
    # (op, ld) of A as the call reads it; B packed.
    def read_a(rows, cols, row_stride, col_stride):
        p = _plan((rows, cols), (row_stride, col_stride), (cols, 3), (3, 1))
        return None if p.copy_a else (p.op_a, p.lda)

    assert read_a(1, 7, 123, 1) == ("n", 7)
    assert read_a(7, 1, 1, 99) == ("n", 1)
    assert read_a(1, 1, 0, 0) == ("n", 1)
    assert read_a(7, 5, 1, 7) == ("t", 7)
    assert read_a(7, 5, 0, 1) is None  # rows overlap (an expanded row): copied
    assert read_a(7, 5, 3, 1) is None  # rows overlap (ld below the row): copied
    assert read_a(0, 5, 0, 0) == ("n", 5)  # empty: nothing is read
