#!/usr/bin/env python3
"""tools/ship-order.py: the shipped sweep's problem order takes every row of db/shipped/shapes.csv
once, reaches every class in its first pass, and --new-only's filter leaves out exactly the tuned
problems. Run by ctest as tools.ship_order:

    python3 tests/unit/tools/ship_order_test.py SOURCE_DIR
"""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import unittest

SOURCE = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", "..")
SCRIPT = os.path.join(SOURCE, "tools", "ship-order.py")
SHAPES = os.path.join(SOURCE, "db", "shipped", "shapes.csv")
spec = importlib.util.spec_from_file_location("ship_order", SCRIPT)
ship_order = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ship_order)


def sections():
    """The rows of shapes.csv under each of its comment lines (one class each)."""
    groups, current = [], None
    with open(SHAPES) as f:
        for line in f:
            line = line.strip()
            if line.startswith("#"):
                current = []
                groups.append(current)
            elif line and not line.startswith("m,n,k") and current is not None:
                current.append(line)
    return [g for g in groups if g]


class ShipOrder(unittest.TestCase):
    def test_every_row_once(self):
        rows = ship_order.rows_of(SHAPES)
        order = ship_order.interleaved(rows)
        self.assertEqual(sorted(order), sorted(rows))
        self.assertEqual(len(set(order)), len(order))
        self.assertGreaterEqual(len(order), 300)

    def test_first_pass_reaches_every_class_and_layout(self):
        order = ship_order.interleaved(ship_order.rows_of(SHAPES))
        first_pass = set(order[: (len(order) + ship_order.STRIDE - 1) // ship_order.STRIDE])
        for group in sections():
            if len(group) >= ship_order.STRIDE:  # a run of 7 rows holds one of every pass
                self.assertTrue(first_pass & set(group), group[0])
        layouts = {ship_order.key_of(row)[3] for row in first_pass}
        self.assertEqual(layouts, {"nn", "nt", "tn", "tt"})

    def test_new_only_leaves_out_exactly_the_tuned(self):
        rows = ship_order.interleaved(ship_order.rows_of(SHAPES))
        tuned = [dict(zip(("m", "n", "k", "layout", "batch"), ship_order.key_of(row))) for row in rows[::5]]
        left = ship_order.untuned(rows, tuned)
        self.assertEqual(len(left), len(rows) - len(tuned))
        self.assertFalse(set(left) & set(rows[::5]))
        # The same shape in another layout or batch is another problem.
        other = [dict(tuned[0], layout="tt" if tuned[0]["layout"] != "tt" else "nn", batch=tuned[0]["batch"] + 1)]
        self.assertEqual(len(ship_order.untuned(rows, other)), len(rows))

    def test_command_line(self):
        run = subprocess.run([sys.executable, SCRIPT], capture_output=True, text=True)
        self.assertEqual(run.returncode, 2)
        self.assertIn("usage", run.stderr)
        with tempfile.TemporaryDirectory() as tmp:
            tuned = os.path.join(tmp, "tuned.json")
            first = ship_order.key_of(ship_order.rows_of(SHAPES)[0])
            with open(tuned, "w") as f:
                json.dump([dict(zip(("m", "n", "k", "layout", "batch"), first))], f)
            run = subprocess.run([sys.executable, SCRIPT, SHAPES, tuned], capture_output=True, text=True)
        self.assertEqual(run.returncode, 0, run.stderr)
        lines = run.stdout.splitlines()
        self.assertEqual(lines[0], "m,n,k,layout,batch")
        self.assertEqual(len(lines) - 1, len(ship_order.rows_of(SHAPES)) - 1)
        self.assertIn("1 problems tuned before", run.stderr)

    def test_only_keeps_the_named_rows_and_refuses_foreign_ones(self):
        rows = ship_order.rows_of(SHAPES)
        with tempfile.TemporaryDirectory() as tmp:
            only = os.path.join(tmp, "only.csv")
            with open(only, "w") as f:
                f.write("m,n,k,layout,batch\n# two rows\n" + rows[3] + "\n" + rows[-1] + "\n")
            run = subprocess.run([sys.executable, SCRIPT, SHAPES, "--only", only], capture_output=True, text=True)
            self.assertEqual(run.returncode, 0, run.stderr)
            self.assertEqual(sorted(run.stdout.splitlines()[1:]), sorted([rows[3], rows[-1]]))
            with open(only, "a") as f:
                f.write("12345,3,7,nn,1\n")
            run = subprocess.run([sys.executable, SCRIPT, SHAPES, "--only", only], capture_output=True, text=True)
            self.assertEqual(run.returncode, 2)
            self.assertIn("12345,3,7,nn,1 is not a row", run.stderr)
            run = subprocess.run([sys.executable, SCRIPT, SHAPES, "--only"], capture_output=True, text=True)
            self.assertEqual(run.returncode, 2)


if __name__ == "__main__":
    unittest.main()
