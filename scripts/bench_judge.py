#!/usr/bin/env python3
"""Benchmarks `robostats judge` against the Protego route of the published
corpus filters, on URLs over every host of a generated crawl.

    pip install protego warcio duckdb pyarrow
    python scripts/bench_judge.py [CORPUS_DIR] [--urls 1000000] [--runs 3]

CORPUS_DIR holds WARC files of robots.txt fetches (default: the benchmark
corpus of scripts/bench.sh, robostats-bench-corpus in the temporary
directory, made by scripts/gen_corpus.py when missing). The script:

1. ingests them once into a data set (`robostats ingest`, kept beside);
2. writes a corpus of --urls URLs (Parquet, columns id and url) over every
   robots.txt scope of the data set: per scope `/`, `/index.html`, paths
   built from the rules of its latest 2xx file (`*` -> `x`, `$` dropped)
   and made-up pages, dealt round-robin until there are enough, then
   shuffled with a fixed seed (a corpus is not sorted by host);
3. times `robostats judge` on it for the 13 crawlers (the published
   tool's AI-training list, its CCBot spellings once, AI2Bot as `*`, which
   is Google's answer for it, plus Googlebot), medians of --runs; its
   peak RSS (with DuckDB's), and the same at a quarter of the URLs (memory
   flat in the number of URLs);
4. times the Protego route the published tool takes: one Protego parser
   per robots.txt (each 2xx body that decides a scope, read from the WARC
   files with warcio; parsed once, as its lru_cache does), then
   `can_fetch(url, agent)` per URL and crawler (URLs whose scope has no
   2xx file are allowed, the tool's policy, at the cost of a lookup). The
   parse of every file is timed whole; `can_fetch` on the first
   --protego-urls URLs of the corpus with warm parsers, and scaled to all
   URLs (the most favourable estimate for Protego);
5. compares the verdicts of both on those URLs (Protego is not
   Google-exact: docs/python.md) and prints a Markdown table.
"""

import argparse
import os
import platform
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
AGENTS = ["Applebot-Extended", "Bytespider", "CCBot", "ClaudeBot", "cohere-training-data-crawler", "Diffbot",
          "FacebookBot", "meta-externalagent", "Google-Extended", "GPTBot", "PanguBot", "Googlebot", "*"]


def run(cmd, **kw):
    """Runs `cmd`; (seconds, peak RSS in MiB of it and its children)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, **kw)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"{cmd[:2]} failed ({status})")
    return seconds, usage.ru_maxrss / 1024


def make_urls(con, n, seed):
    """--urls URLs over every scope of the data set, shuffled."""
    scopes = con.sql("""
        SELECT c.url_protocol || '://' || c.url_host_name
                   || CASE WHEN c.url_port IN (80, 443) THEN '' ELSE ':' || c.url_port END AS base,
               list(DISTINCT r.pattern ORDER BY r.pattern) FILTER (WHERE r.pattern IS NOT NULL) AS patterns
        FROM captures c LEFT JOIN body_rules r USING (body_digest)
        WHERE c.url_path = '/robots.txt'
        GROUP BY ALL ORDER BY base""").fetchall()
    rng = random.Random(seed)
    per_scope = []
    for base, patterns in scopes:
        paths = ["/", "/index.html"]
        for p in (patterns or [])[:6]:
            p = p.replace("*", "x").rstrip("$")
            if p.startswith("/"):
                paths.append(p)
        paths += [f"/page/{rng.randrange(10**6)}.html", f"/blog/post-{rng.randrange(10**4)}?utm=1"]
        per_scope.append([base + p for p in paths])
    urls, i = [], 0
    while len(urls) < n:
        for paths in per_scope:
            urls.append(paths[i % len(paths)] if i < len(paths) else
                        paths[0].split("/", 3)[0] + "//" + paths[0].split("/", 3)[2] + f"/doc/{i}/{len(urls)}")
            if len(urls) == n:
                break
        i += 1
    rng.shuffle(urls)
    return urls, len(scopes)


def protego_route(warcs, judged_rows, sample):
    """Protego's parse of every deciding 2xx file, and can_fetch on the
    sample's URLs: (parse seconds, files, can_fetch seconds, verdicts)."""
    from protego import Protego
    from warcio.archiveiterator import ArchiveIterator

    wanted = {(r[1], r[2]) for r in judged_rows if r[3] in ("rules", "no_rules", "empty")}
    bodies = {}
    for path in warcs:
        with open(path, "rb") as f:
            for rec in ArchiveIterator(f):
                if rec.rec_type != "response":
                    continue
                key = (rec.rec_headers.get_header("WARC-Target-URI"), rec.rec_headers.get_header("WARC-Date"))
                if key in wanted:
                    bodies[key] = rec.content_stream().read()
    texts = {k: b.decode("utf-8", "replace") for k, b in bodies.items()}
    start = time.perf_counter()
    parsers = {k: Protego.parse(t) for k, t in texts.items()}
    parse_seconds = time.perf_counter() - start
    by_scope = {}
    for url, robots_url, when, outcome in judged_rows:
        p = urlsplit(url)
        by_scope[(p.scheme, p.netloc.lower())] = parsers.get((robots_url, when))
    start = time.perf_counter()
    verdicts = []
    for url in sample:
        p = urlsplit(url)
        parser = by_scope.get((p.scheme, p.netloc.lower()))
        verdicts.append([parser.can_fetch(url, a) if parser else True for a in AGENTS])
    fetch_seconds = time.perf_counter() - start
    return parse_seconds, len(parsers), fetch_seconds, verdicts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus", nargs="?", default=os.path.join(tempfile.gettempdir(), "robostats-bench-corpus"))
    ap.add_argument("--urls", type=int, default=1_000_000)
    ap.add_argument("--protego-urls", type=int, default=20_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--bin", default=str(ROOT / "target" / "release" / "robostats"))
    ap.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "robostats-bench-judge"))
    args = ap.parse_args()
    import duckdb
    import pyarrow as pa
    import pyarrow.parquet as pq

    corpus, work = Path(args.corpus), Path(args.work)
    if not list(corpus.glob("*.warc.gz")):
        subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_corpus.py"), "--out", str(corpus)], check=True)
    warcs = sorted(corpus.glob("*.warc.gz"))
    work.mkdir(parents=True, exist_ok=True)
    out = work / "out"
    if not (out / "captures").is_dir():
        subprocess.run([args.bin, "ingest", "-q", "--out", str(out), *map(str, warcs)], check=True)
    con = duckdb.connect()
    con.execute("SET VARIABLE robostats_out = ?", [str(out)])
    for name in ("tables.sql", "views.sql"):
        con.execute((ROOT / "queries" / name).read_text())
    captures = con.sql("SELECT count(*) FROM captures").fetchall()[0][0]
    urls, scopes = make_urls(con, args.urls, seed=7)
    for n, name in [(args.urls, "urls.parquet"), (args.urls // 4, "urls-quarter.parquet")]:
        pq.write_table(pa.table({"id": list(range(n)), "url": urls[:n]}), work / name)
    agent_flags = [f for a in AGENTS for f in ("--agent", a)]

    def judge(name, output):
        return run([args.bin, "judge", "-q", "--data-set", str(out), "--urls", str(work / name),
                    "-o", str(work / output), "--python", sys.executable, *agent_flags])

    times = [judge("urls.parquet", "judged.parquet") for _ in range(args.runs)]
    quarter = [judge("urls-quarter.parquet", "judged-quarter.parquet") for _ in range(args.runs)]
    judged = con.sql(f"SELECT url, robots_url, strftime(fetch_time, '%Y-%m-%dT%H:%M:%SZ'), outcome, "
                     f"{', '.join(repr(a).replace(chr(39), chr(34)) for a in AGENTS)} "
                     f"FROM read_parquet('{work / 'judged.parquet'}')").fetchall()
    assert len(judged) == args.urls
    sample = urls[: args.protego_urls]
    parse_s, files, fetch_s, pverdicts = protego_route(warcs, [r[:4] for r in judged], sample)
    protego_total = parse_s + fetch_s * args.urls / len(sample)
    ours = statistics.median(t for t, _ in times)
    # (no verdict, where no capture decides: allowed, the tool's policy)
    agree = sum([True if v is None else v for v in r[4:]] == p for r, p in zip(judged, pverdicts))
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, {platform.python_version()}; "
          f"data set: {captures:,} captures, {scopes:,} robots.txt scopes; corpus {args.urls:,} URLs, "
          f"{len(AGENTS)} crawlers")
    print()
    print("| route | seconds | URLs/s | peak RSS |")
    print("|---|---|---|---|")
    print(f"| robostats judge, {args.urls:,} URLs (median of {args.runs}) | {ours:.2f} | "
          f"{args.urls / ours:,.0f} | {max(m for _, m in times):,.0f} MiB |")
    q = statistics.median(t for t, _ in quarter)
    print(f"| robostats judge, {args.urls // 4:,} URLs | {q:.2f} | {args.urls // 4 / q:,.0f} | "
          f"{max(m for _, m in quarter):,.0f} MiB |")
    print(f"| Protego route: parse {files:,} files once | {parse_s:.2f} | | |")
    print(f"| Protego route: can_fetch x {len(AGENTS)} on {len(sample):,} URLs, warm | {fetch_s:.2f} | "
          f"{len(sample) / fetch_s:,.0f} | |")
    print(f"| Protego route, {args.urls:,} URLs (parse + scaled can_fetch) | {protego_total:.1f} | "
          f"{args.urls / protego_total:,.0f} | |")
    print()
    print(f"robostats judge: **{protego_total / ours:.0f}x** the Protego route's URLs per second; "
          f"rows agreeing on every crawler (first {len(sample):,} URLs): {agree / len(sample):.2%}")


if __name__ == "__main__":
    main()
