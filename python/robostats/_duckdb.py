"""robostats in DuckDB: ``register`` (SQL functions) and ``connect`` (the
views of a data set)."""

import os
from typing import Any, Optional, Union

import pyarrow as pa

from . import _robostats
from ._arrow import can_fetch_many

# The Arrow function; robots_can_fetch, a macro, hands it a BLOB body:
# DuckDB's own VARCHAR -> BLOB cast reads `\x41` as an escape and refuses
# non-ASCII text, so a VARCHAR body goes through encode() (its UTF-8).
_BYTES_FUNCTION = "robots_can_fetch_bytes"


def register(con: Any, *, size_limit: bool = True) -> Any:
    """Adds ``robots_can_fetch(body, user_agent, url) -> BOOLEAN`` to the
    DuckDB connection ``con`` and returns ``con``.

    ``body`` is BLOB (read as Google reads bytes) or VARCHAR (UTF-8);
    the function is vectorised (an Arrow function over whole chunks,
    each distinct body parsed once per chunk) and gives NULL where any
    argument is NULL::

        robostats.register(con)
        con.sql("SELECT robots_can_fetch(body, 'GPTBot', url) FROM pages")
    """
    import duckdb

    def judge(bodies: Any, agents: Any, urls: Any) -> pa.Array:
        return can_fetch_many(bodies, agents, urls, size_limit=size_limit)

    try:
        con.remove_function(_BYTES_FUNCTION)
    except Exception:
        pass
    con.create_function(
        _BYTES_FUNCTION,
        judge,
        [duckdb.sqltype("BLOB"), duckdb.sqltype("VARCHAR"), duckdb.sqltype("VARCHAR")],
        duckdb.sqltype("BOOLEAN"),
        type="arrow",
        null_handling="special",
        side_effects=False,
    )
    con.execute(
        "CREATE OR REPLACE TEMP MACRO robots_can_fetch(body, user_agent, url) AS "
        f"{_BYTES_FUNCTION}(CASE WHEN typeof(body) = 'BLOB' THEN body::BLOB "
        "ELSE encode(body::VARCHAR) END, user_agent, url)"
    )
    return con


def connect(out: Union[str, "os.PathLike[str]"] = "out", *, database: Optional[str] = None) -> Any:
    """A DuckDB connection over the data set ``out`` (an output directory of
    ``robostats ingest``): the views of ``queries/views.sql`` (``captures``,
    ``agent_verdicts``, ``crawl_hosts``, ...) and the functions of
    ``register``::

        con = robostats.connect("out")
        con.sql("SELECT effective_class, count(*) FROM agent_verdicts "
                "WHERE agent = 'GPTBot' GROUP BY ALL").show()

    ``database`` is DuckDB's (in memory by default). Raises ``ValueError``
    when ``out`` is not such a data set, with the message of
    ``robostats report``.
    """
    import duckdb

    out = os.fspath(out)
    _robostats.check_data_set(out)
    con = duckdb.connect(database if database is not None else ":memory:")
    con.execute("SET VARIABLE robostats_out = ?", [out])
    con.execute(_robostats.views_sql())
    return register(con)
