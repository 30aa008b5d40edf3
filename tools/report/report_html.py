"""The report's pages: index.html (environment, geometric means, the table of bests, the
pictures, the CPU/GPU crossover) and one page per problem with its fastest candidates."""
import datetime
import html
import os

from report_data import crossover_size, format_error, format_rate, format_time, write_replacing

E = html.escape
STYLE = ("body{font-family:sans-serif;max-width:1150px;margin:auto;padding:0 1em}"
         "table{border-collapse:collapse;font-size:13px;margin:0.5em 0}"
         "td,th{padding:2px 8px;border-bottom:1px solid #ddd;text-align:left}"
         "td.n{text-align:right;font-family:monospace;white-space:nowrap}code{font-size:12px}"
         "img{max-width:100%}dt{font-weight:bold;float:left;width:9em}dd{margin-left:10em}")

COLUMNS = [
    ("#", "the problem's number, also on the roofline and the heatmaps; links to its candidates"),
    ("problem", "M x N x K and the layout of A and B (n: as stored, t: transposed), row-major; "
                "b64: a batch of 64; a1/a2: the widest vector, in floats, that every row, leading "
                "dimension and pointer of the problem allows (a4, 16-byte aligned, is not written; a1: "
                "scalar loads only)"),
    ("class", "large, small (under 1 GFLOP), long K (K at least 8 times M and N), batched, matrix-vector"),
    ("best config", "the fastest config the sweeps timed; paste it into gemmtune try CONFIG --shape MxNxK"),
    ("precision", "the config's precision class: ieee FP32 FMA, fp32 3xTF32, tf32 1xTF32 (docs/precision.md)"),
    ("time", "median kernel time of the best config (L2 flushed before each run)"),
    ("rate", "2 M N K batch / time"),
    ("% peak", "rate as a share of the FMA ceiling of the roofline"),
    ("cuBLAS", "median time of cuBLAS SGEMM (TF32 off) on the same problem in the same sweep"),
    ("speedup", "cuBLAS time / best time: above 1, the tuned kernel is faster"),
    ("dispatcher", "gemmtune bench: the runtime dispatcher's time and its speedup over cuBLAS, when a "
                   "bench file covers the problem"),
    ("error", "the config's relative error against the float64 reference on the random verification inputs"),
    ("wide-range", "the same on the wide-range inputs (signed, 2^-20 to 2^21); '-' where they were not used: "
                   "FP32 FMA configs other than a problem's fastest, databases of gemmtune before schema version 3"),
]


def percent(value):
    """80.1%, 2.4%, 0.047%: small shares keep two significant digits instead of showing 0.0%."""
    return ("%.1f%%" % value) if value >= 1 else ("%.2g%%" % value)


def write_index(out_dir, db_path, sections, version):
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    parts = ["<!doctype html><html><head><meta charset='utf-8'><title>gemmtune report</title>",
             "<style>%s</style></head><body>" % STYLE,
             "<h1>gemmtune report</h1><p>database <code title='%s'>%s</code>, drawn %s%s</p>" %
             (E(db_path), E(os.path.basename(db_path)), now, " by gemmtune " + E(version) if version else "")]
    for s in sections:
        parts += gpu_section(s)
    parts.append("<h2>Columns</h2><dl>")
    for name, meaning in COLUMNS:
        parts.append("<dt>%s</dt><dd>%s</dd>" % (E(name), E(meaning)))
    parts.append("</dl></body></html>\n")
    write_replacing(os.path.join(out_dir, "index.html"), "\n".join(parts).encode("utf-8", "surrogateescape"))


def distinct(values):
    values = sorted({v for v in values if v})
    return ", ".join(values) if values else "not recorded"


def environment(s):
    g, sweeps, ceil = s["gpu"], s["sweeps"], s["ceilings"]
    started = [w["started_at"] for w in sweeps]
    finished = [w["finished_at"] for w in sweeps if w["finished_at"]]
    rows = [
        ("GPU", "%s, sm_%d%d, %d SMs, %.0f MHz, %.1f GiB, L2 %.0f MiB" %
         (g["name"], g["cc_major"], g["cc_minor"], g["sm_count"], g["clock_khz"] / 1e3,
          g["memory_bytes"] / 2 ** 30, g["l2_bytes"] / 2 ** 20)),
        ("driver (CUDA)", distinct(w["driver_version"] for w in sweeps)),
        ("CUDA runtime", distinct(w["runtime_version"] for w in sweeps)),
        ("NVRTC", distinct(w["nvrtc_version"] for w in sweeps)),
        ("sweeps", "%d (%s), %s to %s, on %s, gemmtune %s" %
         (len(sweeps), distinct(w["strategy"] for w in sweeps), min(started) if started else "-",
          max(finished) if finished else "not finished", distinct(w["hostname"] for w in sweeps),
          distinct(w["gemmtune_version"] for w in sweeps))),
        ("ceilings", "FMA %s, memory %s (%s)" %
         ("%.1f TFLOP/s" % ceil["peak"] if ceil["peak"] else "unknown",
          "%.0f GB/s" % ceil["bandwidth"] if ceil["bandwidth"] else "unknown", ceil["source"])),
    ]
    for b in s["benches"]:
        rows.append(("bench file", "%s: %d problems%s" % (os.path.basename(b["path"]), len(b["rows"]),
                                                           ", recorded " + b["recorded_at"] if b.get("recorded_at") else "")))
    return rows


def gpu_section(s):
    g, bests = s["gpu"], s["bests"]
    parts = ["<h2 id='%s'>%s</h2><table>" % (E(s["slug"]), E(g["name"]))]
    for name, value in environment(s):
        parts.append("<tr><th>%s</th><td>%s</td></tr>" % (E(name), E(value)))
    parts.append("</table>")
    with_cublas = [p for p in bests if p["speedup"]]
    summary = "<p><b>Geometric mean speedup over cuBLAS: %s</b> for the tuned best over %d problems" % (
        "%.3fx" % g["geomean"] if g["geomean"] else "-", len(with_cublas))
    if g.get("dispatch_geomean"):
        summary += "; <b>%.3fx</b> for the dispatcher over the %d problems the bench files cover" % (
            g["dispatch_geomean"], g["dispatch_count"])
    parts.append(summary + ".</p>")
    for f, caption in s["files"]:
        parts.append("<h3>%s</h3><img src='%s' alt='%s'>" % (E(caption), E(f), E(caption)))
    parts.append("<h3>Best per problem</h3><table><tr><th>#</th><th>problem</th><th>class</th><th>best config</th>"
                 "<th>precision</th><th>time</th><th>rate</th><th>% peak</th><th>cuBLAS</th><th>speedup</th>"
                 "<th>dispatcher</th><th>error</th><th>wide-range</th></tr>")
    for p in bests:
        d = s["dispatch"].get(p["key"])
        parts.append(
            "<tr id='p%d'><td><a href='%s'>%d</a></td><td>%s</td><td>%s</td><td><code>%s</code></td><td>%s</td>"
            "<td class=n>%s</td><td class=n>%s</td><td class=n>%s</td><td class=n>%s</td>"
            "<td class=n>%s</td><td class=n>%s</td><td class=n>%s</td><td class=n>%s</td></tr>" %
            (p["number"], E(p["page"]), p["number"], E(p["label"]), E(p["class"]), E(p["config_name"]),
             E(p["precision"]), format_time(p["median_ms"]), format_rate(p["tflops"]),
             percent(100.0 * p["tflops"] / s["ceilings"]["peak"]) if s["ceilings"]["peak"] else "-",
             format_time(p["cublas_median_ms"]), "%.2fx" % p["speedup"] if p["speedup"] else "-",
             "%s, %.2fx" % (format_time(d[0]), d[1] / d[0]) if d else "-",
             format_error(p["rel_error"]), format_error(p["wide_error"])))
    parts.append("</table>")
    if s["crossover"]:
        parts += crossover_section(s)
    return parts


def crossover_section(s):
    parts = ["<h3>CPU or GPU: the crossover</h3><p>CPU: %s. GPU kernel: the dispatcher's sgemm on data "
             "already on the GPU. GPU + transfers: A and B copied host to device, the kernel, C copied "
             "back (pageable host memory, as a program holds its arrays).</p>" % E(s["cpu_name"])]
    for layout, pts in s["crossover"].items():
        size, below, above = crossover_size(pts, 3)
        ksize, _, _ = crossover_size(pts, 2)
        if size is None:
            verdict = "the GPU with transfers is not faster up to n = %.0f" % below
        elif below is None:
            verdict = "the GPU with transfers is faster at every measured size (from n = %.0f)" % size
        else:
            verdict = "the GPU with transfers wins from n &asymp; %.0f (measured: n = %.0f CPU, n = %.0f GPU)" % (
                size, below, above)
        kernel = ("the kernel alone from n &asymp; %.0f" % ksize) if ksize else "the kernel alone never"
        parts.append("<p><b>%s</b>: %s; %s.</p>" % (E(layout), verdict, kernel))
        parts.append("<table><tr><th>n</th><th>CPU</th><th>GPU kernel</th><th>GPU + transfers</th></tr>")
        for n, cpu, kern, total in pts:
            parts.append("<tr><td class=n>%.0f</td><td class=n>%s</td><td class=n>%s</td><td class=n>%s</td></tr>" %
                         (n, format_time(cpu), format_time(kern), format_time(total)))
        parts.append("</table>")
    return parts


def write_problem_page(out_dir, s, p, candidates, counts, limit):
    g = s["gpu"]
    parts = ["<!doctype html><html><head><meta charset='utf-8'><title>%s on %s</title>" % (E(p["label"]), E(g["name"])),
             "<style>%s</style></head><body>" % STYLE,
             "<p><a href='index.html#p%d'>&larr; report</a></p>" % p["number"],
             "<h1>%d. %s on %s</h1>" % (p["number"], E(p["label"]), E(g["name"])),
             "<p>class %s; cuBLAS %s; results by status: %s</p>" %
             (E(p["class"]), format_time(p["cublas_median_ms"]),
              E(", ".join("%s %d" % kv for kv in sorted(counts.items())))),
             "<p>The %d fastest of the %d timed configs (all: <code>gemmtune db results %dx%dx%d "
             "--layout %s%s --top 0</code>).</p>" % (len(candidates), counts.get("ok", 0), p["m"], p["n"], p["k"],
                                             p["op_a"], p["op_b"]),
             "<table><tr><th>rank</th><th>config</th><th>precision</th><th>median</th><th>min</th><th>max</th>"
             "<th>rate</th><th>vs best</th><th>vs cuBLAS</th><th>registers</th><th>shared memory</th>"
             "<th>error</th><th>wide-range</th></tr>"]
    for rank, c in enumerate(candidates, 1):
        parts.append("<tr><td class=n>%d</td><td><code>%s</code></td><td>%s</td><td class=n>%s</td><td class=n>%s</td>"
                     "<td class=n>%s</td><td class=n>%s</td><td class=n>%.1f%%</td><td class=n>%s</td>"
                     "<td class=n>%s</td><td class=n>%s</td><td class=n>%s</td><td class=n>%s</td></tr>" %
                     (rank, E(c["config_name"]), E(c["precision"]), format_time(c["median_ms"]), format_time(c["min_ms"]),
                      format_time(c["max_ms"]), format_rate(2.0 * p["m"] * p["n"] * p["k"] * p["batch"] /
                                                            (c["median_ms"] * 1e9)),
                      100.0 * p["median_ms"] / c["median_ms"],
                      "%.2fx" % (p["cublas_median_ms"] / c["median_ms"]) if p["cublas_median_ms"] else "-",
                      c["registers"] if c["registers"] is not None else "-",
                      "%d B" % c["smem_bytes"] if c["smem_bytes"] is not None else "-",
                      format_error(c["rel_error"]), format_error(c["wide_error"])))
    parts.append("</table></body></html>\n")
    write_replacing(os.path.join(out_dir, p["page"]), "\n".join(parts).encode("utf-8", "surrogateescape"))
