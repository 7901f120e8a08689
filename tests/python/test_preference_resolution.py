"""AI-use preferences per crawler: the agent_verdicts view (stored
resolved_preferences rows, the `*` fallback, the defaults it fills in) says
for every capture and crawler exactly what the library says for that body,
as `robostats check --explain` prints it; and the cases of
samples/preferences/ give the values their sources state.

samples/preferences/ holds one fetch per Content-Signal and Content-Usage
case (scripts/gen_corpus.py --preferences): every placement of the AIPREF
drafts' Content-Usage (in a group, before any group, after an unrelated
group, in a second * group, between two user-agent lines, the attach
draft's example, path rules) and Cloudflare's Content-Signal (the managed
block of 2025 and 2026, hand-written variants)."""

import re
import subprocess

import pytest

from conftest import BIN, ROOT, connect, ingest, preference_columns
from warc_facts import read_warc

PREFERENCES = "samples/preferences/CC-MAIN-20251108044800-20251108074800-00010.warc.gz"
COLUMNS = preference_columns()
# A crawler no group of any case names: it obeys what `*` obeys.
UNNAMED = "NoGroupNamesThisBot"


@pytest.fixture(scope="module")
def pref_con(tmp_path_factory):
    out = tmp_path_factory.mktemp("preferences") / "out"
    ingest([PREFERENCES], out)
    c = connect(out)
    yield c
    c.close()


@pytest.fixture(scope="module")
def bodies():
    """url -> body of every 200 response of the preferences sample."""
    facts = read_warc(ROOT / PREFERENCES, PREFERENCES)
    return {r.url: r.body for r in facts.responses if r.status == 200}


USAGE = re.compile(r"Content-Usage train-ai=(\S+) search=(\S+) \(line (\d+)\)$")
SIGNAL = re.compile(r"Content-Signal search=(\S+) ai-train=(\S+) ai-input=(\S+) use=(\S+) "
                    r"\(line (\d+)(?:, (its groups|before any user-agent: the whole file))?\)$")
NO_LINE = "preferences: no Content-Usage or Content-Signal line applies"


def parse_preferences(said):
    """agent_verdicts' preference columns from `check --explain`'s
    preferences column: a directive no line of which applies is unknown."""
    if said == NO_LINE:
        return ("unknown",) * 2 + (None,) + ("unknown",) * 4 + (None, None)
    usage, signal = said.removeprefix("preferences: ").split("; ")
    if usage == "no Content-Usage line applies":
        usage_t = usage_s = "unknown"
        usage_line = None
    else:
        m = USAGE.match(usage)
        assert m, usage
        usage_t, usage_s, usage_line = m.group(1), m.group(2), int(m.group(3))
    if signal == "no Content-Signal line applies":
        sig_s = sig_t = sig_i = use = "unknown"
        sig_line = scope = None
    else:
        m = SIGNAL.match(signal)
        assert m, signal
        sig_s, sig_t, sig_i, use, sig_line, scope = m.groups()
        sig_line = int(sig_line)
        scope = {"its groups": "group", "before any user-agent: the whole file": "file", None: None}[scope]
    return (usage_t, usage_s, usage_line, sig_s, sig_t, sig_i, use, sig_line, scope)


def explained(body, agents, tmp_path):
    """What `check --explain` says of each agent at /: the columns of
    agent_verdicts, as a tuple, per agent."""
    path = tmp_path / "robots.txt"
    path.write_bytes(body)
    proc = subprocess.run(
        [str(BIN), "check", "--explain", *[a for agent in agents for a in ("-a", agent)], str(path), "/"],
        capture_output=True, text=True, check=True,
    )
    out = {}
    header, *lines = proc.stdout.splitlines()
    assert header == "verdict\tagent\turl\tgroup\tline\trule\tpreferences\tnote"
    for agent, line in zip(agents, lines):
        fields = line.split("\t")
        assert len(fields) == 8, line
        # a crawler that ignores the * group: allowed by its policy where
        # only the * group disallows it
        allowed = fields[0] == "allowed" or fields[7].startswith("by its policy: allowed")
        said = fields[6]
        if said.startswith("preferences: none apply"):
            out[agent] = (None,) * len(COLUMNS)
        elif said.startswith("preferences:"):
            out[agent] = parse_preferences(said)
        else:
            # No preference line in the file: unknown where it may fetch /.
            assert said == "-", said
            v = "unknown" if allowed else None
            out[agent] = (v, v, None, v, v, v, v, None, None)
    return out


def test_the_view_says_what_the_library_says(pref_con, bodies, tmp_path):
    agents = [a for (a,) in pref_con.execute(
        "SELECT token FROM agents WHERE token <> '*' ORDER BY token").fetchall()]
    assert {"AdsBot-Google", "Mediapartners-Google"} <= set(agents)
    rows = pref_con.execute(
        f"""SELECT c.url, v.agent, {', '.join('v.' + c for c in COLUMNS)}
            FROM agent_verdicts v JOIN captures c USING (warc_filename, warc_record_offset)
            WHERE c.robots_parsed AND (v.agent = '*' OR v.agent IN (SELECT unnest(?)))""",
        [agents],
    ).fetchall()
    view = {(r[0], r[1]): tuple(r[2:]) for r in rows}
    assert len(bodies) == 36 and len(view) == 36 * (len(agents) + 1)
    for url, body in bodies.items():
        said = explained(body, agents + [UNNAMED], tmp_path)
        for agent in agents:
            assert view[(url, agent)] == said[agent], (url, agent)
        assert view[(url, "*")] == said[UNNAMED], url


def at(con, url_part, agent, *columns):
    rows = con.execute(
        f"""SELECT {', '.join(columns)} FROM agent_verdicts v JOIN captures c USING (warc_filename, warc_record_offset)
            WHERE c.url LIKE ? AND v.agent = ?""",
        [f"%{url_part}%", agent],
    ).fetchall()
    assert len(rows) == 1, (url_part, agent, rows)
    return rows[0]


def url_of(bodies, needle):
    (url,) = [u for u, b in bodies.items() if needle in b]
    return url.split("://", 1)[1]


def test_cases_give_what_their_sources_say(pref_con, bodies):
    # The AIPREF attach draft's example: train-ai=n at / for every crawler
    # but ExampleBot (not a crawler of interest: see crates/robostats-robots/tests/preferences.rs).
    u = url_of(bodies, b"User-Agent: ExampleBot")
    assert at(pref_con, u, "GPTBot", "usage_train_ai", "usage_line") == ("n", 4)
    # Cloudflare's managed block: * says search=yes, ai-train=no; the
    # crawlers the block disallows get no preference at all.
    u = url_of(bodies, b"Content-signal: search=yes,ai-train=no,use=reference")
    assert at(pref_con, u, "Googlebot", "signal_search", "signal_ai_train", "signal_use", "signal_scope") == (
        "y", "n", "reference", "group")
    assert at(pref_con, u, "GPTBot", "root_allowed", "signal_ai_train") == (False, None)
    # Written before any group: for every crawler, scope file.
    u = url_of(bodies, b"# AI preferences for the whole site")
    assert at(pref_con, u, "ClaudeBot", "signal_ai_train", "signal_ai_input", "signal_scope") == ("n", "y", "file")
    # A Content-Usage rule before any group is ignored, as a rule is.
    u = url_of(bodies, b"Content-Usage: search=y, train-ai=n\n\nUser-agent: *")
    assert at(pref_con, u, "ClaudeBot", "usage_train_ai", "usage_line") == ("unknown", None)
    # Between two user-agent lines: GPTBot's own group under AIPREF.
    u = url_of(bodies, b"User-agent: GPTBot\ncontent-usage: train-ai=n\nUser-agent: DuckDuckBot")
    assert at(pref_con, u, "GPTBot", "usage_train_ai") == ("n",)
    # A named group's own signal, not *'s.
    u = url_of(bodies, b"User-agent: GPTBot\nContent-Signal: ai-train=no\nAllow: /")
    assert at(pref_con, u, "GPTBot", "signal_ai_train", "signal_search") == ("n", "unknown")
    assert at(pref_con, u, "ClaudeBot", "signal_ai_train", "signal_search") == ("y", "y")
    # y/n under Content-Signal and an upper-case label say nothing.
    for needle in (b"Content-Signal: search=y, ai-train=n", b"Content-Signal: Search=yes, AI-Train=no"):
        u = url_of(bodies, needle)
        assert at(pref_con, u, "ClaudeBot", "signal_search", "signal_ai_train") == ("unknown", "unknown")


def test_the_groupings_differ_only_where_a_content_usage_line_splits_a_run(pref_con):
    rows = pref_con.execute(
        """SELECT DISTINCT c.url, s.line, s.google_group, s.aipref_group
           FROM preference_statements s JOIN captures c USING (warc_filename, warc_record_offset)
           WHERE s.google_group IS DISTINCT FROM s.aipref_group"""
    ).fetchall()
    # In this sample every preference line stands before any split, so its
    # two group ids agree (crates/robostats-robots/tests/preferences.rs has lines after one) ...
    assert rows == []
    split = pref_con.execute(
        """SELECT count(DISTINCT (u.warc_filename, u.warc_record_offset))
           FROM user_agents u JOIN preference_statements s USING (warc_filename, warc_record_offset)
           WHERE s.directive = 'content-usage' AND s.google_group = u."group"
             AND u.line > s.line AND s.aipref_group IS NOT NULL"""
    ).fetchall()[0][0]
    # ... and a Content-Usage line splits the user-agent run of one Google
    # group in exactly the three between_agents files.
    assert split == 3
