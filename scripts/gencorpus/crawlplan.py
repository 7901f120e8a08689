"""The plan of --crawls: three crawls of the same hosts whose robots.txt
policies change in planned ways (the scenarios), the few bodies they
serve, where each capture goes (file, order), and the state every planned
crawler finds on every host of every crawl (the rows of plan.tsv).

--scale K gives every scenario K times its hosts: copy 0 keeps the names of
K = 1, copy j > 0 appends "-j" to the name's first label. A crawl's
captures go to more files then (about FETCHES_PER_FILE each); a file's
window grows when its captures need more than FILE_STEP at one second
apart, so the crawl's fetch times stay strictly increasing (to the
second, as WARC-Date has them) through its files. At --scale 1 the layout
and every draw are those of the two-file plan.

The states follow the definitions of the crawl-over-crawl queries. A host's
captures in a crawl are its robots.txt captures (http and https); the
latest decides; a 3xx is followed to the latest capture of its Location in
the same crawl (up to 5 hops). From the final capture, for each crawler:
2xx: full, partial or none by its rules (a group naming it wins over *),
decided_by named, wildcard or no_group; 4xx but 429: no_robots; 5xx, 429
or a failed fetch: unreachable; a redirect whose target has no capture:
redirect. The bodies name no crawler but GPTBot, CCBot and ClaudeBot, so
the five crawlers of the plan find a change whenever any crawler does."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from .config import FILE_SPAN, FILE_STEP

CRAWLS = ["CC-MAIN-2025-05", "CC-MAIN-2025-13", "CC-MAIN-2025-21"]
FILES_PER_CRAWL = 2              # per crawl at --scale 1; the least at any scale
FETCHES_PER_FILE = 20_000        # a crawl gets ceil(fetches / this) files if more than FILES_PER_CRAWL
# The crawlers of plan.tsv: tokens as in crates/robostats-rows/data/agents.tsv.
PLAN_AGENTS = ["*", "GPTBot", "CCBot", "ClaudeBot", "Googlebot"]
PLAN_COLUMNS = ["crawl", "url_host_name", "agent", "state", "decided_by", "body"]
MAX_HOPS = 5


# ---------------------------------------------------------------------------
# Bodies: comment lines, then groups of (user-agent tokens, disallowed paths)
# ---------------------------------------------------------------------------

def group(agents, *disallowed):
    """A group: a user-agent line per token, a Disallow line per path
    (the path "" allows everything)."""
    return (tuple(agents), disallowed)


GPTBOT_BLOCK = [group(["GPTBot"], "/"), group(["*"], "")]

# {body id: (comment lines, groups)}; the id is plan.tsv's `body`.
BODIES = {
    "allow_all": ([], [group(["*"], "")]),
    "star_full": ([], [group(["*"], "/")]),
    "star_partial": ([], [group(["*"], "/private/")]),
    "gptbot_block": ([], GPTBOT_BLOCK),
    "gptbot_block_rev1": (["# Policy for automated clients, revised January 2025"], GPTBOT_BLOCK),
    "gptbot_block_rev2": (["# Policy for automated clients, revised March 2025"], GPTBOT_BLOCK),
    "gptbot_block_rev3": (["# Policy for automated clients, revised May 2025"], GPTBOT_BLOCK),
    "ai_block_star_partial": ([], [group(["GPTBot", "CCBot"], "/"), group(["*"], "/private/")]),
    "ccbot_only": ([], [group(["CCBot"], "/")]),
    "claudebot_partial": ([], [group(["ClaudeBot"], "/drafts/"), group(["*"], "")]),
    "empty": ([], []),
}


def body_bytes(body_id):
    """The body's text: comments, then the groups separated by blank lines
    (LF line ends, a final newline; the empty body is zero bytes)."""
    comments, groups = BODIES[body_id]
    blocks = ["\n".join(comments)] if comments else []
    for agents, disallowed in groups:
        lines = ["User-agent: " + a for a in agents]
        lines += [("Disallow: " + p).rstrip() for p in disallowed]
        blocks.append("\n".join(lines))
    return ("\n\n".join(blocks) + "\n").encode() if blocks else b""


def agent_state(body_id, agent):
    """(state, decided_by) of `agent` under the body: the groups naming it
    (tokens compare case-insensitively), else the * groups, else none."""
    groups = BODIES[body_id][1]
    named = [g for g in groups if agent != "*" and agent.lower() in (a.lower() for a in g[0])]
    star = [g for g in groups if "*" in g[0]]
    if named:
        decided_by, applying = "named", named
    elif star:
        decided_by, applying = "wildcard", star
    else:
        return "none", "no_group"
    paths = [p for _, disallowed in applying for p in disallowed if p]
    return ("full" if "/" in paths else "partial" if paths else "none"), decided_by


# ---------------------------------------------------------------------------
# Captures and scenarios
# ---------------------------------------------------------------------------

@dataclass
class Capture:
    """One fetch of a robots.txt URL. `host` may hold "{}", the scenario
    host's name; `body` is a BODIES id (2xx), `location` a 3xx's target;
    `failed`: a 200 cut short (WARC-Truncated: disconnect)."""
    status: int
    body: str | None = None
    scheme: str = "https"
    host: str = "{}"
    location: str | None = None
    failed: bool = False
    order: tuple = ()          # (file, phase, draw): set by the layout
    when: datetime | None = None

    @property
    def url(self):
        return "%s://%s/robots.txt" % (self.scheme, self.host)

    def named(self, host):
        """This capture for the scenario host `host`."""
        return Capture(self.status, self.body, self.scheme, self.host.format(host),
                       self.location.format(host) if self.location else None, self.failed)


def ok(body, scheme="https", host="{}"):
    return Capture(200, body, scheme, host)


def err(status, scheme="https"):
    return Capture(status, scheme=scheme)


def moved(location, status=301, scheme="http"):
    return Capture(status, scheme=scheme, location=location)


def cut(body):
    return Capture(200, body, failed=True)


@dataclass
class Scenario:
    """`count` hosts named <prefix>-<word>.example; per crawl the captures
    of each, earliest first (None: not captured); `gptbot`, the state GPTBot
    finds on them in each crawl ("-": absent), which the plan must give."""
    name: str
    prefix: str
    count: int
    crawls: tuple
    gptbot: str


WWW_TARGET = "https://www.{}/robots.txt"
SCENARIOS = [
    Scenario("unchanged_allow_all", "shop", 6, ([ok("allow_all")],) * 3, "none none none"),
    Scenario("newly_blocked", "news", 5,
             ([ok("allow_all")], [ok("gptbot_block")], [ok("gptbot_block")]), "none full full"),
    Scenario("unblocked", "blog", 4, ([ok("gptbot_block")], [ok("allow_all")], [ok("allow_all")]), "full none none"),
    Scenario("star_full", "intranet", 3, ([ok("star_full")],) * 3, "full full full"),
    Scenario("star_partial_then_named", "forum", 2,
             ([ok("star_partial")], [ok("ai_block_star_partial")], [ok("ai_block_star_partial")]),
             "partial full full"),
    Scenario("comment_changed", "press", 7,
             ([ok("gptbot_block_rev1")], [ok("gptbot_block_rev2")], [ok("gptbot_block_rev3")]), "full full full"),
    Scenario("ok_then_404", "wiki", 8, ([ok("gptbot_block")], [err(404)], [err(404)]), "full no_robots no_robots"),
    Scenario("ok_then_503", "store", 9, ([ok("allow_all")], [err(503)], [ok("allow_all")]), "none unreachable none"),
    Scenario("ok_then_429", "api", 10, ([ok("star_partial")], [err(429)], [err(429)]),
             "partial unreachable unreachable"),
    Scenario("not_found_then_block", "media", 11, ([err(404)], [ok("gptbot_block")], [ok("gptbot_block")]),
             "no_robots full full"),
    Scenario("only_crawl1", "old", 12, ([ok("gptbot_block")], None, None), "full - -"),
    Scenario("only_crawl2", "promo", 13, (None, [ok("allow_all")], None), "- none -"),
    Scenario("from_crawl2", "app", 14, (None, [ok("ccbot_only")], [ok("ccbot_only")]), "- none none"),
    # captured twice in crawl 2: the later capture decides
    Scenario("twice_unreachable_then_block", "cdn", 15,
             ([ok("allow_all")], [err(503), ok("gptbot_block")], [ok("gptbot_block")]), "none full full"),
    Scenario("twice_block_then_404", "docs", 16,
             ([ok("gptbot_block")], [ok("gptbot_block"), err(404)], [err(404)]), "full no_robots no_robots"),
    # http and https: the later decides (https in crawls 1 and 2, http in 3)
    Scenario("http_then_https", "mail", 17,
             ([ok("star_full", "http"), ok("allow_all")], [ok("star_full", "http"), ok("allow_all")],
              [ok("allow_all"), ok("star_full", "http")]), "none none full"),
    # http://h/ -> https://www.h/, captured earlier: the target's body decides
    Scenario("redirect_resolved", "portal", 18,
             ([ok("gptbot_block", host="www.{}"), moved(WWW_TARGET)],
              [ok("gptbot_block", host="www.{}"), moved(WWW_TARGET)],
              [ok("star_partial", host="www.{}"), moved(WWW_TARGET, 308)]), "full full partial"),
    Scenario("redirect_unresolved", "moved", 19, ([moved(WWW_TARGET)], [ok("allow_all")], [ok("allow_all")]),
             "redirect none none"),
    Scenario("empty_body", "bare", 20, ([ok("empty")], [ok("empty")], [ok("allow_all")]), "none none none"),
    Scenario("claudebot_partial", "lab", 21, ([ok("claudebot_partial")],) * 3, "none none none"),
    Scenario("failed_fetch", "slow", 1, (None, None, [cut("gptbot_block")]), "- - unreachable"),
]
HOST_WORDS = ["amber", "birch", "cedar", "delta", "ember", "fjord", "garnet", "harbor", "indigo", "juniper",
              "kestrel", "lumen", "maple", "nimbus", "orchid", "pebble", "quartz", "raven", "sierra", "tundra",
              "umber", "willow"]


def scenario_hosts(scenario, scale=1):
    """The scenario's count * scale host names, copy by copy."""
    return ["%s-%s%s.example" % (scenario.prefix, w, "-%d" % copy if copy else "")
            for copy in range(scale) for w in HOST_WORDS[:scenario.count]]


def crawl_fetches(c, scale=1):
    """The number of captures in crawl number `c`."""
    return scale * sum(s.count * len(s.crawls[c]) for s in SCENARIOS if s.crawls[c] is not None)


def files_per_crawl(c, scale=1):
    return max(FILES_PER_CRAWL, math.ceil(crawl_fetches(c, scale) / FETCHES_PER_FILE))


# ---------------------------------------------------------------------------
# The layout: files and times
# ---------------------------------------------------------------------------

def crawl_start(crawl):
    """The first file's start: 00:58 UTC on the Monday of the crawl's ISO
    week (CC-MAIN-YYYY-WW)."""
    year, week = (int(x) for x in crawl.split("-")[2:])
    return datetime.fromisocalendar(year, week, 1).replace(hour=0, minute=58, tzinfo=timezone.utc)


def file_window(fetches):
    """The time from one file's start to the next's for files of up to
    `fetches` captures: FILE_STEP, or whole minutes enough for a capture a
    second after a minute's lead, with a minute to spare."""
    return max(FILE_STEP, timedelta(minutes=math.ceil((fetches + 120) / 60)))


@dataclass
class CrawlFile:
    """One file of a crawl: its number, start, window (to the next file's
    start) and captures in order."""
    crawl: str
    index: int
    start: datetime
    window: timedelta
    captures: list

    @property
    def end(self):
        """The end in the file's name: as far past the next file's start as
        FILE_SPAN is past FILE_STEP."""
        return self.start + self.window + (FILE_SPAN - FILE_STEP)


def crawl_captures(rng, c, scale=1):
    """The captures of crawl number `c`: [(scenario, host, [Capture])],
    each Capture placed in one of the crawl's F files (files_per_crawl).
    One capture goes to file n % F for the crawl's n-th host. Two go to
    consecutive files for even hosts (the earlier to the first) and to one
    file for odd ones (the earlier in the first phase). Within a file and
    phase the order is drawn."""
    files = files_per_crawl(c, scale)
    hosts, n = [], 0
    for scenario in SCENARIOS:
        if scenario.crawls[c] is None:
            continue
        for i, host in enumerate(scenario_hosts(scenario, scale)):
            caps = [cap.named(host) for cap in scenario.crawls[c]]
            assert len(caps) <= 2
            for k, cap in enumerate(caps):
                if len(caps) == 1:
                    cap.order = (n % files, (n // files) % 2, rng.random())
                elif i % 2 == 0:
                    cap.order = ((i // 2) % (files - 1) + k, 0, rng.random())
                else:
                    cap.order = ((i // 2) % files, k, rng.random())
            hosts.append((scenario, host, caps))
            n += 1
    return hosts


def crawl_files(crawl, hosts, files):
    """The crawl's files, each with its captures in order (not dated yet);
    all files of a crawl have the window of its largest."""
    placed = [[] for _ in range(files)]
    for _, _, caps in hosts:
        for cap in caps:
            placed[cap.order[0]].append(cap)
    for caps in placed:
        caps.sort(key=lambda cap: cap.order)
    window = file_window(max(len(caps) for caps in placed))
    return [CrawlFile(crawl, i, crawl_start(crawl) + i * window, window, caps) for i, caps in enumerate(placed)]


def date_captures(f, rng):
    """Date the file's captures: strictly increasing times, all before the
    next file's start (so the crawl's times are distinct)."""
    caps = f.captures
    span = FILE_STEP.total_seconds() * 0.9
    step = max(1, int(span / max(1, len(caps))))
    start = f.start + timedelta(seconds=60)
    for k, cap in enumerate(caps):
        cap.when = start + timedelta(seconds=k * step + rng.randint(0, step // 2))
    assert not caps or caps[-1].when < f.start + f.window


# ---------------------------------------------------------------------------
# The expected states
# ---------------------------------------------------------------------------

def final_captures(captures):
    """{host: the capture that decides for it} among a crawl's (dated)
    captures: its latest, redirects followed; None for a redirect whose
    target has no capture."""
    latest, last = {}, {}
    for cap in sorted(captures, key=lambda c: c.when):
        latest[cap.url] = cap
        last[cap.host] = cap
    finals = {}
    for host, final in last.items():
        hops = 0
        while final is not None and 300 <= final.status < 400:
            if hops == MAX_HOPS:
                raise ValueError("more than %d hops from %s" % (MAX_HOPS, host))
            final, hops = latest.get(final.location), hops + 1
        finals[host] = final
    return finals


def capture_states(final):
    """{agent: (state, decided_by, body id)} from the final capture."""
    if final is None:
        return {a: ("redirect", "", "") for a in PLAN_AGENTS}
    if final.failed or final.status >= 500 or final.status == 429:
        return {a: ("unreachable", "", "") for a in PLAN_AGENTS}
    if final.status >= 400:
        return {a: ("no_robots", "", "") for a in PLAN_AGENTS}
    return {a: agent_state(final.body, a) + (final.body,) for a in PLAN_AGENTS}


def plan_rows(crawl, hosts):
    """plan.tsv's rows of one crawl (every host captured in it, by name),
    one by one; checks each scenario host's GPTBot state against the
    scenario."""
    finals = final_captures([cap for _, _, cs in hosts for cap in cs])
    c = CRAWLS.index(crawl)
    want = {host: scenario for scenario, host, _ in hosts}
    cache = {}
    for name in sorted(finals):
        final = finals[name]
        key = final and (final.failed, final.status, final.body)
        if key not in cache:
            cache[key] = [[a] + list(s) for a, s in capture_states(final).items()]
        states = cache[key]
        scenario = want.get(name)
        if scenario is not None:
            got, expected = states[PLAN_AGENTS.index("GPTBot")][1], scenario.gptbot.split()[c]
            if got != expected:
                raise RuntimeError("%s: %s in %s gives GPTBot %s, not %s" % (scenario.name, name, crawl, got,
                                                                            expected))
        for s in states:
            yield [crawl, name] + s


def check_scenarios():
    """Distinct body ids must be distinct bytes (plan.tsv's promise), and a
    scenario's expected states must say where its hosts are absent."""
    if len({body_bytes(b) for b in BODIES}) != len(BODIES):
        raise RuntimeError("two --crawls bodies have the same bytes")
    for s in SCENARIOS:
        absent = [caps is None for caps in s.crawls]
        if len(s.crawls) != len(CRAWLS) or absent != [g == "-" for g in s.gptbot.split()]:
            raise RuntimeError("scenario %s: its crawls and its expected states disagree" % s.name)
