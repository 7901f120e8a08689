#!/usr/bin/env python3
"""Prints what two independent WARC readers (warcio, FastWARC) see in the
test WARC files, so the expected values in tests/warc_real.rs and
tests/warc_sample.rs can be re-checked:

    pip install warcio fastwarc
    python3 tests/warc_expected.py tests/data/warc/*/* samples/*.warc.gz

For each file: the number of response records by each reader, then one line
per response (warcio): offset, status, target URI, WARC-Date, record id.
For the sample: counts of BOMs, original encodings and truncation.
"""
import collections
import sys

from warcio.archiveiterator import ArchiveIterator


def warcio_responses(path):
    out, error = [], None
    try:
        with open(path, "rb") as fh:
            it = ArchiveIterator(fh)
            for rec in it:
                if rec.rec_type == "response":
                    h = rec.rec_headers
                    status = rec.http_headers.get_statuscode() if rec.http_headers else None
                    body = rec.content_stream().read()
                    out.append((it.get_record_offset(), status, h.get_header("WARC-Target-URI"),
                                h.get_header("WARC-Date"), h.get_header("WARC-Record-ID"),
                                rec.http_headers, body, h))
                else:
                    rec.content_stream().read()
    except Exception as e:  # the broken files
        error = "%s: %s" % (type(e).__name__, str(e).strip().splitlines()[0] if str(e).strip() else "")
    return out, error


def fastwarc_count(path):
    try:
        from fastwarc.warc import ArchiveIterator as FI, WarcRecordType
    except ImportError:
        return "n/a"
    n = 0
    try:
        with open(path, "rb") as fh:
            for rec in FI(fh, record_types=WarcRecordType.response, parse_http=False):
                n += 1
    except Exception as e:
        return "%d then %s" % (n, type(e).__name__)
    return n


for path in sys.argv[1:]:
    resp, err = warcio_responses(path)
    print("== %s  warcio responses=%d%s  fastwarc responses=%s"
          % (path, len(resp), " (then %s)" % err if err else "", fastwarc_count(path)))
    if len(resp) <= 40:
        for off, status, uri, date, rid, *_ in resp:
            print("   %8d %s %s %s %s" % (off, status, uri, date, rid))
    else:
        c = collections.Counter()
        for off, status, uri, date, rid, http, body, h in resp:
            c["status_%s" % status] += 1
            if body.startswith(b"\xef\xbb\xbf"):
                c["bom_utf8"] += 1
            if body.startswith(b"\xff\xfe"):
                c["bom_utf16le"] += 1
            if body.startswith(b"\xfe\xff"):
                c["bom_utf16be"] += 1
            enc = http.get_header("X-Crawler-Content-Encoding")
            if enc:
                c["content_encoding_%s" % enc.lower()] += 1
            if http.get_header("X-Crawler-Transfer-Encoding"):
                c["transfer_encoding_chunked"] += 1
            if h.get_header("WARC-Truncated"):
                c["truncated_%s" % h.get_header("WARC-Truncated")] += 1
            try:
                (body[3:] if body.startswith(b"\xef\xbb\xbf") else body).decode("utf-8")
            except UnicodeDecodeError:
                c["invalid_utf8"] += 1
            if len(body) > 512000:
                c["over_500kib"] += 1
            # a max-age in seconds (not "max-age=-1" or "max-age=1d")
            cache = http.get_header("Cache-Control") or ""
            if any(k.strip().lower() == "max-age" and v.strip().strip('"').isdigit()
                   for k, _, v in (d.partition("=") for d in cache.split(","))):
                c["max_age"] += 1
        for k in sorted(c):
            print("   %-28s %d" % (k, c[k]))
        for off, status, uri, date, rid, *_ in resp[:3]:
            print("   %8d %s %s %s %s" % (off, status, uri, date, rid))
