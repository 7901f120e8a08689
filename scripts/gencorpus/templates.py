"""--copies: the platform default robots.txt bodies of
crates/robostats-rows/data/templates/ (one file ID.txt per default, exact
bytes, ID+VARIANT.txt for its other texts, and index.tsv: id, platform,
versions, match, marker, confidence, source, licence), read at run time,
filled in for a host, and the matcher that says which default a body is
(robostats' Template::of, in crates/robostats-rows/src/classify/copies.rs).

In a template's text `https://example.com` stands for the capture's
origin, `{PATH}` for a WordPress install path ("" or "/blog") and `{ID}`
for a Shopify shop's number. A template matches a body by its ruleset
(ruleset.py): "exact", the same lines; "blank", a body of whitespace
only; "block", the body starts with Cloudflare's managed block, whatever
its crawlers and signal (cloudflare-managed; see managed_block). A template line with `{PATH}`
matches an install path there (empty, or "/" and more without
whitespace), one with `{ID}` a number. A template with a marker also needs
the marker's text somewhere in the body. The first template of index.tsv
that matches is the body's."""

import os
from dataclasses import dataclass

from .ruleset import SPACE, key_name, key_value, lines as body_lines, ruleset

TEMPLATE_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                            "crates", "robostats-rows", "data", "templates")
INDEX_COLUMNS = ["id", "platform", "versions", "match", "marker", "confidence", "source", "licence"]
ORIGIN = "https://example.com"
ASCII_WHITESPACE = b" \t\n\x0c\r"        # Rust's u8::is_ascii_whitespace


@dataclass
class Template:
    id: str
    platform: str
    match: str              # exact | blank | block
    marker: str
    text: bytes             # the file's bytes, placeholders and all
    lines: list             # its ruleset's lines (bytes), placeholders and all
    variants: list          # the bytes of its other texts (ID+VARIANT.txt)

    def fill(self, origin, path="", shop_id=""):
        """The text for one host: its origin (scheme://host), install path
        and shop number in place of the placeholders."""
        return (self.text.replace(ORIGIN.encode(), origin.encode()).replace(b"{PATH}", path.encode())
                .replace(b"{ID}", str(shop_id).encode()))


_TEMPLATES = {}


def templates(directory=TEMPLATE_DIR):
    """{id: Template} in index.tsv's order (the order they are tried)."""
    if directory not in _TEMPLATES:
        with open(os.path.join(directory, "index.tsv"), encoding="utf-8", newline="") as f:
            rows = [line.rstrip("\n").split("\t") for line in f]
        if rows[0] != INDEX_COLUMNS:
            raise RuntimeError("%s/index.tsv: columns %r, not %r" % (directory, rows[0], INDEX_COLUMNS))
        out = {}
        names = sorted(os.listdir(directory))
        for row in rows[1:]:
            variants = [read(directory, n) for n in names if n.startswith(row[0] + "+") and n.endswith(".txt")]
            text = read(directory, row[0] + ".txt")
            out[row[0]] = Template(row[0], row[1], row[3], row[4], text, ruleset_lines(ruleset(text, None)),
                                   variants)
        _TEMPLATES[directory] = out
    return _TEMPLATES[directory]


def read(directory, name):
    with open(os.path.join(directory, name), "rb") as f:
        return f.read()


def ruleset_lines(text):
    return [line for line in text.split(b"\n") if line]


def match_template(body, rules):
    """The id of the first template `body` (the parsed bytes) is, given its
    ruleset text `rules`; None if it is none."""
    lines = ruleset_lines(rules)
    for t in templates().values():
        if t.match == "blank":
            if not body.strip(ASCII_WHITESPACE):
                return t.id
            continue
        if t.match == "block":
            if managed_block(body):
                return t.id
            continue
        if len(lines) != len(t.lines):
            continue
        if all(line_matches(a, b) for a, b in zip(t.lines, lines)) and (
                not t.marker or t.marker.encode() in body):
            return t.id
    return None


def cloudflare_marker(raw):
    """True for a line `# BEGIN Cloudflare Managed content`, False for `#
    END Cloudflare Managed Content` (any case, any whitespace around the
    words), None otherwise: robostats-robots' cloudflare_marker."""
    text = raw.lstrip(ASCII_WHITESPACE)
    if not text.startswith(b"#"):
        return None
    return {b"begin cloudflare managed content": True,
            b"end cloudflare managed content": False}.get(text[1:].strip(ASCII_WHITESPACE).lower())


def managed_block(body):
    """Whether `body` starts with Cloudflare's managed block: its start
    line before any line with a key, then up to its end line a
    `User-agent: *` line first and no key but User-agent, `Allow: /`,
    `Disallow: /` and Content-Signal (robostats' Match::Block)."""
    inside = None                  # then: whether a line with a key was read in the block
    for raw in body_lines(body):
        kv = key_value(raw)
        if kv is None:
            marker = cloudflare_marker(raw) if raw.strip(SPACE).startswith(b"#") else None
            if marker is True and inside is None:
                inside = False
            elif marker is False and inside is not None:
                return inside
            elif marker is not None:
                return False
            continue
        if inside is None or not managed_line(kv, inside):
            return False
        inside = True
    return False


def managed_line(kv, after_first):
    key, value = kv
    name = key_name(key)
    if name == b"user-agent":
        return after_first or value == b"*"
    if name in (b"allow", b"disallow"):
        return after_first and value == b"/"
    return after_first and name == b"content-signal"


def line_matches(template, line):
    """A body's ruleset line against a template's, with at most one
    placeholder."""
    for name, ok in ((b"{PATH}", is_path), (b"{ID}", is_number)):
        at = template.find(name)
        if at >= 0:
            head, tail = template[:at], template[at + len(name):]
            return (len(line) >= len(head) + len(tail) and line.startswith(head) and line.endswith(tail)
                    and ok(line[len(head):len(line) - len(tail)]))
    return template == line


def is_path(s):
    return not s or (s[:1] == b"/" and not any(b in ASCII_WHITESPACE for b in s))


def is_number(s):
    return bool(s) and s.isdigit()
