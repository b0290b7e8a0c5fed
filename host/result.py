"""The outcome of a solve, shared by every engine, the board and the UART protocol.

The numeric values of :class:`Status` are the status codes of the UART protocol
(``host/protocol.py`` generates them into the firmware header).
"""

from dataclasses import dataclass, field
from enum import IntEnum

__all__ = ["Status", "Result"]


class Status(IntEnum):
    SOLVED_UNIQUE = 0   # a solution, and the search proved there is no other
    SOLVED = 1          # a solution; uniqueness was not checked
    MULTIPLE = 2        # at least two solutions (the first is reported)
    NO_SOLUTION = 3     # the search proved there is none
    LIMIT = 4           # the step/time limit ended the search first
    ERROR = 5           # the engine or device failed; see Result.message

    @property
    def solved(self):
        return self in (Status.SOLVED_UNIQUE, Status.SOLVED, Status.MULTIPLE)

    @property
    def text(self):
        return {
            Status.SOLVED_UNIQUE: "solved, unique",
            Status.SOLVED: "solved (uniqueness not checked)",
            Status.MULTIPLE: "several solutions",
            Status.NO_SOLUTION: "no solution",
            Status.LIMIT: "limit reached",
            Status.ERROR: "error",
        }[self]


@dataclass
class Result:
    """What an engine returns.  ``solution`` is rows of booleans (True = inside)."""
    engine: str
    status: Status
    solution: tuple = None
    solutions: list = field(default_factory=list)  # all found, when enumerating
    seconds: float = 0.0                           # wall time of the solve
    counters: dict = field(default_factory=dict)   # engine-specific, e.g. checks
    message: str = ""

    @staticmethod
    def status_for(found, *, wanted_unique, exhausted):
        """The status of a search that found ``found`` solutions."""
        if found >= 2:
            return Status.MULTIPLE
        if found == 1:
            return Status.SOLVED_UNIQUE if (wanted_unique and exhausted) else Status.SOLVED
        return Status.NO_SOLUTION if exhausted else Status.LIMIT
