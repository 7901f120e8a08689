"""The Python package as a user gets it: these tests run in a fresh virtual
environment where the wheel is installed and no Rust toolchain is on PATH
(scripts/test.sh builds the wheel and makes that environment; docs/python.md
says how to run them by hand).

They compare the package with the Rust binary (ROBOSTATS_BIN, the release
build) and with Google's own test suite."""

import base64
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CONFORMANCE = ROOT / "crates" / "robostats-robots" / "tests" / "data" / "conformance"
BIN = Path(os.environ.get("ROBOSTATS_BIN", ROOT / "target" / "release" / "robostats"))
# The sample files the README's first command ingests, as it names them.
SAMPLES = "samples/"

# warc_facts (warcio's reading of WARC files) is shared with tests/python.
sys.path.insert(0, str(ROOT / "tests" / "python"))


def records(name):
    """The records of one of Google's test files (JSON lines)."""
    with open(CONFORMANCE / name, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def field_bytes(record, name):
    """A record's field as bytes: `name` as UTF-8, or `name_b64`."""
    if name + "_b64" in record:
        return base64.b64decode(record[name + "_b64"])
    return record[name].encode("utf-8")


@pytest.fixture(scope="session")
def google_verdicts():
    cases = records("google_robots_test.jsonl")
    assert len(cases) == 145
    return cases


@pytest.fixture(scope="session")
def google_parse_tests():
    cases = records("google_parse_tests.jsonl")
    assert len(cases) == 50
    return cases


def command(*args, cwd=ROOT, timeout=600, env=None):
    """Runs the environment's `robostats` command (found on PATH)."""
    exe = shutil.which("robostats")
    assert exe, "no robostats command on PATH"
    return subprocess.run(
        [exe, *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env
    )


def binary(*args, cwd=ROOT, timeout=600):
    """Runs the Rust binary."""
    assert BIN.exists(), f"{BIN} missing: build it with cargo build --release"
    return subprocess.run(
        [str(BIN), *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=timeout
    )


def _ingest_samples(run, tmp_path_factory, name):
    """The samples ingested by `run` (the package's command or the binary)."""
    out = tmp_path_factory.mktemp(name) / "out"
    proc = run("ingest", "-q", SAMPLES, "--out", out)
    assert proc.returncode == 0, proc.stderr
    return out


@pytest.fixture(scope="session")
def package_out(tmp_path_factory):
    """The samples ingested by the package's command."""
    return _ingest_samples(command, tmp_path_factory, "package")


@pytest.fixture(scope="session")
def binary_out(tmp_path_factory):
    """The samples ingested by the Rust binary."""
    return _ingest_samples(binary, tmp_path_factory, "binary")
