#!/usr/bin/env bash
# Runs every fuzz target for SECONDS each (default 60): scripts/fuzz.sh [SECONDS]
# Only builds them (the test command does this ahead, in the background):
# scripts/fuzz.sh --build
# Needs the nightly toolchain (cargo-fuzz builds with sanitizers). When
# cargo-fuzz is not on PATH, it is installed under target/tools/ of this
# repository (nothing outside it). A target's dictionary is fuzz/<target>.dict.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
seconds=${1:-60}
tools="$(cd .. && pwd)/target/tools"
export PATH="$tools/bin:$PATH"
command -v cargo-fuzz >/dev/null || cargo install --quiet --locked --root "$tools" cargo-fuzz
if [ "$seconds" = --build ]; then
    exec cargo +nightly fuzz build
fi
for src in fuzz_targets/*.rs; do
    target=$(basename "$src" .rs)
    dict=()
    [ -f "$target.dict" ] && dict=("-dict=$target.dict")
    mkdir -p "corpus/$target"
    echo "== fuzz $target for ${seconds}s"
    cargo +nightly fuzz run "$target" "corpus/$target" -- \
        "${dict[@]}" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 2>&1 |
        grep -E '^(stat::number_of_executed_units|Done|==[0-9]+==|SUMMARY)|panicked|ERROR' || true
    # libFuzzer's exit status is lost in the pipe: a crash leaves an artifact.
    if ls "artifacts/$target"/crash-* "artifacts/$target"/timeout-* "artifacts/$target"/oom-* >/dev/null 2>&1; then
        echo "fuzz $target found a failure: see fuzz/artifacts/$target" >&2
        exit 1
    fi
done
