#!/usr/bin/env bash
# The project's test command (the README's second set-up command).
# It installs what the tests need on a fresh machine, then runs them all.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each step's wall time, printed at the end (and on failure): where a
# run's minutes go.
step_name="" step_started=$SECONDS step_times=()
step() {
    [ -n "$step_name" ] && step_times+=("$(printf '%5d s  %s' $((SECONDS - step_started)) "$step_name")")
    step_name=$1 step_started=$SECONDS
    echo "== $1"
}
times() {
    [ -n "${fuzz_build:-}" ] && kill "$fuzz_build" 2>/dev/null
    step ""
    echo "== time per step"
    printf '%s\n' "${step_times[@]}"
    printf '%5d s  total\n' "$SECONDS"
}
trap times EXIT

step "format and lints"
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings

# The release binary first: the Rust integration tests run it (ROBOSTATS_BIN)
# as the Python tests and the README's commands do.
step "release build"
cargo build --release --locked

# The fuzz targets (a nightly build with sanitizers, and cargo-fuzz) build
# in the background at the lowest priority while the tests run, on the
# time they leave a core idle; the fuzz step at the end waits for them.
fuzz_build=""
if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    mkdir -p target
    nice -n 19 scripts/fuzz.sh --build >target/fuzz-build.log 2>&1 &
    fuzz_build=$!
fi

step "tests (unit, integration, property, CLI)"
# tests/faults.rs kills compact at each of its steps with strace's fault
# injection (ROBOSTATS_NO_STRACE=1 skips those tests).
if ! command -v strace >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing Debian's strace (for tests/faults.rs)"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq strace >/dev/null
fi
ROBOSTATS_BIN="$PWD/target/release/robostats" cargo test --workspace --locked

# ---- Python: the tables and queries/ through DuckDB and pyarrow ----------
# tests/python (pytest) over the release binary's output. The packages go to a
# virtual environment under target/ (kept between runs), else, where venv is
# missing, to the user's Python. test_slurm.py starts a private single-node
# Slurm with scripts/slurm/local-cluster.sh, which installs Debian's slurm-wlm
# and munge when they are missing (ROBOSTATS_NO_SLURM=1 skips that test);
# test_report.py needs Debian's chromium, installed here when missing.
step "python: tables and queries (tests/python)"
py=python3
if [ -x target/python-venv/bin/python3 ] || python3 -m venv target/python-venv >/dev/null 2>&1; then
    py=target/python-venv/bin/python3
elif ! python3 -m pip --version >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && apt-get install -y -qq python3-pip >/dev/null
fi
echo "installing the Python packages the tests need into $([ "$py" = python3 ] && echo "the user's Python" || echo target/python-venv/)"
PIP_BREAK_SYSTEM_PACKAGES=1 "$py" -m pip install --quiet --disable-pip-version-check \
    "duckdb==2.*" "duckdb-cli==1.*" "pyarrow==23.*" "pandas>=2" "pytz>=2024" "warcio==1.*" "xxhash>=3" "blake3==1.*" "pytest==8.*" "moto[server]==5.*" "maturin>=1.9,<2"
# test_report.py renders `robostats report`'s page in headless Chromium.
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing Debian's chromium and a font (for tests/python/test_report.py)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
fi
PATH="$(dirname "$py"):$PATH" "$py" -m pytest -q tests/python
# ---- end of the Python block ---------------------------------------------

# ---- the Python package: its wheel, in a fresh environment without Rust ----
# The wheel a release publishes (maturin build; the release build above is
# reused, so this compiles only the Python module), and the one `pip install .`
# makes from the clone (the same files); then a new virtual environment
# with the first and the test tools, and tests/package run from it with no
# Rust toolchain on PATH.
step "python package: the wheel, in a fresh environment with no Rust on PATH (tests/package)"
rm -rf target/wheels
"$py" -m maturin build --release --locked --out target/wheels/release
PATH="$(dirname "$py"):$PATH" "$py" -m pip wheel --quiet --disable-pip-version-check --no-deps \
    --no-build-isolation -w target/wheels/pip .
rm -rf target/package-venv
if ! python3 -m venv target/package-venv >/dev/null 2>&1; then
    PIP_BREAK_SYSTEM_PACKAGES=1 "$py" -m pip install --quiet --disable-pip-version-check "virtualenv>=20"
    "$py" -m virtualenv -q target/package-venv
fi
target/package-venv/bin/python -m pip install --quiet --disable-pip-version-check target/wheels/release/robostats-*.whl \
    "pytest==8.*" "hypothesis==6.*" "pandas>=2" "polars>=1" "warcio==1.*" "mypy>=1.10"
# PATH without Rust: the directories that hold cargo, rustc or rustup are
# left out (rustup's), but the system's own, where stubs that fail stand
# in front of a Rust from the distribution.
mkdir -p target/no-rust
for tool in cargo rustc rustup; do
    printf '#!/bin/sh\necho "%s: not on PATH here (the Python package is tested without Rust)" >&2\nexit 127\n' \
        "$tool" > "target/no-rust/$tool"
    chmod +x "target/no-rust/$tool"
done
no_rust=$(printf '%s' "$PATH" | tr ':' '\n' | while read -r dir; do
    case "$dir" in /bin | /usr/bin | /usr/local/bin | /sbin | /usr/sbin) printf '%s\n' "$dir"; continue ;; esac
    [ -x "$dir/cargo" ] || [ -x "$dir/rustc" ] || [ -x "$dir/rustup" ] || printf '%s\n' "$dir"
done | paste -sd: -)
PATH="$PWD/target/package-venv/bin:$PWD/target/no-rust:$no_rust" ROBOSTATS_BIN="$PWD/target/release/robostats" \
    target/package-venv/bin/python -m pytest -q tests/package

# The benchmarks and examples are type-checked by clippy --all-targets above;
# scripts/bench.sh builds and runs them.

step "fuzz smoke run (the long runs: scripts/fuzz.sh SECONDS)"
if [ -n "$fuzz_build" ]; then
    if ! wait "$fuzz_build"; then
        cat target/fuzz-build.log >&2
        echo "building the fuzz targets failed (target/fuzz-build.log)" >&2
        exit 1
    fi
    fuzz_build=""
    scripts/fuzz.sh 10
else
    echo "no nightly toolchain: fuzz smoke run skipped"
fi
