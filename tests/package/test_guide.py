"""Every example of docs/python.md runs as written, in the package's
environment: its ```sh and ```python blocks in order, in a directory that
holds the samples (a block marked `<!-- not run: REASON -->` is skipped),
and the `# comment` after a `print(...)` on its line, or right after a
loop that prints, is a line it prints."""

import re
import subprocess
import sys

import doc_blocks
from conftest import ROOT

GUIDE = ROOT / "docs" / "python.md"


def blocks():
    return [(line, lang, text, reason is not None) for line, lang, text, reason in doc_blocks.blocks(GUIDE)]


def test_every_example_runs_and_prints_what_it_says(tmp_path):
    (tmp_path / "samples").symlink_to(ROOT / "samples")
    found = blocks()
    python = [b for b in found if b[1] == "python" and not b[3]]
    sh = [b for b in found if b[1] == "sh" and not b[3]]
    assert len(python) >= 8 and sh, found
    # The Python blocks run as one program (later ones use earlier names),
    # after the shell blocks (which make the data set they read).
    for line, _, text, _ in sh:
        proc = subprocess.run(["bash", "-euo", "pipefail", "-c", text], cwd=tmp_path, capture_output=True,
                              text=True, timeout=600)
        assert proc.returncode == 0, f"docs/python.md:{line}: {proc.stderr}"
    program, expected = [], []
    for _, _, text, _ in python:
        after_loop = False
        for source in text.splitlines():
            m = re.match(r"^print\((.*)\)\s+# (.+)$", source)
            if m:
                expected.append(m.group(2).strip())
            # The lines a loop prints, as comments right after it.
            after_loop = after_loop or source.startswith("    print(")
            if after_loop and source.startswith("# "):
                expected.append(source[2:].strip())
            elif not source.startswith("    "):
                after_loop = after_loop and source.startswith("# ")
            program.append(source)
    proc = subprocess.run([sys.executable, "-c", "\n".join(program)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    printed = [line.strip() for line in proc.stdout.splitlines()]
    assert len(expected) >= 5
    for want in expected:
        assert want in printed, (want, proc.stdout)
