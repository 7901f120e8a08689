"""The text quirks of a robots.txt body: key case, a tab after the colon,
leading blank lines, no final newline, line ends and a BOM, drawn (or
forced) when the body's lines become bytes."""

import re

from ..config import (KEY_CASE_SHARES, LEADING_BLANK_LINES, LINE_END_SHARES, NO_FINAL_NEWLINE,
                      TAB_AFTER_COLON, UTF8_BOM)
from ..util import pick

KEY_RE = re.compile(r"^(\s*)(user-agent|disallow|allow|sitemap)", re.I | re.M)


def render_text(rng, payload, force, facts):
    """The bytes of a text payload, with its line-end, case and BOM quirks."""
    lines = payload.lines
    quirky = payload.quirks
    case = force.get("key_case") or (pick(rng, KEY_CASE_SHARES) if quirky else "as_written")
    body = "\n".join(lines)
    if case == "lower":
        body = KEY_RE.sub(lambda m: m.group(1) + m.group(2).lower(), body)
    elif case == "upper":
        body = KEY_RE.sub(lambda m: m.group(1) + m.group(2).upper(), body)
    if force.get("tab_after_colon") or (quirky and rng.random() < TAB_AFTER_COLON):
        body = body.replace(": ", ":\t")
        facts["quirk"]["tab_after_colon"] += 1
    if force.get("leading_blank") or (quirky and rng.random() < LEADING_BLANK_LINES):
        body = "\n\n" + body
        facts["quirk"]["leading_blank_lines"] += 1
    final_newline = not (force.get("no_final_newline") or (quirky and rng.random() < NO_FINAL_NEWLINE))
    if final_newline:
        body += "\n"
    else:
        facts["quirk"]["no_final_newline"] += 1
    line_end = force.get("line_end") or (pick(rng, LINE_END_SHARES) if quirky else "lf")
    if line_end == "crlf":
        body = body.replace("\n", "\r\n")
    elif line_end == "cr":
        body = body.replace("\n", "\r")
    facts["line_end"][line_end] += 1
    if case != "as_written":
        facts["quirk"]["keys_" + case] += 1
    bom = payload.bom
    if not bom and payload.encoding == "utf-8" and (force.get("bom") or (quirky and rng.random() < UTF8_BOM)):
        bom = b"\xef\xbb\xbf"
    return bom + body.encode(payload.encoding)
