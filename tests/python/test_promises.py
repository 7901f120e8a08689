"""The promises of docs/concurrency.md that a data set keeps on a
directory and on S3 alike, each tested once, by the same test body, on a
directory and on a prefix of the test's S3 server (moto, s3_store.py).

A run is killed (SIGKILL), or held, right after the n-th step of a kind it
makes on the data set, by robostats itself
(`ROBOSTATS_TEST_KILL_AFTER=<step>:<n>[:hold]`, src/output/kill_point.rs):
`part` (a part file published: renamed, or uploaded), `line` (manifest
lines appended), `commit` (a compaction made visible: a table's
directory exchanged, or a generation committed), `delete` (replaced files
deleted). The fault tests of each backend beside these kill at every
system call (tests/faults.rs) and at every request
(test_s3_compact_kills.py, test_s3_out.py)."""

import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import BIN, ROOT, SAMPLES, TABLES, assert_same_tables, clean_env, connect
from s3_store import BUCKET, SHORT_LEASE, local, store  # noqa: F401


class Directory:
    """A data set in a directory."""

    def __init__(self, root, name):
        self.dir = Path(root) / name
        self.url = str(self.dir)

    def env(self, **extra):
        return clean_env(**extra)

    def keys(self, hidden=False):
        """The data set's files, relative (a run's lock files and, unless
        `hidden`, hidden names aside: S3 has no counterpart of them)."""
        return sorted(
            str(p.relative_to(self.dir)) for p in self.dir.rglob("*")
            if p.is_file() and not p.name.endswith(".lock")
            and (hidden or not any(part.startswith(".") for part in p.relative_to(self.dir).parts))
        )

    def delete(self, key):
        (self.dir / key).unlink()

    def copy(self, dest):
        return self.dir

    def fill_from(self, source):
        """The data set `source` (a directory) copied here."""
        shutil.copytree(source, self.dir)


class Prefix:
    """A data set under a prefix of the test's S3 server."""

    def __init__(self, store, name):
        self.store, self.name = store, name
        self.url = f"s3://{BUCKET}/{name}/"

    def env(self, **extra):
        return self.store.env(**extra)

    def keys(self, hidden=False):
        return [k[len(self.name) + 1:] for k in self.store.keys(f"{self.name}/")]

    def delete(self, key):
        self.store.client.delete_object(Bucket=BUCKET, Key=f"{self.name}/{key}")

    def copy(self, dest):
        return self.store.download(self.name, dest)

    def fill_from(self, source):
        """The data set `source` (a prefix) copied here, server side."""
        for key in self.store.keys(f"{source}/"):
            self.store.client.copy_object(Bucket=BUCKET, Key=f"{self.name}/{key[len(source) + 1:]}",
                                          CopySource={"Bucket": BUCKET, "Key": key})


@pytest.fixture(params=["directory", "s3"])
def place(request, tmp_path):
    """Where the data set is: a directory, or a prefix on S3 (named after
    the test, so that each has its own)."""
    name = "".join(c if c.isalnum() else "-" for c in request.node.name).strip("-").lower()
    if request.param == "directory":
        return Directory(tmp_path, name)
    return Prefix(request.getfixturevalue("store"), name)


@pytest.fixture(scope="module")
def three_shards(tmp_path_factory, store):  # noqa: F811
    """The samples ingested in three shards, once per module: into a
    directory, and under a prefix of the S3 server."""
    places = {"directory": Directory(tmp_path_factory.mktemp("shards"), "out"),
              "s3": Prefix(store, "promises-three-shards")}
    for place in places.values():
        for i in range(3):
            assert ingest(place, "--shard", f"{i}/3").returncode == 0
    return {kind: place.dir if kind == "directory" else place.name for kind, place in places.items()}


def robostats(place, *args, kill_after=None, lease_seconds=None):
    """robostats `args` run to its end (or to its kill point)."""
    extra = {"ROBOSTATS_TEST_KILL_AFTER": kill_after} if kill_after else {}
    if lease_seconds:
        extra["ROBOSTATS_S3_LEASE_SECONDS"] = lease_seconds
    return subprocess.run([str(BIN), *args], cwd=ROOT, env=place.env(**extra), capture_output=True,
                          text=True, timeout=240)


def ingest(place, *extra, kill_after=None):
    return robostats(place, "ingest", "-q", "--out", place.url, *extra, *map(str, SAMPLES),
                     kill_after=kill_after)


def compact(place, kill_after=None):
    """compact, the old files deleted at once, without the crawl tables
    (their steps are a compaction's too: test_crawl_tables.py)."""
    return robostats(place, "compact", place.url, "--grace", "0", "--no-crawl-tables",
                     kill_after=kill_after)


def view_counts(out):
    """Each table's rows as the views read them."""
    con = connect(out)
    return {t: con.sql(f"SELECT count(*) FROM {t}").fetchall()[0][0] for t in TABLES}


def assert_single_run(place, local, dest):  # noqa: F811
    """The data set holds the local run's rows, and no claim is left."""
    assert_same_tables(local, place.copy(dest))
    assert not [k for k in place.keys() if k.endswith(".lease")], place.keys()


@pytest.mark.parametrize("step", ["part:9", "line:2"])
def test_an_ingest_killed_after_a_step_and_run_again_ends_with_a_single_runs_rows(
        place, local, tmp_path, step):  # noqa: F811
    killed = ingest(place, kill_after=step)
    assert killed.returncode == -signal.SIGKILL, f"not killed after {step}: {killed.stderr}"
    # (killed after an input's first part files, or its first lines)
    wrote = [k for k in place.keys() if k.endswith(".parquet") and not k.endswith("~empty.parquet")
             or k.endswith(".jsonl")]
    assert wrote, place.keys()
    again = ingest(place)
    assert again.returncode == 0, again.stderr
    assert_single_run(place, local, tmp_path / "copy")
    keys = place.keys()
    assert ingest(place).returncode == 0 and place.keys() == keys, "the next run had something to do"


@pytest.mark.parametrize("step", ["line:1", "commit:1", "delete:5"])
def test_a_compaction_killed_after_a_step_loses_and_doubles_nothing(
        place, local, three_shards, tmp_path, step):  # noqa: F811
    place.fill_from(three_shards["directory" if isinstance(place, Directory) else "s3"])
    expected = view_counts(local)
    killed = compact(place, kill_after=step)
    assert killed.returncode == -signal.SIGKILL, f"not killed after {step}: {killed.stdout}{killed.stderr}"
    # (killed once merged files were written: staged on disk, uploaded on S3)
    assert [k for k in place.keys(hidden=True) if "compacted-" in k], place.keys(hidden=True)
    # every row once, as before or compacted
    assert view_counts(place.copy(tmp_path / "killed")) == expected
    if isinstance(place, Prefix):
        shutil.rmtree(tmp_path / "killed")
    done = compact(place)
    assert done.returncode == 0, done.stderr
    assert_single_run(place, local, tmp_path / "compacted")
    # and compacted: a file a table
    again = compact(place)
    files = re.search(r"^compact: (\d+) part files -> (\d+) ", again.stdout, re.M)
    assert files[1] == files[2], again.stdout


def test_a_twin_of_a_live_run_is_refused_naming_it_and_the_run_goes_on(place, local, tmp_path):  # noqa: F811
    """A requeued batch task started beside its first attempt, which is
    alive (held after its first manifest line, its claim renewed on S3): the
    twin stops at once, naming the first attempt's process, and writes
    nothing; the first attempt, let go on, ends with a single run's
    rows."""
    hold = tmp_path / "hold"
    hold.touch()
    first = subprocess.Popen(
        [str(BIN), "ingest", "-q", "-j", "1", "--out", place.url, *map(str, SAMPLES)], cwd=ROOT,
        env=place.env(ROBOSTATS_TEST_KILL_AFTER="line:1:hold", ROBOSTATS_TEST_HOLD=str(hold),
                      ROBOSTATS_S3_LEASE_SECONDS=SHORT_LEASE),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not [k for k in place.keys() if k.startswith("_manifest/") and k.endswith(".jsonl")]:
            assert first.poll() is None and time.monotonic() < deadline, "no manifest line written"
            time.sleep(0.05)
        keys = place.keys()
        # (on S3 the twin waits for a renewal: a short lease renews every second)
        twin = robostats(place, "ingest", "-q", "--out", place.url, *map(str, SAMPLES),
                         lease_seconds=SHORT_LEASE)
        assert twin.returncode == 2, twin.stderr
        assert f"process {first.pid}" in twin.stderr, twin.stderr
        assert place.keys() == keys
    finally:
        hold.unlink()
    _, err = first.communicate(timeout=240)
    assert first.returncode == 0, err
    assert_single_run(place, local, tmp_path / "copy")


def held(place, args, step, hold):
    """robostats `args` started and held right after its `step`, until
    `hold` is deleted (it says it is held by writing `<hold>.held`)."""
    hold.touch()
    mark = Path(f"{hold}.held")
    mark.unlink(missing_ok=True)
    proc = subprocess.Popen([str(BIN), *args], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=place.env(ROBOSTATS_TEST_KILL_AFTER=f"{step}:hold",
                                                     ROBOSTATS_TEST_HOLD=str(hold)))
    deadline = time.monotonic() + 60
    while not mark.exists():
        assert proc.poll() is None and time.monotonic() < deadline, f"never held: {proc.communicate()}"
        time.sleep(0.05)
    return proc


def assert_refused_beside(place, holder, hold, refused_run, named):
    """`refused_run()`, beside the live `holder` (held until `hold` is
    deleted), stops at once naming `named` and its process, and writes
    nothing; the holder, let go on, ends well."""
    try:
        keys = place.keys()
        refused = refused_run()
        assert refused.returncode == 2 and named in refused.stderr, refused.stderr
        assert f"process {holder.pid}" in refused.stderr, refused.stderr
        assert place.keys() == keys
    finally:
        hold.unlink()
    assert holder.wait(timeout=240) == 0, holder.stderr.read()


def test_compact_runs_alone(place, local, three_shards, tmp_path):  # noqa: F811
    """A live ingest (held after its first manifest line) refuses a
    compaction, naming it; a live compaction (held after it recorded its
    first merges) refuses an ingest, naming it. Neither refused run
    writes; both held runs then end as they would have."""
    place.fill_from(three_shards["directory" if isinstance(place, Directory) else "s3"])
    hold = tmp_path / "hold"
    ingesting = held(place, ["ingest", "-q", "--out", place.url, "--shard", "0/3", *map(str, SAMPLES)],
                     "line:1", hold)
    assert_refused_beside(place, ingesting, hold, lambda: compact(place), "ingest")
    compacting = held(place, ["compact", place.url, "--grace", "0", "--no-crawl-tables"], "line:1", hold)
    assert_refused_beside(place, compacting, hold, lambda: ingest(place, "--shard", "0/3"), "compact")
    assert_single_run(place, local, tmp_path / "copy")


def test_a_part_file_deleted_by_hand_is_written_again(place, local, tmp_path):  # noqa: F811
    """A done input whose part file is gone is done again, naming the file;
    a body whose file is gone is written again from a done input read for
    its bodies only; then the next run has nothing to do."""
    assert ingest(place).returncode == 0

    def first_file(table):
        return next(k for k in place.keys() if k.startswith(f"{table}/") and not k.endswith("~empty.parquet"))

    part = first_file("captures")
    place.delete(part)
    again = ingest(place)
    assert again.stdout.startswith("ingest: 1 file done"), again.stdout
    assert f"its part file {part} is missing" in again.stderr, again.stderr
    assert_single_run(place, local, tmp_path / "one")
    place.delete(first_file("body_rules"))
    again = ingest(place)
    assert "0 files done" in again.stdout and "read again for its bodies only" in again.stderr, again.stderr
    assert_single_run(place, local, tmp_path / "two")
    again = ingest(place)
    assert "0 files done, 0 failed, 3 skipped" in again.stdout and not again.stderr.strip(), again.stderr
