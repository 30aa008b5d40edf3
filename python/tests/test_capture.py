"""gemmtune.capture and `python -m gemmtune capture` on CPU: the problem file's rows for real models
and for products with transposed views, and the real `gemmtune sweep --file` reading the file."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import gemmtune
import gemmtune.__main__

HERE = Path(__file__).resolve().parent


def python_m_gemmtune(*args, cwd=None):
    """`python -m gemmtune ARGS` with this test's gemmtune package (installed or on PYTHONPATH)."""
    env = dict(os.environ, PYTHONPATH=str(Path(gemmtune.__file__).parents[1]))
    return subprocess.run([sys.executable, "-m", "gemmtune", *args], capture_output=True, text=True, cwd=cwd, env=env)


def rows(mode):
    return [(p.m, p.n, p.k, p.layout, p.batch, p.calls) for p in mode.problems]


class Block(torch.nn.Module):
    """A transformer-like block with odd sizes: attention with 5 heads of 25, an MLP of 4x, a head."""

    def __init__(self, hidden=125, heads=5, vocab=503):
        super().__init__()
        self.heads = heads
        self.qkv = torch.nn.Linear(hidden, 3 * hidden)
        self.proj = torch.nn.Linear(hidden, hidden)
        self.up = torch.nn.Linear(hidden, 4 * hidden)
        self.down = torch.nn.Linear(4 * hidden, hidden)
        self.head = torch.nn.Linear(hidden, vocab, bias=False)

    def forward(self, x):
        b, t, h = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, h // self.heads).permute(2, 0, 3, 1, 4)
        scores = torch.softmax(q @ k.transpose(-2, -1) / (h // self.heads) ** 0.5, dim=-1)
        x = x + self.proj((scores @ v).transpose(1, 2).reshape(b, t, h))
        x = x + self.down(torch.nn.functional.gelu(self.up(x)))
        return self.head(x)


def test_a_block_gives_one_row_per_distinct_product_in_the_order_run():
    mode = gemmtune.capture(Block(), (torch.randn(2, 37, 125),))
    tokens = 2 * 37
    assert rows(mode) == [
        (tokens, 375, 125, "nt", 1, 1),  # qkv: nn.Linear is x @ weight.t()
        (37, 37, 25, "nn", 10, 1),  # q @ k^T: 2 x 5 heads; matmul packs the permuted q and k^T first
        (37, 25, 37, "nn", 10, 1),  # scores @ v
        (tokens, 125, 125, "nt", 1, 1),  # proj
        (tokens, 500, 125, "nt", 1, 1),  # up
        (tokens, 125, 500, "nt", 1, 1),  # down
        (tokens, 503, 125, "nt", 1, 1),  # head, no bias
    ]
    text = mode.csv("block")
    assert "\nm,n,k,layout,batch\n" in text
    assert "\n74,375,125,nt,1  # 1 call: addmm\n" in text
    assert "\n37,37,25,nn,10  # 1 call: bmm\n" in text
    assert "\n74,503,125,nt,1  # 1 call: mm\n" in text


def test_transposed_views_give_the_layout_of_the_row_major_problem():
    m, n, k = 5, 11, 7
    a, at = torch.randn(m, k), torch.randn(k, m)
    b, bt = torch.randn(k, n), torch.randn(n, k)
    with gemmtune.CaptureMode() as mode:
        torch.mm(a, b)
        torch.mm(a, bt.t())
        torch.mm(at.t(), b)
        torch.mm(at.t(), bt.t())
        torch.matmul(a, bt.mT)  # matmul and @ reach mm
        torch.addmm(torch.randn(n), at.t(), b)
        torch.nn.functional.linear(a, bt)
        # out stored column-major: computed as C^T = B^T A^T (N x M, ops flipped).
        torch.mm(a, b, out=torch.empty(n, m).t())
    assert rows(mode) == [
        (m, n, k, "nn", 1, 1),
        (m, n, k, "nt", 1, 3),
        (m, n, k, "tn", 1, 2),
        (m, n, k, "tt", 1, 1),
        (n, m, k, "tt", 1, 1),
    ]
    assert mode.problems[2].ops == ["mm", "addmm"]


def test_batched_products_record_their_batch_and_layout():
    with gemmtune.CaptureMode() as mode:
        torch.bmm(torch.randn(3, 5, 7), torch.randn(3, 11, 7).transpose(1, 2))
        torch.baddbmm(torch.randn(3, 5, 11), torch.randn(3, 7, 5).transpose(1, 2), torch.randn(3, 7, 11))
        torch.randn(2, 4, 5, 7) @ torch.randn(2, 4, 7, 11)  # 4-D matmul: one bmm of 8
        torch.randn(2, 5, 7) @ torch.randn(7, 11)  # 3-D @ 2-D folds into one mm of 10 rows
    assert rows(mode) == [(5, 11, 7, "nt", 3, 1), (5, 11, 7, "tn", 3, 1), (5, 11, 7, "nn", 8, 1), (10, 11, 7, "nn", 1, 1)]


def test_other_dtypes_and_empty_products_are_skipped_and_said_so():
    with gemmtune.CaptureMode() as mode:
        torch.mm(torch.randn(3, 4, dtype=torch.float64), torch.randn(4, 5, dtype=torch.float64))
        torch.mm(torch.randn(0, 4), torch.randn(4, 5))
        torch.mm(torch.randn(3, 4), torch.randn(4, 5))
    assert rows(mode) == [(3, 5, 4, "nn", 1, 1)]
    assert mode.skipped == {"mm on torch.float64": 1, "mm of zero size": 1}
    assert "# skipped: 1 x mm on torch.float64" in mode.csv()
    with pytest.raises(ValueError, match="no float32 matrix product"):
        gemmtune.capture(torch.nn.Linear(4, 5).double(), torch.randn(2, 4, dtype=torch.float64))


def test_backward_adds_the_gradient_products():
    model = torch.nn.Linear(7, 11)
    x = torch.randn(5, 7, requires_grad=True)
    mode = gemmtune.capture(model, x, backward=True)
    # Forward Y = X W^T (nt); backward dX = dY W (nn) and dW = dY^T X, run as dY.t() @ X (tn).
    assert rows(mode) == [(5, 11, 7, "nt", 1, 1), (5, 7, 11, "nn", 1, 1), (11, 7, 5, "tn", 1, 1)]
    assert model.weight.grad is not None and x.grad is not None


def test_the_sweep_reads_the_captured_file(tmp_path, cli):
    path = tmp_path / "shapes" / "block.csv"  # a folder that does not exist yet
    gemmtune.capture(Block(), (torch.randn(2, 37, 125),), path, title="block")
    run = subprocess.run([cli, "sweep", "--file", str(path), "--dry-run", "--db", str(tmp_path / "t.db")], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    for label in ("74x375x125 nt", "37x37x25 nn b10", "37x25x37 nn b10", "74x503x125 nt"):
        assert label in run.stdout, run.stdout
    assert "7 problems" in run.stdout, run.stdout


def test_python_m_gemmtune_capture_writes_the_file(tmp_path):
    out = tmp_path / "mlp.csv"
    entry = f"{HERE / 'models.py'}:mlp"
    run = python_m_gemmtune("capture", entry, "-o", str(out))
    assert run.returncode == 0, run.stderr
    assert "2 problems from 2 float32 matrix products written to" in run.stdout
    lines = [line for line in out.read_text().splitlines() if not line.startswith("#")]
    assert lines == ["m,n,k,layout,batch", "12,1000,257,nt,1  # 1 call: addmm", "12,50257,1000,nt,1  # 1 call: mm"]
    # As a module on the path, and printed when no file is given.
    run = python_m_gemmtune("capture", "models:mlp", cwd=HERE)
    assert run.returncode == 0, run.stderr
    assert "12,50257,1000,nt,1" in run.stdout


@pytest.mark.parametrize(
    "entry,message",
    [
        ("no_colon", "expected module:function"),
        ("/nonexistent/model.py:build", "no file /nonexistent/model.py"),
        (f"{HERE / 'models.py'}:missing", "has no missing"),
        (f"{HERE / 'models.py'}:not_a_pair", "must return (model, example_inputs)"),
        (f"{HERE / 'models.py'}:not_a_model", "not_a_model: gemmtune.capture: model is str, which cannot be called"),
    ],
)
def test_python_m_gemmtune_capture_says_what_is_wrong_with_the_entry_point(entry, message, capsys):
    assert gemmtune.__main__.main(["capture", entry]) == 2
    assert message in capsys.readouterr().err


def test_gemmtunes_own_operators_are_recorded_as_they_run():
    # Fake CUDA tensors: the operators' shapes without a GPU.
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode():
        a, b = torch.empty(5, 7, device="cuda"), torch.empty(9, 7, device="cuda")
        with gemmtune.CaptureMode() as mode:
            gemmtune.mm(a, b.t())
            gemmtune.bmm(a[None].expand(3, 5, 7), b.t()[None].expand(3, 7, 9))
            gemmtune.mm(a, b.t(), out=torch.empty(9, 5, device="cuda").t())  # column-major out
            gemmtune.nn.linear(a[None], b)
    assert rows(mode) == [(5, 9, 7, "nt", 1, 2), (5, 9, 7, "nt", 3, 1), (9, 5, 7, "nt", 1, 1)]
    assert [p.ops for p in mode.problems] == [["mm", "linear"], ["bmm"], ["mm_out"]]


def test_capture_writes_no_file_through_a_link_and_keeps_permissions(tmp_path):
    elsewhere = tmp_path / "elsewhere.csv"
    elsewhere.write_text("not the capture's\n")
    link = tmp_path / "out.csv"
    link.symlink_to(elsewhere)
    with pytest.raises(ValueError, match="symbolic link"):
        gemmtune.capture(torch.nn.Linear(4, 5), torch.randn(2, 4), link)
    assert elsewhere.read_text() == "not the capture's\n"
    kept = tmp_path / "kept.csv"
    kept.write_text("an earlier capture\n")
    kept.chmod(0o640)
    gemmtune.capture(torch.nn.Linear(4, 5), torch.randn(2, 4), kept)
    assert kept.stat().st_mode & 0o777 == 0o640
    assert "an earlier capture" not in kept.read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["elsewhere.csv", "kept.csv", "out.csv"]
