"""The options of gemmtune's dispatchers (one per CUDA device, created by the operator library on
first use) and `explain`."""

from __future__ import annotations

import os
from typing import Optional, Union

from . import _arguments as arguments
from . import errors
from ._library import ops

DB_ACCESS = ("automatic", "read_only", "read_write", "none")
PRECISIONS = ("ieee", "fp32", "tf32")
FALLBACKS = ("torch", "never")
LAYOUTS = ("nn", "nt", "tn", "tt")


def configure(
    *,
    db_path: Union[str, bytes, os.PathLike, None] = None,
    db_access: str = "automatic",
    deterministic: bool = False,
    verbose: bool = False,
    precision: str = "ieee",
    fallback: str = "torch",
) -> None:
    """Sets the options of gemmtune's dispatchers and drops the ones already created (each waits for
    its device to finish first), so the next call creates them anew with these options.

    db_path: the tuning database (None: the library's default, `$GEMMTUNE_DB`, else
    `$XDG_CACHE_HOME/gemmtune/tuning.db`, else `~/.cache/gemmtune/tuning.db`). db_access:
    "automatic" (write compiled kernels back when the file is writable), "read_only",
    "read_write" (create the file when missing) or "none" (no database of yours). Behind yours, the
    tuning database shipped for the GPU model answers what yours has not tuned (bundled in
    gemmtune/lib/tuning/; GEMMTUNE_NO_SHIPPED=1 in the environment leaves it out). deterministic:
    only kernels that give the same bits on every run (no atomic split-K). verbose: log each new choice.
    precision: "ieee" (FP32 FMA kernels only), "fp32" (also 3xTF32 tensor-core kernels measured as
    accurate as FP32 FMA) or "tf32" (also 1xTF32, about 1e-3 relative error); docs/precision.md.
    fallback: "torch" (a problem runs on gemmtune only where the database holds a tuned result
    for it, or a near shape, whose kernel measured faster than cuBLAS; else on PyTorch's own
    product: never slower than PyTorch) or "never" (always gemmtune: for tests and benchmarks).
    Call it before capturing gemmtune calls into a CUDA Graph, never while one that holds them
    may still run (destroying a dispatcher unloads its kernels)."""
    for name, value, allowed in (("db_access", db_access, DB_ACCESS), ("precision", precision, PRECISIONS), ("fallback", fallback, FALLBACKS)):
        arguments.choice("configure", name, value, allowed)
    if db_path is not None:
        db_path = arguments.path("configure", "db_path", db_path, utf8=True)
    deterministic = arguments.flag("configure", "deterministic", deterministic)
    verbose = arguments.flag("configure", "verbose", verbose)
    try:
        ops().configure(db_path, db_access, deterministic, verbose, precision, fallback)
    except RuntimeError as error:
        raise errors.from_torch(error) or error from None


def explain(m: int, n: int, k: int, *, layout: str = "nn", batch: int = 1, alignment: int = 0, device: int = 0) -> str:
    """Why a product of the row-major problem M x N x K with `layout` (op_a op_b: "nn", "nt", "tn",
    "tt") and `batch` runs where it runs on `device`, as `gemmtune explain` prints it (the kernel,
    where it came from: exact, nearest, model_default, builtin; the database), then a `runs` line:
    gemmtune or PyTorch, and why (configure's fallback). `alignment` (4, 2 or 1 floats; 0: what
    packed matrices allow) is the data's alignment class. M, N, K and batch run from 1 to 2^31 - 1
    (the library's int)."""
    arguments.choice("explain", "layout", layout, LAYOUTS)
    sizes = [arguments.integer("explain", name, value) for name, value in (("m", m), ("n", n), ("k", k), ("batch", batch))]
    alignment = arguments.integer("explain", "alignment", alignment)
    device = arguments.integer("explain", "device", device)
    try:
        return ops().explain(*sizes[:3], layout, sizes[3], alignment, device)
    except (RuntimeError, ValueError) as error:
        raise errors.from_torch(error) or error from None
