"""moto's S3 server, one request at a time: for the backends' contract test
(src/output/backend), run by scripts/test.sh.

S3 makes a conditional write atomic (If-None-Match: * or If-Match checked
and the object stored in one step); moto checks the condition, then stores,
without a lock between, so two writers racing on one key can both succeed
against it. Handled one at a time (connections are still accepted at once),
its requests are atomic as S3's are, and the contract test can race eight
writers on one key against it as against a directory.

    python3 tests/s3_atomic_server.py PORT
"""

import os
import sys
import threading

from moto.moto_server.werkzeug_app import DomainDispatcherApplication, MotoRequestHandler, create_backend_app
from werkzeug.serving import run_simple


def one_at_a_time(app):
    lock = threading.Lock()

    def handle(environ, start_response):
        with lock:
            # (the whole answer made under the lock, not only its start)
            return list(app(environ, start_response))

    return handle


if __name__ == "__main__":
    os.environ.setdefault("MOTO_PORT", sys.argv[1])  # as moto.server sets it
    run_simple("127.0.0.1", int(sys.argv[1]), one_at_a_time(DomainDispatcherApplication(create_backend_app)),
               threaded=True, request_handler=MotoRequestHandler)
