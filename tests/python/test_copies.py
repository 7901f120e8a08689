"""The corpus of `scripts/gen_corpus.py --copies`: one crawl whose hosts'
robots.txt is fetched again in many files (3.6 fetches per host, as Common
Crawl reported), serving platform defaults, near-defaults, cosmetic
variants and hand-written bodies, and its copies.tsv, a row per response
record (body_key, ruleset_key and template: what robostats' body_digest,
ruleset_digest and template columns must say).

copies.tsv is checked against the WARC files as warcio reads them, record
by record; ruleset_key against a second, separate implementation of the
canonical ruleset written here. No robostats binary is needed."""

import collections
import csv
import filecmp
import re
import subprocess
import sys

import pytest
import blake3
import xxhash
from warcio.archiveiterator import ArchiveIterator

from conftest import ROOT

GEN = ROOT / "scripts" / "gen_corpus.py"
TEMPLATES = ROOT / "crates" / "robostats-rows" / "data" / "templates"
COLUMNS = ["warc_filename", "url", "host", "fetch_status", "truncated", "template", "body_key", "ruleset_key",
           "planted", "fetch_index", "refetch", "version"]


def generate(out, *extra):
    proc = subprocess.run([sys.executable, str(GEN), "--copies", "--out", str(out), *extra],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert not proc.stdout, proc.stdout
    return proc


@pytest.fixture(scope="module")
def copies_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("copies") / "warc"
    generate(d, "--jobs", "2")
    return d


@pytest.fixture(scope="module")
def rows(copies_dir):
    with open(copies_dir / "copies.tsv", newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
        assert reader.fieldnames == COLUMNS
        return list(reader)


@pytest.fixture(scope="module")
def records(copies_dir):
    """(file name, URL, status, WARC-Truncated, payload) of every response
    record, in file and record order."""
    out = []
    for path in sorted(copies_dir.glob("*.warc.gz")):
        with open(path, "rb") as f:
            for rec in ArchiveIterator(f):
                if rec.rec_type != "response":
                    continue
                out.append((path.name, rec.rec_headers.get_header("WARC-Target-URI"),
                            int(rec.http_headers.get_statuscode()),
                            rec.rec_headers.get_header("WARC-Truncated") or "",
                            rec.content_stream().read()))
    return out


def ok_rows(rows):
    """The rows of 2xx captures that are not failed: those with keys."""
    return [r for r in rows if r["fetch_status"].startswith("2")]


def hosts_of(rows):
    return collections.Counter(r["host"] for r in rows)


# ---------------------------------------------------------------------------
# The canonical ruleset, written again (robostats' RobotsTxt::write_ruleset)
# ---------------------------------------------------------------------------

KEY_NAMES = [(b"user-agent", (b"user-agent", b"useragent", b"user agent")), (b"allow", (b"allow",)),
             (b"disallow", (b"disallow", b"dissallow", b"dissalow", b"disalow", b"diasllow", b"disallaw")),
             (b"sitemap", (b"sitemap", b"site-map"))]
SPACE = b" \t\n\x0b\x0c\r"
ORIGIN = re.compile(rb"^[hH][tT][tT][pP][sS]?://[A-Za-z0-9\-._~!$&'()*+,;=:@%\[\]]*")


def canonical(body):
    body = body[:500 * 1024]
    for bom in (b"\xef\xbb\xbf", b"\xef\xbb", b"\xef"):
        if body.startswith(bom):
            body = body[len(bom):]
            break
    out = []
    for line in re.split(rb"\r\n|\r|\n", body):
        line = line[:2083 * 8 - 1].split(b"\0")[0].split(b"#")[0].strip(SPACE)
        if b":" in line:
            key, value = line.split(b":", 1)
        else:
            parts = re.split(rb"[ \t]+", line)
            if len(parts) != 2:
                continue
            key, value = parts
        key, value = key.strip(SPACE), value.strip(SPACE)
        if not key:
            continue
        low = key.lower()
        name = next((n for n, prefixes in KEY_NAMES if low.startswith(prefixes)), low)
        if name == b"sitemap":
            value = ORIGIN.sub(b"", value)
        out.append(name + b": " + value + b"\n")
    return b"".join(out)


def digest(data):
    return xxhash.xxh3_128_hexdigest(data)


def body_digest(data):
    return blake3.blake3(data).hexdigest()


def test_canonical_ruleset_examples():
    # robostats' own examples (crates/robostats-robots/src/ruleset.rs)
    a = b"User-agent: *\r\nDisallow: /wp-admin/ # core\r\n\r\nSitemap: https://a.example/wp-sitemap.xml\r\n"
    b = b"# WordPress\nuseragent: *\ndisallow: /wp-admin/\nSITEMAP: http://b.example/wp-sitemap.xml"
    assert canonical(a) == canonical(b) == b"user-agent: *\ndisallow: /wp-admin/\nsitemap: /wp-sitemap.xml\n"
    plain = canonical(b"User-agent: *\nDisallow: /a\nAllow: /a/b\nCrawl-delay: 5\n")
    for body in [b"\xEF\xBB\xBF# top\n\nUser-Agent:*\n  Disallow:/a   # no\n\nAllow: /a/b\nCRAWL-DELAY: 5",
                 b"Useragent: *\nDissallow: /a\nAllow /a/b\nCrawl-delay: 5\n<html>\n",
                 b"User agent: *\rDisallow: /a\rAllow: /a/b\rcrawl-Delay: 5\r"]:
        assert canonical(body) == plain
    assert canonical(b"Sitemap: HTTP://user@a.example:8080/s.xml?x=1") == b"sitemap: /s.xml?x=1\n"


# ---------------------------------------------------------------------------
# The templates' files
# ---------------------------------------------------------------------------

def test_every_template_in_the_index_has_its_file_and_back():
    with open(TEMPLATES / "index.tsv", newline="", encoding="utf-8") as f:
        index = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    ids = [r["id"] for r in index]
    assert len(ids) == len(set(ids))
    files = sorted(p.stem for p in TEMPLATES.glob("*.txt") if "+" not in p.stem)
    assert sorted(ids) == files
    # ID+VARIANT.txt: another text of template ID
    variants = sorted(p.name for p in TEMPLATES.glob("*+*.txt"))
    assert variants and {v.split("+")[0] for v in variants} <= set(ids)
    assert sorted(p.name for p in TEMPLATES.iterdir()) == sorted([i + ".txt" for i in ids] + variants + ["index.tsv"])
    assert {r["match"] for r in index} <= {"exact", "blank", "block"}
    assert (TEMPLATES / "empty.txt").read_bytes() == b""
    assert not (TEMPLATES / "yoast-19.8.txt").read_bytes().endswith(b"\n")


def test_the_generator_reads_the_templates_as_they_are():
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        from gencorpus.templates import templates
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    ts = templates()
    for tid, t in ts.items():
        assert t.text == (TEMPLATES / (tid + ".txt")).read_bytes()
        assert t.variants == [p.read_bytes() for p in sorted(TEMPLATES.glob(tid + "+*.txt"))]
    wp = ts["wordpress-5.5"].fill("http://h.example", "/blog")
    assert wp == (b"User-agent: *\nDisallow: /blog/wp-admin/\nAllow: /blog/wp-admin/admin-ajax.php\n\n"
                  b"Sitemap: http://h.example/blog/wp-sitemap.xml\n")


# ---------------------------------------------------------------------------
# copies.tsv against the WARC files
# ---------------------------------------------------------------------------

def test_a_row_per_response_record_in_order(rows, records):
    assert len(rows) == len(records)
    for row, (name, url, status, truncated, body) in zip(rows, records):
        assert (row["warc_filename"], row["url"]) == (name, url)
        assert row["host"] == url.split("/")[2] == row["host"].lower()
        assert row["truncated"] == truncated
        assert row["fetch_status"] == ("" if truncated == "disconnect" else str(status))
        if row["fetch_status"].startswith("2"):
            assert row["body_key"] == body_digest(body), url
            assert row["ruleset_key"] == digest(canonical(body)), url
        else:
            assert row["body_key"] == row["ruleset_key"] == row["template"] == ""


def test_equal_body_keys_are_equal_bodies(rows, records):
    by_key, by_body = collections.defaultdict(set), collections.defaultdict(set)
    for row, rec in zip(rows, records):
        if row["body_key"]:
            by_key[row["body_key"]].add(rec[4])
            by_body[rec[4]].add(row["body_key"])
    assert all(len(v) == 1 for v in by_key.values())
    assert all(len(v) == 1 for v in by_body.values())
    # copies: many captures per distinct body, more bodies than rulesets
    ok = ok_rows(rows)
    bodies, rulesets = len(by_key), len({r["ruleset_key"] for r in ok})
    assert len(ok) > 1.5 * bodies > 1.5 * rulesets


def test_no_failed_or_cut_body_has_keys(rows):
    assert {r["truncated"] for r in rows} == {"", "disconnect"}
    failed = [r for r in rows if r["truncated"]]
    assert failed and all(r["fetch_status"] == "" and not r["body_key"] for r in failed)


# ---------------------------------------------------------------------------
# The model
# ---------------------------------------------------------------------------

def test_fetches_per_host_as_common_crawl_reported(rows):
    per_host = hosts_of(rows)
    counts = collections.Counter(per_host.values())
    mean = len(rows) / len(per_host)
    assert 3.4 <= mean <= 3.8, mean         # 180 M fetches for 50 M hosts: 3.6
    assert (counts[1] + counts[2]) / len(per_host) > 0.6
    assert 30 <= max(per_host.values()) <= 50
    assert 5_000 <= len(rows) <= 15_000 and 3 <= len({r["warc_filename"] for r in rows}) <= 6


def test_refetches_go_to_other_files_and_mostly_repeat(rows):
    files = collections.defaultdict(list)
    for r in rows:
        files[r["host"]].append(r["warc_filename"])
    twice = [f for f in files.values() if len(f) == 2]
    spread = sum(len(set(f)) == 2 for f in twice) / len(twice)
    assert 0.8 < spread < 1.0                  # mostly two files, sometimes one
    refetches = collections.Counter(r["refetch"] for r in rows if r["refetch"])
    total = sum(refetches.values())
    assert 0.015 < refetches["changed"] / total < 0.05
    assert 0.02 < refetches["status"] / total < 0.07
    by_host = collections.defaultdict(list)
    for r in rows:
        by_host[r["host"]].append(r)
    for caps in by_host.values():
        assert [int(r["fetch_index"]) for r in caps] == list(range(1, len(caps) + 1))
        # the same version of a host over the same scheme: the same bytes
        seen = {}
        for r in caps:
            if r["body_key"]:
                key = (r["version"], r["url"])
                assert seen.setdefault(key, r["body_key"]) == r["body_key"]


def test_http_and_https_copies_differ_in_bytes_not_ruleset(rows):
    by_host = collections.defaultdict(dict)
    for r in ok_rows(rows):
        if r["planted"] == "template:wordpress-5.5" and r["version"] == "0":
            by_host[r["host"]][r["url"].split(":")[0]] = r
    both = [h for h in by_host.values() if len(h) == 2]
    assert both
    for h in both:
        assert h["http"]["body_key"] != h["https"]["body_key"]
        assert h["http"]["ruleset_key"] == h["https"]["ruleset_key"]


def test_every_kind_is_planted_a_few_times(rows):
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        from gencorpus.copiesplan import COSMETIC, NEAR, TEMPLATE_SHARES
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    hosts, served = collections.defaultdict(set), collections.defaultdict(set)
    for r in rows:
        hosts[r["planted"]].add(r["host"])
    for r in as_planted(rows):
        served[r["planted"]].add(r["host"])
    want = (["template:" + t for t in TEMPLATE_SHARES] + ["near:" + k for k in NEAR]
            + ["cosmetic:" + k for k in COSMETIC])
    assert {k for k in want if len(served[k]) < 3} == set()
    assert {p.name[:-4] for p in TEMPLATES.glob("*.txt") if "+" not in p.name} == set(TEMPLATE_SHARES)
    assert {k.split(":")[0] for k in hosts} == {"template", "near", "cosmetic", "hand", "status"}
    assert len(hosts["status:404"]) > 0.1 * len(hosts_of(rows))
    assert any(k.startswith("status:30") for k in hosts)


def as_planted(rows):
    """The rows whose host serves its planted body (a 2xx, version 0)."""
    return [r for r in ok_rows(rows) if r["version"] == "0" and not r["planted"].startswith("status:")]


def test_planted_defaults_are_found(rows):
    for r in as_planted(rows):
        what, detail = r["planted"].split(":", 1)
        if what == "template":
            assert r["template"] == detail, r
        elif what == "near":
            assert r["template"] == "", r
        elif what == "cosmetic":
            assert r["template"] == "wordpress-5.5", r


def test_cosmetic_variants_keep_the_ruleset_near_defaults_do_not(rows):
    planted = as_planted(rows)
    wp = collections.Counter(r["ruleset_key"] for r in planted if r["planted"] == "template:wordpress-5.5")
    wp_root = wp.most_common(1)[0][0]        # the install at the root: most of them
    cosmetic = [r for r in planted if r["planted"].startswith("cosmetic:")]
    assert {r["ruleset_key"] for r in cosmetic} == {wp_root}
    assert len({r["body_key"] for r in cosmetic}) >= len({r["host"] for r in cosmetic})
    base_rulesets = collections.defaultdict(set)
    for r in planted:
        if r["planted"].startswith("template:"):
            base_rulesets[r["planted"][len("template:"):]].add(r["ruleset_key"])
    near = [r for r in planted if r["planted"].startswith("near:")]
    assert near
    for r in near:
        base, change = r["planted"][len("near:"):].split("/")
        # Yoast's block without its first comment line has Yoast's rules:
        # only the marker tells the default from any allow-all file
        shared = r["ruleset_key"] in base_rulesets[base]
        assert shared == (change == "no_marker"), r


def test_same_bytes_whatever_the_jobs(tmp_path, copies_dir):
    # The module's corpus (4 files, 2 processes) against one process.
    one, two = tmp_path / "one", copies_dir
    generate(one, "--jobs", "1")
    names = sorted(p.name for p in one.iterdir())
    assert names == sorted(p.name for p in two.iterdir()) and "copies.tsv" in names
    match, mismatch, errors = filecmp.cmpfiles(one, two, names, shallow=False)
    assert (mismatch, errors) == ([], [])
