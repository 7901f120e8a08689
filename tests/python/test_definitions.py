"""queries/definitions.sql and queries/no_ai_training_hosts.sql on planted
data with known answers: every numerator and denominator below is counted
by hand from the plan, host by host, not computed by another query.

The plan (PLAN) is two crawls of robots.txt fetches, written here with
warcio, and a third crawl holding only a web page (not a crawl of
robots.txt: not listed). Crawl A plants the cases on which the studies'
definitions part: a host refetched (an earlier capture blocks GPTBot, the
latest does not), a host refetched whose earlier capture says no to AI
training, 404, 403 and 503 hosts, a comment-only file, an HTML page served
as robots.txt, a redirect loop, a resolved redirect, two hosts of one
registered domain, and a host whose latest robots.txt URL answers 503
while its other URL serves a 200 (the deciding capture says unreachable;
Common Crawl's precedence takes the 200).
"""

import io
from datetime import datetime, timedelta, timezone

import pytest
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from conftest import connect, ingest, run_query

A, B, C = "CC-MAIN-2025-05", "CC-MAIN-2025-13", "CC-MAIN-2024-22"

GPTBOT_BLOCKED = b"User-agent: GPTBot\nDisallow: /\n"
ALL_BLOCKED = b"User-agent: *\nDisallow: /\n"
ALL_ALLOWED = b"User-agent: *\nAllow: /\n"
NO_TRAINING = b"User-agent: *\nContent-Signal: search=yes, ai-train=no\nAllow: /\n"
# GPTBot's own group lets it fetch and says no training; * blocks the rest
GPTBOT_NO_TRAINING = (b"User-agent: GPTBot\nContent-Usage: train-ai=n\nAllow: /\n\n"
                      b"User-agent: *\nDisallow: /\n")
HTML = b"<!DOCTYPE html><html><body>Not a robots.txt</body></html>\n"

# (crawl, url, status, body, Location, Content-Type), in fetch order.
PLAN = [
    (A, "https://named.example/robots.txt", 200, GPTBOT_BLOCKED, None, None),
    (A, "https://star.example/robots.txt", 200, ALL_BLOCKED, None, None),
    (A, "https://refetch.example/robots.txt", 200, GPTBOT_BLOCKED, None, None),
    (A, "https://signal.example/robots.txt", 200, NO_TRAINING, None, None),
    (A, "https://refetch-signal.example/robots.txt", 200, NO_TRAINING, None, None),
    (A, "https://usage-named.example/robots.txt", 200, GPTBOT_NO_TRAINING, None, None),
    (A, "https://notfound.example/robots.txt", 404, b"not found\n", None, None),
    (A, "https://unavailable.example/robots.txt", 503, b"busy\n", None, None),
    (A, "https://comment.example/robots.txt", 200, b"# nothing for crawlers here\n", None, None),
    (A, "http://loop.example/robots.txt", 301, b"", "https://loop.example/robots.txt", None),
    (A, "https://loop.example/robots.txt", 301, b"", "http://loop.example/robots.txt", None),
    (A, "https://forbidden.example/robots.txt", 403, b"forbidden\n", None, None),
    (A, "https://html.example/robots.txt", 200, HTML, None, "text/html"),
    (A, "http://moved.example/robots.txt", 301, b"", "https://moved.example/robots.txt", None),
    (A, "https://moved.example/robots.txt", 200, b"User-agent: *\nDisallow: /private/\n", None, None),
    (A, "https://a.shop.example/robots.txt", 200, ALL_ALLOWED, None, None),
    (A, "https://b.shop.example/robots.txt", 200, b"User-agent: CCBot\nDisallow: /\n", None, None),
    (A, "https://split.example/robots.txt", 200, GPTBOT_BLOCKED, None, None),
    # the refetches: later, so they decide
    (A, "https://refetch.example/robots.txt", 200, ALL_ALLOWED, None, None),
    (A, "https://refetch-signal.example/robots.txt", 200, ALL_ALLOWED, None, None),
    (A, "http://split.example/robots.txt", 503, b"busy\n", None, None),
    (B, "https://named.example/robots.txt", 200, ALL_ALLOWED, None, None),
    (B, "https://late.example/robots.txt", 200, ALL_BLOCKED, None, None),
    (C, "https://page.example/index.html", 200, HTML, None, "text/html"),
]

REASONS = {200: "OK", 301: "Moved Permanently", 403: "Forbidden", 404: "Not Found", 429: "Too Many Requests",
           503: "Service Unavailable"}

# Crawl A by hand: 16 robots.txt hosts (named, star, refetch, signal,
# refetch-signal, usage-named, notfound, unavailable, comment, loop,
# forbidden, html, moved, a.shop, b.shop, split); 21 captures, 14 of them
# parsed 2xx (13 valid: all but the HTML page, served as text/plain); 11
# hosts decided by a parsed 2xx (not notfound, unavailable, loop, forbidden
# nor split), 12 with the 404.
#
# {(crawl, question, agent, definition): (numerator, denominator, named, wildcard)}
EXPECTED = {
    # GPTBot fully blocked: captures named (named, refetch's first, split's
    # 200) and by * (star)
    (A, "full_block", "GPTBot", "captures"): (4, 14, 3, 1),
    # ... and the two 503s
    (A, "full_block", "GPTBot", "captures_effective"): (6, 21, 3, 1),
    # captures naming GPTBot: named, refetch's first, usage-named, split's 200
    (A, "full_block", "GPTBot", "captures_named"): (3, 4, 3, 0),
    # hosts: named (named), star (*); refetch's latest allows, split's is a 503
    (A, "full_block", "GPTBot", "hosts"): (2, 16, 1, 1),
    (A, "full_block", "GPTBot", "hosts_2xx"): (2, 11, 1, 1),
    (A, "full_block", "GPTBot", "hosts_2xx_404"): (2, 12, 1, 1),
    # Common Crawl's precedence takes split's 200 over its later 503
    (A, "full_block", "GPTBot", "cc_hosts"): (3, 16, 2, 1),
    # CCBot: b.shop names it; star and usage-named block it by *
    (A, "full_block", "CCBot", "captures"): (3, 14, 1, 2),
    (A, "full_block", "CCBot", "hosts"): (3, 16, 1, 2),
    (A, "full_block", "CCBot", "hosts_2xx"): (3, 11, 1, 2),
    (A, "full_block", "CCBot", "cc_hosts"): (3, 16, 1, 2),
    # AdsBot-Google ignores *: blocked only by the 503s
    (A, "full_block", "AdsBot-Google", "captures"): (0, 14, 0, 0),
    (A, "full_block", "AdsBot-Google", "captures_effective"): (2, 21, 0, 0),
    (A, "full_block", "AdsBot-Google", "hosts"): (0, 16, 0, 0),
    # at least one AI crawler (CCBot's category is archive): named (GPTBot
    # named), star and usage-named (by *)
    (A, "full_block", None, "hosts_2xx_any_ai"): (3, 11, 1, 2),
    # 15 registered domains (a.shop and b.shop are shop.example): named and
    # shop.example (b names CCBot), star and usage-named (by *)
    (A, "full_block", None, "fan_domains"): (4, 15, 2, 2),
    (A, "has_robots_txt", None, "captures"): (14, 21, None, None),
    (A, "has_robots_txt", None, "captures_valid"): (13, 21, None, None),
    (A, "has_robots_txt", None, "hosts"): (11, 16, None, None),
    (A, "has_robots_txt", None, "hosts_200"): (11, 16, None, None),
    # not comment (no rule) nor html
    (A, "has_robots_txt", None, "hosts_with_rules"): (9, 16, None, None),
    # Common Crawl: 10 with rules (split's 200 included), comment without
    (A, "has_robots_txt", None, "cc_hosts_robots_txt"): (11, 16, None, None),
    (A, "has_robots_txt", None, "cc_hosts_with_rules"): (10, 16, None, None),
    # GPTBot told no training where it may fetch: signal and
    # refetch-signal's first (by *), usage-named (its own group)
    (A, "no_ai_training", "GPTBot", "captures"): (3, 14, 1, 2),
    # of the 10 parsed captures letting it fetch / (not named, star,
    # refetch's first, split's 200)
    (A, "no_ai_training", "GPTBot", "captures_may_fetch"): (3, 10, 1, 2),
    # per host: refetch-signal's latest says nothing
    (A, "no_ai_training", "GPTBot", "hosts"): (2, 16, 1, 1),
    (A, "no_ai_training", "GPTBot", "hosts_2xx"): (2, 11, 1, 1),
    # CCBot may not fetch usage-named (* blocks it)
    (A, "no_ai_training", "CCBot", "captures"): (2, 14, 0, 2),
    (A, "no_ai_training", "CCBot", "hosts"): (1, 16, 0, 1),
    # crawl B: named now allows all; late blocks all
    (B, "full_block", "GPTBot", "captures"): (1, 2, 0, 1),
    (B, "full_block", "GPTBot", "hosts"): (1, 2, 0, 1),
    (B, "has_robots_txt", None, "hosts"): (2, 2, None, None),
}


def write_plan(directory, plan=PLAN):
    """A WARC file per crawl (a file's warcinfo names its crawl); returns
    their paths."""
    start = {A: datetime(2025, 1, 20, tzinfo=timezone.utc), B: datetime(2025, 3, 20, tzinfo=timezone.utc),
             C: datetime(2024, 5, 20, tzinfo=timezone.utc)}
    paths = []
    for crawl in (A, B, C):
        path = directory / f"{crawl}.warc.gz"
        paths.append(str(path))
        with open(path, "wb") as f:
            writer = WARCWriter(f, gzip=True)
            writer.write_record(writer.create_warcinfo_record(path.name, {"isPartOf": crawl}))
            for i, (c, url, status, body, location, content_type) in enumerate(plan):
                if c != crawl:
                    continue
                headers = [("Content-Type", content_type or "text/plain")]
                if location:
                    headers.append(("Location", location))
                http = StatusAndHeaders(f"{status} {REASONS[status]}", headers, protocol="HTTP/1.1")
                date = (start[crawl] + timedelta(minutes=i)).strftime("%Y-%m-%dT%H:%M:%SZ")
                writer.write_record(writer.create_warc_record(
                    url, "response", payload=io.BytesIO(body), http_headers=http,
                    warc_headers_dict={"WARC-Date": date}))
    return paths


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    d = tmp_path_factory.mktemp("definitions")
    out = d / "out"
    ingest(write_plan(d), out)
    con = connect(out)
    yield con
    con.close()


def test_the_plan_is_ingested_as_planned(planted):
    crawls = dict(planted.sql("SELECT crawl, count(*) FROM captures GROUP BY ALL").fetchall())
    assert crawls == {A: 21, B: 2, C: 1}
    domains = planted.sql("SELECT DISTINCT url_host_registered_domain FROM captures "
                          "WHERE url_host_name LIKE '%shop.example'").fetchall()
    assert domains == [("shop.example",)]
    loop = planted.sql("SELECT resolution, base_state FROM crawl_hosts WHERE url_host_name = 'loop.example'")
    assert loop.fetchall() == [("loop", "no_robots")]


def test_definitions_give_the_planted_answers(planted):
    cols, rows = run_query(planted, "definitions")
    assert cols == ["crawl", "question", "agent", "agent_category", "definition", "numerator", "denominator",
                    "share", "named", "wildcard", "study"]
    # crawl C holds no robots.txt: not listed
    assert {r["crawl"] for r in rows} == {A, B}
    got = {(r["crawl"], r["question"], r["agent"], r["definition"]):
           (r["numerator"], r["denominator"], r["named"], r["wildcard"]) for r in rows}
    wrong = {k: (got.get(k), v) for k, v in EXPECTED.items() if got.get(k) != v}
    assert not wrong, wrong
    for r in rows:
        assert r["share"] == (r["numerator"] / r["denominator"] if r["denominator"] else None), r
        assert r["study"], r
        if r["agent"] is not None:
            # one crawler: each block decided once, by its group or by *
            assert r["named"] + r["wildcard"] <= r["numerator"], r
        if r["question"] == "full_block" and r["agent"] is not None:
            assert r["named"] + r["wildcard"] == r["numerator"] or r["definition"] == "captures_effective", r
    # every crawler of the agents table, each definition once per crawl
    agents = [a for (a,) in planted.sql("SELECT token FROM agents").fetchall()]
    per_agent = {(r["crawl"], r["question"], r["definition"]) for r in rows if r["agent"] is not None}
    for key in per_agent:
        assert sorted(r["agent"] for r in rows
                      if (r["crawl"], r["question"], r["definition"]) == key) == sorted(agents), key


def test_no_ai_training_hosts_gives_the_planted_hosts(planted):
    _, rows = run_query(planted, "no_ai_training_hosts")
    hosts = {(r["crawl"], r["url_host_name"]): r for r in rows}
    # refetch-signal said no in its earlier capture only
    assert set(hosts) == {(A, "signal.example"), (A, "usage-named.example")}
    assert hosts[A, "usage-named.example"]["agents"] == ["GPTBot"]
    assert hosts[A, "usage-named.example"]["named_agents"] == ["GPTBot"]
    assert hosts[A, "usage-named.example"]["by_usage"] and not hosts[A, "usage-named.example"]["by_signal"]
    signal = hosts[A, "signal.example"]
    assert "GPTBot" in signal["agents"] and "CCBot" in signal["agents"] and "*" in signal["agents"]
    assert "AdsBot-Google" not in signal["agents"]  # it ignores the * group
    assert signal["named_agents"] == [] and signal["by_signal"] and not signal["by_usage"]
    assert signal["url"] == "https://signal.example/robots.txt" and signal["captures"] == 1
