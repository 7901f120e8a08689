#!/usr/bin/env bash
# A refactor keeps every row: ingests the same inputs with the binary of a
# git revision (default: main) and with the working tree's, and compares the
# two outputs table by table with DuckDB EXCEPT ALL both ways
# (scripts/same_rows.py).
#
#   scripts/same_rows.sh [REV] [INPUT...]
#
# SAME_ROWS_EXCLUDE=TABLE:CONDITION leaves the rows matching the SQL
# condition out of TABLE's comparison (scripts/same_rows.py --exclude), for
# a change meant to alter those rows and no other. SAME_ROWS_IGNORE="COLUMN
# ..." leaves those columns out of every table (--ignore-column).
#
# INPUT defaults to samples/*.warc.gz; give the benchmark corpus's files for
# the large comparison. The revision is built in target/same-rows/ (a git
# worktree and its own target directory, kept between runs).
set -euo pipefail
cd "$(dirname "$0")/.."
rev=${1:-main}
shift || true
inputs=("$@")
[ ${#inputs[@]} -gt 0 ] || inputs=(samples/*.warc.gz)
work=target/same-rows
mkdir -p "$work"
commit=$(git rev-parse --verify "$rev^{commit}")
if [ ! -x "$work/bin-$commit" ]; then
    rm -rf "$work/src"
    git worktree prune
    git worktree add --detach --force "$work/src" "$commit" >/dev/null
    cargo build --release --locked --quiet --bin robostats \
        --manifest-path "$work/src/Cargo.toml" --target-dir "$work/target"
    cp "$work/target/release/robostats" "$work/bin-$commit"
    git worktree remove --force "$work/src"
fi
cargo build --release --locked --quiet --bin robostats
rm -rf "$work/out-base" "$work/out-head"
"$work/bin-$commit" ingest "${inputs[@]}" --out "$work/out-base" -q || true
target/release/robostats ingest "${inputs[@]}" --out "$work/out-head" -q || true
py=python3
[ -x target/python-venv/bin/python3 ] && py=target/python-venv/bin/python3
"$py" -c "import duckdb" 2>/dev/null ||
    PIP_BREAK_SYSTEM_PACKAGES=1 "$py" -m pip install --quiet --disable-pip-version-check "duckdb==1.*"
echo "rows of $rev ($commit) | rows of the working tree"
exclude=()
[ -z "${SAME_ROWS_EXCLUDE:-}" ] || exclude=(--exclude "$SAME_ROWS_EXCLUDE")
for column in ${SAME_ROWS_IGNORE:-}; do exclude+=(--ignore-column "$column"); done
# The revision's own views: tables and view columns added since are not
# expected of its output.
# (Before queries/tables.sql, views.sql held what it holds.)
views=()
for name in tables views; do
    git cat-file -e "$commit:queries/$name.sql" 2>/dev/null || continue
    git show "$commit:queries/$name.sql" >"$work/$name-$commit.sql"
    views+=(--views-a "$work/$name-$commit.sql")
done
"$py" scripts/same_rows.py "${exclude[@]}" "${views[@]}" \
    "$work/out-base" "$work/out-head"
