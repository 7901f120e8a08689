"""A data set moves between a disk and a bucket by a copy of its files
(s3_store.py's moto): a data set compacted on S3 and copied to disk,
within its compaction's grace (the merged files still there), is read,
ingested into and compacted there with every row once (a generation out
of its chain refused there, nothing deleted), and copied back;
a data set compacted on disk and copied to S3 keeps its compacted rows
through the first ingest and compaction there."""

import json
import subprocess

import pytest

from conftest import BIN, ROOT, SAMPLES, assert_same_tables, ingest
from s3_store import BUCKET, assert_equals_local, local, no_rules_left, run, store
from test_s3_compact import compact, table_counts


def compact_dir(out, status=0):
    proc = subprocess.run([str(BIN), "compact", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=240)
    assert proc.returncode == status, proc.stderr
    return proc


def files(out):
    """The data set's files and sizes (not its locks, which name their last holder)."""
    return sorted((str(p.relative_to(out)), p.stat().st_size) for p in out.rglob("*")
                  if p.is_file() and not p.name.endswith(".lock"))


@pytest.fixture(scope="module")
def compacted_on_disk(tmp_path_factory):
    """The samples ingested on disk in two runs, then compacted there."""
    out = tmp_path_factory.mktemp("on-disk") / "out"
    ingest(SAMPLES[:2], out)
    ingest(SAMPLES, out)
    compact_dir(out)
    return out


def test_a_data_set_compacted_on_s3_moves_to_disk_and_back(store, local, tmp_path):
    for i in range(2):
        run(store, "down", "--shard", f"{i}/3")
    compact(store, "down", "--grace", "3600", crawl_tables=True)
    out = store.download("down", tmp_path / "down")
    # The last shard ingested on disk, then compacted there: the files the
    # generation retired are not merged again, the new compaction is read.
    ingest(SAMPLES, out, "--shard", "2/3")
    # (A generation out of the chain stops it, as on S3: nothing deleted.)
    planted = out / "_manifest" / "generation-00000007.json"
    planted.write_bytes((out / "_manifest" / "generation-00000001.json").read_bytes())
    before = files(out)
    refused = compact_dir(out, status=2)
    assert "generation-00000007.json" in refused.stderr and "nothing is compacted or deleted" in refused.stderr
    assert files(out) == before
    planted.unlink()
    assert "part files ->" in compact_dir(out).stdout
    assert table_counts(out) == table_counts(local)
    assert_same_tables(local, out)
    generations = sorted(p.name for p in (out / "_manifest").glob("generation-*.json"))
    assert generations == [f"generation-{n:08}.json" for n in range(3)], generations
    # And back to S3, where the next compaction keeps to the same chain.
    store.upload(out, "back")
    run(store, "back", "--shard", "2/3")
    compact(store, "back", crawl_tables=True)
    assert_equals_local(store, "back", local, tmp_path)


def test_a_data_set_compacted_on_disk_moves_to_s3(store, local, compacted_on_disk, tmp_path):
    store.upload(compacted_on_disk, "up")
    # Its first ingest on S3 begins the generations: they read the
    # compaction done on disk, and S3's compaction keeps its files.
    run(store, "up")
    assert table_counts(store.download("up", tmp_path / "first")) == table_counts(local)
    compact(store, "up", crawl_tables=True)
    assert_equals_local(store, "up", local, tmp_path)
    assert table_counts(store.download("up", tmp_path / "compacted")) == table_counts(local)


def test_compacted_files_a_first_generation_did_not_name_are_read_again(store, local, compacted_on_disk, tmp_path):
    """A data set compacted on disk, copied to S3, whose first ingest there
    wrote a generation naming no compaction (robostats before it named
    the compactions already there): its views read none of the compacted
    rows. The next compaction on S3 finds those files hold rows found
    nowhere else (their merges recorded, the files merged gone), names
    them again rather than deleting them as a dead compaction's."""
    store.upload(compacted_on_disk, "damaged")
    first = {"generation": 0, "compactions": [], "retired": [], "unix": 0, "id": "e" * 32, "previous": ""}
    store.client.put_object(Bucket=BUCKET, Key="damaged/_manifest/generation-00000000.json",
                            Body=json.dumps(first).encode())
    assert table_counts(store.download("damaged", tmp_path / "before"))["captures"] == 0
    compact(store, "damaged", crawl_tables=True)
    assert_equals_local(store, "damaged", local, tmp_path)
    assert table_counts(store.download("damaged", tmp_path / "after")) == table_counts(local)
