"""The wheel a release publishes and the one `pip install .` builds from
the clone are the same package, and the installed files are the wheel's."""

import sys
import zipfile
from pathlib import Path

import robostats_cc as robostats

from conftest import ROOT

WHEELS = ROOT / "target" / "wheels"


def _files(wheel):
    """The package's files (the .dist-info's RECORD and WHEEL differ: hashes,
    tags) and the contents of its Python files."""
    with zipfile.ZipFile(wheel) as z:
        names = sorted(n for n in z.namelist() if ".dist-info/" not in n)
        return names, {n: z.read(n) for n in names if n.endswith((".py", ".pyi", ".typed"))}


def test_one_abi3_wheel_and_pips_build_of_the_clone_hold_the_same_files():
    (release,) = (WHEELS / "release").glob("robostats_cc-*.whl")
    (pip,) = (WHEELS / "pip").glob("robostats_cc-*.whl")
    assert "-cp39-abi3-" in release.name and "manylinux" in release.name, release.name
    files, python = _files(release)
    assert (files, python) == _files(pip)
    for name in ["robostats_cc/__init__.py", "robostats_cc/_cli.py", "robostats_cc/_robostats.pyi", "robostats_cc/py.typed"]:
        assert name in files
    assert any(n.startswith("robostats_cc/_robostats.") and n.endswith(".so") for n in files), files
    with zipfile.ZipFile(release) as z:
        meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        text = z.read(meta).decode()
    for requirement in ["Requires-Dist: duckdb", "Requires-Dist: pyarrow", "Requires-Python: >=3.9"]:
        assert requirement in text
    entry = next(n for n in zipfile.ZipFile(release).namelist() if n.endswith("entry_points.txt"))
    scripts = zipfile.ZipFile(release).read(entry).decode().replace(" ", "")
    assert "[console_scripts]\nrobostats=robostats_cc._cli:main\n" in scripts


def test_the_package_is_the_installed_wheel():
    assert Path(robostats.__file__).resolve().is_relative_to(Path(sys.prefix).resolve())
    from importlib.metadata import version
    assert robostats.__version__ == version("robostats-cc")
