"""Finding and loading libgemmtune.so, and the ctypes prototypes of its C API (gemmtune.h).

ctypes rather than a compiled extension: the package holds no binary of its own, so one install
works with every Python 3.9+ and every PyTorch whose CUDA major version matches the library's.

Where the library is looked for, in order:
  1. $GEMMTUNE_LIBRARY (a file; when set, nothing else is tried),
  2. next to the package: gemmtune/libgemmtune.so, gemmtune/lib/libgemmtune.so,
  3. the build tree of the checkout the package runs from: build/runtime/, build/lib/,
  4. the dynamic linker's search (LD_LIBRARY_PATH, ldconfig: e.g. an installed /usr/local/lib).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import importlib
import os
import re
import sys
import threading
from pathlib import Path

from .errors import STATUS_CLASSES, GemmtuneError, LibraryNotFoundError

ENV_LIBRARY = "GEMMTUNE_LIBRARY"
LIBRARY_NAME = "libgemmtune.so"

# gemmtune.h's enum values.
ROW_MAJOR = 101
OP = {"n": 0, "t": 1}
DB_ACCESS = {"automatic": 0, "read_only": 1, "read_write": 2, "none": 3}


class Options(ctypes.Structure):
    """gemmtune_options."""

    _fields_ = [
        ("db_path", ctypes.c_char_p),
        ("device", ctypes.c_int),
        ("db_access", ctypes.c_int),
        ("verbose", ctypes.c_int),
        ("deterministic", ctypes.c_int),
        ("precision", ctypes.c_int),
    ]


_i = ctypes.c_int
_i64 = ctypes.c_int64
_f = ctypes.c_float
_p = ctypes.c_void_p
_PROTOTYPES = {
    "gemmtune_options_init": (None, [ctypes.POINTER(Options)]),
    "gemmtune_create": (_i, [ctypes.POINTER(_p), ctypes.POINTER(Options)]),
    "gemmtune_destroy": (_i, [_p]),
    # handle, layout, op_a, op_b, m, n, k, alpha, a, lda, stride_a, b, ldb, stride_b, beta, c, ldc,
    # stride_c, batch, stream
    "gemmtune_sgemm_strided_batched": (
        _i,
        [_p, _i, _i, _i, _i, _i, _i, _f, _p, _i64, _i64, _p, _i64, _i64, _f, _p, _i64, _i64, _i, _p],
    ),
    # handle, layout, op_a, op_b, m, n, k, batch, alignment, buffer, size, length
    "gemmtune_explain": (
        _i,
        [_p, _i, _i, _i, _i, _i, _i, _i, _i, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_size_t)],
    ),
    "gemmtune_status_string": (ctypes.c_char_p, [_i]),
    "gemmtune_last_error": (ctypes.c_char_p, []),
}

# Where a library that libgemmtune.so needs (the CUDA runtime, NVRTC) may be when the dynamic
# linker does not know it: PyTorch's CUDA wheels (site-packages/nvidia/*/lib) and the toolkit.
_CUDA_DIRS = ("/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib", "/usr/local/cuda/lib")


def _package_dir() -> Path:
    return Path(__file__).resolve().parent


def candidates() -> list[tuple[str, str]]:
    """(where, path) of every place looked at, in order; `path` may be a bare name for the dynamic
    linker's own search."""
    env = os.environ.get(ENV_LIBRARY)
    if env:
        return [("$" + ENV_LIBRARY, env)]
    here = _package_dir()
    found = [("next to the package", str(here / LIBRARY_NAME)), ("next to the package", str(here / "lib" / LIBRARY_NAME))]
    checkout = here.parent.parent  # python/gemmtune -> the repository, when run from a checkout
    if (checkout / "runtime" / "include" / "gemmtune" / "gemmtune.h").is_file():
        for sub in ("build/runtime", "build/lib"):
            found.append(("the checkout's build tree", str(checkout / sub / LIBRARY_NAME)))
    found.append(("the dynamic linker's search path", ctypes.util.find_library("gemmtune") or LIBRARY_NAME))
    return found


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


def _declare(lib: ctypes.CDLL) -> None:
    for name, (restype, argtypes) in _PROTOTYPES.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes


_lock = threading.Lock()
_lib: ctypes.CDLL | None = None
_lib_path: str | None = None


def library() -> ctypes.CDLL:
    """The loaded libgemmtune.so (loaded on first use); LibraryNotFoundError says what was searched."""
    global _lib, _lib_path
    with _lock:
        if _lib is not None:
            return _lib
        # PyTorch first: its CUDA runtime is then the one libgemmtune.so binds to (same soname).
        importlib.import_module("torch")

        tried = []
        for where, path in candidates():
            is_name = os.sep not in path
            if not is_name and not os.path.exists(path):
                tried.append(f"{path} ({where}: no such file)")
                continue
            try:
                lib = _load(path)
            except LibraryNotFoundError:
                raise
            except OSError as error:
                if where.startswith("$"):
                    raise LibraryNotFoundError(f"${ENV_LIBRARY}={path} could not be loaded: {error}") from error
                tried.append(f"{path} ({where}: {error})")
                continue
            try:
                _declare(lib)
            except AttributeError as error:
                raise LibraryNotFoundError(f"{path} is not libgemmtune's C API ({error})") from error
            _lib, _lib_path = lib, (path if not is_name else _loaded_path(lib) or path)
            return lib
        raise LibraryNotFoundError(
            "libgemmtune.so not found. Looked at:\n  " + "\n  ".join(tried) + "\nBuild it "
            "(cmake --build build --target gemmtune_shared) and set " + ENV_LIBRARY + "=/path/to/libgemmtune.so, "
            "copy it next to the package, or install it (cmake --install build)."
        )


def _loaded_path(lib: ctypes.CDLL) -> str | None:
    """The file the dynamic linker chose for `lib` (from /proc/self/maps)."""
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                if LIBRARY_NAME in line and "/" in line:
                    return line[line.index("/") :].strip()
    except OSError:
        pass
    return None


def library_path() -> str:
    """The path of the loaded libgemmtune.so (loading it if need be)."""
    library()
    assert _lib_path is not None
    return _lib_path


def status_name(status: int) -> str:
    return library().gemmtune_status_string(status).decode()


def check(status: int, what: str) -> None:
    """Raises the exception of a failed call's status, with the library's message."""
    if status == 0:
        return
    lib = library()
    message = (lib.gemmtune_last_error() or b"").decode(errors="replace") or status_name(status)
    cls = STATUS_CLASSES.get(status, GemmtuneError)
    raise cls(f"{what}: {message}", status, status_name(status))
