"""The server's reply and how it travels: the Reply, the transport drawn
for it (protocol, encodings, header case, Cache-Control, TLS), and the HTTP
head as Common Crawl stores it (headers renamed X-Crawler-..., the stored
length added)."""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from datetime import timedelta

from .config import (BR_ENCODED, CACHE_CONTROL, CACHE_CONTROL_VALUES, CHUNKED, GZIP_ENCODED, H2_OF_HTTPS,
                     HTTP10_OF_HTTP, LOWER_CASE_HTTP1, NO_CONTENT_LENGTH_H2, NO_REASON_PHRASE, REASONS,
                     TLS13)
from .util import http_date

def server_headers(rng, server):
    """The headers that name the server software (or its CDN or cache)."""
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
    h = []
    if rng.random() < 0.5:
        h.append(("Date", http_date(dt)))
        h += server_headers(rng, reply.server)
    else:
        h += server_headers(rng, reply.server)
        h.append(("Date", http_date(dt)))
    if reply.ctype:
        h.append(("Content-Type", reply.ctype))
    kept, renamed = length_headers(rng, reply, transport)
    h += kept
    h += more_headers(rng, reply, transport, dt, facts)
    # the renamed headers sit where the server sent them (near the end), the
    # added Content-Length last
    for name, value in renamed:
        h.append(("X-Crawler-" + (name.lower() if transport["lower"] else name), value))
        facts["x_crawler"][name.lower()] += 1
    if not any(n == "Content-Length" for n, _ in h):
        h.append(("__added_length__", str(len(reply.body))))
    return head_bytes(reply, transport, h)


def length_headers(rng, reply, transport):
    """The server's Content-Encoding, Transfer-Encoding and Content-Length:
    (headers Common Crawl keeps, headers it renames). It keeps only a
    Content-Length that is the stored payload's length."""
    stored = len(reply.body)
    wire_length = reply.announced if reply.announced is not None else stored
    kept, renamed = [], []
    if transport["encoding"]:
        renamed.append(("Content-Encoding", transport["encoding"]))
        wire_length = max(20, int(wire_length / rng.uniform(2.5, 5.5)))
    if transport["chunked"]:
        renamed.append(("Transfer-Encoding", "chunked"))
    elif not (transport["protocol"] == "h2" and rng.random() < NO_CONTENT_LENGTH_H2 and not reply.announced):
        if wire_length == stored and not transport["encoding"]:
            kept.append(("Content-Length", str(stored)))    # correct: Common Crawl keeps it
        else:
            renamed.append(("Content-Length", str(wire_length)))
    return kept, renamed


def more_headers(rng, reply, transport, dt, facts):
    """The other headers, after the length: connection, validators, Vary,
    Cache-Control, the reply's own (Location, ...), CDN, HSTS, a cookie."""
    h = []
    if transport["protocol"] != "h2":
        h.append(("Connection", rng.choice(("keep-alive", "keep-alive", "close", "Keep-Alive"))))
    if reply.status == 200 and rng.random() < 0.6:
        h.append(("Last-Modified", http_date(dt - timedelta(days=rng.randint(0, 3000), seconds=rng.randint(0, 86399)))))
        h.append(("ETag", rng.choice(('"%x-%x"' % (rng.getrandbits(28), len(reply.body)),
                                      'W/"%016x"' % rng.getrandbits(64)))))
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
    return h


def head_bytes(reply, transport, h):
    """The status line and the headers (lower-case names if the transport
    says so, except the X-Crawler- ones and the added Content-Length)."""
    lower = transport["lower"]
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
# The transport: protocol, encodings, header case, Cache-Control, TLS
# ---------------------------------------------------------------------------

def draw_transport(rng, fetch, reply, facts):
    """How the reply travels (forced by the fetch's spec or drawn), as the
    dict http_head and the WARC records read; counts it."""
    force, site = fetch.force, fetch.site
    protocol = draw_protocol(rng, site, force)
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
    count_transport(facts, t)
    return t


def draw_protocol(rng, site, force):
    """h2 or HTTP/1.1 on https, HTTP/1.1 or 1.0 on http (h2 only on https)."""
    if site.scheme == "https":
        protocol = force.get("protocol") or ("h2" if rng.random() < H2_OF_HTTPS else "http/1.1")
    else:
        protocol = force.get("protocol") or ("http/1.0" if rng.random() < HTTP10_OF_HTTP else "http/1.1")
    if protocol == "h2" and site.scheme != "https":
        protocol = "http/1.1"
    return protocol


def count_transport(facts, t):
    facts["protocol"][t["protocol"]] += 1
    if t["encoding"]:
        facts["encoding"][t["encoding"]] += 1
    if t["chunked"]:
        facts["encoding"]["chunked"] += 1
    if t["lower"]:
        facts["quirk"]["lower_case_headers"] += 1
    if t["no_reason"]:
        facts["quirk"]["no_reason_phrase"] += 1
