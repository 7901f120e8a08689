"""ingest over the network: WARC inputs read from http:// and s3:// URLs give
exactly the rows of the same files read from disk, through the faults of
real servers (error statuses, resets, bodies cut short or stalled, a wrong
Content-Length, an object changing under a resumed transfer), within the
request rate asked for, across a kill, and without a credential in any
output. Everything runs against servers on 127.0.0.1: remote_server.py for
HTTP, moto's S3 server for s3://."""

import gzip
import itertools
import json
import logging
import os
import re
import signal
import subprocess
import time
import urllib.request
from dataclasses import dataclass
from email.utils import formatdate
from pathlib import Path

import duckdb
import pytest

from conftest import (
    BIN, BODY_TABLES, PER_INPUT, RESILIPARSE, ROOT, SAMPLES, SYNTHETIC, TABLES, WHIRLWIND, clean_env,
    table_source,
)
from remote_server import RemoteServer

# Fault tests: no rate cap and short retry waits, so that they run fast.
FAST = ["--max-requests-per-second", "0", "--retry-wait", "0.2"]

# Copies of the samples under the names of a crawl's segments, for the tests
# of many inputs (copies, not links: a file listed twice under any spelling
# is read once). The small samples come first in the cycle.
COPIES = [f"crawl/segment-{i:02d}.warc.gz" for i in range(10)]
COPY_OF = {name: (WHIRLWIND, RESILIPARSE, SYNTHETIC)[i % 3] for i, name in enumerate(COPIES)}

# A port nothing listens on: an endpoint that must not be used.
DEAD_ENDPOINT = "http://127.0.0.1:9"


# ---- running ingest ------------------------------------------------------


def ingest_args(out, *args):
    return [str(BIN), "ingest", "-q", "--out", str(out), *map(str, args)]


def run(out, *args, env=None, check=True):
    """`robostats ingest -q --out OUT ARGS` from the repository root."""
    assert BIN.exists(), f"{BIN} missing: build it with cargo build --release"
    proc = subprocess.run(
        ingest_args(out, *args),
        cwd=ROOT,
        env=env or clean_env(),
        capture_output=True,
        text=True,
        timeout=180,
    )
    if check:
        assert proc.returncode == 0, f"exit {proc.returncode}\n{proc.stdout}{proc.stderr}"
    return proc


def paths_file(directory, lines, name="robotstxt.paths"):
    """A paths file listing `lines` (gzip when `name` ends in .gz)."""
    text = "".join(f"{line}\n" for line in lines).encode()
    path = Path(directory) / name
    path.write_bytes(gzip.compress(text) if name.endswith(".gz") else text)
    return path


@dataclass
class Network:
    """The `network:` line of a run's summary."""

    requests: int
    retries: int
    resumed: int
    mib: float
    decimals: int


def network(stdout):
    """The `network:` line, parsed; it follows the `ingest:` line and says
    `1 request`, `1 retry`, `1 resumed transfer` in the singular."""
    lines = stdout.splitlines()
    found = [i for i, line in enumerate(lines) if line.startswith("network: ")]
    assert len(found) == 1, stdout
    line = lines[found[0]]
    assert found[0] > 0 and lines[found[0] - 1].startswith("ingest: "), stdout
    m = re.fullmatch(r"network: (\d+) requests?, (\d+) retr(?:y|ies), (\d+) resumed transfers?, (\d+(?:\.(\d+))?) MiB", line)
    assert m, line
    n = Network(int(m[1]), int(m[2]), int(m[3]), float(m[4]), len(m[5] or ""))
    words = (
        f"network: {n.requests} request{'' if n.requests == 1 else 's'}, "
        f"{n.retries} {'retry' if n.retries == 1 else 'retries'}, "
        f"{n.resumed} resumed transfer{'' if n.resumed == 1 else 's'}, "
    )
    assert line.startswith(words), line
    return n


def assert_network(proc, server, nbytes, retries=0, resumed=0):
    """The `network:` line against the server's log: every request counted,
    the retries and resumed transfers expected, `nbytes` of bodies (to the
    precision shown)."""
    n = network(proc.stdout)
    assert n.requests == len(server.log()), (proc.stdout, server.log())
    assert (n.retries, n.resumed) == (retries, resumed), proc.stdout
    mib = nbytes / 2**20
    assert abs(n.mib - mib) <= 0.5 * 10**-n.decimals + 0.01 * mib, (proc.stdout, nbytes)


def manifest(out):
    """The manifest's lines, in order (a torn last line is skipped, as
    robostats does)."""
    lines = []
    for f in sorted((Path(out) / "_manifest").glob("*.jsonl")):
        for text in f.read_text().splitlines():
            try:
                lines.append(json.loads(text))
            except json.JSONDecodeError:
                pass
    return lines


def input_status(out):
    """{input as listed: its last status}."""
    return {line["input"]: line["status"] for line in manifest(out) if line["type"] == "input"}


def could_not_read(stderr, name):
    """The reason of `robostats: could not read 'NAME' (opened as 'WHERE'):
    REASON` (the part in brackets only where NAME is not where it was read)."""
    pattern = re.compile(
        r"^robostats: could not read '" + re.escape(name) + r"'(?: \(opened as '[^']*'\))?: (.*)$"
    )
    reasons = [m.group(1) for m in map(pattern.match, stderr.splitlines()) if m]
    assert len(reasons) == 1, stderr
    return reasons[0]


# ---- comparing tables ----------------------------------------------------


def assert_same_rows(expected, actual, tables=PER_INPUT, strip=None, suffix=None):
    """Every row of `tables` in `actual` is in `expected` and the other way
    round, duplicates included (EXCEPT ALL both ways, equal counts). `strip`
    and `suffix`: a prefix and a suffix taken off `actual`'s warc_filename
    first (a URL given on the command line against the path a local run was
    given)."""
    con = duckdb.connect()
    for t in tables:
        a = f"SELECT * FROM {table_source(expected, t)}"
        b = f"SELECT * FROM {table_source(actual, t)}"
        if (strip or suffix) and t != "agents" and t not in BODY_TABLES:
            name = "warc_filename"
            for part in filter(None, (strip, suffix)):
                name = f"replace({name}, '{part}', '')"
            b = f"SELECT * REPLACE ({name} AS warc_filename) FROM ({b})"
        [(na,)] = con.sql(f"SELECT count(*) FROM ({a})").fetchall()
        [(nb,)] = con.sql(f"SELECT count(*) FROM ({b})").fetchall()
        assert na == nb, f"{t}: {na} rows from local files, {nb} over the network"
        for x, y, what in ((a, b, "missing over the network"), (b, a, "only over the network")):
            [(diff,)] = con.sql(f"SELECT count(*) FROM ({x} EXCEPT ALL {y})").fetchall()
            assert diff == 0, f"{t}: {diff} rows {what}"
    [(captures,)] = con.sql(f"SELECT count(*) FROM read_parquet('{expected}/captures/*.parquet')").fetchall()
    assert captures > 0


def assert_no_hidden_files(out):
    """No temporary file is left in the table directories."""
    left = [p for t in TABLES for p in (Path(out) / t).glob(".*")]
    assert left == [], left


# ---- fixtures --------------------------------------------------------------


@dataclass
class Corpus:
    root: Path  # a directory holding every input under its line
    files: dict  # line -> bytes


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """The inputs, by the line a paths file lists them with: the samples
    under their own paths and the copies of COPIES."""
    root = tmp_path_factory.mktemp("inputs")
    files = {name: (ROOT / name).read_bytes() for name in SAMPLES}
    files.update({name: files[COPY_OF[name]] for name in COPIES})
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    return Corpus(root, files)


@pytest.fixture(scope="module")
def local(corpus, tmp_path_factory):
    """local(lines): the output of ingest of those inputs read from disk
    (--paths and a local --prefix: warc_filename is the line), made once."""
    made = {}

    def reference(lines):
        key = tuple(lines)
        if key not in made:
            d = tmp_path_factory.mktemp("local")
            proc = run(d / "out", "--paths", paths_file(d, lines), "--prefix", corpus.root)
            assert "network:" not in proc.stdout, proc.stdout  # nothing remote
            made[key] = d / "out"
        return made[key]

    return reference


@pytest.fixture
def server(corpus):
    """A fresh server of every input at /LINE, recording its requests."""
    with RemoteServer({f"/{name}": data for name, data in corpus.files.items()}) as s:
        yield s


# ---- HTTP: the rows ----------------------------------------------------------


@pytest.mark.parametrize("slash", ["", "/"], ids=["prefix", "prefix-with-slash"])
def test_http_inputs_give_the_rows_of_the_local_files(server, local, corpus, tmp_path, slash):
    proc = run(
        tmp_path / "out", *FAST, "--paths", paths_file(tmp_path, SAMPLES), "--prefix", server.url + slash
    )
    assert_same_rows(local(SAMPLES), tmp_path / "out")
    # the prefix and the line joined with one slash; each input read once
    assert sorted(r.path for r in server.log()) == sorted(f"/{name}" for name in SAMPLES)
    assert all(r.status == 200 for r in server.log())
    assert_network(proc, server, sum(len(corpus.files[name]) for name in SAMPLES))
    assert input_status(tmp_path / "out") == {name: "done" for name in SAMPLES}


def test_a_paths_file_given_as_a_url(server, local, corpus, tmp_path):
    listing = paths_file(tmp_path, SAMPLES, "robotstxt.paths.gz")
    server.put("/lists/robotstxt.paths.gz", listing.read_bytes())
    proc = run(
        tmp_path / "out", *FAST, "--paths", f"{server.url}/lists/robotstxt.paths.gz", "--prefix", server.url
    )
    assert_same_rows(local(SAMPLES), tmp_path / "out")
    assert server.log()[0].path == "/lists/robotstxt.paths.gz"
    nbytes = listing.stat().st_size + sum(len(corpus.files[name]) for name in SAMPLES)
    assert_network(proc, server, nbytes)


def test_urls_on_the_command_line_are_the_warc_filename(server, local, tmp_path):
    urls = [f"{server.url}/{name}" for name in SAMPLES]
    run(tmp_path / "out", *FAST, *urls)
    assert_same_rows(local(SAMPLES), tmp_path / "out", strip=f"{server.url}/")
    assert input_status(tmp_path / "out") == {url: "done" for url in urls}


# ---- HTTP: faults ------------------------------------------------------------

# The input of the fault tests: the largest sample (2 MB), so that a body cut
# in half leaves a real transfer to resume.
NAME = SYNTHETIC


def run_one(server, tmp_path, actions, *args, out="out", check=True):
    """ingest of NAME over HTTP, its GET requests scripted by `actions`."""
    if actions is not None:
        server.script(f"/{NAME}", actions)
    return run(
        tmp_path / out,
        *FAST,
        *args,
        "--paths",
        paths_file(tmp_path, [NAME]),
        "--prefix",
        server.url,
        check=check,
    )


def gets(server):
    return server.log(f"/{NAME}", "GET")


def test_503_with_retry_after_is_waited_out(server, local, corpus, tmp_path):
    proc = run_one(server, tmp_path, [("status", 503, {"Retry-After": "1"})])
    first, second = gets(server)
    assert (first.status, second.status) == (503, 200)
    # --retry-wait is 0.2 s: the wait is Retry-After's second
    assert second.time - first.time >= 1.0, second.time - first.time
    assert_same_rows(local([NAME]), tmp_path / "out")
    assert_network(proc, server, len(corpus.files[NAME]), retries=1)


@pytest.mark.parametrize("status", [403, 429, 500, 408])
def test_a_burst_of_retried_statuses(server, local, corpus, tmp_path, status):
    # 403 included: a CDN's rate limit (over http(s), not s3://)
    proc = run_one(server, tmp_path, [("status", status)] * 3)
    assert [r.status for r in gets(server)] == [status] * 3 + [200]
    assert_same_rows(local([NAME]), tmp_path / "out")
    assert_network(proc, server, len(corpus.files[NAME]), retries=3)


def test_a_reset_connection_is_retried(server, local, corpus, tmp_path):
    proc = run_one(server, tmp_path, [("reset",)])
    assert [r.status for r in gets(server)] == [None, 200]
    assert_same_rows(local([NAME]), tmp_path / "out")
    assert_network(proc, server, len(corpus.files[NAME]), retries=1)


def resumed_from(request):
    """N of a request's `Range: bytes=N-`."""
    m = re.fullmatch(r"bytes=(\d+)-", request.range or "")
    assert m, request
    return int(m[1])


def test_a_body_cut_short_resumes_with_a_range_request(server, local, corpus, tmp_path):
    size = len(corpus.files[NAME])
    proc = run_one(server, tmp_path, [("cut", 0.5)])
    first, second = gets(server)
    assert first.status == 200 and first.range is None
    # the resumption asks for the rest of this very version of the object
    assert 0 < resumed_from(second) <= size // 2
    assert second.headers.get("if-match") == server.objects[f"/{NAME}"].tag
    assert second.status == 206
    assert_same_rows(local([NAME]), tmp_path / "out")
    n = network(proc.stdout)
    assert (n.requests, n.resumed) == (2, 1), proc.stdout


def test_a_stalled_transfer_times_out_and_resumes(server, local, corpus, tmp_path):
    size = len(corpus.files[NAME])
    # half the body, then 8 s of silence; the client gives up after 2 s
    proc = run_one(server, tmp_path, [("stall", 0.5, 8)], "--timeout", "2")
    first, second = gets(server)
    assert 2.0 <= second.time - first.time < 7.0, second.time - first.time
    assert 0 < resumed_from(second) <= size // 2
    assert second.status == 206
    assert_same_rows(local([NAME]), tmp_path / "out")
    n = network(proc.stdout)
    assert (n.requests, n.resumed) == (2, 1), proc.stdout


def test_a_content_length_too_large_ends_with_416(server, local, corpus, tmp_path):
    # the whole body, 1000 bytes short of the Content-Length, then the end:
    # the range past the end is answered 416 with the total, which the
    # client has, so the transfer was whole
    size = len(corpus.files[NAME])
    run_one(server, tmp_path, [("wrong_length", 1000)])
    first, second = gets(server)
    assert first.status == 200
    assert second.range == f"bytes={size}-" and second.status == 416
    assert_same_rows(local([NAME]), tmp_path / "out")


@pytest.mark.parametrize(
    "validator, options",
    [
        # If-Match answered 412
        ("etag", {}),
        # no ETag: If-Unmodified-Since answered 412
        ("last_modified", {"etag": False}),
        # a server ignoring If-Match: 206 with another ETag
        ("etag_ignored", {"conditions": False}),
    ],
)
def test_an_object_changed_under_a_resumed_transfer_fails_the_input(
    server, local, corpus, tmp_path, validator, options
):
    path, data = f"/{NAME}", corpus.files[NAME]
    server.put(path, data, **options)
    old = server.objects[path]
    # cut in half, then changed before the resumption arrives
    proc = run_one(server, tmp_path, [("cut", 0.5), ("change",)], check=False)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "changed" in could_not_read(proc.stderr, NAME), proc.stderr
    assert input_status(tmp_path / "out") == {NAME: "failed"}
    first, second = gets(server)  # no more requests after the change is seen
    assert resumed_from(second) > 0
    if validator == "last_modified":
        assert "if-match" not in second.headers
        assert second.headers["if-unmodified-since"] == formatdate(old.modified, usegmt=True)
    else:
        assert second.headers["if-match"] == old.tag
    assert second.status == (206 if validator == "etag_ignored" else 412)

    # The object stays as it is now (the local file's bytes again): the next
    # run retries the input and finishes it.
    server.put(path, data, **options)
    server.clear_log()
    proc = run_one(server, tmp_path, None)
    assert "1 retried" in proc.stdout, proc.stdout
    assert input_status(tmp_path / "out") == {NAME: "done"}
    assert_same_rows(local([NAME]), tmp_path / "out")


def test_an_input_failing_every_request_is_retried_by_the_next_run(server, local, corpus, tmp_path):
    lines = [NAME, WHIRLWIND]
    server.script(f"/{WHIRLWIND}", itertools.repeat(("status", 503)))
    args = [*FAST, "--retries", "2", "--paths", paths_file(tmp_path, lines), "--prefix", server.url]
    proc = run(tmp_path / "out", *args, check=False)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    could_not_read(proc.stderr, WHIRLWIND)
    # the request and its 2 retries
    assert [r.status for r in server.log(f"/{WHIRLWIND}", "GET")] == [503] * 3
    assert network(proc.stdout).retries == 2
    assert input_status(tmp_path / "out") == {NAME: "done", WHIRLWIND: "failed"}

    server.clear_scripts()
    server.clear_log()
    proc = run(tmp_path / "out", *args)
    assert "1 file done, 0 failed, 1 skipped (done earlier), 1 retried" in proc.stdout, proc.stdout
    assert {r.path for r in server.log()} == {f"/{WHIRLWIND}"}  # the done input is not read again
    assert input_status(tmp_path / "out") == {NAME: "done", WHIRLWIND: "done"}
    assert_same_rows(local(lines), tmp_path / "out")


@pytest.mark.parametrize("status", [404, 400])
def test_other_client_errors_fail_the_input_at_once(server, tmp_path, status):
    proc = run_one(server, tmp_path, [("status", status)], check=False)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    could_not_read(proc.stderr, NAME)
    assert [r.status for r in gets(server)] == [status]
    assert input_status(tmp_path / "out") == {NAME: "failed"}


# ---- HTTP: politeness and resumption -----------------------------------------


def test_a_403_with_s3s_reason_is_not_retried(server, tmp_path):
    # a bucket behind an https:// address refusing access: not a CDN's rate
    # limit, so asking again will not help
    body = b"<?xml version='1.0'?><Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>"
    proc = run_one(server, tmp_path, [("status", 403, {"Content-Type": "application/xml"}, body)], check=False)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert len(gets(server)) == 1
    assert "AccessDenied" in could_not_read(proc.stderr, NAME)


def test_a_local_paths_file_of_urls_is_read_with_the_network_flags(server, tmp_path):
    # the URLs are only known once the paths file is read: the run's flags
    # (here no retry) still apply to them
    server.script(f"/{NAME}", [("status", 503)])
    listing = paths_file(tmp_path, [f"{server.url}/{NAME}"])
    proc = run(tmp_path / "out", *FAST, "--retries", "0", "--paths", listing, check=False)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert len(gets(server)) == 1
    assert network(proc.stdout).requests == 1


def test_transfers_larger_than_their_buffer_with_one_download_slot(server, tmp_path):
    # Each input (five samples end to end: 10 MB) is larger than a
    # transfer's buffer (8 MiB), there is one download slot and two
    # workers, and more inputs than workers: the transfers must take the
    # slot in list order, or a later one fills its buffer, holds the slot,
    # and waits for a reader that waits for an earlier one.
    big = (ROOT / SYNTHETIC).read_bytes() * 5
    names = [f"big/{i}.warc.gz" for i in range(4)]
    for name in names:
        server.put(f"/{name}", big)
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(big)
    listing = paths_file(tmp_path, names)
    run(tmp_path / "out", *FAST, "--max-downloads", "1", "--threads", "2", "--paths", listing,
        "--prefix", server.url)
    run(tmp_path / "local", "--paths", listing, "--prefix", tmp_path)
    assert_same_rows(tmp_path / "local", tmp_path / "out")
    assert input_status(tmp_path / "out") == {name: "done" for name in names}


def test_the_request_rate_stays_under_the_cap(server, local, corpus, tmp_path):
    rate, tolerance = 4, 0.05
    # one input answered 503 once, one cut in half: retries and resumptions
    # are requests like the others
    server.script(f"/{COPIES[0]}", [("status", 503)])
    server.script(f"/{COPIES[2]}", [("cut", 0.5)])
    started = time.monotonic()
    run(
        tmp_path / "out",
        "--max-requests-per-second", rate, "--max-downloads", "4", "--retry-wait", "0.2",
        "--paths", paths_file(tmp_path, COPIES), "--prefix", server.url,
    )
    took = time.monotonic() - started
    times = sorted(r.time for r in server.log())
    assert len(times) >= len(COPIES) + 2
    gaps = [b - a for a, b in zip(times, times[1:])]
    assert min(gaps) >= 1 / rate - tolerance, gaps
    assert took >= (len(times) - 1) / rate, (took, len(times))
    assert_same_rows(local(COPIES), tmp_path / "out")


def test_a_killed_http_ingest_resumes_to_the_rows_of_an_uninterrupted_run(server, local, tmp_path):
    lines = COPIES[:8]
    out = tmp_path / "out"
    args = ingest_args(
        out, "--max-requests-per-second", "1", "--paths", paths_file(tmp_path, lines), "--prefix", server.url
    )
    child = subprocess.Popen(args, cwd=ROOT, env=clean_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while "done" not in input_status(out).values():
            assert child.poll() is None, "the run ended before it could be killed"
            assert time.monotonic() < deadline, "no input was done in 60 s"
            time.sleep(0.05)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    done = {name for name, status in input_status(out).items() if status == "done"}
    assert 1 <= len(done) < len(lines), done

    server.clear_log()
    proc = subprocess.run(args, cwd=ROOT, env=clean_env(), capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"0 failed, {len(done)} skipped (done earlier)" in proc.stdout, proc.stdout
    # the inputs done before the kill are not downloaded again
    assert not {r.path for r in server.log()} & {f"/{name}" for name in done}
    assert set(input_status(out).values()) == {"done"}
    assert_same_rows(local(lines), out, tables=TABLES)
    assert_no_hidden_files(out)


# ---- S3 (moto's server) ------------------------------------------------------

PRIVATE, PUBLIC = "robostats-private", "robostats-public"


@dataclass
class S3:
    endpoint: str
    requests: list  # every request moto answered: dicts of method, path, headers
    user: tuple  # (access key id, secret) of an IAM user allowed to read
    role: tuple  # (access key id, secret, session token) of an assumed role

    def _auth(self, count):
        req = urllib.request.Request(
            f"{self.endpoint}/moto-api/reset-auth",
            data=count.encode(),
            method="POST",
            headers={"Content-Type": "text/plain"},
        )
        urllib.request.urlopen(req, timeout=10).read()

    def enforce_auth(self):
        """From now on moto checks every request's signature and the
        caller's IAM policies."""
        self._auth("0")

    def no_auth(self):
        self._auth("inf")


@pytest.fixture(scope="module")
def s3(corpus):
    """moto's S3 server on 127.0.0.1: a private bucket and a public one (an
    ACL public-read on each object) holding the samples under their lines,
    an IAM user and a role allowed to read them. moto checks nothing until a
    test asks it to (S3.enforce_auth)."""
    moto_server = pytest.importorskip("moto.server", reason="moto[server] is installed by scripts/test.sh")
    boto3 = pytest.importorskip("boto3")
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no line per request
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"

    # Every request is recorded by wrapping moto's WSGI application.
    requests = []
    app = server._server.app

    def recording(environ, start_response):
        headers = {k[5:].replace("_", "-").lower(): v for k, v in environ.items() if k.startswith("HTTP_")}
        requests.append({"method": environ["REQUEST_METHOD"], "path": environ["PATH_INFO"], "headers": headers})
        return app(environ, start_response)

    server._server.app = recording

    setup = dict(
        endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="setup", aws_secret_access_key="setup"
    )
    s3c, iam, sts = (boto3.client(service, **setup) for service in ("s3", "iam", "sts"))
    for bucket, acl in ((PRIVATE, "private"), (PUBLIC, "public-read")):
        s3c.create_bucket(Bucket=bucket)
        for name in SAMPLES:
            s3c.put_object(Bucket=bucket, Key=name, Body=corpus.files[name], ACL=acl)
    read = json.dumps(
        {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:GetObject", "Resource": "*"}]}
    )
    iam.create_user(UserName="reader")
    iam.put_user_policy(UserName="reader", PolicyName="read", PolicyDocument=read)
    key = iam.create_access_key(UserName="reader")["AccessKey"]
    trust = json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [{"Effect": "Allow", "Principal": {"AWS": "*"}, "Action": "sts:AssumeRole"}],
        }
    )
    role = iam.create_role(RoleName="reader", AssumeRolePolicyDocument=trust)["Role"]
    iam.put_role_policy(RoleName="reader", PolicyName="read", PolicyDocument=read)
    creds = sts.assume_role(RoleArn=role["Arn"], RoleSessionName="robostats-test")["Credentials"]
    yield S3(
        endpoint,
        requests,
        (key["AccessKeyId"], key["SecretAccessKey"]),
        (creds["AccessKeyId"], creds["SecretAccessKey"], creds["SessionToken"]),
    )
    server.stop()


@pytest.fixture
def signed(s3):
    """moto enforcing signatures and IAM policies during the test. (moto
    cannot serve unsigned requests while it does: the anonymous tests run
    without it, and moto's ACL check is what refuses them a private object.)"""
    s3.enforce_auth()
    yield s3
    s3.no_auth()


def credential_env(creds):
    names = ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN")
    return dict(zip(names, creds))


def assert_no_secrets(proc, out, secrets):
    """None of `secrets` in the run's stdout and stderr, in the bytes of any
    file under `out`, nor in any value of the tables (a Parquet file's
    compressed pages would hide a string from the byte search)."""
    con = duckdb.connect()
    values = "\n".join(
        repr(con.sql(f"SELECT * FROM {table_source(out, t)}").fetchall()) for t in TABLES
    )
    files = [p for p in Path(out).rglob("*") if p.is_file()]
    assert any(p.parent.name == "_manifest" for p in files)
    for secret in secrets:
        assert secret not in proc.stdout and secret not in proc.stderr
        assert secret not in values
        for p in files:
            assert secret.encode() not in p.read_bytes(), p


def s3_requests_since(s3, start, bucket):
    return [r for r in s3.requests[start:] if r["path"].startswith(f"/{bucket}/")]


@pytest.mark.parametrize("who", ["user", "role"])
def test_s3_with_credentials_from_the_environment(signed, local, tmp_path, who):
    creds = signed.user if who == "user" else signed.role
    start = len(signed.requests)
    env = clean_env(**credential_env(creds), AWS_REGION="us-east-1", AWS_ENDPOINT_URL=signed.endpoint)
    out = tmp_path / "out"
    proc = run(out, *FAST, "--paths", paths_file(tmp_path, SAMPLES), "--prefix", f"s3://{PRIVATE}/", env=env)
    assert_same_rows(local(SAMPLES), out)

    # path-style requests, each signed with these credentials
    requests = s3_requests_since(signed, start, PRIVATE)
    assert network(proc.stdout).requests == len(requests)
    assert {r["path"] for r in requests} == {f"/{PRIVATE}/{name}" for name in SAMPLES}
    for r in requests:
        assert r["headers"]["authorization"].startswith(f"AWS4-HMAC-SHA256 Credential={creds[0]}/"), r
        if who == "role":
            assert r["headers"]["x-amz-security-token"] == creds[2], r
    assert_no_secrets(proc, out, creds)


def test_s3_a_wrong_secret_fails_at_once_and_is_not_shown(signed, tmp_path):
    key_id, secret = signed.user
    wrong = "w" * len(secret)
    env = clean_env(**credential_env((key_id, wrong)), AWS_REGION="us-east-1", AWS_ENDPOINT_URL=signed.endpoint)
    start = len(signed.requests)
    out = tmp_path / "out"
    proc = run(out, *FAST, f"s3://{PRIVATE}/{WHIRLWIND}", env=env, check=False)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    could_not_read(proc.stderr, f"s3://{PRIVATE}/{WHIRLWIND}")
    assert input_status(out) == {f"s3://{PRIVATE}/{WHIRLWIND}": "failed"}
    # moto's 403 (SignatureDoesNotMatch) is an auth failure: not retried
    assert len(s3_requests_since(signed, start, PRIVATE)) == 1
    assert_no_secrets(proc, out, (key_id, wrong, secret))


def test_s3_endpoint_flag_wins_over_the_environment(signed, local, tmp_path):
    creds = signed.user
    env = clean_env(
        **credential_env(creds), AWS_ENDPOINT_URL=DEAD_ENDPOINT, AWS_ENDPOINT_URL_S3=DEAD_ENDPOINT
    )
    out = tmp_path / "out"
    proc = run(
        out, *FAST, "--retries", "1", "--s3-endpoint", signed.endpoint, "--s3-region", "us-east-1",
        "--paths", paths_file(tmp_path, SAMPLES), "--prefix", f"s3://{PRIVATE}",
        env=env,
    )
    assert_same_rows(local(SAMPLES), out)
    assert_no_secrets(proc, out, creds)


def test_s3_anonymous(s3, local, tmp_path):
    # AWS_ENDPOINT_URL_S3 before AWS_ENDPOINT_URL; no credentials at all
    env = clean_env(AWS_ENDPOINT_URL_S3=s3.endpoint, AWS_ENDPOINT_URL=DEAD_ENDPOINT)
    start = len(s3.requests)
    urls = [f"s3://{PUBLIC}/{name}" for name in SAMPLES]
    out = tmp_path / "out"
    proc = run(out, *FAST, "--retries", "1", "--s3-anonymous", *urls, env=env)
    assert_same_rows(local(SAMPLES), out, strip=f"s3://{PUBLIC}/")
    assert input_status(out) == {url: "done" for url in urls}
    requests = s3_requests_since(s3, start, PUBLIC)
    assert {r["path"] for r in requests} == {f"/{PUBLIC}/{name}" for name in SAMPLES}
    assert not any("authorization" in r["headers"] for r in requests)
    assert network(proc.stdout).requests == len(requests)


def test_s3_anonymous_request_for_a_private_object_fails(s3, tmp_path):
    env = clean_env(AWS_ENDPOINT_URL=s3.endpoint)
    url = f"s3://{PRIVATE}/{WHIRLWIND}"
    start = len(s3.requests)
    proc = run(tmp_path / "out", *FAST, "--s3-anonymous", url, env=env, check=False)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    could_not_read(proc.stderr, url)
    assert len(s3_requests_since(s3, start, PRIVATE)) == 1  # a 403 from S3 is not retried


# ---- hostile servers ---------------------------------------------------------
#
# Each fault is bounded by a flag shrunk here (deadlines, retries, waits), so
# that every test ends in seconds.


def free_port():
    """A port nothing listens on (bound, then released)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ingest_loud(out, *args, env=None, timeout=120):
    """ingest without -q (its retry lines on standard error), timed."""
    start = time.monotonic()
    proc = subprocess.run(
        [str(BIN), "ingest", "--out", str(out), *map(str, args)],
        cwd=ROOT,
        env=env or clean_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return proc, time.monotonic() - start


@pytest.mark.parametrize("status", [301, 302, 307, 308])
def test_s3_a_redirect_is_not_followed_and_takes_no_credential_elsewhere(corpus, tmp_path, status):
    # the endpoint answers with a redirect to another port, which serves an
    # unsigned object: nothing goes there, and the input fails naming it
    key = f"/bucket/{NAME}"
    with RemoteServer({key: corpus.files[NAME]}) as other, RemoteServer() as endpoint:
        endpoint.script(key, itertools.repeat(("status", status, {"Location": f"{other.url}{key}"})))
        creds = ("AKIDREDIRECTTEST", "secret-redirect-test", "session-token-redirect-test")
        env = clean_env(**credential_env(creds), AWS_REGION="us-east-1")
        out = tmp_path / "out"
        proc = run(out, *FAST, "--s3-endpoint", endpoint.url, f"s3://bucket/{NAME}", env=env, check=False)
        assert proc.returncode == 1, proc.stdout + proc.stderr
        reason = could_not_read(proc.stderr, f"s3://bucket/{NAME}")
        assert f"redirect to {other.url}{key}" in reason, reason
        assert other.log() == []
        assert len(endpoint.log()) == 1  # not retried
        assert input_status(out) == {f"s3://bucket/{NAME}": "failed"}
        assert_no_secrets(proc, out, creds[1:])


def test_http_a_redirect_is_followed_without_a_referer(server, local, corpus, tmp_path):
    with RemoteServer({f"/{NAME}": corpus.files[NAME]}) as other:
        server.script(f"/{NAME}", [("status", 302, {"Location": f"{other.url}/{NAME}"})])
        run_one(server, tmp_path, None)
        [moved] = other.log()
        assert "referer" not in moved.headers, moved.headers
    assert [r.status for r in gets(server)] == [302]
    assert_same_rows(local([NAME]), tmp_path / "out")


@pytest.mark.parametrize(
    "url, secret, why",
    [
        ("https://storage.googleapis.com/b/k.warc.gz?X-Goog-Algorithm=GOOG4-RSA-SHA256"
         "&X-Goog-Credential=svc%40p.iam.gserviceaccount.com&X-Goog-Signature=c0ffee11", "c0ffee11", "holds a secret"),
        ("https://storage.googleapis.com/b/k.warc.gz?GoogleAccessId=svc&Expires=1&Signature=c0ffee22", "c0ffee22",
         "holds a secret"),
        ("https://acct.blob.core.windows.net/c/k.warc.gz?sv=2022-11-02&se=2030-01-01&sp=r&sig=c0ffee33", "c0ffee33",
         "holds a secret"),
        ("https://u:c0ffee44@example.org/k.warc.gz", "c0ffee44", "holds a secret"),
        # does not parse: shown without what is before the @
        ("https://u:c0ffee55@[::1/k.warc.gz", "c0ffee55", "not a URL to read"),
        ("https://u:c0ffee66@exa mple.org/k.warc.gz?sig=1", "c0ffee66", "not a URL to read"),
    ],
    ids=["gcs-v4", "gcs-v2", "azure-sas", "userinfo", "userinfo-unparsed", "userinfo-space"],
)
def test_signed_urls_and_passwords_are_refused_and_never_shown(tmp_path, url, secret, why):
    # (test_url_secrets.py: the other secrets, and reading them when told to)
    for args in ([url], ["--paths", paths_file(tmp_path, [url])]):
        proc = run(tmp_path / "out", *args, check=False)
        assert proc.returncode != 0, proc.stdout + proc.stderr
        assert why in proc.stderr, proc.stderr
        assert secret not in proc.stdout + proc.stderr, proc.stderr
        assert not (tmp_path / "out" / "_manifest").exists()


def test_a_range_answered_with_other_bytes_and_no_validator_fails(server, local, corpus, tmp_path):
    # cut in half; the range request answered 200 with other bytes of the
    # same length, without ETag or Last-Modified: nothing is spliced in
    data = corpus.files[NAME]
    proc = run_one(server, tmp_path, [("cut", 0.5), ("other_200", data[::-1])], check=False)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "no ETag" in could_not_read(proc.stderr, NAME), proc.stderr
    assert input_status(tmp_path / "out") == {NAME: "failed"}
    assert [r.status for r in gets(server)] == [200, 200]
    # nothing of the failed input is visible, although half of it was read
    for table in ("captures", "errors", "bodies", "body_rules"):
        [(n,)] = duckdb.sql(
            f"SELECT count(*) FROM read_parquet('{tmp_path / 'out'}/{table}/*.parquet')"
        ).fetchall()
        assert n == 0, table
    # the next run reads it again, whole
    server.clear_log()
    proc = run_one(server, tmp_path, None)
    assert "1 retried" in proc.stdout, proc.stdout
    assert_same_rows(local([NAME]), tmp_path / "out")


def test_a_206_longer_than_its_content_range_fails(server, corpus, tmp_path):
    proc = run_one(server, tmp_path, [("cut", 0.5), ("long_206", 100)], check=False)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "more bytes than it announced" in could_not_read(proc.stderr, NAME)
    assert input_status(tmp_path / "out") == {NAME: "failed"}
    assert [r.status for r in gets(server)] == [200, 206]


def test_a_body_at_one_byte_a_second_ends(server, corpus, tmp_path):
    # two inputs trickling, two download slots: each attempt ends after a
    # 1 s window under 1 KiB/s, each transfer after 2 resumptions
    lines = [NAME, WHIRLWIND]
    for line in lines:
        server.script(f"/{line}", itertools.repeat(("trickle", 0.25)))
    start = time.monotonic()
    proc = run(
        tmp_path / "out", *FAST, "--timeout", "1", "--min-rate", "1", "--max-resumes", "2",
        "--retries", "1", "--max-failures-in-a-row", "0",
        "--paths", paths_file(tmp_path, lines), "--prefix", server.url, check=False,
    )
    assert time.monotonic() - start < 30
    assert proc.returncode == 1, proc.stdout + proc.stderr
    for line in lines:
        assert "too slow" in could_not_read(proc.stderr, line), proc.stderr
        assert 2 <= len(server.log(f"/{line}", "GET")) <= 6
    assert input_status(tmp_path / "out") == {line: "failed" for line in lines}


def test_a_server_cutting_every_answer_is_not_asked_for_ever(server, tmp_path):
    server.script(f"/{NAME}", itertools.repeat(("cut_at", 10)))
    proc = run_one(server, tmp_path, None, "--retries", "2", "--max-resumes", "3", check=False)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "broke 4 times" in could_not_read(proc.stderr, NAME), proc.stderr
    # the first request and 3 resumptions, each 10 bytes further
    assert [resumed_from(r) for r in gets(server)[1:]] == [10, 20, 30]


def test_retry_after_is_capped(server, local, corpus, tmp_path):
    proc = run_one(server, tmp_path, [("status", 503, {"Retry-After": "3600"})], "--retry-after-max", "1")
    first, second = gets(server)
    assert 0.9 <= second.time - first.time < 10, second.time - first.time
    assert_same_rows(local([NAME]), tmp_path / "out")
    assert_network(proc, server, len(corpus.files[NAME]), retries=1)


def test_nothing_listening_stops_the_run_after_failures_in_a_row(tmp_path):
    # 40 inputs, nothing at the prefix's port: 5 fail (each with its retry,
    # said on standard error), then the run stops and reads no other
    lines = [f"crawl/{i:02d}.warc.gz" for i in range(40)]
    prefix = f"http://127.0.0.1:{free_port()}/"
    out = tmp_path / "out"
    proc, seconds = ingest_loud(
        out, *FAST, "--retries", "1", "--max-failures-in-a-row", "5",
        "--paths", paths_file(tmp_path, lines), "--prefix", prefix,
    )
    assert seconds < 30, seconds
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert re.search(r"^robostats: retrying http://127\.0\.0\.1:\d+/crawl/00\.warc\.gz: cannot connect.* \(1/1, next in [\d.]+ s\)$",
                     proc.stderr, re.M), proc.stderr
    assert re.search(r"^stopped: 5 inputs in a row failed the same way", proc.stdout, re.M), proc.stdout
    assert re.search(r"^robostats: stopped: .*; \d+ inputs not read", proc.stderr, re.M), proc.stderr
    # the inputs read and failed are named; the others are not, one by one
    assert 5 <= proc.stderr.count("robostats: could not read") <= 7, proc.stderr
    assert set(input_status(out).values()) == {"failed"} and len(input_status(out)) == 40
    retries = proc.stderr.count("robostats: retrying")
    assert 5 <= retries <= 7, proc.stderr


def test_an_endless_paths_body_is_refused(server, tmp_path):
    import resource

    for line, words in ((b"crawl/x.warc.gz\n", "more than 2000000 lines"), (b"x" * 1000, "longer than 64 KiB")):
        server.script("/endless.paths", [("endless", line)])
        server.put("/endless.paths", b"")
        start = time.monotonic()
        proc = run(tmp_path / "out", *FAST, "--paths", f"{server.url}/endless.paths", check=False)
        assert time.monotonic() - start < 60
        assert proc.returncode != 0 and words in proc.stderr, proc.stderr
    # the children's peak memory: far from the gigabytes of a whole body
    assert resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss < 1_500_000


@pytest.mark.parametrize(
    "chunk, words",
    [(b"\0" * (1 << 20), "longer than 64 KiB"), (b"crawl/x.warc.gz\n" * 65536, "expands more than 100 times")],
    ids=["zeros", "lines"],
)
def test_a_gzip_bomb_as_paths_file_is_refused(tmp_path, chunk, words):
    import zlib

    z = zlib.compressobj(9, zlib.DEFLATED, 31)  # gzip
    bomb = tmp_path / "bomb.paths.gz"
    with open(bomb, "wb") as f:
        for _ in range(200):  # 200 MiB of text
            f.write(z.compress(chunk))
        f.write(z.flush())
    assert bomb.stat().st_size < 2 << 20
    start = time.monotonic()
    proc = run(tmp_path / "out", "--paths", bomb, check=False)
    assert time.monotonic() - start < 30
    assert proc.returncode != 0 and words in proc.stderr, proc.stderr


def test_the_progress_bar_moves_while_the_network_waits(tmp_path):
    # on a terminal, nothing listening and long retry waits: the bar's clock
    # and its retry counter still move
    import pty
    import select

    prefix = f"http://127.0.0.1:{free_port()}/"
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [str(BIN), "ingest", "--out", str(tmp_path / "out"), "--max-requests-per-second", "0",
         "--retry-wait", "1.5", "--retries", "5", "--paths", paths_file(tmp_path, ["a.warc.gz"]),
         "--prefix", prefix],
        cwd=ROOT, env=clean_env(TERM="xterm"), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=slave,
    )
    os.close(slave)
    seen = b""
    deadline = time.monotonic() + 4.5
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                try:
                    seen += os.read(master, 65536)
                except OSError:
                    break
    finally:
        proc.kill()
        proc.wait()
        os.close(master)
    text = seen.decode(errors="replace")
    clocks = set(re.findall(r"\d\d:\d\d:(\d\d)", text))
    assert {"01", "02", "03"} <= clocks, text
    assert re.search(r"[1-9]\d* retries", text), text


@pytest.mark.parametrize("endpoint", ["http://u:c0ffee77@127.0.0.1:9", "http://u:c0ffee77@[::1"], ids=["parsed", "unparsed"])
def test_an_s3_endpoint_with_a_password_is_refused_and_not_shown(tmp_path, endpoint):
    env = clean_env(**credential_env(("AKIDENDPOINTTEST", "secret-endpoint-test")), AWS_REGION="us-east-1")
    proc = run(tmp_path / "out", *FAST, "--s3-endpoint", endpoint, f"s3://bucket/{NAME}", env=env, check=False)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "S3 endpoint 'http://" in could_not_read(proc.stderr, f"s3://bucket/{NAME}"), proc.stderr
    assert "c0ffee77" not in proc.stdout + proc.stderr
