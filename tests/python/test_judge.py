"""`robostats judge` on planted hosts whose answers are counted by hand,
and against `robostats check` on the sample files' own bodies.

The plan writes two crawls with warcio. Every URL below has its expected
verdicts written out, one per agent, from Google's rules as docs/judge.md
states them: a scope is scheme, host and port; 2xx: the file's rules; 4xx
(not 429), a redirect loop: allowed; 5xx, 429, an incomplete fetch:
disallowed; a redirect's target decides; no capture: NULL (or --missing).
"""

import io
import subprocess
from datetime import datetime, timedelta, timezone

import duckdb
import pytest
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from conftest import BIN, ROOT, SAMPLES, ingest

A, B = "CC-MAIN-2025-05", "CC-MAIN-2025-13"
REASONS = {200: "OK", 301: "Moved Permanently", 302: "Found", 404: "Not Found", 429: "Too Many Requests",
           503: "Service Unavailable"}

RULES_A = (b"User-agent: *\nDisallow: /private/\nAllow: /private/ok.html\n\n"
           b"User-agent: GPTBot\nDisallow: /\n\n"
           b"# a comment, a sitemap and an unknown line do not end a group\n"
           b"User-agent: AdsBot-Google\nSitemap: https://a.example/s.xml\nfoo: bar\nUser-agent: x-bot\n"
           b"Disallow: /ads-no/\n")
USAGE = b"User-agent: *\nAllow: /\nContent-Usage: train-ai=n\nContent-Usage: /open/ train-ai=y\n"

# (crawl, url, status, body, headers), in fetch order.
PLAN = [
    (A, "http://a.example/robots.txt", 200, RULES_A, {}),
    (A, "https://a.example/robots.txt", 404, b"", {}),
    (A, "https://a.example:8443/robots.txt", 503, b"", {}),
    (A, "https://b.example/robots.txt", 301, b"", {"Location": "https://www.b.example/robots.txt"}),
    (A, "https://www.b.example/robots.txt", 200, b"User-agent: *\nDisallow: /b-secret\n", {}),
    (A, "https://c.example/robots.txt", 302, b"", {"Location": "https://c2.example/robots.txt"}),
    (A, "https://loop.example/robots.txt", 301, b"", {"Location": "https://loop.example/robots2.txt"}),
    (A, "https://loop.example/robots2.txt", 301, b"", {"Location": "https://loop.example/robots.txt"}),
    (A, "https://d.example/robots.txt", 429, b"", {}),
    (A, "https://e.example/robots.txt", 200, b"", {}),
    (A, "https://f.example/robots.txt", 200, b"<!DOCTYPE html><html><body>hi</body></html>\n",
     {"Content-Type": "text/html"}),
    (A, "https://case.example/robots.txt", 200, b"User-agent: *\nDisallow: /Private\n", {}),
    (A, "https://g.example/robots.txt", 200, b"User-agent: GPTBot\nDisallow: /\n", {}),
    (A, "https://h.example/robots.txt", 200, USAGE, {}),
    (A, "https://p.example/robots.txt", 200,
     b"User-agent: *\nDisallow: /*.pdf$\nDisallow: /\nAllow: /index.html\n", {}),
    (B, "https://g.example/robots.txt", 200, b"User-agent: GPTBot\nAllow: /\n", {}),
]
AGENTS = ["GPTBot", "AdsBot-Google", "*"]
T, F, N = True, False, None
# url: (GPTBot, AdsBot-Google, *, outcome), as of the latest capture
EXPECTED = {
    "http://a.example/": (F, T, T, "rules"),
    "http://a.example/private/x": (F, T, F, "rules"),
    "http://a.example/private/ok.html": (F, T, T, "rules"),
    "http://A.EXAMPLE:80/ads-no/1": (F, F, T, "rules"),
    "https://a.example/private/x": (T, T, T, "4xx"),
    "https://a.example:8443/x": (F, F, F, "5xx_429"),
    "https://b.example/b-secret/1": (F, T, F, "rules"),
    "https://b.example/other": (T, T, T, "rules"),
    "https://c.example/x": (N, N, N, "redirect"),
    "https://loop.example/x": (T, T, T, "too_many_hops"),
    "https://d.example/x": (F, F, F, "5xx_429"),
    "https://e.example/x": (T, T, T, "empty"),
    "https://f.example/x": (T, T, T, "no_rules"),
    "https://CASE.Example/Private/x": (F, T, F, "rules"),
    "https://case.example/private/x": (T, T, T, "rules"),
    "https://g.example/x": (T, T, T, "rules"),
    "https://h.example/x": (T, T, T, "rules"),
    "https://h.example/open/x": (T, T, T, "rules"),
    # Google's index.htm rule: Allow: /index.html allows / too
    "https://p.example/": (T, T, T, "rules"),
    "https://p.example/a.pdf": (F, T, F, "rules"),
    "https://p.example/a.pdf?x": (F, T, F, "rules"),
    "https://p.example/other": (F, T, F, "rules"),
    "https://p.example/index.html": (T, T, T, "rules"),
    "https://nocapture.example/x": (N, N, N, "no_capture"),
    "not a url": (N, N, N, "not_a_url"),
    "ftp://a.example/x": (N, N, N, "not_a_url"),
    "http://a b.example/": (N, N, N, "not_a_url"),
}


def write_plan(directory):
    start = {A: datetime(2025, 1, 20, tzinfo=timezone.utc), B: datetime(2025, 3, 20, tzinfo=timezone.utc)}
    paths = []
    for crawl in (A, B):
        path = directory / f"{crawl}.warc.gz"
        paths.append(str(path))
        with open(path, "wb") as f:
            writer = WARCWriter(f, gzip=True)
            writer.write_record(writer.create_warcinfo_record(path.name, {"isPartOf": crawl}))
            for i, (c, url, status, body, headers) in enumerate(PLAN):
                if c != crawl:
                    continue
                headers = {"Content-Type": "text/plain", **headers}
                http = StatusAndHeaders(f"{status} {REASONS[status]}", list(headers.items()), protocol="HTTP/1.1")
                date = (start[crawl] + timedelta(minutes=i)).strftime("%Y-%m-%dT%H:%M:%SZ")
                writer.write_record(writer.create_warc_record(
                    url, "response", payload=io.BytesIO(body), http_headers=http,
                    warc_headers_dict={"WARC-Date": date}))
    return paths


def judge(out, urls, output, *extra, status=0):
    proc = subprocess.run(
        [str(BIN), "judge", "--data-set", str(out), "--urls", str(urls), "-o", str(output), *extra],
        capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == status, proc.stderr
    return proc


def rows(path):
    rel = duckdb.sql(f"SELECT * FROM read_parquet('{path}')")
    return [dict(zip(rel.columns, r)) for r in rel.fetchall()]


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    d = tmp_path_factory.mktemp("judge")
    out = d / "out"
    ingest(write_plan(d), out)
    urls = d / "urls.txt"
    urls.write_text("".join(u + "\n" for u in EXPECTED))
    return d, out, urls


def agent_flags():
    return [f for a in AGENTS for f in ("--agent", a)]


def test_every_planted_url_gets_its_counted_verdicts(planted):
    d, out, urls = planted
    proc = judge(out, urls, d / "latest.parquet", *agent_flags())
    got = rows(d / "latest.parquet")
    assert [r["url"] for r in got] == list(EXPECTED), "one row per URL, in input order"
    for r in got:
        assert (r["GPTBot"], r["AdsBot-Google"], r["*"], r["outcome"]) == EXPECTED[r["url"]], r["url"]
    # the capture that decided: a redirect's target, with its crawl and time
    b = next(r for r in got if r["url"] == "https://b.example/other")
    assert b["robots_url"] == "https://www.b.example/robots.txt" and b["crawl"] == A
    g = next(r for r in got if r["url"] == "https://g.example/x")
    assert g["crawl"] == B and g["fetch_time"].year == 2025 and g["fetch_time"].month == 3
    assert f"judged {len(EXPECTED)} URLs" in proc.stderr
    assert "1 URLs with no capture" in proc.stderr and "3 not URLs" in proc.stderr


@pytest.mark.parametrize("as_of, gptbot", [(A, False), ("2025-02-01", False), ("2025-03-20T00:16:00Z", True),
                                           ("latest", True)])
def test_as_of_takes_the_newest_capture_at_that_point(planted, as_of, gptbot):
    d, out, urls = planted
    judge(out, urls, d / "asof.parquet", "--agent", "GPTBot", "--as-of", as_of)
    got = {r["url"]: r for r in rows(d / "asof.parquet")}
    assert got["https://g.example/x"]["GPTBot"] is gptbot
    if as_of == A:
        assert got["https://g.example/x"]["crawl"] == A


def test_an_as_of_crawl_not_in_the_data_set_is_refused(planted):
    d, out, urls = planted
    proc = judge(out, urls, d / "none.parquet", "--agent", "GPTBot", "--as-of", "CC-MAIN-2099-01", status=2)
    assert "no capture of that crawl" in proc.stderr and A in proc.stderr and B in proc.stderr
    assert not (d / "none.parquet").exists()


def test_missing_says_what_no_capture_gives(planted):
    d, out, urls = planted
    for missing, value in [("allow", True), ("disallow", False)]:
        judge(out, urls, d / "m.parquet", "--agent", "GPTBot", "--missing", missing)
        got = {r["url"]: r for r in rows(d / "m.parquet")}
        for url in ["https://nocapture.example/x", "https://c.example/x"]:
            assert got[url]["GPTBot"] is value, (missing, url)
        assert got["not a url"]["GPTBot"] is None


def test_preferences_explain_and_opted_out(planted):
    d, out, urls = planted
    proc = judge(out, urls, d / "ai.parquet", "--ai-training", "--explain", "--figure", d / "ai.svg")
    got = {r["url"]: r for r in rows(d / "ai.parquet")}
    # the summary's and the figure's shares have one denominator: the URLs with a verdict
    judged = [r for r in got.values() if r["opted_out"] is not None]
    opted = sum(r["opted_out"] for r in judged)
    assert f"of the {len(judged)} URLs with a verdict" in proc.stderr
    assert f"{opted} URLs ({100 * opted / len(judged):.1f} % of those with a verdict)" in proc.stderr
    assert f"shares of the {len(judged)} URLs with a verdict (of {len(got)})" in (d / "ai.svg").read_text()
    h = got["https://h.example/x"]
    assert h["usage_train_ai"] == "n" and h["opted_out"] is True and h["GPTBot"] is True
    h_open = got["https://h.example/open/x"]
    assert h_open["usage_train_ai"] == "y" and h_open["opted_out"] is False
    a = got["http://a.example/private/x"]
    assert a["opted_out"] is True and a["GPTBot_line"] == 6 and a["GPTBot_rule"] == "disallow: /"
    assert a["CCBot_line"] == 2 and a["CCBot_rule"] == "disallow: /private/"
    assert got["https://e.example/x"]["opted_out"] is False
    assert got["https://nocapture.example/x"]["opted_out"] is None


def test_corpus_formats_keep_columns_in_order(planted, tmp_path):
    d, out, _ = planted
    urls = list(EXPECTED)
    duckdb.sql("SELECT * FROM (VALUES " + ", ".join(f"({i}, '{u}', 'dump-{i % 3}')" for i, u in enumerate(urls))
               + ") t(id, link, dump)").write_parquet(str(tmp_path / "c.parquet"))
    (tmp_path / "c.csv").write_text("id,link,dump\n" + "".join(f'{i},"{u}",dump-{i % 3}\n' for i, u in enumerate(urls)))
    (tmp_path / "c.tsv").write_text("id\tlink\tdump\n" + "".join(f"{i}\t{u}\tdump-{i % 3}\n" for i, u in enumerate(urls)))
    (tmp_path / "c.jsonl").write_text("".join(f'{{"id": {i}, "link": "{u}", "dump": "dump-{i % 3}"}}\n'
                                              for i, u in enumerate(urls)))
    for name in ["c.parquet", "c.csv", "c.tsv", "c.jsonl"]:
        judge(out, tmp_path / name, tmp_path / "o.parquet", "--agent", "GPTBot", "--url-column", "link",
              "--keep", "id,link")
        got = rows(tmp_path / "o.parquet")
        assert list(got[0])[:3] == ["id", "link", "GPTBot"], name
        assert [r["id"] for r in got] == list(range(len(urls))), name
        assert [r["GPTBot"] for r in got] == [EXPECTED[u][0] for u in urls], name
    proc = judge(out, tmp_path / "c.parquet", tmp_path / "x.parquet", "--agent", "GPTBot", status=2)
    assert "has no column url (its columns: id, link, dump)" in proc.stderr
    assert not (tmp_path / "x.parquet").exists()


def test_shards_split_the_files_and_cover_them(planted, tmp_path):
    d, out, _ = planted
    urls = list(EXPECTED)
    (tmp_path / "in").mkdir()
    for i in range(3):
        (tmp_path / "in" / f"part-{i}.txt").write_text("".join(u + "\n" for u in urls[i::3]))
    for shard in ["0/2", "1/2"]:
        judge(out, tmp_path / "in", tmp_path / "parts", "--agent", "GPTBot", "--shard", shard)
    parts = sorted(p.name for p in (tmp_path / "parts").iterdir())
    assert parts == ["judged-shard-00000-of-00002.parquet", "judged-shard-00001-of-00002.parquet"]
    got = rows(tmp_path / "parts" / "*.parquet")
    assert sorted(r["url"] for r in got) == sorted(urls)


@pytest.mark.parametrize("args, words", [
    (["--agent", "Mozilla/5.0 (compatible; GPTBot/1.2)"], "pass its product token, 'GPTBot'"),
    (["--agent", "Google bot"], "is not a product token"),
    (["--agent", ""], "is not a product token"),
    (["--agent", "Google bot", "--policy", "library"], "not a crawler's name"),
    ([], "name the crawlers"),
    (["--agent", "url"], "two columns named url"),
    (["--agent", "GPTBot", "--as-of", "2025-13-40"], "not a timestamp"),
])
def test_bad_input_is_refused_and_writes_nothing(planted, tmp_path, args, words):
    _, out, urls = planted
    proc = judge(out, urls, tmp_path / "bad.parquet", *args, status=2)
    assert words in proc.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_directory_that_is_no_data_set_is_refused(planted, tmp_path):
    _, _, urls = planted
    proc = judge(tmp_path, urls, tmp_path / "x.parquet", "--agent", "GPTBot", status=2)
    assert "robostats:" in proc.stderr and not (tmp_path / "x.parquet").exists()


def test_odd_urls_get_rows(planted, tmp_path):
    _, out, _ = planted
    odd = ["http://a.example/" + "x" * 100_000, "http://a.example/\x00nul", "http://a.example/a b", "",
           "http://a.example/private/%7Ex"]
    urls = tmp_path / "odd.txt"
    urls.write_bytes(b"".join(u.encode() + b"\n" for u in odd) + b"http://a.example/\xff\xfe\n")
    judge(out, urls, tmp_path / "o.parquet", "--agent", "*")
    got = rows(tmp_path / "o.parquet")
    assert len(got) == 6
    assert [r["outcome"] for r in got] == ["rules", "rules", "rules", "not_a_url", "rules", "not_a_url"]
    assert got[4]["*"] is False


def test_judge_agrees_with_check_on_the_samples_own_bodies(samples_out, responses, tmp_path):
    """Every 2xx capture of the sample files that decides a scope: its
    original body (read with warcio) judged by `robostats check`, for URLs
    built from its own rules' paths, equals judge's verdict from the stored
    lines."""
    agents = ["GPTBot", "Googlebot", "AdsBot-Google", "CCBot", "*"]
    paths = ["/", "/index.html", "/wp-admin/", "/wp-admin/admin-ajax.php", "/search?q=a", "/a.pdf", "/A", "/%7Euser"]
    by_url = {}
    for r in responses:
        if r.url_path == "/robots.txt":
            by_url.setdefault(r.url, []).append(r)
    urls = []
    for url in sorted(by_url):
        base = url[: -len("/robots.txt")]
        for line in by_url[url][-1].body.decode("utf-8", "replace").splitlines()[:40]:
            key, _, value = line.partition(":")
            if key.strip().lower() in ("allow", "disallow") and value.strip().startswith("/"):
                p = value.split("#")[0].strip().replace("*", "x").rstrip("$")
                if p.isascii() and " " not in p:
                    urls.append(base + p)
        urls.extend(base + p for p in paths)
    (tmp_path / "urls.txt").write_text("".join(u + "\n" for u in urls))
    judge(samples_out, tmp_path / "urls.txt", tmp_path / "j.parquet", *[f for a in agents for f in ("--agent", a)])
    got = rows(tmp_path / "j.parquet")
    bodies = {(r.url, r.date): r.body for r in responses}
    checked = 0
    groups = {}
    for row in got:
        if row["outcome"] in ("rules", "no_rules", "empty"):
            when = row["fetch_time"].strftime("%Y-%m-%dT%H:%M:%SZ")
            groups.setdefault((row["robots_url"], when), []).append(row)
    for (robots_url, when), judged in groups.items():
        body_file = tmp_path / "body.txt"
        body_file.write_bytes(bodies[(robots_url, when)])
        args = [str(BIN), "check", str(body_file)]
        for a in agents:
            args += ["--agent", a]
        out = subprocess.run(args + [r["url"] for r in judged], capture_output=True, text=True, check=True).stdout
        verdicts = {}
        for line in out.splitlines():
            verdict, agent, url = line.split("\t")
            verdicts[(agent, url)] = verdict == "allowed"
        for r in judged:
            for a in agents:
                assert r[a] == verdicts[(a, r["url"])], (robots_url, a, r["url"])
                checked += 1
    assert checked > 5000, checked


def run_judged_query(name, **variables):
    con = duckdb.connect()
    for key, value in variables.items():
        con.execute(f"SET VARIABLE {key} = ?", [value])
    rel = con.sql((ROOT / "queries" / "judged" / f"{name}.sql").read_text())
    return [dict(zip(rel.columns, r)) for r in rel.fetchall()]


def domain_of(url):
    host = url.split("://", 1)[1].split("/", 1)[0].split(":", 1)[0].lower()
    return ".".join(host.split(".")[-2:])


def test_ready_query_crawlers_counts_urls_and_domains(planted):
    d, out, urls = planted
    judge(out, urls, d / "q.parquet", *agent_flags())
    got = {r["agent"]: r for r in run_judged_query("crawlers", robostats_judged=str(d / "q.parquet"),
                                                   robostats_agents=AGENTS)}
    assert set(got) == set(AGENTS)
    for i, agent in enumerate(AGENTS):
        judged = [(u, v[i]) for u, v in EXPECTED.items() if v[i] is not None]
        domains = {}
        for u, allowed in judged:
            domains.setdefault(domain_of(u), []).append(allowed)
        row = got[agent]
        assert (row["urls"], row["urls_disallowed"]) == (len(judged), sum(not a for _, a in judged)), agent
        assert row["domains"] == len(domains), agent
        assert row["domains_all_disallowed"] == sum(not any(v) for v in domains.values()), agent
        assert row["domains_any_disallowed"] == sum(not all(v) for v in domains.values()), agent


def test_ready_queries_domains_and_as_of(planted):
    d, out, urls = planted
    judge(out, urls, d / "then.parquet", "--ai-training", "--as-of", A)
    judge(out, urls, d / "later.parquet", "--ai-training")
    moved = run_judged_query("as_of", robostats_judged=str(d / "then.parquet"),
                             robostats_judged_later=str(d / "later.parquet"))
    counts = {(r["then"], r["later"]): r["urls"] for r in moved}
    # g.example blocked GPTBot in crawl A, allows it in crawl B: the one URL that moves
    assert counts[(True, False)] == 1 and (False, True) not in counts
    assert sum(counts.values()) == len(EXPECTED)
    rows_then = rows(d / "then.parquet")
    top = run_judged_query("domains", robostats_judged=str(d / "then.parquet"))
    by_domain = {}
    for r in rows_then:
        if r["opted_out"] is not None and r["url_host_registered_domain"]:
            by_domain.setdefault(r["url_host_registered_domain"], []).append(r["opted_out"])
    expected = sorted(((sum(v), k) for k, v in by_domain.items() if sum(v)), key=lambda p: (-p[0], p[1]))
    assert [(r["opted_out"], r["domain"]) for r in top] == expected
    assert top[0]["domain"] == "a.example" and top[0]["urls"] == 6


def test_urls_stored_as_bytes_in_parquet(planted, tmp_path):
    """A Parquet URL column of bytes: each value that is UTF-8 is judged,
    each that is not gets its row, NULL verdicts and not_a_url."""
    _, out, _ = planted
    import pyarrow as pa
    import pyarrow.parquet as pq
    values = [b"http://a.example/private/x", b"http://a.example/\xff\xfe", None, b"https://e.example/x"]
    pq.write_table(pa.table({"url": pa.array(values, pa.binary())}), tmp_path / "b.parquet")
    judge(out, tmp_path / "b.parquet", tmp_path / "o.parquet", "--agent", "*")
    got = rows(tmp_path / "o.parquet")
    assert [r["outcome"] for r in got] == ["rules", "not_a_url", "not_a_url", "empty"]
    assert [r["*"] for r in got] == [False, None, None, True]
    assert got[1]["url"] == b"http://a.example/\xff\xfe"


def test_a_text_line_of_more_than_a_mebibyte_is_refused(planted, tmp_path):
    _, out, _ = planted
    (tmp_path / "big.txt").write_text("http://a.example/\nhttp://a.example/" + "x" * (1 << 20) + "\n")
    proc = judge(out, tmp_path / "big.txt", tmp_path / "o.parquet", "--agent", "*", status=2)
    assert "big.txt line 2: longer than 1 MiB" in proc.stderr
    assert not (tmp_path / "o.parquet").exists()


def test_a_data_set_being_written_is_read_in_its_committed_state(planted, tmp_path):
    """A writer's part files under their temporary names (half written)
    are not read: judge gives the rows it gives without them."""
    import shutil
    d, out, urls = planted
    copy = tmp_path / "out"
    shutil.copytree(out, copy)
    for table in ("captures", "body_rules", "body_user_agents"):
        (copy / table / ".x-1234-w.parquet.99-abc.tmp").write_bytes(b"PAR1 half a file")
    judge(copy, urls, tmp_path / "w.parquet", *agent_flags())
    judge(out, urls, tmp_path / "c.parquet", *agent_flags())
    assert rows(tmp_path / "w.parquet") == rows(tmp_path / "c.parquet")


def test_text_files_gzip_a_bom_and_kept_columns(planted, tmp_path):
    import gzip
    _, out, _ = planted
    urls = ["http://a.example/private/x", "https://e.example/x"]
    with gzip.open(tmp_path / "u.txt.gz", "wt") as f:
        f.write("".join(u + "\n" for u in urls))
    (tmp_path / "bom.txt").write_bytes(b"\xef\xbb\xbf" + "".join(u + "\r\n" for u in urls).encode())
    for name in ("u.txt.gz", "bom.txt"):
        judge(out, tmp_path / name, tmp_path / "o.parquet", "--agent", "*")
        got = rows(tmp_path / "o.parquet")
        assert [(r["url"], r["*"]) for r in got] == [(urls[0], False), (urls[1], True)], name
    judge(out, tmp_path / "bom.txt", tmp_path / "o.parquet", "--agent", "*", "--keep", "")
    assert list(rows(tmp_path / "o.parquet")[0])[0] == "*"
    proc = judge(out, tmp_path / "bom.txt", tmp_path / "x.parquet", "--agent", "*", "--keep", "url,id", status=2)
    assert "has no column id (its columns: url); --keep names the columns to copy" in proc.stderr


def test_a_shard_given_no_file_writes_an_empty_part_with_the_columns(planted, tmp_path):
    _, out, urls = planted
    judge(out, urls, tmp_path / "parts", "--agent", "GPTBot", "--shard", "1/2")
    part = tmp_path / "parts" / "judged-shard-00001-of-00002.parquet"
    rel = duckdb.sql(f"SELECT * FROM read_parquet('{part}')")
    assert rel.columns[:2] == ["url", "GPTBot"] and rel.fetchall() == []
    judge(out, urls, tmp_path / "none", "--agent", "GPTBot", "--shard", "1/2", "--keep", "")
    rel = duckdb.sql(f"SELECT * FROM read_parquet('{tmp_path / 'none' / part.name}')")
    assert rel.columns[0] == "GPTBot"


def test_paths_a_user_chooses_change_nothing_read(planted, tmp_path):
    """A corpus under a `name=value` directory gains no column from it (no
    Hive partitioning), and a temporary directory named with `=`, `[` and
    `*` is read as itself."""
    import os
    d, out, _ = planted
    urls = ["http://a.example/private/x", "https://e.example/x"]
    hive = tmp_path / "dump=CC-MAIN-2024-10" / "[part]*"
    hive.mkdir(parents=True)
    (hive / "u.csv").write_text("url\n" + "".join(u + "\n" for u in urls))
    (hive / "u.jsonl").write_text("".join(f'{{"url": "{u}"}}\n' for u in urls))
    tmp = tmp_path / "tmp=1" / "[t]*"
    tmp.mkdir(parents=True)
    for name in ("u.csv", "u.jsonl"):
        proc = subprocess.run(
            [str(BIN), "judge", "--data-set", str(out), "--urls", str(hive / name), "-o", str(tmp_path / "o.parquet"),
             "--agent", "*"],
            capture_output=True, text=True, timeout=300, cwd=ROOT, env={**os.environ, "TMPDIR": str(tmp)})
        assert proc.returncode == 0, proc.stderr
        got = rows(tmp_path / "o.parquet")
        assert [list(r) for r in got] == [["url", "*"] + list(r)[2:] for r in got], name
        assert [(r["url"], r["*"]) for r in got] == [(urls[0], False), (urls[1], True)], name


def test_a_link_planted_at_the_output_is_replaced_not_followed(planted, tmp_path):
    _, out, urls = planted
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    (tmp_path / "o.parquet").symlink_to(victim)
    judge(out, urls, tmp_path / "o.parquet", "--agent", "*", "--figure", tmp_path / "victim-link.svg")
    assert victim.read_text() == "keep me"
    assert not (tmp_path / "o.parquet").is_symlink() and len(rows(tmp_path / "o.parquet")) == len(EXPECTED)
    # a second run on the same output replaces it whole
    judge(out, urls, tmp_path / "o.parquet", "--agent", "GPTBot")
    assert list(rows(tmp_path / "o.parquet")[0])[1] == "GPTBot"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["o.parquet", "victim-link.svg", "victim.txt"]
