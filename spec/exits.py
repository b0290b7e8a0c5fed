"""The exit codes of ``host/solve.py``, declared once.

Each code has a name (:class:`ExitCode`), a one-line meaning (:data:`MEANINGS`)
and a few words (:data:`BRIEF`).  The host takes them from here
(:mod:`host.errors`, the ``--help`` text), and ``python -m
slitherlink.spec.generate`` writes the table of docs/host.md and the list in the
README from them.  With several puzzles the exit code of the run is the largest
of theirs, so the codes of outcomes are ordered from the mildest to the most
serious.
"""

import re
import textwrap
from enum import IntEnum

__all__ = ["ExitCode", "MEANINGS", "BRIEF", "SEVERAL_PUZZLES", "markdown_table", "markdown_list"]


class ExitCode(IntEnum):
    """Exit status of ``host/solve.py`` (the meanings: :data:`MEANINGS`)."""
    OK = 0
    INTERNAL = 1
    USAGE = 2
    MULTIPLE = 3
    NO_SOLUTION = 4
    LIMIT = 5
    INPUT = 6
    ENGINE = 7
    PORT = 8
    TIMEOUT = 9
    GARBLED = 10
    TOO_LARGE = 11
    INTERRUPTED = 130


#: the width of the generated prose
WIDTH = 78

#: exit code -> its meaning, one line
MEANINGS = {
    ExitCode.OK: "solved (unique, when --unique is given); --convert done",
    ExitCode.INTERNAL: "internal error (a bug: Python prints a traceback; please report it)",
    ExitCode.USAGE: "bad command-line usage, or an option value the engine cannot take",
    ExitCode.MULTIPLE: "several solutions (with --unique)",
    ExitCode.NO_SOLUTION: "no solution",
    ExitCode.LIMIT: "limit reached before an answer (--time-limit, --max-checks, "
                    "--max-decisions; the board in deduce mode: also a full hardware trail)",
    ExitCode.INPUT: "malformed puzzle, unreadable input, or input beyond the limits",
    ExitCode.ENGINE: "engine error, a solution that failed the rules checker, a virtual "
                     "board that died, or deduce mode on a build without the deduction engine",
    ExitCode.PORT: "board: serial port missing, busy or unusable",
    ExitCode.TIMEOUT: "board: no answer (a silent device, or requests lost after the retries)",
    ExitCode.GARBLED: "board: garbled answers (damaged frames, noise, or frames that answer "
                      "no request, after the retries)",
    ExitCode.TOO_LARGE: "puzzle larger than the engine takes (the board: than its hardware "
                        "was built for)",
    ExitCode.INTERRUPTED: "interrupted (Ctrl-C, or SIGTERM): the board's connection closed "
                          "first",
}

#: exit code -> a few words, for short lists (the README)
BRIEF = {
    ExitCode.OK: "solved", ExitCode.INTERNAL: "internal error", ExitCode.USAGE: "usage",
    ExitCode.MULTIPLE: "several solutions", ExitCode.NO_SOLUTION: "no solution",
    ExitCode.LIMIT: "limit reached", ExitCode.INPUT: "bad input",
    ExitCode.ENGINE: "engine or device error", ExitCode.PORT: "port missing or busy",
    ExitCode.TIMEOUT: "no answer", ExitCode.GARBLED: "garbled answer",
    ExitCode.TOO_LARGE: "puzzle too large", ExitCode.INTERRUPTED: "interrupted",
}

#: how the codes of several puzzles make the run's
SEVERAL_PUZZLES = "with several puzzles the exit code is the largest of theirs"


def _markdown(text):
    """``--option`` as code in Markdown."""
    return re.sub(r"(--[a-z-]+)", r"`\1`", text)


def markdown_table():
    """The table of docs/host.md (between its generated markers)."""
    lines = ["| code | name | meaning |", "|---|---|---|"]
    lines += [f"| {int(code)} | `{code.name}` | {_markdown(MEANINGS[code])} |"
              for code in ExitCode]
    lines += ["", textwrap.fill(f"{SEVERAL_PUZZLES[0].upper()}{SEVERAL_PUZZLES[1:]}. The codes "
                                f"are declared once, in `spec/exits.py`.", WIDTH)]
    return "\n".join(lines) + "\n"


def markdown_list():
    """The short list of the README (between its generated markers)."""
    items = ", ".join(f"{int(code)} {BRIEF[code]}" for code in ExitCode)
    return textwrap.fill(f"Exit codes: {items} ({SEVERAL_PUZZLES}; the meanings: "
                         f"[docs/host.md](docs/host.md#exit-codes), `host/solve.py --help`).",
                         WIDTH, break_on_hyphens=False) + "\n"
