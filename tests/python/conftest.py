"""Shared fixtures: the release binary, ingested outputs, DuckDB connections
with the views of queries/ loaded, and facts about the sample WARC files computed
independently of robostats with warcio."""

import logging
import os
import subprocess
from pathlib import Path

import duckdb
import pytest

from warc_facts import read_warc

ROOT = Path(__file__).resolve().parents[2]
QUERIES = ROOT / "queries"
# The views every query reads, in the order they are read.
VIEW_FILES = [QUERIES / name for name in ("tables.sql", "views.sql", "strata.sql")]
BIN = Path(os.environ.get("ROBOSTATS_BIN", ROOT / "target" / "release" / "robostats"))

SYNTHETIC = "samples/CC-MAIN-20251107005800-20251107035800-00000.warc.gz"
RESILIPARSE = "samples/cc-main-2020-34-resiliparse-warcfile.warc.gz"
WHIRLWIND = "samples/cc-main-2024-22-whirlwind.warc.gz"
SAMPLES = [SYNTHETIC, RESILIPARSE, WHIRLWIND]

# The tables stored once per distinct body (keyed by body_digest and writer;
# queries/tables.sql joins the line tables to the captures as user_agents,
# rules, sitemaps, directives and preference_statements).
BODY_TABLES = [
    "bodies", "body_user_agents", "body_rules", "body_sitemaps", "body_directives", "body_preference_statements",
]
TABLES = [
    "captures", *BODY_TABLES, "named_verdicts", "resolved_preferences", "verdict_counts", "errors", "agents",
]
# The tables whose rows lead back to input records (all but the data set's
# crawler list, `agents`, written once per data set, and the body tables,
# which belong to no input).
PER_INPUT = [t for t in TABLES if t != "agents" and t not in BODY_TABLES]


# The files whose tests take longest, longest first (their totals in a run
# of the test command, four workers on two cores: BENCHMARKS.md, "The test
# command"). The test command runs a file per worker at a time
# (pytest-xdist's loadfile, told not to reorder): these start first, so
# that none of them is left running alone at the end.
LONGEST_FIRST = [
    "test_s3_compact.py", "test_promises.py", "test_cloud_recipes.py", "test_crawl_tables.py", "test_s3_compact_kills.py",
    "test_docs.py", "test_remote.py", "test_s3_report.py", "test_moves.py", "test_judge.py", "test_s3_out.py",
    "test_report_inputs.py", "test_report.py", "test_slurm.py", "test_bodies.py", "test_s3_claims.py",
]


def pytest_collection_modifyitems(items):
    """The files of LONGEST_FIRST first, in its order; the others after
    them, as collected."""
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    order = {id(item): i for i, item in enumerate(items)}
    items.sort(key=lambda item: (rank.get(item.path.name, len(rank)), order[id(item)]))


def table_source(out, table):
    """What to SELECT FROM to read `table` of `out` as the views do: a body
    table keeps each body's rows of its smallest writer in `bodies`, without
    the writer (which differs from run to run); other tables are their
    files."""
    files = f"read_parquet('{out}/{table}/*.parquet')"
    if table not in BODY_TABLES:
        return files
    return (
        f"(SELECT t.* EXCLUDE (writer) FROM {files} t SEMI JOIN "
        f"(SELECT body_digest, min(writer) AS writer FROM read_parquet('{out}/bodies/*.parquet') GROUP BY ALL) b "
        "USING (body_digest, writer))"
    )


def preference_columns():
    """The AI-use preference columns (of resolved_preferences, after its key
    and agent, and of agent_verdicts), as the code declares them once
    (PreferenceColumns): from `robostats schema`."""
    assert BIN.exists(), f"{BIN} missing: build it with cargo build --release"
    schema = subprocess.run([str(BIN), "schema"], capture_output=True, text=True, check=True).stdout
    table = schema.split("\nresolved_preferences\n")[1].split("\n\n")[0]
    names = [line.split()[0] for line in table.splitlines()]
    return names[names.index("agent") + 1:]


# The real WARC fixtures (some broken): every file warcio reads to the end.
FIXTURES = sorted(
    str(p.relative_to(ROOT))
    for p in (ROOT / "tests" / "data" / "warc").glob("*/*")
    if p.suffix in (".gz", ".warc")
)


# The fixtures that end inside a gzip member (a cut download): failed
# inputs, with nothing in the tables.
CUT_SHORT = ["tests/data/warc/commoncrawl/cc-2016-10-clipped-truncated.warc.gz"]


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


def clean_env(**extra):
    """The environment of a run: this one without AWS settings, an AWS
    profile or proxies (a run reaches 127.0.0.1 only, with the credentials a
    test gives it), plus `extra`."""
    proxies = {"http_proxy", "https_proxy", "all_proxy", "no_proxy"}
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_") and k.lower() not in proxies}
    env["AWS_CONFIG_FILE"] = env["AWS_SHARED_CREDENTIALS_FILE"] = os.devnull
    env["AWS_EC2_METADATA_DISABLED"] = "true"
    env.update(extra)
    return env


def ingest(inputs, out, *extra, exit_status=0):
    """Run `robostats ingest` from the repository root (so warc_filename is
    the relative path given) and return the completed process."""
    assert BIN.exists(), f"{BIN} missing: build it with cargo build --release"
    proc = subprocess.run(
        [str(BIN), "ingest", "-q", "--out", str(out), *extra, *inputs],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == exit_status, proc.stderr
    return proc


def start_moto():
    """moto's S3 server on a free port of 127.0.0.1: the server, its
    endpoint and a boto3 client of it."""
    moto_server = pytest.importorskip("moto.server", reason="moto[server] is installed by scripts/test.sh")
    boto3 = pytest.importorskip("boto3")
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    client = boto3.client(
        "s3", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="t", aws_secret_access_key="t"
    )
    return server, endpoint, client


def connect(out, ranks=None):
    """A DuckDB connection with the views (VIEW_FILES) loaded over `out`
    (and the rank list `ranks`, if any)."""
    con = duckdb.connect()
    con.execute("SET VARIABLE robostats_out = ?", [str(out)])
    read_views(con)
    if ranks is not None:
        con.execute("SET VARIABLE robostats_ranks = ?", [str(ranks)])
    return con


def read_views(con):
    """Reads VIEW_FILES into `con`, in order."""
    for path in VIEW_FILES:
        con.execute(path.read_text())


def run_query(con, name):
    """Run queries/<name>.sql; return (column names, rows as dicts)."""
    rel = con.sql((QUERIES / f"{name}.sql").read_text())
    cols = rel.columns
    return cols, [dict(zip(cols, row)) for row in rel.fetchall()]


@pytest.fixture(scope="session")
def samples_out(tmp_path_factory):
    out = tmp_path_factory.mktemp("samples") / "out"
    ingest(SAMPLES, out)
    return out


@pytest.fixture(scope="session")
def fixtures_out(tmp_path_factory):
    out = tmp_path_factory.mktemp("fixtures") / "out"
    # Exit status 1: the fixtures cut short are failed inputs.
    ingest(FIXTURES, out, exit_status=1)
    return out


@pytest.fixture(scope="session")
def con(samples_out):
    c = connect(samples_out)
    yield c
    c.close()


@pytest.fixture(scope="session")
def facts():
    """warcio's view of the sample files: {path: WarcFacts}."""
    return {p: read_warc(ROOT / p, p) for p in SAMPLES}


@pytest.fixture(scope="session")
def responses(facts):
    """Every response record of the samples, all files together."""
    return [r for p in SAMPLES for r in facts[p].responses]
