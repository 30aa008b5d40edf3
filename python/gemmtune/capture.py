"""Shape capture: the matrix products a model runs, as the problem file `gemmtune sweep --file`
reads (m,n,k,layout,batch; tuner/src/problems.cpp).

CaptureMode, a TorchDispatchMode, sees every operator below autograd, where torch.matmul,
nn.Linear and F.linear have become aten.mm, aten.addmm and aten.bmm (and aten.linear where a
backend keeps it). Each float32 product is mapped by gemmtune.layout.plan, the mapping gemmtune.mm
runs, so a PyTorch product with transposed views is recorded as the row-major problem the
dispatcher will look up. Shapes need no GPU: run the model on CPU (or wherever it runs).
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from . import _arguments as arguments
from . import layout

aten = torch.ops.aten


def _operands(func, args, result) -> Optional[Tuple[torch.Tensor, torch.Tensor, torch.Tensor]]:
    """(a, b, c) of a recorded product, c the output as stored; None for other operators."""
    packet = func.overloadpacket
    if packet in (aten.mm, aten.bmm):
        return args[0], args[1], result
    if packet in (aten.addmm, aten.baddbmm, aten._addmm_activation):
        return args[1], args[2], result
    if packet is aten.linear:
        x, weight = args[0], args[1]
        # linear is x @ weight^T on x flattened to (tokens, in), as gemmtune.nn.linear runs it.
        return x.reshape(-1, x.shape[-1]), weight.t(), result.reshape(-1, result.shape[-1])
    if func.namespace == "gemmtune" and packet.__name__ in ("mm", "bmm"):
        return args[0], args[1], result
    if func.namespace == "gemmtune" and packet.__name__ == "linear":
        x, weight = args[0], args[1]
        return x.reshape(-1, x.shape[-1]), weight.t(), result.reshape(-1, result.shape[-1])
    if func.namespace == "gemmtune" and packet.__name__ in ("mm_out", "bmm_out"):
        return args[0], args[1], args[2]
    return None


@dataclass
class Problem:
    """One row of the problem file: a row-major problem, and the calls that ran it."""

    m: int
    n: int
    k: int
    layout: str
    batch: int
    calls: int = 0
    ops: List[str] = field(default_factory=list)

    def row(self) -> str:
        batch = min(self.batch, layout.MAX_SWEEP_BATCH)
        note = f"{self.calls} call{'s' if self.calls != 1 else ''}: {', '.join(self.ops)}"
        if batch != self.batch:
            note += f"; batch {self.batch} captured, the sweep tunes at most {layout.MAX_SWEEP_BATCH}"
        return f"{self.m},{self.n},{self.k},{self.layout},{batch}  # {note}"


class CaptureMode(TorchDispatchMode):
    """Records every float32 mm, addmm, bmm, baddbmm and linear run inside `with CaptureMode() as c:`.
    `c.problems` holds the distinct row-major problems in the order first seen, `c.skipped` the
    products left out and why (another dtype, a zero-size product)."""

    def __init__(self):
        super().__init__()
        self._problems: Dict[Tuple[int, int, int, str, int], Problem] = {}
        self.skipped: Dict[str, int] = {}

    @property
    def problems(self) -> List[Problem]:
        return list(self._problems.values())

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        result = func(*args, **(kwargs or {}))
        operands = _operands(func, args, result)
        if operands is not None:
            self.record(str(func.overloadpacket.__name__), *operands)
        return result

    def record(self, op: str, a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> None:
        """Records the product c = a @ b (2-D or 3-D tensors with their real strides)."""
        if not all(t.dtype == torch.float32 for t in (a, b, c)):
            why = f"{op} on {a.dtype}"
            self.skipped[why] = self.skipped.get(why, 0) + 1
            return
        p = layout.plan(a.shape, a.stride(), b.shape, b.stride(), c.shape, c.stride())
        if min(p.m, p.n, p.k, p.batch) == 0:
            why = f"{op} of zero size"
            self.skipped[why] = self.skipped.get(why, 0) + 1
            return
        key = (p.m, p.n, p.k, p.layout, p.batch)
        problem = self._problems.setdefault(key, Problem(*key))
        problem.calls += 1
        if op not in problem.ops:
            problem.ops.append(op)

    def csv(self, title: str = "") -> str:
        """The problem file: comment lines, the header m,n,k,layout,batch, one row per problem.
        `title` (one line) goes into the first comment line."""
        arguments.text("CaptureMode.csv", "title", title, one_line=True)
        calls = sum(p.calls for p in self._problems.values())
        lines = [
            f"# gemmtune capture{': ' + title if title else ''}: {len(self._problems)} problems from {calls} float32 matrix products",
            "# row-major problems as the dispatcher runs them (layout: op_a op_b); tune with: gemmtune sweep --file THIS_FILE",
        ]
        for why, count in self.skipped.items():
            lines.append(f"# skipped: {count} x {why}")
        lines.append("m,n,k,layout,batch")
        lines.extend(p.row() for p in self._problems.values())
        return "\n".join(lines) + "\n"


def _call(model, example_inputs: Any):
    if isinstance(example_inputs, dict):
        return model(**example_inputs)
    if isinstance(example_inputs, (tuple, list)):
        return model(*example_inputs)
    return model(example_inputs)


def capture(model, example_inputs: Any, path: Optional[str] = None, *, backward: bool = False, title: str = "") -> CaptureMode:
    """Runs `model` once on `example_inputs` (a tuple or list of positional arguments, a dict of
    keyword arguments, or a single argument) and records its float32 matrix products. With
    `backward`, also the backward pass (gradients of ones for the outputs that require grad),
    whose products have other layouts. Writes the problem file to `path` when given. Returns the
    CaptureMode: `.problems`, `.skipped`, `.csv()`. Its arguments are checked before the model
    runs: TypeError for a model that is not callable, a path, `backward` or `title` of another
    kind; ValueError for an empty path, a NUL byte in it, a folder there, a title with a line
    break (it is a comment line of the file). A symbolic link at `path` is refused when writing."""
    if not callable(model):
        raise TypeError(f"gemmtune.capture: model is {type(model).__name__}, which cannot be called: pass the model (a torch.nn.Module or a function)")
    arguments.flag("capture", "backward", backward)
    arguments.text("capture", "title", title, one_line=True)
    if path is not None:
        path = arguments.path("capture", "path", path)
        if os.path.isdir(path):
            raise ValueError(f"gemmtune.capture: path {path} is a folder: pass the problem file's path")
    mode = CaptureMode()
    with torch.set_grad_enabled(backward):
        with mode:
            output = _call(model, example_inputs)
            if backward:
                leaves = [t for t in _tensors(output) if t.requires_grad]
                if not leaves:
                    raise ValueError("capture(backward=True): no output of the model requires grad")
                # Gradients of ones, stored packed as a loss's gradient is (not the expanded
                # gradient of a sum, which the products would copy first).
                torch.autograd.backward(leaves, [torch.ones_like(t) for t in leaves])
    if not mode.problems:
        raise ValueError(
            "capture: the model ran no float32 matrix product (mm, addmm, bmm, linear)"
            + (f"; skipped: {mode.skipped}" if mode.skipped else "")
        )
    if path is not None:
        # Written through a temporary file made exclusively beside it (mkstemp: never a file or link
        # someone else put there) and renamed over it once complete, keeping an existing file's
        # permission bits. A symbolic link at `path` is refused: writing through it would replace
        # a file someone else may have chosen.
        directory = os.path.dirname(path)
        if directory:
            os.makedirs(directory, exist_ok=True)
        if os.path.islink(path):
            raise ValueError(f"capture: {path} is a symbolic link: write the problem file to a plain path")
        try:
            file_mode = os.stat(path).st_mode & 0o7777
        except FileNotFoundError:
            umask = os.umask(0)
            os.umask(umask)
            file_mode = 0o666 & ~umask
        fd, temp = tempfile.mkstemp(dir=directory or ".", prefix=".gemmtune-capture-")
        try:
            with os.fdopen(fd, "w") as f:
                os.fchmod(f.fileno(), file_mode)
                f.write(mode.csv(title))
            os.replace(temp, path)
        except BaseException:
            try:
                os.unlink(temp)
            except OSError:
                pass
            raise
    return mode


def _tensors(output: Any) -> List[torch.Tensor]:
    if isinstance(output, torch.Tensor):
        return [output]
    if isinstance(output, dict):
        output = list(output.values())
    if isinstance(output, (tuple, list)):
        return [t for item in output for t in _tensors(item)]
    return []
