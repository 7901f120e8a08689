"""WARC output: the writer (one gzip member per record), Common Crawl's
file names, the warcinfo record, and the request and response records of
one fetch."""

import zlib

from .config import CCBOT_UA, CRAWL, EMPTY_SHA1, FILE_SPAN, FILE_STEP, FIRST_FILE_START, GZIP_LEVEL
from .reply import http_head
from .util import record_id, sha1_b32, warc_date


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


def file_start(index):
    """The time of the first record of file `index`."""
    return FIRST_FILE_START + index * FILE_STEP


def file_name(index, start=None, end=None):
    """Common Crawl's name of a segment file: crawl, start, end, number.
    `start` defaults to file `index`'s start in the corpus's crawl, `end`
    to FILE_SPAN after the start."""
    start = file_start(index) if start is None else start
    end = start + FILE_SPAN if end is None else end
    return "CC-MAIN-%s-%s-%05d.warc.gz" % (start.strftime("%Y%m%d%H%M%S"), end.strftime("%Y%m%d%H%M%S"), index)


PREFERENCES_NOTE = "one fetch per AI-use preference case (gen_corpus.py --preferences)"


def warcinfo_block(index, preferences=False, crawl=CRAWL, note=None):
    """The warcinfo record's fields, which say the data is synthetic;
    `note` (or --preferences's) is added to the description."""
    description = ("SYNTHETIC robots.txt captures shaped like Common Crawl's robotstxt subset, "
                   "made by robostats scripts/gen_corpus.py; no real crawl data")
    note = PREFERENCES_NOTE if preferences else note
    if note:
        description += "; " + note
    fields = [
        ("isPartOf", crawl),
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


def write_warcinfo(writer, rng, name, index, preferences, crawl=CRAWL, start=None, note=None):
    """The file's first record (dated `start`, by default file `index`'s
    start in the corpus's crawl); returns its record id."""
    info_id = record_id(rng)
    block = warcinfo_block(index, preferences, crawl, note)
    start = file_start(index) if start is None else start
    writer.write([("WARC-Type", "warcinfo"), ("WARC-Date", warc_date(start)), ("WARC-Record-ID", info_id),
                  ("Content-Length", str(len(block))), ("Content-Type", "application/warc-fields"),
                  ("WARC-Filename", name), ("WARC-Block-Digest", sha1_b32(block))], block)
    return info_id


def write_exchange(writer, rng, info_id, dt, fetch, reply, transport, facts):
    """The request record of a fetch, then its response record."""
    site = fetch.site
    uri = site.url(fetch.path)
    date = warc_date(dt)
    request = request_bytes(fetch)
    tls = tls_headers(rng, site, transport)
    request_id = record_id(rng)
    writer.write([("WARC-Type", "request"), ("WARC-Date", date), ("WARC-Record-ID", request_id),
                  ("Content-Length", str(len(request))), ("Content-Type", "application/http; msgtype=request"),
                  ("WARC-Warcinfo-ID", info_id), ("WARC-IP-Address", site.ip), ("WARC-Target-URI", uri)]
                 + tls + [("WARC-Payload-Digest", EMPTY_SHA1), ("WARC-Block-Digest", sha1_b32(request))],
                 request)
    head = http_head(rng, reply, transport, dt, facts)
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


def request_bytes(fetch):
    """CCBot's GET request for the fetch's URL."""
    return ("GET %s HTTP/1.1\r\nUser-Agent: %s\r\nAccept: text/html,application/xhtml+xml,"
            "application/xml;q=0.9,*/*;q=0.8\r\nAccept-Language: en-US,en;q=0.5\r\n"
            "Accept-Encoding: br,gzip\r\nHost: %s\r\nConnection: Keep-Alive\r\n\r\n"
            % (fetch.path, CCBOT_UA, fetch.site.hostport)).encode("utf-8")


def tls_headers(rng, site, transport):
    """WARC-Protocol and WARC-Cipher-Suite of an https fetch (none on http)."""
    if site.scheme != "https":
        return []
    return [("WARC-Protocol", transport["protocol"]), ("WARC-Protocol", transport["tls"]),
            ("WARC-Cipher-Suite", rng.choice(("TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384",
                                              "TLS_CHACHA20_POLY1305_SHA256"))
             if transport["tls"] == "tls/1.3" else "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256")]
