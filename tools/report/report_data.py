"""What the report shows, read from a tuning database and from `gemmtune bench --json` files.

Everything here is plain data (dicts and lists); report_draw.py draws it and report_html.py
writes the pages. No matplotlib here, so the numbers can be checked without it.
"""
import hashlib
import json
import math
import os
import re
import sqlite3
import stat
import tempfile

# Memory bandwidth (GB/s) from the datasheets of the GPUs we know by name: used only when no
# measured figure is at hand (the database's gpu_ceilings, a bench file's, or --bandwidth).
DATASHEET_BANDWIDTH_GBS = [("H200", 4800.0), ("H100", 3350.0)]

# Problem classes, in the order the report shows them (see problem_class).
CLASSES = ["large", "small", "long K", "batched", "matrix-vector", "dot product"]

# What a class's heatmap spreads its cells over: two config columns and how a pair is written. A dot
# product's tile is always 1x1: what differs is how K is split (split_k CTAs, k_lanes lanes).
HEATMAP_AXES = {"dot product": ("split_k", "k_lanes", "split-K x K lanes", "k%d l%d")}
DEFAULT_AXES = ("bm", "bn", "block tile BM x BN", "%dx%d")


class DataError(Exception):
    """Bad input: the message says what was wrong and what to do."""


def flops(p):
    return 2.0 * p["m"] * p["n"] * p["k"] * p["batch"]


def tflops_of(p, ms):
    return flops(p) / (ms * 1e-3) / 1e12 if ms and ms > 0 else None


def intensity(p):
    """FLOP per byte of compulsory traffic: A and B read once, C written once (FP32)."""
    m, n, k = p["m"], p["n"], p["k"]
    return 2.0 * m * n * k / (4.0 * (m * k + k * n + m * n))


def packed_alignment(m, n, k, batch, layout):
    """The alignment class (4, 2 or 1 floats) of a tightly packed row-major problem: the widest
    vector that divides every row length (and, batched, every matrix size)."""
    a_cols = k if layout[0] == "n" else m
    b_cols = n if layout[1] == "n" else k
    lengths = [a_cols, b_cols, n]
    if batch > 1:
        lengths += [m * k, k * n, m * n]
    for width in (4, 2):
        if all(v % width == 0 for v in lengths):
            return width
    return 1


def problem_label(p):
    s = "%dx%dx%d %s%s" % (p["m"], p["n"], p["k"], p["op_a"], p["op_b"])
    if p["batch"] != 1:
        s += " b%d" % p["batch"]
    if p["alignment"] != 4:
        s += " a%d" % p["alignment"]
    return s


def problem_class(p):
    """large, small (under 1 GFLOP), long K (K at least 8x M and N), batched, matrix-vector
    (M or N is 1), dot product (M and N are 1): problems of one class favour the same tiles."""
    if p["m"] == 1 and p["n"] == 1:
        return "dot product"
    if min(p["m"], p["n"]) == 1:
        return "matrix-vector"
    if p["batch"] > 1:
        return "batched"
    if p["k"] >= 8 * max(p["m"], p["n"]):
        return "long K"
    return "small" if flops(p) < 1e9 else "large"


def key_of(p):
    return (p["m"], p["n"], p["k"], p["batch"], p["op_a"] + p["op_b"], p["alignment"])


def slug(name):
    """A file-name part for `name`: letters and digits; a long name is cut, and a hash of the
    whole keeps two long names apart (file names stay well under 255 bytes)."""
    s = re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_").lower() or "gpu"
    if len(s) > 60:
        s = s[:51] + "_" + hashlib.sha256(name.encode("utf-8", "surrogateescape")).hexdigest()[:8]
    return s


def write_replacing(path, data):
    """Writes `data` (bytes) to `path` through a temporary file created exclusively beside it
    (tempfile.mkstemp: O_EXCL, so never a file or link someone else put there), renamed over `path`
    once complete; an existing file keeps its permission bits. A symbolic link at `path` is
    refused (DataError): writing through it would replace a file someone else may have chosen."""
    if os.path.islink(path):
        raise DataError("%s is a symbolic link: the report writes no file through links; remove it" % path)
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    fd, temp = tempfile.mkstemp(dir=os.path.dirname(path) or ".", prefix=".gemmtune-report-")
    try:
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), mode)
            f.write(data)
        os.replace(temp, path)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise


def geomean(values):
    values = [v for v in values if v and v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


# ---- the database ------------------------------------------------------------------------------

def open_db(path):
    if not os.path.isfile(path):
        raise DataError("no database at %s" % path)
    # In a URI '%' starts an escape: it is escaped first, then what would end the path.
    uri = "file:%s?mode=ro" % path.replace("%", "%25").replace("?", "%3f").replace("#", "%23")
    try:
        conn = sqlite3.connect(uri, uri=True)
        conn.row_factory = sqlite3.Row
        conn.execute("SELECT count(*) FROM best_results").fetchone()
        read_as_current(conn)
    except sqlite3.DatabaseError as e:
        raise DataError("%s is not a gemmtune tuning database (%s)" % (path, e))
    return conn


def read_as_current(conn):
    """Temporary views (this connection's alone; the file is only read) in which a file written by
    an older gemmtune has the columns read here, as db/src/schema.cpp gives them to the C++
    readers: the math knob, which configs made before it ran with its default 0, the wide-range
    error of schema version 3, not measured then, and the measured ceilings of version 4, none."""
    def columns(table):
        return {r[1] for r in conn.execute("PRAGMA main.table_info(%s)" % table)}
    if "math" not in columns("configs"):
        conn.execute("CREATE TEMP VIEW configs AS SELECT *, 0 AS math FROM main.configs")
    if "wide_error" not in columns("results"):
        conn.execute("CREATE TEMP VIEW results AS SELECT *, NULL AS wide_error FROM main.results")
    if "wide_error" not in columns("best_results"):
        conn.execute("CREATE TEMP VIEW best_results AS SELECT *, NULL AS wide_error FROM main.best_results")
    if not columns("gpu_ceilings"):  # schema version 4: nothing was measured before it
        conn.execute("CREATE TEMP VIEW gpu_ceilings AS SELECT 0 AS gpu_model_id, 0.0 AS fp32_tflops, "
                     "0.0 AS copy_gbs, '' AS measured_at WHERE 0")


def precision_class(math):
    """A config's precision class from its math knob (GemmConfig::precision, docs/precision.md):
    ieee FP32 FMA, tf32 1xTF32, fp32 3xTF32 and 4xTF32."""
    return "ieee" if math == 0 else "tf32" if math == 1 else "fp32"


def gpus_of(conn):
    return [dict(r) for r in conn.execute(
        "SELECT id, name, cc_major, cc_minor, sm_count, memory_bytes, l2_bytes, clock_khz "
        "FROM gpu_models ORDER BY id")]


def stored_ceilings(conn, gpu_id):
    """The ceilings measured on a GPU model and stored by `gemmtune sweep` (FMA TFLOP/s, copy GB/s,
    when), or None."""
    r = conn.execute("SELECT fp32_tflops, copy_gbs, measured_at FROM gpu_ceilings WHERE gpu_model_id = ?",
                     (gpu_id,)).fetchone()
    return dict(r) if r else None


def sweeps_of(conn, gpu_id):
    return [dict(r) for r in conn.execute(
        "SELECT id, started_at, finished_at, hostname, strategy, gemmtune_version, driver_version, "
        "runtime_version, nvrtc_version, command_line FROM sweeps WHERE gpu_model_id = ? ORDER BY started_at",
        (gpu_id,))]


def bests_of(conn, gpu_id):
    """The best ok result of each problem on this GPU model, smallest problems first, numbered."""
    rows = conn.execute(
        "SELECT b.problem_id, b.m, b.n, b.k, b.batch, b.op_a, b.op_b, b.alignment, b.config_name, b.median_ms, "
        "b.cublas_median_ms, b.rel_error, b.wide_error, c.math FROM best_results AS b "
        "JOIN configs AS c ON c.id = b.config_id WHERE b.gpu_model_id = ? "
        "ORDER BY b.m * b.n * b.k * b.batch, b.problem_id", (gpu_id,)).fetchall()
    out = []
    for number, r in enumerate(rows, 1):
        p = dict(r)
        p["number"] = number
        p["precision"] = precision_class(p["math"])
        p["label"] = problem_label(p)
        p["class"] = problem_class(p)
        p["tflops"] = tflops_of(p, p["median_ms"])
        p["cublas_tflops"] = tflops_of(p, p["cublas_median_ms"])
        p["speedup"] = p["cublas_median_ms"] / p["median_ms"] if p["cublas_median_ms"] else None
        out.append(p)
    return out


def tile_cells(conn, gpu_id, x="bm", y="bn"):
    """{(problem_id, x, y): {"best_ms": fastest ok time or None, "statuses": {status: count}}}
    over every sweep of this GPU model; x and y are two integer columns of configs."""
    if x not in ("bm", "bn", "split_k", "k_lanes") or y not in ("bm", "bn", "split_k", "k_lanes"):
        raise ValueError("not a heatmap axis: %s, %s" % (x, y))
    cells = {}
    for pid, bm, bn, status, count, best in conn.execute(
            "SELECT r.problem_id, c.%s, c.%s, r.status, count(*), min(r.median_ms) FROM results AS r "
            "JOIN sweeps AS s ON s.id = r.sweep_id JOIN configs AS c ON c.id = r.config_id "
            "WHERE s.gpu_model_id = ? GROUP BY 1, 2, 3, 4" % (x, y), (gpu_id,)):
        cell = cells.setdefault((pid, bm, bn), {"best_ms": None, "statuses": {}})
        cell["statuses"][status] = count
        if status == "ok":
            cell["best_ms"] = best
    return cells


def blank_reason(cell):
    """Why a tile has no time: 'invalid' (no config with it fits the problem or the GPU), 'pruned'
    (the strategy ruled it out without timing it), 'failed' (compile, launch or check failed) or
    'not measured' (the sweep never tried it)."""
    if cell is None or not cell["statuses"]:
        return "not measured"
    statuses = cell["statuses"]
    if "pruned" in statuses and statuses["pruned"] >= statuses.get("invalid", 0):
        return "pruned"
    if "invalid" in statuses:
        return "invalid"
    return "failed"


def candidates_of(conn, gpu_id, problem_id, limit):
    """The fastest `limit` ok results of a problem, and the count of results by status."""
    rows = [dict(r) for r in conn.execute(
        "SELECT c.name AS config_name, c.math, r.median_ms, r.min_ms, r.max_ms, r.registers, r.smem_bytes, "
        "r.spill_bytes, r.rel_error, r.wide_error FROM results AS r JOIN sweeps AS s ON s.id = r.sweep_id "
        "JOIN configs AS c ON c.id = r.config_id WHERE r.status = 'ok' AND s.gpu_model_id = ? "
        "AND r.problem_id = ? ORDER BY r.median_ms, r.id LIMIT ?", (gpu_id, problem_id, limit))]
    for r in rows:
        r["precision"] = precision_class(r["math"])
    counts = dict(conn.execute(
        "SELECT r.status, count(*) FROM results AS r JOIN sweeps AS s ON s.id = r.sweep_id "
        "WHERE s.gpu_model_id = ? AND r.problem_id = ? GROUP BY r.status", (gpu_id, problem_id)).fetchall())
    return rows, counts


# ---- bench files ----------------------------------------------------------------------------------

def load_bench(path):
    """A `gemmtune bench --json` file, its problems keyed like the database's."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except OSError as e:
        raise DataError("cannot read bench file %s: %s" % (path, e.strerror))
    except ValueError as e:
        raise DataError("%s is not a gemmtune bench JSON file (%s)" % (path, e))
    if not isinstance(data, dict) or not isinstance(data.get("problems"), list) or "gpu" not in data:
        raise DataError("%s is not a gemmtune bench JSON file (no \"gpu\" and \"problems\")" % path)
    data["path"] = path
    rows = []
    for r in data["problems"]:
        try:
            p = {"m": int(r["m"]), "n": int(r["n"]), "k": int(r["k"]), "batch": int(r.get("batch", 1)),
                 "op_a": r["layout"][0], "op_b": r["layout"][1]}
        except (KeyError, TypeError, ValueError, IndexError):
            raise DataError("%s: a problem without m, n, k and layout: %s" % (path, json.dumps(r)[:80]))
        p["alignment"] = int(r.get("alignment") or packed_alignment(p["m"], p["n"], p["k"], p["batch"],
                                                                     r["layout"]))
        p.update({key: r.get(key) for key in ("gemmtune_ms", "cublas_ms", "config", "source", "cpu_ms",
                                               "gpu_transfer_ms")})
        p["label"] = problem_label(p)
        rows.append(p)
    data["rows"] = rows
    return data


def bench_for_gpu(benches, gpu_name):
    return [b for b in benches if b["gpu"] == gpu_name]


def dispatcher_times(benches):
    """{problem key: (dispatcher ms, cuBLAS ms)} from bench files; a later file wins."""
    out = {}
    for b in benches:
        for r in b["rows"]:
            if r.get("gemmtune_ms") and r.get("cublas_ms"):
                out[key_of(r)] = (r["gemmtune_ms"], r["cublas_ms"])
    return out


def fp32_lanes_per_sm(cc_major, cc_minor):
    """FP32 FMA lanes of one multiprocessor: gemmtune::fp32_lanes_per_sm() (runtime/src/kernel/
    device.cpp) for this Python package, which reads the database without the library."""
    if cc_major == 3:
        return 192
    if (cc_major, cc_minor) in ((6, 0), (8, 0)) or cc_major == 7:
        return 64
    return 128


def ceilings(gpu, stored, benches, peak_tflops, bandwidth_gbs):
    """The roofline's ceilings, what kind they are ("measured", "given" or "datasheet") and where
    they come from. The rule of `gemmtune db best` (ceilings_of in tools/cli/cmd_db.cpp): those
    measured on the GPU model and `stored` in the database, else the datasheet; here a bench file
    that measured them (the newest) comes before the datasheet, and --peak/--bandwidth before all."""
    lanes = fp32_lanes_per_sm(gpu["cc_major"], gpu["cc_minor"])
    peak = 2.0 * lanes * gpu["sm_count"] * gpu["clock_khz"] * 1e3 / 1e12
    kind, source = "datasheet", "datasheet: not measured on this GPU model (a gemmtune sweep measures and stores them)"
    if not peak > 0:  # an SM count or clock of 0 (or less) recorded: no datasheet peak
        peak, source = None, "unknown: the database records %s SMs at %s kHz" % (gpu["sm_count"], gpu["clock_khz"])
    bandwidth = next((bw for key, bw in DATASHEET_BANDWIDTH_GBS if key in gpu["name"].upper()), None)
    measured = [b for b in benches if b.get("measured_fp32_tflops") and b.get("measured_copy_gbs")]
    if stored:
        peak, bandwidth, kind = stored["fp32_tflops"], stored["copy_gbs"], "measured"
        source = "measured by gemmtune sweep on %s, stored in the database" % stored["measured_at"][:10]
    elif measured:
        peak, bandwidth, kind = measured[-1]["measured_fp32_tflops"], measured[-1]["measured_copy_gbs"], "measured"
        source = "measured by gemmtune bench (%s)" % os.path.basename(measured[-1]["path"])
    if peak_tflops:
        peak, kind, source = peak_tflops, "given", "given (--peak/--bandwidth)"
    if bandwidth_gbs:
        bandwidth, kind, source = bandwidth_gbs, "given", "given (--peak/--bandwidth)"
    return {"peak": peak, "bandwidth": bandwidth, "kind": kind, "source": source}


def crossover_series(benches):
    """{layout: [(size, cpu ms, gpu kernel ms, gpu with transfers ms)]} from bench files run with
    --cpu, sorted by size (the cube root of M*N*K, so n for an n x n x n problem)."""
    series = {}
    for b in benches:
        for r in b["rows"]:
            if r.get("cpu_ms") and r.get("gemmtune_ms") and r.get("gpu_transfer_ms"):
                size = (r["m"] * r["n"] * r["k"] * r["batch"]) ** (1.0 / 3.0)
                series.setdefault(r["op_a"] + r["op_b"], {})[round(size, 3)] = (
                    r["cpu_ms"], r["gemmtune_ms"], r["gpu_transfer_ms"])
    return {layout: [(s,) + v for s, v in sorted(points.items())] for layout, points in sorted(series.items())}


def crossover_size(points, column):
    """The size from which the GPU (column 2: kernel, 3: with transfers) stays faster than the
    CPU, interpolated on log scales between the two measured sizes around it. Returns
    (size, below, above): size None when the GPU never wins for good, below None when it wins at
    every measured size."""
    last_cpu_win = None
    for i, pt in enumerate(points):
        if pt[column] >= pt[1]:
            last_cpu_win = i
    if last_cpu_win is None:
        return (points[0][0], None, points[0][0]) if points else (None, None, None)
    if last_cpu_win == len(points) - 1:
        return (None, points[-1][0], None)
    lo, hi = points[last_cpu_win], points[last_cpu_win + 1]
    # log(gpu/cpu) goes from >= 0 at lo to < 0 at hi: where it crosses 0.
    d_lo = math.log(lo[column] / lo[1])
    d_hi = math.log(hi[column] / hi[1])
    t = d_lo / (d_lo - d_hi) if d_lo != d_hi else 1.0
    size = math.exp(math.log(lo[0]) + t * (math.log(hi[0]) - math.log(lo[0])))
    return (size, lo[0], hi[0])


# ---- units -------------------------------------------------------------------------------------

def format_time(ms):
    """Three significant digits in a unit that fits: 812 ns, 4.13 us, 57.2 us, 1.78 ms, 2.50 s."""
    if ms is None:
        return "-"
    for scale, unit in ((1e-6, "ns"), (1e-3, "us"), (1.0, "ms"), (1e3, "s")):
        value = ms / scale
        if value < 999.5 or unit == "s":
            return "%s %s" % (significant(value), unit)
    return "-"


def format_rate(tflops):
    """FLOP/s in a unit that keeps three significant digits: 812 MFLOP/s, 4.13 GFLOP/s, 51.2 TFLOP/s."""
    if tflops is None:
        return "-"
    for scale, unit in ((1e-6, "MFLOP/s"), (1e-3, "GFLOP/s"), (1.0, "TFLOP/s")):
        value = tflops / scale
        if value < 999.5 or unit == "TFLOP/s":
            return "%s %s" % (significant(value), unit)
    return "-"


def format_error(error):
    """A relative error with two significant digits: 3.1e-07; '-' when not measured."""
    return "-" if error is None else "%.2g" % error


def significant(value):
    if value >= 99.95:
        return "%.0f" % value
    if value >= 9.995:
        return "%.1f" % value
    return "%.2f" % value


def tick_time(ms):
    """A time axis label: 10 us, 100 us, 1 ms (a log axis's decades need no decimals)."""
    for scale, unit in ((1e-6, "ns"), (1e-3, "us"), (1.0, "ms"), (1e3, "s")):
        if ms / scale < 999.5 or unit == "s":
            return "%g %s" % (float("%.3g" % (ms / scale)), unit)
    return ""
