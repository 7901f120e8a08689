"""A second reader: pyarrow reads every table's Parquet files and checks the
column types and the capture keys, without DuckDB."""

from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from conftest import TABLES

DICT_STRING = pa.dictionary(pa.int32(), pa.string())

EXPECTED_TYPES = {
    "captures": {
        "warc_filename": DICT_STRING,
        "warc_record_offset": pa.int64(),
        "warc_record_length": pa.int64(),
        "fetch_time": pa.timestamp("us", tz="UTC"),
        "fetch_status": pa.int32(),
        "url_port": pa.int32(),
        "google_class": DICT_STRING,
        "google_current_class": DICT_STRING,
        "cc_class": DICT_STRING,
        "redirect_kind": DICT_STRING,
        "global_class": DICT_STRING,
        "global_group_match": DICT_STRING,
        "warc_protocols": pa.list_(pa.string()),
        "payload_length": pa.int64(),
        "looks_like_html": pa.bool_(),
        "crawl_delay": pa.float64(),
    },
    "named_verdicts": {
        "agent": DICT_STRING,
        "rules_class": DICT_STRING,
        "root_allowed": pa.bool_(),
    },
    "agents": {
        "token": pa.string(),
        "ignores_global_group": pa.bool_(),
        "position": pa.int32(),
        "list_version": DICT_STRING,
    },
    "bodies": {"bytes": pa.int64()},
    "body_user_agents": {"group": pa.int32(), "line": pa.int32(), "is_global": pa.bool_()},
    "body_rules": {"kind": DICT_STRING, "escaped_pattern": pa.string(), "is_typo": pa.bool_()},
    "body_sitemaps": {"is_valid": pa.bool_(), "line": pa.int32(), "url_host_registered_domain": pa.string()},
    "body_directives": {"name": DICT_STRING, "known_elsewhere": DICT_STRING, "typo_of": DICT_STRING},
    "body_preference_statements": {
        "line": pa.int32(),
        "directive": DICT_STRING,
        "google_group": pa.int32(),
        "aipref_group": pa.int32(),
        "in_cloudflare_block": pa.bool_(),
        "path": pa.string(),
        "label": DICT_STRING,
        "preference": DICT_STRING,
        "status": DICT_STRING,
    },
    "resolved_preferences": {
        "agent": DICT_STRING,
        "usage_train_ai": DICT_STRING,
        "usage_line": pa.int32(),
        "signal_use": DICT_STRING,
        "signal_scope": DICT_STRING,
    },
    "verdict_counts": {
        "warc_filename": DICT_STRING,
        "crawl": DICT_STRING,
        "google_class": DICT_STRING,
        "agents": pa.list_(pa.string()),
        "effective_class": DICT_STRING,
        "usage_line": pa.int32(),
        "captures": pa.int64(),
    },
    "errors": {"stage": DICT_STRING, "kind": DICT_STRING, "message": pa.string()},
}


def read(out, table):
    files = sorted((Path(out) / table).glob("*.parquet"))
    assert files, f"no {table} files"
    tables = [pq.read_table(f) for f in files]
    schema = tables[0].schema
    for t in tables[1:]:
        assert t.schema.equals(schema), f"{table}: part files disagree on the schema"
    return pa.concat_tables(tables)


@pytest.mark.parametrize("table", TABLES)
def test_column_types_and_keys(samples_out, fixtures_out, table):
    out = fixtures_out if table == "errors" else samples_out  # the samples have no errors
    t = read(out, table)
    assert t.num_rows > 0
    for name, typ in EXPECTED_TYPES[table].items():
        assert t.schema.field(name).type == typ, (table, name, t.schema.field(name).type)
    if table == "agents":  # the data set's crawler list: no capture key
        assert t.column("token").to_pylist()[-1] == "*"
        return
    if table.startswith("bod"):  # stored once per body: the body key
        assert t.schema.field("body_digest").type == DICT_STRING
        assert t.schema.field("writer").type == pa.int64()
        assert t.column("body_digest").null_count == 0 and t.column("writer").null_count == 0
        return
    assert t.schema.field("warc_filename").type == DICT_STRING
    assert t.column("warc_filename").null_count == 0
    if table == "verdict_counts":  # counts per input: no record offset
        assert t.column("agents").null_count == 0
        assert pc.min(pc.list_value_length(t.column("agents"))).as_py() >= 1
        return
    assert t.schema.field("warc_record_offset").type == pa.int64()
    if table != "errors":  # an error about a whole file has no offset
        assert t.column("warc_record_offset").null_count == 0


def test_timestamps_are_utc_instants(samples_out):
    t = read(samples_out, "captures")
    times = t.column("fetch_time")
    assert times.null_count == 0
    # WARC-Date 2025-11-07T00:58:00Z... of the synthetic file: the stored
    # instants fall within the file's 3-hour window
    synthetic = pc.equal(t.column("warc_filename").cast(pa.string()),
                         "samples/CC-MAIN-20251107005800-20251107035800-00000.warc.gz")
    sel = times.filter(synthetic)
    lo, hi = pc.min(sel).as_py(), pc.max(sel).as_py()
    assert lo.tzinfo is not None and lo.utcoffset().total_seconds() == 0
    assert lo.isoformat() >= "2025-11-07T00:58:00+00:00"
    assert hi.isoformat() <= "2025-11-07T03:58:59+00:00"


def test_keys_of_every_table_exist_in_captures(samples_out, fixtures_out):
    for out in (samples_out, fixtures_out):
        caps = read(out, "captures")
        keys = set(zip(caps.column("warc_filename").cast(pa.string()).to_pylist(),
                       caps.column("warc_record_offset").to_pylist()))
        assert len(keys) == caps.num_rows  # the key is unique
        for table in ("named_verdicts", "resolved_preferences"):
            t = read(out, table)
            rows = set(zip(t.column("warc_filename").cast(pa.string()).to_pylist(),
                           t.column("warc_record_offset").to_pylist()))
            assert rows <= keys, table
        # Every parsed capture's body is stored, once per writer; every
        # body row's body is a capture's, and has a bodies row of its writer.
        digests = set(caps.column("body_digest").drop_null().to_pylist())
        parsed = pc.sum(caps.column("robots_parsed")).as_py()
        assert pc.count(caps.column("body_digest")).as_py() == parsed
        bodies = read(out, "bodies")
        stored = set(zip(bodies.column("body_digest").cast(pa.string()).to_pylist(),
                         bodies.column("writer").to_pylist()))
        assert {d for d, _ in stored} == digests
        for table in ("body_user_agents", "body_rules", "body_sitemaps", "body_directives",
                      "body_preference_statements"):
            t = read(out, table)
            rows = set(zip(t.column("body_digest").cast(pa.string()).to_pylist(), t.column("writer").to_pylist()))
            assert rows <= stored, table
    # errors: rows may name records that never became captures, but each
    # names an input that the run read
    errs = read(fixtures_out, "errors")
    assert errs.num_rows == 1  # (the fixture cut short is failed: no row)
