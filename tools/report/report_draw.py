"""The report's pictures, drawn with matplotlib (Agg, no display needed).

Log axes are labelled with plain numbers ("0.001", "0.01", "10"), never rounded to one decimal;
point labels are problem numbers placed where they overlap no other label, marker or obstacle.
"""
import io
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
matplotlib.rcParams["svg.fonttype"] = "none"  # SVG text stays text: searchable, smaller
matplotlib.rcParams["text.parse_math"] = False  # a "$" in a GPU or CPU name is a dollar sign, not math
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.colors import ListedColormap  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter  # noqa: E402

from report_data import blank_reason, crossover_size, intensity, tick_time, write_replacing  # noqa: E402

OURS = "#1f77b4"
DISPATCH = "#ff7f0e"
CUBLAS = "#555555"
CPU = "#2ca02c"
BLANK_STYLE = {"invalid": ("#d9d9d9", "inv"), "pruned": ("#efe3c8", "pru"), "failed": ("#f4c7c3", "fail"),
               "not measured": ("#ffffff", "")}
DPI = 100


def plain_number(value, _pos=None):
    """A tick label for a log axis: 0.001, 0.01, 0.5, 2, 100, 1e+06 -- every decade distinct."""
    if value <= 0:
        return ""
    if 1e-4 <= value < 1e5:
        return ("%.6f" % value).rstrip("0").rstrip(".")
    return "%g" % value


def log_axis(axis, subs_labelled=False):
    axis.set_major_locator(LogLocator(base=10))
    axis.set_major_formatter(FuncFormatter(plain_number))
    if subs_labelled:
        axis.set_minor_locator(LogLocator(base=10, subs=(2.0, 5.0)))
        axis.set_minor_formatter(FuncFormatter(plain_number))
    else:
        axis.set_minor_formatter(NullFormatter())


def save(fig, path):
    data = io.BytesIO()
    fig.savefig(data, dpi=DPI, format=os.path.splitext(path)[1][1:])
    plt.close(fig)
    write_replacing(path, data.getvalue())


# ---- speedup -----------------------------------------------------------------------------------

def draw_speedup(gpu, bests, dispatch, path):
    """Per problem, cuBLAS time / our time on a log axis: the tuned best (from the database) and
    the dispatcher (from bench files), with both geometric means marked."""
    rows = [p for p in bests if p["speedup"]]
    fig, ax = plt.subplots(figsize=(9.5, 1.8 + 0.26 * len(rows)))
    ys = list(range(len(rows)))[::-1]
    ax.axvline(1.0, color=CUBLAS, linewidth=1.2, label="cuBLAS (1x)")
    ax.scatter([p["speedup"] for p in rows], ys, color=OURS, zorder=3, s=28, label="tuned best")
    values = [p["speedup"] for p in rows]
    disp = [(dispatch[p["key"]][1] / dispatch[p["key"]][0], y) for p, y in zip(rows, ys) if p["key"] in dispatch]
    if disp:
        ax.scatter([s for s, _ in disp], [y for _, y in disp], marker="s", facecolors="none",
                   edgecolors=DISPATCH, zorder=3, s=34, label="dispatcher (gemmtune bench)")
        values += [s for s, _ in disp]
    if gpu["geomean"]:
        ax.axvline(gpu["geomean"], color=OURS, linestyle="--", linewidth=1,
                   label="geomean tuned best %.3fx" % gpu["geomean"])
    if gpu.get("dispatch_geomean"):
        ax.axvline(gpu["dispatch_geomean"], color=DISPATCH, linestyle=":", linewidth=1.3,
                   label="geomean dispatcher %.3fx (%d problems)" % (gpu["dispatch_geomean"], len(disp)))
    lo, hi = min(values + [1.0]), max(values + [1.0])
    ax.set_xscale("log")
    ax.set_xlim(lo / 1.25, hi * 1.25)
    log_axis(ax.xaxis, subs_labelled=True)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _p: plain_number(v) + "x"))
    ax.xaxis.set_minor_formatter(FuncFormatter(lambda v, _p: plain_number(v) + "x"))
    ax.set_yticks(ys)
    ax.set_yticklabels(["%d. %s" % (p["number"], p["label"]) for p in rows], fontsize=8)
    ax.set_ylim(-0.7, len(rows) - 0.3)
    for p, y in zip(rows, ys):  # the tuned best's ratio, in a column right of the plot
        ax.annotate("%.2fx" % p["speedup"], (1.005, y), xycoords=("axes fraction", "data"), fontsize=7,
                    va="center", color=OURS)
    ax.grid(True, axis="x", which="both", linewidth=0.3)
    ax.set_xlabel("speedup over cuBLAS SGEMM (cuBLAS time / gemmtune time; right of 1x: gemmtune faster)")
    ax.set_title("%s: gemmtune vs cuBLAS, per problem" % gpu["name"], fontsize=11)
    height = fig.get_figheight()
    fig.legend(*ax.get_legend_handles_labels(), fontsize=7, loc="lower center", ncol=3, frameon=False)
    fig.tight_layout(rect=(0, 0.55 / height, 1, 1))
    save(fig, path)


# ---- heatmaps ----------------------------------------------------------------------------------

MAX_COLUMNS = 18


def heatmap_columns(problems, cells):
    """The columns a class's heatmap shows: every pair tried on its problems, or, when there are
    more than MAX_COLUMNS, the MAX_COLUMNS with the best mean share of the problems' bests (a pair
    not timed on a problem counts 0 there), in the order of their size."""
    best_of = {p["problem_id"]: p["median_ms"] for p in problems}
    share = {}
    for (pid, x, y), cell in cells.items():
        if pid in best_of:
            share.setdefault((x, y), 0.0)
            if cell["best_ms"]:
                share[(x, y)] += best_of[pid] / cell["best_ms"]
    chosen = sorted(share, key=lambda c: -share[c])[:MAX_COLUMNS]
    return sorted(chosen, key=lambda t: (t[0] * t[1], t[0])), len(share)


def draw_class_heatmap(gpu, class_name, problems, cells, axes, path):
    """Rows: the problems of one class; columns: pairs of config parameters (block tile BM x BN,
    or for dot products split-K x K lanes); cell: the best time with that pair as a share of the
    problem's best (100 = the winner). Blank cells say why: invalid, pruned, failed, or empty
    when never measured."""
    tiles, tried = heatmap_columns(problems, cells)
    grid, notes = [], []
    for p in problems:
        row, note_row = [], []
        for t in tiles:
            cell = cells.get((p["problem_id"],) + t)
            if cell and cell["best_ms"]:
                row.append(100.0 * p["median_ms"] / cell["best_ms"])
                note_row.append(None)
            else:
                row.append(float("nan"))
                note_row.append(blank_reason(cell))
        grid.append(row)
        notes.append(note_row)
    width = max(6.5, 0.46 * len(tiles) + 4.0)
    height = max(2.4, 0.34 * len(problems) + 2.3)
    fig, ax = plt.subplots(figsize=(width, height))
    for i, note_row in enumerate(notes):  # blank cells first, under the image's transparent NaNs
        for j, reason in enumerate(note_row):
            if reason:
                color, text = BLANK_STYLE[reason]
                ax.add_patch(plt.Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor=color, edgecolor="#cccccc",
                                           linewidth=0.3, zorder=0))
                if text:
                    ax.text(j, i, text, ha="center", va="center", fontsize=6, color="#444444")
    cmap = matplotlib.colormaps["viridis"].copy()
    cmap.set_bad(alpha=0)
    im = ax.imshow(grid, cmap=cmap, vmin=0, vmax=100, aspect="auto", zorder=1)
    for i, row in enumerate(grid):
        for j, v in enumerate(row):
            if not math.isnan(v):
                ax.text(j, i, "%.0f" % v, ha="center", va="center", fontsize=6.5, zorder=2,
                        color="black" if v > 60 else "white")
    ax.set_xticks(range(len(tiles)))
    ax.set_xticklabels([axes[3] % t for t in tiles], rotation=60, ha="right", fontsize=7)
    ax.set_yticks(range(len(problems)))
    ax.set_yticklabels(["%d. %s" % (p["number"], p["label"]) for p in problems], fontsize=7)
    ax.set_xlabel(axes[2] + ("" if tried <= len(tiles) else
                             " (the %d with the best mean share, of %d tried)" % (len(tiles), tried)))
    ax.set_xlim(-0.5, len(tiles) - 0.5)
    ax.set_ylim(len(problems) - 0.5, -0.5)
    fig.colorbar(im, ax=ax, label="% of the problem's best", fraction=0.04, pad=0.02)
    present = sorted({r for row in notes for r in row if r}, key=list(BLANK_STYLE).index)
    legend_text = {"invalid": "inv: no config with it is valid here", "pruned": "pru: pruned, not timed",
                   "failed": "fail: compile, launch or check failed", "not measured": "blank: not measured"}
    if present:
        fig.legend(handles=[Patch(facecolor=BLANK_STYLE[r][0], edgecolor="#999999", label=legend_text[r])
                            for r in present], fontsize=7, loc="lower center", ncol=len(present), frameon=False)
    ax.set_title("%s, %s problems: best time per %s, %% of the problem's best" %
                 (gpu["name"], class_name, axes[2].split(" (")[0]), fontsize=10)
    fig.tight_layout(rect=(0, 0.05 if present else 0, 1, 1))
    save(fig, path)


def draw_tile_heatmap(gpu, problem, cells, path):
    """One problem: TFLOP/s over BM (rows) x BN (columns), best over the other parameters."""
    mine = {(bm, bn): c for (pid, bm, bn), c in cells.items() if pid == problem["problem_id"]}
    bms = sorted({bm for bm, _ in mine})
    bns = sorted({bn for _, bn in mine})
    fig, ax = plt.subplots(figsize=(max(5.0, 0.9 * len(bns) + 3), max(3.5, 0.55 * len(bms) + 2.2)))
    grid = []
    for i, bm in enumerate(bms):
        row = []
        for j, bn in enumerate(bns):
            c = mine.get((bm, bn))
            if c and c["best_ms"]:
                row.append(2.0 * problem["m"] * problem["n"] * problem["k"] * problem["batch"] / c["best_ms"] / 1e9)
            else:
                row.append(float("nan"))
                color, text = BLANK_STYLE[blank_reason(c)]
                ax.add_patch(plt.Rectangle((j - 0.5, i - 0.5), 1, 1, color=color, zorder=0))
                if text:
                    ax.text(j, i, text, ha="center", va="center", fontsize=7, color="#444444")
        grid.append(row)
    cmap = matplotlib.colormaps["viridis"].copy()
    cmap.set_bad(alpha=0)
    finite = [v for row in grid for v in row if not math.isnan(v)]
    top = max(finite) if finite else 1.0
    im = ax.imshow(grid, cmap=cmap, origin="lower", aspect="auto", vmin=0, vmax=top, zorder=1)
    for i, row in enumerate(grid):
        for j, v in enumerate(row):
            if not math.isnan(v):
                ax.text(j, i, "%.3g" % v, ha="center", va="center", fontsize=7, zorder=2,
                        color="black" if v > 0.6 * top else "white")
    ax.set_xticks(range(len(bns)))
    ax.set_xticklabels([str(v) for v in bns])
    ax.set_yticks(range(len(bms)))
    ax.set_yticklabels([str(v) for v in bms])
    ax.set_xlim(-0.5, len(bns) - 0.5)
    ax.set_ylim(-0.5, len(bms) - 0.5)
    ax.set_xlabel("BN")
    ax.set_ylabel("BM")
    fig.colorbar(im, ax=ax, label="TFLOP/s (best over the other parameters)")
    ax.set_title("%s, %s: TFLOP/s per block tile\n(inv: invalid, pru: pruned, blank: not measured)" %
                 (gpu["name"], problem["label"]), fontsize=9)
    fig.tight_layout()
    save(fig, path)


# ---- roofline ----------------------------------------------------------------------------------

LABEL_STYLE = {"fontsize": 7, "color": "#1f3f6f", "ha": "center", "va": "center"}
MARK_RADIUS = 3.5  # display pixels around a point that no label may cover (the marker)


def label_spots(width, height, rings=40, step=6.0):
    """Where a label of `width` x `height` (display pixels) may go around its point, nearest first:
    the centres of boxes that touch the marker's edge on eight sides, then rings `step` pixels
    further out in sixteen directions. Deterministic: the same order for every label."""
    spots = []
    for ring in range(rings):
        gap = MARK_RADIUS + 1 + ring * step
        directions = 8 if ring == 0 else 16
        for i in range(directions):
            angle = 2 * math.pi * i / directions
            c, s = math.cos(angle), math.sin(angle)
            spots.append(((width / 2 + gap) * c if abs(c) > 1e-9 else 0.0,
                          (height / 2 + gap) * s if abs(s) > 1e-9 else 0.0, ring))
    return spots


def boxes_overlap(a, b):
    """Whether two boxes (x0, y0, x1, y1) share any area."""
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def place_labels(ax, fig, points, texts, obstacles=(), avoid=()):
    """Writes each text near its point, at the nearest spot (label_spots) where its box stays
    inside the axes and overlaps no label placed before it, none of the `obstacles` (display
    boxes) and no marker of the points or of `avoid` (data coordinates); a label set away from its
    point gets a thin leader line. Points are taken left to right, so the result is the same on
    every run. Returns the placed text artists."""
    renderer = fig.canvas.get_renderer()
    to_display = ax.transData.transform
    frame = ax.get_window_extent(renderer)
    frame = (frame.x0, frame.y0, frame.x1, frame.y1)
    taken = [(b.x0, b.y0, b.x1, b.y1) for b in obstacles]
    marks = [tuple(to_display(p)) for p in list(points) + list(avoid)]
    mark_boxes = [(x - MARK_RADIUS, y - MARK_RADIUS, x + MARK_RADIUS, y + MARK_RADIUS) for x, y in marks]
    pixels_per_point = fig.dpi / 72.0
    placed = []
    for i in sorted(range(len(points)), key=lambda i: (points[i][0], points[i][1], texts[i])):
        x, y = to_display(points[i])
        probe = fig.text(0, 0, texts[i], fontsize=LABEL_STYLE["fontsize"])
        extent = probe.get_window_extent(renderer)
        probe.remove()
        width, height = extent.width + 2, extent.height + 1  # a pixel of air around the text
        spot = None
        for dx, dy, ring in label_spots(width, height):
            box = (x + dx - width / 2, y + dy - height / 2, x + dx + width / 2, y + dy + height / 2)
            inside = frame[0] <= box[0] and box[2] <= frame[2] and frame[1] <= box[1] and box[3] <= frame[3]
            if inside and not any(boxes_overlap(box, b) for b in taken + mark_boxes):
                spot = (dx, dy, ring, box)
                break
        if spot is None:  # no free place within forty rings: right of the point, and say so
            spot = (width / 2 + MARK_RADIUS + 1, 0.0, 0, None)
            print("gemmtune report: the label of point %s overlaps another" % texts[i], file=sys.stderr)
        dx, dy, ring, box = spot
        leader = {"arrowprops": {"arrowstyle": "-", "color": "#9aa7b8", "linewidth": 0.5, "shrinkA": 0,
                                 "shrinkB": MARK_RADIUS}} if ring > 0 else {}
        placed.append(ax.annotate(texts[i], points[i], xytext=(dx / pixels_per_point, dy / pixels_per_point),
                                  textcoords="offset points", **LABEL_STYLE, **leader))
        if box:
            taken.append(box)
    return placed


def draw_roofline(gpu, bests, ceil, path):
    """Arithmetic intensity against TFLOP/s on log axes, with the ceilings; each problem's tuned
    best (numbered as in the tables) and cuBLAS."""
    fig, ax = plt.subplots(figsize=(9, 6.2))
    ais = [intensity(p) for p in bests]
    peak, bandwidth = ceil["peak"], ceil["bandwidth"]
    ridge = peak * 1e3 / bandwidth if bandwidth and peak else None
    lo = min(ais + [1.0]) / 2
    hi = max(ais + [ridge or 1.0]) * 2
    xs = [lo * (hi / lo) ** (i / 200.0) for i in range(201)]
    if not peak:
        pass  # no ceiling to draw (ceilings() says why in the index)
    elif bandwidth:
        ax.plot(xs, [min(peak, x * bandwidth / 1e3) for x in xs], color="#d62728", linewidth=1.5,
                label="%s ceilings: %.1f TFLOP/s FMA, %.0f GB/s" % (ceil["kind"], peak, bandwidth))
        ax.axvline(ridge, color="#d62728", linewidth=0.6, linestyle=":")
    else:
        ax.plot(xs, [peak] * len(xs), color="#d62728", linewidth=1.5,
                label="%s FMA ceiling %.1f TFLOP/s (bandwidth unknown: --bandwidth)" % (ceil["kind"], peak))
    ys = [p["tflops"] for p in bests]
    ax.scatter(ais, ys, marker="o", s=22, color=OURS, label="gemmtune tuned best", zorder=3)
    cu = [(a, p["cublas_tflops"]) for a, p in zip(ais, bests) if p["cublas_tflops"]]
    if cu:
        ax.scatter([a for a, _ in cu], [t for _, t in cu], marker="x", s=22, color=CUBLAS, label="cuBLAS", zorder=3)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    bottom = min(ys + [t for _, t in cu]) / 3
    ax.set_ylim(bottom, max([peak or 0] + ys + [t for _, t in cu]) * 2)  # TF32 may pass the FMA peak
    log_axis(ax.xaxis)
    log_axis(ax.yaxis)
    if ridge:  # at the foot of the ridge line, where no point is
        ridge_text = ax.annotate("ridge %.1f FLOP/byte" % ridge, (ridge, bottom), xytext=(3, 4),
                                 textcoords="offset points", fontsize=7, color="#d62728", rotation=90)
    ax.set_xlabel("arithmetic intensity (FLOP per byte of compulsory traffic: A, B read and C written once)")
    ax.set_ylabel("TFLOP/s")
    ax.set_title("%s: roofline (numbers: problems as in the table)\nceilings %s" % (gpu["name"], ceil["source"]),
                 fontsize=10, color="#b22222" if ceil["kind"] == "datasheet" else "black")
    legend = ax.legend(fontsize=8, loc="lower right")
    ax.grid(True, which="major", linewidth=0.3)
    fig.tight_layout()
    fig.canvas.draw()  # the layout is final: the labels are placed in its display coordinates
    renderer = fig.canvas.get_renderer()
    obstacles = [legend.get_window_extent(renderer)]
    if ridge:
        obstacles.append(ridge_text.get_window_extent(renderer))
    place_labels(ax, fig, list(zip(ais, ys)), [str(p["number"]) for p in bests], obstacles, cu)
    save(fig, path)


# ---- CPU / GPU crossover ---------------------------------------------------------------------------

def draw_crossover(gpu, series, cpu_name, path):
    """Per layout, time against size on log axes: the CPU BLAS, the GPU kernel alone, and the
    GPU with the operands' transfers; a line where the GPU with transfers starts to win."""
    layouts = list(series)
    fig, axes = plt.subplots(1, len(layouts), figsize=(4.6 * len(layouts) + 0.6, 4.4), squeeze=False)
    for ax, layout in zip(axes[0], layouts):
        pts = series[layout]
        sizes = [p[0] for p in pts]
        ax.plot(sizes, [p[1] for p in pts], "o-", color=CPU, markersize=3, label="CPU: %s" % cpu_name)
        ax.plot(sizes, [p[2] for p in pts], "s-", color=OURS, markersize=3, label="GPU kernel")
        ax.plot(sizes, [p[3] for p in pts], "^-", color=DISPATCH, markersize=3, label="GPU + transfers")
        size, _, _ = crossover_size(pts, 3)
        kernel, _, _ = crossover_size(pts, 2)
        for at, color in ((size, DISPATCH), (kernel, OURS)):
            if at:
                ax.axvline(at, color=color, linestyle="--", linewidth=0.8)
        ax.set_title("%s: the GPU wins from n = %s with transfers,\nfrom n = %s for the kernel alone" %
                     (layout, "%.0f" % size if size else "(never)", "%.0f" % kernel if kernel else "(never)"),
                     fontsize=9)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _p: "%d" % v if v >= 1 else plain_number(v)))
        log_axis(ax.yaxis)
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _p: tick_time(v)))
        ax.set_xlabel("size: n of n x n x n (the cube root of M N K)")
        ax.grid(True, which="major", linewidth=0.3)
    axes[0][0].set_ylabel("time")
    axes[0][0].legend(fontsize=7, loc="upper left")
    fig.suptitle("%s: when is the GPU worth the trip? (median times)" % gpu["name"], fontsize=11)
    fig.tight_layout()
    save(fig, path)
