"""Every queries/*.sql runs against the samples' tables and gives the figures
the WARC files imply, computed here with warcio where they can be."""

import collections
import math
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import QUERIES, ROOT, SAMPLES, SYNTHETIC, VIEW_FILES, WHIRLWIND, connect, ingest, run_query
from test_tables import cc_class, google_class, google_current_class
from warc_facts import agent_token, follow, google_keys, google_typos, google_lines, latest_per_url
from preference_facts import (DIRECTIVES, VOCAB_DRAFTS, preference_files, preferences_at_root,
                              stated_lines)

# (tables.sql, views.sql and strata.sql are the views, not queries)
QUERY_FILES = sorted(p.stem for p in QUERIES.glob("*.sql") if p not in VIEW_FILES)


# Queries over several crawls, tested on generated crawls in test_crawls.py.
CRAWL_QUERIES = {"policy_transitions", "body_changes"}
# Queries of copies, tested on generated copies in test_templates.py.
COPY_QUERIES = {"duplicate_bodies", "templates", "top_rulesets", "template_ai_blocking", "rsl_licenses",
                "content_usage_headers"}
# The samples have no Content-Usage response header.
EMPTY_ON_SAMPLES = {"failed_inputs", "content_usage_headers"}


def test_every_query_is_tested():
    import test_crawls
    import test_templates
    names = (list(globals()) + [n for n in vars(test_crawls) if n[len("test_"):] in CRAWL_QUERIES]
             + [n for n in vars(test_templates) if n[len("test_"):] in COPY_QUERIES])
    tested = {name[len("test_"):] for name in names if name.startswith("test_")}
    assert set(QUERY_FILES) <= tested, set(QUERY_FILES) - tested


@pytest.mark.parametrize("name", QUERY_FILES)
def test_query_file_is_documented_and_runs(con, name):
    text = (QUERIES / f"{name}.sql").read_text()
    head = text.split("\n\n")[0]
    assert head.startswith("-- Question:"), name
    assert "Reads:" in text and "Result" in text, name
    cols, rows = run_query(con, name)
    # (No input of the samples fails: test_failed_inputs makes some.)
    assert rows or name in EMPTY_ON_SAMPLES or name in CRAWL_QUERIES, name
    # Counts are BIGINT: DuckDB's count_if and sum give HUGEINT, which
    # pandas reads as floats (517.0).
    rel = con.sql(text)
    hugeint = [c for c, t in zip(rel.columns, rel.types) if str(t) == "HUGEINT"]
    assert not hugeint, (name, hugeint)


def test_queries_run_in_the_duckdb_cli(samples_out):
    """The README's command line, with the DuckDB CLI (pip's duckdb-cli)."""
    cli = Path(sys.executable).parent / "duckdb"
    proc = subprocess.run(
        [str(cli) if cli.exists() else "duckdb", "-csv",
         "-c", f"SET VARIABLE robostats_out = '{samples_out}'",
         "-c", ".read queries/tables.sql",
         "-c", ".read queries/views.sql",
         "-c", ".read queries/status_classes.sql"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "classification,class,captures,share"
    assert "cc_class,success,482,0.6722454672245467" in lines


def test_tables_sql_names_robostats_out_without_a_data_set(tmp_path):
    """Read where no data set is (robostats_out unset, or naming an empty
    directory), tables.sql stops on an error naming robostats_out, in
    Python and in the DuckDB CLI, not on DuckDB's own about a glob."""
    import duckdb
    views = (QUERIES / "tables.sql").read_text()
    for value, said in ((None, "robostats_out is not set (so 'out')"),
                        (str(tmp_path), f"robostats_out is '{tmp_path}'")):
        con = duckdb.connect()
        if value is not None:
            con.execute("SET VARIABLE robostats_out = ?", [value])
        with pytest.raises(duckdb.Error) as e:
            con.execute(views)
        assert said in str(e.value) and "no robostats data set" in str(e.value), e.value
        assert "SET VARIABLE robostats_out" in str(e.value)
    cli = Path(sys.executable).parent / "duckdb"
    proc = subprocess.run([str(cli) if cli.exists() else "duckdb", "-c", f".read {QUERIES / 'tables.sql'}"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0
    assert "robostats_out is not set (so 'out')" in proc.stderr + proc.stdout, proc.stderr
    assert "No files found" not in proc.stderr + proc.stdout


def test_views_sql_read_first_says_to_read_tables_sql(samples_out):
    """views.sql derives from tables.sql's views: read alone, it says so."""
    import duckdb
    con = duckdb.connect()
    con.execute("SET VARIABLE robostats_out = ?", [str(samples_out)])
    with pytest.raises(duckdb.Error, match="read queries/tables.sql before queries/views.sql"):
        con.execute((QUERIES / "views.sql").read_text())


# The samples' crawl of robots.txt fetches (the two others hold web pages):
# the queries that give one row per crawl are checked on it.
MAIN = "CC-MAIN-2025-47"


def of_main(rows):
    """The rows of a per-crawl query's result of the crawl MAIN."""
    return [r for r in rows if r["crawl"] == MAIN]


def main_responses(con, responses):
    """The responses of MAIN's captures."""
    keys = set(con.execute("SELECT warc_filename, warc_record_offset FROM captures WHERE crawl = ?",
                           [MAIN]).fetchall())
    return [r for r in responses if (r.path, r.offset) in keys]


def crawls_of(con):
    """{(warc_filename, warc_record_offset): crawl} of every capture."""
    return {(f, o): c for f, o, c in con.execute(
        "SELECT warc_filename, warc_record_offset, crawl FROM captures").fetchall()}


def shares_sum_to_one(rows, key=None, share="share"):
    groups = collections.defaultdict(float)
    for r in rows:
        groups[key(r) if callable(key) else r[key] if key else None] += r[share]
    for g, total in groups.items():
        assert math.isclose(total, 1.0, rel_tol=1e-9), g


def test_status_classes(con, responses):
    cols, rows = run_query(con, "status_classes")
    assert cols == ["classification", "class", "captures", "share"]
    shares_sum_to_one(rows, "classification")
    for column, classify in (("google_class", google_class), ("google_current_class", google_current_class),
                             ("cc_class", cc_class)):
        expected = collections.Counter(classify(r.status, r.failed) for r in responses)
        got = {r["class"]: r["captures"] for r in rows if r["classification"] == column}
        assert got == expected, column
        for r in rows:
            if r["classification"] == column:
                assert math.isclose(r["share"], r["captures"] / len(responses))
    got = {(r["classification"], r["class"]): r["captures"] for r in rows}
    assert got[("google_class", "full_allow")] == 140
    assert got[("google_current_class", "full_allow")] == 138  # 429 moves to full_disallow
    assert got[("cc_class", "defer_visits")] == 20
    # the 200s the crawler cut short (WARC-Truncated: time 2, disconnect 1)
    assert got[("google_class", "failed")] == got[("google_current_class", "failed")] == 3


def test_status_codes(con, responses):
    cols, rows = run_query(con, "status_codes")
    assert cols == ["fetch_status", "http_error", "captures", "share"]
    assert {r["fetch_status"]: r["captures"] for r in rows} == collections.Counter(r.status for r in responses)
    shares_sum_to_one(rows)
    assert [r["fetch_status"] for r in rows] == sorted(r["fetch_status"] for r in rows)


def test_valid_robotstxt(con, responses):
    cols, rows = run_query(con, "valid_robotstxt")
    assert cols == ["unit", "total", "valid", "share"]
    got = {r["unit"]: (r["total"], r["valid"]) for r in rows}
    latest = {u: r for u, r in latest_per_url(responses).items() if r.url_path == "/robots.txt"}
    hosts = collections.defaultdict(bool)
    for r in latest.values():
        hosts[r.host] |= r.valid
    assert got["captures"] == (len(responses), sum(r.valid for r in responses))
    assert got["urls"] == (len(latest), sum(r.valid for r in latest.values()))
    assert got["hosts"] == (len(hosts), sum(hosts.values()))
    assert got == {"captures": (717, 426), "urls": (681, 415), "hosts": (666, 412)}
    for r in rows:
        assert math.isclose(r["share"], r["valid"] / r["total"])


def test_ai_crawler_blocking(con, responses):
    cols, rows = run_query(con, "ai_crawler_blocking")
    assert cols == ["agent", "agent_category", "captures", "robots_txt", "named", "named_disallow_all",
                    "named_disallow_all_share", "disallow_all", "disallow_all_share",
                    "effective_disallow_all", "effective_disallow_all_share"]
    by_agent = {r["agent"]: r for r in rows}
    # fetches that disallow everything whatever the body: 5xx, and the
    # fetches the crawler cut short (class failed, treated as a server error)
    n_5xx = sum(1 for r in responses if r.status >= 500 or r.failed)
    # the bodies parsed as robots.txt: 2xx, not cut short
    n_2xx = sum(1 for r in responses if r.parsed)
    # files naming each agent, from the bodies: a user-agent line whose token
    # is the agent's token
    named = collections.Counter()
    for r in responses:
        if r.parsed:
            tokens = {agent_token(v) for k, v in google_lines(r.body) if k == "user_agent"}
            for agent in by_agent:
                if agent != "*" and agent_token(agent) in tokens:
                    named[agent] += 1
    for agent, r in by_agent.items():
        assert r["captures"] == len(responses)
        assert r["robots_txt"] == n_2xx == 481
        assert r["named"] == named[agent], agent
        # 5xx and failed fetches disallow everything; 4xx and 3xx never do
        assert r["effective_disallow_all"] == r["disallow_all"] + n_5xx, agent
        assert r["named_disallow_all"] <= r["named"]
        assert r["named_disallow_all"] <= r["disallow_all"]
        assert math.isclose(r["disallow_all_share"], r["disallow_all"] / r["robots_txt"])
        assert math.isclose(r["effective_disallow_all_share"], r["effective_disallow_all"] / r["captures"])
        if r["named"]:
            assert math.isclose(r["named_disallow_all_share"], r["named_disallow_all"] / r["named"])
        else:
            assert r["named_disallow_all_share"] is None
    star = by_agent["*"]
    assert (star["named"], star["disallow_all"], star["effective_disallow_all"]) == (0, 14, 35)
    gpt = by_agent["GPTBot"]
    assert (gpt["named"], gpt["named_disallow_all"], gpt["disallow_all"], gpt["effective_disallow_all"]) == (45, 36, 50, 71)
    # with the fallback: the named files that disallow all, plus the files
    # not naming the agent whose * group disallows all (but for the crawlers
    # that ignore the * group: only the named files)
    ignoring = {r[0] for r in con.execute("SELECT token FROM agents WHERE ignores_global_group").fetchall()}
    assert ignoring == {"AdsBot-Google", "Mediapartners-Google"}
    for agent, r in by_agent.items():
        if agent == "*":
            continue
        if agent in ignoring:
            assert r["disallow_all"] == r["named_disallow_all"], agent
            continue
        unnamed_star = con.execute(
            """SELECT count(*) FROM agent_verdicts v JOIN agent_verdicts s USING (warc_filename, warc_record_offset)
               WHERE v.agent = ? AND v.group_match <> 'specific' AND s.agent = '*' AND s.rules_class = 'disallow_all'""",
            [agent]).fetchall()[0][0]
        assert r["disallow_all"] == r["named_disallow_all"] + unnamed_star, agent
    # AI crawlers first, each block ordered by disallow_all_share
    cats = [r["agent_category"] for r in rows]
    assert cats == sorted(cats, key=lambda c: c != "ai")
    ai = [r["disallow_all_share"] for r in rows if r["agent_category"] == "ai"]
    assert ai == sorted(ai, reverse=True)
    assert len(ai) >= 20
    # an AI crawler is blocked more often than *, the generic fallback
    assert all(r["disallow_all"] >= star["disallow_all"] for r in rows if r["agent_category"] == "ai")


def test_effective_classes(con):
    cols, rows = run_query(con, "effective_classes")
    assert cols == ["agent", "agent_category", "effective_class", "captures", "share"]
    shares_sum_to_one(rows, "agent")
    per_agent = collections.Counter()
    for r in rows:
        per_agent[r["agent"]] += r["captures"]
        if r["effective_class"] == "unresolved_redirect":
            assert r["captures"] == 75
    assert set(per_agent.values()) == {717}
    assert {r["effective_class"] for r in rows} == {"allow_all", "allow_part", "disallow_all", "unresolved_redirect"}


def test_top_user_agents_is_user_agents_counted(con):
    """top_user_agents.sql counts each body's agents once and weighs them by
    the body's captures: the same rows as counting every line of the
    user_agents view (one row per line and capture), refetches included."""
    direct = con.sql("""
        WITH ua AS (
            SELECT crawl, warc_filename, warc_record_offset, value,
                   CASE WHEN is_global THEN '*' WHEN product_token = '' THEN lower(value)
                        ELSE lower(product_token) END AS agent_token
            FROM user_agents)
        SELECT ua.crawl, agent_token, count(DISTINCT (warc_filename, warc_record_offset)) AS captures,
               count(*) AS lines,
               count(DISTINCT (warc_filename, warc_record_offset)) / any_value(p.parsed) AS share_of_captures,
               min(value) AS example_value
        FROM ua JOIN (SELECT crawl, count_if(robots_parsed) AS parsed FROM captures GROUP BY crawl) p
            ON p.crawl IS NOT DISTINCT FROM ua.crawl
        GROUP BY ua.crawl, agent_token
        QUALIFY row_number() OVER (PARTITION BY ua.crawl ORDER BY captures DESC, lines DESC, agent_token) <= 50
        ORDER BY ua.crawl NULLS FIRST, captures DESC, lines DESC, agent_token""").fetchall()
    assert direct and con.sql((QUERIES / "top_user_agents.sql").read_text()).fetchall() == direct


def test_top_user_agents(con, responses):
    cols, rows = run_query(con, "top_user_agents")
    assert cols == ["crawl", "agent_token", "captures", "lines", "share_of_captures", "example_value"]
    # every row of MAIN (the web pages name no user-agent), its share of
    # MAIN's parsed captures
    assert {r["crawl"] for r in rows} == {MAIN}
    responses = main_responses(con, responses)
    files, lines = collections.Counter(), collections.Counter()
    n_2xx = 0
    for r in responses:
        if not r.parsed:
            continue
        n_2xx += 1
        tokens = [agent_token(v) for k, v in google_lines(r.body) if k == "user_agent"]
        lines.update(tokens)
        files.update(set(tokens))
    expected = sorted(files, key=lambda t: (-files[t], -lines[t], t))[:50]
    assert [r["agent_token"] for r in rows] == expected
    for r in rows:
        assert (r["captures"], r["lines"]) == (files[r["agent_token"]], lines[r["agent_token"]])
        assert math.isclose(r["share_of_captures"], r["captures"] / n_2xx)
        assert agent_token(r["example_value"]) == r["agent_token"]
    assert (rows[0]["agent_token"], rows[0]["captures"], rows[0]["lines"]) == ("*", 396, 414)
    # ccbot and google-extended tie (46 files, 60 lines): by token
    assert rows[1]["agent_token"] == "ccbot" and rows[1]["captures"] == 46


def test_sitemaps_per_host(con, responses):
    cols, rows = run_query(con, "sitemaps_per_host")
    assert cols == ["url_host_name", "robots_captures", "sitemap_lines", "distinct_sitemaps",
                    "valid_sitemaps", "other_host_sitemaps"]
    latest = latest_per_url(responses)
    per_host = collections.Counter()
    hosts = set()
    for r in latest.values():
        hosts.add(r.host)
        if r.parsed:
            per_host[r.host] += sum(1 for k, _ in google_lines(r.body) if k == "sitemap")
    assert {r["url_host_name"] for r in rows} == hosts
    assert {r["url_host_name"]: r["sitemap_lines"] for r in rows if r["sitemap_lines"]} == +per_host
    assert sum(r["robots_captures"] for r in rows) == len(latest) == 702
    for r in rows:
        assert r["distinct_sitemaps"] <= r["sitemap_lines"]
        if r["sitemap_lines"]:
            assert (r["valid_sitemaps"] or 0) <= r["sitemap_lines"]
    lines = [r["sitemap_lines"] for r in rows]
    assert lines == sorted(lines, reverse=True)
    # the sitemap_spam robots.txt (~600 KiB of Sitemap lines; those in the
    # first 500 KiB count)
    assert rows[0]["url_host_name"] == "www.losports84.de" and rows[0]["sitemap_lines"] == 8311


def test_sitemap_hosts(con):
    cols, rows = run_query(con, "sitemap_hosts")
    assert cols == ["crawl", "sitemap_host", "sitemap_lines", "distinct_sitemaps", "robots_hosts",
                    "other_host_lines"]
    total_valid = con.execute("SELECT count(*) FROM sitemaps WHERE is_valid").fetchall()[0][0]
    assert sum(r["sitemap_lines"] for r in rows) == total_valid == 8699
    other = con.execute("SELECT count_if(NOT same_host) FROM sitemaps WHERE is_valid").fetchall()[0][0]
    assert sum(r["other_host_lines"] for r in rows) == other
    assert all(r["robots_hosts"] >= 1 and r["sitemap_host"] for r in rows)
    assert len(rows) == len({(r["crawl"], r["sitemap_host"]) for r in rows})
    # the hosts listed most first: the sitemap_spam robots.txt's own host
    rows = of_main(rows)
    lines = [r["sitemap_lines"] for r in rows]
    assert lines == sorted(lines, reverse=True)
    assert (rows[0]["sitemap_host"], rows[0]["sitemap_lines"]) == ("www.losports84.de", 8311)


BUCKETS = [(0, 0), (1, 1024), (1025, 10240), (10241, 102400), (102401, 512000), (512001, None)]


def test_size_buckets(con, responses):
    cols, rows = run_query(con, "size_buckets")
    assert cols == ["bucket", "lower_bytes", "upper_bytes", "captures", "share", "cumulative_share"]
    sizes = [len(r.body) for r in responses if r.parsed]
    expected = [sum(1 for s in sizes if s >= lo and (hi is None or s <= hi)) for lo, hi in BUCKETS]
    assert [(r["lower_bytes"], r["upper_bytes"]) for r in rows] == BUCKETS
    assert [r["captures"] for r in rows] == expected == [13, 328, 92, 39, 5, 4]
    shares_sum_to_one(rows)
    assert math.isclose(rows[-1]["cumulative_share"], 1.0)


def test_size_stats(con, responses):
    cols, rows = run_query(con, "size_stats")
    (r,) = rows
    sizes = sorted(len(x.body) for x in responses if x.parsed)
    n = len(sizes)
    assert r["captures"] == n == 481
    assert math.isclose(r["mean_bytes"], sum(sizes) / n)
    assert r["max_bytes"] == sizes[-1] == 1_048_576
    for col, q in (("p25", 0.25), ("p50", 0.5), ("p75", 0.75), ("p90", 0.9), ("p99", 0.99)):
        v = r[col]
        # a discrete quantile: a value that occurs, with at least q of the
        # sizes at or below it and at most q strictly below it
        assert v in sizes, col
        assert sum(1 for s in sizes if s <= v) / n >= q, col
        assert sum(1 for s in sizes if s < v) / n <= q, col
    # huge 2 and the 2 bodies cut at 1 MiB (WARC-Truncated: length); the
    # bodies cut short by time or disconnect are not parsed (class failed)
    assert (r["over_500kib"], r["truncated"]) == (4, 2)
    assert (r["over_500kib"], r["truncated"]) == (
        sum(1 for x in responses if x.parsed and len(x.body) > 512_000),
        sum(1 for x in responses if x.parsed and x.truncated is not None))
    assert math.isclose(r["over_500kib_share"], 4 / n)


def test_nonstandard_directives(con, responses):
    cols, rows = run_query(con, "nonstandard_directives")
    assert cols == ["crawl", "name", "known_elsewhere", "lines", "captures", "share_of_captures"]
    rows = of_main(rows)
    responses = main_responses(con, responses)
    parsed = sum(r.parsed for r in responses)
    got = {r["name"]: r for r in rows}
    for name, lines in {"crawl-delay": 355, "clean-param": 33, "content-signal": 26, "content-usage": 22,
                        "host": 17, "request-rate": 3, "visit-time": 3, "noindex": 4}.items():
        assert got[name]["known_elsewhere"] and got[name]["lines"] == lines, name
    # files per known directive, from the bodies
    files = collections.Counter()
    for r in responses:
        if r.parsed:
            files.update({k for kind, k in google_lines(r.body) if kind == "other"})
    for r in rows:
        if r["known_elsewhere"]:
            assert r["captures"] == files[r["name"]], r["name"]
        assert "<" not in r["name"] and " " not in r["name"]
        assert math.isclose(r["share_of_captures"], r["captures"] / parsed)
    assert rows[0]["name"] == "crawl-delay"
    assert "dis-allow" not in got  # a typo: typos.sql


def test_typos(con, responses):
    cols, rows = run_query(con, "typos")
    assert cols == ["crawl", "accepted_by_google", "directive", "spelling", "lines", "captures"]
    assert {r["crawl"] for r in rows} == {MAIN}
    accepted = sum(r["lines"] for r in rows if r["accepted_by_google"])
    assert accepted == sum(google_keys(r.body)["typo"] for r in responses if r.parsed) == 40
    assert accepted == con.execute("SELECT sum(typos) FROM captures").fetchall()[0][0]
    got = {(r["accepted_by_google"], r["directive"], r["spelling"]): r["lines"] for r in rows}
    expected = collections.Counter(
        (True,) + t for r in responses if r.parsed for t in google_typos(r.body))
    # the misspellings Google ignores (the generator's unaccepted typos)
    unaccepted = {
        ("user-agent", "user-agnet"): 8, ("user-agent", "usr-agent"): 2,
        ("disallow", "disllow"): 4, ("disallow", "diallow"): 3, ("disallow", "dis-allow"): 2,
        ("disallow", "dsallow"): 1, ("allow", "allwo"): 5, ("allow", "alow"): 5,
        ("sitemap", "site map"): 5, ("sitemap", "sitmap"): 3, ("sitemap", "stemap"): 2,
        ("crawl-delay", "crawl-dealy"): 6, ("crawl-delay", "crawl_delay"): 2, ("crawl-delay", "crawldelay"): 2,
        ("content-signal", "content-signals"): 2,
    }
    for (directive, spelling), n in unaccepted.items():
        expected[(False, directive, spelling)] = n
    assert got == expected
    assert sum(v for (a, d, _), v in got.items() if a and d == "disallow") == 24
    assert sum(v for (a, d, _), v in got.items() if a and d == "user-agent") == 8
    # each ignored spelling's lines, counted in the bodies: keys Google does not know
    other_keys = collections.Counter(k for r in responses if r.parsed
                                     for kind, k in google_lines(r.body) if kind == "other")
    for (directive, spelling), n in unaccepted.items():
        assert other_keys[spelling] == n, spelling
    assert other_keys["dis-allow"] == 2


def test_latest_capture_per_url(con, responses):
    cols, rows = run_query(con, "latest_capture_per_url")
    assert cols[:3] == ["url", "url_host_name", "captures"]
    latest = latest_per_url(responses)
    assert {r["url"]: (r["warc_filename"], r["warc_record_offset"]) for r in rows} == {
        u: (x.path, x.offset) for u, x in latest.items()}
    counts = collections.Counter(x.url for x in responses)
    assert {r["url"]: r["captures"] for r in rows} == counts
    again = {r["url"]: r["fetch_status"] for r in rows if r["captures"] >= 2}
    # https://www.cooren.com/robots.txt: a 520, then a 301 later: the 301 is
    # latest; https://www.work.com/robots.txt (4 captures): 200, 200, 404,
    # then a 200: the last 200 is latest
    assert again == {
        "https://www.cooren.com/robots.txt": 301, "https://www.work.com/robots.txt": 200,
        "https://www.lib.jp/robots.txt": 301, "https://www.tifoluno.es/robots.txt": 301,
        "https://www.rochzo.com/robots.txt": 404, "http://support.return-story.ru/robots.txt": 404,
        "https://xn--80aairftm.xn--p1ai/robots.txt": 404, "https://www.english.org/robots.txt": 200,
        "https://learn-lib.com/robots.txt": 200, "https://www.sort-jobs.com/robots.txt": 200,
        "https://xn--caf-ol-dvad.fr/robots.txt": 200,
    }
    assert [r["url"] for r in rows] == sorted(r["url"] for r in rows)


def test_latest_capture_per_host(con, responses):
    cols, rows = run_query(con, "latest_capture_per_host")
    robots = [x for x in responses if x.url_path == "/robots.txt"]
    by_host = {}
    for x in robots:
        key = (x.date, x.path, x.offset)
        if x.host not in by_host or key > (by_host[x.host].date, by_host[x.host].path, by_host[x.host].offset):
            by_host[x.host] = x
    assert {r["url_host_name"]: r["url"] for r in rows} == {h: x.url for h, x in by_host.items()}
    assert len(rows) == 666
    assert sum(r["captures"] for r in rows) == len(robots) == 696


def expected_chains(responses):
    latest = latest_per_url(responses)
    return latest, {u: follow(latest, u) for u, r in latest.items() if r.url_path == "/robots.txt"}


def test_redirect_chains(con, responses):
    cols, rows = run_query(con, "redirect_chains")
    assert cols == ["start_url", "url_host_name", "hops", "final_url", "final_status",
                    "final_google_class", "final_cc_class", "resolution", "chain"]
    _, chains = expected_chains(responses)
    expected = {u: (h, f.url, f.status, res) for u, (h, f, res) in chains.items() if res != "direct"}
    got = {r["start_url"]: (r["hops"], r["final_url"], r["final_status"], r["resolution"]) for r in rows}
    assert got == expected
    for r in rows:
        assert r["chain"][0] == r["start_url"] and r["chain"][-1] == r["final_url"]
        assert len(r["chain"]) == r["hops"] + 1
    assert len(rows) == 75


def test_redirect_resolution(con, responses):
    cols, rows = run_query(con, "redirect_resolution")
    assert cols == ["resolution", "hops", "urls", "share"]
    _, chains = expected_chains(responses)
    expected = collections.Counter((res, h) for h, _, res in chains.values())
    assert {(r["resolution"], r["hops"]): r["urls"] for r in rows} == expected
    assert expected == {("direct", 0): 606, ("resolved", 1): 30, ("resolved", 2): 3,
                        ("target_not_captured", 0): 38, ("missing_location", 0): 4}
    shares_sum_to_one(rows)


def python_host_outcomes(con, responses):
    """Host outcomes from warcio, with has_rules taken from the captures table
    (the one figure that needs a full robots.txt parse)."""
    has_rules = dict(((f, o), v) for f, o, v in con.execute(
        "SELECT warc_filename, warc_record_offset, has_rules FROM captures").fetchall())
    _, chains = expected_chains(responses)
    rank = {"robots_txt_with_rules": 1, "robots_txt_no_rules": 1, "not_robots_txt": 1,
            "allow_all": 2, "forbidden": 3, "defer_visits": 4, "redirect_unresolved": 5}
    best = {}
    for start, (hops, final, res) in chains.items():
        c = cc_class(final.status)
        if c == "success":
            if not final.valid:
                outcome = "not_robots_txt"
            elif has_rules[(final.path, final.offset)]:
                outcome = "robots_txt_with_rules"
            else:
                outcome = "robots_txt_no_rules"
        elif c in ("notfound", "unauthorized", "other") or res == "too_many_hops":
            outcome = "allow_all"
        elif c in ("forbidden", "defer_visits"):
            outcome = c
        else:
            outcome = "redirect_unresolved"
        host = urlsplit_host(start)
        key = (rank[outcome], _neg(final.date), start)
        if host not in best or key < best[host][0]:
            best[host] = (key, outcome)
    return {h: o for h, (_, o) in best.items()}


def urlsplit_host(url):
    from urllib.parse import urlsplit
    return (urlsplit(url).hostname or "").lower()


def _neg(date):
    # later first: order by the negated characters of an ISO date
    return tuple(-ord(ch) for ch in date)


def test_host_outcomes(con, responses):
    cols, rows = run_query(con, "host_outcomes")
    assert cols == ["url_host_name", "urls", "outcome", "start_url", "final_url", "final_status",
                    "final_google_class", "hops"]
    expected = python_host_outcomes(con, responses)
    assert {r["url_host_name"]: r["outcome"] for r in rows} == expected
    assert len(rows) == 666


def test_host_outcome_shares(con, responses):
    cols, rows = run_query(con, "host_outcome_shares")
    assert cols == ["outcome", "hosts", "share"]
    expected = collections.Counter(python_host_outcomes(con, responses).values())
    assert {r["outcome"]: r["hosts"] for r in rows} == {
        o: expected.get(o, 0) for o in ("robots_txt_with_rules", "robots_txt_no_rules", "not_robots_txt",
                                        "allow_all", "forbidden", "defer_visits", "redirect_unresolved")}
    assert {r["outcome"]: r["hosts"] for r in rows} == {
        "robots_txt_with_rules": 349, "robots_txt_no_rules": 78, "not_robots_txt": 37, "allow_all": 131,
        "forbidden": 9, "defer_visits": 20, "redirect_unresolved": 42}
    shares_sum_to_one(rows)


def test_readme_lists_every_query():
    readme = (QUERIES / "README.md").read_text()
    for name in QUERY_FILES:
        assert f"`{name}.sql`" in readme, name


def test_ingest_progress(con):
    """The manifest of the samples' single run: every input done."""
    _, rows = run_query(con, "ingest_progress")
    assert rows == [{
        "manifest": "run", "inputs_done": 3, "inputs_failed": 0, "records": 1455,
        "responses": 717, "captures": 717, "errors": 0,
        "gigabytes": rows[0]["gigabytes"],
    }]
    assert 0.001 < rows[0]["gigabytes"] < 0.01


def test_failed_inputs(con, tmp_path):
    """No input of the samples failed; a missing and a cut-short input do,
    with their reasons, until a re-run does them."""
    _, rows = run_query(con, "failed_inputs")
    assert rows == []
    cut = tmp_path / "cut.warc.gz"
    cut.write_bytes((ROOT / SYNTHETIC).read_bytes()[:1_000_000])
    out = tmp_path / "out"
    ingest([str(cut), str(tmp_path / "missing.warc.gz"), WHIRLWIND], out, exit_status=1)
    c = connect(out)
    _, rows = run_query(c, "failed_inputs")
    assert [(r["input"], r["manifest"]) for r in rows] == [
        (str(cut), "run"), (str(tmp_path / "missing.warc.gz"), "run")]
    assert "cut short" in rows[0]["reason"] and "truncated_member" in rows[0]["reason"]
    assert rows[0]["records"] > 0 and rows[0]["gigabytes"] > 0
    assert "No such file" in rows[1]["reason"] and rows[1]["records"] == 0
    # Made whole, then done: no longer failed.
    cut.write_bytes((ROOT / SYNTHETIC).read_bytes())
    (tmp_path / "missing.warc.gz").write_bytes((ROOT / WHIRLWIND).read_bytes())
    ingest([str(cut), str(tmp_path / "missing.warc.gz"), WHIRLWIND], out)
    _, rows = run_query(c, "failed_inputs")
    assert rows == []
    _, rows = run_query(c, "ingest_progress")
    assert [(r["inputs_done"], r["inputs_failed"]) for r in rows] == [(3, 0)]


# --- AI-use preferences: the queries' figures recounted from the WARC bodies
# (preference_facts reads the Content-Signal and Content-Usage lines, their
# groups and what applies to a crawler at / without robostats). Each check
# runs here on the samples and in test_preferences.py on the preference
# cases of samples/preferences/.

def check_preference_adoption(con, responses):
    cols, rows = run_query(con, "preference_adoption")
    assert cols == ["crawl", "directive", "lines", "captures", "share_of_captures", "unparseable_lines",
                    "empty_lines", "lines_before_groups", "cloudflare_block_lines"]
    crawl_of = crawls_of(con)
    files = preference_files(responses)
    expected = {}
    for crawl in {crawl_of[key] for key, pf in files.items() if pf.statements}:
        parsed = {key: pf for key, pf in files.items() if crawl_of[key] == crawl}
        for directive in ("content-signal", "content-usage", "any"):
            lines = [(key, s) for key, pf in parsed.items() for s in pf.statements
                     if directive in ("any", s.directive)]
            if not lines and directive != "any":
                continue
            expected[(crawl, directive)] = {
                "lines": len(lines),
                "captures": len({key for key, _ in lines}),
                "unparseable_lines": sum(s.status == "unparseable" for _, s in lines),
                "empty_lines": sum(s.status == "empty" for _, s in lines),
                "lines_before_groups": sum(s.google_group is None for _, s in lines),
                "cloudflare_block_lines": sum(s.in_cloudflare_block for _, s in lines),
                "share_of_captures": len({key for key, _ in lines}) / len(parsed),
            }
    assert {(r["crawl"], r["directive"]) for r in rows} == set(expected)
    for r in rows:
        e = expected[(r["crawl"], r["directive"])]
        assert {k: v for k, v in r.items() if k in e and k != "share_of_captures"} == {
            k: v for k, v in e.items() if k != "share_of_captures"}, r
        assert math.isclose(r["share_of_captures"], e["share_of_captures"])
    # per crawl: each directive, then 'any'
    assert [r["directive"] == "any" for r in rows] == [
        r is rows[-1] or rows[i + 1]["crawl"] != r["crawl"] for i, r in enumerate(rows)]
    got = {r["directive"]: r for r in rows if r["crawl"] == max(c for c, _ in expected)}
    # the same lines as the directives table names
    assert sum(r["lines"] for r in rows if r["directive"] == "any") == con.execute(
        "SELECT count(*) FROM directives WHERE name IN ('content-signal', 'content-usage')").fetchall()[0][0]
    for r in rows:
        if r["directive"] == "any":
            parts = [x for x in rows if x["crawl"] == r["crawl"] and x["directive"] != "any"]
            assert r["captures"] <= sum(x["captures"] for x in parts)
    return got


def test_preference_adoption(con, responses):
    got = check_preference_adoption(con, responses)
    assert got["content-signal"]["lines"] > 0 and got["content-usage"]["lines"] > 0
    assert got["content-signal"]["cloudflare_block_lines"] > 0
    assert got["content-usage"]["unparseable_lines"] > 0


def check_preference_labels(con, responses):
    cols, rows = run_query(con, "preference_labels")
    assert cols == ["crawl", "directive", "label", "value", "preference", "status", "members", "lines",
                    "captures", "overridden", "share_of_directive_captures"]
    crawl_of = crawls_of(con)
    members, lines, files, overridden = (collections.Counter(), collections.defaultdict(set),
                                         collections.defaultdict(set), collections.Counter())
    directive_files = collections.defaultdict(set)
    for key, pf in preference_files(responses).items():
        crawl = crawl_of[key]
        for s in pf.statements:
            directive_files[(crawl, s.directive)].add(key)
            yes, no = DIRECTIVES[s.directive]
            for label, token, value, later in s.members or [(None, None, None, False)]:
                group = (crawl, s.directive, label, value,
                         "y" if token == yes else "n" if token == no else "unknown", s.status)
                members[group] += 1
                lines[group].add(key + (s.line,))
                files[group].add(key)
                overridden[group] += later
    got = {(r["crawl"], r["directive"], r["label"], r["value"], r["preference"], r["status"]): r for r in rows}
    assert set(got) == set(members)
    for group, r in got.items():
        assert (r["members"], r["lines"], r["captures"], r["overridden"]) == (
            members[group], len(lines[group]), len(files[group]), overridden[group]), group
        assert math.isclose(r["share_of_directive_captures"],
                            r["captures"] / len(directive_files[group[:2]]))
    # ordered by crawl, directive, then files
    order = [(r["crawl"], r["directive"], -r["captures"]) for r in rows]
    assert order == sorted(order)
    latest = max(group[0] for group in got)
    return {group[1:]: r for group, r in got.items() if group[0] == latest}


def test_preference_labels(con, responses):
    got = check_preference_labels(con, responses)
    # Cloudflare's own spelling, read as yes and no
    assert got[("content-signal", "ai-train", "no", "n", "ok")]["lines"] > 0
    assert got[("content-signal", "search", "yes", "y", "ok")]["lines"] > 0
    # the other directive's spelling is not a preference
    for (directive, label, value, preference, status) in got:
        if value in ("y", "n") and directive == "content-signal" or value in ("yes", "no") and directive == "content-usage":
            assert preference == "unknown", (directive, label, value)


def check_preference_contradictions(con, responses):
    cols, rows = run_query(con, "preference_contradictions")
    assert cols == ["crawl", "agent", "agent_category", "robots_txt", "allowed", "allowed_no_ai_training",
                    "allowed_usage_train_ai_n", "allowed_signal_ai_train_n", "allowed_no_ai_training_share",
                    "blocked", "blocked_no_preference", "blocked_no_preference_share",
                    "blocked_no_preference_in_preference_captures"]
    crawl_of = crawls_of(con)
    files = preference_files(responses)
    ignores = dict(con.execute("SELECT token, ignores_global_group FROM agents").fetchall())
    # whether each crawler may fetch /: Google's matcher, from the table
    root = {(f, o, a): allowed for f, o, a, allowed in con.execute(
        "SELECT warc_filename, warc_record_offset, agent, root_allowed FROM agent_verdicts").fetchall()}
    expected = {}
    for crawl in {crawl_of[key] for key in files}:
        crawl_files = {key: pf for key, pf in files.items() if crawl_of[key] == crawl}
        for agent, ignores_global_group in ignores.items():
            e = collections.Counter(robots_txt=len(crawl_files))
            for key, pf in crawl_files.items():
                if root[key + (agent,)]:
                    p = preferences_at_root(pf, agent, ignores_global_group)
                    e["allowed"] += 1
                    e["allowed_no_ai_training"] += "n" in (p["usage_train_ai"], p["signal_ai_train"])
                    e["allowed_usage_train_ai_n"] += p["usage_train_ai"] == "n"
                    e["allowed_signal_ai_train_n"] += p["signal_ai_train"] == "n"
                else:
                    usage, signal, _ = stated_lines(pf, agent, ignores_global_group)
                    e["blocked"] += 1
                    if not usage and not signal:
                        e["blocked_no_preference"] += 1
                        e["blocked_no_preference_in_preference_captures"] += bool(pf.statements)
            expected[(crawl, agent)] = e
    assert {(r["crawl"], r["agent"]) for r in rows} == set(expected)
    for r in rows:
        e = expected[(r["crawl"], r["agent"])]
        for col in ("robots_txt", "allowed", "allowed_no_ai_training", "allowed_usage_train_ai_n",
                    "allowed_signal_ai_train_n", "blocked", "blocked_no_preference",
                    "blocked_no_preference_in_preference_captures"):
            assert r[col] == e[col], (r["crawl"], r["agent"], col)
        assert r["allowed"] + r["blocked"] == r["robots_txt"]
        if r["allowed"]:
            assert math.isclose(r["allowed_no_ai_training_share"], r["allowed_no_ai_training"] / r["allowed"])
        if r["blocked"]:
            assert math.isclose(r["blocked_no_preference_share"], r["blocked_no_preference"] / r["blocked"])
        else:
            assert r["blocked_no_preference_share"] is None
    for crawl in {r["crawl"] for r in rows}:
        cats = [r["agent_category"] for r in rows if r["crawl"] == crawl]
        assert cats == sorted(cats, key=lambda c: c != "ai")
    latest = max(r["crawl"] for r in rows)
    return {r["agent"]: r for r in rows if r["crawl"] == latest}


def test_preference_contradictions(con, responses):
    got = check_preference_contradictions(con, responses)
    # the * group's signals and rules reach every crawler no group names
    assert got["*"]["allowed_no_ai_training"] > 0
    assert got["GPTBot"]["blocked"] > got["GPTBot"]["blocked_no_preference_in_preference_captures"] > 0


def check_cloudflare_managed(con, responses):
    cols, rows = run_query(con, "cloudflare_managed")
    assert cols == ["robots_txt", "managed", "managed_share", "hosts", "managed_hosts", "managed_hosts_share",
                    "blocks", "managed_signal_lines_in_block", "managed_signal_lines_outside_block",
                    "managed_without_signal_in_block", "other_signal_captures", "other_signal_lines"]
    (r,) = rows
    parsed = [x for x in responses if x.parsed]
    files = preference_files(responses)
    managed = [x for x in parsed if files[(x.path, x.offset)].cloudflare_blocks]
    signals = {(x.path, x.offset): [s for s in files[(x.path, x.offset)].statements
                                    if s.directive == "content-signal"] for x in parsed}
    in_block = sum(s.in_cloudflare_block for x in managed for s in signals[(x.path, x.offset)])
    outside = sum(not s.in_cloudflare_block for x in managed for s in signals[(x.path, x.offset)])
    others = [signals[(x.path, x.offset)] for x in parsed if x not in managed]
    assert r == {
        "robots_txt": len(parsed),
        "managed": len(managed),
        "managed_share": r["managed_share"],
        "hosts": len({x.host for x in parsed}),
        "managed_hosts": len({x.host for x in managed}),
        "managed_hosts_share": r["managed_hosts_share"],
        "blocks": sum(files[(x.path, x.offset)].cloudflare_blocks for x in managed),
        "managed_signal_lines_in_block": in_block,
        "managed_signal_lines_outside_block": outside,
        "managed_without_signal_in_block": sum(
            not any(s.in_cloudflare_block for s in signals[(x.path, x.offset)]) for x in managed),
        "other_signal_captures": sum(bool(s) for s in others),
        "other_signal_lines": sum(len(s) for s in others),
    }
    assert math.isclose(r["managed_share"], r["managed"] / r["robots_txt"])
    assert math.isclose(r["managed_hosts_share"], r["managed_hosts"] / r["hosts"])
    # a line inside a block is in a managed file
    assert all(not s.in_cloudflare_block for ss in others for s in ss)
    return r


def test_cloudflare_managed(con, responses):
    r = check_cloudflare_managed(con, responses)
    assert r["managed"] > 0 and r["managed_signal_lines_in_block"] > 0 and r["other_signal_lines"] > 0


def check_preference_vintage(con, responses):
    cols, rows = run_query(con, "preference_vintage")
    assert cols == ["label", "vintage", "first_draft", "first_date", "last_draft", "last_date", "lines", "captures"]
    defined = collections.defaultdict(list)
    for draft, date, labels in VOCAB_DRAFTS:
        for label in labels:
            defined[label].append((date, draft))
    latest = max(date for _, date, _ in VOCAB_DRAFTS)
    lines, files = collections.defaultdict(set), collections.defaultdict(set)
    for key, pf in preference_files(responses).items():
        for s in pf.statements:
            if s.directive == "content-usage":
                for label, *_ in s.members:
                    lines[label].add(key + (s.line,))
                    files[label].add(key)
    expected = {}
    for label in set(defined) | set(lines):
        drafts = sorted(defined.get(label, []))
        expected[label] = {
            "label": label,
            "vintage": "unknown" if not drafts else "current" if drafts[-1][0] == latest else "earlier_draft",
            "first_draft": drafts[0][1] if drafts else None,
            "first_date": drafts[0][0] if drafts else None,
            "last_draft": drafts[-1][1] if drafts else None,
            "last_date": drafts[-1][0] if drafts else None,
            "lines": len(lines[label]),
            "captures": len(files[label]),
        }
    got = {r["label"]: dict(r, first_date=r["first_date"] and r["first_date"].isoformat(),
                            last_date=r["last_date"] and r["last_date"].isoformat()) for r in rows}
    assert got == expected
    assert [r["label"] for r in rows] == sorted(got, key=lambda lab: (got[lab]["first_date"] or "9", lab))
    return got


def test_preference_vintage(con, responses):
    got = check_preference_vintage(con, responses)
    assert got["train-ai"]["vintage"] == got["search"]["vintage"] == "current"
    assert (got["train-ai"]["first_draft"], got["search"]["first_draft"]) == ("vocab-02", "vocab-01")
    assert (got["bots"]["first_draft"], got["bots"]["last_draft"]) == ("vocab-03", "vocab-04")
    # the sample's Content-Usage lines include labels of earlier drafts
    assert any(r["lines"] for r in got.values() if r["vintage"] == "earlier_draft")


# The crawl-over-crawl queries. The samples hold robots.txt captures of one
# crawl (CC-MAIN-2025-47): policy_transitions and body_changes are checked
# on generated crawls with planned transitions (test_crawls.py); the rest
# here, against hosts chosen in Python from warcio's records.

def python_crawl_hosts(con, responses):
    """{(crawl, host): (hops, final response, resolution)}: each host's latest
    robots.txt capture per crawl, redirects followed in the same crawl."""
    crawl_of = dict(con.execute("SELECT DISTINCT warc_filename, crawl FROM captures").fetchall())
    by_crawl = collections.defaultdict(list)
    for r in responses:
        by_crawl[crawl_of[r.path]].append(r)
    out = {}
    for crawl, rs in by_crawl.items():
        latest = latest_per_url(rs)
        starts = {}
        for r in rs:
            key = (r.date, r.path, r.offset)
            if r.url_path == "/robots.txt" and (r.host not in starts or key > starts[r.host][0]):
                starts[r.host] = (key, r)
        for host, (_, start) in starts.items():
            out[(crawl, host)] = follow(latest, start.url)
    return out


def python_outcome(final, resolution, has_rules):
    if final.failed:
        return "failed"
    if 200 <= final.status < 300:
        if has_rules[(final.path, final.offset)]:
            return "rules"
        return "no_rules" if final.body else "empty"
    if 300 <= final.status < 400:
        return "too_many_hops" if resolution in ("loop", "too_many_hops") else "redirect"
    if 400 <= final.status < 500 and final.status != 429:
        return "4xx"
    return "5xx_429"


# Each outcome's base_state (docs/crawls.md, "A host's outcome"), as
# written there, not read from a view.
OUTCOME_BASE_STATE = {"rules": None, "no_rules": None, "empty": None, "4xx": "no_robots",
                      "too_many_hops": "no_robots", "redirect": "redirect",
                      "5xx_429": "unreachable", "failed": "unreachable"}


def test_outcomes_per_crawl(con, responses):
    cols, rows = run_query(con, "outcomes_per_crawl")
    assert cols == ["crawl", "outcome", "base_state", "hosts", "share"]
    assert all(r["base_state"] == OUTCOME_BASE_STATE[r["outcome"]] for r in rows)
    has_rules = dict(((f, o), v) for f, o, v in con.execute(
        "SELECT warc_filename, warc_record_offset, has_rules FROM captures").fetchall())
    expected = collections.Counter(
        (crawl, python_outcome(final, res, has_rules))
        for (crawl, _), (_, final, res) in python_crawl_hosts(con, responses).items())
    assert {(r["crawl"], r["outcome"]): r["hosts"] for r in rows} == dict(expected)
    assert dict(expected) == {
        ("CC-MAIN-2025-47", "rules"): 350, ("CC-MAIN-2025-47", "no_rules"): 101,
        ("CC-MAIN-2025-47", "empty"): 13, ("CC-MAIN-2025-47", "redirect"): 42,
        ("CC-MAIN-2025-47", "4xx"): 138, ("CC-MAIN-2025-47", "5xx_429"): 20,
        ("CC-MAIN-2025-47", "failed"): 2}
    shares_sum_to_one(rows, key="crawl")


def states_from_agent_verdicts(con):
    """host_states again, from the tested view agent_verdicts: the state of
    each crawler on each host's deciding capture (crawl_hosts)."""
    return {(c, h, a): (s, d) for c, h, a, s, d in con.execute("""
        SELECT h.crawl, h.url_host_name, v.agent,
               CASE WHEN h.base_state IS NOT NULL THEN h.base_state
                    WHEN v.rules_class = 'disallow_all' THEN 'full'
                    WHEN v.rules_class = 'allow_part' THEN 'partial' ELSE 'none' END,
               CASE WHEN h.base_state IS NOT NULL THEN NULL
                    WHEN v.group_match = 'specific' THEN 'named'
                    WHEN v.group_match = 'global' THEN 'wildcard' ELSE 'no_group' END
        FROM crawl_hosts h JOIN agent_verdicts v USING (warc_filename, warc_record_offset)
    """).fetchall()}


def test_crawl_hosts_and_host_states(con, responses):
    hosts = python_crawl_hosts(con, responses)
    got = {(c, h): (hops, f, o, res) for c, h, hops, f, o, res in con.execute(
        "SELECT crawl, url_host_name, hops, warc_filename, warc_record_offset, resolution FROM crawl_hosts"
    ).fetchall()}
    assert got == {k: (hops, f.path, f.offset, res) for k, (hops, f, res) in hosts.items()}
    # base_state, from the final response's status alone (not from the view)
    def base_state(final, res):
        if final.failed:
            return "unreachable"
        if 200 <= final.status < 300:
            return None
        if 300 <= final.status < 400:
            return "no_robots" if res in ("loop", "too_many_hops") else "redirect"
        if 400 <= final.status < 500 and final.status != 429:
            return "no_robots"
        return "unreachable"
    bases = dict(((c, h), b) for c, h, b in con.execute(
        "SELECT crawl, url_host_name, base_state FROM crawl_hosts").fetchall())
    assert bases == {k: base_state(f, res) for k, (_, f, res) in hosts.items()}
    assert collections.Counter(bases.values()) == {None: 464, "no_robots": 138, "redirect": 42,
                                                   "unreachable": 22}
    states = {(c, h, a): (s, d) for c, h, a, s, d in con.execute(
        "SELECT crawl, url_host_name, agent, state, decided_by FROM host_states").fetchall()}
    agents = con.execute("SELECT count(*) FROM agents").fetchone()[0]
    assert len(states) == len(hosts) * agents
    assert states == states_from_agent_verdicts(con)


def test_policy_trends(con, responses):
    cols, rows = run_query(con, "policy_trends")
    assert cols == ["crawl", "agent", "agent_category", "state", "decided_by", "hosts", "share", "state_share"]
    expected = collections.Counter((c, a, s, d) for (c, _, a), (s, d) in states_from_agent_verdicts(con).items())
    assert {(r["crawl"], r["agent"], r["state"], r["decided_by"]): r["hosts"] for r in rows} == dict(expected)
    shares_sum_to_one(rows, key=lambda r: (r["crawl"], r["agent"]))
    # state_share: the rows of one state added up, whoever decided
    in_state = collections.defaultdict(float)
    for r in rows:
        in_state[(r["crawl"], r["agent"], r["state"])] += r["share"]
    for r in rows:
        assert math.isclose(r["state_share"], in_state[(r["crawl"], r["agent"], r["state"])], rel_tol=1e-12), r
    gpt = {(r["state"], r["decided_by"]): r["hosts"] for r in rows if r["agent"] == "GPTBot"}
    assert gpt[("full", "named")] == 37 and gpt[("full", "wildcard")] == 13
    full = {r["state_share"] for r in rows if r["agent"] == "GPTBot" and r["state"] == "full"}
    assert len(full) == 1 and math.isclose(full.pop(), (37 + 13) / 666)
    assert sum(gpt.values()) == len(python_crawl_hosts(con, responses)) == 666


def test_crawler_bias(con):
    cols, rows = run_query(con, "crawler_bias")
    assert cols == ["crawl", "agent", "agent_category", "robots_hosts", "full", "full_share",
                    "wildcard_full_share", "bias"]
    states = con.execute("""
        SELECT crawl, agent, count(*), count(*) FILTER (state = 'full')
        FROM host_states WHERE google_class = 'conditional_allow' GROUP BY ALL""").fetchall()
    share = {(c, a): full / n for c, a, n, full in states}
    for r in rows:
        s, w = share[(r["crawl"], r["agent"])], share[(r["crawl"], "*")]
        assert math.isclose(r["full_share"], s) and math.isclose(r["wildcard_full_share"], w)
        assert (r["bias"] is None) == (s == 0 or w == 0)
        if r["bias"] is not None:
            assert math.isclose(r["bias"], math.log2(s / w))
    by_agent = {r["agent"]: r for r in rows}
    assert by_agent["*"]["bias"] == 0.0
    # 50 of 464 hosts with a 2xx disallow GPTBot everything, 13 disallow *
    assert (by_agent["GPTBot"]["full"], by_agent["GPTBot"]["robots_hosts"]) == (50, 464)
    assert math.isclose(by_agent["GPTBot"]["bias"], math.log2(50 / 13))


def test_line_counts(con, responses):
    cols, rows = run_query(con, "line_counts")
    assert cols == ["crawl", "lines", "captures", "share", "template", "template_captures", "template_share"]
    # the counts over every crawl; the shares and templates per crawl
    shares_sum_to_one(rows, key="crawl")
    rows_all = rows
    rows = of_main(rows)
    # Google's parser ends every line at a line ending (\r\n once), and
    # then emits what follows the last one as a line, even when empty.
    def google_line_count(body):
        body = body[:512_000]
        return body.count(b"\n") + body.count(b"\r") - body.count(b"\r\n") + 1
    parsed = [r for r in responses if r.parsed]
    assert sum(r["captures"] for r in rows_all) == len(parsed) == 481
    responses = main_responses(con, responses)
    got = {r["lines"]: r["captures"] for r in rows}
    parsed = [r for r in responses if r.parsed]
    assert sum(got.values()) == len(parsed)
    lines = dict(((f, o), n) for f, o, n in con.execute(
        "SELECT warc_filename, warc_record_offset, lines FROM captures WHERE robots_parsed AND crawl = ?",
        [MAIN]).fetchall())
    agree = sum(1 for r in parsed if google_line_count(r.body) == lines[(r.path, r.offset)])
    assert agree >= 0.95 * len(parsed), agree
    assert got == dict(collections.Counter(lines.values()))
    shares_sum_to_one(rows)
    # the template most captures of each line count are (ties: first name)
    per = collections.defaultdict(collections.Counter)
    for n, t in con.execute("SELECT lines, template FROM captures WHERE robots_parsed AND template IS NOT NULL "
                            "AND crawl = ?", [MAIN]).fetchall():
        per[n][t] += 1
    for r in rows:
        ranked = sorted(per[r["lines"]].items(), key=lambda kv: (-kv[1], kv[0]))
        assert (r["template"], r["template_captures"]) == (ranked[0] if ranked else (None, 0)), r
        assert r["template_share"] == r["template_captures"] / r["captures"], r
    assert any(r["template"] == "wordpress-4.4" for r in rows)


def test_size_histogram(con, responses):
    cols, rows = run_query(con, "size_histogram")
    assert cols == ["crawl", "lower_bytes", "upper_bytes", "captures", "share", "over_500kib"]
    shares_sum_to_one(rows, key="crawl")
    rows = of_main(rows)
    sizes = [len(r.body) for r in main_responses(con, responses) if r.parsed]
    expected = collections.Counter(0 if s == 0 else 1 << (s.bit_length() - 1) for s in sizes)
    assert {r["lower_bytes"]: r["captures"] for r in rows} == dict(expected)
    for r in rows:
        assert r["upper_bytes"] == (1 if r["lower_bytes"] == 0 else 2 * r["lower_bytes"])
        assert r["over_500kib"] == sum(1 for s in sizes if s > 512_000 and r["lower_bytes"] <= s < r["upper_bytes"])
    assert sum(r["over_500kib"] for r in rows) == 4


def test_data_set(con, facts):
    cols, rows = run_query(con, "data_set")
    assert cols == ["crawl", "files", "captures", "robots_txt_captures", "robots_hosts", "first_fetch",
                    "last_fetch"]
    crawl_of = dict(con.execute("SELECT DISTINCT warc_filename, crawl FROM captures").fetchall())
    expected = collections.defaultdict(lambda: [set(), 0, 0, set()])
    for path in SAMPLES:
        for r in facts[path].responses:
            e = expected[crawl_of[path]]
            e[0].add(path)
            e[1] += 1
            if r.url_path == "/robots.txt":
                e[2] += 1
                e[3].add(r.host)
    assert {r["crawl"]: (r["files"], r["captures"], r["robots_txt_captures"], r["robots_hosts"])
            for r in rows} == {c: (len(f), n, k, len(h)) for c, (f, n, k, h) in expected.items()}
    # the web pages' crawls hold no robots.txt capture
    assert [r["crawl"] for r in rows if r["robots_txt_captures"]] == [MAIN]
    assert [r["crawl"] for r in rows] == sorted(expected)


def test_definitions(con):
    """Each definition's numbers are those of the query or view that counts
    the same population in the same unit (the planted answers:
    test_definitions.py)."""
    cols, rows = run_query(con, "definitions")
    assert cols == ["crawl", "question", "agent", "agent_category", "definition", "numerator", "denominator",
                    "share", "named", "wildcard", "study"]
    got = {(r["crawl"], r["question"], r["agent"], r["definition"]): r for r in rows}
    # one label per figure a study gives: two rows of one question never
    # carry the same study's name (robostats' own aside)
    studies = collections.Counter((r["crawl"], r["question"], r["agent"], r["study"]) for r in rows
                                  if r["study"] != "robostats")
    assert max(studies.values()) == 1, [k for k, n in studies.items() if n > 1]
    # only crawls with a robots.txt capture (the samples' web pages are not)
    assert {r["crawl"] for r in rows} == {c for (c,) in con.execute("SELECT DISTINCT crawl FROM crawl_hosts").fetchall()}
    # per host: host_states from agent_verdicts, counted
    states = states_from_agent_verdicts(con)
    hosts = collections.Counter(c for (c, _, a) in states if a == "*")
    hosts_2xx = collections.Counter(c for (c, _, a), (_, d) in states.items() if a == "*" and d is not None)
    full = collections.Counter((c, a, d) for (c, _, a), (s, d) in states.items() if s == "full")
    for (c, q, a, d), r in got.items():
        if q == "full_block" and d in ("hosts", "hosts_2xx"):
            want = (full[c, a, "named"] + full[c, a, "wildcard"], (hosts if d == "hosts" else hosts_2xx)[c],
                    full[c, a, "named"], full[c, a, "wildcard"])
            assert (r["numerator"], r["denominator"], r["named"], r["wildcard"]) == want, r
    gpt = got["CC-MAIN-2025-47", "full_block", "GPTBot", "hosts"]
    assert (gpt["numerator"], gpt["denominator"], gpt["named"], gpt["wildcard"]) == (50, 666, 37, 13)
    assert got["CC-MAIN-2025-47", "full_block", "GPTBot", "hosts_2xx"]["denominator"] == 464
    # per capture: agent_verdicts counted in the crawl
    per_capture = {(c, a): (n, full, named, wildcard) for c, a, n, full, named, wildcard in con.execute("""
        SELECT c.crawl, v.agent, count(*), count(*) FILTER (v.rules_class = 'disallow_all'),
               count(*) FILTER (v.rules_class = 'disallow_all' AND v.group_match = 'specific'),
               count(*) FILTER (v.rules_class = 'disallow_all' AND v.group_match = 'global')
        FROM agent_verdicts v JOIN captures c USING (warc_filename, warc_record_offset)
        WHERE c.robots_parsed GROUP BY ALL""").fetchall()}
    for (c, q, a, d), r in got.items():
        if q == "full_block" and d == "captures":
            n, f, named, wildcard = per_capture[c, a]
            assert (r["numerator"], r["denominator"], r["named"], r["wildcard"]) == (f, n, named, wildcard), r
    # Common Crawl's outcomes: host_outcomes (over all crawls: the samples'
    # robots.txt captures are of one crawl)
    outcomes = {r["outcome"]: r["hosts"] for r in run_query(con, "host_outcome_shares")[1]}
    cc = got["CC-MAIN-2025-47", "has_robots_txt", None, "cc_hosts_with_rules"]
    assert (cc["numerator"], cc["denominator"]) == (outcomes["robots_txt_with_rules"], sum(outcomes.values()))
    cc = got["CC-MAIN-2025-47", "has_robots_txt", None, "cc_hosts_robots_txt"]
    assert cc["numerator"] == outcomes["robots_txt_with_rules"] + outcomes["robots_txt_no_rules"]
    # outcomes_per_crawl's rules are the hosts with rules
    rules = {r["outcome"]: r["hosts"] for r in run_query(con, "outcomes_per_crawl")[1]}
    with_rules = got["CC-MAIN-2025-47", "has_robots_txt", None, "hosts_with_rules"]
    assert (with_rules["numerator"], with_rules["denominator"]) == (rules["rules"], sum(rules.values()))
    for r in rows:
        assert r["share"] == (r["numerator"] / r["denominator"] if r["denominator"] else None), r


def test_no_ai_training_hosts(con):
    """The hosts and crawlers of agent_verdicts on each host's deciding
    capture that may fetch / and are told no AI training; counted, the
    definitions' numerator."""
    cols, rows = run_query(con, "no_ai_training_hosts")
    assert cols == ["crawl", "url_host_name", "url", "captures", "agents", "named_agents", "by_signal", "by_usage",
                    "cloudflare_managed", "warc_filename", "warc_record_offset"]
    want = set(con.execute("""
        SELECT h.crawl, h.url_host_name, v.agent
        FROM crawl_hosts h JOIN agent_verdicts v USING (warc_filename, warc_record_offset)
        WHERE v.root_allowed AND 'n' IN (v.usage_train_ai, v.signal_ai_train)""").fetchall())
    assert {(r["crawl"], r["url_host_name"], a) for r in rows for a in r["agents"]} == want
    assert len(rows) == len({(c, h) for c, h, _ in want}) > 10
    definitions = {(r["crawl"], r["agent"]): r["numerator"] for r in run_query(con, "definitions")[1]
                   if r["question"] == "no_ai_training" and r["definition"] == "hosts"}
    counted = collections.Counter((r["crawl"], a) for r in rows for a in r["agents"])
    assert {k: v for k, v in definitions.items() if v} == dict(counted)


def test_by_rank(con):
    """Without a rank list (robostats_ranks unset) every host is unranked:
    one band per crawl, whose rows are definitions.sql's (the planted
    bands: test_by_rank.py)."""
    _, rows = run_query(con, "by_rank")
    _, whole = run_query(con, "definitions")
    assert rows and all(r["band_first"] is None and r["band_last"] is None for r in rows)
    assert [{k: v for k, v in r.items() if k not in ("band_first", "band_last")} for r in rows] == whole
