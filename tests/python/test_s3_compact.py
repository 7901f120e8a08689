"""`compact s3://bucket/prefix/` against moto's S3 server (s3_store.py):
the rows kept, a compaction killed before its commit hidden (at every
step: test_s3_compact_kills.py), compact and
ingest refusing each other while alive and taking over each other's
claims once dead (at once on one host, at expiry from another), a
session that read the views before a compaction told to read them again,
and generations chained and compared as numbers, a planted one refused."""

import json
import re
import subprocess
import threading
import time

import duckdb
import pytest

from conftest import BIN, ROOT, SAMPLES, TABLES, connect
from s3_store import BUCKET, HTTPFS_PYTHON, SHORT_LEASE, Rule, assert_equals_local, kill_at, local, no_rules_left, run, start, store

def compact(store, prefix, *extra, status=0, crawl_tables=False, **env):
    """compact of `prefix` (`--grace 0` unless given); the crawl tables
    (a DuckDB process, a second of CPU) only where a test reads them."""
    grace = [] if "--grace" in extra else ["--grace", "0"]
    tables = [] if crawl_tables else ["--no-crawl-tables"]
    proc = subprocess.run(
        [str(BIN), "compact", f"s3://{BUCKET}/{prefix}/", *grace, *tables, *extra],
        cwd=ROOT, env=store.env(**env), capture_output=True, text=True, timeout=240,
    )
    assert proc.returncode == status, proc.stderr
    return proc


def kill_compact_at(store, prefix, rule):
    """`compact` of `prefix` killed (SIGKILL) at `rule`'s request."""
    proc = subprocess.Popen(
        [str(BIN), "compact", f"s3://{BUCKET}/{prefix}/", "--grace", "0"],
        cwd=ROOT, env=store.env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    kill_at(store, proc, rule)


def table_counts(out):
    """The rows of each table as the views read them (the crawl tables'
    included)."""
    con = connect(out)
    views = [*TABLES, "crawl_hosts", "robots_txt_chains", "crawl_outcomes"]
    return {v: con.sql(f"SELECT count(*) FROM {v}").fetchall()[0][0] for v in views}


def view_counts(out):
    con = connect(out)
    views = [v for (v,) in con.sql("SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()]
    return {v: con.sql(f"SELECT count(*) FROM {v}").fetchall()[0][0] for v in views}


def test_compact_on_s3_keeps_every_row_and_an_ingest_after_adds_none(store, local, tmp_path):
    for i in range(3):
        run(store, "compacted", "--shard", f"{i}/3")
    before = len(store.keys("compacted/"))
    proc = compact(store, "compacted", crawl_tables=True)
    assert "part files ->" in proc.stdout
    keys = store.keys("compacted/")
    assert len(keys) < before
    assert any("/compacted-" in k for k in keys) and "compacted/_manifest/generation-00000001.json" in keys
    # The crawl tables, published in the same generation. (The data set
    # weighs less than a merged file: read whole, DuckDB reads the copy.)
    for table in ("crawl_hosts", "crawl_chains", "crawl_outcomes"):
        assert any(k.startswith(f"compacted/{table}/compacted-") for k in keys), proc.stdout + proc.stderr
    assert "crawl tables: written" in proc.stdout
    read = re.search(r"^compact: read (\d+) of (\d+) part files from S3", proc.stdout, re.M)
    assert read[1] == read[2] and not proc.stderr.strip(), proc.stdout + proc.stderr
    # A DuckDB that may not read S3 (no httpfs here, no download), past
    # --target-size: where it cannot, it reads the copy, every file
    # fetched, and compact says so.
    again = compact(store, "compacted", "--target-size", "1KiB", crawl_tables=True)
    assert "crawl tables: up to date" in again.stdout
    read = re.search(r"^compact: read (\d+) of (\d+) part files from S3", again.stdout, re.M)
    if "every part file was downloaded" in again.stderr:
        assert "httpfs" in again.stderr and read[1] == read[2], again.stdout + again.stderr
    else:
        assert read[1] == "0" and not again.stderr.strip(), again.stdout + again.stderr
    assert store.keys("compacted/") == keys
    assert_equals_local(store, "compacted", local, tmp_path)
    assert view_counts(store.download("compacted", tmp_path / "views")) == view_counts(local)
    again = run(store, "compacted", "--shard", "0/3")
    assert "0 files done" in again.stdout or again.stdout == ""
    assert store.keys("compacted/") == keys


@pytest.mark.skipif(not HTTPFS_PYTHON.exists(), reason="DuckDB 1.5 with httpfs: scripts/test-deps.sh")
def test_past_its_target_size_compact_reads_only_what_it_merges(store):
    """Past --target-size, DuckDB reads the data set on S3 for the crawl
    tables (httpfs), and compact downloads only the files it merges:
    with nothing to merge and the crawl tables up to date, none."""
    run(store, "lazy")
    compact(store, "lazy", crawl_tables=True)
    keys = store.keys("lazy/")
    proc = compact(store, "lazy", "--target-size", "1KiB", "--python", str(HTTPFS_PYTHON), crawl_tables=True)
    assert "crawl tables: up to date" in proc.stdout
    assert re.search(r"^compact: read 0 of \d+ part files from S3 \(0\.0 of", proc.stdout, re.M), proc.stdout
    assert not proc.stderr.strip(), proc.stderr
    assert store.keys("lazy/") == keys


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


def test_compact_and_an_ingest_starting_at_the_same_instant_never_both_run(store, local, tmp_path):
    """Each writes its claim, then lists the data set for the other's and
    reads it. Held so that both claims are written before either lists,
    and both read the other's before either can give its own up, each sees
    the other and stops, leaving no file. Run one after the other, they end with a single run's
    rows."""
    run(store, "race", "--shard", "0/2")
    before = store.keys("race/")
    listed, read = threading.Barrier(2, timeout=60), threading.Barrier(2, timeout=60)
    # A claim read is live while its holder's process is: each run gives its
    # own claim up only once the other gives up too, so that neither finds
    # the other already gone (then it would rightly go on, alone). (The
    # ingest's first DELETE of its claim is its probe of the store's
    # conditional deletes, on a wrong ETag.)
    given_up = threading.Barrier(2, timeout=60)
    # each claim, and which of its DELETEs gives it up
    claims = {"race/_manifest/compact.lease": 1, "race/_manifest/shard-00001-of-00002.lease": 2}

    def hold_listings():
        """Both claims stored: each process's next listing is held until
        the other's is answered too, and so is its read of the other's
        claim (else the one that stops first may give its claim up before
        the other reads it, and the other rightly goes on)."""
        store.rules.append(Rule("GET", "list-type=2", within="prefix=race", times=2, after=listed.wait))
        for key in claims:
            store.rules.append(Rule("GET", key, after=read.wait))

    claimed = threading.Barrier(2, timeout=60, action=hold_listings)
    for key, giving_up in claims.items():
        store.rules.append(Rule("PUT", key, after=claimed.wait))
        store.rules.append(Rule("DELETE", key, nth=giving_up, before=given_up.wait))
    ingest = start(store, "race", "--shard", "1/2")
    compacting = compact(store, "race", status=2)
    _, err = ingest.communicate(timeout=240)
    assert ingest.returncode == 2, err
    assert "shard-00001-of-00002.lease" in compacting.stderr, compacting.stderr
    assert "compact.lease" in err, err
    assert store.keys("race/") == before
    run(store, "race", "--shard", "1/2")
    compact(store, "race")
    assert_equals_local(store, "race", local, tmp_path)


def test_a_session_that_read_the_views_before_a_compaction_is_told(store, local, tmp_path):
    """The views read, then the data set compacted: the next query says to
    read them again rather than count old and new files."""
    for i in range(2):
        run(store, "session", "--shard", f"{i}/2")
    copy = store.download("session", tmp_path / "before")
    con = connect(copy)
    assert con.sql("SELECT count(*) FROM captures").fetchall() == [(717,)]
    compact(store, "session")
    generation = store.client.get_object(Bucket=BUCKET, Key="session/_manifest/generation-00000001.json")
    (copy / "_manifest" / "generation-00000001.json").write_bytes(generation["Body"].read())
    with pytest.raises(Exception, match="compacted since queries/tables.sql was read: read the views again"):
        con.sql("SELECT count(*) FROM captures").fetchall()


def test_a_killed_compaction_lets_an_ingest_run_at_once_and_the_reverse(store, local, tmp_path):
    """Batch schedulers kill jobs (SIGKILL) at their time limit: the claim
    a killed compaction leaves is taken over at once by an ingest on the
    same host (its process is gone), not 120 s later, and an ingest's by
    compact; and the data set ends with every row, once."""
    for i in range(2):
        run(store, "killed-claims", "--shard", f"{i}/2")
    kill_compact_at(store, "killed-claims", Rule("PUT", "/killed-claims/captures/compacted-", before=True))
    assert "killed-claims/_manifest/compact.lease" in store.keys("killed-claims/_manifest/")
    started = time.monotonic()
    again = run(store, "killed-claims", "--shard", "0/2", "-j", "1")
    assert time.monotonic() - started < 60, "the dead compaction's claim was waited out"
    assert "compact.lease" not in " ".join(store.keys("killed-claims/_manifest/")), again.stderr
    # An ingest killed while it stores its part files: compact at once.
    ingest = subprocess.Popen(
        [str(BIN), "ingest", "-q", "--redo", SAMPLES[0], "--shard", "0/2", "--out",
         f"s3://{BUCKET}/killed-claims/", *SAMPLES],
        cwd=ROOT, env=store.env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    kill_at(store, ingest, Rule("PUT", "/killed-claims/captures/", after=True))
    assert any(k.endswith("shard-00000-of-00002.lease") for k in store.keys("killed-claims/_manifest/"))
    started = time.monotonic()
    compact(store, "killed-claims")
    assert time.monotonic() - started < 60
    run(store, "killed-claims", "--shard", "0/2")
    assert_equals_local(store, "killed-claims", local, tmp_path)


def foreign_claim(holder, seconds=SHORT_LEASE):
    """A live-looking claim of a process on another host (another boot):
    only its expiry ends it."""
    return json.dumps({
        "holder": holder, "host": "node-17", "process": 4242, "run": "r", "since": int(time.time()),
        "seconds": int(seconds), "renewals": 0,
        "identity": {"process": 4242, "started": 1, "boot": "another-boot", "namespace": "pid:[1]"},
    }).encode()


def test_a_claim_of_another_host_is_waited_out_and_named(store, local, tmp_path):
    """A compaction's claim written on another host: an ingest is refused
    while it may live, with its holder, since when, and when it expires;
    once expired by S3's clock it is taken over. The same for compact
    beside an ingest's claim."""
    env = {"ROBOSTATS_S3_LEASE_SECONDS": SHORT_LEASE}
    run(store, "foreign", **env)
    run(store, "foreign-ingest", **env)
    # Both claims planted at once: one wait for their expiry.
    key = "foreign/_manifest/compact.lease"
    store.client.put_object(Bucket=BUCKET, Key=key, Body=foreign_claim("compact"))
    ingest_key = "foreign-ingest/_manifest/shard-00001-of-00002.lease"
    store.client.put_object(Bucket=BUCKET, Key=ingest_key, Body=foreign_claim("ingest (shard-00001-of-00002)"))
    refused = run(store, "foreign", status=2, **env)
    for said in ["compact (process 4242 on node-17, since ", "GMT)", f"{SHORT_LEASE} s"]:
        assert said in refused.stderr, refused.stderr
    # written just now: 0 s ago, or 1 s on a busy machine (the seconds turn)
    assert re.search(r"renewed [01] s ago", refused.stderr), refused.stderr
    proc = compact(store, "foreign-ingest", status=2, **env)
    assert "ingest (shard-00001-of-00002) (process 4242 on node-17" in proc.stderr, proc.stderr
    time.sleep(int(SHORT_LEASE) + 2)
    run(store, "foreign", **env)
    compact(store, "foreign-ingest", **env)
    assert_equals_local(store, "foreign", local, tmp_path)
    assert_equals_local(store, "foreign-ingest", local, tmp_path)

def generation_body(n, previous="", retired=()):
    return json.dumps({"generation": n, "compactions": [], "retired": list(retired), "unix": 0,
                       "id": "f" * 32, "previous": previous}).encode()


def test_a_planted_generation_is_refused_and_nothing_is_deleted_on_its_word(store, local, tmp_path):
    """A generation file robostats did not write (out of sequence, or not
    naming its predecessor, or not numbered) hides no row:
    readers refuse the data set, naming it, and compact refuses to run,
    deleting nothing; once it is removed, both work again."""
    prefix = "planted"
    for i in range(2):
        run(store, prefix, "--shard", f"{i}/2")
    compact(store, prefix)
    parts = [k for k in store.keys(f"{prefix}/") if k.endswith(".parquet")]
    for planted in ["generation-99999999.json", "generation-00000002.json", "generation-7.json"]:
        key = f"{prefix}/_manifest/{planted}"
        store.client.put_object(Bucket=BUCKET, Key=key, Body=generation_body(2, "0" * 32, retired=parts))
        before = store.keys(f"{prefix}/")
        proc = compact(store, prefix, status=2)
        assert planted in proc.stderr and "nothing is compacted or deleted on its word" in proc.stderr, proc.stderr
        assert store.keys(f"{prefix}/") == before
        with pytest.raises(duckdb.Error, match=planted.replace(".", r"\.")):
            connect(store.download(prefix, tmp_path / planted))
        store.client.delete_object(Bucket=BUCKET, Key=key)
    compact(store, prefix)
    assert_equals_local(store, prefix, local, tmp_path)
    assert view_counts(store.download(prefix, tmp_path / "after")) == view_counts(local)


def test_generations_chain_and_compare_as_numbers(store, local, tmp_path):
    """Each generation names the id of the one before; compact and the
    views follow the chain by number."""
    for i in range(3):
        run(store, "chained", "--shard", f"{i}/3")
        compact(store, "chained")
    names = [k for k in store.keys("chained/_manifest/") if "/generation-" in k]
    assert names == [f"chained/_manifest/generation-{n:08}.json" for n in range(len(names))] and len(names) >= 3
    bodies = [store.client.get_object(Bucket=BUCKET, Key=k)["Body"].read() for k in names]
    for before, after in zip(bodies, bodies[1:]):
        assert json.loads(after)["previous"] == json.loads(before)["id"] and len(json.loads(before)["id"]) == 32
    assert json.loads(bodies[0])["previous"] == ""
    assert_equals_local(store, "chained", local, tmp_path)
    assert view_counts(store.download("chained", tmp_path / "views")) == view_counts(local)


def test_compact_does_not_wait_out_its_grace_and_the_next_run_deletes(store, local, tmp_path):
    """compact commits and returns: the merged files stay for the queries
    begun before (hidden from the views), and the first ingest or compact
    that starts after the grace the generation records deletes them."""
    for i in range(2):
        run(store, "graced", "--shard", f"{i}/2")
    before = set(store.keys("graced/"))
    started = time.monotonic()
    compact(store, "graced", "--grace", "3600")
    assert time.monotonic() - started < 60
    key = "graced/_manifest/generation-00000001.json"
    generation = json.loads(store.client.get_object(Bucket=BUCKET, Key=key)["Body"].read())
    assert generation["grace"] == 3600 and generation["retired"]
    retired = {f"graced/{k}" for k in generation["retired"]}
    assert retired <= before <= set(store.keys("graced/")) | retired
    assert retired <= set(store.keys("graced/")), "kept for the queries begun before"
    assert view_counts(store.download("graced", tmp_path / "within")) == view_counts(local)
    # An ingest within the grace deletes nothing; one after it (the commit
    # moved two hours back, rather than a test waiting), does.
    run(store, "graced", "--shard", "0/2")
    assert retired <= set(store.keys("graced/"))
    generation["unix"] -= 7200
    store.client.put_object(Bucket=BUCKET, Key=key, Body=json.dumps(generation).encode())
    run(store, "graced", "--shard", "0/2")
    assert not retired & set(store.keys("graced/"))
    assert_equals_local(store, "graced", local, tmp_path)


def test_a_redo_empties_the_crawl_tables_and_the_next_compact_writes_them(store):
    """`ingest --redo` on S3 puts a zero-row file in place of each crawl
    table's (the inputs it does again may change rows under their keys);
    the next compaction writes them again and retires that file."""
    run(store, "redo", "--shard", "0/3")
    compact(store, "redo", crawl_tables=True)
    # (an input compact merged cannot be done again: one ingested since)
    run(store, "redo", "--shard", "1/3")
    manifest = store.client.get_object(Bucket=BUCKET, Key="redo/_manifest/shard-00001-of-00003.jsonl")
    lines = [json.loads(line) for line in manifest["Body"].read().decode().splitlines()]
    [input_name] = [line["input"] for line in lines if line.get("type") == "input"]
    run(store, "redo", "--shard", "1/3", "--redo", input_name)
    crawl_keys = lambda: [k.split("/", 2)[1:] for k in store.keys("redo/") if "/crawl_" in k]
    assert sorted(table for table, _ in crawl_keys()) == ["crawl_chains", "crawl_hosts", "crawl_outcomes"]
    assert all(name.startswith("emptied-") for _, name in crawl_keys()), crawl_keys()
    assert "crawl tables: written" in compact(store, "redo", crawl_tables=True).stdout
    assert all(name.startswith("compacted-") for _, name in crawl_keys()), crawl_keys()

