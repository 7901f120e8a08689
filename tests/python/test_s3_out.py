"""Data sets written to S3 by `ingest --out s3://bucket/prefix/`, against
moto's S3 server with faults played by a wrapper (s3_store.py): shards at
once, a twin, busy and lost answers, a cut upload, stores that ignore
conditions (on PUT or DELETE), an endpoint that is not a URL, private
staging directories, part and body files deleted by hand and written
again, and DuckDB reading the data set through httpfs (the claims, kills
and stops: test_s3_claims.py)."""

import io
import json
import socket
import subprocess
import threading
import time

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import BIN, QUERIES, ROOT, SAMPLES, VIEW_FILES, connect
from s3_store import (
    BUCKET, HTTPFS_PYTHON, NO_CONDITIONS, SHORT_LEASE, Rule, assert_equals_local, kill_at, local, no_rules_left,
    run, start, store,
)


def test_three_shards_at_once_equal_a_local_run_and_a_rerun_does_nothing(store, local, tmp_path):
    procs = [start(store, "three", "--shard", f"{i}/3") for i in range(3)]
    for p in procs:
        _, err = p.communicate(timeout=240)
        assert p.returncode == 0, err
    assert_equals_local(store, "three", local, tmp_path)
    parts = {k: store.client.head_object(Bucket=BUCKET, Key=k)["ETag"] for k in store.keys("three/")}
    proc = run(store, "three", "--shard", "1/3")
    assert "0 files done" in proc.stderr + proc.stdout or proc.stdout == "", proc.stdout
    after = {k: store.client.head_object(Bucket=BUCKET, Key=k)["ETag"] for k in store.keys("three/")}
    changed = {k for k in parts if after.get(k) != parts[k] and "_manifest" not in k}
    assert not changed, changed
    # Each part file was uploaded once, create-only; each append replaced a
    # known version of its manifest segment.
    puts = [r for r in store.requests if r[0] == "PUT" and r[1].startswith(f"/{BUCKET}/three/")]
    for method, path, none_match, match in puts:
        if path.endswith(".parquet"):
            assert none_match == "*", path
        elif path.endswith(".jsonl"):
            assert none_match == "*" or match, path


def test_a_twin_of_a_live_run_is_refused_naming_its_holder(store, tmp_path):
    """A requeued array child started beside its first attempt: the first
    attempt renews its claim, and the twin stops without writing."""
    key = "twin/_manifest/run.lease"
    claim = {"holder": "ingest (run)", "host": "node-7", "process": 4242, "run": "x", "since": 1,
             "seconds": 4, "renewals": 0}
    store.client.put_object(Bucket=BUCKET, Key=key, Body=json.dumps(claim).encode())
    stop = threading.Event()

    def renew():
        n = 0
        while not stop.wait(0.3):
            n += 1
            store.client.put_object(Bucket=BUCKET, Key=key, Body=json.dumps({**claim, "renewals": n}).encode())

    renewer = threading.Thread(target=renew)
    renewer.start()
    try:
        proc = run(store, "twin", status=2, ROBOSTATS_S3_LEASE_SECONDS=SHORT_LEASE)
    finally:
        stop.set()
        renewer.join()
    assert "node-7" in proc.stderr and "process 4242" in proc.stderr, proc.stderr
    assert f"s3://{BUCKET}/twin/_manifest/run.lease" in proc.stderr
    assert store.keys("twin/") == [key]


def test_busy_answers_are_retried(store, local, tmp_path):
    store.rules += [
        Rule("PUT", "/busy/captures/", times=2, answer=("503 Slow Down", "SlowDown")),
        Rule("PUT", "/busy/_manifest/run.jsonl", nth=2, answer=("500 Internal Server Error", "InternalError")),
        Rule("GET", "prefix=busy", nth=1, answer=("503 Slow Down", "SlowDown")),
        # S3's answer to a conditional write racing another on its key: the
        # condition is tried again.
        Rule("PUT", "/busy/_manifest/run.jsonl", nth=4, answer=("409 Conflict", "ConditionalRequestConflict")),
        Rule("PUT", "/busy/bodies/", nth=1, answer=("409 Conflict", "ConditionalRequestConflict")),
    ]
    run(store, "busy")
    assert all(r.seen for r in store.rules)
    assert_equals_local(store, "busy", local, tmp_path)


def test_a_lost_answer_to_a_create_only_put_is_not_a_conflict(store, local, tmp_path):
    """moto stores the part file, then the answer is lost (a 500 in its
    place): the retry's 412 finds the run's own bytes there, and the run
    goes on. Likewise for an append of the manifest."""
    store.rules += [
        Rule("PUT", "/lost-answer/captures/", lose=True),
        Rule("PUT", "/lost-answer/_manifest/run.jsonl", nth=2, lose=True),
    ]
    run(store, "lost-answer")
    assert all(r.seen for r in store.rules)
    assert_equals_local(store, "lost-answer", local, tmp_path)


def test_a_store_ignoring_conditions_is_refused(store):
    proc = subprocess.run(
        [str(BIN), "ingest", "-q", "--out", f"s3://{NO_CONDITIONS}/x/", *SAMPLES],
        cwd=ROOT, env=store.env(), capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 2, proc.stderr
    assert "does not honour conditional writes" in proc.stderr
    assert not [k for k in store.keys("x/", NO_CONDITIONS) if not k.endswith(".lease")]


def test_a_store_deleting_on_a_wrong_etag_is_refused(store):
    """A claim of a dead run, and the files a compaction retired, are
    deleted on their ETag: a store that deletes whatever the If-Match says
    (here: answers 204 to the probe's DELETE on a wrong ETag) is refused at
    the start, before any part file."""
    store.rules.append(Rule("DELETE", "/delete-probe/_manifest/run.lease", answer=("204 No Content", "")))
    proc = run(store, "delete-probe", status=2)
    assert "does not honour conditional writes" in proc.stderr and "DELETE" in proc.stderr, proc.stderr
    assert not [k for k in store.keys("delete-probe/") if k.endswith(".parquet")]


@pytest.mark.parametrize("endpoint", ["127.0.0.1:9", "localhost", "ftp://127.0.0.1:9"])
def test_an_endpoint_that_is_not_an_http_url_is_refused(store, endpoint):
    """An AWS_ENDPOINT_URL without a scheme is refused, naming it, rather
    than dropped (the requests, signed, would go to AWS instead)."""
    proc = run(store, "endpoint", status=2, AWS_ENDPOINT_URL=endpoint)
    assert "S3 endpoint" in proc.stderr and "http://" in proc.stderr, proc.stderr
    assert not store.keys("endpoint/")


def test_a_data_set_without_credentials_says_what_a_data_set_needs(store):
    """The message for --out s3:// without credentials is a data set's: not
    the inputs' advice to read over HTTPS."""
    env = store.env(AWS_ACCESS_KEY_ID="", AWS_SECRET_ACCESS_KEY="")
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        env.pop(name)
    proc = subprocess.run(
        [str(BIN), "ingest", "-q", "--out", f"s3://{BUCKET}/no-credentials/", *SAMPLES],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 2, proc.stderr
    assert "no AWS credentials found" in proc.stderr and "a data set on S3" in proc.stderr, proc.stderr
    assert "data.commoncrawl.org" not in proc.stderr and "local --out" in proc.stderr
    assert not store.keys("no-credentials/")


def stages(tmp):
    return sorted(p for p in tmp.iterdir() if p.name.startswith("robostats-stage"))


def test_staging_directories_are_private_new_and_removed(store, local, tmp_path):
    """A run stages its part files in a directory of its own under TMPDIR:
    a new random name (one planted under the old fixed name, or any other,
    is not taken), mode 0700, removed when the run ends; a killed run's is
    removed by the next run on the host (its process gone)."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    planted = tmp / f"robostats-stage~{BUCKET}~staged~run"
    planted.mkdir(mode=0o777)
    seen = []
    store.rules.append(Rule("PUT", "/staged/captures/", after=lambda: seen.extend(
        (p, p.stat().st_mode & 0o777, sorted(c.name for c in p.iterdir())) for p in stages(tmp))))
    proc = start(store, "staged", "-j", "1", TMPDIR=str(tmp))
    kill_at(store, proc, Rule("PUT", "/staged/captures/", nth=2, after=True))
    [(stage, mode, inside)] = [s for s in seen if s[0] != planted][:1]
    assert mode == 0o700 and inside == ["owner.json", "work"], seen
    assert len(stage.name) == len("robostats-stage-") + 32
    assert stage.exists(), "a killed run cannot remove its directory"
    run(store, "staged", TMPDIR=str(tmp))
    assert stages(tmp) == [planted]
    assert_equals_local(store, "staged", local, tmp_path)


def test_a_prefix_holding_other_objects_is_refused(store):
    proc = subprocess.run(
        [str(BIN), "ingest", "-q", "--out", f"s3://{BUCKET}/other/", *SAMPLES],
        cwd=ROOT, env=store.env(), capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 2, proc.stderr
    assert "keep.txt" in proc.stderr and "--allow-other-files" in proc.stderr
    assert store.keys("other/") == ["other/keep.txt"]


def test_a_data_set_of_the_earlier_body_rules_is_refused(store):
    """Its body_rules schema-only file (which no later run rewrites) names
    the pattern's columns: new part files beside its own would make a
    table no reader can glob."""
    run(store, "older")
    key = "older/body_rules/~empty.parquet"
    schema = pq.read_schema(io.BytesIO(store.client.get_object(Bucket=BUCKET, Key=key)["Body"].read()))
    fields = [f for f in schema if f.name != "escaped_pattern"] + [pa.field("priority", pa.int32(), nullable=False)]
    sink = io.BytesIO()
    pq.write_table(pa.schema(fields).empty_table(), sink)
    store.client.put_object(Bucket=BUCKET, Key=key, Body=sink.getvalue())
    before = store.keys("older/")
    proc = run(store, "older", status=2)
    assert "earlier version of robostats" in proc.stderr and "body_rules" in proc.stderr, proc.stderr
    # compact and report (the data set opened for reading) say the same
    for command in (["compact", f"s3://{BUCKET}/older/", "--grace", "0"],
                    ["report", f"s3://{BUCKET}/older/", "-o", "/dev/null"]):
        proc = subprocess.run([str(BIN), *command], cwd=ROOT, env=store.env(), capture_output=True, text=True,
                              timeout=120)
        assert proc.returncode == 2, (command, proc.stderr)
        assert "earlier version of robostats" in proc.stderr and "body_rules" in proc.stderr, proc.stderr
    assert store.keys("older/") == before


def test_no_credential_in_any_object_or_message(store):
    proc = run(store, "secrets", AWS_SECRET_ACCESS_KEY="s3cr3t-Key-Value", AWS_SESSION_TOKEN="t0ken-Value")
    for key in store.keys("secrets/"):
        body = store.client.get_object(Bucket=BUCKET, Key=key)["Body"].read()
        assert b"s3cr3t-Key-Value" not in body and b"t0ken-Value" not in body, key
    assert "s3cr3t" not in proc.stderr + proc.stdout


@pytest.mark.skipif(not HTTPFS_PYTHON.exists(), reason="DuckDB 1.5 with httpfs: scripts/test-deps.sh")
@pytest.mark.parametrize("prefix", ["duck", "crawl=CC-MAIN-2099-01/body_digest=v1/writer=w"])
def test_duckdb_reads_the_data_set_from_s3_with_the_same_views(store, local, tmp_path, prefix):
    """The same views over S3, under a prefix whose `name=value` parts
    DuckDB would read as columns by default (Hive partitioning)."""
    run(store, prefix)
    script = f"""
import json, pathlib, sys, duckdb, duckdb_extension_httpfs
con = duckdb.connect()
ext = next(pathlib.Path(duckdb_extension_httpfs.__file__).parent.glob('extensions/*/httpfs.duckdb_extension'))
con.execute(f"LOAD '{{ext}}'")
con.execute("CREATE SECRET (TYPE s3, KEY_ID 'testing', SECRET 'testing', REGION 'us-east-1', "
            "ENDPOINT '{store.endpoint.removeprefix('http://')}', URL_STYLE 'path', USE_SSL false)")
con.execute("SET VARIABLE robostats_out = ?", [sys.argv[1]])
for path in sys.argv[2:]:
    con.execute(pathlib.Path(path).read_text())
views = [v for (v,) in con.sql("SELECT view_name FROM duckdb_views() WHERE NOT internal ORDER BY 1").fetchall()]
counts = {{v: con.sql(f"SELECT count(*) FROM {{v}}").fetchone()[0] for v in views}}
counts["crawls"] = con.sql("SELECT list(DISTINCT crawl ORDER BY crawl) FROM captures").fetchone()[0]
print(json.dumps(counts))
"""
    proc = subprocess.run(
        [str(HTTPFS_PYTHON), "-c", script, f"s3://{BUCKET}/{prefix}", *map(str, VIEW_FILES)],
        capture_output=True, text=True, timeout=180, env=store.env(),
    )
    assert proc.returncode == 0, proc.stderr
    remote = json.loads(proc.stdout)
    con = connect(local)
    expected = {v: con.sql(f"SELECT count(*) FROM {v}").fetchall()[0][0] for v in remote if v != "crawls"}
    expected["crawls"] = con.sql("SELECT list(DISTINCT crawl ORDER BY crawl) FROM captures").fetchall()[0][0]
    assert remote == expected
    assert remote["captures"] == 717 and len(remote) > 20 and "CC-MAIN-2099-01" not in remote["crawls"]


class CuttingProxy:
    """A TCP proxy in front of moto that closes the connection in the
    middle of the body of the PUTs whose request line holds `key` (the
    first `cuts` of them), after `after` bytes of it: a network cut
    mid-upload. Every request is sent with `Connection: close`, so that
    each comes on a connection of its own and is seen first."""

    def __init__(self, endpoint, key, cuts, after=512):
        host, port = endpoint.removeprefix("http://").split(":")
        self.target = (host, int(port))
        self.key, self.left, self.after, self.cut = key.encode(), cuts, after, 0
        self.server = socket.create_server(("127.0.0.1", 0))
        self.endpoint = f"http://127.0.0.1:{self.server.getsockname()[1]}"
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            threading.Thread(target=self.relay, args=(client,), daemon=True).start()

    def relay(self, client):
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = client.recv(65536)
            if not chunk:
                client.close()
                return
            head += chunk
        header, body = head.split(b"\r\n\r\n", 1)
        lines = [line for line in header.split(b"\r\n") if not line.lower().startswith(b"connection:")]
        header = b"\r\n".join([*lines, b"Connection: close"])
        upstream = socket.create_connection(self.target)
        if lines[0].startswith(b"PUT ") and self.key in lines[0] and self.left > 0:
            self.left -= 1
            self.cut += 1
            while len(body) < self.after:
                body += client.recv(65536)
            upstream.sendall(header + b"\r\n\r\n" + body[: self.after])
            time.sleep(0.2)
            upstream.close()
            client.close()
            return
        upstream.sendall(header + b"\r\n\r\n" + body)
        threading.Thread(target=pump, args=(client, upstream), daemon=True).start()
        pump(upstream, client)

    def close(self):
        self.server.close()


def pump(source, sink):
    try:
        while chunk := source.recv(65536):
            sink.sendall(chunk)
    except OSError:
        pass
    finally:
        for s in (source, sink):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def test_an_upload_cut_mid_body_is_sent_again(store, local, tmp_path):
    """Two part files' uploads cut in the middle of their bodies: S3
    stores nothing of a cut PUT, and the run sends it again."""
    proxy = CuttingProxy(store.endpoint, f"/{BUCKET}/cut/captures/", cuts=2)
    try:
        run(store, "cut", AWS_ENDPOINT_URL=proxy.endpoint)
    finally:
        proxy.close()
    assert proxy.cut == 2
    assert_equals_local(store, "cut", local, tmp_path)


def test_an_answer_that_never_comes_is_given_up_on_and_sent_again(store, local, tmp_path):
    """moto holds back its answer to a part file's PUT far past --timeout
    (the stored object is the same whenever it comes): the run gives up on
    that request within its bound, sends it again, and finishes."""
    store.rules.append(Rule("PUT", "/silent/captures/", before=lambda: time.sleep(20)))
    started = time.monotonic()
    run(store, "silent", "--timeout", "2")
    assert time.monotonic() - started < 18
    assert store.rules[0].seen >= 2
    assert_equals_local(store, "silent", local, tmp_path)
