#!/usr/bin/env python3
"""Benchmarks `robostats_cc.can_fetch_many` on rows shaped like a join of
pages with their hosts' robots.txt (one body per host, many URLs), beside
Protego, on real files.

    pip install robostats-cc protego warcio pyarrow
    python scripts/bench_python_join.py [WARC...] [--urls-per-body 190] [--runs 3]

WARC defaults to the samples (samples/*.warc.gz: Common Crawl's files).
Every HTTP 200 robots.txt body of the files is read once; each gets
--urls-per-body rows (its host's `/`, paths built from its own rules, then
made-up pages), the crawlers taken in turn from eight AI and search
crawlers. The body column holds the *same* `bytes` object on each of a
host's rows, as a Python join (a dict of bodies by host, looked up per
page) holds it. Timed on the same rows, in one process, medians of --runs:

  protego            Protego.parse once per body (cached by object), then
                     .can_fetch(url, agent) per row: the corpus filters' route
  lists, first call  can_fetch_many(bodies, agents, urls) from Python lists,
                     the process's first call (rayon's threads start)
  lists              the same, warm
  arrow              from Arrow arrays made beforehand (large_binary bodies:
                     each row's bytes a copy, as a Parquet column decoded)
  dictionary         from a dictionary-encoded body column (a Parquet column
                     read with read_dictionary, a categorical)

and the verdicts of every variant are checked equal to each other.
"""

import argparse
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
AGENTS = ["GPTBot", "CCBot", "ClaudeBot", "Googlebot", "Bytespider", "Google-Extended", "PerplexityBot", "Amazonbot"]


def bodies_of(warcs):
    """(robots.txt URL, body) of every HTTP 200 robots.txt response."""
    from warcio.archiveiterator import ArchiveIterator

    out = []
    for path in warcs:
        with open(path, "rb") as f:
            for record in ArchiveIterator(f):
                uri = record.rec_headers.get_header("WARC-Target-URI") or ""
                if record.rec_type != "response" or not uri.endswith("/robots.txt"):
                    continue
                if record.http_headers is None or record.http_headers.get_statuscode() != "200":
                    continue
                out.append((uri, record.content_stream().read()))
    return out


def rows_of(bodies, per_body):
    """The three columns as Python lists: a host's rows share its body."""
    rows_b, rows_a, rows_u = [], [], []
    for uri, body in bodies:
        base = uri[: -len("/robots.txt")]
        paths = ["/"]
        for line in body.splitlines():
            key, _, value = line.partition(b":")
            if key.strip().lower() in (b"allow", b"disallow"):
                p = value.split(b"#")[0].strip().decode("latin-1").replace("*", "x").rstrip("$")
                if p.startswith("/") and " " not in p:
                    paths.append(p)
        paths = paths[:20]
        for k in range(per_body):
            path = paths[k] if k < len(paths) else f"{paths[k % len(paths)].rstrip('/')}/page{k}.html"
            rows_b.append(body)
            rows_a.append(AGENTS[k % len(AGENTS)])
            rows_u.append(base + path)
    return rows_b, rows_a, rows_u


def median_time(f, runs):
    times, result = [], None
    for _ in range(runs):
        start = time.perf_counter()
        result = f()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("warcs", nargs="*", default=sorted(str(p) for p in (ROOT / "samples").glob("*.warc.gz")))
    ap.add_argument("--urls-per-body", type=int, default=190)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    import pyarrow as pa
    import robostats_cc
    from protego import Protego

    bodies = bodies_of(args.warcs)
    rows_b, rows_a, rows_u = rows_of(bodies, args.urls_per_body)
    n = len(rows_b)
    print(f"machine: {platform.machine()}, Python {platform.python_version()}; {len(bodies)} bodies, {n:,} rows, "
          f"{sum(map(len, rows_b)) / n:,.0f} bytes of body a row", file=sys.stderr)

    start = time.perf_counter()
    first = robostats_cc.can_fetch_many(rows_b, rows_a, rows_u).to_pylist()
    cold = time.perf_counter() - start
    warm, lists = median_time(lambda: robostats_cc.can_fetch_many(rows_b, rows_a, rows_u).to_pylist(), args.runs)
    col_b, col_a, col_u = pa.array(rows_b, pa.large_binary()), pa.array(rows_a), pa.array(rows_u)
    arrow, from_arrow = median_time(lambda: robostats_cc.can_fetch_many(col_b, col_a, col_u).to_pylist(), args.runs)
    dict_b = col_b.dictionary_encode()
    dictionary, from_dict = median_time(lambda: robostats_cc.can_fetch_many(dict_b, col_a, col_u).to_pylist(),
                                        args.runs)
    assert first == lists == from_arrow == from_dict

    def protego():
        parsed, out = {}, []
        for body, agent, url in zip(rows_b, rows_a, rows_u):
            p = parsed.get(id(body))
            if p is None:
                p = parsed[id(body)] = Protego.parse(body.decode("utf-8", "replace"))
            out.append(p.can_fetch(url, agent))
        return out

    theirs, verdicts = median_time(protego, args.runs)
    agree = sum(a == b for a, b in zip(verdicts, lists)) / n
    print("| variant | seconds | rows/s | vs Protego |\n|---|---|---|---|")
    print(f"| Protego, each body parsed once, `.can_fetch` per row | {theirs:.3f} | {n / theirs:,.0f} | 1 |")
    for name, t in [("`can_fetch_many` from Python lists, the process's first call", cold),
                    ("`can_fetch_many` from Python lists", warm),
                    ("`can_fetch_many` from Arrow arrays (a copy of the body per row)", arrow),
                    ("`can_fetch_many` from a dictionary-encoded body column", dictionary)]:
        print(f"| {name} | {t:.3f} | {n / t:,.0f} | **{theirs / t:.1f}x** |")
    print(f"\nProtego agrees with robostats on {agree:.2%} of the rows.")


if __name__ == "__main__":
    main()
