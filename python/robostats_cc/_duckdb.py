"""robostats in DuckDB: ``register`` (SQL functions) and ``connect`` (the
views of a data set).

Two routes to ``robots_can_fetch``: ``register(con)`` adds a Python Arrow
function (any connection, DuckDB >= 1.1); ``register(con, native=True)``
loads robostats' DuckDB extension, the file ``robostats.duckdb_extension``
shipped beside the compiled module (crates/robostats-duckdb: a native
function over DuckDB's vectors, no Python per chunk; DuckDB >= 1.2), which
``connect`` does, falling back to the Arrow function where it fails.

The extension needs no Python: the DuckDB command line and every other
DuckDB client load the same file (``robostats duckdb-extension -o DIR``
writes it; docs/python.md, "DuckDB")."""

import os
import re
import shutil
import sys
import tempfile
import warnings
from typing import Any, Optional, Sequence, Union

import pyarrow as pa

from . import _robostats
from ._arrow import can_fetch_many

# The Arrow function; robots_can_fetch, a macro, hands it a BLOB body:
# DuckDB's own VARCHAR -> BLOB cast reads `\x41` as an escape and refuses
# non-ASCII text, so a VARCHAR body goes through encode() (its UTF-8).
_BYTES_FUNCTION = "robots_can_fetch_bytes"


def register(con: Any, *, size_limit: bool = True, native: bool = False) -> Any:
    """Adds ``robots_can_fetch(body, user_agent, url[, policy]) -> BOOLEAN``
    to the DuckDB connection ``con`` and returns ``con``.

    ``body`` is BLOB (read as Google reads bytes) or VARCHAR (UTF-8);
    ``user_agent`` is a crawler's product token (``GPTBot``: a whole
    User-Agent header is refused, naming the token to pass); ``policy``,
    a constant, is ``'google'`` (the default: Google's special-case
    crawlers, AdsBot-Google among them, ignore the ``*`` group, as the
    tables judge them) or ``'library'`` (Google's C++ library). The
    function is vectorised (each distinct body parsed once per chunk) and
    gives NULL where any argument is NULL::

        robostats_cc.register(con)
        con.sql("SELECT robots_can_fetch(body, 'GPTBot', url) FROM pages")

    By default it is a Python Arrow function (any connection, DuckDB >=
    1.1). With ``native=True`` it is robostats' native DuckDB function
    instead (DuckDB >= 1.2), 2.4 times as fast: ``con`` must allow
    unsigned extensions, which is for its opener to choose::

        con = duckdb.connect(config={"allow_unsigned_extensions": "true"})
        robostats_cc.register(con, native=True)

    and raises where it does not load. The native function always applies
    Google's 500 KiB limit (``size_limit=False`` is the Arrow function's
    only).
    """
    if not isinstance(size_limit, bool) or not isinstance(native, bool):
        raise TypeError("size_limit and native must be bools")
    if native:
        if not size_limit:
            raise ValueError("the native robots_can_fetch applies Google's 500 KiB limit: size_limit=False needs native=False")
        # A macro of an earlier register() would hide the native function.
        con.execute("DROP MACRO IF EXISTS temp.main.robots_can_fetch")
        _load_extension(con)
        if not native_duckdb(con):
            raise RuntimeError("robostats' DuckDB extension loaded, but robots_can_fetch is not its function")
        return con
    import duckdb

    def judge(bodies: Any, agents: Any, urls: Any, policies: Any) -> pa.Array:
        # The policy, a constant in SQL: one for the chunk.
        names = set(policies.to_pylist()) if len(policies) else {"google"}
        if len(names) != 1 or None in names:
            raise ValueError("robots_can_fetch: give one policy, 'google' or 'library', as a constant")
        return can_fetch_many(bodies, agents, urls, size_limit=size_limit, policy=names.pop())

    try:
        con.remove_function(_BYTES_FUNCTION)
    except Exception:
        pass
    con.create_function(
        _BYTES_FUNCTION,
        judge,
        [duckdb.sqltype("BLOB"), duckdb.sqltype("VARCHAR"), duckdb.sqltype("VARCHAR"), duckdb.sqltype("VARCHAR")],
        duckdb.sqltype("BOOLEAN"),
        type="arrow",
        null_handling="special",
        side_effects=False,
    )
    body = (
        "CASE WHEN typeof(body) = 'BLOB' THEN body::BLOB "
        "WHEN typeof(body) IN ('VARCHAR', '\"NULL\"') THEN encode(body::VARCHAR) "
        "ELSE error('robots_can_fetch takes a BLOB or VARCHAR body, not ' || typeof(body)) END"
    )
    con.execute(
        "CREATE OR REPLACE TEMP MACRO robots_can_fetch"
        f"(body, user_agent, url) AS {_BYTES_FUNCTION}({body}, user_agent, url, 'google'), "
        f"(body, user_agent, url, policy) AS {_BYTES_FUNCTION}({body}, user_agent, url, policy)"
    )
    return con


def connect(
    out: Union[str, "os.PathLike[str]"] = "out",
    *,
    database: Optional[str] = None,
    native: bool = True,
    ranks: Optional[Union[str, "os.PathLike[str]"]] = None,
    rank_column: Optional[str] = None,
    rank_bands: Optional[Sequence[int]] = None,
) -> Any:
    """A DuckDB connection over the data set ``out`` (an output directory of
    ``robostats ingest``): the views of ``queries/`` (``captures``,
    ``agent_verdicts``, ``crawl_hosts``, ...) and ``robots_can_fetch``::

        con = robostats_cc.connect("out")
        con.sql("SELECT effective_class, count(*) FROM agent_verdicts "
                "WHERE agent = 'GPTBot' GROUP BY ALL").show()

    ``robots_can_fetch`` is the native function of robostats' DuckDB
    extension (``register(con, native=True)``: the file
    ``robostats.duckdb_extension`` shipped beside the compiled module), 2.4
    times as fast as ``register``'s Python function, with the same answers
    (Google's 500 KiB limit applied). Loading it takes a connection that
    allows unsigned extensions (DuckDB's ``allow_unsigned_extensions``);
    right after the load, ``connect`` turns that setting off, and DuckDB
    lets no SQL turn it on again: no later statement on the connection can
    ``LOAD`` an unsigned file. Where the extension does not load (DuckDB
    before 1.2), or with ``native=False``, the connection is an ordinary
    one with ``register``'s function. ``native_duckdb(con)`` tells which
    one a connection has.

    ``out`` may be a data set on S3, ``"s3://bucket/prefix/"`` (written by
    ``robostats ingest --out s3://...``): it is read where it is, through
    DuckDB's httpfs extension (loaded if installed, else from PyPI's
    ``duckdb-extension-httpfs`` package, else installed), with the
    credentials ``robostats ingest`` would use (the AWS chains:
    environment, profile, role; ``AWS_ENDPOINT_URL`` for S3-compatible
    stores), given to the connection as a temporary DuckDB secret scoped
    to the data set. Temporary credentials are not renewed: connect again
    after they expire.

    ``ranks`` names a rank list (a file or a glob, local, ``s3://`` or
    ``https://``):
    Tranco's CSV, a CSV or Parquet file of ranks and hosts or registered
    domains, or Common Crawl's Host Index (``rank_column`` names its score,
    ``hcrank`` by default; for other lists, a rank column other than
    ``rank``); ``rank_bands`` the last rank of each popularity band
    (default ``[1000, 10000, 100000, 1000000]``). They become the DuckDB
    variables ``robostats_ranks``, ``robostats_rank_column`` and
    ``robostats_rank_bands``, which ``queries/strata.sql`` reads:
    ``host_ranks`` (the rank each host got, and why) and the query
    ``by_rank`` (every definition per popularity band). Raises
    ``ValueError`` when a local path without glob characters is no file.

    ``database`` is DuckDB's (in memory by default). The views and their
    macros are temporary, as the variables they read are: a database file
    keeps the tables a user makes in it, never views that, opened again,
    would read another directory (connect again to have them). Raises
    ``ValueError``
    when ``out`` is not such a data set, with the message of
    ``robostats report``.
    """
    import duckdb

    # (the one parser of a data set's location: a directory or s3://)
    out, secret = _robostats.open_data_set(os.fspath(out))
    database = database if database is not None else ":memory:"
    con = _native_connection(database) if native else None
    if con is None:
        con = register(duckdb.connect(database))
    if secret is not None:
        _load_httpfs(con)
        _create_secret(con, out + "/", secret)
    con.execute("SET VARIABLE robostats_out = ?", [out])
    con.execute(_robostats.views_sql())
    if ranks is not None:
        _set_ranks(con, os.fspath(ranks), rank_column, secret is not None)
        if rank_bands is not None:
            bands = [int(b) for b in rank_bands]
            if not bands or bands[0] < 1 or any(a >= b for a, b in zip(bands, bands[1:])):
                raise ValueError(f"rank_bands {list(rank_bands)}: the last rank of each band, whole numbers "
                                 "from 1, increasing")
            con.execute("SET VARIABLE robostats_rank_bands = ?", [bands])
    elif rank_column is not None or rank_bands is not None:
        raise ValueError("rank_column and rank_bands are about a rank list: give ranks too")
    return con


def _set_ranks(con: Any, ranks: str, rank_column: Optional[str], httpfs_loaded: bool) -> None:
    """The rank list ``ranks`` as strata.sql reads it: on S3, with a secret
    of its own scoped to its bucket; locally, a file that exists, its
    pattern characters matching only themselves (``[*]``, ``[?]``, ``[[]``:
    what robostats_report's ``literal_pattern`` and the report's bridge
    do), else a glob, DuckDB's to match."""
    if ranks.startswith("s3://"):
        scope, params = _robostats.s3_file_secret(ranks)
        if not httpfs_loaded:
            _load_httpfs(con)
        _create_secret(con, scope, params, name="robostats_ranks")
    elif ranks.startswith(("https://", "http://")):
        if not httpfs_loaded:
            _load_httpfs(con)
    elif "://" not in ranks and os.path.isfile(ranks):
        ranks = re.sub(r"([*?\[])", r"[\1]", ranks)
    elif "://" not in ranks and not any(c in ranks for c in "*?["):
        raise ValueError(f"the rank list {ranks} is not a file")
    con.execute("SET VARIABLE robostats_ranks = ?", [ranks])
    if rank_column is not None:
        con.execute("SET VARIABLE robostats_rank_column = ?", [rank_column])


def _load_httpfs(con: Any) -> None:
    """DuckDB's httpfs extension: installed already, or from PyPI's
    ``duckdb-extension-httpfs`` package (no download), or installed now.
    (The same steps as the report's bridge.py, which runs where this
    package may not be installed.)"""
    import duckdb

    try:
        con.execute("LOAD httpfs")
        return
    except duckdb.Error:
        pass
    try:
        import duckdb_extension_httpfs  # type: ignore[import-not-found]

        place = os.path.join(os.path.dirname(duckdb_extension_httpfs.__file__), "extensions",
                             "v" + duckdb.__version__, "httpfs.duckdb_extension")
        if os.path.exists(place):
            con.execute("LOAD '" + place.replace("'", "''") + "'")
            return
    except (ImportError, duckdb.Error):
        pass
    try:
        con.execute("INSTALL httpfs")
        con.execute("LOAD httpfs")
    except duckdb.Error as error:
        raise RuntimeError(
            f"reading a data set on S3 takes DuckDB's httpfs extension, which DuckDB {duckdb.__version__} "
            f"could not load or install ({str(error).strip()}): run INSTALL httpfs where DuckDB can "
            f"download, or pip install duckdb-extension-httpfs=={duckdb.__version__}"
        ) from None


def _create_secret(con: Any, scope: str, params: "list[tuple[str, str]]", name: str = "robostats_out") -> None:
    """A temporary (in-memory) DuckDB S3 secret scoped to ``scope``
    (DuckDB's message, which could quote it, is not repeated)."""
    import duckdb

    def text(value: str) -> str:
        return "'" + value.replace("'", "''") + "'"

    settings = ", ".join(f"{name} {text(value)}" for name, value in params)
    try:
        con.execute(f"CREATE OR REPLACE TEMPORARY SECRET {name} (TYPE s3, SCOPE {text(scope)}, {settings})")
    except duckdb.Error:
        raise RuntimeError(f"DuckDB did not take the S3 secret of {scope}") from None


def native_duckdb(con: Any) -> bool:
    """True where ``robots_can_fetch`` in the DuckDB connection ``con`` is
    robostats' native function (``connect``'s), False where it is
    ``register``'s Python function or missing."""
    kinds = con.execute(
        "SELECT list(DISTINCT function_type) FROM duckdb_functions() WHERE function_name = 'robots_can_fetch'"
    ).fetchall()[0][0]
    return kinds == ["scalar"]


# The extension's file name: DuckDB calls `<name>_init_c_api` in it.
_EXTENSION = "robostats.duckdb_extension"
# Linux: the extension in a sealed in-memory file (memfd), written once per
# process and kept open; each load goes through a symbolic link to it, so
# every connection loads the same one copy of the extension. A tuple (its
# bytes, descriptor, (device, inode)): the descriptor's number may be closed and
# reused by other code, so each use checks that it is still that file.
# None: not made yet; False: not possible here (each load writes a file
# instead).
_memfd: Any = None


def _native_connection(database: str) -> Optional[Any]:
    """A connection of ``database`` with the native ``robots_can_fetch``,
    or None where the extension does not load."""
    import duckdb

    try:
        con = duckdb.connect(database, config={"allow_unsigned_extensions": "true"})
    except Exception:
        return None
    try:
        register(con, native=True)
        # Loaded: no other unsigned file may be (DuckDB refuses to turn
        # the setting on again while the database runs).
        con.execute("SET allow_unsigned_extensions = false")
        return con
    except _NoExtensionFile as e:
        warnings.warn(f"{e}; robots_can_fetch is the Python function (the same answers, slower)", stacklevel=3)
        con.close()
        return None
    except Exception:
        con.close()
        return None


def _load_extension(con: Any) -> None:
    """LOADs robostats' DuckDB extension into ``con``: the file shipped
    beside the compiled module (crates/robostats-duckdb), where its footer
    names the connection's platform; else its library with the footer of
    that platform, from a fresh private directory (``mkdtemp``: mode 0700,
    a new name) that is removed right after: no other user can plant a
    file there."""
    platform = con.execute("PRAGMA platform").fetchall()[0][0]
    shipped = _read_shipped()
    # (the footer made in one place, robostats_duckdb::extension_file)
    data = _robostats.duckdb_extension_file(shipped, platform)
    if data == shipped:
        path = _shipped_extension()
        con.execute("LOAD '" + path.replace("'", "''") + "'")
        return
    errors = []
    for place in (_link_to_memfd, _write_copy):
        directory = tempfile.mkdtemp(prefix="robostats-duckdb-")
        try:
            path = os.path.join(directory, _EXTENSION)
            if not place(path, data):
                continue
            con.execute("LOAD '" + path.replace("'", "''") + "'")
            if errors:
                # The in-memory file failed where a file did not (say, no
                # executable memfd here): files from now on.
                _forget_memfd()
            return
        except Exception as e:
            errors.append(e)
        finally:
            shutil.rmtree(directory, ignore_errors=True)
    raise errors[-1]


def _shipped_extension() -> str:
    """The extension file of this install: beside the compiled module."""
    return os.path.join(os.path.dirname(os.path.abspath(_robostats.__file__)), _EXTENSION)


_shipped_bytes: Optional[bytes] = None


class _NoExtensionFile(RuntimeError):
    """This install has no extension file (a build from a clone that did
    not make it)."""


def _read_shipped() -> bytes:
    """The shipped extension file's bytes (read once per process), or a
    clear error where this install has none."""
    global _shipped_bytes
    if _shipped_bytes is None:
        path = _shipped_extension()
        try:
            with open(path, "rb") as f:
                _shipped_bytes = f.read()
        except FileNotFoundError:
            raise _NoExtensionFile(
                f"this install of robostats-cc has no DuckDB extension file ({path}): the wheels ship it; "
                "from a clone, run `cargo build --release` and `target/release/robostats duckdb-extension "
                "-o python/robostats_cc/` before `pip install .`"
            ) from None
    return _shipped_bytes


def _write_copy(path: str, data: bytes) -> bool:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    return True


def _link_to_memfd(path: str, data: bytes) -> bool:
    global _memfd
    if not sys.platform.startswith("linux") or _memfd is False:
        return False
    if _memfd is None or _memfd[0] != data or not _still_ours(_memfd):
        if _memfd is not None and _still_ours(_memfd):
            os.close(_memfd[1])
        try:
            fd = _sealed_memfd(data)
            stat = os.fstat(fd)
            _memfd = (data, fd, (stat.st_dev, stat.st_ino))
        except (AttributeError, OSError):
            _memfd = False
            return False
    os.symlink(f"/proc/self/fd/{_memfd[1]}", path)
    return True


def _still_ours(memfd: Any) -> bool:
    """Whether the descriptor ``memfd`` made is still the in-memory file
    it made: the same device and inode (another file under a reused number
    is not, and is left alone: its owner holds it)."""
    try:
        stat = os.fstat(memfd[1])
    except OSError:
        return False
    return (stat.st_dev, stat.st_ino) == memfd[2]


def _sealed_memfd(data: bytes) -> int:
    import fcntl

    fd = os.memfd_create("robostats.duckdb_extension", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS,
                    fcntl.F_SEAL_SEAL | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_WRITE)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _forget_memfd() -> None:
    """Drops the in-memory file after a failed load: the next load writes
    a file (a module DuckDB mapped already stays mapped)."""
    global _memfd
    if _memfd and _still_ours(_memfd):
        os.close(_memfd[1])
    _memfd = False
