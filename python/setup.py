"""Builds the gemmtune operator library (csrc/) against the installed PyTorch and libgemmtune.

The operator library registers the `gemmtune` operators with PyTorch (TORCH_LIBRARY) and has no
Python bindings: it is loaded with torch.ops.load_library and does not depend on the Python
version (an abi3 wheel). libgemmtune.so is copied next to it (gemmtune/lib/, found through an
$ORIGIN run path), and the tuning databases shipped with it (share/gemmtune/tuning/*.db of the
install prefix or build folder) into gemmtune/lib/tuning/, where libgemmtune looks for them beside
itself, so the installed package needs nothing else.

Where libgemmtune and its headers are taken from, in order:
  1. $GEMMTUNE_ROOT: an install prefix (include/gemmtune/, lib/libgemmtune.so) or a CMake build
     folder of gemmtune (runtime/libgemmtune.so; the headers of the sources it was built from),
  2. the build/ folder of the checkout this file is in.
Needs a C++17 compiler, the CUDA toolkit's headers (cuda_runtime_api.h) and PyTorch's headers
(part of the torch wheel).
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

HERE = Path(__file__).resolve().parent


class GemmtuneNotFound(RuntimeError):
    pass


def _source_dir_of_build(build: Path) -> Path | None:
    cache = build / "CMakeCache.txt"
    if not cache.is_file():
        return None
    found = re.search(r"^gemmtune_SOURCE_DIR:STATIC=(.*)$", cache.read_text(), re.M)
    return Path(found.group(1)) if found else None


def find_gemmtune() -> tuple[list[str], Path]:
    """(include directories, the libgemmtune.so file whose soname the op library needs)."""
    root = os.environ.get("GEMMTUNE_ROOT")
    candidates = [Path(root)] if root else [HERE.parent / "build"]
    for base in candidates:
        for libdir in ("lib", "lib64", "lib/x86_64-linux-gnu"):
            lib = base / libdir / "libgemmtune.so"
            if lib.exists() and (base / "include" / "gemmtune" / "gemmtune.hpp").is_file():
                return [str(base / "include")], lib.resolve()
        lib = base / "runtime" / "libgemmtune.so"
        source = _source_dir_of_build(base)
        if lib.exists() and source is not None:
            # The build folder's generated headers (gemmtune/version.h) first, then the sources'.
            generated = base / "runtime" / "include"
            return [str(generated), str(source / "runtime" / "include")], lib.resolve()
    where = f"$GEMMTUNE_ROOT={root}" if root else f"{HERE.parent / 'build'} (the checkout's build folder)"
    raise GemmtuneNotFound(
        f"libgemmtune not found in {where}: build it (cmake --build build --target gemmtune_shared) or install it "
        "(cmake --install build --prefix PREFIX), and set GEMMTUNE_ROOT to that build folder or prefix"
    )


def soname(lib: Path) -> str:
    """libgemmtune.so.0.2.0 -> libgemmtune.so.0.2 (the SOVERSION the op library records)."""
    return re.sub(r"^(libgemmtune\.so\.\d+\.\d+)\..*$", r"\1", lib.name)


def shipped_databases(lib: Path) -> list[Path]:
    """The shipped tuning databases beside libgemmtune `lib`: share/gemmtune/tuning/*.db of its
    install prefix (lib/, lib64/ or lib/<multiarch>/ below it) or build folder (runtime/ below it)."""
    for base in list(lib.parents)[1:3]:
        folder = base / "share" / "gemmtune" / "tuning"
        if folder.is_dir():
            return sorted(folder.glob("*.db"))
    return []


class BuildWithLibrary(BuildExtension):
    """Builds the operator library, then copies libgemmtune.so next to it (gemmtune/lib/) and
    the shipped tuning databases into gemmtune/lib/tuning/."""

    def run(self):
        super().run()
        _, lib = find_gemmtune()
        for ext in self.extensions:
            target = Path(self.get_ext_fullpath(ext.name)).parent / "lib"
            target.mkdir(parents=True, exist_ok=True)
            shutil.copy2(lib, target / soname(lib))
            tuning = target / "tuning"
            shutil.rmtree(tuning, ignore_errors=True)  # no copy of a file that is gone
            for database in shipped_databases(lib):
                tuning.mkdir(exist_ok=True)
                shutil.copy2(database, tuning / database.name)


def extensions():
    includes, lib = find_gemmtune()
    return [
        CUDAExtension(
            "gemmtune._C",
            sorted(str(p.relative_to(HERE)) for p in (HERE / "csrc").glob("*.cpp")),
            include_dirs=includes,
            library_dirs=[str(lib.parent)],
            libraries=[f":{soname(lib)}"] if (lib.parent / soname(lib)).exists() else ["gemmtune"],
            extra_compile_args={"cxx": ["-std=c++17", "-O2", "-g0"]},
            extra_link_args=["-Wl,-rpath,$ORIGIN/lib"],
            py_limited_api=True,
        )
    ]


setup(
    ext_modules=extensions(),
    cmdclass={"build_ext": BuildWithLibrary.with_options(use_ninja=True)},
    options={"bdist_wheel": {"py_limited_api": "cp39"}},
)
