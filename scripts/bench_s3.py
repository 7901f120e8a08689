"""The benchmark of a data set written to S3: `ingest --out s3://...` into a
local S3 API server (moto's) against `ingest --out DIR` on the same files,
run after run in one session; then `compact` of both. Prints Markdown:
median seconds of each, their ratio, requests per input by method, and the
bytes of manifest traffic (appends rewrite the run's manifest segment).

    target/python-venv/bin/python scripts/bench_s3.py CORPUS_DIR [RUNS]

moto keeps the objects in memory, in this process: what it costs is in the
S3 column's time too (a real S3 answers from other machines)."""

import collections
import logging
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from moto.server import ThreadedMotoServer

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(os.environ.get("ROBOSTATS_BIN", ROOT / "target" / "release" / "robostats"))


def main():
    corpus = Path(sys.argv[1])
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    files = sorted(str(p) for p in corpus.glob("*.warc.gz"))
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    app = server._server.app
    seen = collections.Counter()
    manifest_bytes = collections.Counter()

    def counting(environ, start_response):
        method, path = environ["REQUEST_METHOD"], environ["PATH_INFO"]
        kind = "LIST" if method == "GET" and path.count("/") == 1 else method
        seen[kind] += 1
        if method == "PUT" and "/_manifest/" in path and path.endswith(".jsonl"):
            manifest_bytes["sent"] += int(environ.get("CONTENT_LENGTH") or 0)
        return app(environ, start_response)

    server._server.app = counting
    import boto3

    boto3.client(
        "s3", endpoint_url=f"http://{host}:{port}", region_name="us-east-1",
        aws_access_key_id="bench", aws_secret_access_key="bench",
    ).create_bucket(Bucket="bench")
    env = {
        k: v for k, v in os.environ.items() if not k.startswith("AWS_") and "proxy" not in k.lower()
    } | {
        "AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench", "AWS_REGION": "us-east-1",
        "AWS_ENDPOINT_URL": f"http://{host}:{port}", "AWS_EC2_METADATA_DISABLED": "true",
        "AWS_CONFIG_FILE": os.devnull, "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
    }
    times = collections.defaultdict(list)
    with tempfile.TemporaryDirectory() as tmp:
        for run in range(runs):
            for where in ("local", "s3"):
                out = f"{tmp}/out-{run}" if where == "local" else f"s3://bench/run-{run}/"
                before = (seen.copy(), manifest_bytes["sent"])
                for step, args in (("ingest", ["ingest", "-q", "--out", out, *files]),
                                   ("compact", ["compact", out, *(["--grace", "0"] if where == "s3" else [])])):
                    started = time.monotonic()
                    subprocess.run([str(BIN), *args], env=env, check=True, stdout=subprocess.DEVNULL)
                    times[where, step].append(time.monotonic() - started)
                    if where == "s3" and step == "ingest" and run == 0:
                        requests = seen - before[0]
                        sent = manifest_bytes["sent"] - before[1]
    server.stop()
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"{len(files)} inputs, {runs} runs each, medians (seconds):\n")
    print("| step | local --out | s3:// --out | ratio |")
    print("|---|---:|---:|---:|")
    for step in ("ingest", "compact"):
        local, s3 = med["local", step], med["s3", step]
        print(f"| {step} | {local:.2f} | {s3:.2f} | {s3 / local:.2f} |")
    total = sum(requests.values())
    by_kind = ", ".join(f"{k} {v / len(files):.1f}" for k, v in sorted(requests.items()))
    print(f"\nOne ingest: {total} requests, {total / len(files):.1f} per input ({by_kind});")
    print(f"manifest traffic {sent / len(files) / 1024:.1f} KiB per input ({sent} bytes in all).")


if __name__ == "__main__":
    main()
