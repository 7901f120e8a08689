"""`robostats query NAME OUT`: every ready query of queries/, compiled into
the binary, run over a data set as a user runs it in DuckDB: its rows
printed as CSV or JSON lines, or written by DuckDB into a CSV, JSON or
Parquet file (read back here with pyarrow)."""

import csv
import io
import json
import os
import subprocess
import sys

import pyarrow.parquet as pq
import pytest

from conftest import BIN, QUERIES, ROOT, VIEW_FILES, connect

ENV = {**os.environ, "ROBOSTATS_PYTHON": sys.executable}


def query(*args, status=0):
    proc = subprocess.run([str(BIN), "query", *map(str, args)], cwd=ROOT, capture_output=True, text=True,
                          timeout=600, env=ENV)
    assert proc.returncode == status, proc.stderr
    return proc


def test_the_list_is_the_directory_of_ready_queries():
    listed = [line.split()[0] for line in query("--list").stdout.splitlines()]
    assert listed == sorted(p.stem for p in QUERIES.glob("*.sql") if p not in VIEW_FILES)
    assert "definitions" in listed


@pytest.mark.parametrize("name", ["definitions", "status_codes", "ai_crawler_blocking"])
def test_rows_printed_and_written_are_the_query_s(samples_out, tmp_path, name):
    con = connect(samples_out)
    want = con.sql((QUERIES / f"{name}.sql").read_text())
    columns, rows = want.columns, want.fetchall()
    assert rows
    printed = list(csv.reader(io.StringIO(query(name, samples_out, "--format", "csv").stdout)))
    assert printed[0] == columns and len(printed) == len(rows) + 1
    assert printed[1:] == [["" if v is None else str(v).lower() if isinstance(v, bool) else str(v) for v in r]
                           for r in rows]
    lines = [json.loads(line) for line in query(name, samples_out, "--format", "json").stdout.splitlines()]
    assert [list(line) for line in lines][:1] == [columns] and len(lines) == len(rows)
    # DuckDB writes the file, with the columns' types: the same rows.
    out = tmp_path / f"{name}.parquet"
    proc = query(name, samples_out, "-o", out)
    assert f"{len(rows)} rows" in proc.stderr
    table = pq.read_table(out)
    assert table.column_names == columns and table.num_rows == len(rows)
    assert [tuple(r.values()) for r in table.to_pylist()] == rows


def test_what_is_not_a_query_or_a_format_is_refused(samples_out, tmp_path):
    assert "robostats query --list" in query("nope", samples_out, status=2).stderr
    assert "-o FILE.parquet" in query("definitions", samples_out, "--format", "parquet", status=2).stderr
    assert "--format" in query("definitions", samples_out, "-o", tmp_path / "x.txt", status=2).stderr
    assert not (tmp_path / "x.txt").exists()
    assert "is not an ingest output directory" in query("definitions", tmp_path, status=2).stderr


def test_by_rank_takes_a_rank_list(samples_out, tmp_path):
    """`--ranks` (with `--rank-bands`) gives by_rank.sql its list: the rows
    DuckDB gives with the same variables set."""
    con = connect(samples_out)
    domains = [d for (d,) in con.sql("SELECT DISTINCT url_host_registered_domain FROM captures "
                                     "WHERE url_host_registered_domain IS NOT NULL ORDER BY 1").fetchall()]
    ranks = tmp_path / "tranco.csv"
    ranks.write_text("".join(f"{i},{d}\n" for i, d in enumerate(domains, 1)))
    con.execute("SET VARIABLE robostats_ranks = ?", [str(ranks)])
    con.execute("SET VARIABLE robostats_rank_bands = '100,300'")
    rows = con.sql((QUERIES / "by_rank.sql").read_text()).fetchall()
    assert {r[5] for r in rows} == {1, 101, 301, None}
    printed = list(csv.reader(io.StringIO(
        query("by_rank", samples_out, "--ranks", ranks, "--rank-bands", "100, 300", "--format", "csv").stdout)))
    assert len(printed) == len(rows) + 1
    assert printed[1:] == [["" if v is None else str(v) for v in r] for r in rows]
    assert "does not exist" in query("by_rank", samples_out, "--ranks", tmp_path / "no.csv", status=2).stderr
    assert "--rank-bands 300,100" in query("by_rank", samples_out, "--ranks", ranks, "--rank-bands", "300,100",
                                           status=2).stderr


def test_a_rank_list_s_path_is_read_as_named(samples_out, tmp_path):
    """A list named `tranco[1].csv` under `crawl=X/` is that file: not
    `tranco1.csv` (which `[1]` would match as a pattern), and no column
    from the `name=value` directory."""
    con = connect(samples_out)
    domains = [d for (d,) in con.sql("SELECT DISTINCT url_host_registered_domain FROM captures "
                                     "WHERE url_host_registered_domain IS NOT NULL ORDER BY 1").fetchall()]
    place = tmp_path / "crawl=CC-MAIN-2025-05"
    place.mkdir()
    (place / "tranco[1].csv").write_text("".join(f"{i},{d}\n" for i, d in enumerate(domains, 1)))
    (place / "tranco1.csv").write_text("1,not-in-the-data.example\n")
    printed = list(csv.reader(io.StringIO(
        query("by_rank", samples_out, "--ranks", place / "tranco[1].csv", "--format", "csv").stdout)))
    first = printed[0].index("band_first")
    assert {r[first] for r in printed[1:]} >= {"1", ""}, printed[:3]
