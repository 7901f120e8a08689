"""--crawls: the WARC files of crawlplan's three crawls (two per crawl, more
with --scale; named, dated and marked isPartOf like Common Crawl's segment
files) and plan.tsv, the state each planned crawler finds on each host of
each crawl.

At --scale 1 one random stream per crawl (the plan's, then its files' in
turn) makes everything, in this process. At a larger scale this process
plans and dates the captures and draws each host's IP address (its own
stream), and each file is written from its own stream (crawl, file
number), in --jobs processes: the bytes do not depend on --jobs."""

import os
import time
from collections import Counter, defaultdict
from contextlib import nullcontext
from multiprocessing import Pool

from .crawlplan import (CRAWLS, PLAN_COLUMNS, body_bytes, check_scenarios, crawl_captures, crawl_files,
                        date_captures, files_per_crawl, plan_rows)
from .hosts import Site, public_ipv4
from .pages import nginx_page
from .plan import Fetch
from .reply import Reply, draw_transport
from .util import file_rng
from .warc import WarcWriter, file_name, write_exchange, write_warcinfo

NOTE = "crawl %d of %d with planned robots.txt policy transitions (gen_corpus.py --crawls%s; expected states: plan.tsv)"
PLAN_FILE = "plan.tsv"


def write_crawls(seed, out_dir, scale=1, jobs=1):
    """Write every file of every crawl, and plan.tsv crawl by crawl (as
    plan.tsv.part, renamed at the end); returns ([(--stats object,
    seconds)] per file, the number of plan rows)."""
    check_scenarios()
    plan_path = os.path.join(out_dir, PLAN_FILE)
    with open(plan_path + ".part", "w", encoding="utf-8", newline="\n") as plan:
        plan.write("\t".join(PLAN_COLUMNS) + "\n")
        if scale == 1:
            results, rows = write_crawls_1(seed, out_dir, plan)
        else:
            results, rows = write_crawls_scaled(seed, out_dir, scale, jobs, plan)
    os.replace(plan_path + ".part", plan_path)
    return results, rows


def write_crawls_1(seed, out_dir, plan):
    """--scale 1: each crawl's plan, dates, IP addresses and files drawn
    in turn from the crawl's one stream."""
    results, rows, ips = [], 0, {}
    for c, crawl in enumerate(CRAWLS):
        rng = file_rng("crawls " + seed, c)
        hosts = crawl_captures(rng, c)
        for f in crawl_files(crawl, hosts, files_per_crawl(c)):
            date_captures(f, rng)
            results.append(write_file(rng, seed, c, f, ips, out_dir, 1))
        rows += write_rows(plan, plan_rows(crawl, hosts))
    return results, rows


def write_crawls_scaled(seed, out_dir, scale, jobs, plan):
    """--scale K > 1: plans a crawl while the files of the one before are
    written (in parallel if `jobs` > 1)."""
    results, rows, ips, pending = [], 0, {}, None
    ip_rng = file_rng("crawls ips %s" % seed, scale)
    with Pool(jobs) if jobs > 1 else nullcontext() as pool:
        for c, crawl in enumerate(CRAWLS):
            rng = file_rng("crawls " + seed, c)
            hosts = crawl_captures(rng, c, scale)
            files = crawl_files(crawl, hosts, files_per_crawl(c, scale))
            for f in files:
                date_captures(f, rng)
            for _, _, caps in hosts:
                for cap in caps:
                    if cap.host not in ips:
                        ips[cap.host] = public_ipv4(ip_rng)
            file_jobs = [(seed, c, f, {cap.host: ips[cap.host] for cap in f.captures}, out_dir, scale)
                         for f in files]
            if pending is not None:
                results += pending.get()
            if pool is None:
                results += map(write_scaled_file, file_jobs)
            else:
                pending = pool.map_async(write_scaled_file, file_jobs, chunksize=1)
            rows += write_rows(plan, plan_rows(crawl, hosts))
            del hosts, files, file_jobs
        if pending is not None:
            results += pending.get()
    return results, rows


def write_scaled_file(job):
    """The job of one file at --scale K > 1: its own random stream."""
    seed, c, f, ips, out_dir, scale = job
    return write_file(file_rng("crawls %s %s" % (seed, f.crawl), f.index), seed, c, f, ips, out_dir, scale)


def write_rows(plan, rows):
    """Write plan.tsv rows, tab-separated; returns how many."""
    n = 0
    for row in rows:
        plan.write("\t".join(row) + "\n")
        n += 1
    return n


def write_file(rng, seed, c, f, ips, out_dir, scale):
    """The CrawlFile `f` of crawl number `c`: its warcinfo record, then a
    request and a response record per capture (written as NAME.part, then
    renamed)."""
    t0 = time.time()
    crawl = CRAWLS[c]
    name = file_name(f.index, f.start, f.end)
    path = os.path.join(out_dir, name)
    facts = defaultdict(Counter)
    writer = WarcWriter(path + ".part")
    note = NOTE % (c + 1, len(CRAWLS), " --scale %d" % scale if scale > 1 else "")
    info_id = write_warcinfo(writer, rng, name, f.index, False, crawl, f.start, note)
    for cap in f.captures:
        fetch = Fetch(capture_site(rng, cap, ips), status=cap.status)
        reply = capture_reply(cap)
        transport = draw_transport(rng, fetch, reply, facts)
        write_exchange(writer, rng, info_id, cap.when, fetch, reply, transport, facts)
        facts["status"][str(cap.status)] += 1
        if cap.failed:
            facts["truncated"]["disconnect"] += 1
    writer.close()
    os.replace(path + ".part", path)
    return file_stats(name, crawl, seed, "crawls", len(f.captures), writer, path, scale, facts), time.time() - t0


def file_stats(name, crawl, seed, mode, fetches, writer, path, scale, facts):
    """The --stats object of a finished file of a --crawls or --copies
    (`mode`) run: its counts, sizes and category counts."""
    stats = {"file": name, "crawl": crawl, "seed": seed, mode: True, "fetches": fetches,
             "records": 2 * fetches + 1, "uncompressed_bytes": writer.raw_bytes,
             "compressed_bytes": os.path.getsize(path)}
    if scale > 1:
        stats["scale"] = scale
    for group in sorted(facts):
        stats[group] = dict(sorted(facts[group].items()))
    return stats


def capture_site(rng, cap, ips):
    """The capture's Site; a host keeps its IP address across crawls."""
    host = cap.host
    if host not in ips:
        ips[host] = public_ipv4(rng)
    www = host.startswith("www.")
    return Site(cap.scheme, host, host[4:] if www else host, "www" if www else "bare", None, ips[host])


def capture_reply(cap):
    """The server's reply: the planned body (cut in half for a failed
    fetch), a redirect to the planned Location, or nginx's error page."""
    if 200 <= cap.status < 300:
        body = body_bytes(cap.body)
        if cap.failed:
            return Reply(200, body[:len(body) // 2], "text/plain", "text/plain", "nginx", announced=len(body),
                         truncated="disconnect")
        return Reply(200, body, "text/plain", "text/plain" if body else None, "nginx")
    extra = [("Location", cap.location)] if cap.location else []
    if cap.status in (429, 503):
        extra.append(("Retry-After", "3600"))
    return Reply(cap.status, nginx_page(cap.status), "text/html", "text/html", "nginx", extra)
