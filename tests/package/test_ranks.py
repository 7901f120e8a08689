"""``robostats_cc.connect(out, ranks=...)``: a rank list beside a data set
(queries/strata.sql's host_ranks and the query by_rank), local and on S3
(moto's server, from target/httpfs-venv, as test_s3_connect.py)."""

import json
import subprocess

import pytest

import robostats_cc
from conftest import ROOT
from test_s3_connect import BUCKET, HTTPFS_PYTHON, SECRET, endpoint, env, httpfs_has_the_wheel  # noqa: F401


def tranco(con, path):
    """A Tranco-style list of the data set's registered domains, ranked by
    name: {domain: rank}."""
    domains = [d for (d,) in con.sql("SELECT DISTINCT url_host_registered_domain FROM captures "
                                     "WHERE url_host_registered_domain IS NOT NULL ORDER BY 1").fetchall()]
    ranks = {d: i for i, d in enumerate(domains, 1)}
    path.write_text("".join(f"{r},{d}\n" for d, r in ranks.items()))
    return ranks


def test_connect_takes_a_rank_list(package_out, tmp_path):
    ranks = tranco(robostats_cc.connect(package_out, native=False), tmp_path / "tranco.csv")
    con = robostats_cc.connect(package_out, ranks=tmp_path / "tranco.csv", native=False)
    got = con.sql("SELECT url_host_registered_domain, rank, matched_by FROM host_ranks "
                  "WHERE url_host_registered_domain IS NOT NULL").fetchall()
    assert got and all(r == ranks[d] and m in ("host", "registered_domain") for d, r, m in got)
    bands = robostats_cc.query(con, "by_rank").filter(
        "question = 'has_robots_txt' AND definition = 'hosts' "
        "AND NOT coalesce(band_first = 1 AND band_last > 1000, false)")
    hosts = dict(bands.aggregate("band_first, sum(denominator)").fetchall())
    assert hosts[1] > 0 and sum(hosts.values()) == con.sql("SELECT count(*) FROM crawl_hosts").fetchall()[0][0]


def test_a_rank_list_s_path_is_read_as_named(package_out, tmp_path):
    """`tranco[1].csv` under `crawl=X/` is that file, not `tranco1.csv`."""
    place = tmp_path / "crawl=CC-MAIN-2025-05"
    place.mkdir()
    ranks = tranco(robostats_cc.connect(package_out, native=False), place / "tranco[1].csv")
    (place / "tranco1.csv").write_text("1,not-in-the-data.example\n")
    con = robostats_cc.connect(package_out, ranks=place / "tranco[1].csv", native=False)
    got = dict(con.sql("SELECT url_host_registered_domain, rank FROM host_ranks "
                       "WHERE matched_by = 'registered_domain'").fetchall())
    assert got and all(ranks[d] == r for d, r in got.items())


def test_connect_refuses_a_rank_list_that_is_not_there(package_out, tmp_path):
    with pytest.raises(ValueError, match="is not a file"):
        robostats_cc.connect(package_out, ranks=tmp_path / "missing.csv", native=False)
    with pytest.raises(ValueError, match="give ranks too"):
        robostats_cc.connect(package_out, rank_column="hcrank", native=False)
    (tmp_path / "tranco.csv").write_text("1,example.com\n")
    with pytest.raises(ValueError, match="increasing"):
        robostats_cc.connect(package_out, ranks=tmp_path / "tranco.csv", rank_bands=[100, 10], native=False)


def test_connect_takes_the_bands(package_out, tmp_path):
    tranco(robostats_cc.connect(package_out, native=False), tmp_path / "tranco.csv")
    con = robostats_cc.connect(package_out, ranks=tmp_path / "tranco.csv", rank_bands=[100, 300], native=False)
    bands = {b for (b,) in con.sql("SELECT DISTINCT band_first FROM host_ranks").fetchall()}
    assert bands <= {1, 101, 301, None} and {1, 101} <= bands


# Writes the list argv[3] to S3 at argv[2] (DuckDB, with the secret
# s3_file_secret gives), then counts the hosts the list ranks in the data
# set argv[1] through robostats_cc.connect(..., ranks=argv[2]).
RANKED = """
import json, sys, duckdb, robostats_cc as robostats
from robostats_cc import _duckdb, _robostats
scope, params = _robostats.s3_file_secret(sys.argv[2])
writer = duckdb.connect()
_duckdb._load_httpfs(writer)
_duckdb._create_secret(writer, scope, params, name="writer")
writer.execute("COPY (FROM read_csv(?, header = false)) TO '" + sys.argv[2] + "' (HEADER false)", [sys.argv[3]])
con = robostats.connect(sys.argv[1], ranks=sys.argv[2])
print(json.dumps(con.sql("SELECT count(rank) FROM host_ranks").fetchall()[0][0]))
"""


@pytest.mark.skipif(not httpfs_has_the_wheel(), reason="the wheel in target/httpfs-venv: scripts/test.sh")
def test_a_rank_list_on_s3_is_read_with_its_own_secret(endpoint, package_out, tmp_path):  # noqa: F811
    ranks = tranco(robostats_cc.connect(package_out, native=False), tmp_path / "tranco.csv")
    proc = subprocess.run([str(HTTPFS_PYTHON), "-c", RANKED, str(package_out), f"s3://{BUCKET}/lists/tranco.csv",
                           str(tmp_path / "tranco.csv")],
                          cwd=ROOT, env=env(endpoint), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert SECRET not in proc.stdout + proc.stderr
    local = robostats_cc.connect(package_out, ranks=tmp_path / "tranco.csv", native=False)
    assert json.loads(proc.stdout) == local.sql("SELECT count(rank) FROM host_ranks").fetchall()[0][0] > 0
    assert ranks
