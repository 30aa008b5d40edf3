"""gemmtune.mm, bmm, nn.Linear and the custom operators on a GPU, against a float64 reference:
awkward shapes (1, primes, odd leading dimensions, offset pointers), every transpose combination
and output layout, NaN-poisoned outputs, streams, autograd, torch.compile and CUDA Graphs.
Marked `gpu`: skipped without a CUDA device (tools/gpu-python.sh runs them on the GPU machine)."""

from __future__ import annotations

import itertools
import os
import subprocess

import pytest
import torch

import gemmtune

pytestmark = pytest.mark.gpu
EPS32 = 2.0**-23


@pytest.fixture(autouse=True)
def gemmtune_always():
    """Every product on gemmtune (the tests' database is empty: fallback="torch" would run PyTorch)."""
    gemmtune.configure(fallback="never")
    yield
    gemmtune.configure()


@pytest.fixture(autouse=True)
def pedantic_fp32():
    """PyTorch's own products in plain FP32, as gemmtune's (TF32 off)."""
    saved = torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = False
    yield
    torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = saved


def assert_matches(result, a, b, alpha=1.0, beta=0.0, c_before=None):
    """result == alpha a @ b + beta c_before within FP32 rounding: |error| <= K eps (|alpha||a||b| +
    |beta c|) elementwise, the worst case of any summation order (a wrong element is O(1) off)."""
    a64, b64 = a.double(), b.double()
    expected = alpha * (a64 @ b64)
    bound = abs(alpha) * (a64.abs() @ b64.abs())
    if beta != 0.0:
        expected += beta * c_before.double()
        bound += abs(beta) * c_before.double().abs()
    k = a.shape[-1]
    tolerance = (k + 2) * EPS32 * bound + 1e-30
    error = (result.double() - expected).abs()
    assert not result.isnan().any(), "NaN in the result (poisoned output not fully written?)"
    worst = (error - tolerance).argmax()
    assert (error <= tolerance).all(), (
        f"error {error.flatten()[worst]:.3g} > tolerance {tolerance.flatten()[worst]:.3g} at flat index {int(worst)}"
    )


def matrix(rows, cols, kind, batch=None, generator=None):
    """A (batch x) rows x cols float32 CUDA matrix stored as `kind` says: row (packed), col (a
    transposed view), row_ld / col_ld (odd leading dimension), offset (pointer one float off)."""
    lead = (batch,) if batch is not None else ()

    def rand(*shape):
        return torch.rand(*shape, generator=generator, device="cuda") * 2 - 1

    if kind == "row":
        return rand(*lead, rows, cols)
    if kind == "col":
        return rand(*lead, cols, rows).transpose(-2, -1)
    if kind == "row_ld":
        return rand(*lead, rows, cols + 3)[..., :cols]
    if kind == "col_ld":
        return rand(*lead, cols, rows + 5)[..., :rows].transpose(-2, -1)
    if kind == "offset":
        n = (batch or 1) * rows * cols
        return rand(n + 1)[1:].view(*lead, rows, cols)
    raise ValueError(kind)


SHAPES = [(1, 1, 1), (1, 257, 1023), (127, 1, 33), (31, 37, 41), (513, 257, 1), (67, 1031, 129), (2, 3, 4999)]
KINDS = ("row", "col")


def generator(seed):
    return torch.Generator(device="cuda").manual_seed(seed)


@pytest.mark.parametrize("m,n,k", SHAPES)
def test_mm_every_transpose_and_output_layout_on_awkward_shapes(m, n, k):
    g = generator(m * n + k)
    for a_kind, b_kind, c_kind in itertools.product(KINDS + ("row_ld", "offset"), KINDS + ("col_ld",), KINDS + ("row_ld",)):
        a, b = matrix(m, k, a_kind, generator=g), matrix(k, n, b_kind, generator=g)
        out = matrix(m, n, c_kind, generator=g)
        storage = torch.empty(0, device="cuda").set_(out.untyped_storage())
        storage.fill_(float("nan"))  # beta = 0 must not read C, and every element must be written
        if c_kind == "row_ld":  # the padding beside C's rows must stay as it was
            padding = storage.view(m, n + 3)[:, n:]
            padding.fill_(7.0)
        result = gemmtune.mm(a, b, out=out)
        assert result is out
        assert_matches(out, a, b)
        if c_kind == "row_ld":
            assert (padding == 7.0).all(), f"wrote beside C: {a_kind} {b_kind} {c_kind}"
        assert_matches(gemmtune.mm(a, b), a, b)  # a new output


@pytest.mark.parametrize("m,n,k", [(31, 37, 41), (1, 257, 1023), (129, 65, 1)])
def test_mm_alpha_beta_and_scaling_only_cases(m, n, k):
    g = generator(1)
    for a_kind, b_kind in itertools.product(KINDS, KINDS):
        a, b, c = matrix(m, k, a_kind, generator=g), matrix(k, n, b_kind, generator=g), matrix(m, n, "col", generator=g)
        before = c.clone()
        gemmtune.mm(a, b, out=c, alpha=-1.5, beta=0.25)
        assert_matches(c, a, b, -1.5, 0.25, before)
    # K = 0: C = beta C; M = 0: nothing.
    c = torch.ones(3, 4, device="cuda")
    gemmtune.mm(torch.empty(3, 0, device="cuda"), torch.empty(0, 4, device="cuda"), out=c, beta=0.5)
    assert (c == 0.5).all()
    assert gemmtune.mm(torch.empty(0, 5, device="cuda"), torch.empty(5, 4, device="cuda")).shape == (0, 4)


@pytest.mark.parametrize("batch,m,n,k", [(1, 31, 37, 41), (3, 1, 257, 129), (7, 33, 1, 65), (5, 127, 129, 63), (2, 50, 50, 1)])
def test_bmm_every_transpose_broadcast_batches_and_poisoned_output(batch, m, n, k):
    g = generator(batch * 1000 + m)
    for a_kind, b_kind, c_kind in itertools.product(KINDS + ("offset",), KINDS + ("col_ld",), KINDS):
        a, b = matrix(m, k, a_kind, batch, g), matrix(k, n, b_kind, batch, g)
        out = matrix(m, n, c_kind, batch, g).fill_(float("nan"))
        gemmtune.bmm(a, b, out=out)
        assert_matches(out, a, b)
    # One matrix of A or B for every batch (stride 0), and an output whose batch is innermost (copied).
    a1 = matrix(m, k, "row", 1, g).expand(batch, m, k)
    b = matrix(k, n, "col", batch, g)
    assert_matches(gemmtune.bmm(a1, b), a1, b)
    out = torch.full((m, n, batch), float("nan"), device="cuda").permute(2, 0, 1)
    gemmtune.bmm(a1, b, out=out, alpha=2.0)
    assert_matches(out, a1, b, 2.0)


def test_strides_no_leading_dimension_describes_are_copied():
    g = generator(2)
    a = matrix(62, 82, "row", generator=g)[::2, ::2]  # 31 x 41, every stride above 1
    b = matrix(41, 1, "row", generator=g).expand(41, 37)  # a zero stride
    out = torch.full((62, 74), float("nan"), device="cuda")[::2, ::2]  # 31 x 37, every stride above 1
    gemmtune.mm(a, b, out=out)
    assert_matches(out, a, b)
    assert_matches(gemmtune.mm(a, b), a, b)
    with pytest.raises(ValueError, match="out overlaps an input"):
        x = torch.rand(8, 8, device="cuda")
        gemmtune.mm(x, x, out=x)
    with pytest.raises(ValueError, match="zero stride"):
        gemmtune.mm(a, b, out=torch.empty(1, 37, device="cuda").expand(31, 37))


def test_runs_on_the_current_stream():
    g = generator(3)
    a, b = matrix(513, 1023, "row", generator=g), matrix(1023, 257, "col", generator=g)
    src = a.clone() + 1
    stream = torch.cuda.Stream()  # PyTorch's streams do not wait for the legacy default stream
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        torch.cuda._sleep(50_000_000)  # a long kernel first: a product on another stream would overtake it
        a.copy_(src)
        c = gemmtune.mm(a, b)
    stream.synchronize()
    assert_matches(c, src, b)


def test_opcheck_and_autograd_match_pytorch():
    g = generator(4)
    a, b = matrix(37, 41, "row", generator=g), matrix(41, 29, "col", generator=g)
    for op, args in [
        (torch.ops.gemmtune.mm.default, (a, b, 1.5)),
        (torch.ops.gemmtune.bmm.default, (a[None].repeat(3, 1, 1), b[None].repeat(3, 1, 1), 0.5)),
        (torch.ops.gemmtune.mm_out.default, (a, b, torch.empty(37, 29, device="cuda"), 1.0, 0.0)),
        (torch.ops.gemmtune.linear.default, (a[None].repeat(2, 1, 1), b.t().contiguous(), torch.rand(29, device="cuda"))),
    ]:
        torch.library.opcheck(op, args, test_utils=("test_schema", "test_faketensor", "test_aot_dispatch_dynamic"))
    x = a.clone().requires_grad_()
    w = b.clone().requires_grad_()
    y = gemmtune.mm(x, w, alpha=2.0)
    grad = torch.rand_like(y)
    y.backward(grad)
    x_ref, w_ref = a.clone().requires_grad_(), b.clone().requires_grad_()
    (2.0 * x_ref @ w_ref).backward(grad)
    torch.testing.assert_close(x.grad, x_ref.grad, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(w.grad, w_ref.grad, rtol=1e-5, atol=1e-5)


def assert_close_norm(got, want, tolerance=1e-4):
    """||got - want|| / ||want|| below `tolerance`: two FP32 summation orders agree to about
    sqrt(K) eps; a wrong element is O(1) off."""
    relative = ((got.double() - want.double()).norm() / want.double().norm()).item()
    assert relative < tolerance, f"relative error {relative:.3g}"


def test_linear_and_swapped_model_match_pytorch_with_gradients():
    torch.manual_seed(5)
    model = torch.nn.Sequential(torch.nn.Linear(257, 1000), torch.nn.GELU(), torch.nn.Linear(1000, 50257, bias=False)).cuda()
    x = torch.randn(3, 37, 257, device="cuda")
    expected = model(x)
    expected.square().sum().backward()
    grads = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    assert gemmtune.nn.swap_linear(model) == 2
    result = model(x)
    assert_close_norm(result, expected)
    result.square().sum().backward()
    for got, want in zip([p.grad for p in model.parameters()], grads):
        assert_close_norm(got, want)
    with torch.autocast("cuda", dtype=torch.bfloat16), gemmtune.CaptureMode() as mode:
        assert model(x).dtype == torch.bfloat16  # autocast's precision: PyTorch's own linear
    assert all(p.ops != ["mm"] for p in mode.problems) and mode.skipped


def test_under_torch_compile():
    g = generator(6)
    a, b, w = matrix(127, 257, "row", generator=g), matrix(129, 257, "row", generator=g), matrix(17, 129, "row", generator=g)

    def f(a, b, w):
        h = torch.relu(gemmtune.mm(a, b.t(), alpha=0.5))
        return gemmtune.nn.linear(h, w) + gemmtune.bmm(h[None], w.t()[None])[0]

    compiled = torch.compile(f, fullgraph=True)
    expected = f(a, b, w)
    torch.testing.assert_close(compiled(a, b, w), expected, rtol=1e-5, atol=1e-5)
    h = torch.relu(0.5 * a.double() @ b.double().t())
    torch.testing.assert_close(expected.double(), 2 * h @ w.double().t(), rtol=1e-4, atol=1e-4)


def test_cuda_graph_capture_after_a_warm_up_on_the_capture_stream():
    g = generator(7)
    a, b = matrix(64, 4096, "row", generator=g), matrix(4096, 64, "row", generator=g)
    out = torch.empty(64, 64, device="cuda")
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):  # loads the kernel and the stream's workspaces
        gemmtune.mm(a, b, out=out)
    stream.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=stream):
        gemmtune.mm(a, b, out=out)
    a.mul_(2)
    out.fill_(float("nan"))
    graph.replay()
    torch.cuda.synchronize()
    assert_matches(out, a, b)


def test_capture_of_a_swapped_model_on_the_gpu_records_what_runs(tmp_path):
    torch.manual_seed(8)
    model = torch.nn.Sequential(torch.nn.Linear(257, 1000), torch.nn.ReLU(), torch.nn.Linear(1000, 503))
    x = torch.randn(3, 37, 257)
    on_cpu = gemmtune.capture(model, (x,)).problems
    model = model.cuda()
    gemmtune.nn.swap_linear(model)
    on_gpu = gemmtune.capture(model, (x.cuda(),)).problems
    assert [(p.m, p.n, p.k, p.layout, p.batch) for p in on_gpu] == [(p.m, p.n, p.k, p.layout, p.batch) for p in on_cpu]
    assert all(p.ops == ["linear"] for p in on_gpu)  # gemmtune::linear, not aten's


def test_explain_and_configure(tmp_path):
    try:
        gemmtune.configure(db_path=str(tmp_path / "none.db"), db_access="none")
        text = gemmtune.explain(1000, 50257, 999, layout="nt")
        assert "kernel   sgemm_nt_" in text and "source   builtin" in text, text
        assert "runs     PyTorch: no tuned result" in text, text  # configure's default fallback
        a, b = torch.rand(5, 7, device="cuda"), torch.rand(7, 3, device="cuda")
        assert_matches(gemmtune.mm(a, b), a, b)
    finally:
        gemmtune.configure()
    with pytest.raises(ValueError, match="layout = 'nx'"):
        gemmtune.explain(8, 8, 8, layout="nx")


def test_configure_takes_a_bytes_or_path_like_database_path(tmp_path):
    # bytes were accepted and failed later (issue 55); now decoded as the file system does.
    for given in (os.fsencode(tmp_path / "bytes.db"), tmp_path / "path.db"):
        try:
            gemmtune.configure(db_path=given, db_access="read_write")
            text = gemmtune.explain(64, 64, 64)
        finally:
            gemmtune.configure()
        assert f"database {os.fsdecode(given)}" in text, text


@pytest.mark.parametrize("shape", [(37,), (3, 37), (2, 5, 37)])
def test_linear_with_and_without_bias_and_its_gradients(shape):
    g = generator(9)
    x = (torch.rand(*shape[:-1], 257, generator=g, device="cuda") * 2 - 1).requires_grad_()
    w = (torch.rand(129, 257, generator=g, device="cuda") * 2 - 1).requires_grad_()
    bias = (torch.rand(129, generator=g, device="cuda") * 2 - 1).requires_grad_()
    for b in (bias, None):
        y = gemmtune.nn.linear(x, w, b)
        assert y.shape == (*shape[:-1], 129)
        x2 = x.detach().reshape(-1, 257)
        expected = x2.double() @ w.detach().double().t() + (b.detach().double() if b is not None else 0)
        assert_close_norm(y.reshape(-1, 129), expected, 1e-5)
        grad = torch.rand_like(y)
        y.backward(grad)
        g2 = grad.reshape(-1, 129).double()
        assert_close_norm(x.grad.reshape(-1, 257), g2 @ w.detach().double(), 1e-5)
        assert_close_norm(w.grad, g2.t() @ x2.double(), 1e-5)
        if b is not None:
            assert_close_norm(bias.grad, g2.sum(0), 1e-5)
        x.grad = w.grad = bias.grad = None


def test_out_forms_refuse_autograd_and_bump_the_version():
    a = torch.rand(8, 8, device="cuda", requires_grad=True)
    with pytest.raises(RuntimeError, match="out= does not support autograd"):
        gemmtune.mm(a, a.detach(), out=torch.empty(8, 8, device="cuda"))
    out = torch.empty(8, 8, device="cuda")
    before = out._version
    gemmtune.mm(a.detach(), a.detach(), out=out)
    assert out._version > before


def test_fallback_runs_pytorch_where_gemmtune_has_no_tuned_result(tmp_path):
    # An empty database: nothing is tuned, so under the default fallback every product is
    # PyTorch's own, and explain says so; "never" runs gemmtune.
    g = generator(10)
    a, b = matrix(67, 129, "row", generator=g), matrix(129, 33, "col", generator=g)
    try:
        gemmtune.configure(db_path=str(tmp_path / "empty.db"), db_access="none")
        text = gemmtune.explain(67, 33, 129, layout="nt")
        assert "runs     PyTorch: no tuned result" in text, text
        out = torch.full((67, 33), float("nan"), device="cuda")
        with gemmtune.CaptureMode() as mode:  # PyTorch's product runs inside the operator
            gemmtune.mm(a, b, out=out, alpha=0.5)
        assert_matches(out, a, b, 0.5)
        assert [p.ops for p in mode.problems] == [["mm_out"]]
        assert_matches(gemmtune.bmm(a[None], b[None])[0], a, b)
        gemmtune.configure(db_path=str(tmp_path / "empty.db"), db_access="none", fallback="never")
        assert "runs     gemmtune" in gemmtune.explain(67, 33, 129, layout="nt")
        assert_matches(gemmtune.mm(a, b), a, b)
    finally:
        gemmtune.configure(fallback="never")


def test_cuda_graph_of_a_swapped_model_and_compiled_model():
    torch.manual_seed(11)
    model = torch.nn.Sequential(torch.nn.Linear(257, 509), torch.nn.GELU(), torch.nn.Linear(509, 127)).cuda()
    x = torch.randn(7, 257, device="cuda")
    expected = model(x).detach()
    gemmtune.nn.swap_linear(model)
    compiled = torch.compile(model, fullgraph=True)
    # Training: AOT autograd traces the C++ autograd of gemmtune::linear.
    compiled(x).square().sum().backward()
    grads = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    model(x).square().sum().backward()
    for got, want in zip(grads, [p.grad for p in model.parameters()]):
        assert_close_norm(got, want)
    with torch.no_grad():
        assert_close_norm(compiled(x), expected)
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            model(x)  # loads the kernels on the capture stream
        stream.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, stream=stream):
            y = model(x)
        x.mul_(-1)
        graph.replay()
        torch.cuda.synchronize()
        assert_close_norm(y, model(x))


def test_a_tuned_split_k_kernel_takes_its_workspace_from_pytorchs_allocator(tmp_path, cli):
    # A database whose only result for 128x128x16384 nn is a split-K config (8 splits, whose tile
    # counters live in a workspace), tuned by the real `gemmtune sweep` next to cuBLAS.
    db = tmp_path / "split_k.db"
    name = "sgemm_nn_64x64x8_w32x32_t4x8_s2_v4_p4_k8_r8"
    sweep = subprocess.run([cli, "sweep", "--shape", "128x128x16384", "--config", name, "--db", str(db)],
                           capture_output=True, text=True, timeout=600)
    assert sweep.returncode == 0, sweep.stdout + sweep.stderr
    g = generator(12)
    a, b = matrix(128, 16384, "row", generator=g), matrix(16384, 128, "row", generator=g)
    try:
        # The default fallback: gemmtune where the tuned kernel beat cuBLAS, else PyTorch; either
        # way the explanation says which, and the result is right.
        gemmtune.configure(db_path=str(db))
        text = gemmtune.explain(128, 128, 16384)
        assert "source   exact" in text and name in text, text
        runs = [line for line in text.splitlines() if line.startswith("runs     ")]
        assert len(runs) == 1 and runs[0].startswith(
            ("runs     gemmtune: tuned ", "runs     PyTorch: the tuned kernel was not faster than cuBLAS")
        ), text
        assert_matches(gemmtune.mm(a, b), a, b)
        # Forced onto gemmtune: its workspace comes from PyTorch's caching allocator, and goes back
        # when the dispatcher is dropped.
        gemmtune.configure(db_path=str(db), fallback="never")
        out = torch.full((128, 128), float("nan"), device="cuda")
        torch.cuda.synchronize()
        before = torch.cuda.memory_allocated()
        gemmtune.mm(a, b, out=out)
        torch.cuda.synchronize()
        assert torch.cuda.memory_allocated() > before, "the split-K workspace is not PyTorch's memory"
        assert_matches(out, a, b)
        gemmtune.configure()
        assert torch.cuda.memory_allocated() == before
    finally:
        gemmtune.configure(fallback="never")
