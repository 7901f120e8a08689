"""`compact s3://bucket/prefix/` killed (SIGKILL) in every state its
requests leave, against moto's S3 server (s3_store.py): the views read
every row once, whatever the state, and the next compaction ends as an
uninterrupted one (a file of its own, beside test_s3_compact.py, so that
the test runs beside that file's)."""

import re
from concurrent.futures import ThreadPoolExecutor

from s3_store import BUCKET, Rule, assert_equals_local, local, no_rules_left, run, store
from test_s3_compact import compact, kill_compact_at, table_counts


def copy_prefix(store, source, target):
    """The objects under `source`, copied under `target` (server side)."""
    for key in store.keys(source + "/"):
        store.client.copy_object(Bucket=BUCKET, Key=target + key[len(source):],
                                 CopySource={"Bucket": BUCKET, "Key": key})


# Where a compaction on S3 is killed: in each state its requests leave
# (`nth=-1`: the last such request, counted on a compaction of the same
# data set): claimed, nothing uploaded; every new file uploaded (the
# crawl tables' last), the manifest not updated; everything deleted but
# the claim. (The manifest updated and not committed, and committed with
# nothing deleted, are test_promises.py's `line:1` and `commit:1`, killed
# there on a directory too.)
KILL_POINTS = [
    Rule("PUT", "/_manifest/compact.lease", after=True),
    Rule("PUT", "/compacted-", nth=-1, after=True),
    Rule("DELETE", "/_manifest/compact.lease", before=True),
]


def test_a_compaction_killed_at_every_step_loses_and_doubles_nothing(store, local, tmp_path):
    """SIGKILL at each step of a compaction on S3 (docs/object-storage.md):
    the views read every row once, as before or compacted, whatever the
    step; the next compaction (at once: the claim's process is gone) ends
    with the local run's rows in the files themselves and nothing left
    behind: no claim, no merged or orphaned file."""
    for i in range(2):
        run(store, "steps", "--shard", f"{i}/2")
    copy_prefix(store, "steps", "steps-counted")
    first = len(store.requests)
    compact(store, "steps-counted", crawl_tables=True)
    changes = [(m, p) for (m, p, *_) in store.requests[first:] if m in ("PUT", "DELETE")]
    expected = table_counts(local)

    def killed_at(n, point):
        matching = sum(1 for m, p in changes if m == point.method and point.key in p)
        assert matching, f"{point.method} {point.key}: no such request in {changes}"
        nth = matching if point.nth == -1 else point.nth
        when = f"killed {'before' if point.before else 'after'} {point.method} {point.key} #{nth}"
        prefix = f"steps-{n}"
        copy_prefix(store, "steps", prefix)
        kill_compact_at(store, prefix, Rule(point.method, point.key, nth=nth, before=point.before,
                                            after=point.after, within=f"/{BUCKET}/{prefix}/"))
        assert table_counts(store.download(prefix, tmp_path / f"killed-{n}")) == expected, when
        compact(store, prefix, crawl_tables=True)
        assert_equals_local(store, prefix, local, tmp_path)
        assert shapes(store, prefix) == shapes(store, "steps-counted"), when

    # two at a time: each waits on its processes and the server
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(killed_at, *zip(*enumerate(KILL_POINTS))))

def shapes(store, prefix):
    """The keys under `prefix`, relative, each compaction's id made one."""
    return sorted(re.sub(r"/compacted-[0-9a-f]+-", "/compacted-ID-", k[len(prefix):]) for k in store.keys(f"{prefix}/"))
