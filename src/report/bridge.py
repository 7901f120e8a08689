"""robostats report's query engine: runs SQL in DuckDB, in Python.

Reads one JSON request, one line, on standard input:
  {"dir": the directory to read the data sets from (null: the current one),
   "outs": [each data set as DuckDB reads it, from "dir"],
   "names": [each data set as the user named it, for messages],
   "tables": [[table name, its view's query FROM {source}], ...],
   "views": "<queries/views.sql>",
   "queries": [{"name": ..., "sql": ..., "limit": null or N}, ...],
   "watch_stdin": true: standard input stays open while robostats waits,
                  and its end kills this process group}
and writes one JSON document on standard output:
  {"duckdb": version, "prepare_seconds": views and crawl_hosts' rows,
   "results": {name: {"columns": [...], "rows": [[...]], "seconds": s}
   or {"error": message}}}
Each query's columns are named as in its SELECT; values are JSON numbers,
strings, booleans, null, or lists of them (anything else as its text).
Exit status 3: the duckdb package is missing; 4: the data sets named
cannot be read as one.
"""

import json
import math
import os
import re
import signal
import sys
import threading
import time

try:
    import duckdb
except ImportError:
    sys.stderr.write("the Python package duckdb is not installed for this Python\n")
    sys.exit(3)

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


def views(con, outs, tables, views_sql):
    """queries/views.sql over the first directory, then every table view
    again over all of them (the derived views read the tables by name)."""
    con.execute("SET VARIABLE robostats_out = ?", [outs[0]])
    con.execute(views_sql)
    if len(outs) > 1:
        # In views.sql's order: a body table's view reads `bodies`' view.
        for table, sql in tables:
            globs = ", ".join(sql_text(f"{glob_text(out)}/{table}/*.parquet") for out in outs)
            view = sql.replace("{source}", f"read_parquet([{globs}])")
            # The crawler list is written once per data set: the same rows.
            if table == "agents":
                view = f"SELECT DISTINCT * FROM ({view})"
            con.execute(f"CREATE OR REPLACE VIEW {table} AS {view}")


def check(con, outs):
    """Several data sets read as one must be one: the same crawler list
    (agents is written once per data set) and no capture twice (the same
    input ingested into two of them)."""
    if len(outs) < 2:
        return
    lists = con.execute("SELECT count(DISTINCT list_version) FROM agents").fetchall()[0][0]
    if lists > 1:
        sys.stderr.write(
            "the data sets were ingested with different crawler lists (agents.list_version): "
            "report on each alone, or ingest them again with one list\n")
        sys.exit(4)
    twice = con.execute(
        "SELECT count(*) - count(DISTINCT (warc_filename, warc_record_offset)) FROM captures"
    ).fetchall()[0][0]
    if twice:
        sys.stderr.write(
            f"{twice} captures are in more than one of the data sets (the same input ingested "
            "twice): name each data set once\n")
        sys.exit(4)


def cache(con):
    """crawl_hosts, which five of the report's queries read, computed once:
    a table of its rows behind a view of the same name (views read other
    views by name when queried)."""
    con.execute("CREATE TEMP TABLE crawl_hosts_rows AS SELECT * FROM crawl_hosts")
    con.execute("CREATE OR REPLACE VIEW crawl_hosts AS SELECT * FROM crawl_hosts_rows")


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


def named(text, outs, names):
    """`text` (DuckDB's message) with the data sets as named: `names[i]`
    for `outs[i]`."""
    for out, name in sorted(zip(outs, names), key=lambda p: -len(p[0])):
        text = text.replace(out + "/", name + "/")
    return text


def main():
    request = json.loads(sys.stdin.buffer.readline())
    if request.get("watch_stdin"):
        watch_stdin()
    if request.get("dir"):
        os.chdir(request["dir"])
    # The answer is the only thing on standard output.
    answer, sys.stdout = sys.stdout, sys.stderr
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    started = time.monotonic()
    views(con, request["outs"], request["tables"], request["views"])
    check(con, request["outs"])
    cache(con)
    prepare = time.monotonic() - started
    results = {}
    for query in request["queries"]:
        started = time.monotonic()
        try:
            relation = con.sql(query["sql"])
            if query.get("limit") is not None:
                relation = relation.limit(query["limit"])
            rows = relation.fetchall()
            results[query["name"]] = {
                "columns": list(relation.columns),
                "rows": [[plain(v) for v in row] for row in rows],
                "seconds": time.monotonic() - started,
            }
        except duckdb.Error as error:
            results[query["name"]] = {"error": named(str(error).strip(), request["outs"], request["names"])}
    json.dump({"duckdb": duckdb.__version__, "prepare_seconds": prepare, "results": results}, answer)


main()
