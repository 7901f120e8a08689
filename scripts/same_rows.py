#!/usr/bin/env python3
"""Checks that two robostats output directories hold the same rows.

    scripts/same_rows.py [--exclude TABLE:CONDITION]... [--ignore-column NAME]... OUT_A OUT_B

For every table of the first output: the second has it, as a table
directory or as a view of queries/tables.sql or views.sql (agent_verdicts, a
table before it became a view, and agent_verdict_counts, which the version's
views compute from other tables than the other's may); the same columns (names and types), or
more (columns the second adds are listed, and the rows compared on the
first's columns); the same number of rows, and no row of one that the
other lacks, counted with DuckDB's EXCEPT ALL both ways (so duplicates
count too). Tables only the second has are listed as added. Part file
names, row order and Parquet encoding may differ; rows may not.

The crawl tables `compact` writes (crawl_hosts/, crawl_chains/) are not
compared as tables: they hold what the views compute, and the view
crawl_hosts is compared instead on both sides (read from them where they
hold, computed where they do not).

The tables stored once per body (bodies, body_rules, ...) are compared as
their views read them (one writer's rows per body, `writer` left out: it
is random, and two inputs read at once may each store a body), and so are
the views joining them to the captures (user_agents, rules, ...).

--exclude TABLE:CONDITION leaves the rows matching the SQL condition out of
the comparison of TABLE, on both sides, and says how many there were (for
a change that is meant to alter those rows and no other).

--ignore-column NAME leaves the column out of every table that has it (for
a change meant to alter that column, such as the digest's algorithm).

Exits 1 on any difference. Needs the duckdb package.
"""

import argparse
import re
import sys
from pathlib import Path

import duckdb

# The views over a data set that tell a table's rows (the rank strata aside).
VIEWS = [Path(__file__).resolve().parent.parent / "queries" / name for name in ("tables.sql", "views.sql")]
DERIVED = ("agent_verdicts", "agent_verdict_counts", "crawl_hosts")
# The views over the tables stored once per body (read instead of their
# files), and those joining them to the captures.
BODY_TABLES = ("bodies", "body_user_agents", "body_rules", "body_sitemaps", "body_directives",
               "body_preference_statements")
CAPTURE_VIEWS = ("user_agents", "rules", "sitemaps", "directives", "preference_statements")


def tables(out: Path) -> set[str]:
    # (the crawl tables are compared through the views)
    return {p.parent.name for p in out.glob("*/*.parquet") if not p.parent.name.startswith((".", "_", "crawl_"))}


def parquet_files(out: Path, table: str) -> str:
    """`read_parquet` of a table's files, as SQL. DuckDB reads a path as a
    glob pattern: the directory's `*`, `?` and `[` are escaped to match
    only themselves (a backslash cannot be: DuckDB splits a pattern there)."""
    pattern = re.sub(r"([*?\[])", r"[\1]", str(out)) + f"/{table}/*.parquet"
    return "read_parquet('" + pattern.replace("'", "''") + "', hive_partitioning = false)"


def sources(con, side: str, out: Path, views: list[Path] = VIEWS, wanted=()) -> dict[str, str]:
    """Every table of `out`, and the derived views and `wanted` names it
    lacks as a table (made by the queries of the files `views`: rules, a table before
    it became a view of body_rules joined to the captures), as something to
    SELECT from."""
    found = {t: parquet_files(out, t) for t in tables(out)}
    sql = "\n".join(path.read_text() for path in views)
    through_views = [t for t in BODY_TABLES if t in found]
    missing = [v for v in dict.fromkeys((*DERIVED, *CAPTURE_VIEWS, *sorted(wanted))) if v not in found]
    missing = [v for v in (*through_views, *missing) if f"VIEW {v} AS" in sql]
    if missing and (out / "named_verdicts").is_dir():
        con.execute("SET VARIABLE robostats_out = ?", [str(out)])
        con.execute(sql)
        for view in missing:
            con.execute(f"CREATE TEMP TABLE {side}_{view} AS SELECT * FROM {view}")
            found[view] = f"{side}_{view}"
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--exclude", action="append", default=[], metavar="TABLE:CONDITION")
    parser.add_argument("--ignore-column", action="append", default=[], metavar="NAME")
    parser.add_argument("--views-a", type=Path, action="append",
                        help="the views of the first output's version, in the order read (default: this tree's)")
    parser.add_argument("a", type=Path)
    parser.add_argument("b", type=Path)
    args = parser.parse_args()
    excluded = {}
    for e in args.exclude:
        table, _, condition = e.partition(":")
        excluded[table] = condition
    con = duckdb.connect()
    names = tables(args.a) | tables(args.b)
    src = {"a": sources(con, "a", args.a, args.views_a or VIEWS, names), "b": sources(con, "b", args.b, VIEWS, names)}
    same = True
    for table in sorted(src["a"]):
        if table not in src["b"]:
            print(f"{table}: missing from the second")
            same = False
            continue
        cols = {k: con.execute(f"DESCRIBE SELECT * FROM {src[k][table]}").fetchall() for k in src}
        ignored = set(args.ignore_column) | ({"writer"} if table in BODY_TABLES else set())
        columns = {k: [(c[0], c[1]) for c in v if c[0] not in ignored] for k, v in cols.items()}
        added = [c for c in columns["b"] if c not in columns["a"]]
        if [c for c in columns["b"] if c not in added] != columns["a"]:
            print(f"{table}: other columns:\n  {columns['a']}\n  {columns['b']}")
            same = False
            continue
        names = ", ".join(f'"{c[0]}"' for c in columns["a"])
        where = f"WHERE NOT ({excluded[table]})" if table in excluded else ""
        sel = {k: f"SELECT {names} FROM {src[k][table]} {where}" for k in src}
        rows = {k: con.execute(f"SELECT count(*) FROM ({sel[k]})").fetchall()[0][0] for k in src}
        only_a = con.execute(f"SELECT count(*) FROM ({sel['a']} EXCEPT ALL {sel['b']})").fetchall()[0][0]
        only_b = con.execute(f"SELECT count(*) FROM ({sel['b']} EXCEPT ALL {sel['a']})").fetchall()[0][0]
        ok = rows["a"] == rows["b"] and only_a == 0 and only_b == 0
        same &= ok
        print(
            f"{table:<16} {rows['a']:>10} rows | {rows['b']:>10} rows | "
            f"only in the first {only_a}, only in the second {only_b}  {'same' if ok else 'DIFFERENT'}"
        )
        if added:
            print(f"{'':<16} columns the second adds: {', '.join(c[0] for c in added)}")
        if table in excluded:
            n = {k: con.execute(f"SELECT count(*) FROM {src[k][table]} WHERE {excluded[table]}").fetchall()[0][0]
                 for k in src}
            print(f"{'':<16} left out ({excluded[table]}): {n['a']} rows | {n['b']} rows")
    for table in sorted(set(src["b"]) - set(src["a"])):
        n = con.execute(f"SELECT count(*) FROM {src['b'][table]}").fetchall()[0][0]
        print(f"{table:<16} {'':>10}      | {n:>10} rows | added by the second")
    if args.ignore_column:
        print(f"(columns left out of every table: {', '.join(args.ignore_column)})")
    print("same rows" if same else "the outputs differ")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
