#!/usr/bin/env bash
# What the test command (scripts/test.sh) needs beyond Rust, installed on a
# fresh machine; nothing is done for what is there already. scripts/test.sh
# runs this in the background while clippy and the release build take the
# cores (downloads and installs mostly wait on the network and the disk).
#
# - Debian's packages, as root with apt-get: strace (tests/faults.rs kills
#   compact with its fault injection), chromium and a font
#   (tests/python/test_report.py renders the report's page), slurm-wlm and
#   munge (tests/python/test_slurm.py starts a private single-node Slurm;
#   not with ROBOSTATS_NO_SLURM=1). Elsewhere the tests that need them say
#   what is missing, or skip where their variable says so.
# - The Python packages of tests/python, into the virtual environment
#   target/python-venv (kept between runs), else, where venv is missing,
#   into the user's Python.
# - A new virtual environment target/package-venv with the test tools of
#   tests/package; the wheel is installed into it when it is built.
# - A virtual environment target/httpfs-venv with DuckDB 1.5.5 and its
#   httpfs extension as PyPI packages it (no download at run time; the
#   DuckDB 2 of target/python-venv has no such package), and the wheel's
#   other dependencies, for the tests that read a data set straight from
#   S3 (tests/python/test_s3_out.py and test_s3_report.py; with the wheel,
#   which scripts/test.sh installs there, tests/package/test_s3_connect.py).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p target

if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    lean=()
    command -v strace >/dev/null 2>&1 || lean+=(strace)
    command -v chromium >/dev/null 2>&1 || lean+=(chromium fonts-dejavu-core)
    slurm=()
    if [ -z "${ROBOSTATS_NO_SLURM:-}" ] && ! { command -v slurmctld && command -v munged; } >/dev/null 2>&1; then
        slurm=(slurm-wlm munge)
    fi
    if [ ${#lean[@]} -gt 0 ] || [ ${#slurm[@]} -gt 0 ]; then
        echo "installing Debian's ${lean[*]} ${slurm[*]}"
        apt-get update -qq
        [ ${#lean[@]} -eq 0 ] ||
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${lean[@]}" >/dev/null
        # (as scripts/slurm/local-cluster.sh installs them)
        [ ${#slurm[@]} -eq 0 ] || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${slurm[@]}" >/dev/null
    fi
fi

py=python3
if [ -x target/python-venv/bin/python3 ] || python3 -m venv target/python-venv >/dev/null 2>&1; then
    py=target/python-venv/bin/python3
elif ! python3 -m pip --version >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && apt-get install -y -qq python3-pip >/dev/null
fi
# The packages install with uv (PyPI's `uv`, put into target/python-venv
# first) where it installs, else with pip: for the three environments, uv
# takes 9 s of CPU, pip 120 s (its resolver, and byte-compiling every
# module of pandas, pyarrow, polars... where uv leaves that to the first
# import of each).
uv=""
if [ "$py" != python3 ] && "$py" -m pip install --quiet --disable-pip-version-check "uv==0.*" >/dev/null 2>&1; then
    uv=$(dirname "$py")/uv
fi
# pip_install PYTHON PACKAGE...
pip_install() {
    local python=$1
    shift
    [ -n "$uv" ] && "$uv" pip install --quiet --python "$python" "$@" && return
    PIP_BREAK_SYSTEM_PACKAGES=1 "$python" -m pip install --quiet --disable-pip-version-check "$@"
}
echo "installing the Python packages the tests need into $([ "$py" = python3 ] && echo "the user's Python" || echo target/python-venv/)"
pip_install "$py" \
    "duckdb==2.*" "duckdb-cli==1.*" "pyarrow==23.*" "pandas>=2" "pytz>=2024" "warcio==1.*" "xxhash>=3" \
    "blake3==1.*" "pytest==8.*" "pytest-xdist>=3.6,<4" "moto[server]==5.*" "maturin>=1.9,<2" \
    "kubernetes-validate==1.*"

if ! target/httpfs-venv/bin/python -c "import duckdb_extension_httpfs, numpy, pyarrow" >/dev/null 2>&1; then
    echo "installing DuckDB 1.5.5 and its httpfs extension into target/httpfs-venv/"
    { { [ -x target/httpfs-venv/bin/python ] || python3 -m venv target/httpfs-venv >/dev/null 2>&1; } &&
        pip_install target/httpfs-venv/bin/python \
            "duckdb==1.5.5" "duckdb-extension-httpfs==1.5.5" "numpy>=1.21" "pyarrow>=14"; } ||
        rm -rf target/httpfs-venv
fi

rm -rf target/package-venv
if ! python3 -m venv target/package-venv >/dev/null 2>&1; then
    PIP_BREAK_SYSTEM_PACKAGES=1 "$py" -m pip install --quiet --disable-pip-version-check "virtualenv>=20"
    "$py" -m virtualenv -q target/package-venv
fi
# With the wheel's own dependencies, as pyproject.toml names them (read
# with Python 3.11's tomllib; older Pythons leave them to the wheel's
# install), so that installing the wheel later waits on no download.
mapfile -t wheel_deps < <(target/package-venv/bin/python -c '
import tomllib
print("\n".join(tomllib.load(open("pyproject.toml", "rb"))["project"]["dependencies"]))
' 2>/dev/null || true)
echo "installing the test tools of tests/package into target/package-venv/"
pip_install target/package-venv/bin/python \
    "pytest==8.*" "pytest-xdist==3.*" "hypothesis==6.*" "pandas>=2" "polars>=1" "warcio==1.*" "mypy>=1.10" \
    "duckdb-cli==1.*" "${wheel_deps[@]}"
