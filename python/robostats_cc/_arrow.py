"""``can_fetch_many``: Google's verdict per row of three columns.

Any sequence becomes an Arrow array here; the compiled module reads it
through the Arrow PyCapsule interface (no copy), parses each distinct body
once and judges the rows on every core without the GIL
(crates/robostats-python/src/many.rs)."""

from typing import Any

import pyarrow as pa

from . import _robostats

_TEXT = (pa.string(), pa.large_string(), pa.binary(), pa.large_binary())
_LARGE = {pa.string(): pa.large_string(), pa.binary(): pa.large_binary()}
if hasattr(pa, "string_view"):
    _TEXT += (pa.string_view(), pa.binary_view())


def can_fetch_many(
    bodies: Any, user_agents: Any, urls: Any, *, size_limit: bool = True, policy: str = "google"
) -> pa.BooleanArray:
    """Google's verdict for each row: may the crawler ``user_agents[i]``
    (a product token, such as ``GPTBot``) fetch ``urls[i]`` under the
    robots.txt ``bodies[i]``?

    Each argument is a sequence of one length: a list or tuple, a pyarrow
    ``Array`` or ``ChunkedArray``, a pandas ``Series`` or a polars
    ``Series``. ``bodies`` holds ``bytes`` (read as Google reads them) or
    ``str`` (as UTF-8); ``user_agents`` and ``urls`` hold ``str``.
    ``user_agents`` may also be one ``str`` for every row. A row with a
    NULL (None, NaN in pandas) in any column gives NULL.

    Each distinct body is parsed once. As for ``RobotsTxt``, content past
    500 KiB is ignored (Google's crawler's limit) unless ``size_limit`` is
    False, and ``policy`` says whose answer it is: ``"google"`` (Google's
    crawlers as Google documents them: AdsBot-Google and the other
    special-case crawlers ignore the ``*`` group, as the tables judge
    them) or ``"library"`` (Google's C++ library, which has no such
    exception).

    Raises ``TypeError`` for a column of another type (or a
    ``size_limit`` that is not a ``bool``) and ``ValueError`` for columns
    of different lengths, a policy of another name, or a user agent that
    is not a product token (a whole User-Agent header: the message names
    the token to pass).
    """
    if not isinstance(size_limit, bool):
        raise TypeError(f"size_limit must be a bool, not {type(size_limit).__name__}")
    if not isinstance(policy, str):
        raise TypeError(f"policy must be a str, not {type(policy).__name__}")
    body_col = _column(bodies, "bodies", binary=True)
    url_col = _column(urls, "urls", binary=False)
    if isinstance(user_agents, str):
        agent, agent_col = user_agents, None
    else:
        agent, agent_col = None, _column(user_agents, "user_agents", binary=False)
    # The compiled module checks the lengths (ValueError) before any work.
    values, validity, nulls = _robostats._can_fetch_many(body_col, agent, agent_col, url_col, size_limit, policy)
    return pa.BooleanArray.from_buffers(
        pa.bool_(),
        len(body_col),
        [pa.py_buffer(validity) if nulls else None, pa.py_buffer(values)],
        null_count=nulls,
    )


def _column(values: Any, name: str, *, binary: bool) -> pa.Array:
    """``values`` as one Arrow array of bytes or text (or a dictionary
    array of them), without a copy where it is one already."""
    arr = _arrow(values, name, binary)
    if isinstance(arr, pa.ChunkedArray):
        if pa.types.is_dictionary(arr.type) and arr.num_chunks > 1:
            # One dictionary for every chunk, then one array; where pyarrow
            # cannot unify them (a NULL among the values, or more values
            # than the index type holds), each chunk decoded.
            try:
                arr = arr.unify_dictionaries()
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                arr = pa.chunked_array([c.dictionary_decode() for c in arr.chunks])
        if arr.num_chunks == 1:
            arr = arr.chunk(0)
        elif arr.num_chunks == 0:
            arr = pa.array([], type=arr.type)
        else:
            # One array of every chunk: with 64-bit offsets, as chunks of
            # text may hold more than 2 GiB together (32-bit offsets would
            # overflow); a chunk's own data is not copied by the cast.
            large = _LARGE.get(arr.type)
            if large is not None:
                arr = pa.chunked_array([chunk.cast(large) for chunk in arr.chunks], type=large)
            arr = arr.combine_chunks()
    if pa.types.is_dictionary(arr.type) and arr.type.value_type not in _TEXT:
        arr = arr.dictionary_decode()
    if pa.types.is_null(arr.type):
        return pa.nulls(len(arr), type=pa.large_binary())
    if arr.type not in _TEXT and not pa.types.is_dictionary(arr.type):
        want = "bytes or str" if binary else "str"
        raise TypeError(f"{name} must hold {want}, not {arr.type}")
    return arr


def _arrow(values: Any, name: str, binary: bool) -> Any:
    """An Arrow array of ``values``, whatever holds them."""
    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        return values
    if isinstance(values, (str, bytes, bytearray)):
        raise TypeError(f"{name} must be a sequence (a list, an array or a column), not one {type(values).__name__}")
    if hasattr(values, "to_arrow") and not hasattr(values, "__arrow_array__"):
        # polars' Series (its Arrow C interfaces differ between versions).
        return values.to_arrow()
    if binary and _is_pandas(values) and str(getattr(values, "dtype", "")) == "object":
        # bytes objects: the rows' objects, not a copy of their bytes; every
        # pandas NULL (None, NaN of any float type, NA, NaT) a NULL.
        missing = values.isna().tolist()
        return _by_object([None if m else v for v, m in zip(values.tolist(), missing)], name)
    if hasattr(values, "__arrow_c_array__") or hasattr(values, "__arrow_array__") or _is_pandas(values):
        return pa.array(values)
    try:
        items = list(values)
    except TypeError:
        raise TypeError(f"{name} must be a sequence (a list, an array or a column), not {type(values).__name__}") from None
    if binary:
        return _by_object(items, name)
    return _from_items(items, name, binary)


def _by_object(items: list, name: str) -> pa.Array:
    """Bodies as a dictionary array: each distinct object's bytes once, and
    a key per row. Rows of one site hold one object (the output of a join:
    a body per host, many URLs), so no row's bytes are copied or compared;
    the compiled module tells the values apart by their bytes."""
    keys = []
    append = keys.append
    objects: list = []
    seen: dict = {}
    for v in items:
        if v is None:
            append(None)
            continue
        # (the list holds every object while this runs: no id is reused)
        k = seen.get(id(v))
        if k is None:
            k = seen[id(v)] = len(objects)
            objects.append(v)
        append(k)
    return pa.DictionaryArray.from_arrays(pa.array(keys, pa.int32()), _from_items(objects, name, True, large=True))


def _from_items(items: list, name: str, binary: bool, large: bool = False) -> pa.Array:
    """A Python list of bytes or str as an Arrow array (with 64-bit
    offsets where ``large``: one array however many bytes)."""
    if binary and _all_bytes(items):
        kind = pa.large_binary()
    elif large and all(v is None or isinstance(v, str) for v in items):
        kind = pa.large_string()
    else:
        kind = None
    try:
        return pa.array(items, type=kind)
    except (pa.ArrowTypeError, pa.ArrowInvalid):
        pass
    if binary:
        # bytes and str mixed: each str as UTF-8.
        out = []
        for v in items:
            if v is None or isinstance(v, bytes):
                out.append(v)
            elif isinstance(v, str):
                out.append(v.encode("utf-8", "surrogatepass"))
            elif isinstance(v, (bytearray, memoryview)):
                out.append(bytes(v))
            else:
                raise TypeError(f"{name} must hold bytes or str, not {type(v).__name__}")
        return pa.array(out, type=pa.large_binary())
    bad = next((v for v in items if v is not None and not isinstance(v, str)), None)
    raise TypeError(f"{name} must hold str, not {type(bad).__name__}")


def _all_bytes(items: list) -> bool:
    return all(v is None or isinstance(v, bytes) for v in items)


def _is_pandas(values: Any) -> bool:
    return type(values).__module__.startswith("pandas")
