"""``python -m slitherlink``: the same as the ``slitherlink`` command and ``host/solve.py``."""

from slitherlink.host.cli import run

run()
