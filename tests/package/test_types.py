"""The type stub is the module: mypy's stubtest compares them, and a
program using the package type-checks under mypy --strict."""

import subprocess
import sys

import pytest

EXAMPLE = '''
import duckdb
import pyarrow as pa
import robostats_cc as robostats

robots = robostats.RobotsTxt(b"User-agent: GPTBot\\nDisallow: /\\n")
allowed: bool = robots.can_fetch("https://example.com/", "GPTBot")
why: robostats.Explanation = robots.explain("https://example.com/", "GPTBot")
line: "int | None" = why.line
train: "str | None" = robots.preferences("GPTBot").usage_train_ai
kinds: list[str] = [f.kind for f in robots.lint()]
digest: str = robots.body_digest
verdicts: pa.BooleanArray = robostats.can_fetch_many([b""], ["GPTBot"], ["/"])
con = robostats.register(duckdb.connect())
native: bool = robostats.native_duckdb(con)
'''


def _mypy(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True, timeout=600, cwd=cwd)


def test_the_stub_matches_the_compiled_module():
    pytest.importorskip("mypy")
    proc = _mypy("mypy.stubtest", "robostats_cc._robostats")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_a_program_using_the_package_type_checks(tmp_path):
    pytest.importorskip("mypy")
    (tmp_path / "example.py").write_text(EXAMPLE)
    proc = _mypy("mypy", "--strict", "--ignore-missing-imports", "--python-version", "3.11", "example.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
