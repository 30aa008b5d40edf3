#!/usr/bin/env python3
"""gemmtune against PyTorch on this machine's GPU, through the public Python API only.

Sections (--sections, default all):
  host      per-call cost of back-to-back gemmtune.mm against torch.mm (8^3, 64^3, 256^3, 1024^3)
  products  each product of the example transformer block (forward and backward, captured from
            its gemmtune copy) against torch.matmul, eager and replayed from a CUDA Graph, with the
            error of each against float64
  block     the block's forward pass and a training step (forward, cross-entropy, backward,
            AdamW): eager PyTorch FP32, gemmtune under each precision policy, torch.compile
            max-autotune (unless --skip-compile), torch.compile(fullgraph=True) of the gemmtune
            copy, and CUDA Graph capture of both, with errors against a float64 copy
  losses    --steps training steps from one seed: float64, eager FP32 (cuBLAS and cuBLASLt) and
            gemmtune under each policy, judged against float64 (the rule is printed)
PyTorch runs with TF32 off. The model is examples/python/transformer_block.py (hidden 1000, 8 heads
of 125, MLP 4000, vocabulary 50257, 3 x 333 tokens).

    # once: capture the block's products into bench.csv and tune them (ieee, then fp32 kernels)
    python python/benchmarks/torch_ops.py --db bench.db --tune-only --tune-precision ieee,fp32
    # then
    python python/benchmarks/torch_ops.py --db bench.db --quick --skip-compile --json bench.json

Exit status: 0 done, 1 a sweep or a section failed (the others still run), 2 a usage error or nothing to run on (no CUDA device, no
gemmtune library, no tuning database, no gemmtune CLI for --tune).
"""

from __future__ import annotations

import argparse
import copy
import importlib.util
import itertools
import json
import math
import os
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import time
import traceback
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable, Dict, List, Optional

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
SECTIONS = ("host", "products", "block", "losses")
PRECISIONS = ("ieee", "fp32", "tf32")
HOST_SIZES = (8, 64, 256, 1024)
REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "python" / "transformer_block.py"
# The loss judgement: gemmtune's largest per-step deviation from the float64 run may be at most
# this many times the larger of the two eager FP32 runs' (cuBLAS, cuBLASLt).
LOSS_NOISE_FACTOR = 2.0
LEARNING_RATE = 3e-4
LOSS_BATCHES = 4  # the training data: this many seeded batches, cycled
DEVICE = "cuda"

# Set by load_environment() once the arguments are parsed (so that --help needs no PyTorch).
torch = None
gemmtune = None
example = None


class Failure(Exception):
    """An expected failure: its message is printed (no traceback) and the script exits with `code`."""

    def __init__(self, message: str, code: int = EXIT_USAGE):
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Reps:
    """How much is measured: --quick or the default."""

    host_calls: int  # back-to-back calls per host-cost sample
    host_samples: int
    product_reps: int  # samples (medians) of the per-product and block timings
    block_reps: int
    train_reps: int
    warmup: int


FULL = Reps(host_calls=500, host_samples=11, product_reps=50, block_reps=30, train_reps=20, warmup=5)
QUICK = Reps(host_calls=100, host_samples=5, product_reps=15, block_reps=10, train_reps=5, warmup=3)


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", help="the tuning database (default: the library's: $GEMMTUNE_DB, else the user's cache)")
    parser.add_argument("--tune", action="store_true", help="first capture the block's products into --csv and tune them into --db with `gemmtune sweep`")
    parser.add_argument("--tune-only", action="store_true", help="tune (as --tune) and stop")
    parser.add_argument("--tune-precision", default="ieee", help="comma-separated sweeps to run: ieee, fp32, tf32 (default: ieee)")
    parser.add_argument("--budget", type=float, default=8.0, help="sweep seconds per problem (default: 8)")
    parser.add_argument("--csv", help="the captured problem file --tune writes (default: --db with the suffix .csv)")
    parser.add_argument("--precisions", default="ieee,fp32", help="gemmtune policies to measure (default: ieee,fp32)")
    parser.add_argument(
        "--fallback", choices=("torch", "never"), help="passed to gemmtune.configure() (default: the package's own; ignored where the package has no such option)"
    )
    parser.add_argument("--sections", default=",".join(SECTIONS), help=f"comma-separated parts to run (default: {','.join(SECTIONS)})")
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--skip-compile", action="store_true", help="leave out torch.compile(mode='max-autotune-no-cudagraphs') (it compiles for minutes)")
    parser.add_argument("--steps", type=int, default=100, help="training steps of the loss comparison (default: 100)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the loss comparison's data (default: 0)")
    parser.add_argument("--json", help="write every figure to this JSON file")
    args = parser.parse_args(argv)

    def names(text, allowed, option):
        items = [s.strip() for s in text.split(",") if s.strip()]
        bad = [s for s in items if s not in allowed]
        if bad or not items:
            parser.error(f"{option} {text!r}: use a comma-separated list of {', '.join(allowed)}")
        return list(dict.fromkeys(items))

    args.precisions = names(args.precisions, PRECISIONS, "--precisions")
    args.tune_precision = names(args.tune_precision, PRECISIONS, "--tune-precision")
    args.sections = names(args.sections, SECTIONS, "--sections")
    args.tune = args.tune or args.tune_only
    if args.steps < 1:
        parser.error(f"--steps {args.steps}: at least 1")
    if not args.budget > 0:
        parser.error(f"--budget {args.budget}: a positive number of seconds")
    if args.tune and not args.db:
        parser.error("--tune needs --db (the database the sweep writes)")
    if args.db and not args.tune and not os.path.isfile(args.db):
        parser.error(f"--db {args.db}: no such file; the products must be tuned first: add --tune")
    if args.csv is None and args.db:
        args.csv = str(Path(args.db).with_suffix(".csv"))
    return args


# ---- environment ------------------------------------------------------------------------------


def load_environment():
    """Imports PyTorch, gemmtune and the example; Failure when one is missing or there is no GPU."""
    global torch, gemmtune, example
    try:
        import torch as torch_module
    except ImportError as error:
        raise Failure(f"PyTorch does not import ({error}); run with a Python that has torch") from None
    torch = torch_module
    try:
        import gemmtune as gemmtune_module
    except ModuleNotFoundError:
        sys.path.insert(0, str(REPO / "python"))  # the checkout's package, as PYTHONPATH=python would
        try:
            import gemmtune as gemmtune_module
        except ImportError as error:
            raise Failure(f"the gemmtune package does not import ({error}); pip install ./python or set PYTHONPATH=python") from None
    except (ImportError, OSError, RuntimeError) as error:
        raise Failure(f"the gemmtune package does not import: {error}") from None
    gemmtune = gemmtune_module
    try:
        library = gemmtune.library_path() if hasattr(gemmtune, "library_path") else "(loaded by the package)"
    except (OSError, RuntimeError) as error:
        raise Failure(f"the gemmtune library does not load:\n{error}") from None
    if not torch.cuda.is_available():
        raise Failure("no CUDA device (torch.cuda.is_available() is False): this benchmark times GPU kernels; run it on a GPU machine")
    if not EXAMPLE.is_file():
        raise Failure(f"the example model {EXAMPLE} is missing (this script runs from a checkout of gemmtune)")
    spec = importlib.util.spec_from_file_location("transformer_block", EXAMPLE)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    return library


class Policy:
    """gemmtune.configure() with the database, a precision policy and, where the package has it,
    the fallback option."""

    def __init__(self, args):
        self.db, self.fallback = args.db, args.fallback
        self.fallback_note = f"fallback={args.fallback}" if args.fallback else "the package's default fallback"
        self.current = None

    def use(self, precision: str) -> None:
        if self.current == precision:
            return
        options = {"db_path": self.db, "precision": precision}
        if self.fallback:
            options["fallback"] = self.fallback
        try:
            gemmtune.configure(**options)
        except TypeError:
            if "fallback" not in options:
                raise
            del options["fallback"]
            gemmtune.configure(**options)
            self.fallback, self.fallback_note = None, f"fallback={self.fallback} asked, but this gemmtune.configure() has no such option"
            print(f"note: {self.fallback_note}; measured without it")
        self.current = precision


# ---- measurement ------------------------------------------------------------------------------


def event_ms(fn: Callable, reps: int, warmup: int, calls: int = 1) -> float:
    """Median over `reps` samples of the CUDA-event time of `calls` back-to-back calls, per call (ms)."""
    for _ in range(warmup):
        fn()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    samples = []
    for _ in range(reps):
        start.record()
        for _ in range(calls):
            fn()
        end.record()
        end.synchronize()
        samples.append(start.elapsed_time(end) / calls)
    return statistics.median(samples)


_capture_stream = None


def capture_graph(fn: Callable, warmup: int = 3, after_first: Optional[Callable] = None):
    """(graph, output) of `fn` captured in a CUDA Graph, after `warmup` runs on the capture stream
    (gemmtune needs each product run once on that stream first). `after_first` runs after the
    first of them. One capture stream serves every graph: gemmtune keeps workspaces per stream."""
    global _capture_stream
    if _capture_stream is None:
        _capture_stream = torch.cuda.Stream()
    stream = _capture_stream
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for i in range(warmup):
            fn()
            if i == 0 and after_first is not None:
                after_first()
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=stream):
        output = fn()
    return graph, output


def error_text(error: BaseException) -> str:
    """One line for a table: the exception's class and first line, and the one it interrupted."""
    lines = []
    while error is not None and len(lines) < 2:
        first = (str(error).strip().splitlines() or [""])[0]
        lines.append(f"{type(error).__name__}: {first[:160]}")
        error = error.__context__
    return " <- ".join(lines)


def relative_error(result, reference) -> float:
    """Largest elementwise error against a float64 result, relative to its largest magnitude."""
    return example.relative_error(result, reference)


def geomean(values: List[float]) -> Optional[float]:
    values = [v for v in values if v]
    return statistics.geometric_mean(values) if values else None


def fmt(value, spec: str = ".3f", suffix: str = "") -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{value:{spec}}{suffix}"


def ratio(baseline: Optional[float], ours: Optional[float]) -> Optional[float]:
    """Speedup over the baseline: above 1 is faster than it."""
    return baseline / ours if baseline and ours else None


def print_table(title: str, headers: List[str], rows: List[List[str]], notes: List[str] = (), left: int = 1) -> None:
    """A plain-text table: the first `left` columns left-aligned, the others right-aligned."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
    print(f"\n== {title}")
    line = lambda cells: "  ".join(c.ljust(w) if i < left else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths))).rstrip()
    print(line(headers))
    print("  ".join("-" * w for w in widths))
    for row in rows:
        print(line(row))
    for note in notes:
        print(f"  {note}")
    sys.stdout.flush()


def source(policy: Policy, precision: str, m, n, k, layout, batch) -> str:
    """Where the dispatcher's kernel comes from under `precision` (explain's `source` line)."""
    policy.use(precision)
    try:
        return example.source(m, n, k, layout, batch)
    except Exception as error:  # explain is informative only
        return f"? ({type(error).__name__})"


# ---- 1. per-call host cost --------------------------------------------------------------------


def host_cost(fn: Callable, reps: Reps) -> Dict[str, float]:
    """Per call, in us (medians over samples of back-to-back calls): `host` the time to enqueue
    (perf_counter, no synchronization), `events` the CUDA-event time of the calls (host + device),
    `wall` host time until they finished (perf_counter up to a synchronize)."""
    for _ in range(max(20, reps.warmup)):
        fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    host, events, wall = [], [], []
    for _ in range(reps.host_samples):
        torch.cuda.synchronize()
        start.record()
        t0 = time.perf_counter()
        for _ in range(reps.host_calls):
            fn()
        t1 = time.perf_counter()
        end.record()
        end.synchronize()
        t2 = time.perf_counter()
        host.append((t1 - t0) * 1e6 / reps.host_calls)
        wall.append((t2 - t0) * 1e6 / reps.host_calls)
        events.append(start.elapsed_time(end) * 1e3 / reps.host_calls)
    return {"host_us": statistics.median(host), "events_us": statistics.median(events), "wall_us": statistics.median(wall)}


def run_host(args, policy: Policy, reps: Reps, results: dict) -> None:
    policy.use(args.precisions[0])
    rows, table = [], []
    for n in HOST_SIZES:
        a, b = torch.randn(n, n, device=DEVICE), torch.randn(n, n, device=DEVICE)
        theirs = host_cost(lambda: torch.mm(a, b), reps)
        ours = host_cost(lambda: gemmtune.mm(a, b), reps)
        where = source(policy, args.precisions[0], n, n, n, "nn", 1)
        rows.append({"size": n, "torch": theirs, "gemmtune": ours, "source": where})
        table.append(
            [f"{n}x{n}x{n}", where]
            + [fmt(d[key], ".1f") for key in ("host_us", "events_us", "wall_us") for d in (theirs, ours)]
            + [fmt(ours["host_us"] - theirs["host_us"], "+.1f")]
        )
    print_table(
        f"1. per-call cost of mm, back to back ({reps.host_calls} calls a sample, median of {reps.host_samples}; us per call)",
        ["mm", "source", "host torch", "host gemmtune", "events torch", "events gemmtune", "wall torch", "wall gemmtune", "host diff"],
        table,
        [
            "host: enqueue time (perf_counter, no synchronize); events: CUDA events around the calls (host + device);",
            f"wall: perf_counter until a synchronize; gemmtune under precision {args.precisions[0]}, {policy.fallback_note}",
        ],
    )
    results["host"] = rows


# ---- 2. each captured product -----------------------------------------------------------------


@dataclass
class Product:
    m: int
    n: int
    k: int
    layout: str
    batch: int
    passes: str  # fwd, bwd or fwd+bwd
    calls: int

    @property
    def label(self) -> str:
        return f"{self.m}x{self.n}x{self.k} {self.layout}" + (f" b{self.batch}" if self.batch > 1 else "")


def captured_products(base, x, policy: Policy, precision: str, path: Optional[str] = None) -> List[Product]:
    """The products the block's gemmtune copy runs in a forward and backward pass (capture of
    the copy, whose backward products differ from PyTorch's own), in the order first seen."""
    policy.use(precision)
    fast = example.gemmtune_copy(base)
    forward = {(p.m, p.n, p.k, p.layout, p.batch): p.calls for p in gemmtune.capture(fast, (x,)).problems}
    products = []
    for p in gemmtune.capture(fast, (x,), path, backward=True).problems:
        key = (p.m, p.n, p.k, p.layout, p.batch)
        passes = "bwd" if key not in forward else "fwd" if p.calls == forward[key] else "fwd+bwd"
        products.append(Product(*key, passes, p.calls))
    del fast
    return products


def operand_sets(p: Product, l2_bytes: int):
    """Copies of A and B (as views of the problem's layout) whose bytes, with the outputs, span
    twice the L2 cache, so that back-to-back calls cycling through them start with cold L2."""
    per_set = 4 * p.batch * (p.m * p.k + p.k * p.n + p.m * p.n)
    copies = max(1, min(64, math.ceil(2 * l2_bytes / per_set)))
    return [example.operands(p.m, p.n, p.k, p.layout, p.batch) for _ in range(copies)]


def run_products(args, policy: Policy, reps: Reps, base, x, results: dict) -> None:
    products = captured_products(base, x, policy, args.precisions[0])
    l2 = torch.cuda.get_device_properties(torch.cuda.current_device()).L2_cache_size
    torch.manual_seed(args.seed)
    sets = [operand_sets(p, l2) for p in products]
    references = []
    for pairs in sets:
        a, b = pairs[0]
        references.append(torch.matmul(a.double(), b.double()))
    rows = [{**asdict(p), "copies": len(pairs)} for p, pairs in zip(products, sets)]

    def measure(name: str, impl: Callable) -> None:
        for p, pairs, reference, row in zip(products, sets, references, rows):
            calls = max(4, len(pairs))
            cycle = itertools.cycle(pairs)
            try:
                row[f"err_{name}"] = relative_error(impl(*pairs[0]), reference)
                row[f"ms_{name}"] = event_ms(lambda: impl(*next(cycle)), reps.product_reps, reps.warmup, calls)
            except Exception as error:  # reported in the table's notes; the other products still run
                row[f"err_{name}"] = row[f"ms_{name}"] = row[f"graph_ms_{name}"] = None
                row[f"error_{name}"] = error_text(error)
                continue
            try:
                graph, _ = capture_graph(lambda: [impl(*next(cycle)) for _ in range(calls)])
                row[f"graph_ms_{name}"] = event_ms(graph.replay, reps.product_reps, 1) / calls
                del graph
            except Exception as error:
                row[f"graph_ms_{name}"] = None
                row[f"graph_error_{name}"] = error_text(error)

    measure("torch", torch.matmul)
    for precision in args.precisions:
        policy.use(precision)
        measure(precision, lambda a, b: (gemmtune.bmm if a.dim() == 3 else gemmtune.mm)(a, b))
        for p, row in zip(products, rows):
            row[f"source_{precision}"] = source(policy, precision, p.m, p.n, p.k, p.layout, p.batch)

    table, graph_table, failures, notes = [], [], [], []
    for p, row in zip(products, rows):
        cells = [p.label, p.passes, fmt(row["ms_torch"], ".4f")]
        graph_cells = [p.label, fmt(row["graph_ms_torch"], ".4f")]
        for precision in args.precisions:
            row[f"speedup_{precision}"] = ratio(row["ms_torch"], row[f"ms_{precision}"])
            row[f"graph_speedup_{precision}"] = ratio(row["graph_ms_torch"], row[f"graph_ms_{precision}"])
            cells += [fmt(row[f"ms_{precision}"], ".4f"), fmt(row[f"speedup_{precision}"], ".2f", "x"), row[f"source_{precision}"]]
            graph_cells += [fmt(row[f"graph_ms_{precision}"], ".4f"), fmt(row[f"graph_speedup_{precision}"], ".2f", "x")]
        cells += [fmt(row[f"err_{name}"], ".1e") for name in ["torch", *args.precisions]]
        table.append(cells)
        graph_table.append(graph_cells)
        for name in ["torch", *args.precisions]:
            failures += [f"{p.label}, {name}: {row[f'error_{name}']}"] if f"error_{name}" in row else []
            notes += [f"{p.label}, CUDA Graph of {name}: {row[f'graph_error_{name}']}"] if f"graph_error_{name}" in row else []

    summary = {}
    for precision in args.precisions:
        speedups = [row[f"speedup_{precision}"] for row in rows]
        graph_speedups = [row[f"graph_speedup_{precision}"] for row in rows]
        summary[precision] = {
            "geomean": geomean(speedups),
            "min": min((s for s in speedups if s), default=None),
            "graph_geomean": geomean(graph_speedups),
            "graph_min": min((s for s in graph_speedups if s), default=None),
        }
    headers = ["problem (MxNxK layout)", "pass", "torch ms"]
    for precision in args.precisions:
        headers += [f"{precision} ms", "speedup", "source"]
    headers += [f"err {name}" for name in ["torch", *args.precisions]]
    print_table(
        f"2. the block's {len(products)} products (gemmtune copy, forward and backward) against torch.matmul, TF32 off",
        headers,
        table,
        failures
        + [
            f"ms: median of {reps.product_reps} CUDA-event samples, each of back-to-back calls cycling through copies of the",
            f"operands spanning twice the L2 cache ({l2 / 2**20:.0f} MiB); speedup: torch ms / gemmtune ms; err: largest error",
            f"against a float64 product, relative to its largest magnitude; {policy.fallback_note}",
        ]
        + [
            f"geometric mean {precision}: {fmt(s['geomean'], '.3f', 'x')} (lowest {fmt(s['min'], '.2f', 'x')})"
            for precision, s in summary.items()
        ],
    )
    graph_headers = ["problem (MxNxK layout)", "torch ms"]
    for precision in args.precisions:
        graph_headers += [f"{precision} ms", "speedup"]
    print_table(
        "2b. the same products replayed from a CUDA Graph (no per-call host cost: the kernels' own time)",
        graph_headers,
        graph_table,
        notes
        + [
            f"geometric mean {precision}: {fmt(s['graph_geomean'], '.3f', 'x')} (lowest {fmt(s['graph_min'], '.2f', 'x')})"
            for precision, s in summary.items()
        ],
    )
    results["products"] = {"rows": rows, "summary": summary, "l2_bytes": l2}


# ---- 3. the block: forward and a training step ------------------------------------------------


@dataclass
class Variant:
    name: str
    precision: Optional[str] = None  # the gemmtune policy; None: PyTorch only
    swap: bool = False  # the gemmtune copy (Linear layers and attention products)
    compile: Optional[dict] = None  # torch.compile options
    graph: bool = False  # captured in a CUDA Graph


def block_variants(args) -> List[Variant]:
    last = args.precisions[-1]
    variants = [Variant("eager FP32 (torch)")]
    variants += [Variant(f"gemmtune {p}", p, swap=True) for p in args.precisions]
    if not args.skip_compile:
        variants.append(Variant("torch.compile max-autotune-no-cudagraphs", compile={"mode": "max-autotune-no-cudagraphs"}))
    variants.append(Variant(f"torch.compile(fullgraph) gemmtune {last}", last, swap=True, compile={"fullgraph": True}))
    variants.append(Variant("CUDA Graph, torch", graph=True))
    variants.append(Variant(f"CUDA Graph, gemmtune {last}", last, swap=True, graph=True))
    return variants


def build(variant: Variant, base, policy: Policy):
    """(module holding the parameters, module to call) for a variant: a fresh copy of `base`."""
    if variant.precision:
        policy.use(variant.precision)
    module = example.gemmtune_copy(base) if variant.swap else copy.deepcopy(base)
    if variant.compile is None:
        return module, module
    torch._dynamo.reset()  # a fresh cache: every copy of the block shares one forward code object
    return module, torch.compile(module, **variant.compile)


def cross_entropy(logits, target):
    return torch.nn.functional.cross_entropy(logits.flatten(0, 1), target.flatten())


def grad_error(module, grads64: Dict[str, object]) -> float:
    """The worst parameter's gradient error against float64 (relative to its largest magnitude)."""
    missing = [name for name, p in module.named_parameters() if p.grad is None]
    if missing:
        raise RuntimeError(f"no gradient for {', '.join(missing)}")
    return max(relative_error(p.grad, grads64[name]) for name, p in module.named_parameters())


def measure_forward(variant: Variant, base, x, y64, policy: Policy, reps: Reps) -> dict:
    row = {}
    try:
        _, module = build(variant, base, policy)
        with torch.no_grad():
            t0 = time.perf_counter()
            if variant.graph:
                graph, output = capture_graph(lambda: module(x))
                run = graph.replay
                run()
            else:
                output = module(x)
                run = lambda: module(x)
            torch.cuda.synchronize()
            row["first_call_s"] = time.perf_counter() - t0
            row["error"] = relative_error(output, y64)
            row["ms"] = event_ms(run, reps.block_reps, reps.warmup)
    except Exception as error:
        row["failed"] = error_text(error)
        torch._dynamo.reset()
    return row


def measure_training(variant: Variant, base, batch, grads64, loss64, policy: Policy, reps: Reps) -> dict:
    x, target = batch
    row = {}
    try:
        params, module = build(variant, base, policy)
        optimizer = torch.optim.AdamW(params.parameters(), lr=LEARNING_RATE, capturable=variant.graph)

        def step():
            optimizer.zero_grad(set_to_none=True)
            loss = cross_entropy(module(x), target)
            loss.backward()
            optimizer.step()
            return loss

        def check(loss):
            row["grad_error"] = grad_error(params, grads64)
            row["loss_error"] = abs(loss.item() - loss64) / abs(loss64)

        t0 = time.perf_counter()
        if variant.graph:
            losses = []  # the first one is checked after the first warm-up step
            graph, _ = capture_graph(lambda: losses.append(step()) or losses[-1], after_first=lambda: check(losses[0]))
            del losses[:]
            run = graph.replay
        else:
            check(step())
            run = step
        torch.cuda.synchronize()
        row["first_step_s"] = time.perf_counter() - t0
        row["ms"] = event_ms(run, reps.train_reps, reps.warmup)
    except Exception as error:
        row["failed"] = error_text(error)
        torch._dynamo.reset()
    return row


def training_batch(generator):
    shape = (example.BATCH, example.SEQ, example.HIDDEN)
    x = torch.randn(shape, device=DEVICE, generator=generator)
    target = torch.randint(0, example.VOCAB, shape[:2], device=DEVICE, generator=generator)
    return x, target


def run_block(args, policy: Policy, reps: Reps, base, x, results: dict) -> None:
    generator = torch.Generator(device=DEVICE).manual_seed(args.seed)
    batch = training_batch(generator)
    model64 = copy.deepcopy(base).double()
    with torch.no_grad():
        y64 = model64(x.double())
    loss = cross_entropy(model64(batch[0].double()), batch[1])
    loss.backward()
    loss64 = loss.item()
    grads64 = {name: p.grad for name, p in model64.named_parameters()}
    del model64, loss

    rows = []
    for variant in block_variants(args):
        print(f"  block: {variant.name} ...", flush=True)
        forward = measure_forward(variant, base, x, y64, policy, reps)
        training = measure_training(variant, base, batch, grads64, loss64, policy, reps)
        rows.append({"variant": asdict(variant), "forward": forward, "training": training})
        torch.cuda.empty_cache()
    del grads64

    weight_mb = sum(p.numel() * p.element_size() for p in base.parameters()) / 1e6
    l2_mb = torch.cuda.get_device_properties(torch.cuda.current_device()).L2_cache_size / 1e6
    l2_note = f"exceed the L2 cache ({l2_mb:.0f} MB), so no input rotation" if weight_mb > 2 * l2_mb else f"fit twice in the L2 cache ({l2_mb:.0f} MB): warm-L2 times"
    eager_fwd, eager_train = rows[0]["forward"].get("ms"), rows[0]["training"].get("ms")
    table, notes = [], []
    for row in rows:
        f, t, name = row["forward"], row["training"], row["variant"]["name"]
        f["speedup"], t["speedup"] = ratio(eager_fwd, f.get("ms")), ratio(eager_train, t.get("ms"))
        table.append(
            [
                name,
                fmt(f.get("ms"), ".3f"),
                fmt(f["speedup"], ".2f", "x"),
                fmt(f.get("error"), ".1e"),
                fmt(t.get("ms"), ".3f"),
                fmt(t["speedup"], ".2f", "x"),
                fmt(t.get("grad_error"), ".1e"),
                fmt(t.get("loss_error"), ".1e"),
                fmt(f.get("first_call_s"), ".1f"),
                fmt(t.get("first_step_s"), ".1f"),
            ]
        )
        notes += [f"{name}, {what}: {part['failed']}" for what, part in (("forward", f), ("training", t)) if "failed" in part]
    print_table(
        f"3. the block ({example.BATCH}x{example.SEQ} tokens): forward, and a training step (forward, cross-entropy, backward, AdamW)",
        ["variant", "fwd ms", "speedup", "fwd err", "step ms", "speedup", "grad err", "loss err", "1st fwd s", "1st step s"],
        table,
        notes
        + [
            f"ms: median of {reps.block_reps} (forward) / {reps.train_reps} (step) CUDA-event samples after warm-up; the weights",
            f"({weight_mb:.0f} MB) {l2_note}; speedup over eager FP32; errors against a float64 copy of the",
            "model (forward output; the worst parameter's gradient; the loss), each relative to the largest magnitude;",
            f"1st: the first call's seconds (for torch.compile, its compile time); {policy.fallback_note}",
        ],
    )
    results["block"] = rows


# ---- 4. losses over training steps ------------------------------------------------------------


def loss_curve(module, batches, steps: int, dtype) -> List[float]:
    optimizer = torch.optim.AdamW(module.parameters(), lr=LEARNING_RATE)
    losses = []
    for i in range(steps):
        x, target = batches[i % len(batches)]
        optimizer.zero_grad(set_to_none=True)
        loss = cross_entropy(module(x.to(dtype)), target)
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
    return [float(v) for v in torch.stack(losses).tolist()]


def run_losses(args, policy: Policy, base, results: dict) -> None:
    generator = torch.Generator(device=DEVICE).manual_seed(args.seed)
    batches = [training_batch(generator) for _ in range(LOSS_BATCHES)]
    curves, failed = {}, {}

    def run(name, make, dtype=torch.float32):
        print(f"  losses: {name} ...", flush=True)
        try:
            curves[name] = loss_curve(make(), batches, args.steps, dtype)
        except Exception as error:
            failed[name] = error_text(error)

    run("float64", lambda: copy.deepcopy(base).double(), torch.float64)
    run("eager FP32 cuBLAS", lambda: copy.deepcopy(base))
    previous = torch.backends.cuda.preferred_blas_library()
    try:
        torch.backends.cuda.preferred_blas_library("cublaslt")
        run("eager FP32 cuBLASLt", lambda: copy.deepcopy(base))
    except Exception as error:  # a PyTorch without the switch: one noise run fewer
        failed["eager FP32 cuBLASLt"] = error_text(error)
    finally:
        torch.backends.cuda.preferred_blas_library(previous)
    for precision in args.precisions:
        policy.use(precision)
        run(f"gemmtune {precision}", lambda: example.gemmtune_copy(base))

    reference = curves.get("float64")
    deviation = {}
    if reference:
        for name, curve in curves.items():
            steps = [abs(a - r) / abs(r) for a, r in zip(curve, reference)]
            deviation[name] = math.inf if any(math.isnan(d) for d in steps) else max(steps)
    eager = [deviation[n] for n in ("eager FP32 cuBLAS", "eager FP32 cuBLASLt") if n in deviation]
    noise = max(eager) if eager else None
    verdicts = {}
    for precision in args.precisions:
        name = f"gemmtune {precision}"
        if name in deviation and noise is not None:
            verdicts[name] = "within FP32 noise" if deviation[name] <= LOSS_NOISE_FACTOR * noise else "OUTSIDE FP32 noise"
    cublas, cublaslt = curves.get("eager FP32 cuBLAS"), curves.get("eager FP32 cuBLASLt")
    eager_pair = max(abs(a - b) / abs(b) for a, b in zip(cublaslt, cublas)) if cublas and cublaslt else None

    names = list(curves)
    shown = sorted({0, args.steps - 1, *range(9, args.steps, max(1, args.steps // 10))})
    table = [[str(i + 1)] + [fmt(curves[n][i], ".6f") for n in names] for i in shown]
    table.append(["max dev"] + [fmt(deviation.get(n), ".1e") for n in names])
    table.append(["verdict"] + [verdicts.get(n, "reference" if n == "float64" else "noise" if n.startswith("eager") else "-") for n in names])
    print_table(
        f"4. losses of {args.steps} training steps from one seed (AdamW lr {LEARNING_RATE}, {LOSS_BATCHES} batches cycled)",
        ["step"] + names,
        table,
        [f"{name}: {text}" for name, text in failed.items()]
        + [
            "max dev: the largest per-step |loss - float64 loss| / |float64 loss|. Judgement: gemmtune is within FP32 noise",
            f"when its max dev is at most {LOSS_NOISE_FACTOR:g}x the larger of the two eager FP32 runs' (TF32 off; cuBLAS and",
            f"cuBLASLt, which may pick other algorithms). The eager runs differ from each other by up to {fmt(eager_pair, '.1e')}.",
        ],
    )
    results["losses"] = {
        "curves": curves,
        "max_relative_deviation_from_float64": deviation,
        "eager_noise": noise,
        "eager_cublas_vs_cublaslt": eager_pair,
        "verdicts": verdicts,
        "failed": failed,
        "rule": f"max per-step relative deviation from float64 <= {LOSS_NOISE_FACTOR:g} x the larger eager FP32 one",
    }


# ---- tuning and the summary -------------------------------------------------------------------


def find_cli() -> str:
    cli = os.environ.get("GEMMTUNE_CLI") or shutil.which("gemmtune")
    if not cli:
        raise Failure("--tune runs `gemmtune sweep`, but no gemmtune CLI was found: set GEMMTUNE_CLI=/path/to/build/tools/gemmtune or put it on PATH")
    return cli


def tune(args, policy: Policy, base, x, results: dict) -> None:
    cli = find_cli()
    products = captured_products(base, x, policy, args.precisions[0], args.csv)
    print(f"\n== tuning: {len(products)} products (forward and backward of the gemmtune copy) written to {args.csv}")
    gemmtune.configure()  # closes the dispatchers' database while the sweep writes it
    policy.current = None
    sweeps = []
    for precision in args.tune_precision:
        command = [cli, "sweep", "--file", args.csv, "--db", args.db, "--budget", f"{args.budget:g}"]
        if precision != "ieee":
            command += ["--precision", precision]
        print(f"$ {shlex.join(command)}", flush=True)
        t0 = time.perf_counter()
        status = subprocess.run(command).returncode
        seconds = time.perf_counter() - t0
        sweeps.append({"precision": precision, "command": command, "seconds": seconds, "status": status})
        results["tuning"] = sweeps
        if status != 0:
            raise Failure(f"gemmtune sweep ({precision}) failed with exit status {status}", EXIT_FAILED)
        print(f"sweep ({precision}): {seconds:.1f} s", flush=True)


def summarize(args, results: dict) -> None:
    rows = []
    for row in results.get("host", []):
        t, g = row["torch"], row["gemmtune"]
        n = row["size"]
        rows.append([f"{n}^3 mm host us/call", f"torch {t['host_us']:.1f}, gemmtune {g['host_us']:.1f}", f"{g['host_us'] - t['host_us']:+.1f} us"])
        rows.append([f"{n}^3 mm host+device us/call", f"torch {t['events_us']:.1f}, gemmtune {g['events_us']:.1f}", fmt(ratio(t["events_us"], g["events_us"]), ".2f", "x")])
    for precision, s in results.get("products", {}).get("summary", {}).items():
        rows.append([f"products {precision}, back to back", f"geomean {fmt(s['geomean'], '.3f', 'x')}", f"lowest {fmt(s['min'], '.2f', 'x')}"])
        rows.append([f"products {precision}, CUDA Graph", f"geomean {fmt(s['graph_geomean'], '.3f', 'x')}", f"lowest {fmt(s['graph_min'], '.2f', 'x')}"])
    for row in results.get("block", []):
        name, f, t = row["variant"]["name"], row["forward"], row["training"]
        fwd = f"{fmt(f.get('ms'), '.3f')} ms {fmt(f.get('speedup'), '.2f', 'x')} err {fmt(f.get('error'), '.1e')}" if "failed" not in f else "failed"
        step = f"{fmt(t.get('ms'), '.3f')} ms {fmt(t.get('speedup'), '.2f', 'x')}" if "failed" not in t else "failed"
        note = f"compile {fmt(f.get('first_call_s'), '.0f')} + {fmt(t.get('first_step_s'), '.0f')} s" if row["variant"]["compile"] else ""
        rows.append([f"block {name}", f"fwd {fwd}; step {step}", note])
    losses = results.get("losses")
    if losses:
        for name, verdict in losses["verdicts"].items():
            dev = losses["max_relative_deviation_from_float64"][name]
            rows.append([f"{args.steps} steps, {name}", f"max dev {dev:.1e} (eager {fmt(losses['eager_noise'], '.1e')})", verdict])
    print_table("summary (speedup: torch time / gemmtune time; above 1 is faster than PyTorch)", ["measure", "result", "note"], rows, left=3)


def environment(args, library: str, policy: Policy) -> dict:
    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    return {
        "gpu": props.name,
        "sm": f"{props.major}.{props.minor}",
        "l2_bytes": props.L2_cache_size,
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "python": platform.python_version(),
        "gemmtune": getattr(gemmtune, "__version__", "?"),
        "library": library,
        "db": args.db or "the library's default",
        "fallback": policy.fallback_note,
        "precisions": args.precisions,
        "quick": args.quick,
        "date_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
    }


def main(argv=None) -> int:
    args = parse_args(argv)
    results: dict = {"arguments": {k: v for k, v in vars(args).items()}}
    started = time.perf_counter()
    try:
        library = load_environment()
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        policy = Policy(args)
        reps = QUICK if args.quick else FULL
        results["environment"] = env = environment(args, library, policy)
        print(f"GPU {env['gpu']} (sm_{env['sm'].replace('.', '')}), PyTorch {env['torch']} (CUDA {env['cuda']}), Python {env['python']}, TF32 off")
        print(f"gemmtune {env['gemmtune']}, library {library}, database {env['db']}")
        if not args.db:
            print("note: no --db: the library's default database; products it has not tuned run on built-in or nearest kernels")
        base, (x,) = example.build(DEVICE)
        if args.tune:
            tune(args, policy, base, x, results)
            if args.tune_only:
                return EXIT_OK
        sections = {
            "host": lambda: run_host(args, policy, reps, results),
            "products": lambda: run_products(args, policy, reps, base, x, results),
            "block": lambda: run_block(args, policy, reps, base, x, results),
            "losses": lambda: run_losses(args, policy, base, results),
        }
        failed = []
        for name in args.sections:
            try:
                sections[name]()
            except Exception as error:  # a bug or an unexpected failure: report it, run the rest
                traceback.print_exc()
                failed.append(f"{name}: {error_text(error)}")
                torch.cuda.empty_cache()
        if failed:
            results["failed_sections"] = failed
        summarize(args, results)
        results["seconds"] = time.perf_counter() - started
        print(f"\ndone in {results['seconds']:.0f} s" + "".join(f"\nsection {text}" for text in failed))
        return EXIT_FAILED if failed else EXIT_OK
    except Failure as failure:
        print(f"torch_ops: {failure}", file=sys.stderr)
        return failure.code
    finally:
        if args.json:
            try:
                Path(args.json).parent.mkdir(parents=True, exist_ok=True)
                with open(args.json, "w") as f:
                    json.dump(results, f, indent=1, default=str)
                print(f"figures written to {args.json}", file=sys.stderr)
            except OSError as error:
                print(f"torch_ops: cannot write {args.json}: {error}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
