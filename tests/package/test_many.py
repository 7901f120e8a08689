"""`can_fetch_many` equals `RobotsTxt(body).can_fetch` row by row, whatever
holds the columns, with NULL for a NULL (any agent text under the library
policy, as Google's library takes it; the default policy takes product
tokens only)."""

import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import robostats_cc as robostats

AGENTS = ["GPTBot", "gptbot", "Googlebot", "Googlebot-Image", "CCBot", "*", "", "Foo Bar", "Bingbot/2.0", "ÄBot"]
PATHS = ["/", "/a", "/a/", "/a/b.html", "/a%2Fb", "/a%2fb", "/%E4", "/ä", "/x?y=1", "/x$", "/index.html",
         "/d/", "/fish*", "*", "", "/a*b$", "/%", "/~user"]


def _line():
    key = st.sampled_from(["User-agent", "user-agent", "useragent", "Allow", "Disallow", "dissallow", "Disalow",
                           "Sitemap", "Crawl-delay", "Content-Signal", "Content-Usage", "", "#", "Allow/x"])
    sep = st.sampled_from([":", ": ", " :", " ", ""])
    value = st.one_of(st.sampled_from(AGENTS + PATHS + ["ai-train=no", "train-ai=n", "/ train-ai=y"]),
                      st.text(max_size=12))
    end = st.sampled_from(["\n", "\r\n", "\r", " # c\n"])
    return st.tuples(key, sep, value, end).map(lambda t: "".join(t))


BODY_TEXT = st.lists(_line(), max_size=14).map("".join)
BODY = st.one_of(
    BODY_TEXT.map(lambda s: s.encode("utf-8")),
    BODY_TEXT,
    BODY_TEXT.map(lambda s: b"\xef\xbb\xbf" + s.encode()),
    st.binary(max_size=80),
    BODY_TEXT.map(lambda s: s.encode("utf-8") + b"\xff\xfe\x00" + s.encode("utf-8")),
    st.none(),
)
URL = st.one_of(st.sampled_from(PATHS), st.sampled_from(PATHS).map(lambda p: "https://example.com" + p),
                st.text(max_size=20), st.none())
AGENT = st.one_of(st.sampled_from(AGENTS), st.text(max_size=10), st.none())


def _one_by_one(bodies, agents, urls, policy="google"):
    out = []
    for b, a, u in zip(bodies, agents, urls):
        out.append(None if b is None or a is None or u is None
                   else robostats.RobotsTxt(b).can_fetch(u, a, policy=policy))
    return out


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(BODY, AGENT, URL), max_size=40))
def test_rows_equal_robotstxt_one_by_one(rows):
    bodies, agents, urls = (list(c) for c in zip(*rows)) if rows else ([], [], [])
    got = robostats.can_fetch_many(bodies, agents, urls, policy="library")
    assert isinstance(got, pa.BooleanArray) and len(got) == len(rows)
    assert got.to_pylist() == _one_by_one(bodies, agents, urls, "library")
    # The default: the same rows where every agent is a product token, or
    # refused (ValueError) as each row alone is.
    def crawler(a):  # a product token, or * (any crawler no group names)
        return a == "*" or robostats.is_valid_user_agent_to_obey(a)

    if all(a is None or crawler(a) for a in agents):
        assert robostats.can_fetch_many(bodies, agents, urls).to_pylist() == _one_by_one(bodies, agents, urls, "google")
    elif any(b is not None and u is not None and a is not None and not crawler(a)
             for b, a, u in zip(bodies, agents, urls)):
        with pytest.raises(ValueError, match="not a product token"):
            robostats.can_fetch_many(bodies, agents, urls)


def test_a_500_kib_body_and_the_size_limit():
    big = b"User-agent: *\n" + b"Disallow: /deep/path/" + b"x" * 100 + b"\n" * 1
    body = b"User-agent: GPTBot\nAllow: /\n" + big * (500 * 1024 // len(big) + 1) + b"User-agent: *\nDisallow: /late\n"
    assert len(body) > 500 * 1024
    urls = ["/late", "/deep/path/" + "x" * 100, "/other"]
    for size_limit in (True, False):
        got = robostats.can_fetch_many([body] * 3, "CCBot", urls, size_limit=size_limit).to_pylist()
        assert got == [robostats.RobotsTxt(body, size_limit=size_limit).can_fetch(u, "CCBot") for u in urls]
    assert robostats.can_fetch_many([body], ["CCBot"], ["/late"]).to_pylist() == [True]
    assert robostats.can_fetch_many([body], ["CCBot"], ["/late"], size_limit=False).to_pylist() == [False]


BODIES = [b"User-agent: *\nDisallow: /a\n", "User-agent: GPTBot\nDisallow: /\n", None, b"", "\u00e4 Disallow: /"]
AGENT_LIST = ["GPTBot", "GPTBot", "GPTBot", None, "x"]
URL_LIST = ["/a", "/b", "/c", "/d", "/e"]
WANT = [False, False, None, None, True]


@pytest.mark.parametrize("kind", ["list", "tuple", "pyarrow", "chunked", "sliced", "pandas", "polars",
                                  "large", "view", "dictionary"])
def test_every_kind_of_column(kind):
    bodies = [b.encode() if isinstance(b, str) else b for b in BODIES]

    def col(values, binary=False):
        typ = pa.binary() if binary else pa.string()
        if kind == "list":
            return list(values)
        if kind == "tuple":
            return tuple(values)
        if kind == "pyarrow":
            return pa.array(values, typ)
        if kind == "chunked":
            return pa.chunked_array([pa.array(values[:2], typ), pa.array(values[2:], typ)])
        if kind == "sliced":
            return pa.array([values[0]] * 3 + list(values) + [None], typ).slice(3, len(values))
        if kind == "pandas":
            return pd.Series(values, dtype=object)
        if kind == "polars":
            return pl.Series(values, dtype=pl.Binary if binary else pl.Utf8)
        if kind == "large":
            return pa.array(values, pa.large_binary() if binary else pa.large_string())
        if kind == "view":
            return pa.array(values, pa.binary_view() if binary else pa.string_view())
        if kind == "dictionary":
            return pa.array(values, typ).dictionary_encode()
        raise AssertionError(kind)

    got = robostats.can_fetch_many(col(bodies, binary=True), col(AGENT_LIST), col(URL_LIST))
    assert got.to_pylist() == WANT


def test_pandas_nan_is_null_and_str_bodies_are_utf8():
    got = robostats.can_fetch_many(pd.Series(["User-agent: *\nDisallow: /\n", float("nan")]),
                                   pd.Series(["GPTBot", "GPTBot"]), pd.Series(["/", "/"]))
    assert got.to_pylist() == [False, None]
    mixed = [b"User-agent: *\nDisallow: /\xff\n", "User-agent: *\nDisallow: /\u00e4\n"]
    assert robostats.can_fetch_many(mixed, "X", ["/\xff", "/%C3%A4"]).to_pylist() == [
        robostats.RobotsTxt(mixed[0]).can_fetch("/\xff", "X"), False]


def test_one_agent_for_every_row_and_empty_columns():
    assert robostats.can_fetch_many(BODIES, "GPTBot", URL_LIST).to_pylist() == _one_by_one(BODIES, ["GPTBot"] * 5, URL_LIST)
    assert robostats.can_fetch_many([], [], []).to_pylist() == []
    assert robostats.can_fetch_many(pa.array([], pa.binary()), "GPTBot", pa.array([], pa.string())).to_pylist() == []
    assert robostats.can_fetch_many([None, None], [None, None], [None, None]).to_pylist() == [None, None]


def test_many_rows_few_bodies():
    n = 200_000
    bodies = pa.array([BODIES[i % 2] if i % 2 else BODIES[0] for i in range(n)], pa.large_binary())
    got = robostats.can_fetch_many(bodies, "GPTBot", ["/a"] * n)
    assert got.null_count == 0 and got.true_count == 0 and len(got) == n


def test_blocks_runs_and_nulls_over_many_rows_equal_one_by_one():
    # More rows than one block of work (4,096), bodies in runs (a row's body
    # found as the one before), NULLs inside runs, slices at odd offsets.
    import random

    rng = random.Random(7)
    pool = [f"User-agent: {a}\nDisallow: /{p}\nAllow: /{p}/ok\n".encode() for a in ("*", "GPTBot", "CCBot")
            for p in ("a", "b", "c", "")] + [b"", None]
    bodies, agents, urls = [], [], []
    while len(bodies) < 12_000:
        body = rng.choice(pool)
        for _ in range(rng.randint(1, 40)):
            bodies.append(None if rng.random() < 0.02 else body)
            agents.append(rng.choice(["GPTBot", "CCBot", "Googlebot", None]))
            urls.append(rng.choice(["/a", "/a/ok", "/b/x", "/", "/c/ok/1", None]))
    want = _one_by_one(bodies, agents, urls)
    assert robostats.can_fetch_many(bodies, agents, urls).to_pylist() == want
    col = pa.array([b"x"] * 3 + bodies, pa.large_binary()).slice(3)
    assert robostats.can_fetch_many(col, agents, urls).to_pylist() == want


def test_rows_sharing_body_objects_and_dictionary_columns_equal_one_by_one():
    """A join's rows (one body object per host, many URLs) go in as a
    dictionary of the distinct objects; dictionary columns (pyarrow's,
    chunked with different dictionaries, NULL keys and NULL values,
    pandas' and polars' categoricals) are read without decoding: the same
    answers as row by row, whatever object holds equal bytes."""
    import random

    rng = random.Random(11)
    hosts = [f"User-agent: {a}\nDisallow: /{p}\n".encode() for a in ("*", "GPTBot") for p in ("a", "b", "")]
    hosts += [b"", "User-agent: *\nDisallow: /\u00e4\n"]
    bodies, agents, urls = [], [], []
    for _ in range(9_000):
        body = rng.choice(hosts + [None])
        # equal bytes in another object now and then: told apart by bytes
        bodies.append(bytes(bytearray(body)) if isinstance(body, bytes) and rng.random() < 0.1 else body)
        agents.append(rng.choice(["GPTBot", "CCBot", None]))
        urls.append(rng.choice(["/a", "/b/1", "/", "/\u00e4", None]))
    want = _one_by_one(bodies, agents, urls)
    assert robostats.can_fetch_many(bodies, agents, urls).to_pylist() == want
    as_bytes = [b.encode() if isinstance(b, str) else b for b in bodies]
    plain = pa.array(as_bytes, pa.large_binary())
    encoded = plain.dictionary_encode()
    assert pa.types.is_dictionary(encoded.type)
    assert robostats.can_fetch_many(encoded, agents, urls).to_pylist() == want
    chunked = pa.chunked_array([plain.slice(0, 4_000).dictionary_encode(), plain.slice(4_000).dictionary_encode()])
    assert robostats.can_fetch_many(chunked, pa.array(agents).dictionary_encode(), urls).to_pylist() == want
    # NULL keys and NULL values, values repeated in the dictionary
    values = pa.array([hosts[0], None, hosts[0], hosts[1]], pa.binary())
    keys = pa.array([0, 1, None, 2, 3, 2], pa.int8())
    got = robostats.can_fetch_many(pa.DictionaryArray.from_arrays(keys, values), "GPTBot", ["/a"] * 6)
    assert got.to_pylist() == [False, None, None, False, True, False]
    series = pd.Series(as_bytes, dtype=object)
    assert robostats.can_fetch_many(series, agents, urls).to_pylist() == want
    assert robostats.can_fetch_many(series.astype("category"), agents, urls).to_pylist() == want
    assert robostats.can_fetch_many(pl.Series(as_bytes, dtype=pl.Binary), pl.Series(agents, dtype=pl.Categorical),
                                    urls).to_pylist() == want
    with pytest.raises(TypeError, match="must hold bytes or str"):
        robostats.can_fetch_many(pa.array([1, 2]).dictionary_encode(), "GPTBot", ["/", "/"])
    # every pandas NULL, of any type, is NULL
    import numpy as np
    nulls = pd.Series([hosts[1], np.float64("nan"), pd.NaT, pd.NA, None], dtype=object)
    assert robostats.can_fetch_many(nulls, "GPTBot", ["/a"] * 5).to_pylist() == [True, None, None, None, None]
    # chunks whose dictionaries hold a NULL (pyarrow cannot unify them): decoded
    with_null = pa.DictionaryArray.from_arrays(pa.array([0, 1, 1], pa.int8()), pa.array([hosts[0], None]))
    other = pa.DictionaryArray.from_arrays(pa.array([0, 1], pa.int8()), pa.array([hosts[1], hosts[0]]))
    chunked = pa.chunked_array([with_null, other])
    assert robostats.can_fetch_many(chunked, "GPTBot", ["/a"] * 5).to_pylist() == [False, None, None, True, False]
    # a slice of a large dictionary: its rows' values only
    sliced = encoded.slice(4_321, 7)
    assert robostats.can_fetch_many(sliced, agents[4_321:4_328], urls[4_321:4_328]).to_pylist() == want[4_321:4_328]


def test_size_limit_is_a_bool_as_for_robotstxt():
    for limit in ("false", 0, None):
        with pytest.raises(TypeError):
            robostats.can_fetch_many(["User-agent: *\nDisallow: /"], "a", ["/"], size_limit=limit)
        with pytest.raises(TypeError):
            robostats.RobotsTxt("User-agent: *\nDisallow: /", size_limit=limit)


def test_chunks_of_more_than_2_gib_together_are_read():
    """A chunked column of 32-bit offsets whose chunks hold more than 2 GiB
    together (too many for one such array) is read, not refused with an
    offset overflow. The chunks share one buffer: 0.75 GiB of memory."""
    size = 768 << 20
    rules = b"User-agent: *\nDisallow: /private\n"
    data = pa.py_buffer(rules + b"#" * (size - len(rules)))
    offsets = pa.py_buffer(pa.array([0, size], pa.int32()).buffers()[1])
    chunk = pa.Array.from_buffers(pa.binary(), 1, [None, offsets, data])
    bodies = pa.chunked_array([chunk, chunk, chunk])
    assert sum(c.nbytes for c in bodies.chunks) > 2**31
    got = robostats.can_fetch_many(bodies, "a", ["https://x/private", "https://x/ok", "https://x/private/1"])
    assert got.to_pylist() == [False, True, False]
