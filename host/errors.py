"""The base class of the host's one-line errors, and the exit codes they carry.

The exit codes of ``host/solve.py`` are declared in :mod:`spec.exits` (the docs
tables are generated from there); this module gives them to the host.  Every
error the user can act on is a :class:`HostError`: one line (``str()``) and an
``exit_code``.  The errors of one part live with it and derive from this class:
the device's (port, no answer, garbled answer, ...) in :mod:`host.device.errors`.
Light to import: no engine, no pyserial.
"""

from slitherlink.spec.exits import MEANINGS, ExitCode

__all__ = ["ExitCode", "EXIT_CODES", "HostError", "OptionError", "TooLargeForEngine"]

#: exit code -> meaning, shown by --help (:data:`spec.exits.MEANINGS`)
EXIT_CODES = MEANINGS


class HostError(Exception):
    """An error the user can act on: ``str()`` is one line, ``exit_code`` is for the CLI."""
    exit_code = ExitCode.ENGINE


class OptionError(HostError, ValueError):
    """An option an engine cannot take (e.g. a value out of its range): a usage error."""
    exit_code = ExitCode.USAGE


class TooLargeForEngine(HostError):
    """The puzzle is larger than the engine takes (e.g. the model: the hardware's largest)."""
    exit_code = ExitCode.TOO_LARGE
