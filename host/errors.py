"""Exit codes of ``host/solve.py`` and the base class of the host's one-line errors.

Defined once here, so that the command line (:mod:`host.cli`), the board
engine (:mod:`host.board`) and the input readers (:mod:`host.formats`) share
them without importing each other.  Light to import: no engine, no pyserial.
"""

from enum import IntEnum

__all__ = ["ExitCode", "EXIT_CODES", "HostError", "OptionError", "TooLargeForEngine"]


class ExitCode(IntEnum):
    """Exit status of ``host/solve.py``.  With several puzzles, the largest code wins
    (the codes are ordered from the mildest outcome to the most serious)."""
    OK = 0            # solved (and proved unique when --unique was given)
    INTERNAL = 1      # an unexpected internal error (a bug; Python prints a traceback)
    USAGE = 2         # bad command-line options
    MULTIPLE = 3      # --unique: the puzzle has several solutions
    NO_SOLUTION = 4   # the puzzle has no solution
    LIMIT = 5         # a time/step limit ended the search (or uniqueness unproved)
    INPUT = 6         # malformed puzzle or unreadable input (also: beyond the input limits)
    ENGINE = 7        # the engine failed or returned a wrong solution; the virtual board died
    PORT = 8          # board: serial port missing or busy
    TIMEOUT = 9       # board: no answer in time
    GARBLED = 10      # board: garbled answer
    TOO_LARGE = 11    # the puzzle is larger than the engine (the built hardware) takes


#: exit code -> meaning, shown by --help and in docs/host.md
EXIT_CODES = {
    ExitCode.OK: "solved (unique, when --unique is given); --convert done",
    ExitCode.INTERNAL: "internal error (a bug: please report the traceback)",
    ExitCode.USAGE: "bad command-line usage",
    ExitCode.MULTIPLE: "several solutions (with --unique)",
    ExitCode.NO_SOLUTION: "no solution",
    ExitCode.LIMIT: "limit reached before an answer (--time-limit, --max-checks, "
                    "--max-decisions)",
    ExitCode.INPUT: "malformed puzzle, unreadable input, or input beyond the limits",
    ExitCode.ENGINE: "engine error, a solution that failed the rules checker, "
                     "or the virtual board died",
    ExitCode.PORT: "board: serial port missing or busy",
    ExitCode.TIMEOUT: "board: no answer (timeout, after the retries)",
    ExitCode.GARBLED: "board: garbled answers (after the retries)",
    ExitCode.TOO_LARGE: "puzzle larger than the engine takes (the board: than its "
                        "hardware was built for)",
}


class HostError(Exception):
    """An error the user can act on: ``str()`` is one line, ``exit_code`` is for the CLI."""
    exit_code = ExitCode.ENGINE


class OptionError(HostError, ValueError):
    """An option an engine cannot take (e.g. a value out of its range): a usage error."""
    exit_code = ExitCode.USAGE


class TooLargeForEngine(HostError):
    """The puzzle is larger than the engine takes (e.g. the model: the hardware's largest)."""
    exit_code = ExitCode.TOO_LARGE
