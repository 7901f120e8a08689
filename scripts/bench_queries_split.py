#!/usr/bin/env python3
"""Splits each query's time into a fixed cost and a cost per million
captures, from two runs of scripts/bench_queries.sh at two sizes (their
Markdown rows, as printed):

    scripts/bench_queries.sh CORPUS 3 3 > small.md
    scripts/bench_queries.sh CORPUS 10 1 > large.md
    python3 scripts/bench_queries_split.py small.md large.md

For each query and DuckDB version measured at both sizes, the line through
the two times: its slope is the cost of a further million captures, and
its value at no capture the query's fixed cost (binding, planning, and what
a query reads whatever the data: the rank list of by_rank.sql). Prints a
Markdown table: the seconds at each size, the fixed cost, the slope, and
the seconds per million captures at each size, which the fixed cost
weighs on most at the smaller size. Two sizes and the machine's noise make
the split an estimate (a fixed cost below zero is noise): quote it beside
the times it comes from.
"""

import sys


def rows(path):
    """{(query, version): (captures, seconds)} of one run's Markdown rows."""
    out = {}
    for line in open(path, encoding="utf-8"):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 5:
            continue
        try:
            captures = int(cells[2].replace(",", ""))
            seconds = float(cells[3])
        except ValueError:
            continue  # a header, a failed query
        out[(cells[0], cells[1])] = (captures, seconds)
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    small, large = rows(sys.argv[1]), rows(sys.argv[2])
    print("| query | DuckDB | s at the smaller | s at the larger | fixed s | s per further million "
          "| s per million, smaller | s per million, larger |")
    print("|---|---|---|---|---|---|---|---|")
    for key in sorted(small.keys() & large.keys()):
        (c1, t1), (c2, t2) = small[key], large[key]
        if c2 == c1:
            continue
        (c1, t1), (c2, t2) = sorted([(c1, t1), (c2, t2)])
        slope = (t2 - t1) / ((c2 - c1) / 1e6)
        fixed = t1 - slope * c1 / 1e6
        print(f"| {key[0]} | {key[1]} | {t1:.2f} | {t2:.2f} | {fixed:.2f} | {slope:.2f} "
              f"| {t1 / (c1 / 1e6):.2f} | {t2 / (c2 / 1e6):.2f} |")


if __name__ == "__main__":
    main()
