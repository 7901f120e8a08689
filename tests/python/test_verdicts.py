"""The agent_verdicts view: derived in DuckDB from captures (the * verdict),
named_verdicts (the crawlers a group names) and agents, it gives the rows
the dense table of earlier versions held, and judges the crawlers that
ignore the * group by their own policy."""

import io
import shutil
import subprocess

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from conftest import BIN, ROOT, connect, ingest, preference_columns

DENSE = ROOT / "tests" / "data" / "verdicts" / "samples-dense.parquet"
COLUMNS = [
    "warc_filename", "warc_record_offset", "agent", "agent_category", "group_match", "root_allowed",
    "rules_class", "effective_class", "effective_root_allowed", "agent_operator",
]
# The AI-use preferences, added to the view after the dense table's time.
PREFERENCE_COLUMNS = preference_columns()
# The view's columns the dense table has.
DENSE_COLUMNS = f"SELECT {', '.join(COLUMNS)} FROM agent_verdicts"


def q(con, sql, *params):
    return con.execute(sql, list(params)).fetchall()


def test_the_view_has_the_declared_columns_and_the_dense_tables_types(con):
    view = q(con, "DESCRIBE agent_verdicts")
    dense = q(con, f"DESCRIBE SELECT * FROM '{DENSE}'")
    assert [c[0] for c in view] == COLUMNS + PREFERENCE_COLUMNS
    assert [(c[0], c[1]) for c in view[: len(COLUMNS)]] == [(c[0], c[1]) for c in dense]
    schema = subprocess.run([str(BIN), "schema"], capture_output=True, text=True, check=True).stdout
    declared = schema.split("agent_verdicts (view)\n")[1].split("\n\n")[0]
    assert [line.split()[0] for line in declared.splitlines()] == COLUMNS + PREFERENCE_COLUMNS


def test_the_counts_view_has_the_declared_columns(con):
    view = [c[0] for c in q(con, "DESCRIBE agent_verdict_counts")]
    schema = subprocess.run([str(BIN), "schema"], capture_output=True, text=True, check=True).stdout
    declared = schema.split("agent_verdict_counts (view)\n")[1].split("\n\n")[0]
    assert [line.split()[0] for line in declared.splitlines()] == view
    assert view == ["crawl", "google_class", "robots_parsed"] + COLUMNS[2:] + PREFERENCE_COLUMNS + ["captures"]


def test_the_view_gives_the_dense_rows_of_earlier_versions(con):
    """EXCEPT ALL both ways against the table commit ec9f90b wrote for the
    samples. Only the crawlers that ignore the * group differ, and only
    where no group names them on a parsed body: they were judged by the *
    group then, and are unrestricted now."""
    special = [r[0] for r in q(con, "SELECT token FROM agents WHERE ignores_global_group ORDER BY 1")]
    assert special == ["AdsBot-Google", "Mediapartners-Google"]
    assert q(con, "SELECT count(*) FROM agent_verdicts") == q(con, f"SELECT count(*) FROM '{DENSE}'") == [(32982,)]
    view = f"({DENSE_COLUMNS})"
    for a, b in ((view, f"'{DENSE}'"), (f"'{DENSE}'", view)):
        only = q(con, f"SELECT count(*) FROM (SELECT * FROM {a} WHERE NOT list_contains(?, agent) "
                      f"EXCEPT ALL SELECT * FROM {b} WHERE NOT list_contains(?, agent))", special, special)
        assert only == [(0,)], (a, b)
    # The special crawlers: the same rows, but for those the * group decided.
    changed = q(con, f"""
        SELECT d.agent, d.group_match, v.group_match, v.root_allowed, v.rules_class, v.effective_class, count(*)
        FROM '{DENSE}' d JOIN agent_verdicts v USING (warc_filename, warc_record_offset, agent)
        WHERE list_contains(?, agent)
          AND (d.group_match, d.root_allowed, d.rules_class, d.effective_class, d.effective_root_allowed)
              IS DISTINCT FROM
              (v.group_match, v.root_allowed, v.rules_class, v.effective_class, v.effective_root_allowed)
        GROUP BY ALL ORDER BY ALL""", special)
    assert {(r[0], r[1], r[2], r[3], r[4], r[5]) for r in changed} == {
        (agent, "global", "none", True, "allow_all", "allow_all") for agent in special
    }
    assert sum(r[6] for r in changed) == 359 + 386
    unchanged = q(con, f"""
        SELECT count(*) FROM (
            SELECT * FROM '{DENSE}' WHERE list_contains(?, agent) AND group_match IS DISTINCT FROM 'global'
            EXCEPT ALL SELECT * FROM ({DENSE_COLUMNS}) WHERE list_contains(?, agent))""", special, special)
    assert unchanged == [(0,)]


def test_only_named_crawlers_are_stored(con):
    """named_verdicts holds a row exactly where the dense table of earlier
    versions says specific, with the same verdict."""
    named = "SELECT warc_filename, warc_record_offset, agent, root_allowed, rules_class FROM named_verdicts"
    dense = (f"SELECT warc_filename, warc_record_offset, agent, root_allowed, rules_class FROM '{DENSE}' "
             "WHERE group_match = 'specific'")
    assert q(con, "SELECT count(*) FROM named_verdicts") == [(1100,)]
    for a, b in ((named, dense), (dense, named)):
        assert q(con, f"SELECT count(*) FROM ({a} EXCEPT ALL {b})") == [(0,)]
    assert q(con, "SELECT count(*) FROM agents") == [(46,)]
    assert q(con, "SELECT token, category, operator, position FROM agents WHERE token = '*'") == [
        ("*", "global", "", 46)]


def write_warc(path, bodies):
    """A gzipped WARC file of 200 responses, one per (host, body)."""
    with open(path, "wb") as f:
        writer = WARCWriter(f, gzip=True)
        for host, body in bodies:
            headers = StatusAndHeaders("200 OK", [("Content-Type", "text/plain")], protocol="HTTP/1.1")
            record = writer.create_warc_record(
                f"https://{host}/robots.txt", "response", payload=io.BytesIO(body), http_headers=headers)
            writer.write_record(record)


def test_crawlers_that_ignore_the_star_group_google_guide_examples(tmp_path):
    """The three examples of Google's crawler overview: block only
    Googlebot; block Googlebot and AdsBot; block all crawlers except AdsBot
    (the AdsBot crawlers must be named explicitly)."""
    warc = tmp_path / "guide.warc.gz"
    write_warc(warc, [
        ("only-googlebot.example", b"User-agent: Googlebot\nDisallow: /\n"),
        ("googlebot-and-adsbot.example", b"User-agent: Googlebot\nUser-agent: AdsBot-Google\nDisallow: /\n"),
        ("all-but-adsbot.example", b"User-agent: *\nDisallow: /\n"),
    ])
    out = tmp_path / "out"
    ingest([str(warc)], out)
    con = connect(out)
    rows = q(con, """
        SELECT c.url_host_name, v.agent, v.group_match, v.effective_class
        FROM agent_verdicts v JOIN captures c USING (warc_filename, warc_record_offset)
        WHERE v.agent IN ('Googlebot', 'AdsBot-Google', 'Mediapartners-Google', 'GPTBot', '*')""")
    got = {(host.split(".")[0], agent): (match, effective) for host, agent, match, effective in rows}
    assert got == {
        ("only-googlebot", "Googlebot"): ("specific", "disallow_all"),
        ("only-googlebot", "AdsBot-Google"): ("none", "allow_all"),
        ("only-googlebot", "Mediapartners-Google"): ("none", "allow_all"),
        ("only-googlebot", "GPTBot"): ("none", "allow_all"),
        ("only-googlebot", "*"): ("none", "allow_all"),
        ("googlebot-and-adsbot", "Googlebot"): ("specific", "disallow_all"),
        ("googlebot-and-adsbot", "AdsBot-Google"): ("specific", "disallow_all"),
        ("googlebot-and-adsbot", "Mediapartners-Google"): ("none", "allow_all"),
        ("googlebot-and-adsbot", "GPTBot"): ("none", "allow_all"),
        ("googlebot-and-adsbot", "*"): ("none", "allow_all"),
        ("all-but-adsbot", "Googlebot"): ("global", "disallow_all"),
        ("all-but-adsbot", "AdsBot-Google"): ("none", "allow_all"),
        ("all-but-adsbot", "Mediapartners-Google"): ("none", "allow_all"),
        ("all-but-adsbot", "GPTBot"): ("global", "disallow_all"),
        ("all-but-adsbot", "*"): ("global", "disallow_all"),
    }
    # `check` gives the tables' answer by default, and Google's library's
    # (which knows no such policy) with --policy library; --explain says
    # where the two differ.
    robots = tmp_path / "robots.txt"
    robots.write_bytes(b"User-agent: *\nDisallow: /\n")
    for policy, verdict, note in [("google", "allowed", "--policy library: disallowed"),
                                  ("library", "disallowed", "by its policy: allowed")]:
        proc = subprocess.run([str(BIN), "check", str(robots), "-a", "AdsBot-Google", "-a", "Googlebot",
                               "https://a.example/", "--explain", "--policy", policy], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        _, adsbot, googlebot = proc.stdout.splitlines()
        assert adsbot.startswith(f"{verdict}\tAdsBot-Google\t") and note in adsbot, adsbot
        assert "ignores the * group" in adsbot
        assert googlebot.startswith("disallowed\tGooglebot\t") and "policy" not in googlebot


def test_the_join_documented_for_readers_without_duckdb(samples_out, monkeypatch):
    """docs/tables.md makes the view's rows with pyarrow and pandas; run
    as written next to the samples' output, it gives the view's rows."""
    text = (ROOT / "docs" / "tables.md").read_text()
    block = next(b.split("```")[0] for b in text.split("```python\n")[1:] if "def agent_verdicts" in b)
    monkeypatch.chdir(samples_out.parent)
    namespace = {}
    exec(compile(block, "docs/tables.md", "exec"), namespace)
    dense = namespace["verdicts"]
    assert len(dense) == 32982
    assert list(dense.columns) == COLUMNS + PREFERENCE_COLUMNS
    con = connect(samples_out)
    con.register("dense_pd", dense)
    for a, b in (("agent_verdicts", "dense_pd"), ("dense_pd", "agent_verdicts")):
        assert q(con, f"SELECT count(*) FROM (SELECT * FROM {a} EXCEPT ALL SELECT * FROM {b})") == [(0,)]


def test_the_crawler_list_is_one_file_replaced_until_an_input_is_done(tmp_path):
    """A first run whose only input failed leaves no done input: a run with
    another list replaces the list (one file, one version), and the view
    has one row per capture and crawler."""
    out = tmp_path / "out"
    proc = subprocess.run([str(BIN), "ingest", "-q", "--out", str(out), str(tmp_path / "missing.warc.gz")],
                          capture_output=True, text=True)
    assert proc.returncode != 0
    agents = tmp_path / "agents.txt"
    agents.write_text("GPTBot\nAdsBot-Google\n")
    ingest([str(ROOT / "samples" / "cc-main-2024-22-whirlwind.warc.gz")], out, "--agents", str(agents))
    files = sorted(p.name for p in (out / "agents").iterdir())
    assert len(files) == 2 and files[1] == "~empty.parquet" and files[0].startswith("list-"), files
    con = connect(out)
    assert q(con, "SELECT count(DISTINCT list_version), count(*) FROM agents") == [(1, 3)]
    assert q(con, "SELECT count(*) FROM agent_verdicts") == q(con, "SELECT 3 * count(*) FROM captures")


@pytest.mark.parametrize("older", ["agent_verdicts", "no verdict_counts", "stored patterns"])
def test_an_output_of_an_earlier_version_is_refused(tmp_path, older):
    out = tmp_path / "out"
    sample = str(ROOT / "samples" / "cc-main-2024-22-whirlwind.warc.gz")
    if older == "agent_verdicts":
        (out / "_manifest").mkdir(parents=True)
        (out / "agent_verdicts").mkdir()
    elif older == "no verdict_counts":
        # Made by a version without verdict_counts: its captures have no
        # counts, which the agent_verdict_counts view would silently miss.
        ingest([sample], out)
        shutil.rmtree(out / "verdict_counts")
    else:
        # Made by a version whose body_rules stored every rule's pattern
        # and flags: its schema-only file (never rewritten) has them.
        ingest([sample], out)
        empty = out / "body_rules" / "~empty.parquet"
        fields = [f for f in pq.read_schema(empty) if f.name != "escaped_pattern"]
        fields += [pa.field("pattern", pa.string(), nullable=False), pa.field("priority", pa.int32(), nullable=False)]
        pq.write_table(pa.schema(fields).empty_table(), empty)
    for command in (["ingest", "-q", "--out", str(out), sample], ["compact", str(out)]):
        proc = subprocess.run([str(BIN), *command], capture_output=True, text=True)
        assert proc.returncode == 2, (command, proc.stderr)
        assert "earlier version of robostats" in proc.stderr
        assert ("verdict_counts" in proc.stderr) == (older == "no verdict_counts")
        assert ("body_rules" in proc.stderr) == (older == "stored patterns")
    if older == "stored patterns":
        # DuckDB's views say so too, rather than that a column is missing;
        # a data set of today beside it, named by a pattern that matches
        # its name too, is read.
        with pytest.raises(duckdb.InvalidInputException, match="which an earlier robostats wrote: its body_rules"):
            connect(out)
        ingest([sample], tmp_path / "ou[t]")
        con = connect(tmp_path / "ou[t]")
        assert con.sql("SELECT count(*) FROM captures").fetchall() == [(1,)]
        con.close()
