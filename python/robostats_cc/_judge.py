"""``judge``: every URL of a corpus against its own robots.txt, as Common
Crawl fetched it (``robostats judge``, run in this process)."""

import os
import sys
import tempfile
from typing import Any, Iterable, Optional, Sequence, Union

from . import _robostats

PathLike = Union[str, "os.PathLike[str]"]


def judge(
    urls: Any,
    data_set: Union[PathLike, Sequence[PathLike]],
    agents: Iterable[str] = (),
    *,
    ai_training: bool = False,
    as_of: str = "latest",
    missing: str = "unknown",
    explain: bool = False,
    url_column: str = "url",
    keep: Optional[Sequence[str]] = None,
    policy: str = "google",
) -> Any:
    """The verdicts of every URL of ``urls`` against its own robots.txt in
    ``data_set`` (an output directory of ``robostats ingest``, its
    ``s3://`` prefix, or a list of them read as one), as a
    ``pyarrow.Table``: one row per URL, in their order, as
    ``robostats judge`` writes it (docs/judge.md)::

        urls = pyarrow.table({"id": [1, 2], "url": ["https://example.com/", "https://example.com/a"]})
        judged = robostats_cc.judge(urls, "out", agents=["GPTBot"], as_of="CC-MAIN-2025-05")

    ``urls``: a pyarrow Table, a pandas or polars DataFrame, a list of URL
    strings, or the path of a file (Parquet, CSV, TSV, JSON lines, text;
    a directory or glob of them; an ``s3://`` or ``https://`` object).
    ``agents``: product tokens (``GPTBot``), or ``*``; ``ai_training``
    adds the AI-training crawlers and the column ``opted_out``.
    ``as_of``: ``latest``, a crawl's name or a timestamp. ``missing``:
    ``unknown``, ``allow`` or ``disallow`` where no capture is known.
    Raises ``ValueError`` with the command's message."""
    import pyarrow.parquet as pq

    with tempfile.TemporaryDirectory(prefix="robostats-judge-") as tmp:
        if isinstance(urls, (str, os.PathLike)):
            path = os.fspath(urls)
        else:
            path = os.path.join(tmp, "urls.parquet")
            pq.write_table(_table(urls, url_column), path)
        out = os.path.join(tmp, "judged.parquet")
        argv = ["robostats", "judge", "--urls", path, "-o", out, "--python", sys.executable, "--quiet",
                "--as-of", as_of, "--missing", missing, "--url-column", url_column, "--policy", policy]
        sets = [data_set] if isinstance(data_set, (str, os.PathLike)) else list(data_set)
        for one in sets:
            argv += ["--data-set", os.fspath(one)]
        for agent in [agents] if isinstance(agents, str) else agents:
            argv += ["--agent", agent]
        if ai_training:
            argv.append("--ai-training")
        if explain:
            argv.append("--explain")
        if keep is not None:
            argv.append("--keep=" + ",".join([keep] if isinstance(keep, str) else keep))
        _robostats.judge(argv)
        return pq.read_table(out, memory_map=False)


def _table(urls: Any, url_column: str) -> Any:
    """``urls`` as a pyarrow Table (a categorical URL column as text)."""
    import pyarrow as pa

    module = type(urls).__module__.split(".")[0]
    if isinstance(urls, pa.Table):
        table = urls
    elif isinstance(urls, pa.RecordBatch):
        table = pa.Table.from_batches([urls])
    elif module == "polars":
        table = urls.to_arrow()
    elif module == "pandas":
        table = pa.Table.from_pandas(urls, preserve_index=False)
    elif isinstance(urls, (list, tuple)):
        return pa.table({url_column: pa.array(list(urls), type=pa.string())})
    else:
        raise TypeError(
            f"urls: a pyarrow Table, a pandas or polars DataFrame, a list of URLs or a path, "
            f"not {type(urls).__name__}")
    if url_column in table.column_names:
        column = table.column(url_column)
        if pa.types.is_dictionary(column.type):
            i = table.column_names.index(url_column)
            table = table.set_column(i, url_column, column.cast(column.type.value_type))
    return table
