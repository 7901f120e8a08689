"""What every robots.txt body builder shares: the Payload it returns, the
Ctx it is given, and the rules and groups many bodies are made of."""

from __future__ import annotations

from dataclasses import dataclass

from ..util import path_word
from ..vocab import AI_CORE, AI_MORE, FILE_EXTS, QUERY_KEYS


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
    """A payload of robots.txt text lines."""
    return Payload(lines=lines, **kw)


def ai_tokens(rng, lo, hi, pool=None):
    pool = pool or (AI_CORE + AI_MORE)
    return rng.sample(pool, rng.randint(lo, min(hi, len(pool))))


def star_group(c, max_rules=10):
    """A `User-agent: *` group of up to `max_rules` random rules."""
    g = ["User-agent: *"] + rules(c.rng, c.rng.randint(0, max_rules))
    if len(g) == 1:
        g.append("Disallow:")
    return g
