#!/usr/bin/env python3
"""Checks that two robostats output directories hold the same rows.

    scripts/same_rows.py OUT_A OUT_B

For every table directory of either output: the same columns (names and
types), the same number of rows, and no row of one that the other lacks,
counted with DuckDB's EXCEPT ALL both ways (so duplicates count too). Part
file names, row order and Parquet encoding may differ; rows may not.
Exits 1 on any difference. Needs the duckdb package.
"""

import sys
from pathlib import Path

import duckdb


def tables(out: Path) -> set[str]:
    return {p.parent.name for p in out.glob("*/*.parquet") if not p.parent.name.startswith((".", "_"))}


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    a, b = Path(sys.argv[1]), Path(sys.argv[2])
    con = duckdb.connect()
    same = True
    for table in sorted(tables(a) | tables(b)):
        src = {k: f"read_parquet('{d}/{table}/*.parquet')" for k, d in (("a", a), ("b", b))}
        try:
            cols = {
                k: con.execute(f"DESCRIBE SELECT * FROM {s}").fetchall() for k, s in src.items()
            }
        except duckdb.Error as e:
            print(f"{table}: cannot read: {e}")
            same = False
            continue
        columns = {k: [(c[0], c[1]) for c in v] for k, v in cols.items()}
        if columns["a"] != columns["b"]:
            print(f"{table}: other columns:\n  {columns['a']}\n  {columns['b']}")
            same = False
            continue
        rows = {k: con.execute(f"SELECT count(*) FROM {s}").fetchall()[0][0] for k, s in src.items()}
        only_a = con.execute(f"SELECT count(*) FROM (SELECT * FROM {src['a']} EXCEPT ALL SELECT * FROM {src['b']})").fetchall()[0][0]
        only_b = con.execute(f"SELECT count(*) FROM (SELECT * FROM {src['b']} EXCEPT ALL SELECT * FROM {src['a']})").fetchall()[0][0]
        ok = rows["a"] == rows["b"] and only_a == 0 and only_b == 0
        same &= ok
        print(
            f"{table:<16} {rows['a']:>10} rows | {rows['b']:>10} rows | "
            f"only in the first {only_a}, only in the second {only_b}  {'same' if ok else 'DIFFERENT'}"
        )
    print("same rows" if same else "the outputs differ")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
