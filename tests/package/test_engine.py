"""The engine from Python: Google's whole test suite through `RobotsTxt`,
`can_fetch_many` and DuckDB's `robots_can_fetch` (the Arrow function and
the native one) with the library policy (Google's C++ library's answers,
whatever the agent), the default policy's refusals and AdsBot answers,
and the typed answers of `explain`, `preferences`, `lint`, `lines` and
the digests."""

import duckdb
import pyarrow as pa
import pytest

import robostats_cc as robostats

from conftest import ROOT, field_bytes


def test_google_verdicts_all_145_through_robotstxt(google_verdicts):
    failures = [
        c for c in google_verdicts
        if robostats.RobotsTxt(field_bytes(c, "robotstxt")).can_fetch(c["url"], c["user_agent"], policy="library")
        != c["allowed"]
    ]
    assert not failures, failures


def test_google_verdicts_all_145_through_can_fetch_many(google_verdicts):
    got = robostats.can_fetch_many(
        [field_bytes(c, "robotstxt") for c in google_verdicts],
        [c["user_agent"] for c in google_verdicts],
        [c["url"] for c in google_verdicts],
        policy="library",
    )
    assert isinstance(got, pa.BooleanArray) and got.null_count == 0
    assert got.to_pylist() == [c["allowed"] for c in google_verdicts]


@pytest.mark.parametrize("native", [False, True], ids=["arrow", "native"])
@pytest.mark.parametrize("body_type", ["BLOB", "VARCHAR"])
def test_google_verdicts_all_145_through_duckdb(google_verdicts, body_type, native):
    rows = [c for c in google_verdicts if body_type == "BLOB" or _is_utf8(field_bytes(c, "robotstxt"))]
    if body_type == "VARCHAR":
        assert len(rows) >= 140
    bodies = [field_bytes(c, "robotstxt") for c in rows]
    table = pa.table({
        "i": list(range(len(rows))),
        "body": pa.array(bodies, pa.binary()) if body_type == "BLOB" else pa.array([b.decode() for b in bodies]),
        "agent": [c["user_agent"] for c in rows],
        "url": [c["url"] for c in rows],
    })
    if native:
        con = robostats.register(duckdb.connect(config={"allow_unsigned_extensions": "true"}), native=True)
    else:
        con = robostats.register(duckdb.connect())
    assert robostats.native_duckdb(con) == native
    con.register("cases", table)
    got = con.sql("SELECT robots_can_fetch(body, agent, url, 'library') FROM cases ORDER BY i").fetchall()
    assert [g[0] for g in got] == [c["allowed"] for c in rows]
    # The default policy: the same answers for every product token (no
    # special-case crawler is among them); the three cases with an agent
    # that is none ('Foo Bar', '') are refused.
    tokens = [i for i, c in enumerate(rows) if robostats.is_valid_user_agent_to_obey(c["user_agent"])]
    assert len(tokens) == len(rows) - 3
    con.execute("CREATE TEMP TABLE tokens AS SELECT * FROM cases WHERE i IN (SELECT unnest(?))", [tokens])
    got = con.sql("SELECT robots_can_fetch(body, agent, url) FROM tokens ORDER BY i").fetchall()
    assert [g[0] for g in got] == [rows[i]["allowed"] for i in tokens]
    with pytest.raises(duckdb.Error, match="not a product token"):
        con.sql("SELECT robots_can_fetch(body, agent, url) FROM cases").fetchall()


def _is_utf8(b):
    try:
        b.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


TAGS = {"user-agent": "UserAgent", "allow": "Allow", "disallow": "Disallow", "sitemap": "Sitemap"}


def _tag(line):
    if line.directive in TAGS:
        return TAGS[line.directive]
    return "Unused" if line.known_elsewhere else "Unknown"


def _stats(body):
    """What robots_test.cc's RobotsStatsReporter counts."""
    valid = unknown = last = 0
    sitemap = ""
    for line in robostats.RobotsTxt(body, size_limit=False).lines():
        if line.directive is None:
            continue
        if line.directive == "unknown":
            unknown += 1
        else:
            valid += 1
            if line.directive == "sitemap":
                sitemap += line.value
        last = line.number
    return {"valid_directives": valid, "unknown_directives": unknown, "last_line_seen": last, "sitemap": sitemap}


def _report(body):
    """What reporting_robots.cc's RobotsParsingReporter reports."""
    lines = robostats.RobotsTxt(body, size_limit=False).lines()
    return {
        "valid_directives": sum(1 for l in lines if l.directive in TAGS),
        "last_line_seen": len(lines),
        "parse_results_size": len(lines),
        "lines": [
            {"line_num": l.number, "tag_name": _tag(l), "is_typo": l.flags["is_acceptable_typo"], "metadata": l.flags}
            for l in lines
        ],
    }


def _check(got, expected):
    for field, want in expected.items():
        if field == "lines":
            for line in want:
                assert got["lines"][line["line_num"] - 1] == line
        else:
            assert got[field] == want, field


def test_google_parse_assertions_all_85(google_parse_tests):
    assertions = 0
    for r in google_parse_tests:
        kind, expected = r["kind"], r["expected"]
        if kind == "is_valid_user_agent_to_obey":
            assert robostats.is_valid_user_agent_to_obey(r["user_agent"]) == expected, r
        elif kind == "get_path_params_query":
            assert robostats.path_params_query(r["url"]) == expected, r
        elif kind == "maybe_escape_pattern":
            assert robostats.escape_pattern(field_bytes(r, "pattern")) == expected, r
        elif kind == "parse_stats":
            _check(_stats(field_bytes(r, "input")), expected)
        elif kind == "parse_report":
            _check(_report(field_bytes(r, "input")), expected)
        else:
            raise AssertionError(kind)
        assertions += r["assertions"]
    assert assertions == 85


def test_google_callbacks_are_the_lines(google_parse_tests):
    """Every directive callback Google's parser makes, with its line and
    (escaped) value, is a line of `lines()`."""
    checked = 0
    for r in google_parse_tests:
        if "google_callbacks" not in r:
            continue
        lines = {l.number: l for l in robostats.RobotsTxt(field_bytes(r, "input"), size_limit=False).lines()}
        for cb in r["google_callbacks"]:
            if cb["cb"] in ("start", "end"):
                continue
            line = lines[cb["line"]]
            if cb["cb"] == "line_metadata":
                assert line.flags == {k: v for k, v in cb.items() if k not in ("cb", "line")}
                continue
            assert line.directive == cb["cb"]
            value = line.pattern if line.pattern is not None else line.value
            if "value" in cb:
                assert value == cb["value"], (r["test"], cb)
            checked += 1
    assert checked > 50


BODY = (
    b"Sitemap: https://example.com/a.xml\n"
    b"Content-Signal: search=yes, ai-train=no\n"
    b"User-agent: GPTBot\n"
    b"Disallow: /private\n"
    b"Allow: /private/open\n"
    b"\n"
    b"User-agent: *\n"
    b"Dissalow: /tmp\n"
    b"Content-Usage: train-ai=n\n"
    b"Crawl-delay: 5\n"
    b"sitemap: https://example.com/b.xml\n"
)


def test_explain_names_the_group_the_rule_and_the_preferences():
    robots = robostats.RobotsTxt(BODY)
    e = robots.explain("https://example.com/private/x", "GPTBot")
    assert (e.allowed, e.group, e.group_lines, e.line, e.rule, e.pattern) == (False, "specific", [3], 4, "disallow", "/private")
    # Preferences apply only where the crawler may fetch.
    assert e.preferences.signal_ai_train is None
    e = robots.explain("https://example.com/private/open/1", "gptbot")
    assert (e.allowed, e.line, e.rule, e.pattern) == (True, 5, "allow", "/private/open")
    e = robots.explain("https://example.com/tmp/1", "Bingbot")
    assert (e.allowed, e.group, e.group_lines, e.line, e.rule) == (False, "global", [7], 8, "disallow")
    e = robots.explain("https://example.com/", "Bingbot")
    assert (e.allowed, e.line, e.rule, e.pattern) == (True, None, None, None)
    assert e.preferences.usage_train_ai == "n" and e.preferences.usage_line == 9
    assert e.preferences.signal_ai_train == "n" and e.preferences.signal_scope == "file"
    assert "allowed=True" in repr(e)
    e = robostats.RobotsTxt(b"").explain("/", "GPTBot")
    assert (e.allowed, e.group, e.group_lines) == (True, "none", [])
    # AdsBot-Google ignores the * group by Google's documented policy (the
    # default); Google's library applies it.
    e = robots.explain("https://example.com/tmp/1", "AdsBot-Google")
    assert (e.allowed, e.group, e.ignores_global_group) == (True, "none", False)
    e = robots.explain("https://example.com/tmp/1", "AdsBot-Google", policy="library")
    assert (e.allowed, e.group, e.ignores_global_group) == (False, "global", True)
    # Its preferences follow its policy: only what is written for the whole
    # file (the Content-Signal line before any group), not the * group's
    # Content-Usage rule.
    e = robots.explain("https://example.com/", "AdsBot-Google")
    assert (e.preferences.signal_ai_train, e.preferences.usage_train_ai) == ("n", "unknown")
    assert robots.preferences("AdsBot-Google").usage_train_ai == "unknown"
    assert robots.preferences("Bingbot").usage_train_ai == "n"


def test_preferences_resolve_as_the_tables_columns():
    robots = robostats.RobotsTxt(BODY)
    p = robots.preferences("GPTBot")
    assert p.as_dict() == {
        "usage_train_ai": "unknown", "usage_search": "unknown", "usage_line": None,
        "signal_search": "y", "signal_ai_train": "n", "signal_ai_input": "unknown",
        "signal_use": "unknown", "signal_line": 2, "signal_scope": "file",
    }
    assert robots.preferences("CCBot").usage_train_ai == "n"
    assert robots.preferences("CCBot") == robots.preferences("Bingbot")
    assert robots.preferences("CCBot") != p
    blocked = robostats.RobotsTxt(b"User-agent: *\nDisallow: /\nContent-Usage: train-ai=n\n")
    assert set(blocked.preferences("CCBot").as_dict().values()) == {None}


def test_lint_sitemaps_lines_digests():
    robots = robostats.RobotsTxt(BODY)
    assert robots.sitemaps == ["https://example.com/a.xml", "https://example.com/b.xml"]
    kinds = {(f.line, f.kind) for f in robots.lint()}
    assert (8, "accepted_typo") in kinds and (10, "known_elsewhere") in kinds
    typo = next(f for f in robots.lint() if f.kind == "accepted_typo")
    assert typo.text == "typo of 'disallow', accepted by Google"
    lines = robots.lines()
    assert [l.directive for l in lines[:4]] == ["sitemap", "unknown", "user-agent", "disallow"]
    assert lines[7].key == "Dissalow" and lines[7].flags["is_acceptable_typo"]
    assert robots.body == BODY
    assert len(robots.body_digest) == 64 and len(robots.ruleset_digest) == 32
    # The same rules written differently: one ruleset, two bodies.
    other = robostats.RobotsTxt(BODY.replace(b"\n", b"\r\n") + b"# a comment\n")
    assert other.ruleset_digest == robots.ruleset_digest and other.body_digest != robots.body_digest
    assert robostats.RobotsTxt(BODY.decode()).body_digest == robots.body_digest


def test_templates_are_recognised():
    index = (ROOT / "crates" / "robostats-rows" / "data" / "templates")
    found = 0
    for path in sorted(index.glob("*.txt")):
        text = path.read_bytes()
        if b"{PATH}" in text or b"{ID}" in text:
            text = text.replace(b"{PATH}", b"").replace(b"{ID}", b"1234")
        if robostats.RobotsTxt(text).template is not None:
            found += 1
    assert found >= 5
    assert robostats.RobotsTxt(b"User-agent: *\nDisallow: /secret-thing-42\n").template is None


def test_size_limit_is_googles_crawlers():
    body = b"User-agent: *\n" + b"#" * 600_000 + b"\nDisallow: /\n"
    assert robostats.RobotsTxt(body).can_fetch("/x", "GPTBot")
    assert not robostats.RobotsTxt(body, size_limit=False).can_fetch("/x", "GPTBot")
    assert "parsed to 500 KiB" in repr(robostats.RobotsTxt(body))
    assert any(f.kind == "past_limit" for f in robostats.RobotsTxt(body).lint())


HEADER = "Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)"
GPTBOT_OUT = b"User-agent: GPTBot\nDisallow: /\n\nUser-agent: *\nDisallow: /private\n"


@pytest.mark.parametrize("native", [False, True], ids=["arrow", "native"])
def test_a_user_agent_header_is_refused_naming_its_token_everywhere(native):
    """A full User-Agent header (as logs hold it) would match no group
    and get the * group's answer (allowed, here): every entry point
    refuses it by default, naming the token to pass."""
    robots = robostats.RobotsTxt(GPTBOT_OUT)
    assert robots.can_fetch("/page", "GPTBot") is False
    for call in (lambda: robots.can_fetch("/page", HEADER), lambda: robots.explain("/page", HEADER),
                 lambda: robots.preferences(HEADER),
                 lambda: robostats.can_fetch_many([GPTBOT_OUT], HEADER, ["/page"]),
                 lambda: robostats.can_fetch_many([GPTBOT_OUT] * 2, ["GPTBot", HEADER], ["/", "/page"])):
        with pytest.raises(ValueError, match="pass its product token, 'GPTBot'"):
            call()
    con = (robostats.register(duckdb.connect(config={"allow_unsigned_extensions": "true"}), native=True)
           if native else robostats.register(duckdb.connect()))
    with pytest.raises(duckdb.Error, match="pass its product token, 'GPTBot'"):
        con.execute("SELECT robots_can_fetch(?, ?, '/page')", [GPTBOT_OUT, HEADER]).fetchall()
    # The library policy answers as Google's library: the * group.
    assert robots.can_fetch("/page", HEADER, policy="library") is True
    assert con.execute("SELECT robots_can_fetch(?, ?, '/page', 'library')", [GPTBOT_OUT, HEADER]).fetchall() == [(True,)]


@pytest.mark.parametrize("native", [False, True], ids=["arrow", "native"])
def test_adsbot_gets_one_answer_by_default_and_the_library_s_when_asked(native):
    """AdsBot-Google ignores the * group (Google's documentation, the
    tables' answer): allowed by default in Python and SQL, disallowed with
    policy='library' (Google's C++ library)."""
    body = b"User-agent: *\nDisallow: /\n"
    robots = robostats.RobotsTxt(body)
    assert robots.can_fetch("/x", "AdsBot-Google") is True
    assert robots.can_fetch("/x", "AdsBot-Google", policy="library") is False
    assert robots.explain("/x", "AdsBot-Google", policy="library").ignores_global_group
    assert robostats.can_fetch_many([body, body], "AdsBot-Google", ["/x", "/y"]).to_pylist() == [True, True]
    assert robostats.can_fetch_many([body], "AdsBot-Google", ["/x"], policy="library").to_pylist() == [False]
    con = (robostats.register(duckdb.connect(config={"allow_unsigned_extensions": "true"}), native=True)
           if native else robostats.register(duckdb.connect()))
    assert con.execute("SELECT robots_can_fetch(?, 'AdsBot-Google', '/x'), "
                       "robots_can_fetch(?, 'AdsBot-Google', '/x', 'library')", [body, body]).fetchall() == [(True, False)]
    with pytest.raises(duckdb.Error, match="not a policy"):
        con.execute("SELECT robots_can_fetch(?, 'GPTBot', '/x', 'rfc')", [body]).fetchall()
    with pytest.raises(ValueError, match="not a policy"):
        robots.can_fetch("/x", "GPTBot", policy="rfc")
