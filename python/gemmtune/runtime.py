"""The library's dispatchers (one C handle per CUDA device, created on first use) and their options."""

from __future__ import annotations

import ctypes
import os
import threading
from dataclasses import dataclass
from typing import Optional

from . import _library as L


@dataclass(frozen=True)
class Settings:
    """The options of the handles gemmtune creates (gemmtune_options)."""

    db_path: Optional[str] = None  # None: the library's default ($GEMMTUNE_DB, else the cache path)
    db_access: str = "automatic"  # automatic, read_only, read_write, none
    deterministic: bool = False
    verbose: bool = False
    precision: str = "ieee"  # ieee, fp32, tf32 (docs/precision.md)


PRECISIONS = {"ieee": 0, "fp32": 1, "tf32": 2}  # gemmtune_precision_t


_lock = threading.Lock()
_settings = Settings()
_handles: dict[int, ctypes.c_void_p] = {}


def configure(
    *,
    db_path: Optional[str] = None,
    db_access: str = "automatic",
    deterministic: bool = False,
    verbose: bool = False,
    precision: str = "ieee",
) -> None:
    """Sets the options of gemmtune's dispatchers and drops the ones already created (each waits for
    its device to finish first), so the next call creates them anew with these options.

    db_path: the tuning database (None: the library's default, `$GEMMTUNE_DB`, else
    `$XDG_CACHE_HOME/gemmtune/tuning.db`, else `~/.cache/gemmtune/tuning.db`). db_access:
    "automatic" (write compiled kernels back when the file is writable), "read_only",
    "read_write" (create the file when missing) or "none" (built-in kernels only). deterministic:
    only kernels that give the same bits on every run (no atomic split-K). verbose: log each new choice.
    precision: "ieee" (FP32 FMA kernels only), "fp32" (also 3xTF32 tensor-core kernels measured as
    accurate as FP32 FMA) or "tf32" (also 1xTF32, about 1e-3 relative error); docs/precision.md.
    Call it before capturing gemmtune calls into a CUDA Graph, never while one that holds them
    may still run (destroying a dispatcher unloads its kernels)."""
    if db_access not in L.DB_ACCESS:
        raise ValueError(f"db_access = {db_access!r}: use one of {', '.join(L.DB_ACCESS)}")
    if precision not in PRECISIONS:
        raise ValueError(f"precision = {precision!r}: use one of {', '.join(PRECISIONS)}")
    if db_path is not None:
        db_path = os.fspath(db_path)
    global _settings
    with _lock:
        _settings = Settings(db_path, db_access, bool(deterministic), bool(verbose), precision)
        handles = list(_handles.values())
        _handles.clear()
    for handle in handles:
        L.check(L.library().gemmtune_destroy(handle), "gemmtune_destroy")


def settings() -> Settings:
    return _settings


def handle(device: int) -> ctypes.c_void_p:
    """The dispatcher of CUDA device `device`, created on first use with the configured options.
    NoDeviceError (the library's message) without a GPU or driver."""
    found = _handles.get(device)
    if found is not None:
        return found
    with _lock:
        found = _handles.get(device)
        if found is not None:
            return found
        lib = L.library()
        options = L.Options()
        lib.gemmtune_options_init(ctypes.byref(options))
        options.device = device
        options.db_access = L.DB_ACCESS[_settings.db_access]
        options.verbose = int(_settings.verbose)
        options.deterministic = int(_settings.deterministic)
        options.precision = PRECISIONS[_settings.precision]
        path = _settings.db_path.encode() if _settings.db_path else None
        options.db_path = path
        created = ctypes.c_void_p()
        L.check(lib.gemmtune_create(ctypes.byref(created), ctypes.byref(options)), f"gemmtune_create (device {device})")
        _handles[device] = created
        return created


def explain(m: int, n: int, k: int, *, layout: str = "nn", batch: int = 1, alignment: int = 0, device: int = 0) -> str:
    """Why the dispatcher of `device` would run a given kernel for the row-major problem M x N x K
    with `layout` (op_a op_b: "nn", "nt", "tn", "tt") and `batch`, as `gemmtune explain` prints it:
    the kernel, where it came from (exact, nearest, model_default, builtin), the database.
    `alignment` (4, 2 or 1 floats; 0: what packed matrices allow) is the data's alignment class."""
    if len(layout) != 2 or any(c not in L.OP for c in layout):
        raise ValueError(f"layout = {layout!r}: use nn, nt, tn or tt")
    lib = L.library()
    h = handle(device)
    length = ctypes.c_size_t()
    size = 4096
    while True:
        buffer = ctypes.create_string_buffer(size)
        L.check(
            lib.gemmtune_explain(
                h, L.ROW_MAJOR, L.OP[layout[0]], L.OP[layout[1]], m, n, k, batch, alignment, buffer, size, ctypes.byref(length)
            ),
            "gemmtune_explain",
        )
        if length.value < size:
            return buffer.value.decode(errors="replace")
        size = length.value + 1
