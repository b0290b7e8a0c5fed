#!/usr/bin/env python3
"""Solve Slitherlink puzzles: ``host/solve.py [options] PUZZLE...`` (see ``--help``).

A thin script around :mod:`host.cli`.  It runs from a fresh clone as
``host/solve.py`` or ``python host/solve.py``: it puts the repository root on
``sys.path`` and, when started by another Python while the repository's
``.venv`` exists, re-executes itself with ``.venv/bin/python`` (which has the
packages of pyproject.toml).
"""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV = os.path.join(ROOT, ".venv")
VENV_PYTHON = os.path.join(VENV, "bin", "python")
_REEXEC = "SLITHERLINK_SOLVE_REEXEC"  # set once, so a broken venv cannot loop

if (os.path.exists(VENV_PYTHON) and not os.environ.get(_REEXEC)
        and os.path.realpath(sys.prefix) != os.path.realpath(VENV)):
    os.environ[_REEXEC] = "1"
    try:
        os.execv(VENV_PYTHON, [VENV_PYTHON, os.path.abspath(__file__), *sys.argv[1:]])
    except OSError as error:  # an unusable venv: carry on with this Python
        print(f"host/solve.py: cannot run {VENV_PYTHON} ({error.strerror}); "
              f"using {sys.executable}", file=sys.stderr)

if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from slitherlink.host.cli import run  # noqa: E402  (after the path set-up above)

if __name__ == "__main__":
    run()
