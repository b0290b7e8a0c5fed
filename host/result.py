"""The outcome of a solve, shared by every engine, the board and the UART protocol.

:class:`Status` is declared with the UART protocol (:mod:`spec.protocol`): its
values are RESULT's status codes.
"""

from dataclasses import dataclass, field

from slitherlink.spec.protocol import Status, status_of

__all__ = ["Status", "Result"]


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
    mode: str = ""      # "paper" or "deduce" for the engines that have both (--mode)

    @staticmethod
    def status_for(found, *, wanted_unique, exhausted):
        """The status of a search that found ``found`` solutions: :func:`spec.protocol.status_of`,
        the rule the firmware follows too."""
        return status_of(found, exhausted=exhausted, unique=wanted_unique)
