#!/usr/bin/env bash
# The ingest benchmark: robostats ingest next to plain decompression of the
# same files on the same cores, in one run. Results go to stdout (Markdown);
# copy them into BENCHMARKS.md with the machine's description.
#
#   scripts/bench.sh [CORPUS_DIR] [RUNS]
#
# CORPUS_DIR holds the benchmark corpus (default: robostats-bench-corpus in
# the temporary directory). When it has no .warc.gz files, the project's
# generator makes the default corpus there first (scripts/gen_corpus.py:
# 10 files, 160,000 fetches, about 390 MB; Python 3 only, about a minute).
# RUNS: runs per measurement (default 3); the median is reported.
#
# PEER=1 also runs, once, a peer pipeline built only from other people's
# crates (benches/peer, a package of its own: warc + httparse + robotstxt, the
# verdicts on / of every crawler counted, no tables written); it is about
# 16 times as slow as ingest, so it is off by default.
#
# BASELINE=path/to/another/robostats measures that binary's ingest too,
# each of its runs right after the working tree's, so that a change is
# compared with the code before it in one run (the same machine, the same
# load).
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=${1:-${TMPDIR:-/tmp}/robostats-bench-corpus}
runs=${2:-3}
mkdir -p "$corpus"
if ! ls "$corpus"/*.warc.gz >/dev/null 2>&1; then
    echo "no .warc.gz in $corpus: generating the benchmark corpus there" >&2
    python3 scripts/gen_corpus.py --out "$corpus" >&2
fi
files=("$corpus"/*.warc.gz)
cores=$(nproc)
cargo build --release --quiet --bin robostats --example decompress_floor
cargo build --release --quiet --locked --manifest-path benches/peer/Cargo.toml --target-dir target/peer
bin=target/release/robostats
floor=target/release/examples/decompress_floor
peer=target/peer/release/robostats-peer
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# Runs a command once; sets $t (wall seconds), $m (peak RSS, KiB), $u
# (user CPU seconds) and $o (bytes written under $out/o).
run_once() {
    rm -rf "$out/o"
    /usr/bin/time -f "%e %M %U" -o "$out/time" "$@" >/dev/null 2>"$out/err" || { cat "$out/err" >&2; exit 1; }
    read -r t m u <"$out/time"
    o=$(du -sb "$out/o" 2>/dev/null | cut -f1 || echo 0)
}

median() { printf '%s\n' "$@" | sort -n | sed -n "$(( ($# + 1) / 2 ))p"; }

# Runs a command RUNS times; sets $secs (median wall seconds) and $rss
# (largest peak RSS, KiB).
measure() {
    local times=()
    rss=0
    for _ in $(seq "$runs"); do
        run_once "$@"
        times+=("$t")
        if [ "$m" -gt "$rss" ]; then rss=$m; fi
    done
    secs=$(median "${times[@]}")
}

# `ingest` of the working tree and of $BASELINE in turn, RUNS times each,
# with the given arguments; sets $secs/$rss/$user/$bytes_out and
# $base_secs/$base_rss/$base_user/$base_bytes_out (medians; RSS: largest).
measure_pair() {
    local times=() base_times=() users=() base_users=()
    rss=0 base_rss=0
    for _ in $(seq "$runs"); do
        run_once "$bin" ingest "$@"
        times+=("$t") users+=("$u") bytes_out=$o
        if [ "$m" -gt "$rss" ]; then rss=$m; fi
        run_once "$BASELINE" ingest "$@"
        base_times+=("$t") base_users+=("$u") base_bytes_out=$o
        if [ "$m" -gt "$base_rss" ]; then base_rss=$m; fi
    done
    secs=$(median "${times[@]}") user=$(median "${users[@]}")
    base_secs=$(median "${base_times[@]}") base_user=$(median "${base_users[@]}")
}

bytes=$(cat "${files[@]}" | wc -c)
records=$("$bin" ingest "${files[0]}" --out "$out/count" -q | sed -E 's/.* ([0-9]+) records read.*/\1/')
rm -rf "$out/count"
total_records=$(( records * ${#files[@]} ))  # the generator writes the same count per file
echo "corpus: ${#files[@]} files, $bytes bytes compressed, ~$total_records records; $cores cores; $runs runs each (median)"
echo
echo "| run | threads | wall s | MB/s (compressed) | records/s | peak RSS MiB | vs floor |"
echo "|---|---|---|---|---|---|---|"
row() { # name threads seconds
    awk -v n="$1" -v t="$2" -v s="$3" -v b="$bytes" -v r="$total_records" -v m="$rss" -v f="${floor_s:-$3}" \
        'BEGIN { printf "| %s | %s | %.2f | %.1f | %.0f | %.0f | %.2f |\n", n, t, s, b/s/1e6, r/s, m/1024, s/f }'
}
measure "$floor" "$cores" "${files[@]}"; floor_s=$secs
row "decompression floor (flate2 MultiGzDecoder, zlib-rs, one file per thread)" "$cores" "$floor_s"
if [ -n "${PEER:-}" ]; then
    run_once "$peer" "$cores" "${files[@]}"
    rss=$m
    row "peer: warc + httparse + robotstxt crates, verdicts counted, no tables (1 run)" "$cores" "$t"
fi
if [ -n "${BASELINE:-}" ]; then
    for threads in "$cores" 1; do
        measure_pair "${files[@]}" --out "$out/o" -q -j "$threads"
        row "robostats ingest" "$threads" "$secs"
        rss_head=$rss rss=$base_rss
        row "baseline ingest ($BASELINE)" "$threads" "$base_secs"
        awk -v a="$secs" -v b="$base_secs" -v m="$rss_head" -v n="$base_rss" -v t="$threads" \
            -v u="$user" -v v="$base_user" -v o="$bytes_out" -v p="$base_bytes_out" \
            'BEGIN { printf "| (%s threads: wall %.3fx the baseline'"'"'s, user CPU %.2f s / %.2f s = %.3fx, peak RSS %.2fx, output %.1f MB / %.1f MB) | | | | | | |\n", t, a/b, u, v, u/v, m/n, o/1e6, p/1e6 }'
    done
    exit 0
fi
measure "$bin" ingest "${files[@]}" --out "$out/o" -q -j "$cores"; row "robostats ingest" "$cores" "$secs"
rss_all=$rss
measure "$bin" ingest "${files[@]}" --out "$out/o" -q -j 1; s1=$secs; row "robostats ingest" 1 "$s1"
if [ "$cores" -ge 2 ]; then
    measure "$bin" ingest "${files[@]}" --out "$out/o" -q -j 2; s2=$secs; row "robostats ingest" 2 "$s2"
    awk -v a="$s1" -v b="$s2" 'BEGIN { printf "\nspeed-up, 2 threads over 1: %.2fx\n", a/b }'
fi
measure "$bin" ingest "${files[0]}" --out "$out/o" -q -j "$cores"; rss_one=$rss
awk -v a="$rss_one" -v b="$rss_all" -v n="${#files[@]}" \
    'BEGIN { printf "peak RSS: 1 file %.0f MiB, %d files %.0f MiB (ratio %.2f)\n", a/1024, n, b/1024, b/a }'
