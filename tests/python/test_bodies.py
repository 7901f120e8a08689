"""The line tables stored once per body (docs/ingest.md, "Bodies stored
once"): a body's rows are written once, outlive the input that wrote them,
and a body written twice (or line rows without their `bodies` row) reads
once through the views and is stored once after `compact`."""

import shutil
import subprocess

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from conftest import BIN, BODY_TABLES, ROOT, SYNTHETIC, connect, ingest

# The views a study reads, per capture.
CAPTURE_VIEWS = ["captures", "user_agents", "rules", "sitemaps", "directives", "preference_statements",
                 "agent_verdicts"]


def view_rows(out, views=CAPTURE_VIEWS):
    """Every row of each view, as text, sorted."""
    con = connect(out)
    rows = {}
    for v in views:
        cols = ", ".join(f'CAST("{c}" AS VARCHAR)' for c in con.sql(f"SELECT * FROM {v}").columns)
        rows[v] = con.sql(f"SELECT {cols} FROM {v} ORDER BY ALL").fetchall()
    con.close()
    return rows


def raw(out, table, where=""):
    [(n,)] = duckdb.sql(f"SELECT count(*) FROM read_parquet('{out}/{table}/*.parquet') {where}").fetchall()
    return n


def body_files(out):
    return {t: sorted(p.name for p in (out / t).glob("*.parquet") if p.name != "~empty.parquet")
            for t in BODY_TABLES}


def two_copies(tmp_path):
    """The synthetic sample under two names: every body of one is the
    other's."""
    inputs = tmp_path / "in"
    inputs.mkdir()
    for name in ("a.warc.gz", "b.warc.gz"):
        shutil.copy(ROOT / SYNTHETIC, inputs / name)
    return [str(inputs / "a.warc.gz"), str(inputs / "b.warc.gz")]


def test_each_body_is_stored_once_and_the_views_give_every_capture_its_lines(tmp_path):
    a, b = two_copies(tmp_path)
    out = tmp_path / "out"
    ingest([a, b], out, "--threads", "1")
    # One input at a time: the second input's bodies are all the first's.
    [(bodies, distinct, captured)] = duckdb.sql(f"""
        SELECT count(*), count(DISTINCT body_digest),
               (SELECT count(DISTINCT body_digest) FROM read_parquet('{out}/captures/*.parquet'))
        FROM read_parquet('{out}/bodies/*.parquet')""").fetchall()
    assert bodies == distinct == captured > 100
    con = connect(out)
    # Each capture has its body's lines: the two copies have the same rows.
    per_input = con.sql("""
        SELECT regexp_extract(warc_filename, '[ab][.]warc') AS f, count(*) FROM rules GROUP BY ALL ORDER BY f
    """).fetchall()
    # (the sample repeats some bodies within the file too)
    assert per_input[0][1] == per_input[1][1] > raw(out, "body_rules") > 1000
    [(n,)] = con.sql("""SELECT count(*) FROM captures c WHERE robots_parsed
                        AND allow_rules + disallow_rules IS DISTINCT FROM (SELECT count(*) FROM rules r
                            WHERE r.warc_filename = c.warc_filename AND r.warc_record_offset = c.warc_record_offset)
                     """).fetchall()
    assert n == 0


def test_a_body_outlives_the_input_that_wrote_it(tmp_path):
    a, b = two_copies(tmp_path)
    out = tmp_path / "out"
    ingest([a], out)
    written = body_files(out)
    assert all(written[t] for t in ("bodies", "body_rules"))
    # b's bodies are all stored: it writes none.
    ingest([b], out)
    assert body_files(out) == written
    # a done again: its own part files are replaced, the bodies b's
    # captures lead to stay (and a's new attempt writes none either).
    proc = ingest([a, b], out, "--redo", a)
    assert "is done again: --redo names it" in proc.stderr, proc.stderr
    assert body_files(out) == written
    clean = tmp_path / "clean"
    ingest([a, b], clean)
    assert view_rows(out) == view_rows(clean)


def with_writer(table, writer):
    field = pa.field("writer", pa.int64(), nullable=False)
    return table.set_column(1, field, pa.array([writer] * table.num_rows, pa.int64()))


def test_a_body_written_twice_reads_once_and_compact_stores_it_once(tmp_path):
    a, b = two_copies(tmp_path)
    out = tmp_path / "out"
    # Two shards that each stored every body (as shards running at once
    # do: the second does not see what the first recorded).
    ingest([a, b], out, "--threads", "1", "--shard", "0/2")
    first = out / "_manifest" / "shard-00000-of-00002.jsonl"
    first.rename(first.with_suffix(".hidden"))
    ingest([a, b], out, "--threads", "1", "--shard", "1/2")
    first.with_suffix(".hidden").rename(first)
    clean = tmp_path / "clean"
    ingest([a, b], clean, "--threads", "1")
    before = view_rows(clean)
    bodies_rows = raw(clean, "bodies")
    # And line rows of a writer without a `bodies` row (a run killed
    # between the two), with other values, that must never be read.
    for t in BODY_TABLES:
        if t == "bodies":
            continue
        for path in list((out / t).glob("*-*-*.parquet"))[:1]:
            orphan = with_writer(pq.read_table(path), 42)
            if "escaped_pattern" in orphan.column_names:
                orphan = orphan.set_column(orphan.column_names.index("escaped_pattern"),
                                           pa.field("escaped_pattern", pa.string()),
                                           pa.array(["/orphan"] * orphan.num_rows))
            pq.write_table(orphan, path.with_name(path.stem + "-000000000000002a.parquet"), compression="zstd")
    assert raw(out, "bodies") == 2 * bodies_rows
    assert view_rows(out) == before
    con = connect(out)
    assert con.sql("SELECT count(*) FROM rules WHERE pattern = '/orphan'").fetchall() == [(0,)]
    assert con.sql("SELECT count(*), count(DISTINCT body_digest) FROM bodies").fetchall() == [(bodies_rows,) * 2]
    con.close()

    proc = subprocess.run([str(BIN), "compact", str(out)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert f"bodies: 2 part files -> 1 ({bodies_rows} rows moved; {bodies_rows} rows of bodies stored twice" \
        in proc.stdout, proc.stdout
    # One writer per body left, the one the views read; no orphan.
    assert raw(out, "bodies") == bodies_rows
    for t in BODY_TABLES:
        [(writers,)] = duckdb.sql(f"SELECT count(DISTINCT writer) FROM read_parquet('{out}/{t}/*.parquet')").fetchall()
        assert writers <= 1, t
    assert raw(out, "body_rules", "WHERE escaped_pattern = '/orphan'") == 0
    assert view_rows(out) == before


def test_a_bodies_file_rewritten_by_other_tools_or_cut_short(tmp_path):
    """A `bodies` part file rewritten by pyarrow with its default
    compression (snappy) is read as robostats' own; one cut short is
    refused with its name and what to do, and once deleted, written
    again (docs/concurrency.md)."""
    a, b = two_copies(tmp_path)
    out = tmp_path / "out"
    ingest([a, b], out, "--threads", "1")
    before = view_rows(out)
    [first] = body_files(out)["bodies"][:1]
    path = out / "bodies" / first
    pq.write_table(pq.read_table(path), path)  # snappy, pyarrow's default
    assert pq.ParquetFile(path).metadata.row_group(0).column(0).compression == "SNAPPY"
    ingest([a, b], out, "--threads", "1")
    subprocess.run([str(BIN), "compact", str(out)], check=True, capture_output=True)
    assert view_rows(out) == before

    [first] = body_files(out)["bodies"][:1]
    path = out / "bodies" / first
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    run = subprocess.run([str(BIN), "ingest", a, b, "--out", str(out), "-q"], capture_output=True, text=True)
    assert run.returncode == 2, run.stderr
    assert str(path) in run.stderr and "damaged" in run.stderr, run.stderr
    assert "delete it and run ingest again with the same inputs" in run.stderr, run.stderr
    path.unlink()
    run = ingest([a, b], out, "--threads", "1")
    assert view_rows(out) == before
