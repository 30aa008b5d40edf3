#!/usr/bin/env python3
"""gemmtune report: pictures of a tuning database and an index page.

For each GPU model (or the one --device names) it draws
  bars_<gpu>.<fmt>     per problem, the best tuned kernel against cuBLAS (TFLOP/s);
  heatmap_<gpu>.<fmt>  TFLOP/s over the block tile BM x BN (best over the other parameters) for one
                       problem (--shape, default the largest);
  roofline_<gpu>.<fmt> arithmetic intensity 2MNK / (4 (MK + KN + 2MN)) FLOP/byte against TFLOP/s, with
                       the FP32 peak (2 * 128 * SMs * clock) and memory bandwidth ceilings, and each
                       problem's best and cuBLAS placed on it;
and index.html showing them with a table of the bests. Reads the database read-only with sqlite3.
Run through `gemmtune report --out DIR`; usable on its own: gemmtune_report.py --db FILE --out DIR.
Exit status: 0 done, 2 a usage or data error (one line on stderr), 3 matplotlib is missing.
"""
import argparse
import html
import math
import os
import re
import sqlite3
import sys

# Memory bandwidth (GB/s) of the GPUs we know by name; others need --bandwidth.
KNOWN_BANDWIDTH_GBS = [("H200", 4800.0), ("H100", 3350.0)]


def fail(message, status=2):
    print("gemmtune report: " + message, file=sys.stderr)
    sys.exit(status)


def load_matplotlib():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        return plt
    except ImportError:
        sys.exit(3)  # the caller prints: matplotlib is missing: pip install matplotlib


def fp32_peak_tflops(sm_count, clock_khz):
    return 2.0 * 128.0 * sm_count * clock_khz * 1e3 / 1e12


def problem_label(p):
    s = "%dx%dx%d %s%s" % (p["m"], p["n"], p["k"], p["op_a"], p["op_b"])
    if p["batch"] != 1:
        s += " b%d" % p["batch"]
    if p["alignment"] != 4:
        s += " a%d" % p["alignment"]
    return s


def flops(p):
    return 2.0 * p["m"] * p["n"] * p["k"] * p["batch"]


def tflops_of(p, ms):
    return flops(p) / (ms * 1e-3) / 1e12 if ms and ms > 0 else None


def intensity(p):
    m, n, k = p["m"], p["n"], p["k"]
    return 2.0 * m * n * k / (4.0 * (m * k + k * n + 2.0 * m * n))


def slug(name):
    return re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_").lower() or "gpu"


def open_db(path):
    if not os.path.isfile(path):
        fail("no database at %s" % path)
    uri = "file:%s?mode=ro" % path.replace("?", "%3f").replace("#", "%23")
    try:
        conn = sqlite3.connect(uri, uri=True)
        conn.row_factory = sqlite3.Row
        conn.execute("SELECT count(*) FROM best_results").fetchone()
    except sqlite3.DatabaseError as e:
        fail("%s is not a gemmtune tuning database (%s)" % (path, e))
    return conn


def bests_of(conn, gpu_id):
    rows = conn.execute(
        "SELECT problem_id, m, n, k, batch, op_a, op_b, alignment, config_name, median_ms, "
        "cublas_median_ms FROM best_results WHERE gpu_model_id = ? ORDER BY m * n * k * batch, problem_id",
        (gpu_id,)).fetchall()
    out = []
    for r in rows:
        p = dict(r)
        p["label"] = problem_label(p)
        p["tflops"] = tflops_of(p, p["median_ms"])
        p["cublas_tflops"] = tflops_of(p, p["cublas_median_ms"])
        out.append(p)
    return out


def pick_problem(bests, shape, layout):
    if not shape:
        return max(bests, key=lambda p: (flops(p), p["problem_id"]))
    m = re.fullmatch(r"(\d+)[xX](\d+)[xX](\d+)", shape)
    if not m:
        fail("'%s' is not a shape: write MxNxK, e.g. 4096x4096x4096" % shape)
    mnk = tuple(int(v) for v in m.groups())
    hits = [p for p in bests if (p["m"], p["n"], p["k"]) == mnk and
            (layout in (None, "", "all") or p["op_a"] + p["op_b"] == layout)]
    if not hits:
        return None
    return hits[0]


def tile_grid(conn, gpu_id, problem):
    rows = conn.execute(
        "SELECT c.bm, c.bn, min(r.median_ms) FROM results AS r JOIN sweeps AS s ON s.id = r.sweep_id "
        "JOIN configs AS c ON c.id = r.config_id WHERE r.status = 'ok' AND s.gpu_model_id = ? "
        "AND r.problem_id = ? GROUP BY c.bm, c.bn", (gpu_id, problem["problem_id"])).fetchall()
    return {(bm, bn): tflops_of(problem, ms) for bm, bn, ms in rows}


def draw_bars(plt, gpu, bests, path):
    labels = [p["label"] for p in bests]
    x = list(range(len(bests)))
    width = 0.4
    fig, ax = plt.subplots(figsize=(max(6.0, 0.9 * len(bests) + 2), 4.5))
    ours = [p["tflops"] or 0 for p in bests]
    theirs = [p["cublas_tflops"] or 0 for p in bests]
    ax.bar([i - width / 2 for i in x], ours, width, label="gemmtune best", color="#1f77b4")
    ax.bar([i + width / 2 for i in x], theirs, width, label="cuBLAS", color="#aaaaaa")
    for i, p in enumerate(bests):
        if p["cublas_tflops"]:
            ax.annotate("%.2fx" % (p["tflops"] / p["cublas_tflops"]), (i, max(ours[i], theirs[i])),
                        ha="center", va="bottom", fontsize=8)
    ax.set_xticks(x)
    ax.set_xticklabels(labels, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("TFLOP/s")
    ax.set_title("%s: best tuned kernel vs cuBLAS" % gpu["name"])
    ax.axhline(gpu["peak"], color="#d62728", linestyle="--", linewidth=1, label="FP32 peak %.1f" % gpu["peak"])
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def draw_heatmap(plt, gpu, problem, grid, path):
    bms = sorted({bm for bm, _ in grid})
    bns = sorted({bn for _, bn in grid})
    values = [[grid.get((bm, bn)) for bn in bns] for bm in bms]
    data = [[v if v is not None else float("nan") for v in row] for row in values]
    fig, ax = plt.subplots(figsize=(max(4.5, 1.0 * len(bns) + 2.5), max(3.5, 0.8 * len(bms) + 2)))
    im = ax.imshow(data, cmap="viridis", origin="lower", aspect="auto")
    ax.set_xticks(range(len(bns)))
    ax.set_xticklabels([str(v) for v in bns])
    ax.set_yticks(range(len(bms)))
    ax.set_yticklabels([str(v) for v in bms])
    ax.set_xlabel("BN")
    ax.set_ylabel("BM")
    finite = [v for row in values for v in row if v is not None]
    top = max(finite) if finite else 0
    for i, row in enumerate(values):
        for j, v in enumerate(row):
            if v is not None:
                ax.text(j, i, "%.1f" % v, ha="center", va="center", fontsize=8,
                        color="black" if v > 0.6 * top else "white")
    fig.colorbar(im, ax=ax, label="TFLOP/s (best over the other parameters)")
    ax.set_title("%s, %s: TFLOP/s over the block tile" % (gpu["name"], problem["label"]), fontsize=10)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def draw_roofline(plt, gpu, bests, bandwidth_gbs, path):
    fig, ax = plt.subplots(figsize=(9, 6))
    ais = [intensity(p) for p in bests]
    lo = min(ais + [1.0]) / 2
    hi = max(ais + [gpu["peak"] * 1e3 / bandwidth_gbs if bandwidth_gbs else 1.0]) * 2
    xs = [lo * (hi / lo) ** (i / 200.0) for i in range(201)]
    if bandwidth_gbs:
        ys = [min(gpu["peak"], x * bandwidth_gbs / 1e3) for x in xs]
        ax.plot(xs, ys, color="#d62728", linewidth=1.5,
                label="roofline: %.1f TFLOP/s, %.0f GB/s" % (gpu["peak"], bandwidth_gbs))
    else:
        ax.plot(xs, [gpu["peak"]] * len(xs), color="#d62728", linewidth=1.5,
                label="FP32 peak %.1f TFLOP/s (bandwidth unknown: --bandwidth)" % gpu["peak"])
    ax.scatter(ais, [p["tflops"] for p in bests], marker="o", color="#1f77b4", label="gemmtune best", zorder=3)
    cu = [(a, p["cublas_tflops"]) for a, p in zip(ais, bests) if p["cublas_tflops"]]
    if cu:
        ax.scatter([a for a, _ in cu], [t for _, t in cu], marker="x", color="#555555", label="cuBLAS", zorder=3)
    # Neighbours in intensity get labels on alternating sides, so that clusters stay readable.
    order = sorted(range(len(bests)), key=lambda i: ais[i])
    for rank, i in enumerate(order):
        offset = (4, -10) if rank % 2 == 0 else (4, 5)
        ax.annotate(bests[i]["label"], (ais[i], bests[i]["tflops"]), fontsize=6, xytext=offset,
                    textcoords="offset points")
    from matplotlib.ticker import NullFormatter, ScalarFormatter
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(ScalarFormatter())
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("arithmetic intensity (FLOP/byte, compulsory traffic)")
    ax.set_ylabel("TFLOP/s")
    ax.set_title("%s: roofline" % gpu["name"])
    ax.legend(fontsize=8, loc="lower right")
    ax.grid(True, which="both", linewidth=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--db", required=True, help="tuning database file")
    ap.add_argument("--out", required=True, help="directory to write the pictures and index.html to")
    ap.add_argument("--device", help="only this GPU model (its exact name)")
    ap.add_argument("--shape", help="problem of the heatmap, MxNxK (default: the largest)")
    ap.add_argument("--layout", default="all", help="layout of the heatmap's problem: nn, nt, tn, tt, all")
    ap.add_argument("--bandwidth", type=float, help="memory bandwidth in GB/s (default: 4800 H200, 3350 H100)")
    ap.add_argument("--format", default="png", choices=["png", "svg"], help="picture format")
    args = ap.parse_args()

    conn = open_db(args.db)
    plt = load_matplotlib()
    gpus = [dict(r) for r in conn.execute(
        "SELECT id, name, cc_major, cc_minor, sm_count, clock_khz FROM gpu_models ORDER BY id")]
    if args.device:
        gpus = [g for g in gpus if g["name"] == args.device]
        if not gpus:
            fail("unknown GPU model '%s' in %s" % (args.device, args.db))
    try:
        os.makedirs(args.out, exist_ok=True)
    except OSError as e:
        fail("cannot create %s: %s" % (args.out, e.strerror))

    sections = []
    for g in gpus:
        bests = bests_of(conn, g["id"])
        if not bests:
            continue
        g["peak"] = fp32_peak_tflops(g["sm_count"], g["clock_khz"])
        name = slug(g["name"])
        files = []
        bars = "bars_%s.%s" % (name, args.format)
        draw_bars(plt, g, bests, os.path.join(args.out, bars))
        files.append((bars, "Best tuned kernel vs cuBLAS per problem"))
        problem = pick_problem(bests, args.shape, args.layout)
        if problem is None:
            fail("no results for shape %s on %s" % (args.shape, g["name"]))
        heat = "heatmap_%s.%s" % (name, args.format)
        draw_heatmap(plt, g, problem, tile_grid(conn, g["id"], problem), os.path.join(args.out, heat))
        files.append((heat, "TFLOP/s over BM x BN for %s" % problem["label"]))
        bandwidth = args.bandwidth
        if not bandwidth:
            bandwidth = next((bw for key, bw in KNOWN_BANDWIDTH_GBS if key in g["name"].upper()), None)
            if not bandwidth:
                print("gemmtune report: memory bandwidth of %s unknown: pass --bandwidth GB/s for the "
                      "roofline's memory ceiling" % g["name"], file=sys.stderr)
        roof = "roofline_%s.%s" % (name, args.format)
        draw_roofline(plt, g, bests, bandwidth, os.path.join(args.out, roof))
        files.append((roof, "Roofline (memory bandwidth %s)" %
                       ("%.0f GB/s" % bandwidth if bandwidth else "unknown")))
        sections.append((g, bests, files))
    if not sections:
        fail("no results yet: run gemmtune sweep")
    write_index(args, sections)
    for g, _, files in sections:
        for f, _ in files:
            print(os.path.join(args.out, f))
    print(os.path.join(args.out, "index.html"))


def write_index(args, sections):
    e = html.escape
    parts = ["<!doctype html><html><head><meta charset='utf-8'><title>gemmtune report</title>",
             "<style>body{font-family:sans-serif;max-width:1100px;margin:auto}"
             "table{border-collapse:collapse;font-size:13px}td,th{padding:2px 8px;border-bottom:1px solid #ddd}"
             "td.n{text-align:right;font-family:monospace}img{max-width:100%}</style></head><body>",
             "<h1>gemmtune report</h1><p>database: <code>%s</code></p>" % e(os.path.abspath(args.db))]
    for g, bests, files in sections:
        parts.append("<h2>%s</h2><p>sm_%d%d, %d SMs, FP32 peak %.1f TFLOP/s</p>" %
                     (e(g["name"]), g["cc_major"], g["cc_minor"], g["sm_count"], g["peak"]))
        parts.append("<table><tr><th>problem</th><th>best config</th><th>time</th><th>TFLOP/s</th>"
                     "<th>% peak</th><th>cuBLAS</th><th>speedup</th></tr>")
        for p in bests:
            speed = "%.2fx" % (p["tflops"] / p["cublas_tflops"]) if p["cublas_tflops"] else "-"
            cub = "%.3f ms" % p["cublas_median_ms"] if p["cublas_median_ms"] else "-"
            parts.append("<tr><td>%s</td><td><code>%s</code></td><td class=n>%.3f ms</td><td class=n>%.1f</td>"
                         "<td class=n>%.1f%%</td><td class=n>%s</td><td class=n>%s</td></tr>" %
                         (e(p["label"]), e(p["config_name"]), p["median_ms"], p["tflops"],
                          100.0 * p["tflops"] / g["peak"] if g["peak"] else 0.0, cub, speed))
        parts.append("</table>")
        for f, caption in files:
            parts.append("<h3>%s</h3><img src='%s' alt='%s'>" % (e(caption), e(f), e(caption)))
    parts.append("</body></html>\n")
    with open(os.path.join(args.out, "index.html"), "w", encoding="utf-8") as f:
        f.write("\n".join(parts))


if __name__ == "__main__":
    main()
