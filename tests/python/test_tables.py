"""The tables against the WARC files: counts per table and per class
derived with warcio (and the generator's published counts), per-capture
parse counts against an independent reading of Google's keys, and the
consistency of the tables with one another."""

import collections
import re

import pyarrow.parquet as pq
import pytest

from conftest import RESILIPARSE, SAMPLES, SYNTHETIC, WHIRLWIND, connect, ingest
from preference_facts import google_escape
from warc_facts import GOOGLE_LIMIT, LINE_END, google_keys, write_warc


def google_class(status, failed=False):
    """RFC 9309 / Google's specification table; a fetch the crawler cut short
    (warc_facts.Response.failed) is `failed`, treated as a server error."""
    if failed:
        return "failed"
    if 200 <= status < 300:
        return "conditional_allow"
    if 300 <= status < 400:
        return "redirect"
    if 400 <= status < 500:
        return "full_allow"
    return "full_disallow"


def google_current_class(status, failed=False):
    return "full_disallow" if status == 429 and not failed else google_class(status, failed)


def cc_class(status, failed=False):
    """Common Crawl's fetch_status_classify (robotstxt-experiments): by the
    status alone, so a fetch cut short keeps its status's class."""
    if status == 200:
        return "success"
    if status == 403:
        return "forbidden"
    if 500 <= status < 600 or status == 429:
        return "defer_visits"
    if 300 <= status < 400:
        return "redirect"
    if status in (400, 404, 410):
        return "notfound"
    if status == 401:
        return "unauthorized"
    return "other"


def q(con, sql, *params):
    return con.execute(sql, list(params)).fetchall()


def by_key(con, sql):
    return {(r[0], r[1]): r[2:] for r in q(con, sql)}


def test_captures_per_file_equal_warcio_responses(con, facts):
    got = dict(q(con, "SELECT warc_filename, count(*) FROM captures GROUP BY 1"))
    assert got == {p: len(facts[p].responses) for p in SAMPLES}
    assert got == {SYNTHETIC: 700, RESILIPARSE: 16, WHIRLWIND: 1}
    # and the record types warcio sees (README: 1 warcinfo, 700 pairs; 1/17/16/16; 1/1/1/1)
    assert facts[SYNTHETIC].records == {"warcinfo": 1, "request": 700, "response": 700}
    assert facts[RESILIPARSE].records == {"warcinfo": 1, "request": 17, "response": 16, "metadata": 16}
    assert facts[WHIRLWIND].records == {"warcinfo": 1, "request": 1, "response": 1, "metadata": 1}


def test_capture_keys_are_the_warc_offsets(con, responses):
    got = set(q(con, "SELECT warc_filename, warc_record_offset FROM captures"))
    assert got == {(r.path, r.offset) for r in responses}
    assert q(con, "SELECT count(*) FROM captures WHERE warc_record_offset_in_member <> 0") == [(0,)]


def test_status_counts(con, responses):
    got = dict(q(con, "SELECT fetch_status, count(*) FROM captures GROUP BY 1"))
    assert got == collections.Counter(r.status for r in responses)
    synthetic = dict(
        q(con, "SELECT fetch_status, count(*) FROM captures WHERE warc_filename = ? GROUP BY 1", SYNTHETIC)
    )
    # the generator's own counts (its --stats, samples/README.md)
    for status, n in {200: 465, 301: 38, 302: 20, 307: 5, 308: 12, 404: 119, 403: 8,
                      401: 3, 410: 2, 429: 2}.items():
        assert synthetic[status] == n, status
    assert sum(n for s, n in synthetic.items() if 500 <= s < 600) == 18
    assert q(con, "SELECT count(*) FROM captures WHERE fetch_status IS NULL OR http_error IS NOT NULL") == [(0,)]


@pytest.mark.parametrize(
    "column,classify",
    [("google_class", google_class), ("google_current_class", google_current_class), ("cc_class", cc_class)],
)
def test_outcome_classes(con, responses, column, classify):
    got = by_key(con, f"SELECT warc_filename, warc_record_offset, {column} FROM captures")
    for r in responses:
        assert got[(r.path, r.offset)] == (classify(r.status, r.failed),), (r.url, r.status, r.truncated)


def test_class_totals(con):
    assert dict(q(con, "SELECT cc_class, count(*) FROM captures GROUP BY 1")) == {
        "success": 482, "notfound": 123, "redirect": 75, "defer_visits": 20,
        "forbidden": 8, "other": 6, "unauthorized": 3,
    }


def test_redirect_targets_and_kinds(con, responses):
    got = by_key(con, "SELECT warc_filename, warc_record_offset, fetch_redirect, redirect_kind FROM captures")
    for r in responses:
        target, kind = got[(r.path, r.offset)]
        assert target == r.redirect, r.url
        if r.redirect is None:
            # no target: not a redirect, or a 3xx without a usable Location
            # (absent or empty), whose kind says so
            assert kind == ("missing_location" if 300 <= r.status < 400 else None), r.url
            continue
        if not r.redirect.split("?")[0].endswith("/robots.txt"):
            assert kind == "not_robots_path", r.url
        elif r.url.startswith("http://") and r.redirect == "https://" + r.url[len("http://"):]:
            assert kind == "https_upgrade", r.url
    kinds = dict(q(con, "SELECT redirect_kind, count(*) FROM captures WHERE redirect_kind IS NOT NULL GROUP BY 1"))
    # the generator's redirect kinds (its --stats, samples/README.md):
    # https_upgrade 15, www 23 (www. added 8 or removed 11, or another
    # subdomain swapped for www. 4), other_host 12, not_robots_path 18,
    # https_downgrade 3, missing_location 4 (no or an empty Location)
    assert kinds["https_upgrade"] == 15
    assert kinds.get("www_added", 0) + kinds.get("www_removed", 0) + kinds.get("same_site", 0) == 23
    assert kinds["other_host"] == 12
    assert kinds["not_robots_path"] == 18
    assert kinds["https_downgrade"] == 3
    assert kinds["missing_location"] == sum(1 for r in responses if 300 <= r.status < 400 and not r.redirect) == 4
    assert sum(kinds.values()) == sum(1 for r in responses if 300 <= r.status < 400) == 75


def test_bodies_html_sizes_truncation(con, responses):
    got = by_key(
        con,
        """SELECT warc_filename, warc_record_offset, payload_length, looks_like_html,
                  over_500kib, content_truncated, content_mime_detected, bom
           FROM captures""",
    )
    for r in responses:
        length, html, over, truncated, detected, bom = got[(r.path, r.offset)]
        assert length == len(r.body), r.url
        assert html == r.looks_like_html, r.url
        assert over == (len(r.body) > GOOGLE_LIMIT), r.url
        assert truncated == r.truncated, r.url
        assert detected == r.detected, r.url
        assert (bom == "utf-8") == r.body.startswith(b"\xef\xbb\xbf"), r.url
    # totals: 27 HTML-looking parsed bodies in the synthetic file (generator:
    # html_page 25, truncated_html 1 and page_for_other_path 2 are HTML 200s,
    # less the html_page cut by a disconnect, class failed, not parsed) and
    # the 17 web pages of the two real files; over 500 KiB: huge 2 + the 2
    # bodies cut at 1 MiB; truncated: length 2, time 2, disconnect 1
    assert q(
        con,
        "SELECT count_if(looks_like_html AND robots_parsed), count_if(over_500kib), count(content_truncated) FROM captures",
    ) == [(44, 4, 5)] == [(
        sum(1 for r in responses if r.parsed and r.looks_like_html),
        sum(1 for r in responses if len(r.body) > GOOGLE_LIMIT),
        sum(1 for r in responses if r.truncated is not None),
    )]
    assert q(
        con, "SELECT count_if(looks_like_html AND robots_parsed) FROM captures WHERE warc_filename = ?", SYNTHETIC
    ) == [(27,)]
    # error pages (404 etc.) are often HTML too
    assert q(con, "SELECT count_if(looks_like_html) FROM captures") == [
        (sum(1 for r in responses if r.looks_like_html),)
    ]


def test_parse_counts_per_capture_match_googles_keys(con, responses):
    got = by_key(
        con,
        """SELECT warc_filename, warc_record_offset, robots_parsed, user_agent_lines,
                  allow_rules, disallow_rules, sitemaps, typos
           FROM captures""",
    )
    parsed = 0
    for r in responses:
        row = got[(r.path, r.offset)]
        # 2xx bodies are parsed, but not those the crawler cut short (failed)
        assert row[0] == r.parsed, r.url
        if not r.parsed:
            assert row[1:] == (None,) * 5, r.url
            continue
        parsed += 1
        k = google_keys(r.body)
        assert row[1:] == (k["user_agent"], k["allow"], k["disallow"], k["sitemap"], k["typo"]), r.url
    # 484 2xx, less 3 cut short by time or disconnect
    assert parsed == 481


def check_rule_patterns(con):
    """Every rule's pattern as Google escapes its value, and what follows
    from it, as the view body_rules computes them from the stored columns."""
    rows = q(con, "SELECT value, pattern, priority, has_wildcard, has_end_anchor, is_empty FROM rules")
    assert rows
    for value, pattern, priority, wildcard, anchor, empty in rows:
        # (a value that is not UTF-8 is stored with U+FFFD: its bytes are gone)
        if "\ufffd" not in value:
            assert pattern == google_escape(value.encode()).decode(), value
        assert (priority, wildcard, anchor, empty) == (len(pattern), "*" in pattern, pattern.endswith("$"),
                                                       value == ""), value


def test_rule_patterns_as_google_escapes_them(con):
    check_rule_patterns(con)


def test_rule_patterns_stored_only_where_escaping_changes_them(tmp_path):
    body = ("User-agent: *\nDisallow: /ä/\nAllow: /%2fa%e4\nDisallow: /*.pdf$\nDisallow:\nAllow: /x*y\n"
            "Disallow: /plain/\n").encode() + b"Disallow: /\xff\n"
    write_warc(tmp_path / "rules.warc.gz", [("rules.example", body)])
    out = tmp_path / "out"
    ingest([tmp_path / "rules.warc.gz"], out)
    stored = pq.read_table(out / "body_rules").to_pylist()
    escaped = {r["value"]: r["escaped_pattern"] for r in stored}
    assert escaped == {"/ä/": "/%C3%A4/", "/%2fa%e4": "/%2Fa%E4", "/*.pdf$": None, "": None, "/x*y": None,
                       "/plain/": None, "/\ufffd": "/%FF"}
    con = connect(out)
    try:
        got = q(con, "SELECT value, pattern, priority, has_wildcard, has_end_anchor, "
                "is_empty FROM body_rules ORDER BY line")
        assert got == [
            ("/ä/", "/%C3%A4/", 8, False, False, False),
            ("/%2fa%e4", "/%2Fa%E4", 8, False, False, False),
            ("/*.pdf$", "/*.pdf$", 7, True, True, False),
            ("", "", 0, False, False, True),
            ("/x*y", "/x*y", 4, True, False, False),
            ("/plain/", "/plain/", 7, False, False, False),
            ("/\ufffd", "/%FF", 4, False, False, False),
        ]
    finally:
        con.close()


def test_line_tables_match_capture_counts(con):
    # the per-line tables hold one row per counted line
    mismatches = q(
        con,
        """SELECT c.warc_filename, c.warc_record_offset
           FROM captures c
           LEFT JOIN (SELECT warc_filename, warc_record_offset, count(*) n, count_if(is_typo) t
                      FROM user_agents GROUP BY ALL) u USING (warc_filename, warc_record_offset)
           LEFT JOIN (SELECT warc_filename, warc_record_offset, count_if(kind = 'allow') a,
                             count_if(kind = 'disallow') d, count_if(is_typo) t, count_if(is_empty) e,
                             count_if("group" IS NULL) o
                      FROM rules GROUP BY ALL) r USING (warc_filename, warc_record_offset)
           LEFT JOIN (SELECT warc_filename, warc_record_offset, count(*) n, count_if(is_typo) t
                      FROM sitemaps GROUP BY ALL) s USING (warc_filename, warc_record_offset)
           WHERE c.robots_parsed AND (
                 coalesce(u.n, 0) <> c.user_agent_lines
              OR coalesce(r.a, 0) <> c.allow_rules
              OR coalesce(r.d, 0) <> c.disallow_rules
              OR coalesce(r.e, 0) <> c.empty_rules
              OR coalesce(r.o, 0) <> c.rules_outside_group
              OR coalesce(s.n, 0) <> c.sitemaps
              OR coalesce(u.t, 0) + coalesce(r.t, 0) + coalesce(s.t, 0) <> c.typos)""",
    )
    assert mismatches == []
    assert q(con, "SELECT count(*) FROM user_agents") == [(3315,)]
    assert q(con, "SELECT count_if(kind = 'allow'), count_if(kind = 'disallow') FROM rules") == [(5593, 61057)]
    assert q(con, "SELECT count(*), count_if(is_typo) FROM sitemaps") == [(8712, 8)]
    # unknown_directives counts the directives rows; known_elsewhere_directives those with a name
    assert q(
        con,
        """SELECT count(*) FROM captures c
           LEFT JOIN (SELECT warc_filename, warc_record_offset, count(*) n, count(known_elsewhere) k
                      FROM directives GROUP BY ALL) d USING (warc_filename, warc_record_offset)
           WHERE c.robots_parsed AND (coalesce(d.n, 0) <> c.unknown_directives
                                      OR coalesce(d.k, 0) <> c.known_elsewhere_directives)""",
    ) == [(0,)]


KNOWN_ELSEWHERE = re.compile(
    rb"^[ \t]*(crawl-delay|clean-param|host|noindex|request-rate|visit-time|content-signal|content-usage)[ \t]*:",
    re.I,
)


def test_known_elsewhere_directives_match_the_bodies(con, responses):
    expected = collections.Counter()
    for r in responses:
        if not r.parsed:
            continue
        for line in LINE_END.split(r.body[:GOOGLE_LIMIT]):
            m = KNOWN_ELSEWHERE.match(line)
            if m:
                expected[m.group(1).lower().decode()] += 1
    got = dict(q(con, "SELECT known_elsewhere, count(*) FROM directives WHERE known_elsewhere IS NOT NULL GROUP BY 1"))
    assert got == expected
    # the generator's directive_lines count 356 crawl-delay lines: one is in a
    # body cut short (class failed), which is not parsed
    assert got == {"crawl-delay": 355, "clean-param": 33, "content-signal": 26, "content-usage": 22,
                   "host": 17, "request-rate": 3, "visit-time": 3, "noindex": 4}


def test_crawl_delay_of_the_global_group(con):
    # crawl_delay is set only where a crawl-delay line exists
    assert q(
        con,
        """SELECT count(*) FROM captures c
           WHERE crawl_delay IS NOT NULL
             AND NOT EXISTS (SELECT 1 FROM directives d
                             WHERE d.warc_filename = c.warc_filename
                               AND d.warc_record_offset = c.warc_record_offset
                               AND d.name = 'crawl-delay')""",
    ) == [(0,)]


def test_agent_verdicts_one_row_per_capture_and_agent(con):
    agents = q(con, "SELECT count(DISTINCT agent) FROM agent_verdicts")[0][0]
    assert agents >= 40
    assert q(con, "SELECT count(*) FROM agent_verdicts") == [(717 * agents,)]
    assert q(
        con,
        "SELECT count(*) FROM (SELECT warc_filename, warc_record_offset, agent FROM agent_verdicts GROUP BY ALL HAVING count(*) > 1)",
    ) == [(0,)]
    assert q(con, "SELECT DISTINCT agent_category FROM agent_verdicts WHERE agent = '*'") == [("global",)]
    for agent in ("GPTBot", "CCBot", "ClaudeBot", "Google-Extended", "Googlebot", "Bingbot"):
        assert q(con, "SELECT count(*) FROM agent_verdicts WHERE agent = ?", agent) == [(717,)], agent


def test_effective_class_follows_the_http_outcome(con):
    bad = q(
        con,
        """SELECT v.agent, c.fetch_status, v.rules_class, v.effective_class
           FROM agent_verdicts v JOIN captures c USING (warc_filename, warc_record_offset)
           WHERE v.effective_class IS DISTINCT FROM CASE c.google_class
                     WHEN 'conditional_allow' THEN v.rules_class
                     WHEN 'full_allow' THEN 'allow_all'
                     WHEN 'full_disallow' THEN 'disallow_all'
                     WHEN 'failed' THEN 'disallow_all'
                     WHEN 'redirect' THEN 'unresolved_redirect' END
              OR (c.robots_parsed) <> (v.rules_class IS NOT NULL)
              OR (c.robots_parsed) <> (v.group_match IS NOT NULL)
           LIMIT 5""",
    )
    assert bad == []
    # the * crawler: parsed 2xx by the rules (allow_all 46 with rules and 131
    # without, allow_part 290, disallow_all 14), 140 4xx allow, 18 5xx and 3
    # failed fetches (200s cut short) disallow, 75 redirects
    assert dict(q(con, "SELECT effective_class, count(*) FROM agent_verdicts WHERE agent = '*' GROUP BY 1")) == {
        "allow_all": 46 + 131 + 140, "allow_part": 290, "disallow_all": 14 + 18 + 3, "unresolved_redirect": 75,
    }


def test_star_verdict_is_the_global_class(con):
    assert q(
        con,
        """SELECT count(*) FROM agent_verdicts v JOIN captures c USING (warc_filename, warc_record_offset)
           WHERE v.agent = '*' AND (v.rules_class IS DISTINCT FROM c.global_class
                                    OR v.root_allowed IS DISTINCT FROM c.global_root_allowed
                                    OR v.group_match = 'specific')""",
    ) == [(0,)]


def test_specific_group_match_means_a_user_agent_line_names_the_agent(con):
    # The matcher compares the product tokens ([A-Za-z_-] prefix) of the
    # user-agent value and of the crawler's name, case-insensitively.
    bad = q(
        con,
        """WITH named AS (
               SELECT DISTINCT u.warc_filename, u.warc_record_offset, v.agent
               FROM user_agents u
               JOIN (SELECT DISTINCT agent FROM agent_verdicts WHERE agent <> '*') v
                 ON lower(u.product_token) = lower(regexp_extract(v.agent, '^[A-Za-z_-]+'))
               WHERE NOT u.is_global)
           SELECT v.agent, v.warc_filename, v.warc_record_offset, v.group_match
           FROM agent_verdicts v
           JOIN captures c USING (warc_filename, warc_record_offset)
           LEFT JOIN named n USING (warc_filename, warc_record_offset, agent)
           WHERE c.robots_parsed AND v.agent <> '*'
             AND (v.group_match = 'specific') <> (n.agent IS NOT NULL)
           LIMIT 5""",
    )
    assert bad == []


def test_disallow_all_of_a_named_group_has_a_root_disallow(con):
    # necessary condition: a specific disallow_all verdict needs a disallow
    # rule matching / (pattern '/' or a wildcard such as '/*', '*') in a
    # group naming the agent
    bad = q(
        con,
        """SELECT v.agent, v.warc_filename, v.warc_record_offset
           FROM agent_verdicts v
           WHERE v.group_match = 'specific' AND v.rules_class = 'disallow_all'
             AND NOT EXISTS (
                 SELECT 1 FROM rules r JOIN user_agents u
                   ON u.warc_filename = r.warc_filename AND u.warc_record_offset = r.warc_record_offset
                  AND u."group" = r."group"
                 WHERE r.warc_filename = v.warc_filename AND r.warc_record_offset = v.warc_record_offset
                   AND r.kind = 'disallow' AND r.pattern IN ('/', '/*', '*', '/$', '*$', '/*$')
                   AND lower(u.product_token) = lower(regexp_extract(v.agent, '^[A-Za-z_-]+')))
           LIMIT 5""",
    )
    assert bad == []


def test_every_line_row_belongs_to_a_parsed_capture(con):
    for table in ("user_agents", "rules", "sitemaps", "directives", "agent_verdicts"):
        orphans = q(
            con,
            f"""SELECT count(*) FROM {table} t ANTI JOIN captures c USING (warc_filename, warc_record_offset)""",
        )
        assert orphans == [(0,)], table
    for table in ("user_agents", "rules", "sitemaps", "directives"):
        unparsed = q(
            con,
            f"""SELECT count(*) FROM {table} t JOIN captures c USING (warc_filename, warc_record_offset)
                WHERE NOT c.robots_parsed""",
        )
        assert unparsed == [(0,)], table


def test_latest_captures_view(con, responses):
    from warc_facts import latest_per_url

    latest = latest_per_url(responses)
    got = set(q(con, "SELECT url, warc_filename, warc_record_offset FROM latest_captures"))
    assert got == {(u, r.path, r.offset) for u, r in latest.items()}
    assert len(got) == 702  # 717 captures; 11 URLs captured 2 to 4 times (15 more captures)
