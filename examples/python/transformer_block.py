"""A transformer block with a language-model head, in odd sizes (hidden 1000, 8 heads of 125, MLP
4000, vocabulary 50257, 3 sequences of 333 tokens), run through gemmtune and compared with PyTorch.

    # 1. capture its matrix products (no GPU needed)
    python -m gemmtune capture examples/python/transformer_block.py:build -o block.csv
    # 2. tune them on the GPU
    build/tools/gemmtune sweep --file block.csv --db block.db
    # 3. run: per product and for the whole block, gemmtune against torch.matmul (TF32 off)
    python examples/python/transformer_block.py --db block.db --csv block.csv

Step 3 prints one row per captured problem (times are medians with a cold L2 cache; errors are
the largest elementwise error against a float64 product, relative to the largest output) and
the block's forward pass both ways.
"""

from __future__ import annotations

import argparse
import copy
import statistics
import sys

import torch

import gemmtune

HIDDEN, HEADS, MLP, VOCAB = 1000, 8, 4000, 50257
BATCH, SEQ = 3, 333


class Block(torch.nn.Module):
    """Pre-norm attention and MLP, then the vocabulary head. Attention's two batched products go
    through `self.bmm` (torch.bmm; gemmtune.bmm in the gemmtune copy)."""

    def __init__(self, hidden=HIDDEN, heads=HEADS, mlp=MLP, vocab=VOCAB):
        super().__init__()
        self.heads, self.bmm = heads, torch.bmm
        self.norm1, self.norm2 = torch.nn.LayerNorm(hidden), torch.nn.LayerNorm(hidden)
        self.qkv = torch.nn.Linear(hidden, 3 * hidden)
        self.proj = torch.nn.Linear(hidden, hidden)
        self.up = torch.nn.Linear(hidden, mlp)
        self.down = torch.nn.Linear(mlp, hidden)
        self.head = torch.nn.Linear(hidden, vocab, bias=False)

    def forward(self, x):
        b, t, h = x.shape
        d = h // self.heads
        # (3, b * heads, t, d): q, k, v of every head as one batch.
        q, k, v = self.qkv(self.norm1(x)).view(b, t, 3, self.heads, d).permute(2, 0, 3, 1, 4).reshape(3, b * self.heads, t, d)
        scores = self.bmm(q, k.transpose(1, 2)) * d**-0.5
        causal = torch.ones(t, t, dtype=torch.bool, device=x.device).triu(1)
        attention = self.bmm(scores.masked_fill(causal, float("-inf")).softmax(-1), v)
        x = x + self.proj(attention.view(b, self.heads, t, d).transpose(1, 2).reshape(b, t, h))
        x = x + self.down(torch.nn.functional.gelu(self.up(self.norm2(x))))
        return self.head(x)


def build(device="cpu"):
    """The entry point for `python -m gemmtune capture`: (model, example_inputs)."""
    torch.manual_seed(0)
    return Block().to(device), (torch.randn(BATCH, SEQ, HIDDEN, device=device),)


def gemmtune_copy(model: Block) -> Block:
    """The same block with its Linear layers and attention products on gemmtune."""
    fast = copy.deepcopy(model)
    fast.bmm = gemmtune.bmm
    gemmtune.nn.swap_linear(fast)
    return fast


def read_problems(path):
    """(m, n, k, layout, batch, note) of each row of a problem file (capture's or hand-written)."""
    problems = []
    for line in open(path):
        text, _, note = line.partition("#")
        cols = [c.strip() for c in text.split(",")]
        if len(cols) < 3 or not cols[0].isdigit():
            continue
        layout = cols[3] if len(cols) > 3 and cols[3] else "nn"
        batch = int(cols[4]) if len(cols) > 4 and cols[4] else 1
        problems.append((int(cols[0]), int(cols[1]), int(cols[2]), layout, batch, note.strip()))
    return problems


class Timer:
    """Median time of a CUDA call with the L2 cache flushed before each run (CUDA events)."""

    def __init__(self, reps):
        self.reps = reps
        self.flush = torch.empty(256 * 1024 * 1024 // 4, device="cuda")

    def __call__(self, fn):
        for _ in range(3):
            fn()
        times = []
        for _ in range(self.reps):
            self.flush.zero_()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
        return statistics.median(times)


def operands(m, n, k, layout, batch):
    """A and B of the row-major problem as PyTorch views: op t is a transposed view."""
    lead = (batch,) if batch > 1 else ()

    def stored(rows, cols, op):
        x = torch.randn(*lead, *((rows, cols) if op == "n" else (cols, rows)), device="cuda")
        return x if op == "n" else x.transpose(-2, -1)

    return stored(m, k, layout[0]), stored(k, n, layout[1])


def relative_error(result, reference):
    return ((result.double() - reference).abs().max() / reference.abs().max()).item()


def source(m, n, k, layout, batch):
    """Where the dispatcher's kernel for this problem comes from (exact: tuned for this shape)."""
    for line in gemmtune.explain(m, n, k, layout=layout, batch=batch).splitlines():
        if line.startswith("source"):
            return line.split()[1].rstrip(":")
    return "?"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", help="the tuning database (default: the library's, $GEMMTUNE_DB or the user's cache)")
    parser.add_argument("--csv", help="the captured problem file (default: capture the block again)")
    parser.add_argument("--reps", type=int, default=20, help="timed runs per measurement (median)")
    args = parser.parse_args(argv)
    if not torch.cuda.is_available():
        print("transformer_block: no CUDA device (torch.cuda.is_available() is False); step 3 needs a GPU", file=sys.stderr)
        return 3
    torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = False
    if args.db:
        gemmtune.configure(db_path=args.db)
    if args.csv:
        problems = read_problems(args.csv)
    else:
        model, inputs = build()
        problems = [(p.m, p.n, p.k, p.layout, p.batch, f"{p.calls} call(s)") for p in gemmtune.capture(model, inputs).problems]

    timer = Timer(args.reps)
    print(f"GPU: {torch.cuda.get_device_name()}, PyTorch {torch.__version__}, TF32 off, library {gemmtune.library_path()}")
    print(f"{'problem':<24} {'source':<13} {'torch ms':>9} {'gemmtune ms':>11} {'speedup':>7} {'err torch':>9} {'err gemmtune':>12}")
    speedups = []
    for m, n, k, layout, batch, _ in problems:
        a, b = operands(m, n, k, layout, batch)
        ours, theirs = (gemmtune.bmm if batch > 1 else gemmtune.mm), torch.matmul
        reference = a.double() @ b.double()
        errors = relative_error(theirs(a, b), reference), relative_error(ours(a, b), reference)
        t_torch, t_ours = timer(lambda: theirs(a, b)), timer(lambda: ours(a, b))
        speedups.append(t_torch / t_ours)
        label = f"{m}x{n}x{k} {layout}" + (f" b{batch}" if batch > 1 else "")
        print(
            f"{label:<24} {source(m, n, k, layout, batch):<13} {t_torch:9.4f} {t_ours:11.4f} {t_torch / t_ours:6.2f}x "
            f"{errors[0]:9.1e} {errors[1]:12.1e}"
        )
    print(f"geometric mean speedup over the {len(problems)} problems: {statistics.geometric_mean(speedups):.3f}x")

    model, (x,) = build("cuda")
    fast = gemmtune_copy(model)
    with torch.no_grad():
        reference = copy.deepcopy(model).double()(x.double())
        expected, got = model(x), fast(x)
        t_torch, t_ours = timer(lambda: model(x)), timer(lambda: fast(x))
    print(
        f"block forward ({BATCH}x{SEQ} tokens): torch {t_torch:.3f} ms, gemmtune {t_ours:.3f} ms ({t_torch / t_ours:.2f}x); "
        f"error vs float64: torch {relative_error(expected, reference):.1e}, gemmtune {relative_error(got, reference):.1e}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
