"""What the tests of data sets on S3 share (test_s3_out.py: ingest;
test_s3_compact.py: compact): `ingest --out s3://bucket/prefix/` against a
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
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from conftest import BIN, ROOT, SAMPLES, assert_same_tables, clean_env, ingest, start_moto

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
    method is `method` and whose path and query hold `key` (and `within`), call `before` (before
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
    within: str = ""
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

    def upload(self, source, prefix, bucket=BUCKET):
        """The data set in the directory `source` copied under `prefix`
        (its visible files: as `aws s3 sync` would, less hidden ones)."""
        for path in sorted(Path(source).rglob("*")):
            relative = path.relative_to(source)
            if path.is_file() and not any(part.startswith(".") for part in relative.parts):
                self.client.put_object(Bucket=bucket, Key=f"{prefix}/{relative}", Body=path.read_bytes())


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
                if rule.method == method and rule.key in target and rule.within in target:
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


def kill_at(store, proc, rule):
    """Kills `proc` with SIGKILL at `rule`'s request, and waits for it."""
    kill = lambda: os.kill(proc.pid, signal.SIGKILL)  # noqa: E731
    rule.before = kill if rule.before else None
    rule.after = kill if rule.after else None
    store.rules.append(rule)
    proc.communicate(timeout=240)
    assert proc.returncode == -signal.SIGKILL, "the kill point was never reached"
    store.rules.remove(rule)
