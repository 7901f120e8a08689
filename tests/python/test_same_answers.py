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

from conftest import QUERIES, ROOT

RESULTS = ROOT / "tests" / "data" / "query-results"
# What depends on the run (times, the output directory): not compared.
RUN_SPECIFIC = {"ingest_progress", "failed_inputs"}
CSV = "all_varchar = true, header = true, delim = ',', quote = '\"', escape = '\"'"
QUERY_FILES = sorted(p.stem for p in QUERIES.glob("*.sql")
                     if p.stem != "views" and p.stem not in RUN_SPECIFIC)


def as_text(con, sql, path):
    """The query's result written as CSV to `path`, read back as text."""
    con.execute(f"COPY ({sql.strip().rstrip(';')}) TO '{path}' (HEADER, FORMAT csv)")
    return read_text(path)


def read_text(path):
    rel = duckdb.sql(f"SELECT * FROM read_csv('{path}', {CSV})")
    return rel.columns, rel.fetchall()


@pytest.mark.parametrize("name", QUERY_FILES)
def test_query_gives_the_recorded_answers(con, name, tmp_path):
    sql = (QUERIES / f"{name}.sql").read_text()
    recorded = RESULTS / f"{name}.csv"
    if os.environ.get("ROBOSTATS_BLESS"):
        RESULTS.mkdir(parents=True, exist_ok=True)
        con.execute(f"COPY ({sql.strip().rstrip(';')}) TO '{recorded}' (HEADER, FORMAT csv)")
    columns, rows = as_text(con, sql, tmp_path / "now.csv")
    want_columns, want = read_text(recorded)
    assert columns == want_columns, name
    with duckdb.connect() as d:
        d.execute(f"CREATE TABLE now AS SELECT * FROM read_csv('{tmp_path / 'now.csv'}', {CSV})")
        d.execute(f"CREATE TABLE want AS SELECT * FROM read_csv('{recorded}', {CSV})")
        extra = d.sql("SELECT * FROM now EXCEPT ALL SELECT * FROM want").fetchall()
        missing = d.sql("SELECT * FROM want EXCEPT ALL SELECT * FROM now").fetchall()
    assert not extra and not missing, (name, extra[:3], missing[:3])
    assert rows == want, f"{name}: the same rows in another order"
