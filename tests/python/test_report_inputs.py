"""`robostats report` reads exactly what it is given and runs only what the
user chose: data sets whose directory names hold DuckDB's glob characters
(read alone, not with their siblings), a data set it may not write while a
compaction holds its lock (read all the same, nothing written into it),
a Python that leaves processes
behind (stopped at --timeout, all of them), a Python planted beside a
copied binary (never run), a user-agent holding characters XML forbids
(every SVG file parses), a damaged Parquet file (a message saying
what to do, no traceback), and directories named like Hive partitions
(`crawl=...`: not read as columns)."""

import fcntl
import io
import os
import shutil
import stat
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from conftest import BIN, ROOT, SYNTHETIC, WHIRLWIND, connect, ingest
from test_report import Tables, report

# Directory names with every character DuckDB could read as a pattern, a
# backslash (DuckDB splits a pattern there), quotes and spaces; the last
# holds them all.
ODD = ["d[12]", "d?", "d*", "d{1,2}", "d\\", "d\\1", "it's a b", "all *?[]{}\\' x"]


def tables(html):
    """The page's tables: {query: (columns, rows as data-v values)}."""
    parsed = Tables()
    parsed.feed(Path(html).read_text())
    return {q: (c, r) for q, c, r in parsed.tables}


def run_report(outs, html, *extra, env=None, timeout=600):
    return subprocess.run([str(BIN), "report", *map(str, outs), "-o", str(html), *extra],
                          cwd=ROOT, capture_output=True, text=True, timeout=timeout,
                          env=env or {**os.environ, "ROBOSTATS_PYTHON": sys.executable})


@pytest.fixture(scope="module")
def plain(tmp_path_factory):
    """Two data sets with plain names, and another for the siblings."""
    base = tmp_path_factory.mktemp("plain")
    ingest([SYNTHETIC], base / "a")
    ingest(["samples/preferences/"], base / "b")
    ingest([WHIRLWIND], base / "other")
    return base


@pytest.fixture(scope="module")
def odd(plain, tmp_path_factory):
    """Copies of data set a under each odd name, of b under "b*[1]", and
    beside them siblings that the names read as globs would match."""
    sets = tmp_path_factory.mktemp("sets")
    for sibling in ["d1", "d2", "dx", "d", "all x", "it"]:
        shutil.copytree(plain / "other", sets / sibling)
    for name in ODD:
        shutil.copytree(plain / "a", sets / name)
    shutil.copytree(plain / "b", sets / "b*[1]")
    shutil.copytree(plain / "other", sets / "b1")
    return sets


def test_directory_names_are_not_patterns(plain, odd, tmp_path):
    """An odd name reads its own data set alone: the page's tables equal
    those of the plainly named copy's report, one data set or two. (The
    report reads each data set through a link of its own name: the name
    holding every odd character, the first and the backslashes' stand for
    the others, which the views read below.)"""
    report([plain / "a"], tmp_path / "plain.html")
    expected = tables(tmp_path / "plain.html")
    assert expected["data_set"][1], "the plain data set has captures"
    for i, name in enumerate([ODD[0], ODD[4], ODD[-1]]):
        proc = run_report([odd / name], tmp_path / f"{i}.html")
        assert proc.returncode == 0, (name, proc.stderr)
        assert tables(tmp_path / f"{i}.html") == expected, name
    report([plain / "a", plain / "b"], tmp_path / "plain-two.html")
    proc = run_report([odd / "d[12]", odd / "b*[1]"], tmp_path / "two.html")
    assert proc.returncode == 0, proc.stderr
    assert tables(tmp_path / "two.html") == tables(tmp_path / "plain-two.html")


def test_the_views_read_odd_names_alone(plain, odd):
    """queries/tables.sql escapes the pattern characters of robostats_out
    (a backslash cannot be: docs/report.md says what to do)."""
    [(expected,)] = connect(plain / "a").sql("SELECT count(*) FROM captures").fetchall()
    for name in [n for n in ODD if "\\" not in n] + ["b*[1]"]:
        con = connect(odd / name)
        [(captures,)] = con.sql("SELECT count(*) FROM captures").fetchall()
        want = expected if name != "b*[1]" else connect(plain / "b").sql(
            "SELECT count(*) FROM captures").fetchall()[0][0]
        assert captures == want, name
        progress = con.sql((ROOT / "queries/ingest_progress.sql").read_text()).fetchall()
        assert progress == connect(plain / ("a" if name != "b*[1]" else "b")).sql(
            (ROOT / "queries/ingest_progress.sql").read_text()).fetchall(), name


# Directory names DuckDB reads as Hive partitions (name=value) by default:
# a table's own columns (crawl, body_digest, writer) among them.
HIVE = "crawl=CC-MAIN-2099-01/body_digest=v1/writer=w"


def view_rows(out):
    """Every view's row count, and the crawls the captures name."""
    con = connect(out)
    views = [v for (v,) in con.sql("SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()]
    counts = {v: con.sql(f"SELECT count(*) FROM {v}").fetchall()[0][0] for v in views}
    crawls = con.sql("SELECT list(DISTINCT crawl ORDER BY crawl) FROM captures").fetchall()[0][0]
    return counts, crawls, con.sql("FROM manifest_inputs() ORDER BY input").fetchall()


def test_name_value_directories_are_not_read_as_columns(plain, tmp_path):
    """A data set under directories named `crawl=...`, `body_digest=...`,
    `writer=...` reads as its plainly named copy: the views read part
    files and manifests with Hive partitioning off (DuckDB's default would
    replace each capture's crawl by the path's, and empty every join on
    body_digest). (The report reads a local data set through a link of its
    own, whose path holds no such name; on S3: test_s3_report.py.)"""
    hive = tmp_path / HIVE / "a"
    shutil.copytree(plain / "a", hive)
    counts, crawls, inputs = view_rows(hive)
    assert (counts, crawls, inputs) == view_rows(plain / "a")
    assert counts["rules"] > 0 and "CC-MAIN-2099-01" not in crawls


def state(out):
    """Every entry under `out`: its path, mode, size and modification time."""
    return sorted((str(p.relative_to(out)), p.lstat().st_mode, p.lstat().st_size, p.lstat().st_mtime_ns)
                  for p in [out, *out.rglob("*")])


def test_a_data_set_is_only_read(plain, tmp_path):
    """The report opens a data set for reading (Dataset::open_read): no lock
    taken, so a compaction's exclusive lock (or an ingest's) neither blocks
    it nor is blocked; nothing created or repaired, so a directory the user
    may not write reads as well."""
    out = tmp_path / "locked"
    shutil.copytree(plain / "a", out)
    lock = open(out / "_manifest" / "dataset.lock", "a")
    fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    dirs = [p for p in [out, *out.rglob("*")] if p.is_dir()]
    for d in reversed(dirs):
        d.chmod(0o555)
    try:
        before = state(out)
        proc = run_report([out], tmp_path / "r.html", timeout=120)
        assert proc.returncode == 0, proc.stderr
        assert state(out) == before
    finally:
        for d in dirs:
            d.chmod(0o755)
        lock.close()
    report([plain / "a"], tmp_path / "plain.html")
    assert tables(tmp_path / "r.html") == tables(tmp_path / "plain.html")


def fake_python(path, body):
    """A script standing for Python: it says it has duckdb (the look for
    the package), then runs `body` in place of the bridge."""
    path.write_text(f'#!/bin/sh\ncase "$2" in *find_spec*) exit 0 ;; esac\n{body}\n')
    path.chmod(0o755)
    return path


def gone(pid):
    """Whether process `pid` has ended (or is a zombie left to reap)."""
    for _ in range(250):
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return True
        if state == "Z":
            return True
        time.sleep(0.02)
    return False


@pytest.mark.parametrize("leaves", ["exits", "never-exits"])
def test_timeout_bounds_the_whole_wait(plain, tmp_path, leaves):
    """A Python that starts a process holding its standard output and error
    open, then exits at once or never: the report fails within seconds of
    --timeout (at once when the Python has exited), with a clear message,
    and the process it left is killed."""
    pid = tmp_path / "pid"
    then = "exit 0" if leaves == "exits" else "exec sleep 600"
    python = fake_python(tmp_path / "python", f'sleep 600 &\necho $! > "{pid}"\n{then}')
    started = time.monotonic()
    proc = run_report([plain / "a"], tmp_path / "r.html", "--python", python, "--timeout", "3",
                      timeout=120)
    took = time.monotonic() - started
    assert proc.returncode == 2, proc.stderr
    if leaves == "exits":
        assert "without an answer" in proc.stderr, proc.stderr
        assert took < 3, took
    else:
        assert "longer than 3 s" in proc.stderr and "--timeout" in proc.stderr, proc.stderr
        assert took < 8, took
    assert gone(int(pid.read_text())), "the process the Python started outlived the report"
    assert not (tmp_path / "r.html").exists()


def test_a_python_beside_a_copied_binary_is_not_run(plain, tmp_path):
    """A binary copied into a subdirectory of a directory others can write
    to: the `python-venv` planted beside that subdirectory is not run."""
    shared = tmp_path / "shared"
    (shared / "sub").mkdir(parents=True)
    binary = shared / "sub" / "robostats"
    shutil.copy(BIN, binary)
    ran = tmp_path / "planted-ran"
    planted = shared / "python-venv" / "bin"
    planted.mkdir(parents=True)
    (planted / "python3").write_text(f'#!/bin/sh\ntouch "{ran}"\nexit 1\n')
    (planted / "python3").chmod(0o755)
    (tmp_path / "empty").mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("ROBOSTATS_PYTHON", "VIRTUAL_ENV")}
    env["PATH"] = str(tmp_path / "empty")
    proc = subprocess.run([str(binary), "report", str(plain / "a"), "-o", str(tmp_path / "r.html")],
                          capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 2 and "pip install duckdb" in proc.stderr, proc.stderr
    assert not ran.exists() and "python-venv" not in proc.stderr, proc.stderr


def users_own(path):
    st = path.lstat()
    return st.st_uid == os.geteuid() and (stat.S_ISLNK(st.st_mode) or not st.st_mode & 0o022)


def test_the_checkouts_own_venv_is_found(plain, tmp_path):
    """The checkout's binary finds the checkout's virtual environment with
    nothing in the environment to point at it."""
    venv = ROOT / "target" / "python-venv"
    chain = [ROOT / "target", venv, venv / "bin", venv / "bin" / "python3"]
    if BIN.resolve().parent.parent != ROOT / "target" or not all(p.exists() and users_own(p) for p in chain):
        pytest.skip("the binary is not this checkout's, or target/python-venv is not the user's own")
    (tmp_path / "empty").mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("ROBOSTATS_PYTHON", "VIRTUAL_ENV")}
    env["PATH"] = str(tmp_path / "empty")
    proc = run_report([plain / "a"], tmp_path / "r.html", env=env)
    assert proc.returncode == 0, proc.stderr
    assert str(venv / "bin" / "python3") in proc.stderr


# Characters XML 1.0 forbids (and HTML calls parse errors) in user-agent
# lines; each value starts with one, so that it is its own agent_token.
FORBIDDEN = ["\uffffbot", "\ufffe\x01bot\x7f", "\ufdd0\x1fbot\U0001fffe", "\x0ebot\x85"]


def test_svg_and_html_are_valid_with_forbidden_characters(tmp_path):
    warc = tmp_path / "odd-agents.warc.gz"
    with open(warc, "wb") as f:
        writer = WARCWriter(f, gzip=True)
        for i in range(6):
            body = "".join(f"User-agent: {ua}\nDisallow: /\n\n" for ua in FORBIDDEN).encode()
            headers = StatusAndHeaders("200 OK", [("Content-Type", "text/plain")], protocol="HTTP/1.1")
            writer.write_record(writer.create_warc_record(
                f"https://host{i}.example/robots.txt", "response", payload=io.BytesIO(body),
                http_headers=headers))
    out = tmp_path / "out"
    ingest([str(warc)], out)
    report([out], tmp_path / "r.html", "--figures", tmp_path / "figures")
    names = (tmp_path / "figures").glob("07-names*.svg")
    shown = "".join(p.read_text() for p in names)
    assert shown.count("\ufffd") >= len(FORBIDDEN), "the agents are drawn"
    for svg in (tmp_path / "figures").iterdir():
        ET.parse(svg)  # raises on a character XML forbids
    html = (tmp_path / "r.html").read_text()
    bad = sorted({hex(ord(c)) for c in html if (ord(c) < 0x20 and c not in "\t\n\r") or 0x7f <= ord(c) <= 0x9f
                  or 0xfdd0 <= ord(c) <= 0xfdef or ord(c) & 0xfffe == 0xfffe})
    assert not bad, bad
    # The exact values are still in data-v, as JSON escapes.
    agents = {row[0] for row in tables(tmp_path / "r.html")["top_user_agents"][1]}
    assert {ua.lower() for ua in FORBIDDEN} <= agents, agents


def test_a_damaged_file_is_named_with_what_to_do(plain, tmp_path):
    """A bodies/ file cut short: one paragraph naming it and saying what to
    do, no traceback (--verbose adds it)."""
    out = tmp_path / "data set"
    shutil.copytree(plain / "a", out)
    part = next(p for p in sorted((out / "bodies").iterdir()) if p.name != "~empty.parquet")
    size = part.stat().st_size
    with open(part, "r+b") as f:
        f.truncate(size // 2)
    proc = run_report([out], tmp_path / "r.html", timeout=120)
    assert proc.returncode == 2, proc.stderr
    message = proc.stderr.strip()
    assert "Traceback" not in message and len(message.splitlines()) == 1, message
    assert f"{out}/bodies/{part.name}" in message and "damaged" in message, message
    assert "Delete it" in message and "robostats ingest again" in message, message
    assert "bodies written again" in message, message
    assert "data-set-0" not in message, message
    proc = run_report([out], tmp_path / "r.html", "--verbose", timeout=120)
    assert proc.returncode == 2 and "Traceback" in proc.stderr, proc.stderr
    assert not (tmp_path / "r.html").exists()


def test_a_failure_in_duckdb_is_a_message_not_a_traceback(plain, tmp_path):
    """A table directory emptied by hand: DuckDB's message, with the data
    set as the user named it."""
    out = tmp_path / "it's [out]"
    shutil.copytree(plain / "a", out)
    for f in (out / "errors").iterdir():
        f.unlink()
    proc = run_report([out], tmp_path / "r.html", timeout=120)
    assert proc.returncode == 2, proc.stderr
    message = proc.stderr.strip()
    assert "Traceback" not in message and len(message.splitlines()) == 1, message
    assert f"{out}/errors/" in message and "data-set-0" not in message, message


def test_the_page_says_what_it_rests_on(plain, tmp_path):
    """Above the figures: the inputs that failed (named), a data set with
    no capture (exit status 1), a crawl of few robots.txt captures beside
    the others, and the crawls of web pages only, listed apart from the
    crawls the figures count."""
    # Every input failed: no capture, exit status 1 and both warnings.
    cut = tmp_path / "cut.warc.gz"
    cut.write_bytes((ROOT / SYNTHETIC).read_bytes()[:5000])
    ingest([str(cut)], tmp_path / "failed", exit_status=1)
    proc = run_report([tmp_path / "failed"], tmp_path / "failed.html")
    assert proc.returncode == 1, proc.stderr
    page = (tmp_path / "failed.html").read_text()
    for said in ["1 input failed and is in no figure: ", "cut.warc.gz", "holds no capture"]:
        assert said in page and said in proc.stderr, said
    assert 'class="warnings"' in page
    # A thin crawl beside the samples' (a few robots.txt fetches of another
    # crawl), and the web pages of two crawls, listed apart.
    small = tmp_path / "small.warc.gz"
    with open(small, "wb") as f:
        writer = WARCWriter(f, gzip=True)
        writer.write_record(writer.create_warcinfo_record("small.warc.gz", {"isPartOf": "CC-MAIN-2025-51"}))
        for i in range(3):
            headers = StatusAndHeaders("200 OK", [("Content-Type", "text/plain")], protocol="HTTP/1.1")
            writer.write_record(writer.create_warc_record(
                f"https://host{i}.example/robots.txt", "response",
                payload=io.BytesIO(b"User-agent: GPTBot\nDisallow: /\n"), http_headers=headers))
    ingest(["samples/", str(small)], tmp_path / "thin")
    proc = run_report([tmp_path / "thin"], tmp_path / "thin.html")
    assert proc.returncode == 0, proc.stderr
    page = (tmp_path / "thin.html").read_text()
    assert "CC-MAIN-2025-51 has 3 robots.txt captures, against 732 in CC-MAIN-2025-47" in page
    assert "Also captures of web pages, with no robots.txt capture in their crawl, in no figure: " \
           "16 of CC-MAIN-2020-34, 1 of CC-MAIN-2024-22." in page
    _, rows = tables(tmp_path / "thin.html")["data_set"]
    assert [row[0] for row in rows] == ["CC-MAIN-2025-47", "CC-MAIN-2025-51"], rows
    # A plain data set: nothing to warn of.
    proc = run_report([plain / "a"], tmp_path / "a.html")
    assert proc.returncode == 0 and "warning" not in proc.stderr, proc.stderr
    assert 'class="warnings"' not in (tmp_path / "a.html").read_text()
