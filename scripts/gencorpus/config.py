"""The fixed facts of the corpus (crawl, file names' times, limits, defaults)
and the assumed mixture: every share and probability the generator draws
from, and the HTTP reason phrases."""

from datetime import datetime, timedelta, timezone

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
# The status of a fetch that --small forces to redirect without naming a
# status, in percent (--small's redirect specs also take them in turn).
REDIRECT_STATUSES = {301: 52, 302: 30, 307: 6, 308: 12}
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

# The reason phrase of each status of the mixture (none for Cloudflare's 52x).
REASONS = {200: "OK", 204: "No Content", 301: "Moved Permanently", 302: "Found",
           307: "Temporary Redirect", 308: "Permanent Redirect", 400: "Bad Request",
           401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 406: "Not Acceptable",
           410: "Gone", 418: "I'm a teapot", 429: "Too Many Requests",
           451: "Unavailable For Legal Reasons", 500: "Internal Server Error",
           502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout",
           520: "", 521: "", 522: ""}
