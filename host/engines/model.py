"""Engine ``model``: the golden model of the paper's search (:mod:`model.paper`)."""

import time

from slitherlink.model.paper import search

from .. import protocol
from ..errors import TooLargeForEngine
from . import Result, Stopwatch

#: Default step limit: about a minute of Python, far beyond any 10x10 we know.
DEFAULT_MAX_CHECKS = 200_000_000


def solve(puzzle, *, unique=False, time_limit=None, max_checks=None, max_solutions=None):
    """Solve with the paper-faithful search, bounded by ``max_checks`` (exact and
    repeatable) and by ``time_limit`` seconds (looked at every 65,536 checks)."""
    if max(puzzle.rows, puzzle.cols) > protocol.MAX_GRID:
        # the paper's search, as the hardware runs it, is for grids the protocol carries;
        # beyond, it only grows slow (about a minute for a blank 200x200)
        raise TooLargeForEngine(f"the model engine takes grids up to {protocol.MAX_GRID}x"
                                f"{protocol.MAX_GRID} (the hardware's largest), not "
                                f"{puzzle.size}: use --engine sat")
    wanted = max_solutions if max_solutions is not None else (2 if unique else 1)
    with Stopwatch() as clock:
        outcome = search(puzzle, max_solutions=wanted,
                         max_checks=DEFAULT_MAX_CHECKS if max_checks is None else max_checks,
                         deadline=None if time_limit is None else time.monotonic() + time_limit)
    found = len(outcome.solutions)
    status = Result.status_for(min(found, 2), wanted_unique=unique or wanted > 1,
                               exhausted=outcome.exhausted)
    result = Result("model", status, outcome.solutions[0] if found else None,
                    list(outcome.solutions), clock.seconds, outcome.counters.as_dict())
    if outcome.limit_reached:
        result.message = f"stopped after {outcome.counters.checks} checks"
    return result  # checked by host.engines.checked
