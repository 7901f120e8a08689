"""A local HTTP/1.1 server for the tests of ingest over the network.

It serves a map of URL paths to objects (bytes in memory, or files on disk)
the way an object store or CDN does: `Content-Length`, `ETag`,
`Last-Modified`, `Accept-Ranges: bytes`, range requests (`bytes=N-` and
`bytes=N-M`, answered 206, or 416 with `Content-Range: bytes */TOTAL` when N
is past the end) and the preconditions `If-Match` and `If-Unmodified-Since`
(412 when they fail). An object is found by its path alone, whatever the
query. It records every request (the query too), and it injects faults
scripted per path: each GET of a path takes the next action of the path's
script (HEAD requests are always served normally), and once the script is
used up the path is served normally. The actions:

    ("status", 503, {"Retry-After": "1"})  that status, with those headers
    ("status", 403, {}, b"<Error>...")      ... and that body
    ("reset",)                  no response: the connection is reset
    ("cut", 0.5)                the headers with the full Content-Length, that
                                fraction of the body, then the connection is
                                closed
    ("stall", 0.5, 6)           that fraction of the body, then nothing for 6
                                seconds, then the connection is closed
    ("wrong_length", 100)       a Content-Length 100 bytes larger than the
                                body, the whole body, then the connection is
                                closed
    ("change",)                 the object becomes another version (other
    ("change", data)            bytes, or `data`, another ETag and a later
                                Last-Modified), then this request is served
                                normally
    ("cut_at", 10)              the headers, the first 10 bytes of the body
                                asked for, then the connection is closed
    ("trickle", 1.0)            the headers, then one byte of the body every
                                second, until the body or the server ends
    ("other_200", data)         a 200 with `data` as its body, whatever the
                                Range, and no ETag nor Last-Modified
    ("long_206", 100)           the 206 of the range asked for, with 100 more
                                bytes than its Content-Range says (and a
                                Content-Length that counts them)
    ("endless", b"line\n")      a 200 without Content-Length whose body is
                                `line` again and again until the client goes

A script is any iterable, so `itertools.repeat(("status", 503))` fails every
request.

As a program it serves a directory, without faults and without a log, for
the benchmark of ingest over HTTP (scripts/bench_remote.sh):

    python3 tests/python/remote_server.py --serve DIR [--port N]

It prints its base URL (`http://127.0.0.1:PORT`) on the first line of
stdout, then serves until it is stopped.
"""

import argparse
import hashlib
import socket
import struct
import sys
import threading
import time
from dataclasses import dataclass, field
from email.utils import formatdate, parsedate_to_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

# Last-Modified of the first version of every object (a fixed date, so that
# runs are reproducible); each change adds an hour.
FIRST_MODIFIED = 1_700_000_000


@dataclass
class Request:
    """One request as the server saw it."""

    time: float  # time.monotonic() once its headers were read
    method: str
    path: str  # the URL path, percent-decoded, without the query
    range: str | None  # the Range header
    headers: dict  # every request header, names in lower case
    status: int | None = None  # the status sent; None: the connection was reset
    query: str = ""  # the query, as sent (not decoded)


@dataclass
class Object:
    """One version of a served object: bytes in memory, or a file on disk."""

    data: bytes | None = None
    file: Path | None = None
    version: int = 1
    etag: bool = True  # whether responses carry an ETag
    conditions: bool = True  # whether If-Match and If-Unmodified-Since are honoured
    tag: str = field(init=False)

    def __post_init__(self):
        if self.data is not None:
            digest = hashlib.sha256(self.data).hexdigest()[:16]
        else:  # no hashing of large files: their size and time stand for them
            st = self.file.stat()
            digest = f"{st.st_size:x}-{st.st_mtime_ns:x}"
        self.tag = f'"{digest}-{self.version}"'

    @property
    def size(self):
        return len(self.data) if self.data is not None else self.file.stat().st_size

    @property
    def modified(self):
        """Last-Modified, seconds since the epoch."""
        return FIRST_MODIFIED + 3600 * (self.version - 1)


class RemoteServer:
    """The server, on 127.0.0.1 and a free port, in a thread of its own.

    `files` maps URL paths (`/a/x.warc.gz`) to bytes. With `record=False`
    no request is logged (the benchmark's mode). `port` 0: a free one."""

    def __init__(self, files=None, record=True, port=0):
        self.objects = {}
        self.scripts = {}
        self.requests = []
        self.record = record
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        for path, data in (files or {}).items():
            self.put(path, data)
        self.httpd = _Server(("127.0.0.1", port), _Handler)
        self.httpd.remote = self
        self.thread = None

    # ---- life cycle ------------------------------------------------------

    def start(self):
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        return self

    def stop(self):
        self.stopping.set()  # stalled responses end at once
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    @property
    def port(self):
        return self.httpd.server_address[1]

    @property
    def url(self):
        """The base URL, without a trailing slash."""
        return f"http://127.0.0.1:{self.port}"

    # ---- objects and scripts ---------------------------------------------

    def put(self, path, data, *, etag=True, conditions=True):
        """Serve `data` at `path`, as a new version of what was there."""
        with self.lock:
            old = self.objects.get(path)
            version = old.version + 1 if old else 1
            self.objects[path] = Object(
                data=bytes(data), version=version, etag=etag, conditions=conditions
            )

    def put_file(self, path, file):
        """Serve the file `file` at `path` (read at each request)."""
        with self.lock:
            self.objects[path] = Object(file=Path(file))

    def script(self, path, actions):
        """The faults of the next GET requests of `path`, one action each."""
        with self.lock:
            self.scripts[path] = iter(actions)

    def clear_scripts(self):
        with self.lock:
            self.scripts.clear()

    def _change(self, path, data=None):
        with self.lock:
            old = self.objects[path]
            if data is None:  # other bytes: the old ones reversed
                data = (old.data if old.data is not None else old.file.read_bytes())[::-1]
            self.objects[path] = Object(
                data=data, version=old.version + 1, etag=old.etag, conditions=old.conditions
            )

    def _next_action(self, path):
        with self.lock:
            return next(self.scripts.get(path, iter(())), None)

    # ---- the log ---------------------------------------------------------

    def _begin(self, method, path, headers, query=""):
        req = Request(
            time=time.monotonic(),
            method=method,
            path=path,
            range=headers.get("Range"),
            headers={k.lower(): v for k, v in headers.items()},
            query=query,
        )
        if self.record:
            with self.lock:
                self.requests.append(req)
        return req

    def log(self, path=None, method=None):
        """The requests recorded so far, in arrival order; only those of
        `path` and `method` when they are given."""
        with self.lock:
            return [
                r
                for r in self.requests
                if (path is None or r.path == path) and (method is None or r.method == method)
            ]

    def clear_log(self):
        with self.lock:
            self.requests.clear()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        # A client that gave up on a response (a timeout, a stall) is part of
        # the tests: only other errors are worth a traceback.
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as real servers
    server_version = "robostats-test-server"
    timeout = 60  # an idle keep-alive connection ends after this long

    def log_message(self, format, *args):
        pass  # the server keeps its own log (RemoteServer.requests)

    def do_GET(self):
        self._respond(body=True)

    def do_HEAD(self):
        self._respond(body=False)

    def _respond(self, body):
        remote = self.server.remote
        target = urlsplit(self.path)
        path = unquote(target.path)
        req = remote._begin(self.command, path, self.headers, target.query)
        action = remote._next_action(path) if self.command == "GET" else None
        if action and action[0] == "change":
            remote._change(path, *action[1:])
            action = None

        if action and action[0] == "status":
            code, headers = action[1], (action[2] if len(action) > 2 else {})
            text = action[3] if len(action) > 3 else None
            self._send_status(req, code, headers, body, text)
            return
        if action and action[0] == "reset":
            self._reset(req)
            return
        if action and action[0] == "other_200":
            req.status = 200
            self.send_response(200)
            self.send_header("Content-Length", str(len(action[1])))
            self.end_headers()
            if body:
                self.wfile.write(action[1])
            return
        if action and action[0] == "endless":
            req.status = 200
            self.send_response(200)
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            chunk = action[1] * max(1, 65536 // max(1, len(action[1])))
            try:
                while body and not remote.stopping.is_set():
                    self.wfile.write(chunk)
            except OSError:
                pass  # the client went away
            return

        obj = remote.objects.get(path)
        if obj is None:
            self._send_status(req, 404, {}, body)
            return
        if obj.conditions and not self._preconditions_hold(obj):
            self._send_status(req, 412, {}, body)
            return

        # the range asked for, if any: [start, end)
        start, end, status = 0, obj.size, 200
        span = _parse_range(self.headers.get("Range"))
        if span is not None:
            first, last = span
            if first >= obj.size:
                self._send_status(req, 416, {"Content-Range": f"bytes */{obj.size}"}, body)
                return
            start = first
            end = obj.size if last is None else min(last + 1, obj.size)
            status = 206

        length = end - start
        if action and action[0] in ("wrong_length", "long_206"):
            length += action[1]
        req.status = status
        self.send_response(status)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(length))
        self.send_header("Accept-Ranges", "bytes")
        self.send_header("Last-Modified", formatdate(obj.modified, usegmt=True))
        if obj.etag:
            self.send_header("ETag", obj.tag)
        if status == 206:
            self.send_header("Content-Range", f"bytes {start}-{end - 1}/{obj.size}")
        self.end_headers()
        if not body:
            return

        if action and action[0] == "cut_at":
            self._send_bytes(obj, start, min(end, start + action[1]))
            self._close()
        elif action and action[0] == "trickle":
            try:
                for i in range(start, end):
                    if remote.stopping.wait(action[1]):
                        break
                    self._send_bytes(obj, i, i + 1)
                    self.wfile.flush()
            except OSError:
                pass  # the client gave up
            self._close()
        elif action and action[0] == "long_206":
            self._send_bytes(obj, start, end)
            self.wfile.write(b"\0" * action[1])
        elif action and action[0] in ("cut", "stall"):
            self._send_bytes(obj, start, start + int((end - start) * action[1]))
            if action[0] == "stall":
                remote.stopping.wait(action[2])
            self._close()
        elif action and action[0] == "wrong_length":
            self._send_bytes(obj, start, end)
            self._close()
        else:
            self._send_bytes(obj, start, end)

    def _preconditions_hold(self, obj):
        """If-Match (strong comparison), else If-Unmodified-Since."""
        if_match = self.headers.get("If-Match")
        if if_match is not None:
            tags = [t.strip() for t in if_match.split(",")]
            return "*" in tags or obj.tag in tags
        since = self.headers.get("If-Unmodified-Since")
        if since is not None:
            try:
                return obj.modified <= parsedate_to_datetime(since).timestamp()
            except (TypeError, ValueError):
                return True  # an invalid date is ignored (RFC 9110)
        return True

    def _send_status(self, req, code, headers, body, text=None):
        """A response without an object: a fault, 404, 412 or 416."""
        text = text if text is not None else f"{code}\n".encode()
        req.status = code
        self.send_response(code)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(text)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        if body:
            self.wfile.write(text)

    def _send_bytes(self, obj, start, end):
        if end <= start:
            return
        if obj.data is not None:
            self.wfile.write(memoryview(obj.data)[start:end])
        else:
            self.wfile.flush()
            with open(obj.file, "rb") as f:
                self.connection.sendfile(f, start, end - start)

    def _close(self):
        """End the connection after what was sent (a FIN, not a reset: the
        client reads every byte sent before it sees the end)."""
        self.wfile.flush()
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_WR)
        except OSError:
            pass

    def _reset(self, req):
        """Close the connection at once with a TCP reset, no response."""
        req.status = None
        self.close_connection = True
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.connection.close()


def _parse_range(value):
    """`bytes=N-` or `bytes=N-M` -> (N, M or None); None for no range or
    one this server does not serve (then the whole object is sent)."""
    if not value or not value.startswith("bytes=") or "," in value:
        return None
    first, sep, last = value[len("bytes="):].strip().partition("-")
    if not sep or not first.isdigit() or (last and not last.isdigit()):
        return None
    if last and int(last) < int(first):
        return None
    return int(first), (int(last) if last else None)


def main():
    parser = argparse.ArgumentParser(description="Serve a directory over HTTP/1.1 (no faults, no log).")
    parser.add_argument("--serve", required=True, type=Path, help="the directory to serve")
    parser.add_argument("--port", type=int, default=0, help="the port (default: a free one)")
    args = parser.parse_args()
    server = RemoteServer(record=False, port=args.port)
    root = args.serve.resolve()
    for file in sorted(p for p in root.rglob("*") if p.is_file()):
        server.put_file("/" + file.relative_to(root).as_posix(), file)
    print(server.url, flush=True)
    try:
        server.httpd.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
