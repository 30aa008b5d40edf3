"""Shared fixtures. Tests marked `gpu` need a CUDA device and libgemmtune.so and skip without them;
the others run anywhere PyTorch imports (CI: tools/python-test.sh)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
import torch

REPO = Path(__file__).resolve().parents[2]

# The tests choose from the databases they make: the tuning databases shipped with gemmtune stay
# off (as in the C++ tests, tests/support/shipped_off.cpp) unless the environment says otherwise.
os.environ.setdefault("GEMMTUNE_NO_SHIPPED", "1")


def _gpu_missing() -> str:
    if not torch.cuda.is_available():
        return "no CUDA device (torch.cuda.is_available() is False)"
    import gemmtune

    try:
        gemmtune.library_path()
    except gemmtune.LibraryNotFoundError as error:
        return f"libgemmtune.so not found: {error}"
    return ""


def pytest_collection_modifyitems(config, items):
    missing = None
    for item in items:
        if "gpu" in item.keywords:
            if missing is None:
                missing = _gpu_missing()
            if missing:
                item.add_marker(pytest.mark.skip(reason=f"gpu test: {missing}"))


@pytest.fixture(scope="session")
def cli() -> str:
    """The `gemmtune` command line: $GEMMTUNE_CLI, else the checkout's build, else PATH."""
    for candidate in (os.environ.get("GEMMTUNE_CLI"), str(REPO / "build" / "tools" / "gemmtune"), shutil.which("gemmtune")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    pytest.skip("the gemmtune command line was not found: set GEMMTUNE_CLI=/path/to/gemmtune")
