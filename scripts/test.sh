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
