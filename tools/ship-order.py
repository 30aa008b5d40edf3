#!/usr/bin/env python3
"""The problems of a shipped-database sweep in the order tools/ship-tuning.sh tunes them, as the
CSV `gemmtune sweep --file` reads:

    tools/ship-order.py SHAPES_CSV [TUNED_JSON] [--only ROWS_CSV]

The order interleaves the file's rows, which db/shipped/shapes.csv groups by class: every seventh
row from the first, then every seventh from the second, and so on (7 is prime to the file's 4
layouts), so that a sweep cut short has tuned some of every class rather than the first classes
whole. With TUNED_JSON (`gemmtune db best --format json` of the scratch database) the problems it
holds a result of are left out, and a count goes to stderr. With --only, only the rows of ROWS_CSV
are kept (each must be a row of SHAPES_CSV, so that the shipped file stays one sweep of it): to
re-tune some classes at a larger budget.
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


def only_rows(rows, path):
    """The rows of `rows` that the shapes file `path` names; None when it names one not in `rows`."""
    wanted = {key_of(row) for row in rows_of(path)}
    missing = wanted - {key_of(row) for row in rows}
    for key in sorted(missing):
        print(f"ship-tuning: --only {path}: {','.join(map(str, key))} is not a row of the shapes file",
              file=sys.stderr)
    return None if missing else [row for row in rows if key_of(row) in wanted]


def main(argv):
    only = None
    if "--only" in argv:
        at = argv.index("--only")
        if at + 1 >= len(argv):
            print("ship-order: --only needs a CSV of rows", file=sys.stderr)
            return 2
        only = argv[at + 1]
        argv = argv[:at] + argv[at + 2:]
    if len(argv) not in (2, 3):
        print("usage: tools/ship-order.py SHAPES_CSV [TUNED_JSON] [--only ROWS_CSV]", file=sys.stderr)
        return 2
    rows = interleaved(rows_of(argv[1]))
    if only is not None:
        rows = only_rows(rows, only)
        if rows is None:
            return 2
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
