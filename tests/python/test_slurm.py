"""The Slurm array script under a real single-node Slurm.

The cluster (Debian's slurm-wlm and munge: slurmctld, slurmd and munged)
is started by scripts/slurm/local-cluster.sh under a private directory
and stopped by pid afterwards. Jobs are submitted with `sbatch --wait`,
and their tables are compared, row for row through DuckDB, with one
process over the same files."""

import gzip
import os
import re
import shutil
import subprocess
from pathlib import Path

import duckdb
import pytest

from conftest import BIN, ROOT, SAMPLES, TABLES, connect, table_source

SLURM = ROOT / "scripts" / "slurm"
FILES = 8


@pytest.fixture(scope="module")
def slurm(tmp_path_factory):
    """The environment for Slurm commands against a private cluster."""
    if os.environ.get("ROBOSTATS_NO_SLURM"):
        pytest.skip("ROBOSTATS_NO_SLURM is set")
    state = tmp_path_factory.mktemp("slurm")
    cluster = str(SLURM / "local-cluster.sh")
    start = subprocess.run(
        [cluster, "start", str(state)], capture_output=True, text=True, timeout=600
    )
    if start.returncode != 0:
        subprocess.run([cluster, "stop", str(state)], timeout=120)
        pytest.fail(f"the local Slurm cluster did not start:\n{start.stderr}")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_")}
    env.update(SLURM_CONF=str(state / "slurm.conf"), ROBOSTATS=str(BIN))
    yield env
    subprocess.run([cluster, "stop", str(state)], check=True, timeout=120)


@pytest.fixture(scope="module")
def crawl(tmp_path_factory):
    """FILES inputs laid out like a crawl's, and a gzipped paths file that
    lists them by relative name, as Common Crawl's robotstxt.paths.gz."""
    root = tmp_path_factory.mktemp("crawl")
    names = []
    for i in range(FILES):
        name = f"crawl-data/CC-MAIN-2025-47/segments/{i}/robotstxt/segment-{i:05}.warc.gz"
        (root / name).parent.mkdir(parents=True)
        shutil.copy(ROOT / SAMPLES[i % len(SAMPLES)], root / name)
        names.append(name)
    paths = root / "robotstxt.paths.gz"
    with gzip.open(paths, "wt") as f:
        f.write("\n".join(names) + "\n")
    return root, paths, names


@pytest.fixture(scope="module")
def single_run(crawl, tmp_path_factory):
    root, paths, _ = crawl
    out = tmp_path_factory.mktemp("single") / "out"
    proc = subprocess.run(
        [str(BIN), "ingest", "-q", "--paths", str(paths), "--prefix", str(root), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    return out


def assert_same_tables(expected, actual):
    """Every table holds the same rows (as multisets) in both outputs."""
    con = duckdb.connect()
    for t in TABLES:
        a = table_source(expected, t)
        b = table_source(actual, t)
        (na,), (nb,) = con.sql(f"SELECT count(*) FROM {a}").fetchall(), con.sql(
            f"SELECT count(*) FROM {b}"
        ).fetchall()
        assert na == nb, f"{t}: {na} rows in one run, {nb} in the array job"
        for x, y in ((a, b), (b, a)):
            [(diff,)] = con.sql(f"SELECT count(*) FROM (FROM {x} EXCEPT ALL FROM {y})").fetchall()
            assert diff == 0, f"{t}: {diff} rows differ"
    [(captures,)] = con.sql(f"SELECT count(*) FROM read_parquet('{actual}/captures/*.parquet')").fetchall()
    assert captures > 0


def shard_progress(out):
    """queries/ingest_progress.sql: (inputs done, failed) per manifest."""
    rows = connect(out).sql((ROOT / "queries" / "ingest_progress.sql").read_text()).fetchall()
    return {r[0]: (r[1], r[2]) for r in rows}


def logs(directory):
    return {p.name: p.read_text() for p in sorted(Path(directory).glob("*.out"))}


def part_files(out):
    return sorted(
        (p.relative_to(out), p.stat().st_mtime_ns)
        for t in TABLES
        for p in (out / t).glob("*.parquet")
    )


def test_array_job_equals_a_single_run_and_a_rerun_redoes_nothing(slurm, crawl, single_run, tmp_path):
    root, paths, _ = crawl
    out, log = tmp_path / "out", tmp_path / "log"
    log.mkdir()
    env = dict(
        slurm,
        FILES_PER_TASK="2",
        MAX_RUNNING="2",
        SBATCH_ARGS=f"--wait --cpus-per-task=1 --output={log}/%A_%a.out",
    )
    submit = [str(SLURM / "submit.sh"), str(paths), str(out), str(root)]
    proc = subprocess.run(submit, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr + "\n".join(logs(log).values())
    assert "8 inputs in 4 shards (--array=0-3%2)" in proc.stderr
    job = proc.stdout.strip()
    assert re.fullmatch(r"\d+", job), proc.stdout

    task_logs = logs(log)
    assert sorted(task_logs) == [f"{job}_{i}.out" for i in range(4)]
    for i in range(4):
        text = task_logs[f"{job}_{i}.out"]
        assert f"shard {i}/4: 2 of 8 inputs" in text, text
        assert "2 files done, 0 failed" in text, text
    manifests = sorted(p.name for p in (out / "_manifest").glob("*.jsonl"))
    assert manifests == [f"shard-{i:05}-of-00004.jsonl" for i in range(4)]
    # each shard's lock, and the data set's (see docs/concurrency.md)
    locks = sorted(p.name for p in (out / "_manifest").glob("*.lock"))
    assert locks == ["dataset.lock"] + [f"shard-{i:05}-of-00004.lock" for i in range(4)]
    assert_same_tables(single_run, out)

    # The whole job again: every task skips its finished inputs.
    before = part_files(out)
    for p in log.iterdir():
        p.unlink()
    proc = subprocess.run(submit, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    for text in logs(log).values():
        assert "0 files done, 0 failed, 2 skipped (done earlier)" in text, text
    assert part_files(out) == before

    # Compacted: one file per table, the same rows.
    proc = subprocess.run([str(BIN), "compact", str(out)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    # (agents: the data set's one crawler list, written once by all shards)
    # (body tables: every shard's bodies merged, one writer's rows per body)
    assert re.search(rf"compact: \d+ part files -> {len(TABLES) - 1} in", proc.stdout), proc.stdout
    for t in TABLES:
        files = [p.name for p in (out / t).glob("*.parquet") if p.name != "~empty.parquet"]
        assert len(files) == (0 if t == "errors" else 1), (t, files)
    assert_same_tables(single_run, out)


def test_a_failing_task_fails_the_job_and_its_resubmission_finishes_it(slurm, crawl, single_run, tmp_path):
    root, paths, names = crawl
    out, log = tmp_path / "out", tmp_path / "log"
    log.mkdir()
    # The input at position 7 is shard 3's (of 4): it is missing. One task
    # at a time, so that the failing task is the last (sbatch --wait takes
    # the exit status from the tasks Slurm still remembers).
    hidden = root / "hidden.warc.gz"
    shutil.move(root / names[7], hidden)
    try:
        env = dict(slurm, SBATCH_ARGS=f"--wait --cpus-per-task=1 --output={log}/%A_%a.out")
        submit = [str(SLURM / "submit.sh"), str(paths), str(out), str(root)]
        proc = subprocess.run(
            submit, env=dict(env, SHARDS="4", MAX_RUNNING="1"), capture_output=True, text=True,
            timeout=600,
        )
        # sbatch --wait returns the highest exit status of the tasks.
        assert proc.returncode == 1, proc.stderr
        job = proc.stdout.strip()
        task_logs = logs(log)
        assert "could not read 'crawl-data/CC-MAIN-2025-47/segments/7/" in task_logs[f"{job}_3.out"]
        assert "1 file done, 1 failed" in task_logs[f"{job}_3.out"]
        for i in (0, 1, 2):
            assert "2 files done, 0 failed" in task_logs[f"{job}_{i}.out"]
    finally:
        shutil.move(hidden, root / names[7])

    progress = shard_progress(out)
    assert progress["shard-00003-of-00004"] == (1, 1)
    assert all(progress[f"shard-{i:05}-of-00004"] == (2, 0) for i in (0, 1, 2))

    # Only the failed index, with the same shard count.
    proc = subprocess.run(
        submit, env=dict(env, SHARDS="4", ARRAY="3"), capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stderr
    job = proc.stdout.strip()
    text = logs(log)[f"{job}_3.out"]
    assert "shard 3/4: 2 of 8 inputs" in text, text
    assert "1 file done, 0 failed, 1 skipped (done earlier), 1 retried" in text, text
    assert_same_tables(single_run, out)
    assert sum(done for done, _ in shard_progress(out).values()) == FILES
    assert sum(failed for _, failed in shard_progress(out).values()) == 0


def test_the_script_alone_with_an_array_from_3_step_2(slurm, crawl, single_run, tmp_path):
    """sbatch robostats.sbatch directly: the array (IDs 3, 5, 7, 9) is the
    whole job, and each task's shard is its position in it."""
    root, paths, _ = crawl
    out, log = tmp_path / "out", tmp_path / "log"
    log.mkdir()
    proc = subprocess.run(
        ["sbatch", "--parsable", "--wait", "--array=3-9:2", "--cpus-per-task=1",
         f"--output={log}/%A_%a.out", str(SLURM / "robostats.sbatch"), str(paths), str(out), str(root)],
        env=slurm, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr + "\n".join(logs(log).values())
    job = proc.stdout.strip()
    task_logs = logs(log)
    for position, task in enumerate((3, 5, 7, 9)):
        assert f"shard {position}/4: 2 of 8 inputs" in task_logs[f"{job}_{task}.out"]
    assert_same_tables(single_run, out)
