#!/usr/bin/env python3
"""Synthetic Common-Crawl-like robots.txt WARC files: robostats' own test
sample and benchmark corpus.

What it writes
    Files named like Common Crawl's `robotstxt/` WARC files,
    `CC-MAIN-<start>-<end>-<NNNNN>.warc.gz`, of crawl CC-MAIN-2025-47. Each
    starts with a `warcinfo` record (whose description says the data is
    synthetic), then holds one `request` and one `response` record per
    fetch of a robots.txt URL (or of a redirect's target). Every record is
    its own gzip member (zlib level 6, gzip mtime 0), with Common Crawl's
    WARC header order and real sha1/base32 digests. Payloads are stored
    decoded: the server's Content-Encoding, Transfer-Encoding and a wrong
    Content-Length are renamed `X-Crawler-...` and a Content-Length of the
    stored payload is added, as Common Crawl's writer does. HTTP/2 replies
    keep lower-case header names and get an `HTTP/1.1` status line.
    Nothing in the files is real crawl data. The assumed mixture (every
    share is an assumption, not a measurement) is in the constants below.

    Among the robots.txt bodies are AI-use preference lines: Cloudflare's
    managed block, hand-written Content-Signal lines (in the * group, before
    the groups, after another group, a misspelt key) and IETF AIPREF
    Content-Usage rules (in the * group, before the groups, after another
    group, in a second * group, beside a Content-Signal; each with the
    current, an older draft's or an unparseable vocabulary). More cases are
    not in the mixture and only --preferences writes them: Content-Signal
    with y/n values, with upper-case keys, and in a named crawler's group;
    Content-Usage between two user-agent lines of one run, the attach
    draft's example verbatim, and path-scoped rules (wildcards, conflicting
    values for one path, duplicate keys, parameters, a disallowed path, a
    path without a leading "/").

How to run
    # the ~2 MB test sample (samples/): one file, 700 fetches, every
    # category below at least once, and its per-category counts as JSON
    python3 scripts/gen_corpus.py --out samples --small --seed 1 --stats

    # the AI-use preference cases (samples/preferences/): one small file,
    # one 200 robots.txt fetch per content_usage and cloudflare_managed
    # variant (each exactly once, in a fixed order), then 4 plain bodies
    python3 scripts/gen_corpus.py --out samples/preferences --preferences --seed 1 --stats

    # the benchmark corpus: 10 files x 16,000 fetches, ~1 GB uncompressed,
    # ~35-40 MB compressed per file (keep it outside the repository)
    python3 scripts/gen_corpus.py --out DIR

    Options: --files N, --records-per-file M (fetches per file: a file
    holds 2*M+1 records), --seed S, --jobs J (default: all CPUs), --stats.

    --stats prints a JSON list on stdout, one object per file: sizes, then
    counts per group: status, redirect_kind, location (absolute, path,
    scheme_relative, absent, empty), fetch (fresh, follow_up, refetch,
    non_robots_path), body (category of each 200 for a robots.txt URL) and
    variant (category:variant), error_page, truncated, encoding (gzip, br,
    chunked), x_crawler (renamed headers), bom, line_end, quirk, size
    (over_500kib), cache_control, protocol, scheme, host, and
    directive_lines (Content-Signal, Content-Usage, Crawl-delay, Host, ...
    lines and Cloudflare managed blocks in the first 500 KiB of 2xx bodies).
    Progress goes to stderr. --small checks that every category occurs and
    fails otherwise. --preferences (not with --small; it sets the number of
    files and fetches) checks that each case occurs exactly once and uncut
    and fails otherwise; its bodies are stored without the text quirks (LF
    line ends, no BOM, keys as written, a final newline).

Requirements
    Python 3 standard library only (tested with CPython 3.11.7, zlib 1.2.13,
    Debian 12).

Determinism
    The output depends only on the arguments: every file has its own random
    stream derived from (--seed, file index), so --jobs does not change a
    byte. The uncompressed WARC stream depends on the arguments alone; the
    gzip bytes also depend on the zlib build.

Facts taken from public sources (crawler lists, Cloudflare's managed
block, the AIPREF drafts, Google's parser) say where they come from.
"""

from __future__ import annotations

import argparse
import base64
import bisect
import hashlib
import heapq
import ipaddress
import itertools
import json
import math
import os
import random
import re
import sys
import time
import uuid
import zlib
from collections import Counter, defaultdict
from statistics import NormalDist
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from multiprocessing import Pool

# ---------------------------------------------------------------------------
# Fixed facts of the corpus
# ---------------------------------------------------------------------------

CRAWL = "CC-MAIN-2025-47"
# File i covers [start, start + 3 h], like CC's segment file names; file 0
# keeps the name of the sample the tests already use.
FIRST_FILE_START = datetime(2025, 11, 7, 0, 58, tzinfo=timezone.utc)
FILE_STEP = timedelta(hours=2, minutes=47)
FILE_SPAN = timedelta(hours=3)

FETCH_LIMIT = 1 << 20        # Common Crawl's fetch limit (Nutch http.content.limit): bodies cut here
GOOGLE_LIMIT = 512_000       # Google reads the first 500 KiB of a robots.txt
GOOGLE_LINE_MAX = 16_664     # Google's longest line (2083 * 8); longer lines are cut
HUGE_TARGET = 600 * 1024     # "a ~600 KiB robots.txt"
GZIP_LEVEL = 6               # java.util.zip's default, which CC's writer uses

DEFAULT_FILES = 10
DEFAULT_FETCHES = 16_000
SMALL_FETCHES = 700
# The file number of the --preferences file: the one after the default
# corpus's files, so that its name is none of theirs nor the test sample's.
PREFERENCES_INDEX = DEFAULT_FILES

CCBOT_UA = "CCBot/2.0 (https://commoncrawl.org/faq/)"
EMPTY_SHA1 = "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ"

# ---------------------------------------------------------------------------
# The assumed mixture. Every share is an assumption chosen to look like the
# published figures for Common Crawl's robots.txt fetches (~66 % 200,
# ~15-20 % 404, some % redirects, a few % 403/5xx), not a measurement.
# ---------------------------------------------------------------------------

# HTTP status of a fresh fetch of http(s)://host/robots.txt, in percent.
STATUS_SHARES = {
    200: 66.8, 404: 19.0,
    301: 4.2, 302: 2.4, 307: 0.4, 308: 1.0,                       # 8.0 % redirects
    403: 1.7, 401: 0.4, 410: 0.4, 400: 0.3, 406: 0.2, 418: 0.05, 451: 0.05,
    429: 0.6,
    500: 0.6, 502: 0.35, 503: 0.7, 504: 0.25, 520: 0.1, 521: 0.1, 522: 0.1,
    204: 0.3,
}

# Where a redirect points, in percent of redirects. "www_added" and
# "www_removed" may also switch http to https; "same_site" sends a
# subdomain to www.<domain>; "missing_location" has no (or an empty)
# Location header.
REDIRECT_KIND_SHARES = {
    "https_upgrade": 32, "www_added": 12, "www_removed": 10, "same_site": 6,
    "other_host": 12, "not_robots_path": 21, "https_downgrade": 2, "missing_location": 5,
}
NON_ROBOTS_PATHS = ["/", "/index.html", "/login?next=/robots.txt", "/robots.txt/", "/home",
                    "/en/", "/404.html", "/index.php?page=robots.txt"]
RELATIVE_LOCATION = 0.35        # of not_robots_path: Location is a path ("/", "/robots.txt/")
SCHEME_RELATIVE_LOCATION = 0.08  # of host changes on https: Location "//www.x.com/robots.txt"
FOLLOW_ROBOTS_TARGET = 0.60     # a redirect to a robots.txt URL is fetched later in the file
FOLLOW_OTHER_TARGET = 0.25      # ... and one to another path
FOLLOW_DELAY_MEAN = 8           # fetches between a redirect and the fetch of its target
REFETCH = 0.004                 # a fresh slot re-fetches an earlier robots.txt URL instead

# Status of the fetch of a redirect target.
FOLLOW_ROBOTS_STATUS = {200: 82, 404: 9, 301: 4, 403: 3, 503: 2}
FOLLOW_PAGE_STATUS = {200: 85, 404: 15}

# The body of a 200 for a robots.txt URL, in percent.
BODY_SHARES = {
    "wordpress": 17.0, "drupal": 2.5, "joomla": 2.5, "shopify": 5.0, "magento": 2.5,
    "allow_all": 10.0, "disallow_all": 3.5, "ai_blocklist": 10.0, "cloudflare_managed": 4.5,
    "content_usage": 1.5, "big_site": 8.0, "yandex": 4.0, "crawl_delay": 4.5,
    "sitemaps": 3.5, "typos": 3.0, "sloppy": 2.5, "comments": 2.5, "non_ascii": 2.0,
    "invalid_utf8": 0.6, "utf16": 0.12, "long_line": 0.15, "html_page": 6.0,
    "empty": 3.0, "junk": 1.1, "huge": 0.03,
}

# Quirks of robots.txt text bodies (probabilities).
LINE_END_SHARES = {"lf": 78.6, "crlf": 21.0, "cr": 0.4}
UTF8_BOM = 0.025
NO_FINAL_NEWLINE = 0.20
LEADING_BLANK_LINES = 0.02
TAB_AFTER_COLON = 0.02
KEY_CASE_SHARES = {"as_written": 80, "lower": 15, "upper": 5}

# 404 bodies, in percent of 404s; other 4xx/5xx use the server's page.
NOT_FOUND_PAGE_SHARES = {"themed": 45, "server_default": 33, "plain": 8, "json": 3,
                         "s3_xml": 3, "empty": 8}

# Transport, in probabilities per fetch unless said otherwise.
HTTPS = 0.80
H2_OF_HTTPS = 0.55              # WARC-Protocol: h2; names stay lower-case
TLS13 = 0.75
HTTP10_OF_HTTP = 0.03           # "HTTP/1.0" status line on plain http
LOWER_CASE_HTTP1 = 0.05         # HTTP/1.1 servers sending lower-case names
NO_REASON_PHRASE = 0.015
GZIP_ENCODED = 0.12             # of non-empty bodies: X-Crawler-Content-Encoding: gzip
BR_ENCODED = 0.04               # ... br
CHUNKED = 0.07                  # of non-empty HTTP/1.1 bodies not content-encoded
NO_CONTENT_LENGTH_H2 = 0.30     # h2 replies without content-length: CC appends one
CACHE_CONTROL = 0.35
TRUNCATED_LENGTH = 0.0004       # a 200 over 1 MiB, stored cut at 1 MiB: WARC-Truncated: length
TRUNCATED_TIME = 0.0002         # WARC-Truncated: time
TRUNCATED_DISCONNECT = 0.0002   # WARC-Truncated: disconnect
IPV6_PEER = 0.04
HOST_KIND_SHARES = {"www": 50.8, "bare": 30, "sub": 16, "idn": 2.0, "ipv4": 0.6, "upper": 0.6}
EXPLICIT_PORT = 0.006

# HTML pages (404 pages, HTML served as robots.txt, redirect targets): sizes
# lognormal, median 14 KB; each file's pool of page templates takes evenly
# spaced quantiles, so every file gets the same size mix.
PAGE_MEDIAN = 14_000
PAGE_SIGMA = 1.05
PAGE_TEMPLATES = 48           # per file (12 in --small)

SERVER_SHARES = {"nginx": 30, "apache": 22, "cloudflare": 20, "litespeed": 6, "iis": 4,
                 "s3": 3, "gws": 3, "varnish": 5, "openresty": 3, "none": 4}

CACHE_CONTROL_VALUES = [
    "max-age=86400", "public, max-age=3600", "max-age=0", "max-age=300, public",
    "public, max-age=14400", "s-maxage=600, max-age=60", "max-age=31536000, immutable",
    "private, max-age=600", "no-cache", "no-store, no-cache, must-revalidate",
    "max-age=0, must-revalidate", "max-age=-1", "max-age=1d", "public",
]

# ---------------------------------------------------------------------------
# Vocabulary
# ---------------------------------------------------------------------------

SYLLABLES = ("ba be bi bo bu ca co da de di do fa fe fi fo ga go ha he hi ka ke ki ko "
             "la le li lo lu ma me mi mo na ne ni no pa pe pi po ra re ri ro sa se si so "
             "ta te ti to va ve vi vo za zo an en in on ar er or ul el il ex ix st tr pr "
             "br gr cl fl pl sh ch th").split()
TLD_SHARES = {"com": 44, "org": 5, "net": 5, "de": 7, "ru": 4, "co.uk": 3, "fr": 2, "jp": 2,
              "com.br": 2, "it": 2, "pl": 2, "nl": 2, "es": 1.5, "in": 1, "com.au": 1, "io": 1.5,
              "info": 1, "xyz": 1, "cn": 1.5, "ca": 1, "ch": 1, "se": 1, "cz": 1, "edu": 1,
              "gov": 0.5, "shop": 0.5, "blog": 0.5}
SUBDOMAINS = ["shop", "blog", "m", "news", "en", "de", "forum", "docs", "store", "support",
              "portal", "wiki", "jobs", "app", "static", "help"]
# Unicode labels for IDN hosts (written here; encoded to punycode with the
# idna codec).
IDN_NAMES = [("bücherei", "de"), ("müller-bäckerei", "de"), ("café-olé", "fr"),
             ("niño", "es"), ("магазин", "рф"), ("пример", "рф"), ("日本語", "jp"),
             ("ελλάδα", "gr"), ("zürich-reisen", "ch"), ("köln-kultur", "de")]

PATH_WORDS = ("account admin ajax api archive assets auth basket blog cache cart catalog "
              "category checkout cgi-bin client comments config content cron dashboard data "
              "debug dev download drafts embed events export feed files forum gallery help "
              "images import includes internal invoices jobs json lib login logout media "
              "members mobile modules newsletter old orders pages partners preview print "
              "private profile promo public redirect register reports rss search secure "
              "session share shop signup static stats storage tag temp test themes tmp "
              "tracking upload uploads user users vendor video wishlist node product "
              "products collections compare filter sort lang en de fr staging beta").split()
QUERY_KEYS = ["sort", "filter", "sessionid", "sid", "page", "ref", "utm_source", "q", "lang",
              "replytocom", "add-to-cart", "orderby", "price", "view", "format"]
FILE_EXTS = ["pdf", "php", "json", "xml", "zip", "doc", "xls", "cgi", "asp", "js", "css", "gif"]

# Words of web copy, ordered roughly by how common they are (Zipf weights
# below make gzip behave roughly as on real pages).
PROSE = ("the and to of a in for is on you your with our we this that are it be at "
         "from by all more new or as can have not will about us an free shop now get "
         "page site home contact service products online best help find more here "
         "order price delivery support account search privacy policy terms cookie "
         "information news blog read world day time year people business design "
         "quality customer shipping return sale offer today latest story article "
         "video photo team company product store world market local guide review "
         "learn work life health travel food music book event community member "
         "details please view list back top menu close open login register cart "
         "checkout wishlist compare share follow subscribe newsletter email phone "
         "address city country language english deutsch français español help "
         "faq career jobs partner press investor report annual energy water green "
         "city summer winter spring autumn holiday gift card discount code "
         "collection new arrivals men women kids home garden sports outdoor").split()

# Search, SEO and other non-AI crawlers that robots.txt files name.
SEARCH_BOTS = ["Googlebot", "Googlebot-Image", "Googlebot-News", "Bingbot", "msnbot", "Slurp",
               "DuckDuckBot", "Baiduspider", "YandexBot", "Yandex", "Applebot", "SeznamBot",
               "Sogou web spider", "Yeti", "Qwantify", "PetalBot", "MojeekBot", "Mediapartners-Google",
               "AdsBot-Google", "AdsBot-Google-Mobile", "facebookexternalhit", "Twitterbot",
               "LinkedInBot", "Pinterest", "ia_archiver", "archive.org_bot", "Nutch"]
SEO_BOTS = ["AhrefsBot", "AhrefsSiteAudit", "SemrushBot", "SemrushBot-SA", "MJ12bot", "DotBot",
            "BLEXBot", "rogerbot", "DataForSeoBot", "serpstatbot", "Screaming Frog SEO Spider",
            "SiteAuditBot", "MegaIndex.ru", "linkdexbot", "spbot"]

# AI crawler tokens the published studies track (data/agents.tsv and its
# README: the ai-robots-txt/ai.robots.txt list, MIT, and the studies' lists).
AI_CORE = ["GPTBot", "ChatGPT-User", "OAI-SearchBot", "CCBot", "Google-Extended", "GoogleOther",
           "Applebot-Extended", "anthropic-ai", "ClaudeBot", "Claude-Web", "Claude-User",
           "Claude-SearchBot", "PerplexityBot", "Perplexity-User", "Bytespider",
           "meta-externalagent", "meta-externalfetcher", "FacebookBot", "Amazonbot", "cohere-ai",
           "cohere-training-data-crawler", "Diffbot", "omgili", "Webzio-Extended", "Timpibot",
           "YouBot", "AI2Bot", "Kangaroo Bot", "DeepSeekBot", "MistralAI-User"]
# More names from ai-robots-txt/ai.robots.txt robots.json (MIT, commit
# 738c80df); some are not RFC 9309 tokens (spaces, digits, "/"), as in real
# files.
AI_MORE = ["Ai2Bot-Dolma", "omgilibot", "ImagesiftBot", "img2dataset", "PanguBot", "Scrapy",
           "TikTokSpider", "DuckAssistBot", "iaskspider/2.0", "ICC-Crawler",
           "VelenPublicWebCrawler", "Meta-ExternalAgent", "MistralAI-User/1.0", "ChatGPT Agent",
           "Brightbot 1.0", "FirecrawlAgent", "Crawl4AI", "TavilyBot", "YandexAdditional",
           "NovaAct", "Google-CloudVertexBot", "GoogleAgent-Mariner", "Gemini-Deep-Research",
           "Kimi-User", "Manus-User", "QualifiedBot"]
# The groups of Cloudflare's managed robots.txt block (Cloudflare's
# documentation, managed-robots-txt; CloudflareBrowserRenderingCrawler since 2026).
CLOUDFLARE_BLOCKED = ["Amazonbot", "Applebot-Extended", "Bytespider", "CCBot", "ClaudeBot",
                      "Google-Extended", "GPTBot", "meta-externalagent"]

# Google's accepted misspellings (google/robotstxt robots.cc, as listed in
# tests/python/warc_facts.py) and misspellings nobody accepts.
ACCEPTED_TYPOS = {
    "user-agent": ["useragent", "User agent", "Useragent", "user agent"],
    "disallow": ["Dissallow", "dissalow", "Disalow", "diasllow", "Disallaw"],
    "sitemap": ["Site-map", "site-map"],
}
UNACCEPTED_TYPOS = {
    "user-agent": ["User-agnet", "user-agnet", "Usr-agent"],
    "disallow": ["Diallow", "Dis-allow", "Dsallow", "Disllow"],
    "allow": ["Alow", "Allwo"],
    "sitemap": ["Sitmap", "Site map", "Stemap"],
    "crawl-delay": ["crawl_delay", "Crawl-Dealy", "Crawldelay"],
}

REASONS = {200: "OK", 204: "No Content", 301: "Moved Permanently", 302: "Found",
           307: "Temporary Redirect", 308: "Permanent Redirect", 400: "Bad Request",
           401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 406: "Not Acceptable",
           410: "Gone", 418: "I'm a teapot", 429: "Too Many Requests",
           451: "Unavailable For Legal Reasons", 500: "Internal Server Error",
           502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout",
           520: "", 521: "", 522: ""}


# ---------------------------------------------------------------------------
# Random helpers
# ---------------------------------------------------------------------------

class Shares:
    """A weighted table {item: weight}, drawn by bisecting the cumulative weights."""

    def __init__(self, weights):
        self.source = weights
        self.items = list(weights)
        self.cum = list(itertools.accumulate(weights.values()))

    def draw(self, rng):
        return self.items[bisect.bisect_right(self.cum, rng.random() * self.cum[-1])]


_SHARES_CACHE: dict[int, Shares] = {}


def pick(rng, weights):
    """One item of a {item: weight} dict (the dicts above are module constants)."""
    table = _SHARES_CACHE.get(id(weights))
    if table is None or table.source is not weights:
        table = _SHARES_CACHE[id(weights)] = Shares(weights)
    return table.draw(rng)


def lognormal(rng, median, sigma, lo, hi):
    return max(lo, min(hi, int(median * math.exp(rng.gauss(0.0, sigma)))))


def record_id(rng):
    return "<urn:uuid:%s>" % uuid.UUID(int=rng.getrandbits(128), version=4)


def sha1_b32(data):
    return "sha1:" + base64.b32encode(hashlib.sha1(data).digest()).decode("ascii")


def zipf_cum(n, s):
    return list(itertools.accumulate(1.0 / (r ** s) for r in range(1, n + 1)))


PROSE_CUM = zipf_cum(len(PROSE), 1.0)
DOMAIN_WORDS = [w for w in PATH_WORDS + PROSE if w.isascii() and w.isalpha() and len(w) > 2]
PATH_CUM = zipf_cum(len(PATH_WORDS), 0.7)


def prose(rng, n):
    return " ".join(rng.choices(PROSE, cum_weights=PROSE_CUM, k=n))


def path_word(rng):
    return rng.choices(PATH_WORDS, cum_weights=PATH_CUM)[0]


def http_date(dt):
    return dt.strftime("%a, %d %b %Y %H:%M:%S GMT")


def warc_date(dt):
    return dt.strftime("%Y-%m-%dT%H:%M:%SZ")


def file_rng(seed, index):
    """The random stream of one file: depends on (seed, index) only."""
    digest = hashlib.sha256(("robostats gen_corpus %s %d" % (seed, index)).encode()).digest()
    return random.Random(int.from_bytes(digest[:16], "big"))


# ---------------------------------------------------------------------------
# Sites (scheme, host, port) and URLs
# ---------------------------------------------------------------------------

@dataclass
class Site:
    scheme: str
    host: str            # as written in the URL (may be upper-case, punycode, an IPv4)
    domain: str          # registered domain, lower-case ASCII
    kind: str            # www | bare | sub | idn | ipv4 | upper
    port: int | None = None
    ip: str = "0.0.0.0"

    @property
    def hostport(self):
        return self.host if self.port is None else "%s:%d" % (self.host, self.port)

    @property
    def origin(self):
        return "%s://%s" % (self.scheme, self.hostport)

    def url(self, path):
        return self.origin + path

    def moved(self, **changes):
        d = dict(self.__dict__)
        d.update(changes)
        return Site(**d)


def new_domain(rng):
    r = rng.random()
    if r < 0.5:
        name = "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4)))
    elif r < 0.85:
        name = "-".join(rng.choice(DOMAIN_WORDS) for _ in range(rng.randint(1, 2)))
    else:
        name = rng.choice(SYLLABLES) + rng.choice(DOMAIN_WORDS) + str(rng.randint(1, 99))
    return name + "." + pick(rng, TLD_SHARES)


def public_ipv4(rng):
    while True:
        a = rng.randint(1, 223)
        if a not in (10, 100, 127, 169, 172, 192, 198, 203):
            return "%d.%d.%d.%d" % (a, rng.randint(0, 255), rng.randint(0, 255), rng.randint(1, 254))


IPV6_PREFIXES = [0x26064700, 0x2A0104F8, 0x26001F18, 0x2A0226F0, 0x2604A880, 0x20014860]


def public_ipv6(rng):
    value = (rng.choice(IPV6_PREFIXES) << 96) | (rng.getrandbits(16) << 64)
    if rng.random() < 0.5:
        value |= rng.getrandbits(16)          # ::1234-style, compressed by RFC 5952
    else:
        value |= rng.getrandbits(64)
    return str(ipaddress.IPv6Address(value))


def new_site(rng, kind=None, scheme=None, port=None):
    kind = kind or pick(rng, HOST_KIND_SHARES)
    if scheme is None:
        scheme = "https" if rng.random() < (0.2 if kind == "ipv4" else HTTPS) else "http"
    if kind == "ipv4":
        ip = public_ipv4(rng)
        return Site(scheme, ip, ip, kind, port, ip)
    if kind == "idn":
        label, tld = rng.choice(IDN_NAMES)
        domain = ("%s.%s" % (label, tld)).encode("idna").decode("ascii")
        host = domain if rng.random() < 0.6 else "www." + domain
    else:
        domain = new_domain(rng)
        if kind == "www":
            host = "www." + domain
        elif kind == "sub":
            host = rng.choice(SUBDOMAINS) + "." + domain
        else:
            host = domain
        if kind == "upper":
            host = ("www." + domain if rng.random() < 0.5 else domain).upper()
            if rng.random() < 0.5:     # mixed case: "WWW.Example.COM"
                host = ".".join(p.capitalize() if i % 2 else p for i, p in enumerate(host.split(".")))
    if port is None and rng.random() < EXPLICIT_PORT:
        port = rng.choice((8080, 8443, 8000, 81, 8888))
    ip = public_ipv6(rng) if rng.random() < IPV6_PEER else public_ipv4(rng)
    return Site(scheme, host, domain, kind, port, ip)


def site_for_redirect(rng, kind, force):
    """A fresh site whose URL can make the redirect `kind`."""
    scheme = force.get("scheme")
    if kind == "https_upgrade":
        return new_site(rng, kind=force.get("host_kind"), scheme="http")
    if kind == "https_downgrade":
        return new_site(rng, kind=force.get("host_kind") or rng.choice(("www", "bare")), scheme="https")
    if kind == "www_added":
        return new_site(rng, kind="bare", scheme=scheme)
    if kind == "www_removed":
        return new_site(rng, kind="www", scheme=scheme)
    if kind == "same_site":
        return new_site(rng, kind="sub", scheme=scheme)
    return new_site(rng, kind=force.get("host_kind"), scheme=scheme)


def redirect_kinds_for(site):
    """The redirect kinds a response for this site's URL can make."""
    kinds = ["other_host", "not_robots_path", "missing_location"]
    host = site.host.lower()
    if site.scheme == "http":
        kinds.append("https_upgrade")
    else:
        kinds.append("https_downgrade")
    if site.kind == "ipv4":
        return kinds
    if host.startswith("www."):
        kinds.append("www_removed")
    elif host == site.domain:
        kinds.append("www_added")
    else:
        kinds.append("same_site")
    return kinds


# ---------------------------------------------------------------------------
# Robots.txt bodies: one function per category, each with named variants
# ---------------------------------------------------------------------------

@dataclass
class Payload:
    """A response body before the transport: either robots.txt text lines
    (line-end, BOM and case quirks still to apply) or final bytes."""
    lines: list | None = None
    data: bytes | None = None
    encoding: str = "utf-8"
    bom: bytes = b""
    quirks: bool = True
    ctype: str | None = "text/plain"
    identified: str | None = "text/plain"


class Ctx:
    """What a body builder may use: the file's random stream, the site, the
    file's HTML page pool."""

    def __init__(self, rng, site, pages):
        self.rng = rng
        self.site = site
        self.pages = pages
        self.home = "https://" + site.host.lower() + ("" if site.port is None else ":%d" % site.port)

    def url(self, path):
        return self.home + path


def rule_path(rng):
    """A path pattern as sites write them: prefixes, wildcards, `$`, queries."""
    p = "/" + "/".join(path_word(rng) for _ in range(rng.choice((1, 1, 1, 2, 2, 3))))
    r = rng.random()
    if r < 0.28:
        return p + "/"
    if r < 0.42:
        return "/*?" + rng.choice(QUERY_KEYS) + "="
    if r < 0.52:
        return "/*." + rng.choice(FILE_EXTS) + "$"
    if r < 0.59:
        return p + "$"
    if r < 0.66:
        return "/*" + p + "/"
    if r < 0.72:
        return p + "?*" + rng.choice(QUERY_KEYS) + "="
    if r < 0.78:
        return "/%s/*/%s" % (path_word(rng), path_word(rng))
    if r < 0.83:
        return "%s/%d" % (p, rng.randint(1, 99999))
    if r < 0.86:
        return "/*&" + rng.choice(QUERY_KEYS) + "=*"
    return p


def rules(rng, n, allow_share=0.15):
    return [("Allow: " if rng.random() < allow_share else "Disallow: ") + rule_path(rng)
            for _ in range(n)]


def text(lines, **kw):
    return Payload(lines=lines, **kw)


def body_wordpress(c, variant):
    rng = c.rng
    sitemap = c.url(rng.choice(("/wp-sitemap.xml", "/sitemap_index.xml", "/sitemap.xml")))
    core = ["User-agent: *", "Disallow: /wp-admin/", "Allow: /wp-admin/admin-ajax.php"]
    if variant == "core":
        return text(core + ([] if rng.random() < 0.3 else ["", "Sitemap: " + sitemap]))
    if variant == "yoast":
        return text(["# START YOAST BLOCK", "# ---------------------------", "User-agent: *",
                     "Disallow:", "", "Sitemap: " + c.url("/sitemap_index.xml"),
                     "# ---------------------------", "# END YOAST BLOCK"])
    if variant == "woocommerce":
        shop = ["Disallow: /cart/", "Disallow: /checkout/", "Disallow: /my-account/",
                "Disallow: /*?add-to-cart=*", "Disallow: /*?orderby=", "Disallow: /*?filter_*",
                "Disallow: /*add_to_wishlist=*"]
        return text(core + shop[:rng.randint(3, len(shop))] + ["", "Sitemap: " + sitemap])
    extra = ["Disallow: /wp-includes/", "Disallow: /wp-content/plugins/", "Disallow: /wp-content/cache/",
             "Disallow: /trackback/", "Disallow: */feed/", "Disallow: /comments/", "Disallow: /?s=",
             "Disallow: /search/", "Disallow: /*?replytocom", "Disallow: /xmlrpc.php",
             "Disallow: /readme.html", "Disallow: /wp-login.php", "Allow: /wp-content/uploads/",
             "Disallow: /*/feed/$", "Disallow: /author/", "Disallow: /tag/*/page/", "Allow: /*.css$",
             "Allow: /*.js$"]
    rng.shuffle(extra)
    return text(core + extra[:rng.randint(4, len(extra))] + ["", "Sitemap: " + sitemap])


def body_drupal(c, variant):
    rng = c.rng
    head = ["#", "# robots.txt", "#", "# This file keeps well-behaved crawlers out of the parts",
            "# of this Drupal site that only make sense to people logged in.", "#",
            "# See http://www.robotstxt.org/robotstxt.html", "#"]
    assets = ["# CSS, JS, Images"]
    assets += ["Allow: /%s/*.%s%s" % (d, e, rng.choice(("$", "?", "")))
               for d in ("core", "profiles") for e in ("css", "js", "png", "svg")]
    dirs = ["# Directories", "Disallow: /core/", "Disallow: /profiles/",
            "# Files", "Disallow: /README.md", "Disallow: /web.config", "Disallow: /composer.json"]
    paths = ["admin/", "comment/reply/", "filter/tips", "node/add/", "search/", "user/register",
             "user/password", "user/login", "user/logout", "media/oembed"]
    clean = ["# Paths (clean URLs)"] + ["Disallow: /" + p for p in paths]
    plain = ["# Paths (no clean URLs)"] + ["Disallow: /index.php/" + p for p in paths]
    lines = head + ["User-agent: *"] + assets + dirs + clean
    if variant == "with_index_php":
        lines += plain
    return text(lines)


def body_joomla(c, variant):
    lines = ["# If the Joomla site is installed within a folder",
             "# eg www.example.com/joomla/ then the robots.txt file",
             "# MUST be moved to the site root", "# and the joomla folder name MUST be prefixed",
             "# to all of the paths.", "", "User-agent: *"]
    dirs = ["administrator", "api", "bin", "cache", "cli", "components", "includes",
            "installation", "language", "layouts", "libraries", "logs", "modules", "plugins", "tmp"]
    lines += ["Disallow: /%s/" % d for d in dirs]
    if variant == "with_sitemap":
        lines += ["", "Sitemap: " + c.url("/index.php?option=com_jmap&view=sitemap&format=xml")]
    return text(lines)


def body_shopify(c, variant):
    rng = c.rng
    star = ["Disallow: /admin", "Disallow: /cart", "Disallow: /orders", "Disallow: /checkouts/",
            "Disallow: /checkout", "Disallow: /*/checkouts/", "Disallow: /carts", "Disallow: /account",
            "Disallow: /collections/*sort_by*", "Disallow: /*/collections/*sort_by*",
            "Disallow: /collections/*+*", "Disallow: /collections/*%2B*", "Disallow: /collections/*%2b*",
            "Disallow: /blogs/*+*", "Disallow: /*?*oseid=*", "Disallow: /*preview_theme_id*",
            "Disallow: /*preview_script_id*", "Disallow: /policies/", "Disallow: /search",
            "Disallow: /apple-app-site-association", "Disallow: /.well-known/shopify/monorail",
            "Disallow: /cdn/wpm/*.js", "Disallow: /recommendations/products",
            "Disallow: /products/*.oembed", "Disallow: /*/products/*.oembed"]
    lines = ["# we use Shopify as our ecommerce platform", "", "User-agent: *"] + star
    lines += ["Sitemap: " + c.url("/sitemap.xml"), "",
              "# Google adsbot ignores robots.txt unless specifically named!",
              "User-agent: adsbot-google", "Disallow: /checkouts/", "Disallow: /checkout",
              "Disallow: /carts", "Disallow: /orders", "Disallow: /*?*oseid=*", "",
              "User-agent: Nutch", "Disallow: /", "",
              "User-agent: AhrefsBot", "Crawl-delay: 10"] + star[:6]
    lines += ["", "User-agent: AhrefsSiteAudit", "Crawl-delay: 10"] + star[:6]
    lines += ["", "User-agent: MJ12bot", "Crawl-Delay: 10", "", "User-agent: Pinterest", "Crawl-delay: 1"]
    if variant == "with_ai":
        lines += ["", "# no AI training"] + ["User-agent: " + b for b in rng.sample(AI_CORE, 5)] + ["Disallow: /"]
    return text(lines)


def body_magento(c, variant):
    lines = ["User-agent: *", "Disallow: /index.php/", "Disallow: /*?", "Disallow: /checkout/",
             "Disallow: /app/", "Disallow: /lib/", "Disallow: /*.php$", "Disallow: /pkginfo/",
             "Disallow: /report/", "Disallow: /var/", "Disallow: /customer/",
             "Disallow: /sendfriend/", "Disallow: /review/", "Disallow: /*SID=",
             "Disallow: /catalogsearch/", "Disallow: /catalog/product_compare/",
             "Disallow: /wishlist/", "Allow: /*?p=", "Disallow: /*?dir*", "Disallow: /*?limit*",
             "Disallow: /*?mode*", "Disallow: /*?price=*"]
    if variant == "with_delay":
        lines += ["Crawl-delay: %d" % c.rng.choice((5, 10, 20))]
    return text(lines + ["", "Sitemap: " + c.url("/pub/media/sitemap.xml")])


def body_allow_all(c, variant):
    sm = c.url("/sitemap.xml")
    return text({
        "empty_disallow": ["User-agent: *", "Disallow:"],
        "allow_root": ["User-agent: *", "Allow: /"],
        "with_sitemap": ["User-agent: *", "Disallow:", "", "Sitemap: " + sm],
        "allow_star": ["User-agent: *", "Allow: /*"],
        "comment_only": ["# robots.txt for " + c.site.host.lower(), "# everything is allowed"],
        "disallow_space": ["User-Agent: *", "Disallow: "],
    }[variant])


def body_disallow_all(c, variant):
    return text({
        "root": ["User-agent: *", "Disallow: /"],
        "star": ["User-agent: *", "Disallow: /*"],
        "staging": ["# Staging server - do not index", "User-agent: *", "Disallow: /"],
        "except_google": ["User-agent: *", "Disallow: /", "", "User-agent: Googlebot", "Allow: /"],
        "noindex": ["User-Agent: *", "Disallow: /", "Noindex: /"],
    }[variant])


def ai_tokens(rng, lo, hi, pool=None):
    pool = pool or (AI_CORE + AI_MORE)
    return rng.sample(pool, rng.randint(lo, min(hi, len(pool))))


def star_group(c, max_rules=10):
    g = ["User-agent: *"] + rules(c.rng, c.rng.randint(0, max_rules))
    if len(g) == 1:
        g.append("Disallow:")
    return g


def body_ai_blocklist(c, variant):
    rng = c.rng
    header = [rng.choice(("# Block AI crawlers", "# AI training bots are not welcome",
                          "# Opt out of generative AI training", "# --- AI ---",
                          "# Source: ai.robots.txt"))] if rng.random() < 0.7 else []
    if variant == "one_group":
        ai = header + ["User-agent: " + b for b in ai_tokens(rng, 4, 40)] + ["Disallow: /"]
    elif variant == "group_each":
        ai = header
        for b in ai_tokens(rng, 3, 20):
            ai += ["User-agent: " + b, "Disallow: /", ""]
        ai = ai[:-1]
    elif variant == "partial":
        ai = header
        for b in ai_tokens(rng, 3, 12):
            if rng.random() < 0.35:
                ai += ["User-agent: " + b, "Allow: /blog/", "Disallow: /", ""]
            else:
                ai += ["User-agent: " + b, "Disallow: /", ""]
        ai = ai[:-1]
    elif variant == "search_allowed":
        ai = header + ["User-agent: OAI-SearchBot", "User-agent: ChatGPT-User", "User-agent: PerplexityBot",
                       "Allow: /", "", "User-agent: GPTBot", "User-agent: CCBot", "User-agent: ClaudeBot",
                       "User-agent: Google-Extended", "User-agent: Bytespider", "Disallow: /"]
    else:  # full_list: every name of the list, as ai.robots.txt publishes it
        ai = ["# https://github.com/ai-robots-txt/ai.robots.txt"] + ["User-agent: " + b for b in AI_CORE + AI_MORE]
        ai += ["Disallow: /"]
    star = star_group(c)
    lines = ai + [""] + star if rng.random() < 0.5 else star + [""] + ai
    if rng.random() < 0.7:
        lines += ["", "Sitemap: " + c.url("/sitemap.xml")]
    return text(lines)


# The text around Cloudflare's managed block, after the deployed block
# (Cloudflare's documentation, managed-robots-txt, the 2026 template with
# use=); the preamble is abridged.
CF_PREAMBLE = [
    "# As a condition of accessing this website, you agree to abide by the following",
    "# content signals:",
    "#",
    "# (a)  If a content-signal = yes, you may collect content for the corresponding use.",
    "# (b)  If a content-signal = no, you may not collect content for the corresponding use.",
    "# (c)  If the website operator does not include a content signal for a corresponding",
    "#      use, the website operator neither grants nor restricts permission via content",
    "#      signal with respect to the corresponding use.",
    "#",
    "# The content signals and their meanings are:",
    "#",
    "# search:   building a search index and providing search results.",
    "# ai-input: inputting content into one or more AI models.",
    "# ai-train: training or fine-tuning AI models.",
    "#",
    "# ANY RESTRICTIONS EXPRESSED VIA CONTENT SIGNALS ARE EXPRESS RESERVATIONS OF RIGHTS",
    "# UNDER ARTICLE 4 OF THE EUROPEAN UNION DIRECTIVE 2019/790 ON COPYRIGHT AND RELATED",
    "# RIGHTS IN THE DIGITAL SINGLE MARKET.",
    "",
]
CF_USE_LINE = "# use:      how AI systems may consume the content (immediate, reference, or full)."


def site_rules(c):
    """A site's own robots.txt, placed after a managed block."""
    rng = c.rng
    kind = rng.choice(("wordpress", "allow_all", "shopify", "plain", "plain"))
    if kind == "wordpress":
        return body_wordpress(c, "core").lines
    if kind == "allow_all":
        return body_allow_all(c, rng.choice(("empty_disallow", "with_sitemap"))).lines
    if kind == "shopify":
        return body_shopify(c, "plain").lines
    return star_group(c, 15) + ["", "Sitemap: " + c.url("/sitemap.xml")]


def body_cloudflare_managed(c, variant):
    rng = c.rng
    signal = {"cf2025": "search=yes,ai-train=no", "cf2025_spaces": "search=yes, ai-train=no",
              "cf2026": "search=yes,ai-train=no,use=reference",
              "ai_input": "search=yes,ai-input=no,ai-train=no"}.get(variant, "search=yes,ai-train=no")
    if variant in ("cf2025", "cf2025_spaces", "cf2026", "ai_input", "policy_only"):
        pre = list(CF_PREAMBLE)
        if variant == "cf2026":
            pre.insert(14, CF_USE_LINE)
        block = ["# BEGIN Cloudflare Managed content", "", "User-Agent: *",
                 "Content-signal: " + signal, "Allow: /", ""]
        if variant != "policy_only":
            blocked = CLOUDFLARE_BLOCKED + (["CloudflareBrowserRenderingCrawler"] if variant == "cf2026" else [])
            for b in blocked:
                block += ["User-agent: " + b, "Disallow: /", ""]
        block += ["# END Cloudflare Managed Content"]
        lines = pre + block
        if variant != "policy_only":
            lines += [""] + site_rules(c)    # the site's own file comes after the block
        return text(lines)
    # Content-Signal written by hand, outside any managed block
    value = rng.choice(("search=yes, ai-train=no", "ai-train=no", "search=yes,ai-input=yes,ai-train=no",
                        "search=yes, ai-input=no, ai-train=no, use=immediate"))
    own = site_rules(c)
    star = star_group(c, 12)
    if variant == "yn_values":
        # y/n, the AIPREF tokens, where Cloudflare's signal spells yes/no
        return text([star[0], "Content-Signal: search=y, ai-train=n"] + star[1:])
    if variant == "uppercase_key":
        # upper-case keys, which an RFC 9651 Dictionary does not allow
        return text([star[0], "Content-Signal: Search=yes, AI-Train=no"] + star[1:])
    if variant == "named_group":
        # a signal for one crawler's group and another for everyone else's
        return text(["User-agent: GPTBot", "Content-Signal: ai-train=no", "Allow: /", "",
                     star[0], "Content-Signal: search=yes, ai-train=yes"] + star[1:])
    if variant == "in_star_group":
        return text([star[0], "Content-Signal: " + value] + star[1:] + ["", "Sitemap: " + c.url("/sitemap.xml")])
    if variant == "file_level":
        return text(["# AI preferences for the whole site", "Content-Signal: " + value, ""] + own)
    if variant == "after_other_group":
        return text(own + ["", "User-agent: Baiduspider", "Disallow: /", "Content-Signal: " + value])
    # plural_typo: a key nobody defines ("Content-Signals", seen in crawler-commons PR #595)
    return text([star[0], "Content-Signals: " + value] + star[1:])


# AIPREF Content-Usage values (IETF drafts draft-ietf-aipref-attach and
# draft-ietf-aipref-vocab): the current vocabulary (train-ai, search), the
# labels of older drafts (vocab-01: tdm ai genai search inference; vocab-02:
# all train-ai train-genai ai-use search; vocab-03: bots train-ai train-genai
# search; vocab-04: bots train-ai ai-output search), and values that do not
# parse as a Structured-Fields Dictionary (RFC 9651; upper-case keys among
# them) or carry no y/n token. The rule is "Content-Usage: [path SP] dictionary",
# in a group.
CONTENT_USAGE_VALUES = {
    "new": ["train-ai=n", "train-ai=y", "search=y, train-ai=n", "train-ai=n, search=y", "search=n"],
    "old": ["ai=n", "tdm=n", "genai=n", "bots=n", "train-genai=n", "ai-use=n", "all=n",
            "inference=n", "ai-output=n", "tdm=y, ai=n"],
    "unparseable": ["/restricted/ ai=n train-ai=n", "Train-AI=N", "train-ai=no", "train-ai",
                    "train-ai=\"n\"", "n", "=n", "train-ai=n;;", "train ai = n"],
}


def content_usage_line(rng, vocab, path=None):
    value = rng.choice(CONTENT_USAGE_VALUES[vocab])
    key = rng.choice(("Content-Usage", "Content-Usage", "content-usage"))
    return "%s: %s%s" % (key, path + " " if path else "", value)


# The example of draft-ietf-aipref-attach (section 3.4), verbatim; stored
# without the text quirks below (LF, no BOM, keys as written).
AIPREF_ATTACH_EXAMPLE = [
    "User-Agent: *", "Allow: /", "Disallow: /never/", "Content-Usage: train-ai=n",
    "Content-Usage: /ai-ok/ train-ai=y", "",
    "User-Agent: ExampleBot", "Allow: /", "Content-Usage: train-ai=y",
]
# Path-scoped Content-Usage rules in one group: a wildcard path, one path
# with conflicting values, a duplicate key (Structured Fields: the last one
# wins), a parameter, a path its group disallows, and a first word that looks
# like a path but does not start with "/".
AIPREF_PATH_RULES = [
    "User-agent: *", "Disallow: /private/", "Content-Usage: train-ai=y, train-ai=n",
    "Content-Usage: /*.pdf$ train-ai=n", "Content-Usage: /a/ train-ai=y", "Content-Usage: /a/ train-ai=n",
    "Content-Usage: /blog/ train-ai=n;src=site", "Content-Usage: /private/ train-ai=y",
    "Content-Usage: *.pdf train-ai=n", "Allow: /",
]
# Search crawlers that share a run of user-agent lines with GPTBot.
CU_OTHER_AGENTS = ["Googlebot", "Bingbot", "Applebot", "DuckDuckBot"]


def body_content_usage(c, variant):
    rng = c.rng
    placement, vocab = variant.split("/")
    if placement == "attach_example":
        return text(list(AIPREF_ATTACH_EXAMPLE), quirks=False)
    if placement == "path_rules":
        return text(["# AI usage preferences (IETF AIPREF)"] + AIPREF_PATH_RULES)
    cu = content_usage_line(rng, vocab)
    if placement == "between_agents":
        # One group for Google's parser, whose unknown lines do not end a
        # group (google/robotstxt robots.cc, HandleUnknownAction); under
        # AIPREF's grouping the Content-Usage line ends the first run, so
        # GPTBot's group is that line alone and only the second agent gets
        # the Disallow.
        return text(["User-agent: GPTBot", cu,
                     "User-agent: " + rng.choice(CU_OTHER_AGENTS), "Disallow: /private/", ""] + star_group(c))
    if placement == "in_group":
        return text(["User-agent: *", "Allow: /", "Disallow: /never/", cu,
                     content_usage_line(rng, "new", "/ai-ok/")])
    if placement == "before_groups":
        return text(["# AI usage preferences (IETF AIPREF)", cu, ""] + star_group(c))
    if placement == "after_other_group":
        return text(star_group(c) + ["", "User-agent: Googlebot", "Allow: /", cu])
    if placement == "second_star_group":
        return text(star_group(c) + ["", "User-agent: GPTBot", "Disallow: /", "",
                                     "User-agent: *", cu])
    # with_content_signal: both vocabularies in one group
    return text(["User-agent: *", "Content-Signal: search=yes, ai-train=no", cu, "Allow: /"])


def body_big_site(c, variant):
    """Many groups, many rules: 1-60 KiB (variant "large": 60-200 KiB)."""
    rng = c.rng
    target = lognormal(rng, 5000, 1.0, 1000, 60_000) if variant == "typical" else rng.randint(60_000, 200_000)
    lines = ["# robots.txt for %s" % c.home, "# Questions? webmaster@%s" % c.site.domain, ""]
    agents = SEARCH_BOTS + SEO_BOTS + AI_CORE
    rng.shuffle(agents)
    size, first, k = 60, True, 0
    while size < target:
        if first:
            uas, first = ["*"], False
        else:
            m = rng.choice((1, 1, 1, 2, 3))
            uas = [agents[(k + j) % len(agents)] for j in range(m)]
            k += m
        group = ["User-agent: " + ua for ua in uas]
        if rng.random() < 0.15:
            group.append("Crawl-delay: %s" % rng.choice(("1", "2", "5", "10", "0.5")))
        group += rules(rng, lognormal(rng, 20, 0.9, 1, 400), rng.choice((0.05, 0.15, 0.3)))
        if rng.random() < 0.1:
            group.insert(rng.randint(1, len(group)), "# " + prose(rng, rng.randint(3, 10)))
        lines += group + [""]
        size += sum(len(x) + 1 for x in group) + 1
    for _ in range(rng.randint(1, 5)):
        lines.append("Sitemap: " + c.url(rng.choice(("/sitemap.xml", "/sitemap_index.xml", "/sitemaps/news.xml",
                                                     "/sitemaps/products-%d.xml" % rng.randint(1, 40)))))
    return text(lines)


def body_yandex(c, variant):
    rng = c.rng
    lines = ["# Файл robots.txt для сайта %s" % c.site.host.lower(), "User-agent: *"]
    common = ["Disallow: /bitrix/", "Disallow: /search/", "Disallow: /auth/", "Disallow: /personal/",
              "Disallow: /*?print=", "Disallow: /*&print=", "Disallow: /*register=yes",
              "Disallow: /*forgot_password=yes", "Disallow: /*login=yes", "Disallow: /*bitrix_*=",
              "Allow: /bitrix/components/", "Allow: /bitrix/cache/", "Allow: /bitrix/js/",
              "Allow: /bitrix/templates/"]
    lines += common + ["", "User-agent: Yandex"] + common[:6]
    for _ in range(rng.randint(1, 3)):
        lines.append("Clean-param: " + rng.choice(("utm_source&utm_medium&utm_campaign", "sid /forum/*.php",
                                                   "PAGEN_1", "sort&order /catalog/", "yclid&gclid", "ref /")))
    if variant != "host_only":
        lines.append("Crawl-delay: %s" % rng.choice(("1", "2", "0.5", "5")))
    lines.append("Host: " + rng.choice((c.home, c.site.host.lower(), "https://www." + c.site.domain)))
    lines += ["", "# Карта сайта", "Sitemap: " + c.url("/sitemap.xml")]
    return text(lines)


def body_crawl_delay(c, variant):
    rng = c.rng
    value = {"integer": rng.choice(("1", "5", "10", "30", "120")), "decimal": rng.choice(("0.5", "1.5", "2.5")),
             "invalid": rng.choice(("ten", "5s", "-1", "", "5 # seconds"))}.get(variant, "10")
    lines = ["User-agent: *", "Crawl-delay: " + value]
    lines += rules(rng, rng.randint(0, 8))
    if variant == "others":
        lines += ["Request-rate: %s" % rng.choice(("1/10", "1/5s", "30/1m", "1/10s 0600-0845")),
                  "Visit-time: %s" % rng.choice(("0600-0845", "2200-0600")), "Noindex: /search/"]
    for bot in rng.sample(["bingbot", "Slurp", "AhrefsBot", "SemrushBot", "MJ12bot", "Baiduspider"],
                          rng.randint(0, 3)):
        lines += ["", "User-agent: " + bot, "Crawl-delay: %d" % rng.choice((5, 10, 30, 60, 3600))]
    return text(lines)


def body_sitemaps(c, variant):
    rng = c.rng
    d = c.site.domain
    urls = {
        "same_host": [c.url("/sitemap.xml"), c.url("/sitemap_index.xml")],
        "other_host": ["https://cdn.%s-static.com/sitemaps/%s.xml" % (d.split(".")[0], path_word(rng)),
                       "https://sitemaps.example-hosting.net/%s/sitemap.xml.gz" % d],
        "same_domain": ["https://sitemaps.%s/sitemap.xml" % d, "https://www.%s/news-sitemap.xml" % d,
                        "https://%s/sitemap.xml" % d],
        "relative": ["/sitemap.xml", "sitemap.xml", "/sitemaps/sitemap-index.xml"],
        "invalid": ["", "www.%s/sitemap.xml" % d, "https://%s/site map.xml" % d, "htp://%s/sitemap.xml" % d,
                    "https:///sitemap.xml"],
        "many": [c.url("/sitemaps/sitemap-%d.xml" % i) for i in range(rng.randint(20, 60))],
    }[variant]
    keys = ("Sitemap", "Sitemap", "sitemap", "SITEMAP")
    lines = ["%s: %s" % (rng.choice(keys), u) for u in urls]
    if rng.random() < 0.5:
        lines = ["User-agent: *", "Allow: /", ""] + lines
    return text(lines)


def body_typos(c, variant):
    rng = c.rng
    lines = []
    if variant in ("accepted", "mixed"):
        lines += ["%s: *" % rng.choice(ACCEPTED_TYPOS["user-agent"])]
        lines += ["%s: %s" % (t, rule_path(rng)) for t in rng.sample(ACCEPTED_TYPOS["disallow"], 3)]
        lines += ["%s: %s" % (rng.choice(ACCEPTED_TYPOS["sitemap"]), c.url("/sitemap.xml"))]
    if variant in ("unaccepted", "mixed"):
        if not lines:
            lines.append("User-agent: *")
        for directive, spellings in UNACCEPTED_TYPOS.items():
            value = {"user-agent": "Googlebot", "sitemap": c.url("/sitemap2.xml"),
                     "crawl-delay": "10"}.get(directive) or rule_path(rng)
            lines.append("%s: %s" % (rng.choice(spellings), value))
    lines += ["Disallow: /private/"]
    return text(lines)


def body_sloppy(c, variant):
    rng = c.rng
    if variant == "missing_colon":
        return text(["User-agent *", "Disallow /admin/", "Disallow %s" % rule_path(rng),
                     "Allow /public/", "Disallow /a /b", "Sitemap " + c.url("/sitemap.xml")])
    if variant == "rules_before_agent":
        return text(["Disallow: /tmp/", "Allow: /tmp/public/", "", "User-agent: *", "Disallow: /cgi-bin/"])
    if variant == "empty_values":
        return text(["User-agent:", "Disallow: /x/", "", "User-agent: *", "Disallow:", "Allow:",
                     "Crawl-delay:", "Sitemap:"])
    if variant == "whitespace":
        return text(["  User-agent: *", "\tDisallow: /admin/", "User-Agent : Googlebot",
                     "Disallow :/nospace/", "Allow:\t/tabbed/", "Disallow: /trailing/   "])
    if variant == "one_line":
        return text(["User-agent: * Disallow: /", "User-agent: Googlebot Allow: /"])
    # html_in_text: a robots.txt with HTML leftovers
    return text(['<meta name="robots" content="noindex">', "User-agent: *", "Disallow: /admin/",
                 "<br>", "Disallow: /private/</p>"])


ASCII_ART = ["#  ____       _           _       ", "# |  _ \\ ___ | |__   ___ | |_ ___ ",
             "# | |_) / _ \\| '_ \\ / _ \\| __/ __|", "# |  _ < (_) | |_) | (_) | |_\\__ \\",
             "# |_| \\_\\___/|_.__/ \\___/ \\__|___/", "#"]


def body_comments(c, variant):
    rng = c.rng
    lines = list(ASCII_ART) if variant == "ascii_art" else []
    lines += ["# Hello, robot!", "# We're hiring: %s" % c.url("/careers"), "#"]
    lines += ["# " + prose(rng, rng.randint(3, 14)) for _ in range(rng.randint(3, 25))]
    lines += ["", "User-agent: *  # everyone", "Disallow: /tmp/   # temporary files", "# Disallow: /old/",
              "Disallow: /private/#no space", "", "", "Allow: /  "]
    return text(lines)


def body_non_ascii(c, variant):
    rng = c.rng
    if variant == "utf8_paths":
        pool = ["/поиск/", "/корзина/", "/café/", "/über-uns/intern/", "/検索/", "/ログイン", "/购物车/",
                "/niño/", "/ürün/*?sırala=", "/προϊόντα/", "/sản-phẩm/", "/منتجات/"]
        lines = [rng.choice(("# Robots für %s", "# Règles pour %s", "# 机器人协议 %s")) % c.site.host.lower(),
                 "User-agent: *"] + ["Disallow: " + p for p in rng.sample(pool, rng.randint(3, 7))]
    elif variant == "percent_encoded":
        lines = ["User-agent: *", "Disallow: /%D0%BF%D0%BE%D0%B8%D1%81%D0%BA/", "Disallow: /caf%C3%A9/",
                 "Disallow: /%E6%A4%9C%E7%B4%A2/", "Allow: /%7Euser/", "Disallow: /a%2Fb/"]
    else:  # idn_sitemap
        label = rng.choice(IDN_NAMES)
        lines = ["User-agent: *", "Disallow: /intern/", "Sitemap: https://%s.%s/sitemap.xml" % label]
    return text(lines)


def body_invalid_utf8(c, variant):
    if variant == "latin1":
        return text(["# Règles d'accès pour les robots", "User-agent: *", "Disallow: /café/",
                     "Disallow: /über/", "Disallow: /señor/"], encoding="latin-1")
    if variant == "cp1251":
        return text(["# Запрет индексации служебных разделов", "User-agent: *", "Disallow: /поиск/",
                     "Disallow: /admin/"], encoding="cp1251")
    # stray_bytes: valid text with a few bytes that are no UTF-8
    body = ("User-agent: *\nDisallow: /tmp/\n# \x80\x81 broken \xff\xfe bytes\nDisallow: /caf\xe9/\n"
            "Disallow: /ok/\n").encode("latin-1")
    return Payload(data=body)


def body_utf16(c, variant):
    lines = ["User-agent: *", "Disallow: /admin/", "Disallow: /privé/", "", "Sitemap: " + c.url("/sitemap.xml")]
    if variant == "le":
        return text(lines, encoding="utf-16-le", bom=b"\xff\xfe")
    return text(lines, encoding="utf-16-be", bom=b"\xfe\xff")


def body_long_line(c, variant):
    rng = c.rng
    n = rng.randint(GOOGLE_LINE_MAX + 100, GOOGLE_LINE_MAX + 20_000)
    if variant == "long_rule":
        long = "Disallow: /" + "-".join(path_word(rng) for _ in range(n // 6))[:n]
    else:  # long_comment
        long = "# " + ("=" * n)
    return text(["User-agent: *", "Disallow: /a/", long, "Disallow: /after-the-long-line/",
                 "Sitemap: " + c.url("/sitemap.xml")])


def body_html_page(c, variant):
    page = c.pages.page(c.rng, c.site.host.lower(), c.rng.choice(("Home", "Welcome", "Page not found")))
    ctype = "text/html; charset=UTF-8" if variant == "text_html" else "text/plain; charset=UTF-8"
    return Payload(data=page, ctype=ctype, identified="text/html")


def body_empty(c, variant):
    if variant == "zero_bytes":
        return Payload(data=b"", identified=None)
    return Payload(data=c.rng.choice((b"\n", b"\r\n", b"   \n\n", b"\t")))


def body_junk(c, variant):
    rng = c.rng
    if variant == "json":
        return Payload(data=b'{"status":"ok","robots":null,"message":"not configured"}\n',
                       ctype="application/json", identified="application/json")
    if variant == "xml_sitemap":
        locs = "".join("<url><loc>%s</loc></url>" % c.url("/" + path_word(rng)) for _ in range(rng.randint(3, 30)))
        return Payload(data=('<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns='
                             '"http://www.sitemaps.org/schemas/sitemap/0.9">%s</urlset>\n' % locs).encode(),
                       ctype="application/xml", identified="application/xml")
    if variant == "php_warning":
        return Payload(data=("<br />\n<b>Warning</b>:  session_start(): Cannot send session cookie - headers "
                             "already sent in <b>/var/www/html/index.php</b> on line <b>%d</b><br />\n"
                             "User-agent: *\nDisallow: /admin/\n" % rng.randint(2, 300)).encode(),
                       identified="text/html")
    if variant == "ok":
        return Payload(data=b"OK")
    # still_gzipped: the server compressed twice; the stored payload is gzip bytes
    inner = zlib.compressobj(6, zlib.DEFLATED, 31)
    data = inner.compress(b"User-agent: *\nDisallow: /wp-admin/\n") + inner.flush()
    return Payload(data=data, ctype="text/plain", identified="application/gzip")


def huge_lines(rng, target, c):
    """Auto-generated per-item rules until the text passes `target` bytes."""
    lines = ["# Automatically generated - do not edit", "User-agent: *"]
    size = 60
    words = [path_word(rng) for _ in range(64)]
    n = rng.randint(1000, 90_000)
    while size < target:
        n += rng.randint(1, 97)
        line = "Disallow: /%s/%d-%s/" % (words[n % 64], n, words[(n // 64) % 64])
        lines.append(line)
        size += len(line) + 1
    lines.append("Sitemap: " + c.url("/sitemap.xml"))
    return lines


def body_huge(c, variant):
    rng = c.rng
    if variant == "sitemap_spam":
        lines = ["User-agent: *", "Disallow:"]
        size = 30
        while size < HUGE_TARGET:
            line = "Sitemap: %s/sitemap-%s-%d.xml" % (c.home, path_word(rng), rng.randint(1, 10 ** 7))
            lines.append(line)
            size += len(line) + 1
        return text(lines, quirks=False)
    return text(huge_lines(rng, rng.randint(HUGE_TARGET - 40_000, HUGE_TARGET + 40_000), c), quirks=False)


BODY_BUILDERS = {
    "wordpress": (body_wordpress, {"core": 45, "yoast": 20, "woocommerce": 20, "hardened": 15}),
    "drupal": (body_drupal, {"default": 70, "with_index_php": 30}),
    "joomla": (body_joomla, {"default": 80, "with_sitemap": 20}),
    "shopify": (body_shopify, {"plain": 80, "with_ai": 20}),
    "magento": (body_magento, {"default": 60, "with_delay": 40}),
    "allow_all": (body_allow_all, {"empty_disallow": 40, "allow_root": 15, "with_sitemap": 25,
                                   "allow_star": 5, "comment_only": 5, "disallow_space": 10}),
    "disallow_all": (body_disallow_all, {"root": 60, "star": 10, "staging": 15, "except_google": 10,
                                         "noindex": 5}),
    "ai_blocklist": (body_ai_blocklist, {"one_group": 35, "group_each": 35, "partial": 12,
                                         "search_allowed": 12, "full_list": 6}),
    "cloudflare_managed": (body_cloudflare_managed, {
        "cf2025": 35, "cf2025_spaces": 10, "cf2026": 25, "ai_input": 5, "policy_only": 10,
        "in_star_group": 6, "file_level": 4, "after_other_group": 3, "plural_typo": 2}),
    "content_usage": (body_content_usage, {
        "%s/%s" % (p, v): w * vw
        for p, w in (("in_group", 35), ("before_groups", 20), ("after_other_group", 15),
                     ("second_star_group", 15), ("with_content_signal", 15))
        for v, vw in (("new", 6), ("old", 3), ("unparseable", 1))}),
    "big_site": (body_big_site, {"typical": 95, "large": 5}),
    "yandex": (body_yandex, {"full": 75, "host_only": 25}),
    "crawl_delay": (body_crawl_delay, {"integer": 55, "decimal": 15, "invalid": 10, "others": 20}),
    "sitemaps": (body_sitemaps, {"same_host": 45, "other_host": 12, "same_domain": 15, "relative": 12,
                                 "invalid": 8, "many": 8}),
    "typos": (body_typos, {"accepted": 45, "unaccepted": 30, "mixed": 25}),
    "sloppy": (body_sloppy, {"missing_colon": 25, "rules_before_agent": 20, "empty_values": 20,
                             "whitespace": 20, "one_line": 8, "html_in_text": 7}),
    "comments": (body_comments, {"plain": 60, "ascii_art": 40}),
    "non_ascii": (body_non_ascii, {"utf8_paths": 60, "percent_encoded": 30, "idn_sitemap": 10}),
    "invalid_utf8": (body_invalid_utf8, {"latin1": 50, "cp1251": 30, "stray_bytes": 20}),
    "utf16": (body_utf16, {"le": 70, "be": 30}),
    "long_line": (body_long_line, {"long_rule": 60, "long_comment": 40}),
    "html_page": (body_html_page, {"text_html": 75, "text_plain": 25}),
    "empty": (body_empty, {"zero_bytes": 80, "whitespace": 20}),
    "junk": (body_junk, {"json": 25, "xml_sitemap": 20, "php_warning": 25, "ok": 15, "still_gzipped": 15}),
    "huge": (body_huge, {"rules": 70, "sitemap_spam": 30}),
}
assert set(BODY_BUILDERS) == set(BODY_SHARES)

# AI-use preference variants the builders above can make but the mixture
# does not draw (the test sample and the benchmark corpus stay as they
# were); only --preferences writes them.
PREFERENCE_ONLY_VARIANTS = {
    "cloudflare_managed": ["yn_values", "uppercase_key", "named_group"],
    "content_usage": ["between_agents/new", "between_agents/old", "between_agents/unparseable",
                      "attach_example/new", "path_rules/new"],
}
# Bodies without preference lines that --preferences adds for contrast.
PREFERENCE_PLAIN_BODIES = [("allow_all", "allow_root"), ("disallow_all", "root"),
                           ("disallow_all", "except_google"), ("ai_blocklist", "search_allowed")]


# ---------------------------------------------------------------------------
# Text quirks: line ends, BOM, key case
# ---------------------------------------------------------------------------

KEY_RE = re.compile(r"^(\s*)(user-agent|disallow|allow|sitemap)", re.I | re.M)


def render_text(rng, payload, force, facts):
    """The bytes of a text payload, with its line-end, case and BOM quirks."""
    lines = payload.lines
    quirky = payload.quirks
    case = force.get("key_case") or (pick(rng, KEY_CASE_SHARES) if quirky else "as_written")
    body = "\n".join(lines)
    if case == "lower":
        body = KEY_RE.sub(lambda m: m.group(1) + m.group(2).lower(), body)
    elif case == "upper":
        body = KEY_RE.sub(lambda m: m.group(1) + m.group(2).upper(), body)
    if force.get("tab_after_colon") or (quirky and rng.random() < TAB_AFTER_COLON):
        body = body.replace(": ", ":\t")
        facts["quirk"]["tab_after_colon"] += 1
    if force.get("leading_blank") or (quirky and rng.random() < LEADING_BLANK_LINES):
        body = "\n\n" + body
        facts["quirk"]["leading_blank_lines"] += 1
    final_newline = not (force.get("no_final_newline") or (quirky and rng.random() < NO_FINAL_NEWLINE))
    if final_newline:
        body += "\n"
    else:
        facts["quirk"]["no_final_newline"] += 1
    line_end = force.get("line_end") or (pick(rng, LINE_END_SHARES) if quirky else "lf")
    if line_end == "crlf":
        body = body.replace("\n", "\r\n")
    elif line_end == "cr":
        body = body.replace("\n", "\r")
    facts["line_end"][line_end] += 1
    if case != "as_written":
        facts["quirk"]["keys_" + case] += 1
    bom = payload.bom
    if not bom and payload.encoding == "utf-8" and (force.get("bom") or (quirky and rng.random() < UTF8_BOM)):
        bom = b"\xef\xbb\xbf"
    return bom + body.encode(payload.encoding)


# ---------------------------------------------------------------------------
# HTML pages: a pool of themes per file, host and title filled in per use
# ---------------------------------------------------------------------------

class PagePool:
    """Pre-rendered HTML page templates (median ~14 KB, up to ~190 KB); a
    use fills in the host and the title, so every stored page differs."""

    HOST = "\x00H"
    TITLE = "\x00T"

    def __init__(self, rng, count):
        normal = NormalDist()
        sizes = [max(3_000, int(PAGE_MEDIAN * math.exp(PAGE_SIGMA * normal.inv_cdf((i + 0.5) / count))
                                * rng.uniform(0.9, 1.1)))
                 for i in range(count)]
        self.templates = [self.render(rng, size) for size in sizes]

    def page(self, rng, host, title):
        t = rng.choice(self.templates)
        return t.replace(self.HOST, host).replace(self.TITLE, title).encode("utf-8")

    def big(self, rng, host, size):
        """Pages one after another until `size` bytes (for a body cut at 1 MiB)."""
        parts, n = [], 0
        while n < size:
            p = self.page(rng, host, "Archive")
            parts.append(p)
            n += len(p)
        return b"".join(parts)

    @classmethod
    def render(cls, rng, size):
        H = cls.HOST
        brand = "%s %s" % (path_word(rng).capitalize(),
                           rng.choice(("Store", "News", "Blog", "Group", "Online", "GmbH")))
        colors = ["#%06x" % rng.getrandbits(24) for _ in range(rng.randint(3, 7))]
        out = ["<!DOCTYPE html>", '<html lang="%s">' % rng.choice(("en", "en-US", "de-DE", "fr-FR", "es", "ru", "ja")),
               "<head>", '<meta charset="utf-8">',
               '<meta name="viewport" content="width=device-width, initial-scale=1">',
               "<title>%s | %s</title>" % (cls.TITLE, brand),
               '<meta name="description" content="%s">' % prose(rng, rng.randint(8, 25)),
               '<link rel="canonical" href="https://%s/">' % H]
        for _ in range(rng.randint(2, 10)):
            out.append('<link rel="stylesheet" href="https://%s/%s/%s.css?ver=%d.%d.%d" media="all">' % (
                H, rng.choice(("assets/css", "wp-content/themes/%s" % path_word(rng), "static")), path_word(rng),
                rng.randint(1, 9), rng.randint(0, 30), rng.randint(0, 99)))
        css = []
        for _ in range(rng.randint(10, 120)):
            props = ";".join(rng.choice((
                "color:%s" % rng.choice(colors), "background:%s" % rng.choice(colors),
                "margin:%dpx %dpx" % (rng.randint(0, 40), rng.randint(0, 40)), "padding:%dpx" % rng.randint(0, 32),
                "display:%s" % rng.choice(("block", "flex", "grid", "none", "inline-block")),
                "font-size:%.2frem" % rng.uniform(0.7, 2.8), "line-height:%.1f" % rng.uniform(1.0, 2.0),
                "border:1px solid %s" % rng.choice(colors), "width:%d%%" % rng.randint(5, 100)))
                for _ in range(rng.randint(2, 6)))
            css.append(".%s-%s{%s}" % (path_word(rng), path_word(rng), props))
        out.append("<style>" + "".join(css) + "</style>")
        out.append('<script async src="https://www.googletagmanager.com/gtag/js?id=G-%010X"></script>'
                   % rng.getrandbits(40))
        out += ["</head>", '<body class="%s">' % " ".join(path_word(rng) for _ in range(rng.randint(2, 7))),
                '<header class="site-header"><a class="logo" href="https://%s/">%s</a>' % (H, brand),
                '<nav><ul class="menu">']
        for _ in range(rng.randint(4, 40)):
            w = path_word(rng)
            out.append('<li class="menu-item menu-item-%d"><a href="https://%s/%s/">%s</a></li>' % (
                rng.randint(10, 9999), H, w, w.capitalize()))
        out += ["</ul></nav></header>", '<main id="content"><h1>%s</h1>' % cls.TITLE]
        footer = ['</main><footer class="site-footer">',
                  "<p>&copy; %d %s</p>" % (rng.randint(2012, 2025), brand),
                  '<script src="https://%s/assets/js/app.min.js?v=%x"></script>' % (H, rng.getrandbits(32)),
                  "</footer></body></html>"]
        n = sum(len(x) + 1 for x in out) + sum(len(x) + 1 for x in footer)
        while n < size:
            r = rng.random()
            if r < 0.5:
                s = "<p>%s.</p>" % prose(rng, rng.randint(12, 90)).capitalize()
            elif r < 0.72:
                s = ('<div class="card"><a href="https://%s/product/%s-%d/"><img loading="lazy" '
                     'src="https://%s/media/%08x.jpg" alt="%s"></a><span class="price">%d.%02d</span></div>') % (
                    H, path_word(rng), rng.randint(1, 99999), H, rng.getrandbits(32), prose(rng, 3),
                    rng.randint(1, 999), rng.randint(0, 99))
            elif r < 0.9:
                s = '<ul class="related">%s</ul>' % "".join(
                    '<li><a href="https://%s/%s/%s">%s</a></li>' % (H, path_word(rng), path_word(rng), prose(rng, 3))
                    for _ in range(rng.randint(3, 10)))
            else:
                s = "<script>window.__cfg=%s;</script>" % json.dumps(
                    {path_word(rng): rng.choice((path_word(rng), rng.randint(0, 9999), True))
                     for _ in range(rng.randint(4, 30))}, separators=(",", ":"))
            out.append(s)
            n += len(s) + 1
        return "\n".join(out + footer)


# ---------------------------------------------------------------------------
# Error pages
# ---------------------------------------------------------------------------

def nginx_page(status, version=""):
    r = REASONS.get(status, "")
    return ("<html>\r\n<head><title>%d %s</title></head>\r\n<body>\r\n<center><h1>%d %s</h1></center>\r\n"
            "<hr><center>nginx%s</center>\r\n</body>\r\n</html>\r\n" % (status, r, status, r, version)).encode()


def apache_page(status, host, port):
    r = REASONS.get(status, "")
    msg = {404: "The requested URL was not found on this server.",
           403: "You don't have permission to access this resource.",
           301: "The document has moved.", 302: "The document has moved."}.get(status, r)
    return ('<!DOCTYPE HTML PUBLIC "-//IETF//DTD HTML 2.0//EN">\n<html><head>\n<title>%d %s</title>\n'
            "</head><body>\n<h1>%s</h1>\n<p>%s</p>\n<hr>\n<address>Apache/2.4.58 (Ubuntu) Server at %s Port %d"
            "</address>\n</body></html>\n" % (status, r, r, msg, host, port)).encode()


def iis_page(status):
    r = REASONS.get(status, "")
    return ('<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" '
            '"http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">\r\n<html xmlns="http://www.w3.org/1999/xhtml">\r\n'
            '<head>\r\n<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1"/>\r\n'
            "<title>%d - %s</title>\r\n</head>\r\n<body>\r\n<div id=\"header\"><h1>Server Error</h1></div>\r\n"
            '<div id="content"><h2>%d - %s</h2><h3>The resource you are looking for might have been removed, '
            "had its name changed, or is temporarily unavailable.</h3></div>\r\n</body>\r\n</html>\r\n"
            % (status, r, status, r)).encode()


def s3_page(rng):
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>NoSuchKey</Code><Message>The specified key '
            "does not exist.</Message><Key>robots.txt</Key><RequestId>%016X</RequestId><HostId>%s</HostId></Error>"
            % (rng.getrandbits(64), base64.b64encode(rng.getrandbits(480).to_bytes(60, "big")).decode())).encode()


def cloudflare_challenge(rng, host):
    ray = "%016x" % rng.getrandbits(64)
    token = base64.urlsafe_b64encode(rng.getrandbits(8 * 1500).to_bytes(1500, "big")).decode()
    return ('<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title>'
            '<meta http-equiv="Content-Type" content="text/html; charset=UTF-8">'
            '<meta name="robots" content="noindex,nofollow"><meta name="viewport" content="width=device-width,'
            'initial-scale=1"></head><body><div class="main-wrapper" role="main"><div class="main-content">'
            "<noscript>Enable JavaScript and cookies to continue</noscript></div></div><script>(function(){"
            "window._cf_chl_opt={cvId:'3',cZone:'%s',cType:'managed',cRay:'%s',cH:'%s'};}());</script>"
            "</body></html>" % (host, ray, token)).encode()


def cloudflare_5xx(rng, status, host):
    what = {520: "Web server is returning an unknown error", 521: "Web server is down",
            522: "Connection timed out"}.get(status, "Error")
    return ('<!DOCTYPE html>\n<html class="no-js" lang="en-US">\n<head>\n<title>%s | %d: %s</title>\n'
            '<meta charset="UTF-8" />\n</head>\n<body>\n<div id="cf-wrapper"><h1><span>%s</span> '
            '<span class="code-label">Error code %d</span></h1>\n<p>Cloudflare Ray ID: <strong>%016x</strong></p>\n'
            "</div>\n</body>\n</html>\n" % (host, status, what, what, status, rng.getrandbits(64))).encode()


# ---------------------------------------------------------------------------
# HTTP heads: the server's headers, then Common Crawl's rewriting
# ---------------------------------------------------------------------------

def server_headers(rng, server):
    if server == "nginx":
        return [("Server", rng.choice(("nginx", "nginx", "nginx/1.24.0", "nginx/1.18.0 (Ubuntu)")))]
    if server == "apache":
        return [("Server", rng.choice(("Apache", "Apache/2.4.58 (Ubuntu)", "Apache/2.4.62 (Debian)")))]
    if server == "cloudflare":
        return [("Server", "cloudflare")]
    if server == "litespeed":
        return [("Server", "LiteSpeed"), ("X-Turbo-Charged-By", "LiteSpeed")]
    if server == "iis":
        return [("Server", "Microsoft-IIS/10.0"), ("X-Powered-By", "ASP.NET")]
    if server == "s3":
        return [("x-amz-id-2", base64.b64encode(rng.getrandbits(384).to_bytes(48, "big")).decode()),
                ("x-amz-request-id", "%016X" % rng.getrandbits(64)), ("Server", "AmazonS3")]
    if server == "gws":
        return [("Server", rng.choice(("Google Frontend", "ESF", "gws")))]
    if server == "varnish":
        return [("Via", "1.1 varnish"), ("X-Cache", rng.choice(("HIT", "MISS", "HIT, MISS"))),
                ("X-Served-By", "cache-%s%d-%s" % (rng.choice(("fra-eddf", "iad-kiad", "lhr-egll")),
                                                   rng.randint(10 ** 6, 10 ** 7 - 1),
                                                   rng.choice(("FRA", "IAD", "LHR"))))]
    if server == "openresty":
        return [("Server", "openresty")]
    return []


@dataclass
class Reply:
    """What the server sent: status, its headers, the decoded body."""
    status: int
    body: bytes
    ctype: str | None
    identified: str | None
    server: str
    extra: list = field(default_factory=list)     # Location, Retry-After, ...
    announced: int | None = None                   # Content-Length the server announced, if not len(body)
    truncated: str | None = None


def http_head(rng, reply, transport, dt, facts):
    """The HTTP head as Common Crawl stores it: status line rewritten to
    HTTP/1.1 for h2, problematic headers renamed X-Crawler-..., the stored
    length appended."""
    lower = transport["lower"]
    h = []
    if rng.random() < 0.5:
        h.append(("Date", http_date(dt)))
        h += server_headers(rng, reply.server)
    else:
        h += server_headers(rng, reply.server)
        h.append(("Date", http_date(dt)))
    if reply.ctype:
        h.append(("Content-Type", reply.ctype))
    stored = len(reply.body)
    wire_length = reply.announced if reply.announced is not None else stored
    renamed = []
    if transport["encoding"]:
        renamed.append(("Content-Encoding", transport["encoding"]))
        wire_length = max(20, int(wire_length / rng.uniform(2.5, 5.5)))
    if transport["chunked"]:
        renamed.append(("Transfer-Encoding", "chunked"))
    elif not (transport["protocol"] == "h2" and rng.random() < NO_CONTENT_LENGTH_H2 and not reply.announced):
        if wire_length == stored and not transport["encoding"]:
            h.append(("Content-Length", str(stored)))    # correct: Common Crawl keeps it
        else:
            renamed.append(("Content-Length", str(wire_length)))
    if transport["protocol"] != "h2":
        h.append(("Connection", rng.choice(("keep-alive", "keep-alive", "close", "Keep-Alive"))))
    if reply.status == 200 and rng.random() < 0.6:
        h.append(("Last-Modified", http_date(dt - timedelta(days=rng.randint(0, 3000), seconds=rng.randint(0, 86399)))))
        h.append(("ETag", rng.choice(('"%x-%x"' % (rng.getrandbits(28), stored), 'W/"%016x"' % rng.getrandbits(64)))))
        if rng.random() < 0.5:
            h.append(("Accept-Ranges", "bytes"))
    if rng.random() < 0.45:
        h.append(("Vary", rng.choice(("Accept-Encoding", "Accept-Encoding,User-Agent", "Origin"))))
    cache = transport["cache_control"]
    if cache:
        h.append(("Cache-Control", cache))
        facts["cache_control"][cache] += 1
    h += reply.extra
    if reply.server == "cloudflare":
        h += [("CF-Cache-Status", rng.choice(("HIT", "DYNAMIC", "MISS", "EXPIRED"))),
              ("CF-RAY", "%016x-%s" % (rng.getrandbits(64), rng.choice(("FRA", "IAD", "AMS", "CDG", "SJC", "NRT"))))]
    if transport["https"] and rng.random() < 0.3:
        h.append(("Strict-Transport-Security", "max-age=%d" % rng.choice((31536000, 63072000, 15552000))))
    if rng.random() < 0.2:
        h.append(("Set-Cookie", "sid=%032x; Path=/; HttpOnly; Secure" % rng.getrandbits(128)))
    # the renamed headers sit where the server sent them (near the end), the
    # added Content-Length last
    for name, value in renamed:
        h.append(("X-Crawler-" + (name.lower() if lower else name), value))
        facts["x_crawler"][name.lower()] += 1
    if not any(n == "Content-Length" for n, _ in h):
        h.append(("__added_length__", str(stored)))
    lines = []
    for name, value in h:
        if name == "__added_length__":
            lines.append("Content-Length: " + value)
        elif name.startswith("X-Crawler-"):
            lines.append("%s: %s" % (name, value))
        else:
            lines.append("%s: %s" % (name.lower() if lower else name, value))
    reason = REASONS.get(reply.status, "")
    if transport["no_reason"] or not reason:
        status_line = "%s %d" % (transport["status_proto"], reply.status)
    else:
        status_line = "%s %d %s" % (transport["status_proto"], reply.status, reason)
    return ("\r\n".join([status_line] + lines) + "\r\n\r\n").encode("utf-8")


# ---------------------------------------------------------------------------
# WARC output
# ---------------------------------------------------------------------------

class WarcWriter:
    """Writes records, each as its own gzip member (mtime 0), and counts
    the uncompressed bytes."""

    def __init__(self, path):
        self.out = open(path, "wb")
        self.raw_bytes = 0

    def write(self, headers, block):
        head = "WARC/1.0\r\n" + "".join("%s: %s\r\n" % kv for kv in headers) + "\r\n"
        record = head.encode("utf-8") + block + b"\r\n\r\n"
        self.raw_bytes += len(record)
        gz = zlib.compressobj(GZIP_LEVEL, zlib.DEFLATED, 31)   # wbits 31: gzip wrapper, mtime 0
        self.out.write(gz.compress(record))
        self.out.write(gz.flush())

    def close(self):
        self.out.close()


def file_name(index):
    start = FIRST_FILE_START + index * FILE_STEP
    end = start + FILE_SPAN
    return "CC-MAIN-%s-%s-%05d.warc.gz" % (start.strftime("%Y%m%d%H%M%S"), end.strftime("%Y%m%d%H%M%S"), index)


def warcinfo_block(name, index, preferences=False):
    description = ("SYNTHETIC robots.txt captures shaped like Common Crawl's robotstxt subset, "
                   "made by robostats scripts/gen_corpus.py; no real crawl data")
    if preferences:
        description += "; one fetch per AI-use preference case (gen_corpus.py --preferences)"
    fields = [
        ("isPartOf", CRAWL),
        ("publisher", "robostats test corpus (synthetic; imitates Common Crawl, not published by it)"),
        ("description", description),
        ("operator", "robostats developers"),
        ("hostname", "synthetic-%05d" % index),
        ("software", "robostats scripts/gen_corpus.py (imitating Apache Nutch 1.21 "
                     "(modified, https://github.com/commoncrawl/nutch/))"),
        ("robots", "checked via crawler-commons 1.5 (https://github.com/crawler-commons/crawler-commons)"),
        ("format", "WARC File Format 1.1"),
        ("conformsTo", "https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/"),
    ]
    return "".join("%s: %s\r\n" % kv for kv in fields).encode("utf-8")


# ---------------------------------------------------------------------------
# One fetch: what is requested, what the server does
# ---------------------------------------------------------------------------

@dataclass
class Fetch:
    site: Site
    path: str = "/robots.txt"
    status: int = 200
    origin: str = "fresh"                  # fresh | follow_up | refetch
    redirect_kind: str | None = None
    force: dict = field(default_factory=dict)


REDIRECT_STATUSES = {301: 52, 302: 30, 307: 6, 308: 12}
TEXT_QUIRK_KEYS = ("key_case", "line_end", "bom", "no_final_newline", "leading_blank", "tab_after_colon")
TEXT_BODY_KINDS = ["wordpress", "allow_all", "ai_blocklist", "big_site", "crawl_delay", "comments",
                   "typos", "shopify", "yandex", "sitemaps"]


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
        self.later = []          # heap of (slot, seq, Fetch): redirect targets to fetch later
        self.seq = 0
        self.recent = []         # robots.txt sites fetched, for re-fetches
        self.forced = []
        self.forced_at = []
        if small:
            self.forced = forced_specs(self.rng)
            slots = sorted(self.rng.sample(range(self.n - 80), len(self.forced)))
            self.forced_at = slots
        elif preferences:        # one case per fetch, in the order of preference_cases()
            self.forced = [{"status": 200, "body": kind, "variant": variant}
                           for kind, variant in preference_cases()]
            self.forced_at = list(range(len(self.forced)))
            assert self.n == len(self.forced)

    # -- planning ----------------------------------------------------------

    def next_fetch(self, slot):
        rng = self.rng
        if self.later and self.later[0][0] <= slot:
            return heapq.heappop(self.later)[2]
        force = {}
        if self.forced and slot >= self.forced_at[0]:
            self.forced_at.pop(0)
            force = self.forced.pop(0)
        if force.get("refetch") or (not force and self.recent and rng.random() < REFETCH):
            site = rng.choice(self.recent[-500:]) if self.recent else new_site(rng)
            status = force.get("status") or pick(rng, STATUS_SHARES)
            kind = None
            if 300 <= status < 400:
                kind = rng.choice(redirect_kinds_for(site))
            return Fetch(site, status=status, origin="refetch", redirect_kind=kind, force=force)
        status = force.get("status") or pick(rng, STATUS_SHARES)
        kind = None
        if force.get("redirect_kind") and not 300 <= status < 400:
            status = pick(rng, REDIRECT_STATUSES)
        if 300 <= status < 400:
            kind = force.get("redirect_kind") or pick(rng, REDIRECT_KIND_SHARES)
            site = site_for_redirect(rng, kind, force)
        else:
            site = new_site(rng, kind=force.get("host_kind"), scheme=force.get("scheme"),
                            port=force.get("port"))
        self.recent.append(site)
        return Fetch(site, status=status, redirect_kind=kind, force=force)

    def schedule(self, slot, fetch):
        delay = 1 + int(self.rng.expovariate(1.0 / FOLLOW_DELAY_MEAN))
        if slot + delay < self.n:
            self.seq += 1
            heapq.heappush(self.later, (slot + delay, self.seq, fetch))

    # -- the server's reply ------------------------------------------------

    def serve(self, slot, fetch):
        rng, site, force, facts = self.rng, fetch.site, fetch.force, self.facts
        server = force.get("server") or pick(rng, SERVER_SHARES)
        status = fetch.status
        host = site.host.lower()
        if 200 <= status < 300 and status != 204:
            return self.serve_ok(fetch, server)
        if status == 204:
            facts["error_page"]["no_content_204"] += 1
            return Reply(204, b"", None, None, server)
        if 300 <= status < 400:
            return self.serve_redirect(slot, fetch, server)
        extra = []
        if status == 401:
            extra.append(("WWW-Authenticate", rng.choice(('Basic realm="Restricted"', 'Bearer'))))
        if status in (429, 503) and rng.random() < 0.6:
            extra.append(("Retry-After", rng.choice(("120", "3600", "30"))))
        if status in (520, 521, 522):
            facts["error_page"]["cloudflare_5xx"] += 1
            return Reply(status, cloudflare_5xx(rng, status, host), "text/html; charset=UTF-8", "text/html",
                         "cloudflare", extra)
        if status == 403 and (force.get("page") == "cloudflare_challenge" or
                              (server == "cloudflare" and rng.random() < 0.5)):
            facts["error_page"]["cloudflare_challenge"] += 1
            return Reply(403, cloudflare_challenge(rng, host), "text/html; charset=UTF-8", "text/html",
                         "cloudflare", extra)
        page = force.get("page")
        if status == 404:
            page = page or pick(rng, NOT_FOUND_PAGE_SHARES)
        elif status == 503 and not page and rng.random() < 0.5:
            page = "themed"
        else:
            page = page or "server_default"
        facts["error_page"][page] += 1
        if page == "themed":
            title = "Page not found" if status == 404 else REASONS.get(status) or "Error"
            return Reply(status, self.pages.page(rng, host, title), "text/html; charset=UTF-8", "text/html",
                         server, extra)
        if page == "plain":
            return Reply(status, b"%d %s\n" % (status, REASONS.get(status, "").encode()), "text/plain",
                         "text/plain", server, extra)
        if page == "json":
            return Reply(status, b'{"error":{"code":%d,"message":"%s"}}' % (status, REASONS.get(status, "").encode()),
                         "application/json", "application/json", server, extra)
        if page == "s3_xml":
            return Reply(status, s3_page(rng), "application/xml", "application/xml", "s3", extra)
        if page == "empty":
            return Reply(status, b"", "text/html", None, server, extra)
        if server == "apache":
            body = apache_page(status, host, 443 if site.scheme == "https" else 80)
        elif server == "iis":
            body = iis_page(status)
        elif server == "s3" and status in (403, 404):
            body = s3_page(rng)
            return Reply(status, body, "application/xml", "application/xml", server, extra)
        else:
            body = nginx_page(status, "" if rng.random() < 0.7 else "/1.24.0")
        return Reply(status, body, "text/html", "text/html", server, extra)

    def serve_ok(self, fetch, server):
        rng, force, facts = self.rng, fetch.force, self.facts
        site = fetch.site
        ctx = Ctx(rng, site, self.pages)
        truncation = force.get("truncation")
        if truncation is None and not self.preferences:   # --preferences: no body is cut
            r = rng.random()
            if r < TRUNCATED_LENGTH:
                truncation = "length"
            elif r < TRUNCATED_LENGTH + TRUNCATED_TIME:
                truncation = "time"
            elif r < TRUNCATED_LENGTH + TRUNCATED_TIME + TRUNCATED_DISCONNECT:
                truncation = "disconnect"
        if fetch.path != "/robots.txt":
            kind, variant = "page_for_other_path", None
            payload = Payload(data=self.pages.page(rng, site.host.lower(), rng.choice(("Home", "Sign in", "Welcome"))),
                              ctype="text/html; charset=UTF-8", identified="text/html")
        elif truncation == "length":
            kind = force.get("body") or rng.choice(("html_page", "huge"))
            variant = None
        else:
            kind = force.get("body")
            if kind is None:
                text_quirk = any(k in force for k in TEXT_QUIRK_KEYS + ("encoding", "chunked"))
                kind = rng.choice(TEXT_BODY_KINDS) if text_quirk else pick(rng, BODY_SHARES)
            builder, variants = BODY_BUILDERS[kind]
            variant = force.get("variant") if "body" in force and "variant" in force else pick(rng, variants)
            payload = builder(ctx, variant)
            if self.preferences:
                payload.quirks = False    # LF, no BOM, keys as written, a final newline
        if truncation == "length":
            # the server announced more than the fetch limit; the stored part is cut there
            if kind == "huge":
                lines = huge_lines(rng, FETCH_LIMIT + rng.randint(1000, 200_000), ctx)
                full = ("\n".join(lines) + "\n").encode()
                ctype, ident = "text/plain", "text/plain"
            else:
                full = self.pages.big(rng, site.host.lower(), FETCH_LIMIT + 1)
                ctype, ident = "text/html; charset=UTF-8", "text/html"
            facts["body"]["truncated_" + ("robots" if kind == "huge" else "html")] += 1
            announced = max(len(full), lognormal(rng, 1_600_000, 0.4, FETCH_LIMIT + 1, 9_000_000))
            return Reply(200, full[:FETCH_LIMIT], ctype, ident, server, announced=announced, truncated="length")
        body = payload.data if payload.data is not None else render_text(rng, payload, force, facts)
        if truncation in ("time", "disconnect") and len(body) < 400:
            # cut something worth cutting: a big site's file
            kind, variant = "big_site", "typical"
            payload = body_big_site(ctx, variant)
            body = render_text(rng, payload, {}, facts)
        facts["body"][kind] += 1
        if variant:
            facts["variant"]["%s:%s" % (kind, variant)] += 1
        if payload.lines is not None and payload.bom:
            facts["bom"]["utf-16le" if payload.bom == b"\xff\xfe" else "utf-16be"] += 1
        elif body.startswith(b"\xef\xbb\xbf"):
            facts["bom"]["utf-8"] += 1
        reply = Reply(200, body, self.robots_ctype(payload), payload.identified if body else None, server)
        if truncation in ("time", "disconnect"):
            cut = int(len(body) * rng.uniform(0.2, 0.9))
            reply.announced = len(body)
            reply.body = body[:cut]
            reply.truncated = truncation
        return reply

    def robots_ctype(self, payload):
        """The server's Content-Type for a robots.txt body: mostly text/plain."""
        if payload.ctype != "text/plain":
            return payload.ctype
        r = self.rng.random()
        if payload.encoding == "latin-1":
            return "text/plain; charset=ISO-8859-1"
        if r < 0.45:
            return "text/plain"
        if r < 0.80:
            return "text/plain; charset=utf-8"
        if r < 0.95:
            return "text/plain; charset=UTF-8"
        if r < 0.98:
            return "application/octet-stream"
        return None

    def serve_redirect(self, slot, fetch, server):
        rng, site, force, facts = self.rng, fetch.site, fetch.force, self.facts
        kind = fetch.redirect_kind or rng.choice(redirect_kinds_for(site))
        facts["redirect_kind"][kind] += 1
        target_path = "/robots.txt"
        if kind == "https_upgrade":
            target = site.moved(scheme="https", port=None)
        elif kind == "https_downgrade":
            target = site.moved(scheme="http", port=None)
        elif kind == "www_added":
            target = site.moved(host="www." + site.host, kind="www",
                                scheme="https" if rng.random() < 0.5 else site.scheme)
        elif kind == "www_removed":
            target = site.moved(host=site.host[4:], kind="bare",
                                scheme="https" if rng.random() < 0.5 else site.scheme)
        elif kind == "same_site":
            target = site.moved(host="www." + site.domain, kind="www", scheme="https")
        elif kind == "other_host":
            target = new_site(rng, kind=rng.choice(("www", "bare")), scheme="https")
        else:
            target = site
            target_path = force.get("target_path") or rng.choice(NON_ROBOTS_PATHS)
        location = None
        if kind == "missing_location":
            form = force.get("location_form") or rng.choice(("absent", "absent", "empty"))
        elif kind == "not_robots_path":
            form = force.get("location_form") or ("path" if rng.random() < RELATIVE_LOCATION else "absolute")
        elif kind in ("www_added", "www_removed", "same_site", "other_host") and target.scheme == site.scheme:
            form = force.get("location_form") or ("scheme_relative" if rng.random() < SCHEME_RELATIVE_LOCATION
                                                  else "absolute")
        else:
            form = "absolute"
        if form == "absolute":
            location = target.url(target_path)
        elif form == "path":
            location = target_path
        elif form == "scheme_relative":
            location = "//" + target.hostport + target_path
        elif form == "empty":
            location = ""
        facts["location"][form] += 1
        extra = [] if location is None else [("Location", location)]
        r = rng.random()
        if r < 0.45:
            body, ctype, ident = nginx_page(fetch.status), "text/html", "text/html"
        elif r < 0.75:
            body, ctype, ident = b"", None, None
        else:
            body = ('<!DOCTYPE HTML PUBLIC "-//IETF//DTD HTML 2.0//EN">\n<html><head>\n<title>%d %s</title>\n'
                    '</head><body>\n<h1>%s</h1>\n<p>The document has moved <a href="%s">here</a>.</p>\n'
                    "</body></html>\n" % (fetch.status, REASONS[fetch.status], REASONS[fetch.status],
                                          location or "")).encode()
            ctype, ident = "text/html; charset=iso-8859-1", "text/html"
        if location:
            follow = force.get("follow")
            if follow is None:
                follow = rng.random() < (FOLLOW_ROBOTS_TARGET if target_path == "/robots.txt" else FOLLOW_OTHER_TARGET)
            if follow:
                self.follow_later(slot, target, target_path, force.get("chain"))
        return Reply(fetch.status, body, ctype, ident, server, extra)

    def follow_later(self, slot, target, path, chain):
        rng = self.rng
        if path == "/robots.txt":
            status = 301 if chain else pick(rng, FOLLOW_ROBOTS_STATUS)
        else:
            status = pick(rng, FOLLOW_PAGE_STATUS)
        kind, force = None, {}
        if 300 <= status < 400:
            kinds = [k for k in redirect_kinds_for(target)
                     if k not in ("missing_location", "not_robots_path", "https_downgrade")]
            kind = rng.choice(kinds)
            force = {"follow": True} if chain else {}
        self.facts["follow_up"]["robots" if path == "/robots.txt" else "other_path"] += 1
        self.schedule(slot, Fetch(target, path=path, status=status, origin="follow_up",
                                  redirect_kind=kind, force=force))

    # -- transport -----------------------------------------------------------

    def transport(self, fetch, reply):
        rng, force, facts = self.rng, fetch.force, self.facts
        site = fetch.site
        if site.scheme == "https":
            protocol = force.get("protocol") or ("h2" if rng.random() < H2_OF_HTTPS else "http/1.1")
        else:
            protocol = force.get("protocol") or ("http/1.0" if rng.random() < HTTP10_OF_HTTP else "http/1.1")
        if protocol == "h2" and site.scheme != "https":
            protocol = "http/1.1"
        nonempty = len(reply.body) > 0
        encoding = force.get("encoding")
        if encoding is None and nonempty:
            r = rng.random()
            encoding = "gzip" if r < GZIP_ENCODED else "br" if r < GZIP_ENCODED + BR_ENCODED else None
        if not nonempty:
            encoding = None
        chunked = force.get("chunked")
        if chunked is None:
            chunked = protocol == "http/1.1" and not encoding and rng.random() < CHUNKED
        chunked = bool(chunked) and nonempty and protocol == "http/1.1"
        lower = protocol == "h2" or force.get("lower_headers") or rng.random() < LOWER_CASE_HTTP1
        cache = force.get("cache_control")
        if cache is None and rng.random() < CACHE_CONTROL:
            cache = rng.choice(CACHE_CONTROL_VALUES)
        t = {
            "protocol": protocol,
            "https": site.scheme == "https",
            "status_proto": "HTTP/1.0" if protocol == "http/1.0" else "HTTP/1.1",
            "encoding": encoding, "chunked": chunked, "lower": lower, "cache_control": cache,
            "no_reason": force.get("no_reason") or rng.random() < NO_REASON_PHRASE,
            "tls": "tls/1.3" if rng.random() < TLS13 else "tls/1.2",
        }
        facts["protocol"][protocol] += 1
        if encoding:
            facts["encoding"][encoding] += 1
        if chunked:
            facts["encoding"]["chunked"] += 1
        if lower:
            facts["quirk"]["lower_case_headers"] += 1
        if t["no_reason"]:
            facts["quirk"]["no_reason_phrase"] += 1
        return t

    # -- writing -------------------------------------------------------------

    def write_exchange(self, writer, info_id, dt, fetch, reply, transport):
        rng, site = self.rng, fetch.site
        uri = site.url(fetch.path)
        date = warc_date(dt)
        request = ("GET %s HTTP/1.1\r\nUser-Agent: %s\r\nAccept: text/html,application/xhtml+xml,"
                   "application/xml;q=0.9,*/*;q=0.8\r\nAccept-Language: en-US,en;q=0.5\r\n"
                   "Accept-Encoding: br,gzip\r\nHost: %s\r\nConnection: Keep-Alive\r\n\r\n"
                   % (fetch.path, CCBOT_UA, site.hostport)).encode("utf-8")
        tls = []
        if site.scheme == "https":
            tls = [("WARC-Protocol", transport["protocol"]), ("WARC-Protocol", transport["tls"]),
                   ("WARC-Cipher-Suite", rng.choice(("TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384",
                                                     "TLS_CHACHA20_POLY1305_SHA256"))
                    if transport["tls"] == "tls/1.3" else "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256")]
        request_id = record_id(rng)
        writer.write([("WARC-Type", "request"), ("WARC-Date", date), ("WARC-Record-ID", request_id),
                      ("Content-Length", str(len(request))), ("Content-Type", "application/http; msgtype=request"),
                      ("WARC-Warcinfo-ID", info_id), ("WARC-IP-Address", site.ip), ("WARC-Target-URI", uri)]
                     + tls + [("WARC-Payload-Digest", EMPTY_SHA1), ("WARC-Block-Digest", sha1_b32(request))],
                     request)
        head = http_head(rng, reply, transport, dt, self.facts)
        block = head + reply.body
        headers = [("WARC-Type", "response"), ("WARC-Date", date), ("WARC-Record-ID", record_id(rng)),
                   ("Content-Length", str(len(block))), ("Content-Type", "application/http; msgtype=response"),
                   ("WARC-Warcinfo-ID", info_id), ("WARC-Concurrent-To", request_id),
                   ("WARC-IP-Address", site.ip), ("WARC-Target-URI", uri)] + tls
        headers += [("WARC-Payload-Digest", sha1_b32(reply.body)), ("WARC-Block-Digest", sha1_b32(block))]
        if reply.truncated:       # after the digests, as in Common Crawl's files
            headers.append(("WARC-Truncated", reply.truncated))
        if reply.body and reply.identified:
            headers.append(("WARC-Identified-Payload-Type", reply.identified))
        writer.write(headers, block)

    # -- the file ------------------------------------------------------------

    def run(self, path):
        rng = self.rng
        writer = WarcWriter(path)
        info_id = record_id(rng)
        block = warcinfo_block(self.name, self.index, self.preferences)
        start = FIRST_FILE_START + self.index * FILE_STEP
        writer.write([("WARC-Type", "warcinfo"), ("WARC-Date", warc_date(start)), ("WARC-Record-ID", info_id),
                      ("Content-Length", str(len(block))), ("Content-Type", "application/warc-fields"),
                      ("WARC-Filename", self.name), ("WARC-Block-Digest", sha1_b32(block))], block)
        dt = start
        mean_gap = FILE_SPAN.total_seconds() * 0.98 / self.n
        for slot in range(self.n):
            dt = min(dt + timedelta(seconds=round(rng.expovariate(1.0 / mean_gap))), start + FILE_SPAN)
            fetch = self.next_fetch(slot)
            reply = self.serve(slot, fetch)
            transport = self.transport(fetch, reply)
            self.write_exchange(writer, info_id, dt, fetch, reply, transport)
            self.count(fetch, reply)
        writer.close()
        if (self.small or self.preferences) and self.forced:
            raise RuntimeError("forced categories left over: %r" % self.forced)
        return writer.raw_bytes

    def count(self, fetch, reply):
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


# ---------------------------------------------------------------------------
# --small: every category at least once
# ---------------------------------------------------------------------------

def forced_specs(rng):
    """One fetch spec per category of the mixture, for the test sample."""
    specs = []
    for status in STATUS_SHARES:
        specs.append({"status": status})
    codes = itertools.cycle(REDIRECT_STATUSES)
    for kind in REDIRECT_KIND_SHARES:
        specs.append({"status": next(codes), "redirect_kind": kind, "follow": True})
        specs.append({"status": next(codes), "redirect_kind": kind, "follow": False})
    specs += [
        {"redirect_kind": "not_robots_path", "location_form": "path", "follow": True},
        {"redirect_kind": "not_robots_path", "location_form": "absolute", "target_path": "/login?next=/robots.txt",
         "follow": True},
        {"redirect_kind": "not_robots_path", "location_form": "path", "target_path": "/robots.txt/"},
        {"redirect_kind": "not_robots_path", "location_form": "absolute", "target_path": "/"},
        {"redirect_kind": "www_added", "location_form": "scheme_relative", "scheme": "https", "follow": True},
        {"redirect_kind": "other_host", "location_form": "scheme_relative", "scheme": "https"},
        {"redirect_kind": "missing_location", "location_form": "absent"},
        {"redirect_kind": "missing_location", "location_form": "empty"},
        {"redirect_kind": "https_upgrade", "follow": True, "chain": True},   # a 2-hop chain
        {"redirect_kind": "https_upgrade", "follow": True, "chain": True},
        {"refetch": True, "status": 200}, {"refetch": True, "status": 404}, {"refetch": True, "status": 301},
    ]
    for kind, (_, variants) in BODY_BUILDERS.items():
        for variant in variants:
            specs.append({"status": 200, "body": kind, "variant": variant})
    for page in NOT_FOUND_PAGE_SHARES:
        specs.append({"status": 404, "page": page})
    for server in ("nginx", "apache", "iis", "s3"):
        specs.append({"status": 404, "page": "server_default", "server": server})
    specs += [{"status": 403, "page": "cloudflare_challenge"}, {"status": 503, "page": "themed"}]
    specs += [{"status": 200, "line_end": e} for e in LINE_END_SHARES]
    specs += [{"status": 200, "line_end": "cr", "body": "big_site", "variant": "typical"},
              {"status": 200, "bom": True}, {"status": 200, "bom": True, "line_end": "crlf"},
              {"status": 200, "key_case": "upper"}, {"status": 200, "key_case": "lower"},
              {"status": 200, "no_final_newline": True, "body": "allow_all", "variant": "empty_disallow"},
              {"status": 200, "leading_blank": True, "body": "wordpress", "variant": "core"},
              {"status": 200, "tab_after_colon": True, "body": "allow_all", "variant": "with_sitemap"}]
    specs += [{"status": 200, "truncation": "length", "body": "html_page"},
              {"status": 200, "truncation": "length", "body": "huge"},
              {"status": 200, "truncation": "time", "body": "big_site", "variant": "typical"},
              {"status": 200, "truncation": "disconnect", "body": "html_page", "variant": "text_html",
               "chunked": True, "protocol": "http/1.1", "scheme": "http"}]
    specs += [{"status": 200, "encoding": "gzip", "body": "wordpress"},
              {"status": 200, "encoding": "br", "body": "big_site", "variant": "typical"},
              {"status": 404, "encoding": "gzip", "page": "themed"},
              {"status": 200, "chunked": True, "protocol": "http/1.1", "scheme": "http", "body": "shopify"},
              {"status": 200, "chunked": True, "protocol": "http/1.1", "scheme": "https", "body": "yandex"},
              {"status": 200, "protocol": "h2", "scheme": "https"},
              {"status": 200, "protocol": "http/1.0", "scheme": "http"},
              {"status": 200, "no_reason": True}, {"status": 200, "lower_headers": True, "protocol": "http/1.1"}]
    specs += [{"status": 200, "cache_control": v} for v in CACHE_CONTROL_VALUES]
    specs += [{"status": 200, "host_kind": k} for k in HOST_KIND_SHARES]
    specs += [{"status": 404, "host_kind": "idn"}, {"status": 301, "redirect_kind": "other_host", "host_kind": "ipv4"},
              {"status": 200, "port": 8080, "scheme": "http"}, {"status": 200, "port": 8443, "scheme": "https"},
              {"status": 200, "scheme": "http"}, {"status": 200, "scheme": "https"}]
    rng.shuffle(specs)
    return specs


def check_small(facts):
    """The test sample must hold every category; raise if one is missing."""
    missing = []
    for status in STATUS_SHARES:
        if not facts["status"][str(status)]:
            missing.append("status %d" % status)
    for kind in REDIRECT_KIND_SHARES:
        if not facts["redirect_kind"][kind]:
            missing.append("redirect " + kind)
    for kind, (_, variants) in BODY_BUILDERS.items():
        for v in variants:
            if not facts["variant"]["%s:%s" % (kind, v)]:
                missing.append("body %s:%s" % (kind, v))
    required = {
        "bom": ["utf-8", "utf-16le", "utf-16be"],
        "encoding": ["gzip", "br", "chunked"],
        "truncated": ["length", "time", "disconnect"],
        "size": ["over_500kib"],
        "line_end": ["lf", "crlf", "cr"],
        "directive_lines": ["content-signal", "content-usage", "cloudflare_managed_block", "crawl-delay",
                            "host", "clean-param", "noindex", "request-rate", "visit-time"],
        "location": ["absolute", "path", "scheme_relative", "absent", "empty"],
        "fetch": ["refetch", "follow_up", "non_robots_path"],
        "host": ["explicit_port", "idn", "ipv4", "upper", "ipv6_peer"],
        "protocol": ["h2", "http/1.1", "http/1.0"],
        "quirk": ["keys_lower", "keys_upper", "no_final_newline", "leading_blank_lines", "tab_after_colon",
                  "lower_case_headers", "no_reason_phrase"],
    }
    for group, keys in required.items():
        missing += ["%s %s" % (group, k) for k in keys if not facts[group][k]]
    if missing:
        raise RuntimeError("the --small sample lacks: " + ", ".join(missing))


# ---------------------------------------------------------------------------
# --preferences: one fetch per AI-use preference case
# ---------------------------------------------------------------------------

def preference_cases():
    """(category, variant) of each fetch of the --preferences file, in file
    order: every content_usage variant (placement/vocabulary), every
    cloudflare_managed variant, then the plain bodies."""
    cases = []
    for kind in ("content_usage", "cloudflare_managed"):
        cases += [(kind, v) for v in list(BODY_BUILDERS[kind][1]) + PREFERENCE_ONLY_VARIANTS[kind]]
    return cases + PREFERENCE_PLAIN_BODIES


def check_preferences(facts):
    """Each case exactly once, every fetch a 200 for a robots.txt URL, none cut."""
    cases = preference_cases()
    want = Counter("%s:%s" % case for case in cases)
    if facts["variant"] != want or facts["status"] != Counter({"200": len(cases)}) or facts["truncated"] \
            or facts["fetch"] != Counter({"fresh": len(cases)}):
        raise RuntimeError("the --preferences file does not hold each case once: %r" % dict(facts["variant"]))


# ---------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------

def generate_file(job):
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


def main(argv=None):
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
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="parallel processes (default: all CPUs)")
    ap.add_argument("--stats", action="store_true", help="print per-file category counts as JSON on stdout")
    a = ap.parse_args(argv)
    if a.small:
        a.files, a.records_per_file = 1, SMALL_FETCHES
    if a.preferences:
        a.files, a.records_per_file = 1, len(preference_cases())
    if a.files < 1 or a.records_per_file < (200 if a.small else 1):
        ap.error("need at least one file and one fetch")
    os.makedirs(a.out, exist_ok=True)
    jobs = [(a.seed, PREFERENCES_INDEX if a.preferences else i, a.records_per_file, a.small, a.preferences, a.out)
            for i in range(a.files)]
    t0 = time.time()
    if a.jobs > 1 and len(jobs) > 1:
        with Pool(min(a.jobs, len(jobs))) as pool:
            results = pool.map(generate_file, jobs, chunksize=1)
    else:
        results = [generate_file(j) for j in jobs]
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
    if a.stats:
        json.dump(results, sys.stdout, indent=1)
        sys.stdout.write("\n")


if __name__ == "__main__":
    main()
