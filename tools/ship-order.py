#!/usr/bin/env python3
"""The problems of a shipped-database sweep in the order tools/ship-tuning.sh tunes them, as the
CSV `gemmtune sweep --file` reads:

    tools/ship-order.py SHAPES_CSV [TUNED_JSON]

The order interleaves the file's rows, which db/shipped/shapes.csv groups by class: every seventh
row from the first, then every seventh from the second, and so on (7 is prime to the file's 4
layouts), so that a sweep cut short has tuned some of every class rather than the first classes
whole. With TUNED_JSON (`gemmtune db best --format json` of the scratch database) the problems it
holds a result of are left out, and a count goes to stderr.
"""
import csv
import json
import sys

STRIDE = 7
HEADER = "m,n,k,layout,batch"


def rows_of(path):
    """The problem rows of a shapes file: no comments, header or blank lines."""
    with open(path, newline="") as f:
        lines = [line.strip() for line in f]
    return [line for line in lines if line and not line.startswith("#") and not line.startswith("m,n,k")]


def interleaved(rows, stride=STRIDE):
    """Every stride-th row from the first, then from the second, ...: each row once."""
    return [rows[i] for start in range(stride) for i in range(start, len(rows), stride)]


def key_of(row):
    m, n, k, layout, batch = next(csv.reader([row]))
    return int(m), int(n), int(k), layout, int(batch)


def untuned(rows, tuned):
    """The rows with no result in `tuned` (`db best --format json` rows)."""
    done = {(r["m"], r["n"], r["k"], r["layout"], r["batch"]) for r in tuned}
    return [row for row in rows if key_of(row) not in done]


def main(argv):
    if len(argv) not in (2, 3):
        print("usage: tools/ship-order.py SHAPES_CSV [TUNED_JSON]", file=sys.stderr)
        return 2
    rows = interleaved(rows_of(argv[1]))
    if len(argv) == 3:
        with open(argv[2]) as f:
            left = untuned(rows, json.load(f))
        print(f"ship-tuning: --new-only: {len(rows) - len(left)} problems tuned before, {len(left)} left",
              file=sys.stderr)
        rows = left
    print(HEADER)
    for row in rows:
        print(row)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
