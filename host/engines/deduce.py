"""Engine ``deduce``: the golden model of the deduction engine as the default build runs it
(:func:`model.band.band_solve`, band 1: the search of :mod:`model.deduce`, its counters as
the hardware counts them, and the band model's cycle estimate; docs/deduce.md).  The
``model`` engine's deduce mode (``--engine model``, the default mode) runs it;
``--engine deduce`` is kept as an alias of that."""

import time

from slitherlink.model.band import band_solve

from . import Result, Stopwatch

#: Default branch limit: far beyond any puzzle of the corpus.
DEFAULT_MAX_DECISIONS = 1_000_000


def solve(puzzle, *, unique=False, time_limit=None, max_decisions=None, max_solutions=None):
    """Solve with deduction, probing and depth-first search, bounded by
    ``max_decisions`` (exact and repeatable) and ``time_limit`` seconds."""
    if time_limit is not None and not time_limit > 0:
        raise ValueError(f"the time limit must be positive, not {time_limit!r}")
    if max_solutions is not None and (type(max_solutions) is not int or max_solutions < 1):
        raise ValueError(f"max_solutions must be a positive integer, not {max_solutions!r}")
    if max_decisions is not None and (type(max_decisions) is not int or max_decisions < 0):
        raise ValueError(f"max_decisions must be a non-negative integer, not {max_decisions!r}")
    wanted = max_solutions if max_solutions is not None else (2 if unique else 1)
    with Stopwatch() as clock:
        banded = band_solve(
            puzzle, band=1, check=False, max_solutions=wanted,
            max_decisions=DEFAULT_MAX_DECISIONS if max_decisions is None else max_decisions,
            deadline=None if time_limit is None else time.monotonic() + time_limit)
    outcome = banded.outcome
    found = len(outcome.solutions)
    status = Result.status_for(min(found, 2), wanted_unique=unique or wanted > 1,
                               exhausted=outcome.exhausted)
    counters = banded.counters()
    counters["cycles"] = banded.cycles(1)
    result = Result("deduce", status, outcome.solutions[0] if found else None,
                    list(outcome.solutions), clock.seconds, counters, mode="deduce")
    if outcome.limit == "time":
        result.message = (f"time limit of {time_limit} s reached after "
                          f"{outcome.counters.decisions} decisions")
    elif outcome.limit_reached:
        result.message = f"stopped after {outcome.counters.decisions} decisions (max_decisions)"
    return result  # checked once, by host.engines.checked
