"""The package without a GPU: it installs and imports, finds (or clearly fails to find) the library,
reports a missing CUDA device, turns bad arguments and the library's own errors into exceptions,
traces under torch.export, and nn.Linear keeps PyTorch's behaviour where gemmtune cannot run."""

from __future__ import annotations

import ctypes
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from torch._subclasses.fake_tensor import FakeTensorMode

import gemmtune
from gemmtune import _library

needs_no_gpu = pytest.mark.skipif(torch.cuda.is_available(), reason="checks the behaviour on a machine without a GPU")


def test_the_installed_package_is_the_one_imported():
    if os.environ.get("GEMMTUNE_EXPECT_INSTALLED") != "1":
        pytest.skip("run from the source tree (tools/python-test.sh sets GEMMTUNE_EXPECT_INSTALLED=1 after pip install)")
    assert "site-packages" in gemmtune.__file__, gemmtune.__file__


def _python(code: str, **env) -> subprocess.CompletedProcess:
    path = str(Path(gemmtune.__file__).parents[1])
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=path, **env)
    )


def test_a_bad_operator_library_path_says_what_was_searched():
    run = _python("import gemmtune; gemmtune.library_path()", GEMMTUNE_OPS_LIBRARY="/nonexistent/_C.abi3.so")
    assert run.returncode != 0
    assert "gemmtune.errors.LibraryNotFoundError: gemmtune's operator library not found. Looked at:" in run.stderr
    assert "/nonexistent/_C.abi3.so ($GEMMTUNE_OPS_LIBRARY: no such file)" in run.stderr
    assert "pip install ./python" in run.stderr
    run = _python("import gemmtune; gemmtune.library_path()", GEMMTUNE_LIBRARY="/nonexistent/libgemmtune.so")
    assert "$GEMMTUNE_LIBRARY=/nonexistent/libgemmtune.so: no such file" in run.stderr


def test_a_file_that_is_not_the_library_is_refused(tmp_path):
    bogus = tmp_path / "_C.abi3.so"
    bogus.write_text("not a library")
    run = _python("import gemmtune; gemmtune.library_path()", GEMMTUNE_OPS_LIBRARY=str(bogus))
    assert run.returncode != 0
    assert f"{bogus} ($GEMMTUNE_OPS_LIBRARY) could not be loaded" in run.stderr


def test_import_needs_no_library():
    run = _python("import gemmtune, torch; print(gemmtune.__version__)", GEMMTUNE_OPS_LIBRARY="/nonexistent/_C.abi3.so")
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == gemmtune.__version__


def test_the_operator_library_loads_alone_in_a_fresh_interpreter():
    # No gemmtune package, no Python bindings: torch.ops.load_library registers the operators,
    # their Meta kernels trace shapes and the layout mapping answers.
    code = (
        "import sys, torch; torch.ops.load_library(sys.argv[1]); "
        "print(torch.ops.gemmtune.mm.default._schema); "
        "print(tuple(torch.ops.gemmtune.linear(torch.empty(2, 3, 5, device='meta'), torch.empty(7, 5, device='meta')).shape)); "
        "print(torch.ops.gemmtune.plan([5, 7], [1, 5], [7, 9], [9, 1], [5, 9], [9, 1]))"
    )
    run = subprocess.run([sys.executable, "-c", code, gemmtune.ops_library_path()], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == "gemmtune::mm(Tensor a, Tensor b, float alpha=1.) -> Tensor"
    assert lines[1] == "(2, 3, 7)"
    assert lines[2] == "[5, 9, 7, 1, 1, 0, 5, 9, 9, 0, 0, 45, 0, 0, 0, 0]"  # "tn": a column-major A, lda 5


def test_the_installed_operator_library_carries_libgemmtune():
    if os.environ.get("GEMMTUNE_EXPECT_INSTALLED") != "1":
        pytest.skip("run from the source tree")
    assert Path(gemmtune.library_path()).parent == Path(gemmtune.ops_library_path()).parent / "lib"


@needs_no_gpu
def test_without_a_gpu_the_library_says_no_cuda_device():
    with pytest.raises(gemmtune.NoDeviceError, match="no CUDA device") as error:
        gemmtune.explain(64, 64, 64)
    assert error.value.status == 2 and error.value.status_name == "no CUDA device"
    assert not str(error.value).startswith("[gemmtune status")
    # The operator's own error carries the status, which the Python layer maps.
    with pytest.raises(RuntimeError, match=r"^\[gemmtune status 2: no CUDA device\] gemmtune.explain") as raw:
        torch.ops.gemmtune.explain(64, 64, 64)
    assert type(gemmtune.errors.from_torch(raw.value)) is gemmtune.NoDeviceError
    assert gemmtune.errors.from_torch(RuntimeError("something else")) is None
    run = subprocess.run([sys.executable, "-m", "gemmtune", "info"], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=str(Path(gemmtune.__file__).parents[1])))
    assert run.returncode == 0, run.stderr
    assert f"library   {gemmtune.library_path()}" in run.stdout
    assert re.search(r"GPUs      none: gemmtune.explain \(device 0, .*\): no CUDA device", run.stdout), run.stdout


def test_cpu_tensors_are_refused_naming_the_missing_device():
    hint = "" if torch.cuda.is_available() else r" \(this machine has no CUDA device\)"
    with pytest.raises(ValueError, match=r"gemmtune.mm: a is on cpu; gemmtune runs on CUDA tensors" + hint):
        gemmtune.mm(torch.randn(3, 4), torch.randn(4, 5))
    with pytest.raises(ValueError, match=r"gemmtune.bmm: a is on cpu"):
        gemmtune.bmm(torch.randn(2, 3, 4), torch.randn(2, 4, 5), out=torch.empty(2, 3, 5))


def _compile(tmp_path, name, source, *flags):
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    c = tmp_path / f"{name}.c"
    c.write_text(source)
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(tmp_path / name), str(c), *flags], check=True)


def test_a_library_the_linker_cannot_find_is_taken_from_a_cuda_wheel_folder(tmp_path, monkeypatch):
    # As libgemmtune.so needing libnvrtc.so.13 that only PyTorch's nvidia-cuda-nvrtc wheel holds.
    wheel = tmp_path / "site" / "nvidia" / "cu99" / "lib"
    wheel.mkdir(parents=True)
    _compile(wheel, "libgtdep.so.7", "int gt_dep(void) { return 42; }", "-Wl,-soname,libgtdep.so.7")
    source = "int gt_dep(void); int gt_main(void) { return gt_dep() + 1; }"
    _compile(tmp_path, "libgtmain.so", source, f"-L{wheel}", "-l:libgtdep.so.7")
    with pytest.raises(OSError, match="libgtdep.so.7: cannot open shared object file"):
        ctypes.CDLL(str(tmp_path / "libgtmain.so"))
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    assert _library._load(str(tmp_path / "libgtmain.so")).gt_main() == 43
    # Nowhere to be found: the error names it and what to do.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    _compile(elsewhere, "libgtgone.so.3", "int gt_gone(void) { return 1; }", "-Wl,-soname,libgtgone.so.3")
    _compile(tmp_path, "libgtorphan.so", "int gt_gone(void); int gt_orphan(void) { return gt_gone(); }", f"-L{elsewhere}", "-l:libgtgone.so.3")
    (elsewhere / "libgtgone.so.3").unlink()
    with pytest.raises(gemmtune.LibraryNotFoundError, match=r"libgtorphan.so needs libgtgone.so.3, which neither .* found: install the CUDA Toolkit"):
        _library._load(str(tmp_path / "libgtorphan.so"))


def test_bad_arguments_are_exceptions_before_anything_runs():
    with FakeTensorMode():  # CUDA tensors without a GPU: shapes, dtypes and devices only
        a, b = torch.empty(5, 7, device="cuda"), torch.empty(7, 9, device="cuda")
        cases = [
            (lambda: gemmtune.mm(a, a), ValueError, r"cannot be multiplied \(K 7 != 5\)"),
            (lambda: gemmtune.mm(a.double(), b), TypeError, "a is Double; gemmtune runs float32 only"),
            (lambda: gemmtune.mm(a, b[None]), ValueError, r"b must be 2-D, got shape \[1, 7, 9\]"),
            (lambda: gemmtune.mm(a, "b"), TypeError, "gemmtune.mm: b is str, not a torch.Tensor"),
            (lambda: gemmtune.mm(a, b, beta=1.0), ValueError, "beta = 1.0 needs out="),
            (lambda: gemmtune.mm(a, b, alpha="2"), TypeError, "gemmtune.mm: alpha = '2' is str: pass a Python float"),
            (lambda: gemmtune.mm(a, b, out=torch.empty(5, 8, device="cuda")), ValueError, r"out has shape \[5, 8\], the product's is \[5, 9\]"),
            (lambda: gemmtune.nn.linear(a, b), ValueError, r"x \[5, 7\] and weight \[7, 9\] do not fit"),
            (lambda: gemmtune.bmm(a[None].expand(2, 5, 7), b[None]), ValueError, "batch sizes differ"),
            (lambda: gemmtune.bmm(a, b), ValueError, "a must be 3-D"),
        ]
        for call, exception, message in cases:
            with pytest.raises(exception, match=message):
                call()
    with pytest.raises(ValueError, match="db_access = 'sometimes'"):
        gemmtune.configure(db_access="sometimes")
    with pytest.raises(ValueError, match="precision = 'fp16'"):
        gemmtune.configure(precision="fp16")
    with pytest.raises(ValueError, match="fallback = 'sometimes'"):
        gemmtune.configure(fallback="sometimes")
    with pytest.raises(ValueError, match="fallback = 'sometimes'"):  # the operator checks too
        torch.ops.gemmtune.configure(fallback="sometimes")


def test_the_operators_trace_as_single_graph_nodes():
    class Model(torch.nn.Module):
        def forward(self, a, b, w):
            x = gemmtune.bmm(a[None], b.t()[None])[0]
            return gemmtune.nn.linear(gemmtune.mm(a, b.t()) + x, w)

    with FakeTensorMode():
        args = (torch.empty(5, 7, device="cuda"), torch.empty(9, 7, device="cuda"), torch.empty(3, 9, device="cuda"))
    program = torch.export.export(Model(), args)
    targets = [str(node.target) for node in program.graph.nodes if node.op == "call_function"]
    assert [targets.count(f"gemmtune.{op}.default") for op in ("mm", "bmm", "linear")] == [1, 1, 1], targets
    out = [node for node in program.graph.nodes if node.op == "output"][0]
    assert tuple(out.args[0][0].meta["val"].shape) == (5, 3)


def test_linear_on_cpu_is_pytorchs_and_swap_shares_parameters():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(7, 11), torch.nn.ReLU(), torch.nn.Sequential(torch.nn.Linear(11, 3, bias=False)))
    x = torch.randn(4, 2, 7)
    expected = model(x)
    weights = [m.weight for m in model.modules() if isinstance(m, torch.nn.Linear)]
    assert gemmtune.nn.swap_linear(model) == 2
    layers = [m for m in model.modules() if isinstance(m, torch.nn.Linear)]
    assert all(type(m) is gemmtune.nn.Linear for m in layers)
    assert [m.weight for m in layers] == weights  # the same Parameter objects: optimizers keep working
    assert torch.equal(model(x), expected)  # CPU: PyTorch's own linear
    assert gemmtune.nn.swap_linear(model) == 0
    with pytest.raises(TypeError, match="from_linear"):
        gemmtune.nn.swap_linear(torch.nn.Linear(2, 2))
    only_first = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Linear(2, 2))
    assert gemmtune.nn.swap_linear(only_first, where=lambda name, layer: name == "0") == 1
    assert type(only_first[1]) is torch.nn.Linear


def test_opcheck_on_meta_tensors():
    # The registrations (schemas, Meta kernels, autograd) as torch.library.opcheck checks them,
    # without a GPU: on meta tensors only the Meta kernels run.
    a, b = torch.empty(5, 7, device="meta"), torch.empty(7, 9, device="meta")
    w, bias = torch.empty(11, 7, device="meta"), torch.empty(11, device="meta")
    cases = [
        (torch.ops.gemmtune.mm.default, (a, b, 1.5)),
        (torch.ops.gemmtune.bmm.default, (a[None].expand(3, 5, 7), b[None].expand(3, 7, 9), 0.5)),
        (torch.ops.gemmtune.mm_out.default, (a, b, torch.empty(5, 9, device="meta"), 1.0, 0.0)),
        (torch.ops.gemmtune.bmm_out.default, (a[None], b[None], torch.empty(1, 5, 9, device="meta"), 2.0, 0.5)),
        (torch.ops.gemmtune.linear.default, (torch.empty(2, 3, 7, device="meta"), w, bias)),
        (torch.ops.gemmtune.linear.default, (a, w, None)),
    ]
    for op, args in cases:
        torch.library.opcheck(op, args, test_utils=("test_schema", "test_faketensor", "test_aot_dispatch_dynamic"))


def test_linear_outside_gemmtune_is_pytorchs_with_autograd():
    # CPU, float64: PyTorch's own linear, with PyTorch's autograd.
    torch.manual_seed(1)
    x = torch.randn(2, 3, 7, dtype=torch.float64, requires_grad=True)
    w = torch.randn(5, 7, dtype=torch.float64, requires_grad=True)
    bias = torch.randn(5, dtype=torch.float64, requires_grad=True)
    y = gemmtune.nn.linear(x, w, bias)
    assert torch.equal(y, torch.nn.functional.linear(x, w, bias))
    y.sum().backward()
    assert torch.allclose(w.grad, x.detach().reshape(-1, 7).sum(0).expand(5, 7))


def test_linear_under_torch_compile_fullgraph_on_cpu():
    # Dynamo through the Python wrapper and AOT autograd through the C++ autograd and Meta kernels
    # (aot_eager: no code generation); on CPU the operator runs PyTorch's linear.
    torch.manual_seed(2)
    x = torch.randn(3, 5, 7, requires_grad=True)
    w = torch.randn(11, 7, requires_grad=True)
    bias = torch.randn(11, requires_grad=True)
    compiled = torch.compile(lambda x, w, b: gemmtune.nn.linear(x, w, b).relu(), fullgraph=True, backend="aot_eager")
    y = compiled(x, w, bias)
    torch.testing.assert_close(y, torch.nn.functional.linear(x, w, bias).relu())
    y.sum().backward()
    assert x.grad is not None and w.grad is not None and bias.grad is not None


def test_autograd_of_the_operators_on_fake_cuda_tensors():
    # The C++ autograd (its nodes, their backward through the operators' Meta kernels), without a
    # GPU. The nodes are called directly: the autograd engine wants a CUDA device for CUDA tensors.
    with FakeTensorMode():
        x = torch.empty(2, 3, 7, device="cuda", requires_grad=True)
        w = torch.empty(5, 7, device="cuda", requires_grad=True)
        bias = torch.empty(5, device="cuda", requires_grad=True)
        y = gemmtune.nn.linear(x, w, bias)
        assert y.shape == (2, 3, 5) and "LinearFunction" in y.grad_fn.name(), y.grad_fn.name()
        grads = y.grad_fn(torch.empty(2, 3, 5, device="cuda"))
        assert [g.shape for g in grads] == [x.shape, w.shape, bias.shape]
        assert len(gemmtune.nn.linear(x, w).grad_fn(torch.empty(2, 3, 5, device="cuda"))) == 2  # no bias, no edge
        z = gemmtune.bmm(x[:1], w.t()[None], alpha=2.0)
        assert "ProductFunction" in z.grad_fn.name(), z.grad_fn.name()
        assert [g.shape for g in z.grad_fn(torch.empty(1, 3, 5, device="cuda"))] == [(1, 3, 7), (1, 7, 5)]
        with torch.no_grad():  # nothing recorded: straight to the kernels
            assert gemmtune.mm(x[0], w.t()).grad_fn is None
        with pytest.raises(RuntimeError, match="out= does not support autograd"):
            gemmtune.mm(x[0], w.t(), out=torch.empty(3, 5, device="cuda"))
