"""Times every query of queries/ and a few typical ad-hoc queries on one
robostats output directory, with the DuckDB of the Python running this
script: each run in a fresh process (2 threads, DuckDB's default memory
limit), the median of RUNS runs, and the largest peak RSS. Every run has
a rank list of 1,000,000 entries (robostats_ranks: the data set's
registered domains, 5,000 of its hosts, and made-up domains, shuffled with
a fixed seed; written once beside OUT), which only by_rank.sql reads. A run keeps the
result in DuckDB (CREATE TEMP TABLE ... AS); fetching it into Python is
timed apart. STORED_CRAWLS=0 computes every crawl rather than read the
crawl tables compact wrote. Prints one Markdown row per query. Run by
scripts/bench_queries.sh.

    python3 scripts/bench_queries.py OUT CAPTURES RUNS [QUERY...]
"""

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
QUERIES = ROOT / "queries"
# The views every query reads, in the order they are read.
VIEW_FILES = [QUERIES / name for name in ("tables.sql", "views.sql", "strata.sql")]

# What users write on the views (the typical ad-hoc queries).
AD_HOC = {
    "adhoc_disallow_all_share_per_agent": """
        SELECT agent, avg((effective_class = 'disallow_all')::INT) AS share
        FROM agent_verdicts GROUP BY agent ORDER BY agent""",
    "adhoc_one_agent_joined_with_captures": """
        SELECT c.crawl, v.effective_class, count(*)::BIGINT AS captures
        FROM agent_verdicts v JOIN captures c USING (warc_filename, warc_record_offset)
        WHERE v.agent = 'GPTBot' GROUP BY ALL ORDER BY ALL""",
    "adhoc_preference_columns_per_agent": """
        SELECT agent, signal_ai_train, usage_train_ai, count(*)::BIGINT AS captures
        FROM agent_verdicts GROUP BY ALL ORDER BY ALL""",
}

# One run, in the child process: load the views, run the query to the end
# with its result kept in DuckDB (what the query costs), then fetch that
# result into Python tuples (what a client adds: for the queries with a row
# per host or URL, most of the time in a Python loop).
CHILD = r"""
import json, resource, sys, time, duckdb
out, sql = sys.argv[1], sys.stdin.read().strip().rstrip(";")
con = duckdb.connect()
con.execute("SET threads = 2")
con.execute("SET enable_progress_bar = false")
con.execute("SET VARIABLE robostats_out = ?", [out])
con.execute("SET VARIABLE robostats_stored_crawls = ?", [sys.argv[6] != "0"])
for path in sys.argv[2:5]:
    con.execute(open(path).read())
con.execute("SET VARIABLE robostats_ranks = ?", [sys.argv[5]])
start = time.perf_counter()
con.execute(f"CREATE TEMP TABLE result AS {sql}")
seconds = time.perf_counter() - start
start = time.perf_counter()
rows = con.sql("SELECT * FROM result").fetchall()
fetch = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB
print(json.dumps({"seconds": seconds, "fetch": fetch, "rows": len(rows), "peak_kib": peak}))
"""


def rank_list(out):
    """The 1,000,000-entry rank list of `out` (Tranco's form), written once,
    by a process of its own: a child started by a process that held the
    list would report that process's peak as its own."""
    path = out.parent / f"{out.name}-ranks-1m.csv"
    if not path.exists():
        subprocess.run([sys.executable, __file__, "--rank-list", str(out), str(path)],
                       capture_output=True, text=True, check=True)
    return path


def write_rank_list(out, path):
    import random
    import duckdb

    con = duckdb.connect()
    con.execute("SET VARIABLE robostats_out = ?", [str(out)])
    for views in VIEW_FILES:
        con.execute(views.read_text())
    names = [d for (d,) in con.sql("SELECT DISTINCT url_host_registered_domain FROM captures "
                                   "WHERE url_host_registered_domain IS NOT NULL ORDER BY 1").fetchall()]
    hosts = [h for (h,) in con.sql("SELECT DISTINCT url_host_name FROM captures ORDER BY 1").fetchall()]
    rng = random.Random(49)
    names += rng.sample(hosts, min(5000, len(hosts)))
    names += [f"listed{i}.example" for i in range(max(0, 1_000_000 - len(names)))]
    rng.shuffle(names)
    path.write_text("".join(f"{rank},{name}\n" for rank, name in enumerate(names[:1_000_000], 1)))


def run_once(out, sql):
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(out), *map(str, VIEW_FILES),
         str(rank_list(out)), os.environ.get("STORED_CRAWLS", "1")],
        input=sql, capture_output=True, text=True, check=True, timeout=3600,
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main():
    if sys.argv[1] == "--rank-list":
        write_rank_list(Path(sys.argv[2]), Path(sys.argv[3]))
        return
    out, captures, runs = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    only = set(sys.argv[4:])
    import duckdb  # the version measured

    queries = {p.stem: p.read_text() for p in sorted(QUERIES.glob("*.sql")) if p not in VIEW_FILES}
    queries.update(AD_HOC)
    for name, sql in queries.items():
        if only and name not in only:
            continue
        times, fetches, rss = [], [], 0
        try:
            for _ in range(runs):
                result = run_once(out, sql)
                times.append(result["seconds"])
                fetches.append(result["fetch"])
                rss = max(rss, result["peak_kib"])
        except subprocess.CalledProcessError as e:
            why = (e.stderr.strip().splitlines() or ["?"])[-1][:120]
            print(f"| {name} | {duckdb.__version__} | {captures:,} | failed: {why} | | | | |", flush=True)
            continue
        secs = statistics.median(times)
        per_m = secs / (captures / 1e6)
        print(
            f"| {name} | {duckdb.__version__} | {captures:,} | {secs:.2f} | {per_m:.2f} "
            f"| {rss / 1024:.0f} | {per_m * 100 / 60:.1f} min | {statistics.median(fetches):.2f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
