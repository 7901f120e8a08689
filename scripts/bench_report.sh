#!/usr/bin/env bash
# The crawl-over-crawl benchmark: `robostats report` and the queries it runs
# on three generated crawls with planned transitions, at about 1.5 million
# captures (`gen_corpus.py --crawls --scale 2000`: 78 files, 1.8 GB; about
# 7 minutes to generate on 2 cores, kept for the next run), RUNS times each
# (default 3; the median is printed). Markdown on stdout.
#
#   scripts/bench_report.sh [DATA_DIR] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:-${TMPDIR:-/tmp}/robostats-crawls-bench}
runs=${2:-3}
out="$data-out"
py=${ROBOSTATS_PYTHON:-$( [ -x target/python-venv/bin/python3 ] && echo target/python-venv/bin/python3 || echo python3 )}
cargo build --release --quiet --bin robostats
if ! ls "$data"/*.warc.gz >/dev/null 2>&1; then
    echo "generating the crawls into $data" >&2
    "$py" scripts/gen_corpus.py --crawls --scale 2000 --jobs 2 --out "$data" >&2
fi
if [ ! -d "$out/_manifest" ]; then
    target/release/robostats ingest -q "$data" --out "$out" >&2
fi
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# The directory as a glob pattern matching only itself, passed as a value.
captures=$("$py" -c 'import duckdb, re, sys
glob = re.sub(r"([*?\[])", r"[\1]", sys.argv[1]) + "/captures/*.parquet"
print(duckdb.execute("SELECT count(*) FROM read_parquet(?)", [glob]).fetchall()[0][0])' "$out")
echo "Data set: $out ($captures captures), DuckDB $("$py" -c 'import duckdb; print(duckdb.__version__)'), median of $runs runs."
echo
echo "| what | seconds |"
echo "|---|---|"
for i in $(seq "$runs"); do
    /usr/bin/time -f "%e" target/release/robostats report -q "$out" -o "$out.report.html" --python "$py" 2>&1 | tail -1
done | median | sed 's/^/| `robostats report` (every figure) | /; s/$/ |/'
for q in outcomes_per_crawl policy_trends policy_transitions body_changes crawler_bias; do
    for i in $(seq "$runs"); do
        "$py" - "$out" "$q" <<'PY'
import sys, time, duckdb
out, q = sys.argv[1], sys.argv[2]
con = duckdb.connect()
con.execute("SET enable_progress_bar = false")
con.execute("SET VARIABLE robostats_out = ?", [out])
con.execute(open("queries/tables.sql").read())
con.execute(open("queries/views.sql").read())
t = time.monotonic()
con.sql(open(f"queries/{q}.sql").read()).fetchall()
print(f"{time.monotonic() - t:.2f}")
PY
    done | median | sed "s/^/| \`$q.sql\` alone | /; s/$/ |/"
done
