"""`robostats report s3://bucket/prefix/` against moto's S3 server
(s3_store.py): the page of a data set read where it is, through DuckDB's
httpfs (DuckDB 1.5.5 and PyPI's httpfs package: target/httpfs-venv), is
the page of the same inputs ingested locally, during a compaction's grace
too (the merged files still there beside the new ones), alone and read as
one with a local data set, under a prefix of `name=value` parts too (not
read as Hive partitions); and what is not a data set is refused."""

import json
import subprocess
import time

import pytest

from conftest import BIN, ROOT, SAMPLES, ingest
from s3_store import BUCKET, HTTPFS_PYTHON, no_rules_left, run, store  # noqa: F401

pytestmark = pytest.mark.skipif(not HTTPFS_PYTHON.exists(), reason="DuckDB 1.5 with httpfs: scripts/test-deps.sh")

# The secret key the runs are given: it must reach no output.
SECRET = "s3cr3t-Key-Value"
PREFERENCES = "samples/preferences/"


def report(store, outs, html, status=0):
    proc = subprocess.run(
        [str(BIN), "report", *map(str, outs), "-o", str(html), "--python", str(HTTPFS_PYTHON)],
        cwd=ROOT, env=store.env(AWS_SECRET_ACCESS_KEY=SECRET), capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == status, proc.stderr
    assert SECRET not in proc.stdout + proc.stderr
    return proc


def page(html, *names):
    """The page with the data sets' names (its only mention of where they
    are) taken out."""
    text = html.read_text()
    assert SECRET not in text
    return text.replace(", ".join(map(str, names)), "OUT")


@pytest.fixture(scope="module")
def in_grace(store):
    """The samples ingested to S3 in three shards, then compacted, within
    the compaction's grace: the merged files are still there beside the
    new ones, hidden by the new generation (compact returned at once; the
    next compact or ingest past the grace deletes them)."""
    for i in range(3):
        run(store, "report", "--shard", f"{i}/3")
    started = time.monotonic()
    proc = subprocess.run(
        [str(BIN), "compact", f"s3://{BUCKET}/report/", "--grace", "600"],
        cwd=ROOT, env=store.env(), capture_output=True, text=True, timeout=240,
    )
    assert proc.returncode == 0 and time.monotonic() - started < 120, proc.stderr
    generation = "report/_manifest/generation-00000001.json"
    retired = json.loads(store.client.get_object(Bucket=BUCKET, Key=generation)["Body"].read())["retired"]
    assert retired and set(f"report/{k}" for k in retired) <= set(store.keys("report/"))
    return f"s3://{BUCKET}/report/"


@pytest.fixture(scope="module")
def local_pages(store, tmp_path_factory):
    """What the pages of data sets on S3 are compared with, each made once:
    the page of the samples ingested locally, and of the samples with the
    preferences sample; and the preferences sample's local data set."""
    base = tmp_path_factory.mktemp("local-pages")
    pages = {"prefs": base / "prefs"}
    ingest([PREFERENCES], pages["prefs"])
    for name, inputs in (("samples", SAMPLES), ("both", [*SAMPLES, PREFERENCES])):
        ingest(inputs, base / name)
        report(store, [base / name], base / f"{name}.html")
        pages[name] = page(base / f"{name}.html", base / name)
    return pages


def test_the_page_of_a_data_set_on_s3_is_the_local_page(store, in_grace, local_pages, tmp_path):
    report(store, [in_grace], tmp_path / "s3.html")
    assert page(tmp_path / "s3.html", in_grace.rstrip("/")) == local_pages["samples"]


def test_a_data_set_on_s3_and_a_local_one_read_as_one(store, in_grace, local_pages, tmp_path):
    """The merged files on S3 are read as the generation says beside a
    local data set's plain globs."""
    prefs = local_pages["prefs"]
    report(store, [in_grace, prefs], tmp_path / "two.html")
    assert page(tmp_path / "two.html", in_grace.rstrip("/"), prefs) == local_pages["both"]


def test_a_prefix_of_name_value_parts_is_not_read_as_columns(store, local_pages, tmp_path):
    """A data set under `s3://bucket/crawl=.../body_digest=.../` (the layout
    object stores suggest) is the page of its inputs ingested locally,
    alone (the views of queries/) and read as one with a local data set (the bridge's
    own reading of the part files): DuckDB's Hive partitioning, on by
    default for such paths, would replace every capture's crawl and empty
    every join on body_digest."""
    prefix = "reports/crawl=CC-MAIN-2099-01/body_digest=v1"
    run(store, prefix)
    hive = f"s3://{BUCKET}/{prefix}/"
    prefs = local_pages["prefs"]
    report(store, [hive], tmp_path / "hive.html")
    assert page(tmp_path / "hive.html", hive.rstrip("/")) == local_pages["samples"]
    assert "CC-MAIN-2099-01" not in page(tmp_path / "hive.html", hive.rstrip("/"))
    report(store, [hive, prefs], tmp_path / "two.html")
    assert page(tmp_path / "two.html", hive.rstrip("/"), prefs) == local_pages["both"]


def test_what_is_not_a_data_set_on_s3_is_refused(store, tmp_path):
    proc = report(store, [f"s3://{BUCKET}/nothing/"], tmp_path / "r.html", status=2)
    assert f"s3://{BUCKET}/nothing/ is not an ingest output directory" in proc.stderr
    proc = report(store, ["s3://Bad_Bucket/x/"], tmp_path / "r.html", status=2)
    assert "is not a bucket name" in proc.stderr
    assert not (tmp_path / "r.html").exists()
