#!/usr/bin/env bash
# Runs every fuzz target for SECONDS each (default 60): scripts/fuzz.sh [SECONDS]
# Only builds them (the test command does this ahead, in the background):
# scripts/fuzz.sh --build
# Needs the nightly toolchain (the targets build with AddressSanitizer).
# cargo itself builds them, with the flags `cargo fuzz build` gives (so
# cargo-fuzz need not be installed; `cargo fuzz` works in fuzz/ as well).
# A target's dictionary is fuzz/<target>.dict.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
seconds=${1:-60}

# cargo-fuzz 0.13's defaults: libFuzzer's coverage (8-bit counters, the
# table of PCs, compares traced, no branch folding), AddressSanitizer,
# debug assertions (and with them overflow checks), one codegen unit, an
# optimised build with line tables, and the host as --target (which keeps
# these flags off build scripts and procedural macros). RUSTFLAGS and
# ASAN_OPTIONS of the caller are kept, after these.
triple=$(rustc +nightly -vV | sed -n 's/^host: //p')
flags=(-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4
    -Cllvm-args=-sanitizer-coverage-inline-8bit-counters
    -Cllvm-args=-sanitizer-coverage-pc-table -Cllvm-args=-sanitizer-coverage-trace-compares
    --cfg fuzzing -Cllvm-args=-simplifycfg-branch-fold-threshold=0 -Zsanitizer=address)
case $triple in *-linux-*) flags+=(-Cllvm-args=-sanitizer-coverage-stack-depth) ;; esac
flags+=(-Cdebug-assertions -Ccodegen-units=1)
export RUSTFLAGS="${flags[*]} ${RUSTFLAGS:-}"
# (The test command's clippy-driver is the stable toolchain's: not here.)
unset RUSTC_WORKSPACE_WRAPPER CLIPPY_ARGS
export ASAN_OPTIONS="detect_odr_violation=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
build=(cargo +nightly build --locked --release --bins --target "$triple"
    --config 'profile.release.debug="line-tables-only"')
# (--build: cargo takes this process's place, so stopping it stops cargo)
[ "$seconds" = --build ] && exec "${build[@]}"
"${build[@]}"

# Every target at once (each libFuzzer run is one process on one core),
# then each one's outcome in order.
targets=()
for src in fuzz_targets/*.rs; do
    target=$(basename "$src" .rs)
    dict=()
    [ -f "$target.dict" ] && dict=("-dict=$target.dict")
    mkdir -p "corpus/$target" "artifacts/$target"
    "target/$triple/release/$target" -artifact_prefix="artifacts/$target/" "${dict[@]}" \
        -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
        "corpus/$target" >"target/fuzz-$target.log" 2>&1 &
    targets+=("$target:$!")
done
failed=0
for entry in "${targets[@]}"; do
    target=${entry%%:*}
    log=target/fuzz-$target.log
    status=0
    wait "${entry#*:}" || status=$?
    echo "== fuzz $target for ${seconds}s"
    grep -E '^(stat::number_of_executed_units|Done|==[0-9]+==|SUMMARY)|panicked|ERROR' "$log" || true
    # A failure exits non-zero and leaves its input as an artifact (one
    # left from an earlier run fails this one too, until it is removed).
    found=$(find "artifacts/$target" -maxdepth 1 \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' \) -print -quit)
    if [ "$status" != 0 ] || [ -n "$found" ]; then
        echo "fuzz $target found a failure (exit status $status): see fuzz/artifacts/$target and fuzz/$log" >&2
        failed=1
    fi
done
exit "$failed"
