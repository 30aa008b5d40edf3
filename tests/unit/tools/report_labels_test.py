#!/usr/bin/env python3
"""The report's point labels overlap nothing and land in the same place on every run, on a crowded
roofline; its ceilings come from the database first, a bench file next, the datasheet last, and
say which. Run by ctest as tools.report_labels (exit 77, skipped, without matplotlib):

    python3 tests/unit/tools/report_labels_test.py SOURCE_DIR
"""
import math
import os
import random
import sqlite3
import sys
import tempfile
import unittest

SOURCE = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", "..")
sys.path.insert(0, os.path.join(SOURCE, "tools", "report"))
try:
    import matplotlib  # noqa: F401
except ImportError:
    print("skipped: Python 3 with matplotlib is needed (apt-get install python3-matplotlib)")
    sys.exit(77)
from matplotlib.text import Text  # noqa: E402
import report_data as data  # noqa: E402
import report_draw as draw  # noqa: E402


def problem(number, m, n, k, ms):
    p = {"problem_id": number, "number": number, "m": m, "n": n, "k": k, "batch": 1, "op_a": "n", "op_b": "n",
         "alignment": 4, "median_ms": ms, "cublas_median_ms": ms * 1.1}
    p["tflops"] = data.tflops_of(p, ms)
    p["cublas_tflops"] = data.tflops_of(p, p["cublas_median_ms"])
    return p


def crowded_problems():
    """60 problems: 40 of nearly one shape and speed (a pile of points), 20 spread out."""
    rng = random.Random(7)
    out = []
    for i in range(40):
        m = 4096 + rng.randrange(-64, 64)
        out.append(problem(i + 1, m, m, m, 2.8 * (1 + rng.uniform(-0.03, 0.03))))
    for i in range(20):  # 64 to 8192, at 0.5 to 50 TFLOP/s
        s = 64 << (i % 8)
        k = max(1, s // (1 + i % 3))
        out.append(problem(41 + i, s, s, k, 2.0 * s * s * k / (0.5e12 * (1 + 5 * (i % 10))) * 1e3))
    out.append(problem(61, 8192, 8192, 8192, 2.0 * 8192 ** 3 / 125e12 * 1e3))  # 1xTF32, past the FMA peak
    return out


GIVEN = {"peak": 58.5, "bandwidth": 4224.0, "kind": "measured", "source": "measured by a test"}


def draw_roofline_kept(bests, ceil=GIVEN):
    """draw_roofline, with the figure kept (its save() swapped for one that keeps it)."""
    kept = []
    saved = draw.save
    draw.save = lambda fig, path: kept.append(fig)
    try:
        draw.draw_roofline({"name": "NVIDIA H200"}, bests, ceil, "unused.png")
    finally:
        draw.save = saved
    return kept[0]


def label_boxes(fig):
    """The display box of every point label (the texts that are problem numbers), its text alone
    (an annotation's own extent takes in its leader line)."""
    ax = fig.axes[0]
    renderer = fig.canvas.get_renderer()
    return {t.get_text(): Text.get_window_extent(t, renderer) for t in ax.texts if t.get_text().isdigit()}


class Labels(unittest.TestCase):
    def test_crowded_roofline_labels_overlap_nothing(self):
        bests = crowded_problems()
        fig = draw_roofline_kept(bests)
        fig.canvas.draw()
        boxes = label_boxes(fig)
        self.assertEqual(sorted(boxes, key=int), [str(p["number"]) for p in bests])
        ax = fig.axes[0]
        renderer = fig.canvas.get_renderer()
        frame = ax.get_window_extent(renderer)
        legend = ax.get_legend().get_window_extent(renderer)
        names = sorted(boxes)
        for i, a in enumerate(names):
            box = boxes[a]
            self.assertTrue(frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0 and
                            box.y1 <= frame.y1, "label %s leaves the axes" % a)
            self.assertFalse(box.overlaps(legend), "label %s covers the legend" % a)
            for b in names[i + 1:]:
                self.assertFalse(box.overlaps(boxes[b]), "labels %s and %s overlap" % (a, b))
        bottom, top = ax.get_ylim()
        to_display = ax.transData.transform
        for p in bests:  # every point is drawn, and no label covers the centre of its marker
            self.assertTrue(bottom <= p["tflops"] <= top, "point %d is off the axes" % p["number"])
            x, y = to_display((data.intensity(p), p["tflops"]))
            for name, box in boxes.items():
                self.assertFalse(box.contains(x, y), "label %s covers point %d" % (name, p["number"]))

    def test_placement_is_deterministic(self):
        first = {k: tuple(v.bounds) for k, v in label_boxes(draw_roofline_kept(crowded_problems())).items()}
        second = {k: tuple(v.bounds) for k, v in label_boxes(draw_roofline_kept(crowded_problems())).items()}
        self.assertEqual(first, second)

    def test_spots_nearest_first(self):
        spots = draw.label_spots(10, 6, rings=5)
        distances = [math.hypot(dx, dy) for dx, dy, _ in spots]
        rings = [ring for _, _, ring in spots]
        self.assertEqual(rings, sorted(rings))
        self.assertLess(max(distances[:8]), min(distances[8 + 16:]))


H200 = {"id": 1, "name": "NVIDIA H200", "cc_major": 9, "cc_minor": 0, "sm_count": 132, "clock_khz": 1980000}


class Ceilings(unittest.TestCase):
    def test_database_then_bench_then_datasheet(self):
        bench = {"measured_fp32_tflops": 58.1, "measured_copy_gbs": 4200.0, "path": "/x/h200.json"}
        stored = {"fp32_tflops": 58.5, "copy_gbs": 4224.0, "measured_at": "2026-12-02T07:40:33.123Z"}
        c = data.ceilings(H200, stored, [bench], None, None)
        self.assertEqual((c["peak"], c["bandwidth"], c["kind"]), (58.5, 4224.0, "measured"))
        self.assertIn("2026-12-02", c["source"])
        self.assertIn("database", c["source"])
        c = data.ceilings(H200, None, [bench], None, None)
        self.assertEqual((c["peak"], c["bandwidth"], c["kind"]), (58.1, 4200.0, "measured"))
        self.assertIn("h200.json", c["source"])
        c = data.ceilings(H200, None, [], None, None)
        self.assertEqual(c["kind"], "datasheet")
        self.assertAlmostEqual(c["peak"], 2 * 128 * 132 * 1.98e9 / 1e12)
        self.assertEqual(c["bandwidth"], 4800.0)
        self.assertIn("not measured", c["source"])
        c = data.ceilings(H200, stored, [], 60.0, None)
        self.assertEqual((c["peak"], c["bandwidth"], c["kind"]), (60.0, 4224.0, "given"))

    def test_datasheet_is_said_on_the_figure(self):
        ceil = data.ceilings(H200, None, [], None, None)
        fig = draw_roofline_kept(crowded_problems()[:5], ceil)
        ax = fig.axes[0]
        self.assertIn("datasheet: not measured", ax.get_title())
        self.assertIn("datasheet ceilings", " ".join(t.get_text() for t in ax.get_legend().get_texts()))

    def test_a_database_before_version_4_has_none(self):
        with tempfile.TemporaryDirectory() as scratch:
            path = os.path.join(scratch, "old.db")
            conn = sqlite3.connect(path)
            conn.executescript(
                "CREATE TABLE gpu_models (id INTEGER PRIMARY KEY, name TEXT); "
                "CREATE TABLE configs (id INTEGER PRIMARY KEY, math INTEGER); "
                "CREATE TABLE results (id INTEGER PRIMARY KEY, wide_error REAL); "
                "CREATE TABLE best_results (gpu_model_id INTEGER, wide_error REAL);")
            conn.close()
            self.assertIsNone(data.stored_ceilings(data.open_db(path), 1))
            conn = sqlite3.connect(path)
            conn.executescript(
                "CREATE TABLE gpu_ceilings (gpu_model_id INTEGER PRIMARY KEY, fp32_tflops REAL, copy_gbs REAL, "
                "measured_at TEXT, gemmtune_version TEXT); "
                "INSERT INTO gpu_ceilings VALUES (1, 58.5, 4224, '2026-12-02T07:40:33.123Z', '0.2.0');")
            conn.close()
            stored = data.stored_ceilings(data.open_db(path), 1)
            self.assertEqual((stored["fp32_tflops"], stored["copy_gbs"]), (58.5, 4224.0))


if __name__ == "__main__":
    unittest.main()
