"""Every command the documentation shows runs as written.

The ```sh and ```python blocks of README.md, queries/README.md and docs/*.md
run in document order, in a fresh working directory that looks like a clone
(its top-level entries link to the repository's), with `robostats` installed
by the README's own `cargo install` command into a private root. A ```text
block's `$ command` lines run too, and the lines shown after them must be in
the output (`...` stands for lines left out; whitespace is compared loosely,
since a shown line may be wrapped).

The working directory is not the checkout: nothing a block writes lands in
it (its entries are links into the checkout, so a test checks that the
checkout is unchanged). The README's first query runs again from another
directory, its data set elsewhere. Every Python a block starts refuses to
show a DuckDB result with a HUGEINT column (what `sum` gives: pandas
reads it as floats), through a `sitecustomize` module.

A block that cannot run here (the network, a real cluster) is marked with
`<!-- not run: REASON -->` on the line before it. Paths that stand for a
user's data are mapped to fixtures: `/data/cc/` is a local mirror of the
files that `robotstxt.paths.gz` lists, and `crawl/` holds copies of the
samples.
"""

import collections
import gzip
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import doc_blocks
from conftest import ROOT, connect, ingest, run_query

# docs/python.md runs in the Python package's own environment, where its
# examples are tested (tests/package/test_guide.py).
DOCS = ["README.md", "queries/README.md"] + sorted(
    str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md") if p.name != "python.md"
)

# Lines of a block that are not run, and why.
NOT_RUN_LINES = {
    "scripts/test.sh": "the test command itself: it runs this test",
}

# Imported by every Python the blocks start (PYTHONPATH): a result shown
# or made a DataFrame has no HUGEINT column.
NO_HUGEINT = """
try:
    import duckdb
except ImportError:
    duckdb = None


def _checked(name):
    original = getattr(duckdb.DuckDBPyRelation, name)

    def checked(self, *args, **kwargs):
        huge = [c for c, t in zip(self.columns, self.types) if str(t) == "HUGEINT"]
        if huge:
            raise AssertionError(f"HUGEINT columns {huge}: cast the sums to BIGINT")
        return original(self, *args, **kwargs)
    return checked


if duckdb is not None:
    for _name in ("show", "df"):
        setattr(duckdb.DuckDBPyRelation, _name, _checked(_name))
"""

def blocks(doc):
    """(first line number, language, text, reason not run or None) of each block."""
    return doc_blocks.blocks(ROOT / doc)


def test_every_block_is_found_and_every_skip_says_why():
    found = {doc: blocks(doc) for doc in DOCS}
    assert sum(len(b) for b in found.values()) >= 20
    runnable = [b for bs in found.values() for b in bs if b[1] in ("sh", "python") and not b[3]]
    assert len(runnable) >= 8


@pytest.fixture(scope="module")
def clone(tmp_path_factory):
    """A working directory like a fresh clone, and the fixtures the docs name."""
    work = tmp_path_factory.mktemp("clone")
    for entry in ROOT.iterdir():
        if entry.name not in ("target", "out", ".git", ".venv") and not entry.name.startswith("."):
            (work / entry.name).symlink_to(entry)
    samples = sorted((ROOT / "samples").glob("*.warc.gz"))
    crawl = work / "crawl"
    crawl.mkdir()
    mirror = tmp_path_factory.mktemp("mirror")
    listed = []
    for i, sample in enumerate(samples):
        shutil.copy(sample, crawl / sample.name)
        name = f"crawl-data/CC-MAIN-2025-47/segments/{i}/robotstxt/{sample.name}"
        (mirror / name).parent.mkdir(parents=True)
        shutil.copy(sample, mirror / name)
        listed.append(name)
    with gzip.open(work / "robotstxt.paths.gz", "wt") as f:
        f.write("\n".join(listed) + "\n")
    site = tmp_path_factory.mktemp("site")
    (site / "sitecustomize.py").write_text(NO_HUGEINT)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(site), *filter(None, [env.get("PYTHONPATH")])])
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # scripts/ is the checkout's
    env["CARGO_TARGET_DIR"] = str(ROOT / "target")  # the build is reused
    env["CARGO_INSTALL_ROOT"] = str(work / ".cargo-root")  # not ~/.cargo
    env["PATH"] = os.pathsep.join([str(work / ".cargo-root" / "bin"), str(Path(sys.executable).parent), env["PATH"]])
    for var in ("SLURM_ARRAY_TASK_ID", "AWS_BATCH_JOB_ARRAY_INDEX", "JOB_COMPLETION_INDEX"):
        env.pop(var, None)
    return work, env, str(mirror) + "/"


def run_block(clone, lang, text):
    work, env, mirror = clone
    text = text.replace("/data/cc/", mirror)
    if lang == "python":
        cmd = [sys.executable, "-"]
    else:
        kept = []
        for line in text.splitlines():
            if line.strip() in NOT_RUN_LINES:
                line = f"# not run: {NOT_RUN_LINES[line.strip()]}"
            kept.append(line)
        text = "\n".join(kept) + "\n"
        cmd = ["bash", "-euo", "pipefail", "-s"]
    return subprocess.run(cmd, input=text, cwd=work, env=env, capture_output=True, text=True, timeout=600)


def loose(text):
    return " ".join(text.split())


def checkout_state():
    """What git sees in the checkout, but the build directories (which the
    blocks share, and where the test command builds the fuzz targets
    meanwhile) and pytest's cache."""
    proc = subprocess.run(["git", "status", "--porcelain", "--ignored", "--untracked-files=all"], cwd=ROOT,
                          capture_output=True, text=True, check=True)
    # (git quotes a path that holds a space)
    return sorted(line for line in proc.stdout.splitlines()
                  if not line[3:].lstrip('"').startswith(("target/", "fuzz/target/", ".pytest_cache/"))
                  and "__pycache__/" not in line)


def test_every_documented_command_runs_as_written(clone):
    assert clone[0].resolve() != ROOT.resolve()
    before = checkout_state()
    ran = []
    for doc in DOCS:
        for line, lang, text, not_run in blocks(doc):
            where = f"{doc}:{line}"
            if not_run:
                continue
            if lang in ("sh", "python"):
                proc = run_block(clone, lang, text)
                assert proc.returncode == 0, f"{where} failed:\n{text}\n{proc.stdout}\n{proc.stderr}"
                ran.append(where)
            elif lang == "text" and text.startswith("$ "):
                command, *shown = text.splitlines()
                proc = run_block(clone, "sh", command[2:] + "\n")
                assert proc.returncode == 0, f"{where} failed:\n{command}\n{proc.stderr}"
                actual = loose(proc.stdout)
                for expected in shown:
                    if expected.strip() and expected.strip() != "...":
                        assert loose(expected) in actual, f"{where}: {expected!r} not in the output of {command}:\n{proc.stdout}"
                ran.append(where)
    # The README's two set-up commands' first, its install and its query ran.
    assert any(w.startswith("README.md") for w in ran) and len(ran) >= 10, ran
    work = clone[0]
    assert (work / ".cargo-root" / "bin" / "robostats").exists()
    assert (work / "out" / "_manifest").is_dir()
    assert checkout_state() == before, "a block wrote into the checkout"


def first_query():
    """The README's first query: its block, and the lines that say where the
    data set and queries/ are."""
    [(_, _, text, _)] = [b for b in blocks("README.md") if "definitions.sql" in b[2] and "import duckdb" in b[2]]
    out, queries = (next(line for line in text.splitlines() if line.startswith(name + " = "))
                    for name in ("out", "queries"))
    return text, out, queries


def test_the_first_query_runs_from_anywhere(clone, tmp_path):
    """From another working directory, the data set elsewhere (a name with
    a space and a glob character): the same block, with `out` and
    `queries` set to where they are, prints the same; with `out` wrong, it
    stops on an error naming robostats_out."""
    work, env, _ = clone
    text, out, queries = first_query()
    assert out.startswith('out = "out"') and queries.startswith('queries = "queries/"')
    if not (work / "out").exists():  # run alone: the README's ingest
        ingest(["samples/"], work / "out")
    here = run_block(clone, "sh", text)
    assert here.returncode == 0, here.stderr
    data = tmp_path / "my data [1]"
    shutil.copytree(work / "out", data, symlinks=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    moved = text.replace(out, f"out = {str(data)!r}").replace(queries, f"queries = {str(ROOT / 'queries') + '/'!r}")
    proc = subprocess.run(["bash", "-euo", "pipefail", "-s"], input=moved, cwd=elsewhere, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == here.stdout
    missing = text.replace(queries, f"queries = {str(ROOT / 'queries') + '/'!r}")
    proc = subprocess.run(["bash", "-euo", "pipefail", "-s"], input=missing, cwd=elsewhere, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0
    assert "robostats_out is 'out', which holds no robostats data set" in proc.stderr, proc.stderr
    assert "No files found" not in proc.stderr


def test_query_figures_are_those_of_the_readme_ingest(tmp_path):
    """queries/README.md's figures are those of the README's first command
    (`samples/` into `out/`), recomputed here with the queries."""
    text = (ROOT / "queries" / "README.md").read_text()
    section = loose(text[text.index("## Figures on `samples/`"):])
    readme = (ROOT / "README.md").read_text()
    assert "ingest samples/ --out out/" in readme
    assert "`robostats ingest samples/ --out out/`, the README's first command" in section
    assert "robostats ingest samples/ --out out/\nduckdb" in text

    out = tmp_path / "out"
    proc = ingest(["samples/"], out)
    summary = proc.stderr + proc.stdout
    con = connect(out)
    # the README's count of the samples: records, captures, robots.txt
    # fetches (of the crawls with one) and web pages (of crawls without)
    records = int(summary.split(" records read")[0].rsplit(" ", 1)[1])
    [(captures, robots, pages)] = con.execute("""
        SELECT count(*), count(*) FILTER (crawl IN (SELECT crawl FROM crawl_hosts)),
               count(*) FILTER (crawl NOT IN (SELECT crawl FROM crawl_hosts)) FROM captures""").fetchall()
    assert loose(f"({records:,} records, {captures} captures: {robots} robots.txt fetches and {pages} web "
                 "pages of Common Crawl's main crawl") in loose(readme)

    def rows(name):
        return run_query(con, name)[1]

    def listed(pairs):
        return ", ".join(f"{a} {b}" for a, b in pairs)

    expected = []
    classes = rows("status_classes")
    by = lambda kind: [(r["class"], r["captures"]) for r in classes if r["classification"] == kind]
    cc, google, current = by("cc_class"), by("google_class"), dict(by("google_current_class"))
    expected += [
        f"`cc_class` {listed(cc)};",
        f"`google_class` {listed(google)} (",
        f"(`google_current_class`: {current['full_allow']} / {current['full_disallow']},",
    ]
    valid = {r["unit"]: r for r in rows("valid_robotstxt")}
    expected.append(
        f"{valid['captures']['valid']} of {valid['captures']['total']} captures, "
        f"{valid['urls']['valid']} of {valid['urls']['total']} robots.txt URLs, "
        f"{valid['hosts']['valid']} of {valid['hosts']['total']} hosts."
    )
    expected.append(f"({valid['captures']['total']} captures:")
    blocking = {r["agent"]: r for r in rows("ai_crawler_blocking")}
    star, gpt = blocking["*"], blocking["GPTBot"]
    expected += [
        f"`*` disallows everything in {star['disallow_all']} of {star['robots_txt']} robots.txt "
        f"captures ({star['effective_disallow_all']} of {star['captures']} effective);",
        f"GPTBot is named in {gpt['named']} captures, {gpt['named_disallow_all']} of which disallow "
        f"it entirely, {gpt['disallow_all']} with the `*` fallback "
        f"({gpt['effective_disallow_all']} effective).",
    ]
    agents = rows("top_user_agents")
    assert agents[0]["agent_token"] == "*"
    expected.append(
        f"`*` in {agents[0]['captures']} captures ({agents[0]['lines']} lines), then "
        + listed((r["agent_token"], r["captures"]) for r in agents[1:5]) + "."
    )
    buckets = [r["captures"] for r in rows("size_buckets")]
    stats = rows("size_stats")[0]
    assert sum(buckets) == stats["captures"]
    expected.append(
        f"sizes of the {stats['captures']} parsed captures: {buckets[0]} empty, {buckets[1]} up to "
        f"1 KiB, {buckets[2]} up to 10 KiB, {buckets[3]} up to 100 KiB, {buckets[4]} up to 500 KiB, "
        f"{buckets[5]} over 500 KiB ({stats['truncated']} truncated at 1 MiB); median "
        f"{stats['p50']} bytes."
    )
    directives = sorted(rows("nonstandard_directives"), key=lambda r: (-r["lines"], r["name"]))
    known = [(r["name"], r["lines"]) for r in directives if r["known_elsewhere"]]
    other = [(r["name"], r["lines"]) for r in directives if not r["known_elsewhere"]]
    expected.append(f"non-standard directives: {known[0][0]} {known[0][1]} lines, {listed(known[1:])}"
                    + (" (" if other else "."))
    expected += [f"(and {name} {lines}," for name, lines in other]
    typos = rows("typos")
    accepted = collections.Counter()
    for r in typos:
        if r["accepted_by_google"]:
            accepted[r["directive"]] += r["lines"]
    ignored = [r for r in typos if not r["accepted_by_google"]]
    expected.append(
        f"{accepted['disallow']} accepted disallow typos, {accepted['user-agent']} user-agent, "
        f"{accepted['sitemap']} sitemap; {sum(r['lines'] for r in ignored)} lines of misspellings "
        f"Google ignores ({listed((r['spelling'], r['lines']) for r in ignored[:2])}, ...,"
    )
    resolution = collections.defaultdict(dict)
    for r in rows("redirect_resolution"):
        resolution[r["resolution"]][r["hops"]] = r["urls"]
    total = sum(sum(h.values()) for h in resolution.values())
    expected.append(
        f"of {total} robots.txt URLs, {resolution['direct'][0]} direct, "
        f"{sum(resolution['resolved'].values())} resolved ({resolution['resolved'][1]} in one hop, "
        f"{resolution['resolved'][2]} in two), {resolution['target_not_captured'][0]} whose target "
        f"was not captured, {resolution['missing_location'][0]} without a `Location`."
    )
    # the preference queries give a row per crawl: the robots.txt crawl's
    main = "CC-MAIN-2025-47"
    adoption = {r["directive"]: r for r in rows("preference_adoption") if r["crawl"] == main}
    signal, usage, either = adoption["content-signal"], adoption["content-usage"], adoption["any"]
    contradictions = [r for r in rows("preference_contradictions") if r["crawl"] == main]
    gpt = next(r for r in contradictions if r["agent"] == "GPTBot")
    expected.append(
        f"{either['captures']} of the {gpt['robots_txt']} parsed captures of {main} "
        f"({100 * either['share_of_captures']:.1f} %) have a preference line: `Content-Signal` "
        f"{signal['lines']} lines in {signal['captures']} captures ({signal['cloudflare_block_lines']} inside "
        f"a Cloudflare-managed block, {signal['lines_before_groups']} before any group, "
        f"{signal['unparseable_lines']} unparseable), `Content-Usage` {usage['lines']} lines in "
        f"{usage['captures']} captures ({usage['unparseable_lines']} unparseable, "
        f"{usage['lines_before_groups']} before any group)."
    )
    labels = {(r["directive"], r["label"], r["value"]): r for r in rows("preference_labels") if r["crawl"] == main}
    vintage = {r["label"]: r for r in rows("preference_vintage")}
    expected.append(
        f"`ai-train=no` in {labels['content-signal', 'ai-train', 'no']['lines']} signal lines, "
        f"`search=yes` in {labels['content-signal', 'search', 'yes']['lines']}; `train-ai` in "
        f"{vintage['train-ai']['lines']} usage lines, `search` in {vintage['search']['lines']};"
    )
    earlier = collections.defaultdict(list)
    for label, r in sorted(vintage.items()):
        if r["vintage"] == "earlier_draft" and r["lines"]:
            earlier[r["lines"]].append(f"`{label}`")
    said = []
    for lines, names in sorted(earlier.items(), reverse=True):
        if len(names) == 1:
            said.append(f"{names[0]} in {lines} lines")
        else:
            said.append(f"{', '.join(names[:-1])} and {names[-1]} in {lines} lines each")
    expected.append(f"labels of earlier drafts: {', '.join(said)}.")
    managed = rows("cloudflare_managed")[0]
    assert managed["managed_without_signal_in_block"] == 0
    expected.append(
        f"{managed['managed']} captures ({managed['managed_hosts']} hosts) carry a managed block, each "
        f"with its signal line; {managed['other_signal_captures']} other captures write one by hand."
    )
    both = gpt["allowed_signal_ai_train_n"] + gpt["allowed_usage_train_ai_n"] - gpt["allowed_no_ai_training"]
    assert gpt["blocked_no_preference"] == gpt["blocked"]
    expected.append(
        f"GPTBot may fetch `/` in {gpt['allowed']} captures, {gpt['allowed_no_ai_training']} of which say "
        f"no AI training to it ({gpt['allowed_signal_ai_train_n']} by `Content-Signal`, "
        f"{gpt['allowed_usage_train_ai_n']} by `Content-Usage`, {both} by both); of the "
        f"{gpt['blocked']} that shut it out, none states a preference for it, "
        f"{gpt['blocked_no_preference_in_preference_captures']} of them captures that state preferences "
        f"for others."
    )
    hosts = {r["outcome"]: r["hosts"] for r in rows("host_outcome_shares")}
    expected.append(
        f"hosts: {hosts['robots_txt_with_rules']} with rules, {hosts['robots_txt_no_rules']} without "
        f"rules, {hosts['not_robots_txt']} not a robots.txt, {hosts['allow_all']} allow-all by status, "
        f"{hosts['forbidden']} forbidden, {hosts['defer_visits']} defer visits, "
        f"{hosts['redirect_unresolved']} unresolved redirects."
    )
    missing = [e for e in expected if loose(e) not in section]
    assert not missing, "\n".join(missing)


def test_templates_table_is_the_index():
    """docs/templates.md lists every template of data/templates/index.tsv,
    in its order, with its platform, versions, confidence and source."""
    index = (ROOT / "crates/robostats-rows/data/templates/index.tsv").read_text().splitlines()[1:]
    want = ["| `%s` | %s | %s | %s | %s |" % (f[0], f[1], f[2], f[5], f[6])
            for f in (line.split("\t") for line in index)]
    doc = (ROOT / "docs/templates.md").read_text()
    start = doc.index("<!-- templates:")
    table = doc[start:doc.index("<!-- end templates -->")].splitlines()[3:]
    assert table == want


def test_which_number_table_is_the_query(tmp_path):
    """docs/crawls.md's "Which number do I cite" table, the README's figures
    after the first query and queries/README.md's are definitions.sql's on
    the README's ingest (GPTBot, or the rows about no single crawler)."""
    out = tmp_path / "out"
    ingest(["samples/"], out)
    con = connect(out)
    rows = run_query(con, "definitions")[1]
    assert {r["crawl"] for r in rows} == {"CC-MAIN-2025-47"}
    got = {(r["question"], r["definition"]): r for r in rows if r["agent"] in ("GPTBot", None)}
    doc = (ROOT / "docs" / "crawls.md").read_text()
    table = doc[doc.index("## Which number do I cite"):doc.index("## Which hosts say no")]
    question, checked = None, 0
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) != 6 or not cells[1].startswith("`"):
            continue
        question = cells[0].strip("`") or question
        definition = cells[1].split("`")[1]
        r = got[question, definition]
        said = f"{r['numerator']} of {r['denominator']}"
        assert cells[5].startswith(said), (question, definition, cells[5], said)
        if "%" in cells[5]:
            assert cells[5].startswith(f"{said} ({100 * r['share']:.1f} %)"), (question, definition, cells[5])
        if "named" in cells[5]:
            assert f"{r['named']} named, {r['wildcard']} by `*`" in cells[5], (question, definition)
        assert r["study"].split(" ")[0] in cells[3], (question, definition, r["study"])
        checked += 1
    assert checked == len(got)
    full = {d: got["full_block", d] for d in ("captures", "hosts", "hosts_2xx")}
    no = {d: got["no_ai_training", d]["numerator"] for d in ("captures", "hosts")}
    readme = loose((ROOT / "README.md").read_text())
    for said in (f"{full['captures']['numerator']} of the {full['captures']['denominator']} robots.txt captures "
                 f"of the crawl ({100 * full['captures']['share']:.1f} %",
                 f"{full['hosts']['numerator']} of its {full['hosts']['denominator']} hosts "
                 f"({100 * full['hosts']['share']:.1f} %",
                 f"{full['hosts_2xx']['numerator']} of the {full['hosts_2xx']['denominator']} hosts that serve a "
                 f"robots.txt ({100 * full['hosts_2xx']['share']:.1f} %",
                 f"{full['hosts_2xx']['named']} of them by a group naming it and {full['hosts_2xx']['wildcard']} "
                 "by the `*` group",
                 f"{no['hosts']} hosts say no to AI training to GPTBot while letting it fetch `/` "
                 f"({no['captures']} captures"):
        assert loose(said) in readme, said
    section = loose((ROOT / "queries" / "README.md").read_text().split("## Figures on `samples/`")[1])
    c, h, h2 = (got["full_block", d] for d in ("captures", "hosts", "hosts_2xx"))
    for said in (f"GPTBot is fully blocked in {c['numerator']} of {c['denominator']} parsed captures "
                 f"({c['named']} named, {c['wildcard']} by `*`)",
                 f"{got['full_block', 'captures_effective']['numerator']} of "
                 f"{got['full_block', 'captures_effective']['denominator']} captures effective",
                 f"{h['numerator']} of {h['denominator']} hosts ({h['named']} named, {h['wildcard']} by `*`), "
                 f"{h2['numerator']} of {h2['denominator']} hosts with a 2xx",
                 f"{got['has_robots_txt', 'hosts']['numerator']} of {got['has_robots_txt', 'hosts']['denominator']} "
                 f"hosts have a robots.txt ({got['has_robots_txt', 'cc_hosts_with_rules']['numerator']} with rules",
                 f"{no['hosts']} hosts ({no['captures']} captures) say no to AI training"):
        assert loose(said) in section, said
