"""``python -m gno``: the same entry point as the ``gno`` console script."""

from gno.cli.entry import main

main()
