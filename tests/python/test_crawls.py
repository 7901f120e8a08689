"""The crawl-over-crawl queries (the view host_states, policy_transitions.sql,
policy_trends.sql, body_changes.sql) on the three synthetic crawls of
`scripts/gen_corpus.py --crawls`, against the plan the generator writes
beside them: plan.tsv, the state each of five crawlers finds on each host
of each crawl (columns crawl, url_host_name, agent, state, decided_by, body;
the same body id is the same bytes, none for a non-2xx).

The expected rows of each query are computed here from plan.tsv alone; the
query's rows for the five crawlers must be exactly those, both ways. The
bodies name no crawler but GPTBot, CCBot and ClaudeBot, so a body change
that changes no state of the five changes no crawler's state: the
per-host figures of body_changes.sql follow from the plan too. A test whose
query or view is not in queries/ yet is skipped, saying which."""

import collections
import csv
import datetime
import filecmp
import subprocess
import sys

import pytest

from conftest import QUERIES, ROOT, connect, ingest, run_query

GEN = ROOT / "scripts" / "gen_corpus.py"
AGENTS_TSV = ROOT / "crates" / "robostats-rows" / "data" / "agents.tsv"
PLAN_AGENTS = ["*", "GPTBot", "CCBot", "ClaudeBot", "Googlebot"]
RULE_STATES = {"full", "partial", "none"}      # the states of a 2xx


def generate(out, *extra):
    proc = subprocess.run([sys.executable, str(GEN), "--crawls", "--out", str(out), *extra],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert not proc.stdout, proc.stdout


@pytest.fixture(scope="module")
def crawls_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("crawls") / "warc"
    generate(d)
    return d


@pytest.fixture(scope="module")
def warc_files(crawls_dir):
    return sorted(str(p) for p in crawls_dir.glob("*.warc.gz"))


def read_plan(path):
    """{(crawl, host, agent): (state, decided_by or None, body id or None)}."""
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f, delimiter="\t")
        assert reader.fieldnames == ["crawl", "url_host_name", "agent", "state", "decided_by", "body"]
        rows = list(reader)
    plan = {(r["crawl"], r["url_host_name"], r["agent"]): (r["state"], r["decided_by"] or None, r["body"] or None)
            for r in rows}
    assert len(plan) == len(rows)
    return plan


@pytest.fixture(scope="module")
def plan(crawls_dir):
    return read_plan(crawls_dir / "plan.tsv")


@pytest.fixture(scope="module")
def crawls_con(tmp_path_factory, warc_files):
    out = tmp_path_factory.mktemp("crawls") / "out"
    ingest(warc_files, out)
    c = connect(out)
    yield c
    c.close()


def agent_categories():
    with open(AGENTS_TSV, newline="", encoding="utf-8") as f:
        cats = {r["token"]: r["category"] for r in csv.DictReader(f, delimiter="\t")}
    return {a: "global" if a == "*" else cats[a] for a in PLAN_AGENTS}


# ---------------------------------------------------------------------------
# The plan read as the queries read the captures
# ---------------------------------------------------------------------------

def crawls_of(plan):
    return sorted({k[0] for k in plan})


def hosts_of(plan, crawl):
    return {h for c, h, _ in plan if c == crawl}


def crawl_pairs(plan):
    """Each crawl and the next one, by crawl id."""
    crawls = crawls_of(plan)
    return list(zip(crawls, crawls[1:]))


def body_changed(before, after):
    """Both final captures 2xx (a body id) with different bodies."""
    return before is not None and after is not None and before[2] is not None and after[2] is not None \
        and before[2] != after[2]


def expected_transitions(plan):
    """{(agent, from_crawl, to_crawl, from_state, to_state): (hosts, body_changed)}."""
    counts = collections.defaultdict(lambda: [0, 0])
    for a, b in crawl_pairs(plan):
        for host in hosts_of(plan, a) | hosts_of(plan, b):
            for agent in PLAN_AGENTS:
                before, after = plan.get((a, host, agent)), plan.get((b, host, agent))
                row = counts[(agent, a, b, before and before[0], after and after[0])]
                row[0] += 1
                row[1] += body_changed(before, after)
    return {k: tuple(v) for k, v in counts.items()}


def expected_trends(plan):
    """{(crawl, agent, state, decided_by): (hosts, share)}."""
    counts = collections.Counter((c, a, s[0], s[1]) for (c, _, a), s in plan.items())
    return {k: (n, n / len(hosts_of(plan, k[0]))) for k, n in counts.items()}


def expected_body_changes(plan):
    """{(from_crawl, to_crawl): {column: hosts}}, per host (every crawler's
    state is the five crawlers' state: the docstring above says why)."""
    out = {}
    for a, b in crawl_pairs(plan):
        row = collections.Counter()
        for host in hosts_of(plan, a) & hosts_of(plan, b):
            before = [plan[(a, host, agent)] for agent in PLAN_AGENTS]
            after = [plan[(b, host, agent)] for agent in PLAN_AGENTS]
            same_states = [s[0] for s in before] == [s[0] for s in after]
            row["hosts_in_both"] += 1
            if before[0][2] is not None and after[0][2] is not None:
                row["both_2xx"] += 1
                changed = before[0][2] != after[0][2]
                row["changed_body" if changed else "same_body"] += 1
                row["changed_body_same_states"] += changed and same_states
            row["changed_state"] += not same_states
        out[(a, b)] = {k: row[k] for k in ("hosts_in_both", "both_2xx", "same_body", "changed_body",
                                           "changed_body_same_states", "changed_state")}
    return out


# ---------------------------------------------------------------------------
# The generator and its files
# ---------------------------------------------------------------------------

def test_plan_covers_every_scenario(plan):
    """Three crawls, the five crawlers on every host, states and deciders
    as defined, a body id exactly for the 2xx states."""
    assert crawls_of(plan) == ["CC-MAIN-2025-05", "CC-MAIN-2025-13", "CC-MAIN-2025-21"]
    per_host = collections.Counter((c, h) for c, h, _ in plan)
    assert set(per_host.values()) == {len(PLAN_AGENTS)}
    for (c, h, agent), (state, decided_by, body) in plan.items():
        assert (state in RULE_STATES) == (body is not None) == (decided_by is not None), (c, h, agent)
        assert state in RULE_STATES | {"no_robots", "unreachable", "redirect"}
        assert decided_by in (None, "named", "wildcard", "no_group")
        assert not (agent == "*" and decided_by == "named")
    states = {s[0] for s in plan.values()}
    deciders = {s[1] for s in plan.values()}
    assert states == RULE_STATES | {"no_robots", "unreachable", "redirect"}
    assert deciders == {None, "named", "wildcard", "no_group"}
    # every kind of transition the queries name
    transitions = {(k[3], k[4]) for k in expected_transitions(plan)}
    for pair in [("none", "full"), ("full", "none"), ("full", "full"), ("partial", "full"), ("full", "no_robots"),
                 ("none", "unreachable"), ("no_robots", "full"), ("full", None), (None, "none"),
                 ("redirect", "none"), (None, "unreachable")]:
        assert pair in transitions, pair


def test_generator_is_deterministic(crawls_dir, tmp_path):
    generate(tmp_path)
    names = sorted(p.name for p in crawls_dir.iterdir())
    assert names == sorted(p.name for p in tmp_path.iterdir())
    match, mismatch, errors = filecmp.cmpfiles(crawls_dir, tmp_path, names, shallow=False)
    assert not mismatch and not errors


def test_scale_doubles_the_plan(plan, tmp_path):
    """--scale 2: each (crawl, crawler, state, decider) on exactly twice
    the hosts of the plain plan, whose hosts keep their names and states."""
    generate(tmp_path, "--scale", "2", "--jobs", "1")
    scaled = read_plan(tmp_path / "plan.tsv")

    def counts(p):
        return collections.Counter((c, agent, s[0], s[1]) for (c, _, agent), s in p.items())

    assert counts(scaled) == {k: 2 * n for k, n in counts(plan).items()}
    assert {k: scaled.get(k) for k in plan} == plan


def test_captures_follow_the_plan(crawls_con, plan, warc_files):
    """Two files per crawl named in its weeks; fetch times strictly
    increasing through each crawl's files; the hosts with a robots.txt
    capture in a crawl are the plan's."""
    con = crawls_con
    assert len(warc_files) == 6
    files = con.execute("""
        SELECT crawl, list(DISTINCT warc_filename ORDER BY warc_filename) FROM captures GROUP BY crawl""").fetchall()
    for crawl, names in files:
        assert len(names) == 2, crawl
        for name in names:
            assert iso_week(name.rsplit("/", 1)[1].split("-")[2]) == crawl[len("CC-MAIN-"):], (crawl, name)
    for crawl, times in con.execute("""
            SELECT crawl, list(fetch_time ORDER BY warc_filename, warc_record_offset) FROM captures
            GROUP BY crawl""").fetchall():
        assert all(a < b for a, b in zip(times, times[1:])), crawl
    got = set(con.execute("""
        SELECT DISTINCT crawl, url_host_name FROM captures WHERE url_path = '/robots.txt'""").fetchall())
    assert got == {(c, h) for c, h, _ in plan}


def iso_week(stamp):
    """YYYY-WW, the ISO week of a file name's YYYYMMDDhhmmss."""
    year, week, _ = datetime.date(int(stamp[:4]), int(stamp[4:6]), int(stamp[6:8])).isocalendar()
    return "%d-%02d" % (year, week)


# ---------------------------------------------------------------------------
# The queries
# ---------------------------------------------------------------------------

def test_host_states(crawls_con, plan):
    """host_states for the five crawlers is the plan, row for row; the
    category is the crawler list's; one content_digest per body id and one
    body id per content_digest; the deciding capture is in the crawl."""
    con = crawls_con
    rows = con.execute("""
        SELECT s.crawl, s.url_host_name, s.agent, s.agent_category, s.state, s.decided_by, s.content_digest,
               c.crawl
        FROM host_states s
        LEFT JOIN captures c USING (warc_filename, warc_record_offset)
        WHERE s.agent IN (SELECT unnest(?))""", [PLAN_AGENTS]).fetchall()
    got = {(c, h, a): (state, by) for c, h, a, _, state, by, _, _ in rows}
    assert len(got) == len(rows)
    want = {k: v[:2] for k, v in plan.items()}
    assert sorted(set(got) - set(want)) == [] and sorted(set(want) - set(got)) == []
    assert {k: v for k, v in got.items() if want[k] != v} == {}
    categories = agent_categories()
    assert all(cat == categories[a] for _, _, a, cat, *_ in rows)
    assert all(final_crawl == c for c, *_, final_crawl in rows)
    pairs = {(plan[(c, h, a)][2], digest) for c, h, a, _, _, _, digest, _ in rows if plan[(c, h, a)][2]}
    assert len({b for b, _ in pairs}) == len({d for _, d in pairs}) == len(pairs)


def test_policy_transitions(crawls_con, plan):
    con = crawls_con
    _, rows = run_query(con, "policy_transitions")
    rows = [r for r in rows if r["agent"] in PLAN_AGENTS]
    got = {(r["agent"], r["from_crawl"], r["to_crawl"], r["from_state"], r["to_state"]): (r["hosts"], r["body_changed"])
           for r in rows}
    assert len(got) == len(rows)
    want = expected_transitions(plan)
    assert sorted(set(got) - set(want), key=str) == [] and sorted(set(want) - set(got), key=str) == []
    assert {k: (v, want[k]) for k, v in got.items() if v != want[k]} == {}
    if rows and "agent_category" in rows[0]:
        categories = agent_categories()
        assert all(r["agent_category"] == categories[r["agent"]] for r in rows)
    # each crawl with the next one, in crawl id order, within each crawler
    for agent in PLAN_AGENTS:
        pairs = [(r["from_crawl"], r["to_crawl"]) for r in rows if r["agent"] == agent]
        assert pairs == sorted(pairs), agent


def test_policy_trends(crawls_con, plan):
    con = crawls_con
    _, rows = run_query(con, "policy_trends")
    rows = [r for r in rows if r["agent"] in PLAN_AGENTS]
    got = {(r["crawl"], r["agent"], r["state"], r["decided_by"]): (r["hosts"], r["share"]) for r in rows}
    assert len(got) == len(rows)
    want = expected_trends(plan)
    assert sorted(set(got) - set(want), key=str) == [] and sorted(set(want) - set(got), key=str) == []
    for k, (hosts, share) in got.items():
        assert hosts == want[k][0], k
        assert share == pytest.approx(want[k][1], rel=1e-12), k
    categories = agent_categories()
    assert all(r["agent_category"] == categories[r["agent"]] for r in rows)


def test_body_changes(crawls_con, plan):
    con = crawls_con
    cols, rows = run_query(con, "body_changes")
    want = expected_body_changes(plan)
    for col in ("hosts_in_both", "same_body", "changed_body", "changed_body_same_states"):
        assert col in cols, col
    checked = [c for c in cols if c in next(iter(want.values()))]
    got = {(r["from_crawl"], r["to_crawl"]): {c: r[c] for c in checked} for r in rows}
    assert len(got) == len(rows)
    assert got == {k: {c: v[c] for c in checked} for k, v in want.items()}
    assert [(r["from_crawl"], r["to_crawl"]) for r in rows] == crawl_pairs(plan)


def test_policy_transitions_equal_host_states_compared(crawls_con):
    """policy_transitions (counted without a row per host and crawler)
    equals host_states compared host by host, for every crawler."""
    expected = """
        WITH hs AS (SELECT * FROM host_states WHERE crawl IS NOT NULL),
        crawls AS (SELECT crawl, lead(crawl) OVER (ORDER BY crawl) AS next_crawl,
                          lag(crawl) OVER (ORDER BY crawl) AS prev_crawl
                   FROM (SELECT DISTINCT crawl FROM hs)),
        e AS (SELECT hs.*, next_crawl FROM hs JOIN crawls USING (crawl) WHERE next_crawl IS NOT NULL),
        l AS (SELECT hs.*, prev_crawl FROM hs JOIN crawls USING (crawl) WHERE prev_crawl IS NOT NULL)
        SELECT coalesce(e.agent, l.agent) AS agent, coalesce(e.agent_category, l.agent_category),
               coalesce(e.crawl, l.prev_crawl), coalesce(e.next_crawl, l.crawl), e.state, l.state,
               count(*)::BIGINT,
               count(*) FILTER (e.google_class = 'conditional_allow' AND l.google_class = 'conditional_allow'
                                AND e.content_digest IS DISTINCT FROM l.content_digest)::BIGINT
        FROM e FULL JOIN l ON l.crawl = e.next_crawl AND l.url_host_name = e.url_host_name AND l.agent = e.agent
        GROUP BY ALL"""
    query = (QUERIES / "policy_transitions.sql").read_text().rstrip().rstrip(";")
    for a, b in ((query, expected), (expected, query)):
        diff = crawls_con.execute(f"({a}) EXCEPT ALL ({b})").fetchall()
        assert diff == [], diff[:5]
    assert crawls_con.execute(f"SELECT count(*) FROM ({query})").fetchone()[0] > 46 * 2 * 5


def test_body_changes_equal_host_states_compared(crawls_con):
    """body_changes (crawlers compared one by one only where a group names
    them) equals host_states compared host by host, for every crawler."""
    expected = """
        WITH hs AS (SELECT * FROM host_states WHERE crawl IS NOT NULL),
        crawls AS (SELECT crawl, lead(crawl) OVER (ORDER BY crawl) AS next_crawl
                   FROM (SELECT DISTINCT crawl FROM hs)),
        pairs AS (
            SELECT e.crawl AS from_crawl, c.next_crawl AS to_crawl, e.url_host_name,
                   bool_and(e.google_class = 'conditional_allow' AND l.google_class = 'conditional_allow') AS ok,
                   bool_and(e.content_digest IS NOT DISTINCT FROM l.content_digest) AS same_body,
                   bool_and(e.state = l.state) AS same_states
            FROM hs e JOIN crawls c USING (crawl)
            JOIN hs l ON l.crawl = c.next_crawl AND l.url_host_name = e.url_host_name AND l.agent = e.agent
            GROUP BY ALL)
        SELECT from_crawl, to_crawl, count(*), count(*) FILTER (ok), count(*) FILTER (ok AND same_body),
               count(*) FILTER (ok AND NOT same_body), count(*) FILTER (ok AND NOT same_body AND same_states),
               count(*) FILTER (NOT same_states)
        FROM pairs GROUP BY ALL"""
    query = (QUERIES / "body_changes.sql").read_text().rstrip().rstrip(";")
    for a, b in ((query, expected), (expected, query)):
        diff = crawls_con.execute(f"({a}) EXCEPT ALL ({b})").fetchall()
        assert diff == [], diff[:5]
