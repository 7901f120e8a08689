#!/usr/bin/env python3
"""Extracts the bodies of the HTTP 200 robots.txt responses of WARC files
into one file of length-prefixed records (u32 little-endian length, then
the bytes), the input of `crates/robostats-bench/benches/robots.rs`.

    pip install warcio
    python3 scripts/extract_bodies.py OUT.bin FILE.warc.gz [FILE...]
"""
import struct
import sys

from warcio.archiveiterator import ArchiveIterator


def ok_responses(paths):
    """(WARC-Target-URI, body) of each HTTP 200 response of the WARC files,
    in file order (also used by scripts/bench_python.py)."""
    for path in paths:
        with open(path, "rb") as stream:
            for rec in ArchiveIterator(stream):
                if rec.rec_type != "response" or rec.http_headers is None:
                    continue
                if rec.http_headers.get_statuscode() != "200":
                    continue
                uri = rec.rec_headers.get_header("WARC-Target-URI") or ""
                yield uri, rec.content_stream().read()


def main():
    out, inputs = sys.argv[1], sys.argv[2:]
    n = size = 0
    with open(out, "wb") as f:
        for _, body in ok_responses(inputs):
            f.write(struct.pack("<I", len(body)))
            f.write(body)
            n += 1
            size += len(body)
    print(f"{n} bodies, {size} bytes -> {out}")

if __name__ == "__main__":
    main()
