"""The package's `robostats` command is the Rust binary's command: the same
output, exit statuses and rows, and `report` works with nothing but the
environment on PATH."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import robostats_cc as robostats

from conftest import ROOT, SAMPLES, binary, command


def test_no_rust_toolchain_on_path_and_the_command_is_the_environments():
    for tool in ("cargo", "rustc", "rustup"):
        # None, or the stub scripts/test.sh puts in front of a system
        # directory that holds a Rust from the distribution: it fails.
        found = shutil.which(tool)
        assert found is None or Path(found).parent.name == "no-rust", f"{tool} is on PATH at {found}"
        if found:
            assert subprocess.run([found, "--version"], capture_output=True).returncode != 0
    exe = Path(shutil.which("robostats"))
    assert exe.parent == Path(sys.executable).parent, exe
    assert Path(robostats.__file__).resolve().is_relative_to(Path(sys.prefix).resolve())


def test_printing_commands_and_their_exit_statuses_equal_the_binarys():
    # (arguments, exit status) from the repository root.
    cases = [
        (["--version"], 0),
        (["--help"], 0),
        (["ingest", "--help"], 0),
        (["schema"], 0),
        (["schema", "--markdown"], 0),
        (["schema", "--views"], 0),
        (["lint", "samples/robots.txt"], 0),
        (["lint", "--json", "samples/robots.txt"], 0),
        (["lint", "--strict", "samples/robots.txt"], 1),
        (["check", "samples/robots.txt", "-a", "GPTBot", "-a", "Googlebot", "--explain",
          "https://example.com/", "/private/x", "/wp-admin/admin-ajax.php"], 0),
        (["no-such-command"], 2),
        (["ingest", "--agent", "GPTBot", "samples/"], 2),
        (["lint", "no/such/file"], 2),
    ]
    for args, status in cases:
        ours, theirs = command(*args), binary(*args)
        assert (ours.returncode, ours.stdout, ours.stderr) == (theirs.returncode, theirs.stdout, theirs.stderr), args
        assert ours.returncode == status, (args, ours.stderr)


def test_python_dash_m_runs_the_command():
    proc = subprocess.run([sys.executable, "-m", "robostats_cc", "--version"], capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout == f"robostats {robostats.__version__}\n"


def test_ingest_writes_the_rows_of_the_binary(package_out, binary_out):
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "same_rows.py"), str(binary_out), str(package_out)],
        capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_every_view_has_the_rows_of_the_binarys(package_out, binary_out):
    ours, theirs = robostats.connect(package_out), robostats.connect(binary_out)
    views = [r[0] for r in ours.sql(
        "SELECT view_name FROM duckdb_views() WHERE NOT internal ORDER BY 1").fetchall()]
    assert len(views) >= 25, views
    for view in views:
        # The body tables' writer is random (which of two inputs stored a body first).
        cols = [c for c in ours.table(view).columns if c != "writer"]
        select = ", ".join(f'"{c}"' for c in cols)
        a = _arrow(ours.sql(f"SELECT {select} FROM {view}"))
        b = _arrow(theirs.sql(f"SELECT {select} FROM {view}"))
        assert a.num_rows == b.num_rows, view
        assert a.sort_by([(c, "ascending") for c in cols if _sortable(a, c)]).equals(
            b.sort_by([(c, "ascending") for c in cols if _sortable(b, c)])
        ) or _same_multiset(a, b), view


def _arrow(relation):
    """A relation's rows as a pyarrow Table (DuckDB 2 gives a reader)."""
    result = relation.arrow()
    return result.read_all() if hasattr(result, "read_all") else result


def _sortable(table, column):
    import pyarrow as pa
    t = table.schema.field(column).type
    return not (pa.types.is_list(t) or pa.types.is_struct(t) or pa.types.is_map(t) or pa.types.is_large_list(t))


def _same_multiset(a, b):
    from collections import Counter
    rows = lambda t: Counter(repr(sorted(r.items())) for r in t.to_pylist())
    return rows(a) == rows(b)


def test_compact_keeps_the_rows(package_out, binary_out, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(package_out, out, symlinks=True)
    proc = command("compact", out)
    assert proc.returncode == 0, proc.stderr
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "same_rows.py"), str(binary_out), str(out)],
        capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_report_needs_nothing_but_the_environment(package_out, tmp_path):
    # PATH holds the environment's bin and the system's; no ROBOSTATS_PYTHON,
    # no activated environment: the command finds its own DuckDB.
    env = {
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), "/usr/bin", "/bin"]),
        "HOME": str(tmp_path),
        "LANG": "C.UTF-8",
    }
    html = tmp_path / "report.html"
    proc = command("report", package_out, "-o", html, "--figures", tmp_path / "figures", env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert f"via {sys.executable}" in proc.stderr, proc.stderr
    page = html.read_text()
    assert page.startswith("<!DOCTYPE html>") and "<svg" in page
    assert len(list((tmp_path / "figures").glob("*.svg"))) >= 5


def test_report_of_a_directory_that_is_no_data_set_fails_as_the_binary_does(tmp_path):
    ours = command("report", tmp_path, "-o", tmp_path / "r.html")
    theirs = binary("report", tmp_path, "-o", tmp_path / "r.html")
    assert (ours.returncode, ours.stderr) == (theirs.returncode, theirs.stderr) == (2, theirs.stderr)
    assert "is not an ingest output directory" in ours.stderr
