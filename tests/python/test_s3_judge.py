"""`robostats judge` with its data set and its URL file on S3 (moto's
server, s3_store.py), the data set read through DuckDB's httpfs
(target/httpfs-venv) and the URL file fetched as ingest fetches an
input: the rows of the same judge on the same inputs, local."""

import subprocess

import duckdb
import pytest

from conftest import BIN, ROOT
from s3_store import BUCKET, HTTPFS_PYTHON, run, store  # noqa: F401

pytestmark = pytest.mark.skipif(not HTTPFS_PYTHON.exists(), reason="DuckDB 1.5 with httpfs: scripts/test-deps.sh")

SECRET = "s3cr3t-Judge-Key"


def judged_rows(path):
    rel = duckdb.sql(f"SELECT * FROM read_parquet('{path}')")
    return rel.fetchall()


def test_judge_reads_a_data_set_and_urls_on_s3(store, samples_out, tmp_path):
    run(store, "judge")
    hosts = [h for (h,) in duckdb.sql(
        f"SELECT DISTINCT url_protocol || '://' || url_host_name FROM read_parquet('{samples_out}/captures/*.parquet') "
        "ORDER BY 1 LIMIT 50").fetchall()]
    urls = "".join(f"{h}{p}\n" for h in hosts for p in ("/", "/wp-admin/"))
    (tmp_path / "urls.txt").write_text(urls)
    store.client.put_object(Bucket=BUCKET, Key="corpus/urls.txt", Body=urls.encode())
    agents = ["--agent", "GPTBot", "--agent", "*"]
    remote = subprocess.run(
        [str(BIN), "judge", "--data-set", f"s3://{BUCKET}/judge/", "--urls", f"s3://{BUCKET}/corpus/urls.txt",
         "-o", str(tmp_path / "remote.parquet"), "--python", str(HTTPFS_PYTHON), *agents],
        cwd=ROOT, env=store.env(AWS_SECRET_ACCESS_KEY=SECRET), capture_output=True, text=True, timeout=600)
    assert remote.returncode == 0, remote.stderr
    assert SECRET not in remote.stdout + remote.stderr
    local = subprocess.run(
        [str(BIN), "judge", "--data-set", str(samples_out), "--urls", str(tmp_path / "urls.txt"),
         "-o", str(tmp_path / "local.parquet"), *agents],
        cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert local.returncode == 0, local.stderr
    got, want = judged_rows(tmp_path / "remote.parquet"), judged_rows(tmp_path / "local.parquet")
    assert len(got) == 100 and got == want
