"""The command line: the arguments, one job per file (in parallel
processes if --jobs allows; --crawls runs in this process unless --scale
is above 1; --copies plans in this process and writes its files in
--jobs processes), the progress lines on stderr and the --stats JSON on
stdout."""

import argparse
import json
import os
import sys
import time
from multiprocessing import Pool

from .bodies import PREFERENCE_PLAIN_BODIES
from .config import DEFAULT_FETCHES, DEFAULT_FILES, PREFERENCES_INDEX, SMALL_FETCHES
from .crawlplan import CRAWLS, FETCHES_PER_FILE, FILES_PER_CRAWL, PLAN_AGENTS, crawl_fetches
from .crawls import PLAN_FILE, write_crawls
from .copiesplan import CRAWL as COPIES_CRAWL, FETCH_WEIGHTS, HOSTS_PER_SCALE, MAX_FETCHES
from .copies import COPIES_FILE, write_copies
from .generate import generate_file
from .modes import preference_cases


def main(argv=None):
    a = parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    if a.crawls:
        t0 = time.time()
        results, rows = write_crawls(a.seed, a.out, a.scale, a.jobs)
        report(results, t0, a.stats)
        print("%s: %d rows (crawl, host, crawler)" % (os.path.join(a.out, PLAN_FILE), rows), file=sys.stderr)
        return
    if a.copies:
        t0 = time.time()
        results, hosts, rows = write_copies(a.seed, a.out, a.scale, a.jobs)
        report(results, t0, a.stats)
        print("%s: %d rows (captures) of %d hosts, %.2f fetches per host" % (
            os.path.join(a.out, COPIES_FILE), rows, hosts, rows / hosts), file=sys.stderr)
        return
    jobs = [(a.seed, PREFERENCES_INDEX if a.preferences else i, a.records_per_file, a.small, a.preferences, a.out)
            for i in range(a.files)]
    t0 = time.time()
    if a.jobs > 1 and len(jobs) > 1:
        with Pool(min(a.jobs, len(jobs))) as pool:
            results = pool.map(generate_file, jobs, chunksize=1)
    else:
        results = [generate_file(j) for j in jobs]
    report(results, t0, a.stats)


def parse_args(argv):
    ap = argparse.ArgumentParser(description="Synthetic Common-Crawl-like robots.txt WARC files "
                                             "(robostats' test sample and benchmark corpus).")
    ap.add_argument("--out", required=True, help="output directory (created if missing)")
    ap.add_argument("--files", type=int, default=DEFAULT_FILES, help="number of files (default %(default)s)")
    ap.add_argument("--records-per-file", type=int, default=DEFAULT_FETCHES, metavar="M",
                    help="fetches per file; a file holds 2*M+1 records (default %(default)s)")
    ap.add_argument("--seed", default="1", help="any string (default %(default)s)")
    one = ap.add_mutually_exclusive_group()
    one.add_argument("--small", action="store_true",
                     help="the test sample: 1 file of %d fetches with every category at least once" % SMALL_FETCHES)
    one.add_argument("--preferences", action="store_true",
                     help="1 file of %d fetches: one 200 robots.txt per AI-use preference case (every "
                          "content_usage and cloudflare_managed variant) and %d plain bodies"
                          % (len(preference_cases()), len(PREFERENCE_PLAIN_BODIES)))
    one.add_argument("--crawls", action="store_true",
                     help="%d crawls (%s) of %d files each (more with --scale): the same hosts with planned "
                          "robots.txt policy transitions (%d captures), and OUT/%s, the state each of %s finds "
                          "on each host per crawl"
                          % (len(CRAWLS), ", ".join(CRAWLS), FILES_PER_CRAWL,
                             sum(crawl_fetches(c) for c in range(len(CRAWLS))), PLAN_FILE, ", ".join(PLAN_AGENTS)))
    one.add_argument("--copies", action="store_true",
                     help="one crawl (%s) whose hosts' robots.txt is fetched again in many of its files, as "
                          "Common Crawl does (it keeps a robots.txt about 2 hours, one segment: \"180 million "
                          "fetched robots.txt for 50 million hosts\", 3.6 fetches per host, S. Nagel, "
                          "common-crawl list, Oct 2016, https://groups.google.com/d/topic/common-crawl/IKAaDlFdC60; "
                          "here 1-%d fetches per host, mean %.1f), serving platform defaults (the files of "
                          "crates/robostats-rows/data/templates/), near-defaults, cosmetic variants and "
                          "hand-written bodies; and OUT/%s, a row per capture (its body, ruleset and template "
                          "keys). --scale 1: %d hosts, 4 files"
                          % (COPIES_CRAWL, MAX_FETCHES, sum(n * w for n, w in FETCH_WEIGHTS.items())
                             / sum(FETCH_WEIGHTS.values()), COPIES_FILE, HOSTS_PER_SCALE))
    ap.add_argument("--scale", type=int, metavar="K",
                    help="with --crawls: K times each scenario's hosts (copy 0 keeps the names) and the same plan, "
                         "in a file per about %d fetches (default 1: the plain --crawls); with --copies: "
                         "K times the hosts, in a file per about 20,000 captures" % FETCHES_PER_FILE)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="parallel processes (default: all CPUs)")
    ap.add_argument("--stats", action="store_true", help="print per-file category counts as JSON on stdout")
    a = ap.parse_args(argv)
    if a.scale is not None and not (a.crawls or a.copies):
        ap.error("--scale needs --crawls or --copies")
    if a.scale is None:
        a.scale = 1
    if a.scale < 1:
        ap.error("--scale must be at least 1")
    if a.small:
        a.files, a.records_per_file = 1, SMALL_FETCHES
    if a.preferences:
        a.files, a.records_per_file = 1, len(preference_cases())
    if a.files < 1 or a.records_per_file < (200 if a.small else 1):
        ap.error("need at least one file and one fetch")
    return a


def report(results, t0, stats):
    """A line per file and a total on stderr; the --stats JSON on stdout."""
    seconds = [t for _, t in results]
    results = [r for r, _ in results]
    raw = sum(r["uncompressed_bytes"] for r in results)
    gz = sum(r["compressed_bytes"] for r in results)
    for r, secs in zip(results, seconds):
        print("%s  %d fetches  %.1f MiB -> %.1f MiB (ratio %.2f)  %.1f s" % (
            r["file"], r["fetches"], r["uncompressed_bytes"] / 2 ** 20, r["compressed_bytes"] / 2 ** 20,
            r["uncompressed_bytes"] / r["compressed_bytes"], secs), file=sys.stderr)
    print("total: %d files, %d records, %d bytes uncompressed, %d bytes compressed (ratio %.2f), %.1f s" % (
        len(results), sum(r["records"] for r in results), raw, gz, raw / gz, time.time() - t0), file=sys.stderr)
    if stats:
        json.dump(results, sys.stdout, indent=1)
        sys.stdout.write("\n")
