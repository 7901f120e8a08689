"""The ready queries of ``queries/`` (compiled into the package): their
SQL by name, and ``query(con, name)``, which runs one on a connection
that has the views (``connect``'s)."""

from types import MappingProxyType
from typing import Any, Mapping

from . import _robostats

queries: Mapping[str, str] = MappingProxyType(dict(_robostats.query_files()))
"""Every ready query's SQL, by the stem of its file (``definitions`` for
``queries/definitions.sql``), as ``robostats query --list`` names them."""


def query(con: Any, name: str) -> Any:
    """The ready query ``name`` on the DuckDB connection ``con``, which has
    the views of a data set (``robostats_cc.connect(out)``), as a DuckDB
    relation (``.show()``, ``.df()``, ``.filter(...)``...)::

        con = robostats_cc.connect("out")
        robostats_cc.query(con, "definitions").filter("agent = 'GPTBot'").show()

    Raises ``ValueError`` for a name that is no ready query."""
    try:
        sql = queries[name]
    except KeyError:
        raise ValueError(f"there is no ready query {name!r}: robostats_cc.queries names them") from None
    return con.sql(sql)
