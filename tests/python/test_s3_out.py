"""Data sets written to S3 (`ingest --out s3://bucket/prefix/`), against a
real S3 API server: moto's, started here, which honours `If-None-Match: *`
and `If-Match` on PUT (a 412 when the condition fails).

A wrapper around moto's WSGI application records every request and plays
the faults S3 or a network can: an answer S3 sends when busy (503
SlowDown, 500), conditions a store ignores, and a run killed (SIGKILL) or
stopped (SIGSTOP) at the k-th request of a kind, before or after moto
handles it. Every case ends with every table equal, as a multiset, to a
local single run over the same inputs, and with DuckDB reading the data
set straight from S3 through its httpfs extension where the test
environment has it (scripts/test-deps.sh installs DuckDB 1.5.5 and the
`duckdb-extension-httpfs` package in a venv of their own)."""

import json
import os
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from conftest import (
    BIN, QUERIES, ROOT, SAMPLES, assert_same_tables, clean_env, connect, ingest, start_moto,
)

BUCKET = "results"
# A bucket whose answers ignore conditional headers (stripped on the way).
NO_CONDITIONS = "noconds"
# What other tools keep in the bucket, under other prefixes.
FOREIGN = {"other/keep.txt": b"not robostats'", "cc-other/captures/x.parquet": b"PAR1 foreign"}
# The lease of the tests that wait for one to expire (seconds).
SHORT_LEASE = "4"
HTTPFS_PYTHON = ROOT / "target" / "httpfs-venv" / "bin" / "python"


@dataclass
class Rule:
    """A fault: on the `nth` request (and the `times - 1` after it) whose
    method is `method` and whose path and query hold `key`, call `before` (before
    moto handles it) or `after` (after), answer `answer` (status, S3
    code) instead of moto, or `lose` moto's answer (a 500 in its place)."""

    method: str
    key: str
    nth: int = 1
    times: int = 1
    before: object = None
    after: object = None
    answer: tuple = None
    lose: bool = False
    seen: int = 0


@dataclass
class Store:
    endpoint: str
    client: object
    requests: list
    rules: list = field(default_factory=list)

    def env(self, **extra):
        credentials = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing"}
        return clean_env(
            **{**credentials, "AWS_ENDPOINT_URL": self.endpoint, "AWS_REGION": "us-east-1", **extra}
        )

    def keys(self, prefix, bucket=BUCKET):
        pages = self.client.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix)
        return sorted(o["Key"] for page in pages for o in page.get("Contents", []))

    def download(self, prefix, dest, bucket=BUCKET):
        """The data set under `prefix`, as a local directory."""
        for key in self.keys(prefix + "/", bucket):
            path = Path(dest) / key[len(prefix) + 1 :]
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(self.client.get_object(Bucket=bucket, Key=key)["Body"].read())
        return Path(dest)


@pytest.fixture(scope="module")
def store():
    server, endpoint, client = start_moto()
    app = server._server.app
    requests, rules, lock = [], [], threading.Lock()

    def faulty(environ, start_response):
        method, path = environ["REQUEST_METHOD"], environ["PATH_INFO"]
        target = f"{path}?{environ.get('QUERY_STRING', '')}"
        requests.append((method, path, environ.get("HTTP_IF_NONE_MATCH"), environ.get("HTTP_IF_MATCH")))
        if path.startswith(f"/{NO_CONDITIONS}/"):
            environ.pop("HTTP_IF_NONE_MATCH", None)
            environ.pop("HTTP_IF_MATCH", None)
        acting = []
        with lock:
            for rule in rules:
                if rule.method == method and rule.key in target:
                    rule.seen += 1
                    if rule.nth <= rule.seen < rule.nth + rule.times:
                        acting.append(rule)
        for rule in acting:
            if rule.before:
                rule.before()
            if rule.answer:
                status, code = rule.answer
                environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
                start_response(status, [("Content-Type", "application/xml")])
                return [f"<Error><Code>{code}</Code></Error>".encode()]
        if any(rule.lose for rule in acting):
            list(app(environ, lambda *a, **k: None))
            start_response("500 Internal Server Error", [("Content-Type", "application/xml")])
            return [b"<Error><Code>InternalError</Code></Error>"]
        answer = list(app(environ, start_response))
        for rule in acting:
            if rule.after:
                rule.after()
        return answer

    server._server.app = faulty
    for bucket in (BUCKET, NO_CONDITIONS):
        client.create_bucket(Bucket=bucket)
    for key, body in FOREIGN.items():
        client.put_object(Bucket=BUCKET, Key=key, Body=body)
    s = Store(endpoint, client, requests, rules)
    yield s
    server.stop()


@pytest.fixture(autouse=True)
def no_rules_left(store):
    yield
    store.rules.clear()


@pytest.fixture(scope="module")
def local(tmp_path_factory):
    """The samples ingested into a local directory by one run."""
    out = tmp_path_factory.mktemp("local") / "out"
    ingest(SAMPLES, out)
    return out


def command(prefix, *extra):
    return [str(BIN), "ingest", "-q", "--out", f"s3://{BUCKET}/{prefix}/", *map(str, extra), *SAMPLES]


def run(store, prefix, *extra, status=0, **env):
    proc = subprocess.run(
        command(prefix, *extra), cwd=ROOT, env=store.env(**env), capture_output=True, text=True, timeout=240
    )
    assert proc.returncode == status, proc.stderr
    return proc


def start(store, prefix, *extra, **env):
    return subprocess.Popen(
        command(prefix, *extra), cwd=ROOT, env=store.env(**env), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )


def assert_equals_local(store, prefix, local, tmp_path):
    """The data set under `prefix` holds the local run's rows; no claim is
    left; the other prefixes' objects are untouched."""
    keys = store.keys(prefix + "/")
    assert not [k for k in keys if k.endswith(".lease")], keys
    assert_same_tables(local, store.download(prefix, tmp_path / prefix.replace("/", "_")))
    for key, body in FOREIGN.items():
        assert store.client.get_object(Bucket=BUCKET, Key=key)["Body"].read() == body


def manifest_lines(store, prefix):
    lines = []
    for key in store.keys(f"{prefix}/_manifest/"):
        if key.endswith(".jsonl"):
            text = store.client.get_object(Bucket=BUCKET, Key=key)["Body"].read().decode()
            lines += [json.loads(line) for line in text.splitlines() if line]
    return lines


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


def test_the_claim_of_a_dead_run_is_taken_over_once_expired(store, local, tmp_path):
    """A claim nobody renews (its run was killed) is taken over once S3's
    clock says it expired: not before."""
    key = "dead/_manifest/run.lease"
    store.client.put_object(Bucket=BUCKET, Key=key, Body=b'{"holder": "ingest (run)"}')
    started = time.monotonic()
    run(store, "dead", ROBOSTATS_S3_LEASE_SECONDS=SHORT_LEASE)
    assert time.monotonic() - started >= int(SHORT_LEASE)
    assert_equals_local(store, "dead", local, tmp_path)


@pytest.mark.parametrize(
    "point",
    [
        # A part file stored, its input not recorded.
        Rule("PUT", "/captures/", nth=2, after=True),
        # Before its first input's line reaches the manifest.
        Rule("PUT", "/_manifest/run.jsonl", nth=2, before=True),
        # After the second input's line: one input left to do.
        Rule("PUT", "/_manifest/run.jsonl", nth=3, after=True),
        # While deleting a leftover (the second kill's re-run).
        Rule("DELETE", "/captures/", nth=1, before=True),
    ],
    ids=["part-stored", "before-append", "after-append", "at-delete"],
)
def test_a_run_killed_anywhere_is_finished_by_the_next(store, local, tmp_path, point):
    prefix = f"killed-{point.key.strip('/').split('/')[-1]}-{point.nth}-{point.method.lower()}"
    env = {"ROBOSTATS_S3_LEASE_SECONDS": SHORT_LEASE}
    if point.method == "DELETE":
        # A part file stored and not recorded first, for the re-run to delete.
        first = start(store, prefix, "-j", "1", **env)
        kill_at(store, first, Rule("PUT", f"/{prefix}/captures/", nth=2, after=True))
    proc = start(store, prefix, "-j", "1", **env)
    kill_at(store, proc, Rule(point.method, f"/{prefix}{point.key}", nth=point.nth,
                              after=point.after, before=point.before))
    run(store, prefix, **env)
    assert_equals_local(store, prefix, local, tmp_path)
    done = [line for line in manifest_lines(store, prefix) if line.get("type") == "input"]
    assert sorted({d["input"] for d in done if d["status"] == "done"}) == sorted(SAMPLES)


def kill_at(store, proc, rule):
    """Kills `proc` with SIGKILL at `rule`'s request, and waits for it."""
    kill = lambda: os.kill(proc.pid, signal.SIGKILL)  # noqa: E731
    rule.before = kill if rule.before else None
    rule.after = kill if rule.after else None
    store.rules.append(rule)
    proc.communicate(timeout=240)
    assert proc.returncode == -signal.SIGKILL, "the kill point was never reached"
    store.rules.remove(rule)


def test_a_stopped_holder_is_taken_over_and_records_nothing_after(store, local, tmp_path):
    """A run stopped (SIGSTOP) longer than its claim lasts is taken over;
    continued, it stops before its next upload or append, exit status 2."""
    env = {"ROBOSTATS_S3_LEASE_SECONDS": SHORT_LEASE}
    first = start(store, "stopped", "-j", "1", **env)
    store.rules.append(Rule("PUT", "/stopped/captures/", before=lambda: os.kill(first.pid, signal.SIGSTOP)))
    deadline = time.monotonic() + 60
    while not any(r.seen for r in store.rules) and time.monotonic() < deadline:
        time.sleep(0.1)
    run(store, "stopped", **env)
    lines_before = manifest_lines(store, "stopped")
    os.kill(first.pid, signal.SIGCONT)
    _, err = first.communicate(timeout=120)
    assert first.returncode == 2, err
    assert "no longer holds" in err or "written by another run" in err, err
    assert manifest_lines(store, "stopped") == lines_before
    assert_equals_local(store, "stopped", local, tmp_path)


def test_busy_answers_are_retried(store, local, tmp_path):
    store.rules += [
        Rule("PUT", "/busy/captures/", times=2, answer=("503 Slow Down", "SlowDown")),
        Rule("PUT", "/busy/_manifest/run.jsonl", nth=2, answer=("500 Internal Server Error", "InternalError")),
        Rule("GET", "prefix=busy", nth=1, answer=("503 Slow Down", "SlowDown")),
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


def test_a_prefix_holding_other_objects_is_refused(store):
    proc = subprocess.run(
        [str(BIN), "ingest", "-q", "--out", f"s3://{BUCKET}/other/", *SAMPLES],
        cwd=ROOT, env=store.env(), capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 2, proc.stderr
    assert "keep.txt" in proc.stderr and "--allow-other-files" in proc.stderr
    assert store.keys("other/") == ["other/keep.txt"]


def test_no_credential_in_any_object_or_message(store):
    proc = run(store, "secrets", AWS_SECRET_ACCESS_KEY="s3cr3t-Key-Value", AWS_SESSION_TOKEN="t0ken-Value")
    for key in store.keys("secrets/"):
        body = store.client.get_object(Bucket=BUCKET, Key=key)["Body"].read()
        assert b"s3cr3t-Key-Value" not in body and b"t0ken-Value" not in body, key
    assert "s3cr3t" not in proc.stderr + proc.stdout


@pytest.mark.skipif(not HTTPFS_PYTHON.exists(), reason="DuckDB 1.5 with httpfs: scripts/test-deps.sh")
def test_duckdb_reads_the_data_set_from_s3_with_the_same_views(store, local, tmp_path):
    run(store, "duck")
    script = f"""
import json, pathlib, sys, duckdb, duckdb_extension_httpfs
con = duckdb.connect()
ext = next(pathlib.Path(duckdb_extension_httpfs.__file__).parent.glob('extensions/*/httpfs.duckdb_extension'))
con.execute(f"LOAD '{{ext}}'")
con.execute("CREATE SECRET (TYPE s3, KEY_ID 'testing', SECRET 'testing', REGION 'us-east-1', "
            "ENDPOINT '{store.endpoint.removeprefix('http://')}', URL_STYLE 'path', USE_SSL false)")
con.execute("SET VARIABLE robostats_out = ?", [sys.argv[1]])
con.execute(pathlib.Path(sys.argv[2]).read_text())
views = [v for (v,) in con.sql("SELECT view_name FROM duckdb_views() WHERE NOT internal ORDER BY 1").fetchall()]
print(json.dumps({{v: con.sql(f"SELECT count(*) FROM {{v}}").fetchone()[0] for v in views}}))
"""
    proc = subprocess.run(
        [str(HTTPFS_PYTHON), "-c", script, f"s3://{BUCKET}/duck", str(QUERIES / "views.sql")],
        capture_output=True, text=True, timeout=180, env=store.env(),
    )
    assert proc.returncode == 0, proc.stderr
    remote = json.loads(proc.stdout)
    con = connect(local)
    expected = {v: con.sql(f"SELECT count(*) FROM {v}").fetchall()[0][0] for v in remote}
    assert remote == expected
    assert remote["captures"] == 717 and len(remote) > 20
