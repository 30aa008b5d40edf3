#!/usr/bin/env python3
"""gemmtune report: pictures of a tuning database and an index page.

For each GPU model (or the one --device names) it writes
  speedup_<gpu>.<fmt>          per problem, cuBLAS time / gemmtune time on a log axis: the tuned
                               best and (from --bench files) the dispatcher, geometric means marked;
  heatmap_<gpu>_<class>.<fmt>  per problem class, each problem's best time per block tile BM x BN
                               as a share of its best; blank cells say why (invalid, pruned, ...);
  heatmap_<gpu>.<fmt>          one problem (--shape, default the largest): TFLOP/s over BM x BN;
  roofline_<gpu>.<fmt>         intensity against TFLOP/s under the measured ceilings (stored in
                               the database by gemmtune sweep, else from a bench file), or
                               --peak/--bandwidth; else the datasheet's, with a note saying so;
  crossover_<gpu>.<fmt>        when a bench file has CPU times (gemmtune bench --cpu): time against
                               size for the CPU, the GPU kernel and the GPU with transfers;
  index.html, problem_<gpu>_<n>.html   the environment, the geometric means, the tables, and
                               each problem's fastest candidates.
Reads the database read-only. Run through `gemmtune report --out DIR`, or on its own:
gemmtune_report.py --db FILE --out DIR [--bench FILE...].
Exit status: 0 done, 2 a usage or data error (one line on stderr), 3 matplotlib is missing.
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report_data as data  # noqa: E402

CANDIDATES_SHOWN = 25


def fail(message, status=2):
    print("gemmtune report: " + message, file=sys.stderr)
    sys.exit(status)


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--db", required=True, help="tuning database file")
    ap.add_argument("--out", required=True, help="directory to write the pictures and pages to")
    ap.add_argument("--device", help="only this GPU model (its exact name)")
    ap.add_argument("--bench", action="append", default=[],
                    help="a gemmtune bench --json file (repeatable): the dispatcher's times, measured "
                         "ceilings, CPU times")
    ap.add_argument("--shape", help="problem of the single heatmap, MxNxK (default: the largest)")
    ap.add_argument("--layout", default="all", help="layout of that problem: nn, nt, tn, tt, all")
    ap.add_argument("--peak", type=float,
                    help="FMA ceiling in TFLOP/s (default: measured, from the database, else from --bench)")
    ap.add_argument("--bandwidth", type=float,
                    help="memory bandwidth in GB/s (default: measured, from the database, else from --bench)")
    ap.add_argument("--format", default="png", choices=["png", "svg"], help="picture format")
    ap.add_argument("--version", default="", help=argparse.SUPPRESS)
    return ap.parse_args()


def pick_problem(bests, shape, layout):
    if not shape:
        return max(bests, key=lambda p: (data.flops(p), p["problem_id"]))
    m = re.fullmatch(r"(\d+)[xX](\d+)[xX](\d+)", shape)
    if not m:
        fail("'%s' is not a shape: write MxNxK, e.g. 4096x4096x4096" % shape)
    mnk = tuple(int(v) for v in m.groups())
    hits = [p for p in bests if (p["m"], p["n"], p["k"]) == mnk and
            (layout in (None, "", "all") or p["op_a"] + p["op_b"] == layout)]
    return hits[0] if hits else None


def cpu_name(benches):
    names = {b.get("cpu", {}).get("name", "") + (" (%s threads)" % b["cpu"]["threads"] if b.get("cpu", {}).get(
        "threads") else "") for b in benches if b.get("cpu")}
    return ", ".join(sorted(names)) or "CPU BLAS"


def draw_gpu(draw, html, conn, g, benches, args):
    """Every picture and page of one GPU model; returns its section of index.html, or None."""
    bests = data.bests_of(conn, g["id"])
    if not bests:
        return None
    name = data.slug(g["name"])
    benches = data.bench_for_gpu(benches, g["name"])
    dispatch = data.dispatcher_times(benches)
    for p in bests:
        p["key"] = data.key_of(p)
        p["page"] = "problem_%s_%d.html" % (name, p["number"])
    g["geomean"] = data.geomean(p["speedup"] for p in bests)
    covered = [dispatch[p["key"]] for p in bests if p["key"] in dispatch]
    g["dispatch_geomean"] = data.geomean(c / d for d, c in covered)
    g["dispatch_count"] = len(covered)
    ceil = data.ceilings(g, data.stored_ceilings(conn, g["id"]), benches, args.peak, args.bandwidth)
    if not ceil["bandwidth"]:
        print("gemmtune report: memory bandwidth of %s unknown: pass --bench with a bench file of it, or "
              "--bandwidth GB/s" % g["name"], file=sys.stderr)
    cells = data.tile_cells(conn, g["id"])
    ext = args.format
    files = []

    def picture(filename, caption, fn, *fn_args):
        fn(*fn_args, os.path.join(args.out, filename))
        files.append((filename, caption))

    picture("speedup_%s.%s" % (name, ext), "Speedup over cuBLAS per problem (log scale)", draw.draw_speedup, g,
            bests, dispatch)
    for cls in data.CLASSES:
        members = [p for p in bests if p["class"] == cls]
        if members:
            axes = data.HEATMAP_AXES.get(cls, data.DEFAULT_AXES)
            class_cells = cells if axes == data.DEFAULT_AXES else data.tile_cells(conn, g["id"], *axes[:2])
            picture("heatmap_%s_%s.%s" % (name, data.slug(cls), ext),
                    "%s problems: best time per %s, %% of each problem's best" % (cls[0].upper() + cls[1:], axes[2]),
                    draw.draw_class_heatmap, g, cls, members, class_cells, axes)
    problem = pick_problem(bests, args.shape, args.layout)
    if problem is None:
        fail("no results for shape %s on %s" % (args.shape, g["name"]))
    picture("heatmap_%s.%s" % (name, ext), "TFLOP/s over BM x BN for %s" % problem["label"],
            draw.draw_tile_heatmap, g, problem, cells)
    picture("roofline_%s.%s" % (name, ext), "Roofline (ceilings %s)" % ceil["source"], draw.draw_roofline, g,
            bests, ceil)
    crossover = data.crossover_series(benches)
    if crossover:
        picture("crossover_%s.%s" % (name, ext), "CPU or GPU: time against size", draw.draw_crossover, g,
                crossover, cpu_name(benches))
    section = {"gpu": g, "slug": name, "bests": bests, "sweeps": data.sweeps_of(conn, g["id"]), "files": files,
               "ceilings": ceil, "benches": benches, "dispatch": dispatch, "crossover": crossover,
               "cpu_name": cpu_name(benches)}
    for p in bests:
        candidates, counts = data.candidates_of(conn, g["id"], p["problem_id"], CANDIDATES_SHOWN)
        html.write_problem_page(args.out, section, p, candidates, counts, CANDIDATES_SHOWN)
    return section


def main():
    args = parse_args()
    try:
        conn = data.open_db(args.db)
        benches = [data.load_bench(path) for path in args.bench]
    except data.DataError as e:
        fail(str(e))
    try:
        import report_draw as draw
        import report_html as html
    except ImportError as e:
        if "matplotlib" not in str(e):
            raise
        sys.exit(3)  # the caller says which python lacked it and what to install
    gpus = data.gpus_of(conn)
    if args.device:
        gpus = [g for g in gpus if g["name"] == args.device]
        if not gpus:
            fail("unknown GPU model '%s' in %s" % (args.device, args.db))
    try:
        os.makedirs(args.out, exist_ok=True)
    except OSError as e:
        fail("cannot create %s: %s" % (args.out, e.strerror))
    try:
        sections = [s for s in (draw_gpu(draw, html, conn, g, benches, args) for g in gpus) if s]
        if not sections:
            fail("no results yet: run gemmtune sweep")
        html.write_index(args.out, os.path.abspath(args.db), sections, args.version)
    except data.DataError as e:
        fail(str(e))
    except OSError as e:  # a full disk, a file it may not replace
        fail("cannot write %s: %s" % (e.filename or args.out, e.strerror or e))
    for s in sections:
        for f, _ in s["files"]:
            print(os.path.join(args.out, f))
    print(os.path.join(args.out, "index.html"))


if __name__ == "__main__":
    main()
