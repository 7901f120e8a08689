"""``python -m robostats``: the ``robostats`` command."""

from ._cli import main

main()
