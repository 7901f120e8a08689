"""Body digests, rulesets and templates (docs/templates.md): robostats'
columns and the copy queries against the generator's own account of what
it wrote (`gen_corpus.py --copies` and its copies.tsv, whose keys the
generator computes in Python, independently of robostats), and the RSL
licence and Content-Usage header queries against WARC files made here."""

import collections
import csv
import gzip
import io
import os
import re
import subprocess
import sys

import pytest
import blake3
from warcio.archiveiterator import ArchiveIterator
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from conftest import ROOT, connect, ingest, run_query

GEN = ROOT / "scripts" / "gen_corpus.py"


@pytest.fixture(scope="module")
def copies(tmp_path_factory):
    """(output directory, copies.tsv rows keyed by (file name, offset))."""
    base = tmp_path_factory.mktemp("copies")
    warc = base / "warc"
    proc = subprocess.run([sys.executable, str(GEN), "--copies", "--out", str(warc), "--jobs", "2"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = base / "out"
    files = sorted(warc.glob("*.warc.gz"))
    ingest([str(p) for p in files], out)
    with open(warc / "copies.tsv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    # copies.tsv holds the response records in file and record order
    keyed, i = {}, 0
    for path in files:
        with open(path, "rb") as f:
            it = ArchiveIterator(f)
            for rec in it:
                if rec.rec_type == "response":
                    assert rows[i]["url"] == rec.rec_headers.get_header("WARC-Target-URI")
                    keyed[(path.name, it.get_record_offset())] = rows[i]
                    i += 1
    assert i == len(rows)
    return out, keyed


@pytest.fixture(scope="module")
def ccon(copies):
    c = connect(copies[0])
    yield c
    c.close()


def deciding(ccon, copies):
    """The plan rows of the hosts' deciding captures (crawl_hosts, tested
    in test_queries.py and test_crawls.py) whose body was parsed."""
    keyed = copies[1]
    got = ccon.sql("SELECT crawl, url_host_name, parse_filename(warc_filename), warc_record_offset "
                   "FROM crawl_hosts WHERE robots_parsed").fetchall()
    return [(crawl, host, keyed[(f, off)]) for crawl, host, f, off in got]


def test_every_capture_has_the_planned_digests_and_template(ccon, copies):
    got = ccon.sql("SELECT parse_filename(warc_filename), warc_record_offset, body_digest, ruleset_digest, "
                   "template, platform, robots_parsed FROM captures").fetchall()
    assert len(got) == len(copies[1])
    platforms = {}
    for f, off, body, ruleset, template, platform, parsed in got:
        row = copies[1][(f, off)]
        assert (body or "", ruleset or "", template or "") == (row["body_key"], row["ruleset_key"],
                                                               row["template"]), (f, off, row["planted"])
        assert parsed == bool(row["body_key"])
        platforms.setdefault(template, set()).add(platform)
    for template, seen in platforms.items():
        assert len(seen) == 1 and (template is None) == (seen == {None}), (template, seen)
    # what the plan says of the planted defaults, variants and near-copies
    # (first versions: a later one may have a rule added)
    kinds = collections.defaultdict(set)
    for row in copies[1].values():
        if row["body_key"] and row["version"] == "0":
            kinds[row["planted"].split("/")[0]].add((row["template"], row["ruleset_key"]))
    wp = {r for t, r in kinds["template:wordpress-5.5"]}
    assert wp and {t for t, _ in kinds["template:wordpress-5.5"]} == {"wordpress-5.5"}
    cosmetic = kinds["cosmetic:wordpress-5.5"]
    assert cosmetic and all(t == "wordpress-5.5" and r in wp for t, r in cosmetic)
    near = [t for k, v in kinds.items() if k.startswith("near:") for t, _ in v]
    assert near and all(t == "" for t in near)


def test_every_wordpress_default_is_one_ruleset_whatever_its_sitemap(copies):
    sitemaps, rulesets = set(), set()
    for row in copies[1].values():
        if row["template"] == "wordpress-5.5" and row["planted"] == "template:wordpress-5.5" and \
                row["version"] == "0":
            rulesets.add(row["ruleset_key"])
            sitemaps.add(row["host"])
    # installs in a sub-directory (/blog, /wp) are the same template, with
    # their path in the ruleset
    assert len(sitemaps) > 100 and 1 <= len(rulesets) <= 3


def test_duplicate_bodies(ccon, copies):
    parsed = [r for r in copies[1].values() if r["body_key"]]
    hosts = deciding(ccon, copies)
    per_ruleset = collections.Counter(r["ruleset_key"] for _, _, r in hosts)
    n = len(hosts)
    top10 = sum(sorted(per_ruleset.values(), reverse=True)[:10])
    expected = {
        "captures": len(parsed),
        "bodies": len({r["body_key"] for r in parsed}),
        "rulesets": len({r["ruleset_key"] for r in parsed}),
        "hosts": n,
        "host_bodies": len({r["body_key"] for _, _, r in hosts}),
        "host_rulesets": len(per_ruleset),
        "shared_1_share": sum(c for c in per_ruleset.values() if c - 1 >= 1) / n,
        "shared_10_share": sum(c for c in per_ruleset.values() if c - 1 >= 10) / n,
        "shared_1000_share": sum(c for c in per_ruleset.values() if c - 1 >= 1000) / n,
        "top10_share": top10 / n,
    }
    _, rows = run_query(ccon, "duplicate_bodies")
    assert len(rows) == 1
    got = rows[0]
    assert got["crawl"] == "CC-MAIN-2025-30"
    for k, v in expected.items():
        assert got[k] == pytest.approx(v, abs=1e-12), k
    # refetches: more captures than hosts, more bodies than rulesets
    assert got["captures"] > 2 * got["hosts"] and got["bodies"] > got["rulesets"]
    assert got["shared_10_share"] > 0.3


def test_templates(ccon, copies):
    hosts = deciding(ccon, copies)
    expected = collections.defaultdict(lambda: [0, set(), set(), None])
    for _, host, r in hosts:
        e = expected[r["template"] or None]
        e[0] += 1
        e[1].add(r["ruleset_key"])
        e[2].add(r["body_key"])
        e[3] = host if e[3] is None else min(e[3], host)
    _, rows = run_query(ccon, "templates")
    got = {r["template"]: (r["hosts"], r["rulesets"], r["bodies"], r["example_host"]) for r in rows}
    assert got == {t: (e[0], len(e[1]), len(e[2]), e[3]) for t, e in expected.items()}
    assert sum(r["share"] for r in rows) == pytest.approx(1)
    assert [r["hosts"] for r in rows] == sorted((r["hosts"] for r in rows), reverse=True)
    # every template of the index is planted, and found
    index = (ROOT / "crates/robostats-rows/data/templates/index.tsv").read_text().splitlines()[1:]
    assert {line.split("\t")[0] for line in index} <= set(got)
    platform = {r["template"]: r["platform"] for r in rows}
    assert platform["wordpress-5.5"] == "wordpress" and platform["cloudflare-managed"] == "cloudflare"


def test_top_rulesets(ccon, copies):
    hosts = deciding(ccon, copies)
    per = collections.defaultdict(list)
    for _, host, r in hosts:
        per[r["ruleset_key"]].append((host, r))
    ranked = sorted(per.items(), key=lambda kv: (-len(kv[1]), kv[0]))[:20]
    _, rows = run_query(ccon, "top_rulesets")
    assert [(r["rank"], r["ruleset_digest"], r["hosts"], r["bodies"], r["example_host"]) for r in rows] == [
        (i + 1, k, len(v), len({r["body_key"] for _, r in v}), min(h for h, _ in v))
        for i, (k, v) in enumerate(ranked)]
    # the template most of the ruleset's hosts serve (ties: the later
    # name), and those hosts alone: as many as templates.sql counts when
    # the template has no other ruleset
    for r, (_, v) in zip(rows, ranked):
        served = collections.Counter(x["template"] for _, x in v if x["template"])
        top = max(served.items(), key=lambda kv: (kv[1], kv[0]), default=(None, 0))
        assert (r["template"], r["template_hosts"]) == top
    per_template = {t["template"]: t["hosts"] for t in run_query(ccon, "templates")[1] if t["template"]}
    rulesets_of = collections.defaultdict(set)
    for _, _, x in hosts:
        rulesets_of[x["template"]].add(x["ruleset_key"])
    agree = [r for r in rows if r["template"] and len(rulesets_of[r["template"]]) == 1]
    assert len(agree) >= 5
    for r in agree:
        assert r["template_hosts"] == per_template[r["template"]]


def test_template_ai_blocking(ccon, copies):
    """Counted without expanding hosts x crawlers: the same as counting
    host_states (every AI crawler on every host) by template."""
    _, rows = run_query(ccon, "template_ai_blocking")
    expanded = ccon.sql("""
        SELECT h.crawl, h.template, s.agent, count(*) AS hosts, count(*) FILTER (WHERE s.state = 'full') AS blocked
        FROM host_states s
        JOIN crawl_hosts h ON h.crawl IS NOT DISTINCT FROM s.crawl AND h.url_host_name = s.url_host_name
        WHERE h.robots_parsed AND s.agent_category = 'ai'
        GROUP BY ALL""").fetchall()
    assert {(r["crawl"], r["template"], r["agent"]): (r["hosts"], r["blocked"]) for r in rows} == {
        (c, t, a): (h, b) for c, t, a, h, b in expanded}
    for r in rows:
        assert r["blocked_share"] == pytest.approx(r["blocked"] / r["hosts"])
    # Cloudflare's managed block shuts GPTBot out on every host that has it,
    # but for the blocks of its `*` group alone (they name no crawler);
    # WordPress's default shuts out no one
    by = {(r["template"], r["agent"]): r for r in rows}
    cf = by[("cloudflare-managed", "GPTBot")]
    bare = [h for _, h, r in deciding(ccon, copies)
            if r["template"] == "cloudflare-managed" and r["planted"] == "hand:cloudflare_managed:policy_only"]
    assert bare and cf["hosts"] - cf["blocked"] == len(bare)
    assert by[("wordpress-5.5", "GPTBot")]["blocked"] == 0
    assert 0 < by[(None, "GPTBot")]["blocked_share"] < 1


def test_every_cloudflare_block_of_the_samples_is_the_template(tmp_path):
    """Every body of the samples that starts with Cloudflare's managed block
    (found here by its start line, read with warcio) is cloudflare-managed,
    whatever its signal, crawlers and spacing; no other body is."""
    from conftest import SAMPLES
    files = SAMPLES + ["samples/preferences/CC-MAIN-20251108044800-20251108074800-00010.warc.gz"]
    out = tmp_path / "out"
    ingest(files, out)
    begin = re.compile(rb"^[ \t]*#[ \t]*begin cloudflare managed content[ \t]*\r?$", re.I | re.M)
    carrying = set()
    for name in files:
        with open(ROOT / name, "rb") as f:
            it = ArchiveIterator(f)
            for record in it:
                if record.rec_type == "response" and begin.search(record.content_stream().read()):
                    carrying.add((name, it.get_record_offset()))
    got = connect(out).sql("SELECT warc_filename, warc_record_offset FROM captures "
                           "WHERE template = 'cloudflare-managed'").fetchall()
    # 19 in the 700-fetch file, one per managed-block case of preferences/
    assert len(carrying) == 24
    assert set(got) == carrying


def test_digests_are_the_same_across_runs_and_inputs(tmp_path, samples_out):
    """The same captures ingested again, alone, give the same digests and
    templates (they depend on the body alone)."""
    from conftest import SYNTHETIC
    out = tmp_path / "again"
    ingest([SYNTHETIC], out)
    a, b = connect(samples_out), connect(out)
    q = ("SELECT warc_record_offset, body_digest, ruleset_digest, template FROM captures "
         f"WHERE warc_filename = '{SYNTHETIC}' ORDER BY 1")
    first = a.sql(q).fetchall()
    assert first == b.sql(q).fetchall() and len(first) > 600
    # body_digest is the BLAKE3 of the parsed bytes
    with gzip.open(ROOT / SYNTHETIC, "rb") as f:
        raw = f.read()
    it = ArchiveIterator(io.BytesIO(raw))
    for rec in it:
        if rec.rec_type == "response" and rec.http_headers.get_statuscode() == "200":
            body = rec.content_stream().read()
            if len(body) <= 512000 and not rec.rec_headers.get_header("WARC-Truncated"):
                offset = it.get_record_offset()
                digests = {o: d for o, d, _, _ in first}
                if digests.get(offset):
                    assert digests[offset] == blake3.blake3(body).hexdigest()


GOLDEN = ROOT / "tests" / "data" / "copies-digests.csv"


def test_digests_of_the_real_warc_files_are_recorded(fixtures_out, samples_out):
    """Every parsed capture of the samples and of the real WARC files
    (tests/data/warc/) has the body digest python-blake3 gives for the body
    warcio reads, where the two read the same bytes, and the digests,
    rulesets and templates recorded in tests/data/copies-digests.csv (on
    another machine, by an earlier run): stable across runs and platforms.
    ROBOSTATS_BLESS=1 records them again."""
    from conftest import FIXTURES, SAMPLES
    from warc_facts import read_warc
    rows, checked = [], 0
    for out, paths in ((samples_out, SAMPLES), (fixtures_out, FIXTURES)):
        con = connect(out)
        got = {(f, o): (b, r, t) for f, o, b, r, t in con.sql(
            "SELECT warc_filename, warc_record_offset, body_digest, ruleset_digest, template "
            "FROM captures WHERE robots_parsed ORDER BY ALL").fetchall()}
        encoded = {(f, o) for f, o in con.sql(
            "SELECT warc_filename, warc_record_offset FROM captures WHERE payload_encoded OR body_capped "
            "OR content_truncated IS NOT NULL").fetchall()}
        for p in paths:
            try:
                responses = read_warc(ROOT / p, p).responses
            except Exception:  # warcio stops at a broken gzip member
                continue
            for r in responses:
                key = (p, r.offset)
                if key in got and key not in encoded:
                    assert got[key][0] == blake3.blake3(r.body[:512000]).hexdigest(), key
                    checked += 1
        rows += [(f, o, *v) for (f, o), v in sorted(got.items())]
        con.close()
    assert checked > 500
    text = "warc_filename,warc_record_offset,body_digest,ruleset_digest,template\n" + "".join(
        f"{f},{o},{b},{r},{t or ''}\n" for f, o, b, r, t in rows)
    if os.environ.get("ROBOSTATS_BLESS"):
        GOLDEN.write_text(text)
    assert GOLDEN.read_text() == text


def record(writer, url, body, headers=()):
    http = StatusAndHeaders("200 OK", [("Content-Type", "text/plain"), *headers], protocol="HTTP/1.1")
    writer.write_record(writer.create_warc_record(url, "response", payload=io.BytesIO(body),
                                                  http_headers=http))


@pytest.fixture(scope="module")
def licences(tmp_path_factory):
    """A WARC file of RSL License lines and Content-Usage headers."""
    d = tmp_path_factory.mktemp("licences")
    path = d / "CC-MAIN-20251201000000-20251201000000-00000.warc.gz"
    with open(path, "wb") as f:
        w = WARCWriter(f, gzip=True)
        record(w, "https://a.example/robots.txt",
               b"License: https://a.example/license.xml\nUser-agent: *\nDisallow: /x\n")
        record(w, "https://b.example/robots.txt",
               b"User-agent: *\nAllow: /\nlicense: https://rsl.example/l.xml\nLICENSE: /relative.xml\n",
               [("Content-Usage", "train-ai=n")])
        record(w, "https://c.example/robots.txt", b"User-agent: *\nDisallow:\n",
               [("Content-Usage", "train-ai=n"), ("Content-Usage", "search=y")])
        record(w, "https://d.example/robots.txt",
               b"User-agent: *\nContent-Usage: train-ai=n\nDisallow:\n", [("Content-Usage", "train-ai=n")])
        record(w, "https://e.example/robots.txt", b"User-agent: *\nLicense: https://a.example/license.xml\n")
        record(w, "https://f.example/robots.txt", b"User-agent: *\nDisallow: /\n")
    out = d / "out"
    ingest([str(path)], out)
    c = connect(out)
    yield c
    c.close()


def test_rsl_licenses(licences):
    lines = dict(licences.sql("SELECT url_host_name, license_lines FROM captures").fetchall())
    assert lines == {"a.example": 1, "b.example": 2, "c.example": 0, "d.example": 0, "e.example": 1,
                     "f.example": 0}
    _, rows = run_query(licences, "rsl_licenses")
    assert rows == [{"crawl": None, "hosts": 6, "license_hosts": 3, "license_share": 0.5,
                     "license_lines": 4, "absolute_url_lines": 3, "distinct_licenses": 3}]


def test_content_usage_headers(licences):
    _, rows = run_query(licences, "content_usage_headers")
    assert rows == [
        {"content_usage_header": "train-ai=n", "captures": 2, "hosts": 2, "parsed_captures": 2,
         "with_usage_lines": 1},
        {"content_usage_header": "train-ai=n, search=y", "captures": 1, "hosts": 1, "parsed_captures": 1,
         "with_usage_lines": 0},
    ]


def test_the_report_draws_the_copies(copies, tmp_path):
    """Figure 9 of the report on the generated copies: drawn from data,
    every table cell its query's, Cloudflare's block shutting GPTBot out
    (on the hosts whose block names it);
    figure 6 names its tallest line-count peak after WordPress's default."""
    from conftest import BIN
    from test_report import check_tables
    out = copies[0]
    html, figures = tmp_path / "r.html", tmp_path / "figures"
    proc = subprocess.run([str(BIN), "report", str(out), "-o", str(html), "--figures", str(figures), "-q"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    checked = check_tables(html, out)
    assert {"duplicate_bodies", "templates", "template_ai_blocking", "line_counts"} <= checked
    svgs = sorted(figures.glob("09-copies-*.svg"))
    assert len(svgs) == 2 and all("no data" not in p.read_text() for p in svgs)
    _, rows = run_query(connect(out), "template_ai_blocking")
    share = next(r["blocked_share"] for r in rows if (r["template"], r["agent"]) == ("cloudflare-managed", "GPTBot"))
    assert 0.9 < share < 1            # but for the blocks of their `*` group alone
    assert "cloudflare-managed: %d %%" % round(100 * share) in svgs[1].read_text()
    assert "lines: wordpress-5.5" in (figures / "06-sizes-1.svg").read_text()
