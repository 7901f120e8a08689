"""--copies: the WARC files of one crawl with copiesplan's refetched hosts,
and copies.tsv, a row per response record written.

This process plans every capture (copiesplan.plan_copies, one random
stream); each file is written from its own stream (seed, file number) in
--jobs processes, and every body from its host's stream, so the bytes do
not depend on --jobs. copies.tsv is written as copies.tsv.part, file by
file in file order, then renamed.

copies.tsv (tab-separated, a header line), per response record, in file
and record order:
    warc_filename   the file's name
    url             WARC-Target-URI
    host            the URL's host, lower case
    fetch_status    the HTTP status; empty for a failed fetch (the body
                    cut: WARC-Truncated: disconnect)
    truncated       WARC-Truncated, or empty
    template        the platform default robots.txt is (its ruleset) in
                    the body, as robostats' matcher finds it (templates.py);
                    empty for near-defaults, other bodies and non-2xx
    body_key        the BLAKE3 hash of the body as stored (the decoded
                    payload robostats parses; no body here is over its
                    500 KiB parse limit), in hex: robostats' body_digest;
                    2xx and not failed only
    ruleset_key     the XXH3-128 hash of the canonical ruleset text
                    (ruleset.py), in hex: robostats' ruleset_digest; 2xx
                    and not failed only
    planted         what the host was planned to serve: template:ID,
                    near:ID/change, cosmetic:ID/change,
                    hand:category:variant, or status:NNN
    fetch_index     the capture's place among the host's captures, 1..n
    refetch         empty for a host's first capture, else same, changed
                    (a new body version) or status (another status once)
    version         the host's body version: 0 as planted, one more for
                    each change before or at this capture (2xx hosts)
Every 2xx body is stored as the server sent it decoded (the transport's
Content-Encoding and Transfer-Encoding are renamed X-Crawler-..., as
Common Crawl does), so body_key is the payload's digest."""

import os
import time
from collections import Counter, defaultdict
from multiprocessing import Pool

from .config import GOOGLE_LIMIT
from .copiesplan import check_kinds, host_body, plan_copies
from .crawlplan import date_captures
from .crawls import file_stats
from .hosts import Site
from .pages import PagePool
from .plan import Fetch
from .reply import Reply, draw_transport
from .ruleset import body_digest, digest, ruleset
from .server import Server
from .templates import match_template
from .util import file_rng
from .warc import WarcWriter, file_name, write_exchange, write_warcinfo

COPIES_FILE = "copies.tsv"
COPIES_COLUMNS = ["warc_filename", "url", "host", "fetch_status", "truncated", "template", "body_key",
                  "ruleset_key", "planted", "fetch_index", "refetch", "version"]
NOTE = "one crawl whose hosts' robots.txt is fetched again and again (gen_corpus.py --copies%s; copies.tsv)"
PAGE_TEMPLATES = 16

_PAGES = {}


def shared_pages(seed):
    """The HTML page templates of the whole corpus (the same in every
    process): hosts serving a page as robots.txt serve it in every file."""
    if seed not in _PAGES:
        _PAGES[seed] = PagePool(file_rng("copies pages " + seed, 0), PAGE_TEMPLATES)
    return _PAGES[seed]


def write_copies(seed, out_dir, scale=1, jobs=1):
    """Plan, write every file (in `jobs` processes) and copies.tsv; returns
    ([(--stats object, seconds)] per file, hosts, rows)."""
    check_kinds(seed)
    hosts, files = plan_copies(seed, scale)
    file_jobs = [(seed, f, out_dir, scale) for f in files]
    path = os.path.join(out_dir, COPIES_FILE)
    results, rows = [], 0
    with open(path + ".part", "w", encoding="utf-8", newline="\n") as tsv:
        tsv.write("\t".join(COPIES_COLUMNS) + "\n")
        if jobs > 1 and len(file_jobs) > 1:
            with Pool(min(jobs, len(file_jobs))) as pool:
                done = pool.imap(write_file, file_jobs, chunksize=1)
                for stats, secs, text in done:
                    tsv.write(text)
                    results.append((stats, secs))
                    rows += stats["fetches"]
        else:
            for job in file_jobs:
                stats, secs, text = write_file(job)
                tsv.write(text)
                results.append((stats, secs))
                rows += stats["fetches"]
    os.replace(path + ".part", path)
    return results, len(hosts), rows


def write_file(job):
    """One file of the crawl, from its own random stream; returns (its
    --stats object, seconds, its copies.tsv rows as text)."""
    seed, f, out_dir, scale = job
    t0 = time.time()
    rng = file_rng("copies %s %s" % (seed, f.crawl), f.index)
    date_captures(f, rng)
    name = file_name(f.index, f.start, f.end)
    path = os.path.join(out_dir, name)
    facts = defaultdict(Counter)
    pages = shared_pages(seed)
    server = Server(rng, pages, facts, None)
    bodies, keys, rows = {}, {}, []
    writer = WarcWriter(path + ".part")
    info_id = write_warcinfo(writer, rng, name, f.index, False, f.crawl, f.start,
                             NOTE % (" --scale %d" % scale if scale > 1 else ""))
    for cap in f.captures:
        host = cap.host
        fetch = Fetch(Site(cap.scheme, host.name, host.domain, host.kind, None, host.ip), status=cap.status)
        reply = capture_reply(seed, server, cap, fetch, pages, bodies)
        transport = draw_transport(rng, fetch, reply, facts)
        write_exchange(writer, rng, info_id, cap.when, fetch, reply, transport, facts)
        rows.append(copies_row(name, cap, reply, keys, facts))
    writer.close()
    os.replace(path + ".part", path)
    stats = file_stats(name, f.crawl, seed, "copies", len(f.captures), writer, path, scale, facts)
    return stats, time.time() - t0, "".join("\t".join(row) + "\n" for row in rows)


def capture_reply(seed, server, cap, fetch, pages, bodies):
    """The server's reply: the host's body (the same bytes for the same
    host, version and scheme), a redirect, a 204, or an error page; cut
    in half for a failed fetch."""
    host, status = cap.host, cap.status
    if 200 <= status < 300 and host.body is not None:
        key = (host.id, cap.version, cap.scheme)
        if key not in bodies:
            bodies[key] = host_body(seed, host, cap.version, cap.scheme, pages)
        body, payload = bodies[key]
        ctype = server.robots_ctype(payload) if payload is not None else \
            "text/plain; charset=utf-8" if body else "text/plain"
        identified = payload.identified if payload is not None else "text/plain"
        reply = Reply(200, body, ctype, identified if body else None, host.server)
    elif status == 204:
        reply = Reply(204, b"", None, None, host.server)
    elif 300 <= status < 400:
        body, ctype, identified = server.redirect_body(status, cap.location)
        reply = Reply(status, body, ctype, identified, host.server, [("Location", cap.location)])
    else:
        reply = server.serve_error(fetch, host.server)
    if cap.failed:
        reply.announced = len(reply.body)
        reply.body = reply.body[:len(reply.body) // 2]
        reply.truncated = "disconnect"
    return reply


def copies_row(name, cap, reply, keys, facts):
    """copies.tsv's row of a capture, from what was written; counts it."""
    failed = reply.truncated is not None and reply.truncated != "length"
    body_key = ruleset_key = template = ""
    if 200 <= reply.status < 300 and not failed:
        if len(reply.body) > GOOGLE_LIMIT:
            raise RuntimeError("%s: a body over the parse limit" % cap.url)
        body_key = body_digest(reply.body)
        if body_key not in keys:
            rules = ruleset(reply.body)
            keys[body_key] = (digest(rules), match_template(reply.body, rules) or "")
        ruleset_key, template = keys[body_key]
        facts["template"][template or "none"] += 1
    facts["status"]["failed" if failed else str(reply.status)] += 1
    facts["refetch"][cap.refetch or "first"] += 1
    facts["planted"][cap.host.planted.split(":")[0]] += 1
    return [name, cap.url, cap.host.name, "" if failed else str(reply.status), reply.truncated or "", template,
            body_key, ruleset_key, cap.host.planted, str(cap.index), cap.refetch, str(cap.version)]
