"""Finding and loading the operator library (gemmtune/_C.abi3.so, built by setup.py), which
registers the `gemmtune` operators with PyTorch and calls libgemmtune's C++ dispatcher.

The operator library has no Python bindings (torch.ops.load_library loads it), so it works with
every Python version; it is tied to the PyTorch it was built against. It finds libgemmtune.so
next to itself (gemmtune/lib/, an $ORIGIN run path).

Where the operator library is looked for, in order:
  1. $GEMMTUNE_OPS_LIBRARY (a file; when set, nothing else is tried),
  2. next to the package: gemmtune/_C*.so (pip install, or setup.py build_ext --inplace).
$GEMMTUNE_LIBRARY, when set, names a libgemmtune.so loaded first, in place of the copy beside the
operator library (same soname).
"""

from __future__ import annotations

import ctypes
import importlib
import os
import re
import sys
import threading
from pathlib import Path

from .errors import LibraryNotFoundError

ENV_OPS = "GEMMTUNE_OPS_LIBRARY"
ENV_LIBRARY = "GEMMTUNE_LIBRARY"
LIBRARY_NAME = "libgemmtune.so"

# Where a library that libgemmtune.so needs (the CUDA runtime, NVRTC) may be when the dynamic
# linker does not know it: PyTorch's CUDA wheels (site-packages/nvidia/*/lib) and the toolkit.
_CUDA_DIRS = ("/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib", "/usr/local/cuda/lib")


def _package_dir() -> Path:
    return Path(__file__).resolve().parent


def candidates() -> list[tuple[str, str]]:
    """(where, path) of every operator library looked at, in order."""
    env = os.environ.get(ENV_OPS)
    if env:
        return [("$" + ENV_OPS, env)]
    found = sorted(_package_dir().glob("_C*.so"))
    return [("next to the package", str(p)) for p in found] or [("next to the package", str(_package_dir() / "_C.abi3.so"))]


def _dependency_dirs() -> list[Path]:
    dirs = []
    for entry in sys.path:
        nvidia = Path(entry or ".") / "nvidia"
        if nvidia.is_dir():
            dirs.extend(sorted(p for p in nvidia.glob("*/lib") if p.is_dir()))
    cuda_home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH")
    if cuda_home:
        dirs.extend([Path(cuda_home) / "lib64", Path(cuda_home) / "lib"])
    dirs.extend(Path(d) for d in _CUDA_DIRS)
    return [d for d in dirs if d.is_dir()]


def _load(path: str) -> ctypes.CDLL:
    """Loads `path`; a dependency the dynamic linker cannot find (libnvrtc.so.13, say) is looked for
    in PyTorch's CUDA wheels and the CUDA toolkit, loaded globally, and the load tried again."""
    preloaded: set[str] = set()
    while True:
        try:
            return ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
        except OSError as error:
            missing = re.match(r"^(\S+?\.so[.\d]*): cannot open shared object file", str(error))
            name = missing.group(1) if missing else None
            if name is None or name == os.path.basename(path) or name in preloaded:
                raise
            dirs = _dependency_dirs()
            hits = [d / name for d in dirs if (d / name).exists()]
            if not hits:
                raise LibraryNotFoundError(
                    f"{path} needs {name}, which neither the dynamic linker nor a look in "
                    f"{', '.join(map(str, dirs)) or 'PyTorch CUDA wheels and /usr/local/cuda'} found: install the "
                    "CUDA Toolkit of the library's CUDA major version or add its lib64 folder to LD_LIBRARY_PATH"
                ) from error
            ctypes.CDLL(str(hits[0]), mode=ctypes.RTLD_GLOBAL)
            preloaded.add(name)


class Ops:
    """The operators of the loaded library (torch.ops.gemmtune.*.default)."""

    def __init__(self, path: str):
        import torch

        self.path = path
        namespace = torch.ops.gemmtune
        self.mm = namespace.mm.default
        self.bmm = namespace.bmm.default
        self.mm_out = namespace.mm_out.default
        self.bmm_out = namespace.bmm_out.default
        self.linear = namespace.linear.default
        self.configure = namespace.configure.default
        self.explain = namespace.explain.default
        self.plan = namespace.plan.default


_lock = threading.Lock()
_ops: Ops | None = None


def ops() -> Ops:
    """The operators, loading the operator library on first use; LibraryNotFoundError says what was
    searched and what to do."""
    if _ops is not None:
        return _ops
    return _load_ops()


def _load_ops() -> Ops:
    global _ops
    with _lock:
        if _ops is not None:
            return _ops
        torch = importlib.import_module("torch")  # first: its CUDA runtime is the one libgemmtune.so binds to
        override = os.environ.get(ENV_LIBRARY)
        if override:
            if not os.path.exists(override):
                raise LibraryNotFoundError(f"${ENV_LIBRARY}={override}: no such file")
            try:
                _load(override)
            except OSError as error:
                raise LibraryNotFoundError(f"${ENV_LIBRARY}={override} could not be loaded: {error}") from error
        tried = []
        for where, path in candidates():
            if not os.path.exists(path):
                tried.append(f"{path} ({where}: no such file)")
                continue
            try:
                _load(path)  # finds what libgemmtune.so needs (NVRTC) where the linker does not
                torch.ops.load_library(path)
            except LibraryNotFoundError:
                raise
            except OSError as error:
                hint = (
                    f" (built against another PyTorch than {torch.__version__}? reinstall the package: pip install "
                    "--no-build-isolation ./python)"
                    if "undefined symbol" in str(error)
                    else ""
                )
                raise LibraryNotFoundError(f"{path} ({where}) could not be loaded: {error}{hint}") from error
            try:
                _ops = Ops(path)
            except (AttributeError, RuntimeError) as error:
                raise LibraryNotFoundError(f"{path} is not gemmtune's operator library ({error})") from error
            return _ops
        raise LibraryNotFoundError(
            "gemmtune's operator library not found. Looked at:\n  " + "\n  ".join(tried) + "\nInstall the package "
            "(pip install ./python, which builds it against this PyTorch; docs/python.md), or build it in place "
            "(cd python && python setup.py build_ext --inplace), or set " + ENV_OPS + "=/path/to/_C.abi3.so."
        )


def _loaded_path(name: str) -> str | None:
    """The file of the loaded library whose name starts with `name` (from /proc/self/maps)."""
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                if "/" in line and os.path.basename(line.strip()).startswith(name):
                    return line[line.index("/") :].strip()
    except OSError:
        pass
    return None


def library_path() -> str:
    """The path of the libgemmtune.so the operators use (loading the operator library if need be)."""
    ops()
    found = _loaded_path(LIBRARY_NAME)
    if found is None:
        raise LibraryNotFoundError(f"{LIBRARY_NAME} is not among the loaded libraries")
    return found


def ops_library_path() -> str:
    """The path of the loaded operator library."""
    return ops().path
