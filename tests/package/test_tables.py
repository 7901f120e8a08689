"""The package's answers for a body are the tables' answers for its
captures: digests, template and every crawler's preferences and verdict at
`/`, for every 2xx capture of the samples (bodies read with warcio)."""

import robostats_cc as robostats

from conftest import ROOT
from warc_facts import read_warc


def _bodies():
    """{(warc_filename, offset): body} of every response of the samples."""
    out = {}
    for path in sorted((ROOT / "samples").rglob("*.warc.gz")):
        rel = "samples/" + str(path.relative_to(ROOT / "samples"))
        for r in read_warc(path, rel).responses:
            out[(r.path, r.offset)] = r.body
    return out


def test_digests_template_preferences_and_verdicts_equal_the_tables(package_out):
    con = robostats.connect(package_out)
    bodies = _bodies()
    captures = con.sql(
        "SELECT warc_filename, warc_record_offset, body_digest, ruleset_digest, template, payload_encoded "
        "FROM captures WHERE google_class = 'conditional_allow'"
    ).fetchall()
    assert len(captures) > 400
    verdicts = {}
    for f, o, agent, ignores_star, group_match, root_allowed, *prefs in con.sql(
        "SELECT v.warc_filename, v.warc_record_offset, v.agent, a.ignores_global_group, v.group_match, "
        "v.root_allowed, v.usage_train_ai, v.usage_search, v.usage_line, v.signal_search, "
        "v.signal_ai_train, v.signal_ai_input, v.signal_use, v.signal_line, v.signal_scope "
        "FROM agent_verdicts v JOIN agents a ON a.token = v.agent"
    ).fetchall():
        verdicts.setdefault((f, o), []).append((agent, ignores_star, group_match, root_allowed, prefs))
    checked = with_preferences = 0
    for f, o, body_digest, ruleset_digest, template, encoded in captures:
        if encoded:
            continue  # stored still encoded: warcio decodes what robostats keeps as stored
        robots = robostats.RobotsTxt(bodies[(f, o)])
        assert (robots.body_digest, robots.ruleset_digest, robots.template) == (body_digest, ruleset_digest, template), (f, o)
        for agent, ignores_star, group_match, root_allowed, prefs in verdicts[(f, o)]:
            e = robots.explain("/", agent)
            if not ignores_star:
                # (A crawler that ignores `*` is judged by its policy in the
                # tables, by Google's matcher here; its preferences follow
                # its policy in both.)
                assert (e.group, e.allowed) == (group_match, root_allowed), (f, o, agent)
            got = robots.preferences(agent).as_dict()
            assert list(got.values()) == prefs, (f, o, agent)
            with_preferences += prefs[0] is not None and prefs[0] != "unknown"
        checked += 1
    assert checked > 400 and with_preferences > 20
    assert con.execute("SELECT count(*) FROM agents WHERE ignores_global_group").fetchall()[0][0] > 0


def test_the_readmes_first_query_in_two_lines(package_out):
    con = robostats.connect(package_out)
    rows = con.sql(
        "SELECT effective_class, count(*) AS captures FROM agent_verdicts "
        "WHERE agent = 'GPTBot' GROUP BY ALL ORDER BY captures DESC"
    ).fetchall()
    assert sum(n for _, n in rows) == con.execute("SELECT count(*) FROM captures").fetchone()[0]


def test_robots_can_fetch_beside_the_tables(package_out):
    con = robostats.connect(package_out)
    n = con.execute("SELECT count(*) FROM captures").fetchone()[0]
    got = con.execute(
        "SELECT count(*) FILTER (robots_can_fetch('User-agent: *' || chr(10) || 'Disallow: /', 'GPTBot', url) = false) "
        "FROM captures"
    ).fetchone()[0]
    assert got == n


def test_the_ready_queries_travel_with_the_package(package_out, tmp_path):
    """The README's first question from a wheel alone, no clone: the ready
    queries are in the package (robostats_cc.queries, query), and the
    command runs them (robostats query)."""
    import subprocess

    on_disk = sorted(p.stem for p in (ROOT / "queries").glob("*.sql") if p.stem not in ("tables", "views", "strata"))
    assert sorted(robostats.queries) == on_disk
    assert robostats.queries["definitions"] == (ROOT / "queries" / "definitions.sql").read_text()
    con = robostats.connect(package_out)
    gptbot = robostats.query(con, "definitions").filter(
        "agent = 'GPTBot' AND question = 'full_block' AND definition = 'hosts'").fetchall()
    assert len(gptbot) == 1 and gptbot[0][5] > 0
    try:
        robostats.query(con, "nope")
    except ValueError as e:
        assert "robostats_cc.queries" in str(e)
    else:
        raise AssertionError("no ValueError")
    out = tmp_path / "definitions.csv"
    proc = subprocess.run(["robostats", "query", "definitions", str(package_out), "-o", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert out.read_text().count("\n") == len(robostats.query(con, "definitions").fetchall()) + 1
