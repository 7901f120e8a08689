#!/usr/bin/env bash
# The benchmark of ingest over HTTP: the corpus of scripts/bench.sh read from
# local files and over HTTP from a server on 127.0.0.1
# (tests/python/remote_server.py, no faults, files sent with sendfile), one
# run of each in turn, so that both see the same machine and load. Results
# go to stdout (Markdown); copy them into BENCHMARKS.md with the machine's
# description.
#
#   scripts/bench_remote.sh [CORPUS_DIR] [RUNS]
#
# CORPUS_DIR holds the benchmark corpus, as for scripts/bench.sh (default:
# robostats-bench-corpus in the temporary directory; made there by
# scripts/gen_corpus.py when it has no .warc.gz files, about a minute).
# RUNS: runs per measurement (default 3); the median is reported.
#
# Over HTTP, ingest runs with no rate cap and MAX_DOWNLOADS concurrent
# transfers (default 4). Both runs list the files in one paths file, with a
# local --prefix or the server's URL, so that they write the same rows. The
# target: local time / HTTP time >= 0.9 (reading over the loopback costs at
# most a tenth more).
#
# ROBOSTATS_BIN=path measures that binary instead of building the working
# tree's.
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=${1:-$(dirname "$(mktemp -u)")/robostats-bench-corpus}  # bench.sh's default
runs=${2:-3}
downloads=${MAX_DOWNLOADS:-4}
mkdir -p "$corpus"
if ! ls "$corpus"/*.warc.gz >/dev/null 2>&1; then
    echo "no .warc.gz in $corpus: generating the benchmark corpus there" >&2
    python3 scripts/gen_corpus.py --out "$corpus" >&2
fi
files=("$corpus"/*.warc.gz)
if [ -n "${ROBOSTATS_BIN:-}" ]; then
    bin=$ROBOSTATS_BIN
else
    cargo build --release --quiet --bin robostats
    bin=target/release/robostats
fi
py=python3
if [ -x target/python-venv/bin/python3 ]; then py=target/python-venv/bin/python3; fi
out=$(mktemp -d)
server=
cleanup() {
    if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; fi
    rm -rf "$out"
}
trap cleanup EXIT

# The server, on a free port: its first line on stdout is its URL.
"$py" tests/python/remote_server.py --serve "$corpus" >"$out/url" 2>"$out/server.err" &
server=$!
for _ in $(seq 100); do
    if [ -s "$out/url" ]; then break; fi
    if ! kill -0 "$server" 2>/dev/null; then cat "$out/server.err" >&2; exit 1; fi
    sleep 0.1
done
url=$(head -n 1 "$out/url")
if [ -z "$url" ]; then echo "the server did not start" >&2; exit 1; fi

# The files by name, relative to CORPUS_DIR and to the server's root.
for f in "${files[@]}"; do basename "$f"; done >"$out/paths"

# Runs a command once; sets $t (wall seconds); its stdout is in $out/stdout.
run_once() {
    rm -rf "$out/o"
    /usr/bin/time -f "%e" -o "$out/time" "$@" >"$out/stdout" 2>"$out/err" || { cat "$out/err" >&2; exit 1; }
    t=$(cat "$out/time")
}

median() { printf '%s\n' "$@" | sort -n | sed -n "$(( ($# + 1) / 2 ))p"; }

local_times=() http_times=() requests=()
for _ in $(seq "$runs"); do
    run_once "$bin" ingest -q --out "$out/o" --paths "$out/paths" --prefix "$corpus"
    local_times+=("$t")
    run_once "$bin" ingest -q --out "$out/o" --paths "$out/paths" --prefix "$url" \
        --max-requests-per-second 0 --max-downloads "$downloads"
    http_times+=("$t")
    line=$(grep '^network: ' "$out/stdout" || true)
    if [ -z "$line" ]; then echo "no network: line in ingest's output:" >&2; cat "$out/stdout" >&2; exit 1; fi
    requests+=("$(echo "$line" | sed -E 's/^network: ([0-9]+) requests?,.*/\1/')")
done
local_s=$(median "${local_times[@]}")
http_s=$(median "${http_times[@]}")
bytes=$(cat "${files[@]}" | wc -c)

echo "corpus: ${#files[@]} files, $bytes bytes compressed; $(nproc) cores; HTTP: no rate cap, $downloads downloads; $runs runs each, in turn (median)"
echo
echo "| run | wall s | MB/s (compressed) |"
echo "|---|---|---|"
row() { awk -v n="$1" -v s="$2" -v b="$bytes" 'BEGIN { printf "| %s | %.2f | %.1f |\n", n, s, b/s/1e6 }'; }
row "robostats ingest, local files" "$local_s"
row "robostats ingest over HTTP (127.0.0.1)" "$http_s"
echo
awk -v a="$local_s" -v b="$http_s" 'BEGIN { printf "local time / HTTP time: %.2f (target >= 0.9)\n", a/b }'
awk -v r="$(median "${requests[@]}")" -v n="${#files[@]}" \
    'BEGIN { printf "HTTP requests per file: %.2f (%d requests, %d files; the network: line)\n", r/n, r, n }'
echo "last network: line: $line"
