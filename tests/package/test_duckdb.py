"""DuckDB's `robots_can_fetch`, the native function (robostats' DuckDB
extension, the file shipped beside the compiled module) beside the Arrow
one: the same answers as `can_fetch_many` on every kind of row, in chunks
on all of DuckDB's threads, what `connect` leaves behind, and the same
file in DuckDB's command line, with no Python."""

import csv
import io
import os
import shutil
import subprocess
import sys
import tempfile

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import robostats_cc as robostats
import robostats_cc._duckdb

from conftest import command, field_bytes
from test_many import AGENT, BODY, URL

UNSIGNED = {"allow_unsigned_extensions": "true"}


def native():
    return robostats.register(duckdb.connect(config=UNSIGNED), native=True)


def arrow():
    return robostats.register(duckdb.connect())


def verdicts(con, table, body="body", agent="agent", url="url", policy=None):
    con.register("rows_", table)
    extra = f", '{policy}'" if policy else ""
    got = con.sql(f"SELECT robots_can_fetch({body}, {agent}, {url}{extra}) FROM rows_ ORDER BY i").fetchall()
    con.unregister("rows_")
    return [g[0] for g in got]


def table(bodies, agents, urls, body_type=pa.binary()):
    return pa.table({
        "i": pa.array(range(len(bodies)), pa.int64()),
        "body": pa.array(bodies, body_type),
        "agent": pa.array(agents, pa.string()),
        "url": pa.array(urls, pa.string()),
    })


def test_the_native_function_is_a_scalar_function_of_four_signatures():
    """A BLOB or VARCHAR body, with or without the policy."""
    con = native()
    assert robostats.native_duckdb(con) and not robostats.native_duckdb(arrow())
    rows = con.sql("SELECT parameter_types, return_type FROM duckdb_functions() "
                   "WHERE function_name = 'robots_can_fetch' ORDER BY 1").fetchall()
    assert rows == [(body + ["VARCHAR"] * n, "BOOLEAN") for body in (["BLOB"], ["VARCHAR"]) for n in (2, 3)]
    assert con.sql("SELECT extension_name, loaded FROM duckdb_extensions() "
                   "WHERE extension_name = 'robostats'").fetchall() == [("robostats", True)]


def test_null_in_any_argument_gives_null():
    body = b"User-agent: *\nDisallow: /x\n"
    rows = table([None, body, body, body, body], ["a", None, "a", "a", "a"], ["/x", "/x", None, "/x", "/y"])
    assert verdicts(native(), rows) == [None, None, None, False, True]
    con = native()
    for sql in ["robots_can_fetch(NULL, 'a', '/')", "robots_can_fetch('', NULL, '/')",
                "robots_can_fetch(''::BLOB, 'a', NULL)", "robots_can_fetch(NULL::VARCHAR, 'a', '/')"]:
        assert con.sql(f"SELECT {sql}").fetchall() == [(None,)], sql


def test_varchar_and_blob_bodies_are_the_same_bytes():
    # `\x41` is text, not an escape; non-ASCII rules match percent-encoded
    # and raw URLs as Google's matcher does.
    texts = ["User-agent: *\nDisallow: /\\x41\n", "User-agent: *\nDisallow: /ä\n",
             "User-agent: GPTBot\nDisallow: /日本\nAllow: /\n", "\ufeffUser-agent: *\nDisallow: /a\n", ""]
    urls = ["/\\x41", "/A", "/%C3%A4", "/ä", "/%E6%97%A5%E6%9C%AC/x", "/a", "/b"]
    bodies = [t for t in texts for _ in urls]
    agents = ["GPTBot"] * len(bodies)
    urls = urls * len(texts)
    want = robostats.can_fetch_many([t.encode() for t in bodies], agents, urls).to_pylist()
    assert want.count(False) >= 4
    for con in (native(), arrow()):
        assert verdicts(con, table(bodies, agents, urls, pa.string())) == want
        assert verdicts(con, table([t.encode() for t in bodies], agents, urls)) == want
    # A string literal, and DuckDB's VARCHAR -> BLOB cast left out.
    con = native()
    got = con.sql("SELECT robots_can_fetch('User-agent: *' || chr(10) || 'Disallow: /\\x41', 'a', '/\\x41')").fetchall()
    assert got == [(False,)]


def test_empty_strings():
    rows = table([b"", b"", b"User-agent: *\nDisallow: /\n", b"User-agent: *\nDisallow: /\n", b""],
                 ["", "a", "", "a", ""], ["", "", "", "", "/x"])
    # An empty agent is no product token: the library's answer, or refused.
    want = robostats.can_fetch_many(rows["body"], rows["agent"], rows["url"], policy="library").to_pylist()
    assert verdicts(native(), rows, policy="library") == verdicts(arrow(), rows, policy="library") == want
    for con in (native(), arrow()):
        with pytest.raises(duckdb.Error, match="not a product token"):
            verdicts(con, rows)


def test_google_500_kib_limit():
    line = b"Disallow: /deep/" + b"x" * 100 + b"\n"
    body = b"User-agent: *\n" + line * (600 * 1024 // len(line)) + b"Disallow: /late\n"
    assert len(body) > 500 * 1024 + 1000
    rows = table([body, body, body], ["a", "a", "a"], ["/late", "/deep/" + "x" * 100, "/other"])
    want = robostats.can_fetch_many(rows["body"], rows["agent"], rows["url"]).to_pylist()
    assert want == [True, False, True]
    assert robostats.can_fetch_many(rows["body"], rows["agent"], rows["url"], size_limit=False).to_pylist()[0] is False
    assert verdicts(native(), rows) == want
    with pytest.raises(ValueError, match="size_limit"):
        robostats.register(duckdb.connect(config=UNSIGNED), native=True, size_limit=False)


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(BODY, AGENT, URL), max_size=40))
def test_rows_equal_can_fetch_many(rows):
    bodies = [b.encode() if isinstance(b, str) else b for b, _, _ in rows]
    agents = [a for _, a, _ in rows]
    urls = [u for _, _, u in rows]
    # Any agent text: the library policy, as Google's library takes it.
    want = robostats.can_fetch_many(bodies, agents, urls, policy="library").to_pylist()
    assert verdicts(_NATIVE, table(bodies, agents, urls), policy="library") == want


_NATIVE = native()


def test_many_rows_in_chunks_on_every_thread():
    """300,000 rows of 600 bodies in a DuckDB table (three row groups,
    scanned in parallel): 147 chunks, each on one of DuckDB's threads."""
    bodies = [f"User-agent: Bot{'abcdefg'[k % 7]}\nDisallow: /p{k}\nAllow: /p{k}/open\n\nUser-agent: *\nDisallow: /q{k % 11}\n"
              .encode() for k in range(600)]
    n = 300_000
    body = [bodies[(i // 40) % 600] for i in range(n)]
    agent = [f"Bot{'abcdefghi'[i % 9]}" for i in range(n)]
    url = [f"https://h{(i // 40) % 600}.example/{'pq'[i % 2]}{(i // 40) % 600 if i % 3 else i % 11}"
           + ("/open" if i % 5 == 0 else "") for i in range(n)]
    want = robostats.can_fetch_many(body, agent, url).to_pylist()
    assert 10_000 < want.count(False) < n - 10_000
    con = native()
    con.execute(f"SET threads = {max(2, os.cpu_count() or 1)}")
    con.register("arrow_rows", table(body, agent, url))
    con.execute("CREATE TABLE t AS SELECT * FROM arrow_rows")
    got = [g[0] for g in con.sql("SELECT robots_can_fetch(body, agent, url) FROM t ORDER BY i").fetchall()]
    assert got == want
    varchar = con.sql("SELECT count_if(robots_can_fetch(decode(body), agent, url)) FROM t").fetchall()[0][0]
    assert varchar == want.count(True)


@pytest.fixture
def temporaries(tmp_path, monkeypatch):
    """(the temporary directory, the directories mkdtemp makes in it)."""
    private = tmp_path / "tmp"
    private.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(private))
    made = []
    mkdtemp = tempfile.mkdtemp
    monkeypatch.setattr(tempfile, "mkdtemp", lambda *a, **k: made.append(mkdtemp(*a, **k)) or made[-1])
    return private, made


def test_connect_loads_the_shipped_extension_file_and_writes_nothing(package_out, temporaries):
    private, made = temporaries
    shipped = robostats._duckdb._shipped_extension()
    assert os.path.isfile(shipped) and os.path.dirname(shipped) == os.path.dirname(robostats._robostats.__file__)
    con = robostats.connect(package_out)
    assert robostats.native_duckdb(con)
    assert made == [] and os.listdir(private) == []
    assert con.sql("SELECT robots_can_fetch('User-agent: *' || chr(10) || 'Disallow: /', 'a', '/')").fetchall() == [(False,)]
    assert not robostats.native_duckdb(robostats.connect(package_out, native=False))


@pytest.fixture
def other_platform(monkeypatch):
    """The shipped file as if built for another platform than the
    connection's: its library goes with the connection's footer through a
    private place."""
    other = robostats._robostats.duckdb_extension_file(robostats._duckdb._read_shipped(), "other_platform")
    monkeypatch.setattr(robostats._duckdb, "_shipped_bytes", other)
    monkeypatch.setattr(robostats._duckdb, "_memfd", None)
    yield


def test_a_file_for_another_platform_is_loaded_with_this_ones_footer_and_leaves_no_file(
        other_platform, package_out, temporaries):
    private, made = temporaries
    con = robostats.connect(package_out)
    assert robostats.native_duckdb(con)
    assert made and all(d.startswith(str(private)) for d in made)
    assert not any(os.path.exists(d) for d in made)
    assert os.listdir(private) == []
    assert con.sql("SELECT robots_can_fetch('User-agent: *' || chr(10) || 'Disallow: /', 'a', '/')").fetchall() == [(False,)]


def test_an_install_without_the_extension_file_says_how_to_make_it(monkeypatch, package_out):
    monkeypatch.setattr(robostats._duckdb, "_shipped_bytes", None)
    monkeypatch.setattr(robostats._duckdb, "_shipped_extension", lambda: "/nonexistent/robostats.duckdb_extension")
    with pytest.raises(RuntimeError, match="no DuckDB extension file.*duckdb-extension"):
        native()
    # connect falls back to the Arrow function, and says why
    with pytest.warns(UserWarning, match="no DuckDB extension file.*the same answers"):
        assert not robostats.native_duckdb(robostats.connect(package_out))


def test_connect_falls_back_to_the_arrow_function(package_out, monkeypatch):
    def refuse(con):
        raise duckdb.IOException("no extension here")

    monkeypatch.setattr(robostats._duckdb, "_load_extension", refuse)
    con = robostats.connect(package_out)
    assert not robostats.native_duckdb(con)
    assert con.sql("SELECT robots_can_fetch('User-agent: *' || chr(10) || 'Disallow: /', 'a', '/')").fetchall() == [(False,)]
    # The fallback connection is an ordinary one: unsigned files refused.
    assert con.sql("SELECT current_setting('allow_unsigned_extensions')").fetchall() == [(False,)]


def test_a_connection_that_refuses_unsigned_extensions_says_so():
    with pytest.raises(duckdb.Error, match="unsigned"):
        robostats.register(duckdb.connect(), native=True)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/self/maps is Linux's")
def test_connections_share_one_copy_of_the_extension():
    def mapped():
        with open("/proc/self/maps") as f:
            return {line.split()[5] for line in f if "robostats.duckdb_extension" in line}

    native()
    before = mapped()
    for _ in range(3):
        native()
    assert before and mapped() == before


def test_the_duckdb_command_line_loads_the_file_robostats_writes(google_verdicts, tmp_path):
    """`robostats duckdb-extension -o DIR` (the package's command) writes the
    extension file, and DuckDB's own command line (PyPI's duckdb-cli: no
    Python in its process) loads it and answers Google's 145 verdicts, the
    default policy's AdsBot answer, and a whole User-Agent header refused."""
    made = command("duckdb-extension", "-o", tmp_path)
    assert made.returncode == 0, made.stderr
    extension = tmp_path / "robostats.duckdb_extension"
    # its footer names this DuckDB's platform: putting that footer changes nothing
    written = extension.read_bytes()
    assert robostats._robostats.duckdb_extension_file(written, duckdb.sql("PRAGMA platform").fetchall()[0][0]) == written
    cli = shutil.which("duckdb")
    assert cli, "no duckdb command line on PATH (PyPI's duckdb-cli)"
    cases = pa.table({
        "i": list(range(len(google_verdicts))),
        "body": pa.array([field_bytes(c, "robotstxt") for c in google_verdicts], pa.binary()),
        "agent": [c["user_agent"] for c in google_verdicts],
        "url": [c["url"] for c in google_verdicts],
    })
    pq.write_table(cases, tmp_path / "cases.parquet")

    def sql(query):
        return subprocess.run([cli, "-unsigned", "-csv", "-noheader", "-c", f"LOAD '{extension}'; {query}"],
                              cwd=tmp_path, capture_output=True, text=True, timeout=120)

    got = sql("SELECT robots_can_fetch(body, agent, url, 'library') FROM 'cases.parquet' ORDER BY i")
    assert got.returncode == 0, got.stderr
    assert got.stdout.split() == [str(c["allowed"]).lower() for c in google_verdicts]
    # robots_explain: the verdict and the deciding line, as RobotsTxt.explain gives them
    got = sql("SELECT robots_explain(body, agent, url, 'library') FROM 'cases.parquet' ORDER BY i")
    assert got.returncode == 0, got.stderr
    reasons = list(csv.reader(io.StringIO(got.stdout)))
    assert len(reasons) == len(google_verdicts)
    for (reason,), c in zip(reasons, google_verdicts):
        why = robostats.RobotsTxt(field_bytes(c, "robotstxt")).explain(c["url"], c["user_agent"], policy="library")
        assert reason.startswith("allowed" if c["allowed"] else "disallowed"), (reason, c)
        if why.line is None:
            assert "no rule matches" in reason or "no group" in reason, (reason, c)
        else:
            assert reason.split(":", 1)[1].startswith(f" line {why.line}, {why.rule}: "), (reason, c)
    got = sql("SELECT robots_can_fetch('User-agent: *' || chr(10) || 'Disallow: /', a, '/x') "
              "FROM (VALUES ('AdsBot-Google'), ('GPTBot')) t(a)")
    assert got.returncode == 0, got.stderr
    assert got.stdout.split() == ["true", "false"]
    got = sql("SELECT robots_can_fetch('User-agent: *', 'Mozilla/5.0 (compatible; GPTBot/1.2)', '/')")
    assert got.returncode != 0 and "GPTBot" in got.stderr, got.stderr
    # A DuckDB that allows only signed extensions refuses it.
    got = subprocess.run([cli, "-c", f"LOAD '{extension}'"], capture_output=True, text=True, timeout=120)
    assert got.returncode != 0 and "signature" in got.stderr.lower(), got.stderr


def test_duckdb_extension_refuses_a_name_duckdb_would_not_load(tmp_path):
    got = command("duckdb-extension", "-o", tmp_path / "other.duckdb_extension")
    assert got.returncode != 0 and "robostats.duckdb_extension" in got.stderr
    assert not (tmp_path / "other.duckdb_extension").exists()


def test_connect_refuses_every_other_unsigned_extension_once_its_own_is_loaded(package_out, tmp_path):
    """The connection `connect` opens allows unsigned extensions for its own
    load only: after it, the setting is off, and no SQL turns it on again,
    so a statement naming another unsigned file cannot load it."""
    con = robostats.connect(package_out)
    assert robostats.native_duckdb(con)
    assert con.sql("SELECT current_setting('allow_unsigned_extensions')").fetchall() == [(False,)]
    with pytest.raises(duckdb.Error):
        con.execute("SET allow_unsigned_extensions = true")
    # An unsigned file with DuckDB's footer: where unsigned files are
    # allowed, DuckDB opens it (and finds no init function in it); here it
    # is refused before it is opened.
    platform = con.execute("PRAGMA platform").fetchall()[0][0]
    planted = tmp_path / "planted.duckdb_extension"
    planted.write_bytes(robostats._robostats.duckdb_extension_file(robostats._duckdb._read_shipped(), platform))
    with pytest.raises(duckdb.Error, match="planted_init_c_api"):
        duckdb.connect(config=UNSIGNED).execute(f"LOAD '{planted}'")
    with pytest.raises(duckdb.Error, match="unsigned|signature"):
        con.execute(f"LOAD '{planted}'")
    assert con.sql("SELECT robots_can_fetch('User-agent: *' || chr(10) || 'Disallow: /', 'a', '/')").fetchall() == [(False,)]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the in-memory file is Linux's")
def test_a_reused_descriptor_number_is_not_loaded_as_the_extension(other_platform, package_out, tmp_path):
    """The in-memory file is found again by its descriptor: when its number
    was closed behind the package's back and reused by another file, the
    next `connect` makes a new one, and leaves the other file alone."""
    robostats.connect(package_out)
    _, fd, _ = robostats._duckdb._memfd
    os.close(fd)
    other = tmp_path / "other.bin"
    other.write_bytes(b"not an extension")
    reused = os.open(other, os.O_RDONLY)
    if reused != fd:
        os.dup2(reused, fd)
        os.close(reused)
    try:
        con = robostats.connect(package_out)
        assert robostats.native_duckdb(con)
        assert con.sql("SELECT robots_can_fetch('User-agent: *' || chr(10) || 'Disallow: /', 'a', '/')").fetchall() == [(False,)]
        assert robostats._duckdb._memfd[1] != fd
        assert os.read(fd, 100) == b"not an extension"
    finally:
        os.close(fd)


def test_views_saved_in_a_database_file_do_not_outlive_the_connection(package_out, tmp_path, monkeypatch):
    """connect(out, database=file) keeps what the user makes in the file,
    never the views (temporary): opened again from elsewhere, the file has
    no view that would read `./out` there."""
    db = tmp_path / "mine.db"
    con = robostats.connect(package_out, database=str(db))
    [(rows,)] = con.sql("SELECT count(*) FROM captures").fetchall()
    con.execute("CREATE TABLE mine AS SELECT count(*) AS n FROM captures")
    con.close()
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "out").mkdir(parents=True)
    monkeypatch.chdir(elsewhere)
    reopened = duckdb.connect(str(db))
    assert reopened.sql("SELECT n FROM mine").fetchall() == [(rows,)]
    names = [v for (v,) in reopened.sql("SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()]
    assert names == []
    with pytest.raises(duckdb.CatalogException):
        reopened.sql("SELECT count(*) FROM captures")


def test_the_python_function_refuses_what_the_native_one_refuses():
    """register()'s function takes a BLOB or VARCHAR body, as the native
    one does, and a bool size_limit, as RobotsTxt does."""
    for con in (native(), arrow()):
        with pytest.raises(duckdb.Error):
            con.sql("SELECT robots_can_fetch(42, 'a', '/')").fetchall()
        assert con.sql("SELECT robots_can_fetch(NULL, 'a', '/')").fetchall() == [(None,)]
    with pytest.raises(TypeError):
        robostats.register(duckdb.connect(), size_limit="false")
    with pytest.raises(TypeError):
        robostats.can_fetch_many(["User-agent: *"], "a", ["/"], size_limit="false")
