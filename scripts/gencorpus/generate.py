"""One WARC file: the FileGenerator that runs the file's fetches (plan,
reply, transport, records) and counts its categories, and generate_file,
the job of one file."""

import os
import re
import time
from collections import Counter, defaultdict
from datetime import timedelta

from .config import FILE_SPAN, GOOGLE_LIMIT, PAGE_TEMPLATES
from .modes import check_preferences, check_small, forced_plan
from .pages import PagePool
from .plan import Plan
from .reply import draw_transport
from .server import Server
from .util import file_rng
from .warc import WarcWriter, file_name, file_start, write_exchange, write_warcinfo


class FileGenerator:
    """One WARC file: plans each fetch (a fresh robots.txt URL, the target
    of an earlier redirect, or a re-fetch), makes the server's reply, applies
    the transport, writes the request and response records, counts."""

    def __init__(self, seed, index, fetches, small, preferences=False):
        self.rng = file_rng("preferences " + seed if preferences else seed, index)
        self.index = index
        self.n = fetches
        self.small = small
        self.preferences = preferences
        self.name = file_name(index)
        self.pages = PagePool(self.rng, 1 if preferences else 12 if small else PAGE_TEMPLATES)
        self.facts = defaultdict(Counter)
        forced, forced_at = forced_plan(self.rng, fetches, small, preferences)
        self.plan = Plan(self.rng, fetches, self.facts, forced, forced_at)
        self.server = Server(self.rng, self.pages, self.facts, self.plan.follow_later, preferences)

    def run(self, path):
        """Write the file to `path`; returns its uncompressed size."""
        rng = self.rng
        writer = WarcWriter(path)
        info_id = write_warcinfo(writer, rng, self.name, self.index, self.preferences)
        start = file_start(self.index)
        dt = start
        mean_gap = FILE_SPAN.total_seconds() * 0.98 / self.n
        for slot in range(self.n):
            dt = min(dt + timedelta(seconds=round(rng.expovariate(1.0 / mean_gap))), start + FILE_SPAN)
            fetch = self.plan.next_fetch(slot)
            reply = self.server.serve(slot, fetch)
            transport = draw_transport(rng, fetch, reply, self.facts)
            write_exchange(writer, rng, info_id, dt, fetch, reply, transport, self.facts)
            self.count(fetch, reply)
        writer.close()
        if (self.small or self.preferences) and self.plan.forced:
            raise RuntimeError("forced categories left over: %r" % self.plan.forced)
        return writer.raw_bytes

    def count(self, fetch, reply):
        """Count the fetch's status, origin, scheme, host, truncation, size
        and the directive lines of a 2xx body."""
        f, site = self.facts, fetch.site
        f["status"][str(reply.status)] += 1
        f["fetch"][fetch.origin] += 1
        f["scheme"][site.scheme] += 1
        f["host"][site.kind] += 1
        if site.port is not None:
            f["host"]["explicit_port"] += 1
        if ":" in site.ip:
            f["host"]["ipv6_peer"] += 1
        if fetch.path != "/robots.txt":
            f["fetch"]["non_robots_path"] += 1
        if reply.truncated:
            f["truncated"][reply.truncated] += 1
        if len(reply.body) > GOOGLE_LIMIT:
            f["size"]["over_500kib"] += 1
        if 200 <= reply.status < 300 and reply.body:
            for key, n in extension_lines(reply.body).items():
                f["directive_lines"][key] += n


EXTENSION_RE = re.compile(
    rb"^[ \t]*(content-signals?|content-usage|crawl-delay|clean-param|host|noindex|request-rate|visit-time)[ \t]*:",
    re.I | re.M)
CF_BEGIN = b"# BEGIN Cloudflare Managed content"


def extension_lines(body):
    """Lines of the directives other crawlers define, in the first 500 KiB."""
    counts = Counter()
    head = body[:GOOGLE_LIMIT].replace(b"\r", b"\n")
    for m in EXTENSION_RE.finditer(head):
        counts[m.group(1).lower().decode()] += 1
    if CF_BEGIN in head:
        counts["cloudflare_managed_block"] += 1
    return counts


def generate_file(job):
    """Write one file (as NAME.part, then renamed), check it if --small or
    --preferences, and return (its --stats object, seconds taken)."""
    seed, index, fetches, small, preferences, out_dir = job
    t0 = time.time()
    gen = FileGenerator(seed, index, fetches, small, preferences)
    path = os.path.join(out_dir, gen.name)
    tmp = path + ".part"
    raw = gen.run(tmp)
    os.replace(tmp, path)
    if small:
        check_small(gen.facts)
    if preferences:
        check_preferences(gen.facts)
    stats = {"file": gen.name, "seed": seed, "small": small, "fetches": fetches, "records": 2 * fetches + 1,
             "uncompressed_bytes": raw, "compressed_bytes": os.path.getsize(path)}
    if preferences:
        stats["preferences"] = True
    for group in sorted(gen.facts):
        stats[group] = dict(sorted(gen.facts[group].items()))
    return stats, time.time() - t0
