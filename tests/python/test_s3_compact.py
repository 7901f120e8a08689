"""`compact s3://bucket/prefix/` against moto's S3 server (s3_store.py):
the rows kept, a compaction killed before its commit hidden, compact and
ingest refusing each other, and a session that read the views before a
compaction told to read them again."""

import subprocess

import pytest

from conftest import BIN, ROOT, connect
from s3_store import BUCKET, SHORT_LEASE, Rule, assert_equals_local, kill_at, local, no_rules_left, run, store

def compact(store, prefix, *extra, status=0):
    proc = subprocess.run(
        [str(BIN), "compact", f"s3://{BUCKET}/{prefix}/", "--grace", "0", *extra],
        cwd=ROOT, env=store.env(), capture_output=True, text=True, timeout=240,
    )
    assert proc.returncode == status, proc.stderr
    return proc


def view_counts(out):
    con = connect(out)
    views = [v for (v,) in con.sql("SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()]
    return {v: con.sql(f"SELECT count(*) FROM {v}").fetchall()[0][0] for v in views}


def test_compact_on_s3_keeps_every_row_and_an_ingest_after_adds_none(store, local, tmp_path):
    for i in range(3):
        run(store, "compacted", "--shard", f"{i}/3")
    before = len(store.keys("compacted/"))
    proc = compact(store, "compacted")
    assert "part files ->" in proc.stdout
    keys = store.keys("compacted/")
    assert len(keys) < before
    assert any("/compacted-" in k for k in keys) and "compacted/_manifest/generation-00000001.json" in keys
    assert_equals_local(store, "compacted", local, tmp_path)
    assert view_counts(store.download("compacted", tmp_path / "views")) == view_counts(local)
    again = run(store, "compacted", "--shard", "0/3")
    assert "0 files done" in again.stdout or again.stdout == ""
    assert store.keys("compacted/") == keys


def test_a_compaction_killed_before_its_commit_hides_its_files(store, local, tmp_path):
    for i in range(3):
        run(store, "half-compacted", "--shard", f"{i}/3")
    proc = subprocess.Popen(
        [str(BIN), "compact", f"s3://{BUCKET}/half-compacted/", "--grace", "0"],
        cwd=ROOT, env=store.env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    kill_at(store, proc, Rule("PUT", "/half-compacted/_manifest/generation-00000001.json", before=True))
    keys = store.keys("half-compacted/")
    assert any("/compacted-" in k for k in keys), keys
    # The uploaded files are there, and hidden: every view reads as before.
    assert view_counts(store.download("half-compacted", tmp_path / "half")) == view_counts(local)
    # The next compaction waits out the dead one's claim, commits its own
    # and deletes the files no generation names.
    compact_env = {"ROBOSTATS_S3_LEASE_SECONDS": SHORT_LEASE}
    proc = subprocess.run(
        [str(BIN), "compact", f"s3://{BUCKET}/half-compacted/", "--grace", "0"],
        cwd=ROOT, env=store.env(**compact_env), capture_output=True, text=True, timeout=240,
    )
    assert proc.returncode == 0, proc.stderr
    assert_equals_local(store, "half-compacted", local, tmp_path)
    assert view_counts(store.download("half-compacted", tmp_path / "whole")) == view_counts(local)


def test_compact_is_refused_beside_an_ingest_and_an_ingest_beside_compact(store):
    run(store, "busy-set")
    key = "busy-set/_manifest/shard-00000-of-00002.lease"
    store.client.put_object(Bucket=BUCKET, Key=key, Body=b'{"holder": "ingest"}')
    proc = compact(store, "busy-set", status=2)
    assert "ingest" in proc.stderr and key in proc.stderr, proc.stderr
    store.client.delete_object(Bucket=BUCKET, Key=key)
    store.client.put_object(Bucket=BUCKET, Key="busy-set/_manifest/compact.lease", Body=b"{}")
    proc = run(store, "busy-set", status=2)
    assert "compact" in proc.stderr, proc.stderr
    store.client.delete_object(Bucket=BUCKET, Key="busy-set/_manifest/compact.lease")


def test_a_session_that_read_the_views_before_a_compaction_is_told(store, local, tmp_path):
    """views.sql read, then the data set compacted: the next query says to
    read views.sql again rather than count old and new files."""
    for i in range(2):
        run(store, "session", "--shard", f"{i}/2")
    copy = store.download("session", tmp_path / "before")
    con = connect(copy)
    assert con.sql("SELECT count(*) FROM captures").fetchall() == [(717,)]
    compact(store, "session")
    generation = store.client.get_object(Bucket=BUCKET, Key="session/_manifest/generation-00000001.json")
    (copy / "_manifest" / "generation-00000001.json").write_bytes(generation["Body"].read())
    with pytest.raises(Exception, match="compacted since queries/views.sql was read"):
        con.sql("SELECT count(*) FROM captures").fetchall()
