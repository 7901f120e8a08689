"""What the WARC files say, read with warcio: the figures the tables must
reproduce, computed without robostats.

Google's robots.txt reading rules used here (from Google's robotstxt library
and RFC 9309): only 2xx bodies are parsed; the first 500 KiB (512,000 bytes)
are read; a UTF-8 BOM is skipped; lines end at LF, CR or CRLF; '#' starts a
comment; a key ends at ':' or, without a colon, at the whitespace of a line
of exactly two words; keys are matched by prefix, case-insensitively, with
Google's accepted typos."""

import collections
import io
import re
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit

from warcio.archiveiterator import ArchiveIterator
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

GOOGLE_LIMIT = 512_000
UA_TYPOS = ("useragent", "user agent")
DISALLOW_TYPOS = ("dissallow", "dissalow", "disalow", "diasllow", "disallaw")
LINE_END = re.compile(rb"\r\n|\r|\n")


def google_key_lines(body):
    """(key lower-cased, value) of every line with a key, as Google's parser
    splits the first 500 KiB of a body."""
    b = body[:GOOGLE_LIMIT]
    if b.startswith(b"\xef\xbb\xbf"):
        b = b[3:]
    for line in LINE_END.split(b):
        line = line.split(b"#", 1)[0].strip(b" \t")
        if not line:
            continue
        if b":" in line:
            key, value = (x.strip(b" \t") for x in line.split(b":", 1))
        else:
            words = line.split()
            if len(words) != 2:
                continue
            key, value = words
        yield key.lower().decode("latin-1"), value


def google_key(k):
    """(directive, accepted typo?) of a lower-cased key, by Google's prefix
    matching; directive None for keys Google does not know."""
    for directive, prefixes, typos in (
        ("user-agent", ("user-agent",), UA_TYPOS),
        ("allow", ("allow",), ()),
        ("disallow", ("disallow",), DISALLOW_TYPOS),
        ("sitemap", ("sitemap",), ("site-map",)),
    ):
        if k.startswith(prefixes):
            return directive, False
        if typos and k.startswith(typos):
            return directive, True
    return None, False


def google_keys(body):
    """Counts of user-agent, allow, disallow, sitemap lines and accepted typos
    of one robots.txt body, as Google's parser reads the keys."""
    c = collections.Counter()
    for k, _ in google_key_lines(body):
        directive, typo = google_key(k)
        if directive is None:
            c["other:" + k] += 1
            continue
        c[directive.replace("-", "_")] += 1
        c["typo"] += typo
    return c


def google_typos(body):
    """(directive, spelling) of each line whose key is an accepted typo."""
    return [(d, k) for k, _ in google_key_lines(body) for d, typo in [google_key(k)] if typo]


def mime(value):
    if not value:
        return None
    return value.split(";", 1)[0].strip().lower() or None


@dataclass
class Response:
    path: str
    offset: int
    url: str
    date: str
    status: int
    location: str | None
    detected: str | None
    content_type: str | None
    truncated: str | None
    body: bytes

    @property
    def host(self):
        return (urlsplit(self.url).hostname or "").lower()

    @property
    def url_path(self):
        return urlsplit(self.url).path

    @property
    def redirect(self):
        if 300 <= self.status < 400 and self.location:
            return urljoin(self.url, self.location.strip())
        return None

    @property
    def failed(self):
        """The crawler cut the fetch short for another reason than its size
        limit (WARC-Truncated: time, disconnect, ...): an incomplete fetch,
        which Google treats as a server error (docs/warc.md: class failed).
        A body cut at the size limit (WARC-Truncated: length) is not failed."""
        return self.truncated is not None and self.truncated.strip().lower() != "length"

    @property
    def parsed(self):
        """A body a crawler reads as robots.txt: a 2xx fetch that did not fail."""
        return 200 <= self.status < 300 and not self.failed

    @property
    def looks_like_html(self):
        b = self.body.lstrip(b"\xef\xbb\xbf").lstrip().lower()
        return b.startswith(b"<html") or b.startswith(b"<!doctype html")

    @property
    def text_mime(self):
        """Common Crawl's MIME test for a robots.txt: the detected type (else
        the server's) is text/* but not text/html, or message/rfc822, plain/text."""
        m = self.detected or mime(self.content_type)
        if m is None:
            return False
        return (m.startswith("text/") and m != "text/html") or m in ("message/rfc822", "plain/text")

    @property
    def valid(self):
        """The studies' valid robots.txt: 200, text, not HTML."""
        return self.status == 200 and self.text_mime and not self.looks_like_html


@dataclass
class WarcFacts:
    records: collections.Counter = field(default_factory=collections.Counter)
    responses: list = field(default_factory=list)


def read_warc(path, rel):
    """Every record type counted, and every response record with what the
    tests compare; `rel` is the path as given to robostats (warc_filename)."""
    facts = WarcFacts()
    with open(path, "rb") as f:
        it = ArchiveIterator(f)
        for rec in it:
            facts.records[rec.rec_type] += 1
            if rec.rec_type != "response":
                continue
            h = rec.http_headers
            # read the body first: get_record_offset() skips the rest of the record
            body = rec.content_stream().read()
            facts.responses.append(
                Response(
                    path=rel,
                    offset=it.get_record_offset(),
                    url=rec.rec_headers.get_header("WARC-Target-URI"),
                    date=rec.rec_headers.get_header("WARC-Date"),
                    status=int(h.get_statuscode()),
                    location=h.get_header("Location"),
                    detected=mime(rec.rec_headers.get_header("WARC-Identified-Payload-Type")),
                    content_type=h.get_header("Content-Type"),
                    truncated=rec.rec_headers.get_header("WARC-Truncated"),
                    body=body,
                )
            )
    return facts


def count_responses(path):
    """Response records warcio reads, or None when warcio cannot read the
    file to its end."""
    n = 0
    try:
        with open(path, "rb") as f:
            for rec in ArchiveIterator(f):
                if rec.rec_type == "response":
                    n += 1
    except Exception:  # warcio gives up on some broken files: no reference then
        return None
    return n


def latest_per_url(responses):
    """The latest response of each URL (by WARC-Date, then file and offset)."""
    latest = {}
    for r in responses:
        key = (r.date, r.path, r.offset)
        if r.url not in latest or key > (latest[r.url].date, latest[r.url].path, latest[r.url].offset):
            latest[r.url] = r
    return latest


def follow(latest, start, max_hops=5):
    """Follow a robots.txt URL's redirects over the latest captures.
    Returns (hops, final response, resolution)."""
    cur = latest[start]
    seen = [start]
    hops = 0
    while 300 <= cur.status < 400:
        target = cur.redirect
        if target is None:
            return hops, cur, "missing_location"
        if target in seen:
            return hops, cur, "loop"
        if hops >= max_hops:
            return hops, cur, "too_many_hops"
        if target not in latest:
            return hops, cur, "target_not_captured"
        cur = latest[target]
        seen.append(target)
        hops += 1
    return hops, cur, "direct" if hops == 0 else "resolved"


def google_lines(body):
    """(key kind, value) of each user-agent / sitemap line Google reads, and
    ("other", key) for the keys Google does not know."""
    out = []
    for k, value in google_key_lines(body):
        directive, _ = google_key(k)
        if directive in ("user-agent", "sitemap"):
            out.append((directive.replace("-", "_"), value.decode("utf-8", "replace")))
        elif directive is None:
            out.append(("other", k))
    return out


def agent_token(value):
    """How top_user_agents.sql names an agent: '*', else the lower-cased
    [A-Za-z_-] prefix Google matches on, else the value."""
    if value == "*" or value.startswith(("* ", "*\t")):
        return "*"
    m = re.match(r"[A-Za-z_-]+", value)
    return m.group(0).lower() if m else value.lower()


def write_warc(path, bodies):
    """A gzip WARC file at `path` of one 200 text/plain response per (host,
    body) of `bodies`: https://host/robots.txt."""
    with open(path, "wb") as f:
        writer = WARCWriter(f, gzip=True)
        for host, body in bodies:
            headers = StatusAndHeaders("200 OK", [("Content-Type", "text/plain")], protocol="HTTP/1.1")
            writer.write_record(writer.create_warc_record(
                f"https://{host}/robots.txt", "response", payload=io.BytesIO(body), http_headers=headers))
