"""Random draws and small helpers: weighted picks, a clipped lognormal,
Zipf-weighted words of web copy and paths, record ids and digests, HTTP and
WARC dates, and the random stream of one file."""

from __future__ import annotations

import base64
import bisect
import hashlib
import itertools
import math
import random
import uuid

from .vocab import PATH_WORDS, PROSE

class Shares:
    """A weighted table {item: weight}, drawn by bisecting the cumulative weights."""

    def __init__(self, weights):
        self.source = weights
        self.items = list(weights)
        self.cum = list(itertools.accumulate(weights.values()))

    def draw(self, rng):
        return self.items[bisect.bisect_right(self.cum, rng.random() * self.cum[-1])]


_SHARES_CACHE: dict[int, Shares] = {}


def pick(rng, weights):
    """One item of a {item: weight} dict (a module constant, such as the
    share tables of config: its table is built once, keyed by identity)."""
    table = _SHARES_CACHE.get(id(weights))
    if table is None or table.source is not weights:
        table = _SHARES_CACHE[id(weights)] = Shares(weights)
    return table.draw(rng)


def lognormal(rng, median, sigma, lo, hi):
    return max(lo, min(hi, int(median * math.exp(rng.gauss(0.0, sigma)))))


def record_id(rng):
    return "<urn:uuid:%s>" % uuid.UUID(int=rng.getrandbits(128), version=4)


def sha1_b32(data):
    return "sha1:" + base64.b32encode(hashlib.sha1(data).digest()).decode("ascii")


def zipf_cum(n, s):
    return list(itertools.accumulate(1.0 / (r ** s) for r in range(1, n + 1)))


PROSE_CUM = zipf_cum(len(PROSE), 1.0)
DOMAIN_WORDS = [w for w in PATH_WORDS + PROSE if w.isascii() and w.isalpha() and len(w) > 2]
PATH_CUM = zipf_cum(len(PATH_WORDS), 0.7)


def prose(rng, n):
    return " ".join(rng.choices(PROSE, cum_weights=PROSE_CUM, k=n))


def path_word(rng):
    return rng.choices(PATH_WORDS, cum_weights=PATH_CUM)[0]


def http_date(dt):
    return dt.strftime("%a, %d %b %Y %H:%M:%S GMT")


def warc_date(dt):
    return dt.strftime("%Y-%m-%dT%H:%M:%SZ")


def file_rng(seed, index):
    """The random stream of one file: depends on (seed, index) only."""
    digest = hashlib.sha256(("robostats gen_corpus %s %d" % (seed, index)).encode()).digest()
    return random.Random(int.from_bytes(digest[:16], "big"))
