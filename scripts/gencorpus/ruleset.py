"""--copies: what tells a body's copies apart, computed here from the bytes
as robostats computes it, so that copies.tsv can say which captures share
a body, a ruleset or a platform default without running robostats.

    body_digest(bytes)  BLAKE3 in hex, what b3sum prints (robostats'
                     body_digest)
    digest(bytes)    XXH3-128 in hex, what xxh128sum prints (robostats'
                     ruleset_digest)
    ruleset(body)    the canonical ruleset text (robostats'
                     RobotsTxt::write_ruleset)

The lines are Google's (crates/robostats-robots/src/lex.rs, itself a port
of google/robotstxt robots.cc): a leading UTF-8 BOM (or a prefix of one)
is skipped; CR, LF and CRLF end a line; a line keeps its first 16,663
bytes and ends at a NUL; the first `#` cuts it; it is trimmed; the key
ends at the first `:`, or, without a colon, at a run of spaces or tabs
when the line is exactly two tokens (otherwise the line has no key); an
empty key is no key. Keys are case-insensitive prefixes tried in Google's
order with Google's accepted typos: user-agent (useragent, user agent),
allow, disallow (dissallow, dissalow, disalow, diasllow, disallaw),
sitemap (site-map); any other key is kept in ASCII lower case.

The ruleset is one line `name: value\\n` per line with a key, in file
order, over the first 500 KiB (Google's parse limit); a sitemap value
starting with http:// or https:// (any case) loses the scheme and the
authority (the longest run of RFC 3986 authority characters), so that a
default served by many hosts is one ruleset."""

import re

from .config import GOOGLE_LIMIT

MAX_LINE_BYTES = 2083 * 8 - 1          # Google's line buffer, less its NUL
SPACE = b" \t\n\x0b\x0c\r"             # Google's isspace (with the vertical tab)
AUTHORITY = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=:@%[]")
# (prefix, canonical name), in the order Google tries them.
KEYS = [(b"user-agent", b"user-agent"), (b"useragent", b"user-agent"), (b"user agent", b"user-agent"),
        (b"allow", b"allow"), (b"disallow", b"disallow"),
        (b"dissallow", b"disallow"), (b"dissalow", b"disallow"), (b"disalow", b"disallow"),
        (b"diasllow", b"disallow"), (b"disallaw", b"disallow"),
        (b"sitemap", b"sitemap"), (b"site-map", b"sitemap")]


def body_digest(data):
    """The BLAKE3 hash of `data` as 64 lower-case hex digits (what `b3sum`
    prints), as robostats' body_digest. Needs the blake3 package (pip
    install blake3), for --copies only."""
    import blake3
    return blake3.blake3(data).hexdigest()


def digest(data):
    """The 128-bit XXH3 hash of `data` as 32 lower-case hex digits (what
    `xxh128sum` prints), as robostats' ruleset_digest. Needs the xxhash
    package (pip install xxhash), for --copies only."""
    import xxhash
    return xxhash.xxh3_128_hexdigest(data)


def bom_len(body):
    """Leading bytes that are a UTF-8 BOM or a prefix of one."""
    n = 0
    for b, m in zip(body, b"\xef\xbb\xbf"):
        if b != m:
            break
        n += 1
    return n


LINE_END = re.compile(rb"\r\n|\r|\n")


def lines(body):
    """The physical lines of `body` (without their line ends), as Google
    splits them: CRLF is one line end, LF CR two; the text after the last
    line end is a last line."""
    return LINE_END.split(body[bom_len(body):])


def key_value(raw):
    """(key as written, value) of a line, or None if it has no key."""
    line = raw[:MAX_LINE_BYTES]
    nul = line.find(b"\0")
    if nul >= 0:
        line = line[:nul]
    hash_ = line.find(b"#")
    if hash_ >= 0:
        line = line[:hash_]
    line = line.strip(SPACE)
    if not line:
        return None
    colon = line.find(b":")
    if colon >= 0:
        key, value = line[:colon], line[colon + 1:]
    else:
        seps = [i for i in (line.find(b" "), line.find(b"\t")) if i >= 0]
        if not seps:
            return None
        sep = min(seps)
        value = line[sep:].lstrip(b" \t")
        if b" " in value or b"\t" in value:
            return None                      # more than two tokens
        key = line[:sep]
    key = key.strip(SPACE)
    if not key:
        return None
    return key, value.strip(SPACE)


def key_name(key):
    """The canonical name of a key as written."""
    low = key.lower()                      # bytes.lower(): ASCII only, as Rust's
    for prefix, name in KEYS:
        if low.startswith(prefix):
            return name
    return low


def without_origin(url):
    """A sitemap URL without its http(s) scheme and authority."""
    low = url[:8].lower()
    for scheme in (b"http://", b"https://"):
        if low.startswith(scheme):
            rest = url[len(scheme):]
            n = 0
            while n < len(rest) and rest[n] in AUTHORITY:
                n += 1
            return rest[n:]
    return url


def ruleset(body, limit=GOOGLE_LIMIT):
    """The canonical ruleset text (bytes) of `body`, parsed up to `limit`."""
    out = []
    for raw in lines(body[:limit]):
        kv = key_value(raw)
        if kv is None:
            continue
        name = key_name(kv[0])
        value = without_origin(kv[1]) if name == b"sitemap" else kv[1]
        out.append(name + b": " + value + b"\n")
    return b"".join(out)
