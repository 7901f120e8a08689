#!/usr/bin/env bash
# The project's test command (the README's second set-up command).
# It installs what the tests need on a fresh machine, then runs them all.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== format and lints"
cargo fmt --all -- --check
cargo clippy --all-targets --locked -- -D warnings

echo "== tests (unit, integration, property, CLI)"
cargo test --locked

echo "== benchmarks compile"
cargo bench --locked --no-run

echo "== fuzz smoke run (the long runs: scripts/fuzz.sh SECONDS)"
if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    scripts/fuzz.sh 30
else
    echo "no nightly toolchain: fuzz smoke run skipped"
fi
