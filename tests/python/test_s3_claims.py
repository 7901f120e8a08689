"""The claim that keeps one writer per manifest of a data set on S3
(s3_store.py's moto): a dead run's claim taken over once expired, a run
killed (SIGKILL) at each step finished by the next, a stopped holder
taken over that records nothing after."""

import os
import re
import signal
import time

import pytest

from conftest import SAMPLES
from s3_store import (
    BUCKET, SHORT_LEASE, Rule, assert_equals_local, kill_at, local, manifest_lines, no_rules_left, run, start,
    store,
)


def test_the_claim_of_a_dead_run_is_taken_over_once_expired(store, local, tmp_path):
    """A claim nobody renews (its run was killed) is taken over once S3's
    clock says it expired: not before."""
    key = "dead/_manifest/run.lease"
    store.client.put_object(Bucket=BUCKET, Key=key, Body=b'{"holder": "ingest (run)"}')
    started = time.monotonic()
    run(store, "dead", ROBOSTATS_S3_LEASE_SECONDS=SHORT_LEASE)
    assert time.monotonic() - started >= int(SHORT_LEASE)
    assert_equals_local(store, "dead", local, tmp_path)


@pytest.mark.parametrize(
    "point",
    [
        # A part file stored, its input not recorded.
        Rule("PUT", "/captures/", nth=2, after=True),
        # Before its first input's line reaches the manifest.
        Rule("PUT", "/_manifest/run.jsonl", nth=2, before=True),
        # After the second input's line: one input left to do.
        Rule("PUT", "/_manifest/run.jsonl", nth=3, after=True),
        # While deleting a leftover (the second kill's re-run).
        Rule("DELETE", "/captures/", nth=1, before=True),
        # A body file stored (the distinct bodies' table), the bodies' line
        # tables and the input not yet.
        Rule("PUT", "/bodies/", nth=1, after=True),
        # A body line table stored, the others not.
        Rule("PUT", "/body_rules/", nth=1, after=True),
    ],
    ids=["part-stored", "before-append", "after-append", "at-delete", "body-stored", "body-lines-stored"],
)
def test_a_run_killed_anywhere_is_finished_by_the_next(store, local, tmp_path, point):
    prefix = f"killed-{point.key.strip('/').split('/')[-1]}-{point.nth}-{point.method.lower()}"
    env = {"ROBOSTATS_S3_LEASE_SECONDS": SHORT_LEASE}
    if point.method == "DELETE":
        # A part file stored and not recorded first, for the re-run to delete.
        first = start(store, prefix, "-j", "1", **env)
        kill_at(store, first, Rule("PUT", f"/{prefix}/captures/", nth=2, after=True))
    proc = start(store, prefix, "-j", "1", **env)
    kill_at(store, proc, Rule(point.method, f"/{prefix}{point.key}", nth=point.nth,
                              after=point.after, before=point.before))
    run(store, prefix, **env)
    assert_equals_local(store, prefix, local, tmp_path)
    done = [line for line in manifest_lines(store, prefix) if line.get("type") == "input"]
    assert sorted({d["input"] for d in done if d["status"] == "done"}) == sorted(SAMPLES)


@pytest.mark.parametrize("after", [False, True], ids=["before-rotation", "after-rotation"])
def test_a_run_killed_as_its_manifest_rotates_is_finished_by_the_next(store, local, tmp_path, after):
    """A run's manifest goes to a new segment past a size (256 KiB; here
    2,500 bytes, ROBOSTATS_S3_SEGMENT_BYTES, so that the samples' inputs
    rotate it): killed as it creates its second segment, before or after
    S3 stores it, the next run finishes, reading both segments."""
    prefix = f"rotated-{'after' if after else 'before'}"
    env = {"ROBOSTATS_S3_LEASE_SECONDS": SHORT_LEASE, "ROBOSTATS_S3_SEGMENT_BYTES": "2500"}
    proc = start(store, prefix, "-j", "1", **env)
    kill_at(store, proc, Rule("PUT", f"/{prefix}/_manifest/run.0001.jsonl", before=not after, after=after))
    run(store, prefix, **env)
    segments = [k for k in store.keys(f"{prefix}/_manifest/") if re.search(r"/run(\.\d{4})?\.jsonl$", k)]
    assert len(segments) >= 2, segments
    assert_equals_local(store, prefix, local, tmp_path)


def test_a_stopped_holder_is_taken_over_and_records_nothing_after(store, local, tmp_path):
    """A run stopped (SIGSTOP) longer than its claim lasts is taken over;
    continued, it stops before its next upload or append, exit status 2."""
    env = {"ROBOSTATS_S3_LEASE_SECONDS": SHORT_LEASE}
    first = start(store, "stopped", "-j", "1", **env)
    store.rules.append(Rule("PUT", "/stopped/captures/", before=lambda: os.kill(first.pid, signal.SIGSTOP)))
    deadline = time.monotonic() + 60
    while not any(r.seen for r in store.rules) and time.monotonic() < deadline:
        time.sleep(0.1)
    run(store, "stopped", **env)
    lines_before = manifest_lines(store, "stopped")
    os.kill(first.pid, signal.SIGCONT)
    _, err = first.communicate(timeout=120)
    assert first.returncode == 2, err
    assert "no longer holds" in err or "written by another run" in err, err
    assert manifest_lines(store, "stopped") == lines_before
    assert_equals_local(store, "stopped", local, tmp_path)
