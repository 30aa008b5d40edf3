"""Every public function of the package refuses arguments of the wrong kind or value with a TypeError or
ValueError that names the argument, before anything runs; and a seeded random loop of bad arguments
over all of them raises nothing else. No GPU: tensors are fake CUDA tensors (FakeTensorMode) or CPU
tensors, and a call that gets as far as the library meets its no-CUDA-device error."""

from __future__ import annotations

import os
import random
from pathlib import Path

import numpy
import pytest
import torch
from torch._subclasses.fake_tensor import FakeTensorMode

import gemmtune


@pytest.fixture(autouse=True)
def default_options():
    gemmtune.ops_library_path()  # loads the operator library: torch.ops.gemmtune exists from here on
    yield
    gemmtune.configure()


def fake_cuda(*shape):
    return torch.empty(*shape, device="cuda")


def test_tensor_arguments_of_another_kind_are_type_errors():
    # mm(None, None) failed with an AttributeError in early versions (issue 55).
    with pytest.raises(TypeError, match=r"^gemmtune.mm: a is NoneType, not a torch.Tensor: pass a float32 CUDA tensor$"):
        gemmtune.mm(None, None)
    with pytest.raises(TypeError, match=r"gemmtune.bmm: b is numpy.ndarray, not a torch.Tensor: .*\(torch.from_numpy"):
        gemmtune.bmm(torch.empty(2, 3, 4), numpy.zeros((2, 4, 5), numpy.float32))
    with pytest.raises(TypeError, match="gemmtune.nn.linear: x is list"):
        gemmtune.nn.linear([[1.0]], torch.empty(1, 1))
    alpha_tensor = torch.tensor(2.0)
    with FakeTensorMode():
        a, b = fake_cuda(5, 7), fake_cuda(7, 9)
        cases = [
            (lambda: gemmtune.mm(a, "b"), "gemmtune.mm: b is str, not a torch.Tensor"),
            (lambda: gemmtune.mm(a, b, out=[0.0]), "gemmtune.mm: out is list, not a torch.Tensor"),
            (lambda: gemmtune.mm(a, b, alpha="2"), r"gemmtune.mm: alpha = '2' is str: pass a Python float$"),
            (lambda: gemmtune.mm(a, b, alpha=alpha_tensor), r"alpha = tensor\(2.\) is torch.Tensor: pass a Python float \(alpha.item\(\)"),
            (lambda: gemmtune.mm(a, b, beta=None), "gemmtune.mm: beta = None is NoneType: pass a Python float"),
            (lambda: gemmtune.bmm(a[None], b[None], out=fake_cuda(1, 5, 9), beta="1"), "gemmtune.bmm: beta = '1' is str"),
            (lambda: gemmtune.nn.linear(a, fake_cuda(3, 7), bias=1.0), "gemmtune.nn.linear: bias is float, not a torch.Tensor"),
            (lambda: gemmtune.nn.Linear(7, 3, device="meta")(None), "gemmtune.nn.linear: x is NoneType"),
        ]
        for call, message in cases:
            with pytest.raises(TypeError, match=message):
                call()
        # The right kinds still reach the operator's own checks.
        with pytest.raises(ValueError, match=r"cannot be multiplied \(K 7 != 5\)"):
            gemmtune.mm(a, a, alpha=numpy.float32(2))
        assert gemmtune.mm(a, b, alpha=2).shape == (5, 9)


def test_configure_takes_str_bytes_and_path_like_and_refuses_the_rest(tmp_path):
    # bytes were accepted and failed later with an AttributeError, a NUL byte cut the path (issue 55).
    gemmtune.configure(db_path=os.fsencode(tmp_path / "bytes.db"))
    gemmtune.configure(db_path=tmp_path / "path.db")
    gemmtune.configure(db_path=str(tmp_path / "str.db"), deterministic=True, verbose=False)
    cases = [
        (dict(db_path=5), TypeError, r"^gemmtune.configure: db_path = 5 is int: pass a path \(str, bytes or os.PathLike\)$"),
        (dict(db_path=""), ValueError, "gemmtune.configure: db_path is empty: pass a file path"),
        (dict(db_path=b""), ValueError, "db_path is empty"),
        (dict(db_path=f"{tmp_path}/a\0b.db"), ValueError, "db_path = .* holds a NUL byte, which no file name can"),
        (dict(db_path=b"a\0b.db"), ValueError, "holds a NUL byte"),
        (dict(db_path=b"\xff.db"), ValueError, r"db_path = '\\udcff.db' is not valid UTF-8"),
        (dict(deterministic="no"), TypeError, "gemmtune.configure: deterministic = 'no' is str: pass True or False"),
        (dict(verbose=1), TypeError, "verbose = 1 is int: pass True or False"),
        (dict(precision=None), TypeError, "precision = None is NoneType: pass one of ieee, fp32, tf32"),
        (dict(precision="fp16"), ValueError, "precision = 'fp16': use one of ieee, fp32, tf32"),
        (dict(db_access=["none"]), TypeError, "db_access = \\['none'\\] is list"),
    ]
    for kwargs, exception, message in cases:
        with pytest.raises(exception, match=message):
            gemmtune.configure(**kwargs)
    # The operator itself, called without the Python layer, refuses what would cut or empty the path.
    with pytest.raises(ValueError, match="configure: db_path holds a NUL byte"):
        torch.ops.gemmtune.configure(db_path="a\0b.db")
    with pytest.raises(ValueError, match="configure: db_path is empty: pass a file path, or None"):
        torch.ops.gemmtune.configure(db_path="")


def test_explain_refuses_sizes_beyond_the_librarys_int_instead_of_wrapping():
    # 2^32 + 8 was passed on as 8 (issue 55).
    for function in (gemmtune.explain, torch.ops.gemmtune.explain):
        with pytest.raises(ValueError, match=r"explain: m = 4294967304 is out of range: M, N, K and batch run from 1 to 2147483647"):
            function(2**32 + 8, 8, 8)
    cases = [
        (lambda: gemmtune.explain(8, 8, 2**31), ValueError, "k = 2147483648 is out of range"),
        (lambda: gemmtune.explain(8, 8, 8, batch=0), ValueError, "batch = 0 is out of range"),
        (lambda: gemmtune.explain(8, -1, 8), ValueError, "n = -1 is out of range"),
        (lambda: gemmtune.explain(2**70, 8, 8), ValueError, r"m = 1180591620717411303424 is out of range"),
        (lambda: gemmtune.explain(8, 8, 8, alignment=3), ValueError, "alignment = 3: use 4, 2 or 1"),
        (lambda: gemmtune.explain(8, 8, 8, device=-1), ValueError, r"device = -1: pass a CUDA device ordinal"),
        (lambda: gemmtune.explain(8, 8, 8, device=2**32), ValueError, "device = 4294967296: pass a CUDA device ordinal"),
        (lambda: gemmtune.explain(64.0, 8, 8), TypeError, r"^gemmtune.explain: m = 64.0 is float: pass an int$"),
        (lambda: gemmtune.explain(True, 8, 8), TypeError, "m = True is bool: pass an int"),
        (lambda: gemmtune.explain("8", 8, 8), TypeError, "m = '8' is str: pass an int"),
        (lambda: gemmtune.explain(8, 8, 8, layout=None), TypeError, "layout = None is NoneType: pass one of nn, nt, tn, tt"),
        (lambda: gemmtune.explain(8, 8, 8, layout="nx"), ValueError, "layout = 'nx': use one of nn, nt, tn, tt"),
    ]
    for call, exception, message in cases:
        with pytest.raises(exception, match=message):
            call()


def test_explain_takes_numpy_integers():
    try:
        text = gemmtune.explain(numpy.int64(64), numpy.int32(64), 64, batch=numpy.uint8(2))
    except gemmtune.NoDeviceError:
        return  # the arguments reached the library
    assert "runs" in text


def test_layout_plan_refuses_what_describes_no_product():
    good = ([5, 7], [7, 1], [7, 9], [9, 1], [5, 9], [9, 1])
    assert gemmtune.layout.plan(*good).layout == "nn"
    assert gemmtune.layout.plan(torch.Size([5, 7]), (7, 1), numpy.array([7, 9]), [9, 1], [5, 9], [9, 1]).m == 5
    cases = [
        ((None,) + good[1:], TypeError, r"^gemmtune.layout.plan: a_shape = None is NoneType: pass a sequence of ints"),
        (good[:2] + ("79",) + good[3:], TypeError, "b_shape = '79' is str: pass a sequence of ints"),
        (good[:5] + ([9.0, 1],), TypeError, r"c_strides\[0\] = 9.0 is float: pass an int"),
        (([5, 7, 1],) + good[1:], ValueError, "plan: shapes and strides must all have 2 or 3 entries"),
        (([5, -7], [7, 1], [-7, 9]) + good[3:], ValueError, "plan: a has shape \\[5, -7\\] .*: sizes and strides must not be negative"),
        (([5, 7], [-7, 1]) + good[2:], ValueError, "must not be negative"),
        (good[:2] + ([8, 9],) + good[3:], ValueError, r"plan: a \[5, 7\] and b \[8, 9\] cannot be multiplied \(K 7 != 8\)"),
        (good[:4] + ([5, 8], [8, 1]), ValueError, r"plan: c has shape \[5, 8\], the product of a \[5, 7\] and b \[7, 9\] does not"),
        (([2, 5, 7], [35, 7, 1], [3, 7, 9], [63, 9, 1], [2, 5, 9], [45, 9, 1]), ValueError, "plan: batch sizes differ"),
        (([2**40, 2**40], [2**40, 1], [2**40, 1], [1, 1], [2**40, 1], [1, 1]), ValueError, "no tensor this large can exist"),
        (([5, 2**62], [2**62, 1], [2**62, 9], [9, 1], [5, 9], [9, 1]), ValueError, "no tensor this large can exist"),
        (([5, 7], [2**64, 1]) + good[2:], ValueError, r"a_strides\[0\] = 18446744073709551616 is out of range"),
    ]
    for arguments, exception, message in cases:
        with pytest.raises(exception, match=message):
            gemmtune.layout.plan(*arguments)


def test_swap_linear_and_from_linear_refuse_what_is_not_a_module():
    with pytest.raises(TypeError, match=r"^gemmtune.nn.swap_linear: module is NoneType, not a torch.nn.Module: pass the model$"):
        gemmtune.nn.swap_linear(None)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4))
    with pytest.raises(TypeError, match="swap_linear: where is int: pass a function where"):
        gemmtune.nn.swap_linear(model, where=5)
    assert type(model[0]) is torch.nn.Linear  # nothing was replaced
    with pytest.raises(TypeError, match="from_linear: layer is Sequential, not a torch.nn.Linear"):
        gemmtune.nn.Linear.from_linear(model)


def test_capture_checks_its_arguments_before_the_model_runs(tmp_path):
    runs = []

    def model(x):
        runs.append(1)
        return torch.nn.functional.linear(x, torch.ones(3, 4))

    x = torch.ones(2, 4)
    cases = [
        (lambda: gemmtune.capture(5, (x,)), TypeError, r"^gemmtune.capture: model is int, which cannot be called: pass the model"),
        (lambda: gemmtune.capture(model, x, ""), ValueError, "gemmtune.capture: path is empty"),
        (lambda: gemmtune.capture(model, x, f"{tmp_path}/a\0b.csv"), ValueError, "path = .* holds a NUL byte"),
        (lambda: gemmtune.capture(model, x, 7), TypeError, "path = 7 is int: pass a path"),
        (lambda: gemmtune.capture(model, x, tmp_path), ValueError, f"path {tmp_path} is a folder"),
        (lambda: gemmtune.capture(model, x, backward="yes"), TypeError, "backward = 'yes' is str: pass True or False"),
        (lambda: gemmtune.capture(model, x, title=3), TypeError, "title = 3 is int: pass a str"),
        # A line break would end the comment line and start a row of the problem file.
        (lambda: gemmtune.capture(model, x, title="t\n1,1,1,nn,1"), ValueError, "title = .* has a line break"),
    ]
    for call, exception, message in cases:
        with pytest.raises(exception, match=message):
            call()
    assert runs == []
    mode = gemmtune.capture(model, x, os.fsencode(tmp_path / "bytes.csv"), title="bytes")
    assert (tmp_path / "bytes.csv").read_text() == mode.csv("bytes")
    assert runs == [1]
    with pytest.raises(ValueError, match="CaptureMode.csv: title = .* has a line break"):
        mode.csv("a\rb")


# The seeded fuzz: every public function, each argument in turn replaced by a value of a random bad
# kind. Allowed outcomes: success (the value happened to be acceptable), TypeError, ValueError, or
# gemmtune's own error when the call reached the library (no CUDA device here).
BAD_VALUES = [
    None, "", "x", "nn", "a\0b", b"x", b"\xff", 0, -1, 1, 3, 2**31, 2**32 + 8, 2**63, 2**70, -(2**70), 0.5, float("nan"),
    float("inf"), True, [], [1, 2], [1.5, 2], (), {}, object(), Path("p"), numpy.int64(2), numpy.zeros(2), torch.tensor(1.0),
    torch.empty(0), torch.empty(2, 3), torch.empty(2, 3, dtype=torch.float64), "t\n1,1,1,nn,1", lambda *a: True,
]


def _public_calls(tmp_path):
    """(name, function, good positional arguments, good keyword arguments)."""
    a, b, out = fake_cuda(5, 7), fake_cuda(7, 9), fake_cuda(5, 9)
    model = torch.nn.Sequential(torch.nn.Linear(4, 3))
    good_plan = ([5, 7], [7, 1], [7, 9], [9, 1], [5, 9], [9, 1])
    return [
        ("mm", gemmtune.mm, [a, b], dict(out=out, alpha=1.0, beta=0.0)),
        ("bmm", gemmtune.bmm, [a[None], b[None]], dict(out=out[None], alpha=1.0, beta=0.0)),
        ("nn.linear", gemmtune.nn.linear, [a, fake_cuda(3, 7), fake_cuda(3)], {}),
        ("swap_linear", gemmtune.nn.swap_linear, [model], dict(where=None)),
        ("from_linear", gemmtune.nn.Linear.from_linear, [model[0]], {}),
        ("configure", gemmtune.configure, [], dict(db_path=str(tmp_path / "f.db"), db_access="none", deterministic=False,
                                                   verbose=False, precision="ieee", fallback="torch")),
        ("explain", gemmtune.explain, [8, 8, 8], dict(layout="nn", batch=1, alignment=0, device=0)),
        ("layout.plan", gemmtune.layout.plan, list(good_plan), {}),
        ("capture", gemmtune.capture, [model, (torch.ones(2, 4),), str(tmp_path / "c.csv")], dict(backward=False, title="t")),
    ]


def _gemmtune_runs_linear(args) -> bool:
    tensors = [t for t in args if t is not None]
    return all(isinstance(t, torch.Tensor) and t.is_cuda and t.dtype == torch.float32 for t in tensors)


def test_random_bad_arguments_raise_only_type_or_value_errors(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a capture path that happens to be fine lands here
    rng = random.Random(55)
    tried = 0
    fake = FakeTensorMode(allow_non_fake_inputs=True)
    with fake:
        calls = _public_calls(tmp_path)
    for _ in range(1500):
        name, function, args, kwargs = rng.choice(calls)
        args, kwargs = list(args), dict(kwargs)
        # capture's example inputs are the model's business (its own errors pass through).
        positions = [("arg", i) for i in range(len(args)) if (name, i) != ("capture", 1)] + [("kw", k) for k in kwargs]
        for _ in range(rng.choice((1, 1, 2))):
            where, key = rng.choice(positions)
            value = rng.choice(BAD_VALUES)
            if where == "arg":
                args[key] = value
            else:
                kwargs[key] = value
        try:
            if name in ("mm", "bmm", "nn.linear"):
                with fake:
                    function(*args, **kwargs)
            else:
                function(*args, **kwargs)
        except (TypeError, ValueError, gemmtune.GemmtuneError) as error:
            assert str(error), f"{name}: an empty message"
        except RuntimeError as error:
            # nn.linear runs PyTorch's own linear, with its own errors, where gemmtune does not run.
            if not (name == "nn.linear" and not _gemmtune_runs_linear(args)):
                pytest.fail(f"{name}(*{args!r}, **{kwargs!r}) raised RuntimeError: {error}")
        except Exception as error:  # noqa: BLE001 (the point: nothing else)
            pytest.fail(f"{name}(*{args!r}, **{kwargs!r}) raised {type(error).__name__}: {error}")
        tried += 1
    assert tried == 1500
