"""The ingest run as a whole: determinism across thread counts, the manifest
against the tables, atomic outputs, record accounting per input file."""

import json
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

from conftest import (
    BODY_TABLES, CUT_SHORT, FIXTURES, PER_INPUT, ROOT, SAMPLES, TABLES, WHIRLWIND, ingest, table_source,
)
from warc_facts import count_responses


def table_rows(out, table):
    if not list((Path(out) / table).glob("*.parquet")):
        return []
    # Every column, as text, sorted: row order across part files is free.
    source = table_source(out, table)
    rel = duckdb.sql(f"SELECT * FROM {source}")
    cols = ", ".join(f'CAST("{c}" AS VARCHAR)' for c in rel.columns)
    return duckdb.sql(f"SELECT {cols} FROM {source} ORDER BY ALL").fetchall()


def manifest(out):
    lines = []
    for f in sorted((Path(out) / "_manifest").glob("*.jsonl")):
        lines += [json.loads(line) for line in f.read_text().splitlines() if line.strip()]
    return lines


def test_one_and_two_threads_give_the_same_rows(tmp_path, samples_out):
    one, two = tmp_path / "t1", tmp_path / "t2"
    ingest(SAMPLES, one, "--threads", "1")
    ingest(SAMPLES, two, "--threads", "2")
    for table in TABLES:
        rows1 = table_rows(one, table)
        assert rows1 == table_rows(two, table), table
        assert rows1 == table_rows(samples_out, table), table
    assert len(table_rows(one, "captures")) == 717


@pytest.mark.parametrize("out_fixture", ["samples_out", "fixtures_out"])
def test_manifest_counts_equal_table_rows(request, out_fixture):
    out = Path(request.getfixturevalue(out_fixture))
    lines = manifest(out)
    assert [line["type"] for line in lines][0] == "run"
    assert lines[-1]["type"] == "end"
    inputs = [line for line in lines if line["type"] == "input"]
    expected_inputs = SAMPLES if out_fixture == "samples_out" else FIXTURES
    assert sorted(i["input"] for i in inputs) == sorted(expected_inputs)

    listed = set()
    for i in inputs:
        if i["input"] in CUT_SHORT:
            # A failed input: nothing of it is in the tables, the line says why.
            assert i["status"] == "failed" and i["parts"] == [], i
            assert "cut short" in i["reason"] and i["captures"] == 0, i
            continue
        assert i["status"] == "done", i
        per_table = {}
        for part in i["parts"]:
            path = out / part["path"]
            assert path.parent.name == part["table"]
            # the part file holds the rows the manifest says, all of this input
            assert pq.ParquetFile(path).metadata.num_rows == part["rows"], part
            names = set(pq.read_table(path, columns=["warc_filename"]).column(0).to_pylist())
            assert names == {i["input"]}, part
            per_table[part["table"]] = per_table.get(part["table"], 0) + part["rows"]
            listed.add(path)
        con = duckdb.connect()
        for table in PER_INPUT:
            files = list((out / table).glob("*.parquet"))
            n = 0
            if files:
                n = con.execute(
                    "SELECT count(*) FROM read_parquet(?) WHERE warc_filename = ?",
                    [[str(f) for f in files], i["input"]],
                ).fetchall()[0][0]
            assert per_table.get(table, 0) == n, (i["input"], table)
        assert i["captures"] == per_table.get("captures", 0)
        assert i["errors"] == per_table.get("errors", 0)

    # every part file on disk is listed (but the schema-only ~empty.parquet of
    # each table, which holds no row, the crawler list, and the body tables'
    # files, which belong to no input), and the end line sums the inputs
    on_disk = {p for t in TABLES if t not in BODY_TABLES for p in (out / t).glob("*.parquet")}
    empty = {out / t / "~empty.parquet" for t in TABLES if t not in BODY_TABLES}
    assert empty <= on_disk
    assert all(pq.ParquetFile(p).metadata.num_rows == 0 for p in empty)
    agents = {p for p in on_disk - empty if p.parent.name == "agents"}
    assert len(agents) == 1 and pq.ParquetFile(agents.pop()).metadata.num_rows == 46
    assert {p for p in on_disk - empty if p.parent.name != "agents"} == listed
    end = lines[-1]
    for key in ("records", "responses", "captures", "lost", "errors"):
        assert end[key] == sum(i[key] for i in inputs), key
    failed = len([i for i in inputs if i["input"] in CUT_SHORT])
    assert end["files_done"] == len(inputs) - failed
    assert end["files_failed"] == failed


@pytest.mark.parametrize("out_fixture", ["samples_out", "fixtures_out"])
def test_outputs_are_only_parquet_files(request, out_fixture):
    out = Path(request.getfixturevalue(out_fixture))
    for entry in out.iterdir():
        assert entry.name in TABLES or entry.name == "_manifest", entry
        for f in entry.rglob("*"):
            if entry.name == "_manifest":
                # the manifests, and the locks of the runs (see docs/concurrency.md)
                assert f.suffix in (".jsonl", ".lock"), f
            else:
                assert f.is_file() and f.suffix == ".parquet", f
                assert not f.name.startswith("."), f


def test_captures_plus_unmatched_errors_equal_warcio_responses(samples_out, fixtures_out):
    checked = 0
    for out, inputs in ((samples_out, SAMPLES), (fixtures_out, FIXTURES)):
        con = duckdb.connect()
        caps = dict(
            con.execute(
                f"SELECT warc_filename, count(*) FROM read_parquet('{out}/captures/*.parquet') GROUP BY 1"
            ).fetchall()
        )
        orphan = {}
        if (Path(out) / "errors").is_dir():
            # errors rows whose record never became a capture
            orphan = dict(
                con.execute(
                    f"""SELECT e.warc_filename, count(*)
                        FROM read_parquet('{out}/errors/*.parquet') e
                        ANTI JOIN read_parquet('{out}/captures/*.parquet') c
                          USING (warc_filename, warc_record_offset)
                        WHERE e.warc_record_offset IS NOT NULL
                        GROUP BY 1"""
                ).fetchall()
            )
        manifest_responses = {
            i["input"]: i["responses"] for i in manifest(out) if i["type"] == "input"
        }
        for path in inputs:
            expected = count_responses(ROOT / path)
            if expected is None:  # warcio cannot read it: no independent figure
                continue
            if path in CUT_SHORT:  # failed: nothing of it in the tables
                assert caps.get(path, 0) + orphan.get(path, 0) == 0, path
                assert manifest_responses[path] == 0, path
                checked += 1
                continue
            got = caps.get(path, 0) + orphan.get(path, 0)
            assert got == expected, path
            assert manifest_responses[path] == expected, path
            checked += 1
    assert checked >= 17  # the 3 samples and every fixture warcio reads through


def test_error_rows_of_the_fixtures(fixtures_out):
    rows = duckdb.sql(
        f"SELECT warc_filename, warc_record_offset, stage, kind FROM read_parquet('{fixtures_out}/errors/*.parquet') ORDER BY ALL"
    ).fetchall()
    # (The file cut short inside a gzip member is a failed input: its
    # truncated_member error is in the manifest, not in the table.)
    assert rows == [
        ("tests/data/warc/other/warcio-example-trunc.warc", 1197, "warc", "content_length_mismatch"),
    ]


def test_every_table_directory_exists_even_when_empty(tmp_path):
    # The whirlwind file alone has no robots.txt rules and no errors: those
    # tables still read, as empty tables with their columns.
    out = tmp_path / "out"
    ingest([WHIRLWIND], out)
    missing = [t for t in TABLES if not (out / t).is_dir()]
    assert missing == []
    con = duckdb.connect()
    for t in PER_INPUT:
        rel = con.sql(f"SELECT * FROM read_parquet('{out}/{t}/*.parquet')")
        assert "warc_filename" in rel.columns
    for t in BODY_TABLES:
        rel = con.sql(f"SELECT * FROM read_parquet('{out}/{t}/*.parquet')")
        assert rel.columns[:2] == ["body_digest", "writer"], t
    assert con.sql(f"SELECT count(*) FROM read_parquet('{out}/body_rules/*.parquet')").fetchall()[0][0] == 0
