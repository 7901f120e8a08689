"""--copies: the platform default robots.txt bodies of
crates/robostats-rows/data/templates/ (one file ID.txt per default, exact
bytes, and index.tsv: id, platform, versions, match, marker, confidence,
source, licence), read at run time, filled in for a host, and the matcher
that says which default a body is (robostats' Template::of, in
crates/robostats-rows/src/classify/copies.rs).

In a template's text `https://example.com` stands for the capture's
origin, `{PATH}` for a WordPress install path ("" or "/blog") and `{ID}`
for a Shopify shop's number. A template matches a body by its ruleset
(ruleset.py): "exact", the same lines; "prefix", the body's ruleset starts
with the template's (cloudflare-managed, followed by the site's own
lines); "blank", a body of whitespace only. A template line with `{PATH}`
matches an install path there (empty, or "/" and more without
whitespace), one with `{ID}` a number. A template with a marker also needs
the marker's text somewhere in the body. The first template of index.tsv
that matches is the body's."""

import os
from dataclasses import dataclass

from .ruleset import ruleset

TEMPLATE_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                            "crates", "robostats-rows", "data", "templates")
INDEX_COLUMNS = ["id", "platform", "versions", "match", "marker", "confidence", "source", "licence"]
ORIGIN = "https://example.com"
ASCII_WHITESPACE = b" \t\n\x0c\r"        # Rust's u8::is_ascii_whitespace


@dataclass
class Template:
    id: str
    platform: str
    match: str              # exact | prefix | blank
    marker: str
    text: bytes             # the file's bytes, placeholders and all
    lines: list             # its ruleset's lines (bytes), placeholders and all

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
        for row in rows[1:]:
            with open(os.path.join(directory, row[0] + ".txt"), "rb") as f:
                text = f.read()
            out[row[0]] = Template(row[0], row[1], row[3], row[4], text, ruleset_lines(ruleset(text, None)))
        _TEMPLATES[directory] = out
    return _TEMPLATES[directory]


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
        if len(lines) < len(t.lines) or (t.match == "exact" and len(lines) != len(t.lines)):
            continue
        if all(line_matches(a, b) for a, b in zip(t.lines, lines)) and (
                not t.marker or t.marker.encode() in body):
            return t.id
    return None


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
