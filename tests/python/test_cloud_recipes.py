"""The AWS Batch and Kubernetes recipes (scripts/aws-batch/,
scripts/k8s/) run as their schedulers run them, against moto's S3 server.

The commands are the recipes' own: the container command of
scripts/aws-batch/ingest.json with the parameters submit.sh submits, and
the command of the Job that scripts/k8s/render.sh writes. submit.sh and
render.sh count the paths file on S3 through an `aws` stand-in (it reads
moto's objects with boto3, and records the `batch submit-job` calls, each
answered with a job ID). Every child is a process with the scheduler's
environment (AWS_BATCH_JOB_ARRAY_INDEX and _SIZE; JOB_COMPLETION_INDEX),
all at once, one of them twice at once (a requeued child beside its first
attempt) and once more afterwards; the inputs are objects on moto, listed
by a paths file there. The data set downloaded equals, table by table, one
local run over local copies."""

import gzip
import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import BIN, ROOT, SAMPLES, assert_same_tables, clean_env, ingest, start_moto

FILES = 6
FILES_PER_TASK = 2
CRAWL, RESULTS = "crawl", "results"
PATHS = f"s3://{CRAWL}/inputs/robotstxt.paths.gz"
PREFIX = f"s3://{CRAWL}/inputs/"
BATCH = ROOT / "scripts" / "aws-batch"
K8S = ROOT / "scripts" / "k8s"

# The aws CLI, as far as submit.sh and render.sh use it.
FAKE_AWS = """#!{python}
import json, os, sys
import boto3
args = sys.argv[1:]
if args[:2] == ["s3", "cp"]:
    bucket, key = next(a for a in args if a.startswith("s3://"))[5:].split("/", 1)
    s3 = boto3.client("s3", endpoint_url=os.environ["AWS_ENDPOINT_URL"], region_name="us-east-1")
    sys.stdout.buffer.write(s3.get_object(Bucket=bucket, Key=key)["Body"].read())
elif args[:2] == ["batch", "submit-job"]:
    with open({log!r}, "a") as log:
        log.write(json.dumps(args) + "\\n")
    print("job-%d" % sum(1 for _ in open({log!r})))
else:
    sys.exit("fake aws: " + " ".join(args))
"""


class Store:
    def __init__(self, endpoint, client, bin_dir):
        self.endpoint, self.client, self.bin_dir = endpoint, client, bin_dir

    def env(self, **extra):
        """moto's endpoint and credentials, the fake aws first on PATH."""
        env = clean_env(AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing",
                        AWS_ENDPOINT_URL=self.endpoint, AWS_REGION="us-east-1", **extra)
        env["PATH"] = f"{self.bin_dir}:{env['PATH']}"
        return env

    def keys(self, prefix):
        pages = self.client.get_paginator("list_objects_v2").paginate(Bucket=RESULTS, Prefix=prefix)
        return {o["Key"]: o["ETag"] for page in pages for o in page.get("Contents", [])}

    def download(self, prefix, dest):
        for key in self.keys(prefix):
            path = dest / key[len(prefix):]
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(self.client.get_object(Bucket=RESULTS, Key=key)["Body"].read())
        return dest


@pytest.fixture(scope="module")
def crawl(tmp_path_factory):
    """FILES inputs under their crawl names in a local directory, and the
    paths file that lists them."""
    root = tmp_path_factory.mktemp("crawl")
    names = [f"crawl-data/CC-MAIN-2025-47/segments/{i}/robotstxt/segment-{i:05}.warc.gz" for i in range(FILES)]
    for i, name in enumerate(names):
        (root / name).parent.mkdir(parents=True)
        shutil.copy(ROOT / SAMPLES[i % len(SAMPLES)], root / name)
    with gzip.open(root / "robotstxt.paths.gz", "wt") as f:
        f.write("# a comment\n" + "\n".join(names) + "\n")
    return root, names


@pytest.fixture(scope="module")
def store(crawl, tmp_path_factory):
    """moto's S3 server holding the crawl under s3://crawl/inputs/."""
    server, endpoint, client = start_moto()
    root, names = crawl
    client.create_bucket(Bucket=CRAWL)
    client.create_bucket(Bucket=RESULTS)
    for name in [*names, "robotstxt.paths.gz"]:
        client.upload_file(str(root / name), CRAWL, f"inputs/{name}")
    bin_dir = tmp_path_factory.mktemp("bin")
    (bin_dir / "aws").write_text(FAKE_AWS.format(python=sys.executable, log=str(bin_dir / "submitted.jsonl")))
    (bin_dir / "aws").chmod(0o755)
    yield Store(endpoint, client, bin_dir)
    server.stop()


@pytest.fixture(scope="module")
def local(crawl, tmp_path_factory):
    """One local run over the local copies."""
    root, _ = crawl
    out = tmp_path_factory.mktemp("local") / "out"
    ingest([], out, "--paths", str(root / "robotstxt.paths.gz"), "--prefix", f"{root}/")
    return out


def run_children(store, command, schedulers):
    """Runs `command` once per scheduler environment in `schedulers`, all at
    once, the second also twice (a requeued child beside its first
    attempt); then the second once more, which writes no table file."""
    def start(env):
        return subprocess.Popen(command, cwd=ROOT, env=store.env(**env), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)

    children = [start(env) for env in [*schedulers, schedulers[1]]]
    ended = []
    for child in children:
        _, err = child.communicate(timeout=240)
        ended.append((child.returncode, err))
    # Of the twins, one does the shard; the other waits to see the claim
    # renewed and stops with status 2 naming it, or finds the shard done.
    twins = [ended.pop(1), ended.pop()]
    assert all(status == 0 for status, _ in ended), ended
    assert any(status == 0 for status, _ in twins), twins
    assert all(status == 0 or (status == 2 and ".lease" in err) for status, err in twins), twins
    out = command[command.index("--out") + 1].removeprefix(f"s3://{RESULTS}/")
    before = store.keys(out)
    again = subprocess.run(command, cwd=ROOT, env=store.env(**schedulers[1]), capture_output=True,
                           text=True, timeout=240)
    assert again.returncode == 0, again.stderr
    assert f"ingest: 0 files done, 0 failed, {FILES_PER_TASK} skipped" in again.stdout, again.stdout
    after = store.keys(out)
    assert {k: v for k, v in after.items() if "/_manifest/" not in k} == {
        k: v for k, v in before.items() if "/_manifest/" not in k
    }
    return out


def assert_equals_local(store, out, local, tmp_path):
    keys = store.keys(out)
    assert not [k for k in keys if k.endswith(".lease")], keys
    assert_same_tables(local, store.download(out, tmp_path / out.strip("/")))


def run_compact(store, command, local, tmp_path):
    """The job after the array: its command (a recipe's), then the same
    rows, in fewer files."""
    proc = subprocess.run(robostats(command), cwd=ROOT, env=store.env(), capture_output=True, text=True,
                          timeout=240)
    assert proc.returncode == 0, proc.stderr
    out = command[-1].removeprefix(f"s3://{RESULTS}/")
    assert_equals_local(store, out, local, tmp_path / "compacted")


def batch_command(definition, parameters):
    """The container command of a job definition, each Ref::NAME replaced
    as Batch does: by the submitted parameter, else the definition's."""
    values = {**definition.get("parameters", {}), **parameters}
    return [values[w[5:]] if w.startswith("Ref::") else w for w in definition["containerProperties"]["command"]]


def robostats(command):
    """A recipe's command, with the binary under test for `robostats`."""
    assert command[0] == "robostats", command
    return [str(BIN), *command[1:]]


def option(args, name):
    return args[args.index(name) + 1]


def test_aws_batch_array_then_compact(store, local, tmp_path):
    log = store.bin_dir / "submitted.jsonl"
    log.unlink(missing_ok=True)
    proc = subprocess.run(
        [str(BATCH / "submit.sh"), "--paths", PATHS, "--prefix", PREFIX, "--out", f"s3://{RESULTS}/batch/",
         "--queue", "q", "--files-per-task", str(FILES_PER_TASK)],
        env=store.env(), capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["job-1", "job-2"]
    array, compact = [json.loads(line) for line in log.read_text().splitlines()]
    size = int(option(array, "--array-properties").removeprefix("size="))
    assert size == FILES // FILES_PER_TASK
    assert option(array, "--job-definition") == "robostats-ingest"
    assert option(compact, "--job-definition") == "robostats-compact"
    assert option(compact, "--depends-on") == "jobId=job-1"
    assert "--array-properties" not in compact

    definition = json.loads((BATCH / "ingest.json").read_text())
    command = batch_command(definition, json.loads(option(array, "--parameters")))
    assert command[:2] == ["robostats", "ingest"] and option(command, "--shard") == "auto"
    # As a child that started a moment earlier leaves the data set before
    # its first manifest line: its schema-only files.
    for table in ("captures", "bodies"):
        store.client.upload_file(str(local / table / "~empty.parquet"), RESULTS, f"batch/{table}/~empty.parquet")
    out = run_children(store, robostats(command), [
        {"AWS_BATCH_JOB_ARRAY_INDEX": str(i), "AWS_BATCH_JOB_ARRAY_SIZE": str(size)} for i in range(size)
    ])
    assert_equals_local(store, out, local, tmp_path)
    manifests = [k for k in store.keys(out) if k.endswith(".jsonl")]
    assert sorted(manifests) == [f"{out}_manifest/shard-{i:05}-of-{size:05}.jsonl" for i in range(size)]

    compact_definition = json.loads((BATCH / "compact.json").read_text())
    compact_command = batch_command(compact_definition, json.loads(option(compact, "--parameters")))
    assert compact_command == ["robostats", "compact", "-j", "4", "--grace", "0", f"s3://{RESULTS}/batch/"]
    run_compact(store, compact_command, local, tmp_path)


def test_kubernetes_indexed_job_then_compact(store, local, tmp_path):
    jobs = tmp_path / "jobs"
    proc = subprocess.run(
        [str(K8S / "render.sh"), "--paths", PATHS, "--prefix", PREFIX, "--out", f"s3://{RESULTS}/k8s/",
         "--image", "registry.example/robostats:1", "--files-per-task", str(FILES_PER_TASK), str(jobs)],
        env=store.env(), capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    yaml = pytest.importorskip("yaml", reason="PyYAML comes with moto (scripts/test-deps.sh)")
    job = yaml.safe_load((jobs / "ingest.yaml").read_text())
    count = job["spec"]["completions"]
    assert count == FILES // FILES_PER_TASK and job["spec"]["completionMode"] == "Indexed"
    pod = job["spec"]["template"]["spec"]
    assert "volumes" not in pod and pod["restartPolicy"] == "Never"
    [container] = pod["containers"]
    assert container["image"] == "registry.example/robostats:1"
    command = container["command"] + container.get("args", [])
    assert option(command, "--shard") == "auto" and option(command, "--shard-count") == str(count)
    environment = {e["name"]: e["value"] for e in container.get("env", [])}
    out = run_children(store, robostats(command), [
        {**environment, "JOB_COMPLETION_INDEX": str(i)} for i in range(count)
    ])
    assert_equals_local(store, out, local, tmp_path)

    [compact] = yaml.safe_load((jobs / "compact.yaml").read_text())["spec"]["template"]["spec"]["containers"]
    assert compact["command"] == ["robostats", "compact", "-j", "4", "--grace", "0", f"s3://{RESULTS}/k8s/"]
    run_compact(store, compact["command"], local, tmp_path)


def test_the_scripts_parse_and_submit_sh_plans_the_array(tmp_path):
    for script in [*BATCH.glob("*.sh"), *K8S.glob("*.sh"), ROOT / "scripts" / "cluster-lib.sh"]:
        subprocess.run(["bash", "-n", str(script)], check=True)
    paths = tmp_path / "robotstxt.paths"

    def plan(inputs, *options, status=0):
        paths.write_text("# a comment\n\n" + "".join(f"f{i}.warc.gz\n" for i in range(inputs)))
        proc = subprocess.run(
            [str(BATCH / "submit.sh"), "--paths", str(paths), "--out", "s3://b/cc/", "--queue", "q",
             "--dry-run", *options],
            capture_output=True, text=True, timeout=60,
        )
        assert proc.returncode == status, proc.stderr
        return [shlex.split(line) for line in proc.stdout.splitlines()], proc.stderr

    (array, compact), err = plan(250)
    assert "250 inputs in 3 shards" in err
    assert array[:3] == ["aws", "batch", "submit-job"] and option(array, "--array-properties") == "size=3"
    assert json.loads(option(array, "--parameters")) == {
        "paths": str(paths), "prefix": "s3://commoncrawl/", "out": "s3://b/cc/"
    }
    assert option(compact, "--depends-on") == "jobId=ROBOSTATS-INGEST-ID"
    assert option(compact, "--job-definition") == "robostats-compact"
    (array, _), _ = plan(1)
    assert option(array, "--array-properties") == "size=2"  # Batch's smallest array
    (array, _), _ = plan(250, "--files-per-task", "1")
    assert option(array, "--array-properties") == "size=250"
    _, err = plan(250, "--files-per-task", "0", status=2)
    _, err = plan(10_001, "--files-per-task", "1", status=2)
    assert "more than Batch's 10,000" in err
    _, err = plan(0, status=2)
    assert "no inputs" in err

    # A paths file that cannot be read plans nothing.
    missing = str(tmp_path / "missing.paths")
    for command in (
        [BATCH / "submit.sh", "--out", "s3://b/cc/", "--queue", "q", "--dry-run"],
        [K8S / "render.sh", "--out", "s3://b/cc/", "--image", "i", tmp_path / "jobs"],
    ):
        proc = subprocess.run([*map(str, command), "--paths", missing], capture_output=True, text=True, timeout=60)
        assert proc.returncode == 2 and "could not read the paths file" in proc.stderr, proc.stderr
        assert proc.stdout == "" and not (tmp_path / "jobs").exists()
