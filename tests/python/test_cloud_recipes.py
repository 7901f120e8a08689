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
import socket
import subprocess
import sys
import time
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
    source, target = [a for a in args[2:] if not a.startswith("--")]
    s3 = boto3.client("s3", endpoint_url=os.environ["AWS_ENDPOINT_URL"], region_name="us-east-1")
    if source.startswith("s3://"):
        bucket, key = source[5:].split("/", 1)
        sys.stdout.buffer.write(s3.get_object(Bucket=bucket, Key=key)["Body"].read())
    else:
        bucket, key = target[5:].split("/", 1)
        s3.upload_file(source, bucket, key)
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


def run_compact(store, command, local, tmp_path, **env):
    """The job after the array: its command (a recipe's), then the same
    rows, in fewer files."""
    proc = subprocess.run(robostats(command), cwd=ROOT, env=store.env(**env), capture_output=True, text=True,
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


def test_kubernetes_indexed_job_then_compact(store, crawl, local, tmp_path):
    """From a local paths file, which render.sh uploads for the pods."""
    jobs = tmp_path / "jobs"
    root, _ = crawl
    uploaded = f"s3://{RESULTS}/paths/k8s.paths.gz"
    proc = subprocess.run(
        [str(K8S / "render.sh"), "--paths", str(root / "robotstxt.paths.gz"), "--upload-paths", uploaded,
         "--prefix", PREFIX, "--out", f"s3://{RESULTS}/k8s/", "--image", "registry.example/robostats:1",
         "--files-per-task", str(FILES_PER_TASK), str(jobs)],
        env=store.env(), capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "paths/k8s.paths.gz" in store.keys("paths/")
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
    assert option(command, "--paths") == uploaded
    environment = {e["name"]: e["value"] for e in container.get("env", [])}
    out = run_children(store, robostats(command), [
        {**environment, "JOB_COMPLETION_INDEX": str(i)} for i in range(count)
    ])
    assert_equals_local(store, out, local, tmp_path)

    # compact's pod: a volume of its own as its $TMPDIR, 10 GiB (the least).
    pod = yaml.safe_load((jobs / "compact.yaml").read_text())["spec"]["template"]["spec"]
    [compact] = pod["containers"]
    assert compact["command"] == ["robostats", "compact", "-j", "4", "--grace", "0", f"s3://{RESULTS}/k8s/"]
    [mount] = compact["volumeMounts"]
    assert {e["name"]: e["value"] for e in compact["env"]} == {"TMPDIR": mount["mountPath"]}
    [volume] = pod["volumes"]
    assert volume["name"] == mount["name"]
    claim = volume["ephemeral"]["volumeClaimTemplate"]["spec"]
    assert claim["resources"]["requests"]["storage"] == "10Gi"
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    run_compact(store, compact["command"], local, tmp_path, TMPDIR=str(scratch))
    assert list(scratch.iterdir()) == []

    # The objects as the API server takes them (the schemas of Kubernetes
    # 1.30, strict: no field it does not know).
    validate = pytest.importorskip("kubernetes_validate", reason="installed by scripts/test-deps.sh")
    for manifest in (jobs / "ingest.yaml", jobs / "compact.yaml", K8S / "serviceaccount.yaml"):
        validate.validate(yaml.safe_load(manifest.read_text()), "1.30", strict=True)

    # compact's disk as asked, the list read where it is.
    proc = subprocess.run(
        [str(K8S / "render.sh"), "--paths", PATHS, "--prefix", PREFIX, "--out", f"s3://{RESULTS}/k8s/",
         "--image", "registry.example/robostats:1", "--compact-disk", "250", str(tmp_path / "again")],
        env=store.env(), capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    again = yaml.safe_load((tmp_path / "again" / "compact.yaml").read_text())["spec"]["template"]["spec"]
    assert again["volumes"][0]["ephemeral"]["volumeClaimTemplate"]["spec"]["resources"]["requests"] == {
        "storage": "250Gi"
    }
    [ingest_container] = yaml.safe_load((tmp_path / "again" / "ingest.yaml").read_text())["spec"]["template"][
        "spec"]["containers"]
    assert option(ingest_container["command"], "--paths") == PATHS


def test_the_scripts_parse_and_submit_sh_plans_the_array(tmp_path):
    for script in [*BATCH.glob("*.sh"), *K8S.glob("*.sh"), ROOT / "scripts" / "cluster-lib.sh"]:
        subprocess.run(["bash", "-n", str(script)], check=True)
    paths = tmp_path / "robotstxt.paths"

    def plan(inputs, *options, status=0, upload=("--upload-paths", "s3://b/lists/cc.paths")):
        paths.write_text("# a comment\n\n" + "".join(f"f{i}.warc.gz\n" for i in range(inputs)))
        proc = subprocess.run(
            [str(BATCH / "submit.sh"), "--paths", str(paths), *upload, "--out", "s3://b/cc/", "--queue", "q",
             "--dry-run", *options],
            capture_output=True, text=True, timeout=60,
        )
        assert proc.returncode == status, proc.stderr
        commands = [shlex.split(line) for line in proc.stdout.splitlines()]
        if status == 0:
            # the local list goes to S3 first, where the children read it
            assert commands.pop(0) == ["aws", "s3", "cp", "--quiet", "--", str(paths), "s3://b/lists/cc.paths"]
        return commands, proc.stderr

    (array, compact), err = plan(250)
    assert "250 inputs in 3 shards" in err
    assert array[:3] == ["aws", "batch", "submit-job"] and option(array, "--array-properties") == "size=3"
    assert json.loads(option(array, "--parameters")) == {
        "paths": "s3://b/lists/cc.paths", "prefix": "s3://commoncrawl/", "out": "s3://b/cc/"
    }
    # A local list no child could read, or one uploaded into the data set.
    commands, err = plan(250, upload=(), status=2)
    assert commands == [] and "the tasks cannot read the local file" in err and "--upload-paths" in err
    commands, err = plan(250, upload=("--upload-paths", "s3://b/cc/list.paths"), status=2)
    assert commands == [] and "outside the data set" in err
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


def docs_block(containing):
    """The code block of docs/cluster.md that holds `containing`."""
    text = (ROOT / "docs" / "cluster.md").read_text()
    blocks = [b.split("\n", 1)[1] for b in text.split("```")[1::2]]
    [block] = [b for b in blocks if containing in b]
    return block


# Each file of scripts/aws-batch/ and the request it is the input of: the
# aws CLI's --cli-input-json takes the operation's input as botocore
# models it.
AWS_INPUTS = {
    "ingest.json": ("batch", "RegisterJobDefinition"),
    "compact.json": ("batch", "RegisterJobDefinition"),
    "compute-environment.json": ("batch", "CreateComputeEnvironment"),
    "job-queue.json": ("batch", "CreateJobQueue"),
    "launch-template.json": ("ec2", "CreateLaunchTemplate"),
}
POLICIES = ["job-role-policy.json", "job-role-trust.json", "instance-role-trust.json"]


def test_the_aws_set_up_files_are_the_requests_the_docs_make(tmp_path):
    """docs/cluster.md fills in every placeholder of scripts/aws-batch/ with
    its own loop; each file is then a valid input of the request the docs
    send it with, and the names agree (role, queue, template)."""
    botocore_session = pytest.importorskip("botocore.session")
    from botocore.validate import validate_parameters

    assert sorted(p.name for p in BATCH.glob("*.json")) == sorted([*AWS_INPUTS, *POLICIES])
    shutil.copytree(BATCH, tmp_path / "scripts" / "aws-batch")
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "aws").write_text('#!/bin/sh\n[ "$1 $2" = "sts get-caller-identity" ] && echo 123456789012\n')
    (fake / "aws").chmod(0o755)
    loop = docs_block("for f in scripts/aws-batch/*.json")
    subprocess.run(["bash", "-euc", loop], cwd=tmp_path, check=True, timeout=60,
                   env={**clean_env(), "PATH": f"{fake}:{clean_env()['PATH']}"})
    filled = {p.name: json.loads(p.read_text()) for p in (tmp_path / "aws").glob("*.json")}
    assert sorted(filled) == sorted([*AWS_INPUTS, *POLICIES])
    assert "YOUR-" not in json.dumps(filled)

    session = botocore_session.get_session()
    for name, (service, operation) in AWS_INPUTS.items():
        shape = session.get_service_model(service).operation_model(operation).input_shape
        validate_parameters(filled[name], shape)  # raises on a wrong or missing field
    for name in POLICIES:
        assert filled[name]["Version"] == "2012-10-17" and filled[name]["Statement"]

    # The names the set-up commands create are the names the files use.
    setup = "\n".join(docs_block(marker) for marker in (
        "aws iam create-role --role-name robostats-job", "aws batch create-job-queue", "aws ecr create-repository",
    ))
    for name in ("ingest.json", "compact.json"):
        container = filled[name]["containerProperties"]
        assert container["jobRoleArn"] == "arn:aws:iam::123456789012:role/robostats-job"
        assert container["image"] == "123456789012.dkr.ecr.us-east-1.amazonaws.com/robostats:latest"
        assert f"file://aws/{name}" in setup
    for name in AWS_INPUTS.keys() - {"ingest.json", "compact.json"}:
        assert f"--cli-input-json file://aws/{name}" in setup
    environment = filled["compute-environment.json"]
    assert filled["job-queue.json"]["computeEnvironmentOrder"][0]["computeEnvironment"] == \
        environment["computeEnvironmentName"]
    assert environment["computeResources"]["launchTemplate"]["launchTemplateName"] == \
        filled["launch-template.json"]["LaunchTemplateName"]
    [disk] = filled["launch-template.json"]["LaunchTemplateData"]["BlockDeviceMappings"]
    assert disk["Ebs"]["VolumeSize"] >= 200  # compact holds the data set twice
    assert 'docker build -t "$registry/robostats:latest" .' in setup
    assert "robostats" in (ROOT / "Dockerfile").read_text()
    assert "target/" in (ROOT / ".dockerignore").read_text().split()


def start_moto_enforcing_iam(tmp_path):
    """moto's server in a process of its own, enforcing IAM policies after
    its first 3 requests (the admin user's): (endpoint, process, admin
    credentials)."""
    boto3 = pytest.importorskip("boto3")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        env=dict(clean_env(), INITIAL_NO_AUTH_ACTION_COUNT="3"),
        stdout=subprocess.DEVNULL, stderr=open(tmp_path / "moto.log", "w"),
    )
    endpoint = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.1)
    iam = boto3.client("iam", endpoint_url=endpoint, region_name="us-east-1",
                       aws_access_key_id="t", aws_secret_access_key="t")
    iam.create_user(UserName="admin")
    iam.put_user_policy(UserName="admin", PolicyName="all", PolicyDocument=json.dumps(
        {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}))
    key = iam.create_access_key(UserName="admin")["AccessKey"]
    return endpoint, server, (key["AccessKeyId"], key["SecretAccessKey"])


def test_the_job_role_policy_allows_what_ingest_and_compact_ask_and_no_less(crawl, local, tmp_path):
    """scripts/aws-batch/job-role-policy.json, with the test's buckets for
    Common Crawl's and the data set's, as the only permissions of a user
    of an S3 that enforces them (moto's): the Batch child's ingest and the
    compact job's compact run to the same rows. Without its listing
    statement, ingest is refused and says so."""
    boto3 = pytest.importorskip("boto3")
    root, names = crawl
    endpoint, server, admin = start_moto_enforcing_iam(tmp_path)
    try:
        def client(service, credentials):
            return boto3.client(service, endpoint_url=endpoint, region_name="us-east-1",
                                aws_access_key_id=credentials[0], aws_secret_access_key=credentials[1])

        s3, iam = client("s3", admin), client("iam", admin)
        for bucket in ("commoncrawl-stand-in", "robostats-data"):
            s3.create_bucket(Bucket=bucket)
        for name in [*names, "robotstxt.paths.gz"]:
            s3.upload_file(str(root / name), "commoncrawl-stand-in", name)
        policy = (BATCH / "job-role-policy.json").read_text()
        policy = policy.replace("arn:aws:s3:::commoncrawl/", "arn:aws:s3:::commoncrawl-stand-in/")
        policy = policy.replace("YOUR-BUCKET", "robostats-data")

        def job_user(name, document):
            iam.create_user(UserName=name)
            iam.put_user_policy(UserName=name, PolicyName="robostats-s3", PolicyDocument=document)
            key = iam.create_access_key(UserName=name)["AccessKey"]
            return clean_env(AWS_ACCESS_KEY_ID=key["AccessKeyId"], AWS_SECRET_ACCESS_KEY=key["SecretAccessKey"],
                             AWS_ENDPOINT_URL=endpoint, AWS_REGION="us-east-1")

        definition = json.loads((BATCH / "ingest.json").read_text())
        command = robostats(batch_command(definition, {
            "paths": "s3://commoncrawl-stand-in/robotstxt.paths.gz", "prefix": "s3://commoncrawl-stand-in/",
            "out": "s3://robostats-data/cc/",
        }))
        env = job_user("job", policy)
        for i in range(2):
            child = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=240, env={
                **env, "AWS_BATCH_JOB_ARRAY_INDEX": str(i), "AWS_BATCH_JOB_ARRAY_SIZE": "2",
            })
            assert child.returncode == 0, child.stderr
        compact = robostats(batch_command(json.loads((BATCH / "compact.json").read_text()),
                                          {"out": "s3://robostats-data/cc/"}))
        proc = subprocess.run(compact, cwd=ROOT, capture_output=True, text=True, timeout=240, env=env)
        assert proc.returncode == 0, proc.stderr
        keys = [o["Key"] for page in s3.get_paginator("list_objects_v2").paginate(Bucket="robostats-data")
                for o in page.get("Contents", [])]
        dest = tmp_path / "downloaded"
        for key in keys:
            (dest / key).parent.mkdir(parents=True, exist_ok=True)
            s3.download_file("robostats-data", key, str(dest / key))
        assert_same_tables(local, dest / "cc")

        # The same policy less its listing statement: refused, and said.
        narrower = json.loads(policy)
        narrower["Statement"] = [st for st in narrower["Statement"] if st["Action"] != "s3:ListBucket"]
        child = subprocess.run(
            [*command[:command.index("--out") + 1], "s3://robostats-data/other/",
             *command[command.index("--out") + 2:]],
            cwd=ROOT, capture_output=True, text=True, timeout=240,
            env={**job_user("narrow", json.dumps(narrower)), "AWS_BATCH_JOB_ARRAY_INDEX": "0",
                 "AWS_BATCH_JOB_ARRAY_SIZE": "2"},
        )
        assert child.returncode != 0 and "403" in child.stderr, child.stderr
    finally:
        server.terminate()
        server.wait(timeout=30)
