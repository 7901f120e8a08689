"""`robostats report` writes only valid text: a user-agent holding
characters XML forbids leaves every SVG file parsing, and the page's
exact values intact."""

import io
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from conftest import BIN, ROOT, ingest
from test_report import Tables, report


def tables(html):
    """The page's tables: {query: (columns, rows as data-v values)}."""
    parsed = Tables()
    parsed.feed(Path(html).read_text())
    return {q: (c, r) for q, c, r in parsed.tables}


def run_report(outs, html, *extra, env=None, timeout=600):
    return subprocess.run([str(BIN), "report", *map(str, outs), "-o", str(html), *extra],
                          cwd=ROOT, capture_output=True, text=True, timeout=timeout,
                          env=env or {**os.environ, "ROBOSTATS_PYTHON": sys.executable})


# Characters XML 1.0 forbids (and HTML calls parse errors) in user-agent
# lines; each value starts with one, so that it is its own agent_token.
FORBIDDEN = ["\uffffbot", "\ufffe\x01bot\x7f", "\ufdd0\x1fbot\U0001fffe", "\x0ebot\x85"]


def test_svg_and_html_are_valid_with_forbidden_characters(tmp_path):
    warc = tmp_path / "odd-agents.warc.gz"
    with open(warc, "wb") as f:
        writer = WARCWriter(f, gzip=True)
        for i in range(6):
            body = "".join(f"User-agent: {ua}\nDisallow: /\n\n" for ua in FORBIDDEN).encode()
            headers = StatusAndHeaders("200 OK", [("Content-Type", "text/plain")], protocol="HTTP/1.1")
            writer.write_record(writer.create_warc_record(
                f"https://host{i}.example/robots.txt", "response", payload=io.BytesIO(body),
                http_headers=headers))
    out = tmp_path / "out"
    ingest([str(warc)], out)
    report([out], tmp_path / "r.html", "--figures", tmp_path / "figures")
    names = (tmp_path / "figures").glob("07-names*.svg")
    shown = "".join(p.read_text() for p in names)
    assert shown.count("\ufffd") >= len(FORBIDDEN), "the agents are drawn"
    for svg in (tmp_path / "figures").iterdir():
        ET.parse(svg)  # raises on a character XML forbids
    html = (tmp_path / "r.html").read_text()
    bad = sorted({hex(ord(c)) for c in html if (ord(c) < 0x20 and c not in "\t\n\r") or 0x7f <= ord(c) <= 0x9f
                  or 0xfdd0 <= ord(c) <= 0xfdef or ord(c) & 0xfffe == 0xfffe})
    assert not bad, bad
    # The exact values are still in data-v, as JSON escapes.
    agents = {row[0] for row in tables(tmp_path / "r.html")["top_user_agents"][1]}
    assert {ua.lower() for ua in FORBIDDEN} <= agents, agents
