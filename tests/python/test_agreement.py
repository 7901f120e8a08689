"""Figures and queries agree: on planted data, every query that shows a
quantity (and so the figure drawn from it: test_report.py checks each
figure against its query) shows the same one.

The plan is test_definitions.py's (a refetched host, 404, 403 and 503
hosts, a comment-only file, an HTML page, a redirect loop, a resolved
redirect, a host whose two URLs disagree, a crawl of web pages only) and
more: a chain of six redirects, a 429, an empty file beside the
comment-only one (the same ruleset, one of them a template).
"""

import collections

import pytest

from conftest import connect, ingest, run_query
from test_definitions import ALL_BLOCKED, GPTBOT_BLOCKED, PLAN, A, B, C, write_plan

SIX_HOPS = [(A, f"https://hops.example/{i}/robots.txt" if i else "https://hops.example/robots.txt", 301, b"",
             f"https://hops.example/{i + 1}/robots.txt", None) for i in range(6)]
MORE = SIX_HOPS + [
    (A, "https://hops.example/6/robots.txt", 200, ALL_BLOCKED, None, None),
    (A, "https://slow.example/robots.txt", 429, b"slow down\n", None, None),
    (A, "https://empty.example/robots.txt", 200, b"", None, None),
    (B, "https://gone.example/robots.txt", 404, b"gone\n", None, None),
    (B, "https://named.example/robots.txt", 200, GPTBOT_BLOCKED, None, None),
]

# Each outcome of outcomes_per_crawl (figure 1) and the state it gives
# every crawler in host_states (figure 2), as docs/crawls.md says.
BASE_STATE = {"rules": None, "no_rules": None, "empty": None, "4xx": "no_robots",
              "too_many_hops": "no_robots", "redirect": "redirect", "5xx_429": "unreachable",
              "failed": "unreachable"}


@pytest.fixture(scope="module")
def con(tmp_path_factory):
    d = tmp_path_factory.mktemp("agreement")
    out = d / "out"
    ingest(write_plan(d, PLAN + MORE), out)
    con = connect(out)
    yield con
    con.close()


def test_a_loop_and_six_hops_are_one_state_everywhere(con):
    for host, resolution in [("loop.example", "loop"), ("hops.example", "too_many_hops")]:
        assert con.execute("SELECT resolution, outcome, base_state FROM crawl_hosts WHERE url_host_name = ?",
                           [host]).fetchall() == [(resolution, "too_many_hops", "no_robots")]
        assert {s for (s,) in con.execute("SELECT DISTINCT state FROM host_states WHERE url_host_name = ?",
                                          [host]).fetchall()} == {"no_robots"}
        # Common Crawl's: allow all, as after more than 5 hops
        assert con.execute("SELECT outcome FROM host_outcomes WHERE url_host_name = ?",
                           [host]).fetchall() == [("allow_all",)]


def test_figure_1_and_figure_2_count_the_same_hosts(con):
    _, outcomes = run_query(con, "outcomes_per_crawl")
    _, trends = run_query(con, "policy_trends")
    agents = [a for (a,) in con.sql("SELECT token FROM agents").fetchall()]
    crawls = {r["crawl"] for r in outcomes}
    assert crawls == {A, B}  # C holds web pages only
    for crawl in crawls:
        per_state = collections.Counter()
        for r in outcomes:
            if r["crawl"] == crawl:
                assert r["base_state"] == BASE_STATE[r["outcome"]], r
                per_state[r["base_state"] or "rules_decide"] += r["hosts"]
        shares = collections.Counter()
        for r in outcomes:
            if r["crawl"] == crawl:
                shares[r["base_state"] or "rules_decide"] += r["share"]
        for agent in agents:
            rows = [r for r in trends if r["crawl"] == crawl and r["agent"] == agent]
            states = collections.Counter()
            state_share = {}
            for r in rows:
                key = r["state"] if r["state"] in ("no_robots", "unreachable", "redirect") else "rules_decide"
                states[key] += r["hosts"]
                state_share[key] = state_share.get(key, 0) + r["share"]
            assert states == per_state, (crawl, agent)
            for key, share in state_share.items():
                assert share == pytest.approx(shares[key]), (crawl, agent, key)
    by = {(r["crawl"], r["outcome"]): r["hosts"] for r in outcomes}
    # 404 and 403; the 503, split.example's latest 503 and the 429
    assert by[A, "too_many_hops"] == 2 and by[A, "4xx"] == 2 and by[A, "5xx_429"] == 3
    assert by[A, "empty"] == 1 and by[B, "4xx"] == 1


def test_full_blocks_are_the_definitions_numbers(con):
    _, definitions = run_query(con, "definitions")
    defined = {(r["crawl"], r["agent"], r["definition"]): r for r in definitions
               if r["question"] == "full_block"}
    _, trends = run_query(con, "policy_trends")
    _, bias = run_query(con, "crawler_bias")
    for crawl in (A, B):
        for agent in ("GPTBot", "CCBot", "*"):
            full = [r for r in trends if (r["crawl"], r["agent"], r["state"]) == (crawl, agent, "full")]
            hosts = defined[crawl, agent, "hosts"]
            assert sum(r["hosts"] for r in full) == hosts["numerator"], (crawl, agent)
            assert sum(r["share"] for r in full) == pytest.approx(hosts["share"])
            named = sum(r["hosts"] for r in full if r["decided_by"] == "named")
            assert (named, sum(r["hosts"] for r in full) - named) == (hosts["named"], hosts["wildcard"])
            (b,) = [r for r in bias if (r["crawl"], r["agent"]) == (crawl, agent)]
            two = defined[crawl, agent, "hosts_2xx"]
            assert (b["full"], b["robots_hosts"]) == (two["numerator"], two["denominator"]), (crawl, agent)
    # per capture, over the whole data set (ai_crawler_blocking has no
    # crawl): crawls A and B, and crawl C's web page, a parsed 2xx too
    # (definitions.sql lists only crawls with a robots.txt)
    _, blocking = run_query(con, "ai_crawler_blocking")
    ((page,),) = con.execute("SELECT count(*) FROM captures WHERE crawl = ? AND robots_parsed", [C]).fetchall()
    assert page == 1
    for agent in ("GPTBot", "CCBot"):
        (row,) = [r for r in blocking if r["agent"] == agent]
        per_crawl = [defined[crawl, agent, "captures"] for crawl in (A, B)]
        assert row["disallow_all"] == sum(d["numerator"] for d in per_crawl)
        assert row["robots_txt"] == sum(d["denominator"] for d in per_crawl) + page


def test_every_crawl_listed_holds_robots_txt_and_hosts_count_once(con):
    _, data_set = run_query(con, "data_set")
    robots_hosts = {r["crawl"]: r["robots_hosts"] for r in data_set}
    assert robots_hosts[C] == 0
    hosts = dict(con.sql("SELECT crawl, count(*) FROM crawl_hosts GROUP BY ALL").fetchall())
    assert hosts == {crawl: n for crawl, n in robots_hosts.items() if n}
    _, outcomes = run_query(con, "outcomes_per_crawl")
    for crawl, n in hosts.items():
        assert sum(r["hosts"] for r in outcomes if r["crawl"] == crawl) == n
    _, copies = run_query(con, "duplicate_bodies")
    assert [r["crawl"] for r in copies] == [A, B]
    parsed = dict(con.sql("SELECT crawl, count(*) FROM crawl_hosts WHERE robots_parsed GROUP BY ALL").fetchall())
    assert {r["crawl"]: r["hosts"] for r in copies} == parsed
    for query in ("definitions", "policy_trends", "crawler_bias", "templates", "top_rulesets"):
        assert {r["crawl"] for r in run_query(con, query)[1]} <= {A, B}, query


def test_top_rulesets_and_templates_agree_on_a_templates_hosts(con):
    # the empty file, the comment-only one and the HTML page (no rules):
    # one ruleset, one template (the empty file's)
    _, top = run_query(con, "top_rulesets")
    _, templates = run_query(con, "templates")
    empty = {r["crawl"]: r for r in templates if r["template"] == "empty"}
    (ruleset,) = [r for r in top if r["crawl"] == A and r["template"] == "empty"]
    assert (ruleset["hosts"], ruleset["template_hosts"]) == (3, 1)
    assert empty[A]["hosts"] == ruleset["template_hosts"]
    for r in top:
        if r["template"]:
            (t,) = [t for t in templates if (t["crawl"], t["template"]) == (r["crawl"], r["template"])]
            assert r["template_hosts"] <= t["hosts"]
