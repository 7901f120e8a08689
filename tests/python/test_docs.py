"""Every command the documentation shows runs as written.

The ```sh and ```python blocks of README.md, queries/README.md and docs/*.md
run in document order, in a fresh working directory that looks like a clone
(its top-level entries link to the repository's), with `robostats` installed
by the README's own `cargo install` command into a private root. A ```text
block's `$ command` lines run too, and the lines shown after them must be in
the output (`...` stands for lines left out; whitespace is compared loosely,
since a shown line may be wrapped).

A block that cannot run here (the network, a real cluster) is marked with
`<!-- not run: REASON -->` on the line before it. Paths that stand for a
user's data are mapped to fixtures: `/data/cc/` is a local mirror of the
files that `robotstxt.paths.gz` lists, and `crawl/` holds copies of the
samples.
"""

import gzip
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

DOCS = ["README.md", "queries/README.md"] + sorted(
    str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md")
)

# Lines of a block that are not run, and why.
NOT_RUN_LINES = {
    "scripts/test.sh": "the test command itself: it runs this test",
}

FENCE = re.compile(r"^```(\w*)\s*$")
NOT_RUN = re.compile(r"^<!-- not run: (.+) -->$")


def blocks(doc):
    """(first line number, language, text, reason not run or None) of each block."""
    lines = (ROOT / doc).read_text().splitlines()
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


def test_every_block_is_found_and_every_skip_says_why():
    found = {doc: blocks(doc) for doc in DOCS}
    assert sum(len(b) for b in found.values()) >= 20
    runnable = [b for bs in found.values() for b in bs if b[1] in ("sh", "python") and not b[3]]
    assert len(runnable) >= 8


@pytest.fixture(scope="module")
def clone(tmp_path_factory):
    """A working directory like a fresh clone, and the fixtures the docs name."""
    work = tmp_path_factory.mktemp("clone")
    for entry in ROOT.iterdir():
        if entry.name not in ("target", "out", ".git", ".venv") and not entry.name.startswith("."):
            (work / entry.name).symlink_to(entry)
    samples = sorted((ROOT / "samples").glob("*.warc.gz"))
    crawl = work / "crawl"
    crawl.mkdir()
    mirror = tmp_path_factory.mktemp("mirror")
    listed = []
    for i, sample in enumerate(samples):
        shutil.copy(sample, crawl / sample.name)
        name = f"crawl-data/CC-MAIN-2025-47/segments/{i}/robotstxt/{sample.name}"
        (mirror / name).parent.mkdir(parents=True)
        shutil.copy(sample, mirror / name)
        listed.append(name)
    with gzip.open(work / "robotstxt.paths.gz", "wt") as f:
        f.write("\n".join(listed) + "\n")
    env = dict(os.environ)
    env["CARGO_TARGET_DIR"] = str(ROOT / "target")  # the build is reused
    env["CARGO_INSTALL_ROOT"] = str(work / ".cargo-root")  # not ~/.cargo
    env["PATH"] = os.pathsep.join([str(work / ".cargo-root" / "bin"), str(Path(sys.executable).parent), env["PATH"]])
    for var in ("SLURM_ARRAY_TASK_ID", "AWS_BATCH_JOB_ARRAY_INDEX", "JOB_COMPLETION_INDEX"):
        env.pop(var, None)
    return work, env, str(mirror) + "/"


def run_block(clone, lang, text):
    work, env, mirror = clone
    text = text.replace("/data/cc/", mirror)
    if lang == "python":
        cmd = [sys.executable, "-"]
    else:
        kept = []
        for line in text.splitlines():
            if line.strip() in NOT_RUN_LINES:
                line = f"# not run: {NOT_RUN_LINES[line.strip()]}"
            kept.append(line)
        text = "\n".join(kept) + "\n"
        cmd = ["bash", "-euo", "pipefail", "-s"]
    return subprocess.run(cmd, input=text, cwd=work, env=env, capture_output=True, text=True, timeout=600)


def loose(text):
    return " ".join(text.split())


def test_every_documented_command_runs_as_written(clone):
    ran = []
    for doc in DOCS:
        for line, lang, text, not_run in blocks(doc):
            where = f"{doc}:{line}"
            if not_run:
                continue
            if lang in ("sh", "python"):
                proc = run_block(clone, lang, text)
                assert proc.returncode == 0, f"{where} failed:\n{text}\n{proc.stdout}\n{proc.stderr}"
                ran.append(where)
            elif lang == "text" and text.startswith("$ "):
                command, *shown = text.splitlines()
                proc = run_block(clone, "sh", command[2:] + "\n")
                assert proc.returncode == 0, f"{where} failed:\n{command}\n{proc.stderr}"
                actual = loose(proc.stdout)
                for expected in shown:
                    if expected.strip() and expected.strip() != "...":
                        assert loose(expected) in actual, f"{where}: {expected!r} not in the output of {command}:\n{proc.stdout}"
                ran.append(where)
    # The README's two set-up commands' first, its install and its query ran.
    assert any(w.startswith("README.md") for w in ran) and len(ran) >= 10, ran
    work = clone[0]
    assert (work / ".cargo-root" / "bin" / "robostats").exists()
    assert (work / "out" / "_manifest").is_dir()
