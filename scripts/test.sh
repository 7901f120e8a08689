#!/usr/bin/env bash
# The project's test command (the README's second set-up command).
# It installs what the tests need on a fresh machine, then runs them all.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each step's wall time and CPU time (its processes', user and system;
# a background job's counts where it is waited for), printed at the end
# (and on failure): where a run's minutes go.
step_name="" step_started=$SECONDS step_cpu=0 step_times=() times_file=$PWD/target/.times
# cpu sets cpu_now: the seconds of CPU of this script's children so far.
# (`times` in this shell: a subshell, such as $(...), has no children.)
cpu() {
    times >"$times_file"
    cpu_now=$(tail -1 "$times_file" |
        awk '{ n = 0; for (i = 1; i <= 2; i++) { split($i, t, "m"); n += t[1] * 60 + t[2] } printf "%d", n }')
}
step() {
    cpu
    [ -n "$step_name" ] &&
        step_times+=("$(printf '%5d s %6d s  %s' $((SECONDS - step_started)) $((cpu_now - step_cpu)) "$step_name")")
    step_name=$1 step_started=$SECONDS step_cpu=$cpu_now
    echo "== $1"
}
print_times() {
    for job in "${deps:-}" "${fuzz_build:-}" "${moto:-}"; do
        [ -z "$job" ] || kill "$job" 2>/dev/null || true
    done
    step ""
    echo "== time per step (wall, CPU)"
    printf '%s\n' "${step_times[@]}"
    printf '%5d s %6d s  total\n' "$SECONDS" "$cpu_now"
}
trap print_times EXIT

# What the tests need beyond Rust (Debian's and Python's packages) installs
# in the background meanwhile, at a low priority (it mostly waits on the
# network and the disk; the builds keep the cores): scripts/test-deps.sh.
mkdir -p target
nice -n 10 scripts/test-deps.sh >target/test-deps.log 2>&1 &
deps=$!
deps_ready() {
    [ -z "$deps" ] && return
    if ! wait "$deps"; then
        cat target/test-deps.log >&2
        echo "installing what the tests need failed (target/test-deps.log)" >&2
        exit 1
    fi
    cat target/test-deps.log
    deps=""
}

step "format"
cargo fmt --all -- --check

# The fuzz targets (a nightly build with sanitizers, in fuzz/target) build
# in the background at the lowest priority from here on, on the time the
# other steps leave a core idle; the fuzz step at the end waits for them.
fuzz_build=""
if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    nice -n 19 scripts/fuzz.sh --build >target/fuzz-build.log 2>&1 &
    fuzz_build=$!
fi

# The lints, as a contributor runs them: clippy checks the whole tree (no
# code generated; the size rule of clippy.toml included), the Python
# module's crate too.
step "lints (cargo clippy)"
cargo clippy --workspace --all-targets --locked -- -D warnings

# The binary users build (`cargo build --release`, what the README's first
# command runs), then the tests' build in the same profile: the tests reuse
# every crate the binary's build compiled (tests/crates.rs keeps the
# dev-dependencies' features the same). The Rust integration tests run that
# binary (ROBOSTATS_BIN), as the Python tests and the README's commands do.
# The benchmarks (criterion) are linted above and built by scripts/bench.sh,
# not here: no test runs them. The Python module's crate (its one target,
# the extension) is left to maturin, below, which compiles it with pyo3's
# extension-module feature; built here, pyo3 would compile twice.
step "release build (cargo build --release) and the tests' build"
cargo build --release --locked
cargo test --workspace --release --locked --no-run

step "tests (unit, integration, property, CLI)"
deps_ready
# tests/faults.rs kills compact at each of its steps with strace's fault
# injection (ROBOSTATS_NO_STRACE=1 skips those tests).
ROBOSTATS_BIN="$PWD/target/release/robostats" cargo test --workspace --release --locked
# The data-set backends' contract (src/output/backend) on S3 as well: moto's
# S3 server on a free local port, a bucket in it, test credentials for this
# one test (the other tests run without any). $py: the Python
# scripts/test-deps.sh installed the test tools into, for this and the
# Python steps below.
py=target/python-venv/bin/python3
[ -x "$py" ] || py=python3
moto_port=$("$py" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# (moto's server handling one request at a time, as atomic as S3's
# conditional writes: the contract test races writers on one key.)
"$py" tests/s3_atomic_server.py "$moto_port" >target/moto-contract.log 2>&1 &
moto=$!
"$py" - "$moto_port" <<'PY'
import sys, time, urllib.request
url = f"http://127.0.0.1:{sys.argv[1]}/"
for _ in range(100):  # at most about 10 s
    try:
        urllib.request.urlopen(url, timeout=2)
        break
    except OSError:
        time.sleep(0.1)
urllib.request.urlopen(urllib.request.Request(url + "robostats-contract", method="PUT"), timeout=10)
PY
ROBOSTATS_TEST_S3_ENDPOINT="http://127.0.0.1:$moto_port" AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test \
    cargo test --release --locked --lib -- --exact output::backend::tests::an_s3_prefix_keeps_the_contract
kill "$moto"
moto=""

# ---- Python: the tables and queries/ through DuckDB and pyarrow ----------
# tests/python (pytest) over the release binary's output, with the Python
# scripts/test-deps.sh installed them into. test_slurm.py starts a private
# single-node Slurm with scripts/slurm/local-cluster.sh
# (ROBOSTATS_NO_SLURM=1 skips that test); test_report.py renders the
# report's page in headless Chromium.
step "python: tables and queries (tests/python)"
# Four workers on two cores, one test file each at a time (pytest-xdist's
# loadfile: a file's fixtures are made once), the longest files first
# (conftest.py's order, not xdist's by number of tests): many of these
# tests wait on the processes, servers and clocks they start
# (CONTRIBUTING.md, "Tests").
PATH="$(dirname "$py"):$PATH" "$py" -m pytest -q -n 4 --dist loadfile --no-loadscope-reorder --durations=12 \
    tests/python
# ---- end of the Python block ---------------------------------------------

# ---- the Python package: its wheel, in a fresh environment without Rust ----
# The wheel a release publishes (maturin build; the release build above is
# reused, so this compiles only pyo3 and the Python module), and the one `pip install .`
# makes from the clone (the same files); then the first installed into a
# new virtual environment with the test tools, and tests/package run from
# it with no Rust toolchain on PATH.
step "python package: the wheel, in a fresh environment with no Rust on PATH (tests/package)"
rm -rf target/wheels
# The DuckDB extension file goes into the package beside the module (the
# release build above made its library): the wheel ships it, and
# `pip wheel .` below takes it from the same place.
target/release/robostats duckdb-extension -o python/robostats_cc/
# (--interpreter: the Python that `pip wheel` builds with, so that pyo3's
# build, which depends on the interpreter found, is reused by that build.)
"$py" -m maturin build --release --locked --interpreter "$py" --out target/wheels/release
PATH="$(dirname "$py"):$PATH" "$py" -m pip wheel --quiet --disable-pip-version-check --no-deps \
    --no-build-isolation -w target/wheels/pip .
# (target/package-venv: made new by scripts/test-deps.sh in this run)
target/package-venv/bin/python -m pip install --quiet --disable-pip-version-check target/wheels/release/robostats_cc-*.whl
# And into target/httpfs-venv (DuckDB 1.5.5 with PyPI's httpfs, the wheel's
# other dependencies already there), for robostats_cc.connect on S3
# (tests/package/test_s3_connect.py).
if [ -x target/httpfs-venv/bin/python ]; then
    target/httpfs-venv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps \
        --force-reinstall target/wheels/release/robostats_cc-*.whl
fi
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
# Two workers, a test file each at a time (61 s in one, 29 s in two).
PATH="$PWD/target/package-venv/bin:$PWD/target/no-rust:$no_rust" ROBOSTATS_BIN="$PWD/target/release/robostats" \
    target/package-venv/bin/python -m pytest -q -n 2 --dist loadfile tests/package

# The benchmarks and examples are linted by clippy --all-targets above;
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
