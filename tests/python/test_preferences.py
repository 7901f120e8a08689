"""The AI-use preference tables (preference_statements,
resolved_preferences, the preference columns of captures and
agent_verdicts) against the WARC bodies read without robostats
(preference_facts), and against one another. Each test runs on the
samples and on the preference cases of samples/preferences/ (one fetch per
placement of Content-Signal and Content-Usage lines), when that file is
there."""

import collections
from pathlib import Path

import pytest

from conftest import ROOT, connect, ingest, preference_columns
from preference_facts import (DIRECTIVES, OLD_LABELS, preference_files, preferences_at_root, sf_dictionary,
                              stated_lines)
from test_queries import (check_cloudflare_managed, check_preference_adoption, check_preference_contradictions,
                          check_preference_labels, check_preference_vintage)
from warc_facts import read_warc, write_warc

PREFERENCE_SAMPLES = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "samples" / "preferences").glob("*.warc.gz"))
COLUMNS = preference_columns()


@pytest.fixture(scope="module", params=["samples", "preferences"])
def data(request, tmp_path_factory):
    """(DuckDB connection, warcio responses, {capture key: PreferenceFile})
    of the samples, then of the preference cases."""
    if request.param == "samples":
        con = request.getfixturevalue("con")
        responses = request.getfixturevalue("responses")
    else:
        if not PREFERENCE_SAMPLES:
            pytest.skip("no samples/preferences/*.warc.gz")
        out = tmp_path_factory.mktemp("preferences") / "out"
        ingest(PREFERENCE_SAMPLES, out)
        con = connect(out)
        responses = [r for p in PREFERENCE_SAMPLES for r in read_warc(ROOT / p, p).responses]
    return con, responses, preference_files(responses)


def q(con, sql, *params):
    return con.execute(sql, list(params)).fetchall()


def test_statements_are_the_lines_of_the_bodies(data):
    """Every column but parse_error, row for row: one per dictionary member,
    one with a null label for an empty or unparseable dictionary."""
    con, _, files = data
    got = collections.Counter(q(con, """
        SELECT warc_filename, warc_record_offset, line, directive, key, google_group, aipref_group,
               in_cloudflare_block, path, dictionary, label, value, preference, is_overridden, status
        FROM preference_statements"""))
    expected = collections.Counter()
    for key, pf in files.items():
        for s in pf.statements:
            yes, no = DIRECTIVES[s.directive]
            row = key + (s.line, s.directive, s.key, s.google_group, s.aipref_group, s.in_cloudflare_block,
                         s.path, s.dictionary)
            for label, token, value, later in s.members or [(None, None, None, False)]:
                expected[row + (label, value, "y" if token == yes else "n" if token == no else "unknown",
                                later, s.status)] += 1
    assert got == expected
    assert q(con, """SELECT count(*) FROM preference_statements
                     WHERE (status = 'unparseable') <> (parse_error IS NOT NULL)
                        OR (status <> 'ok') <> (label IS NULL)""") == [(0,)]


def test_every_row_belongs_to_a_parsed_capture(data):
    con, _, _ = data
    for table in ("preference_statements", "resolved_preferences"):
        assert q(con, f"""SELECT count(*) FROM {table} t LEFT JOIN captures c USING (warc_filename, warc_record_offset)
                          WHERE c.robots_parsed IS NOT true""") == [(0,)], table


def test_preference_lines_and_cloudflare_blocks_of_captures(data):
    """captures.preference_lines is the number of distinct statement lines
    (0 without any; null for a body not parsed), cloudflare_blocks the
    number of BEGIN marker lines."""
    con, responses, files = data
    bad = q(con, """
        SELECT c.warc_filename, c.warc_record_offset, c.preference_lines, s.lines
        FROM captures c
        LEFT JOIN (SELECT warc_filename, warc_record_offset, count(DISTINCT line) AS lines
                   FROM preference_statements GROUP BY ALL) s USING (warc_filename, warc_record_offset)
        WHERE c.preference_lines IS DISTINCT FROM CASE WHEN c.robots_parsed THEN coalesce(s.lines, 0) END""")
    assert bad == []
    got = {(f, o): (n, b) for f, o, n, b in q(
        con, "SELECT warc_filename, warc_record_offset, preference_lines, cloudflare_blocks FROM captures")}
    for r in responses:
        pf = files.get((r.path, r.offset))
        expected = (len(pf.statements), pf.cloudflare_blocks) if pf else (None, None)
        assert got[(r.path, r.offset)] == expected, r.url


def test_directive_rows_are_the_statement_lines(data):
    """The directives rows named content-signal or content-usage are exactly
    the statement lines, with the same key and Google group."""
    con, _, _ = data
    directives = set(q(con, """
        SELECT warc_filename, warc_record_offset, line, name, key, "group" FROM directives
        WHERE name IN ('content-signal', 'content-usage')"""))
    statements = set(q(con, """
        SELECT DISTINCT warc_filename, warc_record_offset, line, directive, key, google_group
        FROM preference_statements"""))
    assert directives == statements
    # a misspelt key is a directive, not a statement
    assert q(con, """SELECT count(*) FROM directives d SEMI JOIN preference_statements s
                     USING (warc_filename, warc_record_offset, line)
                     WHERE d.known_elsewhere IS DISTINCT FROM d.name""") == [(0,)]


def test_cloudflare_flag_only_in_managed_files(data):
    con, _, _ = data
    assert q(con, """SELECT count(*) FROM preference_statements s JOIN captures c USING (warc_filename, warc_record_offset)
                     WHERE s.in_cloudflare_block AND NOT c.cloudflare_blocks > 0""") == [(0,)]


def test_preference_columns_are_null_exactly_where_root_is_not_allowed(data):
    """y, n or unknown where the crawler may fetch / (its rules), null
    elsewhere: not parsed, or / disallowed."""
    con, _, _ = data
    values = ["usage_train_ai", "usage_search", "signal_search", "signal_ai_train", "signal_ai_input"]
    bad = q(con, f"""
        SELECT agent, root_allowed, {', '.join(COLUMNS)} FROM agent_verdicts
        WHERE CASE WHEN root_allowed
                   THEN NOT ({' AND '.join(f"{c} IN ('y', 'n', 'unknown')" for c in values)}
                             AND signal_use IN ('immediate', 'reference', 'full', 'unknown'))
                   ELSE NOT ({' AND '.join(f'{c} IS NULL' for c in COLUMNS)}) END
        LIMIT 5""")
    assert bad == []
    # the lines and scope are set only where a line applies
    assert q(con, """SELECT count(*) FROM agent_verdicts
                     WHERE (signal_scope IS NULL) <> (signal_line IS NULL)""") == [(0,)]


def test_resolved_preferences_rows(data):
    """A * row for every capture with a statement line and none for the
    others; a row of its own for each crawler whose preferences may differ
    from *'s: a group names it, or it ignores the * group."""
    con, _, files = data
    ignores = dict(q(con, "SELECT token, ignores_global_group FROM agents"))
    got = collections.defaultdict(set)
    for f, o, agent in q(con, "SELECT warc_filename, warc_record_offset, agent FROM resolved_preferences"):
        got[(f, o)].add(agent)
    expected = {}
    for key, pf in files.items():
        if not pf.statements:
            continue
        named = {u.product.lower() for u in pf.user_agents if not u.is_global}
        expected[key] = {a for a, ign in ignores.items() if a == "*" or ign or a.lower() in named}
    assert dict(got) == expected
    assert q(con, """SELECT count(*) FROM (SELECT warc_filename, warc_record_offset, agent FROM resolved_preferences
                                           GROUP BY ALL HAVING count(*) > 1)""") == [(0,)]


def test_preferences_at_root_follow_the_bodies(data):
    """Every capture and crawler: the view's preference columns are what
    the lines of the body say for the crawler at / (its Content-Usage rules
    under AIPREF's grouping, longest path, n first; its Content-Signal
    lines under Google's grouping, else those before any group), where
    Google's matcher lets it fetch /."""
    con, responses, files = data
    ignores = dict(q(con, "SELECT token, ignores_global_group FROM agents"))
    got = {(f, o, a): (root, rest) for f, o, a, root, *rest in q(
        con, f"SELECT warc_filename, warc_record_offset, agent, root_allowed, {', '.join(COLUMNS)} FROM agent_verdicts")}
    mismatches = []
    for r in responses:
        for agent, ignores_global_group in ignores.items():
            root, columns = got[(r.path, r.offset, agent)]
            if root:
                p = preferences_at_root(files[(r.path, r.offset)], agent, ignores_global_group)
                expected = [p[c] for c in COLUMNS]
            else:
                expected = [None] * len(COLUMNS)
            if columns != expected:
                mismatches.append((r.url, agent, columns, expected))
    assert mismatches == []


def test_labels_of_older_drafts_survive_verbatim(data):
    """Every label of an earlier AIPREF draft written in a Content-Usage
    line of the bodies is a preference_statements label, as often."""
    con, _, files = data
    written = collections.Counter(label for pf in files.values() for s in pf.statements
                                  if s.directive == "content-usage" for label, *_ in s.members if label in OLD_LABELS)
    got = dict(q(con, """SELECT label, count(*) FROM preference_statements
                         WHERE directive = 'content-usage' AND list_contains(?, label) GROUP BY label""",
                 sorted(OLD_LABELS)))
    assert got == dict(written)
    # labels are kept as written (a dictionary key is lower case)
    assert q(con, "SELECT count(*) FROM preference_statements WHERE label <> lower(label)") == [(0,)]


def test_aipref_grouping_rebuilt_in_sql(data):
    """preference_contradictions.sql rebuilds AIPREF's grouping of the
    user-agent lines from the tables (a user-agent line starts a group
    unless the line before it, among user-agent, allow, disallow and
    Content-Usage lines, is a user-agent line): the same groups as the
    bodies give, in every file with a preference line."""
    con, _, files = data
    rebuilt = q(con, """
        WITH preference_files AS (SELECT DISTINCT warc_filename, warc_record_offset FROM preference_statements),
        events AS (
            SELECT warc_filename, warc_record_offset, line, true AS is_user_agent FROM user_agents
            UNION ALL SELECT warc_filename, warc_record_offset, line, false FROM rules
            UNION ALL SELECT DISTINCT warc_filename, warc_record_offset, line, false FROM preference_statements
                      WHERE directive = 'content-usage'
        ),
        starts AS (
            SELECT *, is_user_agent AND coalesce(NOT lag(is_user_agent) OVER w, true) AS starts_group
            FROM events SEMI JOIN preference_files USING (warc_filename, warc_record_offset)
            WINDOW w AS (PARTITION BY warc_filename, warc_record_offset ORDER BY line)
        )
        SELECT warc_filename, warc_record_offset, line, aipref_group FROM (
            SELECT *, sum(starts_group::INTEGER) OVER (PARTITION BY warc_filename, warc_record_offset ORDER BY line) - 1
                      AS aipref_group
            FROM starts)
        WHERE is_user_agent""")
    expected = {key + (u.line, u.aipref_group) for key, pf in files.items() if pf.statements for u in pf.user_agents}
    assert set(rebuilt) == expected
    assert len(rebuilt) == len(expected)


@pytest.mark.parametrize("check", [check_preference_adoption, check_preference_labels,
                                   check_preference_contradictions, check_cloudflare_managed,
                                   check_preference_vintage], ids=lambda c: c.__name__[len("check_"):])
def test_queries_on_the_preference_cases(data, request, check):
    """The queries' checks of test_queries.py, on the preference cases."""
    if request.node.callspec.params["data"] == "samples":
        pytest.skip("test_queries.py runs them on the samples")
    con, responses, _ = data
    check(con, responses)


# --- Documented examples, ingested -----------------------------------------

def doc_example(marker):
    """The ```text block of docs/robots-txt.md after the line `marker`."""
    text = (ROOT / "docs" / "robots-txt.md").read_text()
    block = text.split(marker, 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    return block.encode()


@pytest.fixture(scope="module")
def examples(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("preference-examples")
    bodies = {
        # docs/robots-txt.md, "AI-use preferences": the two groupings
        "groupings.example": doc_example("<!-- example: groupings -->"),
        # draft-ietf-aipref-attach, section 3.4
        "attach.example": (b"User-Agent: *\nAllow: /\nDisallow: /never/\nContent-Usage: train-ai=n\n"
                           b"Content-Usage: /ai-ok/ train-ai=y\n\nUser-Agent: ExampleBot\nAllow: /\n"
                           b"Content-Usage: train-ai=y\n"),
        # a longer path wins; among equal paths n wins; use: the most restrictive
        "paths.example": (b"User-agent: *\nContent-Usage: train-ai=n, search=n\nContent-Usage: / train-ai=y\n"
                          b"Content-Usage: /  search=y\nContent-Usage: / search=n\n"
                          b"Content-Signal: ai-train=yes, use=full\nContent-Signal: ai-train=no, use=reference\n"),
        # a bare label with a parameter has no value
        "bare.example": b"User-agent: *\nContent-Usage: train-ai;src=x, search=y\n",
    }
    warc = tmp / "examples.warc.gz"
    write_warc(warc, bodies.items())
    out = tmp / "out"
    ingest([str(warc)], out)
    return connect(out)


def by_host(con, sql):
    return q(con, f"""SELECT c.url_host_name, x.* EXCLUDE (warc_filename, warc_record_offset)
                      FROM ({sql}) x JOIN captures c USING (warc_filename, warc_record_offset)
                      ORDER BY ALL""")


def test_the_documented_groupings_example(examples):
    """The Content-Usage line between GPTBot and Googlebot: one group under
    Google's grouping (both disallowed from /private/), two under AIPREF's
    (the rule is GPTBot's alone); the Content-Signal line before the groups
    is read for every crawler."""
    rows = by_host(examples, """SELECT DISTINCT warc_filename, warc_record_offset, line, directive, google_group,
                                       aipref_group
                                FROM preference_statements""")
    assert [r[2:] for r in rows if r[0] == "groupings.example"] == [
        ("content-signal", None, None), ("content-usage", 0, 0)]
    # the user-agent lines: one group under Google's grouping, two under AIPREF's
    rows = by_host(examples, """SELECT warc_filename, warc_record_offset, product_token, "group", aipref_group
                                FROM user_agents""")
    assert [r[1:] for r in rows if r[0] == "groupings.example"] == [("GPTBot", 0, 0), ("Googlebot", 0, 1)]
    # elsewhere the groupings agree
    assert all(r[2] == r[3] for r in rows if r[0] != "groupings.example")
    verdicts = {agent: rest for host, agent, *rest in by_host(examples, """
        SELECT warc_filename, warc_record_offset, agent, group_match, usage_train_ai, signal_ai_train, signal_scope
        FROM agent_verdicts WHERE agent IN ('GPTBot', 'Googlebot', '*')""") if host == "groupings.example"}
    assert verdicts == {
        "GPTBot": ["specific", "n", "n", "file"],
        "Googlebot": ["specific", "unknown", "n", "file"],
        "*": ["none", "unknown", "n", "file"],
    }
    assert q(examples, """SELECT n.agent, n.rules_class FROM named_verdicts n JOIN captures c
                          USING (warc_filename, warc_record_offset)
                          WHERE c.url_host_name = 'groupings.example' ORDER BY 1""") == [
        ("GPTBot", "allow_part"), ("Googlebot", "allow_part")]


def test_the_attach_example_and_path_rules(examples):
    rows = {(host, agent): rest for host, agent, *rest in by_host(examples, """
        SELECT warc_filename, warc_record_offset, agent, usage_train_ai, usage_search, usage_line,
               signal_ai_train, signal_use FROM agent_verdicts WHERE agent IN ('*', 'GPTBot')""")}
    # draft-ietf-aipref-attach 3.4: /test has train-ai=n (ExampleBot is not a
    # crawler of interest: every one of them gets the * group)
    assert rows[("attach.example", "GPTBot")] == ["n", "unknown", 4, "unknown", "unknown"]
    # "/" (length 1) beats no path (length 0); the two "/" rules for search
    # combine to n; use: reference is more restrictive than full
    assert rows[("paths.example", "*")] == ["y", "n", 3, "n", "reference"]


def test_a_bare_label_with_parameters_has_no_value(examples):
    rows = by_host(examples, "SELECT warc_filename, warc_record_offset, label, value FROM preference_statements")
    assert [r[1:] for r in rows if r[0] == "bare.example"] == [("search", "y"), ("train-ai", None)]


def test_the_dictionary_reader_of_the_tests():
    """preference_facts.sf_dictionary on the vocabulary's examples."""
    assert sf_dictionary(b"train-ai=y, search=n") == [("train-ai", "y", "y"), ("search", "n", "n")]
    assert sf_dictionary(b"train-ai=y, train-ai, search=n, search=\"n\"") == [
        ("train-ai", "y", "y"), ("train-ai", None, None), ("search", "n", "n"), ("search", None, '"n"')]
    assert sf_dictionary(b"train-ai;allow=n, train-ai=y") == [("train-ai", None, None), ("train-ai", "y", "y")]
    assert sf_dictionary(b"") == []
    for bad in (b"Train-AI=N", b"train ai = n", b"train-ai=n;;", b"=n", b"train-ai=n,", b"ai=n train-ai=n",
                b"train-ai;has;parameters=\"?\";"):
        with pytest.raises(ValueError):
            sf_dictionary(bad)


def test_agent_verdict_counts_is_agent_verdicts_counted(data):
    """agent_verdict_counts (the sum of verdict_counts, which ingest
    counts) has exactly the rows of agent_verdicts (which the view derives
    from the other tables) counted, EXCEPT ALL both ways."""
    con, _, _ = data
    columns = [c[0] for c in q(con, "DESCRIBE agent_verdict_counts")]
    assert columns[:3] == ["crawl", "google_class", "robots_parsed"] and columns[-1] == "captures"
    view_columns = [c[0] for c in q(con, "DESCRIBE agent_verdicts")][2:]
    assert columns[3:-1] == view_columns
    counted = f"""
        SELECT c.crawl, c.google_class, c.robots_parsed, {', '.join('v.' + c for c in view_columns)},
               count(*)::BIGINT AS captures
        FROM agent_verdicts v JOIN captures c USING (warc_filename, warc_record_offset)
        GROUP BY ALL"""
    for a, b in ((counted, "SELECT * FROM agent_verdict_counts"), ("SELECT * FROM agent_verdict_counts", counted)):
        assert q(con, f"SELECT count(*) FROM ({a} EXCEPT ALL {b})") == [(0,)]
    assert q(con, "SELECT sum(captures) FROM agent_verdict_counts") == q(
        con, "SELECT count(*) * (SELECT count(*) FROM agents) FROM captures")
