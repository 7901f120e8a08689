"""Secrets in URLs (docs/remote.md, "Secrets in URLs"): a URL holding a token,
a signature or a password is refused before any request unless
--allow-url-secrets is given; with it, the secret goes to its server (and not
to another host a redirect points to), and it is in no row, no manifest line,
no file of the output directory and no message, while the data is read whole.
Two URLs differing only in a secret's value are one input: a run with a renewed
token skips what the last one did."""

import base64
import re

import pytest

from conftest import SAMPLES, SYNTHETIC
from remote_server import RemoteServer
from test_remote import (  # noqa: F401 (corpus and local are fixtures)
    FAST,
    assert_no_secrets,
    assert_same_rows,
    corpus,
    ingest_loud,
    input_status,
    local,
    manifest,
    paths_file,
)

SECRET = "s3cr3t-7e11a1e"
RENEWED = "r3n3w3d-5ec0nd"
MISSING = "crawl/missing.warc.gz"


@pytest.fixture
def server(corpus):
    with RemoteServer({f"/{name}": data for name, data in corpus.files.items()}) as s:
        yield s


def presigned(secret):
    return (
        "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIDPRESIGNED%2F20250101%2Fus-east-1%2Fs3%2Faws4_request"
        f"&X-Amz-Date=20250101T000000Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature={secret}"
    )


# How a secret is given: (the arguments, the names the inputs get, the
# parameter the refusal names), for the inputs SAMPLES and MISSING. `url` is
# the server's, `port` its port, `d` a directory for paths files.
WAYS = {
    "access_token-arguments": lambda url, port, d, secret: (
        [f"{url}/{n}?access_token={secret}" for n in [*SAMPLES, MISSING]],
        {n: f"{url}/{n}?access_token=REDACTED" for n in [*SAMPLES, MISSING]},
        "'access_token'",
    ),
    "presigned-lines": lambda url, port, d, secret: (
        ["--paths", paths_file(d, [f"{url}/{n}?{presigned(secret)}" for n in [*SAMPLES, MISSING]])],
        {n: f"{url}/{n}?{re.sub(r'=[^&]*', '=REDACTED', presigned(secret))}" for n in [*SAMPLES, MISSING]},
        "'X-Amz-Algorithm', 'X-Amz-Credential'",
    ),
    "token-prefix": lambda url, port, d, secret: (
        ["--paths", paths_file(d, [*SAMPLES, MISSING]), "--prefix", f"{url}/?token={secret}"],
        {n: n for n in [*SAMPLES, MISSING]},
        "'token'",
    ),
    "sig-paths-url": lambda url, port, d, secret: (
        ["--paths", f"{url}/lists/robotstxt.paths.gz?SIG={secret}", "--prefix", f"{url}?api_key={secret}"],
        {n: n for n in [*SAMPLES, MISSING]},
        "'SIG'",
    ),
    "userinfo": lambda url, port, d, secret: (
        [f"http://reader:{secret}@127.0.0.1:{port}/{n}" for n in [*SAMPLES, MISSING]],
        {n: f"http://127.0.0.1:{port}/{n}" for n in [*SAMPLES, MISSING]},
        "a user name or password",
    ),
    # Names no list of secrets holds (GitLab's, Backblaze B2's, Tencent
    # COS's, and others'): every parameter is one, but the safe.
    "unlisted-names": lambda url, port, d, secret: (
        [f"{url}/{n}?page=1&private_token={secret}&Authorization={secret}&q-signature={secret}&api-key={secret}"
         f"&jwt={secret}&auth_token={secret}" for n in [*SAMPLES, MISSING]],
        {n: f"{url}/{n}?page=1&private_token=REDACTED&Authorization=REDACTED&q-signature=REDACTED"
            "&api-key=REDACTED&jwt=REDACTED&auth_token=REDACTED" for n in [*SAMPLES, MISSING]},
        "'private_token', 'Authorization', 'q-signature', 'api-key', 'jwt', 'auth_token'",
    ),
    "own-parameter": lambda url, port, d, secret: (
        ["--url-secret-param", "X-Vendor-*", *(f"{url}/{n}?part=1&x-vendor-auth={secret}" for n in [*SAMPLES, MISSING])],
        {n: f"{url}/{n}?part=1&x-vendor-auth=REDACTED" for n in [*SAMPLES, MISSING]},
        "'x-vendor-auth'",
    ),
}


def given(way, server, tmp_path, secret):
    listing = paths_file(tmp_path, [*SAMPLES, MISSING], "robotstxt.paths.gz")
    server.put("/lists/robotstxt.paths.gz", listing.read_bytes())
    return WAYS[way](server.url, server.port, tmp_path, secret)


@pytest.mark.parametrize("way", WAYS)
def test_a_url_with_a_secret_is_refused_without_the_flag(server, tmp_path, way):
    args, _, named = given(way, server, tmp_path, SECRET)
    proc, _ = ingest_loud(tmp_path / "out", *FAST, *args)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    message = proc.stderr
    assert "holds a secret" in message and named in message and "--allow-url-secrets" in message, message
    assert SECRET not in proc.stdout + proc.stderr, message
    assert server.log() == []  # refused before any request
    assert not (tmp_path / "out" / "_manifest").exists()


def object_gets(server):
    return [r for r in server.log() if r.method == "GET" and not r.path.startswith("/lists/")]


def summary(stdout):
    m = re.search(r"^ingest: (\d+) files? done, (\d+) failed, (\d+) skipped", stdout, re.M)
    assert m, stdout
    return tuple(map(int, m.groups()))


@pytest.mark.parametrize("way", WAYS)
def test_a_url_with_a_secret_is_read_with_the_flag_and_written_nowhere(server, local, tmp_path, way):
    args, names, _ = given(way, server, tmp_path, SECRET)
    # a retry, and an input that cannot be read: their lines name the URLs
    server.script(f"/{SYNTHETIC}", [("status", 503, {})])
    out = tmp_path / "out"
    proc, _ = ingest_loud(out, *FAST, "--allow-url-secrets", *args)
    assert proc.returncode == 1, proc.stdout + proc.stderr

    # The secret went to the server with every request for an object.
    gets = object_gets(server)
    assert {r.path for r in gets} == {f"/{n}" for n in [*SAMPLES, MISSING]}
    for r in gets:
        if way == "userinfo":
            sent = base64.b64decode(r.headers["authorization"].removeprefix("Basic ")).decode()
            assert sent == f"reader:{SECRET}", r
        else:
            assert SECRET in r.query, r
    # The data is read whole, each input under its name without the secret.
    assert input_status(out) == {names[n]: "done" for n in SAMPLES} | {names[MISSING]: "failed"}
    prefix, suffix = names[SYNTHETIC].split(SYNTHETIC)
    assert_same_rows(local(SAMPLES), out, strip=prefix or None, suffix=suffix or None)
    # The retry line and the failure name the inputs, without the secret.
    retry = [line for line in proc.stderr.splitlines() if line.startswith("robostats: retrying ")]
    assert len(retry) == 1 and names[SYNTHETIC] in retry[0] and "HTTP 503" in retry[0], proc.stderr
    assert f"could not read '{names[MISSING]}'" in proc.stderr, proc.stderr
    # Nowhere: standard output and error, every file of the output
    # directory (manifest lines, part file names and bytes), every value.
    assert_no_secrets(proc, out, [SECRET, "AKIDPRESIGNED"])
    assert any(line.get("id") for line in manifest(out))

    # A renewed secret: the same inputs, done already.
    args, _, _ = given(way, server, tmp_path, RENEWED)
    server.clear_log()
    again, _ = ingest_loud(out, *FAST, "--allow-url-secrets", *args)
    assert summary(again.stdout) == (0, 1, len(SAMPLES)), again.stdout
    assert {r.path for r in object_gets(server)} == {f"/{MISSING}"}
    assert_no_secrets(again, out, [SECRET, RENEWED])


def test_a_redirect_takes_no_secret_to_another_host(server, local, corpus, tmp_path):
    with RemoteServer({f"/{SYNTHETIC}": corpus.files[SYNTHETIC]}) as other:
        server.script(f"/{SYNTHETIC}", [("status", 302, {"Location": f"{other.url}/{SYNTHETIC}"})])
        url = f"http://reader:{SECRET}@127.0.0.1:{server.port}/{SYNTHETIC}?access_token={SECRET}"
        out = tmp_path / "out"
        proc, _ = ingest_loud(out, *FAST, "--allow-url-secrets", url)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        [first] = object_gets(server)
        assert SECRET in first.query and "authorization" in first.headers, first
        [moved] = other.log()
        assert moved.query == "" and "authorization" not in moved.headers, moved
        assert SECRET not in repr(moved), moved
    name = f"http://127.0.0.1:{server.port}/{SYNTHETIC}?access_token=REDACTED"
    assert input_status(out) == {name: "done"}
    assert_same_rows(local([SYNTHETIC]), out, strip=name.split(SYNTHETIC)[0], suffix="?access_token=REDACTED")
    assert_no_secrets(proc, out, [SECRET])


def test_a_parameter_named_safe_is_kept_and_tells_inputs_apart(server, corpus, tmp_path):
    """A parameter that names the object is a secret by default: refused,
    saying how to name it safe; read with --allow-url-secrets, two objects
    that differ only in it would be one input (refused in one run); given
    with --url-safe-param, it is kept in the names, and each URL is an
    input of its own. A known secret cannot be given as safe."""
    server.put("/get", corpus.files[SYNTHETIC])
    urls = [f"{server.url}/get?file={i}" for i in range(2)]
    proc, _ = ingest_loud(tmp_path / "refused", *FAST, *urls)
    assert proc.returncode == 2 and "'file'" in proc.stderr and "--url-safe-param" in proc.stderr, proc.stderr
    proc, _ = ingest_loud(tmp_path / "one", *FAST, "--allow-url-secrets", *urls)
    assert proc.returncode == 2 and "listed twice with different secrets" in proc.stderr, proc.stderr
    out = tmp_path / "out"
    proc, _ = ingest_loud(out, *FAST, "--url-safe-param", "FILE", *urls)
    assert proc.returncode == 0, proc.stderr
    assert input_status(out) == {u: "done" for u in urls}
    proc, _ = ingest_loud(tmp_path / "bad", *FAST, "--url-safe-param", "token", *urls)
    assert proc.returncode == 2 and "carries a secret" in proc.stderr, proc.stderr
