#!/usr/bin/env bash
# The ingest benchmark: robostats ingest next to plain decompression of the
# same files on the same cores, in one run. Results go to stdout (Markdown);
# copy them into BENCHMARKS.md with the machine's description.
#
#   scripts/bench.sh [CORPUS_DIR] [RUNS]
#
# CORPUS_DIR holds the benchmark corpus: the default corpus of the synthetic
# Common-Crawl-like generator (gen_corpus.py --files 10 --records-per-file
# 16000 --seed 1: 10 files, 160,000 fetches, 380 MB). When the directory
# has no .warc.gz files and GEN_CORPUS names the generator script, it is
# generated first (needs `pip install warcio`). RUNS: runs per measurement
# (default 3); the median is reported.
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=${1:-${TMPDIR:-/tmp}/robostats-bench-corpus}
runs=${2:-3}
mkdir -p "$corpus"
if ! ls "$corpus"/*.warc.gz >/dev/null 2>&1; then
    if [ -z "${GEN_CORPUS:-}" ]; then
        echo "no .warc.gz in $corpus; set GEN_CORPUS to the generator script to make the corpus" >&2
        exit 2
    fi
    python3 -m pip install --quiet warcio
    python3 "$GEN_CORPUS" --out "$corpus" --files 10 --records-per-file 16000 --seed 1 >&2
fi
files=("$corpus"/*.warc.gz)
cores=$(nproc)
cargo build --release --quiet --bin robostats --example decompress_floor
bin=target/release/robostats
floor=target/release/examples/decompress_floor
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# Runs a command RUNS times; sets $secs (median wall seconds) and $rss
# (largest peak RSS, KiB).
measure() {
    local times=() t m
    rss=0
    for _ in $(seq "$runs"); do
        rm -rf "$out/o"
        /usr/bin/time -f "%e %M" -o "$out/time" "$@" >/dev/null 2>"$out/err" || { cat "$out/err" >&2; exit 1; }
        read -r t m <"$out/time"
        times+=("$t")
        if [ "$m" -gt "$rss" ]; then rss=$m; fi
    done
    secs=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (runs + 1) / 2 ))p")
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
