#!/usr/bin/env python3
"""Solve Slitherlink puzzles: ``host/solve.py [options] PUZZLE...`` (see ``--help``).

The same program as the ``slitherlink`` command and ``python -m slitherlink``
(:func:`slitherlink.host.cli.run`), startable straight from a checkout: when the
Python that runs it does not have the package, it hands over to the checkout's
``.venv`` (made by ``make setup``), or says how to make one.
"""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV_PYTHON = os.path.join(ROOT, ".venv", "bin", "python")
_HANDED_OVER = "SLITHERLINK_SOLVE_REEXEC"  # set once, so a broken venv cannot loop

try:
    from slitherlink.host.cli import run
except ImportError:
    if os.path.exists(VENV_PYTHON) and not os.environ.get(_HANDED_OVER):
        os.environ[_HANDED_OVER] = "1"
        try:
            os.execv(VENV_PYTHON, [VENV_PYTHON, os.path.abspath(__file__), *sys.argv[1:]])
        except OSError as error:
            print(f"host/solve.py: cannot run {VENV_PYTHON}: {error.strerror}", file=sys.stderr)
            sys.exit(2)
    print("host/solve.py: the slitherlink package is not installed for "
          f"{sys.executable}; run 'make setup' (or: pip install -e {ROOT})", file=sys.stderr)
    sys.exit(2)

if __name__ == "__main__":
    run()
