"""The crawl tables that `robostats compact` writes (crawl_hosts/,
crawl_chains/ and crawl_outcomes/: what the crawl-over-crawl views compute
from every capture):
the views read a crawl's stored rows only while its fingerprint holds and
compute every other crawl, and each view and query that reads them gives
the same rows as with every crawl computed, before and after an ingest
adds captures to a compacted crawl or a new crawl, and after the next
compaction."""

import hashlib
import shutil
import subprocess

import duckdb
import pytest

from conftest import BIN, QUERIES, ROOT, SAMPLES, VIEW_FILES, ingest, read_views
from test_crawls import generate

TABLES = ("crawl_hosts", "crawl_chains", "crawl_outcomes")

# The views that read the crawl tables, and every query that reads them.
VIEWS = ["crawl_hosts", "crawl_outcomes", "follow_redirects(true)", "host_states", "host_state_counts"]
READERS = ("crawl_hosts", "crawl_outcomes", "host_state", "follow_redirects(true)", "definition_rows", "strata")


def crawl_queries():
    return sorted(p.stem for p in QUERIES.glob("*.sql")
                  if p not in VIEW_FILES and any(r in p.read_text() for r in READERS))


def connect(out, stored=True):
    con = duckdb.connect()
    con.execute("SET VARIABLE robostats_out = ?", [str(out)])
    if not stored:
        con.execute("SET VARIABLE robostats_stored_crawls = false")
    read_views(con)
    return con


def compact(out, *extra, cwd=ROOT):
    proc = subprocess.run([str(BIN), "compact", str(out), *extra], cwd=cwd, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc


def rounded(row):
    """A row as text, its floats to 12 digits (sums may add in another order)."""
    return repr(tuple(float(f"{v:.12g}") if isinstance(v, float) else v for v in row))


def rows(con, sql, ordered=False):
    found = [rounded(r) for r in con.sql(sql).fetchall()]
    return found if ordered else sorted(found)


def stale(con, table):
    return sorted(c for (c,) in con.sql(f"SELECT crawl FROM robostats_stale('{table}')").fetchall())


def assert_same_both_ways(out, queries=True):
    """Every view and query (or, not `queries`, every view) reading the
    crawl tables: the same rows, in the same order where the query orders
    them, as with every crawl computed."""
    stored, computed = connect(out), connect(out, stored=False)
    for view in VIEWS:
        assert rows(stored, f"FROM {view}") == rows(computed, f"FROM {view}"), view
    for name in crawl_queries() if queries else ():
        sql = (QUERIES / f"{name}.sql").read_text()
        ordered = "ORDER BY" in sql.upper()
        assert rows(stored, sql, ordered) == rows(computed, sql, ordered), name


@pytest.fixture(scope="module")
def crawls(tmp_path_factory):
    d = tmp_path_factory.mktemp("crawl-tables") / "warc"
    generate(d)
    files = sorted(str(p) for p in d.glob("*.warc.gz"))
    return {crawl: [f for f in files if f"-{crawl}" in f] for crawl in ("202501", "202503", "202505")}


def test_the_views_read_the_crawl_tables_only_where_they_hold(crawls, tmp_path):
    out = tmp_path / "out"
    ingest([*SAMPLES, *crawls["202501"], *crawls["202503"]], out)
    # (nothing stored yet: both sides compute every crawl)
    assert connect(out).sql("SELECT getvariable('robostats_stored')").fetchall() == [(None,)]

    done = compact(out)
    assert "crawl tables:" in done.stdout and "written" in done.stdout, done.stdout
    for table in TABLES:
        assert [p.name for p in (out / table).iterdir()][0].startswith("compacted-")
    con = connect(out)
    assert sorted(con.sql("SELECT getvariable('robostats_stored')").fetchall()[0][0]) == sorted(TABLES)
    assert [stale(con, t) for t in TABLES] == [[]] * 3
    assert_same_both_ways(out)
    assert "crawl tables: up to date" in compact(out).stdout

    # Captures added to a compacted crawl (a copy of one of its files under
    # another name), and a crawl compact has not seen: those two computed.
    copy = tmp_path / "again-CC-MAIN-20250324005800-20250324035800-00000.warc.gz"
    shutil.copy(crawls["202503"][0], copy)
    ingest([str(copy), *crawls["202505"]], out)
    con = connect(out)
    crawls_now = sorted(c for (c,) in con.sql("SELECT DISTINCT crawl FROM captures").fetchall())
    changed = sorted(c for (c,) in con.sql(
        f"SELECT DISTINCT crawl FROM captures WHERE warc_filename = '{copy}' OR warc_filename LIKE '%20250519%'"
    ).fetchall())
    assert len(changed) == 2 and len(crawls_now) > 3
    assert [stale(con, t) for t in TABLES] == [changed] * 3
    assert_same_both_ways(out)

    assert "written" in compact(out).stdout
    con = connect(out)
    assert [stale(con, t) for t in TABLES] == [[]] * 3
    # (every crawl stored again, as after the first compaction: the views)
    assert_same_both_ways(out, queries=False)


def test_a_stored_row_whose_fingerprint_is_not_the_crawls_is_not_read(crawls, tmp_path):
    """A crawl table whose rows say another fingerprint than the crawl's
    (written for other captures) is computed again, whatever it holds."""
    out = tmp_path / "out"
    ingest(crawls["202501"], out)
    compact(out)
    [file] = (out / "crawl_hosts").iterdir()
    con = duckdb.connect()
    forged = tmp_path / "forged.parquet"
    con.execute(f"COPY (SELECT * REPLACE (crawl_keys + 1 AS crawl_keys, 'forged.example' AS url_host_name) "
                f"FROM '{file}') TO '{forged}' (FORMAT parquet)")
    shutil.move(forged, file)
    stored = connect(out)
    assert stale(stored, "crawl_hosts") == sorted(c for (c,) in stored.sql(
        "SELECT DISTINCT crawl FROM captures").fetchall())
    assert stored.sql("SELECT count(*) FROM crawl_hosts WHERE url_host_name = 'forged.example'").fetchall() == [(0,)]
    assert_same_both_ways(out)


def test_compact_without_duckdb_or_when_told_writes_no_crawl_tables(crawls, tmp_path):
    out = tmp_path / "out"
    ingest(crawls["202501"], out)
    proc = compact(out, "--python", str(tmp_path / "no-python"))
    assert "crawl tables not written" in proc.stderr
    assert not (out / "crawl_hosts").exists()
    proc = compact(out, "--no-crawl-tables")
    assert "crawl tables" not in proc.stdout + proc.stderr
    assert not (out / "crawl_hosts").exists()
    # (named relative to the working directory: DuckDB runs in another)
    assert "written" in compact("out", cwd=tmp_path).stdout
    assert all((out / table).is_dir() for table in TABLES)
    # An ingest into the data set takes the crawl tables for its own.
    ingest(crawls["202503"], out)


def test_the_format_in_the_fingerprint_is_the_hash_of_what_writes_and_reads_them():
    """The fingerprint holds a hash of the macros that compute and read the
    crawl tables and of the code that writes them (crawls.rs): a change to
    any makes every stored row another format's, read by no view and
    written again by the next compact. Changed them? Put the hash this test
    prints into crawl_fingerprints."""
    sql = "".join(path.read_text() for path in VIEW_FILES)

    def macro(name):
        start = sql.index(f"CREATE OR REPLACE TEMP MACRO {name}(")
        return sql[start:sql.index(";\n", start) + 1]

    names = ["robostats_holds", "robostats_stale", "robostats_captures", "robostats_stored_or", "robostats_follow",
             "robostats_chains", "robostats_crawl_hosts", "cc_outcome", "cc_precedence", "robostats_crawl_outcomes"]
    text = "".join(map(macro, names)) + (ROOT / "src" / "output" / "compact" / "crawls.rs").read_text()
    digest = hashlib.sha256(text.encode()).hexdigest()[:8]
    assert f"hash('crawl tables {digest}')" in sql, f"crawl_fingerprints' format is now {digest}"


def test_a_redo_empties_the_crawl_tables_and_a_planted_staging_link_only_warns(crawls, tmp_path):
    out = tmp_path / "out"
    ingest(crawls["202501"], out)
    assert "written" in compact(out).stdout
    # (an input compact merged cannot be done again: one ingested since)
    later = crawls["202503"][:1]
    ingest(later, out)
    assert (out / "crawl_hosts").is_dir()
    session = connect(out)
    ingest(later, out, "--redo", later[0])
    # Each table: one file of its columns and no row; a session that read
    # the views before still reads them, every crawl computed.
    for table in TABLES:
        [emptied] = (out / table).iterdir()
        assert emptied.name.startswith("emptied-")
        assert duckdb.sql(f"SELECT count(*) FROM '{emptied}'").fetchall() == [(0,)]
    assert rows(session, "FROM crawl_hosts") == rows(connect(out, stored=False), "FROM crawl_hosts")
    # (every crawl computed on both sides now: the views read the emptied files)
    assert_same_both_ways(out, queries=False)
    # A link where compact stages a crawl table: the rows are compacted,
    # the crawl tables not written, nothing written through the link.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (out / ".compact-crawl_hosts").symlink_to(elsewhere)
    proc = compact(out)
    assert "crawl tables not written" in proc.stderr, proc.stderr
    assert list(elsewhere.iterdir()) == []
    assert [p.name[:8] for p in (out / "crawl_hosts").iterdir()] == ["emptied-"]
    assert_same_both_ways(out, queries=False)


def test_crawl_outcomes_is_host_outcomes_per_crawl(crawls, tmp_path):
    """On a data set of one crawl, crawl_outcomes' rows are host_outcomes'
    (follow_redirects(false) and (true) then follow the same chains), and
    crawl_hosts' registered domain is each host's own, as captures say."""
    out = tmp_path / "out"
    ingest(crawls["202501"], out)
    for stored in (False, True):
        if stored:
            compact(out)
        con = connect(out)
        columns = "url_host_name, urls, outcome, start_url, final_url, final_status, final_google_class, hops"
        assert rows(con, f"SELECT {columns} FROM crawl_outcomes") == rows(con, f"SELECT {columns} FROM host_outcomes")
        assert con.sql("SELECT count(*) FROM crawl_outcomes").fetchall() == con.sql(
            "SELECT count(*) FROM crawl_hosts").fetchall()
        assert con.sql("""
            SELECT count(*) FROM crawl_hosts h
            JOIN (SELECT DISTINCT url_host_name, url_host_registered_domain FROM captures) c USING (url_host_name)
            WHERE h.url_host_registered_domain IS DISTINCT FROM c.url_host_registered_domain""").fetchall() == [(0,)]
