"""The ``robostats`` command of the Python package: the Rust binary's
command (``robostats::cli``), run in this process."""

import os
import signal
import sys

from . import _robostats
from ._duckdb import _shipped_extension


def main() -> None:
    # `robostats report` runs its queries in DuckDB through a Python: this
    # one, which has the package's DuckDB, unless the user chose another.
    if not os.environ.get("ROBOSTATS_PYTHON"):
        os.environ["ROBOSTATS_PYTHON"] = sys.executable
    # `robostats duckdb-extension` copies the extension file this install
    # ships (the Rust binary finds its library beside itself).
    shipped = _shipped_extension()
    if not os.environ.get("ROBOSTATS_DUCKDB_LIBRARY") and os.path.isfile(shipped):
        os.environ["ROBOSTATS_DUCKDB_LIBRARY"] = shipped
    # Ctrl-C stops the command as it stops the Rust binary (the tables hold
    # only inputs read to their end; a re-run resumes).
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.stdout.flush()
    sys.stderr.flush()
    sys.exit(_robostats.main(["robostats", *sys.argv[1:]]))


if __name__ == "__main__":
    main()
