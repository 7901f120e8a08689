"""scripts/bench_queries_split.py: each query's time split into a fixed
cost and a cost per further million captures, from two benchmark runs."""

import subprocess
import sys

from conftest import ROOT

HEADER = "| query | DuckDB | captures | median s | s per M captures | peak RSS MiB | a 100 M crawl, if linear | fetchall s |\n|---|---|---|---|---|---|---|---|\n"


def test_the_line_through_two_sizes(tmp_path):
    small, large = tmp_path / "small.md", tmp_path / "large.md"
    small.write_text("data set: 480000 captures\n\n" + HEADER
                     + "| by_rank | 2.0.1 | 480,000 | 0.80 | 1.67 | 500 | 2.8 min | 0.01 |\n"
                     + "| typos | 2.0.1 | 480,000 | 0.10 | 0.21 | 90 | 0.3 min | 0.00 |\n"
                     + "| broken | 2.0.1 | 480,000 | failed: an error | | | | |\n"
                     + "| only_small | 2.0.1 | 480,000 | 0.10 | 0.21 | 90 | 0.3 min | 0.00 |\n")
    # (the larger run first: the sizes are told by their captures)
    large.write_text(HEADER
                     + "| by_rank | 2.0.1 | 1,600,000 | 1.36 | 0.85 | 900 | 1.4 min | 0.01 |\n"
                     + "| typos | 2.0.1 | 1,600,000 | 0.21 | 0.13 | 95 | 0.2 min | 0.00 |\n"
                     + "| broken | 2.0.1 | 1,600,000 | 0.50 | 0.31 | 95 | 0.5 min | 0.00 |\n")
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "bench_queries_split.py"), str(large), str(small)],
                         capture_output=True, text=True, check=True).stdout
    rows = {r.split("|")[1].strip(): [c.strip() for c in r.strip().strip("|").split("|")]
            for r in out.splitlines()[2:]}
    assert set(rows) == {"by_rank", "typos"}
    # by_rank: 0.56 s for 1.12 M more captures, 0.5 s a million; 0.80 - 0.24 s fixed
    assert rows["by_rank"][2:] == ["0.80", "1.36", "0.56", "0.50", "1.67", "0.85"]
    assert rows["typos"][4:6] == ["0.05", "0.10"]
