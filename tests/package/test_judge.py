"""`robostats_cc.judge`: the command's rows for a table, a frame, a list or
a file, with the corpus's own columns kept, and its errors as ValueError."""

import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import robostats_cc as robostats

from conftest import binary


def _urls(out):
    con = robostats.connect(out)
    hosts = [h for (h,) in con.sql(
        "SELECT DISTINCT url_protocol || '://' || url_host_name FROM captures ORDER BY 1 LIMIT 60").fetchall()]
    return [h + p for h in hosts for p in ("/", "/wp-admin/", "/search?q=1")] + ["not a url"]


@pytest.mark.parametrize("kind", ["pyarrow", "pandas", "polars", "list", "path"])
def test_judge_gives_the_commands_rows(package_out, tmp_path, kind):
    urls = _urls(package_out)
    ids = list(range(len(urls)))
    table = pa.table({"id": ids, "url": urls})
    path = tmp_path / "urls.parquet"
    import pyarrow.parquet as pq
    pq.write_table(table, path)
    given = {"pyarrow": table, "pandas": table.to_pandas(), "polars": pl.from_arrow(table), "list": urls,
             "path": str(path)}[kind]
    judged = robostats.judge(given, package_out, agents=["GPTBot", "*"], as_of="latest")
    proc = binary("judge", "--data-set", package_out, "--urls", path, "-o", tmp_path / "cli.parquet",
                  "--agent", "GPTBot", "--agent", "*")
    assert proc.returncode == 0, proc.stderr
    cli = pq.read_table(tmp_path / "cli.parquet")
    if kind == "list":
        cli = cli.drop_columns(["id"])
    assert judged.to_pylist() == cli.to_pylist()
    assert judged.column("url").to_pylist() == urls
    assert judged.column("outcome").to_pylist()[-1] == "not_a_url"


def test_judge_keeps_columns_and_adds_opted_out(package_out):
    frame = pd.DataFrame({"doc": ["a", "b"], "dump": ["x", "y"], "url": _urls(package_out)[:2]})
    judged = robostats.judge(frame, [package_out], ai_training=True, keep=["doc"], explain=True)
    assert judged.column_names[:2] == ["doc", "Applebot-Extended"]
    assert "opted_out" in judged.column_names and "GPTBot_rule" in judged.column_names
    assert judged.column("doc").to_pylist() == ["a", "b"]


def test_judge_errors_are_value_errors(package_out, tmp_path):
    with pytest.raises(ValueError, match="pass its product token, 'GPTBot'"):
        robostats.judge(["https://example.com/"], package_out, agents=["Mozilla/5.0 (compatible; GPTBot/1.2)"])
    with pytest.raises(ValueError, match="no column link"):
        robostats.judge(pa.table({"url": ["https://example.com/"]}), package_out, agents=["GPTBot"],
                        url_column="link")
    with pytest.raises(ValueError, match="is not an ingest output directory"):
        robostats.judge(["https://example.com/"], tmp_path, agents=["GPTBot"])
    with pytest.raises(TypeError):
        robostats.judge(42, package_out, agents=["GPTBot"])


def test_judge_takes_one_kept_column_by_name_and_categorical_urls(package_out):
    urls = _urls(package_out)[:4]
    frame = pd.DataFrame({"doc": ["a", "b", "c", "d"], "url": pd.Categorical(urls)})
    judged = robostats.judge(frame, package_out, agents=["*"], keep="doc")
    assert judged.column_names[:2] == ["doc", "*"]
    plain = robostats.judge(urls, package_out, agents=["*"], keep=[])
    assert plain.column_names[0] == "*"
    assert judged.column("*").to_pylist() == plain.column("*").to_pylist()
