"""Popularity strata (queries/strata.sql's host_ranks, queries/by_rank.sql)
on the planted crawls of test_definitions.py and a planted rank list: every
band's numbers below are counted by hand from the plan and the list, host
by host, not computed by another query.

The list (Tranco's form: rank,domain, no header line) ranks
  named.example 7 (its own entry: band 1-1,000), b.shop.example 50 (its own
  entry, over its domain's), star.example twice (150,000 as
  `Star.Example.`, and 900: the best, band 1-1,000), shop.example 2,000 (so
  a.shop.example by its registered domain: band 1,001-10,000),
  refetch.example 20,000 (band 10,001-100,000), split.example 3,000,000 (past
  the last bound: the open band), absent.example 1 (no host of the data).
The other ten hosts of crawl A are unranked: signal, refetch-signal,
usage-named, notfound, unavailable, comment, loop, forbidden, html, moved.
"""

import subprocess
import sys

import duckdb
import pytest

from conftest import QUERIES, ROOT, connect, ingest, run_query
from test_definitions import A, B, write_plan

RANKS = ["7,named.example", "50,b.shop.example", "150000,Star.Example.", "900,star.example",
         "2000,shop.example", "20000,refetch.example", "3000000,split.example", "1,absent.example"]

ONE, TEN, HUNDRED, OPEN, NONE = (1, 1000), (1001, 10000), (10001, 100000), (1000001, None), (None, None)

# {(crawl, band, question, agent, definition): (numerator, denominator, named, wildcard)}
EXPECTED = {
    # GPTBot fully blocked, per host: named (its group) and star (*), both
    # in the top band; split's deciding capture is a 503
    (A, ONE, "full_block", "GPTBot", "hosts"): (2, 3, 1, 1),
    (A, TEN, "full_block", "GPTBot", "hosts"): (0, 1, 0, 0),
    (A, HUNDRED, "full_block", "GPTBot", "hosts"): (0, 1, 0, 0),
    (A, OPEN, "full_block", "GPTBot", "hosts"): (0, 1, 0, 0),
    (A, NONE, "full_block", "GPTBot", "hosts"): (0, 10, 0, 0),
    # hosts decided by a parsed 2xx: named, star, b.shop | a.shop | refetch |
    # none (split: 503) | signal, refetch-signal, usage-named, comment, html, moved
    (A, ONE, "full_block", "GPTBot", "hosts_2xx"): (2, 3, 1, 1),
    (A, OPEN, "full_block", "GPTBot", "hosts_2xx"): (0, 0, 0, 0),
    (A, NONE, "full_block", "GPTBot", "hosts_2xx"): (0, 6, 0, 0),
    # Common Crawl's precedence takes split's 200, which names GPTBot
    (A, ONE, "full_block", "GPTBot", "cc_hosts"): (2, 3, 1, 1),
    (A, OPEN, "full_block", "GPTBot", "cc_hosts"): (1, 1, 1, 0),
    # CCBot: b.shop names it, star blocks it by *; usage-named's * too
    (A, ONE, "full_block", "CCBot", "hosts"): (2, 3, 1, 1),
    (A, NONE, "full_block", "CCBot", "hosts"): (1, 10, 0, 1),
    # captures: named, star, b.shop | a.shop | refetch's two (the first
    # names GPTBot) | split's 200 (names it) | 7 parsed unranked
    (A, ONE, "full_block", "GPTBot", "captures"): (2, 3, 1, 1),
    (A, TEN, "full_block", "GPTBot", "captures"): (0, 1, 0, 0),
    (A, HUNDRED, "full_block", "GPTBot", "captures"): (1, 2, 1, 0),
    (A, OPEN, "full_block", "GPTBot", "captures"): (1, 1, 1, 0),
    (A, NONE, "full_block", "GPTBot", "captures"): (0, 7, 0, 0),
    # after the HTTP outcome: split's 503 blocks too, as unavailable's does
    (A, OPEN, "full_block", "GPTBot", "captures_effective"): (2, 2, 1, 0),
    (A, NONE, "full_block", "GPTBot", "captures_effective"): (1, 13, 0, 0),
    # AdsBot-Google ignores *: star does not block it
    (A, ONE, "full_block", "AdsBot-Google", "captures"): (0, 3, 0, 0),
    (A, ONE, "full_block", "AdsBot-Google", "hosts"): (0, 3, 0, 0),
    # at least one AI crawler: named, star | usage-named
    (A, ONE, "full_block", None, "hosts_2xx_any_ai"): (2, 3, 1, 1),
    # a band without a host with a robots.txt has the row too
    (A, OPEN, "full_block", None, "hosts_2xx_any_ai"): (0, 0, 0, 0),
    (A, NONE, "full_block", None, "hosts_2xx_any_ai"): (1, 6, 0, 1),
    # registered domains in their best host's band: shop.example by b.shop
    # (50); named, star, shop | refetch | split (a 503: no block) | ten
    (A, ONE, "full_block", None, "fan_domains"): (3, 3, 2, 1),
    (A, HUNDRED, "full_block", None, "fan_domains"): (0, 1, 0, 0),
    (A, OPEN, "full_block", None, "fan_domains"): (0, 1, 0, 0),
    (A, NONE, "full_block", None, "fan_domains"): (1, 10, 0, 1),
    (A, ONE, "has_robots_txt", None, "hosts"): (3, 3, None, None),
    (A, OPEN, "has_robots_txt", None, "hosts"): (0, 1, None, None),
    (A, NONE, "has_robots_txt", None, "hosts"): (6, 10, None, None),
    (A, NONE, "has_robots_txt", None, "captures"): (7, 13, None, None),
    # no to AI training: signal (*) and usage-named (its group), unranked
    (A, ONE, "no_ai_training", "GPTBot", "hosts"): (0, 3, 0, 0),
    (A, NONE, "no_ai_training", "GPTBot", "hosts"): (2, 10, 1, 1),
    (A, NONE, "no_ai_training", "GPTBot", "captures"): (3, 7, 1, 2),
    # the top-k cuts: the bands up to k
    (A, (1, 10000), "full_block", "GPTBot", "hosts"): (2, 4, 1, 1),
    (A, (1, 100000), "full_block", "GPTBot", "hosts"): (2, 5, 1, 1),
    (A, (1, 1000000), "full_block", "GPTBot", "hosts"): (2, 5, 1, 1),
    # crawl B: named (top band) now allows all; late (unranked) blocks all
    (B, ONE, "full_block", "GPTBot", "hosts"): (0, 1, 0, 0),
    (B, NONE, "full_block", "GPTBot", "hosts"): (1, 1, 0, 1),
}

HOSTS = {
    # host: (rank, matched_by, entry, band_first, band_last)
    "named.example": (7, "host", "named.example", 1, 1000),
    "b.shop.example": (50, "host", "b.shop.example", 1, 1000),
    "a.shop.example": (2000, "registered_domain", "shop.example", 1001, 10000),
    "star.example": (900, "host", "star.example", 1, 1000),
    "refetch.example": (20000, "host", "refetch.example", 10001, 100000),
    "split.example": (3000000, "host", "split.example", 1000001, None),
    "signal.example": (None, None, None, None, None),
}


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    d = tmp_path_factory.mktemp("by_rank")
    out = d / "out"
    ingest(write_plan(d), out)
    ranks = d / "tranco.csv"
    ranks.write_text("\n".join(RANKS) + "\n")
    con = connect(out, ranks)
    yield con, out, d
    con.close()


def band(r):
    return (r["band_first"], r["band_last"])


def test_host_ranks_say_which_entry_ranked_each_host(planted):
    con, _, _ = planted
    got = {h: (r, m, e, f, la) for h, r, m, e, f, la in con.sql(
        "SELECT url_host_name, rank, matched_by, entry, band_first, band_last FROM host_ranks").fetchall()}
    assert {h: got[h] for h in HOSTS} == HOSTS
    # ten of crawl A, late of B, and page.example, whose web page crawl C holds
    assert sum(1 for v in got.values() if v[0] is None) == 12
    surt = dict(con.sql("SELECT url_host_name, url_host_surt FROM host_ranks").fetchall())
    assert surt["a.shop.example"] == "example,shop,a"
    assert con.sql("SELECT DISTINCT url_host_surt FROM captures WHERE url_host_name = 'named.example'"
                   ).fetchall() == [("example,named",)]


def test_by_rank_gives_the_counted_numbers_per_band(planted):
    con, _, _ = planted
    cols, rows = run_query(con, "by_rank")
    assert cols == ["crawl", "question", "agent", "agent_category", "definition", "band_first", "band_last",
                    "numerator", "denominator", "share", "named", "wildcard", "study"]
    got = {(r["crawl"], band(r), r["question"], r["agent"], r["definition"]):
           (r["numerator"], r["denominator"], r["named"], r["wildcard"]) for r in rows}
    wrong = {k: (got.get(k), v) for k, v in EXPECTED.items() if got.get(k) != v}
    assert not wrong, wrong
    for r in rows:
        assert r["share"] == (r["numerator"] / r["denominator"] if r["denominator"] else None), r
    # the bands in rank order, the unranked, then the cuts
    order = [band(r) for r in rows
             if (r["crawl"], r["question"], r["agent"], r["definition"]) == (A, "full_block", "GPTBot", "hosts")]
    assert order == [ONE, TEN, HUNDRED, OPEN, NONE, (1, 10000), (1, 100000), (1, 1000000)]
    # the studies' cuts named where they report them
    study = {(r["crawl"], band(r), r["definition"], r["agent"]): r["study"] for r in rows}
    assert study[A, (1, 10000), "hosts_2xx_any_ai", None] == (
        "Thunderbit 2026; Humphrey 2026; the top 10000, the trackers' top 10,000 (Thunderbit: Tranco; "
        "Humphrey: Majestic)")
    assert study[A, ONE, "hosts_2xx_any_ai", None] == "Thunderbit 2026; Humphrey 2026"
    # the first band is Nagel & Vaughan's top 1,000 as well
    assert study[A, ONE, "cc_hosts", "GPTBot"] == "Nagel & Vaughan 2025; the top 1000, Nagel & Vaughan's stratum"


def test_the_bands_add_up_to_definitions(planted):
    """Every row of definitions.sql is the sum of its bands' rows."""
    con, _, _ = planted
    _, rows = run_query(con, "by_rank")
    sums = {}
    first = con.sql("SELECT rank_bounds()[1]").fetchall()[0][0]
    for r in rows:
        if r["band_first"] == 1 and r["band_last"] > first:
            continue  # a cut
        key = (r["crawl"], r["question"], r["agent"], r["definition"])
        s = sums.setdefault(key, [0, 0, 0, 0])
        for i, c in enumerate(("numerator", "denominator", "named", "wildcard")):
            s[i] += r[c] or 0
    _, whole = run_query(con, "definitions")
    assert whole
    for r in whole:
        key = (r["crawl"], r["question"], r["agent"], r["definition"])
        assert sums[key] == [r["numerator"], r["denominator"], r["named"] or 0, r["wildcard"] or 0], key


# Each capture of a band judged crawler by crawler (agent_verdicts), counted as
# by_rank.sql's capture rows count: (numerator, denominator) of each
CAPTURE_COUNTS = """
    SELECT c.crawl, h.band_first, v.agent,
           count(*) FILTER (c.robots_parsed AND v.rules_class = 'disallow_all'
                            AND v.group_match IN ('specific', 'global')) AS full_block,
           count(*) FILTER (c.robots_parsed) AS parsed,
           count(*) FILTER (v.effective_class = 'disallow_all') AS effective,
           count(*) AS captures,
           count(*) FILTER (c.robots_parsed AND v.root_allowed
                            AND (v.usage_train_ai = 'n' OR v.signal_ai_train = 'n')) AS no_training
    FROM agent_verdicts v
    JOIN captures c USING (warc_filename, warc_record_offset)
    LEFT JOIN host_ranks h ON h.url_host_name = c.url_host_name
    GROUP BY ALL"""


@pytest.mark.parametrize("largest", ["unranked", "ranked"])
def test_each_band_s_captures_are_its_captures_judged(planted, tmp_path, largest):
    """definition_rows counts the band with the most captures as every
    capture's counts (agent_verdict_counts) less the other bands', and the
    other bands capture by capture: both give each band's own captures
    judged one by one, whichever band is the largest (the planted list
    leaves most captures unranked; this one ranks every domain in the top
    band but one)."""
    con, out, _ = planted
    if largest == "ranked":
        path = tmp_path / "top.csv"
        path.write_text("".join(f"{i},{d}\n" for i, d in enumerate(
            sorted(d for (d,) in con.sql("SELECT DISTINCT url_host_registered_domain FROM captures "
                                         "WHERE url_host_registered_domain <> 'named.example'").fetchall()),
            start=1)) + "5000,named.example\n")
        con = connect(out, path)
    counts = con.sql(CAPTURE_COUNTS).fetchall()
    bands = dict(con.sql("SELECT band_first, sum(captures) FROM (" + CAPTURE_COUNTS + ") "
                         "WHERE agent = '*' GROUP BY ALL").fetchall())
    assert max(bands, key=lambda b: bands[b]) == (None if largest == "unranked" else 1), bands
    _, rows = run_query(con, "by_rank")
    got = {(r["crawl"], r["band_first"], r["agent"], r["question"], r["definition"]):
           (r["numerator"], r["denominator"]) for r in rows
           if r["definition"] in ("captures", "captures_effective") and r["agent"] is not None
           and not (r["band_first"] == 1 and r["band_last"] > 1000)}
    want = {}
    for crawl, first, agent, full, parsed, effective, captures, no_training in counts:
        if any(k[0] == crawl for k in got):
            want[crawl, first, agent, "full_block", "captures"] = (full, parsed)
            want[crawl, first, agent, "full_block", "captures_effective"] = (effective, captures)
            want[crawl, first, agent, "no_ai_training", "captures"] = (no_training, parsed)
    assert got == want


def test_bands_are_settable(planted):
    con, _, _ = planted
    con.execute("SET VARIABLE robostats_rank_bands = [10, 1000]")
    try:
        bands = dict(con.sql("SELECT url_host_name, [band_first, band_last] FROM host_ranks").fetchall())
        assert bands["named.example"] == [1, 10] and bands["b.shop.example"] == [11, 1000]
        assert bands["a.shop.example"] == [1001, None]
        con.execute("SET VARIABLE robostats_rank_bands = [1000, 10]")
        with pytest.raises(duckdb.Error, match="robostats_rank_bands must be a list of increasing"):
            con.sql("FROM host_ranks").fetchall()
    finally:
        con.execute("RESET VARIABLE robostats_rank_bands")


def test_without_a_list_every_host_is_unranked(planted):
    _, out, _ = planted
    con = connect(out)
    assert con.sql("SELECT count(*), count(rank) FROM host_ranks").fetchall() == [(18, 0)]
    _, rows = run_query(con, "by_rank")
    assert rows and all(band(r) == NONE for r in rows)


def test_the_host_index_joins_on_surt_host_name(planted, tmp_path):
    """Common Crawl's Host Index: hosts keyed by surt_host_name, ranked by a
    score, the highest first (two crawls' partitions: a host's best)."""
    _, out, _ = planted
    index = tmp_path / "host-index"
    for crawl, rows in (("CC-MAIN-2025-05", [("example,named", 9.0, 5.1), ("example,shop,a", 8.0, 4.0),
                                             ("example,star", 7.0, 6.0), ("org,elsewhere", 9.5, 1.0)]),
                        ("CC-MAIN-2025-13", [("example,star", 9.7, 6.0)])):
        (index / f"crawl={crawl}").mkdir(parents=True)
        con = duckdb.connect()
        con.execute("CREATE TABLE t(surt_host_name VARCHAR, hcrank DOUBLE, hcrank10 DOUBLE)")
        con.executemany("INSERT INTO t VALUES (?, ?, ?)", rows)
        con.execute(f"COPY t TO '{index}/crawl={crawl}/part-0.parquet' (FORMAT parquet)")
    con = connect(out, f"{index}/*/*.parquet")
    got = dict(con.sql("SELECT url_host_surt, [rank::VARCHAR, matched_by] FROM host_ranks "
                       "WHERE rank IS NOT NULL").fetchall())
    # star 9.7 (its best), elsewhere 9.5 (no host here), named 9.0, a.shop 8.0
    assert got == {"example,star": ["1", "host"], "example,named": ["3", "host"],
                   "example,shop,a": ["4", "host"]}
    con.execute("SET VARIABLE robostats_rank_column = 'HCRANK10'")
    got = dict(con.sql("SELECT url_host_name, rank FROM host_ranks WHERE rank IS NOT NULL").fetchall())
    assert got == {"star.example": 1, "named.example": 2, "a.shop.example": 3}
    # a host without a score is an error, not a host ranked last
    duckdb.sql("COPY (FROM (VALUES ('example,star', 1.0), ('example,named', NULL)) t(surt_host_name, hcrank)) "
               f"TO '{tmp_path}/no-score.parquet' (FORMAT parquet)")
    with pytest.raises(duckdb.Error, match="has a row without a rank \\(its name: named.example\\)"):
        connect(out, tmp_path / "no-score.parquet").sql("FROM host_ranks").fetchall()


def host_ranks(out, path, text):
    path.write_text(text)
    return dict(connect(out, path).sql("SELECT url_host_name, [rank::VARCHAR, matched_by] FROM host_ranks "
                                       "WHERE rank IS NOT NULL").fetchall())


def test_a_list_of_hosts_ranks_hosts_and_a_list_of_domains_domains(planted, tmp_path):
    """A host column names hosts: shop.example ranks no subdomain. A domain
    column names registered domains, and a host it names itself."""
    _, out, _ = planted
    hosts = host_ranks(out, tmp_path / "hosts.csv", "rank,host\n1,shop.example\n2,b.shop.example\n")
    assert hosts == {"b.shop.example": ["2", "host"]}
    domains = host_ranks(out, tmp_path / "domains.csv", "Rank,Domain\n1,shop.example\n2,b.shop.example\n")
    assert domains == {"a.shop.example": ["1", "registered_domain"], "b.shop.example": ["2", "host"]}
    # a surt_host_name column with ranks (not a Host Index score): 1 first
    surt = host_ranks(out, tmp_path / "surt.csv", 'rank,surt_host_name\n1,"example,named"\n2,"example,star"\n')
    assert surt == {"named.example": ["1", "host"], "star.example": ["2", "host"]}


def test_a_bad_rank_past_the_sniffer_s_sample_is_named(planted, tmp_path):
    """DuckDB's CSV sniffer reads 20,480 lines: a rank that is not a number
    on line 30,001 is still this list's error, not a conversion error."""
    _, out, _ = planted
    lines = [f"{i},d{i}.example" for i in range(1, 40001)]
    lines[30000] = "x,bad.example"
    path = tmp_path / "late.csv"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(duckdb.Error, match="has a rank that is not a whole number from 1: x"):
        connect(out, path).sql("FROM host_ranks").fetchall()


BAD = [
    ("empty.csv", "", "holds no entries"),
    ("letters.csv", "1,a.example\nfirst,b.example\n", "has a rank that is not a number below its first line (1,a.example, which DuckDB "
                                                   "then reads as a header of column names)"),
    ("zero.csv", "rank,domain\n0,a.example\n", "has a rank that is not a whole number from 1: 0"),
    ("half.csv", "rank,domain\n1,a.example\n2.5,b.example\n", "has a rank that is not a whole number from 1: 2.5"),
    ("nodomain.csv", "rank,site\n1,a.example\n", "has no host, domain or surt_host_name column; its columns: "
                                                 "rank, site"),
    ("norank.csv", "position,domain\n1,a.example\n", "has no rank column (rank, or hcrank in a Host Index); "
                                                     "its columns: position, domain (a CSV's first line"),
    ("noname.csv", "rank,domain\n1,a.example\n2,\n", "has a row without a name (its rank: 2)"),
    ("norankvalue.csv", "rank,domain\n1,a.example\n,b.example\n", "has a row without a rank (its name: b.example)"),
]


@pytest.mark.parametrize("name,text,said", BAD, ids=[b[0] for b in BAD])
def test_a_bad_rank_list_is_an_error_naming_it(planted, tmp_path, name, text, said):
    _, out, _ = planted
    path = tmp_path / name
    path.write_text(text)
    con = connect(out, path)
    with pytest.raises(duckdb.Error) as e:
        con.sql((QUERIES / "by_rank.sql").read_text()).fetchall()
    assert f"robostats_ranks: {path} {said}" in str(e.value), e.value
    # definitions.sql does not read the list
    assert run_query(con, "definitions")[1]


def test_a_glob_matching_nothing_names_it(planted, tmp_path):
    _, out, _ = planted
    con = connect(out, tmp_path / "nothing-*.csv")
    with pytest.raises(duckdb.Error, match="nothing-"):
        con.sql("FROM host_ranks").fetchall()
    with pytest.raises(duckdb.Error, match="nothing-"):
        run_query(con, "by_rank")
    # definitions.sql does not read the list
    assert run_query(con, "definitions")[1]


def test_by_rank_runs_in_the_duckdb_cli(planted):
    """The .read lines of queries/README.md, with the DuckDB CLI."""
    _, out, d = planted
    from pathlib import Path
    cli = Path(sys.executable).parent / "duckdb"
    proc = subprocess.run(
        [str(cli) if cli.exists() else "duckdb", "-csv",
         "-c", f"SET VARIABLE robostats_out = '{out}'",
         "-c", f"SET VARIABLE robostats_ranks = '{d / 'tranco.csv'}'",
         "-c", ".read queries/tables.sql", "-c", ".read queries/views.sql", "-c", ".read queries/strata.sql",
         "-c", "SELECT band_first, count(*) AS hosts FROM host_ranks GROUP BY ALL ORDER BY ALL"],
        cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["band_first,hosts", "1,3", "1001,1", "10001,1", "1000001,1", "NULL,12"]
