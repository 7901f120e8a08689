"""robostats report's query engine: runs SQL in DuckDB, in Python.

Reads one JSON request, one line, on standard input:
  {"dir": the directory to read the data sets from (null: the current one),
   "outs": [each data set as DuckDB reads it, from "dir", or its s3:// URL],
   "secrets": [{"scope": "s3://bucket/prefix/", "params": [[name, value]]}]:
              DuckDB's S3 secrets for the data sets on S3 (httpfs),
   "names": [each data set as the user named it, for messages],
   "tables": [[table name, its view's query FROM {source}], ...],
   "body_tables": [the tables stored once per body],
   "views": "<queries/tables.sql, views.sql and strata.sql>",
   "variables": {name: value}: DuckDB variables set after the views and
                before the queries (SET VARIABLE name = ?, the value bound),
   "queries": [{"name": ..., "sql": ..., "limit": null or N,
                "latest": true: only the rows of the latest crawl (of crawl_hosts),
                "export": as "export" below, for this query alone}, ...],
   "watch_stdin": true: standard input stays open while robostats waits,
                  and its end kills this process group,
   "traceback": true: a failure's message ends with Python's traceback,
   "cache": false: crawl_hosts is not computed once first (one query alone),
   "export": {"path": an absolute path, "format": "csv", "parquet",
     "parquet_lz4" or "json"}:
             each query's rows written there by DuckDB, not answered}
and writes one JSON document on standard output:
  {"duckdb": version, "prepare_seconds": views and crawl_hosts' rows,
   "results": {name: {"columns": [...], "rows": [[...]], "seconds": s,
   "written": rows written (with "export")} or {"error": message}}}
Each query's columns are named as in its SELECT; values are JSON numbers,
strings, booleans, null, or lists of them (anything else as its text).
On a failure, one paragraph on standard error and exit status 3: the
duckdb package is missing; 4: the data sets named cannot be read as one;
5: a file of theirs is damaged; 6: anything else.
"""

import json
import math
import os
import re
import signal
import sys
import threading
import time
import traceback

try:
    import duckdb
except ImportError as error:
    # (robostats chose this Python because the package is there: it does
    # not load. Python's reason says why, an interpreter or a library.)
    sys.stderr.write(f"the Python package duckdb is there but cannot be imported: {error}\n")
    sys.exit(3)


class Failure(Exception):
    """A failure with its message and exit status."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


def plain(value):
    """A DuckDB value as JSON: numbers, text, booleans, null and lists."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    try:
        number = float(value)  # Decimal, HUGEINT
        if number.is_integer() and abs(number) < 2**53:
            return int(number)
        return number
    except (TypeError, ValueError):
        return str(value)


def sql_text(text):
    """A SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


def glob_text(path):
    """`path` with DuckDB's glob characters matching only themselves
    (`[*]`, `[?]`, `[[]`)."""
    return re.sub(r"([*?\[])", r"[\1]", path)


def load_httpfs(con):
    """DuckDB's httpfs extension: installed already, or from PyPI's
    duckdb-extension-httpfs package (no download), or installed now. (The
    same steps as python/robostats_cc/_duckdb.py's _load_httpfs: this script
    runs in any Python with duckdb, where robostats may not be installed.)"""
    try:
        con.execute("LOAD httpfs")
        return
    except duckdb.Error:
        pass
    try:
        import duckdb_extension_httpfs
        place = os.path.join(os.path.dirname(duckdb_extension_httpfs.__file__), "extensions",
                             "v" + duckdb.__version__, "httpfs.duckdb_extension")
        if os.path.exists(place):
            con.execute("LOAD " + sql_text(place))
            return
    except (ImportError, duckdb.Error):
        pass
    try:
        con.execute("INSTALL httpfs")
        con.execute("LOAD httpfs")
    except duckdb.Error as error:
        raise Failure(6, (
            f"reading a data set on S3 takes DuckDB's httpfs extension, which DuckDB {duckdb.__version__} "
            f"here could not load or install ({str(error).strip()}): run INSTALL httpfs in this Python's "
            f"DuckDB where it can download, or pip install duckdb-extension-httpfs=={duckdb.__version__}"))


def secrets(con, request):
    """The S3 secret of each data set on S3, scoped to it, in memory only
    (DuckDB's message, which could quote one, is not repeated)."""
    if not request.get("secrets"):
        return
    load_httpfs(con)
    for i, secret in enumerate(request["secrets"]):
        params = ", ".join(f"{name} {sql_text(value)}" for name, value in secret["params"])
        try:
            con.execute(f"CREATE TEMPORARY SECRET robostats_{i} "
                        f"(TYPE s3, SCOPE {sql_text(secret['scope'])}, {params})")
        except duckdb.Error:
            raise Failure(6, f"DuckDB did not take the S3 secret of {secret['scope']}") from None


def generation(con, out):
    """(compactions, retired) of a data set's newest generation (one that
    robostats compact committed on S3), or None: every part file counts.
    tables.sql's macros read it, checking its sequence and its chain."""
    files = con.execute("SELECT robostats_newest_generations(?)", [glob_text(out)]).fetchall()[0][0]
    if files is None:
        return None
    kept = con.execute("SELECT kept FROM robostats_generation_read(?)", [files]).fetchall()[0][0]
    return kept["compactions"], kept["retired"]


def source(table, outs, generations):
    """The part files of `table` in every data set: one read_parquet of
    them all, or, where a data set has generations, its visible files only
    (tables.sql's robostats_visible, with the generation's lists)."""
    plain = [out for out in outs if generations[out] is None]
    parts = []
    if plain:
        globs = ", ".join(sql_text(f"{glob_text(out)}/{table}/*.parquet") for out in plain)
        parts.append(f"SELECT * FROM read_parquet([{globs}], hive_partitioning = false)")
    def listed(names):
        return "[" + ", ".join(sql_text(n) for n in names) + "]::VARCHAR[]"

    for out in outs:
        if generations[out] is None:
            continue
        compactions, retired = (names or [] for names in generations[out])
        parts.append(
            f"SELECT * EXCLUDE (filename) FROM read_parquet({sql_text(f'{glob_text(out)}/{table}/*.parquet')}, "
            f"filename = true, hive_partitioning = false) WHERE NOT list_contains({listed(retired)}, regexp_extract(filename, '[^/]+/[^/]+$')) "
            f"AND list_contains({listed(compactions + [''])}, "
            f"regexp_extract(filename, '/compacted-([0-9a-f]+)-[0-9]+\\.parquet$', 1))")
    if len(parts) == 1 and plain:
        return f"read_parquet([{globs}], hive_partitioning = false)"
    return "(" + " UNION ALL BY NAME ".join(parts) + ")"


def views(con, outs, tables, views_sql):
    """The views of queries/ over the first data set, then every table view
    again over all of them (the derived views read the tables by name)."""
    con.execute("SET VARIABLE robostats_out = ?", [outs[0]])
    con.execute(views_sql)
    if len(outs) > 1:
        generations = {out: generation(con, out) for out in outs}
        # In tables.sql's order: a body table's view reads `bodies`' view.
        for table, sql in tables:
            view = sql.replace("{source}", source(table, outs, generations))
            # The crawler list is written once per data set: the same rows.
            if table == "agents":
                view = f"SELECT DISTINCT * FROM ({view})"
            con.execute(f"CREATE OR REPLACE TEMP VIEW {table} AS {view}")


def variables(con, request):
    """The request's DuckDB variables (a rank list, robostats_ranks), each
    value bound as a parameter: no value is ever written into the SQL."""
    for name, value in (request.get("variables") or {}).items():
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise Failure(6, f"{name!r} is not a DuckDB variable's name")
        con.execute(f"SET VARIABLE {name} = ?", [value])


def check(con, outs):
    """Several data sets read as one must be one: the same crawler list
    (agents is written once per data set) and no capture twice (the same
    input ingested into two of them)."""
    if len(outs) < 2:
        return
    lists = con.execute("SELECT count(DISTINCT list_version) FROM agents").fetchall()[0][0]
    if lists > 1:
        raise Failure(4, "the data sets were ingested with different crawler lists (agents.list_version): "
                         "report on each alone, or ingest them again with one list")
    twice = con.execute(
        "SELECT count(*) - count(DISTINCT (warc_filename, warc_record_offset)) FROM captures"
    ).fetchall()[0][0]
    if twice:
        raise Failure(4, f"{twice} captures are in more than one of the data sets (the same input ingested "
                         "twice): name each data set once")


def cache(con):
    """crawl_hosts, which five of the report's queries read, computed once:
    a table of its rows behind a view of the same name (views read other
    views by name when queried)."""
    con.execute("CREATE TEMP TABLE crawl_hosts_rows AS SELECT * FROM crawl_hosts")
    con.execute("CREATE OR REPLACE TEMP VIEW crawl_hosts AS SELECT * FROM crawl_hosts_rows")


def damage(path):
    """Why the file `path` is not a whole Parquet file (it starts and ends
    with PAR1, its footer's length before the last), or None."""
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            head = f.read(4)
            f.seek(max(size - 8, 0))
            tail = f.read(8)
    except OSError as error:
        return f"unreadable: {error.strerror}"
    whole = (size >= 12 and head == b"PAR1" and tail[4:] == b"PAR1"
             and int.from_bytes(tail[:4], "little") <= size - 12)
    return None if whole else f"{size:,} bytes, not a whole Parquet file"


class DataSets:
    """The data sets as DuckDB reads them (`outs`) and as named (`names`)."""

    def __init__(self, request):
        self.outs, self.names = request["outs"], request["names"]
        self.tables = [table for table, _ in request["tables"]]
        self.body_tables = set(request.get("body_tables", []))
        self._damaged = None

    def named(self, text):
        """`text` (DuckDB's message) with the data sets as named."""
        for out, name in sorted(zip(self.outs, self.names), key=lambda p: -len(p[0])):
            text = text.replace(out + "/", name + "/")
        return text

    def _scan(self):
        """(table, the file as named and why) of every damaged Parquet file."""
        found = []
        for out, name in zip(self.outs, self.names):
            for table in self.tables:
                try:
                    entries = sorted(os.scandir(os.path.join(out, table)), key=lambda e: e.name)
                except OSError:
                    continue
                for entry in entries:
                    if entry.name.endswith(".parquet") and not entry.name.startswith("."):
                        why = damage(entry.path)
                        if why:
                            found.append((table, f"{name}/{table}/{entry.name} ({why})"))
        return found

    def damaged(self):
        """The failure of the data sets' damaged Parquet files, or None
        (they are looked for once, after DuckDB failed)."""
        if self._damaged is None:
            self._damaged = self._scan()
        if not self._damaged:
            return None
        n = len(self._damaged)
        files = "; ".join(f for _, f in self._damaged[:10]) + (f"; and {n - 10} more" if n > 10 else "")
        tables = {t for t, _ in self._damaged}
        if tables <= self.body_tables:
            repair = "the bodies written again"
        elif not tables & self.body_tables:
            repair = "its inputs read again"
        else:
            repair = "its inputs read again and the bodies written again"
        return Failure(5, (
            f"the data set has {n} damaged file{'s' if n > 1 else ''}, which DuckDB cannot read: {files}. "
            f"Delete {'it' if n == 1 else 'them'}, then run robostats ingest again with the same inputs and "
            f"output directory, to have {repair}, and make the report again."))


def run(request, data_sets):
    """The answer to `request`: views, checks, then each query's result."""
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    started = time.monotonic()
    secrets(con, request)
    views(con, request["outs"], request["tables"], request["views"])
    variables(con, request)
    check(con, request["outs"])
    if request.get("cache", True):
        cache(con)
    prepare = time.monotonic() - started
    results = {}
    for query in request["queries"]:
        started = time.monotonic()
        export = query.get("export") or request.get("export")
        try:
            if export:
                results[query["name"]] = exported(con, query["sql"], export, started)
                continue
            relation = con.sql(query["sql"])
            if query.get("latest"):
                # The report's crawl: every figure of one crawl reads it,
                # and so every share has that crawl's denominators.
                relation = relation.filter(f"crawl IS NOT DISTINCT FROM {latest_crawl(con)}")
            if query.get("limit") is not None:
                relation = relation.limit(query["limit"])
            rows = relation.fetchall()
            results[query["name"]] = {
                "columns": list(relation.columns),
                "rows": [[plain(v) for v in row] for row in rows],
                "seconds": time.monotonic() - started,
            }
        except duckdb.Error as error:
            failure = data_sets.damaged()
            if failure:
                raise failure from error
            results[query["name"]] = {"error": data_sets.named(str(error).strip())}
    return {"duckdb": duckdb.__version__, "prepare_seconds": prepare, "results": results}


def latest_crawl(con):
    """The latest crawl with a robots.txt capture (of crawl_hosts), as SQL."""
    [(crawl,)] = con.execute("SELECT max(crawl) FROM crawl_hosts").fetchall()
    return "NULL" if crawl is None else sql_text(crawl)


EXPORT_OPTIONS = {"csv": "FORMAT csv, HEADER true", "parquet": "FORMAT parquet, COMPRESSION zstd",
                  "parquet_lz4": "FORMAT parquet, COMPRESSION lz4_raw", "json": "FORMAT json"}


def exported(con, sql, export, started):
    """Writes the rows of `sql` into the export's file, in its format."""
    columns = list(con.sql(sql).limit(0).columns)
    options = EXPORT_OPTIONS[export["format"]]
    # (A trailing semicolon would end the COPY's inner query, and a last
    # line's comment would hide its closing parenthesis.)
    body = sql.strip().rstrip(";")
    [(written,)] = con.execute(f"COPY ({body}\n) TO {sql_text(export['path'])} ({options})").fetchall()
    return {"columns": columns, "rows": [], "seconds": time.monotonic() - started, "written": written}


def watch_stdin():
    """Standard input stays open while robostats waits: its end means that
    robostats is gone (killed, or stopped by a Ctrl-C, which reaches the
    terminal's process group, not this one), and so must be this group."""
    def watch():
        # The file descriptor itself: a thread blocked in sys.stdin's
        # buffered reader would hold its lock at the interpreter's exit.
        try:
            while os.read(0, 1 << 16):
                pass
        except OSError:
            pass
        if hasattr(os, "killpg") and os.getpgrp() == os.getpid():
            os.killpg(os.getpgrp(), signal.SIGKILL)
        os._exit(1)
    threading.Thread(target=watch, daemon=True).start()


def fail(request, status, message):
    """Ends with `message` on standard error (and with the traceback when
    the request asks for it) and exit status `status`."""
    if request.get("traceback"):
        message += "\n" + DataSets(request).named(traceback.format_exc().rstrip())
    sys.stderr.write(message.strip() + "\n")
    sys.stderr.flush()
    os._exit(status)


def main():
    request = json.loads(sys.stdin.buffer.readline())
    if request.get("watch_stdin"):
        watch_stdin()
    if request.get("dir"):
        os.chdir(request["dir"])
    data_sets = DataSets(request)
    # The answer is the only thing on standard output.
    answer, sys.stdout = sys.stdout, sys.stderr
    try:
        document = run(request, data_sets)
    except Failure as failure:
        fail(request, failure.status, str(failure))
    except duckdb.Error as error:
        failure = data_sets.damaged()
        if failure:
            fail(request, failure.status, str(failure))
        fail(request, 6, "DuckDB cannot read the data set: " + data_sets.named(str(error).strip()))
    except Exception as error:
        hint = "" if request.get("traceback") else " (--verbose shows Python's traceback)"
        fail(request, 6, f"{type(error).__name__}: {data_sets.named(str(error))}{hint}")
    json.dump(document, answer)
    answer.flush()


main()
