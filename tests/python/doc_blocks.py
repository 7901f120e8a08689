"""The fenced blocks of a Markdown document, for the tests that run the
documentation's examples (tests/python/test_docs.py, and
tests/package/test_guide.py in the Python package's environment)."""

import re
from pathlib import Path

FENCE = re.compile(r"^```(\w*)\s*$")
NOT_RUN = re.compile(r"^<!-- not run: (.+) -->$")


def blocks(path: Path):
    """(first line number, language, text, reason not run or None) of each
    block; a block is not run when the line before it is
    `<!-- not run: REASON -->`."""
    lines = path.read_text().splitlines()
    out, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        start, lang = i, m.group(1)
        j = i + 1
        while not lines[j].startswith("```"):
            j += 1
        skip = NOT_RUN.match(lines[start - 1]) if start > 0 else None
        out.append((start + 1, lang, "\n".join(lines[start + 1 : j]) + "\n", skip and skip.group(1)))
        i = j + 1
    return out
