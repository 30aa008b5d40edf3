"""python/benchmarks/torch_ops.py without a GPU: its usage errors and the no-device message, as
exit status 2 without a traceback (the benchmark itself runs on a GPU machine)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import torch

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "torch_ops.py"


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--steps", "0"], "--steps 0: at least 1"),
        (["--precisions", "ieee,fp64"], "--precisions 'ieee,fp64'"),
        (["--sections", "host,nothing"], "--sections 'host,nothing'"),
        (["--tune"], "--tune needs --db"),
        (["--db", "/nonexistent/bench.db"], "the products must be tuned first: add --tune"),
    ],
)
def test_usage_errors(args, message):
    run = _run(*args)
    assert run.returncode == 2, run.stderr
    assert message in run.stderr


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a CUDA device")
def test_without_a_gpu_exits_2_with_a_message(tmp_path):
    figures = tmp_path / "figures.json"
    run = _run("--quick", "--json", str(figures))
    assert run.returncode == 2, run.stdout + run.stderr
    assert "Traceback" not in run.stderr
    assert "torch_ops: no CUDA device" in run.stderr or "torch_ops: the gemmtune library does not load" in run.stderr
    assert figures.exists()
