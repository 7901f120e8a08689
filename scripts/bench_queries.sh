#!/usr/bin/env bash
# The query benchmark: every query of queries/ and a few typical ad-hoc
# queries on the views, on a data set made of COPIES copies of the
# benchmark corpus (hard links under other names: other inputs to ingest),
# with the DuckDB that pip gives (2.x) and the newest 1.x, each in a
# virtual environment of its own under target/bench-queries/. Results go
# to stdout (Markdown); copy them into BENCHMARKS.md with the machine's
# description.
#
#   scripts/bench_queries.sh [CORPUS_DIR] [COPIES] [RUNS] [QUERY...]
#
# CORPUS_DIR: the benchmark corpus (default, and made when missing, as in
# scripts/bench.sh: 10 files, 160,000 captures). COPIES: default 3
# (480,000 captures); 10 gives 1.6 M. RUNS: runs per query (default 3;
# the median is reported, and the largest peak RSS). QUERY: only these
# (file stems of queries/, or the adhoc_* names in scripts/bench_queries.py).
# The ingested data set is kept in target/bench-queries/out-<COPIES> for the
# next run, compacted with its crawl tables; DUCKDB_VERSIONS (default "2 1")
# says which major versions.
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=${1:-${TMPDIR:-/tmp}/robostats-bench-corpus}
copies=${2:-3}
runs=${3:-3}
shift $(( $# < 3 ? $# : 3 ))
work=target/bench-queries
mkdir -p "$work" "$corpus"
if ! ls "$corpus"/*.warc.gz >/dev/null 2>&1; then
    echo "no .warc.gz in $corpus: generating the benchmark corpus there" >&2
    python3 scripts/gen_corpus.py --out "$corpus" >&2
fi
cargo build --release --quiet --bin robostats
out="$work/out-$copies"
# A data set written by an earlier robostats (before the schema-only file
# was renamed, without verdict_counts, or with every rule's pattern stored:
# its body_rules schema-only file, whose footer names the columns, has no
# escaped_pattern) is made again.
if [ -d "$out/_manifest" ] && { [ ! -f "$out/captures/~empty.parquet" ] || [ ! -d "$out/verdict_counts" ] ||
    ! grep -qa escaped_pattern "$out/body_rules/~empty.parquet"; }; then
    echo "$out was written by an earlier robostats: ingesting it again" >&2
    rm -rf "$out"
fi
if [ ! -d "$out/_manifest" ]; then
    inputs="$work/inputs-$copies"
    rm -rf "$inputs" "$out"
    mkdir -p "$inputs"
    for k in $(seq "$copies"); do
        for f in "$corpus"/*.warc.gz; do
            ln "$f" "$inputs/copy$k-$(basename "$f")" 2>/dev/null || cp "$f" "$inputs/copy$k-$(basename "$f")"
        done
    done
    echo "ingesting $copies copies of the corpus into $out" >&2
    target/release/robostats ingest "$inputs" --out "$out" -q >&2
    rm -rf "$inputs"
fi
# A virtual environment of its own per DuckDB major version.
venv_of() {
    local venv="$work/duckdb-$1"
    if [ ! -x "$venv/bin/python3" ]; then
        python3 -m venv "$venv"
        "$venv/bin/python3" -m pip install --quiet --disable-pip-version-check "duckdb==$1.*" "pytz>=2024"
    fi
    echo "$venv"
}
majors=${DUCKDB_VERSIONS:-2 1}
# Compacted, as users are told to leave a data set before querying it: its
# crawl tables written by the first version's DuckDB (a no-op when they are
# up to date; without a DuckDB, compact would write none and every query
# would compute them). STORED_CRAWLS=0 runs the queries with every crawl
# computed instead (the variable robostats_stored_crawls), for a measure
# side by side.
target/release/robostats compact --python "$(venv_of "${majors%% *}")/bin/python3" "$out" >&2
captures=$(python3 - "$out" <<'EOF'
import json, sys, pathlib
n = 0
for f in pathlib.Path(sys.argv[1], "_manifest").glob("*.jsonl"):
    for line in f.read_text().splitlines():
        try:
            v = json.loads(line)
        except ValueError:
            continue
        if v.get("type") == "input" and v.get("status") == "done":
            n += v.get("captures", 0)
print(n)
EOF
)
echo "data set: $captures captures ($copies copies of $corpus); $(nproc) cores; $runs runs each (median)"
echo
echo "| query | DuckDB | captures | median s | s per M captures | peak RSS MiB | a 100 M crawl, if linear | fetchall s |"
echo "|---|---|---|---|---|---|---|---|"
for major in $majors; do
    "$(venv_of "$major")/bin/python3" scripts/bench_queries.py "$out" "$captures" "$runs" "$@"
done
