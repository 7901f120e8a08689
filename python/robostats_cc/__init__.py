"""robostats: robots.txt parsed and matched exactly as Google's reference
library does it, and Common Crawl's robots.txt WARC files as Parquet tables.

    >>> import robostats_cc
    >>> robots = robostats_cc.RobotsTxt(b"User-agent: GPTBot\\nDisallow: /\\n")
    >>> robots.can_fetch("https://example.com/page", "GPTBot")
    False
    >>> robots.can_fetch("https://example.com/page", "Googlebot")
    True

- ``RobotsTxt(body)``: one file; ``.can_fetch``, ``.explain``,
  ``.sitemaps``, ``.preferences``, ``.lint``, ``.body_digest``,
  ``.ruleset_digest``, ``.template``.
- ``can_fetch_many(bodies, user_agents, urls)``: a verdict per row of three
  columns (lists, pyarrow arrays, pandas or polars columns), as a
  ``pyarrow.BooleanArray``, on every core.
- ``register(con)``: ``robots_can_fetch(body, user_agent, url)`` in a DuckDB
  connection (``native=True``: the native DuckDB function).
- ``connect(out)``: a DuckDB connection with the views of a data set that
  ``robostats ingest`` wrote, and ``robots_can_fetch`` as a native DuckDB
  function (``native_duckdb(con)`` tells).
- ``judge(urls, data_set, agents=...)``: every URL of a corpus (a table,
  a frame or a file) against its own robots.txt as the data set captured
  it, as a ``pyarrow.Table`` (``robostats judge``).
- ``queries`` (the ready queries' SQL by name) and ``query(con, name)``
  (one of them on such a connection, as a DuckDB relation).
- Google's helpers: ``escape_pattern``, ``path_params_query``,
  ``is_valid_user_agent_to_obey``.

The ``robostats`` command (``robostats ingest``, ``report``, ...) is
installed with the package. The guide: docs/python.md.
"""

from ._robostats import (
    Explanation,
    Finding,
    Line,
    Preferences,
    RobotsTxt,
    __version__,
    escape_pattern,
    is_valid_user_agent_to_obey,
    path_params_query,
)
from ._arrow import can_fetch_many
from ._duckdb import connect, native_duckdb, register
from ._judge import judge
from ._queries import queries, query

__all__ = [
    "Explanation",
    "Finding",
    "Line",
    "Preferences",
    "RobotsTxt",
    "__version__",
    "can_fetch_many",
    "connect",
    "escape_pattern",
    "is_valid_user_agent_to_obey",
    "judge",
    "native_duckdb",
    "path_params_query",
    "queries",
    "query",
    "register",
]
