"""``python -m robostats_cc``: the ``robostats`` command."""

from ._cli import main

main()
