"""--crawls: the WARC files of crawlplan's three crawls (two per crawl,
named, dated and marked isPartOf like Common Crawl's segment files) and
plan.tsv, the state each planned crawler finds on each host of each crawl."""

import os
import time
from collections import Counter, defaultdict

from .crawlplan import (CRAWLS, FILES_PER_CRAWL, PLAN_COLUMNS, body_bytes, check_scenarios, crawl_captures,
                        file_captures, file_start, plan_rows)
from .hosts import Site, public_ipv4
from .pages import nginx_page
from .plan import Fetch
from .reply import Reply, draw_transport
from .util import file_rng
from .warc import WarcWriter, file_name, write_exchange, write_warcinfo

NOTE = "crawl %d of %d with planned robots.txt policy transitions (gen_corpus.py --crawls; expected states: plan.tsv)"
PLAN_FILE = "plan.tsv"


def write_crawls(seed, out_dir):
    """Write every file of every crawl, then plan.tsv; returns ([(--stats
    object, seconds)] per file, the number of plan rows)."""
    check_scenarios()
    results, rows, ips = [], [], {}
    for c, crawl in enumerate(CRAWLS):
        rng = file_rng("crawls " + seed, c)
        hosts = crawl_captures(rng, c)
        for index in range(FILES_PER_CRAWL):
            captures = file_captures(crawl, hosts, index, rng)
            results.append(write_file(rng, seed, c, index, captures, ips, out_dir))
        rows += plan_rows(crawl, hosts)
    write_plan(os.path.join(out_dir, PLAN_FILE), rows)
    return results, len(rows)


def write_file(rng, seed, c, index, captures, ips, out_dir):
    """One file of crawl number `c`: its warcinfo record, then a request and
    a response record per capture (written as NAME.part, then renamed)."""
    t0 = time.time()
    crawl = CRAWLS[c]
    start = file_start(crawl, index)
    name = file_name(index, start)
    path = os.path.join(out_dir, name)
    facts = defaultdict(Counter)
    writer = WarcWriter(path + ".part")
    info_id = write_warcinfo(writer, rng, name, index, False, crawl, start, NOTE % (c + 1, len(CRAWLS)))
    for cap in captures:
        fetch = Fetch(capture_site(rng, cap, ips), status=cap.status)
        reply = capture_reply(cap)
        transport = draw_transport(rng, fetch, reply, facts)
        write_exchange(writer, rng, info_id, cap.when, fetch, reply, transport, facts)
        facts["status"][str(cap.status)] += 1
        if cap.failed:
            facts["truncated"]["disconnect"] += 1
    writer.close()
    os.replace(path + ".part", path)
    stats = {"file": name, "crawl": crawl, "seed": seed, "crawls": True, "fetches": len(captures),
             "records": 2 * len(captures) + 1, "uncompressed_bytes": writer.raw_bytes,
             "compressed_bytes": os.path.getsize(path)}
    for group in sorted(facts):
        stats[group] = dict(sorted(facts[group].items()))
    return stats, time.time() - t0


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


def write_plan(path, rows):
    """plan.tsv: a header line, then the rows, tab-separated."""
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for row in [PLAN_COLUMNS] + rows:
            f.write("\t".join(row) + "\n")
