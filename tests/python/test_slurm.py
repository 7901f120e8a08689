"""The Slurm array script under a real single-node Slurm.

The cluster (Debian's slurm-wlm and munge: slurmctld, slurmd and munged)
is started by scripts/slurm/local-cluster.sh under a private directory
and stopped by pid afterwards. Jobs are submitted with `sbatch --wait`,
and their tables are compared, row for row through DuckDB, with one
process over the same files. The cluster's MaxArraySize is 6 (task IDs 0
to 5), so that a job of 8 tasks must be split into two arrays."""

import gzip
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import BIN, ROOT, SAMPLES, TABLES, assert_same_tables, connect

SLURM = ROOT / "scripts" / "slurm"
FILES = 8
MAX_ARRAY_SIZE = 6


@pytest.fixture(scope="module")
def slurm(tmp_path_factory):
    """The environment for Slurm commands against a private cluster."""
    if os.environ.get("ROBOSTATS_NO_SLURM"):
        pytest.skip("ROBOSTATS_NO_SLURM is set")
    state = tmp_path_factory.mktemp("slurm")
    cluster = str(SLURM / "local-cluster.sh")
    start = subprocess.run(
        [cluster, "start", str(state)],
        env=dict(os.environ, MAX_ARRAY_SIZE=str(MAX_ARRAY_SIZE)),
        capture_output=True,
        text=True,
        timeout=600,
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


def shard_progress(out):
    """queries/ingest_progress.sql: (inputs done, failed) per manifest."""
    rows = connect(out).sql((ROOT / "queries" / "ingest_progress.sql").read_text()).fetchall()
    return {r[0]: (r[1], r[2]) for r in rows}


def logs(directory):
    return {p.name: p.read_text() for p in sorted(Path(directory).glob("*.out"))}


def submit(paths, root, out, *options, sbatch=()):
    """scripts/slurm/submit.sh's command line, with the sbatch flags after --."""
    return [
        str(SLURM / "submit.sh"), "--paths", str(paths), "--prefix", str(root), "--out", str(out),
        *options, "--", *sbatch,
    ]


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
    command = submit(
        paths, root, out, "--files-per-task", "2", "--max-running", "2",
        sbatch=["--wait", "--cpus-per-task=1", f"--output={log}/%A_%a.out"],
    )
    proc = subprocess.run(command, env=slurm, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr + "\n".join(logs(log).values())
    assert "8 inputs in 4 shards, 1 array(s) of at most 6 tasks" in proc.stderr
    assert "--array=0-3%2 (shards from 0)" in proc.stderr
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
    proc = subprocess.run(command, env=slurm, capture_output=True, text=True, timeout=600)
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
        sbatch = ["--wait", "--cpus-per-task=1", f"--output={log}/%A_%a.out"]
        proc = subprocess.run(
            submit(paths, root, out, "--shards", "4", "--max-running", "1", sbatch=sbatch),
            env=slurm, capture_output=True, text=True, timeout=600,
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
        submit(paths, root, out, "--shards", "4", "--array", "3", sbatch=sbatch),
        env=slurm, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    job = proc.stdout.strip()
    text = logs(log)[f"{job}_3.out"]
    assert "shard 3/4: 2 of 8 inputs" in text, text
    assert "1 file done, 0 failed, 1 skipped (done earlier), 1 retried" in text, text
    assert_same_tables(single_run, out)
    assert sum(done for done, _ in shard_progress(out).values()) == FILES
    assert sum(failed for _, failed in shard_progress(out).values()) == 0


def test_the_script_alone_with_an_array_from_1_step_2(slurm, crawl, single_run, tmp_path):
    """sbatch robostats.sbatch directly: the array (IDs 1, 3, 5) is the
    whole job, and each task's shard is its position in it."""
    root, paths, _ = crawl
    out, log = tmp_path / "out", tmp_path / "log"
    log.mkdir()
    proc = subprocess.run(
        ["sbatch", "--parsable", "--wait", "--array=1-5:2", "--cpus-per-task=1",
         f"--output={log}/%A_%a.out", str(SLURM / "robostats.sbatch"),
         "--paths", str(paths), "--prefix", str(root), "--out", str(out)],
        env=slurm, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr + "\n".join(logs(log).values())
    job = proc.stdout.strip()
    task_logs = logs(log)
    for position, (task, inputs) in enumerate(((1, 3), (3, 3), (5, 2))):
        assert f"shard {position}/3: {inputs} of 8 inputs" in task_logs[f"{job}_{task}.out"]
    assert_same_tables(single_run, out)


def test_the_binary_and_ingest_flags_reach_tasks_that_inherit_no_environment(slurm, crawl, tmp_path):
    """ROBOSTATS and ROBOSTATS_ARGS, read by submit.sh, stand in the
    script's arguments: tasks run them where the cluster exports nothing
    of the submitter's environment (SBATCH_EXPORT=NONE), and --dry-run
    shows them."""
    root, paths, _ = crawl
    out, log = tmp_path / "out", tmp_path / "log"
    log.mkdir()
    agents = tmp_path / "agents.txt"
    agents.write_text("GPTBot\nClaudeBot\n")
    env = dict(slurm, SBATCH_EXPORT="NONE", ROBOSTATS_ARGS=f"--agents {agents}")
    sbatch = ["--wait", "--cpus-per-task=1", f"--output={log}/%A_%a.out"]
    dry = subprocess.run(
        submit(paths, root, out, "--shards", "2", "--dry-run", sbatch=sbatch),
        env=env, capture_output=True, text=True, timeout=60,
    )
    assert dry.returncode == 0, dry.stderr
    assert dry.stdout.rstrip().endswith(
        f"--shards 2 --robostats {BIN} --shard-offset 0 -- --agents {agents}"
    ), dry.stdout
    proc = subprocess.run(
        submit(paths, root, out, "--shards", "2", sbatch=sbatch),
        env=env, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr + "\n".join(logs(log).values())
    for text in logs(log).values():
        assert "4 files done, 0 failed" in text, text
    [(tokens,)] = connect(out).sql("SELECT list_sort(list(token)) FROM agents").fetchall()
    assert tokens == ["*", "ClaudeBot", "GPTBot"]


def test_more_shards_than_max_array_size_run_as_arrays_in_a_row_then_compact(
    slurm, crawl, single_run, tmp_path
):
    """8 shards on a cluster whose arrays hold 6 tasks: two arrays (shards
    0-5, then 6-7 as task IDs 0-1 with an offset of 6), the second waiting
    for the first (--max-running); compact as a job of its own after both,
    as docs/cluster.md submits it."""
    root, paths, _ = crawl
    out, log = tmp_path / "out", tmp_path / "log"
    log.mkdir()
    sbatch = ["--cpus-per-task=1", f"--output={log}/%A_%a.out"]
    proc = subprocess.run(
        submit(paths, root, out, "--files-per-task", "1", "--max-running", "2", sbatch=sbatch),
        env=slurm, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    assert "8 inputs in 8 shards, 2 array(s) of at most 6 tasks" in proc.stderr
    assert "--array=0-5%2 (shards from 0)" in proc.stderr
    assert "--array=0-1%2 (shards from 6)" in proc.stderr
    jobs = proc.stdout.strip()
    first, second = jobs.split(":")
    shown = subprocess.run(
        ["scontrol", "show", "job", second], env=slurm, capture_output=True, text=True, timeout=60
    ).stdout
    assert f"Dependency=afterany:{first}_*(unfulfilled)" in shown, shown

    compact = subprocess.run(
        ["sbatch", "--parsable", "--wait", f"--dependency=afterok:{jobs}", "--cpus-per-task=1",
         f"--output={log}/compact-%j.out", f"--wrap={BIN} compact {out}"],
        env=slurm, capture_output=True, text=True, timeout=600,
    )
    assert compact.returncode == 0, compact.stderr + "\n".join(logs(log).values())
    task_logs = logs(log)
    for job, offset, tasks in ((first, 0, 6), (second, 6, 2)):
        for task in range(tasks):
            text = task_logs[f"{job}_{task}.out"]
            assert f"shard {offset + task}/8: 1 of 8 inputs" in text, text
            assert "1 file done, 0 failed" in text, text
    assert re.search(r"compact: \d+ part files", task_logs[f"compact-{compact.stdout.strip()}.out"])
    manifests = sorted(p.name for p in (out / "_manifest").glob("shard-*.jsonl"))
    assert manifests == [f"shard-{i:05}-of-00008.jsonl" for i in range(8)]
    assert_same_tables(single_run, out)

    # Shard 7 alone: task 1 of the array that starts at shard 6.
    proc = subprocess.run(
        submit(paths, root, out, "--files-per-task", "1", "--array", "7", sbatch=["--wait", *sbatch]),
        env=slurm, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    assert "--array=1 (shards from 6)" in proc.stderr
    text = logs(log)[f"{proc.stdout.strip()}_1.out"]
    assert "shard 7/8: 1 of 8 inputs" in text and "1 skipped (done earlier)" in text, text


def test_the_plan_of_arrays_within_max_array_size(tmp_path):
    """submit.sh --dry-run: 2,500 shards where arrays hold 1,001 tasks are
    three arrays, each after the one before; --array picks shards across
    them; without a readable configuration, Slurm's default 1001."""
    paths = tmp_path / "robotstxt.paths"
    paths.write_text("# a comment\n\n" + "".join(f"f{i}.warc.gz\n" for i in range(2500)))

    def plan(*options, env=None):
        proc = subprocess.run(
            [str(SLURM / "submit.sh"), "--paths", str(paths), "--out", "out/", "--dry-run", *options],
            env=env, capture_output=True, text=True, timeout=60,
        )
        assert proc.returncode == 0, proc.stderr
        return [line.split(" ", 3)[2:] for line in proc.stdout.splitlines()], proc.stderr

    arrays, err = plan("--files-per-task", "1", "--max-running", "50", "--max-array-size", "1001")
    assert "2500 inputs in 2500 shards, 3 array(s) of at most 1001 tasks" in err
    assert [a for a, _ in arrays] == ["--array=0-1000%50"] * 2 + ["--array=0-497%50"]
    assert [rest.startswith("--dependency=afterany:JOB") for _, rest in arrays] == [False, True, True]
    assert [rest.split()[-1] for _, rest in arrays] == ["0", "1001", "2002"]
    assert all("--shards 2500 --shard-offset" in rest for _, rest in arrays)

    arrays, _ = plan("--files-per-task", "1", "--array", "7,1001-1003,2499", "--max-array-size", "1001")
    assert [(a, rest.split()[-1]) for a, rest in arrays] == [
        ("--array=7", "0"), ("--array=0,1,2", "1001"), ("--array=497", "2002"),
    ]

    # The cluster's limits as `scontrol show config` prints them: the lower
    # of MaxArraySize and max_array_tasks; none when scontrol fails.
    fake = tmp_path / "bin"
    fake.mkdir()
    scontrol = fake / "scontrol"
    path = dict(os.environ, PATH=f"{fake}{os.pathsep}{os.environ['PATH']}")
    for config, tasks, count in (
        ("MaxArraySize            = 2001\nSchedulerParameters     = bf_interval=60,max_array_tasks=700", 700, 4),
        ("MaxArraySize            = 500\nSchedulerParameters     = (null)", 500, 5),
    ):
        scontrol.write_text(f"#!/bin/sh\ncat <<'EOF'\nConfiguration data as of now\n{config}\nEOF\n")
        scontrol.chmod(0o755)
        arrays, err = plan("--files-per-task", "1", env=path)
        assert f"{count} array(s) of at most {tasks} tasks" in err, err
        assert arrays[0][0] == f"--array=0-{tasks - 1}" and arrays[1][1].endswith(f"--shard-offset {tasks}")
    scontrol.write_text("#!/bin/sh\nexit 1\n")
    arrays, err = plan(env=path)
    assert "assuming 1001" in err and "2500 inputs in 25 shards, 1 array(s)" in err
    assert arrays == [["--array=0-24", arrays[0][1]]]

    proc = subprocess.run(
        [str(SLURM / "submit.sh"), "--paths", str(paths), "--out", "out/", "--dry-run",
         "--shards", "10", "--array", "10"],
        capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 2 and "the shards are 0 to 9" in proc.stderr
