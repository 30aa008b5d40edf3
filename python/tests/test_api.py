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


def test_a_bad_library_path_says_what_was_searched():
    run = _python("import gemmtune; gemmtune.library_path()", GEMMTUNE_LIBRARY="/nonexistent/libgemmtune.so")
    assert run.returncode != 0
    assert "gemmtune.errors.LibraryNotFoundError: libgemmtune.so not found. Looked at:" in run.stderr
    assert "/nonexistent/libgemmtune.so ($GEMMTUNE_LIBRARY: no such file)" in run.stderr
    assert "GEMMTUNE_LIBRARY=/path/to/libgemmtune.so" in run.stderr


def test_a_file_that_is_not_the_library_is_refused(tmp_path):
    bogus = tmp_path / "libgemmtune.so"
    bogus.write_text("not a library")
    run = _python("import gemmtune; gemmtune.library_path()", GEMMTUNE_LIBRARY=str(bogus))
    assert run.returncode != 0
    assert f"$GEMMTUNE_LIBRARY={bogus} could not be loaded" in run.stderr


def test_import_needs_no_library():
    run = _python("import gemmtune, torch; print(gemmtune.__version__)", GEMMTUNE_LIBRARY="/nonexistent/libgemmtune.so")
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == gemmtune.__version__


@needs_no_gpu
def test_without_a_gpu_the_library_says_no_cuda_device():
    with pytest.raises(gemmtune.NoDeviceError, match="no CUDA device") as error:
        gemmtune.explain(64, 64, 64)
    assert error.value.status == 2 and error.value.status_name == "no CUDA device"
    run = subprocess.run([sys.executable, "-m", "gemmtune", "info"], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=str(Path(gemmtune.__file__).parents[1])))
    assert run.returncode == 0, run.stderr
    assert f"library   {gemmtune.library_path()}" in run.stdout
    assert "GPUs      none: gemmtune_create (device 0): no CUDA device" in run.stdout


def test_cpu_tensors_are_refused_naming_the_missing_device():
    hint = "" if torch.cuda.is_available() else r" \(this machine has no CUDA device"
    with pytest.raises(ValueError, match=r"a is on cpu; gemmtune runs on CUDA tensors" + hint):
        gemmtune.mm(torch.randn(3, 4), torch.randn(4, 5))


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


def test_the_library_checks_arguments_and_its_message_becomes_the_exception():
    # Arguments are checked before the handle, so the C API answers without a GPU: lda 3 < K 4.
    lib = _library.library()
    status = lib.gemmtune_sgemm_strided_batched(
        None, _library.ROW_MAJOR, 0, 0, 2, 5, 4, 1.0, 8, 3, 0, 8, 5, 0, 0.0, 8, 5, 10, 1, None
    )
    with pytest.raises(gemmtune.InvalidArgumentError, match=r"lda = 3 is smaller than a row of A") as error:
        _library.check(status, "sgemm")
    assert isinstance(error.value, ValueError) and error.value.status_name == "invalid argument"


def test_bad_arguments_are_exceptions_before_anything_runs():
    with FakeTensorMode():  # CUDA tensors without a GPU: shapes, dtypes and devices only
        a, b = torch.empty(5, 7, device="cuda"), torch.empty(7, 9, device="cuda")
        cases = [
            (lambda: gemmtune.mm(a, a), ValueError, r"cannot be multiplied \(K 7 != 5\)"),
            (lambda: gemmtune.mm(a.double(), b), TypeError, "a is torch.float64; gemmtune runs float32 only"),
            (lambda: gemmtune.mm(a, b[None]), ValueError, "b must be 2-D, got shape"),
            (lambda: gemmtune.mm(a, "b"), TypeError, "b must be a torch.Tensor, not str"),
            (lambda: gemmtune.mm(a, b, beta=1.0), ValueError, "beta = 1.0 needs out="),
            (lambda: gemmtune.mm(a, b, alpha="2"), TypeError, "alpha must be a real number"),
            (lambda: gemmtune.mm(a, b, out=torch.empty(5, 8, device="cuda")), ValueError, r"out has shape \(5, 8\)"),
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


def test_the_operators_trace_as_single_graph_nodes():
    class Model(torch.nn.Module):
        def forward(self, a, b, w):
            x = gemmtune.bmm(a[None], b.t()[None])[0]
            return gemmtune.nn.linear(gemmtune.mm(a, b.t()) + x, w)

    with FakeTensorMode():
        args = (torch.empty(5, 7, device="cuda"), torch.empty(9, 7, device="cuda"), torch.empty(3, 9, device="cuda"))
    program = torch.export.export(Model(), args)
    targets = [str(node.target) for node in program.graph.nodes if node.op == "call_function"]
    assert targets.count("gemmtune.mm.default") == 2 and targets.count("gemmtune.bmm.default") == 1, targets
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


def test_ctypes_prototypes_match_the_header():
    # Every declared function exists in the library and has the header's parameter count; the
    # options struct has the header's fields in order.
    header = Path(__file__).resolve().parents[2] / "runtime" / "include" / "gemmtune" / "gemmtune.h"
    if not header.is_file():
        pytest.skip("not run from a checkout")
    text = header.read_text()
    lib = _library.library()
    for name, (_, argtypes) in _library._PROTOTYPES.items():
        assert getattr(lib, name) is not None
        found = re.search(r"^(?:void|gemmtune_status_t|const char\*)\s+" + name + r"\(([^;]*)\);", text, re.M)
        assert found, f"{name} is not declared in gemmtune.h"
        parameters = 0 if found.group(1).strip() == "void" else found.group(1).count(",") + 1
        assert parameters == len(argtypes), f"{name}: the header has {parameters} parameters, ctypes {len(argtypes)}"
    struct = re.search(r"typedef struct gemmtune_options \{(.*?)\} gemmtune_options;", text, re.S).group(1)
    fields = re.findall(r"^\s*[\w ]+?[\s*]+(\w+);", struct, re.M)
    assert fields == [name for name, _ in _library.Options._fields_]
