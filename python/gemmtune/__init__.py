"""gemmtune for PyTorch: tuned FP32 GEMM kernels (libgemmtune.so) behind torch operators.

    import gemmtune
    c = gemmtune.mm(a, b)                 # float32 CUDA tensors, any strides, current stream
    c = gemmtune.bmm(a, b)
    gemmtune.nn.swap_linear(model)        # the model's nn.Linear layers run on gemmtune
    gemmtune.capture(model, inputs, "shapes.csv")   # then: gemmtune sweep --file shapes.csv

The operators are C++ (an operator library built by `pip install ./python` against the installed
PyTorch, with libgemmtune.so beside it), loaded on first use; their dispatchers read the tuning
database ($GEMMTUNE_DB, else the user's cache; gemmtune.configure(db_path=...) overrides). A
product runs on gemmtune where its tuned kernel measured faster than cuBLAS, else on PyTorch's
own (configure(fallback="never") forces gemmtune). docs/python.md has the full guide.
"""

from __future__ import annotations

__version__ = "0.2.0"

from . import layout
from ._library import library_path, ops_library_path
from .capture import CaptureMode, capture
from .errors import GemmtuneError, InvalidArgumentError, LibraryNotFoundError, NoDeviceError, NotPreparedError
from .ops import bmm, mm
from .runtime import configure, explain

from . import nn  # noqa: E402 (after ops, which it uses)

__all__ = [
    "mm",
    "bmm",
    "nn",
    "capture",
    "CaptureMode",
    "configure",
    "explain",
    "library_path",
    "ops_library_path",
    "layout",
    "GemmtuneError",
    "InvalidArgumentError",
    "NoDeviceError",
    "NotPreparedError",
    "LibraryNotFoundError",
]
