"""`robostats report`: every table of the page is the result of its query
(run here in DuckDB), every figure is drawn, the SVG files stand alone, and
the page renders in headless Chromium without errors (with a screenshot
kept in target/report/ to look at)."""

import collections
import json
import os
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest

from conftest import BIN, ROOT, TABLES, connect, ingest, run_query

FIGURES = ["outcomes", "restriction", "trends", "transitions", "bias", "sizes", "names", "preferences", "copies",
           "definitions"]
# The crawlers the README and the docs talk about (figures/common.rs, CITED).
CITED = ["GPTBot", "ClaudeBot", "CCBot", "Google-Extended"]
SVG = "{http://www.w3.org/2000/svg}"


class Tables(HTMLParser):
    """The page's tables ({query: [[data-v values]]}, a list per table) and
    the ids of the sections holding an <svg>."""

    def __init__(self):
        super().__init__()
        self.tables, self.svg_sections, self.scripts = [], set(), 0
        self._section = self._table = self._row = None
        self._columns = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "section":
            self._section = a.get("id")
        elif tag == "svg" and self._section:
            self.svg_sections.add(self._section)
        elif tag == "script":
            self.scripts += 1
        elif tag == "table" and "data-query" in a:
            self._table = (a["data-query"], [], [])
            self.tables.append(self._table)
        elif tag == "th" and self._table:
            self._columns = True
        elif tag == "tr" and self._table:
            self._row = []
        elif tag == "td" and self._row is not None:
            self._row.append(json.loads(a["data-v"]))

    def handle_data(self, data):
        if self._columns and self._table:
            self._table[1].append(data)

    def handle_endtag(self, tag):
        if tag == "th":
            self._columns = None
        elif tag == "tr" and self._row:
            self._table[2].append(self._row)
            self._row = None
        elif tag == "table":
            self._table = None


def plain(v):
    """A DuckDB value as the report's JSON has it."""
    if v is None or isinstance(v, (bool, str, int)):
        return v
    if isinstance(v, float):
        return v
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    try:
        f = float(v)
        return int(f) if f.is_integer() else f
    except (TypeError, ValueError):
        return str(v)


def report(outs, html, *extra):
    proc = subprocess.run([str(BIN), "report", *map(str, outs), "-o", str(html), *extra],
                          cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "ROBOSTATS_PYTHON": sys.executable})
    assert proc.returncode == 0, proc.stderr
    return proc


@pytest.fixture(scope="module")
def all_samples(tmp_path_factory):
    """The README's first command: every file under samples/."""
    out = tmp_path_factory.mktemp("report") / "out"
    ingest(["samples/"], out)
    return out


@pytest.fixture(scope="module")
def page(all_samples, tmp_path_factory):
    d = tmp_path_factory.mktemp("page")
    # With a trailing slash, as a shell's completion writes it.
    proc = report([all_samples], d / "report.html", "--figures", f"{d / 'figures'}/")
    (d / "stderr.txt").write_text(proc.stderr)
    return d


def percent(share):
    """A share as the charts write it (svg/numbers.rs, percent)."""
    p = share * 100
    if p == 0:
        return "0 %"
    if abs(p) < 0.1:
        return f"{p:.2f} %"
    return f"{p:.1f} %" if abs(p) < 10 else f"{p:.0f} %"


def marks(svg):
    """The elements of an SVG file in order: ("rect", its <title>) and
    ("text", its anchor, its text)."""
    out = []
    root = ET.parse(svg).getroot()
    # A file of --figures: the chart under its figure's heading.
    chart = root.find(SVG + "g/" + SVG + "svg")
    for el in chart if chart is not None else root:
        if el.tag == SVG + "rect":
            title = el.find(SVG + "title")
            out.append(("rect", title.text if title is not None else ""))
        elif el.tag == SVG + "text":
            out.append(("text", el.get("text-anchor"), el.text))
    return out


def latest_rows(con, query):
    """The rows of `query` of its latest crawl (its last `crawl`)."""
    _, rows = run_query(con, query)
    return [r for r in rows if r["crawl"] == rows[-1]["crawl"]]


def check_restriction(d, out):
    """Figure 2: above, the hosts' facts (read from *'s rows); below, a bar
    per crawler drawn, its full blocks named and by * and its total after
    it, each the query's value; every AI crawler and every cited one drawn,
    whole; the table in the figure's order."""
    rows = latest_rows(connect(out), "policy_trends")
    full = {(r["agent"], r["decided_by"]): r["share"] for r in rows if r["state"] == "full"}
    total = {r["agent"]: r["state_share"] for r in rows if r["state"] == "full"}
    facts = {r["state"]: r["state_share"] for r in rows if r["agent"] == "*" and r["decided_by"] is None}
    segments, totals, whole, row = {}, [], {}, None
    for mark in marks(d / "figures" / "02-restriction.svg"):
        if mark[0] == "rect" and mark[1].count(": ") == 2:
            row, who, shown = mark[1].split(": ")
            segments[row, who.split(" ")[0]] = shown
        elif mark[0] == "rect" and mark[1]:
            name, shown = mark[1].split(": ")
            whole[name] = shown
        elif mark[0] == "text" and mark[1] == "start" and row:
            totals.append((row, mark[2]))
            row = None
    for (agent, by), shown in segments.items():
        assert shown == percent(full.get((agent, {"by": "wildcard"}.get(by, by)), 0)), (agent, by, shown)
    for agent, shown in totals:
        assert shown == percent(total.get(agent, 0)), (agent, shown)
    drawn = [a for a, _ in totals]
    ai = {r["agent"] for r in rows if r["agent_category"] == "ai"}
    assert set(drawn) == ai | {a for a in CITED if a in total} | {"*"}, drawn
    assert len(drawn) < len({r["agent"] for r in rows})
    for state, name in [("no_robots", "no robots.txt"), ("redirect", "unresolved redirect"),
                        ("unreachable", "unreachable")]:
        assert whole.get(name, "0 %") == percent(facts.get(state, 0)), (state, whole)
    parsed = Tables()
    parsed.feed((d / "report.html").read_text())
    columns, shown = next((c, r) for q, c, r in parsed.tables if q == "policy_trends")
    order = [r[0] for r in shown if r[1] == "full"]
    assert list(dict.fromkeys(order)) == [a for a in drawn if a in order], (order, drawn)
    return total


# Figure 10's words for definitions.sql's definitions.
DEFINITION_LABELS = {
    "captures": "parsed captures", "captures_effective": "captures, after the HTTP outcome",
    "captures_named": "captures naming it", "captures_valid": "captures of a valid robots.txt",
    "captures_may_fetch": "captures letting it fetch /", "hosts": "hosts", "hosts_2xx": "hosts with a 2xx",
    "hosts_2xx_404": "hosts with a 2xx or 404", "hosts_200": "hosts with a 200",
    "hosts_with_rules": "hosts with a rule", "hosts_2xx_any_ai": "hosts with a 2xx, any AI crawler",
    "cc_hosts": "hosts, by Common Crawl's precedence", "cc_hosts_robots_txt": "hosts, Common Crawl: a robots.txt",
    "cc_hosts_with_rules": "hosts, Common Crawl: with rules", "fan_domains": "registered domains",
}


def check_definitions(d, out):
    """The last figure: a chart per question, a bar per definition of
    GPTBot and of no one crawler (in words, not the query's names), its
    share and counts those of definitions.sql."""
    rows = latest_rows(connect(out), "definitions")
    assert {r["definition"] for r in rows} <= set(DEFINITION_LABELS)
    for k, question in enumerate(["full_block", "has_robots_txt", "no_ai_training"], 1):
        want = {DEFINITION_LABELS[r["definition"]]:
                f"{r['share'] * 100:.1f} % ({r['numerator']:,} of {r['denominator']:,})"
                for r in rows if r["question"] == question and r["agent"] in ("GPTBot", None)}
        texts = [m[1:] for m in marks(d / "figures" / f"10-definitions-{k}.svg") if m[0] == "text"]
        labels = [t for a, t in texts if a == "end"]
        numbers = [t for a, t in texts if a == "start" and t not in {r["study"] for r in rows}]
        assert dict(zip(labels, numbers)) == want and len(labels) == len(numbers), (question, texts, want)


def check_tables(html, out, con=None, figures=FIGURES):
    parsed = Tables()
    parsed.feed(Path(html).read_text())
    assert parsed.scripts == 0
    assert parsed.svg_sections == set(figures), parsed.svg_sections
    con = con or connect(out)
    checked = set()
    for query, columns, rows in parsed.tables:
        cols, result = run_query(con, query)
        got = [[plain(r[c]) for c in columns] for r in result]
        # Every row shown is a row of the query (as a multiset: rows tied
        # in the query's order may come in either order).
        left = collections.Counter(json.dumps(r) for r in got)
        left.subtract(json.dumps(r) for r in rows)
        missing = [r for r, n in left.items() if n < 0]
        assert not missing, (query, missing[:3], got[:3])
        checked.add(query)
    return checked


def test_every_table_is_its_query(page, all_samples):
    checked = check_tables(page / "report.html", all_samples)
    assert checked >= {"data_set", "outcomes_per_crawl", "policy_trends", "crawler_bias", "line_counts",
                       "size_histogram", "top_user_agents", "nonstandard_directives", "typos",
                       "sitemap_hosts", "preference_adoption", "preference_contradictions"}, checked


def test_the_figures_show_their_queries_numbers(page, all_samples):
    check_restriction(page, all_samples)
    check_definitions(page, all_samples)
    con = connect(all_samples)
    # Figure 3 with one crawl: a bar per crawler, GPTBot's its full blocks.
    _, trends = run_query(con, "policy_trends")
    full = {r["agent"]: r["state_share"] for r in trends if r["state"] == "full"}
    bars = dict(m[1].split(": ") for m in marks(page / "figures" / "03-trends.svg") if m[0] == "rect")
    assert bars["GPTBot"] == percent(full["GPTBot"]) and bars["*"] == percent(full["*"]), bars
    # Figure 7's sitemap hosts: by the Sitemap lines naming them.
    _, sitemaps = run_query(con, "sitemap_hosts")
    drawn = [m[1] for m in marks(page / "figures" / "07-names-4.svg") if m[0] == "rect"]
    assert drawn == [f"{r['sitemap_host']}: {r['sitemap_lines']:,}" for r in sitemaps[:12]], drawn
    # Figure 8: the cited crawlers, whatever their share, beside the AI
    # crawlers told most often.
    # Of the report's crawl, each share with the counts it is of.
    said = latest_rows(con, "preference_contradictions")
    share = {r["agent"]: r for r in said}
    drawn = dict(m[1].split(": ") for m in marks(page / "figures" / "08-preferences-3.svg") if m[0] == "rect")
    assert set(CITED) <= set(drawn) and len(drawn) == 12, drawn
    for agent, shown in drawn.items():
        r = share[agent]
        assert shown == (f"{percent(r['allowed_no_ai_training_share'])} "
                         f"({r['allowed_no_ai_training']:,} of {r['allowed']:,})"), (agent, shown)


def test_the_summary_names_the_figures_once(page):
    stderr = (page / "stderr.txt").read_text()
    assert f"{page / 'figures'}/*.svg" in stderr and "//*.svg" not in stderr, stderr


def test_figures_are_standalone_svg(page):
    files = sorted(p.name for p in (page / "figures").iterdir())
    assert len(files) >= len(FIGURES)
    for i, name in enumerate(FIGURES, 1):
        assert any(f.startswith(f"{i:02}-{name}") for f in files), (name, files)
    for f in (page / "figures").iterdir():
        root = ET.parse(f).getroot()
        assert root.tag == "{http://www.w3.org/2000/svg}svg", f
        assert root.get("viewBox") and root.find("{http://www.w3.org/2000/svg}title") is not None
        # Taken out of the page, a chart keeps its figure's heading.
        heading = root.find("{http://www.w3.org/2000/svg}text")
        n = int(f.name[:2])
        assert heading is not None and heading.text.startswith(f"{n}. "), f
        assert root.find("{http://www.w3.org/2000/svg}title").text.startswith(heading.text[:20]), f


def test_several_data_sets_read_as_one(all_samples, tmp_path):
    """Two output directories are one data set: the same page as one
    directory holding both inputs."""
    a, b, both = tmp_path / "a", tmp_path / "b", tmp_path / "both"
    ingest(["samples/CC-MAIN-20251107005800-20251107035800-00000.warc.gz"], a)
    ingest(["samples/preferences/"], b)
    ingest(["samples/CC-MAIN-20251107005800-20251107035800-00000.warc.gz", "samples/preferences/"], both)
    report([a, b], tmp_path / "two.html")
    report([both], tmp_path / "one.html")
    strip = lambda p: p.read_text().replace(str(a) + ", " + str(b), "X").replace(str(both), "X")
    assert strip(tmp_path / "two.html") == strip(tmp_path / "one.html")


def test_data_sets_sharing_bodies_read_as_one(tmp_path):
    """Two data sets that stored the same bodies (one input under two
    names): each body's lines count once per capture, as in one data
    set."""
    import shutil
    copy = tmp_path / "copy.warc.gz"
    shutil.copy(ROOT / "samples/CC-MAIN-20251107005800-20251107035800-00000.warc.gz", copy)
    a, b, both = tmp_path / "a", tmp_path / "b", tmp_path / "both"
    ingest(["samples/CC-MAIN-20251107005800-20251107035800-00000.warc.gz"], a)
    ingest([str(copy)], b)
    ingest(["samples/CC-MAIN-20251107005800-20251107035800-00000.warc.gz", str(copy)], both)
    report([a, b], tmp_path / "two.html")
    report([both], tmp_path / "one.html")
    strip = lambda p: p.read_text().replace(str(a) + ", " + str(b), "X").replace(str(both), "X")
    assert strip(tmp_path / "two.html") == strip(tmp_path / "one.html")


def test_clear_errors(tmp_path):
    """Each directory is opened as ingest and compact open a data set
    (Dataset::open_read): a manifest, today's format, every table."""
    proc = subprocess.run([str(BIN), "report", str(tmp_path / "gone"), "-o", str(tmp_path / "r.html")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and f"{tmp_path / 'gone'} does not exist" in proc.stderr, proc.stderr
    proc = subprocess.run([str(BIN), "report", str(tmp_path), "-o", str(tmp_path / "r.html")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "is not an ingest output directory (it has no _manifest)" in proc.stderr
    (tmp_path / "_manifest").mkdir()
    (tmp_path / "captures").mkdir()
    proc = subprocess.run([str(BIN), "report", str(tmp_path), "-o", str(tmp_path / "r.html")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "made by an earlier version of robostats" in proc.stderr, proc.stderr
    for table in TABLES:
        (tmp_path / table).mkdir(exist_ok=True)
    proc = subprocess.run([str(BIN), "report", str(tmp_path), "-o", str(tmp_path / "r.html"),
                           "--python", "/nonexistent/python3"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "pip install duckdb" in proc.stderr, proc.stderr
    # A Python where the package is found but does not load: its reason.
    broken = tmp_path / "broken"
    (broken / "duckdb").mkdir(parents=True)
    (broken / "duckdb" / "__init__.py").write_text('raise ImportError("planted: wrong architecture")\n')
    python = broken / "python3"
    python.write_text(f'#!/bin/sh\nPYTHONPATH={broken} exec {sys.executable} "$@"\n')
    python.chmod(0o755)
    proc = subprocess.run([str(BIN), "report", str(tmp_path), "-o", str(tmp_path / "r.html"), "--python", str(python)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0 and "duckdb is there but cannot be imported: planted" in proc.stderr, proc.stderr
    assert not (tmp_path / "r.html").exists()


def test_queries_that_run_too_long_are_stopped(all_samples, tmp_path):
    """A Python whose queries never end: the report stops it at --timeout
    and says so, and writes nothing."""
    python = tmp_path / "slow-python"
    python.write_text('#!/bin/sh\ncase "$2" in *find_spec*) exit 0 ;; esac\nexec sleep 600\n')
    python.chmod(0o755)
    started = time.monotonic()
    proc = subprocess.run([str(BIN), "report", str(all_samples), "-o", str(tmp_path / "r.html"),
                           "--python", str(python), "--timeout", "2"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "longer than 2 s" in proc.stderr and "--timeout" in proc.stderr, \
        proc.stderr
    assert time.monotonic() - started < 30
    assert not (tmp_path / "r.html").exists()


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    if os.environ.get("CI"):
        pytest.fail("chromium is missing: scripts/test.sh installs Debian's chromium")
    pytest.skip("no chromium here (scripts/test.sh installs it)")


def test_the_page_renders_in_chromium(page):
    """Headless Chromium loads the page with no console error, every figure
    is in the rendered DOM, and the screenshot is kept to look at."""
    browser = chromium()
    shots = ROOT / "target" / "report"
    shots.mkdir(parents=True, exist_ok=True)
    url = (page / "report.html").as_uri()
    common = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
              "--enable-logging=stderr", "--v=0", "--user-data-dir=" + str(page / "profile")]
    dom = subprocess.run(common + ["--dump-dom", url], capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr
    console = [l for l in dom.stderr.splitlines() if "CONSOLE" in l or "Uncaught" in l]
    assert not console, console
    rendered = Tables()
    rendered.feed(dom.stdout)
    assert rendered.svg_sections == set(FIGURES)
    shot = subprocess.run(common + [f"--screenshot={shots / 'samples.png'}", "--window-size=1280,9600", url],
                          capture_output=True, text=True, timeout=120)
    assert shot.returncode == 0, shot.stderr
    assert (shots / "samples.png").stat().st_size > 100_000


@pytest.fixture(scope="module")
def crawls_page(tmp_path_factory):
    """The report on the generated crawls with planned transitions: every
    figure has data there, transitions included."""
    from test_crawls import generate
    d = tmp_path_factory.mktemp("crawls-report")
    generate(d / "warc")
    ingest(sorted(str(p) for p in (d / "warc").glob("*.warc.gz")), d / "out")
    report([d / "out"], d / "report.html", "--figures", d / "figures")
    return d


def test_every_figure_of_several_crawls_is_drawn_from_its_query(crawls_page):
    html = crawls_page / "report.html"
    checked = check_tables(html, crawls_page / "out")
    assert {"policy_transitions", "body_changes", "policy_trends", "crawler_bias", "outcomes_per_crawl"} <= checked
    parsed = Tables()
    parsed.feed(html.read_text())
    rows = {q: r for q, _, r in parsed.tables}
    for query in ("policy_transitions", "body_changes", "policy_trends", "crawler_bias", "outcomes_per_crawl",
                  "line_counts", "size_histogram", "top_user_agents"):
        assert rows[query], query
    # The tables that show every row show all of them: of every crawl, or
    # of the report's crawl (the latest), for a figure of one crawl.
    con = connect(crawls_page / "out")
    for query in ("outcomes_per_crawl", "body_changes"):
        assert len(rows[query]) == len(run_query(con, query)[1]), query
    latest = con.sql("SELECT max(crawl) FROM crawl_hosts").fetchall()[0][0]
    histogram = [r for r in run_query(con, "size_histogram")[1] if r["crawl"] == latest]
    assert len(rows["size_histogram"]) == len(histogram)
    # Figures 6 to 8 name that crawl.
    titles = html.read_text()
    for title in ("Sizes and line counts", "What the files name", "AI-use preferences"):
        assert f"{title}, {latest}</h2>" in titles, title
    # Figures 1 to 6 draw data, not the note of an empty chart.
    for name in FIGURES[:6]:
        svgs = sorted((crawls_page / "figures").glob(f"*-{name}*.svg"))
        assert svgs and all("no data" not in p.read_text() and "no transitions" not in p.read_text()
                            for p in svgs), name
    # Figure 4: a matrix per crawler drawn, with GPTBot's planned moves.
    matrices = sorted((crawls_page / "figures").glob("04-transitions-*.svg"))
    assert len(matrices) >= 3
    assert any("Transitions of GPTBot" in p.read_text() for p in matrices)
    out = crawls_page / "out"
    total = check_restriction(crawls_page, out)
    check_definitions(crawls_page, out)
    # Figure 3: a line per crawler, named at its end with its latest share;
    # no line but a cited crawler's hides under *'s.
    _, trends = run_query(connect(out), "policy_trends")
    lines = {}
    for r in trends:
        if r["state"] == "full":
            lines.setdefault(r["agent"], {})[r["crawl"]] = r["state_share"]
    names = [m[2] for m in marks(crawls_page / "figures" / "03-trends.svg") if m[0] == "text" and m[1] == "start"]
    drawn = [n.rsplit(" ", 2)[0] for n in names]
    assert set(CITED) | {"*"} <= set(drawn), names
    assert all(n == f"{a} {percent(total[a])}" for a, n in zip(drawn, names)), names
    assert all(lines[a] != lines["*"] for a in drawn if a not in CITED + ["*"]), drawn


def test_data_sets_that_are_not_one_are_refused(crawls_page, all_samples, tmp_path):
    proc = subprocess.run([str(BIN), "report", str(all_samples), str(all_samples), "-o", str(tmp_path / "r.html")],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "ROBOSTATS_PYTHON": sys.executable})
    assert proc.returncode == 2 and "named twice" in proc.stderr, proc.stderr
    copy = tmp_path / "copy"
    shutil.copytree(crawls_page / "out", copy)
    proc = subprocess.run([str(BIN), "report", str(crawls_page / "out"), str(copy), "-o", str(tmp_path / "r.html")],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "ROBOSTATS_PYTHON": sys.executable})
    assert proc.returncode == 2 and "in more than one of the data sets" in proc.stderr, proc.stderr
    assert not (tmp_path / "r.html").exists()


# With a rank list (--ranks), one more figure, the last (figures/popularity.rs).
RANKED_FIGURES = FIGURES + ["popularity"]
DECIDED = ["named (a group names it)", "by * (no group names it)"]


def tranco(out, path):
    """A Tranco-style list (rank,domain, no header) of the data set's
    registered domains, sorted: some in each band of by_rank.sql, a few past
    the last bound, and every tenth left out (unranked)."""
    domains = [d for (d,) in connect(out).sql(
        "SELECT DISTINCT url_host_registered_domain FROM captures "
        "WHERE url_host_registered_domain IS NOT NULL ORDER BY 1").fetchall()]
    lines, rank = [], 0
    for i, domain in enumerate(domains):
        if i % 10 == 9:
            continue
        # 1 to 1,000, then 1,001 to 10,000, ..., then past 1,000,000.
        step = [5, 60, 600, 6000, 60000][min(i // 120, 4)]
        rank = max(rank + step, [0, 1000, 10000, 100000, 1000000][min(i // 120, 4)] + 1)
        lines.append(f"{rank},{domain}")
    path.write_text("\n".join(lines) + "\n")
    return path


def band_label(first, last):
    """A band as the figure writes it."""
    if first is None:
        return "unranked"
    return f"{first:,}+" if last is None else f"{first:,}\u2013{last:,}"


def drawn_bands(rows, agent, first_end=1000):
    """by_rank.sql's rows a crawler's chart draws: full blocks of the hosts
    with a 2xx, per disjoint band holding such a host in rank order (a row
    from rank 1 past the first band's end, the first bound, is a cut), then
    the unranked."""
    mine = [r for r in rows if r["agent"] == agent and r["question"] == "full_block"
            and r["definition"] == "hosts_2xx"]
    bands = [r for r in mine if r["band_first"] is not None and r["denominator"] > 0
             and not (r["band_first"] == 1 and (r["band_last"] or 0) > first_end)]
    return sorted(bands, key=lambda r: (r["band_first"], r["band_last"] is None, r["band_last"] or 0)) + \
        [r for r in mine if r["band_first"] is None]


@pytest.fixture(scope="module")
def ranked_page(all_samples, tmp_path_factory):
    d = tmp_path_factory.mktemp("ranked")
    ranks = tranco(all_samples, d / "tranco.csv")
    report([all_samples], d / "report.html", "--figures", d / "figures", "--ranks", ranks)
    return d, ranks


def test_a_rank_list_adds_who_blocks_by_popularity(ranked_page, all_samples, page):
    d, ranks = ranked_page
    html = (d / "report.html").read_text()
    con = connect(all_samples, ranks)
    checked = check_tables(d / "report.html", all_samples, con, RANKED_FIGURES)
    assert "by_rank" in checked, checked
    assert "Who blocks, by popularity" in html and str(ranks) in html
    latest = con.sql("SELECT max(crawl) FROM crawl_hosts").fetchall()[0][0]
    _, rows = run_query(con, "by_rank")
    rows = [r for r in rows if r["crawl"] == latest]
    # The list ranks hosts in every band.
    assert {r["band_first"] for r in rows} >= {1, 1001, 10001, 100001, 1000001, None}, rows[:3]
    parsed = Tables()
    parsed.feed(html)
    [(columns, shown)] = [(c, r) for q, c, r in parsed.tables if q == "by_rank"]
    expected = []
    for k, agent in enumerate(CITED, 1):
        bands = drawn_bands(rows, agent)
        expected += [[r[c] for c in columns] for r in bands]
        segments, texts = {}, []
        for mark in marks(d / "figures" / f"11-popularity-{k}.svg"):
            if mark[0] == "rect" and mark[1].count(": ") == 2:
                label, who, pct = mark[1].split(": ")
                segments[label, who] = pct
            elif mark[0] == "text" and mark[1] == "start" and " of " in mark[2]:
                texts.append(mark[2])
        want = [f"{percent(r['share'])} ({r['numerator']:,} of {r['denominator']:,})" for r in bands]
        assert texts == want, (agent, texts, want)
        for r in bands:
            assert r["named"] + r["wildcard"] == r["numerator"], r
            for who, n in zip(DECIDED, (r["named"], r["wildcard"])):
                shown_pct = segments.get((band_label(r["band_first"], r["band_last"]), who), "0 %")
                assert shown_pct == percent(n / r["denominator"]), (agent, r, who)
        assert set(label for label, _ in segments) <= {band_label(r["band_first"], r["band_last"]) for r in bands}
    # The table beside the charts: the rows drawn, in the figure's order.
    assert shown == [[plain(v) for v in row] for row in expected], (shown[:3], expected[:3])
    # The other figures are those of the page without a rank list.
    assert (page / "report.html").read_text().count("<section") == len(FIGURES)
    assert html.count("<section") == len(RANKED_FIGURES)


def test_without_a_rank_list_there_is_no_such_figure(page):
    html = (page / "report.html").read_text()
    assert 'id="popularity"' not in html and "by popularity" not in html and 'data-query="by_rank"' not in html
    assert not list((page / "figures").glob("*popularity*"))


def test_a_rank_list_that_ranks_no_host_draws_the_unranked_alone(all_samples, tmp_path):
    ranks = tmp_path / "other.csv"
    ranks.write_text("1,not-in-the-data-set.example\n2,another-one.example\n")
    report([all_samples], tmp_path / "report.html", "--figures", tmp_path / "figures", "--ranks", ranks)
    html = (tmp_path / "report.html").read_text()
    assert "the rank list ranks no host of the data set" in html
    svgs = sorted((tmp_path / "figures").glob("11-popularity-*.svg"))
    assert len(svgs) == 4, svgs
    for svg in svgs:
        labels = {m[1].split(": ")[0] for m in marks(svg) if m[0] == "rect" and m[1].count(": ") == 2}
        assert labels <= {"unranked"}, (svg, labels)


def test_an_empty_first_band_does_not_make_a_cut_a_band(all_samples, tmp_path):
    """No host ranks in 1-1,000 (every rank moved past it): the cut 1-10,000
    holds the same hosts as the band 1,001-10,000, and is not drawn."""
    ranks = tranco(all_samples, tmp_path / "tranco.csv")
    moved = tmp_path / "moved.csv"
    moved.write_text("".join(f"{int(rank) + 5000},{name}\n" for rank, name in
                             (line.split(",", 1) for line in ranks.read_text().splitlines())))
    report([all_samples], tmp_path / "report.html", "--figures", tmp_path / "figures", "--ranks", moved)
    for svg in sorted((tmp_path / "figures").glob("11-popularity-*.svg")):
        labels = {m[1].split(": ")[0] for m in marks(svg) if m[0] == "rect" and m[1].count(": ") == 2}
        assert "1–10,000" not in labels and "1,001–10,000" in labels, (svg, labels)


def test_a_missing_rank_list_is_named(all_samples, tmp_path):
    missing = tmp_path / "tranco.csv"
    proc = subprocess.run([str(BIN), "report", str(all_samples), "-o", str(tmp_path / "r.html"),
                           "--ranks", str(missing)], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "ROBOSTATS_PYTHON": sys.executable})
    assert proc.returncode == 2 and f"the rank list {missing} does not exist" in proc.stderr, proc.stderr
    assert not (tmp_path / "r.html").exists()
    proc = subprocess.run([str(BIN), "report", str(all_samples), "-o", str(tmp_path / "r.html"),
                           "--rank-column", "rank"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "--ranks" in proc.stderr, proc.stderr
