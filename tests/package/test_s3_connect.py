"""``robostats_cc.connect("s3://bucket/prefix/")``: a data set written by
``ingest --out s3://...`` read where it is, through DuckDB's httpfs.

Against moto's S3 server (``target/python-venv``'s, which
scripts/test-deps.sh installs), from ``target/httpfs-venv``: DuckDB 1.5.5
with PyPI's httpfs package (the DuckDB of this environment has none that
installs offline), where scripts/test.sh installs the wheel too."""

import json
import os
import socket
import subprocess
import time
import urllib.request

import pytest

from conftest import ROOT, SAMPLES, command

HTTPFS_PYTHON = ROOT / "target" / "httpfs-venv" / "bin" / "python"
MOTO = ROOT / "target" / "python-venv" / "bin" / "moto_server"
BUCKET = "results"
# The secret key the runs are given: it must reach no output.
SECRET = "s3cr3t-Key-Value"

# Counts every view of the data set argv[1] by robostats_cc.connect; prints
# them as JSON, or the ValueError's message.
COUNTS = """
import json, sys, robostats_cc as robostats
try:
    con = robostats.connect(sys.argv[1])
except ValueError as error:
    print(json.dumps({"error": str(error)}))
    sys.exit(0)
views = [v for (v,) in con.sql("SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()]
counts = {v: con.sql(f"SELECT count(*) FROM {v}").fetchall()[0][0] for v in views}
allowed = con.sql("SELECT count(*) FROM captures WHERE robots_can_fetch("
                  "'User-agent: GPTBot' || chr(10) || 'Disallow: /robots', 'GPTBot', url)").fetchall()[0][0]
print(json.dumps({"counts": counts, "native": robostats.native_duckdb(con), "allowed": allowed}))
"""


def httpfs_has_the_wheel():
    if not HTTPFS_PYTHON.exists():
        return False
    probe = subprocess.run([str(HTTPFS_PYTHON), "-c", "import robostats_cc, duckdb_extension_httpfs"],
                           capture_output=True)
    return probe.returncode == 0


pytestmark = pytest.mark.skipif(
    not (MOTO.exists() and httpfs_has_the_wheel()),
    reason="moto in target/python-venv and the wheel in target/httpfs-venv: scripts/test.sh",
)


@pytest.fixture(scope="module")
def endpoint():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([str(MOTO), "-H", "127.0.0.1", "-p", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            # moto takes unsigned requests: the bucket is made with one.
            urllib.request.urlopen(urllib.request.Request(f"{url}/{BUCKET}", method="PUT"), timeout=5)
            break
        except OSError:
            assert server.poll() is None and time.monotonic() < deadline, "moto's server did not start"
            time.sleep(0.2)
    yield url
    server.terminate()
    server.wait(timeout=30)


def env(endpoint):
    clean = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    return {**clean, "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": SECRET,
            "AWS_ENDPOINT_URL": endpoint, "AWS_REGION": "us-east-1", "AWS_CONFIG_FILE": os.devnull,
            "AWS_SHARED_CREDENTIALS_FILE": os.devnull}


def counts(endpoint, out):
    proc = subprocess.run([str(HTTPFS_PYTHON), "-c", COUNTS, out], cwd=ROOT, env=env(endpoint),
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert SECRET not in proc.stdout + proc.stderr
    return json.loads(proc.stdout)


def test_connect_reads_a_data_set_on_s3_as_the_same_one_on_disk(endpoint, package_out):
    proc = command("ingest", "-q", SAMPLES, "--out", f"s3://{BUCKET}/connect/", env=env(endpoint))
    assert proc.returncode == 0, proc.stderr
    remote = counts(endpoint, f"s3://{BUCKET}/connect/")
    local = counts(endpoint, str(package_out))
    assert remote["counts"] == local["counts"] and remote["counts"]["captures"] > 700
    assert remote["allowed"] == local["allowed"] < remote["counts"]["captures"]
    assert remote["native"]


def test_connect_refuses_what_is_not_a_data_set_on_s3(endpoint):
    error = counts(endpoint, f"s3://{BUCKET}/nothing/")["error"]
    assert error == f"s3://{BUCKET}/nothing/ is not an ingest output directory (it has no _manifest)"
    assert "is not a bucket name" in counts(endpoint, "s3://Bad_Bucket/x/")["error"]
