"""Every query of queries/ gives the answers it gave before: its result on
the samples' tables equals the one recorded in tests/data/query-results/
(as a multiset, EXCEPT ALL both ways, and in the same order), so that a
query rewritten for speed cannot change a figure unnoticed.

The recorded results were written by the queries of the revision before
the rewrite. A change meant to alter a result records it again with
ROBOSTATS_BLESS=1 (and says why in its commit).
"""

import os

import duckdb
import pytest

from conftest import QUERIES, ROOT, VIEW_FILES

RESULTS = ROOT / "tests" / "data" / "query-results"
# What depends on the run (times, the output directory): not compared.
RUN_SPECIFIC = {"ingest_progress", "failed_inputs"}
CSV = "all_varchar = true, header = true, delim = ',', quote = '\"', escape = '\"'"
QUERY_FILES = sorted(p.stem for p in QUERIES.glob("*.sql")
                     if p not in VIEW_FILES and p.stem not in RUN_SPECIFIC)


def write_csv(con, sql, path):
    con.execute(f"COPY ({sql.strip().rstrip(';')}) TO '{path}' (HEADER, FORMAT csv)")


@pytest.mark.parametrize("name", QUERY_FILES)
def test_query_gives_the_recorded_answers(con, name, tmp_path):
    sql = (QUERIES / f"{name}.sql").read_text()
    recorded = RESULTS / f"{name}.csv"
    if os.environ.get("ROBOSTATS_BLESS"):
        RESULTS.mkdir(parents=True, exist_ok=True)
        write_csv(con, sql, recorded)
    now = tmp_path / "now.csv"
    write_csv(con, sql, now)
    with duckdb.connect() as d:
        d.execute(f"CREATE TABLE now AS SELECT * FROM read_csv('{now}', {CSV})")
        d.execute(f"CREATE TABLE want AS SELECT * FROM read_csv('{recorded}', {CSV})")
        columns = [c[0] for c in d.sql("DESCRIBE now").fetchall()]
        assert columns == [c[0] for c in d.sql("DESCRIBE want").fetchall()], name
        extra = d.sql("SELECT * FROM now EXCEPT ALL SELECT * FROM want").fetchall()
        missing = d.sql("SELECT * FROM want EXCEPT ALL SELECT * FROM now").fetchall()
        assert not extra and not missing, (name, extra[:3], missing[:3])
        rows, want = (d.sql(f"SELECT * FROM {t}").fetchall() for t in ("now", "want"))
    assert rows == want, f"{name}: the same rows in another order"
